// The ports core is written against. Adapters implement them: a system or manual clock,
// ULID ids, the SQLite journal. Core never reads the time or draws randomness itself.

import type { Commit } from './journal.ts';

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export interface Ids {
  /** A new unique id with the given type prefix, e.g. next('dep') → 'dep_01J…'. */
  next(prefix: string): string;
}

export interface Journal {
  /** Appends a command's commit atomically; throws if it cannot be made durable. */
  append(commit: Commit, meta: CommitMeta): void;
}

/** What an API call adds to the commit of the command it caused (for the event outbox). */
export interface CommitMeta {
  readonly requestId?: string;
  readonly idempotencyKey?: string;
}
