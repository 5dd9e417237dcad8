// Every error code the merchant routes (/v1/pay/*) can produce, provoked over real HTTP
// against a real server and checked against the contract's error object: status, code,
// type, retryable, the eight keys and nothing else, request_id = Request-Id header,
// details as the contract names them. The last test closes the loop: every code of the
// catalogue is either covered here or listed in unreachableFromMerchantRoutes with why.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import type { ErrorCode } from '../../core/errors.ts';
import { catalogue } from '../../server/errors.ts';
import { rateLimitPolicies } from '../../server/rate-limit.ts';
import { depositBody as baseDepositBody, freshSender, signedHeaders, TestServer, type MerchantKeys } from '../support/server-harness.ts';
import {
  assertTimestamp, expectError, gatewayRoute, journalRows, openDispute, payFirstLeg, receiveSlip, resolveDispute,
  setBankAvailability, slowDisk, withdrawalBody,
} from '../support/api-checks.ts';

const covered = new Set<string>();
/** Every order from a payer account of its own, unless a test names one: this spec keeps many open orders of one amount. */
const depositBody = (overrides: Record<string, unknown> = {}) => baseDepositBody({ sender: freshSender(), ...overrides });

/** Codes no /v1/pay/* request can provoke today, each with the reason. */
const unreachableFromMerchantRoutes: Partial<Record<ErrorCode, string>> = {
  review_note_required: 'back office only: reviewer decisions on deposits (POST /v1/bo/deposits/{id}/approve|decline)',
  withdrawal_state_conflict: 'only another writer on the same journal (a version it took while the request was decided) answers it; one server per data dir holds its lock, and commands on a withdrawal are decided one at a time; an approve, reject or fill reversal meeting the wrong state is operation_not_allowed (a retry would meet the same state)',
  alloc_state_conflict: 'raised by the slip worker and operator paths (ReserveLeg/FillLeg, review approval); deposit creation plans legs only on matchable withdrawals inside the same serialised command',
  slip_intake_unavailable: 'slip upload issue (POST /v1/pay/deposits/{id}/slip is not mounted yet)',
  late_slip_window_closed: 'slip upload issue (a late slip is refused at upload)',
  route_unavailable: 'nothing produces it yet: without liquidity a deposit answers 202 awaiting_liquidity instead',
  internal_error: 'never provoked on purpose (fuzz.int.spec.ts asserts it never happens)',
  request_timeout: 'needs a body deadline shorter than a test should wait: requests.int.spec.ts provokes it on a server started with SATANG_REQUEST_TIMEOUTS_MS',
  malformed_request: 'needs bytes no HTTP client sends (a bad Content-Length, a method with a space): requests.int.spec.ts writes them on a raw socket',
};

let s: TestServer;
let p2p: TestServer;
let payer: MerchantKeys;
let shop: MerchantKeys;
let gw: MerchantKeys;
let payerBen: string;

const now = () => s.wallSeconds(); // merchants sign with the wall clock (security time)

test.before(async () => {
  s = await TestServer.start();
  payer = await s.onboard('Payer');
  shop = await s.onboard('Shop', payer.whiteLabelId);
  await s.fund(payer.id, 5_000_000);
  payerBen = await s.beneficiary(payer.id);
  gw = await s.onboard('Gateway shop');
  await gatewayRoute(s, gw.whiteLabelId);
  p2p = await TestServer.start({ SATANG_PROFILE: 'live_p2p' });
});
test.after(async () => { await s.stop(); await p2p.stop(); });

// ---- authentication ----

test('signature_invalid: one flipped byte of the body; no details', async () => {
  const flip = (b: string) => { const i = b.indexOf('ref-') + 4; return b.slice(0, i) + String.fromCharCode(b.charCodeAt(i) ^ 1) + b.slice(i + 1); };
  const r = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody(), { tamper: flip });
  expectError(r, 'signature_invalid', covered);
  const wrongSecret = signedHeaders(`${shop.live.api_key}x`, 'GET', '/v1/pay/banks', '', { nowSeconds: now() });
  const g = await s.raw('GET', '/v1/pay/banks', { headers: { ...wrongSecret, Authorization: `Bearer ${shop.live.api_key}` } });
  expectError(g, 'signature_invalid');
});

test('timestamp_out_of_window: 301 s behind the wall clock; retryable', async () => {
  const r = await s.call(shop.live.api_key, 'GET', '/v1/pay/balance', undefined, { nowSeconds: now() - 301 });
  expectError(r, 'timestamp_out_of_window', covered);
});

test('PG-Timestamp and PG-Version: a missing or malformed header says what to send; milliseconds are named as such', async () => {
  const headers = (over: Record<string, string | undefined>) => {
    const h: Record<string, string> = signedHeaders(shop.live.api_key, 'GET', '/v1/pay/balance', '', { nowSeconds: now() });
    for (const [k, v] of Object.entries(over)) if (v === undefined) delete h[k]; else h[k] = v;
    return h;
  };
  const missing = await s.raw('GET', '/v1/pay/balance', { headers: headers({ 'PG-Timestamp': undefined }) });
  assert.equal([missing.status, missing.json.error.code], [401, 'timestamp_out_of_window']);
  assert.match(missing.json.error.message, /PG-Timestamp is missing/);
  const iso = await s.raw('GET', '/v1/pay/balance', { headers: headers({ 'PG-Timestamp': new Date().toISOString() }) });
  assert.is(iso.json.error.code, 'timestamp_out_of_window');
  assert.match(iso.json.error.message, /whole seconds/);
  const millis = await s.raw('GET', '/v1/pay/balance', { headers: headers({ 'PG-Timestamp': String(Date.now()) }) });
  assert.is(millis.json.error.code, 'timestamp_out_of_window');
  assert.match(millis.json.error.message, /looks like milliseconds/);
  const noVersion = await s.call(shop.live.api_key, 'GET', '/v1/pay/balance', undefined, { version: '' });
  assert.equal([noVersion.status, noVersion.json.error.details.fields[0].reason], [422, 'required']);
  assert.match(noVersion.json.error.message, /PG-Version is missing; send 2026-08-01/);
});

test('nonce_replayed: the same PG-Nonce twice', async () => {
  const nonce = randomUUID();
  assert.is((await s.call(shop.live.api_key, 'GET', '/v1/pay/banks', undefined, { nonce })).status, 200);
  expectError(await s.call(shop.live.api_key, 'GET', '/v1/pay/banks', undefined, { nonce }), 'nonce_replayed', covered);
});

test('api_key_invalid: an unknown key, and no key at all', async () => {
  expectError(await s.call(`sk_live_${randomUUID()}`, 'GET', '/v1/pay/banks'), 'api_key_invalid', covered);
  expectError(await s.raw('GET', '/v1/pay/banks'), 'api_key_invalid');
});

test('api_key_revoked: a key revoked in the back office', async () => {
  const minted = await s.bo('POST', `/v1/bo/merchants/${shop.id}/keys`, { livemode: true, scopes: ['wallet:read'] }, { stepUp: true });
  assert.is(minted.status, 201, minted.text);
  assert.is((await s.call(minted.json.api_key, 'GET', '/v1/pay/balance')).status, 200);
  s.clock.advance(3 * 3_600_000); // business time moved (a manual clock): the revocation is stamped on the wall clock
  const revoked = await s.bo('POST', `/v1/bo/keys/${minted.json.key_id}/revoke`, {}, { stepUp: true });
  assert.is(revoked.status, 200, revoked.text);
  assert.ok(Math.abs(Date.parse(revoked.json.revoked_at) - s.securityClock.now()) < 5_000, `revoked_at ${revoked.json.revoked_at} is the wall clock's, as the request log's`);
  const thief = await s.call(minted.json.api_key, 'GET', '/v1/pay/balance');
  expectError(thief, 'api_key_revoked', covered);
  assert.is((await s.call(shop.live.api_key, 'GET', '/v1/pay/balance')).status, 200, 'the other keys still work');
  // What the revoked key still tries is in the request log under its id, with the address it came from.
  const tried = (await s.bo('GET', `/v1/bo/logs?key_id=${minted.json.key_id}`, undefined, { roles: ['support'] })).json.data as any[];
  const row = tried.find((r) => r.request_id === thief.headers.get('request-id'));
  assert.equal([row?.status, row?.error_code, row?.ip], [401, 'api_key_revoked', '127.0.0.1'], JSON.stringify(tried));
  // … and under its merchant: a responder filtering the log by merchant sees the leaked key still tried.
  const byMerchant = (await s.bo('GET', `/v1/bo/logs?merchant_id=${shop.id}&status=401`, undefined, { roles: ['support'] })).json.data as any[];
  assert.ok(byMerchant.some((r) => r.request_id === thief.headers.get('request-id') && r.key_id === minted.json.key_id && r.livemode === true), JSON.stringify(byMerchant).slice(0, 500));
});

test('tenant_suspended: a suspended merchant, until unsuspended', async () => {
  const m = await s.onboard('Suspended', payer.whiteLabelId);
  assert.is((await s.bo('POST', `/v1/bo/merchants/${m.id}/suspend`, { reason: 'chargeback ratio above the limit' }, { stepUp: true, sub: 'emp_risk' })).status, 200);
  // Who suspended the merchant and why are on the journal's event.
  const change = JSON.parse(s.running.store.db.prepare("SELECT data FROM journal WHERE stream = ? AND type = 'MerchantSuspensionChanged' ORDER BY seq DESC LIMIT 1").pluck(true).get(m.id) as string);
  assert.equal([change.suspended, change.operatorId, change.reason], [true, 'emp_risk', 'chargeback ratio above the limit']);
  // The next shift reads it from the merchant list: who, when and why.
  const listed = (await s.bo('GET', `/v1/bo/merchants?suspended=true&q=${m.id}`, undefined, { roles: ['support'] })).json.data[0];
  assert.equal([listed.suspended, listed.suspension?.by, listed.suspension?.reason, typeof listed.suspension?.at], [true, 'emp_risk', 'chargeback ratio above the limit', 'string']);
  expectError(await s.call(m.live.api_key, 'GET', '/v1/pay/balance'), 'tenant_suspended', covered);
  expectError(await s.call(m.sandbox.api_key, 'POST', '/v1/pay/deposits', depositBody()), 'tenant_suspended');
  assert.is((await s.bo('POST', `/v1/bo/merchants/${m.id}/unsuspend`, {}, { stepUp: true })).status, 200);
  assert.is((await s.call(m.live.api_key, 'GET', '/v1/pay/balance')).status, 200);
});

test('scope_denied: a live key without wallet:read or withdrawals:write', async () => {
  const minted = await s.bo('POST', `/v1/bo/merchants/${payer.id}/keys`, { livemode: true, scopes: ['withdrawals:read'] }, { stepUp: true });
  assert.is(minted.status, 201, minted.text);
  const e = expectError(await s.call(minted.json.api_key, 'GET', '/v1/pay/balance'), 'scope_denied', covered);
  assert.is(e.details.required_scope, 'wallet:read');
  const w = expectError(await s.call(minted.json.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(payerBen), { idempotencyKey: randomUUID() }), 'scope_denied');
  assert.is(w.details.required_scope, 'withdrawals:write');
  // Adding a payee and speaking in a dispute are payout writes too; reading a payee is a payout read.
  const ben = expectError(await s.call(minted.json.api_key, 'POST', '/v1/pay/beneficiaries', { bank_code: '004', account_number: '7777777777', account_name_th: 'ผู้ไม่หวังดี ทดสอบ' }), 'scope_denied');
  const evidence = expectError(await s.call(minted.json.api_key, 'POST', '/v1/pay/disputes/dsp_any/evidence', { text: 'receipt attached' }), 'scope_denied');
  assert.equal([ben.details.required_scope, evidence.details.required_scope], ['withdrawals:write', 'withdrawals:write']);
  const walletOnly = await s.bo('POST', `/v1/bo/merchants/${payer.id}/keys`, { livemode: true, scopes: ['wallet:read'] }, { stepUp: true });
  assert.is(expectError(await s.call(walletOnly.json.api_key, 'GET', `/v1/pay/beneficiaries/${payerBen}`), 'scope_denied').details.required_scope, 'withdrawals:read');
  assert.is((await s.call(minted.json.api_key, 'GET', `/v1/pay/beneficiaries/${payerBen}`)).status, 200);
});

test('beneficiary_not_verified: an inline payee is paid only as verified — another name or PromptPay id is refused, leaving nothing behind', async () => {
  const inline = (beneficiary: Record<string, string>) => {
    const body = withdrawalBody('', { beneficiary: { bank_code: '004', account_number: '1234567890', ...beneficiary } });
    delete body.beneficiary_id;
    return body;
  };
  const before = await journalRows(s);
  const other = expectError(await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', inline({ account_name_th: 'ใครก็ได้ ไม่ใช่' }), { idempotencyKey: randomUUID() }), 'beneficiary_not_verified');
  assert.equal(other.details, { beneficiary_id: payerBen, fields: [{ path: 'beneficiary.account_name_th', reason: 'not_as_verified' }] });
  assert.equal([other.retryable, other.message_th.includes('ยืนยันแล้วด้วยข้อมูลที่ต่าง')], [false, true], 'verified under another name: waiting does not help, and the Thai says so');
  const promptpay = expectError(await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', inline({ account_name_th: 'สมหญิง รักดี', promptpay_id: '0812345678' }), { idempotencyKey: randomUUID() }), 'beneficiary_not_verified');
  assert.equal(promptpay.details.fields, [{ path: 'beneficiary.promptpay_id', reason: 'not_as_verified' }]);
  assert.is(await journalRows(s), before, 'no order, no lock');
  const asVerified = await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', inline({ account_name_th: ' สมหญิง  รักดี ' }), { idempotencyKey: randomUUID() });
  // The same name in another Thai spelling (a zero-width non-joiner a word processor left; core/thai-names.ts) is the same payee.
  const zwnj = await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', inline({ account_name_th: 'สม\u200cหญิง รักดี' }), { idempotencyKey: randomUUID() });
  assert.equal([zwnj.status, zwnj.json.beneficiary_id], [201, payerBen], zwnj.text);
  assert.is((await s.call(payer.live.api_key, 'POST', `/v1/pay/withdrawals/${zwnj.json.id}/cancel`, {})).status, 200);
  assert.equal([asVerified.status, asVerified.json.beneficiary_id], [201, payerBen], asVerified.text);
  assert.is((await s.call(payer.live.api_key, 'POST', `/v1/pay/withdrawals/${asVerified.json.id}/cancel`, {})).status, 200);
});

test('scope_denied: the events feed carries balance transactions and withdrawals, so it needs both read scopes', async () => {
  const readsFeed = async (scopes: string[]) => {
    const minted = await s.bo('POST', `/v1/bo/merchants/${payer.id}/keys`, { livemode: true, scopes }, { stepUp: true });
    assert.is(minted.status, 201, minted.text);
    return s.call(minted.json.api_key, 'GET', '/v1/pay/events?since_sequence=0&limit=5');
  };
  const noWallet = expectError(await readsFeed(['withdrawals:read', 'withdrawals:write']), 'scope_denied');
  assert.equal([noWallet.details.required_scope, noWallet.details.required_scopes], ['wallet:read', ['wallet:read', 'withdrawals:read']]);
  const noWithdrawals = expectError(await readsFeed(['wallet:read']), 'scope_denied');
  assert.is(noWithdrawals.details.required_scope, 'withdrawals:read');
  const both = await readsFeed(['wallet:read', 'withdrawals:read']);
  assert.is(both.status, 200, both.text);
  assert.ok(both.json.data.some((e: { type: string }) => e.type.startsWith('balance.')), 'the payer was funded: the feed holds balance events');
});

// ---- the request itself ----

test('idempotency_key_required: POST without Idempotency-Key (create, cancel, slip-token)', async () => {
  expectError(await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody(), { idempotencyKey: undefined }), 'idempotency_key_required', covered);
  const d = await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody());
  assert.is(d.status, 201, d.text);
  expectError(await s.call(gw.live.api_key, 'POST', `/v1/pay/deposits/${d.json.id}/cancel`, {}, { idempotencyKey: undefined }), 'idempotency_key_required');
  expectError(await s.call(gw.live.api_key, 'POST', `/v1/pay/deposits/${d.json.id}/slip-token`, undefined, { idempotencyKey: undefined }), 'idempotency_key_required');
});

test('an Idempotency-Key that is not ASCII is a validation_error naming the header, not a signature problem', async () => {
  const r = await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody(), { idempotencyKey: 'clé-\u00e9t\u00e9-2026' });
  expectError(r, 'validation_error');
  assert.equal([r.json.error.details.fields[0].path, r.json.error.details.fields[0].reason], ['header.Idempotency-Key', 'format']);
});

test('malformed_json: a body that does not parse', async () => {
  expectError(await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', '{"amount_minor": 5000,'), 'malformed_json', covered);
});

test('unsupported_media_type: a signed body sent as text/plain', async () => {
  const body = JSON.stringify(depositBody());
  const headers = signedHeaders(shop.live.api_key, 'POST', '/v1/pay/deposits', body, { idempotencyKey: randomUUID(), nowSeconds: now() });
  expectError(await s.raw('POST', '/v1/pay/deposits', { headers: { ...headers, 'Content-Type': 'text/plain' }, body }), 'unsupported_media_type', covered);
});

test('api_key_invalid: two Authorization headers (Node keeps the first: a request must not authenticate as whichever came first)', async () => {
  const headers = signedHeaders(shop.live.api_key, 'GET', '/v1/pay/balance', '', { nowSeconds: now() });
  const rawHeaders = Object.entries(headers).flat();
  const twice = [...rawHeaders, 'Authorization', `Bearer ${payer.live.api_key}`];
  const answer = (list: string[]) => new Promise<{ status: number; body: string }>((resolve, reject) => {
    // Headers as a raw list send each line as given (and no default ones: Host is ours to add).
    const req = request(`${s.url}/v1/pay/balance`, { method: 'GET', headers: ['Host', new URL(s.url).host, ...list] }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
  const refused = await answer(twice);
  assert.is(refused.status, 401, `${refused.status} ${refused.body}`);
  assert.is(JSON.parse(refused.body).error.code, 'api_key_invalid');
  const op = await answer(['Authorization', 'Bearer a.b.c', 'Authorization', 'Bearer d.e.f']);
  assert.is(op.status, 401);
  const once = await answer(Object.entries(signedHeaders(shop.live.api_key, 'GET', '/v1/pay/balance', '', { nowSeconds: now() })).flat());
  assert.is(once.status, 200, once.body);
});

test('cursor_filter_mismatch: filters changed mid-cursor', async () => {
  for (let i = 0; i < 3; i++) assert.ok((await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 3_000 + i * 100 }))).status < 300);
  const first = await s.call(gw.live.api_key, 'GET', '/v1/pay/deposits?limit=1');
  assert.ok(first.json.has_more);
  const r = await s.call(gw.live.api_key, 'GET', `/v1/pay/deposits?limit=1&status=canceled&cursor=${first.json.next_cursor}`);
  expectError(r, 'cursor_filter_mismatch', covered);
  // A cursor pages only the list, merchant and mode it was issued for.
  for (const [key, path] of [[gw.live.api_key, '/v1/pay/withdrawals'], [shop.live.api_key, '/v1/pay/deposits'], [gw.sandbox.api_key, '/v1/pay/deposits']] as const) {
    expectError(await s.call(key, 'GET', `${path}?limit=1&cursor=${first.json.next_cursor}`), 'cursor_filter_mismatch');
  }
  assert.is((await s.call(gw.live.api_key, 'GET', `/v1/pay/deposits?limit=1&cursor=${first.json.next_cursor}`)).status, 200);
});

test('validation_error: details.fields[] with path and reason for each problem', async () => {
  const r = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ currency: 'USD', amount_minor: '5000', colour: 'red' }));
  const e = expectError(r, 'validation_error', covered);
  assert.ok(Array.isArray(e.details.fields));
  for (const f of e.details.fields) {
    assert.type(f.path, 'string');
    assert.type(f.reason, 'string');
  }
  const byPath = Object.fromEntries(e.details.fields.map((f: { path: string; reason: string }) => [f.path, f.reason]));
  assert.is(byPath.currency, 'enum');
  assert.is(byPath.amount_minor, 'type');
  assert.is(byPath.colour, 'unknown_field');
  // client{} is validated (then left out of what is stored): an address must be one, text without control characters.
  for (const path of ['/v1/pay/deposits', '/v1/pay/withdrawals']) {
    const bad = await s.call(payer.live.api_key, 'POST', path, { ...(path.endsWith('deposits') ? depositBody() : withdrawalBody(payerBen)), client: { ip: 'notanip', user_agent: 'a\u0007b', device_fingerprint: 'fp-1' } }, { idempotencyKey: randomUUID() });
    const fields = Object.fromEntries(expectError(bad, 'validation_error').details.fields.map((f: { path: string; reason: string }) => [f.path, f.reason]));
    assert.equal([fields['client.ip'], fields['client.user_agent']], ['format', 'pattern'], `${path}: ${bad.text}`);
  }
  // What JSON.parse forgives is refused, naming the field: a number written 10000.0 or 1e4
  // (the integer 10000 once parsed), a key given twice (the last would win), and references
  // or names with C1 controls, bidirectional overrides or half a character.
  const seqBefore = s.running.store.world.lastSeq;
  const depositText = JSON.stringify(depositBody({ amount_minor: 7_700 }));
  for (const [text, path, reason] of [
    [depositText.replace('"amount_minor":7700', '"amount_minor":7700.0'), 'amount_minor', 'type'],
    [depositText.replace('"amount_minor":7700', '"amount_minor":7.7e3'), 'amount_minor', 'type'],
    [depositText.replace('"amount_minor":7700', '"amount_minor":999999999,"amount_minor":7700'), 'amount_minor', 'duplicate_key'],
    [depositText.replace('"bank_code":', '"bank_code":"004","bank_code":'), 'sender.bank_code', 'duplicate_key'],
    [JSON.stringify(depositBody({ amount_minor: 7_700, merchant_reference: 'ab\u0085c' })), 'merchant_reference', 'pattern'],
    [JSON.stringify(depositBody({ amount_minor: 7_700, end_user_ref: 'user\u202e1' })), 'end_user_ref', 'pattern'],
    [JSON.stringify(depositBody({ amount_minor: 7_700 })).replace('"merchant_reference":"', '"merchant_reference":"\\ud800'), 'merchant_reference', 'pattern'],
  ] as const) {
    const bad = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', text, { idempotencyKey: randomUUID() });
    const fields = expectError(bad, 'validation_error').details.fields as { path: string; reason: string }[];
    assert.ok(fields.some((f) => f.path === path && f.reason === reason), `${text}: ${bad.text}`);
  }
  // return_url: an absolute http(s) URL with nothing invisible in it (a control, a direction override, a BOM), as the OpenAPI document says.
  for (const url of ['https://merchant.example/r\u0000z', 'https://merchant.example/r\nz', 'https://merchant.example/\u202eexe.txt', 'https://merchant.example/\ufeffr', 'https://merchant.example/r\u0085', 'mailto:a@b.example', 'ftp://merchant.example/r']) {
    const refused = expectError(await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 7_700, return_url: url }), { idempotencyKey: randomUUID() }), 'validation_error');
    assert.equal([...new Set(refused.details.fields.map((f: { path: string }) => f.path))], ['return_url'], JSON.stringify(url));
  }
  // A number with a fraction where text or an object goes is a type error of what goes there, not an integer's; every such field is named.
  const wrongTypes = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositText.replace('"currency":"THB"', '"currency":1.5').replace(/"merchant_reference":"[^"]*"/, '"merchant_reference":2.5'), { idempotencyKey: randomUUID() });
  const wrong = expectError(wrongTypes, 'validation_error');
  assert.equal(wrong.details.fields.map((f: { path: string; reason: string }) => [f.path, f.reason]).sort(), [['currency', 'enum'], ['merchant_reference', 'type']], wrongTypes.text);
  assert.not.match(wrongTypes.text, /integer/, 'nothing says integer of a text field');
  assert.match(wrongTypes.text, /must be THB.*must be string/);
  // With another field wrong too, the fraction in an integer's place is named beside it.
  const both = expectError(await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositText.replace('"amount_minor":7700', '"amount_minor":7700.0').replace('"currency":"THB"', '"currency":"USD"'), { idempotencyKey: randomUUID() }), 'validation_error');
  assert.equal(both.details.fields.map((f: { path: string }) => f.path).sort(), ['amount_minor', 'currency']);
  const senderName = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 7_700, sender: { ...(depositBody().sender as object), account_name_th: 'สมชาย\u0007' } }), { idempotencyKey: randomUUID() });
  assert.equal(expectError(senderName, 'validation_error').details.fields.map((f: { path: string }) => f.path), ['sender.account_name_th']);
  assert.is(s.running.store.world.lastSeq, seqBefore, 'nothing written');
  const v6 = await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 7_300, client: { ip: '2001:db8::7', user_agent: 'spec', device_fingerprint: 'fp-1' } }));
  assert.ok(v6.status === 201 || v6.status === 202, v6.text);
  const q = expectError(await s.call(shop.live.api_key, 'GET', '/v1/pay/deposits?limit=0'), 'validation_error');
  assert.is(q.details.fields[0].path, 'query.limit', 'a query field is named as the routes that check by hand name theirs');
});

test('deposit metadata: 20 keys, values of 500 bytes, keys of any length to 500 bytes (the 40-character key is the withdrawal Live profile\'s rule); echoed unchanged', async () => {
  const longKey = 'k'.repeat(41);
  const ok = await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 7_400, metadata: { [longKey]: 'x', order: 'ก'.repeat(166) } }));
  assert.ok(ok.status === 201 || ok.status === 202, ok.text);
  assert.equal(ok.json.metadata, { [longKey]: 'x', order: 'ก'.repeat(166) });
  const seqBefore = s.running.store.world.lastSeq;
  for (const [metadata, path] of [
    [{ ['k'.repeat(501)]: 'x' }, 'metadata'],
    [{ order: 'ก'.repeat(167) }, 'metadata.order'], // 501 bytes in UTF-8
    [Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])), 'metadata'],
  ] as const) {
    const bad = await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 7_500, metadata }), { idempotencyKey: randomUUID() });
    const fields = expectError(bad, 'validation_error').details.fields as { path: string }[];
    assert.ok(fields.some((f) => f.path === path), bad.text);
  }
  assert.is(s.running.store.world.lastSeq, seqBefore, 'nothing written');
});

test('names hold something to read: blank, invisible or filler-only names and control characters are refused, nothing written', async () => {
  const before = await journalRows(s);
  for (const blank of ['   ', '\u3164\u3164', '\u2800', '\u0301', '\u0e31']) { // zero-width spaces are refused as such (below)
    const r = await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 7_200, sender: { ...(depositBody().sender as object), account_name_th: blank } }), { idempotencyKey: randomUUID() });
    const fields = expectError(r, 'validation_error').details.fields.map((f: { path: string; reason: string }) => `${f.path} ${f.reason}`);
    assert.equal(fields, ['sender.account_name_th blank'], JSON.stringify(blank));
  }
  for (const [name, reason] of [['Shop\tName', 'pattern'], ['Line\nbreak', 'pattern'], ['a\u2028b', 'pattern'], ['a\u2029b', 'pattern'], ['Sh\u00adop', 'pattern'], ['Sh\u200bop', 'pattern'], ['Sh\u2060op', 'pattern'], ['\ufeffShop', 'pattern'], [' ', 'blank']] as const) {
    const r = await s.bo('POST', '/v1/bo/merchants', { white_label_id: shop.whiteLabelId, name });
    assert.equal([r.status, r.json.error?.details?.fields?.map((f: { path: string; reason: string }) => `${f.path} ${f.reason}`)], [422, [`name ${reason}`]], JSON.stringify(name));
  }
  const blankReason = await s.bo('POST', `/v1/bo/merchants/${shop.id}/adjustments`, { livemode: true, amount_minor: 100, direction: 'credit', bucket: 'available', reason: '   ' }, { stepUp: true });
  assert.equal([blankReason.status, blankReason.json.error?.details?.fields?.[0]?.reason], [422, 'blank'], "an adjustment's note holds something to read");
  assert.is(await journalRows(s), before, 'nothing written');
});

test('references take no white space at either end: "order-1 " would be a second reference reading as "order-1", one the back office search (which trims) never finds; an operator\'s sender neither; nothing written', async () => {
  const before = await journalRows(s);
  const cases: [string, Record<string, unknown>, string][] = [
    ['/v1/pay/deposits', depositBody({ amount_minor: 7_100, merchant_reference: 'order-1 ' }), 'merchant_reference'],
    ['/v1/pay/deposits', depositBody({ amount_minor: 7_100, merchant_reference: ' order-1' }), 'merchant_reference'],
    ['/v1/pay/deposits', depositBody({ amount_minor: 7_100, merchant_reference: 'order-1\u00a0' }), 'merchant_reference'], // a no-break space pasted from a page
    ['/v1/pay/deposits', depositBody({ amount_minor: 7_100, end_user_ref: '   ' }), 'end_user_ref'],
    ['/v1/pay/withdrawals', withdrawalBody(payerBen, { merchant_reference: 'payout-1\u3000' }), 'merchant_reference'],
  ];
  for (const [path, body, field] of cases) {
    const r = await s.call(payer.live.api_key, 'POST', path, body, { idempotencyKey: randomUUID() });
    const e = expectError(r, 'validation_error');
    assert.equal(e.details.fields.map((f: { path: string; reason: string }) => `${f.path} ${f.reason}`), [`${field} spaces_around`], JSON.stringify(body[field]));
    assert.match(e.details.fields[0].hint, /must not begin or end with white space/);
  }
  expectError(await s.call(payer.live.api_key, 'GET', '/v1/pay/senders?end_user_ref=user-1%20'), 'validation_error');
  // Nor does an operator register a sender under a ref no deposit could carry: no one could use it.
  for (const [endUserRef, reason] of [['user-1 ', 'spaces_around'], ['user\u202e1', 'pattern']] as const) {
    const sender = await s.bo('POST', `/v1/bo/merchants/${payer.id}/senders`, { livemode: true, end_user_ref: endUserRef, bank_code: '014', account_number: '1112223334', account_name_th: 'สมชาย ใจดี' });
    assert.equal([sender.status, sender.json.error?.details?.fields?.map((f: { path: string; reason: string }) => `${f.path} ${f.reason}`)], [422, [`end_user_ref ${reason}`]], JSON.stringify(endUserRef));
  }
  assert.is(await journalRows(s), before, 'nothing written');
  const inside = await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 7_100, merchant_reference: 'order 1 of 2' }), { idempotencyKey: randomUUID() });
  assert.ok(inside.status === 201 || inside.status === 202, `white space inside a reference is part of it: ${inside.text}`);
});

test('every list refuses a bad limit with the same reasons: format, minimum, maximum', async () => {
  const reasonOf = async (r: Promise<{ status: number; json: any; text: string }>) => {
    const reply = await r;
    assert.is(reply.status, 422, reply.text);
    return reply.json.error.details.fields.map((f: { path: string; reason: string }) => `${f.path} ${f.reason}`).join();
  };
  const lists: [string, (limit: string) => Promise<{ status: number; json: any; text: string }>][] = [
    ['deposits', (limit) => s.call(shop.live.api_key, 'GET', `/v1/pay/deposits?limit=${limit}`)],
    ['withdrawals', (limit) => s.call(shop.live.api_key, 'GET', `/v1/pay/withdrawals?limit=${limit}`)],
    ['events', (limit) => s.call(shop.live.api_key, 'GET', `/v1/pay/events?since_sequence=0&limit=${limit}`)],
    ['balance history', (limit) => s.call(shop.live.api_key, 'GET', `/v1/pay/balance/transactions?limit=${limit}`)],
    ['back-office review queue', (limit) => s.bo('GET', `/v1/bo/deposits?status=under_review&limit=${limit}`)],
    ['webhook deliveries', async (limit) => {
      const endpoints = (await s.bo('GET', `/v1/bo/merchants/${shop.id}/webhook-endpoints`)).json.data;
      const id = endpoints[0]?.id ?? (await s.bo('POST', `/v1/bo/merchants/${shop.id}/webhook-endpoints`, { url: 'https://hooks.example.com/limits', livemode: true })).json.id;
      return s.bo('GET', `/v1/bo/webhooks/${id}/deliveries?limit=${limit}`);
    }],
  ];
  for (const [name, list] of lists) {
    assert.equal([await reasonOf(list('0')), await reasonOf(list('100000')), await reasonOf(list('ten')), await reasonOf(list('01'))],
      ['query.limit minimum', 'query.limit maximum', 'query.limit format', 'query.limit format'], name);
  }
  const unpaged = await s.bo('GET', `/v1/bo/merchants/${shop.id}/webhook-endpoints?limit=ten`);
  assert.equal([unpaged.status, unpaged.json.error?.details?.fields?.[0]?.path], [422, 'query.limit'], 'a list without paging refuses the parameter rather than ignore it');
});

test('a webhook endpoint with a misspelt event type is refused (validation_error, enum) and nothing is created', async () => {
  const listed = async () => (await s.bo('GET', `/v1/bo/merchants/${shop.id}/webhook-endpoints`)).json.data.length;
  const before = await listed();
  const r = await s.bo('POST', `/v1/bo/merchants/${shop.id}/webhook-endpoints`, { url: 'https://hooks.example.com/typo', livemode: true, event_types: ['deposit.settled', 'deposit.setled'] });
  expectError(r, 'validation_error', covered);
  assert.equal([r.json.error.details.fields[0].path, r.json.error.details.fields[0].reason], ['event_types.1', 'enum']);
  assert.match(r.json.error.details.fields[0].hint, /deposit\.settled/);
  assert.is(await listed(), before);
});

test('sender_required: neither sender nor sender_id, and no order', async () => {
  const before = await journalRows(s);
  expectError(await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ sender: undefined })), 'sender_required', covered);
  assert.is(await journalRows(s), before, 'no order');
});

test('amount_not_supported: not round or outside limits; details.min_minor/max_minor', async () => {
  for (const amount of [2_050, 1_000, 20_000_100]) {
    const e = expectError(await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: amount })), 'amount_not_supported', covered);
    assert.is(e.details.min_minor, 2_000);
    assert.is(e.details.max_minor, 20_000_000);
  }
  const w = expectError(await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(payerBen, { amount_minor: 0 }), { idempotencyKey: randomUUID() }), 'amount_not_supported');
  assert.type(w.details.min_minor, 'number');
  assert.type(w.details.max_minor, 'number');
});

test('insufficient_balance: 402 with available, required and pending clearing', async () => {
  // The shop's own settled deposit leaves its money in pending_clearing for 72 hours.
  const ben = await s.beneficiary(payer.id, true, '2223334445');
  const w = await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben, { amount_minor: 100_000 }), { idempotencyKey: randomUUID() });
  assert.is(w.status, 201, w.text);
  const d = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 100_000, fill_preference: 'internal_only' }));
  assert.is(d.status, 201, d.text);
  await payFirstLeg(s, d.json.id);
  const settled = await s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${d.json.id}`);
  assert.is(settled.json.status, 'settled', settled.text);
  const shopBen = await s.beneficiary(shop.id);
  const before = await journalRows(s);
  const r = await s.call(shop.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(shopBen, { amount_minor: 50_000 }), { idempotencyKey: randomUUID() });
  const e = expectError(r, 'insufficient_balance', covered);
  assert.is(e.details.available_minor, 0);
  assert.is(e.details.required_minor, 50_000 + 1_070);
  assert.ok(e.details.pending_clearing_minor > 0);
  assertTimestamp(e.details.pending_clearing_available_at, 'pending_clearing_available_at');
  assert.is(Date.parse(e.details.pending_clearing_available_at), s.clock.now() + 72 * 3600 * 1000);
  assert.is(await journalRows(s), before, 'no order, no lock');
});

test('resource_not_found and method_not_allowed: unknown ids and routes; a known path with another method', async () => {
  expectError(await s.call(shop.live.api_key, 'GET', '/v1/pay/deposits/dep_01ARZ3NDEKTSV4RRFFQ69G5FAV'), 'resource_not_found', covered);
  expectError(await s.call(shop.live.api_key, 'GET', '/v1/pay/withdrawals/wdr_01ARZ3NDEKTSV4RRFFQ69G5FAV'), 'resource_not_found');
  expectError(await s.call(shop.live.api_key, 'POST', '/v1/pay/disputes/dsp_nope/evidence', { text: 'receipt attached' }), 'resource_not_found');
  expectError(await s.call(shop.live.api_key, 'GET', '/v1/pay/no-such-route'), 'resource_not_found');
  // Another method on a known path (the router's 405) and a method nobody implements (its 501): 405 with Allow.
  const wrongMethod = await s.call(shop.live.api_key, 'DELETE', '/v1/pay/deposits');
  const e = expectError(wrongMethod, 'method_not_allowed', covered);
  assert.is(wrongMethod.headers.get('allow'), 'POST, HEAD, GET');
  assert.equal(e.details.allowed_methods, ['POST', 'HEAD', 'GET']);
  expectError(await s.call(shop.live.api_key, 'PROPFIND', '/v1/pay/deposits'), 'method_not_allowed');
  const options = await s.raw('OPTIONS', '/v1/pay/deposits');
  assert.equal([options.status, options.headers.get('allow'), options.text], [200, 'POST, HEAD, GET', ''], 'OPTIONS asks for Allow, and gets it (README)');
  expectError(await s.call(shop.live.api_key, 'PROPFIND', '/v1/pay/no-such-route'), 'resource_not_found');
  // A trailing slash names no resource: 404, saying so, rather than whatever the route's own checks make of it.
  const slash = expectError(await s.call(shop.live.api_key, 'GET', '/v1/pay/balance/'), 'resource_not_found');
  assert.match(slash.message, /trailing slash \(\/v1\/pay\/balance\)/);
  // A dot segment the client's URL parser collapsed (…/withdrawals/%2e%2e arrives as /v1/pay/):
  // no path without the slash names a resource, so no slash is blamed, only the path as it arrived.
  const collapsed = expectError(await s.call(shop.live.api_key, 'GET', '/v1/pay/withdrawals/%2e%2e'), 'resource_not_found');
  assert.is(collapsed.message, 'No such resource: the path as received is /v1/pay/.');
  const upload = await s.raw('POST', '/v1/pay/deposits/dep_01ARZ3NDEKTSV4RRFFQ69G5FAV/slip/', { headers: { 'Content-Type': 'multipart/form-data; boundary=x', Authorization: 'Bearer x' }, body: '--x--' });
  expectError(upload, 'resource_not_found');
  assert.is((await s.call(shop.live.api_key, 'GET', '/v1/pay/balance')).status, 200, 'the path without it answers');
});

// ---- idempotency ----

test('idempotency_key_reused: same key, different body; details.original_request_id', async () => {
  const key = randomUUID();
  const first = await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody(), { idempotencyKey: key });
  assert.is(first.status, 201, first.text);
  const e = expectError(await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody(), { idempotencyKey: key }), 'idempotency_key_reused', covered);
  assert.is(e.details.original_request_id, first.headers.get('request-id'));
});

test('idempotency_in_flight: identical requests while the first waits for the disk; retry after 1 s', async () => {
  const restore = slowDisk(s, 150);
  try {
    const body = JSON.stringify(depositBody());
    const key = randomUUID();
    const replies = await Promise.all(Array.from({ length: 8 }, () => s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', body, { idempotencyKey: key })));
    const inFlight = replies.filter((r) => r.status === 409);
    assert.ok(inFlight.length > 0, `some request met the key in flight: ${replies.map((r) => r.status)}`);
    for (const r of inFlight) {
      const e = expectError(r, 'idempotency_in_flight', covered);
      assert.is(e.retry_after_seconds, 1);
      assert.is(r.headers.get('retry-after'), '1');
    }
  } finally {
    restore();
  }
});

// ---- state conflicts ----

test('sender_bank_unavailable: an operator marks the sender bank down (ops_admin), and it is closed to new orders until marked up', async () => {
  const message = 'ธนาคารปิดปรับปรุงระบบ กรุณาใช้ธนาคารอื่น';
  assert.is((await s.bo('POST', '/v1/bo/banks/014/availability', { available: false }, { roles: ['support'] })).status, 403, 'ops_admin only');
  assert.is((await s.bo('POST', '/v1/bo/banks/999/availability', { available: false }, { roles: ['ops_admin'] })).status, 404, 'no such sending bank');
  assert.is((await s.bo('POST', '/v1/bo/banks/014/availability', { available: true, message_th: message }, { roles: ['ops_admin'] })).status, 422, 'a bank up takes no message');
  await setBankAvailability(s, '014', false, message);
  try {
    const banks = await s.call(shop.live.api_key, 'GET', '/v1/pay/banks');
    const bank = banks.json.data.find((b: { bank_code: string }) => b.bank_code === '014');
    assert.equal([bank.available, bank.message_th], [false, message]);
    const e = expectError(await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody()), 'sender_bank_unavailable', covered);
    assert.ok(Array.isArray(e.details.alternative_banks) && e.details.alternative_banks.length > 0);
    assert.not.ok(e.details.alternative_banks.includes('014'));
    assert.is(e.details.public_message_th, message);
    assert.type(e.details.retry_after_hint_seconds, 'number');
    // A live outage: the sandbox's banks are all up and its deposits go on (scenarios, certification).
    const sandboxBanks = await s.call(gw.sandbox.api_key, 'GET', '/v1/pay/banks');
    assert.is(sandboxBanks.json.data.find((b: { bank_code: string }) => b.bank_code === '014').available, true);
    const sandboxDeposit = await s.call(gw.sandbox.api_key, 'POST', '/v1/pay/deposits', depositBody());
    assert.ok(sandboxDeposit.status === 201 || sandboxDeposit.status === 202, sandboxDeposit.text);
  } finally {
    await setBankAvailability(s, '014', true);
  }
  assert.ok((await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody())).status < 300);
  // Down without a message: the operator's answer, the bank list and the 409 tell end users the same default.
  const down = await s.bo('POST', '/v1/bo/banks/014/availability', { available: false }, { roles: ['ops_admin'] });
  try {
    const listed = (await s.call(shop.live.api_key, 'GET', '/v1/pay/banks')).json.data.find((b: { bank_code: string }) => b.bank_code === '014');
    const refused = expectError(await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody()), 'sender_bank_unavailable', covered);
    assert.ok(typeof down.json.message_th === 'string' && down.json.message_th.length > 0, down.text);
    assert.equal([listed.message_th, refused.details.public_message_th], [down.json.message_th, down.json.message_th]);
  } finally {
    await setBankAvailability(s, '014', true);
  }
});

test('duplicate_open_deposit: same amount and sender already awaiting payment; details.open_deposit_ids', async () => {
  const user = `dup-${randomUUID().slice(0, 8)}`;
  const sender = freshSender();
  const first = await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ end_user_ref: user, amount_minor: 7_000, sender }));
  assert.is(first.status, 201, first.text);
  const e = expectError(await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ end_user_ref: user, amount_minor: 7_000, sender })), 'duplicate_open_deposit', covered);
  assert.equal(e.details.open_deposit_ids, [first.json.id]);
  // The rule is the sender and the amount, whoever the end user (their slips could not be told apart).
  const other = expectError(await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ end_user_ref: `${user}-b`, amount_minor: 7_000, sender })), 'duplicate_open_deposit');
  assert.equal(other.details.open_deposit_ids, [first.json.id]);
  const otherSender = await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ end_user_ref: `${user}-c`, amount_minor: 7_000 }));
  assert.is(otherSender.status, 201, otherSender.text);
});

test('too_many_open_deposits: 2 per end user with client{}, 1 without', async () => {
  const withClient = `cap2-${randomUUID().slice(0, 8)}`;
  for (const amount of [4_000, 4_100]) assert.ok((await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ end_user_ref: withClient, amount_minor: amount }))).status < 300);
  const e = expectError(await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ end_user_ref: withClient, amount_minor: 4_200 })), 'too_many_open_deposits', covered);
  assert.is(e.details.open_deposit_ids.length, 2);
  const noClient = `cap1-${randomUUID().slice(0, 8)}`;
  assert.ok((await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ end_user_ref: noClient, amount_minor: 4_000, client: undefined }))).status < 300);
  const e1 = expectError(await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ end_user_ref: noClient, amount_minor: 4_100, client: undefined })), 'too_many_open_deposits');
  assert.is(e1.details.open_deposit_ids.length, 1);
});

test('deposit_not_cancelable: already canceled, or a slip exists; details.status', async () => {
  const d = await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody());
  assert.is((await s.call(gw.live.api_key, 'POST', `/v1/pay/deposits/${d.json.id}/cancel`, {})).status, 200);
  const e = expectError(await s.call(gw.live.api_key, 'POST', `/v1/pay/deposits/${d.json.id}/cancel`, {}), 'deposit_not_cancelable', covered);
  assert.is(e.details.status, 'canceled');
  const paid = await s.call(gw.live.api_key, 'POST', '/v1/pay/deposits', depositBody());
  await receiveSlip(s, paid.json.id);
  const e2 = expectError(await s.call(gw.live.api_key, 'POST', `/v1/pay/deposits/${paid.json.id}/cancel`, {}), 'deposit_not_cancelable');
  assert.type(e2.details.status, 'string');
});

test('withdrawal_has_pending_fill: a deposit leg is in flight on the withdrawal', async () => {
  const ben = await s.beneficiary(payer.id, true, '3334445556');
  const w = await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben, { amount_minor: 300_000 }), { idempotencyKey: randomUUID() });
  assert.is(w.status, 201, w.text);
  const d = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 300_000, fill_preference: 'internal_only' }));
  assert.is(d.status, 201, d.text);
  const e = expectError(await s.call(payer.live.api_key, 'POST', `/v1/pay/withdrawals/${w.json.id}/cancel`, {}), 'withdrawal_has_pending_fill', covered);
  assert.is(e.details.reserved_minor, 300_000);
  // Once the leg is released the cancel goes through.
  assert.is((await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${d.json.id}/cancel`, {})).status, 200);
  assert.is((await s.call(payer.live.api_key, 'POST', `/v1/pay/withdrawals/${w.json.id}/cancel`, {})).status, 200);
});

test('withdrawal_not_cancelable: already canceled; details.status', async () => {
  const w = await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(payerBen), { idempotencyKey: randomUUID() });
  assert.is(w.status, 201, w.text);
  assert.is((await s.call(payer.live.api_key, 'POST', `/v1/pay/withdrawals/${w.json.id}/cancel`, {})).status, 200);
  const e = expectError(await s.call(payer.live.api_key, 'POST', `/v1/pay/withdrawals/${w.json.id}/cancel`, {}), 'withdrawal_not_cancelable', covered);
  assert.is(e.details.status, 'canceled');
});

test('beneficiary_not_verified: an inline account never verified, and a registered one still pending', async () => {
  const before = await journalRows(s);
  const inline = { bank_code: '004', account_number: '9990001112', account_name_th: 'สมศรี มีสุข' };
  const body = withdrawalBody('', { beneficiary: inline });
  delete body.beneficiary_id;
  expectError(await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', body, { idempotencyKey: randomUUID() }), 'beneficiary_not_verified', covered);
  assert.is(await journalRows(s), before, 'no order, no lock');
  const registered = await s.call(payer.live.api_key, 'POST', '/v1/pay/beneficiaries', inline);
  assert.is(registered.status, 201, registered.text);
  assert.is(registered.json.status, 'pending_verification');
  const e = expectError(await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(registered.json.id), { idempotencyKey: randomUUID() }), 'beneficiary_not_verified');
  assert.is(e.details.beneficiary_id, registered.json.id);
});

test('operation_not_allowed: slip-token before a destination exists; evidence on a resolved dispute', async () => {
  const waiting = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 9_000_000, fill_preference: 'internal_only' }));
  assert.is(waiting.status, 202, waiting.text);
  const e = expectError(await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${waiting.json.id}/slip-token`), 'operation_not_allowed', covered);
  assert.is(e.details.status, 'awaiting_liquidity');
  assert.is(e.details.claim_url, undefined, 'nothing was paid to a destination yet: no claim to point to');
  assert.match(e.message, /only once the deposit has a destination; this one is awaiting_liquidity/);
  assert.is((await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${waiting.json.id}/cancel`, {})).status, 200);

  const ben = await s.beneficiary(payer.id, true, '4445556667');
  const w = await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben, { amount_minor: 60_000 }), { idempotencyKey: randomUUID() });
  const d = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 60_000, fill_preference: 'internal_only' }));
  assert.is(d.status, 201, d.text);
  await payFirstLeg(s, d.json.id);
  // Settled: the order still takes a slip (a transfer after settlement), so a merchant that
  // did not keep the creation token gets a new one; a reversed or rejected order gets none.
  const afterSettled = await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${d.json.id}/slip-token`);
  assert.is(afterSettled.status, 200, afterSettled.text);
  assert.is(afterSettled.json.upload_url, d.json.slip_upload.upload_url);
  // Reversed (the bank recalled it): final, no slip token; the message says so and where a payer who paid again goes.
  const other = await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(await s.beneficiary(payer.id, true, '4445556668'), { amount_minor: 20_000 }), { idempotencyKey: randomUUID() });
  assert.is(other.status, 201, other.text);
  const recalled = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 20_000, fill_preference: 'internal_only', end_user_ref: 'recalled-payer' }));
  assert.is(recalled.status, 201, recalled.text);
  await payFirstLeg(s, recalled.json.id);
  const reversed = await s.bo('POST', `/v1/bo/deposits/${recalled.json.id}/reverse`, { reason_code: 'BANK_RECALL', note: 'the sending bank recalled the transfer' }, { stepUp: true });
  assert.is(reversed.status, 200, reversed.text);
  const final = expectError(await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${recalled.json.id}/slip-token`), 'operation_not_allowed');
  assert.match(final.message, /is reversed and takes no more slips/);
  assert.equal([final.details.status, typeof final.details.claim_url], ['reversed', 'string']);
  const disputeId = await openDispute(s, w.json.id, 60_000n);
  const ok = await s.call(payer.live.api_key, 'POST', `/v1/pay/disputes/${disputeId}/evidence`, { text: 'The payee confirmed receipt by phone.' });
  assert.is(ok.status, 200, ok.text);
  await resolveDispute(s, disputeId);
  const late = await s.call(payer.live.api_key, 'POST', `/v1/pay/disputes/${disputeId}/evidence`, { text: 'More evidence after the fact.' });
  expectError(late, 'operation_not_allowed');
});

// ---- the Live P2P profile ----

test('amount_below_p2p_minimum and feature_not_enabled in the live_p2p profile', async () => {
  const m = await p2p.onboard('P2P shop');
  await p2p.fund(m.id, 1_000_000);
  const ben = await p2p.beneficiary(m.id);
  const low = await p2p.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben, { amount_minor: 5_000 }), { idempotencyKey: randomUUID() });
  const e = expectError(low, 'amount_below_p2p_minimum', covered);
  assert.is(e.details.min_minor, 10_000);
  const okay = await p2p.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben, { amount_minor: 10_000 }), { idempotencyKey: randomUUID() });
  assert.is(okay.status, 201, okay.text);
  assert.is(okay.json.status, 'pending_approval');

  expectError(await p2p.call(m.live.api_key, 'GET', '/v1/pay/quote?channel=withdrawal&amount_minor=10000'), 'feature_not_enabled', covered);
  expectError(await p2p.call(m.live.api_key, 'POST', '/v1/pay/beneficiaries', { bank_code: '004', account_number: '1231231234', account_name_th: 'ทดสอบ ระบบ' }), 'feature_not_enabled');
  expectError(await p2p.call(m.live.api_key, 'GET', `/v1/pay/beneficiaries/${ben}`), 'feature_not_enabled');
  const inline = withdrawalBody('', { beneficiary: { bank_code: '004', account_number: '1234567890', account_name_th: 'สมหญิง รักดี' } });
  delete inline.beneficiary_id;
  expectError(await p2p.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', inline, { idempotencyKey: randomUUID() }), 'feature_not_enabled');
  const quote = await s.call(shop.live.api_key, 'GET', '/v1/pay/quote?channel=withdrawal&amount_minor=10000');
  assert.is(quote.status, 200, 'the wide profile quotes');
  for (const amount of [0, 9_999]) {
    const below = expectError(await s.call(shop.live.api_key, 'GET', `/v1/pay/quote?channel=withdrawal&amount_minor=${amount}`), 'amount_not_supported');
    assert.is(below.details.min_minor, 10_000, 'no fee is quoted for an amount creation refuses');
  }
  // read as the digits say, or not at all: no leading zero (as limit= and since_sequence=), no sign
  for (const amount of ['010000', '+10000', '1e4', '10000.0']) {
    const e = expectError(await s.call(shop.live.api_key, 'GET', `/v1/pay/quote?channel=withdrawal&amount_minor=${encodeURIComponent(amount)}`), 'validation_error');
    assert.is(e.details.fields[0].path, 'query.amount_minor', amount);
  }
});

// ---- rate limits (a dedicated server, so the buckets start full) ----

/**
 * A server of its own for a rate-limit test, its load meter stopped at no lag: these tests
 * fire hundreds of requests at once to spend a quota, and on a loaded machine the meter's
 * reading could pass the shedding threshold and answer 503 before the quota is spent (seen
 * in a run beside other work). Shedding has its own spec (load-shedding.int).
 */
async function rateLimitServer(): Promise<TestServer> {
  const server = await TestServer.start();
  server.running.loadMeter.stop();
  server.running.loadMeter.recentLagMs = 0;
  return server;
}

test('rate_limited: pay_read exhausted after 1200 reads; headers on every answer; per api_key', async () => {
  const rl = await rateLimitServer();
  try {
    const m = await rl.onboard('Busy');
    const other = await rl.onboard('Quiet', m.whiteLabelId);
    const remaining: number[] = [];
    for (let batch = 0; batch < 24; batch++) {
      const replies = await Promise.all(Array.from({ length: 50 }, () => rl.call(m.live.api_key, 'GET', '/v1/pay/banks')));
      for (const r of replies) {
        assert.is(r.status, 200);
        assert.is(r.headers.get('ratelimit-limit'), '1200');
        assert.is(r.headers.get('ratelimit-policy'), '1200;w=60');
        assert.is(r.headers.get('x-ratelimit-scope'), 'pay_read');
        const reset = Number(r.headers.get('ratelimit-reset'));
        assert.ok(reset >= 1 && reset <= 60, 'RateLimit-Reset within the window');
        remaining.push(Number(r.headers.get('ratelimit-remaining')));
      }
    }
    assert.equal(remaining.sort((a, b) => a - b), Array.from({ length: 1200 }, (_, i) => i), 'each read took one unit');
    const refused = await rl.call(m.live.api_key, 'GET', '/v1/pay/banks');
    const e = expectError(refused, 'rate_limited', covered);
    assert.equal(e.details, { bucket: 'pay_read', scope: 'api_key' });
    // The window opened at the first read, on the wall clock: what is left of its 60 s.
    assert.ok(e.retry_after_seconds >= 1 && e.retry_after_seconds <= 60, `retry after ${e.retry_after_seconds} s`);
    assert.is(refused.headers.get('retry-after'), String(e.retry_after_seconds));
    assert.is(refused.headers.get('ratelimit-remaining'), '0');
    assert.is(refused.headers.get('x-ratelimit-scope'), 'pay_read');
    // The request log keeps a known key's 429 under its merchant and key: who is being throttled.
    const throttled = (await rl.bo('GET', `/v1/bo/logs?merchant_id=${m.id}&status=429`, undefined, { roles: ['support'] })).json.data as any[];
    assert.ok(throttled.some((r) => r.request_id === refused.headers.get('request-id') && r.key_id === m.live.key_id), JSON.stringify(throttled).slice(0, 400));
    // Balance history's 429 says Retry-After 60 (the contract's figure), whatever is left of the window.
    rl.securityClock.advance(20_000);
    const history = await rl.call(m.live.api_key, 'GET', '/v1/pay/balance/transactions');
    assert.equal([expectError(history, 'rate_limited').retry_after_seconds, history.headers.get('retry-after')], [60, '60']);
    const banks = expectError(await rl.call(m.live.api_key, 'GET', '/v1/pay/banks'), 'rate_limited');
    assert.ok(banks.retry_after_seconds <= 40, `elsewhere what is left of the window: ${banks.retry_after_seconds} s`);
    assert.is((await rl.call(other.live.api_key, 'GET', '/v1/pay/banks')).status, 200, 'another key has its own bucket');
    const write = await rl.call(m.live.api_key, 'POST', '/v1/pay/deposits/dep_nope/cancel', {});
    assert.is(write.status, 404, 'writes draw on pay_write');
    assert.is(write.headers.get('x-ratelimit-scope'), 'pay_write');
    rl.clock.advance(60_000);
    expectError(await rl.call(m.live.api_key, 'GET', '/v1/pay/banks'), 'rate_limited'); // business time does not reopen the window
    rl.securityClock.advance(40_000);
    assert.is((await rl.call(m.live.api_key, 'GET', '/v1/pay/banks')).status, 200, 'a new window after 60 s of wall time');
    const head = await rl.call(m.live.api_key, 'HEAD', '/v1/pay/banks');
    assert.is(head.status, 200);
    assert.is(head.headers.get('x-ratelimit-scope'), 'pay_read', 'HEAD is a read');
    assert.is(head.headers.get('ratelimit-remaining'), '1198');
  } finally {
    await rl.stop();
  }
});

test("a key over its quota that is then revoked is 401 api_key_revoked, not 429; a suspended account's key 403 tenant_suspended; neither spends the key's quota", async () => {
  const rl = await rateLimitServer();
  try {
    const leaked = await rl.onboard('Leaked');
    const frozen = await rl.onboard('Frozen', leaked.whiteLabelId);
    const write = (key: string) => rl.call(key, 'POST', '/v1/pay/deposits/dep_nope/cancel', {});
    const spend = async (key: string, count: number) => {
      for (let done = 0; done < count; done += 50) {
        for (const r of await Promise.all(Array.from({ length: Math.min(50, count - done) }, () => write(key)))) assert.is(r.status, 404, r.text);
      }
    };
    const quota = rateLimitPolicies.pay_write.limit;
    await spend(leaked.live.api_key, quota);
    assert.equal(expectError(await write(leaked.live.api_key), 'rate_limited').details, { bucket: 'pay_write', scope: 'api_key' });
    assert.is((await rl.bo('POST', `/v1/bo/keys/${leaked.live.key_id}/revoke`, {}, { stepUp: true })).status, 200);
    for (let i = 0; i < 3; i++) expectError(await write(leaked.live.api_key), 'api_key_revoked');

    const suspend = async (suspended: boolean) => {
      const r = await rl.bo('POST', `/v1/bo/merchants/${frozen.id}/${suspended ? 'suspend' : 'unsuspend'}`, suspended ? { reason: 'inquiry' } : {}, { stepUp: true });
      assert.is(r.status, 200, r.text);
    };
    await suspend(true);
    for (let i = 0; i < 3; i++) expectError(await write(frozen.live.api_key), 'tenant_suspended');
    await suspend(false);
    const first = await write(frozen.live.api_key);
    assert.is(first.headers.get('ratelimit-remaining'), String(quota - 1), 'the refused requests spent none of the key\'s quota');
    await spend(frozen.live.api_key, quota - 1);
    expectError(await write(frozen.live.api_key), 'rate_limited');
    await suspend(true);
    expectError(await write(frozen.live.api_key), 'tenant_suspended');
  } finally {
    await rl.stop();
  }
});

test('rate_limited: the public webhook support routes carry the headers too, limited per client address (public_read, 600 a minute)', async () => {
  const rl = await rateLimitServer();
  try {
    for (const path of ['/v1/webhooks/signing-keys', '/v1/webhooks/test-vectors']) {
      const r = await rl.raw('GET', path);
      assert.is(r.status, 200, path);
      assert.equal([r.headers.get('ratelimit-policy'), r.headers.get('x-ratelimit-scope'), r.headers.get('ratelimit-limit')], ['600;w=60', 'public_read', '600'], path);
    }
    for (let batch = 0; batch < 12; batch++) {
      const replies = await Promise.all(Array.from({ length: 50 }, () => rl.raw('GET', '/v1/webhooks/signing-keys')));
      for (const r of replies) if (r.status !== 200) assert.is(r.status, 429);
    }
    const refused = await rl.raw('GET', '/v1/webhooks/test-vectors');
    const e = expectError(refused, 'rate_limited');
    assert.equal(e.details, { bucket: 'public_read', scope: 'ip' });
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  } finally {
    await rl.stop();
  }
});

test('paths are case-sensitive: a signed /V1/PAY/… or /v1/Bo/… reaches no route (it would pass by the rate limits and load shedding), 404 and nothing written', async () => {
  const before = await journalRows(s);
  for (const [method, path] of [['GET', '/V1/PAY/balance'], ['POST', '/V1/PAY/deposits'], ['POST', '/v1/Pay/deposits'], ['GET', '/v1/pay/Deposits'], ['GET', '/V1/WEBHOOKS/signing-keys']] as const) {
    const r = await s.call(gw.live.api_key, method, path, method === 'POST' ? depositBody({ amount_minor: 7_100 }) : undefined, method === 'POST' ? { idempotencyKey: randomUUID() } : {});
    assert.is(r.status, 404, `${method} ${path}: ${r.text}`);
    assert.is(r.json.error.code, 'resource_not_found');
  }
  const bo = await s.bo('GET', '/V1/BO/clock');
  assert.is(bo.status, 404, bo.text);
  assert.is(await journalRows(s), before, 'nothing written');
  const lower = await s.call(gw.live.api_key, 'GET', '/v1/pay/balance');
  assert.is(lower.status, 200, 'the lowercase path answers, with its rate-limit headers');
  assert.ok(lower.headers.get('ratelimit-remaining') !== null);
});

test('strangers are limited per network, apart from the keys: made-up keys get 429 after the quota, their refusals are not each logged, and a merchant keeps its window', async () => {
  const rl = await rateLimitServer();
  try {
    const m = await rl.onboard('Keeps its window');
    for (let i = 0; i < 3; i++) assert.is((await rl.call(m.live.api_key, 'GET', '/v1/pay/balance')).status, 200);
    const statuses: number[] = [];
    for (let batch = 0; batch < 13; batch++) {
      const replies = await Promise.all(Array.from({ length: 100 }, () => rl.raw('GET', '/v1/pay/balance', { headers: { Authorization: `Bearer sk_live_${randomUUID()}` } })));
      statuses.push(...replies.map((r) => r.status));
    }
    assert.equal([statuses.filter((x) => x === 401).length, statuses.filter((x) => x === 429).length], [1_200, 100], 'one quota for the network, whatever key it makes up');
    const own = await rl.call(m.live.api_key, 'GET', '/v1/pay/balance');
    assert.is(own.status, 200, own.text);
    assert.is(own.headers.get('ratelimit-remaining'), '1196', "the merchant's own window, untouched");
    // The request log is written by its own thread: wait for the 401s, then look for the 429s.
    const rows = async (status: number) => (await rl.bo('GET', `/v1/bo/logs?status=${status}&limit=100`, undefined, { roles: ['support'] })).json.data.length as number;
    for (let i = 0; i < 100 && (await rows(401)) < 100; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.is(await rows(401), 100, 'the answered requests are kept');
    assert.is(await rows(429), 0, "a stranger's refusals are counted, not each kept");
    const lower = await rl.raw('GET', '/v1/pay/balance', { headers: { Authorization: `bearer ${m.live.api_key}` } });
    assert.is(lower.status, 401, 'the scheme is read in any case: an unsigned request with a real key gets to the signature check');
    assert.not.equal(lower.json.error.code, 'api_key_invalid');
  } finally {
    await rl.stop();
  }
});

test('strangers on any path: a network whose requests without an identity keep being refused gets 429 after 1,200 of them, unlogged; a merchant key on that network is not held up', async () => {
  const rl = await rateLimitServer();
  try {
    const m = await rl.onboard('Shares the network');
    const statuses: number[] = [];
    const paths = ['/v1/nothing', '/v1/pay/withdrawals/x/slip', '/v1/bo/merchants'];
    for (let batch = 0; batch < 13; batch++) {
      const replies = await Promise.all(Array.from({ length: 100 }, (_, i) => {
        const path = paths[i % paths.length]!;
        return rl.raw(path === '/v1/nothing' ? 'GET' : 'POST', path, { headers: { Authorization: `Bearer junk-${i}`, 'Content-Type': 'application/json' }, body: path === '/v1/nothing' ? undefined : '{}' } as never);
      }));
      statuses.push(...replies.map((r) => r.status));
    }
    assert.is(statuses.filter((x) => x === 429).length, 100, `1,200 refusals answered, then 429: ${JSON.stringify(Object.fromEntries([...new Set(statuses)].map((x) => [x, statuses.filter((y) => y === x).length])))}`);
    const own = await rl.call(m.live.api_key, 'GET', '/v1/pay/balance');
    assert.is(own.status, 200, "a merchant's key is not held up by strangers on its network");
    // Nor is a health checker behind the same address: the probes answer anyone.
    assert.equal([(await rl.raw('GET', '/healthz')).status, (await rl.raw('GET', '/readyz')).status], [200, 200]);
    assert.is((await rl.raw('GET', '/v1/nothing')).status, 429, 'the network is still held up elsewhere');
    const rows = async (status: number) => (await rl.bo('GET', `/v1/bo/logs?status=${status}&limit=100`, undefined, { roles: ['support'] })).json.data.length as number;
    for (let i = 0; i < 100 && (await rows(404)) < 100; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok((await rows(404)) > 0, 'the answered refusals are kept');
    assert.is(await rows(429), 0, "the strangers' 429s are counted, not each kept");
    const actions = (await rl.bo('GET', '/v1/bo/reports/action-logs?route=/v1/bo/merchants&limit=200', undefined, { roles: ['finance'] })).json.data as { status: number; outcome: string }[];
    assert.ok(actions.some((a) => a.status === 401 && a.outcome === 'refused_authentication'), 'each refused authentication before the quota is in the action log');
    assert.is(actions.filter((a) => a.status === 429).length, 0, "nor do the strangers' 429s grow the action log (journal.db)");
  } finally {
    await rl.stop();
  }
});

test("a merchant's own 429s are not strangers': a key over its pay_read quota does not spend its network's strangers' quota", async () => {
  const rl = await rateLimitServer();
  try {
    const m = await rl.onboard('Polls too hard');
    const own: number[] = [];
    for (let batch = 0; batch < 13; batch++) {
      const replies = await Promise.all(Array.from({ length: 100 }, () => rl.call(m.live.api_key, 'GET', '/v1/pay/balance')));
      own.push(...replies.map((r) => r.status));
    }
    assert.equal([own.filter((x) => x === 200).length, own.filter((x) => x === 429).length], [1_200, 100], 'the key\'s own quota');
    // 1,150 refusals without an identity: under the strangers' 1,200 unless the key's 100 429s counted.
    const strangers: number[] = [];
    for (let batch = 0; batch < 23; batch++) {
      const replies = await Promise.all(Array.from({ length: 50 }, () => rl.raw('GET', '/v1/nothing')));
      strangers.push(...replies.map((r) => r.status));
    }
    assert.is(strangers.filter((x) => x === 429).length, 0, 'the network is not locked out by its merchant\'s quota');
    assert.is((await rl.raw('GET', '/v1/webhooks/signing-keys')).status, 200, 'a receiver on that network still fetches the signing keys');
    // An operator's own refusals (paths that do not exist) are someone known's too.
    const token = await rl.operatorToken('emp_lost', false, ['support']);
    const lost: number[] = [];
    for (let batch = 0; batch < 5; batch++) {
      const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => rl.raw('GET', `/v1/bo/nothing-${batch}-${i}`, { headers: { Authorization: `Bearer ${token}` } })));
      lost.push(...replies.map((r) => r.status));
    }
    assert.ok(lost.every((x) => x === 404), `the operator's 404s: ${[...new Set(lost)]}`);
    assert.is((await rl.raw('GET', '/healthz')).status, 200, "an operator's 404s do not spend the network's strangers' quota");
  } finally {
    await rl.stop();
  }
});

test('rate_limited: pay_write exhausted after 600 writes; a 429 does not consume the Idempotency-Key', async () => {
  const rl = await rateLimitServer();
  try {
    const m = await rl.onboard('Busy writer');
    for (let batch = 0; batch < 12; batch++) {
      const replies = await Promise.all(Array.from({ length: 50 }, () => rl.call(m.live.api_key, 'POST', '/v1/pay/deposits/dep_nope/cancel', {})));
      for (const r of replies) {
        assert.is(r.status, 404);
        assert.is(r.headers.get('ratelimit-policy'), '600;w=60');
        assert.is(r.headers.get('x-ratelimit-scope'), 'pay_write');
        assert.ok(r.headers.get('ratelimit-remaining') !== null && r.headers.get('ratelimit-reset') !== null);
      }
    }
    const key = randomUUID();
    const body = JSON.stringify(depositBody());
    const before = await journalRows(rl);
    const refused = await rl.call(m.live.api_key, 'POST', '/v1/pay/deposits', body, { idempotencyKey: key });
    const e = expectError(refused, 'rate_limited');
    assert.equal(e.details, { bucket: 'pay_write', scope: 'api_key' });
    assert.is(await journalRows(rl), before, 'nothing written');
    rl.securityClock.advance(60_000);
    const created = await rl.call(m.live.api_key, 'POST', '/v1/pay/deposits', body, { idempotencyKey: key });
    assert.is(created.status, 202, created.text);
    assert.is(created.headers.get('idempotent-replay'), null, 'a fresh answer, not a replay of the 429');
    const replay = await rl.call(m.live.api_key, 'POST', '/v1/pay/deposits', body, { idempotencyKey: key });
    assert.is(replay.headers.get('idempotent-replay'), 'true');
    assert.is(replay.text, created.text);
    // The sandbox's /v1/test routes are merchant routes: the key's buckets, their headers on every answer.
    for (const [key, method, path, bucket] of [
      [m.sandbox.api_key, 'GET', '/v1/test/certification', 'pay_read'], [m.live.api_key, 'POST', '/v1/test/sandbox/reset', 'pay_write'],
      [m.sandbox.api_key, 'POST', '/v1/test/webhooks/replay-out-of-order', 'pay_write'],
    ] as const) {
      const r = await rl.call(key, method, path, method === 'POST' ? {} : undefined);
      assert.ok(r.status >= 400, `${path}: ${r.status}`);
      assert.is(r.headers.get('x-ratelimit-scope'), bucket, `${method} ${path}`);
      assert.ok(r.headers.get('ratelimit-policy') && r.headers.get('ratelimit-remaining') !== null && r.headers.get('ratelimit-reset') !== null, path);
    }
  } finally {
    await rl.stop();
  }
});

// ---- balance history (served from the projections) ----

test('invalid_cursor: since_sequence ahead of the checkpoint; details.checkpoint_sequence', async () => {
  const e = expectError(await s.call(payer.live.api_key, 'GET', '/v1/pay/balance/transactions?since_sequence=9223372036854775807'), 'invalid_cursor', covered);
  assert.match(e.details.checkpoint_sequence, /^[0-9]+$/);
});

test('history_not_ready and sandbox_balance_history_not_ready: the projection lags the ledger (relay held)', async () => {
  const relay = s.running.readSide.relay;
  await relay.stop();
  try {
    await s.fund(payer.id, 1_000);
    await s.fund(payer.id, 1_000, false);
    const live = expectError(await s.call(payer.live.api_key, 'GET', '/v1/pay/balance/transactions'), 'history_not_ready', covered);
    assert.is(live.retry_after_seconds, 1);
    const sandbox = await s.call(payer.sandbox.api_key, 'GET', '/v1/pay/balance/transactions');
    expectError(sandbox, 'sandbox_balance_history_not_ready', covered);
    assert.is(sandbox.headers.get('retry-after'), null);
  } finally {
    relay.start();
  }
});

test('sandbox_run_changed: a cursor of an earlier run; details.current_run_generation; a run not yet begun is a bad parameter', async () => {
  const m = await s.onboard('Sandbox rerun', payer.whiteLabelId);
  const future = expectError(await s.call(m.sandbox.api_key, 'GET', '/v1/pay/balance/transactions?since_sequence=1&run_generation=9'), 'validation_error');
  assert.equal(future.details.fields[0], { path: 'query.run_generation', reason: 'maximum', hint: 'at most 1, the current run' });
  assert.is((await s.call(m.sandbox.api_key, 'POST', '/v1/test/sandbox/reset', {})).status, 200);
  const e = expectError(await s.call(m.sandbox.api_key, 'GET', '/v1/pay/balance/transactions?since_sequence=1&run_generation=1'), 'sandbox_run_changed', covered);
  assert.is(e.details.current_run_generation, 2);
});

test('sandbox_rate_limited: the sandbox history quota, without Retry-After', async () => {
  const m = await s.onboard('Sandbox reader', payer.whiteLabelId);
  let r = await s.call(m.sandbox.api_key, 'GET', '/v1/pay/balance/transactions');
  while (r.status === 200) r = await s.call(m.sandbox.api_key, 'GET', '/v1/pay/balance/transactions');
  expectError(r, 'sandbox_rate_limited', covered);
  assert.is(r.headers.get('retry-after'), null);
  // The key's read quota spent on other reads: a history request it refuses is the sandbox's 429 too, without Retry-After.
  const busy = await s.onboard('Sandbox poller', payer.whiteLabelId);
  let read = await s.call(busy.sandbox.api_key, 'GET', '/v1/pay/balance');
  while (read.status === 200) read = await s.call(busy.sandbox.api_key, 'GET', '/v1/pay/balance');
  assert.is(read.status, 429);
  const history = await s.call(busy.sandbox.api_key, 'GET', '/v1/pay/balance/transactions');
  assert.equal([history.status, history.json.error.code, history.json.error.details.bucket, history.headers.get('retry-after')], [429, 'sandbox_rate_limited', 'pay_read', null]);
});

test('sandbox_history_cursor_expired: a cursor below the 30-day retention; details.min_since_sequence', async () => {
  const old = await TestServer.start();
  try {
    const m = await old.onboard('Old shop');
    await old.fund(m.id, 1_000, false);
    await old.fund(m.id, 2_000, false);
    await old.running.services.write.advanceClock!(31 * 24 * 3600 * 1000);
    await old.fund(m.id, 3_000, false);
    const e = expectError(await old.call(m.sandbox.api_key, 'GET', '/v1/pay/balance/transactions?since_sequence=1&run_generation=1'), 'sandbox_history_cursor_expired', covered);
    assert.equal(e.details, { run_generation: 1, min_since_sequence: '2' });
  } finally {
    await old.stop();
  }
});

test('service_unavailable: a write the journal\'s disk refuses is a 503 to retry (never a 500), and nothing of it was recorded', async () => {
  const full = await TestServer.start();
  try {
    const m = await full.onboard('Full disk');
    await full.fund(m.id, 10_000_000);
    const ben = await full.beneficiary(m.id);
    full.running.store.journal.limitWriterPages(full.running.store.db.pragma('page_count', { simple: true }) as number);
    let refused: Awaited<ReturnType<TestServer['call']>> | undefined;
    const created: string[] = [];
    for (let i = 0; i < 200 && !refused; i++) {
      const r = await full.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben, { amount_minor: 10_000, merchant_reference: `full-${i}` }), { idempotencyKey: `full-disk-${i}` });
      if (r.status === 201) created.push(r.json.id);
      else refused = r;
    }
    assert.ok(refused, 'the disk filled up');
    const e = expectError(refused!, 'service_unavailable', covered);
    assert.equal([e.retryable, e.retry_after_seconds, refused!.headers.get('retry-after')], [true, 5, '5']);
    // Many at once on the full disk: those decided after a failed commit are refused unwritten
    // while the state is rebuilt — a 503 to retry as well, never a 500.
    const burst = await Promise.all(Array.from({ length: 24 }, (_, i) => full.call(m.live.api_key, 'POST', '/v1/pay/withdrawals',
      withdrawalBody(ben, { amount_minor: 10_000, merchant_reference: `burst-${i}` }), { idempotencyKey: `full-burst-${i}` })));
    for (const r of burst) {
      if (r.status === 201) { created.push(r.json.id); continue; }
      assert.equal([r.status, r.json.error?.code, r.json.error?.retryable], [503, 'service_unavailable', true], r.text);
    }
    // Readiness says so: a 503 whose details give the status and the failed commit.
    const ready = await full.raw('GET', '/readyz');
    assert.equal([ready.status, ready.json.error?.details?.status, ready.json.error?.details?.checks?.journal], [503, 'not_ready', 'commit_failed'], ready.text);
    full.running.store.journal.limitWriterPages(1_073_741_823);
    // Room again: the same key does it now, and every withdrawal answered 201 is there with its lock.
    const again = await full.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben, { amount_minor: 10_000, merchant_reference: `full-${created.length}` }), { idempotencyKey: `full-disk-${created.length}` });
    assert.is(again.status, 201, again.text);
    const balance = (await full.call(m.live.api_key, 'GET', '/v1/pay/balance')).json;
    assert.is(BigInt(balance.reserved_minor), BigInt(created.length + 1) * BigInt(10_000 + again.json.fee_total_minor), 'reserved holds exactly the withdrawals answered 201');
  } finally {
    await full.stop();
  }
});

// ---- the catalogue, closed ----

test('every catalogue code is covered above or listed as unreachable from the merchant routes, with a reason', () => {
  const codes = Object.keys(catalogue) as ErrorCode[];
  const missing = codes.filter((c) => !covered.has(c) && unreachableFromMerchantRoutes[c] === undefined);
  assert.equal(missing, [], `codes neither provoked nor explained: ${missing.join(', ')}`);
  const both = codes.filter((c) => covered.has(c) && unreachableFromMerchantRoutes[c] !== undefined);
  assert.equal(both, [], `covered yet listed as unreachable: ${both.join(', ')}`);
  for (const [code, reason] of Object.entries(unreachableFromMerchantRoutes)) {
    assert.ok(code in catalogue, `${code} is a catalogue code`);
    assert.ok(reason.length > 10, `${code} has a reason`);
  }
});

test('written text takes no control or direction characters (a reversed audit note), line breaks kept; a URL none at all', async () => {
  const adjust = (reason: string) => s.bo('POST', `/v1/bo/merchants/${shop.id}/adjustments`, { livemode: true, amount_minor: 100, direction: 'credit', bucket: 'available', reason }, { roles: ['ops_admin'], stepUp: true });
  for (const reason of ['refund \u202e0001', 'a\u0000b', 'bell\u0007']) {
    const r = await adjust(reason);
    expectError(r, 'validation_error', covered);
    assert.equal([r.json.error.details.fields[0].path, r.json.error.details.fields[0].reason], ['reason', 'pattern'], JSON.stringify(reason));
    assert.match(r.json.error.details.fields[0].hint, /^must hold no control or direction characters \(tabs and line breaks are fine\)/, 'the rule in words, not its character classes');
  }
  assert.is((await adjust('goodwill credit\nagreed by phone with the merchant')).status, 201, 'a line break is written text');
  const url = await s.bo('POST', `/v1/bo/merchants/${shop.id}/webhook-endpoints`, { url: 'https://hooks.example.com/\u0000', livemode: true });
  assert.equal([url.status, url.json.error?.details?.fields?.[0]?.path], [422, 'url']);
  const w = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({}));
  const cancel = await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${w.json.id}/cancel`, { reason: 'a\u0000b' });
  expectError(cancel, 'validation_error', covered);
  assert.is((await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${w.json.id}/cancel`, { reason: 'the customer changed\ntheir mind' })).status, 200);
});

test('metadata keys take no control characters, values those of written text only; neither half a surrogate pair: it is echoed in every answer and event', async () => {
  const before = await journalRows(s);
  const refusals: [Record<string, string>, string][] = [
    [{ 'a\u0000b': 'x' }, 'metadata'], [{ 'a\u202eb': 'x' }, 'metadata'], [{ 'a\ud800': 'x' }, 'metadata'],
    [{ note: 'x\u0000' }, 'metadata.note'], [{ note: 'x\ud800' }, 'metadata.note'], [{ note: 'abc\u202edef' }, 'metadata.note'],
  ];
  for (const [metadata, path] of refusals) {
    for (const [route, body] of [['/v1/pay/deposits', depositBody({ metadata })]] as const) {
      const r = await s.call(shop.live.api_key, 'POST', route, body);
      expectError(r, 'validation_error');
      const field = r.json.error.details.fields.find((f: { path: string }) => f.path.startsWith(path));
      assert.ok(field && field.reason === 'pattern', `${JSON.stringify(metadata)}: ${r.text}`);
    }
  }
  assert.is(await journalRows(s), before, 'nothing kept');
  const fine = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ metadata: { 'ร้าน': 'สาขา 1\nชั้น 2 🛒', order: 'A-1' } }));
  assert.ok(fine.status === 201 || fine.status === 202, fine.text);
  assert.equal(fine.json.metadata, { 'ร้าน': 'สาขา 1\nชั้น 2 🛒', order: 'A-1' }, 'Thai, emoji and a line break are text');
  assert.is((await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${fine.json.id}/cancel`, {})).status, 200);
});

test('a body holding text shaped like an API key secret is refused before anything is kept (it would sit in the journal for good); a word that merely contains the letters is fine', async () => {
  const before = await journalRows(s);
  const shaped = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ merchant_reference: 'sk_live_AAAAAAAAAAAAAAAAAAAA' }));
  expectError(shaped, 'validation_error');
  assert.equal(shaped.json.error.details.fields[0], { path: 'merchant_reference', reason: 'secret_shaped' }, 'the field named');
  // The same spelt with a JSON escape: the text shows no key, the value is one.
  const escaped = JSON.stringify(depositBody({ merchant_reference: 'sk_live_AAAAAAAAAAAAAAAAAAAA' })).replace('"sk_live_', '"sk\\u005flive_');
  assert.ok(escaped.includes('sk\\u005flive_'), escaped);
  const sneaked = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', escaped, { idempotencyKey: randomUUID() });
  assert.equal([sneaked.status, sneaked.json.error?.details?.fields?.[0]?.reason], [422, 'secret_shaped'], sneaked.text);
  assert.is(await journalRows(s), before, 'nothing kept');
  // a key's name shaped like one: the object holding it is named, the secret is not spelt back
  const inKey = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ metadata: { sk_live_AAAABBBBCCCCDDDDEEEE1234: 'v' } }));
  expectError(inKey, 'validation_error');
  assert.equal(inKey.json.error.details.fields[0], { path: 'metadata', reason: 'secret_shaped', hint: "a key's name" });
  assert.not.match(inKey.text, /AAAABBBB/, 'the secret is not in the answer');
  assert.is(await journalRows(s), before, 'nothing kept');
  // A signed token pasted in (an operator's JWT, a slip upload token: two parts) would sit in the journal as one: refused too.
  const jwt = await s.operatorToken();
  const slipToken = `${Buffer.from('{"aud":"pg-slip-ingest","deposit_id":"dep_x"}').toString('base64url')}.${'A'.repeat(86)}`;
  for (const token of [jwt, slipToken]) {
    const pasted = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ metadata: { note: `token ${token}` } }));
    assert.equal([pasted.status, pasted.json.error?.details?.fields?.[0]], [422, { path: 'metadata.note', reason: 'secret_shaped' }], pasted.text);
    assert.not.ok(pasted.text.includes(token.slice(-20)), 'the token is not spelt back');
  }
  const note = await s.bo('POST', `/v1/bo/merchants/${shop.id}/adjustments`, { livemode: true, amount_minor: 100, direction: 'credit', bucket: 'available', reason: `pasted ${jwt}` }, { roles: ['ops_admin'], stepUp: true });
  assert.equal([note.status, note.json.error?.details?.fields?.[0]?.reason], [422, 'secret_shaped'], note.text);
  assert.is(await journalRows(s), before, 'nothing kept');
  // Headers the journal keeps: an Idempotency-Key (with its answer, and in the events it
  // causes) and a PG-Nonce (the nonce memory), on merchant and operator routes alike.
  const keyShaped = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody(), { idempotencyKey: 'sk_live_AAAAAAAAAAAAAAAAAAAA' });
  assert.equal([keyShaped.status, keyShaped.json.error?.details?.fields?.[0]], [422, { path: 'header.Idempotency-Key', reason: 'secret_shaped' }], keyShaped.text);
  assert.not.match(keyShaped.text, /AAAAAAAA/, 'not spelt back');
  const nonceShaped = await s.call(shop.live.api_key, 'GET', '/v1/pay/balance', undefined, { nonce: 'sk_test_CCCCCCCCCCCCCCCCCCCC' });
  assert.equal([nonceShaped.status, nonceShaped.json.error?.details?.fields?.[0]], [422, { path: 'header.PG-Nonce', reason: 'secret_shaped' }], nonceShaped.text);
  const operatorKey = await s.bo('POST', `/v1/bo/merchants/${shop.id}/adjustments`, { livemode: true, amount_minor: 100, direction: 'credit', bucket: 'available', reason: 'a goodwill credit for the outage' }, { roles: ['ops_admin'], stepUp: true, idempotencyKey: 'sk_test_BBBBBBBBBBBBBBBBBBBB' });
  assert.equal([operatorKey.status, operatorKey.json.error?.details?.fields?.[0]?.reason], [422, 'secret_shaped'], operatorKey.text);
  assert.is(await journalRows(s), before, 'nothing kept');
  const word = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ merchant_reference: 'task_test_abcdefgh12' }));
  assert.ok(word.status === 201 || word.status === 202, word.text);
  assert.is((await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${word.json.id}/cancel`, {})).status, 200);
});

test.run();
