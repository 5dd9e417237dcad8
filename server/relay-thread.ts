// The API's handle on the relay worker thread (server/relay-worker.ts): starts it, wakes it
// after durable commits, mirrors the position it reports, and stops it (waiting until it
// has closed its connections). A worker that dies is logged and started again after
// relayRetryMs: the journal is the truth, so a restarted relay only publishes again.

import { Worker } from 'node:worker_threads';
import type { RelayControl } from '../adapters/bus/relay.ts';
import type { ReadSideLog } from '../projections/gate.ts';
import { readSideLimits } from '../core/limits.ts';
import type { RelayWorkerData } from './relay-worker.ts';

export class RelayThread implements RelayControl {
  private worker: Worker | null = null;
  private positionSeq = 0;
  private stopping = false;
  private wakeQueued = false;
  /** Whether the worker last reported NATS JetStream as connected (readiness). */
  connected = false;

  /** `durableSeq`: the write side's durable tail, told to the worker so it publishes nothing later. */
  constructor(private readonly options: Omit<RelayWorkerData, 'entry' | 'durableSeq'>, private readonly log: ReadSideLog, private readonly durableSeq: () => number) {}

  get position(): number {
    return this.positionSeq;
  }

  start(): void {
    if (this.worker) return;
    this.stopping = false;
    const data: RelayWorkerData = { ...this.options, durableSeq: this.durableSeq(), entry: new URL('./relay-worker.ts', import.meta.url).href };
    const worker = new Worker(new URL('./worker-boot.mjs', import.meta.url), { workerData: data });
    worker.on('message', (m: { position?: number; connected?: boolean }) => {
      if (m.position !== undefined) this.positionSeq = m.position;
      if (m.connected !== undefined) this.connected = m.connected;
    });
    worker.on('error', (error) => this.log.error({ err: String(error) }, 'relay worker failed'));
    worker.on('exit', (code) => {
      if (this.worker !== worker || this.stopping) return;
      this.worker = null;
      this.connected = false;
      this.log.error({ code }, 'relay worker exited; starting it again');
      setTimeout(() => { if (!this.stopping) this.start(); }, readSideLimits.relayRetryMs).unref();
    });
    worker.unref();
    this.worker = worker;
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

  async stop(): Promise<void> {
    this.stopping = true;
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop');
    await exited;
  }
}
