// The server's read side, assembled at start-up (DESIGN.md, Read side):
//
//   embedded (no SATANG_NATS_URL)  journal.db ─relay─▶ in-process bus ─▶ projections ─▶ projections.db
//                                  all in this process; the API reads projections.db
//   SATANG_NATS_URL set            journal.db ─relay─▶ JetStream SATANG_JOURNAL ─▶ `satang projector`
//                                  (another process) ─▶ projections.db, which the API reads
//
// The relay runs where the writer runs: it is woken after each durable commit (wake())
// and polls the world's last seq besides, and never publishes inside a request.
// caughtUp() lets a read wait, briefly, until a projection has applied everything the
// write side had committed when the request came in.

import { JournalReader } from '../adapters/bus/journal-reader.ts';
import { InProcessBus } from '../adapters/bus/in-process.ts';
import { JetStreamPublisher } from '../adapters/bus/nats.ts';
import { Relay } from '../adapters/bus/relay.ts';
import { projectionSchemas } from '../projections/all.ts';
import { openProjectionsDb, RelayPositions } from '../projections/db.ts';
import type { ReadSideLog } from '../projections/gate.ts';
import { readSideLimits } from '../projections/limits.ts';
import type { ProjectionName } from '../projections/projection.ts';
import { Projector } from '../projections/projector.ts';
import { ReadModels } from '../projections/read-models.ts';

export interface ReadSide {
  readonly mode: 'embedded' | 'nats';
  readonly models: ReadModels;
  readonly relay: Relay;
  /** A commit is durable: the relay has something to publish. */
  wake(): void;
  /** Resolves true once `projection` has applied every entry up to `seq`; false after `timeoutMs`. */
  caughtUp(projection: ProjectionName, seq: number, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface ReadSideOptions {
  readonly dataDir: string;
  readonly natsUrl?: string;
  /** The write side's last durable journal seq. */
  readonly tail: () => number;
  readonly log: ReadSideLog;
}

export function startReadSide(options: ReadSideOptions): ReadSide {
  const db = openProjectionsDb(options.dataDir, projectionSchemas);
  const models = new ReadModels(db);
  const relayReader = new JournalReader(options.dataDir);
  const positions = new RelayPositions(db);
  let relay: Relay;
  let stopBus: () => Promise<void>;

  if (options.natsUrl) {
    const publisher = new JetStreamPublisher(options.natsUrl, options.log, (lastInStream) => {
      if (lastInStream !== null) relay.rewindTo(lastInStream);
      relay.wake();
    });
    relay = new Relay(relayReader, publisher, positions, { bus: 'nats', tail: options.tail, log: options.log });
    publisher.start();
    stopBus = () => publisher.close();
  } else {
    const fillReader = new JournalReader(options.dataDir);
    const bus = new InProcessBus();
    const projector = new Projector(db, fillReader, options.log);
    projector.start(bus);
    relay = new Relay(relayReader, bus, positions, { bus: 'inprocess', tail: options.tail, log: options.log, startAtMost: projector.lowestPosition() });
    stopBus = async () => { await projector.stop(); fillReader.close(); };
  }
  relay.start();

  return {
    mode: options.natsUrl ? 'nats' : 'embedded',
    models, relay,
    wake: () => relay.wake(),
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
      relayReader.close();
      db.close();
    },
  };
}
