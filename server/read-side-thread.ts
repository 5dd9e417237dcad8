// The API's handle on the read side's worker thread (server/read-side-worker.ts: the relay,
// and in the embedded default the in-process bus and the projections with it). It starts
// the worker and waits until it runs, wakes it after durable commits with the write side's
// durable tail, mirrors the relay position it reports, hands its log lines to the API's
// logger, stops and starts its relay (RelayControl; the worker and its projections go on),
// and closes it, waiting until it has closed its connections. A worker that dies is logged
// and started again after relayRetryMs: the journal is the truth, so a restarted worker
// only publishes and applies again what the projections drop as duplicates.

import type { Worker } from 'node:worker_threads';
import { startWorker } from '../adapters/worker-thread.ts';
import type { RelayControl } from '../adapters/bus/relay.ts';
import type { ReadSideLog } from '../projections/gate.ts';
import { readSideLimits } from '../core/limits.ts';
import type { PostedLine, ReadSideWorkerData } from './read-side-worker.ts';

type FromWorker = { position: number } | { connected: boolean } | { log: PostedLine } | { relayStopped: true };

export type ReadSideThreadOptions = Pick<ReadSideWorkerData, 'dataDir' | 'natsUrl' | 'natsAuth'>;

export class ReadSideThread implements RelayControl {
  private worker: Worker | null = null;
  private positionSeq = 0;
  /** Until the first worker runs: start()'s promise. From then on a worker that dies is started again. */
  private firstRun: { resolve(): void; reject(error: unknown): void } | null = null;
  private closing = false;
  private relayStarted = true;
  private wakeQueued = false;
  private relayStops: (() => void)[] = [];
  /** Whether the worker last reported NATS JetStream as connected (readiness). */
  connected = false;

  /** `durableSeq`: the write side's durable tail, told to the worker so it publishes nothing later. */
  private constructor(private readonly options: ReadSideThreadOptions, private readonly log: ReadSideLog, private readonly durableSeq: () => number) {}

  /** Starts the worker; resolves once it runs, rejects when it ends before (it cannot open its files). */
  static async start(options: ReadSideThreadOptions, log: ReadSideLog, durableSeq: () => number): Promise<ReadSideThread> {
    const thread = new ReadSideThread(options, log, durableSeq);
    const running = new Promise<void>((resolve, reject) => { thread.firstRun = { resolve, reject }; });
    thread.spawn();
    await running;
    return thread;
  }

  /** The relay's last acknowledged seq, as the worker last reported it. */
  get position(): number {
    return this.positionSeq;
  }

  /** The relay publishes again (after stop()). */
  start(): void {
    this.relayStarted = true;
    this.worker?.postMessage('start');
  }

  /** One message per burst: the commands of a group commit turn durable together. */
  wake(): void {
    if (this.wakeQueued || !this.worker) return;
    this.wakeQueued = true;
    queueMicrotask(() => {
      this.wakeQueued = false;
      this.worker?.postMessage({ wake: this.durableSeq() });
    });
  }

  /** Resolves once the relay has stopped publishing; the projections apply what they hold. */
  stop(): Promise<void> {
    this.relayStarted = false;
    const worker = this.worker;
    if (!worker) return Promise.resolve();
    worker.ref(); // until it answers: an unreferenced worker's answer does not keep this process waiting
    return new Promise((resolve) => {
      this.relayStops.push(resolve);
      worker.postMessage('stop');
    });
  }

  /** Ends the worker; resolves once it has stopped and closed its connections. */
  async close(): Promise<void> {
    this.closing = true;
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    worker.postMessage('close');
    await exited;
    this.relayStopped();
  }

  private spawn(): void {
    const data: ReadSideWorkerData = {
      ...this.options, durableSeq: this.durableSeq(), relayStopped: !this.relayStarted,
    };
    const worker = startWorker(new URL('./read-side-worker.ts', import.meta.url), { workerData: data });
    worker.unref();
    this.worker = worker;
    let failure: unknown = null;
    worker.on('message', (m: FromWorker) => {
      if ('position' in m) {
        this.positionSeq = m.position;
        this.firstRun?.resolve();
        this.firstRun = null;
      } else if ('connected' in m) this.connected = m.connected;
      else if ('log' in m) this.log[m.log.level](m.log.fields, m.log.message);
      else this.relayStopped();
    });
    worker.on('error', (error) => {
      failure = error;
      this.log.error({ err: String(error) }, 'read side worker failed');
    });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.connected = false;
      this.relayStopped();
      if (this.firstRun) {
        this.firstRun.reject(failure ?? new Error(`the read side worker ended (exit code ${code}) before it ran`));
        this.firstRun = null;
        return;
      }
      if (this.closing) return;
      this.log.error({ code }, 'read side worker exited; starting it again');
      setTimeout(() => { if (!this.closing && !this.worker) this.spawn(); }, readSideLimits.relayRetryMs).unref();
    });
  }

  private relayStopped(): void {
    const waiting = this.relayStops;
    this.relayStops = [];
    if (waiting.length > 0 && !this.closing) this.worker?.unref();
    for (const resolve of waiting) resolve();
  }
}
