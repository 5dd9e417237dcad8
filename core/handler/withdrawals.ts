// Withdrawal commands across aggregates: the wallet check and reserve on creation, the
// refunds on close, the fill postings, fill reversals, and matching waiting deposits
// when an order starts taking payers or gets capacity back.

import { assert } from '../assert.ts';
import { reject, type Rejection } from '../errors.ts';
import { limits } from '../limits.ts';
import { checkWithdrawalAmount, withdrawalFee, minorToJson } from '../money.ts';
import { decide, type WithdrawalCommand } from '../withdrawal/decide.ts';
import { type RefundIds, type Withdrawal, type WithdrawalEvent } from '../withdrawal/state.ts';
import { withdrawalPostings } from '../ledger/postings.ts';
import { visibleTo, type Actor, type Command } from './commands.ts';
import { done, fail, type Reaction, type Step } from './reactions.ts';
import type { Tx } from './tx.ts';

export function visibleWithdrawal(tx: Tx, actor: Actor, id: string): Withdrawal | undefined {
  return visibleTo(actor, tx.withdrawal(id));
}

export function refundIds(tx: Tx): RefundIds {
  return { principalBalanceTransactionId: tx.ids.next('btxn'), feeBalanceTransactionId: tx.ids.next('btxn') };
}

/**
 * Runs the withdrawal decider and carries out its events: emits them and posts what they
 * move. An order that gained capacity asks for the deposits waiting in its pool (a reaction).
 */
export function runWithdrawal(tx: Tx, id: string, command: WithdrawalCommand): Step {
  const before = tx.withdrawal(id);
  const decision = decide(command, before);
  if (!Array.isArray(decision)) return fail(decision as Rejection);
  const events = decision as readonly WithdrawalEvent[];
  if (events.length === 0) return done(id);
  const after = tx.emitWithdrawal(id, events);
  assert(after, () => `withdrawal ${id} vanished`);
  let capacityGrew = false;
  for (const e of events) {
    tx.postAll(withdrawalPostings(before, after, e));
    if (e.type === 'LegReleased' || (e.type === 'FillReversed' && e.refundTo === 'reserved')) capacityGrew = true;
    if (e.type === 'WithdrawalApprovalRecorded' && e.opens) capacityGrew = true;
  }
  return done(id, capacityGrew ? [matchWaiting(after)] : undefined);
}

function matchWaiting(w: Withdrawal): Reaction {
  return { type: 'MatchWaitingDeposits', whiteLabelId: w.whiteLabelId, livemode: w.livemode };
}

export function createWithdrawal(tx: Tx, c: Extract<Command, { type: 'CreateWithdrawal' }>): Step {
  const { merchantId, livemode } = c.actor;
  const merchant = tx.world.merchants.get(merchantId);
  if (!merchant) return fail(reject('api_key_invalid', 'Unknown merchant.'));
  if (merchant.suspended) return fail(reject('tenant_suspended', 'The merchant account is suspended.'));
  const wl = tx.world.whiteLabels.get(merchant.whiteLabelId)!;
  const fee = withdrawalFee(wl.fees);
  const amountProblem = checkWithdrawalAmount(wl.amounts, c.amountMinor, c.p2pMinimumApplies, fee.totalMinor);
  if (amountProblem) return fail(amountProblem);
  const ben = tx.world.beneficiaries.get(c.beneficiaryId);
  if (!ben || ben.merchantId !== merchantId || ben.livemode !== livemode) {
    return fail(reject('validation_error', 'beneficiary_id is not a beneficiary of this merchant in this mode.', { fields: [{ path: 'beneficiary_id', reason: 'not_found' }] }));
  }
  if (ben.status !== 'verified') return fail(reject('beneficiary_not_verified', 'The beneficiary is not verified yet.', { beneficiary_id: ben.id }));
  if (tx.world.withdrawalByReference.has(merchantId, livemode, c.merchantReference)) {
    return fail(reject('validation_error', 'merchant_reference is already used by another withdrawal.', { fields: [{ path: 'merchant_reference', reason: 'not_unique' }] }));
  }
  const required = c.amountMinor + fee.totalMinor;
  const balances = tx.balances(merchantId, livemode);
  if (balances.availableMinor < required) {
    const nextClearing = tx.world.nextClearingAt(merchantId, livemode);
    return fail(reject('insufficient_balance', 'Available balance is below the amount plus fee.', {
      available_minor: minorToJson(balances.availableMinor), required_minor: minorToJson(required),
      pending_clearing_minor: minorToJson(balances.pendingClearingMinor), pending_clearing_available_at: nextClearing,
    }));
  }
  const id = tx.ids.next('wdr');
  const result = runWithdrawal(tx, id, {
    type: 'CreateWithdrawal', at: tx.at,
    withdrawal: {
      id, merchantId, whiteLabelId: merchant.whiteLabelId, livemode, merchantReference: c.merchantReference, endUserRef: c.endUserRef,
      beneficiaryId: ben.id, amountTotalMinor: c.amountMinor, feeTotalMinor: fee.totalMinor, feeBreakdown: fee.breakdown,
      maxSplits: limits.withdrawalMaxSplits, createdAt: tx.at, expiresAt: tx.at + limits.withdrawalLifetimeMs,
      requiresApproval: c.requiresApproval, approvalsRequired: c.requiresApproval ? limits.withdrawalApprovalsRequired : 0,
      reservedBalanceTransactionId: tx.ids.next('btxn'), metadata: c.metadata,
    },
  });
  // An order that opens at once (no approval to wait for) offers its capacity to waiting deposits.
  if (!result.ok || c.requiresApproval) return result;
  return done(id, [...(result.then ?? []), { type: 'MatchWaitingDeposits', whiteLabelId: merchant.whiteLabelId, livemode }]);
}

export function disputeWithdrawal(tx: Tx, actor: Actor, disputeId: string): Withdrawal | undefined {
  const id = tx.world.withdrawalByDispute.get(disputeId);
  return id === undefined ? undefined : visibleWithdrawal(tx, actor, id);
}
