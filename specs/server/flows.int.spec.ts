// Whole merchant flows over real HTTP against a real server on SQLite: onboarding, a
// withdrawal that provides liquidity, a deposit matched to it (201 with legs and the slip
// capability), reads, lists with cursors, cancel, and the 202 awaiting-liquidity path.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { depositBody, TestServer, type MerchantKeys } from '../support/server-harness.ts';

let s: TestServer;
let payer: MerchantKeys;
let shop: MerchantKeys;

test.before(async () => {
  s = await TestServer.start();
  payer = await s.onboard('Payer');
  shop = await s.onboard('Shop', payer.whiteLabelId);
  await s.fund(payer.id, 1_000_000);
});
test.after(async () => { await s.stop(); });

test('a withdrawal reserves amount plus fee from available', async () => {
  const ben = await s.beneficiary(payer.id);
  const r = await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 200_000, currency: 'THB', merchant_reference: 'w-1', end_user_ref: 'payee-1', beneficiary_id: ben }, { idempotencyKey: 'withdrawal-key-1' });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.object, 'withdrawal_order');
  assert.is(r.json.status, 'open');
  assert.is(r.json.total_locked_minor, 200_000 + r.json.fee_total_minor);
  assert.is(r.json.remaining_minor, 200_000);
  const bal = await s.call(payer.live.api_key, 'GET', '/v1/pay/balance');
  assert.is(bal.status, 200);
  assert.is(bal.json.available_minor, 1_000_000 - r.json.total_locked_minor);
  assert.is(bal.json.reserved_minor, r.json.total_locked_minor);
  assert.match(bal.json.as_of, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

test('a deposit is matched to the withdrawal: 201 with a leg, a QR and the slip capability', async () => {
  const r = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody());
  assert.is(r.status, 201, r.text);
  assert.is(r.json.status, 'awaiting_payment');
  assert.is(r.json.legs.length, 1);
  assert.is(r.json.legs[0].amount_minor, 50_000);
  assert.ok(r.json.legs[0].qr_payload.startsWith('000201'));
  // PromptPay to a bank account: tag 29, sub-tag 04 = bank code 004 + the beneficiary's account.
  assert.ok(r.json.legs[0].qr_payload.includes('29370016A00000067701011104130041234567890'), r.json.legs[0].qr_payload);
  assert.is(r.json.legs[0].receiver.account_number_masked, 'xxxxxx7890');
  assert.is(r.json.slip_upload.upload_url, `${s.url}/v1/pay/deposits/${r.json.id}/slip`);
  assert.ok(r.json.slip_upload.content_types.includes('application/json'));
  assert.is(r.headers.get('cache-control'), 'no-store', 'the answer holds the slip capability: no cache keeps it');
  const got = await s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${r.json.id}`);
  assert.is(got.status, 200);
  assert.is(got.headers.get('cache-control'), 'no-store');
  assert.is((await s.raw('GET', '/v1/webhooks/signing-keys')).headers.get('cache-control'), 'public, max-age=300', 'a route that may be cached says so');
  assert.is(got.json.version, r.json.version);
  assert.not.ok('slip_upload' in got.json, 'the capability is only in the creation response');
});

test('without liquidity a deposit answers 202 awaiting_liquidity with legs [] and liquidity{}', async () => {
  const r = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 5_000_000 }));
  assert.is(r.status, 202, r.text);
  assert.is(r.json.status, 'awaiting_liquidity');
  assert.equal(r.json.legs, []);
  assert.type(r.json.liquidity.retry_interval_ms, 'number');
  assert.not.ok('slip_upload' in r.json);
  // Its deposit.created shows the order as the 202 did, liquidity{} included ("when awaiting_liquidity").
  const feed = await s.call(shop.live.api_key, 'GET', '/v1/pay/events?since_sequence=0&limit=100');
  const mine = feed.json.data.filter((e: any) => e.data.object.id === r.json.id);
  assert.equal(mine.map((e: any) => [e.type, e.data.object.version]), [['deposit.created', 0], ['deposit.awaiting_liquidity', 1]]);
  assert.equal([mine[0].data.object.status, mine[0].data.object.liquidity], ['awaiting_liquidity', r.json.liquidity]);
});

test('lists page with a cursor; changing filters mid-cursor is refused', async () => {
  for (let i = 0; i < 3; i++) await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 2_000 + i * 100 }));
  const first = await s.call(shop.live.api_key, 'GET', '/v1/pay/deposits?limit=2');
  assert.is(first.status, 200, first.text);
  assert.is(first.json.data.length, 2);
  assert.ok(first.json.has_more);
  const second = await s.call(shop.live.api_key, 'GET', `/v1/pay/deposits?limit=2&cursor=${first.json.next_cursor}`);
  assert.is(second.status, 200);
  const ids = [...first.json.data, ...second.json.data].map((d: { id: string }) => d.id);
  assert.is(new Set(ids).size, ids.length, 'no row twice');
  const mismatch = await s.call(shop.live.api_key, 'GET', `/v1/pay/deposits?limit=2&status=settled&cursor=${first.json.next_cursor}`);
  assert.is(mismatch.status, 400);
  assert.is(mismatch.json.error.code, 'cursor_filter_mismatch');
});

test('cancel an unpaid deposit; a second cancel is deposit_not_cancelable', async () => {
  const d = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 3_000 }));
  const c = await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${d.json.id}/cancel`, {});
  assert.is(c.status, 200, c.text);
  assert.is(c.json.status, 'canceled');
  assert.is(c.json.canceled_by, 'merchant');
  const again = await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${d.json.id}/cancel`, {});
  assert.is(again.status, 409);
  assert.is(again.json.error.code, 'deposit_not_cancelable');
  assert.is(again.json.error.details.status, 'canceled');
});

test('minting a key is idempotent: a retry under the same key answers the same key, once', async () => {
  const body = { livemode: true, scopes: ['wallet:read'] };
  const first = await s.bo('POST', `/v1/bo/merchants/${shop.id}/keys`, body, { stepUp: true, idempotencyKey: 'mint-1' });
  assert.is(first.status, 201, first.text);
  const again = await s.bo('POST', `/v1/bo/merchants/${shop.id}/keys`, body, { stepUp: true, idempotencyKey: 'mint-1' });
  assert.is(again.status, 201);
  assert.is(again.headers.get('idempotent-replay'), 'true');
  assert.is(again.json.key_id, first.json.key_id);
  assert.is(again.json.api_key, first.json.api_key);
  const other = await s.bo('POST', `/v1/bo/merchants/${shop.id}/keys`, body, { stepUp: true, idempotencyKey: 'mint-2' });
  assert.is.not(other.json.key_id, first.json.key_id);
  const works = await s.call(first.json.api_key, 'GET', '/v1/pay/balance');
  assert.is(works.status, 200, 'the minted key signs requests');
});

test.run();
