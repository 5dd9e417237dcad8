// `scripts/satang verify [--data-dir DIR]`: checks journal.db without changing it (see
// adapters/sqlite/verify.ts) and prints the JSON report. Exit code 0 when everything
// holds, 1 on any mismatch, 2 when the database cannot be read.

import { openDatabase } from '../../adapters/sqlite/schema.ts';
import { verifyStore } from '../../adapters/sqlite/verify.ts';
import { defaultDataDir, option, type Args } from './args.ts';

export async function verifyCommand(args: Args): Promise<number> {
  let db;
  try {
    db = openDatabase(option(args, 'data-dir', defaultDataDir), { mustExist: true });
  } catch (error) {
    console.log(JSON.stringify({ ok: false, error: (error as Error).message }));
    return 2;
  }
  try {
    const report = verifyStore(db);
    console.log(JSON.stringify(report, null, 2));
    return report.ok ? 0 : 1;
  } finally {
    db.close();
  }
}
