// The relay to NATS JetStream on a worker thread of the API process (SATANG_NATS_URL set).
// On a thread of its own the relay publishes while the writer decides and writes, so the
// journal → read-model lag does not wait for the writer's thread. It reads journal.db on
// its own read-only connection, keeps its position in projections.db, looks at the
// journal's tail every relayPollMs and is woken by the writer after each durable commit.
// It publishes no entry past the durable tail the writer tells it: a group commit is
// visible in the WAL before its fdatasync ends (adapters/sqlite/wal-sync.ts).
//
// Messages: parent → worker { wake: durableSeq } | 'stop'; worker → parent { position } | { connected } | { stopped }.

import { parentPort, workerData } from 'node:worker_threads';
import { JournalReader } from '../adapters/bus/journal-reader.ts';
import { JetStreamPublisher } from '../adapters/bus/nats.ts';
import { Relay } from '../adapters/bus/relay.ts';
import { projectionSchemas } from '../projections/all.ts';
import { openProjectionsDb, RelayPositions } from '../projections/db.ts';
import { createLogger } from './log.ts';
import { observabilityLimits } from '../core/limits.ts';

export interface RelayWorkerData {
  readonly entry: string;
  readonly dataDir: string;
  readonly natsUrl: string;
  readonly logLevel: string;
  /** The writer's durable tail when the worker starts. */
  readonly durableSeq: number;
}

const port = parentPort!;
const options = workerData as RelayWorkerData;
const log = createLogger({ level: options.logLevel });
const reader = new JournalReader(options.dataDir);
let durableSeq = options.durableSeq;
const db = openProjectionsDb(options.dataDir, projectionSchemas);
const publisher = new JetStreamPublisher(options.natsUrl, log, (lastInStream) => {
  if (lastInStream !== null) relay.rewindTo(lastInStream);
  relay.wake();
});
const relay: Relay = new Relay(reader, publisher, new RelayPositions(db), {
  bus: 'nats', tail: () => Math.min(reader.tail(), durableSeq), log, onPosition: (seq) => port.postMessage({ position: seq }),
});
port.postMessage({ position: relay.position });
publisher.start();
// Readiness (GET /readyz) needs to know whether NATS is connected; a change is reported within busStatusReportMs.
let reportedConnected: boolean | null = null;
setInterval(() => {
  if (publisher.ready !== reportedConnected) port.postMessage({ connected: (reportedConnected = publisher.ready) });
}, observabilityLimits.busStatusReportMs).unref();
relay.start();

port.on('message', (message: unknown) => {
  if (typeof message === 'object' && message !== null && 'wake' in message) {
    durableSeq = Math.max(durableSeq, (message as { wake: number }).wake);
    relay.wake();
  }
  if (message === 'stop') void stop();
});

async function stop(): Promise<void> {
  await relay.stop();
  await publisher.close();
  reader.close();
  db.close();
  port.postMessage({ stopped: true });
  process.exit(0); // ends this worker thread only
}
