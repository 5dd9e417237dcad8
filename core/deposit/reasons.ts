// Review reasons: who can act on each (actionable_by, from the contract), the order of
// importance that reasons[] keeps (reasons[0] is shown when space is short), and the
// ready-to-show texts. Order: evidence that may be fake or reused first, then where the
// money went, then who sent it, then timing and process holds; AMOUNT_MISMATCH last,
// because it never opens a review on its own.

import type { ReviewReason, ReviewReasonCode } from './state.ts';

export const reasonImportance: readonly ReviewReasonCode[] = [
  'DUPLICATE_SLIP', 'SLIP_INVALID', 'CANCELED_ORDER_SLIP', 'RISK_HOLD', 'RECEIVER_MISMATCH',
  'SETTLE_CONFLICT', 'ALLOCATION_CONFLICT', 'AMBIGUOUS_MATCH', 'SENDER_ACCOUNT_MISMATCH',
  'SENDER_BANK_MISMATCH', 'SENDER_NAME_MISMATCH', 'SENDER_ACCOUNT_UNAVAILABLE', 'LATE_SLIP',
  'TIME_WINDOW', 'LATE_ROUTE_CONFIRMATION', 'ROUTE_VERIFICATION_PENDING', 'BANK_DISABLED',
  'NO_SLIP_IMAGE', 'PROVIDER_UNAVAILABLE', 'AMOUNT_MISMATCH',
];

const endUser = new Set<ReviewReasonCode>([
  'AMOUNT_MISMATCH', 'SENDER_BANK_MISMATCH', 'SENDER_ACCOUNT_MISMATCH', 'SENDER_NAME_MISMATCH',
  'RECEIVER_MISMATCH', 'DUPLICATE_SLIP',
]);

export function actionableBy(code: ReviewReasonCode): 'end_user' | 'support' {
  return endUser.has(code) ? 'end_user' : 'support';
}

/**
 * Each reason as a payer or a merchant reads it (the reason alone; what happens next is
 * added where it is shown: reviewDisplay, declinedDisplay).
 */
export const reasonTexts: Readonly<Record<ReviewReasonCode | 'SLIP_UNREADABLE', { th: string; en: string }>> = {
  AMOUNT_MISMATCH: { th: 'ยอดโอนไม่ตรงกับยอดที่ต้องชำระ', en: 'The transferred amount differs from the amount due.' },
  TIME_WINDOW: { th: 'เวลาโอนอยู่นอกช่วงเวลาของรายการ', en: 'The transfer time is outside the order window.' },
  SENDER_BANK_MISMATCH: { th: 'ธนาคารผู้โอนไม่ตรงกับที่แจ้งไว้', en: 'The sending bank differs from the registered one.' },
  SENDER_ACCOUNT_MISMATCH: { th: 'บัญชีผู้โอนไม่ตรงกับที่แจ้งไว้', en: 'The sending account differs from the registered one.' },
  SENDER_NAME_MISMATCH: { th: 'ชื่อผู้โอนไม่ตรงกับที่แจ้งไว้', en: 'The sender name differs from the registered one.' },
  RECEIVER_MISMATCH: { th: 'บัญชีผู้รับไม่ตรงกับปลายทางของรายการ', en: 'The receiving account is not the order destination.' },
  BANK_DISABLED: { th: 'ระบบปิดการตรวจสอบสลิปของธนาคารนี้ชั่วคราว', en: 'Slip verification for this bank is temporarily off.' },
  DUPLICATE_SLIP: { th: 'สลิปนี้ถูกใช้แล้ว', en: 'This slip has already been used.' },
  SLIP_INVALID: { th: 'สลิปไม่ถูกต้อง', en: 'The slip is not valid.' },
  SLIP_UNREADABLE: { th: 'อ่านสลิปไม่ได้ กรุณาอัปโหลดรูปสลิปที่ชัดเจนและไม่ถูกตัดขอบ', en: 'The slip could not be read; please upload a clear, uncropped image of it.' },
  AMBIGUOUS_MATCH: { th: 'ข้อมูลบนสลิปไม่ชัดเจน', en: 'The slip details are ambiguous.' },
  PROVIDER_UNAVAILABLE: { th: 'ระบบตรวจสอบสลิปไม่พร้อมใช้งานชั่วคราว', en: 'Slip verification is temporarily unavailable.' },
  SENDER_ACCOUNT_UNAVAILABLE: { th: 'ไม่พบข้อมูลบัญชีผู้โอน', en: 'The sending account could not be read.' },
  LATE_SLIP: { th: 'โอนหลังรายการหมดอายุ', en: 'The transfer was made after the order expired.' },
  CANCELED_ORDER_SLIP: { th: 'โอนเข้ารายการที่ถูกยกเลิกแล้ว', en: 'The transfer was made to a canceled order.' },
  ALLOCATION_CONFLICT: { th: 'รายการต้องให้เจ้าหน้าที่จับคู่ยอด', en: 'The order allocation conflicts with another.' },
  SETTLE_CONFLICT: { th: 'รายการต้องให้เจ้าหน้าที่บันทึกยอด', en: 'The destination could not take this settlement.' },
  ROUTE_VERIFICATION_PENDING: { th: 'รอยืนยันช่องทางรับเงิน', en: 'The receiving route is awaiting confirmation.' },
  LATE_ROUTE_CONFIRMATION: { th: 'ช่องทางรับเงินยืนยันหลังปิดรายการ', en: 'The route confirmed after the order closed.' },
  NO_SLIP_IMAGE: { th: 'ไม่มีรูปสลิป', en: 'No slip image was provided.' },
  RISK_HOLD: { th: 'รายการถูกระงับเพื่อตรวจสอบความเสี่ยง', en: 'The order is held for a risk check.' },
};

/**
 * A review reason as an order under review shows it: the reason, and for one only staff can
 * act on, that staff will check — so a payer waits rather than uploads again or pays twice.
 */
export function reviewDisplay(code: ReviewReasonCode): { th: string; en: string } {
  const t = reasonTexts[code];
  return actionableBy(code) === 'support' ? { th: `${t.th} รอเจ้าหน้าที่ตรวจสอบ`, en: `${t.en} Support will check.` } : t;
}

/** An order declined on review, as its rejection shows it: declined, why, and what a payer who paid does. */
export function declinedDisplay(code: ReviewReasonCode | undefined): { th: string; en: string } {
  const t = code ? reasonTexts[code] : undefined;
  return {
    th: `รายการนี้ไม่ผ่านการตรวจสอบ${t ? ` (${t.th})` : ''} หากท่านโอนเงินแล้ว กรุณาติดต่อร้านค้าพร้อมสลิปเพื่อขอคืนเงิน`,
    en: `The order was declined on review${t ? ` (${t.en.replace(/\.$/, '')})` : ''}. If you transferred money, contact the merchant with your slip for a refund.`,
  };
}

/** Deduplicates and orders reasons by importance; AMOUNT_MISMATCH only alongside another. */
export function orderReasons(reasons: readonly ReviewReason[]): ReviewReason[] {
  if (reasons.length === 0) return [];
  const seen = new Map<ReviewReasonCode, ReviewReason>();
  for (const r of reasons) if (!seen.has(r.code)) seen.set(r.code, r);
  if (seen.size === 1 && seen.has('AMOUNT_MISMATCH')) return [];
  return [...seen.values()].sort((a, b) => reasonImportance.indexOf(a.code) - reasonImportance.indexOf(b.code));
}
