// The operator console end to end, in Debian's Chromium (playwright-core), against a real
// server whose development issuer is a real OpenID provider: every operator signs in
// through the provider's form (code flow with PKCE), in a browser context of their own.
//
// Proves: the sign-in; the queue worked by two reviewers — the first approval of a
// four-eyes deposit leaves it under review, a second reviewer in a second context sees the
// first's amount and settles it; a claim's refund approved by one ops_admin and paid out by
// another, each after a step-up; a decline with a short note is refused in the page and never reaches the server; a
// failed webhook delivery resent with a step-up (the password typed again in the popup), its
// auto-disabled endpoint shown disabled with the server's reason on the dashboard first, and
// disabled again only at a second click ("Confirm disable");
// finance opens a deposit with no slip-image fetch and no error banner (a reviewer sees the image);
// the statement's CSV download is the API's CSV byte for byte after a UTF-8 BOM; support's search box finds a deposit by reference; the merchant page's balance
// transactions are the API's, page by page, and its receiving accounts the report's (CSV
// too); the trial balance is the API's (its CSV too);
// the activity page finds an approval in the action log and a request by its id; ops_admin
// posts an adjustment, suspends and reinstates a merchant (each with a reason the page
// requires and the journal keeps), mints and revokes a key after
// step-ups, onboards a merchant and registers its endpoint (its move shown before and after
// on the activity page); a role without `reviewer`
// sees no approve button and the server refuses the call anyway. Accessibility, where the
// page already is: field errors announced and tied to their fields, focus moved into a
// confirmation and back, to a new page's heading and to the notice; the tab's title; the
// header and the approvals' buttons at 200 % zoom; named step-up flags, action columns and
// charts; Thai names marked lang="th". Every page is screenshotted into screenshots/ (ignored by git).

import { test } from 'uvu';
import { fingerprintedUrl } from '../../server/secret-text.ts';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { bangkokDayOf } from '../../core/finance/calendar.ts';
import { limits } from '../../core/limits.ts';
import { answerStepUp, launchChromium, signIn, type OperatorSession } from '../support/console-browser.ts';
import { devOperatorPassword } from '../../server/auth/dev-operators.ts';
import { assertReceipt, matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, type SlipScene } from '../support/slip-harness.ts';
import { addEndpoint, advance, day, deliveries, Receiver } from '../webhooks/support.ts';
import { depositBody, freshSender, TestServer } from '../support/server-harness.ts';

// The console's own words: the titles and accessible names asserted are its dictionaries' (plain JS, read as the i18n spec reads them).
const { en } = await import(new URL('../../console/i18n-en.js', import.meta.url).href) as { en: Record<string, string> };
const { th } = await import(new URL('../../console/i18n-th.js', import.meta.url).href) as { th: Record<string, string> };

let scene: SlipScene;
let browser: Browser;
let failing: Receiver;
let endpointId: string;
let fourEyesId: string;
const sessions: OperatorSession[] = [];
const otherName = { bank_code: '014', account_number: '9876543210', account_name_th: 'สมศักดิ์ มีเงิน' };
const goodNote = 'the transfer is on the bank statement of the receiver';
/**
 * How long an action behind a step-up may take, from the click to the server's answer: the
 * popup's sign-in at the provider, its close, then the request — on a 2-core machine that
 * Chromium, the provider and the server share.
 */
const stepUpAnswerMs = 60_000;

async function underReview(amount: number): Promise<string> {
  const d = await matchedDeposit(scene, { amount_minor: amount });
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, { amount_minor: d.legs[0].amount_minor }, { image_sha256: sha256Hex(image), sender: otherName }));
  assertReceipt(await uploadFile(d.slip_upload, image));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  return d.id;
}

async function operator(sub: string, options: { hash?: string; page?: string } = {}): Promise<OperatorSession> {
  const session = await signIn(browser, scene.s.url, sub, options);
  sessions.push(session);
  return session;
}

test.before(async () => {
  scene = await slipScene();
  // A receiver that fails every delivery, until the retries are spent.
  failing = await Receiver.start(() => scene.s.clock.now());
  failing.answer(500);
  endpointId = await addEndpoint(scene.s, scene.shop.id, failing.url);
  await matchedDeposit(scene, { sender: freshSender() }); // deposit.created to the failing endpoint (a payer of its own: it stays open)
  await advance(scene.s, 4 * day);
  browser = await launchChromium();
});
test.after(async () => {
  for (const s of sessions) await s.context.close().catch(() => {});
  await browser?.close();
  await Receiver.stopAll();
  await scene.s.stop();
});

test('an operator signs in through the OpenID provider and lands on the review queue with their name and roles', async () => {
  const lead = await operator('emp_lead');
  assert.match(await lead.page.textContent('[data-testid=operator]') ?? '', /emp_lead/);
  assert.ok((await lead.page.textContent('[data-testid=roles]') ?? '').includes(en['role.reviewer']), 'the roles, named in the console\'s language');
  assert.ok(await lead.page.$('[data-testid=roles] .badge[title=reviewer]'), 'the role as granted in the title');
  // Nothing chosen yet: the browser's language (this context's locale is en-GB), not Thai regardless.
  assert.is(await lead.page.evaluate(() => document.documentElement.lang), 'en');
  // no token in storage the page could leak: the language is all it keeps
  const stored = await lead.page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  assert.not.match(stored, /eyJ/);
  await lead.screenshot('queue-empty');
});

test('four-eyes: one reviewer approves and the deposit stays under review; a second reviewer in another browser settles it', async () => {
  const id = await underReview(limits.fourEyesAmountMinorMin);
  fourEyesId = id;
  const ploy = await operator('emp_ploy');
  await ploy.page.click(`[data-testid=queue-row][data-id="${id}"]`);
  await ploy.ready('deposit');
  assert.is(await ploy.page.textContent('[data-testid=approvals-needed]'), '2');
  await ploy.page.waitForSelector('[data-testid=slip] img[data-testid=slip-image]'); // a reviewer's roles read the slip image
  await ploy.screenshot('deposit');
  // The payer's Thai name is marked Thai for a screen reader in the English console; the tab names the deposit.
  assert.equal(await unmarkedThai(ploy, '[data-testid=deposit-sender]'), []);
  assert.ok(await ploy.page.$('[data-testid=deposit-sender] [lang=th]'), 'the sender has a Thai name here');
  assert.is(await ploy.page.title(), `Deposit ${id} · satang`);
  await ploy.page.fill('[data-testid=note]', goodNote);
  await ploy.page.click('[data-testid=approve]');
  await ploy.page.waitForSelector('[data-testid=approvals]:text("1")');
  assert.match(await ploy.page.textContent('[data-testid=deposit-status]') ?? '', /under.review|ตรวจสอบ/i);
  assert.is((await scene.s.bo('GET', `/v1/bo/deposits/${id}`)).json.deposit.status, 'under_review');

  const krit = await operator('emp_krit', { hash: `#/deposits/${id}`, page: 'deposit' });
  assert.is(await krit.page.textContent('[data-testid=approvals]'), '1');
  // The second reviewer sees the figure the first approved, one leg or many.
  const [firstApproved] = (await scene.s.bo('GET', `/v1/bo/deposits/${id}`)).json.review.approved_amounts;
  const baht = (firstApproved.amount_minor / 100).toLocaleString('en-US', { minimumFractionDigits: 2 });
  assert.ok((await krit.page.textContent('[data-testid=approved-amounts]') ?? '').includes(baht), baht);
  await krit.page.fill('[data-testid=note]', goodNote);
  await krit.page.click('[data-testid=approve]');
  await krit.page.waitForFunction(async (depositId) => {
    const text = document.querySelector('[data-testid=deposit-status]')?.textContent ?? '';
    return /settled|สำเร็จ/i.test(text) || depositId === '';
  }, id, { timeout: 10_000 });
  const after = (await scene.s.bo('GET', `/v1/bo/deposits/${id}`)).json;
  assert.is(after.deposit.status, 'settled');
  assert.ok(after.review.approvals.includes('emp_ploy'), JSON.stringify(after.review));
  assert.ok(after.timeline.some((step: { type?: string; kind?: string }) => JSON.stringify(step).includes('emp_krit')), `the settling decision names the second reviewer: ${JSON.stringify(after.timeline)}`);
  // The actions were ordinary API calls with Idempotency-Keys: the action log has both (its
  // row is written by the log's own thread as the answer goes out: looked for a few seconds).
  const deadline = Date.now() + 5_000;
  for (;;) {
    const log = await scene.s.bo('GET', '/v1/bo/reports/action-logs?route=' + encodeURIComponent('/v1/bo/deposits/:id/approve'));
    const subjects = log.json.data.filter((r: { target_ids?: Record<string, string> }) => JSON.stringify(r).includes(id)).map((r: { subject: string }) => r.subject);
    if (subjects.includes('emp_ploy') && subjects.includes('emp_krit')) break;
    assert.ok(Date.now() < deadline, JSON.stringify(log.json.data.slice(0, 3)));
    await new Promise((r) => setTimeout(r, 100));
  }
});

test('a multi-leg deposit under review (four eyes): the first reviewer gives what each waiting leg received, the second confirms those figures, and each withdrawal is filled by its own', async () => {
  // A white label of its own, so these withdrawals take no other test's deposits.
  const payer = await scene.s.onboard('Payer legs');
  const shop = await scene.s.onboard('Shop legs', payer.whiteLabelId);
  await scene.s.fund(payer.id, 10_000_000);
  const withdrawals: string[] = [];
  for (const account of ['2323232323', '4545454545']) {
    const ben = await scene.s.beneficiary(payer.id, true, account);
    const w = await scene.s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 3_000_000, currency: 'THB', merchant_reference: `legs-${account}`, end_user_ref: 'payee', beneficiary_id: ben });
    assert.is(w.status, 201, w.text);
    withdrawals.push(w.json.id);
  }
  const d = (await scene.s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: limits.fourEyesAmountMinorMin, fill_preference: 'internal_only' }))).json;
  assert.equal(d.legs.map((l: { amount_minor: number }) => l.amount_minor), [3_000_000, limits.fourEyesAmountMinorMin - 3_000_000]);
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, { amount_minor: 3_000_000 }, {
    image_sha256: sha256Hex(image), sender: otherName, receiver: { bank_code: '004', account_number: '2323232323', account_name: 'สมหญิง รักดี' },
  }));
  assertReceipt(await uploadFile(d.slip_upload, image));
  assert.is(await scene.s.running.slipWorker.drain(), 1);

  const ploy = await operator('emp_ploy', { hash: `#/deposits/${d.id}`, page: 'deposit' });
  assert.is(await ploy.page.$('[data-testid=amount]'), null, 'no single amount while two legs wait');
  // The timeline's match lays each leg out field by field (its money in baht), not as JSON.
  const matchedStep = await ploy.page.textContent('[data-testid=timeline-step][data-step=matched]') ?? '';
  assert.not.match(matchedStep, /[{}"]/, matchedStep);
  for (const leg of d.legs) assert.ok(matchedStep.includes(leg.leg_ref), matchedStep);
  assert.match(matchedStep, /฿30,000\.00/, matchedStep);
  assert.equal(await ploy.page.$$eval('[data-testid=leg-amount]', (inputs) => inputs.map((i) => i.getAttribute('data-leg'))), d.legs.map((l: { leg_ref: string }) => l.leg_ref));
  let calls = 0;
  ploy.page.on('request', (r) => { if (r.method() === 'POST' && r.url().includes(`/v1/bo/deposits/${d.id}/`)) calls++; });
  await ploy.page.fill('[data-testid=note]', goodNote);
  await ploy.page.fill(`[data-testid=leg-amount][data-leg="${d.legs[0].leg_ref}"]`, '30,000.00');
  await ploy.page.click('[data-testid=approve]');
  await ploy.page.waitForSelector('.field-error');
  assert.is(calls, 0, 'a leg left empty is caught in the page');
  await ploy.page.fill(`[data-testid=leg-amount][data-leg="${d.legs[1].leg_ref}"]`, '0');
  await ploy.page.click('[data-testid=approve]');
  await ploy.page.waitForSelector('[data-testid=approvals]:text("1")');
  assert.match(await ploy.page.textContent('[data-testid=notice]') ?? '', /Approval recorded|บันทึกการอนุมัติแล้ว/, 'the page says the approval is the first of two');
  const recorded = (await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`)).json.review;
  assert.equal(recorded.approved_amounts, [{ leg_ref: d.legs[0].leg_ref, amount_minor: 3_000_000 }, { leg_ref: d.legs[1].leg_ref, amount_minor: 0 }]);

  // The second reviewer sees the first's figures and confirms them by leaving the fields empty.
  const krit = await operator('emp_krit', { hash: `#/deposits/${d.id}`, page: 'deposit' });
  assert.match(await krit.page.textContent('[data-testid=approved-amounts]') ?? '', /30,000\.00/);
  await krit.page.fill('[data-testid=note]', goodNote);
  await krit.page.click('[data-testid=approve]');
  await krit.page.waitForFunction(() => /settled|สำเร็จ/i.test(document.querySelector('[data-testid=deposit-status]')?.textContent ?? ''), undefined, { timeout: 10_000 });
  const after = (await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`)).json.deposit;
  assert.equal([after.status, after.amount_received_minor, after.partial], ['settled', 3_000_000, true]);
  const filled = [];
  for (const id of withdrawals) filled.push((await scene.s.call(payer.live.api_key, 'GET', `/v1/pay/withdrawals/${id}`)).json.filled_minor);
  assert.equal(filled, [3_000_000, 0], 'the first payee was paid, the second leg released');
  // The page's legs: what each was found to have received and what its withdrawal took.
  await krit.page.waitForSelector('[data-testid=leg-filled]');
  const legCells = await krit.page.$$eval('[data-testid=legs] tbody tr', (rows) => rows.map((r) => [r.querySelector('[data-testid=leg-verified]')!.textContent!.trim(), r.querySelector('[data-testid=leg-filled]')!.textContent!.trim()]));
  assert.ok(/30,000\.00/.test(legCells[0]![0]!) && /30,000\.00/.test(legCells[0]![1]!) && /0\.00/.test(legCells[1]![1]!), JSON.stringify(legCells));
  // Finance's receiving accounts: the second leg was released unpaid, not a slip still awaited (pending).
  const receiving = (await scene.s.bo('GET', `/v1/bo/reports/receiving-accounts?merchant_id=${payer.id}&livemode=true`, undefined, { roles: ['finance'] })).json;
  const second = receiving.data.find((a: any) => a.account_number_masked === 'xxxxxx4545');
  assert.equal([second.pending_legs, second.released_unpaid_legs], [0, 1], JSON.stringify(second));
});

test('a decline with a note under 20 characters is refused in the page and never reaches the server', async () => {
  const id = await underReview(50_000);
  const ploy = await operator('emp_ploy', { hash: `#/deposits/${id}`, page: 'deposit' });
  let calls = 0;
  ploy.page.on('request', (r) => { if (r.method() === 'POST' && r.url().includes(`/v1/bo/deposits/${id}/`)) calls++; });
  await ploy.page.fill('[data-testid=note]', 'too short');
  await ploy.page.click('[data-testid=decline]');
  await ploy.page.waitForSelector('[data-testid=note-error]');
  assert.match(await ploy.page.textContent('[data-testid=note-error]') ?? '', /20/);
  assert.is(calls, 0);
  // A screen reader hears the error as it appears, and on the note it names.
  const [errorId, role, invalid, describedBy] = await ploy.page.evaluate(() => {
    const error = document.querySelector('[data-testid=note-error]')!, note = document.querySelector('[data-testid=note]')!;
    return [error.id, error.getAttribute('role'), note.getAttribute('aria-invalid'), note.getAttribute('aria-describedby')];
  });
  assert.ok(errorId, 'the error has an id');
  assert.equal([role, invalid, describedBy], ['alert', 'true', errorId]);
  // The focus ring reads at 3:1 or more on white and on the dark header.
  await ploy.page.focus('[data-testid=note]');
  const [ring, headerBackground] = await ploy.page.evaluate(() => [getComputedStyle(document.activeElement!).outlineColor, getComputedStyle(document.querySelector('header.top')!).backgroundColor]);
  assert.ok(contrast(ring, 'rgb(255, 255, 255)') >= 3, `${ring} on white`);
  assert.ok(contrast(ring, headerBackground) >= 3, `${ring} on ${headerBackground}`);
  assert.is((await scene.s.bo('GET', `/v1/bo/deposits/${id}`)).json.deposit.status, 'under_review');
  // ... while a proper note declines it
  await ploy.page.fill('[data-testid=note]', goodNote);
  await ploy.page.click('[data-testid=decline]');
  await ploy.page.waitForFunction(() => !document.querySelector('[data-testid=decision-form]'), undefined, { timeout: 10_000 });
  assert.is((await scene.s.bo('GET', `/v1/bo/deposits/${id}`)).json.deposit.status, 'rejected');
});

test('a failed webhook delivery is resent with a step-up: the password again in a popup, then a new delivery', async () => {
  const failed = (await deliveries(scene.s, endpointId)).find((d) => d.status === 'failed');
  assert.ok(failed, 'the scene has a failed delivery');
  // Fifty failures over the days auto-disabled the endpoint: the dashboard shows it disabled, with the server's reason.
  const disabled = (await scene.s.bo('GET', `/v1/bo/webhooks/${endpointId}`)).json;
  assert.is(disabled.status, 'disabled');
  const mali = await operator('emp_mali', { hash: '#/dashboard', page: 'dashboard' });
  const row = `[data-testid=webhook-endpoint][data-id="${endpointId}"]`;
  await mali.page.waitForSelector(`${row}[data-status=disabled][data-failing]`);
  assert.is(await mali.page.getAttribute(`${row} [data-status]`, 'data-status'), 'disabled', 'the status badge says disabled');
  assert.is(await mali.page.getAttribute(row, 'data-failing'), String(disabled.failing_since !== null));
  // Why, in words: the service disabled it after a day of failures (the code is the title).
  assert.is(disabled.disabled_reason, 'auto_disabled');
  assert.ok((await mali.page.textContent(`${row} [data-testid=webhook-detail]`) ?? '').includes('Disabled by the service: deliveries failed for 24 hours'), disabled.disabled_reason);
  await mali.screenshot('dashboard-webhooks');
  // The operator enables it from the merchant's page.
  await mali.goto(`#/merchants/${scene.shop.id}?livemode=true&endpoint=${endpointId}`, 'merchant');
  await mali.page.waitForSelector('[data-testid=deliveries][data-loaded="1"]');
  await mali.screenshot('merchant');
  failing.answer(204);
  await mali.page.click('[data-testid=endpoint-enable]');
  await mali.page.waitForSelector('[data-testid=endpoint-disable]');
  await mali.page.waitForSelector(`[data-testid=delivery-row][data-id="${failed.id}"] [data-testid=resend]`);
  const before = (await deliveries(scene.s, endpointId)).length;
  let stepUpHeader: string | undefined;
  mali.page.on('request', (r) => { if (r.url().endsWith('/resend')) stepUpHeader = r.headers()['x-pg-step-up-token']; });
  const resent = mali.page.waitForResponse((r) => r.url().endsWith('/resend'), { timeout: stepUpAnswerMs });
  await answerStepUp(mali, () => mali.page.click(`[data-testid=delivery-row][data-id="${failed.id}"] [data-testid=resend]`));
  assert.is((await resent).status(), 201);
  assert.ok(stepUpHeader && stepUpHeader.split('.').length === 3, 'the resend carried a step-up token');
  const after = await deliveries(scene.s, endpointId);
  assert.is(after.length, before + 1);
  assert.ok(after.some((d) => d.resend === true || d.resend?.of === failed.id || JSON.stringify(d).includes(failed.id)), JSON.stringify(after[0]));
  // A step-up given up (its window closed): nothing is sent, and the banner says so in the console's words, not an exception's.
  const popupOpened = mali.context.waitForEvent('page');
  await mali.page.click(`[data-testid=delivery-row][data-id="${failed.id}"] [data-testid=resend]`);
  await (await popupOpened).close();
  await mali.page.waitForSelector('[data-testid=error-banner]', { timeout: stepUpAnswerMs });
  assert.match(await mali.page.textContent('[data-testid=error-banner]') ?? '', /Step-up was cancelled: nothing was sent|ยกเลิกการยืนยันตัวตนซ้ำแล้ว ไม่มีการส่งคำขอ/);
  assert.is((await deliveries(scene.s, endpointId)).length, before + 1, 'nothing resent');

  // Replay's "only" option says what the server does with it: events not received here, pending ones left out.
  await mali.page.click('[data-testid=replay-form] summary');
  assert.ok(await mali.page.isChecked('[data-testid=replay-only-failed]'), 'on by default');
  const onlyLabel = await mali.page.$eval('[data-testid=replay-only-failed]', (input) => input.closest('label')!.textContent!.trim());
  assert.match(onlyLabel, /never sent \(not those still pending\)|ไม่เคยส่ง \(ไม่รวมที่ยังรอส่ง\)/, onlyLabel);

  // Disabling asks for a second click: the first (and a cancel) send nothing; "Confirm disable" does.
  const statusOf = async () => (await scene.s.bo('GET', `/v1/bo/webhooks/${endpointId}`)).json.status;
  let disableCalls = 0;
  mali.page.on('request', (r) => { if (r.url().endsWith(`/webhooks/${endpointId}/disable`)) disableCalls++; });
  await mali.page.click('[data-testid=endpoint-disable]');
  await mali.page.waitForSelector('[data-testid=endpoint-disable-confirm]');
  await assertFocus(mali, 'endpoint-disable-confirm', 'focus moves into the confirmation');
  await mali.page.keyboard.press('Escape');
  await mali.page.waitForSelector('[data-testid=endpoint-disable]');
  await assertFocus(mali, 'endpoint-disable', 'Escape closes it and gives focus back');
  await mali.page.click('[data-testid=endpoint-disable]');
  await mali.page.click('[data-testid=endpoint-disable-cancel]');
  await mali.page.waitForSelector('[data-testid=endpoint-disable]');
  await assertFocus(mali, 'endpoint-disable', 'so does Cancel');
  assert.is(disableCalls, 0, 'neither the first click nor the cancel disables');
  assert.is(await statusOf(), 'enabled');
  await mali.page.click('[data-testid=endpoint-disable]');
  const disabledNow = mali.page.waitForResponse((r) => r.url().endsWith(`/webhooks/${endpointId}/disable`));
  await mali.page.click('[data-testid=endpoint-disable-confirm]');
  assert.is((await disabledNow).status(), 200);
  await mali.page.waitForSelector('[data-testid=endpoint-enable]');
  assert.equal([disableCalls, await statusOf()], [1, 'disabled']);
  // Enabling again is one click (it stops nothing); the later scenes expect it enabled.
  await mali.page.click('[data-testid=endpoint-enable]');
  await mali.page.waitForSelector('[data-testid=endpoint-disable]');
  assert.is(await statusOf(), 'enabled');
});

test('a session that ran out is renewed in a popup on the next action: the page and the note typed in it stay, and the action goes through', async () => {
  const claim = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'manual', deposit_id: fourEyesId, amount_minor: 1_000, note: 'the payer says they sent ten baht twice' });
  assert.is(claim.status, 201, claim.text);
  const mali = await operator('emp_mali', { hash: `#/claims/${claim.json.id}`, page: 'claim' });
  await mali.page.evaluate(() => { (window as unknown as { stayed: boolean }).stayed = true; });
  await mali.page.fill('[data-testid=transition-form] textarea', 'reviewed against the bank statement line');
  // The server refuses the token as run out (401), once: as an hour after signing in.
  let refused = 0;
  await mali.page.route('**/v1/bo/claims/*/review', async (route) => {
    if (refused++ > 0) return route.continue();
    await route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify({ error: { code: 'authentication_failed', type: 'authentication_error', message: 'token expired', message_th: 'โทเค็นหมดอายุ', retryable: false, retry_after_seconds: null, request_id: 'req_test', details: {} } }) });
  });
  const answered = mali.page.waitForResponse((r) => r.url().endsWith(`/claims/${claim.json.id}/review`) && r.status() === 200, { timeout: stepUpAnswerMs });
  const [popup] = await Promise.all([mali.context.waitForEvent('page'), mali.page.click('[data-testid=claim-review]')]);
  // The issuer's own session signs the operator in again at once; where it asks, the operator types the password.
  await Promise.race([
    popup.waitForEvent('close', { timeout: stepUpAnswerMs }),
    popup.waitForSelector('[data-testid=login-password]', { timeout: stepUpAnswerMs }).then(async () => {
      const closed = popup.waitForEvent('close', { timeout: stepUpAnswerMs });
      await popup.fill('[data-testid=login-password]', devOperatorPassword);
      await popup.click('[data-testid=login-submit]', { noWaitAfter: true });
      await closed;
    }),
  ]).catch((error) => { if (!popup.isClosed()) throw error; });
  await answered;
  assert.is(refused, 2, 'refused once, then sent again with the renewed token');
  const reviewed = (await scene.s.bo('GET', `/v1/bo/claims/${claim.json.id}`)).json;
  assert.equal([reviewed.status, reviewed.notes.at(-1).note], ['under_review', 'reviewed against the bank statement line'], 'the note typed before the session ran out');
  assert.ok(await mali.page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed === true), 'the page never left');
});

test('ops_admin approves a claim refund from its page and another pays it out (four eyes), each after a step-up: money leaves', async () => {
  const claim = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'manual', deposit_id: fourEyesId, amount_minor: 1_500, note: 'the payer sent fifteen baht twice' });
  assert.is(claim.status, 201, claim.text);
  const reviewed = await scene.s.bo('POST', `/v1/bo/claims/${claim.json.id}/review`, { note: 'slip checked against the bank statement' });
  assert.is(reviewed.status, 200, reviewed.text);
  const mali = await operator('emp_mali', { hash: `#/claims/${claim.json.id}`, page: 'claim' });
  const lead = await operator('emp_lead', { hash: `#/claims/${claim.json.id}`, page: 'claim' });
  for (const [session, transition, status] of [[mali, 'refund', 'refund_pending'], [lead, 'payout', 'return_pending_payout']] as const) {
    if (session === lead) await lead.page.reload();
    await session.page.waitForSelector(`[data-testid=claim-${transition}]`);
    assert.ok(await session.page.$(`[data-testid=claim-${transition}] .flag`), `${transition} is marked as asking for a step-up`);
    if (session === mali) {
      // A refund above the claim: the server's 422 in the banner; the success that follows clears it.
      await mali.page.fill('[data-testid=refund-amount]', '100');
      await mali.page.fill('[data-testid=transition-form] textarea', 'refund to the payer account, all of it');
      const tooMuch = mali.page.waitForResponse((r) => r.url().endsWith(`/claims/${claim.json.id}/refund`), { timeout: stepUpAnswerMs });
      await answerStepUp(mali, () => mali.page.click('[data-testid=claim-refund]'));
      assert.is((await tooMuch).status(), 422);
      await mali.page.waitForSelector('[data-testid=error-banner]');
      // Disabled while its request ran, the button has focus again after it.
      await mali.page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'claim-refund');
      await mali.page.fill('[data-testid=refund-amount]', '');
    }
    await session.page.fill('[data-testid=transition-form] textarea', `${transition} to the payer's account`);
    let stepUpHeader: string | undefined;
    session.page.on('request', (r) => { if (r.url().endsWith(`/${transition}`)) stepUpHeader = r.headers()['x-pg-step-up-token']; });
    const answered = session.page.waitForResponse((r) => r.url().endsWith(`/claims/${claim.json.id}/${transition}`), { timeout: stepUpAnswerMs });
    await answerStepUp(session, () => session.page.click(`[data-testid=claim-${transition}]`));
    const answer = await answered;
    assert.is(answer.status(), 200, await answer.text());
    assert.ok(stepUpHeader && stepUpHeader.split('.').length === 3, `the ${transition} carried a step-up token`);
    assert.is((await scene.s.bo('GET', `/v1/bo/claims/${claim.json.id}`)).json.status, status);
    if (session === mali) {
      await mali.page.waitForFunction(() => !document.querySelector('[data-testid=error-banner]'));
      // Who approved the refund pays none out: the button says so, disabled, rather than costing a step-up for a 409.
      await mali.page.reload();
      await mali.page.waitForSelector('[data-testid=claim-payout][disabled]');
      assert.match(await mali.page.textContent('[data-testid=four-eyes-hint]') ?? '', /another operator pays it out|ผู้ปฏิบัติงานคนอื่นต้องเป็นผู้จ่ายออก/);
    }
  }
  // Paid out, its refund withdrawal still open: Close is not offered (the server would refuse it, 409).
  await lead.page.reload();
  await lead.ready('claim');
  assert.is(await lead.page.$('[data-testid=claim-close]'), null, 'no Close while the refund is being paid out');
});

test('finance opens a deposit without its slip image (not its role\'s to read), and the statement CSV the page downloads is the API\'s CSV', async () => {
  const fah = await operator('emp_fah', { page: 'claims' });
  // Finance reads the order but not its slip images: the page says so and never asks for one, so no 403 banner.
  const imageReads: string[] = [];
  fah.page.on('request', (r) => { if (/\/slips\/[^/]+\/image$/.test(r.url())) imageReads.push(r.url()); });
  await fah.goto(`#/deposits/${fourEyesId}`, 'deposit');
  await fah.page.waitForSelector('[data-testid=slip] [data-testid=slip-image-withheld]');
  assert.match(await fah.page.textContent('[data-testid=slip-image-withheld]') ?? '', /not available to your roles|ไม่มีสิทธิ์ดู/);
  assert.is(await fah.page.$('[data-testid=slip-image]'), null);
  assert.is(await fah.page.$('[data-testid=error-banner]'), null, 'no error banner');
  assert.equal(imageReads, [], 'no slip image fetched');
  const date = new Date(scene.s.clock.now() + 7 * 3600_000).toISOString().slice(0, 10);
  await fah.goto(`#/statement?merchant_id=${scene.shop.id}&livemode=true&date=${date}`, 'statement');
  await fah.screenshot('statement');
  const [download] = await Promise.all([fah.page.waitForEvent('download'), fah.page.click('[data-testid=download-csv]')]);
  const saved = readFileSync((await download.path())!, 'utf8');
  const api = await scene.s.bo('GET', `/v1/bo/reports/statements?merchant_id=${scene.shop.id}&livemode=true&date=${date}&format=csv`, undefined, { roles: ['finance'] });
  assert.is(api.status, 200, api.text);
  assert.is(saved, `\uFEFF${api.text}`, 'the API\'s CSV after a UTF-8 byte-order mark, so Excel reads its Thai');
  assert.match(api.text, /[\u0E00-\u0E7F]/, 'the statement has Thai for the mark to matter');
  assert.match(download.suggestedFilename(), new RegExp(`statement-${scene.shop.id}-live-${date}\\.csv`));
  // A period typed into the form: from the day before to the day; its CSV is the API's too.
  const dayBefore = new Date(scene.s.clock.now() + 7 * 3600_000 - 24 * 3600_000).toISOString().slice(0, 10);
  await fah.page.fill('[data-testid=statement-date]', dayBefore);
  await fah.page.fill('[data-testid=statement-date-to]', date);
  await fah.page.click('[data-testid=show-statement]');
  await fah.page.waitForFunction((text) => document.querySelector('[data-testid=statement] h2')?.textContent?.includes(text), `${dayBefore} – ${date}`);
  const [periodDownload] = await Promise.all([fah.page.waitForEvent('download'), fah.page.click('[data-testid=download-csv]')]);
  const periodApi = await scene.s.bo('GET', `/v1/bo/reports/statements?merchant_id=${scene.shop.id}&livemode=true&from=${dayBefore}&to=${date}&format=csv`, undefined, { roles: ['finance'] });
  assert.is(periodApi.status, 200, periodApi.text);
  assert.is(readFileSync((await periodDownload.path())!, 'utf8'), `\uFEFF${periodApi.text}`);
  assert.is(periodDownload.suggestedFilename(), `statement-${scene.shop.id}-live-${dayBefore}_${date}.csv`);
  // The console's today is the service's (GET /v1/bo/clock, read when it opened), not this browser's: the
  // test server's manual clock stands days apart from it. "This month" asks for the service's month.
  const serviceToday = new Date(scene.s.clock.now() + 7 * 3600_000).toISOString().slice(0, 10);
  assert.is(await fah.page.getAttribute('[data-testid=statement-date]', 'max'), serviceToday);
  // Each period asked for renders a new form (keyed by the period): wait for the statement of that period before typing again.
  const shown = (period: string) => fah.page.waitForFunction((p) => document.querySelector('[data-testid=statement] h2')?.textContent?.includes(p), period);
  await fah.page.click('[data-testid=statement-month]');
  await fah.page.waitForFunction((m) => location.hash.includes(`month=${m}`), serviceToday.slice(0, 7));
  await shown(`${serviceToday.slice(0, 7)}-01 – `);
  // A closed month: the chosen date's month, or its days first to last, is asked for as the month (named and dated as the CLI's file).
  await fah.page.fill('[data-testid=statement-date]', '2026-10-15');
  await fah.page.click('[data-testid=statement-month]');
  await fah.page.waitForFunction(() => location.hash.includes('month=2026-10'));
  await shown('2026-10-01 – 2026-10-31');
  await fah.page.fill('[data-testid=statement-date]', '2026-10-05');
  await fah.page.fill('[data-testid=statement-date-to]', '2026-10-06');
  await fah.page.click('[data-testid=show-statement]');
  await fah.page.waitForFunction(() => location.hash.includes('from=2026-10-05') && location.hash.includes('to=2026-10-06'));
  await shown('2026-10-05 – 2026-10-06');
  await fah.page.fill('[data-testid=statement-date]', '2026-10-01');
  await fah.page.fill('[data-testid=statement-date-to]', '2026-10-31');
  await fah.page.click('[data-testid=show-statement]');
  await fah.page.waitForFunction(() => location.hash.includes('month=2026-10') && !location.hash.includes('from='));
  await fah.goto('#/dashboard', 'dashboard');
  for (const chart of ['chart-volume', 'chart-queue-age', 'chart-webhooks', 'chart-slip-errors']) assert.ok(await fah.page.$(`[data-testid=${chart}]`), chart);
  assert.is(await fah.page.$('[data-testid=series-missing]'), null);
  // Each chart has a name, and its figures in words: an hourly chart's table, the queue's bars in their name.
  assert.is(await fah.page.getAttribute('[data-testid=chart-volume]', 'aria-label'), en['dashboard.volumeByHour']);
  const hourly = await fah.page.$$eval('[data-testid=chart-volume-table] tbody tr', (rows) => rows.map((r) => r.querySelectorAll('th, td').length));
  assert.ok(hourly.length > 0 && hourly.every((cells) => cells === 3), JSON.stringify(hourly));
  assert.match(await fah.page.getAttribute('[data-testid=chart-queue-age]', 'aria-label') ?? '', new RegExp(`^${en['dashboard.queueAge']}: .*\\d`));
  // Finance sees each endpoint's status, counts and health (the scene's, enabled again) from the dashboard's own answer: no 403 banner.
  const shownRow = `[data-testid=webhook-endpoint][data-id="${endpointId}"]`;
  assert.is(await fah.page.getAttribute(shownRow, 'data-status'), 'enabled');
  const answered = (await scene.s.bo('GET', '/v1/bo/dashboard?livemode=true', undefined, { roles: ['finance'] })).json.webhooks_last_24h.endpoints.find((e: any) => e.endpoint_id === endpointId);
  assert.is(await fah.page.getAttribute(shownRow, 'data-failing'), String(answered.failing_since !== null));
  assert.is(await fah.page.$('[data-testid=error-banner]'), null);
  await fah.screenshot('dashboard');
});

test("the merchant page lists the merchant's balance transactions as the API does, page by page", async () => {
  // More movements than one page of the console (20): small adjustments on top of the scene's.
  for (let i = 1; i <= 21; i++) await scene.s.fund(scene.payer.id, 100 * i);
  const api = (cursor?: string) => scene.s.bo('GET', `/v1/bo/merchants/${scene.payer.id}/balance-transactions?livemode=true&limit=20${cursor ? `&cursor=${cursor}` : ''}`, undefined, { roles: ['finance'] });
  const first = await api();
  assert.is(first.status, 200, first.text);
  assert.is(first.json.has_more, true);
  const fah = await operator('emp_fah', { page: 'claims' });
  await fah.goto(`#/merchants/${scene.payer.id}?livemode=true`, 'merchant');
  await fah.page.waitForSelector('[data-testid=balance-transactions][data-loaded="1"]');
  const shownIds = () => fah.page.$$eval('[data-testid=btxn-row]', (rows) => rows.map((r) => r.getAttribute('data-id')));
  assert.equal(await shownIds(), first.json.data.map((b: { id: string }) => b.id));
  assert.match(await fah.page.textContent('[data-testid=balance-transactions]') ?? '', /Adjustment|ปรับยอด/);
  assert.ok(await fah.page.$eval('[data-testid=btxn-prev-page]', (b) => (b as HTMLButtonElement).disabled));
  await fah.screenshot('merchant-transactions');
  const second = await api(first.json.next_cursor);
  await fah.page.click('[data-testid=btxn-next-page]');
  await fah.page.waitForSelector(`[data-testid=btxn-row][data-id="${second.json.data[0].id}"]`);
  assert.equal(await shownIds(), second.json.data.map((b: { id: string }) => b.id));
  // Away and Back: the page the operator was on, not page 1 (the cursors ride in the history entry).
  await fah.goto('#/dashboard', 'dashboard');
  await fah.page.goBack();
  await fah.page.waitForSelector(`[data-testid=btxn-row][data-id="${second.json.data[0].id}"]`);
  assert.equal(await shownIds(), second.json.data.map((b: { id: string }) => b.id));
  await fah.page.click('[data-testid=btxn-prev-page]');
  await fah.page.waitForSelector(`[data-testid=btxn-row][data-id="${first.json.data[0].id}"]`);
  assert.equal(await shownIds(), first.json.data.map((b: { id: string }) => b.id));

  // The payer withdraws: its receiving accounts are the report's, each leg that waits or differs with its reason; the CSV is the API's.
  const awaited = await matchedDeposit(scene, { sender: freshSender() }); // told, no slip yet: SLIP_AWAITED
  const receiving = await scene.s.bo('GET', `/v1/bo/reports/receiving-accounts?merchant_id=${scene.payer.id}&livemode=true`, undefined, { roles: ['finance'] });
  assert.is(receiving.status, 200, receiving.text);
  assert.ok(receiving.json.data.some((a: any) => a.differences.some((d: any) => d.deposit_id === awaited.id && d.reason === 'SLIP_AWAITED')), receiving.text);
  await fah.page.reload();
  await fah.ready('merchant');
  await fah.page.waitForSelector('[data-testid=receiving-accounts][data-loaded="1"]');
  const shownAccounts = await fah.page.$$eval('[data-testid=receiving-account]', (accounts) => accounts.map((a) => [a.getAttribute('data-account'),
    a.querySelector('[data-testid=receiving-agrees]')!.getAttribute('data-agrees'),
    [...a.querySelectorAll('[data-testid=receiving-leg]')].map((l) => [l.getAttribute('data-deposit'), l.getAttribute('data-reason')])]));
  assert.equal(shownAccounts, receiving.json.data.map((a: any) => [`${a.bank_code}:${a.account_number_masked}`, String(a.agrees), a.differences.map((d: any) => [d.deposit_id, d.reason])]));
  assert.equal(await unnamedColumns(fah), [], 'every column of the receiving accounts is named (the agreement column was not)');
  const [download] = await Promise.all([fah.page.waitForEvent('download'), fah.page.click('[data-testid=receiving-csv]')]);
  const csv = await scene.s.bo('GET', `/v1/bo/reports/receiving-accounts?merchant_id=${scene.payer.id}&livemode=true&format=csv`, undefined, { roles: ['finance'] });
  assert.is(readFileSync((await download.path())!, 'utf8'), `\uFEFF${csv.text}`);
  assert.match(download.suggestedFilename(), new RegExp(`^receiving-accounts-${scene.payer.id}-live-\\d{8}T\\d{6}(\\.\\d{3})?Z\\.csv$`));
  await fah.screenshot('merchant-receiving');
});

test('support finds a deposit by the merchant\'s reference from the header\'s search box and opens it', async () => {
  const id = await underReview(40_000);
  const reference = (await scene.s.bo('GET', `/v1/bo/deposits/${id}`)).json.deposit.merchant_reference;
  const ton = await operator('emp_ton');
  await ton.page.fill('[data-testid=search]', ` ${reference} `);
  await ton.page.press('[data-testid=search]', 'Enter');
  await ton.ready('search');
  assert.equal(await ton.page.$$eval('[data-testid=search-row]', (rows) => rows.map((r) => [r.getAttribute('data-object'), r.getAttribute('data-id')])), [['deposit', id]]);
  await ton.screenshot('search');
  await ton.page.click(`[data-testid=search-row][data-id="${id}"]`);
  await ton.ready('deposit');
  assert.match(ton.page.url(), new RegExp(`#/deposits/${id}$`));
  await ton.page.fill('[data-testid=search]', 'nobody-has-this-reference');
  await ton.page.press('[data-testid=search]', 'Enter');
  await ton.ready('search');
  assert.ok(await ton.page.$('[data-testid=search-empty]'));
  // An approver finds it too, but a deposit's page is not the approver's to read: listed, not linked (it would open on a 403).
  const nok = await operator('emp_nok', { hash: `#/search?q=${encodeURIComponent(reference)}`, page: 'search' });
  assert.equal(await nok.page.$$eval('[data-testid=search-row]', (rows) => rows.map((r) => [r.getAttribute('data-id'), r.querySelectorAll('a').length])), [[id, 0]]);
});

test('support sees until when a canceled order still takes a late slip, the time the API gives', async () => {
  const d = await matchedDeposit(scene, { sender: freshSender() });
  const canceled = await scene.s.call(scene.shop.live.api_key, 'POST', `/v1/pay/deposits/${d.id}/cancel`, {});
  assert.is(canceled.status, 200, canceled.text);
  const until = canceled.json.late_slip_accepted_until;
  assert.type(until, 'string');
  const ton = await operator('emp_ton', { hash: `#/deposits/${d.id}`, page: 'deposit' });
  assert.is(await ton.page.$eval('[data-testid=deposit-late-slip-until] time', (t) => t.getAttribute('datetime')), until);
});

test("finance's trial balance is the API's: every account and total, the CSV byte for byte, and an instant typed in Bangkok time", async () => {
  const fah = await operator('emp_fah', { page: 'claims' });
  await fah.page.click('[data-testid=nav-trial-balance]');
  await fah.ready('trial-balance');
  const api = (await scene.s.bo('GET', '/v1/bo/reports/trial-balance', undefined, { roles: ['finance'] })).json;
  const shown = () => fah.page.$$eval('[data-testid=tb-section]', (sections) => sections.map((s) => [s.getAttribute('data-livemode'),
    s.querySelector('[data-testid=tb-balanced]')!.getAttribute('data-balanced'), [...s.querySelectorAll('[data-testid=tb-account]')].map((r) => r.getAttribute('data-account'))]));
  assert.equal(await shown(), api.sections.map((s: any) => [String(s.livemode), String(s.balanced), s.accounts.map((a: any) => a.account)]));
  // A merchant's account links to the merchant in the section's mode.
  const merchant = api.sections[0].accounts.find((a: any) => a.kind === 'merchant');
  assert.is(await fah.page.$eval(`[data-testid=tb-account][data-account="${merchant.account}"] a`, (a) => a.getAttribute('href')!), `#/merchants/${merchant.merchant_id}?livemode=true`);
  assert.is(await fah.page.$eval(`[data-testid=tb-account][data-account="${merchant.account}"] [data-testid=tb-merchant]`, (a) => a.textContent!), merchant.merchant_name, 'by its name, not only its id');
  await fah.screenshot('trial-balance');
  const [download] = await Promise.all([fah.page.waitForEvent('download'), fah.page.click('[data-testid=download-csv]')]);
  const asOf = await fah.page.$eval('[data-testid=trial-balance] h2 time', (t) => t.getAttribute('datetime')!);
  const csv = await scene.s.bo('GET', `/v1/bo/reports/trial-balance?as_of=${asOf}&format=csv`, undefined, { roles: ['finance'] });
  assert.is(readFileSync((await download.path())!, 'utf8'), `\uFEFF${csv.text}`);
  assert.is(download.suggestedFilename(), `trial-balance-${asOf.replace(/[-:]|\.000(?=Z)/g, '')}.csv`);
  // An hour ago, typed as the Bangkok wall time to the second: the page asks for the end of that second.
  const earlier = scene.s.clock.now() - 3_600_000 - (scene.s.clock.now() % 1000);
  const endOfSecond = new Date(earlier + 999).toISOString();
  await fah.page.fill('[data-testid=trial-balance-as-of]', new Date(earlier + 7 * 3_600_000).toISOString().slice(0, 19));
  await fah.page.click('[data-testid=show-trial-balance]');
  await fah.page.waitForFunction((at) => document.querySelector('[data-testid=trial-balance] h2 time')?.getAttribute('datetime') === at, endOfSecond);
  const then = (await scene.s.bo('GET', `/v1/bo/reports/trial-balance?as_of=${endOfSecond}`, undefined, { roles: ['finance'] })).json;
  assert.equal(await shown(), then.sections.map((s: any) => [String(s.livemode), String(s.balanced), s.accounts.map((a: any) => a.account)]));
});

test("finance's fees and VAT page is the API's: this month by default, each merchant's line and the totals, the CSV byte for byte, a merchant's statement linked", async () => {
  const fah = await operator('emp_fah', { page: 'claims' });
  await fah.page.click('[data-testid=nav-fees]');
  await fah.ready('fees');
  const month = bangkokDayOf(scene.s.clock.now()).slice(0, 7);
  const api = (await scene.s.bo('GET', `/v1/bo/reports/fees?livemode=true&month=${month}`, undefined, { roles: ['finance'] })).json;
  assert.ok(api.totals.charged.count > 0, 'the scene charged fees');
  const minor = (text: string) => Number(text.replace(/[^\d-]/g, ''));
  const cells = (l: any) => [l.charged.count, l.charged.fee_minor, l.charged.vat_minor, l.refunded.count, l.refunded.fee_minor, l.refunded.vat_minor, l.fee_minor, l.vat_minor, l.total_minor];
  const shown = await fah.page.$$eval('[data-testid=fees-row], [data-testid=fees-totals] tr', (rows) => rows.map((r) => [r.getAttribute('data-merchant'), [...r.querySelectorAll('td.num')].map((td) => td.textContent!.trim())]));
  assert.equal(shown.map(([id, texts]) => [id, (texts as string[]).map(minor)]), [...api.merchants.map((m: any) => [m.merchant_id, cells(m)]), [null, cells(api.totals)]]);
  const first = api.merchants[0];
  assert.is(await fah.page.$eval(`[data-testid=fees-row][data-merchant="${first.merchant_id}"] a`, (a) => a.getAttribute('href')!),
    `#/statement?${new URLSearchParams({ merchant_id: first.merchant_id, livemode: 'true', ...(api.date ? { date: api.date } : { from: api.date_from, to: api.date_to }) })}`);
  await fah.screenshot('fees');
  const [download] = await Promise.all([fah.page.waitForEvent('download'), fah.page.click('[data-testid=download-csv]')]);
  const csv = await scene.s.bo('GET', `/v1/bo/reports/fees?livemode=true&month=${month}&format=csv`, undefined, { roles: ['finance'] });
  assert.is(readFileSync((await download.path())!, 'utf8'), `\uFEFF${csv.text}`);
  assert.is(download.suggestedFilename(), `fees-live-${month}.csv`, 'named as the month asked for');
  // One white label's merchants, typed into the form: the page asks for them and shows the API's lines.
  await fah.page.fill('[data-testid=fees-white-label]', scene.shop.whiteLabelId);
  await fah.page.click('[data-testid=fees-month]');
  await fah.page.waitForFunction(() => location.hash.includes('white_label_id='));
  await fah.ready('fees');
  const one = (await scene.s.bo('GET', `/v1/bo/reports/fees?livemode=true&month=${month}&white_label_id=${scene.shop.whiteLabelId}`, undefined, { roles: ['finance'] })).json;
  assert.ok(one.merchants.length > 0 && one.merchants.every((m: any) => m.white_label_id === scene.shop.whiteLabelId));
  await fah.page.waitForFunction((n) => document.querySelectorAll('[data-testid=fees-row]').length === n, one.merchants.length);
  assert.equal(await fah.page.$$eval('[data-testid=fees-row]', (rows) => rows.map((r) => r.getAttribute('data-merchant'))), one.merchants.map((m: any) => m.merchant_id));
  // A white label the server does not know: the page asked for it, and says what the server answered.
  // The answer is the operator's to read, not a fault of the console's: it is not logged to the browser's console as one.
  const logged: string[] = [];
  fah.page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') logged.push(m.text()); });
  await fah.page.fill('[data-testid=fees-white-label]', 'wl_nobody');
  await fah.page.click('[data-testid=fees-month]');
  await fah.page.waitForSelector('[data-testid=error-code]');
  assert.match(await fah.page.textContent('[data-testid=error-code]') ?? '', /404 resource_not_found/);
  assert.equal(logged.filter((text) => !/^Failed to load resource/.test(text)), [], 'only the browser\'s own line about the 404');
});

test('activity: ops_admin finds a reviewer\'s approval in the action log with its deposit linked; support sees only API requests and finds one by request_id, bodies redacted', async () => {
  const mali = await operator('emp_mali');
  await mali.page.click('[data-testid=nav-activity]');
  await mali.ready('activity');
  assert.ok(await mali.page.$('[data-testid=activity-tab-requests]'), 'ops_admin reads both');
  // Links, not tabs: no tab roles without a tab's keys; the current one is marked for a screen reader.
  assert.is(await mali.page.$('[role=tab], [role=tablist]'), null);
  assert.equal([await mali.page.getAttribute('[data-testid=activity-tab-actions]', 'aria-current'), await mali.page.getAttribute('[data-testid=activity-tab-requests]', 'aria-current')], ['page', null]);
  await mali.page.fill('[data-testid=filter-subject]', 'emp_ploy');
  await mali.page.press('[data-testid=filter-subject]', 'Enter');
  // The filtered page has replaced the unfiltered one: every row is the reviewer's.
  await mali.page.waitForFunction(() => {
    const rows = [...document.querySelectorAll('[data-testid=action-row] td:nth-child(2)')];
    return location.hash.includes('subject=emp_ploy') && rows.length > 0 && rows.every((td) => td.textContent!.trim() === 'emp_ploy');
  });
  const rows = await mali.page.$$eval('[data-testid=action-row]', (rs) => rs.map((r) => [r.querySelector('td:nth-child(2)')!.textContent!.trim(), r.querySelector('td:nth-child(4)')!.textContent!.trim(),
    r.querySelector('td:nth-child(5) a')?.getAttribute('href') ?? null, r.getAttribute('data-outcome')]));
  assert.ok(rows.length > 0 && rows.every(([who]) => who === 'emp_ploy'), JSON.stringify(rows));
  assert.ok(rows.some(([, route, to, outcome]) => route === 'POST /v1/bo/deposits/:id/approve' && to === `#/deposits/${fourEyesId}` && outcome === 'ok'), JSON.stringify(rows));
  await mali.screenshot('activity-actions');

  const logged = (await scene.s.bo('GET', '/v1/bo/logs?route=/v1/pay/deposits&status=201&limit=1', undefined, { roles: ['support'] })).json.data[0];
  assert.ok(logged?.request_id, 'a deposit creation was logged');
  const ton = await operator('emp_ton');
  await ton.goto('#/activity?tab=actions', 'activity');
  assert.is(await ton.page.$('[data-testid=activity-tab-actions]'), null, 'support does not read the action log');
  assert.ok(await ton.page.$('[data-testid=requests-table]'), 'support lands on the API requests');
  await ton.page.fill('[data-testid=filter-request]', logged.request_id);
  await ton.page.press('[data-testid=filter-request]', 'Enter');
  await ton.page.waitForFunction((id) => location.hash.includes('request_id=') && document.querySelectorAll('[data-testid=request-row]').length === 1
    && document.querySelector('[data-testid=request-row]')!.getAttribute('data-request-id') === id, logged.request_id);
  assert.equal(await ton.page.$$eval('[data-testid=request-row]', (rs) => rs.map((r) => r.getAttribute('data-request-id'))), [logged.request_id]);
  await ton.page.click('[data-testid=request-bodies] summary');
  const bodies = await ton.page.textContent('[data-testid=request-bodies]') ?? '';
  assert.match(bodies, /"qr_payload": "\[redacted\]"/);
  assert.not.match(bodies, /000201010212/, 'no QR payload in clear');
  await ton.screenshot('activity-requests');
  // A reviewer reads neither log: a bookmarked #/activity says so and which roles may (no filters), and the console goes on working.
  const ploy = await operator('emp_ploy');
  await ploy.goto('#/activity', 'activity');
  assert.ok((await ploy.page.textContent('[data-testid=forbidden-roles]') ?? '').includes(en['role.finance']));
  assert.is(await ploy.page.$('[data-testid=activity-filters]'), null);
  await ploy.goto('#/queue', 'queue');
});

test('ops_admin posts a manual adjustment, suspends then reinstates a merchant, mints a key and revokes it from its page, each after a step-up', async () => {
  const wallet = async () => (await scene.s.bo('GET', `/v1/bo/wallet?merchant_id=${scene.shop.id}&livemode=true`, undefined, { roles: ['finance'] })).json;
  const before = await wallet();
  const mali = await operator('emp_mali', { hash: `#/merchants/${scene.shop.id}?livemode=true`, page: 'merchant' });
  assert.equal([await mali.page.getAttribute('[data-testid=mode-live]', 'aria-pressed'), await mali.page.getAttribute('[data-testid=mode-test]', 'aria-pressed')], ['true', 'false'], 'the mode chosen, not by colour alone');
  assert.is(await mali.page.getAttribute('[data-testid=adjustment-form] summary .flag', 'aria-label'), en['stepup.title']);
  await mali.page.click('[data-testid=adjustment-form] summary');
  // Each direction is offered the reasons that go its way (the server's table): a debit is never "funding".
  const offered = () => mali.page.$$eval('[data-testid=adjustment-reason-code] option', (os) => os.map((o) => (o as HTMLOptionElement).value));
  assert.ok((await offered()).includes('FUNDING') && !(await offered()).includes('LOSS_RECOVERY'), 'a credit');
  await mali.page.selectOption('[data-testid=adjustment-direction]', 'debit');
  assert.ok(!(await offered()).includes('FUNDING') && (await offered()).includes('LOSS_RECOVERY') && (await offered()).includes('MANUAL_ADJUSTMENT'), 'a debit');
  await mali.page.selectOption('[data-testid=adjustment-direction]', 'credit');
  // An amount that is not one is refused in the page, before any popup.
  await mali.page.fill('[data-testid=adjustment-amount]', '12,x');
  await mali.page.selectOption('[data-testid=adjustment-reason-code]', 'GOODWILL_CREDIT');
  await mali.page.fill('[data-testid=adjustment-reason]', 'goodwill credit for ticket 4411');
  await mali.page.click('[data-testid=post-adjustment]');
  await mali.page.waitForSelector('[data-testid=adjustment-error]');
  assert.equal(await mali.page.evaluate(() => [document.querySelector('[data-testid=adjustment-error]')!.getAttribute('role'), document.querySelector('[data-testid=adjustment-amount]')!.getAttribute('aria-invalid'),
    document.querySelector('[data-testid=adjustment-amount]')!.getAttribute('aria-describedby') === document.querySelector('[data-testid=adjustment-error]')!.id]), ['alert', 'true', true]);
  await mali.page.fill('[data-testid=adjustment-amount]', '15.25');
  const posted = mali.page.waitForResponse((r) => r.url().endsWith('/adjustments'), { timeout: stepUpAnswerMs });
  await answerStepUp(mali, () => mali.page.click('[data-testid=post-adjustment]'));
  assert.is((await posted).status(), 201);
  const after = await wallet();
  assert.is(after.available_minor - before.available_minor, 1525, 'credited 15.25 baht to available');
  const [txn] = (await scene.s.bo('GET', `/v1/bo/merchants/${scene.shop.id}/balance-transactions?livemode=true&limit=1`, undefined, { roles: ['finance'] })).json.data;
  assert.equal([txn.type, txn.reason_code, txn.note], ['adjustment', 'GOODWILL_CREDIT', 'goodwill credit for ticket 4411'], 'the code the merchant sees, the note the operators keep');
  // The page reloads its wallet and transactions: the adjustment heads them once they are read again.
  await mali.page.waitForFunction(() => /\+฿15\.25/.test(document.querySelector('[data-testid=btxn-row]')?.textContent ?? ''), undefined, { timeout: 15_000 });

  // A live credit of 100,000 baht or more is proposed, not posted; the page says so and lists it. Its proposer's
  // approval is refused by the server; a second ops_admin approves it from the same list, and it is posted.
  await mali.page.fill('[data-testid=adjustment-amount]', '100000.00');
  await mali.page.fill('[data-testid=adjustment-reason]', 'opening float for the new branch, ticket 4412');
  const proposedAnswer = mali.page.waitForResponse((r) => r.url().endsWith('/adjustments'), { timeout: stepUpAnswerMs });
  await answerStepUp(mali, () => mali.page.click('[data-testid=post-adjustment]'));
  assert.is((await proposedAnswer).status(), 202);
  await mali.page.waitForFunction(() => /second ops_admin/.test(document.querySelector('[data-testid=notice]')?.textContent ?? ''));
  assert.is((await wallet()).available_minor, after.available_minor, 'nothing posted on one word');
  await mali.page.waitForSelector('[data-testid=adjustment-proposal] [data-testid=own-adjustment-proposal]');
  assert.is(await mali.page.$('[data-testid=adjustment-proposal] [data-testid=approve-adjustment]'), null, 'its proposer is offered no approval');
  const lead = await operator('emp_lead', { hash: `#/merchants/${encodeURIComponent(scene.shop.id)}`, page: 'merchant' });
  await lead.page.waitForSelector('[data-testid=adjustment-proposal]');
  // The second ops_admin types the amount as they checked it: nothing typed is no approval;
  // a figure that is not the proposal's is refused and posts nothing; the proposal's posts.
  await lead.page.click('[data-testid=adjustment-proposal] [data-testid=approve-adjustment]');
  await lead.page.waitForSelector('[data-testid=approve-adjustment-error]');
  await lead.page.fill('[data-testid=adjustment-proposal] [data-testid=approve-adjustment-amount]', '1,000,000.00');
  const misread = lead.page.waitForResponse((r) => r.url().endsWith('/approve'), { timeout: stepUpAnswerMs });
  await answerStepUp(lead, () => lead.page.click('[data-testid=adjustment-proposal] [data-testid=approve-adjustment]'));
  assert.is((await misread).status(), 422, 'an amount that is not the proposal\'s');
  assert.is((await wallet()).available_minor, after.available_minor, 'nothing posted on a misread amount');
  await lead.page.fill('[data-testid=adjustment-proposal] [data-testid=approve-adjustment-amount]', '100,000.00');
  const approved = lead.page.waitForResponse((r) => r.url().endsWith('/approve'), { timeout: stepUpAnswerMs });
  await answerStepUp(lead, () => lead.page.click('[data-testid=adjustment-proposal] [data-testid=approve-adjustment]'));
  assert.is((await approved).status(), 201);
  assert.is((await wallet()).available_minor - after.available_minor, 10_000_000, 'posted on the second word');
  await lead.page.waitForFunction(() => document.querySelector('[data-testid=adjustment-proposal]') === null);
  // A smaller credit that, with what mali credited alone today (15.25 baht), reaches 100,000 baht is proposed too, and the notice says why.
  await mali.page.fill('[data-testid=adjustment-amount]', '99990.00');
  await mali.page.fill('[data-testid=adjustment-reason]', 'the rest of the float for the new branch, ticket 4412');
  const splitAnswer = mali.page.waitForResponse((r) => r.url().endsWith('/adjustments'), { timeout: stepUpAnswerMs });
  await answerStepUp(mali, () => mali.page.click('[data-testid=post-adjustment]'));
  assert.is((await splitAnswer).status(), 202);
  await mali.page.waitForFunction(() => /฿15\.25 you credited alone/.test(document.querySelector('[data-testid=notice]')?.textContent ?? ''));

  // A suspension without a reason is refused in the page, before any popup or request.
  let suspendCalls = 0;
  mali.page.on('request', (r) => { if (/\/(un)?suspend$/.test(r.url())) suspendCalls++; });
  await mali.page.click('[data-testid=suspend]');
  await mali.page.waitForSelector('[data-testid=suspension-reason-error]');
  assert.is(suspendCalls, 0, 'no suspension sent without a reason');
  const lastSuspension = () => JSON.parse(scene.s.running.store.db.prepare("SELECT data FROM journal WHERE stream = ? AND type = 'MerchantSuspensionChanged' ORDER BY seq DESC LIMIT 1").pluck(true).get(scene.shop.id) as string);
  await mali.page.fill('[data-testid=suspension-reason]', 'chargebacks above the agreed limit, ticket 5120');
  const suspended = mali.page.waitForResponse((r) => r.url().endsWith('/suspend'), { timeout: stepUpAnswerMs });
  await answerStepUp(mali, () => mali.page.click('[data-testid=suspend]'));
  assert.is((await suspended).status(), 200);
  assert.equal([lastSuspension().suspended, lastSuspension().reason, lastSuspension().operatorId], [true, 'chargebacks above the agreed limit, ticket 5120', 'emp_mali'], 'the reason typed is kept on the journal\'s event');
  const refused = await scene.s.call(scene.shop.live.api_key, 'GET', '/v1/pay/balance');
  assert.is(refused.status, 403);
  assert.is(refused.json.error.code, 'tenant_suspended');
  await mali.page.waitForSelector('[data-testid=unsuspend]');
  await mali.screenshot('merchant-admin');
  await mali.page.fill('[data-testid=suspension-reason]', 'chargebacks refunded, ticket 5120 closed');
  const lifted = mali.page.waitForResponse((r) => r.url().endsWith('/unsuspend'), { timeout: stepUpAnswerMs });
  await answerStepUp(mali, () => mali.page.click('[data-testid=unsuspend]'));
  assert.is((await lifted).status(), 200);
  assert.equal([lastSuspension().suspended, lastSuspension().reason], [false, 'chargebacks refunded, ticket 5120 closed']);
  assert.is((await scene.s.call(scene.shop.live.api_key, 'GET', '/v1/pay/balance')).status, 200);
  await mali.page.waitForSelector('[data-testid=suspend]');

  // A key minted here: its secret shown once and working; revoked here: refused at once.
  await mali.page.waitForSelector('[data-testid=api-keys][data-loaded="1"]');
  await mali.page.click('[data-testid=new-key] summary');
  await mali.page.click('[data-testid=new-key-scope][data-scope="withdrawals:write"]');
  const minted = mali.page.waitForResponse((r) => r.url().endsWith(`/merchants/${scene.shop.id}/keys`) && r.request().method() === 'POST', { timeout: stepUpAnswerMs });
  await answerStepUp(mali, () => mali.page.click('[data-testid=mint-key]'));
  const key = await (await minted).json();
  assert.equal(key.scopes, ['wallet:read', 'withdrawals:read']);
  assert.match(await mali.page.textContent('[data-testid=new-key-secret]') ?? '', new RegExp(key.api_key));
  assert.is((await scene.s.call(key.api_key, 'GET', '/v1/pay/balance')).status, 200, 'the new key works');
  await mali.page.waitForSelector(`[data-testid=key-row][data-id="${key.key_id}"][data-revoked="false"]`);
  assert.is(await mali.page.$eval('[data-testid=key-row]', (row) => row.closest('table')!.querySelector('thead th:last-child')!.textContent), en['common.actions'], 'the action column is named');
  const listed = await mali.page.textContent(`[data-testid=key-row][data-id="${key.key_id}"]`) ?? '';
  assert.match(listed, new RegExp(`sk_live_…${key.api_key.slice(-4)}`));
  assert.not.match(listed, new RegExp(key.api_key), 'the list shows a hint, not the secret');
  await answerStepUp(mali, () => mali.page.click(`[data-testid=key-row][data-id="${key.key_id}"] [data-testid=revoke-key]`));
  await mali.page.waitForSelector(`[data-testid=key-row][data-id="${key.key_id}"][data-revoked="true"]`);
  assert.is((await scene.s.call(key.api_key, 'GET', '/v1/pay/balance')).json.error.code, 'api_key_revoked');
  await mali.screenshot('merchant-keys');
});

test('ops_admin onboards a merchant under a new white label (its keys shown once, and working) and registers its webhook endpoint', async () => {
  const mali = await operator('emp_mali', { hash: '#/merchants', page: 'merchants' });
  await mali.page.click('[data-testid=new-merchant] summary');
  await mali.page.click('[data-testid=onboard]'); // nothing named yet: said in the page, nothing sent
  await mali.page.waitForSelector('[data-testid=new-merchant] .field-error');
  await mali.page.fill('[data-testid=new-merchant-name]', 'ร้านใหม่ Onboarded');
  await mali.page.fill('[data-testid=new-white-label-name]', 'Brand From Console');
  await mali.page.click('[data-testid=onboard]');
  const made = await mali.page.waitForSelector('[data-testid=onboarded]');
  assert.equal(await unmarkedThai(mali, '[data-testid=onboarded] a'), [], 'the Thai name marked lang="th"');
  const merchantId = (await made.getAttribute('data-id'))!;
  const keyOf = async (mode: string) => /sk_(live|test)_[A-Za-z0-9_-]+/.exec(await mali.page.textContent(`[data-testid=onboarded-key][data-mode=${mode}]`) ?? '')![0];
  const live = await keyOf('live'), sandbox = await keyOf('sandbox');
  assert.is((await scene.s.call(live, 'GET', '/v1/pay/balance')).status, 200, 'the live key shown works');
  assert.is((await scene.s.call(sandbox, 'GET', '/v1/pay/balance')).json.livemode, false, 'the sandbox key shown works');
  const listed = (await scene.s.bo('GET', `/v1/bo/merchants?q=${merchantId}`)).json.data[0];
  const label = (await scene.s.bo('GET', `/v1/bo/white-labels?q=${listed.white_label_id}`)).json.data[0];
  assert.equal([listed.name, label.name], ['ร้านใหม่ Onboarded', 'Brand From Console']);

  await mali.page.click('[data-testid=onboarded] a');
  await mali.ready('merchant');
  await mali.page.click('[data-testid=new-endpoint] summary');
  await mali.page.fill('[data-testid=new-endpoint-url]', `${failing.url}/onboarded`);
  await mali.page.fill('[data-testid=new-endpoint-types]', 'deposit.settled, withdrawal.filled');
  await mali.page.click('[data-testid=create-endpoint]');
  await mali.page.waitForSelector('[data-testid=endpoint-row]');
  const endpoints = (await scene.s.bo('GET', `/v1/bo/merchants/${merchantId}/webhook-endpoints`)).json.data;
  assert.equal(endpoints.map((e: any) => [e.url, e.livemode, e.event_types]), [[`${failing.url}/onboarded`, true, ['deposit.settled', 'withdrawal.filled']]]);
  await mali.screenshot('merchant-onboarded');

  // the merchant moves its receiver: same endpoint, new URL, every event type
  await mali.page.click('[data-testid=edit-endpoint] summary');
  await mali.page.fill('[data-testid=edit-endpoint-url]', `${failing.url}/moved`);
  await mali.page.fill('[data-testid=edit-endpoint-types]', '');
  await mali.page.click('[data-testid=save-endpoint]');
  await mali.page.waitForSelector(`[data-testid=endpoint-row] .url:text("${failing.url}/moved")`);
  const moved = (await scene.s.bo('GET', `/v1/bo/merchants/${merchantId}/webhook-endpoints`)).json.data;
  assert.equal(moved.map((e: any) => [e.id, e.url, e.event_types]), [[endpoints[0].id, `${failing.url}/moved`, null]]);

  // the merchant gives the receiver up: disabled, then deleted on a second click; the row goes, the record stays
  const row = `[data-testid=endpoint-row][data-id="${endpoints[0].id}"]`;
  assert.is(await mali.page.$(`${row} [data-testid=endpoint-delete]`), null, 'an enabled endpoint offers no Delete');
  await mali.page.click(`${row} [data-testid=endpoint-disable]`);
  await mali.page.click(`${row} [data-testid=endpoint-disable-confirm]`);
  await mali.page.click(`${row} [data-testid=endpoint-delete]`);
  await assertFocus(mali, 'endpoint-delete-confirm', 'focus moves into the confirmation');
  assert.is((await scene.s.bo('GET', `/v1/bo/webhooks/${endpoints[0].id}`)).json.status, 'disabled', 'the first click sent nothing');
  await mali.page.click(`${row} [data-testid=endpoint-delete-confirm]`);
  await mali.page.waitForSelector(row, { state: 'detached' });
  assert.is((await scene.s.bo('GET', `/v1/bo/webhooks/${endpoints[0].id}`)).json.status, 'deleted');
  assert.equal((await scene.s.bo('GET', `/v1/bo/merchants/${merchantId}/webhook-endpoints`)).json.data, []);

  // The activity page shows what the move changed under its row, the operator found under another spelling.
  await mali.goto(`#/activity?tab=actions&subject=EMP_MALI&route=${encodeURIComponent('/v1/bo/webhooks/:endpointId')}`, 'activity');
  await mali.page.waitForSelector('[data-testid=action-changes]');
  assert.equal(await mali.page.$$eval('[data-testid=action-changes] [data-field]', (ds) => ds.map((d) => d.textContent!.trim())), [
    `${en['field.url']}: ${fingerprintedUrl(`${failing.url}/onboarded`)} → ${fingerprintedUrl(`${failing.url}/moved`)}`, `${en['field.event_types']}: ["deposit.settled","withdrawal.filled"] → —`,
  ]);
});

test('an approver approves a payout only after a confirmation naming the amount, the fee and the payee; Cancel sends nothing, the note goes with the approval', async () => {
  const p2p = await TestServer.start({ SATANG_PROFILE: 'live_p2p' }); // where payouts wait for two approvers
  try {
    const m = await p2p.onboard('P2P console payer');
    await p2p.fund(m.id, 10_000_000);
    const ben = await p2p.beneficiary(m.id);
    const w = await p2p.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 123_456, currency: 'THB', merchant_reference: 'p2p-console', end_user_ref: 'u1', beneficiary_id: ben });
    assert.is(w.json.status, 'pending_approval', w.text);
    const nok = await signIn(browser, p2p.url, 'emp_nok', { hash: '#/approvals', page: 'approvals' });
    sessions.push(nok);
    let posts = 0;
    nok.page.on('request', (r) => { if (r.method() === 'POST' && r.url().includes('/v1/bo/withdrawals/')) posts++; });
    const row = `[data-testid=approval-row][data-id="${w.json.id}"]`;
    // At 200 % zoom (640 px) the header keeps its parts and the row's Approve and Reject are in sight, with no page scrolled sideways.
    await nok.page.setViewportSize({ width: 640, height: 450 });
    await assertHeaderHolds(nok, 'approvals at 640 px');
    const outside = await nok.page.$$eval(`${row} [data-testid=approve], ${row} [data-testid=reject]`, (buttons) => buttons.map((b) => b.getBoundingClientRect())
      .filter((r) => r.left < 0 || r.right > innerWidth).length);
    assert.is(outside, 0, 'Approve and Reject inside the window');
    assert.ok(await nok.page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), 'no sideways scroll');
    assert.is(await nok.page.$eval('[data-testid=approvals-table] thead th:last-child', (th) => th.textContent), en['common.actions'], 'the action column is named');
    await nok.page.click(`${row} [data-testid=approve]`);
    await assertFocus(nok, 'decision-submit', 'focus moves into the confirmation');
    // The confirmation wraps inside the window, at 200 % zoom, a small window and a laptop's: Confirm in sight, no sideways scroll.
    for (const width of [640, 800, 1366]) {
      await nok.page.setViewportSize({ width, height: 768 });
      const [scroll, inner, confirmRight] = await nok.page.evaluate((r) => [document.documentElement.scrollWidth, innerWidth,
        document.querySelector(`${r} [data-testid=decision-submit]`)!.getBoundingClientRect().right], row);
      assert.ok(scroll <= inner && confirmRight <= inner, `at ${width} px: the page ${scroll} px wide, Confirm's right edge at ${confirmRight}`);
    }
    await nok.page.setViewportSize({ width: 640, height: 450 });
    const summary = await nok.page.textContent(`${row} [data-testid=decision-summary]`) ?? '';
    for (const shown of [/฿1,234\.56/, new RegExp(`฿${(w.json.fee_total_minor / 100).toFixed(2).replace('.', '\\.')}`), /xxxxxx7890/, /1 of 2|1 จาก 2/]) assert.match(summary, shown, summary);
    assert.equal(await unmarkedThai(nok, `${row} [data-testid=approval-payee]`), [], 'the payee\'s Thai bank and name marked lang="th"');
    await nok.page.keyboard.press('Escape');
    assert.is(await nok.page.$(`${row} [data-testid=decision-confirm]`), null, 'Escape closes it');
    await assertFocus(nok, 'approve', 'focus back on the button that opened it');
    await nok.page.click(`${row} [data-testid=reject]`);
    await nok.page.click(`${row} [data-testid=decision-cancel]`);
    assert.is(await nok.page.$(`${row} [data-testid=decision-confirm]`), null);
    await assertFocus(nok, 'reject', 'Cancel gives focus back to the button that opened it');
    assert.is(posts, 0, 'neither Approve nor Cancel sent anything');
    await nok.page.click(`${row} [data-testid=approve]`);
    await nok.page.fill(`${row} [data-testid=decision-note]`, 'payee confirmed by phone');
    const [request] = await Promise.all([
      nok.page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/v1/bo/withdrawals/${w.json.id}/approve`)),
      nok.page.click(`${row} [data-testid=decision-submit]`),
    ]);
    assert.equal(request.postDataJSON(), { note: 'payee confirmed by phone' });
    await nok.page.waitForFunction((sel) => /1\/2/.test(document.querySelector(sel)?.textContent ?? ''), row);
    // The confirmation closed with its button: focus is on the notice that says what happened, not lost to <body>.
    await nok.page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'notice');
    const shown = await p2p.bo('GET', `/v1/bo/withdrawals/${w.json.id}`, undefined, { roles: ['support'] });
    assert.equal([shown.json.withdrawal.status, shown.json.approvals], ['pending_approval', ['emp_nok']]);
    // The approver is not offered Approve a second time (the server would refuse it): the row says a second approver is needed.
    assert.is(await nok.page.$(`${row} [data-testid=approve]`), null);
    assert.is(await nok.page.textContent(`${row} [data-testid=approved-by-you]`), en['approvals.approvedByYou']);
    assert.ok(await nok.page.$(`${row} [data-testid=reject]`), 'Reject stays');
    // A rejected payout's page says so in words, the code in the title (it showed rejected_by_operator).
    const other = await p2p.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 100_000, currency: 'THB', merchant_reference: 'p2p-rejected', end_user_ref: 'u1', beneficiary_id: ben });
    const rejected = await p2p.bo('POST', `/v1/bo/withdrawals/${other.json.id}/reject`, { note: 'beneficiary looks wrong' }, { sub: 'emp_nok', roles: ['approver'] });
    assert.is(rejected.json.status, 'rejected', rejected.text);
    await nok.goto(`#/withdrawals/${other.json.id}`, 'withdrawal');
    assert.equal(await nok.page.$eval('[data-testid=withdrawal-rejection]', (e) => [e.getAttribute('title'), e.textContent]), ['rejected_by_operator', en['withdrawalRejection.rejected_by_operator']]);
    // … and with the sentence the API gives the rejection (display_en, display_th: what the merchant reads), which the row dropped.
    const { rejection } = (await p2p.bo('GET', `/v1/bo/withdrawals/${other.json.id}`, undefined, { roles: ['support'] })).json.withdrawal;
    assert.ok(rejection.display_en && rejection.display_th, JSON.stringify(rejection));
    const rejectionRow = () => nok.page.$eval('[data-testid=withdrawal-rejection]', (e) => e.closest('dd')!.textContent!.replace(/\s+/g, ' ').trim());
    assert.is(await rejectionRow(), `${en['withdrawalRejection.rejected_by_operator']} ${rejection.display_en}`);
    await nok.page.click('[data-testid=lang-th]');
    await nok.page.waitForFunction((said) => document.querySelector('[data-testid=withdrawal-rejection-display]')?.textContent === said, rejection.display_th);
    assert.is(await rejectionRow(), `${th['withdrawalRejection.rejected_by_operator']} ${rejection.display_th}`);
    await nok.page.click('[data-testid=lang-en]');
  } finally {
    await p2p.stop();
  }
});

test('without the reviewer role there is no approve button, and the server refuses the call anyway', async () => {
  const id = await underReview(50_000);
  const ton = await operator('emp_ton', { hash: `#/deposits/${id}`, page: 'deposit' });
  assert.is(await ton.page.$('[data-testid=approve]'), null);
  assert.is(await ton.page.$('[data-testid=decision-form]'), null);
  // The page's own token (the module instance the console loaded), sent without the page's checks.
  const authModule = await ton.page.evaluate(() => (document.querySelector('script[type=module][src]') as HTMLScriptElement).src.replace(/boot\.js$/, 'auth.js'));
  const status = await ton.page.evaluate(async ([depositId, authModule]) => {
    const { accessToken } = await import(authModule!);
    const r = await fetch(`/v1/bo/deposits/${depositId}/approve`, {
      method: 'POST', headers: { Authorization: `Bearer ${accessToken()}`, 'Content-Type': 'application/json', 'Idempotency-Key': crypto.randomUUID() },
      body: JSON.stringify({ note: 'approving without the reviewer role' }),
    });
    return { status: r.status, code: (await r.json()).error?.code };
  }, [id, authModule]);
  assert.equal(status, { status: 403, code: 'scope_denied' });
  assert.is((await scene.s.bo('GET', `/v1/bo/deposits/${id}`)).json.deposit.status, 'under_review');
});

test('sign out: the access token the page held is refused from then on, so a copy of it does not outlive the session', async () => {
  const nid = await operator('emp_ton');
  const authModule = await nid.page.evaluate(() => (document.querySelector('script[type=module][src]') as HTMLScriptElement).src.replace(/boot\.js$/, 'auth.js'));
  const token = await nid.page.evaluate(async (m) => (await import(m)).accessToken() as string, authModule);
  const read = () => scene.s.raw('GET', '/v1/bo/deposits', { headers: { Authorization: `Bearer ${token}` } });
  assert.is((await read()).status, 200);
  const signedOut = nid.page.waitForResponse((r) => r.url().endsWith('/v1/bo/session/sign-out'));
  await nid.page.click('[data-testid=logout]');
  assert.is((await signedOut).status(), 200);
  const refused = await read();
  assert.equal([refused.status, refused.json.error.code], [401, 'signature_invalid']);
  assert.match(refused.json.error.message, /signed out/);
});

/** Focus reaches the element of `testid` (moved after the render, so waited for a moment), else says where it is. */
async function assertFocus(session: OperatorSession, testid: string, message = 'focus'): Promise<void> {
  const reached = await session.page.waitForFunction((id) => document.activeElement?.getAttribute('data-testid') === id, testid, { timeout: 5_000 }).then(() => true, () => false);
  const where = await session.page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName ?? null);
  assert.ok(reached, `${message}: on ${where}, not ${testid}`);
}

/** The Thai-script texts under `selector` that a screen reader would not know are Thai (no lang="th" around them). */
function unmarkedThai(session: OperatorSession, selector: string): Promise<string[]> {
  return session.page.$$eval(selector, (roots) => roots.flatMap((root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const found: string[] = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (/[\u0E00-\u0E7F]/.test(node.nodeValue ?? '') && node.parentElement?.closest('[lang]')?.getAttribute('lang') !== 'th') found.push(node.nodeValue!);
    }
    return found;
  }));
}

/** WCAG's contrast ratio of two computed colours ('rgb(r, g, b)'). */
function contrast(a: string, b: string): number {
  const luminance = (colour: string) => {
    const [r, g, bl] = colour.match(/\d+(\.\d+)?/g)!.slice(0, 3).map((c) => {
      const v = Number(c) / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

/** Every control of the header lies inside its dark band and inside the window (200 % zoom: light text on the light page otherwise). */
async function assertHeaderHolds(session: OperatorSession, where: string): Promise<void> {
  const outside = await session.page.evaluate(() => {
    const band = document.querySelector('header.top')!.getBoundingClientRect();
    return [...document.querySelectorAll('header.top a, header.top button, header.top input, header.top [data-testid=operator], header.top .badge')]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && (r.left < band.left - 0.5 || r.right > band.right + 0.5 || r.top < band.top - 0.5 || r.bottom > band.bottom + 0.5 || r.right > innerWidth || r.left < 0);
      })
      .map((el) => el.getAttribute('data-testid') ?? el.textContent);
  });
  assert.equal(outside, [], `outside the header: ${where}`);
}

/** Every link of the header's nav is whole on screen, not clipped into a scroll nor under the operator's block. */
async function assertNavVisible(session: OperatorSession, lang: string): Promise<void> {
  const hidden = await session.page.evaluate(() => {
    const nav = document.querySelector('header nav')!.getBoundingClientRect();
    const who = document.querySelector('header .who')!.getBoundingClientRect();
    return [...document.querySelectorAll('header nav a')].map((a) => [a.textContent, a.getBoundingClientRect()] as const)
      .filter(([, r]) => r.right > nav.right + 0.5 || r.left < nav.left - 0.5 || r.right > innerWidth
        || (r.right > who.left && r.left < who.right && r.bottom > who.top && r.top < who.bottom))
      .map(([text]) => text);
  });
  assert.equal(hidden, [], `nav links hidden in ${lang} for ${await session.page.textContent('[data-testid=roles]')}`);
  // A table's sticky head stops below the header, however many lines the header took. The console learns the header's
  // height from a ResizeObserver, whose callback runs at the next rendering step after a resize: wait for two frames.
  const [headerHeight, stickyTop] = await session.page.evaluate(async () => {
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    return [(document.querySelector('header.top') as HTMLElement).offsetHeight, getComputedStyle(document.querySelector('table.grid thead th')!).top];
  });
  assert.is(stickyTop, `${headerHeight}px`);
}

/** The tables (by the nearest data-testid) with a column whose head is empty: a screen reader names no column for it. */
function unnamedColumns(session: OperatorSession): Promise<(string | null | undefined)[]> {
  return session.page.$$eval('table th', (ths) => ths.filter((th) => th.textContent!.trim() === '').map((th) => th.closest('[data-testid]')?.getAttribute('data-testid')));
}

/** The page fits the window's width: no horizontal scrollbar (a timeline's detail once made a deposit's page twice as wide). */
async function assertFits(session: OperatorSession, name: string): Promise<void> {
  const [scroll, inner] = await session.page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
  assert.ok(scroll <= inner, `${name}: ${scroll} px wide in a window of ${inner}`);
  // … and no amount is split over two lines to make it fit (฿2,50 / 0.50 would be misread); a number column's head wraps between its words.
  const split = await session.page.$$eval('table.grid td.num, table.grid .money', (cells) => cells.filter((c) => {
    const text = c.textContent?.trim() ?? '';
    if (!/\d/.test(text) || c.querySelector('button, input, br')) return false;
    const range = document.createRange();
    range.selectNodeContents(c);
    return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size > 1;
  }).map((c) => c.textContent));
  assert.equal(split, [], `${name}: amounts split over lines`);
}

test('every other page renders for an operator with every role (screenshots)', async () => {
  // A claim on the settled four-eyes deposit, and a dispute on the withdrawal it filled.
  const claim = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'manual', deposit_id: fourEyesId, amount_minor: 2_000, note: 'the payer says they sent two hundred baht too much' });
  assert.is(claim.status, 201, claim.text);
  const filled = /wdr_[0-9A-Z]{26}/.exec(JSON.stringify((await scene.s.bo('GET', `/v1/bo/deposits/${fourEyesId}`)).json))![0];
  const dispute = await scene.s.bo('POST', `/v1/bo/withdrawals/${filled}/disputes`, { reason_code: 'not_received', amount_minor: 30_000 });
  assert.is(dispute.status, 201, dispute.text);
  const lead = await operator('emp_lead');
  await lead.screenshot('queue');
  await assertNavVisible(lead, 'en');
  const pages = [
    ['#/approvals', 'approvals'], ['#/claims', 'claims'], [`#/claims/${claim.json.id}`, 'claim'], [`#/disputes/${dispute.json.id}`, 'dispute'],
    ['#/merchants', 'merchants'], [`#/withdrawals/${filled}`, 'withdrawal'], ['#/trial-balance', 'trial-balance'], ['#/activity', 'activity'],
    [`#/deposits/${fourEyesId}`, 'deposit'], ['#/dashboard', 'dashboard'], ['#/white-labels', 'white-labels'],
  ] as const;
  // The merchant's evidence, a file with a Thai name, is downloaded from the dispute's page as it was sent.
  const owner = (await scene.s.bo('GET', `/v1/bo/withdrawals/${filled}`)).json.merchant_id;
  const receipt = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from('ใบเสร็จการโอน 300.00 บาท\n')]);
  const sent = await scene.s.call((owner === scene.payer.id ? scene.payer : scene.shop).live.api_key, 'POST', `/v1/pay/disputes/${dispute.json.id}/evidence`, {
    text: 'The payee confirmed receipt by phone.', files: [{ name: 'ใบเสร็จ.pdf', content_base64: receipt.toString('base64') }],
  });
  assert.is(sent.status, 200, sent.text);
  const titles: Record<string, string> = {
    approvals: en['nav.approvals'], claims: en['nav.claims'], claim: `Claim ${claim.json.id}`, dispute: `Dispute ${dispute.json.id}`, merchants: en['nav.merchants'],
    withdrawal: `Withdrawal ${filled}`, 'trial-balance': en['nav.trial-balance'], activity: en['nav.activity'], deposit: `Deposit ${fourEyesId}`, dashboard: en['nav.dashboard'],
    'white-labels': en['nav.white-labels'],
  };
  for (const [hash, name] of pages) {
    await lead.goto(hash, name);
    // A screen reader hears the new page: focus on its heading, and the tab names it.
    await lead.page.waitForFunction(() => document.activeElement?.tagName === 'H1' && document.activeElement.getAttribute('tabindex') === '-1');
    assert.is(await lead.page.title(), `${titles[name]} · satang`);
    await lead.screenshot(name);
    await assertFits(lead, name);
    if (name === 'approvals') {
      // Final statuses are offered only among disputed withdrawals (the queue refuses them otherwise).
      const offered = () => lead.page.$$eval('[data-testid=filter-status] option', (os) => os.map((o) => (o as HTMLOptionElement).value));
      assert.equal(await offered(), ['pending_approval', 'open', 'partially_filled']);
      const queueRead = async (select: string, value: string) => {
        const [answer] = await Promise.all([lead.page.waitForResponse((r) => r.url().includes('/v1/bo/withdrawals?')), lead.page.selectOption(select, value)]);
        return answer;
      };
      assert.is((await queueRead('[data-testid=filter-disputed]', 'true')).status(), 200);
      const settled = await queueRead('[data-testid=filter-status]', 'settled');
      assert.is(settled.status(), 200, 'a disputed settled withdrawal is a query the server answers');
      assert.match(settled.url(), /status=settled/);
      assert.ok((await offered()).includes('settled'));
      const any = await queueRead('[data-testid=filter-disputed]', '');
      assert.equal([any.status(), /status=pending_approval/.test(any.url())], [200, true], 'a final status goes with Disputed');
    }
    if (name !== 'dispute') continue;
    const [download] = await Promise.all([lead.page.waitForEvent('download'), lead.page.click('[data-testid=evidence-download]')]);
    assert.is(download.suggestedFilename(), 'ใบเสร็จ.pdf');
    assert.ok(readFileSync((await download.path())!).equals(receipt), 'the bytes the merchant sent');
  }
  // Resolved, the dispute's page says who opened it, who resolved it and why, and that a lost one moves no money by itself.
  const resolved = await scene.s.bo('POST', `/v1/bo/disputes/${dispute.json.id}/resolve`, { outcome: 'merchant_lost', note: 'the payee never received it, bank letter attached' }, { sub: 'emp_mali', roles: ['ops_admin'] });
  assert.is(resolved.status, 200, resolved.text);
  await lead.goto(`#/disputes/${dispute.json.id}`, 'dispute');
  assert.equal(await Promise.all(['dispute-opened-by', 'dispute-resolved-by', 'dispute-resolution-note'].map((id) => lead.page.textContent(`[data-testid=${id}]`))),
    ['emp_alice', 'emp_mali', 'the payee never received it, bank letter attached']);
  assert.ok(await lead.page.$('[data-testid=dispute-lost-help] a[href^="#/withdrawals/"]'), 'where to reverse the fill');
  // A fill links to the deposit that paid it; the page says where the payout goes (masked).
  await lead.goto(`#/withdrawals/${filled}`, 'withdrawal');
  assert.match(await lead.page.textContent('[data-testid=withdrawal-payee]') ?? '', /^\d{3} \S.* x+\d{4} \S/);
  const whose = (await scene.s.bo('GET', `/v1/bo/withdrawals/${filled}`)).json;
  assert.match(await lead.page.textContent('[data-testid=withdrawal-merchant]') ?? '', new RegExp(`^${whose.merchant_name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} mch_`), 'whose money it is, by name');
  // A narrow window: every link of an operator with every role still shows in the header.
  await lead.page.setViewportSize({ width: 760, height: 900 });
  await assertNavVisible(lead, 'en at 760 px');
  // The tab names the page; the header marks it for a screen reader, not by colour alone.
  assert.match(await lead.page.title(), / · satang$/);
  assert.is(await lead.page.getAttribute('[data-testid=nav-withdrawals], [aria-current=page]', 'aria-current'), 'page');
  assert.is(await lead.page.getAttribute('[data-testid=lang-en]', 'aria-pressed'), 'true');
  // … and every page fits that window: a wide table wraps its rows rather than widen the page.
  // The payer's merchant page in live mode: its receiving accounts hold legs that differ or wait, a sub-row each (797 px wide).
  const payerPage = `#/merchants/${scene.payer.id}?livemode=true`;
  for (const [hash, name] of [...pages, ['#/queue', 'queue'], ['#/fees', 'fees'], [`#/merchants/${scene.shop.id}`, 'merchant'], [payerPage, 'merchant'], ['#/search?q=dep_', 'search']] as const) {
    await lead.goto(hash, name);
    if (hash === payerPage) await lead.page.waitForSelector('[data-testid=receiving-accounts][data-loaded="1"] table');
    await assertFits(lead, `${name} at 760 px`);
    // Every column is named for a screen reader (a column of radio buttons or of actions by a visually hidden header).
    assert.equal(await unnamedColumns(lead), [], `${name}: a column without a name`);
  }
  assert.is(await lead.page.title(), `${en['search.title']} · satang`);
  await lead.goto(`#/merchants/${scene.shop.id}`, 'merchant');
  assert.is(await lead.page.title(), `Merchant ${scene.shop.id} · satang`);
  await lead.goto('#/nowhere', 'not-found');
  assert.is(await lead.page.title(), `${en['title.notFound']} · satang`);
  // 200 % zoom (640 px): with every role, the operator's block wraps inside the dark header band.
  await lead.page.setViewportSize({ width: 640, height: 450 });
  await lead.goto('#/approvals', 'approvals');
  await assertHeaderHolds(lead, 'every role at 640 px');
  await lead.page.setViewportSize({ width: 1360, height: 900 });
  await lead.goto(`#/withdrawals/${filled}`, 'withdrawal');
  const paidBy = await lead.page.$$eval('[data-testid=fill-deposit] a', (links) => links.map((a) => a.getAttribute('href')));
  assert.ok(paidBy.includes(`#/deposits/${fourEyesId}`), JSON.stringify(paidBy));
  // From the keyboard, a fill's reversal form takes focus when it opens and Escape gives it back to that fill's button.
  const leg = await lead.page.getAttribute('[data-testid=reverse-fill]', 'data-leg');
  await lead.page.focus(`[data-testid=reverse-fill][data-leg="${leg}"]`);
  await lead.page.keyboard.press('Enter');
  await lead.page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'reverse-fill-reason');
  assert.is(await lead.page.getAttribute(`[data-testid=reverse-fill][data-leg="${leg}"]`, 'aria-expanded'), 'true');
  await lead.page.keyboard.press('Escape');
  await lead.page.waitForFunction((l) => document.activeElement?.getAttribute('data-testid') === 'reverse-fill' && document.activeElement.getAttribute('data-leg') === l, leg);
  assert.is(await lead.page.$('[data-testid=reverse-fill-form]'), null, 'Escape closed the form, nothing sent');
  await lead.page.click('[data-testid=lang-th]');
  // The title follows the language once the page has rendered again: waited for, not read at once (a race on a loaded machine).
  const thaiTitle = `${th['title.withdrawal'].replace('{id}', filled)} · satang`;
  await lead.page.waitForFunction((title) => document.title === title, thaiTitle, { timeout: 10_000 }).catch(() => undefined);
  assert.is(await lead.page.title(), thaiTitle, 'in Thai too');
  await lead.goto('#/queue', 'queue');
  assert.is(await lead.page.title(), `${th['nav.queue']} · satang`);
  assert.match(await lead.page.textContent('main') ?? '', /[\u0E00-\u0E7F]/, 'Thai labels');
  await assertNavVisible(lead, 'th');
  await lead.screenshot('queue-th');
});

test('on a system clock the console reads the service clock once, not on every navigation nor every minute (each read is a row of the action log)', async () => {
  const { TestServer } = await import('../support/server-harness.ts');
  const system = await TestServer.start({}, undefined, { systemClock: true });
  assert.is((await system.bo('GET', '/v1/bo/clock')).json.clock, 'system');
  try {
    const clockReads: string[] = [];
    const session = await signIn(browser, system.url, 'emp_lead', {});
    sessions.push(session);
    session.page.on('request', (r) => { if (r.url().endsWith('/v1/bo/clock')) clockReads.push(r.url()); });
    for (const [hash, name] of [['#/claims', 'claims'], ['#/approvals', 'approvals'], ['#/queue', 'queue']] as const) await session.goto(hash, name);
    await session.page.evaluate(() => window.dispatchEvent(new Event('focus')));
    assert.equal(clockReads, [], 'none after the first, on navigation or focus');
    const logged = (await system.bo('GET', '/v1/bo/reports/action-logs?subject=emp_lead&route=/v1/bo/clock&limit=200')).json.data;
    assert.is(logged.length, 1, 'one read at sign-in');
  } finally {
    await system.stop();
  }
});

test("the console's today follows the service's clock while it stays open: advanced from a terminal, it is read again when the operator comes back to the tab", async () => {
  const fah = await operator('emp_fah', { page: 'claims' });
  const todayOf = (ms: number) => bangkokDayOf(ms);
  await fah.goto(`#/statement?merchant_id=${scene.shop.id}&livemode=true`, 'statement');
  assert.is(await fah.page.inputValue('[data-testid=statement-date]'), todayOf(scene.s.clock.now()));
  // Another operator advances the manual clock two days (the CLI's admin clock advance is this call).
  const moved = await scene.s.bo('POST', '/v1/bo/clock/advance', { seconds: 2 * 86_400 });
  assert.is(moved.status, 200, moved.text);
  const later = todayOf(scene.s.clock.now());
  await Promise.all([
    fah.page.waitForResponse((r) => r.url().endsWith('/v1/bo/clock') && r.status() === 200),
    fah.page.evaluate(() => window.dispatchEvent(new Event('focus'))),
  ]);
  await fah.goto(`#/statement?merchant_id=${scene.shop.id}&livemode=false`, 'statement');
  assert.is(await fah.page.inputValue('[data-testid=statement-date]'), later, 'a new page takes the service\'s new day');
  assert.is(await fah.page.getAttribute('[data-testid=statement-date]', 'max'), later);
});

test('ops_admin rotates the live signing key from its page after a confirmation and a step-up; while one is announced the button says so, before any step-up', async () => {
  const keys = async () => (await scene.s.raw('GET', '/v1/webhooks/signing-keys')).json.keys as { kid: string; status: string; livemode: boolean }[];
  const before = await keys();
  const mali = await operator('emp_mali', { hash: '#/signing-keys', page: 'signing-keys' });
  assert.ok(await mali.page.$('[data-testid=nav-signing-keys]'), 'in the navigation for ops_admin');
  const shown = await mali.page.$$eval('[data-testid=signing-key]', (rows) => rows.map((r) => [r.getAttribute('data-kid'), r.getAttribute('data-status')]));
  assert.equal(shown, before.map((k) => [k.kid, k.status]), 'the published keys');
  await mali.page.fill('[data-testid=rotate-notice-hours]', '0');
  await mali.page.click('[data-testid=rotate]');
  await mali.page.waitForSelector('[data-testid=rotate-notice-error]');
  assert.is(await mali.page.getAttribute('[data-testid=rotate-notice-hours]', 'aria-describedby'), await mali.page.getAttribute('[data-testid=rotate-notice-error]', 'id'));
  await mali.page.fill('[data-testid=rotate-notice-hours]', '2');
  await mali.page.click('[data-testid=rotate]');
  await assertFocus(mali, 'rotate-confirm', 'focus moves into the confirmation');
  await mali.page.keyboard.press('Escape');
  await assertFocus(mali, 'rotate', 'Escape closes it and gives focus back');
  assert.is(await mali.page.$eval('[data-testid=signing-keys] thead th:last-child', (th) => th.textContent), en['common.actions']);
  await mali.page.click('[data-testid=rotate]');
  await mali.page.click('[data-testid=rotate-cancel]');
  assert.equal((await keys()).map((k) => k.kid), before.map((k) => k.kid), 'a cancel rotates nothing');
  await mali.page.click('[data-testid=rotate]');
  const rotated = mali.page.waitForResponse((r) => r.url().endsWith('/signing-keys/rotate'), { timeout: stepUpAnswerMs });
  await answerStepUp(mali, () => mali.page.click('[data-testid=rotate-confirm]'));
  const answer = await rotated;
  assert.is(answer.status(), 201, await answer.text());
  const { kid, not_before } = await answer.json();
  assert.is(Date.parse(not_before) - scene.s.clock.now(), 2 * 3600_000, 'two hours of notice, on the service clock');
  const after = await keys();
  assert.ok(after.some((k) => k.kid === kid && k.status === 'next' && k.livemode), JSON.stringify(after));
  await mali.page.waitForSelector(`[data-testid=signing-key][data-kid="${kid}"][data-status="next"]`);
  assert.match(await mali.page.textContent('[data-testid=rotation-result]') ?? '', new RegExp(kid));
  // Another, while this one is announced, would be the server's 409 after a step-up: the button says so first.
  await mali.page.waitForSelector('[data-testid=rotate]:disabled');
  assert.match(await mali.page.textContent('[data-testid=rotate-pending]') ?? '', new RegExp(`announced already: ${kid} signs from`));
  assert.equal((await keys()).filter((k) => k.status === 'next').map((k) => k.kid), [kid], 'still one rotation');
  const ton = await operator('emp_ton');
  assert.is(await ton.page.$('[data-testid=nav-signing-keys]'), null, 'support does not rotate keys');

  // Two hours on, the old key is retired; it leaked: withdrawn from its row after a confirmation and a step-up.
  const old = before.find((k) => k.status === 'active' && k.livemode)!.kid;
  await advance(scene.s, 2 * 3600_000 + 1000);
  await mali.goto('#/dashboard', 'dashboard');
  await mali.goto('#/signing-keys', 'signing-keys');
  assert.is(await mali.page.getByRole('button', { name: `${en['stepup.title']} ${en['signingKeys.withdraw']}`, exact: true }).and(mali.page.locator(`[data-testid=withdraw-key][data-kid="${old}"]`)).count(), 1, 'named as ActionButton names a step-up');
  await mali.page.click(`[data-testid=withdraw-key][data-kid="${old}"]`);
  const withdrawn = mali.page.waitForResponse((r) => r.url().endsWith(`/signing-keys/${old}/withdraw`), { timeout: stepUpAnswerMs });
  await answerStepUp(mali, () => mali.page.click('[data-testid=withdraw-key-confirm]'));
  assert.is((await withdrawn).status(), 200);
  await mali.page.waitForFunction((k) => !document.querySelector(`[data-testid=signing-key][data-kid="${k}"]`), old);
  assert.ok(await mali.page.isEnabled('[data-testid=rotate]'), 'the announced key signs now: a rotation may be announced again');
  assert.is(await mali.page.$('[data-testid=rotate-pending]'), null);
  assert.not.ok((await keys()).some((k) => k.kid === old), 'published no more');
});

test('ops_admin cancels an open withdrawal from its page: a note and a step-up; support sees no such action', async () => {
  const ben = await scene.s.beneficiary(scene.payer.id, true, '5550009911');
  const w = await scene.s.call(scene.payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 40_000, currency: 'THB', merchant_reference: 'console-cancel', end_user_ref: 'payee', beneficiary_id: ben });
  assert.is(w.status, 201, w.text);
  const ton = await operator('emp_ton');
  await ton.goto(`#/withdrawals/${w.json.id}`, 'withdrawal');
  assert.is(await ton.page.$('[data-testid=cancel-withdrawal]'), null, 'support does not cancel');
  const mali = await operator('emp_mali');
  await mali.goto(`#/withdrawals/${w.json.id}`, 'withdrawal');
  assert.is(await mali.page.getByRole('button', { name: `${en['stepup.title']} ${en['withdrawal.cancelTitle']}`, exact: true }).count(), 1, 'the ⚑ in words');
  await mali.page.click('[data-testid=cancel-withdrawal]');
  await mali.page.fill('[data-testid=cancel-withdrawal-note]', 'the merchant asked by phone, ticket 7781');
  const canceled = mali.page.waitForResponse((r) => r.url().endsWith(`/withdrawals/${w.json.id}/cancel`), { timeout: stepUpAnswerMs });
  await answerStepUp(mali, () => mali.page.click('[data-testid=cancel-withdrawal-confirm]'));
  assert.is((await canceled).status(), 200);
  await mali.page.waitForFunction(() => !document.querySelector('[data-testid=cancel-withdrawal-form]'));
  assert.match(await mali.page.textContent('[data-testid=withdrawal-status]') ?? '', /canceled|Canceled/i);
  assert.is((await scene.s.call(scene.payer.live.api_key, 'GET', `/v1/pay/withdrawals/${w.json.id}`)).json.status, 'canceled');
});

test('the command line page gives the signed-in operator the lines to paste: an access token that works, and on request a fresh step-up token', async () => {
  const lead = await operator('emp_lead');
  await lead.page.click('[data-testid=nav-cli]');
  await lead.ready('cli');
  assert.is(await lead.page.title(), `${en['header.cli']} · satang`);
  const lines = await lead.page.inputValue('[data-testid=cli-access]');
  assert.match(lines, new RegExp(`^export SATANG_BASE_URL='${scene.s.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}'\nexport SATANG_OPERATOR_TOKEN='eyJ[^']+'$`));
  const token = /SATANG_OPERATOR_TOKEN='([^']+)'/.exec(lines)![1]!;
  const used = await fetch(`${scene.s.url}/v1/bo/deposits?limit=1`, { headers: { Authorization: `Bearer ${token}` } });
  assert.is(used.status, 200, 'the token works from a terminal');
  await answerStepUp(lead, () => lead.page.click('[data-testid=cli-step-up]'));
  await lead.page.waitForSelector('[data-testid=cli-step-up-lines]');
  const stepUp = /SATANG_STEP_UP_TOKEN='([^']+)'/.exec(await lead.page.inputValue('[data-testid=cli-step-up-lines]'))![1]!;
  const claims = JSON.parse(Buffer.from(stepUp.split('.')[1]!, 'base64url').toString('utf8'));
  assert.equal([claims.sub, claims.acr], ['emp_lead', 'step-up']);
  assert.not.match(await lead.page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })), /eyJ/, 'kept nowhere but on the page');
});

test.run();
