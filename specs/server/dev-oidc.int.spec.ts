// The development issuer as a real OpenID provider (server/auth/dev-oidc.ts): an operator
// signs in with the authorization code flow and PKCE (oauth4webapi, as the console does),
// and the access token it gets is accepted by /v1/bo with the operator's roles; a step-up
// asks for the password again and yields an `acr: step-up` token that a ⚑ action takes
// and that /v1/bo refuses as an access token; without PKCE or with a wrong password there
// is no token; production has no provider at all.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import { consoleClientId, devOperatorPassword } from '../../server/auth/dev-operators.ts';
import { operatorAudience } from '../../server/auth/operator.ts';
import { OidcBrowser } from '../support/oidc-login.ts';
import { externalIssuer, TestServer } from '../support/server-harness.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let s: TestServer;
test.before(async () => { s = await TestServer.start(); });
test.after(async () => { await s.stop(); });

const browser = () => new OidcBrowser(`${s.url}/oidc`, consoleClientId, `${s.url}/console/`, `${s.url}/v1/bo/step-up`);
const bearer = (token: string, extra: Record<string, string> = {}) => ({ headers: { Authorization: `Bearer ${token}`, ...extra } });

test('discovery names the code flow with PKCE S256 and the EdDSA keys the API verifies with', async () => {
  const r = await s.raw('GET', '/oidc/.well-known/openid-configuration');
  assert.is(r.status, 200, r.text);
  assert.is(r.json.issuer, `${s.url}/oidc`);
  assert.ok(r.json.code_challenge_methods_supported.includes('S256'));
  assert.ok(r.json.acr_values_supported.includes('step-up'));
  const jwks = await s.raw('GET', '/oidc/jwks');
  assert.equal(jwks.json.keys.map((k: { crv: string }) => k.crv), ['Ed25519']);
});

test('discovery names the base URL\'s endpoints whatever Host or X-Forwarded-* the request claims', async () => {
  const forged = await new Promise<{ status: number; json: Record<string, string> }>((resolve, reject) => {
    const req = request(`${s.url}/oidc/.well-known/openid-configuration`, {
      headers: { Host: 'evil.example', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; }).on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
    });
    req.on('error', reject).end();
  });
  assert.is(forged.status, 200);
  assert.is(forged.json.issuer, `${s.url}/oidc`);
  for (const endpoint of ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'end_session_endpoint']) {
    assert.ok(forged.json[endpoint]!.startsWith(`${s.url}/oidc/`), `${endpoint}: ${forged.json[endpoint]}`);
  }
});

test('an operator signs in and the provider-issued access token opens /v1/bo with the seeded roles', async () => {
  const login = await browser().signIn('emp_fah', devOperatorPassword);
  const claims = decodeJwt(login.accessToken);
  assert.is(claims.iss, `${s.url}/oidc`);
  assert.is(claims.aud, operatorAudience);
  assert.is(claims.sub, 'emp_fah');
  assert.equal(claims.roles, ['finance']);
  assert.ok((claims.exp as number) - (claims.iat as number) <= 3600);
  assert.is(login.idTokenClaims.sub, 'emp_fah');
  const wallet = await s.raw('GET', '/v1/bo/merchants', bearer(login.accessToken));
  assert.is(wallet.status, 200, wallet.text);
  // finance may not decide reviews: the roles came from the provider, and the table still rules
  const approve = await s.raw('POST', '/v1/bo/deposits/dep_missing/approve', bearer(login.accessToken, { 'Idempotency-Key': 'k1', 'Content-Type': 'application/json' }));
  assert.is(approve.status, 403, approve.text);
  assert.equal(approve.json.error.details.token_roles, ['finance']);
});

test('a second sign-in in the same browser rides the provider session: no form', async () => {
  const b = browser();
  const first = await b.signIn('emp_ton', devOperatorPassword);
  assert.ok(first.formShown);
  const second = await b.signIn('emp_ton', devOperatorPassword);
  assert.not.ok(second.formShown);
  assert.is(decodeJwt(second.accessToken).sub, 'emp_ton');
});

test('step-up: the password again, an acr step-up token of five minutes that a ⚑ action takes and /v1/bo refuses as an access token', async () => {
  const b = browser();
  const access = (await b.signIn('emp_mali', devOperatorPassword)).accessToken;
  assert.is(decodeJwt(access).acr, 'pwd');
  const stepUp = await b.signIn('emp_mali', devOperatorPassword, { stepUp: true });
  assert.ok(stepUp.formShown, 'a step-up always asks for the password');
  const claims = decodeJwt(stepUp.accessToken);
  assert.is(claims.acr, 'step-up');
  assert.is(claims.sub, 'emp_mali');
  assert.ok((claims.exp as number) - (claims.iat as number) <= 300);
  assert.ok(Math.abs((claims.auth_time as number) - Date.now() / 1000) < 30);
  const wl = await s.raw('POST', '/v1/bo/white-labels', { ...bearer(access, { 'Idempotency-Key': 'wl-1', 'Content-Type': 'application/json' }), body: JSON.stringify({ name: 'WL' }) });
  assert.is(wl.status, 201, wl.text);
  const merchant = await s.raw('POST', '/v1/bo/merchants', { ...bearer(access, { 'Idempotency-Key': 'm-1', 'Content-Type': 'application/json' }), body: JSON.stringify({ white_label_id: wl.json.id, name: 'Shop' }) });
  assert.is(merchant.status, 201, merchant.text);
  const path = `/v1/bo/merchants/${merchant.json.id}/suspend`;
  const without = await s.raw('POST', path, { ...bearer(access, { 'Idempotency-Key': 's-0', 'Content-Type': 'application/json' }), body: '{}' });
  assert.is(without.status, 403, without.text);
  const withAccessAsStepUp = await s.raw('POST', path, { ...bearer(access, { 'Idempotency-Key': 's-1', 'Content-Type': 'application/json', 'X-PG-Step-Up-Token': access }), body: '{}' });
  assert.is(withAccessAsStepUp.status, 403, 'an ordinary access token is no step-up');
  const suspended = await s.raw('POST', path, { ...bearer(access, { 'Idempotency-Key': 's-2', 'Content-Type': 'application/json', 'X-PG-Step-Up-Token': stepUp.accessToken }), body: '{}' });
  assert.ok(suspended.status < 300, suspended.text);
  const misuse = await s.raw('GET', '/v1/bo/merchants', bearer(stepUp.accessToken));
  assert.is(misuse.status, 401);
  assert.match(misuse.json.error.message, /step-up token/);
});

test('after a step-up the same session still signs in for ordinary access tokens (acr pwd, an hour), and asking for the step-up resource without typing the password again yields no step-up', async () => {
  const b = browser();
  await b.signIn('emp_mali', devOperatorPassword);
  await b.signIn('emp_mali', devOperatorPassword, { stepUp: true });
  const again = await b.signIn('emp_mali', devOperatorPassword);
  assert.not.ok(again.formShown);
  const claims = decodeJwt(again.accessToken);
  assert.is(claims.acr, 'pwd');
  assert.ok((claims.exp as number) - (claims.iat as number) > 300);
  assert.is((await s.raw('GET', '/v1/bo/merchants', bearer(again.accessToken))).status, 200);

  const plain = browser();
  await plain.signIn('emp_ton', devOperatorPassword);
  const sneaky = await plain.signIn('emp_ton', devOperatorPassword, { resource: `${s.url}/v1/bo/step-up` });
  assert.not.ok(sneaky.formShown);
  assert.is(decodeJwt(sneaky.accessToken).acr, 'pwd', 'no password typed for it, no step-up');
});

test('a step-up signs in as the operator it names, whoever types in the form', async () => {
  const b = browser();
  await b.signIn('emp_ton', devOperatorPassword);
  const stepUp = await b.signIn('emp_ton', devOperatorPassword, { stepUp: true });
  assert.is(decodeJwt(stepUp.accessToken).sub, 'emp_ton');
});

test('a wrong password gets the form again with a 401 and no code, the operator still chosen and the refusal tied to the password', async () => {
  const refusal = await browser().signIn('emp_krit', 'not-the-password').then(() => undefined, (error: Error & { html?: string }) => error);
  assert.match(String(refusal?.message), /refused/);
  const html = (refusal as { html?: string }).html ?? '';
  assert.match(html, /<option value="emp_krit" selected>/, 'not reset to the first operator: the right password then signs in as the one chosen');
  assert.is((html.match(/ selected>/g) ?? []).length, 1);
  assert.match(html, /<p class="problem" role="alert" id="problem">/);
  assert.match(html, /data-testid="login-password" aria-invalid="true" aria-describedby="problem">/);
});

test('no PKCE, no code: the provider refuses an authorization request without code_challenge', async () => {
  const b = browser();
  const url = new URL(`${s.url}/oidc/auth`);
  for (const [k, v] of Object.entries({ client_id: consoleClientId, redirect_uri: `${s.url}/console/`, response_type: 'code', scope: 'openid', state: 'st' })) url.searchParams.set(k, v);
  const res = await b.request(url.href);
  const location = new URL(res.headers.get('location') ?? '', s.url);
  assert.is(location.searchParams.get('error'), 'invalid_request');
  assert.match(location.searchParams.get('error_description') ?? '', /PKCE/i);
  assert.not.ok(location.searchParams.has('code'));
});

test('a consent prompt (prompt=consent) is refused with access_denied at the redirect URI, not a loop of sign-in forms', async () => {
  const b = browser();
  await b.signIn('emp_ton', devOperatorPassword);
  const url = new URL(`${s.url}/oidc/auth`);
  for (const [k, v] of Object.entries({ client_id: consoleClientId, redirect_uri: `${s.url}/console/`, response_type: 'code', scope: 'openid', prompt: 'consent', state: 'st2', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })) url.searchParams.set(k, v);
  let res = await b.request(url.href);
  for (let hops = 0; hops < 6 && res.headers.get('location') && !res.headers.get('location')!.startsWith(`${s.url}/console/`); hops++) {
    res = await b.request(new URL(res.headers.get('location')!, s.url).href);
  }
  const back = new URL(res.headers.get('location') ?? '', s.url);
  assert.ok(back.href.startsWith(`${s.url}/console/`), `redirected back to the console: ${back.href}`);
  assert.is(back.searchParams.get('error'), 'access_denied');
  assert.not.ok(back.searchParams.has('code'));
});

test('a redirect_uri the console does not own is refused (no open redirect)', async () => {
  const url = new URL(`${s.url}/oidc/auth`);
  for (const [k, v] of Object.entries({ client_id: consoleClientId, redirect_uri: 'https://evil.example/cb', response_type: 'code', scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })) url.searchParams.set(k, v);
  const res = await fetch(url, { redirect: 'manual' });
  assert.is(res.status, 400);
  assert.is(res.headers.get('location'), null);
});

test('sign-out at the provider: its own bilingual page under the sign-in CSP, nothing fetched from elsewhere; confirmed, it ends the session and returns to the console', async () => {
  const b = browser();
  await b.signIn('emp_ton', devOperatorPassword);
  const end = new URL(`${s.url}/oidc/session/end`);
  end.searchParams.set('client_id', consoleClientId);
  end.searchParams.set('post_logout_redirect_uri', `${s.url}/console/`);
  const prompt = await b.request(end.href);
  assert.is(prompt.status, 200);
  assert.match(prompt.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  const html = await prompt.text();
  assert.match(html, /Sign out of satang\? \/ ออกจากระบบ\?/);
  assert.not.match(html, /https?:\/\/(?!127\.0\.0\.1|localhost)/, 'no font, style or script from another host');
  const action = /<form[^>]*action="([^"]+)"/.exec(html)![1]!;
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)![1]!;
  const confirmed = await b.request(new URL(action, s.url).href, { method: 'POST', form: { xsrf, logout: 'yes' } });
  assert.is(confirmed.status, 303);
  assert.is(confirmed.headers.get('location'), `${s.url}/console/`);
  assert.ok((await b.signIn('emp_ton', devOperatorPassword)).formShown, 'the provider session ended: the form again');
  // Without a redirect back (no client named), the success page is the provider's own too.
  const bare = await b.request(`${s.url}/oidc/session/end`);
  const bareXsrf = /name="xsrf" value="([^"]+)"/.exec(await bare.text())![1]!;
  const done = await b.request(`${s.url}/oidc/session/end/confirm`, { method: 'POST', form: { xsrf: bareXsrf, logout: 'yes' } });
  const success = done.status === 303 ? await b.request(new URL(done.headers.get('location')!, s.url).href) : done;
  const successHtml = await success.text();
  assert.match(successHtml, /Signed out \/ ออกจากระบบแล้ว/);
  assert.not.match(successHtml, /googleapis/);
});

test('production has no development provider: /oidc is not there', async () => {
  // With an issuer configured (as production must have) no provider is mounted.
  const dir = mkdtempSync(join(tmpdir(), 'satang-issuer-'));
  const issuer = await externalIssuer(dir);
  const prod = await TestServer.start(issuer.env);
  try {
    const r = await prod.raw('GET', '/oidc/.well-known/openid-configuration');
    assert.is(r.status, 404);
  } finally {
    await prod.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
