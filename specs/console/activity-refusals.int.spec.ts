// The console's activity log and its refusal banner, as an outside-in pass found them, in Debian's
// Chromium against a real server on a manual clock (the harness of browser.int.spec.ts).
//
// Proves: the activity log leaves reads of the service clock out by default, in both tabs, and
// shows them when the operator asks (on a manual clock the console reads GET /v1/bo/clock on every
// navigation, and those rows buried the operators' real calls); in the Thai console a server's
// refusal reads as a Thai sentence for its code, names the refused field by the form's own Thai
// label, and keeps the server's English message beneath (it showed that English message with the
// API's field name under a Thai line pointing at details.fields). Forms that give no labels of
// their own (a new merchant, a webhook replay) name the refused field in Thai too, by the
// console's one table of API fields (field.<name>): they named none, the server's English alone.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { answerStepUp, launchChromium, operators, type OperatorSession } from '../support/console-browser.ts';
import { TestServer } from '../support/server-harness.ts';

const { th } = await import(new URL('../../console/i18n-th.js', import.meta.url).href) as { th: Record<string, string> };

let s: TestServer;
let browser: Browser;
const signedIn = operators(() => browser, () => s.url);

test.before(async () => {
  s = await TestServer.start();
  browser = await launchChromium();
});

test.after(async () => {
  await signedIn.close();
  await s?.stop();
});

/** The "METHOD route" of each row the tab shows. */
const routesShown = (session: OperatorSession, row: string) =>
  session.page.locator(`[data-testid=${row}] td.mono.small`).evaluateAll((tds) => tds.map((td) => td.textContent!.trim()).filter((text) => /^(GET|POST|DELETE|PUT|PATCH) /.test(text)));

test('the activity log leaves reads of the service clock out unless the operator shows them', async () => {
  const mali = await signedIn.signIn('emp_mali', '#/merchants', 'merchants');
  await mali.goto('#/queue', 'queue');
  await mali.goto('#/approvals', 'approvals');
  // The log has them: the console read the clock when it opened and on each navigation.
  const logged = (await s.bo('GET', '/v1/bo/reports/action-logs?subject=emp_mali&limit=200')).json.data.filter((r: any) => r.route === '/v1/bo/clock');
  assert.ok(logged.length >= 3, `${logged.length} clock reads logged`);
  const left = await s.bo('GET', '/v1/bo/reports/action-logs?subject=emp_mali&clock_reads=false&limit=200');
  assert.is(left.status, 200, left.text);
  assert.ok(left.json.data.length > 0 && left.json.data.every((r: any) => r.route !== '/v1/bo/clock'));

  await mali.goto('#/activity?tab=actions', 'activity');
  const actions = await routesShown(mali, 'action-row');
  assert.ok(actions.includes('GET /v1/bo/merchants'), actions.join(', '));
  assert.not.ok(actions.includes('GET /v1/bo/clock'), actions.join(', '));
  await mali.page.check('[data-testid=filter-clock-reads]');
  await mali.ready('activity');
  await mali.page.waitForFunction(() => [...document.querySelectorAll('[data-testid=action-row] td')].some((td) => td.textContent!.trim() === 'GET /v1/bo/clock'));
  assert.match(mali.page.url(), /clock_reads=true/);

  // The request log writes on a thread of its own: wait until it holds the page's reads before the tab loads them.
  for (let tries = 0; (await s.bo('GET', '/v1/bo/logs?route=/v1/bo/merchants&limit=1')).json.data.length === 0; tries++) {
    assert.ok(tries < 100, 'the request log never wrote GET /v1/bo/merchants');
    await new Promise((r) => setTimeout(r, 50));
  }
  await mali.goto('#/activity?tab=requests', 'activity');
  await mali.page.waitForSelector('[data-testid=request-row]');
  const requests = await routesShown(mali, 'request-row');
  assert.ok(requests.includes('GET /v1/bo/merchants'), requests.join(', '));
  assert.not.ok(requests.includes('GET /v1/bo/clock'), requests.join(', '));
});

test('in Thai, a refusal is a Thai sentence naming the form\'s field, the server\'s English beneath', async () => {
  const shop = await s.onboard('Loy Krathong Goods');
  const proposed = await s.bo('POST', `/v1/bo/merchants/${shop.id}/adjustments`, { livemode: true, amount_minor: 12_000_000, direction: 'credit', bucket: 'available', reason: 'float for the festival, ticket 5120' }, { sub: 'emp_mali', roles: ['ops_admin'], stepUp: true });
  assert.is(proposed.status, 202, proposed.text);
  const lead = await signedIn.signIn('emp_lead', `#/merchants/${shop.id}`, 'merchant');
  await lead.page.click('[data-testid=lang-th]');
  await lead.page.waitForSelector('main[data-page="merchant"][data-lang="th"][data-ready="1"]');
  // The second ops_admin misreads the amount: the server refuses it (validation_error, amount_minor mismatch).
  const row = lead.page.locator(`[data-testid=adjustment-proposal][data-id="${proposed.json.id}"]`);
  await row.locator('[data-testid=approve-adjustment-amount]').fill('1,200.00');
  await answerStepUp(lead, () => row.locator('[data-testid=approve-adjustment]').click());
  await lead.page.waitForSelector('[data-testid=error-banner]');
  assert.is((await lead.page.innerText('[data-testid=error-code]')).trim(), '422 validation_error');
  assert.is((await lead.page.innerText('[data-testid=error-text]')).trim(), th['refusal.validation_error']);
  assert.is((await lead.page.innerText('[data-testid=error-fields]')).trim(), th['refusal.fields']!.replace('{fields}', th['merchantAdmin.approveAmount']!));
  assert.ok((await lead.page.innerText('[data-testid=error-detail]')).includes('The amount approved is not the one proposed'));
  assert.not.ok((await lead.page.innerText('[data-testid=error-banner]')).includes('details.fields'), 'no pointer at the API\'s details');
  assert.is((await s.bo('GET', `/v1/bo/merchants/${shop.id}/balance`)).json.live.available_minor, 0);
});

/** The banner's lines, once the server's refusal shows. */
async function banner(session: OperatorSession): Promise<{ code: string; text: string; fields: string | null; detail: string }> {
  await session.page.waitForSelector('[data-testid=error-banner]');
  const text = async (testid: string) => (await session.page.locator(`[data-testid=${testid}]`).count()) > 0 ? (await session.page.innerText(`[data-testid=${testid}]`)).trim() : null;
  return { code: (await text('error-code'))!, text: (await text('error-text'))!, fields: await text('error-fields'), detail: (await text('error-detail'))! };
}

const inThai = async (session: OperatorSession, page: string) => {
  await session.page.click('[data-testid=lang-th]');
  await session.page.waitForSelector(`main[data-page="${page}"][data-lang="th"][data-ready="1"]`);
};

test("in Thai, a form without labels of its own names the refused field by the console's table: a new merchant's contact email", async () => {
  const { json: label } = await s.bo('POST', '/v1/bo/white-labels', { name: 'Songkran Brand' });
  const mali = await signedIn.signIn('emp_mali', '#/merchants', 'merchants');
  await inThai(mali, 'merchants');
  await mali.page.click('[data-testid=new-merchant] summary');
  await mali.page.fill('[data-testid=new-merchant-name]', 'Songkran Water Guns');
  await mali.page.fill('[data-testid=new-merchant-email]', 'ops at songkran.example');
  await mali.page.selectOption('[data-testid=new-merchant-white-label]', label.id);
  await mali.page.click('[data-testid=onboard]');
  const shown = await banner(mali);
  assert.equal([shown.code, shown.text, shown.fields], ['422 validation_error', th['refusal.validation_error'], th['refusal.fields']!.replace('{fields}', th['field.technical_contact_email']!)]);
  assert.is(shown.detail, 'The request failed validation; see details.fields.', 'the server\'s English beneath');
  assert.is((await s.bo('GET', '/v1/bo/merchants?q=Songkran')).json.data.length, 0, 'nothing onboarded');
});

test("in Thai, a webhook replay refused for its range names the refused field by the console's table", async () => {
  const shop = await s.onboard('Yi Peng Lanterns');
  const endpoint = await s.bo('POST', `/v1/bo/merchants/${shop.id}/webhook-endpoints`, { url: 'https://yipeng.example/webhooks', livemode: true });
  assert.is(endpoint.status, 201, endpoint.text);
  const mali = await signedIn.signIn('emp_mali', `#/merchants/${shop.id}?livemode=true&endpoint=${endpoint.json.id}`, 'merchant');
  await inThai(mali, 'merchant');
  await mali.page.click('[data-testid=replay-form] summary');
  // The range backwards: its end an hour before its start.
  const after = await mali.page.inputValue('[data-testid=replay-after]');
  const hourEarlier = new Date(Date.parse(`${after}:00Z`) - 3_600_000).toISOString().slice(0, 16);
  await mali.page.fill('[data-testid=replay-before]', hourEarlier);
  await answerStepUp(mali, () => mali.page.click('[data-testid=replay]'));
  const shown = await banner(mali);
  assert.equal([shown.code, shown.text, shown.fields], ['422 validation_error', th['refusal.validation_error'], th['refusal.fields']!.replace('{fields}', th['field.created_before']!)]);
  assert.ok(shown.detail.includes('created_before must be after created_after'), shown.detail);
});

test.run();
