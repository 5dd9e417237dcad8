// The deposit aggregate: its state, its events and evolve. A deposit order is one
// journal stream (its dep_ id). evolve is total and pure; every event bumps the object
// version by one. Invariants kept here and asserted in evolve: a final status is never
// left (settled → reversed aside); a settled snapshot satisfies 0 < A = min(V, X),
// 0 ≤ fee ≤ A, A − fee = credited, and V = A + E for a same-slip overpayment.

import { assert, unreachable } from '../assert.ts';
import type { FeeLine, Minor } from '../money.ts';

export type DepositStatus =
  | 'awaiting_liquidity' | 'awaiting_payment' | 'slip_processing' | 'under_review'
  | 'settled' | 'expired' | 'canceled' | 'rejected' | 'reversed';

export const depositStatuses: readonly DepositStatus[] = [
  'awaiting_liquidity', 'awaiting_payment', 'slip_processing', 'under_review',
  'settled', 'expired', 'canceled', 'rejected', 'reversed',
];

export type ReviewReasonCode =
  | 'AMOUNT_MISMATCH' | 'TIME_WINDOW' | 'SENDER_BANK_MISMATCH' | 'SENDER_ACCOUNT_MISMATCH'
  | 'SENDER_NAME_MISMATCH' | 'RECEIVER_MISMATCH' | 'BANK_DISABLED' | 'DUPLICATE_SLIP'
  | 'SLIP_INVALID' | 'AMBIGUOUS_MATCH' | 'PROVIDER_UNAVAILABLE' | 'SENDER_ACCOUNT_UNAVAILABLE'
  | 'LATE_SLIP' | 'CANCELED_ORDER_SLIP' | 'ALLOCATION_CONFLICT' | 'SETTLE_CONFLICT'
  | 'ROUTE_VERIFICATION_PENDING' | 'LATE_ROUTE_CONFIRMATION' | 'NO_SLIP_IMAGE' | 'RISK_HOLD';

export interface ReviewReason {
  readonly code: ReviewReasonCode;
  readonly detail?: Readonly<Record<string, unknown>>;
}

export interface Sender {
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly accountNameTh: string;
  readonly accountNameEn?: string;
}

export interface Receiver {
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly accountName: string;
}

/** Who is paid by a leg: a withdrawing merchant's order, or the external gateway route. */
export type Counterparty =
  | { readonly kind: 'withdrawal'; readonly withdrawalId: string; readonly merchantId: string; readonly payoutLegRef: string }
  | { readonly kind: 'gateway' };

export interface Leg {
  /** The depositing side's reference; the withdrawing side knows the leg by payoutLegRef. */
  readonly legRef: string;
  readonly sequence: number;
  readonly amountMinor: Minor;
  readonly expiresAt: number;
  readonly legStatus: 'pending' | 'complete';
  readonly method: string;
  readonly receiver: Receiver;
  readonly counterparty: Counterparty;
  /** V of this leg, once its slip is verified. */
  readonly verifiedAmountMinor?: Minor;
  /** The bank transfer that paid this leg, once verified (a re-upload of it is no new money). */
  readonly transRef?: string;
  /** Whether the withdrawing order still holds this leg's amount in flight. */
  readonly held: boolean;
}

export interface Verification {
  readonly amountExact: boolean;
  readonly withinTimeWindow: boolean;
  readonly senderBankMatch: boolean;
  readonly senderAccountMatch: boolean;
  readonly senderNameMatch: boolean;
  readonly receiverMatch: boolean;
}

export interface Review {
  readonly openedAt: number;
  readonly escalated: boolean;
  readonly fourEyesRequired: boolean;
  readonly reasons: readonly ReviewReason[];
  /** Operators who approved so far (four-eyes reviews need two different ones). */
  readonly approvals: readonly string[];
}

export interface Slip {
  readonly receiptId: string;
  readonly receivedAt: number;
  readonly isLate: boolean;
  readonly hasImage: boolean;
  /** The transfer the slip claims, once a provider or the uploader told us. */
  readonly transRef?: string;
  readonly transferredAmountMinor?: Minor;
  readonly legRef?: string;
  /** Set on a late slip: the closed status the order had when the slip came. */
  readonly lateFrom?: 'expired' | 'canceled';
}

export interface Settlement {
  readonly orderedMinor: Minor;      // X
  readonly transferredMinor: Minor;  // V
  readonly receivedMinor: Minor;     // A
  readonly feeTotalMinor: Minor;
  readonly creditedMinor: Minor;
  readonly feeBreakdown: readonly FeeLine[];
  readonly partial: boolean;
  readonly settledVia: 'auto' | 'review';
  readonly balanceTransactionId: string;
  readonly feeBalanceTransactionId: string;
  readonly settledAt: number;
  readonly clearingAvailableAt: number | null;
  readonly clearedAt?: number;
}

/** Where one leg's accepted money goes: the withdrawal it fills, or the gateway. */
export interface LegFill {
  readonly legRef: string;
  readonly counterparty: Counterparty;
  readonly amountMinor: Minor;
}

export interface Overpayment {
  readonly claimId: string;
  readonly cause: 'same_transfer_excess' | 'additional_transfer';
  readonly amountMinor: Minor;
  readonly slipReceivedAt: number;
}

/**
 * The gateway (fallback route) told us it received the end user's transfer after the
 * order closed: money that arrived with no slip, held for a reviewer.
 */
export interface RouteConfirmation {
  readonly transRef: string;
  readonly amountMinor: Minor;
  readonly legRef: string;
  readonly confirmedAt: number;
}

export interface Liquidity {
  readonly waitStartedAt: number;
  readonly estimatedWaitMs: number;
  readonly retryIntervalMs: number;
  readonly suggestedAmountsMinor: readonly Minor[];
}

export type CanceledBy = 'merchant' | 'end_user' | 'system';
export type CancelReasonCode = 'no_liquidity_available' | 'merchant_request' | 'end_user_request' | 'approval_ttl_expired';
export type ReversalReasonCode =
  | 'BANK_RECALL' | 'ACCOUNT_FROZEN' | 'SLIP_INVALIDATED_AFTER_SETTLEMENT' | 'DUPLICATE_CREDIT'
  | 'OPS_ERROR' | 'MERCHANT_DISPUTE_LOST';
export const reversalReasonCodes: readonly ReversalReasonCode[] = [
  'BANK_RECALL', 'ACCOUNT_FROZEN', 'SLIP_INVALIDATED_AFTER_SETTLEMENT', 'DUPLICATE_CREDIT', 'OPS_ERROR', 'MERCHANT_DISPUTE_LOST',
];

export interface Deposit {
  readonly id: string;
  readonly merchantId: string;
  readonly whiteLabelId: string;
  readonly livemode: boolean;
  readonly version: number;
  readonly status: DepositStatus;
  readonly isTerminal: boolean;
  readonly merchantReference: string;
  readonly endUserRef: string;
  readonly amountMinor: Minor;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly expiresAt: number;
  readonly lifetimeMs: number;
  readonly sender: Sender;
  readonly senderId?: string;
  readonly hasClientData: boolean;
  readonly fillPreference: 'any' | 'internal_only';
  readonly liquiditySource?: 'internal' | 'external_gateway';
  readonly legs: readonly Leg[];
  readonly liquidity?: Liquidity;
  readonly uploads: number;
  readonly slip?: Slip;
  /** A slip uploaded after settlement: a possible additional transfer. */
  readonly additionalSlip?: Slip;
  readonly verification?: Verification;
  readonly review?: Review;
  readonly lateSlipAcceptedUntil?: number | null;
  readonly expiredReason?: 'no_payment';
  readonly canceledBy?: CanceledBy;
  readonly cancelReasonCode?: CancelReasonCode;
  /** A reviewer's decline, or the last unreadable slip (code SLIP_UNREADABLE, retryable). */
  readonly rejection?: { readonly code: string; readonly displayTh: string; readonly displayEn: string };
  readonly settlement?: Settlement;
  readonly overpayment?: Overpayment;
  readonly routeConfirmation?: RouteConfirmation;
  readonly reversal?: { readonly reasonCode: ReversalReasonCode; readonly reversesBalanceTransactionId: string; readonly balanceTransactionId: string };
  readonly metadata?: Readonly<Record<string, string>>;
  readonly returnUrl?: string;
  readonly attemptsLeft: number;
}

// ---- events: past tense, each carrying only what evolve needs ----

export type DepositEvent =
  | { readonly type: 'DepositCreated'; readonly at: number; readonly deposit: Omit<Deposit, 'version' | 'status' | 'isTerminal' | 'legs' | 'uploads' | 'updatedAt' | 'attemptsLeft'> }
  | { readonly type: 'DepositAwaitingLiquidity'; readonly at: number; readonly liquidity: Liquidity }
  | { readonly type: 'DepositMatched'; readonly at: number; readonly legs: readonly Leg[]; readonly source: 'internal' | 'external_gateway'; readonly expiresAt: number }
  | { readonly type: 'SlipReceived'; readonly at: number; readonly slip: Slip }
  | { readonly type: 'SlipRejected'; readonly at: number; readonly attemptsLeft: number; readonly timeRemains: boolean }
  | { readonly type: 'LegCompleted'; readonly at: number; readonly legRef: string; readonly verifiedAmountMinor: Minor; readonly verification: Verification; readonly transRef?: string }
  | { readonly type: 'LegsReleased'; readonly at: number; readonly legRefs: readonly string[] }
  | { readonly type: 'DepositUnderReview'; readonly at: number; readonly reasons: readonly ReviewReason[]; readonly fourEyesRequired: boolean; readonly verification?: Verification; readonly transferredAmountMinor?: Minor; readonly transRef?: string; readonly legRef?: string; readonly routeConfirmation?: RouteConfirmation }
  | { readonly type: 'ReviewEscalated'; readonly at: number }
  | { readonly type: 'ReviewApprovalRecorded'; readonly at: number; readonly operatorId: string }
  | { readonly type: 'AdditionalSlipReceived'; readonly at: number; readonly slip: Slip }
  | { readonly type: 'DepositSettled'; readonly at: number; readonly settlement: Settlement; readonly verification?: Verification; readonly overpayment?: Overpayment; readonly fills: readonly LegFill[]; readonly suspenseMinor: Minor; readonly transRef?: string }
  | { readonly type: 'DepositRejected'; readonly at: number; readonly code: string; readonly displayTh: string; readonly displayEn: string }
  | { readonly type: 'DepositExpired'; readonly at: number; readonly lateSlipAcceptedUntil: number | null }
  | { readonly type: 'DepositCanceled'; readonly at: number; readonly by: CanceledBy; readonly reasonCode: CancelReasonCode; readonly lateSlipAcceptedUntil: number | null }
  | { readonly type: 'LateSlipWindowClosed'; readonly at: number }
  | { readonly type: 'DepositCleared'; readonly at: number }
  | { readonly type: 'DepositReversed'; readonly at: number; readonly reasonCode: ReversalReasonCode; readonly reversesBalanceTransactionId: string; readonly balanceTransactionId: string }
  | { readonly type: 'DepositOverpaid'; readonly at: number; readonly overpayment: Overpayment };

export type DepositEventType = DepositEvent['type'];

/** Statuses that are never left (settled may only move to reversed). */
export function isFinalStatus(status: DepositStatus): boolean {
  return status === 'settled' || status === 'rejected' || status === 'reversed';
}

/** Orders that still count against the end user's cap of open unpaid deposits. */
export function isOpenUnpaid(d: Deposit): boolean {
  return d.status === 'awaiting_liquidity' || d.status === 'awaiting_payment';
}

/** The state without one optional key (a rest copy is costly, so only when the key is there). */
function without(s: Deposit, key: 'liquidity' | 'rejection'): Deposit {
  if (key === 'liquidity') { const { liquidity: _dropped, ...rest } = s; return rest; }
  const { rejection: _cleared, ...rest } = s;
  return rest;
}

/** The legs after an update; the same array when no leg changed (states are immutable). */
function withLegs(legs: readonly Leg[], update: (leg: Leg) => Leg): readonly Leg[] {
  let out: Leg[] | undefined;
  for (let i = 0; i < legs.length; i++) {
    const leg = legs[i]!;
    const next = update(leg);
    if (next !== leg && !out) out = legs.slice(0, i);
    if (out) out.push(next);
  }
  return out ?? legs;
}

/** The leg released from its withdrawal (itself if it already was). */
function unheld(l: Leg): Leg {
  return l.held ? { ...l, held: false } : l;
}

/** The slip with what verification learned about it (the transfer it shows, the leg it paid). */
function slipWith(slip: Slip | undefined, learned: { transRef?: string; legRef?: string; transferredAmountMinor?: Minor }): { slip?: Slip } {
  if (!slip) return {};
  return {
    slip: {
      ...slip,
      ...(learned.transRef !== undefined ? { transRef: learned.transRef } : {}),
      ...(learned.legRef !== undefined ? { legRef: learned.legRef } : {}),
      ...(learned.transferredAmountMinor !== undefined ? { transferredAmountMinor: learned.transferredAmountMinor } : {}),
    },
  };
}

export function evolve(state: Deposit | undefined, event: DepositEvent): Deposit {
  if (event.type === 'DepositCreated') {
    assert(state === undefined, 'DepositCreated on an existing deposit');
    return {
      ...event.deposit, version: 0, status: 'awaiting_liquidity', isTerminal: false, legs: [], uploads: 0,
      updatedAt: event.at, attemptsLeft: 3,
    };
  }
  assert(state !== undefined, () => `${event.type} before DepositCreated`);
  const next = evolveExisting(state, event);
  assert(!isFinalStatus(state.status) || next.status === state.status || (state.status === 'settled' && next.status === 'reversed'),
    `deposit ${state.id} left final status ${state.status} for ${next.status}`);
  // Speed: evolveExisting always returns a new object that nobody else has seen yet, so
  // the version and time are stamped on it instead of copying some forty fields again.
  const stamped = next as Stampable;
  stamped.version = state.version + 1;
  stamped.updatedAt = event.at;
  if (next.status === 'settled' && next.settlement) checkSettlement(next);
  return next;
}

type Stampable = { -readonly [K in 'version' | 'updatedAt']: Deposit[K] };

function evolveExisting(s: Deposit, e: Exclude<DepositEvent, { type: 'DepositCreated' }>): Deposit {
  switch (e.type) {
    case 'DepositAwaitingLiquidity':
      return { ...s, status: 'awaiting_liquidity', liquidity: e.liquidity };
    case 'DepositMatched': {
      const rest = 'liquidity' in s ? without(s, 'liquidity') : s;
      return { ...rest, status: 'awaiting_payment', legs: e.legs, liquiditySource: e.source, expiresAt: e.expiresAt };
    }
    case 'SlipReceived': {
      const rest = 'rejection' in s ? without(s, 'rejection') : s;
      return { ...rest, status: 'slip_processing', slip: e.slip, uploads: s.uploads + 1, isTerminal: false };
    }
    case 'AdditionalSlipReceived':
      return { ...s, additionalSlip: e.slip, uploads: s.uploads + 1 };
    case 'SlipRejected':
      return {
        ...s, status: e.timeRemains ? 'awaiting_payment' : s.status, attemptsLeft: e.attemptsLeft,
        rejection: { code: 'SLIP_UNREADABLE', displayTh: 'อ่านสลิปไม่ได้ กรุณาอัปโหลดใหม่', displayEn: 'The slip could not be read; please upload it again.' },
      };
    case 'LegCompleted':
      return {
        ...s, status: 'awaiting_payment', verification: e.verification, ...slipWith(s.slip, { transRef: e.transRef, legRef: e.legRef }),
        legs: withLegs(s.legs, (l) => l.legRef === e.legRef
          ? { ...l, legStatus: 'complete', verifiedAmountMinor: e.verifiedAmountMinor, ...(e.transRef !== undefined ? { transRef: e.transRef } : {}) } : l),
      };
    case 'LegsReleased':
      return { ...s, legs: withLegs(s.legs, (l) => e.legRefs.includes(l.legRef) ? unheld(l) : l) };
    case 'DepositUnderReview':
      return {
        ...s, status: 'under_review',
        review: { openedAt: e.at, escalated: false, fourEyesRequired: e.fourEyesRequired, reasons: e.reasons, approvals: [] },
        ...(e.verification ? { verification: e.verification } : {}),
        ...(e.routeConfirmation ? { routeConfirmation: e.routeConfirmation } : {}),
        ...slipWith(s.slip, { transRef: e.transRef, legRef: e.legRef, transferredAmountMinor: e.transferredAmountMinor }),
      };
    case 'ReviewEscalated':
      assert(s.review, 'escalation without a review');
      return { ...s, review: { ...s.review, escalated: true } };
    case 'ReviewApprovalRecorded':
      assert(s.review, 'approval without a review');
      return { ...s, review: { ...s.review, approvals: [...s.review.approvals, e.operatorId] } };
    case 'DepositSettled': {
      const filled = new Set(e.fills.map((f) => f.legRef));
      const legs = withLegs(s.legs, (l) => filled.has(l.legRef) && l.legStatus !== 'complete' ? { ...l, legStatus: 'complete', held: false } : unheld(l));
      return {
        ...s, status: 'settled', isTerminal: false, settlement: e.settlement, legs, ...slipWith(s.slip, { transRef: e.transRef }),
        ...(e.verification ? { verification: e.verification } : {}),
        ...(e.overpayment ? { overpayment: e.overpayment } : {}),
      };
    }
    case 'DepositRejected':
      return { ...s, status: 'rejected', isTerminal: true, rejection: { code: e.code, displayTh: e.displayTh, displayEn: e.displayEn } };
    case 'DepositExpired':
      return {
        ...s, status: 'expired', expiredReason: 'no_payment', lateSlipAcceptedUntil: e.lateSlipAcceptedUntil,
        isTerminal: e.lateSlipAcceptedUntil === null, legs: withLegs(s.legs, unheld),
      };
    case 'DepositCanceled':
      return {
        ...s, status: 'canceled', canceledBy: e.by, cancelReasonCode: e.reasonCode, lateSlipAcceptedUntil: e.lateSlipAcceptedUntil,
        isTerminal: e.lateSlipAcceptedUntil === null, legs: withLegs(s.legs, unheld),
      };
    case 'LateSlipWindowClosed':
      return { ...s, isTerminal: true };
    case 'DepositCleared':
      assert(s.settlement, 'clearing without a settlement');
      return { ...s, settlement: { ...s.settlement, clearedAt: e.at } };
    case 'DepositReversed':
      assert(s.settlement, 'reversal without a settlement');
      return {
        ...s, status: 'reversed', isTerminal: true,
        settlement: { ...s.settlement, clearingAvailableAt: null },
        reversal: { reasonCode: e.reasonCode, reversesBalanceTransactionId: e.reversesBalanceTransactionId, balanceTransactionId: e.balanceTransactionId },
      };
    case 'DepositOverpaid':
      return { ...s, overpayment: s.overpayment ?? e.overpayment };
    default:
      return unreachable(e, 'deposit event');
  }
}

/** The X/V/A/E invariants of the contract, on every settled snapshot. */
export function checkSettlement(d: Deposit): void {
  const st = d.settlement;
  assert(st, () => `settled deposit ${d.id} has no settlement`);
  const { orderedMinor: X, transferredMinor: V, receivedMinor: A, feeTotalMinor: fee, creditedMinor } = st;
  assert(X === d.amountMinor, () => `${d.id}: X ${X} is not the ordered amount ${d.amountMinor}`);
  assert(A > 0n && A === (V < X ? V : X), () => `${d.id}: A ${A} is not min(V ${V}, X ${X})`);
  assert(fee >= 0n && fee <= A, () => `${d.id}: fee ${fee} outside 0..A ${A}`);
  assert(A - fee === creditedMinor, () => `${d.id}: A − fee ≠ credited`);
  assert(st.partial === (V < X), () => `${d.id}: partial flag ${st.partial} disagrees with V ${V} < X ${X}`);
  if (d.overpayment?.cause === 'same_transfer_excess') {
    assert(A === X && V === A + d.overpayment.amountMinor, () => `${d.id}: same-slip overpayment breaks V = A + E`);
  }
}
