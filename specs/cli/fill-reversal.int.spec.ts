// `satang bo fill reverse WDR LEG` run as an operator runs it (child processes against a real
// server sharing its data directory), where the README puts it: a deposit settles and fills
// the payer's withdrawal, a dispute on that withdrawal is opened and lost from the command
// line, `bo dispute show` names the fill it concerns (its LEG_REF in the withdrawal's fills),
// and that fill is reversed — the withdrawal's fill reads reversed with the reason, there and
// in `bo dispute show`, the payer's wallet takes the fill's amount and fee share back into the
// order's lock (the order is still payable), the operator and the note are on the deposit's
// timeline, the ledger verifies. The step-up comes from the environment with an operator token from
// elsewhere, and without one the command says where to get it. Refusals (an unknown leg,
// a bad reason, a short note, a second reversal) are the route's error code on stderr in
// one line, exit 1, nothing on stdout, nothing written; a missing word or option is a usage
// error (exit 2).
// Outside a dispute (a bank recalled a payout) the fill is found from the deposit: `bo show DEP`
// names the withdrawal it paid (PAID TO) and its fill (FILL), `bo withdrawal show WDR` lists that
// fill in the same table as `bo dispute show`, and `bo fill reverse` takes those two words.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { settledDeposit, slipScene, type SlipScene } from '../support/slip-harness.ts';
import { satang, stackLine, type Ran } from '../support/cli.ts';
import { verifyStore } from '../../adapters/sqlite/verify.ts';

const lost = ['--reason-code', 'MERCHANT_DISPUTE_LOST', '--note', 'the payee never received it: the dispute was lost'];
let scene: SlipScene;
let env: Record<string, string>;

/** `satang bo …`, with `more` in its environment (an operator token from elsewhere, a step-up). */
const bo = (args: readonly string[], more: Record<string, string> = {}): Promise<Ran> => satang(['bo', ...args], { ...env, ...more });

test.before(async () => {
  scene = await slipScene();
  env = { SATANG_DATA_DIR: scene.s.dataDir, SATANG_BASE_URL: scene.s.url, SATANG_LOG_LEVEL: 'silent' };
});
test.after(async () => { await scene.s.stop(); });

async function payerBalance(): Promise<any> {
  const r = await scene.s.call(scene.payer.live.api_key, 'GET', '/v1/pay/balance');
  assert.is(r.status, 200, r.text);
  return { available_minor: r.json.available_minor, pending_clearing_minor: r.json.pending_clearing_minor, reserved_minor: r.json.reserved_minor };
}

const journalCount = (): number => scene.s.running.store.db.prepare('SELECT count(*) FROM journal').pluck(true).get() as number;

/** A deposit settled into the payer's first withdrawal: the deposit's id and the fill it made, as an operator reads it. */
async function settledFill(): Promise<{ depositId: string; withdrawalId: string; fill: any }> {
  const d = await settledDeposit(scene);
  const withdrawalId = scene.withdrawalIds[0]!;
  const fill = (await scene.s.bo('GET', `/v1/bo/withdrawals/${withdrawalId}`)).json.withdrawal.fills.find((f: any) => f.deposit_id === d.id);
  assert.ok(fill, 'the deposit filled the withdrawal');
  return { depositId: d.id, withdrawalId, fill };
}

/** A fill's row in a fills table (bo dispute show, bo withdrawal show): LEG_REF, DEPOSIT, THB, FEE, STATUS, FILLED AT. */
const fillRowOf = (fill: any, depositId: string, status: string) => new RegExp(`^${fill.leg_ref}\\s+${depositId}\\s+${(fill.amount_minor / 100).toFixed(2)}\\s+${(fill.fee_recognized_minor / 100).toFixed(2)}\\s+${status}\\s+\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} \\+07$`, 'm');
const fillsHeader = /^LEG_REF\s+DEPOSIT\s+THB\s+FEE\s+STATUS\s+FILLED AT$/m;

test('a lost dispute, then bo fill reverse: the fill reads reversed, its amount and fee share go back to the order\'s lock; refusals say why and write nothing', async () => {
  const { depositId, withdrawalId, fill } = await settledFill();

  // The dispute, opened and lost from the command line.
  const opened = await bo(['dispute', 'open', withdrawalId, '--reason-code', 'not_received', '--amount', String(fill.amount_minor), '--json']);
  assert.is(opened.code, 0, opened.stderr);
  const disputeId = JSON.parse(opened.stdout).id as string;
  const resolved = await bo(['dispute', 'resolve', disputeId, '--outcome', 'merchant_lost', '--note', 'the payee showed the bank statement without it']);
  assert.is(resolved.code, 0, resolved.stderr);
  assert.is(resolved.stdout.trim(), `${disputeId}: resolved (merchant_lost)`);
  // The LEG_REF the reversal takes, read where the lost dispute is read: a row of its withdrawal's fills.
  const shown = await bo(['dispute', 'show', disputeId]);
  assert.is(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, fillsHeader, shown.stdout);
  const fillRow = (status: string) => fillRowOf(fill, depositId, status);
  assert.match(shown.stdout, fillRow(fill.receipt_state), shown.stdout);

  const before = await payerBalance();
  const filledBefore = (await scene.s.call(scene.payer.live.api_key, 'GET', `/v1/pay/withdrawals/${withdrawalId}`)).json.filled_minor as number;
  const entries = journalCount();
  const refusals: [string[], number, RegExp][] = [
    [[withdrawalId, 'leg_nope', ...lost], 1, /^HTTP 404: .*"code":"resource_not_found".*No fill with this leg_ref/],
    [['wdr_01NOSUCHWITHDRAWAL000000', fill.leg_ref, ...lost], 1, /^HTTP 404: .*"code":"resource_not_found"/],
    [[withdrawalId, fill.leg_ref, '--reason-code', 'LOST', '--note', lost[3]!], 1, /^HTTP 422: .*"code":"validation_error".*"path":"reason_code".*"hint":"BANK_RECALL, ACCOUNT_FROZEN/],
    [[withdrawalId, fill.leg_ref, '--reason-code', 'MERCHANT_DISPUTE_LOST', '--note', 'lost'], 1, /^HTTP 422: .*"code":"review_note_required"/],
    [[withdrawalId, fill.leg_ref, '--note', lost[3]!], 2, /^satang bo fill reverse: --reason-code is required\n\(see: satang bo fill reverse --help\)$/],
    [[withdrawalId, ...lost], 2, /^satang bo fill reverse: missing LEG_REF/],
  ];
  for (const [args, code, said] of refusals) {
    const r = await bo(['fill', 'reverse', ...args]);
    assert.is(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr.trim(), said, r.stderr);
    assert.not.match(r.stderr, stackLine, r.stderr);
    assert.is(r.stdout, '', args.join(' '));
  }
  // An operator token from elsewhere (a production issuer) and no step-up: the command says where to get one.
  const operatorToken = await scene.s.operatorToken('emp_cli_filler', false, ['ops_admin']);
  const noStepUp = await bo(['fill', 'reverse', withdrawalId, fill.leg_ref, ...lost], { SATANG_OPERATOR_TOKEN: operatorToken });
  assert.is(noStepUp.code, 1, noStepUp.stderr);
  assert.match(noStepUp.stderr, /needs a step-up: sign in to the console, open Command line/);
  assert.equal(await payerBalance(), before);
  assert.is(journalCount(), entries, 'a refused reversal leaves nothing behind');

  // With the step-up the console gave, from the environment: reversed.
  const stepUp = await scene.s.operatorToken('emp_cli_filler', true, ['ops_admin']);
  const reversed = await bo(['fill', 'reverse', withdrawalId, fill.leg_ref, ...lost], { SATANG_OPERATOR_TOKEN: operatorToken, SATANG_STEP_UP_TOKEN: stepUp });
  assert.is(reversed.code, 0, reversed.stderr);
  const w = (await scene.s.call(scene.payer.live.api_key, 'GET', `/v1/pay/withdrawals/${withdrawalId}`)).json;
  const after = w.fills.find((f: any) => f.leg_ref === fill.leg_ref);
  assert.equal([after.receipt_state, after.reversal_reason_code], ['reversed', 'MERCHANT_DISPUTE_LOST']);
  assert.is(reversed.stdout.trim(), `${withdrawalId}: fill ${fill.leg_ref} reversed (MERCHANT_DISPUTE_LOST; balance transaction ${after.reversal_balance_transaction_id} takes back ${fill.balance_transaction_id}, `
    + `THB ${(fill.amount_minor / 100).toFixed(2)} and fee THB ${(fill.fee_recognized_minor / 100).toFixed(2)})\nwithdrawal ${w.status}, THB ${(w.filled_minor / 100).toFixed(2)} of ${(w.amount_total_minor / 100).toFixed(2)} filled`);
  assert.equal([w.status, w.filled_minor], ['partially_filled', filledBefore - fill.amount_minor], 'a status never moves back; the reversed fill no longer fills it');
  // Still payable: the amount and its fee share go back into the order's lock; available does not move.
  assert.equal(await payerBalance(), { ...before, reserved_minor: before.reserved_minor + fill.amount_minor + fill.fee_recognized_minor });
  const step = (await scene.s.bo('GET', `/v1/bo/deposits/${depositId}`)).json.timeline.find((t: any) => t.step === 'fill_reversed');
  assert.equal([step?.detail.leg_ref, step?.detail.reason_code, step?.detail.operator, step?.detail.note], [fill.leg_ref, 'MERCHANT_DISPUTE_LOST', 'emp_cli_filler', lost[3]], JSON.stringify(step));
  const reshown = await bo(['dispute', 'show', disputeId]);
  assert.match(reshown.stdout, fillRow('reversed \\(MERCHANT_DISPUTE_LOST\\)'), reshown.stdout);
  // The same row, from the same renderer, where the withdrawal itself is read.
  const withdrawalShown = await bo(['withdrawal', 'show', withdrawalId]);
  assert.is(withdrawalShown.code, 0, withdrawalShown.stderr);
  assert.match(withdrawalShown.stdout, fillRow('reversed \\(MERCHANT_DISPUTE_LOST\\)'), withdrawalShown.stdout);
  assert.match(withdrawalShown.stdout, new RegExp(`^dispute ${disputeId}: resolved \\(merchant_lost\\); its evidence: bo dispute show ${disputeId}$`, 'm'), withdrawalShown.stdout);
  const report = verifyStore(scene.s.running.store.db);
  assert.ok(report.ok, JSON.stringify(report.mismatches).slice(0, 1500));

  // A fill is reversed once: the second is refused, and nothing moves.
  const entriesAfter = journalCount();
  const again = await bo(['fill', 'reverse', withdrawalId, fill.leg_ref, ...lost]);
  assert.is(again.code, 1);
  assert.match(again.stderr, /^HTTP 409: .*"code":"operation_not_allowed".*already reversed/);
  assert.is(again.stdout, '');
  assert.is(journalCount(), entriesAfter);
});

test('outside a dispute (a bank recalled the payout): bo show DEP names the fill it paid (PAID TO WDR, FILL LEG_REF), bo withdrawal show lists it, and bo fill reverse takes those words', async () => {
  const d = await settledDeposit(scene);
  // What the deposit paid, read from the deposit as an operator reads it: its leg's PAID TO and FILL.
  const depositShown = await bo(['show', d.id]);
  assert.is(depositShown.code, 0, depositShown.stderr);
  assert.match(depositShown.stdout, /^LEG\s+THB\s+STATUS\s+RECEIVER\s+PAID TO\s+FILL$/m, depositShown.stdout);
  const paidTo = new RegExp(`^${d.legs[0].leg_ref}\\s.*\\s(wdr_\\w+)\\s+(leg_\\w+)$`, 'm').exec(depositShown.stdout);
  assert.ok(paidTo, depositShown.stdout);
  const [, withdrawalId, legRef] = paidTo as unknown as [string, string, string];
  const fill = (await scene.s.bo('GET', `/v1/bo/withdrawals/${withdrawalId}`)).json.withdrawal.fills.find((f: any) => f.deposit_id === d.id);
  assert.is(fill?.leg_ref, legRef, "PAID TO names the withdrawal's fill of this deposit");

  // The withdrawal: its summary, then its fills, this deposit's among them.
  const w = (await scene.s.call(scene.payer.live.api_key, 'GET', `/v1/pay/withdrawals/${withdrawalId}`)).json;
  const shown = await bo(['withdrawal', 'show', withdrawalId]);
  assert.is(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, new RegExp(`^${withdrawalId}  ${w.status}  live  THB ${(w.filled_minor / 100).toFixed(2)} of ${(w.amount_total_minor / 100).toFixed(2)} filled  merchant ${scene.payer.id} \\(`), shown.stdout);
  assert.match(shown.stdout, /^pays 004 /m, shown.stdout);
  assert.match(shown.stdout, fillsHeader, shown.stdout);
  assert.match(shown.stdout, fillRowOf(fill, d.id, fill.receipt_state), shown.stdout);

  const reversed = await bo(['fill', 'reverse', withdrawalId, legRef, '--reason-code', 'BANK_RECALL', '--note', "the payee's bank recalled the transfer it received"]);
  assert.is(reversed.code, 0, reversed.stderr);
  assert.match(reversed.stdout, new RegExp(`^${withdrawalId}: fill ${legRef} reversed \\(BANK_RECALL; `));
  assert.match((await bo(['withdrawal', 'show', withdrawalId])).stdout, fillRowOf(fill, d.id, 'reversed \\(BANK_RECALL\\)'));
});

test('bo withdrawal show: an order without a fill says so; an unknown one is the route\'s 404; --help names the fills', async () => {
  let unfilled: string | undefined;
  for (const id of scene.withdrawalIds) if ((await scene.s.bo('GET', `/v1/bo/withdrawals/${id}`)).json.withdrawal.fills.length === 0) unfilled = id;
  assert.ok(unfilled, 'the scene has a withdrawal nothing filled');
  const shown = await bo(['withdrawal', 'show', unfilled!]);
  assert.is(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /\n\nno fill yet\n$/, shown.stdout);
  const unknown = await bo(['withdrawal', 'show', 'wdr_01NOSUCHWITHDRAWAL000000']);
  assert.is(unknown.code, 1, unknown.stderr);
  assert.match(unknown.stderr, /^HTTP 404: .*"code":"resource_not_found"/);
  assert.is(unknown.stdout, '');
  const help = await bo(['withdrawal', 'show', '--help']);
  assert.match(help.stdout, /^usage: satang bo withdrawal show WITHDRAWAL_ID \[options\]/);
  assert.match(help.stdout, /LEG_REF bo fill reverse takes/);
  const reverseHelp = (await bo(['fill', 'reverse', '--help'])).stdout;
  for (const said of ['bo withdrawal show', 'PAID TO and FILL']) assert.match(reverseHelp, said);
});

test('bo fill reverse --help says the words, the reason codes and the step-up; bo --help lists it', async () => {
  const help = await bo(['fill', 'reverse', '--help']);
  assert.is(help.code, 0, help.stderr);
  assert.match(help.stdout, /^usage: satang bo fill reverse WITHDRAWAL_ID LEG_REF \[options\]/);
  for (const said of ['--reason-code CODE', 'MERCHANT_DISPUTE_LOST', '--note TEXT', '--idempotency-key KEY', 'SATANG_STEP_UP_TOKEN']) assert.match(help.stdout, said);
  assert.match((await bo(['--help'])).stdout, /\n {2}fill reverse +Reverses one fill of a withdrawal/);
});

test.run();
