// Writes one command's commit inside the caller's transaction: its journal entries
// (numbered and hash-chained from the tail), their ledger postings, the snapshot of every
// object it touched, its merchant events in the outbox, its timer changes and its
// idempotency record. Invariants kept: everything a command causes is written by one
// call, so the caller's transaction (or savepoint) commits or drops it whole; a stream
// version already taken surfaces as StateConflict, never as a lost update; outbox
// sequences per merchant and mode come from a durable counter and are never reused: a
// SequencesAdvancedAfterRestore entry moves the merchant's two counters on by its jump in
// the same transaction, past what a lost tail gave out before the restore.

import type { Commit, JournalEntry, StreamKind } from '../../core/journal.ts';
import { accountKey } from '../../core/ledger/ledger.ts';
import type { MerchantEvent } from '../../core/outbox.ts';
import type { CommitMeta, Ids } from '../../core/ports.ts';
import type { World } from '../../core/world.ts';
import { chainHash, entryValues, genesisHash, hashedColumns, type HashedValues } from './chain.ts';
import { assembleEnvelope, envelopeParts, type EnvelopeParts } from './envelope.ts';
import type { Sealer } from '../sealing.ts';
import { IdempotencyKeyInUse, StateConflict } from './errors.ts';
import { insertIdempotencySql, sealIdempotencyBody } from './keys.ts';
import type { Db } from './schema.ts';
import { snapshotData } from './snapshots.ts';

/** The journal's last row: where the next entry chains on. */
export interface Tail {
  readonly seq: number;
  readonly hash: string;
}

/**
 * A commit as the writer stores it: plain values only (strings, numbers, arrays), so it
 * crosses to the writer thread by structured clone without the world's objects. Everything
 * that needs the world (snapshots, the presented event objects) is read or made at append
 * time; what needs the journal's tail (seqs, hashes, outbox sequences, event ids) and the
 * sealing of the idempotency body (under the master key) is left to the writer.
 */
export interface PendingCommit {
  /** Per entry: its hashed values but the seq, and the postings it writes as [balance transaction id, account key, amount]. */
  readonly entries: readonly PendingEntry[];
  /** [stream, kind, version, data, index in entries of the stream's last entry]. */
  readonly snapshots: readonly (readonly [string, string, number, string, number])[];
  readonly events: readonly PendingEvent[];
  /** [id, stream, kind, due_at, arg]. */
  readonly timersSet: readonly (readonly [string, string, string, number, string | null])[];
  readonly timersClear: readonly string[];
  /** The idempotency row but its journal seq: [scope, key, request_hash, request_id, status, body (in clear: the writer seals it), created_at, expires_at]. */
  readonly idempotency: readonly [string, string, string, string, number, string, number, number] | null;
}

export interface PendingEntry {
  /** entryValues() without the seq: [stream, kind, version, type, livemode, merchant_id, recorded_at, data]. */
  readonly values: readonly [string, string, number, string, 0 | 1 | null, string | null, number, string];
  readonly postings: readonly (readonly [string, string, number | bigint])[] | null;
  /** SequencesAdvancedAfterRestore: [merchant, by] — both its outbox counters move on by `by`. */
  readonly sequenceJump?: readonly [string, number];
}

export interface PendingEvent {
  readonly merchantId: string;
  readonly livemode: 0 | 1;
  readonly type: string;
  readonly stream: string;
  readonly version: number;
  readonly createdAt: number;
  /** The envelope but its id and sequence (envelope.ts). */
  readonly envelope: EnvelopeParts;
}

/** Reads from the world now what the commit must store: the world moves on before a group commit writes it. */
export function pendingCommit(world: World, commit: Commit, meta: CommitMeta, events: readonly MerchantEvent[]): PendingCommit {
  const last = new Map<string, number>();
  commit.entries.forEach((entry, i) => last.set(entry.stream, i));
  const snapshots: [string, string, number, string, number][] = [];
  for (const [stream, entryIndex] of last) {
    const entry = commit.entries[entryIndex]!;
    snapshots.push([stream, entry.streamKind, entry.version, snapshotData(world, entry), entryIndex]);
  }
  const entries = commit.entries.map((entry): PendingEntry => {
    const [, ...values] = entryValues(0, entry);
    const e = entry.event;
    const postings = e.type === 'BalanceTransactionPosted' ? e.transaction.postings.map((p) => [e.transaction.id, accountKey(p.account), p.amountMinor] as const) : null;
    return e.type === 'SequencesAdvancedAfterRestore' ? { values, postings, sequenceJump: [e.merchantId, e.by] } : { values, postings };
  });
  const r = meta.idempotency;
  return {
    entries, snapshots,
    events: events.map((e) => ({
      merchantId: e.merchantId, livemode: e.livemode ? 1 : 0, type: e.type, stream: e.stream, version: e.version, createdAt: e.createdAt, envelope: envelopeParts(e, meta),
    })),
    timersSet: commit.timers.set.map((t) => [t.id, t.stream, t.kind, t.dueAt, t.arg ?? null] as const),
    timersClear: commit.timers.clear,
    idempotency: r ? [r.scope, r.key, r.requestHash, r.requestId, r.status, r.body, r.createdAt, r.expiresAt] : null,
  };
}

/** The streams and ledger accounts a commit writes: what a later command may depend on. */
export function touchedKeys(commit: Commit): string[] {
  const keys: string[] = [];
  for (const entry of commit.entries) {
    keys.push(entry.stream);
    if (entry.event.type === 'BalanceTransactionPosted') for (const p of entry.event.transaction.postings) keys.push(accountKey(p.account));
  }
  return keys;
}

/** The first entry of `commit` that writes one of `keys` (a stream or a ledger account), if any. */
export function dependsOn(commit: Commit, keys: ReadonlySet<string>): JournalEntry | undefined {
  return commit.entries.find((entry) => keys.has(entry.stream)
    || (entry.event.type === 'BalanceTransactionPosted' && entry.event.transaction.postings.some((p) => keys.has(accountKey(p.account)))));
}

export class CommitWriter {
  private readonly tailQuery;
  private readonly insertEntry;
  private readonly insertPosting;
  private readonly upsertSnapshot;
  private readonly bumpSequence;
  private readonly insertJump;
  private readonly insertEvent;
  private readonly deleteTimer;
  private readonly upsertTimer;
  private readonly insertIdempotency;

  constructor(db: Db, private readonly ids: Ids, private readonly sealer?: Sealer) {
    this.tailQuery = db.prepare<[], [number, string]>('SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1').raw(true);
    this.insertEntry = db.prepare(`INSERT INTO journal (${hashedColumns.join(', ')}, prev_hash, hash) VALUES (${'?, '.repeat(hashedColumns.length)}?, ?)`);
    this.insertPosting = db.prepare('INSERT INTO postings (journal_seq, balance_transaction_id, account, amount) VALUES (?, ?, ?, ?)');
    this.upsertSnapshot = db.prepare(`INSERT INTO snapshots (stream, kind, version, data, journal_seq) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (stream) DO UPDATE SET version = excluded.version, data = excluded.data, journal_seq = excluded.journal_seq`);
    this.bumpSequence = db.prepare<[string, number, number], number>(`INSERT INTO outbox_sequences (merchant_id, livemode, last_sequence) VALUES (?, ?, ?)
      ON CONFLICT (merchant_id, livemode) DO UPDATE SET last_sequence = last_sequence + excluded.last_sequence RETURNING last_sequence`).pluck(true);
    this.insertJump = db.prepare('INSERT INTO outbox_sequence_jumps (merchant_id, livemode, from_sequence, to_sequence) VALUES (?, ?, ?, ?)');
    this.insertEvent = db.prepare(`INSERT INTO outbox (id, merchant_id, livemode, sequence, type, stream, version, created_at, body, journal_seq)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.deleteTimer = db.prepare('DELETE FROM timers WHERE id = ?');
    this.upsertTimer = db.prepare(`INSERT INTO timers (id, stream, kind, due_at, arg) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET stream = excluded.stream, kind = excluded.kind, due_at = excluded.due_at, arg = excluded.arg`);
    this.insertIdempotency = db.prepare(insertIdempotencySql);
  }

  /** The journal's tail as committed (read inside the transaction, so another writer's rows count). */
  tail(): Tail {
    const row = this.tailQuery.get();
    return row ? { seq: row[0], hash: row[1] } : { seq: 0, hash: genesisHash };
  }

  /** Writes everything of one commit after `tail`; returns the new tail. */
  write(p: PendingCommit, tail: Tail): Tail {
    const { seqs, next } = this.writeEntries(p.entries, tail);
    for (const [stream, kind, version, data, entryIndex] of p.snapshots) this.upsertSnapshot.run(stream, kind, version, data, seqs[entryIndex]!);
    this.writeEvents(p, seqs);
    for (const id of p.timersClear) this.deleteTimer.run(id);
    for (const t of p.timersSet) this.upsertTimer.run(...t);
    const r = p.idempotency;
    if (r) {
      const [scope, key, requestHash, requestId, status, body, createdAt, expiresAt] = r;
      const sealed = sealIdempotencyBody(this.sealer, { scope, key, body });
      const info = this.insertIdempotency.run(scope, key, requestHash, requestId, status, sealed, createdAt, expiresAt, seqs.length > 0 ? next.seq : null);
      if (info.changes !== 1) throw new IdempotencyKeyInUse(r[0], r[1]);
    }
    return next;
  }

  private writeEntries(entries: readonly PendingEntry[], tail: Tail): { seqs: number[]; next: Tail } {
    const seqs: number[] = [];
    let { seq, hash } = tail;
    for (const entry of entries) {
      seq++;
      const values: HashedValues = [seq, ...entry.values];
      const next = chainHash(hash, values);
      try {
        this.insertEntry.run(...values, hash, next);
      } catch (error) {
        const [stream, kind, version] = entry.values;
        if (isVersionTaken(error)) throw new StateConflict(stream, kind as StreamKind, `${stream} version ${version} was written by another writer`);
        throw error;
      }
      hash = next;
      seqs.push(seq);
      if (entry.postings) for (const [txnId, account, amount] of entry.postings) this.insertPosting.run(seq, txnId, account, amount);
      if (entry.sequenceJump) {
        const [merchantId, by] = entry.sequenceJump;
        for (const livemode of [0, 1]) {
          const last = this.bumpSequence.get(merchantId, livemode, by)!;
          this.insertJump.run(merchantId, livemode, last - by + 1, last);
        }
      }
    }
    return { seqs, next: { seq, hash } };
  }

  private writeEvents(p: PendingCommit, seqs: readonly number[]): void {
    if (p.events.length === 0) return;
    const seqOf = new Map<string, number>();
    p.entries.forEach((entry, i) => seqOf.set(`${entry.values[0]}@${entry.values[2]}`, seqs[i]!));
    // One counter bump per merchant and mode, then the commit's events take the numbers in order.
    const counters = new Map<string, { merchantId: string; livemode: number; count: number; next: number }>();
    for (const e of p.events) {
      const key = `${e.merchantId}:${e.livemode}`;
      const c = counters.get(key);
      if (c) c.count++;
      else counters.set(key, { merchantId: e.merchantId, livemode: e.livemode, count: 1, next: 0 });
    }
    for (const c of counters.values()) c.next = this.bumpSequence.get(c.merchantId, c.livemode, c.count)! - c.count + 1;
    for (const e of p.events) {
      const counter = counters.get(`${e.merchantId}:${e.livemode}`)!;
      const sequence = counter.next++;
      const id = this.ids.next('evt', e.merchantId);
      this.insertEvent.run(id, e.merchantId, counter.livemode, sequence, e.type, e.stream, e.version, e.createdAt,
        assembleEnvelope(id, sequence, e.envelope), seqOf.get(`${e.stream}@${e.version}`)!);
    }
  }
}

/** A nonce row: [scope, nonce, expires_at] (adapters/sqlite/keys.ts). */
export type NonceRow = readonly [string, string, number];

export interface BatchResult {
  /** The journal's tail when the transaction began: another writer appended if it is not the tail last written here. */
  readonly found: Tail;
  readonly written: Tail;
  /** Why each item not written was not (by index); the others are in the transaction. */
  readonly errors: Map<number, unknown>;
}

/**
 * One group commit: one IMMEDIATE transaction holding the nonces, then each commit in a
 * SAVEPOINT of its own, so a failing commit is rolled back alone — unless SQLite rolled the
 * whole transaction back (SQLITE_FULL, an I/O error), which fails the batch. The same code serves the
 * journal on the event loop (journal.ts) and on the writer thread (journal-worker.ts).
 */
export class BatchWriter {
  private readonly writer: CommitWriter;
  private readonly upsertNonce;
  /** Writes one commit inside the batch's transaction: better-sqlite3 nests it as a SAVEPOINT. */
  private readonly savepoint: (p: PendingCommit, tail: Tail) => Tail;
  private readonly transaction;

  /** `sealer` seals the idempotency bodies (adapters/sqlite/keys.ts); none only in journal specs and benches that keep no secrets. */
  constructor(db: Db, ids: Ids, sealer?: Sealer) {
    this.writer = new CommitWriter(db, ids, sealer);
    this.upsertNonce = db.prepare('INSERT INTO nonces (scope, nonce, expires_at) VALUES (?, ?, ?) ON CONFLICT (scope, nonce) DO UPDATE SET expires_at = excluded.expires_at');
    this.savepoint = db.transaction((p: PendingCommit, tail: Tail) => this.writer.write(p, tail));
    this.transaction = db.transaction((items: readonly PendingCommit[], nonces: readonly NonceRow[], refuse: (i: number) => unknown, failed: (i: number) => void): BatchResult => {
      const found = this.writer.tail();
      for (const row of nonces) this.upsertNonce.run(...row);
      const errors = new Map<number, unknown>();
      let tail = found;
      items.forEach((item, i) => {
        const refusal = refuse(i);
        if (refusal !== undefined) {
          errors.set(i, refusal);
          return;
        }
        try {
          tail = this.savepoint(item, tail);
        } catch (error) {
          // SQLite may roll the whole transaction back on its own (a full disk, an I/O
          // error): then nothing of the batch stands, and the items after this one must not
          // run outside it, each committed alone. The batch fails as a whole.
          if (!db.inTransaction) throw error;
          errors.set(i, error);
          failed(i);
        }
      });
      return { found, written: tail, errors };
    });
  }

  tail(): Tail {
    return this.writer.tail();
  }

  /**
   * Writes the batch: `refuse(i)` gives a reason not to write item i (checked in order, so
   * it may depend on what failed before), `failed(i)` hears of each item that failed.
   * Throws, having written nothing, when the transaction itself fails.
   */
  write(items: readonly PendingCommit[], nonces: readonly NonceRow[], refuse: (i: number) => unknown, failed: (i: number) => void): BatchResult {
    return this.transaction.immediate(items, nonces, refuse, failed);
  }
}

function isVersionTaken(error: unknown): boolean {
  return error instanceof Error && (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && error.message.includes('journal.stream');
}

/**
 * The merchant's sequence ranges in a mode that a restore's jump passed over, [from, to]
 * ascending (the events feed pages over them), read from the table once, when this is called.
 * The table changes only in a restore's jump, which the server journals at its start before it
 * builds its services (server/main.ts: advanceSequencesAfterRestore), and one server holds a
 * data dir: so every request of the process would read the same rows. A merchant the table
 * does not name has none. Bounded: two rows (live, sandbox) per merchant per restore.
 */
export function sequenceJumps(db: Db): (merchantId: string, livemode: boolean) => readonly (readonly [number, number])[] {
  const rows = db.prepare<[], [string, number, number, number]>(
    'SELECT merchant_id, livemode, from_sequence, to_sequence FROM outbox_sequence_jumps ORDER BY merchant_id, livemode, from_sequence').raw(true).all();
  const byMerchantMode = new Map<string, (readonly [number, number])[]>();
  for (const [merchantId, livemode, from, to] of rows) {
    const key = `${merchantId}\u0000${livemode}`;
    const ranges = byMerchantMode.get(key) ?? [];
    ranges.push([from, to]);
    byMerchantMode.set(key, ranges);
  }
  const none: readonly (readonly [number, number])[] = [];
  return (merchantId, livemode) => byMerchantMode.get(`${merchantId}\u0000${livemode ? 1 : 0}`) ?? none;
}
