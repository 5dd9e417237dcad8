// The request log: the request/response history of merchant and operator calls, for
// GET /v1/bo/logs, in a store of its own ($SATANG_DATA_DIR/logs.db, not the journal: it is
// operational data, pruned, and never a source of truth). What arrives here is already
// redacted and truncated (server/redact.ts); this store only keeps it.
//
// One writer, RequestLogStore, owned by the request log's worker thread
// (server/request-log-worker.ts): each batch is one transaction, and rows older than
// backOfficeLimits.requestLogRetentionMs before the batch's `now` (wall clock) are deleted
// every requestLogPruneEveryFlushes batches. Readers, RequestLogReader, are connections of
// their own that cannot write (query_only); in WAL mode a read sees every batch committed
// before it began.

import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { backOfficeLimits } from '../core/limits.ts';
import { preparePrivateDatabase } from './private-files.ts';

export const requestLogFileName = 'logs.db';

/**
 * A log page's condition that leaves out reads of the service clock when @without_clock is 1: the
 * console reads GET /v1/bo/clock on every navigation on a manual clock, and those rows would bury
 * the operators' real calls (the request log and the action log both take it; the route is the pattern).
 */
export const withoutClockReadsSql = "(@without_clock = 0 OR NOT (method = 'GET' AND route = '/v1/bo/clock'))";
const { requestLogPruneEveryFlushes: pruneEveryFlushes, requestLogRetentionMs: retentionMs } = backOfficeLimits;

export interface RequestLogRecord {
  readonly at: number;
  readonly requestId: string;
  readonly merchantId: string | null;
  readonly livemode: boolean | null;
  /** The API key that signed the request (its id, never its secret), for a merchant call. */
  readonly keyId: string | null;
  /** The client's address as the server saw it (behind a proxy: as SATANG_TRUST_PROXY says). */
  readonly ip: string | null;
  readonly operator: string | null;
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly durationMs: number;
  readonly errorCode: string | null;
  readonly requestBody: string | null;
  readonly responseBody: string | null;
}

export interface RequestLogQuery {
  readonly requestId?: string;
  readonly merchantId?: string;
  readonly keyId?: string;
  readonly route?: string;
  readonly status?: number;
  readonly since?: number;
  /** Leave out reads of the service clock (GET /v1/bo/clock: a console on a manual clock reads it on every navigation). */
  readonly withoutClockReads?: boolean;
  readonly beforeId?: number;
  readonly limit: number;
}

export interface RequestLogRow {
  id: number; at: number; request_id: string; merchant_id: string | null; livemode: number | null; key_id: string | null; ip: string | null; operator: string | null; method: string; route: string;
  status: number; duration_ms: number; error_code: string | null; request_body: string | null; response_body: string | null;
}

/**
 * Reads logs.db's schema on a read-only connection, throwing what SQLite says of a file that
 * is no database (SQLITE_NOTADB): the server asks this before journal.db is migrated, so a
 * start this refuses leaves the journal as the build before left it (server/main.ts).
 */
export function refuseUnreadableRequestLog(dataDir: string): void {
  const file = join(dataDir, requestLogFileName);
  if (!existsSync(file)) return;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } finally {
    db.close();
  }
}

/** Opens logs.db (created 0600 on first use), in WAL mode, with its table and indexes. */
function openRequestLogDb(dataDir: string): Database.Database {
  const file = join(dataDir, requestLogFileName);
  preparePrivateDatabase(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL'); // operational data: losing the last rows in a power cut is acceptable
  db.exec(`CREATE TABLE IF NOT EXISTS request_logs (
    id INTEGER PRIMARY KEY, at INTEGER NOT NULL, request_id TEXT NOT NULL, merchant_id TEXT, livemode INTEGER, operator TEXT, method TEXT NOT NULL,
    route TEXT NOT NULL, status INTEGER NOT NULL, duration_ms INTEGER NOT NULL, error_code TEXT, request_body TEXT, response_body TEXT);
    CREATE INDEX IF NOT EXISTS request_logs_by_at ON request_logs (at);
    CREATE INDEX IF NOT EXISTS request_logs_by_request ON request_logs (request_id);`);
  // Which key and from where (after an API key leaks: what did it do, from which address).
  const columns = db.prepare<[], string>("SELECT name FROM pragma_table_info('request_logs')").pluck(true).all();
  if (!columns.includes('key_id')) db.exec('ALTER TABLE request_logs ADD COLUMN key_id TEXT; ALTER TABLE request_logs ADD COLUMN ip TEXT');
  db.exec('CREATE INDEX IF NOT EXISTS request_logs_by_key ON request_logs (key_id) WHERE key_id IS NOT NULL');
  return db;
}

/**
 * logs.db's user_version while rows rewritten under the rules of `version` wait for the
 * vacuum that drops their old bytes: negative, so below every rules version (an older build
 * redoes its own rewrite, and vacuums, as for any older rules).
 */
const vacuumOwed = (version: number) => -version;

/** The one writer of logs.db. `now` arguments are wall-clock ms (the prune's reference). */
export class RequestLogStore {
  private readonly db: Database.Database;
  private batches = 0;
  private readonly s;

  constructor(dataDir: string) {
    this.db = openRequestLogDb(dataDir);
    this.s = {
      insert: this.db.prepare(`INSERT INTO request_logs (at, request_id, merchant_id, livemode, key_id, ip, operator, method, route, status, duration_ms, error_code, request_body, response_body)
        VALUES (@at, @requestId, @merchantId, @livemode, @keyId, @ip, @operator, @method, @route, @status, @durationMs, @errorCode, @requestBody, @responseBody)`),
      prune: this.db.prepare<[number]>('DELETE FROM request_logs WHERE at < ?'),
    };
  }

  /** Writes one batch in one transaction; prunes what has outlived the retention now and then. */
  append(records: readonly RequestLogRecord[], now: number): void {
    if (records.length === 0) return;
    this.db.transaction(() => {
      for (const r of records) this.s.insert.run({ ...r, livemode: r.livemode === null ? null : r.livemode ? 1 : 0 });
      if (++this.batches % pruneEveryFlushes === 1) this.s.prune.run(now - retentionMs);
    })();
  }

  /**
   * Redacts every stored body again with `redact` when logs.db's rows were redacted under
   * rules older than `version` (its user_version), vacuums away the bytes the old bodies held
   * (the WAL checkpointed and emptied too) when a row changed, and only then records
   * `version`. The first rewrite that changes a row records, in its own transaction, that a
   * vacuum is owed (vacuumOwed): a start that fails on the way does it all again, the rewrite
   * finding nothing left to change and the vacuum still run. A bump that changes no row
   * leaves the file as it was. Answers how many rows changed.
   */
  redactStored(version: number, redact: (text: string) => string): number {
    const stored = this.db.pragma('user_version', { simple: true }) as number;
    if (stored >= version) return 0;
    const page = this.db.prepare<[number, number], { id: number; request_body: string | null; response_body: string | null }>(
      'SELECT id, request_body, response_body FROM request_logs WHERE id > ? ORDER BY id LIMIT ?');
    const update = this.db.prepare<[string | null, string | null, number]>('UPDATE request_logs SET request_body = ?, response_body = ? WHERE id = ?');
    let changed = 0;
    for (let after = 0; ;) {
      const rows = page.all(after, backOfficeLimits.requestLogRedactAgainRowsMax);
      if (rows.length === 0) break;
      this.db.transaction(() => {
        const before = changed;
        for (const r of rows) {
          const request = r.request_body === null ? null : redact(r.request_body);
          const response = r.response_body === null ? null : redact(r.response_body);
          if (request !== r.request_body || response !== r.response_body) { update.run(request, response, r.id); changed++; }
        }
        if (before === 0 && changed > 0) this.db.pragma(`user_version = ${vacuumOwed(version)}`); // with the rows it rewrote
      })();
      after = rows[rows.length - 1]!.id;
    }
    if (changed > 0 || stored < 0) { // a row changed, now or by a start cut short before its vacuum
      this.db.pragma(`busy_timeout = ${backOfficeLimits.requestLogVacuumBusyMs}`); // the API's reader holds logs.db only for a read
      this.db.pragma('wal_checkpoint(TRUNCATE)');
      this.db.exec('VACUUM');
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    }
    this.db.pragma(`user_version = ${version}`);
    return changed;
  }

  /** Deletes rows older than the retention (also run by append now and then); answers how many. */
  prune(now: number): number {
    return this.s.prune.run(now - retentionMs).changes;
  }

  close(): void {
    this.db.close();
  }
}

/** A connection that only reads logs.db (the API's thread answers GET /v1/bo/logs on one). */
export class RequestLogReader {
  private readonly db: Database.Database;
  private readonly pageQuery;

  /** Creates logs.db if it is not there yet, so a reader may open before the writer's first batch. */
  constructor(dataDir: string) {
    this.db = openRequestLogDb(dataDir);
    this.db.pragma('query_only = ON');
    this.pageQuery = this.db.prepare<[Record<string, string | number | null>], RequestLogRow>(`SELECT * FROM request_logs
      WHERE (@request_id IS NULL OR request_id = @request_id) AND (@merchant_id IS NULL OR merchant_id = @merchant_id) AND (@key_id IS NULL OR key_id = @key_id) AND (@route IS NULL OR route = @route)
      AND (@status IS NULL OR status = @status) AND (@since IS NULL OR at >= @since) AND ${withoutClockReadsSql} AND (@before IS NULL OR id < @before) ORDER BY id DESC LIMIT @limit`);
  }

  /** Newest first: every batch committed before the call. */
  page(q: RequestLogQuery): RequestLogRow[] {
    return this.pageQuery.all({
      request_id: q.requestId ?? null, merchant_id: q.merchantId ?? null, key_id: q.keyId ?? null, route: q.route ?? null, status: q.status ?? null,
      since: q.since ?? null, without_clock: q.withoutClockReads ? 1 : 0, before: q.beforeId ?? null, limit: q.limit,
    });
  }

  close(): void {
    this.db.close();
  }
}

/**
 * The back-office calls logs.db holds (request_id → wall-clock ms), read without creating
 * or changing it: what `satang verify` looks for in the action log. Empty without a logs.db.
 */
export function loggedBackOfficeCalls(dataDir: string): Map<string, number> {
  const file = join(dataDir, requestLogFileName);
  const calls = new Map<string, number>();
  if (!existsSync(file)) return calls;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'request_logs'").get();
    // GLOB, not LIKE: case-sensitive, as the server's own test for an operator path is.
    if (hasTable) for (const [id, at] of db.prepare<[], [string, number]>("SELECT request_id, at FROM request_logs WHERE route = '/v1/bo' OR route GLOB '/v1/bo/*'").raw(true).iterate()) calls.set(id, at);
  } finally {
    db.close();
  }
  return calls;
}
