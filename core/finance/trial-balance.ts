// The trial balance: every ledger account — each merchant's three buckets per mode and
// the system accounts (fee revenue net of VAT, the VAT payable on fees, P2P transit,
// gateway settlement, reversals, suspense where overpayment excess and claims' money
// waits, adjustments) — with its debit and credit turnover and its balance at an
// instant. Live and sandbox are separate ledgers, so each mode is its own section and
// balances on its own.
//
// Sign convention (core/ledger): a posting adds its amount to the account; + is a credit
// (money a merchant bucket holds is owed to the merchant), − a debit. Invariant asserted:
// in each section Σ debits = Σ credits (turnover) and the balances sum to zero, i.e. the
// debit balances equal the credit balances.

import { assert } from '../assert.ts';
import { reportMinor, type Minor } from '../money.ts';
import { iso } from '../present.ts';
import { bahtOf, csvText } from './money-text.ts';

/** One account's turnover up to the instant, as the projection sums it. */
export interface AccountTurnover {
  readonly livemode: boolean;
  /** core/ledger accountKey(): 'mch_…:live:available' or 'sys:live:fee_revenue'. */
  readonly account: string;
  readonly count: number;
  readonly creditMinor: Minor;
  readonly debitMinor: Minor;
}

export interface TrialBalanceLine extends AccountTurnover {
  readonly kind: 'merchant' | 'system';
  readonly merchantId: string | null;
  /** The bucket of a merchant account, or the system account's name. */
  readonly name: string;
  readonly balanceMinor: Minor;
}

export interface TrialBalanceSection {
  readonly livemode: boolean;
  readonly lines: readonly TrialBalanceLine[];
  readonly debitTurnoverMinor: Minor;
  readonly creditTurnoverMinor: Minor;
  readonly debitBalancesMinor: Minor;
  readonly creditBalancesMinor: Minor;
}

export interface TrialBalance {
  readonly asOfMs: number;
  readonly sections: readonly TrialBalanceSection[];
}

function lineOf(t: AccountTurnover): TrialBalanceLine {
  const parts = t.account.split(':');
  const isSystem = parts[0] === 'sys';
  return { ...t, kind: isSystem ? 'system' : 'merchant', merchantId: isSystem ? null : parts[0]!, name: parts[parts.length - 1]!, balanceMinor: t.creditMinor - t.debitMinor };
}

function sectionOf(livemode: boolean, turnovers: readonly AccountTurnover[]): TrialBalanceSection {
  const lines = turnovers.filter((t) => t.livemode === livemode).map(lineOf)
    .sort((a, b) => (a.kind === b.kind ? (a.account < b.account ? -1 : a.account > b.account ? 1 : 0) : a.kind === 'system' ? -1 : 1));
  let debitTurnover = 0n, creditTurnover = 0n, debitBalances = 0n, creditBalances = 0n;
  for (const l of lines) {
    debitTurnover += l.debitMinor;
    creditTurnover += l.creditMinor;
    if (l.balanceMinor < 0n) debitBalances -= l.balanceMinor;
    else creditBalances += l.balanceMinor;
  }
  assert(debitTurnover === creditTurnover, () => `trial balance (${livemode ? 'live' : 'sandbox'}): debits ${debitTurnover} ≠ credits ${creditTurnover}`);
  assert(debitBalances === creditBalances, () => `trial balance (${livemode ? 'live' : 'sandbox'}): debit balances ${debitBalances} ≠ credit balances ${creditBalances}`);
  return { livemode, lines, debitTurnoverMinor: debitTurnover, creditTurnoverMinor: creditTurnover, debitBalancesMinor: debitBalances, creditBalancesMinor: creditBalances };
}

/** The trial balance from every account's turnover up to `asOfMs`; asserts each section balances. */
export function buildTrialBalance(asOfMs: number, turnovers: readonly AccountTurnover[]): TrialBalance {
  return { asOfMs, sections: [sectionOf(true, turnovers), sectionOf(false, turnovers)] };
}

function sideOf(balance: Minor): 'debit' | 'credit' | 'zero' {
  return balance < 0n ? 'debit' : balance > 0n ? 'credit' : 'zero';
}

/** A merchant's name by id (the world's directory), for a reader who does not know the ids; null for a system account. */
export type MerchantNames = (merchantId: string) => string | undefined;

export function presentTrialBalance(tb: TrialBalance, merchantName: MerchantNames): Record<string, unknown> {
  return {
    object: 'trial_balance', as_of: iso(tb.asOfMs), currency: 'THB',
    sections: tb.sections.map((s) => ({
      livemode: s.livemode,
      accounts: s.lines.map((l) => ({
        account: l.account, kind: l.kind, merchant_id: l.merchantId, merchant_name: l.merchantId === null ? null : merchantName(l.merchantId) ?? null, name: l.name, postings: l.count,
        debit_minor: reportMinor(l.debitMinor), credit_minor: reportMinor(l.creditMinor), balance_minor: reportMinor(l.balanceMinor), side: sideOf(l.balanceMinor),
      })),
      total_debit_minor: reportMinor(s.debitTurnoverMinor), total_credit_minor: reportMinor(s.creditTurnoverMinor),
      total_debit_balance_minor: reportMinor(s.debitBalancesMinor), total_credit_balance_minor: reportMinor(s.creditBalancesMinor),
      balanced: isBalanced(s),
    })),
  };
}

export const trialBalanceCsvHeader = [
  'as_of', 'livemode', 'account', 'kind', 'merchant_id', 'merchant_name', 'name', 'postings', 'debit_minor', 'credit_minor', 'balance_minor', 'balance_baht', 'side',
] as const;

/**
 * The trial balance as CSV: each section's accounts, then its `total` line — the postings,
 * the debit and credit turnovers, the net of the balances (zero) and, in the side column,
 * `balanced` or `unbalanced` — so the file alone shows that the ledger balances.
 */
export function trialBalanceCsv(tb: TrialBalance, merchantName: MerchantNames): string {
  const asOf = iso(tb.asOfMs);
  const rows = tb.sections.flatMap((s) => {
    const net = s.creditBalancesMinor - s.debitBalancesMinor;
    const postings = s.lines.reduce((n, l) => n + l.count, 0);
    return [
      ...s.lines.map((l) => [asOf, s.livemode, l.account, l.kind, l.merchantId, l.merchantId === null ? null : merchantName(l.merchantId) ?? null, l.name, l.count, l.debitMinor, l.creditMinor, l.balanceMinor, bahtOf(l.balanceMinor), sideOf(l.balanceMinor)]),
      [asOf, s.livemode, 'total', 'total', null, null, null, postings, s.debitTurnoverMinor, s.creditTurnoverMinor, net, bahtOf(net), isBalanced(s) ? 'balanced' : 'unbalanced'],
    ];
  });
  return csvText(trialBalanceCsvHeader, rows);
}

function isBalanced(s: TrialBalanceSection): boolean {
  return s.debitTurnoverMinor === s.creditTurnoverMinor && s.debitBalancesMinor === s.creditBalancesMinor;
}
