import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { errorCodes, reject, type ErrorCode } from '../../core/errors.ts';
import { ApiError, catalogue, errorBody, errorMiddleware } from '../../server/errors.ts';
import { requestIdMiddleware } from '../../server/request-id.ts';
import { captureLogger, serve } from './support.ts';

// Copied by hand from the contract's Errors table (plus the two codes DESIGN.md adds and
// the HTTP layer's 405 and 408),
// so that the catalogue is checked against the contract, not against itself.
const contractTable: Record<ErrorCode, [status: number, retryable: boolean]> = {
  signature_invalid: [401, false],
  timestamp_out_of_window: [401, true],
  nonce_replayed: [401, false],
  api_key_invalid: [401, false],
  api_key_revoked: [401, false],
  tenant_suspended: [403, false],
  scope_denied: [403, false],
  idempotency_key_required: [400, false],
  malformed_json: [400, false],
  unsupported_media_type: [400, false],
  cursor_filter_mismatch: [400, false],
  validation_error: [422, false],
  sender_required: [422, false],
  amount_not_supported: [422, false],
  amount_below_p2p_minimum: [422, false],
  review_note_required: [422, false],
  invalid_cursor: [422, false],
  insufficient_balance: [402, true],
  resource_not_found: [404, false],
  idempotency_key_reused: [409, false],
  idempotency_in_flight: [409, true],
  sender_bank_unavailable: [409, true],
  duplicate_open_deposit: [409, false],
  too_many_open_deposits: [409, false],
  deposit_not_cancelable: [409, false],
  withdrawal_has_pending_fill: [409, true],
  withdrawal_not_cancelable: [409, false],
  beneficiary_not_verified: [409, true],
  alloc_state_conflict: [409, true],
  withdrawal_state_conflict: [409, true],
  sandbox_run_changed: [409, false],
  late_slip_window_closed: [410, false],
  sandbox_history_cursor_expired: [410, false],
  rate_limited: [429, true],
  sandbox_rate_limited: [429, true],
  route_unavailable: [503, true],
  service_unavailable: [503, true],
  slip_intake_unavailable: [503, true],
  history_not_ready: [503, true],
  sandbox_balance_history_not_ready: [503, false],
  internal_error: [500, true],
  feature_not_enabled: [403, false],
  operation_not_allowed: [409, false],
  method_not_allowed: [405, false],
  request_timeout: [408, true],
  malformed_request: [400, false],
};

const errorBodyKeys = ['code', 'details', 'message', 'message_th', 'request_id', 'retry_after_seconds', 'retryable', 'type'];

test('the catalogue has exactly one row per error code of core', () => {
  assert.equal(Object.keys(catalogue).sort(), [...errorCodes].sort());
});

test('status and retryable of every code follow the contract table', () => {
  for (const code of errorCodes) {
    const [status, retryable] = contractTable[code];
    assert.is(catalogue[code].status, status, `${code} status`);
    assert.is(catalogue[code].retryable, retryable, `${code} retryable`);
  }
});

test('type follows the status class consistently', () => {
  const typeByStatus: Record<number, string> = { 401: 'authentication_error', 403: 'permission_error', 429: 'rate_limit_error', 500: 'api_error', 503: 'api_error' };
  for (const code of errorCodes) {
    const { status, type } = catalogue[code];
    if (typeByStatus[status] !== undefined) assert.is(type, typeByStatus[status], code);
    if (status === 400 || status === 404 || status === 422) assert.is(type, 'invalid_request_error', code);
  }
  assert.is(catalogue.idempotency_key_reused.type, 'idempotency_error');
  assert.is(catalogue.idempotency_in_flight.type, 'idempotency_error');
  assert.is(catalogue.withdrawal_state_conflict.type, 'state_conflict');
});

test('every code has an English and a Thai message', () => {
  for (const code of errorCodes) {
    assert.ok(catalogue[code].message.length > 10, `${code} message`);
    assert.match(catalogue[code].message_th, /[\u0E00-\u0E7F]/, `${code} message_th is Thai`);
  }
});

test('errorBody has exactly the contract keys, details {} and retry null when none', () => {
  const body = errorBody('resource_not_found', 'req_01J0000000000000000000000A');
  assert.equal(Object.keys(body), ['error']);
  assert.equal(Object.keys(body.error).sort(), errorBodyKeys);
  assert.equal(body.error, {
    code: 'resource_not_found',
    type: 'invalid_request_error',
    message: catalogue.resource_not_found.message,
    message_th: catalogue.resource_not_found.message_th,
    retryable: false,
    retry_after_seconds: null,
    request_id: 'req_01J0000000000000000000000A',
    details: {},
  });
});

test('errorBody carries message and details given by the thrower', () => {
  const body = errorBody('amount_not_supported', 'req_x', { message: 'below minimum', details: { min_minor: 2000, max_minor: 20_000_000 } });
  assert.is(body.error.message, 'below minimum');
  assert.equal(body.error.details, { min_minor: 2000, max_minor: 20_000_000 });
});

test('signature_invalid never carries details', () => {
  const body = errorBody('signature_invalid', 'req_x', { details: { canonical: 'v1\n...' } });
  assert.equal(body.error.details, {});
});

test('idempotency_in_flight defaults to retry_after_seconds 1; history_not_ready too', () => {
  assert.is(errorBody('idempotency_in_flight', 'req_x').error.retry_after_seconds, 1);
  assert.is(errorBody('history_not_ready', 'req_x').error.retry_after_seconds, 1);
});

test('retry_after_seconds: given value wins, rounded up; never on non-retryable codes', () => {
  assert.is(errorBody('rate_limited', 'req_x', { retryAfterSeconds: 42 }).error.retry_after_seconds, 42);
  assert.is(errorBody('rate_limited', 'req_x', { retryAfterSeconds: 0.2 }).error.retry_after_seconds, 1);
  assert.is(errorBody('rate_limited', 'req_x').error.retry_after_seconds, null);
  assert.is(errorBody('nonce_replayed', 'req_x', { retryAfterSeconds: 5 }).error.retry_after_seconds, null);
});

test('insufficient_balance is retryable only when what is clearing will cover it once cleared', () => {
  const at = '2026-11-30T00:00:00.000Z';
  const answer = (details: Record<string, unknown>) => errorBody('insufficient_balance', 'req_x', { details }).error;
  assert.is(answer({ available_minor: 0, required_minor: 51_070, pending_clearing_minor: 100_000, pending_clearing_available_at: at }).retryable, true);
  assert.is(answer({ available_minor: 1_000, required_minor: 51_070, pending_clearing_minor: 50_070, pending_clearing_available_at: at }).retryable, true, 'exactly enough');
  assert.is(answer({ available_minor: 1_000, required_minor: 51_070, pending_clearing_minor: 50_069, pending_clearing_available_at: at }).retryable, false, 'a satang short even once cleared');
  const nothing = answer({ available_minor: 0, required_minor: 51_070, pending_clearing_minor: 0, pending_clearing_available_at: null });
  assert.equal([nothing.retryable, nothing.retry_after_seconds], [false, null], 'nothing is clearing');
  assert.is(answer({ available_minor: 0, required_minor: 100, pending_clearing_minor: 500, pending_clearing_available_at: at, bucket: 'pending_clearing' }).retryable, false, 'a reversal taking from pending clearing itself');
});

test('ApiError defaults to the catalogue message; from() lifts a core rejection', () => {
  const plain = new ApiError('scope_denied');
  assert.is(plain.message, catalogue.scope_denied.message);
  assert.instance(plain, Error);
  const lifted = ApiError.from(reject('deposit_not_cancelable', 'a slip exists', { status: 'slip_processing' }));
  assert.is(lifted.code, 'deposit_not_cancelable');
  assert.is(lifted.message, 'a slip exists');
  assert.equal(lifted.details, { status: 'slip_processing' });
});

// --- errorMiddleware over real HTTP -------------------------------------------------

function appThrowing(thrown: () => unknown, logger = captureLogger().logger, jsonLimit = '1mb'): Koa {
  const app = new Koa();
  app.use(requestIdMiddleware());
  app.use(errorMiddleware(logger));
  app.use(koaBody({ jsonLimit }));
  app.use(async (ctx) => {
    if (ctx.path === '/missing') return; // nothing answers: Koa's default 404
    ctx.set('RateLimit-Limit', '600');
    throw thrown();
  });
  return app;
}

test('an ApiError becomes the contract body, status and Retry-After header', async () => {
  const server = await serve(appThrowing(() => new ApiError('rate_limited', undefined, { bucket: 'pay_write', scope: 'api_key' }, 17)));
  try {
    const res = await fetch(`${server.url}/v1/pay/deposits`);
    const body = (await res.json()) as ReturnType<typeof errorBody>;
    assert.is(res.status, 429);
    assert.is(res.headers.get('retry-after'), '17');
    assert.is(res.headers.get('ratelimit-limit'), '600', 'headers set before the throw survive');
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    assert.is(body.error.request_id, res.headers.get('request-id'));
    assert.is(body.error.code, 'rate_limited');
    assert.is(body.error.retry_after_seconds, 17);
    assert.equal(body.error.details, { bucket: 'pay_write', scope: 'api_key' });
  } finally {
    await server.close();
  }
});

test('no Retry-After header when the error has no retry delay', async () => {
  const server = await serve(appThrowing(() => new ApiError('scope_denied')));
  try {
    const res = await fetch(server.url);
    assert.is(res.status, 403);
    assert.is(res.headers.get('retry-after'), null);
  } finally {
    await server.close();
  }
});

test('an unknown exception is a generic 500 internal_error; its message is logged, not sent', async () => {
  const captured = captureLogger();
  const server = await serve(appThrowing(() => new Error('db password is hunter2'), captured.logger));
  try {
    const res = await fetch(server.url);
    const text = await res.text();
    const body = JSON.parse(text) as ReturnType<typeof errorBody>;
    assert.is(res.status, 500);
    assert.is(body.error.code, 'internal_error');
    assert.is(body.error.message, catalogue.internal_error.message);
    assert.not.match(text, /hunter2/);
    const logged = captured.lines().find((l) => l.msg === 'unhandled error');
    assert.ok(logged, 'the failure is logged');
    assert.is(logged.level, 50);
    assert.is(logged.request_id, body.error.request_id);
    assert.match(JSON.stringify(logged), /hunter2/);
  } finally {
    await server.close();
  }
});

test("/readyz's 503 reports a state and is not logged as a failed request; the same 503 elsewhere is", async () => {
  const captured = captureLogger();
  const server = await serve(appThrowing(() => new ApiError('service_unavailable', 'The service is not ready; see details.checks.', { status: 'starting' }, 1), captured.logger));
  try {
    assert.is((await fetch(`${server.url}/readyz`)).status, 503);
    assert.is(captured.lines().filter((l) => l.msg === 'request failed on the service side').length, 0, 'a prober polling /readyz adds no warning');
    assert.is((await fetch(`${server.url}/v1/pay/balance`)).status, 503);
    assert.is(captured.lines().filter((l) => l.msg === 'request failed on the service side').length, 1);
  } finally {
    await server.close();
  }
});

test('a thrown non-Error value is also a 500 internal_error', async () => {
  const server = await serve(appThrowing(() => 'just a string'));
  try {
    const res = await fetch(server.url);
    assert.is(res.status, 500);
    assert.is(((await res.json()) as ReturnType<typeof errorBody>).error.code, 'internal_error');
  } finally {
    await server.close();
  }
});

test('the message of a 5xx ApiError stays in the log; the client gets the catalogue text', async () => {
  const captured = captureLogger();
  const server = await serve(appThrowing(() => new ApiError('service_unavailable', 'shard 3 journal lagging'), captured.logger));
  try {
    const res = await fetch(server.url);
    const body = (await res.json()) as ReturnType<typeof errorBody>;
    assert.is(res.status, 503);
    assert.is(body.error.message, catalogue.service_unavailable.message);
    assert.match(captured.text(), /shard 3 journal lagging/);
  } finally {
    await server.close();
  }
});

test('a body that is not JSON is 400 malformed_json, not 500', async () => {
  const server = await serve(appThrowing(() => new ApiError('internal_error')));
  try {
    const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount_minor": 10' });
    const body = (await res.json()) as ReturnType<typeof errorBody>;
    assert.is(res.status, 400);
    assert.is(body.error.code, 'malformed_json');
  } finally {
    await server.close();
  }
});

test('a body over the size limit is 422 validation_error with reason too_large', async () => {
  const server = await serve(appThrowing(() => new ApiError('internal_error'), undefined, '10b'));
  try {
    const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"merchant_reference":"0123456789"}' });
    const body = (await res.json()) as ReturnType<typeof errorBody>;
    assert.is(res.status, 422);
    assert.is(body.error.code, 'validation_error');
    assert.equal((body.error.details.fields as Array<{ reason: string }>).map((f) => f.reason), ['too_large']);
  } finally {
    await server.close();
  }
});

test('a route that answers nothing gives 404 resource_not_found in the contract shape', async () => {
  const server = await serve(appThrowing(() => new ApiError('internal_error')));
  try {
    const res = await fetch(`${server.url}/missing`);
    const body = (await res.json()) as ReturnType<typeof errorBody>;
    assert.is(res.status, 404);
    assert.is(body.error.code, 'resource_not_found');
    assert.is(body.error.request_id, res.headers.get('x-request-id'));
  } finally {
    await server.close();
  }
});

test.run();
