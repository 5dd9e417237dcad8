// The back office's desk over real HTTP against a real server: the review queue (oldest
// first, reasons, age, estimated_resolution_bucket, filters, cursor paging), one deposit
// with the evidence side by side and ONE timeline in which every step carries the journal
// seq (and hash) it rode in on; four-eyes (one reviewer twice stays under_review, two
// reviewers settle; a settlement out of suspense asks for two); the approvals queue of live_p2p withdrawals with the same
// two-different-people rule; the dashboard's hourly series and review-age histogram over
// a business day driven hour by hour on the manual clock.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  assertReceipt, matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, withdrawalsTo, type SlipScene,
} from '../support/slip-harness.ts';
import { addEndpoint, advance, Receiver } from '../webhooks/support.ts';
import { durations, limits } from '../../core/limits.ts';
import { depositBody, sender } from '../support/server-harness.ts';
import { businessDayStart } from '../../server/routes/bo-reads.ts';
import { JournalThread, type BatchMessage } from '../../adapters/sqlite/journal-thread.ts';

let scene: SlipScene;
const note = 'checked the bank statement against the slip';
const otherName = { bank_code: '014', account_number: '9876543210', account_name_th: 'สมศักดิ์ มีเงิน' };

test.before(async () => { scene = await slipScene(); });
test.after(async () => { await Receiver.stopAll(); await scene.s.stop(); });

/** Pays one leg of `deposit` with a slip (overrides change what the bank saw) and verifies it. */
async function payLeg(deposit: any, leg: any, overrides: Record<string, unknown> = {}): Promise<void> {
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, { amount_minor: leg.amount_minor }, { image_sha256: sha256Hex(image), ...overrides }));
  assertReceipt(await uploadFile(deposit.slip_upload, image));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
}

async function underReview(amount = 50_000): Promise<any> {
  const d = await matchedDeposit(scene, { amount_minor: amount });
  await payLeg(d, d.legs[0], { sender: otherName });
  return d;
}

test('the review queue lists deposits under review oldest first, with reasons, age and estimate, and pages by cursor', async () => {
  const first = await underReview();
  await advance(scene.s, 60_000);
  const second = await underReview();
  await advance(scene.s, 60_000);
  const third = await underReview();
  const all = await scene.s.bo('GET', '/v1/bo/deposits?status=under_review', undefined, { roles: ['support'] });
  assert.is(all.status, 200, all.text);
  const ids = all.json.data.map((d: any) => d.id);
  assert.ok(ids.indexOf(first.id) < ids.indexOf(second.id) && ids.indexOf(second.id) < ids.indexOf(third.id), 'oldest first');
  const row = all.json.data.find((d: any) => d.id === first.id);
  assert.equal(row.review.reasons.map((r: any) => r.code), ['SENDER_NAME_MISMATCH']);
  assert.is(row.age_seconds, 120);
  assert.is(row.estimated_resolution_bucket, 'under_15m');
  assert.is(all.json.oldest_age_seconds >= 120, true);

  const page1 = await scene.s.bo('GET', '/v1/bo/deposits?status=under_review&limit=2', undefined, { roles: ['reviewer'] });
  assert.is(page1.json.data.length, 2);
  assert.is(page1.json.has_more, all.json.data.length > 2);
  const page2 = await scene.s.bo('GET', `/v1/bo/deposits?status=under_review&limit=2&cursor=${page1.json.next_cursor}`, undefined, { roles: ['reviewer'] });
  assert.equal([...page1.json.data, ...page2.json.data].map((d: any) => d.id), ids.slice(0, 4));
  const mismatch = await scene.s.bo('GET', `/v1/bo/deposits?status=under_review&livemode=false&cursor=${page1.json.next_cursor}`);
  assert.is(mismatch.status, 400, mismatch.text);
  assert.is(mismatch.json.error.code, 'cursor_filter_mismatch');
  // A cursor of another back-office list is a mismatch too, as on the merchant lists.
  const requestLogCursor = (await scene.s.bo('GET', '/v1/bo/logs?limit=1')).json.next_cursor;
  assert.type(requestLogCursor, 'string');
  const otherList = await scene.s.bo('GET', `/v1/bo/deposits?status=under_review&cursor=${requestLogCursor}`);
  assert.equal([otherList.status, otherList.json.error?.code], [400, 'cursor_filter_mismatch'], otherList.text);
  const forged = await scene.s.bo('GET', '/v1/bo/deposits?status=under_review&cursor=bm90LWEtY3Vyc29y');
  assert.equal([forged.status, forged.json.error?.code], [422, 'validation_error'], forged.text);

  const byReason = await scene.s.bo('GET', '/v1/bo/deposits?reason=DUPLICATE_SLIP');
  assert.not.ok(byReason.json.data.some((d: any) => d.id === first.id));
  const byMerchant = await scene.s.bo('GET', `/v1/bo/deposits?merchant_id=${scene.payer.id}`);
  assert.is(byMerchant.json.data.length, 0, 'the payer has no deposits');
  assert.is((await scene.s.bo('GET', '/v1/bo/deposits?escalated=maybe')).status, 422);
  // Queues are open work: closed orders leave the write side's memory and are read by id.
  for (const path of ['/v1/bo/deposits?status=settled', '/v1/bo/deposits?status=canceled', '/v1/bo/withdrawals?status=settled']) {
    const closed = await scene.s.bo('GET', path);
    assert.is(closed.status, 422, path);
    assert.is(closed.json.error.code, 'validation_error', path);
  }
  assert.is((await scene.s.bo('GET', '/v1/bo/withdrawals?status=settled&disputed=true')).status, 200, 'a final withdrawal with an open dispute is still open work');

  // Twenty minutes in, a review estimated under 15 minutes is not still `under_15m` in the queue (the merchant's object keeps the review's own).
  await advance(scene.s, 18 * 60_000);
  const waited = (await scene.s.bo('GET', '/v1/bo/deposits')).json.data.find((d: any) => d.id === first.id);
  assert.equal([waited.age_seconds, waited.estimated_resolution_bucket, waited.review.estimated_resolution_bucket], [20 * 60, 'under_1h', 'under_15m']);
  // An hour later the review escalates, and the queue shows it.
  await advance(scene.s, limits.reviewEscalationMs);
  const escalated = await scene.s.bo('GET', '/v1/bo/deposits?escalated=true');
  assert.ok(escalated.json.data.some((d: any) => d.id === first.id && d.review.escalated === true && d.estimated_resolution_bucket === 'under_4h'));
  for (const d of [first, second, third]) assert.is((await scene.s.bo('POST', `/v1/bo/deposits/${d.id}/decline`, { note }, { sub: 'emp_cleanup', roles: ['reviewer'] })).status, 200);
});

test('four-eyes: one reviewer twice stays under_review; a second reviewer settles; the timeline shows every step with its journal seq', async () => {
  const hook = await Receiver.start();
  // A white label of its own: two withdrawals to two different accounts, so a deposit above
  // the four-eyes amount takes two legs, each recognised by its receiver.
  const payer = await scene.s.onboard('Payer two');
  const shop = await scene.s.onboard('Shop two', payer.whiteLabelId);
  await addEndpoint(scene.s, shop.id, hook.url);
  await scene.s.fund(payer.id, 10_000_000);
  const accounts = ['1111222233', '4444555566'];
  for (const account of accounts) {
    const ben = await scene.s.beneficiary(payer.id, true, account);
    const w = await scene.s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 3_000_000, currency: 'THB', merchant_reference: `two-${account}`, end_user_ref: 'payee', beneficiary_id: ben });
    assert.is(w.status, 201, w.text);
  }
  const created = await scene.s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 5_000_000, fill_preference: 'internal_only' }));
  assert.is(created.status, 201, created.text);
  const d = created.json;
  assert.is(d.legs.length, 2, JSON.stringify(d.legs));
  const receiverOf = (i: number) => ({ bank_code: '004', account_number: accounts[i]!, account_name: 'สมหญิง รักดี' });
  await payLeg(d, d.legs[0], { receiver: receiverOf(0) });
  const mid = await scene.s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${d.id}`);
  assert.is(mid.json.status, 'awaiting_payment', mid.text);
  await payLeg(d, d.legs[1], { receiver: receiverOf(1), sender: otherName });
  const queued = await scene.s.bo('GET', `/v1/bo/deposits?merchant_id=${shop.id}`);
  const row = queued.json.data.find((x: any) => x.id === d.id);
  assert.is(row.review.four_eyes_required, true);
  assert.is(row.estimated_resolution_bucket, 'under_1h');

  const first = await scene.s.bo('POST', `/v1/bo/deposits/${d.id}/approve`, { note }, { sub: 'emp_anna', roles: ['reviewer'] });
  assert.is(first.status, 200, first.text);
  assert.is(first.json.status, 'under_review', 'the first approval is recorded, the deposit waits for a second reviewer');
  const again = await scene.s.bo('POST', `/v1/bo/deposits/${d.id}/approve`, { note }, { sub: 'emp_anna', roles: ['reviewer'] });
  assert.is(again.status, 409, again.text);
  assert.is(again.json.error.code, 'operation_not_allowed');
  const shown = await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`, undefined, { roles: ['reviewer'] });
  assert.equal(shown.json.review.approvals, ['emp_anna']);
  assert.is(shown.json.review.approvals_needed, 2);
  assert.is(shown.json.deposit.status, 'under_review');

  // A confirmation names the version its reviewer read: one read before the last change is refused, nothing recorded
  // (else figures a third reviewer recorded meanwhile would settle unseen).
  const stale = await scene.s.bo('POST', `/v1/bo/deposits/${d.id}/approve`, { note: 'second pair of eyes agrees with it', version: shown.json.deposit.version - 1 }, { sub: 'emp_boon', roles: ['reviewer'] });
  assert.equal([stale.status, stale.json.error?.code, stale.json.error?.details], [409, 'operation_not_allowed', { version: shown.json.deposit.version, expected_version: shown.json.deposit.version - 1 }], stale.text);
  assert.match(stale.json.error.message, /changed since you read it/);
  const still = (await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`, undefined, { roles: ['reviewer'] })).json;
  assert.equal([still.deposit.status, still.deposit.version, still.review.approvals], ['under_review', shown.json.deposit.version, ['emp_anna']]);
  const second = await scene.s.bo('POST', `/v1/bo/deposits/${d.id}/approve`, { note: 'second pair of eyes agrees with it', version: shown.json.deposit.version }, { sub: 'emp_boon', roles: ['reviewer'] });
  assert.is(second.status, 200, second.text);
  assert.is(second.json.status, 'settled');
  await advance(scene.s, 1000); // deliver the webhooks

  const view = (await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`, undefined, { roles: ['support'] })).json;
  const steps = view.timeline.map((x: any) => x.step);
  for (const step of ['created', 'matched', 'slip', 'verdict', 'review_decision', 'fill', 'balance_transaction', 'event', 'webhook_delivery']) {
    assert.ok(steps.includes(step), `timeline lacks ${step}: ${steps.join(', ')}`);
  }
  assert.is(steps[0], 'created');
  const seqs = view.timeline.map((x: any) => x.seq);
  assert.equal(seqs, [...seqs].sort((a: number, b: number) => a - b), 'journal order');
  // Every journal step names its seq and the hash the journal holds for it.
  const db = scene.s.running.store.db;
  for (const step of view.timeline.filter((x: any) => x.hash !== undefined)) {
    const row = db.prepare('SELECT hash, stream FROM journal WHERE seq = ?').get(step.seq) as { hash: string; stream: string };
    assert.is(step.hash, row.hash);
    assert.is(step.stream, row.stream);
  }
  const decisions = view.timeline.filter((x: any) => x.step === 'review_decision');
  assert.equal(decisions.map((x: any) => [x.detail.operator, x.detail.settles]), [['emp_anna', false], ['emp_boon', true]]);
  assert.is(decisions[1].detail.note, 'second pair of eyes agrees with it');
  const fills = view.timeline.filter((x: any) => x.step === 'fill');
  assert.is(fills.length, 2, 'both counterparty withdrawals filled');
  assert.is(new Set(fills.map((x: any) => x.stream)).size, 2);
  assert.ok(view.timeline.some((x: any) => x.step === 'webhook_delivery' && x.detail.status === 'delivered'));
  // The dashboard's webhook health counts those deliveries for the shop's endpoint.
  const dash = await scene.s.bo('GET', `/v1/bo/dashboard?merchant_id=${shop.id}`, undefined, { roles: ['finance'] });
  const endpoint = dash.json.webhooks_last_24h.endpoints[0];
  assert.ok(endpoint.delivered >= 1 && endpoint.failed === 0 && endpoint.failure_rate === 0, JSON.stringify(endpoint));
  assert.is(endpoint.url, `${new URL(hook.url).origin}/[redacted]`, 'the dashboard shows a URL\'s scheme and host, its path redacted');
  const unknown = await scene.s.bo('GET', '/v1/bo/dashboard?merchant_id=mch_nope', undefined, { roles: ['finance'] });
  assert.is(unknown.json.error?.code, 'resource_not_found', 'an unknown merchant is not a merchant with an empty day');
  assert.is(endpoint.delivered + endpoint.failed + endpoint.pending + endpoint.canceled, endpoint.deliveries, 'a chart can stack the statuses');
  // Evidence side by side: six verdicts, the legs and their receivers, the slips.
  assert.equal(view.evidence.verdicts.map((v: any) => v.dimension), ['amount', 'time_window', 'sender_bank', 'sender_account', 'sender_name', 'receiver']);
  const verdict = (name: string) => view.evidence.verdicts.find((v: any) => v.dimension === name);
  assert.is(verdict('sender_name').match, false);
  // What the slip showed, from the verifier's answer as the slip store keeps it (masked), beside what was expected.
  assert.is(view.evidence.provider_answer.kind, 'found');
  for (const name of ['amount', 'time_window', 'sender_bank', 'sender_account', 'sender_name', 'receiver']) assert.ok(verdict(name).shown !== undefined, `${name} shows what the slip showed`);
  // The slip's own mask kept, and the expected account masked in the same shape: a reviewer compares place by place.
  assert.match(verdict('sender_account').shown, /^xxx-x-xx\d{3}-x$/, JSON.stringify(verdict('sender_account')));
  assert.is(verdict('sender_account').expected.replace(/\d/g, '0'), verdict('sender_account').shown.replace(/\d/g, '0'), JSON.stringify(verdict('sender_account')));
  assert.is(verdict('sender_account').expected === verdict('sender_account').shown, verdict('sender_account').match, 'the same digits exactly when the account matched');
  const receiverShown = verdict('receiver').shown.account_number_masked;
  assert.ok(verdict('receiver').expected.some((leg: any) => leg.account_number_masked === receiverShown), `one leg's receiver as the slip showed it: ${JSON.stringify(verdict('receiver'))}`);
  // The window shown is the one the check applied: 10 minutes before the order to 5 after its expiry.
  const order = view.deposit;
  assert.equal(verdict('time_window').expected, {
    from: new Date(Date.parse(order.created_at) - 10 * 60_000).toISOString(), to: new Date(Date.parse(order.expires_at) + 5 * 60_000).toISOString(),
  });
  const shownAt = Date.parse(verdict('time_window').shown);
  assert.is(shownAt >= Date.parse(verdict('time_window').expected.from) && shownAt <= Date.parse(verdict('time_window').expected.to), verdict('time_window').match);
  assert.match(verdict('sender_name').shown, /\*\*\*$/);
  assert.not.equal(verdict('sender_name').shown, verdict('sender_name').expected, 'the mismatching name is shown beside the expected one');
  assert.is(view.evidence.legs.length, 2);
  // One shape per account in the whole view: the slip's, so the view shows no more of a number than the slip did.
  assert.match(view.evidence.legs[0].receiver.account_number_masked, /^xxx-x-xx\d{3}-x$/);
  assert.is(view.deposit.sender.account_number_masked, verdict('sender_account').expected, "the order's sender in the slip's shape too");
  const ours = (n: string) => 'x'.repeat(n.length - 4) + n.slice(-4);
  for (const n of ['1111222233', '4444555566', '9876543210']) assert.not.ok(JSON.stringify(view).includes(`"${ours(n)}"`), `${n} is not also shown by its last four digits`);
  assert.not.match(JSON.stringify(view), /1111222233|4444555566|9876543210/, 'no full account number in the view');
  assert.ok(view.evidence.slips.length >= 1);
  const slip = view.evidence.slips[0];
  assert.is(slip.kind, 'image');
  const image = await scene.s.bo('GET', slip.image_url, undefined, { roles: ['reviewer'] });
  assert.is(image.status, 200);
  assert.is(image.headers.get('content-type'), slip.media_type);
  assert.equal([image.headers.get('cache-control'), image.headers.get('x-content-type-options')], ['no-store', 'nosniff'], 'as the merchant route serves it');
});

test("a deposit read while a decision on it is being written waits for it: its status and its timeline are one moment's, and the merchant sees no state a crash could take back", async () => {
  const d = await underReview(); // one approval settles it
  // The writer thread is handed nothing until released: the decision is in the world, not yet in journal.db.
  const held: { thread: JournalThread; message: BatchMessage }[] = [];
  const post = JournalThread.prototype.post;
  const release = () => {
    JournalThread.prototype.post = post;
    for (const h of held.splice(0)) post.call(h.thread, h.message);
  };
  JournalThread.prototype.post = function (this: JournalThread, message: BatchMessage) { held.push({ thread: this, message }); };
  let operatorView: Promise<any> | undefined;
  let merchantView: Promise<any> | undefined;
  try {
    const approval = scene.s.bo('POST', `/v1/bo/deposits/${d.id}/approve`, { note }, { sub: 'emp_two' });
    while (scene.s.running.store.world.deposits.get(d.id)?.status !== 'settled') await new Promise((r) => setTimeout(r, 5));
    const answered: string[] = [];
    operatorView = scene.s.bo('GET', `/v1/bo/deposits/${d.id}`).then((r) => { answered.push('operator'); return r; });
    merchantView = scene.s.call(scene.shop.live.api_key, 'GET', `/v1/pay/deposits/${d.id}`).then((r) => { answered.push('merchant'); return r; });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(answered, [], 'neither read answers while the decision is not on disk');
    release();
    assert.is((await approval).status, 200);
  } finally {
    release();
  }
  const view = (await operatorView!).json;
  assert.is(view.deposit.status, 'settled');
  const settling = view.timeline.find((step: any) => step.step === 'review_decision' && step.detail.operator === 'emp_two');
  assert.ok(settling, `the settling decision is in the timeline: ${JSON.stringify(view.timeline.map((step: any) => step.step))}`);
  assert.is(settling.detail.settles, true);
  assert.is((await merchantView!).json.status, 'settled');
});

test("the amount verdict compares the slip with the order even when the reviewer settles another amount: the slip's figure matched, the finding is the decision's", async () => {
  const d = await underReview(50_000);
  const settled = await scene.s.bo('POST', `/v1/bo/deposits/${d.id}/approve`, { note, amount_minor: 49_000 }, { sub: 'emp_anna', roles: ['reviewer'] });
  assert.equal([settled.status, settled.json.status, settled.json.transferred_amount_minor], [200, 'settled', 49_000], settled.text);
  const view = (await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`, undefined, { roles: ['reviewer'] })).json;
  const amount = view.evidence.verdicts.find((v: any) => v.dimension === 'amount');
  assert.equal([amount.expected, amount.shown, amount.match], [50_000, 50_000, true], JSON.stringify(amount));
  assert.is(view.deposit.verification.amount_exact, false, 'the order was not paid what it asked: the reviewer found 49,000');
});

test('a multi-leg deposit under review: one amount is refused (which destination got it?); legs[] fill each withdrawal; a second reviewer who disagrees restarts four-eyes; nothing goes to suspense', async () => {
  const payer = await scene.s.onboard('Payer legs');
  const shop = await scene.s.onboard('Shop legs', payer.whiteLabelId);
  await scene.s.fund(payer.id, 10_000_000);
  const withdrawals = await withdrawalsTo(scene.s, payer, ['2222333344', '5555666677'], 3_000_000, 'legs');
  const created = await scene.s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 5_000_000, fill_preference: 'internal_only' }));
  assert.is(created.status, 201, created.text);
  const d = created.json;
  assert.is(d.legs.length, 2, JSON.stringify(d.legs));
  // The first leg's slip is held (another sender's name); the second leg still waits.
  await payLeg(d, d.legs[0], { receiver: { bank_code: '004', account_number: '2222333344', account_name: 'สมหญิง รักดี' }, sender: otherName });
  const approve = (sub: string, body: object) => scene.s.bo('POST', `/v1/bo/deposits/${d.id}/approve`, { note, ...body }, { sub, roles: ['reviewer'] });
  const legs = (second: number) => [{ leg_ref: d.legs[0].leg_ref, amount_minor: d.legs[0].amount_minor }, { leg_ref: d.legs[1].leg_ref, amount_minor: second }];

  const one = await approve('emp_anna', { amount_minor: 5_000_000 });
  assert.is(one.status, 422, one.text);
  assert.equal([one.json.error.code, one.json.error.details.fields[0].path], ['validation_error', 'legs']);
  const noNote = await scene.s.bo('POST', `/v1/bo/deposits/${d.id}/approve`, { legs: legs(0) }, { sub: 'emp_anna', roles: ['reviewer'] });
  assert.is(noNote.json.error?.code, 'review_note_required', 'a missing note is a note too short');

  // Anna finds only the first transfer; Boon finds both: he restarts four-eyes; Anna confirms his figures.
  assert.is((await approve('emp_anna', { legs: legs(0) })).json.status, 'under_review');
  const boon = await approve('emp_boon', { legs: legs(d.legs[1].amount_minor) });
  assert.is(boon.json.status, 'under_review', 'two reviewers disagree: nothing settles');
  const shown = await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`, undefined, { roles: ['reviewer'] });
  assert.equal(shown.json.review.approvals, ['emp_boon']);
  assert.equal(shown.json.review.approved_amounts, legs(d.legs[1].amount_minor), 'the figures a second reviewer confirms');
  const confirmed = await approve('emp_anna', {});
  assert.is(confirmed.status, 200, confirmed.text);
  assert.equal([confirmed.json.status, confirmed.json.amount_received_minor, confirmed.json.partial], ['settled', 5_000_000, false]);
  for (const [i, id] of withdrawals.entries()) {
    const w = await scene.s.call(payer.live.api_key, 'GET', `/v1/pay/withdrawals/${id}`);
    assert.is(w.json.filled_minor, d.legs[i].amount_minor, `withdrawal ${i + 1} records the transfer its payee received`);
  }
  const suspense = scene.s.running.store.db.prepare("SELECT COALESCE(SUM(amount), 0) AS total FROM postings WHERE account LIKE '%suspense%'").get() as { total: number };
  assert.is(suspense.total, 0, 'nothing booked to suspense');
  const view = (await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`, undefined, { roles: ['support'] })).json;
  assert.equal(view.review.approvals, ['emp_boon', 'emp_anna'], 'the reviewer whose approval settled it counts among the approvals');
  // Decided: its age is how long it waited for the decision, and stops growing.
  assert.is(view.review.decided_at, confirmed.json.settled_at);
  assert.is(view.review.age_seconds, Math.floor((Date.parse(view.review.decided_at) - Date.parse(view.review.opened_at)) / 1000));
  await advance(scene.s, 10 * 60_000);
  const later = (await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`, undefined, { roles: ['support'] })).json;
  assert.equal([later.review.age_seconds, later.review.decided_at], [view.review.age_seconds, view.review.decided_at], 'ten minutes later, the same age');
  assert.equal(view.evidence.legs.map((l: any) => [l.leg_ref, l.verified_amount_minor, l.filled_minor]),
    d.legs.map((l: any) => [l.leg_ref, l.amount_minor, l.amount_minor]), 'each leg: what the reviewers found it received, what its withdrawal was filled with');
  const decisions = view.timeline.filter((x: any) => x.step === 'review_decision').map((x: any) => [x.detail.operator, x.detail.settles, x.detail.restarted ?? false, x.detail.received?.[1]?.amount_minor ?? null]);
  assert.equal(decisions, [['emp_anna', false, false, 0], ['emp_boon', false, true, d.legs[1].amount_minor], ['emp_anna', true, false, null]]);

  // Another deposit fills the rest of the second withdrawal: its fill is in its own timeline, not this one's.
  const next = await scene.s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 1_000_000, fill_preference: 'internal_only', end_user_ref: 'another-payer' }));
  assert.is(next.status, 201, next.text);
  await payLeg(next.json, next.json.legs[0], { receiver: { bank_code: '004', account_number: '5555666677', account_name: 'สมหญิง รักดี' } });
  const fills = (await scene.s.call(payer.live.api_key, 'GET', `/v1/pay/withdrawals/${withdrawals[1]}`)).json.fills;
  assert.is(fills.length, 2);
  const ownIds = (await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`, undefined, { roles: ['support'] })).json.timeline
    .filter((x: any) => x.step === 'balance_transaction').map((x: any) => x.detail.id);
  assert.ok(ownIds.includes(fills[0].balance_transaction_id), 'this deposit\'s fill is in its timeline');
  assert.not.ok(ownIds.includes(fills[1].balance_transaction_id), 'the other deposit\'s fill of the same withdrawal is not');
});

test("a late slip held AMBIGUOUS_MATCH after another payer filled its withdrawal: one reviewer's approval is recorded, a second's settles out of suspense", async () => {
  const payer = await scene.s.onboard('Payer race');
  const shop = await scene.s.onboard('Shop race', payer.whiteLabelId);
  await scene.s.fund(payer.id, 1_000_000);
  const payee = { bank_code: '004', account_number: '7777888899', account_name: 'สมหญิง รักดี' };
  const [withdrawalId] = await withdrawalsTo(scene.s, payer, [payee.account_number], 50_000, 'race');
  const open = async (endUser: string) => {
    const r = await scene.s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 50_000, fill_preference: 'internal_only', end_user_ref: endUser }));
    assert.is(r.status, 201, r.text);
    return r.json;
  };
  const late = await open('late-payer');
  await advance(scene.s, limits.depositExpiresInSecondsDefault * 1000 + 1000);
  assert.is((await scene.s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${late.id}`)).json.status, 'expired');
  // Another payer fills the withdrawal; then the first one's slip comes, the bank showing too
  // little of the sender's name to tell (two letters before its mask: AMBIGUOUS_MATCH).
  const other = await open('other-payer');
  await payLeg(other, other.legs[0], { receiver: payee });
  assert.is((await scene.s.call(payer.live.api_key, 'GET', `/v1/pay/withdrawals/${withdrawalId}`)).json.status, 'settled');
  await payLeg(late, late.legs[0], { receiver: payee, sender: { ...sender, account_name_th: 'สม' } });
  const held = (await scene.s.bo('GET', `/v1/bo/deposits/${late.id}`, undefined, { roles: ['reviewer'] })).json;
  // Before any approval, every reading says two reviewers: the credit would come out of suspense.
  assert.equal([held.deposit.status, held.review.reasons.map((r: any) => r.code), held.review.four_eyes_required, held.review.approvals_needed], ['under_review', ['AMBIGUOUS_MATCH'], true, 2]);
  assert.equal(held.deposit.review.four_eyes_required, true, 'the bo view of the merchant object');
  const merchantView = (await scene.s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${late.id}`)).json;
  assert.equal([merchantView.review.four_eyes_required, merchantView.review.estimated_resolution_bucket], [true, 'under_1h'], 'the merchant is told two reviewers decide');
  const queued = (await scene.s.bo('GET', `/v1/bo/deposits?status=under_review&merchant_id=${shop.id}`, undefined, { roles: ['reviewer'] })).json.data.find((d: any) => d.id === late.id);
  assert.equal([queued.review.four_eyes_required, queued.estimated_resolution_bucket], [true, 'under_1h'], 'the console\'s queue reads it so');

  const suspense = () => (scene.s.running.store.db.prepare("SELECT COALESCE(SUM(amount), 0) AS total FROM postings WHERE account LIKE '%suspense%'").get() as { total: number }).total;
  const before = suspense();
  const approve = (sub: string) => scene.s.bo('POST', `/v1/bo/deposits/${late.id}/approve`, { note }, { sub, roles: ['reviewer'] });
  const first = await approve('emp_anna');
  assert.equal([first.status, first.json.status], [200, 'under_review'], first.text);
  const waiting = (await scene.s.bo('GET', `/v1/bo/deposits/${late.id}`, undefined, { roles: ['reviewer'] })).json;
  assert.equal([waiting.review.approvals, waiting.review.four_eyes_required], [['emp_anna'], true], 'the credit would come out of suspense: a second reviewer is asked');
  assert.is(suspense(), before, 'nothing booked to suspense on one reviewer\'s word');
  const second = await approve('emp_boon');
  assert.equal([second.status, second.json.status, second.json.amount_received_minor], [200, 'settled', 50_000], second.text);
  assert.is(suspense(), before - 50_000, 'the merchant\'s credit came out of suspense');
  const w = (await scene.s.call(payer.live.api_key, 'GET', `/v1/pay/withdrawals/${withdrawalId}`)).json;
  assert.equal([w.filled_minor, w.fills.length], [50_000, 1], 'the withdrawal keeps the one fill the other payer made');
});

test('a slip mini-QR is decoded to its trans_ref and sending bank, never shown raw', async () => {
  const d = await matchedDeposit(scene);
  const ref = '20251121TRXQRDECODE001510';
  const inner = `0006000001010301402${String(ref.length).padStart(2, '0')}${ref}`;
  const payload = `00${String(inner.length).padStart(2, '0')}${inner}5102TH9104ABCD`;
  await registerTransfer(scene.s, transferFor(scene, d, { payload, sender: otherName }));
  assertReceipt(await uploadFile(d.slip_upload, pngSlip(), { payload }));
  await scene.s.running.slipWorker.drain();
  const view = (await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`)).json;
  assert.equal(view.evidence.slips[0].qr_decoded, { trans_ref: '20251121TRXQRDECODE001510', sending_bank_code: '014' });
  assert.not.ok(JSON.stringify(view).includes(payload));
  await scene.s.bo('POST', `/v1/bo/deposits/${d.id}/decline`, { note });
});

test('the approvals queue lists live_p2p withdrawals pending approval; two different approvers open one, nobody twice', async () => {
  const { TestServer } = await import('../support/server-harness.ts');
  const s = await TestServer.start({ SATANG_PROFILE: 'live_p2p' });
  try {
    const m = await s.onboard('P2P payer');
    await s.fund(m.id, 10_000_000);
    const ben = await s.beneficiary(m.id);
    const w = await s.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 100_000, currency: 'THB', merchant_reference: 'p2p-1', end_user_ref: 'u1', beneficiary_id: ben });
    assert.is(w.status, 201, w.text);
    assert.is(w.json.status, 'pending_approval');
    const queue = await s.bo('GET', '/v1/bo/withdrawals?status=pending_approval', undefined, { roles: ['approver'] });
    assert.is(queue.status, 200, queue.text);
    const row = queue.json.data.find((x: any) => x.id === w.json.id);
    assert.is(row.approvals_required, 2);
    assert.equal(row.approvals, []);
    // What an approver checks before approving: whose money and where it goes, masked as everywhere.
    const payee = { id: ben, status: 'verified', bank_code: '004', bank_name_th: 'ธนาคารกสิกรไทย', account_number_masked: 'xxxxxx7890', account_name_masked: 'สมหญิง ร***' };
    assert.equal([row.merchant_name, row.beneficiary], ['P2P payer', payee]);
    assert.not.ok(JSON.stringify(queue.json).includes('1234567890'), 'never the full account number');
    assert.is((await s.bo('POST', `/v1/bo/withdrawals/${w.json.id}/approve`, { note: 'payee checked against the ticket' }, { sub: 'emp_a', roles: ['approver'] })).json.status, 'pending_approval');
    const twice = await s.bo('POST', `/v1/bo/withdrawals/${w.json.id}/approve`, {}, { sub: 'emp_a', roles: ['approver'] });
    assert.is(twice.status, 409, twice.text);
    const shown = await s.bo('GET', `/v1/bo/withdrawals/${w.json.id}`, undefined, { roles: ['support'] });
    assert.equal(shown.json.approvals, ['emp_a']);
    assert.equal([shown.json.merchant_name, shown.json.beneficiary], ['P2P payer', payee]);
    assert.is((await s.bo('POST', `/v1/bo/withdrawals/${w.json.id}/approve`, {}, { sub: 'emp_b', roles: ['approver'] })).json.status, 'open');
    const after = await s.bo('GET', '/v1/bo/withdrawals?status=pending_approval');
    assert.not.ok(after.json.data.some((x: any) => x.id === w.json.id));
    // Who decided, when and with what note: kept in the journal with the decision (a note lived only in the request log, 30 days).
    const at = (await s.bo('GET', `/v1/bo/withdrawals/${w.json.id}`)).json.decisions.map((x: any) => [x.decision, x.operator, x.note, typeof x.at]);
    assert.equal(at, [['approve', 'emp_a', 'payee checked against the ticket', 'string'], ['approve', 'emp_b', null, 'string']]);
    const other = await s.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 100_000, currency: 'THB', merchant_reference: 'p2p-2', end_user_ref: 'u1', beneficiary_id: ben });
    const rejected = await s.bo('POST', `/v1/bo/withdrawals/${other.json.id}/reject`, { note: 'beneficiary looks wrong' }, { sub: 'emp_c', roles: ['approver'] });
    assert.is(rejected.json.status, 'rejected', rejected.text);
    assert.equal((await s.bo('GET', `/v1/bo/withdrawals/${other.json.id}`)).json.decisions.map((x: any) => [x.decision, x.operator, x.note]), [['reject', 'emp_c', 'beneficiary looks wrong']]);
    const third = await s.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 100_000, currency: 'THB', merchant_reference: 'p2p-3', end_user_ref: 'u1', beneficiary_id: ben });
    const canceled = await s.bo('POST', `/v1/bo/withdrawals/${third.json.id}/cancel`, { note: 'merchant asked by phone to stop it' }, { sub: 'emp_d', roles: ['ops_admin'], stepUp: true });
    assert.is(canceled.json.status, 'canceled', canceled.text);
    assert.equal((await s.bo('GET', `/v1/bo/withdrawals/${third.json.id}`)).json.decisions.map((x: any) => [x.decision, x.operator, x.note]), [['cancel', 'emp_d', 'merchant asked by phone to stop it']]);
  } finally {
    await s.stop();
  }
});

test('the dashboard by the hour: settlements and fills per hour sum to what settled, slips per hour, the review queue by age', async () => {
  const { s } = scene;
  // A business day of its own (01:00 Bangkok the next day), and a white label of its own so
  // the figures scoped to its merchants hold only what this test does.
  const day = businessDayStart(s.clock.now()) + durations.day;
  await advance(s, day + durations.hour - s.clock.now());
  const payer = await s.onboard('Chart payer');
  const shop = await s.onboard('Chart shop', payer.whiteLabelId);
  await s.fund(payer.id, 10_000_000);
  const ben = await s.beneficiary(payer.id, true, '1234567890');
  const w = await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 1_000_000, currency: 'THB', merchant_reference: 'chart-payout', end_user_ref: 'payee', beneficiary_id: ben });
  assert.is(w.status, 201, w.text);
  const deposit = async (amount: number, review: boolean) => {
    const created = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: amount, fill_preference: 'internal_only' }));
    assert.is(created.status, 201, created.text);
    await payLeg(created.json, created.json.legs[0], review ? { sender: otherName } : {});
    const after = await s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${created.json.id}`);
    assert.is(after.json.status, review ? 'under_review' : 'settled', after.text);
    return after.json;
  };
  // Hour 1 (01:00): two settle, one review opens. Hour 3: one settles, one review. Hour 5: a
  // review at 05:00, then at 05:30 a settlement and a review, at 05:38 a last review.
  const settled = [await deposit(50_000, false), await deposit(70_000, false)];
  await deposit(40_000, true);
  await advance(s, 2 * durations.hour);
  settled.push(await deposit(30_000, false));
  await deposit(41_000, true);
  await advance(s, 2 * durations.hour);
  await deposit(42_000, true);
  await advance(s, 30 * durations.minute);
  settled.push(await deposit(20_000, false));
  await deposit(43_000, true);
  await advance(s, 8 * durations.minute);
  await deposit(44_000, true);
  await advance(s, 2 * durations.minute); // now 05:40: the reviews are 4 h 40, 2 h 40, 40, 10 and 2 minutes old

  const dash = await s.bo('GET', `/v1/bo/dashboard?merchant_id=${shop.id}`, undefined, { roles: ['finance'] });
  assert.is(dash.status, 200, dash.text);
  const hours = dash.json.volumes_by_hour.hours;
  assert.is(hours.length, 24);
  assert.equal(hours.map((h: any) => h.hour_start), Array.from({ length: 24 }, (_, i) => new Date(day + i * durations.hour).toISOString()));
  const busy = (rows: any[], field: string) => rows.map((h: any, i: number) => [i, h[field]]).filter(([, v]) => v !== 0);
  assert.equal(busy(hours, 'deposits_settled_count'), [[1, 2], [3, 1], [5, 1]]);
  assert.equal(busy(hours, 'deposits_settled_minor'), [[1, 120_000], [3, 30_000], [5, 20_000]]);
  const received = settled.reduce((sum, d) => sum + d.amount_received_minor, 0);
  assert.is(hours.reduce((sum: number, h: any) => sum + h.deposits_settled_minor, 0), received, 'the hours sum to what settled');
  assert.is(dash.json.volumes_today.deposits_received_minor, received);
  assert.equal(busy(hours, 'withdrawals_filled_minor'), [], 'the shop fills no withdrawal');
  assert.is(dash.json.volumes_by_hour.journal_seq, dash.json.volumes_today.journal_seq);
  // Every slip, by the hour it came in; the simulator answered every one of them.
  assert.equal(busy(dash.json.slip_provider_by_hour.hours, 'slips'), [[1, 3], [3, 2], [5, 4]]);
  assert.equal(busy(dash.json.slip_provider_by_hour.hours, 'provider_errors'), []);
  assert.equal(dash.json.review_queue.age_buckets, [
    { label: 'under_5m', min_seconds: 0, max_seconds: 300, count: 1 },
    { label: '5m_to_15m', min_seconds: 300, max_seconds: 900, count: 1 },
    { label: '15m_to_1h', min_seconds: 900, max_seconds: 3600, count: 1 },
    { label: '1h_to_4h', min_seconds: 3600, max_seconds: 14_400, count: 1 },
    { label: 'extended', min_seconds: 14_400, max_seconds: null, count: 1 },
  ]);
  assert.is(dash.json.review_queue.size, 5);
  assert.is(dash.json.review_queue.oldest_age_seconds, (4 * 60 + 40) * 60);
  // The payer's side: each settled leg filled its withdrawal in the hour it settled.
  const payerDash = await s.bo('GET', `/v1/bo/dashboard?merchant_id=${payer.id}`, undefined, { roles: ['finance'] });
  assert.equal(busy(payerDash.json.volumes_by_hour.hours, 'withdrawals_filled_minor'), [[1, 120_000], [3, 30_000], [5, 20_000]]);
  assert.equal(busy(payerDash.json.volumes_by_hour.hours, 'deposits_settled_count'), []);
  // The next day starts empty: the series are today's.
  await advance(s, durations.day);
  const tomorrow = await s.bo('GET', `/v1/bo/dashboard?merchant_id=${shop.id}`, undefined, { roles: ['finance'] });
  assert.equal(busy(tomorrow.json.volumes_by_hour.hours, 'deposits_settled_count'), []);
  assert.equal(busy(tomorrow.json.slip_provider_by_hour.hours, 'slips'), []);
  const payerTomorrow = await s.bo('GET', `/v1/bo/dashboard?merchant_id=${payer.id}`, undefined, { roles: ['finance'] });
  assert.equal(busy(payerTomorrow.json.volumes_by_hour.hours, 'withdrawals_filled_minor'), []);
  assert.equal(tomorrow.json.review_queue.age_buckets.map((b: any) => b.count), [0, 0, 0, 0, 5], 'a day later every review is extended');
});

test("a webhook URL's path and query are shown whole to ops_admin only: support's endpoint list and every dashboard reader see its scheme and host", async () => {
  const { s } = scene;
  const m = await s.onboard('Token in URL');
  const endpointId = await addEndpoint(s, m.id, 'https://hooks.example.com/receive?token=WEBHOOKQUERYSECRET&v=2');
  const slackId = await addEndpoint(s, m.id, 'https://hooks.example.com/services/T000/B000/XXXXSECRETPATH');
  const originId = await addEndpoint(s, m.id, 'https://origin.example.com/');
  const listAs = async (roles: string[]) => (await s.bo('GET', `/v1/bo/merchants/${m.id}/webhook-endpoints`, undefined, { roles })).json.data.map((e: any) => e.url);
  assert.equal(await listAs(['ops_admin']), ['https://hooks.example.com/receive?token=WEBHOOKQUERYSECRET&v=2', 'https://hooks.example.com/services/T000/B000/XXXXSECRETPATH', 'https://origin.example.com/'], 'ops_admin manages them: whole');
  assert.equal(await listAs(['support']), ['https://hooks.example.com/[redacted]?[redacted]', 'https://hooks.example.com/[redacted]', 'https://origin.example.com/']);
  assert.is((await s.bo('GET', `/v1/bo/webhooks/${endpointId}`, undefined, { roles: ['support'] })).json.url, 'https://hooks.example.com/[redacted]?[redacted]');
  assert.is((await s.bo('GET', `/v1/bo/webhooks/${slackId}`, undefined, { roles: ['support'] })).json.url, 'https://hooks.example.com/[redacted]');
  const dashboard = await s.bo('GET', `/v1/bo/dashboard?livemode=true&merchant_id=${m.id}`, undefined, { roles: ['finance'] });
  assert.is(dashboard.status, 200, dashboard.text);
  for (const secret of ['WEBHOOKQUERYSECRET', 'XXXXSECRETPATH', '/services/', '/receive']) assert.not.ok(dashboard.text.includes(secret), `the dashboard shows ${secret}`);
  const shown = new Map(dashboard.json.webhooks_last_24h.endpoints.map((e: any) => [e.endpoint_id, e.url]));
  assert.equal([shown.get(endpointId), shown.get(slackId), shown.get(originId)], ['https://hooks.example.com/[redacted]?[redacted]', 'https://hooks.example.com/[redacted]', 'https://origin.example.com/']);
});

test("the timeline gives each order step the version the merchant's object had after it: the clearing, which changes nothing the merchant's order shows, moves the journal's stream and not the object's", async () => {
  const d = await matchedDeposit(scene);
  await payLeg(d, d.legs[0]);
  await advance(scene.s, limits.clearingPeriodMs + 60_000);
  const view = (await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`, undefined, { roles: ['support'] })).json;
  const merchant = (await scene.s.call(scene.shop.live.api_key, 'GET', `/v1/pay/deposits/${d.id}`)).json;
  assert.is(merchant.status, 'settled');
  const own = view.timeline.filter((x: any) => x.stream === d.id);
  const cleared = own.find((x: any) => x.step === 'cleared');
  assert.ok(cleared, `no cleared step: ${own.map((x: any) => x.step).join(', ')}`);
  assert.equal([cleared.version, cleared.object_version], [merchant.version + 1, merchant.version], 'the journal moved; the object did not');
  const settled = own.find((x: any) => x.step === 'settled');
  assert.is(settled.object_version, merchant.version, 'the version the merchant last heard (deposit.settled)');
  assert.equal(own.map((x: any) => x.object_version), own.map((x: any) => x.object_version).sort((a: number, b: number) => a - b));
  for (const fill of view.timeline.filter((x: any) => x.step === 'fill')) assert.type(fill.object_version, 'number', 'a counterparty withdrawal\'s step too');
});

test.run();
