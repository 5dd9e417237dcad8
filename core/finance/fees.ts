// The fees and VAT report: for a period of Bangkok days and one mode, per merchant, the
// fees satang charged and refunded, each split into fee revenue (net of VAT) and output
// VAT, and their totals — the month's figures for the merchants' tax invoices and for the
// output VAT return. Built from the fee ledger projection (projections/fee-ledger.ts),
// which reads them off the postings to fee_revenue and vat_payable, so a period's totals
// are those two accounts' turnover in the trial balance.
//
// Asserted when built (a failure is a loud error, never a wrong figure): every sum the
// projection gives is ≥ 0. A line's net is charged − refunded; the totals sum the lines.

import { assert } from '../assert.ts';
import { reportMinor, type Minor } from '../money.ts';
import { iso } from '../present.ts';
import { bangkokDayBounds, financeTimeZone } from './calendar.ts';
import { bahtOf, csvText } from './money-text.ts';
import { periodLabel, periodText, type StatementPeriod } from './statement.ts';

/** Fee transactions one way: how many, and what they moved in fee revenue and in VAT. */
export interface FeeSums {
  readonly count: number;
  readonly feeMinor: Minor;
  readonly vatMinor: Minor;
}

/** One merchant's fees over the period, as the projection sums them. */
export interface MerchantFees {
  readonly merchantId: string;
  readonly charged: FeeSums;
  readonly refunded: FeeSums;
}

export interface FeeReportLine extends MerchantFees {
  readonly merchantName: string;
  /** The merchant's white label (whose fee schedule it pays). */
  readonly whiteLabelId: string;
  /** Charged less refunded: the fee revenue, net of VAT, and the VAT of the period. */
  readonly feeMinor: Minor;
  readonly vatMinor: Minor;
}

export interface FeeReport extends StatementPeriod {
  readonly livemode: boolean;
  readonly lines: readonly FeeReportLine[];
  readonly totals: FeeFigures;
}

/** What a line and the totals share: charged, refunded, and the net of both. */
type FeeFigures = Omit<FeeReportLine, 'merchantId' | 'merchantName' | 'whiteLabelId'>;

/** What the directory says of a merchant the report names. */
export interface MerchantNames {
  readonly name: string;
  readonly whiteLabelId: string;
}

export const noFees: FeeSums = { count: 0, feeMinor: 0n, vatMinor: 0n };

function plus(a: FeeSums, b: FeeSums): FeeSums {
  return { count: a.count + b.count, feeMinor: a.feeMinor + b.feeMinor, vatMinor: a.vatMinor + b.vatMinor };
}

function lineOf(m: MerchantFees, names: MerchantNames): FeeReportLine {
  for (const s of [m.charged, m.refunded]) assert(s.count >= 0 && s.feeMinor >= 0n && s.vatMinor >= 0n, () => `fees of ${m.merchantId}: a negative sum`);
  return { ...m, merchantName: names.name, whiteLabelId: names.whiteLabelId, feeMinor: m.charged.feeMinor - m.refunded.feeMinor, vatMinor: m.charged.vatMinor - m.refunded.vatMinor };
}

/**
 * The report over `merchants`, ordered by white label then merchant, with what the
 * directory says of each; only one white label's merchants when `whiteLabelId` is given.
 */
export function buildFeeReport(period: StatementPeriod, livemode: boolean, merchants: readonly MerchantFees[], namesOf: (merchantId: string) => MerchantNames, whiteLabelId?: string): FeeReport {
  const lines = merchants.map((m) => lineOf(m, namesOf(m.merchantId)))
    .filter((l) => whiteLabelId === undefined || l.whiteLabelId === whiteLabelId)
    .sort((a, b) => compare(a.whiteLabelId, b.whiteLabelId) || compare(a.merchantId, b.merchantId));
  let charged = noFees, refunded = noFees;
  for (const l of lines) { charged = plus(charged, l.charged); refunded = plus(refunded, l.refunded); }
  return { ...period, livemode, lines, totals: { charged, refunded, feeMinor: charged.feeMinor - refunded.feeMinor, vatMinor: charged.vatMinor - refunded.vatMinor } };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function presentSums(s: FeeSums): Record<string, unknown> {
  return { count: s.count, fee_minor: reportMinor(s.feeMinor), vat_minor: reportMinor(s.vatMinor), total_minor: reportMinor(s.feeMinor + s.vatMinor) };
}

function presentNet(l: FeeFigures): Record<string, unknown> {
  return {
    charged: presentSums(l.charged), refunded: presentSums(l.refunded),
    fee_minor: reportMinor(l.feeMinor), vat_minor: reportMinor(l.vatMinor), total_minor: reportMinor(l.feeMinor + l.vatMinor),
  };
}

export function presentFeeReport(r: FeeReport, asOfMs: number): Record<string, unknown> {
  return {
    object: 'fee_report', livemode: r.livemode, currency: 'THB',
    ...periodLabel(r), date_from: r.from, date_to: r.to, time_zone: financeTimeZone,
    period_start: iso(bangkokDayBounds(r.from).startMs), period_end: iso(bangkokDayBounds(r.to).endMs), as_of: iso(asOfMs),
    merchants: r.lines.map((l) => ({ merchant_id: l.merchantId, merchant_name: l.merchantName, white_label_id: l.whiteLabelId, ...presentNet(l) })),
    totals: presentNet(r.totals),
  };
}

export const feeReportCsvHeader = [
  'date', 'time_zone', 'livemode', 'line', 'white_label_id', 'merchant_id', 'merchant_name',
  'charged_count', 'charged_fee_minor', 'charged_vat_minor', 'refunded_count', 'refunded_fee_minor', 'refunded_vat_minor',
  'fee_minor', 'vat_minor', 'total_minor', 'fee_baht', 'vat_baht', 'total_baht',
] as const;

/** One row per merchant, then a `total` row; baht with exactly two decimals, computed from the integers. */
export function feeReportCsv(r: FeeReport): string {
  const row = (line: 'merchant' | 'total', who: readonly (string | null)[], l: FeeFigures) => {
    const total = l.feeMinor + l.vatMinor;
    return [
      periodText(r), financeTimeZone, r.livemode, line, ...who,
      l.charged.count, l.charged.feeMinor, l.charged.vatMinor, l.refunded.count, l.refunded.feeMinor, l.refunded.vatMinor,
      l.feeMinor, l.vatMinor, total, bahtOf(l.feeMinor), bahtOf(l.vatMinor), bahtOf(total),
    ];
  };
  return csvText(feeReportCsvHeader, [...r.lines.map((l) => row('merchant', [l.whiteLabelId, l.merchantId, l.merchantName], l)), row('total', [null, null, null], r.totals)]);
}
