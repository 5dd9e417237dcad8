// From one merchant event to its deliveries: one pending delivery per enabled endpoint of
// the event's merchant and mode that subscribes to its type (the five mandatory types
// always). When a mandatory event finds no enabled endpoint but the merchant has a
// disabled one — its only endpoint went down — the event is mailed to the technical
// contact instead (contract: Events). Invariant: runs inside the caller's transaction,
// so an event's deliveries exist exactly when the read position says it was handled.

import type { EmailOutbox } from './email.ts';
import { subscribes, type Endpoint, type EndpointStore } from './endpoints.ts';
import type { DeliveryStore } from './deliveries.ts';
import type { EventTable, ServiceEvents } from './events.ts';
import { mandatoryEventTypes } from './endpoints.ts';

export interface RoutedEvent {
  readonly id: string;
  readonly merchantId: string;
  readonly livemode: boolean;
  readonly type: string;
  readonly createdAt: number;
  readonly table: EventTable;
}

/** Thrown inside a fan-out transaction that may not defer its fsync: rolls it back, to be run again at synchronous=FULL. */
export class MustSyncNow extends Error {}

export class FanOut {
  /** Mails queued so far (by this object): a commit that queued one is made durable before it returns (dispatcher.ts). */
  mailed = 0;
  /**
   * True while the dispatcher runs a fan-out whose commit will not be fsynced: a mail
   * (a write that cannot be taken back) then stops it before anything is queued or logged,
   * and the fan-out runs again at FULL, where the mail is queued once, under one id.
   */
  deferringSync = false;

  constructor(
    private readonly endpoints: EndpointStore,
    private readonly deliveries: DeliveryStore,
    private readonly events: ServiceEvents,
    private readonly email: EmailOutbox,
  ) {}

  /**
   * Creates the event's deliveries, due at `now`; returns how many. `enabled`: the enabled
   * endpoints by merchant and mode already read in this transaction (a batch of events
   * reads each merchant's once); filled as they are read.
   */
  deliver(event: RoutedEvent, now: number, enabled?: Map<string, readonly Endpoint[]>): number {
    const targets = this.enabledEndpoints(event, enabled).filter((e) => subscribes(e, event.type));
    let created = 0;
    for (const endpoint of targets) {
      if (this.deliveries.insert({ endpointId: endpoint.id, event, dueAt: now }, now)) created++;
    }
    if (targets.length === 0 && mandatoryEventTypes.has(event.type)) this.mailIfOnlyEndpointDisabled(event, now);
    return created;
  }

  private enabledEndpoints(event: RoutedEvent, read: Map<string, readonly Endpoint[]> | undefined): readonly Endpoint[] {
    if (!read) return this.endpoints.enabled(event.merchantId, event.livemode);
    const key = `${event.merchantId}:${event.livemode ? 1 : 0}`;
    let endpoints = read.get(key);
    if (!endpoints) read.set(key, endpoints = this.endpoints.enabled(event.merchantId, event.livemode));
    return endpoints;
  }

  private mailIfOnlyEndpointDisabled(event: RoutedEvent, now: number): void {
    const all = this.endpoints.forMerchant(event.merchantId, event.livemode);
    if (all.some((e) => e.status === 'enabled')) return;
    // A merchant who never had an endpoint in the mode reads the events feed; one whose endpoints were all deleted hears by mail, as one whose endpoint is disabled.
    const deleted = all.length === 0;
    if (deleted && !this.endpoints.everHad(event.merchantId, event.livemode)) return;
    if (this.deferringSync) throw new MustSyncNow();
    const body = this.events.body(event.table, event.id) ?? '';
    this.mailed++;
    const mode = event.livemode ? 'live' : 'sandbox';
    const modeTh = event.livemode ? 'ใช้งานจริง' : 'ทดสอบ (sandbox)';
    // Thai first, then English: the merchants are Thai (the subject stays English, for filters).
    const [th, en] = deleted
      ? [`ปลายทาง webhook โหมด${modeTh}ของท่านถูกลบทั้งหมด จึงส่งเหตุการณ์นี้ทางอีเมล กรุณาลงทะเบียนปลายทางใหม่ผ่านฝ่ายสนับสนุน แล้วกระทบยอดด้วย GET /v1/pay/events`,
        `Your ${mode} webhook endpoints were deleted, so this event is sent by e-mail. Register an endpoint through support, then reconcile with GET /v1/pay/events.`]
      : [`ปลายทาง webhook โหมด${modeTh}ของท่านถูกปิดใช้งาน จึงส่งเหตุการณ์นี้ทางอีเมล กรุณาเปิดใช้งานปลายทางอีกครั้งผ่านฝ่ายสนับสนุน แล้วกระทบยอดด้วย GET /v1/pay/events`,
        `Your only ${mode} webhook endpoint is disabled, so this event is sent by e-mail. Re-enable the endpoint through support, then reconcile with GET /v1/pay/events.`];
    this.email.queue(event.merchantId, 'mandatory_event', `[satang] ${event.type} (${mode}): your webhook endpoint is ${deleted ? 'deleted' : 'disabled'}`, `${th}\n\n${en}\n\n${body}`, now);
  }
}
