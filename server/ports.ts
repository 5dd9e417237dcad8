// What the HTTP layer needs from the write side and from its own stores, as interfaces:
// the SQLite adapter implements them in production, memory versions serve tests of the
// HTTP layer alone. API keys live outside the journal on purpose: the journal is
// published to the bus, and HMAC secrets must never travel with it.

import type { CommandPort } from '../core/handler/handle.ts';
import type { Clock, IdempotencyRecord, Ids } from '../core/ports.ts';
import type { ReadSide } from './read-side.ts';

export type Scope = 'wallet:read' | 'withdrawals:write' | 'withdrawals:read';
export const allScopes: readonly Scope[] = ['wallet:read', 'withdrawals:write', 'withdrawals:read'];

export interface ApiKey {
  readonly keyId: string;
  readonly secret: string;
  readonly merchantId: string;
  readonly livemode: boolean;
  readonly scopes: readonly Scope[];
  readonly revokedAt: number | null;
  readonly createdAt: number;
}

export interface KeyStore {
  bySecret(secret: string): ApiKey | undefined;
  byId(keyId: string): ApiKey | undefined;
  save(key: ApiKey): void;
  /** Saves a key and the idempotency record of the request that minted it, atomically. */
  saveWithIdempotency(key: ApiKey, record: IdempotencyRecord): void;
  revoke(keyId: string, at: number): void;
  /** A merchant's keys, both modes, revoked ones too, in no order (the back office's list sorts them). */
  forMerchant(merchantId: string): ApiKey[];
}

export interface NonceStore {
  /** Remembers a nonce for its scope; false when it was already seen and has not expired. */
  remember(scope: string, nonce: string, nowMs: number): boolean;
}

export interface IdempotencyStore {
  get(scope: string, key: string, nowMs: number): IdempotencyRecord | undefined;
  /**
   * Stores, durably, the record of a request whose answer is no core command's (a slip
   * token issued again); false when the key holds an unexpired record already.
   */
  keep(record: IdempotencyRecord): boolean;
}

/** The command port (the store's submit, the one door to the journal) and what routes read beside it. */
export interface WriteSide extends CommandPort {
  readonly clock: Clock;
  readonly ids: Ids;
  /**
   * Resolves once every command submitted so far is durable or refused. The world applies a
   * commit at once, the journal's rows follow when it is durable: a read that joins the two
   * (an order's state beside its journal trail) waits for this when they differ.
   */
  caughtUp(): Promise<void>;
  /** Whether a commit that changes the order `id` is not yet durable nor refused (then caughtUp() before showing it). */
  inFlight(id: string): boolean;
  /**
   * Moves a manual clock forward and fires the timers that fall due; absent on the system
   * clock. `keep`, given where the clock stopped, is the request's idempotency record,
   * stored with the clock's mark in one transaction. `request` names the request (its key and
   * seconds): kept with the instant it aims at until answered, so its retry after a crash
   * goes on to that instant.
   */
  advanceClock?(ms: number, keep?: (nowMs: number) => IdempotencyRecord, request?: string): Promise<void>;
}

export interface Services {
  readonly write: WriteSide;
  /**
   * Security time (DESIGN "two clocks"): the HMAC timestamp window, nonce memory and
   * rate-limit windows. Always the wall clock in a served process, even with
   * SATANG_CLOCK=manual; tests may step their own forward.
   */
  readonly securityClock: Clock;
  readonly keys: KeyStore;
  readonly nonces: NonceStore;
  readonly idempotency: IdempotencyStore;
  /** The projections (balance history, events feed, lists); startServer always has one. */
  readonly read?: ReadSide;
  /**
   * Events the service emits outside the journal (webhook.key.rotating,
   * webhook.endpoint.disabled): they take the merchant's sequence too, so the events feed
   * merges them in, or a reconciling merchant would see gaps that never close.
   */
  readonly serviceEvents?: (merchantId: string, livemode: boolean, since: bigint, limit: number) => readonly { sequence: number; body: string }[];
  /** The highest sequence of the merchant's events in this mode that retention deleted (0: none). */
  readonly eventFloor?: (merchantId: string, livemode: boolean) => number;
  /** The merchant's sequence ranges in this mode that a restore's jump passed over (no event ever held one), ascending. */
  readonly sequenceJumps?: (merchantId: string, livemode: boolean) => readonly (readonly [number, number])[];
  /**
   * SATANG_ENV=production (DESIGN.md "Sandbox"): a merchant starts with its sandbox key
   * only, and a live key is issued once a certification run passed. Absent in
   * development, where both keys come at once.
   */
  readonly liveKeys?: { certified(merchantId: string): boolean };
}

// ---- memory versions (tests of the HTTP layer; the embedded default uses SQLite) ----

export class MemoryKeyStore implements KeyStore {
  private readonly keys = new Map<string, ApiKey>();
  private readonly secrets = new Map<string, string>();
  bySecret(secret: string) { const id = this.secrets.get(secret); return id === undefined ? undefined : this.keys.get(id); }
  byId(keyId: string) { return this.keys.get(keyId); }
  save(key: ApiKey) { this.keys.set(key.keyId, key); this.secrets.set(key.secret, key.keyId); }
  saveWithIdempotency(key: ApiKey) { this.save(key); }
  revoke(keyId: string, at: number) { const k = this.keys.get(keyId); if (k) this.keys.set(keyId, { ...k, revokedAt: at }); }
  forMerchant(merchantId: string) { return [...this.keys.values()].filter((k) => k.merchantId === merchantId); }
}

export class MemoryNonceStore implements NonceStore {
  private readonly seen = new Map<string, number>();
  constructor(private readonly memoryMs: number) {}
  remember(scope: string, nonce: string, nowMs: number): boolean {
    const key = `${scope}\u0000${nonce}`;
    const until = this.seen.get(key);
    if (until !== undefined && until > nowMs) return false;
    this.seen.set(key, nowMs + this.memoryMs);
    return true;
  }
}
