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
//
// One line is no ledger account: `owed_by_payers`, the claims' refunds that payers owe back
// (a deposit reversed after its claim refunded the payer: the bank's recall gave them that
// money again; core/claim ClaimRefundOwed). The refund drew suspense when it was paid out and
// no posting moves it after (a balance transaction always touches a merchant's buckets, and
// this debt is no merchant's), so suspense's debit balance holds it. The trial balance
// reclassifies it from the recorded facts: the owed line's balance is −owed
// (`reclassifiedMinor`), suspense's is its postings' + owed; turnovers stay the postings',
// each line's balance is credit − debit + reclassified, and the reclassifications of a
// section sum to zero (asserted), so it still balances and ties to the postings. What of
// that debt finance wrote off (core/claim/write-off.ts) is reclassified the same way onto
// `payer_debts_written_off`, a loss: −written off there, and suspense's +owed + written off.
// `owed_by_payees` is the same for what the claims' refunds paid out of money the service
// never held (it sits in the account the payer transferred to): the service's open claim on
// those payees (core/claim owedByPayeeOf), reclassified out of suspense likewise.

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
  /** What the line takes over from another line (owed_by_payers, payer_debts_written_off and owed_by_payees from suspense); 0 on every other line. */
  readonly reclassifiedMinor: Minor;
  /** creditMinor − debitMinor + reclassifiedMinor. */
  readonly balanceMinor: Minor;
}

/** What payers owe back at the instant in one mode in which any such debt was recorded by then (projections/payer-debts.ts). */
export interface OwedByPayers {
  readonly livemode: boolean;
  readonly owedMinor: Minor;
  /** What of the payers' debt is written off then; absent while no write-off was recorded in the mode (no such line). */
  readonly writtenOffMinor?: Minor;
}

/** The line owed_by_payers, payer_debts_written_off and owed_by_payees take their balances from. */
const owedByPayersFrom = 'suspense';

/** The lines no ledger account stands behind, each a debt reclassified out of suspense. */
type DebtLine = 'owed_by_payers' | 'owed_by_payees';

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
  return { ...t, kind: isSystem ? 'system' : 'merchant', merchantId: isSystem ? null : parts[0]!, name: parts[parts.length - 1]!, reclassifiedMinor: 0n, balanceMinor: t.creditMinor - t.debitMinor };
}

/** A line's balance moved by `minor` taken over from (−) or handed to (+) another line. */
function reclassified(l: TrialBalanceLine, minor: Minor): TrialBalanceLine {
  return { ...l, reclassifiedMinor: l.reclassifiedMinor + minor, balanceMinor: l.balanceMinor + minor };
}

/**
 * The ledger's lines of a mode with the payers' (or payees') debt, when one was recorded, on a
 * line of its own: −owed there, −written off on payer_debts_written_off once a write-off of the
 * payers' debt was recorded, and both + on suspense, whose debit balance holds them.
 */
function withPayerDebt(livemode: boolean, lines: TrialBalanceLine[], owed: OwedByPayers | undefined, name: DebtLine = 'owed_by_payers'): TrialBalanceLine[] {
  if (owed === undefined) return lines;
  const writtenOff = owed.writtenOffMinor;
  assert(owed.owedMinor >= 0n && (writtenOff ?? 0n) >= 0n, () => `${name} ${owed.owedMinor}, written off ${writtenOff}`);
  const taken = owed.owedMinor + (writtenOff ?? 0n);
  const mode = livemode ? 'live' : 'test';
  const from = `sys:${mode}:${owedByPayersFrom}`;
  const at = lines.findIndex((l) => l.account === from);
  assert(at >= 0 || taken === 0n, () => `${name} ${owed.owedMinor} (${writtenOff ?? 0n} written off), but ${from} has no postings: the refunds were drawn from it`);
  if (at >= 0) lines[at] = reclassified(lines[at]!, taken);
  const debtLine = (line: string, minor: Minor) => reclassified(lineOf({ livemode, account: `sys:${mode}:${line}`, count: 0, creditMinor: 0n, debitMinor: 0n }), -minor);
  return [...lines, debtLine(name, owed.owedMinor), ...(writtenOff === undefined ? [] : [debtLine('payer_debts_written_off', writtenOff)])];
}

function sectionOf(livemode: boolean, turnovers: readonly AccountTurnover[], owed: OwedByPayers | undefined, owedByPayees?: OwedByPayers): TrialBalanceSection {
  const ledger = withPayerDebt(livemode, turnovers.filter((t) => t.livemode === livemode).map(lineOf), owed);
  const lines = withPayerDebt(livemode, ledger, owedByPayees, 'owed_by_payees')
    .sort((a, b) => (a.kind === b.kind ? (a.account < b.account ? -1 : a.account > b.account ? 1 : 0) : a.kind === 'system' ? -1 : 1));
  let debitTurnover = 0n, creditTurnover = 0n, debitBalances = 0n, creditBalances = 0n, reclassifiedTotal = 0n;
  for (const l of lines) {
    debitTurnover += l.debitMinor;
    creditTurnover += l.creditMinor;
    reclassifiedTotal += l.reclassifiedMinor;
    if (l.balanceMinor < 0n) debitBalances -= l.balanceMinor;
    else creditBalances += l.balanceMinor;
  }
  assert(debitTurnover === creditTurnover, () => `trial balance (${livemode ? 'live' : 'sandbox'}): debits ${debitTurnover} ≠ credits ${creditTurnover}`);
  assert(reclassifiedTotal === 0n, () => `trial balance (${livemode ? 'live' : 'sandbox'}): reclassifications sum to ${reclassifiedTotal}, not 0`);
  assert(debitBalances === creditBalances, () => `trial balance (${livemode ? 'live' : 'sandbox'}): debit balances ${debitBalances} ≠ credit balances ${creditBalances}`);
  return { livemode, lines, debitTurnoverMinor: debitTurnover, creditTurnoverMinor: creditTurnover, debitBalancesMinor: debitBalances, creditBalancesMinor: creditBalances };
}

/**
 * The trial balance from every account's turnover up to `asOfMs` and what payers owe back
 * then (a mode without any such debt recorded has no owed_by_payers line), and payees
 * (owed_by_payees, likewise); asserts each section balances.
 */
export function buildTrialBalance(asOfMs: number, turnovers: readonly AccountTurnover[], owedByPayers: readonly OwedByPayers[] = [], owedByPayees: readonly OwedByPayers[] = []): TrialBalance {
  const owed = (livemode: boolean) => owedByPayers.find((o) => o.livemode === livemode);
  const payees = (livemode: boolean) => owedByPayees.find((o) => o.livemode === livemode);
  return { asOfMs, sections: [sectionOf(true, turnovers, owed(true), payees(true)), sectionOf(false, turnovers, owed(false), payees(false))] };
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
        debit_minor: reportMinor(l.debitMinor), credit_minor: reportMinor(l.creditMinor), reclassified_minor: reportMinor(l.reclassifiedMinor),
        balance_minor: reportMinor(l.balanceMinor), side: sideOf(l.balanceMinor),
      })),
      total_debit_minor: reportMinor(s.debitTurnoverMinor), total_credit_minor: reportMinor(s.creditTurnoverMinor),
      total_debit_balance_minor: reportMinor(s.debitBalancesMinor), total_credit_balance_minor: reportMinor(s.creditBalancesMinor),
      balanced: isBalanced(s),
    })),
  };
}

export const trialBalanceCsvHeader = [
  'as_of', 'livemode', 'account', 'kind', 'merchant_id', 'merchant_name', 'name', 'postings', 'debit_minor', 'credit_minor', 'reclassified_minor', 'balance_minor', 'balance_baht', 'side',
] as const;

/**
 * The trial balance as CSV: each section's accounts, then its `total` line — the postings,
 * the debit and credit turnovers, the net of the reclassifications and of the balances (zero) and, in the side column,
 * `balanced` or `unbalanced` — so the file alone shows that the ledger balances.
 */
export function trialBalanceCsv(tb: TrialBalance, merchantName: MerchantNames): string {
  const asOf = iso(tb.asOfMs);
  const rows = tb.sections.flatMap((s) => {
    const net = s.creditBalancesMinor - s.debitBalancesMinor;
    const postings = s.lines.reduce((n, l) => n + l.count, 0);
    const reclassifiedNet = s.lines.reduce((n, l) => n + l.reclassifiedMinor, 0n);
    return [
      ...s.lines.map((l) => [asOf, s.livemode, l.account, l.kind, l.merchantId, l.merchantId === null ? null : merchantName(l.merchantId) ?? null, l.name, l.count, l.debitMinor, l.creditMinor, l.reclassifiedMinor, l.balanceMinor, bahtOf(l.balanceMinor), sideOf(l.balanceMinor)]),
      [asOf, s.livemode, 'total', 'total', null, null, null, postings, s.debitTurnoverMinor, s.creditTurnoverMinor, reclassifiedNet, net, bahtOf(net), isBalanced(s) ? 'balanced' : 'unbalanced'],
    ];
  });
  return csvText(trialBalanceCsvHeader, rows);
}

function isBalanced(s: TrialBalanceSection): boolean {
  return s.debitTurnoverMinor === s.creditTurnoverMinor && s.debitBalancesMinor === s.creditBalancesMinor;
}
