// The journal's writer thread (adapters/sqlite/journal-thread.ts, journal-worker.ts), as the
// server runs it, on a real journal.db: group commits written and synced by the thread while
// the event loop decides the next; commands decided in one turn are handed over 16 at a time
// before it ends; a burst reaches the thread in bounded batches; a failed
// commit refuses every later command decided on the same (now stale) world and the world is
// rebuilt; another writer's entries found at the tail make the world stale too; the event
// loop's own writes share the file without SQLITE_BUSY_SNAPSHOT; close() writes and syncs
// what the thread holds; nonces in flight to the thread are still refused as replays; a
// closed order leaves memory only once its snapshot is written; a thread that dies is
// durability lost, and nothing it did not acknowledge is answered.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isMainThread } from 'node:worker_threads';
import { IdempotencyKeyInUse, StateConflict } from '../../adapters/sqlite/errors.ts';
import { verifyStore } from '../../adapters/sqlite/verify.ts';
import { settled } from '../../core/handler/handle.ts';
import { World } from '../../core/world.ts';
import { writeSideLimits } from '../../core/limits.ts';
import { Driver, merchantActor, openTestStore, operator, record, removeDir, rowCounts, tempDir } from './support.ts';
import { ManualClock } from '../../adapters/clock.ts';
import { UlidIds } from '../../adapters/ids.ts';
import { openStore } from '../../adapters/sqlite/store.ts';
import type { Worker } from 'node:worker_threads';
import { JournalThread, type BatchMessage } from '../../adapters/sqlite/journal-thread.ts';

const dirs: string[] = [];
test.after(() => { for (const d of dirs) removeDir(d); });

function threaded(tag: string) {
  const dir = tempDir(tag);
  dirs.push(dir);
  const { store, clock: c } = openTestStore(dir, { writerThread: true });
  return { dir, store, d: new Driver(store, c) };
}

test('commands are written by the thread: answered once on disk, the tail and the world agree, verify holds', async () => {
  const { store, d } = threaded('thread-basic');
  assert.ok(isMainThread);
  const wl = await d.whiteLabel();
  const merchant = await d.merchant(wl, 5_000_000n);
  const submitted = Array.from({ length: 40 }, (_, i) => settled(store.submit(d.depositCommand(merchant, 2_000n + 100n * BigInt(i)))));
  const outcomes = await Promise.all(submitted);
  assert.equal(outcomes.filter((o) => !o.ok), [], "every deposit accepted");
  const tail = store.db.prepare('SELECT MAX(seq) FROM journal').pluck(true).get() as number;
  assert.is(store.durableSeq, tail, 'durable up to the written tail');
  assert.is(store.world.lastSeq, tail);
  assert.is(store.db.prepare("SELECT COUNT(*) FROM journal WHERE type = 'DepositCreated'").pluck(true).get(), 40);
  assert.is(store.db.prepare('SELECT COUNT(*) FROM outbox').pluck(true).get() as number > 40, true, 'their events are in the outbox');
  const report = verifyStore(store.db);
  assert.ok(report.ok, JSON.stringify(report.mismatches));
  store.close();
});

test('caughtUp(): once it resolves, every command submitted before it is written by the thread and visible on the reading connection', async () => {
  const { store, d } = threaded('thread-caught-up');
  try {
    const wl = await d.whiteLabel();
    const merchant = await d.merchant(wl);
    const submitted = Array.from({ length: 40 }, (_, i) => store.submit(d.depositCommand(merchant, 2_000n + 100n * BigInt(i))));
    assert.equal(submitted.filter((s) => !s.outcome.ok), [], 'the world has them at once');
    await store.caughtUp();
    assert.is(store.db.prepare("SELECT COUNT(*) FROM journal WHERE type = 'DepositCreated'").pluck(true).get(), 40, 'and so has the journal, when the barrier resolves');
    assert.is(store.durableSeq, store.db.prepare('SELECT MAX(seq) FROM journal').pluck(true).get() as number, 'on disk');
    await Promise.all(submitted.map((s) => s.durable));
  } finally {
    store.close();
  }
});

test('a burst of thousands of commands in one turn reaches the thread in batches of at most 1,000, two at a time, and all commit', async () => {
  const { store, d } = threaded('thread-burst');
  const wl = await d.whiteLabel();
  const merchant = await d.merchant(wl);
  const batches: number[] = [];
  store.journal.onGroupCommit = (commands) => { batches.push(commands); };
  const burst = Array.from({ length: 4_500 }, () => settled(store.submit(d.depositCommand(merchant, 2_000n))));
  const outcomes = await Promise.all(burst);
  assert.equal(outcomes.filter((o) => !o.ok), [], 'every command accepted and durable');
  assert.ok(batches.every((n) => n <= writeSideLimits.groupCommitCommandsMax), `batches ${JSON.stringify(batches)}`);
  assert.is(batches.reduce((a, b) => a + b, 0), 4_500);
  assert.ok(batches.length >= 5);
  assert.is(store.db.prepare("SELECT COUNT(*) FROM journal WHERE type = 'DepositCreated'").pluck(true).get(), 4_500);
  assert.ok(verifyStore(store.db).ok);
  store.close();
});

test('commands decided in one turn go to the thread 16 at a time before the turn ends, the rest at its end', async () => {
  const { store, d } = threaded('thread-early');
  const wl = await d.whiteLabel();
  const merchant = await d.merchant(wl);
  const posted: number[] = [];
  const post = JournalThread.prototype.post;
  JournalThread.prototype.post = function (this: JournalThread, message: BatchMessage) {
    posted.push(message.items.length);
    post.call(this, message);
  };
  try {
    const early = writeSideLimits.handOverEarlyCommands;
    const burst = Array.from({ length: 2 * early + 5 }, () => settled(store.submit(d.depositCommand(merchant, 2_000n))));
    assert.equal(posted, [early, early], 'two full batches handed over while the turn still runs');
    const outcomes = await Promise.all(burst);
    assert.equal(posted.slice(0, 3), [early, early, 5], 'the rest at the end of the turn');
    assert.equal(outcomes.filter((o) => !o.ok), []);
    assert.ok(verifyStore(store.db).ok);
  } finally {
    JournalThread.prototype.post = post;
    store.close();
  }
});

test('a failed commit refuses every later command decided on the same world; the world is rebuilt and a retry commits', async () => {
  const { store, d } = threaded('thread-failure');
  const wl = await d.whiteLabel();
  const merchant = await d.merchant(wl, 100_000n);
  const now = d.clock.now();
  await settled(store.submit({ type: 'RegisterWhiteLabel', actor: operator(), name: 'keyed' }, {}, record('taken', now)));
  const before = rowCounts(store);
  const stale = store.world;
  // One turn: (1) a credit whose commit fails (its idempotency key is taken), (2) a deposit
  // that does not depend on it; then, next turn, (3) another deposit on the same world.
  const failing = settled(store.submit({ type: 'PostAdjustment', actor: operator(), merchantId: merchant, livemode: true, amountMinor: 9_000n, direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'x' }, {}, record('taken', now)));
  const neighbour = settled(store.submit(d.depositCommand(merchant, 3_000n)));
  await new Promise((resolve) => setImmediate(resolve));
  const later = store.world === stale ? settled(store.submit(d.depositCommand(merchant, 4_000n))) : null;
  const results = await Promise.allSettled([failing, neighbour, ...(later ? [later] : [])]);
  assert.is(results[0]!.status, 'rejected');
  assert.instance((results[0] as PromiseRejectedResult).reason, IdempotencyKeyInUse);
  for (const r of results.slice(1)) {
    assert.is(r.status, 'rejected', 'decided on the stale world: refused');
    assert.instance((r as PromiseRejectedResult).reason, StateConflict);
  }
  assert.equal(rowCounts(store).journal, before.journal, 'nothing of them was written');
  assert.is.not(store.world, stale, 'the world was rebuilt');
  assert.is(store.world.balances(merchant, true).availableMinor, 100_000n);
  const retry = await settled(store.submit(d.depositCommand(merchant, 3_000n)));
  assert.ok(retry.ok, 'a retry on the rebuilt world commits');
  assert.ok(verifyStore(store.db).ok);
  store.close();
});

test('commands still waiting to be handed over when a commit fails are refused too: they were decided on the stale world', async () => {
  const { store, d } = threaded('thread-failure-waiting');
  const wl = await d.whiteLabel();
  const merchant = await d.merchant(wl, 100_000n);
  const now = d.clock.now();
  await settled(store.submit({ type: 'RegisterWhiteLabel', actor: operator(), name: 'keyed' }, {}, record('taken', now)));
  const before = rowCounts(store);
  // One turn: a failing credit, then more deposits than the thread takes at a time, so most
  // of them are handed over only after the failure is known.
  const failing = settled(store.submit({ type: 'PostAdjustment', actor: operator(), merchantId: merchant, livemode: true, amountMinor: 9_000n, direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'x' }, {}, record('taken', now)));
  const deposits = Array.from({ length: 3 * writeSideLimits.groupCommitCommandsMax }, () => settled(store.submit(d.depositCommand(merchant, 2_000n))));
  const results = await Promise.allSettled([failing, ...deposits]);
  assert.instance((results[0] as PromiseRejectedResult).reason, IdempotencyKeyInUse);
  const refused = results.slice(1).filter((r) => r.status === 'rejected' && r.reason instanceof StateConflict).length;
  assert.is(refused, deposits.length, 'every deposit decided on the stale world is refused, the waiting ones too');
  assert.equal(rowCounts(store).journal, before.journal, 'none of them was written');
  assert.ok(verifyStore(store.db).ok);
  store.close();
});

test('another writer\'s entries at the tail: that batch commits on top, the world is rebuilt, the chain holds', async () => {
  const a = threaded('thread-foreign');
  const wl = await a.d.whiteLabel();
  const payer = await a.d.merchant(wl, 1_000_000n);
  const other = openTestStore(a.dir, { clock: a.d.clock });
  await new Driver(other.store, a.d.clock).fund(payer, 2_000n);
  other.store.close();
  const stale = a.store.world;
  assert.ok((await settled(a.store.submit({ type: 'PostAdjustment', actor: operator(), merchantId: payer, livemode: true, amountMinor: 1_000n, direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'z' }))).ok);
  assert.is.not(a.store.world, stale, 'rebuilt after the thread found foreign entries');
  assert.is(a.store.world.balances(payer, true).availableMinor, 1_003_000n, 'both writers\' credits');
  const report = verifyStore(a.store.db);
  assert.ok(report.ok, JSON.stringify(report.mismatches));
  a.store.close();
});

test('the event loop\'s own writes share journal.db with the thread while it commits', async () => {
  const { store, d } = threaded('thread-shared');
  const wl = await d.whiteLabel();
  const merchant = await d.merchant(wl, 10_000_000n);
  store.db.exec('CREATE TABLE IF NOT EXISTS spec_counter (n INTEGER NOT NULL)');
  store.db.exec('INSERT INTO spec_counter (n) VALUES (0)');
  // A read-then-write transaction on this connection, run while the thread is writing batches.
  const bump = store.db.transaction(() => {
    const n = store.db.prepare('SELECT n FROM spec_counter').pluck(true).get() as number;
    store.db.prepare('UPDATE spec_counter SET n = ?').run(n + 1);
  });
  const writes: Promise<unknown>[] = [];
  for (let round = 0; round < 30; round++) {
    for (let i = 0; i < 10; i++) writes.push(settled(store.submit(d.depositCommand(merchant, 2_000n))));
    await new Promise((resolve) => setImmediate(resolve));
    bump();
  }
  await Promise.all(writes);
  assert.is(store.db.prepare('SELECT n FROM spec_counter').pluck(true).get(), 30);
  assert.ok(verifyStore(store.db).ok);
  store.close();
});

test('close() writes and syncs what the thread holds; reopened, every answered command is there', async () => {
  const { dir, store, d } = threaded('thread-close');
  const wl = await d.whiteLabel();
  const merchant = await d.merchant(wl, 1_000_000n);
  const pending = Array.from({ length: 25 }, () => store.submit(d.depositCommand(merchant, 2_000n)));
  await new Promise((resolve) => setImmediate(resolve)); // handed to the thread, not yet acknowledged
  store.close();
  await Promise.all(pending.map((p) => p.durable));
  const again = openTestStore(dir, { clock: d.clock });
  const ids = pending.map((p) => (p.outcome.ok ? p.outcome.objectId! : ''));
  for (const id of ids) assert.ok(again.store.world.deposits.get(id), `deposit ${id} survived the close`);
  again.store.close();
});

test('a nonce handed to the thread is refused as a replay before and after it is written; it survives a restart', async () => {
  const { dir, store, d } = threaded('thread-nonce');
  const now = d.clock.now();
  assert.ok(store.keys.rememberNonce('key_1', 'n-1', now));
  store.journal.flushNow(); // handed to the thread, maybe not written yet
  assert.not.ok(store.keys.rememberNonce('key_1', 'n-1', now), 'in flight: refused');
  await store.journal.flushed();
  assert.not.ok(store.keys.rememberNonce('key_1', 'n-1', now), 'written: refused');
  store.close();
  const again = openTestStore(dir, { clock: d.clock });
  assert.not.ok(again.store.keys.rememberNonce('key_1', 'n-1', now), 'after a restart: refused');
  again.store.close();
});

test('a canceled deposit leaves memory once the thread wrote its snapshot, but not while its last change is unwritten', async () => {
  const { store, d } = threaded('thread-evict');
  const wl = await d.whiteLabel();
  const merchant = await d.merchant(wl);
  const deposit = await d.deposit(merchant, 5_000n); // no liquidity: awaiting_liquidity, open
  assert.ok(store.world.deposits.isResident(deposit));
  const cancel = store.submit({ type: 'CancelDeposit', actor: merchantActor(merchant), depositId: deposit });
  assert.ok(store.world.deposits.isResident(deposit), 'decided, not written: resident');
  await cancel.durable;
  assert.not.ok(store.world.deposits.isResident(deposit), 'written: evicted');
  assert.is(store.world.deposits.get(deposit)!.status, 'canceled', 'read back from its snapshot');

  // The rule the thread's acknowledgements apply: a closed order whose last change is still
  // with the thread stays a candidate until it is written.
  const world = new World();
  const archived: string[] = [];
  world.archive = { deposit: () => undefined, withdrawal: () => undefined, depositReferenceUsed: () => false, withdrawalReferenceUsed: () => false, archived: (_kind, o) => { archived.push(o.id); } };
  world.deposits.set(deposit, store.world.deposits.get(deposit)!);
  world.considerAllClosed();
  assert.is(world.evictClosed((id) => id === deposit), 0, 'unwritten: kept');
  assert.ok(world.deposits.isResident(deposit));
  assert.is(world.evictClosed(() => false), 1, 'written: evicted');
  assert.equal(archived, [deposit]);
  store.close();
});

test('a writer thread that dies mid-burst: durability is reported lost once, every command not acknowledged is refused, later ones too; what was acknowledged is on disk', async () => {
  const dir = tempDir('thread-dies');
  dirs.push(dir);
  const lost: unknown[] = [];
  const store = openStore(dir, { clock: new ManualClock(Date.UTC(2026, 10, 21, 3)), ids: new UlidIds(), groupCommit: true, writerThread: true, onDurabilityLost: (error) => lost.push(error) });
  const d = new Driver(store, new ManualClock(Date.UTC(2026, 10, 21, 3)));
  const wl = await d.whiteLabel();
  const merchant = await d.merchant(wl);
  const burst = Array.from({ length: 600 }, () => store.submit(d.depositCommand(merchant, 2_000n)));
  // The thread goes as a crash would take it: no stop message, no last sync.
  const thread = (store.journal as unknown as { options: { thread: { worker: Worker } } }).options.thread;
  void thread.worker.terminate();
  const results = await Promise.allSettled(burst.map((b) => b.durable));
  assert.is(lost.length, 1, 'durability lost, reported once');
  const acknowledged = burst.filter((b, i) => results[i]!.status === 'fulfilled' && b.outcome.ok).map((b) => (b.outcome as { objectId: string }).objectId);
  assert.ok(results.some((r) => r.status === 'rejected'), 'the commands in flight when it died are refused');
  const later = store.submit(d.depositCommand(merchant, 2_000n));
  const refusedLater = await later.durable.then(() => false, () => true);
  assert.ok(refusedLater, 'a command after the death is refused');
  store.close();
  // Reopened (as the server restarts after exiting): every acknowledged deposit is there and the ledger verifies.
  const reopened = openTestStore(dir).store;
  for (const id of acknowledged) assert.ok(reopened.world.deposits.get(id), `acknowledged ${id} is on disk`);
  const report = verifyStore(reopened.db);
  assert.ok(report.ok, JSON.stringify(report.mismatches));
  reopened.close();
});

test('a full disk that refuses a transaction of request nonces alone: nothing is left stale — once there is room, commands commit and the nonces are written', async () => {
  const { store, d } = threaded('thread-nonces-full');
  const wl = await d.whiteLabel();
  const merchant = await d.merchant(wl, 5_000_000n);
  assert.ok((await settled(store.submit(d.depositCommand(merchant, 2_000n)))).ok);
  // The disk is full: the thread's journal.db may not grow. Signed reads ride their nonces alone.
  store.journal.limitWriterPages(store.db.pragma('page_count', { simple: true }) as number);
  const nonceCount = () => store.db.prepare("SELECT COUNT(*) FROM nonces WHERE scope = 'full-disk'").pluck(true).get() as number;
  for (let i = 0; i < 3_000; i++) assert.ok(store.keys.rememberNonce('full-disk', `nonce-${i}-${'x'.repeat(60)}`, Date.now()));
  const deadline = Date.now() + 10_000;
  while (store.commitFailure === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.is(store.commitFailure?.code, 'SQLITE_FULL', 'readiness hears of it');
  assert.is(nonceCount(), 0, 'nothing of it was written');
  assert.not.ok(store.keys.rememberNonce('full-disk', `nonce-7-${'x'.repeat(60)}`, Date.now()), 'a nonce not yet written is still a replay');
  // Room again: the next command commits (before, every later command was refused as decided on a stale world), and the nonces ride with it.
  store.journal.limitWriterPages(1_073_741_823);
  const after = await settled(store.submit(d.depositCommand(merchant, 3_000n)));
  assert.ok(after.ok, JSON.stringify(after));
  await store.journal.flushed();
  assert.is(nonceCount(), 3_000, 'the nonces were written after all');
  assert.is(store.commitFailure, null);
  const report = verifyStore(store.db);
  assert.ok(report.ok, JSON.stringify(report.mismatches));
  store.close();
});

test.run();
