// `scripts/satang verify [--data-dir DIR]`: checks journal.db without changing it (see
// adapters/sqlite/verify.ts) and prints the JSON report. Exit code 0 when everything
// holds, 1 on any mismatch, 2 when the database cannot be read.

import { openDatabase } from '../../adapters/sqlite/schema.ts';
import { verifyStore } from '../../adapters/sqlite/verify.ts';
import { defaultDataDir, parseCommand, text, type CommandSpec } from './args.ts';

export const verifySpec: CommandSpec = {
  usage: 'satang verify',
  summary: "Checks journal.db without changing it: the hash chain, a replay against the snapshots, every balance against the postings, outbox and idempotency rows. Prints a JSON report; exit 0 when all holds, 1 on a mismatch, 2 when the database cannot be read.",
  options: {
    'data-dir': { type: 'string', value: 'DIR', default: defaultDataDir, help: "the server's data directory ($SATANG_DATA_DIR)" },
  },
};

export async function verifyCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(verifySpec, argv);
  if (typeof args === 'number') return args;
  let db;
  try {
    db = openDatabase(text(args, 'data-dir'), { mustExist: true });
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
