// The withdrawal aggregate: state, events and evolve. One journal stream per order (its
// wdr_ id). Invariants asserted in evolve: filled + remaining = amount; fee recognised
// never exceeds the fee; a final status is never left; money in flight never exceeds
// what remains; a fill is keyed by its leg_ref and lands at most once. An order that
// expires while payers are mid-transfer to it refunds the rest at once and holds only
// those legs (and the fee they would recognise) until each lands or is released.

import { unreachable, violated } from '../assert.ts';
import type { Bucket } from '../ledger/ledger.ts';
import { feeRecognizedFor, type FeeLine, type Minor } from '../money.ts';

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
  /** The deposit whose leg paid it: the back office links them (absent on journals written before it was kept; never shown to the merchant, it is another's order). */
  readonly depositId?: string;
}

/** A deposit leg being paid to the order: its amount is held until it lands or is released. */
export interface InFlightLeg {
  readonly legRef: string;
  readonly amountMinor: Minor;
  /**
   * A late slip's leg held short of the money its payee already has (the order had no more
   * capacity then): what it should hold, topped up as capacity frees (decide.ts withTopUps).
   */
  readonly owedMinor?: Minor;
}

/** How an operator may resolve a dispute (the resolve route's words, the disputes report's columns). */
export const disputeOutcomes = ['merchant_won', 'merchant_lost', 'withdrawn'] as const;
export type DisputeOutcome = (typeof disputeOutcomes)[number];

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

/** One file of a dispute's evidence: its name and size, and where its bytes are kept (the slip store, by fileId; journals before it kept only name and size). */
export interface DisputeEvidenceFile {
  readonly name: string;
  readonly bytes: number;
  readonly fileId?: string;
  readonly sha256?: string;
  readonly mediaType?: string;
}

/** What a merchant submitted against a dispute (the operator reads it from the journal, each file's bytes from the slip store). */
export interface DisputeEvidence {
  readonly text: string;
  readonly files: readonly DisputeEvidenceFile[];
}

export interface Withdrawal {
  readonly id: string;
  readonly merchantId: string;
  readonly whiteLabelId: string;
  readonly livemode: boolean;
  /** The order's journal stream position: one more with every entry (the object's own version is withdrawalVersion). */
  readonly version: number;
  /** Entries that changed nothing the merchant's withdrawal_order shows (events marked silent): the object's version did not move. */
  readonly silentChanges?: number;
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
  /** Legs of deposits currently being paid to this order (a few at most). */
  readonly inFlight: readonly InFlightLeg[];
  readonly fills: readonly Fill[];
  readonly dispute?: Dispute;
  readonly rejection?: { readonly code: string; readonly displayTh: string; readonly displayEn: string };
  readonly canceledBy?: 'merchant' | 'system' | 'operator';
  readonly cancelReasonCode?: string;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly replacementOfWithdrawalId?: string;
  /**
   * Set on a refund to an end user (a claim's payout): the deposit whose excess it returns.
   * Its lock is funded from the suspense account, never from the merchant's available
   * (core/ledger/postings.ts), and what it does not pay out goes back there.
   */
  readonly refundOfDepositId?: string;
}

export interface RefundIds {
  readonly principalBalanceTransactionId: string;
  readonly feeBalanceTransactionId: string;
}

/** Who decided an operator's step that moves money, and the note they gave. */
export interface OperatorDecision {
  readonly operatorId: string;
  readonly note: string;
}

export type WithdrawalEvent =
  | { readonly type: 'WithdrawalCreated'; readonly at: number; readonly withdrawal: Omit<Withdrawal, 'version' | 'status' | 'updatedAt' | 'approvals' | 'inFlight' | 'fills' | 'feeRecognizedMinor' | 'filledMinor' | 'refundedMinor' | 'settledSplits'> }
  | { readonly type: 'WithdrawalApprovalRecorded'; readonly at: number; readonly operatorId: string; readonly opens: boolean; readonly note?: string; readonly silent?: true }
  | { readonly type: 'WithdrawalRejected'; readonly at: number; readonly note?: string; readonly refund: RefundIds; readonly operatorId?: string }
  | { readonly type: 'WithdrawalCanceled'; readonly at: number; readonly by: 'merchant' | 'system' | 'operator'; readonly reasonCode: string; readonly refund: RefundIds; readonly operatorId?: string; readonly note?: string }
  | { readonly type: 'WithdrawalExpired'; readonly at: number; readonly refund: RefundIds }
  /** Again for a leg in flight: its hold raised. `owedMinor`: what a late slip's payee has for it, when more than the hold (see InFlightLeg). */
  | { readonly type: 'LegReserved'; readonly at: number; readonly legRef: string; readonly amountMinor: Minor; readonly owedMinor?: Minor; readonly silent?: true }
  /** `refund`: on an expired order, the rows that give the held leg and its fee back. */
  | { readonly type: 'LegReleased'; readonly at: number; readonly legRef: string; readonly refund?: RefundIds }
  | { readonly type: 'FillLanded'; readonly at: number; readonly fill: Fill }
  | { readonly type: 'WithdrawalSettled'; readonly at: number }
  /**
   * `heldFee`: on an order that expired holding legs, how much less fee it now holds for them (negative: more); see heldFeeMoved.
   * `toSuspense`: on a claim's refund that is closed (settled, expired, canceled), the row that takes the reversed amount on
   * from the lock to suspense, where the refund's money came from (its claim opens a replacement refund out of it).
   */
  | { readonly type: 'FillReversed'; readonly at: number; readonly legRef: string; readonly reasonCode: string; readonly balanceTransactionId: string; readonly feeBalanceTransactionId: string; readonly refundTo: Bucket; readonly heldFee?: HeldFeeMove; readonly toSuspense?: { readonly balanceTransactionId: string }; readonly decision?: OperatorDecision }
  | { readonly type: 'ReceiptConfirmed'; readonly at: number; readonly legRef: string; readonly auto: boolean }
  /** `by`: the operator who opened or resolved it (absent for the system, and on journals written before it was kept). */
  | { readonly type: 'DisputeOpened'; readonly at: number; readonly dispute: Dispute; readonly by?: string }
  | { readonly type: 'DisputeEvidenceSubmitted'; readonly at: number; readonly evidence?: DisputeEvidence; readonly silent?: true }
  | { readonly type: 'DisputeResolved'; readonly at: number; readonly outcome: string; readonly note?: string; readonly by?: string };

/**
 * Whether the event changes nothing the merchant's withdrawal_order `s` shows: an approval
 * that does not yet open the order (approvals are not shown), dispute evidence (the
 * merchant's own submission; the dispute shows no count of it), and a late slip's leg
 * reserved with its hold as it was — holding nothing (no capacity: it waits), or held for
 * the same amount with only what its payee is owed raised — since what a leg holds shows
 * only in reserved_minor (what it is owed, not at all). Journaled marked `silent`, it
 * leaves the object's version where it was (see the deposit's changesNothingShown).
 */
export function withdrawalChangesNothingShown(e: WithdrawalEvent, s: Withdrawal | undefined): boolean {
  switch (e.type) {
    case 'WithdrawalApprovalRecorded': return !e.opens;
    case 'DisputeEvidenceSubmitted': return true;
    case 'LegReserved': return s !== undefined && (inFlightFor(s, e.legRef) ?? 0n) === e.amountMinor;
    default: return false;
  }
}

/** The withdrawal_order's version: the journal's entries less the silent ones. */
export function withdrawalVersion(w: Pick<Withdrawal, 'version' | 'silentChanges'>): number {
  return w.version - (w.silentChanges ?? 0);
}

export function remainingOf(w: Withdrawal): Minor {
  return w.amountTotalMinor - w.filledMinor;
}

export function inFlightOf(w: Pick<Withdrawal, 'inFlight'>): Minor {
  let total = 0n;
  for (let i = 0; i < w.inFlight.length; i++) total += w.inFlight[i]!.amountMinor;
  return total;
}

/** What a new leg may still take from this order: remaining minus legs already in flight. */
export function capacityOf(w: Withdrawal): Minor {
  return remainingOf(w) - inFlightOf(w);
}

/** What the leg holds in flight on this order, if it is in flight. */
export function inFlightFor(w: Withdrawal, legRef: string): Minor | undefined {
  for (let i = 0; i < w.inFlight.length; i++) if (w.inFlight[i]!.legRef === legRef) return w.inFlight[i]!.amountMinor;
  return undefined;
}

/** What the order still locks in the merchant's reserved bucket: principal left plus unused fee; once expired, the legs it holds. */
export function lockedOf(w: Withdrawal): Minor {
  if (w.status === 'expired') return inFlightOf(w) + heldFeeOf(w);
  if (!isOpenStatus(w.status)) return 0n;
  return remainingOf(w) + w.feeTotalMinor - w.feeRecognizedMinor;
}

/**
 * The unused fee kept for the legs in flight: what they would recognise were they all to
 * land (each fill's share is cumulative, feeRecognizedFor), so an expired order holding
 * them can pay each its share, and give back the rest as each is released.
 */
export function heldFeeOf(w: Pick<Withdrawal, 'inFlight' | 'feeTotalMinor' | 'amountTotalMinor' | 'filledMinor' | 'feeRecognizedMinor'>): Minor {
  if (w.inFlight.length === 0) return 0n;
  const due = feeRecognizedFor(w.feeTotalMinor, w.amountTotalMinor, w.filledMinor + inFlightOf(w)) - w.feeRecognizedMinor;
  return due > 0n ? due : 0n;
}

/** Whether the order expired holding legs in flight, and so holds their fee (heldFeeOf). */
export function holdsLegFees(w: Pick<Withdrawal, 'status' | 'inFlight'>): boolean {
  return w.status === 'expired' && w.inFlight.length > 0;
}

/** A reversal's change to the fee an expired order holds for its legs, and the row that moves it. */
export interface HeldFeeMove { readonly balanceTransactionId: string; readonly amountMinor: Minor }

/**
 * How much less fee an expired order holds for its legs in flight once `fill` is reversed
 * (negative: more). The held fee is what the legs would recognise were they to land,
 * cumulative shares rounded on what the order filled, so taking a fill out moves it by the
 * rounding, a satang or two either way; the reversal moves that much between the lock and
 * available. 0 for any other order, whose lock is principal left plus unused fee exactly.
 */
export function heldFeeMoved(w: Withdrawal, fill: Pick<Fill, 'amountMinor' | 'feeRecognizedMinor'>): Minor {
  if (!holdsLegFees(w)) return 0n;
  return heldFeeOf(w) - heldFeeOf({
    inFlight: w.inFlight, feeTotalMinor: w.feeTotalMinor, amountTotalMinor: w.amountTotalMinor,
    filledMinor: w.filledMinor - fill.amountMinor, feeRecognizedMinor: w.feeRecognizedMinor - fill.feeRecognizedMinor,
  });
}

/** Whether a withdrawal takes payers now: open, or partially filled. */
export function isPayable(w: Pick<Withdrawal, 'status'>): boolean {
  return w.status === 'open' || w.status === 'partially_filled';
}

export function isOpenStatus(status: WithdrawalStatus): boolean {
  return status === 'pending_approval' || status === 'open' || status === 'partially_filled';
}

export function isFinalWithdrawalStatus(status: WithdrawalStatus): boolean {
  return !isOpenStatus(status);
}

// ---- evolve ----
//
// States are copied field by field, never with object spread (see the deposit's evolve
// for why): every copy lists every key, so all states share one shape.

/** T with every key present (optional ones may hold undefined) and writable. */
type Complete<T> = { -readonly [K in keyof Required<T>]: T[K] };

function copy(s: Withdrawal): Complete<Withdrawal> {
  return {
    id: s.id, merchantId: s.merchantId, whiteLabelId: s.whiteLabelId, livemode: s.livemode, version: s.version, silentChanges: s.silentChanges, status: s.status,
    merchantReference: s.merchantReference, endUserRef: s.endUserRef, beneficiaryId: s.beneficiaryId, amountTotalMinor: s.amountTotalMinor,
    feeTotalMinor: s.feeTotalMinor, feeBreakdown: s.feeBreakdown, feeRecognizedMinor: s.feeRecognizedMinor, filledMinor: s.filledMinor,
    refundedMinor: s.refundedMinor, settledSplits: s.settledSplits, maxSplits: s.maxSplits, createdAt: s.createdAt, updatedAt: s.updatedAt,
    expiresAt: s.expiresAt, requiresApproval: s.requiresApproval, approvalsRequired: s.approvalsRequired, approvals: s.approvals,
    reservedBalanceTransactionId: s.reservedBalanceTransactionId, inFlight: s.inFlight, fills: s.fills, dispute: s.dispute,
    rejection: s.rejection, canceledBy: s.canceledBy, cancelReasonCode: s.cancelReasonCode, metadata: s.metadata,
    replacementOfWithdrawalId: s.replacementOfWithdrawalId, refundOfDepositId: s.refundOfDepositId,
  };
}

function created(e: Extract<WithdrawalEvent, { type: 'WithdrawalCreated' }>): Complete<Withdrawal> {
  const w = e.withdrawal;
  return {
    id: w.id, merchantId: w.merchantId, whiteLabelId: w.whiteLabelId, livemode: w.livemode, version: 0, silentChanges: undefined,
    status: w.requiresApproval ? 'pending_approval' : 'open',
    merchantReference: w.merchantReference, endUserRef: w.endUserRef, beneficiaryId: w.beneficiaryId, amountTotalMinor: w.amountTotalMinor,
    feeTotalMinor: w.feeTotalMinor, feeBreakdown: w.feeBreakdown, feeRecognizedMinor: 0n, filledMinor: 0n,
    refundedMinor: 0n, settledSplits: 0, maxSplits: w.maxSplits, createdAt: w.createdAt, updatedAt: e.at,
    expiresAt: w.expiresAt, requiresApproval: w.requiresApproval, approvalsRequired: w.approvalsRequired, approvals: [],
    reservedBalanceTransactionId: w.reservedBalanceTransactionId, inFlight: [], fills: [], dispute: w.dispute,
    rejection: w.rejection, canceledBy: w.canceledBy, cancelReasonCode: w.cancelReasonCode, metadata: w.metadata,
    replacementOfWithdrawalId: w.replacementOfWithdrawalId, refundOfDepositId: w.refundOfDepositId,
  };
}

function copyFill(f: Fill): Complete<Fill> {
  return {
    legRef: f.legRef, sequence: f.sequence, amountMinor: f.amountMinor, feeRecognizedMinor: f.feeRecognizedMinor, settledAt: f.settledAt,
    balanceTransactionId: f.balanceTransactionId, feeBalanceTransactionId: f.feeBalanceTransactionId, autoConfirmAt: f.autoConfirmAt,
    receiptState: f.receiptState, reversal: f.reversal, depositId: f.depositId,
  };
}

function copyDispute(d: Dispute): Complete<Dispute> {
  return {
    id: d.id, reasonCode: d.reasonCode, amountMinor: d.amountMinor, openedAt: d.openedAt, respondBy: d.respondBy,
    fundsOnHold: d.fundsOnHold, status: d.status, outcome: d.outcome, evidenceCount: d.evidenceCount,
  };
}

// Leg refs are unique strings: as keys of a plain object each would give V8 a new hidden
// class, so the legs in flight are a small array.

/** The legs in flight with this one (its amount replaced if it was there). */
function withInFlight(inFlight: readonly InFlightLeg[], legRef: string, amountMinor: Minor, owedMinor?: Minor): InFlightLeg[] {
  const out = withoutInFlight(inFlight, legRef);
  out.push(owedMinor !== undefined && owedMinor > amountMinor ? { legRef, amountMinor, owedMinor } : { legRef, amountMinor });
  return out;
}

/** The legs in flight without this one. */
function withoutInFlight(inFlight: readonly InFlightLeg[], legRef: string): InFlightLeg[] {
  const out: InFlightLeg[] = [];
  for (let i = 0; i < inFlight.length; i++) if (inFlight[i]!.legRef !== legRef) out.push(inFlight[i]!);
  return out;
}

export function evolve(state: Withdrawal | undefined, event: WithdrawalEvent): Withdrawal {
  if (event.type === 'WithdrawalCreated') {
    if (state !== undefined) violated('WithdrawalCreated on an existing withdrawal');
    return created(event);
  }
  if (state === undefined) violated(`${event.type} before WithdrawalCreated`);
  return evolveOnto(copy(state), event);
}


function evolveOnto(n: Complete<Withdrawal>, event: Exclude<WithdrawalEvent, { type: 'WithdrawalCreated' }>): Withdrawal {
  const from = n.status;
  n.version += 1;
  if ('silent' in event && event.silent) n.silentChanges = (n.silentChanges ?? 0) + 1;
  n.updatedAt = event.at;
  evolveInto(n, n, event);
  // Tested first, messages built on failure only (see violated): this runs on every event.
  if (!(n.filledMinor >= 0n && n.filledMinor <= n.amountTotalMinor)) violated(`${n.id}: filled ${n.filledMinor} outside 0..amount`);
  if (!(n.feeRecognizedMinor >= 0n && n.feeRecognizedMinor <= n.feeTotalMinor)) violated(`${n.id}: fee recognised outside 0..fee`);
  if (!(inFlightOf(n) <= remainingOf(n) || !isOpenStatus(n.status))) violated(`${n.id}: in flight exceeds remaining`);
  if (!(isOpenStatus(from) || n.status === from)) violated(`${n.id} left final status ${from}`);
  checkFillSums(n);
  return n;
}

/** filled and fee recognised are the sums of the fills that stand (not reversed). */
function checkFillSums(w: Withdrawal): void {
  let filled = 0n, fee = 0n;
  for (let i = 0; i < w.fills.length; i++) {
    const f = w.fills[i]!;
    if (f.reversal) continue;
    filled += f.amountMinor;
    fee += f.feeRecognizedMinor;
  }
  if (filled !== w.filledMinor || fee !== w.feeRecognizedMinor) violated(`${w.id}: filled ${w.filledMinor} / fee ${w.feeRecognizedMinor} are not the sums of its fills (${filled} / ${fee})`);
}

/**
 * Closes the order: what remains is refunded and nothing stays in flight — but an expiry
 * keeps the legs payers are mid-transfer on (only expiry meets any: a cancel waits for
 * them), refunding the rest.
 */
function close(n: Complete<Withdrawal>, s: Withdrawal, status: WithdrawalStatus): void {
  n.status = status;
  n.inFlight = status === 'expired' ? s.inFlight : [];
  n.refundedMinor = remainingOf(s) - inFlightOf(n);
}

/** Writes the event's change onto `n`, a fresh copy of `s` or `s` itself (see the deposit's). */
function evolveInto(n: Complete<Withdrawal>, s: Withdrawal, e: Exclude<WithdrawalEvent, { type: 'WithdrawalCreated' }>): void {
  switch (e.type) {
    case 'WithdrawalApprovalRecorded':
      n.approvals = [...s.approvals, e.operatorId];
      if (e.opens) n.status = 'open';
      return;
    case 'WithdrawalRejected':
      close(n, s, 'rejected');
      n.rejection = { code: 'rejected_by_operator', displayTh: 'รายการถอนถูกปฏิเสธ', displayEn: 'The withdrawal was rejected.' };
      return;
    case 'WithdrawalCanceled':
      close(n, s, 'canceled');
      n.canceledBy = e.by;
      n.cancelReasonCode = e.reasonCode;
      return;
    case 'WithdrawalExpired':
      close(n, s, 'expired');
      return;
    case 'LegReserved': case 'LegReleased': case 'FillLanded': case 'WithdrawalSettled': case 'FillReversed': case 'ReceiptConfirmed':
      return evolveFill(n, s, e);
    case 'DisputeOpened': case 'DisputeEvidenceSubmitted': case 'DisputeResolved':
      return evolveDispute(n, s, e);
    default:
      return unreachable(e, 'withdrawal event');
  }
}

type FillEvent = Extract<WithdrawalEvent, { type: 'LegReserved' | 'LegReleased' | 'FillLanded' | 'WithdrawalSettled' | 'FillReversed' | 'ReceiptConfirmed' }>;
export type DisputeEvent = Extract<WithdrawalEvent, { type: 'DisputeOpened' | 'DisputeEvidenceSubmitted' | 'DisputeResolved' }>;

/**
 * One dispute as its own events leave it, folded as the order folds them: what an order's earlier
 * dispute was once a newer one took the order's `dispute` field (the operator reads it by its id).
 */
export function disputeAfter(events: readonly DisputeEvent[]): Dispute | undefined {
  let dispute: Dispute | undefined;
  for (const e of events) {
    const next = {} as Complete<Withdrawal>;
    evolveDispute(next, { dispute } as Withdrawal, e);
    dispute = next.dispute;
  }
  return dispute;
}

/** Legs in flight, fills landing, reversed or confirmed. */
function evolveFill(n: Complete<Withdrawal>, s: Withdrawal, e: FillEvent): void {
  switch (e.type) {
    case 'LegReserved':
      n.inFlight = withInFlight(s.inFlight, e.legRef, e.amountMinor, e.owedMinor);
      return;
    case 'LegReleased':
      // (n may be s itself: read the leg before it goes.) A leg an expired order held is given back.
      if (s.status === 'expired') n.refundedMinor = s.refundedMinor + (inFlightFor(s, e.legRef) ?? 0n);
      n.inFlight = withoutInFlight(s.inFlight, e.legRef);
      return;
    case 'FillLanded': {
      const fill = e.fill;
      if (s.fills.some((f) => f.legRef === fill.legRef)) violated(`${s.id}: fill ${fill.legRef} landed twice`);
      n.inFlight = withoutInFlight(s.inFlight, fill.legRef);
      n.fills = [...s.fills, fill];
      n.filledMinor = s.filledMinor + fill.amountMinor;
      n.feeRecognizedMinor = s.feeRecognizedMinor + fill.feeRecognizedMinor;
      n.settledSplits = s.settledSplits + 1;
      if (s.status === 'open') n.status = 'partially_filled';
      return;
    }
    case 'WithdrawalSettled':
      n.status = 'settled';
      return;
    case 'FillReversed': {
      const fill = s.fills.find((f) => f.legRef === e.legRef);
      if (!fill || fill.reversal) violated(`${s.id}: reversing unknown or reversed fill ${e.legRef}`);
      n.fills = s.fills.map((f) => {
        if (f.legRef !== e.legRef) return f;
        const reversed = copyFill(f);
        reversed.reversal = { at: e.at, reasonCode: e.reasonCode, balanceTransactionId: e.balanceTransactionId };
        return reversed;
      });
      n.filledMinor = s.filledMinor - fill.amountMinor;
      n.feeRecognizedMinor = s.feeRecognizedMinor - fill.feeRecognizedMinor;
      return;
    }
    case 'ReceiptConfirmed':
      n.fills = s.fills.map((f) => {
        if (f.legRef !== e.legRef) return f;
        const confirmed = copyFill(f);
        confirmed.receiptState = e.auto ? 'auto_confirmed' : 'confirmed';
        return confirmed;
      });
      return;
    default:
      return unreachable(e, 'withdrawal fill event');
  }
}

function evolveDispute(n: Complete<Withdrawal>, s: Withdrawal, e: DisputeEvent): void {
  switch (e.type) {
    case 'DisputeOpened':
      n.dispute = e.dispute;
      return;
    case 'DisputeEvidenceSubmitted': {
      if (!s.dispute) violated('evidence without a dispute');
      const dispute = copyDispute(s.dispute);
      dispute.evidenceCount = s.dispute.evidenceCount + 1;
      n.dispute = dispute;
      return;
    }
    case 'DisputeResolved': {
      if (!s.dispute) violated('resolution without a dispute');
      const dispute = copyDispute(s.dispute);
      dispute.status = 'resolved';
      dispute.fundsOnHold = false;
      dispute.outcome = e.outcome;
      n.dispute = dispute;
      return;
    }
    default:
      return unreachable(e, 'withdrawal dispute event');
  }
}
