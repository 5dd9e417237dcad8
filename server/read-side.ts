// The server's read side, assembled at start-up (DESIGN.md, Read side):
//
//   embedded (no SATANG_NATS_URL)  journal.db ─relay─▶ in-process bus ─▶ projections ─▶ projections.db
//                                  on a worker thread of this process; the API reads projections.db
//   SATANG_NATS_URL set            journal.db ─relay─▶ JetStream SATANG_JOURNAL ─▶ `satang projector`
//                                  (another process) ─▶ projections.db, which the API reads
//
// The relay runs in the writer's process, on a worker thread (server/read-side-worker.ts) —
// with the in-process bus and the projections in the embedded default — so that neither
// publishing nor applying takes the request thread's time, and the writer's fsyncs never
// hold up a publish. It is woken after each durable commit (wake(), which tells it the
// durable tail) and polls the journal's tail besides; it never publishes inside a request.
// caughtUp() lets a read wait, briefly, until a projection has applied everything the
// write side had committed when the request came in: it reads the projection's position
// in projections.db, whichever thread writes it.

import { assert } from '../core/assert.ts';
import type { NatsAuth } from '../adapters/bus/nats-settings.ts';
import type { RelayControl } from '../adapters/bus/relay.ts';
import { projectionSchemas } from '../projections/all.ts';
import { openProjectionsDb, type ProjectionsDb } from '../projections/db.ts';
import type { ReadSideLog } from '../projections/gate.ts';
import { readSideLimits } from '../core/limits.ts';
import type { ProjectionName } from '../projections/projection.ts';
import { ReadModels } from '../projections/read-models.ts';
import { inProcessRelay } from './in-process-relay.ts';
import { ReadSideThread } from './read-side-thread.ts';

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
  /** Stops the relay and the projections; resolves once every connection of the read side is closed. */
  close(): Promise<void>;
}

export interface ReadSideOptions {
  readonly dataDir: string;
  readonly natsUrl?: string;
  /** How the relay signs in to NATS (SATANG_NATS_USER, SATANG_NATS_PASSWORD_FILE, SATANG_NATS_CA_FILE). */
  readonly natsAuth?: NatsAuth;
  /** The write side's last durable journal seq: the relay publishes nothing later. */
  readonly tail: () => number;
  readonly log: ReadSideLog;
  /**
   * projections.db, when the caller opened it (openProjectionsDb) — the server does, before
   * journal.db, so that a file it cannot use refuses the start before the journal is migrated;
   * the read side closes it. Opened here when absent.
   */
  readonly projectionsDb?: ProjectionsDb;
  /**
   * Embedded only: run the relay, the in-process bus and the projections on the calling
   * thread rather than a worker thread, so that they move only when it yields (specs).
   */
  readonly onThisThread?: boolean;
}

/** Resolves once the read side runs (its worker thread has opened its files). */
export async function startReadSide(options: ReadSideOptions): Promise<ReadSide> {
  assert(!(options.natsUrl && options.onThisThread), 'onThisThread is for the embedded read side; with NATS the relay runs on a worker thread');
  const db = options.projectionsDb ?? openProjectionsDb(options.dataDir, projectionSchemas, options.log);
  const models = new ReadModels(db);
  let relay: RelayControl;
  let busConnected: () => boolean | null;
  let stopRelay: () => Promise<void>;
  try {
    if (options.onThisThread) {
      const embedded = inProcessRelay(options.dataDir, db, { tail: options.tail, log: options.log });
      embedded.relay.start();
      relay = embedded.relay;
      busConnected = () => null;
      stopRelay = () => embedded.close();
    } else {
      const thread = await ReadSideThread.start({ dataDir: options.dataDir, ...(options.natsUrl ? { natsUrl: options.natsUrl } : {}), ...(options.natsAuth ? { natsAuth: options.natsAuth } : {}) }, options.log, options.tail);
      relay = thread;
      busConnected = () => (options.natsUrl ? thread.connected : null);
      stopRelay = () => thread.close();
    }
  } catch (error) {
    db.close();
    throw error;
  }

  return {
    mode: options.natsUrl ? 'nats' : 'embedded',
    models, relay, busConnected,
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
      await stopRelay();
      db.close();
    },
  };
}
