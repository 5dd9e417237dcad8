// What travels on the bus: one journal entry, as journal.db stores it, with the webhook
// envelopes (outbox rows) its commit gave it. The relay builds these from journal.db in
// seq order; projections apply them. Invariants kept: `seq` is the journal's seq (gapless,
// increasing), the Nats-Msg-Id of the message and the key every projection dedupes on;
// `data` is the stored text of the domain event (core's encode()), decoded once per entry;
// an event body is the exact stored bytes of the envelope.

import { decode, type DomainEvent } from '../core/journal.ts';
import { assert } from '../core/assert.ts';

export interface RelayedEvent {
  readonly id: string;
  readonly merchantId: string;
  readonly livemode: boolean;
  /** The merchant's event sequence (per merchant and mode). */
  readonly sequence: number;
  readonly type: string;
  /** The envelope's JSON as the outbox stores it (the bytes every delivery sends). */
  readonly body: string;
}

export interface RelayedEntry {
  readonly seq: number;
  readonly stream: string;
  readonly kind: string;
  readonly version: number;
  readonly type: string;
  readonly livemode: boolean | null;
  readonly merchantId: string | null;
  readonly recordedAt: number;
  readonly data: string;
  readonly events: readonly RelayedEvent[];
}

/** The JetStream stream and its subjects (DESIGN.md, Read side). */
export const journalStreamName = 'SATANG_JOURNAL';
export const journalSubjectPrefix = 'satang.journal';

/** satang.journal.<live|test|system>.<merchant_id|system>.<type> */
export function subjectOf(entry: RelayedEntry): string {
  const mode = entry.livemode === null ? 'system' : entry.livemode ? 'live' : 'test';
  return `${journalSubjectPrefix}.${mode}.${entry.merchantId ?? 'system'}.${entry.type}`;
}

export function encodeEntry(entry: RelayedEntry): string {
  return JSON.stringify(entry);
}

/** Parses a message; a payload that is not a relayed entry is refused (it would be poison). */
export function decodeEntry(text: string): RelayedEntry {
  const e = JSON.parse(text) as RelayedEntry;
  assert(Number.isSafeInteger(e.seq) && e.seq > 0, 'relayed entry: seq');
  assert(typeof e.stream === 'string' && typeof e.type === 'string' && typeof e.data === 'string', 'relayed entry: stream, type, data');
  assert(Array.isArray(e.events), 'relayed entry: events');
  return e;
}

const decoded = new WeakMap<RelayedEntry, DomainEvent>();

/** The domain event of an entry, decoded once however many projections read it. */
export function eventOf(entry: RelayedEntry): DomainEvent {
  let event = decoded.get(entry);
  if (event === undefined) {
    event = decode<DomainEvent>(entry.data);
    decoded.set(entry, event);
  }
  return event;
}

/** The balance transaction an entry posts, if it posts one (the finance projections read only these). */
export function postedTransaction(entry: RelayedEntry): Extract<DomainEvent, { type: 'BalanceTransactionPosted' }>['transaction'] | undefined {
  if (entry.type !== 'BalanceTransactionPosted') return undefined;
  const e = eventOf(entry);
  return e.type === 'BalanceTransactionPosted' ? e.transaction : undefined;
}
