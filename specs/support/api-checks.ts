// Checks and set-up steps shared by the merchant API specs (errors, tenancy, signatures,
// idempotency, fuzz): the contract's error object asserted key by key, request bodies,
// liquidity, and the few steps that have no HTTP route yet (slip verification, disputes,
// bank availability), which go through the server's own write side as the slip worker
// and the back office will.

import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { Command } from '../../core/handler/commands.ts';
import type { ErrorCode } from '../../core/errors.ts';
import { catalogue } from '../../server/errors.ts';
import type { Reply, TestServer } from './server-harness.ts';
import { settled } from '../../core/handler/handle.ts';

/** The eight keys of the contract's error object, in no particular order. */
export const errorObjectKeys = ['code', 'type', 'message', 'message_th', 'retryable', 'retry_after_seconds', 'request_id', 'details'].sort();

/** The contract's Errors table (status, retryable) for the codes it lists; the catalogue adds feature_not_enabled and operation_not_allowed. */
export const contractErrors: Partial<Record<ErrorCode, { status: number; retryable: boolean }>> = {
  signature_invalid: { status: 401, retryable: false },
  timestamp_out_of_window: { status: 401, retryable: true },
  nonce_replayed: { status: 401, retryable: false },
  api_key_invalid: { status: 401, retryable: false },
  api_key_revoked: { status: 401, retryable: false },
  tenant_suspended: { status: 403, retryable: false },
  scope_denied: { status: 403, retryable: false },
  idempotency_key_required: { status: 400, retryable: false },
  malformed_json: { status: 400, retryable: false },
  unsupported_media_type: { status: 400, retryable: false },
  cursor_filter_mismatch: { status: 400, retryable: false },
  validation_error: { status: 422, retryable: false },
  sender_required: { status: 422, retryable: false },
  amount_not_supported: { status: 422, retryable: false },
  amount_below_p2p_minimum: { status: 422, retryable: false },
  insufficient_balance: { status: 402, retryable: true },
  resource_not_found: { status: 404, retryable: false },
  idempotency_key_reused: { status: 409, retryable: false },
  idempotency_in_flight: { status: 409, retryable: true },
  sender_bank_unavailable: { status: 409, retryable: true },
  duplicate_open_deposit: { status: 409, retryable: false },
  too_many_open_deposits: { status: 409, retryable: false },
  deposit_not_cancelable: { status: 409, retryable: false },
  withdrawal_has_pending_fill: { status: 409, retryable: true },
  withdrawal_not_cancelable: { status: 409, retryable: false },
  beneficiary_not_verified: { status: 409, retryable: true },
  rate_limited: { status: 429, retryable: true },
  service_unavailable: { status: 503, retryable: true },
};

const rfc3339Ms = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export function assertTimestamp(value: unknown, what: string): void {
  assert.type(value, 'string', `${what} is an RFC 3339 string`);
  assert.match(value as string, rfc3339Ms, `${what} has three fractional digits and Z`);
}

/**
 * Asserts that `r` is the contract's error answer for `code` and returns its error object:
 * status, the eight keys and nothing else, type/retryable as catalogued (and as the
 * contract's table says), request_id equal to the Request-Id header, details an object,
 * Retry-After equal to retry_after_seconds when there is one.
 */
export function expectError(r: Reply, code: ErrorCode, covered?: Set<string>): Record<string, any> {
  const entry = catalogue[code];
  const where = `${code}: ${r.status} ${r.text.slice(0, 400)}`;
  assert.is(r.status, entry.status, where);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/, `${where}: JSON answer`);
  assert.equal(Object.keys(r.json ?? {}), ['error'], `${where}: the body holds only error`);
  const e = r.json.error as Record<string, any>;
  assert.equal(Object.keys(e).sort(), errorObjectKeys, `${where}: the eight keys`);
  assert.is(e.code, code, where);
  assert.is(e.type, entry.type, where);
  // A conditional "yes after …" (insufficient_balance) is retryable only when its condition holds of the answer's details.
  const retryable = entry.retryable && (entry.retryableWhen?.(e.details ?? {}) ?? true);
  assert.is(e.retryable, retryable, where);
  const contract = contractErrors[code];
  if (contract) {
    assert.is(r.status, contract.status, `${where}: the contract's status`);
    if (!entry.retryableWhen) assert.is(e.retryable, contract.retryable, `${where}: the contract's retryable`);
  }
  assert.type(e.message, 'string');
  assert.ok(e.message.length > 0, 'message is not empty');
  assert.type(e.message_th, 'string');
  assert.match(e.message_th, /[\u0E00-\u0E7F]/, 'message_th is Thai');
  assert.ok(e.retry_after_seconds === null || (Number.isInteger(e.retry_after_seconds) && e.retry_after_seconds >= 0), `${where}: retry_after_seconds`);
  if (!e.retryable) assert.is(e.retry_after_seconds, null, `${where}: no retry delay on a non-retryable error`);
  if (e.retry_after_seconds !== null) assert.is(r.headers.get('retry-after'), String(e.retry_after_seconds), `${where}: Retry-After header`);
  assert.match(e.request_id, /^req_[0-9A-Z]{26}$/, `${where}: request_id`);
  assert.is(e.request_id, r.headers.get('request-id'), `${where}: request_id equals the Request-Id header`);
  assert.ok(typeof e.details === 'object' && e.details !== null && !Array.isArray(e.details), `${where}: details is an object`);
  if (code === 'signature_invalid') {
    // Nothing that says which part failed; a slip upload's refusal carries the payer's one generic sentence.
    const { public_message_th: forPayer, ...rest } = e.details as Record<string, unknown>;
    assert.equal(rest, {}, 'signature_invalid carries no details');
    if (forPayer !== undefined) assert.is(forPayer, 'ลิงก์อัปโหลดสลิปนี้ใช้ไม่ได้หรือหมดอายุแล้ว หากท่านโอนเงินไปแล้ว กรุณาอย่าโอนซ้ำ และติดต่อร้านค้าพร้อมสลิป');
  }
  covered?.add(code);
  return e;
}

export function withdrawalBody(beneficiaryId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { amount_minor: 20_000, currency: 'THB', merchant_reference: `w-${randomUUID()}`, end_user_ref: 'payee-1', beneficiary_id: beneficiaryId, ...overrides };
}

/** A gateway route on the white label, proposed and approved by two operators: deposits with fill_preference 'any' then match at once (201). */
export async function gatewayRoute(s: TestServer, whiteLabelId: string): Promise<void> {
  const proposed = await s.bo('POST', `/v1/bo/white-labels/${whiteLabelId}/gateway-route`, { bank_code: '004', account_number: '5550001111', account_name: 'Gateway Co', ttl_seconds: 86_400 }, { stepUp: true });
  if (proposed.status !== 202) throw new Error(`gateway route proposal failed: ${proposed.text}`);
  const approved = await s.bo('POST', `/v1/bo/white-labels/${whiteLabelId}/gateway-route/approve`, { bank_code: '004', account_number: '5550001111' }, { stepUp: true, sub: 'emp_second' });
  if (approved.status !== 200) throw new Error(`gateway route approval failed: ${approved.text}`);
}

/** Runs a command on the server's own write side and waits until it is durable. */
export async function runCommand(s: TestServer, command: Command): Promise<string | undefined> {
  const outcome = await settled(s.running.store.submit(command, { requestId: `req_spec_${randomUUID()}` }));
  if (!outcome.ok) throw new Error(`${command.type} refused: ${outcome.rejection.code} ${outcome.rejection.message}`);
  return outcome.objectId;
}

const operator = { kind: 'operator' as const, operatorId: 'emp_spec' };
const system = { kind: 'system' as const };

/** The slip worker's two steps for a deposit's first leg: slip received, transfer verified exactly as asked. */
export async function payFirstLeg(s: TestServer, depositId: string): Promise<void> {
  const d = s.running.store.world.deposits.get(depositId);
  if (!d || d.legs.length === 0) throw new Error(`deposit ${depositId} has no leg to pay`);
  const leg = d.legs[0]!;
  const receiptId = `rcpt_${randomUUID().replace(/-/g, '')}`;
  await runCommand(s, { type: 'ReceiveSlip', actor: system, depositId, receiptId, hasImage: true });
  await runCommand(s, {
    type: 'RecordSlipVerification', actor: system, depositId, receiptId,
    outcome: {
      kind: 'found', facts: { senderBankDisabled: false },
      transfer: {
        transRef: `tr_${depositId}`, amountMinor: leg.amountMinor, occurredAt: s.clock.now(),
        sender: { bankCode: d.sender.bankCode, accountNumber: d.sender.accountNumber, name: d.sender.accountNameTh },
        receiver: { bankCode: leg.receiver.bankCode, accountNumber: leg.receiver.accountNumber, name: leg.receiver.accountName },
      },
    },
  });
}

/** Only a slip received (no verification yet): the deposit can no longer be canceled. */
export async function receiveSlip(s: TestServer, depositId: string): Promise<void> {
  await runCommand(s, { type: 'ReceiveSlip', actor: system, depositId, receiptId: `rcpt_${randomUUID().replace(/-/g, '')}`, hasImage: true });
}

/** Opens a dispute on a filled withdrawal (the back-office route comes later) and returns its id. */
export async function openDispute(s: TestServer, withdrawalId: string, amountMinor: bigint): Promise<string> {
  await runCommand(s, { type: 'OpenDispute', actor: operator, withdrawalId, reasonCode: 'not_received', amountMinor });
  const dispute = s.running.store.world.withdrawals.get(withdrawalId)?.dispute;
  if (!dispute) throw new Error('no dispute opened');
  return dispute.id;
}

export async function resolveDispute(s: TestServer, disputeId: string): Promise<void> {
  await runCommand(s, { type: 'ResolveDispute', actor: operator, disputeId, outcome: 'merchant_won', note: 'the evidence settles it for the merchant' });
}

/** Bank availability has no operator route yet; the back office will send this same command. */
/** Marks a sending bank down or up as an operator does: POST /v1/bo/banks/{code}/availability. */
export async function setBankAvailability(s: TestServer, bankCode: string, available: boolean, messageTh?: string): Promise<void> {
  const r = await s.bo('POST', `/v1/bo/banks/${bankCode}/availability`, { available, ...(messageTh !== undefined ? { message_th: messageTh } : {}) }, { roles: ['ops_admin'] });
  assert.is(r.status, 200, r.text);
  assert.equal([r.json.bank_code, r.json.available], [bankCode, available]);
}

/** How many journal rows exist, after everything queued has been written. */
export async function journalRows(s: TestServer): Promise<number> {
  await s.running.store.journal.flushed();
  return (s.running.store.db.prepare('SELECT count(*) AS c FROM journal').get() as { c: number }).c;
}

/**
 * A slow disk: every command's commit becomes durable `delayMs` later than it would.
 * Requests that meet a key while its command waits for the disk see it in flight.
 * Returns the function that puts the fast disk back.
 */
export function slowDisk(s: TestServer, delayMs: number): () => void {
  const write = s.running.services.write as { submit: typeof s.running.services.write.submit };
  const original = write.submit;
  write.submit = (command, meta, respond) => {
    const r = original.call(write, command, meta, respond);
    return { outcome: r.outcome, durable: r.durable.then(() => new Promise<void>((resolve) => setTimeout(resolve, delayMs))) };
  };
  return () => { write.submit = original; };
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
