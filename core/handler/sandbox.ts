// The sandbox scenario engine's steps (core/sandbox/scenarios.ts names them): a due
// 'sandbox.step' timer becomes the deposit commands its step stands for — the scenario's
// own transfer (slip received, then verified by the sandbox bank), an expiry, a
// cancellation, a reviewer's approval, a reversal, a destination appearing. Each runs
// through the deposit decider exactly as the live command would, so the events, versions,
// sequences and postings are the live ones. Sandbox deposits only: scenarioOf answers
// nothing for a live deposit, and a step that no longer matches the state does nothing.

import { decide } from '../deposit/decide.ts';
import type { Deposit } from '../deposit/state.ts';
import type { Timer } from '../journal.ts';
import { sandboxStepOf, sandboxTransRef, sandboxVerification, scenarioOf, type SandboxStep } from '../sandbox/scenarios.ts';
import { reversalFacts } from './claims.ts';
import { closeLateWindow, runDeposit, settleContext, simulatedMatch } from './deposits.ts';
import { done, type Reaction, type Step } from './reactions.ts';
import type { Tx } from './tx.ts';

/** The operator id a scenario's automatic review decision is recorded under. */
export const scenarioOperatorId = 'sandbox_scenario';

export function fireSandboxStep(tx: Tx, t: Timer): Step {
  const d = tx.deposit(t.stream);
  const wanted = d && sandboxStepOf(d);
  if (!d || !wanted || wanted.step !== t.arg || wanted.dueAt > tx.at) return done();
  const at = tx.at;
  const step = t.arg as SandboxStep;
  switch (step) {
    case 'pay':
    case 'late_slip':
    case 'duplicate_transfer':
      return payBySandboxBank(tx, d);
    case 'expire':
      return runDeposit(tx, d.id, decide({ type: 'ExpireDeposit', at, settle: settleContext(tx, d), scenario: true }, d));
    case 'cancel':
      return runDeposit(tx, d.id, decide({ type: 'CancelDeposit', at, by: 'end_user', reasonCode: 'end_user_request' }, d));
    case 'close_late_window':
      return closeLateWindow(tx, d, true);
    case 'approve':
      return runDeposit(tx, d.id, decide({ type: 'ApproveReview', at, operatorId: scenarioOperatorId, note: 'Sandbox scenario: the late transfer is accepted.', settle: settleContext(tx, d) }, d));
    case 'reverse':
      return runDeposit(tx, d.id, decide({ type: 'ReverseDeposit', at, reasonCode: 'BANK_RECALL', balanceTransactionId: tx.ids.next('btxn', d.merchantId), ...reversalFacts(tx, d), claimRefunds: 'recover_from_payer' }, d));
    case 'match':
      return runDeposit(tx, d.id, decide({ type: 'MatchDeposit', at, match: simulatedMatch(tx, d, at + d.lifetimeMs) }, d));
    default: {
      const _exhaustive: never = step;
      return _exhaustive;
    }
  }
}

/** The end user's transfer, as the sandbox bank tells it: the slip is received, then verified, in one command. */
function payBySandboxBank(tx: Tx, d: Deposit): Step {
  const receiptId = tx.ids.next('rcpt', d.merchantId);
  const received = runDeposit(tx, d.id, decide({ type: 'ReceiveSlip', at: tx.at, receiptId, hasImage: true }, d));
  if (!received.ok) return received;
  const after = tx.deposit(d.id)!;
  const slip = after.status === 'settled' ? after.additionalSlip! : after.slip!;
  const outcome = sandboxVerification(after, slip, sandboxTransRef(receiptId));
  const verified = runDeposit(tx, d.id, decide({ type: 'RecordVerification', at: tx.at, receiptId, outcome, settle: settleContext(tx, after) }, after));
  if (!verified.ok) return verified;
  const then = [...(received.then ?? []), ...(verified.then ?? []), ...counterpartyDisputes(tx, tx.deposit(d.id)!)];
  return done(d.id, then.length > 0 ? then : undefined);
}

/**
 * 11000: the payee of the counterparty withdrawal disputes what it was paid, up to this
 * order's amount. Only a withdrawal (the merchant's own, in sandbox) with fills can be
 * disputed; the simulated counterparty has no withdrawal to dispute.
 */
function counterpartyDisputes(tx: Tx, d: Deposit): Reaction[] {
  if (scenarioOf(d) !== 11_000 || d.review?.reasons.every((r) => r.code !== 'ALLOCATION_CONFLICT')) return [];
  const out: Reaction[] = [];
  for (const leg of d.legs) {
    if (leg.counterparty.kind !== 'withdrawal') continue;
    const w = tx.withdrawal(leg.counterparty.withdrawalId);
    if (!w || w.filledMinor <= 0n || w.dispute?.status === 'open') continue;
    out.push({ type: 'DisputeFills', withdrawalId: w.id, amountMinor: w.filledMinor < leg.amountMinor ? w.filledMinor : leg.amountMinor, reasonCode: 'ALLOCATION_CONFLICT' });
  }
  return out;
}
