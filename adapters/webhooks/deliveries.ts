// Delivery records (webhook_deliveries) and their attempts (webhook_attempts): the durable
// timers of webhook retries. A delivery is due when status = 'pending', inflight = 0 and
// next_attempt_at has passed. Claiming an attempt (inside the caller's transaction)
// counts it, marks the row in flight, writes the attempt row and already sets the time
// of the following attempt; recording the outcome clears the flag. So a crash between
// claim and record leaves a row that recovery marks 'interrupted' and that is retried,
// as the next attempt, at the time set by the claim — never sent twice under one
// attempt number, never lost.

import type { Ids } from '../../core/ports.ts';
import { derivedUlid } from '../ids.ts';
import { iso } from '../../core/present.ts';
import type { Db } from '../sqlite/schema.ts';
import type { EventTable } from './events.ts';
import type { PostOutcome } from './http-post.ts';
import { webhookLimits } from '../../core/limits.ts';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'canceled';
export const deliveryStatuses: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed', 'canceled'];

export interface Delivery {
  readonly id: string;
  readonly endpointId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly eventTable: EventTable;
  readonly eventCreatedAt: number;
  readonly status: DeliveryStatus;
  readonly attempt: number;
  readonly inflight: boolean;
  readonly resend: boolean;
  readonly replayId: string | null;
  readonly createdAt: number;
  readonly lastAttemptAt: number | null;
  readonly nextAttemptAt: number | null;
  readonly responseStatus: number | null;
  readonly responseBodyExcerpt: string | null;
  readonly durationMs: number | null;
  readonly error: string | null;
}

interface Row {
  id: string; endpoint_id: string; event_id: string; event_type: string; event_source: EventTable; event_created_at: number; status: DeliveryStatus;
  attempt: number; inflight: number; resend: number; replay_id: string | null; created_at: number; last_attempt_at: number | null; next_attempt_at: number | null;
  response_status: number | null; response_body_excerpt: string | null; duration_ms: number | null; error: string | null;
}

const fromRow = (r: Row): Delivery => ({
  id: r.id, endpointId: r.endpoint_id, eventId: r.event_id, eventType: r.event_type, eventTable: r.event_source, eventCreatedAt: r.event_created_at,
  status: r.status, attempt: r.attempt, inflight: r.inflight === 1, resend: r.resend === 1, replayId: r.replay_id, createdAt: r.created_at,
  lastAttemptAt: r.last_attempt_at, nextAttemptAt: r.next_attempt_at, responseStatus: r.response_status, responseBodyExcerpt: r.response_body_excerpt,
  durationMs: r.duration_ms, error: r.error,
});

export interface Attempt {
  readonly attempt: number; readonly startedAt: number; readonly kid: string; readonly outcome: PostOutcome | 'failed' | 'in_flight' | 'interrupted';
  readonly responseStatus: number | null; readonly durationMs: number | null; readonly error: string | null;
}

/** The contract's webhook_delivery record; its mode is its endpoint's (an endpoint serves one mode). */
export function presentDelivery(d: Delivery, endpoint: { readonly livemode: boolean }) {
  return {
    id: d.id, object: 'webhook_delivery', livemode: endpoint.livemode, endpoint_id: d.endpointId, event_id: d.eventId, event_type: d.eventType, status: d.status,
    attempt: d.attempt, resend: d.resend, created_at: iso(d.createdAt), last_attempt_at: d.lastAttemptAt === null ? null : iso(d.lastAttemptAt),
    next_retry_at: d.status === 'pending' && d.nextAttemptAt !== null ? iso(d.nextAttemptAt) : null,
    response_status: d.responseStatus, response_body_excerpt: d.responseBodyExcerpt, duration_ms: d.durationMs, error: d.error,
  };
}

export function presentAttempt(a: Attempt) {
  return { attempt: a.attempt, started_at: iso(a.startedAt), kid: a.kid, outcome: a.outcome, response_status: a.responseStatus, duration_ms: a.durationMs, error: a.error };
}

export interface NewDelivery {
  readonly endpointId: string;
  readonly event: { readonly id: string; readonly type: string; readonly createdAt: number; readonly table: EventTable };
  readonly dueAt: number;
  /** A resend or a replay: a delivery of its own, with a fresh id of the endpoint's merchant. */
  readonly resend?: { readonly merchantId: string };
  readonly replayId?: string;
}

export class DeliveryStore {
  private readonly s;

  constructor(db: Db, private readonly ids: Ids) {
    this.s = {
      insert: db.prepare(`INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, event_source, event_created_at, status, resend, replay_id, created_at, next_attempt_at)
        VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?) ON CONFLICT DO NOTHING`),
      due: db.prepare<[number, string, number, number], Row>(`SELECT * FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? AND inflight = 0
        AND endpoint_id NOT IN (SELECT value FROM json_each(?))
        AND (? = 1 OR endpoint_id IN (SELECT id FROM webhook_endpoints WHERE livemode = 1)) ORDER BY next_attempt_at LIMIT ?`),
      claim: db.prepare(`UPDATE webhook_deliveries SET attempt = attempt + 1, inflight = 1, last_attempt_at = ?, next_attempt_at = ?
        WHERE id = ? AND status = 'pending' AND inflight = 0`),
      insertAttempt: db.prepare("INSERT INTO webhook_attempts (delivery_id, attempt, started_at, kid, outcome) VALUES (?, ?, ?, ?, 'in_flight')"),
      record: db.prepare(`UPDATE webhook_deliveries SET inflight = 0, status = ?, next_attempt_at = CASE WHEN ? = 'pending' THEN next_attempt_at END,
        response_status = ?, response_body_excerpt = ?, duration_ms = ?, error = ? WHERE id = ? AND attempt = ? AND inflight = 1`),
      recordAttempt: db.prepare('UPDATE webhook_attempts SET outcome = ?, response_status = ?, duration_ms = ?, error = ? WHERE delivery_id = ? AND attempt = ?'),
      inflight: db.prepare<[], Row>('SELECT * FROM webhook_deliveries WHERE inflight = 1'),
      cancel: db.prepare<[string, string]>(`UPDATE webhook_deliveries SET status = 'canceled', next_attempt_at = NULL, error = COALESCE(error, ?)
        WHERE endpoint_id = ? AND status = 'pending' AND inflight = 0`),
      byId: db.prepare<[string], Row>('SELECT * FROM webhook_deliveries WHERE id = ?'),
      page: db.prepare<[{ endpoint: string; status: string | null; before: string | null; limit: number }], Row>(`SELECT * FROM webhook_deliveries
        WHERE endpoint_id = @endpoint AND (@status IS NULL OR status = @status) AND (@before IS NULL OR id < @before) ORDER BY id DESC LIMIT @limit`),
      attempts: db.prepare<[string, number], Row & Record<string, unknown>>('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt LIMIT ?'),
      nextDue: db.prepare<[], number | null>("SELECT MIN(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending' AND inflight = 0").pluck(true),
      pendingByEndpoint: db.prepare<[], { endpoint_id: string; n: number }>(`SELECT CASE WHEN e.url LIKE 'cli://%' THEN 'cli' ELSE d.endpoint_id END AS endpoint_id, COUNT(*) AS n
        FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.status = 'pending' GROUP BY 1`),
    };
  }

  /** Pending deliveries (due, waiting to retry or in flight) per endpoint, every `satang listen` endpoint together as 'cli': the queue depth metrics read. */
  pendingByEndpoint(): Map<string, number> {
    return new Map(this.s.pendingByEndpoint.all().map((r) => [r.endpoint_id, r.n]));
  }

  /**
   * Creates a pending delivery (inside the caller's transaction); undefined if fan-out
   * already made it. An event's one delivery to an endpoint (not a resend) has an id made
   * from the two (derivedUlid: the event's ULID marked with the endpoint's): a fan-out lost
   * to a power cut before its commit reached the disk is redone under the same id, so an id
   * an operator saw listed still names the delivery, and an endpoint's deliveries list in
   * the order of their events.
   */
  insert(d: NewDelivery, now: number): string | undefined {
    const id = d.resend ? this.ids.next('whd', d.resend.merchantId) : `whd_${derivedUlid(d.event.id, d.endpointId, d.event.createdAt)}`;
    const info = this.s.insert.run(id, d.endpointId, d.event.id, d.event.type, d.event.table, d.event.createdAt, d.resend ? 1 : 0, d.replayId ?? null, now, d.dueAt);
    return info.changes === 1 ? id : undefined;
  }

  /** Due deliveries, oldest due first, leaving out the endpoints named (they, or their merchant, are at their in-flight cap), and sandbox endpoints unless `sandboxToo`. */
  due(now: number, max: number, excludedEndpoints: readonly string[], sandboxToo = true): Delivery[] {
    return this.s.due.all(now, JSON.stringify(excludedEndpoints), sandboxToo ? 1 : 0, max).map(fromRow);
  }

  /**
   * Claims the next attempt of `d` (inside the caller's transaction): counts it, marks it in
   * flight and sets when the following attempt is due (null after the last one).
   */
  claim(d: Delivery, now: number, kid: string, followingAttemptAt: number | null): boolean {
    if (this.s.claim.run(now, followingAttemptAt, d.id).changes !== 1) return false;
    this.s.insertAttempt.run(d.id, d.attempt + 1, now, kid);
    return true;
  }

  /** Records the outcome of attempt `attempt` (inside the caller's transaction). */
  record(id: string, attempt: number, status: DeliveryStatus, outcome: PostOutcome, r: { status: number | null; excerpt: string | null; durationMs: number; error: string | null }): void {
    this.s.record.run(status, status, r.status, r.excerpt, r.durationMs, r.error, id, attempt);
    // The attempt that spends the last retry says so: 'failed', as its delivery, not 'retry'.
    this.s.recordAttempt.run(status === 'failed' && outcome === 'retry' ? 'failed' : outcome, r.status, r.durationMs, r.error, id, attempt);
  }

  /**
   * At start, before anything is claimed: every attempt claimed but never recorded (the
   * process stopped mid-flight) is marked interrupted. Its delivery stays due at the time
   * its claim set — as the next attempt — or fails when that was the last attempt.
   */
  recoverInterrupted(): number {
    const rows = this.s.inflight.all().map(fromRow);
    const error = 'interrupted: the dispatcher stopped before this attempt\'s outcome was recorded';
    for (const d of rows) {
      const last = d.attempt >= webhookLimits.attemptsMax;
      this.s.record.run(last ? 'failed' : 'pending', last ? 'failed' : 'pending', null, null, null, error, d.id, d.attempt);
      this.s.recordAttempt.run('interrupted', null, null, error, d.id, d.attempt);
    }
    return rows.length;
  }

  /** Cancels an endpoint's queued deliveries (not the ones in flight); returns how many. */
  cancelQueued(endpointId: string, reason: string): number {
    return this.s.cancel.run(reason, endpointId).changes;
  }

  get(id: string): Delivery | undefined {
    const r = this.s.byId.get(id);
    return r && fromRow(r);
  }

  /** Newest first; `beforeId` continues a page. */
  page(endpointId: string, status: DeliveryStatus | null, beforeId: string | null, limit: number): Delivery[] {
    return this.s.page.all({ endpoint: endpointId, status, before: beforeId, limit }).map(fromRow);
  }

  attempts(deliveryId: string): Attempt[] {
    return this.s.attempts.all(deliveryId, webhookLimits.attemptsListedPerDeliveryMax).map((r) => ({
      attempt: r.attempt, startedAt: r.started_at as number, kid: r.kid as string, outcome: r.outcome as Attempt['outcome'],
      responseStatus: r.response_status, durationMs: r.duration_ms, error: r.error,
    }));
  }

  nextDueAt(): number | undefined {
    return this.s.nextDue.get() ?? undefined;
  }
}
