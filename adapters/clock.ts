// The Clock port's adapters: the system clock, and a manual clock for tests and demos
// (SATANG_CLOCK=manual) that only moves when told. Invariant kept: the manual clock never
// runs in production (SATANG_ENV=production refuses it) and never goes backwards.
//
// Two clocks, never mixed (DESIGN.md): this Clock is BUSINESS time (order expiry, late-slip
// windows, clearing, approval TTLs, webhook retries, sandbox steps). SECURITY time (operator
// JWT exp/nbf/iat and step-up age, the merchant HMAC window, nonce memory, rate-limit
// windows) is the wall clock, Date.now(), always: an advanced manual clock must never lock
// operators out or widen a replay window, so never pass this Clock to a security check.

import type { Clock } from '../core/ports.ts';

export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }
}

export class ManualClock implements Clock {
  constructor(private ms: number = Date.now()) {}

  now(): number {
    return this.ms;
  }

  /** Moves time forward by `ms` (≥ 0). Firing the timers that fall due is the scheduler's job. */
  advance(ms: number): number {
    if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`manual clock: cannot advance by ${ms} ms`);
    this.ms += ms;
    return this.ms;
  }

  /** Moves time forward to `ms`; an earlier instant is refused. */
  set(ms: number): void {
    if (ms < this.ms) throw new RangeError(`manual clock: ${ms} is before ${this.ms}`);
    this.ms = ms;
  }
}

/** The clock SATANG_CLOCK names (system by default); manual is refused when SATANG_ENV=production. */
export function clockFromEnv(env: NodeJS.ProcessEnv = process.env): SystemClock | ManualClock {
  const kind = env.SATANG_CLOCK ?? 'system';
  if (kind === 'system') return new SystemClock();
  if (kind !== 'manual') throw new Error(`SATANG_CLOCK must be system or manual, not ${kind}`);
  if (env.SATANG_ENV === 'production') throw new Error('SATANG_CLOCK=manual is refused when SATANG_ENV=production');
  return new ManualClock();
}
