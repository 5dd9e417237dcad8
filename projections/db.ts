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
// Opening brings a file an older build made up to date: a table that lacks a column its
// schema now declares gets it (ALTER TABLE ADD COLUMN, logged), before anything prepares a
// statement on it — the API's reads on the main thread as much as the projections on the
// worker, so both see one shape. Rows written before hold the new column empty (NULL or
// its default) until `satang projections rebuild` replays them.
// Invariant kept: nothing here is a source of truth; all of it can be rebuilt from the
// journal (the relay positions only save work).

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { preparePrivateDatabase } from '../adapters/private-files.ts';

export type ProjectionsDb = Database.Database;

export const projectionsFileName = 'projections.db';
/**
 * Bumped when a projection's tables change shape in a way no added column covers (a key, a
 * column's type): an older file must be rebuilt. Added columns need no bump (addMissingColumns).
 */
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

/** projections.db has a shape this build cannot use: it is made anew from the journal once moved aside. */
export class ProjectionsDbRefused extends Error {
  constructor(problem: string) {
    super(`${problem}: move projections.db (and its -wal, -shm) aside and start again; it is rebuilt from journal.db`);
  }
}

/** Where opening says which columns it added to an older file. */
export interface SchemaLog {
  warn(fields: object, message: string): void;
}

/** Opens (creating if needed) `dir/projections.db` with the bookkeeping tables and `schemas`, adding the columns an older file lacks. */
export function openProjectionsDb(dir: string, schemas: readonly string[], log: SchemaLog): ProjectionsDb {
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
    if (version > schemaVersion) throw new ProjectionsDbRefused(`projections.db has schema version ${version}; this build knows ${schemaVersion}`);
    const declared = [bookkeeping, ...schemas];
    // Before the schemas run: an index they declare may name a column an older table lacks.
    const added = addMissingColumns(db, declared);
    if (added.length > 0) log.warn({ file: projectionsFileName, added }, 'projections.db: columns added to tables an older build made; their rows hold them empty until `satang projections rebuild`');
    for (const schema of declared) db.exec(schema);
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

interface ColumnInfo {
  readonly name: string;
  readonly type: string;
  readonly notnull: number;
  readonly dflt_value: string | null;
  readonly pk: number;
}

/**
 * Adds to each table of db the columns `schemas` declare for it and it lacks, in one
 * immediate transaction (the API, its worker and a projector may open the file at once).
 * What is declared is read back from SQLite itself, by running the schemas on an empty
 * in-memory database. Returns the columns added, as `table.column`. A missing column that
 * cannot be added in place (part of the key, NOT NULL without a default) is refused.
 */
function addMissingColumns(db: ProjectionsDb, schemas: readonly string[]): string[] {
  const shape = new Database(':memory:');
  try {
    for (const schema of schemas) shape.exec(schema);
    const tables = shape.prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck(true).all();
    const columnsOf = (of: ProjectionsDb, table: string) => of.prepare<[string], ColumnInfo>('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)').all(table);
    const lacking = () => tables.some((table) => {
      const present = new Set(columnsOf(db, table).map((c) => c.name));
      return present.size > 0 && columnsOf(shape, table).some((c) => !present.has(c.name));
    });
    // Read first: an open that has nothing to add (every open but an upgrade's first) takes no
    // write lock, so a reader (`satang projections status`, a worker's start) is never kept waiting.
    if (!lacking()) return [];
    return db.transaction(() => {
      const added: string[] = [];
      for (const table of tables) {
        const present = new Set(columnsOf(db, table).map((c) => c.name));
        if (present.size === 0) continue; // a new table: its schema creates it whole
        for (const column of columnsOf(shape, table)) {
          if (present.has(column.name)) continue;
          if (column.pk > 0 || (column.notnull === 1 && column.dflt_value === null)) {
            throw new ProjectionsDbRefused(`projections.db: table ${table} lacks column ${column.name}, which cannot be added in place`);
          }
          db.exec(`ALTER TABLE "${table}" ADD COLUMN "${column.name}" ${column.type}${column.notnull === 1 ? ' NOT NULL' : ''}${column.dflt_value === null ? '' : ` DEFAULT ${column.dflt_value}`}`);
          added.push(`${table}.${column.name}`);
        }
      }
      return added;
    }).immediate();
  } finally {
    shape.close();
  }
}
