// Which master key opens a backup, as `satang restore` says it (a backup holds none, and a
// server started on a restored data dir with another key refuses, exit 78). Read up front,
// from the backup's own journal before anything is copied:
//   - the key this environment gives the restored data dir (SATANG_MASTER_KEY,
//     SATANG_MASTER_KEY_FILE, or a development key already beside it): whether it opens;
//   - in development, with no key beside the restored data dir yet, the key of the data dir
//     the backup was taken from (its manifest's data_dir) — the one an operator copies;
//   - whether that data dir was rekeyed after the backup: the key opens its journal, which
//     goes on from the backup's head, but not the backup. Such a backup is sealed with the key
//     `satang rekey` replaced, and only that key opens it, so the advice names that one rather
//     than the data dir's key now (which the server would refuse).
// Reads only; anything it cannot read leaves the advice as general as before.

import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { masterKeyOpens, Sealer } from '../../adapters/sealing.ts';
import { readManifest } from '../../adapters/sqlite/backup.ts';
import { journalFileName } from '../../adapters/sqlite/schema.ts';
import { readConfig } from '../../server/config.ts';
import { existingMasterKey } from '../../server/master-key.ts';

/** What restore knows of the key that opens a backup (undefined fields: not known). */
export interface BackupKeyFacts {
  /** The key this environment gives the restored data dir: whether it opens the backup. */
  readonly configuredOpens?: boolean;
  /** Development, no key beside the restored data dir yet: the key file of the data dir the backup was taken from, and whether it opens the backup. */
  readonly sourceKey?: { readonly path: string; readonly opens: boolean };
  /** The data dir the backup was taken from, when it was rekeyed after it (the key tried opens it, not the backup). */
  readonly rekeyedSince?: string;
}

/** Whether `key` opens the journal file's sealed marker; undefined when it has none or cannot be read. */
function keyOpensJournal(file: string, key: Buffer): boolean | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try { return masterKeyOpens(db, new Sealer(key)); } finally { db.close(); }
  } catch {
    return undefined;
  }
}

/** Whether the data dir's journal holds the backup's head entry (it goes on from the backup: the same deployment's). */
function continuesBackup(dataDir: string, head: { readonly tail_seq: number; readonly head_hash: string | null }): boolean {
  if (head.head_hash === null) return false;
  try {
    const db = new Database(join(dataDir, journalFileName), { readonly: true, fileMustExist: true });
    try { return db.prepare<[number], string>('SELECT hash FROM journal WHERE seq = ?').pluck(true).get(head.tail_seq) === head.head_hash; } finally { db.close(); }
  } catch {
    return false;
  }
}

/** The facts, read from the backup in `fromDir` for a restore into `dataDir`; never throws. */
export function backupKeyFacts(fromDir: string, dataDir: string): BackupKeyFacts {
  const backupJournal = join(fromDir, journalFileName);
  let manifest;
  try { manifest = readManifest(fromDir); } catch { return {}; }
  const env = { ...process.env, SATANG_DATA_DIR: dataDir };
  let source;
  try { source = readConfig(env).masterKey; } catch { return {}; }
  const configured = existingMasterKey(source, env);
  const configuredOpens = configured ? keyOpensJournal(backupJournal, configured) : undefined;
  const from = manifest.data_dir;
  let sourceKey: BackupKeyFacts['sourceKey'];
  let tried = configured;
  if (!configured && source.kind === 'development' && from !== undefined) {
    const path = `${from.replace(/\/$/, '')}.master-key`;
    const key = existingMasterKey({ kind: 'development', path });
    const opens = key ? keyOpensJournal(backupJournal, key) : undefined;
    if (opens !== undefined) sourceKey = { path, opens };
    tried = key;
  }
  const opens = configuredOpens ?? sourceKey?.opens;
  const rekeyed = opens === false && tried !== undefined && from !== undefined
    && keyOpensJournal(join(from, journalFileName), tried) === true && continuesBackup(from, manifest.journal);
  return {
    ...(configuredOpens !== undefined ? { configuredOpens } : {}),
    ...(sourceKey ? { sourceKey } : {}),
    ...(rekeyed ? { rekeyedSince: from } : {}),
  };
}

/** Why a key does not open the backup: the rekey behind it when known, else the general case. */
function sealedWithAnother(facts: BackupKeyFacts): string {
  return facts.rekeyedSince !== undefined
    ? `${facts.rekeyedSince}, which the backup was taken from, was rekeyed (satang rekey) after it: only the key that rekey replaced opens it — the one the data dir had when the backup was taken, which rekey said to keep as long as the backups taken before it`
    : 'the backup was sealed with another key (taken before a satang rekey, it opens only with the key that rekey replaced)';
}

/** Said before anything is copied when the key tried does not open the backup; undefined otherwise. */
export function keyMismatchUpFront(facts: BackupKeyFacts): string | undefined {
  const which = facts.configuredOpens === false ? 'the master key this environment gives' : facts.sourceKey?.opens === false ? facts.sourceKey.path : undefined;
  if (which === undefined) return undefined;
  return `satang restore: ${which} does NOT open this backup: ${sealedWithAnother(facts)}. Restoring it all the same: start the server on it with that key`;
}

/**
 * The reminder a restore ends with, done or refused: the server must start with the key the
 * backup was sealed with, and where it will look for it. `opens`: whether the key this
 * environment gives opens the restored data dir (undefined: no key to try, or nothing sealed).
 */
export function masterKeyReminder(dataDir: string, opens: boolean | undefined, facts: BackupKeyFacts = {}): string {
  if (opens === true) return `master key: the one this environment gives opens ${dataDir}: the server can start on it`;
  let where: string;
  try {
    const key = readConfig({ ...process.env, SATANG_DATA_DIR: dataDir }).masterKey;
    switch (key.kind) {
      case 'env': where = 'this environment gives it in SATANG_MASTER_KEY'; break;
      case 'file': where = `this environment gives it in SATANG_MASTER_KEY_FILE (${key.path})`; break;
      case 'development': where = `in development ${developmentCopy(key.path, facts)}`; break;
      default: { const _: never = key; where = ''; }
    }
  } catch {
    where = 'set SATANG_MASTER_KEY_FILE to it';
  }
  if (opens === false || facts.configuredOpens === false) {
    where = `the one this environment gives does NOT open it (${where.replace(/^this environment gives it in /, '')}): give the server the key the backup was sealed with — ${sealedWithAnother(facts)}`;
  }
  return `master key: the server must start on ${dataDir} with the one the backup was sealed with (a backup holds none; another key refuses to start); ${where}`;
}

/** What to copy to the restored data dir's development key file `target`, and when. */
function developmentCopy(target: string, facts: BackupKeyFacts): string {
  const before = 'before the server starts, or it refuses to start (exit 78)';
  const source = facts.sourceKey;
  if (source?.opens === true) return `copy ${source.path} (the key of the data dir the backup was taken from: it opens the backup) to ${target} ${before}`;
  if (source?.opens === false) return `copy the key the backup was sealed with to ${target} ${before}; NOT ${source.path}, which does not open it: ${sealedWithAnother(facts)}`;
  return `copy the old data dir's master key to ${target} ${before} (the key it had when the backup was taken: after a satang rekey, the one that rekey replaced)`;
}

/** Whether the key this environment gives opens the restored journal (doctor's check); undefined when there is no key to try, or nothing sealed yet. */
export function masterKeyOpensRestored(dataDir: string): boolean | undefined {
  const env = { ...process.env, SATANG_DATA_DIR: dataDir };
  let key: Buffer | undefined;
  try { key = existingMasterKey(readConfig(env).masterKey, env); } catch { return undefined; }
  return key ? keyOpensJournal(join(dataDir, journalFileName), key) : undefined;
}
