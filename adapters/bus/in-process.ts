// The in-process bus, the embedded default (no SATANG_NATS_URL): the relay publishes to
// it and every projection's subscription receives the entries in order, on a later turn
// of the event loop, never inside the request that committed them. It keeps JetStream's
// delivery semantics that the gate relies on: a handed-back (nak) delivery comes again
// with its delivery count increased, before anything not yet delivered, in nak order.
// It has no memory across restarts: the relay starts it from the lowest projection
// position, and each projection drops what it already has. A publish resolves once every
// subscription has been handed the entries (on a later turn), so the relay never runs ahead
// of the projections by more than one batch and a long catch-up yields to requests.

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
  private handedOver: (() => void)[] = [];
  private stopped = false;

  constructor(private readonly deliver: (deliveries: readonly Delivery[]) => void, private readonly onStop: () => void) {}

  /** Resolves once the entries have been handed to the subscriber. */
  enqueue(entries: readonly RelayedEntry[]): Promise<void> {
    if (this.stopped) return Promise.resolve();
    for (const entry of entries) this.fresh.push({ entry, count: 0 });
    this.schedule();
    return new Promise((resolve) => this.handedOver.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    this.release();
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
    try {
      if (batch.length > 0 && !this.stopped) this.deliver(batch.map((p) => this.delivery(p)));
    } finally {
      this.release();
    }
  }

  private release(): void {
    const waiting = this.handedOver;
    this.handedOver = [];
    for (const resolve of waiting) resolve();
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
    await Promise.all([...this.subscriptions].map((s) => s.enqueue(entries)));
  }
}
