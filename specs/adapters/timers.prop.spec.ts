// Durable timers on the manual clock, as a property: whatever the sizes of the steps time
// is advanced in, every timer fires exactly once, at its own due instant, in due order.
// Deposits matched to open withdrawals with random expires_in_seconds set deposit.expire
// timers; expiry sets deposit.close_late_window 24 h later. The journal is the witness:
// one DepositExpired and one LateSlipWindowClosed per deposit, recorded at exactly the
// due times, in (due time, timer id) order; and the reopened store agrees (verify ok, no
// timers left for the deposits).

import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { durations, limits } from '../../core/limits.ts';
import { Scheduler } from '../../adapters/scheduler.ts';
import { verifyStore } from '../../adapters/sqlite/verify.ts';
import { Driver, openTestStore, removeDir, startMs, tempDir } from './support.ts';

const horizonMs = limits.depositExpiresInSecondsMax * 1000 + limits.lateSlipWindowMs;
const legsPerWithdrawal = 9; // below withdrawalMaxSplits, so every deposit finds a leg

async function run(expiresInSeconds: readonly number[], stepsMs: readonly number[], groupCommit: boolean): Promise<void> {
  const dir = tempDir('timers');
  try {
    const { store, clock } = openTestStore(dir, { groupCommit });
    const d = new Driver(store, clock);
    const scheduler = new Scheduler(store);
    const wl = await d.whiteLabel();
    const payer = await d.merchant(wl, 1_000_000_000n);
    const depositor = await d.merchant(wl);
    for (let i = 0; i < Math.ceil(expiresInSeconds.length / legsPerWithdrawal); i++) await d.withdrawal(payer, 10_000_000n);
    const deposits: string[] = [];
    for (const seconds of expiresInSeconds) deposits.push(await d.deposit(depositor, 100_000n, { expiresInSeconds: seconds }));
    for (const id of deposits) assert.is(store.world.deposits.get(id)!.status, 'awaiting_payment');

    let elapsed = 0;
    for (const step of stepsMs) {
      const ms = Math.min(step, horizonMs - elapsed);
      await scheduler.advance(ms);
      elapsed += ms;
    }
    await scheduler.advance(horizonMs - elapsed);
    assert.is(clock.now(), startMs + horizonMs);

    const fired = (type: string) => store.db.prepare('SELECT stream, recorded_at FROM journal WHERE type = ? ORDER BY seq').raw(true).all(type) as [string, number][];
    const expiresAt = new Map(deposits.map((id) => [id, startMs + expiresInSeconds[deposits.indexOf(id)]! * 1000]));
    const dueOrder = (extraMs: number, kind: string) => [...expiresAt].map(([id, at]) => [id, at + extraMs, `${id}:${kind}`] as const)
      .sort((a, b) => a[1] - b[1] || (a[2] < b[2] ? -1 : 1)).map(([id, at]) => [id, at]);
    assert.equal(fired('DepositExpired'), dueOrder(0, 'deposit.expire'));
    assert.equal(fired('LateSlipWindowClosed'), dueOrder(limits.lateSlipWindowMs, 'deposit.close_late_window'));
    const instants = store.db.prepare("SELECT recorded_at FROM journal WHERE type IN ('DepositExpired', 'LateSlipWindowClosed', 'LegReleased') ORDER BY seq").pluck(true).all() as number[];
    assert.equal(instants, [...instants].sort((a, b) => a - b), 'all timers in due order');
    for (const id of deposits) assert.equal(store.world.timersOf(id), []);
    const report = verifyStore(store.db);
    assert.ok(report.ok, JSON.stringify(report.mismatches));
    store.close();
  } finally {
    removeDir(dir);
  }
}

test('advancing the manual clock in random steps fires every timer once, in due order', async () => {
  await fc.assert(fc.asyncProperty(
    fc.array(fc.integer({ min: limits.depositExpiresInSecondsMin, max: limits.depositExpiresInSecondsMax }), { minLength: 1, maxLength: 14 }),
    fc.array(fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 6 * durations.hour })), { maxLength: 30 }),
    fc.boolean(),
    run,
  ), { numRuns: 25 });
});

test('ties: timers due at the same instant fire once each, by timer id', async () => {
  await run([600, 600, 600, 60, 86_400, 86_400], [durations.day * 2], true);
  await run([600, 600, 600, 60, 86_400, 86_400], [1, 599_999, 1, 1], false);
});

test.run();
