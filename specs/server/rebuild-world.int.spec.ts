// After the store rebuilds its world from the journal (adapters/sqlite/store.ts: a failed
// commit, another writer), every route reads the new world: nothing keeps the world it
// saw when its router was built. Operator routes (server/routes/bo.ts) and merchant
// wallet routes (server/routes/withdrawals.ts) both see changes made after the rebuild.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';

let s: TestServer;
let before: MerchantKeys;

test.before(async () => {
  s = await TestServer.start();
  before = await s.onboard('Before the rebuild');
  const oldWorld = s.running.store.world;
  s.running.store.rebuild('spec: a rebuild, as after a failed commit');
  assert.is.not(s.running.store.world, oldWorld, 'the store swapped in a new world');
});
test.after(async () => { await s.stop(); });

test('operator routes see merchants and balances changed after a rebuild', async () => {
  await s.fund(before.id, 70_000);
  const after = await s.onboard('After the rebuild', before.whiteLabelId);
  const created = await s.bo('GET', `/v1/bo/merchants/${after.id}/balance`);
  assert.is(created.status, 200, created.text);
  const funded = await s.bo('GET', `/v1/bo/merchants/${before.id}/balance`);
  assert.is(funded.status, 200, funded.text);
  assert.is(funded.json.live.available_minor, 70_000);
  const beneficiary = await s.beneficiary(after.id);
  assert.match(beneficiary, /^ben_/);
});

test('merchant wallet routes see the balance and beneficiaries posted after a rebuild', async () => {
  const balance = await s.call(before.live.api_key, 'GET', '/v1/pay/balance');
  assert.is(balance.status, 200, balance.text);
  assert.is(balance.json.available_minor, 70_000);
  await s.beneficiary(before.id, true, '5556667778');
  const inline = await s.call(before.live.api_key, 'POST', '/v1/pay/withdrawals', {
    amount_minor: 20_000, currency: 'THB', merchant_reference: 'after-rebuild-1', end_user_ref: 'u-rebuild',
    beneficiary: { bank_code: '004', account_number: '5556667778', account_name_th: 'สมหญิง รักดี' },
  });
  assert.is(inline.status, 201, inline.text);
  const got = await s.call(before.live.api_key, 'GET', `/v1/pay/withdrawals/${inline.json.id}`);
  assert.is(got.status, 200, got.text);
});

test.run();
