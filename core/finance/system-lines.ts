// The lines of a system account over a statement's period (Bangkok days): the postings
// behind a trial balance's figure for the accounts no merchant's statement explains —
// suspense (a reviewer's settlement beyond the orders, a claim's refund), reversals,
// adjustments (operator funding and corrections), gateway settlement. Each line is one
// posting with the transaction that made it (type, merchant, source, reason, the
// operator's note) and the account's running balance after it.
// Sign convention (core/ledger, as the trial balance): + a credit, − a debit; the balance
// is credits − debits. Invariant asserted: opening + Σ credits − Σ debits = closing, and
// the last line's running balance is the closing.

import { assert } from '../assert.ts';
import type { SystemAccount } from '../ledger/ledger.ts';
import { reportMinor, type Minor } from '../money.ts';
import { iso } from '../present.ts';
import { bangkokDayBounds, bangkokDayOf, financeTimeZone } from './calendar.ts';
import { bahtOf, csvText } from './money-text.ts';
import { periodLabel, periodText, type StatementPeriod } from './statement.ts';

/** The system accounts whose lines are listed (fee revenue and VAT: the fees report; P2P transit nets to zero per settlement). */
export const systemLineAccounts = ['suspense', 'reversals', 'adjustments', 'gateway_settlement'] as const satisfies readonly SystemAccount[];
export type SystemLineAccount = (typeof systemLineAccounts)[number];

/** One posting to the account, with what the transaction that made it says of itself. */
export interface SystemLineDetail {
  readonly createdAt: number;
  readonly balanceTransactionId: string;
  readonly type: string;
  readonly merchantId: string;
  readonly amountMinor: Minor;
  readonly source: { readonly type: string; readonly id: string };
  readonly postedBy?: string;
  /** An adjustment a second operator approved (four eyes): who proposed it; postedBy approved it. */
  readonly proposedBy?: string;
  readonly reversesBalanceTransactionId?: string;
  readonly reasonCode?: string;
  readonly note?: string;
}

export interface SystemLine extends SystemLineDetail {
  readonly balanceMinor: Minor;
}

export interface AccountLines extends StatementPeriod {
  readonly livemode: boolean;
  readonly account: SystemLineAccount;
  readonly openingMinor: Minor;
  readonly lines: readonly SystemLine[];
  readonly creditMinor: Minor;
  readonly debitMinor: Minor;
  readonly closingMinor: Minor;
}

/** The report from the balance before the period and the period's postings, oldest first. */
export function buildAccountLines(period: StatementPeriod, livemode: boolean, account: SystemLineAccount, openingMinor: Minor, details: readonly SystemLineDetail[]): AccountLines {
  let balance = openingMinor, credit = 0n, debit = 0n;
  const lines = details.map((d) => {
    balance += d.amountMinor;
    if (d.amountMinor >= 0n) credit += d.amountMinor;
    else debit -= d.amountMinor;
    return { ...d, balanceMinor: balance };
  });
  const closing = openingMinor + credit - debit;
  assert(closing === balance, () => `account lines ${account}: opening ${openingMinor} + credits ${credit} − debits ${debit} ≠ the last line's balance ${balance}`);
  return { ...period, livemode, account, openingMinor, lines, creditMinor: credit, debitMinor: debit, closingMinor: closing };
}

function sideOf(balance: Minor): 'debit' | 'credit' | 'zero' {
  return balance < 0n ? 'debit' : balance > 0n ? 'credit' : 'zero';
}

const accountKeyOf = (r: AccountLines) => `sys:${r.livemode ? 'live' : 'test'}:${r.account}`;

/** The JSON answer; `asOfMs` is when the figures stand (the period's end, or now while it runs). */
export function presentAccountLines(r: AccountLines, asOfMs: number): Record<string, unknown> {
  return {
    object: 'account_lines', account: accountKeyOf(r), name: r.account, livemode: r.livemode, currency: 'THB',
    ...periodLabel(r), date_from: r.from, date_to: r.to, time_zone: financeTimeZone,
    period_start: iso(bangkokDayBounds(r.from).startMs), period_end: iso(bangkokDayBounds(r.to).endMs), as_of: iso(asOfMs),
    opening_balance_minor: reportMinor(r.openingMinor), opening_side: sideOf(r.openingMinor),
    credit_minor: reportMinor(r.creditMinor), debit_minor: reportMinor(r.debitMinor),
    closing_balance_minor: reportMinor(r.closingMinor), closing_side: sideOf(r.closingMinor),
    count: r.lines.length,
    data: r.lines.map((l) => ({
      date: bangkokDayOf(l.createdAt), created_at: iso(l.createdAt), balance_transaction_id: l.balanceTransactionId, type: l.type, merchant_id: l.merchantId,
      credit_minor: reportMinor(l.amountMinor > 0n ? l.amountMinor : 0n), debit_minor: reportMinor(l.amountMinor < 0n ? -l.amountMinor : 0n),
      amount_minor: reportMinor(l.amountMinor), balance_minor: reportMinor(l.balanceMinor),
      source: l.source,
      ...(l.postedBy !== undefined ? { posted_by: l.postedBy } : {}),
      ...(l.proposedBy !== undefined ? { proposed_by: l.proposedBy } : {}),
      ...(l.reversesBalanceTransactionId !== undefined ? { reverses_balance_transaction_id: l.reversesBalanceTransactionId } : {}),
      ...(l.reasonCode !== undefined ? { reason_code: l.reasonCode } : {}),
      ...(l.note !== undefined ? { note: l.note } : {}),
    })),
  };
}

export const accountLinesCsvHeader = [
  'date', 'time_zone', 'livemode', 'account', 'line', 'created_at', 'balance_transaction_id', 'type', 'merchant_id', 'source_type', 'source_id',
  'posted_by', 'proposed_by', 'reverses_balance_transaction_id', 'reason_code', 'note', 'credit_minor', 'debit_minor', 'amount_minor', 'balance_minor', 'balance_baht',
] as const;

/**
 * As RFC 4180 CSV: an opening line (the balance before the period), one line per posting
 * with the running balance, and a closing line (the period's credits and debits, the
 * closing balance), so the file alone ties out. The date column is the posting's day, or
 * `from/to` on the opening and closing lines of a period.
 */
export function accountLinesCsv(r: AccountLines): string {
  const account = accountKeyOf(r);
  const period = periodText(r);
  const empty = [null, null, null, null, null, null, null, null, null, null, null] as const;
  return csvText(accountLinesCsvHeader, [
    [period, financeTimeZone, r.livemode, account, 'opening', ...empty, null, null, null, r.openingMinor, bahtOf(r.openingMinor)],
    ...r.lines.map((l) => [
      bangkokDayOf(l.createdAt), financeTimeZone, r.livemode, account, 'posting', iso(l.createdAt), l.balanceTransactionId, l.type, l.merchantId, l.source.type, l.source.id,
      l.postedBy ?? null, l.proposedBy ?? null, l.reversesBalanceTransactionId ?? null, l.reasonCode ?? null, l.note ?? null,
      l.amountMinor > 0n ? l.amountMinor : 0n, l.amountMinor < 0n ? -l.amountMinor : 0n, l.amountMinor, l.balanceMinor, bahtOf(l.balanceMinor),
    ]),
    [period, financeTimeZone, r.livemode, account, 'closing', ...empty, r.creditMinor, r.debitMinor, r.creditMinor - r.debitMinor, r.closingMinor, bahtOf(r.closingMinor)],
  ]);
}
