// Rate limits of the slip upload route (contract: Limits, "per signed rate_subject plus IP,
// and a per-user bucket of 20 per minute"): the signed rate_subject names the order's end
// user, so one bucket counts per (rate_subject, IP) and one per rate_subject. A request
// whose token cannot be read counts against its IP alone. Both buckets are checked before
// either is spent, so a refused request costs nothing; the headers show the bucket with
// the least left.

import type { Context } from 'koa';
import { RateLimiter, rateLimitedError, rateLimitHeaders, type BucketName, type RateLimitResult } from '../rate-limit.ts';

interface Check { readonly bucket: BucketName; readonly key: string; readonly scope: string }

export class SlipQuota {
  private readonly limiter = new RateLimiter();

  /** Counts the request; returns the RateLimit-* headers, or throws 429 rate_limited (headers set). */
  take(ctx: Context, rateSubject: string | null, nowMs: number): Record<string, string> {
    const checks = checksOf(ctx, rateSubject);
    const blocked = checks.map((c) => ({ c, r: this.limiter.peek(c.bucket, c.key, nowMs) })).find((p) => !p.r.allowed);
    if (blocked) {
      ctx.set(rateLimitHeaders(blocked.r, blocked.c.bucket));
      throw rateLimitedError(blocked.r, blocked.c.bucket, blocked.c.scope);
    }
    let tightest: { c: Check; r: RateLimitResult } | undefined;
    for (const c of checks) {
      const r = this.limiter.take(c.bucket, c.key, nowMs);
      if (!tightest || r.remaining < tightest.r.remaining) tightest = { c, r };
    }
    const headers = rateLimitHeaders(tightest!.r, tightest!.c.bucket);
    ctx.set(headers);
    return headers;
  }

  /**
   * Uncounts a request answered `409 idempotency_in_flight`: the same upload is still being
   * taken, this one did nothing, and the payer's app is told to retry in a second — counted,
   * a double tap's retries used up the end user's 20 a minute before their slip got in.
   */
  giveBack(ctx: Context, rateSubject: string | null, nowMs: number): void {
    for (const c of checksOf(ctx, rateSubject)) this.limiter.giveBack(c.bucket, c.key, nowMs);
  }
}

function checksOf(ctx: Context, rateSubject: string | null): Check[] {
  return rateSubject === null
    ? [{ bucket: 'slip_upload_subject', key: `anonymous ${ctx.ip}`, scope: 'ip' }]
    : [{ bucket: 'slip_upload_subject', key: `${rateSubject} ${ctx.ip}`, scope: 'rate_subject_ip' }, { bucket: 'slip_upload_user', key: rateSubject, scope: 'end_user' }];
}
