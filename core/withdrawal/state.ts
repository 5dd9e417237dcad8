// The withdrawal aggregate: state, events and evolve. One journal stream per order (its
// wdr_ id). Invariants asserted in evolve: filled + remaining = amount; fee recognised
// never exceeds the fee; a final status is never left; money in flight never exceeds
// what remains; a fill is keyed by its leg_ref and lands at most once.

import { assert, unreachable, violated } from '../assert.ts';
import type { Bucket } from '../ledger/ledger.ts';
import type { FeeLine, Minor } from '../money.ts';

export type WithdrawalStatus = 'pending_approval' | 'open' | 'partially_filled' | 'settled' | 'expired' | 'canceled' | 'rejected';

export const withdrawalStatuses: readonly WithdrawalStatus[] = ['pending_approval', 'open', 'partially_filled', 'settled', 'expired', 'canceled', 'rejected'];

export interface Fill {
  readonly legRef: string;
  readonly sequence: number;
  readonly amountMinor: Minor;
  readonly feeRecognizedMinor: Minor;
  readonly settledAt: number;
  readonly balanceTransactionId: string;
  readonly feeBalanceTransactionId: string | null;
  readonly autoConfirmAt: number;
  readonly receiptState: 'pending' | 'confirmed' | 'auto_confirmed';
  readonly reversal?: { readonly at: number; readonly reasonCode: string; readonly balanceTransactionId: string };
}

export interface Dispute {
  readonly id: string;
  readonly reasonCode: string;
  readonly amountMinor: Minor;
  readonly openedAt: number;
  readonly respondBy: number;
  readonly fundsOnHold: boolean;
  readonly status: 'open' | 'resolved';
  readonly outcome?: string;
  readonly evidenceCount: number;
}

export interface Withdrawal {
  readonly id: string;
  readonly merchantId: string;
  readonly whiteLabelId: string;
  readonly livemode: boolean;
  readonly version: number;
  readonly status: WithdrawalStatus;
  readonly merchantReference: string;
  readonly endUserRef: string;
  readonly beneficiaryId: string;
  readonly amountTotalMinor: Minor;
  readonly feeTotalMinor: Minor;
  readonly feeBreakdown: readonly FeeLine[];
  readonly feeRecognizedMinor: Minor;
  readonly filledMinor: Minor;
  readonly refundedMinor: Minor;
  readonly settledSplits: number;
  readonly maxSplits: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly expiresAt: number;
  readonly requiresApproval: boolean;
  readonly approvalsRequired: number;
  readonly approvals: readonly string[];
  readonly reservedBalanceTransactionId: string;
  /** Legs of deposits currently being paid to this order, by leg_ref. */
  readonly inFlight: Readonly<Record<string, Minor>>;
  readonly fills: readonly Fill[];
  readonly dispute?: Dispute;
  readonly rejection?: { readonly code: string; readonly displayTh: string; readonly displayEn: string };
  readonly canceledBy?: 'merchant' | 'system' | 'operator';
  readonly cancelReasonCode?: string;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly replacementOfWithdrawalId?: string;
}

export interface RefundIds {
  readonly principalBalanceTransactionId: string;
  readonly feeBalanceTransactionId: string;
}

export type WithdrawalEvent =
  | { readonly type: 'WithdrawalCreated'; readonly at: number; readonly withdrawal: Omit<Withdrawal, 'version' | 'status' | 'updatedAt' | 'approvals' | 'inFlight' | 'fills' | 'feeRecognizedMinor' | 'filledMinor' | 'refundedMinor' | 'settledSplits'> }
  | { readonly type: 'WithdrawalApprovalRecorded'; readonly at: number; readonly operatorId: string; readonly opens: boolean }
  | { readonly type: 'WithdrawalRejected'; readonly at: number; readonly note?: string; readonly refund: RefundIds }
  | { readonly type: 'WithdrawalCanceled'; readonly at: number; readonly by: 'merchant' | 'system' | 'operator'; readonly reasonCode: string; readonly refund: RefundIds }
  | { readonly type: 'WithdrawalExpired'; readonly at: number; readonly refund: RefundIds }
  | { readonly type: 'LegReserved'; readonly at: number; readonly legRef: string; readonly amountMinor: Minor }
  | { readonly type: 'LegReleased'; readonly at: number; readonly legRef: string }
  | { readonly type: 'FillLanded'; readonly at: number; readonly fill: Fill }
  | { readonly type: 'WithdrawalSettled'; readonly at: number }
  | { readonly type: 'FillReversed'; readonly at: number; readonly legRef: string; readonly reasonCode: string; readonly balanceTransactionId: string; readonly feeBalanceTransactionId: string; readonly refundTo: Bucket }
  | { readonly type: 'ReceiptConfirmed'; readonly at: number; readonly legRef: string; readonly auto: boolean }
  | { readonly type: 'DisputeOpened'; readonly at: number; readonly dispute: Dispute }
  | { readonly type: 'DisputeEvidenceSubmitted'; readonly at: number }
  | { readonly type: 'DisputeResolved'; readonly at: number; readonly outcome: string };

export function remainingOf(w: Withdrawal): Minor {
  return w.amountTotalMinor - w.filledMinor;
}

export function inFlightOf(w: Withdrawal): Minor {
  let total = 0n;
  for (const legRef in w.inFlight) total += w.inFlight[legRef]!; // no Object.values array: runs on every event
  return total;
}

/** What the order still locks in the merchant's reserved bucket: principal left plus unused fee. */
export function lockedOf(w: Withdrawal): Minor {
  if (!isOpenStatus(w.status)) return 0n;
  return remainingOf(w) + w.feeTotalMinor - w.feeRecognizedMinor;
}

export function isOpenStatus(status: WithdrawalStatus): boolean {
  return status === 'pending_approval' || status === 'open' || status === 'partially_filled';
}

export function isFinalWithdrawalStatus(status: WithdrawalStatus): boolean {
  return !isOpenStatus(status);
}

export function evolve(state: Withdrawal | undefined, event: WithdrawalEvent): Withdrawal {
  if (event.type === 'WithdrawalCreated') {
    assert(state === undefined, 'WithdrawalCreated on an existing withdrawal');
    return {
      ...event.withdrawal, version: 0, status: event.withdrawal.requiresApproval ? 'pending_approval' : 'open',
      updatedAt: event.at, approvals: [], inFlight: {}, fills: [], feeRecognizedMinor: 0n, filledMinor: 0n,
      refundedMinor: 0n, settledSplits: 0,
    };
  }
  if (state === undefined) violated(`${event.type} before WithdrawalCreated`);
  const next = evolveExisting(state, event);
  // Tested first, messages built on failure only (see violated): this runs on every event.
  if (!(next.filledMinor >= 0n && next.filledMinor <= next.amountTotalMinor)) violated(`${state.id}: filled ${next.filledMinor} outside 0..amount`);
  if (!(next.feeRecognizedMinor >= 0n && next.feeRecognizedMinor <= next.feeTotalMinor)) violated(`${state.id}: fee recognised outside 0..fee`);
  if (!(inFlightOf(next) <= remainingOf(next) || !isOpenStatus(next.status))) violated(`${state.id}: in flight exceeds remaining`);
  if (!(isOpenStatus(state.status) || next.status === state.status)) violated(`${state.id} left final status ${state.status}`);
  // Speed: evolveExisting always returns a new object that nobody else has seen yet, so
  // the version and time are stamped on it instead of copying every field again.
  const stamped = next as { -readonly [K in 'version' | 'updatedAt']: Withdrawal[K] };
  stamped.version = state.version + 1;
  stamped.updatedAt = event.at;
  return next;
}

function closeWith<T extends Partial<Withdrawal>>(s: Withdrawal, status: WithdrawalStatus, extra: T): Withdrawal {
  return { ...s, status, refundedMinor: remainingOf(s), inFlight: {}, ...extra };
}

function evolveExisting(s: Withdrawal, e: Exclude<WithdrawalEvent, { type: 'WithdrawalCreated' }>): Withdrawal {
  switch (e.type) {
    case 'WithdrawalApprovalRecorded':
      return { ...s, approvals: [...s.approvals, e.operatorId], status: e.opens ? 'open' : s.status };
    case 'WithdrawalRejected':
      return closeWith(s, 'rejected', { rejection: { code: 'rejected_by_operator', displayTh: 'รายการถอนถูกปฏิเสธ', displayEn: 'The withdrawal was rejected.' } });
    case 'WithdrawalCanceled':
      return closeWith(s, 'canceled', { canceledBy: e.by, cancelReasonCode: e.reasonCode });
    case 'WithdrawalExpired':
      return closeWith(s, 'expired', {});
    case 'LegReserved':
      return { ...s, inFlight: { ...s.inFlight, [e.legRef]: e.amountMinor } };
    case 'LegReleased': {
      const { [e.legRef]: _released, ...rest } = s.inFlight;
      return { ...s, inFlight: rest };
    }
    case 'FillLanded': {
      assert(!s.fills.some((f) => f.legRef === e.fill.legRef), () => `${s.id}: fill ${e.fill.legRef} landed twice`);
      const { [e.fill.legRef]: _landed, ...rest } = s.inFlight;
      const filled = s.filledMinor + e.fill.amountMinor;
      return {
        ...s, inFlight: rest, fills: [...s.fills, e.fill], filledMinor: filled,
        feeRecognizedMinor: s.feeRecognizedMinor + e.fill.feeRecognizedMinor, settledSplits: s.settledSplits + 1,
        status: s.status === 'open' ? 'partially_filled' : s.status,
      };
    }
    case 'WithdrawalSettled':
      return { ...s, status: 'settled' };
    case 'FillReversed': {
      const fill = s.fills.find((f) => f.legRef === e.legRef);
      assert(fill && !fill.reversal, () => `${s.id}: reversing unknown or reversed fill ${e.legRef}`);
      return {
        ...s,
        fills: s.fills.map((f) => f.legRef === e.legRef ? { ...f, reversal: { at: e.at, reasonCode: e.reasonCode, balanceTransactionId: e.balanceTransactionId } } : f),
        filledMinor: s.filledMinor - fill.amountMinor, feeRecognizedMinor: s.feeRecognizedMinor - fill.feeRecognizedMinor,
      };
    }
    case 'ReceiptConfirmed':
      return { ...s, fills: s.fills.map((f) => f.legRef === e.legRef ? { ...f, receiptState: e.auto ? 'auto_confirmed' : 'confirmed' } : f) };
    case 'DisputeOpened':
      return { ...s, dispute: e.dispute };
    case 'DisputeEvidenceSubmitted':
      assert(s.dispute, 'evidence without a dispute');
      return { ...s, dispute: { ...s.dispute, evidenceCount: s.dispute.evidenceCount + 1 } };
    case 'DisputeResolved':
      assert(s.dispute, 'resolution without a dispute');
      return { ...s, dispute: { ...s.dispute, status: 'resolved', fundsOnHold: false, outcome: e.outcome } };
    default:
      return unreachable(e, 'withdrawal event');
  }
}
