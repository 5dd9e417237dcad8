// Request keys kept durably beside the journal: HMAC nonces (limits.nonceMemoryMs, as long
// as their request could pass the timestamp window again) and idempotency records (7 days;
// they are written with the commit of their command, see writer.ts).
// Invariants kept: a nonce is accepted once while it is remembered — a fixed-size sketch
// says at once that most nonces are new, and for the rest its row (a primary-key lookup)
// or, until that row rides the next transaction, the few nonces of this turn answer;
// memory holds those and the sketch, not a nonce window of traffic. Expired rows are pruned
// in bounded batches, so pruning never holds the writer for long.
// Idempotency bodies are sealed at rest (they carry API key secrets, slip tokens and QR
// payloads): every writer stores sealIdempotencyBody(), the reader opens it, and a body an
// older build stored in clear is sealed when the store opens. A replay answers the exact
// bytes of the original response, opened from the seal.
// An operator's records are keyed by the person's folded id (core/operators.ts); those an
// older build keyed by the sub as spelt are moved to it when the store opens.

import { limits, writeSideLimits } from '../../core/limits.ts';
import type { IdempotencyRecord } from '../../core/ports.ts';
import { isSealed, sealedPrefix, type Sealer } from '../sealing.ts';
import { Bloom } from '../bloom.ts';
import type { Db } from './schema.ts';
import { refoldedOperatorScope } from '../../core/operators.ts';

/**
 * What the keys need of the journal: a durable write that joins its next transaction
 * (SqliteJournal.rideNonces). Named here rather than imported, so keys.ts does not import
 * journal.ts, which imports writer.ts, which imports keys.ts.
 */
export interface TransactionRider {
  /**
   * `take` is called when the next transaction is made, for the nonce rows to write with
   * it; `written` is called once that transaction is written (or has failed).
   */
  rideNonces(take: () => RidingNonces): void;
}

export interface RidingNonces {
  readonly rows: readonly NonceRow[];
  readonly written: () => void;
}

/** [scope, nonce, expires_at], as writer.ts writes it. */
type NonceRow = readonly [string, string, number];

interface IdempotencyRow {
  scope: string; key: string; request_hash: string; request_id: string; status: number; body: string; created_at: number; expires_at: number;
}

/**
 * Which nonces may have been seen in the last nonce window: two Bloom filters of a fixed
 * size (the current window's and the one before), so memory is a few megabytes whatever
 * the traffic. "No" is certain — the nonce is new and needs no lookup; "maybe" (a nonce
 * seen, or about one in a hundred new ones at the busiest) is settled by its table row.
 * A filter is kept for at least one window after its last nonce was added: the current one
 * becomes the previous one a window after it started, and is cleared a window after that.
 */
class NonceSketch {
  private current = new Bloom(nonceSketchBitsLog2);
  private previous = new Bloom(nonceSketchBitsLog2);
  private since: number;

  constructor(nowMs: number) {
    this.since = nowMs;
  }

  add(key: string, nowMs: number): void {
    this.rotate(nowMs);
    this.current.add(key);
  }

  mayHave(key: string, nowMs: number): boolean {
    this.rotate(nowMs);
    return this.current.mayHave(key) || this.previous.mayHave(key);
  }

  private rotate(nowMs: number): void {
    if (nowMs - this.since < limits.nonceMemoryMs) return;
    const cleared = this.previous;
    cleared.clear();
    this.previous = this.current;
    this.current = cleared;
    this.since = nowMs;
  }
}

/** 2^24 bits a filter (2 MiB): false "maybe"s near 1 % at 1.2 million nonces a window. */
const nonceSketchBitsLog2 = 24;

export class RequestKeys {
  /** Nonces accepted since the last transaction, not yet written: scope \n nonce → [scope, nonce, expires_at]. */
  private pending = new Map<string, [string, string, number]>();
  /** Nonces taken by a transaction not yet written (a writer thread may hold it): still answered from here. */
  private readonly riding = new Set<Map<string, [string, string, number]>>();
  private readonly seen: NonceSketch;
  private readonly selectNonce;
  private readonly selectIdempotency;
  private readonly pruneNonces;
  private readonly pruneIdempotency;
  private readonly insertIdempotency;

  /** Bodies an older build stored in clear, sealed when this store opened. */
  readonly sealedOnOpen: number;
  /** Operator records an older build keyed by an unfolded sub, moved to the folded scope when this store opened, and those dropped as a later duplicate. */
  readonly operatorScopesFoldedOnOpen: { readonly moved: number; readonly dropped: number };

  /** `nowMs`: the earliest instant a nonce may be checked at (the nonces still live then, from before a restart, join the sketch). */
  constructor(db: Db, private readonly journal: TransactionRider, nowMs: number, private readonly sealer?: Sealer) {
    const now = nowMs;
    this.seen = new NonceSketch(now);
    const live = db.prepare<[number], [string, string]>('SELECT scope, nonce FROM nonces WHERE expires_at > ?').raw(true);
    for (const [scope, nonce] of live.iterate(now)) this.seen.add(nonceKey(scope, nonce), now);
    this.selectNonce = db.prepare<[string, string], number>('SELECT expires_at FROM nonces WHERE scope = ? AND nonce = ?').pluck(true);
    this.selectIdempotency = db.prepare<[string, string, number], IdempotencyRow>(
      'SELECT scope, key, request_hash, request_id, status, body, created_at, expires_at FROM idempotency WHERE scope = ? AND key = ? AND expires_at > ?');
    this.pruneNonces = db.prepare('DELETE FROM nonces WHERE (scope, nonce) IN (SELECT scope, nonce FROM nonces WHERE expires_at <= ? LIMIT ?)');
    this.pruneIdempotency = db.prepare('DELETE FROM idempotency WHERE rowid IN (SELECT rowid FROM idempotency WHERE expires_at <= ? LIMIT ?)');
    this.insertIdempotency = db.prepare(insertIdempotencySql);
    this.sealedOnOpen = sealer ? sealClearBodies(db, sealer) : 0;
    this.operatorScopesFoldedOnOpen = foldOperatorScopes(db, sealer, now);
  }

  /** True the first time a nonce is seen in its memory window; false for a replay. */
  rememberNonce(scope: string, nonce: string, nowMs: number): boolean {
    const key = nonceKey(scope, nonce);
    if (this.seen.mayHave(key, nowMs)) {
      const expiresAt = this.pending.get(key)?.[2] ?? this.ridingExpiry(key) ?? this.selectNonce.get(scope, nonce);
      if (expiresAt !== undefined && expiresAt > nowMs) return false;
    }
    this.seen.add(key, nowMs);
    if (this.pending.size === 0) this.journal.rideNonces(() => this.takePending());
    this.pending.set(key, [scope, nonce, nowMs + limits.nonceMemoryMs]);
    return true;
  }

  /**
   * Stores the record of a request whose effects are no core command (a manual clock's
   * advance), in the caller's transaction when it has one; false when the key holds an
   * unexpired record already.
   */
  keepIdempotency(r: IdempotencyRecord): boolean {
    return this.insertIdempotency.run(...idempotencyRow(this.sealer, r)).changes === 1;
  }

  /** The unexpired record stored (durably) for this key, if any. */
  getIdempotency(scope: string, key: string, nowMs: number): IdempotencyRecord | undefined {
    const r = this.selectIdempotency.get(scope, key, nowMs);
    return r && {
      scope: r.scope, key: r.key, requestHash: r.request_hash, requestId: r.request_id, status: r.status,
      body: openIdempotencyBody(this.sealer, r.scope, r.key, r.body), createdAt: r.created_at, expiresAt: r.expires_at,
    };
  }

  /**
   * Deletes expired nonces and idempotency records, at most a bounded number of batches.
   * Nonces expire on security time (the wall clock), idempotency records on business time
   * (DESIGN "two clocks"); one instant serves both when the clocks are the same.
   */
  pruneExpired(nowMs: number, idempotencyNowMs: number = nowMs): { nonces: number; idempotency: number } {
    const batch = writeSideLimits.pruneRowsPerBatchMax;
    const run = (statement: typeof this.pruneNonces, at: number) => {
      let deleted = 0;
      for (let i = 0; i < writeSideLimits.pruneBatchesPerCallMax; i++) {
        const changes = statement.run(at, batch).changes;
        deleted += changes;
        if (changes < batch) break;
      }
      return deleted;
    };
    return { nonces: run(this.pruneNonces, nowMs), idempotency: run(this.pruneIdempotency, idempotencyNowMs) };
  }

  /** The nonces accepted since the last transaction, for it to write; once it is written they are looked up in the table. */
  private takePending(): RidingNonces {
    const taken = this.pending;
    this.pending = new Map();
    this.riding.add(taken);
    return { rows: [...taken.values()], written: () => this.riding.delete(taken) };
  }

  private ridingExpiry(key: string): number | undefined {
    for (const taken of this.riding) {
      const row = taken.get(key);
      if (row) return row[2];
    }
    return undefined;
  }
}

/**
 * Stores an idempotency record (9 parameters, the last the journal seq or NULL). A key whose
 * record expired may be used again; an unexpired one updates nothing (changes = 0).
 */
export const insertIdempotencySql = `INSERT INTO idempotency (scope, key, request_hash, request_id, status, body, created_at, expires_at, journal_seq)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash, request_id = excluded.request_id, status = excluded.status,
    body = excluded.body, created_at = excluded.created_at, expires_at = excluded.expires_at, journal_seq = excluded.journal_seq
  WHERE idempotency.expires_at <= excluded.created_at`;

const nonceKey = (scope: string, nonce: string) => `${scope}\n${nonce}`;

/** Binds a sealed body to its record: it opens only as the body of this scope and key. */
export const bodyPurpose = (scope: string, key: string) => `idempotency:${scope}\n${key}`;

/** insertIdempotencySql's parameters for a record outside a journal commit (no journal seq), its body sealed. */
export function idempotencyRow(sealer: Sealer | undefined, r: IdempotencyRecord): [string, string, string, string, number, string, number, number, null] {
  return [r.scope, r.key, r.requestHash, r.requestId, r.status, sealIdempotencyBody(sealer, r), r.createdAt, r.expiresAt, null];
}

/** The body as stored: sealed under the master key; as given only by a store opened without one (journal specs, benches). */
export function sealIdempotencyBody(sealer: Sealer | undefined, r: Pick<IdempotencyRecord, 'scope' | 'key' | 'body'>): string {
  return sealer ? sealer.seal(r.body, bodyPurpose(r.scope, r.key)) : r.body;
}

function openIdempotencyBody(sealer: Sealer | undefined, scope: string, key: string, stored: string): string {
  if (!isSealed(stored)) {
    if (sealer) throw new Error(`idempotency ${scope} ${key}: the body is stored in clear, but every body is sealed when the store opens`);
    return stored;
  }
  if (!sealer) throw new Error(`idempotency ${scope} ${key}: the body is sealed and this store was opened without the master key`);
  return sealer.openText(stored, bodyPurpose(scope, key));
}

/** Seals the bodies an older build stored in clear; returns how many. */
function sealClearBodies(db: Db, sealer: Sealer): number {
  const clear = db.prepare<[string], { rowid: number; scope: string; key: string; body: string }>(
    "SELECT rowid, scope, key, body FROM idempotency WHERE body NOT LIKE ? || '%'").all(sealedPrefix);
  const update = db.prepare('UPDATE idempotency SET body = ? WHERE rowid = ?');
  db.transaction(() => {
    for (const r of clear) update.run(sealer.seal(r.body, bodyPurpose(r.scope, r.key)), r.rowid);
  })();
  return clear.length;
}

/**
 * Moves the unexpired operator records an older build keyed by the sub as spelt (op:EMP_X:…)
 * to the scope today's routes look up (op:emp_x:…), each body sealed again under it, in one
 * transaction. Where two spellings of one person hold one key, the earlier record stays: it
 * answered first, and a retry must replay it. Operators' records are few (their calls of 7
 * days), read by a range of the primary key; once moved, an open finds nothing to do.
 */
function foldOperatorScopes(db: Db, sealer: Sealer | undefined, nowMs: number): { moved: number; dropped: number } {
  const operators = db.prepare<[number], { rowid: number; scope: string; key: string; body: string; created_at: number }>(
    "SELECT rowid, scope, key, body, created_at FROM idempotency WHERE scope >= 'op:' AND scope < 'op;' AND expires_at > ?");
  // A sealed body opens only with the master key: a store opened without it (a bench) leaves such a record where it is.
  const unfolded = () => operators.all(nowMs).flatMap((r) => {
    const to = refoldedOperatorScope(r.scope)!;
    return to === r.scope || (!sealer && isSealed(r.body)) ? [] : [{ ...r, to }];
  });
  if (unfolded().length === 0) return { moved: 0, dropped: 0 };
  const held = db.prepare<[string, string], { rowid: number; created_at: number; expires_at: number }>('SELECT rowid, created_at, expires_at FROM idempotency WHERE scope = ? AND key = ?');
  const remove = db.prepare<[number]>('DELETE FROM idempotency WHERE rowid = ?');
  const move = db.prepare<[string, string, number]>('UPDATE idempotency SET scope = ?, body = ? WHERE rowid = ?');
  return db.transaction(() => { // read again under the write lock: another process may have moved them meanwhile
    const moved = new Set<number>(); // rowids: one moved and then dropped for an earlier spelling counts once, as dropped
    let dropped = 0;
    for (const r of unfolded()) {
      const other = held.get(r.to, r.key);
      const otherLive = other !== undefined && other.expires_at > nowMs;
      if (otherLive && other.created_at <= r.created_at) {
        remove.run(r.rowid);
        dropped++;
        continue;
      }
      if (other) { // a later duplicate, or one expired and not yet pruned
        remove.run(other.rowid);
        moved.delete(other.rowid);
        if (otherLive) dropped++;
      }
      const body = sealIdempotencyBody(sealer, { scope: r.to, key: r.key, body: openIdempotencyBody(sealer, r.scope, r.key, r.body) });
      move.run(r.to, body, r.rowid);
      moved.add(r.rowid);
    }
    return { moved: moved.size, dropped };
  }).immediate();
}
