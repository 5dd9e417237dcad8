// The events feed projection (DESIGN.md: GET /v1/pay/events, the merchants' reconciliation
// job): every webhook envelope a commit put in the outbox, by merchant, mode and the
// merchant's event sequence, kept as the exact stored bytes. Invariants kept: a body is
// the outbox's bytes unchanged (a feed read and a webhook delivery never differ); one row
// per (merchant, mode, sequence) — a second one is an error, never an overwrite.

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
    return {
      apply(entry: RelayedEntry) {
        for (const e of entry.events) insert.run(e.merchantId, e.livemode ? 1 : 0, e.sequence, e.id, e.type, entry.seq, e.body);
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
