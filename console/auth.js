// The console's sign-in: OpenID Connect authorization code flow with PKCE (oauth4webapi,
// no hand-written OAuth) against the issuer /console/config.json names — the development
// provider at /oidc, or production's SATANG_OIDC_ISSUER.
//
// Tokens live in this module's memory only: never localStorage, never sessionStorage,
// never a cookie of ours. What survives the redirect to the issuer and back is the PKCE
// verifier, state and nonce (sessionStorage, removed on return), none of them a credential.
// A reload signs in again, which the issuer's own session makes a pair of redirects.
//
// Step-up (the ⚑ actions): a popup asks the issuer to authenticate the same operator again
// (prompt=login, max_age=0, acr_values and resource from config.step_up); the popup's
// callback page hands the answer back by postMessage, and the token is exchanged here. Every
// ⚑ action asks afresh: a step-up token is used once and forgotten.
//
// An access token that runs out (an hour, say) is renewed the same way, in a popup, on the
// operator's next action (renewInPopup): a redirect would lose what the page held. Reads in
// the background (the service clock) wait for that action instead of sending the browser
// away.

import * as oauth from './vendor/oauth4webapi.js';

const pendingKey = 'satang.console.pending-login';
const consoleUrl = new URL('/console/', location.origin).href;
const popupCallbackUrl = new URL('/console/callback.html', location.origin).href;
const expirySlackMs = 30_000;

let setup; // {config, as, client, options}
let current; // {accessToken, expiresAt, sub, roles, name}

/**
 * Thrown when the operator closes the step-up window or the issuer refuses: `key` names its
 * text in the dictionaries (the banner shows it in the operator's language), the message is
 * the English for logs.
 */
export class StepUpAbandoned extends Error {
  constructor(message, key, vars) {
    super(message);
    this.i18nKey = key;
    this.i18nVars = vars;
  }
}

/** The sign-in configuration index.html carries (the server's /console/config.json, inlined so no request waits for it). */
function consoleConfig() {
  return JSON.parse(document.querySelector('meta[name="satang-console-config"]').content);
}

async function discover() {
  if (setup) return setup;
  const config = await consoleConfig();
  const issuer = new URL(config.issuer);
  const options = { [oauth.allowInsecureRequests]: issuer.protocol === 'http:' };
  // The issuer's metadata (public) is kept for the tab, so the way back from the issuer does not ask for it again.
  const metadataKey = `satang.console.issuer-metadata:${issuer.href}`;
  const kept = sessionStorage.getItem(metadataKey);
  let as;
  if (kept) as = JSON.parse(kept);
  else {
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...options }));
    sessionStorage.setItem(metadataKey, JSON.stringify(as));
  }
  setup = { config, as, client: { client_id: config.client_id }, options };
  return setup;
}

async function authorization(redirectUri, extra) {
  const { config, as } = await discover();
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint);
  const params = {
    client_id: config.client_id, redirect_uri: redirectUri, response_type: 'code', scope: (config.scopes ?? ['openid', 'profile']).join(' '),
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state, nonce,
    ...(config.resource ? { resource: config.resource } : {}), ...extra,
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return { url: url.href, verifier, state, nonce };
}

async function exchange(callbackUrl, redirectUri, pending, maxAge) {
  const { as, client, options } = await discover();
  const params = oauth.validateAuthResponse(as, client, callbackUrl, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, pending.verifier, options);
  const result = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: pending.nonce, requireIdToken: true, ...(maxAge !== undefined ? { maxAge } : {}) });
  return { result, idClaims: oauth.getValidatedIdTokenClaims(result) };
}

/** The claims of a JWT access token (for display and hiding buttons only: the server decides), or {} when opaque. */
function claimsOf(token) {
  const part = token.split('.')[1];
  if (!part) return {};
  try {
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(part.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0))));
  } catch {
    return {};
  }
}

function remember(result, idClaims) {
  const claims = claimsOf(result.access_token);
  const roles = Array.isArray(claims.roles) ? claims.roles : Array.isArray(idClaims?.roles) ? idClaims.roles : [];
  current = {
    accessToken: result.access_token, expiresAt: Date.now() + (result.expires_in ?? 3600) * 1000,
    sub: String(claims.sub ?? idClaims?.sub ?? ''), roles, name: idClaims?.name,
  };
}

function who() {
  return { sub: current.sub, roles: [...current.roles], ...(current.name ? { name: current.name } : {}) };
}

/**
 * The signed-in operator. On the issuer's redirect back it finishes the sign-in; without a
 * session it sends the browser to the issuer (and never resolves: the page is leaving).
 */
export async function ensureSession() {
  if (current && current.expiresAt - expirySlackMs > Date.now()) return who();
  await discover();
  const here = new URL(location.href);
  const pending = JSON.parse(sessionStorage.getItem(pendingKey) ?? 'null');
  if (pending && (here.searchParams.has('code') || here.searchParams.has('error'))) {
    sessionStorage.removeItem(pendingKey);
    const { result, idClaims } = await exchange(here, consoleUrl, pending);
    remember(result, idClaims);
    history.replaceState(null, '', `${consoleUrl}${pending.hash || ''}`);
    return who();
  }
  const started = await authorization(consoleUrl, {});
  sessionStorage.setItem(pendingKey, JSON.stringify({ verifier: started.verifier, state: started.state, nonce: started.nonce, hash: location.hash }));
  location.assign(started.url);
  return new Promise(() => {});
}

/** The current access token (in memory); ensureSession first. */
export function accessToken() {
  if (!current) throw new Error('not signed in');
  return current.accessToken;
}

/** When the current access token runs out (ms since the epoch). */
export function accessTokenExpiresAt() {
  if (!current) throw new Error('not signed in');
  return current.expiresAt;
}

/** How long sign-out waits for the service to refuse the token from now on before leaving anyway. */
const signOutWaitMs = 2_000;

/**
 * Forgets the session here, at the service (its access token is refused from now on, so a
 * copy of it does not outlive the session: POST /v1/bo/session/sign-out) and at the issuer.
 */
export async function logout() {
  const idle = current;
  current = undefined;
  if (idle) {
    const headers = { Authorization: `Bearer ${idle.accessToken}`, 'Idempotency-Key': crypto.randomUUID() };
    await fetch('/v1/bo/session/sign-out', { method: 'POST', headers, keepalive: true, signal: AbortSignal.timeout(signOutWaitMs) })
      .catch(() => undefined); // an expired token, or no network: it runs out by itself
  }
  if (!setup?.as.end_session_endpoint || !idle) return location.assign(consoleUrl);
  const url = new URL(setup.as.end_session_endpoint);
  url.searchParams.set('client_id', setup.config.client_id);
  url.searchParams.set('post_logout_redirect_uri', consoleUrl);
  location.assign(url.href);
}

/** How long after the step-up window closed its answer may still arrive. */
const popupClosedGraceMs = 1_000;

/** The issuer's answer from a sign-in in a popup: the callback URL its page posts back, or StepUpAbandoned. */
async function signInInPopup(started, name) {
  const popup = window.open(started.url, name, 'popup,width=480,height=640');
  if (!popup) throw new StepUpAbandoned('The browser blocked the sign-in window; allow pop-ups for the console.', 'stepUp.popupBlocked');
  return new Promise((resolve, reject) => {
    let settled = false;
    const done = () => { settled = true; window.removeEventListener('message', onMessage); clearInterval(watch); };
    const onMessage = (event) => {
      if (event.origin !== location.origin || event.source !== popup || event.data?.type !== 'satang-oidc-callback') return;
      done();
      resolve(new URL(event.data.url));
    };
    // The callback page posts its answer, then closes: a check that finds the window closed
    // may run before that message is delivered (a busy page queues both), so the step-up is
    // called cancelled only once a moment has passed without it.
    const watch = setInterval(() => {
      if (!popup.closed) return;
      clearInterval(watch);
      setTimeout(() => { if (!settled) { done(); reject(new StepUpAbandoned('Step-up was cancelled.', 'stepUp.cancelled')); } }, popupClosedGraceMs);
    }, 300);
    window.addEventListener('message', onMessage);
  });
}

/** Whether the access token has run out (or is about to): background reads wait for the operator's next action to renew it. */
export function sessionEnded() {
  return !current || current.expiresAt - expirySlackMs <= Date.now();
}

/**
 * Renews an ended session without leaving the page: the issuer's sign-in in a popup (its
 * own session makes it a blink; else the operator signs in there), as the same operator —
 * so what the operator was typing stays. False when it cannot (a blocked popup, cancelled,
 * another operator): the caller signs in again by a redirect.
 */
export async function renewInPopup() {
  if (!current) return false;
  try {
    const started = await authorization(popupCallbackUrl, { login_hint: current.sub });
    const exchanged = await exchange(await signInInPopup(started, 'satang-sign-in'), popupCallbackUrl, started);
    const sub = claimsOf(exchanged.result.access_token).sub ?? exchanged.idClaims?.sub;
    if (sub !== current.sub) return false;
    remember(exchanged.result, exchanged.idClaims);
    return true;
  } catch (error) {
    console.warn('session renewal', error);
    return false;
  }
}

/** Re-authenticates the same operator in a popup and answers a fresh step-up token. */
export async function stepUpToken() {
  if (!current) throw new Error('not signed in');
  const { config } = await discover();
  const stepUp = config.step_up ?? { acr_values: 'step-up' };
  const started = await authorization(popupCallbackUrl, {
    prompt: 'login', max_age: '0', login_hint: current.sub, acr_values: stepUp.acr_values, ...(stepUp.resource ? { resource: stepUp.resource } : {}),
  });
  const answer = await signInInPopup(started, 'satang-step-up');
  let exchanged;
  try {
    exchanged = await exchange(answer, popupCallbackUrl, started, 300);
  } catch (error) {
    throw new StepUpAbandoned(`Step-up failed: ${error.message}`, 'stepUp.failed', { reason: error.message });
  }
  const claims = claimsOf(exchanged.result.access_token);
  const sub = claims.sub ?? exchanged.idClaims?.sub;
  if (sub !== current.sub) throw new StepUpAbandoned(`Step-up signed in as ${sub}, not ${current.sub}.`, 'stepUp.otherOperator', { sub, current: current.sub });
  return exchanged.result.access_token;
}
