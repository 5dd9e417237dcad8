// The console as a Thai operations team works it, in Debian's Chromium against a real server
// (the harness of browser.int.spec.ts): Thai text written by operators or payers is marked
// as Thai in the English console, the Thai console names what the English one names, and a
// four-eyes action shows its proposer that a second operator is needed.
//
// Proves: a claim's notes (typed in Thai), a receiving account's holder and a white label's
// Thai name in the new-merchant form are marked lang="th" (they were plain text, spoken as
// English by a screen reader); a live credit waiting for a second ops_admin shows its
// proposer a note instead of "Approve and post" (the button opened a step-up for a refusal),
// another ops_admin the button, and once approved its balance transaction names both its
// approver and its proposer; in Thai, a balance transaction's source kind and the dispute
// form's example are Thai (they were the API's code "adjustment" and "e.g. CHARGEBACK"); a
// deposit's timeline names each field in Thai, the API's name in its title (they were the
// API's `amount_minor`, `receipt_id`, …), its yes/no and the codes the console has words for
// too (`false`, `credit`), and the slip's transfer reference (`trans_ref`); a list the operator's roles may not read, opened
// from a bookmark, shows that and the roles that may, not its filters (which invited a search
// the server could only refuse), and asks the server nothing; a setting's change on the
// activity page names its field in Thai (it was the API's `event_types`); a review reason reads
// as words in the queue (filter and rows) and on the deposit's page, its code in the title (it
// was the code, `SENDER_NAME_MISMATCH`, the Thai only in the tooltip), and the Thai queue fits 760 px;
// the columns the API's names headed (`seq`, `request_id`, `ms`, `kid`, `ID`) are named in Thai;
// an operator's roles in the header, the action log and a refusal are Thai (they were `ops_admin`);
// a dispute's reason code the dictionaries name is Thai on its pages (it was `not_received`);
// a reversed deposit's reason and a canceled withdrawal's reason and canceler are Thai, their
// codes in the titles (they were `OPS_ERROR`, `merchant merchant_request`).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { closeSessions, launchChromium, signIn, type OperatorSession } from '../support/console-browser.ts';
import { assertReceipt, matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, type SlipScene } from '../support/slip-harness.ts';
import type { MerchantKeys } from '../support/server-harness.ts';

const { th } = await import(new URL('../../console/i18n-th.js', import.meta.url).href) as { th: Record<string, string> };

let scene: SlipScene;
let browser: Browser;
let thai: MerchantKeys;
let claimId: string;
let depositId: string;
const sessions: OperatorSession[] = [];
const thaiNote = 'ผู้โอนแจ้งว่าโอนซ้ำสองครั้ง ขอคืนเงินยี่สิบบาท';
const thaiLabel = 'แบรนด์ทองดี';

async function operator(sub: string, hash: string, page: string): Promise<OperatorSession> {
  const session = await signIn(browser, scene.s.url, sub, { hash, page });
  sessions.push(session);
  return session;
}

async function inThai(o: OperatorSession, page: string): Promise<void> {
  await o.page.click('[data-testid=lang-th]');
  await o.page.waitForSelector(`main[data-page="${page}"][data-lang="th"][data-ready="1"]`);
}

test.before(async () => {
  scene = await slipScene();
  // A settled deposit (a leg to the payer's receiving account), and a claim on it.
  const d = await matchedDeposit(scene);
  depositId = d.id;
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, { amount_minor: d.amount_minor }, { image_sha256: sha256Hex(image) }));
  assertReceipt(await uploadFile(d.slip_upload, image));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  const claim = await scene.s.bo('POST', '/v1/bo/claims', { kind: 'manual', deposit_id: d.id, amount_minor: 2_000, note: thaiNote });
  assert.is(claim.status, 201, claim.text);
  claimId = claim.json.id;
  const label = await scene.s.bo('POST', '/v1/bo/white-labels', { name: thaiLabel });
  assert.is(label.status, 201, label.text);
  thai = await scene.s.onboard('ร้านสมใจ การค้า', label.json.id);
  // A live credit large enough for four eyes, proposed by emp_mali.
  const proposed = await scene.s.bo('POST', `/v1/bo/merchants/${thai.id}/adjustments`, { livemode: true, amount_minor: 20_000_000, direction: 'credit', bucket: 'available', reason: 'ชดเชยค่าธรรมเนียมเดือนตุลาคม' }, { sub: 'emp_mali', roles: ['ops_admin'], stepUp: true });
  assert.is(proposed.status, 202, proposed.text);
  browser = await launchChromium();
});

test.after(async () => {
  await closeSessions(browser, sessions);
  await scene?.s.stop();
});

test('Thai notes, account holders and white label names are marked lang="th" in the English console', async () => {
  const lead = await operator('emp_lead', `#/claims/${claimId}`, 'claim');
  assert.is(await lead.page.evaluate(() => document.documentElement.lang), 'en');
  assert.is(await lead.page.textContent('[data-testid=note-row] [data-testid=note-text] [lang=th]'), thaiNote);
  // The claim names its merchant, not only its id, as the deposit and statement pages do.
  const shopName = (await scene.s.bo('GET', `/v1/bo/merchants?q=${scene.shop.id}`)).json.data[0].name;
  await lead.page.waitForSelector('[data-testid=claim-merchant-name]');
  assert.is(await lead.page.textContent('[data-testid=claim-merchant-name]'), shopName);

  await lead.goto(`#/merchants/${scene.payer.id}?livemode=true`, 'merchant');
  await lead.page.waitForSelector('[data-testid=receiving-account]');
  const holder = await lead.page.$eval('[data-testid=receiving-account-name]', (e) => [e.textContent, e.querySelector('[lang=th]')?.textContent]);
  assert.ok(holder[0] && /[\u0E00-\u0E7F]/.test(holder[0]), `a Thai holder's name: ${holder[0]}`);
  assert.is(holder[1], holder[0], 'the holder is marked lang="th"');

  await lead.goto('#/merchants', 'merchants');
  await lead.page.waitForSelector(`[data-testid=new-merchant-white-label] option[value="${thai.whiteLabelId}"]`, { state: 'attached' });
  assert.is(await lead.page.getAttribute(`[data-testid=new-merchant-white-label] option[value="${thai.whiteLabelId}"]`, 'lang'), 'th');
  assert.is(await lead.page.getAttribute(`[data-testid=new-merchant-white-label] option[value="${scene.shop.whiteLabelId}"]`, 'lang'), null, 'an English name is not marked');
});

test('a live credit waiting for four eyes: its proposer sees a note, not the approve button; another ops_admin the button; approved, its row names both', async () => {
  const mali = await operator('emp_mali', `#/merchants/${thai.id}?livemode=true`, 'merchant');
  await mali.page.waitForSelector('[data-testid=adjustment-proposal]');
  assert.is(await mali.page.$('[data-testid=adjustment-proposal] [data-testid=approve-adjustment]'), null, 'no approve button for the proposer');
  await inThai(mali, 'merchant');
  assert.is(await mali.page.textContent('[data-testid=adjustment-proposal] [data-testid=own-adjustment-proposal]'), th['merchantAdmin.ownProposal']);

  const lead = await operator('emp_lead', `#/merchants/${thai.id}?livemode=true`, 'merchant');
  await lead.page.waitForSelector('[data-testid=adjustment-proposal] [data-testid=approve-adjustment]');
  assert.is(await lead.page.$('[data-testid=own-adjustment-proposal]'), null);

  // Once emp_lead approves it, its balance transaction names both: who posted it and who proposed it.
  const proposal = (await scene.s.bo('GET', `/v1/bo/merchants/${thai.id}/adjustment-proposals`)).json.data[0];
  const posted = await scene.s.bo('POST', `/v1/bo/merchants/${thai.id}/adjustments/${proposal.id}/approve`, { amount_minor: proposal.amount_minor }, { sub: 'emp_lead', roles: ['ops_admin'], stepUp: true });
  assert.is(posted.status, 201, posted.text);
  await lead.page.reload();
  await lead.ready('merchant');
  const row = `[data-testid=btxn-row][data-id="${posted.json.id}"]`;
  await lead.page.waitForSelector(row);
  assert.equal([await lead.page.textContent(`${row} [data-testid=btxn-posted-by]`), await lead.page.textContent(`${row} [data-testid=btxn-proposed-by]`)], ['emp_lead', 'emp_mali']);
});

test("in Thai, a balance transaction's source and the dispute form's example are Thai", async () => {
  const lead = await operator('emp_lead', `#/merchants/${scene.payer.id}?livemode=true`, 'merchant');
  await inThai(lead, 'merchant');
  await lead.page.waitForSelector('[data-testid=btxn-row]');
  const sources = await lead.page.$$eval('[data-testid=btxn-source-type]', (es) => es.map((e) => e.textContent));
  assert.ok(sources.includes(th['btxn.source.adjustment']), JSON.stringify(sources));
  assert.not.ok(sources.some((s) => /[A-Za-z]/.test(s ?? '')), `English among the sources: ${JSON.stringify(sources)}`);

  await lead.goto(`#/withdrawals/${scene.withdrawalIds[0]}`, 'withdrawal');
  await lead.page.click('[data-testid=dispute-form] summary');
  assert.is(await lead.page.getAttribute('[data-testid=dispute-reason]', 'placeholder'), th['dispute.reasonExample']);
  await lead.screenshot('withdrawal-th');
});

test("in Thai, a deposit's timeline names its fields in Thai, each with the API's own name in its title", async () => {
  const lead = await operator('emp_lead', `#/deposits/${depositId}`, 'deposit');
  await inThai(lead, 'deposit');
  assert.is(await lead.page.textContent('[data-testid=timeline-step][data-step=created] .k[title=amount_minor]'), th['field.amount_minor']);
  // Every step's fields, the legs' and receivers' inside them too: none shown as the API names it.
  const fields = await lead.page.$$eval('[data-testid=timeline] .k', (ks) => ks.map((k) => [k.getAttribute('title'), k.textContent]));
  assert.ok(fields.length > 20, JSON.stringify(fields));
  assert.equal(fields.filter(([raw, shown]) => raw === shown), [], 'fields without a Thai label');
  // Yes/no and the codes the console has words for are Thai too, the API's value in the title (they were `false`, `credit`, `pending_clearing`).
  const value = (step: string, field: string) => lead.page.$$eval(`[data-testid=timeline-step][data-step=${step}] .kv:has(> .k[title=${field}]) > [title]:not(.k)`,
    (vs) => vs.map((v) => [v.getAttribute('title'), v.textContent]));
  assert.equal(await value('slip', 'is_late'), [['false', th['common.no']]]);
  assert.ok((await value('balance_transaction', 'direction')).some(([raw, shown]) => raw === 'credit' && shown === th['direction.credit']));
  assert.ok((await value('balance_transaction', 'bucket_to')).some(([raw, shown]) => raw === 'pending_clearing' && shown === th['bucket.pending_clearing']));
  assert.equal(await value('claim', 'status'), [['open', th['claimStatus.open']]]);
  assert.equal(await value('matched', 'source'), [['internal', th['matchSource.internal']]]);
  assert.equal(await value('settled', 'settled_via'), [['auto', th['settledVia.auto']]]);
  // The slip's and the legs' bank transfer reference too.
  assert.is(await lead.page.textContent('[data-testid=slip] dt .k[title=trans_ref]'), th['field.trans_ref']);
  await lead.screenshot('deposit-th');
});

test("in Thai, a setting's change on the activity page names its field in Thai, the API's name in its title", async () => {
  const endpoint = await scene.s.bo('POST', `/v1/bo/merchants/${thai.id}/webhook-endpoints`, { url: 'https://hooks.example.com/satang', livemode: true });
  assert.is(endpoint.status, 201, endpoint.text);
  const moved = await scene.s.bo('POST', `/v1/bo/webhooks/${endpoint.json.id}`, { event_types: ['deposit.settled'] }, { stepUp: true });
  assert.is(moved.status, 200, moved.text);
  const lead = await operator('emp_lead', `#/activity?tab=actions&route=${encodeURIComponent('/v1/bo/webhooks/:endpointId')}`, 'activity');
  await inThai(lead, 'activity');
  // The log's row is written by its own thread as the answer goes out: looked for a few seconds.
  const field = '[data-testid=action-changes] [data-field=event_types] .k';
  for (let tries = 0; !(await lead.page.$(field)) && tries < 10; tries++) await lead.goto(`#/activity?tab=actions&route=${encodeURIComponent('/v1/bo/webhooks/:endpointId')}&t=${tries}`, 'activity');
  assert.equal(await lead.page.$eval(field, (k) => [k.getAttribute('title'), k.textContent]), ['event_types', th['field.event_types']]);
});

test('a list the roles may not read shows only that, with the roles that may: no filters, no call', async () => {
  const lists: [string, string, string, string][] = [ // the operator, the page, its read, its filters
    ['emp_ton', 'trial-balance', '/v1/bo/reports/trial-balance', 'trial-balance-form'],
    ['emp_ton', 'statement', '/v1/bo/reports/statements', 'statement-form'],
    ['emp_ton', 'fees', '/v1/bo/reports/fees', 'fees-form'],
    ['emp_ploy', 'claims', '/v1/bo/claims', 'claims-filters'],
    ['emp_ploy', 'activity', '/v1/bo/logs', 'activity-filters'],
  ];
  const bySub = new Map<string, { o: OperatorSession; asked: string[] }>();
  for (const [sub, page, read, filters] of lists) {
    if (!bySub.has(sub)) {
      const o = await operator(sub, '#/queue', 'queue');
      await inThai(o, 'queue');
      const asked: string[] = [];
      o.page.on('request', (r) => asked.push(new URL(r.url()).pathname));
      bySub.set(sub, { o, asked });
    }
    const { o, asked } = bySub.get(sub)!;
    await o.goto(`#/${page}`, page);
    assert.ok(await o.page.$('[data-testid=forbidden]'), `${sub} on ${page}: said so`);
    assert.is(await o.page.textContent('[data-testid=forbidden] h1'), th[`nav.${page}`]);
    // The roles in Thai, as granted in the title.
    const role = page === 'claims' ? 'ops_admin' : 'finance';
    assert.ok((await o.page.textContent('[data-testid=forbidden-roles]') ?? '').includes(th[`role.${role}`]!), `${sub} on ${page}: the roles in Thai`);
    assert.ok((await o.page.getAttribute('[data-testid=forbidden-roles]', 'title'))?.split(', ').includes(role));
    assert.is(await o.page.$(`[data-testid=${filters}]`), null, `${sub} on ${page}: its filters`);
    assert.is(await o.page.$('main form, main input, main select'), null, `${sub} on ${page}: nothing to fill in`);
    assert.not.ok(asked.includes(read), `${sub} on ${page}: asked ${read}`);
    assert.ok(await o.page.$('[data-testid=nav-queue]'), 'the navigation stays');
  }
  await bySub.get('emp_ton')!.o.screenshot('forbidden-th');
});

test("in Thai, a review reason reads as words in the queue's filter and rows and on the deposit's page, its code in the title; the queue still fits 760 px", async () => {
  // Paid from another name: held for review with SENDER_NAME_MISMATCH.
  const d = await matchedDeposit(scene);
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, { amount_minor: d.legs[0].amount_minor }, { image_sha256: sha256Hex(image), sender: { bank_code: '014', account_number: '9876543210', account_name_th: 'สมศักดิ์ มีเงิน' } }));
  assertReceipt(await uploadFile(d.slip_upload, image));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  const ploy = await operator('emp_ploy', '#/queue', 'queue');
  await inThai(ploy, 'queue');
  const badge = `[data-testid=queue-row][data-id="${d.id}"] [data-testid=review-reason]`;
  await ploy.page.waitForSelector(badge);
  const [shown, title] = await ploy.page.$eval(badge, (b) => [b.textContent, b.getAttribute('title')]);
  assert.is(shown, th['reviewReason.SENDER_NAME_MISMATCH'], 'the row names the reason in Thai (it showed SENDER_NAME_MISMATCH)');
  assert.match(title ?? '', /^SENDER_NAME_MISMATCH — [\u0E00-\u0E7F]/, "the code, then the server's Thai sentence");
  const options = await ploy.page.$$eval('[data-testid=filter-reason] option:not([value=""])', (os) => os.map((o) => [o.getAttribute('value')!, o.textContent, o.getAttribute('title') ?? '']));
  assert.ok(options.length > 15, JSON.stringify(options));
  assert.equal(options.filter(([code, text, t]) => text !== th[`reviewReason.${code}`] || !t.startsWith(`${code} — `)), [], 'every reason offered in Thai, its code in the title');
  // Thai words are longer than the codes: the queue wraps them in their cell, the page stays the window's width.
  await ploy.page.setViewportSize({ width: 760, height: 900 });
  await ploy.page.waitForFunction(() => document.documentElement.clientWidth === 760);
  const [scroll, client] = await ploy.page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  assert.ok(scroll <= client, `the Thai queue is ${scroll} px wide at 760 px`);
  await ploy.screenshot('queue-reasons-th-760');

  await ploy.goto(`#/deposits/${d.id}`, 'deposit');
  const reason = await ploy.page.$eval('[data-testid=review-panel] [data-testid=review-reason]', (b) => [b.textContent, b.getAttribute('data-code'), b.getAttribute('title')?.split(' — ')[0]]);
  assert.equal(reason, [th['reviewReason.SENDER_NAME_MISMATCH'], 'SENDER_NAME_MISMATCH', 'SENDER_NAME_MISMATCH']);
});

test("in Thai, the columns the API's names headed (seq, request_id, ms, kid, ID) are named in Thai, the API's name in the title", async () => {
  const lead = await operator('emp_lead', `#/deposits/${depositId}`, 'deposit');
  await inThai(lead, 'deposit');
  const labelled = (table: string) => lead.page.$$eval(`[data-testid=${table}] thead th .k`, (ks) => ks.map((k) => [k.getAttribute('title'), k.textContent]));
  assert.equal(await labelled('timeline'), [['seq', th['field.seq']]]);
  await lead.goto('#/activity?tab=actions', 'activity');
  await lead.page.waitForSelector('[data-testid=action-row]');
  assert.equal(await labelled('actions-table'), [['request_id', th['field.request_id']]]);
  await lead.goto('#/activity?tab=requests', 'activity');
  await lead.page.waitForSelector('[data-testid=request-row]');
  assert.equal(await labelled('requests-table'), [['request_id', th['field.request_id']], ['duration_ms', th['field.duration_ms']]]);
  await lead.goto('#/signing-keys', 'signing-keys');
  assert.equal(await labelled('signing-keys'), [['kid', th['field.kid']]]);
  await lead.goto(`#/search?q=${depositId}`, 'search');
  await lead.page.waitForSelector('[data-testid=search-row]');
  assert.equal(await labelled('search-table'), [['id', th['field.id']]]);
  // No column of these pages is headed by Latin letters alone.
  for (const [hash, page, table] of [[`#/deposits/${depositId}`, 'deposit', 'timeline'], ['#/activity?tab=requests', 'activity', 'requests-table'], ['#/signing-keys', 'signing-keys', 'signing-keys']] as const) {
    await lead.goto(hash, page);
    await lead.page.waitForSelector(`[data-testid=${table}] tbody tr`);
    const latin = await lead.page.$$eval(`[data-testid=${table}] thead th`, (ths) => ths.map((h) => h.textContent!.trim()).filter((text) => /^[A-Za-z_ ]+$/.test(text)));
    assert.equal(latin, [], `${page}: a column headed in Latin letters alone`);
  }
});

test("in Thai, an operator's roles are named in Thai in the header and the action log, each role as granted in its title; every role still fits the header at 760 px", async () => {
  const lead = await operator('emp_lead', '#/activity?tab=actions', 'activity');
  await inThai(lead, 'activity');
  const granted = ['reviewer', 'approver', 'ops_admin', 'finance', 'support'];
  assert.equal(await lead.page.$$eval('[data-testid=roles] .badge', (bs) => bs.map((b) => [b.getAttribute('title'), b.textContent])), granted.map((r) => [r, th[`role.${r}`]]));
  await lead.page.waitForSelector('[data-testid=action-row]');
  const logged = await lead.page.$$eval('[data-testid=action-row] .badge.role', (bs) => bs.map((b) => [b.getAttribute('title'), b.textContent]));
  assert.ok(logged.length > 0);
  assert.equal(logged.filter(([role, shown]) => shown !== th[`role.${role}`]), [], 'a role in the action log shown as granted');
  await lead.page.setViewportSize({ width: 760, height: 900 });
  await lead.page.waitForFunction(() => document.documentElement.clientWidth === 760);
  const outside = await lead.page.evaluate(() => {
    const band = document.querySelector('header.top')!.getBoundingClientRect();
    return [...document.querySelectorAll('header.top a, header.top button, header.top .badge')].filter((el) => {
      const r = el.getBoundingClientRect();
      return r.right > innerWidth + 0.5 || r.left < 0 || r.bottom > band.bottom + 0.5;
    }).map((el) => el.textContent);
  });
  assert.equal(outside, [], 'outside the header band at 760 px');
  await lead.screenshot('roles-th-760');
});

test("in Thai, a dispute's reason the dictionaries name reads in Thai on the dispute's and the withdrawal's pages, its code in the title", async () => {
  const withdrawalId = /wdr_[0-9A-Z]{26}/.exec(JSON.stringify((await scene.s.bo('GET', `/v1/bo/deposits/${depositId}`)).json))![0]; // the one the settled deposit filled
  const opened = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/disputes`, { reason_code: 'not_received', amount_minor: 1_000 }, { roles: ['ops_admin'] });
  assert.is(opened.status, 201, opened.text);
  const lead = await operator('emp_lead', `#/disputes/${opened.json.id}`, 'dispute');
  await inThai(lead, 'dispute');
  const reason = () => lead.page.$eval('[data-testid=dispute-reason-code]', (e) => [e.getAttribute('title'), e.textContent]);
  assert.equal(await reason(), ['not_received', th['disputeReason.not_received']], 'the dispute page (it showed not_received)');
  await lead.goto(`#/withdrawals/${withdrawalId}`, 'withdrawal');
  assert.equal(await reason(), ['not_received', th['disputeReason.not_received']], "the withdrawal's dispute card");
});

test("in Thai, a reversed deposit's reason and a canceled withdrawal's read in Thai, their codes in the titles", async () => {
  // A second settled deposit (the first one's page other tests read), reversed by ops.
  const d = await matchedDeposit(scene);
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, { amount_minor: d.amount_minor }, { image_sha256: sha256Hex(image) }));
  assertReceipt(await uploadFile(d.slip_upload, image));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  const reversed = await scene.s.bo('POST', `/v1/bo/deposits/${d.id}/reverse`, { reason_code: 'OPS_ERROR', note: 'credited by an operations mistake' }, { roles: ['ops_admin'], stepUp: true });
  assert.is(reversed.status, 200, reversed.text);
  const lead = await operator('emp_lead', `#/deposits/${d.id}`, 'deposit');
  await inThai(lead, 'deposit');
  const shown = (testid: string) => lead.page.$eval(`[data-testid=${testid}]`, (e) => [e.getAttribute('title'), e.textContent]);
  assert.equal(await shown('deposit-reversal-reason'), ['OPS_ERROR', th['reversal.OPS_ERROR']], 'the reversal (it showed OPS_ERROR)');

  // A withdrawal its merchant canceled: who canceled it and why.
  const beneficiaryId = (await scene.s.bo('GET', `/v1/bo/withdrawals/${scene.withdrawalIds[0]}`)).json.withdrawal.beneficiary_id;
  const w = await scene.s.call(scene.payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 100_000, currency: 'THB', merchant_reference: 'canceled-th', end_user_ref: 'payee-1', beneficiary_id: beneficiaryId });
  assert.is(w.status, 201, w.text);
  const canceled = await scene.s.call(scene.payer.live.api_key, 'POST', `/v1/pay/withdrawals/${w.json.id}/cancel`, {});
  assert.equal([canceled.status, canceled.json.canceled_by, canceled.json.cancel_reason_code], [200, 'merchant', 'merchant_request'], canceled.text);
  await lead.goto(`#/withdrawals/${w.json.id}`, 'withdrawal');
  assert.equal([await shown('withdrawal-canceled-by'), await shown('withdrawal-cancel-reason')],
    [['merchant', th['canceledBy.merchant']], ['merchant_request', th['cancelReason.merchant_request']]], 'the cancellation (it showed merchant merchant_request)');
});

test.run();
