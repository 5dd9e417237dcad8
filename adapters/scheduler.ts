// Fires durable timers: each due timer becomes an ordinary FireTimer command through
// CommandHandler.fireDueTimers. On the system clock a setTimeout waits for the world's next
// due time (looking again at least every schedulerPollMsMax, and at once after poke());
// on the manual clock advance(ms) moves time to each due instant in turn and fires what
// falls due there. Invariants kept: timers fire in due order, each once (a fired timer is
// cleared or moved by its own commit); a tick fires a bounded batch, then yields.

import type { CommandHandler } from '../core/handler/handle.ts';
import type { Clock } from '../core/ports.ts';
import { ManualClock } from './clock.ts';
import { writeSideLimits } from '../core/limits.ts';

export interface TimerHost {
  readonly clock: Clock;
  /** The current handler (a store swaps it when it rebuilds its world). */
  readonly handler: CommandHandler;
  /** Runs fn and returns the promise that every commit it appended is durable. */
  capture<T>(fn: () => T): { result: T; durable: Promise<void> };
}

export class Scheduler {
  private timeout: NodeJS.Timeout | null = null;
  private running = false;
  private ticking = false;

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
      const { result, durable } = this.host.capture(() => this.host.handler.fireDueTimers(writeSideLimits.schedulerTimersPerTickMax));
      await durable;
      return result;
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
    const { result: fired, durable } = this.host.capture(() => {
      let count = 0;
      for (;;) {
        const next = this.host.handler.world.nextTimerDueAt();
        if (next === undefined || next > target) break;
        if (next > clock.now()) clock.set(next);
        count += this.host.handler.fireDueTimers(1);
        if (count > writeSideLimits.advanceTimersMax) throw new Error(`advance: more than ${writeSideLimits.advanceTimersMax} timers fired; a timer keeps falling due`);
      }
      return count;
    });
    clock.set(target);
    await durable;
    this.poke();
    return fired;
  }

  private arm(): void {
    if (this.timeout) clearTimeout(this.timeout);
    this.timeout = null;
    if (!this.running) return;
    const next = this.host.handler.world.nextTimerDueAt();
    const wait = next === undefined ? writeSideLimits.schedulerPollMsMax : Math.min(writeSideLimits.schedulerPollMsMax, Math.max(0, next - this.host.clock.now()));
    this.timeout = setTimeout(() => {
      this.timeout = null;
      this.tick().catch(this.onError).finally(() => this.arm());
    }, wait);
    this.timeout.unref();
  }
}
