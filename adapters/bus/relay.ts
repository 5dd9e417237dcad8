// The relay: reads the journal by seq and publishes each entry to the bus (NATS JetStream
// or the in-process bus), after commit and outside any request — it is woken after
// commits and also looks at the journal's tail every relayPollMs. Invariants kept:
// entries are published in seq order, each batch only after the previous one was
// acknowledged; the position (persisted in projections.db) moves only past acknowledged
// entries, so a crash or an outage re-publishes from the last acknowledged seq (the
// message id = journal seq lets JetStream drop what it already has, and projections drop
// duplicates themselves); a bus that is down never holds up a write — the relay retries
// every relayRetryMs and catches up when the bus returns.

import { readSideLimits } from '../../core/limits.ts';
import type { RelayedEntry } from '../../projections/entry.ts';
import type { ReadSideLog } from '../../projections/gate.ts';
import type { JournalReader } from './journal-reader.ts';

export interface Publisher {
  /** False while the bus cannot take anything (not connected yet, or lost); absent = always. */
  readonly ready?: boolean;
  /** Resolves once the bus has acknowledged every entry (rejects when it has not). */
  publish(entries: readonly RelayedEntry[]): Promise<void>;
}

export interface RelayPositionStore {
  load(bus: string): number;
  save(bus: string, seq: number): void;
}

/** What the server holds of a relay, whether it runs on its thread or on a worker thread. */
export interface RelayControl {
  /** The last seq the bus acknowledged (as last reported). */
  readonly position: number;
  start(): void;
  wake(): void;
  stop(): Promise<void>;
}

export interface RelayOptions {
  /** The bus's name, the key of its position ('inprocess', 'nats'). */
  readonly bus: string;
  /** The journal's durable tail (the writer's last committed seq). */
  readonly tail: () => number;
  readonly log: ReadSideLog;
  /** Start at most here even if the stored position is further (a bus without memory). */
  readonly startAtMost?: number;
  /** Told each time the position moves. */
  readonly onPosition?: (seq: number) => void;
}

export class Relay implements RelayControl {
  private positionSeq: number;
  private pumping = false;
  private again = false;
  private stopped = true;
  private poll: NodeJS.Timeout | null = null;
  private retry: NodeJS.Timeout | null = null;
  private rewind: number | null = null;
  private failingSince: number | null = null;
  private current: Promise<void> = Promise.resolve();

  constructor(private readonly reader: JournalReader, private readonly publisher: Publisher, private readonly positions: RelayPositionStore, private readonly options: RelayOptions) {
    const stored = positions.load(options.bus);
    this.positionSeq = options.startAtMost === undefined ? stored : Math.min(stored, options.startAtMost);
  }

  /** The last seq the bus acknowledged. */
  get position(): number {
    return this.positionSeq;
  }

  start(): void {
    this.stopped = false;
    this.poll = setInterval(() => { if (this.options.tail() > this.positionSeq) this.wake(); }, readSideLimits.relayPollMs);
    this.poll.unref();
    this.wake();
  }

  /** A commit is durable: publish what follows the position. */
  wake(): void {
    if (this.stopped) return;
    if (this.pumping) { this.again = true; return; }
    this.current = this.pump();
  }

  /** The bus holds nothing after `seq` (a new or re-created stream): publish again from there. */
  rewindTo(seq: number): void {
    if (seq >= this.positionSeq && !this.pumping) return;
    this.rewind = Math.min(seq, this.rewind ?? seq);
    if (!this.pumping) this.applyRewind();
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.poll) clearInterval(this.poll);
    if (this.retry) clearTimeout(this.retry);
    this.poll = this.retry = null;
    await this.current;
  }

  private applyRewind(): void {
    if (this.rewind === null) return;
    if (this.rewind < this.positionSeq) {
      this.options.log.info({ bus: this.options.bus, from: this.positionSeq, to: this.rewind }, 'relay publishes again from an earlier seq');
      this.positionSeq = this.rewind;
      this.positions.save(this.options.bus, this.positionSeq);
    }
    this.rewind = null;
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      do {
        this.again = false;
        while (!this.stopped && this.publisher.ready !== false && this.options.tail() > this.positionSeq) {
          const batch = this.reader.read(this.positionSeq, readSideLimits.relayBatchEntriesMax);
          if (batch.length === 0) break;
          await this.publisher.publish(batch);
          this.positionSeq = batch[batch.length - 1]!.seq;
          this.applyRewind();
          this.positions.save(this.options.bus, this.positionSeq);
          this.options.onPosition?.(this.positionSeq);
          this.recovered();
        }
      } while (this.again && !this.stopped);
    } catch (error) {
      this.applyRewind();
      this.failed(error);
    } finally {
      this.pumping = false;
    }
  }

  private failed(error: unknown): void {
    if (this.failingSince === null) {
      this.failingSince = Date.now();
      this.options.log.warn({ bus: this.options.bus, position: this.positionSeq, err: error instanceof Error ? error.message : String(error) }, 'relay cannot publish; writes go on, it retries');
    }
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => { this.retry = null; this.wake(); }, readSideLimits.relayRetryMs);
    this.retry.unref();
  }

  private recovered(): void {
    if (this.failingSince === null) return;
    this.options.log.info({ bus: this.options.bus, position: this.positionSeq, down_ms: Date.now() - this.failingSince }, 'relay publishes again');
    this.failingSince = null;
  }
}
