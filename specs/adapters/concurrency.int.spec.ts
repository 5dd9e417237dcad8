// Optimistic concurrency and group commit on a real database file: a second writer (a
// second store on the same journal.db, deciding against a world that has gone stale) that
// writes a stream version already taken gets StateConflict with the contract's code and
// writes nothing — never a lost update — and its world is rebuilt from the journal; a
// second writer that touches other streams chains on correctly. In a group commit, a
// command that fails is rolled back alone: its neighbours commit, and a later command that
// wrote what it wrote (same stream or ledger account) fails with it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { StateConflict, IdempotencyKeyInUse } from '../../adapters/sqlite/errors.ts';
import { verifyStore } from '../../adapters/sqlite/verify.ts';
import { Driver, merchantActor, openTestStore, operator, record, removeDir, rowCounts, tempDir } from './support.ts';
import { settled } from '../../core/handler/handle.ts';

const dirs: string[] = [];
test.after(() => { for (const d of dirs) removeDir(d); });

async function twoWriters() {
  const dir = tempDir('writers');
  dirs.push(dir);
  const a = openTestStore(dir);
  const d = new Driver(a.store, a.clock);
  const wl = await d.whiteLabel();
  const payer = await d.merchant(wl, 50_000_000n);
  const depositor = await d.merchant(wl);
  const withdrawal = await d.withdrawal(payer, 1_000_000n);
  const waiting = await d.deposit(depositor, 2_000_000n); // more than the withdrawal takes: awaiting_liquidity
  const b = openTestStore(dir, { clock: a.clock }); // recovers the same world, then goes stale
  return { dir, a: a.store, b: b.store, d, payer, depositor, withdrawal, waiting };
}

const typeCount = (s: { db: { prepare(sql: string): { pluck(on: boolean): { get(...p: unknown[]): unknown } } } }, type: string, stream: string) =>
  s.db.prepare('SELECT COUNT(*) FROM journal WHERE type = ? AND stream = ?').pluck(true).get(type, stream) as number;

async function conflict(promise: Promise<unknown>): Promise<StateConflict> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, StateConflict);
    return error as StateConflict;
  }
  throw new Error('expected a StateConflict');
}

test('a second writer changing a withdrawal already changed gets withdrawal_state_conflict and writes nothing', async () => {
  const w = await twoWriters();
  assert.ok((await settled(w.a.submit({ type: 'CancelWithdrawal', actor: merchantActor(w.payer), withdrawalId: w.withdrawal }))).ok);
  const before = rowCounts(w.b);
  const stale = w.b.world;
  assert.is(stale.withdrawals.get(w.withdrawal)!.status, 'open', 'b decides against its stale world');
  const e = await conflict(settled(w.b.submit({ type: 'CancelWithdrawal', actor: merchantActor(w.payer), withdrawalId: w.withdrawal })));
  assert.is(e.code, 'withdrawal_state_conflict');
  assert.is(e.stream, w.withdrawal);
  assert.equal(rowCounts(w.b), before);
  assert.is(typeCount(w.b, 'WithdrawalCanceled', w.withdrawal), 1, 'no lost update, no double refund');
  assert.is.not(w.b.world, stale, 'the world was rebuilt');
  assert.is(w.b.world.withdrawals.get(w.withdrawal)!.status, 'canceled');
  const retry = await settled(w.b.submit({ type: 'CancelWithdrawal', actor: merchantActor(w.payer), withdrawalId: w.withdrawal }));
  assert.is(retry.ok ? 'accepted' : retry.rejection.code, 'withdrawal_not_cancelable', 'a retry decides on the fresh world');
  assert.ok(verifyStore(w.b.db).ok);
  w.a.close(); w.b.close();
});

test('a conflict on any other stream is alloc_state_conflict', async () => {
  const w = await twoWriters();
  assert.ok((await settled(w.a.submit({ type: 'CancelDeposit', actor: merchantActor(w.depositor), depositId: w.waiting }))).ok);
  const e = await conflict(settled(w.b.submit({ type: 'CancelDeposit', actor: merchantActor(w.depositor), depositId: w.waiting })));
  assert.is(e.code, 'alloc_state_conflict');
  assert.is(e.stream, w.waiting);
  assert.is(typeCount(w.b, 'DepositCanceled', w.waiting), 1);
  assert.ok(verifyStore(w.a.db).ok);
  w.a.close(); w.b.close();
});

test('the same conflict through one-transaction-per-command append() throws StateConflict', async () => {
  const dir = tempDir('writers-sync');
  dirs.push(dir);
  const a = openTestStore(dir, { groupCommit: false });
  const d = new Driver(a.store, a.clock);
  const merchant = await d.merchant(await d.whiteLabel());
  const b = openTestStore(dir, { groupCommit: false, clock: a.clock });
  await settled(a.store.submit({ type: 'SetMerchantSuspended', actor: operator(), merchantId: merchant, suspended: true }));
  assert.throws(() => b.store.handler.execute({ type: 'SetMerchantSuspended', actor: operator(), merchantId: merchant, suspended: true }),
    (e: unknown) => e instanceof StateConflict && e.code === 'alloc_state_conflict');
  assert.ok(b.store.world.merchants.get(merchant)!.suspended, 'rebuilt');
  a.store.close(); b.store.close();
});

test('a second writer on other streams chains on after the first: both kept, chain intact', async () => {
  const w = await twoWriters();
  await w.d.fund(w.payer, 1_000n);
  await new Driver(w.b, w.d.clock).fund(w.depositor, 2_000n);
  const report = verifyStore(w.a.db);
  assert.ok(report.ok, JSON.stringify(report.mismatches));
  assert.is(w.b.world.balances(w.payer, true).availableMinor, w.a.world.balances(w.payer, true).availableMinor, 'b rebuilt after seeing a\'s rows');
  w.a.close(); w.b.close();
});

test('group commit: a failing command is rolled back alone; its dependants fail with it; the rest commit', async () => {
  const w = await twoWriters();
  const s = w.a;
  const now = w.d.clock.now();
  await settled(s.submit({ type: 'RegisterWhiteLabel', actor: operator(), name: 'keyed' }, {}, record('taken', now)));
  const before = rowCounts(s);
  const availableBefore = s.world.balances(w.depositor, true).availableMinor;
  // One event-loop turn: (1) a credit whose commit will fail (its idempotency key is taken),
  // (2) an unrelated deposit, (3) a debit that only the failed credit made possible.
  const failing = settled(s.submit({ type: 'PostAdjustment', actor: operator(), merchantId: w.depositor, livemode: true, amountMinor: 9_000n, direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'x' }, {}, record('taken', now)));
  const neighbour = settled(s.submit(w.d.depositCommand(w.depositor, 3_000n)));
  const dependant = settled(s.submit({ type: 'PostAdjustment', actor: operator(), merchantId: w.depositor, livemode: true, amountMinor: 9_000n, direction: 'debit', bucket: 'available', reasonCode: 'MANUAL_ADJUSTMENT', reason: 'y' }));
  const [r1, r2, r3] = await Promise.allSettled([failing, neighbour, dependant]);
  assert.is(r1.status, 'rejected');
  assert.instance((r1 as PromiseRejectedResult).reason, IdempotencyKeyInUse);
  assert.is(r2.status, 'fulfilled');
  assert.is(r3.status, 'rejected');
  assert.instance((r3 as PromiseRejectedResult).reason, StateConflict);
  const deposit = (r2 as PromiseFulfilledResult<{ ok: true; objectId: string }>).value.objectId;
  const after = rowCounts(s);
  const newTypes = s.db.prepare('SELECT type FROM journal WHERE seq > ? ORDER BY seq').pluck(true).all(before.journal);
  assert.equal(newTypes, ['DepositCreated', 'DepositMatched', 'LegReserved'], 'only the neighbour\'s entries');
  assert.is(after.journal, before.journal + 3);
  assert.is(typeCount(s, 'DepositCreated', deposit), 1);
  assert.is(s.world.balances(w.depositor, true).availableMinor, availableBefore, 'the rebuilt world holds neither adjustment');
  assert.ok(s.world.deposits.has(deposit));
  assert.ok(verifyStore(s.db).ok);
  w.a.close(); w.b.close();
});

test('group commit: a conflict from a second writer fails that command only', async () => {
  const w = await twoWriters();
  await settled(w.a.submit({ type: 'CancelDeposit', actor: merchantActor(w.depositor), depositId: w.waiting }));
  const conflicting = settled(w.b.submit({ type: 'CancelDeposit', actor: merchantActor(w.depositor), depositId: w.waiting }));
  const other = settled(w.b.submit(w.d.depositCommand(w.depositor, 4_000n)));
  const [r1, r2] = await Promise.allSettled([conflicting, other]);
  assert.is(r1.status, 'rejected');
  assert.is(((r1 as PromiseRejectedResult).reason as StateConflict).code, 'alloc_state_conflict');
  assert.is(r2.status, 'fulfilled');
  assert.ok(w.a.db.prepare("SELECT COUNT(*) FROM journal WHERE type = 'DepositCreated'").pluck(true).get() === 2);
  assert.ok(verifyStore(w.a.db).ok);
  w.a.close(); w.b.close();
});

test.run();
