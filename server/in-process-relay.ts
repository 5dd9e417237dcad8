// The embedded default's read side, built the same way on whichever thread runs it (a
// worker thread of the API, server/read-side-worker.ts, or the caller's own):
//
//   journal.db ─relay─▶ in-process bus ─▶ projections ─▶ projections.db
//
// Two read-only journal connections: the relay's, and the one the projections fill gaps
// from. The bus has no memory, so the relay starts at most at the lowest projection
// position and each projection drops what it already has.

import { JournalReader } from '../adapters/bus/journal-reader.ts';
import { InProcessBus } from '../adapters/bus/in-process.ts';
import { Relay } from '../adapters/bus/relay.ts';
import { RelayPositions, type ProjectionsDb } from '../projections/db.ts';
import type { ReadSideLog } from '../projections/gate.ts';
import { Projector } from '../projections/projector.ts';

/** A relay with its bus (here the in-process one; on NATS, server/read-side-worker.ts). */
export interface BusRelay {
  readonly relay: Relay;
  /** Stops the relay, then the projections, and closes the journal connections (not `db`). */
  close(): Promise<void>;
}

/** `tail`: the write side's durable tail, which the relay never publishes past. Nothing runs until `relay.start()`. */
export function inProcessRelay(dataDir: string, db: ProjectionsDb, options: { tail: () => number; log: ReadSideLog; onPosition?: (seq: number) => void }): BusRelay {
  const relayReader = new JournalReader(dataDir);
  const fillReader = new JournalReader(dataDir);
  const bus = new InProcessBus();
  const projector = new Projector(db, fillReader, options.log);
  projector.start(bus);
  const relay = new Relay(relayReader, bus, new RelayPositions(db), { ...options, bus: 'inprocess', startAtMost: projector.lowestPosition() });
  return {
    relay,
    async close() {
      await relay.stop();
      await projector.stop();
      fillReader.close();
      relayReader.close();
    },
  };
}
