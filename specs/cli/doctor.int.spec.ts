// `satang doctor` run as an operator runs it (a child process) against a real server's data
// dir and URL: all OK but the backup (WARN: none yet) on a fresh server; OK once a verified
// backup is noted; FAIL (exit 1) with a master key that does not open the data dir, and with
// a file left readable by others, and with a data dir that does not exist (a typo, the wrong
// cwd: it used to be a WARN, exit 0); WARN when the server does not answer. It writes nothing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newerDataDir } from '../support/newer-journal.ts';
import { spawn } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/ports.ts';
import { publicKeySetJson, TestServer } from '../support/server-harness.ts';
import { startServer } from '../../server/main.ts';
import { settled } from '../../core/handler/handle.ts';
import { operator } from '../support/core-harness.ts';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));
let s: TestServer;
let dir: string;

function satang(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(satangPath, args, { cwd: tmpdir(), env: { ...process.env, SATANG_LOG_LEVEL: 'silent', SATANG_NATS_URL: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const doctor = async (env: Record<string, string> = {}, url = s.url) => {
  const r = await satang(['doctor', '--data-dir', s.dataDir, '--url', url, '--json'], env);
  return { code: r.code, levels: Object.fromEntries((JSON.parse(r.stdout).checks as { check: string; level: string }[]).map((c) => [c.check, c.level])), raw: r.stdout + r.stderr };
};

/**
 * What doctor must not change: which files the data dir holds, and every file but the
 * databases byte for byte in size and time (the running server itself writes its databases
 * at any moment: its request log is written behind, its WALs checkpointed).
 */
const footprint = () => readdirSync(s.dataDir).filter((f) => !/-(wal|shm)$/.test(f)).sort()
  .map((f) => { const st = statSync(join(s.dataDir, f)); return /\.db$/.test(f) || !st.isFile() ? f : `${f}:${st.size}:${st.mtimeMs}`; }).join(',');

test.before(async () => {
  s = await TestServer.start();
  await s.onboard('Shop');
  dir = mkdtempSync(join(tmpdir(), 'satang-doctor-'));
});
test.after(async () => {
  await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a fresh server: everything OK but the backup, which is not taken yet; after a backup, OK too', async () => {
  const first = await doctor();
  assert.is(first.code, 0, first.raw);
  assert.equal(first.levels, { config: 'OK', 'master key': 'OK', clock: 'OK', 'at rest': 'OK', disk: first.levels.disk, backup: 'WARN', server: 'OK' });
  assert.ok(['OK', 'WARN'].includes(first.levels.disk!));
  const backedUp = await satang(['backup', '--to', join(dir, 'b1'), '--data-dir', s.dataDir]);
  assert.is(backedUp.code, 0, backedUp.stdout + backedUp.stderr);
  assert.is((await doctor()).levels.backup, 'OK');
  // The note outlives the backup a rotation deleted: doctor looks at the backup, not the note.
  rmSync(join(dir, 'b1'), { recursive: true, force: true });
  const gone = await doctor();
  assert.is(gone.levels.backup, 'WARN', gone.raw);
  assert.match(gone.raw, /is no longer at/);
});

test('after a rekey, a last backup sealed with the retired key is a WARN saying so: it restores only with that key', async () => {
  // A stopped copy of the server's data dir (a restore of its backup), backed up, then rekeyed.
  const backedUp = await satang(['backup', '--to', join(dir, 'for-rekey'), '--data-dir', s.dataDir]);
  assert.is(backedUp.code, 0, backedUp.stdout + backedUp.stderr);
  const copy = join(dir, 'rekeyed');
  const restored = await satang(['restore', '--from', join(dir, 'for-rekey'), '--data-dir', copy], { SATANG_MASTER_KEY_FILE: `${s.dataDir}.master-key` });
  assert.is(restored.code, 0, restored.stdout + restored.stderr);
  const before = await satang(['backup', '--to', join(dir, 'before-rekey'), '--data-dir', copy], { SATANG_MASTER_KEY_FILE: `${s.dataDir}.master-key` });
  assert.is(before.code, 0, before.stdout + before.stderr);
  const check = async (keyFile: string) => {
    const r = await satang(['doctor', '--data-dir', copy, '--url', 'http://127.0.0.1:9', '--json'], { SATANG_MASTER_KEY_FILE: keyFile });
    return (JSON.parse(r.stdout).checks as { check: string; level: string; detail: string }[]).find((c) => c.check === 'backup')!;
  };
  assert.is((await check(`${s.dataDir}.master-key`)).level, 'OK', 'the backup opens with the key it was sealed with');
  const next = join(dir, 'rekeyed.next-key');
  writeFileSync(next, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  const rekeyed = await satang(['rekey', '--new-key-file', next, '--data-dir', copy], { SATANG_MASTER_KEY_FILE: `${s.dataDir}.master-key` });
  assert.is(rekeyed.code, 0, rekeyed.stdout + rekeyed.stderr);
  const after = await check(next);
  assert.is(after.level, 'WARN', after.detail);
  assert.match(after.detail, /is sealed with another master key than the configured one \(taken before a rekey\): it restores only with that key/);
  // The metric the stale-backup alert reads says no backup restores with the key the server now runs on, until the next backup.
  const backupMetric = async () => {
    const served = await TestServer.start({ SATANG_MASTER_KEY_FILE: next, SATANG_METRICS_PORT: '0' }, copy);
    try {
      const line = (await (await fetch(served.running.metricsUrl!)).text()).match(/^satang_backup_last_success_timestamp_seconds (\S+)$/m);
      return Number(line?.[1]);
    } finally {
      await served.stop(false);
    }
  };
  assert.is(await backupMetric(), 0, 'a backup sealed with the retired key is no backup to the alert');
  const since = await satang(['backup', '--to', join(dir, 'after-rekey'), '--data-dir', copy], { SATANG_MASTER_KEY_FILE: next });
  assert.is(since.code, 0, since.stdout + since.stderr);
  assert.ok(await backupMetric() > 0, 'a backup taken with the new key counts again');
  assert.is((await check(next)).level, 'OK');
});

test('FAIL and exit 1: a master key that does not open the data dir; a file others may read. WARN: a server that does not answer', async () => {
  const before = footprint();
  // Not asking the server here: its own request log would change the data dir meanwhile.
  const wrongKey = await doctor({ SATANG_MASTER_KEY: randomBytes(32).toString('base64') }, 'http://127.0.0.1:9');
  assert.is(wrongKey.code, 1);
  assert.is(wrongKey.levels['master key'], 'FAIL');
  assert.is(footprint(), before, 'doctor wrote nothing');
  const unreachable = await doctor({}, 'http://127.0.0.1:9');
  assert.is(unreachable.levels.server, 'WARN');
  assert.is(unreachable.code, 0, 'a WARN alone is exit 0');
  chmodSync(join(s.dataDir, 'journal.db'), 0o644);
  try {
    const loose = await doctor();
    assert.is(loose.code, 1);
    assert.is(loose.levels['at rest'], 'FAIL');
    assert.match(loose.raw, /journal\.db: mode 644, expected 600/);
  } finally {
    chmodSync(join(s.dataDir, 'journal.db'), 0o600);
  }
});

test('FAIL and exit 1: a data dir a manual clock advanced two days, on the system clock — the start the server would refuse (exit 78); OK on the manual clock', async () => {
  const dataDir = join(dir, 'advanced');
  const env = { SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_CLOCK: 'manual', SATANG_LOG_LEVEL: 'silent' };
  const running = await startServer(env);
  await running.services.write.advanceClock!(2 * 86_400_000);
  assert.ok((await settled(running.store.submit({ type: 'RegisterWhiteLabel', actor: operator(), name: 'Two days ahead' }))).ok);
  await running.close();
  const run = async (clock: string) => {
    const r = await satang(['doctor', '--data-dir', dataDir, '--url', 'http://127.0.0.1:9', '--json'], { SATANG_CLOCK: clock });
    return { code: r.code, clock: (JSON.parse(r.stdout).checks as { check: string; level: string; detail: string }[]).find((c) => c.check === 'clock'), raw: r.stdout + r.stderr };
  };
  const system = await run('system');
  assert.is(system.code, 1, system.raw);
  assert.is(system.clock?.level, 'FAIL', system.raw);
  assert.match(system.clock!.detail, /4[78]\.\d h after this machine's clock.*refuse to start \(exit 78\)/);
  // The usual cause, a shell not given the server's SATANG_CLOCK: said, with the mark the server keeps.
  assert.match(system.clock!.detail, /the data dir was run on a manual clock \(its mark at \d{4}-.*\): if its server runs with SATANG_CLOCK=manual, give satang the same \(export SATANG_CLOCK=manual\)/);
  const manual = await run('manual');
  assert.is(manual.clock?.level, 'OK', manual.raw);
  assert.match(manual.clock!.detail, /manual clock/);
  assert.is((await doctor()).levels.clock, 'OK', 'the test server\'s journal is not ahead of the clock');
});

test('FAIL and exit 1: a journal that is no SQLite file is named as the journal, not as the master key', async () => {
  const broken = join(dir, 'broken');
  mkdirSync(broken, { mode: 0o700 });
  writeFileSync(join(broken, 'journal.db'), 'garbage, not SQLite '.repeat(100), { mode: 0o600 });
  writeFileSync(`${broken}.master-key`, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  const r = await satang(['doctor', '--data-dir', broken, '--url', 'http://127.0.0.1:9', '--json']);
  assert.is(r.code, 1, r.stdout + r.stderr);
  const checks = JSON.parse(r.stdout).checks as { check: string; level: string; detail: string }[];
  const journal = checks.find((c) => c.check === 'journal');
  assert.equal([journal?.level, /SQLITE_NOTADB/.test(journal?.detail ?? '')], ['FAIL', true], JSON.stringify(checks));
  assert.not.ok(checks.some((c) => c.check === 'master key' && c.level === 'FAIL'), 'the key is not blamed');
  rmSync(`${broken}.master-key`, { force: true });
  // Without the development key beside it, still the journal that is named, not a missing key.
  const keyless = await satang(['doctor', '--data-dir', broken, '--url', 'http://127.0.0.1:9', '--json']);
  const keylessChecks = JSON.parse(keyless.stdout).checks as { check: string; level: string; detail: string }[];
  assert.equal(keylessChecks.filter((c) => c.level === 'FAIL').map((c) => c.check), ['journal'], keyless.stdout);
  // With NATS named and no NATS there, no crash either: the stream is a WARN.
  const withNats = await satang(['doctor', '--data-dir', broken, '--url', 'http://127.0.0.1:9', '--nats', 'nats://127.0.0.1:9', '--json']);
  assert.is(withNats.code, 1, withNats.stdout + withNats.stderr);
});

test('a journal a newer satang wrote (a downgrade): doctor FAILs it, as the server refuses it; verify and rekey refuse it and change nothing', async () => {
  const newer = newerDataDir(join(dir, 'newer'));
  try {
    const r = await satang(['doctor', '--data-dir', newer, '--url', 'http://127.0.0.1:9', '--json']);
    assert.is(r.code, 1, r.stdout + r.stderr);
    const journal = (JSON.parse(r.stdout).checks as { check: string; level: string; detail: string }[]).find((c) => c.check === 'journal');
    assert.equal(journal?.level, 'FAIL', r.stdout);
    assert.match(journal!.detail, /schema version 99, written by a newer satang/);
    const verified = await satang(['verify', '--data-dir', newer]);
    assert.is(verified.code, 2, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /written by a newer satang/);
    const keyFile = join(dir, 'next.key');
    writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    const rekeyed = await satang(['rekey', '--new-key-file', keyFile, '--data-dir', newer]);
    assert.ok(rekeyed.code !== 0, rekeyed.stdout);
    assert.match(rekeyed.stdout + rekeyed.stderr, /written by a newer satang/);
    // A backup this build could not restore from is no backup: refused, nothing written, no "verified".
    const backup = await satang(['backup', '--data-dir', newer, '--to', join(dir, 'newer-backup')]);
    assert.is(backup.code, 2, backup.stdout + backup.stderr);
    assert.match(backup.stderr, /^satang backup: journal\.db has schema version 99, written by a newer satang/);
    assert.not.match(backup.stdout, /verified/);
    assert.not.ok(existsSync(join(dir, 'newer-backup')), 'no backup dir made');
    assert.not.ok(existsSync(join(newer, 'last-backup.json')), 'not counted as a verified backup');
  } finally {
    rmSync(`${newer}.master-key`, { force: true });
  }
});

test("rekey of a newer satang's journal whose development master key is gone: refused (exit 1) with the schema's line, as with its key, and no key made for it", async () => {
  const newer = newerDataDir(join(dir, 'newer-keyless'));
  rmSync(`${newer}.master-key`);
  try {
    const keyFile = join(dir, 'next-keyless.key');
    writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    const rekeyed = await satang(['rekey', '--new-key-file', keyFile, '--data-dir', newer]);
    assert.is(rekeyed.code, 1, rekeyed.stdout + rekeyed.stderr);
    assert.match(rekeyed.stderr, /^satang rekey: journal\.db has schema version 99, written by a newer satang; this build knows up to \d+: run that build/);
    assert.not.ok(existsSync(`${newer}.master-key`), 'a key was made for a journal this build cannot read');
  } finally {
    rmSync(`${newer}.master-key`, { force: true });
  }
});

test('FAIL: a projections.db or logs.db that is no SQLite file is named with what mends it (move it aside), not a restore; the server refuses to start saying the same', async () => {
  const dataDir = join(dir, 'derived');
  const t = await TestServer.start({}, dataDir);
  await t.onboard('Derived');
  await t.stop(false);
  writeFileSync(join(dataDir, 'projections.db'), 'garbage, not SQLite '.repeat(100), { mode: 0o600 });
  for (const f of ['projections.db-wal', 'projections.db-shm']) rmSync(join(dataDir, f), { force: true });
  const r = await satang(['doctor', '--data-dir', dataDir, '--url', 'http://127.0.0.1:9', '--json']);
  assert.is(r.code, 1, r.stdout + r.stderr);
  const failed = (JSON.parse(r.stdout).checks as { check: string; level: string; detail: string }[]).filter((c) => c.level === 'FAIL');
  assert.equal(failed.map((c) => c.check), ['database'], r.stdout);
  assert.match(failed[0]!.detail, /projections\.db is not a usable SQLite file .*move it aside/);
  assert.not.match(failed[0]!.detail, /restore/);
  // The server's own refusal, as npm start runs it:
  const server = await new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
    const child = spawn(process.execPath, ['server/start.mjs'], { cwd: root, env: { ...process.env, SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  assert.is(server.code, 78, server.stdout + server.stderr);
  assert.match(server.stdout + server.stderr, /projections\.db is not a usable SQLite file .*move it aside/);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(`${dataDir}.master-key`, { force: true });
});

test('FAIL and exit 1: a data dir that does not exist, named in the detail; nothing is made there', async () => {
  const missing = join(dir, 'typo', 'data');
  const r = await satang(['doctor', '--data-dir', missing, '--url', 'http://127.0.0.1:9', '--json']);
  assert.is(r.code, 1, r.stdout + r.stderr);
  const checks = JSON.parse(r.stdout).checks as { check: string; level: string; detail: string }[];
  const dataDir = checks.find((c) => c.check === 'data dir');
  assert.is(dataDir?.level, 'FAIL');
  assert.match(dataDir!.detail, `no satang data dir at ${missing}`);
  assert.not.ok(existsSync(join(dir, 'typo')), 'doctor made nothing');
});

test('FAIL and exit 1: a file given as the data dir is a data dir FAIL with the other checks listed (it stopped with ENOTDIR), text and --json', async () => {
  const file = join(dir, 'hostname');
  writeFileSync(file, 'satang-host\n');
  const json = await satang(['doctor', '--data-dir', file, '--url', s.url, '--json']);
  assert.is(json.code, 1, json.stdout + json.stderr);
  assert.not.match(json.stderr, /ENOTDIR/);
  const checks = JSON.parse(json.stdout).checks as { check: string; level: string; detail: string }[];
  assert.equal(checks.find((c) => c.check === 'data dir'), { check: 'data dir', level: 'FAIL', detail: `${file} is not a directory: pass the server's data dir (--data-dir)` });
  assert.equal(checks.find((c) => c.check === 'server')?.level, 'OK', 'the other checks still run');
  const text = await satang(['doctor', '--data-dir', file, '--url', s.url]);
  assert.is(text.code, 1, text.stderr);
  assert.match(text.stdout, /^FAIL  data dir    .*hostname is not a directory/m);
  assert.match(text.stdout, /^OK    server /m);
});

test('the server check: a base URL shown without its user and password; a server that is not satang said in one line, not a JSON parser\'s words', async () => {
  const html = createHttpServer((_req, res) => { res.writeHead(404, { 'Content-Type': 'text/html' }); res.end('<!DOCTYPE html><p>not here</p>'); });
  await new Promise<void>((resolve) => html.listen(0, '127.0.0.1', () => resolve()));
  try {
    const port = (html.address() as AddressInfo).port;
    const serverCheck = async (url: string) => {
      const r = await satang(['doctor', '--data-dir', s.dataDir, '--url', url, '--json']);
      return { out: r.stdout + r.stderr, server: (JSON.parse(r.stdout).checks as { check: string; level: string; detail: string }[]).find((c) => c.check === 'server') };
    };
    const withPassword = await serverCheck(`http://ops:PW-4d1@127.0.0.1:${port}`);
    assert.not.ok(withPassword.out.includes('PW-4d1'), 'the password is not printed');
    assert.is(withPassword.server?.level, 'WARN', withPassword.out);
    const notSatang = await serverCheck(`http://127.0.0.1:${port}`);
    assert.is(notSatang.server?.level, 'WARN', notSatang.out);
    assert.match(notSatang.server!.detail, new RegExp(`^http://127\\.0\\.0\\.1:${port} answered HTTP 404 \\(text/html\\), not satang's JSON`));
  } finally {
    html.close();
  }
});

test('a NATS URL is shown without its password or token: doctor (text and --json), drop-stream, restore', async () => {
  const port = await freePort(); // nothing listens there: each says NATS does not answer, naming it
  const secrets = ['PASSWORD-9f2', 'TOKEN-7c1'];
  const urls = [`nats://ops:${secrets[0]}@127.0.0.1:${port}`, `nats://${secrets[1]}@127.0.0.1:${port}`];
  const backup = join(dir, 'for-restore');
  assert.is((await satang(['backup', '--to', backup, '--data-dir', s.dataDir])).code, 0);
  for (const url of urls) {
    const runs = [
      await satang(['doctor', '--data-dir', s.dataDir, '--url', s.url, '--nats', url]),
      await satang(['doctor', '--data-dir', s.dataDir, '--url', s.url, '--nats', url, '--json']),
      await satang(['drop-stream', '--data-dir', s.dataDir, '--nats', url]),
      await satang(['restore', '--from', backup, '--data-dir', join(dir, `restored-${port}-${url.length}`), '--nats', url]),
    ];
    for (const r of runs) {
      const said = r.stdout + r.stderr;
      assert.match(said, `127.0.0.1:${port}`, said);
      for (const secret of secrets) assert.not.ok(said.includes(secret), `the NATS credentials were shown: ${said}`);
    }
  }
});

test('production: FAIL on an operator key set fetched over plain http (the configuration the server would refuse); WARN without SATANG_BASE_URL, naming the URLs merchants would be given', async () => {
  const key = join(dir, 'prod-key');
  writeFileSync(key, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  const jwks = join(dir, 'jwks.json');
  writeFileSync(jwks, publicKeySetJson());
  const production = { SATANG_ENV: 'production', SATANG_MASTER_KEY_FILE: key, SATANG_SLIP_PROVIDER_URL: 'https://slips.example/v1', SATANG_OIDC_ISSUER: 'https://login.example/', SATANG_BASE_URL: '' };
  const run = async (env: Record<string, string>) => {
    const r = await satang(['doctor', '--data-dir', join(dir, 'prod-data'), '--url', 'http://127.0.0.1:9', '--json'], env);
    return Object.fromEntries((JSON.parse(r.stdout).checks as { check: string; level: string; detail: string }[]).map((c) => [c.check, c]));
  };
  const plain = await run({ ...production, SATANG_OIDC_JWKS: 'http://login.example/jwks.json' });
  assert.is(plain.config?.level, 'FAIL');
  assert.match(plain.config!.detail, /SATANG_OIDC_JWKS must use https when SATANG_ENV=production/);
  const unset = await run({ ...production, SATANG_OIDC_JWKS: jwks });
  assert.is(unset.config?.level, 'OK', JSON.stringify(unset.config));
  assert.is(unset.addresses?.level, 'WARN');
  assert.match(unset.addresses!.detail, /SATANG_BASE_URL is unset: merchants are given http:\/\/127\.0\.0\.1:8080\/… URLs/);
  const set = await run({ ...production, SATANG_OIDC_JWKS: jwks, SATANG_BASE_URL: 'https://api.satang.example' });
  assert.is(set.addresses, undefined, 'no warning once it is set');
});

test.run();
