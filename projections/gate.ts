// Between a bus and a projection's applier: takes deliveries in the order the bus hands
// them over, applies them in batches, acknowledges what is applied (or was a duplicate),
// and handles the three things that break the order. The same code runs on the
// in-process bus and on a NATS JetStream durable consumer.
//
// - A failed entry: its attempts are counted (the bus's delivery count, and a durable
//   count in projections.db so the bound survives restarts). Below deliveriesMax it is
//   handed back (nak) after a backoff together with every delivery behind it, in order,
//   and whatever arrives later than it is handed back too until it returns: the bus
//   redelivers in the order of the naks, so nothing overtakes it. At deliveriesMax it is
//   parked with its error (logged and shown by `projections status`) and the rest goes on.
// - A gap (an entry beyond position + 1: a restart's redeliveries still pending, a
//   re-created stream, a lost publish): the missing entries are read from the journal, the
//   source of truth, and applied before it.
// - A duplicate (at or below the position): acknowledged and dropped.
//
// Invariants kept: never an entry applied twice or skipped (the applier's position check);
// an entry is acknowledged only once its effects (or its parking) are committed.

import { readSideLimits } from '../core/limits.ts';
import { describe, type Applier } from './applier.ts';
import type { RelayedEntry } from './entry.ts';

export interface Delivery {
  readonly entry: RelayedEntry;
  /** 1 on the first delivery. */
  readonly deliveryCount: number;
  ack(): void;
  /** Hands it back: the bus delivers it again, after the deliveries already handed back. */
  nak(): void;
}

/** Journal entries after a seq, in order (the journal reader). */
export interface EntrySource {
  read(afterSeq: number, max: number): RelayedEntry[];
}

/** The logger the read side writes to (pino's shape). */
export interface ReadSideLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface GateOptions {
  readonly source: EntrySource;
  readonly log: ReadSideLog;
  readonly deliveriesMax?: number;
  readonly backoffMs?: readonly number[];
}

type FillResult =
  | { readonly ok: true; readonly done: boolean }
  | { readonly ok: false; readonly entry?: RelayedEntry; readonly error: unknown };

export class Gate {
  private inbox: Delivery[] = [];
  private backoff: NodeJS.Timeout | null = null;
  /** Set while a long gap fill yields to the event loop between chunks. */
  private yielding: NodeJS.Immediate | null = null;
  private awaiting: { readonly seq: number; readonly timer: NodeJS.Timeout } | null = null;
  private stopped = false;
  private readonly deliveriesMax: number;
  private readonly backoffMs: readonly number[];

  constructor(private readonly applier: Applier, private readonly options: GateOptions) {
    this.deliveriesMax = options.deliveriesMax ?? readSideLimits.deliveriesMax;
    this.backoffMs = options.backoffMs ?? readSideLimits.redeliveryBackoffMs;
  }

  receive(deliveries: readonly Delivery[]): void {
    if (this.stopped) return; // unacknowledged: the bus gives them to whoever runs next
    for (const d of deliveries) this.inbox.push(d);
    this.drain();
  }

  /** Stops taking deliveries; those held are left unacknowledged. */
  stop(): void {
    this.stopped = true;
    if (this.backoff) clearTimeout(this.backoff);
    if (this.yielding) clearImmediate(this.yielding);
    if (this.awaiting) clearTimeout(this.awaiting.timer);
    this.backoff = null;
    this.yielding = null;
    this.awaiting = null;
    this.inbox = [];
  }

  private drain(): void {
    while (this.inbox.length > 0 && this.backoff === null && this.yielding === null && !this.stopped) {
      const batch = this.take();
      if (batch.length > 0) this.applyBatch(batch);
    }
  }

  /** The next deliveries to apply; those behind an awaited redelivery are handed back. */
  private take(): Delivery[] {
    const batch: Delivery[] = [];
    let i = 0;
    for (; i < this.inbox.length && batch.length < readSideLimits.applyEntriesPerTransactionMax; i++) {
      const d = this.inbox[i]!;
      if (this.awaiting) {
        if (d.entry.seq === this.awaiting.seq) this.stopAwaiting();
        else if (d.entry.seq > this.awaiting.seq) { d.nak(); continue; }
      }
      batch.push(d);
    }
    this.inbox = i === this.inbox.length ? [] : this.inbox.slice(i);
    return batch;
  }

  private applyBatch(batch: readonly Delivery[]): void {
    let result;
    try {
      result = this.applier.applyRun(batch.map((d) => d.entry));
    } catch (error) {
      // Not the entry's fault (the database is locked or unwritable): nothing was applied;
      // try the same deliveries again later, without counting it against them.
      this.options.log.error({ projection: this.applier.name, seq: batch[0]!.entry.seq, err: describe(error) }, 'projection cannot write; retrying');
      this.retryLater(batch[0]!, batch.slice(1), this.backoffMs[this.backoffMs.length - 1]!);
      return;
    }
    for (let k = 0; k < result.consumed; k++) batch[k]!.ack();
    if (result.outcome === 'done') return;
    const carrier = batch[result.consumed]!;
    const rest = batch.slice(result.consumed + 1);
    if (result.outcome === 'failed') {
      this.failed(carrier.entry, result.error, carrier.deliveryCount, carrier, rest);
      return;
    }
    const filled = this.fill(carrier.entry.seq - 1);
    if (filled.ok) {
      this.inbox = [carrier, ...rest, ...this.inbox];
      // A long gap (a rebuild under way, a long outage) is filled a chunk per turn, so that
      // the thread it runs on keeps serving its other work meanwhile (wake-ups and stops on
      // the read side's worker; requests where it shares the API's thread).
      if (!filled.done) this.yielding = setImmediate(() => { this.yielding = null; this.drain(); });
    } else if (filled.entry) this.failed(filled.entry, filled.error, 0, carrier, rest);
    else {
      this.options.log.error({ projection: this.applier.name, seq: carrier.entry.seq, err: describe(filled.error) }, 'projection cannot fill a gap from the journal; retrying');
      this.retryLater(carrier, rest, this.backoffMs[this.backoffMs.length - 1]!);
    }
  }

  /** `entry` failed; `carrier` is the delivery that brought it about (the entry itself, or one after a gap). */
  private failed(entry: RelayedEntry, error: unknown, deliveryCount: number, carrier: Delivery, rest: readonly Delivery[]): void {
    const attempts = Math.max(deliveryCount, this.applier.recordFailure(entry.seq, error));
    const fields = { projection: this.applier.name, seq: entry.seq, type: entry.type, stream: entry.stream, attempts, err: describe(error) };
    if (attempts >= this.deliveriesMax) {
      this.applier.park(entry, error, attempts);
      this.options.log.error(fields, 'projection parked a poison entry (see `scripts/satang projections status`)');
      this.inbox = [carrier, ...rest, ...this.inbox]; // the carrier is now a duplicate, or follows
      return;
    }
    this.options.log.warn(fields, 'projection entry failed; it will be delivered again');
    this.retryLater(carrier, rest, this.backoffMs[Math.min(attempts, this.backoffMs.length) - 1]!);
  }

  /** After `delayMs`, hands back the carrier and everything behind it, in order, and waits for it. */
  private retryLater(carrier: Delivery, rest: readonly Delivery[], delayMs: number): void {
    const held = [carrier, ...rest, ...this.inbox];
    this.inbox = [];
    this.backoff = setTimeout(() => {
      this.backoff = null;
      if (this.stopped) return;
      for (const d of held) d.nak();
      this.await(carrier.entry.seq);
      this.drain();
    }, delayMs);
  }

  private await(seq: number): void {
    this.stopAwaiting();
    const timer = setTimeout(() => {
      // A redelivery that never came (the consumer was reset): the next delivery after the
      // gap fills it from the journal.
      this.options.log.warn({ projection: this.applier.name, seq }, 'projection stopped waiting for a redelivery');
      this.awaiting = null;
    }, readSideLimits.redeliveryAwaitMsMax);
    timer.unref();
    this.awaiting = { seq, timer };
  }

  private stopAwaiting(): void {
    if (this.awaiting) clearTimeout(this.awaiting.timer);
    this.awaiting = null;
  }

  /**
   * Applies journal entries from the position towards `uptoSeq` (the entries a gap lacks),
   * at most gapFillEntriesPerTurnMax of them; done once the position has reached it.
   */
  private fill(uptoSeq: number): FillResult {
    let filled = 0;
    try {
      for (;;) {
        const position = this.applier.position();
        if (position >= uptoSeq) break;
        if (filled >= readSideLimits.gapFillEntriesPerTurnMax) {
          this.options.log.info({ projection: this.applier.name, entries: filled, at: position, upto: uptoSeq }, 'projection is filling a gap from the journal');
          return { ok: true, done: false };
        }
        const chunk = this.options.source.read(position, Math.min(readSideLimits.applyEntriesPerTransactionMax, uptoSeq - position));
        if (chunk.length === 0) return { ok: false, error: new Error(`the journal has no entries after ${position}`) };
        const result = this.applier.applyRun(chunk);
        filled += result.consumed;
        if (result.outcome === 'failed') return { ok: false, entry: chunk[result.consumed]!, error: result.error };
        if (result.outcome === 'gap') return { ok: false, error: new Error(`the journal skips from ${result.position} to ${chunk[result.consumed]!.seq}`) };
      }
    } catch (error) {
      return { ok: false, error };
    }
    if (filled > 0) this.options.log.info({ projection: this.applier.name, entries: filled, upto: uptoSeq }, 'projection filled a gap from the journal');
    return { ok: true, done: true };
  }
}
