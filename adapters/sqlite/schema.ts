// The write side's SQLite database: opening it durably and its schema. Invariants kept:
// the connection runs in WAL mode with synchronous=FULL (checked by reading it back, since
// the bundled build defaults WAL to NORMAL), so a committed transaction is on disk; the
// journal and the postings are append-only (triggers refuse UPDATE and DELETE); a stream's
// versions are unique, which is the optimistic-concurrency guard; an outbox sequence is
// never given twice to one merchant and mode.

import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { writeSideLimits } from '../../core/limits.ts';
import { preparePrivateDatabase } from '../private-files.ts';

export type Db = Database.Database;

export const journalFileName = 'journal.db';
/**
 * journal.db's schema version (PRAGMA user_version), raised by a change an older build would
 * misread rather than merely not use: it refuses a newer version (SchemaTooNew) instead of
 * running on it. 1: the first. 2: a webhook URL with a query kept sealed
 * (webhook_endpoints.url_sealed; an older build read the redacted url and sent every
 * delivery there, the receiver's token lost) and the manual clock's mark (manual_clock).
 * 3: a late slip's hold on the withdrawal it paid (LegCompleted / DepositUnderReview
 * holdMinor: an older build's deposit takes the leg for released, and leaves the hold behind
 * or releases it twice) and white labels' fee schedules (FeeScheduleProposed/Set, which an
 * older build cannot replay). 4: a late slip's leg owed more than its withdrawal could hold
 * (LegCompleted / DepositUnderReview owedMinor, LegReserved owedMinor, a leg in flight
 * holding 0): a version-3 build takes a leg owed with nothing held for released, so the
 * withdrawal keeps an empty leg in flight for good, and tops nothing up; a closed claim
 * refund's fill reversed to suspense (FillReversed.toSuspense) and its claim reopened on a
 * replacement (ClaimRefundRecalled) and a claim's refund owed back by the payer after its
 * deposit's reversal (ClaimRefundOwed), which a version-3 build cannot replay; events marked
 * silent (no object version moved), which it would count. 5: a restore's sequence jump
 * (SequencesAdvancedAfterRestore, and the ranges it skipped in outbox_sequence_jumps): a
 * version-4 build's replay stops on the entry as an unhandled event, and its events feed,
 * not knowing the skipped ranges, would hold every restored merchant's feed at the jump;
 * the upgrade is only the new table (CREATE TABLE IF NOT EXISTS, as every upgrade's).
 */
const schemaVersion = 5;

/** journal.db was written by a newer satang: this build would misread it (a downgrade). */
export class SchemaTooNew extends Error {
  constructor(readonly version: number) {
    super(`journal.db has schema version ${version}, written by a newer satang; this build knows up to ${schemaVersion}: run that build (or a later one), or restore a backup this build took — an older build would misread what the newer one stores`);
  }
}
/** PRAGMA synchronous reads back 2 for FULL. */
const synchronousFull = 2;

const schema = `
CREATE TABLE IF NOT EXISTS journal (
  seq         INTEGER PRIMARY KEY,
  stream      TEXT    NOT NULL,
  kind        TEXT    NOT NULL,  -- the stream's kind (deposit, withdrawal, balance_transaction, ...)
  version     INTEGER NOT NULL,
  type        TEXT    NOT NULL,
  livemode    INTEGER,           -- 1 live, 0 sandbox, NULL for records outside a mode
  merchant_id TEXT,
  recorded_at INTEGER NOT NULL,  -- ms since the epoch
  data        TEXT    NOT NULL,  -- core's encode() of the domain event
  prev_hash   TEXT    NOT NULL,
  hash        TEXT    NOT NULL,
  UNIQUE (stream, version)
);
CREATE TRIGGER IF NOT EXISTS journal_refuses_update BEFORE UPDATE ON journal
  BEGIN SELECT RAISE(ABORT, 'journal is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS journal_refuses_delete BEFORE DELETE ON journal
  BEGIN SELECT RAISE(ABORT, 'journal is append-only: DELETE refused'); END;
-- An adjustment proposal by its id: the back office names an approved adjustment's proposer
-- (server/routes/bo-balance-transactions.ts) without reading its merchant's whole stream.
-- Built over an existing journal when a build with it first opens it (one pass).
CREATE INDEX IF NOT EXISTS journal_adjustment_proposals ON journal (json_extract(data, '$.proposal.id')) WHERE type = 'AdjustmentProposed';

CREATE TABLE IF NOT EXISTS postings (
  journal_seq            INTEGER NOT NULL,
  balance_transaction_id TEXT    NOT NULL,
  account                TEXT    NOT NULL,  -- core/ledger accountKey()
  amount                 INTEGER NOT NULL   -- satang, signed 64-bit
);
CREATE TRIGGER IF NOT EXISTS postings_refuse_update BEFORE UPDATE ON postings
  BEGIN SELECT RAISE(ABORT, 'postings are append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS postings_refuse_delete BEFORE DELETE ON postings
  BEGIN SELECT RAISE(ABORT, 'postings are append-only: DELETE refused'); END;

CREATE TABLE IF NOT EXISTS snapshots (
  stream      TEXT    PRIMARY KEY,
  kind        TEXT    NOT NULL,
  version     INTEGER NOT NULL,
  data        TEXT    NOT NULL,  -- encode() of the internal state after journal_seq
  journal_seq INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS outbox (
  id          TEXT    PRIMARY KEY,  -- evt_<ULID>
  merchant_id TEXT    NOT NULL,
  livemode    INTEGER NOT NULL,
  sequence    INTEGER NOT NULL,
  type        TEXT    NOT NULL,
  stream      TEXT    NOT NULL,
  version     INTEGER NOT NULL,
  created_at  INTEGER NOT NULL,
  body        TEXT    NOT NULL,     -- the exact bytes of the webhook envelope
  journal_seq INTEGER NOT NULL,
  UNIQUE (merchant_id, livemode, sequence)
);
CREATE TABLE IF NOT EXISTS outbox_sequences (
  merchant_id   TEXT    NOT NULL,
  livemode      INTEGER NOT NULL,
  last_sequence INTEGER NOT NULL,
  PRIMARY KEY (merchant_id, livemode)
) WITHOUT ROWID;
-- The sequences a restore's jump passed over (SequencesAdvancedAfterRestore, writer.ts): no
-- event ever held one, so the events feed pages over them as over what retention deleted.
CREATE TABLE IF NOT EXISTS outbox_sequence_jumps (
  merchant_id   TEXT    NOT NULL,
  livemode      INTEGER NOT NULL,
  from_sequence INTEGER NOT NULL,
  to_sequence   INTEGER NOT NULL,
  PRIMARY KEY (merchant_id, livemode, from_sequence)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS timers (
  id     TEXT    PRIMARY KEY,
  stream TEXT    NOT NULL,
  kind   TEXT    NOT NULL,
  due_at INTEGER NOT NULL,
  arg    TEXT
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS idempotency (
  scope        TEXT    NOT NULL,
  key          TEXT    NOT NULL,
  request_hash TEXT    NOT NULL,
  request_id   TEXT    NOT NULL,
  status       INTEGER NOT NULL,
  body         TEXT    NOT NULL,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  journal_seq  INTEGER,            -- last entry of the commit it rode with; NULL when it had none
  PRIMARY KEY (scope, key)
);
CREATE INDEX IF NOT EXISTS idempotency_by_expiry ON idempotency (expires_at);

CREATE TABLE IF NOT EXISTS nonces (
  scope      TEXT    NOT NULL,
  nonce      TEXT    NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (scope, nonce)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS nonces_by_expiry ON nonces (expires_at);
`;

/** Opens (creating if needed) `dir/journal.db` with the durable settings and the schema. */
export function openDatabase(dir: string, options: { mustExist?: boolean } = {}): Db {
  const file = join(dir, journalFileName);
  if (options.mustExist && !existsSync(file)) throw new Error(`no ${journalFileName} in ${dir}`);
  // 0600 before SQLite opens it: the -wal and -shm it makes later take the database file's mode.
  if (!options.mustExist) preparePrivateDatabase(file);
  const db = new Database(file);
  try {
    refuseNewerSchema(db); // rekey and the writer thread open an existing journal without migrating it
    configure(db);
    if (!options.mustExist) migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Opens `dir/journal.db` to read only: no journal-mode switch, no schema, nothing written
 * — so `satang verify` on a backup leaves its bytes as the backup's manifest has them (it
 * switched a backup's copy to WAL, and restore then refused it as changed).
 */
/** Whether the database has this table (a data dir an older build left may lack it). */
export function tableExists(db: Db, table: string): boolean {
  return db.prepare<[string], number>("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").pluck(true).get(table) !== undefined;
}

export function openDatabaseReadOnly(dir: string): Db {
  const file = join(dir, journalFileName);
  if (!existsSync(file)) throw new Error(`no ${journalFileName} in ${dir}`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${writeSideLimits.sqliteBusyTimeoutMs}`);
    refuseNewerSchema(db); // verify would replay entries this build may not read as the newer one wrote them
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function configure(db: Db): void {
  const mode = db.pragma('journal_mode = WAL', { simple: true });
  if (mode !== 'wal') throw new Error(`journal.db: journal_mode is ${String(mode)}, expected wal`);
  db.pragma('synchronous = FULL');
  // Each group-committed command runs in a SAVEPOINT, whose rollback journal is a temp file
  // by default; in memory it costs a quarter less per command. Durability is unaffected:
  // it only serves a rollback inside the open transaction.
  db.pragma('temp_store = MEMORY');
  db.pragma(`busy_timeout = ${writeSideLimits.sqliteBusyTimeoutMs}`);
  assertDurable(db);
}

/**
 * Makes `db.transaction(fn)` begin IMMEDIATE by default (its .deferred() stays available).
 * For a connection that shares journal.db's writes with the writer thread: a DEFERRED
 * transaction that reads and then writes fails with SQLITE_BUSY_SNAPSHOT when the other
 * connection committed in between, and no busy timeout helps it; an IMMEDIATE one takes
 * the write lock first and waits (busy_timeout) for the other's short transaction to end.
 */
export function immediateTransactions(db: Db): void {
  const make = db.transaction.bind(db);
  db.transaction = ((fn: Parameters<Db['transaction']>[0]) => {
    const t = make(fn);
    return Object.assign((...args: unknown[]) => t.immediate(...args), { default: t.immediate, deferred: t.deferred, immediate: t.immediate, exclusive: t.exclusive });
  }) as Db['transaction'];
}

/** Refuses to run unless a commit reaches the disk before it returns. */
export function assertDurable(db: Db): void {
  const synchronous = db.pragma('synchronous', { simple: true });
  if (synchronous !== synchronousFull) throw new Error(`journal.db: PRAGMA synchronous reads ${String(synchronous)}, expected ${synchronousFull} (FULL)`);
}

/** Refuses a journal.db a newer build wrote, before anything reads or writes it: this build would misread it. */
export function refuseNewerSchema(db: Db): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > schemaVersion) throw new SchemaTooNew(version);
}

/** refuseNewerSchema for a journal file not yet opened (a data dir to back up, a backup to restore), read-only. */
export function refuseNewerJournalFile(file: string): void {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    refuseNewerSchema(db);
  } finally {
    db.close();
  }
}

/** After openDatabase's refuseNewerSchema: the version is this build's or an older one's. */
function migrate(db: Db): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  db.exec(schema);
  if (version < schemaVersion) db.pragma(`user_version = ${schemaVersion}`);
}
