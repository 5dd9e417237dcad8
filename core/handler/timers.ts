// Timers are derived from state: after every command, each touched aggregate's timers are
// reconciled with what its state calls for. A timer id names its stream and kind, so
// setting one again moves it rather than adding a second.
//
// Speed: a state names the timers it wants through a sink rather than returning Timer
// objects, so the usual case (the timers it already has) allocates nothing.

import { backOfficeLimits, limits } from '../limits.ts';
import { isSettledAndUncleared, type Deposit } from '../deposit/state.ts';
import type { Timer, TimerKind } from '../journal.ts';
import { isPayable, type Withdrawal } from '../withdrawal/state.ts';
import { sandboxStepOf } from '../sandbox/scenarios.ts';

export interface TimerSink {
  want(stream: string, kind: TimerKind, dueAt: number, arg?: string): void;
}

export function timer(stream: string, kind: TimerKind, dueAt: number, arg?: string): Timer {
  return arg === undefined ? { id: `${stream}:${kind}`, stream, kind, dueAt } : { id: `${stream}:${kind}:${arg}`, stream, kind, dueAt, arg };
}

export function depositTimers(d: Deposit, sink: TimerSink): void {
  const scenarioStep = d.livemode ? undefined : sandboxStepOf(d);
  if (scenarioStep) sink.want(d.id, 'sandbox.step', scenarioStep.dueAt, scenarioStep.step);
  switch (d.status) {
    case 'awaiting_liquidity':
      if (d.liquidity) sink.want(d.id, 'deposit.liquidity_wait', d.liquidity.waitStartedAt + limits.liquidityWaitMs);
      return;
    case 'awaiting_payment':
      sink.want(d.id, 'deposit.expire', d.expiresAt);
      return;
    case 'expired':
    case 'canceled':
      if (!d.isTerminal && d.lateSlipAcceptedUntil != null) sink.want(d.id, 'deposit.close_late_window', d.lateSlipAcceptedUntil);
      return;
    case 'under_review':
      if (d.review && !d.review.escalated) sink.want(d.id, 'deposit.escalate_review', d.review.openedAt + limits.reviewEscalationMs);
      else if (d.review && !d.review.extended) sink.want(d.id, 'deposit.extend_review', d.review.openedAt + backOfficeLimits.reviewExtendedAfterMs);
      return;
    case 'settled': {
      if (isSettledAndUncleared(d) && d.settlement.clearingAvailableAt !== null) sink.want(d.id, 'deposit.clear', d.settlement.clearingAvailableAt);
      return;
    }
    case 'slip_processing':
    case 'rejected':
    case 'reversed':
      return;
    default: {
      const _exhaustive: never = d.status;
      return _exhaustive;
    }
  }
}

export function withdrawalTimers(w: Withdrawal, sink: TimerSink): void {
  if (w.status === 'pending_approval') sink.want(w.id, 'withdrawal.approval_timeout', w.createdAt + limits.withdrawalApprovalTimeoutMs);
  // At expires_at the rest is refunded; legs payers are mid-transfer on stay held (decide.ts).
  if (isPayable(w)) sink.want(w.id, 'withdrawal.expire', w.expiresAt);
  for (const f of w.fills) {
    if (f.receiptState === 'pending' && !f.reversal) sink.want(w.id, 'withdrawal.auto_confirm', f.autoConfirmAt, f.legRef);
  }
}

/**
 * Reconciles one stream at a time against the world's pending timers: `begin`, the
 * state's wants, `end`. Clears what is no longer wanted; sets what is new or moved.
 */
export class TimerReconciler implements TimerSink {
  private current: readonly Timer[] | undefined;
  /** Bit i set: current[i] is still wanted (an aggregate has far fewer than 31 timers). */
  private kept = 0;

  constructor(readonly set: Timer[], readonly clear: string[]) {}

  begin(current: readonly Timer[] | undefined): void {
    this.current = current;
    this.kept = 0;
  }

  want(stream: string, kind: TimerKind, dueAt: number, arg?: string): void {
    const current = this.current;
    if (current) {
      for (let i = 0; i < current.length; i++) {
        const t = current[i]!;
        if (t.kind !== kind || t.arg !== arg) continue;
        this.kept |= 1 << i;
        const cleared = this.clear.indexOf(t.id);
        if (t.dueAt === dueAt && cleared === -1) return; // already pending as wanted
        if (cleared !== -1) this.clear.splice(cleared, 1);
        this.set.push(timer(stream, kind, dueAt, arg));
        return;
      }
    }
    const t = timer(stream, kind, dueAt, arg);
    const cleared = this.clear.length === 0 ? -1 : this.clear.indexOf(t.id);
    if (cleared !== -1) this.clear.splice(cleared, 1);
    this.set.push(t);
  }

  end(): void {
    const current = this.current;
    if (!current) return;
    for (let i = 0; i < current.length; i++) {
      if ((this.kept & (1 << i)) === 0 && !this.clear.includes(current[i]!.id)) this.clear.push(current[i]!.id);
    }
  }
}
