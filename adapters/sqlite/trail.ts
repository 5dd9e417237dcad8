// The journal trail of one order, for the back office's timeline: the order's own entries,
// the balance transactions posted for it, the counterparty withdrawals' entries about its
// legs, the merchant events emitted for it and their webhook deliveries — each with the
// journal seq (and hash) it rode in on. Read-only queries on journal.db; nothing here
// decides anything. Every query is bounded (backOfficeLimits.trailEntriesMax).

import { decode, type DomainEvent } from '../../core/journal.ts';
import { backOfficeLimits } from '../../core/limits.ts';
import type { Db } from './schema.ts';

export interface TrailEntry {
  readonly seq: number;
  readonly stream: string;
  readonly kind: string;
  readonly version: number;
  readonly type: string;
  readonly recordedAt: number;
  readonly hash: string;
  readonly event: DomainEvent;
}

export interface TrailEvent {
  readonly id: string;
  readonly type: string;
  readonly merchantId: string;
  readonly sequence: number;
  readonly createdAt: number;
  readonly journalSeq: number;
}

export interface TrailDelivery {
  readonly id: string;
  readonly eventId: string;
  readonly endpointId: string;
  readonly status: string;
  readonly attempt: number;
  readonly responseStatus: number | null;
  readonly error: string | null;
  readonly createdAt: number;
  readonly lastAttemptAt: number | null;
}

interface JournalRow { seq: number; stream: string; kind: string; version: number; type: string; recorded_at: number; hash: string; data: string }

const fromRow = (r: JournalRow): TrailEntry => ({
  seq: r.seq, stream: r.stream, kind: r.kind, version: r.version, type: r.type, recordedAt: r.recorded_at, hash: r.hash, event: decode<DomainEvent>(r.data),
});

export class JournalTrail {
  private readonly s;

  constructor(db: Db) {
    const max = backOfficeLimits.trailEntriesMax;
    this.s = {
      stream: db.prepare<[string], JournalRow>(`SELECT seq, stream, kind, version, type, recorded_at, hash, data FROM journal WHERE stream = ? ORDER BY version LIMIT ${max}`),
      // A balance transaction is posted by the command that changed its source, so it is
      // never older than the source's first entry: the scan starts there.
      postedFor: db.prepare<[number, string], JournalRow>(`SELECT seq, stream, kind, version, type, recorded_at, hash, data FROM journal
        WHERE seq >= ? AND kind = 'balance_transaction' AND json_extract(data, '$.transaction.source.id') = ? ORDER BY seq LIMIT ${max}`),
      events: db.prepare<[string], { id: string; type: string; merchant_id: string; sequence: number; created_at: number; journal_seq: number }>(
        `SELECT id, type, merchant_id, sequence, created_at, journal_seq FROM outbox WHERE stream = ? ORDER BY journal_seq, sequence LIMIT ${max}`),
      deliveries: db.prepare<[string], { id: string; event_id: string; endpoint_id: string; status: string; attempt: number; response_status: number | null; error: string | null; created_at: number; last_attempt_at: number | null }>(
        `SELECT id, event_id, endpoint_id, status, attempt, response_status, error, created_at, last_attempt_at FROM webhook_deliveries
         WHERE event_id IN (SELECT value FROM json_each(?)) ORDER BY id LIMIT ${max}`),
    };
  }

  /** One stream's entries, oldest first. */
  stream(stream: string): TrailEntry[] {
    return this.s.stream.all(stream).map(fromRow);
  }

  /** The balance transactions whose source is `sourceId`, posted at or after `fromSeq`. */
  postedFor(sourceId: string, fromSeq: number): TrailEntry[] {
    return this.s.postedFor.all(fromSeq, sourceId).map(fromRow);
  }

  /** The merchant events emitted for a stream (webhook envelopes in the outbox). */
  events(stream: string): TrailEvent[] {
    return this.s.events.all(stream).map((r) => ({ id: r.id, type: r.type, merchantId: r.merchant_id, sequence: r.sequence, createdAt: r.created_at, journalSeq: r.journal_seq }));
  }

  /** The webhook deliveries of these events. */
  deliveries(eventIds: readonly string[]): TrailDelivery[] {
    if (eventIds.length === 0) return [];
    return this.s.deliveries.all(JSON.stringify(eventIds)).map((r) => ({
      id: r.id, eventId: r.event_id, endpointId: r.endpoint_id, status: r.status, attempt: r.attempt, responseStatus: r.response_status,
      error: r.error, createdAt: r.created_at, lastAttemptAt: r.last_attempt_at,
    }));
  }
}
