// Idempotency over real HTTP (contract: Errors, "Idempotency replay"; Limits): one key,
// one effect, however many identical requests arrive at once; a replay is the original
// status and bytes with Idempotent-Replay: true (also a 202); another body under the
// same key is 409 idempotency_key_reused; withdrawal keys are 8–200 characters; a
// refusal does not consume the key; keys belong to one merchant and mode, an operator's to
// the person under any spelling of their sub.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { depositBody as baseDepositBody, freshSender, TestServer, type MerchantKeys, type Reply } from '../support/server-harness.ts';
import { expectError, gatewayRoute, journalRows, slowDisk, withdrawalBody } from '../support/api-checks.ts';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { Sealer } from '../../adapters/sealing.ts';
import { bodyPurpose } from '../../adapters/sqlite/keys.ts';
import { loadMasterKey } from '../../server/master-key.ts';

/** Every order from a payer account of its own (this spec keeps many open orders of one amount). */
const depositBody = (overrides: Record<string, unknown> = {}) => baseDepositBody({ sender: freshSender(), ...overrides });

let s: TestServer;
let shop: MerchantKeys;
let waiting: MerchantKeys;
let payer: MerchantKeys;
let ben: string;

test.before(async () => {
  s = await TestServer.start();
  shop = await s.onboard('Shop');
  await gatewayRoute(s, shop.whiteLabelId); // deposits match at once: 201
  waiting = await s.onboard('No liquidity'); // its own white label, nothing to match: 202
  payer = await s.onboard('Payer', waiting.whiteLabelId);
  await s.fund(payer.id, 1_000_000);
  ben = await s.beneficiary(payer.id);
});
test.after(async () => { await s.stop(); });

async function depositsWithReference(key: string, reference: string): Promise<string[]> {
  const list = await s.call(key, 'GET', '/v1/pay/deposits?limit=200');
  assert.is(list.status, 200, list.text);
  return list.json.data.filter((d: { merchant_reference: string }) => d.merchant_reference === reference).map((d: { id: string }) => d.id);
}

/** 50 identical requests at once: one original, the rest replays of its bytes or in flight. */
function checkBurst(replies: Reply[]): { original: Reply; replays: number; inFlight: number } {
  const originals = replies.filter((r) => r.status === 201 && r.headers.get('idempotent-replay') === null);
  assert.is(originals.length, 1, `exactly one original: ${replies.map((r) => `${r.status}/${r.headers.get('idempotent-replay')}`)}`);
  const original = originals[0]!;
  let replays = 0, inFlight = 0;
  for (const r of replies) {
    if (r === original) continue;
    if (r.status === 409) {
      const e = expectError(r, 'idempotency_in_flight');
      assert.is(e.retry_after_seconds, 1);
      inFlight++;
    } else {
      assert.is(r.status, 201, r.text);
      assert.is(r.headers.get('idempotent-replay'), 'true');
      assert.is(r.headers.get('original-request-id'), original.headers.get('request-id'));
      assert.is(r.text, original.text, 'the same bytes');
      replays++;
    }
  }
  return { original, replays, inFlight };
}

test('50 identical deposits at once under one key: one deposit; answers are its bytes or in flight', async () => {
  const body = depositBody();
  const text = JSON.stringify(body);
  const key = randomUUID();
  const replies = await Promise.all(Array.from({ length: 50 }, () => s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', text, { idempotencyKey: key })));
  const { original } = checkBurst(replies);
  assert.equal(await depositsWithReference(shop.live.api_key, body.merchant_reference as string), [original.json.id]);
});

test('the same burst on a slow disk: requests that meet the key in flight get 409, still one deposit', async () => {
  const restore = slowDisk(s, 200);
  try {
    const body = depositBody();
    const text = JSON.stringify(body);
    const key = randomUUID();
    const replies = await Promise.all(Array.from({ length: 50 }, () => s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', text, { idempotencyKey: key })));
    const { original, inFlight } = checkBurst(replies);
    assert.ok(inFlight > 0, 'some requests met the key in flight');
    assert.equal(await depositsWithReference(shop.live.api_key, body.merchant_reference as string), [original.json.id]);
    const later = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', text, { idempotencyKey: key });
    assert.is(later.headers.get('idempotent-replay'), 'true', 'after the commit it is a replay');
    assert.is(later.text, original.text);
  } finally {
    restore();
  }
});

test('same key, different body: 409 idempotency_key_reused naming the original request; nothing new', async () => {
  const key = randomUUID();
  const first = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody(), { idempotencyKey: key });
  assert.is(first.status, 201, first.text);
  const before = await journalRows(s);
  const other = depositBody();
  const e = expectError(await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', other, { idempotencyKey: key }), 'idempotency_key_reused');
  assert.is(e.details.original_request_id, first.headers.get('request-id'));
  assert.is(await journalRows(s), before);
  assert.equal(await depositsWithReference(shop.live.api_key, other.merchant_reference as string), []);
  // The same key on another path is another request too.
  expectError(await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${first.json.id}/cancel`, {}, { idempotencyKey: key }), 'idempotency_key_reused');
});

test('the same body written again (keys in another order, other spacing) under the same key is a replay, not another request', async () => {
  const key = randomUUID();
  const body = depositBody();
  const first = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', JSON.stringify(body), { idempotencyKey: key });
  assert.is(first.status, 201, first.text);
  const reordered = JSON.stringify(Object.fromEntries(Object.entries(body).reverse()), null, 2);
  const again = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', reordered, { idempotencyKey: key });
  assert.equal([again.status, again.headers.get('idempotent-replay'), again.text], [201, 'true', first.text]);
  const changed = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', JSON.stringify({ ...body, end_user_ref: 'someone-else' }), { idempotencyKey: key });
  expectError(changed, 'idempotency_key_reused');
});

test('a replay keeps the original status: 202 awaiting_liquidity replays as 202', async () => {
  const text = JSON.stringify(depositBody({ fill_preference: 'internal_only', amount_minor: 9_000_000 }));
  const key = randomUUID();
  const first = await s.call(waiting.live.api_key, 'POST', '/v1/pay/deposits', text, { idempotencyKey: key });
  assert.is(first.status, 202, first.text);
  const again = await s.call(waiting.live.api_key, 'POST', '/v1/pay/deposits', text, { idempotencyKey: key });
  assert.is(again.status, 202);
  assert.is(again.headers.get('idempotent-replay'), 'true');
  assert.is(again.text, first.text);
});

test('a replay keeps the original status: 200 cancel replays as 200 with the bytes of then', async () => {
  const d = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody());
  const key = randomUUID();
  const first = await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${d.json.id}/cancel`, {}, { idempotencyKey: key });
  assert.is(first.status, 200, first.text);
  const again = await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${d.json.id}/cancel`, {}, { idempotencyKey: key });
  assert.is(again.status, 200, 'not 409 deposit_not_cancelable: the original answer');
  assert.is(again.headers.get('idempotent-replay'), 'true');
  assert.is(again.text, first.text);
});

test('slip-token under its Idempotency-Key: the same key on the order replays the first answer; on another order, idempotency_key_reused', async () => {
  const first = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody());
  const other = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody());
  assert.is(first.status, 201, first.text);
  assert.is(other.status, 201, other.text);
  const key = randomUUID();
  const path = `/v1/pay/deposits/${first.json.id}/slip-token`;
  const issued = await s.call(shop.live.api_key, 'POST', path, undefined, { idempotencyKey: key });
  assert.is(issued.status, 200, issued.text);
  assert.is(issued.headers.get('idempotent-replay'), null);
  // The order moves on: canceled, a token issued now runs to its late-slip window's end instead.
  assert.is((await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${first.json.id}/cancel`, {})).status, 200);
  const fresh = await s.call(shop.live.api_key, 'POST', path);
  assert.is(fresh.status, 200, fresh.text);
  assert.is.not(fresh.json.token, issued.json.token);

  const replayed = await s.call(shop.live.api_key, 'POST', path, undefined, { idempotencyKey: key });
  assert.is(replayed.status, 200, replayed.text);
  assert.is(replayed.headers.get('idempotent-replay'), 'true');
  assert.is(replayed.headers.get('original-request-id'), issued.headers.get('request-id'));
  assert.is(replayed.text, issued.text, 'the bytes first answered, not a token issued again');
  assert.is(replayed.headers.get('cache-control'), 'no-store');

  const reused = await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${other.json.id}/slip-token`, undefined, { idempotencyKey: key });
  assert.is(expectError(reused, 'idempotency_key_reused').details.original_request_id, issued.headers.get('request-id'));
});

test('withdrawal keys are 8–200 characters', async () => {
  for (const key of ['1234567', 'x'.repeat(201)]) {
    const e = expectError(await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben), { idempotencyKey: key }), 'validation_error');
    assert.equal(e.details.fields.map((f: { path: string }) => f.path), ['header.Idempotency-Key']);
  }
  for (const key of [`k${randomUUID().slice(0, 7)}`, 'y'.repeat(200)]) {
    assert.is(key.length === 8 || key.length === 200, true);
    const r = await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben), { idempotencyKey: key });
    assert.is(r.status, 201, r.text);
  }
  // Deposits take shorter keys (the 8-character minimum is the withdrawal's).
  assert.is((await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody(), { idempotencyKey: 'k1' })).status, 201);
});

test('a refused request does not consume its key: the corrected request under it succeeds', async () => {
  const key = randomUUID();
  const body = depositBody({ amount_minor: 2_050 });
  expectError(await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', body, { idempotencyKey: key }), 'amount_not_supported');
  const fixed = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', { ...body, amount_minor: 2_100 }, { idempotencyKey: key });
  assert.is(fixed.status, 201, fixed.text);
  assert.is(fixed.headers.get('idempotent-replay'), null);
});

test('keys belong to one merchant and one mode', async () => {
  const key = randomUUID();
  const text = JSON.stringify(depositBody());
  const live = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', text, { idempotencyKey: key });
  const sandbox = await s.call(shop.sandbox.api_key, 'POST', '/v1/pay/deposits', text, { idempotencyKey: key });
  const other = await s.call(waiting.live.api_key, 'POST', '/v1/pay/deposits', text, { idempotencyKey: key });
  for (const r of [live, sandbox, other]) {
    assert.ok(r.status === 201 || r.status === 202, r.text);
    assert.is(r.headers.get('idempotent-replay'), null);
  }
  assert.is(new Set([live.json.id, sandbox.json.id, other.json.id]).size, 3);
});

test("an operator's key belongs to the object it acts on: the same key on two merchants' adjustments is two adjustments (as on two shards); on one, a replay or a 409", async () => {
  const key = randomUUID();
  const adjust = (merchantId: string, amount: number) => s.bo('POST', `/v1/bo/merchants/${merchantId}/adjustments`,
    { livemode: true, amount_minor: amount, direction: 'credit', bucket: 'available', reason: 'goodwill credit' }, { sub: 'emp_keys', roles: ['ops_admin'], stepUp: true, idempotencyKey: key });
  const first = await adjust(shop.id, 100);
  const second = await adjust(waiting.id, 100);
  assert.equal([first.status, second.status], [201, 201], second.text);
  assert.is.not(first.json.id, second.json.id);
  assert.is((await adjust(shop.id, 100)).headers.get('idempotent-replay'), 'true', 'the same request on the same merchant replays');
  assert.is((await adjust(shop.id, 200)).json.error.code, 'idempotency_key_reused');
});

test("an operator's key is the person's under any spelling of their sub: EMP_KEYS2 retrying emp_keys2's adjustment replays it", async () => {
  const key = randomUUID();
  const adjust = (sub: string, amount: number) => s.bo('POST', `/v1/bo/merchants/${shop.id}/adjustments`,
    { livemode: true, amount_minor: amount, direction: 'credit', bucket: 'available', reason: 'goodwill credit' }, { sub, roles: ['ops_admin'], stepUp: true, idempotencyKey: key });
  const first = await adjust('emp_keys2', 100);
  assert.is(first.status, 201, first.text);
  const retried = await adjust('EMP_KEYS2', 100);
  assert.is(retried.headers.get('idempotent-replay'), 'true', retried.text);
  assert.is(retried.json.id, first.json.id, 'one adjustment');
  assert.is((await adjust('Ｅｍｐ_ｋｅｙｓ2', 200)).json.error.code, 'idempotency_key_reused', 'another body from the same person under the key');
});

test("an operator's record an older build keyed by the sub as spelt (op:EMP_KEYS4) is replayed to emp_keys4 after the upgrade's start", async () => {
  const before = await TestServer.start();
  const key = randomUUID();
  const register = (server: TestServer, sub: string) => server.bo('POST', '/v1/bo/white-labels', { name: 'Upgraded' }, { sub, roles: ['ops_admin'], idempotencyKey: key });
  const first = await register(before, 'EMP_KEYS4');
  assert.is(first.status, 201, first.text);
  await before.stop(false);
  // As the build before 8172ef9 kept it: scoped by the sub as the token spelt it, the body sealed under that scope.
  const sealer = new Sealer(loadMasterKey({ kind: 'development', path: `${before.dataDir}.master-key` }));
  const db = new Database(join(before.dataDir, 'journal.db'));
  const row = db.prepare('SELECT rowid, body FROM idempotency WHERE scope = ? AND key = ?').get('op:emp_keys4', key) as { rowid: number; body: string };
  const body = sealer.openText(row.body, bodyPurpose('op:emp_keys4', key));
  db.prepare('UPDATE idempotency SET scope = ?, body = ? WHERE rowid = ?').run('op:EMP_KEYS4', sealer.seal(body, bodyPurpose('op:EMP_KEYS4', key)), row.rowid);
  db.close();

  const after = await TestServer.start({}, before.dataDir);
  try {
    const retried = await register(after, 'emp_keys4');
    assert.is(retried.headers.get('idempotent-replay'), 'true', retried.text);
    assert.is(retried.json.id, first.json.id, 'one white label');
  } finally {
    await after.stop();
  }
});

test('a key is kept 7 days: replayed on day 6, free again after day 7', async () => {
  const key = randomUUID();
  const text = JSON.stringify(depositBody({ amount_minor: 2_200 }));
  const first = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', text, { idempotencyKey: key });
  assert.is(first.status, 201, first.text);
  s.clock.advance(6 * 86_400_000);
  const replay = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', text, { idempotencyKey: key });
  assert.is(replay.headers.get('idempotent-replay'), 'true');
  s.clock.advance(86_400_000 + 1_000);
  const fresh = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 2_300 }), { idempotencyKey: key });
  assert.ok(fresh.status === 201 || fresh.status === 202, fresh.text); // the gateway route has lapsed by now
  assert.is(fresh.headers.get('idempotent-replay'), null);
  assert.is.not(fresh.json.id, first.json.id);
});

test.run();
