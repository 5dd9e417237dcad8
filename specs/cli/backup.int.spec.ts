// `satang backup` and `satang restore` run as an operator runs them (child processes)
// against a real server's data dir:
// - a backup taken while deposits are being created verifies (hash chain, replay,
//   balances), holds the slips and the sealed keys but neither the master key nor a secret
//   in clear, every file 0600 in 0700 directories, listed with its SHA-256; the data dir
//   notes it and the metrics say when it was taken (the stale-backup alert);
// - restored into a new data dir and served, it answers what the server answered when the
//   backup was taken: the balance, the deposit with its slip image byte for byte, the
//   balance history (its projections rebuilt from the journal);
// - refusals change nothing: a backup into an existing directory, a restore of a damaged
//   backup or into a data dir that has a journal;
// - restore's result, refused or done, reminds that the server must start with the master
//   key the backup was sealed with (a backup holds none), saying where it will read it; and
//   restore itself makes no key.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scanDataDir } from '../../adapters/sqlite/verify-at-rest.ts';
import { depositBody, freshSender, signedHeaders, TestServer } from '../support/server-harness.ts';
import { assertReceipt, matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, type SlipScene } from '../support/slip-harness.ts';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
let scene: SlipScene;
let dir: string;

function satang(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(satangPath, args, { cwd: tmpdir(), env: { ...process.env, SATANG_LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every file and directory under `root`, with its mode. */
function modes(root: string, at = ''): [string, number][] {
  return readdirSync(join(root, at)).flatMap((name) => {
    const path = join(at, name), st = statSync(join(root, path));
    return st.isDirectory() ? [[path + '/', st.mode & 0o777] as [string, number], ...modes(root, path)] : [[path, st.mode & 0o777] as [string, number]];
  });
}

let settledId = '';
let image: Buffer;

test.before(async () => {
  scene = await slipScene({ SATANG_METRICS_PORT: '0' });
  dir = mkdtempSync(join(tmpdir(), 'satang-backup-'));
  // A settled deposit with its slip image in slips/.
  const d = await matchedDeposit(scene);
  image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, { amount_minor: d.legs[0].amount_minor }, { image_sha256: sha256Hex(image) }));
  assertReceipt(await uploadFile(d.slip_upload, image));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  settledId = d.id;
});
test.after(async () => {
  await scene.s.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a backup taken while deposits are created verifies, holds the slips and sealed keys, no master key and no secret in clear', async () => {
  const to = join(dir, 'live');
  let creating = true;
  const load = (async () => {
    let n = 0;
    while (creating) {
      const r = await scene.s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 10_000, sender: freshSender() }));
      assert.ok(r.status === 201 || r.status === 202, r.text);
      n++;
    }
    return n;
  })();
  const r = await satang(['backup', '--to', to, '--data-dir', scene.s.dataDir, '--json']);
  creating = false;
  assert.ok(await load > 0, 'deposits were created during the backup');
  assert.is(r.code, 0, r.stdout + r.stderr);
  const { manifest, verified } = JSON.parse(r.stdout);
  assert.ok(verified.ok, JSON.stringify(verified));
  assert.ok(manifest.journal.tail_seq > 0 && manifest.journal.tail_seq <= scene.s.running.store.world.lastSeq);
  const listed = manifest.files.map((f: any) => f.path);
  for (const name of ['journal.db', 'logs.db', 'slip-capability-ed25519.key', 'dev-issuer.jwk.sealed']) assert.ok(listed.includes(name), `${name} in ${listed}`);
  assert.ok(listed.some((p: string) => p.startsWith('slips/') && p.endsWith('.img')), 'a slip image');
  assert.not.ok(listed.some((p: string) => /master|projections/.test(p)), 'no master key, no projections');
  assert.equal(listed.slice().sort(), modes(to).filter(([p]) => !p.endsWith('/') && p !== 'backup.json').map(([p]) => p).sort(), 'the manifest lists every file');
  for (const [path, mode] of modes(to)) assert.is(mode, path.endsWith('/') ? 0o700 : 0o600, path);
  assert.ok(scanDataDir(to).ok, JSON.stringify(scanDataDir(to).findings));
  // The data dir notes the verified backup, and the server's metrics say when it was taken.
  const metrics = await (await fetch(scene.s.running.metricsUrl!)).text();
  assert.match(metrics, new RegExp(`^satang_backup_last_success_timestamp_seconds ${Date.parse(manifest.taken_at) / 1000}$`, 'm'));
  assert.is(JSON.parse(readFileSync(join(scene.s.dataDir, 'last-backup.json'), 'utf8')).path, to);
  // The same directory again: refused, nothing changed.
  const before = readFileSync(join(to, 'backup.json'), 'utf8');
  const again = await satang(['backup', '--to', to, '--data-dir', scene.s.dataDir]);
  assert.is(again.code, 2);
  assert.match(again.stderr, /exists: a backup goes into a new directory/);
  assert.is(readFileSync(join(to, 'backup.json'), 'utf8'), before);
  // Into the data dir it backs up: refused, nothing made — such a backup is lost with the
  // data dir (its disk, a restore that moves the data dir aside), and scanned with it.
  for (const inside of [join(scene.s.dataDir, 'backups', 'today'), join(scene.s.dataDir, 'slips', 'bk')]) {
    const within = await satang(['backup', '--to', inside, '--data-dir', scene.s.dataDir]);
    assert.is(within.code, 2, within.stdout + within.stderr);
    assert.match(within.stderr, `${inside} is inside the data dir ${scene.s.dataDir}: a backup there is lost with it`);
    assert.not.ok(existsSync(inside), 'nothing made');
  }
});

test("restored and served, the backup answers what the server answered when it was taken; damaged backups and used data dirs are refused", async () => {
  const to = join(dir, 'quiet');
  const backedUp = await satang(['backup', '--to', to, '--data-dir', scene.s.dataDir]);
  assert.is(backedUp.code, 0, backedUp.stdout + backedUp.stderr);
  assert.match(backedUp.stdout, /verified: hash chain, replay against the snapshots, balances against the postings, action log: OK/);
  const balance = (await scene.s.call(scene.payer.live.api_key, 'GET', '/v1/pay/balance')).json;
  const history = (await scene.s.call(scene.payer.live.api_key, 'GET', '/v1/pay/balance/transactions?limit=100')).json;

  // A damaged copy is refused before anything is written.
  const damaged = join(dir, 'damaged');
  mkdirSync(damaged, { mode: 0o700 });
  for (const [path] of modes(to)) {
    if (path.endsWith('/')) mkdirSync(join(damaged, path), { recursive: true });
    else copyFileSync(join(to, path), join(damaged, path));
  }
  const img = modes(damaged).find(([p]) => p.endsWith('.img'))![0];
  writeFileSync(join(damaged, img), Buffer.concat([readFileSync(join(damaged, img)), Buffer.from('!')]));
  const refusedDamaged = await satang(['restore', '--from', damaged, '--data-dir', join(dir, 'from-damaged')]);
  assert.is(refusedDamaged.code, 2);
  assert.match(refusedDamaged.stderr, /differs from the manifest/);
  assert.match(refusedDamaged.stderr, `master key: the server must start on ${join(dir, 'from-damaged')} with the one the backup was sealed with`);
  assert.not.ok(existsSync(join(dir, 'from-damaged')), 'nothing restored');
  // A newer satang's backup (journal schema 99, its manifest right): refused before anything is written.
  const newer = join(dir, 'newer');
  mkdirSync(newer, { mode: 0o700 });
  for (const [path] of modes(to)) {
    if (path.endsWith('/')) mkdirSync(join(newer, path), { recursive: true });
    else copyFileSync(join(to, path), join(newer, path));
  }
  const journal = new Database(join(newer, 'journal.db'));
  journal.pragma('user_version = 99');
  journal.close();
  const manifest = JSON.parse(readFileSync(join(newer, 'backup.json'), 'utf8'));
  const entry = manifest.files.find((f: { path: string }) => f.path === 'journal.db');
  const bytes = readFileSync(join(newer, 'journal.db'));
  Object.assign(entry, { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  writeFileSync(join(newer, 'backup.json'), JSON.stringify(manifest));
  const refusedNewer = await satang(['restore', '--from', newer, '--data-dir', join(dir, 'from-newer')]);
  assert.is(refusedNewer.code, 2, refusedNewer.stdout + refusedNewer.stderr);
  assert.match(refusedNewer.stderr, /^satang restore: journal\.db has schema version 99, written by a newer satang/);
  assert.not.match(refusedNewer.stdout, /verified|next: start the server/);
  assert.not.ok(existsSync(join(dir, 'from-newer')), 'nothing restored');
  // Into the deployment's data dir (moved aside) while its server still answers: refused, nothing restored.
  const movedAside = join(dir, 'deployment');
  const stillRunning = await satang(['restore', '--from', to, '--data-dir', movedAside, '--url', scene.s.url], { SATANG_DATA_DIR: movedAside });
  assert.is(stillRunning.code, 2, stillRunning.stdout + stillRunning.stderr);
  assert.match(stillRunning.stderr, `satang restore: a satang server answers at ${scene.s.url} (`);
  assert.match(stillRunning.stderr, /stop the API and the projector first .*; nothing was restored/);
  assert.match(stillRunning.stderr, `master key: the server must start on ${movedAside} with the one the backup was sealed with`, 'refused, it ends with the reminder too');
  assert.not.ok(existsSync(movedAside), 'nothing restored');
  // Into the server's own data dir: refused.
  const refusedUsed = await satang(['restore', '--from', to, '--data-dir', scene.s.dataDir]);
  assert.is(refusedUsed.code, 2);
  assert.match(refusedUsed.stderr, /already holds journal\.db/);

  // Restored with a key that does not open it: done, but exit 1 and said plainly; with the right one, said so too.
  const wrongKey = await satang(['restore', '--from', to, '--data-dir', join(dir, 'wrong-key')], { SATANG_MASTER_KEY: randomBytes(32).toString('base64') });
  assert.is(wrongKey.code, 1, wrongKey.stdout + wrongKey.stderr);
  assert.match(wrongKey.stdout, /the one this environment gives does NOT open it \(SATANG_MASTER_KEY\): give the server the key the backup was sealed with/);
  const rightKey = await satang(['restore', '--from', to, '--data-dir', join(dir, 'right-key')], { SATANG_MASTER_KEY_FILE: `${scene.s.dataDir}.master-key` });
  assert.is(rightKey.code, 0, rightKey.stdout + rightKey.stderr);
  assert.match(rightKey.stdout, `master key: the one this environment gives opens ${join(dir, 'right-key')}: the server can start on it`);
  // satang verify on the backup itself reads it only: the backup restores after it (it once switched the copy to WAL).
  const verified = await satang(['verify', '--data-dir', to]);
  assert.ok(verified.code === 0 || verified.code === 1, verified.stdout + verified.stderr); // the copy's secrets scan may ask for its key; the bytes are the point
  assert.is(JSON.parse(verified.stdout).mismatch_count, 0, verified.stdout);
  const restoredDir = join(dir, 'restored');
  const restored = await satang(['restore', '--from', to, '--data-dir', restoredDir]);
  assert.is(restored.code, 0, restored.stdout + restored.stderr);
  assert.not.ok(existsSync(join(restoredDir, 'projections.db')), 'projections are not restored');
  assert.match(restored.stdout, `master key: the server must start on ${restoredDir} with the one the backup was sealed with (a backup holds none; another key refuses to start)`);
  assert.match(restored.stdout, `copy ${scene.s.dataDir}.master-key (the key of the data dir the backup was taken from: it opens the backup) to ${restoredDir}.master-key before the server starts`);
  // A revocation made after the backup is not in it: the restore says so, and where the revocations are named.
  const takenAt = JSON.parse(readFileSync(join(to, 'backup.json'), 'utf8')).taken_at;
  assert.match(restored.stdout, `SECURITY: what was revoked after ${takenAt} is not revoked in the restored data dir — API keys revoked, operators revoked or signed out,`);
  assert.match(restored.stdout, `scripts/satang bo actions --since ${takenAt} --outcome ok`);
  const asJson = await satang(['restore', '--from', to, '--data-dir', join(dir, 'restored-json'), '--json']);
  assert.is(asJson.code, 0, asJson.stdout + asJson.stderr);
  const security = JSON.parse(asJson.stdout).security;
  assert.is(security.revocations_undone_after, takenAt, 'automation reading --json is told too');
  assert.match(security.warning, /^SECURITY: what was revoked after/);
  assert.not.ok(existsSync(`${restoredDir}.master-key`), 'restore makes no master key');
  copyFileSync(`${scene.s.dataDir}.master-key`, `${restoredDir}.master-key`); // kept apart from the backup
  const s2 = await TestServer.start({}, restoredDir);
  try {
    assert.equal((await s2.call(scene.payer.live.api_key, 'GET', '/v1/pay/balance')).json, balance);
    assert.equal((await s2.call(scene.payer.live.api_key, 'GET', '/v1/pay/balance/transactions?limit=100')).json.data, history.data, 'the history, rebuilt');
    assert.is((await s2.call(scene.shop.live.api_key, 'GET', `/v1/pay/deposits/${settledId}`)).json.status, 'settled');
    const slipPath = `/v1/pay/deposits/${settledId}/slip`;
    const slip = await fetch(s2.url + slipPath, { headers: signedHeaders(scene.shop.live.api_key, 'GET', slipPath, '', { nowSeconds: s2.wallSeconds() }) });
    assert.is(slip.status, 200);
    assert.equal(Buffer.from(await slip.arrayBuffer()), image, 'the slip image, byte for byte');
  } finally {
    await s2.stop();
  }
});

test.run();
