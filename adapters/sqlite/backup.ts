// A backup of the data dir taken while the server runs, and its restore into an empty one.
//
// What a backup holds (and why):
//   - journal.db, the source of truth (the journal, postings, snapshots, outbox, webhook
//     state, the action log), copied by `VACUUM INTO` inside one read transaction: a
//     consistent snapshot at one journal seq, compacted, while the writer goes on;
//   - logs.db (the request log, support's evidence), the same way, before the journal: each
//     back-office call it holds then has its action-log row in the journal copy;
//   - slips/ (the payers' evidence), copied after the journal, so every receipt the copied
//     journal names is there (the store writes a receipt's files before the journal names
//     it); half-written files (the store's temporary names) are left out;
//   - the sealed keys of the data dir (slip capability, development issuer): sealed under
//     the master key, which is never in a backup — keep it apart, as for the data dir.
// Not held: projections.db, rebuilt from the journal when the server starts without it.
//
// Every file is written 0600 in a 0700 directory, fsynced, with a manifest (backup.json:
// the journal's tail seq and head hash, each file's size and SHA-256) written last, so a
// directory without a manifest is not a backup. A restore checks every file against the
// manifest before it copies anything, and refuses a data dir that already holds a journal.
//
// A restore also leaves restored.json in the data dir (before journal.db lands): what was
// committed after the backup is gone, but merchants may have been told of it (webhooks,
// feeds) under sequences the restored counters would give out again. The server's first
// start on the data dir journals every merchant's jump past them (SequencesAdvancedAfterRestore,
// named by the marker's id, so a start cut short journals it once) and then removes it.

import Database from 'better-sqlite3';
import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, closeSync, copyFileSync, existsSync, fsyncSync, lstatSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { ensurePrivateDir, preparePrivateDatabase, privateFileMode, sealedKeyFileNames, writePrivateFile } from '../private-files.ts';
import { requestLogFileName } from '../request-log.ts';
import { slipTemporaryMarker } from '../slips/store.ts';
import { decode } from '../../core/journal.ts';
import { journalFileName, refuseNewerJournalFile, type Db } from './schema.ts';

export const backupFormat = 'satang-backup/1';
export const manifestFileName = 'backup.json';
const slipsDir = 'slips';
const sealedKeyFiles = Object.values(sealedKeyFileNames);

export interface BackupFile { readonly path: string; readonly bytes: number; readonly sha256: string }

export interface BackupManifest {
  readonly format: typeof backupFormat;
  /** Wall-clock instant the journal's snapshot was taken (ISO 8601). */
  readonly taken_at: string;
  /** The data dir it was taken from (absolute; absent in backups before it was noted): restore names its master key. */
  readonly data_dir?: string;
  readonly journal: { readonly tail_seq: number; readonly head_hash: string | null };
  readonly files: readonly BackupFile[];
  readonly not_included: readonly string[];
}

function sha256Of(path: string): { bytes: number; sha256: string } {
  const hash = createHash('sha256');
  const fd = openSync(path, 'r');
  const chunk = Buffer.allocUnsafe(1 << 20);
  let bytes = 0;
  try {
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) { hash.update(chunk.subarray(0, n)); bytes += n; }
  } finally {
    closeSync(fd);
  }
  return { bytes, sha256: hash.digest('hex') };
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try { fsyncSync(fd); } finally { closeSync(fd); }
}

/** A copy of a file, 0600 and fsynced (large files are never read into memory). */
function copyPrivate(source: string, target: string): void {
  copyFileSync(source, target);
  chmodSync(target, privateFileMode);
  fsyncPath(target);
}

/** A consistent copy of a live SQLite database in WAL mode (one read transaction), 0600 and fsynced. */
function vacuumInto(source: string, target: string): void {
  preparePrivateDatabase(target); // an empty 0600 file, which VACUUM INTO fills
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('VACUUM INTO ?').run(target);
  } finally {
    db.close();
  }
  fsyncPath(target);
}

function journalHead(path: string): BackupManifest['journal'] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare<[], { seq: number; hash: string }>('SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1').get();
    return { tail_seq: row?.seq ?? 0, head_hash: row?.hash ?? null };
  } finally {
    db.close();
  }
}

/**
 * Backs `dataDir` up into `toDir`, which must not exist yet (a backup is never written over
 * another). Returns the manifest. Throws, leaving `toDir` without a manifest, on any failure.
 */
export function makeBackup(dataDir: string, toDir: string, now: () => number = Date.now): BackupManifest {
  const journal = join(dataDir, journalFileName);
  if (!existsSync(journal)) throw new Error(`no ${journalFileName} in ${dataDir}`);
  refuseNewerJournalFile(journal); // a backup this build could not restore from is no backup
  if (existsSync(toDir)) throw new Error(`${toDir} exists: a backup goes into a new directory`);
  const within = relative(resolve(dataDir), resolve(toDir));
  if (!within.startsWith('..') && !isAbsolute(within)) {
    throw new Error(`${toDir} is inside the data dir ${dataDir}: a backup there is lost with it (its disk, a restore that moves the data dir aside); back up to another disk, e.g. /var/backups/satang`);
  }
  ensurePrivateDir(toDir);
  const files: BackupFile[] = [];
  const note = (relative: string) => { files.push({ path: relative, ...sha256Of(join(toDir, relative)) }); };

  // Before the journal: the server appends a back-office call's action-log row before its
  // request-log line, so every call this copy holds has its row in the journal copied after
  // it (verify holds the one against the other). Copied after, a call answered between the
  // two would be a line without its row, and the backup — and every restore of it — fail verify.
  const logs = join(dataDir, requestLogFileName);
  if (existsSync(logs)) { vacuumInto(logs, join(toDir, requestLogFileName)); note(requestLogFileName); }
  const takenAt = now();
  vacuumInto(journal, join(toDir, journalFileName));
  note(journalFileName);
  // After the journal: every receipt it names is already on disk.
  const slips = join(dataDir, slipsDir);
  if (existsSync(slips)) {
    ensurePrivateDir(join(toDir, slipsDir));
    for (const name of readdirSync(slips).sort()) {
      if (name.includes(slipTemporaryMarker) || !lstatSync(join(slips, name)).isFile()) continue;
      copyPrivate(join(slips, name), join(toDir, slipsDir, name));
      note(`${slipsDir}/${name}`);
    }
    fsyncPath(join(toDir, slipsDir));
  }
  for (const name of sealedKeyFiles) {
    if (!existsSync(join(dataDir, name))) continue;
    copyPrivate(join(dataDir, name), join(toDir, name));
    note(name);
  }
  const manifest: BackupManifest = {
    format: backupFormat, taken_at: new Date(takenAt).toISOString(), data_dir: resolve(dataDir), journal: journalHead(join(toDir, journalFileName)), files,
    not_included: ['projections.db (rebuilt from the journal when the server starts without it)', 'the master key (keep it apart from the data and its backups)'],
  };
  // Written last, under a temporary name and renamed: a directory without it is no backup.
  writePrivateFile(join(toDir, `${manifestFileName}.partial`), `${JSON.stringify(manifest, null, 2)}\n`);
  fsyncPath(join(toDir, `${manifestFileName}.partial`));
  renameSync(join(toDir, `${manifestFileName}.partial`), join(toDir, manifestFileName));
  fsyncPath(toDir);
  return manifest;
}

/** Where the data dir notes its last verified backup (satang backup writes it; the server's metrics read it). */
export const lastBackupFileName = 'last-backup.json';

export interface LastBackup {
  readonly taken_at: string; readonly tail_seq: number; readonly head_hash: string | null; readonly path: string;
  /** When a rekey retired the master key this backup is sealed with (it restores only with that key); absent: sealed with the data dir's key. */
  readonly sealed_with_retired_key_at?: string;
}

/** Notes a backup that verified in the data dir it was taken of (0600, written whole): the alert on a stale backup reads it. */
export function recordBackup(dataDir: string, toDir: string, manifest: BackupManifest): void {
  const last: LastBackup = { taken_at: manifest.taken_at, tail_seq: manifest.journal.tail_seq, head_hash: manifest.journal.head_hash, path: toDir };
  writePrivateFile(join(dataDir, lastBackupFileName), `${JSON.stringify(last, null, 2)}\n`);
}

/**
 * Notes, after a rekey, that the data dir's last backup is sealed with the retired key: no
 * backup restores with the key the server now runs on, so restorableBackupAtMs is null and
 * the stale-backup alert fires until `satang backup` is run again. Nothing when no backup is noted.
 */
export function noteBackupSealedWithRetiredKey(dataDir: string, at: Date): void {
  const last = lastBackup(dataDir);
  if (!last || last.sealed_with_retired_key_at) return;
  writePrivateFile(join(dataDir, lastBackupFileName), `${JSON.stringify({ ...last, sealed_with_retired_key_at: at.toISOString() }, null, 2)}\n`);
}

/** When the last verified backup that restores with the data dir's current master key was taken (ms), or null: the metric the stale-backup alert reads. */
export function restorableBackupAtMs(dataDir: string): number | null {
  const last = lastBackup(dataDir);
  return last && !last.sealed_with_retired_key_at ? Date.parse(last.taken_at) : null;
}

/** The last verified backup the data dir notes, or null (none yet, or a note that does not read). */
export function lastBackup(dataDir: string): LastBackup | null {
  try {
    const last = JSON.parse(readFileSync(join(dataDir, lastBackupFileName), 'utf8')) as LastBackup;
    return typeof last.taken_at === 'string' && Number.isFinite(Date.parse(last.taken_at)) ? last : null;
  } catch {
    return null;
  }
}

/** The manifest of a backup directory as it says it is (checkBackup checks the files against it). */
export function readManifest(fromDir: string): BackupManifest {
  const path = join(fromDir, manifestFileName);
  if (!existsSync(path)) throw new Error(`${fromDir} holds no ${manifestFileName}: not a finished backup`);
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as BackupManifest;
  if (manifest.format !== backupFormat) throw new Error(`${path}: format ${String(manifest.format)}, expected ${backupFormat}`);
  return manifest;
}

/** The manifest of a backup directory, checked: every file it lists has its size and SHA-256. */
export function checkBackup(fromDir: string): BackupManifest {
  const manifest = readManifest(fromDir);
  const path = join(fromDir, manifestFileName);
  for (const f of manifest.files) {
    if (f.path.split('/').some((part) => part === '..' || part === '') || f.path.startsWith('/')) throw new Error(`${path}: ${f.path} is not a plain path inside the backup`);
    const at = join(fromDir, f.path);
    if (!existsSync(at)) throw new Error(`${f.path} is missing from the backup`);
    const { bytes, sha256 } = sha256Of(at);
    if (bytes !== f.bytes || sha256 !== f.sha256) throw new Error(`${f.path} differs from the manifest (damaged or changed since the backup)`);
  }
  return manifest;
}

/**
 * Restores a checked backup into `dataDir`, which must hold no journal (an existing data
 * dir is moved aside by the operator, never overwritten here). Files are copied 0600 under
 * temporary names and renamed into place, journal.db last, so an interrupted restore leaves
 * no journal behind to start on.
 */
export function restoreBackup(fromDir: string, dataDir: string): BackupManifest {
  const manifest = checkBackup(fromDir);
  refuseNewerJournalFile(join(fromDir, journalFileName)); // a newer satang's: this build would misread it
  if (existsSync(join(dataDir, journalFileName))) throw new Error(`${dataDir} already holds ${journalFileName}: move the data dir aside first`);
  ensurePrivateDir(dataDir);
  writeRestoreMarker(dataDir, manifest);
  const ordered = [...manifest.files.filter((f) => f.path !== journalFileName), ...manifest.files.filter((f) => f.path === journalFileName)];
  for (const f of ordered) {
    const target = join(dataDir, f.path);
    if (f.path.includes('/')) ensurePrivateDir(join(dataDir, f.path.slice(0, f.path.lastIndexOf('/'))));
    const partial = `${target}${slipTemporaryMarker}restore`; // swept by the slip store if a restore is cut short
    copyPrivate(join(fromDir, f.path), partial);
    renameSync(partial, target);
  }
  if (existsSync(join(dataDir, slipsDir))) fsyncPath(join(dataDir, slipsDir));
  fsyncPath(dataDir);
  return manifest;
}

/** The restore's note to the server's next start (see the header). */
export const restoreMarkerFileName = 'restored.json';

export interface RestoreMarker {
  /** Names this restore: the journaled jump carries it, so a second start knows it is done. */
  readonly id: string;
  /** The backup's taken_at, in ms. */
  readonly backupTakenAt: number;
  /** When the restore was made, in ms (absent from a marker written by hand). */
  readonly restoredAt?: number;
}

function writeRestoreMarker(dataDir: string, manifest: BackupManifest): void {
  const marker = { id: randomUUID(), backup_taken_at: manifest.taken_at, restored_at: new Date().toISOString() };
  writePrivateFile(join(dataDir, restoreMarkerFileName), `${JSON.stringify(marker, null, 2)}\n`);
  fsyncPath(dataDir);
}

/** restored.json does not read, or lacks a field: the start is refused (its jump would be skipped), saying what to write in it. */
export class RestoreMarkerUnreadable extends Error {}

/** The restore the data dir has not started on yet, or null; a marker that does not read is refused (its jump would be skipped). */
export function readRestoreMarker(dataDir: string): RestoreMarker | null {
  const path = join(dataDir, restoreMarkerFileName);
  if (!existsSync(path)) return null;
  let marker: { id?: unknown; backup_taken_at?: unknown; restored_at?: unknown };
  try {
    marker = JSON.parse(readFileSync(path, 'utf8')) as typeof marker;
  } catch (error) {
    throw new RestoreMarkerUnreadable(`${path} does not read (${(error as Error).message}): it is what a restore leaves for the first start, which moves every merchant's sequences past what the lost tail gave out; write {"id": "<any new uuid>", "backup_taken_at": "<the backup's taken_at>"} into it`);
  }
  const takenAt = typeof marker.backup_taken_at === 'string' ? Date.parse(marker.backup_taken_at) : NaN;
  if (typeof marker.id !== 'string' || marker.id === '' || !Number.isFinite(takenAt)) {
    throw new RestoreMarkerUnreadable(`${path} lacks its id or backup_taken_at: write {"id": "<any new uuid>", "backup_taken_at": "<the backup's taken_at>"} into it`);
  }
  const restoredAt = typeof marker.restored_at === 'string' ? Date.parse(marker.restored_at) : NaN;
  return { id: marker.id, backupTakenAt: takenAt, ...(Number.isFinite(restoredAt) ? { restoredAt } : {}) };
}

/** A span of wall-clock time (ms, `until` excluded) whose back-office calls a backup's request log may hold without their action-log rows. */
export interface RequestLogAheadOfJournal { readonly from: number; readonly until: number }

/**
 * Where a backup taken by a build before 2026-12-01 left the request log ahead of the journal:
 * it copied journal.db (its snapshot begun after taken_at) and then logs.db, so a back-office
 * call answered in between is a line there without its row here — in the backup, and in every
 * data dir restored from it, for good. Such a call was answered after the backup's taken_at
 * and before its restore; a backup taken since copies logs.db first and holds no call past
 * taken_at, so the spans excuse nothing of it. Read from what records a backup: the manifest
 * of a backup directory that names this journal's tail (until forever: nothing is appended to
 * a backup), a restore's marker before the first start (until it was restored), and each
 * restore's jump journaled (hash-chained) by that start (until the start). Calls outside
 * every span, older than the backup, still need their rows.
 */
export function requestLogAheadOfJournal(dataDir: string, db: Db): RequestLogAheadOfJournal[] {
  return backupSpans(dataDir, db).map((s) => ({ from: s.from, until: Math.min(s.until, s.from + backupCopySpanMaxMs) }));
}

/**
 * The longest an older build's backup took between its taken_at and its copy of logs.db: the
 * journal's copy and check (10 s for a 957 MB journal, measured). A span is cut to it, so a
 * backup.json or restored.json written by hand into a data dir excuses no more than this much
 * of the request log, wherever it says the backup was taken (and the count is reported).
 */
export const backupCopySpanMaxMs = 60 * 60 * 1000;

function backupSpans(dataDir: string, db: Db): RequestLogAheadOfJournal[] {
  const spans: RequestLogAheadOfJournal[] = [];
  const hasJournal = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'journal'").get() !== undefined;
  const manifest = hasJournal && existsSync(join(dataDir, manifestFileName)) ? readOrNull(() => readManifest(dataDir)) : null;
  if (manifest) {
    const tail = db.prepare<[], { seq: number; hash: string }>('SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1').get();
    // A manifest beside a journal it does not describe (copied into a live data dir) excuses nothing.
    if (manifest.journal.tail_seq === (tail?.seq ?? 0) && manifest.journal.head_hash === (tail?.hash ?? null)) spans.push({ from: Date.parse(manifest.taken_at), until: Infinity });
  }
  const marker = readOrNull(() => readRestoreMarker(dataDir)); // one that does not read: the server's start says so
  if (marker?.restoredAt !== undefined) spans.push({ from: marker.backupTakenAt, until: marker.restoredAt });
  if (hasJournal) {
    const firstStarts = new Map<string, RequestLogAheadOfJournal>();
    for (const { recorded_at: at, data } of db.prepare<[], { recorded_at: number; data: string }>("SELECT recorded_at, data FROM journal WHERE type = 'SequencesAdvancedAfterRestore' ORDER BY seq").iterate()) {
      const jump = decode<{ restoreId: string; backupTakenAt: number }>(data);
      if (!firstStarts.has(jump.restoreId)) firstStarts.set(jump.restoreId, { from: jump.backupTakenAt, until: at });
    }
    spans.push(...firstStarts.values());
  }
  return spans.filter((s) => Number.isFinite(s.from));
}

function readOrNull<T>(read: () => T | null): T | null {
  try { return read(); } catch { return null; }
}

/** Once the jump is journaled and durable. */
export function removeRestoreMarker(dataDir: string): void {
  rmSync(join(dataDir, restoreMarkerFileName), { force: true });
  fsyncPath(dataDir);
}
