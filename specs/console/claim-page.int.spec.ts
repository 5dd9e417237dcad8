// The claim's and the withdrawal's pages as an operator found them in an outside-in pass, in
// Debian's Chromium against a real server (the harness of browser.int.spec.ts).
//
// Proves: an automatic claim's evidence (the overpayment's cause, same_transfer_excess) is named in
// the console's language, English and Thai, the code kept in its title and beside it in small mono
// text (the page showed the bare code in both languages); at 760 px the notes table keeps each
// operator's id on one line, the note's text wrapping instead (the ids broke mid-word: "emp_ / mali",
// "syst / em"), and the page no wider than the window; in the Thai console the notes the service
// writes on a claim (the automatic opening, "Closed automatically…", the deposit reversal's note
// that the payer owes the refund back) carry a Thai label chosen by the note's event and operator,
// the stored English text kept beneath, while an operator's own note is shown as written (they
// were English alone; the API now names each note's event); an automatic claim's opening, which
// has no operator, names the system as its author ("system", in Thai ระบบ; the cell was empty); a withdrawal's page lists every dispute
// it has had, newest first, each linking to its own page with its status and outcome, and GET
// /v1/bo/withdrawals/{id} answers them as disputes[] (it gave the current dispute only, so a lost
// earlier one was reachable by its id alone).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { launchChromium, operators } from '../support/console-browser.ts';
import { disputedTwice, owedClaim, slipScene, type SlipScene } from '../support/slip-harness.ts';

const { th } = await import(new URL('../../console/i18n-th.js', import.meta.url).href) as { th: Record<string, string> };
const { en } = await import(new URL('../../console/i18n-en.js', import.meta.url).href) as { en: Record<string, string> };

let scene: SlipScene;
let browser: Browser;
const signedIn = operators(() => browser, () => scene.s.url);
const note = 'checked the bank statement: the excess came from the order sender, refund it';
let claimId: string;

test.before(async () => {
  scene = await slipScene();
  // An overpayment's claim reviewed, refunded, paid out, closed by the service, its deposit then reversed (the payer owes the refund back).
  claimId = (await owedClaim(scene, 'Claim page', note)).claimId;
  browser = await launchChromium();
});

test.after(async () => {
  await signedIn.close();
  await scene?.s.stop();
});

test("an automatic claim's evidence is named in English and in Thai, its code kept for support", async () => {
  const claim = (await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json;
  assert.is(claim.evidence, 'same_transfer_excess');
  const mali = await signedIn.signIn('emp_mali', `#/claims/${claimId}`, 'claim');
  for (const [lang, dictionary] of [['en', en], ['th', th]] as const) {
    await mali.page.click(`[data-testid=lang-${lang}]`);
    await mali.page.waitForSelector(`main[data-page="claim"][data-lang="${lang}"][data-ready="1"]`);
    const evidence = mali.page.locator('[data-testid=claim-evidence]');
    assert.is((await evidence.innerText()).trim(), dictionary['claimEvidence.same_transfer_excess'], `${lang}: the cause's name`);
    assert.is(await evidence.getAttribute('title'), 'same_transfer_excess', `${lang}: the code in the title`);
    assert.is((await mali.page.innerText('[data-testid=claim-evidence-code]')).trim(), 'same_transfer_excess', `${lang}: the code beside it`);
    assert.is((await mali.page.innerText('[data-testid=claim-kind]')).trim(), dictionary['claimKind.overpayment'], `${lang}: the kind's name`);
  }
  await mali.page.click('[data-testid=lang-en]');
});

test("at 760 px the claim's notes keep each operator's id on one line, the note's text wrapping instead", async () => {
  const mali = await signedIn.signIn('emp_mali', `#/claims/${claimId}`, 'claim');
  await mali.page.setViewportSize({ width: 760, height: 900 });
  await mali.page.waitForFunction(() => document.documentElement.clientWidth === 760);
  for (const lang of ['en', 'th'] as const) {
    await mali.page.click(`[data-testid=lang-${lang}]`);
    await mali.page.waitForSelector(`main[data-page="claim"][data-lang="${lang}"][data-ready="1"]`);
    const ids = await mali.page.$$eval('[data-testid=note-operator]', (spans) => spans.map((s) => [s.textContent, new Set([...s.getClientRects()].map((r) => Math.round(r.top))).size] as const));
    assert.ok(ids.some(([id]) => id === (lang === 'en' ? 'system' : 'ระบบ')) && ids.some(([id]) => id === 'emp_claims'), JSON.stringify(ids));
    for (const [id, lines] of ids) assert.is(lines, 1, `${lang}: the operator id ${id} runs over ${lines} lines at 760 px`);
    const [scroll, client] = await mali.page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok(scroll <= client, `${lang}: the page is ${scroll} px wide at 760 px`);
    await mali.screenshot(`claim-notes-760-${lang}`);
  }
  await mali.page.click('[data-testid=lang-en]');
});

test("in the Thai console the notes the service wrote on a claim carry a Thai label by their event, the English kept beneath", async () => {
  const claim = (await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json;
  assert.equal(claim.notes.map((n: any) => n.event), ['ClaimOpened', 'ClaimReviewStarted', 'ClaimRefundApproved', 'ClaimRefundPaidOut', 'ClaimClosed', 'ClaimRefundOwed']);
  const mali = await signedIn.signIn('emp_mali', `#/claims/${claimId}`, 'claim');
  await mali.page.click('[data-testid=lang-th]');
  await mali.page.waitForSelector('main[data-page="claim"][data-lang="th"][data-ready="1"]');
  const rows = await mali.page.$$eval('[data-testid=note-row]', (trs) => trs.map((tr) => ({
    label: tr.querySelector('[data-testid=note-label]')?.textContent?.trim() ?? null,
    stored: tr.querySelector('[data-testid=note-stored]')?.textContent?.trim() ?? tr.querySelector('[data-testid=note-text]')?.textContent?.trim(),
  })));
  const cause = th['claimEvidence.same_transfer_excess']!;
  assert.equal(rows.map((r) => r.label), [
    th['claimNote.openedAutomatically']!.replace('{cause}', cause), null, null, null, th['claimNote.closedAutomatically'], th['claimNote.refundOwed'],
  ]);
  assert.equal(rows.map((r) => r.stored), claim.notes.map((n: any) => n.note), 'the stored text, English for the service\'s notes, is kept');
  await mali.screenshot('claim-notes-th');
  await mali.page.click('[data-testid=lang-en]');
  await mali.page.waitForSelector('main[data-page="claim"][data-lang="en"][data-ready="1"]');
  assert.is(await mali.page.locator('[data-testid=note-label]').count(), 0, 'in English the stored text is the note');
});

test("the notes the service wrote — an automatic claim's opening (no operator) and its closes (operator system) — name the system as their author, in English and in Thai", async () => {
  const claim = (await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json;
  assert.equal([claim.notes[0].event, claim.notes[0].operator], ['ClaimOpened', null]);
  const byService = claim.notes.flatMap((n: any, i: number) => (n.operator === null || n.operator === 'system' ? [i] : []));
  assert.ok(byService.some((i: number) => claim.notes[i].operator === 'system'), JSON.stringify(claim.notes.map((n: any) => n.operator)));
  const mali = await signedIn.signIn('emp_mali', `#/claims/${claimId}`, 'claim');
  for (const [lang, author] of [['en', 'system'], ['th', 'ระบบ']] as const) {
    await mali.page.click(`[data-testid=lang-${lang}]`);
    await mali.page.waitForSelector(`main[data-page="claim"][data-lang="${lang}"][data-ready="1"]`);
    const cells = await mali.page.locator('[data-testid=note-row] [data-testid=note-operator]').allInnerTexts();
    assert.equal(byService.map((i: number) => cells[i]!.trim()), byService.map(() => author), `${lang}: the service's notes' operator cells`);
  }
  await mali.page.click('[data-testid=lang-en]');
});

test("a withdrawal's page lists every dispute it has had, newest first, each linking to its page with its status and outcome", async () => {
  const { withdrawalId, fill, first, second } = await disputedTwice(scene);

  // The API: the current dispute as before, and every dispute, newest first.
  const view = (await scene.s.bo('GET', `/v1/bo/withdrawals/${withdrawalId}`)).json;
  assert.is(view.dispute.id, second.json.id);
  assert.equal(view.disputes.map((x: any) => [x.id, x.status, x.outcome ?? null, x.reason_code, x.amount_minor, x.resolved_at === null]),
    [[second.json.id, 'open', null, 'wrong_amount', 1_000, true], [first.json.id, 'resolved', 'merchant_lost', 'not_received', fill.amount_minor, false]]);

  const mali = await signedIn.signIn('emp_mali', `#/withdrawals/${withdrawalId}`, 'withdrawal');
  const rows = await mali.page.$$eval('[data-testid=dispute-row]', (trs) => trs.map((tr) => [
    tr.querySelector('[data-testid=dispute-link]')?.getAttribute('href'), tr.querySelector('[data-status]')?.getAttribute('data-status'),
    tr.querySelector('[data-testid=dispute-outcome]')?.getAttribute('data-status') ?? null,
  ]));
  assert.equal(rows, [[`#/disputes/${second.json.id}`, 'open', null], [`#/disputes/${first.json.id}`, 'resolved', 'merchant_lost']]);
  await mali.screenshot('withdrawal-disputes');
  await mali.page.click(`[data-testid=dispute-row][data-id="${first.json.id}"] [data-testid=dispute-link]`);
  await mali.ready('dispute');
  assert.ok((await mali.page.innerText('main h1')).includes(first.json.id), 'the earlier dispute\'s own page');
});

test.run();
