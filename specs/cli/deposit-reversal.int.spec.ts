// `satang bo reverse DEP_ID` run as an operator runs it (a child process against a real server
// sharing its data directory): a settled deposit reversed, then read back — the deposit
// `reversed` naming the settlement it takes back, the merchant's pending clearing down by
// what the order credited, the operator on the timeline, the ledger verified; the same
// --idempotency-key replays the answer and does nothing again. Bad input is the route's error
// code on stderr in one line (or a usage error, exit 2), never a stack trace, and leaves the
// deposit, the wallet and the journal as they were; a refusal's message names the options
// (--reason-code, --recover-from-payer) where the API's names its fields. A deposit whose claim already refunded the
// payer is refused (409) naming the option that says so, then reversed with
// --recover-from-payer, the claim recording the refund owed back, and listed by
// `satang bo claims --owed-by-payer` (and by mode, --live or --sandbox, and by merchant, --merchant);
// `satang bo claim show` gives each decision's note whole.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { getDeposit, paidDeposit as paidDepositOf, receiver as payeeOfScene, slipScene, type SlipScene } from '../support/slip-harness.ts';
import { freshSender, sender, type MerchantKeys } from '../support/server-harness.ts';
import { verifyStore } from '../../adapters/sqlite/verify.ts';
import { satang, stackLine, type Ran } from '../support/cli.ts';

const recall = ['--reason-code', 'BANK_RECALL', '--note', "the sender's bank recalled the whole transfer"];
let scene: SlipScene;
let env: Record<string, string>;

const bo = (...args: string[]): Promise<Ran> => satang(['bo', ...args], env);

test.before(async () => {
  scene = await slipScene();
  env = { SATANG_DATA_DIR: scene.s.dataDir, SATANG_BASE_URL: scene.s.url, SATANG_LOG_LEVEL: 'silent' };
});
test.after(async () => { await scene.s.stop(); });

const paidDeposit = (shop: MerchantKeys, amount: number, paid: number, to = payeeOfScene, from = sender): Promise<any> => paidDepositOf(scene, shop, amount, paid, to, from);

async function balanceOf(shop: MerchantKeys): Promise<any> {
  const r = await scene.s.call(shop.live.api_key, 'GET', '/v1/pay/balance');
  assert.is(r.status, 200, r.text);
  return { available_minor: r.json.available_minor, pending_clearing_minor: r.json.pending_clearing_minor, reserved_minor: r.json.reserved_minor };
}

const journalCount = (): number => scene.s.running.store.db.prepare('SELECT count(*) FROM journal').pluck(true).get() as number;

function ledgerVerifies(step: string): void {
  const report = verifyStore(scene.s.running.store.db);
  assert.ok(report.ok, `${step}: ${JSON.stringify(report.mismatches).slice(0, 1500)}`);
}

test('bo reverse takes a settled deposit back: the deposit reads reversed, the wallet gives back its credit, a retry with the same key does nothing again', async () => {
  const d = await paidDeposit(scene.shop, 50_000, 50_000);
  assert.is(d.status, 'settled');
  const before = await balanceOf(scene.shop);
  const entries = journalCount();

  // Bad input: the route's code on stderr, one line, nothing on stdout, no stack trace, nothing written.
  const refusals: [string[], number, RegExp][] = [
    // The message names the option (--reason-code), the details the API's field, for scripts.
    [[d.id, '--reason-code', 'RECALLED', '--note', recall[3]!], 1, /^HTTP 422: .*"code":"validation_error".*"message":"Unknown --reason-code\.".*"path":"reason_code".*"hint":"BANK_RECALL, ACCOUNT_FROZEN/],
    [[d.id, '--reason-code', 'BANK_RECALL', '--note', 'recalled'], 1, /^HTTP 422: .*"code":"review_note_required"/],
    [['dep_01NOSUCHDEPOSIT0000000000', ...recall], 1, /^HTTP 404: .*"code":"resource_not_found"/],
    [[d.id, '--note', recall[3]!], 2, /^satang bo reverse: --reason-code is required\n\(see: satang bo reverse --help\)$/],
    [['--reason-code', 'BANK_RECALL', '--note', recall[3]!], 2, /^satang bo reverse: missing DEPOSIT_ID/],
    [[d.id, ...recall, '--recover-from-payer=yes'], 2, /^satang bo reverse: .*recover-from-payer/],
  ];
  for (const [args, code, said] of refusals) {
    const r = await bo('reverse', ...args);
    assert.is(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr.trim(), said, r.stderr);
    assert.not.match(r.stderr, stackLine, r.stderr);
    assert.is(r.stdout, '', args.join(' '));
  }
  assert.is((await getDeposit(scene, d.id)).status, 'settled');
  assert.equal(await balanceOf(scene.shop), before);
  assert.is(journalCount(), entries, 'a refused reversal leaves nothing behind');

  const key = randomUUID();
  const reversed = await bo('reverse', d.id, ...recall, '--idempotency-key', key, '--sub', 'emp_cli_reverser');
  assert.is(reversed.code, 0, reversed.stderr);
  const after = await getDeposit(scene, d.id);
  assert.equal([after.status, after.reversal.reason_code, after.reversal.reverses_balance_transaction_id], ['reversed', 'BANK_RECALL', d.balance_transaction_id]);
  assert.is(reversed.stdout.trim(), `${d.id}: reversed (BANK_RECALL; balance transaction ${after.reversal.balance_transaction_id} takes back ${d.balance_transaction_id})`);
  // Inside the clearing window the credit sat in pending clearing: the order's credit goes, no more.
  assert.equal(await balanceOf(scene.shop), { ...before, pending_clearing_minor: before.pending_clearing_minor - d.credited_amount_minor });
  const step = (await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`)).json.timeline.find((t: any) => t.step === 'reversed');
  assert.equal([step.detail.reason_code, step.detail.operator, step.detail.note], ['BANK_RECALL', 'emp_cli_reverser', recall[3]]);
  ledgerVerifies('reversed');

  // A retry with the key (an answer lost on the way) is the first answer, said so; nothing is done again.
  const entriesAfter = journalCount();
  const replay = await bo('reverse', d.id, ...recall, '--idempotency-key', key, '--sub', 'emp_cli_reverser', '--json');
  assert.is(replay.code, 0, replay.stderr);
  assert.match(replay.stderr, `(replay) the answer first given to Idempotency-Key ${key}`);
  assert.equal(JSON.parse(replay.stdout).reversal, after.reversal);
  assert.is(journalCount(), entriesAfter);
  // Another key is another reversal: refused, the deposit being reversed already.
  const again = await bo('reverse', d.id, ...recall);
  assert.is(again.code, 1);
  assert.match(again.stderr, /^HTTP 409: .*"code":"operation_not_allowed".*this one is reversed/);
  assert.equal(await balanceOf(scene.shop), { ...before, pending_clearing_minor: before.pending_clearing_minor - d.credited_amount_minor });
});

test("bo reverse of a deposit whose claim refunded the payer: refused, naming --recover-from-payer; with it, reversed and the refund owed back on the claim", async () => {
  // A white label of its own, so that the refund withdrawal is the only one a deposit can pay.
  const payer = await scene.s.onboard('Reversal payer');
  const shop = await scene.s.onboard('Reversal shop', payer.whiteLabelId);
  await scene.s.fund(payer.id, 1_000_000);
  const payee = { bank_code: '004', account_number: '5550002222', account_name: 'สมหญิง รักดี' };
  const ben = await scene.s.beneficiary(payer.id, true, payee.account_number);
  const w = await scene.s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 40_000, currency: 'THB', merchant_reference: `rev-${randomUUID()}`, end_user_ref: 'payee', beneficiary_id: ben });
  assert.is(w.status, 201, w.text);
  // 450 baht sent for an order of 400: the excess's claim opens by itself, is refunded (two operators) and paid.
  const d = await paidDeposit(shop, 40_000, 45_000, payee);
  assert.is(d.status, 'settled');
  const claimId = d.overpayment.claim_id as string;
  // Longer than a table's cell (60 columns): `bo claim show` gives it whole.
  const note = 'looked at the bank statement for this one: the excess came from the order\'s own sender, refund it to them';
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/review`, { note }, { sub: 'emp_claims' })).status, 200);
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/refund`, { note }, { sub: 'emp_claims', stepUp: true })).status, 200);
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/payout`, { note }, { sub: 'emp_payer', stepUp: true })).status, 200);
  // While the refund pays out, the reversal says to cancel it first, with the command that does it here.
  const refundId = (await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json.refund_withdrawal_id as string;
  const payingOut = await bo('reverse', d.id, ...recall);
  assert.is(payingOut.code, 1);
  assert.match(payingOut.stderr, new RegExp(`^HTTP 409: .*"code":"operation_not_allowed".*Cancel it first \\(satang bo withdrawal cancel ${refundId}\\), then reverse\\.".*"refund_withdrawal_id":"${refundId}"`));
  assert.not.match(payingOut.stderr, /\/v1\/bo\/withdrawals/, 'the command, not the API\'s route');
  const payerAccount = { bank_code: sender.bank_code, account_number: sender.account_number, account_name: sender.account_name_th };
  assert.is((await paidDeposit(shop, 5_000, 5_000, payerAccount, freshSender())).status, 'settled');
  assert.equal((await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json.refunded_minor, 5_000);
  const before = await balanceOf(shop);
  // The refund paid money the service never held (the excess sits in the payee's account): the payee owes it, on the claim as in the list.
  const owing = await bo('claim', 'show', claimId);
  assert.is(owing.code, 0, owing.stderr);
  const [owingHeader, owingRow] = owing.stdout.trim().split('\n');
  assert.match(owingHeader!, /^CLAIM +KIND +STATUS +DEPOSIT +THB +REFUNDED +OWED BY PAYER +WRITTEN OFF +OWED BY PAYEE +VERSION +REFUND$/);
  assert.equal(owingRow!.split(/ {2,}/).slice(0, 9), [claimId, 'overpayment', 'closed', d.id, '50.00', '50.00', '-', '-', '50.00']);
  const entries = journalCount();

  const refused = await bo('reverse', d.id, ...recall);
  assert.is(refused.code, 1);
  const [answer, ...rest] = refused.stderr.trim().split('\n');
  assert.match(answer!, new RegExp(`^HTTP 409: .*"code":"operation_not_allowed".*to reverse, send --recover-from-payer and the claim records.*"claim_id":"${claimId}","refunded_minor":5000`));
  assert.not.match(answer!, /claim_refunds/, 'the option, not the API\'s field');
  assert.equal(rest, []);
  assert.is(refused.stdout, '');
  assert.equal(await balanceOf(shop), before);
  assert.is(journalCount(), entries);

  const reversed = await bo('reverse', d.id, ...recall, '--recover-from-payer', '--sub', 'emp_lead');
  assert.is(reversed.code, 0, reversed.stderr);
  assert.match(reversed.stdout, new RegExp(`^${d.id}: reversed \\(BANK_RECALL;`));
  assert.equal(await balanceOf(shop), { ...before, pending_clearing_minor: before.pending_clearing_minor - d.credited_amount_minor });
  const claim = (await scene.s.bo('GET', `/v1/bo/claims/${claimId}`)).json;
  assert.equal([claim.refunded_minor, claim.owed_by_payer_minor, claim.notes.at(-1).operator], [5_000, 5_000, 'emp_lead']);
  ledgerVerifies('reversed, the refund owed back');
  // The claim itself, from the command line: what its refund paid and what the payer owes back, beside its amount.
  const shown = await bo('claim', 'show', claimId);
  assert.is(shown.code, 0, shown.stderr);
  const [claimHeader, claimRow] = shown.stdout.trim().split('\n');
  assert.match(claimHeader!, /^CLAIM +KIND +STATUS +DEPOSIT +THB +REFUNDED +OWED BY PAYER +WRITTEN OFF +OWED BY PAYEE +VERSION +REFUND$/);
  // The bank's recall of the whole transfer moved the debt from the payee to the payer.
  assert.equal(claimRow!.split(/ {2,}/).slice(0, 9), [claimId, 'overpayment', 'closed', d.id, '50.00', '50.00', '50.00', '-', '-']);
  // Each decision's note whole, wrapped onto the lines under its row in the NOTE column (it was cut at 60 columns, '…').
  const [notesHeader, ...noteLines] = shown.stdout.trim().split('\n\n')[1]!.split('\n');
  assert.match(notesHeader!, /^AT +OPERATOR +STATUS +NOTE$/);
  const noteAt = notesHeader!.indexOf('NOTE');
  const notes = noteLines.reduce<string[]>((all, line) => (line.startsWith(' ') ? [...all.slice(0, -1), `${all.at(-1)} ${line.slice(noteAt).trim()}`] : [...all, line.slice(noteAt).trim()]), []);
  assert.equal(notes.filter((n) => n === note).length, 3, notes.join('\n'));
  assert.not.match(shown.stdout, /…/);

  // The claims behind the trial balance's owed_by_payers line, from the command line: this one, live, owing 50 baht; no other.
  const owed = await bo('claims', '--owed-by-payer');
  assert.is(owed.code, 0, owed.stderr);
  const [header, ...rows] = owed.stdout.trim().split('\n');
  assert.match(header!, /^CLAIM +MODE +KIND +STATUS +DEPOSIT +THB +OWED BY PAYER +OWED BY PAYEE +UPDATED$/);
  assert.equal(rows.map((r) => r.split(/ {2,}/).slice(0, 7)), [[claimId, 'live', 'overpayment', 'closed', d.id, '50.00', '50.00']]);
  const owedJson = await bo('claims', '--owed-by-payer', '--json');
  assert.equal(JSON.parse(owedJson.stdout).data.map((c: any) => [c.id, c.owed_by_payer_minor]), [[claimId, 5_000]]);
  // One mode's, as bo approvals: --live lists it, --sandbox none (the sandbox's own ledger owes nothing).
  const owedLive = await bo('claims', '--owed-by-payer', '--live', '--json');
  assert.equal(JSON.parse(owedLive.stdout).data.map((c: any) => [c.id, c.livemode]), [[claimId, true]], owedLive.stderr);
  const owedSandbox = await bo('claims', '--owed-by-payer', '--sandbox');
  assert.equal([owedSandbox.code, owedSandbox.stdout.trim()], [0, 'no claim matches'], owedSandbox.stderr);
  // One merchant's, as bo disputes: the shop's claims are this one alone, the payer's none.
  const shopClaims = await bo('claims', '--merchant', shop.id, '--json');
  assert.equal([shopClaims.code, JSON.parse(shopClaims.stdout || '{}').data?.map((c: any) => [c.id, c.merchant_id])], [0, [[claimId, shop.id]]], shopClaims.stderr);
  const payerClaims = await bo('claims', '--merchant', payer.id, '--owed-by-payer');
  assert.equal([payerClaims.code, payerClaims.stdout.trim()], [0, 'no claim matches'], payerClaims.stderr);

  // Finance writes 20 baht of it off: one operator proposes, the command says how another approves; the proposer cannot.
  const writeOffNote = 'the payer cannot be reached for 90 days; collection declined';
  const proposed = await bo('claim', 'write-off', claimId, '--amount', '2000', '--note', writeOffNote, '--sub', 'emp_fin_a');
  assert.is(proposed.code, 0, proposed.stderr);
  const proposalId = /write-off (wop_\S+) of THB 20\.00 proposed/.exec(proposed.stdout)?.[1];
  assert.ok(proposalId, proposed.stdout);
  assert.match(proposed.stdout, new RegExp(`scripts/satang bo claim write-off-approve ${claimId} --proposal ${proposalId} --amount 2000 --sub OTHER_OPERATOR`));
  const entriesProposed = journalCount();
  const own = await bo('claim', 'write-off-approve', claimId, '--proposal', proposalId!, '--amount', '2000', '--sub', 'emp_fin_a');
  assert.is(own.code, 1);
  assert.match(own.stderr, /^HTTP 409: .*"code":"operation_not_allowed".*four eyes/);
  assert.is(journalCount(), entriesProposed);
  const approved = await bo('claim', 'write-off-approve', claimId, '--proposal', proposalId!, '--amount', '2000', '--sub', 'emp_fin_b');
  assert.is(approved.code, 0, approved.stderr);
  const [approvedHeader, approvedRow] = approved.stdout.trim().split('\n');
  assert.match(approvedHeader!, /REFUNDED +OWED BY PAYER +WRITTEN OFF +OWED BY PAYEE +VERSION/);
  assert.equal(approvedRow!.split(/ {2,}/).slice(5, 9), ['50.00', '30.00', '20.00', '-'], 'written off, the debt stays the payer\'s: the payee owes nothing');
  // The claims behind the written-off line, from the command line: this one alone.
  const writtenOffList = await bo('claims', '--written-off', '--json');
  assert.equal([writtenOffList.code, JSON.parse(writtenOffList.stdout || '{}').data?.map((c: any) => [c.id, c.written_off_minor])], [0, [[claimId, 2_000]]], writtenOffList.stderr);
  // The trial balance from the command line names the loss.
  const tb = await satang(['report', 'trial-balance'], env);
  assert.is(tb.code, 0, tb.stderr);
  assert.match(tb.stdout, /sys:live:payer_debts_written_off +0 +0\.00 +0\.00 +-20\.00 +-20\.00 +debit/);
  ledgerVerifies('written off in part');
});

test('bo reverse --help says the reason codes and the options; bo --help lists it', async () => {
  const help = await bo('reverse', '--help');
  assert.is(help.code, 0);
  assert.match(help.stdout, /^usage: satang bo reverse DEPOSIT_ID \[options\]/);
  for (const said of ['--reason-code CODE', 'BANK_RECALL, ACCOUNT_FROZEN, SLIP_INVALIDATED_AFTER_SETTLEMENT, DUPLICATE_CREDIT, OPS_ERROR, MERCHANT_DISPUTE_LOST', '--note TEXT', '--recover-from-payer', '--idempotency-key KEY']) assert.match(help.stdout, said);
  assert.match((await bo('--help')).stdout, /\n {2}reverse {14}Reverses a settled deposit/);
  const claimsHelp = (await bo('claims', '--help')).stdout;
  assert.match(claimsHelp, /--owed-by-payer +only claims whose payer owes a refund back/);
  assert.match(claimsHelp, /--live +only live claims/);
  assert.match(claimsHelp, /--sandbox +only sandbox claims/);
  assert.match(claimsHelp, /--merchant MCH_ID +only this merchant/);
});

test.run();
