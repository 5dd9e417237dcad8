// Who did what, over real HTTP: every operator call and every refused operator
// authentication lands in the action log (subject, roles, route, target ids, request_id,
// IP, step-up, outcome), readable at GET /v1/bo/reports/action-logs; the log is
// hash-chained and `satang verify` fails once a row is altered. The request log keeps
// merchant and operator calls redacted before storage: a byte scan of logs.db finds no
// API key secret, token, QR payload, signature or full account number; bodies are cut to
// the limit; rows older than the retention are pruned.

import { test } from 'uvu';
import { createHash } from 'node:crypto';
import { fingerprintedUrl } from '../../server/secret-text.ts';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { TestServer, depositBody, sender } from '../support/server-harness.ts';
import { uploadJson } from '../support/slip-harness.ts';
import { readConfig } from '../../server/config.ts';
import { RequestLogReader, RequestLogStore } from '../../adapters/request-log.ts';
import { backOfficeLimits } from '../../core/limits.ts';

const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;
let s: TestServer;

test.before(async () => { s = await TestServer.start(); });
test.after(async () => { await s.stop(); });

async function satangVerify(): Promise<{ code: number; report: any }> {
  try {
    const r = await run(join(root, 'scripts/satang'), ['verify', '--data-dir', s.dataDir], { cwd: root });
    return { code: 0, report: JSON.parse(r.stdout) };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, report: JSON.parse(e.stdout) };
  }
}

test('a valid token that asks for a path or method that does not exist is refused under its operator, not logged as a bad token', async () => {
  const missing = await s.bo('GET', '/v1/bo/nonexistent', undefined, { sub: 'emp_lost', roles: ['support'] });
  assert.is(missing.status, 404);
  const wrongMethod = await s.bo('DELETE', '/v1/bo/reports/trial-balance', undefined, { sub: 'emp_lost', roles: ['support'] });
  assert.is(wrongMethod.status, 405);
  const badToken = await s.raw('GET', '/v1/bo/nonexistent', { headers: { Authorization: 'Bearer not-a-token' } });
  assert.is(badToken.status, 404);
  const rows = (await s.bo('GET', '/v1/bo/reports/action-logs?limit=20', undefined, { roles: ['finance'] })).json.data as any[];
  const row = (r: { headers: Headers }) => rows.find((x) => x.request_id === r.headers.get('x-request-id'));
  assert.equal([row(missing).subject, row(missing).authenticated, row(missing).roles, row(missing).outcome, row(missing).status], ['emp_lost', true, ['support'], 'refused', 404]);
  assert.equal([row(wrongMethod).authenticated, row(wrongMethod).outcome, row(wrongMethod).status], [true, 'refused', 405]);
  assert.equal([row(badToken).authenticated, row(badToken).outcome], [false, 'refused_authentication'], 'a token that does not verify is still a refused authentication');
});

test('every operator call and every refused authentication is in the action log with who, what, where and how it ended', async () => {
  const m = await s.onboard('Audited');
  const funded = await s.bo('POST', `/v1/bo/merchants/${m.id}/adjustments`, { livemode: true, amount_minor: 10_000, direction: 'credit', bucket: 'available', reason: 'audit' }, { sub: 'emp_audit', roles: ['ops_admin'], stepUp: true });
  assert.is(funded.status, 201);
  const denied = await s.bo('POST', `/v1/bo/merchants/${m.id}/suspend`, {}, { sub: 'emp_nosy', roles: ['support'], stepUp: true });
  assert.is(denied.status, 403);
  const forged = await s.raw('GET', '/v1/bo/deposits', { headers: { Authorization: `Bearer ${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"emp_mallory"}').toString('base64url')}.x` } });
  assert.is(forged.status, 401);
  const anonymous = await s.raw('GET', '/v1/bo/claims');
  assert.is(anonymous.status, 401);
  // A report names its merchant in the query: the row says whose statement was read.
  const month = new Date(s.clock.now() + 7 * 3_600_000).toISOString().slice(0, 7);
  const statement = await s.bo('GET', `/v1/bo/reports/statements?merchant_id=${m.id}&livemode=true&month=${month}`, undefined, { sub: 'emp_reader', roles: ['finance'] });
  assert.is(statement.status, 200, statement.text);

  const log = await s.bo('GET', '/v1/bo/reports/action-logs?limit=200', undefined, { roles: ['finance'] });
  assert.is(log.status, 200, log.text);
  const rows = log.json.data;
  const adjustment = rows.find((r: any) => r.request_id === funded.headers.get('x-request-id') || (r.route === '/v1/bo/merchants/:id/adjustments' && r.subject === 'emp_audit'));
  assert.equal([adjustment.subject, adjustment.roles, adjustment.method, adjustment.target_ids, adjustment.step_up, adjustment.outcome, adjustment.status, adjustment.authenticated],
    ['emp_audit', ['ops_admin'], 'POST', { id: m.id, created: funded.json.id }, true, 'ok', 201, true]);
  assert.match(adjustment.ip, /127\.0\.0\.1/);
  assert.match(adjustment.request_id, /.+/);
  const read = rows.find((r: any) => r.subject === 'emp_reader');
  assert.equal([read.route, read.target_ids], ['/v1/bo/reports/statements', { merchant_id: m.id }]);
  const refusedRole = rows.find((r: any) => r.subject === 'emp_nosy');
  assert.equal([refusedRole.outcome, refusedRole.error_code, refusedRole.route, refusedRole.target_ids, refusedRole.step_up], ['refused_authorization', 'scope_denied', '/v1/bo/merchants/:id/suspend', { id: m.id }, false], 'a role refused names what it was refused on');
  const refusedToken = rows.find((r: any) => r.subject === 'emp_mallory');
  assert.equal([refusedToken.outcome, refusedToken.authenticated, refusedToken.roles], ['refused_authentication', false, []]);
  assert.ok(rows.some((r: any) => r.route === '/v1/bo/claims' && r.subject === null && r.outcome === 'refused_authentication'));
  // Filters and paging, newest first.
  const mine = await s.bo('GET', '/v1/bo/reports/action-logs?subject=emp_audit&limit=1', undefined, { roles: ['ops_admin'] });
  assert.is(mine.json.data.length, 1);
  const refused = await s.bo('GET', '/v1/bo/reports/action-logs?outcome=refused_authentication');
  assert.ok(refused.json.data.every((r: any) => r.outcome === 'refused_authentication') && refused.json.data.length >= 2);
  const typo = await s.bo('GET', '/v1/bo/reports/action-logs?outcome=refuse');
  assert.is(typo.status, 422, 'an outcome that does not exist is refused, not answered with an empty list');
  assert.equal(typo.json.error.details.fields[0], { path: 'query.outcome', reason: 'enum', hint: 'ok, refused_authentication, refused_authorization, refused, failed' });
  const page1 = await s.bo('GET', '/v1/bo/reports/action-logs?limit=2');
  const page2 = await s.bo('GET', `/v1/bo/reports/action-logs?limit=2&cursor=${page1.json.next_cursor}`);
  assert.ok(page2.json.data[0].id < page1.json.data[1].id);
  assert.is((await s.bo('GET', '/v1/bo/reports/action-logs', undefined, { roles: ['support'] })).status, 403, 'support does not read the audit trail');
});

test('what a call made is named in its row: a key minted (its key_id), and its replay too', async () => {
  const m = await s.onboard('Keyed');
  const mint = () => s.bo('POST', `/v1/bo/merchants/${m.id}/keys`, { livemode: false, scopes: ['wallet:read'] }, { sub: 'emp_minter', roles: ['ops_admin'], stepUp: true, idempotencyKey: 'mint-once' });
  const minted = await mint();
  assert.is(minted.status, 201, minted.text);
  const replayed = await mint();
  assert.is(replayed.headers.get('idempotent-replay'), 'true');
  const rows = (await s.bo('GET', '/v1/bo/reports/action-logs?subject=emp_minter', undefined, { roles: ['finance'] })).json.data as any[];
  assert.equal(rows.map((r) => r.target_ids), [{ id: m.id, created: minted.json.key_id }, { id: m.id, created: minted.json.key_id }]);
});

test('a call refused before its route ran (a body that is not JSON, a media type) is logged under the route and its ids, not the raw path', async () => {
  const m = await s.onboard('Refused early');
  const token = await s.operatorToken('emp_early', false, ['ops_admin']);
  const path = `/v1/bo/merchants/${m.id}/suspend`;
  const notJson = await s.raw('POST', path, { headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'early-1' }, body: '{"reason": ' });
  const notJsonType = await s.raw('POST', path, { headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain', 'Idempotency-Key': 'early-2' }, body: 'suspend it' });
  assert.equal([notJson.status, notJsonType.status].map((x) => x >= 400 && x < 500), [true, true], `${notJson.text} ${notJsonType.text}`);
  const rows = (await s.bo('GET', '/v1/bo/reports/action-logs?subject=emp_early', undefined, { roles: ['finance'] })).json.data as any[];
  assert.is(rows.length, 2);
  for (const row of rows) assert.equal([row.route, row.target_ids, row.outcome], ['/v1/bo/merchants/:id/suspend', { id: m.id }, 'refused'], JSON.stringify(row));
});

test('a forged token\'s sub with a new line or a right-to-left override is kept with those characters written as their codes', async () => {
  const claim = (sub: string) => `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub })).toString('base64url')}.AAAA`;
  const forged = await s.raw('GET', '/v1/bo/merchants', { headers: { Authorization: `Bearer ${claim('emp_x\n{"level":30,"msg":"fake"}\u202Egnp.exe')}` } });
  assert.is(forged.status, 401);
  const rows = (await s.bo('GET', '/v1/bo/reports/action-logs?limit=10', undefined, { roles: ['finance'] })).json.data as any[];
  const row = rows.find((x) => x.request_id === forged.headers.get('x-request-id'));
  assert.is(row.subject, 'emp_x\\u000a{"level":30,"msg":"fake"}\\u202egnp.exe');
});

test('what a stranger chooses is kept short and without secrets: a 7,500-character path, a forged token claiming a key as its sub, a long id', async () => {
  const max = backOfficeLimits.auditTextLengthMax;
  const longPath = await s.raw('GET', `/v1/bo/${'y'.repeat(7500)}`, { headers: { Authorization: 'Bearer nope' } });
  assert.is(longPath.status, 404);
  const keyShaped = 'sk_test_idM3wFnU3aeiIPc85yTbxzq-N4mlJfth';
  const claim = (sub: string) => `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub })).toString('base64url')}.AAAA`;
  const forged = await s.raw('GET', '/v1/bo/merchants', { headers: { Authorization: `Bearer ${claim(keyShaped)}` } });
  assert.is(forged.status, 401);
  const longId = await s.bo('GET', `/v1/bo/deposits/dep_${'z'.repeat(7000)}`, undefined, { sub: 'emp_long', roles: ['support'] });
  assert.ok(longId.status >= 400, longId.text);
  const rows = (await s.bo('GET', '/v1/bo/reports/action-logs?limit=10', undefined, { roles: ['finance'] })).json.data as any[];
  const row = (r: { headers: Headers }) => rows.find((x) => x.request_id === r.headers.get('x-request-id'));
  assert.ok(row(longPath).route.length <= max + 1 && row(longPath).route.startsWith('/v1/bo/yyy'), row(longPath).route.slice(0, 40));
  assert.not.ok(String(row(forged).subject).includes(keyShaped), `the claimed sub ${row(forged).subject}`);
  assert.ok(String(row(longId).target_ids.id).length <= max + 1);
  const { report } = await satangVerify();
  assert.equal([report.secrets_at_rest.ok, report.secrets_at_rest.findings], [true, []], 'the at-rest scan finds no key the stranger wrote');
});

test('off-boarding: an operator revoked is refused at once with the tokens they still hold, one from an issuer whose clock runs ahead too; the revocation is in the action log', async () => {
  const held = await s.operatorToken('emp_gone', false, ['reviewer', 'support']);
  // An issuer 30 s ahead of us (within the skew we accept) stamped this one "later".
  const ahead = await s.running.devIssuer!.mint('emp_gone', { nowSeconds: Math.floor(Date.now() / 1000) + 30, stepUp: false, roles: ['support'] });
  const read = (token: string) => s.raw('GET', '/v1/bo/deposits', { headers: { Authorization: `Bearer ${token}` } });
  assert.equal([(await read(held)).status, (await read(ahead)).status], [200, 200]);
  assert.is((await s.bo('POST', '/v1/bo/operators/emp_gone/revoke', { reason: 'left the company' }, { roles: ['ops_admin'] })).status, 403, 'a step-up');
  assert.is((await s.bo('POST', '/v1/bo/operators/emp_gone/revoke', { reason: 'left' }, { roles: ['support'], stepUp: true })).status, 403, 'ops_admin only');
  const revoked = await s.bo('POST', '/v1/bo/operators/emp_gone/revoke', { reason: 'left the company' }, { sub: 'emp_lead', roles: ['ops_admin'], stepUp: true });
  assert.is(revoked.status, 200, revoked.text);
  assert.equal([revoked.json.object, revoked.json.sub, revoked.json.revoked_by, revoked.json.reason, revoked.json.seen_before], ['operator_revocation', 'emp_gone', 'emp_lead', 'left the company', true]);
  const typo = await s.bo('POST', '/v1/bo/operators/emp_g0ne/revoke', {}, { sub: 'emp_lead', roles: ['ops_admin'], stepUp: true });
  assert.is(typo.json.seen_before, false, 'a subject that never signed in: the answer says so');
  for (const token of [held, ahead]) {
    const refused = await read(token);
    assert.is(refused.status, 401);
    assert.match(refused.json.error.message, /revoked/);
    assert.ok(refused.json.error.message.includes(`tokens issued before ${revoked.json.tokens_issued_before} are refused`), `the refusal names the revocation's instant: ${refused.json.error.message}`);
  }
  assert.ok(Date.parse(revoked.json.tokens_issued_before) > Date.now() + 30_000, 'tokens stamped up to the skew ahead are covered');
  assert.is((await s.bo('GET', '/v1/bo/deposits', undefined, { sub: 'emp_other', roles: ['support'] })).status, 200, 'nobody else is touched');
  const rows = (await s.bo('GET', '/v1/bo/reports/action-logs?limit=20', undefined, { roles: ['finance'] })).json.data as any[];
  assert.ok(rows.some((r) => r.route === '/v1/bo/operators/:sub/revoke' && r.subject === 'emp_lead' && r.outcome === 'ok' && r.target_ids.sub === 'emp_gone'));
});

test('off-boarding one person under any spelling: emp_x revoked, the tokens of EMP_X, Emp_X and ＥＭＰ_X are refused too; a row an older build wrote as given is folded on restart', async () => {
  const read = (server: TestServer, token: string) => server.raw('GET', '/v1/bo/deposits', { headers: { Authorization: `Bearer ${token}` } });
  const spellings = ['emp_folded', 'EMP_FOLDED', 'Emp_Folded', 'ＥＭＰ_ＦＯＬＤＥＤ'];
  const held = await Promise.all(spellings.map((sub) => s.operatorToken(sub, false, ['support'])));
  for (const token of held) assert.is((await read(s, token)).status, 200);
  const revoked = await s.bo('POST', '/v1/bo/operators/emp_folded/revoke', { reason: 'left the company' }, { sub: 'emp_lead', roles: ['ops_admin'], stepUp: true });
  assert.is(revoked.status, 200, revoked.text);
  assert.is(revoked.json.sub, 'emp_folded', 'the answer names the subject as given');
  for (const [i, token] of held.entries()) {
    const refused = await read(s, token);
    assert.equal([refused.status, refused.json.error?.code], [401, 'signature_invalid'], spellings[i]);
    assert.match(refused.json.error.message, /revoked/);
  }
  // Revoked under another spelling of someone who signed in only as EMP_ONLY: they were seen, and are cut off.
  const upper = await s.operatorToken('EMP_ONLY', false, ['support']);
  assert.is((await read(s, upper)).status, 200);
  const other = await s.bo('POST', '/v1/bo/operators/emp_only/revoke', {}, { sub: 'emp_lead', roles: ['ops_admin'], stepUp: true });
  assert.is(other.json.seen_before, true, 'EMP_ONLY signed in: emp_only is no typo');
  assert.is((await read(s, upper)).status, 401);

  // An older build kept the subject as given: the row of EMP_OLD still cuts off emp_old's tokens once restarted.
  const own = await TestServer.start();
  let restarted: TestServer | undefined;
  try {
    const oldToken = await own.operatorToken('emp_old', false, ['support']);
    await own.stop(false);
    const db = new Database(join(own.dataDir, 'journal.db'));
    db.prepare('INSERT INTO operator_revocations (sub, revoked_at, revoked_by, reason) VALUES (?, ?, ?, ?)').run('EMP_OLD', Math.floor(Date.now() / 1000) + 60, 'emp_lead', 'left');
    db.close();
    restarted = await TestServer.start({}, own.dataDir);
    assert.is((await read(restarted, oldToken)).status, 401, 'emp_old refused by the row written as EMP_OLD');
    assert.is((await read(restarted, await restarted.operatorToken('Emp_Old', false, ['support']))).status, 401);
  } finally {
    await (restarted ?? own).stop();
  }
});

test('sign-out: the token signed out is refused from then on, with any role; the operator\'s other tokens go on', async () => {
  const signingOut = await s.operatorToken('emp_leaving', false, ['approver']);
  const other = await s.operatorToken('emp_leaving', false, ['approver', 'support']);
  const call = (token: string, method: string, path: string, body?: string, key: string | null = 'sign-out-1') => s.raw(method, path, {
    headers: { Authorization: `Bearer ${token}`, ...(method === 'POST' && key !== null ? { 'Idempotency-Key': key } : {}), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) }, ...(body === undefined ? {} : { body }),
  });
  assert.is((await call(signingOut, 'GET', '/v1/bo/withdrawals')).status, 200);
  const keyless = await call(signingOut, 'POST', '/v1/bo/session/sign-out', undefined, null);
  assert.equal([keyless.status, keyless.json.error?.code], [400, 'idempotency_key_required'], 'an operator POST like any other');
  assert.is((await call(signingOut, 'GET', '/v1/bo/withdrawals')).status, 200, 'a sign-out refused for want of a key signs nothing out');
  assert.is((await call(signingOut, 'POST', '/v1/bo/session/sign-out', '{"all":true}')).status, 422, 'no body but {}');
  assert.is((await call(signingOut, 'GET', '/v1/bo/withdrawals')).status, 200, 'a refused sign-out signs nothing out');
  const out = await call(signingOut, 'POST', '/v1/bo/session/sign-out');
  assert.is(out.status, 200, out.text);
  assert.equal([out.json.object, out.json.sub], ['operator_sign_out', 'emp_leaving']);
  assert.ok(Date.parse(out.json.token_expires_at) > Date.parse(out.json.signed_out_at));
  const refused = await call(signingOut, 'GET', '/v1/bo/withdrawals');
  assert.equal([refused.status, refused.json.error.code], [401, 'signature_invalid']);
  assert.match(refused.json.error.message, /signed out/);
  assert.is((await call(signingOut, 'POST', '/v1/bo/session/sign-out')).status, 401, 'once signed out, the token cannot act, even to sign out');
  assert.is((await call(other, 'GET', '/v1/bo/withdrawals')).status, 200, 'another session of the same operator goes on');
});

test('the request log keeps redacted, truncated bodies: a scan of logs.db finds no secret', async () => {
  const m = await s.onboard('Logged'); // its answer carries both API key secrets
  const ben = await s.beneficiary(m.id);
  await s.fund(m.id, 1_000_000);
  const w = await s.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 500_000, currency: 'THB', merchant_reference: 'log-w', end_user_ref: 'payee', beneficiary_id: ben });
  assert.is(w.status, 201, w.text);
  const d = await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 50_000, metadata: Object.fromEntries(['m1', 'm2', 'm3', 'm4', 'm5', 'm6'].map((k) => [k, 'x'.repeat(400)])), fill_preference: 'internal_only' }));
  assert.is(d.status, 201, d.text);
  const secrets = [m.live.api_key, m.sandbox.api_key, d.json.slip_upload.token, d.json.legs[0].qr_payload, sender.account_number, '1234567890', await s.operatorToken()];
  for (const x of secrets) assert.ok(typeof x === 'string' && x.length > 8);

  const found = await s.bo('GET', `/v1/bo/logs?request_id=${d.headers.get('x-request-id')}`, undefined, { roles: ['support'] });
  assert.is(found.status, 200, found.text);
  assert.is(found.json.data.length, 1);
  const row = found.json.data[0];
  assert.equal([row.merchant_id, row.livemode, row.method, row.route, row.status], [m.id, true, 'POST', '/v1/pay/deposits', 201]);
  assert.match(row.request_body, /xxxxxx3210/, 'the sender account is kept masked');
  assert.match(row.response_body, /\[redacted\]/);
  assert.ok(Buffer.byteLength(row.response_body) <= backOfficeLimits.requestLogBodyBytesMax + 20);
  assert.match(row.response_body, /…\[truncated\]$/);
  assert.is(found.json.retention_days, 30);
  const byMerchant = await s.bo('GET', `/v1/bo/logs?merchant_id=${m.id}&route=/v1/pay/withdrawals&status=201`);
  assert.is(byMerchant.json.data.length, 1);
  // Which key and from where: after a key leaks, what it did (its id, never its secret).
  const keyId = (await s.bo('GET', `/v1/bo/merchants/${m.id}/keys`, undefined, { roles: ['ops_admin'] })).json.data.find((k: any) => k.livemode && !k.revoked_at)?.key_id;
  assert.equal([row.key_id, row.ip], [keyId, '127.0.0.1']);
  const byKey = await s.bo('GET', `/v1/bo/logs?key_id=${keyId}`, undefined, { roles: ['support'] });
  assert.equal(byKey.json.data.map((r: any) => r.route).sort(), ['/v1/pay/deposits', '/v1/pay/withdrawals']);
  // A slip upload's row names its order's merchant and mode (the capability says whose order it is).
  const upload = await uploadJson(d.json.slip_upload, { trans_ref: 'TRLOG1', sending_bank_code: '014', occurred_at: new Date(s.clock.now()).toISOString() });
  assert.is(upload.status, 202, upload.text);
  const slipRow = (await s.bo('GET', `/v1/bo/logs?request_id=${upload.headers.get('x-request-id')}`)).json.data[0];
  assert.equal([slipRow.merchant_id, slipRow.livemode, slipRow.key_id], [m.id, true, null]);

  // An account number sent as a JSON number is refused, and logged masked all the same (it was kept in clear, shown to support).
  const numeric = await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', { ...depositBody({ amount_minor: 50_000 }), sender: { ...sender, account_number: 5566778899 } });
  assert.is(numeric.status, 422, numeric.text);
  const numericRow = (await s.bo('GET', `/v1/bo/logs?request_id=${numeric.headers.get('x-request-id')}`, undefined, { roles: ['support'] })).json.data[0];
  assert.match(numericRow.request_body, /"account_number":"xxxxxx8899"/);
  secrets.push('5566778899');

  // The store, byte by byte (the WAL too): no secret in any form the service handed out.
  await s.bo('GET', '/v1/bo/logs?limit=1'); // a read flushes what is buffered
  const files = readdirSync(s.dataDir).filter((f) => f.startsWith('logs.db'));
  assert.ok(files.length >= 1);
  const bytes = Buffer.concat(files.map((f) => readFileSync(join(s.dataDir, f))));
  for (const secret of secrets) assert.is(bytes.includes(Buffer.from(secret)), false, `logs.db holds ${secret.slice(0, 12)}…`);
  assert.is(bytes.includes(Buffer.from('eyJ')), false, 'no JWT at all');
});

test('behind a proxy (SATANG_TRUST_PROXY=1) the client is the address X-Forwarded-For names last; without it the header is ignored (a client could forge it)', async () => {
  const proxied = await TestServer.start({ SATANG_TRUST_PROXY: '1' });
  try {
    for (const [server, expected] of [[proxied, '203.0.113.9'], [s, '127.0.0.1']] as const) {
      const r = await server.raw('GET', '/v1/pay/banks', { headers: { 'X-Forwarded-For': '198.51.100.1, 203.0.113.9' } });
      const row = (await server.bo('GET', `/v1/bo/logs?request_id=${r.headers.get('request-id')}`, undefined, { roles: ['support'] })).json.data[0];
      assert.is(row?.ip, expected);
    }
  } finally {
    await proxied.stop();
  }
  assert.throws(() => readConfig({ SATANG_TRUST_PROXY: 'yes' }), /SATANG_TRUST_PROXY must be the number of proxies/);
});

test('rows older than the retention are pruned', () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-logs-'));
  let now = Date.UTC(2026, 10, 1);
  const store = new RequestLogStore(dir);
  const reader = new RequestLogReader(dir);
  try {
    const row = { requestId: 'req_old', merchantId: null, livemode: null, keyId: null, ip: null, operator: null, method: 'GET', route: '/x', status: 200, durationMs: 1, errorCode: null, requestBody: null, responseBody: null };
    store.append([{ ...row, at: now }], now);
    now += backOfficeLimits.requestLogRetentionMs + 1;
    store.append([{ ...row, requestId: 'req_new', at: now }], now);
    assert.is(store.prune(now), 1);
    assert.equal(reader.page({ limit: 10 }).map((r) => r.request_id), ['req_new']);
  } finally {
    store.close();
    reader.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a webhook endpoint's new URL keeps the old one in the action log, both with the query's token redacted", async () => {
  const m = await s.onboard('Moved hooks');
  const created = await s.bo('POST', `/v1/bo/merchants/${m.id}/webhook-endpoints`, { url: 'http://127.0.0.1:9/old?token=OLDHOOKSECRET1', livemode: true });
  assert.is(created.status, 201, created.text);
  const moved = await s.bo('POST', `/v1/bo/webhooks/${created.json.id}`, { url: 'http://127.0.0.1:9/new?token=NEWHOOKSECRET2&v=2', event_types: ['deposit.settled'] }, { sub: 'emp_hooks' });
  assert.is(moved.status, 200, moved.text);
  const retyped = await s.bo('POST', `/v1/bo/webhooks/${created.json.id}`, { event_types: null }, { sub: 'emp_hooks' });
  assert.is(retyped.status, 200, retyped.text);
  const refused = await s.bo('POST', `/v1/bo/webhooks/${created.json.id}`, { url: 'ftp://127.0.0.1/x?token=NEVERSTORED3' }, { sub: 'emp_hooks' });
  assert.is(refused.status, 422, refused.text);

  // The action log keeps a URL for good: its origin and a fingerprint, never its path or query (a provider's secret may be in either).
  const fingerprint = (url: string) => createHash('sha256').update(new URL(url).href).digest('hex').slice(0, 12);
  assert.is(fingerprintedUrl('https://hooks.slack.com/services/T000/B000/XXXXSECRETPATH'), `https://hooks.slack.com/… sha256:${fingerprint('https://hooks.slack.com/services/T000/B000/XXXXSECRETPATH')}`);
  assert.is(fingerprintedUrl('https://u:pw@hooks.example/'), 'https://hooks.example/', 'a bare origin whole, without user or password');
  const rows = (await s.bo('GET', '/v1/bo/reports/action-logs?subject=emp_hooks&limit=10', undefined, { roles: ['finance'] })).json.data as any[];
  const row = (r: { headers: Headers }) => rows.find((x) => x.request_id === r.headers.get('x-request-id'));
  assert.equal(row(moved).changes, {
    url: { before: `http://127.0.0.1:9/… sha256:${fingerprint('http://127.0.0.1:9/old?token=OLDHOOKSECRET1')}`, after: `http://127.0.0.1:9/… sha256:${fingerprint('http://127.0.0.1:9/new?token=NEWHOOKSECRET2&v=2')}` },
    event_types: { before: null, after: ['deposit.settled'] },
  });
  assert.equal(row(retyped).changes, { event_types: { before: ['deposit.settled'], after: null } }, 'a URL left as it was is no change');
  assert.equal([row(refused).outcome, row(refused).changes], ['refused', null], 'a refused change claims none');
  const stored = JSON.stringify(s.running.store.db.prepare('SELECT * FROM action_log').all());
  for (const secret of ['OLDHOOKSECRET1', 'NEWHOOKSECRET2', 'NEVERSTORED3']) assert.not.ok(stored.includes(secret), `${secret} is not in the action log`);
});

test('satang verify checks the action log: it passes, then fails on the row an attacker altered', async () => {
  const clean = await satangVerify();
  assert.is(clean.code, 0, JSON.stringify(clean.report).slice(0, 2000));
  assert.is(clean.report.action_log.ok, true);
  assert.ok(clean.report.action_log.rows >= 5);
  const db = s.running.store.db;
  const victim = db.prepare("SELECT id FROM action_log WHERE subject = 'emp_nosy'").get() as { id: number };
  // The triggers refuse an UPDATE; an attacker with the file drops them first.
  assert.throws(() => db.prepare("UPDATE action_log SET outcome = 'ok' WHERE id = ?").run(victim.id), /append-only/);
  db.exec('DROP TRIGGER action_log_refuses_update');
  db.prepare("UPDATE action_log SET outcome = 'ok' WHERE id = ?").run(victim.id);
  const broken = await satangVerify();
  assert.is(broken.code, 1);
  assert.is(broken.report.action_log.ok, false);
  assert.is(broken.report.action_log.first_bad_id, victim.id);
});

test.run();
