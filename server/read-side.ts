// The server's read side, assembled at start-up (DESIGN.md, Read side):
//
//   embedded (no SATANG_NATS_URL)  journal.db ─relay─▶ in-process bus ─▶ projections ─▶ projections.db
//                                  all in this process; the API reads projections.db
//   SATANG_NATS_URL set            journal.db ─relay─▶ JetStream SATANG_JOURNAL ─▶ `satang projector`
//                                  (another process) ─▶ projections.db, which the API reads
//
// The relay runs in the writer's process — on the writer's thread in the embedded default,
// on a worker thread of its own with NATS (so that the writer's fsyncs never hold up a
// publish) — and is woken after each durable commit (wake()) and polls the journal's tail
// besides; it never publishes inside a request.
// caughtUp() lets a read wait, briefly, until a projection has applied everything the
// write side had committed when the request came in.

import { JournalReader } from '../adapters/bus/journal-reader.ts';
import { InProcessBus } from '../adapters/bus/in-process.ts';
import { Relay, type RelayControl } from '../adapters/bus/relay.ts';
import { projectionSchemas } from '../projections/all.ts';
import { openProjectionsDb, RelayPositions } from '../projections/db.ts';
import type { ReadSideLog } from '../projections/gate.ts';
import { readSideLimits } from '../core/limits.ts';
import type { ProjectionName } from '../projections/projection.ts';
import { Projector } from '../projections/projector.ts';
import { ReadModels } from '../projections/read-models.ts';
import { RelayThread } from './relay-thread.ts';

export interface ReadSide {
  readonly mode: 'embedded' | 'nats';
  readonly models: ReadModels;
  readonly relay: RelayControl;
  /** A commit is durable: the relay has something to publish. */
  wake(): void;
  /** NATS mode: whether the relay is connected to JetStream; null in the embedded mode (readiness). */
  busConnected(): boolean | null;
  /** Resolves true once `projection` has applied every entry up to `seq`; false after `timeoutMs`. */
  caughtUp(projection: ProjectionName, seq: number, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface ReadSideOptions {
  readonly dataDir: string;
  readonly natsUrl?: string;
  /** The write side's last durable journal seq: the relay (embedded, or the NATS relay's worker) publishes nothing later. */
  readonly tail: () => number;
  readonly log: ReadSideLog;
  /** The relay worker thread's log level (NATS mode). */
  readonly logLevel?: string;
}

export function startReadSide(options: ReadSideOptions): ReadSide {
  const db = openProjectionsDb(options.dataDir, projectionSchemas);
  const models = new ReadModels(db);
  let relay: RelayControl;
  let stopBus: () => Promise<void>;

  if (options.natsUrl) {
    // The relay runs on a worker thread of its own (server/relay-worker.ts); the projections
    // run in `scripts/satang projector`.
    relay = new RelayThread({ dataDir: options.dataDir, natsUrl: options.natsUrl, logLevel: options.logLevel ?? 'info' }, options.log, options.tail);
    stopBus = async () => {};
  } else {
    const relayReader = new JournalReader(options.dataDir);
    const fillReader = new JournalReader(options.dataDir);
    const bus = new InProcessBus();
    const projector = new Projector(db, fillReader, options.log);
    projector.start(bus);
    relay = new Relay(relayReader, bus, new RelayPositions(db), { bus: 'inprocess', tail: options.tail, log: options.log, startAtMost: projector.lowestPosition() });
    stopBus = async () => { await projector.stop(); fillReader.close(); relayReader.close(); };
  }
  relay.start();

  return {
    mode: options.natsUrl ? 'nats' : 'embedded',
    models, relay,
    wake: () => relay.wake(),
    busConnected: () => (relay instanceof RelayThread ? relay.connected : null),
    async caughtUp(projection, seq, timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        if (models.position(projection) >= seq) return true;
        if (performance.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, readSideLimits.freshnessPollMs));
      }
    },
    async close() {
      await relay.stop();
      await stopBus();
      db.close();
    },
  };
}
