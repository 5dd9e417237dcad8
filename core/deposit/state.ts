// The deposit aggregate: its state, its events and evolve. A deposit order is one
// journal stream (its dep_ id). evolve is total and pure; every event bumps the object
// version by one. Invariants kept here and asserted in evolve: a final status is never
// left (settled → reversed aside); a settled snapshot satisfies 0 < A = min(V, X),
// 0 ≤ fee ≤ A, A − fee = credited, and V = A + E for a same-slip overpayment.

import { assert, unreachable, violated } from '../assert.ts';
import { limits } from '../limits.ts';
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

/**
 * Who is paid by a leg: a withdrawing merchant's order, the external gateway route, or
 * (sandbox only) the simulated counterparty that gives a sandbox deposit legs at once.
 */
export type Counterparty =
  | { readonly kind: 'withdrawal'; readonly withdrawalId: string; readonly merchantId: string; readonly payoutLegRef: string }
  | { readonly kind: 'gateway' }
  | { readonly kind: 'simulated' };

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
  /**
   * What a review's settlement credited to this leg when no transfer to it had been seen (a
   * reviewer found it paid without its slip): the first transfer to this leg seen after that,
   * if it was made by then, is this money, not more (AdditionalTransferMatched).
   */
  readonly reviewCreditedMinor?: Minor;
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
  /** Still open reviewExtendedAfterMs after it opened: the contract's 'extended' estimate. */
  readonly extended: boolean;
  readonly fourEyesRequired: boolean;
  readonly reasons: readonly ReviewReason[];
  /** Operators who approved so far (four-eyes reviews need two different ones). */
  readonly approvals: readonly string[];
  /** What the approvals so far say each leg received; a second approval must agree with it. */
  readonly approvedAmounts: readonly LegAmount[] | undefined;
}

/** What one destination (leg) received, as a reviewer states it (0: nothing arrived). */
export interface LegAmount {
  readonly legRef: string;
  readonly amountMinor: Minor;
}

/** Who decided a review and why (kept on the deciding event for the back office's timeline; evolve ignores it). */
export interface ReviewDecision {
  readonly operatorId: string;
  readonly note: string;
  /** An approval's finding: what each leg still waiting received (absent on declines, and in journals from before it was kept). */
  readonly received?: readonly LegAmount[];
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
  /** The slip that showed it (absent on journals written before it was kept). */
  readonly receiptId?: string;
  /** The bank transfer it is, for an additional transfer (absent before it was kept): counted once. */
  readonly transRef?: string;
  /** Who the slip showed sending an additional transfer (bank, the account as shown, the name): perhaps not the order's sender. */
  readonly sender?: TransferSender;
}

/** A transfer's sender as a slip showed it: the account number may be masked. */
export interface TransferSender {
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly name: string;
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
  /** The operator who posted it (absent in events from before it was kept): not the one who approves its review. */
  readonly confirmedBy?: string;
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
  /** The order's journal stream position: one more with every entry (the object's own version is objectVersion). */
  readonly version: number;
  /** Entries that changed nothing the merchant's deposit_order shows (events marked silent): the object's version did not move. */
  readonly silentChanges?: number;
  readonly status: DepositStatus;
  readonly isTerminal: boolean;
  readonly merchantReference: string;
  readonly endUserRef: string;
  readonly amountMinor: Minor;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly expiresAt: number;
  readonly lifetimeMs: number;
  /**
   * min_ttl_seconds, in ms (absent: none asked, and in journals from before it was kept): no
   * route that would leave the end user less time than this to pay is offered to the order.
   */
  readonly minTtlMs?: number;
  readonly sender: Sender;
  readonly senderId?: string;
  readonly hasClientData: boolean;
  readonly fillPreference: 'any' | 'internal_only';
  readonly liquiditySource?: 'internal' | 'external_gateway';
  readonly legs: readonly Leg[];
  readonly liquidity?: Liquidity;
  readonly uploads: number;
  readonly slip?: Slip;
  /**
   * Slips claimed while another was being verified or reviewed, oldest first (undefined
   * when none): evidence of money taken with a 202 and verified, in order, when its turn
   * comes (see SlipDequeued).
   */
  readonly queuedSlips?: readonly Slip[];
  /** A slip uploaded after settlement: a possible additional transfer. */
  readonly additionalSlip?: Slip;
  /**
   * The transfers after settlement this order has counted (matched to a review's credit, or
   * an overpayment it opened a claim for), by trans_ref: each counts once, here and on any
   * other order (the duplicate-slip registry holds them too).
   */
  readonly countedTransRefs?: readonly string[];
  readonly verification?: Verification;
  readonly review?: Review;
  readonly lateSlipAcceptedUntil?: number | null;
  readonly expiredReason?: 'no_payment';
  readonly canceledBy?: CanceledBy;
  readonly cancelReasonCode?: CancelReasonCode;
  /** A reviewer's decline, or the last unreadable slip (code SLIP_UNREADABLE, retryable). */
  /**
   * `retryable`: set by an unreadable slip that closes the order (SlipRejected with time up),
   * for the snapshot between the rejection and the close, which cannot tell by its status.
   */
  readonly rejection?: { readonly code: string; readonly displayTh: string; readonly displayEn: string; readonly retryable: boolean | undefined };
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
  | { readonly type: 'SlipQueued'; readonly at: number; readonly slip: Slip; readonly silent?: true }
  /** The oldest queued slip takes its turn: verified as the order's slip, or as a transfer after settlement. */
  | { readonly type: 'SlipDequeued'; readonly at: number; readonly slip: Slip; readonly afterSettlement: boolean; readonly silent?: true }
  /**
   * `retryable`, when time is up: whether the order the rejection closes takes another upload
   * (uploads left and a late window to take them in; not when it settles short instead).
   * Absent from journals written before it: their interim snapshot said false.
   */
  | { readonly type: 'SlipRejected'; readonly at: number; readonly attemptsLeft: number; readonly timeRemains: boolean; readonly retryable?: boolean }
  /**
   * `holdMinor`: a leg its order had released (a late slip) held again on its withdrawal for
   * the money it brought, so that no other payer is sent to pay that payee for it;
   * `owedMinor`: that money (at most the leg's share) when the withdrawal's capacity held
   * less — the withdrawal tops the hold up as capacity frees.
   */
  | { readonly type: 'LegCompleted'; readonly at: number; readonly legRef: string; readonly verifiedAmountMinor: Minor; readonly verification: Verification; readonly transRef?: string; readonly holdMinor?: Minor; readonly owedMinor?: Minor }
  | { readonly type: 'LegsReleased'; readonly at: number; readonly legRefs: readonly string[]; readonly silent?: true }
  /** A transfer after settlement to a leg a review credited without one: that credit's money (any excess is a DepositOverpaid after it). */
  | { readonly type: 'AdditionalTransferMatched'; readonly at: number; readonly legRef: string; readonly transRef: string; readonly amountMinor: Minor; readonly creditedMinor: Minor; readonly receiptId: string; readonly silent?: true }
  /**
   * `holdMinor`, `owedMinor`: a late slip's transfer reached `legRef`'s account, held again
   * for it as a live review holds its legs (see LegCompleted). `legRef` may name a leg
   * already verified: a second transfer to its account (paid again), which an approval adds
   * to that leg's money and whose hold it raises.
   */
  | { readonly type: 'DepositUnderReview'; readonly at: number; readonly reasons: readonly ReviewReason[]; readonly fourEyesRequired: boolean; readonly verification?: Verification; readonly transferredAmountMinor?: Minor; readonly transRef?: string; readonly legRef?: string; readonly routeConfirmation?: RouteConfirmation; readonly holdMinor?: Minor; readonly owedMinor?: Minor }
  | { readonly type: 'ReviewEscalated'; readonly at: number }
  | { readonly type: 'ReviewExtended'; readonly at: number }
  /**
   * A first approval of a four-eyes review. `received`: what it says each leg received
   * (absent in journals from before it was kept); `restarted`: it disagreed with the
   * approval before it, which it replaces, so the review needs another approver again.
   */
  | { readonly type: 'ReviewApprovalRecorded'; readonly at: number; readonly operatorId: string; readonly note?: string; readonly received?: readonly LegAmount[]; readonly restarted?: true }
  | { readonly type: 'AdditionalSlipReceived'; readonly at: number; readonly slip: Slip; readonly silent?: true }
  | { readonly type: 'DepositSettled'; readonly at: number; readonly settlement: Settlement; readonly verification?: Verification; readonly overpayment?: Overpayment; readonly fills: readonly LegFill[]; readonly suspenseMinor: Minor; readonly transRef?: string; readonly decision?: ReviewDecision; readonly unseenCredits?: readonly LegAmount[] }
  | { readonly type: 'DepositRejected'; readonly at: number; readonly code: string; readonly displayTh: string; readonly displayEn: string; readonly decision?: ReviewDecision }
  | { readonly type: 'DepositExpired'; readonly at: number; readonly lateSlipAcceptedUntil: number | null }
  | { readonly type: 'DepositCanceled'; readonly at: number; readonly by: CanceledBy; readonly reasonCode: CancelReasonCode; readonly lateSlipAcceptedUntil: number | null }
  | { readonly type: 'LateSlipWindowClosed'; readonly at: number }
  | { readonly type: 'DepositCleared'; readonly at: number; readonly silent?: true }
  | { readonly type: 'DepositReversed'; readonly at: number; readonly reasonCode: ReversalReasonCode; readonly reversesBalanceTransactionId: string; readonly balanceTransactionId: string; readonly decision?: ReviewDecision }
  | { readonly type: 'DepositOverpaid'; readonly at: number; readonly overpayment: Overpayment };

export type DepositEventType = DepositEvent['type'];

/**
 * Whether the event changes nothing the merchant's deposit_order shows: a slip queued
 * behind another or recorded after settlement (told when verified), a transfer after
 * settlement that evidences a review's credit, legs released from their withdrawals (not
 * shown), the clearing (told by balance.cleared; the order shows clearing_available_at
 * from the start). Such an event is journaled marked `silent` (TxState.emitDeposit) and
 * leaves the object's version where it was: the contract's version moves on every change
 * the merchant can see, each told by an event (outbox.ts). Journals written before the
 * mark moved the version for them, and keep doing so on replay (no version goes back).
 */
export function changesNothingShown(e: DepositEvent): boolean {
  switch (e.type) {
    case 'SlipQueued': case 'AdditionalSlipReceived': case 'AdditionalTransferMatched': case 'LegsReleased': case 'DepositCleared': return true;
    case 'SlipDequeued': return e.afterSettlement;
    default: return false;
  }
}

/** The deposit_order's version (contract: increases on every change, no two events share one): the journal's entries less the silent ones. */
export function objectVersion(d: Pick<Deposit, 'version' | 'silentChanges'>): number {
  return d.version - (d.silentChanges ?? 0);
}

/** Statuses that are never left (settled may only move to reversed). */
export function isFinalStatus(status: DepositStatus): boolean {
  return status === 'settled' || status === 'rejected' || status === 'reversed';
}

/** Orders that still count against the end user's cap of open unpaid deposits. */
export function isOpenUnpaid(d: Deposit): boolean {
  return d.status === 'awaiting_liquidity' || d.status === 'awaiting_payment';
}

// ---- evolve ----
//
// Speed: states are copied field by field, never with object spread. On this V8 a spread
// of a forty-field object costs some 400 ns and a kilobyte of garbage; the literal below
// costs a twentieth of that. Every copy lists every key (Complete<T> makes a forgotten
// one a type error), so all states share one shape; a cleared optional field is present
// with the value undefined, which the journal encoding and the presenters both skip.

/** T with every key present (optional ones may hold undefined) and writable. */
type Complete<T> = { -readonly [K in keyof Required<T>]: T[K] };

function copy(s: Deposit): Complete<Deposit> {
  return {
    id: s.id, merchantId: s.merchantId, whiteLabelId: s.whiteLabelId, livemode: s.livemode, version: s.version, silentChanges: s.silentChanges, status: s.status,
    isTerminal: s.isTerminal, merchantReference: s.merchantReference, endUserRef: s.endUserRef, amountMinor: s.amountMinor,
    createdAt: s.createdAt, updatedAt: s.updatedAt, expiresAt: s.expiresAt, lifetimeMs: s.lifetimeMs, minTtlMs: s.minTtlMs, sender: s.sender,
    senderId: s.senderId, hasClientData: s.hasClientData, fillPreference: s.fillPreference, liquiditySource: s.liquiditySource,
    legs: s.legs, liquidity: s.liquidity, uploads: s.uploads, slip: s.slip, queuedSlips: s.queuedSlips, additionalSlip: s.additionalSlip, countedTransRefs: s.countedTransRefs,
    verification: s.verification, review: s.review, lateSlipAcceptedUntil: s.lateSlipAcceptedUntil, expiredReason: s.expiredReason,
    canceledBy: s.canceledBy, cancelReasonCode: s.cancelReasonCode, rejection: s.rejection, settlement: s.settlement,
    overpayment: s.overpayment, routeConfirmation: s.routeConfirmation, reversal: s.reversal, metadata: s.metadata,
    returnUrl: s.returnUrl, attemptsLeft: s.attemptsLeft,
  };
}

function created(e: Extract<DepositEvent, { type: 'DepositCreated' }>): Complete<Deposit> {
  const d = e.deposit;
  return {
    id: d.id, merchantId: d.merchantId, whiteLabelId: d.whiteLabelId, livemode: d.livemode, version: 0, silentChanges: undefined, status: 'awaiting_liquidity',
    isTerminal: false, merchantReference: d.merchantReference, endUserRef: d.endUserRef, amountMinor: d.amountMinor,
    createdAt: d.createdAt, updatedAt: e.at, expiresAt: d.expiresAt, lifetimeMs: d.lifetimeMs, minTtlMs: d.minTtlMs, sender: d.sender,
    senderId: d.senderId, hasClientData: d.hasClientData, fillPreference: d.fillPreference, liquiditySource: d.liquiditySource,
    legs: [], liquidity: d.liquidity, uploads: 0, slip: d.slip, queuedSlips: d.queuedSlips, additionalSlip: d.additionalSlip, countedTransRefs: d.countedTransRefs,
    verification: d.verification, review: d.review, lateSlipAcceptedUntil: d.lateSlipAcceptedUntil, expiredReason: d.expiredReason,
    canceledBy: d.canceledBy, cancelReasonCode: d.cancelReasonCode, rejection: d.rejection, settlement: d.settlement,
    overpayment: d.overpayment, routeConfirmation: d.routeConfirmation, reversal: d.reversal, metadata: d.metadata,
    returnUrl: d.returnUrl, attemptsLeft: limits.slipUploadsPerDepositMax,
  };
}

function copyLeg(l: Leg): Complete<Leg> {
  return {
    legRef: l.legRef, sequence: l.sequence, amountMinor: l.amountMinor, expiresAt: l.expiresAt, legStatus: l.legStatus, method: l.method,
    receiver: l.receiver, counterparty: l.counterparty, verifiedAmountMinor: l.verifiedAmountMinor, transRef: l.transRef,
    reviewCreditedMinor: l.reviewCreditedMinor, held: l.held,
  };
}

function copySettlement(st: Settlement): Complete<Settlement> {
  return {
    orderedMinor: st.orderedMinor, transferredMinor: st.transferredMinor, receivedMinor: st.receivedMinor, feeTotalMinor: st.feeTotalMinor,
    creditedMinor: st.creditedMinor, feeBreakdown: st.feeBreakdown, partial: st.partial, settledVia: st.settledVia,
    balanceTransactionId: st.balanceTransactionId, feeBalanceTransactionId: st.feeBalanceTransactionId, settledAt: st.settledAt,
    clearingAvailableAt: st.clearingAvailableAt, clearedAt: st.clearedAt,
  };
}

function copyReview(r: Review): Complete<Review> {
  // extended: absent from snapshots written before it existed.
  return { openedAt: r.openedAt, escalated: r.escalated, extended: r.extended === true, fourEyesRequired: r.fourEyesRequired, reasons: r.reasons, approvals: r.approvals, approvedAmounts: r.approvedAmounts };
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
  if (!l.held) return l;
  const n = copyLeg(l);
  n.held = false;
  return n;
}

/** The leg held on its withdrawal again (itself if it still was). */
function heldAgain(l: Leg): Leg {
  if (l.held) return l;
  const n = copyLeg(l);
  n.held = true;
  return n;
}

/**
 * The legs as the order closes: released. A late slip's return to closed (its image
 * unreadable) releases nothing: the order let its legs go when it first closed, and those
 * its late slips paid since are held for their money until it settles.
 */
function closedLegs(s: Deposit): readonly Leg[] {
  return s.status === 'slip_processing' && s.slip?.isLate ? s.legs : withLegs(s.legs, unheld);
}

/** The slip with what verification learned about it (the transfer it shows, the leg it paid). */
function slipWith(slip: Slip | undefined, transRef: string | undefined, legRef?: string, transferredAmountMinor?: Minor): Slip | undefined {
  if (!slip) return undefined;
  return {
    receiptId: slip.receiptId, receivedAt: slip.receivedAt, isLate: slip.isLate, hasImage: slip.hasImage,
    transRef: transRef ?? slip.transRef, transferredAmountMinor: transferredAmountMinor ?? slip.transferredAmountMinor,
    legRef: legRef ?? slip.legRef, lateFrom: slip.lateFrom,
  } satisfies Complete<Slip>;
}

export function evolve(state: Deposit | undefined, event: DepositEvent): Deposit {
  if (event.type === 'DepositCreated') {
    if (state !== undefined) violated('DepositCreated on an existing deposit');
    return created(event);
  }
  if (state === undefined) violated(`${event.type} before DepositCreated`);
  return evolveOnto(copy(state), event);
}


function evolveOnto(n: Complete<Deposit>, event: Exclude<DepositEvent, { type: 'DepositCreated' }>): Deposit {
  const from = n.status;
  n.version += 1;
  if ('silent' in event && event.silent) n.silentChanges = (n.silentChanges ?? 0) + 1;
  n.updatedAt = event.at;
  evolveInto(n, n, event);
  if (isFinalStatus(from) && n.status !== from && !(from === 'settled' && n.status === 'reversed')) {
    violated(`deposit ${n.id} left final status ${from} for ${n.status}`);
  }
  if (n.status === 'settled' && n.settlement) checkSettlement(n);
  checkLegs(n);
  return n;
}

/** An order's legs, once it has any, split exactly its amount. */
function checkLegs(d: Deposit): void {
  if (d.legs.length === 0) return;
  let total = 0n;
  for (let i = 0; i < d.legs.length; i++) total += d.legs[i]!.amountMinor;
  if (total !== d.amountMinor) violated(`${d.id}: legs sum to ${total}, not the order's ${d.amountMinor}`);
}

/**
 * Writes the event's change onto `n`, a fresh copy of `s` that nobody else has seen (or
 * `s` itself: every case reads what it needs from `s` before it writes that field).
 */
function evolveInto(n: Complete<Deposit>, s: Deposit, e: Exclude<DepositEvent, { type: 'DepositCreated' }>): void {
  switch (e.type) {
    case 'DepositAwaitingLiquidity':
      n.status = 'awaiting_liquidity';
      n.liquidity = e.liquidity;
      return;
    case 'DepositMatched':
      n.liquidity = undefined;
      n.status = 'awaiting_payment';
      n.legs = e.legs;
      n.liquiditySource = e.source;
      n.expiresAt = e.expiresAt;
      return;
    case 'LegsReleased':
      n.legs = withLegs(s.legs, (l) => (e.legRefs.includes(l.legRef) ? unheld(l) : l));
      return;
    case 'SlipReceived': case 'AdditionalSlipReceived': case 'SlipQueued': case 'SlipDequeued': case 'SlipRejected': case 'LegCompleted':
    case 'AdditionalTransferMatched':
      return evolveSlip(n, s, e);
    case 'DepositUnderReview': case 'ReviewEscalated': case 'ReviewExtended': case 'ReviewApprovalRecorded':
      return evolveReview(n, s, e);
    default:
      return evolveOutcome(n, s, e);
  }
}

type SlipEvent = Extract<DepositEvent, { type: 'SlipReceived' | 'AdditionalSlipReceived' | 'SlipQueued' | 'SlipDequeued' | 'SlipRejected' | 'LegCompleted' | 'AdditionalTransferMatched' }>;
type ReviewEvent = Extract<DepositEvent, { type: 'DepositUnderReview' | 'ReviewEscalated' | 'ReviewExtended' | 'ReviewApprovalRecorded' }>;
type OutcomeEvent = Exclude<DepositEvent, { type: 'DepositCreated' | 'DepositAwaitingLiquidity' | 'DepositMatched' | 'LegsReleased' } | SlipEvent | ReviewEvent>;

/** Slips arriving, queued, taking their turn, rejected, or completing a leg. */
function evolveSlip(n: Complete<Deposit>, s: Deposit, e: SlipEvent): void {
  switch (e.type) {
    case 'SlipReceived':
      n.rejection = undefined;
      n.status = 'slip_processing';
      n.slip = e.slip;
      n.uploads = s.uploads + 1;
      n.isTerminal = false;
      return;
    case 'AdditionalSlipReceived':
      n.additionalSlip = e.slip;
      n.uploads = s.uploads + 1;
      return;
    case 'AdditionalTransferMatched': {
      // The transfer uses up as much of the credit as it brings; the rest waits for another.
      const left = e.creditedMinor > e.amountMinor ? e.creditedMinor - e.amountMinor : 0n;
      n.legs = withLegs(s.legs, (l) => {
        if (l.legRef !== e.legRef) return l;
        const leg = copyLeg(l);
        leg.reviewCreditedMinor = left > 0n ? left : undefined;
        return leg;
      });
      n.countedTransRefs = [...(s.countedTransRefs ?? []), e.transRef];
      return;
    }
    case 'SlipQueued':
      n.queuedSlips = [...(s.queuedSlips ?? []), e.slip];
      n.uploads = s.uploads + 1;
      return;
    case 'SlipDequeued': {
      const queue = s.queuedSlips ?? [];
      if (queue[0]?.receiptId !== e.slip.receiptId) violated(`deposit ${s.id}: ${e.slip.receiptId} is not the oldest queued slip`);
      n.queuedSlips = queue.length > 1 ? queue.slice(1) : undefined;
      // Counted as an upload when it was queued; its turn is no new upload.
      if (e.afterSettlement) {
        n.additionalSlip = e.slip;
        return;
      }
      n.rejection = undefined;
      n.status = 'slip_processing';
      n.slip = e.slip;
      n.isTerminal = false;
      return;
    }
    case 'SlipRejected':
      if (e.timeRemains) n.status = 'awaiting_payment';
      n.attemptsLeft = e.attemptsLeft;
      n.rejection = { code: 'SLIP_UNREADABLE', displayTh: 'อ่านสลิปไม่ได้ กรุณาอัปโหลดใหม่', displayEn: 'The slip could not be read; please upload it again.', retryable: e.retryable };
      return;
    case 'LegCompleted':
      // Back where the slip found the order: open, or expired in its late window (a late slip).
      n.status = s.slip?.lateFrom === 'expired' ? 'expired' : 'awaiting_payment';
      n.verification = e.verification;
      n.slip = slipWith(s.slip, e.transRef, e.legRef);
      n.legs = withLegs(s.legs, (l) => {
        if (l.legRef !== e.legRef) return l;
        const leg = copyLeg(l);
        leg.legStatus = 'complete';
        leg.verifiedAmountMinor = e.verifiedAmountMinor;
        if (e.transRef !== undefined) leg.transRef = e.transRef;
        if (e.holdMinor !== undefined || e.owedMinor !== undefined) leg.held = true;
        return leg;
      });
      return;
    default:
      return unreachable(e, 'deposit slip event');
  }
}

/** A review opened, escalated, or approved once (four eyes). */
function evolveReview(n: Complete<Deposit>, s: Deposit, e: ReviewEvent): void {
  switch (e.type) {
    case 'DepositUnderReview':
      n.status = 'under_review';
      n.review = { openedAt: e.at, escalated: false, extended: false, fourEyesRequired: e.fourEyesRequired, reasons: e.reasons, approvals: [], approvedAmounts: undefined };
      if (e.verification) n.verification = e.verification;
      if (e.routeConfirmation) n.routeConfirmation = e.routeConfirmation;
      n.slip = slipWith(s.slip, e.transRef, e.legRef, e.transferredAmountMinor);
      if (e.holdMinor !== undefined || e.owedMinor !== undefined) n.legs = withLegs(s.legs, (l) => (l.legRef === e.legRef ? heldAgain(l) : l));
      return;
    case 'ReviewEscalated': case 'ReviewExtended': {
      // The review's estimate moves on: escalated at 1 h, extended at 4 h.
      if (!s.review) violated(`${e.type} without a review`);
      const review = copyReview(s.review);
      if (e.type === 'ReviewEscalated') review.escalated = true;
      else review.extended = true;
      n.review = review;
      return;
    }
    case 'ReviewApprovalRecorded': {
      if (!s.review) violated('approval without a review');
      const review = copyReview(s.review);
      review.approvals = e.restarted ? [e.operatorId] : [...s.review.approvals, e.operatorId];
      review.approvedAmounts = e.received;
      // A recorded approval waits for a second approver, whether the review asked for one
      // from the start, the figures did (decide.ts figuresNeedSecondApprover) or suspense
      // would fund the credit (decide.ts secondApproverNeeded).
      review.fourEyesRequired = true;
      n.review = review;
      return;
    }
    default:
      return unreachable(e, 'deposit review event');
  }
}

/** Settled: the legs that took money complete, every hold released, the settlement recorded. */
function settleInto(n: Complete<Deposit>, s: Deposit, e: Extract<DepositEvent, { type: 'DepositSettled' }>): void {
  const fills = e.fills;
  // A settles in full: what the legs' withdrawals take plus what goes to suspense.
  let filled = e.suspenseMinor;
  for (let i = 0; i < fills.length; i++) filled += fills[i]!.amountMinor;
  if (filled !== e.settlement.receivedMinor || e.suspenseMinor < 0n) violated(`deposit ${s.id}: fills and suspense ${filled} do not make A ${e.settlement.receivedMinor}`);
  n.slip = slipWith(s.slip, e.transRef);
  // A review that credited a leg no transfer was seen for: the leg waits for that transfer.
  const creditedUnseen = new Map<string, Minor>();
  for (const r of e.unseenCredits ?? []) creditedUnseen.set(r.legRef, r.amountMinor);
  n.legs = withLegs(s.legs, (l) => {
    const unseen = creditedUnseen.get(l.legRef);
    if ((l.legStatus !== 'complete' && fills.some((f) => f.legRef === l.legRef)) || unseen !== undefined) {
      const leg = copyLeg(l);
      if (fills.some((f) => f.legRef === l.legRef)) leg.legStatus = 'complete';
      leg.held = false;
      if (unseen !== undefined) leg.reviewCreditedMinor = unseen;
      return leg;
    }
    return unheld(l);
  });
  n.status = 'settled';
  n.isTerminal = false;
  n.settlement = e.settlement;
  if (e.verification) n.verification = e.verification;
  if (e.overpayment) n.overpayment = e.overpayment;
}

/** Where the order ends up: settled, rejected, expired, canceled, cleared, reversed, overpaid. */
function evolveOutcome(n: Complete<Deposit>, s: Deposit, e: OutcomeEvent): void {
  switch (e.type) {
    case 'DepositSettled':
      settleInto(n, s, e);
      return;
    case 'DepositRejected':
      n.status = 'rejected';
      n.isTerminal = true;
      n.rejection = { code: e.code, displayTh: e.displayTh, displayEn: e.displayEn, retryable: undefined };
      return;
    case 'DepositExpired':
      n.legs = closedLegs(s); // (read s before its status is written: n may be s)
      n.status = 'expired';
      n.expiredReason = 'no_payment';
      n.lateSlipAcceptedUntil = e.lateSlipAcceptedUntil;
      n.isTerminal = e.lateSlipAcceptedUntil === null;
      return;
    case 'DepositCanceled':
      n.legs = closedLegs(s);
      n.status = 'canceled';
      n.canceledBy = e.by;
      n.cancelReasonCode = e.reasonCode;
      n.lateSlipAcceptedUntil = e.lateSlipAcceptedUntil;
      n.isTerminal = e.lateSlipAcceptedUntil === null;
      return;
    case 'LateSlipWindowClosed':
      n.isTerminal = true;
      // Closed before its time (a sandbox scenario does): the window says when it closed,
      // so a 410's late_slip_accepted_until is never in the future.
      if (s.lateSlipAcceptedUntil != null && e.at < s.lateSlipAcceptedUntil) n.lateSlipAcceptedUntil = e.at;
      return;
    case 'DepositCleared': {
      if (!s.settlement) violated('clearing without a settlement');
      const st = copySettlement(s.settlement);
      st.clearedAt = e.at;
      n.settlement = st;
      return;
    }
    case 'DepositReversed': {
      if (!s.settlement) violated('reversal without a settlement');
      const st = copySettlement(s.settlement);
      st.clearingAvailableAt = null;
      n.status = 'reversed';
      n.isTerminal = true;
      n.settlement = st;
      n.reversal = { reasonCode: e.reasonCode, reversesBalanceTransactionId: e.reversesBalanceTransactionId, balanceTransactionId: e.balanceTransactionId };
      return;
    }
    case 'DepositOverpaid':
      // The latest overpayment is the order's: its deposit.overpaid names the claim just
      // opened, and the earlier one is in that event's previous_attributes (and on its claim).
      n.overpayment = e.overpayment;
      if (e.overpayment.transRef !== undefined) n.countedTransRefs = [...(s.countedTransRefs ?? []), e.overpayment.transRef];
      return;
    default:
      return unreachable(e, 'deposit event');
  }
}

/** Whether a deposit has settled and its credit still waits in pending_clearing. */
export function isSettledAndUncleared(d: Deposit): d is Deposit & { readonly settlement: Settlement } {
  return d.status === 'settled' && d.settlement !== undefined && d.settlement.clearedAt === undefined;
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
