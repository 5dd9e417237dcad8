// The API's handle on the relay worker thread (server/relay-worker.ts): starts it, wakes it
// after durable commits, mirrors the position it reports, and stops it (waiting until it
// has closed its connections).

import { Worker } from 'node:worker_threads';
import type { RelayControl } from '../adapters/bus/relay.ts';
import type { RelayWorkerData } from './relay-worker.ts';

export class RelayThread implements RelayControl {
  private worker: Worker | null = null;
  private positionSeq = 0;

  constructor(private readonly options: Omit<RelayWorkerData, 'entry'>) {}

  get position(): number {
    return this.positionSeq;
  }

  start(): void {
    if (this.worker) return;
    const data: RelayWorkerData = { ...this.options, entry: new URL('./relay-worker.ts', import.meta.url).href };
    const worker = new Worker(new URL('./worker-boot.mjs', import.meta.url), { workerData: data });
    worker.on('message', (m: { position?: number }) => { if (m.position !== undefined) this.positionSeq = m.position; });
    worker.on('error', (error) => { throw error; }); // a relay that cannot run must not fail silently
    worker.unref();
    this.worker = worker;
  }

  wake(): void {
    this.worker?.postMessage('wake');
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop');
    await exited;
  }
}
