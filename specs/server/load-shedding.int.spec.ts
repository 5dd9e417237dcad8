// Load shedding by the contract's priorities, with the event-loop lag set by the test
// (the meter is the server's own, stopped; only its reading is forced): new deposits (P3) are
// shed first, status reads (P2) only under heavier lag, and the answer is a retryable
// 503 service_unavailable with the rate-limit headers still on it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { depositBody, TestServer, type MerchantKeys } from '../support/server-harness.ts';

let s: TestServer;
let shop: MerchantKeys;

test.before(async () => {
  s = await TestServer.start();
  shop = await s.onboard('Shop');
  // The tests set the reading; the meter's own one-second window must not replace it
  // between a test's setting and its request (it did, once, in a loaded CI run).
  s.running.loadMeter.stop();
});
test.after(async () => { await s.stop(); });

test('under moderate lag new deposits are shed, reads still served', async () => {
  s.running.loadMeter.recentLagMs = 300;
  const create = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody());
  assert.is(create.status, 503);
  assert.is(create.json.error.code, 'service_unavailable');
  assert.is(create.json.error.retryable, true);
  assert.ok(create.headers.get('ratelimit-limit'), 'rate-limit headers on a shed answer');
  const read = await s.call(shop.live.api_key, 'GET', '/v1/pay/balance');
  assert.is(read.status, 200);
});

test('under heavy lag reads are shed too; the lag ages out and service returns', async () => {
  s.running.loadMeter.recentLagMs = 800;
  const read = await s.call(shop.live.api_key, 'GET', '/v1/pay/balance');
  assert.is(read.status, 503);
  assert.is(read.json.error.code, 'service_unavailable');
  s.running.loadMeter.recentLagMs = 0;
  const again = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody());
  assert.ok(again.status === 201 || again.status === 202, again.text);
});

test.run();
