// `scripts/satang verify [--data-dir DIR]`: checks journal.db without changing it (see
// adapters/sqlite/verify.ts) and every file of the data dir for secrets in clear and loose
// modes (adapters/sqlite/verify-at-rest.ts), and prints the JSON report (the journal's
// fields, and `secrets_at_rest`). Exit code 0 when everything holds, 1 on any mismatch or
// finding, 2 when the database cannot be read.

import { openDatabase, type Db } from '../../adapters/sqlite/schema.ts';
import { verifyStore, type VerifyReport } from '../../adapters/sqlite/verify.ts';
import { verifyActionLog, type ActionLogReport } from '../../adapters/sqlite/action-log.ts';
import { scanDataDir } from '../../adapters/sqlite/verify-at-rest.ts';
import { readConfig } from '../../server/config.ts';
import { existingMasterKey } from '../../server/master-key.ts';
import { startProgress } from './progress.ts';
import { defaultDataDir, parseCommand, text, type CommandSpec } from './args.ts';

export const verifySpec: CommandSpec = {
  usage: 'satang verify',
  summary: "Checks journal.db without changing it: the hash chain, a replay against the snapshots, every balance against the postings, outbox and idempotency rows, the action log's hash chain, and scans every file of the data dir for secrets in clear and loose file modes. Prints a JSON report; exit 0 when all holds, 1 on a mismatch, 2 when the database cannot be read.",
  options: {
    'data-dir': { type: 'string', value: 'DIR', default: defaultDataDir, help: "the server's data directory ($SATANG_DATA_DIR)" },
  },
};

/** The journal's checks (chain, replay, balances, rows) and the action log's chain, with progress on stderr; the database is only read. */
export function verifyJournal(db: Db): { report: VerifyReport; actionLog: ActionLogReport } {
  const progress = startProgress('verify', { total: 0 });
  const report = verifyStore(db, (seq, lastSeq) => progress.step(seq, { phase: 'replay', total: lastSeq }));
  progress.finish();
  return { report, actionLog: verifyActionLog(db) };
}

export async function verifyCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(verifySpec, argv);
  if (typeof args === 'number') return args;
  const dataDir = text(args, 'data-dir');
  let db;
  try {
    db = openDatabase(dataDir, { mustExist: true });
  } catch (error) {
    console.log(JSON.stringify({ ok: false, error: (error as Error).message }));
    return 2;
  }
  try {
    const { report, actionLog } = verifyJournal(db);
    // Scanned with the database open, so the -wal and -shm files are there to be read too.
    const atRest = scanDataDir(dataDir, { masterKey: masterKeyOf(dataDir) });
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
