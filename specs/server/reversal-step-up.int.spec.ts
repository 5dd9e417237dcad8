// A deposit reversal's body refused for what it says spends no step-up (README, Token bounds:
// "whose body the route refuses (422 …), so the operator mends it and sends it again with the
// same step-up"): a note too short is answered before the step-up is checked, so the reversal
// with the note mended passes with the same step-up token, as an operator who pasted one
// ($SATANG_STEP_UP_TOKEN, the console's Command line page) sends it. Over real HTTP against a
// settled deposit; the step-up is still one action's: after the reversal it is spent.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { getDeposit, matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, type SlipScene } from '../support/slip-harness.ts';

let scene: SlipScene;

test.before(async () => { scene = await slipScene(); });
test.after(async () => { await scene.s.stop(); });

test('a reversal refused for a short note spends no step-up: mended, it passes with the same one, which is then spent', async () => {
  const d = await matchedDeposit(scene);
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, d, { image_sha256: sha256Hex(image) }));
  assert.is((await uploadFile(d.slip_upload, image)).status, 202);
  await scene.s.running.slipWorker.drain();
  assert.is((await getDeposit(scene, d.id)).status, 'settled');

  const stepUp = await scene.s.operatorToken('emp_reverser', true, ['ops_admin']);
  const reverse = async (body: unknown, path = `/v1/bo/deposits/${d.id}/reverse`) => scene.s.raw('POST', path, {
    headers: { Authorization: `Bearer ${await scene.s.operatorToken('emp_reverser', false, ['ops_admin'])}`, 'X-PG-Step-Up-Token': stepUp, 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  for (const note of [undefined, 'recalled', '   recalled     by   bank        ']) {
    const short = await reverse({ reason_code: 'BANK_RECALL', ...(note === undefined ? {} : { note }) });
    assert.equal([short.status, short.json.error?.code, short.json.error?.details?.min_length], [422, 'review_note_required', 20], short.text);
  }
  assert.is((await getDeposit(scene, d.id)).status, 'settled', 'nothing done');
  const reversed = await reverse({ reason_code: 'BANK_RECALL', note: "the sender's bank recalled the whole transfer" });
  assert.is(reversed.status, 200, reversed.text);
  assert.is(reversed.json.status, 'reversed');
  // One step-up, one action: another reversal with it is refused before anything is looked at.
  const spent = await reverse({ reason_code: 'BANK_RECALL', note: "the sender's bank recalled the whole transfer" }, '/v1/bo/deposits/dep_another/reverse');
  assert.equal([spent.status, spent.json.error?.code], [403, 'scope_denied'], spent.text);
  assert.match(spent.json.error.message, /already used for another action/);
});

test.run();
