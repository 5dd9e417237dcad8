// Request schemas (ajv, compiled once at start-up). Bodies refuse unknown fields; money
// must be an integer here and a safe one in the route; business rules (amount policy,
// balances, states) are the core's.

import { limits } from '../core/limits.ts';
import { compile } from './validate.ts';

export { visible, writtenText } from './text-rules.ts';
import { httpUrlText, visible, writtenText } from './text-rules.ts';
/** A merchant's reference or end-user ref: visible text, no white space at either end (validate.ts, x-trimmed). */
export const reference = { type: 'string', minLength: 1, maxLength: limits.referenceLengthMax, pattern: visible, 'x-trimmed': true } as const;
const bankCode = { type: 'string', pattern: '^[0-9]{3}$' } as const;
const accountNumber = { type: 'string', pattern: '^[0-9]{6,20}$' } as const;
const name = { type: 'string', minLength: 1, maxLength: 140, pattern: visible, 'x-readable': true } as const;
const money = { type: 'integer' } as const;
// Metadata is echoed in every answer and event: its keys take no control characters, its
// values those of written text only (tabs and line breaks kept), and neither half a
// surrogate pair, which strict JSON decoders refuse a whole webhook body for.
const metadata = {
  type: 'object', maxProperties: limits.metadataKeysMax,
  propertyNames: { minLength: 1, maxLength: limits.metadataKeyLengthMax, pattern: visible },
  additionalProperties: { type: 'string', maxLength: limits.metadataValueBytesMax, pattern: writtenText },
} as const;
// A deposit's metadata: 20 keys, values of 500 bytes (the contract); key length is the
// withdrawal Live profile's rule only, so a deposit's keys are bounded as its values are
// (bytes, checked in the route as the values are).
const depositMetadata = { ...metadata, propertyNames: { minLength: 1, maxLength: limits.depositMetadataKeyBytesMax, pattern: visible } } as const;
// The contract's "validated then excluded from stored metadata": an address that is an
// address, and text without control characters (`visible`, above).
const client = {
  type: 'object', additionalProperties: false,
  properties: {
    device_fingerprint: { type: 'string', minLength: 1, maxLength: 512, pattern: visible }, ip: { type: 'string', format: 'ip', maxLength: 64 },
    user_agent: { type: 'string', minLength: 1, maxLength: 1024, pattern: visible },
  },
} as const;

export interface CreateDepositBody {
  amount_minor: number; currency: 'THB'; merchant_reference: string; end_user_ref: string;
  sender?: { bank_code: string; account_number: string; account_name_th: string; account_name_en?: string };
  sender_id?: string; client?: Record<string, string>; fill_preference?: 'any' | 'internal_only';
  min_ttl_seconds?: number; expires_in_seconds?: number; return_url?: string; metadata?: Record<string, string>;
}

export const createDepositBody = compile<CreateDepositBody>({
  type: 'object', additionalProperties: false, required: ['amount_minor', 'currency', 'merchant_reference', 'end_user_ref'],
  properties: {
    amount_minor: money, currency: { const: 'THB' }, merchant_reference: reference, end_user_ref: reference,
    sender: {
      type: 'object', additionalProperties: false, required: ['bank_code', 'account_number', 'account_name_th'],
      properties: { bank_code: bankCode, account_number: accountNumber, account_name_th: name, account_name_en: name },
    },
    sender_id: { type: 'string', minLength: 1, maxLength: 64 }, client,
    fill_preference: { enum: ['any', 'internal_only'] },
    min_ttl_seconds: { type: 'integer', minimum: 0, maximum: limits.depositMinTtlSecondsMax },
    expires_in_seconds: { type: 'integer', minimum: limits.depositExpiresInSecondsMin, maximum: limits.depositExpiresInSecondsMax },
    return_url: { type: 'string', format: 'uri', maxLength: 2048, pattern: httpUrlText }, metadata: depositMetadata,
  },
});

export interface CreateWithdrawalBody {
  amount_minor: number; currency: 'THB'; merchant_reference: string; end_user_ref: string;
  beneficiary_id?: string; beneficiary?: { bank_code: string; account_number: string; account_name_th: string; promptpay_id?: string };
  client?: Record<string, string>; metadata?: Record<string, string>;
}

export const createWithdrawalBody = compile<CreateWithdrawalBody>({
  type: 'object', additionalProperties: false, required: ['amount_minor', 'currency', 'merchant_reference', 'end_user_ref'],
  properties: {
    amount_minor: money, currency: { const: 'THB' }, merchant_reference: reference, end_user_ref: reference,
    beneficiary_id: { type: 'string', pattern: '^ben_[0-9a-f]{32}$' },
    beneficiary: {
      type: 'object', additionalProperties: false, required: ['bank_code', 'account_number', 'account_name_th'],
      properties: { bank_code: bankCode, account_number: accountNumber, account_name_th: name, promptpay_id: { type: 'string', pattern: '^[0-9]{10,13}$' } },
    },
    client, metadata,
  },
});

export interface CreateBeneficiaryBody { bank_code: string; account_number: string; account_name_th: string; promptpay_id?: string }

export const createBeneficiaryBody = compile<CreateBeneficiaryBody>({
  type: 'object', additionalProperties: false, required: ['bank_code', 'account_number', 'account_name_th'],
  properties: { bank_code: bankCode, account_number: accountNumber, account_name_th: name, promptpay_id: { type: 'string', pattern: '^[0-9]{10,13}$' } },
});

export const cancelBody = compile<{ reason?: string }>({
  type: 'object', additionalProperties: false, properties: { reason: { type: 'string', maxLength: 500, pattern: writtenText } },
});

export const disputeEvidenceBody = compile<{ text: string; files?: { name: string; content_base64: string }[] }>({
  type: 'object', additionalProperties: false, required: ['text'],
  properties: {
    text: { type: 'string', minLength: 1, maxLength: limits.noteLengthMax, pattern: writtenText },
    files: { type: 'array', maxItems: 5, items: { type: 'object', additionalProperties: false, required: ['name', 'content_base64'], properties: { name: { type: 'string', minLength: 1, maxLength: 200, pattern: visible }, content_base64: { type: 'string', minLength: 4, maxLength: 7_000_000, pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$' } } } },
  },
});

/** A list's page size: digits, 1 to limits.pageSizeMax (the route names the maximum when it is passed). */
const pageSize = { type: 'string', pattern: '^[1-9][0-9]{0,2}$', description: `an integer from 1 to ${limits.pageSizeMax}` } as const;

export const listDepositsQuery = compile<{ limit?: string; status?: string; updated_after?: string; cursor?: string }>({
  type: 'object', additionalProperties: false,
  properties: {
    limit: pageSize,
    status: { enum: ['awaiting_liquidity', 'awaiting_payment', 'slip_processing', 'under_review', 'settled', 'expired', 'canceled', 'rejected', 'reversed'] },
    updated_after: { type: 'string', format: 'date-time' }, cursor: { type: 'string', minLength: 1, maxLength: 512 },
  },
}, { in: 'query' });

export const listWithdrawalsQuery = compile<{ limit?: string; status?: string; updated_after?: string; cursor?: string }>({
  type: 'object', additionalProperties: false,
  properties: {
    limit: pageSize,
    status: { enum: ['pending_approval', 'open', 'partially_filled', 'settled', 'expired', 'canceled', 'rejected'] },
    updated_after: { type: 'string', format: 'date-time' }, cursor: { type: 'string', minLength: 1, maxLength: 512 },
  },
}, { in: 'query' });

export const quoteQuery = compile<{ channel: 'withdrawal'; amount_minor: string }>({
  type: 'object', additionalProperties: false, required: ['channel', 'amount_minor'],
  properties: { channel: { const: 'withdrawal' }, amount_minor: { type: 'string', pattern: '^(0|[1-9][0-9]{0,15})$' } }, // decimal digits, no sign or leading zero (as every number the API reads from a query)
}, { in: 'query' });

export const sendersQuery = compile<{ end_user_ref: string }>({
  type: 'object', additionalProperties: false, required: ['end_user_ref'], properties: { end_user_ref: reference },
}, { in: 'query' });

export const emptyQuery = compile<Record<string, never>>({ type: 'object', additionalProperties: false, properties: {} }, { in: 'query' });
/** A body that must be empty (none, or {}). */
export const emptyBody = compile<Record<string, never>>({ type: 'object', additionalProperties: false, properties: {} });
