// The slip provider protocol (DESIGN.md "Slip verification"), spoken by the bank
// simulator and expected of a real provider at SATANG_SLIP_PROVIDER_URL:
//
//   POST /verify {payload?, image_sha256} → 200 {status: 'found' | 'not_found' | 'unreadable', transfer?}
//   transfer: {trans_ref, amount_minor, sender {bank_code, account_number, account_name_th},
//              receiver {bank_code, account_number, account_name}, occurred_at}
//
// Both verifier adapters read answers through verdictOf, so the simulator in-process and
// a provider over HTTP are held to the same shape. Invariant kept: an answer that is not
// exactly a verdict (a 'found' without a complete transfer, an amount that is not a
// positive safe integer, an unknown status) is provider_unavailable — never a settlement.

import type { SlipEvidence, SlipVerdict } from '../../core/ports.ts';
import type { SlipTransfer } from '../../core/deposit/verification.ts';

export interface TransferJson {
  readonly trans_ref: string;
  readonly amount_minor: number;
  readonly sender: { readonly bank_code: string; readonly account_number: string; readonly account_name_th: string };
  readonly receiver: { readonly bank_code: string; readonly account_number: string; readonly account_name: string };
  readonly occurred_at: string;
}

export interface VerifyRequestJson {
  readonly payload?: string;
  readonly image_sha256: string;
}

export interface VerifyResponseJson {
  readonly status: 'found' | 'not_found' | 'unreadable';
  readonly transfer?: TransferJson;
}

const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch of an RFC 3339 date-time, or null. */
export function instantOf(value: unknown): number | null {
  if (typeof value !== 'string' || !rfc3339.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

export function verifyRequestOf(evidence: SlipEvidence): VerifyRequestJson {
  return evidence.payload === undefined ? { image_sha256: evidence.imageSha256 } : { payload: evidence.payload, image_sha256: evidence.imageSha256 };
}

const unavailable: SlipVerdict = { kind: 'provider_unavailable' };

/** A provider's 200 body as a verdict; anything that is not exactly one is provider_unavailable. */
export function verdictOf(body: unknown): SlipVerdict {
  if (!isObject(body)) return unavailable;
  switch (body.status) {
    case 'not_found': return { kind: 'not_found' };
    case 'unreadable': return { kind: 'unreadable' };
    case 'found': {
      const transfer = transferOf(body.transfer);
      return transfer ? { kind: 'found', transfer } : unavailable;
    }
    default: return unavailable;
  }
}

function transferOf(value: unknown): SlipTransfer | null {
  if (!isObject(value) || !isObject(value.sender) || !isObject(value.receiver)) return null;
  const { trans_ref: transRef, amount_minor: amount, sender, receiver } = value;
  const occurredAt = instantOf(value.occurred_at);
  const texts = [transRef, sender.bank_code, sender.account_number, sender.account_name_th, receiver.bank_code, receiver.account_number, receiver.account_name];
  if (!texts.every((t) => typeof t === 'string') || (transRef as string).length === 0) return null;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0 || occurredAt === null) return null;
  return {
    transRef: transRef as string, amountMinor: BigInt(amount), occurredAt,
    sender: { bankCode: sender.bank_code as string, accountNumber: sender.account_number as string, name: sender.account_name_th as string },
    receiver: { bankCode: receiver.bank_code as string, accountNumber: receiver.account_number as string, name: receiver.account_name as string },
  };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
