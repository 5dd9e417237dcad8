// The PromptPay QR payload (EMVCo merchant-presented format, Thai QR standard) for a
// transfer to a bank account with a fixed amount. The string is secret-ish: never
// logged, stored or forwarded (contract); it is built only when a response renders it.

import type { Minor } from './money.ts';

function tlv(tag: string, value: string): string {
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

export function promptPayPayload(accountNumber: string, amountMinor: Minor): string {
  const account = tlv('00', 'A000000677010111') + tlv('03', accountNumber.replace(/\D/g, ''));
  const baht = `${amountMinor / 100n}.${String(amountMinor % 100n).padStart(2, '0')}`;
  const body = tlv('00', '01') + tlv('01', '12') + tlv('29', account) + tlv('53', '764') + tlv('54', baht) + tlv('58', 'TH') + '6304';
  return body + crc16(body);
}
