// What operators (and onboarding) do to webhooks: create, disable and re-enable
// endpoints, resend one delivery, replay many events, rotate the signing key. Each
// method runs inside a transaction the caller opens with transact() — together with
// the idempotency record of the request (keepIdempotency) — and wakes the dispatcher
// once it has committed. Refusals are values naming the contract's error codes; the
// HTTP layer maps them. Invariants: a resend or replay sends the stored bytes of the
// event under its own id, as a new delivery (new whd_ id, attempt 1, a fresh set of 11
// attempts); nothing is resent more than 30 days after the event was created.

import { reject, type Rejection } from '../../core/errors.ts';
import type { Clock, IdempotencyRecord, Ids } from '../../core/ports.ts';
import { iso } from '../../core/present.ts';
import type { Db } from '../sqlite/schema.ts';
import type { Sealer } from '../sealing.ts';
import { idempotencyRow, insertIdempotencySql } from '../sqlite/keys.ts';
import type { Delivery, DeliveryStore } from './deliveries.ts';
import type { Directory } from './email.ts';
import { isCliEndpoint, subscribes, type Endpoint, type EndpointStore } from './endpoints.ts';
import type { EventTable, ServiceEvents } from './events.ts';
import type { FanOut } from './fan-out.ts';
import { webhookLimits } from '../../core/limits.ts';
import { mandatoryEventTypes } from './endpoints.ts';
import type { KeyRecord, SigningKeyRing } from './signing-keys.ts';
import { publishedKey } from './signing.ts';

export type Result<T> = { ok: true; value: T } | { ok: false; rejection: Rejection };
const ok = <T>(value: T): Result<T> => ({ ok: true, value });
const refuse = <T>(rejection: Rejection): Result<T> => ({ ok: false, rejection });

/** Why a live signing key's withdrawal is refused (SigningKeyRing.withdrawalRefusal). */
function keyWithdrawalRefusal(kid: string, why: 'unknown' | 'signing' | 'already'): Rejection {
  switch (why) {
    case 'unknown': return reject('resource_not_found', `No live signing key ${kid}.`);
    case 'already': return reject('operation_not_allowed', `The key ${kid} is already withdrawn.`);
    case 'signing': return reject('operation_not_allowed', `The key ${kid} signs now or is announced to: rotate (POST /v1/bo/webhooks/signing-keys/rotate), then withdraw it once the next key signs.`);
  }
}

export interface OperationParts {
  readonly db: Db;
  readonly clock: Clock;
  readonly ids: Ids;
  readonly endpoints: EndpointStore;
  readonly deliveries: DeliveryStore;
  readonly events: ServiceEvents;
  readonly fanOut: FanOut;
  readonly keys: SigningKeyRing;
  readonly sandboxKeys: SigningKeyRing;
  readonly directory: Directory;
  /** Every merchant's id (WebhookDeps.merchants); absent: those with an endpoint. */
  readonly merchants?: () => Iterable<string>;
  readonly wake: () => void;
  /** Seals the idempotency bodies kept here (adapters/sqlite/keys.ts). */
  readonly sealer: Sealer;
}

export interface ReplayFilter {
  readonly eventTypes: readonly string[];
  readonly createdAfter: number;
  readonly createdBefore: number;
  readonly onlyFailed: boolean;
}

export interface ReplayResult {
  readonly id: string;
  readonly eventCount: number;
  readonly hasMore: boolean;
  /** Where the next replay command should start when hasMore. */
  readonly nextCreatedAfter: number | null;
  readonly firstReleaseAt: number | null;
  readonly lastReleaseAt: number | null;
}

type EventRow = [string, string, number];

export class WebhookOperations {
  private readonly storeIdempotency;
  private readonly replayEvents: Record<EventTable, ReturnType<Db['prepare']>>;
  private readonly insertReplay;

  constructor(private readonly p: OperationParts) {
    this.storeIdempotency = p.db.prepare(insertIdempotencySql);
    // Events of a merchant and mode in a time range, of allowed types (NULL = all), optionally
    // only those the endpoint never received: made since it exists, never delivered to it and
    // not on their way — a delivery failed, canceled (the endpoint was disabled, by hand or
    // after a day down) or never made (events while it was disabled). "Since it exists" is by
    // the service clock, and at the endpoint's very instant (a manual clock standing still, or
    // one millisecond) by the ids, whose ULID time is the wall clock's: an event made before the
    // endpoint at that instant was never its to receive.
    const eventsOf = (table: string) => p.db.prepare(`SELECT e.id, e.type, e.created_at FROM ${table} e
      WHERE e.merchant_id = :merchant AND e.livemode = :livemode AND e.created_at >= :after AND e.created_at < :before
        AND (:types IS NULL OR e.type IN (SELECT value FROM json_each(:types)))
        AND (:onlyFailed = 0 OR ((e.created_at > :endpointCreated
            OR (e.created_at = :endpointCreated AND substr(e.id, instr(e.id, '_') + 1) > :endpointUlid))
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = :endpoint AND d.event_id = e.id AND d.status IN ('delivered', 'pending'))))
      ORDER BY e.created_at, e.id LIMIT :limit`).raw(true);
    this.replayEvents = { outbox: eventsOf('outbox'), service: eventsOf('webhook_events') };
    this.insertReplay = p.db.prepare('INSERT INTO webhook_replays (id, endpoint_id, operator, filter, event_count, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  }

  /** Runs fn in one transaction, then wakes the dispatcher. */
  transact<T>(fn: () => T): T {
    let result: T;
    try {
      result = this.p.db.transaction(fn)();
    } catch (error) {
      this.p.keys.load(); // a rotation that rolled back must not stay in memory
      this.p.sandboxKeys.load();
      throw error;
    }
    this.p.wake();
    return result;
  }

  /** Writes a request's idempotency record in the open transaction; false when the key is taken. */
  keepIdempotency(r: IdempotencyRecord): boolean {
    return this.storeIdempotency.run(...idempotencyRow(this.p.sealer, r)).changes === 1;
  }

  createEndpoint(merchantId: string, livemode: boolean, url: string, eventTypes: readonly string[] | null): Result<Endpoint> {
    const full = this.fullOfEndpoints(merchantId);
    return full ?? ok(this.p.endpoints.create(merchantId, livemode, url, eventTypes));
  }

  /** The cap counts enabled endpoints: a disabled one keeps its deliveries' history but frees its slot for a new URL. */
  private fullOfEndpoints(merchantId: string): Result<never> | undefined {
    if (this.p.endpoints.countForMerchant(merchantId) < webhookLimits.endpointsPerMerchantMax) return undefined;
    return refuse(reject('operation_not_allowed', `A merchant may have at most ${webhookLimits.endpointsPerMerchantMax} enabled webhook endpoints; disable one (its deliveries' history stays) to add or enable another.`));
  }

  /** Manual disable (queued deliveries canceled, no event: the merchant asked) or re-enable (within the cap). */
  setEnabled(endpoint: Endpoint, enabled: boolean): Result<Endpoint> {
    if (enabled && endpoint.status === 'disabled') {
      const full = this.fullOfEndpoints(endpoint.merchantId);
      if (full) return full;
    }
    if (endpoint.status === 'deleted') return refuse(reject('operation_not_allowed', 'The endpoint was deleted; register a new one.'));
    const changed = enabled ? this.p.endpoints.enable(endpoint.id) : this.p.endpoints.disable(endpoint.id, 'operator', this.p.clock.now());
    if (!changed) return refuse(reject('operation_not_allowed', `The endpoint is already ${endpoint.status}.`));
    if (!enabled) this.p.deliveries.cancelQueued(endpoint.id, 'canceled: the endpoint was disabled by an operator');
    return ok(this.p.endpoints.get(endpoint.id)!);
  }

  /**
   * Deletes an endpoint for good: out of the merchant's lists, never delivered to again, its
   * deliveries kept for the record. Only a disabled one (disabling cancels what was queued),
   * so that a receiver still in use is not deleted by one stray call.
   */
  delete(endpoint: Endpoint): Result<Endpoint> {
    if (isCliEndpoint(endpoint)) return refuse(reject('operation_not_allowed', 'A satang listen endpoint lives as long as its stream; it goes when the stream closes.'));
    if (endpoint.status === 'enabled') return refuse(reject('operation_not_allowed', 'Disable the endpoint first (its queued deliveries are canceled), then delete it.'));
    if (!this.p.endpoints.markDeleted(endpoint.id, this.p.clock.now())) return refuse(reject('operation_not_allowed', 'The endpoint was deleted already.'));
    return ok(this.p.endpoints.get(endpoint.id)!);
  }

  /**
   * Changes an endpoint's URL or subscription, keeping its id, signing and history. A new
   * URL is a new receiver: the health counters and a 410's flag start afresh, and deliveries
   * queued for the old one go to the new one at their next attempt. A new subscription
   * applies to events from now on; deliveries already queued stay queued.
   */
  update(endpoint: Endpoint, change: { url?: string; eventTypes?: readonly string[] | null }): Result<Endpoint> {
    if (endpoint.status === 'deleted') return refuse(reject('operation_not_allowed', 'The endpoint was deleted; register a new one.'));
    if (isCliEndpoint(endpoint)) return refuse(reject('operation_not_allowed', 'A satang listen endpoint lives as long as its stream; it cannot be changed.'));
    // One request is one change of the endpoint, its version one more, whether it moves the URL,
    // the subscription or both; naming what the endpoint already is changes nothing, no version.
    const moves = change.url !== undefined && change.url !== endpoint.url;
    const resubscribes = change.eventTypes !== undefined && JSON.stringify(change.eventTypes) !== JSON.stringify(endpoint.eventTypes);
    if (moves) this.p.endpoints.moveTo(endpoint.id, change.url!);
    if (resubscribes) this.p.endpoints.subscribe(endpoint.id, change.eventTypes!, !moves);
    return ok(this.p.endpoints.get(endpoint.id)!);
  }

  resend(endpoint: Endpoint, delivery: Delivery): Result<Delivery> {
    const now = this.p.clock.now();
    if (endpoint.status !== 'enabled') return refuse(reject('operation_not_allowed', endpoint.status === 'deleted' ? 'The endpoint was deleted.' : 'The endpoint is disabled; re-enable it before resending.'));
    if (now - delivery.eventCreatedAt > webhookLimits.resendEventAgeMsMax) {
      return refuse(reject('operation_not_allowed', 'Events can be resent only within 30 days of their created_at.', { event_created_at: iso(delivery.eventCreatedAt) }));
    }
    const event = { id: delivery.eventId, type: delivery.eventType, createdAt: delivery.eventCreatedAt, table: delivery.eventTable };
    const id = this.p.deliveries.insert({ endpointId: endpoint.id, event, dueAt: now, resend: { merchantId: endpoint.merchantId } }, now)!;
    return ok(this.p.deliveries.get(id)!);
  }

  replay(endpoint: Endpoint, filter: ReplayFilter, operator: string): Result<ReplayResult> {
    const now = this.p.clock.now();
    if (endpoint.status !== 'enabled') return refuse(reject('operation_not_allowed', endpoint.status === 'deleted' ? 'The endpoint was deleted.' : 'The endpoint is disabled; re-enable it before replaying.'));
    const max = webhookLimits.replayEventsPerCommandMax;
    const params = {
      merchant: endpoint.merchantId, livemode: endpoint.livemode ? 1 : 0, endpoint: endpoint.id, endpointCreated: endpoint.createdAt,
      endpointUlid: endpoint.id.slice(endpoint.id.indexOf('_') + 1),
      after: Math.max(filter.createdAfter, now - webhookLimits.resendEventAgeMsMax), before: filter.createdBefore,
      types: this.allowedTypes(endpoint, filter.eventTypes), onlyFailed: filter.onlyFailed ? 1 : 0, limit: max + 1,
    };
    const found: { row: EventRow; table: EventTable }[] = [];
    for (const table of ['outbox', 'service'] as const) for (const row of this.replayEvents[table].all(params) as EventRow[]) found.push({ row, table });
    found.sort((a, b) => a.row[2] - b.row[2] || (a.row[0] < b.row[0] ? -1 : 1));
    const chosen = found.slice(0, max);
    const id = this.p.ids.next('whrp', endpoint.merchantId);
    const spacingMs = 1000 / webhookLimits.replayEventsReleasedPerSecond;
    chosen.forEach(({ row: [eventId, type, createdAt], table }, i) => {
      this.p.deliveries.insert({ endpointId: endpoint.id, event: { id: eventId, type, createdAt, table }, dueAt: now + Math.floor(i * spacingMs), resend: { merchantId: endpoint.merchantId }, replayId: id }, now);
    });
    this.insertReplay.run(id, endpoint.id, operator, JSON.stringify(filter), chosen.length, now);
    const hasMore = found.length > max;
    return ok({
      id, eventCount: chosen.length, hasMore, nextCreatedAfter: hasMore ? chosen[chosen.length - 1]!.row[2] + 1 : null,
      firstReleaseAt: chosen.length > 0 ? now : null, lastReleaseAt: chosen.length > 0 ? now + Math.floor((chosen.length - 1) * spacingMs) : null,
    });
  }

  /**
   * Announces the next signing key, signing from now + noticeMs: one webhook.key.rotating
   * event per merchant and mode with an enabled endpoint, to every such endpoint.
   */
  rotate(noticeMs: number): Result<{ key: KeyRecord; previousKid: string; announcedTo: number }> {
    const now = this.p.clock.now();
    const previousKid = this.p.keys.current(now).kid;
    const key = this.p.keys.rotate(noticeMs);
    if (!key) return refuse(reject('operation_not_allowed', 'A key rotation is already announced; it completes at its not_before.'));
    // The live key: told to live endpoints only (the sandbox's own key rotates by scenario 11400).
    return ok({ key, previousKid, announcedTo: this.announce(key, previousKid, now, (livemode) => livemode) });
  }

  /**
   * The live signing key `kid` may be withdrawn as far as the route can tell before the
   * step-up: it is one of the ring's and no longer signs (else 404, 409). One already
   * withdrawn passes: a retry of its withdrawal is answered by the idempotency record, and
   * another is refused by withdrawKey. A key that stopped signing never signs again.
   */
  withdrawableKey(kid: string): Result<string> {
    const refused = this.p.keys.withdrawalRefusal(kid);
    return refused === null || refused === 'already' ? ok(kid) : refuse(keyWithdrawalRefusal(kid, refused));
  }

  /** Withdraws a retired live signing key that leaked (it is published no more). */
  withdrawKey(kid: string): Result<{ kid: string; withdrawnAt: number }> {
    const now = this.p.clock.now();
    const outcome = this.p.keys.withdraw(kid, now);
    return outcome === 'withdrawn' ? ok({ kid, withdrawnAt: now }) : refuse(keyWithdrawalRefusal(kid, outcome));
  }

  /**
   * Sandbox scenario 11400: the sandbox's own key is rotated (never a live one), announced
   * to the sandbox endpoints. Returns how many deliveries were queued; 0 when a sandbox
   * rotation is already announced (the kid switches at its not_before all the same).
   */
  rotateSandbox(noticeMs: number, now: number): number {
    const previousKid = this.p.sandboxKeys.current(now).kid;
    const key = this.p.sandboxKeys.rotate(noticeMs);
    return key ? this.announce(key, previousKid, now, (livemode) => !livemode) : 0;
  }

  /**
   * webhook.key.rotating for every merchant in the modes given: delivered to its endpoints
   * (the fan-out mails a mandatory event to a merchant whose endpoints are all disabled, the
   * contract's rule), and in its events feed whether it has an endpoint or not — a merchant
   * that reads the feed alone is told of the next key too.
   */
  private announce(key: KeyRecord, previousKid: string, now: number, modes: (livemode: boolean) => boolean): number {
    let announcedTo = 0;
    for (const { merchantId, livemode } of this.announced(modes)) {
      const merchant = this.p.directory(merchantId);
      if (!merchant) continue;
      const event = this.p.events.emit({
        merchantId, whiteLabelId: merchant.whiteLabelId, livemode, type: 'webhook.key.rotating', createdAt: now,
        // Every object carries livemode (the contract's rule): the mode of the endpoints told.
        object: { object: 'webhook_signing_key', livemode, kid: key.kid, alg: 'Ed25519', ...publishedKey(key.key.publicKey), status: 'next', not_before: iso(key.notBefore), previous_kid: previousKid },
        previousAttributes: null, // a new key: nothing before it (null, as for *.created)
      });
      announcedTo += this.p.fanOut.deliver({ ...event, merchantId, livemode, table: 'service' }, now);
    }
    return announcedTo;
  }

  /** The merchants and modes a rotation is announced to: every merchant's, or those with an endpoint. */
  private announced(modes: (livemode: boolean) => boolean): { merchantId: string; livemode: boolean }[] {
    const all = this.p.merchants;
    if (!all) return this.p.endpoints.merchantsWithEndpoints().filter((m) => modes(m.livemode));
    const out: { merchantId: string; livemode: boolean }[] = [];
    for (const merchantId of all()) for (const livemode of [true, false]) if (modes(livemode)) out.push({ merchantId, livemode });
    return out;
  }

  /** The types a replay may send: the filter's (or all) within the endpoint's subscription; null = all. */
  private allowedTypes(endpoint: Endpoint, requested: readonly string[]): string | null {
    if (requested.length === 0) return endpoint.eventTypes === null ? null : JSON.stringify([...endpoint.eventTypes, ...mandatoryEventTypes]);
    return JSON.stringify(requested.filter((t) => subscribes(endpoint, t)));
  }
}
