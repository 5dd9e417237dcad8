// The reusable parts of the OpenAPI document: response object schemas (written from the
// contract's Resources tables and core/present.ts, required keys only — the contract's
// rule 7 lets clients expect unknown fields, so objects stay open), the error object and
// one error response per HTTP status built from the error catalogue (server/errors.ts),
// the headers every answer carries, and the three security schemes.
//
// Invariant kept: every code of the catalogue appears in exactly one error response, the
// one of its status, so a code added to the catalogue reaches the document by itself.

import { depositStatuses } from '../../core/deposit/state.ts';
import type { ErrorCode } from '../../core/errors.ts';
import { durations, limits } from '../../core/limits.ts';
import { withdrawalStatuses } from '../../core/withdrawal/state.ts';
import { catalogue, errorBody } from '../errors.ts';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const bool: Schema = { type: 'boolean' };
/** Convention 2: RFC 3339 UTC with exactly three fractional digits. */
const instant: Schema = { type: 'string', pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$' };
const nullable = (s: Schema): Schema => ({ oneOf: [s, { type: 'null' }] });
const decimalString: Schema = { type: 'string', pattern: '^-?(0|[1-9][0-9]*)$' };

function object(required: Record<string, Schema>, optional: Record<string, Schema> = {}): Schema {
  return { type: 'object', required: Object.keys(required), properties: { ...required, ...optional } };
}

const balances = object({ available_minor: int, pending_clearing_minor: int, reserved_minor: int });
const feeLine = object({ component: str, amount_minor: int }, { rate_bps: int });

/** A white label's fee schedule and amount limits, flat as POST /v1/bo/white-labels/{id}/fees takes them (the VAT rates among them). */
const feeScheduleFields = {
  white_label_id: str, deposit_processing_fee_bps: int, deposit_vat_bps: int, withdrawal_fixed_fee_minor: int, withdrawal_vat_bps: int,
  deposit_min_minor: int, deposit_max_minor: int, deposit_step_minor: int, withdrawal_min_minor: int, withdrawal_max_minor: int,
};

const reasonText = { code: str, display_th: str, display_en: str };

/** A finance report's period (core/finance/statement.ts periodLabel): its days in Bangkok, and the instants they span. */
const day: Schema = { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' };
const reportPeriod = { date_from: day, date_to: day, time_zone: { const: 'Asia/Bangkok' }, period_start: instant, period_end: instant, as_of: instant };
const reportPeriodNamed = { month: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}$' }, date: day };
const feeSums = object({ count: int, fee_minor: int, vat_minor: int, total_minor: int });
const feeNet = { charged: feeSums, refunded: feeSums, fee_minor: int, vat_minor: int, total_minor: int };
const statement = object({
  object: { const: 'statement' }, merchant_id: str, merchant_name: str, livemode: bool, currency: { const: 'THB' }, ...reportPeriod,
  buckets: {
    type: 'array', items: object({
      bucket: { enum: ['available', 'pending_clearing', 'reserved'] }, opening_minor: int, closing_minor: int,
      movements: { type: 'array', items: object({ type: str, count: int, credit_minor: int, debit_minor: int, net_minor: int }) },
    }),
  },
}, reportPeriodNamed);
const feeReport = object({
  object: { const: 'fee_report' }, livemode: bool, currency: { const: 'THB' }, ...reportPeriod,
  merchants: { type: 'array', items: object({ merchant_id: str, merchant_name: str, white_label_id: str, ...feeNet }) },
  totals: object(feeNet),
}, reportPeriodNamed);
const depositOrder = object({
  id: { type: 'string', pattern: '^dep_' }, object: { const: 'deposit_order' }, livemode: bool, version: int,
  status: { enum: [...depositStatuses] }, is_terminal: bool, merchant_reference: str, amount_minor: int, currency: { const: 'THB' },
  created_at: instant, expires_at: instant,
  sender: object({ bank_code: str, account_number_masked: str, account_name_th_masked: str }),
}, {
  // Present as the contract's deposit_order says, by status (a generated client keeps them).
  liquidity_source: { enum: ['internal', 'external_gateway'] }, leg_count: int,
  legs: { type: 'array', items: object({ leg_ref: str, sequence: int, amount_minor: int, expires_at: instant, leg_status: { enum: ['pending', 'complete'] },
    receiver: object({ bank_code: str, bank_name_th: str, account_number_masked: str, account_name_masked: str }) }, { method: str, qr_payload: str, qr_image_url: str }) },
  slip_upload: ref('SlipUpload'), checkout_url: str,
  verification: object({ amount_exact: bool, within_time_window: bool, sender_bank_match: bool, sender_account_match: bool, sender_name_match: bool, receiver_match: bool }),
  review: object({ opened_at: instant, escalated: bool, four_eyes_required: bool, estimated_resolution_bucket: str,
    reasons: { type: 'array', items: object({ ...reasonText, actionable_by: str }, { detail: { type: 'object' } }) } }),
  slip: object({ received_at: instant, is_late: bool }),
  liquidity: object({ wait_started_at: instant, estimated_wait_ms: int, retry_interval_ms: int, suggested_amounts_minor: { type: 'array', items: int } }),
  metadata: { type: 'object', additionalProperties: str }, late_slip_accepted_until: nullable(instant),
  expired_reason: str, canceled_by: str, cancel_reason_code: str,
  rejection: object(reasonText, { retryable: bool, attempts_left: int }),
  reversal: object({ reason_code: str, reverses_balance_transaction_id: str, balance_transaction_id: str }),
  ordered_amount_minor: int, transferred_amount_minor: int, amount_received_minor: int, fee_total_minor: int, credited_amount_minor: int,
  overpayment: nullable(object({ claim_id: str, cause: str, amount_minor: int, slip_received_at: instant, status: str, action_required: str })),
  partial: bool, settled_via: str, balance_transaction_id: str, settled_at: instant, clearing_available_at: nullable(instant),
  fee_breakdown: { type: 'array', items: feeLine },
});

/**
 * GET /v1/bo/dashboard (README "Dashboard, wallet, directories"): every figure with its as_of,
 * those from projections with the journal_seq they reflect; the hourly series have one entry
 * per hour of the business day (00:00 Bangkok), named by its start in UTC.
 */
const dashboard = (() => {
  const projected = { as_of: instant, journal_seq: int };
  const rate = nullable({ type: 'number', minimum: 0, maximum: 1 });
  const list = (items: Schema): Schema => ({ type: 'array', items });
  const hoursPerDay = durations.day / durations.hour;
  const day = (items: Schema): Schema => ({ type: 'array', minItems: hoursPerDay, maxItems: hoursPerDay, items });
  const byStatus = list(object({ status: str, count: int, amount_minor: int }));
  return object({
    object: { const: 'dashboard' }, livemode: bool, merchant_id: nullable(str), day_started_at: instant,
    orders_today: object({ deposits: byStatus, withdrawals: byStatus, ...projected }),
    volumes_today: object({ deposits_received_minor: int, withdrawals_filled_minor: int, ...projected }),
    volumes_by_hour: object({ hours: day(object({ hour_start: instant, deposits_settled_count: int, deposits_settled_minor: int, withdrawals_filled_minor: int })), ...projected }),
    review_queue: object({
      size: int, oldest_age_seconds: nullable(int),
      age_buckets: list(object({ label: str, min_seconds: int, max_seconds: nullable(int), count: int })), ...projected,
    }),
    liquidity_waiting: object({ deposits: int, amount_minor: int, ...projected }),
    webhooks_last_24h: object({
      endpoints: list(object({ endpoint_id: str, merchant_id: str, url: str, status: str, disabled_reason: nullable(str), flagged: bool, failing_since: nullable(instant), failed_attempts_since_last_success: int, last_success_at: nullable(instant), deliveries: int, delivered: int, failed: int, pending: int, canceled: int, failure_rate: rate })),
      as_of: instant,
    }),
    slip_provider_today: object({ slips: int, provider_unavailable: int, error_rate: rate, ...projected }),
    slip_provider_by_hour: object({ hours: day(object({ hour_start: instant, slips: int, provider_errors: int })), ...projected }),
  });
})();

const withdrawalOrder = object({
  id: { type: 'string', pattern: '^wdr_' }, object: { const: 'withdrawal_order' }, livemode: bool, version: int, status: { enum: [...withdrawalStatuses] },
  merchant_reference: str, end_user_ref: str, beneficiary_id: str, currency: { const: 'THB' },
  amount_total_minor: int, fee_total_minor: int, total_locked_minor: int, fee_recognized_minor: int, filled_minor: int, remaining_minor: int,
  refunded_minor: int, settled_splits: int, max_splits: int, created_at: instant, expires_at: instant, requires_approval: bool,
}, {
  reserved_minor: int, reserved_balance_transaction_id: str, fee_breakdown: { type: 'array', items: feeLine },
  fills: { type: 'array', items: object({ leg_ref: str, sequence: int, amount_minor: int, settled_at: instant, auto_confirm_at: instant }, { fee_recognized_minor: int, balance_transaction_id: str, receipt_state: { enum: ['pending', 'confirmed', 'auto_confirmed', 'reversed'] }, reversed_at: instant, reversal_reason_code: str, reversal_balance_transaction_id: str }) },
  dispute: ref('Dispute'), rejection: object(reasonText), canceled_by: str, cancel_reason_code: str, metadata: { type: 'object', additionalProperties: str },
  refund_of_deposit_id: str, replacement_of_withdrawal_id: str,
});

const errorObject = {
  type: 'object', additionalProperties: false,
  required: ['code', 'type', 'message', 'message_th', 'retryable', 'retry_after_seconds', 'request_id', 'details'],
  properties: {
    // An open set (the contract's Versioning: a new error code is not a breaking change): the
    // codes answered today are listed as examples, and a client must take one it does not know.
    code: { type: 'string', pattern: '^[a-z][a-z0-9_]*$', examples: Object.keys(catalogue), description: 'An open set: the codes in examples, and any added later; branch on the ones you handle and treat the rest by HTTP status and retryable.' },
    type: { enum: [...new Set(Object.values(catalogue).map((e) => e.type))] },
    message: { type: 'string', minLength: 1 }, message_th: { type: 'string', minLength: 1 }, retryable: bool,
    retry_after_seconds: nullable({ type: 'integer', minimum: 0 }), request_id: { type: 'string', pattern: '^req_[0-9A-Z]{26}$' }, details: { type: 'object' },
  },
};

export const schemas: Record<string, Schema> = {
  Error: { type: 'object', additionalProperties: false, required: ['error'], properties: { error: errorObject } },
  DepositOrder: depositOrder,
  Statement: statement,
  FeeReport: feeReport,
  WithdrawalOrder: withdrawalOrder,
  SlipUpload: object({ token: str, expires_at: instant, upload_url: { type: 'string', format: 'uri' }, max_bytes: int, content_types: { type: 'array', items: str } }),
  SlipReceipt: object({ receipt_id: { type: 'string', pattern: '^rcpt_' }, status: { const: 'accepted' }, received_at: instant }),
  Dispute: object({ id: str, reason_code: str, amount_minor: int, opened_at: instant, respond_by: instant, funds_on_hold: bool }),
  Balance: object({ object: { const: 'balance' }, livemode: bool, available_minor: int, pending_clearing_minor: int, reserved_minor: int, currency: { const: 'THB' }, as_of: instant }),
  Balances: balances,
  BalanceTransaction: object({ id: str, object: { const: 'balance_transaction' }, type: str, direction: { enum: ['credit', 'debit'] }, amount_minor: { type: 'integer', minimum: 1 }, currency: { const: 'THB' }, balance_after: balances, created_at: instant }, {
    livemode: bool, bucket_from: nullable({ enum: ['available', 'pending_clearing', 'reserved'] }), bucket_to: nullable({ enum: ['available', 'pending_clearing', 'reserved'] }),
    available_at: instant, source: object({ type: str, id: str }), reverses_balance_transaction_id: str, cleared_from_balance_transaction_id: str, reason_code: str, reason_display_th: str,
  }),
  BalanceHistoryPage: object({
    contract: { const: 'merchant_balance_history_v1' }, schema_version: int, livemode: bool, currency: { const: 'THB' },
    data: { type: 'array', items: object({ id: str, object: { const: 'balance_transaction' }, sequence: decimalString, currency: { const: 'THB' }, created_at: instant, bucket_deltas: object({ available_minor: decimalString, pending_clearing_minor: decimalString, reserved_minor: decimalString }) }) },
    has_more: bool, next_sequence: decimalString, checkpoint: object({ sequence: decimalString }), as_of: instant,
  }),
  BalanceTransactionPage: object({
    object: { const: 'list' }, livemode: bool, has_more: bool, next_cursor: nullable(str),
    data: {
      type: 'array', items: object({
        id: { type: 'string', pattern: '^(btxn_|sbxbtxn_l_)' }, object: { const: 'balance_transaction' }, sequence: { type: 'string', pattern: '^[1-9][0-9]*$' },
        type: str, direction: { enum: ['credit', 'debit'] }, amount_minor: { type: 'integer', minimum: 1 },
        bucket_from: nullable({ enum: ['available', 'pending_clearing', 'reserved'] }), bucket_to: nullable({ enum: ['available', 'pending_clearing', 'reserved'] }),
        bucket_deltas: balances, source: object({ type: str, id: str }), created_at: instant, journal_seq: { type: 'integer', minimum: 1 },
      }, { reverses_balance_transaction_id: str, cleared_from_balance_transaction_id: str, reason_code: str }),
    },
  }),
  Quote: object({ object: { const: 'quote' }, livemode: bool, channel: str, amount_minor: int, fee_total_minor: int, total_minor: int, currency: { const: 'THB' }, fee_breakdown: { type: 'array', items: feeLine } }),
  Beneficiary: object({ id: { type: 'string', pattern: '^ben_' }, object: { const: 'beneficiary' }, livemode: bool, version: int, status: str, bank_code: str, account_number_masked: str, account_name_th_masked: str, created_at: instant }),
  Event: object({ id: { type: 'string', pattern: '^evt_' }, object: { const: 'event' }, type: str, api_version: str, livemode: bool, created_at: instant, sequence: int, account: object({ merchant_id: str, white_label_id: str }),
    data: object({ object: { type: 'object' } }, { previous_attributes: nullable({ type: 'object' }) }) }, { request: object({ id: str }, { idempotency_key: nullable(str) }) }),
  SigningKeys: object({ object: { const: 'list' }, keys: { type: 'array', items: object({
    kid: str, alg: { const: 'Ed25519' }, public_key: str, format: { const: 'spki_der_base64' }, raw_public_key: str,
    status: { enum: ['active', 'next', 'retired'] }, not_before: instant, not_after: nullable(instant), livemode: { type: 'boolean' },
  }) } }),
  List: object({ object: { const: 'list' }, data: { type: 'array' } }),
  EventsPage: object({
    object: { const: 'list' }, data: { type: 'array', items: ref('Event') }, has_more: bool, next_sequence: int,
    // What retention has deleted: events at or below min_since_sequence may be missing (older than retention_days).
    // skipped (only when there are any): the ranges in or right after the page that a restore's jump passed over;
    // no event ever held them, so a reconciliation takes them for no gap.
    coverage: object({ state: { enum: ['complete', 'partial'] }, retention_days: int, min_since_sequence: int }, {
      skipped: { type: 'array', items: object({ from_sequence: int, to_sequence: int, reason: { const: 'restore' } }) },
    }),
  }),
  WebhookEndpoint: object({ id: { type: 'string', pattern: '^whep_' }, livemode: bool, version: int, url: str }),
  WebhookDelivery: object({ id: { type: 'string', pattern: '^whd_' }, object: { const: 'webhook_delivery' }, endpoint_id: str, event_id: str, status: { enum: ['pending', 'delivered', 'failed', 'canceled'] }, attempt: int }),
  DepositList: object({ object: { const: 'list' }, data: { type: 'array', items: ref('DepositOrder') }, has_more: bool, next_cursor: nullable(str) }),
  WithdrawalList: object({ object: { const: 'list' }, data: { type: 'array', items: ref('WithdrawalOrder') }, has_more: bool, next_cursor: nullable(str) }),
  Banks: object({ object: { const: 'list' }, data: { type: 'array', items: object({ bank_code: str, name_th: str, name_en: str, available: bool, side: { type: 'array', items: { enum: ['sender', 'receiver'] } } }, { message_th: str }) } }),
  Senders: object({ object: { const: 'list' }, has_more: bool, data: { type: 'array', items: object({ sender_id: str, livemode: bool, bank_code: str, account_number_masked: str, account_name_th_masked: str, verified_at: instant }) } }),
  DisputeOrNull: nullable(ref('Dispute')),
  SandboxRun: object({ object: { const: 'sandbox_run' }, livemode: { const: false }, run_generation: { type: 'integer', minimum: 1 } }),
  CertificationRun: object({
    object: { const: 'certification_run' }, id: str, livemode: { const: false }, status: { enum: ['running', 'passed', 'failed'] }, created_at: instant, passed_at: nullable(instant),
    summary: object({ passed: int, failed: int, pending: int }),
    checks: {
      type: 'array',
      items: object({ check: { enum: ['10300', '10800', '10900', '11600', 'out_of_order', 'signature'] }, status: { enum: ['pending', 'passed', 'failed'] }, object_ids: { type: 'array', items: str }, events: { type: 'array', items: ref('CertificationEvent') } }, { failure: ref('CertificationEvent') }),
    },
  }),
  CertificationEvent: object({
    event_type: str, event_id: nullable(str), endpoint_id: str, delivery_id: nullable(str), status: { enum: ['pending', 'passed', 'failed'] }, response_status: nullable(int), kid: nullable(str),
  }, { reason: { type: 'string', description: 'why it failed: no_enabled_sandbox_endpoint, endpoint_disabled, not_subscribed, not_acknowledged, not_signed_by_a_sandbox_key; for the signature check (event_type bad_signature or stale_timestamp): accepted_unverified, not_refused_with_400_or_401, unreachable' } }),
  OutOfOrderRun: object({ object: { const: 'webhook_test_replay' }, case: str, livemode: { const: false }, object_id: str, events: { type: 'array' }, delivery_order: { type: 'array' }, deliveries: { type: 'array', items: object({ endpoint_id: str, delivery_id: str, event_id: str, release_at: instant }) } }),
  WhiteLabel: object({ id: str, object: { const: 'white_label' }, name: str }),
  GatewayRoute: object({ object: { const: 'gateway_route' }, white_label_id: str, bank_code: str, account_number: str, account_name: str, expires_at: instant, approved_by: str }),
  GatewayRouteProposal: object({
    object: { const: 'gateway_route_proposal' }, white_label_id: str, status: { const: 'pending_approval' }, bank_code: str, account_number: str, account_name: str,
    ttl_seconds: int, proposed_by: str, proposed_at: instant, approve_by: instant,
  }),
  FeeSchedule: object({ ...feeScheduleFields, object: { const: 'fee_schedule' } }, { approved_by: str }),
  FeeScheduleProposal: object({ ...feeScheduleFields, object: { const: 'fee_schedule_proposal' }, status: { const: 'pending_approval' }, proposed_by: str, proposed_at: instant, approve_by: instant }),
  AdjustmentProposal: object({
    id: str, object: { const: 'adjustment_proposal' }, livemode: bool, merchant_id: str, status: { const: 'pending_approval' }, direction: { const: 'credit' }, amount_minor: int,
    currency: { const: 'THB' }, reason_code: str, note: str, proposed_by: str, proposed_at: instant, approve_by: instant,
    proposer_recent_credits_minor: { ...nullable(int), description: "why a credit under 100,000 baht waits for a second operator: what its proposer had credited alone in the 24 hours before it (null: the amount itself)" },
  }),
  AdjustmentProposals: object({ object: { const: 'list' }, merchant_id: str, data: { type: 'array', items: ref('AdjustmentProposal') } }),
  WaitingAdjustmentProposals: object({
    object: { const: 'list' }, has_more: bool, next_cursor: nullable(str), total: int, as_of: instant,
    data: { type: 'array', items: { allOf: [ref('AdjustmentProposal'), object({ merchant_name: str })] } },
  }),
  ApiKey: object({ key_id: str, api_key: { type: 'string', pattern: '^sk_(live|test)_' }, scopes: { type: 'array', items: str }, livemode: bool }),
  OnboardedMerchant: object({ id: str, object: { const: 'merchant' }, white_label_id: str, name: str, keys: object({ live: ref('ApiKey'), sandbox: ref('ApiKey') }) }),
  MerchantSuspension: object({ id: str, object: { const: 'merchant' }, suspended: bool }),
  ApiKeys: object({
    object: { const: 'list' }, merchant_id: str,
    data: { type: 'array', items: object({
      key_id: str, object: { const: 'api_key' }, livemode: bool, scopes: { type: 'array', items: str },
      api_key_hint: { type: 'string', pattern: '^sk_(live|test)_…[A-Za-z0-9_-]{4}$' }, created_at: instant, revoked_at: nullable(instant),
    }) },
  }),
  RevokedKey: object({ key_id: str, object: { const: 'api_key' }, livemode: bool, revoked: { const: true }, revoked_at: instant }),
  Sender: object({ sender_id: str, object: { const: 'sender' }, end_user_ref: str, bank_code: str, livemode: bool }),
  ServiceClock: object({ object: { const: 'service_clock' }, now: instant, clock: { enum: ['system', 'manual'] } }),
  MerchantBalances: object({ object: { const: 'merchant_balance' }, merchant_id: str, live: balances, sandbox: balances, as_of: instant }),
  WebhookEndpoints: object({ data: { type: 'array', items: ref('WebhookEndpoint') } }),
  WebhookDeliveryPage: object({ object: { const: 'list' }, data: { type: 'array', items: ref('WebhookDelivery') }, has_more: bool, next_cursor: nullable(str) }),
  WebhookDeliveryWithAttempts: { allOf: [ref('WebhookDelivery'), object({ attempts: { type: 'array', items: object({ attempt: int, started_at: instant, kid: str, outcome: str }) } })] },
  WebhookResend: object({ delivery_id: { type: 'string', pattern: '^whd_' }, livemode: bool, event_id: str, status: str, attempt: int, resend: { const: true }, created_at: instant }),
  WebhookReplay: object({ id: str, object: { const: 'webhook_replay' }, livemode: bool, endpoint_id: str, status: { const: 'scheduled' }, event_count: int, has_more: bool, created_at: instant }),
  SigningKeyRotation: object({ kid: str, previous_kid: nullable(str), not_before: instant, status: { const: 'next' }, announced_deliveries: int }),
  SigningKeyWithdrawal: object({ kid: str, status: { const: 'withdrawn' }, withdrawn_at: instant }),
  OperatorRevocation: object({ object: { const: 'operator_revocation' }, sub: str, tokens_issued_before: instant, revoked_by: str, reason: nullable(str), seen_before: bool }),
  BankAvailability: object({ object: { const: 'bank_availability' }, bank_code: str, available: bool, message_th: nullable(str) }),
  OperatorSignOut: object({ object: { const: 'operator_sign_out' }, sub: str, signed_out_at: instant, token_expires_at: instant }),
  Health: object({ status: { const: 'ok' } }),
  Dashboard: dashboard,
  Readiness: object({ status: { enum: ['ready', 'degraded', 'not_ready'] }, checks: { type: 'object' } }),
  Object: { type: 'object' },
};

/** The HTTP statuses the catalogue uses, each with the codes answered with it. */
export function codesByStatus(): Map<number, ErrorCode[]> {
  const out = new Map<number, ErrorCode[]>();
  for (const [code, entry] of Object.entries(catalogue) as [ErrorCode, (typeof catalogue)[ErrorCode]][]) {
    out.set(entry.status, [...(out.get(entry.status) ?? []), code]);
  }
  return new Map([...out.entries()].sort((a, b) => a[0] - b[0]));
}

export const errorResponseName = (status: number): string => `Error${status}`;

/** One response per status: the error object, that status's codes named (as examples), and an example answer for each code. */
export function errorResponses(): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const [status, codes] of codesByStatus()) {
    const examples = Object.fromEntries(codes.map((code) => [code, { value: errorBody(code, 'req_01JD0000000000000000000000', { retryAfterSeconds: catalogue[code].retryable ? 1 : undefined }) }]));
    out[errorResponseName(status)] = {
      description: codes.map((c) => `\`${c}\``).join(', '),
      headers: { ...commonHeaderRefs, ...(codes.some((c) => catalogue[c].retryable) ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {}) },
      // The codes answered with this status today, as examples, not an enum: error.code is an open
      // string (contract), and a client validating strictly must take a code added later.
      content: { 'application/json': { schema: { allOf: [ref('Error'), { properties: { error: { properties: { code: { examples: codes } } } } }] }, examples } },
    };
  }
  return out;
}

export const headers: Record<string, Schema> = {
  'Request-Id': { description: 'The id of this request (req_ + ULID); equals error.request_id on errors.', required: true, schema: { type: 'string', pattern: '^req_' } },
  'Retry-After': { description: 'Whole seconds to wait before retrying; equals error.retry_after_seconds.', schema: { type: 'integer', minimum: 0 } },
  'Idempotent-Replay': { description: "'true' when this answer is the stored answer of an earlier request with the same Idempotency-Key.", schema: { const: 'true' } },
  'Original-Request-Id': { description: 'On a replayed answer: the Request-Id of the request that produced it.', schema: { type: 'string', pattern: '^req_' } },
  'RateLimit-Limit': { description: 'Requests allowed in the window of the bucket this request counted against (merchant routes per API key, operator routes per operator).', schema: int },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: int },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: int },
  'RateLimit-Policy': { description: "The bucket's quota and window: '<limit>;w=<seconds>' (e.g. 1200;w=60).", schema: { type: 'string', pattern: '^[0-9]+;w=[0-9]+$' } },
  'X-RateLimit-Scope': { description: 'The bucket this request counted against (pay_read, pay_write, bo_read, bo_write, …).', schema: { type: 'string' } },
};

export const commonHeaderRefs = { 'Request-Id': { $ref: '#/components/headers/Request-Id' } };

/** Request headers, as reusable parameters. */
export const parameters: Record<string, Schema> = {
  IdempotencyKey: { name: 'Idempotency-Key', in: 'header', required: true, description: 'Required on every POST; a retry keeps the same key. Scoped per merchant (per operator on /v1/bo).', schema: { type: 'string', minLength: 1, maxLength: limits.idempotencyKeyLengthMax }, example: '6f1c2a4e-2d0b-4c55-9c39-0d6f0e6e8a11' },
  IdempotencyKeyWithdrawal: { name: 'Idempotency-Key', in: 'header', required: true, description: 'Required; a retry keeps the same key. A withdrawal takes a key of at least 8 characters (a UUID, say).', schema: { type: 'string', minLength: limits.withdrawalIdempotencyKeyLengthMin, maxLength: limits.idempotencyKeyLengthMax }, example: '6f1c2a4e-2d0b-4c55-9c39-0d6f0e6e8a11' },
  PgTimestamp: { name: 'PG-Timestamp', in: 'header', required: true, description: 'Unix seconds; within ±300 s of real time.', schema: { type: 'string', pattern: '^[0-9]+$' }, example: '1795143600' },
  PgNonce: { name: 'PG-Nonce', in: 'header', required: true, description: 'New on every attempt; remembered for 601 s, as long as its request could pass the ±300 s timestamp window again.', schema: { type: 'string', minLength: 1 }, example: '2b0f6a53-5a43-4d4e-8f57-6c9f5f0f1a2b' },
  PgVersion: { name: 'PG-Version', in: 'header', required: true, description: 'The API version the request is written for.', schema: { type: 'string' }, example: '2026-08-01' },
  PgSignature: { name: 'PG-Signature', in: 'header', required: true, description: "'v1=' + lowercase hex HMAC-SHA256 of the canonical string (see the MerchantHmac security scheme).", schema: { type: 'string', pattern: '^v1=[0-9a-f]{64}$' }, example: `v1=${'0'.repeat(64)}` },
  StepUpToken: { name: 'X-PG-Step-Up-Token', in: 'header', required: true, description: 'An unexpired step-up operator token (⚑ actions).', schema: str },
};

const canonicalString = [
  'The signature covers a canonical string of nine lines, each ending in a newline (the last too):',
  "(1) the literal 'v1', (2) PG-Timestamp, (3) PG-Nonce, (4) the uppercase HTTP method, (5) the request path,",
  '(6) the query string as sent on the wire, still percent-encoded (never decoded), its key=value pairs sorted by key then value comparing that raw text by code unit, empty pairs dropped, joined with & (empty if none), (7) the lowercase hex SHA-256 of the body bytes',
  '(of the empty string when there is no body), (8) the Idempotency-Key (empty line if none), (9) the PG-Version value.',
  "PG-Signature = 'v1=' + lowercase hex HMAC-SHA256(key = the API key, message = the canonical string).",
  'Send the API key as Authorization: Bearer sk_live_… or sk_test_… together with PG-Timestamp, PG-Nonce, PG-Version and PG-Signature.',
].join(' ');

export const securitySchemes: Record<string, Schema> = {
  MerchantHmac: { type: 'http', scheme: 'bearer', bearerFormat: 'API key (sk_live_… / sk_test_…) with an HMAC request signature', description: canonicalString },
  SlipCapability: {
    type: 'http', scheme: 'bearer', bearerFormat: 'Ed25519 order capability',
    description: "slip_upload.token from the deposit's 201 answer or the slip-token route: audience pg-slip-ingest, scope slip:write, bound to the merchant, livemode, deposit, the full upload URL (htu), a rate subject, the API version and the hold. No API key and no PG-* headers.",
  },
  OperatorBearer: {
    type: 'http', scheme: 'bearer', bearerFormat: 'JWT (OIDC access token)',
    description: 'An operator OIDC access token whose roles claim names the roles the route needs (reviewer, approver, ops_admin, finance, support); ⚑ actions also take X-PG-Step-Up-Token.',
  },
};
