// `satang bo …` run as an operator runs it (child processes against a real server sharing
// its data directory): the review queue as a table and as JSON, one deposit with its
// verdicts and timeline, a decision with a note, a search by reference (one with spaces,
// /, :, + and Thai letters too), claims, request logs and the action log naming the
// operator the CLI minted a token for (found under any spelling of it, and with what an
// endpoint update changed under its row); a page's next cursor, an empty list said in words;
// a blank word a usage error, a search refused naming TEXT, not the API's q; --help lists the
// subcommands.

import { test } from 'uvu';
import { fingerprintedUrl } from '../../server/secret-text.ts';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { getDeposit, matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, uploadJson, withdrawalsTo, type SlipScene } from '../support/slip-harness.ts';
import { addEndpoint, advance, Receiver } from '../webhooks/support.ts';
import { depositBody, freshSender } from '../support/server-harness.ts';
import { accepted, financeOperator } from '../support/finance.ts';
import { merchantActor } from '../adapters/support.ts';
import { displayWidth } from '../../scripts/cli/table.ts';

const run = promisify(execFile);
const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
let scene: SlipScene;
let env: Record<string, string>;

async function bo(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const r = await run(satangPath, ['bo', ...args], { cwd: tmpdir(), env: { ...process.env, ...env } });
    return { code: 0, out: r.stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

/**
 * A table of `out` from its header (the line starting with `first`, its first column's name)
 * to the blank line after it: each row's cells by the header's columns, a cell wrapped onto
 * the lines under its row joined by a space. Cells are cut where the header's names start,
 * so a table whose columns are not lined up under them reads wrong.
 */
function tableRows(out: string, first: string): Record<string, string>[] {
  const lines = out.slice(out.indexOf(`\n${first} `) + 1).split('\n\n')[0]!.split('\n');
  const columns = [...lines[0]!.matchAll(/\S+(?: \S+)*/g)].map((m) => ({ name: m[0], start: m.index! }));
  const rows: Record<string, string>[] = [];
  for (const line of lines.slice(1)) {
    const cells = columns.map((c, i) => line.slice(c.start, columns[i + 1]?.start ?? line.length).trim());
    if (cells[0] !== '') rows.push({});
    columns.forEach((c, i) => { if (cells[i] !== '') rows.at(-1)![c.name] = rows.at(-1)![c.name] === undefined ? cells[i]! : `${rows.at(-1)![c.name]} ${cells[i]}`; });
  }
  return rows;
}

test.before(async () => {
  scene = await slipScene();
  env = { SATANG_DATA_DIR: scene.s.dataDir, SATANG_BASE_URL: scene.s.url, SATANG_LOG_LEVEL: 'silent' };
});
test.after(async () => { await Receiver.stopAll(); await scene.s.stop(); });

test('queue, show, approve, claims, logs and actions from the command line', async () => {
  const d = await matchedDeposit(scene);
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, d, { image_sha256: sha256Hex(image), sender: { bank_code: '014', account_number: '9876543210', account_name_th: 'สมศักดิ์ มีเงิน' } }));
  await uploadFile(d.slip_upload, image);
  await scene.s.running.slipWorker.drain();

  const queue = await bo('queue');
  assert.is(queue.code, 0, queue.out);
  assert.match(queue.out, /DEPOSIT\s+MERCHANT\s+MODE\s+THB\s+AGE\s+REASONS/);
  assert.match(queue.out, new RegExp(`${d.id}.*live.*500\\.00.*SENDER_NAME_MISMATCH`));
  // Sandbox reviews apart from live ones.
  assert.match((await bo('queue', '--live')).out, new RegExp(d.id));
  assert.not.match((await bo('queue', '--sandbox')).out, new RegExp(d.id));
  const json = JSON.parse((await bo('queue', '--json')).out);
  assert.ok(json.data.some((x: any) => x.id === d.id));

  const shown = await bo('show', d.id);
  assert.is(shown.code, 0, shown.out);
  assert.match(shown.out, /VERDICT\s+EXPECTED\s+SHOWN\s+MATCH/);
  assert.match(shown.out, new RegExp(`LEG\\s+THB\\s+STATUS\\s+RECEIVER\\s+PAID TO[\\s\\S]*${d.legs[0].leg_ref}`), 'the legs, with the refs --legs takes');
  assert.match(shown.out, /sender_name\s+.*false/);
  assert.match(shown.out, /amount\s+500\.00\s+500\.00\s+true/, 'the amount verdict in baht, as the rest of the page');
  assert.match(shown.out, new RegExp(`^${d.id}  under_review  version \\d+  THB`, 'm'), 'the version bo approve --version takes');
  assert.match(shown.out, /time_window\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+07 – \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+07/, 'a time window in Bangkok time, whole');
  assert.match(shown.out, /SEQ\s+AT\s+STEP/);
  // Times as the people who read them live: Bangkok, said so (the API's UTC stays in --json).
  const shownJson = JSON.parse((await bo('show', d.id, '--json')).out);
  const createdAt = shownJson.timeline[0].at as string;
  // The receiver check whole, wrapped within its column where it is long (a table cut it at 60 characters).
  const verdictLines = shown.out.slice(shown.out.indexOf('VERDICT')).split('\n\n')[0]!;
  assert.not.match(verdictLines, '…', verdictLines);
  const receiver = shownJson.evidence.verdicts.find((v: any) => v.dimension === 'receiver');
  const fields = [...receiver.expected, receiver.shown].flatMap((o: any) => Object.entries(o).map(([k, v]) => `${k}=${v}`));
  assert.ok(fields.length >= 6 && fields.every((f) => verdictLines.includes(f)), `${JSON.stringify(fields)}\n${verdictLines}`);
  assert.ok(verdictLines.split('\n').every((l) => l.length < 160), 'wrapped, not one long line');
  assert.match(createdAt, /Z$/);
  assert.match(shown.out, `  ${new Date(Date.parse(createdAt) + 7 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ')} +07  created`);
  assert.match(queue.out, new RegExp(`${d.id}.*\\s\\d+m\\s`), 'an age in minutes under an hour');
  // The timeline a table as the verdicts: each step's cells under their header, its detail's fields wrapped in their column, whole.
  const steps = tableRows(shown.out, 'SEQ');
  assert.equal(steps.map((r) => [r.SEQ, r.STEP, r.STREAM]), shownJson.timeline.map((t: any) => [String(t.seq), t.step, t.stream ?? '-']));
  assert.ok(steps.every((r) => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+07$/.test(r.AT!)), JSON.stringify(steps.map((r) => r.AT)));
  const timelineLines = shown.out.slice(shown.out.indexOf('\nSEQ ') + 1).split('\n\n')[0]!;
  assert.not.match(timelineLines, '…', 'no detail cut');
  const detailStart = timelineLines.indexOf('DETAIL');
  assert.ok(timelineLines.split('\n').every((l) => displayWidth(l.slice(detailStart)) <= 60), `each detail line within its column:\n${timelineLines}`);
  shownJson.timeline.forEach((t: any, i: number) => {
    const detail = steps[i]!.DETAIL!.replace(/\s/g, '');
    for (const [k, v] of Object.entries(t.detail ?? {})) {
      const written = typeof v === 'string' ? (/^\d{4}-\d{2}-\d{2}T/.test(v) ? '' : v) : JSON.stringify(v);
      assert.ok(detail.includes(`${k}=${written}`.replace(/\s/g, '')), `step ${t.seq} ${t.step}: ${k} whole in ${steps[i]!.DETAIL}`);
    }
  });
  assert.ok(steps.some((r) => r.DETAIL!.length > 60), 'a detail longer than its column is there, wrapped');

  const short = await bo('approve', d.id, '--note', 'too short');
  assert.is(short.code, 1);
  assert.match(short.out, /review_note_required/);
  const malformed = await bo('approve', d.id, '--note', 'the sender changed her name at the bank', '--legs', 'leg_1:100');
  assert.is(malformed.code, 2, malformed.out);
  const unknownLeg = await bo('approve', d.id, '--note', 'the sender changed her name at the bank', '--legs', `${d.legs[0].leg_ref}=100,leg_nope=0`);
  assert.is(unknownLeg.code, 1, 'the legs reach the server, which refuses a leg the deposit does not have');
  assert.match(unknownLeg.out, /validation_error[\s\S]*leg_nope/);
  const approved = await bo('approve', d.id, '--note', 'the sender changed her name at the bank', '--sub', 'emp_cli');
  assert.is(approved.code, 0, approved.out);
  assert.match(approved.out, new RegExp(`${d.id}: settled`));

  // The ticket says "order X": found by the merchant's reference, settled now.
  const found = await bo('search', d.merchant_reference);
  assert.is(found.code, 0, found.out);
  assert.match(found.out, /OBJECT\s+ID\s+MERCHANT\s+MODE\s+STATUS/);
  assert.match(found.out, new RegExp(`deposit\\s+${d.id}\\s+${scene.shop.id}\\s+live\\s+settled\\s+500\\.00\\s+${d.merchant_reference}.*merchant_reference`));
  assert.equal(JSON.parse((await bo('search', d.merchant_reference, '--sandbox', '--json')).out).data, []);
  assert.match((await bo('search', d.merchant_reference, '--sandbox')).out, /nothing has exactly the id or reference/);

  const claims = await bo('claims', '--json');
  assert.is(claims.code, 0, claims.out);
  assert.ok(Array.isArray(JSON.parse(claims.out).data));
  const logs = await bo('logs', '--route', '/v1/bo/deposits/:id/approve');
  assert.is(logs.code, 0, logs.out);
  assert.match(logs.out, /POST\s+\/v1\/bo\/deposits\/:id\/approve\s+(200|422)/);
  // A page of the log says where the next starts, and that cursor gives the next request.
  const first = await bo('logs', '--limit', '1');
  const cursor = /^more: --cursor (\S+)$/m.exec(first.out)?.[1];
  assert.ok(cursor, first.out);
  const second = await bo('logs', '--limit', '1', '--cursor', cursor);
  assert.is(second.code, 0, second.out);
  const requestOf = (out: string) => /req_\w+/.exec(out)?.[0];
  assert.ok(requestOf(second.out) && requestOf(second.out) !== requestOf(first.out), second.out);
  // An empty list says so rather than printing a bare header.
  const none = await bo('approvals');
  assert.is(none.code, 0, none.out);
  assert.is(none.out.trim(), 'no withdrawal is waiting for approval');
  assert.is((await bo('claims', '--status', 'rejected')).out.trim(), 'no claim matches');
  assert.is((await bo('queue', '--escalated')).out.trim(), 'nothing waiting');
  const actions = await bo('actions', '--subject', 'emp_cli');
  assert.is(actions.code, 0, actions.out);
  assert.match(actions.out, new RegExp(`emp_cli\\s+POST\\s+/v1/bo/deposits/:id/approve\\s+.*${d.id}.*ok`));
  // --since takes the time as the tables print it (Bangkok, +07), and --route a pattern.
  const printedAt = /^\d+\s+(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+07)\s+emp_cli/m.exec(actions.out)![1]!;
  const since = await bo('actions', '--subject', 'emp_cli', '--since', printedAt, '--route', '/v1/bo/deposits/:id/approve');
  assert.is(since.code, 0, since.out);
  assert.match(since.out, new RegExp(`emp_cli\\s+POST\\s+/v1/bo/deposits/:id/approve`));
  // An auditor who types the operator otherwise (case, full-width) finds the same rows, as written.
  for (const spelling of ['EMP_CLI', 'Ｅｍｐ_ＣＬＩ']) assert.match((await bo('actions', '--subject', spelling)).out, new RegExp(`emp_cli\\s+POST\\s+/v1/bo/deposits/:id/approve\\s+.*${d.id}.*ok`), spelling);
});

/** A claim of a transfer without its image: held for review (NO_SLIP_IMAGE), no bank having shown its amount. */
async function claimedWithoutImage(deposit: any): Promise<void> {
  const transfer = transferFor(scene, deposit);
  await registerTransfer(scene.s, transfer);
  const claimed = await uploadJson(deposit.slip_upload, { trans_ref: transfer.trans_ref, sending_bank_code: '014', occurred_at: transfer.occurred_at });
  assert.is(claimed.status, 202, claimed.text);
  await scene.s.running.slipWorker.drain();
}

test('bo approve\'s refusal names its own options (--amount, --legs) where the API names its fields, the code kept', async () => {
  const note = 'the payee confirmed the transfer on their statement';
  const d = await matchedDeposit(scene);
  await claimedWithoutImage(d);
  assert.equal((await getDeposit(scene, d.id)).review.reasons.map((r: any) => r.code), ['NO_SLIP_IMAGE']);
  const unknown = await bo('approve', d.id, '--note', note);
  assert.is(unknown.code, 1, unknown.out);
  assert.match(unknown.out, /^HTTP 422: \{"error":\{"code":"validation_error"/m, 'the code, as every refusal says it');
  assert.match(unknown.out, /The transferred amount is unknown; give --amount as verified by the reviewer/);
  assert.not.match(unknown.out, /give amount_minor/, 'not the API\'s field, which nothing here takes');
  assert.match(unknown.out, /"path":"amount_minor"/, 'the details stay the API\'s, for scripts');
  const recorded = await bo('approve', d.id, '--note', note, '--amount', String(d.amount_minor));
  assert.is(recorded.code, 0, recorded.out);
  assert.match(recorded.out, new RegExp(`${d.id}: under_review \\(approval recorded`));

  // Two legs, each a withdrawal of its own payee: the reviewer says what each received.
  const payer = await scene.s.onboard('Two payees');
  const shop = await scene.s.onboard('Two-leg shop', payer.whiteLabelId);
  await scene.s.fund(payer.id, 1_000_000);
  await withdrawalsTo(scene.s, payer, ['6161616161', '6262626262'], 10_000, 'cli-legs');
  const created = await scene.s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 20_000, fill_preference: 'internal_only' }));
  assert.is(created.status, 201, created.text);
  const twoLegs = created.json;
  assert.is(twoLegs.legs.length, 2);
  await claimedWithoutImage(twoLegs);
  const perLeg = await bo('approve', twoLegs.id, '--note', note, '--amount', '20000');
  assert.is(perLeg.code, 1, perLeg.out);
  assert.match(perLeg.out, /"code":"validation_error".*This deposit has 2 legs waiting for money; give --legs with what each destination received/);
  const both = await bo('approve', twoLegs.id, '--note', note, '--amount', '20000', '--legs', twoLegs.legs.map((l: any) => `${l.leg_ref}=10000`).join(','));
  assert.match(both.out, /"code":"validation_error".*Give --amount or --legs, not both/);
  assert.not.match(perLeg.out + both.out, /legs\[\]|give amount_minor/);
});

test('bo claim refund, bo dispute open and admin debit name their own options where the API names its fields (--amount, --respond-by, --reason-code), the details kept', async () => {
  const note = 'the payer sent more than the order asked';
  // 550 baht for an order of 500: the excess's claim opens by itself.
  const d = await matchedDeposit(scene);
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, d, { amount_minor: d.amount_minor + 5_000, image_sha256: sha256Hex(image) }));
  await uploadFile(d.slip_upload, image);
  await scene.s.running.slipWorker.drain();
  const claimId = (await getDeposit(scene, d.id)).overpayment?.claim_id;
  assert.type(claimId, 'string');
  assert.is((await bo('claim', 'review', claimId, '--note', note)).code, 0);
  const refund = await bo('claim', 'refund', claimId, '--note', note, '--amount', '1');
  assert.is(refund.code, 1, refund.out);
  assert.match(refund.out, /^HTTP 422: \{"error":\{"code":"validation_error",.*"message":"The refund must be from [^"]*baht, --amount 5000\)\."/m);
  assert.not.match(refund.out, /amount_minor 5000/, 'not the API\'s field, which nothing here takes');
  assert.match(refund.out, /"path":"amount_minor"/, 'the details stay the API\'s, for scripts');

  const withdrawalId = /wdr_[0-9A-Z]{26}/.exec(JSON.stringify((await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`)).json))![0];
  const past = await bo('dispute', 'open', withdrawalId, '--reason-code', 'PAYEE_NOT_RECEIVED', '--amount', '10000', '--respond-by', '2020-01-01T00:00:00Z');
  assert.is(past.code, 1, past.out);
  assert.match(past.out, /"message":"--respond-by is an RFC 3339 instant in the future\."/);
  assert.match(past.out, /"path":"respond_by"/);

  // A credit's reason on a debit: the API says reason_code, admin debit's option is --reason-code.
  const debit = await run(satangPath, ['admin', 'debit', '--merchant', scene.shop.id, '--amount', '100', '--reason-code', 'FUNDING', '--note', 'a fee charged twice in November'], { cwd: tmpdir(), env: { ...process.env, ...env } })
    .then((r) => `exit 0: ${r.stdout}`, (e: { stderr: string }) => e.stderr);
  assert.match(debit, /"message":"--reason-code FUNDING is for a credit: /, debit);
  assert.match(debit, /"path":"reason_code"/);
});

test('bo claim refund takes the payer\'s account whole: --to-bank, --to-account or --to-name alone is a usage error, nothing sent (it was dropped, the refund going to the order\'s sender)', async () => {
  const note = 'the payer sent more than the order asked';
  for (const given of [['--to-bank', '014'], ['--to-name', 'สมชาย ใจดี'], ['--to-bank', '014', '--to-account', '9876543210']]) {
    const r = await bo('claim', 'refund', 'clm_01JZZZZZZZZZZZZZZZZZZZZZZZ', '--note', note, ...given);
    assert.is(r.code, 2, r.out);
    assert.match(r.out, /^satang bo claim refund: --to-bank, --to-account and --to-name name the payer's account together: give all three, or none to refund the order's sender\n\(see: satang bo claim refund --help\)/);
  }
});

test('bo search finds a reference with a slash, a colon, spaces, + and # and Thai letters, the text encoded once, spaces around it trimmed', async () => {
  // Each of these characters changes when encoded twice (a space became %2520, Thai letters %25E0…): the server was asked for another text.
  const reference = `INV/2026:7 #1+ใบแจ้งหนี้ ${randomUUID().slice(0, 8)}`;
  const created = await scene.s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ merchant_reference: reference, sender: freshSender() }));
  assert.ok(created.status === 201 || created.status === 202, created.text);
  const found = await bo('search', reference, '--json');
  assert.is(found.code, 0, found.out);
  const answer = JSON.parse(found.out);
  assert.is(answer.q, reference, 'the server was asked for the text as typed');
  assert.equal(answer.data.map((h: any) => [h.id, h.merchant_reference, h.matched_on]), [[created.json.id, reference, 'merchant_reference']]);
  const table = await bo('search', `  ${reference} `);
  assert.is(table.code, 0, table.out);
  assert.match(table.out, new RegExp(`deposit\\s+${created.json.id}\\s+${scene.shop.id}\\s+live`), 'pasted with spaces around it, as the server trims them');
});

test('bo search with a blank TEXT is a usage error, nothing sent; a TEXT too long is refused naming TEXT, not the API\'s q', async () => {
  for (const blank of ['', '   ']) {
    const r = await bo('search', blank);
    assert.is(r.code, 2, r.out);
    assert.is(r.out, 'satang bo search: TEXT is empty: give a value\n(see: satang bo search --help)\n');
  }
  const long = await bo('search', 'x'.repeat(65));
  assert.is(long.code, 1, long.out);
  assert.match(long.out, /^HTTP 422: .*"code":"validation_error".*"message":"TEXT is what to find: .*1 to 64 characters\."/);
  assert.match(long.out, /"path":"query\.q"/, 'the details stay the API\'s, for scripts');
  assert.not.match(long.out, /"message":"q /);
  const show = await bo('show', '');
  assert.is(show.code, 2, show.out);
  assert.match(show.out, /^satang bo show: DEPOSIT_ID is empty: give a value\n/);
});

test('a sending bank down from a shell: bo bank down refuses new deposits from it with the message given; bo bank up takes them again', async () => {
  const down = await bo('bank', 'down', '014', '--message', 'ธนาคารปิดปรับปรุง กรุณาใช้ธนาคารอื่น');
  assert.is(down.code, 0, down.out);
  assert.match(down.out, /bank 014: down \(ธนาคารปิดปรับปรุง/);
  try {
    const refused = await scene.s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ sender: freshSender() }));
    assert.equal([refused.status, refused.json.error.code, refused.json.error.details.public_message_th], [409, 'sender_bank_unavailable', 'ธนาคารปิดปรับปรุง กรุณาใช้ธนาคารอื่น']);
  } finally {
    const up = await bo('bank', 'up', '014');
    assert.is(up.code, 0, up.out);
    assert.match(up.out, /bank 014: available/);
  }
  const taken = await scene.s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ sender: freshSender() }));
  assert.ok(taken.status === 201 || taken.status === 202, taken.text);
  assert.is((await bo('bank', 'down', '999')).code, 1, 'no such sending bank');
});

test('bo --help lists the subcommands; a bad one is a usage error', async () => {
  const help = await bo('--help');
  assert.is(help.code, 0);
  for (const word of ['search', 'queue', 'show', 'approve', 'decline', 'approvals', 'claims', 'claim refund', 'disputes', 'dispute resolve', 'logs', 'actions']) assert.match(help.out, word);
  const bad = await bo('frobnicate');
  assert.is(bad.code, 2);
  const missing = await bo('show');
  assert.is(missing.code, 2);
});

test('bo show says until when a canceled order takes a late slip, in Bangkok time', async () => {
  const d = await matchedDeposit(scene, { end_user_ref: `u-${randomUUID()}` });
  const canceled = await scene.s.call(scene.shop.live.api_key, 'POST', `/v1/pay/deposits/${d.id}/cancel`, {});
  assert.is(canceled.status, 200, canceled.text);
  const until = canceled.json.late_slip_accepted_until as string;
  assert.match(until, /Z$/);
  const shown = await bo('show', d.id);
  assert.is(shown.code, 0, shown.out);
  assert.match(shown.out, `\nlate slips accepted until ${new Date(Date.parse(until) + 7 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ')} +07\n`);
  const open = await matchedDeposit(scene, { end_user_ref: `u-${randomUUID()}` });
  assert.not.match((await bo('show', open.id)).out, 'late slips', 'an open order has no late-slip window');
  assert.is((await scene.s.call(scene.shop.live.api_key, 'POST', `/v1/pay/deposits/${open.id}/cancel`, {})).status, 200, 'out of the way of the next order');
});

test('bo dispute show lists each evidence file with where an operator reads its bytes', async () => {
  const d = await matchedDeposit(scene);
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, d, { image_sha256: sha256Hex(image) }));
  await uploadFile(d.slip_upload, image);
  await scene.s.running.slipWorker.drain();
  const withdrawalId = /wdr_[0-9A-Z]{26}/.exec(JSON.stringify((await scene.s.bo('GET', `/v1/bo/deposits/${d.id}`)).json))![0];
  const opened = await bo('dispute', 'open', withdrawalId, '--reason-code', 'PAYEE_NOT_RECEIVED', '--amount', '10000');
  assert.is(opened.code, 0, opened.out);
  // Said as it is: a dispute holds no funds (the amount left in the fills).
  const line = /^(\S+): open, THB 100\.00 disputed \(no funds held\); evidence by \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+07$/m.exec(opened.out);
  assert.ok(line, opened.out);
  const disputeId = line![1]!;
  const owner = (await scene.s.bo('GET', `/v1/bo/withdrawals/${withdrawalId}`)).json.merchant_id;
  const key = owner === scene.payer.id ? scene.payer.live.api_key : scene.shop.live.api_key;
  const sent = await scene.s.call(key, 'POST', `/v1/pay/disputes/${disputeId}/evidence`, { text: 'Payee confirmed receipt by phone.', files: [{ name: 'receipt.pdf', content_base64: Buffer.from('%PDF-1.4 receipt').toString('base64') }] });
  assert.is(sent.status, 200, sent.text);
  const shown = await bo('dispute', 'show', disputeId);
  assert.is(shown.code, 0, shown.out);
  assert.match(shown.out, /^reason PAYEE_NOT_RECEIVED, THB 100\.00, opened \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+07 by \S+, evidence by \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+07$/m);
  assert.match(shown.out, new RegExp(`file receipt\\.pdf: 16 bytes, application/pdf, sha256 ${sha256Hex(Buffer.from('%PDF-1.4 receipt'))}\\n  GET /v1/bo/disputes/${disputeId}/files/dfile_[0-9a-f]{32}\\n?$`), shown.out);  // The shift's list of open disputes, whatever their withdrawals' status.
  const listed = await bo('disputes');
  assert.is(listed.code, 0, listed.out);
  assert.match(listed.out, /DISPUTE\s+WITHDRAWAL\s+STATUS\s+MODE\s+MERCHANT\s+THB\s+REASON\s+RESPOND BY/);
  assert.match(listed.out, new RegExp(`${disputeId}\\s+${withdrawalId}\\s+\\w+\\s+live\\s+\\S+\\s+100\\.00\\s+PAYEE_NOT_RECEIVED\\s+\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} \\+07`), listed.out);
});

test('a merchant\'s missing webhook from a shell: endpoints, deliveries, one delivery\'s attempts, a resend, disable and enable; an operator revoked', async () => {
  const receiver = await Receiver.start(() => scene.s.clock.now());
  receiver.answer(500);
  const m = await scene.s.onboard('CLI webhooks', scene.shop.whiteLabelId);
  const endpointId = await addEndpoint(scene.s, m.id, receiver.url);
  await scene.s.fund(m.id, 10_000);
  await advance(scene.s, 0);
  const endpoints = await bo('webhooks', m.id);
  assert.is(endpoints.code, 0, endpoints.out);
  assert.match(endpoints.out, new RegExp(`${endpointId}\\s+live\\s+enabled`));
  const deliveries = await bo('deliveries', endpointId, '--status', 'pending');
  assert.match(deliveries.out, /DELIVERY\s+EVENT\s+TYPE\s+STATUS/);
  const deliveryId = /(whd_\S+)/.exec(deliveries.out)![1]!;
  const one = await bo('delivery', endpointId, deliveryId);
  assert.match(one.out, /ATTEMPT\s+STARTED\s+KID\s+OUTCOME\s+ANSWER/);
  assert.match(one.out, /retry\s+500/);
  // The next attempt in Bangkok time, as every other time bo prints (the API's UTC stays in --json).
  const nextRetryAt = JSON.parse((await bo('delivery', endpointId, deliveryId, '--json')).out).next_retry_at as string;
  assert.match(nextRetryAt, /Z$/);
  assert.match(one.out, `, next attempt ${new Date(Date.parse(nextRetryAt) + 7 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ')} +07\n`);
  receiver.answer(204);
  const resent = await bo('resend', endpointId, deliveryId);
  assert.is(resent.code, 0, resent.out);
  assert.match(resent.out, /whd_\S+: a new delivery of evt_/);
  await advance(scene.s, 0);
  assert.ok(receiver.received.some((r) => r.headers['x-pg-resend'] === 'manual'), 'the resend reached the receiver');
  assert.match((await bo('webhook', 'disable', endpointId)).out, new RegExp(`${endpointId}: disabled`));
  assert.match((await bo('webhook', 'enable', endpointId)).out, new RegExp(`${endpointId}: enabled`));
  const refusedDelete = await bo('webhook', 'delete', endpointId);
  assert.ok(refusedDelete.code !== 0 && /Disable the endpoint first/.test(refusedDelete.out), refusedDelete.out);
  await bo('webhook', 'disable', endpointId);
  const deleted = await bo('webhook', 'delete', endpointId);
  assert.is(deleted.code, 0, deleted.out);
  assert.match(deleted.out, new RegExp(`${endpointId}: deleted \\(its deliveries stay readable: satang bo deliveries ${endpointId}\\)`));
  assert.is((await bo('webhooks', m.id)).out.trim(), 'this merchant has no webhook endpoint');
  // A stuck order is listed by its status; a suspended merchant with who, when and why.
  const stuck = await scene.s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', (await import('../support/server-harness.ts')).depositBody({ amount_minor: 50_000, fill_preference: 'internal_only', sender: (await import('../support/server-harness.ts')).freshSender() }));
  const awaiting = await bo('queue', '--status', stuck.json.status);
  assert.match(awaiting.out, new RegExp(stuck.json.id));
  assert.is((await scene.s.bo('POST', `/v1/bo/merchants/${m.id}/suspend`, { reason: 'webhook receiver hacked' }, { stepUp: true, sub: 'emp_risk' })).status, 200);
  const suspended = await bo('merchants', '--suspended');
  assert.match(suspended.out, new RegExp(`${m.id}.*yes\\s+emp_risk.*webhook receiver hacked`));
  const revoked = await bo('operator', 'revoke', 'emp_gone_cli', '--note', 'left the company');
  assert.is(revoked.code, 0, revoked.out);
  assert.match(revoked.out, /emp_gone_cli: tokens issued before .* are refused/);
});

test('bo actions shows what an endpoint update changed, a line per field under its row, the URL as the action log keeps it (origin and fingerprint)', async () => {
  const m = await scene.s.onboard('CLI moved hooks', scene.shop.whiteLabelId);
  const endpointId = await addEndpoint(scene.s, m.id, 'http://127.0.0.1:9/old?token=OLDCLISECRET');
  const longPath = `/new/${'receiver/'.repeat(8)}hook`; // a long path, never kept: the action log holds its fingerprint
  const moved = await scene.s.bo('POST', `/v1/bo/webhooks/${endpointId}`, { url: `http://127.0.0.1:9${longPath}?token=NEWCLISECRET`, event_types: ['deposit.settled'] }, { sub: 'emp_cli_hooks' });
  assert.is(moved.status, 200, moved.text);
  const actions = await bo('actions', '--subject', 'emp_cli_hooks', '--route', '/v1/bo/webhooks/:endpointId');
  assert.is(actions.code, 0, actions.out);
  const lines = actions.out.trimEnd().split('\n');
  assert.match(lines[1]!, new RegExp(`emp_cli_hooks\\s+POST\\s+/v1/bo/webhooks/:endpointId\\s+.*${endpointId}.*ok`), actions.out);
  assert.equal(lines.slice(2), [
    `    url: ${fingerprintedUrl('http://127.0.0.1:9/old?token=OLDCLISECRET')} → ${fingerprintedUrl(`http://127.0.0.1:9${longPath}?token=NEWCLISECRET`)}`,
    '    event_types: - → ["deposit.settled"]', // null (every event type) is -, as every table prints it
  ], actions.out);
  assert.not.match(actions.out, /CLISECRET/);
  // A row without changes gets no line of its own.
  const plain = await bo('actions', '--subject', 'emp_cli', '--route', '/v1/bo/deposits/:id/approve');
  assert.ok(plain.out.trimEnd().split('\n').every((l) => /^(ID|\d+)\s/.test(l)), plain.out);
});

test('with an operator token from elsewhere (a production issuer), a ⚑ command without a step-up token says where to get one', async () => {
  const token = await scene.s.operatorToken('emp_prod', false, ['ops_admin']);
  try {
    await run(satangPath, ['bo', 'operator', 'revoke', 'emp_nobody'], { cwd: tmpdir(), env: { ...process.env, ...env, SATANG_OPERATOR_TOKEN: token } });
    assert.unreachable('refused');
  } catch (error) {
    const e = error as { code: number; stderr: string };
    assert.is(e.code, 1);
    assert.match(e.stderr, /needs a step-up: sign in to the console, open Command line/);
  }
});

test('the approvals queue names each payout\'s mode and takes --live or --sandbox: an approver never mistakes a test payout for a real one', async () => {
  const m = await scene.s.onboard('Payouts to approve');
  await scene.s.fund(m.id, 1_000_000);
  await scene.s.fund(m.id, 1_000_000, false);
  const pending: Record<string, string> = {};
  for (const livemode of [true, false]) {
    const beneficiaryId = await accepted(scene.s, { type: 'RegisterBeneficiary', actor: financeOperator, merchantId: m.id, livemode, bankCode: '004', accountNumber: livemode ? '7000000101' : '7000000102', accountNameTh: 'สมหญิง รักดี', verified: true });
    pending[livemode ? 'live' : 'sandbox'] = await accepted(scene.s, { type: 'CreateWithdrawal', actor: merchantActor(m.id, livemode), amountMinor: 20_000n, merchantReference: `appr-${randomUUID()}`, endUserRef: 'payee', beneficiaryId, requiresApproval: true, p2pMinimumApplies: false });
  }
  const all = await bo('approvals', '--merchant', m.id);
  assert.is(all.code, 0, all.out);
  assert.match(all.out, /WITHDRAWAL\s+MODE\s+MERCHANT/);
  assert.match(all.out, new RegExp(`${pending.live}\\s+live\\s`));
  assert.match(all.out, new RegExp(`${pending.sandbox}\\s+sandbox\\s`));
  const sandboxOnly = await bo('approvals', '--merchant', m.id, '--sandbox');
  assert.ok(sandboxOnly.out.includes(pending.sandbox!) && !sandboxOnly.out.includes(pending.live!), sandboxOnly.out);
  const liveOnly = await bo('approvals', '--merchant', m.id, '--live');
  assert.ok(liveOnly.out.includes(pending.live!) && !liveOnly.out.includes(pending.sandbox!), liveOnly.out);
  assert.match((await bo('withdrawal', 'approve', '--help')).out, /--note TEXT\s+why \(optional; kept with the decision\)/);
});

test('an operator calls a withdrawal off, and rotates and withdraws a signing key, from a shell', async () => {
  const cancelable = scene.withdrawalIds.at(-1)!;
  const canceled = await bo('withdrawal', 'cancel', cancelable, '--note', 'the claim refund is stopped: the payer was paid by cash');
  assert.is(canceled.code, 0, canceled.out);
  assert.match(canceled.out, new RegExp(`${cancelable}: canceled`));
  const decided = (await scene.s.bo('GET', `/v1/bo/withdrawals/${cancelable}`)).json.decisions;
  assert.equal(decided.map((d: any) => [d.decision, d.note]), [['cancel', 'the claim refund is stopped: the payer was paid by cash']]);

  const rotated = await bo('signing-key', 'rotate', '--notice-seconds', '60');
  assert.is(rotated.code, 0, rotated.out);
  const [, next, previous] = /^(\S+): next, signs from [0-9-]+ [0-9:]+ \+07 \(after (\S+)\); \d+ announcement deliveries/m.exec(rotated.out) ?? [];
  assert.ok(next && previous, rotated.out);
  const early = await bo('signing-key', 'withdraw', next!);
  assert.ok(early.code !== 0 && /operation_not_allowed/.test(early.out), early.out);
  await advance(scene.s, 61_000);
  const withdrawn = await bo('signing-key', 'withdraw', previous!);
  assert.is(withdrawn.code, 0, withdrawn.out);
  assert.match(withdrawn.out, new RegExp(`${previous}: withdrawn at [0-9-]+ [0-9:]+ \\+07`));
  const published = (await scene.s.raw('GET', '/v1/webhooks/signing-keys')).json as { keys: { kid: string }[] };
  assert.ok(!published.keys.some((k) => k.kid === previous), 'the withdrawn key is published no more');
  const short = await bo('signing-key', 'rotate', '--notice-seconds', '10');
  assert.equal([short.code, /--notice-seconds must be a whole number of seconds from 60 to 604800/.test(short.out)], [2, true], short.out);
});

test.run();
