// The console's only door to the server: /v1/bo/* with the operator's bearer token.
//
// - get(path, query) → the JSON answer; getBlob(path, query) → a Blob (slip image); getFile(path,
//   query) → {blob, filename}, the name the server gives in Content-Disposition (CSV reports).
// - post(path, body, {stepUp}) sends Content-Type: application/json and an
//   Idempotency-Key; the key is kept for the same action (same path and body) until the
//   server gives a definite answer, so a retry after a network failure, a 5xx or a
//   retryable refusal replays the first attempt instead of acting twice. With stepUp, the
//   operator re-authenticates (auth.stepUpToken()) and the token rides in
//   X-PG-Step-Up-Token.
// - A non-2xx answer throws ApiProblem with the API's error object (server/errors.ts:
//   code, type, message, message_th, retryable, request_id, details). A 401 renews the
//   session in a popup (the page and what it holds stay), else signs in again by a redirect,
//   and retries once with the new token.

import { accessToken, ensureSession, renewInPopup, stepUpToken } from './auth.js';

export class ApiProblem extends Error {
  constructor(status, error, fallbackMessage) {
    super(error?.message ?? fallbackMessage ?? `HTTP ${status}`);
    this.name = 'ApiProblem';
    this.status = status;
    this.code = error?.code ?? (status === 0 ? 'network_error' : 'http_error');
    this.type = error?.type ?? null;
    this.messageTh = error?.message_th ?? null;
    this.retryable = error?.retryable ?? status === 0;
    this.requestId = error?.request_id ?? null;
    this.details = error?.details ?? {};
  }
}

/** Keys of actions sent but not yet answered definitely: the same action retried reuses its key. */
const pendingKeys = new Map();

function urlOf(path, query) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
  }
  return url.pathname + url.search;
}

async function problemOf(res) {
  let body = null;
  try { body = await res.json(); } catch { /* not JSON: a proxy's page */ }
  return new ApiProblem(res.status, body?.error, res.statusText);
}

async function send(method, url, init = {}) {
  const attempt = async () => {
    const headers = { Accept: 'application/json, */*', Authorization: `Bearer ${accessToken()}`, ...init.headers };
    try {
      return await fetch(url, { method, headers, body: init.body, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
    } catch (error) {
      throw new ApiProblem(0, null, `network: ${error?.message ?? error}`);
    }
  };
  const before = accessToken();
  let res = await attempt();
  if (res.status === 401) {
    // The token ran out: renewed in a popup, keeping the page; else a sign-in by redirect.
    if (!(await renewInPopup())) await ensureSession(); // may navigate away to log in again
    if (accessToken() !== before) res = await attempt();
  }
  if (!res.ok) throw await problemOf(res);
  return res;
}

export async function get(path, query) {
  const res = await send('GET', urlOf(path, query));
  return res.json();
}

export async function getBlob(path, query) {
  const res = await send('GET', urlOf(path, query), { headers: { Accept: '*/*' } });
  return res.blob();
}

export async function getFile(path, query) {
  const res = await send('GET', urlOf(path, query), { headers: { Accept: '*/*' } });
  // RFC 6266: filename* (UTF-8, a Thai file name as sent) wins over the plain ASCII filename.
  const disposition = res.headers.get('Content-Disposition') ?? '';
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1];
  const filename = (encoded ? decodeURIComponent(encoded) : /filename="([^"]+)"/.exec(disposition)?.[1]) ?? 'download';
  return { blob: await res.blob(), filename };
}

/** POST a JSON body; options.stepUp adds a fresh step-up token (re-authentication in a popup). */
export function post(path, body = {}, options = {}) {
  return act('POST', path, body, options);
}

/** DELETE (a webhook endpoint), with its Idempotency-Key kept for a retry as a POST's. */
export function del(path) {
  return act('DELETE', path);
}

async function act(method, path, body, options = {}) {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const action = `${method} ${path}\n${text ?? ''}`;
  const key = pendingKeys.get(action) ?? crypto.randomUUID();
  pendingKeys.set(action, key);
  const headers = { 'Idempotency-Key': key, ...(text === undefined ? {} : { 'Content-Type': 'application/json' }) };
  if (options.stepUp) headers['X-PG-Step-Up-Token'] = await stepUpToken();
  try {
    const res = await send(method, urlOf(path), { headers, body: text });
    pendingKeys.delete(action);
    return res.status === 204 ? null : res.json();
  } catch (error) {
    // A definite refusal ends the action; a network failure or a retryable answer keeps its key for the retry.
    if (error instanceof ApiProblem && error.status !== 0 && !error.retryable) pendingKeys.delete(action);
    throw error;
  }
}
