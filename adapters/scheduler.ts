// Fires durable timers: each due timer becomes an ordinary FireTimer command, submitted
// through the command port like any other (the store's submit). On the system clock a setTimeout waits for the world's next
// due time (looking again at least every schedulerPollMsMax, and at once after poke());
// on the manual clock advance(ms) moves time to each due instant in turn and fires what
// falls due there. Invariants kept: timers fire in due order, each once (a fired timer is
// cleared or moved by its own commit); a tick fires a bounded batch, then yields.

import type { CommandPort } from '../core/handler/handle.ts';
import type { Clock } from '../core/ports.ts';
import { ManualClock } from './clock.ts';
import { writeSideLimits } from '../core/limits.ts';

/** The command port the timers are submitted to, and the business clock they fall due on. */
export interface TimerHost extends CommandPort {
  readonly clock: Clock;
}

export class Scheduler {
  private timeout: NodeJS.Timeout | null = null;
  private running = false;
  private ticking = false;
  /** Ticks in a row whose commits failed: the next waits the longer (writeSideLimits.schedulerFailureBackoffMs*). */
  private failures = 0;

  constructor(private readonly host: TimerHost, private readonly onError: (error: unknown) => void = () => {}) {}

  start(): void {
    this.running = true;
    this.arm();
  }

  stop(): void {
    this.running = false;
    if (this.timeout) clearTimeout(this.timeout);
    this.timeout = null;
  }

  /** Looks at the next due time again (after a command that may have set an earlier timer). */
  poke(): void {
    if (!this.ticking) this.arm();
  }

  /** Fires the timers due now, at most schedulerTimersPerTickMax; resolves when they are durable. */
  async tick(): Promise<number> {
    this.ticking = true;
    try {
      const durables: Promise<void>[] = [];
      while (durables.length < writeSideLimits.schedulerTimersPerTickMax && this.fireNextDue(durables)) { /* fired one */ }
      await Promise.all(durables);
      return durables.length;
    } finally {
      this.ticking = false;
    }
  }

  /**
   * Manual clock only: moves time forward by `ms`, firing every timer that falls due on the
   * way in due order — the clock stops at each due instant in turn, so a timer never sees a
   * later time than its own. Resolves with how many fired, once their commits are durable.
   */
  async advance(ms: number): Promise<number> {
    const clock = this.host.clock;
    if (!(clock instanceof ManualClock)) throw new Error('advance() needs the manual clock (SATANG_CLOCK=manual)');
    const target = clock.now() + ms;
    const durables: Promise<void>[] = [];
    let fired = 0;
    this.ticking = true; // no tick of its own meanwhile: the advance fires in due order alone
    try {
      for (;;) {
        const next = this.host.world.nextTimerDueAt();
        if (next === undefined || next > target) break;
        if (next > clock.now()) clock.set(next);
        this.fireNextDue(durables);
        if (++fired > writeSideLimits.advanceTimersMax) throw new Error(`advance: more than ${writeSideLimits.advanceTimersMax} timers fired; a timer keeps falling due`);
        // A long advance (thousands of deposits expiring) is made durable a slice at a
        // time, so the commits waiting to be written stay bounded.
        if (durables.length === writeSideLimits.groupCommitCommandsMax) await Promise.all(durables.splice(0));
      }
      clock.set(target);
      await Promise.all(durables);
    } finally {
      this.ticking = false;
    }
    this.poke();
    return fired;
  }

  /** Submits the earliest timer due now as a FireTimer command; false when none is due. */
  private fireNextDue(durables: Promise<void>[]): boolean {
    const due = this.host.world.dueTimers(this.host.clock.now(), 1)[0];
    if (!due) return false;
    durables.push(this.host.submit({ type: 'FireTimer', actor: { kind: 'system' }, timerId: due.id }).durable);
    return true;
  }

  /** How long to wait after `failures` failed ticks in a row: doubling from the min to the max. */
  private backoffMs(): number {
    const { schedulerFailureBackoffMsMin: min, schedulerFailureBackoffMsMax: max } = writeSideLimits;
    return Math.min(max, min * 2 ** Math.min(this.failures - 1, 16));
  }

  private arm(): void {
    if (this.timeout) clearTimeout(this.timeout);
    this.timeout = null;
    if (!this.running) return;
    const next = this.host.world.nextTimerDueAt();
    const due = next === undefined ? writeSideLimits.schedulerPollMsMax : Math.min(writeSideLimits.schedulerPollMsMax, Math.max(0, next - this.host.clock.now()));
    const wait = this.failures === 0 ? due : Math.max(due, this.backoffMs());
    this.timeout = setTimeout(() => {
      this.timeout = null;
      this.tick().then(
        () => { this.failures = 0; },
        (error: unknown) => { this.failures++; this.onError(error); },
      ).finally(() => this.arm());
    }, wait);
    this.timeout.unref();
  }
}
