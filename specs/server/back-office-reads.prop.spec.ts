// Dashboard and wallet against the ledger, as a property over real HTTP: after a random
// sequence of merchant and operator commands (funding, withdrawals, deposits paid exactly
// or to review, cancels, clock advances), for every merchant of the run
//   - GET /v1/bo/wallet equals GET /v1/pay/balance and the sum of the merchant's postings
//     in journal.db, bucket by bucket (the ledger);
//   - GET /v1/bo/dashboard (scoped to the merchant) equals what the write side's orders
//     say: orders created today by status with their amounts, the settled volume, the
//     review queue and its oldest age, the deposits waiting for liquidity; and its series:
//     the hourly volumes (deposits settled and fills landed, by the hour they happened),
//     the hourly slips, and the review queue's age histogram, each recomputed here from
//     the write side's snapshots.
// Plus: the merchant and white-label directories find what was onboarded, by search.
// Bounded: numRuns × commands ≤ 8 × (2 + 14); on failure fast-check prints the sequence.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { depositBody, sender, TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { pngSlip, registerTransfer, sha256Hex, uploadFile } from '../support/slip-harness.ts';
import { businessDayStart } from '../../server/routes/bo-reads.ts';
import { backOfficeLimits, durations } from '../../core/limits.ts';
import { allDeposits, allWithdrawals } from '../support/orders.ts';

let s: TestServer;
test.before(async () => { s = await TestServer.start({}, undefined, { slipWorker: 'manual' }); });
test.after(async () => { await s.stop(); });

interface Run { payer: MerchantKeys; shop: MerchantKeys; payee: { bank_code: string; account_number: string; account_name: string }; beneficiary: string; deposits: any[]; withdrawals: string[] }

type Cmd =
  | { kind: 'fund'; amount: number }
  | { kind: 'withdraw'; amount: number }
  | { kind: 'deposit'; amount: number }
  | { kind: 'pay'; index: number; exact: boolean }
  | { kind: 'cancelDeposit'; index: number }
  | { kind: 'cancelWithdrawal'; index: number }
  | { kind: 'advance'; seconds: number };

// Deposits and payments weigh more, and advances reach past the hour now and then, so that
// runs settle, review and age across hours (what the dashboard's series are about).
const commandArb: fc.Arbitrary<Cmd> = fc.oneof(
  fc.record({ kind: fc.constant('fund' as const), amount: fc.integer({ min: 1, max: 50 }).map((x) => x * 10_000) }),
  fc.record({ kind: fc.constant('withdraw' as const), amount: fc.integer({ min: 1, max: 20 }).map((x) => x * 10_000) }),
  { arbitrary: fc.record({ kind: fc.constant('deposit' as const), amount: fc.integer({ min: 20, max: 1_000 }).map((x) => x * 100) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('pay' as const), index: fc.nat(20), exact: fc.boolean() }), weight: 3 },
  fc.record({ kind: fc.constant('cancelDeposit' as const), index: fc.nat(20) }),
  fc.record({ kind: fc.constant('cancelWithdrawal' as const), index: fc.nat(20) }),
  { arbitrary: fc.record({ kind: fc.constant('advance' as const), seconds: fc.oneof(fc.integer({ min: 1, max: 1_200 }), fc.integer({ min: 1_200, max: 5 * 3_600 })) }), weight: 2 },
);

/** Every run starts with a funded payer and an open withdrawal, so its deposits find a destination. */
const prelude: readonly Cmd[] = [{ kind: 'fund', amount: 2_000_000 }, { kind: 'withdraw', amount: 1_000_000 }];

async function runCommand(r: Run, c: Cmd): Promise<void> {
  switch (c.kind) {
    case 'fund': await s.fund(r.payer.id, c.amount); return;
    case 'withdraw': {
      const w = await s.call(r.payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: c.amount, currency: 'THB', merchant_reference: `p-${randomUUID()}`, end_user_ref: 'payee', beneficiary_id: r.beneficiary });
      if (w.status === 201) r.withdrawals.push(w.json.id);
      return;
    }
    case 'deposit': {
      const d = await s.call(r.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: c.amount, fill_preference: 'internal_only', end_user_ref: `u-${randomUUID()}` }));
      if (d.status === 201 || d.status === 202) r.deposits.push(d.json);
      return;
    }
    case 'pay': {
      const d = r.deposits[c.index % Math.max(1, r.deposits.length)];
      if (!d?.slip_upload || d.legs.length !== 1) return;
      const image = pngSlip();
      const from = c.exact ? sender : { ...sender, account_name_th: 'สมศักดิ์ มีเงิน' };
      await registerTransfer(s, { trans_ref: `TR${randomUUID().replace(/-/g, '').slice(0, 18)}`, amount_minor: d.amount_minor, occurred_at: new Date(s.clock.now()).toISOString(), sender: from, receiver: r.payee, image_sha256: sha256Hex(image) });
      await uploadFile(d.slip_upload, image); // a closed order answers 409/410: part of the sequence
      await s.running.slipWorker.drain();
      return;
    }
    case 'cancelDeposit': {
      const d = r.deposits[c.index % Math.max(1, r.deposits.length)];
      if (d) await s.call(r.shop.live.api_key, 'POST', `/v1/pay/deposits/${d.id}/cancel`, {});
      return;
    }
    case 'cancelWithdrawal': {
      const id = r.withdrawals[c.index % Math.max(1, r.withdrawals.length)];
      if (id) await s.call(r.payer.live.api_key, 'POST', `/v1/pay/withdrawals/${id}/cancel`, {});
      return;
    }
    case 'advance': await s.running.services.write.advanceClock!(c.seconds * 1000); return;
    default: { const _never: never = c; return _never; }
  }
}

/** The merchant's buckets as the postings in journal.db sum them. */
function ledgerBuckets(merchantId: string): Record<string, number> {
  const rows = s.running.store.db.prepare('SELECT account, sum(amount) AS total FROM postings WHERE account LIKE ? GROUP BY account').all(`${merchantId}:live:%`) as { account: string; total: number }[];
  const of = (bucket: string) => rows.find((x) => x.account === `${merchantId}:live:${bucket}`)?.total ?? 0;
  return { available_minor: of('available'), pending_clearing_minor: of('pending_clearing'), reserved_minor: of('reserved') };
}

/** What the dashboard must say for one merchant, computed from every order's snapshot. */
function expectedDashboard(merchantId: string) {
  const now = s.clock.now();
  const since = businessDayStart(now);
  const group = (orders: { status: string; createdAt: number; amount: bigint }[]) => {
    const by = new Map<string, { count: number; amount: number }>();
    for (const o of orders.filter((x) => x.createdAt >= since)) {
      const g = by.get(o.status) ?? { count: 0, amount: 0 };
      by.set(o.status, { count: g.count + 1, amount: g.amount + Number(o.amount) });
    }
    return [...by.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([status, g]) => ({ status, count: g.count, amount_minor: g.amount }));
  };
  // Every order, closed ones included (the world keeps open ones only).
  const deposits = allDeposits(s.running.store.db).filter((d) => d.merchantId === merchantId && d.livemode);
  const withdrawals = allWithdrawals(s.running.store.db).filter((w) => w.merchantId === merchantId && w.livemode);
  const review = deposits.filter((d) => d.status === 'under_review');
  const waiting = deposits.filter((d) => d.status === 'awaiting_liquidity');
  const oldest = review.length === 0 ? null : Math.min(...review.map((d) => d.review!.openedAt));
  // The series, by the hour (0–23 from the day's start) in which each thing happened.
  const hourOf = (at: number) => (at >= since && at < since + durations.day ? Math.floor((at - since) / durations.hour) : undefined);
  const hours = Array.from({ length: 24 }, (_, i) => ({ hour_start: new Date(since + i * durations.hour).toISOString(), deposits_settled_count: 0, deposits_settled_minor: 0, withdrawals_filled_minor: 0 }));
  const slips = hours.map((h) => ({ hour_start: h.hour_start, slips: 0, provider_errors: 0 }));
  for (const d of deposits) {
    const settled = d.status === 'settled' ? hourOf(d.settlement!.settledAt) : undefined;
    if (settled !== undefined) { hours[settled]!.deposits_settled_count++; hours[settled]!.deposits_settled_minor += Number(d.settlement!.receivedMinor); }
    const slipped = d.slip ? hourOf(d.slip.receivedAt) : undefined;
    if (slipped !== undefined) {
      slips[slipped]!.slips++;
      if (d.review?.reasons.some((r) => r.code === 'PROVIDER_UNAVAILABLE')) slips[slipped]!.provider_errors++;
    }
  }
  for (const f of withdrawals.flatMap((w) => w.fills)) {
    const filled = f.reversal ? undefined : hourOf(f.settledAt);
    if (filled !== undefined) hours[filled]!.withdrawals_filled_minor += Number(f.amountMinor);
  }
  const edges = [0, ...backOfficeLimits.reviewAgeBucketEdgesSeconds, Infinity];
  const ages = review.map((d) => Math.floor((now - d.review!.openedAt) / 1000));
  const ageCounts = edges.slice(1).map((upper, i) => ages.filter((a) => a >= edges[i]! && a < upper).length);
  return {
    deposits: group(deposits.map((d) => ({ status: d.status, createdAt: d.createdAt, amount: d.amountMinor }))),
    withdrawals: group(withdrawals.map((w) => ({ status: w.status, createdAt: w.createdAt, amount: w.amountTotalMinor }))),
    received: deposits.filter((d) => d.status === 'settled' && d.createdAt >= since).reduce((a, d) => a + Number(d.settlement!.receivedMinor), 0),
    filled: withdrawals.filter((w) => w.createdAt >= since).reduce((a, w) => a + Number(w.filledMinor), 0),
    review: { size: review.length, oldest_age_seconds: oldest === null ? null : Math.floor((now - oldest) / 1000) },
    waiting: { deposits: waiting.length, amount_minor: waiting.reduce((a, d) => a + Number(d.amountMinor), 0) },
    hours, slips, ageCounts,
  };
}

async function check(r: Run): Promise<void> {
  for (const m of [r.payer, r.shop]) {
    const wallet = await s.bo('GET', `/v1/bo/wallet?merchant_id=${m.id}&livemode=true`, undefined, { roles: ['finance'] });
    assert.is(wallet.status, 200, wallet.text);
    const { available_minor, pending_clearing_minor, reserved_minor } = wallet.json;
    assert.equal({ available_minor, pending_clearing_minor, reserved_minor }, ledgerBuckets(m.id), `wallet of ${m.id} = its postings`);
    const balance = (await s.call(m.live.api_key, 'GET', '/v1/pay/balance')).json;
    assert.equal({ available_minor, pending_clearing_minor, reserved_minor }, { available_minor: balance.available_minor, pending_clearing_minor: balance.pending_clearing_minor, reserved_minor: balance.reserved_minor });

    const dash = await s.bo('GET', `/v1/bo/dashboard?merchant_id=${m.id}`, undefined, { roles: ['finance'] });
    assert.is(dash.status, 200, dash.text);
    const want = expectedDashboard(m.id);
    assert.equal(dash.json.orders_today.deposits, want.deposits, 'deposits by status');
    assert.equal(dash.json.orders_today.withdrawals, want.withdrawals, 'withdrawals by status');
    assert.is(dash.json.volumes_today.deposits_received_minor, want.received);
    assert.is(dash.json.volumes_today.withdrawals_filled_minor, want.filled);
    assert.equal({ size: dash.json.review_queue.size, oldest_age_seconds: dash.json.review_queue.oldest_age_seconds }, want.review);
    assert.equal({ deposits: dash.json.liquidity_waiting.deposits, amount_minor: dash.json.liquidity_waiting.amount_minor }, want.waiting);
    assert.equal(dash.json.volumes_by_hour.hours, want.hours, 'volumes by hour');
    assert.equal(dash.json.slip_provider_by_hour.hours, want.slips, 'slips by hour');
    assert.equal(dash.json.review_queue.age_buckets.map((b: any) => b.count), want.ageCounts, 'review ages');
    assert.is(want.ageCounts.reduce((a, c) => a + c, 0), want.review.size);
    for (const figure of ['orders_today', 'volumes_today', 'volumes_by_hour', 'review_queue', 'liquidity_waiting', 'webhooks_last_24h', 'slip_provider_today', 'slip_provider_by_hour']) assert.type(dash.json[figure].as_of, 'string');
  }
}

test('dashboard and wallet equal the ledger and the write side after a random sequence of commands', async () => {
  let runs = 0;
  await fc.assert(fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 14 }), async (commands) => {
    runs++;
    const payer = await s.onboard(`Prop payer ${runs}`);
    const shop = await s.onboard(`Prop shop ${runs}`, payer.whiteLabelId);
    const payee = { bank_code: '004', account_number: `55500${String(runs).padStart(5, '0')}`, account_name: 'สมหญิง รักดี' };
    const beneficiary = await s.beneficiary(payer.id, true, payee.account_number);
    const r: Run = { payer, shop, payee, beneficiary, deposits: [], withdrawals: [] };
    for (const c of [...prelude, ...commands]) await runCommand(r, c);
    try {
      await check(r);
    } catch (error) {
      console.error(`after ${JSON.stringify(commands)}:`, (error as Error).message); // fast-check reports the sequence, this says what broke
      throw error;
    }
  }), { numRuns: 8, seed: 20261124, endOnFailure: true });
});

test('the merchant and white-label directories find what was onboarded, by search', async () => {
  const m = await s.onboard('Searchable Noodle Shop');
  const found = await s.bo('GET', '/v1/bo/merchants?q=noodle', undefined, { roles: ['support'] });
  assert.is(found.status, 200, found.text);
  assert.equal(found.json.data.map((x: any) => x.id), [m.id]);
  const byWl = await s.bo('GET', `/v1/bo/merchants?white_label_id=${m.whiteLabelId}`);
  assert.equal(byWl.json.data.map((x: any) => x.name), ['Searchable Noodle Shop']);
  const wls = await s.bo('GET', `/v1/bo/white-labels?q=${m.whiteLabelId}`);
  assert.equal(wls.json.data.map((x: any) => [x.id, x.merchants]), [[m.whiteLabelId, 1]]);
  const page = await s.bo('GET', '/v1/bo/merchants?limit=1');
  assert.is(page.json.has_more, true);
  assert.is((await s.bo('GET', '/v1/bo/wallet')).status, 422);
  assert.is((await s.bo('GET', '/v1/bo/wallet?merchant_id=mch_nope')).status, 404);
});

test.run();
