// A payer's debt written off, on the console's claim page, in Debian's Chromium against a real
// server: a claim whose refund the payer owes back (50 baht), a write-off of 20 baht proposed by
// one finance operator shows as waiting (its amount, its proposer, the time it lapses), then,
// approved by a second, the page says what the payer still owes (30 baht) and what was written
// off (20 baht), no proposal waiting; labelled in English and in Thai.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { closeSessions, launchChromium, signIn, type OperatorSession } from '../support/console-browser.ts';
import { owedClaim, slipScene, type SlipScene } from '../support/slip-harness.ts';

let scene: SlipScene;
let browser: Browser;
const sessions: OperatorSession[] = [];
const note = 'looked at the bank statement for this one';
const writeOffNote = 'the payer cannot be reached; collection declined';

test.before(async () => {
  scene = await slipScene();
  browser = await launchChromium();
});
test.after(async () => {
  await closeSessions(browser, sessions);
  await scene.s.stop();
});

/** The fact row of `testid` on the claim page: its label and its text. */
const fact = (lead: OperatorSession, testid: string) => lead.page.$eval(`[data-testid=${testid}]`, (e) => [e.closest('dd')?.previousElementSibling?.textContent, e.textContent]);

test("the claim page shows a write-off waiting for its second operator, then what was written off beside what the payer still owes, in English and Thai", async () => {
  const { claimId } = await owedClaim(scene, 'Console write-off', note);
  const proposed = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs`, { amount_minor: 2_000, note: writeOffNote }, { sub: 'emp_fin_a', roles: ['finance'], stepUp: true });
  assert.is(proposed.status, 202, proposed.text);

  const lead = await signIn(browser, scene.s.url, 'emp_lead', { hash: `#/claims/${claimId}`, page: 'claim' });
  sessions.push(lead);
  assert.equal(await fact(lead, 'claim-owed-by-payer'), ['Owed by the payer', '฿50.00']);
  assert.is(await lead.page.$('[data-testid=claim-written-off]'), null, 'nothing written off yet, no line');
  const [label, text] = await fact(lead, 'claim-write-off-proposal');
  assert.is(label, 'Write-off waiting for approval');
  assert.match(text ?? '', /^฿20\.00 proposed by emp_fin_a; a second finance operator approves it by /);

  const approved = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs/${proposed.json.write_off_proposal.id}/approve`, { amount_minor: 2_000 }, { sub: 'emp_fin_b', roles: ['finance'], stepUp: true });
  assert.is(approved.status, 200, approved.text);
  await lead.page.reload();
  await lead.ready('claim');
  assert.equal(await fact(lead, 'claim-owed-by-payer'), ['Owed by the payer', '฿30.00']);
  assert.equal(await fact(lead, 'claim-written-off'), ['Written off (loss)', '฿20.00']);
  assert.is(await lead.page.$('[data-testid=claim-write-off-proposal]'), null, 'approved: no proposal waits');
  await lead.page.click('[data-testid=lang-th]');
  await lead.page.waitForSelector('main[data-page="claim"][data-lang="th"][data-ready="1"]');
  assert.equal(await fact(lead, 'claim-written-off'), ['ตัดเป็นหนี้สูญ (ขาดทุน)', '฿20.00']);
  assert.equal(await fact(lead, 'claim-owed-by-payer'), ['ยอดที่ผู้โอนต้องคืน', '฿30.00']);
});

test.run();
