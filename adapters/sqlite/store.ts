// The write side assembled: journal.db opened durably, the world recovered from it, the
// SQLite journal, the request keys and the command handler on the clock and ids ports.
//
//   const store = openStore(dataDir, { clock, ids, groupCommit: true });
//   const { outcome, durable } = store.submit(command, meta, respond); // decided now; await durable before answering
//   store.onDurable(() => relay.wake());                               // told after every durable write
//
// submit is the CommandPort (core/handler/handle.ts): the one way from the HTTP edge, the
// slip worker and the scheduler to the journal. capture batches direct handler calls
// (journal specs, benches) under one durable promise.
// Invariants kept: the world the handler decides against is the fold of the journal —
// when a commit fails after the world applied it (or another writer appended), the store
// rebuilds the world from the journal and swaps in a new handler, so read `store.world`
// and `store.handler` afresh rather than keeping them.

import { CommandHandler, type CommandPort, type Respond, type Submitted } from '../../core/handler/handle.ts';
import type { Actor, Command } from '../../core/handler/commands.ts';
import type { Clock, CommitMeta, Ids } from '../../core/ports.ts';
import type { World } from '../../core/world.ts';
import { SqliteJournal } from './journal.ts';
import { RequestKeys } from './keys.ts';
import { checkMasterKey, type Sealer } from '../sealing.ts';
import { recoverWorld, type Recovered } from './recovery.ts';
import { immediateTransactions, openDatabase, type Db } from './schema.ts';
import { JournalThread } from './journal-thread.ts';
import { dirname } from 'node:path';
import { WalSync, type SyncWal } from './wal-sync.ts';
import { SnapshotArchive } from './archive.ts';
import { isStorageFailure } from './errors.ts';

export interface StoreOptions {
  readonly clock: Clock;
  readonly ids: Ids;
  /** Batch the commands of one event-loop turn into one transaction (default true). */
  readonly groupCommit?: boolean;
  /** Told when the world was rebuilt, and why. */
  readonly onRebuilt?: (reason: unknown, recovered: Recovered) => void;
  /**
   * Seals what the store keeps of secrets (idempotency bodies) under the master key, which
   * is checked first (a wrong one is refused). The server always gives one; journal specs
   * and benches that keep no secrets may leave it out.
   */
  readonly sealer?: Sealer;
  /**
   * Group commits made durable by an fdatasync of the WAL off the event loop, so the next
   * batch is decided while one syncs (wal-sync.ts; default true with groupCommit). False:
   * every batch commits with synchronous=FULL on this thread, as before.
   */
  readonly pipelined?: boolean;
  /** The fdatasync the pipeline runs (default node:fs fdatasync; specs hold or fail it). */
  readonly syncWal?: SyncWal;
  /**
   * Closed orders leave memory once their snapshots are written and are read back from
   * them (archive.ts), so memory is bounded by open work (default true).
   */
  readonly evictClosed?: boolean;
  /**
   * Group commits are written and synced by a writer thread that owns journal.db's
   * commits (journal-thread.ts), and this connection reads, with the rare writes of its
   * own (webhooks, keys, the action log) in IMMEDIATE transactions (default false).
   */
  readonly writerThread?: boolean;
  /**
   * The WAL could not be synced: nothing can be called durable any more. The server logs
   * it and exits (as PostgreSQL panics); recovery replays what the WAL holds.
   */
  readonly onDurabilityLost?: (error: unknown) => void;
  /** A transaction the disk refused that held no command (request nonces alone): logged, and readiness says commit_failed. */
  readonly onWriteFailure?: (error: unknown) => void;
  /** The world already replayed from this journal (peek.ts, before the migration): not replayed again. */
  readonly recovered?: Recovered;
}

export class Store implements CommandPort {
  readonly journal: SqliteJournal;
  readonly keys: RequestKeys;
  private current: { world: World; handler: CommandHandler };
  /** How the world was last rebuilt (entries, timers, time taken). */
  recovered: Recovered;
  private readonly durableListeners: (() => void)[] = [];
  private readonly walSync: WalSync | null;
  private readonly archive: SnapshotArchive;

  constructor(readonly db: Db, private readonly options: StoreOptions) {
    if (options.sealer) checkMasterKey(db, options.sealer);
    this.recovered = options.recovered ?? recoverWorld(db);
    this.archive = new SnapshotArchive(db);
    const groupCommit = options.groupCommit ?? true;
    // The writer thread (journal-thread.ts) owns the journal's commits; it is stopped by journal.close().
    const thread = groupCommit && options.writerThread ? JournalThread.start(dirname(db.name), this.recovered.world.lastSeq, options.sealer) : null;
    if (thread) immediateTransactions(db);
    this.walSync = groupCommit && !thread && (options.pipelined ?? true) ? WalSync.open(db, this.recovered.world.lastSeq, options.syncWal) : null;
    this.journal = new SqliteJournal(db, {
      groupCommit,
      ids: options.ids,
      world: () => this.current.world,
      onStale: (reason) => this.rebuild(reason),
      onWriteFailure: (error) => {
        if (isStorageFailure(error)) this.lastCommitFailure = { atMs: Date.now(), code: String((error as { code: unknown }).code) };
        options.onWriteFailure?.(error);
      },
      ...(options.sealer ? { sealer: options.sealer } : {}),
      ...(this.walSync ? { walSync: this.walSync } : {}),
      ...(thread ? { thread, onThreadFailed: (error: unknown) => options.onDurabilityLost?.(error) } : {}),
    });
    this.current = this.assemble(this.recovered.world);
    // Nonces expire on the wall clock, whatever the business clock says: loading from the
    // earlier of the two keeps every nonce either might still count as live.
    this.keys = new RequestKeys(db, this.journal, Math.min(options.clock.now(), Date.now()), options.sealer);
  }

  get world(): World { return this.current.world; }
  get handler(): CommandHandler { return this.current.handler; }
  get clock(): Clock { return this.options.clock; }
  /** Every journal seq at or below this is on disk: the relay and the webhook reader go no further. */
  get durableSeq(): number { return this.journal.durableSeq; }

  /** Resolves once every command submitted so far is durable or refused (SqliteJournal.caughtUp). */
  caughtUp(): Promise<void> { return this.journal.caughtUp(); }

  /** Whether a commit that changes the order (or other stream) `id` is not yet durable nor refused. */
  inFlight(id: string): boolean { return this.journal.inFlight(id); }

  /** Calls `listener` after every write captured here is durable (outbox and relay wake-ups). */
  onDurable(listener: () => void): void {
    this.durableListeners.push(listener);
  }

  /**
   * Runs fn (which executes commands on the handler) and returns the promise that their
   * commits are durable; once they are, the durable listeners are told.
   */
  capture<T>(fn: () => T): { result: T; durable: Promise<void> } {
    const captured = this.journal.capture(fn);
    this.tellWhenDurable(captured.durable);
    return captured;
  }

  /**
   * Decides and applies a command at once; `durable` resolves when its commit is on disk
   * (with the group commit of this event-loop turn) and rejects if it could not be written.
   */
  submit(command: Command, meta: CommitMeta = {}, respond?: Respond): Submitted {
    const actor = (command as { readonly actor?: Actor }).actor;
    const own = actor?.kind === 'merchant' ? { ...meta, callerMerchantId: actor.merchantId } : meta;
    const { result, durable } = this.journal.capture(() => this.current.handler.execute(command, own, respond));
    this.tellWhenDurable(durable);
    return { outcome: result, durable };
  }

  /** Replaces the world (and its handler) by a fresh replay of the journal. */
  rebuild(reason: unknown): void {
    this.recovered = recoverWorld(this.db);
    this.current = this.assemble(this.recovered.world);
    this.options.onRebuilt?.(reason, this.recovered);
  }

  /** Writes what is queued, then closes the database. */
  close(): void {
    this.journal.close();
    this.walSync?.close();
    this.db.close();
  }

  /**
   * The last commit the disk could not take (wall-clock ms, SQLite's code), until one is
   * written again: readiness tells a load balancer (a full disk fails every write while the
   * file stays writable).
   */
  get commitFailure(): { readonly atMs: number; readonly code: string } | null { return this.lastCommitFailure; }
  private lastCommitFailure: { readonly atMs: number; readonly code: string } | null = null;

  private tellWhenDurable(durable: Promise<void>): void {
    durable.then(() => {
      this.lastCommitFailure = null;
      for (const listener of this.durableListeners) listener();
    }, (error) => {
      // A refusal (a conflict, a key in use) is not the disk's failure.
      if (isStorageFailure(error)) this.lastCommitFailure = { atMs: Date.now(), code: String((error as { code: unknown }).code) };
      if (this.walSync?.failed) this.options.onDurabilityLost?.(error);
    });
  }

  private assemble(world: World): { world: World; handler: CommandHandler } {
    if (this.options.evictClosed ?? true) {
      world.archive = this.archive;
      world.considerAllClosed();
      world.evictClosed();
    }
    return { world, handler: new CommandHandler(world, this.journal, this.options.clock, this.options.ids) };
  }
}

/** Opens or creates `dataDir/journal.db` and recovers the world from it. */
export function openStore(dataDir: string, options: StoreOptions): Store {
  const db = openDatabase(dataDir);
  try {
    return new Store(db, options);
  } catch (error) {
    db.close();
    throw error;
  }
}
