// The ledger's range invariant as an assertion that stays on: a posting that would take a
// merchant bucket below 0 or past 2^53 − 1 stops the command in Tx.post (before anything
// reaches the world) and stops World.applyEntry (a replayed journal that breaks it).
// Deciders refuse such moves first; these checks are what catches a decider that does not.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InvariantViolation } from '../../core/assert.ts';
import { Tx } from '../../core/handler/tx.ts';
import type { JournalEntry } from '../../core/journal.ts';
import { buildTransaction, type MovementOwner } from '../../core/ledger/ledger.ts';
import { safeIntegerMax } from '../../core/money.ts';
import { Harness } from '../support/core-harness.ts';

function funded(): { h: Harness; owner: MovementOwner } {
  const h = new Harness();
  const wl = h.whiteLabel();
  const merchantId = h.merchant(wl, 100_000n);
  return { h, owner: { merchantId, whiteLabelId: wl, livemode: true, source: { type: 'adjustment', id: 'emp_spec' } } };
}

const violation = (pattern: RegExp) => (e: unknown) => e instanceof InvariantViolation && pattern.test(e.message);

test('Tx.post: a move out of a bucket that holds less stops the command; the world is untouched', () => {
  const { h, owner } = funded();
  const before = [...h.world.accounts.entries()];
  const tx = new Tx(h.world, h.ids, h.clock.ms);
  tx.post(owner, { type: 'withdrawal_reserved', amountMinor: 60_000n, from: 'available', to: 'reserved', counter: [] });
  assert.throws(() => tx.post(owner, { type: 'withdrawal_reserved', amountMinor: 40_001n, from: 'available', to: 'reserved', counter: [] }),
    violation(/:live:available would hold -1 after balance transaction/));
  assert.throws(() => tx.post(owner, { type: 'withdrawal_released', amountMinor: 60_001n, from: 'reserved', to: 'available', counter: [] }),
    violation(/:live:reserved would hold -1/));
  assert.equal([...h.world.accounts.entries()], before);
});

test('Tx.post: a credit that would carry a bucket past 2^53 − 1 stops the command; exactly 2^53 − 1 is fine', () => {
  const { h, owner } = funded();
  const tx = new Tx(h.world, h.ids, h.clock.ms);
  tx.post(owner, { type: 'adjustment', amountMinor: BigInt(safeIntegerMax) - 100_000n, from: null, to: 'available', counter: [{ account: 'adjustments', amountMinor: BigInt(safeIntegerMax) - 100_000n }] });
  assert.equal(tx.balances(owner.merchantId, true).availableMinor, BigInt(safeIntegerMax));
  assert.throws(() => tx.post(owner, { type: 'adjustment', amountMinor: 1n, from: null, to: 'available', counter: [{ account: 'adjustments', amountMinor: 1n }] }),
    violation(/would hold 9007199254740992/));
});

test('World.applyEntry: a journal entry that drives a bucket negative is refused on replay', () => {
  const { h, owner } = funded();
  const txn = buildTransaction({
    ...owner, id: 'btxn_bad', type: 'adjustment', amountMinor: 100_001n, createdAt: h.clock.ms, from: 'available', to: null,
    counter: [{ account: 'adjustments', amountMinor: 100_001n }],
  });
  const entry: JournalEntry = {
    stream: txn.id, streamKind: 'balance_transaction', version: 0, type: 'BalanceTransactionPosted', livemode: true, merchantId: owner.merchantId,
    recordedAt: h.clock.ms, event: { type: 'BalanceTransactionPosted', at: h.clock.ms, transaction: txn },
  };
  assert.throws(() => h.world.applyEntry(entry), violation(/:live:available would hold -1 after balance transaction btxn_bad/));
});

test.run();
