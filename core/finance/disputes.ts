// The disputes report: for a period of Bangkok days and one mode, every withdrawal dispute
// that was open at some time in it — open when it began, opened in it, or both — with its
// merchant, withdrawal, amount, and status as at the period's end (resolved, with its
// outcome and time, only if resolved before the end: a past period's report does not
// change when a dispute is resolved later). Built from the dispute ledger projection
// (projections/dispute-ledger.ts).
//
// The totals roll forward, and are asserted to when built (a failure is a loud error,
// never a wrong figure), in count and in satang:
//   open at the start + opened in the period = resolved in the period + open at the end,
// and the resolved are the sum of their outcomes'. Every line counts in exactly the totals
// its times put it in, so the lines sum to them.

import { assert } from '../assert.ts';
import { reportMinor, type Minor } from '../money.ts';
import { iso } from '../present.ts';
import { disputeOutcomes } from '../withdrawal/state.ts';
import { bangkokDayBounds, financeTimeZone } from './calendar.ts';
import { bahtOf, csvText } from './money-text.ts';
import { periodLabel, periodText, type StatementPeriod } from './statement.ts';

/** One dispute as the projection keeps it: when it opened and, once resolved, when and how. */
export interface DisputeRecord {
  readonly disputeId: string;
  readonly withdrawalId: string;
  readonly merchantId: string;
  readonly reasonCode: string;
  readonly amountMinor: Minor;
  readonly openedAt: number;
  readonly respondBy: number;
  readonly resolvedAt: number | null;
  readonly outcome: string | null;
}

/** A dispute as the report shows it: its status, resolution time and outcome as at the period's end. */
export interface DisputeReportLine extends DisputeRecord {
  readonly merchantName: string;
  readonly status: 'open' | 'resolved';
}

/** How many disputes, and the satang they were about. */
export interface DisputeSums {
  readonly count: number;
  readonly amountMinor: Minor;
}

export interface DisputeTotals {
  readonly openAtStart: DisputeSums;
  readonly opened: DisputeSums;
  readonly resolved: DisputeSums;
  /** The resolved by outcome: every outcome the resolve route takes, and any other a journal holds. */
  readonly resolvedByOutcome: ReadonlyMap<string, DisputeSums>;
  readonly openAtEnd: DisputeSums;
}

export interface DisputeReport extends StatementPeriod {
  readonly livemode: boolean;
  readonly lines: readonly DisputeReportLine[];
  readonly totals: DisputeTotals;
}

const none: DisputeSums = { count: 0, amountMinor: 0n };
const plus = (a: DisputeSums, amountMinor: Minor): DisputeSums => ({ count: a.count + 1, amountMinor: a.amountMinor + amountMinor });
const same = (a: DisputeSums, b: DisputeSums) => a.count === b.count && a.amountMinor === b.amountMinor;

/**
 * The report over `records` (those the projection found open at some time in the period),
 * oldest opened first, with each merchant's name.
 */
export function buildDisputeReport(period: StatementPeriod, livemode: boolean, records: readonly DisputeRecord[], merchantName: (merchantId: string) => string): DisputeReport {
  const startMs = bangkokDayBounds(period.from).startMs;
  const endMs = bangkokDayBounds(period.to).endMs;
  let openAtStart = none, opened = none, resolved = none, openAtEnd = none;
  const byOutcome = new Map<string, DisputeSums>(disputeOutcomes.map((o) => [o, none]));
  const lines = [...records].sort((a, b) => a.openedAt - b.openedAt || compare(a.disputeId, b.disputeId)).map((r): DisputeReportLine => {
    assert(r.amountMinor > 0n, () => `dispute ${r.disputeId}: amount ${r.amountMinor} is not positive`);
    assert(r.openedAt < endMs && (r.resolvedAt === null || r.resolvedAt >= startMs), () => `dispute ${r.disputeId}: not open in ${periodText(period)}`);
    const resolvedByEnd = r.resolvedAt !== null && r.resolvedAt < endMs;
    if (r.openedAt < startMs) openAtStart = plus(openAtStart, r.amountMinor);
    else opened = plus(opened, r.amountMinor);
    if (resolvedByEnd) {
      const outcome = r.outcome;
      assert(outcome !== null, () => `dispute ${r.disputeId}: resolved without an outcome`);
      resolved = plus(resolved, r.amountMinor);
      byOutcome.set(outcome, plus(byOutcome.get(outcome) ?? none, r.amountMinor));
    } else openAtEnd = plus(openAtEnd, r.amountMinor);
    return { ...r, merchantName: merchantName(r.merchantId), status: resolvedByEnd ? 'resolved' : 'open', resolvedAt: resolvedByEnd ? r.resolvedAt : null, outcome: resolvedByEnd ? r.outcome : null };
  });
  const inflow = { count: openAtStart.count + opened.count, amountMinor: openAtStart.amountMinor + opened.amountMinor };
  const outflow = { count: resolved.count + openAtEnd.count, amountMinor: resolved.amountMinor + openAtEnd.amountMinor };
  assert(same(inflow, outflow), () => `disputes ${periodText(period)}: open at start + opened ≠ resolved + open at end`);
  const outcomesSum = [...byOutcome.values()].reduce((a, b) => ({ count: a.count + b.count, amountMinor: a.amountMinor + b.amountMinor }), none);
  assert(same(outcomesSum, resolved), () => `disputes ${periodText(period)}: the outcomes do not sum to the resolved`);
  return { ...period, livemode, lines, totals: { openAtStart, opened, resolved, resolvedByOutcome: byOutcome, openAtEnd } };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function presentSums(s: DisputeSums): Record<string, unknown> {
  return { count: s.count, amount_minor: reportMinor(s.amountMinor) };
}

export function presentDisputeReport(r: DisputeReport, asOfMs: number): Record<string, unknown> {
  const t = r.totals;
  return {
    object: 'dispute_report', livemode: r.livemode, currency: 'THB',
    ...periodLabel(r), date_from: r.from, date_to: r.to, time_zone: financeTimeZone,
    period_start: iso(bangkokDayBounds(r.from).startMs), period_end: iso(bangkokDayBounds(r.to).endMs), as_of: iso(asOfMs),
    disputes: r.lines.map((l) => ({
      dispute_id: l.disputeId, withdrawal_id: l.withdrawalId, merchant_id: l.merchantId, merchant_name: l.merchantName, reason_code: l.reasonCode,
      amount_minor: reportMinor(l.amountMinor), status: l.status, opened_at: iso(l.openedAt), respond_by: iso(l.respondBy),
      resolved_at: l.resolvedAt === null ? null : iso(l.resolvedAt), outcome: l.outcome,
    })),
    totals: {
      open_at_start: presentSums(t.openAtStart), opened: presentSums(t.opened),
      resolved: { ...presentSums(t.resolved), by_outcome: Object.fromEntries([...t.resolvedByOutcome].map(([o, s]) => [o, presentSums(s)])) },
      open_at_end: presentSums(t.openAtEnd),
    },
  };
}

export const disputeReportCsvHeader = [
  'date', 'time_zone', 'livemode', 'line', 'merchant_id', 'merchant_name', 'withdrawal_id', 'dispute_id', 'reason_code',
  'status', 'opened_at', 'respond_by', 'resolved_at', 'outcome', 'count', 'amount_minor', 'amount_baht',
] as const;

/**
 * One `dispute` line each, then the totals as lines: `open_at_start`, `opened`, a `resolved`
 * line per outcome (the outcome in its column), `open_at_end`. Baht with exactly two
 * decimals, computed from the integers.
 */
export function disputeReportCsv(r: DisputeReport): string {
  const head = [periodText(r), financeTimeZone, r.livemode] as const;
  const total = (line: string, s: DisputeSums, outcome: string | null = null) =>
    [...head, line, null, null, null, null, null, null, null, null, null, outcome, s.count, s.amountMinor, bahtOf(s.amountMinor)];
  const t = r.totals;
  return csvText(disputeReportCsvHeader, [
    ...r.lines.map((l) => [...head, 'dispute', l.merchantId, l.merchantName, l.withdrawalId, l.disputeId, l.reasonCode, l.status,
      iso(l.openedAt), iso(l.respondBy), l.resolvedAt === null ? null : iso(l.resolvedAt), l.outcome, 1, l.amountMinor, bahtOf(l.amountMinor)]),
    total('open_at_start', t.openAtStart), total('opened', t.opened),
    ...[...t.resolvedByOutcome].map(([outcome, s]) => total('resolved', s, outcome)),
    total('open_at_end', t.openAtEnd),
  ]);
}
