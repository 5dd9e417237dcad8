// The pipelined write path (adapters/sqlite/wal-sync.ts): a group commit is written to the
// WAL without SQLite's fsync and answered only after an fdatasync of the WAL that began
// after it committed; while that sync runs, the next commands are decided and written.
// The fdatasync is held by the spec (a real one runs after it is released), so what is
// answered before and after it is observable.

import { fdatasync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../adapters/clock.ts';
import { UlidIds } from '../../adapters/ids.ts';
import { openStore, type Store } from '../../adapters/sqlite/store.ts';
import { OutboxEventSource, DurableSignal } from '../../adapters/webhooks/events.ts';
import { Driver, operator, removeDir, startMs, tempDir } from './support.ts';

const dirs: string[] = [];
test.after(() => { for (const d of dirs) removeDir(d); });

/** An fdatasync the spec releases by hand (then the real one runs), or fails. */
class HeldSync {
  readonly calls: { fd: number; done: (error: unknown) => void }[] = [];
  holding = false;
  readonly fn = (fd: number, done: (error: unknown) => void) => {
    if (this.holding) this.calls.push({ fd, done });
    else fdatasync(fd, done);
  };
  release(): void {
    const call = this.calls.shift()!;
    fdatasync(call.fd, call.done);
  }
  fail(): void {
    this.calls.shift()!.done(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
  }
}

function open(sync: HeldSync, lost: unknown[] = []): { store: Store; d: Driver; dir: string } {
  const dir = tempDir('walsync');
  dirs.push(dir);
  const clock = new ManualClock(startMs);
  const store = openStore(dir, { clock, ids: new UlidIds(), groupCommit: true, syncWal: sync.fn, onDurabilityLost: (e) => lost.push(e) });
  return { store, d: new Driver(store, clock), dir };
}

async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return String(error);
  }
  return 'resolved';
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const whiteLabel = () => ({ type: 'RegisterWhiteLabel' as const, actor: operator(), name: 'Brand' });

/** Which of the promises have settled, after letting the event loop run. */
async function settledFlags(promises: Promise<unknown>[]): Promise<boolean[]> {
  const flags = promises.map(() => false);
  promises.forEach((p, i) => p.then(() => { flags[i] = true; }, () => { flags[i] = true; }));
  for (let i = 0; i < 5; i++) await tick();
  return flags;
}

test('a group commit is answered only after the WAL is synced, and readers see no further than the durable tail', async () => {
  const sync = new HeldSync();
  const { store, dir } = open(sync);
  await store.submit(whiteLabel()).durable;
  const before = store.world.lastSeq;
  sync.holding = true;
  const first = store.submit(whiteLabel());
  assert.equal(await settledFlags([first.durable]), [false], 'not answered while the fdatasync has not finished');
  assert.is(sync.calls.length, 1);
  assert.is(store.world.lastSeq, before + 1, 'committed to the WAL');
  assert.is(store.durableSeq, before, 'but not yet durable');
  const other = new Database(join(dir, 'journal.db'), { readonly: true });
  assert.is(other.prepare('SELECT MAX(seq) FROM journal').pluck(true).get(), before + 1, 'another connection sees the committed row');
  other.close();
  const outbox = new OutboxEventSource(store.db, new DurableSignal(), () => store.durableSeq);
  assert.equal(outbox.read(before, 10), [], 'the webhook reader does not read past the durable tail');
  sync.release();
  await first.durable;
  assert.is(store.durableSeq, before + 1);
  store.close();
});

test('while one batch syncs the next is decided and written; one fdatasync then covers every batch committed meanwhile', async () => {
  const sync = new HeldSync();
  const { store } = open(sync);
  sync.holding = true;
  const a = store.submit(whiteLabel());
  await tick();
  assert.is(sync.calls.length, 1, 'batch A is syncing');
  const b = store.submit(whiteLabel());
  await tick();
  const c = store.submit(whiteLabel());
  await tick();
  assert.is(store.world.lastSeq, 3, 'B and C were decided and committed while A synced');
  assert.is(sync.calls.length, 1, 'at most one fdatasync in flight');
  assert.equal(await settledFlags([a.durable, b.durable, c.durable]), [false, false, false]);
  sync.release();
  await a.durable;
  assert.equal(await settledFlags([b.durable, c.durable]), [false, false], 'B and C committed after A\'s sync began: not covered by it');
  assert.is(sync.calls.length, 1, 'the next fdatasync started as soon as the first ended');
  sync.release();
  await Promise.all([b.durable, c.durable]);
  assert.is(store.durableSeq, 3);
  assert.is(store.db.pragma('synchronous', { simple: true }), 2, 'every other transaction on the connection keeps synchronous=FULL');
  store.close();
});

test('the batch commits with synchronous=NORMAL (the fdatasync after it makes it durable), and the connection is FULL again after', async () => {
  const sync = new HeldSync();
  const { store } = open(sync);
  // What the connection's synchronous reads right after each change the journal makes.
  const seen: number[] = [];
  const pragma = store.db.pragma.bind(store.db);
  store.db.pragma = ((source: string, options?: { simple?: boolean }) => {
    const result = pragma(source, options);
    if (/^synchronous\s*=/.test(source)) seen.push(pragma('synchronous', { simple: true }) as number);
    return result;
  }) as typeof store.db.pragma;
  const a = store.submit(whiteLabel());
  await a.durable;
  assert.equal(seen, [1, 2], 'NORMAL (1) for the batch, FULL (2) after it');
  store.close();
});

test('a failed fdatasync rejects what it covered and every later write, and tells the owner', async () => {
  const sync = new HeldSync();
  const lost: unknown[] = [];
  const { store } = open(sync, lost);
  sync.holding = true;
  const a = store.submit(whiteLabel());
  await tick();
  sync.fail();
  assert.match(await rejection(a.durable), /EIO/);
  const b = store.submit(whiteLabel());
  assert.match(await rejection(b.durable), /EIO/, 'nothing after a failed sync is called durable');
  await tick();
  assert.ok(lost.length >= 1, 'onDurabilityLost was called');
  assert.is(store.durableSeq, 0);
});

test('a store closed with a batch still syncing syncs it on the way out; reopened, everything answered is there', async () => {
  const sync = new HeldSync();
  const { store, dir } = open(sync);
  sync.holding = true;
  const pending = store.submit(whiteLabel());
  await tick();
  store.close();
  await pending.durable;
  const again = openStore(dir, { clock: new ManualClock(startMs), ids: new UlidIds() });
  assert.is(again.world.lastSeq, 1);
  again.close();
});

test('caughtUp() resolves once every command submitted before it is durable, not before, and at once when nothing is in flight', async () => {
  const sync = new HeldSync();
  const { store } = open(sync);
  assert.equal(await settledFlags([store.caughtUp()]), [true], 'nothing in flight');
  sync.holding = true;
  const first = store.submit(whiteLabel());
  const barrier = store.caughtUp();
  assert.equal(await settledFlags([first.durable, barrier]), [false, false], 'the world has it, the disk not yet');
  const second = store.submit(whiteLabel()); // after the barrier: it does not hold it back
  sync.release();
  await barrier; // while the second's fdatasync is held: the barrier does not wait for it
  assert.equal(await settledFlags([first.durable, second.durable]), [true, false]);
  const later = store.caughtUp();
  assert.equal(await settledFlags([second.durable, later]), [false, false], 'a barrier taken after the second waits for it');
  sync.holding = false;
  while (sync.calls.length > 0) sync.release();
  await later;
  assert.equal(await settledFlags([second.durable]), [true]);
  store.close();
});

test.run();
