// A decision's body refused for what it says spends no step-up (README, Token bounds: "whose
// body the route refuses (422 …), so the operator mends it and sends it again with the same
// step-up"): a note too short — on a deposit reversal, a fill's reversal, a claim's refund
// and its payout — is answered before the step-up is checked, and so is an adjustment's
// reason_code for the other direction, its unknown merchant and a bucket other than
// available, so the decision mended passes with the same step-up token, as an operator who
// pasted one ($SATANG_STEP_UP_TOKEN, the console's Command line page) sends it. So is every ⚑
// route's target there is not (404: a merchant to suspend, a white label's gateway route and
// its unknown bank, a deposit or fill to reverse, a withdrawal to cancel, a claim to refund,
// an adjustment proposal to approve, a key to issue for or revoke, a webhook endpoint or
// delivery to resend, a signing key to withdraw; an operator revocation's subject too long,
// 422 — those three also refused without a step-up), a signing key's withdrawal while it
// signs (409), a claim's refund refused for its account (409) or its amount (422), and a
// reversal refused for its claim's refund (409: paying the payer out, or paid without
// claim_refunds), its deposit's status (409) or its bucket's balance (402). Over real
// HTTP against settled deposits; the step-up is still one action's: after the decision it is
// spent.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { freshSender, sender, type Reply } from '../support/server-harness.ts';
import { limits, webhookLimits } from '../../core/limits.ts';
import { addEndpoint, advance, deliveries, emitEvent, publishedKeys, Receiver, second } from '../webhooks/support.ts';
import { getDeposit, matchedDeposit, overpaidInNewWhiteLabel, paidDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, type SlipScene } from '../support/slip-harness.ts';

let scene: SlipScene;

test.before(async () => { scene = await slipScene(); });
test.after(async () => { await scene.s.stop(); await Receiver.stopAll(); });

/** Notes too short: none, a word, 16 readable characters among spaces. */
const shortNotes = [undefined, 'recalled', '   recalled     by   bank        '];

async function settledDeposit(): Promise<any> {
  const from = freshSender();
  const d = await matchedDeposit(scene, { sender: from, end_user_ref: `u-${randomUUID()}` });
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, d, { sender: { ...from }, image_sha256: sha256Hex(image) }));
  assert.is((await uploadFile(d.slip_upload, image)).status, 202);
  await scene.s.running.slipWorker.drain();
  assert.is((await getDeposit(scene, d.id)).status, 'settled');
  return d;
}

/** POSTs `body` as `sub` (ops_admin) with the step-up token given (none: undefined) and a fresh Idempotency-Key. */
async function steppedUp(sub: string, stepUp: string | undefined, path: string, body: unknown): Promise<Reply> {
  return scene.s.raw('POST', path, {
    headers: { Authorization: `Bearer ${await scene.s.operatorToken(sub, false, ['ops_admin'])}`, ...(stepUp === undefined ? {} : { 'X-PG-Step-Up-Token': stepUp }), 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function refusedShort(r: Reply): void {
  assert.equal([r.status, r.json.error?.code, r.json.error?.details?.min_length], [422, 'review_note_required', 20], r.text);
}

test('a reversal refused for a short note spends no step-up: mended, it passes with the same one, which is then spent', async () => {
  const d = await settledDeposit();
  const stepUp = await scene.s.operatorToken('emp_reverser', true, ['ops_admin']);
  const reverse = (body: unknown, path = `/v1/bo/deposits/${d.id}/reverse`) => steppedUp('emp_reverser', stepUp, path, body);
  for (const note of shortNotes) refusedShort(await reverse({ reason_code: 'BANK_RECALL', ...(note === undefined ? {} : { note }) }));
  assert.is((await getDeposit(scene, d.id)).status, 'settled', 'nothing done');
  const reversed = await reverse({ reason_code: 'BANK_RECALL', note: "the sender's bank recalled the whole transfer" });
  assert.is(reversed.status, 200, reversed.text);
  assert.is(reversed.json.status, 'reversed');
  // One step-up, one action: another reversal with it (of another settled deposit, which could be reversed) is refused.
  const other = await settledDeposit();
  const spent = await reverse({ reason_code: 'BANK_RECALL', note: 'the bank recalled this one too, says the ticket' }, `/v1/bo/deposits/${other.id}/reverse`);
  assert.equal([spent.status, spent.json.error?.code], [403, 'scope_denied'], spent.text);
  assert.match(spent.json.error.message, /already used for another action/);
});

test("a fill's reversal refused for a short note spends no step-up: mended, it passes with the same one", async () => {
  const d = await settledDeposit();
  const withdrawal = await scene.s.bo('GET', `/v1/bo/withdrawals/${scene.withdrawalIds[0]}`, undefined, { roles: ['support'] });
  const fill = withdrawal.json.withdrawal.fills.find((f: any) => f.deposit_id === d.id);
  assert.ok(fill, withdrawal.text);
  const stepUp = await scene.s.operatorToken('emp_fill_reverser', true, ['ops_admin']);
  const reverse = (body: unknown) => steppedUp('emp_fill_reverser', stepUp, `/v1/bo/withdrawals/${scene.withdrawalIds[0]}/fills/${fill.leg_ref}/reverse`, body);
  for (const note of shortNotes) refusedShort(await reverse({ reason_code: 'BANK_RECALL', ...(note === undefined ? {} : { note }) }));
  const reversed = await reverse({ reason_code: 'BANK_RECALL', note: "the payer's bank recalled this transfer" });
  assert.is(reversed.status, 200, reversed.text);
  assert.is(reversed.json.fills.find((f: any) => f.leg_ref === fill.leg_ref).receipt_state, 'reversed');
});

test('an adjustment whose reason_code names the other direction spends no step-up: mended, it posts with the same one', async () => {
  const stepUp = await scene.s.operatorToken('emp_adjuster', true, ['ops_admin']);
  const adjust = (reasonCode: string) => steppedUp('emp_adjuster', stepUp, `/v1/bo/merchants/${scene.shop.id}/adjustments`,
    { livemode: true, amount_minor: 100, direction: 'credit', bucket: 'available', reason_code: reasonCode, reason: 'goodwill for the outage of the 3rd' });
  const refused = await adjust('LOSS_RECOVERY');
  assert.equal([refused.status, refused.json.error?.code, refused.json.error?.details?.fields?.[0]?.reason], [422, 'validation_error', 'direction'], refused.text);
  const posted = await adjust('GOODWILL_CREDIT');
  assert.is(posted.status, 201, posted.text);
  assert.equal([posted.json.direction, posted.json.reason_code], ['credit', 'GOODWILL_CREDIT']);
});

test('an adjustment to an unknown merchant or to a bucket other than available spends no step-up: mended, it posts with the same one', async () => {
  const body = { livemode: true, amount_minor: 100, direction: 'credit', reason_code: 'GOODWILL_CREDIT', reason: 'goodwill for the outage of the 3rd' };
  const adjust = (stepUp: string, merchantId: string, bucket: string) =>
    steppedUp('emp_adjuster', stepUp, `/v1/bo/merchants/${merchantId}/adjustments`, { ...body, bucket });
  const unknown = await scene.s.operatorToken('emp_adjuster', true, ['ops_admin']);
  const notFound = await adjust(unknown, 'mer_nobody', 'available');
  assert.equal([notFound.status, notFound.json.error?.code], [404, 'resource_not_found'], notFound.text);
  const mended = await adjust(unknown, scene.shop.id, 'available');
  assert.is(mended.status, 201, mended.text);

  const wrongBucket = await scene.s.operatorToken('emp_adjuster', true, ['ops_admin']);
  for (const bucket of ['reserved', 'pending_clearing']) {
    const refused = await adjust(wrongBucket, scene.shop.id, bucket);
    assert.equal([refused.status, refused.json.error?.code, refused.json.error?.details?.bucket], [409, 'operation_not_allowed', bucket], refused.text);
  }
  const posted = await adjust(wrongBucket, scene.shop.id, 'available');
  assert.is(posted.status, 201, posted.text);
  assert.equal([posted.json.bucket_to, posted.json.amount_minor], ['available', 100]);
});

test("a claim's refund and its payout refused for a short note spend no step-up: mended, each passes with the same one", async () => {
  const d = await settledDeposit();
  const note = 'looked at the bank statement for this one';
  const opened = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'manual', deposit_id: d.id, amount_minor: 1_000, note }, { sub: 'emp_opener' });
  assert.is(opened.status, 201, opened.text);
  const claimId = opened.json.id as string;
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/review`, { note }, { sub: 'emp_opener' })).status, 200);
  // Two operators, each with a step-up of their own, each first sending a note too short.
  for (const [transition, sub, status] of [['refund', 'emp_refunder', 'refund_pending'], ['payout', 'emp_payer', 'return_pending_payout']] as const) {
    const stepUp = await scene.s.operatorToken(sub, true, ['ops_admin']);
    const decide = (body: unknown) => steppedUp(sub, stepUp, `/v1/bo/claims/${claimId}/${transition}`, body);
    for (const short of shortNotes) refusedShort(await decide(short === undefined ? {} : { note: short }));
    const decided = await decide({ note });
    assert.is(decided.status, 200, `${transition}: ${decided.text}`);
    assert.is(decided.json.status, status);
  }
});

test("a reversal refused for its claim's refund — paying the payer out, then paid without claim_refunds — spends no step-up: mended, it passes with the same one", async () => {
  // A white label of its own, so the refund's only liquidity is the deposit that pays it.
  const { deposit: d, shop } = await overpaidInNewWhiteLabel(scene, 'StepUpReversal');
  const claimId = d.overpayment.claim_id as string;
  const note = 'looked at the bank statement for this one';
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/review`, { note }, { sub: 'emp_claims' })).status, 200);
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/refund`, { note }, { sub: 'emp_claims', stepUp: true })).status, 200);
  const payout = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/payout`, { note }, { sub: 'emp_payer', stepUp: true });
  assert.is(payout.status, 200, payout.text);

  const stepUp = await scene.s.operatorToken('emp_reverser', true, ['ops_admin']);
  const recall = { reason_code: 'BANK_RECALL', note: "the sender's bank recalled the whole transfer" };
  const reverse = (body: unknown) => steppedUp('emp_reverser', stepUp, `/v1/bo/deposits/${d.id}/reverse`, body);
  const paying = await reverse(recall);
  assert.equal([paying.status, paying.json.error?.code, paying.json.error?.details], [409, 'operation_not_allowed', { claim_id: claimId, refund_withdrawal_id: payout.json.refund_withdrawal.id }], paying.text);
  // The refund paid: a deposit of the shop's fills it, and the claim closes refunded.
  const payerAccount = { bank_code: sender.bank_code, account_number: sender.account_number, account_name: sender.account_name_th };
  assert.is((await paidDeposit(scene, shop, 5_000, 5_000, payerAccount, freshSender())).status, 'settled');
  assert.is((await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json.status, 'closed');
  const paid = await reverse(recall);
  assert.equal([paid.status, paid.json.error?.code, paid.json.error?.details?.claim_id, paid.json.error?.details?.refunded_minor], [409, 'operation_not_allowed', claimId, 5_000], paid.text);
  assert.match(paid.json.error.message, /claim_refunds: "recover_from_payer"/);
  assert.is((await getDeposit(scene, d.id, shop.live.api_key)).status, 'settled', 'nothing done');
  const reversed = await reverse({ ...recall, claim_refunds: 'recover_from_payer' });
  assert.is(reversed.status, 200, reversed.text);
  assert.is(reversed.json.status, 'reversed');
});

test("a claim's refund refused for its account or its amount spends no step-up: mended, it is approved with the same one", async () => {
  // An order paid twice, the second transfer from another account: its claim's refund needs that account named.
  const from = freshSender();
  const d = await matchedDeposit(scene, { sender: from, end_user_ref: `u-${randomUUID()}` });
  const other = { bank_code: '002', account_number: '1234567890', account_name_th: 'วิชัย ดีมาก' };
  for (const [amount, who] of [[d.amount_minor, { ...from }], [25_000, other]] as const) {
    const image = pngSlip();
    await registerTransfer(scene.s, transferFor(scene, d, { amount_minor: amount, sender: who, image_sha256: sha256Hex(image) }));
    assert.is((await uploadFile(d.slip_upload, image)).status, 202);
    await scene.s.running.slipWorker.drain();
  }
  const overpaid = await getDeposit(scene, d.id);
  assert.equal([overpaid.status, overpaid.overpayment?.cause, overpaid.overpayment?.amount_minor], ['settled', 'additional_transfer', 25_000], JSON.stringify(overpaid.overpayment));
  const claimId = overpaid.overpayment.claim_id as string;
  const note = 'the payer confirmed the account it came from';
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/review`, { note }, { sub: 'emp_opener' })).status, 200);

  const stepUp = await scene.s.operatorToken('emp_refunder', true, ['ops_admin']);
  const refund = (body: Record<string, unknown>) => steppedUp('emp_refunder', stepUp, `/v1/bo/claims/${claimId}/refund`, { note, ...body });
  const toSender = await refund({});
  assert.equal([toSender.status, toSender.json.error?.code, Object.keys(toSender.json.error?.details ?? {})], [409, 'operation_not_allowed', ['transfer_sender']], toSender.text);
  for (const amount of [limits.legAmountMinMinor - 1, 25_001]) {
    const outOfRange = await refund({ refund_account: other, amount_minor: amount });
    assert.equal([outOfRange.status, outOfRange.json.error?.code, outOfRange.json.error?.details?.fields?.[0]], [422, 'validation_error', { path: 'amount_minor', reason: 'out_of_range' }], outOfRange.text);
  }
  const approved = await refund({ refund_account: other });
  assert.is(approved.status, 200, approved.text);
  assert.equal([approved.json.status, approved.json.refund_minor, approved.json.refund_account.account_number_masked], ['refund_pending', 25_000, 'xxxxxx7890']);
});

/** `refused` (each: path and body) answer `code`; then `mended` passes with the same step-up, answering `status`. */
async function mendedWithSameStepUp(sub: string, refused: readonly (readonly [string, unknown, number, string])[], mended: readonly [string, unknown], status: number): Promise<Reply> {
  const stepUp = await scene.s.operatorToken(sub, true, ['ops_admin']);
  for (const [path, body, code, error] of refused) {
    const r = await steppedUp(sub, stepUp, path, body);
    assert.equal([r.status, r.json.error?.code], [code, error], `${path}: ${r.text}`);
  }
  const r = await steppedUp(sub, stepUp, mended[0], mended[1]);
  assert.is(r.status, status, `${mended[0]}: ${r.text}`);
  return r;
}

const unknown = (path: string, body: unknown = {}) => [path, body, 404, 'resource_not_found'] as const;

test('suspending or lifting the suspension of a merchant there is not spends no step-up: the real one passes with the same one', async () => {
  const reason = { reason: 'chargebacks under review' };
  const suspended = await mendedWithSameStepUp('emp_suspender', [unknown('/v1/bo/merchants/mer_nobody/suspend', reason)], [`/v1/bo/merchants/${scene.shop.id}/suspend`, reason], 200);
  assert.is(suspended.json.suspended, true);
  const lifted = await mendedWithSameStepUp('emp_suspender', [unknown('/v1/bo/merchants/mer_nobody/unsuspend')], [`/v1/bo/merchants/${scene.shop.id}/unsuspend`, {}], 200);
  assert.is(lifted.json.suspended, false);
});

test("a gateway route for a white label there is not, or to a bank that receives none, spends no step-up: mended, it is proposed with the same one", async () => {
  const route = { bank_code: '004', account_number: '7771234567', account_name: 'บริษัท เกตเวย์ จำกัด', ttl_seconds: limits.gatewayRouteTtlSecondsMin };
  const path = `/v1/bo/white-labels/${scene.shop.whiteLabelId}/gateway-route`;
  const proposed = await mendedWithSameStepUp('emp_router', [
    unknown('/v1/bo/white-labels/wl_nobody/gateway-route', route),
    [path, { ...route, bank_code: '999' }, 422, 'validation_error'],
  ], [path, route], 202);
  assert.equal([proposed.json.status, proposed.json.bank_code], ['pending_approval', '004']);
});

test('an issued key for a merchant there is not, and a revocation of a key there is not, spend no step-up: the real ones pass with the same', async () => {
  const issued = await mendedWithSameStepUp('emp_keys', [unknown('/v1/bo/merchants/mer_nobody/keys', { livemode: false, scopes: ['wallet:read'] })],
    [`/v1/bo/merchants/${scene.shop.id}/keys`, { livemode: false, scopes: ['wallet:read'] }], 201);
  const revoked = await mendedWithSameStepUp('emp_keys', [unknown('/v1/bo/keys/key_nobody/revoke')], [`/v1/bo/keys/${issued.json.key_id}/revoke`, {}], 200);
  assert.is(revoked.json.revoked, true);
});

test('a reversal of a deposit there is not, or of a fill a withdrawal does not have, spends no step-up: the real one passes with the same one', async () => {
  const d = await settledDeposit();
  const note = "the sender's bank recalled the whole transfer";
  const reversed = await mendedWithSameStepUp('emp_reverser', [unknown('/v1/bo/deposits/dep_nobody/reverse', { reason_code: 'BANK_RECALL', note })],
    [`/v1/bo/deposits/${d.id}/reverse`, { reason_code: 'BANK_RECALL', note }], 200);
  assert.is(reversed.json.status, 'reversed');

  const other = await settledDeposit();
  const w = scene.withdrawalIds[0];
  const fill = (await scene.s.bo('GET', `/v1/bo/withdrawals/${w}`, undefined, { roles: ['support'] })).json.withdrawal.fills.find((f: any) => f.deposit_id === other.id);
  const body = { reason_code: 'BANK_RECALL', note };
  const fillReversed = await mendedWithSameStepUp('emp_fill_reverser', [unknown(`/v1/bo/withdrawals/wdr_nobody/fills/${fill.leg_ref}/reverse`, body), unknown(`/v1/bo/withdrawals/${w}/fills/leg_nobody/reverse`, body)],
    [`/v1/bo/withdrawals/${w}/fills/${fill.leg_ref}/reverse`, body], 200);
  assert.is(fillReversed.json.fills.find((f: any) => f.leg_ref === fill.leg_ref).receipt_state, 'reversed');
});

test("a refund of a claim there is not spends no step-up: the real claim's passes with the same one", async () => {
  const d = await settledDeposit();
  const note = 'looked at the bank statement for this one';
  const opened = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'manual', deposit_id: d.id, amount_minor: 1_000, note }, { sub: 'emp_opener' });
  assert.is(opened.status, 201, opened.text);
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${opened.json.id}/review`, { note }, { sub: 'emp_opener' })).status, 200);
  const refunded = await mendedWithSameStepUp('emp_refunder', [unknown('/v1/bo/claims/clm_nobody/refund', { note })], [`/v1/bo/claims/${opened.json.id}/refund`, { note }], 200);
  assert.is(refunded.json.status, 'refund_pending');
});

test('an approval of an adjustment proposal there is not spends no step-up: the waiting one is approved with the same one', async () => {
  const amount = limits.adjustmentFourEyesMinorMin;
  const proposed = await scene.s.bo('POST', `/v1/bo/merchants/${scene.shop.id}/adjustments`,
    { livemode: true, amount_minor: amount, direction: 'credit', bucket: 'available', reason_code: 'GOODWILL_CREDIT', reason: 'goodwill for the outage of the 3rd' }, { sub: 'emp_proposer', stepUp: true });
  assert.is(proposed.status, 202, proposed.text);
  const approved = await mendedWithSameStepUp('emp_approver', [unknown(`/v1/bo/merchants/${scene.shop.id}/adjustments/adjp_nobody/approve`, { amount_minor: amount })],
    [`/v1/bo/merchants/${scene.shop.id}/adjustments/${proposed.json.id}/approve`, { amount_minor: amount }], 201);
  assert.equal([approved.json.proposed_by, approved.json.amount_minor], ['emp_proposer', amount]);
});

test('a cancellation of a withdrawal there is not spends no step-up: the real one is canceled with the same one', async () => {
  const w = scene.withdrawalIds[scene.withdrawalIds.length - 1];
  const canceled = await mendedWithSameStepUp('emp_canceler', [unknown('/v1/bo/withdrawals/wdr_nobody/cancel')], [`/v1/bo/withdrawals/${w}/cancel`, { note: 'the payer asked to stop it' }], 200);
  assert.is(canceled.json.status, 'canceled');
});

/** `body` POSTed as `sub` (ops_admin) without a step-up token is refused 403 scope_denied, asking for one. */
async function refusedWithoutStepUp(sub: string, path: string, body: unknown = {}): Promise<void> {
  const r = await steppedUp(sub, undefined, path, body);
  assert.equal([r.status, r.json.error?.code], [403, 'scope_denied'], `${path}: ${r.text}`);
  assert.match(r.json.error.message, /needs a step-up token/);
}

test('a resend to an endpoint or of a delivery there is not spends no step-up: the real one is resent with the same one, and none without a step-up', async () => {
  const receiver = await Receiver.start(() => scene.s.clock.now());
  const endpointId = await addEndpoint(scene.s, scene.shop.id, receiver.url);
  await emitEvent(scene.s, scene.shop);
  await advance(scene.s, 0);
  const [delivery] = await deliveries(scene.s, endpointId);
  assert.ok(delivery, 'the event was delivered');
  const path = `/v1/bo/webhooks/${endpointId}/deliveries/${delivery.id}/resend`;
  await refusedWithoutStepUp('emp_resender', path);
  const resent = await mendedWithSameStepUp('emp_resender', [unknown(`/v1/bo/webhooks/we_nobody/deliveries/${delivery.id}/resend`), unknown(`/v1/bo/webhooks/${endpointId}/deliveries/dlv_nobody/resend`)], [path, {}], 201);
  assert.equal([resent.json.event_id, resent.json.resend], [delivery.event_id, true]);
});

test('a withdrawal of a signing key there is not, or of the one signing now, spends no step-up: the rotated-out key is withdrawn with the same one, and not without a step-up', async () => {
  const old = (await publishedKeys(scene.s)).keys.find((k) => k.status === 'active')!;
  const rotated = await scene.s.bo('POST', '/v1/bo/webhooks/signing-keys/rotate', { notice_seconds: webhookLimits.keyRotationNoticeMsMin / 1000 }, { sub: 'emp_keys', stepUp: true });
  assert.is(rotated.status, 201, rotated.text);
  await advance(scene.s, webhookLimits.keyRotationNoticeMsMin + second); // the new key signs: the old one may be withdrawn
  const path = `/v1/bo/webhooks/signing-keys/${old.kid}/withdraw`;
  await refusedWithoutStepUp('emp_keys', path);
  const withdrawn = await mendedWithSameStepUp('emp_keys', [
    unknown('/v1/bo/webhooks/signing-keys/whk_nobody/withdraw'),
    [`/v1/bo/webhooks/signing-keys/${rotated.json.kid}/withdraw`, {}, 409, 'operation_not_allowed'], // the key signing now
  ], [path, {}], 200);
  assert.equal([withdrawn.json.kid, withdrawn.json.status], [old.kid, 'withdrawn']);
});

test('a revocation of a subject too long to be an operator spends no step-up: the real one is revoked with the same one, and none without a step-up', async () => {
  const path = '/v1/bo/operators/emp_departed/revoke';
  const body = { reason: 'left the company' };
  await refusedWithoutStepUp('emp_offboarder', path, body);
  const revoked = await mendedWithSameStepUp('emp_offboarder', [[`/v1/bo/operators/emp_${'x'.repeat(200)}/revoke`, body, 422, 'validation_error']], [path, body], 200);
  assert.equal([revoked.json.object, revoked.json.sub, revoked.json.revoked_by], ['operator_revocation', 'emp_departed', 'emp_offboarder']);
});

// Last: it moves the service's clock past the clearing period, so that the deposit's credit
// sits in available, where an adjustment can spend it.
test('a reversal of a deposit not settled, or one its bucket cannot take back, spends no step-up: topped up, it passes with the same one', async () => {
  const unsettled = await matchedDeposit(scene, { sender: freshSender(), end_user_ref: `u-${randomUUID()}` });
  const d = await settledDeposit();
  await advance(scene.s, limits.clearingPeriodMs + second);
  const adjust = (body: Record<string, unknown>) => scene.s.bo('POST', `/v1/bo/merchants/${scene.shop.id}/adjustments`,
    { livemode: true, bucket: 'available', reason: 'the shop spent what cleared', ...body }, { sub: 'emp_topper', stepUp: true });
  const available = (await scene.s.bo('GET', `/v1/bo/merchants/${scene.shop.id}/balance`)).json.live.available_minor as number;
  const spent = await adjust({ amount_minor: available - 100, direction: 'debit' });
  assert.is(spent.status, 201, spent.text);

  const stepUp = await scene.s.operatorToken('emp_reverser', true, ['ops_admin']);
  const recall = { reason_code: 'BANK_RECALL', note: "the sender's bank recalled the whole transfer" };
  const reverse = (id: string) => steppedUp('emp_reverser', stepUp, `/v1/bo/deposits/${id}/reverse`, recall);
  const notSettled = await reverse(unsettled.id);
  assert.equal([notSettled.status, notSettled.json.error?.code, notSettled.json.error?.details?.status], [409, 'operation_not_allowed', 'expired'], notSettled.text);
  const short = await reverse(d.id);
  assert.equal([short.status, short.json.error?.code, short.json.error?.details?.bucket, short.json.error?.details?.available_minor], [402, 'insufficient_balance', 'available', 100], short.text);
  const credited = short.json.error.details.required_minor as number;
  const toppedUp = await adjust({ amount_minor: credited - 100, direction: 'credit', reason_code: 'GOODWILL_CREDIT' });
  assert.is(toppedUp.status, 201, toppedUp.text);
  const reversed = await reverse(d.id);
  assert.is(reversed.status, 200, reversed.text);
  assert.is(reversed.json.status, 'reversed');
});

test.run();
