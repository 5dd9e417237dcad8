// Timers are derived from state: after every command, each touched aggregate's timers are
// reconciled with what its state calls for. A timer id names its stream and kind, so
// setting one again moves it rather than adding a second.

import { limits } from '../limits.ts';
import type { Deposit } from '../deposit/state.ts';
import type { Timer, TimerKind } from '../journal.ts';
import { inFlightOf, type Withdrawal } from '../withdrawal/state.ts';

function timer(stream: string, kind: TimerKind, dueAt: number, arg?: string): Timer {
  return arg === undefined ? { id: `${stream}:${kind}`, stream, kind, dueAt } : { id: `${stream}:${kind}:${arg}`, stream, kind, dueAt, arg };
}

export function depositTimers(d: Deposit): Timer[] {
  switch (d.status) {
    case 'awaiting_liquidity':
      return d.liquidity ? [timer(d.id, 'deposit.liquidity_wait', d.liquidity.waitStartedAt + limits.liquidityWaitMs)] : [];
    case 'awaiting_payment':
      return [timer(d.id, 'deposit.expire', d.expiresAt)];
    case 'expired':
    case 'canceled':
      return !d.isTerminal && d.lateSlipAcceptedUntil != null ? [timer(d.id, 'deposit.close_late_window', d.lateSlipAcceptedUntil)] : [];
    case 'under_review':
      return d.review && !d.review.escalated ? [timer(d.id, 'deposit.escalate_review', d.review.openedAt + limits.reviewEscalationMs)] : [];
    case 'settled': {
      const st = d.settlement;
      return st && st.clearedAt === undefined && st.clearingAvailableAt !== null ? [timer(d.id, 'deposit.clear', st.clearingAvailableAt)] : [];
    }
    case 'slip_processing':
    case 'rejected':
    case 'reversed':
      return [];
    default: {
      const _exhaustive: never = d.status;
      return _exhaustive;
    }
  }
}

export function withdrawalTimers(w: Withdrawal): Timer[] {
  const timers: Timer[] = [];
  if (w.status === 'pending_approval') timers.push(timer(w.id, 'withdrawal.approval_timeout', w.createdAt + limits.withdrawalApprovalTimeoutMs));
  // Expiry waits while a payer is mid-transfer; it is armed again once nothing is in flight.
  if ((w.status === 'open' || w.status === 'partially_filled') && inFlightOf(w) === 0n) timers.push(timer(w.id, 'withdrawal.expire', w.expiresAt));
  for (const f of w.fills) {
    if (f.receiptState === 'pending' && !f.reversal) timers.push(timer(w.id, 'withdrawal.auto_confirm', f.autoConfirmAt, f.legRef));
  }
  return timers;
}
