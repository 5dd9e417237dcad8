// The withdrawal's "open a dispute" form, in Debian's Chromium against a real server (the harness
// of browser.int.spec.ts).
//
// Proves: once a withdrawal's dispute is resolved the page offers the form again beside the list of
// its disputes, and a second dispute opened from it is recorded (open, with the reason and amount
// typed); while a dispute is open the form is hidden. The page hid the form whenever the order had
// any dispute, a resolved one too, though the server takes a new dispute once the last is resolved.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { consoleOnSlipScene } from '../support/console-browser.ts';
import { lostDispute } from '../support/slip-harness.ts';

const on = consoleOnSlipScene(test);
const signedIn = on.signedIn;


test('with its dispute resolved a withdrawal offers the form, a second dispute opens from it, and while that one is open the form is hidden', async () => {
  const { withdrawalId, first } = await lostDispute(on.scene);
  const mali = await signedIn.signIn('emp_mali', `#/withdrawals/${withdrawalId}`, 'withdrawal');
  const rowIds = () => mali.page.$$eval('[data-testid=dispute-row]', (trs) => trs.map((tr) => tr.getAttribute('data-id')));
  assert.equal(await rowIds(), [first.json.id], 'the resolved dispute is listed');
  assert.is(await mali.page.locator('[data-testid=dispute-form]').count(), 1, 'the form is offered once the dispute is resolved');

  await mali.page.click('[data-testid=dispute-form] summary');
  await mali.page.fill('[data-testid=dispute-reason]', 'wrong_amount');
  await mali.page.fill('[data-testid=dispute-amount]', '10.00');
  await mali.page.click('[data-testid=open-dispute]');
  await mali.page.waitForSelector('[data-testid=dispute-form]', { state: 'detached' });

  const view = (await on.scene.s.bo('GET', `/v1/bo/withdrawals/${withdrawalId}`)).json;
  assert.equal([view.dispute.status, view.dispute.reason_code, view.dispute.amount_minor], ['open', 'wrong_amount', 1_000], 'the second dispute is recorded');
  assert.equal(await rowIds(), [view.dispute.id, first.json.id], 'both listed, newest first');
  await mali.page.reload();
  await mali.ready('withdrawal');
  assert.is(await mali.page.locator('[data-testid=dispute-form]').count(), 0, 'no form while a dispute is open');
  await mali.screenshot('withdrawal-dispute-form-hidden');
});

test.run();
