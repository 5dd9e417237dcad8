// The contract's error codes, as one closed list the core names its refusals with.
// The server maps each code to HTTP status, type, retryable and messages in exactly one
// place (server/errors.ts), keyed by this list, so a code added here fails to compile
// until it has a row there.

export const errorCodes = [
  'signature_invalid',
  'timestamp_out_of_window',
  'nonce_replayed',
  'api_key_invalid',
  'api_key_revoked',
  'tenant_suspended',
  'scope_denied',
  'idempotency_key_required',
  'malformed_json',
  'unsupported_media_type',
  'cursor_filter_mismatch',
  'validation_error',
  'sender_required',
  'amount_not_supported',
  'amount_below_p2p_minimum',
  'review_note_required',
  'invalid_cursor',
  'insufficient_balance',
  'resource_not_found',
  'idempotency_key_reused',
  'idempotency_in_flight',
  'sender_bank_unavailable',
  'duplicate_open_deposit',
  'too_many_open_deposits',
  'deposit_not_cancelable',
  'withdrawal_has_pending_fill',
  'withdrawal_not_cancelable',
  'beneficiary_not_verified',
  'alloc_state_conflict',
  'withdrawal_state_conflict',
  'sandbox_run_changed',
  'late_slip_window_closed',
  'sandbox_history_cursor_expired',
  'rate_limited',
  'sandbox_rate_limited',
  'route_unavailable',
  'service_unavailable',
  'slip_intake_unavailable',
  'history_not_ready',
  'sandbox_balance_history_not_ready',
  'internal_error',
  // Beyond the contract's table (open enum of error codes): the beneficiary APIs are
  // refused in the live_p2p profile (DESIGN.md), and the back office needs a refusal for
  // an operator action not allowed in the current state.
  'feature_not_enabled',
  'operation_not_allowed',
  // Also beyond the table, for the HTTP layer: a known path asked with another method
  // (405, with Allow), a request body that did not arrive before its deadline (408), and a
  // request Node's HTTP parser refused before any route saw it (400).
  'method_not_allowed',
  'request_timeout',
  'malformed_request',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

/** A refusal: a value naming the contract's error code, never a thrown exception. */
export interface Rejection {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

export function reject(code: ErrorCode, message: string, details?: Record<string, unknown>): Rejection {
  return details === undefined ? { code, message } : { code, message, details };
}

/** Whether a decision is a refusal (the other kinds of decision are arrays or plain records without a code). */
export function isRejection(x: unknown): x is Rejection {
  return typeof x === 'object' && x !== null && 'code' in x && !Array.isArray(x);
}
