// Memory bounded by open work (core/world.ts Orders, adapters/sqlite/archive.ts): a closed
// order leaves the world once its snapshot is written and is read back from the snapshots
// when a command or a GET names it; its merchant_reference stays taken; an order still
// waiting on a timer (a late-slip window, a clearing) stays.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encode } from '../../core/journal.ts';
import { presentDeposit } from '../../core/present.ts';
import { limits } from '../../core/limits.ts';
import { settled } from '../../core/handler/handle.ts';
import { Scheduler } from '../../adapters/scheduler.ts';
import { Bloom } from '../../adapters/bloom.ts';
import { SnapshotArchive } from '../../adapters/sqlite/archive.ts';
import { Driver, merchantActor, openTestStore, operator, removeDir, tempDir } from './support.ts';

const dirs: string[] = [];
test.after(() => { for (const d of dirs) removeDir(d); });

async function scene() {
  const dir = tempDir('evict');
  dirs.push(dir);
  const { store, clock } = openTestStore(dir);
  const d = new Driver(store, clock);
  const wl = await d.whiteLabel();
  const merchant = await d.merchant(wl);
  const scheduler = new Scheduler(store, (e) => { throw e; });
  return { dir, store, clock, d, wl, merchant, scheduler };
}

test('a deposit canceled for want of liquidity leaves memory; GET and commands read it back the same; its reference stays taken', async () => {
  const s = await scene();
  const id = await s.d.deposit(s.merchant, 100_000n); // no withdrawals: awaiting_liquidity
  assert.ok(s.store.world.deposits.isResident(id), 'open: in memory');
  await s.scheduler.advance(limits.liquidityWaitMs);
  await s.store.journal.flushed();
  const deposit = s.store.world.deposits.get(id)!;
  assert.is(deposit.status, 'canceled');
  assert.ok(deposit.isTerminal);
  assert.not.ok(s.store.world.deposits.isResident(id), 'closed: let go once its snapshot was written');
  const snapshot = s.store.db.prepare('SELECT data FROM snapshots WHERE stream = ?').pluck(true).get(id);
  assert.is(encode(deposit), snapshot, 'read back exactly as the snapshot holds it');
  assert.equal(presentDeposit(deposit), presentDeposit(s.store.world.deposits.get(id)!), 'a GET presents it the same each time');
  const reused = await settled(s.store.submit({ ...s.d.depositCommand(s.merchant, 50_000n, { reference: deposit.merchantReference }) }));
  assert.is(reused.ok ? 'accepted' : `${reused.rejection.code}:${reused.rejection.message}`, 'validation_error:merchant_reference is already used by another deposit.', 'the archived order keeps its merchant_reference');
  const cancelAgain = await settled(s.store.submit({ type: 'CancelDeposit', actor: merchantActor(s.merchant), depositId: id }));
  assert.not.ok(cancelAgain.ok, 'a command on the archived order is decided against its archived state');
  s.store.close();
});

test('an order waiting on a timer stays in memory; a settled deposit leaves when it clears and comes back for a reversal', async () => {
  const s = await scene();
  const payer = await s.d.merchant(s.wl, 1_000_000n);
  await s.d.withdrawal(payer, 500_000n);
  const id = await s.d.deposit(s.merchant, 100_000n);
  await s.d.payFirstLeg(id);
  await s.store.journal.flushed();
  assert.is(s.store.world.deposits.get(id)!.status, 'settled');
  assert.ok(s.store.world.deposits.isResident(id), 'settled but not cleared: its clearing timer keeps it');
  await s.scheduler.advance(limits.clearingPeriodMs + 1000);
  await s.store.journal.flushed();
  assert.ok(s.store.world.deposits.get(id)!.settlement?.clearedAt !== undefined, 'cleared');
  assert.equal(s.store.world.timersOf(id), [], 'no timer left');
  assert.not.ok(s.store.world.deposits.isResident(id), 'cleared: let go');
  const before = s.store.world.balances(s.merchant, true).availableMinor;
  const reversal = await settled(s.store.submit({ type: 'ReverseDeposit', actor: operator(), depositId: id, reasonCode: 'BANK_RECALL', note: 'bank recalled the transfer after clearing' }));
  assert.ok(reversal.ok, reversal.ok ? '' : reversal.rejection.message);
  await s.store.journal.flushed();
  assert.is(s.store.world.deposits.get(id)!.status, 'reversed');
  assert.ok(s.store.world.balances(s.merchant, true).availableMinor < before, 'the reversal debited the wallet');
  assert.not.ok(s.store.world.deposits.isResident(id), 'closed again after the reversal');
  s.store.close();
});

test('memory holds open work only: a thousand expired deposits leave nothing resident; a reopened store starts without them', async () => {
  const s = await scene();
  const ids: string[] = [];
  for (let i = 0; i < 1000; i++) ids.push(await s.d.deposit(s.merchant, BigInt(10_000 + 100 * i)));
  assert.ok(s.store.world.deposits.size >= 1000);
  await s.scheduler.advance(limits.liquidityWaitMs);
  const open = await s.d.deposit(s.merchant, 99_900n);
  await s.store.journal.flushed();
  assert.is(s.store.world.deposits.size, 1, 'only the deposit still open');
  assert.ok(s.store.world.deposits.isResident(open));
  assert.is(s.store.world.deposits.get(ids[500]!)!.status, 'canceled');
  s.store.close();
  const again = openTestStore(s.dir, { clock: s.clock });
  assert.is(again.store.world.deposits.size, 1, 'recovery lets the closed ones go as well');
  assert.is(again.store.world.deposits.get(ids[999]!)!.status, 'canceled');
  again.store.close();
});

test('the archive answers "never archived" from its filters and finds every archived order as they grow', async () => {
  const s = await scene();
  const ids: string[] = [];
  for (let i = 0; i < 60; i++) ids.push(await s.d.deposit(s.merchant, BigInt(10_000 + 100 * i)));
  await s.scheduler.advance(limits.liquidityWaitMs);
  await s.store.journal.flushed();
  // A fresh archive on the same snapshots, sized for 4 orders: told of 60, it grows four times.
  const archive = new SnapshotArchive(s.store.db, 2);
  for (const id of ids) archive.archived('deposit', s.store.world.deposits.get(id)!);
  for (const id of ids) assert.is(archive.deposit(id)?.status, 'canceled', id);
  const reference = s.store.world.deposits.get(ids[7]!)!.merchantReference;
  assert.ok(archive.depositReferenceUsed(s.merchant, true, reference));
  assert.not.ok(archive.depositReferenceUsed(s.merchant, false, reference), 'another mode');
  assert.not.ok(archive.depositReferenceUsed(s.merchant, true, 'never-used'));
  assert.is(archive.deposit('dep_never'), undefined);
  s.store.close();
});

test('Bloom: no key added is ever missed; keys never added are "maybe" rarely', () => {
  const bloom = new Bloom(20);
  for (let i = 0; i < 50_000; i++) bloom.add(`key-${i}`);
  for (let i = 0; i < 50_000; i++) assert.ok(bloom.mayHave(`key-${i}`));
  let maybes = 0;
  for (let i = 0; i < 50_000; i++) if (bloom.mayHave(`other-${i}`)) maybes++;
  assert.ok(maybes < 500, `${maybes} false maybes of 50,000 (three bits a key, 21 bits each: about 0.3 %)`);
  bloom.clear();
  assert.not.ok(bloom.mayHave('key-1'));
});

test.run();
