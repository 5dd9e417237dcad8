// Fill reversal ⚑ and disputes over real HTTP: a deposit settles and fills the payer's
// withdrawal; reversing that fill emits withdrawal.fill_reversed and balance.credited and
// puts amount + fee share back where the contract says (the order's lock while it is
// still payable); a dispute opens (withdrawal.disputed, no funds held), the merchant's
// evidence is visible to the operator with its journal seq, and resolving it emits
// withdrawal.dispute_resolved. The ledger stays balanced at each step (satang verify).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expectError } from '../support/api-checks.ts';
import { pngSlip, settledDeposit, sha256Hex, slipScene, type SlipScene } from '../support/slip-harness.ts';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { verifyStore } from '../../adapters/sqlite/verify.ts';

let scene: SlipScene;

test.before(async () => { scene = await slipScene(); });
test.after(async () => { await scene.s.stop(); });

const eventsOf = (stream: string, type: string) =>
  scene.s.running.store.db.prepare('SELECT body FROM outbox WHERE stream = ? AND type = ? ORDER BY sequence').all(stream, type).map((r: any) => JSON.parse(r.body));
const balance = async () => (await scene.s.call(scene.payer.live.api_key, 'GET', '/v1/pay/balance')).json;

async function settledFill(): Promise<{ withdrawalId: string; legRef: string; fill: any }> {
  const d = await settledDeposit(scene);
  const withdrawalId = scene.withdrawalIds[0]!;
  const w = await scene.s.bo('GET', `/v1/bo/withdrawals/${withdrawalId}`, undefined, { roles: ['support'] });
  const fill = w.json.withdrawal.fills.at(-1);
  assert.is(fill.deposit_id, d.id, 'the operator sees the deposit that paid the fill');
  const own = await scene.s.call(scene.payer.live.api_key, 'GET', `/v1/pay/withdrawals/${withdrawalId}`);
  assert.not.ok(own.text.includes(d.id), "the withdrawing merchant does not: it is another merchant's order");
  return { withdrawalId, legRef: fill.leg_ref, fill };
}

async function ledgerBalanced(): Promise<void> {
  const report = verifyStore(scene.s.running.store.db);
  assert.ok(report.ok, JSON.stringify(report).slice(0, 2000));
}

test('reversing a fill needs step-up, emits withdrawal.fill_reversed and balance.credited, and returns amount and fee to the lock', async () => {
  const { withdrawalId, legRef, fill } = await settledFill();
  const before = await balance();
  const body = { reason_code: 'BANK_RECALL', note: 'the bank recalled the payer transfer' };
  const noStepUp = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/fills/${legRef}/reverse`, body, { roles: ['ops_admin'] });
  assert.is(noStepUp.status, 403, noStepUp.text);
  const badReason = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/fills/${legRef}/reverse`, { ...body, reason_code: 'WHIM' }, { roles: ['ops_admin'], stepUp: true });
  assert.is(badReason.status, 422);
  const shortNote = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/fills/${legRef}/reverse`, { ...body, note: 'x' }, { roles: ['ops_admin'], stepUp: true });
  assert.is(shortNote.json.error.code, 'review_note_required', shortNote.text);
  const noNote = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/fills/${legRef}/reverse`, { reason_code: 'BANK_RECALL' }, { roles: ['ops_admin'], stepUp: true });
  assert.is(noNote.json.error.code, 'review_note_required', 'a missing note is a note too short');
  const r = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/fills/${legRef}/reverse`, body, { roles: ['ops_admin'], stepUp: true });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.fills.find((f: any) => f.leg_ref === legRef).receipt_state, 'reversed');
  // The merchant's GET and the webhook's snapshot keep the fill, marked: summing the unreversed fills gives filled_minor.
  const seen = await scene.s.call(scene.payer.live.api_key, 'GET', `/v1/pay/withdrawals/${withdrawalId}`);
  const reversedFill = seen.json.fills.find((f: any) => f.leg_ref === legRef);
  assert.equal([reversedFill.receipt_state, reversedFill.reversal_reason_code, typeof reversedFill.reversed_at, reversedFill.reversal_balance_transaction_id?.slice(0, 5)], ['reversed', 'BANK_RECALL', 'string', 'btxn_']);
  assert.is(seen.json.fills.filter((f: any) => !f.reversed_at).reduce((sum: number, f: any) => sum + f.amount_minor, 0), seen.json.filled_minor);
  const told = eventsOf(withdrawalId, 'withdrawal.fill_reversed')[0].data.object.fills.find((f: any) => f.leg_ref === legRef);
  assert.is(told.reversal_reason_code, 'BANK_RECALL');
  // The finance analyst's account lines say who reversed it and why, as they do for adjustments.
  const today = new Date(scene.s.clock.now() + 7 * 3_600_000).toISOString().slice(0, 10);
  const lines = await scene.s.bo('GET', `/v1/bo/reports/account-lines?account=reversals&date=${today}`, undefined, { roles: ['finance'] });
  assert.is(lines.status, 200, lines.text);
  const line = lines.json.data.find((x: any) => x.reverses_balance_transaction_id === fill.balance_transaction_id);
  assert.equal([line?.posted_by, line?.note, line?.reason_code], ["emp_alice", body.note, "BANK_RECALL"], JSON.stringify(lines.json.data));
  const after = await balance();
  assert.is(after.reserved_minor, before.reserved_minor + fill.amount_minor + fill.fee_recognized_minor);
  assert.is(after.available_minor, before.available_minor);
  assert.is(eventsOf(withdrawalId, 'withdrawal.fill_reversed').length, 1);
  const credited = scene.s.running.store.db.prepare("SELECT body FROM outbox WHERE merchant_id = ? AND type = 'balance.credited' ORDER BY sequence DESC LIMIT 2").all(scene.payer.id).map((x: any) => JSON.parse(x.body));
  assert.ok(credited.some((e: any) => e.data.object.type === 'reversal' && e.data.object.amount_minor === fill.amount_minor), JSON.stringify(credited));
  // Again: refused as the deposit's second reversal is, and nothing more happens.
  const again = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/fills/${legRef}/reverse`, body, { roles: ['ops_admin'], stepUp: true });
  assert.equal([again.status, again.json.error.code], [409, 'operation_not_allowed'], again.text);
  assert.match(again.json.error.message, /already reversed/);
  assert.equal(await balance(), { ...after, as_of: (await balance()).as_of });
  const unknown = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/fills/leg_nope/reverse`, body, { roles: ['ops_admin'], stepUp: true });
  assert.is(unknown.status, 404);
  await ledgerBalanced();
});

test('a dispute: opened by ops, the merchant\'s evidence visible to the operator, resolved with its events', async () => {
  const { withdrawalId } = await settledFill();
  const open = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/disputes`, { reason_code: 'not_received', amount_minor: 30_000 }, { roles: ['ops_admin'] });
  assert.is(open.status, 201, open.text);
  assert.is(open.json.funds_on_hold, false, 'nothing of the merchant is held: the disputed amount left in the fills');
  assert.is(open.json.status, 'open');
  const disputeId = open.json.id;
  assert.match(disputeId, /^dsp_/);
  assert.is(eventsOf(withdrawalId, 'withdrawal.disputed').length, 1);
  const twice = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/disputes`, { reason_code: 'not_received', amount_minor: 1 });
  assert.is(twice.status, 409, twice.text);
  const controlled = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/disputes`, { reason_code: 'a\u0000', amount_minor: 1 });
  assert.equal([controlled.status, controlled.json.error.details.fields[0].path], [422, 'reason_code'], 'a code is a code: letters, digits, underscores (the merchant branches on it)');
  const tooMuch = await scene.s.bo('POST', `/v1/bo/withdrawals/${scene.withdrawalIds[3]}/disputes`, { reason_code: 'x', amount_minor: 1 });
  assert.is(tooMuch.status, 422, 'nothing filled, nothing to dispute');
  const past = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/disputes`, { reason_code: 'x', amount_minor: 1, respond_by: '2020-01-01T00:00:00Z' });
  assert.is(past.status, 422);
  const farOff = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/disputes`, { reason_code: 'x', amount_minor: 1, respond_by: '2999-01-01T00:00:00Z' });
  assert.equal([farOff.status, farOff.json.error.details.fields[0].reason], [422, 'maximum'], 'an evidence deadline, not an open case for ever');

  for (const content of ['!!!notbase64', 'A', 'AB=', 'QUJD=']) {
    const notBase64 = await scene.s.call(scene.payer.live.api_key, 'POST', `/v1/pay/disputes/${disputeId}/evidence`, {
      text: 'The payee confirmed receipt by phone on the day.', files: [{ name: 'statement.pdf', content_base64: content }],
    });
    assert.is(notBase64.json.error?.code, 'validation_error', `${content}: a file that is not base64 is refused, not stored as 0 bytes`);
  }
  const image = pngSlip();
  const pdf = Buffer.from('%PDF-1.4 statement');
  const evidence = await scene.s.call(scene.payer.live.api_key, 'POST', `/v1/pay/disputes/${disputeId}/evidence`, {
    text: 'The payee confirmed receipt by phone on the day.', files: [{ name: '../../reports/statement.pdf', content_base64: pdf.toString('base64') }, { name: 'ใบเสร็จ "1".png', content_base64: image.toString('base64') }],
  });
  assert.is(evidence.status, 200, evidence.text);
  const view = await scene.s.bo('GET', `/v1/bo/disputes/${disputeId}`, undefined, { roles: ['support'] });
  assert.is(view.status, 200, view.text);
  assert.is(view.json.dispute.evidence.length, 1);
  assert.is(view.json.dispute.evidence[0].text, 'The payee confirmed receipt by phone on the day.');
  const [pdfFile, imageFile] = view.json.dispute.evidence[0].files;
  assert.equal([pdfFile.name, pdfFile.bytes, pdfFile.sha256, pdfFile.media_type], ['../../reports/statement.pdf', 18, sha256Hex(pdf), 'application/pdf'], 'the name as sent');
  assert.equal([imageFile.name, imageFile.bytes, imageFile.sha256, imageFile.media_type], ['ใบเสร็จ "1".png', image.length, sha256Hex(image), 'image/png']);
  // The operator deciding the dispute downloads each file as the merchant sent it: a download, never rendered.
  for (const [file, bytes] of [[pdfFile, pdf], [imageFile, image]] as const) {
    assert.match(file.download_url, new RegExp(`^/v1/bo/disputes/${disputeId}/files/dfile_[0-9a-f]{32}$`));
    const got = await fetch(scene.s.url + file.download_url, { headers: { Authorization: `Bearer ${await scene.s.operatorToken('emp_finance', false, ['finance'])}` } });
    assert.is(got.status, 200);
    assert.ok(Buffer.from(await got.arrayBuffer()).equals(bytes), `${file.name}: the bytes as sent`);
    assert.equal([got.headers.get('content-type'), got.headers.get('x-content-type-options'), got.headers.get('cache-control')], ['application/octet-stream', 'nosniff', 'no-store']);
    assert.match(got.headers.get('content-disposition') ?? '', /^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''/);
  }
  // Saved without the directories its name named.
  const saved = await fetch(scene.s.url + pdfFile.download_url, { headers: { Authorization: `Bearer ${await scene.s.operatorToken('emp_finance', false, ['finance'])}` } });
  assert.is(saved.headers.get('content-disposition'), `attachment; filename="statement.pdf"; filename*=UTF-8''statement.pdf`);
  const merchantCannot = await fetch(scene.s.url + pdfFile.download_url, { headers: { Authorization: `Bearer ${scene.payer.live.api_key}` } });
  assert.is(merchantCannot.status, 401, 'an operator route');
  assert.is((await scene.s.bo('GET', `/v1/bo/disputes/${disputeId}/files/dfile_${'0'.repeat(32)}`)).status, 404);
  assert.is((await scene.s.bo('GET', `/v1/bo/disputes/dsp_nope/files/${pdfFile.file_id}`)).status, 404, 'a file is found only under its own dispute');
  assert.type(view.json.dispute.evidence[0].seq, 'number');
  assert.equal([view.json.dispute.opened_by, view.json.dispute.resolved_by, view.json.dispute.resolution_note], ['emp_alice', null, null], 'who opened it');

  // disputed=true alone lists every open dispute, whatever its withdrawal's status (it listed the pending approvals' none).
  const openDisputes = await scene.s.bo('GET', '/v1/bo/withdrawals?disputed=true', undefined, { roles: ['support'] });
  assert.is(openDisputes.status, 200, openDisputes.text);
  assert.ok(openDisputes.json.data.some((w: any) => w.id === withdrawalId && w.dispute?.id === disputeId && w.status !== 'pending_approval'), JSON.stringify(openDisputes.json.data.map((w: any) => [w.id, w.status])));
  // A resolution says why, as a review decision does (20 characters): no note, or one of a character, is refused and changes nothing.
  for (const body of [{ outcome: 'merchant_lost' }, { outcome: 'merchant_lost', note: 'x' }]) {
    const bare = await scene.s.bo('POST', `/v1/bo/disputes/${disputeId}/resolve`, body, { roles: ['ops_admin'], sub: 'emp_resolver' });
    assert.equal([bare.status, bare.json.error?.code], [422, 'review_note_required'], bare.text);
  }
  assert.is((await scene.s.bo('GET', `/v1/bo/disputes/${disputeId}`)).json.dispute.status, 'open');
  const resolved = await scene.s.bo('POST', `/v1/bo/disputes/${disputeId}/resolve`, { outcome: 'merchant_won', note: 'evidence accepted: the receipt matches' }, { roles: ['ops_admin'], sub: 'emp_resolver' });
  assert.is(resolved.status, 200, resolved.text);
  const closed = (await scene.s.bo('GET', `/v1/bo/disputes/${disputeId}`, undefined, { roles: ['support'] })).json.dispute;
  assert.equal([closed.opened_by, closed.resolved_by, closed.resolution_note], ['emp_alice', 'emp_resolver', 'evidence accepted: the receipt matches'], 'who resolved it, and why');
  assert.not.ok(JSON.stringify(resolved.json).includes('emp_'), "the operators' ids stay in the back office");
  assert.is(resolved.json.status, 'resolved');
  assert.is(resolved.json.funds_on_hold, false);
  assert.is(resolved.json.outcome, 'merchant_won');
  assert.is(eventsOf(withdrawalId, 'withdrawal.dispute_resolved').length, 1);
  assert.not.ok((await scene.s.bo('GET', '/v1/bo/withdrawals?disputed=true')).json.data.some((w: any) => w.id === withdrawalId), 'a resolved dispute leaves the list');
  const badOutcome = await scene.s.bo('POST', `/v1/bo/disputes/${disputeId}/resolve`, { outcome: 'coin_flip' });
  assert.is(badOutcome.status, 422);
  const again = await scene.s.bo('POST', `/v1/bo/disputes/${disputeId}/resolve`, { outcome: 'withdrawn', note: 'the merchant withdrew it by phone' });
  assert.is(again.status, 409);
  // Evidence for a resolved dispute is refused, and its file is not kept: a refused request leaves nothing behind.
  const stored = () => readdirSync(join(scene.s.dataDir, 'slips')).filter((n) => n.startsWith('dfile_')).length;
  const before = stored();
  assert.is(before, 2);
  const late = await scene.s.call(scene.payer.live.api_key, 'POST', `/v1/pay/disputes/${disputeId}/evidence`, { text: 'One more receipt for the record.', files: [{ name: 'late.pdf', content_base64: pdf.toString('base64') }] });
  assert.is(late.status, 409, late.text);
  assert.is(stored(), before);
  await ledgerBalanced();
});

test('an operator cancels a withdrawal (a claim\'s refund its merchant may not): ops_admin with a step-up; its lock comes back', async () => {
  const ben = await scene.s.beneficiary(scene.payer.id, true, '5554443332');
  const w = await scene.s.call(scene.payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 12_000, currency: 'THB', merchant_reference: 'op-cancel', end_user_ref: 'payee', beneficiary_id: ben });
  assert.is(w.status, 201, w.text);
  const before = await balance();
  assert.is((await scene.s.bo('POST', `/v1/bo/withdrawals/${w.json.id}/cancel`, {}, { roles: ['ops_admin'] })).status, 403, 'a step-up');
  assert.is((await scene.s.bo('POST', `/v1/bo/withdrawals/${w.json.id}/cancel`, {}, { roles: ['approver'], stepUp: true })).status, 403, 'ops_admin only');
  const canceled = await scene.s.bo('POST', `/v1/bo/withdrawals/${w.json.id}/cancel`, { note: 'the payee asked to be paid by cheque' }, { roles: ['ops_admin'], stepUp: true });
  assert.equal([canceled.status, canceled.json.status], [200, 'canceled'], canceled.text);
  const after = await balance();
  assert.is(after.available_minor, before.available_minor + w.json.total_locked_minor, 'the lock is released');
  assert.is((await scene.s.bo('POST', `/v1/bo/withdrawals/${w.json.id}/cancel`, {}, { roles: ['ops_admin'], stepUp: true })).json.error.code, 'withdrawal_not_cancelable');
  await ledgerBalanced();
});

test('the payee confirms a fill arrived: the withdrawing merchant records it (withdrawal.receipt_confirmed naming the fill), once; another merchant\'s key cannot', async () => {
  const { withdrawalId, legRef } = await settledFill();
  const path = `/v1/pay/withdrawals/${withdrawalId}/fills/${legRef}/confirm`;
  assert.is(expectError(await scene.s.call(scene.shop.live.api_key, 'POST', path, {}), 'resource_not_found').code, 'resource_not_found', "another merchant's order is not found");
  const before = eventsOf(withdrawalId, 'withdrawal.receipt_confirmed').length;
  const r = await scene.s.call(scene.payer.live.api_key, 'POST', path, {});
  assert.is(r.status, 200, r.text);
  assert.is(r.json.fills.find((f: any) => f.leg_ref === legRef).receipt_state, 'confirmed');
  const told = eventsOf(withdrawalId, 'withdrawal.receipt_confirmed');
  assert.is(told.length, before + 1);
  assert.is(told.at(-1).data.fill.leg_ref, legRef, 'the event names the fill');
  const again = await scene.s.call(scene.payer.live.api_key, 'POST', path, {});
  assert.is(again.status, 200, again.text);
  assert.is(eventsOf(withdrawalId, 'withdrawal.receipt_confirmed').length, before + 1, 'confirmed once');
  expectError(await scene.s.call(scene.payer.live.api_key, 'POST', `/v1/pay/withdrawals/${withdrawalId}/fills/leg_unknown/confirm`, {}), 'resource_not_found');
  expectError(await scene.s.call(scene.payer.live.api_key, 'POST', path, { note: 'x' }), 'validation_error');
});

test.run();
