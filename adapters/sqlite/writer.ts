// Writes one command's commit inside the caller's transaction: its journal entries
// (numbered and hash-chained from the tail), their ledger postings, the snapshot of every
// object it touched, its merchant events in the outbox, its timer changes and its
// idempotency record. Invariants kept: everything a command causes is written by one
// call, so the caller's transaction (or savepoint) commits or drops it whole; a stream
// version already taken surfaces as StateConflict, never as a lost update; outbox
// sequences per merchant and mode come from a durable counter and are never reused.

import type { Commit, JournalEntry } from '../../core/journal.ts';
import { accountKey } from '../../core/ledger/ledger.ts';
import type { MerchantEvent } from '../../core/outbox.ts';
import type { CommitMeta, Ids } from '../../core/ports.ts';
import type { World } from '../../core/world.ts';
import { chainHash, entryValues, genesisHash, hashedColumns } from './chain.ts';
import { envelopeBody } from './envelope.ts';
import type { Sealer } from '../sealing.ts';
import { IdempotencyKeyInUse, StateConflict } from './errors.ts';
import { sealIdempotencyBody } from './keys.ts';
import type { Db } from './schema.ts';
import { snapshotData } from './snapshots.ts';

/** The journal's last row: where the next entry chains on. */
export interface Tail {
  readonly seq: number;
  readonly hash: string;
}

interface Snapshot {
  readonly stream: string;
  readonly kind: string;
  readonly version: number;
  readonly data: string;
  /** Index in commit.entries of the stream's last entry (its seq is known only when written). */
  readonly entryIndex: number;
}

/** A commit with what must be read from the world at append time, ready to write later. */
export interface PendingCommit {
  readonly commit: Commit;
  readonly meta: CommitMeta;
  readonly events: readonly MerchantEvent[];
  readonly snapshots: readonly Snapshot[];
}

/** Captures the snapshots now: the world moves on before a group commit writes them. */
export function pendingCommit(world: World, commit: Commit, meta: CommitMeta, events: readonly MerchantEvent[]): PendingCommit {
  const last = new Map<string, number>();
  commit.entries.forEach((entry, i) => last.set(entry.stream, i));
  const snapshots: Snapshot[] = [];
  for (const [stream, entryIndex] of last) {
    const entry = commit.entries[entryIndex]!;
    snapshots.push({ stream, kind: entry.streamKind, version: entry.version, data: snapshotData(world, entry), entryIndex });
  }
  return { commit, meta, events, snapshots };
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

/**
 * Stores an idempotency record (9 parameters, the last the journal seq or NULL). A key whose
 * record expired may be used again; an unexpired one updates nothing (changes = 0).
 */
export const insertIdempotencySql = `INSERT INTO idempotency (scope, key, request_hash, request_id, status, body, created_at, expires_at, journal_seq)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash, request_id = excluded.request_id, status = excluded.status,
    body = excluded.body, created_at = excluded.created_at, expires_at = excluded.expires_at, journal_seq = excluded.journal_seq
  WHERE idempotency.expires_at <= excluded.created_at`;

export class CommitWriter {
  private readonly tailQuery;
  private readonly insertEntry;
  private readonly insertPosting;
  private readonly upsertSnapshot;
  private readonly bumpSequence;
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
    const { seqs, next } = this.writeEntries(p.commit.entries, tail);
    for (const s of p.snapshots) this.upsertSnapshot.run(s.stream, s.kind, s.version, s.data, seqs[s.entryIndex]!);
    this.writeEvents(p, seqs);
    for (const id of p.commit.timers.clear) this.deleteTimer.run(id);
    for (const t of p.commit.timers.set) this.upsertTimer.run(t.id, t.stream, t.kind, t.dueAt, t.arg ?? null);
    const r = p.meta.idempotency;
    if (r) {
      const info = this.insertIdempotency.run(r.scope, r.key, r.requestHash, r.requestId, r.status, sealIdempotencyBody(this.sealer, r), r.createdAt, r.expiresAt, seqs.length > 0 ? next.seq : null);
      if (info.changes !== 1) throw new IdempotencyKeyInUse(r.scope, r.key);
    }
    return next;
  }

  private writeEntries(entries: readonly JournalEntry[], tail: Tail): { seqs: number[]; next: Tail } {
    const seqs: number[] = [];
    let { seq, hash } = tail;
    for (const entry of entries) {
      seq++;
      const values = entryValues(seq, entry);
      const next = chainHash(hash, values);
      try {
        this.insertEntry.run(...values, hash, next);
      } catch (error) {
        if (isVersionTaken(error)) throw new StateConflict(entry.stream, entry.streamKind, `${entry.stream} version ${entry.version} was written by another writer`);
        throw error;
      }
      hash = next;
      seqs.push(seq);
      if (entry.event.type === 'BalanceTransactionPosted') {
        const txn = entry.event.transaction;
        for (const posting of txn.postings) this.insertPosting.run(seq, txn.id, accountKey(posting.account), posting.amountMinor);
      }
    }
    return { seqs, next: { seq, hash } };
  }

  private writeEvents(p: PendingCommit, seqs: readonly number[]): void {
    if (p.events.length === 0) return;
    const seqOf = new Map<string, number>();
    p.commit.entries.forEach((entry, i) => seqOf.set(`${entry.stream}@${entry.version}`, seqs[i]!));
    // One counter bump per merchant and mode, then the commit's events take the numbers in order.
    const counters = new Map<string, { merchantId: string; livemode: number; count: number; next: number }>();
    for (const e of p.events) {
      const key = `${e.merchantId}:${e.livemode}`;
      const c = counters.get(key);
      if (c) c.count++;
      else counters.set(key, { merchantId: e.merchantId, livemode: e.livemode ? 1 : 0, count: 1, next: 0 });
    }
    for (const c of counters.values()) c.next = this.bumpSequence.get(c.merchantId, c.livemode, c.count)! - c.count + 1;
    for (const e of p.events) {
      const counter = counters.get(`${e.merchantId}:${e.livemode}`)!;
      const sequence = counter.next++;
      const id = this.ids.next('evt');
      this.insertEvent.run(id, e.merchantId, counter.livemode, sequence, e.type, e.stream, e.version, e.createdAt,
        envelopeBody(id, sequence, e, p.meta), seqOf.get(`${e.stream}@${e.version}`)!);
    }
  }
}

function isVersionTaken(error: unknown): boolean {
  return error instanceof Error && (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && error.message.includes('journal.stream');
}
