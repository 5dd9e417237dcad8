// Reads journal.db for the read side: entries after a seq, in seq order, each with the
// webhook envelopes (outbox rows) of its commit — what the relay publishes, what a
// rebuild replays and what a projection fills a gap from. Its own read-only connection,
// so it never meddles with the writer's statements or transactions.
//
// The outbox has no index on journal_seq, and the write side's schema is not ours to
// change; but the single writer inserts outbox rows in journal order, so rowid order is
// journal_seq order. A cursor walks the outbox by rowid beside the journal (located by a
// binary search over rowids when a read does not continue the previous one). Invariant
// checked: outbox journal_seq never goes backwards along rowid (asserted).

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { assert } from '../../core/assert.ts';
import type { RelayedEntry, RelayedEvent } from '../../projections/entry.ts';
import type { EntrySource } from '../../projections/gate.ts';

const journalFileName = 'journal.db';
const noEvents: readonly RelayedEvent[] = Object.freeze([]);
/** Outbox rows fetched per statement while walking beside the journal. */
const outboxRowsPerRead = 512;

type EntryRow = [number, string, string, number, string, number | null, string | null, number, string];
type OutboxRow = [number, number, string, string, number, number, string, string];

export class JournalReader implements EntrySource {
  private readonly db: Database.Database;
  private readonly entries;
  private readonly outbox;
  private readonly probe;
  private readonly rowidRange;
  private readonly maxSeq;
  private readonly readTx;
  /** Outbox rows with rowid above `rowid` belong to entries after `afterSeq`. */
  private cursor: { afterSeq: number; rowid: number } | null = null;

  constructor(dataDir: string) {
    this.db = new Database(join(dataDir, journalFileName), { readonly: true, fileMustExist: true });
    this.entries = this.db.prepare<[number, number], EntryRow>(
      'SELECT seq, stream, kind, version, type, livemode, merchant_id, recorded_at, data FROM journal WHERE seq > ? ORDER BY seq LIMIT ?').raw(true);
    this.outbox = this.db.prepare<[number, number], OutboxRow>(
      'SELECT rowid, journal_seq, id, merchant_id, livemode, sequence, type, body FROM outbox WHERE rowid > ? ORDER BY rowid LIMIT ?').raw(true);
    this.probe = this.db.prepare<[number], [number, number]>('SELECT rowid, journal_seq FROM outbox WHERE rowid >= ? ORDER BY rowid LIMIT 1').raw(true);
    this.rowidRange = this.db.prepare<[], [number | null, number | null]>('SELECT min(rowid), max(rowid) FROM outbox').raw(true);
    this.maxSeq = this.db.prepare<[], number | null>('SELECT max(seq) FROM journal').pluck(true);
    this.readTx = this.db.transaction((afterSeq: number, max: number) => this.readNow(afterSeq, max));
  }

  /** The last seq in the journal (0 when empty). */
  tail(): number {
    return this.maxSeq.get() ?? 0;
  }

  /** Whether journal.db holds this entry at its seq: the same stream, version, type and data (a bus message is this journal's). */
  holds(entry: RelayedEntry): boolean {
    const row = this.read(entry.seq - 1, 1)[0];
    return row !== undefined && row.seq === entry.seq && row.stream === entry.stream && row.version === entry.version && row.type === entry.type && row.data === entry.data;
  }

  /** Up to `max` entries after `afterSeq`, with their events; one consistent snapshot. */
  read(afterSeq: number, max: number): RelayedEntry[] {
    return this.readTx.deferred(afterSeq, max);
  }

  close(): void {
    this.db.close();
  }

  private readNow(afterSeq: number, max: number): RelayedEntry[] {
    const rows = this.entries.all(afterSeq, max);
    if (rows.length === 0) return [];
    const uptoSeq = rows[rows.length - 1]![0];
    const events = this.eventsOf(afterSeq, uptoSeq);
    return rows.map(([seq, stream, kind, version, type, livemode, merchantId, recordedAt, data]) => ({
      seq, stream, kind, version, type, livemode: livemode === null ? null : livemode === 1, merchantId, recordedAt, data, events: events.get(seq) ?? noEvents,
    }));
  }

  /** The outbox rows of entries in (afterSeq, uptoSeq], by journal seq. */
  private eventsOf(afterSeq: number, uptoSeq: number): Map<number, RelayedEvent[]> {
    if (this.cursor?.afterSeq !== afterSeq) this.cursor = { afterSeq, rowid: this.locate(afterSeq) };
    const byEntry = new Map<number, RelayedEvent[]>();
    let rowid = this.cursor.rowid;
    outer: for (;;) {
      const rows = this.outbox.all(rowid, outboxRowsPerRead);
      for (const [rid, journalSeq, id, merchantId, livemode, sequence, type, body] of rows) {
        if (journalSeq > uptoSeq) break outer;
        assert(journalSeq > afterSeq, () => `outbox row ${rid} (journal seq ${journalSeq}) is behind the cursor at seq ${afterSeq}: rowid order is not journal order`);
        let list = byEntry.get(journalSeq);
        if (!list) byEntry.set(journalSeq, (list = []));
        list.push({ id, merchantId, livemode: livemode === 1, sequence, type, body });
        rowid = rid;
      }
      if (rows.length < outboxRowsPerRead) break;
    }
    this.cursor = { afterSeq: uptoSeq, rowid };
    return byEntry;
  }

  /** The largest rowid whose row belongs to an entry at or before `afterSeq` (binary search). */
  private locate(afterSeq: number): number {
    const [min, max] = this.rowidRange.get()!;
    if (min === null || max === null) return 0;
    let lo = min, hi = max + 1; // the first rowid with journal_seq > afterSeq lies in [lo, hi]
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const row = this.probe.get(mid);
      if (row === undefined || row[1] > afterSeq) hi = mid;
      else lo = row[0] + 1;
    }
    return lo - 1;
  }
}
