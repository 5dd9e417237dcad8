// GET /v1/bo/merchants/{id}/keys over real HTTP: a merchant's keys newest first, both modes
// or one, a minted key and a revoked one with its revoked_at — never a secret, only a hint
// (its prefix and last four characters) that tells the keys apart; for ops_admin and
// support only; an unknown merchant 404, a bad livemode 422.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';

let s: TestServer;
let shop: MerchantKeys;

test.before(async () => {
  s = await TestServer.start();
  shop = await s.onboard('Shop');
});
test.after(async () => { await s.stop(); });

test("a merchant's keys: newest first, a hint of each secret but never the secret, revoked ones with their instant", async () => {
  const none = await s.bo('POST', `/v1/bo/merchants/${shop.id}/keys`, { livemode: true, scopes: [] }, { stepUp: true });
  assert.equal([none.status, none.json.error?.details?.fields?.[0]?.path], [422, 'scopes'], `a key that may do nothing is refused: ${none.text}`);
  const minted = await s.bo('POST', `/v1/bo/merchants/${shop.id}/keys`, { livemode: true, scopes: ['wallet:read'] }, { stepUp: true });
  assert.is(minted.status, 201, minted.text);
  s.clock.advance(1000);
  assert.is((await s.bo('POST', `/v1/bo/keys/${minted.json.key_id}/revoke`, {}, { stepUp: true })).status, 200);
  const all = await s.bo('GET', `/v1/bo/merchants/${shop.id}/keys`, undefined, { roles: ['support'] });
  assert.is(all.status, 200, all.text);
  // All three were made at the same instant of the manual clock: ties go to the later id (a ULID).
  assert.equal(all.json.data.map((k: any) => k.key_id), [minted.json.key_id, shop.sandbox.key_id, shop.live.key_id].sort().reverse(), 'newest first');
  for (const secret of [minted.json.api_key, shop.live.api_key, shop.sandbox.api_key]) {
    assert.not.ok(all.text.includes(secret), 'no secret in the answer');
    assert.not.ok(all.text.includes(secret.slice(8, 24)), 'nor a long part of one');
  }
  const revoked = all.json.data[0];
  assert.equal([revoked.livemode, revoked.scopes, revoked.api_key_hint, typeof revoked.revoked_at], [true, ['wallet:read'], `sk_live_…${minted.json.api_key.slice(-4)}`, 'string']);
  assert.is(all.json.data.find((k: any) => k.key_id === shop.live.key_id).revoked_at, null);
  const sandbox = await s.bo('GET', `/v1/bo/merchants/${shop.id}/keys?livemode=false`, undefined, { roles: ['ops_admin'] });
  assert.equal(sandbox.json.data.map((k: any) => [k.key_id, k.api_key_hint.slice(0, 8)]), [[shop.sandbox.key_id, 'sk_test_']]);
});

test('only ops_admin and support; an unknown merchant 404; a bad livemode 422', async () => {
  for (const role of ['finance', 'reviewer', 'approver']) assert.is((await s.bo('GET', `/v1/bo/merchants/${shop.id}/keys`, undefined, { roles: [role] })).status, 403, role);
  assert.is((await s.bo('GET', '/v1/bo/merchants/mch_nope/keys')).status, 404);
  const bad = await s.bo('GET', `/v1/bo/merchants/${shop.id}/keys?livemode=yes`);
  assert.is(bad.status, 422);
  assert.is(bad.json.error.details.fields[0].path, 'query.livemode');
});

test.run();
