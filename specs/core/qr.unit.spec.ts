// The PromptPay QR payload (Thai QR Payment standard on EMVCo merchant-presented QR),
// checked against payloads built independently of core/qr.ts: the widely published
// amount-less example for mobile 0812345678, and bank-account payloads written out here
// field by field (tag 29, AID A000000677010111, sub-tag 04 = 3-digit bank code followed
// by the account number) with their CRC-16/CCITT-FALSE computed by a table-driven
// implementation written in this file. That CRC is itself pinned to the algorithm's
// standard check value and to the published example, so it cannot share a bug with the
// code under test.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { crc16, promptPayPayload } from '../../core/qr.ts';

// ---- an independent CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no xorout), table-driven ----

const crcTable: number[] = Array.from({ length: 256 }, (_, byte) => {
  let value = byte << 8;
  for (let bit = 0; bit < 8; bit++) value = (value & 0x8000 ? (value << 1) ^ 0x1021 : value << 1) & 0xffff;
  return value;
});

function referenceCrc(text: string): string {
  let crc = 0xffff;
  for (const byte of new TextEncoder().encode(text)) crc = ((crc << 8) & 0xffff) ^ crcTable[((crc >> 8) ^ byte) & 0xff]!;
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * Published PromptPay examples for mobile 0812345678 (0066812345678), as the promptpay-qr
 * npm package and many projects print them: no amount (static, 11), 13.81 and 150.00 baht
 * (dynamic, 12). The amount-less one is sometimes quoted ending in 8956; its checksum is
 * 5D82 (both CRCs here agree, and 8956 fails the standard check value's algorithm).
 */
const publishedMobileExamples = [
  '00020101021129370016A000000677010111011300668123456785802TH530376463045D82',
  '00020101021229370016A000000677010111011300668123456785802TH5303764540513.8163046AC1',
  '00020101021229370016A000000677010111011300668123456785802TH53037645406150.006304CC46',
];

/** Splits a top-level EMV payload into [tag, value] pairs; throws on a length that overruns. */
function tlvs(payload: string): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < payload.length;) {
    const tag = payload.slice(i, i + 2);
    const length = Number(payload.slice(i + 2, i + 4));
    const value = payload.slice(i + 4, i + 4 + length);
    if (!/^\d{2}$/.test(payload.slice(i + 2, i + 4)) || value.length !== length) throw new Error(`bad TLV at ${i}`);
    out.push([tag, value]);
    i += 4 + length;
  }
  return out;
}

test('the reference CRC is CRC-16/CCITT-FALSE: check value 29B1 and the published PromptPay examples', () => {
  assert.is(referenceCrc('123456789'), '29B1');
  for (const example of publishedMobileExamples) assert.is(referenceCrc(example.slice(0, -4)), example.slice(-4));
});

test('crc16 agrees with the published examples and the standard check string', () => {
  assert.is(crc16('123456789'), '29B1');
  for (const example of publishedMobileExamples) assert.is(crc16(example.slice(0, -4)), example.slice(-4));
});

test('a bank account goes under tag 29 sub-tag 04 as bank code + account number (never sub-tag 03, the e-Wallet ID)', () => {
  // Written out field by field: 00 format, 01 point of initiation 12 (one-time, amount given),
  // 29 { 00 AID, 04 "004" + "1234567890" }, 53 currency 764, 54 amount, 58 TH, 63 CRC.
  const body = '000201' + '010212'
    + '2937' + '0016A000000677010111' + '0413' + '004' + '1234567890'
    + '5303764' + '5406500.00' + '5802TH' + '6304';
  const expected = body + referenceCrc(body);
  assert.is(promptPayPayload({ bankCode: '004', accountNumber: '1234567890' }, 50_000n), expected);
  const fields = new Map(tlvs(expected));
  assert.equal(tlvs(fields.get('29')!), [['00', 'A000000677010111'], ['04', '0041234567890']]);
});

test('another bank and a 12-digit account with separators: the digits only, the length counted', () => {
  const body = '000201' + '010212'
    + '2939' + '0016A000000677010111' + '0415' + '014' + '123456789012'
    + '5303764' + '54041.01' + '5802TH' + '6304';
  assert.is(promptPayPayload({ bankCode: '014', accountNumber: '1234-5678-9012' }, 101n), body + referenceCrc(body));
});

test('amounts are baht with exactly two decimals from integer satang', () => {
  const amountOf = (minor: bigint) => new Map(tlvs(promptPayPayload({ bankCode: '004', accountNumber: '1234567890' }, minor))).get('54');
  assert.is(amountOf(1n), '0.01');
  assert.is(amountOf(10n), '0.10');
  assert.is(amountOf(100n), '1.00');
  assert.is(amountOf(12_345n), '123.45');
  assert.is(amountOf(2_000_000_000n), '20000000.00');
  assert.is(amountOf(9_007_199_254_740_993n), '90071992547409.93', 'beyond 2^53: no float anywhere');
});

test('every payload ends in a CRC over everything before it, as the reference computes it', () => {
  for (const [bankCode, accountNumber, minor] of [['002', '0001112223', 2_000n], ['025', '9876543210', 20_000_000n], ['004', '1234567890', 99n]] as const) {
    const payload = promptPayPayload({ bankCode, accountNumber }, minor);
    assert.ok(payload.slice(-8, -4) === '6304', 'tag 63 of length 4 comes last');
    assert.is(payload.slice(-4), referenceCrc(payload.slice(0, -4)));
    assert.equal(tlvs(payload).map(([tag]) => tag), ['00', '01', '29', '53', '54', '58', '63']);
  }
});

test.run();
