// The write side's typed failures. A StateConflict names the contract's error code
// (409, retryable) so the server maps it like any refusal; the others mean the store
// must not be trusted as it stands.

import type { StreamKind } from '../../core/journal.ts';

export type StateConflictCode = 'withdrawal_state_conflict' | 'alloc_state_conflict';

/**
 * Another writer changed a stream this commit was decided against (its version is taken),
 * or the commit depended on a neighbour in its group commit that failed.
 */
export class StateConflict extends Error {
  override name = 'StateConflict';
  readonly code: StateConflictCode;
  constructor(readonly stream: string, readonly streamKind: StreamKind, reason: string) {
    const code = streamKind === 'withdrawal' ? 'withdrawal_state_conflict' : 'alloc_state_conflict';
    super(`${code}: ${reason}`);
    this.code = code;
  }
}

/**
 * A commit not tried: it was decided on a world that a failed commit before it made stale
 * (a full disk, say), or on a neighbour of its group commit that failed. Nothing of it is
 * stored and the world is rebuilt from the journal: the same request may succeed once it is
 * (the server answers 503 and a retry, not the conflict of another writer's change).
 */
export class RefusedAfterFailure extends StateConflict {
  override name = 'RefusedAfterFailure';
}

/** An idempotency record for this scope and key exists and has not expired. */
export class IdempotencyKeyInUse extends Error {
  override name = 'IdempotencyKeyInUse';
  constructor(readonly scope: string, readonly key: string) {
    super(`idempotency key ${key} of ${scope} is already recorded`);
  }
}

/** The hash chain does not hold: the journal was changed behind the service's back. */
export class ChainBroken extends Error {
  override name = 'ChainBroken';
  constructor(readonly seq: number, reason: string) {
    super(`journal hash chain broken at seq ${seq}: ${reason}; refusing to start (run \`scripts/satang verify\`)`);
  }
}

/**
 * SQLite's answers when the disk or the file cannot take a write — full, an I/O error,
 * read-only — as opposed to a refusal or a bug: the webhook dispatcher waits these out and
 * readiness reports them (server/readiness.ts).
 */
export function isStorageFailure(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  return code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN';
}
