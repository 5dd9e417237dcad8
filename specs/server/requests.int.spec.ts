// The request pipeline over real sockets (node:net), against a real server: nothing of a
// body is read before the request is authenticated (a client without credentials that
// declares a megabyte is answered at once and its connection closed); JSON bodies are
// capped (256 KiB) by Content-Length before reading and while reading; a slow body meets
// a deadline (408 request_timeout) and a slow header section the server's headers
// timeout; the signature covers the body's bytes (invalid UTF-8 signed correctly is 400
// malformed_json, not 401); an unknown PG-Version is refused once the signature checks
// out; a wrong method on a known path is 405 with Allow; and the security windows run on
// the wall clock whatever the business clock says.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import { depositBody, sender, signedHeaders, TestServer, type MerchantKeys, type Reply } from '../support/server-harness.ts';
import { expectError } from '../support/api-checks.ts';
import { requestLimits } from '../../core/limits.ts';
import { requestTimeouts } from '../../server/request-timeouts.ts';

let s: TestServer;
let m: MerchantKeys;

test.before(async () => {
  s = await TestServer.start();
  m = await s.onboard('Pipeline');
});
test.after(async () => { await s.stop(); });

// ---- a raw HTTP/1.1 client on a socket ----

interface SocketReply {
  /** The status of the first answer; 0 when none came. */
  readonly status: number;
  readonly headers: string;
  readonly json: any;
  /** Milliseconds from connecting to the first byte of the answer; null when none came. */
  readonly answeredAfterMs: number | null;
  /** Milliseconds from connecting until the server closed the connection; null when it stayed open. */
  readonly closedAfterMs: number | null;
}

function requestHead(method: string, path: string, headers: Record<string, string>): string {
  return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
}

/**
 * Writes `bytes` on a fresh connection and collects the answer until the server closes it or
 * `waitMs` passes; with `then`, waits for `then.meanwhile()` and writes `then.rest` after it.
 */
function exchange(bytes: string | Buffer, waitMs = 3_000, then?: { meanwhile: () => Promise<void>; rest: string }): Promise<SocketReply> {
  const { hostname, port } = new URL(s.url);
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let answeredAfterMs: number | null = null;
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const closedAfterMs = closed ? performance.now() - started : null;
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const headers = split === -1 ? text : text.slice(0, split);
      let json: unknown;
      try { json = JSON.parse(text.slice(split + 4)); } catch { /* not JSON */ }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), headers, json, answeredAfterMs, closedAfterMs });
    };
    socket.on('data', (d) => { answeredAfterMs ??= performance.now() - started; chunks.push(d); });
    socket.on('close', () => finish(true));
    socket.on('error', () => { /* a reset after the answer still ends the exchange through 'close' */ });
    const timer = setTimeout(() => finish(false), waitMs);
    socket.write(bytes);
    if (then) void then.meanwhile().then(() => socket.write(then.rest));
  });
}

function errorCodeOf(r: SocketReply): string | undefined {
  return r.json?.error?.code;
}

const oneMebibyte = 1024 * 1024;

// ---- 1. nothing is read before authentication ----

test('an unauthenticated POST declaring 1 MB, sending a few bytes: 401 at once, body unread, connection closed', async () => {
  const stale = signedHeaders(m.live.api_key, 'POST', '/v1/pay/deposits', '', { idempotencyKey: randomUUID(), nowSeconds: s.wallSeconds() - 3_600 });
  const cases: [string, string, Record<string, string>, string][] = [
    ['no credentials', '/v1/pay/deposits', {}, 'api_key_invalid'],
    ['an unknown key', '/v1/pay/deposits', { Authorization: `Bearer sk_live_${randomUUID()}` }, 'api_key_invalid'],
    ['a real key, a timestamp an hour old', '/v1/pay/deposits', stale, 'timestamp_out_of_window'],
    ['no operator token', '/v1/bo/white-labels', { 'Idempotency-Key': randomUUID() }, 'api_key_invalid'],
    ['a forged operator token', '/v1/bo/white-labels', { Authorization: 'Bearer eyJhbGciOiJFZERTQSJ9.e30.AAAA' }, 'signature_invalid'],
  ];
  for (const [what, path, headers, code] of cases) {
    const head = requestHead('POST', path, { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(oneMebibyte) });
    const r = await exchange(head + '{"amount_minor":');
    assert.is(r.status, 401, `${what}: ${r.headers}`);
    assert.is(errorCodeOf(r), code, what);
    assert.ok(r.answeredAfterMs !== null && r.answeredAfterMs < 1_000, `${what}: answered without waiting for the body (${r.answeredAfterMs} ms)`);
    assert.ok(r.closedAfterMs !== null, `${what}: the connection is closed, not kept for the rest of the body`);
    assert.match(r.headers, /\r\nConnection: close/i, what);
  }
});

test('fifty such connections at once are all answered and closed', async () => {
  const head = requestHead('POST', '/v1/pay/deposits', { 'Content-Type': 'application/json', 'Content-Length': String(oneMebibyte) });
  const replies = await Promise.all(Array.from({ length: 50 }, () => exchange(Buffer.concat([Buffer.from(head), Buffer.alloc(16 * 1024, 0x20)]))));
  assert.equal(replies.map((r) => r.status), replies.map(() => 401));
  assert.ok(replies.every((r) => r.closedAfterMs !== null), 'every connection closed');
});

// ---- body caps ----

test('a valid key declaring more than 256 KiB: 422 validation_error too_large before a byte is read', async () => {
  assert.is(requestLimits.jsonBodyBytesMax, 256 * 1024);
  const headers = signedHeaders(m.live.api_key, 'POST', '/v1/pay/deposits', '', { idempotencyKey: randomUUID(), nowSeconds: s.wallSeconds() });
  const head = requestHead('POST', '/v1/pay/deposits', { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(requestLimits.jsonBodyBytesMax + 1) });
  const r = await exchange(head);
  assert.is(r.status, 422, r.headers);
  assert.is(errorCodeOf(r), 'validation_error');
  assert.is(r.json.error.details.fields[0].reason, 'too_large');
  assert.match(r.json.error.details.fields[0].hint, /262144 bytes/);
  assert.ok(r.answeredAfterMs !== null && r.answeredAfterMs < 1_000, 'answered at once');
  assert.ok(r.closedAfterMs !== null, 'connection closed');
});

test('a chunked body without Content-Length is cut off at 256 KiB: 422 too_large, connection closed', async () => {
  const headers = signedHeaders(m.live.api_key, 'POST', '/v1/pay/deposits', '', { idempotencyKey: randomUUID(), nowSeconds: s.wallSeconds() });
  const head = requestHead('POST', '/v1/pay/deposits', { ...headers, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
  const chunk = 64 * 1024;
  const chunks = Array.from({ length: 5 }, () => `${chunk.toString(16)}\r\n${' '.repeat(chunk)}\r\n`).join('');
  const r = await exchange(head + chunks);
  assert.is(r.status, 422, r.headers);
  assert.is(r.json.error.details.fields[0].reason, 'too_large');
  assert.ok(r.closedAfterMs !== null);
});

test('a body under the cap is read and judged on its content (not too_large)', async () => {
  const r = await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ metadata: { note: 'x'.repeat(200 * 1024) } }));
  const e = expectError(r, 'validation_error');
  assert.not.ok(JSON.stringify(e.details).includes('too_large'), r.text);
});

// ---- deadlines (a server with shortened timeouts) ----

test('SATANG_REQUEST_TIMEOUTS_MS is for tests: refused in production, checked for shape', () => {
  assert.throws(() => requestTimeouts('production', { SATANG_REQUEST_TIMEOUTS_MS: '500,500' }), /refused/);
  assert.throws(() => requestTimeouts('development', { SATANG_REQUEST_TIMEOUTS_MS: '500' }), /two or three positive integers/);
  assert.throws(() => requestTimeouts('development', { SATANG_REQUEST_TIMEOUTS_MS: '500,500,1500,9' }), /two or three positive integers/);
  assert.throws(() => requestTimeouts('development', { SATANG_REQUEST_TIMEOUTS_MS: '900,500,600' }), /cannot be shorter than the headers/);
  assert.is(requestTimeouts('development', { SATANG_REQUEST_TIMEOUTS_MS: '500,500,1500' }).requestMs, 1_500);
  assert.equal(requestTimeouts('production', {}), requestTimeouts('development', {}));
  const shortened = requestTimeouts('development', { SATANG_REQUEST_TIMEOUTS_MS: '700,300' });
  assert.is(shortened.headersMs, 700);
  assert.is(shortened.bodyMs, 300);
});

test('a slow body: 408 request_timeout once the body deadline passes, and the connection closed; a slow header section: 408 request_timeout, closed', async () => {
  const quick = await TestServer.start({ SATANG_REQUEST_TIMEOUTS_MS: '800,500' });
  const previous = s;
  s = quick;
  try {
    const k = await quick.onboard('Slow');
    const headers = signedHeaders(k.live.api_key, 'POST', '/v1/pay/deposits', '', { idempotencyKey: randomUUID(), nowSeconds: quick.wallSeconds() });
    const slowBody = await exchange(requestHead('POST', '/v1/pay/deposits', { ...headers, 'Content-Type': 'application/json', 'Content-Length': '100' }) + '{"amount', 4_000);
    assert.is(slowBody.status, 408, slowBody.headers);
    assert.is(errorCodeOf(slowBody), 'request_timeout');
    assert.is(slowBody.json.error.retryable, true);
    assert.match(slowBody.json.error.message, /0\.5 s/);
    assert.ok(slowBody.answeredAfterMs! >= 450 && slowBody.answeredAfterMs! < 2_000, `answered at the deadline (${slowBody.answeredAfterMs} ms)`);
    assert.ok(slowBody.closedAfterMs !== null && slowBody.closedAfterMs < 2_500, 'connection closed');

    const slowHeaders = await exchange('POST /v1/pay/deposits HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: app', 5_000);
    assert.ok(slowHeaders.closedAfterMs !== null, 'a connection that never finishes its headers is closed');
    assert.ok(slowHeaders.closedAfterMs! >= 700 && slowHeaders.closedAfterMs! < 3_000, `closed after the headers timeout (${slowHeaders.closedAfterMs} ms)`);
    // … answered first as every refusal is: 408 with the error object (Node's own was a bare status line).
    assert.is(slowHeaders.status, 408, slowHeaders.headers);
    assert.is(errorCodeOf(slowHeaders), 'request_timeout');
    assert.match(slowHeaders.headers, /\r\nContent-Type: application\/json; charset=utf-8/i);
    assert.match(slowHeaders.headers, new RegExp(`\\r\\nRequest-Id: ${slowHeaders.json.error.request_id}\\r\\n`, 'i'), 'the header names the error\'s request id');
  } finally {
    s = previous;
    await quick.stop();
  }
});

test('a key revoked, or its operator\'s sessions revoked, while the request\'s body is on its way: refused once the body is read, and nothing done', async () => {
  // The headers authenticate before the body is read; a body may take seconds (the body
  // deadline), and a revocation made meanwhile must stop the request, not only the next one.
  const minted = await s.bo('POST', `/v1/bo/merchants/${m.id}/keys`, { livemode: true, scopes: ['wallet:read', 'withdrawals:write', 'withdrawals:read'] }, { stepUp: true });
  assert.is(minted.status, 201, minted.text);
  const reference = `slow-${randomUUID()}`;
  const body = JSON.stringify(depositBody({ merchant_reference: reference }));
  const headers = signedHeaders(minted.json.api_key, 'POST', '/v1/pay/deposits', body, { idempotencyKey: randomUUID(), nowSeconds: s.wallSeconds() });
  const head = requestHead('POST', '/v1/pay/deposits', { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
  const afterRevoke = await exchange(head + body.slice(0, 5), 5_000, {
    meanwhile: async () => { assert.is((await s.bo('POST', `/v1/bo/keys/${minted.json.key_id}/revoke`, {}, { stepUp: true })).status, 200); },
    rest: body.slice(5),
  });
  assert.is(afterRevoke.status, 401, afterRevoke.headers);
  assert.is(errorCodeOf(afterRevoke), 'api_key_revoked');
  const listed = await s.call(m.live.api_key, 'GET', '/v1/pay/deposits?limit=200');
  assert.not.ok(listed.json.data.some((d: { merchant_reference: string }) => d.merchant_reference === reference), 'no deposit was created');

  // An operator: headers of a suspension sent, then every session of theirs revoked, then the body.
  const sub = `emp_slow_${randomUUID().slice(0, 8)}`;
  const opHead = requestHead('POST', `/v1/bo/merchants/${m.id}/suspend`, {
    Authorization: `Bearer ${await s.operatorToken(sub)}`, 'X-PG-Step-Up-Token': await s.operatorToken(sub, true), 'Idempotency-Key': randomUUID(),
    'Content-Type': 'application/json', 'Content-Length': String('{"reason":"late"}'.length),
  });
  const afterOperatorRevoke = await exchange(opHead + '{"rea', 5_000, {
    meanwhile: async () => { assert.is((await s.bo('POST', `/v1/bo/operators/${sub}/revoke`, { reason: 'token leaked' }, { sub: 'emp_alice', stepUp: true })).status, 200); },
    rest: 'son":"late"}',
  });
  assert.is(afterOperatorRevoke.status, 401, afterOperatorRevoke.headers);
  assert.match(afterOperatorRevoke.json.error.message, /sessions were revoked/);
  assert.is((await s.call(m.live.api_key, 'GET', '/v1/pay/balance')).status, 200, 'the merchant was not suspended');
});

// ---- 2. the signature covers the bytes ----

test('HTTP the server cannot read (a bad Content-Length, a method with a space, no Host): 400 with the error object, malformed_request, and the connection closed', async () => {
  for (const bytes of [
    'POST /v1/pay/deposits HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ten\r\n\r\n',
    'GE T /v1/pay/banks HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
    'GET /v1/pay/banks HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
  ]) {
    const r = await exchange(bytes);
    assert.is(r.status, 400, JSON.stringify(bytes));
    assert.is(errorCodeOf(r), 'malformed_request', r.headers);
    assert.match(r.json.error.request_id, /^req_/);
    assert.ok(r.closedAfterMs !== null, 'closed');
  }
});

test('invalid UTF-8 signed over its bytes: 400 malformed_json (not signature_invalid), and nothing written', async () => {
  const before = s.running.store.world.lastSeq;
  const bytes = Buffer.concat([Buffer.from('{"merchant_reference":"ref-'), Buffer.from([0xff, 0xfe]), Buffer.from('","amount_minor":50000}')]);
  const r = await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', bytes);
  const e = expectError(r, 'malformed_json');
  assert.match(e.message, /UTF-8/);
  assert.is(s.running.store.world.lastSeq, before);
  // The same bytes signed over their decoded text (U+FFFD for 0xff 0xfe) are a wrong signature.
  const decoded = bytes.toString('utf8');
  const headers = signedHeaders(m.live.api_key, 'POST', '/v1/pay/deposits', decoded, { idempotencyKey: randomUUID(), nowSeconds: s.wallSeconds() });
  expectError(await s.raw('POST', '/v1/pay/deposits', { headers: { ...headers, 'Content-Type': 'application/json' }, body: bytes }), 'signature_invalid');
});

test('Thai text and an emoji signed over their UTF-8 bytes are accepted', async () => {
  const body = Buffer.from(JSON.stringify(depositBody({ sender: { ...sender, account_name_th: 'สมชาย ใจดี 😀' } })), 'utf8');
  const r = await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', body);
  assert.ok(r.status === 201 || r.status === 202, r.text);
});

// ---- 3. PG-Version ----

test('an unknown PG-Version, correctly signed: 422 validation_error naming the supported version; the nonce stays unused', async () => {
  const nonce = randomUUID();
  const r = await s.call(m.live.api_key, 'GET', '/v1/pay/balance', undefined, { version: '2025-01-01', nonce });
  const e = expectError(r, 'validation_error');
  assert.equal(e.details.fields, [{ path: 'PG-Version', reason: 'unsupported', hint: '2026-08-01' }]);
  expectError(await s.call(m.live.api_key, 'GET', '/v1/pay/balance', undefined, { version: '', nonce: randomUUID() }), 'validation_error');
  assert.is((await s.call(m.live.api_key, 'GET', '/v1/pay/balance', undefined, { nonce })).status, 200, 'the refused request did not burn its nonce');
  // Without a valid signature the caller learns nothing about versions.
  const forged = signedHeaders(`${m.live.api_key}x`, 'GET', '/v1/pay/balance', '', { nowSeconds: s.wallSeconds(), version: '2025-01-01' });
  expectError(await s.raw('GET', '/v1/pay/balance', { headers: { ...forged, Authorization: `Bearer ${m.live.api_key}` } }), 'signature_invalid');
});

// ---- 4. 405 with Allow ----

test('a wrong method on a known path: 405 method_not_allowed with Allow, in the contract error shape', async () => {
  const d = await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', depositBody());
  assert.ok(d.status === 201 || d.status === 202, d.text);
  const cases: [string, () => Promise<Reply>, string[]][] = [
    ['PUT /v1/pay/deposits', () => s.call(m.live.api_key, 'PUT', '/v1/pay/deposits'), ['GET', 'HEAD', 'POST']],
    ['DELETE /v1/pay/deposits/{id}', () => s.call(m.live.api_key, 'DELETE', `/v1/pay/deposits/${d.json.id}`), ['GET', 'HEAD']],
    ['GET /v1/bo/clock/advance', () => s.bo('GET', '/v1/bo/clock/advance'), ['POST']], // (GET /v1/bo/white-labels is the directory list since the back office)
    ['PROPFIND /v1/pay/deposits', () => s.call(m.live.api_key, 'PROPFIND', '/v1/pay/deposits'), ['GET', 'HEAD', 'POST']],
  ];
  for (const [what, send, allowed] of cases) {
    const r = await send();
    const e = expectError(r, 'method_not_allowed');
    assert.equal((r.headers.get('allow') ?? '').split(', ').sort(), allowed, what);
    assert.equal([...e.details.allowed_methods].sort(), allowed, what);
    assert.is(e.retryable, false);
  }
  expectError(await s.call(m.live.api_key, 'DELETE', '/v1/pay/no-such-route'), 'resource_not_found');
});

// ---- 5. security time is the wall clock ----

test('after the business clock moves 100 hours, a request signed with the real time passes and one signed with the test time is refused', async () => {
  const nonce = randomUUID();
  assert.is((await s.call(m.live.api_key, 'GET', '/v1/pay/balance', undefined, { nonce })).status, 200);
  await s.running.services.write.advanceClock!(100 * 3_600_000);
  assert.is((await s.call(m.live.api_key, 'GET', '/v1/pay/balance')).status, 200, 'signed with the wall time');
  expectError(await s.call(m.live.api_key, 'GET', '/v1/pay/balance', undefined, { nowSeconds: Math.floor(s.clock.now() / 1000) }), 'timestamp_out_of_window');
  expectError(await s.call(m.live.api_key, 'GET', '/v1/pay/balance', undefined, { nonce }), 'nonce_replayed');
});

test.run();
