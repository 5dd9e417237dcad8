// One vocabulary for reasons and notes across `satang admin` and `satang bo`, run as an operator
// runs them (child processes against a real server sharing its data directory), each checked
// in what the server recorded: a code is --reason-code CODE (the API's reason_code, or bo
// queue's reason filter), free text --note TEXT (admin's adjustments and suspensions fill the
// API's free-text reason with it, as bo operator revoke does). Each family's first spelling
// is still taken where it meant one thing there: bo's --reason as --reason-code, admin's
// --reason (and bo operator revoke's) as --note — and lands in the same field. The help shows
// the canonical spelling only; both spellings of one option at once are a usage error, nothing
// sent.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { settledDeposit, slipScene, type SlipScene } from '../support/slip-harness.ts';
import { satang, type Ran } from '../support/cli.ts';

let scene: SlipScene;
let env: Record<string, string>;

const cli = (args: readonly string[]): Promise<Ran> => satang(args, env);

test.before(async () => {
  scene = await slipScene();
  env = { SATANG_DATA_DIR: scene.s.dataDir, SATANG_BASE_URL: scene.s.url, SATANG_LOG_LEVEL: 'silent' };
});
test.after(async () => { await scene.s.stop(); });

/** The merchant's balance transaction `id` as the back office reads it (reason_code, the operator's note). */
async function boBalanceTransaction(merchantId: string, id: string): Promise<any> {
  const r = await scene.s.bo('GET', `/v1/bo/merchants/${merchantId}/balance-transactions?livemode=true&limit=200`, undefined, { roles: ['finance'] });
  assert.is(r.status, 200, r.text);
  const row = r.json.data.find((t: any) => t.id === id);
  assert.ok(row, `${id} among ${JSON.stringify(r.json.data.map((t: any) => t.id))}`);
  return row;
}

test('admin fund and debit: --reason-code is the code the merchant sees, --note the operator\'s words; --reason is --note', async () => {
  const shop = scene.shop.id;
  for (const [args, code, note] of [
    [['fund', '--reason-code', 'GOODWILL_CREDIT', '--note', 'goodwill after the outage on Monday'], 'GOODWILL_CREDIT', 'goodwill after the outage on Monday'],
    [['fund', '--reason-code', 'FUNDING', '--reason', 'the older spelling of the note'], 'FUNDING', 'the older spelling of the note'],
    [['debit', '--reason-code', 'FEE_CORRECTION', '--note', 'a fee charged twice on Tuesday'], 'FEE_CORRECTION', 'a fee charged twice on Tuesday'],
    [['debit', '--reason', 'a debit noted the older way'], 'MANUAL_ADJUSTMENT', 'a debit noted the older way'],
  ] as const) {
    const r = await cli(['admin', ...args, '--merchant', shop, '--amount', '100']);
    assert.is(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    const recorded = await boBalanceTransaction(shop, JSON.parse(r.stdout).id);
    assert.equal([recorded.reason_code, recorded.note], [code, note], `${args.join(' ')}: ${JSON.stringify(recorded)}`);
  }
});

test('admin merchant suspend: --note is why, kept with the suspension; --reason is --note', async () => {
  for (const [option, why] of [['--note', 'its webhook receiver was hacked'], ['--reason', 'suspended with the older spelling']] as const) {
    const m = await scene.s.onboard(`Suspended by ${option}`, scene.shop.whiteLabelId);
    const r = await cli(['admin', 'merchant', 'suspend', '--merchant', m.id, option, why]);
    assert.is(r.code, 0, r.stderr);
    const listed = (await scene.s.bo('GET', '/v1/bo/merchants?suspended=true&limit=200', undefined, { roles: ['support'] })).json.data.find((x: any) => x.id === m.id);
    assert.is(listed?.suspension?.reason, why, JSON.stringify(listed));
  }
});

test('bo dispute open: --reason-code is the dispute\'s reason_code; --reason is --reason-code', async () => {
  await settledDeposit(scene);
  const withdrawalId = scene.withdrawalIds[0]!;
  for (const [option, code] of [['--reason-code', 'PAYEE_NOT_RECEIVED'], ['--reason', 'WRONG_AMOUNT']] as const) {
    const opened = await cli(['bo', 'dispute', 'open', withdrawalId, option, code, '--amount', '100', '--json']);
    assert.is(opened.code, 0, opened.stderr);
    const disputeId = JSON.parse(opened.stdout).id as string;
    const recorded = await scene.s.bo('GET', `/v1/bo/disputes/${disputeId}`, undefined, { roles: ['support'] });
    assert.is(recorded.json.dispute.reason_code, code, recorded.text);
    const resolved = await cli(['bo', 'dispute', 'resolve', disputeId, '--outcome', 'withdrawn', '--note', 'the payee found the transfer after all']);
    assert.is(resolved.code, 0, resolved.stderr);
  }
});

test('bo operator revoke: --note is why, kept with the revocation; --reason, its first spelling, too', async () => {
  for (const [option, why] of [['--note', 'left the company in March'], ['--reason', 'revoked with the older spelling']] as const) {
    const sub = `emp_gone_${option.slice(2)}`;
    const r = await cli(['bo', 'operator', 'revoke', sub, option, why, '--json']);
    assert.is(r.code, 0, r.stderr);
    assert.is(JSON.parse(r.stdout).reason, why, r.stdout);
    const kept = scene.s.running.store.db.prepare('SELECT reason FROM operator_revocations WHERE sub = ?').pluck(true).get(sub);
    assert.is(kept, why, 'kept with the revocation');
  }
});

test('the help names --reason-code and --note only; two spellings of one option are a usage error, nothing sent', async () => {
  for (const [command, says] of [
    [['admin', 'fund'], ['--reason-code CODE', '--note TEXT']], [['admin', 'debit'], ['--reason-code CODE', '--note TEXT']], [['admin', 'merchant', 'suspend'], ['--note TEXT']],
    [['bo', 'reverse'], ['--reason-code CODE', '--note TEXT']], [['bo', 'fill', 'reverse'], ['--reason-code CODE', '--note TEXT']], [['bo', 'dispute', 'open'], ['--reason-code CODE']],
    [['bo', 'queue'], ['--reason-code CODE']], [['bo', 'operator', 'revoke'], ['--note TEXT']],
  ] as const) {
    const help = await cli([...command, '--help']);
    assert.is(help.code, 0, help.stderr);
    for (const said of says) assert.ok(help.stdout.includes(said), `${command.join(' ')} --help: ${help.stdout}`);
    assert.not.match(help.stdout, /--reason(?![-\w])/, `${command.join(' ')} --help names --reason`);
  }
  const journal = (): number => scene.s.running.store.db.prepare('SELECT count(*) FROM journal').pluck(true).get() as number;
  const before = journal();
  const both = await cli(['admin', 'fund', '--merchant', scene.shop.id, '--amount', '100', '--note', 'one', '--reason', 'two']);
  assert.equal([both.code, both.stdout], [2, '']);
  assert.match(both.stderr, /^satang admin fund: --note and --reason are one option \(--note\): give it once\n/);
  const twice = await cli(['bo', 'dispute', 'open', scene.withdrawalIds[0]!, '--reason-code', 'PAYEE_NOT_RECEIVED', '--reason', 'WRONG_AMOUNT', '--amount', '100']);
  assert.equal([twice.code, twice.stdout], [2, '']);
  assert.match(twice.stderr, /^satang bo dispute open: --reason-code and --reason are one option \(--reason-code\): give it once\n/);
  assert.is(journal(), before, 'nothing sent');
});

test.run();
