// One API server per data dir: journal.db has one writer (the write side's world is in its
// memory), so a second server started on the same data dir — by hand beside the systemd
// unit, or a unit pointed at the wrong directory — must be refused, not left to fight the
// first over the journal's tail and send every webhook twice.
//
// The lock is an exclusive SQLite lock on `<data dir>/server.lock` (a database that holds
// nothing), taken at start and held for the life of the server. SQLite locks with POSIX
// advisory locks, which the kernel drops when the process dies however it dies, so a crash
// never leaves a stale lock behind (unlike a PID file); within one process SQLite tracks
// them itself, so a second server in the same process is refused too.

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { preparePrivateDatabase } from './private-files.ts';

export const dataDirLockFileName = 'server.lock';

export class DataDirInUse extends Error {}

export class DataDirLock {
  private constructor(private readonly db: Database.Database) {}

  /** Takes the data dir's lock, or throws DataDirInUse at once when another server holds it. */
  static acquire(dataDir: string): DataDirLock {
    const path = join(dataDir, dataDirLockFileName);
    preparePrivateDatabase(path);
    const db = new Database(path);
    try {
      db.pragma('busy_timeout = 0');
      db.pragma('journal_mode = MEMORY'); // nothing is ever written: no -journal file beside it
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      db.close();
      if (String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) {
        throw new DataDirInUse(`${dataDir} is in use by another satang server (it holds ${path}): one API server per data dir`);
      }
      throw error;
    }
    return new DataDirLock(db);
  }

  release(): void {
    if (!this.db.open) return;
    this.db.exec('ROLLBACK');
    this.db.close();
  }
}
