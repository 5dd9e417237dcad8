// Webhook endpoints per merchant and mode (webhook_endpoints): the URL, the event-type
// subscription, the status, the 410 flag and the health counters auto-disable reads. A
// deleted endpoint (deleted_at) is out of the merchant's lists for good, its row and its
// deliveries kept for the record (a disabled one only can be deleted).
// Reads go to SQLite every time (a primary-key or indexed lookup costs microseconds), so
// no cache can disagree with a rolled-back transaction. Invariants: a subscription never
// leaves out the five mandatory event types; only enabled endpoints receive deliveries;
// the health counters restart at every success (so "failing since" is the down-time).
// A URL's path and query are a secret at rest (merchants authenticate receivers with a
// ?token=, providers put theirs in the path: hooks.slack.com/services/…): `url` keeps its
// scheme and host and a fingerprint of the rest (fingerprintedUrl, as the action log), for
// SQL readers and the eye, and `url_sealed` the whole URL sealed under the master key; a
// bare origin (https://host/) is kept as it is, url_sealed NULL.

import type { Clock, Ids } from '../../core/ports.ts';
import { iso } from '../../core/present.ts';
import { fingerprintedUrl } from '../../server/secret-text.ts';
import type { Sealer } from '../sealing.ts';
import type { Db } from '../sqlite/schema.ts';

/** The five events a subscription can never leave out (contract: Events). */
export const mandatoryEventTypes: ReadonlySet<string> = new Set([
  'deposit.reversed', 'withdrawal.fill_reversed', 'balance.debited', 'webhook.key.rotating', 'webhook.endpoint.disabled',
]);

export type EndpointStatus = 'enabled' | 'disabled' | 'deleted';

export interface Endpoint {
  readonly id: string;
  readonly merchantId: string;
  readonly livemode: boolean;
  readonly url: string;
  /** null = every event type. */
  readonly eventTypes: readonly string[] | null;
  readonly status: EndpointStatus;
  /**
   * The endpoint object's version (contract: events carry a per-object version; previous_attributes
   * the version before): 0 at creation, one more with each change of what it is — its URL,
   * subscription, status (disabled, enabled, deleted) or 410 flag. Its delivery counters
   * (failing_since, failures, last success) are health read as of now, and move no version.
   */
  readonly version: number;
  readonly createdAt: number;
  readonly disabledAt: number | null;
  readonly disabledReason: string | null;
  readonly deletedAt: number | null;
  readonly flaggedAt: number | null;
  readonly flagReason: string | null;
  readonly failingSince: number | null;
  readonly failuresSince: number;
  readonly lastSuccessAt: number | null;
  readonly warningsSent: number;
  readonly nextHealthCheckAt: number | null;
}

interface Row {
  id: string; merchant_id: string; livemode: number; url: string; url_sealed: string | null; event_types: string | null; status: EndpointStatus; version: number; created_at: number;
  disabled_at: number | null; disabled_reason: string | null; deleted_at: number | null; flagged_at: number | null; flag_reason: string | null;
  failing_since: number | null; failures_since: number; last_success_at: number | null; warnings_sent: number; next_health_check_at: number | null;
}

/** What `url` may hold in clear: a bare origin, or an origin and the fingerprint of the rest (fingerprintedUrl). */
const clearUrlShape = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@\s]*\/(?:… sha256:[0-9a-f]{12})?$/;

/** Whether an endpoints row's clear `url` keeps no path or query (satang verify flags one that does). */
export const keptInClearSafely = (url: string) => clearUrlShape.test(url);

/** The sealing purpose of an endpoint's URL: bound to the endpoint, so a sealed URL copied onto another row opens nowhere. */
export const urlPurpose = (endpointId: string) => `webhook_endpoint_url:${endpointId}`;

/** An endpoints row's URL whole: its sealed URL opened, or the bare origin kept in clear. */
export const wholeUrl = (r: { readonly id: string; readonly url: string; readonly url_sealed: string | null }, sealer: Sealer): string =>
  r.url_sealed === null ? r.url : sealer.openText(r.url_sealed, urlPurpose(r.id));

const fromRow = (r: Row, sealer: Sealer): Endpoint => ({
  id: r.id, merchantId: r.merchant_id, livemode: r.livemode === 1, url: wholeUrl(r, sealer), eventTypes: r.event_types === null ? null : JSON.parse(r.event_types) as string[],
  status: r.status, version: r.version, createdAt: r.created_at, disabledAt: r.disabled_at, disabledReason: r.disabled_reason, deletedAt: r.deleted_at ?? null, flaggedAt: r.flagged_at, flagReason: r.flag_reason,
  failingSince: r.failing_since, failuresSince: r.failures_since, lastSuccessAt: r.last_success_at, warningsSent: r.warnings_sent, nextHealthCheckAt: r.next_health_check_at,
});

export function subscribes(endpoint: Endpoint, type: string): boolean {
  return endpoint.eventTypes === null || mandatoryEventTypes.has(type) || endpoint.eventTypes.includes(type);
}

/**
 * An endpoint `satang listen` opened for a developer's terminal (cli://listen/<stream>): a
 * delivery to it is done once written to the stream, whatever the local server answers.
 */
export function isCliEndpoint(e: Endpoint): boolean {
  return e.url.startsWith('cli://');
}

/** The back office's view of an endpoint. */
export function presentEndpoint(e: Endpoint) {
  return {
    id: e.id, object: 'webhook_endpoint', type: isCliEndpoint(e) ? 'cli' : 'url', livemode: e.livemode, version: e.version, merchant_id: e.merchantId, url: e.url, status: e.status,
    event_types: e.eventTypes, mandatory_event_types: [...mandatoryEventTypes], created_at: iso(e.createdAt),
    disabled_at: e.disabledAt === null ? null : iso(e.disabledAt), disabled_reason: e.disabledReason,
    deleted_at: e.deletedAt === null ? null : iso(e.deletedAt),
    flagged: e.flaggedAt !== null, flagged_at: e.flaggedAt === null ? null : iso(e.flaggedAt), flag_reason: e.flagReason,
    failing_since: e.failingSince === null ? null : iso(e.failingSince), failed_attempts_since_last_success: e.failuresSince,
    last_success_at: e.lastSuccessAt === null ? null : iso(e.lastSuccessAt),
  };
}

/** A receiver starting afresh: no down-time, no warnings sent, no milestone due, no 410 flag. */
const healthAfresh = 'failing_since = NULL, failures_since = 0, warnings_sent = 0, next_health_check_at = NULL, flagged_at = NULL, flag_reason = NULL';

export class EndpointStore {
  private readonly s;

  /** URLs an older build kept in clear, sealed when the store opened. */
  readonly sealedOnOpen: number;

  constructor(db: Db, private readonly clock: Clock, private readonly ids: Ids, private readonly sealer: Sealer) {
    const columns = db.prepare<[], string>("SELECT name FROM pragma_table_info('webhook_endpoints')").pluck(true).all();
    if (!columns.includes('url_sealed')) db.exec('ALTER TABLE webhook_endpoints ADD COLUMN url_sealed TEXT');
    if (!columns.includes('deleted_at')) db.exec('ALTER TABLE webhook_endpoints ADD COLUMN deleted_at INTEGER');
    // An endpoint an older build made starts at version 0 here (none was shown before).
    if (!columns.includes('version')) db.exec('ALTER TABLE webhook_endpoints ADD COLUMN version INTEGER NOT NULL DEFAULT 0');
    this.s = {
      insert: db.prepare('INSERT INTO webhook_endpoints (id, merchant_id, livemode, url, url_sealed, event_types, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      urls: db.prepare<[], { id: string; url: string; url_sealed: string | null }>('SELECT id, url, url_sealed FROM webhook_endpoints'),
      storeUrl: db.prepare<[string, string | null, string]>('UPDATE webhook_endpoints SET url = ?, url_sealed = ? WHERE id = ?'),
      byId: db.prepare<[string], Row>('SELECT * FROM webhook_endpoints WHERE id = ?'),
      removeAttempts: db.prepare('DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = ?)'),
      removeDeliveries: db.prepare('DELETE FROM webhook_deliveries WHERE endpoint_id = ?'),
      remove: db.prepare('DELETE FROM webhook_endpoints WHERE id = ?'),
      cliIds: db.prepare<[], string>("SELECT id FROM webhook_endpoints WHERE url LIKE 'cli://%'").pluck(true),
      byMerchant: db.prepare<[string, number], Row>("SELECT * FROM webhook_endpoints WHERE merchant_id = ? AND livemode = ? AND status != 'deleted' ORDER BY id"),
      anyByMerchant: db.prepare<[string, number], number>('SELECT COUNT(*) FROM webhook_endpoints WHERE merchant_id = ? AND livemode = ?').pluck(true),
      enabled: db.prepare<[string, number], Row>("SELECT * FROM webhook_endpoints WHERE merchant_id = ? AND livemode = ? AND status = 'enabled' ORDER BY id"),
      countForMerchant: db.prepare<[string], number>("SELECT COUNT(*) FROM webhook_endpoints WHERE merchant_id = ? AND status = 'enabled'").pluck(true),
      merchantsWithEndpoints: db.prepare<[], [string, number]>('SELECT DISTINCT merchant_id, livemode FROM webhook_endpoints').raw(true),
      disable: db.prepare("UPDATE webhook_endpoints SET status = 'disabled', version = version + 1, disabled_at = ?, disabled_reason = ?, next_health_check_at = NULL WHERE id = ? AND status = 'enabled'"),
      markDeleted: db.prepare("UPDATE webhook_endpoints SET status = 'deleted', version = version + 1, deleted_at = ? WHERE id = ? AND status = 'disabled'"),
      // Re-enabling starts afresh: the health counters and a 410's flag (the operator says the receiver is back).
      enable: db.prepare(`UPDATE webhook_endpoints SET status = 'enabled', version = version + 1, disabled_at = NULL, disabled_reason = NULL, ${healthAfresh} WHERE id = ? AND status = 'disabled'`),
      // A new address is a new receiver: its health and a 410's flag were the old one's.
      moveTo: db.prepare(`UPDATE webhook_endpoints SET url = ?, url_sealed = ?, version = version + 1, ${healthAfresh} WHERE id = ?`),
      subscribe: db.prepare('UPDATE webhook_endpoints SET event_types = ?, version = version + ? WHERE id = ?'),
      flag: db.prepare('UPDATE webhook_endpoints SET flagged_at = ?, flag_reason = ?, version = version + (flagged_at IS NULL) WHERE id = ?'),
      // A success after a 410 says the receiver is there again: the flag goes with the down-time.
      success: db.prepare(`UPDATE webhook_endpoints SET last_success_at = ?, version = version + (flagged_at IS NOT NULL), ${healthAfresh} WHERE id = ?`),
      failure: db.prepare<[number, number, string]>(`UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, ?), failures_since = failures_since + 1,
        next_health_check_at = CASE WHEN failing_since IS NULL THEN ? ELSE next_health_check_at END WHERE id = ?`),
      health: db.prepare('UPDATE webhook_endpoints SET warnings_sent = ?, next_health_check_at = ? WHERE id = ?'),
      dueHealth: db.prepare<[number, number], Row>('SELECT * FROM webhook_endpoints WHERE next_health_check_at <= ? ORDER BY next_health_check_at LIMIT ?'),
      nextHealth: db.prepare<[], number | null>('SELECT MIN(next_health_check_at) FROM webhook_endpoints WHERE next_health_check_at IS NOT NULL').pluck(true),
    };
    // An older build kept a URL without a query in clear, and one with a query with its path in clear beside the sealed URL.
    const clear = this.s.urls.all().filter((r) => !keptInClearSafely(r.url));
    db.transaction(() => {
      for (const r of clear) this.s.storeUrl.run(...this.stored(r.id, wholeUrl(r, sealer)), r.id);
    })();
    this.sealedOnOpen = clear.length;
  }

  /** The URL as the row keeps it: [shown, sealed or null]. */
  private stored(id: string, url: string): [string, string | null] {
    const shown = fingerprintedUrl(url);
    return shown === url ? [url, null] : [shown, this.sealer.seal(url, urlPurpose(id))];
  }

  /** Told of each endpoint created (the metrics start its failure series at 0). */
  onCreated?: (endpoint: Endpoint) => void;

  create(merchantId: string, livemode: boolean, url: string, eventTypes: readonly string[] | null): Endpoint {
    const id = this.ids.next('whep', merchantId);
    this.s.insert.run(id, merchantId, livemode ? 1 : 0, ...this.stored(id, url), eventTypes === null ? null : JSON.stringify(eventTypes), 'enabled', this.clock.now());
    const created = this.get(id)!;
    this.onCreated?.(created);
    return created;
  }

  /** Deletes the endpoint with its deliveries and attempts (a temporary `cli` endpoint when its stream closes; inside the caller's transaction). */
  remove(id: string): void {
    this.s.removeAttempts.run(id);
    this.s.removeDeliveries.run(id);
    this.s.remove.run(id);
  }

  /** The temporary `cli` endpoints (left behind only by a process that stopped without closing its streams). */
  cliEndpointIds(): string[] {
    return this.s.cliIds.all();
  }

  get(id: string): Endpoint | undefined {
    const r = this.s.byId.get(id);
    return r && fromRow(r, this.sealer);
  }

  /** The merchant's enabled endpoints (a disabled one keeps its history, not a slot). */
  countForMerchant(merchantId: string): number {
    return this.s.countForMerchant.get(merchantId)!;
  }

  /** The merchant's endpoints in a mode, enabled or disabled (a deleted one is gone from here). */
  forMerchant(merchantId: string, livemode: boolean): Endpoint[] {
    return this.s.byMerchant.all(merchantId, livemode ? 1 : 0).map((r) => fromRow(r, this.sealer));
  }

  /** Whether the merchant ever had an endpoint in the mode (deleted ones too). */
  everHad(merchantId: string, livemode: boolean): boolean {
    return this.s.anyByMerchant.get(merchantId, livemode ? 1 : 0)! > 0;
  }

  /** Deletes a disabled endpoint for good (its row and deliveries stay, for the record). false when it was not disabled. */
  markDeleted(id: string, at: number): boolean {
    return this.s.markDeleted.run(at, id).changes === 1;
  }

  /** Enabled endpoints of a merchant and mode. */
  enabled(merchantId: string, livemode: boolean): Endpoint[] {
    return this.s.enabled.all(merchantId, livemode ? 1 : 0).map((r) => fromRow(r, this.sealer));
  }

  /** Every (merchant, mode) with at least one endpoint, enabled or not. */
  merchantsWithEndpoints(): { merchantId: string; livemode: boolean }[] {
    return this.s.merchantsWithEndpoints.all().map(([merchantId, livemode]) => ({ merchantId, livemode: livemode === 1 }));
  }

  /** false when it was not enabled. */
  disable(id: string, reason: 'auto_disabled' | 'operator', at: number): boolean {
    return this.s.disable.run(at, reason, id).changes === 1;
  }

  /** Re-enabling is manual (contract); the health counters start afresh. false when it was not disabled. */
  enable(id: string): boolean {
    return this.s.enable.run(id).changes === 1;
  }

  /** Points the endpoint at another URL, its health and flag starting afresh (inside the caller's transaction). */
  moveTo(id: string, url: string): void {
    this.s.moveTo.run(...this.stored(id, url), id);
  }

  /**
   * Replaces the subscription (null = every event type); `newVersion` false when the same
   * change (a new URL with it) has already moved the version.
   */
  subscribe(id: string, eventTypes: readonly string[] | null, newVersion = true): void {
    this.s.subscribe.run(eventTypes === null ? null : JSON.stringify(eventTypes), newVersion ? 1 : 0, id);
  }

  flag(id: string, reason: string, at: number): void {
    this.s.flag.run(at, reason, id);
  }

  recordSuccess(id: string, at: number): void {
    this.s.success.run(at, id);
  }

  /** Counts a failed attempt; the first failure after a success starts the down-time and its first milestone. */
  recordFailure(id: string, at: number, firstMilestoneMs: number): Endpoint {
    this.s.failure.run(at, at + firstMilestoneMs, id);
    return this.get(id)!;
  }

  setHealth(id: string, warningsSent: number, nextHealthCheckAt: number | null): void {
    this.s.health.run(warningsSent, nextHealthCheckAt, id);
  }

  dueHealthChecks(now: number, max: number): Endpoint[] {
    return this.s.dueHealth.all(now, max).map((r) => fromRow(r, this.sealer));
  }

  nextHealthCheckAt(): number | undefined {
    return this.s.nextHealth.get() ?? undefined;
  }
}
