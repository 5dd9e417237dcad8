// The ports core is written against. Adapters implement them: a system or manual clock,
// ULID ids, the SQLite journal, the slip verifier. Core never reads the time or draws
// randomness itself.

import type { Commit } from './journal.ts';
import type { MerchantEvent } from './outbox.ts';

export type { SlipEvidence, SlipVerdict, SlipVerifier } from './deposit/slip-verifier.ts';

/**
 * Business time: what expiry, windows, clearing, approval TTLs and timers are measured on
 * (tests drive it). Security time (token exp/nbf/iat, the HMAC window, nonces, rate limits)
 * is the wall clock and never this port: two clocks, never mixed (adapters/clock.ts).
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export interface Ids {
  /**
   * A new unique id with the given type prefix, e.g. next('dep', 'mch_…') → 'dep_01J…'.
   * `merchantId` names the merchant whose record the id names: ids of one merchant sort in
   * the order they were made, and share nothing with another merchant's (no run of
   * numbers that counts, or joins, another merchant's work). Without it, the id is the
   * platform's own (white labels, merchants, operator records).
   */
  next(prefix: string, merchantId?: string): string;
}

export interface Journal {
  /**
   * Appends a command's commit, with the merchant-facing events it causes, atomically.
   * The world has already applied it (so the next command sees it); a journal that cannot
   * make it durable must fail loudly, and the writer rebuilds its world from the journal.
   */
  append(commit: Commit, meta: CommitMeta, events: readonly MerchantEvent[]): void;
}

/** What an API call adds to the commit of the command it caused. */
export interface CommitMeta {
  readonly requestId?: string;
  readonly idempotencyKey?: string;
  /**
   * The merchant whose API call this is. A webhook names the request only to that merchant:
   * the withdrawing merchant a deposit fills must not learn the depositor's request id or
   * Idempotency-Key (contract: legs cannot be joined across merchants).
   */
  readonly callerMerchantId?: string;
  /** The idempotency record to store with the commit (the response to replay). */
  readonly idempotency?: IdempotencyRecord;
}

export interface IdempotencyRecord {
  /** Who the key belongs to, e.g. the api key id plus mode. */
  readonly scope: string;
  readonly key: string;
  readonly requestHash: string;
  readonly requestId: string;
  readonly status: number;
  readonly body: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}
