// The in-process bus, the embedded default (no SATANG_NATS_URL): the relay publishes to
// it and every projection's subscription receives the entries in order, on a later turn
// of the event loop, never inside the request that committed them. It keeps JetStream's
// delivery semantics that the gate relies on: a handed-back (nak) delivery comes again
// with its delivery count increased, before anything not yet delivered, in nak order.
// It has no memory across restarts: the relay starts it from the lowest projection
// position, and each projection drops what it already has.

import type { RelayedEntry } from '../../projections/entry.ts';
import type { Delivery } from '../../projections/gate.ts';
import type { Subscription, Transport } from '../../projections/projector.ts';
import type { ProjectionName } from '../../projections/projection.ts';
import type { Publisher } from './relay.ts';

interface Pending {
  readonly entry: RelayedEntry;
  /** Deliveries so far. */
  readonly count: number;
}

class InProcessSubscription implements Subscription {
  private fresh: Pending[] = [];
  private redeliveries: Pending[] = [];
  private scheduled: NodeJS.Immediate | null = null;
  private stopped = false;

  constructor(private readonly deliver: (deliveries: readonly Delivery[]) => void, private readonly onStop: () => void) {}

  enqueue(entries: readonly RelayedEntry[]): void {
    if (this.stopped) return;
    for (const entry of entries) this.fresh.push({ entry, count: 0 });
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    this.onStop();
  }

  private schedule(): void {
    if (!this.scheduled && !this.stopped) this.scheduled = setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = null;
    const batch = [...this.redeliveries, ...this.fresh];
    this.redeliveries = [];
    this.fresh = [];
    if (batch.length === 0 || this.stopped) return;
    this.deliver(batch.map((p) => this.delivery(p)));
  }

  private delivery(p: Pending): Delivery {
    const deliveryCount = p.count + 1;
    return {
      entry: p.entry, deliveryCount,
      ack: () => {},
      nak: () => {
        if (this.stopped) return;
        this.redeliveries.push({ entry: p.entry, count: deliveryCount });
        this.schedule();
      },
    };
  }
}

export class InProcessBus implements Publisher, Transport {
  private readonly subscriptions = new Set<InProcessSubscription>();

  subscribe(_projection: ProjectionName, deliver: (deliveries: readonly Delivery[]) => void): Subscription {
    const subscription: InProcessSubscription = new InProcessSubscription(deliver, () => this.subscriptions.delete(subscription));
    this.subscriptions.add(subscription);
    return subscription;
  }

  /** Accepted once every subscription holds the entries (the in-process "acknowledgement"). */
  async publish(entries: readonly RelayedEntry[]): Promise<void> {
    for (const s of this.subscriptions) s.enqueue(entries);
  }
}
