// The SQLite journal: core's Journal port, one transaction per command or group commit.
//
//   const journal = new SqliteJournal(db, { groupCommit: true, ids, world: () => world, onStale });
//   const { result, durable } = journal.capture(() => handler.execute(command, meta, respond));
//   await durable;   // the command's commit is on disk (rejects if it was rolled back)
//
// - append(commit, meta, events): the port. With groupCommit false it writes the commit in
//   its own IMMEDIATE transaction before returning (throws if it cannot). With groupCommit
//   true it enqueues, like enqueue(), and the caller awaits the promise through capture().
// - enqueue(commit, meta, events): Promise<void> — everything enqueued in one event-loop
//   turn is written in ONE transaction (flushed on setImmediate, at most
//   groupCommitCommandsMax commands per transaction), each command inside its own
//   SAVEPOINT: a failing command is rolled back alone and its promise rejects; so does any
//   later command of the batch that wrote a stream or ledger account the failed one wrote
//   (it was decided on state that will not exist), with StateConflict; the others commit.
// - capture(fn): runs fn (which appends through the port) and returns the promise that
//   every commit appended meanwhile is durable. flushed(): all enqueued so far is written.
// - ride(write): a durable write that belongs to no command (nonces) joins the next
//   transaction, or a transaction of its own on the next turn.
//
// Invariants kept: the world the handler decides against holds exactly the journal plus
// what is queued. The journal numbers the entries, so it keeps world.lastSeq (the last
// durable seq); when the journal's tail is not that seq at the start of a transaction,
// another writer appended, and when a commit fails after the world applied it, the world
// is stale: onStale is called and the owner rebuilds the world from the journal.
// Snapshots are read from the world at append time, before it moves on.

import type { Commit } from '../../core/journal.ts';
import type { MerchantEvent } from '../../core/outbox.ts';
import type { CommitMeta, Ids, Journal } from '../../core/ports.ts';
import type { World } from '../../core/world.ts';
import { writeSideLimits } from '../../core/limits.ts';
import type { Sealer } from '../sealing.ts';
import { StateConflict } from './errors.ts';
import type { Db } from './schema.ts';
import type { WalSync } from './wal-sync.ts';
import { CommitWriter, dependsOn, pendingCommit, touchedKeys, type PendingCommit, type Tail } from './writer.ts';

export interface SqliteJournalOptions {
  /** append() enqueues into the next group commit instead of writing at once. */
  readonly groupCommit: boolean;
  /** Ids for outbox events (evt_…). */
  readonly ids: Ids;
  /** The world commits are applied to (read for snapshots; its lastSeq is kept here). */
  readonly world: () => World;
  /** The world no longer matches the journal; the owner must rebuild it. */
  readonly onStale?: (reason: unknown) => void;
  /** Seals the idempotency bodies written with commits (adapters/sqlite/keys.ts). */
  readonly sealer?: Sealer;
  /**
   * Pipelined durability (group commit only): batches commit without SQLite's fsync and
   * their promises resolve after this syncs the WAL off the event loop (wal-sync.ts).
   * Without it every batch commits with synchronous=FULL on this thread.
   */
  readonly walSync?: WalSync;
}

interface Queued {
  readonly pending: PendingCommit;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const noop = () => {};

export class SqliteJournal implements Journal {
  private readonly writer: CommitWriter;
  /** Writes one command inside the batch's transaction: better-sqlite3 nests it as a SAVEPOINT. */
  private readonly savepoint: (p: PendingCommit, tail: Tail) => Tail;
  private readonly transaction;
  private queue: Queued[] = [];
  private riders: (() => void)[] = [];
  private scheduled: { promise: Promise<void>; resolve: () => void } | null = null;
  private captured: Promise<void>[] | null = null;
  /** PRAGMA synchronous for a pipelined batch's COMMIT, and back to FULL after it. */
  private readonly synchronous: { normal: () => void; full: () => void } | null;
  /** Told once each group commit is durable: its commands and how long it took, from write to disk (server/metrics.ts). */
  onGroupCommit?: (commands: number, seconds: number) => void;

  constructor(db: Db, private readonly options: SqliteJournalOptions) {
    this.writer = new CommitWriter(db, options.ids, options.sealer);
    const normal = db.prepare('PRAGMA synchronous = NORMAL');
    const full = db.prepare('PRAGMA synchronous = FULL');
    this.synchronous = options.walSync && options.groupCommit ? { normal: () => normal.run(), full: () => full.run() } : null;
    this.savepoint = db.transaction((p: PendingCommit, tail: Tail) => this.writer.write(p, tail));
    this.transaction = db.transaction((body: (tail: Tail) => Tail) => {
      const tail = this.writer.tail();
      this.writeRiders();
      return { found: tail.seq, written: body(tail).seq };
    });
  }

  append(commit: Commit, meta: CommitMeta, events: readonly MerchantEvent[]): void {
    if (this.options.groupCommit) {
      const durable = this.enqueue(commit, meta, events);
      this.captured?.push(durable);
      return;
    }
    if (isEmpty(commit, meta)) return;
    const pending = pendingCommit(this.options.world(), commit, meta, events);
    let stale: Error | null;
    try {
      stale = this.transact((tail) => this.writer.write(pending, tail));
    } catch (error) {
      this.options.onStale?.(error);
      throw error;
    }
    if (stale) this.options.onStale?.(stale);
    else this.options.world().evictClosed();
  }

  enqueue(commit: Commit, meta: CommitMeta, events: readonly MerchantEvent[]): Promise<void> {
    if (isEmpty(commit, meta)) return Promise.resolve();
    const pending = pendingCommit(this.options.world(), commit, meta, events);
    const promise = new Promise<void>((resolve, reject) => this.queue.push({ pending, resolve, reject }));
    promise.catch(noop); // the error also reaches onStale; an uncaptured rejection must not crash the writer
    this.schedule();
    return promise;
  }

  capture<T>(fn: () => T): { result: T; durable: Promise<void> } {
    const outer = this.captured;
    const mine: Promise<void>[] = [];
    this.captured = mine;
    let result: T;
    try {
      result = fn();
    } finally {
      this.captured = outer;
      outer?.push(...mine);
    }
    const durable = mine.length === 0 ? Promise.resolve() : mine.length === 1 ? mine[0]! : Promise.all(mine).then(noop);
    return { result, durable };
  }

  /** Resolves once everything enqueued so far has been written (or refused). */
  flushed(): Promise<void> {
    return this.scheduled?.promise ?? Promise.resolve();
  }

  /** Every journal seq at or below this is on disk (readers publish no further). */
  get durableSeq(): number {
    return this.options.walSync?.durableSeq ?? this.options.world().lastSeq;
  }

  ride(write: () => void): void {
    this.riders.push(write);
    this.schedule();
  }

  /** Writes the queue now rather than on the next turn (shutdown, tests). */
  flushNow(): void {
    const scheduled = this.scheduled;
    if (!scheduled) return;
    this.scheduled = null;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0 && this.riders.length > 0) this.writeBatch([]);
    for (let i = 0; i < batch.length; i += writeSideLimits.groupCommitCommandsMax) {
      this.writeBatch(batch.slice(i, i + writeSideLimits.groupCommitCommandsMax));
    }
    this.options.world().evictClosed(); // their snapshots are written now
    scheduled.resolve();
  }

  private schedule(): void {
    if (this.scheduled) return;
    let resolve = noop;
    const promise = new Promise<void>((r) => { resolve = r; });
    this.scheduled = { promise, resolve };
    setImmediate(() => this.flushNow());
  }

  /**
   * One IMMEDIATE transaction: the riders, then `body`. Advances world.lastSeq; returns
   * why the world is stale when another writer appended since it was last advanced.
   */
  private transact(body: (tail: Tail) => Tail): Error | null {
    const world = this.options.world();
    const expected = world.lastSeq;
    const { found, written } = this.transaction.immediate(body);
    world.lastSeq = written;
    return found === expected ? null : new Error(`another writer appended to the journal (seq ${expected} → ${found})`);
  }

  private writeRiders(): void {
    const riders = this.riders;
    this.riders = [];
    for (const write of riders) write();
  }

  private writeBatch(batch: readonly Queued[]): void {
    const started = performance.now();
    const errors = new Map<Queued, unknown>();
    let stale: Error | null = null;
    this.synchronous?.normal();
    try {
      stale = this.transact((start) => {
        const failedKeys = new Set<string>();
        let tail = start;
        for (const item of batch) {
          const commit = item.pending.commit;
          const blocked = failedKeys.size === 0 ? undefined : dependsOn(commit, failedKeys);
          if (blocked) {
            errors.set(item, new StateConflict(blocked.stream, blocked.streamKind, 'an earlier command of its group commit that it depends on failed'));
          } else {
            try {
              tail = this.savepoint(item.pending, tail);
              continue;
            } catch (error) {
              errors.set(item, error);
            }
          }
          for (const key of touchedKeys(commit)) failedKeys.add(key);
        }
        return tail;
      });
    } catch (error) {
      for (const item of batch) if (!errors.has(item)) errors.set(item, error); // nothing of the batch was written
    } finally {
      this.synchronous?.full();
    }
    const durable = this.synchronous ? this.options.walSync!.after(this.options.world().lastSeq) : null;
    if (durable && errors.size === batch.length) durable.catch(noop); // only riders wrote: nobody waits
    const observe = () => this.onGroupCommit?.(batch.length, (performance.now() - started) / 1000);
    if (batch.length > 0) {
      if (durable) durable.then(observe, noop);
      else observe();
    }
    for (const item of batch) {
      if (errors.has(item)) item.reject(errors.get(item));
      else if (durable) durable.then(item.resolve, item.reject);
      else item.resolve();
    }
    const firstError = errors.values().next();
    if (!firstError.done) stale = firstError.value as Error;
    if (stale) this.options.onStale?.(stale);
  }
}

function isEmpty(commit: Commit, meta: CommitMeta): boolean {
  return commit.entries.length === 0 && commit.timers.set.length === 0 && commit.timers.clear.length === 0 && meta.idempotency === undefined;
}
