// In-memory request quotas, one counter per (bucket, scope key), and the RateLimit-*
// headers every response carries.
//
// Algorithm: a fixed window per key that opens at the key's first request and lasts the
// bucket's window; within it at most `limit` requests are allowed. It is exact, cheap
// (one counter per key) and gives honest Remaining/Reset values; the price is that a
// client can spend up to twice the limit across a window boundary, acceptable for these
// quotas. Refused requests do not count.
//
// Bounds: at most `maxKeys` windows are tracked. Past that the least recently opened
// window is evicted (Map insertion order; a reopened window moves to the end), which
// hands that key a fresh window early: eviction errs towards allowing, never towards
// refusing a client that is within its quota. Time is always an argument (nowMs).

import { ApiError } from './errors.ts';
import { readSideLimits, requestLimits } from '../core/limits.ts';

export interface RateLimitPolicy {
  limit: number;
  windowSeconds: number;
}

export const rateLimitPolicies = {
  pay_write: { limit: 600, windowSeconds: 60 },
  pay_read: { limit: 1200, windowSeconds: 60 },
  slip_upload_subject: { limit: 20, windowSeconds: 60 },
  slip_upload_user: { limit: 20, windowSeconds: 60 },
  // Limits table: webhook resend quota, 10 commands per minute per endpoint.
  webhook_resend: { limit: 10, windowSeconds: 60 },
  // The public webhook support routes (signing keys, test vectors), per client address:
  // no key to count by, and a verifier caches the keys for hours, so this is generous.
  public_read: { limit: 600, windowSeconds: 60 },
  // Refusals of requests without an identity, per client network, on every path (server/app.ts).
  strangers: { limit: 1200, windowSeconds: 60 },
  // Operator routes (/v1/bo), per operator (the token's issuer and sub). The contract shows
  // no quota: room for a person and the console's pages, a ceiling for a runaway script or a
  // stolen token reading the merchants' data page after page.
  bo_read: { limit: 3000, windowSeconds: 60 },
  bo_write: { limit: 600, windowSeconds: 60 },
  // Sandbox balance history (contract: sandbox_rate_limited; its quota is not shown).
  sandbox_history: { limit: readSideLimits.sandboxHistoryRequestsPerWindowMax, windowSeconds: readSideLimits.sandboxHistoryWindowSeconds },
} as const satisfies Record<string, RateLimitPolicy>;

export type BucketName = keyof typeof rateLimitPolicies;

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends (at least 1). */
  resetSeconds: number;
  /** Seconds to wait before retrying; null when allowed. */
  retryAfterSeconds: number | null;
  windowSeconds: number;
}

interface Window {
  startedAtMs: number;
  count: number;
}

export interface RateLimiterOptions {
  maxKeys?: number;
  policies?: Record<BucketName, RateLimitPolicy>;
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly maxKeys: number;
  private readonly policies: Record<BucketName, RateLimitPolicy>;

  constructor(options: RateLimiterOptions = {}) {
    this.maxKeys = options.maxKeys ?? requestLimits.rateLimitTrackedKeysMax;
    if (!Number.isSafeInteger(this.maxKeys) || this.maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');
    this.policies = options.policies ?? rateLimitPolicies;
  }

  /** Counts one request against (bucket, key) if the quota allows it. */
  take(bucket: BucketName, key: string, nowMs: number): RateLimitResult {
    const policy = this.policies[bucket];
    const window = this.currentWindow(bucket, key, nowMs, policy);
    const allowed = window.count < policy.limit;
    if (allowed) window.count += 1;
    return resultOf(policy, window, allowed, nowMs);
  }

  /** Uncounts one request counted by take() in the window still running (one that did nothing: a duplicate in flight). */
  giveBack(bucket: BucketName, key: string, nowMs: number): void {
    const window = this.windows.get(windowKey(bucket, key));
    if (window !== undefined && !hasEnded(window, nowMs, this.policies[bucket]) && window.count > 0) window.count -= 1;
  }

  /** The quota as it stands at nowMs, without counting a request (for headers on other answers). */
  peek(bucket: BucketName, key: string, nowMs: number): RateLimitResult {
    const policy = this.policies[bucket];
    const window = this.windows.get(windowKey(bucket, key));
    const live = window !== undefined && !hasEnded(window, nowMs, policy) ? window : { startedAtMs: nowMs, count: 0 };
    return resultOf(policy, live, live.count < policy.limit, nowMs);
  }

  get trackedKeys(): number {
    return this.windows.size;
  }

  private currentWindow(bucket: BucketName, key: string, nowMs: number, policy: RateLimitPolicy): Window {
    const id = windowKey(bucket, key);
    const existing = this.windows.get(id);
    if (existing !== undefined && !hasEnded(existing, nowMs, policy)) return existing;
    if (existing !== undefined) this.windows.delete(id);
    const opened: Window = { startedAtMs: nowMs, count: 0 };
    this.windows.set(id, opened);
    this.evictBeyondBound();
    return opened;
  }

  private evictBeyondBound(): void {
    while (this.windows.size > this.maxKeys) {
      const oldest = this.windows.keys().next().value;
      if (oldest === undefined) return;
      this.windows.delete(oldest);
    }
  }
}

// Bucket names never contain a space, so this composite key cannot collide.
function windowKey(bucket: BucketName, key: string): string {
  return `${bucket} ${key}`;
}

function hasEnded(window: Window, nowMs: number, policy: RateLimitPolicy): boolean {
  return nowMs >= window.startedAtMs + policy.windowSeconds * 1000;
}

function resultOf(policy: RateLimitPolicy, window: Window, allowed: boolean, nowMs: number): RateLimitResult {
  const windowMs = policy.windowSeconds * 1000;
  // Clamped so that a clock stepping backwards cannot report a reset beyond one window.
  const msLeft = Math.min(windowMs, window.startedAtMs + windowMs - nowMs);
  const resetSeconds = Math.max(1, Math.ceil(msLeft / 1000));
  return {
    allowed,
    limit: policy.limit,
    remaining: Math.max(0, policy.limit - window.count),
    resetSeconds,
    retryAfterSeconds: allowed ? null : resetSeconds,
    windowSeconds: policy.windowSeconds,
  };
}

/** The RateLimit-* headers of the contract's Limits table; Retry-After only on refusal. */
export function rateLimitHeaders(result: RateLimitResult, bucketName: BucketName): Record<string, string> {
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(result.limit),
    'RateLimit-Remaining': String(result.remaining),
    'RateLimit-Reset': String(result.resetSeconds),
    'RateLimit-Policy': `${result.limit};w=${result.windowSeconds}`,
    'X-RateLimit-Scope': bucketName,
  };
  if (result.retryAfterSeconds !== null) headers['Retry-After'] = String(result.retryAfterSeconds);
  return headers;
}

/** The 429 a refused take turns into; `scope` names what the key identifies (e.g. 'api_key'). */
export function rateLimitedError(result: RateLimitResult, bucketName: BucketName, scope: string): ApiError {
  return new ApiError('rate_limited', undefined, { bucket: bucketName, scope }, result.retryAfterSeconds ?? result.resetSeconds);
}
