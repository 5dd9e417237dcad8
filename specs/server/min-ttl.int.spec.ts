// A deposit's min_ttl_seconds (contract: POST /v1/pay/deposits) is the least time its end
// user is given to pay: no route whose own lifetime is shorter is offered to it. Without
// this the order's lifetime was checked against min_ttl_seconds (422 when it cannot fit) but
// a white label's gateway route about to expire, or the sandbox's 4-minute fallback route
// (10400), then cut the order short anyway: min_ttl_seconds 600 answered a QR that expired
// in 120 s. Such an order takes internal liquidity or waits for it, as one with
// fill_preference internal_only does, also when it is matched later.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { depositBody, TestServer, type MerchantKeys } from '../support/server-harness.ts';

let s: TestServer;
let shop: MerchantKeys;

test.before(async () => {
  s = await TestServer.start();
  shop = await s.onboard('Min TTL shop');
  const path = `/v1/bo/white-labels/${shop.whiteLabelId}/gateway-route`;
  const route = { bank_code: '004', account_number: '5550001111', account_name: 'Gateway Co', ttl_seconds: 120 };
  assert.is((await s.bo('POST', path, route, { stepUp: true, sub: 'emp_maker' })).status, 202);
  const approved = await s.bo('POST', `${path}/approve`, { bank_code: '004', account_number: '5550001111' }, { stepUp: true, sub: 'emp_checker' });
  assert.is(approved.status, 200, approved.text);
});
test.after(async () => { await s.stop(); });

const secondsLeft = (o: any) => (Date.parse(o.expires_at) - Date.parse(o.created_at)) / 1000;

test('a gateway route that expires within min_ttl_seconds is not offered; one that lasts is', async () => {
  const short = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 30_000, min_ttl_seconds: 600 }));
  assert.is(short.status, 202, `the route has 120 s left, less than the 600 asked: ${short.text}`);
  assert.equal([short.json.status, short.json.legs], ['awaiting_liquidity', []]);
  const fits = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 31_000, min_ttl_seconds: 60 }));
  assert.is(fits.status, 201, fits.text);
  assert.equal([fits.json.liquidity_source, secondsLeft(fits.json)], ['external_gateway', 120]);
  const none = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 32_000 }));
  assert.equal([none.status, none.json.liquidity_source], [201, 'external_gateway'], 'without min_ttl_seconds the route takes it');
});

test('a waiting order keeps its min_ttl_seconds when liquidity comes later', async () => {
  const waiting = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 33_000, min_ttl_seconds: 600 }));
  assert.is(waiting.status, 202, waiting.text);
  // A new route, as short: the waiting orders are offered it at its approval, and this one declines.
  const path = `/v1/bo/white-labels/${shop.whiteLabelId}/gateway-route`;
  assert.is((await s.bo('POST', path, { bank_code: '004', account_number: '5550002222', account_name: 'Gateway Two', ttl_seconds: 300 }, { stepUp: true, sub: 'emp_maker' })).status, 202);
  assert.is((await s.bo('POST', `${path}/approve`, { bank_code: '004', account_number: '5550002222' }, { stepUp: true, sub: 'emp_checker' })).status, 200);
  const still = (await s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${waiting.json.id}`)).json;
  assert.equal([still.status, still.legs], ['awaiting_liquidity', []], JSON.stringify(still));
  // A route that lasts is taken, and the order gets its whole lifetime (900 s by default).
  assert.is((await s.bo('POST', path, { bank_code: '004', account_number: '5550003333', account_name: 'Gateway Three', ttl_seconds: 86_400 }, { stepUp: true, sub: 'emp_maker' })).status, 202);
  assert.is((await s.bo('POST', `${path}/approve`, { bank_code: '004', account_number: '5550003333' }, { stepUp: true, sub: 'emp_checker' })).status, 200);
  const matched = (await s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${waiting.json.id}`)).json;
  assert.equal([matched.status, matched.liquidity_source], ['awaiting_payment', 'external_gateway'], JSON.stringify(matched));
  assert.equal([matched.legs[0].expires_at, secondsLeft(matched) >= 900], [matched.expires_at, true], JSON.stringify(matched));
});

test("sandbox 10400's 4-minute fallback route is not offered to an order asking more", async () => {
  const fits = await s.call(shop.sandbox.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 10_400, min_ttl_seconds: 240 }));
  assert.equal([fits.status, fits.json.liquidity_source, fits.json.leg_count, secondsLeft(fits.json)], [201, 'external_gateway', 2, 240], fits.text);
  const longer = await s.call(shop.sandbox.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 10_400, min_ttl_seconds: 300, sender: { bank_code: '014', account_number: '2223334445', account_name_th: 'สมชาย ใจดี' } }));
  assert.is(longer.status, 202, `the fallback lives 240 s, less than the 300 asked: ${longer.text}`);
  assert.equal([longer.json.status, longer.json.legs], ['awaiting_liquidity', []]);
});

test.run();
