// The PromptPay QR payload (EMVCo merchant-presented format, Thai QR Payment standard) for
// a one-time transfer of a fixed amount to a bank account. The string is secret-ish: never
// logged, stored or forwarded (contract); it is built only when a response renders it.
//
// Layout: 00 payload format "01"; 01 point of initiation "12" (dynamic: one order, one
// amount); 29 PromptPay credit transfer { 00 AID A000000677010111, 04 bank account = the
// 3-digit bank code followed by the account number }; 53 currency "764" (THB); 54 amount
// in baht with two decimals; 58 country "TH"; 63 CRC-16/CCITT-FALSE over everything before
// it, "6304" included. Sub-tags 01–03 of tag 29 are mobile number, national/tax ID and
// e-Wallet ID: a bank account number under any of them is not a transfer to that account.

import { assert } from './assert.ts';
import type { Minor } from './money.ts';

const promptPayCreditTransferAid = 'A000000677010111';
const bankAccountSubTag = '04';
/** EMV values are at most 99 characters (two length digits). */
const tlvValueLengthMax = 99;
/**
 * The most one QR may ask for: EMVCo's tag 54 (the amount) is at most 13 characters, so
 * 9999999999.99 baht; a longer amount is a QR no banking app reads.
 */
export const qrAmountMinorMax = 999_999_999_999;

function tlv(tag: string, value: string): string {
  assert(value.length <= tlvValueLengthMax, () => `QR tag ${tag}: value of ${value.length} characters`);
  return tag + String(value.length).padStart(2, '0') + value;
}

/** CRC-16/CCITT-FALSE over the payload, as EMVCo requires (tag 63). */
export function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** Integer satang as baht with exactly two decimals ("500.00"), in bigint arithmetic only. */
function baht(amountMinor: Minor): string {
  return `${amountMinor / 100n}.${String(amountMinor % 100n).padStart(2, '0')}`;
}

export interface QrReceiver {
  /** The receiving bank's 3-digit code (GET /v1/pay/banks). */
  readonly bankCode: string;
  readonly accountNumber: string;
}

export function promptPayPayload(receiver: QrReceiver, amountMinor: Minor): string {
  const account = receiver.accountNumber.replace(/\D/g, '');
  assert(/^\d{3}$/.test(receiver.bankCode), () => `QR receiver bank code ${JSON.stringify(receiver.bankCode)} is not 3 digits`);
  assert(account.length > 0, () => 'QR receiver has no account number');
  assert(amountMinor > 0n, () => `QR amount ${amountMinor} is not positive`);
  const merchantAccount = tlv('00', promptPayCreditTransferAid) + tlv(bankAccountSubTag, receiver.bankCode + account);
  const body = tlv('00', '01') + tlv('01', '12') + tlv('29', merchantAccount) + tlv('53', '764') + tlv('54', baht(amountMinor)) + tlv('58', 'TH') + '6304';
  return body + crc16(body);
}
