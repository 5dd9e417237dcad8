// The events feed projection (DESIGN.md: GET /v1/pay/events, the merchants' reconciliation
// job): every webhook envelope a commit put in the outbox, by merchant, mode and the
// merchant's event sequence, kept as the exact stored bytes. Invariants kept: a body is
// the outbox's bytes unchanged (a feed read and a webhook delivery never differ); one row
// per (merchant, mode, sequence) — a second one is an error, never an overwrite.
// Retention: an envelope leaves the feed readSideLimits.eventsFeedRetentionMs after it was
// created, measured on the journal's own time (the recorded_at of the entry being applied,
// never a clock), oldest first, a bounded batch per entry; that is a day after the write
// side deletes it and records the merchant's floor (adapters/webhooks/retention.ts), so the
// feed's coverage is always told before the feed stops showing an event. A rebuild replays
// what the write side still holds, so it gives the same tables within the retention.

import { readSideLimits } from '../core/limits.ts';
import type { ProjectionsDb } from './db.ts';
import type { RelayedEntry } from './entry.ts';
import type { Projection } from './projection.ts';

const schema = `
CREATE TABLE IF NOT EXISTS ev_events (
  merchant_id TEXT    NOT NULL,
  livemode    INTEGER NOT NULL,
  sequence    INTEGER NOT NULL,
  id          TEXT    NOT NULL,  -- evt_…
  type        TEXT    NOT NULL,
  journal_seq INTEGER NOT NULL,
  body        TEXT    NOT NULL,  -- the envelope as the outbox stores it
  PRIMARY KEY (merchant_id, livemode, sequence)
);
`;

export const eventsFeed: Projection = {
  name: 'events_feed',
  tables: ['ev_events'],
  schema,
  prepare(db: ProjectionsDb) {
    const insert = db.prepare('INSERT INTO ev_events (merchant_id, livemode, sequence, id, type, journal_seq, body) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const oldest = db.prepare<[number], [number, string]>("SELECT rowid, json_extract(body, '$.created_at') FROM ev_events ORDER BY rowid LIMIT ?").raw(true);
    const drop = db.prepare<[number]>('DELETE FROM ev_events WHERE rowid <= ?');
    /** created_at of the oldest envelope held (ms); null: none; undefined: not read in this transaction. */
    let oldestAt: number | null | undefined;
    const readOldest = () => { const row = oldest.get(1); return row ? Date.parse(row[1]) : null; };
    const { eventsFeedRetentionMs: retention, eventsFeedPruneSlackMs: slack, eventsFeedPruneRowsPerApplyMax: batch } = readSideLimits;
    return {
      apply(entry: RelayedEntry) {
        for (const e of entry.events) insert.run(e.merchantId, e.livemode ? 1 : 0, e.sequence, e.id, e.type, entry.seq, e.body);
        const cutoff = entry.recordedAt - retention;
        if (oldestAt === undefined) oldestAt = readOldest();
        if (oldestAt === null || oldestAt >= cutoff - slack) return;
        const rows = oldest.all(batch);
        let last: number | null = null;
        for (const [rowid, createdAt] of rows) {
          if (!(Date.parse(createdAt) < cutoff)) break; // an unreadable created_at stays too
          last = rowid;
        }
        if (last !== null) drop.run(last);
        oldestAt = readOldest();
      },
      reset() {
        oldestAt = undefined;
      },
    };
  },
};

export interface EventsPage {
  /** Envelope bodies in sequence order, as stored. */
  readonly bodies: readonly string[];
  readonly sequences: readonly number[];
  readonly lastSequence: number | null;
  readonly hasMore: boolean;
}

export class EventsFeedReads {
  private readonly page;
  constructor(db: ProjectionsDb) {
    this.page = db.prepare<[string, number, bigint, number], [number, string]>(
      'SELECT sequence, body FROM ev_events WHERE merchant_id = ? AND livemode = ? AND sequence > ? ORDER BY sequence LIMIT ?').raw(true);
  }

  /** The merchant's events with sequence above `since`, at most `limit`. */
  read(merchantId: string, livemode: boolean, since: bigint, limit: number): EventsPage {
    const rows = this.page.all(merchantId, livemode ? 1 : 0, since, limit + 1);
    const page = rows.slice(0, limit);
    return { bodies: page.map((r) => r[1]), sequences: page.map((r) => r[0]), lastSequence: page.length > 0 ? page[page.length - 1]![0] : null, hasMore: rows.length > limit };
  }
}
