// Tenancy (BOLA): a merchant reaches only its own objects in its own mode. For every
// merchant route that takes an id, another merchant's live key, its sandbox key, and the
// owner's own sandbox key all get 404 resource_not_found, answered exactly as for an id
// that does not exist (not distinguished on purpose), and nothing is written. Lists and
// id references in bodies do not leak either.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { depositBody, TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { expectError, gatewayRoute, journalRows, openDispute, payFirstLeg, withdrawalBody } from '../support/api-checks.ts';

let s: TestServer;
let a: MerchantKeys;
let b: MerchantKeys;
const owned = { deposit: '', withdrawal: '', dispute: '', beneficiary: '', sandboxDeposit: '' };
const paid = { deposit: '', withdrawal: '', depositKey: '' }; // A's deposit that filled B's withdrawal

test.before(async () => {
  s = await TestServer.start();
  a = await s.onboard('Merchant A');
  b = await s.onboard('Merchant B', a.whiteLabelId); // same white label: same liquidity pool, the worst case
  await s.fund(a.id, 2_000_000);
  await s.fund(b.id, 2_000_000);

  // B's withdrawal, filled by A's deposit, then disputed: B owns the dispute.
  const bBen = await s.beneficiary(b.id);
  const filled = await s.call(b.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(bBen, { amount_minor: 50_000 }), { idempotencyKey: randomUUID() });
  assert.is(filled.status, 201, filled.text);
  paid.depositKey = randomUUID();
  const paying = await s.call(a.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 50_000, fill_preference: 'internal_only' }), { idempotencyKey: paid.depositKey });
  assert.is(paying.status, 201, paying.text);
  Object.assign(paid, { deposit: paying.json.id, withdrawal: filled.json.id });
  await payFirstLeg(s, paying.json.id);
  owned.dispute = await openDispute(s, filled.json.id, 50_000n);

  // B's open withdrawal, B's deposit awaiting payment (gateway), B's own beneficiary.
  const open = await s.call(b.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(bBen, { amount_minor: 40_000 }), { idempotencyKey: randomUUID() });
  owned.withdrawal = open.json.id;
  await gatewayRoute(s, a.whiteLabelId);
  const dep = await s.call(b.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 30_000 }));
  assert.is(dep.status, 201, dep.text);
  owned.deposit = dep.json.id;
  const ben = await s.call(b.live.api_key, 'POST', '/v1/pay/beneficiaries', { bank_code: '006', account_number: '7778889990', account_name_th: 'บริษัท บี จำกัด' });
  assert.is(ben.status, 201, ben.text);
  owned.beneficiary = ben.json.id;
  const sandboxDep = await s.call(b.sandbox.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 10_000 }));
  assert.ok(sandboxDep.status === 201 || sandboxDep.status === 202, sandboxDep.text);
  owned.sandboxDeposit = sandboxDep.json.id;
});
test.after(async () => { await s.stop(); });

interface IdRoute { name: string; method: 'GET' | 'POST'; path: (id: string) => string; id: () => string; missing: string; body?: unknown }

const routes: IdRoute[] = [
  { name: 'GET deposit', method: 'GET', path: (id) => `/v1/pay/deposits/${id}`, id: () => owned.deposit, missing: 'dep_01ARZ3NDEKTSV4RRFFQ69G5FAV' },
  { name: 'cancel deposit', method: 'POST', path: (id) => `/v1/pay/deposits/${id}/cancel`, id: () => owned.deposit, missing: 'dep_01ARZ3NDEKTSV4RRFFQ69G5FAV', body: {} },
  { name: 'slip-token', method: 'POST', path: (id) => `/v1/pay/deposits/${id}/slip-token`, id: () => owned.deposit, missing: 'dep_01ARZ3NDEKTSV4RRFFQ69G5FAV' },
  { name: 'GET withdrawal', method: 'GET', path: (id) => `/v1/pay/withdrawals/${id}`, id: () => owned.withdrawal, missing: 'wdr_01ARZ3NDEKTSV4RRFFQ69G5FAV' },
  { name: 'cancel withdrawal', method: 'POST', path: (id) => `/v1/pay/withdrawals/${id}/cancel`, id: () => owned.withdrawal, missing: 'wdr_01ARZ3NDEKTSV4RRFFQ69G5FAV', body: {} },
  { name: 'dispute evidence', method: 'POST', path: (id) => `/v1/pay/disputes/${id}/evidence`, id: () => owned.dispute, missing: 'dsp_01ARZ3NDEKTSV4RRFFQ69G5FAV', body: { text: 'Our records show the payout arrived.' } },
  { name: 'GET beneficiary', method: 'GET', path: (id) => `/v1/pay/beneficiaries/${id}`, id: () => owned.beneficiary, missing: 'ben_0000000000000000000000000000dead' },
];

const attackers = () => [
  { who: "A's live key", key: a.live.api_key },
  { who: "A's sandbox key", key: a.sandbox.api_key },
  { who: "B's own sandbox key (live objects)", key: b.sandbox.api_key },
];

const call = (key: string, r: IdRoute, id: string) => s.call(key, r.method, r.path(id), r.body, r.method === 'POST' ? { idempotencyKey: randomUUID() } : {});

test('the owner reaches every object (so the 404s below are about tenancy, not typos)', async () => {
  for (const r of routes.filter((x) => x.method === 'GET')) {
    const got = await call(b.live.api_key, r, r.id());
    assert.is(got.status, 200, `${r.name}: ${got.text}`);
  }
  const token = await call(b.live.api_key, routes.find((x) => x.name === 'slip-token')!, owned.deposit);
  assert.is(token.status, 200, token.text);
  assert.is(token.headers.get('cache-control'), 'no-store');
  assert.is(token.json.upload_url, `${s.url}/v1/pay/deposits/${owned.deposit}/slip`);
});

for (const r of routes) {
  test(`${r.name}: 404 for another merchant and for the wrong mode, same answer as a missing id, nothing written`, async () => {
    const before = await journalRows(s);
    for (const { who, key } of attackers()) {
      const foreign = expectError(await call(key, r, r.id()), 'resource_not_found');
      const missing = expectError(await call(key, r, r.missing), 'resource_not_found');
      assert.is(foreign.message, missing.message, `${who}: not distinguished from a missing id`);
      assert.equal(foreign.details, missing.details, `${who}: same details`);
    }
    assert.is(await journalRows(s), before, 'nothing written by refused requests');
  });
}

test("B's objects are untouched after the attempts", async () => {
  const dep = await s.call(b.live.api_key, 'GET', `/v1/pay/deposits/${owned.deposit}`);
  assert.is(dep.json.status, 'awaiting_payment');
  const w = await s.call(b.live.api_key, 'GET', `/v1/pay/withdrawals/${owned.withdrawal}`);
  assert.is(w.json.status, 'open');
});

test("B's live key does not see B's sandbox deposit, and A's sandbox key does not either", async () => {
  expectError(await s.call(b.live.api_key, 'GET', `/v1/pay/deposits/${owned.sandboxDeposit}`), 'resource_not_found');
  expectError(await s.call(a.sandbox.api_key, 'GET', `/v1/pay/deposits/${owned.sandboxDeposit}`), 'resource_not_found');
  assert.is((await s.call(b.sandbox.api_key, 'GET', `/v1/pay/deposits/${owned.sandboxDeposit}`)).status, 200);
});

test("lists hold only the caller's objects in the caller's mode", async () => {
  const aList = await s.call(a.live.api_key, 'GET', '/v1/pay/deposits?limit=200');
  assert.is(aList.status, 200);
  assert.not.ok(aList.json.data.some((d: { id: string }) => d.id === owned.deposit || d.id === owned.sandboxDeposit));
  const bSandbox = await s.call(b.sandbox.api_key, 'GET', '/v1/pay/deposits?limit=200');
  assert.equal(bSandbox.json.data.map((d: { id: string }) => d.id), [owned.sandboxDeposit]);
  const bLive = await s.call(b.live.api_key, 'GET', '/v1/pay/deposits?limit=200');
  assert.equal(bLive.json.data.map((d: { id: string }) => d.id), [owned.deposit]);
});

test("another merchant's saved sender and beneficiary ids are refused like unknown ones", async () => {
  const saved = await s.bo('POST', `/v1/bo/merchants/${b.id}/senders`, { livemode: true, end_user_ref: 'shared-user', bank_code: '014', account_number: '1112223334', account_name_th: 'สมชาย ใจดี' });
  assert.is(saved.status, 201, saved.text);
  const aSenders = await s.call(a.live.api_key, 'GET', '/v1/pay/senders?end_user_ref=shared-user');
  assert.equal(aSenders.json.data, []);
  const bSenders = await s.call(b.live.api_key, 'GET', '/v1/pay/senders?end_user_ref=shared-user');
  assert.is(bSenders.json.data.length, 1);

  const withForeign = expectError(await s.call(a.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ sender: undefined, sender_id: saved.json.sender_id, end_user_ref: 'shared-user' })), 'validation_error');
  const withUnknown = expectError(await s.call(a.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ sender: undefined, sender_id: 'snd_01ARZ3NDEKTSV4RRFFQ69G5FAV', end_user_ref: 'shared-user' })), 'validation_error');
  assert.equal(withForeign.details, withUnknown.details);

  const bBen = [...s.running.store.world.beneficiaries.values()].find((x) => x.merchantId === b.id && x.status === 'verified')!.id;
  const foreignBen = expectError(await s.call(a.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(bBen), { idempotencyKey: randomUUID() }), 'validation_error');
  const unknownBen = expectError(await s.call(a.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody('ben_0000000000000000000000000000dead'), { idempotencyKey: randomUUID() }), 'validation_error');
  assert.equal(foreignBen.details, unknownBen.details);
});

test("B's webhooks about A's deposit carry neither A's request nor a leg_ref, event id or balance transaction next to A's ids (cannot be joined across merchants)", async () => {
  const envelopes = (merchantId: string) => s.running.store.db.prepare('SELECT body FROM outbox WHERE merchant_id = ? ORDER BY sequence').all(merchantId).map((r: any) => JSON.parse(r.body));
  const aCreated = envelopes(a.id).find((e) => e.type === 'deposit.created' && e.data.object.id === paid.deposit);
  assert.is(aCreated.request.idempotency_key, paid.depositKey, 'A hears its own request');
  const bAboutA = envelopes(b.id).filter((e) => e.data.object.id === paid.withdrawal && ['withdrawal.matched', 'withdrawal.filled', 'withdrawal.settled'].includes(e.type));
  assert.ok(bAboutA.length >= 2, bAboutA.map((e) => e.type).join());
  for (const e of bAboutA) assert.is(e.request, undefined, `${e.type} names no request of A's`);
  // withdrawal.filled carries the fill that landed (contract: "fill object in withdrawal.filled"), as fills[] shows it.
  const filledEvents = bAboutA.filter((e) => e.type === 'withdrawal.filled');
  assert.ok(filledEvents.length > 0);
  for (const e of filledEvents) assert.equal(e.data.fill, e.data.object.fills.find((f: any) => f.leg_ref === e.data.fill?.leg_ref), JSON.stringify(e.data));
  assert.ok(bAboutA.filter((e) => e.type !== 'withdrawal.filled').every((e) => !('fill' in e.data)), 'only withdrawal.filled has a fill');
  assert.not.ok(JSON.stringify(envelopes(b.id)).includes(paid.depositKey), "A's Idempotency-Key appears nowhere in B's events");
  // The ULIDs' random parts: B's leg_ref is no small step from A's deposit id or A's own leg_ref.
  const randomPart = (id: string) => [...id.slice(id.indexOf('_') + 11)].reduce((v, ch) => v * 32n + BigInt('0123456789ABCDEFGHJKMNPQRSTVWXYZ'.indexOf(ch)), 0n);
  const bLeg = (await s.call(b.live.api_key, 'GET', `/v1/pay/withdrawals/${paid.withdrawal}`)).json.fills[0].leg_ref as string;
  const aLeg = (await s.call(a.live.api_key, 'GET', `/v1/pay/deposits/${paid.deposit}`)).json.legs[0].leg_ref as string;
  for (const near of [paid.deposit, aLeg]) {
    const gap = randomPart(bLeg) - randomPart(near);
    assert.ok(gap > 1_000_000n || gap < -1_000_000n, `${bLeg} is ${gap} from ${near}`);
  }
  // Nor are the event ids and balance-transaction ids one commit made for both (adapters/ids.ts).
  const far = (x: string, y: string) => x.slice(x.indexOf('_') + 1, x.indexOf('_') + 11) !== y.slice(y.indexOf('_') + 1, y.indexOf('_') + 11)
    || randomPart(x) - randomPart(y) > 1_000_000n || randomPart(x) - randomPart(y) < -1_000_000n;
  const aEvents = envelopes(a.id).filter((e) => e.data.object.id === paid.deposit).map((e) => e.id as string);
  const bEvents = bAboutA.map((e) => e.id as string);
  for (const x of bEvents) for (const y of aEvents) assert.ok(far(x, y), `B's ${x} is next to A's ${y}`);
  const aTxn = (await s.call(a.live.api_key, 'GET', `/v1/pay/deposits/${paid.deposit}`)).json.balance_transaction_id as string;
  // The QR holds B's payee account in full: A reads it while there is something to pay, not after.
  const settled = (await s.call(a.live.api_key, 'GET', `/v1/pay/deposits/${paid.deposit}`)).json;
  assert.is(settled.status, 'settled');
  assert.ok(settled.legs.length > 0 && settled.legs.every((l: any) => !('qr_payload' in l)), JSON.stringify(settled.legs));
  const payable = (await s.call(b.live.api_key, 'GET', `/v1/pay/deposits/${owned.deposit}`)).json;
  assert.is(payable.status, 'awaiting_payment');
  assert.match(payable.legs[0].qr_payload, /^000201/);
  const bTxn = (await s.call(b.live.api_key, 'GET', `/v1/pay/withdrawals/${paid.withdrawal}`)).json.fills[0].balance_transaction_id as string;
  assert.ok(aTxn && bTxn && far(aTxn, bTxn), `B's ${bTxn} is next to A's ${aTxn}`);
});

test.run();
