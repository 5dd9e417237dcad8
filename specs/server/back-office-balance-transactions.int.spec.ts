// GET /v1/bo/merchants/:id/balance-transactions over real HTTP, on a real server with the
// slip worker: a shop funded by an adjustment, paid by a settled deposit (slip verified)
// and withdrawing. Checks: every movement is a row, newest first, with the type, amounts,
// buckets and source of the journal entry that posted it; the rows' deltas sum to the
// wallet's buckets (GET /v1/bo/wallet) and are the merchant's own balance history row for
// row; a write shows at once (read your writes); paging by cursor visits every row exactly
// once and the cursor is bound to livemode and to the sandbox run; sandbox rows are
// separate (sbxbtxn_l_ ids, the current run only); roles (reviewer and approver 403);
// bad parameters 422, unknown merchant 404.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, type SlipScene } from '../support/slip-harness.ts';
import type { MerchantKeys } from '../support/server-harness.ts';

let scene: SlipScene;
let shop: MerchantKeys;
let depositId: string;
let withdrawalId: string;
const shopFundingMinor = 1_000_000;

const list = (merchantId: string, query: Record<string, string> = {}, roles: readonly string[] = ['finance']) =>
  scene.s.bo('GET', `/v1/bo/merchants/${merchantId}/balance-transactions?${new URLSearchParams(query)}`, undefined, { roles });

/** Every row of a merchant in a mode, following next_cursor with pages of `limit`. */
async function allPages(merchantId: string, livemode: boolean, limit: number): Promise<any[]> {
  const rows: any[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const r = await list(merchantId, { livemode: String(livemode), limit: String(limit), ...(cursor ? { cursor } : {}) });
    assert.is(r.status, 200, r.text);
    assert.ok(r.json.data.length <= limit);
    rows.push(...r.json.data);
    cursor = r.json.next_cursor;
    assert.is(r.json.has_more, cursor !== null);
    if (!cursor) return rows;
  }
  throw new Error('more than 100 pages');
}

test.before(async () => {
  scene = await slipScene();
  shop = scene.shop;
  await scene.s.fund(shop.id, shopFundingMinor);
  // A deposit paid with a verified slip: settled, the shop credited.
  const d = await matchedDeposit(scene);
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, d, { image_sha256: sha256Hex(image) }));
  assert.is((await uploadFile(d.slip_upload, image)).status, 202);
  await scene.s.running.slipWorker.drain();
  const settled = await scene.s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${d.id}`);
  assert.is(settled.json.status, 'settled', settled.text);
  depositId = d.id;
  // The shop withdraws from its available balance.
  const ben = await scene.s.beneficiary(shop.id, true, '5550002222');
  const w = await scene.s.call(shop.live.api_key, 'POST', '/v1/pay/withdrawals', {
    amount_minor: 200_000, currency: 'THB', merchant_reference: `w-${randomUUID()}`, end_user_ref: 'payee-2', beneficiary_id: ben,
  });
  assert.is(w.status, 201, w.text);
  withdrawalId = w.json.id;
});
test.after(async () => { await scene.s.stop(); });

test('every movement of the shop is a row, newest first, enriched from its journal entry', async () => {
  const r = await list(shop.id);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.object, 'list');
  assert.is(r.json.has_more, false);
  assert.is(r.json.next_cursor, null);
  const rows: any[] = r.json.data;
  const types = rows.map((x) => x.type);
  for (const type of ['adjustment', 'deposit_settled', 'withdrawal_reserved']) assert.ok(types.includes(type), `${type} in ${types.join(', ')}`);
  // Newest first: the withdrawal is the last movement, the funding the first.
  assert.is(rows[0].type, 'withdrawal_reserved');
  assert.is(rows[rows.length - 1].type, 'adjustment');
  const sequences = rows.map((x) => BigInt(x.sequence));
  assert.equal(sequences, [...sequences].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
  assert.is(sequences[sequences.length - 1], 1n);
  assert.is(new Set(sequences).size, rows.length, 'sequences are unique');
  for (let i = 1; i < rows.length; i++) {
    assert.ok(rows[i - 1].journal_seq > rows[i].journal_seq, 'journal order follows the sequence');
    assert.ok(Date.parse(rows[i - 1].created_at) >= Date.parse(rows[i].created_at));
  }
  for (const row of rows) {
    assert.match(row.id, /^btxn_/);
    assert.is(row.object, 'balance_transaction');
    assert.ok(Number.isSafeInteger(row.amount_minor) && row.amount_minor > 0);
    // Direction and buckets say the same as the deltas: a credit into bucket_to adds, a debit out of bucket_from takes.
    const delta = (bucket: string | null) => (bucket === null ? 0 : row.bucket_deltas[`${bucket}_minor`]);
    if (row.bucket_from === null) assert.is(delta(row.bucket_to), row.amount_minor, JSON.stringify(row));
    if (row.bucket_to === null) assert.is(delta(row.bucket_from), -row.amount_minor, JSON.stringify(row));
  }

  const funding = rows.find((x) => x.type === 'adjustment');
  assert.equal([funding.direction, funding.amount_minor, funding.bucket_from, funding.bucket_to, funding.source.type], ['credit', shopFundingMinor, null, 'available', 'adjustment']);
  assert.equal(funding.bucket_deltas, { available_minor: shopFundingMinor, pending_clearing_minor: 0, reserved_minor: 0 });
  const deposit = rows.find((x) => x.type === 'deposit_settled');
  assert.equal([deposit.direction, deposit.bucket_to, deposit.source.id], ['credit', 'pending_clearing', depositId]);
  const reserved = rows.find((x) => x.type === 'withdrawal_reserved');
  assert.equal([reserved.source.id, reserved.bucket_from, reserved.bucket_to], [withdrawalId, 'available', 'reserved']);
  assert.is(reserved.bucket_deltas.available_minor, -reserved.bucket_deltas.reserved_minor);
});

test("the rows' deltas sum to the wallet's buckets and are the merchant's own balance history", async () => {
  const rows = (await list(shop.id, { limit: '200' })).json.data as any[];
  const wallet = await scene.s.bo('GET', `/v1/bo/wallet?merchant_id=${shop.id}&livemode=true`, undefined, { roles: ['finance'] });
  assert.is(wallet.status, 200, wallet.text);
  for (const bucket of ['available_minor', 'pending_clearing_minor', 'reserved_minor']) {
    assert.is(rows.reduce((sum, x) => sum + x.bucket_deltas[bucket], 0), wallet.json[bucket], bucket);
  }
  const own = await scene.s.call(shop.live.api_key, 'GET', '/v1/pay/balance/transactions?limit=100');
  assert.is(own.status, 200, own.text);
  const mine = (own.json.data as any[]).map((x) => [x.id, x.sequence, x.bucket_deltas.available_minor, x.bucket_deltas.pending_clearing_minor, x.bucket_deltas.reserved_minor]);
  const operators = rows.map((x) => [x.id, x.sequence, String(x.bucket_deltas.available_minor), String(x.bucket_deltas.pending_clearing_minor), String(x.bucket_deltas.reserved_minor)]).reverse();
  assert.equal(operators, mine);
});

test('a committed write shows in the next read (read your writes)', async () => {
  const before = (await list(scene.payer.id, { limit: '1' })).json.data[0];
  await scene.s.fund(scene.payer.id, 12_345);
  const after = await list(scene.payer.id, { limit: '1' });
  const newest = after.json.data[0];
  assert.equal([newest.type, newest.amount_minor], ['adjustment', 12_345]);
  assert.is(BigInt(newest.sequence), BigInt(before.sequence) + 1n);
  assert.is(after.json.has_more, true);
});

test('paging by cursor visits every row exactly once, in order; the cursor is bound to livemode', async () => {
  const whole = (await list(scene.payer.id, { limit: '200' })).json.data.map((x: any) => x.id);
  assert.ok(whole.length >= 7, `payer rows: ${whole.length}`);
  for (const limit of [1, 2, 3]) assert.equal((await allPages(scene.payer.id, true, limit)).map((x) => x.id), whole, `limit ${limit}`);
  const first = await list(scene.payer.id, { limit: '2' });
  const cursor = first.json.next_cursor;
  assert.type(cursor, 'string');
  const mismatch = await list(scene.payer.id, { livemode: 'false', limit: '2', cursor });
  assert.is(mismatch.status, 400, mismatch.text);
  assert.is(mismatch.json.error.code, 'cursor_filter_mismatch');
  const otherMerchant = await list(scene.shop.id, { limit: '2', cursor });
  assert.equal([otherMerchant.status, otherMerchant.json.error?.code], [400, 'cursor_filter_mismatch'], 'the payer\'s cursor does not page the shop\'s rows');
  const forged = await list(scene.payer.id, { cursor: 'not-a-cursor' });
  assert.is(forged.status, 422, forged.text);
  assert.is(forged.json.error.code, 'validation_error');
});

test('sandbox rows are separate: their own ids and sequences, the current run only', async () => {
  const merchant = await scene.s.onboard('Sandbox shop', scene.payer.whiteLabelId);
  assert.equal((await list(merchant.id, { livemode: 'false' })).json.data, []);
  await scene.s.fund(merchant.id, 10_000, false);
  await scene.s.fund(merchant.id, 20_000, false);
  await scene.s.fund(merchant.id, 5_000, true);
  const sandbox = await list(merchant.id, { livemode: 'false' });
  assert.is(sandbox.status, 200, sandbox.text);
  assert.equal(sandbox.json.data.map((x: any) => [x.sequence, x.amount_minor, x.type]), [['2', 20_000, 'adjustment'], ['1', 10_000, 'adjustment']]);
  for (const row of sandbox.json.data) assert.match(row.id, /^sbxbtxn_l_/);
  const live = await list(merchant.id, { livemode: 'true' });
  assert.equal(live.json.data.map((x: any) => [x.sequence, x.amount_minor]), [['1', 5_000]]);
  assert.match(live.json.data[0].id, /^btxn_/);
  // The merchant's own sandbox history shows the same ids.
  const own = await scene.s.call(merchant.sandbox.api_key, 'GET', '/v1/pay/balance/transactions');
  assert.equal(own.json.data.map((x: any) => x.id), sandbox.json.data.map((x: any) => x.id).reverse());

  // A new sandbox run: its history starts empty, and a cursor of the old run is refused.
  const cursor = (await list(merchant.id, { livemode: 'false', limit: '1' })).json.next_cursor;
  const reset = await scene.s.call(merchant.sandbox.api_key, 'POST', '/v1/test/sandbox/reset', {});
  assert.is(reset.status, 200, reset.text);
  assert.equal((await list(merchant.id, { livemode: 'false' })).json.data, []);
  const stale = await list(merchant.id, { livemode: 'false', limit: '1', cursor });
  assert.is(stale.status, 409, stale.text);
  assert.is(stale.json.error.code, 'sandbox_run_changed');
  await scene.s.fund(merchant.id, 7_000, false);
  assert.equal((await list(merchant.id, { livemode: 'false' })).json.data.map((x: any) => [x.sequence, x.amount_minor]), [['1', 7_000]]);
});

test('finance, support and ops_admin may read; reviewer and approver may not', async () => {
  for (const role of ['finance', 'support', 'ops_admin']) assert.is((await list(shop.id, {}, [role])).status, 200, role);
  for (const role of ['reviewer', 'approver']) {
    const r = await list(shop.id, {}, [role]);
    assert.is(r.status, 403, role);
    assert.is(r.json.error.code, 'scope_denied');
  }
});

test('bad parameters are 422 validation_error; an unknown merchant is 404', async () => {
  const bad: Record<string, string>[] = [{ limit: '0' }, { limit: '201' }, { limit: 'ten' }, { livemode: 'yes' }, { since_sequence: '0' }];
  for (const query of bad) {
    const r = await list(shop.id, query);
    assert.is(r.status, 422, `${JSON.stringify(query)}: ${r.text}`);
    assert.is(r.json.error.code, 'validation_error');
  }
  const missing = await list('mch_01JD0000000000000000000000');
  assert.is(missing.status, 404, missing.text);
  assert.is(missing.json.error.code, 'resource_not_found');
});

test("an adjustment's reason: the merchant sees the catalogue's code and its Thai text, never the operator's note", async () => {
  const note = 'Ticket 4411: payout delayed by our bank, refund of the fee as agreed';
  const posted = await scene.s.bo('POST', `/v1/bo/merchants/${shop.id}/adjustments`, { livemode: true, amount_minor: 1_000, direction: 'credit', bucket: 'available', reason_code: 'GOODWILL_CREDIT', reason: note }, { stepUp: true });
  assert.is(posted.status, 201, posted.text);
  assert.equal([posted.json.reason_code, posted.json.reason_display_th, posted.json.note], ['GOODWILL_CREDIT', 'เครดิตชดเชยจากผู้ให้บริการ', note]);
  const row = (await list(shop.id, { livemode: 'true', limit: '1' })).json.data[0];
  assert.equal([row.id, row.reason_code, row.note], [posted.json.id, 'GOODWILL_CREDIT', note], 'the back office keeps the note');
  assert.equal([row.source, row.posted_by, posted.json.source, posted.json.posted_by], [{ type: 'adjustment', id: row.id }, 'emp_alice', { type: 'adjustment', id: row.id }, 'emp_alice'],
    "the source as the merchant's copy names it, the operator apart");
  const envelopes = scene.s.running.store.db.prepare("SELECT body FROM outbox WHERE merchant_id = ? AND type = 'balance.credited'").all(shop.id).map((r: any) => JSON.parse(r.body));
  const event = envelopes.find((e: any) => e.data.object.id === posted.json.id);
  assert.equal([event.data.object.reason_code, event.data.object.reason_display_th], ['GOODWILL_CREDIT', 'เครดิตชดเชยจากผู้ให้บริการ']);
  assert.not.ok(JSON.stringify(envelopes).includes('Ticket 4411'), "the operator's note reaches no event of the merchant");
  const byDefault = await scene.s.bo('POST', `/v1/bo/merchants/${shop.id}/adjustments`, { livemode: true, amount_minor: 100, direction: 'credit', bucket: 'available', reason: 'no code given' }, { stepUp: true });
  assert.is(byDefault.json.reason_code, 'MANUAL_ADJUSTMENT');
  const unknown = await scene.s.bo('POST', `/v1/bo/merchants/${shop.id}/adjustments`, { livemode: true, amount_minor: 100, direction: 'credit', bucket: 'available', reason_code: 'WHIM', reason: 'x' }, { stepUp: true });
  assert.equal([unknown.status, unknown.json.error.details.fields[0].path], [422, 'reason_code'], unknown.text);
});

test.run();
