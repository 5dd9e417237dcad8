// Durability off the event loop: the journal's group commits are written to the WAL
// without SQLite's own fsync, and this makes them durable with fdatasync(journal.db-wal)
// on libuv's thread pool, so that while one batch is being made durable the next is
// decided and written.
//
//   const sync = WalSync.open(db);
//   const seq = commitBatch();                      // COMMIT with synchronous=NORMAL: in the WAL, not yet on disk
//   sync.after(seq).then(answerTheBatch);           // resolves once an fdatasync that began after the COMMIT returned
//   sync.durableSeq                                 // what readers may publish: every seq ≤ it is on disk
//
// Why this is as durable as synchronous=FULL: in WAL mode a COMMIT appends the
// transaction's frames, commit frame last, to journal.db-wal with write(); FULL adds one
// fsync of that file before COMMIT returns. Here the same fsync happens after COMMIT
// returns and before anyone is told: an fdatasync that begins after a COMMIT returned
// covers every frame written until then (the WAL's inode is stable while a connection holds
// the database open; a checkpoint that restarts the WAL first copies its frames into
// journal.db and syncs that file). One fdatasync covers every batch committed before it
// began — group fsync — and at most one is in flight at a time.
// Invariants kept: `after(seq)` resolves only when an fdatasync that began after the call
// returned (so seq ≤ durableSeq); a failed fdatasync
// rejects every waiter it covered and every later one (the kernel may have dropped the
// pages: nothing after it can be called durable — the owner must stop, as PostgreSQL does).

import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';
import type { Db } from './schema.ts';

/** fdatasync(fd) with a callback, as node:fs has it. */
export type SyncWal = (fd: number, done: (error: unknown) => void) => void;

interface Waiter {
  /** The commit it waits for, numbered by this object (a batch may add no journal entry). */
  readonly commit: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class WalSync {
  private committedSeq: number;
  private syncedSeq: number;
  private commits = 0;
  private syncedCommits = 0;
  private inFlight = false;
  private waiters: Waiter[] = [];
  private failure: unknown = null;
  private fd: number | null;

  /** `sync` is the fdatasync to run (tests pass a slow or failing one); `fd` the open WAL. */
  private constructor(fd: number, seq: number, private readonly sync: SyncWal) {
    this.fd = fd;
    this.committedSeq = seq;
    this.syncedSeq = seq;
  }

  /**
   * Opens the database's WAL for syncing and makes what it already holds durable (a crash
   * may have left committed frames only in the page cache). `seq` is the journal's tail.
   */
  static open(db: Db, seq: number, sync: SyncWal = fdatasync): WalSync {
    const fd = openSync(`${db.name}-wal`, 'r');
    try {
      fdatasyncSync(fd);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return new WalSync(fd, seq, sync);
  }

  /** An fdatasync failed: nothing after it is durable. */
  get failed(): boolean {
    return this.failure !== null;
  }

  /** Every journal seq at or below this is on disk. */
  get durableSeq(): number {
    return this.syncedSeq;
  }

  /** Resolves once the batch that committed up to `seq` is on disk; rejects if it cannot be made so. */
  after(seq: number): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    if (seq > this.committedSeq) this.committedSeq = seq;
    const commit = ++this.commits;
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ commit, resolve, reject }));
    this.kick();
    return done;
  }

  /** Syncs now, on this thread, and settles every waiter (shutdown). */
  flushSync(): void {
    if (this.fd === null || this.failure !== null) return;
    const target = { commits: this.commits, seq: this.committedSeq };
    try {
      fdatasyncSync(this.fd);
    } catch (error) {
      this.fail(error);
      return;
    }
    this.settle(target);
  }

  /** Syncs what is committed and closes the WAL's descriptor; the database closes after. */
  close(): void {
    this.flushSync();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private kick(): void {
    if (this.inFlight || this.fd === null || this.commits === this.syncedCommits) return;
    this.inFlight = true;
    const target = { commits: this.commits, seq: this.committedSeq };
    this.sync(this.fd, (error) => {
      this.inFlight = false;
      if (error) {
        this.fail(error);
        return;
      }
      this.settle(target);
      this.kick();
    });
  }

  private settle(target: { commits: number; seq: number }): void {
    this.syncedCommits = Math.max(this.syncedCommits, target.commits);
    this.syncedSeq = Math.max(this.syncedSeq, target.seq);
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) {
      if (w.commit <= this.syncedCommits) w.resolve();
      else this.waiters.push(w);
    }
  }

  private fail(error: unknown): void {
    this.failure = error;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(error);
  }
}
