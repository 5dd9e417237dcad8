// projections.db: the read models' own SQLite file in the data directory (WAL), apart
// from journal.db, so that it can be dropped, rebuilt, copied or written by a separate
// projector process without touching the write side. Besides each projection's tables
// it holds the bookkeeping of the read side:
//   projection_positions  the last journal seq each projection applied — written in the
//                         same transaction as the rows, so applying an entry twice
//                         changes nothing;
//   projection_parked     poison entries a projection gave up on, with the error;
//   projection_attempts   failed deliveries of an entry not yet applied or parked (kept
//                         here so that the bound holds across restarts);
//   relay_positions       the last seq each relay had acknowledged by its bus.
// Invariant kept: nothing here is a source of truth; all of it can be rebuilt from the
// journal (the relay positions only save work).

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { preparePrivateDatabase } from '../adapters/private-files.ts';

export type ProjectionsDb = Database.Database;

export const projectionsFileName = 'projections.db';
/** Bumped when a projection's tables change shape: an older file must be rebuilt. */
const schemaVersion = 1;
const busyTimeoutMs = 5000;

const bookkeeping = `
CREATE TABLE IF NOT EXISTS projection_positions (
  name     TEXT    PRIMARY KEY,
  last_seq INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS projection_parked (
  name     TEXT    NOT NULL,
  seq      INTEGER NOT NULL,
  type     TEXT    NOT NULL,
  stream   TEXT    NOT NULL,
  attempts INTEGER NOT NULL,
  error    TEXT    NOT NULL,
  PRIMARY KEY (name, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS projection_attempts (
  name     TEXT    NOT NULL,
  seq      INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  error    TEXT    NOT NULL,
  PRIMARY KEY (name, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS relay_positions (
  bus      TEXT    PRIMARY KEY,
  last_seq INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** Opens (creating if needed) `dir/projections.db` with the bookkeeping tables and `schemas`. */
export function openProjectionsDb(dir: string, schemas: readonly string[]): ProjectionsDb {
  // 0600 before SQLite opens it: the -wal and -shm it makes later take the database file's mode.
  preparePrivateDatabase(join(dir, projectionsFileName));
  const db = new Database(join(dir, projectionsFileName));
  try {
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new Error(`projections.db: journal_mode is ${String(mode)}, expected wal`);
    // Losing the last transactions to a power cut only means applying them again.
    db.pragma('synchronous = NORMAL');
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    db.pragma('temp_store = MEMORY');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > schemaVersion) throw new Error(`projections.db has schema version ${version}; this build knows ${schemaVersion}: rebuild it`);
    db.exec(bookkeeping);
    for (const schema of schemas) db.exec(schema);
    if (version < schemaVersion) db.pragma(`user_version = ${schemaVersion}`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The relays' acknowledged positions, by bus ('inprocess', 'nats'). */
export class RelayPositions {
  private readonly select;
  private readonly upsert;
  constructor(db: ProjectionsDb) {
    this.select = db.prepare<[string], number>('SELECT last_seq FROM relay_positions WHERE bus = ?').pluck(true);
    this.upsert = db.prepare('INSERT INTO relay_positions (bus, last_seq) VALUES (?, ?) ON CONFLICT (bus) DO UPDATE SET last_seq = excluded.last_seq');
  }
  load(bus: string): number { return this.select.get(bus) ?? 0; }
  save(bus: string, seq: number): void { this.upsert.run(bus, seq); }
}
