// The reaction loop: a command's first step, then every reaction its events call for,
// run on the transaction's bounded worklist until none is left. Depth first: a step's
// reactions run, in order, before the reactions still pending from earlier steps — the
// order in which entries (and ids) are appended is the order the journal has always had.
// The first refusal stops the loop; the transaction is then dropped whole.

import { limits } from '../limits.ts';
import { inFlightFor } from '../withdrawal/state.ts';
import { matchWaitingDeposit, waitingDepositsOf } from './deposits.ts';
import { done, type Outcome, type Reaction, type Step } from './reactions.ts';
import type { Tx } from './tx.ts';
import { refundIds, runWithdrawal } from './withdrawals.ts';
import { closeRefundedClaim, recallClaimRefund, recordClaimRefundsOwed } from './claims.ts';

/** Runs a command's first step and every reaction that follows; the outcome is the first step's. */
export function runToQuiescence(tx: Tx, first: Step): Outcome {
  if (!first.ok) return first;
  if (first.then) tx.react(first.then);
  for (let r = tx.nextReaction(); r !== undefined; r = tx.nextReaction()) {
    const step = runReaction(tx, r);
    if (!step.ok) return step;
    if (step.then) tx.react(step.then);
  }
  return first.objectId === undefined ? { ok: true } : { ok: true, objectId: first.objectId };
}

/** A leg released from its withdrawal; one an expired order held gives its money back, with rows of its own. */
function releaseLeg(tx: Tx, withdrawalId: string, legRef: string): Step {
  const w = tx.withdrawal(withdrawalId);
  const held = w?.status === 'expired' && inFlightFor(w, legRef) !== undefined;
  return runWithdrawal(tx, withdrawalId, { type: 'ReleaseLeg', at: tx.at, legRef, ...(held ? { refund: refundIds(tx, w) } : {}) });
}

function runReaction(tx: Tx, r: Reaction): Step {
  const at = tx.at;
  switch (r.type) {
    case 'ReserveLeg':
      return runWithdrawal(tx, r.withdrawalId, {
        type: 'ReserveLeg', at, legRef: r.legRef, amountMinor: r.amountMinor, ...(r.paid ? { paid: r.paid } : {}), ...(r.owedMinor !== undefined ? { owedMinor: r.owedMinor } : {}),
      });
    case 'ReleaseLeg':
      return releaseLeg(tx, r.withdrawalId, r.legRef);
    case 'ReleaseUnfilledLeg': {
      const w = tx.withdrawal(r.withdrawalId);
      if (!w || inFlightFor(w, r.legRef) === undefined) return done();
      return releaseLeg(tx, w.id, r.legRef);
    }
    case 'FillLeg': {
      const merchantId = tx.withdrawal(r.withdrawalId)?.merchantId;
      return runWithdrawal(tx, r.withdrawalId, {
        type: 'FillLeg', at, legRef: r.legRef, amountMinor: r.amountMinor, depositId: r.depositId,
        balanceTransactionId: tx.ids.next('btxn', merchantId), feeBalanceTransactionId: tx.ids.next('btxn', merchantId),
      });
    }
    case 'MatchWaitingDeposits':
      return waitingDepositsOf(tx, r.whiteLabelId, r.livemode);
    case 'MatchWaitingDeposit':
      return matchWaitingDeposit(tx, r.depositId);
    case 'CloseRefundedClaim':
      return closeRefundedClaim(tx, r.claimId);
    case 'RecallClaimRefund':
      return recallClaimRefund(tx, r);
    case 'RecordClaimRefundsOwed':
      return recordClaimRefundsOwed(tx, r);
    case 'DisputeFills':
      return runWithdrawal(tx, r.withdrawalId, {
        type: 'OpenDispute', at, disputeId: tx.ids.next('dsp', tx.withdrawal(r.withdrawalId)?.merchantId), reasonCode: r.reasonCode, amountMinor: r.amountMinor, respondBy: at + limits.disputeRespondByMs,
      });
    default: {
      const _exhaustive: never = r;
      return _exhaustive;
    }
  }
}
