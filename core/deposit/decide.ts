// The deposit decider: commands (imperative) and decide(command, state) → events or a
// refusal naming the contract's error code. Commands carry only what decide needs; facts
// from outside the aggregate (matched legs, the capacity of the withdrawals a leg fills,
// pre-allocated ids, the fee schedule) are gathered by the command handler and arrive as
// values. Timer commands that no longer apply decide to no events, never to a refusal,
// so a timer may fire late or twice without harm.

import { isRejection, reject, type Rejection } from '../errors.ts';
import { limits } from '../limits.ts';
import { violated } from '../assert.ts';
import type { Balances } from '../ledger/ledger.ts';
import { creditBucketOf } from '../ledger/postings.ts';
import { depositFee, minOf, minorToJson, type FeeSchedule, type Minor } from '../money.ts';
import { declinedDisplay, orderReasons } from './reasons.ts';
import {
  evolve, isFinalStatus, objectVersion, isSettledAndUncleared, reversalReasonCodes, type CanceledBy, type CancelReasonCode, type Deposit, type DepositEvent, type Leg, type LegAmount, type LegFill,
  type Liquidity, type ReversalReasonCode, type ReviewDecision, type ReviewReason, type Slip, type Verification,
} from './state.ts';
import { checkNote } from '../note.ts';
import { bahtOf } from '../finance/money-text.ts';
import { checkTransfer, matchAccountNumber, reachedALeg, type SlipTransfer, type VerificationFacts } from './verification.ts';
import { amongOperators, sameOperator } from '../operators.ts';
import { capacityOf, inFlightFor, isPayable, type Withdrawal } from '../withdrawal/state.ts';

/** What settling needs from outside the deposit. */
export interface SettleContext {
  readonly fees: FeeSchedule;
  readonly balanceTransactionId: string;
  readonly feeBalanceTransactionId: string;
  readonly claimId: string;
  /** How much each withdrawal leg's order can still take (remaining − other legs in flight); absent: nothing, ever (legCapacities). */
  readonly capacityByLeg: ReadonlyMap<string, Minor>;
}

export type VerificationOutcome =
  | { readonly kind: 'found'; readonly transfer: SlipTransfer; readonly facts: VerificationFacts }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'unreadable' }
  | { readonly kind: 'provider_unavailable' }
  /** A claim without an image; its trans_ref already another deposit's (duplicateOfDepositId) makes it a duplicate too. */
  | { readonly kind: 'no_image'; readonly duplicateOfDepositId?: string };

export type NewDeposit = Extract<DepositEvent, { type: 'DepositCreated' }>['deposit'];

export type Match =
  | { readonly kind: 'matched'; readonly legs: readonly Leg[]; readonly source: 'internal' | 'external_gateway'; readonly expiresAt: number }
  | { readonly kind: 'waiting'; readonly liquidity: Liquidity };

export type DepositCommand =
  | { readonly type: 'CreateDeposit'; readonly at: number; readonly deposit: NewDeposit; readonly match: Match }
  | { readonly type: 'MatchDeposit'; readonly at: number; readonly match: Extract<Match, { kind: 'matched' }> }
  | { readonly type: 'CancelDeposit'; readonly at: number; readonly by: CanceledBy; readonly reasonCode: CancelReasonCode }
  | { readonly type: 'EndLiquidityWait'; readonly at: number }
  /** `scenario`: the sandbox scenario engine closes the order now, before its own clock would (10200, 11200). */
  | { readonly type: 'ExpireDeposit'; readonly at: number; readonly settle: SettleContext; readonly scenario?: true }
  | { readonly type: 'CloseLateSlipWindow'; readonly at: number; readonly scenario?: true; readonly settle?: SettleContext }
  | { readonly type: 'ReceiveSlip'; readonly at: number; readonly receiptId: string; readonly hasImage: boolean; readonly transRef?: string }
  | { readonly type: 'RecordVerification'; readonly at: number; readonly receiptId: string; readonly outcome: VerificationOutcome; readonly settle: SettleContext }
  | { readonly type: 'EscalateReview'; readonly at: number }
  | { readonly type: 'ExtendReview'; readonly at: number }
  /** `transferredAmountMinor` or `legAmounts` (never both): what the reviewer found received (see receivedAmounts). */
  | { readonly type: 'ApproveReview'; readonly at: number; readonly operatorId: string; readonly note: string; readonly transferredAmountMinor?: Minor; readonly legAmounts?: readonly LegAmount[]; readonly settle: SettleContext; readonly expectedVersion?: number }
  | { readonly type: 'DeclineReview'; readonly at: number; readonly operatorId: string; readonly note: string }
  | { readonly type: 'ReverseDeposit'; readonly at: number; readonly reasonCode: ReversalReasonCode; readonly balanceTransactionId: string; readonly wallet: WalletFacts; readonly decision?: ReviewDecision; readonly refundsPayingOut: readonly RefundPayingOut[]; readonly refundsPaid: readonly RefundPaid[]; readonly claimRefunds?: ClaimRefundsOnReversal }
  | { readonly type: 'ClearDeposit'; readonly at: number }
  | { readonly type: 'ConfirmRoute'; readonly at: number; readonly transRef: string; readonly amountMinor: Minor; readonly duplicateOfDepositId?: string; readonly operatorId?: string };

/** The depositing merchant's wallet, for a reversal that takes its credit back. */
export interface WalletFacts {
  readonly balances: Balances;
  /** Asked only to explain a refusal (it scans the merchant's uncleared deposits). */
  nextClearingAt(): number | null;
}

export type DepositDecision = readonly DepositEvent[] | Rejection;

export { isRejection };

const none: readonly DepositEvent[] = [];

export function decide(command: DepositCommand, state: Deposit | undefined): DepositDecision {
  if (command.type === 'CreateDeposit') return create(command, state);
  if (!state) return reject('resource_not_found', 'No such deposit.');
  switch (command.type) {
    case 'MatchDeposit':
      if (state.status !== 'awaiting_liquidity') return none;
      return [{ type: 'DepositMatched', at: command.at, legs: command.match.legs, source: command.match.source, expiresAt: command.match.expiresAt }];
    case 'CancelDeposit': return cancel(command, state);
    case 'EndLiquidityWait':
      if (state.status !== 'awaiting_liquidity') return none;
      return [{ type: 'DepositCanceled', at: command.at, by: 'system', reasonCode: 'no_liquidity_available', lateSlipAcceptedUntil: null }];
    case 'ExpireDeposit': return verdictNeedsTwo(state, expire(command, state), command.settle);
    case 'CloseLateSlipWindow':
      if ((state.status !== 'expired' && state.status !== 'canceled') || state.isTerminal) return none;
      if (state.lateSlipAcceptedUntil != null && command.at < state.lateSlipAcceptedUntil && !(command.scenario && !state.livemode)) return none;
      return verdictNeedsTwo(state, closeLateWindow(command, state), command.settle);
    case 'ReceiveSlip': return receiveSlip(command, state);
    case 'RecordVerification': return verdictNeedsTwo(state, recordVerification(command, state), command.settle);
    case 'EscalateReview':
      if (state.status !== 'under_review' || !state.review || state.review.escalated) return none;
      return [{ type: 'ReviewEscalated', at: command.at }];
    case 'ExtendReview':
      if (state.status !== 'under_review' || !state.review || state.review.extended) return none;
      return [{ type: 'ReviewExtended', at: command.at }];
    case 'ApproveReview': return approve(command, state);
    case 'DeclineReview': return decline(command, state);
    case 'ReverseDeposit': return reverse(command, state);
    case 'ClearDeposit':
      if (!isSettledAndUncleared(state) || state.settlement.clearingAvailableAt === null || command.at < state.settlement.clearingAvailableAt) return none;
      return [{ type: 'DepositCleared', at: command.at }];
    case 'ConfirmRoute': return confirmRoute(command, state);
    default: {
      const _exhaustive: never = command;
      return _exhaustive;
    }
  }
}

function create(c: Extract<DepositCommand, { type: 'CreateDeposit' }>, state: Deposit | undefined): DepositDecision {
  if (state) return reject('validation_error', 'A deposit with this id already exists.', { fields: [{ path: 'id', reason: 'not_unique' }] });
  const created: DepositEvent = { type: 'DepositCreated', at: c.at, deposit: c.deposit };
  if (c.match.kind === 'waiting') return [created, { type: 'DepositAwaitingLiquidity', at: c.at, liquidity: c.match.liquidity }];
  return [created, { type: 'DepositMatched', at: c.at, legs: c.match.legs, source: c.match.source, expiresAt: c.match.expiresAt }];
}

/** A reversal's reason must be one the contract lists; checked before an id is drawn for it. */
export function checkReversalReason(reasonCode: string): Rejection | null {
  if ((reversalReasonCodes as readonly string[]).includes(reasonCode)) return null;
  return reject('validation_error', 'Unknown reversal reason_code.', { fields: [{ path: 'reason_code', reason: 'enum' }] });
}

/** A claim on the deposit whose refund withdrawal is open: a payout to the payer under way. */
export interface RefundPayingOut { readonly claimId: string; readonly withdrawalId: string }

/** A claim on the deposit's transfer whose refunds paid the payer `refundedMinor` (claim/decide.ts refundedOfTransfer). */
export interface RefundPaid { readonly claimId: string; readonly refundedMinor: Minor }

/** What the operator reversing a deposit says of its claims' refunds already paid: the payer owes them back (the recall returned the whole transfer). */
export const claimRefundsOnReversal = ['recover_from_payer'] as const;
export type ClaimRefundsOnReversal = typeof claimRefundsOnReversal[number];

/**
 * Takes the accepted amount back from the bucket the credit sits in (pending_clearing
 * inside the clearing window). A bucket that holds less than the credit (the merchant
 * spent what cleared) refuses the reversal: no bucket goes negative (ledger.ts). So does a
 * claim's refund being paid out to the payer: undone, the transfer is back with the payer,
 * and the refund would pay them again — it is canceled first, by a person who sees what it filled.
 * And so does a claim's refund the payer was already paid of the transfer (refundsPaid): the
 * recall returns it to them again, so the operator says it is owed back (claimRefunds), and
 * the claim records it (handler/claims.ts); the ledger is not moved by it (suspense keeps
 * the refund drawn: the service's claim is now on the payer).
 */
function reverse(c: Extract<DepositCommand, { type: 'ReverseDeposit' }>, s: Deposit): DepositDecision {
  const refused = reversalRefusal(s, c);
  if (refused) return refused;
  const st = s.settlement ?? violated(`deposit ${s.id}: settled without a settlement`);
  return [{
    type: 'DepositReversed', at: c.at, reasonCode: c.reasonCode, reversesBalanceTransactionId: st.balanceTransactionId, balanceTransactionId: c.balanceTransactionId,
    ...(c.decision ? { decision: c.decision } : {}),
  }];
}

/** What a reversal is decided on besides the deposit: its merchant's wallet, its claims' refunds (handler/claims.ts reversalFacts), and what its operator says of those paid. */
export type ReversalFacts = Pick<Extract<DepositCommand, { type: 'ReverseDeposit' }>, 'wallet' | 'refundsPayingOut' | 'refundsPaid' | 'claimRefunds'>;

/**
 * Why the deposit cannot be reversed, else null: not settled, its claims' refunds
 * (reversalClaimsRefusal), or a bucket that holds less than the credit. Pure: the route asks
 * it of the world before the step-up, which a refusal the operator mends (the bucket topped
 * up, the refund canceled, recover_from_payer said) or sends to the wrong deposit does not
 * spend; reverse asks it again in the command, so a state that changed meanwhile is refused.
 */
export function reversalRefusal(s: Deposit, c: ReversalFacts): Rejection | null {
  const st = s.settlement;
  if (s.status !== 'settled' || !st) {
    return reject('operation_not_allowed', `Only a settled deposit can be reversed; this one is ${s.status}.`, { status: s.status });
  }
  const claims = reversalClaimsRefusal(c);
  if (claims) return claims;
  const bucket = creditBucketOf(s);
  const b = c.wallet.balances;
  const holds = bucket === 'available' ? b.availableMinor : b.pendingClearingMinor;
  if (holds < st.creditedMinor) {
    return reject('insufficient_balance', `The ${bucket} bucket holds less than the reversal takes back; top it up, then reverse again.`, {
      available_minor: minorToJson(b.availableMinor), required_minor: minorToJson(st.creditedMinor),
      pending_clearing_minor: minorToJson(b.pendingClearingMinor), pending_clearing_available_at: c.wallet.nextClearingAt(), bucket,
    });
  }
  return null;
}

/**
 * A settled deposit's reversal refused for its claims' refunds — one paying the payer out, or
 * one that paid them which the operator has not said is owed back — else null.
 */
function reversalClaimsRefusal(c: ReversalFacts): Rejection | null {
  const paying = c.refundsPayingOut[0];
  if (paying) {
    return reject('operation_not_allowed', `Claim ${paying.claimId}'s refund withdrawal ${paying.withdrawalId} is paying the payer out; a reversal would return their transfer besides. Cancel it first (POST /v1/bo/withdrawals/${paying.withdrawalId}/cancel), then reverse.`,
      { claim_id: paying.claimId, refund_withdrawal_id: paying.withdrawalId });
  }
  const paid = c.refundsPaid[0];
  if (paid && c.claimRefunds !== 'recover_from_payer') {
    const more = c.refundsPaid.length > 1 ? ` (and ${c.refundsPaid.length - 1} more of its claims)` : '';
    return reject('operation_not_allowed', `Claim ${paid.claimId}${more} already refunded ${bahtOf(paid.refundedMinor)} baht of this transfer to the payer: the bank's recall of the whole transfer pays them that again. Check what the bank took back; to reverse, send claim_refunds: "recover_from_payer" and the claim records the refund as owed back by the payer.`,
      { claim_id: paid.claimId, refunded_minor: minorToJson(paid.refundedMinor), claims: c.refundsPaid.map((p) => ({ claim_id: p.claimId, refunded_minor: minorToJson(p.refundedMinor) })) });
  }
  return null;
}

function cancel(c: Extract<DepositCommand, { type: 'CancelDeposit' }>, s: Deposit): DepositDecision {
  const cancelable = (s.status === 'awaiting_payment' && s.uploads === 0) || s.status === 'awaiting_liquidity';
  if (!cancelable) {
    // "A slip was uploaded" only where it is the reason (the order still awaits payment); a settled or canceled order says its status.
    return reject('deposit_not_cancelable', s.status === 'awaiting_payment' ? 'A slip was already uploaded for this deposit: it can no longer be canceled.' : `A deposit in status ${s.status} cannot be canceled.`, { status: s.status });
  }
  return [{ type: 'DepositCanceled', at: c.at, by: c.by, reasonCode: c.reasonCode, lateSlipAcceptedUntil: lateWindowFrom(s, c.at) }];
}

/** null when no destination ever existed: nobody could have paid, the order may close. */
function lateWindowFrom(s: Deposit, at: number): number | null {
  return s.legs.length === 0 ? null : at + limits.lateSlipWindowMs;
}

function expire(c: Extract<DepositCommand, { type: 'ExpireDeposit' }>, s: Deposit): DepositDecision {
  if (s.status !== 'awaiting_payment' || (c.at < s.expiresAt && !(c.scenario && !s.livemode))) return none;
  // Multi-leg: an order that expires with some legs complete settles as a short-pay, or goes
  // to review when that cannot settle by itself (a leg paid beyond its share, a withdrawal
  // that lost its capacity): verified money never expires as no_payment, its legs stay held.
  const verified = legAmounts(s);
  if (verified.size === 0) return [{ type: 'DepositExpired', at: c.at, lateSlipAcceptedUntil: lateWindowFrom(s, c.at) }];
  const settled = settle(s, c.at, 'auto', c.settle, verified, undefined, false);
  return 'conflict' in settled ? [settleConflict(s, c.at)] : settled;
}

/** Verified money an automatic settlement cannot place: a reviewer decides where it goes. */
function settleConflict(s: Deposit, at: number): DepositEvent {
  return { type: 'DepositUnderReview', at, reasons: [{ code: 'SETTLE_CONFLICT' }], fourEyesRequired: fourEyesRequiredFor(s, [{ code: 'SETTLE_CONFLICT' }]) };
}

/**
 * How many uploads the order takes: the contract's 3 for an order of one destination; a
 * multi-leg order takes one slip per leg, so each leg after the first adds one — else a
 * three-leg order would have no room for a single retry, and one blurry photo would leave
 * its last leg's payment with no way in.
 */
export function uploadsAllowed(s: Pick<Deposit, 'legs'>): number {
  return limits.slipUploadsPerDepositMax + Math.max(0, s.legs.length - 1);
}

/**
 * The late-slip window closes. A multi-leg order whose late slips paid some of its legs
 * settles them now, as a short-pay (as expiry settles the legs paid before it), or goes to
 * review when a leg's withdrawal can no longer take its money; else the window just closes.
 */
function closeLateWindow(c: Extract<DepositCommand, { type: 'CloseLateSlipWindow' }>, s: Deposit): DepositDecision {
  const verified = legAmounts(s);
  if (verified.size === 0 || !c.settle) return [{ type: 'LateSlipWindowClosed', at: c.at }];
  const settled = settle(s, c.at, 'auto', c.settle, verified, undefined, false);
  return 'conflict' in settled ? [settleConflict(s, c.at)] : settled;
}

function receiveSlip(c: Extract<DepositCommand, { type: 'ReceiveSlip' }>, s: Deposit): DepositDecision {
  const allowed = uploadsAllowed(s);
  if (s.uploads >= allowed) {
    return reject('validation_error', `At most ${allowed} slips can be uploaded for this deposit${s.legs.length > 1 ? ` (${limits.slipUploadsPerDepositMax}, and one more for each leg after the first)` : ''}.`,
      { fields: [{ path: 'file', reason: 'upload_limit_reached' }] });
  }
  // Every key present, unset ones undefined: the shape evolve's copies keep (see state.ts).
  const slip = (isLate: boolean, lateFrom?: 'expired' | 'canceled'): Slip => ({
    receiptId: c.receiptId, receivedAt: c.at, isLate, hasImage: c.hasImage,
    transRef: c.transRef, transferredAmountMinor: undefined, legRef: undefined, lateFrom,
  });
  switch (s.status) {
    case 'awaiting_payment':
      return [{ type: 'SlipReceived', at: c.at, slip: slip(false) }];
    case 'expired':
    case 'canceled': {
      const until = s.lateSlipAcceptedUntil;
      if (until == null || c.at > until || s.isTerminal) {
        return reject('late_slip_window_closed', 'The late-slip window of this deposit has closed.',
          { deposit_id: s.id, late_slip_accepted_until: until ?? null });
      }
      return [{ type: 'SlipReceived', at: c.at, slip: slip(true, s.status) }];
    }
    case 'settled':
      return [{ type: 'AdditionalSlipReceived', at: c.at, slip: slip(false) }];
    case 'slip_processing':
    case 'under_review': {
      // Another slip is being verified or reviewed. This one is evidence of money too (a
      // multi-leg order takes one slip per leg): it is kept and verified when its turn comes.
      const late = latenessNow(s);
      return [{ type: 'SlipQueued', at: c.at, slip: slip(late.isLate, late.lateFrom) }];
    }
    default:
      // No destination yet (nobody can have paid), or a final order.
      return reject('validation_error', `A deposit in status ${s.status} does not accept a slip now.`,
        { fields: [{ path: 'deposit', reason: 'not_accepting_slips' }], status: s.status });
  }
}

/** Whether a slip claimed now, during a verification or review, came after the order closed. */
function latenessNow(s: Deposit): { isLate: boolean; lateFrom?: 'expired' | 'canceled' } {
  if (s.status === 'under_review' && s.routeConfirmation) return { isLate: true, lateFrom: s.canceledBy !== undefined ? 'canceled' : 'expired' };
  return { isLate: s.slip?.isLate ?? false, lateFrom: s.slip?.lateFrom };
}

/**
 * After the slip before it is decided, the oldest queued slip takes its turn, as a slip
 * the order would take now: verified as the order's slip while the order waits for
 * payment or lies closed, as a transfer after settlement once settled. Under review it
 * waits for the reviewer; on a rejected order it stays on record for operators.
 */
function thenNextQueued(s: Deposit, at: number, decision: DepositDecision): DepositDecision {
  const next = s.queuedSlips?.[0];
  if (!next || isRejection(decision)) return decision;
  let after = s;
  for (const e of decision) after = evolve(after, e);
  switch (after.status) {
    case 'awaiting_payment':
    case 'expired':
    case 'canceled':
      return [...decision, { type: 'SlipDequeued', at, slip: next, afterSettlement: false }];
    case 'settled':
      return [...decision, { type: 'SlipDequeued', at, slip: next, afterSettlement: true }];
    default:
      return decision;
  }
}

/**
 * The fallback route confirms a transfer after the order closed: the money is real but
 * came with no slip, so a reviewer decides (LATE_ROUTE_CONFIRMATION). It follows the
 * late-slip rule: once is_terminal is true the order never changes again, and the
 * confirmation is refused for operators to handle as a claim.
 */
function confirmRoute(c: Extract<DepositCommand, { type: 'ConfirmRoute' }>, s: Deposit): DepositDecision {
  if (c.amountMinor <= 0n) return reject('validation_error', 'amount_minor must be positive.', { fields: [{ path: 'amount_minor', reason: 'minimum' }] });
  const leg = s.legs.find((l) => l.counterparty.kind === 'gateway');
  if (!leg) return reject('operation_not_allowed', 'This deposit was not routed to the gateway, so the gateway cannot confirm it.');
  if (s.routeConfirmation?.transRef === c.transRef) return none; // the feed repeating itself
  if (s.status !== 'expired' && s.status !== 'canceled') {
    return reject('operation_not_allowed', `A route confirmation after close applies to an expired or canceled order; this one is ${s.status}.`, { status: s.status });
  }
  if (s.isTerminal) {
    return reject('late_slip_window_closed', 'The late window of this deposit has closed; the transfer is a matter for a claim.',
      { deposit_id: s.id, late_slip_accepted_until: s.lateSlipAcceptedUntil ?? null });
  }
  const reasons: ReviewReason[] = [{ code: 'LATE_ROUTE_CONFIRMATION' }];
  if (c.duplicateOfDepositId !== undefined) reasons.push({ code: 'DUPLICATE_SLIP' });
  return [{
    type: 'DepositUnderReview', at: c.at, reasons: orderReasons(reasons),
    fourEyesRequired: fourEyesRequiredFor(s, reasons), routeConfirmation: { transRef: c.transRef, amountMinor: c.amountMinor, legRef: leg.legRef, confirmedAt: c.at, ...(c.operatorId !== undefined ? { confirmedBy: c.operatorId } : {}) },
  }];
}

/**
 * A review that needs two different approvers (four eyes) from the start: a large order, a
 * slip already used for another order (approving it credits one transfer twice), or a claim
 * without an image and no route confirmation (no bank showed an amount: whatever it credits
 * is above what the evidence showed, figuresNeedSecondApprover).
 */
function fourEyesRequiredFor(s: Deposit, reasons: readonly ReviewReason[]): boolean {
  return s.amountMinor >= BigInt(limits.fourEyesAmountMinorMin) || reasons.some((r) => r.code === 'DUPLICATE_SLIP')
    || (reasons.some((r) => r.code === 'NO_SLIP_IMAGE') && s.routeConfirmation === undefined);
}

/**
 * Whether an approval's figures need a second approver though the review did not: a
 * settlement as large as the four-eyes bound, one above the order (its excess becomes a
 * claim that suspense may pay out), or a figure above what the slip or the route
 * confirmation showed — a claim without an image, with no route confirmation, showed no
 * amount at all, so any money it credits is above it. A reviewer alone settles only what
 * the evidence and the order bear.
 */
function figuresNeedSecondApprover(s: Deposit, received: readonly LegAmount[]): boolean {
  let asserted = 0n;
  for (const r of received) asserted += r.amountMinor;
  let total = asserted;
  for (const v of paidAmounts(s).values()) total += v;
  const noImage = s.slip !== undefined && !s.slip.hasImage;
  const shown = s.slip?.transferredAmountMinor ?? s.routeConfirmation?.amountMinor ?? (noImage ? 0n : undefined);
  return total >= BigInt(limits.fourEyesAmountMinorMin) || total > s.amountMinor || (shown !== undefined && asserted > shown);
}

/**
 * Whether an approval at these figures takes a second, different reviewer: the review
 * asked for one, the figures do, or the settlement would credit the merchant money no
 * withdrawal takes, out of suspense (`suspenseMinor` > 0) — the withdrawal a leg pays lost
 * the capacity to take it (others filled it, or it was canceled, while a late slip came or
 * the review was held), or a leg was paid beyond its share. Money leaves suspense only on
 * two people's word, here as for a claim's refund; the second approval settles at whatever
 * capacity is left when it comes.
 */
function secondApproverNeeded(s: Deposit, received: readonly LegAmount[], suspenseMinor: Minor): boolean {
  return s.review!.fourEyesRequired || figuresNeedSecondApprover(s, received) || suspenseMinor > 0n;
}

/** What a withdrawal the deposit's legs pay is now; undefined when there is none. */
export type WithdrawalOf = (id: string) => Withdrawal | undefined;

/**
 * How much each withdrawal leg's order can still take (remaining − other legs in flight),
 * read off the withdrawals as they are: no ids drawn, so a read may ask it too (reviewNeedsTwo).
 * A leg whose withdrawal takes no more (closed, or gone) is absent: 0 to a settlement, and
 * no late hold waits on it (holdFor).
 */
export function legCapacities(d: Deposit, withdrawalOf: WithdrawalOf): Map<string, Minor> {
  const capacityByLeg = new Map<string, Minor>();
  for (const leg of d.legs) {
    if (leg.counterparty.kind !== 'withdrawal') continue;
    const w = withdrawalOf(leg.counterparty.withdrawalId);
    const own = w && inFlightFor(w, leg.counterparty.payoutLegRef);
    // An order that expired while this leg was in flight holds it, and takes exactly it.
    if (w?.status === 'expired' && own !== undefined) { capacityByLeg.set(leg.legRef, own); continue; }
    if (!w || !isPayable(w)) continue; // absent: the withdrawal takes nothing more (closed or gone)
    capacityByLeg.set(leg.legRef, capacityOf(w) + (own ?? 0n));
  }
  return capacityByLeg;
}

/**
 * Whether the review takes two approvals as things stand: it asked for two, one is
 * recorded, or an approval now at the figures the evidence shows (none given) would take a
 * second reviewer, as approve decides it — suspense funding the credit moves with the
 * withdrawals' capacity. Operator views read it when shown; the merchant's object keeps what
 * the verdict found (verdictNeedsTwo), since it moves with events only. Figures the reviewer
 * must give (legs[]) decide on the approval itself; a review decided says what it asked.
 */
export function reviewNeedsTwo(s: Deposit, withdrawalOf: WithdrawalOf): boolean {
  const review = s.review;
  if (!review) return false;
  const asked = review.fourEyesRequired; // a recorded approval sets it (state.ts)
  if (asked || s.status !== 'under_review') return asked;
  const evidence = atTheEvidence(s, legCapacities(s, withdrawalOf));
  return evidence !== undefined && secondApproverNeeded(s, evidence.received, evidence.suspenseMinor);
}

/**
 * An approval giving no figures (those the evidence shows): what the legs received and what
 * suspense would fund. Where the evidence names no figure for the legs still waiting but
 * some legs are verified (a conflict found as the order closed), nothing for those: every
 * approval credits at least the verified money, and no figure for another leg lets a
 * verified one's withdrawal take more, so if that alone draws on suspense (or is above the
 * order or the four-eyes bound) every approval takes two.
 */
function atTheEvidence(s: Deposit, capacities: ReadonlyMap<string, Minor>): { received: readonly LegAmount[]; suspenseMinor: Minor } | undefined {
  const received = evidenceFigures(s);
  if (received === undefined) return undefined;
  const filled = fillsAt(s, verifiedWith(s, received), capacities, true);
  return 'conflict' in filled ? undefined : { received, suspenseMinor: filled.suspenseMinor };
}

/**
 * What the evidence says each leg still without a verified figure received, where an
 * approval giving none could not say it (several legs wait, or the slip is a verified leg's
 * own): the slip's transfer on the leg whose account it reached, nothing on the others — as
 * a reviewer's legs[] would put it; undefined when the evidence names no figure at all.
 */
function evidenceFigures(s: Deposit): readonly LegAmount[] | undefined {
  const shown = receivedAmounts({}, s);
  if (!isRejection(shown)) return shown;
  const verified = legAmounts(s);
  const unverified = s.legs.filter((l) => !verified.has(l.legRef));
  const reached = s.slip?.legRef;
  const transferred = s.slip?.transferredAmountMinor;
  const onReached = reached !== undefined && transferred !== undefined && unverified.some((l) => l.legRef === reached);
  if (verified.size === 0 && !onReached) return undefined;
  return unverified.map((l) => ({ legRef: l.legRef, amountMinor: onReached && l.legRef === reached ? transferred : 0n }));
}

/**
 * A decision opening a review records that it takes two approvals when an approval at the
 * evidence's figures would be funded in part from suspense as the withdrawals stand at the
 * verdict (the settle context's capacities): what the merchant's object and its
 * deposit.under_review event say, and what approve then asks. (Figures a reviewer gives
 * decide their own four eyes on approval, as before.)
 */
function verdictNeedsTwo(s: Deposit, decision: DepositDecision, ctx: SettleContext | undefined): DepositDecision {
  if (!ctx || isRejection(decision)) return decision;
  const at = decision.findIndex((e) => e.type === 'DepositUnderReview');
  const verdict = decision[at];
  if (verdict?.type !== 'DepositUnderReview' || verdict.fourEyesRequired) return decision;
  let next = s;
  for (const e of decision.slice(0, at + 1)) next = evolve(next, e);
  if (!((atTheEvidence(next, ctx.capacityByLeg)?.suspenseMinor ?? 0n) > 0n)) return decision;
  return decision.map((e, i) => (i === at ? { ...verdict, fourEyesRequired: true } : e));
}

function legAmounts(s: Deposit): Map<string, Minor> {
  const verified = new Map<string, Minor>();
  for (const l of s.legs) if (l.legStatus === 'complete' && l.verifiedAmountMinor !== undefined) verified.set(l.legRef, l.verifiedAmountMinor);
  return verified;
}

/**
 * The legs verified, the reviewed slip's transfer added to the verified leg whose account it
 * reached again (a second transfer: its payee has both, and the leg's withdrawal takes them
 * up to its share as it would one transfer of their sum; beyond it, as a leg paid beyond its
 * share). Not the leg's own transfer shown again (the same trans_ref): that is no new money.
 */
function paidAmounts(s: Deposit): Map<string, Minor> {
  const verified = legAmounts(s);
  const slip = s.slip;
  if (s.status !== 'under_review' || slip?.legRef === undefined || slip.transferredAmountMinor === undefined) return verified;
  const again = s.legs.find((l) => l.legRef === slip.legRef);
  const before = verified.get(slip.legRef);
  if (before !== undefined && again?.transRef !== undefined && again.transRef !== slip.transRef) verified.set(slip.legRef, before + slip.transferredAmountMinor);
  return verified;
}

/** The legs verified before (a second transfer to one of them counted: paidAmounts), with what an approval says the others received. */
function verifiedWith(s: Deposit, received: readonly LegAmount[]): Map<string, Minor> {
  const verified = paidAmounts(s);
  for (const r of received) verified.set(r.legRef, r.amountMinor);
  return verified;
}

function recordVerification(c: Extract<DepositCommand, { type: 'RecordVerification' }>, s: Deposit): DepositDecision {
  if (s.status === 'settled' && s.additionalSlip?.receiptId === c.receiptId) return thenNextQueued(s, c.at, additionalTransfer(c, s));
  // A stale or repeated result, or one for a queued slip before its turn (slips are verified in order).
  if (s.status !== 'slip_processing' || !s.slip || s.slip.receiptId !== c.receiptId) return none;
  return thenNextQueued(s, c.at, verifiedSlip(c, s, s.slip));
}

/** What the verification of the order's current slip decides. */
function verifiedSlip(c: Extract<DepositCommand, { type: 'RecordVerification' }>, s: Deposit, slip: Slip): DepositDecision {
  // What a found transfer showed is kept with the review: its trans_ref (so a reuse of it is
  // a duplicate) and the leg it paid (so an approval fills the withdrawal that got the money).
  const review = (reasons: ReviewReason[], seen?: { verification: Verification; transferred: Minor; transRef: string; legRef?: string; holdMinor?: Minor; owedMinor?: Minor }): DepositDecision => {
    const forced: ReviewReason[] = slip.lateFrom === 'canceled' ? [{ code: 'CANCELED_ORDER_SLIP' }, ...reasons] : reasons;
    return [{
      type: 'DepositUnderReview', at: c.at, reasons: orderReasons(forced),
      fourEyesRequired: fourEyesRequiredFor(s, forced), verification: seen?.verification, transferredAmountMinor: seen?.transferred, transRef: seen?.transRef, legRef: seen?.legRef,
      ...(seen?.holdMinor !== undefined ? { holdMinor: seen.holdMinor } : {}), ...(seen?.owedMinor !== undefined ? { owedMinor: seen.owedMinor } : {}),
    }];
  };
  const o = c.outcome;
  switch (o.kind) {
    case 'unreadable':
      if (slip.lateFrom === 'canceled') return review([]);
      return unreadable(c.at, s, c.settle);
    case 'provider_unavailable': return review([{ code: 'PROVIDER_UNAVAILABLE' }]);
    // A trans_ref another deposit was credited for: approving it would credit one transfer twice (four eyes).
    case 'no_image': return review(o.duplicateOfDepositId !== undefined ? [{ code: 'NO_SLIP_IMAGE' }, { code: 'DUPLICATE_SLIP' }] : [{ code: 'NO_SLIP_IMAGE' }]);
    case 'not_found': return review([{ code: 'SLIP_INVALID' }]);
    case 'found': {
      const check = checkTransfer(s, o.transfer, o.facts, slip.isLate);
      const V = o.transfer.amountMinor;
      const transRef = o.transfer.transRef;
      // A late order's review holds the leg the transfer surely reached, as a live one's legs
      // stay held: the payee has that money whatever the reviewer decides about the payer.
      const reached = check.leg && check.verification.receiverMatch ? lateHold(check.leg, V, c.settle) : {};
      // A second transfer to a leg already verified: the review names that leg (an approval
      // adds the transfer to its money), and on a late order raises its hold for it.
      const again = check.paidAgain && check.paidAgain.transRef !== transRef ? check.paidAgain : undefined;
      if (again) return review(check.reasons, { verification: check.verification, transferred: V, transRef, legRef: again.legRef, ...(slip.isLate ? raisedHold(again, V, c.settle) : {}) });
      const seen = { verification: check.verification, transferred: V, transRef, legRef: check.leg?.legRef, ...reached };
      if (check.reasons.length > 0 || !check.leg || slip.lateFrom === 'canceled') return review(check.reasons, seen);
      const verified = legAmounts(s);
      verified.set(check.leg.legRef, V);
      // A multi-leg order waits for its other legs: an open one back in awaiting_payment, an
      // expired one (a late slip) back in expired, its other legs' late slips still welcome
      // until the window closes, which settles the legs paid (closeLateWindow); a late slip
      // that completes the last leg settles the order here.
      const pending = s.legs.filter((l) => !verified.has(l.legRef));
      // The whole order paid, but not where it was split (all of it to one payee): no other
      // leg will be paid, and the payee's withdrawal cannot take the excess. A reviewer decides
      // now, rather than the order asking the payer for the other legs' money and showing
      // `expired` until its late window closes (the same review, a day later).
      let paid = 0n;
      for (const amount of verified.values()) paid += amount;
      if (pending.length > 0 && paid >= s.amountMinor) return review([{ code: 'SETTLE_CONFLICT' }], seen);
      if (pending.length > 0) {
        return [{ type: 'LegCompleted', at: c.at, legRef: check.leg.legRef, verifiedAmountMinor: V, verification: check.verification, transRef, ...lateHold(check.leg, V, c.settle) }];
      }
      const settled = settle(s, c.at, 'auto', c.settle, verified, check.verification, false, transRef);
      if ('conflict' in settled) return review([{ code: 'SETTLE_CONFLICT' }], seen);
      return settled;
    }
    default: {
      const _exhaustive: never = o;
      return _exhaustive;
    }
  }
}

/**
 * A leg its order released (the order expired or was canceled; a late slip paid it, or
 * reached its account and went to review) is held again on its withdrawal for what its
 * money fills there — the hold a live leg keeps — as far as the withdrawal's capacity
 * goes, so no other payer is sent to pay that payee for it. Capacity others took meanwhile
 * is theirs: the order's settlement then finds too little and goes to review (suspense,
 * four eyes), as before.
 */
function lateHold(leg: Leg, V: Minor, ctx: SettleContext): { holdMinor?: Minor; owedMinor?: Minor } {
  if (leg.held || leg.counterparty.kind !== 'withdrawal') return {};
  return holdFor(leg, V, ctx);
}

/**
 * What a leg whose payee has `brought` from this payer holds: that money up to the leg's
 * share, as far as the withdrawal's capacity (with what the leg holds now) goes; the rest
 * of it, `owedMinor`, the withdrawal tops up as capacity frees (withdrawal/decide.ts) —
 * with none left now, the leg waits for it holding nothing. A withdrawal that takes no
 * more (closed) is asked nothing: the order's settlement places that money (review).
 */
function holdFor(leg: Leg, brought: Minor, ctx: SettleContext): { holdMinor?: Minor; owedMinor?: Minor } {
  const capacity = ctx.capacityByLeg.get(leg.legRef);
  const owed = minOf(brought, leg.amountMinor);
  if (capacity === undefined || owed <= 0n) return {};
  const hold = minOf(owed, capacity);
  return hold > 0n ? { holdMinor: hold, ...(owed > hold ? { owedMinor: owed } : {}) } : { owedMinor: owed };
}

/**
 * A late order's leg verified short of its share, reached again by a second transfer: its
 * hold is raised to what both brought (at most its share), so its payee's withdrawal is not
 * matched to new payers for money it already has. A leg verified at its share or more
 * already holds all its withdrawal takes from it.
 */
function raisedHold(leg: Leg, V: Minor, ctx: SettleContext): { holdMinor?: Minor; owedMinor?: Minor } {
  const verified = leg.verifiedAmountMinor ?? 0n;
  if (leg.counterparty.kind !== 'withdrawal' || (leg.held && verified >= leg.amountMinor)) return {};
  return holdFor(leg, verified + V, ctx);
}

function unreadable(at: number, s: Deposit, ctx: SettleContext): DepositDecision {
  const attemptsLeft = Math.max(0, uploadsAllowed(s) - s.uploads);
  const late = s.slip?.isLate === true;
  // A slip queued behind this one came while the order was open: it is the next attempt,
  // so the order does not close now (thenNextQueued hands it over).
  const nextQueued = (s.queuedSlips?.length ?? 0) > 0;
  // Time, not attempts: with none left the order still waits for expires_at (the contract's
  // row), attempts_left 0 telling the integrator no upload can come; its late window after
  // expiry takes no upload either, but a fallback route's confirmation still lands in it.
  const timeRemains = !late && (at < s.expiresAt || nextQueued);
  if (timeRemains) return [{ type: 'SlipRejected', at, attemptsLeft, timeRemains }];
  // The order closes now: legs already verified settle as a short-pay, as on expiry, or go
  // to review when they cannot settle by themselves (never expired with their money).
  const verified = legAmounts(s);
  if (!late && verified.size > 0) {
    const settled = settle(s, at, 'auto', ctx, verified, undefined, false);
    return [{ type: 'SlipRejected', at, attemptsLeft, timeRemains, retryable: false }, ...('conflict' in settled ? [settleConflict(s, at)] : settled)];
  }
  // Back to closed: a late slip keeps the window it came in; a fresh closure opens one
  // (null is the contract's "no destination ever existed", which is not this order).
  const until = late ? (s.lateSlipAcceptedUntil ?? null) : lateWindowFrom(s, at);
  const rejected: DepositEvent = { type: 'SlipRejected', at, attemptsLeft, timeRemains, retryable: attemptsLeft > 0 && until !== null && at < until };
  if (s.slip?.lateFrom === 'canceled') {
    return [rejected, { type: 'DepositCanceled', at, by: s.canceledBy ?? 'system', reasonCode: s.cancelReasonCode ?? 'merchant_request', lateSlipAcceptedUntil: until }];
  }
  return [rejected, { type: 'DepositExpired', at, lateSlipAcceptedUntil: until }];
}

/**
 * The order's verification as it settles: the last slip's (or a leg's) checks, except that
 * the amount is exact only when V = X — a multi-leg order settled short at expiry had each
 * paid leg exact, and amount_exact true would tell the merchant it got what it asked for.
 */
function orderVerification(s: Deposit, verification: Verification | undefined, exact: boolean): Verification | undefined {
  const shown = verification ?? s.verification;
  if (exact || !shown?.amountExact) return verification; // a check that failed stays failed
  return { ...shown, amountExact: false };
}

/**
 * A transfer after settlement is an overpayment only when it reached one of the order's
 * accounts (a masked number that may be one counts: a reviewer works the claim). Money sent
 * to an account the order never named is no one's here, so no claim chases the order's
 * payees for it; the slip and the verifier's answer stay on the order for an operator.
 * A transfer to a leg that a review credited without seeing one, made by the time the
 * review settled, is the money that review credited: only what it brings beyond that credit
 * is an overpayment (a payer who sends the slip of a leg the reviewers already counted is
 * not refunded it a second time).
 */
function additionalTransfer(c: Extract<DepositCommand, { type: 'RecordVerification' }>, s: Deposit): DepositDecision {
  const o = c.outcome;
  if (o.kind !== 'found' || o.facts.duplicateOfDepositId !== undefined) return none;
  const t = o.transfer;
  const alreadyCounted = t.transRef === s.slip?.transRef || s.legs.some((l) => l.transRef === t.transRef) || (s.countedTransRefs ?? []).includes(t.transRef);
  if (alreadyCounted || !reachedALeg(s, t)) return none;
  const slip = s.additionalSlip!;
  const credited = s.settlement && t.occurredAt <= s.settlement.settledAt ? creditReached(s, t) : undefined;
  const events: DepositEvent[] = [];
  let excess = t.amountMinor;
  if (credited) {
    const creditedMinor = credited.reviewCreditedMinor!;
    events.push({ type: 'AdditionalTransferMatched', at: c.at, legRef: credited.legRef, transRef: t.transRef, amountMinor: t.amountMinor, creditedMinor, receiptId: slip.receiptId });
    excess = t.amountMinor - creditedMinor;
  }
  if (excess > 0n) {
    events.push({
      type: 'DepositOverpaid', at: c.at,
      overpayment: {
        claimId: c.settle.claimId, cause: 'additional_transfer', amountMinor: excess, slipReceivedAt: slip.receivedAt, receiptId: slip.receiptId, transRef: t.transRef,
        sender: { bankCode: t.sender.bankCode, accountNumber: t.sender.accountNumber, name: t.sender.name },
      },
    });
  }
  return events;
}

/**
 * The leg whose review credit a transfer after settlement is, when that can be told: of
 * the legs credited without a transfer seen, the one its account surely is, else the one
 * whose masked number may be it — and among several, the one credited exactly its amount.
 * Undefined when still more than one could be (two payees printed alike): the transfer is
 * then an overpayment claim, which a person works, rather than a guess.
 */
function creditReached(s: Deposit, t: SlipTransfer): Leg | undefined {
  const candidates = s.legs.filter((l) => l.reviewCreditedMinor !== undefined && l.receiver.bankCode === t.receiver.bankCode);
  const answered = candidates.map((l) => ({ l, answer: matchAccountNumber(l.receiver.accountNumber, t.receiver.accountNumber) }));
  const sure = answered.filter((a) => a.answer === 'match').map((a) => a.l);
  const pool = sure.length > 0 ? sure : answered.filter((a) => a.answer === 'indeterminate').map((a) => a.l);
  if (pool.length <= 1) return pool[0];
  const exact = pool.filter((l) => l.reviewCreditedMinor === t.amountMinor);
  return exact.length === 1 ? exact[0] : undefined;
}

/**
 * Settles at V = the sum of verified legs: A = min(V, X), overpayment E = V − A on the
 * same slip, fee on A. Each leg's accepted share fills its withdrawal; an automatic
 * settlement that a withdrawal cannot take is a conflict (review decides), while a
 * reviewer's settlement books the part no withdrawal can take to suspense.
 */
function settle(
  s: Deposit, at: number, via: 'auto' | 'review', ctx: SettleContext, verified: Map<string, Minor>,
  verification: Verification | undefined, capToCapacity: boolean, transRef?: string,
): DepositEvent[] | { conflict: true } {
  const filled = fillsAt(s, verified, ctx.capacityByLeg, capToCapacity);
  if ('conflict' in filled) return filled;
  const { V, A, fills, suspenseMinor } = filled;
  const X = s.amountMinor;
  const fee = depositFee(ctx.fees, A);
  const E = V - A;
  const slipReceivedAt = s.slip?.receivedAt ?? at;
  return [{
    type: 'DepositSettled', at,
    settlement: {
      orderedMinor: X, transferredMinor: V, receivedMinor: A, feeTotalMinor: fee.totalMinor, creditedMinor: A - fee.totalMinor,
      feeBreakdown: fee.breakdown, partial: V < X, settledVia: via, balanceTransactionId: ctx.balanceTransactionId,
      feeBalanceTransactionId: ctx.feeBalanceTransactionId, settledAt: at, clearingAvailableAt: at + limits.clearingPeriodMs,
    },
    verification: orderVerification(s, verification, V === X),
    overpayment: E > 0n ? { claimId: ctx.claimId, cause: 'same_transfer_excess', amountMinor: E, slipReceivedAt } : undefined,
    transRef,
    fills, suspenseMinor,
  }];
}

/**
 * The settlement's money, apart from the ids it is booked under (a read asks this too):
 * V, A, each leg's fill and what suspense funds.
 */
function fillsAt(
  s: Deposit, verified: ReadonlyMap<string, Minor>, capacityByLeg: ReadonlyMap<string, Minor>, capToCapacity: boolean,
): { V: Minor; A: Minor; fills: LegFill[]; suspenseMinor: Minor } | { conflict: true } {
  let V = 0n;
  for (const v of verified.values()) V += v;
  const X = s.amountMinor;
  if (V <= 0n) return { conflict: true };
  const A = minOf(V, X);
  const fills: LegFill[] = [];
  let filledTotal = 0n;
  for (const leg of s.legs) {
    const v = verified.get(leg.legRef);
    if (v === undefined) continue;
    let share = minOf(minOf(v, leg.amountMinor), A - filledTotal);
    if (leg.counterparty.kind === 'withdrawal') {
      const capacity = capacityByLeg.get(leg.legRef) ?? 0n;
      if (share > capacity) {
        if (!capToCapacity) return { conflict: true };
        share = capacity;
      }
    }
    if (share > 0n) fills.push({ legRef: leg.legRef, counterparty: leg.counterparty, amountMinor: share });
    filledTotal += share;
  }
  // A leg paid beyond its share while another got less (the payer's amounts swapped, or all
  // sent to one account): the order's money is in, but part of it sits with a payee whose
  // withdrawal cannot take it. Only a reviewer books that to suspense; automatically it is a conflict.
  if (!capToCapacity && filledTotal < A) return { conflict: true };
  return { V, A, fills, suspenseMinor: A - filledTotal };
}

/**
 * A reviewer's approval settles the order (the contract: under_review → settled) at what
 * the legs received. Four eyes (the review's, the figures', or a settlement suspense would
 * fund: secondApproverNeeded): the first approval records its figures and the order stays
 * under review; a second, different reviewer settles at the same figures (giving none
 * takes the first's). A second approval with other figures replaces the first (restarted),
 * so the amount credited is always the one two reviewers agreed on.
 */
function approve(c: Extract<DepositCommand, { type: 'ApproveReview' }>, s: Deposit): DepositDecision {
  if (s.status !== 'under_review' || !s.review) return reject('operation_not_allowed', `Only a deposit under review can be approved; this one is ${s.status}.`, { status: s.status });
  const noteProblem = checkNote(c.note, 'A review decision');
  if (noteProblem) return noteProblem;
  const review = s.review;
  // What the reviewer read: a confirmation without figures would otherwise settle at figures
  // another reviewer recorded after they looked (a 100× typo confirmed unseen).
  const version = objectVersion(s); // what the operator's read showed
  if (c.expectedVersion !== undefined && c.expectedVersion !== version) {
    return reject('operation_not_allowed', `The deposit changed since you read it (version ${c.expectedVersion}; it is at version ${version} now): read it again and decide on what it shows.`, { version, expected_version: c.expectedVersion });
  }
  if (amongOperators(review.approvals, c.operatorId)) return reject('operation_not_allowed', 'A second approval must come from a different operator.');
  // The confirmation is an operator's word for the bank's: whoever posted it does not also settle on it.
  const confirmedBy = s.routeConfirmation?.confirmedBy;
  if (sameOperator(confirmedBy, c.operatorId) && review.reasons.some((r) => r.code === 'LATE_ROUTE_CONFIRMATION')) {
    return reject('operation_not_allowed', 'You posted this route confirmation; another operator approves its review (four eyes).', { confirmed_by: confirmedBy });
  }
  const explicit = c.transferredAmountMinor !== undefined || c.legAmounts !== undefined;
  const approvedBefore = review.approvals.length > 0;
  const recorded = approvedBefore ? review.approvedAmounts : undefined;
  const received = recorded !== undefined && !explicit ? recorded : receivedAmounts(c, s);
  if (isRejection(received)) return received;
  if (received.reduce((sum, r) => sum + r.amountMinor, 0n) > BigInt(limits.reviewFiguresMinorMax)) {
    return reject('validation_error', `The figures add up to more than ${limits.reviewFiguresMinorMax} satang, more than one bank transfer carries: check them.`,
      { fields: [{ path: c.legAmounts !== undefined ? 'legs' : 'amount_minor', reason: 'maximum', hint: `at most ${limits.reviewFiguresMinorMax} in all` }] });
  }
  const settled = settle(s, c.at, 'review', c.settle, verifiedWith(s, received), undefined, true);
  if ('conflict' in settled) return reject('alloc_state_conflict', 'The deposit cannot be settled against its destination now.');
  const suspenseMinor = settled.reduce((sum, e) => (e.type === 'DepositSettled' ? sum + e.suspenseMinor : sum), 0n);
  const fourEyes = approvedBefore || secondApproverNeeded(s, received, suspenseMinor);
  if (fourEyes && (!approvedBefore || (recorded !== undefined && !sameAmounts(recorded, received)))) {
    return [{ type: 'ReviewApprovalRecorded', at: c.at, operatorId: c.operatorId, note: c.note, received, ...(approvedBefore ? { restarted: true as const } : {}) }];
  }
  const decision = { operatorId: c.operatorId, note: c.note, received };
  const unseen = unseenCredits(s, received);
  return thenNextQueued(s, c.at, settled.map((e) => (e.type === 'DepositSettled' ? { ...e, decision, ...(unseen.length > 0 ? { unseenCredits: unseen } : {}) } : e)));
}

/**
 * The legs an approval credits with no transfer to them seen: not the one the reviewed
 * slip's transfer paid (its leg, or the only leg credited), nor one verified before; a
 * claim without an image shows no transfer. Each waits for its transfer (additionalTransfer).
 */
function unseenCredits(s: Deposit, received: readonly LegAmount[]): LegAmount[] {
  const credited = received.filter((r) => r.amountMinor > 0n);
  // Seen means the bank showed it: a claim without an image names a trans_ref nobody checked.
  const seenLeg = s.slip?.transRef === undefined || !s.slip.hasImage ? undefined : s.slip.legRef ?? (credited.length === 1 ? credited[0]!.legRef : undefined);
  return credited.filter((r) => r.legRef !== seenLeg && s.legs.some((l) => l.legRef === r.legRef && l.transRef === undefined));
}

/**
 * What each leg still waiting for money received, as the approval states it. `legs[]`
 * names every such leg (0 where nothing arrived). A single amount (or, without one, the
 * amount the slip or the route confirmation showed) goes to the leg the slip paid, or the
 * one leg waiting: with more than one waiting, a single figure cannot say which
 * destination got the money, and the withdrawals behind the others would be paid again or
 * lose their money to suspense, so legs[] is required.
 */
function receivedAmounts(c: Pick<Extract<DepositCommand, { type: 'ApproveReview' }>, 'transferredAmountMinor' | 'legAmounts'>, s: Deposit): readonly LegAmount[] | Rejection {
  const waiting = s.legs.filter((l) => !(l.legStatus === 'complete' && l.verifiedAmountMinor !== undefined));
  const invalid = (path: string, reason: string, message: string, hint?: string) =>
    reject('validation_error', message, { fields: [{ path, reason, ...(hint !== undefined ? { hint } : {}) }] });
  if (c.legAmounts !== undefined) {
    if (c.transferredAmountMinor !== undefined) return invalid('amount_minor', 'conflict', 'Give amount_minor or legs[], not both.');
    const seen = new Set<string>();
    let total = 0n;
    for (const [i, r] of c.legAmounts.entries()) {
      if (!waiting.some((l) => l.legRef === r.legRef)) {
        const complete = s.legs.some((l) => l.legRef === r.legRef);
        return invalid(`legs.${i}.leg_ref`, complete ? 'leg_complete' : 'unknown_leg',
          complete ? `Leg ${r.legRef} is already complete.` : `This deposit has no leg ${r.legRef}.`);
      }
      if (seen.has(r.legRef)) return invalid(`legs.${i}.leg_ref`, 'duplicate', `Leg ${r.legRef} is named twice.`);
      if (r.amountMinor < 0n) return invalid(`legs.${i}.amount_minor`, 'minimum', 'A leg received 0 or more.');
      seen.add(r.legRef);
      total += r.amountMinor;
    }
    const missing = waiting.filter((l) => !seen.has(l.legRef)).map((l) => l.legRef);
    if (missing.length > 0) return invalid('legs', 'required', 'Name every leg still waiting for money (0 where nothing arrived).', missing.join(', '));
    if (total <= 0n && legAmounts(s).size === 0) return invalid('legs', 'minimum', 'Nothing was received: decline the review instead.');
    return waiting.map((l) => c.legAmounts!.find((r) => r.legRef === l.legRef)!);
  }
  const paidLeg = waiting.find((l) => l.legRef === (s.slip?.legRef ?? s.routeConfirmation?.legRef));
  // A transfer that reached no leg still waiting, on an order with a leg already verified
  // (it paid that leg again, or went elsewhere, or it is the verified leg's own slip, the
  // order held as it closed): the waiting leg got nothing from it, so the reviewer says what
  // it did get (legs[], or amount_minor for the one waiting) rather than the transfer's
  // amount being credited to it by default — nor a figure replacing a verified leg's.
  if (c.transferredAmountMinor === undefined && paidLeg === undefined && legAmounts(s).size > 0 && waiting.length > 0) {
    return invalid('legs', 'required', 'The reviewed transfer reached no leg still waiting for money: give legs[] with what each waiting leg received (0 where nothing arrived).',
      waiting.map((l) => l.legRef).join(', '));
  }
  const V = c.transferredAmountMinor ?? s.slip?.transferredAmountMinor ?? s.routeConfirmation?.amountMinor;
  if (V === undefined || V <= 0n) {
    return invalid('amount_minor', 'required', 'The transferred amount is unknown; give amount_minor as verified by the reviewer.');
  }
  if (waiting.length > 1) {
    return invalid('legs', 'required', `This deposit has ${waiting.length} legs waiting for money; give legs[] with what each destination received (0 where nothing arrived).`,
      waiting.map((l) => l.legRef).join(', '));
  }
  const target = paidLeg ?? waiting[0] ?? s.legs[0];
  if (!target) return reject('alloc_state_conflict', 'The deposit cannot be settled against its destination now.');
  return [{ legRef: target.legRef, amountMinor: V }];
}

function sameAmounts(a: readonly LegAmount[], b: readonly LegAmount[]): boolean {
  return a.length === b.length && a.every((r) => b.some((o) => o.legRef === r.legRef && o.amountMinor === r.amountMinor));
}

function decline(c: Extract<DepositCommand, { type: 'DeclineReview' }>, s: Deposit): DepositDecision {
  if (s.status !== 'under_review' || !s.review) return reject('operation_not_allowed', `Only a deposit under review can be declined; this one is ${s.status}.`, { status: s.status });
  const noteProblem = checkNote(c.note, 'A review decision');
  if (noteProblem) return noteProblem;
  // A leg already verified is money in its payee's account, filling its withdrawal once the
  // order settles: declining the whole order would drop it (the withdrawal paid again).
  const verified = [...legAmounts(s).keys()];
  if (verified.length > 0) {
    return reject('operation_not_allowed', `Leg ${verified.join(', ')} is already verified: its money reached its payee. Approve with legs[] instead (0 for a leg where nothing arrived), so what was paid settles.`,
      { status: s.status, verified_legs: verified });
  }
  const first = s.review.reasons[0]?.code;
  const texts = declinedDisplay(first);
  return [{ type: 'DepositRejected', at: c.at, code: first ?? 'REVIEW_DECLINED', displayTh: texts.th, displayEn: texts.en, decision: { operatorId: c.operatorId, note: c.note } }];
}

export { isFinalStatus };
