import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import {
  canonicalString,
  checkTimestamp,
  sha256Hex,
  sign,
  signRequest,
  sortedQuery,
  verifySignatureHeader,
  isUppercaseSignature,
} from '../../server/hmac.ts';

const secret = 'sk_test_vector_secret';
const body = '{"amount_minor":10000,"currency":"THB"}';
// Both digests below were computed outside this code base with
//   printf '%s' "$body" | openssl dgst -sha256
//   openssl dgst -sha256 -hmac "$secret" < canonical
const bodySha256 = '9e4df2623dc842ff8cc1ad1c3595f78160631a9497adb8b3d219879ff47d7708';
const expectedSignature = 'f3a0701646787498d4cc74419c65d55e8e3d5a95790b93cc400a693420f919e5';
// The contract's nine lines, written out by hand; the query arrives unsorted as 'c&b=%20x&a=2&a=1'.
const handCanonical =
  'v1\n' +
  '1767225600\n' +
  'n-0001\n' +
  'POST\n' +
  '/v1/pay/deposits\n' +
  'a=1&a=2&b=%20x&c\n' +
  `${bodySha256}\n` +
  'idem-key-0001\n' +
  '2026-08-01\n';

const vectorFields = {
  timestamp: 1767225600,
  nonce: 'n-0001',
  method: 'post',
  path: '/v1/pay/deposits',
  query: 'c&b=%20x&a=2&a=1',
  bodySha256Hex: sha256Hex(body),
  idempotencyKey: 'idem-key-0001',
  version: '2026-08-01',
};

test('body digest matches the independent value', () => {
  assert.is(sha256Hex(body), bodySha256);
  assert.is(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.is(sha256Hex(Buffer.from(body)), bodySha256, 'bytes and string agree');
});

test('canonical string: nine newline-terminated lines, method uppercased, query sorted', () => {
  const canonical = canonicalString(vectorFields);
  assert.is(canonical, handCanonical);
  assert.is(canonical.split('\n').length, 10, 'nine lines plus the empty remainder after the last newline');
  assert.ok(canonical.endsWith('\n'));
});

test('known vector: sign() equals an HMAC computed outside the module', () => {
  assert.is(sign(secret, handCanonical), expectedSignature);
  assert.is(createHmac('sha256', secret).update(handCanonical).digest('hex'), expectedSignature);
});

test('no query, no body, no Idempotency-Key give empty lines where the contract says', () => {
  const canonical = canonicalString({ timestamp: '1', nonce: 'n', method: 'GET', path: '/v1/pay/balance', query: '', bodySha256Hex: sha256Hex(''), version: '2026-08-01' });
  assert.is(canonical, `v1\n1\nn\nGET\n/v1/pay/balance\n\n${sha256Hex('')}\n\n2026-08-01\n`);
});

test('sortedQuery orders by key then value and keeps the raw encoding', () => {
  assert.is(sortedQuery(''), '');
  assert.is(sortedQuery('limit=20&status=settled&cursor=abc'), 'cursor=abc&limit=20&status=settled');
  assert.is(sortedQuery('k=b&k=a&k=%41'), 'k=%41&k=a&k=b');
  assert.is(sortedQuery('name=%E0%B8%81&a%20b=1'), 'a%20b=1&name=%E0%B8%81');
  assert.is(sortedQuery('a=2&&a=1'), 'a=1&a=2', 'empty pairs from stray separators are dropped');
  assert.is(sortedQuery('a-=1&a=2'), 'a=2&a-=1', 'by key first: "a" before "a-", although "-" sorts before "="');
  assert.is(sortedQuery('c=1&c'), 'c&c=1', 'a pair without "=" has the empty value');
});

test('verifySignatureHeader accepts v1=<hex> of the right HMAC only', () => {
  assert.ok(verifySignatureHeader(secret, handCanonical, `v1=${expectedSignature}`));
  assert.not.ok(verifySignatureHeader(secret, handCanonical, `v1=${expectedSignature.toUpperCase()}`), 'the contract\'s lowercase hex only');
  assert.ok(isUppercaseSignature(`v1=${expectedSignature.toUpperCase()}`) && !isUppercaseSignature(`v1=${expectedSignature}`), 'told apart for the refusal\'s message');
  assert.not.ok(verifySignatureHeader('sk_test_other', handCanonical, `v1=${expectedSignature}`), 'other secret');
  assert.not.ok(verifySignatureHeader(secret, handCanonical, expectedSignature), 'missing v1= prefix');
  assert.not.ok(verifySignatureHeader(secret, handCanonical, `v2=${expectedSignature}`), 'unknown scheme');
  assert.not.ok(verifySignatureHeader(secret, handCanonical, `v1=${expectedSignature.slice(0, 62)}`), 'short');
  assert.not.ok(verifySignatureHeader(secret, handCanonical, `v1=${expectedSignature}00`), 'long');
  assert.not.ok(verifySignatureHeader(secret, handCanonical, `v1=${'z'.repeat(64)}`), 'not hex');
  assert.not.ok(verifySignatureHeader(secret, handCanonical, undefined), 'absent');
  assert.not.ok(verifySignatureHeader(secret, handCanonical, ''), 'empty');
});

test('one flipped byte of the body makes the signature fail', () => {
  const headers = signRequest({ secret, method: 'POST', path: '/v1/pay/deposits', body, idempotencyKey: 'k-1', version: '2026-08-01', timestamp: 1767225600, nonce: 'n-1' });
  const bytes = Buffer.from(body);
  bytes[5] ^= 0x01;
  const tampered = canonicalString({ timestamp: 1767225600, nonce: 'n-1', method: 'POST', path: '/v1/pay/deposits', query: '', bodySha256Hex: sha256Hex(bytes), idempotencyKey: 'k-1', version: '2026-08-01' });
  const intact = canonicalString({ timestamp: 1767225600, nonce: 'n-1', method: 'POST', path: '/v1/pay/deposits', query: '', bodySha256Hex: sha256Hex(body), idempotencyKey: 'k-1', version: '2026-08-01' });
  assert.ok(verifySignatureHeader(secret, intact, headers['PG-Signature']));
  assert.not.ok(verifySignatureHeader(secret, tampered, headers['PG-Signature']));
});

test('signRequest gives the contract headers and a signature the server side verifies', () => {
  const headers = signRequest({ secret, method: 'post', path: '/v1/pay/deposits', query: 'c&b=%20x&a=2&a=1', body, idempotencyKey: 'idem-key-0001', version: '2026-08-01', timestamp: 1767225600, nonce: 'n-0001' });
  assert.equal(headers, {
    Authorization: `Bearer ${secret}`,
    'PG-Timestamp': '1767225600',
    'PG-Nonce': 'n-0001',
    'PG-Version': '2026-08-01',
    'PG-Signature': `v1=${expectedSignature}`,
    'Idempotency-Key': 'idem-key-0001',
  });
});

test('signRequest without a key omits Idempotency-Key and draws a fresh nonce and current time', () => {
  const before = Math.floor(Date.now() / 1000);
  const a = signRequest({ secret, method: 'GET', path: '/v1/pay/balance', version: '2026-08-01' });
  const b = signRequest({ secret, method: 'GET', path: '/v1/pay/balance', version: '2026-08-01' });
  assert.is(a['Idempotency-Key'], undefined);
  assert.is.not(a['PG-Nonce'], b['PG-Nonce']);
  assert.ok(Number(a['PG-Timestamp']) >= before && Number(a['PG-Timestamp']) <= before + 5);
  const canonical = canonicalString({ timestamp: a['PG-Timestamp'], nonce: a['PG-Nonce'], method: 'GET', path: '/v1/pay/balance', query: '', bodySha256Hex: sha256Hex(''), version: '2026-08-01' });
  assert.ok(verifySignatureHeader(secret, canonical, a['PG-Signature']));
});

test('checkTimestamp: within +/-300 s inclusive is ok, 301 s is refused', () => {
  const now = 1_767_225_600;
  for (const skew of [0, 1, 299, 300, -1, -299, -300]) {
    assert.is(checkTimestamp(String(now + skew), now), 'ok', `skew ${skew}`);
  }
  for (const skew of [301, -301, 86_400, -now]) {
    assert.is(checkTimestamp(String(now + skew), now), 'timestamp_out_of_window', `skew ${skew}`);
  }
});

test('checkTimestamp refuses anything that is not a plain integer of seconds', () => {
  const now = 1_767_225_600;
  for (const bad of [undefined, '', '1767225600.0', '1767225600.5', '+1767225600', '-1767225600', '1.7672256e9', ' 1767225600', '0x69547380', 'abc', '1767225600000000000']) {
    assert.is(checkTimestamp(bad, now), 'timestamp_out_of_window', `header ${String(bad)}`);
  }
});

test.run();
