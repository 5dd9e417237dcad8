// What a payer's screen can show when the slip upload is refused (contract: message_th is
// for staff; end-user text goes in details.public_message_th). The upload is the one route
// a payer's own device calls, with the capability, so each of its refusals carries a Thai
// sentence an app can show as it is: what went wrong in the payer's terms and what to do
// (choose another image, wait, or go back to the merchant), never how the API failed.
// errorMiddleware adds it to the slip upload's answers (server/errors.ts).

import type { ErrorCode } from '../../core/errors.ts';
import { slipUploadLimits } from '../../core/limits.ts';
import type { ErrorDetails } from '../errors.ts';

const contactMerchant = 'กรุณาติดต่อร้านค้า';
/**
 * A capability that does not open this upload: expired, altered, or none (one sentence,
 * whatever failed). Never "open a new link": a payer who has paid would start a new order
 * and pay again.
 */
const linkNotValid = 'ลิงก์อัปโหลดสลิปนี้ใช้ไม่ได้หรือหมดอายุแล้ว หากท่านโอนเงินไปแล้ว กรุณาอย่าโอนซ้ำ และติดต่อร้านค้าพร้อมสลิป';
/** A request the merchant's app built wrong (a field, a header, the multipart): nothing the payer can mend by choosing another image. */
const appFault = 'ไม่สามารถส่งสลิปได้เนื่องจากข้อผิดพลาดของระบบร้านค้า กรุณาติดต่อร้านค้า';

/** The reasons of a refused upload a payer can act on, by details.fields[].reason. */
const byReason: Readonly<Record<string, string>> = {
  too_large: `ไฟล์รูปสลิปใหญ่เกินไป (ไม่เกิน ${slipUploadLimits.evidenceBytesMax / (1024 * 1024)} MB) กรุณาเลือกรูปที่เล็กลง`,
  upload_limit_reached: `อัปโหลดสลิปของรายการนี้ครบจำนวนครั้งแล้ว ${contactMerchant}`,
  not_accepting_slips: `รายการนี้ไม่รับสลิปแล้ว ${contactMerchant}`,
  incomplete: 'ส่งไฟล์ไม่ครบ กรุณาลองอัปโหลดใหม่อีกครั้ง',
  invalid_base64: 'ไม่สามารถอ่านไฟล์รูปสลิปได้ กรุณาเลือกรูปใหม่',
  required: 'ไม่พบไฟล์รูปสลิป กรุณาเลือกรูปแล้วอัปโหลดใหม่',
  // What a payer typed for a slip without an image (the transfer's details).
  in_the_future: 'เวลาโอนที่กรอกอยู่ในอนาคต กรุณาตรวจสอบวันและเวลาโอนบนสลิป',
  unknown_bank: 'ไม่รู้จักธนาคารผู้โอนที่เลือก กรุณาเลือกธนาคารใหม่',
};

const byCode: Partial<Readonly<Record<ErrorCode, string>>> = {
  signature_invalid: linkNotValid,
  api_key_invalid: linkNotValid,
  resource_not_found: `ไม่พบรายการชำระเงินนี้ ${contactMerchant}`,
  unsupported_media_type: 'รองรับเฉพาะรูปภาพสลิป (JPEG, PNG, WebP หรือ HEIC) กรุณาเลือกรูปสลิปใหม่',
  malformed_json: 'ไม่สามารถอ่านคำขออัปโหลดได้ กรุณาลองใหม่อีกครั้ง',
  late_slip_window_closed: `เลยเวลารับสลิปของรายการนี้แล้ว ${contactMerchant}`,
  idempotency_in_flight: 'กำลังรับสลิปนี้อยู่ กรุณารอสักครู่',
  idempotency_key_reused: 'มีการอัปโหลดไฟล์อื่นในคำขอเดียวกัน กรุณาเริ่มอัปโหลดใหม่',
  rate_limited: 'อัปโหลดบ่อยเกินไป กรุณารอประมาณ 1 นาทีแล้วลองใหม่', // 20 a minute: the window is a minute
  request_timeout: 'อัปโหลดนานเกินไป กรุณาลองใหม่ในที่ที่สัญญาณดีกว่า',
  validation_error: appFault, // the image's own faults have their sentences above (byReason)
  idempotency_key_required: appFault,
};

/** The Thai sentence for a payer's screen for a refused slip upload. */
export function payerMessageTh(code: ErrorCode, details: ErrorDetails): string {
  const fields = (details as { fields?: readonly { path?: string; reason?: string }[] }).fields ?? [];
  for (const f of fields) {
    if (f.reason === undefined || byReason[f.reason] === undefined) continue;
    if (f.reason === 'required' && f.path !== 'file' && f.path !== 'image_base64') continue; // a claim's own field, not the image
    return byReason[f.reason]!;
  }
  return byCode[code] ?? 'ระบบขัดข้องชั่วคราว กรุณาลองใหม่อีกครั้งในภายหลัง';
}
