// `satang backup --to DIR` and `satang restore --from DIR` (adapters/sqlite/backup.ts): a
// consistent backup of the data dir taken while the server runs, checked as `satang
// verify` checks a journal, and its restore into a data dir without a journal. Both print
// a summary (or the JSON with --json); a backup that verifies is noted in the data dir
// (last-backup.json, read by the metrics); exit 0 when the result verifies, 1 when it does not
// (the backup or the restore is kept, for a person to look at), 2 on a usage error or a
// refusal (an existing target, a damaged backup).

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { makeBackup, recordBackup, restoreBackup, type BackupManifest } from '../../adapters/sqlite/backup.ts';
import { journalFileName } from '../../adapters/sqlite/schema.ts';
import { defaultDataDir, exitFailed, exitOk, exitUsage, flag, parseCommand, text, type Args, type CommandSpec } from './args.ts';
import { verifyJournal } from './verify.ts';

const dataDirOption = { type: 'string', value: 'DIR', default: defaultDataDir, help: "the server's data directory ($SATANG_DATA_DIR)" } as const;
const jsonOption = { type: 'boolean', help: 'print the manifest and the verification as JSON' } as const;

export const backupSpec: CommandSpec = {
  usage: 'satang backup --to DIR',
  summary: 'Backs the data dir up while the server runs: journal.db and logs.db as consistent snapshots, the slips, the sealed keys (not the master key: keep it apart), with a manifest of sizes and SHA-256; then verifies the copied journal (hash chain, replay, balances). DIR must not exist.',
  options: { to: { type: 'string', value: 'DIR', required: true, help: 'a new directory for the backup' }, 'data-dir': dataDirOption, json: jsonOption },
};

export const restoreSpec: CommandSpec = {
  usage: 'satang restore --from DIR',
  summary: "Restores a backup into a data dir that holds no journal (stop the server and move the old data dir aside first): checks every file against the manifest, copies them, verifies the journal. Projections are rebuilt when the server starts. With NATS, purge the journal stream first (nats stream purge SATANG_JOURNAL).",
  options: { from: { type: 'string', value: 'DIR', required: true, help: 'the backup directory (its backup.json)' }, 'data-dir': dataDirOption, json: jsonOption },
};

interface Verified { readonly ok: boolean; readonly journal_ok: boolean; readonly action_log_ok: boolean; readonly mismatches: readonly string[] }

/** `satang verify`'s journal checks on a copy, read-only (the copy is left byte for byte as its manifest says). */
function verifyCopy(dir: string): Verified {
  const db = new Database(join(dir, journalFileName), { readonly: true, fileMustExist: true });
  try {
    const { report, actionLog } = verifyJournal(db);
    return { ok: report.ok && actionLog.ok, journal_ok: report.ok, action_log_ok: actionLog.ok, mismatches: report.mismatches.slice(0, 20) };
  } finally {
    db.close();
  }
}

function print(args: Args, what: string, dir: string, manifest: BackupManifest, verified: Verified): number {
  if (flag(args, 'json')) {
    process.stdout.write(`${JSON.stringify({ [what]: dir, manifest, verified }, null, 2)}\n`);
  } else {
    const bytes = manifest.files.reduce((t, f) => t + f.bytes, 0);
    const slips = manifest.files.filter((f) => f.path.startsWith('slips/')).length;
    process.stdout.write([
      `${what} ${dir}: journal up to seq ${manifest.journal.tail_seq} (head ${manifest.journal.head_hash?.slice(0, 16) ?? 'none'}…), taken ${manifest.taken_at}`,
      `files: ${manifest.files.length} (${slips} slip files), ${(bytes / 1_048_576).toFixed(1)} MB, each with its SHA-256 in backup.json`,
      `verified: ${verified.ok ? 'hash chain, replay against the snapshots, balances against the postings, action log: OK' : `FAILED${verified.mismatches.length ? `: ${verified.mismatches.join('; ')}` : ''}`}`,
      `not included: ${manifest.not_included.join('; ')}`,
      '',
    ].join('\n'));
  }
  return verified.ok ? exitOk : exitFailed;
}

function refused(command: string, error: unknown): number {
  process.stderr.write(`satang ${command}: ${(error as Error).message}\n`);
  return exitUsage;
}

export async function backupCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(backupSpec, argv);
  if (typeof args === 'number') return args;
  const to = text(args, 'to');
  let manifest: BackupManifest;
  try {
    manifest = makeBackup(text(args, 'data-dir'), to);
  } catch (error) {
    return refused('backup', error);
  }
  const verified = verifyCopy(to);
  if (verified.ok) recordBackup(text(args, 'data-dir'), to, manifest); // the stale-backup alert's clock (server/metrics.ts)
  return print(args, 'backup', to, manifest, verified);
}

export async function restoreCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(restoreSpec, argv);
  if (typeof args === 'number') return args;
  const dataDir = text(args, 'data-dir');
  let manifest: BackupManifest;
  try {
    manifest = restoreBackup(text(args, 'from'), dataDir);
  } catch (error) {
    return refused('restore', error);
  }
  const code = print(args, 'restored into', dataDir, manifest, verifyCopy(dataDir));
  if (!flag(args, 'json')) process.stdout.write('next: start the server on this data dir; the projections are rebuilt from the journal as it starts\n');
  return code;
}
