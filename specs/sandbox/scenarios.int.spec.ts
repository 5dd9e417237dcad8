// The contract's "Sandbox scenarios", one test each, end to end: a real listening server
// on the manual clock, a merchant whose sandbox webhook endpoint is a real HTTP receiver,
// deposits created with the scenario's amount over signed HTTP, and the service clock
// moved with POST /v1/bo/clock/advance. Each test checks the exact events in delivery
// order (type, status, version), the reasons, the amounts and, where money moves, the
// sandbox balance history rows. Every scenario plays only on a sandbox key: the live
// test at the end creates the same amounts with the live key and sees nothing happen.

import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { depositBody } from '../support/server-harness.ts';
import { expectError, withdrawalBody } from '../support/api-checks.ts';
import { jpegSlip, uploadFile } from '../support/slip-harness.ts';
import { addEndpoint, nobleVerifies, publishedKeys, Receiver, until } from '../webhooks/support.ts';
import {
  advanceSeconds, awaitEvents, delivered, eventsOf, getSandboxDeposit, nextShop, sandboxDeposit, sandboxHistory, sandboxScene, secondsAfter, shape, stopScene, type SandboxScene,
} from './support.ts';

let base: SandboxScene;
test.before(async () => { base = await sandboxScene(); });
test.after(async () => { await stopScene(base); });

const opening: [string, string, number][] = [['deposit.created', 'awaiting_payment', 0], ['deposit.matched', 'awaiting_payment', 1]];

test('10000: matched at once, automatic slip check, settled 5 s after creation; history shows the credit and the fee', async () => {
  const scene = await nextShop(base);
  const d = await sandboxDeposit(scene, 10_000);
  assert.is(d.status, 'awaiting_payment', 'a sandbox deposit gets its leg at once');
  assert.is(d.legs.length, 1);
  await advanceSeconds(scene, 4);
  assert.is((await getSandboxDeposit(scene, d.id)).status, 'awaiting_payment', 'not before 5 s');
  await advanceSeconds(scene, 1);
  const events = await awaitEvents(scene, d.id, 4);
  assert.equal(shape(events), [...opening, ['deposit.slip_received', 'slip_processing', 2], ['deposit.settled', 'settled', 3]]);
  assert.ok(events.every((e) => e.livemode === false && e.object.livemode === false));
  assert.ok(events.every((e, i) => i === 0 || e.sequence === events[i - 1]!.sequence + 1), 'sequences follow one another');
  const settled = events[3]!.object;
  assert.is(settled.settled_at, secondsAfter(d.created_at, 5));
  assert.equal([settled.ordered_amount_minor, settled.transferred_amount_minor, settled.amount_received_minor, settled.partial, settled.settled_via], [10_000, 10_000, 10_000, false, 'auto']);
  assert.is(settled.amount_received_minor - settled.fee_total_minor, settled.credited_amount_minor);
  const history = await sandboxHistory(scene);
  assert.equal(history.data.map((r: any) => r.bucket_deltas.available_minor), ['10000', String(-settled.fee_total_minor)]);
  assert.ok(history.data.every((r: any) => r.id.startsWith('sbxbtxn_l_') && r.bucket_deltas.pending_clearing_minor === '0'));
  // No end user uploaded an image: the sandbox bank's placeholder answers the slip download, as a live slip would.
  const slip = await scene.s.call(scene.shop.sandbox.api_key, 'GET', `/v1/pay/deposits/${d.id}/slip`);
  assert.is(slip.status, 200, slip.text);
  assert.equal([slip.headers.get('content-type'), slip.headers.get('cache-control')], ['image/png', 'no-store']);
  assert.equal(Buffer.from(slip.text, 'latin1').subarray(1, 4).toString(), 'PNG');
});

/** A scenario whose transfer at +5 s opens a review with `reason`: the deposit and the scene. */
async function reviewedAt5s(amount: number, reason: string): Promise<{ scene: SandboxScene; d: any }> {
  const scene = await nextShop(base);
  const d = await sandboxDeposit(scene, amount);
  await advanceSeconds(scene, 5);
  const events = await awaitEvents(scene, d.id, 4);
  assert.equal(shape(events), [...opening, ['deposit.slip_received', 'slip_processing', 2], ['deposit.under_review', 'under_review', 3]]);
  assert.ok(events[3]!.object.review.reasons.some((r: any) => r.code === reason), reason);
  return { scene, d };
}

test('10100: under_review with SENDER_NAME_MISMATCH until an operator approves it', async () => {
  const { scene, d } = await reviewedAt5s(10_100, 'SENDER_NAME_MISMATCH');
  assert.equal(eventsOf(scene, d.id)[3]!.object.review.reasons.map((r: any) => r.code), ['SENDER_NAME_MISMATCH']);
  await advanceSeconds(scene, 120);
  assert.is((await getSandboxDeposit(scene, d.id)).status, 'under_review', 'it waits for a person');
  const approved = await scene.s.bo('POST', `/v1/bo/deposits/${d.id}/approve`, { note: 'The sender is the account holder spouse.' });
  assert.is(approved.status, 200, approved.text);
  const after = await awaitEvents(scene, d.id, 5);
  assert.equal(shape(after).at(-1), ['deposit.settled', 'settled', 4]);
  assert.is(after.at(-1)!.object.settled_via, 'review');
});

test('10200: expired at +5 s, late slip 60 s later, under_review LATE_SLIP, then settled', async () => {
  const scene = await nextShop(base);
  const d = await sandboxDeposit(scene, 10_200);
  await advanceSeconds(scene, 5);
  await advanceSeconds(scene, 60);
  await advanceSeconds(scene, 5);
  const events = await awaitEvents(scene, d.id, 6);
  assert.equal(shape(events), [...opening, ['deposit.expired', 'expired', 2], ['deposit.slip_received', 'slip_processing', 3], ['deposit.under_review', 'under_review', 4], ['deposit.settled', 'settled', 5]]);
  assert.is(events[2]!.object.is_terminal, false);
  assert.ok(events[2]!.object.late_slip_accepted_until, 'the late window is open');
  assert.is(events[3]!.object.slip.is_late, true);
  assert.is(events[3]!.object.slip.received_at, secondsAfter(d.created_at, 65));
  assert.equal(events[4]!.object.review.reasons.map((r: any) => r.code), ['LATE_SLIP']);
  assert.equal([events[5]!.object.amount_received_minor, events[5]!.object.settled_via], [10_200, 'review']);
});

test('10300: settled, then reversed 60 s later; history shows the reversal rows', async () => {
  const scene = await nextShop(base);
  const d = await sandboxDeposit(scene, 10_300);
  await advanceSeconds(scene, 5);
  await advanceSeconds(scene, 59);
  assert.equal(shape(await awaitEvents(scene, d.id, 4)).at(-1), ['deposit.settled', 'settled', 3]);
  await advanceSeconds(scene, 1);
  const events = await awaitEvents(scene, d.id, 5);
  assert.equal(shape(events), [...opening, ['deposit.slip_received', 'slip_processing', 2], ['deposit.settled', 'settled', 3], ['deposit.reversed', 'reversed', 4]]);
  assert.is(events[4]!.previous.status, 'settled');
  const rows = (await sandboxHistory(scene)).data.map((r: any) => r.bucket_deltas.available_minor);
  const fee = events[3]!.object.fee_total_minor;
  assert.equal(rows, ['10300', String(-fee), String(fee), '-10300'], 'principal, fee, fee refund, reversal');
  const balance = (await scene.s.call(scene.shop.sandbox.api_key, 'GET', '/v1/pay/balance')).json;
  assert.equal([balance.available_minor, balance.pending_clearing_minor], [0, 0]);
});

/** Every id an object names a balance transaction by (itself, what it reverses or clears, an order's settlement, reversal, reserve and fills). */
function balanceTransactionIds(o: any): string[] {
  const ids = o.object === 'balance_transaction'
    ? [o.id, o.reverses_balance_transaction_id, o.cleared_from_balance_transaction_id, o.source.type === 'adjustment' ? o.source.id : undefined]
    : [o.balance_transaction_id, o.reversal?.balance_transaction_id, o.reversal?.reverses_balance_transaction_id, o.reserved_balance_transaction_id,
      ...(o.fills ?? []).flatMap((f: any) => [f.balance_transaction_id, f.reversal_balance_transaction_id])];
  return ids.filter((id): id is string => id !== undefined);
}

test('10300 and a fill of the merchant\'s own withdrawal: every balance transaction id its events and GETs name is a sandbox history row\'s', async () => {
  const scene = await nextShop(base);
  const funded = await scene.s.bo('POST', `/v1/bo/merchants/${scene.shop.id}/adjustments`, { livemode: false, amount_minor: 1_000_000, direction: 'credit', bucket: 'available', reason: 'funding' }, { stepUp: true });
  assert.is(funded.status, 201, funded.text);
  const ben = await scene.s.beneficiary(scene.shop.id, false);
  await advanceSeconds(scene, 31); // the beneficiary's verification
  const w = await scene.s.call(scene.shop.sandbox.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben, { amount_minor: 10_000 }));
  assert.is(w.status, 201, w.text);
  const filling = await sandboxDeposit(scene, 10_000);
  assert.is(filling.liquidity_source, 'internal', 'it pays the merchant\'s own withdrawal');
  await advanceSeconds(scene, 5);
  const d = await sandboxDeposit(scene, 10_300);
  await advanceSeconds(scene, 5);
  await advanceSeconds(scene, 60);
  assert.equal(shape(await awaitEvents(scene, d.id, 5)).at(-1), ['deposit.reversed', 'reversed', 4]);
  const rows = new Set<string>((await sandboxHistory(scene)).data.map((r: any) => r.id));
  await until(() => delivered(scene).filter((e) => e.object.object === 'balance_transaction').length >= rows.size, 5000).catch(() => undefined);
  const events = delivered(scene);
  const announced = events.filter((e) => e.object.object === 'balance_transaction').map((e) => e.object.id);
  assert.equal([...announced].sort(), [...rows].sort(), 'each history row announced once, under its own id');
  const gets = [
    await getSandboxDeposit(scene, d.id), await getSandboxDeposit(scene, filling.id),
    (await scene.s.call(scene.shop.sandbox.api_key, 'GET', `/v1/pay/withdrawals/${w.json.id}`)).json,
  ];
  // As delivered, the withdrawal.filled's own fill object included.
  const bodies = scene.receiver.received.map((r) => JSON.parse(r.body.toString('utf8')).data);
  const named = [...bodies.flatMap((b) => [b.object, ...(b.fill ? [{ fills: [b.fill] }] : [])]), ...gets, funded.json].flatMap(balanceTransactionIds);
  assert.ok(named.length > rows.size, 'orders name their transactions too');
  for (const id of named) assert.ok(rows.has(id), `${id} is no history row's id`);
  const reversed = gets[0];
  assert.ok(rows.has(reversed.reversal.reverses_balance_transaction_id) && reversed.reversal.reverses_balance_transaction_id === reversed.balance_transaction_id, 'the reversal names the settlement\'s row');
  assert.ok(gets[2].fills.length === 1 && rows.has(gets[2].fills[0].balance_transaction_id), 'the fill names its row');
  // The back office's view of the order names them so too.
  const view = await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`);
  assert.is(view.status, 200, view.text);
  const steps = view.json.timeline.filter((t: any) => t.step === 'balance_transaction' || t.step === 'reversed');
  assert.ok(steps.length >= 5, 'its balance transactions and its reversal');
  for (const t of steps) assert.ok(rows.has(t.detail.id ?? t.detail.balance_transaction_id), `timeline ${t.step} ${JSON.stringify(t.detail)}`);
  // A balance transaction's step names it so as its stream too (the journal's row is the step's seq).
  for (const t of steps.filter((x: any) => x.step === 'balance_transaction')) assert.is(t.stream, t.detail.id, `timeline stream ${t.stream}`);
  assert.equal(view.json.deposit.reversal, reversed.reversal);
});

test('10400: fallback route with 2 legs whose TTL is 4 minutes', async () => {
  const scene = await nextShop(base);
  const d = await sandboxDeposit(scene, 10_400);
  assert.equal([d.status, d.liquidity_source, d.legs.length], ['awaiting_payment', 'external_gateway', 2]);
  assert.is(d.legs[0].amount_minor + d.legs[1].amount_minor, 10_400);
  assert.is(d.expires_at, secondsAfter(d.created_at, 240));
  assert.ok(d.legs.every((l: any) => l.expires_at === d.expires_at));
  await advanceSeconds(scene, 240);
  const events = await awaitEvents(scene, d.id, 3);
  assert.equal(shape(events), [...opening, ['deposit.expired', 'expired', 2]]);
});

test('10400 with fill_preference internal_only: no fallback route, it waits for internal liquidity as live does', async () => {
  const scene = await nextShop(base);
  const d = await sandboxDeposit(scene, 10_400, { fill_preference: 'internal_only' });
  assert.equal([d.status, d.legs.length], ['awaiting_liquidity', 0]);
  assert.is.not(d.liquidity_source, 'external_gateway');
  await advanceSeconds(scene, 240);
  const after = await getSandboxDeposit(scene, d.id);
  assert.equal([after.status, after.legs.length], ['awaiting_liquidity', 0], 'no gateway leg later either');
  await advanceSeconds(scene, 360);
  assert.is((await getSandboxDeposit(scene, d.id)).status, 'canceled', 'the liquidity wait (10 minutes) ends it');
});

test('10500: awaiting_liquidity for 25 s, then matched', async () => {
  const scene = await nextShop(base);
  const d = await sandboxDeposit(scene, 10_500);
  assert.is(d.status, 'awaiting_liquidity');
  assert.is(d.liquidity.estimated_wait_ms, 25_000, 'the wait it tells is the wait it plays');
  await advanceSeconds(scene, 24);
  assert.is((await getSandboxDeposit(scene, d.id)).status, 'awaiting_liquidity');
  await advanceSeconds(scene, 1);
  const events = await awaitEvents(scene, d.id, 3);
  assert.equal(shape(events), [['deposit.created', 'awaiting_liquidity', 0], ['deposit.awaiting_liquidity', 'awaiting_liquidity', 1], ['deposit.matched', 'awaiting_payment', 2]]);
  assert.is(events[2]!.object.legs.length, 1);
});

test('10600: under_review with BANK_DISABLED', async () => {
  const { scene, d } = await reviewedAt5s(10_600, 'BANK_DISABLED');
  assert.equal(eventsOf(scene, d.id)[3]!.object.review.reasons.map((r: any) => r.code), ['BANK_DISABLED']);
});

test('10700: the counterparty withdrawal split into 3 chunks (3 legs)', async () => {
  const scene = await nextShop(base);
  const d = await sandboxDeposit(scene, 10_700);
  assert.is(d.legs.length, 3);
  assert.equal(d.legs.map((l: any) => l.sequence), [1, 2, 3]);
  assert.is(d.legs.reduce((sum: number, l: any) => sum + l.amount_minor, 0), 10_700);
  assert.is(new Set(d.legs.map((l: any) => l.receiver.account_number_masked)).size, 3, 'each leg its own receiving account');
  assert.equal(shape(await awaitEvents(scene, d.id, 2)), opening);
});

test('10800: settled, then deposit.overpaid 45 s later (additional_transfer; V and A unchanged)', async () => {
  const scene = await nextShop(base);
  const d = await sandboxDeposit(scene, 10_800);
  await advanceSeconds(scene, 5);
  await advanceSeconds(scene, 45);
  const events = await awaitEvents(scene, d.id, 5);
  assert.equal(events.map((e) => e.type), ['deposit.created', 'deposit.matched', 'deposit.slip_received', 'deposit.settled', 'deposit.overpaid']);
  const [settled, overpaid] = [events[3]!.object, events[4]!.object];
  assert.ok(overpaid.version > settled.version);
  assert.equal([overpaid.status, overpaid.transferred_amount_minor, overpaid.amount_received_minor], ['settled', 10_800, 10_800]);
  assert.equal([overpaid.overpayment.cause, overpaid.overpayment.amount_minor, overpaid.overpayment.status], ['additional_transfer', 10_800, 'open']);
  assert.is(settled.overpayment, null);
});

test('10900: canceled, then a transfer arrives: late slip, under_review CANCELED_ORDER_SLIP', async () => {
  const scene = await nextShop(base);
  const d = await sandboxDeposit(scene, 10_900);
  await advanceSeconds(scene, 5);
  await advanceSeconds(scene, 60);
  const events = await awaitEvents(scene, d.id, 5);
  assert.equal(shape(events), [...opening, ['deposit.canceled', 'canceled', 2], ['deposit.slip_received', 'slip_processing', 3], ['deposit.under_review', 'under_review', 4]]);
  assert.is(events[3]!.object.slip.is_late, true);
  assert.is(events[4]!.object.review.reasons[0].code, 'CANCELED_ORDER_SLIP');
});

test('11000: ALLOCATION_CONFLICT on the deposit plus withdrawal.disputed on the counterparty (the merchant\'s own sandbox withdrawal)', async () => {
  const scene = await nextShop(base);
  await scene.s.fund(scene.shop.id, 1_000_000, false);
  const ben = await scene.s.beneficiary(scene.shop.id, false);
  await advanceSeconds(scene, 31); // the beneficiary's verification
  const w = await scene.s.call(scene.shop.sandbox.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben, { amount_minor: 50_000 }));
  assert.is(w.status, 201, w.text);
  const first = await sandboxDeposit(scene, 10_000);
  assert.is(first.legs.length, 1);
  assert.is(first.liquidity_source, 'internal');
  await advanceSeconds(scene, 5);
  assert.is((await awaitEvents(scene, first.id, 4)).at(-1)!.object.status, 'settled');
  const d = await sandboxDeposit(scene, 11_000);
  await advanceSeconds(scene, 5);
  const events = await awaitEvents(scene, d.id, 4);
  assert.equal(shape(events).at(-1), ['deposit.under_review', 'under_review', 3]);
  assert.ok(events[3]!.object.review.reasons.some((r: any) => r.code === 'ALLOCATION_CONFLICT'));
  const withdrawalEvents = await awaitEvents(scene, w.json.id, 5);
  const types = withdrawalEvents.map((e) => e.type);
  assert.ok(types.includes('withdrawal.filled'), types.join());
  assert.is(types.at(-1), 'withdrawal.disputed', types.join());
  assert.is(withdrawalEvents.at(-1)!.object.dispute.status, 'open');
  assert.is(withdrawalEvents.at(-1)!.object.dispute.amount_minor, 10_000, 'at most what was filled');
});

test('11100: clean short-pay: settled automatically, A = V < X, partial true', async () => {
  const scene = await nextShop(base);
  const d = await sandboxDeposit(scene, 11_100);
  await advanceSeconds(scene, 5);
  const events = await awaitEvents(scene, d.id, 4);
  assert.equal(shape(events), [...opening, ['deposit.slip_received', 'slip_processing', 2], ['deposit.settled', 'settled', 3]]);
  const o = events[3]!.object;
  assert.equal([o.ordered_amount_minor, o.transferred_amount_minor, o.amount_received_minor, o.partial, o.settled_via, o.overpayment], [11_100, 10_000, 10_000, true, 'auto', null]);
});

test('11200: the late-slip window closes; a slip then gets 410 late_slip_window_closed with claim_url', async () => {
  const scene = await nextShop(base);
  const d = await sandboxDeposit(scene, 11_200);
  await advanceSeconds(scene, 5);
  const events = await awaitEvents(scene, d.id, 4);
  assert.equal(shape(events), [...opening, ['deposit.expired', 'expired', 2], ['deposit.expired', 'expired', 3]]);
  assert.equal([events[2]!.object.is_terminal, events[3]!.object.is_terminal], [false, true]);
  const r = await uploadFile(d.slip_upload, jpegSlip());
  const { details } = expectError(r, 'late_slip_window_closed');
  assert.match(String(details.claim_url), /^https?:\/\//);
  assert.is(details.deposit_id, d.id);
  // The window closed early (the scenario's clock): it says when, never a time still to come.
  const closedAt = events[3]!.object.late_slip_accepted_until as string;
  assert.is(details.late_slip_accepted_until, closedAt);
  assert.ok(Date.parse(closedAt) <= scene.s.clock.now(), `closed at ${closedAt}, now ${new Date(scene.s.clock.now()).toISOString()}`);
});

test('11300: a sandbox withdrawal of 11300 gets 402 insufficient_balance naming the clearing funds', async () => {
  const scene = await nextShop(base);
  const paid = await sandboxDeposit(scene, 10_000);
  await advanceSeconds(scene, 5);
  const settled = (await awaitEvents(scene, paid.id, 4)).at(-1)!.object;
  await scene.s.fund(scene.shop.id, 1_000_000, false);
  const ben = await scene.s.beneficiary(scene.shop.id, false);
  await advanceSeconds(scene, 31); // the beneficiary's verification
  const r = await scene.s.call(scene.shop.sandbox.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben, { amount_minor: 11_300 }));
  const { details } = expectError(r, 'insufficient_balance');
  // The wallet as if what is available were all still clearing: the figures agree with the refusal.
  assert.equal([details.available_minor, details.required_minor > 0], [0, true]);
  assert.is(String(details.pending_clearing_minor), String(settled.credited_amount_minor + 1_000_000));
  assert.is(details.pending_clearing_available_at, settled.clearing_available_at);
  const other = await scene.s.call(scene.shop.sandbox.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben, { amount_minor: 11_400 }));
  assert.is(other.status, 201, `an ordinary amount is not refused: ${other.text}`);
});

test('11400: webhook.key.rotating, then the sandbox kid switches within 60 s; the live key never moves', async () => {
  const scene = await nextShop(base);
  const liveReceiver = await Receiver.start(() => scene.s.clock.now());
  await addEndpoint(scene.s, scene.shop.id, liveReceiver.url, true);
  const liveBefore = (await publishedKeys(scene.s)).keys.map((k) => [k.kid, k.status]);
  await scene.s.fund(scene.shop.id, 1_000, true);
  await advanceSeconds(scene, 0);
  await until(() => liveReceiver.received.length === 1);
  const liveKid = (await nobleVerifies(liveReceiver.received[0]!, await publishedKeys(scene.s))).kid;

  const d = await sandboxDeposit(scene, 11_400);
  await advanceSeconds(scene, 0);
  await until(() => delivered(scene).some((e) => e.type === 'webhook.key.rotating'));
  const all = delivered(scene);
  // The announcement is fanned out as deposit.created is: it may arrive before deposit.matched.
  assert.equal(all.map((e) => e.type).slice(0, 3).sort(), ['deposit.created', 'deposit.matched', 'webhook.key.rotating']);
  assert.is(all.filter((e) => e.type === 'webhook.key.rotating').length, 1);
  const rotating = all.find((e) => e.type === 'webhook.key.rotating')!;
  const keys = await publishedKeys(scene.s);
  const before = await nobleVerifies(scene.receiver.received[0]!, keys);
  assert.ok(before.ok);
  assert.is(rotating.object.previous_kid, before.kid);
  assert.is(rotating.object.not_before, new Date(scene.s.clock.now() + 60_000).toISOString());
  assert.is(keys.keys.find((k) => k.kid === rotating.object.kid)?.status, 'next');
  assert.not.equal(before.kid, liveKid, 'sandbox deliveries are signed by a sandbox key of their own');

  await advanceSeconds(scene, 60);
  await scene.s.fund(scene.shop.id, 1_000, false);
  await scene.s.fund(scene.shop.id, 1_000, true);
  await advanceSeconds(scene, 0);
  await until(() => liveReceiver.received.length === 2);
  const after = await publishedKeys(scene.s);
  const last = scene.receiver.received.at(-1)!;
  const signed = await nobleVerifies(last, after);
  assert.ok(signed.ok);
  assert.is(signed.kid, rotating.object.kid, 'the sandbox kid switched');
  const liveNow = await nobleVerifies(liveReceiver.received[1]!, after);
  assert.equal([liveNow.ok, liveNow.kid], [true, liveKid], 'live deliveries keep the live key');
  assert.ok(liveBefore.every(([kid]) => after.keys.find((k) => k.kid === kid)?.status !== 'next'));
  assert.is(after.keys.filter((k) => k.kid === liveKid)[0]!.status, 'active', 'the live key is untouched');
  assert.ok(eventsOf(scene, d.id).length >= 2);
});

test('11500: idempotency conflict: the same key with a different body is 409 idempotency_key_reused', async () => {
  const scene = await nextShop(base);
  const key = `idem-${randomUUID()}`;
  const first = await scene.s.call(scene.shop.sandbox.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 11_500 }), { idempotencyKey: key });
  assert.is(first.status, 201, first.text);
  const again = await scene.s.call(scene.shop.sandbox.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 11_500 }), { idempotencyKey: key });
  expectError(again, 'idempotency_key_reused');
});

test('11600: same-slip overpayment: one deposit.settled with A = X, E = 500, an open flag, no deposit.overpaid', async () => {
  const scene = await nextShop(base);
  const d = await sandboxDeposit(scene, 11_600);
  await advanceSeconds(scene, 5);
  await advanceSeconds(scene, 3600);
  const events = await awaitEvents(scene, d.id, 4);
  assert.equal(shape(events), [...opening, ['deposit.slip_received', 'slip_processing', 2], ['deposit.settled', 'settled', 3]]);
  const o = events[3]!.object;
  assert.equal([o.ordered_amount_minor, o.transferred_amount_minor, o.amount_received_minor], [11_600, 12_100, 11_600]);
  assert.equal([o.overpayment.cause, o.overpayment.amount_minor, o.overpayment.status], ['same_transfer_excess', 500, 'open']);
  const rows = (await sandboxHistory(scene)).data.map((r: any) => r.bucket_deltas.available_minor);
  assert.equal(rows, ['11600', String(-o.fee_total_minor)], 'the excess is no credit of the merchant: no auto refund, no row');
});

test('live mode: the scenario amounts are ordinary amounts', async () => {
  const scene = await nextShop(base);
  const live = await scene.s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 10_000 }));
  assert.is(live.status, 202, live.text);
  assert.is(live.json.status, 'awaiting_liquidity', 'live has no simulated counterparty');
  await advanceSeconds(scene, 65);
  const r = await scene.s.call(scene.shop.live.api_key, 'GET', `/v1/pay/deposits/${live.json.id}`);
  assert.is(r.json.status, 'awaiting_liquidity', 'no scenario step on a live key');
  assert.is(eventsOf(scene, live.json.id).length, 0, 'the sandbox endpoint hears nothing of live');
});

test.run();
