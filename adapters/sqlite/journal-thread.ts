// The journal's writer thread, seen from the event loop: journal.db's group commits are
// written and made durable on a worker thread (journal-worker.ts) that owns a connection
// of its own, so that the event loop decides the next batch while one is being written
// and synced, and never spends its time inside SQLite's inserts, COMMIT or fsync.
//
//   const thread = JournalThread.start(dataDir, world.lastSeq);
//   thread.onAck = (ack) => …;          // a batch is written and on disk (in the order posted)
//   thread.post({ batch, epoch, items, nonces });
//   thread.stopSync();                  // writes what it holds, syncs, closes; acks delivered before it returns
//
// Invariants kept: acknowledgements come in the order batches were posted, and only once
// the batch is on disk; a thread that fails (an fdatasync error, a crash) reports onFatal
// once and acknowledges nothing more — nothing it held can be called durable, and the
// owner stops (as on a failed fdatasync, wal-sync.ts).

import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { startWorker } from '../worker-thread.ts';
import type { StreamKind } from '../../core/journal.ts';
import type { NonceRow, PendingCommit } from './writer.ts';
import type { Sealer, SharedSealer } from '../sealing.ts';

/** A group commit handed to the thread. */
export interface BatchMessage {
  readonly batch: number;
  /** The generation of the world the items were decided on (journal.ts). */
  readonly epoch: number;
  readonly items: readonly PendingCommit[];
  readonly nonces: readonly NonceRow[];
}

/** Why an item was not written, in a form that crosses threads. */
export interface WireError {
  readonly message: string;
  /** SQLite's code (SQLITE_FULL, SQLITE_IOERR_…) when the write itself failed. */
  readonly code?: string;
  /** Not tried: decided on a world an earlier failure made stale (the owner already rebuilds). */
  readonly refused?: boolean;
  readonly conflict?: { readonly stream: string; readonly streamKind: StreamKind; readonly reason: string };
  readonly keyInUse?: { readonly scope: string; readonly key: string };
}

export interface BatchAck {
  readonly batch: number;
  /** The journal's tail once the batch was written: every seq up to it is on disk. */
  readonly written: number;
  /** [index in the batch's items, why it was not written]. */
  readonly errors: readonly (readonly [number, WireError])[];
  /** Another writer appended to the journal before this batch (the world is stale). */
  readonly foreign: boolean;
  /** The whole transaction failed (a full disk, say): nothing of it was written, its riding nonces neither. */
  readonly failed?: WireError;
}

export type WorkerMessage = { readonly acks: readonly BatchAck[] } | { readonly fatal: string };

/** A page ceiling for the thread's connection (JournalThread.limitPages). */
export interface PageLimit { readonly maxPageCount: number }

export interface JournalWorkerData {
  readonly dataDir: string;
  /** The journal's tail as the event loop's world knows it. */
  readonly tail: number;
  readonly port: MessagePort;
  /** Int32 set to 1 (and notified) once the thread has closed journal.db on stop. */
  readonly stopped: SharedArrayBuffer;
  /** The master key's sealer, for the idempotency bodies the thread writes. */
  readonly sealer?: SharedSealer;
}

/** How long stopSync waits for the thread to write, sync and close. */
const stopWaitMs = 30_000;

export class JournalThread {
  onAck: (ack: BatchAck) => void = () => {};
  onFatal: (error: Error) => void = () => {};
  private failed = false;
  private stopping = false;

  /** `startTail`: the journal's tail when the thread started (all of it on disk). */
  private constructor(readonly startTail: number, private readonly worker: Worker, private readonly port: MessagePort, private readonly stopped: Int32Array) {
    port.on('message', (m: WorkerMessage) => this.receive(m));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => { if (!this.stopping) this.fail(new Error(`the journal writer thread exited (code ${code})`)); });
  }

  /** Starts the thread on journal.db in `dataDir` (which must exist), whose tail the world holds at `tail`. */
  static start(dataDir: string, tail: number, sealer?: Sealer): JournalThread {
    const { port1, port2 } = new MessageChannel();
    const stopped = new SharedArrayBuffer(4);
    const data: JournalWorkerData = { dataDir, tail, port: port2, stopped, ...(sealer ? { sealer: sealer.shareWithThread() } : {}) };
    const worker = startWorker(new URL('./journal-worker.ts', import.meta.url), { workerData: data, transferList: [port2] });
    return new JournalThread(tail, worker, port1, new Int32Array(stopped));
  }

  post(message: BatchMessage): void {
    this.port.postMessage(message);
  }

  /**
   * The most pages the thread's journal.db may grow to (SQLite's max_page_count, for its
   * connection): a disk that is full, as the specs of a failed write need one; 1073741823
   * lifts it. Applied in order with the batches posted before and after it.
   */
  limitPages(maxPageCount: number): void {
    this.port.postMessage({ maxPageCount } satisfies PageLimit);
  }

  /**
   * Stops the thread: it writes and syncs what it holds and closes journal.db; blocks this
   * thread until then (shutdown is synchronous, store.ts), and delivers the last acks.
   */
  stopSync(): void {
    if (this.stopping) return;
    this.stopping = true;
    if (!this.failed) {
      this.port.postMessage('stop');
      const outcome = Atomics.wait(this.stopped, 0, 0, stopWaitMs);
      for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) this.receive(m.message as WorkerMessage);
      if (outcome === 'timed-out') this.fail(new Error(`the journal writer thread did not stop within ${stopWaitMs} ms`));
    }
    this.port.close();
    void this.worker.terminate();
  }

  private receive(m: WorkerMessage): void {
    if ('fatal' in m) this.fail(new Error(m.fatal));
    else if (!this.failed) for (const ack of m.acks) this.onAck(ack);
  }

  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = true;
    this.onFatal(error);
  }
}
