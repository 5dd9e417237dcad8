// `scripts/satang verify [--data-dir DIR]`: checks journal.db without changing it (see
// adapters/sqlite/verify.ts) and every file of the data dir for secrets in clear and loose
// modes (adapters/sqlite/verify-at-rest.ts), and prints the JSON report (the journal's
// fields, and `secrets_at_rest`). Exit code 0 when everything holds, 1 on any mismatch or
// finding, 2 when the database cannot be read.

import { openDatabaseReadOnly, type Db } from '../../adapters/sqlite/schema.ts';
import { verifyStore, type VerifyReport } from '../../adapters/sqlite/verify.ts';
import { verifyActionLog, type ActionLogHead, type ActionLogReport, type ActionLogWitnesses } from '../../adapters/sqlite/action-log.ts';
import { loggedBackOfficeCalls } from '../../adapters/request-log.ts';
import { requestLogAheadOfJournal } from '../../adapters/sqlite/backup.ts';
import { scanDataDir } from '../../adapters/sqlite/verify-at-rest.ts';
import { readConfig } from '../../server/config.ts';
import { existingMasterKey } from '../../server/master-key.ts';
import { startProgress } from './progress.ts';
import { defaultDataDir, parseCommand, text, usageError, type CommandSpec } from './args.ts';

export const verifySpec: CommandSpec = {
  usage: 'satang verify',
  summary: "Checks journal.db without changing it: the hash chain, a replay against the snapshots, every balance against the postings, outbox and idempotency rows, the action log's hash chain, and scans every file of the data dir for secrets in clear and loose file modes. Prints a JSON report; exit 0 when all holds, 1 on a mismatch, 2 when the database cannot be read.",
  options: {
    'data-dir': { type: 'string', value: 'DIR', default: defaultDataDir, help: "the server's data directory ($SATANG_DATA_DIR)" },
    'action-log-head': { type: 'string', value: 'ID:HASH[,…]', help: "action-log rows that must still be there, unchanged: the `action_log` of any /v1/bo line of the server's log, or an earlier report's action_log.head" },
  },
  notes: [
    'The action log is also checked against logs.db: every back-office call the request log holds must have its row (a chain alone cannot tell rows cut from its end) — except one answered after the taken_at of a backup this data dir is, or was restored from, and before its restore: a backup taken before 2026-12-01 copied logs.db after journal.db (counted as request_log_calls_after_backup).',
  ],
};

/** `--action-log-head 12:ab…,40:cd…` as heads, or the offending part. */
function headsOf(option: string): ActionLogHead[] | string {
  if (option === '') return [];
  const heads: ActionLogHead[] = [];
  for (const part of option.split(',')) {
    const m = /^([1-9][0-9]{0,15}):([0-9a-f]{64})$/.exec(part.trim());
    if (!m) return part;
    heads.push({ id: Number(m[1]), hash: m[2]! });
  }
  return heads;
}

/** The journal's checks (chain, replay, balances, rows) and the action log's chain and witnesses, with progress on stderr; the database is only read. */
export function verifyJournal(db: Db, witnesses: ActionLogWitnesses = {}): { report: VerifyReport; actionLog: ActionLogReport } {
  const progress = startProgress('verify', { total: 0 });
  const report = verifyStore(db, (seq, lastSeq) => progress.step(seq, { phase: 'replay', total: lastSeq }));
  progress.finish();
  return { report, actionLog: verifyActionLog(db, witnesses) };
}

export async function verifyCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(verifySpec, argv);
  if (typeof args === 'number') return args;
  const dataDir = text(args, 'data-dir');
  // Given but empty (a `$(jq …)` that found nothing) is no anchor at all: said, not passed as checked.
  if (args.values['action-log-head'] === '') return usageError(verifySpec, '--action-log-head is empty: the command that should have found the anchor found none (in a log captured from npm start, skip its banner: grep \'^{\' server.log | jq …)');
  const anchors = headsOf(text(args, 'action-log-head'));
  if (typeof anchors === 'string') return usageError(verifySpec, `--action-log-head takes ID:HASH (a row id and its 64 hex digits), comma-separated; not '${anchors}'`);
  // Read before the journal: the server writes an action-log row before the request log's, so each call read here has its row there.
  let logged;
  try {
    logged = loggedBackOfficeCalls(dataDir);
  } catch (error) {
    console.log(JSON.stringify({ ok: false, error: `logs.db: ${(error as Error).message}` }));
    return 2;
  }
  let db;
  try {
    db = openDatabaseReadOnly(dataDir); // the data dir, or a backup, exactly as it was
  } catch (error) {
    console.log(JSON.stringify({ ok: false, error: (error as Error).message }));
    return 2;
  }
  try {
    const { report, actionLog } = verifyJournal(db, { logged, anchors, loggedAheadOfJournal: requestLogAheadOfJournal(dataDir, db) });
    // Scanned with the database open, so the -wal and -shm files are there to be read too.
    const atRest = scanDataDir(dataDir, { masterKey: masterKeyOf(dataDir), journal: db });
    const ok = report.ok && atRest.ok && actionLog.ok;
    console.log(JSON.stringify({ ...report, ok, action_log: actionLog, secrets_at_rest: atRest }, null, 2));
    return ok ? 0 : 1;
  } finally {
    db.close();
  }
}

/** The master key the server would use on this data dir, if it is there to be read (the scan looks for it in clear too). */
function masterKeyOf(dataDir: string): Buffer | undefined {
  const env = { ...process.env, SATANG_DATA_DIR: dataDir };
  try {
    return existingMasterKey(readConfig(env).masterKey, env);
  } catch {
    return undefined; // a configuration the server would refuse: doctor says why
  }
}
