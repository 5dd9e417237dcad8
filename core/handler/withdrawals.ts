// Withdrawal steps: gathers the creation facts (merchant, beneficiary, wallet), runs the
// withdrawal decider, emits its events, posts what the postings table says they move, and
// asks for the deposits waiting in the pool (a reaction) when an order starts taking
// payers or gets capacity back. It never calls the deposit side: react.ts does.

import { assert } from '../assert.ts';
import { isRejection, type Rejection } from '../errors.ts';
import { limits } from '../limits.ts';
import { admitWithdrawal, decide, type WithdrawalCommand } from '../withdrawal/decide.ts';
import { isOpenStatus, type RefundIds, type Withdrawal, type WithdrawalEvent } from '../withdrawal/state.ts';
import { withdrawalPostings } from '../ledger/postings.ts';
import type { Command } from './commands.ts';
import { done, fail, type Reaction, type Step } from './reactions.ts';
import type { Tx } from './tx.ts';

export function refundIds(tx: Tx, w: Withdrawal | undefined): RefundIds {
  return { principalBalanceTransactionId: tx.ids.next('btxn', w?.merchantId), feeBalanceTransactionId: tx.ids.next('btxn', w?.merchantId) };
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
    // A leg released from an open order frees capacity; one an expired order held (it carries refund rows) gives money back instead.
    if ((e.type === 'LegReleased' && e.refund === undefined) || (e.type === 'FillReversed' && e.refundTo === 'reserved' && !e.toSuspense)) capacityGrew = true;
    if (e.type === 'WithdrawalApprovalRecorded' && e.opens) capacityGrew = true;
  }
  const then: Reaction[] = capacityGrew ? [matchWaiting(after)] : [];
  // A claim's refund that has just closed closes its claim (claims.ts decides how); a fill
  // the bank recalled from a closed one has its claim pay the payer again.
  const claimId = after.refundOfDepositId !== undefined ? after.metadata?.claim_id : undefined;
  if (claimId !== undefined && before && isOpenStatus(before.status) && !isOpenStatus(after.status)) then.push({ type: 'CloseRefundedClaim', claimId });
  for (const e of events) {
    if (claimId !== undefined && e.type === 'FillReversed' && e.toSuspense) then.push({ type: 'RecallClaimRefund', claimId, withdrawalId: id, legRef: e.legRef, ...(e.decision ? { operatorId: e.decision.operatorId } : {}) });
  }
  return done(id, then.length > 0 ? then : undefined);
}

function matchWaiting(w: Withdrawal): Reaction {
  return { type: 'MatchWaitingDeposits', whiteLabelId: w.whiteLabelId, livemode: w.livemode };
}

export function createWithdrawal(tx: Tx, c: Extract<Command, { type: 'CreateWithdrawal' }>): Step {
  const { merchantId, livemode } = c.actor;
  const merchant = tx.world.merchants.get(merchantId);
  const admitted = admitWithdrawal(c, {
    merchant, whiteLabel: merchant && tx.world.whiteLabels.get(merchant.whiteLabelId), beneficiary: tx.world.beneficiaries.get(c.beneficiaryId),
    referenceUsed: tx.world.withdrawalByReference.has(merchantId, livemode, c.merchantReference), balances: tx.balances(merchantId, livemode),
    nextClearingAt: () => tx.world.nextClearingAt(merchantId, livemode), at: tx.at,
  });
  if (isRejection(admitted)) return fail(admitted);
  const { fee, beneficiary } = admitted;
  const id = tx.ids.next('wdr', merchantId);
  const result = runWithdrawal(tx, id, {
    type: 'CreateWithdrawal', at: tx.at,
    withdrawal: {
      id, merchantId, whiteLabelId: merchant!.whiteLabelId, livemode, merchantReference: c.merchantReference, endUserRef: c.endUserRef,
      beneficiaryId: beneficiary.id, amountTotalMinor: c.amountMinor, feeTotalMinor: fee.totalMinor, feeBreakdown: fee.breakdown,
      maxSplits: limits.withdrawalMaxSplits, createdAt: tx.at, expiresAt: tx.at + limits.withdrawalLifetimeMs,
      requiresApproval: c.requiresApproval, approvalsRequired: c.requiresApproval ? limits.withdrawalApprovalsRequired : 0,
      reservedBalanceTransactionId: tx.ids.next('btxn', merchantId), metadata: c.metadata,
    },
  });
  // An order that opens at once (no approval to wait for) offers its capacity to waiting deposits.
  if (!result.ok || c.requiresApproval) return result;
  return done(id, [...(result.then ?? []), { type: 'MatchWaitingDeposits', whiteLabelId: merchant!.whiteLabelId, livemode }]);
}
