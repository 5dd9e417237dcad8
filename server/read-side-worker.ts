// The read side's writing half on a worker thread of the API process, so that none of it
// takes the request thread's time:
//   embedded default   the relay, the in-process bus and the projections (server/in-process-relay.ts);
//   SATANG_NATS_URL    the relay to NATS JetStream (the projections run in `satang projector`),
//                      publishing while the writer decides and writes.
// It reads journal.db on read-only connections of its own, writes projections.db on its own
// connection (the API reads it on another), looks at the journal's tail every relayPollMs
// and is woken by the writer after each durable commit. It publishes no entry past the
// durable tail the writer tells it: a group commit is visible in the WAL before its
// fdatasync ends (adapters/sqlite/wal-sync.ts). Its log lines go to the API's logger.
//
// Messages: parent → worker { wake: durableSeq } | 'stop' | 'start' (the relay) | 'close';
// worker → parent { position } (the first says it runs) | { connected } | { log } | { relayStopped }.

import { parentPort, workerData } from 'node:worker_threads';
import { setThisThreadNice } from '../adapters/thread-priority.ts';
import { JournalReader } from '../adapters/bus/journal-reader.ts';
import { JetStreamPublisher } from '../adapters/bus/nats.ts';
import type { NatsAuth } from '../adapters/bus/nats-settings.ts';
import { Relay } from '../adapters/bus/relay.ts';
import { projectionSchemas } from '../projections/all.ts';
import { openProjectionsDb, RelayPositions, type ProjectionsDb } from '../projections/db.ts';
import type { ReadSideLog } from '../projections/gate.ts';
import { observabilityLimits, writeSideLimits } from '../core/limits.ts';
import { inProcessRelay, type BusRelay } from './in-process-relay.ts';

export interface ReadSideWorkerData {
  readonly dataDir: string;
  /** The bus: NATS JetStream at this URL; absent, the in-process bus with the projections. */
  readonly natsUrl?: string;
  /** How the relay signs in to NATS (paths, not the password). */
  readonly natsAuth?: NatsAuth;
  /** The writer's durable tail when the worker starts. */
  readonly durableSeq: number;
  /** The relay was stopped (RelayControl.stop) before this worker started: it waits for 'start'. */
  readonly relayStopped: boolean;
}

/** A log line posted to the API's logger. */
export interface PostedLine {
  readonly level: keyof ReadSideLog;
  readonly fields: object;
  readonly message: string;
}

const port = parentPort!;
const options = workerData as ReadSideWorkerData;
setThisThreadNice(writeSideLimits.backgroundThreadNice); // background work: the request path first
const at = (level: keyof ReadSideLog) => (fields: object, message: string) => port.postMessage({ log: { level, fields, message } satisfies PostedLine });
const log: ReadSideLog = { info: at('info'), warn: at('warn'), error: at('error') };
let durableSeq = options.durableSeq;
const relayOptions = { tail: () => durableSeq, log, onPosition: (seq: number) => port.postMessage({ position: seq }) };
const db = openProjectionsDb(options.dataDir, projectionSchemas, log);
const bus = options.natsUrl === undefined ? inProcessRelay(options.dataDir, db, relayOptions) : natsRelay(options.natsUrl, db);
let relayStarted = !options.relayStopped;
port.postMessage({ position: bus.relay.position });
if (relayStarted) bus.relay.start();

port.on('message', (message: unknown) => {
  if (typeof message === 'object' && message !== null && 'wake' in message) {
    durableSeq = Math.max(durableSeq, (message as { wake: number }).wake);
    bus.relay.wake();
  } else if (message === 'start' && !relayStarted) {
    relayStarted = true;
    bus.relay.start();
  } else if (message === 'stop') {
    relayStarted = false;
    void bus.relay.stop().then(() => port.postMessage({ relayStopped: true }));
  } else if (message === 'close') void close();
});

/** The relay to NATS; readiness (GET /readyz) learns within busStatusReportMs whether it is connected. */
function natsRelay(url: string, db: ProjectionsDb): BusRelay {
  const reader = new JournalReader(options.dataDir);
  const publisher = new JetStreamPublisher(url, log, (lastInStream) => {
    if (lastInStream !== null) relay.rewindTo(lastInStream);
    relay.wake();
  }, (entry) => reader.holds(entry), options.natsAuth);
  const relay: Relay = new Relay(reader, publisher, new RelayPositions(db), { ...relayOptions, bus: 'nats' });
  publisher.start();
  let reportedConnected: boolean | null = null;
  const report = setInterval(() => {
    if (publisher.ready !== reportedConnected) port.postMessage({ connected: (reportedConnected = publisher.ready) });
  }, observabilityLimits.busStatusReportMs);
  report.unref();
  return {
    relay,
    async close() {
      clearInterval(report);
      await relay.stop();
      await publisher.close();
      reader.close();
    },
  };
}

async function close(): Promise<void> {
  await bus.close();
  db.close();
  process.exit(0); // ends this worker thread only
}
