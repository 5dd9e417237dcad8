// Operator tokens on /v1/bo: verified on the wall clock whatever the manual business
// clock says (a token from `scripts/satang token` works after the clock moved 100 h);
// bounded lifetimes (access ≤ 12 h, exp and iat required, step-up ≤ 5 min old); refusals
// that tell the operator what is wrong; a subject with an invisible character or white space
// at an end refused (four eyes would take it for another person); and production refusing to start without a
// configured issuer (or with half of one), so the development key is never trusted there.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeJwt, generateKeyPair, importJWK, SignJWT, type JWTPayload, type KeyLike } from 'jose';
import { Sealer } from '../../adapters/sealing.ts';
import { DevIssuer, devIssuer, operatorAudience } from '../../server/auth/operator.ts';
import { readConfig } from '../../server/config.ts';
import { startServer } from '../../server/main.ts';
import { sealerFor } from '../../server/master-key.ts';
import { externalIssuer, TestServer, type MerchantKeys, type Reply } from '../support/server-harness.ts';

const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;
const hour = 3600;
const wallSeconds = () => Math.floor(Date.now() / 1000);
let s: TestServer;
let devKey: KeyLike;
/** The merchant the ⚑ actions below suspend: a real one, since an unknown merchant is refused (404) before the step-up, which it does not spend. */
let bounds: MerchantKeys;

test.before(async () => {
  s = await TestServer.start();
  bounds = await s.onboard('Bounds');
  // The development issuer's key is sealed at rest; open it the way `scripts/satang token` does.
  const env = { SATANG_DATA_DIR: s.dataDir };
  const jwk = sealerFor(readConfig(env), env).openText(readFileSync(join(s.dataDir, 'dev-issuer.jwk.sealed'), 'utf8').trim(), 'dev_issuer_key');
  devKey = (await importJWK(JSON.parse(jwk), 'EdDSA')) as KeyLike;
});
test.after(async () => { await s.stop(); });

/** A token signed by the development key with exactly these claims (defaults: a fresh one-hour ops_admin token). */
async function signed(claims: JWTPayload, options: { key?: KeyLike; kid?: string; omit?: readonly string[] } = {}): Promise<string> {
  const now = wallSeconds();
  const payload: JWTPayload = { iss: devIssuer, aud: operatorAudience, sub: 'emp_bounds', roles: ['ops_admin'], iat: now, exp: now + hour, ...claims };
  for (const name of options.omit ?? []) delete payload[name];
  return new SignJWT(payload).setProtectedHeader({ alg: 'EdDSA', kid: options.kid ?? 'dev-1' }).sign(options.key ?? devKey);
}

/** A read that passes the gate with a good token: 404 for a merchant that does not exist. */
const read = (token: string) => s.raw('GET', '/v1/bo/merchants/mch_missing/balance', { headers: { Authorization: `Bearer ${token}` } });
/** A ⚑ action: the access token from the harness, the step-up token given; 200 once it passes (suspending a suspended merchant changes nothing). */
const stepUpAction = async (stepUp: string) => s.raw('POST', `/v1/bo/merchants/${bounds.id}/suspend`, {
  headers: { Authorization: `Bearer ${await s.operatorToken('emp_bounds')}`, 'X-PG-Step-Up-Token': stepUp, 'Idempotency-Key': 'k-' + Math.random(), 'Content-Type': 'application/json' }, body: '{}',
});

function refused(r: Reply, code: string, message: RegExp): void {
  assert.is(r.status, code === 'scope_denied' ? 403 : 401, r.text);
  assert.is(r.json.error.code, code, r.text);
  assert.match(r.json.error.message, message);
}

const satang = (args: string[]) => run(join(root, 'scripts/satang'), args, { cwd: root, env: { ...process.env, SATANG_DATA_DIR: s.dataDir, SATANG_BASE_URL: s.url } });

test('two clocks: with the manual clock moved 100 hours past the wall clock, tokens from `scripts/satang token` (wall clock) still work', async () => {
  // The harness's business clock starts on a fixed date, which the wall clock passes in time: move it 100 h past now.
  const behindSeconds = Math.max(0, Math.ceil((Date.now() - s.clock.now()) / 1000));
  const advanced = await s.bo('POST', '/v1/bo/clock/advance', { seconds: behindSeconds + 100 * hour });
  assert.is(advanced.status, 200, advanced.text);
  assert.ok(s.clock.now() - Date.now() > 12 * hour * 1000, 'the business clock runs well past any token lifetime ahead of the wall clock');
  const access = (await satang(['token', '--sub', 'emp_x', '--roles', 'ops_admin,finance'])).stdout.trim();
  const stepUp = (await satang(['token', '--sub', 'emp_x', '--step-up'])).stdout.trim();
  assert.is((await read(access)).status, 404, 'the access token passes the gate');
  const r = await s.raw('POST', `/v1/bo/merchants/${bounds.id}/suspend`, {
    headers: { Authorization: `Bearer ${access}`, 'X-PG-Step-Up-Token': stepUp, 'Idempotency-Key': 'clock-k1', 'Content-Type': 'application/json' }, body: '{}',
  });
  assert.is(r.status, 200, r.text);
});

test('scripts/satang token: --roles as given, support alone by default, an unknown role refused', async () => {
  assert.equal(decodeJwt((await satang(['token', '--sub', 'emp_r', '--roles', 'reviewer,approver'])).stdout.trim()).roles, ['reviewer', 'approver']);
  assert.equal(decodeJwt((await satang(['token', '--sub', 'emp_r'])).stdout.trim()).roles, ['support']);
  const bad = await satang(['token', '--sub', 'emp_r', '--roles', 'root']).then(() => undefined, (e: { code: number; stderr: string }) => e);
  assert.ok(bad && bad.code !== 0, 'an unknown role is refused');
  assert.match(bad!.stderr, /unknown role root/);
});

test('lifetime bounds: access tokens over 12 h (by exp − iat or exp − now) or without exp/iat are refused; 11 h passes', async () => {
  const now = wallSeconds();
  refused(await read(await signed({ iat: now, exp: now + 10 * 365 * 24 * hour })), 'signature_invalid', /lifetime too long/);
  refused(await read(await signed({ iat: now - 10 * hour, exp: now + 3 * hour })), 'signature_invalid', /lifetime too long/);
  refused(await read(await signed({ iat: now + 11 * hour, exp: now + 13 * hour })), 'signature_invalid', /lifetime too long/);
  refused(await read(await signed({}, { omit: ['exp'] })), 'signature_invalid', /no exp/);
  refused(await read(await signed({}, { omit: ['iat'] })), 'signature_invalid', /no iat/);
  assert.is((await read(await signed({ iat: now, exp: now + 11 * hour }))).status, 404);
});

test('step-up tokens older than 5 minutes (by auth_time, else iat) are refused, as is an auth_time after iat; a fresh one passes', async () => {
  const now = wallSeconds();
  refused(await stepUpAction(await signed({ acr: 'step-up', iat: now - 360, exp: now + 600 })), 'scope_denied', /step-up token is 36\d s old \(by iat\); at most 300 s/);
  refused(await stepUpAction(await signed({ acr: 'step-up', auth_time: now - 400, iat: now, exp: now + 300 })), 'scope_denied', /step-up token is 40\d s old \(by auth_time\)/);
  refused(await stepUpAction(await signed({ acr: 'step-up', iat: now, exp: now + 10 * 365 * 24 * hour })), 'scope_denied', /lifetime too long/);
  // a sign-in dated after the token (an hour old by iat) would be a negative age: fresh for ever
  refused(await stepUpAction(await signed({ acr: 'step-up', auth_time: now + 3600, iat: now - 3600, exp: now + 7200 })), 'scope_denied', /signed in after it was issued/);
  assert.is((await stepUpAction(await signed({ acr: 'step-up', auth_time: now - 10, iat: now, exp: now + 300 }))).status, 200);
});

test("a step-up confirms its own operator's action under any spelling four eyes counts as theirs; a disguised or another's subject is refused", async () => {
  // emp_bounds signs in; the identity provider spells the same person EMP_BOUNDS in the step-up.
  assert.is((await stepUpAction(await signed({ acr: 'step-up', sub: 'EMP_BOUNDS' }))).status, 200, 'the same person passes');
  assert.is((await stepUpAction(await signed({ acr: 'step-up', sub: 'ｅｍｐ＿ｂｏｕｎｄｓ' }))).status, 200, 'full width is the same person');
  refused(await stepUpAction(await signed({ acr: 'step-up', sub: 'emp_bounds\u200b' })), 'scope_denied', /step-up token sub claim carries an invisible character \(U\+200B\)/);
  refused(await stepUpAction(await signed({ acr: 'step-up', sub: 'emp_other' })), 'scope_denied', /belongs to another operator/);
});

test('a step-up token authorises one action: its retries under the same Idempotency-Key pass, another action is refused', async () => {
  const stepUp = await signed({ acr: 'step-up', jti: 'step-once' });
  const action = async (idempotencyKey: string, body = '{}') => s.raw('POST', `/v1/bo/merchants/${bounds.id}/suspend`, {
    headers: { Authorization: `Bearer ${await s.operatorToken('emp_bounds')}`, 'X-PG-Step-Up-Token': stepUp, ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}), 'Content-Type': 'application/json' }, body,
  });
  // Refused for want of an Idempotency-Key, the request spends nothing: its retry with one passes.
  const keyless = await action('');
  assert.equal([keyless.status, keyless.json.error.code], [400, 'idempotency_key_required'], keyless.text);
  // Nor does a body the route refuses (the operator mends it and sends it under a new key, with the same step-up).
  const malformed = await action('once-k0', '{"suspend_everything": true}');
  assert.equal([malformed.status, malformed.json.error.code], [422, 'validation_error'], malformed.text);
  assert.is((await action('once-k1')).status, 200, 'the first use passes the step-up');
  assert.is((await action('once-k1')).status, 200, 'a retry of the same action passes too');
  assert.is((await action('once-k1', ' { } ')).status, 200, 'the same body written otherwise is the same action');
  // Another body under the same key is another action: a request the service refused keeps no
  // idempotency record to stop it (a debit larger than the balance, then a credit under its key).
  refused(await action('once-k1', '{"reason":"another action under the same key"}'), 'scope_denied', /already used for another action; step up again/);
  refused(await action('once-k2'), 'scope_denied', /already used for another action; step up again/);
  // The same Idempotency-Key on another route is another action (a revoke keeps no idempotency record to stop it).
  const elsewhere = await s.raw('POST', `/v1/bo/keys/${bounds.sandbox.key_id}/revoke`, {
    headers: { Authorization: `Bearer ${await s.operatorToken('emp_bounds')}`, 'X-PG-Step-Up-Token': stepUp, 'Idempotency-Key': 'once-k1', 'Content-Type': 'application/json' }, body: '{}',
  });
  refused(elsewhere, 'scope_denied', /already used for another action/);
  const withoutJti = await signed({ acr: 'step-up', iat: wallSeconds() - 1 }, { omit: ['jti'] });
  assert.is((await action2(withoutJti, 'once-k3')).status, 200);
  refused(await action2(withoutJti, 'once-k4'), 'scope_denied', /already used/);
});

test('a spent step-up stays spent across a restart: kept in journal.db by its id, never the token', async () => {
  const own = await TestServer.start();
  const dataDir = own.dataDir;
  let restarted: TestServer | undefined;
  try {
    const env = { SATANG_DATA_DIR: dataDir };
    const jwk = sealerFor(readConfig(env), env).openText(readFileSync(join(dataDir, 'dev-issuer.jwk.sealed'), 'utf8').trim(), 'dev_issuer_key');
    const key = (await importJWK(JSON.parse(jwk), 'EdDSA')) as KeyLike;
    const stepUp = await signed({ acr: 'step-up', jti: 'step-restart' }, { key });
    const shop = await own.onboard('Restarted');
    const suspend = async (server: TestServer, idempotencyKey: string) => server.raw('POST', `/v1/bo/merchants/${shop.id}/suspend`, {
      headers: { Authorization: `Bearer ${await server.operatorToken('emp_bounds')}`, 'X-PG-Step-Up-Token': stepUp, 'Idempotency-Key': idempotencyKey, 'Content-Type': 'application/json' }, body: '{}',
    });
    assert.is((await suspend(own, 'restart-a')).status, 200, 'the first use passes the step-up');
    await own.stop(false);
    restarted = await TestServer.start({}, dataDir);
    refused(await suspend(restarted, 'restart-b'), 'scope_denied', /already used for another action/);
    assert.is((await suspend(restarted, 'restart-a')).status, 200, 'a retry of the action it was spent on still passes');
    // An API key secret pasted where a key id goes: no such key (404, before the step-up), and nothing keeps the secret.
    const pasted = `sk_live_${randomBytes(18).toString('base64url')}`;
    const revoke = await restarted.raw('POST', `/v1/bo/keys/${pasted}/revoke`, {
      headers: { Authorization: `Bearer ${await restarted.operatorToken('emp_bounds')}`, 'X-PG-Step-Up-Token': await signed({ acr: 'step-up', jti: 'step-pasted' }, { key }), 'Idempotency-Key': 'pasted-a', 'Content-Type': 'application/json' }, body: '{}',
    });
    assert.is(revoke.status, 404, revoke.text);
    const journal = readdirSync(dataDir).filter((f) => f.startsWith('journal.db')).map((f) => readFileSync(join(dataDir, f)).toString('latin1')).join('');
    assert.not.ok(journal.includes(stepUp.split('.')[2]!), 'the token is not kept');
    assert.not.ok(journal.includes(pasted), 'the secret pasted into the path is not kept');
  } finally {
    await (restarted ?? own).stop();
  }
});

const action2 = async (stepUp: string, idempotencyKey: string) => s.raw('POST', `/v1/bo/merchants/${bounds.id}/unsuspend`, {
  headers: { Authorization: `Bearer ${await s.operatorToken('emp_bounds')}`, 'X-PG-Step-Up-Token': stepUp, 'Idempotency-Key': idempotencyKey, 'Content-Type': 'application/json' }, body: '{}',
});

test('refusals say what is wrong: expired, forged, merchant key, wrong audience or issuer, step-up as access, missing', async () => {
  const now = wallSeconds();
  const expired = await read(await signed({ iat: now - 2 * hour, exp: now - hour }));
  refused(expired, 'signature_invalid', /^token expired at \d{4}-\d\d-\d\dT/);
  assert.match(expired.json.error.message, new Date((now - hour) * 1000).toISOString());
  const { privateKey: otherKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  refused(await read(await signed({}, { key: otherKey })), 'signature_invalid', /token signature does not verify against the configured issuer/);
  refused(await read(await signed({}, { key: otherKey, kid: 'someone-else' })), 'signature_invalid', /token signature does not verify against the configured issuer/);
  const merchant = await s.onboard('Key holder');
  refused(await read(merchant.live.api_key), 'signature_invalid', /this is a merchant API key; \/v1\/bo needs an operator OIDC token/);
  refused(await read(merchant.sandbox.api_key), 'signature_invalid', /merchant API key/);
  refused(await read(await signed({ aud: 'some-other-api' })), 'signature_invalid', /wrong audience/);
  refused(await read(await signed({ iss: 'https://evil.example/' })), 'signature_invalid', /wrong issuer/);
  refused(await read(await signed({ acr: 'step-up' })), 'signature_invalid', /step-up token.*X-PG-Step-Up-Token/);
  refused(await read('not-a-jwt'), 'signature_invalid', /not a JWT/);
  refused(await s.raw('GET', '/v1/bo/merchants/mch_missing/balance'), 'api_key_invalid', /OIDC bearer token/);
});

test('a roles claim of the wrong shape is said so with the refusal, not only "this token has: none": a string (one role, as some issuers send it), none at all, values not text', async () => {
  const asString = await read(await signed({ roles: 'ops_admin' }));
  refused(asString, 'scope_denied', /this token has: none\. The token's "roles" claim is a string, not an array of role names: have the issuer send it as an array \(\["ops_admin"\]\)\.$/);
  assert.equal(asString.json.error.details.token_roles, []);
  refused(await read(await signed({}, { omit: ['roles'] })), 'scope_denied', /this token has: none\. The token has no "roles" claim: the issuer must put the operator's roles in it/);
  refused(await read(await signed({ roles: [1, 'reviewer'] })), 'scope_denied', /this token has: reviewer\. The token's "roles" claim holds 1 value\(s\) that are not text/);
  refused(await read(await signed({ roles: ['reviewer'] })), 'scope_denied', /this token has: reviewer\.$/);
  assert.is((await read(await signed({ roles: [7, 'support'] }))).status, 404, 'a role it does hold still passes');
});

test('a subject no one could tell from another is refused: invisible characters (zero-width space, soft hyphen, word joiner, BOM, variation selector, a control), white space at an end, none, not text', async () => {
  // Four eyes takes emp_r1 and emp_r1 with a zero-width space for one person (core/operators.ts);
  // the gate refuses the disguised one outright, so it never reaches a decision or the action log's subjects.
  const disguised = ['emp_r1\u200b', '\u200bemp_r1', 'emp\u00ad_r1', 'emp_r1\u2060', '\ufeffemp_r1', 'emp_r1\ufe0f', 'emp_r1\u200e', 'emp_r1\u0007', ' emp_r1', 'emp_r1 ', 'emp_r1\u00a0'];
  for (const sub of disguised) {
    const r = await read(await s.operatorToken(sub, false, ['ops_admin']));
    refused(r, 'signature_invalid', /token sub claim (carries an invisible character \(U\+[0-9A-F]{4}\)|has white space at an end)/);
    assert.is(r.status, 401, JSON.stringify(sub));
  }
  const approve = await s.raw('POST', '/v1/bo/withdrawals/wd_missing/approve', {
    headers: { Authorization: `Bearer ${await s.operatorToken('emp_r1\u200b', false, ['approver'])}`, 'Idempotency-Key': 'zw-1', 'Content-Type': 'application/json' }, body: '{}',
  });
  refused(approve, 'signature_invalid', /invisible character \(U\+200B\)/);
  // `scripts/satang token` makes no such token (specs/cli/cli.int: a usage error naming the character).
  const cli = await satang(['token', '--sub', 'emp_r1\u200b', '--roles', 'ops_admin']).then(() => undefined, (e: { code: number; stdout: string }) => e);
  assert.equal([cli?.code, cli?.stdout], [2, ''], 'the CLI refuses the sub');
  refused(await read(await signed({ sub: '' })), 'signature_invalid', /no sub claim/);
  refused(await read(await signed({}, { omit: ['sub'] })), 'signature_invalid', /no sub claim/);
  refused(await read(await signed({ sub: 42 as unknown as string })), 'signature_invalid', /no sub claim/);
  assert.is((await read(await s.operatorToken('emp_r1', false, ['ops_admin']))).status, 404, 'the plain id passes the gate');
  assert.is((await read(await signed({ sub: 'สมชาย.ใจดี' }))).status, 404, 'a Thai id passes');
});

async function startRefusal(env: Record<string, string>): Promise<string | undefined> {
  try {
    const running = await startServer(env);
    await running.close();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

test('production refuses to start without SATANG_OIDC_ISSUER and SATANG_OIDC_JWKS; either without the other is refused anywhere', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'satang-oidc-prod-'));
  try {
    const base = { SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_LOG_LEVEL: 'silent', SATANG_ENV: 'production', SATANG_SLIP_PROVIDER_URL: 'http://127.0.0.1:9' };
    assert.match(await startRefusal(base) ?? 'started', /SATANG_OIDC_ISSUER and SATANG_OIDC_JWKS are required when SATANG_ENV=production/);
    const dev = { ...base, SATANG_ENV: 'development' };
    assert.match(await startRefusal({ ...base, SATANG_OIDC_ISSUER: 'https://login.example.test/' }) ?? 'started', /SATANG_OIDC_JWKS/);
    assert.match(await startRefusal({ ...dev, SATANG_OIDC_ISSUER: 'https://login.example.test/' }) ?? 'started', /set both SATANG_OIDC_ISSUER and SATANG_OIDC_JWKS, or neither/);
    assert.match(await startRefusal({ ...dev, SATANG_OIDC_JWKS: join(dataDir, 'jwks.json') }) ?? 'started', /set both SATANG_OIDC_ISSUER and SATANG_OIDC_JWKS, or neither/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('production with a configured issuer: its tokens pass, tokens from a development key in the data dir do not', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'satang-oidc-prod-'));
  const issuer = await externalIssuer(dataDir);
  const masterKey = randomBytes(32);
  const leftover = await DevIssuer.fromDataDir(dataDir, new Sealer(masterKey)); // a development key left in the data dir
  const running = await startServer({ SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_LOG_LEVEL: 'silent', SATANG_ENV: 'production', SATANG_SLIP_PROVIDER_URL: 'http://127.0.0.1:9', SATANG_MASTER_KEY: masterKey.toString('base64'), ...issuer.env });
  try {
    const get = async (token: string) => {
      const res = await fetch(`${running.url}/v1/bo/merchants/mch_missing/balance`, { headers: { Authorization: `Bearer ${token}` } });
      return { status: res.status, json: await res.json() as any };
    };
    assert.is((await get(await issuer.mint('emp_prod'))).status, 404);
    const dev = await get(await leftover.mint('emp_prod', { roles: ['ops_admin'] }));
    assert.is(dev.status, 401);
    assert.match(dev.json.error.message, /does not verify against the configured issuer/);
    const wrongIssuer = await get(await issuer.mint('emp_prod', { iss: devIssuer }));
    assert.match(wrongIssuer.json.error.message, /wrong issuer/);
  } finally {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
