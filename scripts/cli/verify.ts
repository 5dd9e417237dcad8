// `scripts/satang verify [--data-dir DIR]`: checks journal.db without changing it (see
// adapters/sqlite/verify.ts) and every file of the data dir for secrets in clear and loose
// modes (adapters/sqlite/verify-at-rest.ts), and prints the JSON report (the journal's
// fields, and `secrets_at_rest`). Exit code 0 when everything holds, 1 on any mismatch or
// finding, 2 when the database cannot be read.

import { openDatabase } from '../../adapters/sqlite/schema.ts';
import { verifyStore } from '../../adapters/sqlite/verify.ts';
import { scanDataDir } from '../../adapters/sqlite/verify-at-rest.ts';
import { defaultDataDir, option, type Args } from './args.ts';

export async function verifyCommand(args: Args): Promise<number> {
  const dataDir = option(args, 'data-dir', defaultDataDir);
  let db;
  try {
    db = openDatabase(dataDir, { mustExist: true });
  } catch (error) {
    console.log(JSON.stringify({ ok: false, error: (error as Error).message }));
    return 2;
  }
  try {
    const report = verifyStore(db);
    // Scanned with the database open, so the -wal and -shm files are there to be read too.
    const atRest = scanDataDir(dataDir);
    console.log(JSON.stringify({ ...report, ok: report.ok && atRest.ok, secrets_at_rest: atRest }, null, 2));
    return report.ok && atRest.ok ? 0 : 1;
  } finally {
    db.close();
  }
}
