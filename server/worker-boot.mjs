// Starts a worker thread on a TypeScript module: registers tsx in the worker (workers do
// not inherit the parent's loader hooks), then imports workerData.entry.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
