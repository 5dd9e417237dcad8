// What the routers cannot say about themselves, per operation: a summary, the auth scheme,
// the ajv validators of the body and query (the very objects the routes call, so the
// document and the validation share one schema), the success statuses with their
// response schema (components.ts), and an example body where a generated one would not
// read well. Keyed "METHOD /koa/path". An operation a router registers but this table
// does not know still appears in the document, with a generic 2XX answer, so a new route
// is never missing — only less described.

import { outOfOrderCases } from '../../adapters/webhooks/out-of-order.ts';
import { backOfficeLimits, limits } from '../../core/limits.ts';
import { disputeReportCsvHeader } from '../../core/finance/disputes.ts';
import { feeReportCsvHeader } from '../../core/finance/fees.ts';
import { receivingCsvHeader } from '../../core/finance/receiving.ts';
import { statementCsvHeader, statementLinesCsvHeader } from '../../core/finance/statement.ts';
import { accountLinesCsvHeader, systemLineAccounts } from '../../core/finance/system-lines.ts';
import { trialBalanceCsvHeader } from '../../core/finance/trial-balance.ts';
import { backOfficeSchemas as bo } from '../routes/bo.ts';
import { claimSchemas as claims } from '../routes/bo-claims.ts';
import { deskSchemas as desk, depositQueueStatuses, openWithdrawalStatuses } from '../routes/bo-desk.ts';
import { actionOutcomes } from '../../adapters/sqlite/action-log.ts';
import { claimKinds, claimStatuses } from '../../core/claim/state.ts';
import { reasonImportance } from '../../core/deposit/reasons.ts';
import { withdrawalStatuses } from '../../core/withdrawal/state.ts';
import { webhookBackOfficeSchemas as wh } from '../routes/webhooks-bo.ts';
import { outOfOrderCaseBody } from '../routes/webhooks-test.ts';
import {
  cancelBody, createBeneficiaryBody, createDepositBody, createWithdrawalBody, disputeEvidenceBody, emptyBody, emptyQuery,
  listDepositsQuery, listWithdrawalsQuery, quoteQuery, sendersQuery,
} from '../schemas.ts';
import { slipBodySchemas, slipImageTypes } from '../slips/evidence.ts';
import type { Validator } from '../validate.ts';

export type Auth = 'merchant' | 'operator' | 'capability' | 'none';

export interface OperationInfo {
  readonly summary: string;
  readonly auth: Auth;
  /** Needs X-PG-Step-Up-Token as well (⚑). */
  readonly stepUp?: boolean;
  readonly body?: Validator<unknown>;
  readonly query?: Validator<unknown>;
  /** Query parameters of routes that check them by hand (server/routes/read-params.ts). */
  readonly queryParams?: Record<string, Record<string, unknown>>;
  /** Success status → schema name in components.schemas (or a media type for non-JSON answers). */
  readonly responses: Record<string, string | { mediaType?: string; mediaTypes?: readonly string[]; description: string; example?: string; json?: string }>;
  readonly example?: Record<string, unknown>;
  /** Success status → an example answer, where the smallest instance of its schema would mislead (examples.ts). */
  readonly responseExamples?: Readonly<Record<string, unknown>>;
  /** A request body that is not one JSON schema (the slip upload's shapes), as OpenAPI writes it. */
  readonly requestContent?: { readonly description: string; readonly content: Record<string, { schema: Record<string, unknown>; example?: unknown }> };
}

const decimal = { type: 'string', pattern: '^(0|[1-9][0-9]{0,18})$' };

/** A deposit as its 201 answers it: matched, one leg to pay by QR, the slip upload's capability (a real answer, ids and token shortened). */
const depositFields = {
  object: 'deposit_order', livemode: true, version: 1, is_terminal: false, merchant_reference: 'order-10001',
  amount_minor: 50000, currency: 'THB', created_at: '2026-11-21T03:00:00.000Z', expires_at: '2026-11-21T03:15:00.000Z',
};
const sender = { bank_code: '014', account_number_masked: 'xxxxxx3210', account_name_th_masked: 'สมชาย ใ***' };
const depositCreated = {
  id: 'dep_01JD0000000000000000000001', ...depositFields, status: 'awaiting_payment', liquidity_source: 'internal', leg_count: 1,
  legs: [{
    leg_ref: 'leg_01JD0000000000000000000001', sequence: 1, amount_minor: 50000, expires_at: '2026-11-21T03:15:00.000Z', leg_status: 'pending', method: 'promptpay_qr',
    qr_payload: '00020101021229370016A0000006770101110413004123456789053037645406500.005802TH63043665',
    receiver: { bank_code: '004', bank_name_th: 'ธนาคารกสิกรไทย', account_number_masked: 'xxxxxx7890', account_name_masked: 'สมหญิง ร***' },
  }],
  sender,
  slip_upload: {
    token: 'eyJhdWQiOiJwZy1zbGlwLWluZ2VzdCJ9.vHjkBngN7cVJMCaquhKNXS5MEF9iYl-BeAvcdsJ5qo0', expires_at: '2026-11-22T03:15:00.000Z',
    upload_url: 'https://api.satang.example/v1/pay/deposits/dep_01JD0000000000000000000001/slip', max_bytes: 5242880,
    content_types: ['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif', 'application/json'],
  },
};
/** A deposit as its 202 answers it: no withdrawal to pay into yet; liquidity says how long to expect. */
const depositAwaitingLiquidity = {
  id: 'dep_01JD0000000000000000000002', ...depositFields, status: 'awaiting_liquidity', leg_count: 0, legs: [], sender,
  liquidity: { wait_started_at: '2026-11-21T03:00:00.000Z', estimated_wait_ms: 300000, retry_interval_ms: 5000, suggested_amounts_minor: [] },
};
/** A page size: digits (no sign, no leading zero) from 1 to `max`, which the route checks. */
const limitUpTo = (max: number) => ({ type: 'string', pattern: '^[1-9][0-9]{0,2}$', description: `an integer from 1 to ${max}` });
const day = { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'a day in Asia/Bangkok' };
const format = { type: 'string', enum: ['json', 'csv'] };
const livemodeParam = { type: 'string', enum: ['true', 'false'] };
const booleanParam = (description: string) => ({ ...livemodeParam, description });
const oneOf = (values: readonly string[], description?: string) => ({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
const cursor = { type: 'string', description: 'next_cursor of the previous page; bound to the same filters' };
const queuePage = { cursor, limit: limitUpTo(backOfficeLimits.queuePageSizeMax) };
const logPage = {
  cursor, limit: limitUpTo(backOfficeLimits.logPageSizeMax), since: { type: 'string', format: 'date-time', description: 'only rows at or after this instant' },
  clock_reads: booleanParam('default true; false leaves out reads of the service clock (GET /v1/bo/clock), which a console on a manual clock makes on every navigation'),
};
/** The back office's lists check their query by hand (server/routes/read-params.ts): their parameters, from the same lists. */
const boQueries = {
  deposits: {
    status: oneOf(depositQueueStatuses, 'default under_review'), reason: oneOf(reasonImportance, 'a review reason the order holds'),
    escalated: booleanParam('only escalated reviews, or only the others'), merchant_id: { type: 'string' }, livemode: livemodeParam, ...queuePage,
  },
  withdrawals: {
    status: oneOf(withdrawalStatuses, `default pending_approval; ${openWithdrawalStatuses.join(', ')}, or a final status with disputed=true`),
    disputed: booleanParam('only withdrawals with a dispute'), merchant_id: { type: 'string' }, livemode: livemodeParam, ...queuePage,
  },
  claims: { kind: oneOf(claimKinds), status: oneOf(claimStatuses), deposit_id: { type: 'string' }, merchant_id: { type: 'string' }, owed_by_payer: booleanParam('only claims whose payer owes a refund back (owed_by_payer_minor), or only the others'), owed_by_payee: booleanParam('only claims whose payee owes the service what their refunds paid (owed_by_payee_minor), or only the others'), written_off: booleanParam("only claims whose payer's debt finance wrote off in part or whole (written_off_minor), or only the others"), livemode: livemodeParam, ...queuePage },
  logs: { request_id: { type: 'string' }, merchant_id: { type: 'string' }, key_id: { type: 'string', description: 'the API key that signed the call (its id)' }, route: { type: 'string', description: 'the route template, e.g. /v1/pay/deposits/:id' }, status: { type: 'string', pattern: '^[1-5][0-9]{2}$' }, ...logPage },
  actionLogs: { subject: { type: 'string', description: "the operator's subject, matched under any spelling (case, compatibility forms, invisible characters: the fold four eyes uses); rows show it as each token said it" }, outcome: oneOf(actionOutcomes), route: { type: 'string' }, ...logPage },
  dashboard: { livemode: { ...livemodeParam, description: 'default true' }, merchant_id: { type: 'string' } },
  wallet: { merchant_id: { type: 'string', required: true }, livemode: { ...livemodeParam, description: 'default true' } },
  merchants: { q: { type: 'string', description: 'part of the name, or the id' }, white_label_id: { type: 'string' }, suspended: booleanParam('only suspended merchants, or only the others'), ...queuePage },
  whiteLabels: { q: { type: 'string', description: 'part of the name, or the id' }, ...queuePage },
};
/** A report's CSV answer: its header row as the example. */
const csvAnswer = (header: readonly string[], json = 'Object') => ({ mediaType: 'text/csv', description: 'format=csv: RFC 4180, a header row, UTF-8; otherwise JSON.', json, example: `${header.join(',')}\r\n` });
const statementQuery = {
  date: { ...day, description: 'one day in Asia/Bangkok; or month, or from and to' },
  month: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}$', description: 'a month in Asia/Bangkok: its days, up to today while it runs' },
  from: { ...day, description: "a period's first day (Asia/Bangkok), with to" },
  to: { ...day, description: "a period's last day, included (at most 366 days from from)" },
  format,
};

export const operations: Record<string, OperationInfo> = {
  'GET /healthz': { summary: 'Liveness: the process answers.', auth: 'none', responses: { 200: 'Health' } },
  'GET /readyz': { summary: 'Readiness: 200 ready, or 200 degraded (NATS gone when configured, or a projection behind after start: writes go on); 503 service_unavailable while the journal is not writable, its disk is full, a commit just failed, or projections catch up at start.', auth: 'none', responses: { 200: 'Readiness' } },
  'GET /v1/openapi.json': { summary: 'This document.', auth: 'none', responses: { 200: 'Object' } },

  'POST /v1/pay/deposits': {
    summary: 'Create a deposit order (201 matched to a destination, 202 awaiting liquidity).', auth: 'merchant', body: createDepositBody,
    responses: { 201: 'DepositOrder', 202: 'DepositOrder' },
    example: { amount_minor: 50000, currency: 'THB', merchant_reference: 'order-10001', end_user_ref: 'user-42', sender: { bank_code: '014', account_number: '9876543210', account_name_th: 'สมชาย ใจดี' } },
    responseExamples: { 201: depositCreated, 202: depositAwaitingLiquidity },
  },
  'GET /v1/pay/deposits': { summary: 'List deposit orders, newest first, with a cursor.', auth: 'merchant', query: listDepositsQuery, responses: { 200: 'DepositList' } },
  'GET /v1/pay/deposits/:id': { summary: 'Get a deposit order.', auth: 'merchant', query: emptyQuery, responses: { 200: 'DepositOrder' } },
  'POST /v1/pay/deposits/:id/cancel': { summary: 'Cancel a deposit order.', auth: 'merchant', body: cancelBody, responses: { 200: 'DepositOrder' }, example: { reason: 'customer left' } },
  'POST /v1/pay/deposits/:id/slip-token': { summary: 'A fresh slip upload capability for the order, valid until its late-slip window closes (410 late_slip_window_closed with claim_url once it has) or its uploads are used up (422 validation_error, reason upload_limit_reached, with claim_url).', auth: 'merchant', body: emptyBody, example: {}, responses: { 200: 'SlipUpload' } },
  'POST /v1/pay/deposits/:id/slip': {
    summary: 'Upload slip evidence with the order capability: the image (multipart, or base64 in JSON), or the transfer without an image (held for review).', auth: 'capability', responses: { 202: 'SlipReceipt' },
    requestContent: {
      description: 'One of three shapes. The image type is decided by its bytes (JPEG, PNG, WebP, HEIC/HEIF), never by a name or a declared type.',
      content: {
        'multipart/form-data': {
          schema: { type: 'object', required: ['file'], additionalProperties: false, properties: { file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'the slip image, exactly one part' }, payload: { type: 'string', description: "the slip's mini-QR payload, when it was read" } } },
        },
        'application/json': {
          schema: { oneOf: [slipBodySchemas.image, slipBodySchemas.noImage] },
          example: { image_base64: '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/2Q==', payload: '004600060000010103014022520251121100123456789' },
        },
      },
    },
  },
  'GET /v1/pay/deposits/:id/slip': { summary: "The slip image's bytes.", auth: 'merchant', query: emptyQuery, responses: { 200: { mediaTypes: slipImageTypes, description: 'The image, typed by its magic bytes.' } } },
  'POST /v1/pay/withdrawals': {
    summary: 'Create a withdrawal order.', auth: 'merchant', body: createWithdrawalBody, responses: { 201: 'WithdrawalOrder' },
    example: { amount_minor: 20000, currency: 'THB', merchant_reference: 'payout-2001', end_user_ref: 'payee-1', beneficiary_id: `ben_${'0'.repeat(32)}` },
  },
  'GET /v1/pay/withdrawals': { summary: 'List withdrawal orders, newest first, with a cursor.', auth: 'merchant', query: listWithdrawalsQuery, responses: { 200: 'WithdrawalList' } },
  'GET /v1/pay/withdrawals/:id': { summary: 'Get a withdrawal order with its fills.', auth: 'merchant', query: emptyQuery, responses: { 200: 'WithdrawalOrder' } },
  'POST /v1/pay/withdrawals/:id/cancel': { summary: 'Cancel a withdrawal order.', auth: 'merchant', body: cancelBody, responses: { 200: 'WithdrawalOrder' }, example: { reason: 'no longer needed' } },
  'POST /v1/pay/withdrawals/:id/fills/:legRef/confirm': { summary: 'The payee confirms a fill arrived (withdrawal.receipt_confirmed, before auto_confirm_at would); a confirmed or reversed fill is left as it is.', auth: 'merchant', body: emptyBody, responses: { 200: 'WithdrawalOrder' }, example: {} },
  'POST /v1/pay/disputes/:id/evidence': { summary: 'Submit dispute evidence.', auth: 'merchant', body: disputeEvidenceBody, responses: { 200: 'DisputeOrNull' }, example: { text: 'The payee confirmed receipt by phone on 21 Nov.' } },
  'GET /v1/pay/balance': { summary: 'The balance buckets.', auth: 'merchant', query: emptyQuery, responses: { 200: 'Balance' } },
  'GET /v1/pay/balance/transactions': {
    summary: 'Balance history (merchant_balance_history_v1) by sequence.', auth: 'merchant', responses: { 200: 'BalanceHistoryPage' },
    queryParams: { limit: limitUpTo(limits.balanceHistoryPageSizeMax), since_sequence: decimal, run_generation: { type: 'string', pattern: '^[1-9][0-9]{0,9}$' } },
  },
  'GET /v1/pay/quote': { summary: 'Fee preview for a withdrawal amount.', auth: 'merchant', query: quoteQuery, responses: { 200: 'Quote' } },
  'GET /v1/pay/banks': { summary: 'Banks and their availability.', auth: 'merchant', query: emptyQuery, responses: { 200: 'Banks' } },
  'GET /v1/pay/senders': { summary: "An end user's verified sender accounts.", auth: 'merchant', query: sendersQuery, responses: { 200: 'Senders' } },
  'POST /v1/pay/beneficiaries': {
    summary: 'Register a beneficiary (verified later; beneficiary.verified).', auth: 'merchant', body: createBeneficiaryBody, responses: { 201: 'Beneficiary' },
    example: { bank_code: '004', account_number: '1234567890', account_name_th: 'สมหญิง รักดี' },
  },
  'GET /v1/pay/beneficiaries/:id': { summary: 'Get a beneficiary.', auth: 'merchant', responses: { 200: 'Beneficiary' } },
  'GET /v1/pay/events': { summary: "The merchant's webhook envelopes by sequence (daily reconciliation; a live key needs wallet:read and withdrawals:read).", auth: 'merchant', queryParams: { since_sequence: { type: 'string', pattern: '^(0|[1-9][0-9]{0,15})$', description: 'An event sequence, 0 to 9007199254740991 (2^53 − 1).' }, limit: limitUpTo(limits.pageSizeMax) }, responses: { 200: 'EventsPage' } },
  'POST /v1/test/sandbox/reset': { summary: 'Start a new sandbox run of the balance history (sandbox key).', auth: 'merchant', body: emptyBody, example: {}, responses: { 200: 'SandboxRun' } },
  'POST /v1/test/webhooks/replay-out-of-order': { summary: "Deliver one of the contract's out-of-order cases to the sandbox endpoints.", auth: 'merchant', body: outOfOrderCaseBody, responses: { 202: 'OutOfOrderRun' }, example: { case: outOfOrderCases[0] } },
  'GET /v1/test/webhooks/listen': {
    summary: "The stream `satang listen` reads (sandbox key): a temporary `cli` endpoint for as long as it is open, each delivery as a Server-Sent Event with its original headers and body.",
    auth: 'merchant', query: emptyQuery, responses: { 200: { mediaType: 'text/event-stream', description: 'event: ready, then event: delivery per delivery ({headers, body_base64}), and : keepalive comments',
      example: 'event: ready\ndata: {"endpoint_id":"whep_01JD0000000000000000000000","livemode":false,"heartbeat_ms":15000}\n\n' } },
  },
  'GET /v1/webhooks/signing-keys': { summary: 'The Ed25519 keys webhook deliveries are signed with.', auth: 'none', responses: { 200: 'SigningKeys' } },
  'GET /v1/webhooks/test-vectors': { summary: 'Fixed signed samples to test a webhook verifier against.', auth: 'none', responses: { 200: 'Object' } },

  'POST /v1/bo/white-labels': { summary: 'Register a white label.', auth: 'operator', body: bo.whiteLabel, responses: { 201: 'WhiteLabel' }, example: { name: 'Brand' } },
  'POST /v1/bo/white-labels/:id/gateway-route': { summary: "Propose the white label's gateway (fallback) route; a second operator approves it.", auth: 'operator', stepUp: true, body: bo.gatewayRoute, responses: { 202: 'GatewayRouteProposal' }, example: { bank_code: '004', account_number: '5550001111', account_name: 'Gateway Co', ttl_seconds: 86400 } },
  'POST /v1/bo/white-labels/:id/gateway-route/approve': { summary: 'Approve the proposed gateway route (not its proposer), naming the account it pays.', auth: 'operator', stepUp: true, body: bo.gatewayRouteApproval, responses: { 200: 'GatewayRoute' }, example: { bank_code: '004', account_number: '5550001111' } },
  'POST /v1/bo/white-labels/:id/fees': { summary: "Propose the white label's fee schedule, VAT rates and amount limits (limits and VAT rates left out stay as they are); a second operator approves it.", auth: 'operator', stepUp: true, body: bo.feeSchedule, responses: { 202: 'FeeScheduleProposal' }, example: { deposit_processing_fee_bps: 180, withdrawal_fixed_fee_minor: 1500 } },
  'POST /v1/bo/white-labels/:id/fees/approve': { summary: 'Approve the proposed fee schedule (not its proposer), naming every figure it changes: in force for deposits settled and withdrawals created from now on.', auth: 'operator', stepUp: true, body: bo.feeSchedule, responses: { 200: 'FeeSchedule' }, example: { deposit_processing_fee_bps: 180, withdrawal_fixed_fee_minor: 1500 } },
  'POST /v1/bo/merchants': { summary: 'Onboard a merchant (answers its live and sandbox keys once).', auth: 'operator', body: bo.merchant, responses: { 201: 'OnboardedMerchant' }, example: { white_label_id: 'wl_01JD0000000000000000000000', name: 'Shop' } },
  'POST /v1/bo/merchants/:id/keys': { summary: 'Mint an API key.', auth: 'operator', stepUp: true, body: bo.key, responses: { 201: 'ApiKey' }, example: { livemode: false, scopes: ['wallet:read'] } },
  'GET /v1/bo/merchants/:id/keys': { summary: "A merchant's API keys, newest first: never a secret, only a hint of it (its prefix and last four characters).", auth: 'operator', queryParams: { livemode: { type: 'string', enum: ['true', 'false'] } }, responses: { 200: 'ApiKeys' } },
  'POST /v1/bo/keys/:keyId/revoke': { summary: 'Revoke an API key.', auth: 'operator', stepUp: true, body: bo.empty, responses: { 200: 'RevokedKey' } },
  'POST /v1/bo/merchants/:id/suspend': { summary: 'Suspend a merchant.', auth: 'operator', stepUp: true, body: bo.suspension, example: { reason: 'chargeback ratio above the agreed limit' }, responses: { 200: 'MerchantSuspension' } },
  'POST /v1/bo/merchants/:id/unsuspend': { summary: 'Lift a suspension.', auth: 'operator', stepUp: true, body: bo.suspension, example: { reason: 'the merchant settled the open chargebacks' }, responses: { 200: 'MerchantSuspension' } },
  'POST /v1/bo/merchants/:id/senders': { summary: 'Register a verified sender account.', auth: 'operator', body: bo.sender, responses: { 201: 'Sender' }, example: { livemode: true, end_user_ref: 'user-42', bank_code: '014', account_number: '9876543210', account_name_th: 'สมชาย ใจดี' } },
  'POST /v1/bo/merchants/:id/beneficiaries': { summary: 'Register a verified beneficiary.', auth: 'operator', body: bo.beneficiary, responses: { 201: 'Beneficiary' }, example: { livemode: true, bank_code: '004', account_number: '1234567890', account_name_th: 'สมหญิง รักดี' } },
  'POST /v1/bo/merchants/:id/adjustments': { summary: 'Post a manual balance adjustment. A live credit of 100,000 baht or more is proposed (202 adjustment_proposal) and posted when a second ops_admin approves it.', auth: 'operator', stepUp: true, body: bo.adjustment, responses: { 201: 'BalanceTransaction', 202: 'AdjustmentProposal' }, example: { livemode: true, amount_minor: 100000, direction: 'credit', bucket: 'available', reason_code: 'FUNDING', reason: 'opening float, ticket 4411' } },
  'POST /v1/bo/merchants/:id/adjustments/:proposalId/approve': { summary: 'Approve a proposed live credit (not its proposer, within 24 hours), naming its amount: the adjustment is posted.', auth: 'operator', stepUp: true, body: bo.adjustmentApproval, responses: { 201: 'BalanceTransaction' }, example: { amount_minor: 50000000 } },
  'POST /v1/bo/deposits/:id/approve': { summary: 'Approve a deposit under review: amount_minor for the one leg waiting (or the slip\'s amount), or legs[] with what each waiting leg received when more than one waits. Four eyes: the second approval settles at the first one\'s figures. version (the deposit\'s version the reviewer read) refuses the approval, 409 operation_not_allowed, when the deposit changed since.', auth: 'operator', body: bo.approval, responses: { 200: 'DepositOrder' }, example: { note: 'Slip checked against the bank statement.' } },
  'POST /v1/bo/deposits/:id/decline': { summary: 'Decline a deposit under review.', auth: 'operator', body: bo.optionalNote, responses: { 200: 'DepositOrder' }, example: { note: 'The slip does not match any transfer.' } },
  'POST /v1/bo/deposits/:id/route-confirmations': { summary: "The gateway's late confirmation of a transfer.", auth: 'operator', body: bo.routeConfirmation, responses: { 200: 'DepositOrder' }, example: { trans_ref: 'TR0001', amount_minor: 50000 } },
  'POST /v1/bo/deposits/:id/reverse': { summary: 'Reverse a settled deposit. 409 operation_not_allowed while a claim\'s refund pays the payer out, and when one already paid them some of the transfer unless claim_refunds is "recover_from_payer" (the claim then records it owed back by the payer).', auth: 'operator', stepUp: true, body: bo.reversal, responses: { 200: 'DepositOrder' }, example: { reason_code: 'BANK_RECALL', note: 'Recalled by the sender bank.' } },
  'POST /v1/bo/withdrawals/:id/cancel': { summary: 'Cancel a withdrawal (a claim\'s refund its merchant may not): its lock is released.', auth: 'operator', stepUp: true, body: bo.optionalNote, responses: { 200: 'WithdrawalOrder' } },
  'POST /v1/bo/withdrawals/:id/approve': { summary: 'Approve a withdrawal pending approval.', auth: 'operator', body: bo.optionalNote, responses: { 200: 'WithdrawalOrder' } },
  'POST /v1/bo/withdrawals/:id/reject': { summary: 'Reject a withdrawal pending approval.', auth: 'operator', body: bo.optionalNote, responses: { 200: 'WithdrawalOrder' } },
  // the back office's desk, claims, audit and reads (issue 15)
  'GET /v1/bo/deposits': { summary: 'The review queue (default status under_review), oldest first, with reasons, age, estimated_resolution_bucket and merchant_name, the name of its merchant_id; cursor paging.', auth: 'operator', queryParams: boQueries.deposits, responses: { 200: 'Object' } },
  'GET /v1/bo/deposits/:id': { summary: "One deposit as an operator sees it: the six verdicts side by side, legs, evidence, duplicate hits and one timeline with each step's journal seq and hash.", auth: 'operator', responses: { 200: 'Object' } },
  'GET /v1/bo/deposits/:id/slips/:receiptId/image': { summary: "A slip image's bytes.", auth: 'operator', responses: { 200: { mediaType: 'application/octet-stream', description: 'The image, typed by its magic bytes.' } } },
  'GET /v1/bo/withdrawals': { summary: 'The approvals queue (status=pending_approval) and other withdrawal lists.', auth: 'operator', queryParams: boQueries.withdrawals, responses: { 200: 'Object' } },
  'GET /v1/bo/withdrawals/:id': { summary: 'One withdrawal with its approvals, fills, its current dispute with its evidence (dispute) and every dispute it has had (disputes: newest first, each with status, outcome and resolved_at).', auth: 'operator', responses: { 200: 'Object' } },
  'POST /v1/bo/withdrawals/:id/fills/:legRef/reverse': { summary: 'Reverse one fill of a withdrawal (withdrawal.fill_reversed, balance.credited).', auth: 'operator', stepUp: true, body: desk.reversal, example: { reason_code: 'OPS_ERROR', note: 'paid to the wrong account by the payer' }, responses: { 200: 'Object' } },
  'POST /v1/bo/withdrawals/:id/disputes': { summary: 'Open a dispute on a withdrawal (withdrawal.disputed).', auth: 'operator', body: desk.dispute, example: { reason_code: 'not_received', amount_minor: 30000 }, responses: { 201: 'Object', 200: 'Object' } },
  'GET /v1/bo/disputes/:id': { summary: "A dispute with the merchant's evidence.", auth: 'operator', responses: { 200: 'Object' } },
  'GET /v1/bo/disputes/:id/files/:fileId': { summary: "One evidence file's bytes, as the merchant sent them (a download).", auth: 'operator', responses: { 200: { mediaTypes: ['application/octet-stream'], description: 'The file as sent, served as an attachment.' } } },
  'POST /v1/bo/disputes/:id/resolve': { summary: 'Resolve a dispute (withdrawal.dispute_resolved).', auth: 'operator', body: desk.resolve, example: { outcome: 'merchant_won', note: 'the payee confirmed receipt by phone' }, responses: { 200: 'Object' } },
  'POST /v1/bo/claims': { summary: 'Open a manual claim.', auth: 'operator', body: claims.open, example: { kind: 'manual', deposit_id: 'dep_01JD0000000000000000000000', amount_minor: 2000, note: 'the payer says they sent twenty baht too much' }, responses: { 201: 'Object' } },
  'GET /v1/bo/claims': { summary: 'Claims by kind, status, deposit, merchant, a refund the payer owes back and mode, with a cursor; each with merchant_name, the name of its merchant_id.', auth: 'operator', queryParams: boQueries.claims, responses: { 200: 'Object' } },
  'GET /v1/bo/claims/:id': { summary: 'One claim with its history, its refund withdrawal and merchant_name, the name of its merchant_id.', auth: 'operator', responses: { 200: 'Object' } },
  'POST /v1/bo/claims/:id/review': { summary: 'Take a claim under review.', auth: 'operator', body: claims.decide, example: { note: 'checked against the bank statement of the payer' }, responses: { 200: 'Object' } },
  'POST /v1/bo/claims/:id/refund': { summary: "Resolve a claim by refund: a refund withdrawal to the payer's account. Not by the operator who opened the claim.", auth: 'operator', stepUp: true, body: claims.decide, example: { note: 'checked against the bank statement of the payer' }, responses: { 200: 'Object' } },
  'POST /v1/bo/claims/:id/payout': { summary: 'The refund awaits its payout: the refund withdrawal opens, locked out of suspense. Not by the operator who approved the refund.', auth: 'operator', stepUp: true, body: claims.decide, example: { note: 'checked against the bank statement of the payer' }, responses: { 200: 'Object' } },
  'POST /v1/bo/claims/:id/close': { summary: 'Close a claim.', auth: 'operator', body: claims.decide, example: { note: 'checked against the bank statement of the payer' }, responses: { 200: 'Object' } },
  'POST /v1/bo/claims/:id/reject': { summary: 'Reject a claim.', auth: 'operator', body: claims.decide, example: { note: 'checked against the bank statement of the payer' }, responses: { 200: 'Object' } },
  'POST /v1/bo/claims/:id/write-offs': { summary: "Propose to write off all (no amount_minor) or part of what the claim's payer owes back (owed_by_payer_minor), a loss, with the reason in note: 202, the claim with its write_off_proposal, which another finance operator approves within 24 hours. At most what is owed (422).", auth: 'operator', stepUp: true, body: claims.writeOff, example: { amount_minor: 5000, note: 'payer unreachable for 90 days, collection agency declined' }, responses: { 202: 'Object' } },
  'POST /v1/bo/claims/:id/write-offs/:proposalId/approve': { summary: "Approve a proposed write-off (not its proposer), naming its amount: owed_by_payer_minor goes down by it, written_off_minor up, and the trial balance's payer_debts_written_off with it.", auth: 'operator', stepUp: true, body: claims.writeOffApproval, example: { amount_minor: 5000 }, responses: { 200: 'Object' } },
  'GET /v1/bo/logs': { summary: 'Request logs of merchant and operator calls, redacted before storage.', auth: 'operator', queryParams: boQueries.logs, responses: { 200: 'Object' } },
  'GET /v1/bo/reports/action-logs': { summary: 'The hash-chained action log: every operator call and refused operator authentication.', auth: 'operator', queryParams: boQueries.actionLogs, responses: { 200: 'Object' } },
  'GET /v1/bo/dashboard': { summary: 'Replica aggregates for the business day (00:00 Bangkok), each figure with its as_of: orders and volumes today, hourly volumes and slips, the review queue with its age histogram, liquidity waiting, webhook health per endpoint.', auth: 'operator', queryParams: boQueries.dashboard, responses: { 200: 'Dashboard' } },
  'GET /v1/bo/wallet': { summary: "A merchant's wallet (the ledger's numbers).", auth: 'operator', queryParams: boQueries.wallet, responses: { 200: 'Object' } },
  'GET /v1/bo/merchants/:id/balance-transactions': {
    summary: "A merchant's balance transactions in one mode, newest first, from the balance history (sandbox: the current run, sbxbtxn_l_ ids), each with its journal entry's type, direction, amount, buckets and source; cursor paging.",
    auth: 'operator', responses: { 200: 'BalanceTransactionPage' },
    queryParams: { livemode: { type: 'string', enum: ['true', 'false'] }, limit: limitUpTo(backOfficeLimits.balanceTransactionPageSizeMax), cursor: { type: 'string' } },
  },
  'GET /v1/bo/merchants': { summary: 'Merchants, with search.', auth: 'operator', queryParams: boQueries.merchants, responses: { 200: 'Object' } },
  'GET /v1/bo/white-labels': { summary: 'White labels, with search.', auth: 'operator', queryParams: boQueries.whiteLabels, responses: { 200: 'Object' } },
  'GET /v1/bo/white-labels/:id': { summary: 'One white label as the directory lists it: its merchants, gateway route and fee schedule in force, and the proposals waiting for approval.', auth: 'operator', responses: { 200: 'Object' } },
  'GET /v1/bo/search': {
    summary: "Support's search: deposits, withdrawals, claims and merchants by id, merchant reference, end user reference or a slip's bank transaction reference (exact), any status, newest first.",
    auth: 'operator', responses: { 200: 'Object' },
    queryParams: { q: { type: 'string', minLength: 1, maxLength: 64 }, livemode: livemodeParam, merchant_id: { type: 'string' }, limit: limitUpTo(backOfficeLimits.queuePageSizeMax) },
  },

  // finance (issue 16)
  'GET /v1/bo/reports/statements': {
    summary: 'Statement of a merchant and mode for a day or a period of days (Asia/Bangkok) per bucket: opening, movements by type, closing.', auth: 'operator',
    queryParams: { merchant_id: { type: 'string' }, livemode: livemodeParam, ...statementQuery }, responses: { 200: csvAnswer(statementCsvHeader, 'Statement') },
  },
  'GET /v1/bo/reports/trial-balance': { summary: 'Trial balance of every ledger account at as_of: debits = credits.', auth: 'operator', queryParams: { as_of: { type: 'string', format: 'date-time' }, format }, responses: { 200: csvAnswer(trialBalanceCsvHeader) } },
  'GET /v1/bo/reports/receiving-accounts': {
    summary: 'Receiving-account statements: legs told, slips verified, fills credited, and their differences.', auth: 'operator',
    queryParams: { merchant_id: { type: 'string' }, livemode: livemodeParam, format }, responses: { 200: csvAnswer(receivingCsvHeader) },
  },
  'GET /v1/bo/reports/fees': {
    summary: 'Fees and VAT for a day or a period of days (Asia/Bangkok) in one mode: per merchant (with its white label) the fees charged and refunded, each as fee revenue net of VAT and output VAT, and their totals; all merchants, one white label\'s or one merchant\'s.', auth: 'operator',
    queryParams: { merchant_id: { type: 'string' }, white_label_id: { type: 'string' }, livemode: livemodeParam, ...statementQuery }, responses: { 200: csvAnswer(feeReportCsvHeader, 'FeeReport') },
  },
  'GET /v1/bo/reports/disputes': {
    summary: 'Withdrawal disputes open at some time in a day, a month or a period of days (Asia/Bangkok) in one mode: each with its merchant, withdrawal, amount, and status, resolution and outcome as at the period\'s end; totals open at the start, opened, resolved by outcome and open at the end, which roll forward; all merchants or one.', auth: 'operator',
    queryParams: { merchant_id: { type: 'string' }, livemode: livemodeParam, ...statementQuery }, responses: { 200: csvAnswer(disputeReportCsvHeader) },
  },
  'GET /v1/bo/reports/statement-lines': {
    summary: "A merchant's balance transactions of a statement's period, one line each, oldest first: the lines behind the statement's totals.", auth: 'operator',
    queryParams: { merchant_id: { type: 'string' }, livemode: livemodeParam, ...statementQuery }, responses: { 200: csvAnswer(statementLinesCsvHeader) },
  },
  'GET /v1/bo/reports/account-lines': {
    summary: "A system account's postings of a day, a month or a period of days (Asia/Bangkok), oldest first, with the running balance from the balance before the period to the closing: the lines behind the trial balance's suspense, reversals, adjustments and gateway settlement.", auth: 'operator',
    queryParams: { account: { type: 'string', enum: [...systemLineAccounts] }, livemode: livemodeParam, ...statementQuery }, responses: { 200: csvAnswer(accountLinesCsvHeader) },
  },
  'GET /v1/pay/reports/statements': { summary: "The merchant's own statement for a day or a period of days (scope wallet:read).", auth: 'merchant', queryParams: statementQuery, responses: { 200: csvAnswer(statementCsvHeader, 'Statement') } },
  'GET /v1/pay/reports/fees': { summary: "The merchant's own fees and VAT for a day or a period of days, for its tax invoice: charged and refunded, fee net of VAT and VAT (scope wallet:read).", auth: 'merchant', queryParams: statementQuery, responses: { 200: csvAnswer(feeReportCsvHeader, 'FeeReport') } },

  // certification (issue 14)
  'POST /v1/test/certification': { summary: 'Run certification (10300, 10800, 10900, 11600, out-of-order A/B/C) against the sandbox endpoints (sandbox key).', auth: 'merchant', body: emptyBody, example: {}, responses: { 201: 'CertificationRun', 200: 'CertificationRun', 202: 'CertificationRun' } },
  'GET /v1/test/certification': { summary: 'The latest certification run and its result per check (sandbox key).', auth: 'merchant', responses: { 200: 'CertificationRun' } },
  'GET /v1/bo/clock': { summary: "The service's time, and whether its clock is the system's or a manual test clock.", auth: 'operator', responses: { 200: 'ServiceClock' } },
  'POST /v1/bo/clock/advance': { summary: 'Advance the manual service clock (SATANG_CLOCK=manual only).', auth: 'operator', body: bo.advance, responses: { 200: 'ServiceClock' }, example: { seconds: 3600 }, responseExamples: { 200: { object: 'service_clock', now: '2026-11-21T04:00:00.000Z', clock: 'manual' } } },
  'GET /v1/bo/merchants/:id/balance': { summary: "A merchant's live and sandbox balances.", auth: 'operator', responses: { 200: 'MerchantBalances' } },
  'GET /v1/bo/adjustment-proposals': { summary: "Every merchant's live credits waiting for a second operator (not those lapsed), oldest first, each with merchant_name; cursor paging.", auth: 'operator', queryParams: queuePage, responses: { 200: 'WaitingAdjustmentProposals' } },
  'GET /v1/bo/merchants/:id/adjustment-proposals': { summary: "A merchant's live credits waiting for a second operator (not those lapsed).", auth: 'operator', responses: { 200: 'AdjustmentProposals' } },
  'POST /v1/bo/merchants/:id/webhook-endpoints': { summary: 'Create a webhook endpoint.', auth: 'operator', body: wh.endpoint, responses: { 201: 'WebhookEndpoint' }, example: { url: 'https://merchant.example/webhooks', livemode: true } },
  'GET /v1/bo/merchants/:id/webhook-endpoints': { summary: "A merchant's webhook endpoints.", auth: 'operator', responses: { 200: 'WebhookEndpoints' } },
  'GET /v1/pay/webhook-endpoints': { summary: "The caller's own webhook endpoints in its key's mode, read-only: status, flag and health (operators create and change them).", auth: 'merchant', responses: { 200: 'WebhookEndpoints' } },
  'GET /v1/bo/webhooks/:endpointId': { summary: 'Get a webhook endpoint.', auth: 'operator', responses: { 200: 'WebhookEndpoint' } },
  'POST /v1/bo/webhooks/:endpointId': { summary: "Change an endpoint's URL or subscription (null = every event type), keeping its id and history; a new URL starts its health and 410 flag afresh.", auth: 'operator', body: wh.update, responses: { 200: 'WebhookEndpoint' }, example: { url: 'https://merchant.example/webhooks/v2', event_types: ['deposit.settled', 'withdrawal.settled'] } },
  'POST /v1/bo/webhooks/:endpointId/enable': { summary: 'Enable a webhook endpoint.', auth: 'operator', body: wh.empty, responses: { 200: 'WebhookEndpoint' } },
  'POST /v1/bo/webhooks/:endpointId/disable': { summary: 'Disable a webhook endpoint.', auth: 'operator', body: wh.empty, responses: { 200: 'WebhookEndpoint' } },
  'DELETE /v1/bo/webhooks/:endpointId': { summary: "Delete a disabled webhook endpoint for good (an enabled one: 409, disable it first): it leaves the merchant's lists and is never delivered to again; its deliveries stay readable. The answer is the endpoint with status 'deleted' and deleted: true.", auth: 'operator', responses: { 200: 'WebhookEndpoint' } },
  'GET /v1/bo/webhooks/:endpointId/deliveries': { summary: "An endpoint's delivery records, newest first.", auth: 'operator', query: wh.list, responses: { 200: 'WebhookDeliveryPage' } },
  'GET /v1/bo/webhooks/:endpointId/deliveries/:deliveryId': { summary: 'A delivery record with its attempts.', auth: 'operator', responses: { 200: 'WebhookDeliveryWithAttempts' } },
  'POST /v1/bo/webhooks/:endpointId/deliveries/:deliveryId/resend': { summary: 'Resend one delivery.', auth: 'operator', stepUp: true, body: wh.empty, responses: { 201: 'WebhookResend' } },
  'POST /v1/bo/webhooks/:endpointId/replay': { summary: 'Replay events of a time range to an endpoint.', auth: 'operator', stepUp: true, body: wh.replay, responses: { 202: 'WebhookReplay' }, example: { created_after: '2026-11-20T00:00:00.000Z', created_before: '2026-11-21T00:00:00.000Z', only_failed: true } },
  'POST /v1/bo/webhooks/signing-keys/rotate': { summary: 'Rotate the webhook signing key (announced ahead).', auth: 'operator', stepUp: true, body: wh.rotate, responses: { 201: 'SigningKeyRotation' } },
  'POST /v1/bo/operators/:sub/revoke': { summary: 'Cut an operator off: every token of theirs issued until now is refused (off-boarding).', auth: 'operator', stepUp: true, body: bo.suspension, example: { reason: 'left the company on 2026-11-29' }, responses: { 200: 'OperatorRevocation' } },
  'POST /v1/bo/banks/:code/availability': { summary: 'Mark a sending bank down (new deposits from it are refused 409 sender_bank_unavailable) or up again.', auth: 'operator', body: bo.bankAvailability, example: { available: false, message_th: 'ธนาคารปิดปรับปรุงระบบ กรุณาใช้ธนาคารอื่น' }, responses: { 200: 'BankAvailability' } },
  'POST /v1/bo/session/sign-out': { summary: 'Sign out: the access token of this request is refused from now on (the console signs out with it).', auth: 'operator', body: wh.empty, responses: { 200: 'OperatorSignOut' } },
  'POST /v1/bo/webhooks/signing-keys/:kid/withdraw': { summary: 'Withdraw a retired live signing key that leaked: it is published no more.', auth: 'operator', stepUp: true, body: wh.empty, responses: { 200: 'SigningKeyWithdrawal' } },
};
