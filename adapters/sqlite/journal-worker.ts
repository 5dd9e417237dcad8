// The journal's writer thread (journal-thread.ts starts it): owns journal.db's group
// commits. Every batch that arrived while it was busy goes into ONE transaction (each
// command in its SAVEPOINT, writer.ts), committed without SQLite's fsync and made durable
// by wal-sync.ts's fdatasync off this thread's loop, so the next transaction is written
// while one syncs; a batch is acknowledged once it is on disk.
// Invariants kept: a commit that fails makes the event loop's world stale (it applied the
// commit already), so every later item of the same world's epoch is refused, never
// written on state that does not exist; the event loop rebuilds and starts a new epoch.
// Another writer's entries found at the tail make the world stale the same way. A
// transaction that fails as a whole is acknowledged as `failed` (its nonces ride again); one
// of nonces alone leaves the world's epoch as it was.

import { workerData } from 'node:worker_threads';
import { UlidIds } from '../ids.ts';
import { Sealer } from '../sealing.ts';
import { IdempotencyKeyInUse, RefusedAfterFailure, StateConflict } from './errors.ts';
import type { BatchAck, BatchMessage, JournalWorkerData, PageLimit, WireError, WorkerMessage } from './journal-thread.ts';
import { openDatabase } from './schema.ts';
import { WalSync } from './wal-sync.ts';
import { BatchWriter, type PendingCommit } from './writer.ts';
import type { StreamKind } from '../../core/journal.ts';

const data = workerData as JournalWorkerData;
const port = data.port;
const db = openDatabase(data.dataDir, { mustExist: true });
// Every commit here is followed by walSync's fdatasync before anyone is told (wal-sync.ts).
db.pragma('synchronous = NORMAL');
const writer = new BatchWriter(db, new UlidIds(), data.sealer ? new Sealer(data.sealer) : undefined);
const walSync = WalSync.open(db, data.tail);
let expectedSeq = data.tail;
/** Items of this epoch or an earlier one are refused: their world is stale. */
let staleEpoch = -1;
let queue: BatchMessage[] = [];
let scheduled = false;

port.on('message', (m: BatchMessage | 'stop' | PageLimit) => {
  if (m === 'stop') {
    void stop();
    return;
  }
  if ('maxPageCount' in m) {
    db.pragma(`max_page_count = ${Math.trunc(m.maxPageCount)}`);
    return;
  }
  queue.push(m);
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
});

function flush(): void {
  scheduled = false;
  const batches = queue;
  queue = [];
  if (batches.length === 0) return;
  const items = batches.flatMap((b) => b.items);
  const epochs = batches.flatMap((b) => b.items.map(() => b.epoch));
  const newest = Math.max(...batches.map((b) => b.epoch));
  let errors: Map<number, unknown>;
  let foreign = false;
  let failed: WireError | undefined;
  try {
    const result = writer.write(items, batches.flatMap((b) => b.nonces),
      (i) => (epochs[i]! <= staleEpoch ? refused(items[i]!) : undefined),
      (i) => { staleEpoch = Math.max(staleEpoch, epochs[i]!); });
    errors = result.errors;
    foreign = result.found.seq !== expectedSeq;
    if (foreign) staleEpoch = Math.max(staleEpoch, newest);
    expectedSeq = result.written.seq;
  } catch (error) {
    errors = new Map(items.map((_, i) => [i, error])); // nothing of it was written
    failed = wire(error);
    // The event loop applied these commands to its world: that world is stale now. A
    // transaction of nonces alone applied nothing there, and must not strand the world's
    // epoch (every later command would be refused, with nobody told to rebuild).
    if (items.length > 0) staleEpoch = Math.max(staleEpoch, newest);
  }
  const acks: BatchAck[] = [];
  let offset = 0;
  for (const b of batches) {
    const mine: [number, WireError][] = [];
    for (let i = 0; i < b.items.length; i++) if (errors.has(offset + i)) mine.push([i, wire(errors.get(offset + i))]);
    acks.push({ batch: b.batch, written: expectedSeq, errors: mine, foreign: foreign && acks.length === 0, ...(failed ? { failed } : {}) });
    offset += b.items.length;
  }
  const message: WorkerMessage = { acks };
  walSync.after(expectedSeq).then(() => port.postMessage(message), (error: unknown) => port.postMessage({ fatal: `journal WAL fdatasync failed: ${String(error)}` }));
}

function refused(item: PendingCommit): RefusedAfterFailure {
  // A commit of timer changes only names no stream; its caller (the scheduler) retries a refused timer anyway.
  const [stream, kind] = item.entries[0]?.values ?? ['', 'deposit'];
  return new RefusedAfterFailure(stream, kind as StreamKind, 'an earlier command decided on the same state failed; the state is being rebuilt from the journal');
}

function wire(error: unknown): WireError {
  if (error instanceof StateConflict) {
    const conflict = { stream: error.stream, streamKind: error.streamKind, reason: error.message.slice(error.code.length + 2) };
    return { message: error.message, conflict, ...(error instanceof RefusedAfterFailure ? { refused: true } : {}) };
  }
  if (error instanceof IdempotencyKeyInUse) return { message: error.message, keyInUse: { scope: error.scope, key: error.key } };
  const code = (error as { code?: unknown } | null)?.code;
  return { message: error instanceof Error ? error.message : String(error), ...(typeof code === 'string' ? { code } : {}) };
}

async function stop(): Promise<void> {
  flush();
  walSync.close(); // syncs: every waiter resolves
  await new Promise((resolve) => setImmediate(resolve)); // their acks are posted
  db.close();
  port.close();
  const stopped = new Int32Array(data.stopped);
  Atomics.store(stopped, 0, 1);
  Atomics.notify(stopped, 0);
}
