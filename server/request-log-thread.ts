// The API's handle on the request log's worker thread (server/request-log-worker.ts). The
// audit middleware adds one entry per request — metadata and the bodies as texts, nothing
// computed from them — to a buffer here, handed over in batches: one postMessage every
// requestLogFlushIntervalMs, or at requestLogFlushRowsMax rows or requestLogFlushCharsMax
// characters of bodies. Redaction, truncation and the SQLite writes happen on the worker.
//
// Invariants kept:
// - A read (page) sees every request added before it: it hands over the buffer, waits for
//   the worker's acknowledgement that the batch is committed (at most
//   requestLogReadWaitMsMax), then reads on a connection of its own that cannot write.
// - close() hands over what is buffered and waits until the worker has written it and
//   closed logs.db: a clean shutdown loses no row.
// - The backlog (buffered + handed over, unwritten) is bounded by requestLogBacklogRowsMax
//   rows and requestLogBacklogCharsMax characters; a row past either is dropped, counted
//   and logged. Bodies cross to the worker in process memory only.
// - A worker that dies is logged and started again after requestLogWorkerRetryMs; the rows
//   it held, handed over but not committed, are lost (counted in the log line). That is
//   accepted: the request log is operational data, written synchronous=NORMAL already.

import type { Worker } from 'node:worker_threads';
import { startWorker } from '../adapters/worker-thread.ts';
import { backOfficeLimits } from '../core/limits.ts';
import { RequestLogReader, type RequestLogQuery, type RequestLogRecord, type RequestLogRow } from '../adapters/request-log.ts';

const {
  requestLogFlushIntervalMs: flushIntervalMs, requestLogFlushRowsMax: flushRowsMax, requestLogFlushCharsMax: flushCharsMax,
  requestLogBacklogRowsMax: backlogRowsMax, requestLogBacklogCharsMax: backlogCharsMax, requestLogWorkerRetryMs: retryMs, requestLogReadWaitMsMax: readWaitMsMax,
} = backOfficeLimits;

/** What the worker starts with. */
export interface RequestLogWorkerData {
  readonly dataDir: string;
}

/**
 * A body as handed to the worker: a string is what bodyForLog takes (the request's JSON
 * text, the answer's JSON text or plain string), redacted and cut on the worker; `{ kept }`
 * is already what the log keeps (a mark decided without reading the body, server/body-marks.ts);
 * null is no body.
 */
export type BodyHandoff = string | { readonly kept: string } | null;

export interface RequestLogEntry extends Omit<RequestLogRecord, 'requestBody' | 'responseBody'> {
  readonly requestBody: BodyHandoff;
  readonly responseBody: BodyHandoff;
}

/** One flush of the API's buffer; `now` is its wall clock when sent (the prune's reference). */
export interface RequestLogBatch {
  readonly seq: number;
  readonly now: number;
  readonly entries: readonly RequestLogEntry[];
}

/** Where the thread reports a dead worker and dropped rows (the server's pino logger); never given a body. */
export interface RequestLogThreadLog {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

const charsOf = (body: BodyHandoff) => (typeof body === 'string' ? body.length : 0);

export class RequestLogThread {
  private worker: Worker | null = null;
  private stopping = false;
  private readonly reader: RequestLogReader;
  private readonly timer: NodeJS.Timeout;
  private buffer: RequestLogEntry[] = [];
  private bufferChars = 0;
  /** Batches the current worker holds, not yet acknowledged, oldest first. */
  private readonly handedOver: { seq: number; rows: number; chars: number }[] = [];
  private handedOverRows = 0;
  private handedOverChars = 0;
  private sentSeq = 0;
  private writtenSeq = 0;
  /** Reads waiting for a batch to be written. */
  private readonly waiters: { seq: number; resolve: () => void }[] = [];
  /** Rows dropped because the backlog was full, since the last time that was logged. */
  private dropped = 0;

  /** `now`: the wall clock (the batches' prune reference). */
  constructor(private readonly dataDir: string, private readonly log: RequestLogThreadLog, private readonly now: () => number) {
    this.reader = new RequestLogReader(dataDir); // creates logs.db and its table before the worker opens it
    this.timer = setInterval(() => this.flush(), flushIntervalMs);
    this.timer.unref();
    this.start();
  }

  add(entry: RequestLogEntry): void {
    const chars = charsOf(entry.requestBody) + charsOf(entry.responseBody);
    if (this.buffer.length + this.handedOverRows >= backlogRowsMax || this.bufferChars + this.handedOverChars + chars > backlogCharsMax) {
      this.dropped += 1;
      return;
    }
    this.buffer.push(entry);
    this.bufferChars += chars;
    if (this.buffer.length >= flushRowsMax || this.bufferChars >= flushCharsMax) this.flush();
  }

  /** Hands the buffer to the worker as one batch. Without a worker (one is restarting) the rows wait for the next one. */
  flush(): void {
    if (this.buffer.length === 0 || !this.worker) return;
    this.handOver(this.worker);
  }

  private handOver(worker: Worker): void {
    const batch: RequestLogBatch = { seq: ++this.sentSeq, now: this.now(), entries: this.buffer };
    worker.postMessage(batch);
    this.handedOver.push({ seq: batch.seq, rows: this.buffer.length, chars: this.bufferChars });
    this.handedOverRows += this.buffer.length;
    this.handedOverChars += this.bufferChars;
    this.buffer = [];
    this.bufferChars = 0;
  }

  /** Newest first; sees every row added before the call (unless the worker died with it). */
  async page(q: RequestLogQuery): Promise<RequestLogRow[]> {
    this.flush();
    // Rows still buffered (no worker: one is restarting) go in the next batch the new worker gets.
    await this.written(this.buffer.length > 0 ? this.sentSeq + 1 : this.sentSeq);
    return this.reader.page(q);
  }

  /** Hands over what is buffered, waits until the worker has written it and closed logs.db, then closes the reader. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    if (!this.worker && this.buffer.length > 0) this.start(); // the restart was pending: the buffer still needs a writer
    this.flush();
    this.stopping = true;
    const worker = this.worker;
    this.worker = null;
    if (worker) {
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.ref(); // an unref'd worker would let the process end before it has written the last batch
      worker.postMessage('stop');
      await exited;
    }
    const rowsLost = this.forgetHandedOver(); // none, unless the worker died while stopping
    if (rowsLost > 0) this.log.error({ rows_lost: rowsLost }, 'request log worker exited before writing its last rows');
    this.reader.close();
  }

  private start(): void {
    const data: RequestLogWorkerData = { dataDir: this.dataDir };
    const worker = startWorker(new URL('./request-log-worker.ts', import.meta.url), { workerData: data });
    worker.on('message', (m: { written: number } | { redactedAgain: number }) => {
      if ('redactedAgain' in m) this.log.warn({ rows: m.redactedAgain }, 'request log: rows an older build kept were redacted again under this build\'s rules (logs.db vacuumed)');
      else this.onWritten(m.written);
    });
    worker.on('error', (error) => this.log.error({ err: String(error) }, 'request log worker failed'));
    worker.on('exit', (code) => {
      if (this.worker !== worker || this.stopping) return;
      this.worker = null;
      const rowsLost = this.forgetHandedOver();
      this.log.error({ code, rows_lost: rowsLost }, 'request log worker exited; starting it again');
      setTimeout(() => {
        if (!this.stopping) this.start();
      }, retryMs).unref();
    });
    worker.unref();
    this.worker = worker;
    // The first batch is what is buffered, or nothing: its acknowledgement also says the worker
    // has redacted again the rows an older build kept (server/request-log-worker.ts), so a read
    // waits for that too rather than show them as they were (at most as long as for any batch).
    this.handOver(worker);
  }

  private onWritten(seq: number): void {
    while (this.handedOver.length > 0 && this.handedOver[0]!.seq <= seq) {
      const batch = this.handedOver.shift()!;
      this.handedOverRows -= batch.rows;
      this.handedOverChars -= batch.chars;
    }
    this.writtenSeq = seq;
    this.wakeReaders();
    if (this.dropped > 0) {
      this.log.warn({ rows_dropped: this.dropped }, 'request log backlog was full; rows dropped');
      this.dropped = 0;
    }
  }

  /** The worker is gone: what it held will never be acknowledged. Answers how many rows that was. */
  private forgetHandedOver(): number {
    const rows = this.handedOverRows;
    this.handedOver.length = 0;
    this.handedOverRows = 0;
    this.handedOverChars = 0;
    this.writtenSeq = this.sentSeq;
    this.wakeReaders();
    return rows;
  }

  private wakeReaders(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const waiter = this.waiters[i]!;
      if (waiter.seq <= this.writtenSeq) {
        this.waiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }

  /** Resolves once batch `seq` is written, the worker holding it is gone, or requestLogReadWaitMsMax has passed. */
  private written(seq: number): Promise<void> {
    if (this.writtenSeq >= seq) return Promise.resolve();
    return new Promise((resolve) => {
      const timeout = setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i !== -1) this.waiters.splice(i, 1);
        resolve();
      }, readWaitMsMax);
      const waiter = { seq, resolve: () => { clearTimeout(timeout); resolve(); } };
      this.waiters.push(waiter);
    });
  }
}
