// Slip verification end to end, over real HTTP against a real server: transfers registered
// at the mounted bank simulator (which prints them masked, as Thai slips do), slips
// uploaded with the order capability, the worker drained, the deposit read back. The
// contract's outcomes after the 202: exact → settled and the withdrawing merchant's order
// filled; short-pay and same-slip overpayment → settled; a sender mismatch, a duplicate
// trans_ref and a slip without image → under_review with the right reason; an unreadable
// image → deposit.slip_rejected with attempts_left; a late slip after expiry or after
// cancel; 410 once the late window has closed; the worker in the background; the mounted
// simulator's refusals in the API's error object.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  assertReceipt, getDeposit, matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, uploadJson, withdrawalsTo, type SlipScene,
} from '../support/slip-harness.ts';
import { expectError } from '../support/api-checks.ts';
import { depositBody, freshSender } from '../support/server-harness.ts';

let scene: SlipScene;

test.before(async () => { scene = await slipScene(); });
test.after(async () => { await scene.s.stop(); });

/** Registers the transfer a slip image shows, uploads the image, verifies; returns the deposit after. */
async function payWith(deposit: any, overrides: Parameters<typeof transferFor>[2] = {}, image = pngSlip()): Promise<any> {
  await registerTransfer(scene.s, transferFor(scene, deposit, { image_sha256: sha256Hex(image), ...overrides }));
  assertReceipt(await uploadFile(deposit.slip_upload, image));
  assert.is((await getDeposit(scene, deposit.id)).status, 'slip_processing', 'verification is asynchronous: the 202 changes nothing but the receipt');
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  return getDeposit(scene, deposit.id);
}

/** What the payer's withdrawals have been filled with, in total. */
async function filledMinor(): Promise<{ filled: number; fills: number }> {
  let filled = 0, fills = 0;
  for (const id of scene.withdrawalIds) {
    const r = await scene.s.call(scene.payer.live.api_key, 'GET', `/v1/pay/withdrawals/${id}`);
    assert.is(r.status, 200, r.text);
    filled += r.json.filled_minor;
    fills += r.json.fills.length;
  }
  return { filled, fills };
}

test('an exact transfer settles the deposit and fills the withdrawing merchant\'s order', async () => {
  const before = await filledMinor();
  const deposit = await matchedDeposit(scene);
  const after = await payWith(deposit);
  assert.is(after.status, 'settled');
  assert.is(after.amount_received_minor, 50_000);
  assert.is(after.transferred_amount_minor, 50_000);
  assert.is(after.partial, false);
  assert.is(after.settled_via, 'auto');
  assert.equal(after.verification, { amount_exact: true, within_time_window: true, sender_bank_match: true, sender_account_match: true, sender_name_match: true, receiver_match: true });
  assert.is(after.slip.is_late, false);
  const w = await filledMinor();
  assert.is(w.filled, before.filled + 50_000);
  assert.is(w.fills, before.fills + 1);
});

test('a short-pay settles automatically at A = V < X with partial true', async () => {
  const deposit = await matchedDeposit(scene, { amount_minor: 30_000 });
  const after = await payWith(deposit, { amount_minor: 25_000 });
  assert.is(after.status, 'settled');
  assert.is(after.ordered_amount_minor, 30_000);
  assert.is(after.transferred_amount_minor, 25_000);
  assert.is(after.amount_received_minor, 25_000);
  assert.is(after.partial, true);
  assert.is(after.settled_via, 'auto');
  assert.is(after.overpayment, null);
});

test('a same-slip overpayment settles at A = X with the excess flagged, never credited', async () => {
  const deposit = await matchedDeposit(scene, { amount_minor: 40_000 });
  const after = await payWith(deposit, { amount_minor: 45_000 });
  assert.is(after.status, 'settled');
  assert.is(after.amount_received_minor, 40_000);
  assert.is(after.transferred_amount_minor, 45_000);
  assert.is(after.partial, false);
  assert.is(after.overpayment.cause, 'same_transfer_excess');
  assert.is(after.overpayment.amount_minor, 5_000);
  assert.is(after.overpayment.status, 'open');
});

test('a transfer from a different sender name goes to review with SENDER_NAME_MISMATCH', async () => {
  const deposit = await matchedDeposit(scene);
  const after = await payWith(deposit, { sender: { bank_code: '014', account_number: '9876543210', account_name_th: 'สมศักดิ์ มีเงิน' } });
  assert.is(after.status, 'under_review');
  assert.equal(after.review.reasons.map((r: any) => r.code), ['SENDER_NAME_MISMATCH']);
  assert.is(after.verification.sender_name_match, false);
  assert.is(after.verification.sender_account_match, true, 'the masked account number still matches');
});

test('an unreadable slip is rejected with attempts_left and the order waits for a new image', async () => {
  const deposit = await matchedDeposit(scene);
  assertReceipt(await uploadFile(deposit.slip_upload, pngSlip()));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  const rejected = await getDeposit(scene, deposit.id);
  assert.is(rejected.status, 'awaiting_payment');
  assert.is(rejected.rejection.code, 'SLIP_UNREADABLE');
  assert.is(rejected.rejection.retryable, true);
  assert.is(rejected.rejection.attempts_left, 2);
  const event = scene.s.running.store.db.prepare("SELECT body FROM outbox WHERE type = 'deposit.slip_rejected' AND stream = ?").get(deposit.id) as { body: string };
  assert.is(JSON.parse(event.body).data.object.rejection.attempts_left, 2);
  // A second, readable image of the same order settles it.
  const settled = await payWith(deposit);
  assert.is(settled.status, 'settled');
});

test('three unreadable slips use up the uploads: the order waits for expires_at with attempts_left 0 (the contract decides by time), and a fourth upload is refused', async () => {
  const deposit = await matchedDeposit(scene, { amount_minor: 50_400 });
  for (let i = 0; i < 3; i++) {
    assertReceipt(await uploadFile(deposit.slip_upload, pngSlip()));
    assert.is(await scene.s.running.slipWorker.drain(), 1);
  }
  const waiting = await getDeposit(scene, deposit.id);
  assert.equal([waiting.status, waiting.is_terminal, waiting.rejection.attempts_left, waiting.rejection.retryable], ['awaiting_payment', false, 0, false], 'no upload can come: not retryable');
  const refused = expectError(await uploadFile(deposit.slip_upload, pngSlip()), 'validation_error');
  assert.is(refused.details.fields[0].reason, 'upload_limit_reached');
  assert.ok(String(refused.details.claim_url).includes(deposit.id), 'where a payer who did pay goes instead');
  // No fresh token either: every upload with it could only be refused.
  const token = expectError(await scene.s.call(scene.shop.live.api_key, 'POST', `/v1/pay/deposits/${deposit.id}/slip-token`, {}), 'validation_error');
  assert.equal(token.details.fields, [{ path: 'deposit', reason: 'upload_limit_reached' }]);
  assert.is(token.details.claim_url, refused.details.claim_url);
  const events = scene.s.running.store.db.prepare("SELECT type FROM outbox WHERE stream = ? ORDER BY sequence").pluck(true).all(deposit.id) as string[];
  assert.not.ok(events.includes('deposit.expired'), 'not closed before its time');
});

test('a slip recognised by its mini-QR payload settles; a payload of no known transfer is SLIP_INVALID', async () => {
  const deposit = await matchedDeposit(scene);
  const payload = `0041000600000101030140225${Date.now()}`;
  await registerTransfer(scene.s, transferFor(scene, deposit, { payload }));
  assertReceipt(await uploadFile(deposit.slip_upload, pngSlip(), { payload }));
  await scene.s.running.slipWorker.drain();
  assert.is((await getDeposit(scene, deposit.id)).status, 'settled');

  const other = await matchedDeposit(scene);
  assertReceipt(await uploadFile(other.slip_upload, pngSlip(), { payload: 'no-such-transfer' }));
  await scene.s.running.slipWorker.drain();
  const invalid = await getDeposit(scene, other.id);
  assert.is(invalid.status, 'under_review');
  assert.equal(invalid.review.reasons.map((r: any) => r.code), ['SLIP_INVALID']);
});

test('the same transfer shown for another deposit goes to review with DUPLICATE_SLIP', async () => {
  const first = await matchedDeposit(scene);
  const image = pngSlip();
  assert.is((await payWith(first, {}, image)).status, 'settled');
  const second = await matchedDeposit(scene);
  assertReceipt(await uploadFile(second.slip_upload, image));
  await scene.s.running.slipWorker.drain();
  const after = await getDeposit(scene, second.id);
  assert.is(after.status, 'under_review');
  assert.is(after.review.reasons[0].code, 'DUPLICATE_SLIP');
});

test('a second transfer shown after settlement is flagged as an additional overpayment, verified once', async () => {
  const deposit = await matchedDeposit(scene);
  assert.is((await payWith(deposit)).status, 'settled');
  const extra = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, deposit, { amount_minor: 7_000, image_sha256: sha256Hex(extra) }));
  assertReceipt(await uploadFile(deposit.slip_upload, extra));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  const after = await getDeposit(scene, deposit.id);
  assert.is(after.status, 'settled');
  assert.is(after.amount_received_minor, 50_000, 'A of the original settlement never changes');
  assert.is(after.overpayment.cause, 'additional_transfer');
  assert.is(after.overpayment.amount_minor, 7_000);
  assert.is(await scene.s.running.slipWorker.drain(), 0, 'nothing left to verify');

  // A third transfer: the order's overpayment is the new claim's; its deposit.overpaid says
  // so, with the first claim's in previous_attributes.
  const third = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, deposit, { amount_minor: 3_000, image_sha256: sha256Hex(third) }));
  assertReceipt(await uploadFile(deposit.slip_upload, third));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  const later = await getDeposit(scene, deposit.id);
  assert.equal([later.overpayment.cause, later.overpayment.amount_minor], ['additional_transfer', 3_000]);
  assert.is.not(later.overpayment.claim_id, after.overpayment.claim_id, 'a claim of its own');
  const feed = await scene.s.call(scene.shop.live.api_key, 'GET', '/v1/pay/events?since_sequence=0&limit=100');
  const overpaid = feed.json.data.filter((e: any) => e.type === 'deposit.overpaid' && e.data.object.id === deposit.id);
  assert.equal(overpaid.map((e: any) => e.data.object.overpayment.claim_id), [after.overpayment.claim_id, later.overpayment.claim_id], feed.text.slice(0, 300));
  assert.is(overpaid[1].data.previous_attributes.overpayment.claim_id, after.overpayment.claim_id);
  const claims = await scene.s.bo('GET', `/v1/bo/claims?deposit_id=${deposit.id}`);
  assert.equal(claims.json.data.map((c: any) => c.amount_minor).sort(), [3_000, 7_000], claims.text);
});

test('a transfer after settlement is counted once: the same transfer again (other image bytes, the same mini-QR) opens no second claim, and on another order it is a DUPLICATE_SLIP, not a settlement', async () => {
  const deposit = await matchedDeposit(scene);
  assert.is((await payWith(deposit)).status, 'settled');
  const qr = `QR-${Date.now()}-counted`;
  await registerTransfer(scene.s, { ...transferFor(scene, deposit, { amount_minor: 7_000 }), payload: qr });
  assertReceipt(await uploadFile(deposit.slip_upload, pngSlip(), { payload: qr }));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  assertReceipt(await uploadFile(deposit.slip_upload, pngSlip(), { payload: qr })); // a screenshot of the same transfer
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  const claims = await scene.s.bo('GET', `/v1/bo/claims?deposit_id=${deposit.id}`);
  assert.equal(claims.json.data.map((c: any) => c.amount_minor), [7_000], 'one transfer, one claim');
  // Another order to the same payee: that transfer is this one's already.
  const other = await matchedDeposit(scene, { amount_minor: 7_000 });
  assertReceipt(await uploadFile(other.slip_upload, pngSlip(), { payload: qr }));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  const second = await getDeposit(scene, other.id);
  assert.is(second.status, 'under_review', 'never settled on a transfer counted elsewhere');
  assert.ok(second.review.reasons.some((r: any) => r.code === 'DUPLICATE_SLIP'), JSON.stringify(second.review));
});

test('a transfer after settlement to an account the order never named opens no claim', async () => {
  const deposit = await matchedDeposit(scene);
  assert.is((await payWith(deposit)).status, 'settled');
  const elsewhere = pngSlip();
  const transfer = transferFor(scene, deposit, { amount_minor: 7_000, image_sha256: sha256Hex(elsewhere) });
  await registerTransfer(scene.s, { ...transfer, receiver: { ...transfer.receiver, account_number: '9998887776' } });
  assertReceipt(await uploadFile(deposit.slip_upload, elsewhere));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  const after = await getDeposit(scene, deposit.id);
  assert.is(after.status, 'settled');
  assert.is(after.overpayment ?? null, null, 'no claim chases the order\'s payees for money they never got');
  assert.is(await scene.s.running.slipWorker.drain(), 0, 'nothing left to verify');
});

test('a slip without image (trans_ref only) always goes to review with NO_SLIP_IMAGE', async () => {
  const deposit = await matchedDeposit(scene);
  const transfer = transferFor(scene, deposit);
  await registerTransfer(scene.s, transfer);
  assertReceipt(await uploadJson(deposit.slip_upload, { trans_ref: transfer.trans_ref, sending_bank_code: '014', occurred_at: transfer.occurred_at }));
  await scene.s.running.slipWorker.drain();
  const after = await getDeposit(scene, deposit.id);
  assert.is(after.status, 'under_review');
  assert.equal(after.review.reasons.map((r: any) => r.code), ['NO_SLIP_IMAGE']);
  assert.is(after.review.four_eyes_required, true, 'two reviewers, said before the first approves');
  const image = await scene.s.call(scene.shop.live.api_key, 'GET', `/v1/pay/deposits/${deposit.id}/slip`);
  expectError(image, 'resource_not_found');
  // No bank showed an amount: one reviewer's figure is recorded, a second reviewer's word settles it.
  const note = 'the payee confirmed the transfer on their statement';
  const first = await scene.s.bo('POST', `/v1/bo/deposits/${deposit.id}/approve`, { note, amount_minor: deposit.amount_minor }, { sub: 'emp_one', roles: ['reviewer'] });
  assert.is(first.status, 200, first.text);
  assert.equal([first.json.status, first.json.review.four_eyes_required], ['under_review', true]);
  const second = await scene.s.bo('POST', `/v1/bo/deposits/${deposit.id}/approve`, { note }, { sub: 'emp_two', roles: ['reviewer'] });
  assert.is(second.status, 200, second.text);
  assert.is((await getDeposit(scene, deposit.id)).status, 'settled');
});

test('a slip without image naming a transfer another deposit was credited for is a DUPLICATE_SLIP too: two reviewers, not one', async () => {
  const first = await matchedDeposit(scene);
  const transfer = transferFor(scene, first);
  const image = pngSlip();
  await registerTransfer(scene.s, { ...transfer, image_sha256: sha256Hex(image) });
  assertReceipt(await uploadFile(first.slip_upload, image));
  await scene.s.running.slipWorker.drain();
  assert.is((await getDeposit(scene, first.id)).status, 'settled');
  const second = await matchedDeposit(scene);
  // Typed with spaces around it and in lower case: still that transfer.
  assertReceipt(await uploadJson(second.slip_upload, { trans_ref: ` ${transfer.trans_ref.toLowerCase()} `, sending_bank_code: '014', occurred_at: transfer.occurred_at }));
  await scene.s.running.slipWorker.drain();
  const after = await getDeposit(scene, second.id);
  assert.is(after.status, 'under_review');
  assert.equal(after.review.reasons.map((r: any) => r.code).sort(), ['DUPLICATE_SLIP', 'NO_SLIP_IMAGE']);
  assert.is(after.review.four_eyes_required, true);
  const note = 'the payer sent a statement line for this transfer';
  const one = await scene.s.bo('POST', `/v1/bo/deposits/${second.id}/approve`, { note, amount_minor: second.amount_minor }, { sub: 'emp_first', roles: ['reviewer'] });
  assert.is(one.status, 200, one.text);
  assert.is((await getDeposit(scene, second.id)).status, 'under_review', 'one reviewer does not credit one transfer twice');
});

test('a late slip after expiry is taken (is_late) and a transfer made after the window goes to review with LATE_SLIP', async () => {
  const deposit = await matchedDeposit(scene);
  await scene.s.running.services.write.advanceClock!(30 * 60_000); // past expiry and its 5-minute tolerance
  const expired = await getDeposit(scene, deposit.id);
  assert.is(expired.status, 'expired');
  assert.is(expired.is_terminal, false);
  const after = await payWith(deposit, { occurred_at: new Date(scene.s.clock.now()).toISOString() });
  assert.is(after.slip.is_late, true);
  assert.is(after.status, 'under_review');
  assert.equal(after.review.reasons.map((r: any) => r.code), ['LATE_SLIP']);
});

/**
 * A multi-leg order of 20,000 (two withdrawals of 10,000 in a white label of its own) that
 * expired unpaid, and the slip of its first leg, paid while it was open, sent late.
 */
async function expiredTwoLegs(tag: string): Promise<{ deposit: any; withdrawals: string[]; payer: any; shop: any; paidAt: string; accounts: string[] }> {
  const payer = await scene.s.onboard(`Payer ${tag}`);
  const shop = await scene.s.onboard(`Shop ${tag}`, payer.whiteLabelId);
  await scene.s.fund(payer.id, 1_000_000);
  const accounts = { a: ['3131313131', '3232323232'], b: ['5151515151', '5252525252'], c: ['5353535353', '5454545454'] }[tag]!;
  const withdrawals = await withdrawalsTo(scene.s, payer, accounts, 10_000, 'late');
  const created = await scene.s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 20_000, fill_preference: 'internal_only' }));
  assert.is(created.status, 201, created.text);
  const deposit = created.json;
  assert.equal(deposit.legs.map((l: any) => l.amount_minor), [10_000, 10_000]);
  const paidAt = new Date(scene.s.clock.now()).toISOString();
  await scene.s.running.services.write.advanceClock!(16 * 60_000);
  assert.is((await getDeposit(scene, deposit.id, shop.live.api_key)).status, 'expired');
  return { deposit, withdrawals, payer, shop, paidAt, accounts };
}

/** A leg's late slip: its transfer made while the order was open, to that leg's withdrawal's payee. */
async function lateLeg(o: Awaited<ReturnType<typeof expiredTwoLegs>>, leg: 0 | 1): Promise<any> {
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, { amount_minor: 10_000 }, {
    image_sha256: sha256Hex(image), occurred_at: o.paidAt, receiver: { bank_code: '004', account_number: o.accounts[leg]!, account_name: 'สมหญิง รักดี' },
  }));
  assertReceipt(await uploadFile(o.deposit.slip_upload, image));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  return getDeposit(scene, o.deposit.id, o.shop.live.api_key);
}

test('late slips of an expired multi-leg order: the first completes its leg and the order stays expired (never back to awaiting_payment); the second settles it in full', async () => {
  const o = await expiredTwoLegs('a');
  const first = await lateLeg(o, 0);
  assert.equal([first.status, first.is_terminal, first.legs.map((l: any) => l.leg_status)], ['expired', false, ['complete', 'pending']]);
  const second = await lateLeg(o, 1);
  assert.equal([second.status, second.partial, second.amount_received_minor], ['settled', false, 20_000], 'both legs paid on time: credited in full');
  for (const id of o.withdrawals) {
    const w = await scene.s.call(o.payer.live.api_key, 'GET', `/v1/pay/withdrawals/${id}`);
    assert.equal([w.json.status, w.json.filled_minor], ['settled', 10_000], 'each payee paid, each withdrawal filled');
  }
  const feed = await scene.s.call(o.shop.live.api_key, 'GET', '/v1/pay/events?limit=100');
  const types = feed.json.data.filter((e: any) => e.data.object.id === o.deposit.id).map((e: any) => `${e.type}:${e.data.object.status}`);
  assert.not.ok(types.slice(2).some((t: string) => t.endsWith(':awaiting_payment')), types.join(' '));
  assert.ok(types.includes('deposit.leg_updated:expired'), types.join(' '));
  assert.is(types.filter((t: string) => t.startsWith('deposit.expired')).length, 1, types.join(' '));
});

test('one leg of an expired multi-leg order paid late: the late window\'s close settles it as a short-pay, or sends it to review (SETTLE_CONFLICT) when its withdrawal was filled since', async () => {
  const o = await expiredTwoLegs('b');
  // Another order takes the first withdrawal and pays it in full.
  const otherPayer = freshSender();
  const other = (await scene.s.call(o.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 10_000, fill_preference: 'internal_only', sender: otherPayer }))).json;
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, { amount_minor: 10_000 }, {
    image_sha256: sha256Hex(image), sender: otherPayer, receiver: { bank_code: '004', account_number: o.accounts[0]!, account_name: 'สมหญิง รักดี' },
  }));
  assertReceipt(await uploadFile(other.slip_upload, image));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  assert.equal((await scene.s.call(o.payer.live.api_key, 'GET', `/v1/pay/withdrawals/${o.withdrawals[0]}`)).json.status, 'settled');
  const waiting = await lateLeg(o, 0);
  assert.equal([waiting.status, waiting.legs[0].leg_status], ['expired', 'complete']);
  const c = await expiredTwoLegs('c');
  assert.is((await lateLeg(c, 0)).status, 'expired');
  await scene.s.running.services.write.advanceClock!(24 * 3_600_000 + 1_000);
  const conflict = await getDeposit(scene, o.deposit.id, o.shop.live.api_key);
  assert.equal([conflict.status, conflict.review?.reasons.map((r: any) => r.code)], ['under_review', ['SETTLE_CONFLICT']], 'the money is not dropped');
  const short = await getDeposit(scene, c.deposit.id, c.shop.live.api_key);
  assert.equal([short.status, short.partial, short.amount_received_minor], ['settled', true, 10_000]);
  // The back office's amount verdict is the leg's check: its slip paid it exactly, though the order was paid short.
  const amount = (await scene.s.bo('GET', `/v1/bo/deposits/${c.deposit.id}`)).json.evidence.verdicts.find((v: any) => v.dimension === 'amount');
  assert.equal([amount.expected, amount.shown, amount.match], [10_000, 10_000, true]);
  assert.equal((await scene.s.call(c.payer.live.api_key, 'GET', `/v1/pay/withdrawals/${c.withdrawals[0]}`)).json.filled_minor, 10_000);
});

test('a slip for a canceled order is taken within the late window and always held for review (CANCELED_ORDER_SLIP)', async () => {
  const deposit = await matchedDeposit(scene);
  const canceled = await scene.s.call(scene.shop.live.api_key, 'POST', `/v1/pay/deposits/${deposit.id}/cancel`, {});
  assert.is(canceled.status, 200, canceled.text);
  const after = await payWith(deposit);
  assert.is(after.slip.is_late, true);
  assert.is(after.status, 'under_review');
  assert.is(after.review.reasons[0].code, 'CANCELED_ORDER_SLIP');
});

test('after the late-slip window: 410 late_slip_window_closed with deposit_id, late_slip_accepted_until and claim_url (the upload and a new slip-token alike)', async () => {
  // A settled order still takes a slip (a transfer after settlement): a new token is given,
  // lasting as the creation's did; once that has run out, a claim is where the payer goes.
  const settledPayer = freshSender();
  const settledOrder = await payWith(await matchedDeposit(scene, { sender: settledPayer, amount_minor: 41_000 }), { sender: settledPayer });
  assert.is(settledOrder.status, 'settled');
  const again = await scene.s.call(scene.shop.live.api_key, 'POST', `/v1/pay/deposits/${settledOrder.id}/slip-token`, {});
  assert.is(again.status, 200, again.text);
  const deposit = await matchedDeposit(scene);
  // Within the late window, a new token lasts until the window closes.
  await scene.s.running.services.write.advanceClock!(15 * 60_000 + 1_000);
  const expired = await getDeposit(scene, deposit.id);
  assert.equal([expired.status, expired.is_terminal], ['expired', false]);
  const late = await scene.s.call(scene.shop.live.api_key, 'POST', `/v1/pay/deposits/${deposit.id}/slip-token`, {});
  assert.is(late.status, 200, late.text);
  assert.is(late.json.expires_at, expired.late_slip_accepted_until);
  await scene.s.running.services.write.advanceClock!(24 * 3_600_000);
  const closed = await getDeposit(scene, deposit.id);
  assert.is(closed.status, 'expired');
  assert.is(closed.is_terminal, true);
  const r = await uploadFile(deposit.slip_upload, pngSlip());
  const e = expectError(r, 'late_slip_window_closed');
  assert.is(e.details.deposit_id, deposit.id);
  assert.is(e.details.late_slip_accepted_until, closed.late_slip_accepted_until);
  assert.match(e.details.claim_url, new RegExp(`^${scene.s.url}/.*${deposit.id}`));
  // No token born expired: the slip-token says what the upload would.
  const token = expectError(await scene.s.call(scene.shop.live.api_key, 'POST', `/v1/pay/deposits/${deposit.id}/slip-token`, {}), 'late_slip_window_closed');
  // The upload (the payer's device calls it) also says what the payer's screen shows; the merchant's slip-token does not.
  const { public_message_th: forPayer, ...uploadDetails } = e.details;
  assert.is(forPayer, 'เลยเวลารับสลิปของรายการนี้แล้ว กรุณาติดต่อร้านค้า');
  assert.equal(token.details, uploadDetails);
  const settledToken = expectError(await scene.s.call(scene.shop.live.api_key, 'POST', `/v1/pay/deposits/${settledOrder.id}/slip-token`, {}), 'operation_not_allowed');
  assert.equal([settledToken.details.status, String(settledToken.details.claim_url).includes(settledOrder.id)], ['settled', true]);
});

test('SATANG_CLAIM_URL points the 410\'s claim_url at the deployment\'s own claim page, the order\'s id in it', async () => {
  const own = await slipScene({ SATANG_CLAIM_URL: 'https://help.example/claims/new?deposit={deposit_id}' });
  try {
    const deposit = await matchedDeposit(own);
    await own.s.running.services.write.advanceClock!(15 * 60_000 + 24 * 3_600_000 + 1_000);
    const e = expectError(await uploadFile(deposit.slip_upload, pngSlip()), 'late_slip_window_closed');
    assert.is(e.details.claim_url, `https://help.example/claims/new?deposit=${deposit.id}`);
  } finally {
    await own.s.stop();
  }
});

test('the mounted simulator refuses as the API does: the contract\'s error object, field problems in details.fields, a transfer registered twice a 409', async () => {
  const post = async (path: string, body: string) => {
    const r = await fetch(`${scene.s.url}/v1/sim/bank${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    const text = await r.text();
    return { status: r.status, headers: r.headers, text, json: JSON.parse(text) };
  };
  const empty = expectError(await post('/transfers', '{}'), 'validation_error');
  assert.match(empty.request_id, /^req_/);
  assert.equal(empty.details.fields.map((f: any) => f.path), ['trans_ref', 'amount_minor', 'occurred_at', 'sender', 'receiver'], JSON.stringify(empty.details));
  expectError(await post('/verify', '{"image_sha256":"no"}'), 'validation_error');
  const deposit = await matchedDeposit(scene, { sender: freshSender() });
  const transfer = transferFor(scene, deposit, { image_sha256: sha256Hex(pngSlip()) });
  await registerTransfer(scene.s, transfer);
  const again = expectError(await post('/transfers', JSON.stringify(transfer)), 'operation_not_allowed');
  assert.is(again.details.reason, 'duplicate_trans_ref');
  assert.match(again.message, new RegExp(`${transfer.trans_ref} is already registered`));
});

test('by default the worker runs in the background: a slip is verified without drain()', async () => {
  const background = await slipScene({}, { slipWorker: 'background' });
  try {
    const deposit = await matchedDeposit(background);
    const image = pngSlip();
    await registerTransfer(background.s, transferFor(background, deposit, { image_sha256: sha256Hex(image) }));
    assertReceipt(await uploadFile(deposit.slip_upload, image));
    let status = '';
    for (let i = 0; i < 100 && status !== 'settled'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = (await getDeposit(background, deposit.id)).status;
    }
    assert.is(status, 'settled');
  } finally {
    await background.s.stop();
  }
});

test.run();
