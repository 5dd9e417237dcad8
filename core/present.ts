// The contract's JSON shapes of deposit_order, withdrawal_order and balance_transaction,
// built from state. One place, used by API responses and by event snapshots alike, so a
// webhook and a GET never disagree. Conventions (contract): money as integer satang
// (numbers, checked safe), timestamps RFC 3339 UTC with exactly three fractional digits,
// optional keys absent rather than null, nullable keys present. Every object carries
// livemode (false = sandbox), right after `object`: the contract's "every object and event
// carries livemode", so a snapshot read out of context (a webhook body, a list item, a
// log) still says which mode's money it describes.

import { actionableBy, reasonTexts, reviewDisplay } from './deposit/reasons.ts';
import { reviewNeedsTwo, type WithdrawalOf } from './deposit/decide.ts';
import { objectVersion, type Deposit, type Leg, type Review } from './deposit/state.ts';
import { adjustmentReasons, bankByCode, type Beneficiary, type Claim } from './directory.ts';
import { owedByPayeeOf } from './claim/state.ts';
import { waitingWriteOff } from './claim/write-off.ts';
import type { BalanceTransaction, Balances } from './ledger/ledger.ts';
import { minorToJson as n, type FeeLine } from './money.ts';
import { limits } from './limits.ts';
import { inFlightOf, remainingOf, withdrawalVersion, type Dispute, type Fill, type Withdrawal } from './withdrawal/state.ts';

/** The API version (contract: Versioning) this build speaks and pins on every event and slip capability. */
export const apiVersion = '2026-08-01';

/**
 * The id a balance transaction goes by wherever the merchant is shown it — its history
 * row, the balance_transaction object, an order's reference to it, a report's line: the
 * btxn_ id in live, sbxbtxn_l_… in sandbox (contract: Balance history). One spelling per
 * mode, so a sandbox merchant matches an event's or an order's id to its history row.
 */
export function balanceTransactionIdOf(btxnId: string, livemode: boolean): string {
  return livemode ? btxnId : `sbxbtxn_l_${btxnId.replace(/^btxn_/, '')}`;
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

/** Largest instant whose ISO form still has a four-digit year (9999-12-31T23:59:59.999Z). */
export const isoMsMax = 253_402_300_799_999;
/** Earliest instant with a four-digit year (0000-01-01T00:00:00.000Z). */
export const isoMsMin = -62_167_219_200_000;

/** True when `ms` is a whole millisecond that RFC 3339 can write (years 0000-9999). */
export function isIsoInstant(ms: number): boolean {
  return Number.isSafeInteger(ms) && ms >= isoMsMin && ms <= isoMsMax;
}

/**
 * RFC 3339 UTC with exactly three fractional digits. Formatting only: no clock is read.
 * Outside years 0000-9999 toISOString writes a six-digit '+YYYYYY' year, which is not
 * RFC 3339, so that throws instead: the manual clock stops short of it
 * (writeSideLimits.manualClockMsMax), and a foreign instant is checked with isIsoInstant.
 */
export function iso(ms: number): string {
  const instants = recent.ms;
  for (let i = 0; i < recentSize; i++) if (instants[i] === ms) return recent.text[i]!;
  if (!isIsoInstant(ms)) throw new RangeError(`iso: ${ms} is not a whole millisecond within years 0000-9999`);
  const day = Math.floor(ms / msPerDay);
  if (day !== recent.day) {
    recent.day = day;
    recent.date = isoDate(day);
  }
  const text = isoTimeOfDay(recent.date, ms - day * msPerDay);
  const slot = recent.next;
  recent.next = (slot + 1) % recentSize;
  instants[slot] = ms;
  recent.text[slot] = text;
  return text;
}

/**
 * The last few instants written and their texts, and the last day's date: the objects of
 * one commit carry the same few instants many times over (its `now`, an expiry, a clearing
 * time, written in turn), and most instants written fall on a few days. A pure function's
 * memo: the same input gives the same text with or without it.
 */
const recentSize = 4;
const recent = { ms: new Array<number>(recentSize).fill(Number.NaN), text: new Array<string>(recentSize).fill(''), next: 0, day: Number.NaN, date: '' };

const msPerDay = 86_400_000;
/** '00'…'59' and '000'…'999': a date and a time of day are written from these, not by Date. */
const twoDigits = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const threeDigits = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/**
 * 'YYYY-MM-DDT' of a day counted from 1970-01-01, in the proleptic Gregorian calendar as
 * toISOString has it (H. Hinnant's civil_from_days: eras of 400 years, March-based years).
 * Arithmetic rather than a Date: toISOString was the core's top cost in presenting objects.
 */
function isoDate(day: number): string {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const dayOfMonth = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${threeDigits[Math.floor(year / 10)]}${year % 10}-${twoDigits[month]}-${twoDigits[dayOfMonth]}T`;
}

/**
 * `date` then 'HH:MM:SS.mmmZ' of a millisecond of the day (0 ≤ msOfDay < 86,400,000), as
 * one flat string: a date joined on afterwards would be a rope, flattened again (a second
 * copy) when it is first hashed or serialised.
 */
function isoTimeOfDay(date: string, msOfDay: number): string {
  const hours = Math.floor(msOfDay / 3_600_000);
  const minutes = Math.floor(msOfDay / 60_000) % 60;
  const seconds = Math.floor(msOfDay / 1000) % 60;
  return `${date}${twoDigits[hours]}:${twoDigits[minutes]}:${twoDigits[seconds]}.${threeDigits[msOfDay % 1000]}Z`;
}

export function maskAccountNumber(accountNumber: string): string {
  const digits = accountNumber.replace(/\D/g, '');
  return 'x'.repeat(Math.max(0, digits.length - 4)) + digits.slice(-4);
}

/** What a slip prints in place of a digit it hides ("xxx-x-x1234-x", "***1234", "••••1234"). */
const maskedPlace = /[xX*•●]/;
const visibleDigitsMax = 4;

/**
 * An account number read from a slip, masked for keeping: one the slip masks itself keeps
 * its shape (separators, hidden places as 'x'), but shows only the digits among its last
 * four places, as ours are masked (the places counted from the right, as account numbers
 * align): a Thai slip's "xxx-x-x4321-x" becomes "xxx-x-xx321-x". A slip that shows other
 * places than ours would, beside our mask of the same account (a claim's refund account
 * that is its transfer's sender), show more of it than either. One read in full is masked
 * as ours are.
 */
export function maskReadAccountNumber(read: string): string {
  if (!maskedPlace.test(read)) return maskAccountNumber(read);
  let place = visibleDigitsMax - (read.match(/[0-9xX*•●]/g)?.length ?? 0);
  return read.replace(/[0-9xX*•●]/g, (ch) => (place++ < 0 || maskedPlace.test(ch) ? 'x' : ch));
}

/**
 * A full account number masked in the shape a slip showed one (`shown`, masked again as
 * maskReadAccountNumber keeps it, so an answer kept before that rule shows no more): its
 * digits at the places the slip shows digits, so the two compare place by place. The
 * usual mask when the places are not as many as the digits, or the slip shows none.
 */
export function maskAccountNumberLike(shown: string | undefined, accountNumber: string): string {
  const digits = accountNumber.replace(/\D/g, '');
  const kept = shown === undefined ? undefined : maskReadAccountNumber(shown);
  const places = kept?.match(/[0-9x]/g);
  if (!kept || !places || places.length !== digits.length || !places.some((p) => p !== 'x')) return maskAccountNumber(accountNumber);
  let i = 0;
  return kept.replace(/[0-9x]/g, (ch) => (ch === 'x' ? (i++, 'x') : digits[i++]!));
}

/** First name kept, the rest cut to its first letter: "สมชาย ใจดี" → "สมชาย ใ***". */
export function maskName(name: string): string {
  const trimmed = name.trim();
  const gap = trimmed.search(/\s/);
  if (gap === -1) return firstCodePoints(trimmed, 2) + '***';
  const last = trimmed.slice(gap).trimStart();
  return `${trimmed.slice(0, gap)} ${firstCodePoints(last, 1)}***`;
}

/** The first `count` code points of `text` (a Thai letter or an emoji is never cut in half). */
function firstCodePoints(text: string, count: number): string {
  let end = 0;
  for (let i = 0; i < count && end < text.length; i++) end += text.codePointAt(end)! > 0xffff ? 2 : 1;
  return text.slice(0, end);
}

function fees(lines: readonly FeeLine[]): Json[] {
  return lines.map((l) => ({ component: l.component, amount_minor: n(l.amountMinor), ...(l.rateBps !== undefined ? { rate_bps: l.rateBps } : {}) }));
}

function leg(l: Leg, qrPayload: ((l: Leg) => string) | undefined): Obj {
  return {
    leg_ref: l.legRef, sequence: l.sequence, amount_minor: n(l.amountMinor), expires_at: iso(l.expiresAt), leg_status: l.legStatus, method: l.method,
    ...(qrPayload && l.legStatus === 'pending' ? { qr_payload: qrPayload(l) } : {}),
    receiver: {
      bank_code: l.receiver.bankCode, bank_name_th: bankByCode(l.receiver.bankCode)?.nameTh ?? l.receiver.bankCode,
      account_number_masked: maskAccountNumber(l.receiver.accountNumber), account_name_masked: maskName(l.receiver.accountName),
    },
  };
}

export interface DepositView {
  /** Adds each leg's raw QR string (API responses only; never in stored events). */
  readonly qrPayload?: (leg: Leg) => string;
  /**
   * Operator views: the withdrawals the legs pay as they are now, so the review's
   * four_eyes_required says whether an approval now takes two (reviewNeedsTwo: suspense
   * funding moves with their capacity). Without it — the merchant's object and its events —
   * the review says what its events recorded: the merchant's object moves with events only
   * (the contract: its version increases on every change).
   */
  readonly withdrawalOf?: WithdrawalOf;
  /** Operator views that have asked reviewNeedsTwo already (for a bucket of their own): its answer, taken instead of asking again. */
  readonly fourEyes?: boolean;
}

/**
 * An earlier presentation of the same order (made with no view). States are immutable and
 * keep an unchanged part as the same object, so a nested part whose state is that same
 * object is shared with the earlier presentation, not built again, and an instant that did
 * not change keeps its text: the outbox presents each version of an order, and its
 * previous_attributes compare the two (equal by identity). Presentations are never mutated.
 */
export interface Prior<S> {
  readonly state: S;
  readonly shown: Obj;
}

/** The contract's estimate of a review: by four eyes (reviewNeedsTwo), then by its escalation (1 h) and its extension (4 h) timers. */
export function resolutionBucketOf(r: Review, fourEyes: boolean): 'under_15m' | 'under_1h' | 'under_4h' | 'extended' {
  return r.extended === true ? 'extended' : r.escalated ? 'under_4h' : fourEyes ? 'under_1h' : 'under_15m';
}

export function presentDeposit(d: Deposit, view: DepositView = {}, prior?: Prior<Deposit>): Obj {
  const p = view.qrPayload || view.withdrawalOf || view.fourEyes !== undefined ? undefined : prior;
  const o: Obj = {
    id: d.id, object: 'deposit_order', livemode: d.livemode, version: objectVersion(d), status: d.status, is_terminal: d.isTerminal,
    merchant_reference: d.merchantReference, amount_minor: n(d.amountMinor), currency: 'THB',
    created_at: p && d.createdAt === p.state.createdAt ? p.shown.created_at! : iso(d.createdAt),
    expires_at: p && d.expiresAt === p.state.expiresAt ? p.shown.expires_at! : iso(d.expiresAt),
  };
  if (d.liquiditySource) o.liquidity_source = d.liquiditySource;
  o.leg_count = d.legs.length;
  o.legs = p && d.legs === p.state.legs ? p.shown.legs!
    : d.legs.map((l, i) => (p && p.state.legs[i] === l ? (p.shown.legs as Json[])[i]! : leg(l, view.qrPayload)));
  o.sender = p && d.sender === p.state.sender ? p.shown.sender!
    : { bank_code: d.sender.bankCode, account_number_masked: maskAccountNumber(d.sender.accountNumber), account_name_th_masked: maskName(d.sender.accountNameTh) };
  if (d.verification) {
    const v = d.verification;
    o.verification = p && v === p.state.verification ? p.shown.verification! : {
      amount_exact: v.amountExact, within_time_window: v.withinTimeWindow, sender_bank_match: v.senderBankMatch,
      sender_account_match: v.senderAccountMatch, sender_name_match: v.senderNameMatch, receiver_match: v.receiverMatch,
    };
  }
  if (d.status === 'under_review' && d.review) {
    const r = d.review;
    const fourEyes = view.fourEyes ?? (view.withdrawalOf ? reviewNeedsTwo(d, view.withdrawalOf) : r.fourEyesRequired); // a recorded approval sets it (state.ts)
    o.review = {
      opened_at: iso(r.openedAt), escalated: r.escalated, four_eyes_required: fourEyes,
      estimated_resolution_bucket: resolutionBucketOf(r, fourEyes),
      reasons: r.reasons.map((x) => ({
        code: x.code, display_th: reviewDisplay(x.code).th, display_en: reviewDisplay(x.code).en, actionable_by: actionableBy(x.code),
        ...(x.detail && x.code !== 'RECEIVER_MISMATCH' ? { detail: x.detail as Obj } : {}),
      })),
    };
  }
  if (d.slip) o.slip = p && d.slip === p.state.slip ? p.shown.slip! : { received_at: iso(d.slip.receivedAt), is_late: d.slip.isLate };
  if (d.status === 'awaiting_liquidity' && d.liquidity) {
    const l = d.liquidity;
    o.liquidity = {
      wait_started_at: iso(l.waitStartedAt), estimated_wait_ms: l.estimatedWaitMs, retry_interval_ms: l.retryIntervalMs,
      suggested_amounts_minor: l.suggestedAmountsMinor.map(n),
    };
  }
  if (d.metadata) o.metadata = { ...d.metadata };
  if (d.status === 'expired' || d.status === 'canceled') o.late_slip_accepted_until = d.lateSlipAcceptedUntil == null ? null : iso(d.lateSlipAcceptedUntil);
  if (d.expiredReason) o.expired_reason = d.expiredReason;
  if (d.canceledBy) o.canceled_by = d.canceledBy;
  if (d.cancelReasonCode) o.cancel_reason_code = d.cancelReasonCode;
  if (d.rejection && (d.status === 'rejected' || d.rejection.code === 'SLIP_UNREADABLE')) {
    // Retryable while another upload can be taken: uploads left, and an order still open or
    // within its late window; between an unreadable slip and the close it brings
    // (slip_processing), what the rejection said of the order it closes. The text a payer's
    // screen shows says so: "upload it again" only while an upload would be taken.
    const unreadable = d.rejection.code === 'SLIP_UNREADABLE';
    const retryable = unreadable && unreadableRetryable(d);
    // An unreadable slip's text is the catalogue's now (reasonTexts), whatever a journal of an older build recorded.
    const shown = unreadable ? (retryable ? reasonTexts.SLIP_UNREADABLE : unreadableFinal) : { th: d.rejection.displayTh, en: d.rejection.displayEn };
    o.rejection = {
      code: d.rejection.code, display_th: shown.th, display_en: shown.en,
      ...(unreadable ? { retryable, attempts_left: d.attemptsLeft } : {}),
    };
  }
  if (d.reversal) {
    o.reversal = {
      reason_code: d.reversal.reasonCode, reverses_balance_transaction_id: balanceTransactionIdOf(d.reversal.reversesBalanceTransactionId, d.livemode),
      balance_transaction_id: balanceTransactionIdOf(d.reversal.balanceTransactionId, d.livemode),
    };
  }
  if ((d.status === 'settled' || d.status === 'reversed') && d.settlement) addSettlement(o, d, d.settlement, p);
  return o;
}

/** An unreadable slip when no other upload will be taken (none left, or the order closed). */
const unreadableFinal = {
  th: 'อ่านสลิปไม่ได้ และไม่สามารถอัปโหลดใหม่ได้แล้ว กรุณาติดต่อร้านค้า',
  en: 'The slip could not be read, and no more uploads are taken: please contact the merchant.',
} as const;

function unreadableRetryable(d: Deposit): boolean {
  if (d.status === 'slip_processing') return d.rejection?.retryable === true;
  return d.attemptsLeft > 0 && (d.status === 'awaiting_payment' || ((d.status === 'expired' || d.status === 'canceled') && !d.isTerminal));
}

/** A settled (or reversed) deposit's settlement keys, set one by one in the contract's order onto `o` (no temporary object assigned over). */
function addSettlement(o: Obj, d: Deposit, st: NonNullable<Deposit['settlement']>, p: Prior<Deposit> | undefined): void {
  o.ordered_amount_minor = n(st.orderedMinor);
  o.transferred_amount_minor = n(st.transferredMinor);
  o.amount_received_minor = n(st.receivedMinor);
  o.fee_total_minor = n(st.feeTotalMinor);
  o.credited_amount_minor = n(st.creditedMinor);
  o.overpayment = d.overpayment ? {
    claim_id: d.overpayment.claimId, cause: d.overpayment.cause, amount_minor: n(d.overpayment.amountMinor),
    slip_received_at: iso(d.overpayment.slipReceivedAt), status: 'open', action_required: 'contact_support',
  } : null;
  o.partial = st.partial;
  o.settled_via = st.settledVia;
  o.balance_transaction_id = balanceTransactionIdOf(st.balanceTransactionId, d.livemode);
  o.settled_at = iso(st.settledAt);
  o.clearing_available_at = st.clearingAvailableAt === null ? null : iso(st.clearingAvailableAt);
  o.fee_breakdown = p && p.shown.fee_breakdown !== undefined && st.feeBreakdown === p.state.settlement?.feeBreakdown ? p.shown.fee_breakdown : fees(st.feeBreakdown);
}

function fill(f: Fill, livemode: boolean, withReceipt: boolean): Obj {
  return {
    leg_ref: f.legRef, sequence: f.sequence, amount_minor: n(f.amountMinor), fee_recognized_minor: n(f.feeRecognizedMinor),
    settled_at: iso(f.settledAt), balance_transaction_id: balanceTransactionIdOf(f.balanceTransactionId, livemode), auto_confirm_at: iso(f.autoConfirmAt),
    ...(withReceipt ? { receipt_state: f.reversal ? 'reversed' : f.receiptState } : {}),
    // A reversed fill stays in fills[] (a chunk that landed, then came back): marked, so that
    // a merchant adding up fills[] leaves it out as filled_minor does.
    ...(f.reversal ? { reversed_at: iso(f.reversal.at), reversal_reason_code: f.reversal.reasonCode, reversal_balance_transaction_id: balanceTransactionIdOf(f.reversal.balanceTransactionId, livemode) } : {}),
  };
}

export function presentWithdrawal(w: Withdrawal, view: { withReceipts?: boolean } = {}, prior?: Prior<Withdrawal>): Obj {
  const p = view.withReceipts ? undefined : prior;
  const o: Obj = {
    id: w.id, object: 'withdrawal_order', livemode: w.livemode, version: withdrawalVersion(w), status: w.status, merchant_reference: w.merchantReference,
    end_user_ref: w.endUserRef, beneficiary_id: w.beneficiaryId, currency: 'THB',
    amount_total_minor: n(w.amountTotalMinor), fee_total_minor: n(w.feeTotalMinor), total_locked_minor: n(w.amountTotalMinor + w.feeTotalMinor),
    fee_recognized_minor: n(w.feeRecognizedMinor), filled_minor: n(w.filledMinor), remaining_minor: n(remainingOf(w)),
    reserved_minor: n(inFlightOf(w)), refunded_minor: n(w.refundedMinor), settled_splits: w.settledSplits, max_splits: w.maxSplits,
    created_at: p && w.createdAt === p.state.createdAt ? p.shown.created_at! : iso(w.createdAt),
    expires_at: p && w.expiresAt === p.state.expiresAt ? p.shown.expires_at! : iso(w.expiresAt),
    requires_approval: w.requiresApproval,
    reserved_balance_transaction_id: balanceTransactionIdOf(w.reservedBalanceTransactionId, w.livemode),
    fee_breakdown: p && w.feeBreakdown === p.state.feeBreakdown ? p.shown.fee_breakdown! : fees(w.feeBreakdown),
    fills: p && w.fills === p.state.fills ? p.shown.fills!
      : w.fills.map((f, i) => (p && p.state.fills[i] === f ? (p.shown.fills as Json[])[i]! : fill(f, w.livemode, view.withReceipts === true))),
  };
  if (w.dispute) o.dispute = presentDispute(w.dispute, w.livemode);
  if (w.rejection) o.rejection = { code: w.rejection.code, display_th: w.rejection.displayTh, display_en: w.rejection.displayEn };
  if (w.canceledBy) o.canceled_by = w.canceledBy;
  if (w.cancelReasonCode) o.cancel_reason_code = w.cancelReasonCode;
  if (w.metadata) o.metadata = { ...w.metadata };
  if (w.replacementOfWithdrawalId) o.replacement_of_withdrawal_id = w.replacementOfWithdrawalId;
  if (w.refundOfDepositId) o.refund_of_deposit_id = w.refundOfDepositId;
  return o;
}

/** A withdrawal's dispute: inside the withdrawal, and on its own as the evidence answer. */
export function presentDispute(d: Dispute, livemode: boolean): Obj {
  return {
    id: d.id, livemode, reason_code: d.reasonCode, amount_minor: n(d.amountMinor), opened_at: iso(d.openedAt), respond_by: iso(d.respondBy),
    funds_on_hold: d.fundsOnHold, status: d.status, ...(d.outcome ? { outcome: d.outcome } : {}),
  };
}

/** The three buckets (also balance_after inside a balance_transaction, whose livemode is the transaction's). */
export function presentBalances(b: Balances): Obj {
  return { available_minor: n(b.availableMinor), pending_clearing_minor: n(b.pendingClearingMinor), reserved_minor: n(b.reservedMinor) };
}

const reversalTexts: Readonly<Record<string, string>> = {
  BANK_RECALL: 'ธนาคารเรียกคืนเงิน', ACCOUNT_FROZEN: 'บัญชีถูกอายัด', SLIP_INVALIDATED_AFTER_SETTLEMENT: 'ตรวจพบภายหลังว่าสลิปไม่ถูกต้อง จึงเรียกคืนยอดที่เข้าบัญชีแล้ว',
  DUPLICATE_CREDIT: 'เข้ายอดซ้ำ', OPS_ERROR: 'ข้อผิดพลาดจากการดำเนินงาน', MERCHANT_DISPUTE_LOST: 'ร้านค้าแพ้ข้อพิพาท',
};

export function presentBalanceTransaction(t: BalanceTransaction, balanceAfter: Balances): Obj {
  const idOf = (id: string) => balanceTransactionIdOf(id, t.livemode);
  const o: Obj = {
    id: idOf(t.id), object: 'balance_transaction', livemode: t.livemode, type: t.type, direction: t.direction, amount_minor: n(t.amountMinor), currency: 'THB',
    bucket_from: t.bucketFrom, bucket_to: t.bucketTo,
  };
  // Optional keys in the contract's order, set one by one (no spread of a temporary object).
  if (t.availableAt !== undefined) o.available_at = iso(t.availableAt);
  o.balance_after = presentBalances(balanceAfter);
  // An adjustment's origin is the operator who posted it: the journal keeps who, the merchant
  // sees the adjustment itself (an employee's id is not the merchant's to know).
  o.source = { type: t.source.type, id: t.source.type === 'adjustment' ? idOf(t.id) : t.source.id };
  if (t.reversesBalanceTransactionId) o.reverses_balance_transaction_id = idOf(t.reversesBalanceTransactionId);
  if (t.clearedFromBalanceTransactionId) o.cleared_from_balance_transaction_id = idOf(t.clearedFromBalanceTransactionId);
  if (t.reasonCode) {
    o.reason_code = t.reasonCode;
    const text = t.type === 'adjustment' ? adjustmentReasons[t.reasonCode] : reversalTexts[t.reasonCode];
    if (text) o.reason_display_th = text;
  }
  o.created_at = iso(t.createdAt);
  return o;
}

export function presentBeneficiary(b: Beneficiary): Obj {
  return {
    id: b.id, object: 'beneficiary', livemode: b.livemode, version: b.version, status: b.status, bank_code: b.bankCode, account_number_masked: maskAccountNumber(b.accountNumber),
    account_name_th_masked: maskName(b.accountNameTh), created_at: iso(b.createdAt),
    ...(b.verifiedAt !== undefined ? { verified_at: iso(b.verifiedAt) } : {}),
  };
}

/** A claim as the back office reads it at `at`: a write-off proposal shows while it may be approved (a lapsed one is gone, as a lapsed adjustment proposal is). */
export function presentClaim(c: Claim, at: number): Obj {
  const writeOff = waitingWriteOff(c, at);
  return {
    id: c.id, object: 'claim', livemode: c.livemode, kind: c.kind, status: c.status, deposit_id: c.depositId, merchant_id: c.merchantId, amount_minor: n(c.amountMinor),
    version: c.version, created_at: iso(c.createdAt), updated_at: iso(c.updatedAt),
    note: c.note ?? null, evidence: c.evidence ?? null,
    // Each note's event: the first is always the opening's (ClaimOpened carries it in the claim it opens).
    notes: (c.notes ?? []).map((x, i) => ({ at: iso(x.at), operator: x.operatorId, status: x.status, note: x.note, event: x.event ?? (i === 0 ? 'ClaimOpened' : null) })),
    refund_minor: c.refundMinor === undefined ? null : n(c.refundMinor),
    refund_account: c.refundAccount ? { bank_code: c.refundAccount.bankCode, account_number_masked: maskAccountNumber(c.refundAccount.accountNumber), account_name_th_masked: maskName(c.refundAccount.accountNameTh) } : null,
    // Who the slip showed sending the transfer an automatic claim is for (the refund goes there, named by the operator, when it is not the order's sender).
    transfer_sender: c.transferSender ? { bank_code: c.transferSender.bankCode, account_number_masked: maskReadAccountNumber(c.transferSender.accountNumber), name_masked: maskName(c.transferSender.name) } : null,
    refund_withdrawal_id: c.refundWithdrawalId ?? null, refunded_minor: c.refundedMinor === undefined ? null : n(c.refundedMinor),
    // What the payer owes back: the deposit was reversed after the refunds paid this much of its transfer (ClaimRefundOwed).
    owed_by_payer_minor: c.owedByPayerMinor === undefined ? null : n(c.owedByPayerMinor),
    // What the payee owes the service: the claim's refunds paid out of suspense money the service never held, less what the payer owes back.
    owed_by_payee_minor: owedByPayeeOf(c) > 0n ? n(owedByPayeeOf(c)) : null,
    // What of that debt finance wrote off as a loss (two operators), less what the bank recovered of it since.
    written_off_minor: c.writtenOffMinor === undefined ? null : n(c.writtenOffMinor),
    // A write-off proposed by one finance operator, waiting for a second (it lapses at approve_by).
    write_off_proposal: writeOff ? {
      id: writeOff.id, amount_minor: n(writeOff.amountMinor), note: writeOff.note, proposed_by: writeOff.proposedBy,
      proposed_at: iso(writeOff.proposedAt), approve_by: iso(writeOff.proposedAt + limits.writeOffProposalTtlMs),
    } : null,
  };
}
