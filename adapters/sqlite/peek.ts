// What a start reads of journal.db before openStore migrates it (server/main.ts): the checks
// that may refuse the start — a newer schema, a wrong master key, a broken hash chain, a
// journal ahead of the clock — run on a read-only connection, so a start they refuse leaves
// the file as the build before left it, and the build an operator goes back to still opens it.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { masterKeyOpens, WrongMasterKey, type Sealer } from '../sealing.ts';
import { recoverWorld, type Recovered } from './recovery.ts';
import { journalFileName, openDatabaseReadOnly, tableExists, type Db } from './schema.ts';

export interface JournalPeek {
  /** The world replayed before the migration, which leaves the journal's rows and timers as they are: openStore takes it rather than replay twice. */
  readonly recovered: Recovered;
  /** When the journal's last entry was recorded (ms); 0 when it has none. */
  readonly lastRecordedAt: number;
}

/**
 * Reads and checks journal.db without writing it. Throws SchemaTooNew, WrongMasterKey,
 * ChainBroken (or SQLite's SQLITE_NOTADB). Undefined when the data dir holds no journal yet
 * (a first start: nothing to migrate, nothing to go back to).
 */
export function peekJournal(dataDir: string, sealer?: Sealer): JournalPeek | undefined {
  if (!existsSync(join(dataDir, journalFileName))) return undefined;
  const db = openDatabaseReadOnly(dataDir);
  try {
    if (!tableExists(db, 'journal') || !tableExists(db, 'timers')) return undefined;
    if (sealer && masterKeyOpens(db, sealer) === false) throw new WrongMasterKey(); // as Store's checkMasterKey would, after the migration
    const recovered = recoverWorld(db);
    return { recovered, lastRecordedAt: lastRecordedAtOf(db) };
  } finally {
    db.close();
  }
}

/**
 * When journal.db's last entry was recorded (ms), read without replaying or writing it; 0
 * when it holds none, undefined when there is no journal (satang doctor's clock check).
 */
export function journalLastRecordedAt(dataDir: string): number | undefined {
  if (!existsSync(join(dataDir, journalFileName))) return undefined;
  const db = openDatabaseReadOnly(dataDir);
  try {
    return tableExists(db, 'journal') ? lastRecordedAtOf(db) : undefined;
  } finally {
    db.close();
  }
}

const lastRecordedAtOf = (db: Db): number => db.prepare<[], number>('SELECT recorded_at FROM journal ORDER BY seq DESC LIMIT 1').pluck(true).get() ?? 0;

/**
 * The manual clock's mark in journal.db (ms; a server on SATANG_CLOCK=manual keeps it,
 * adapters/sqlite/manual-clock.ts), undefined when there is none or no journal: satang
 * doctor tells a data dir run on a manual clock from one ahead of this machine's clock.
 */
export function manualClockMarkOf(dataDir: string): number | undefined {
  if (!existsSync(join(dataDir, journalFileName))) return undefined;
  const db = openDatabaseReadOnly(dataDir);
  try {
    return tableExists(db, 'manual_clock') ? db.prepare<[], number>('SELECT now_ms FROM manual_clock WHERE id = 1').pluck(true).get() : undefined;
  } finally {
    db.close();
  }
}
