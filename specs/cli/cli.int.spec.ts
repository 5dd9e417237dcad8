// The satang command line run as a user runs it: `scripts/satang …` as child processes
// against a real server (TestServer, its clock set to the wall clock the CLI signs and
// mints tokens with) sharing its data directory. Checks that --help and bad arguments
// never act (no merchant, no journal entry, no token — none for a sub the server would
// refuse either —, no server, no rebuild) and that `call` hands over the answer's bytes as
// received (a slip image stays an image); that `admin merchant create --out` says what its
// file holds (in production, no live key yet).

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes, randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer } from '../../server/main.ts';
import { depositBody, externalIssuer, TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { waitForProjections } from '../support/projections.ts';
import { pngSlip, receiver, uploadFile, type Capability } from '../support/slip-harness.ts';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
/** A --help or a refused argument must end the process long before this. */
const exitWaitMs = 15_000;

interface Ran { code: number | null; stdout: Buffer; stderr: string; timedOut: boolean }

function satang(args: readonly string[], env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve) => {
    // From outside the repository, as a user with scripts/satang on the PATH would.
    const child = spawn(satangPath, args, { cwd: tmpdir(), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '', timedOut = false;
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, exitWaitMs);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout: Buffer.concat(out), stderr, timedOut }); });
  });
}

interface Scene { s: TestServer; env: Record<string, string>; shop: MerchantKeys }

async function scene(): Promise<Scene> {
  const s = await TestServer.start({}, undefined, { slipWorker: 'manual' });
  s.clock.set(Date.now()); // the CLI signs and mints on the wall clock
  const shop = await s.onboard('Shop');
  await waitForProjections(s.dataDir, s.running.store.world.lastSeq); // so that projections.db is at rest
  return { s, shop, env: { SATANG_DATA_DIR: s.dataDir, SATANG_BASE_URL: s.url, SATANG_LOG_LEVEL: 'silent' } };
}

/** What an action would change: journal entries, merchants, projections.db on disk. */
function footprint(sc: Scene): string {
  const files = ['projections.db', 'projections.db-wal'].map((f) => {
    try { const st = statSync(join(sc.s.dataDir, f)); return `${f}:${st.size}:${st.mtimeMs}`; } catch { return `${f}:none`; }
  });
  return JSON.stringify({ seq: sc.s.running.store.world.lastSeq, merchants: sc.s.running.store.world.merchants.size, files });
}

/**
 * The footprint once it has stopped moving (the same for 1 s): the read side may still write
 * a page after its positions reached the journal's end (seen on a loaded machine).
 */
async function footprintAtRest(sc: Scene): Promise<string> {
  let last = footprint(sc);
  for (let stable = 0; stable < 10;) {
    await new Promise((r) => setTimeout(r, 100));
    const now = footprint(sc);
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
  return last;
}

/** Runs `each` over the items, a few at a time (each one is a node process start). */
async function inParallel<T>(items: readonly T[], each: (item: T) => Promise<void>, width = 4): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await each(items[next++]!);
  }));
}

const helpCases: readonly (readonly string[])[] = [
  [], ['--help'],
  ['admin', '--help'], ['admin', 'merchant', '--help'],
  ...['white-label create', 'gateway-route propose', 'gateway-route approve', 'fees show', 'fees propose', 'fees approve', 'merchant create', 'merchant suspend', 'merchant unsuspend', 'fund', 'beneficiary create', 'sender create', 'key create', 'key revoke', 'webhook create', 'clock advance', 'clock show']
    .map((words) => ['admin', ...words.split(' '), '--help']),
  ['admin', 'merchant', 'create', '--name', 'Helped', '--help'],
  ['call', '--help'], ['call', 'GET', '/v1/pay/balance', '--help'],
  ['token', '--sub', 'emp_x', '-h'],
  ['verify', '--help'],
  ['rekey', '--help'], ['doctor', '--help'], ['backup', '--help'], ['backup', '--to', '/nonexistent/never-made', '--help'], ['restore', '--help'],
  ['bank-sim', '--port', '0', '--help'],
  ['projections', '--help'], ['projections', 'rebuild', '--help'], ['projections', 'status', '--help'],
  ['projector', '--help'],
  ['report', '--help'], ['report', 'statement', '--help'], ['report', 'statement-lines', '--help'], ['report', 'account-lines', '--help'], ['report', 'trial-balance', '--help'], ['report', 'fees', '--help'], ['report', 'disputes', '--help'], ['report', 'receiving-account', '--help'],
  ['reconcile', '--help'], ['reconcile', '--key', 'sk_live_x', '--help'],
];

const help = suite('satang --help');

help('every command and subcommand: --help prints its usage, exits 0 at once and changes nothing', async () => {
  const sc = await scene();
  try {
    const before = await footprintAtRest(sc);
    await inParallel(helpCases, async (args) => {
      const r = await satang(args, sc.env);
      const label = `satang ${args.join(' ')}`;
      assert.not.ok(r.timedOut, `${label} did not exit (a server left running?)`);
      assert.is(r.code, 0, `${label}: ${r.stderr}`);
      const out = r.stdout.toString('utf8');
      assert.match(out, /^usage: /, `${label} printed ${out}`);
      assert.not.match(out, /eyJ[\w-]+\.[\w-]+\./, `${label} printed a token`);
      assert.not.match(out, /"id":|listening/, `${label} acted: ${out}`);
    });
    assert.is(footprint(sc), before, 'a --help changed the journal, the merchants or projections.db');
    // A subcommand's help lists its options, e.g. the webhook's --endpoint-url.
    const webhookHelp = (await satang(['admin', 'webhook', 'create', '--help'], sc.env)).stdout.toString();
    assert.match(webhookHelp, /--endpoint-url URL/);
    // The endpoint's answer has no kid or public key: the help says where they are.
    assert.match(webhookHelp, /GET \/v1\/webhooks\/signing-keys/);
    assert.not.match(webhookHelp, /signing details/);
  } finally {
    await sc.s.stop();
  }
});

help('an unknown option, a missing value or a stray word: exit 2, an error naming it, no side effect', async () => {
  const sc = await scene();
  try {
    const junkKey = join(mkdtempSync(join(tmpdir(), 'satang-junk-')), 'junk-key');
    writeFileSync(junkKey, 'not a key\n', { mode: 0o600 });
    const cases: readonly [readonly string[], RegExp][] = [
      [['admin', 'merchant', 'create', '--name', 'Bogus', '--bogus'], /unknown option '--bogus'/i],
      [['admin', 'merchant', 'create', '--name'], /--name.*argument missing|--name/i],
      [['admin', 'merchant', 'create', 'Shop2'], /unexpected argument 'Shop2'/],
      [['admin', 'fund', '--merchant', sc.shop.id, '--amount', '12x'], /--amount must be a whole number of satang, 1 or more, not '12x'/],
      [['admin', 'merchant', 'make'], /'merchant make' is not a subcommand/],
      [['token', '--bogus'], /unknown option '--bogus'/i],
      // A sub the server's token check refuses (core/operators.ts operatorIdProblem) makes no token, in one line.
      [['token', '--sub', 'emp_x\u200b'], /^satang token: --sub cannot name an operator: it carries an invisible character \(U\+200B\)[^\n]*\n$/],
      [['token', '--sub', 'emp_x ', '--step-up'], /^satang token: --sub cannot name an operator: it has white space at an end[^\n]*\n$/],
      [['bo', 'actions', '--sub', 'emp\u00adx'], /^satang bo: --sub cannot name an operator: it carries an invisible character \(U\+00AD\)[^\n]*\n$/],
      [['projections', 'rebuild', '--bogus'], /unknown option '--bogus'/i],
      [['bank-sim', '--bogus'], /unknown option '--bogus'/i],
      [['backup'], /^satang backup: --to is required\n\(see: satang backup --help\)/],
      [['rekey'], /--new-key-file is required/],
      [['rekey', '--new-key-file', junkKey], /--new-key-file .*junk-key must hold the base64 of 32 bytes/],
      [['restore', '--from'], /--from.*argument missing|--from/i],
      [['call', 'GET', '/v1/pay/balance', '--key', sc.shop.live.api_key, '--bogus'], /unknown option '--bogus'/i],
      [['call', 'POST', '/v1/pay/deposits', '--key', sc.shop.live.api_key, '--data', '{oops'], /--data is not JSON/],
    ];
    const before = footprint(sc);
    await inParallel(cases, async ([args, message]) => {
      const r = await satang(args, sc.env);
      const label = `satang ${args.join(' ')}`;
      assert.not.ok(r.timedOut, `${label} did not exit`);
      assert.is(r.code, 2, `${label} exited ${r.code}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, message, `${label}: ${r.stderr}`);
      assert.is(r.stdout.length, 0, `${label} printed ${r.stdout}`);
    });
    assert.is(footprint(sc), before, 'a refused command changed something');
  } finally {
    await sc.s.stop();
  }
});

help('a reader that closes the pipe early (`| head`): the CLI stops quietly, exit 0, no EPIPE trace', async () => {
  // The read end is closed before the CLI writes its first line, so every write meets EPIPE.
  const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(satangPath, ['scenarios'], { cwd: tmpdir(), env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stderr }));
  });
  assert.is(r.stderr, '');
  assert.is(r.code, 0);
});

help('DESIGN.md\'s example: admin merchant create --json prints the server\'s JSON answer', async () => {
  const sc = await scene();
  try {
    const r = await satang(['admin', 'merchant', 'create', '--name', 'Shop', '--json'], sc.env);
    assert.is(r.code, 0, r.stderr);
    const answer = JSON.parse(r.stdout.toString());
    assert.match(answer.id, /^mch_/);
    assert.match(answer.keys.sandbox.api_key, /^sk_test_/);
    // The business time a README walkthrough puts in occurred_at on a manual clock.
    const clock = await satang(['admin', 'clock', 'show'], sc.env);
    assert.is(clock.code, 0, clock.stderr.toString());
    const shown = JSON.parse(clock.stdout.toString());
    assert.equal([shown.now, shown.clock], [new Date(sc.s.clock.now()).toISOString(), 'manual']);
  } finally {
    await sc.s.stop();
  }
});

help.run();

const call = suite('satang call');

/** A deposit with an uploaded PNG slip: a withdrawing merchant gives it a destination. */
async function depositWithSlip(sc: Scene): Promise<{ id: string; image: Buffer }> {
  const payer = await sc.s.onboard('Payer', sc.shop.whiteLabelId);
  await sc.s.fund(payer.id, 5_000_000);
  const ben = await sc.s.beneficiary(payer.id, true, receiver.account_number);
  const w = await sc.s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 1_000_000, currency: 'THB', merchant_reference: `w-${randomUUID()}`, end_user_ref: 'payee-1', beneficiary_id: ben });
  assert.is(w.status, 201, w.text);
  const d = await sc.s.call(sc.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ fill_preference: 'internal_only' }));
  assert.is(d.status, 201, d.text);
  // Every byte value, so any text decoding on the way would show.
  const image = Buffer.concat([pngSlip(), Buffer.from(Array.from({ length: 256 }, (_, i) => i))]);
  const r = await uploadFile(d.json.slip_upload as Capability, image, { fileType: 'image/png', filename: 'slip.png' });
  assert.is(r.status, 202, r.text);
  return { id: d.json.id, image };
}

call('--output FILE and a piped stdout get the slip image byte for byte', async () => {
  const sc = await scene();
  const dir = mkdtempSync(join(tmpdir(), 'satang-cli-'));
  try {
    const { id, image } = await depositWithSlip(sc);
    const file = join(dir, 'slip.png');
    const saved = await satang(['call', 'GET', `/v1/pay/deposits/${id}/slip`, '--key', sc.shop.live.api_key, '--output', file], sc.env);
    assert.is(saved.code, 0, saved.stderr);
    assert.ok(readFileSync(file).equals(image), 'the file differs from the uploaded image');
    const piped = await satang(['call', 'GET', `/v1/pay/deposits/${id}/slip`, '--key', sc.shop.live.api_key], sc.env);
    assert.is(piped.code, 0, piped.stderr);
    assert.ok(piped.stdout.equals(image), 'stdout differs from the uploaded image');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await sc.s.stop();
  }
});

call('-i shows the status line and the headers, then the body', async () => {
  const sc = await scene();
  try {
    const { id } = await depositWithSlip(sc);
    const r = await satang(['call', '-i', 'GET', `/v1/pay/deposits/${id}`, '--key', sc.shop.live.api_key], sc.env);
    assert.is(r.code, 0, r.stderr);
    const out = r.stdout.toString('utf8');
    const [head = '', body = ''] = out.split('\r\n\r\n');
    const lines = head.split('\r\n');
    assert.is(lines[0], 'HTTP/1.1 200 OK');
    assert.ok(lines.some((l) => /^content-type: application\/json/i.test(l)), head);
    assert.is(JSON.parse(body).id, id);
    const image = await satang(['call', '--include', 'GET', `/v1/pay/deposits/${id}/slip`, '--key', sc.shop.live.api_key], sc.env);
    assert.match(image.stdout.toString('latin1'), /^HTTP\/1\.1 200 OK\r\n[\s\S]*content-type: image\/png\r\n/i);
    // A refused call: the status line still says what happened, and the exit code is 1.
    const refused = await satang(['call', '-i', 'GET', '/v1/pay/deposits/dep_nope', '--key', sc.shop.live.api_key], sc.env);
    assert.is(refused.code, 1);
    assert.match(refused.stdout.toString(), /^HTTP\/1\.1 404 /);
  } finally {
    await sc.s.stop();
  }
});

call('admin key create --out FILE keeps the secret out of the terminal: the file (0600) holds it, stdout only the key id', async () => {
  const sc = await scene();
  const dir = mkdtempSync(join(tmpdir(), 'satang-cli-'));
  try {
    const file = join(dir, 'keys', 'rotated.json');
    const r = await satang(['admin', 'key', 'create', '--merchant', sc.shop.id, '--out', file], sc.env);
    assert.is(r.code, 0, r.stderr.toString());
    const printed = JSON.parse(r.stdout.toString());
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal([printed.key_id, printed.saved_to], [saved.key_id, file]);
    assert.not.ok(r.stdout.toString().includes(saved.api_key), 'the secret is not printed');
    assert.is(statSync(file).mode & 0o777, 0o600);
    assert.is((await sc.s.call(saved.api_key, 'GET', '/v1/pay/balance')).status, 200, 'the saved key works');
    // Again with the same file: refused before anything is asked of the server; the file keeps its key.
    const keysBefore = (await sc.s.bo('GET', `/v1/bo/merchants/${sc.shop.id}/keys`, undefined, { roles: ['ops_admin'] })).json.data.length;
    const again = await satang(['admin', 'key', 'create', '--merchant', sc.shop.id, '--out', file], sc.env);
    assert.is(again.code, 1);
    assert.match(again.stderr.toString(), /exists already/);
    assert.is(JSON.parse(readFileSync(file, 'utf8')).api_key, saved.api_key);
    assert.is((await sc.s.bo('GET', `/v1/bo/merchants/${sc.shop.id}/keys`, undefined, { roles: ['ops_admin'] })).json.data.length, keysBefore, 'no key minted for nobody');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await sc.s.stop();
  }
});

call('admin merchant create --out FILE: the note says what the file holds, the live and sandbox keys in development, the sandbox key only in production', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-cli-'));
  const created = async (env: Record<string, string>, name: string) => {
    const file = join(dir, `${name}.json`);
    const r = await satang(['admin', 'merchant', 'create', '--name', name, '--out', file], env);
    assert.is(r.code, 0, r.stderr);
    return { note: JSON.parse(r.stdout.toString()).note as string, keys: JSON.parse(readFileSync(file, 'utf8')).keys };
  };
  const sc = await scene();
  try {
    const development = await created(sc.env, 'Developed');
    assert.match(development.keys.live.api_key, /^sk_live_/);
    assert.match(development.note, /^the file holds the live and sandbox secret keys/);
  } finally {
    await sc.s.stop();
  }
  // Production: its own data dir and issuer (no development issuer to mint from), the system clock.
  const dataDir = join(dir, 'production');
  const issuer = await externalIssuer(dir);
  const prod = await startServer({
    SATANG_ENV: 'production', SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_LOG_LEVEL: 'silent',
    SATANG_SLIP_PROVIDER_URL: 'http://127.0.0.1:9', SATANG_MASTER_KEY: randomBytes(32).toString('base64'), ...issuer.env,
  });
  try {
    const production = await created({ SATANG_BASE_URL: prod.url, SATANG_DATA_DIR: dataDir, SATANG_OPERATOR_TOKEN: await issuer.mint('emp_alice'), SATANG_LOG_LEVEL: 'silent' }, 'Certifying');
    assert.is(production.keys.live, null, 'no live key before certification');
    assert.match(production.keys.sandbox.api_key, /^sk_test_/);
    assert.match(production.note, /^the file holds the sandbox secret key \(mode 0600\)/);
    assert.not.match(production.note, /live and sandbox/);
    assert.match(production.note, /certification/);
  } finally {
    await prod.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

call.run();

const fund = suite('satang admin fund');

fund('a live credit that brings what its operator credited alone in 24 hours to 100,000 baht is proposed: the CLI says why and what the second operator runs, and that runs', async () => {
  const sc = await scene();
  try {
    const first = await satang(['admin', 'fund', '--merchant', sc.shop.id, '--amount', '6000000', '--sub', 'emp_maker'], sc.env);
    assert.is(first.code, 0, first.stderr);
    assert.is(JSON.parse(first.stdout.toString()).object, 'balance_transaction');
    const second = await satang(['admin', 'fund', '--merchant', sc.shop.id, '--amount', '5000000', '--sub', 'emp_maker'], sc.env);
    assert.is(second.code, 0, second.stderr);
    const proposal = JSON.parse(second.stdout.toString());
    assert.equal([proposal.object, proposal.proposer_recent_credits_minor], ['adjustment_proposal', 6_000_000]);
    assert.match(second.stderr, /^proposed, not posted: with the 60000\.00 baht you credited alone in the last 24 hours this reaches 100,000 baht, so it is posted when a second ops_admin approves it/);
    const printed = /scripts\/satang (admin adjustment approve .*) --sub OTHER_OPERATOR/.exec(second.stderr)![1]!.split(' ');
    const approved = await satang([...printed, '--sub', 'emp_checker'], sc.env);
    assert.is(approved.code, 0, approved.stderr);
    assert.is(JSON.parse(approved.stdout.toString()).proposed_by, 'emp_maker');
    assert.is((await sc.s.bo('GET', `/v1/bo/merchants/${sc.shop.id}/balance`)).json.live.available_minor, 11_000_000);
  } finally {
    await sc.s.stop();
  }
});

fund.run();

const fees = suite('satang admin fees');

fees('one operator proposes a fee schedule, a second approves it naming its figures, and show prints the one in force; a fraction is refused before sending', async () => {
  const sc = await scene();
  try {
    const wl = sc.shop.whiteLabelId;
    const fraction = await satang(['admin', 'fees', 'propose', '--white-label', wl, '--deposit-bps', '1.5', '--withdrawal-fee', '1500'], sc.env);
    assert.is(fraction.code, 2);
    assert.match(fraction.stderr, "--deposit-bps must be a whole number of basis points from 0 to 10000, not '1.5'");
    const figures = ['--white-label', wl, '--deposit-bps', '180', '--withdrawal-fee', '1500', '--deposit-min', '5000'];
    const proposed = await satang(['admin', 'fees', 'propose', ...figures, '--sub', 'emp_maker'], sc.env);
    assert.is(proposed.code, 0, proposed.stderr);
    assert.equal(JSON.parse(proposed.stdout.toString()).status, 'pending_approval');
    const waiting = JSON.parse((await satang(['admin', 'fees', 'show', '--white-label', wl], sc.env)).stdout.toString());
    // An unknown white label is the server's 404, said as every refused answer (stderr, exit 1, stdout empty).
    const unknown = await satang(['admin', 'fees', 'show', '--white-label', 'wl_nope'], sc.env);
    assert.equal([unknown.code, unknown.stdout.toString()], [1, ''], unknown.stderr);
    assert.match(unknown.stderr, /^HTTP 404: \{"error":\{"code":"resource_not_found"/);
    assert.equal([waiting.fee_schedule.deposit_processing_fee_bps, waiting.fee_schedule_proposal.deposit_min_minor], [150, 5_000]);
    const unnamed = await satang(['admin', 'fees', 'approve', '--white-label', wl, '--deposit-bps', '180', '--withdrawal-fee', '1500', '--sub', 'emp_checker'], sc.env);
    assert.equal([unnamed.code, /HTTP 422/.test(unnamed.stderr), /deposit_min_minor/.test(unnamed.stderr)], [1, true, true], unnamed.stderr);
    const approved = await satang(['admin', 'fees', 'approve', ...figures, '--sub', 'emp_checker'], sc.env);
    assert.is(approved.code, 0, approved.stderr);
    const shown = JSON.parse((await satang(['admin', 'fees', 'show', '--white-label', wl], sc.env)).stdout.toString());
    assert.equal([shown.fee_schedule.deposit_processing_fee_bps, shown.fee_schedule.withdrawal_fixed_fee_minor, shown.fee_schedule.deposit_min_minor, shown.fee_schedule_proposal], [180, 1_500, 5_000, null]);
    // A withdrawal maximum set, then back to none (the API's stand-in, 9007199254740991), both through the CLI.
    for (const max of ['50000000', '9007199254740991']) {
      const limit = ['--white-label', wl, '--deposit-bps', '180', '--withdrawal-fee', '1500', '--withdrawal-max', max];
      assert.is((await satang(['admin', 'fees', 'propose', ...limit, '--sub', 'emp_maker'], sc.env)).code, 0);
      const set = await satang(['admin', 'fees', 'approve', ...limit, '--sub', 'emp_checker'], sc.env);
      assert.is(set.code, 0, set.stderr);
      assert.is(JSON.parse(set.stdout.toString()).withdrawal_max_minor, Number(max));
    }
    // A VAT rate, in basis points, proposed and approved as the other figures; out of bounds refused before sending.
    const tooHigh = await satang(['admin', 'fees', 'propose', '--white-label', wl, '--deposit-bps', '180', '--withdrawal-fee', '1500', '--deposit-vat-bps', '10001'], sc.env);
    assert.equal([tooHigh.code, /--deposit-vat-bps must be a whole number of basis points from 0 to 10000/.test(tooHigh.stderr)], [2, true], tooHigh.stderr);
    const vat = ['--white-label', wl, '--deposit-bps', '180', '--withdrawal-fee', '1500', '--withdrawal-vat-bps', '1000'];
    assert.is((await satang(['admin', 'fees', 'propose', ...vat, '--sub', 'emp_maker'], sc.env)).code, 0);
    const vatSet = await satang(['admin', 'fees', 'approve', ...vat, '--sub', 'emp_checker'], sc.env);
    assert.is(vatSet.code, 0, vatSet.stderr);
    const vatShown = JSON.parse((await satang(['admin', 'fees', 'show', '--white-label', wl], sc.env)).stdout.toString()).fee_schedule;
    assert.equal([vatShown.withdrawal_vat_bps, vatShown.deposit_vat_bps], [1_000, 700]);
  } finally {
    await sc.s.stop();
  }
});

fees.run();
