// The scheduler's running mode (setTimeout to the world's next due time, re-armed by
// poke()) on a real store, the clock adapters and their production guard, and the ULID ids.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limits } from '../../core/limits.ts';
import { clockFromEnv, ManualClock, SystemClock } from '../../adapters/clock.ts';
import { UlidIds } from '../../adapters/ids.ts';
import { Scheduler } from '../../adapters/scheduler.ts';
import { Driver, openTestStore, removeDir, tempDir } from './support.ts';

test('a started scheduler fires timers that fell due, once, and stops when told', async () => {
  const dir = tempDir('scheduler');
  try {
    const { store, clock } = openTestStore(dir);
    const d = new Driver(store, clock);
    const merchant = await d.merchant(await d.whiteLabel());
    const waiting = await d.deposit(merchant, 100_000n); // no withdrawals: awaiting_liquidity, liquidity wait timer
    const errors: unknown[] = [];
    const scheduler = new Scheduler(store, (e) => errors.push(e));
    scheduler.start();
    clock.advance(limits.liquidityWaitMs);
    scheduler.poke();
    for (let i = 0; i < 200 && store.world.deposits.get(waiting)!.status !== 'canceled'; i++) await new Promise((r) => setTimeout(r, 5));
    await store.journal.flushed();
    scheduler.stop();
    assert.equal(errors, []);
    assert.is(store.world.deposits.get(waiting)!.status, 'canceled');
    assert.is(store.db.prepare("SELECT COUNT(*) FROM journal WHERE type = 'DepositCanceled'").pluck(true).get(), 1);
    assert.is(store.db.prepare('SELECT COUNT(*) FROM timers').pluck(true).get(), 0);
    store.close();
  } finally {
    removeDir(dir);
  }
});

test('timers whose commits fail (a full disk) are tried again after a growing wait, not at once in a loop; a commit that succeeds ends the wait', async () => {
  let failing = true;
  let submitted = 0;
  const errors: unknown[] = [];
  // A timer always due, and a store that cannot commit: each failure is a rebuild of the world on a real server.
  // (A fired timer leaves the world's due list as it is decided, until its commit fails: one per tick here.)
  let inFlight = false;
  const host = {
    clock: new SystemClock(),
    world: { nextTimerDueAt: () => 0, dueTimers: () => (inFlight ? [] : [{ id: 'tmr_due' }]) },
    submit: () => {
      submitted++;
      inFlight = true;
      const durable = failing ? Promise.reject(new Error('database or disk is full')) : Promise.resolve();
      return { durable: durable.finally(() => { inFlight = false; }) };
    },
  } as unknown as ConstructorParameters<typeof Scheduler>[0];
  const scheduler = new Scheduler(host, (e) => errors.push(e));
  scheduler.start();
  await new Promise((r) => setTimeout(r, 2_500));
  const whileFull = submitted;
  // At once, then 1 s later (the next would be 2 s after that): it was hundreds a second.
  assert.ok(whileFull >= 2 && whileFull <= 3, `${whileFull} tries in 2.5 s`);
  assert.is(errors.length, whileFull);
  failing = false;
  await new Promise((r) => setTimeout(r, 2_500)); // the wait in force (2 s), then a tick that commits
  scheduler.stop();
  assert.ok(submitted > whileFull, 'tried again once the wait was over');
  assert.is(errors.length, whileFull, 'and it committed');
});

test('advance() needs the manual clock', async () => {
  const dir = tempDir('scheduler');
  try {
    const { store } = openTestStore(dir);
    const scheduler = new Scheduler({ clock: new SystemClock(), get world() { return store.world; }, submit: store.submit.bind(store) });
    let message = '';
    try { await scheduler.advance(1000); } catch (e) { message = (e as Error).message; }
    assert.match(message, /manual clock/);
    store.close();
  } finally {
    removeDir(dir);
  }
});

test('SATANG_CLOCK picks the clock; manual is refused in production', () => {
  assert.instance(clockFromEnv({}), SystemClock);
  assert.instance(clockFromEnv({ SATANG_CLOCK: 'manual' }), ManualClock);
  assert.throws(() => clockFromEnv({ SATANG_CLOCK: 'manual', SATANG_ENV: 'production' }), /production/);
  assert.throws(() => clockFromEnv({ SATANG_CLOCK: 'sundial' }), /system or manual/);
  const clock = new ManualClock(1000);
  assert.is(clock.advance(500), 1500);
  assert.throws(() => clock.advance(-1));
  assert.throws(() => clock.set(1499));
});

test('ids are prefixed ULIDs, increasing within a millisecond', () => {
  const ids = new UlidIds();
  const made = Array.from({ length: 1000 }, () => ids.next('dep'));
  for (const id of made) assert.match(id, /^dep_[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.equal([...made].sort(), made);
  assert.is(new Set(made).size, made.length);
});

test.run();
