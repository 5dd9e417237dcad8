// Which of the data dir's SQLite files cannot be read, and what an operator does about each:
// the journal is the record (restore it from a backup), projections.db is derived from it
// and logs.db is the request log (each moved aside, the server makes a new one). A start
// that meets a file that is no database names it, rather than advise a restore that would
// throw away what was committed since the backup to mend a file the journal rebuilds.

import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectionsFileName } from '../../projections/db.ts';
import { requestLogFileName } from '../request-log.ts';
import { journalFileName } from './schema.ts';

const advice: readonly [string, string][] = [
  [journalFileName, 'the journal is the record: restore the data dir from a backup (scripts/satang restore)'],
  [projectionsFileName, 'it is built from the journal: move it aside (keep it to look at) and start again, the server builds a new one from the journal'],
  [requestLogFileName, "the request log: move it aside (keep it: it witnesses the action log's older rows) and start again, the server starts a new one"],
];

export interface UnusableDatabase {
  readonly file: string;
  readonly problem: string;
  readonly advice: string;
}

/**
 * The data dir's SQLite files that cannot be read. `thorough` adds SQLite's quick_check
 * (every page: slow on a large journal, so for a start that already failed, not for doctor).
 */
export function unusableDatabases(dataDir: string, options: { thorough?: boolean } = {}): UnusableDatabase[] {
  const out: UnusableDatabase[] = [];
  for (const [file, what] of advice) {
    const path = join(dataDir, file);
    if (!existsSync(path)) continue;
    let db: Database.Database | undefined;
    try {
      db = new Database(path, { readonly: true, fileMustExist: true });
      db.prepare('SELECT count(*) FROM sqlite_master').get();
      if (options.thorough) {
        const verdict = db.pragma('quick_check(1)', { simple: true });
        if (verdict !== 'ok') throw Object.assign(new Error(String(verdict)), { code: 'SQLITE_CORRUPT' });
      }
    } catch (error) {
      const code = String((error as { code?: unknown }).code ?? '');
      out.push({ file, problem: `${code ? `${code}: ` : ''}${(error as Error).message}`, advice: what });
    } finally {
      db?.close();
    }
  }
  return out;
}
