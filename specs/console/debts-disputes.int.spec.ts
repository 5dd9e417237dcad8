// The console as a finance analyst and an operations person found it in an outside-in pass, in
// Debian's Chromium against a real server (the harness of browser.int.spec.ts).
//
// Proves: the trial balance's owed_by_payees line can be followed to its claims — the line links to
// the claims list filtered by owed_by_payee (as owed_by_payers' to owed_by_payer), the list has that
// filter and shows what each payee owes as a column, and the claim's page says it, in English and
// in Thai (the list had no such filter, so `#/claims?owed_by_payee=true` listed every claim, and
// neither the list nor the claim showed the figure the trial balance sums); an order's earlier
// dispute, lost before a new one was opened on the same withdrawal, is shown by its own page and
// read by GET /v1/bo/disputes/{id} as itself (both answered the withdrawal's newer, open dispute:
// its id, reason and amount, so the lost one could not be read at all); a live credit waiting for
// a second ops_admin shows one ⚑ on "Approve and post" (it showed two); a reviewer who approves a
// deposit whose slip shows no amount without typing one is told so at the amount's field in the
// console's language, the note kept (the banner showed the server's English sentence naming the
// API's field, "give amount_minor as verified by the reviewer", in the Thai console too).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { consoleOnSlipScene } from '../support/console-browser.ts';
import { assertReceipt, disputedTwice, matchedDeposit, refundedClaim, settledDeposit, uploadJson } from '../support/slip-harness.ts';

const { th } = await import(new URL('../../console/i18n-th.js', import.meta.url).href) as { th: Record<string, string> };

const on = consoleOnSlipScene(test);
const signedIn = on.signedIn;
const note = 'checked the bank statement: the excess came from the order sender, refund it';


test('the trial balance\'s owed_by_payees line leads to the claims whose payee owes, with the figure on the list and on the claim, in English and Thai', async () => {
  // An overpayment's excess refunded and paid out to the payer: the refund paid money that sits in the payee's account.
  const { claimId } = await refundedClaim(on.scene, 'Payee debt', note);
  const claim = (await on.scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json;
  assert.equal([claim.status, claim.owed_by_payee_minor], ['closed', 5_000]);
  // Another claim that owes nothing, which the filter must leave out.
  const other = await settledDeposit(on.scene);
  const manual = await on.scene.s.bo('POST', '/v1/bo/claims', { kind: 'manual', deposit_id: other.id, amount_minor: 2_000, note });
  assert.is(manual.status, 201, manual.text);

  const fah = await signedIn.signIn('emp_fah', '#/trial-balance', 'trial-balance');
  const line = fah.page.locator('[data-testid=tb-section][data-livemode="true"] [data-testid=tb-account][data-account="sys:live:owed_by_payees"]');
  assert.match((await line.innerText()).replace(/\s+/g, ' '), /-?฿50\.00/);
  await line.locator('[data-testid=tb-debt-claims]').click();
  await fah.ready('claims');
  assert.match(fah.page.url(), /#\/claims\?owed_by_payee=true&livemode=true$/);
  assert.is(await fah.page.inputValue('[data-testid=filter-owed-by-payee]'), 'true');
  const rows = fah.page.locator('[data-testid=claim-row]');
  assert.equal(await rows.evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.id)), [claimId]);
  assert.is((await rows.first().locator('[data-testid=claim-owed-by-payee]').innerText()).trim(), '฿50.00');
  assert.ok((await fah.page.locator('[data-testid=claims-table] thead').innerText()).includes('OWED BY THE PAYEE'), 'the column is headed');

  // The claim's page says what the payee owes.
  await fah.goto(`#/claims/${claimId}`, 'claim');
  assert.is((await fah.page.innerText('[data-testid=claim-owed-by-payee]')).trim(), '฿50.00');
  assert.ok((await fah.page.innerText('main')).includes('Owed by the payee'));

  // In Thai, the filter and the figure are named in Thai.
  await fah.page.click('[data-testid=lang-th]');
  await fah.page.waitForSelector('main[data-page="claim"][data-lang="th"][data-ready="1"]');
  assert.ok((await fah.page.innerText('main')).includes(th['field.owed_by_payee_minor']!));
  await fah.goto('#/claims?owed_by_payee=true', 'claims');
  await fah.page.waitForSelector('main[data-page="claims"][data-lang="th"][data-ready="1"]');
  assert.ok((await fah.page.innerText('[data-testid=claims-filters]')).includes(th['claims.owedByPayee']!));
  assert.equal(await fah.page.locator('[data-testid=claim-row]').evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.id)), [claimId]);
});

test('an earlier dispute, lost before a new one was opened on the withdrawal, is read by its own id and shown on its own page', async () => {
  const { withdrawalId, fill, first, second } = await disputedTwice(on.scene);

  // The API: each dispute by its own id; the withdrawal's own page keeps the current one.
  const earlier = (await on.scene.s.bo('GET', `/v1/bo/disputes/${first.json.id}`)).json.dispute;
  assert.equal([earlier.id, earlier.status, earlier.outcome, earlier.reason_code, earlier.amount_minor, earlier.resolved_by, earlier.resolution_note],
    [first.json.id, 'resolved', 'merchant_lost', 'not_received', fill.amount_minor, 'emp_resolver', 'the payee showed the bank statement without it']);
  const current = (await on.scene.s.bo('GET', `/v1/bo/disputes/${second.json.id}`)).json.dispute;
  assert.equal([current.id, current.status, current.reason_code, current.amount_minor, current.resolved_by], [second.json.id, 'open', 'wrong_amount', 1_000, null]);
  assert.is((await on.scene.s.bo('GET', `/v1/bo/withdrawals/${withdrawalId}`)).json.dispute.id, second.json.id);

  const mali = await signedIn.signIn('emp_mali', `#/disputes/${first.json.id}`, 'dispute');
  const heading = await mali.page.innerText('main h1');
  assert.ok(heading.includes(first.json.id), heading);
  const page = await mali.page.innerText('main');
  assert.ok(page.includes('emp_resolver') && page.includes('the payee showed the bank statement without it'), page);
  assert.not.ok(page.includes(second.json.id), 'not the newer dispute');
});

test('a live credit waiting for a second ops_admin: "Approve and post" carries one ⚑', async () => {
  const shop = await on.scene.s.onboard('Big credit');
  const proposed = await on.scene.s.bo('POST', `/v1/bo/merchants/${shop.id}/adjustments`, { livemode: true, amount_minor: 20_000_000, direction: 'credit', bucket: 'available', reason: 'top-up for the New Year payouts' }, { sub: 'emp_mali', roles: ['ops_admin'], stepUp: true });
  assert.is(proposed.status, 202, proposed.text);
  const lead = await signedIn.signIn('emp_lead', `#/merchants/${shop.id}`, 'merchant');
  const button = (await lead.page.innerText('[data-testid=adjustment-proposal] [data-testid=approve-adjustment]')).trim();
  assert.is(button.split('⚑').length - 1, 1, button);
});

test('approving a deposit whose slip shows no amount, none typed: said at the amount\'s field in Thai, the note kept, nothing recorded', async () => {
  const d = await matchedDeposit(on.scene);
  assertReceipt(await uploadJson(d.slip_upload, { trans_ref: `TR-${d.id}`, sending_bank_code: '014', occurred_at: d.created_at }));
  await on.scene.s.running.slipWorker.drain();
  const ploy = await signedIn.signIn('emp_ploy', `#/deposits/${d.id}`, 'deposit');
  await ploy.page.click('[data-testid=lang-th]');
  await ploy.page.waitForSelector('main[data-page="deposit"][data-lang="th"][data-ready="1"]');
  const reviewNote = 'the bank statement shows the transfer arrived in full';
  await ploy.page.fill('[data-testid=note]', reviewNote);
  await ploy.page.click('[data-testid=approve]');
  await ploy.page.waitForSelector('[data-testid=amount-error]');
  assert.is((await ploy.page.innerText('[data-testid=amount-error]')).trim(), th['deposit.amountRequired']);
  assert.is(await ploy.page.getAttribute('[data-testid=amount]', 'aria-invalid'), 'true');
  assert.not.ok((await ploy.page.innerText('body')).includes('amount_minor'), 'the API\'s field name is not shown');
  assert.is(await ploy.page.inputValue('[data-testid=note]'), reviewNote);
  const after = (await on.scene.s.bo('GET', `/v1/bo/deposits/${d.id}`)).json;
  assert.equal([after.deposit.status, after.review.approvals.length], ['under_review', 0]);
});

test.run();
