// The world's due-order timer queue: cleared and moved timers leave stale entries that are
// skipped lazily; once they outnumber the pending timers the queue is rebuilt, so its
// memory stays bounded by what is pending while due order is kept exactly.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Timer } from '../../core/journal.ts';
import { World } from '../../core/world.ts';

const timer = (stream: string, dueAt: number): Timer => ({ id: `${stream}:deposit.expire`, stream, kind: 'deposit.expire', dueAt });

test('stale entries from cleared and moved timers stay within three times what is pending', () => {
  const world = new World();
  const keep: Timer[] = [];
  for (let i = 0; i < 20_000; i++) {
    const t = timer(`dep_${i}`, 1_000_000 + ((i * 7919) % 50_000));
    world.setTimer(t);
    if (i % 10 === 0) keep.push(t);
    else if (i % 10 < 5) world.clearTimer(t.id);
    else for (let m = 1; m <= 5; m++) world.setTimer({ ...t, dueAt: t.dueAt + m }); // moved: each old entry goes stale
  }
  const pending = world.timerCount;
  assert.is(pending, 20_000 / 10 + 20_000 / 2);
  assert.ok(world.queuedTimerEntries <= 3 * pending + 4096, `${world.queuedTimerEntries} queue entries for ${pending} pending timers`);
  // Due order survives the rebuilds: every pending timer comes out once, in (dueAt, id) order.
  const due = world.dueTimers(Number.MAX_SAFE_INTEGER, 100_000);
  assert.is(due.length, pending);
  for (let i = 1; i < due.length; i++) {
    const a = due[i - 1]!, b = due[i]!;
    assert.ok(a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.id < b.id), `${a.id}@${a.dueAt} before ${b.id}@${b.dueAt}`);
  }
  assert.equal(new Set(due.map((t) => t.id)).size, pending);
  for (const t of keep) assert.ok(due.some((d) => d.id === t.id && d.dueAt === t.dueAt));
});

test.run();
