// The finance rules that need no server: the Bangkok calendar, satang as baht and CSV
// fields, the receiving-leg reasons (a table, every reason reached), the statement identity
// and trial balance assertions, and the reconcile job's gap ages.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'csv-parse/sync';
import { bangkokDayBounds, bangkokDayOf, isCalendarDay } from '../../core/finance/calendar.ts';
import { bahtOf, csvText } from '../../core/finance/money-text.ts';
import { receivingReason, type ReceivingLeg, type ReceivingReason } from '../../core/finance/receiving.ts';
import { balanceTransactionSums, isReplayTestOrder, openingBalance, sequenceGaps, snapshotDisagreement, type StoredEvent } from '../../core/finance/reconcile.ts';
import { buildStatement } from '../../core/finance/statement.ts';
import { buildTrialBalance } from '../../core/finance/trial-balance.ts';

const dayMs = 86_400_000;

test('a Bangkok day is 17:00 UTC to 17:00 UTC; its name follows UTC+7', () => {
  assert.equal(bangkokDayBounds('2026-11-21'), { startMs: Date.UTC(2026, 10, 20, 17), endMs: Date.UTC(2026, 10, 21, 17) });
  assert.is(bangkokDayOf(Date.UTC(2026, 10, 20, 16, 59, 59, 999)), '2026-11-20');
  assert.is(bangkokDayOf(Date.UTC(2026, 10, 20, 17)), '2026-11-21');
  assert.ok(isCalendarDay('2028-02-29'));
  for (const bad of ['2026-02-29', '2026-13-01', '2026-1-01', 'yesterday', '2026-11-21T00:00:00Z']) assert.not.ok(isCalendarDay(bad), bad);
});

test('baht with two decimals from integer satang; CSV fields quoted as RFC 4180 says', () => {
  assert.equal([0n, 5n, -5n, 100n, 123456n, -123456n, 9_007_199_254_740_991n].map(bahtOf), ['0.00', '0.05', '-0.05', '1.00', '1234.56', '-1234.56', '90071992547409.91']);
  const text = csvText(['a', 'b'], [['ร้าน "หนึ่ง", สาขา 1', 'line\r\nbreak'], [null, 7n]]);
  assert.is(text, 'a,b\r\n"ร้าน ""หนึ่ง"", สาขา 1","line\r\nbreak"\r\n,7\r\n');
  assert.equal(parse(text, { columns: true }), [{ a: 'ร้าน "หนึ่ง", สาขา 1', b: 'line\r\nbreak' }, { a: '', b: '7' }]);
});

test('CSV: text a spreadsheet would run as a formula (= + - @, tab, CR first) gets a leading apostrophe; numbers and baht stay as they are', () => {
  const text = csvText(['t'], [['=HYPERLINK("http://evil","x")'], ['+Payer2 @home'], ['-1+cmd|calc'], ['@SUM(A1)'], ['\tx'], ['-0.05'], ['-1234'], [-5n], ['ร้าน = หนึ่ง']]);
  assert.equal((parse(text, { columns: true }) as { t: string }[]).map((r) => r.t), [
    '\'=HYPERLINK("http://evil","x")', '\'+Payer2 @home', '\'-1+cmd|calc', '\'@SUM(A1)', '\'\tx', '-0.05', '-1234', '-5', 'ร้าน = หนึ่ง',
  ]);
});

const leg = (o: Partial<ReceivingLeg>): ReceivingLeg => ({
  depositId: 'dep_1', legRef: 'leg_1', withdrawalId: 'wdr_1', toldMinor: 1000n, toldAt: 0, verifiedMinor: null, filledMinor: null,
  released: false, fillReversed: false, depositReversed: false, declinedShownMinor: null, ...o,
});

test('receiving legs: each reason, in its order of precedence', () => {
  const table: [Partial<ReceivingLeg>, ReceivingReason | null][] = [
    [{ verifiedMinor: 1000n, filledMinor: 1000n }, null],
    [{ verifiedMinor: 1000n, filledMinor: 1000n, depositReversed: true, fillReversed: true }, 'DEPOSIT_REVERSED'],
    [{ verifiedMinor: 1000n, filledMinor: 1000n, fillReversed: true }, 'FILL_REVERSED'],
    [{ verifiedMinor: 1200n, filledMinor: 1000n }, 'OVERPAID'],
    [{ verifiedMinor: 800n, filledMinor: 800n }, 'SHORT_PAID'],
    [{ verifiedMinor: 1000n, filledMinor: 900n }, 'FILL_DIFFERS'],
    [{ verifiedMinor: 1000n, released: true }, 'FILL_DIFFERS'],
    [{ verifiedMinor: 1000n }, 'FILL_PENDING'],
    [{}, 'SLIP_AWAITED'],
    [{ inReviewShownMinor: 1000n }, 'SLIP_IN_REVIEW'],
    [{ inReviewShownMinor: 1000n, released: true }, 'RELEASED_UNPAID'],
    [{ released: true }, 'RELEASED_UNPAID'],
  ];
  for (const [fields, reason] of table) assert.is(receivingReason(leg(fields)), reason, JSON.stringify(fields, (_, v) => (typeof v === 'bigint' ? String(v) : v)));
});

test('a statement whose movements do not reach the closing balance is refused loudly', () => {
  const head = { merchantId: 'mch_1', merchantName: 'ร้าน', livemode: true, from: '2026-11-21', to: '2026-11-21' };
  const opening = { available: 100n, pending_clearing: 0n, reserved: 0n };
  const lines = [{ bucket: 'available' as const, type: 'adjustment', count: 1, creditMinor: 50n, debitMinor: 0n }];
  assert.is(buildStatement(head, opening, lines, { ...opening, available: 150n }).buckets[0]!.closingMinor, 150n);
  assert.throws(() => buildStatement(head, opening, lines, { ...opening, available: 151n }), /opening \+ movements = 150/);
});

test('a trial balance that does not balance is refused loudly; one that does lists system accounts first', () => {
  const ok = buildTrialBalance(0, [
    { livemode: true, account: 'mch_1:live:available', count: 1, creditMinor: 500n, debitMinor: 0n },
    { livemode: true, account: 'sys:live:adjustments', count: 1, creditMinor: 0n, debitMinor: 500n },
  ]);
  assert.equal(ok.sections[0]!.lines.map((l) => [l.kind, l.name, l.balanceMinor]), [['system', 'adjustments', -500n], ['merchant', 'available', 500n]]);
  assert.throws(() => buildTrialBalance(0, [{ livemode: false, account: 'sys:test:fee_revenue', count: 1, creditMinor: 1n, debitMinor: 0n }]), /debits 0 ≠ credits 1/);
});

test('a trial balance shows what payers owe back on a line of its own, taken from suspense; the turnovers stay the postings\'', () => {
  // A claim's refund of 50 baht drawn from suspense and paid out (p2p transit), then recorded as owed back by the payer.
  const postings = [
    { livemode: true, account: 'sys:live:suspense', count: 1, creditMinor: 0n, debitMinor: 5_000n },
    { livemode: true, account: 'sys:live:p2p_transit', count: 1, creditMinor: 5_000n, debitMinor: 0n },
  ];
  const tb = buildTrialBalance(0, postings, [{ livemode: true, owedMinor: 5_000n }]);
  const live = tb.sections[0]!;
  assert.equal(live.lines.map((l) => [l.name, l.debitMinor, l.creditMinor, l.reclassifiedMinor, l.balanceMinor]), [
    ['owed_by_payers', 0n, 0n, -5_000n, -5_000n], ['p2p_transit', 0n, 5_000n, 0n, 5_000n], ['suspense', 5_000n, 0n, 5_000n, 0n],
  ]);
  assert.equal([live.debitTurnoverMinor, live.creditTurnoverMinor, live.debitBalancesMinor, live.creditBalancesMinor], [5_000n, 5_000n, 5_000n, 5_000n]);
  // Recovered: the line stays, at zero; a mode with no debt recorded has none.
  const recovered = buildTrialBalance(0, postings, [{ livemode: true, owedMinor: 0n }]);
  assert.equal(recovered.sections[0]!.lines.map((l) => [l.name, l.balanceMinor]), [['owed_by_payers', 0n], ['p2p_transit', 5_000n], ['suspense', -5_000n]]);
  assert.is(recovered.sections[1]!.lines.length, 0);
  // A debt with no suspense to take it from is a broken invariant (the refund was drawn from suspense).
  assert.throws(() => buildTrialBalance(0, [], [{ livemode: false, owedMinor: 1n }]), /sys:test:suspense has no postings/);
});

test('what of the payers\' debt is written off is a line of its own, payer_debts_written_off (a loss), taken from suspense as owed_by_payers is; recovered, it stays at zero', () => {
  const postings = [
    { livemode: true, account: 'sys:live:suspense', count: 1, creditMinor: 0n, debitMinor: 5_000n },
    { livemode: true, account: 'sys:live:p2p_transit', count: 1, creditMinor: 5_000n, debitMinor: 0n },
  ];
  const lines = (owedMinor: bigint, writtenOffMinor?: bigint) => {
    const live = buildTrialBalance(0, postings, [{ livemode: true, owedMinor, ...(writtenOffMinor !== undefined ? { writtenOffMinor } : {}) }]).sections[0]!;
    assert.is(live.lines.reduce((t, l) => t + l.reclassifiedMinor, 0n), 0n, 'the reclassifications sum to zero');
    assert.is(live.debitBalancesMinor, live.creditBalancesMinor, 'balanced');
    return live.lines.map((l) => [l.name, l.debitMinor, l.creditMinor, l.reclassifiedMinor, l.balanceMinor]);
  };
  assert.equal(lines(2_000n, 3_000n), [
    ['owed_by_payers', 0n, 0n, -2_000n, -2_000n], ['p2p_transit', 0n, 5_000n, 0n, 5_000n], ['payer_debts_written_off', 0n, 0n, -3_000n, -3_000n], ['suspense', 5_000n, 0n, 5_000n, 0n],
  ]);
  assert.equal(lines(0n, 0n).map(([name, , , , balance]) => [name, balance]), [['owed_by_payers', 0n], ['p2p_transit', 5_000n], ['payer_debts_written_off', 0n], ['suspense', -5_000n]]);
  assert.equal(lines(5_000n).map(([name]) => name), ['owed_by_payers', 'p2p_transit', 'suspense'], 'no write-off recorded: no such line');
  assert.throws(() => buildTrialBalance(0, [], [{ livemode: false, owedMinor: 0n, writtenOffMinor: 1n }]), /sys:test:suspense has no postings/);
});

const event = (sequence: number, createdAtMs: number, object: Record<string, unknown> = {}): StoredEvent => ({
  id: `evt_${sequence}`, sequence, type: 'x', created_at: new Date(createdAtMs).toISOString(), data: { object },
});

test('reconcile: a gap is pending until the event after it is more than 4 days old, then lost', () => {
  const now = Date.UTC(2026, 10, 30);
  const events = [event(1, now - 10 * dayMs), event(3, now - 4 * dayMs), event(4, now), event(7, now - 4 * dayMs - 1)];
  assert.equal(sequenceGaps(0, events, now).map((g) => [g.from, g.to, g.state]), [[2, 2, 'pending'], [5, 6, 'lost']]);
  assert.equal(sequenceGaps(3, events, now).map((g) => g.from), [5], 'nothing at or below the base is expected');
  assert.equal(sequenceGaps(0, [event(2, now)], now).map((g) => [g.from, g.to]), [[1, 1]]);
});

test("reconcile: a range the feed says a restore skipped is no gap, pending or lost; a gap's other parts stay", () => {
  const now = Date.UTC(2026, 10, 30);
  const jumped = [event(1, now - 10 * dayMs), event(2, now - 10 * dayMs), event(1_000_000_003, now - 5 * dayMs)];
  assert.equal(sequenceGaps(0, jumped, now).map((g) => [g.from, g.to, g.state]), [[3, 1_000_000_002, 'lost']], 'read alone, the jump is a loss');
  assert.equal(sequenceGaps(0, jumped, now, [{ from: 3, to: 1_000_000_002 }]), []);
  // An event lost before the jump (sequence 3) and one after it (1_000_000_003): those stay gaps.
  const lostAround = [event(1, now - 10 * dayMs), event(1_000_000_004, now - 5 * dayMs)];
  assert.equal(sequenceGaps(0, lostAround, now, [{ from: 3, to: 1_000_000_002 }]).map((g) => [g.from, g.to, g.state]), [[2, 2, 'lost'], [1_000_000_003, 1_000_000_003, 'lost']]);
  assert.equal(sequenceGaps(0, [event(5, now)], now, [{ from: 2, to: 3 }, { from: 1, to: 1 }]).map((g) => [g.from, g.to]), [[4, 4]], 'in any order');
});

test('reconcile: balance transactions accumulate by id; an order disagrees on status or fill figures', () => {
  const bt = (id: string, amount: number, from: string | null, to: string | null) => ({ object: 'balance_transaction', id, amount_minor: amount, bucket_from: from, bucket_to: to });
  const sums = balanceTransactionSums([
    event(1, 0, bt('btxn_1', 1000, null, 'available')), event(2, 0, bt('btxn_2', 300, 'available', 'reserved')),
    event(3, 0, bt('btxn_2', 300, 'available', 'reserved')), event(4, 0, bt('btxn_3', 100, 'reserved', null)),
  ]);
  assert.equal(sums, { available_minor: 700n, pending_clearing_minor: 0n, reserved_minor: 200n });
  // A store that began later: the balance before its first balance transaction (lowest sequence), then the sums from it.
  const after = (available: number, reserved: number) => ({ available_minor: available, pending_clearing_minor: 0, reserved_minor: reserved });
  const later = [event(7, 0, { ...bt('btxn_5', 100, 'reserved', null), balance_after: after(5000, 400) }), event(6, 0, { ...bt('btxn_4', 300, 'available', 'reserved'), balance_after: after(5000, 500) })];
  const opening = openingBalance(later)!;
  assert.equal(opening, { available_minor: 5300n, pending_clearing_minor: 0n, reserved_minor: 200n }, 'btxn_4 (sequence 6) less its movement');
  assert.equal(balanceTransactionSums(later, opening), { available_minor: 5000n, pending_clearing_minor: 0n, reserved_minor: 400n }, "the last one's balance_after");
  assert.is(openingBalance([event(8, 0, { object: 'deposit_order', id: 'dep_1' })]), null, 'no balance transaction: nothing to start from');
  const w = { object: 'withdrawal_order', status: 'pending_approval', filled_minor: 0, remaining_minor: 100 };
  assert.is(snapshotDisagreement(w, { ...w, status: 'open' }), null, 'approval has no event of its own');
  assert.match(snapshotDisagreement(w, { ...w, status: 'open', filled_minor: 10, remaining_minor: 90 })!, /filled_minor: events say 0, GET says 10/);
  assert.match(snapshotDisagreement({ object: 'deposit_order', status: 'settled' }, { status: 'reversed' })!, /status/);
  // The out-of-order replay's test orders carry its metadata, in sandbox only.
  const test = { object: 'deposit_order', livemode: false, metadata: { satang_test: 'replay-out-of-order', case: 'A' } };
  assert.ok(isReplayTestOrder(test));
  assert.not.ok(isReplayTestOrder({ ...test, livemode: true }));
  assert.not.ok(isReplayTestOrder({ ...test, metadata: { satang_test: 'other' } }));
  assert.not.ok(isReplayTestOrder({ ...test, metadata: null }));
});

test.run();
