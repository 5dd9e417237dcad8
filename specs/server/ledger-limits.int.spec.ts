// The ledger's limits seen from outside, over real HTTP: no merchant bucket is ever
// negative (operators cannot take a withdrawal's lock or a deposit's clearing out from
// under it; a debit larger than its bucket is 402 insufficient_balance; a reversal the
// merchant's balance cannot cover is refused), and amounts at the edges of the safe
// integer range answer the contract's codes, never a 500, and write nothing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { safeIntegerMax } from '../../core/money.ts';
import { depositBody, TestServer, type MerchantKeys, type Reply } from '../support/server-harness.ts';
import { expectError, gatewayRoute, journalRows, payFirstLeg, withdrawalBody } from '../support/api-checks.ts';

let s: TestServer;
test.before(async () => { s = await TestServer.start(); });
test.after(async () => { await s.stop(); });

const adjust = (merchantId: string, body: Record<string, unknown>) =>
  s.bo('POST', `/v1/bo/merchants/${merchantId}/adjustments`, { livemode: true, reason: 'ops correction', ...body }, { stepUp: true });
const balance = async (merchantId: string) => (await s.bo('GET', `/v1/bo/merchants/${merchantId}/balance`)).json.live as Record<string, number>;

function assertNoBucketNegative(b: Record<string, number>, where: string): void {
  for (const [bucket, value] of Object.entries(b)) assert.ok(value >= 0, `${where}: ${bucket} is ${value}`);
}

/** Sends a request that must be refused with `code`, and checks it wrote no journal row. */
async function refused(send: () => Promise<Reply>, code: Parameters<typeof expectError>[1]): Promise<Record<string, any>> {
  const before = await journalRows(s);
  const r = await send();
  const e = expectError(r, code);
  assert.is(await journalRows(s), before, `a refused request (${code}) wrote nothing`);
  return e;
}

/** A merchant whose deposit of 50,000 settled through the gateway route (pending_clearing 49,198). */
async function settledDepositor(): Promise<{ m: MerchantKeys; depositId: string }> {
  const m = await s.onboard('Depositor');
  await gatewayRoute(s, m.whiteLabelId);
  const d = await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 50_000 }));
  assert.is(d.status, 201, d.text);
  await payFirstLeg(s, d.json.id);
  assert.is(s.running.store.world.deposits.get(d.json.id)!.status, 'settled');
  return { m, depositId: d.json.id };
}

test('the issue\'s scenario: a debit of a withdrawal\'s lock is refused, and the cancel leaves every bucket ≥ 0', async () => {
  const m = await s.onboard('Locked');
  await s.fund(m.id, 1_000_000);
  const ben = await s.beneficiary(m.id);
  const w = await s.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben, { amount_minor: 100_000 }));
  assert.is(w.status, 201, w.text);
  assert.equal(await balance(m.id), { available_minor: 898_930, pending_clearing_minor: 0, reserved_minor: 101_070 });

  const e = await refused(() => adjust(m.id, { amount_minor: 101_070, direction: 'debit', bucket: 'reserved' }), 'operation_not_allowed');
  assert.match(e.message, /reserved/);
  assert.is(e.details.bucket, 'reserved');
  await refused(() => adjust(m.id, { amount_minor: 5_000, direction: 'credit', bucket: 'reserved' }), 'operation_not_allowed');

  const c = await s.call(m.live.api_key, 'POST', `/v1/pay/withdrawals/${w.json.id}/cancel`, {});
  assert.is(c.status, 200, c.text);
  const after = await balance(m.id);
  assertNoBucketNegative(after, 'after the cancel');
  assert.equal(after, { available_minor: 1_000_000, pending_clearing_minor: 0, reserved_minor: 0 });
});

test('a settled deposit\'s clearing owns pending_clearing: adjustments there are refused, and clearing leaves every bucket ≥ 0', async () => {
  const { m } = await settledDepositor();
  const pending = (await balance(m.id)).pending_clearing_minor!;
  assert.ok(pending > 0);
  const e = await refused(() => adjust(m.id, { amount_minor: pending, direction: 'debit', bucket: 'pending_clearing' }), 'operation_not_allowed');
  assert.is(e.details.bucket, 'pending_clearing');
  await refused(() => adjust(m.id, { amount_minor: 1_000, direction: 'credit', bucket: 'pending_clearing' }), 'operation_not_allowed');
  const advanced = await s.bo('POST', '/v1/bo/clock/advance', { seconds: 73 * 3600 });
  assert.is(advanced.status, 200, advanced.text);
  const after = await balance(m.id);
  assertNoBucketNegative(after, 'after clearing');
  assert.equal(after, { available_minor: pending, pending_clearing_minor: 0, reserved_minor: 0 });
});

test('a debit larger than available is 402 insufficient_balance with the contract\'s details', async () => {
  const m = await s.onboard('Short');
  await s.fund(m.id, 30_000);
  const e = await refused(() => adjust(m.id, { amount_minor: 30_001, direction: 'debit', bucket: 'available' }), 'insufficient_balance');
  assert.is(e.details.available_minor, 30_000);
  assert.is(e.details.required_minor, 30_001);
  assert.is(e.details.pending_clearing_minor, 0);
  assert.is(e.details.pending_clearing_available_at, null);
  const ok = await adjust(m.id, { amount_minor: 30_000, direction: 'debit', bucket: 'available' });
  assert.is(ok.status, 201, ok.text);
  assert.equal(await balance(m.id), { available_minor: 0, pending_clearing_minor: 0, reserved_minor: 0 });
});

test('a reversal after clearing that available cannot cover is 402 insufficient_balance, and nothing moves', async () => {
  const { m, depositId } = await settledDepositor();
  await s.bo('POST', '/v1/bo/clock/advance', { seconds: 73 * 3600 });
  const cleared = (await balance(m.id)).available_minor!;
  // The merchant spends what cleared: available drops below what a reversal would take.
  const spent = await adjust(m.id, { amount_minor: cleared - 100, direction: 'debit', bucket: 'available' });
  assert.is(spent.status, 201, spent.text);
  const e = await refused(() => s.bo('POST', `/v1/bo/deposits/${depositId}/reverse`, { reason_code: 'BANK_RECALL', note: 'recalled by the bank' }, { stepUp: true }), 'insufficient_balance');
  assert.is(e.details.available_minor, 100);
  assert.is(e.details.required_minor, cleared);
  assert.is(s.running.store.world.deposits.get(depositId)!.status, 'settled');
  assert.equal(await balance(m.id), { available_minor: 100, pending_clearing_minor: 0, reserved_minor: 0 });
});

test('a reversal inside the clearing window takes the deposit back from pending_clearing to exactly 0', async () => {
  const { m, depositId } = await settledDepositor();
  // Money moves on an operator's reasons: a note a reader cannot see is no note, and nothing moves.
  await refused(() => s.bo('POST', `/v1/bo/deposits/${depositId}/reverse`, { reason_code: 'BANK_RECALL', note: 'x' }, { stepUp: true }), 'review_note_required');
  await refused(() => s.bo('POST', `/v1/bo/deposits/${depositId}/reverse`, { reason_code: 'BANK_RECALL', note: '\u200b'.repeat(21) }, { stepUp: true }), 'review_note_required');
  await refused(() => s.bo('POST', `/v1/bo/deposits/${depositId}/reverse`, { reason_code: 'BANK_RECALL', note: '\u3164'.repeat(21) }, { stepUp: true }), 'review_note_required');
  await refused(() => s.bo('POST', `/v1/bo/deposits/${depositId}/reverse`, { reason_code: 'BANK_RECALL' }, { stepUp: true }), 'review_note_required');
  assert.is(s.running.store.world.deposits.get(depositId)!.status, 'settled');
  const r = await s.bo('POST', `/v1/bo/deposits/${depositId}/reverse`, { reason_code: 'BANK_RECALL', note: 'recalled by the bank' }, { stepUp: true, sub: 'emp_recall' });
  assert.is(r.status, 200, r.text);
  assert.equal(await balance(m.id), { available_minor: 0, pending_clearing_minor: 0, reserved_minor: 0 });
  // Who reversed it and why is on the journal's event, so the timeline shows it.
  const reversed = (await s.bo('GET', `/v1/bo/deposits/${depositId}`)).json.timeline.find((t: any) => t.step === 'reversed');
  assert.equal([reversed.detail.operator, reversed.detail.note, reversed.detail.reason_code], ['emp_recall', 'recalled by the bank', 'BANK_RECALL']);
});

test("an adjustment's balance.credited names the adjustment as its source, not the operator who posted it", async () => {
  const m = await s.onboard('Adjusted');
  await s.fund(m.id, 12_345);
  const feed = await s.call(m.live.api_key, 'GET', '/v1/pay/events?since_sequence=0');
  assert.is(feed.status, 200, feed.text);
  const credited = feed.json.data.find((e: any) => e.type === 'balance.credited' && e.data.object.type === 'adjustment');
  assert.ok(credited, feed.text.slice(0, 300));
  assert.equal(credited.data.object.source, { type: 'adjustment', id: credited.data.object.id });
  assert.not.ok(feed.text.includes('emp_'), "no operator's id reaches the merchant");
});

test('a withdrawal of 2^53−1 is 422 amount_not_supported (amount + fee would pass the safe range), not a 500', async () => {
  const m = await s.onboard('Huge withdrawal');
  await s.fund(m.id, 1_000_000);
  const ben = await s.beneficiary(m.id);
  const e = await refused(() => s.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben, { amount_minor: safeIntegerMax })), 'amount_not_supported');
  assert.is(e.details.min_minor, 10_000);
  assert.is(e.details.max_minor, safeIntegerMax - 1_070);
  // The largest amount whose total stays safe is a plain balance question.
  const largest = await refused(() => s.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben, { amount_minor: safeIntegerMax - 1_070 })), 'insufficient_balance');
  assert.is(largest.details.required_minor, safeIntegerMax);
  const q = await s.call(m.live.api_key, 'GET', `/v1/pay/quote?channel=withdrawal&amount_minor=${safeIntegerMax}`);
  expectError(q, 'amount_not_supported');
  const fine = await s.call(m.live.api_key, 'GET', `/v1/pay/quote?channel=withdrawal&amount_minor=${safeIntegerMax - 1_070}`);
  assert.is(fine.status, 200, fine.text);
  assert.is(fine.json.total_minor, safeIntegerMax);
});

test('a credit that would carry the merchant past 2^53−1 is 422 amount_not_supported; up to the limit it is presentable', async () => {
  const m = await s.onboard('Huge credit');
  await s.fund(m.id, 1_000_000);
  const e = await refused(() => adjust(m.id, { amount_minor: safeIntegerMax, direction: 'credit', bucket: 'available' }), 'amount_not_supported');
  assert.is(e.details.min_minor, 1);
  assert.is(e.details.max_minor, safeIntegerMax - 1_000_000);
  // A credit that large waits for a second operator (four eyes), who posts it.
  const proposed = await adjust(m.id, { amount_minor: safeIntegerMax - 1_000_000, direction: 'credit', bucket: 'available' });
  assert.is(proposed.status, 202, proposed.text);
  const top = await s.bo('POST', `/v1/bo/merchants/${m.id}/adjustments/${proposed.json.id}/approve`, { amount_minor: safeIntegerMax - 1_000_000 }, { sub: 'emp_second_pair', stepUp: true });
  assert.is(top.status, 201, top.text);
  assert.is(top.json.balance_after.available_minor, safeIntegerMax);
  const full = await refused(() => adjust(m.id, { amount_minor: 1, direction: 'credit', bucket: 'available' }), 'amount_not_supported');
  assert.is(full.details.max_minor, 0);
  const b = await s.call(m.live.api_key, 'GET', '/v1/pay/balance');
  assert.is(b.status, 200, b.text);
  assert.is(b.json.available_minor, safeIntegerMax);
  // Past the safe range the number itself is refused before the core sees it.
  for (const literal of ['9007199254740992', '1e308', '1.5', '"100"']) {
    const body = JSON.stringify({ livemode: true, amount_minor: '__a__', direction: 'credit', bucket: 'available', reason: 'x' }).replace('"__a__"', literal);
    await refused(async () => {
      const token = await s.operatorToken('emp_alice');
      const stepUp = await s.operatorToken('emp_alice', true);
      return s.raw('POST', `/v1/bo/merchants/${m.id}/adjustments`, {
        headers: { Authorization: `Bearer ${token}`, 'X-PG-Step-Up-Token': stepUp, 'Idempotency-Key': `k-${literal}`, 'Content-Type': 'application/json' }, body,
      });
    }, 'validation_error');
  }
});

test.run();
