// Slips that arrive while another slip of the same order is being verified, over real
// HTTP against a real server: a two-leg deposit (two withdrawals paying into two different
// accounts, so each slip matches its leg by receiver), transfers registered at the mounted
// bank simulator, the verification worker on manual. Contract: evidence of money is never
// refused while the order can take a slip — only the 3-upload cap and the late-slip window
// refuse — and a 202 means the evidence is durable; the slip queued behind another is
// verified when its turn comes, in order, and the order settles when every leg is paid.

import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expectError } from '../support/api-checks.ts';
import { depositBody, freshSender, TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { assertReceipt, getDeposit, matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, type SlipScene } from '../support/slip-harness.ts';

const legAccounts = ['1111111111', '2222222222'] as const;

interface TwoLegScene extends SlipScene { readonly deposit: any }

/** A fresh server whose only liquidity is two withdrawals of 300 THB into two accounts; a 500 THB deposit takes both. */
async function twoLegScene(dataDir?: string): Promise<TwoLegScene> {
  const s = await TestServer.start({}, dataDir, { slipWorker: 'manual' });
  const payer: MerchantKeys = await s.onboard('Payer');
  const shop = await s.onboard('Shop', payer.whiteLabelId);
  await s.fund(payer.id, 1_000_000);
  const withdrawalIds: string[] = [];
  for (const account of legAccounts) {
    const beneficiary = await s.beneficiary(payer.id, true, account);
    const w = await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', {
      amount_minor: 30_000, currency: 'THB', merchant_reference: `w-${randomUUID()}`, end_user_ref: 'payee-1', beneficiary_id: beneficiary,
    });
    assert.is(w.status, 201, w.text);
    withdrawalIds.push(w.json.id);
  }
  const r = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 50_000, fill_preference: 'internal_only' }));
  assert.is(r.status, 201, r.text);
  assert.equal(r.json.legs.map((l: any) => [l.sequence, l.amount_minor, l.receiver.account_number_masked]), [[1, 30_000, 'xxxxxx1111'], [2, 20_000, 'xxxxxx2222']]);
  return { s, payer, shop, withdrawalIds, deposit: r.json };
}

/** The slip image of leg `index` and the transfer the bank knows it by. */
function legSlip(scene: TwoLegScene, index: number, image = pngSlip()) {
  const leg = scene.deposit.legs[index];
  const transfer = transferFor(scene, { amount_minor: leg.amount_minor }, {
    image_sha256: sha256Hex(image), receiver: { bank_code: '004', account_number: legAccounts[index]!, account_name: 'สมหญิง รักดี' },
  });
  return { image, transfer };
}

async function depositOf(scene: TwoLegScene): Promise<any> {
  const r = await scene.s.call(scene.shop.live.api_key, 'GET', `/v1/pay/deposits/${scene.deposit.id}`);
  assert.is(r.status, 200, r.text);
  return r.json;
}

async function filledMinor(scene: TwoLegScene): Promise<number[]> {
  const out: number[] = [];
  for (const id of scene.withdrawalIds) {
    const r = await scene.s.call(scene.payer.live.api_key, 'GET', `/v1/pay/withdrawals/${id}`);
    assert.is(r.status, 200, r.text);
    out.push(r.json.filled_minor);
  }
  return out;
}

/** The deposit's merchant events in journal order: [type, object status, object version]. */
function depositEvents(scene: TwoLegScene): [string, string, number][] {
  const rows = scene.s.running.store.db.prepare('SELECT type, body FROM outbox WHERE stream = ? ORDER BY rowid').all(scene.deposit.id) as { type: string; body: string }[];
  return rows.map((r) => {
    const object = JSON.parse(r.body).data.object;
    return [r.type, object.status, object.version];
  });
}

test('2 legs: the slip of leg 2 uploaded while leg 1 is verifying is taken (202); after the worker runs both legs are verified and the deposit settles', async () => {
  const scene = await twoLegScene();
  try {
    const legs = [legSlip(scene, 0), legSlip(scene, 1)];
    for (const { transfer } of legs) await registerTransfer(scene.s, transfer);
    const first = assertReceipt(await uploadFile(scene.deposit.slip_upload, legs[0]!.image));
    assert.is(first.livemode, true, 'the receipt says the mode of its (live) order');
    assert.is((await depositOf(scene)).status, 'slip_processing');
    const second = assertReceipt(await uploadFile(scene.deposit.slip_upload, legs[1]!.image));
    assert.is.not(second.receipt_id, first.receipt_id);
    assert.is((await depositOf(scene)).status, 'slip_processing', 'nothing is verified before the worker runs');

    assert.is(await scene.s.running.slipWorker.drain(), 2, 'both slips verified, the queued one after the first');
    const after = await depositOf(scene);
    assert.is(after.status, 'settled');
    assert.equal(after.legs.map((l: any) => l.leg_status), ['complete', 'complete']);
    assert.equal([after.transferred_amount_minor, after.amount_received_minor, after.partial, after.verification.amount_exact], [50_000, 50_000, false, true]);
    assert.is(after.slip.received_at, second.received_at, 'the slip shown is the last one verified');
    assert.equal(await filledMinor(scene), [30_000, 20_000], 'each leg filled the withdrawal it paid');
    // The back office shows both slips, each with the leg it paid, and serves both images.
    const view = (await scene.s.bo('GET', `/v1/bo/deposits/${scene.deposit.id}`)).json;
    assert.equal(view.evidence.slips.map((x: any) => [x.receipt_id, x.leg_ref, x.transferred_amount_minor]),
      [[first.receipt_id, after.legs[0].leg_ref, 30_000], [second.receipt_id, after.legs[1].leg_ref, 20_000]]);
    const amount = view.evidence.verdicts.find((v: any) => v.dimension === 'amount');
    assert.equal([amount.expected, amount.shown, amount.match], [20_000, 20_000, true], "the verdicts are the last slip's: its leg's amount, not the order's");
    for (const [i, x] of view.evidence.slips.entries()) {
      const image = await scene.s.raw('GET', x.image_url, { headers: { Authorization: `Bearer ${await scene.s.operatorToken()}` } });
      assert.is(image.status, 200, `slip ${i + 1}'s image`);
    }

    const events = depositEvents(scene);
    assert.equal(events.map(([type, status]) => [type, status]), [
      ['deposit.created', 'awaiting_payment'], ['deposit.matched', 'awaiting_payment'],
      ['deposit.slip_received', 'slip_processing'],
      ['deposit.leg_updated', 'awaiting_payment'], ['deposit.slip_received', 'slip_processing'],
      ['deposit.settled', 'settled'],
    ]);
    const versions = events.slice(2).map(([, , v]) => v);
    assert.ok(versions.every((v, i) => i === 0 || v > versions[i - 1]!), `versions strictly increase: ${versions}`);
    assert.is(await scene.s.running.slipWorker.drain(), 0, 'nothing left to verify');
  } finally {
    await scene.s.stop();
  }
});

test('2 legs, only leg 1 paid: at expiry the order settles short (partial) and its verification says the amount was not exact, though the leg was', async () => {
  const scene = await twoLegScene();
  try {
    const leg = legSlip(scene, 0);
    await registerTransfer(scene.s, leg.transfer);
    assertReceipt(await uploadFile(scene.deposit.slip_upload, leg.image));
    assert.is(await scene.s.running.slipWorker.drain(), 1);
    const paying = await depositOf(scene);
    assert.equal([paying.status, paying.legs.map((l: any) => l.leg_status)], ['awaiting_payment', ['complete', 'pending']]);
    const moved = await scene.s.bo('POST', '/v1/bo/clock/advance', { seconds: 2 * 3600 });
    assert.is(moved.status, 200, moved.text);
    const after = await depositOf(scene);
    assert.equal([after.status, after.transferred_amount_minor, after.amount_received_minor, after.partial], ['settled', 30_000, 30_000, true]);
    assert.equal(after.verification, { amount_exact: false, within_time_window: true, sender_bank_match: true, sender_account_match: true, sender_name_match: true, receiver_match: true });
    assert.equal(await filledMinor(scene), [30_000, 0]);
  } finally {
    await scene.s.stop();
  }
});

test('2 legs, leg 2 paid 30 000 on its 20 000 and leg 1 not paid: at expiry the order goes to review (SETTLE_CONFLICT, four eyes), its legs still held — not expired no_payment with the payees open to be paid again', async () => {
  const scene = await twoLegScene();
  try {
    const image = pngSlip();
    const overpaid = transferFor(scene, { amount_minor: 30_000 }, { image_sha256: sha256Hex(image), receiver: { bank_code: '004', account_number: legAccounts[1], account_name: 'สมหญิง รักดี' } });
    await registerTransfer(scene.s, overpaid);
    assertReceipt(await uploadFile(scene.deposit.slip_upload, image));
    assert.is(await scene.s.running.slipWorker.drain(), 1);
    const paying = await depositOf(scene);
    assert.equal([paying.status, paying.legs.map((l: any) => l.leg_status), paying.verification.amount_exact], ['awaiting_payment', ['pending', 'complete'], false]);

    const moved = await scene.s.bo('POST', '/v1/bo/clock/advance', { seconds: 901 });
    assert.is(moved.status, 200, moved.text);
    const held = await depositOf(scene);
    assert.equal([held.status, held.expired_reason ?? null, held.is_terminal, held.legs.map((l: any) => l.leg_status)], ['under_review', null, false, ['pending', 'complete']]);
    assert.equal([held.review.reasons.map((r: any) => r.code), held.review.four_eyes_required], [['SETTLE_CONFLICT'], true], 'whatever leg 1 got, 10 000 of leg 2\'s would come out of suspense');
    assert.equal(depositEvents(scene).slice(-2).map(([type, status]) => [type, status]), [['deposit.leg_updated', 'awaiting_payment'], ['deposit.under_review', 'under_review']], 'no deposit.expired');
    const reserved: number[] = [];
    for (const id of scene.withdrawalIds) reserved.push((await scene.s.call(scene.payer.live.api_key, 'GET', `/v1/pay/withdrawals/${id}`)).json.reserved_minor);
    assert.equal([reserved, await filledMinor(scene)], [[30_000, 20_000], [0, 0]], 'the legs still hold their withdrawals');
    const another = await scene.s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 20_000, fill_preference: 'internal_only' }));
    assert.is(another.status, 202, `no new payer is sent to pay leg 2's payee again: ${another.text}`);

    // Two reviewers settle what arrived: leg 1 got nothing; leg 2's withdrawal takes its 20 000, suspense the rest.
    const legs = [{ leg_ref: held.legs[0].leg_ref, amount_minor: 0 }];
    const note = 'the payer sent leg 1\'s money to leg 2 by mistake';
    for (const sub of ['emp_r1', 'emp_r2']) {
      const r = await scene.s.bo('POST', `/v1/bo/deposits/${scene.deposit.id}/approve`, { note, legs }, { sub, roles: ['reviewer'] });
      assert.is(r.status, 200, r.text);
    }
    const settled = await depositOf(scene);
    assert.equal([settled.status, settled.transferred_amount_minor, settled.amount_received_minor, settled.partial], ['settled', 30_000, 30_000, true]);
    assert.equal((await filledMinor(scene))[1], 20_000);
  } finally {
    await scene.s.stop();
  }
});

test('2 legs expired unpaid, then a late slip pays leg 1: its withdrawal is held for that money again — a new payer is not sent to its payee — and the window\'s close settles the leg short, with no review', async () => {
  const scene = await twoLegScene();
  try {
    const leg = legSlip(scene, 0); // made in time, its slip sent late
    await registerTransfer(scene.s, leg.transfer);
    const moved = await scene.s.bo('POST', '/v1/bo/clock/advance', { seconds: 901 });
    assert.is(moved.status, 200, moved.text);
    const reserved = async () => {
      const out: number[] = [];
      for (const id of scene.withdrawalIds) out.push((await scene.s.call(scene.payer.live.api_key, 'GET', `/v1/pay/withdrawals/${id}`)).json.reserved_minor);
      return out;
    };
    assert.equal([(await depositOf(scene)).status, await reserved()], ['expired', [0, 0]], 'expiry released both legs');

    assertReceipt(await uploadFile(scene.deposit.slip_upload, leg.image));
    assert.is(await scene.s.running.slipWorker.drain(), 1);
    const late = await depositOf(scene);
    assert.equal([late.status, late.legs.map((l: any) => l.leg_status), late.slip.is_late], ['expired', ['complete', 'pending'], true]);
    assert.equal(await reserved(), [30_000, 0], 'leg 1\'s payee has its 30 000: its withdrawal holds it again');
    const told = (scene.s.running.store.db.prepare('SELECT type, body FROM outbox WHERE stream = ? ORDER BY rowid').all(scene.withdrawalIds[0]) as { type: string; body: string }[]).map((r) => [r.type, JSON.parse(r.body).data.object.reserved_minor]);
    assert.equal(told.slice(-3), [['withdrawal.matched', 30_000], ['withdrawal.match_released', 0], ['withdrawal.matched', 30_000]], 'its merchant is told the release at expiry, then that it is matched again');
    // 40 000 would take both payees' 30 000 if leg 1's were free; leg 2's alone cannot take it.
    const another = await scene.s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 40_000, fill_preference: 'internal_only' }));
    assert.is(another.status, 202, `no new payer is sent to pay leg 1's payee again: ${another.text}`);

    const closed = await scene.s.bo('POST', '/v1/bo/clock/advance', { seconds: 24 * 3600 });
    assert.is(closed.status, 200, closed.text);
    const settled = await depositOf(scene);
    assert.equal([settled.status, settled.transferred_amount_minor, settled.amount_received_minor, settled.partial, settled.review ?? null], ['settled', 30_000, 30_000, true, null], 'settled by itself at the window\'s close: nothing from suspense');
    assert.equal([await filledMinor(scene), await reserved()], [[30_000, 0], [0, 0]]);
  } finally {
    await scene.s.stop();
  }
});

/** Leg 1's account sent `amountMinor` in its own transfer (made now, at the bank simulator), and its slip image. */
async function leg1Transfer(scene: TwoLegScene, amountMinor: number): Promise<Buffer> {
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, { amount_minor: amountMinor }, {
    image_sha256: sha256Hex(image), receiver: { bank_code: '004', account_number: legAccounts[0], account_name: 'สมหญิง รักดี' },
  }));
  return image;
}

test('2 legs expired unpaid, leg 1 paid late in two transfers while another payer held its withdrawal: the hold waits for the capacity that payer lets go, rises with the second transfer, and the approval fills leg 1 with both — its payee is never matched to a new payer for that money', async () => {
  const scene = await twoLegScene();
  try {
    // Leg 1's payer sends 200 of its 300 THB in time, and 100 more in a second transfer.
    const first = await leg1Transfer(scene, 20_000);
    const second = await leg1Transfer(scene, 10_000);
    assert.is((await scene.s.bo('POST', '/v1/bo/clock/advance', { seconds: 901 })).status, 200);
    const reserved = async () => {
      const out: number[] = [];
      for (const id of scene.withdrawalIds) out.push((await scene.s.call(scene.payer.live.api_key, 'GET', `/v1/pay/withdrawals/${id}`)).json.reserved_minor);
      return out;
    };
    assert.equal([(await depositOf(scene)).status, await reserved()], ['expired', [0, 0]], 'expiry released both legs');
    // Meanwhile another payer's 200 THB order takes 200 of payee 1's 300 (oldest first), and does not pay.
    const other = await scene.s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 20_000, fill_preference: 'internal_only', sender: freshSender() }));
    assert.is(other.status, 201, other.text);
    assert.equal(other.json.legs.map((l: any) => l.receiver.account_number_masked), ['xxxxxx1111']);

    assertReceipt(await uploadFile(scene.deposit.slip_upload, first));
    assert.is(await scene.s.running.slipWorker.drain(), 1);
    assert.equal([(await depositOf(scene)).legs.map((l: any) => l.leg_status), await reserved()], [['complete', 'pending'], [30_000, 0]], 'leg 1 holds the 100 left of its 200; the rest waits for capacity');

    // The other payer's order expires unpaid: what it held goes to leg 1's money first, not to a new payer.
    assert.is((await scene.s.bo('POST', '/v1/bo/clock/advance', { seconds: 901 })).status, 200);
    assert.is((await scene.s.call(scene.shop.live.api_key, 'GET', `/v1/pay/deposits/${other.json.id}`)).json.status, 'expired');
    assert.equal(await reserved(), [20_000, 0], 'leg 1\'s hold topped up to its 200 THB as the other payer let go');

    // The second transfer to leg 1's account: review (a second transfer to a paid leg), and leg 1's hold rises to its 300.
    assertReceipt(await uploadFile(scene.deposit.slip_upload, second));
    assert.is(await scene.s.running.slipWorker.drain(), 1);
    const review = await depositOf(scene);
    assert.equal([review.status, review.review.reasons.map((r: any) => r.code)], ['under_review', ['AMBIGUOUS_MATCH', 'AMOUNT_MISMATCH']]);
    assert.equal(await reserved(), [30_000, 0], 'payee 1 has all 300 THB of leg 1: its withdrawal holds it all');
    const probe = await scene.s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 40_000, fill_preference: 'internal_only', sender: freshSender() }));
    assert.is(probe.status, 202, `a new 400 THB payer is not sent to payee 1 for money it has (payee 2 alone has 300): ${probe.text}`);

    const approved = await scene.s.bo('POST', `/v1/bo/deposits/${scene.deposit.id}/approve`, { note: 'the payer split leg 1 in two transfers', legs: [{ leg_ref: review.legs[1].leg_ref, amount_minor: 0 }] }, { sub: 'emp_r1', roles: ['reviewer'] });
    assert.is(approved.status, 200, approved.text);
    const settled = await depositOf(scene);
    assert.equal([settled.status, settled.transferred_amount_minor, settled.amount_received_minor, settled.partial], ['settled', 30_000, 30_000, true], 'both transfers counted');
    assert.equal((await filledMinor(scene))[0], 30_000, 'leg 1 filled its withdrawal with both transfers');
    const report = await scene.s.bo('GET', `/v1/bo/reports/receiving-accounts?merchant_id=${scene.payer.id}&livemode=true`, undefined, { roles: ['finance'] });
    assert.is(report.status, 200, report.text);
    const leg1 = report.json.data.flatMap((a: any) => a.differences).find((d: any) => d.deposit_id === scene.deposit.id && d.leg_ref === review.legs[0].leg_ref);
    assert.is(leg1, undefined, `leg 1 agrees: told, verified (both transfers) and filled 300 THB: ${JSON.stringify(leg1)}`);
  } finally {
    await scene.s.stop();
  }
});

/** Withdrawal `id`'s merchant events in journal order: [type, reserved_minor, the keys previous_attributes names]. */
function withdrawalEvents(scene: TwoLegScene, id: string): [string, number, string[]][] {
  const rows = scene.s.running.store.db.prepare('SELECT type, body FROM outbox WHERE stream = ? ORDER BY rowid').all(id) as { type: string; body: string }[];
  return rows.map((r) => {
    const data = JSON.parse(r.body).data;
    return [r.type, data.object.reserved_minor, Object.keys(data.previous_attributes ?? {})];
  });
}

test('2 legs expired unpaid, leg 1 paid late in two transfers while another payer holds all of its withdrawal: the leg waits holding nothing, then is owed more — neither changes what payee 1\'s merchant sees, so it is told nothing and the version stays; the capacity let go tops the leg up, told', async () => {
  const scene = await twoLegScene();
  try {
    const first = await leg1Transfer(scene, 20_000);
    const second = await leg1Transfer(scene, 10_000);
    assert.is((await scene.s.bo('POST', '/v1/bo/clock/advance', { seconds: 901 })).status, 200);
    const payee1 = async () => (await scene.s.call(scene.payer.live.api_key, 'GET', `/v1/pay/withdrawals/${scene.withdrawalIds[0]}`)).json;
    // Another payer's 300 THB order takes all of payee 1's 300 (oldest first), and does not pay.
    const other = await scene.s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 30_000, fill_preference: 'internal_only', sender: freshSender() }));
    assert.is(other.status, 201, other.text);
    assert.equal(other.json.legs.map((l: any) => [l.amount_minor, l.receiver.account_number_masked]), [[30_000, 'xxxxxx1111']]);
    const held = await payee1();
    assert.is(held.reserved_minor, 30_000);
    const toldBefore = withdrawalEvents(scene, scene.withdrawalIds[0]!).length;

    // Leg 1's 200 THB: no capacity, so its leg waits on the withdrawal holding nothing.
    assertReceipt(await uploadFile(scene.deposit.slip_upload, first));
    assert.is(await scene.s.running.slipWorker.drain(), 1);
    assert.equal((await depositOf(scene)).legs.map((l: any) => l.leg_status), ['complete', 'pending']);
    assert.equal(await payee1(), held, 'payee 1\'s withdrawal shows the same, at the same version');
    // Its second transfer: review, the leg owed 300 THB and still holding nothing.
    assertReceipt(await uploadFile(scene.deposit.slip_upload, second));
    assert.is(await scene.s.running.slipWorker.drain(), 1);
    assert.is((await depositOf(scene)).status, 'under_review');
    assert.equal(await payee1(), held, 'still the same, at the same version');
    assert.equal(withdrawalEvents(scene, scene.withdrawalIds[0]!).slice(toldBefore), [], 'and its merchant is told nothing (no withdrawal.matched whose previous_attributes name only the version)');

    // The other payer's order expires unpaid: what it held goes to leg 1's 300 THB, each change told at its version.
    assert.is((await scene.s.bo('POST', '/v1/bo/clock/advance', { seconds: 901 })).status, 200);
    const toppedUp = await payee1();
    assert.equal([toppedUp.reserved_minor, toppedUp.version], [30_000, held.version + 2]);
    assert.equal(withdrawalEvents(scene, scene.withdrawalIds[0]!).slice(toldBefore), [['withdrawal.match_released', 0, ['reserved_minor', 'version']], ['withdrawal.matched', 30_000, ['reserved_minor', 'version']]]);
  } finally {
    await scene.s.stop();
  }
});

interface Payee { readonly keys: MerchantKeys; readonly withdrawalId: string }

/**
 * Two payees of one white label, each a merchant with a 100 THB withdrawal into its own
 * account, and a shop whose 200 THB order is split over both; the order expires unpaid and
 * its payer's slip then shows the whole 200 THB sent, in time, to leg 1's account: a late
 * slip that goes to review (SETTLE_CONFLICT) with leg 1's payee surely holding the money.
 */
async function lateReviewScene() {
  const s = await TestServer.start({}, undefined, { slipWorker: 'manual' });
  try {
    const first = await s.onboard('Payee 1');
    const payees: Payee[] = [];
    for (const [i, keys] of [first, await s.onboard('Payee 2', first.whiteLabelId)].entries()) {
      await s.fund(keys.id, 1_000_000);
      const w = await s.call(keys.live.api_key, 'POST', '/v1/pay/withdrawals', {
        amount_minor: 10_000, currency: 'THB', merchant_reference: `w-${randomUUID()}`, end_user_ref: `payee-${i + 1}`, beneficiary_id: await s.beneficiary(keys.id, true, legAccounts[i]),
      });
      assert.is(w.status, 201, w.text);
      payees.push({ keys, withdrawalId: w.json.id });
    }
    const shop = await s.onboard('Shop', first.whiteLabelId);
    const r = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 20_000, fill_preference: 'internal_only' }));
    assert.is(r.status, 201, r.text);
    const deposit = r.json;
    assert.equal(deposit.legs.map((l: any) => [l.amount_minor, l.receiver.account_number_masked]), [[10_000, 'xxxxxx1111'], [10_000, 'xxxxxx2222']]);

    const withdrawal = async (p: Payee) => {
      const w = await s.call(p.keys.live.api_key, 'GET', `/v1/pay/withdrawals/${p.withdrawalId}`);
      assert.is(w.status, 200, w.text);
      return w.json;
    };
    const reserved = async () => [(await withdrawal(payees[0]!)).reserved_minor, (await withdrawal(payees[1]!)).reserved_minor];
    const depositNow = async () => (await s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${deposit.id}`)).json;
    /** A new payer's 100 THB order: where the matcher sends it. */
    const newPayer = async () => {
      const d = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 10_000, fill_preference: 'internal_only', sender: freshSender() }));
      assert.is(d.status, 201, d.text);
      return d.json.legs.map((l: any) => l.receiver.account_number_masked);
    };

    const image = pngSlip();
    await registerTransfer(s, transferFor({ s, payer: first, shop, withdrawalIds: payees.map((p) => p.withdrawalId) }, { amount_minor: 20_000 }, {
      image_sha256: sha256Hex(image), receiver: { bank_code: '004', account_number: legAccounts[0], account_name: 'สมหญิง รักดี' },
    }));
    const moved = await s.bo('POST', '/v1/bo/clock/advance', { seconds: 901 });
    assert.is(moved.status, 200, moved.text);
    assert.equal([(await depositNow()).status, await reserved()], ['expired', [0, 0]], 'expiry released both legs');
    const feed = async () => (await s.call(payees[0]!.keys.live.api_key, 'GET', '/v1/pay/events?since_sequence=0&limit=100')).json.data as any[];
    const seenBefore = Math.max(...(await feed()).map((e) => e.sequence));

    assertReceipt(await uploadFile(deposit.slip_upload, image));
    assert.is(await s.running.slipWorker.drain(), 1);
    const review = await depositNow();
    assert.equal([review.status, review.slip.is_late, review.review.reasons.map((x: any) => x.code)], ['under_review', true, ['SETTLE_CONFLICT']]);
    // The evidence puts the whole 20000 on leg 1, whose share is 10000: an approval at it draws the rest on suspense, so two reviewers, said before the first.
    assert.equal([review.review.four_eyes_required, review.review.estimated_resolution_bucket], [true, 'under_1h']);
    assert.equal(await reserved(), [10_000, 0], 'leg 1\'s payee has the money: its withdrawal is held for it again, as a live order\'s review holds its legs');
    const told = (await feed()).filter((e) => e.sequence > seenBefore).map((e) => [e.type, e.data.object.id, e.data.object.reserved_minor]);
    assert.equal(told, [['withdrawal.matched', payees[0]!.withdrawalId, 10_000]], 'payee 1\'s merchant is told its withdrawal is matched again');
    // Oldest first, payee 1 would take it were its withdrawal free.
    assert.equal(await newPayer(), ['xxxxxx2222'], 'a new payer is sent to payee 2 only, not to pay payee 1 again');
    assert.equal(await reserved(), [10_000, 10_000]);
    return { s, shop, payees, deposit: review, withdrawal, reserved, depositNow, newPayer };
  } catch (failed) {
    await s.stop(); // the test has no server to stop in its finally yet
    throw failed;
  }
}

test('a late slip sends an expired 2-leg order\'s whole 200 THB to leg 1 (review, SETTLE_CONFLICT): payee 1\'s withdrawal is held for it, no new payer is sent there; declined, the hold is let go and payee 1 is matchable again', async () => {
  const scene = await lateReviewScene();
  try {
    const declined = await scene.s.bo('POST', `/v1/bo/deposits/${scene.deposit.id}/decline`, { note: 'the payer could not show the transfer was his' }, { sub: 'emp_r1', roles: ['reviewer'] });
    assert.is(declined.status, 200, declined.text);
    assert.is(declined.json.status, 'rejected');
    assert.equal(await scene.reserved(), [0, 10_000], 'payee 1\'s hold is released; payee 2 keeps the new payer\'s');
    assert.equal(await scene.newPayer(), ['xxxxxx1111'], 'payee 1\'s withdrawal takes a new payer again');
    assert.equal(await scene.reserved(), [10_000, 10_000]);
  } finally {
    await scene.s.stop();
  }
});

test('the same late review approved by two reviewers with legs[]: settled, payee 1\'s withdrawal filled from its hold, and the three merchants\' balances add up', async () => {
  const scene = await lateReviewScene();
  try {
    const legs = [{ leg_ref: scene.deposit.legs[0].leg_ref, amount_minor: 20_000 }, { leg_ref: scene.deposit.legs[1].leg_ref, amount_minor: 0 }];
    const note = 'the payer sent the whole order to leg 1 by mistake';
    const approvals = [];
    for (const sub of ['emp_r1', 'emp_r2']) {
      const r = await scene.s.bo('POST', `/v1/bo/deposits/${scene.deposit.id}/approve`, { note, legs }, { sub, roles: ['reviewer'] });
      assert.is(r.status, 200, r.text);
      approvals.push(r.json.status);
    }
    assert.equal(approvals, ['under_review', 'settled'], 'the second reviewer settles it');
    const settled = await scene.depositNow();
    assert.equal([settled.status, settled.transferred_amount_minor, settled.amount_received_minor, settled.partial], ['settled', 20_000, 20_000, false]);
    const [w1, w2] = [await scene.withdrawal(scene.payees[0]!), await scene.withdrawal(scene.payees[1]!)];
    assert.equal([w1.status, w1.filled_minor, w1.reserved_minor, w1.remaining_minor], ['settled', 10_000, 0, 0], 'payee 1\'s withdrawal filled from its hold');
    assert.equal([w2.status, w2.filled_minor, w2.reserved_minor], ['open', 0, 10_000], 'payee 2 still waits for the new payer');

    // Each balance is its own: payee 1 paid out its withdrawal and fee, payee 2's are still
    // locked, the shop holds what it was credited. Together they gained what the payer sent
    // beyond the 100 THB payee 1's withdrawal took (the rest of leg 1's transfer, which its
    // payee holds, comes from suspense), less the fees.
    const balances = [];
    for (const keys of [scene.payees[0]!.keys, scene.payees[1]!.keys, scene.shop]) {
      const b = (await scene.s.call(keys.live.api_key, 'GET', '/v1/pay/balance')).json;
      balances.push([b.available_minor, b.pending_clearing_minor, b.reserved_minor]);
    }
    assert.equal(balances, [
      [1_000_000 - w1.total_locked_minor, 0, 0],
      [1_000_000 - w2.total_locked_minor, 0, w2.total_locked_minor],
      [0, settled.credited_amount_minor, 0],
    ]);
    assert.is(settled.credited_amount_minor, 20_000 - settled.fee_total_minor);
    const total = balances.flat().reduce((a, b) => a + b, 0);
    assert.is(total, 2_000_000 + (settled.amount_received_minor - w1.filled_minor) - w1.fee_total_minor - settled.fee_total_minor);
  } finally {
    await scene.s.stop();
  }
});

test('2 legs settled by two reviewers who credited leg 2 without its slip: leg 2\'s slip after settlement is that money (no claim); a later transfer to it is an overpayment', async () => {
  const scene = await twoLegScene();
  try {
    // Leg 1 paid from another account (held for review); leg 2 paid too, its slip not sent yet.
    const leg1 = legSlip(scene, 0);
    const leg2 = legSlip(scene, 1);
    await registerTransfer(scene.s, { ...leg1.transfer, sender: { bank_code: '014', account_number: '9876543210', account_name_th: 'สมศักดิ์ มีเงิน' } });
    await registerTransfer(scene.s, leg2.transfer);
    assertReceipt(await uploadFile(scene.deposit.slip_upload, leg1.image));
    assert.is(await scene.s.running.slipWorker.drain(), 1);
    assert.is((await depositOf(scene)).status, 'under_review');
    const legs = scene.deposit.legs.map((l: any) => ({ leg_ref: l.leg_ref, amount_minor: l.amount_minor }));
    const note = 'the payer showed both transfers on the banking app';
    for (const sub of ['emp_r1', 'emp_r2']) {
      const r = await scene.s.bo('POST', `/v1/bo/deposits/${scene.deposit.id}/approve`, { note, legs }, { sub, roles: ['reviewer'] });
      assert.is(r.status, 200, r.text);
    }
    const settled = await depositOf(scene);
    assert.equal([settled.status, settled.amount_received_minor], ['settled', 50_000]);
    assert.equal(await filledMinor(scene), [30_000, 20_000]);

    assertReceipt(await uploadFile(scene.deposit.slip_upload, leg2.image));
    assert.is(await scene.s.running.slipWorker.drain(), 1);
    const after = await depositOf(scene);
    assert.equal([after.status, after.overpayment ?? null], ['settled', null], 'the money the reviewers credited, not a refund owed');
    const claims = await scene.s.bo('GET', '/v1/bo/claims?status=open');
    assert.not.ok(claims.json.data.some((c: any) => c.deposit_id === scene.deposit.id), JSON.stringify(claims.json.data));
    const view = (await scene.s.bo('GET', `/v1/bo/deposits/${scene.deposit.id}`)).json;
    const matched = view.timeline.find((step: any) => step.detail?.outcome === 'review_credit_evidenced');
    assert.equal([matched?.detail.leg_ref, matched?.detail.trans_ref, matched?.detail.review_credited_minor], [legs[1].leg_ref, leg2.transfer.trans_ref, 20_000]);

    // Another transfer to leg 2, made after the review: new money, an overpayment claim.
    const again = legSlip(scene, 1);
    await registerTransfer(scene.s, again.transfer);
    assertReceipt(await uploadFile(scene.deposit.slip_upload, again.image));
    assert.is(await scene.s.running.slipWorker.drain(), 1);
    const later = await depositOf(scene);
    assert.equal([later.overpayment?.cause, later.overpayment?.amount_minor], ['additional_transfer', 20_000]);
  } finally {
    await scene.s.stop();
  }
});

test('a slip queued behind a review is verified as soon as a reviewer approves, by the running worker: a second transfer opens its claim without a restart', async () => {
  const scene = await slipScene({}, { slipWorker: 'background' });
  try {
    const d = await matchedDeposit(scene);
    const held = pngSlip();
    await registerTransfer(scene.s, transferFor(scene, d, { image_sha256: sha256Hex(held), sender: { bank_code: '014', account_number: '9876543210', account_name_th: 'สมศักดิ์ มีเงิน' } }));
    assertReceipt(await uploadFile(d.slip_upload, held));
    await eventually(async () => (await getDeposit(scene, d.id)).status === 'under_review');
    // The payer sends a second, real transfer while the first is reviewed: queued behind it.
    const second = pngSlip();
    await registerTransfer(scene.s, transferFor(scene, { amount_minor: 7_000 }, { image_sha256: sha256Hex(second) }));
    assertReceipt(await uploadFile(d.slip_upload, second));
    const approved = await scene.s.bo('POST', `/v1/bo/deposits/${d.id}/approve`, { note: 'the payer changed her name at the bank last month' }, { roles: ['reviewer'] });
    assert.is(approved.status, 200, approved.text);
    await eventually(async () => (await getDeposit(scene, d.id)).overpayment?.amount_minor === 7_000);
    const after = await getDeposit(scene, d.id);
    assert.equal([after.status, after.overpayment.cause], ['settled', 'additional_transfer']);
  } finally {
    await scene.s.stop();
  }
});

/** Polls `check` every 50 ms for up to 5 s (a background worker's pace). */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  const until = performance.now() + 5000;
  while (!(await check())) {
    if (performance.now() > until) throw new Error('not within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a queued slip is durable: after a restart before the worker runs, both legs are still verified in order', async () => {
  const scene = await twoLegScene();
  const legs = [legSlip(scene, 0), legSlip(scene, 1)];
  assertReceipt(await uploadFile(scene.deposit.slip_upload, legs[0]!.image));
  assertReceipt(await uploadFile(scene.deposit.slip_upload, legs[1]!.image));
  await scene.s.stop(false);
  const s = await TestServer.start({}, scene.s.dataDir, { slipWorker: 'manual' });
  const restarted: TwoLegScene = { ...scene, s };
  try {
    // The in-process bank simulator keeps its transfers in memory: tell it again.
    for (const { transfer } of legs) await registerTransfer(s, transfer);
    assert.is(await s.running.slipWorker.drain(), 2);
    const after = await depositOf(restarted);
    assert.is(after.status, 'settled');
    assert.equal(after.legs.map((l: any) => l.leg_status), ['complete', 'complete']);
  } finally {
    await s.stop();
  }
});

test('a two-leg order takes 4 slips back to back (3, and one more for its second leg); the 5th is refused 422 validation_error upload_limit_reached and leaves nothing behind', async () => {
  const scene = await twoLegScene();
  try {
    const legs = [legSlip(scene, 0), legSlip(scene, 1)];
    for (const { transfer } of legs) await registerTransfer(scene.s, transfer);
    // Leg 1, leg 2, then leg 1's slip again, twice (a payer who was not sure it went through).
    const receipts = [];
    for (const image of [legs[0]!.image, legs[1]!.image, legs[0]!.image, legs[0]!.image]) receipts.push(assertReceipt(await uploadFile(scene.deposit.slip_upload, image)));
    assert.is((await depositOf(scene)).status, 'slip_processing');
    assert.is(new Set(receipts.map((r) => r.receipt_id)).size, 4);
    const slipsDir = join(scene.s.dataDir, 'slips');
    const stored = readdirSync(slipsDir).sort();

    const fifth = await uploadFile(scene.deposit.slip_upload, pngSlip());
    const e = expectError(fifth, 'validation_error');
    assert.equal(e.details.fields, [{ path: 'file', reason: 'upload_limit_reached' }]);
    assert.equal(readdirSync(slipsDir).sort(), stored, 'a refused upload stores nothing');

    assert.is(await scene.s.running.slipWorker.drain(), 4);
    const after = await depositOf(scene);
    assert.is(after.status, 'settled');
    assert.equal(after.legs.map((l: any) => l.leg_status), ['complete', 'complete']);
    assert.is(after.amount_received_minor, 50_000);
    assert.is(after.overpayment, null, 'leg 1\'s transfer shown again is not new money');
    assert.equal(await filledMinor(scene), [30_000, 20_000]);
  } finally {
    await scene.s.stop();
  }
});

test.run();
