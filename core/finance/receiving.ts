// The receiving-account statement: satang tells payers to transfer straight into a
// withdrawing party's beneficiary account (a leg), the payer's slip is verified, and the
// accepted money is credited to the withdrawal as a fill. For every receiving account the
// three — told, verified, filled — must agree; this names, per leg, why they do not.
// Reasons, in order of precedence (the first that applies is the leg's):
//   DEPOSIT_REVERSED     the settled deposit was reversed after the fact (difference)
//   DECLINED_TRANSFER    a slip showed money arriving in the account, a reviewer declined the
//                        order: the money may be there with no fill (difference)
//   FILL_REVERSED        the fill was reversed by an operator (difference)
//   OVERPAID             the slip shows more than the leg asked (the same transfer's excess):
//                        a claim returns it (difference)
//   SHORT_PAID           the slip shows less than the leg asked (difference)
//   FILL_DIFFERS         the fill is not the verified amount for another reason (difference)
//   FILL_PENDING         verified, not yet credited (the order waits for other legs or a review)
//   SLIP_IN_REVIEW       a slip showed money arriving; the order is held for review, not yet verified
//   SLIP_AWAITED         told, no slip showing it yet, the leg still open
//   RELEASED_UNPAID      told, never paid, the leg released (expired or canceled): no money moved
// A leg with none of them agrees.

import { reportMinor, type Minor } from '../money.ts';
import { iso, maskAccountNumber, maskName } from '../present.ts';
import { bahtOf, csvText } from './money-text.ts';

export interface ReceivingLeg {
  readonly depositId: string;
  readonly legRef: string;
  readonly withdrawalId: string;
  /** The fill's leg_ref on the withdrawal (its fills[]): the deposit's leg_ref and the withdrawal's are not the same (contract). */
  readonly payoutLegRef?: string;
  readonly toldMinor: Minor;
  readonly toldAt: number;
  readonly verifiedMinor: Minor | null;
  readonly filledMinor: Minor | null;
  readonly released: boolean;
  readonly fillReversed: boolean;
  readonly depositReversed: boolean;
  /** What the slip of a declined order showed arriving in the account; null otherwise. */
  readonly declinedShownMinor: Minor | null;
  /** What the slip of an order held for review showed arriving in the account (not declined); null or absent otherwise. */
  readonly inReviewShownMinor?: Minor | null;
}

export type ReceivingReason =
  | 'DEPOSIT_REVERSED' | 'DECLINED_TRANSFER' | 'FILL_REVERSED' | 'OVERPAID' | 'SHORT_PAID' | 'FILL_DIFFERS' | 'FILL_PENDING' | 'SLIP_IN_REVIEW' | 'SLIP_AWAITED' | 'RELEASED_UNPAID';

/** Whether a reason means the figures disagree (the others are pending or moved no money). */
export function isDifference(reason: ReceivingReason): boolean {
  return reason !== 'FILL_PENDING' && reason !== 'SLIP_IN_REVIEW' && reason !== 'SLIP_AWAITED' && reason !== 'RELEASED_UNPAID';
}

/** Why a leg's told, verified and filled amounts do not agree; null when they do. */
export function receivingReason(leg: ReceivingLeg): ReceivingReason | null {
  if (leg.depositReversed) return 'DEPOSIT_REVERSED';
  if (leg.declinedShownMinor !== null) return 'DECLINED_TRANSFER';
  if (leg.fillReversed) return 'FILL_REVERSED';
  if (leg.verifiedMinor === null) return leg.released ? 'RELEASED_UNPAID' : (leg.inReviewShownMinor ?? null) !== null ? 'SLIP_IN_REVIEW' : 'SLIP_AWAITED';
  if (leg.verifiedMinor > leg.toldMinor) return 'OVERPAID';
  if (leg.verifiedMinor < leg.toldMinor) return 'SHORT_PAID';
  if (leg.filledMinor === null) return leg.released ? 'FILL_DIFFERS' : 'FILL_PENDING';
  if (leg.filledMinor !== leg.verifiedMinor) return 'FILL_DIFFERS';
  return null;
}

export interface ReceivingAccountSummary {
  readonly livemode: boolean;
  readonly merchantId: string;
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly accountName: string;
  readonly legs: number;
  readonly toldMinor: Minor;
  readonly verifiedMinor: Minor;
  readonly filledMinor: Minor;
  /** Each as its leg stands: filledMinor is what the withdrawal holds (0 once the fill was reversed), reversedFillMinor what it held before. */
  readonly differences: readonly (ReceivingLeg & { readonly reason: ReceivingReason; readonly reversedFillMinor: Minor | null })[];
  readonly pending: number;
  /** Legs whose reason is a difference (all of them, however many are listed). */
  readonly disagreeing: number;
  readonly releasedUnpaid: number;
}

/**
 * One account's totals and its legs that do not agree. A reversed fill does not count as
 * filled (the withdrawal no longer has it); a reversed deposit's fill does (it still stands
 * on the withdrawal: the ledger takes the money back from the depositing merchant).
 * `differencesListedMax` bounds the list (the summary counts every leg).
 */
export function summariseReceivingAccount(
  account: Pick<ReceivingAccountSummary, 'livemode' | 'merchantId' | 'bankCode' | 'accountNumber' | 'accountName'>,
  legs: readonly ReceivingLeg[], differencesListedMax: number,
): ReceivingAccountSummary {
  let told = 0n, verified = 0n, filled = 0n, pending = 0, disagreeing = 0, releasedUnpaid = 0;
  const differences: (ReceivingLeg & { reason: ReceivingReason; reversedFillMinor: Minor | null })[] = [];
  for (const leg of legs) {
    const reason = receivingReason(leg);
    if (reason === 'RELEASED_UNPAID') { releasedUnpaid++; continue; }
    told += leg.toldMinor;
    verified += leg.verifiedMinor ?? 0n;
    // What the withdrawal holds of this leg: a reversed fill is out of it, on the account's line and the leg's alike.
    const held = leg.fillReversed && leg.filledMinor !== null ? 0n : leg.filledMinor;
    filled += held ?? 0n;
    if (reason === null) continue;
    if (isDifference(reason)) disagreeing++;
    else pending++;
    if (differences.length < differencesListedMax) differences.push({ ...leg, filledMinor: held, reversedFillMinor: leg.fillReversed ? leg.filledMinor : null, reason });
  }
  return { ...account, legs: legs.length, toldMinor: told, verifiedMinor: verified, filledMinor: filled, differences, pending, disagreeing, releasedUnpaid };
}

/** What a leg's slip showed arriving, where no verification says it: a declined order's, or one held for review. */
function shownOf(d: ReceivingLeg & { readonly reason: ReceivingReason }): Minor | null {
  return d.declinedShownMinor ?? (d.reason === 'SLIP_IN_REVIEW' ? d.inReviewShownMinor ?? null : null);
}

/** One receiving account as the API answers it (the account number masked). */
export function presentReceivingAccount(a: ReceivingAccountSummary): Record<string, unknown> {
  return {
    object: 'receiving_account', livemode: a.livemode, merchant_id: a.merchantId, bank_code: a.bankCode,
    account_number_masked: maskAccountNumber(a.accountNumber), account_name_masked: maskName(a.accountName), legs: a.legs,
    told_minor: reportMinor(a.toldMinor), verified_minor: reportMinor(a.verifiedMinor), filled_minor: reportMinor(a.filledMinor),
    pending_legs: a.pending, released_unpaid_legs: a.releasedUnpaid, agrees: a.disagreeing === 0, disagreeing_legs: a.disagreeing,
    differences: a.differences.map((d) => ({
      deposit_id: d.depositId, leg_ref: d.legRef, withdrawal_id: d.withdrawalId, fill_leg_ref: d.payoutLegRef ?? null, told_at: iso(d.toldAt), reason: d.reason,
      told_minor: reportMinor(d.toldMinor), verified_minor: d.verifiedMinor === null ? null : reportMinor(d.verifiedMinor),
      filled_minor: d.filledMinor === null ? null : reportMinor(d.filledMinor),
      ...(d.reversedFillMinor !== null ? { fill_reversed_minor: reportMinor(d.reversedFillMinor) } : {}),
      ...(shownOf(d) !== null ? { slip_shown_minor: reportMinor(shownOf(d)!) } : {}),
    })),
  };
}

export const receivingCsvHeader = [
  'livemode', 'merchant_id', 'bank_code', 'account_number_masked', 'account_name_masked', 'line', 'deposit_id', 'leg_ref', 'withdrawal_id', 'reason',
  'told_minor', 'verified_minor', 'filled_minor', 'told_baht', 'verified_baht', 'filled_baht', 'slip_shown_minor', 'fill_leg_ref',
  'fill_reversed_minor', 'legs', 'pending_legs', 'released_unpaid_legs', 'disagreeing_legs',
] as const;

/**
 * RFC 4180: per account a line with its totals and its leg counts, then a line per leg that
 * differs or is pending (with what a reversed fill was). The columns added after the first
 * eighteen come last, so a sheet reading those by place still reads them.
 */
export function receivingAccountsCsv(accounts: readonly ReceivingAccountSummary[]): string {
  const rows: (string | number | bigint | boolean | null)[][] = [];
  const baht = (m: Minor | null) => (m === null ? null : bahtOf(m));
  for (const a of accounts) {
    const head = [a.livemode, a.merchantId, a.bankCode, maskAccountNumber(a.accountNumber), maskName(a.accountName)] as const;
    rows.push([...head, 'account', null, null, null, a.disagreeing === 0 ? null : 'DIFFERENCES', a.toldMinor, a.verifiedMinor, a.filledMinor, baht(a.toldMinor), baht(a.verifiedMinor), baht(a.filledMinor), null, null,
      null, a.legs, a.pending, a.releasedUnpaid, a.disagreeing]);
    for (const d of a.differences) {
      rows.push([...head, 'leg', d.depositId, d.legRef, d.withdrawalId, d.reason, d.toldMinor, d.verifiedMinor, d.filledMinor, baht(d.toldMinor), baht(d.verifiedMinor), baht(d.filledMinor), shownOf(d), d.payoutLegRef ?? null,
        d.reversedFillMinor, null, null, null, null]);
    }
  }
  return csvText(receivingCsvHeader, rows);
}
