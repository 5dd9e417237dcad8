// The action log: every operator call on /v1/bo and every refused operator
// authentication, in journal.db beside the journal (so a backup of the one file carries
// both), append-only and tamper-evident like the journal: triggers refuse UPDATE and
// DELETE, and each row's hash = sha256(prev_hash ‖ canonical(row)), the canonical encoding
// being the hashed columns in the pinned order below, each `<utf-8 byte length>:<text>`
// (or `~` for NULL), as the journal's chain (./chain.ts). `satang verify` re-walks it
// (verifyActionLog). Rows hold no secret: the server writes subjects, roles, routes, ids,
// and for a call that changed a setting whose old value the call's own record cannot show
// (a webhook endpoint's URL), what it was before and after — redacted by the route.

import { createHash } from 'node:crypto';
import type { Db } from './schema.ts';
import { genesisHash } from './chain.ts';
import { withoutClockReadsSql } from '../request-log.ts';
import { operatorKey } from '../../core/operators.ts';

const schema = `
CREATE TABLE IF NOT EXISTS action_log (
  id            INTEGER PRIMARY KEY,
  at            INTEGER NOT NULL,  -- wall clock, ms since the epoch (security time)
  request_id    TEXT    NOT NULL,
  subject       TEXT,              -- the operator (sub); for a refused token, the sub it claimed (unverified)
  authenticated INTEGER NOT NULL,  -- 1 when the token verified
  roles         TEXT    NOT NULL,  -- JSON array
  method        TEXT    NOT NULL,
  route         TEXT    NOT NULL,  -- the route pattern, or the path when none matched
  target_ids    TEXT    NOT NULL,  -- JSON object of the route's params
  ip            TEXT    NOT NULL,
  step_up       INTEGER NOT NULL,  -- 1 when a step-up token was verified for this call
  status        INTEGER NOT NULL,
  outcome       TEXT    NOT NULL,  -- ok | refused_authentication | refused_authorization | refused | failed
  error_code    TEXT,
  changes       TEXT,              -- JSON {field: {before, after}} of a changed setting, else NULL (hashed only when set)
  prev_hash     TEXT    NOT NULL,
  hash          TEXT    NOT NULL,
  subject_key   TEXT               -- operatorKey(subject), what a subject filter looks up; not hashed (the subject is)
);
CREATE TRIGGER IF NOT EXISTS action_log_refuses_update BEFORE UPDATE ON action_log
  BEGIN SELECT RAISE(ABORT, 'action_log is append-only: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS action_log_refuses_delete BEFORE DELETE ON action_log
  BEGIN SELECT RAISE(ABORT, 'action_log is append-only: DELETE refused'); END;
`;

/** The hashed columns in canonical order: a storage format, never reordered. */
const hashedColumns = ['id', 'at', 'request_id', 'subject', 'authenticated', 'roles', 'method', 'route', 'target_ids', 'ip', 'step_up', 'status', 'outcome', 'error_code'] as const;

/**
 * Hashed after the pinned columns, and only when set: a column added later, so that every row
 * written before it (NULL there) keeps its hash and an older chain still verifies.
 */
const optionalHashedColumn = 'changes';

/**
 * The subject folded (core/operators.ts operatorKey), so that a filter on one operator is an
 * indexed equality rather than a fold of every row ever written. Derived, so not hashed:
 * verifyActionLog checks it against the hashed subject instead.
 */
const subjectKeyColumn = 'subject_key';

const indexes = `
CREATE INDEX IF NOT EXISTS action_log_by_subject ON action_log (${subjectKeyColumn});
CREATE INDEX IF NOT EXISTS action_log_unkeyed ON action_log (id) WHERE ${subjectKeyColumn} IS NULL AND subject IS NOT NULL;
`;

/** What became of an operator's call (the action log's outcome column). */
export const actionOutcomes = ['ok', 'refused_authentication', 'refused_authorization', 'refused', 'failed'] as const;
export type ActionOutcome = typeof actionOutcomes[number];

export interface ActionRecord {
  readonly at: number;
  readonly requestId: string;
  readonly subject: string | null;
  readonly authenticated: boolean;
  readonly roles: readonly string[];
  readonly method: string;
  readonly route: string;
  readonly targetIds: Readonly<Record<string, string>>;
  readonly ip: string;
  readonly stepUp: boolean;
  readonly status: number;
  readonly outcome: ActionOutcome;
  readonly errorCode: string | null;
  /** What the call changed, each field's value before and after (as the log may keep it: redacted by the caller). */
  readonly changes?: Readonly<Record<string, { readonly before: unknown; readonly after: unknown }>>;
}

type Row = { [K in (typeof hashedColumns)[number] | typeof optionalHashedColumn]: string | number | null } & { prev_hash: string; hash: string; subject_key?: string | null };

function field(value: string | number | null): string {
  if (value === null) return '~';
  const text = typeof value === 'number' ? String(value) : value;
  return `${Buffer.byteLength(text)}:${text}`;
}

function rowHash(prevHash: string, row: Row): string {
  let canonical = '';
  for (const c of hashedColumns) canonical += field(row[c]);
  const optional = row[optionalHashedColumn] ?? null; // a database from before the column: undefined
  if (optional !== null) canonical += field(optional);
  return createHash('sha256').update(prevHash).update(canonical).digest('hex');
}

export interface ActionLogQuery {
  readonly subject?: string;
  readonly outcome?: string;
  readonly route?: string;
  readonly since?: number;
  /** Leave out reads of the service clock (GET /v1/bo/clock: a console on a manual clock reads it on every navigation). */
  readonly withoutClockReads?: boolean;
  /** Rows with id below this (newest first paging). */
  readonly beforeId?: number;
  readonly limit: number;
}

export class ActionLog {
  private readonly s;

  /**
   * `unicode`: the Unicode version the fold follows (this Node's tables unless a spec names
   * another); the log records it, and an open under another re-keys every row (refoldOnNewTables).
   */
  constructor(private readonly db: Db, unicode: string = process.versions.unicode ?? 'unknown') {
    db.exec(schema);
    const columns = db.prepare<[], string>("SELECT name FROM pragma_table_info('action_log')").pluck(true).all();
    if (!columns.includes(optionalHashedColumn)) db.exec(`ALTER TABLE action_log ADD COLUMN ${optionalHashedColumn} TEXT`);
    if (!columns.includes(subjectKeyColumn)) db.exec(`ALTER TABLE action_log ADD COLUMN ${subjectKeyColumn} TEXT`);
    db.exec(indexes);
    // For keyStoredSubjects' one statement; the fold is deterministic.
    db.function('operator_key', { deterministic: true }, (subject: unknown) => (typeof subject === 'string' ? operatorKey(subject) : null));
    this.keyedOnOpen = keyStoredSubjects(db) + refoldOnNewTables(db, unicode);
    const filters = `(@outcome IS NULL OR outcome = @outcome) AND (@route IS NULL OR route = @route) AND (@since IS NULL OR at >= @since) AND ${withoutClockReadsSql} AND id < @before ORDER BY id DESC LIMIT @limit`;
    this.s = {
      last: db.prepare<[], { id: number; hash: string }>('SELECT id, hash FROM action_log ORDER BY id DESC LIMIT 1'),
      insert: db.prepare(`INSERT INTO action_log (${[...hashedColumns, optionalHashedColumn, subjectKeyColumn].join(', ')}, prev_hash, hash) VALUES (${[...hashedColumns, optionalHashedColumn, subjectKeyColumn].map((c) => `@${c}`).join(', ')}, @prev_hash, @hash)`),
      page: db.prepare<[PageParameters], Row>(`SELECT * FROM action_log WHERE ${filters}`),
      // One operator's rows: a search of action_log_by_subject, its entries in id order within the key.
      pageOf: db.prepare<[PageParameters & { subject: string }], Row>(`SELECT * FROM action_log WHERE ${subjectKeyColumn} = @subject AND ${filters}`),
      signedIn: db.prepare<[string], number>(`SELECT 1 FROM action_log WHERE ${subjectKeyColumn} = ? AND authenticated = 1 LIMIT 1`).pluck(true),
    };
  }

  /** Rows keyed when this log opened: written by an older build without their key, or folded under other Unicode tables. */
  readonly keyedOnOpen: number;

  /**
   * Whether this person, under any spelling of their subject (operatorKey, as a revocation
   * matches), ever made a call with a token that verified (an operator off-boarding should name one).
   */
  hasSignedIn(subject: string): boolean {
    return this.s.signedIn.get(operatorKey(subject)) !== undefined;
  }

  /** Appends one record, chained to the last (one transaction: the chain never forks); answers the new head. */
  append(r: ActionRecord): ActionLogHead {
    return this.db.transaction(() => {
      const last = this.s.last.get();
      const row: Row = {
        id: (last?.id ?? 0) + 1, at: r.at, request_id: r.requestId, subject: r.subject, authenticated: r.authenticated ? 1 : 0, roles: JSON.stringify(r.roles),
        method: r.method, route: r.route, target_ids: JSON.stringify(r.targetIds), ip: r.ip, step_up: r.stepUp ? 1 : 0, status: r.status,
        outcome: r.outcome, error_code: r.errorCode, changes: r.changes === undefined ? null : JSON.stringify(r.changes), prev_hash: last?.hash ?? genesisHash, hash: '',
        subject_key: r.subject === null ? null : operatorKey(r.subject),
      };
      row.hash = rowHash(row.prev_hash, row);
      this.s.insert.run(row);
      return { id: row.id as number, hash: row.hash };
    }).immediate();
  }

  /** A page, newest first; `subject` matches every spelling of that operator (operatorKey). */
  page(q: ActionLogQuery): Row[] {
    const p = { outcome: q.outcome ?? null, route: q.route ?? null, since: q.since ?? null, without_clock: q.withoutClockReads ? 1 : 0, before: q.beforeId ?? Number.MAX_SAFE_INTEGER, limit: q.limit };
    return q.subject === undefined ? this.s.page.all(p) : this.s.pageOf.all({ ...p, subject: operatorKey(q.subject) });
  }
}

interface PageParameters { outcome: string | null; route: string | null; since: number | null; without_clock: number; before: number; limit: number }

/**
 * Keys the rows written without a subject key — every row of a log from before the column, or
 * rows an older build appended since — in one transaction; answers how many. The update
 * trigger is set aside for it and put back before the commit: the key is derived, never
 * hashed, and nothing else of a row changes. A log with nothing to key costs one probe of
 * action_log_unkeyed, which is empty once keyed.
 */
function keyStoredSubjects(db: Db): number {
  const unkeyed = db.prepare(`SELECT 1 FROM action_log INDEXED BY action_log_unkeyed WHERE ${subjectKeyColumn} IS NULL AND subject IS NOT NULL LIMIT 1`);
  if (unkeyed.get() === undefined) return 0;
  const trigger = db.prepare<[], string>("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'action_log_refuses_update'").pluck(true);
  return db.transaction(() => { // under the write lock: another process may have keyed them meanwhile
    const refusal = trigger.get()!;
    db.exec('DROP TRIGGER action_log_refuses_update');
    const keyed = db.prepare(`UPDATE action_log SET ${subjectKeyColumn} = operator_key(subject) WHERE ${subjectKeyColumn} IS NULL AND subject IS NOT NULL`).run().changes;
    db.exec(refusal);
    return keyed;
  }).immediate();
}

/**
 * The fold (operatorKey) lowers case and takes compatibility forms by this Node's Unicode
 * tables: a Node upgrade that moves a case mapping would leave keys written before it that no
 * longer follow their subjects (a filter would miss those rows, and verify would call them
 * broken). So the log records the Unicode version its keys follow, and an open under another
 * re-folds every row's key from its subject (the hashed column: the chain is untouched) in one
 * transaction, the update trigger set aside as keyStoredSubjects does; answers how many keys
 * moved. A log that recorded none yet (from before this) records the current version without
 * a re-fold: its keys were written by this build's predecessors on the same tables, or are
 * checked by verify. The scan happens once per Unicode version; operators' calls are few.
 */
function refoldOnNewTables(db: Db, unicode: string): number {
  db.exec('CREATE TABLE IF NOT EXISTS action_log_fold (unicode TEXT NOT NULL)');
  const recorded = db.prepare<[], string>('SELECT unicode FROM action_log_fold').pluck(true);
  const was = recorded.get();
  if (was === unicode) return 0;
  const trigger = db.prepare<[], string>("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'action_log_refuses_update'").pluck(true);
  return db.transaction(() => { // under the write lock: another process may have re-folded meanwhile
    const now = recorded.get();
    if (now === unicode) return 0;
    db.exec('DELETE FROM action_log_fold');
    db.prepare('INSERT INTO action_log_fold (unicode) VALUES (?)').run(unicode);
    if (now === undefined) return 0;
    const refusal = trigger.get()!;
    db.exec('DROP TRIGGER action_log_refuses_update');
    const moved = db.prepare(`UPDATE action_log SET ${subjectKeyColumn} = operator_key(subject) WHERE subject IS NOT NULL AND ${subjectKeyColumn} IS NOT operator_key(subject)`).run().changes;
    db.exec(refusal);
    return moved;
  }).immediate();
}

export type ActionLogRow = Row;

/** A row of the chain by its id and hash: what the server's log line names, and what `satang verify --action-log-head` checks. */
export interface ActionLogHead {
  readonly id: number;
  readonly hash: string;
}

export interface ActionLogReport {
  readonly ok: boolean;
  readonly rows: number;
  readonly head: ActionLogHead | null;
  /** How many back-office calls of the request log were looked for here. */
  readonly request_log_calls: number;
  /** Of those, how many have no row here and need none: answered while an older build's backup copied the request log after this journal (ActionLogWitnesses.loggedAheadOfJournal). */
  readonly request_log_calls_after_backup: number;
  readonly first_bad_id: number | null;
  readonly problem: string | null;
}

/**
 * What a chain alone cannot tell — rows cut from its end, or all of it — checked against
 * records kept elsewhere: `logged`, the back-office calls the request log (logs.db) holds
 * (request_id → wall-clock ms), each of which must have its row here (the server appends
 * the row before it hands the request log its own, so a call logged there is a row here);
 * and `anchors`, heads taken from the server's log lines (`action_log` on each /v1/bo
 * request) or an earlier report, each of which must still be in the chain, unchanged.
 */
export interface ActionLogWitnesses {
  readonly logged?: ReadonlyMap<string, number>;
  /**
   * Spans of wall-clock ms in which `logged` may hold a call without its row: an older build's
   * backup copied the journal and then the request log (adapters/sqlite/backup.ts
   * requestLogAheadOfJournal). A call answered within one, with no row, is counted, not missing.
   */
  readonly loggedAheadOfJournal?: readonly { readonly from: number; readonly until: number }[];
  readonly anchors?: readonly ActionLogHead[];
}

/** A row's subject key is its subject folded; NULL only until the next open keys it (written by an older build), absent before the column. */
function keyFollowsSubject(row: Row): boolean {
  const key = row[subjectKeyColumn] ?? null;
  return key === null || (typeof row.subject === 'string' && key === operatorKey(row.subject));
}

/** Re-walks the action log's chain (a database without the table has an empty, valid log) and checks it against its witnesses. */
export function verifyActionLog(db: Db, witnesses: ActionLogWitnesses = {}): ActionLogReport {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'action_log'").get();
  const unseen = new Map(witnesses.logged ?? []);
  const anchors = new Map((witnesses.anchors ?? []).map((a) => [a.id, a.hash]));
  let afterBackup = 0;
  const report = (rows: number, head: ActionLogHead | null, firstBadId: number | null, problem: string | null): ActionLogReport =>
    ({ ok: problem === null, rows, head, request_log_calls: witnesses.logged?.size ?? 0, request_log_calls_after_backup: afterBackup, first_bad_id: firstBadId, problem });
  let prev = genesisHash;
  let expectedId = 1;
  let rows = 0;
  let head: ActionLogHead | null = null;
  const chain = exists ? db.prepare('SELECT * FROM action_log ORDER BY id').iterate() as IterableIterator<Row> : [];
  for (const row of chain) {
    rows++;
    const problem = row.id !== expectedId ? `row ${row.id} follows row ${expectedId - 1}`
      : row.prev_hash !== prev ? `row ${row.id}: prev_hash does not name the previous row's hash`
      : rowHash(row.prev_hash, row) !== row.hash ? `row ${row.id}: its hash does not match its contents`
      : !keyFollowsSubject(row) ? `row ${row.id}: its subject_key is not its subject folded (a subject filter would miss or misplace it)`
      : anchors.has(row.id as number) && anchors.get(row.id as number) !== row.hash ? `row ${row.id}: its hash is not the anchor's (${anchors.get(row.id as number)})`
      : null;
    if (problem) return report(rows, head, row.id as number, problem);
    anchors.delete(row.id as number);
    unseen.delete(row.request_id as string);
    prev = row.hash;
    head = { id: row.id as number, hash: row.hash };
    expectedId++;
  }
  const missingAnchor = [...anchors.keys()].sort((a, b) => a - b)[0];
  if (missingAnchor !== undefined) return report(rows, head, missingAnchor, `row ${missingAnchor}, an anchor, is not in the log (it ends at row ${head?.id ?? 0}): rows were cut from its end`);
  const spans = witnesses.loggedAheadOfJournal ?? [];
  for (const [requestId, at] of unseen) {
    if (spans.some((s) => at >= s.from && at < s.until)) { unseen.delete(requestId); afterBackup++; }
  }
  if (unseen.size > 0) {
    const [latestId, latestAt] = [...unseen].reduce((a, b) => (b[1] > a[1] ? b : a));
    return report(rows, head, null, `${unseen.size} back-office call(s) of the request log have no row here (the latest: request ${latestId} at ${new Date(latestAt).toISOString()}): rows were cut from the log, or never written`);
  }
  return report(rows, head, null, null);
}
