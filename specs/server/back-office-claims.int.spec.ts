// Claims over real HTTP: a same-slip overpayment opens its claim by itself; an operator
// walks it open → under_review → refund_pending → return_pending_payout, and it closes by
// itself once its refund is paid out; the
// payout is a refund withdrawal (refund_of_deposit_id) to the payer's account, locked out
// of suspense — the merchant's available never moves — and filled by a deposit like any
// other; the ledger verifies at every step. Also: manual and late_slip claims, rejection,
// refusals (short note, wrong transition, close before the refund is final), the list's
// filters and paging; and a settled refund the bank recalls (its fill reversed): the money
// back to suspense and out again into a replacement refund, the claim reopened on it. A
// refund the payer owes back: on the console's claim page, the trial balance's owed_by_payers
// line, and the claims behind it listed by owed_by_payer=true (API and console), their sum per
// mode that line. The list by mode (livemode=true|false, API and console), as the queues.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { matchedDeposit, overpaidInNewWhiteLabel as overpaidIn, paidDeposit as paidDepositOf, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, type SlipScene } from '../support/slip-harness.ts';
import { depositBody, freshSender, sender, type MerchantKeys } from '../support/server-harness.ts';
import { verifyStore } from '../../adapters/sqlite/verify.ts';
import { answerStepUp, launchChromium, signIn } from '../support/console-browser.ts';
import { limits } from '../../core/limits.ts';

let scene: SlipScene;
let payer: MerchantKeys;
let shop: MerchantKeys;
const note = 'looked at the bank statement for this one';
const refundRecall = { reason_code: 'BANK_RECALL', note: 'the payer\'s bank recalled the refund transfer' };

test.before(async () => { scene = await slipScene(); });
test.after(async () => { await scene.s.stop(); });

function ledgerBalanced(step: string): void {
  const report = verifyStore(scene.s.running.store.db);
  assert.ok(report.ok, `${step}: ${JSON.stringify(report.mismatches).slice(0, 1500)}`);
  assert.is(report.postings_sum, '0', step);
}

/**
 * Which places of `account` (0 = its first digit) the masks of it in `texts` show, taken
 * together: a mask is a run of its length in digits and 'x' (separators aside) whose
 * digits all agree with the account at their places, places counted from the right.
 */
function revealedPlaces(account: string, texts: readonly string[]): Set<number> {
  const places = new Set<number>();
  for (const text of texts) {
    for (const [mask] of text.matchAll(/[0-9x][0-9x-]*[0-9x]/g)) {
      const shown = mask.replace(/-/g, '');
      if (shown.length !== account.length || !/\d/.test(shown) || [...shown].some((c, i) => c !== 'x' && c !== account[i])) continue;
      [...shown].forEach((c, i) => { if (c !== 'x') places.add(i); });
    }
  }
  return places;
}

const shopBalance = async () => (await scene.s.call(shop.live.api_key, 'GET', '/v1/pay/balance')).json;

/** A deposit of `amount` in the claims white label, paid with `paid` to `receiver`, verified. */
const paidDeposit = (amount: number, paid: number, receiver: { bank_code: string; account_number: string; account_name: string }, from = sender): Promise<any> => paidDepositOf(scene, shop, amount, paid, receiver, from);

/** A new white label of `name`'s, payer and shop its merchants: its deposit overpaid by 50 baht (slip-harness.ts overpaidInNewWhiteLabel). */
async function overpaidInNewWhiteLabel(name: string): Promise<any> {
  const scenario = await overpaidIn(scene, name);
  ({ payer, shop } = scenario);
  return scenario.deposit;
}

test('an overpayment claim walks every status; the refund withdrawal is funded from suspense and filled by a deposit', async () => {
  // A white label of its own, so the only liquidity is what this test opens.
  const d = await overpaidInNewWhiteLabel('Claims');
  assert.is(d.status, 'settled');
  assert.is(d.overpayment.amount_minor, 5_000);
  const claimId = d.overpayment.claim_id;
  const opened = await scene.s.bo('GET', `/v1/bo/claims/${claimId}`, undefined, { roles: ['support'] });
  assert.is(opened.status, 200, opened.text);
  assert.equal([opened.json.kind, opened.json.status, opened.json.amount_minor, opened.json.deposit_id, opened.json.version], ['overpayment', 'open', 5_000, d.id, 0]);
  assert.is(opened.json.evidence, 'same_transfer_excess');
  ledgerBalanced('opened');
  const before = await shopBalance();

  const short = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/review`, { note: 'too short' });
  assert.is(short.status, 422);
  assert.is(short.json.error.code, 'review_note_required');
  const early = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/payout`, { note }, { stepUp: true });
  assert.is(early.status, 409, early.text);

  const reviewed = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/review`, { note }, { sub: 'emp_claims', roles: ['ops_admin'] });
  assert.is(reviewed.status, 200, reviewed.text);
  assert.equal([reviewed.json.status, reviewed.json.version], ['under_review', 1]);
  ledgerBalanced('under_review');

  const tooMuch = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/refund`, { note, amount_minor: 5_001 }, { stepUp: true });
  assert.is(tooMuch.status, 422);
  // Money leaves suspense: the refund's approval and its payout need step-up, as adjustments do.
  const noStepUp = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/refund`, { note }, { sub: 'emp_claims' });
  assert.is(noStepUp.json.error.code, 'scope_denied', noStepUp.text);
  const refund = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/refund`, { note }, { sub: 'emp_claims', stepUp: true });
  assert.is(refund.status, 200, refund.text);
  assert.equal([refund.json.status, refund.json.refund_minor, refund.json.refund_account.account_number_masked], ['refund_pending', 5_000, 'xxxxxx3210']);
  ledgerBalanced('refund_pending');

  // … and two people: the operator who approved the refund does not pay it out.
  const samePerson = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/payout`, { note }, { sub: 'emp_claims', stepUp: true });
  assert.is(samePerson.status, 409, samePerson.text);
  assert.match(samePerson.json.error.message, /another operator pays it out/);
  const payout = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/payout`, { note }, { sub: 'emp_payer', stepUp: true });
  assert.is(payout.status, 200, payout.text);
  assert.is(payout.json.status, 'return_pending_payout');
  const refundW = payout.json.refund_withdrawal;
  assert.equal([refundW.refund_of_deposit_id, refundW.amount_total_minor, refundW.fee_total_minor, refundW.status], [d.id, 5_000, 0, 'open']);
  // The merchant cannot cancel it (the claim is the operators'), and the Thai says so rather than 'already finished'.
  const merchantCancel = await scene.s.call(shop.live.api_key, 'POST', `/v1/pay/withdrawals/${refundW.id}/cancel`, {});
  assert.equal([merchantCancel.status, merchantCancel.json.error?.code], [409, 'withdrawal_not_cancelable'], merchantCancel.text);
  assert.match(merchantCancel.json.error.message_th, /คืนเงินให้ผู้โอนตามคำร้อง/);
  const locked = await shopBalance();
  assert.is(locked.available_minor, before.available_minor, 'the refund never touches the merchant\'s available');
  assert.is(locked.reserved_minor, before.reserved_minor + 5_000, 'the refund is locked out of suspense');
  ledgerBalanced('return_pending_payout');
  // The finance analyst's suspense lines say who drew the refund out of suspense, and why.
  const today = new Date(scene.s.clock.now() + 7 * 3_600_000).toISOString().slice(0, 10);
  const suspense = await scene.s.bo('GET', `/v1/bo/reports/account-lines?account=suspense&date=${today}`, undefined, { roles: ['finance'] });
  const lock = suspense.json.data.find((l: any) => l.source?.id === refundW.id);
  assert.equal([lock?.posted_by, lock?.note], ['emp_payer', note], JSON.stringify(suspense.json.data));
  const notYet = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/close`, { note });
  assert.is(notYet.status, 409, 'the refund is not paid out yet');

  // A deposit of another end user, from another account, pays the payer's account: it fills the refund
  // (the payer himself is never matched to it: a transfer to his own account is no payment).
  const payerAccount = { bank_code: sender.bank_code, account_number: sender.account_number, account_name: sender.account_name_th };
  const filler = await paidDeposit(5_000, 5_000, payerAccount, freshSender());
  assert.is(filler.status, 'settled', JSON.stringify(filler));
  const filled = await scene.s.bo('GET', `/v1/bo/withdrawals/${refundW.id}`);
  assert.is(filled.json.withdrawal.status, 'settled');
  assert.is(filled.json.withdrawal.filled_minor, 5_000);
  const after = await shopBalance();
  assert.is(after.reserved_minor, before.reserved_minor);
  ledgerBalanced('refund filled');

  // The refund withdrawal settled, so the claim closed by itself with what it paid out.
  const closed = await scene.s.bo('GET', `/v1/bo/claims/${claimId}`);
  assert.equal([closed.json.status, closed.json.refunded_minor, closed.json.version], ['closed', 5_000, 4]);
  assert.equal(closed.json.notes.map((n: any) => n.status), ['open', 'under_review', 'refund_pending', 'return_pending_payout', 'closed']);
  assert.equal(closed.json.notes.map((n: any) => n.operator), [null, 'emp_claims', 'emp_claims', 'emp_payer', 'system']);
  // The deposit's operator view lists its claims, and its timeline carries each decision: who, why.
  const view = await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`);
  assert.equal(view.json.claims.map((c: any) => [c.id, c.status, c.refund_withdrawal_id]), [[claimId, 'closed', refundW.id]]);
  const claimSteps = view.json.timeline.filter((t: any) => t.step === 'claim');
  assert.equal(claimSteps.map((t: any) => [t.detail.status, t.detail.operator]),
    [['open', null], ['under_review', 'emp_claims'], ['refund_pending', 'emp_claims'], ['return_pending_payout', 'emp_payer'], ['closed', 'system']]);
  assert.is(claimSteps[2].detail.refund_minor, 5_000);
  assert.is(claimSteps[2].detail.note, note);
  const closeAgain = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/close`, { note });
  assert.is(closeAgain.status, 409);
  const final = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/reject`, { note });
  assert.is(final.status, 409);
  ledgerBalanced('closed');
  // Every change is journaled on the claim's stream, version by version.
  const versions = scene.s.running.store.db.prepare('SELECT version, type FROM journal WHERE stream = ? ORDER BY version').all(claimId);
  assert.equal(versions.map((r: any) => r.type), ['ClaimOpened', 'ClaimReviewStarted', 'ClaimRefundApproved', 'ClaimRefundPaidOut', 'ClaimClosed']);
});

test('a reversed deposit\'s claim is refunded no more: a refund paying out holds the reversal until it is canceled; after it, refund and payout are 409 and the claim closes', async () => {
  const payee = { bank_code: '004', account_number: '5550002222', account_name: 'สมหญิง รักดี' };
  const ben = await scene.s.beneficiary(payer.id, true, payee.account_number);
  for (const ref of ['claims-rev-1', 'claims-rev-2']) {
    const w = await scene.s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 40_000, currency: 'THB', merchant_reference: ref, end_user_ref: 'payee', beneficiary_id: ben });
    assert.is(w.status, 201, w.text);
  }
  const recall = { reason_code: 'BANK_RECALL', note: 'the sending bank recalled the whole transfer' };

  // A refund being paid out: the reversal waits until it is canceled, then goes through.
  const paying = await paidDeposit(40_000, 45_000, payee, freshSender());
  const payingClaim = paying.overpayment.claim_id;
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${payingClaim}/review`, { note }, { sub: 'emp_claims', roles: ['ops_admin'] })).status, 200);
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${payingClaim}/refund`, { note }, { sub: 'emp_claims', stepUp: true })).status, 200);
  const payout = await scene.s.bo('POST', `/v1/bo/claims/${payingClaim}/payout`, { note }, { sub: 'emp_payer', stepUp: true });
  assert.is(payout.status, 200, payout.text);
  const refundId = payout.json.refund_withdrawal.id;
  const held = await scene.s.bo('POST', `/v1/bo/deposits/${paying.id}/reverse`, recall, { stepUp: true });
  assert.equal([held.status, held.json.error?.code, held.json.error?.details], [409, 'operation_not_allowed', { claim_id: payingClaim, refund_withdrawal_id: refundId }], held.text);
  assert.match(held.json.error.message, new RegExp(`/v1/bo/withdrawals/${refundId}/cancel`));
  assert.is((await scene.s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${paying.id}`)).json.status, 'settled', 'the refused reversal left nothing behind');
  const canceled = await scene.s.bo('POST', `/v1/bo/withdrawals/${refundId}/cancel`, { note: 'the bank recalled the transfer: no refund' }, { roles: ['ops_admin'], stepUp: true });
  assert.is(canceled.status, 200, canceled.text);
  assert.equal((await scene.s.bo('GET', `/v1/bo/claims/${payingClaim}`)).json.status, 'closed');
  assert.is((await scene.s.bo('POST', `/v1/bo/deposits/${paying.id}/reverse`, recall, { stepUp: true })).status, 200);
  ledgerBalanced('reversed after its refund was canceled');

  // A claim still open when its deposit is reversed: no refund is approved, nor one approved paid out; it closes.
  const open = await paidDeposit(40_000, 45_000, payee, freshSender());
  const claimId = open.overpayment.claim_id;
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/review`, { note }, { sub: 'emp_claims', roles: ['ops_admin'] })).status, 200);
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/refund`, { note }, { sub: 'emp_claims', stepUp: true })).status, 200);
  assert.is((await scene.s.bo('POST', `/v1/bo/deposits/${open.id}/reverse`, recall, { stepUp: true })).status, 200);
  const payoutAfter = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/payout`, { note }, { sub: 'emp_payer', stepUp: true });
  assert.equal([payoutAfter.status, payoutAfter.json.error?.code], [409, 'operation_not_allowed'], payoutAfter.text);
  assert.match(payoutAfter.json.error.message, /reversed: its transfer is undone/);
  const closed = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/close`, { note });
  assert.is(closed.status, 200, closed.text);
  assert.equal([closed.json.status, closed.json.refunded_minor], ['closed', 0]);
  ledgerBalanced('a reversed deposit\'s claim closed unpaid');
});

test('manual and late_slip claims: opened by an operator, listed by kind and status with paging, rejected; together never more than the deposit', async () => {
  const d = await matchedDeposit(scene);
  // Not while the order can still be paid: the payer's transfer is a slip for it, and a refund beside it would pay twice.
  const early = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'manual', deposit_id: d.id, amount_minor: 2_000, note });
  assert.equal([early.status, early.json.error?.code, early.json.error?.details], [409, 'operation_not_allowed', { status: 'awaiting_payment' }], early.text);
  const canceled = await scene.s.call(scene.shop.live.api_key, 'POST', `/v1/pay/deposits/${d.id}/cancel`, {});
  assert.is(canceled.status, 200, canceled.text);
  // Nor while it still takes a late slip: the payer's slip would credit the transfer to the merchant, and a refund beside it pay it twice.
  const lateWindow = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'manual', deposit_id: d.id, amount_minor: 2_000, note });
  assert.equal([lateWindow.status, lateWindow.json.error?.details], [409, { status: 'canceled', kind: 'manual' }], lateWindow.text);
  await scene.s.running.services.write.advanceClock!(limits.lateSlipWindowMs + 60_000);
  assert.is((await scene.s.call(scene.shop.live.api_key, 'GET', `/v1/pay/deposits/${d.id}`)).json.is_terminal, true, 'the late-slip window closed');
  const opened: string[] = [];
  for (const kind of ['manual', 'late_slip', 'manual']) {
    const r = await scene.s.bo('POST', '/v1/bo/claims', { kind, deposit_id: d.id, amount_minor: 2_000, note, evidence: 'bank statement line 42' });
    assert.is(r.status, 201, r.text);
    assert.equal([r.json.kind, r.json.status, r.json.evidence], [kind, 'open', 'bank statement line 42']);
    opened.push(r.json.id);
  }
  const unknownDeposit = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'manual', deposit_id: 'dep_nope', amount_minor: 2_000, note });
  assert.is(unknownDeposit.status, 422);
  const badKind = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'gift', deposit_id: d.id, amount_minor: 2_000, note });
  assert.is(badKind.status, 422);
  const tooMuch = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'manual', deposit_id: d.id, amount_minor: d.amount_minor + 1, note });
  assert.is(tooMuch.status, 422, tooMuch.text);
  assert.equal([tooMuch.json.error.code, tooMuch.json.error.details.fields], ['validation_error', [{ path: 'amount_minor', reason: 'maximum' }]]);
  const all = await scene.s.bo('GET', `/v1/bo/claims?deposit_id=${d.id}`);
  assert.is(all.json.data.length, 3, 'a refused claim leaves nothing behind');

  const manual = await scene.s.bo('GET', `/v1/bo/claims?kind=manual&deposit_id=${d.id}&limit=1`, undefined, { roles: ['finance'] });
  assert.is(manual.status, 200, manual.text);
  assert.equal(manual.json.data.map((c: any) => c.id), [opened[0]]);
  assert.is(manual.json.has_more, true);
  const next = await scene.s.bo('GET', `/v1/bo/claims?kind=manual&deposit_id=${d.id}&limit=1&cursor=${manual.json.next_cursor}`);
  assert.equal(next.json.data.map((c: any) => c.id), [opened[2]]);
  assert.is(next.json.has_more, false);
  assert.is(next.json.next_cursor, null);
  const late = await scene.s.bo('GET', `/v1/bo/claims?kind=late_slip&status=open&deposit_id=${d.id}`);
  assert.equal(late.json.data.map((c: any) => c.id), [opened[1]]);

  const rejected = await scene.s.bo('POST', `/v1/bo/claims/${opened[1]}/reject`, { note });
  assert.is(rejected.status, 200, rejected.text);
  assert.is(rejected.json.status, 'rejected');
  assert.equal((await scene.s.bo('GET', `/v1/bo/claims?status=rejected&deposit_id=${d.id}`)).json.data.map((c: any) => c.id), [opened[1]]);
  // A claim opened by hand: its opener does not approve its refund; a missing note is a note too short.
  await scene.s.bo('POST', `/v1/bo/claims/${opened[2]}/review`, { note });
  const ownRefund = await scene.s.bo('POST', `/v1/bo/claims/${opened[2]}/refund`, { note }, { stepUp: true });
  assert.is(ownRefund.status, 409, ownRefund.text);
  assert.match(ownRefund.json.error.message, /another operator approves its refund/);
  const noNote = await scene.s.bo('POST', `/v1/bo/claims/${opened[2]}/refund`, {}, { sub: 'emp_other', stepUp: true });
  assert.is(noNote.json.error.code, 'review_note_required', noNote.text);
  const byAnother = await scene.s.bo('POST', `/v1/bo/claims/${opened[2]}/refund`, { note }, { sub: 'emp_other', stepUp: true });
  assert.is(byAnother.status, 200, byAnother.text);
  // under_review may close without a refund (resolved some other way), with its note.
  await scene.s.bo('POST', `/v1/bo/claims/${opened[0]}/review`, { note });
  const closed = await scene.s.bo('POST', `/v1/bo/claims/${opened[0]}/close`, { note: 'payer confirmed it was a test transfer' });
  assert.equal([closed.json.status, closed.json.refunded_minor], ['closed', 0]);
  // A claim closed with nothing refunded holds nothing of the deposit: its amount may be claimed again (the other manual claim still holds its 2,000).
  const again = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'manual', deposit_id: d.id, amount_minor: d.amount_minor - 2_000, note });
  assert.is(again.status, 201, again.text);
  const beyond = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'manual', deposit_id: d.id, amount_minor: 100, note });
  assert.equal([beyond.status, beyond.json.error?.details?.fields], [422, [{ path: 'amount_minor', reason: 'maximum', hint: 'at most 0' }]], beyond.text);
  // Late-slip and manual claims are on the same money, the order's amount: one kind does not open what the other holds.
  const otherKind = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'late_slip', deposit_id: d.id, amount_minor: 100, note });
  assert.equal([otherKind.status, otherKind.json.error?.details?.fields], [422, [{ path: 'amount_minor', reason: 'maximum', hint: 'at most 0' }]], otherKind.text);
  assert.match(otherKind.json.error.message, /late_slip and manual together/);
  // Money beyond the order is another pot, and only what the service saw paid beyond it (none here): not a way round the cap.
  const beyondTheOrder = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'overpayment', deposit_id: d.id, amount_minor: 100, note });
  assert.equal([beyondTheOrder.status, beyondTheOrder.json.error?.code], [409, 'operation_not_allowed'], beyondTheOrder.text);
  assert.match(beyondTheOrder.json.error.message, /No overpayment was seen/);
  ledgerBalanced('manual claims');
});

test('a further transfer from another account: its claim names who sent it, and its refund goes to the payer\'s account the operator names, never the order\'s sender by default', async () => {
  const payee = { bank_code: '004', account_number: '5550003333', account_name: 'สมหญิง รักดี' };
  const ben = await scene.s.beneficiary(payer.id, true, payee.account_number);
  const w = await scene.s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 100_000, currency: 'THB', merchant_reference: `claims-other-${randomUUID()}`, end_user_ref: 'payee', beneficiary_id: ben });
  assert.is(w.status, 201, w.text);
  const from = freshSender();
  const created = await scene.s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 40_000, fill_preference: 'internal_only', end_user_ref: `u-${randomUUID()}`, sender: from }));
  assert.is(created.status, 201, created.text);
  const pay = async (amount: number, who: { bank_code: string; account_number: string; account_name_th: string }) => {
    const image = pngSlip();
    const transfer = transferFor(scene, created.json, { amount_minor: amount, receiver: payee, sender: who, image_sha256: sha256Hex(image) });
    await registerTransfer(scene.s, transfer);
    assert.is((await uploadFile(created.json.slip_upload, image)).status, 202);
    await scene.s.running.slipWorker.drain();
    return transfer.trans_ref;
  };
  const first = await pay(40_000, { bank_code: from.bank_code, account_number: from.account_number, account_name_th: from.account_name_th });
  // Someone else sends 25,000 to the same account and uploads it on the order: deposit.overpaid, a claim of its own.
  // The slip prints the account as Thai slips do (xxx-x-x6789-x: the four digits before the last).
  const other = { bank_code: '002', account_number: '1234567890', account_name_th: 'วิชัย ดีมาก' };
  const second = await pay(25_000, other);
  // The back office's view of the order paid twice: each slip with the transfer it showed and its amount.
  const slips = (await scene.s.bo('GET', `/v1/bo/deposits/${created.json.id}`, undefined, { roles: ['support'] })).json.evidence.slips;
  assert.equal(slips.map((x: any) => [x.trans_ref, x.transferred_amount_minor]), [[first, 40_000], [second, 25_000]], JSON.stringify(slips));
  const d = (await scene.s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${created.json.id}`)).json;
  assert.equal([d.status, d.overpayment?.cause, d.overpayment?.amount_minor], ['settled', 'additional_transfer', 25_000], JSON.stringify(d.overpayment));
  const claimId = d.overpayment.claim_id;
  const claim = (await scene.s.bo('GET', `/v1/bo/claims/${claimId}`, undefined, { roles: ['support'] })).json;
  assert.equal(claim.transfer_sender, { bank_code: '002', account_number_masked: 'xxx-x-xx789-x', name_masked: 'วิชัย ด***' });
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/review`, { note })).status, 200);
  const toSender = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/refund`, { note }, { stepUp: true });
  assert.equal([toSender.status, toSender.json.error?.code, toSender.json.error?.details], [409, 'operation_not_allowed', { transfer_sender: 'bank 002, xxx-x-xx789-x, วิชัย ด***' }], toSender.text);
  const named = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/refund`, { note, refund_account: other }, { stepUp: true });
  assert.is(named.status, 200, named.text);
  assert.equal(named.json.refund_account, { bank_code: '002', account_number_masked: 'xxxxxx7890', account_name_th_masked: 'วิชัย ด***' });
  // The refund account is the transfer's sender: every mask of it the claim view and the refusal show, taken together, reveal its last four digits and no other.
  const view = (await scene.s.bo('GET', `/v1/bo/claims/${claimId}`, undefined, { roles: ['support'] })).json;
  const revealed = revealedPlaces(other.account_number, [JSON.stringify(view), toSender.text]);
  assert.equal([...revealed].sort(), [6, 7, 8, 9], JSON.stringify([view.refund_account, view.transfer_sender]));
  ledgerBalanced('refund to the account named');
});

test('a refund the bank recalls after it settled is paid again by a replacement refund; the claim reopens and closes refunded in full', async () => {
  // A white label of its own (the last test here), so the only liquidity is what it opens;
  // a same-slip overpayment of 50 baht: its claim is refunded (two operators) and paid out.
  const d = await overpaidInNewWhiteLabel('Recall');
  assert.is(d.status, 'settled');
  const claimId = d.overpayment.claim_id;
  const before = await shopBalance();
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/review`, { note }, { sub: 'emp_claims' })).status, 200);
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/refund`, { note }, { sub: 'emp_claims', stepUp: true })).status, 200);
  const payout = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/payout`, { note }, { sub: 'emp_payer', stepUp: true });
  assert.is(payout.status, 200, payout.text);
  const first = payout.json.refund_withdrawal;

  // A deposit from another account pays the payer's account: the refund settles and the claim closes.
  const payerAccount = { bank_code: sender.bank_code, account_number: sender.account_number, account_name: sender.account_name_th };
  assert.is((await paidDeposit(5_000, 5_000, payerAccount, freshSender())).status, 'settled');
  const settled = (await scene.s.bo('GET', `/v1/bo/withdrawals/${first.id}`)).json.withdrawal;
  assert.equal([settled.status, settled.filled_minor, settled.fills.length], ['settled', 5_000, 1]);
  const closed = (await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json;
  assert.equal([closed.status, closed.refunded_minor], ['closed', 5_000]);
  ledgerBalanced('refund settled, claim closed');

  // The bank recalls the refund's transfer: the operator reverses its fill (step-up, as any fill reversal).
  const legRef = settled.fills[0].leg_ref;
  const noStepUp = await scene.s.bo('POST', `/v1/bo/withdrawals/${first.id}/fills/${legRef}/reverse`, refundRecall, { sub: 'emp_recall', roles: ['ops_admin'] });
  assert.is(noStepUp.json.error?.code, 'scope_denied', noStepUp.text);
  const reversed = await scene.s.bo('POST', `/v1/bo/withdrawals/${first.id}/fills/${legRef}/reverse`, refundRecall, { sub: 'emp_recall', stepUp: true });
  assert.is(reversed.status, 200, reversed.text);
  // The refund never moves back: settled, its fill reversed, nothing filled any more.
  assert.equal([reversed.json.status, reversed.json.filled_minor], ['settled', 0]);
  const again = await scene.s.bo('POST', `/v1/bo/withdrawals/${first.id}/fills/${legRef}/reverse`, refundRecall, { sub: 'emp_recall', stepUp: true });
  assert.equal([again.status, again.json.error?.code], [409, 'operation_not_allowed'], 'a fill is reversed once');

  // The claim reopened on a replacement refund of the recalled amount, to the same account.
  const reopened = (await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json;
  assert.equal([reopened.status, reopened.refunded_minor], ['return_pending_payout', null]);
  const replacement = reopened.refund_withdrawal;
  assert.ok(replacement && replacement.id !== first.id, JSON.stringify(reopened));
  assert.equal(
    [replacement.status, replacement.refund_of_deposit_id, replacement.replacement_of_withdrawal_id, replacement.amount_total_minor, replacement.fee_total_minor, replacement.beneficiary_id],
    ['open', d.id, first.id, 5_000, 0, first.beneficiary_id],
  );
  const lastNote = reopened.notes[reopened.notes.length - 1];
  assert.equal([lastNote.status, lastNote.operator], ['return_pending_payout', 'emp_recall']);
  assert.match(lastNote.note, new RegExp(`recalled 50(\\.00)? baht of the refund ${first.id}.*refunded again by ${replacement.id}`));
  // The recalled money went back to suspense and out of it into the replacement's lock: the merchant's available never moved.
  const locked = await shopBalance();
  assert.is(locked.available_minor, before.available_minor, 'a recalled refund never touches the merchant\'s available');
  assert.is(locked.reserved_minor, before.reserved_minor + 5_000, 'the replacement is locked out of suspense');
  ledgerBalanced('recalled, replacement open');
  // While it pays out the claim does not close by hand.
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/close`, { note })).status, 409);
  // The deposit's timeline shows the recall: who, what and the replacement.
  const view = await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`);
  const recallStep = view.json.timeline.filter((t: any) => t.step === 'claim').at(-1);
  assert.equal([recallStep.detail.status, recallStep.detail.operator, recallStep.detail.recalled_withdrawal_id, recallStep.detail.recalled_minor, recallStep.detail.refund_withdrawal_id],
    ['return_pending_payout', 'emp_recall', first.id, 5_000, replacement.id]);

  // Another payer's deposit fills the replacement: the claim closes again, refunded in full.
  assert.is((await paidDeposit(5_000, 5_000, payerAccount, freshSender())).status, 'settled');
  const paid = (await scene.s.bo('GET', `/v1/bo/withdrawals/${replacement.id}`)).json.withdrawal;
  assert.equal([paid.status, paid.filled_minor], ['settled', 5_000]);
  const done = (await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json;
  assert.equal([done.status, done.refunded_minor, done.refund_withdrawal_id], ['closed', 5_000, replacement.id]);
  assert.equal(done.notes.map((n: any) => n.status), ['open', 'under_review', 'refund_pending', 'return_pending_payout', 'closed', 'return_pending_payout', 'closed']);
  const after = await shopBalance();
  assert.equal([after.available_minor, after.reserved_minor], [before.available_minor, before.reserved_minor]);
  ledgerBalanced('replacement settled, claim closed');
  const types = scene.s.running.store.db.prepare('SELECT type FROM journal WHERE stream = ? ORDER BY version').pluck(true).all(claimId);
  assert.equal(types, ['ClaimOpened', 'ClaimReviewStarted', 'ClaimRefundApproved', 'ClaimRefundPaidOut', 'ClaimClosed', 'ClaimRefundRecalled', 'ClaimClosed']);
});

test('a deposit reversed after its claim\'s refund paid the payer: refused until the operator records the refund as owed back by the payer; then the claim says so and the ledger balances', async () => {
  // A white label of its own: a same-slip overpayment of 50 baht, its claim refunded (two operators), paid out and filled.
  const d = await overpaidInNewWhiteLabel('Reversal');
  const claimId = d.overpayment.claim_id;
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/review`, { note }, { sub: 'emp_claims' })).status, 200);
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/refund`, { note }, { sub: 'emp_claims', stepUp: true })).status, 200);
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/payout`, { note }, { sub: 'emp_payer', stepUp: true })).status, 200);
  const payerAccount = { bank_code: sender.bank_code, account_number: sender.account_number, account_name: sender.account_name_th };
  assert.is((await paidDeposit(5_000, 5_000, payerAccount, freshSender())).status, 'settled');
  const refunded = (await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json;
  assert.equal([refunded.status, refunded.refunded_minor, refunded.owed_by_payer_minor], ['closed', 5_000, null]);
  const before = await shopBalance();
  const journalBefore = scene.s.running.store.db.prepare('SELECT count(*) FROM journal').pluck(true).get();
  ledgerBalanced('refund settled');

  // The bank recalls the order's whole transfer (450 baht, the 50 refunded with it): the payer would have the 50 twice.
  const recall = { reason_code: 'BANK_RECALL', note: 'the sending bank recalled the whole transfer' };
  const refused = await scene.s.bo('POST', `/v1/bo/deposits/${d.id}/reverse`, recall, { stepUp: true });
  assert.equal([refused.status, refused.json.error?.code], [409, 'operation_not_allowed'], refused.text);
  assert.equal([refused.json.error.details.claim_id, refused.json.error.details.refunded_minor], [claimId, 5_000]);
  assert.match(refused.json.error.message, /already refunded 50(\.00)? baht of this transfer.*claim_refunds: "recover_from_payer"/);
  // Nothing left behind: the deposit settled, the merchant's balance, the claim and the journal as they were.
  assert.is((await scene.s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${d.id}`)).json.status, 'settled');
  assert.equal(await shopBalance(), before);
  assert.is((await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json.version, refunded.version);
  assert.is(scene.s.running.store.db.prepare('SELECT count(*) FROM journal').pluck(true).get(), journalBefore);
  const unknown = await scene.s.bo('POST', `/v1/bo/deposits/${d.id}/reverse`, { ...recall, claim_refunds: 'write_off' }, { stepUp: true });
  assert.equal([unknown.status, unknown.json.error?.code], [422, 'validation_error'], unknown.text);

  // The operator, having checked the recall took the whole transfer, reverses recording the refund as owed back:
  // in the console, whose first try meets the same refusal and then offers to record it (a tick), the second reverses.
  const browser = await launchChromium();
  try {
    // The claim's page before: refunded 50 baht, nothing owed, so no such line.
    const lead = await signIn(browser, scene.s.url, 'emp_lead', { hash: `#/claims/${claimId}`, page: 'claim' });
    assert.is(await lead.page.$('[data-testid=claim-owed-by-payer]'), null, 'nothing owed, no line');
    await lead.goto(`#/deposits/${d.id}`, 'deposit');
    await lead.page.click('[data-testid=reverse-form] summary');
    await lead.page.selectOption('[data-testid=reverse-reason]', 'BANK_RECALL');
    await lead.page.fill('[data-testid=reverse-note]', recall.note);
    const firstTry = lead.page.waitForResponse((r) => r.url().endsWith('/reverse'), { timeout: 60_000 });
    await answerStepUp(lead, () => lead.page.click('[data-testid=reverse]'));
    assert.is((await firstTry).status(), 409);
    await lead.page.waitForSelector('[data-testid=reverse-recover]');
    assert.match(await lead.page.textContent('[data-testid=reverse-recover-label]') ?? '', new RegExp(`${claimId} already refunded the payer ฿50\\.00 of this transfer`));
    await lead.page.check('[data-testid=reverse-recover]');
    const reversedAnswer = lead.page.waitForResponse((r) => r.url().endsWith('/reverse'), { timeout: 60_000 });
    await answerStepUp(lead, () => lead.page.click('[data-testid=reverse]'));
    const reversed = await reversedAnswer;
    assert.is(reversed.status(), 200);
    assert.is(JSON.parse(reversed.request().postData() ?? '{}').claim_refunds, 'recover_from_payer');
    assert.is((await reversed.json()).status, 'reversed');
    // The claim's page now shows what the payer owes back, in baht as what it refunded, labelled in English and Thai.
    await lead.goto(`#/claims/${claimId}`, 'claim');
    const owedFact = () => lead.page.$eval('[data-testid=claim-owed-by-payer]', (e) => [e.closest('dd')?.previousElementSibling?.textContent, e.textContent]);
    assert.equal(await owedFact(), ['Owed by the payer', '฿50.00']);
    await lead.page.click('[data-testid=lang-th]');
    await lead.page.waitForSelector('main[data-page="claim"][data-lang="th"][data-ready="1"]');
    assert.equal(await owedFact(), ['ยอดที่ผู้โอนต้องคืน', '฿50.00']);
  } finally {
    await browser.close();
  }
  const after = await shopBalance();
  assert.is(after.pending_clearing_minor, before.pending_clearing_minor - d.credited_amount_minor, 'the merchant gives back what the order credited, no more');
  assert.equal([after.available_minor, after.reserved_minor], [before.available_minor, before.reserved_minor]);
  const owed = (await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json;
  assert.equal([owed.status, owed.refunded_minor, owed.owed_by_payer_minor, owed.version], ['closed', 5_000, 5_000, refunded.version + 1]);
  const last = owed.notes.at(-1);
  assert.equal([last.status, last.operator], ['closed', 'emp_lead']);
  assert.match(last.note, new RegExp(`${d.id} was reversed \\(BANK_RECALL\\) after this claim refunded 50(\\.00)? baht.*owes it back`));
  const step = (await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`)).json.timeline.filter((t: any) => t.step === 'claim').at(-1);
  assert.equal([step.detail.status, step.detail.operator, step.detail.owed_by_payer_minor, step.detail.reason_code], ['closed', 'emp_lead', 5_000, 'BANK_RECALL']);
  // suspense still shows the 50 paid out (the service's claim, now on the payer); the trial balance balances.
  const tb = (await scene.s.bo('GET', '/v1/bo/reports/trial-balance', undefined, { roles: ['finance'] })).json;
  const live = (tb.sections ?? [tb]).find((x: any) => x.livemode === true);
  assert.ok(live.balanced);
  ledgerBalanced('reversed, the refund owed back');
  const types = scene.s.running.store.db.prepare('SELECT type FROM journal WHERE stream = ? ORDER BY version').pluck(true).all(claimId);
  assert.equal(types, ['ClaimOpened', 'ClaimReviewStarted', 'ClaimRefundApproved', 'ClaimRefundPaidOut', 'ClaimClosed', 'ClaimRefundOwed']);
  const again = await scene.s.bo('POST', `/v1/bo/deposits/${d.id}/reverse`, { ...recall, claim_refunds: 'recover_from_payer' }, { stepUp: true });
  assert.equal([again.status, again.json.error?.code], [409, 'operation_not_allowed']);
});

/** The live section of the trial balance at `asOfMs` (now when omitted), JSON and CSV rows. */
async function liveTrialBalance(asOfMs?: number): Promise<{ section: any; csv: Record<string, string>[] }> {
  const query = asOfMs === undefined ? '' : `as_of=${new Date(asOfMs).toISOString()}&`;
  const json = await scene.s.bo('GET', `/v1/bo/reports/trial-balance?${query}`, undefined, { roles: ['finance'] });
  assert.is(json.status, 200, json.text);
  const csv = await scene.s.bo('GET', `/v1/bo/reports/trial-balance?${query}format=csv`, undefined, { roles: ['finance'] });
  assert.is(csv.status, 200, csv.text);
  const records = parse(csv.text, { columns: true }) as Record<string, string>[];
  return { section: json.json.sections.find((x: any) => x.livemode === true), csv: records.filter((r) => r.livemode === 'true') };
}

/** What the journal's postings put in `account` (the ledger, not a report). */
const postedTo = (account: string): number => Number(scene.s.running.store.db.prepare('SELECT coalesce(sum(amount), 0) FROM postings WHERE account = ?').pluck(true).get(account));

/** The trial balance's owed_by_payers line in each mode, as what the payers owe (its debit balance; 0 where a mode has no line). */
async function owedOnTrialBalance(): Promise<Record<string, number>> {
  const tb = await scene.s.bo('GET', '/v1/bo/reports/trial-balance', undefined, { roles: ['finance'] });
  assert.is(tb.status, 200, tb.text);
  const owed: Record<string, number> = { live: 0, sandbox: 0 };
  for (const section of tb.json.sections) owed[section.livemode ? 'live' : 'sandbox'] = -(section.accounts.find((a: any) => a.name === 'owed_by_payers')?.balance_minor ?? 0);
  return owed;
}

/** Every claim GET /v1/bo/claims?`filter` lists, as finance reads it, one a page (the cursor carries the filter). */
async function claimsPaged(filter: string): Promise<any[]> {
  const listed: any[] = [];
  let cursor: string | null = null;
  do {
    const r = await scene.s.bo('GET', `/v1/bo/claims?${filter}&limit=1${cursor ? `&cursor=${cursor}` : ''}`, undefined, { roles: ['finance'] });
    assert.is(r.status, 200, r.text);
    listed.push(...r.json.data);
    cursor = r.json.next_cursor;
  } while (cursor);
  return listed;
}

/** Every claim GET /v1/bo/claims?owed_by_payer=`owed` lists. */
const claimsListed = (owed: boolean): Promise<any[]> => claimsPaged(`owed_by_payer=${owed}`);

/** What the listed claims' payers owe back, summed per mode. */
function owedByMode(claims: readonly any[]): Record<string, number> {
  const owed: Record<string, number> = { live: 0, sandbox: 0 };
  for (const c of claims) owed[c.livemode ? 'live' : 'sandbox']! += c.owed_by_payer_minor;
  return owed;
}

/** The claims a payer owes back, listed in one call, are the trial balance's owed_by_payers line claim by claim; the others owe nothing. */
async function owedClaimsMatchTrialBalance(step: string): Promise<{ owed: any[]; others: any[] }> {
  const owed = await claimsListed(true);
  const others = await claimsListed(false);
  assert.ok(owed.every((c) => c.owed_by_payer_minor > 0), `${step}: every owed claim owes`);
  assert.ok(others.every((c) => c.owed_by_payer_minor === null), `${step}: the others owe nothing`);
  assert.equal(owedByMode(owed), await owedOnTrialBalance(), `${step}: the owed claims sum to the trial balance's owed_by_payers`);
  return { owed, others };
}

test('a refund the payer owes back is its own line in the trial balance, owed_by_payers, taken from suspense\'s balance, until the bank recalls it from the payer', async () => {
  // A same-slip overpayment of 50 baht, refunded (two operators), paid out and filled.
  const d = await overpaidInNewWhiteLabel('Owed');
  const claimId = d.overpayment.claim_id;
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/review`, { note }, { sub: 'emp_claims' })).status, 200);
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/refund`, { note }, { sub: 'emp_claims', stepUp: true })).status, 200);
  const payout = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/payout`, { note }, { sub: 'emp_payer', stepUp: true });
  assert.is(payout.status, 200, payout.text);
  const refundW = payout.json.refund_withdrawal;
  const payerAccount = { bank_code: sender.bank_code, account_number: sender.account_number, account_name: sender.account_name_th };
  assert.is((await paidDeposit(5_000, 5_000, payerAccount, freshSender())).status, 'settled');
  const owedLine = (section: any) => section.accounts.find((a: any) => a.account === 'sys:live:owed_by_payers');
  const suspenseLine = (section: any) => section.accounts.find((a: any) => a.account === 'sys:live:suspense');
  // What earlier tests' closed refunds left the payees owing, which suspense hands to owed_by_payees.
  const payees = (section: any) => section.accounts.find((a: any) => a.account === 'sys:live:owed_by_payees')?.reclassified_minor ?? 0;
  const before = (await liveTrialBalance()).section;
  const owedBefore = owedLine(before)?.balance_minor ?? 0; // earlier tests' debts, if any
  scene.s.clock.advance(60_000);
  const beforeReversal = scene.s.clock.now() - 1;

  // The bank recalls the whole transfer; the operator records the refund as owed back by the payer.
  const recall = { reason_code: 'BANK_RECALL', note: 'the sending bank recalled the whole transfer', claim_refunds: 'recover_from_payer' };
  const reversed = await scene.s.bo('POST', `/v1/bo/deposits/${d.id}/reverse`, recall, { stepUp: true });
  assert.is(reversed.status, 200, reversed.text);
  assert.is((await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json.owed_by_payer_minor, 5_000);

  // The finance analyst's trial balance names the debt: owed_by_payers, a debit of 50 baht more, taken from
  // suspense's debit balance (where the refund was drawn); turnovers are the postings', and it balances.
  const { section, csv } = await liveTrialBalance();
  const owed = owedLine(section);
  assert.ok(owed, `an owed_by_payers line: ${JSON.stringify(section.accounts.map((a: any) => a.account))}`);
  assert.equal([owed.kind, owed.name, owed.postings, owed.debit_minor, owed.credit_minor, owed.reclassified_minor, owed.balance_minor, owed.side],
    ['system', 'owed_by_payers', 0, 0, 0, owedBefore - 5_000, owedBefore - 5_000, 'debit']);
  const suspense = suspenseLine(section);
  assert.is(suspense.reclassified_minor, -owed.reclassified_minor - payees(section), 'suspense hands over what owed_by_payers (and owed_by_payees) take');
  assert.is(suspense.credit_minor - suspense.debit_minor, postedTo('sys:live:suspense'), 'suspense\'s turnover is its postings\'');
  assert.is(suspense.balance_minor, postedTo('sys:live:suspense') - owed.balance_minor - payees(section));
  assert.ok(section.balanced);
  assert.is(section.total_debit_minor, section.total_credit_minor);
  assert.is(section.accounts.reduce((t: number, a: any) => t + a.balance_minor, 0), 0, 'the balances sum to zero');
  assert.is(section.accounts.reduce((t: number, a: any) => t + a.reclassified_minor, 0), 0, 'the reclassifications sum to zero');
  const owedRow = csv.find((r) => r.account === 'sys:live:owed_by_payers')!;
  assert.equal([owedRow.reclassified_minor, owedRow.balance_minor, owedRow.side], [String(owedBefore - 5_000), String(owedBefore - 5_000), 'debit']);
  const total = csv.find((r) => r.account === 'total')!;
  assert.equal([total.reclassified_minor, total.balance_minor, total.side], ['0', '0', 'balanced']);
  // As of before the reversal, nothing more was owed.
  assert.is(owedLine((await liveTrialBalance(beforeReversal)).section)?.balance_minor ?? 0, owedBefore);
  ledgerBalanced('the refund owed back');

  // The analyst lists the claims behind the line in one call (owed_by_payer=true): this claim among them, owing 50 baht,
  // and their sum per mode is the line; the others (owed_by_payer=false) owe nothing.
  const listed = await owedClaimsMatchTrialBalance('the refund owed back');
  assert.equal(listed.owed.filter((c) => c.id === claimId).map((c) => [c.livemode, c.owed_by_payer_minor]), [[true, 5_000]]);
  assert.not.ok(listed.others.some((c) => c.id === claimId));
  assert.ok(listed.others.length > 0, 'the earlier tests\' claims owe nothing');
  // Validated as the route's other filters: a value not true or false, an empty one, a cursor of another filter.
  const bad = await scene.s.bo('GET', '/v1/bo/claims?owed_by_payer=yes', undefined, { roles: ['finance'] });
  assert.equal([bad.status, bad.json.error?.code, bad.json.error?.details?.fields], [422, 'validation_error', [{ path: 'query.owed_by_payer', reason: 'enum', hint: 'true, false' }]], bad.text);
  const empty = await scene.s.bo('GET', '/v1/bo/claims?owed_by_payer=', undefined, { roles: ['finance'] });
  assert.equal([empty.status, empty.json.error?.details?.fields?.[0]?.reason], [422, 'empty'], empty.text);
  const firstOwed = await scene.s.bo('GET', '/v1/bo/claims?owed_by_payer=true&limit=1', undefined, { roles: ['finance'] });
  assert.ok(firstOwed.json.next_cursor || listed.owed.length === 1);
  if (firstOwed.json.next_cursor) {
    const mixed = await scene.s.bo('GET', `/v1/bo/claims?owed_by_payer=false&limit=1&cursor=${firstOwed.json.next_cursor}`, undefined, { roles: ['finance'] });
    assert.equal([mixed.status, mixed.json.error?.code], [400, 'cursor_filter_mismatch'], mixed.text);
  }
  // The console's claims list has the filter, in English and Thai, and shows what each payer owes.
  const browser = await launchChromium();
  try {
    const analyst = await signIn(browser, scene.s.url, 'emp_lead', { hash: '#/claims', page: 'claims' });
    assert.is((await analyst.page.textContent('[data-testid=claims-filters] label:has([data-testid=filter-owed-by-payer])'))?.trim().startsWith('Payer owes a refund back'), true);
    await analyst.page.selectOption('[data-testid=filter-owed-by-payer]', 'true');
    await analyst.page.waitForURL(/owed_by_payer=true/);
    // The page lists the owed claims alone once the filtered answer is in (the unfiltered page listed them among the others).
    const owedIds = listed.owed.map((c) => c.id);
    await analyst.page.waitForFunction((ids) => JSON.stringify([...document.querySelectorAll('[data-testid=claim-row]')].map((tr) => tr.getAttribute('data-id'))) === JSON.stringify(ids), owedIds, { timeout: 15_000 })
      .catch(async () => assert.unreachable(`rows ${JSON.stringify(await analyst.page.$$eval('[data-testid=claim-row]', (trs) => trs.map((tr) => tr.getAttribute('data-id'))))}, expected ${JSON.stringify(owedIds)}`));
    const rows = await analyst.page.$$eval('[data-testid=claim-row]', (trs) => trs.map((tr) => [tr.getAttribute('data-id'), tr.querySelector('[data-testid=claim-owed]')?.textContent?.trim()]));
    assert.equal(rows.map(([id]) => id), owedIds);
    assert.equal(rows.find(([id]) => id === claimId)?.[1], '฿50.00');
    await analyst.page.click('[data-testid=lang-th]');
    await analyst.page.waitForSelector('main[data-page="claims"][data-lang="th"][data-ready="1"]');
    assert.match(await analyst.page.textContent('[data-testid=claims-filters] label:has([data-testid=filter-owed-by-payer])') ?? '', 'ผู้โอนต้องคืนเงิน');
    assert.match(await analyst.page.textContent('[data-testid=claims-table] thead') ?? '', 'ยอดที่ผู้โอนต้องคืน');
  } finally {
    await browser.close();
  }

  // The payer's bank gives the refund back (its fill reversed): the debt is recovered, the line back where it was.
  scene.s.clock.advance(60_000);
  const legRef = (await scene.s.bo('GET', `/v1/bo/withdrawals/${refundW.id}`)).json.withdrawal.fills[0].leg_ref;
  const recovered = await scene.s.bo('POST', `/v1/bo/withdrawals/${refundW.id}/fills/${legRef}/reverse`, refundRecall, { sub: 'emp_recall', stepUp: true });
  assert.is(recovered.status, 200, recovered.text);
  assert.equal([(await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json.owed_by_payer_minor ?? null], [null]);
  const after = (await liveTrialBalance()).section;
  assert.equal([owedLine(after).balance_minor, suspenseLine(after).reclassified_minor], [owedBefore, -owedBefore - payees(after)]);
  assert.is(suspenseLine(after).balance_minor, postedTo('sys:live:suspense') - owedBefore - payees(after));
  assert.ok(after.balanced);
  ledgerBalanced('the refund recovered from the payer');
  // The recovered claim leaves the list of what payers owe, which still sums to the line.
  const recoveredList = await owedClaimsMatchTrialBalance('the refund recovered from the payer');
  assert.not.ok(recoveredList.owed.some((c) => c.id === claimId));
  assert.ok(recoveredList.others.some((c) => c.id === claimId));
});

test('a refund paid out while a payer\'s deposit waits for liquidity: the payout opens the refund and that deposit is matched to it at once (not a 500)', async () => {
  const d = await overpaidInNewWhiteLabel('Waiting');
  const claimId = d.overpayment.claim_id;
  // A deposit of 50 baht from another payer, with no withdrawal left to pay: it waits for liquidity.
  const waiting = await scene.s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 5_000, fill_preference: 'internal_only', end_user_ref: `u-${randomUUID()}`, sender: freshSender() }));
  assert.is(waiting.status, 202, waiting.text);
  assert.is(waiting.json.status, 'awaiting_liquidity');
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/review`, { note }, { sub: 'emp_claims' })).status, 200);
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/refund`, { note }, { sub: 'emp_claims', stepUp: true })).status, 200);
  const payout = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/payout`, { note }, { sub: 'emp_payer', stepUp: true });
  assert.is(payout.status, 200, payout.text);
  assert.is(payout.json.status, 'return_pending_payout');
  const matched = (await scene.s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${waiting.json.id}`)).json;
  assert.is(matched.status, 'awaiting_payment', JSON.stringify(matched));
  assert.is(matched.legs[0].receiver.account_number_masked?.slice(-4) ?? matched.legs[0].receiver.account_number?.slice(-4), sender.account_number.slice(-4), 'its leg pays the payer\'s account');
  ledgerBalanced('refund matched to a waiting deposit');
});

test('the claims list by mode, as the deposit and withdrawal queues: livemode=true the live claims, false the sandbox ones; validated and bound to the cursor', async () => {
  // A sandbox order canceled and past its late-slip window, a claim opened on it by hand.
  const d = await scene.s.call(scene.shop.sandbox.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 20_000, fill_preference: 'internal_only', end_user_ref: `u-${randomUUID()}` }));
  assert.ok(d.status === 201 || d.status === 202, d.text);
  assert.is((await scene.s.call(scene.shop.sandbox.api_key, 'POST', `/v1/pay/deposits/${d.json.id}/cancel`, {})).status, 200);
  await scene.s.running.services.write.advanceClock!(limits.lateSlipWindowMs + 60_000);
  const opened = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'manual', deposit_id: d.json.id, amount_minor: 2_000, note });
  assert.is(opened.status, 201, opened.text);
  assert.is(opened.json.livemode, false);

  const every = await claimsPaged('kind=manual');
  const live = await claimsPaged('kind=manual&livemode=true');
  const sandbox = await claimsPaged('kind=manual&livemode=false');
  assert.equal(sandbox.map((c) => c.id), [opened.json.id], 'the sandbox claim alone');
  assert.ok(live.length > 0 && live.every((c) => c.livemode === true), 'the earlier tests\' live claims, each live');
  assert.equal(every.map((c) => c.id).sort(), [...live, ...sandbox].map((c) => c.id).sort(), 'the two modes are every claim');
  // With the other filters: the sandbox's claims its payers owe back (none).
  assert.equal(await claimsPaged('owed_by_payer=true&livemode=false'), []);
  // Validated as the queues' livemode: a value not true or false, an empty one, a cursor of another mode.
  const bad = await scene.s.bo('GET', '/v1/bo/claims?livemode=live', undefined, { roles: ['finance'] });
  assert.equal([bad.status, bad.json.error?.code, bad.json.error?.details?.fields], [422, 'validation_error', [{ path: 'query.livemode', reason: 'enum', hint: 'true, false' }]], bad.text);
  const empty = await scene.s.bo('GET', '/v1/bo/claims?livemode=', undefined, { roles: ['finance'] });
  assert.equal([empty.status, empty.json.error?.details?.fields?.[0]?.reason], [422, 'empty'], empty.text);
  const firstLive = await scene.s.bo('GET', '/v1/bo/claims?livemode=true&limit=1', undefined, { roles: ['finance'] });
  assert.ok(firstLive.json.next_cursor, 'more than one live claim');
  const mixed = await scene.s.bo('GET', `/v1/bo/claims?livemode=false&limit=1&cursor=${firstLive.json.next_cursor}`, undefined, { roles: ['finance'] });
  assert.equal([mixed.status, mixed.json.error?.code], [400, 'cursor_filter_mismatch'], mixed.text);
  const unfiltered = await scene.s.bo('GET', `/v1/bo/claims?limit=1&cursor=${firstLive.json.next_cursor}`, undefined, { roles: ['finance'] });
  assert.equal([unfiltered.status, unfiltered.json.error?.code], [400, 'cursor_filter_mismatch'], unfiltered.text);

  // The console's claims list has the mode filter, as the queue and the approvals have it.
  const browser = await launchChromium();
  try {
    const analyst = await signIn(browser, scene.s.url, 'emp_lead', { hash: '#/claims?kind=manual', page: 'claims' });
    await analyst.page.selectOption('[data-testid=filter-livemode]', 'false');
    await analyst.page.waitForURL(/livemode=false/);
    await analyst.page.waitForFunction((id) => JSON.stringify([...document.querySelectorAll('[data-testid=claim-row]')].map((tr) => tr.getAttribute('data-id'))) === JSON.stringify([id]), opened.json.id, { timeout: 15_000 })
      .catch(async () => assert.unreachable(`rows ${JSON.stringify(await analyst.page.$$eval('[data-testid=claim-row]', (trs) => trs.map((tr) => tr.getAttribute('data-id'))))}, expected [${opened.json.id}]`));
  } finally {
    await browser.close();
  }
});

/** A sandbox order of `merchant` canceled and past its late-slip window, with a manual claim opened on it by hand: answers the claim. */
async function manualSandboxClaim(merchant: MerchantKeys): Promise<any> {
  const d = await scene.s.call(merchant.sandbox.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 20_000, fill_preference: 'internal_only', end_user_ref: `u-${randomUUID()}` }));
  assert.ok(d.status === 201 || d.status === 202, d.text);
  assert.is((await scene.s.call(merchant.sandbox.api_key, 'POST', `/v1/pay/deposits/${d.json.id}/cancel`, {})).status, 200);
  await scene.s.running.services.write.advanceClock!(limits.lateSlipWindowMs + 60_000);
  const opened = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'manual', deposit_id: d.json.id, amount_minor: 2_000, note });
  assert.is(opened.status, 201, opened.text);
  return opened.json;
}

test('each claim names its merchant by its merchant_id, in the list and on its own, and the console shows that name: never a merchant whose name holds the id', async () => {
  const tag = randomUUID().slice(0, 8);
  const first = await scene.s.onboard(`Claims first ${tag}`, scene.shop.whiteLabelId);
  // A second merchant whose name holds the first's id: a directory search for that id (?q=) finds both.
  const lookalike = await scene.s.onboard(`Lookalike of ${first.id} ${tag}`, scene.shop.whiteLabelId);
  const searched = await scene.s.bo('GET', `/v1/bo/merchants?q=${first.id}`, undefined, { roles: ['finance'] });
  assert.equal(searched.json.data.map((m: any) => m.id).sort(), [first.id, lookalike.id].sort(), 'the search matches the name too');
  const names: Record<string, string> = { [first.id]: `Claims first ${tag}`, [lookalike.id]: `Lookalike of ${first.id} ${tag}` };
  const claims = [await manualSandboxClaim(first), await manualSandboxClaim(lookalike)];
  assert.equal(claims.map((c) => [c.merchant_id, c.merchant_name]), [[first.id, names[first.id]], [lookalike.id, names[lookalike.id]]], 'the opened claim names its merchant');

  for (const c of claims) {
    const one = await scene.s.bo('GET', `/v1/bo/claims/${c.id}`, undefined, { roles: ['finance'] });
    assert.equal([one.status, one.json.merchant_id, one.json.merchant_name], [200, c.merchant_id, names[c.merchant_id]], one.text);
    const listed = await scene.s.bo('GET', `/v1/bo/claims?merchant_id=${c.merchant_id}`, undefined, { roles: ['support'] });
    assert.equal(listed.json.data.map((x: any) => [x.id, x.merchant_name]), [[c.id, names[c.merchant_id]]], listed.text);
  }
  const every = await claimsPaged('kind=manual');
  assert.ok(every.every((c) => typeof c.merchant_name === 'string' && c.merchant_name !== ''), 'every listed claim has its merchant\'s name');

  // The console: the first merchant's claim page names the first merchant, and the list's rows each theirs.
  const browser = await launchChromium();
  try {
    const lead = await signIn(browser, scene.s.url, 'emp_lead', { hash: `#/claims/${claims[0].id}`, page: 'claim' });
    await lead.page.waitForSelector('[data-testid=claim-merchant-name]');
    assert.is(await lead.page.textContent('[data-testid=claim-merchant-name]'), names[first.id]);
    await lead.goto(`#/claims/${claims[1].id}`, 'claim');
    await lead.page.waitForFunction((name) => document.querySelector('[data-testid=claim-merchant-name]')?.textContent === name, names[lookalike.id], { timeout: 15_000 })
      .catch(async () => assert.unreachable(`the lookalike's claim names ${await lead.page.textContent('[data-testid=claim-merchant-name]').catch(() => 'nobody')}`));
    await lead.goto(`#/claims?kind=manual&livemode=false&merchant_id=${first.id}`, 'claims');
    await lead.page.waitForSelector(`[data-testid=claim-row][data-id="${claims[0].id}"] [data-testid=claim-row-merchant-name]`, { timeout: 15_000 })
      .catch(() => assert.unreachable('no merchant name on the claim\'s row'));
    assert.equal(await lead.page.$$eval('[data-testid=claim-row-merchant-name]', (es) => es.map((e) => e.textContent)), [names[first.id]]);
  } finally {
    await browser.close();
  }
});

test.run();
