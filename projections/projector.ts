// Runs every projection on a bus: one subscription (a JetStream durable consumer, or an
// in-process subscription) and one gate per projection, each moving at its own pace.
// The same code runs inside the server (embedded default, on the read side's worker
// thread) and in `scripts/satang projector` (against NATS).

import { projections as allProjections } from './all.ts';
import { Applier } from './applier.ts';
import type { ProjectionsDb } from './db.ts';
import { Gate, type Delivery, type EntrySource, type ReadSideLog } from './gate.ts';
import type { Projection, ProjectionName } from './projection.ts';

export interface Subscription {
  stop(): Promise<void>;
}

/**
 * A bus as the projector sees it: a subscription per projection, deliveries in order. A bus
 * with memory (a durable consumer) delivers every entry after `fromSeq`, the projection's
 * position as it subscribes, whatever an earlier subscriber acknowledged or let run out of deliveries.
 */
export interface Transport {
  subscribe(projection: ProjectionName, deliver: (deliveries: readonly Delivery[]) => void, fromSeq?: number): Subscription;
}

export class Projector {
  readonly appliers: readonly Applier[];
  private readonly gates: Gate[] = [];
  private subscriptions: Subscription[] = [];

  constructor(db: ProjectionsDb, private readonly source: EntrySource, private readonly log: ReadSideLog, projections: readonly Projection[] = allProjections) {
    this.appliers = projections.map((p) => new Applier(db, p));
  }

  /** The lowest position of all projections: where a bus without memory must start. */
  lowestPosition(): number {
    return Math.min(...this.appliers.map((a) => a.position()));
  }

  start(transport: Transport): void {
    for (const applier of this.appliers) {
      const gate = new Gate(applier, { source: this.source, log: this.log });
      this.gates.push(gate);
      this.subscriptions.push(transport.subscribe(applier.name, (deliveries) => gate.receive(deliveries), applier.position()));
    }
  }

  async stop(): Promise<void> {
    for (const gate of this.gates) gate.stop();
    const subscriptions = this.subscriptions;
    this.subscriptions = [];
    await Promise.all(subscriptions.map((s) => s.stop()));
  }
}
