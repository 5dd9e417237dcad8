import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RateLimiter, rateLimitHeaders, rateLimitPolicies, rateLimitedError } from '../../server/rate-limit.ts';
import { errorBody } from '../../server/errors.ts';
import { clientNetwork } from '../../server/app.ts';

const t0 = 1_767_225_600_000;

test('the contract quotas', () => {
  assert.equal(rateLimitPolicies.pay_write, { limit: 600, windowSeconds: 60 });
  assert.equal(rateLimitPolicies.pay_read, { limit: 1200, windowSeconds: 60 });
  assert.equal(rateLimitPolicies.slip_upload_subject, { limit: 20, windowSeconds: 60 });
  assert.equal(rateLimitPolicies.slip_upload_user, { limit: 20, windowSeconds: 60 });
});

test('pay_write allows 600 in a window, refuses the 601st, and counts down remaining', () => {
  const limiter = new RateLimiter();
  const first = limiter.take('pay_write', 'key_a', t0);
  assert.equal(first, { allowed: true, limit: 600, remaining: 599, resetSeconds: 60, retryAfterSeconds: null, windowSeconds: 60 });
  for (let i = 2; i <= 600; i++) {
    const r = limiter.take('pay_write', 'key_a', t0 + i);
    assert.ok(r.allowed, `request ${i}`);
    assert.is(r.remaining, 600 - i);
  }
  const refused = limiter.take('pay_write', 'key_a', t0 + 30_500);
  assert.is(refused.allowed, false);
  assert.is(refused.remaining, 0);
  assert.is(refused.resetSeconds, 30, '29.5 s left rounds up to 30');
  assert.is(refused.retryAfterSeconds, 30);
});

test('a new window opens once the old one has run its 60 s', () => {
  const limiter = new RateLimiter();
  for (let i = 0; i < 20; i++) limiter.take('slip_upload_user', 'u1', t0);
  assert.is(limiter.take('slip_upload_user', 'u1', t0 + 59_999).allowed, false, 'still inside the window');
  const fresh = limiter.take('slip_upload_user', 'u1', t0 + 60_000);
  assert.is(fresh.allowed, true);
  assert.is(fresh.remaining, 19);
  assert.is(fresh.resetSeconds, 60);
});

test('refused requests do not count against the next window or extend this one', () => {
  const limiter = new RateLimiter();
  for (let i = 0; i < 25; i++) limiter.take('slip_upload_subject', 's', t0 + i * 1000);
  const last = limiter.take('slip_upload_subject', 's', t0 + 59_000);
  assert.is(last.allowed, false);
  assert.is(last.resetSeconds, 1);
  assert.is(limiter.take('slip_upload_subject', 's', t0 + 60_000).remaining, 19);
});

test('buckets and keys are counted separately', () => {
  const limiter = new RateLimiter();
  for (let i = 0; i < 20; i++) limiter.take('slip_upload_user', 'u1', t0);
  assert.is(limiter.take('slip_upload_user', 'u1', t0).allowed, false);
  assert.is(limiter.take('slip_upload_user', 'u2', t0).allowed, true, 'another key');
  assert.is(limiter.take('slip_upload_subject', 'u1', t0).allowed, true, 'same key, another bucket');
  assert.is(limiter.take('pay_read', 'u1', t0).remaining, 1199);
});

test('peek reports the quota without consuming it', () => {
  const limiter = new RateLimiter();
  const untouched = limiter.peek('pay_read', 'k', t0);
  assert.equal(untouched, { allowed: true, limit: 1200, remaining: 1200, resetSeconds: 60, retryAfterSeconds: null, windowSeconds: 60 });
  limiter.take('pay_read', 'k', t0);
  assert.is(limiter.peek('pay_read', 'k', t0 + 10_000).remaining, 1199);
  assert.is(limiter.peek('pay_read', 'k', t0 + 10_000).resetSeconds, 50);
  assert.is(limiter.peek('pay_read', 'k', t0 + 10_000).remaining, 1199, 'peeking twice consumed nothing');
  for (let i = 0; i < 19; i++) limiter.take('slip_upload_user', 'u', t0);
  assert.is(limiter.peek('slip_upload_user', 'u', t0).allowed, true, 'one left');
  limiter.take('slip_upload_user', 'u', t0);
  const exhausted = limiter.peek('slip_upload_user', 'u', t0 + 1000);
  assert.is(exhausted.allowed, false);
  assert.is(exhausted.retryAfterSeconds, 59);
  assert.is(limiter.peek('slip_upload_user', 'u', t0 + 60_000).remaining, 20, 'an ended window reads as fresh');
});

test('a clock stepping backwards never reports a reset beyond one window', () => {
  const limiter = new RateLimiter();
  limiter.take('pay_write', 'k', t0);
  const r = limiter.take('pay_write', 'k', t0 - 5_000);
  assert.is(r.resetSeconds, 60);
  assert.is(r.remaining, 598);
});

test('tracked keys are bounded; the oldest window is evicted first', () => {
  const limiter = new RateLimiter({ maxKeys: 3 });
  for (let i = 0; i < 20; i++) limiter.take('slip_upload_user', 'oldest', t0);
  limiter.take('slip_upload_user', 'b', t0 + 1);
  limiter.take('slip_upload_user', 'c', t0 + 2);
  assert.is(limiter.trackedKeys, 3);
  limiter.take('slip_upload_user', 'd', t0 + 3);
  assert.is(limiter.trackedKeys, 3, 'never more than maxKeys');
  assert.is(limiter.peek('slip_upload_user', 'oldest', t0 + 4).remaining, 20, 'oldest was evicted');
  assert.is(limiter.peek('slip_upload_user', 'b', t0 + 4).remaining, 19, 'b kept');
  assert.is(limiter.peek('slip_upload_user', 'd', t0 + 4).remaining, 19, 'd kept');
});

test('a reopened window counts as recent for eviction', () => {
  const limiter = new RateLimiter({ maxKeys: 2 });
  limiter.take('pay_write', 'a', t0);
  limiter.take('pay_write', 'b', t0 + 1000);
  limiter.take('pay_write', 'a', t0 + 61_000); // a's window ended: it reopens and moves to the back
  limiter.take('pay_write', 'c', t0 + 61_001); // evicts b, not a
  assert.is(limiter.peek('pay_write', 'a', t0 + 61_002).remaining, 599);
  assert.is(limiter.peek('pay_write', 'b', t0 + 61_002).remaining, 600);
});

test('maxKeys must be a positive integer', () => {
  assert.throws(() => new RateLimiter({ maxKeys: 0 }), /maxKeys/);
});

test('rateLimitHeaders: allowed response carries the five RateLimit headers, no Retry-After', () => {
  const limiter = new RateLimiter();
  const result = limiter.take('pay_write', 'k', t0);
  assert.equal(rateLimitHeaders(result, 'pay_write'), {
    'RateLimit-Limit': '600',
    'RateLimit-Remaining': '599',
    'RateLimit-Reset': '60',
    'RateLimit-Policy': '600;w=60',
    'X-RateLimit-Scope': 'pay_write',
  });
});

test('rateLimitHeaders and rateLimitedError on refusal', () => {
  const limiter = new RateLimiter();
  for (let i = 0; i < 20; i++) limiter.take('slip_upload_subject', 'subj', t0);
  const refused = limiter.take('slip_upload_subject', 'subj', t0 + 15_000);
  const headers = rateLimitHeaders(refused, 'slip_upload_subject');
  assert.is(headers['Retry-After'], '45');
  assert.is(headers['RateLimit-Remaining'], '0');
  assert.is(headers['RateLimit-Policy'], '20;w=60');
  const error = rateLimitedError(refused, 'slip_upload_subject', 'rate_subject');
  const body = errorBody(error.code, 'req_x', { details: error.details, retryAfterSeconds: error.retryAfterSeconds });
  assert.is(body.error.code, 'rate_limited');
  assert.is(body.error.retry_after_seconds, 45);
  assert.equal(body.error.details, { bucket: 'slip_upload_subject', scope: 'rate_subject' });
});


test("a stranger's network: the IPv4 address (also written as IPv4-mapped IPv6), or the IPv6 address's /64", () => {
  assert.is(clientNetwork('203.0.113.7'), '203.0.113.7');
  assert.is(clientNetwork('::ffff:203.0.113.7'), '203.0.113.7');
  assert.is(clientNetwork('2001:db8:aa:bb:1:2:3:4'), '2001:db8:aa:bb::/64');
  assert.is(clientNetwork('2001:db8:aa:bb::ffff'), clientNetwork('2001:db8:aa:bb:9:9:9:9'), 'one host, many addresses: one network');
  assert.is.not(clientNetwork('2001:db8:aa:bc::1'), clientNetwork('2001:db8:aa:bb::1'));
  assert.is(clientNetwork('not an address'), 'not an address');
});

test.run();
