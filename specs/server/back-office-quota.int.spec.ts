// The operators' quota (server/auth/operator.ts, server/rate-limit.ts): every /v1/bo answer
// carries the RateLimit-* headers of the operator's bucket — bo_read for reads, bo_write for
// the rest, per operator — and past the quota an operator gets 429 rate_limited while
// another operator is not held up. One person is one operator under any spelling of their sub.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rateLimitPolicies } from '../../server/rate-limit.ts';
import { TestServer } from '../support/server-harness.ts';

let s: TestServer;

test.before(async () => { s = await TestServer.start(); });
test.after(async () => { await s.stop(); });

test('operator answers carry their bucket\'s headers; a write draws on bo_write, not bo_read', async () => {
  const read = await s.bo('GET', '/v1/bo/white-labels', undefined, { sub: 'emp_headers' });
  assert.is(read.status, 200, read.text);
  assert.equal(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Policy', 'X-RateLimit-Scope'].map((h) => read.headers.get(h)),
    [String(rateLimitPolicies.bo_read.limit), String(rateLimitPolicies.bo_read.limit - 1), `${rateLimitPolicies.bo_read.limit};w=60`, 'bo_read']);
  assert.is(read.headers.get('Retry-After'), null, 'no Retry-After on an answer that was allowed');
  const refused = await s.bo('POST', '/v1/bo/white-labels', { name: ' ' }, { sub: 'emp_headers' });
  assert.is(refused.status, 422, refused.text);
  assert.equal([refused.headers.get('X-RateLimit-Scope'), refused.headers.get('RateLimit-Remaining')], ['bo_write', String(rateLimitPolicies.bo_write.limit - 1)], 'a refused answer carries them too');
  const again = await s.bo('GET', '/v1/bo/white-labels', undefined, { sub: 'emp_headers' });
  assert.is(again.headers.get('RateLimit-Remaining'), String(rateLimitPolicies.bo_read.limit - 2), 'one count a request, though several routers share /v1/bo');
});

test('one person has one quota under any spelling of their sub (EMP_Q, emp_q, ＥＭＰ_Q), as four eyes and revocation count them', async () => {
  const remaining: (string | null)[] = [];
  for (const sub of ['emp_q', 'EMP_Q', 'ＥＭＰ_Q']) remaining.push((await s.bo('GET', '/v1/bo/white-labels', undefined, { sub })).headers.get('RateLimit-Remaining'));
  const limit = rateLimitPolicies.bo_read.limit;
  assert.equal(remaining, [String(limit - 1), String(limit - 2), String(limit - 3)]);
});

test('past its quota an operator gets 429 rate_limited until the window ends; another operator is not held up', async () => {
  const token = await s.operatorToken('emp_script', false, ['support']);
  const get = () => s.raw('GET', '/v1/bo/white-labels', { headers: { Authorization: `Bearer ${token}` } });
  const statuses: number[] = [];
  for (let i = 0; i < rateLimitPolicies.bo_read.limit; i += 50) {
    statuses.push(...(await Promise.all(Array.from({ length: Math.min(50, rateLimitPolicies.bo_read.limit - i) }, get))).map((r) => r.status));
  }
  assert.ok(statuses.every((st) => st === 200), `the quota's requests pass: ${[...new Set(statuses)]}`);
  const over = await get();
  assert.is(over.status, 429, over.text);
  assert.equal([over.json.error.code, over.json.error.details], ['rate_limited', { bucket: 'bo_read', scope: 'operator' }]);
  assert.ok(Number(over.headers.get('Retry-After')) >= 1 && Number(over.headers.get('Retry-After')) <= 60, `Retry-After ${over.headers.get('Retry-After')}`);
  assert.is(over.headers.get('RateLimit-Remaining'), '0');
  const other = await s.bo('GET', '/v1/bo/white-labels', undefined, { sub: 'emp_colleague', roles: ['support'] });
  assert.is(other.status, 200, 'another operator has a quota of their own');
});

test('calls no route answers (an unknown path, a wrong method, a refused body) draw on the quota too and carry its headers; past it, 429 and no action-log row each', async () => {
  const token = await s.operatorToken('emp_prober', false, ['support']);
  const probe = (i: number) => (i % 3 === 0 ? s.raw('GET', `/v1/bo/nothing-${i}`, { headers: { Authorization: `Bearer ${token}` } })
    : i % 3 === 1 ? s.raw('DELETE', '/v1/bo/clock', { headers: { Authorization: `Bearer ${token}` } })
      : s.raw('GET', `/v1/bo/unknown/${i}`, { headers: { Authorization: `Bearer ${token}` } }));
  const first = await probe(0);
  assert.equal([first.status, first.headers.get('X-RateLimit-Scope'), first.headers.get('RateLimit-Remaining')], [404, 'bo_read', String(rateLimitPolicies.bo_read.limit - 1)]);
  const wrongMethod = await probe(1);
  assert.equal([wrongMethod.status, wrongMethod.headers.get('X-RateLimit-Scope')], [405, 'bo_write'], 'a DELETE is a write');
  const statuses: number[] = [];
  for (let i = 2; i < rateLimitPolicies.bo_read.limit + 50; i += 50) {
    statuses.push(...(await Promise.all(Array.from({ length: 50 }, (_, k) => probe(3 * (i + k))))).map((r) => r.status));
  }
  assert.ok(statuses.filter((x) => x === 429).length >= 40, `past bo_read, 429: ${JSON.stringify(Object.fromEntries([...new Set(statuses)].map((x) => [x, statuses.filter((y) => y === x).length])))}`);
  const rows = (await s.bo('GET', '/v1/bo/reports/action-logs?subject=emp_prober&limit=200', undefined, { sub: 'emp_auditor', roles: ['finance'] })).json;
  let count = rows.data.length;
  let cursor = rows.next_cursor;
  while (cursor) {
    const page = (await s.bo('GET', `/v1/bo/reports/action-logs?subject=emp_prober&limit=200&cursor=${cursor}`, undefined, { sub: 'emp_auditor', roles: ['finance'] })).json;
    count += page.data.length;
    cursor = page.next_cursor;
  }
  assert.ok(count <= rateLimitPolicies.bo_read.limit + 1, `the action log holds the calls within the quota, not one row per 429: ${count}`);
});

test.run();
