// The claim aggregate (DESIGN.md "Claims"): money that is not the merchant's — a same-slip
// overpayment's excess, an additional transfer after settlement, a transfer after the late
// window, or anything an operator opens by hand — and what becomes of it. A claim is one
// journal stream (its clm_ id). Statuses: open → under_review → refund_pending →
// return_pending_payout → closed, or rejected (from open or under_review); under_review
// may also close without a refund. evolve is total and pure; every event bumps the
// version by one; a final status (closed, rejected) is never left. Every decision keeps
// the operator and the note.

import { assert } from '../assert.ts';
import type { Minor } from '../money.ts';
import type { TransferSender } from '../deposit/state.ts';

export type ClaimKind = 'overpayment' | 'late_slip' | 'manual';
export const claimKinds: readonly ClaimKind[] = ['overpayment', 'late_slip', 'manual'];

export type ClaimStatus = 'open' | 'under_review' | 'refund_pending' | 'return_pending_payout' | 'closed' | 'rejected';
export const claimStatuses: readonly ClaimStatus[] = ['open', 'under_review', 'refund_pending', 'return_pending_payout', 'closed', 'rejected'];

/** Where a refund goes: the payer's account, as the deposit's sender named it. */
export interface RefundAccount {
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly accountNameTh: string;
}

/** One decision on the claim: who, when, what status it led to, and why. */
export interface ClaimNote {
  readonly at: number;
  readonly operatorId: string | null;
  readonly status: ClaimStatus;
  readonly note: string;
  /**
   * The event that wrote it, so a reader can tell the notes the service writes (a close after
   * the refund's payout, a recall, a refund owed back) from an operator's own, without reading
   * the text. Absent on the opening note (ClaimOpened's claim) and in snapshots from before it.
   */
  readonly event?: ClaimEvent['type'];
}

export interface Claim {
  readonly id: string;
  readonly kind: ClaimKind;
  readonly status: ClaimStatus;
  readonly depositId: string;
  readonly merchantId: string;
  readonly livemode: boolean;
  readonly amountMinor: Minor;
  /** The opening note (an automatic claim says what opened it). */
  readonly note?: string;
  /** What the claim rests on (free text an operator gives; an automatic claim names its cause). */
  readonly evidence?: string;
  /** Every decision, oldest first. */
  readonly notes?: readonly ClaimNote[];
  /** Who the slip showed sending the transfer an automatic claim is for (a further transfer): the refund goes there, not by default to the order's sender. */
  readonly transferSender?: TransferSender;
  /** Set by the refund decision: how much goes back, and where to. */
  readonly refundMinor?: Minor;
  readonly refundAccount?: RefundAccount;
  /** The refund withdrawal (refund_of_deposit_id = depositId), once paid out: the latest, when a recall replaced one. */
  readonly refundWithdrawalId?: string;
  /**
   * The claim's refund withdrawals before refundWithdrawalId, oldest first: each had a fill
   * the bank recalled after it closed, and the next was opened in its place for that amount
   * (ClaimRefundRecalled). What the claim refunded is what all of them filled.
   */
  readonly earlierRefundWithdrawalIds?: readonly string[];
  /** What was actually returned, on close. */
  readonly refundedMinor?: Minor;
  /**
   * What the payer owes back (ClaimRefundOwed): the claim's deposit was reversed after its
   * refunds had paid this much, so the bank's recall of the transfer returned that money to
   * the payer a second time. suspense still shows it drawn; this names who holds it.
   */
  readonly owedByPayerMinor?: Minor;
  /**
   * What of the payer's debt finance wrote off as a loss (ClaimWrittenOff, two operators), less
   * what the bank later recovered of it from the payer: owedByPayerMinor + this is what the
   * payer's debt came to. Absent until a write-off.
   */
  readonly writtenOffMinor?: Minor;
  /** A write-off one finance operator proposed, waiting for a second (core/claim/write-off.ts). */
  readonly writeOffProposal?: WriteOffProposal;
  readonly version: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A write-off of what the payer owes back, proposed by one finance operator, waiting for another's approval. */
export interface WriteOffProposal {
  readonly id: string;
  readonly amountMinor: Minor;
  readonly note: string;
  readonly proposedBy: string;
  readonly proposedAt: number;
}

export type ClaimEvent =
  | { readonly type: 'ClaimReviewStarted'; readonly at: number; readonly claimId: string; readonly operatorId: string; readonly note: string }
  | { readonly type: 'ClaimRefundApproved'; readonly at: number; readonly claimId: string; readonly operatorId: string; readonly note: string; readonly refundMinor: Minor; readonly account: RefundAccount }
  | { readonly type: 'ClaimRefundPaidOut'; readonly at: number; readonly claimId: string; readonly operatorId: string; readonly note: string; readonly withdrawalId: string }
  | { readonly type: 'ClaimClosed'; readonly at: number; readonly claimId: string; readonly operatorId: string; readonly note: string; readonly refundedMinor: Minor }
  | { readonly type: 'ClaimRejected'; readonly at: number; readonly claimId: string; readonly operatorId: string; readonly note: string }
  /**
   * The bank recalled `recalledMinor` of a fill (`legRef`) of the claim's refund withdrawal
   * `recalledWithdrawalId` after it closed. With `replacementWithdrawalId` the claim pays it
   * again through that new refund and waits for it (return_pending_payout); without, the
   * money stays in suspense and `status` says whether the claim still waits for a refund
   * still open, or is closed with `refundedMinor`, what its refunds filled net of recalls.
   * The one event that may follow a closed claim: the refund it closed on came undone.
   */
  | {
    readonly type: 'ClaimRefundRecalled'; readonly at: number; readonly claimId: string; readonly operatorId: string; readonly note: string;
    readonly recalledWithdrawalId: string; readonly legRef: string; readonly recalledMinor: Minor; readonly replacementWithdrawalId?: string;
    readonly status: 'return_pending_payout' | 'closed'; readonly refundedMinor?: Minor;
  }
  /**
   * The claim's deposit was reversed (its transfer recalled) after the claim's refunds had
   * paid `owedMinor` of it back to the payer: the payer now has that money twice, and owes it
   * back. The claim keeps its status (`status`, closed: a reversal waits for every refund to
   * be final); recording who holds the money suspense paid out is the one other event that
   * may follow a closed claim.
   */
  | {
    readonly type: 'ClaimRefundOwed'; readonly at: number; readonly claimId: string; readonly operatorId: string; readonly note: string;
    readonly depositId: string; readonly reasonCode: string; readonly owedMinor: Minor; readonly status: ClaimStatus;
  }
  /**
   * A finance operator proposes to write off `amountMinor` of what the payer owes back (a
   * loss: the money is not expected back); nothing moves until a second approves it. The
   * claim keeps its status (`status`).
   */
  | {
    readonly type: 'ClaimWriteOffProposed'; readonly at: number; readonly claimId: string; readonly operatorId: string; readonly note: string;
    readonly proposalId: string; readonly amountMinor: Minor; readonly status: ClaimStatus;
  }
  /**
   * A second finance operator approved the proposal `proposalId` of `proposedBy`: `amountMinor`
   * of the payer's debt moves from owed to written off. The claim keeps its status.
   */
  | {
    readonly type: 'ClaimWrittenOff'; readonly at: number; readonly claimId: string; readonly operatorId: string; readonly note: string;
    readonly proposalId: string; readonly proposedBy: string; readonly amountMinor: Minor; readonly status: ClaimStatus;
  };

/** The claim events after which the claim keeps a status they carry (they may follow a closed claim). */
type StatusCarrying = 'ClaimRefundRecalled' | 'ClaimRefundOwed' | 'ClaimWriteOffProposed' | 'ClaimWrittenOff';
const carriesStatus = (e: ClaimEvent): e is Extract<ClaimEvent, { type: StatusCarrying }> =>
  e.type === 'ClaimRefundRecalled' || e.type === 'ClaimRefundOwed' || e.type === 'ClaimWriteOffProposed' || e.type === 'ClaimWrittenOff';

export const isFinalClaimStatus = (s: ClaimStatus): boolean => s === 'closed' || s === 'rejected';

/** The status each decision leads to (a recall and a refund owed name their own). */
const statusAfter: { readonly [T in Exclude<ClaimEvent['type'], StatusCarrying>]: ClaimStatus } = {
  ClaimReviewStarted: 'under_review', ClaimRefundApproved: 'refund_pending', ClaimRefundPaidOut: 'return_pending_payout',
  ClaimClosed: 'closed', ClaimRejected: 'rejected',
};

/** The status a claim event leads to. */
export function claimStatusAfter(e: ClaimEvent): ClaimStatus {
  return carriesStatus(e) ? e.status : statusAfter[e.type];
}

/** The claim's refund withdrawals, oldest first (the first payout's, then each replacement). */
export function refundWithdrawalsOf(c: Pick<Claim, 'refundWithdrawalId' | 'earlierRefundWithdrawalIds'>): readonly string[] {
  return c.refundWithdrawalId === undefined ? [] : [...(c.earlierRefundWithdrawalIds ?? []), c.refundWithdrawalId];
}

/** What a claim's payer owes back and what of that debt was written off (0 and 0 when nothing). */
export interface PayerDebt {
  readonly owedMinor: Minor;
  readonly writtenOffMinor: Minor;
}

export const noPayerDebt: PayerDebt = { owedMinor: 0n, writtenOffMinor: 0n };

/** A claim's payer debt as its fields hold it. */
export const payerDebtOf = (c: Pick<Claim, 'owedByPayerMinor' | 'writtenOffMinor'>): PayerDebt => ({ owedMinor: c.owedByPayerMinor ?? 0n, writtenOffMinor: c.writtenOffMinor ?? 0n });

/**
 * The payer's debt after `e`, given `debt` before it: the one rule evolveClaim and the
 * finance reports' payer debts (projections/payer-debts.ts) share. A refund recorded as owed
 * back sets what is owed; a write-off moves its amount from owed to written off; a recall
 * that closes the claim caps the whole debt (owed + written off) at what is left refunded (a
 * refund the bank took back from the payer is no longer money they hold twice): what it
 * recovers lowers what is still owed first, then, once nothing is, what was written off (a
 * recovery of a loss), so neither goes below zero. Nothing else moves it.
 */
export function payerDebtAfter(debt: PayerDebt, e: ClaimEvent): PayerDebt {
  if (e.type === 'ClaimRefundOwed') return { ...debt, owedMinor: e.owedMinor };
  if (e.type === 'ClaimWrittenOff') return { owedMinor: debt.owedMinor - e.amountMinor, writtenOffMinor: debt.writtenOffMinor + e.amountMinor };
  if (e.type === 'ClaimRefundRecalled' && e.replacementWithdrawalId === undefined && e.status === 'closed' && e.refundedMinor !== undefined) {
    const total = debt.owedMinor + debt.writtenOffMinor;
    const recovered = total > e.refundedMinor ? total - e.refundedMinor : 0n;
    const fromOwed = recovered < debt.owedMinor ? recovered : debt.owedMinor;
    return { owedMinor: debt.owedMinor - fromOwed, writtenOffMinor: debt.writtenOffMinor - (recovered - fromOwed) };
  }
  return debt;
}

/** The claim with `debt` in its fields (each absent at 0, as before any debt). */
function withPayerDebt(c: Claim, debt: PayerDebt): Claim {
  const { owedByPayerMinor: _owed, writtenOffMinor: _writtenOff, ...rest } = c;
  return { ...rest, ...(debt.owedMinor > 0n ? { owedByPayerMinor: debt.owedMinor } : {}), ...(debt.writtenOffMinor > 0n ? { writtenOffMinor: debt.writtenOffMinor } : {}) };
}

/**
 * What the payee owes the service for one claim, as the claim's refunds left it. A claim's money
 * was never posted (it sits in the account the payer transferred to, the payee's), so what its
 * refunds paid out of suspense is the service's open claim on that payee — but for the part the
 * payer owes back (ClaimRefundOwed: the bank recalled the whole transfer from the payee, the
 * refund with it). Counted once the claim says what its refunds paid: when it closes, or a recall
 * closes it; a claim reopened by a recall (a replacement refund paying out) owes nothing until it
 * closes again. `closed` tells the two apart for the next event.
 */
export interface PayeeDebt {
  readonly owedMinor: Minor;
  readonly closed: boolean;
}

export const noPayeeDebt: PayeeDebt = { owedMinor: 0n, closed: false };

/**
 * The payee's debt after `e`, given it before: the one rule owedByPayeeOf (the claim's view) and
 * the finance reports' payee debts (projections/payee-debts.ts) share. A close sets it to what
 * the refunds paid (nothing is owed back by the payer before a close); a refund owed back by the
 * payer takes it off the payee (all of it: what is owed is all the claim refunded); a recall that
 * closes the claim lowers it to what is left refunded (none once the payer owes it); a recall
 * that leaves the claim waiting for a refund clears it until the claim closes. A write-off of
 * the payer's debt does not move it: what is written off is still the payer's debt.
 */
export function owedByPayeeAfter(before: PayeeDebt, e: ClaimEvent): PayeeDebt {
  switch (e.type) {
    case 'ClaimClosed': return { owedMinor: e.refundedMinor, closed: true };
    case 'ClaimRefundOwed': return { owedMinor: before.owedMinor > e.owedMinor ? before.owedMinor - e.owedMinor : 0n, closed: before.closed };
    case 'ClaimRefundRecalled': {
      if (e.status !== 'closed' || e.refundedMinor === undefined) return noPayeeDebt;
      if (!before.closed) return { owedMinor: e.refundedMinor, closed: true };
      return { owedMinor: before.owedMinor < e.refundedMinor ? before.owedMinor : e.refundedMinor, closed: true };
    }
    default: return before;
  }
}

/**
 * What the claim's payee owes the service (owedByPayeeAfter folded over its events), from the
 * claim as it stands: what its refunds paid less the payer's debt, the part written off
 * included (a write-off is a loss on the payer's debt, which stays the payer's, not the payee's).
 */
export function owedByPayeeOf(c: Pick<Claim, 'status' | 'refundedMinor' | 'owedByPayerMinor' | 'writtenOffMinor'>): Minor {
  if (c.status !== 'closed') return 0n;
  const left = (c.refundedMinor ?? 0n) - (c.owedByPayerMinor ?? 0n) - (c.writtenOffMinor ?? 0n);
  return left > 0n ? left : 0n;
}

/**
 * The claim after one event; asserts it is not final (a recall of a closed claim's refund, a
 * refund owed back and its write-off aside), that a refund stays within the claim and that a
 * write-off stays within what is owed.
 */
export function evolveClaim(c: Claim, e: ClaimEvent): Claim {
  assert(!isFinalClaimStatus(c.status) || (carriesStatus(e) && c.status === 'closed'), () => `claim ${c.id} is ${c.status}; ${e.type} cannot follow`);
  const status = claimStatusAfter(e);
  const notes = [...(c.notes ?? []), { at: e.at, operatorId: e.operatorId, status, note: e.note, event: e.type }];
  const next: Claim = { ...c, status, notes, version: c.version + 1, updatedAt: e.at };
  switch (e.type) {
    case 'ClaimRefundApproved':
      assert(e.refundMinor > 0n && e.refundMinor <= c.amountMinor, () => `claim ${c.id}: refund ${e.refundMinor} outside 1..${c.amountMinor}`);
      return { ...next, refundMinor: e.refundMinor, refundAccount: e.account };
    case 'ClaimRefundPaidOut': return { ...next, refundWithdrawalId: e.withdrawalId };
    case 'ClaimClosed':
      assert(e.refundedMinor >= 0n && e.refundedMinor <= c.amountMinor, () => `claim ${c.id}: refunded ${e.refundedMinor} outside 0..${c.amountMinor}`);
      return { ...next, refundedMinor: e.refundedMinor };
    case 'ClaimReviewStarted': case 'ClaimRejected': return next;
    case 'ClaimRefundRecalled': {
      assert(refundWithdrawalsOf(c).includes(e.recalledWithdrawalId), () => `claim ${c.id}: ${e.recalledWithdrawalId} is not one of its refunds`);
      if (e.replacementWithdrawalId !== undefined) {
        const { refundedMinor: _closedWith, ...reopened } = next;
        return { ...reopened, refundWithdrawalId: e.replacementWithdrawalId, earlierRefundWithdrawalIds: refundWithdrawalsOf(c) };
      }
      if (e.status !== 'closed') return next;
      assert(e.refundedMinor !== undefined && e.refundedMinor >= 0n && e.refundedMinor <= c.amountMinor, () => `claim ${c.id}: refunded ${e.refundedMinor} outside 0..${c.amountMinor}`);
      return withPayerDebt({ ...next, refundedMinor: e.refundedMinor }, payerDebtAfter(payerDebtOf(c), e));
    }
    case 'ClaimRefundOwed':
      assert(e.status === c.status && e.owedMinor > 0n && e.owedMinor <= (c.refundedMinor ?? 0n), () => `claim ${c.id} (${c.status}, refunded ${c.refundedMinor}): owed ${e.owedMinor} as ${e.status}`);
      return withPayerDebt(next, payerDebtAfter(payerDebtOf(c), e));
    case 'ClaimWriteOffProposed':
      assert(e.status === c.status && e.amountMinor > 0n && e.amountMinor <= (c.owedByPayerMinor ?? 0n), () => `claim ${c.id}: a write-off of ${e.amountMinor} proposed, owed ${c.owedByPayerMinor}`);
      return { ...next, writeOffProposal: { id: e.proposalId, amountMinor: e.amountMinor, note: e.note, proposedBy: e.operatorId, proposedAt: e.at } };
    case 'ClaimWrittenOff': {
      assert(e.status === c.status && c.writeOffProposal?.id === e.proposalId && e.amountMinor > 0n && e.amountMinor <= (c.owedByPayerMinor ?? 0n),
        () => `claim ${c.id}: written off ${e.amountMinor} on ${e.proposalId}, owed ${c.owedByPayerMinor}, waiting ${c.writeOffProposal?.id}`);
      const { writeOffProposal: _approved, ...rest } = next;
      return withPayerDebt(rest, payerDebtAfter(payerDebtOf(c), e));
    }
    default: {
      const _exhaustive: never = e;
      return _exhaustive;
    }
  }
}
