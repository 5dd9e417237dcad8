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
// - With a writer thread (journal-thread.ts) the batch is handed to the thread, which owns
//   journal.db's writes, and the next batch is decided while it writes and syncs; a commit
//   that fails there fails every later one decided on the same world (see `epoch`).
// - capture(fn): runs fn (which appends through the port) and returns the promise that
//   every commit appended meanwhile is durable. flushed(): all enqueued so far is written.
// - rideNonces(take): nonce rows that belong to no command join the next transaction, or a
//   transaction of their own on the next turn.
//
// Invariants kept: the world the handler decides against holds exactly the journal plus
// what is queued. The journal numbers the entries, so it keeps world.lastSeq (the last
// written seq); when the journal's tail is not that seq at the start of a transaction,
// another writer appended, and when a commit fails after the world applied it, the world
// is stale: onStale is called and the owner rebuilds the world from the journal.
// Snapshots are read from the world at append time, before it moves on; an order leaves
// memory only once the snapshot of its last change is written.

import type { Commit } from '../../core/journal.ts';
import type { MerchantEvent } from '../../core/outbox.ts';
import type { CommitMeta, Ids, Journal } from '../../core/ports.ts';
import type { World } from '../../core/world.ts';
import { writeSideLimits } from '../../core/limits.ts';
import type { Sealer } from '../sealing.ts';
import { IdempotencyKeyInUse, RefusedAfterFailure, StateConflict } from './errors.ts';
import type { BatchAck, JournalThread } from './journal-thread.ts';
import type { RidingNonces } from './keys.ts';
import type { Db } from './schema.ts';
import type { WalSync } from './wal-sync.ts';
import { BatchWriter, dependsOn, pendingCommit, touchedKeys, type NonceRow, type PendingCommit, type Tail } from './writer.ts';

export interface SqliteJournalOptions {
  /** append() enqueues into the next group commit instead of writing at once. */
  readonly groupCommit: boolean;
  /** Ids for outbox events (evt_…). */
  readonly ids: Ids;
  /** The world commits are applied to (read for snapshots; its lastSeq is kept here). */
  readonly world: () => World;
  /** The world no longer matches the journal; the owner must rebuild it. */
  readonly onStale?: (reason: unknown) => void;
  /** Told when a transaction the disk refused held no command to refuse (nonces alone): readiness says so. */
  readonly onWriteFailure?: (error: unknown) => void;
  /** Seals the idempotency bodies written with commits (adapters/sqlite/keys.ts). */
  readonly sealer?: Sealer;
  /**
   * Pipelined durability (group commit only): batches commit without SQLite's fsync and
   * their promises resolve after this syncs the WAL off the event loop (wal-sync.ts).
   * Without it every batch commits with synchronous=FULL on this thread.
   */
  readonly walSync?: WalSync;
  /**
   * Group commit only: batches are written and synced by this writer thread instead of on
   * this connection, which then only reads (walSync is not used).
   */
  readonly thread?: JournalThread;
  /** The writer thread failed: nothing handed to it can be called durable (the owner stops). */
  readonly onThreadFailed?: (error: unknown) => void;
}

interface Queued {
  /** For a failure's dependants in a group commit on this thread; null with the writer thread (not kept while waiting). */
  readonly commit: Commit | null;
  readonly pending: PendingCommit;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  /** The world's generation it was decided on (writer thread). */
  readonly epoch: number;
}

/** A command handed to the writer thread: what its acknowledgement needs, nothing of the world. */
interface Handed {
  /** The streams whose snapshots it writes. */
  readonly streams: readonly string[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** A batch handed to the writer thread, until its acknowledgement. */
interface Posted {
  readonly items: readonly Handed[];
  readonly started: number;
  /** The riding nonces: their rows (ridden again when the transaction failed), and what to call once written (or lost with the thread). */
  readonly nonces: { readonly rows: NonceRow[]; readonly written: () => void };
}

const noop = () => {};
/** Commands with the writer thread at most at a time (two full batches): see `waiting`. */
const threadItemsInFlightMax = 2 * writeSideLimits.groupCommitCommandsMax;

export class SqliteJournal implements Journal {
  /** This connection's batch writer, prepared on first use: never, when a writer thread owns the commits. */
  private inThreadWriter: BatchWriter | null = null;
  private queue: Queued[] = [];
  private nonceRiders: (() => RidingNonces)[] = [];
  private scheduled: { promise: Promise<void>; resolve: () => void } | null = null;
  private captured: Promise<void>[] | null = null;
  /** Commits enqueued and not yet durable nor refused, by number, oldest first (caughtUp()). */
  private readonly unsettled = new Set<number>();
  /** How many of those change each stream (inFlight()). */
  private readonly unsettledStreams = new Map<string, number>();
  private enqueued = 0;
  private caughtUpWaiters: { readonly upTo: number; readonly resolve: () => void }[] = [];
  /** PRAGMA synchronous for a pipelined batch's COMMIT, and back to FULL after it. */
  private readonly synchronous: { normal: () => void; full: () => void } | null;
  /** Writer thread: batches handed over and not yet acknowledged, in order. */
  private readonly posted = new Map<number, Posted>();
  private batchNumber = 0;
  /**
   * Writer thread: commands decided but not yet handed over. At most
   * threadItemsInFlightMax commands are with the thread at a time, in batches of at most
   * groupCommitCommandsMax: a burst (a clock advance firing thousands of timers) waits
   * here, where it is already held, instead of being copied to the thread all at once.
   */
  private waiting: Queued[] = [];
  private itemsInFlight = 0;
  /** Writer thread: told when nothing waits and nothing is with the thread (flushed()). */
  private idleWaiters: (() => void)[] = [];
  /** Writer thread: why it failed; nothing more is handed to it. */
  private threadFailure: unknown = null;
  /** Writer thread: set while nonces wait a moment before going alone after a failed transaction. */
  private loneNoncesHeld: ReturnType<typeof setTimeout> | null = null;
  /** Writer thread: every seq at or below this is written and on disk. */
  private acknowledgedSeq = 0;
  /**
   * Writer thread: the world's generation. A commit that fails on the thread makes the
   * world stale; commits decided on it after that (already handed over) are refused by the
   * thread, and the rebuilt world starts the next generation.
   */
  private epoch = 0;
  /** Writer thread: per stream, how many handed-over snapshots are not yet written (eviction waits for 0). */
  private readonly unwritten = new Map<string, number>();
  /** Told once each group commit is durable: its commands and how long it took, from write to disk (server/metrics.ts). */
  onGroupCommit?: (commands: number, seconds: number) => void;

  constructor(private readonly db: Db, private readonly options: SqliteJournalOptions) {
    // Through db.pragma each time: SQLite applies PRAGMA synchronous when the statement is
    // prepared, so prepared ones run again changed nothing (every batch committed FULL).
    this.synchronous = options.walSync && options.groupCommit && !options.thread
      ? { normal: () => db.pragma('synchronous = NORMAL'), full: () => db.pragma('synchronous = FULL') } : null;
    if (options.thread) {
      this.acknowledgedSeq = options.thread.startTail;
      options.thread.onAck = (ack) => this.acknowledged(ack);
      options.thread.onFatal = (error) => this.threadFailed(error);
    }
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
      const { errors, stale: foreign } = this.transact([pending]);
      const error = errors.get(0);
      if (error !== undefined) throw error;
      stale = foreign;
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
    const epoch = this.epoch;
    const kept = this.options.thread ? null : commit;
    const promise = new Promise<void>((resolve, reject) => this.queue.push({ commit: kept, pending, resolve, reject, epoch }));
    const number = ++this.enqueued;
    this.unsettled.add(number);
    // The stream names only: a closure over `pending` would keep the whole encoded commit
    // alive until it is durable (promoted out of the young generation, more GC per create).
    const streams = pending.snapshots.map(([stream]) => stream);
    for (const stream of streams) this.unsettledStreams.set(stream, (this.unsettledStreams.get(stream) ?? 0) + 1);
    const settled = () => this.settled(number, streams);
    promise.then(settled, settled); // also handles the error, which reaches onStale: an uncaptured rejection must not crash the writer
    // With the writer thread, a full hand-over batch goes now rather than at the end of this
    // turn: the thread writes and syncs it while this loop decides the requests still waiting.
    if (this.options.thread && this.queue.length >= writeSideLimits.handOverEarlyCommands) this.handOverQueued();
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

  /**
   * Resolves once every commit enqueued so far is durable or refused, whatever comes after
   * it: a read that joins the world (which applies a commit at once) with the journal's
   * rows then sees both at one point.
   */
  caughtUp(): Promise<void> {
    if (this.unsettled.size === 0) return Promise.resolve();
    const upTo = this.enqueued;
    return new Promise((resolve) => this.caughtUpWaiters.push({ upTo, resolve }));
  }

  /** Whether a commit that changes `stream` is enqueued and not yet durable nor refused. */
  inFlight(stream: string): boolean {
    return this.unsettledStreams.has(stream);
  }

  private settled(number: number, streams: readonly string[]): void {
    this.unsettled.delete(number);
    for (const stream of streams) {
      const left = this.unsettledStreams.get(stream)! - 1;
      if (left === 0) this.unsettledStreams.delete(stream);
      else this.unsettledStreams.set(stream, left);
    }
    if (this.caughtUpWaiters.length === 0) return;
    const oldest = this.unsettled.values().next();
    const floor = oldest.done ? Infinity : oldest.value;
    this.caughtUpWaiters = this.caughtUpWaiters.filter((w) => {
      if (w.upTo >= floor) return true;
      w.resolve();
      return false;
    });
  }

  /** Resolves once everything enqueued so far has been written (or refused); with the writer thread, once it holds nothing. */
  flushed(): Promise<void> {
    const flushed = this.scheduled?.promise ?? Promise.resolve();
    if (!this.options.thread) return flushed;
    return flushed.then(() => (this.isIdle() ? undefined : new Promise<void>((resolve) => this.idleWaiters.push(resolve))));
  }

  /** Every journal seq at or below this is on disk (readers publish no further). */
  get durableSeq(): number {
    if (this.options.thread) return this.acknowledgedSeq;
    return this.options.walSync?.durableSeq ?? this.options.world().lastSeq;
  }

  /** The writer thread's journal.db may grow to at most this many pages (JournalThread.limitPages): a full disk, for specs. */
  limitWriterPages(maxPageCount: number): void {
    this.options.thread?.limitPages(maxPageCount);
  }

  /** `take` is called once, when the next transaction is made, for the rows to write with it. */
  rideNonces(take: () => RidingNonces): void {
    this.nonceRiders.push(take);
    this.schedule();
  }

  /** Writes (or hands to the writer thread) the queue now rather than on the next turn (shutdown, tests). */
  flushNow(): void {
    const scheduled = this.scheduled;
    if (!scheduled) return;
    this.scheduled = null;
    if (this.options.thread) {
      this.handOverQueued();
      scheduled.resolve();
      return;
    }
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0 && this.nonceRiders.length > 0) this.writeBatch([]);
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

  /** The riding nonces' rows, and what to call once the transaction holding them is written. */
  private takeNonces(): { rows: NonceRow[]; written: () => void } {
    const riders = this.nonceRiders;
    this.nonceRiders = [];
    const taken = riders.map((take) => take());
    return { rows: taken.flatMap((t) => t.rows), written: () => { for (const t of taken) t.written(); } };
  }

  /**
   * One IMMEDIATE transaction on this connection: the riding nonces, then `items`. Advances
   * world.lastSeq; `stale` says why the world is stale when another writer appended since
   * it was last advanced.
   */
  private transact(items: readonly PendingCommit[], refuse: (i: number) => unknown = noop, failed: (i: number) => void = noop): { errors: Map<number, unknown>; stale: Error | null } {
    const world = this.options.world();
    const expected = world.lastSeq;
    const nonces = this.takeNonces();
    let result;
    try {
      result = (this.inThreadWriter ??= new BatchWriter(this.db, this.options.ids, this.options.sealer)).write(items, nonces.rows, refuse, failed);
    } finally {
      nonces.written();
    }
    const { found, written, errors } = result;
    world.lastSeq = written.seq;
    return { errors, stale: found.seq === expected ? null : new Error(`another writer appended to the journal (seq ${expected} → ${found.seq})`) };
  }

  private writeBatch(batch: readonly Queued[]): void {
    const started = performance.now();
    let errors = new Map<number, unknown>();
    let stale: Error | null = null;
    this.synchronous?.normal();
    try {
      const failedKeys = new Set<string>();
      const refuse = (i: number) => {
        const blocked = failedKeys.size === 0 ? undefined : dependsOn(batch[i]!.commit!, failedKeys);
        if (!blocked) return undefined;
        for (const key of touchedKeys(batch[i]!.commit!)) failedKeys.add(key);
        return new RefusedAfterFailure(blocked.stream, blocked.streamKind, 'an earlier command of its group commit that it depends on failed');
      };
      const failed = (i: number) => { for (const key of touchedKeys(batch[i]!.commit!)) failedKeys.add(key); };
      ({ errors, stale } = this.transact(batch.map((q) => q.pending), refuse, failed));
    } catch (error) {
      errors = new Map(batch.map((_, i) => [i, error])); // nothing of the batch was written
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
    batch.forEach((item, i) => {
      if (errors.has(i)) item.reject(errors.get(i));
      else if (durable) durable.then(item.resolve, item.reject);
      else item.resolve();
    });
    const firstError = errors.values().next();
    if (!firstError.done) stale = firstError.value as Error;
    if (stale) this.options.onStale?.(stale);
  }

  /**
   * Writes what is queued and, with the writer thread, hands it everything that waits and
   * stops it once it has written and synced it all (shutdown).
   */
  close(): void {
    this.flushNow();
    const thread = this.options.thread;
    if (!thread) return;
    this.handOver(Infinity);
    thread.stopSync();
  }

  /** Writer thread: what is queued joins what waits, and is handed over as far as the limit allows. */
  private handOverQueued(): void {
    for (const item of this.queue) this.waiting.push(item);
    this.queue = [];
    this.handOver(threadItemsInFlightMax);
  }

  /**
   * Hands waiting commands to the writer thread while fewer than `limit` are with it, in
   * batches of one world generation and at most groupCommitCommandsMax; riding nonces go
   * with the first batch, or alone.
   */
  private handOver(limit: number): void {
    if (this.threadFailure !== null) {
      for (const item of this.waiting.splice(0)) item.reject(this.threadFailure);
      return;
    }
    while (this.waiting.length > 0 && this.itemsInFlight < limit) {
      const epoch = this.waiting[0]!.epoch;
      let n = 1;
      while (n < this.waiting.length && n < writeSideLimits.groupCommitCommandsMax && this.waiting[n]!.epoch === epoch) n++;
      this.post(this.waiting.splice(0, n), epoch);
    }
    if (this.nonceRiders.length > 0 && this.loneNoncesHeld === null) this.post([], this.epoch);
  }

  /** After a failed transaction: nonces go alone to the writer thread again only in a second. */
  private holdLoneNonces(): void {
    if (this.loneNoncesHeld !== null) return;
    this.loneNoncesHeld = setTimeout(() => {
      this.loneNoncesHeld = null;
      if (this.threadFailure === null && this.nonceRiders.length > 0) this.handOver(threadItemsInFlightMax);
    }, writeSideLimits.loneNoncesRetryMs);
    this.loneNoncesHeld.unref();
  }

  private post(batch: readonly Queued[], epoch: number): void {
    const nonces = this.takeNonces();
    const number = ++this.batchNumber;
    const items = batch.map((q): Handed => ({ streams: q.pending.snapshots.map(([stream]) => stream), resolve: q.resolve, reject: q.reject }));
    for (const item of items) for (const stream of item.streams) this.unwritten.set(stream, (this.unwritten.get(stream) ?? 0) + 1);
    this.itemsInFlight += items.length;
    this.posted.set(number, { items, started: performance.now(), nonces });
    this.options.thread!.post({ batch: number, epoch, items: batch.map((q) => q.pending), nonces: nonces.rows });
  }

  private isIdle(): boolean {
    return this.waiting.length === 0 && this.posted.size === 0 && this.queue.length === 0;
  }

  private acknowledged(ack: BatchAck): void {
    const posted = this.posted.get(ack.batch);
    if (!posted) return;
    this.posted.delete(ack.batch);
    const world = this.options.world();
    if (ack.written > world.lastSeq) world.lastSeq = ack.written;
    if (ack.written > this.acknowledgedSeq) this.acknowledgedSeq = ack.written;
    this.itemsInFlight -= posted.items.length;
    if (ack.failed) {
      // Nothing was written, its nonces neither: they ride again with the next transaction,
      // and alone only after a pause (a full disk must not be retried in a loop).
      const { rows, written } = posted.nonces;
      if (rows.length > 0) this.nonceRiders.push(() => ({ rows, written }));
      this.holdLoneNonces();
      // A failed command is told through its own rejection (and the rebuild); nonces alone, here.
      if (posted.items.length === 0) this.options.onWriteFailure?.(threadError(ack.failed));
    } else {
      posted.nonces.written();
    }
    for (const item of posted.items) {
      for (const stream of item.streams) {
        const left = (this.unwritten.get(stream) ?? 1) - 1;
        if (left === 0) this.unwritten.delete(stream);
        else this.unwritten.set(stream, left);
      }
    }
    const errors = new Map(ack.errors.map(([i, wire]) => [i, threadError(wire)]));
    const failure = ack.errors.find(([, wire]) => !wire.refused);
    if (posted.items.length > errors.size) this.onGroupCommit?.(posted.items.length, (performance.now() - posted.started) / 1000);
    posted.items.forEach((item, i) => {
      if (errors.has(i)) item.reject(errors.get(i));
      else item.resolve();
    });
    const stale = failure ? errors.get(failure[0]) : ack.foreign ? new Error(`another writer appended to the journal (found by the writer thread at batch ${ack.batch})`) : undefined;
    if (stale !== undefined) {
      this.epoch++;
      this.options.onStale?.(stale);
    }
    this.options.world().evictClosed((id) => this.unwritten.has(id)); // only orders whose last snapshot is written
    this.handOver(threadItemsInFlightMax);
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** The writer thread cannot go on: nothing handed to it can be called durable. */
  private threadFailed(error: unknown): void {
    this.threadFailure = error;
    const posted = [...this.posted.values()];
    this.posted.clear();
    for (const p of posted) {
      for (const item of p.items) item.reject(error);
      p.nonces.written();
    }
    for (const item of this.waiting.splice(0)) item.reject(error);
    this.itemsInFlight = 0;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
    this.options.onThreadFailed?.(error);
  }
}

/** An error the writer thread reported, as the class the callers know. */
function threadError(wire: BatchAck['errors'][number][1]): Error {
  if (wire.conflict) return new (wire.refused ? RefusedAfterFailure : StateConflict)(wire.conflict.stream, wire.conflict.streamKind, wire.conflict.reason);
  if (wire.keyInUse) return new IdempotencyKeyInUse(wire.keyInUse.scope, wire.keyInUse.key);
  return wire.code ? Object.assign(new Error(wire.message), { code: wire.code }) : new Error(wire.message);
}

function isEmpty(commit: Commit, meta: CommitMeta): boolean {
  return commit.entries.length === 0 && commit.timers.set.length === 0 && commit.timers.clear.length === 0 && meta.idempotency === undefined;
}
