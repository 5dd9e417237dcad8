// The console's white labels page end to end, in Debian's Chromium against a real server
// (the harness of browser.int.spec.ts: each operator signs in through the development
// provider's form in a context of their own, and answers each step-up in its popup).
//
// Proves: the page shows each white label's fee schedule in force as the API has it (the
// processing fee and VAT rates as percentages, money in baht); ops_admin A proposes a schedule (a VAT rate among its figures) from its
// form — a percentage that is none refused in the page before any popup, a figure out of the
// server's bounds refused at its field — and then sees the proposal (who, until when, each
// changed figure before → after) but no Approve, with a note why; the approvals page lists it
// for a second ops_admin B, who approves it on the white labels page typing the changed
// figures again after a step-up (a figure that is not the one proposed refused at its field);
// the page then shows the new schedule, finance reads it without any form, and the merchant's
// quote is reckoned from it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { answerStepUp, launchChromium, signIn, type OperatorSession } from '../support/console-browser.ts';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';

const { en } = await import(new URL('../../console/i18n-en.js', import.meta.url).href) as { en: Record<string, string> };
const { th } = await import(new URL('../../console/i18n-th.js', import.meta.url).href) as { th: Record<string, string> };

let s: TestServer;
let browser: Browser;
let shop: MerchantKeys;
const sessions: OperatorSession[] = [];
/** From the click to the server's answer through the step-up popup, on a loaded 2-core machine (as browser.int.spec.ts). */
const stepUpAnswerMs = 60_000;

async function operator(sub: string): Promise<OperatorSession> {
  const session = await signIn(browser, s.url, sub, { hash: '#/white-labels', page: 'white-labels' });
  sessions.push(session);
  return session;
}

const card = () => `[data-testid=white-label][data-id="${shop.whiteLabelId}"]`;
const figureText = (o: OperatorSession, figure: string) => o.page.textContent(`${card()} [data-testid=fee-figure][data-figure=${figure}] td:last-child`);
const field = (form: string, figure: string) => `${card()} [data-testid=${form}] [data-testid=fee-field][data-figure=${figure}]`;
const listed = async () => (await s.bo('GET', '/v1/bo/white-labels', undefined, { roles: ['finance'] })).json.data.find((w: { id: string }) => w.id === shop.whiteLabelId);
const fees = (path: string) => (r: { url(): string; request(): { method(): string } }) => r.url().endsWith(`/white-labels/${shop.whiteLabelId}/${path}`) && r.request().method() === 'POST';
type Form = 'propose-fees' | 'approve-fees';

/** Types `figures` into the card's form and sends it through the step-up popup: the server's answer. */
async function send(o: OperatorSession, form: Form, figures: Record<string, string>) {
  for (const [figure, text] of Object.entries(figures)) await o.page.fill(`${field(form, figure)} input`, text);
  const answer = o.page.waitForResponse(fees(form === 'propose-fees' ? 'fees' : 'fees/approve'), { timeout: stepUpAnswerMs });
  await answerStepUp(o, () => o.page.click(`${card()} [data-testid=${form === 'propose-fees' ? 'send-proposal' : 'send-approval'}]`));
  return answer;
}

/** The error shown at a figure's field, once it shows. */
async function fieldError(o: OperatorSession, form: Form, figure: string) {
  await o.page.waitForSelector(`${field(form, figure)} [data-testid=fee-error]`);
  return o.page.textContent(`${field(form, figure)} [data-testid=fee-error]`);
}

test.before(async () => {
  s = await TestServer.start();
  shop = await s.onboard('Shop');
  browser = await launchChromium();
});
test.after(async () => {
  for (const o of sessions) await o.context.close().catch(() => {});
  await browser?.close();
  await s.stop();
});

test('ops_admin proposes a fee schedule, a second ops_admin approves it typing the figures again, finance reads it, and the quote follows', async () => {
  const before = (await listed()).fee_schedule;
  assert.equal([before.deposit_processing_fee_bps, before.withdrawal_fixed_fee_minor, before.withdrawal_min_minor], [150, 1_000, 10_000]);
  const mali = await operator('emp_mali');
  assert.ok(await mali.page.$('[data-testid=nav-white-labels][aria-current=page]'), 'the nav names the page');
  assert.equal([await figureText(mali, 'deposit_processing_fee_bps'), await figureText(mali, 'deposit_vat_bps'), await figureText(mali, 'withdrawal_fixed_fee_minor'), await figureText(mali, 'withdrawal_min_minor')],
    ['1.50%', '7.00%', '฿10.00', '฿100.00'], 'the schedule in force, as the API has it');
  assert.is(await mali.page.$(`${card()} [data-testid=fee-proposal]`), null);

  // A percentage that is none is refused in the page, before any popup or request.
  let sent = 0;
  mali.page.on('request', (r) => { if (r.method() === 'POST' && r.url().includes('/white-labels/')) sent++; });
  await mali.page.click(`${card()} [data-testid=propose-fees] summary`);
  await mali.page.fill(`${field('propose-fees', 'deposit_processing_fee_bps')} input`, '1,5');
  await mali.page.click(`${card()} [data-testid=send-proposal]`);
  assert.is(await fieldError(mali, 'propose-fees', 'deposit_processing_fee_bps'), en['whiteLabels.percentInvalid']);
  assert.is(sent, 0, 'nothing sent');
  // A figure beyond the server's bounds is the server's to refuse: its reason shows at that field.
  assert.is((await send(mali, 'propose-fees', { deposit_processing_fee_bps: '150' })).status(), 422);
  assert.is(await fieldError(mali, 'propose-fees', 'deposit_processing_fee_bps'), en['whiteLabels.refused.maximum']);
  assert.is(await mali.page.getAttribute(`${field('propose-fees', 'deposit_processing_fee_bps')} input`, 'aria-invalid'), 'true');

  const answer = await send(mali, 'propose-fees', { deposit_processing_fee_bps: '3.00', withdrawal_fixed_fee_minor: '25.00', withdrawal_vat_bps: '10.00', withdrawal_min_minor: '200.00' });
  assert.is(answer.status(), 202);
  // Only the VAT rate and the limit that moved are sent; the others stay as they are.
  assert.equal(JSON.parse(answer.request().postData()!), { deposit_processing_fee_bps: 300, withdrawal_fixed_fee_minor: 2_500, withdrawal_vat_bps: 1_000, withdrawal_min_minor: 20_000 });
  await mali.page.waitForSelector(`${card()} [data-testid=fee-proposal]`);
  const waiting = (await listed()).fee_schedule_proposal;
  assert.is(await mali.page.textContent(`${card()} [data-testid=fee-proposed-by]`), 'emp_mali');
  assert.is(await mali.page.getAttribute(`${card()} [data-testid=fee-approve-by] time`, 'datetime'), waiting.approve_by);
  const changes = await mali.page.$$eval(`${card()} [data-testid=fee-change]`, (rows) => rows.map((r) => [r.getAttribute('data-figure'), ...[...r.querySelectorAll('td')].slice(1).map((td) => td.textContent)]));
  assert.equal(changes, [['deposit_processing_fee_bps', '1.50%', '3.00%'], ['withdrawal_fixed_fee_minor', '฿10.00', '฿25.00'], ['withdrawal_vat_bps', '7.00%', '10.00%'], ['withdrawal_min_minor', '฿100.00', '฿200.00']]);
  assert.is(await figureText(mali, 'deposit_processing_fee_bps'), '1.50%', 'not in force on one word');
  // Its proposer is offered no approval, and told why.
  assert.is(await mali.page.$(`${card()} [data-testid=send-approval]`), null);
  assert.is(await mali.page.textContent(`${card()} [data-testid=fee-own-proposal]`), en['whiteLabels.ownProposal']);
  await mali.screenshot('white-labels-proposed');

  // A second ops_admin finds it among the approvals, and approves it on the white labels page.
  const lead = await operator('emp_lead');
  await lead.goto('#/approvals', 'approvals');
  await lead.page.waitForSelector(`[data-testid=fee-proposal-row][data-id="${shop.whiteLabelId}"]`);
  await lead.page.click(`[data-testid=fee-proposal-row][data-id="${shop.whiteLabelId}"] a`);
  await lead.ready('white-labels');
  assert.equal(await lead.page.$$eval(`${card()} [data-testid=approve-fees] [data-testid=fee-field]`, (fs) => fs.map((f) => f.getAttribute('data-figure'))),
    ['deposit_processing_fee_bps', 'withdrawal_fixed_fee_minor', 'withdrawal_vat_bps', 'withdrawal_min_minor'], 'each changed figure is asked again');
  const misread = await send(lead, 'approve-fees', { deposit_processing_fee_bps: '3.00', withdrawal_fixed_fee_minor: '2.50', withdrawal_vat_bps: '10', withdrawal_min_minor: '200' });
  assert.is(misread.status(), 422);
  assert.is(await fieldError(lead, 'approve-fees', 'withdrawal_fixed_fee_minor'), en['whiteLabels.refused.mismatch']);
  assert.is(await lead.page.$(`${field('approve-fees', 'deposit_processing_fee_bps')} [data-testid=fee-error]`), null, 'only the misread figure is marked');
  assert.is((await send(lead, 'approve-fees', { withdrawal_fixed_fee_minor: '25.00' })).status(), 200);
  await lead.page.waitForFunction((sel) => document.querySelector(sel) === null, `${card()} [data-testid=fee-proposal]`);
  assert.equal([await figureText(lead, 'deposit_processing_fee_bps'), await figureText(lead, 'withdrawal_fixed_fee_minor'), await figureText(lead, 'withdrawal_vat_bps'), await figureText(lead, 'deposit_vat_bps'), await figureText(lead, 'withdrawal_min_minor'), await figureText(lead, 'withdrawal_max_minor')],
    ['3.00%', '฿25.00', '10.00%', '7.00%', '฿200.00', en['whiteLabels.noMaximum']], 'the new schedule, the limits not proposed as they were (no maximum set: said so, not the stand-in number)');
  await lead.screenshot('white-labels');

  // Finance reads it, in Thai too, with no form to propose or approve.
  const fah = await operator('emp_fah');
  assert.equal([await figureText(fah, 'deposit_processing_fee_bps'), await figureText(fah, 'withdrawal_fixed_fee_minor')], ['3.00%', '฿25.00']);
  assert.equal(await fah.page.$$(`${card()} [data-testid=propose-fees], ${card()} [data-testid=approve-fees], ${card()} input`), []);
  await fah.page.click('[data-testid=lang-th]');
  await fah.page.waitForFunction((title) => document.querySelector('main h1')?.textContent === title, th['nav.white-labels']);
  assert.is(await fah.page.textContent(`${card()} [data-testid=fee-figure][data-figure=withdrawal_fixed_fee_minor] td:first-child`), th['field.withdrawal_fixed_fee_minor']);
  assert.is(await figureText(fah, 'withdrawal_fixed_fee_minor'), '฿25.00');

  // The merchant's quote is reckoned from it at once: 25 baht and its VAT at 10 %, and the new minimum.
  const q = (await s.call(shop.live.api_key, 'GET', '/v1/pay/quote?channel=withdrawal&amount_minor=100000')).json;
  assert.equal([q.fee_total_minor, q.total_minor], [2_750, 102_750]);
  assert.equal(q.fee_breakdown.find((l: { component: string }) => l.component === 'vat'), { component: 'vat', amount_minor: 250, rate_bps: 1_000 });
  const below = await s.call(shop.live.api_key, 'GET', '/v1/pay/quote?channel=withdrawal&amount_minor=15000');
  assert.equal([below.status, below.json.error?.code], [422, 'amount_not_supported']);
});

test.run();
