// The Clock port's adapters: the system clock, and a manual clock for tests and demos
// (SATANG_CLOCK=manual) that only moves when told. Invariant kept: the manual clock never
// runs in production (SATANG_ENV=production refuses it) and never goes backwards.
//
// Two clocks, never mixed (DESIGN.md): this Clock is BUSINESS time (order expiry, late-slip
// windows, clearing, approval TTLs, webhook retries, sandbox steps). SECURITY time (operator
// JWT exp/nbf/iat and step-up age, the merchant HMAC window, nonce memory, rate-limit
// windows) is the wall clock, Date.now(), always: an advanced manual clock must never lock
// operators out or widen a replay window, so never pass this Clock to a security check.

import { writeSideLimits } from '../core/limits.ts';
import type { Clock } from '../core/ports.ts';

/**
 * The wall clock, never going back: a step back (NTP, a VM restored) holds time where it
 * was until the wall clock passes it again, so the journal's times never run backwards.
 */
export class SystemClock implements Clock {
  private last = 0;

  now(): number {
    const t = Date.now();
    if (t > this.last) this.last = t;
    return this.last;
  }

  /** Time from here on is at least `ms` (journal.db's last entry, at start). */
  notBefore(ms: number): void {
    if (ms > this.last) this.last = ms;
  }
}

/**
 * journal.db's last entry is later than the system clock by more than
 * writeSideLimits.journalAheadOfClockMsMax: starting would make business time run back
 * (or wait that long). A data dir a manual clock advanced, or a machine whose clock is wrong.
 */
export class ClockBehindJournal extends Error {
  constructor(readonly lastRecordedAt: number, readonly now: number) {
    const hours = ((lastRecordedAt - now) / 3_600_000).toFixed(1);
    super(`journal.db's last entry was recorded at ${new Date(lastRecordedAt).toISOString()}, ${hours} h after this machine's clock (${new Date(now).toISOString()}): on the system clock business time would run back. A data dir run with SATANG_CLOCK=manual and advanced is run so again (SATANG_CLOCK=manual, not in production); otherwise set this machine's clock right (NTP) and start again`);
  }
}

/** The refusal a start on the system clock meets when journal.db's last entry (`lastRecordedAt`) is too far ahead of `now`; undefined when it is not. */
export function clockBehindJournal(lastRecordedAt: number, now: number): ClockBehindJournal | undefined {
  return lastRecordedAt - now > writeSideLimits.journalAheadOfClockMsMax ? new ClockBehindJournal(lastRecordedAt, now) : undefined;
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
