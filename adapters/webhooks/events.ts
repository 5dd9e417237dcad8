// Where the dispatcher's events come from. Merchant events of the core are read from the
// outbox by journal seq through the EventSource interface — today a durable position
// over the outbox table, woken after every durable commit and on a timer; later a bus
// subscription can implement the same interface (journal seq is what the bus carries).
// Events the webhook service emits itself (webhook.key.rotating,
// webhook.endpoint.disabled, sandbox out-of-order tests) are written by ServiceEvents to
// webhook_events in the caller's transaction, with the merchant's next sequence from the
// shared counter and the same envelope bytes as the outbox's (adapters/sqlite/envelope.ts).
// Invariant: the stored body is the byte string every attempt and resend sends, as
// presentedEnvelope gives it (the same bytes, but a sandbox event stored with raw btxn_ ids
// names them as the sandbox does now).

import type { MerchantEvent } from '../../core/outbox.ts';
import type { Json } from '../../core/present.ts';
import type { Ids } from '../../core/ports.ts';
import { envelopeBody, presentedEnvelope } from '../sqlite/envelope.ts';
import type { Db } from '../sqlite/schema.ts';

export type EventTable = 'outbox' | 'service';

export interface SourcedEvent {
  readonly id: string;
  readonly merchantId: string;
  readonly livemode: boolean;
  readonly type: string;
  readonly createdAt: number;
  /** Commit order within the source (journal seq for the outbox). */
  readonly position: number;
}

export interface EventSource {
  /** Names the durable read position (webhook_positions.source). */
  readonly name: string;
  /** Which table holds the bodies of these events. */
  readonly table: EventTable;
  /** Events after `position` in commit order, at most `limit`; never splits one position. */
  read(position: number, limit: number): SourcedEvent[];
  /** Whether any event lies after `position` (cheaper than read: nothing of the event is read). */
  hasUnread(position: number): boolean;
  /** Calls `wake` whenever new events may be readable; returns the unsubscribe. */
  subscribe(wake: () => void): () => void;
}

/** A tiny fan-out of "something became durable" (the write side calls notify after commits). */
export class DurableSignal {
  private readonly listeners = new Set<() => void>();
  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
  notify(): void {
    for (const fn of this.listeners) fn();
  }
}

type OutboxRow = [string, string, number, string, number, number];

export class OutboxEventSource implements EventSource {
  readonly name = 'outbox';
  readonly table = 'outbox' as const;
  private readonly select;
  private readonly unread;

  /** `durableSeq`: rows of later journal seqs are committed but not yet on disk, and wait. */
  constructor(db: Db, private readonly signal: DurableSignal, private readonly durableSeq: () => number = () => Number.MAX_SAFE_INTEGER) {
    this.select = db.prepare<[number, number, number], OutboxRow>(
      'SELECT id, merchant_id, livemode, type, created_at, journal_seq FROM outbox WHERE journal_seq > ? AND journal_seq <= ? ORDER BY journal_seq, rowid LIMIT ?').raw(true);
    // Answered from the journal_seq index alone (webhooks/schema.ts), without the rows.
    this.unread = db.prepare<[number, number], number>('SELECT 1 FROM outbox WHERE journal_seq > ? AND journal_seq <= ? LIMIT 1').pluck(true);
  }

  hasUnread(position: number): boolean {
    return this.unread.get(position, this.durableSeq()) !== undefined;
  }

  read(position: number, limit: number): SourcedEvent[] {
    const rows = this.select.all(position, this.durableSeq(), limit + 1);
    let events = rows.map(([id, merchantId, livemode, type, createdAt, seq]) => ({ id, merchantId, livemode: livemode === 1, type, createdAt, position: seq }));
    if (events.length > limit) {
      // Cut before the last position so one position is never split across two reads.
      const last = events[limit]!.position;
      const whole = events.slice(0, limit).filter((e) => e.position !== last);
      events = whole.length > 0 ? whole : events.filter((e) => e.position === last);
    }
    return events;
  }

  subscribe(wake: () => void): () => void {
    return this.signal.subscribe(wake);
  }
}

export interface ServiceEvent {
  readonly id: string;
  readonly sequence: number;
  readonly type: string;
  readonly createdAt: number;
}

export class ServiceEvents {
  private readonly bump;
  private readonly insert;
  private readonly bodies;
  private readonly page;

  constructor(db: Db, private readonly ids: Ids) {
    this.page = db.prepare<[string, number, bigint, number], [number, string]>(
      'SELECT sequence, body FROM webhook_events WHERE merchant_id = ? AND livemode = ? AND sequence > ? ORDER BY sequence LIMIT ?').raw(true);
    this.bump = db.prepare<[string, number], number>(`INSERT INTO outbox_sequences (merchant_id, livemode, last_sequence) VALUES (?, ?, 1)
      ON CONFLICT (merchant_id, livemode) DO UPDATE SET last_sequence = last_sequence + 1 RETURNING last_sequence`).pluck(true);
    this.insert = db.prepare('INSERT INTO webhook_events (id, merchant_id, livemode, sequence, type, created_at, body) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.bodies = {
      outbox: db.prepare<[string], string>('SELECT body FROM outbox WHERE id = ?').pluck(true),
      service: db.prepare<[string], string>('SELECT body FROM webhook_events WHERE id = ?').pluck(true),
    };
  }

  /** Writes one event (call inside a transaction); previousAttributes undefined = key absent. */
  emit(e: { merchantId: string; whiteLabelId: string; livemode: boolean; type: string; createdAt: number; object: { [key: string]: Json }; previousAttributes?: { [key: string]: Json } | null; fill?: { [key: string]: Json } }): ServiceEvent {
    const id = this.ids.next('evt', e.merchantId);
    const sequence = this.bump.get(e.merchantId, e.livemode ? 1 : 0)!;
    const event: MerchantEvent = {
      type: e.type, merchantId: e.merchantId, whiteLabelId: e.whiteLabelId, livemode: e.livemode, createdAt: e.createdAt, object: e.object,
      ...(e.previousAttributes !== undefined ? { previousAttributes: e.previousAttributes } : {}), ...(e.fill ? { fill: e.fill } : {}), stream: String(e.object.id ?? id), version: Number(e.object.version ?? 0),
    };
    this.insert.run(id, e.merchantId, e.livemode ? 1 : 0, sequence, e.type, e.createdAt, envelopeBody(id, sequence, event, {}));
    return { id, sequence, type: e.type, createdAt: e.createdAt };
  }

  /** The merchant's service events with sequence above `since`, oldest first, at most `limit` (for the events feed). */
  since(merchantId: string, livemode: boolean, since: bigint, limit: number): { sequence: number; body: string }[] {
    return this.page.all(merchantId, livemode ? 1 : 0, since, limit).map(([sequence, body]) => ({ sequence, body: presentedEnvelope(body) }));
  }

  /** The bytes of an event as it leaves the service (presentedEnvelope), from the table that holds it. */
  body(table: EventTable, eventId: string): string | undefined {
    const stored = this.bodies[table].get(eventId);
    return stored === undefined ? undefined : presentedEnvelope(stored);
  }
}
