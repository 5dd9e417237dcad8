// The console as a finance analyst and an operations person found it in an outside-in pass, in
// Debian's Chromium against a real server (the harness of browser.int.spec.ts).
//
// Proves: an order's earlier
// dispute, lost before a new one was opened on the same withdrawal, is shown by its own page and
// read by GET /v1/bo/disputes/{id} as itself (both answered the withdrawal's newer, open dispute:
// its id, reason and amount, so the lost one could not be read at all).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { launchChromium, operators } from '../support/console-browser.ts';
import { settledDeposit, slipScene, type SlipScene } from '../support/slip-harness.ts';

let scene: SlipScene;
let browser: Browser;
const signedIn = operators(() => browser, () => scene.s.url);

test.before(async () => {
  scene = await slipScene();
  browser = await launchChromium();
});

test.after(async () => {
  await signedIn.close();
  await scene?.s.stop();
});

test('an earlier dispute, lost before a new one was opened on the withdrawal, is read by its own id and shown on its own page', async () => {
  const d = await settledDeposit(scene);
  const withdrawalId = scene.withdrawalIds[0]!;
  const fill = (await scene.s.bo('GET', `/v1/bo/withdrawals/${withdrawalId}`)).json.withdrawal.fills.find((f: any) => f.deposit_id === d.id);
  const first = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/disputes`, { reason_code: 'not_received', amount_minor: fill.amount_minor });
  assert.is(first.status, 201, first.text);
  const lost = await scene.s.bo('POST', `/v1/bo/disputes/${first.json.id}/resolve`, { outcome: 'merchant_lost', note: 'the payee showed the bank statement without it' }, { sub: 'emp_resolver' });
  assert.is(lost.status, 200, lost.text);
  const second = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/disputes`, { reason_code: 'wrong_amount', amount_minor: 1_000 });
  assert.is(second.status, 201, second.text);

  // The API: each dispute by its own id; the withdrawal's own page keeps the current one.
  const earlier = (await scene.s.bo('GET', `/v1/bo/disputes/${first.json.id}`)).json.dispute;
  assert.equal([earlier.id, earlier.status, earlier.outcome, earlier.reason_code, earlier.amount_minor, earlier.resolved_by, earlier.resolution_note],
    [first.json.id, 'resolved', 'merchant_lost', 'not_received', fill.amount_minor, 'emp_resolver', 'the payee showed the bank statement without it']);
  const current = (await scene.s.bo('GET', `/v1/bo/disputes/${second.json.id}`)).json.dispute;
  assert.equal([current.id, current.status, current.reason_code, current.amount_minor, current.resolved_by], [second.json.id, 'open', 'wrong_amount', 1_000, null]);
  assert.is((await scene.s.bo('GET', `/v1/bo/withdrawals/${withdrawalId}`)).json.dispute.id, second.json.id);

  const mali = await signedIn.signIn('emp_mali', `#/disputes/${first.json.id}`, 'dispute');
  const heading = await mali.page.innerText('main h1');
  assert.ok(heading.includes(first.json.id), heading);
  const page = await mali.page.innerText('main');
  assert.ok(page.includes('emp_resolver') && page.includes('the payee showed the bank statement without it'), page);
  assert.not.ok(page.includes(second.json.id), 'not the newer dispute');
});

test.run();
