// A decision's body refused for what it says spends no step-up (README, Token bounds: "whose
// body the route refuses (422 …), so the operator mends it and sends it again with the same
// step-up"): a note too short — on a deposit reversal, a fill's reversal, a claim's refund
// and its payout — is answered before the step-up is checked, and so is an adjustment's
// reason_code for the other direction, its unknown merchant and a bucket other than
// available, so the decision mended passes with the same step-up token, as an operator who
// pasted one ($SATANG_STEP_UP_TOKEN, the console's Command line page) sends it. Over real
// HTTP against settled deposits; the step-up is still one action's: after the decision it is
// spent.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { freshSender, type Reply } from '../support/server-harness.ts';
import { getDeposit, matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, type SlipScene } from '../support/slip-harness.ts';

let scene: SlipScene;

test.before(async () => { scene = await slipScene(); });
test.after(async () => { await scene.s.stop(); });

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

/** POSTs `body` as `sub` (ops_admin) with the step-up token given and a fresh Idempotency-Key. */
async function steppedUp(sub: string, stepUp: string, path: string, body: unknown): Promise<Reply> {
  return scene.s.raw('POST', path, {
    headers: { Authorization: `Bearer ${await scene.s.operatorToken(sub, false, ['ops_admin'])}`, 'X-PG-Step-Up-Token': stepUp, 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' },
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
  // One step-up, one action: another reversal with it is refused before anything is looked at.
  const spent = await reverse({ reason_code: 'BANK_RECALL', note: "the sender's bank recalled the whole transfer" }, '/v1/bo/deposits/dep_another/reverse');
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

test.run();
