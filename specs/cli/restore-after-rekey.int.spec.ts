// `satang restore` of a backup taken before a `satang rekey`, into a scratch data dir, run as
// an operator runs it (child processes) in development (the key beside the data dir) and
// with SATANG_MASTER_KEY_FILE. The backup is sealed with the key the rekey replaced, so
// the data dir's key now cannot open it (a server started on it with that key refuses).
// Proves:
// - before the rekey, restore names the key that opens the backup: the key file of the data
//   dir it was taken from (its manifest's data_dir);
// - after it, restore says up front, before copying, that that key does NOT open the backup
//   because its data dir was rekeyed since, and its reminder tells to copy the key the
//   backup was sealed with — not the data dir's key now, which it used to advise;
// - with SATANG_MASTER_KEY_FILE the new key: exit 1, the same reason given;
// - the advice is right: with the retired key the restored data dir serves, with the data
//   dir's key now the server refuses to start.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { satangRun as satang } from '../support/projections.ts';
import { TestServer } from '../support/server-harness.ts';

let root: string;
let dataDir: string;
let backup: string;
let retiredKey: string;
let balance: unknown;
let apiKey: string;

test.before(async () => {
  root = mkdtempSync(join(tmpdir(), 'satang-restore-rekey-'));
  dataDir = join(root, 'data');
  const s = await TestServer.start({}, dataDir); // development: the key is made beside the data dir
  const m = await s.onboard('Sealed shop');
  await s.fund(m.id, 50_000);
  apiKey = m.live.api_key;
  balance = (await s.call(apiKey, 'GET', '/v1/pay/balance')).json;
  await s.stop(false);
  retiredKey = readFileSync(`${dataDir}.master-key`, 'utf8');
  backup = join(root, 'backup');
  const taken = await satang(['backup', '--to', backup, '--data-dir', dataDir]);
  assert.is(taken.code, 0, taken.stdout + taken.stderr);
});
test.after(() => { rmSync(root, { recursive: true, force: true }); });

test("before a rekey, restore names the key file of the data dir the backup was taken from", async () => {
  const scratch = join(root, 'before-rekey');
  const restored = await satang(['restore', '--from', backup, '--data-dir', scratch]);
  assert.is(restored.code, 0, restored.stdout + restored.stderr);
  assert.match(restored.stdout, `copy ${dataDir}.master-key (the key of the data dir the backup was taken from: it opens the backup) to ${scratch}.master-key before the server starts`);
  assert.not.match(restored.stderr, /does NOT open/);
});

test("after a rekey, restore says the data dir's key now does not open the backup and names the key that does; that key serves it", async () => {
  const newKeyFile = join(root, 'new.key');
  writeFileSync(newKeyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  const rekeyed = await satang(['rekey', '--new-key-file', newKeyFile, '--data-dir', dataDir]);
  assert.is(rekeyed.code, 0, rekeyed.stdout + rekeyed.stderr);
  copyFileSync(newKeyFile, `${dataDir}.master-key`); // as rekey says, in development

  const scratch = join(root, 'after-rekey');
  const restored = await satang(['restore', '--from', backup, '--data-dir', scratch]);
  assert.is(restored.code, 0, restored.stdout + restored.stderr);
  const upFront = `satang restore: ${dataDir}.master-key does NOT open this backup: ${dataDir}, which the backup was taken from, was rekeyed (satang rekey) after it: only the key that rekey replaced opens it`;
  assert.ok(restored.stderr.startsWith(upFront), restored.stderr);
  assert.match(restored.stdout, `copy the key the backup was sealed with to ${scratch}.master-key before the server starts, or it refuses to start (exit 78); NOT ${dataDir}.master-key, which does not open it: ${dataDir}, which the backup was taken from, was rekeyed`);
  assert.not.match(restored.stdout, `copy ${dataDir}.master-key (`, 'the data dir\'s key now is not offered');

  // With the new key given as the environment's: exit 1, and why.
  const withFile = join(root, 'with-file');
  const refusedKey = await satang(['restore', '--from', backup, '--data-dir', withFile], { SATANG_MASTER_KEY_FILE: newKeyFile });
  assert.is(refusedKey.code, 1, refusedKey.stdout + refusedKey.stderr);
  assert.match(refusedKey.stderr, `satang restore: the master key this environment gives does NOT open this backup: ${dataDir}, which the backup was taken from, was rekeyed`);
  assert.match(refusedKey.stdout, `the one this environment gives does NOT open it (SATANG_MASTER_KEY_FILE (${newKeyFile})): give the server the key the backup was sealed with — ${dataDir}, which the backup was taken from, was rekeyed (satang rekey) after it`);

  // The advice is right: the data dir's key now is refused, the key the rekey replaced serves it.
  copyFileSync(`${dataDir}.master-key`, `${scratch}.master-key`);
  const refusedStart = await TestServer.start({}, scratch).then(async (s) => { await s.stop(false); return undefined; }, (error: Error) => error);
  assert.match(String(refusedStart?.message), /master key does not open this data dir/);
  writeFileSync(`${scratch}.master-key`, retiredKey, { mode: 0o600 });
  const s = await TestServer.start({}, scratch);
  try {
    assert.equal((await s.call(apiKey, 'GET', '/v1/pay/balance')).json, balance, 'the restored data dir serves with the retired key');
  } finally {
    await s.stop(false);
  }
});

test.run();
