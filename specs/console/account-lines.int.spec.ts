// The lines behind a system account's figure (GET /v1/bo/reports/account-lines) in the
// console, in Debian's Chromium against a real server (the harness of debts-disputes.int); the
// postings to suspense are claims' refunds drawn from it (refundedClaim).
//
// Proves: the trial balance's suspense line leads to its lines for the trial balance's as-of
// day, and that page is the API's — the opening balance (postings of an earlier day), each
// posting of the day by its balance transaction, the day's debits and credits and the
// closing balance, the CSV byte for byte after a BOM under the server's name, a month asked
// for by the form, and the page in Thai (the console had no page for the report: an analyst
// saw suspense's figure in the trial balance and nothing behind it).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { bangkokDayOf } from '../../core/finance/calendar.ts';
import { consoleOnSlipScene, type OperatorSession } from '../support/console-browser.ts';
import { refundedClaim } from '../support/slip-harness.ts';
import { advance } from '../webhooks/support.ts';

const { th } = await import(new URL('../../console/i18n-th.js', import.meta.url).href) as { th: Record<string, string> };

const on = consoleOnSlipScene(test);
const signedIn = on.signedIn;
const note = 'checked the bank statement: the excess came from the order sender, refund it';


const minorOf = (text: string) => Number(text.replace(/[^\d-]/g, ''));

/** What the page shows: opening, each line's id, debit, credit and running balance, the totals and the closing, as satang. */
async function shown(session: OperatorSession) {
  const money = (selector: string) => session.page.$$eval(`${selector} td.num .money`, (cells) => cells.map((c) => c.textContent!.trim()));
  return {
    opening: (await money('[data-testid=al-opening]')).map(minorOf),
    lines: (await session.page.$$eval('[data-testid=al-line]', (rows) => rows.map((r) => [r.getAttribute('data-id'), [...r.querySelectorAll('td.num')].map((td) => td.textContent!.trim())] as const)))
      .map(([id, cells]) => [id, cells.map((c) => (c === '' ? '' : minorOf(c)))]),
    totals: (await money('[data-testid=al-totals]')).map(minorOf),
    closing: (await money('[data-testid=al-closing]')).map(minorOf),
  };
}

function expected(api: any) {
  const cell = (minor: number) => (minor === 0 ? '' : minor);
  return {
    opening: [api.opening_balance_minor],
    lines: api.data.map((l: any) => [l.balance_transaction_id, [cell(l.debit_minor), cell(l.credit_minor), l.balance_minor]]),
    totals: [api.debit_minor, api.credit_minor],
    closing: [api.closing_balance_minor],
  };
}

test("the trial balance's suspense line leads to its lines for the as-of day, and the page is the API's: opening, postings, totals, closing, the CSV", async () => {
  const before = bangkokDayOf(on.scene.s.clock.now());
  await refundedClaim(on.scene, 'Earlier day', note);
  await advance(on.scene.s, 86_400_000);
  const day = bangkokDayOf(on.scene.s.clock.now());
  assert.is.not(day, before);
  await refundedClaim(on.scene, 'Today', note);
  const api = (await on.scene.s.bo('GET', `/v1/bo/reports/account-lines?account=suspense&livemode=true&date=${day}`, undefined, { roles: ['finance'] })).json;
  assert.ok(api.opening_balance_minor !== 0, `an earlier day's postings open the day: ${JSON.stringify(api)}`);
  assert.ok(api.count > 0 && api.closing_balance_minor !== api.opening_balance_minor, `the day has postings to suspense: ${JSON.stringify(api)}`);

  const fah = await signedIn.signIn('emp_fah', '#/trial-balance', 'trial-balance');
  const tbAsOf = await fah.page.$eval('[data-testid=trial-balance] h2 time', (t) => t.getAttribute('datetime')!);
  assert.is(bangkokDayOf(Date.parse(tbAsOf)), day);
  await fah.page.click('[data-testid=tb-section][data-livemode="true"] [data-testid=tb-account][data-account="sys:live:suspense"] [data-testid=tb-account-lines]');
  await fah.ready('account-lines');
  assert.match(fah.page.url(), new RegExp(`#/account-lines\\?account=suspense&livemode=true&date=${day}$`));
  assert.is(await fah.page.inputValue('[data-testid=account-lines-account]'), 'suspense');
  assert.equal(await shown(fah), expected(api));
  // Each posting's time is Bangkok's, its type and merchant named.
  const first = api.data[0];
  const row = await fah.page.innerText(`[data-testid=al-line][data-id="${first.balance_transaction_id}"]`);
  assert.ok(row.includes(`${first.date} `), `${row} shows the Bangkok day ${first.date}`);
  await fah.screenshot('account-lines');

  const [download] = await Promise.all([fah.page.waitForEvent('download'), fah.page.click('[data-testid=download-csv]')]);
  const csv = await on.scene.s.bo('GET', `/v1/bo/reports/account-lines?account=suspense&livemode=true&date=${day}&format=csv`, undefined, { roles: ['finance'] });
  assert.is(readFileSync((await download.path())!, 'utf8'), `\uFEFF${csv.text}`);
  assert.is(download.suggestedFilename(), `account-lines-suspense-live-${day}.csv`);

  // The month by the form's button: the page asks for it and shows the API's figures.
  await fah.page.click('[data-testid=account-lines-month]');
  await fah.page.waitForFunction(() => location.hash.includes('month='));
  await fah.ready('account-lines');
  const month = (await on.scene.s.bo('GET', `/v1/bo/reports/account-lines?account=suspense&livemode=true&month=${day.slice(0, 7)}`, undefined, { roles: ['finance'] })).json;
  assert.equal(await shown(fah), expected(month));

  // In Thai, the page is named in Thai.
  await fah.page.click('[data-testid=lang-th]');
  await fah.page.waitForSelector('main[data-page="account-lines"][data-lang="th"][data-ready="1"]');
  assert.is((await fah.page.innerText('main h1')).trim(), th['accountLines.title']);
  assert.ok((await fah.page.innerText('[data-testid=al-closing]')).includes(th['statement.closing']!));
});

test.run();
