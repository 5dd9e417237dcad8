// Merchant HMAC over real HTTP (contract: Authentication, Limits): the ±300 s timestamp
// window measured against the wall clock (security time; the business clock a test moves
// plays no part), the nonce memory covering the whole window (also across a restart on the
// same data dir), and the signature covering the body bytes, the path, the query and the
// Idempotency-Key. A refused request never burns a nonce.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { depositBody, signedHeaders, TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { expectError } from '../support/api-checks.ts';
import { limits } from '../../core/limits.ts';

let s: TestServer;
let m: MerchantKeys;
const nowSeconds = () => s.wallSeconds();

test.before(async () => {
  s = await TestServer.start();
  m = await s.onboard('Signer');
});
test.after(async () => { await s.stop(); });

test('a skew of ±299 s and ±300 s is accepted, ±301 s refused (timestamp_out_of_window)', async () => {
  s.clock.advance(86_400_000); // business time moves; the window stays on the wall clock
  s.securityClock.hold(); // a second ticking between signing and checking would make +301 s a 300
  try {
    for (const skew of [-300, -299, 0, 299, 300]) {
      const r = await s.call(m.live.api_key, 'GET', '/v1/pay/balance', undefined, { nowSeconds: nowSeconds() + skew });
      assert.is(r.status, 200, `skew ${skew}: ${r.text}`);
    }
    for (const skew of [-301, 301, -86_400]) {
      const r = await s.call(m.live.api_key, 'GET', '/v1/pay/balance', undefined, { nowSeconds: nowSeconds() + skew });
      expectError(r, 'timestamp_out_of_window');
    }
    const businessSeconds = Math.floor(s.clock.now() / 1000);
    assert.ok(Math.abs(businessSeconds - nowSeconds()) > 301);
    expectError(await s.call(m.live.api_key, 'GET', '/v1/pay/balance', undefined, { nowSeconds: businessSeconds }), 'timestamp_out_of_window');
  } finally {
    s.securityClock.release();
  }
});

test('a timestamp that is not plain unix seconds is refused', async () => {
  for (const ts of ['', '1.5e9', `${nowSeconds()}.0`, `-${nowSeconds()}`, ' ']) {
    const headers = signedHeaders(m.live.api_key, 'GET', '/v1/pay/banks', '', { nowSeconds: nowSeconds() });
    headers['PG-Timestamp'] = ts;
    expectError(await s.raw('GET', '/v1/pay/banks', { headers }), 'timestamp_out_of_window');
  }
});

test('a nonce is refused again within the nonce memory, accepted after; nonces belong to one key', async () => {
  const nonce = randomUUID();
  assert.is((await s.call(m.live.api_key, 'GET', '/v1/pay/banks', undefined, { nonce })).status, 200);
  expectError(await s.call(m.live.api_key, 'GET', '/v1/pay/banks', undefined, { nonce }), 'nonce_replayed');
  // A different request (a POST with a body) does not make the nonce new.
  expectError(await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', depositBody(), { nonce }), 'nonce_replayed');
  s.securityClock.advance(599_000);
  expectError(await s.call(m.live.api_key, 'GET', '/v1/pay/banks', undefined, { nonce }), 'nonce_replayed');
  assert.is((await s.call(m.sandbox.api_key, 'GET', '/v1/pay/banks', undefined, { nonce })).status, 200, 'another key has its own nonces');
  s.securityClock.advance(limits.nonceMemoryMs - 599_000);
  assert.is((await s.call(m.live.api_key, 'GET', '/v1/pay/banks', undefined, { nonce })).status, 200, 'remembered for the window only');
});

test('the same request replayed in the last second its timestamp is in the window: nonce_replayed', async () => {
  // Signed at the far edge (+300 s), it stays in the window until the wall clock's second
  // passes it by 300 s, 601 whole seconds after it was first accepted; ten minutes of nonce
  // memory let the same bytes through once in that last second.
  const skew = limits.timestampSkewSecondsMax;
  s.securityClock.hold();
  try {
    const ts = nowSeconds() + skew;
    const headers = signedHeaders(m.live.api_key, 'GET', '/v1/pay/banks', '', { nowSeconds: ts });
    assert.is((await s.raw('GET', '/v1/pay/banks', { headers })).status, 200);
    const acceptedAt = s.securityClock.now();
    const lastInWindow = (ts + skew + 1) * 1000 - 1;
    for (const at of [acceptedAt + 600_000, lastInWindow]) {
      s.securityClock.advance(Math.max(0, at - s.securityClock.now()));
      expectError(await s.raw('GET', '/v1/pay/banks', { headers }), 'nonce_replayed');
    }
    s.securityClock.advance(1);
    expectError(await s.raw('GET', '/v1/pay/banks', { headers }), 'timestamp_out_of_window');
  } finally {
    s.securityClock.release();
  }
});

test('a refused request does not burn its nonce', async () => {
  const nonce = randomUUID();
  expectError(await s.call(m.live.api_key, 'GET', '/v1/pay/banks', undefined, { nonce, nowSeconds: nowSeconds() - 400 }), 'timestamp_out_of_window');
  const bad = signedHeaders(m.live.api_key, 'GET', '/v1/pay/banks', '', { nonce, nowSeconds: nowSeconds() });
  bad['PG-Signature'] = `v1=${'0'.repeat(64)}`;
  expectError(await s.raw('GET', '/v1/pay/banks', { headers: bad }), 'signature_invalid');
  assert.is((await s.call(m.live.api_key, 'GET', '/v1/pay/banks', undefined, { nonce })).status, 200);
});

test('one flipped byte of the body, another path, query or Idempotency-Key: signature_invalid with details {}', async () => {
  const flipAt = (i: number) => (b: string) => b.slice(0, i) + String.fromCharCode(b.charCodeAt(i) ^ 1) + b.slice(i + 1);
  const body = JSON.stringify(depositBody());
  for (const i of [body.indexOf('ref-') + 5, body.indexOf('user-') + 6]) {
    expectError(await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', body, { tamper: flipAt(i) }), 'signature_invalid');
  }
  expectError(await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', body, { tamper: (b) => `${b} ` }), 'signature_invalid');

  const ts = nowSeconds();
  const signedFor = (path: string, key?: string) => signedHeaders(m.live.api_key, key ? 'POST' : 'GET', path, '', { nowSeconds: ts, idempotencyKey: key });
  expectError(await s.raw('GET', '/v1/pay/balance', { headers: signedFor('/v1/pay/banks') }), 'signature_invalid');
  expectError(await s.raw('GET', '/v1/pay/deposits?limit=2', { headers: signedFor('/v1/pay/deposits?limit=1') }), 'signature_invalid');
  const withKey = signedFor('/v1/pay/deposits/dep_x/slip-token', 'key-one');
  expectError(await s.raw('POST', '/v1/pay/deposits/dep_x/slip-token', { headers: { ...withKey, 'Idempotency-Key': 'key-two' } }), 'signature_invalid');
  const otherVersion = signedFor('/v1/pay/banks');
  expectError(await s.raw('GET', '/v1/pay/banks', { headers: { ...otherVersion, 'PG-Version': '2025-01-01' } }), 'signature_invalid');
  for (const sig of ['', 'v1=', `v2=${'a'.repeat(64)}`, `v1=${'g'.repeat(64)}`, `v1=${'a'.repeat(63)}`, 'a'.repeat(64)]) {
    const refused = await s.raw('GET', '/v1/pay/banks', { headers: { ...signedFor('/v1/pay/banks'), 'PG-Signature': sig } });
    expectError(refused, 'signature_invalid');
    assert.match(refused.json.error.message, /v1= followed by the HMAC-SHA256 in 64 lowercase hex digits/, `${sig}: the shape is said`);
  }
  // The right shape, the wrong HMAC: where it usually goes astray, never the expected value.
  const wrong = await s.raw('GET', '/v1/pay/banks', { headers: { ...signedFor('/v1/pay/banks'), 'PG-Signature': `v1=${'a'.repeat(64)}` } });
  assert.match(expectError(wrong, 'signature_invalid').message, /canonical string \(nine lines, each ending in a newline/);
  // The right HMAC in uppercase hex: the contract's value is lowercase hex, and the refusal says so.
  const good = signedFor('/v1/pay/banks');
  const upper = await s.raw('GET', '/v1/pay/banks', { headers: { ...good, 'PG-Signature': good['PG-Signature']!.replace(/^v1=/, '').toUpperCase().replace(/^/, 'v1=') } });
  expectError(upper, 'signature_invalid');
  assert.match(upper.json.error.message, /lowercase hex/);
});

test('the query is signed in sorted order: any order on the wire is accepted', async () => {
  const r = await s.call(m.live.api_key, 'GET', '/v1/pay/deposits?status=canceled&limit=5');
  assert.is(r.status, 200, r.text);
});

test('nonces survive a restart on the same data dir; after the nonce memory they are free again', async () => {
  const nonce = randomUUID();
  const startedAt = s.securityClock.now();
  assert.is((await s.call(m.live.api_key, 'GET', '/v1/pay/banks', undefined, { nonce })).status, 200);
  const dataDir = s.dataDir;
  await s.stop(false);
  s = await TestServer.start({}, dataDir);
  s.securityClock.advance(Math.max(0, startedAt + 1_000 - s.securityClock.now())); // the restarted server's wall clock: a second later at least
  expectError(await s.call(m.live.api_key, 'GET', '/v1/pay/banks', undefined, { nonce }), 'nonce_replayed');
  s.securityClock.advance(limits.nonceMemoryMs);
  assert.is((await s.call(m.live.api_key, 'GET', '/v1/pay/banks', undefined, { nonce })).status, 200);
});

test.run();
