// Support's search over real HTTP (GET /v1/bo/search): a ticket names an order by satang's
// id, by the merchant's own reference, by the end user's reference or by the bank's
// transaction reference on the slip, and the search finds it in any status — a settled
// deposit paid through the real slip flow (upload, bank simulator, verifier), an open one,
// another merchant's withdrawal with the same reference, a claim, a merchant — newest
// first, each row saying what it matched on; filters by mode and merchant; refusals.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { assertReceipt, matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, type SlipScene } from '../support/slip-harness.ts';
import { freshSender } from '../support/server-harness.ts';

let scene: SlipScene;
const ids = { settled: '', open: '', withdrawal: '', claim: '' };
let settledImage: Buffer;
const reference = `order-${randomUUID().slice(0, 8)}`;
const endUser = `user-${randomUUID().slice(0, 8)}`;
const transRef = `TR${randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase()}`;

const search = async (query: string, roles: readonly string[] = ['support']) => {
  const r = await scene.s.bo('GET', `/v1/bo/search?${query}`, undefined, { roles });
  return r;
};
const found = async (query: string) => {
  const r = await search(query);
  assert.is(r.status, 200, r.text);
  return r.json.data.map((h: any) => [h.object, h.id, h.matched_on]);
};

test.before(async () => {
  scene = await slipScene();
  const settled = await matchedDeposit(scene, { merchant_reference: reference, end_user_ref: endUser });
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, settled, { trans_ref: transRef, image_sha256: sha256Hex(image) }));
  assertReceipt(await uploadFile(settled.slip_upload, image));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  ids.settled = settled.id;
  settledImage = image;
  scene.s.clock.advance(1000);
  ids.open = (await matchedDeposit(scene, { merchant_reference: `${reference}-b`, end_user_ref: endUser })).id;
  const ben = await scene.s.beneficiary(scene.payer.id, true, '5556667778');
  const w = await scene.s.call(scene.payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 100_000, currency: 'THB', merchant_reference: reference, end_user_ref: 'payee-9', beneficiary_id: ben });
  assert.is(w.status, 201, w.text);
  ids.withdrawal = w.json.id;
  const claim = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'manual', deposit_id: ids.settled, amount_minor: 1_000, note: 'the payer says this was paid twice over' }, { roles: ['ops_admin'] });
  assert.is(claim.status, 201, claim.text);
  ids.claim = claim.json.id;
});
test.after(async () => { await scene.s.stop(); });

test('a merchant reference finds every order that carries it, any status and merchant, newest first', async () => {
  const r = await search(`q=${reference}`);
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.data.map((h: any) => [h.object, h.id, h.matched_on]), [['withdrawal', ids.withdrawal, 'merchant_reference'], ['deposit', ids.settled, 'merchant_reference']]);
  const deposit = r.json.data[1];
  assert.equal([deposit.status, deposit.merchant_id, deposit.livemode, deposit.amount_minor, deposit.end_user_ref], ['settled', scene.shop.id, true, 50_000, endUser]);
  assert.equal(await found(`q=${reference}&merchant_id=${scene.shop.id}`), [['deposit', ids.settled, 'merchant_reference']]);
  assert.equal(await found(`q=${reference}&livemode=false`), []);
});

test('an end user reference, a bank transaction reference and ids find what they name', async () => {
  assert.equal(await found(`q=${endUser}`), [['deposit', ids.open, 'end_user_ref'], ['deposit', ids.settled, 'end_user_ref']]);
  assert.equal(await found(`q=${transRef}`), [['deposit', ids.settled, 'trans_ref']]);
  assert.equal(await found(`q=${ids.settled}`), [['deposit', ids.settled, 'id']]);
  assert.equal(await found(`q=${ids.withdrawal}`), [['withdrawal', ids.withdrawal, 'id']]);
  const claim = (await search(`q=${ids.claim}`)).json.data;
  assert.equal(claim.map((h: any) => [h.object, h.id, h.status, h.merchant_id, h.amount_minor]), [['claim', ids.claim, 'open', scene.shop.id, 1_000]]);
  assert.equal(await found(`q=${scene.shop.id}`), [['merchant', scene.shop.id, 'id']]);
  assert.equal(await found(`q=%20${encodeURIComponent(reference)}%20`), [['withdrawal', ids.withdrawal, 'merchant_reference'], ['deposit', ids.settled, 'merchant_reference']], 'spaces around a pasted reference are trimmed');
  assert.equal(await found('q=order-nobody-used'), []);
  assert.equal(await found(`q=${reference.toUpperCase()}`), [], 'exact, not a word search');
});

test('limit pages the newest; a missing or overlong q is refused; every directory role may search', async () => {
  const one = await search(`q=${endUser}&limit=1`);
  assert.equal([one.json.data.map((h: any) => h.id), one.json.has_more], [[ids.open], true]);
  for (const [query, reason] of [['q=', 'empty'], ['', 'required'], [`q=${'x'.repeat(65)}`, 'maximum']] as const) {
    const r = await search(query);
    assert.is(r.status, 422, r.text);
    assert.equal([r.json.error.code, r.json.error.details.fields[0].path, r.json.error.details.fields[0].reason], ['validation_error', 'query.q', reason]);
  }
  // Characters counted as at creation: 64 emoji is a reference the API took, so it can be searched.
  const emoji = '😀'.repeat(64);
  const made = await matchedDeposit(scene, { merchant_reference: emoji, sender: freshSender() });
  assert.equal(await found(`q=${encodeURIComponent(emoji)}`), [['deposit', made.id, 'merchant_reference']]);
  assert.is((await search(`q=${encodeURIComponent('😀'.repeat(65))}`)).status, 422);
  const unknown = await search(`q=${reference}&status=settled`);
  assert.is(unknown.status, 422);
  for (const role of ['reviewer', 'approver', 'ops_admin', 'finance', 'support']) assert.is((await search(`q=${reference}`, [role])).status, 200, role);
});

test('a bank transaction reference finds every deposit whose slip showed it: the one credited for it and a duplicate in review', async () => {
  scene.s.clock.advance(1000);
  const second = await matchedDeposit(scene, { sender: freshSender() });
  assertReceipt(await uploadFile(second.slip_upload, settledImage)); // the same slip, for another order
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  const shown = (await scene.s.bo('GET', `/v1/bo/deposits/${second.id}`)).json;
  assert.equal([shown.deposit.status, shown.review.reasons.some((r: any) => r.code === 'DUPLICATE_SLIP')], ['under_review', true]);
  assert.equal(await found(`q=${transRef}`), [['deposit', second.id, 'trans_ref'], ['deposit', ids.settled, 'trans_ref']], 'newest first');
});

test.run();
