// Fuzzing the merchant API over real HTTP with fast-check: generated bodies (wrong types,
// huge and deep JSON, unicode, missing and extra fields, negative, fractional and unsafe
// amounts written as raw JSON literals), queries and headers against every POST route
// under /v1/pay and the GET list, quote and read queries; and every amount field of the
// back office (adjustments, route confirmations, review approvals) with the same extreme
// amounts. Properties checked on every answer: never a 5xx; an error answer is the
// contract's error object; and a refused request writes no journal entry (rejection
// atomicity at the HTTP edge).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import type { ErrorCode } from '../../core/errors.ts';
import { depositBody, signedHeaders, TestServer, type MerchantKeys, type Reply } from '../support/server-harness.ts';
import { expectError, gatewayRoute, journalRows, openDispute, payFirstLeg, withdrawalBody } from '../support/api-checks.ts';

let s: TestServer;
let m: MerchantKeys;
let payer: MerchantKeys;
const ids = { deposit: '', withdrawal: '', dispute: '', beneficiary: '' };

test.before(async () => {
  s = await TestServer.start();
  m = await s.onboard('Fuzzed');
  payer = await s.onboard('Fuzz payer', m.whiteLabelId);
  await s.fund(m.id, 50_000_000);
  ids.beneficiary = await s.beneficiary(m.id);
  const w = await s.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ids.beneficiary, { amount_minor: 40_000 }), { idempotencyKey: randomUUID() });
  ids.withdrawal = w.json.id;
  const d = await s.call(payer.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 20_000, fill_preference: 'internal_only' }));
  await payFirstLeg(s, d.json.id);
  ids.dispute = await openDispute(s, ids.withdrawal, 20_000n);
  await gatewayRoute(s, m.whiteLabelId);
  const own = await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', depositBody());
  ids.deposit = own.json.id;
});
test.after(async () => { await s.stop(); });

/** The properties every answer must keep; `sent` describes the request for the failure message. */
async function check(r: Reply, journalBefore: number, sent: string): Promise<void> {
  const where = `${sent} → ${r.status} ${r.text.slice(0, 300)}`;
  assert.ok(r.status < 500, `no 5xx: ${where}`);
  if (r.status >= 400) {
    assert.type(r.json?.error?.code, 'string', where);
    expectError(r, r.json.error.code as ErrorCode);
    assert.is(await journalRows(s), journalBefore, `a refused request wrote to the journal: ${where}`);
  }
}

async function send(method: 'GET' | 'POST', path: string, body: string | undefined, headers: Record<string, string> = {}): Promise<void> {
  const before = await journalRows(s);
  const idempotencyKey = method === 'POST' ? headers['Idempotency-Key'] ?? randomUUID() : undefined;
  const signed = signedHeaders(m.live.api_key, method, path, body ?? '', { idempotencyKey, nowSeconds: s.wallSeconds() });
  const all = { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...signed, ...headers };
  const r = await s.raw(method, path, { headers: all, ...(body !== undefined ? { body } : {}) });
  await check(r, before, `${method} ${path} ${JSON.stringify(headers)} ${(body ?? '').slice(0, 200)}`);
}

// ---- generators ----

const unicodeText = fc.string({ unit: 'grapheme', maxLength: 80 });
/** Amounts at every edge: zero and signs, 1, 2^53 − 1 and its neighbours, huge, fractional, digits in a string. */
const amountLiterals = [
  '0', '-0', '-1', '1', '9007199254740991', '9007199254740990', '9007199254739921', '9007199254739922', '9007199254740992', '9007199254740993',
  '-9007199254740993', '1e308', '-1e308', '1e400', '0.5', '2000.0', '2000.5', '20000.000001', '1e3', '1E-7', '100000000000000000000000',
  '"20000"', '"9007199254740991"', '"1e3"', '""', 'null',
];
const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  unicodeText,
  fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(null, true, false, '', [], {}, '2000', 'THB', '014', 'ben_', 'dep_', '\u0000', '\u202e', '😀'.repeat(100)),
  fc.constant('x'.repeat(5_000)),
);
const fieldName = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString', 'amount_minor ', 'AMOUNT_MINOR', ''), unicodeText);

/** A base body with fields dropped, replaced by weird values, and extra fields added. */
function mutated(base: Record<string, unknown>): fc.Arbitrary<string> {
  const keys = Object.keys(base);
  return fc.record({
    drop: fc.subarray(keys, { maxLength: Math.min(3, keys.length) }),
    replace: keys.length === 0 ? fc.constant({}) : fc.dictionary(fc.constantFrom(...keys), weirdValue, { maxKeys: 3 }),
    extra: fc.dictionary(fieldName, weirdValue, { maxKeys: 2 }),
  }).map(({ drop, replace, extra }) => {
    const out: Record<string, unknown> = {};
    for (const k of keys) if (!drop.includes(k)) out[k] = base[k];
    for (const [k, v] of Object.entries(replace)) out[k] = v;
    for (const [k, v] of Object.entries(extra)) Object.defineProperty(out, k, { value: v, enumerable: true, configurable: true, writable: true });
    return JSON.stringify(out);
  });
}

/** The base body with amount_minor written as a raw JSON literal (so 9007199254740993 reaches the server as typed). */
function rawAmount(base: Record<string, unknown>): fc.Arbitrary<string> {
  return fc.constantFrom(...amountLiterals).map((literal) => withAmount(base, literal));
}

function withAmount(base: Record<string, unknown>, literal: string): string {
  return JSON.stringify({ ...base, amount_minor: '__amount__' }).replace('"__amount__"', literal);
}

const deep = (depth: number) => `{"metadata":${'['.repeat(depth)}${']'.repeat(depth)}}`;
const structural = fc.oneof(
  fc.constantFrom('', 'null', '[]', '"text"', '42', 'true', '{', '{"a":1}}', '{"a":1,}', "{'a':1}", '\u0000', '{"a":"\\ud800"}', '\ufeff{}'),
  fc.nat({ max: 20_000 }).map(deep),
  fc.constant(`{"text":"${'y'.repeat(1_100_000)}"}`),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

const contentTypes = ['application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/json; charset=bogus',
  'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/vnd.api+json', 'application/json-patch+json', 'Application/JSON'];
const headerVariants = fc.record({
  'Content-Type': fc.constantFrom(...contentTypes),
  'Content-Encoding': fc.constantFrom('identity', 'gzip', 'deflate', 'br', 'compress', 'x-unknown'),
  'Idempotency-Key': fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 300 }),
  'PG-Version': fc.constantFrom('2026-08-01', '', '1999-01-01', 'latest'),
}, { requiredKeys: [] }) as fc.Arbitrary<Record<string, string>>;

function bodiesFor(base: Record<string, unknown>): fc.Arbitrary<string> {
  return fc.oneof({ weight: 5, arbitrary: mutated(base) }, { weight: 2, arbitrary: rawAmount(base) }, { weight: 2, arbitrary: structural });
}

const postRoutes = () => [
  { path: '/v1/pay/deposits', base: depositBody({ merchant_reference: 'fuzz-ref' }) },
  { path: `/v1/pay/deposits/${ids.deposit}/cancel`, base: { reason: 'fuzz' } },
  { path: `/v1/pay/deposits/${ids.deposit}/slip-token`, base: {} },
  { path: '/v1/pay/withdrawals', base: withdrawalBody(ids.beneficiary, { merchant_reference: 'fuzz-w', client: { ip: '203.0.113.9' }, metadata: { order: '1' } }) },
  { path: `/v1/pay/withdrawals/${ids.withdrawal}/cancel`, base: {} },
  { path: `/v1/pay/disputes/${ids.dispute}/evidence`, base: { text: 'Evidence text', files: [{ name: 'a.png', content_base64: 'iVBORw0KGgo=' }] } },
  { path: '/v1/pay/beneficiaries', base: { bank_code: '004', account_number: '1231231234', account_name_th: 'ทดสอบ ระบบ', promptpay_id: '0812345678' } },
];

// ---- properties ----

test('POST bodies: never a 5xx, never a journal entry for a refusal (7 routes × 12 runs)', async () => {
  for (const route of postRoutes()) {
    await fc.assert(fc.asyncProperty(bodiesFor(route.base), async (body) => {
      await send('POST', route.path, body);
    }), { numRuns: 12 });
  }
});

test('POST headers: content types, encodings, idempotency keys and versions (30 runs)', async () => {
  const routes = postRoutes();
  await fc.assert(fc.asyncProperty(fc.constantFrom(...routes), headerVariants, fc.boolean(), async (route, headers, valid) => {
    const body = valid ? JSON.stringify(route.base) : '{"amount_minor": 1.5}';
    await send('POST', route.path, body, headers);
  }), { numRuns: 30 });
});

const queryValue = fc.oneof(
  fc.constantFrom('', '0', '1', '200', '201', '-1', '1.5', '1e2', '9007199254740993', '99999999999999999999', 'NaN', 'settled', 'withdrawal', 'deposit',
    '2026-11-21T03:00:00.000Z', '2026-13-40T99:99:99Z', '%', '%zz', '%00', '%E0%A4%A', '%F0%9F%98%80', 'a%26b%3Dc', '[]', '{}'),
  fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 }).map(encodeURIComponent),
  unicodeText.map(encodeURIComponent),
  fc.string({ maxLength: 60 }).map((t) => Buffer.from(t).toString('base64url')),
);
const queryName = fc.constantFrom('limit', 'status', 'updated_after', 'cursor', 'channel', 'amount_minor', 'end_user_ref', 'since_sequence', 'limit[]', 'x', '%20', '');

const getPaths = () => ['/v1/pay/deposits', '/v1/pay/quote', '/v1/pay/senders', '/v1/pay/banks', '/v1/pay/balance', `/v1/pay/deposits/${ids.deposit}`, `/v1/pay/withdrawals/${ids.withdrawal}`, `/v1/pay/beneficiaries/${ids.beneficiary}`];

test('GET queries: lists, quote, senders and reads (50 runs)', async () => {
  await fc.assert(fc.asyncProperty(fc.constantFrom(...getPaths()), fc.array(fc.tuple(queryName, queryValue), { maxLength: 4 }), async (path, pairs) => {
    const query = pairs.map(([k, v]) => `${k}=${v}`).join('&');
    await send('GET', query === '' ? path : `${path}?${query}`, undefined);
  }), { numRuns: 50 });
});

test('cursors: forged, truncated and foreign cursors on the deposit list (16 runs)', async () => {
  const forged = fc.record({ id: fc.oneof(fc.string(), fc.integer()), t: fc.oneof(fc.double(), fc.string(), fc.constant(null)), f: fc.oneof(fc.constant('[null,null]'), fc.string()) }, { requiredKeys: [] })
    .map((c) => Buffer.from(JSON.stringify(c)).toString('base64url'));
  await fc.assert(fc.asyncProperty(fc.oneof(forged, fc.string({ maxLength: 40 }).map(encodeURIComponent)), fc.constantFrom('', '&status=settled', '&limit=1'), async (cursor, extra) => {
    await send('GET', `/v1/pay/deposits?cursor=${cursor}${extra}`, undefined);
  }), { numRuns: 16 });
});

test('methods: any method on any merchant path is answered, never a 5xx, errors in the contract shape (24 runs)', async () => {
  const paths = [...getPaths(), ...postRoutes().map((r) => r.path), '/v1/pay/nothing-here'];
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'MKCOL', 'LOCK', 'PURGE', 'SEARCH'];
  await fc.assert(fc.asyncProperty(fc.constantFrom(...paths), fc.constantFrom(...methods), async (path, method) => {
    const before = await journalRows(s);
    const body = method === 'GET' || method === 'HEAD' ? undefined : '{}';
    const headers = signedHeaders(m.live.api_key, method, path, body ?? '', { idempotencyKey: randomUUID(), nowSeconds: s.wallSeconds() });
    const r = await s.raw(method, path, { headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) }, ...(body ? { body } : {}) });
    assert.ok(r.status < 500, `${method} ${path}: ${r.status} ${r.text.slice(0, 200)}`);
    assert.ok(r.headers.get('x-ratelimit-scope') !== null, 'rate-limit headers on every answer');
    if (r.status >= 400 && method !== 'HEAD') {
      expectError(r, r.json.error.code as ErrorCode);
      assert.is(await journalRows(s), before);
    }
  }), { numRuns: 24 });
});

test('quote: every extreme amount_minor is answered with the contract\'s code, never a 5xx', async () => {
  for (const value of ['0', '1', '10000', '9007199254739921', '9007199254739922', '9007199254740990', '9007199254740991', '9007199254740992', '9999999999999999', '-1', '1.5', '1e3', '']) {
    await send('GET', `/v1/pay/quote?channel=withdrawal&amount_minor=${value}`, undefined);
  }
});

test('every amount literal on every merchant amount field, one by one', async () => {
  for (const literal of amountLiterals) {
    await send('POST', '/v1/pay/deposits', withAmount(depositBody({ merchant_reference: `edge-${randomUUID()}` }), literal));
    await send('POST', '/v1/pay/withdrawals', withAmount(withdrawalBody(ids.beneficiary, { merchant_reference: `edge-${randomUUID()}` }), literal));
  }
});

// ---- the back office's amount fields ----

/** An operator POST (with a step-up token) that must keep the same properties as a merchant one. */
async function sendBo(path: string, body: string): Promise<Reply> {
  const before = await journalRows(s);
  const headers = {
    Authorization: `Bearer ${await s.operatorToken('emp_fuzz')}`, 'X-PG-Step-Up-Token': await s.operatorToken('emp_fuzz', true),
    'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json',
  };
  const r = await s.raw('POST', path, { headers, body });
  await check(r, before, `POST ${path} ${body.slice(0, 200)}`);
  return r;
}

/** A deposit of the payer's routed to the gateway and canceled: open to a route confirmation. */
async function canceledGatewayDeposit(): Promise<string> {
  const d = await s.call(payer.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 100_000 }));
  assert.is(d.status, 201, d.text);
  const c = await s.call(payer.live.api_key, 'POST', `/v1/pay/deposits/${d.json.id}/cancel`, { reason: 'fuzz' });
  assert.is(c.status, 200, c.text);
  return d.json.id;
}

const amountBody = (base: Record<string, unknown>) => fc.oneof({ weight: 3, arbitrary: rawAmount(base) }, { weight: 1, arbitrary: mutated(base) });
const adjustmentBase = (direction: string, bucket: string) => ({ livemode: true, amount_minor: 1_000, direction, bucket, reason: 'fuzz' });

test('adjustments: extreme amounts in both directions on every bucket (40 runs); the balance stays presentable and ≥ 0', async () => {
  const bodies = fc.tuple(fc.constantFrom('credit', 'debit'), fc.constantFrom('available', 'pending_clearing', 'reserved'))
    .chain(([direction, bucket]) => amountBody(adjustmentBase(direction, bucket)));
  await fc.assert(fc.asyncProperty(bodies, async (body) => {
    await sendBo(`/v1/bo/merchants/${m.id}/adjustments`, body);
  }), { numRuns: 40 });
  for (const literal of amountLiterals) {
    for (const [direction, bucket] of [['credit', 'available'], ['debit', 'available'], ['debit', 'reserved'], ['credit', 'pending_clearing']] as const) {
      await sendBo(`/v1/bo/merchants/${m.id}/adjustments`, withAmount(adjustmentBase(direction, bucket), literal));
    }
  }
  const b = await s.call(m.live.api_key, 'GET', '/v1/pay/balance');
  assert.is(b.status, 200, b.text);
  for (const key of ['available_minor', 'pending_clearing_minor', 'reserved_minor']) {
    assert.ok(Number.isSafeInteger(b.json[key]) && b.json[key] >= 0, `${key} ${b.json[key]}`);
  }
});

test('route confirmations and review approvals: every amount literal on a deposit that can take it', async () => {
  for (const literal of amountLiterals) {
    const id = await canceledGatewayDeposit();
    const confirmed = await sendBo(`/v1/bo/deposits/${id}/route-confirmations`, withAmount({ trans_ref: `GW-${randomUUID()}` }, literal));
    // Each literal also meets an approval, on a deposit under review when the confirmation could not put it there.
    let reviewed = id;
    if (confirmed.status !== 200) {
      reviewed = await canceledGatewayDeposit();
      const r = await sendBo(`/v1/bo/deposits/${reviewed}/route-confirmations`, JSON.stringify({ trans_ref: `GW-${randomUUID()}`, amount_minor: 100_000 }));
      assert.is(r.status, 200, r.text);
    }
    assert.is(s.running.store.world.deposits.get(reviewed)!.status, 'under_review');
    await sendBo(`/v1/bo/deposits/${reviewed}/approve`, withAmount({ note: 'Checked the bank statement line by line.' }, literal));
  }
  const b = await s.call(payer.live.api_key, 'GET', '/v1/pay/balance');
  assert.is(b.status, 200, b.text);
});

test('the known sharp edges, one by one: unsafe, fractional and negative amounts are refused as validation errors', async () => {
  for (const literal of ['9007199254740993', '2000.5', '-100', '1e400']) {
    const body = JSON.stringify({ ...depositBody(), amount_minor: '__a__' }).replace('"__a__"', literal);
    const before = await journalRows(s);
    const r = await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', body);
    assert.ok(r.status === 422, `${literal}: ${r.text}`);
    assert.ok(['validation_error', 'amount_not_supported'].includes(r.json.error.code), `${literal}: ${r.json.error.code}`);
    assert.is(await journalRows(s), before);
  }
});

test.run();
