// Event retention (contract Limits: event retention 30 days, resend age limit 30 days). The
// webhook envelopes in journal.db — the outbox's and webhook_events' — and the deliveries
// and attempts made of them are deleted once older than webhookLimits.eventRetentionMs
// (35 days: a resend made on the 30th day is retried for about four more). The journal
// itself is never touched: it holds the money facts; an envelope is what was told of them
// (without them journal.db grows by ≈ 2.5 KB a deposit instead of ≈ 4.8 KB, measured).
// Invariants kept:
// - only a prefix goes, oldest first by rowid (commit order); the walk stops at the first
//   row that must stay, so a batch costs what it deletes, not the size of the table;
// - an outbox envelope goes only once the dispatcher has fanned it out and the relay has
//   published it (both positions are past its journal seq), never while a delivery of an
//   event as old is pending, and the outbox's newest row always stays: the relay walks
//   the outbox by rowid, and an emptied table would give its next row rowid 1;
// - in the transaction that deletes envelopes, event_floors records per merchant and mode
//   the highest sequence deleted: the events feed answers it as coverage.min_since_sequence,
//   so a reconciliation job can tell retention from a loss.

import { webhookLimits } from '../../core/limits.ts';
import type { Db } from '../sqlite/schema.ts';

export interface RetentionBatch {
  /** Outbox envelopes deleted. */
  readonly outbox: number;
  /** webhook_events envelopes deleted (the service's own events). */
  readonly serviceEvents: number;
  /** Deliveries deleted, with their attempts. */
  readonly deliveries: number;
}

type EnvelopeRow = [rowid: number, merchantId: string, livemode: number, sequence: number, createdAt: number, journalSeq: number];

export class EventRetention {
  private readonly s;
  private readonly batch: (nowMs: number, publishedSeq: number) => RetentionBatch;

  private readonly rowsPerBatch: number;
  private readonly retentionMs: number;

  /** The options are the limits' unless a spec makes them small (several batches; a retention of minutes). */
  constructor(db: Db, options: { rowsPerBatch?: number; retentionMs?: number } = {}) {
    this.rowsPerBatch = options.rowsPerBatch ?? webhookLimits.retentionRowsPerBatchMax;
    this.retentionMs = options.retentionMs ?? webhookLimits.eventRetentionMs;
    this.s = {
      outbox: db.prepare<[number], EnvelopeRow>('SELECT rowid, merchant_id, livemode, sequence, created_at, journal_seq FROM outbox ORDER BY rowid LIMIT ?').raw(true),
      outboxNewest: db.prepare<[], number | null>('SELECT max(rowid) FROM outbox').pluck(true),
      deleteOutbox: db.prepare<[number]>('DELETE FROM outbox WHERE rowid <= ?'),
      service: db.prepare<[number], EnvelopeRow>('SELECT rowid, merchant_id, livemode, sequence, created_at, 0 FROM webhook_events ORDER BY rowid LIMIT ?').raw(true),
      deleteService: db.prepare<[number]>('DELETE FROM webhook_events WHERE rowid <= ?'),
      fannedOut: db.prepare<[], number | null>("SELECT position FROM webhook_positions WHERE source = 'outbox'").pluck(true),
      // The partial index of pending deliveries answers this without the table.
      oldestPending: db.prepare<[], number | null>("SELECT min(event_created_at) FROM webhook_deliveries WHERE status = 'pending'").pluck(true),
      deliveries: db.prepare<[number], [number, string, number]>('SELECT rowid, status, created_at FROM webhook_deliveries ORDER BY rowid LIMIT ?').raw(true),
      deleteAttempts: db.prepare<[number]>('DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE rowid <= ?)'),
      deleteDeliveries: db.prepare<[number]>('DELETE FROM webhook_deliveries WHERE rowid <= ?'),
      raiseFloor: db.prepare<[string, number, number]>(`INSERT INTO event_floors (merchant_id, livemode, sequence) VALUES (?, ?, ?)
        ON CONFLICT (merchant_id, livemode) DO UPDATE SET sequence = max(sequence, excluded.sequence)`),
      floor: db.prepare<[string, number], number>('SELECT sequence FROM event_floors WHERE merchant_id = ? AND livemode = ?').pluck(true),
      oldestDeletable: db.prepare<[], number>('SELECT created_at FROM outbox WHERE rowid < (SELECT max(rowid) FROM outbox) ORDER BY rowid LIMIT 1').pluck(true),
    };
    this.batch = db.transaction((nowMs: number, publishedSeq: number) => this.deleteBatch(nowMs, publishedSeq));
  }

  /**
   * Deletes one batch of each table, in one transaction, of what has outlived the retention
   * at `nowMs` (the service clock, as every created_at). `publishedSeq`: the relay's
   * position; envelopes of later journal seqs stay.
   */
  deleteOnce(nowMs: number, publishedSeq: number): RetentionBatch {
    return this.batch(nowMs, publishedSeq);
  }

  /**
   * Deletes batch after batch until nothing more has outlived the retention (or the sweep's
   * bound, or `stopped`), yielding to the event loop between two so requests and commits go on.
   */
  async sweep(nowMs: () => number, publishedSeq: () => number, stopped: () => boolean = () => false): Promise<RetentionBatch> {
    const total = { outbox: 0, serviceEvents: 0, deliveries: 0 };
    for (let i = 0; i < webhookLimits.retentionBatchesPerSweepMax && !stopped(); i++) {
      const b = this.deleteOnce(nowMs(), publishedSeq());
      total.outbox += b.outbox;
      total.serviceEvents += b.serviceEvents;
      total.deliveries += b.deliveries;
      if (b.outbox < this.rowsPerBatch && b.serviceEvents < this.rowsPerBatch && b.deliveries < this.rowsPerBatch) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return total;
  }

  /** The highest sequence of the merchant's events in this mode that retention deleted (0: none). */
  floor(merchantId: string, livemode: boolean): number {
    return this.s.floor.get(merchantId, livemode ? 1 : 0) ?? 0;
  }

  /** created_at of the oldest outbox envelope retention could delete (the newest always stays); null: none. */
  oldestEnvelopeAt(): number | null {
    return this.s.oldestDeletable.get() ?? null;
  }

  private deleteBatch(nowMs: number, publishedSeq: number): RetentionBatch {
    const cutoff = nowMs - this.retentionMs;
    // An event as old as a pending delivery's stays, whichever table holds it: a resend reads its body.
    const horizon = Math.min(cutoff, this.s.oldestPending.get() ?? cutoff);
    const safeSeq = Math.min(publishedSeq, this.s.fannedOut.get() ?? 0);
    const newest = this.s.outboxNewest.get() ?? 0;
    const outbox = this.deleteEnvelopes(this.s.outbox.all(this.rowsPerBatch), (r) => r[4] < horizon && r[5] <= safeSeq && r[0] < newest, this.s.deleteOutbox);
    const serviceEvents = this.deleteEnvelopes(this.s.service.all(this.rowsPerBatch), (r) => r[4] < horizon, this.s.deleteService);
    return { outbox, serviceEvents, deliveries: this.deleteDeliveries(cutoff) };
  }

  /** Deletes the leading rows that may go; raises each merchant's floor to the highest sequence deleted. */
  private deleteEnvelopes(rows: readonly EnvelopeRow[], mayGo: (row: EnvelopeRow) => boolean, remove: { run(rowid: number): unknown }): number {
    let count = 0;
    const floors = new Map<string, [string, number, number]>();
    for (const row of rows) {
      if (!mayGo(row)) break;
      count++;
      const [, merchantId, livemode, sequence] = row;
      const key = `${livemode}\n${merchantId}`;
      const held = floors.get(key);
      if (!held || held[2] < sequence) floors.set(key, [merchantId, livemode, sequence]);
    }
    if (count === 0) return 0;
    remove.run(rows[count - 1]![0]);
    for (const [merchantId, livemode, sequence] of floors.values()) this.s.raiseFloor.run(merchantId, livemode, sequence);
    return count;
  }

  /** Deletes the leading deliveries that are final and older than the cutoff, with their attempts. */
  private deleteDeliveries(cutoff: number): number {
    const rows = this.s.deliveries.all(this.rowsPerBatch);
    let count = 0;
    for (const [, status, createdAt] of rows) {
      if (status === 'pending' || createdAt >= cutoff) break;
      count++;
    }
    if (count === 0) return 0;
    const last = rows[count - 1]![0];
    this.s.deleteAttempts.run(last);
    this.s.deleteDeliveries.run(last);
    return count;
  }
}

export interface SweepSchedule {
  /** The service clock: created_at is on it. */
  readonly now: () => number;
  /** The relay's position. */
  readonly publishedSeq: () => number;
  readonly onSwept: (deleted: RetentionBatch) => void;
  readonly onError: (error: unknown) => void;
}

/** The server's sweeps: at start, every retentionSweepEveryMs and when asked (a manual clock's advance); one at a time. */
export class RetentionSweeps {
  private sweeping = false;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly retention: EventRetention, private readonly schedule: SweepSchedule) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.run(), webhookLimits.retentionSweepEveryMs);
    this.timer.unref();
    setImmediate(() => this.run());
  }

  /** Sweeps now, unless a sweep is running or the sweeps are stopped. */
  run(): void {
    if (this.sweeping || this.stopped) return;
    this.sweeping = true;
    const { now, publishedSeq, onSwept, onError } = this.schedule;
    this.retention.sweep(now, publishedSeq, () => this.stopped).then(onSwept, onError).finally(() => { this.sweeping = false; });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
