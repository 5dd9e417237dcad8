// What the payees owe the service, over real HTTP: a same-slip overpayment's excess is never
// posted (it sits in the payee's bank account), so its claim's refund, once paid out and
// filled, takes suspense below zero by that much — the service's open claim on the payee. The
// trial balance shows it on a line of its own, owed_by_payees, reclassified out of suspense as
// owed_by_payers is (no postings, the section still balancing, as of any instant); the claim
// says it (owed_by_payee_minor) and GET /v1/bo/claims?owed_by_payee=true lists it; `satang
// report trial-balance` prints the line. The bank's recall of the whole transfer (the deposit
// reversed, the refund recorded as owed back by the payer) takes it off the payee: the line
// stays, at 0, and owed_by_payers takes it; a write-off of that payer's debt leaves it the
// payer's (payer_debts_written_off), the payee still owing nothing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, type SlipScene } from '../support/slip-harness.ts';
import { depositBody, freshSender, sender, type MerchantKeys } from '../support/server-harness.ts';
import { verifyStore } from '../../adapters/sqlite/verify.ts';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
const note = 'looked at the bank statement for this one';
const finance = { roles: ['finance'] };
let scene: SlipScene;

test.before(async () => { scene = await slipScene(); });
test.after(async () => { await scene.s.stop(); });

/** A deposit of `shop`'s of `amount`, paid with `paid` from `from` to `to`, its slip verified: the deposit as the merchant reads it. */
async function paid(shop: MerchantKeys, amount: number, paidMinor: number, to: { bank_code: string; account_number: string; account_name: string }, from = sender): Promise<any> {
  const created = await scene.s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: amount, fill_preference: 'internal_only', end_user_ref: `u-${randomUUID()}`, sender: from }));
  assert.is(created.status, 201, created.text);
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, created.json, { amount_minor: paidMinor, receiver: to, sender: { ...from }, image_sha256: sha256Hex(image) }));
  assert.is((await uploadFile(created.json.slip_upload, image)).status, 202);
  await scene.s.running.slipWorker.drain();
  return (await scene.s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${created.json.id}`)).json;
}

/** The live trial balance at `asOfMs` (now when omitted): its section, and its CSV's live rows. */
async function live(asOfMs?: number): Promise<{ section: any; csv: Record<string, string>[] }> {
  const query = asOfMs === undefined ? '' : `as_of=${new Date(asOfMs).toISOString()}&`;
  const json = await scene.s.bo('GET', `/v1/bo/reports/trial-balance?${query}`, undefined, finance);
  assert.is(json.status, 200, json.text);
  const csv = await scene.s.bo('GET', `/v1/bo/reports/trial-balance?${query}format=csv`, undefined, finance);
  const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
  return { section: json.json.sections.find((x: any) => x.livemode === true), csv: rows.filter((r) => r.livemode === 'true') };
}

const line = (section: any, name: string) => section.accounts.find((a: any) => a.account === `sys:live:${name}`);
const posted = (account: string): number => Number(scene.s.running.store.db.prepare('SELECT coalesce(sum(amount), 0) FROM postings WHERE account = ?').pluck(true).get(account));

/** Every line says balance = credit − debit + reclassified; the reclassifications and the balances sum to zero; suspense ties to its postings. */
function ties(section: any, step: string): void {
  for (const a of section.accounts) assert.is(a.balance_minor, a.credit_minor - a.debit_minor + a.reclassified_minor, `${step}: ${a.account}`);
  assert.is(section.accounts.reduce((t: number, a: any) => t + a.reclassified_minor, 0), 0, `${step}: the reclassifications sum to zero`);
  assert.is(section.accounts.reduce((t: number, a: any) => t + a.balance_minor, 0), 0, `${step}: the balances sum to zero`);
  assert.ok(section.balanced, step);
  const suspense = line(section, 'suspense');
  assert.is(suspense.balance_minor - suspense.reclassified_minor, posted('sys:live:suspense'), `${step}: suspense's postings`);
  const report = verifyStore(scene.s.running.store.db);
  assert.ok(report.ok, `${step}: ${JSON.stringify(report.mismatches).slice(0, 1500)}`);
}

const claimIdsListed = async (owes: boolean): Promise<string[]> => {
  const r = await scene.s.bo('GET', `/v1/bo/claims?owed_by_payee=${owes}&limit=100`, undefined, finance);
  assert.is(r.status, 200, r.text);
  return r.json.data.map((c: any) => c.id);
};

test('an overpayment\'s refund, paid and filled, is the payee\'s debt: its own line owed_by_payees out of suspense, on the claim and in the list, until the bank recalls the transfer from the payee', async () => {
  // A white label of its own: the payer's withdrawal of 400 baht to a payee, paid by the shop's
  // deposit of 400 baht with 450 sent — 50 baht more that only the payee's account holds.
  const payer = await scene.s.onboard('Payee debt payer');
  const shop = await scene.s.onboard('Payee debt shop', payer.whiteLabelId);
  await scene.s.fund(payer.id, 1_000_000);
  const payee = { bank_code: '004', account_number: '5550003333', account_name: 'สมหญิง รักดี' };
  const ben = await scene.s.beneficiary(payer.id, true, payee.account_number);
  assert.is((await scene.s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 40_000, currency: 'THB', merchant_reference: 'pd-w', end_user_ref: 'payee', beneficiary_id: ben })).status, 201);
  const d = await paid(shop, 40_000, 45_000, payee);
  assert.equal([d.status, d.overpayment?.amount_minor], ['settled', 5_000]);
  const claimId = d.overpayment.claim_id;
  assert.is(line((await live()).section, 'owed_by_payees'), undefined, 'no payee owes anything yet: no line');

  // Two operators refund it and pay it out: the lock leaves suspense, but nobody has been paid yet.
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/review`, { note }, { sub: 'emp_claims' })).status, 200);
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/refund`, { note }, { sub: 'emp_claims', stepUp: true })).status, 200);
  const payout = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/payout`, { note }, { sub: 'emp_payer', stepUp: true });
  assert.is(payout.status, 200, payout.text);
  assert.is(payout.json.owed_by_payee_minor, null);
  assert.is(line((await live()).section, 'owed_by_payees'), undefined, 'paying out: the refund is locked, not paid');
  scene.s.clock.advance(60_000);
  const beforeFill = scene.s.clock.now() - 1;

  // Another payer's deposit pays the payer's account: the refund settles and the claim closes, refunded 50 baht.
  const payerAccount = { bank_code: sender.bank_code, account_number: sender.account_number, account_name: sender.account_name_th };
  assert.is((await paid(shop, 5_000, 5_000, payerAccount, freshSender())).status, 'settled');
  const closed = (await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json;
  assert.equal([closed.status, closed.refunded_minor, closed.owed_by_payer_minor, closed.owed_by_payee_minor], ['closed', 5_000, null, 5_000]);

  // The trial balance names the payee's debt: a debit of 50 baht, no postings, all of it taken from suspense.
  const { section, csv } = await live();
  const owed = line(section, 'owed_by_payees');
  assert.ok(owed, `an owed_by_payees line: ${JSON.stringify(section.accounts.map((a: any) => a.account))}`);
  assert.equal([owed.kind, owed.name, owed.postings, owed.debit_minor, owed.credit_minor, owed.reclassified_minor, owed.balance_minor, owed.side],
    ['system', 'owed_by_payees', 0, 0, 0, -5_000, -5_000, 'debit']);
  assert.is(line(section, 'suspense').reclassified_minor, 5_000, 'suspense hands over what the payee owes');
  assert.is(line(section, 'owed_by_payers'), undefined, 'no payer owes anything');
  ties(section, 'the refund filled');
  const row = csv.find((r) => r.account === 'sys:live:owed_by_payees')!;
  assert.equal([row.reclassified_minor, row.balance_minor, row.side], ['-5000', '-5000', 'debit']);
  assert.equal(csv.filter((r) => r.account === 'total').map((r) => [r.reclassified_minor, r.balance_minor, r.side]), [['0', '0', 'balanced']]);
  assert.is(line((await live(beforeFill)).section, 'owed_by_payees'), undefined, 'as of before the fill, nothing was owed');

  // The claims behind the line: this one owes, the others do not; the filter is validated as owed_by_payer is.
  assert.equal(await claimIdsListed(true), [claimId]);
  assert.not.ok((await claimIdsListed(false)).includes(claimId));
  const bad = await scene.s.bo('GET', '/v1/bo/claims?owed_by_payee=yes', undefined, finance);
  assert.equal([bad.status, bad.json.error?.details?.fields], [422, [{ path: 'query.owed_by_payee', reason: 'enum', hint: 'true, false' }]], bad.text);

  // The finance analyst's command line prints the line.
  const cli = await promisify(execFile)(satangPath, ['report', 'trial-balance'], { cwd: tmpdir(), env: { ...process.env, SATANG_DATA_DIR: scene.s.dataDir, SATANG_BASE_URL: scene.s.url, SATANG_LOG_LEVEL: 'silent' } });
  const printed = cli.stdout.split('\n').find((l) => l.startsWith('sys:live:owed_by_payees'));
  assert.ok(printed, cli.stdout);
  assert.equal(printed!.trim().split(/ {2,}/), ['sys:live:owed_by_payees', '0', '0.00', '0.00', '-50.00', '-50.00', 'debit']);

  // The bank recalls the shop's whole transfer from the payee; the operator records the refund as owed back by the payer.
  scene.s.clock.advance(60_000);
  const beforeRecall = scene.s.clock.now() - 1;
  const reversed = await scene.s.bo('POST', `/v1/bo/deposits/${d.id}/reverse`, { reason_code: 'BANK_RECALL', note: 'the sending bank recalled the whole transfer', claim_refunds: 'recover_from_payer' }, { stepUp: true });
  assert.is(reversed.status, 200, reversed.text);
  const recalled = (await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json;
  assert.equal([recalled.owed_by_payer_minor, recalled.owed_by_payee_minor], [5_000, null]);
  const after = (await live()).section;
  assert.equal([line(after, 'owed_by_payees')?.balance_minor, line(after, 'owed_by_payees')?.reclassified_minor], [0, 0], 'the line stays, at 0');
  assert.is(line(after, 'owed_by_payers').balance_minor, -5_000, 'the payer owes it now');
  assert.is(line(after, 'suspense').reclassified_minor, 5_000);
  ties(after, 'the transfer recalled');
  assert.is(line((await live(beforeRecall)).section, 'owed_by_payees').balance_minor, -5_000, 'as of before the recall, the payee owed it');
  assert.equal(await claimIdsListed(true), []);
  assert.ok((await claimIdsListed(false)).includes(claimId));

  // Finance writes 20 baht of the payer's debt off (two operators): still the payer's, a loss, not the payee's again.
  const writeOffNote = 'the payer cannot be reached; collection declined';
  const proposed = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs`, { amount_minor: 2_000, note: writeOffNote }, { sub: 'emp_fin_a', roles: ['finance'], stepUp: true });
  assert.is(proposed.status, 202, proposed.text);
  const approved = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs/${proposed.json.write_off_proposal.id}/approve`, { amount_minor: 2_000 }, { sub: 'emp_fin_b', roles: ['finance'], stepUp: true });
  assert.is(approved.status, 200, approved.text);
  assert.equal([approved.json.owed_by_payer_minor, approved.json.written_off_minor, approved.json.owed_by_payee_minor], [3_000, 2_000, null], 'a write-off leaves the payee owing nothing');
  const writtenOff = (await live()).section;
  assert.equal([line(writtenOff, 'owed_by_payees')?.balance_minor, line(writtenOff, 'owed_by_payers').balance_minor, line(writtenOff, 'payer_debts_written_off').balance_minor], [0, -3_000, -2_000]);
  ties(writtenOff, 'written off in part');
  assert.equal(await claimIdsListed(true), [], 'nor is the claim listed as the payee\'s debt');
});

test.run();
