// The console where an approver and a reviewer look for waiting work, as an outside-in pass found
// it, in Debian's Chromium against a real server (the harness of browser.int.spec.ts).
//
// Proves: a live credit waiting for a second ops_admin (four eyes on 100,000 baht) is listed on the
// approvals page, with its amount, merchant, proposer and when, and approved there with the amount
// typed and a step-up, in English and in Thai (it was shown only on its merchant's page, which an
// approver has no reason to open); the review queue names each deposit's merchant by its name, as
// the claims list does (it showed the merchant's id alone).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { answerStepUp, launchChromium, operators } from '../support/console-browser.ts';
import { assertReceipt, matchedDeposit, slipScene, uploadJson, type SlipScene } from '../support/slip-harness.ts';
import type { TestServer } from '../support/server-harness.ts';

const { th } = await import(new URL('../../console/i18n-th.js', import.meta.url).href) as { th: Record<string, string> };

let scene: SlipScene;
let s: TestServer;
let browser: Browser;
const signedIn = operators(() => browser, () => s.url);

test.before(async () => {
  scene = await slipScene();
  s = scene.s;
  browser = await launchChromium();
});

test.after(async () => {
  await signedIn.close();
  await s?.stop();
});

test('a live credit waiting for a second ops_admin is on the approvals page, approved there, in English and Thai', async () => {
  const shop = await s.onboard('Songkran Travel');
  const proposed = await s.bo('POST', `/v1/bo/merchants/${shop.id}/adjustments`, { livemode: true, amount_minor: 10_000_000, direction: 'credit', bucket: 'available', reason: 'opening float, ticket 4411' }, { sub: 'emp_mali', roles: ['ops_admin'], stepUp: true });
  assert.is(proposed.status, 202, proposed.text);
  const listed = await s.bo('GET', '/v1/bo/adjustment-proposals');
  assert.is(listed.status, 200, listed.text);
  assert.equal(listed.json.data.map((p: any) => [p.id, p.merchant_id, p.merchant_name, p.amount_minor, p.proposed_by]), [[proposed.json.id, shop.id, 'Songkran Travel', 10_000_000, 'emp_mali']]);

  // Its proposer sees it, and why they may not approve it.
  const mali = await signedIn.signIn('emp_mali', '#/approvals', 'approvals');
  const own = mali.page.locator(`[data-testid=waiting-adjustment][data-id="${proposed.json.id}"]`);
  await own.waitFor();
  assert.is(await own.locator('[data-testid=approve-adjustment]').count(), 0);
  assert.is(await own.locator('[data-testid=own-adjustment-proposal]').count(), 1);

  const lead = await signedIn.signIn('emp_lead', '#/approvals', 'approvals');
  const row = lead.page.locator(`[data-testid=waiting-adjustment][data-id="${proposed.json.id}"]`);
  await row.waitFor();
  const text = (await row.innerText()).replace(/\s+/g, ' ');
  for (const part of ['฿100,000.00', 'Songkran Travel', 'emp_mali', 'opening float, ticket 4411']) assert.ok(text.includes(part), `${part} in ${text}`);
  assert.is(await row.locator('[data-testid=waiting-adjustment-merchant] a').getAttribute('href'), `#/merchants/${shop.id}?livemode=true`);
  assert.is(await lead.page.textContent('[data-testid=adjustment-proposals-waiting] h2'), 'Live credits waiting for a second ops_admin');

  // In Thai, the list is headed in Thai.
  await lead.page.click('[data-testid=lang-th]');
  await lead.page.waitForSelector('main[data-page="approvals"][data-lang="th"][data-ready="1"]');
  const thaiHead = (await lead.page.textContent('[data-testid=adjustment-proposals-waiting]'))!;
  for (const key of ['merchantAdmin.proposals', 'merchantAdmin.proposedBy', 'approvals.proposedAt']) assert.ok(thaiHead.includes(th[key]!), `${th[key]} in ${thaiHead}`);

  // Approved with the amount as checked and a step-up: posted, and the row is gone.
  await row.locator('[data-testid=approve-adjustment-amount]').fill('100,000.00');
  await answerStepUp(lead, () => row.locator('[data-testid=approve-adjustment]').click());
  await lead.page.waitForSelector('[data-testid=adjustment-proposals-waiting]', { state: 'detached' });
  assert.is((await s.bo('GET', `/v1/bo/merchants/${shop.id}/balance`)).json.live.available_minor, 10_000_000);
  assert.equal((await s.bo('GET', '/v1/bo/adjustment-proposals')).json.data, []);
});

test('the review queue names each deposit\'s merchant', async () => {
  const d = await matchedDeposit(scene);
  assertReceipt(await uploadJson(d.slip_upload, { trans_ref: `TR-${d.id}`, sending_bank_code: '014', occurred_at: d.created_at }));
  await s.running.slipWorker.drain();
  const queued = (await s.bo('GET', `/v1/bo/deposits?merchant_id=${scene.shop.id}`)).json.data.find((r: any) => r.id === d.id);
  assert.is(queued.merchant_name, 'Shop');
  const ploy = await signedIn.signIn('emp_ploy', `#/queue?merchant_id=${scene.shop.id}`, 'queue');
  const row = ploy.page.locator(`[data-testid=queue-row][data-id="${d.id}"]`);
  assert.is((await row.locator('[data-testid=queue-row-merchant-name]').innerText()).trim(), 'Shop');
});

test.run();
