// A start that is refused leaves the data dir as it found it. The checks that can read the
// files as an older build left them — a journal ahead of the system clock, a wrong master
// key, a broken hash chain, a logs.db that is no database — refuse before journal.db is
// migrated, so the build the operator goes back to still opens it (its schema version, as
// the projections' upgrade spec builds the older journal, stays 1). And whatever step
// throws once the journal is open, startServer closes what it had opened: a caller in the
// same process is left no writer or read-side thread and no locked data dir.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { ClockBehindJournal } from '../../adapters/clock.ts';
import { WrongMasterKey } from '../../adapters/sealing.ts';
import { ChainBroken } from '../../adapters/sqlite/errors.ts';
import { settled } from '../../core/handler/handle.ts';
import { startServer } from '../../server/main.ts';
import { operator } from '../support/core-harness.ts';

const dayMs = 86_400_000;

/** A data dir a manual clock advanced two days and journaled on, its journal.db stamped as the build before schema version 2 left it. */
async function olderDataDir(): Promise<{ dir: string; env: Record<string, string>; journalFile: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'satang-refused-start-'));
  const dataDir = join(dir, 'data'); // its development master key goes beside it, inside `dir`
  const env = { SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_CLOCK: 'manual', SATANG_LOG_LEVEL: 'silent' };
  const running = await startServer(env);
  await running.services.write.advanceClock!(2 * dayMs);
  assert.ok((await settled(running.store.submit({ type: 'RegisterWhiteLabel', actor: operator(), name: 'Two days ahead' }))).ok);
  await running.close();
  const journalFile = join(dataDir, 'journal.db');
  const journal = new Database(journalFile);
  journal.pragma('user_version = 1');
  journal.close();
  return { dir, env, journalFile };
}

const userVersion = (file: string) => {
  const db = new Database(file, { readonly: true });
  try { return db.pragma('user_version', { simple: true }) as number; } finally { db.close(); }
};

const refusal = (env: Record<string, string>) => startServer(env).then(async (r) => { await r.close(); return undefined; }, (error: unknown) => error);

/** Starts on an older data dir (after `spoil`) with `env` changed so: the refusal, journal.db's schema version after it, and the data dir for a start that follows. */
async function refusedOnOlderDataDir(
  change: Record<string, string>, spoil: (dataDir: string, journalFile: string) => void,
  then: (error: unknown, env: Record<string, string>) => Promise<void>,
): Promise<void> {
  const { dir, env, journalFile } = await olderDataDir();
  try {
    spoil(env.SATANG_DATA_DIR, journalFile);
    const error = await refusal({ ...env, ...change });
    assert.is(userVersion(journalFile), 1, `journal.db left as the older build can open it (refused: ${String(error)})`);
    await then(error, env);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a journal ahead of the system clock is refused before journal.db is migrated; the manual clock still starts on it', () => refusedOnOlderDataDir({ SATANG_CLOCK: 'system' }, () => {}, async (error, env) => {
  assert.instance(error, ClockBehindJournal);
  await (await startServer(env)).close(); // nothing was left locked
}));

test('a wrong master key is refused before journal.db is migrated', () => refusedOnOlderDataDir({ SATANG_MASTER_KEY: randomBytes(32).toString('base64') }, () => {}, async (error, env) => {
  assert.instance(error, WrongMasterKey);
  await (await startServer(env)).close(); // its own key opens it
}));

test('a broken hash chain is refused before journal.db is migrated', () => refusedOnOlderDataDir({}, (_, journalFile) => {
  const journal = new Database(journalFile);
  journal.exec("DROP TRIGGER journal_refuses_update; UPDATE journal SET data = data || ' ' WHERE seq = 1");
  journal.close();
}, async (error) => {
  assert.instance(error, ChainBroken);
  assert.match((error as Error).message, /seq 1/);
}));

test('a logs.db that is no database is refused before journal.db is migrated; moved aside, the server starts', () => refusedOnOlderDataDir({}, (dataDir) => {
  const logs = join(dataDir, 'logs.db');
  for (const suffix of ['-wal', '-shm']) rmSync(logs + suffix, { force: true });
  writeFileSync(logs, 'not a database, though as long as a header would be: '.repeat(8));
}, async (error, env) => {
  assert.is((error as { code?: string }).code, 'SQLITE_NOTADB', String(error));
  renameSync(join(env.SATANG_DATA_DIR, 'logs.db'), join(env.SATANG_DATA_DIR, 'logs.db.aside'));
  await (await startServer(env)).close();
}));

/**
 * Runs `body` on an older data dir with the worker threads started meanwhile tracked; after it,
 * the dir goes and any thread still alive is ended (only when the spec failed: a journal writer
 * thread ended from outside exits the process, 70, which fails the file).
 */
async function withWorkersTracked(body: (env: Record<string, string>, live: Set<Worker>) => Promise<void>): Promise<void> {
  const { dir, env } = await olderDataDir();
  const live = new Set<Worker>();
  const track = (worker: Worker) => { live.add(worker); worker.once('exit', () => live.delete(worker)); };
  process.on('worker', track);
  try {
    await body(env, live);
  } finally {
    process.off('worker', track);
    for (const worker of live) await worker.terminate();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a start that fails once the journal is open closes what it opened: no worker thread lives on, and the data dir is free for the next start', () => withWorkersTracked(async (env, live) => {
  // The slip store's directory is a file: startSlips throws after the journal's writer
  // thread and the read side's worker have started.
  const slips = join(env.SATANG_DATA_DIR!, 'slips');
  rmSync(slips, { recursive: true, force: true });
  writeFileSync(slips, '');
  const error = await refusal(env);
  assert.is((error as { code?: string }).code, 'EEXIST', String(error));
  assert.ok(live.size === 0 || await exitWithin(live, 5_000), `${live.size} worker thread(s) still running after the refused start`);
  rmSync(slips);
  await (await startServer(env)).close(); // the data dir's lock was released
}));

test('a close whose step fails still closes the rest: the journal is closed, the data dir is free, and the failure is thrown', () => withWorkersTracked(async (env) => {
  const running = await startServer(env);
  running.readSide.close = () => Promise.reject(new Error('the read side would not close'));
  const error = await running.close().then(() => undefined, (e: unknown) => e);
  assert.match(String(error), /the read side would not close/);
  await (await startServer(env)).close(); // the journal was closed and the data dir's lock released
}));

async function exitWithin(live: Set<Worker>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (live.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return live.size === 0;
}

test.run();
