// The withdrawal decider: commands and decide(command, state) → events or a refusal
// naming the contract's error code. It keeps the order's own rules (approvals by different
// employees, fills keyed by leg_ref, proportional fee, refunds on close) and, in
// admitWithdrawal, every check a new order must pass over the facts the handler gathers
// (the merchant, its white label, the beneficiary, the reference index, the wallet).

import type { Beneficiary, Merchant, WhiteLabel } from '../directory.ts';
import { violated } from '../assert.ts';
import { reject, type Rejection } from '../errors.ts';
import type { Command } from '../handler/commands.ts';
import type { Balances } from '../ledger/ledger.ts';
import { limits } from '../limits.ts';
import { checkWithdrawalAmount, feeRecognizedFor, minorToJson, withdrawalFee, type Minor } from '../money.ts';
import { withdrawalScenarioRefuses } from '../sandbox/scenarios.ts';
import { amongOperators } from '../operators.ts';
import {
  capacityOf, evolve, heldFeeMoved, inFlightFor, inFlightOf, isOpenStatus, isPayable, remainingOf, type Dispute, type DisputeEvidence, type OperatorDecision, type RefundIds, type Withdrawal, type WithdrawalEvent, type WithdrawalStatus,
} from './state.ts';

export type NewWithdrawal = Extract<WithdrawalEvent, { type: 'WithdrawalCreated' }>['withdrawal'];

export type WithdrawalCommand =
  | { readonly type: 'CreateWithdrawal'; readonly at: number; readonly withdrawal: NewWithdrawal }
  | { readonly type: 'ApproveWithdrawal'; readonly at: number; readonly operatorId: string; readonly note?: string }
  | { readonly type: 'RejectWithdrawal'; readonly at: number; readonly operatorId: string; readonly note?: string; readonly refund: RefundIds }
  | { readonly type: 'CancelWithdrawal'; readonly at: number; readonly by: 'merchant' | 'operator'; readonly refund: RefundIds; readonly operatorId?: string; readonly note?: string }
  | { readonly type: 'TimeOutApproval'; readonly at: number; readonly refund: RefundIds }
  | { readonly type: 'ExpireWithdrawal'; readonly at: number; readonly refund: RefundIds }
  /**
   * `paid`: a late slip's leg, held again for money its payee already has (see reservePaid);
   * `owedMinor`: all that money, when the order's capacity let it hold less.
   */
  | { readonly type: 'ReserveLeg'; readonly at: number; readonly legRef: string; readonly amountMinor: Minor; readonly paid?: true; readonly owedMinor?: Minor }
  | { readonly type: 'ReleaseLeg'; readonly at: number; readonly legRef: string; readonly refund?: RefundIds }
  | { readonly type: 'FillLeg'; readonly at: number; readonly legRef: string; readonly amountMinor: Minor; readonly balanceTransactionId: string; readonly feeBalanceTransactionId: string; readonly depositId?: string }
  /** `heldFeeBalanceTransactionId`: for an order that expired holding legs, the row that moves its held fee's rounding (heldFeeMoved). */
  /** `suspenseBalanceTransactionId`: for a claim's refund that is closed, the row that takes the reversed amount back to suspense. */
  | { readonly type: 'ReverseFill'; readonly at: number; readonly legRef: string; readonly reasonCode: string; readonly balanceTransactionId: string; readonly feeBalanceTransactionId: string; readonly heldFeeBalanceTransactionId?: string; readonly suspenseBalanceTransactionId?: string; readonly decision?: OperatorDecision }
  | { readonly type: 'ConfirmReceipt'; readonly at: number; readonly legRef: string; readonly auto: boolean }
  | { readonly type: 'OpenDispute'; readonly at: number; readonly disputeId: string; readonly reasonCode: string; readonly amountMinor: Minor; readonly respondBy: number; readonly by?: string }
  | { readonly type: 'SubmitDisputeEvidence'; readonly at: number; readonly evidence?: DisputeEvidence }
  | { readonly type: 'ResolveDispute'; readonly at: number; readonly outcome: string; readonly note?: string; readonly by?: string };

export type WithdrawalDecision = readonly WithdrawalEvent[] | Rejection;

const none: readonly WithdrawalEvent[] = [];

/** Whether a payer can be matched to this order now. */
export function isMatchable(w: Withdrawal, at: number): boolean {
  return isPayable(w) && at < w.expiresAt && capacityOf(w) > 0n
    && w.settledSplits + w.inFlight.length < w.maxSplits;
}

export interface CreateWithdrawalFacts {
  readonly merchant: Merchant | undefined;
  readonly whiteLabel: Pick<WhiteLabel, 'fees' | 'amounts'> | undefined;
  readonly beneficiary: Beneficiary | undefined;
  readonly referenceUsed: boolean;
  readonly balances: Balances;
  /** Asked only to explain a refusal (it scans the merchant's uncleared deposits). */
  nextClearingAt(): number | null;
  /** The command's time. */
  readonly at: number;
}

export type AdmittedWithdrawal = { readonly fee: ReturnType<typeof withdrawalFee>; readonly beneficiary: Beneficiary };

/** Every check a new withdrawal must pass, before any id is drawn for it. */
export function admitWithdrawal(c: Extract<Command, { type: 'CreateWithdrawal' }>, facts: CreateWithdrawalFacts): AdmittedWithdrawal | Rejection {
  const { merchant, beneficiary: ben } = facts;
  if (!merchant) return reject('api_key_invalid', 'Unknown merchant.');
  if (merchant.suspended) return reject('tenant_suspended', 'The merchant account is suspended.');
  const fee = withdrawalFee(facts.whiteLabel!.fees);
  const amountProblem = checkWithdrawalAmount(facts.whiteLabel!.amounts, c.amountMinor, c.p2pMinimumApplies, fee.totalMinor);
  if (amountProblem) return amountProblem;
  if (!ben || ben.merchantId !== c.actor.merchantId || ben.livemode !== c.actor.livemode) {
    return reject('validation_error', 'beneficiary_id is not a beneficiary of this merchant in this mode.', { fields: [{ path: 'beneficiary_id', reason: 'not_found' }] });
  }
  if (ben.status !== 'verified') return reject('beneficiary_not_verified', 'The beneficiary is not verified yet.', { beneficiary_id: ben.id });
  if (facts.referenceUsed) {
    return reject('validation_error', 'merchant_reference is already used by another withdrawal.', { fields: [{ path: 'merchant_reference', reason: 'not_unique' }] });
  }
  const required = c.amountMinor + fee.totalMinor;
  const balances = facts.balances;
  if (balances.availableMinor < required) {
    return reject('insufficient_balance', 'Available balance is below the amount plus fee.', {
      available_minor: minorToJson(balances.availableMinor), required_minor: minorToJson(required),
      pending_clearing_minor: minorToJson(balances.pendingClearingMinor), pending_clearing_available_at: facts.nextClearingAt(),
    });
  }
  if (withdrawalScenarioRefuses({ livemode: c.actor.livemode, amountMinor: c.amountMinor })) {
    // Sandbox scenario 11300: the wallet as if what is available were all still clearing,
    // so that the figures tell the same story as the refusal (available below required).
    return reject('insufficient_balance', 'Sandbox scenario 11300: refused as if your available balance were still in pending clearing.', {
      available_minor: 0, required_minor: minorToJson(required),
      pending_clearing_minor: minorToJson(balances.pendingClearingMinor + balances.availableMinor),
      pending_clearing_available_at: facts.nextClearingAt() ?? facts.at + limits.clearingPeriodMs,
    });
  }
  return { fee, beneficiary: ben };
}

export function decide(command: WithdrawalCommand, state: Withdrawal | undefined): WithdrawalDecision {
  if (command.type === 'CreateWithdrawal') {
    if (state) return reject('validation_error', 'A withdrawal with this id already exists.', { fields: [{ path: 'id', reason: 'not_unique' }] });
    return [{ type: 'WithdrawalCreated', at: command.at, withdrawal: command.withdrawal }];
  }
  if (!state) return reject('resource_not_found', 'No such withdrawal.');
  const s = state;
  const c = command;
  switch (c.type) {
    case 'ApproveWithdrawal':
      // Permanent, so not the retryable withdrawal_state_conflict: a retry would meet the same state.
      if (s.status !== 'pending_approval') return reject('operation_not_allowed', `The withdrawal is ${s.status}, not pending approval.`, { status: s.status });
      if (amongOperators(s.approvals, c.operatorId)) return reject('operation_not_allowed', 'Each approval must come from a different employee.');
      return [{ type: 'WithdrawalApprovalRecorded', at: c.at, operatorId: c.operatorId, opens: s.approvals.length + 1 >= s.approvalsRequired, ...(c.note !== undefined ? { note: c.note } : {}) }];
    case 'RejectWithdrawal':
      if (s.status !== 'pending_approval') return reject('operation_not_allowed', `The withdrawal is ${s.status}, not pending approval.`, { status: s.status });
      return [{ type: 'WithdrawalRejected', at: c.at, refund: c.refund, operatorId: c.operatorId, ...(c.note !== undefined ? { note: c.note } : {}) }];
    case 'CancelWithdrawal':
      if (!isOpenStatus(s.status)) return reject('withdrawal_not_cancelable', `The withdrawal is already ${s.status}.`, { status: s.status });
      // A claim's refund pays the payer money that was never the merchant's, on two operators' word: not the merchant's to call off.
      if (c.by === 'merchant' && s.refundOfDepositId !== undefined) {
        return reject('withdrawal_not_cancelable', "This withdrawal is a claim's refund to a payer (refund_of_deposit_id): the merchant cannot cancel it; the claim is the operators'.", { status: s.status, refund_of_deposit_id: s.refundOfDepositId });
      }
      // Any leg in flight, one holding nothing too: a late slip's leg waiting for capacity is money its payee already has.
      if (s.inFlight.length > 0) {
        return reject('withdrawal_has_pending_fill', 'A fill is in progress; try again when it has landed or been released.', { reserved_minor: Number(inFlightOf(s)) });
      }
      return [{ type: 'WithdrawalCanceled', at: c.at, by: c.by, reasonCode: c.by === 'merchant' ? 'merchant_request' : 'operator_request', refund: c.refund, ...(c.operatorId !== undefined ? { operatorId: c.operatorId } : {}), ...(c.note !== undefined ? { note: c.note } : {}) }];
    case 'TimeOutApproval':
      if (s.status !== 'pending_approval' || c.at < s.createdAt + limits.withdrawalApprovalTimeoutMs) return none;
      return [{ type: 'WithdrawalCanceled', at: c.at, by: 'system', reasonCode: 'approval_ttl_expired', refund: c.refund }];
    case 'ExpireWithdrawal':
      // The rest is refunded now; legs payers are mid-transfer on stay held until each lands or is released.
      if (!isPayable(s) || c.at < s.expiresAt) return none;
      return [{ type: 'WithdrawalExpired', at: c.at, refund: c.refund }];
    case 'ReserveLeg':
      if (c.paid) return reservePaid(c, s);
      if (!isMatchable(s, c.at) || c.amountMinor > capacityOf(s) || c.amountMinor <= 0n) {
        return reject('alloc_state_conflict', 'The withdrawal can no longer take this leg.', { status: s.status });
      }
      if (inFlightFor(s, c.legRef) !== undefined) return none;
      return [{ type: 'LegReserved', at: c.at, legRef: c.legRef, amountMinor: c.amountMinor }];
    case 'ReleaseLeg':
      if (inFlightFor(s, c.legRef) === undefined) return none;
      // A leg an expired order held goes back to the merchant with its fee: the rows to post it.
      if (s.status === 'expired' && c.refund === undefined) return reject('alloc_state_conflict', 'Releasing a held leg needs its refund rows.');
      return withTopUps(s, c.at, [{ type: 'LegReleased', at: c.at, legRef: c.legRef, ...(s.status === 'expired' ? { refund: c.refund! } : {}) }]);
    case 'FillLeg':
      return withTopUps(s, c.at, fill(c, s));
    case 'ReverseFill': return withTopUps(s, c.at, reverseFill(c, s));
    case 'ConfirmReceipt': return confirmReceipt(c, s);
    case 'OpenDispute': case 'SubmitDisputeEvidence': case 'ResolveDispute': return dispute(c, s);
    default: {
      const _exhaustive: never = c;
      return _exhaustive;
    }
  }
}

/**
 * A late slip's leg is money the payee has: it takes the capacity it finds, as its fill
 * will (the order's own expiry or its split count bar new payers, not money already in).
 * A leg already held is raised to the new amount (a second late transfer to its account,
 * or capacity found since); never lowered, so a repeated or smaller hold changes nothing.
 * With no capacity left (amount 0, `owedMinor` > 0) the leg waits in flight holding
 * nothing, counted among the order's splits, until capacity frees (withTopUps).
 */
function reservePaid(c: Extract<WithdrawalCommand, { type: 'ReserveLeg' }>, s: Withdrawal): WithdrawalDecision {
  const own = inFlightFor(s, c.legRef);
  const owed = c.owedMinor !== undefined && c.owedMinor > c.amountMinor ? c.owedMinor : c.amountMinor;
  const held = s.inFlight.find((l) => l.legRef === c.legRef);
  // An expired order keeps what it held; nothing more is asked of it. Nor is a closed one
  // asked to wait for capacity (amount 0): the order's settlement places that money.
  if (own !== undefined && ((c.amountMinor <= own && owed <= (held?.owedMinor ?? own)) || !isPayable(s))) return none;
  if (c.amountMinor === 0n && !isPayable(s)) return none;
  if (owed <= 0n || c.amountMinor < 0n || !isPayable(s) || c.amountMinor - (own ?? 0n) > capacityOf(s)) {
    return reject('alloc_state_conflict', 'The withdrawal can no longer take this leg.', { status: s.status });
  }
  const amountMinor = own !== undefined && own > c.amountMinor ? own : c.amountMinor;
  return [{ type: 'LegReserved', at: c.at, legRef: c.legRef, amountMinor, ...(owed > amountMinor ? { owedMinor: owed } : {}) }];
}

/**
 * Capacity these events free (a leg released, a fill short of its hold, a fill reversed
 * into the lock) goes first to late slips' legs held short of the money their payees
 * already have (InFlightLeg.owedMinor), in the order they stand: new payers are matched
 * only to what is left, so none is sent to pay a payee for money it has.
 */
function withTopUps(s: Withdrawal, at: number, decision: WithdrawalDecision): WithdrawalDecision {
  if (!Array.isArray(decision) || decision.length === 0 || !s.inFlight.some((l) => l.owedMinor !== undefined)) return decision;
  let after = s;
  for (const e of decision as readonly WithdrawalEvent[]) after = evolve(after, e);
  if (!isPayable(after)) return decision;
  let room = capacityOf(after);
  const out = [...(decision as readonly WithdrawalEvent[])];
  for (const l of after.inFlight) {
    if (room <= 0n) break;
    if (l.owedMinor === undefined) continue;
    const add = l.owedMinor - l.amountMinor < room ? l.owedMinor - l.amountMinor : room;
    room -= add;
    const amountMinor = l.amountMinor + add;
    out.push({ type: 'LegReserved', at, legRef: l.legRef, amountMinor, ...(l.owedMinor > amountMinor ? { owedMinor: l.owedMinor } : {}) });
  }
  return out;
}

/** The statuses a withdrawal with a landed fill can be in. */
const reversibleFrom: readonly WithdrawalStatus[] = ['partially_filled', 'settled', 'expired', 'canceled'];

/** resource_not_found when the withdrawal has no fill for `legRef` (exported: the route asks it before the step-up, which it does not spend). */
export function unknownFill(s: Withdrawal, legRef: string): Rejection | null {
  return s.fills.some((f) => f.legRef === legRef) ? null : reject('resource_not_found', 'No fill with this leg_ref on the withdrawal.');
}

function reverseFill(c: Extract<WithdrawalCommand, { type: 'ReverseFill' }>, s: Withdrawal): WithdrawalDecision {
  const target = s.fills.find((f) => f.legRef === c.legRef);
  if (!target) return unknownFill(s, c.legRef)!;
  if (target.reversal) {
    return reject('operation_not_allowed', `This fill was already reversed (${target.reversal.reasonCode}); a fill is reversed once.`, { leg_ref: c.legRef });
  }
  if (!reversibleFrom.includes(s.status)) {
    return reject('operation_not_allowed', `A fill of a withdrawal that is ${s.status} cannot be reversed: it has none that landed.`, { status: s.status });
  }
  // A closed order (settled, or expired or canceled after some fills: a lost dispute on it
  // has this remedy too) never moves back: the money returns to available and the merchant
  // may open a replacement; a partially filled one takes the amount back into its lock.
  // A closed claim refund has no available to return to (it was never the merchant's): the
  // amount goes back through its lock to suspense, where the refund was locked from, and
  // its claim pays the payer again out of it (a replacement refund, handler/claims.ts).
  const closed = s.status !== 'partially_filled';
  const toSuspense = s.refundOfDepositId !== undefined && closed;
  if (toSuspense && c.suspenseBalanceTransactionId === undefined) violated(`${s.id}: reversing ${c.legRef} of a closed claim refund and the command carries no row to suspense`);
  const held = heldFeeMoved(s, target);
  if (held !== 0n && c.heldFeeBalanceTransactionId === undefined) violated(`${s.id}: reversing ${c.legRef} moves the held fee by ${held} and the command carries no row for it`);
  return [{
    type: 'FillReversed', at: c.at, legRef: c.legRef, reasonCode: c.reasonCode, balanceTransactionId: c.balanceTransactionId, feeBalanceTransactionId: c.feeBalanceTransactionId,
    refundTo: closed && !toSuspense ? 'available' : 'reserved', ...(held !== 0n ? { heldFee: { balanceTransactionId: c.heldFeeBalanceTransactionId!, amountMinor: held } } : {}),
    ...(toSuspense ? { toSuspense: { balanceTransactionId: c.suspenseBalanceTransactionId! } } : {}),
    ...(c.decision ? { decision: c.decision } : {}),
  }];
}

function confirmReceipt(c: Extract<WithdrawalCommand, { type: 'ConfirmReceipt' }>, s: Withdrawal): WithdrawalDecision {
  const target = s.fills.find((f) => f.legRef === c.legRef);
  if (!target) return unknownFill(s, c.legRef)!;
  if (target.receiptState !== 'pending' || target.reversal || (c.auto && c.at < target.autoConfirmAt)) return none;
  return [{ type: 'ReceiptConfirmed', at: c.at, legRef: c.legRef, auto: c.auto }];
}

function dispute(c: Extract<WithdrawalCommand, { type: 'OpenDispute' | 'SubmitDisputeEvidence' | 'ResolveDispute' }>, s: Withdrawal): WithdrawalDecision {
  switch (c.type) {
    case 'OpenDispute': {
      if (s.dispute?.status === 'open') return reject('operation_not_allowed', 'The withdrawal already has an open dispute.');
      if (c.amountMinor <= 0n || c.amountMinor > s.filledMinor) {
        return reject('validation_error', 'The disputed amount must be positive and at most the filled amount.', { fields: [{ path: 'amount_minor', reason: 'out_of_range' }] });
      }
      // Nothing of the withdrawing merchant's is held: the disputed amount left its wallet in
      // the fills, and a lost dispute moves money only through a fill reversal, which pays
      // the merchant back. funds_on_hold says so, rather than promise a hold of nothing.
      const dispute: Dispute = { id: c.disputeId, reasonCode: c.reasonCode, amountMinor: c.amountMinor, openedAt: c.at, respondBy: c.respondBy, fundsOnHold: false, status: 'open', evidenceCount: 0 };
      return [{ type: 'DisputeOpened', at: c.at, dispute, ...(c.by !== undefined ? { by: c.by } : {}) }];
    }
    case 'SubmitDisputeEvidence':
      if (s.dispute?.status !== 'open') return reject('operation_not_allowed', 'There is no open dispute on this withdrawal.');
      if (c.at > s.dispute.respondBy) return reject('operation_not_allowed', 'The evidence deadline of this dispute has passed.');
      return [{ type: 'DisputeEvidenceSubmitted', at: c.at, ...(c.evidence ? { evidence: c.evidence } : {}) }];
    case 'ResolveDispute':
      if (s.dispute?.status !== 'open') return reject('operation_not_allowed', 'There is no open dispute on this withdrawal.');
      return [{ type: 'DisputeResolved', at: c.at, outcome: c.outcome, ...(c.note !== undefined ? { note: c.note } : {}), ...(c.by !== undefined ? { by: c.by } : {}) }];
    default: {
      const _exhaustive: never = c;
      return _exhaustive;
    }
  }
}

function fill(c: Extract<WithdrawalCommand, { type: 'FillLeg' }>, s: Withdrawal): WithdrawalDecision {
  if (s.fills.some((f) => f.legRef === c.legRef)) return none; // a repeated leg_ref changes nothing
  // An expired order takes only the legs it held at expiry, each up to what it held.
  const held = s.status === 'expired' ? inFlightFor(s, c.legRef) : undefined;
  if (!isPayable(s) && held === undefined) {
    return reject('alloc_state_conflict', `A ${s.status} withdrawal cannot take a fill.`, { status: s.status });
  }
  const otherInFlight = inFlightOf(s) - (inFlightFor(s, c.legRef) ?? 0n);
  if (c.amountMinor <= 0n || c.amountMinor > (held ?? remainingOf(s) - otherInFlight)) {
    return reject('alloc_state_conflict', 'The fill exceeds what the withdrawal can take.');
  }
  const filledAfter = s.filledMinor + c.amountMinor;
  // Cumulative share, floored at zero: after a reversed fill the rounding of the shares
  // may run ahead of the proportional curve by a satang, never behind the total.
  const due = feeRecognizedFor(s.feeTotalMinor, s.amountTotalMinor, filledAfter) - s.feeRecognizedMinor;
  const feeShare = due > 0n ? due : 0n;
  const events: WithdrawalEvent[] = [{
    type: 'FillLanded', at: c.at,
    fill: {
      legRef: c.legRef, sequence: s.fills.length + 1, amountMinor: c.amountMinor, feeRecognizedMinor: feeShare,
      settledAt: c.at, balanceTransactionId: c.balanceTransactionId, feeBalanceTransactionId: feeShare > 0n ? c.feeBalanceTransactionId : null,
      autoConfirmAt: c.at + limits.fillAutoConfirmMs, receiptState: 'pending', ...(c.depositId !== undefined ? { depositId: c.depositId } : {}),
    },
  }];
  if (held === undefined && filledAfter === s.amountTotalMinor) events.push({ type: 'WithdrawalSettled', at: c.at });
  return events;
}
