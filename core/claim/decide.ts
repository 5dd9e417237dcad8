// The claim decider: decide(command, claim, facts) → events or a refusal naming the
// contract's error code. Transitions (DESIGN.md "Claims"; the contract leaves them open):
//
//   open ──review──▶ under_review ──refund──▶ refund_pending ──payout──▶ return_pending_payout ──close──▶ closed
//     └──reject──▶ rejected ◀──reject──┘   └──close (no refund)──▶ closed ◀──close (no refund)──┘
//
// Every decision needs an operator note of at least limits.reviewNoteLengthMin characters.
// Money leaves suspense only on two people's word: the operator who opened a claim by
// hand cannot approve its refund, and the one who approved a refund cannot pay it out.
// A claim opened by hand is for at most its deposit's amount less what the deposit's other
// claims of its kind hold of it (heldOfDeposit); a refund at most the claim's. A claim closes out of return_pending_payout only
// once its refund withdrawal is final (settled, expired or canceled); what it filled is
// what was refunded. No refund is approved or paid out once the deposit is reversed (its
// transfer undone, the money back with the payer): such a claim is rejected or closed.
// A fill of its refund the bank recalls after the refund closed is paid again by a
// replacement refund, the claim back in return_pending_payout (decideRefundRecall).

import { reject, type Rejection } from '../errors.ts';
import { limits } from '../limits.ts';
import type { Minor } from '../money.ts';
import { bahtOf } from '../finance/money-text.ts';
import { checkNote } from '../note.ts';
import { refundWithdrawalsOf, type Claim, type ClaimEvent, type ClaimKind, type ClaimStatus, type RefundAccount } from './state.ts';
import { sameOperator } from '../operators.ts';

export type ClaimCommand =
  | { readonly type: 'StartClaimReview'; readonly at: number; readonly operatorId: string; readonly note: string }
  /**
   * `account`: the order's sender, or the account the operator named (`accountNamed`);
   * `transferFromAnother`: the claim's transfer came, as its slip showed it, from another account
   * than the order's sender (a description of it, masked), so the refund needs the account named.
   */
  | { readonly type: 'ApproveClaimRefund'; readonly at: number; readonly operatorId: string; readonly note: string; readonly refundMinor?: Minor; readonly account: RefundAccount; readonly accountNamed: boolean; readonly transferFromAnother?: string; readonly deposit: ClaimedDeposit }
  | { readonly type: 'PayOutClaimRefund'; readonly at: number; readonly operatorId: string; readonly note: string; readonly withdrawalId: string; readonly deposit: ClaimedDeposit }
  | { readonly type: 'CloseClaim'; readonly at: number; readonly operatorId: string; readonly note: string; readonly refund?: { readonly final: boolean; readonly filledMinor: Minor } }
  | { readonly type: 'RejectClaim'; readonly at: number; readonly operatorId: string; readonly note: string };

export type ClaimDecision = readonly ClaimEvent[] | Rejection;

/** The transition a route names, and the statuses it may start from. */
export const claimTransitions = {
  review: ['open'],
  refund: ['under_review'],
  payout: ['refund_pending'],
  close: ['under_review', 'refund_pending', 'return_pending_payout'],
  reject: ['open', 'under_review'],
} as const satisfies Record<string, readonly ClaimStatus[]>;
export type ClaimTransition = keyof typeof claimTransitions;

const transitionOf: { readonly [T in ClaimCommand['type']]: ClaimTransition } = {
  StartClaimReview: 'review', ApproveClaimRefund: 'refund', PayOutClaimRefund: 'payout', CloseClaim: 'close', RejectClaim: 'reject',
};

/** The facts a new claim is admitted on: the deposit it is about, if it exists, and what its other claims opened by hand already ask. */
export interface OpenClaimFacts {
  readonly deposit: (ClaimedDeposit & { readonly id: string; readonly amountMinor: Minor }) | undefined;
  /** What the deposit's other claims of the same kind hold of it (heldOfDeposit). */
  readonly claimedMinor: Minor;
  /** What the service saw paid beyond the order: the amounts of the overpayment claims it opened by itself (a same-slip excess, each further transfer). */
  readonly overpaidMinor: Minor;
}

/**
 * What a claim holds of its deposit against a new claim of its kind: nothing once rejected,
 * what its refund paid out once closed (a refund that expired unfilled, or a claim closed
 * without one, leaves the rest to be claimed again), else its whole amount while it is decided
 * or paid.
 */
export function heldOfDeposit(c: Pick<Claim, 'status' | 'amountMinor' | 'refundedMinor'>): Minor {
  if (c.status === 'rejected') return 0n;
  if (c.status === 'closed') return c.refundedMinor ?? 0n;
  return c.amountMinor;
}

/**
 * Statuses a claim is opened against by hand: not an order that can still be paid (the
 * payer's transfer is a slip for it, not a claim), nor one the bank recalled (the money is
 * back with the payer: a refund would pay it twice).
 */
const notClaimable = ['awaiting_liquidity', 'awaiting_payment', 'slip_processing', 'reversed'];

/** The deposit as a claim on the order's own amount is judged against. */
export interface ClaimedDeposit {
  readonly status: string;
  readonly isTerminal: boolean;
  /** When it settled, if it did. */
  readonly settledAt?: number;
}

/**
 * Why a claim on the order's own amount cannot be opened or refunded while the deposit is as
 * it is, or null: the order may still credit the payer's transfer to its merchant (under
 * review; closed but taking late slips), or did — a refund out of suspense would then pay
 * that money twice, once to the merchant and once back to the payer. A late_slip claim is
 * always on the order's amount; a manual claim opened on a settled deposit is on a transfer
 * beyond it the service never saw (the payer paid twice), one opened before the deposit
 * settled on the amount the settlement credited (`claimOpenedAt`, at a refund).
 */
export function orderAmountCredited(kind: ClaimKind, deposit: ClaimedDeposit, claimOpenedAt?: number): string | null {
  if (kind === 'overpayment') return null;
  if (deposit.status === 'under_review') return 'it is under review: a reviewer may still credit the transfer to its merchant';
  if ((deposit.status === 'expired' || deposit.status === 'canceled') && !deposit.isTerminal) return 'it still takes a late slip: the payer\'s slip credits the transfer (send the payer the order\'s slip link)';
  if (deposit.status !== 'settled') return null;
  if (kind === 'late_slip') return 'it settled: the order\'s amount was credited to its merchant (money seen beyond it is an overpayment claim)';
  if (claimOpenedAt !== undefined && deposit.settledAt !== undefined && claimOpenedAt < deposit.settledAt) return 'settled after the claim opened: the order\'s amount it claims was credited to its merchant';
  return null;
}

/** Every check a claim opened by an operator must pass, before any id is drawn for it; null when admitted. */
export function admitClaim(c: { readonly kind: ClaimKind; readonly amountMinor: Minor; readonly note: string }, facts: OpenClaimFacts): Rejection | null {
  if (!facts.deposit) return reject('validation_error', 'deposit_id names no deposit.', { fields: [{ path: 'deposit_id', reason: 'not_found' }] });
  if (notClaimable.includes(facts.deposit.status)) {
    const why = facts.deposit.status === 'reversed' ? 'the bank recalled its transfer: the money is back with the payer' : 'it can still take its payer\'s slip';
    return reject('operation_not_allowed', `A claim is not opened on a deposit that is ${facts.deposit.status}: ${why}.`, { status: facts.deposit.status });
  }
  const credited = orderAmountCredited(c.kind, facts.deposit);
  if (credited) return reject('operation_not_allowed', `A ${c.kind} claim is on the order's own amount, and this deposit's may be the merchant's: ${credited}.`, { status: facts.deposit.status, kind: c.kind });
  if (c.amountMinor <= 0n) return reject('validation_error', 'amount_minor must be positive.', { fields: [{ path: 'amount_minor', reason: 'minimum' }] });
  // Late-slip and manual claims are on the order's amount; overpayment claims on what the
  // service saw paid beyond it (each excess, each further transfer), whatever the order's size.
  const cap = c.kind === 'overpayment' ? facts.overpaidMinor : facts.deposit.amountMinor;
  const what = c.kind === 'overpayment' ? `the ${bahtOf(cap)} baht seen paid beyond the order (amount_minor ${cap})` : `its deposit's amount (${bahtOf(cap)} baht, amount_minor ${cap})`;
  if (c.kind === 'overpayment' && cap === 0n) {
    return reject('operation_not_allowed', 'No overpayment was seen on this deposit: a transfer beyond the order the service never saw is a manual claim, with its evidence.', { status: facts.deposit.status, kind: c.kind });
  }
  if (c.amountMinor > cap) {
    return reject('validation_error', `A claim is for at most ${what}${c.kind === 'overpayment' ? '' : '; money beyond the order is an overpayment claim'}.`, { fields: [{ path: 'amount_minor', reason: 'maximum' }] });
  }
  if (facts.claimedMinor + c.amountMinor > cap) {
    const left = cap - facts.claimedMinor;
    return reject('validation_error', `The deposit's other claims ${c.kind === 'overpayment' ? 'on money beyond the order (overpayment)' : 'on its amount (late_slip and manual together)'} already ask ${bahtOf(facts.claimedMinor)} baht of ${what}: at most ${bahtOf(left > 0n ? left : 0n)} baht (amount_minor ${left > 0n ? left : 0n}) more; a refund is never paid twice.`, { fields: [{ path: 'amount_minor', reason: 'maximum', hint: `at most ${left > 0n ? left : 0n}` }] });
  }
  return checkNote(c.note, 'Opening a claim');
}

/**
 * Whether the claim's money is part of the order's transfer, so a reversal of the deposit
 * (the bank recalling that transfer) returns it to the payer too: every claim but an
 * overpayment on a further transfer (`evidence: additional_transfer`, a transfer of its own).
 */
export function recalledWithTransfer(s: Pick<Claim, 'kind' | 'evidence'>): boolean {
  return !(s.kind === 'overpayment' && s.evidence === 'additional_transfer');
}

/**
 * What a claim's refunds paid the payer of the transfer a reversal recalls, or 0: a claim
 * whose money is that transfer's (recalledWithTransfer), closed having refunded some. A
 * reversal of the deposit pays the payer that money again (the bank returns the whole
 * transfer), so it is refused until the operator records it as owed back (decideRefundOwed).
 */
export function refundedOfTransfer(s: Claim): Minor {
  return recalledWithTransfer(s) && s.status === 'closed' && s.owedByPayerMinor === undefined && s.writtenOffMinor === undefined ? s.refundedMinor ?? 0n : 0n;
}

/**
 * The claim's deposit was reversed after its refunds paid the payer `refundedOfTransfer`: the
 * payer holds that money twice and owes it back. The claim records it (keeping its status),
 * by the operator who reversed the deposit; nothing when it refunded none of the transfer.
 */
export function decideRefundOwed(r: { readonly at: number; readonly operatorId: string; readonly depositId: string; readonly reasonCode: string }, s: Claim): readonly ClaimEvent[] {
  const owedMinor = refundedOfTransfer(s);
  if (owedMinor === 0n || r.depositId !== s.depositId) return [];
  const note = `The deposit ${s.depositId} was reversed (${r.reasonCode}) after this claim refunded ${bahtOf(owedMinor)} baht of its transfer: the bank's recall returned that money to the payer again, who owes it back (suspense still shows it paid out).`;
  return [{ type: 'ClaimRefundOwed', at: r.at, claimId: s.id, operatorId: r.operatorId, note, depositId: s.depositId, reasonCode: r.reasonCode, owedMinor, status: s.status }];
}

/** What the bank recalled of a claim's closed refund, and the facts the claim's answer rests on. */
export interface RefundRecall {
  readonly at: number;
  /** The operator who reversed the fill (the system's id when none did). */
  readonly operatorId: string;
  readonly recalledWithdrawalId: string;
  readonly legRef: string;
  readonly reasonCode: string;
  readonly recalledMinor: Minor;
  /** The id the replacement refund gets, if one opens (drawn by the handler once this decision accepts). */
  readonly replacementWithdrawalId: string;
  readonly deposit: ClaimedDeposit;
  /** The claim's refund withdrawals after the reversal: whether one is still open, and what they filled in all. */
  readonly refunds: { readonly anyOpen: boolean; readonly filledMinor: Minor };
}

/**
 * Why a recalled refund is not paid again, or null: the same reasons a payout is refused
 * (the claim's deposit reversed, the order's amount credited to its merchant), and an
 * amount below what a payer's leg can pay.
 */
function noReplacement(s: Claim, r: RefundRecall): string | null {
  if (r.deposit.status === 'reversed' && recalledWithTransfer(s)) return `the claim's deposit ${s.depositId} was reversed: the money is back with the payer`;
  const credited = orderAmountCredited(s.kind, r.deposit, s.createdAt);
  if (credited) return `the claim's deposit ${s.depositId} ${credited.replace(/^it /, '')}`;
  if (r.recalledMinor < BigInt(limits.legAmountMinMinor)) return `${bahtOf(r.recalledMinor)} baht is below what a payer's transfer pays`;
  return null;
}

/**
 * The bank recalled a fill of the claim's refund withdrawal after that closed: the payer
 * never got that money, and it is back in suspense. The claim pays it again through a
 * replacement refund (same account, the recalled amount, replacement_of_withdrawal_id) and
 * waits for it, reopened if it had closed on the refund; it is not paid again when a payout
 * would now be refused (noReplacement), and then the claim closes, once no refund of it is
 * open, with what its refunds filled net of the recall. The refund was approved and paid
 * out on two operators' word; the replacement repeats that payment, no more.
 */
export function decideRefundRecall(r: RefundRecall, s: Claim | undefined): ClaimDecision {
  if (!s) return reject('resource_not_found', 'No such claim.');
  if ((s.status !== 'return_pending_payout' && s.status !== 'closed') || !refundWithdrawalsOf(s).includes(r.recalledWithdrawalId)) {
    return reject('operation_not_allowed', `The claim ${s.id} is ${s.status} and ${r.recalledWithdrawalId} is not one of its refunds.`, { status: s.status });
  }
  const base = { at: r.at, claimId: s.id, operatorId: r.operatorId, recalledWithdrawalId: r.recalledWithdrawalId, legRef: r.legRef, recalledMinor: r.recalledMinor };
  const what = `The bank recalled ${bahtOf(r.recalledMinor)} baht of the refund ${r.recalledWithdrawalId} (fill ${r.legRef}, ${r.reasonCode}): the payer did not get it`;
  const why = noReplacement(s, r);
  if (why === null) {
    return [{ type: 'ClaimRefundRecalled', ...base, note: `${what}; refunded again by ${r.replacementWithdrawalId}.`, replacementWithdrawalId: r.replacementWithdrawalId, status: 'return_pending_payout' }];
  }
  const note = `${what}; not refunded again (${why}), the money stays in suspense.`;
  if (r.refunds.anyOpen) return [{ type: 'ClaimRefundRecalled', ...base, note, status: 'return_pending_payout' }];
  return [{ type: 'ClaimRefundRecalled', ...base, note, status: 'closed', refundedMinor: r.refunds.filledMinor }];
}

type ApproveClaimRefund = Extract<ClaimCommand, { type: 'ApproveClaimRefund' }>;

/**
 * Why the claim cannot take the command's transition at all, before what the command asks of
 * it (a refund's account and amount) is weighed: its status, the note, a deposit whose transfer
 * is back with the payer or is the merchant's (a refund or its payout), four eyes. null: it may.
 */
function transitionRefusal(c: ClaimCommand, s: Claim): Rejection | null {
  const transition = transitionOf[c.type];
  const from: readonly ClaimStatus[] = claimTransitions[transition];
  if (!from.includes(s.status)) {
    return reject('operation_not_allowed', `A claim that is ${s.status} cannot take "${transition}"; it needs status ${from.join(' or ')}.`, { status: s.status, transition });
  }
  const noteProblem = checkNote(c.note, 'Every claim decision');
  if (noteProblem) return noteProblem;
  if (c.type === 'ApproveClaimRefund' || c.type === 'PayOutClaimRefund') {
    // The bank recalled the order's transfer: its amount, and a same-slip excess with it, are back
    // with the payer. A further transfer (its own trans_ref) was not recalled: it is still refunded.
    if (c.deposit.status === 'reversed' && recalledWithTransfer(s)) {
      return reject('operation_not_allowed', `The claim's deposit ${s.depositId} was reversed: its transfer is undone and the money back with the payer, so a refund would pay them twice. Close or reject the claim.`, { status: s.status, deposit_status: c.deposit.status });
    }
    // A claim on the order's own amount whose deposit has since been, or may still be, credited to its merchant (a review approved, a late slip taken).
    const credited = orderAmountCredited(s.kind, c.deposit, s.createdAt);
    if (credited) {
      return reject('operation_not_allowed', `The claim's deposit ${s.depositId} ${credited.replace(/^it /, '')}: a refund of the order's amount would pay the transfer twice. Close or reject the claim.`, { status: s.status, deposit_status: c.deposit.status });
    }
  }
  const openedBy = s.notes?.find((n) => n.status === 'open')?.operatorId;
  if (c.type === 'ApproveClaimRefund' && sameOperator(openedBy, c.operatorId)) {
    return reject('operation_not_allowed', 'You opened this claim; another operator approves its refund (four eyes).', { opened_by: openedBy });
  }
  if (c.type === 'PayOutClaimRefund') {
    const approvedBy = [...(s.notes ?? [])].reverse().find((n) => n.status === 'refund_pending')?.operatorId;
    if (sameOperator(approvedBy, c.operatorId)) return reject('operation_not_allowed', 'You approved this refund; another operator pays it out (four eyes).', { approved_by: approvedBy });
  }
  return null;
}

/** A refund's terms: the account, named when the claim's transfer came from another than the order's sender, and the amount. null: they hold. */
function refundTermsRefusal(c: ApproveClaimRefund, s: Claim): Rejection | null {
  // The transfer came from another account than the order's sender: refunding the sender would pay someone who did not send it.
  if (c.transferFromAnother !== undefined && !c.accountNamed) {
    return reject('operation_not_allowed', `The transfer this claim is for came from another account than the order's sender (${c.transferFromAnother}): a refund to the sender would pay someone who did not send it. Name the payer's account, as they confirmed it, in refund_account.`, { transfer_sender: c.transferFromAnother });
  }
  const refundMinor = c.refundMinor ?? s.amountMinor;
  // A refund is paid by payers' legs like any withdrawal, and no leg is below limits.legAmountMinMinor: a smaller one could never be paid.
  if (refundMinor < BigInt(limits.legAmountMinMinor) || refundMinor > s.amountMinor) {
    return reject('validation_error', `The refund must be from ${bahtOf(BigInt(limits.legAmountMinMinor))} baht (the smallest amount a payer's transfer pays) to the claim's amount (${bahtOf(s.amountMinor)} baht, amount_minor ${s.amountMinor}).`, { fields: [{ path: 'amount_minor', reason: 'out_of_range' }] });
  }
  return null;
}

/**
 * The refusal decideClaim gives a refund's approval for its terms (refundTermsRefusal), or null
 * when it accepts them or refuses the refund for something before them. Pure: the route asks it
 * of the world's claim before the step-up, which a refusal the operator mends in the request
 * (the account named, the amount) does not spend (README, Token bounds); the command decides again.
 */
export function refundRefusedForItsTerms(c: ApproveClaimRefund, s: Claim): Rejection | null {
  return transitionRefusal(c, s) ? null : refundTermsRefusal(c, s);
}

export function decideClaim(c: ClaimCommand, s: Claim | undefined): ClaimDecision {
  if (!s) return reject('resource_not_found', 'No such claim.');
  const refused = transitionRefusal(c, s);
  if (refused) return refused;
  const base = { at: c.at, claimId: s.id, operatorId: c.operatorId, note: c.note };
  switch (c.type) {
    case 'StartClaimReview': return [{ type: 'ClaimReviewStarted', ...base }];
    case 'ApproveClaimRefund': return refundTermsRefusal(c, s) ?? [{ type: 'ClaimRefundApproved', ...base, refundMinor: c.refundMinor ?? s.amountMinor, account: c.account }];
    case 'PayOutClaimRefund': return [{ type: 'ClaimRefundPaidOut', ...base, withdrawalId: c.withdrawalId }];
    case 'CloseClaim': {
      if (s.status !== 'return_pending_payout') return [{ type: 'ClaimClosed', ...base, refundedMinor: 0n }];
      if (!c.refund?.final) return reject('operation_not_allowed', 'The refund withdrawal is still being paid out; close the claim once it is final.', { refund_withdrawal_id: s.refundWithdrawalId ?? null });
      return [{ type: 'ClaimClosed', ...base, refundedMinor: c.refund.filledMinor }];
    }
    case 'RejectClaim': return [{ type: 'ClaimRejected', ...base }];
    default: {
      const _exhaustive: never = c;
      return _exhaustive;
    }
  }
}
