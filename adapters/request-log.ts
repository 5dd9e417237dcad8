// The request log: the request/response history of merchant and operator calls, for
// GET /v1/bo/logs, in a store of its own ($SATANG_DATA_DIR/logs.db, not the journal: it is
// operational data, pruned, and never a source of truth). What arrives here is already
// redacted and truncated by the server (server/redact.ts); this store only keeps it.
// Rows are buffered and written in one transaction per flush (every flushIntervalMs, or at
// flushRowsMax rows), so a request never waits on this file; rows older than
// backOfficeLimits.requestLogRetentionMs (wall clock) are deleted as new ones arrive.

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { backOfficeLimits } from '../core/limits.ts';
import { preparePrivateDatabase } from './private-files.ts';

export const requestLogFileName = 'logs.db';
const { requestLogFlushIntervalMs: flushIntervalMs, requestLogFlushRowsMax: flushRowsMax, requestLogPruneEveryFlushes: pruneEveryFlushes } = backOfficeLimits;

export interface RequestLogRecord {
  readonly at: number;
  readonly requestId: string;
  readonly merchantId: string | null;
  readonly livemode: boolean | null;
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
  readonly route?: string;
  readonly status?: number;
  readonly since?: number;
  readonly beforeId?: number;
  readonly limit: number;
}

export interface RequestLogRow {
  id: number; at: number; request_id: string; merchant_id: string | null; livemode: number | null; operator: string | null; method: string; route: string;
  status: number; duration_ms: number; error_code: string | null; request_body: string | null; response_body: string | null;
}

export class RequestLogStore {
  private readonly db: Database.Database;
  private readonly pending: RequestLogRecord[] = [];
  private readonly timer: NodeJS.Timeout;
  private flushes = 0;
  private readonly s;

  constructor(dataDir: string, private readonly now: () => number) {
    const file = join(dataDir, requestLogFileName);
    preparePrivateDatabase(file);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL'); // operational data: losing the last rows in a power cut is acceptable
    this.db.exec(`CREATE TABLE IF NOT EXISTS request_logs (
      id INTEGER PRIMARY KEY, at INTEGER NOT NULL, request_id TEXT NOT NULL, merchant_id TEXT, livemode INTEGER, operator TEXT, method TEXT NOT NULL,
      route TEXT NOT NULL, status INTEGER NOT NULL, duration_ms INTEGER NOT NULL, error_code TEXT, request_body TEXT, response_body TEXT);
      CREATE INDEX IF NOT EXISTS request_logs_by_at ON request_logs (at);
      CREATE INDEX IF NOT EXISTS request_logs_by_request ON request_logs (request_id);`);
    this.s = {
      insert: this.db.prepare(`INSERT INTO request_logs (at, request_id, merchant_id, livemode, operator, method, route, status, duration_ms, error_code, request_body, response_body)
        VALUES (@at, @requestId, @merchantId, @livemode, @operator, @method, @route, @status, @durationMs, @errorCode, @requestBody, @responseBody)`),
      prune: this.db.prepare<[number]>('DELETE FROM request_logs WHERE at < ?'),
      page: this.db.prepare<[Record<string, string | number | null>], RequestLogRow>(`SELECT * FROM request_logs
        WHERE (@request_id IS NULL OR request_id = @request_id) AND (@merchant_id IS NULL OR merchant_id = @merchant_id) AND (@route IS NULL OR route = @route)
        AND (@status IS NULL OR status = @status) AND (@since IS NULL OR at >= @since) AND (@before IS NULL OR id < @before) ORDER BY id DESC LIMIT @limit`),
    };
    this.timer = setInterval(() => this.flush(), flushIntervalMs);
    this.timer.unref();
  }

  add(r: RequestLogRecord): void {
    this.pending.push(r);
    if (this.pending.length >= flushRowsMax) this.flush();
  }

  /** Writes what is buffered; prunes what has outlived the retention now and then. */
  flush(): void {
    if (this.pending.length === 0) return;
    const rows = this.pending.splice(0, this.pending.length);
    this.db.transaction(() => {
      for (const r of rows) this.s.insert.run({ ...r, livemode: r.livemode === null ? null : r.livemode ? 1 : 0 });
      if (++this.flushes % pruneEveryFlushes === 1) this.s.prune.run(this.now() - backOfficeLimits.requestLogRetentionMs);
    })();
  }

  /** Newest first; reads see everything added so far. */
  page(q: RequestLogQuery): RequestLogRow[] {
    this.flush();
    return this.s.page.all({
      request_id: q.requestId ?? null, merchant_id: q.merchantId ?? null, route: q.route ?? null, status: q.status ?? null,
      since: q.since ?? null, before: q.beforeId ?? null, limit: q.limit,
    });
  }

  /** Deletes rows older than the retention (also run by flush now and then). */
  prune(): number {
    this.flush();
    return this.s.prune.run(this.now() - backOfficeLimits.requestLogRetentionMs).changes;
  }

  close(): void {
    clearInterval(this.timer);
    this.flush();
    this.db.close();
  }
}
