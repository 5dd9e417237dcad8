// The console's tables as an operator sees them, in Debian's Chromium against a real server
// (the harness of browser.int.spec.ts): a table's head stays above its rows, and a table of
// ids and routes never widens a laptop's window.
//
// Proves: the fees report's head (its two rows: charged / refunded / net, then the columns),
// which scrolls sideways in its own box, sits above the first merchant's line, not over it
// (the head was stuck the page header's height below the top of its scroll box and covered
// the first rows: an analyst read another merchant's figures under the column names); the
// activity page's action log fits a 1024 and a 1280 px window (its request ids and routes
// ran ~260 px off it, as the narrow window's break rules applied only up to 900 px); the
// statement's heading names the merchant as well as its id (it showed the id alone), and a
// Thai merchant name in it and in the trial balance is marked lang="th", as README's console
// section says of Thai names; the fees report marks a Thai merchant's name too (it showed it
// plain), and at 760 px its merchant column keeps room for the merchant's id (crushed by the nine
// amounts, the id broke a few characters a line, seven lines a merchant) while the table fits its
// box, in English and in Thai: the amounts' heads wrap (kept on one line, they made it 837 and 895 px
// wide in a box of 706), their figures do not.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { closeSessions, launchChromium, signIn, type OperatorSession } from '../support/console-browser.ts';
import { depositBody, type MerchantKeys } from '../support/server-harness.ts';
import { assertReceipt, matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, type SlipScene } from '../support/slip-harness.ts';

let scene: SlipScene;
let thai: MerchantKeys;
const thaiName = 'ร้านสมใจ การค้า';
let browser: Browser;
const sessions: OperatorSession[] = [];

async function operator(sub: string, hash: string, page: string): Promise<OperatorSession> {
  const session = await signIn(browser, scene.s.url, sub, { hash, page });
  sessions.push(session);
  return session;
}

test.before(async () => {
  scene = await slipScene();
  // Two settled deposits: the shop pays deposit fees, the payer withdrawal fees (two merchant lines).
  for (const amount of [50_000, 120_000]) {
    const d = await matchedDeposit(scene, { amount_minor: amount });
    const image = pngSlip();
    await registerTransfer(scene.s, transferFor(scene, { amount_minor: amount }, { image_sha256: sha256Hex(image) }));
    assertReceipt(await uploadFile(d.slip_upload, image));
    assert.is(await scene.s.running.slipWorker.drain(), 1);
  }
  // Operator actions with long routes and several ids each, for the action log.
  for (const sub of ['emp_lead', 'emp_mali']) {
    const p = await scene.s.bo('POST', `/v1/bo/merchants/${scene.shop.id}/adjustments`, { livemode: true, amount_minor: 20_000_000, direction: 'credit', bucket: 'available', reason: 'a large credit for two operators' }, { sub, roles: ['ops_admin'], stepUp: true });
    assert.is(p.status, 202, p.text);
    const a = await scene.s.bo('POST', `/v1/bo/merchants/${scene.shop.id}/adjustments/${p.json.id}/approve`, { amount_minor: 20_000_000 }, { sub: sub === 'emp_lead' ? 'emp_mali' : 'emp_lead', roles: ['ops_admin'], stepUp: true });
    assert.is(a.status, 201, a.text);
  }
  thai = await scene.s.onboard(thaiName, scene.shop.whiteLabelId);
  await scene.s.fund(thai.id, 30_000);
  // The Thai merchant's own settled deposit: a line of its own in the fees report.
  const own = await scene.s.call(thai.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 70_000, fill_preference: 'internal_only' }));
  assert.is(own.status, 201, own.text);
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, { amount_minor: 70_000 }, { image_sha256: sha256Hex(image) }));
  assertReceipt(await uploadFile(own.json.slip_upload, image));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  browser = await launchChromium();
});

test.after(async () => {
  await closeSessions(browser, sessions);
  await scene?.s.stop();
});

test("the fees report's head sits above its rows, not over the first merchants' lines", async () => {
  const fah = await operator('emp_fah', '#/fees', 'fees');
  await fah.page.waitForSelector('[data-testid=fees-row]');
  for (const width of [1360, 760]) {
    await fah.page.setViewportSize({ width, height: 900 });
    await fah.page.evaluate(() => window.scrollTo(0, 0));
    const boxes = await fah.page.evaluate(() => {
      const table = document.querySelector('[data-testid=fees-row]')!.closest('table')!;
      const head = [...table.querySelectorAll('thead th')].map((th) => th.getBoundingClientRect().bottom);
      const firstRow = table.querySelector('[data-testid=fees-row]')!.getBoundingClientRect().top;
      return { headBottom: Math.max(...head), firstRow };
    });
    assert.ok(boxes.headBottom <= boxes.firstRow + 0.5, `at ${width} px the head's bottom (${boxes.headBottom}) is below the first row's top (${boxes.firstRow}): it covers the rows`);
  }
  await fah.screenshot('fees-head');
});

test("the fees report keeps room for a merchant at 760 px and marks a Thai merchant's name as Thai", async () => {
  const fah = await operator('emp_fah', '#/fees', 'fees');
  const row = `[data-testid=fees-row][data-merchant="${thai.id}"]`;
  await fah.page.waitForSelector(row);
  assert.is(await fah.page.textContent(`${row} [data-testid=fees-merchant-name] [lang=th]`), thaiName, 'the Thai name is marked lang="th"');
  await fah.page.setViewportSize({ width: 760, height: 900 });
  await fah.page.waitForFunction(() => document.documentElement.clientWidth === 760);
  // The id's link: crushed by the nine amounts, it broke a few characters a line (seven lines a merchant).
  const lines = await fah.page.$eval(`${row} td:first-child a`, (a) => new Set([...a.getClientRects()].map((r) => Math.round(r.top))).size);
  assert.ok(lines <= 1, `the merchant's id runs over ${lines} lines at 760 px`);
  const [scroll, client] = await fah.page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  assert.ok(scroll <= client, `the page is ${scroll} px wide at 760 px: the table scrolls in its card, not the page`);
  // Nor need it scroll there: the amounts' heads wrap between their words (Fee excl. VAT, ค่าธรรมเนียมก่อน VAT),
  // right-aligned over figures that never do, instead of each setting its column's width (837 px in English, 895 in Thai, in a box of 706).
  for (const lang of ['en', 'th'] as const) {
    await fah.page.click(`[data-testid=lang-${lang}]`);
    await fah.page.waitForFunction((thai) => /[\u0E00-\u0E7F]/.test(document.querySelector('[data-testid=fees-row]')?.closest('table')?.tHead?.textContent ?? '') === thai, lang === 'th');
    const [table, box] = await fah.page.$eval(row, (r) => { const t = r.closest('table')!; return [t.scrollWidth, t.parentElement!.clientWidth]; });
    assert.ok(table <= box, `${lang}: the fees table is ${table} px wide in its ${box} px box at 760 px`);
    const amount = await fah.page.$eval(`${row} td.num`, (td) => [getComputedStyle(td).whiteSpace, getComputedStyle(td).textAlign]);
    assert.equal(amount, ['nowrap', 'right'], `${lang}: an amount's cell keeps its figures on one line, right-aligned`);
    await fah.screenshot(`fees-760-${lang}`);
  }
  await fah.page.click('[data-testid=lang-en]');
});

test("the activity page's action log fits a laptop's window", async () => {
  const lead = await operator('emp_lead', '#/activity', 'activity');
  await lead.page.waitForSelector('[data-testid=action-row]');
  for (const width of [1024, 1280]) {
    await lead.page.setViewportSize({ width, height: 900 });
    await lead.page.waitForFunction((w) => document.documentElement.clientWidth === w, width);
    const [scroll, client] = await lead.page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok(scroll <= client, `at ${width} px the activity page is ${scroll} px wide`);
  }
  await lead.screenshot('activity-1280');
});

test("the statement names its merchant, and a Thai name there and in the trial balance is marked as Thai", async () => {
  const fah = await operator('emp_fah', '#/trial-balance', 'trial-balance');
  const tb = fah.page.locator(`[data-testid=tb-merchant][href^="#/merchants/${thai.id}"]`).first();
  await tb.waitFor();
  assert.is(await tb.locator('[lang=th]').textContent(), thaiName, 'the trial balance marks the Thai name');
  const day = (await scene.s.bo('GET', '/v1/bo/clock', undefined, { roles: ['finance'] })).json.now;
  const date = new Date(Date.parse(day) + 7 * 3_600_000).toISOString().slice(0, 10);
  await fah.goto(`#/statement?merchant_id=${scene.shop.id}&livemode=true&date=${date}`, 'statement');
  assert.match(await fah.page.textContent('[data-testid=statement] h2') ?? '', /^Shop mch_/, 'the heading names the merchant before its id');
  await fah.goto(`#/statement?merchant_id=${thai.id}&livemode=true&date=${date}`, 'statement');
  await fah.page.waitForSelector('[data-testid=statement-merchant-name] [lang=th]');
  assert.is(await fah.page.textContent('[data-testid=statement-merchant-name] [lang=th]'), thaiName);
  await fah.screenshot('statement-thai-name');
});

test.run();
