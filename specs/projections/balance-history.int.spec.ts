// GET /v1/pay/balance/transactions against a real server (embedded read side), as the
// contract's "Balance history" section says: the live body and its rows; principal and
// fee as separate rows; the checkpoint equal to the authoritative balance; paging with
// since_sequence (an empty page keeps the sequence); every parameter refusal; scope
// wallet:read; 503 history_not_ready (Retry-After 1) while the projection lags; 422
// invalid_cursor ahead of the checkpoint. Then the sandbox variant: sbxbtxn_l_ ids,
// pending clearing always '0', run_generation and POST /v1/test/sandbox/reset, coverage
// and retention (410), its own errors without Retry-After, its quota.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import type { Command } from '../../core/handler/commands.ts';
import { limits, readSideLimits } from '../../core/limits.ts';
import { expectError } from '../support/api-checks.ts';
import { TestServer, type MerchantKeys, type Reply } from '../support/server-harness.ts';
import { Driver, merchantActor } from '../adapters/support.ts';

let s: TestServer;
let payer: MerchantKeys;
let shop: MerchantKeys;
let driver: Driver;

const history = (key: string, query = '') => s.call(key, 'GET', `/v1/pay/balance/transactions${query}`);

/** All rows from since_sequence 0, page by page (limit `limit`), checking each page's shape. */
async function allRows(key: string, limit: number, extra = ''): Promise<{ rows: any[]; last: Reply }> {
  const rows: any[] = [];
  let since = '0';
  for (;;) {
    const r = await history(key, `?limit=${limit}&since_sequence=${since}${extra}`);
    assert.is(r.status, 200, r.text);
    assert.ok(r.json.data.length <= limit);
    rows.push(...r.json.data);
    assert.is(r.json.next_sequence, r.json.data.length > 0 ? r.json.data[r.json.data.length - 1].sequence : since);
    since = r.json.next_sequence;
    if (!r.json.has_more) return { rows, last: r };
  }
}

function sum(rows: readonly any[], bucket: string): string {
  return rows.reduce((total: bigint, r: any) => total + BigInt(r.bucket_deltas[bucket]), 0n).toString();
}

async function exec(command: Command): Promise<string> {
  return driver.ok(command);
}

/** A P2P settlement: payer withdraws, the shop's deposit pays into it, the slip verifies. */
async function settleDeposit(livemode: boolean, amountMinor: bigint): Promise<string> {
  const ben = await exec({ type: 'RegisterBeneficiary', actor: { kind: 'operator', operatorId: 'emp_spec' }, merchantId: payer.id, livemode, bankCode: '004', accountNumber: `55${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`, accountNameTh: 'สมหญิง รักดี', verified: true });
  await exec({ type: 'CreateWithdrawal', actor: merchantActor(payer.id, livemode), amountMinor, merchantReference: `w-${randomUUID()}`, endUserRef: 'payee', beneficiaryId: ben, requiresApproval: false, p2pMinimumApplies: false });
  const depositId = await exec({ type: 'CreateDeposit', actor: merchantActor(shop.id, livemode), amountMinor, merchantReference: `d-${randomUUID()}`, endUserRef: `u-${randomUUID().slice(0, 8)}`, sender: { bankCode: '014', accountNumber: '9876543210', accountNameTh: 'สมชาย ใจดี' }, hasClientData: true });
  await driver.payFirstLeg(depositId);
  assert.is(s.running.store.world.deposits.get(depositId)!.status, 'settled');
  return depositId;
}

test.before(async () => {
  s = await TestServer.start();
  driver = new Driver(s.running.store, s.clock);
  payer = await s.onboard('Payer');
  shop = await s.onboard('Shop', payer.whiteLabelId);
  await s.fund(payer.id, 5_000_000);
  await s.fund(payer.id, 5_000_000, false);
  await s.fund(shop.id, 300_000);
});
test.after(async () => { await s.stop(); });

test('live: the contract body; rows are the ledger movements, principal and fee apart; the checkpoint is the balance', async () => {
  await settleDeposit(true, 100_000n);
  const r = await history(shop.live.api_key, '?limit=100');
  assert.is(r.status, 200, r.text);
  assert.equal(Object.keys(r.json), ['contract', 'schema_version', 'livemode', 'currency', 'data', 'has_more', 'next_sequence', 'checkpoint', 'as_of']);
  assert.equal([r.json.contract, r.json.schema_version, r.json.livemode, r.json.currency], ['merchant_balance_history_v1', 1, true, 'THB']);
  assert.is(r.json.as_of, new Date(s.clock.now()).toISOString());
  assert.is(r.json.data.length, 3, 'funding, deposit_settled, fee');
  for (const row of r.json.data) {
    assert.equal(Object.keys(row), ['id', 'object', 'sequence', 'currency', 'created_at', 'bucket_deltas']);
    assert.match(row.id, /^btxn_/);
    assert.is(row.object, 'balance_transaction');
    assert.equal(Object.keys(row.bucket_deltas), ['available_minor', 'pending_clearing_minor', 'reserved_minor']);
    for (const v of Object.values(row.bucket_deltas)) assert.match(v as string, /^(0|-?[1-9][0-9]*)$/);
  }
  assert.equal(r.json.data.map((x: any) => x.sequence), ['1', '2', '3']);
  const [, principal, fee] = r.json.data;
  assert.is(principal.bucket_deltas.pending_clearing_minor, '100000', 'A into pending clearing');
  assert.ok(BigInt(fee.bucket_deltas.pending_clearing_minor) < 0n, 'the fee is its own row');
  const balance = (await s.call(shop.live.api_key, 'GET', '/v1/pay/balance')).json;
  assert.equal(r.json.checkpoint, {
    sequence: '3', available_minor: String(balance.available_minor), pending_clearing_minor: String(balance.pending_clearing_minor), reserved_minor: String(balance.reserved_minor),
  });
  for (const bucket of ['available_minor', 'pending_clearing_minor', 'reserved_minor']) assert.is(sum(r.json.data, bucket), r.json.checkpoint[bucket]);
});

test('live: paging with since_sequence returns every row once, in order; an empty page keeps the sequence', async () => {
  await s.fund(shop.id, 1_000);
  await s.fund(shop.id, 2_000);
  const whole = (await history(shop.live.api_key, '?limit=100')).json.data;
  for (const limit of [1, 2, 3]) {
    const { rows } = await allRows(shop.live.api_key, limit);
    assert.equal(rows, whole);
  }
  const end = (await history(shop.live.api_key, `?since_sequence=${whole.length}`)).json;
  assert.equal([end.data, end.has_more, end.next_sequence], [[], false, String(whole.length)]);
  const defaults = await history(shop.live.api_key);
  assert.is(defaults.json.data.length, Math.min(whole.length, limits.pageSizeDefault));
});

test('live: parameter refusals (validation_error), scope, and invalid_cursor ahead of the checkpoint', async () => {
  const refused = ['?limit=0', '?limit=101', '?limit=abc', '?limit=01', '?since_sequence=01', '?since_sequence=-1', '?since_sequence=%2B1',
    '?since_sequence=1.0', '?since_sequence=9223372036854775808', '?since_sequence=', '?since_sequence=1&since_sequence=1', '?limit=5&limit=5',
    '?cursor=abc', '?foo=1', '?run_generation=1'];
  for (const q of refused) {
    const e = expectError(await history(shop.live.api_key, q), 'validation_error');
    assert.ok(Array.isArray(e.details.fields) && e.details.fields.length > 0, q);
  }
  const ahead = expectError(await history(shop.live.api_key, '?since_sequence=9223372036854775807'), 'invalid_cursor');
  assert.match(ahead.details.checkpoint_sequence, /^[0-9]+$/);
  const checkpoint = (await history(shop.live.api_key)).json.checkpoint.sequence;
  expectError(await history(shop.live.api_key, `?since_sequence=${BigInt(checkpoint) + 1n}`), 'invalid_cursor');
  assert.is((await history(shop.live.api_key, `?since_sequence=${checkpoint}`)).status, 200);
  const key = await s.bo('POST', `/v1/bo/merchants/${shop.id}/keys`, { livemode: true, scopes: ['withdrawals:read'] }, { stepUp: true });
  expectError(await history(key.json.api_key), 'scope_denied');
});

test('live: 503 history_not_ready (Retry-After 1) while the projection lags the ledger; ready again once caught up', async () => {
  const relay = s.running.readSide.relay;
  await relay.stop();
  try {
    await s.fund(shop.id, 4_000);
    const e = expectError(await history(shop.live.api_key), 'history_not_ready');
    assert.is(e.retry_after_seconds, 1);
  } finally {
    relay.start();
  }
  const r = await history(shop.live.api_key, '?limit=100');
  assert.is(r.status, 200);
  assert.is(r.json.data[r.json.data.length - 1].bucket_deltas.available_minor, '4000');
});

test('sandbox: sbxbtxn_l_ ids, pending clearing always 0 (folded into available), run_generation, coverage; no Retry-After', async () => {
  await settleDeposit(false, 50_000n);
  await s.running.services.write.advanceClock!(limits.clearingPeriodMs + 1000); // the clearing release moves no sandbox money: no row
  const { rows, last } = await allRows(shop.sandbox.api_key, 100, '&run_generation=1');
  assert.equal(Object.keys(last.json), ['contract', 'schema_version', 'livemode', 'environment', 'run_generation', 'currency', 'data', 'has_more', 'next_sequence', 'checkpoint', 'coverage', 'as_of']);
  assert.equal([last.json.livemode, last.json.environment, last.json.run_generation], [false, 'sandbox', 1]);
  assert.equal(last.json.coverage, { state: 'complete', retention_days: 30, min_since_sequence: '0' });
  assert.is(last.headers.get('retry-after'), null);
  assert.is(rows.length, 2, 'deposit_settled and fee; the clearing release made no row');
  for (const row of rows) {
    assert.match(row.id, /^sbxbtxn_l_/);
    assert.is(row.bucket_deltas.pending_clearing_minor, '0');
  }
  const balance = (await s.call(shop.sandbox.api_key, 'GET', '/v1/pay/balance')).json;
  assert.is(last.json.checkpoint.available_minor, String(balance.available_minor + balance.pending_clearing_minor));
  assert.is(last.json.checkpoint.pending_clearing_minor, '0');
  assert.is(sum(rows, 'available_minor'), last.json.checkpoint.available_minor);
  const live = (await history(shop.live.api_key, '?limit=100')).json.data;
  assert.ok(live.every((row: any) => !row.id.startsWith('sbx')), 'sandbox never shows live data, nor live sandbox');
});

test('sandbox: a positive since_sequence needs run_generation; reset starts a new run; an old run is 409, one not yet begun 422', async () => {
  const key = shop.sandbox.api_key;
  expectError(await history(key, '?since_sequence=1'), 'validation_error');
  expectError(await history(key, '?since_sequence=0&run_generation=0'), 'validation_error');
  expectError(await history(key, '?since_sequence=0&run_generation=2147483648'), 'validation_error');
  // A run not yet begun was never handed out: a bad parameter, not a run that changed.
  const future = expectError(await history(key, '?since_sequence=1&run_generation=7'), 'validation_error');
  assert.equal(future.details.fields[0], { path: 'query.run_generation', reason: 'maximum', hint: 'at most 1, the current run' });
  // Canonical digits past the largest sequence: the bound is named, not the form.
  const tooBig = expectError(await history(key, '?since_sequence=99999999999999999999'), 'validation_error');
  assert.equal([tooBig.details.fields[0].path, tooBig.details.fields[0].reason], ['query.since_sequence', 'maximum']);
  assert.is(expectError(await history(key, '?since_sequence=007'), 'validation_error').details.fields[0].reason, 'format');
  const before = (await history(key, '?limit=100')).json;

  const idempotencyKey = randomUUID();
  const reset = await s.call(key, 'POST', '/v1/test/sandbox/reset', undefined, { idempotencyKey });
  assert.is(reset.status, 200, reset.text);
  assert.equal(reset.json, { object: 'sandbox_run', livemode: false, run_generation: 2 });
  const replay = await s.call(key, 'POST', '/v1/test/sandbox/reset', undefined, { idempotencyKey });
  assert.equal([replay.json.run_generation, replay.headers.get('idempotent-replay')], [2, 'true']);
  expectError(await s.call(shop.live.api_key, 'POST', '/v1/test/sandbox/reset'), 'scope_denied');

  const changed = expectError(await history(key, '?since_sequence=2&run_generation=1'), 'sandbox_run_changed');
  assert.is(changed.details.current_run_generation, 2);
  assert.match(changed.message, /run is now 2 \(this request named 1\)/, 'says what to send');
  expectError(await history(key, '?since_sequence=0&run_generation=1'), 'sandbox_run_changed'); // even a request already at sequence 0
  const fresh = (await history(key)).json;
  assert.equal([fresh.run_generation, fresh.data, fresh.checkpoint.sequence, fresh.coverage.state], [2, [], '0', 'partial']);
  assert.equal({ ...fresh.checkpoint, sequence: '-' }, { ...before.checkpoint, sequence: '-' }, 'the balances carry over as the opening');
  expectError(await history(key, '?since_sequence=1&run_generation=2'), 'invalid_cursor');
  await s.fund(shop.id, 1_500, false);
  const next = (await history(key, '?since_sequence=0&run_generation=2')).json;
  assert.equal(next.data.map((r: any) => [r.sequence, r.bucket_deltas.available_minor]), [['1', '1500']]);
  assert.is((await history(shop.live.api_key)).json.livemode, true, 'live history untouched by the sandbox reset');
});

test('sandbox: rows older than 30 days leave the view; a cursor below the floor is 410', async () => {
  const key = shop.sandbox.api_key;
  await s.fund(shop.id, 1_600, false);
  await s.running.services.write.advanceClock!(readSideLimits.sandboxHistoryRetentionMs + 60_000);
  await s.fund(shop.id, 1_700, false);
  const r = (await history(key, '?run_generation=2')).json;
  assert.equal(r.coverage, { state: 'partial', retention_days: 30, min_since_sequence: '2' });
  assert.equal(r.data.map((x: any) => x.sequence), ['3']);
  const e = expectError(await history(key, '?since_sequence=1&run_generation=2'), 'sandbox_history_cursor_expired');
  assert.equal(e.details, { run_generation: 2, min_since_sequence: '2' });
  assert.is((await history(key, '?since_sequence=2&run_generation=2')).status, 200);
});

test('sandbox: not ready is 503 sandbox_balance_history_not_ready, not retryable, no Retry-After', async () => {
  const relay = s.running.readSide.relay;
  await relay.stop();
  try {
    await s.fund(shop.id, 1_800, false);
    const r = await history(shop.sandbox.api_key);
    expectError(r, 'sandbox_balance_history_not_ready');
    assert.is(r.headers.get('retry-after'), null);
  } finally {
    relay.start();
  }
  assert.is((await history(shop.sandbox.api_key)).status, 200);
});

test('sandbox: its own quota, 429 sandbox_rate_limited (retryable, no Retry-After)', async () => {
  const m = await s.onboard('Quota shop', payer.whiteLabelId);
  const max = readSideLimits.sandboxHistoryRequestsPerWindowMax;
  for (let i = 0; i < max; i++) {
    const r = await history(m.sandbox.api_key, '?limit=1');
    assert.is(r.status, 200, r.text);
    if (i === 0) assert.equal([r.headers.get('x-ratelimit-scope'), r.headers.get('ratelimit-limit'), r.headers.get('ratelimit-remaining')], ['sandbox_history', String(max), String(max - 1)], 'the headers of the quota that answers');
  }
  const r = await history(m.sandbox.api_key, '?limit=1');
  const e = expectError(r, 'sandbox_rate_limited');
  assert.is(e.retry_after_seconds, null);
  assert.is(r.headers.get('retry-after'), null);
  assert.equal([r.headers.get('x-ratelimit-scope'), r.headers.get('ratelimit-remaining')], ['sandbox_history', '0'], 'the refusing bucket, not pay_read with room left');
  assert.ok(Number(r.headers.get('ratelimit-reset')) >= 1);
  s.clock.advance(readSideLimits.sandboxHistoryWindowSeconds * 1000);
  expectError(await history(m.sandbox.api_key), 'sandbox_rate_limited'); // a quota window is security time, not business time
  s.securityClock.advance(readSideLimits.sandboxHistoryWindowSeconds * 1000);
  assert.is((await history(m.sandbox.api_key)).status, 200);
});

test.run();
