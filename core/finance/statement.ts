// The statement of one merchant and mode over Bangkok days — one day, or a period from one
// day to another (a month, for the close): for each bucket (available, pending_clearing,
// reserved) the opening balance, the period's movements grouped by balance-transaction
// type (count, credits, debits), and the closing balance.
// Invariant asserted: opening + Σ(credits − debits) = closing for every bucket — the
// closing is computed, then checked against the projection's own closing (the sum of all
// days up to the day's end), so the two independent sums must agree to the satang.

import { assert } from '../assert.ts';
import { buckets, type BalanceTransactionType, type Bucket } from '../ledger/ledger.ts';
import { reportMinor, type Minor } from '../money.ts';
import { iso } from '../present.ts';
import { bangkokDayBounds, financeTimeZone } from './calendar.ts';
import { bahtOf, csvText } from './money-text.ts';

/** The balance-transaction types in the order a statement lists them (an unknown one goes last). */
export const movementTypes: readonly BalanceTransactionType[] = [
  'deposit_settled', 'fee', 'clearing_released', 'withdrawal_reserved', 'withdrawal_settled', 'withdrawal_released', 'reversal', 'adjustment',
];

/**
 * What a Thai reader sees beside each line (CSV): the statement is read in Thai too. The
 * console's statement and transactions pages use the same words (console/i18n-th.js
 * btType.* and btxn.type.*): one statement, one vocabulary on screen and in its download.
 */
const descriptionTh: Readonly<Record<string, string>> = {
  opening: 'ยอดยกมา', closing: 'ยอดยกไป',
  deposit_settled: 'รับเงินฝาก', fee: 'ค่าธรรมเนียม', clearing_released: 'พ้นระยะพักเงิน', withdrawal_reserved: 'กันยอดถอน',
  withdrawal_settled: 'จ่ายถอน', withdrawal_released: 'คืนยอดกันถอน', reversal: 'กลับรายการ', adjustment: 'ปรับยอด',
};

/** The Thai words of a statement line (`opening`, `closing`, or a balance-transaction type), as its CSV writes them. */
export function statementDescriptionTh(line: string): string | undefined {
  return descriptionTh[line];
}

/** One bucket's movements of one type in the period. */
export interface MovementLine {
  readonly bucket: Bucket;
  readonly type: string;
  readonly count: number;
  readonly creditMinor: Minor;
  readonly debitMinor: Minor;
}

export interface BucketStatement {
  readonly bucket: Bucket;
  readonly openingMinor: Minor;
  readonly movements: readonly MovementLine[];
  readonly closingMinor: Minor;
}

/** Bangkok days, both included: `from` = `to` for a daily statement. */
export interface StatementPeriod {
  readonly from: string;
  readonly to: string;
  /** YYYY-MM when the report was asked for a month (to is today while the month runs). */
  readonly month?: string;
}

/** The period's own name in a report: the month asked for, the one day, else none. */
export function periodLabel(p: StatementPeriod): { month: string } | { date: string } | Record<string, never> {
  return p.month !== undefined ? { month: p.month } : p.from === p.to ? { date: p.from } : {};
}

export interface Statement extends StatementPeriod {
  readonly merchantId: string;
  readonly merchantName: string;
  readonly livemode: boolean;
  readonly buckets: readonly BucketStatement[];
}

/** The period as the CSV's date column and file names say it: the day, or the ISO 8601 interval `from/to`. */
export function periodText(p: StatementPeriod): string {
  return p.month ?? (p.from === p.to ? p.from : `${p.from}/${p.to}`);
}

export type BucketTotals = { readonly [B in Bucket]: Minor };

function typeRank(type: string): number {
  const i = movementTypes.indexOf(type as BalanceTransactionType);
  return i < 0 ? movementTypes.length : i;
}

/**
 * The statement from the balances before the period, the period's movement lines (one per
 * bucket and type) and the balances at its end (read separately); asserts the identity
 * for every bucket.
 */
export function buildStatement(
  head: { readonly merchantId: string; readonly merchantName: string; readonly livemode: boolean } & StatementPeriod,
  opening: BucketTotals, lines: readonly MovementLine[], closing: BucketTotals,
): Statement {
  const perBucket = buckets.map((bucket): BucketStatement => {
    const movements = lines.filter((l) => l.bucket === bucket)
      .sort((a, b) => typeRank(a.type) - typeRank(b.type) || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
    let closingMinor = opening[bucket];
    for (const m of movements) closingMinor += m.creditMinor - m.debitMinor;
    assert(closingMinor === closing[bucket], () => `statement ${head.merchantId} ${periodText(head)} ${bucket}: opening + movements = ${closingMinor}, the balance at the period's end is ${closing[bucket]}`);
    return { bucket, openingMinor: opening[bucket], movements, closingMinor };
  });
  return { ...head, buckets: perBucket };
}

/** The statement as the API answers it (JSON); `month` for a month asked for, else `date` for a single day. */
export function presentStatement(s: Statement, asOfMs: number): Record<string, unknown> {
  return {
    object: 'statement', merchant_id: s.merchantId, merchant_name: s.merchantName, livemode: s.livemode, currency: 'THB',
    ...periodLabel(s), date_from: s.from, date_to: s.to, time_zone: financeTimeZone,
    period_start: iso(bangkokDayBounds(s.from).startMs), period_end: iso(bangkokDayBounds(s.to).endMs), as_of: iso(asOfMs),
    buckets: s.buckets.map((b) => ({
      bucket: b.bucket, opening_minor: reportMinor(b.openingMinor),
      movements: b.movements.map((m) => ({
        type: m.type, count: m.count, credit_minor: reportMinor(m.creditMinor), debit_minor: reportMinor(m.debitMinor), net_minor: reportMinor(m.creditMinor - m.debitMinor),
      })),
      closing_minor: reportMinor(b.closingMinor),
    })),
  };
}

/** GET /v1/bo/reports/statement-lines as CSV: one line per balance transaction of the period. */
export const statementLinesCsvHeader = [
  'date', 'time_zone', 'merchant_id', 'livemode', 'created_at', 'id', 'type', 'direction', 'amount_minor', 'amount_baht',
  'available_minor', 'pending_clearing_minor', 'reserved_minor', 'source_type', 'source_id', 'posted_by', 'proposed_by',
  'reverses_balance_transaction_id', 'reason_code', 'note',
] as const;

export const statementCsvHeader = [
  'date', 'time_zone', 'merchant_id', 'merchant_name', 'livemode', 'bucket', 'line', 'type', 'description_th',
  'count', 'credit_minor', 'debit_minor', 'amount_minor', 'amount_baht',
] as const;

/**
 * The statement as RFC 4180 CSV: per bucket an opening line, one line per movement type
 * (amount = credits − debits) and a closing line; amounts in satang and in baht. The date
 * column is the day, or `from/to` for a period.
 */
export function statementCsv(s: Statement): string {
  const rows: (string | number | bigint | boolean | null)[][] = [];
  const head = [periodText(s), financeTimeZone, s.merchantId, s.merchantName, s.livemode] as const;
  for (const b of s.buckets) {
    rows.push([...head, b.bucket, 'opening', null, descriptionTh.opening!, null, null, null, b.openingMinor, bahtOf(b.openingMinor)]);
    for (const m of b.movements) {
      const net = m.creditMinor - m.debitMinor;
      rows.push([...head, b.bucket, 'movement', m.type, descriptionTh[m.type] ?? m.type, m.count, m.creditMinor, m.debitMinor, net, bahtOf(net)]);
    }
    rows.push([...head, b.bucket, 'closing', null, descriptionTh.closing!, null, null, null, b.closingMinor, bahtOf(b.closingMinor)]);
  }
  return csvText(statementCsvHeader, rows);
}
