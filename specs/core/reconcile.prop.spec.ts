// core/finance/reconcile.ts, the merchant's reconciliation sums, on random histories: a run
// of balance transactions (any bucket to any bucket, money in and out), each event
// carrying the balance after it as the service presents it. Whatever sequence a store
// begins after, its sums from the balance before its first balance transaction
// (openingBalance) end at the last balance; a store from the first event sums from zero
// to the same; the order the events are stored in and an event stored twice change
// nothing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { balanceTransactionSums, openingBalance, type BucketSums, type StoredEvent } from '../../core/finance/reconcile.ts';

type Bucket = 'available' | 'pending_clearing' | 'reserved';
const field = { available: 'available_minor', pending_clearing: 'pending_clearing_minor', reserved: 'reserved_minor' } as const;
const zero = (): BucketSums => ({ available_minor: 0n, pending_clearing_minor: 0n, reserved_minor: 0n });

/** A movement: from a bucket (or from outside) to a bucket (or outside), of an amount. */
const movement = fc.record({
  from: fc.constantFrom<Bucket | null>('available', 'pending_clearing', 'reserved', null),
  to: fc.constantFrom<Bucket | null>('available', 'pending_clearing', 'reserved', null),
  amount: fc.integer({ min: 1, max: 10_000_000 }),
}).filter((m) => m.from !== m.to);

/** The events of a history, by sequence; a movement that would take a bucket below zero is skipped, as the ledger refuses it. */
function history(moves: readonly { from: Bucket | null; to: Bucket | null; amount: number }[]): { events: StoredEvent[]; final: BucketSums } {
  const balance = zero();
  const events: StoredEvent[] = [];
  for (const m of moves) {
    if (m.from && balance[field[m.from]] < BigInt(m.amount)) continue;
    if (m.from) balance[field[m.from]] -= BigInt(m.amount);
    if (m.to) balance[field[m.to]] += BigInt(m.amount);
    const sequence = events.length + 1;
    const after = { available_minor: Number(balance.available_minor), pending_clearing_minor: Number(balance.pending_clearing_minor), reserved_minor: Number(balance.reserved_minor) };
    events.push({
      id: `evt_${sequence}`, sequence, type: m.to ? 'balance.credited' : 'balance.debited', created_at: '2026-11-27T00:00:00.000Z',
      data: { object: { object: 'balance_transaction', id: `btxn_${sequence}`, amount_minor: m.amount, bucket_from: m.from, bucket_to: m.to, balance_after: after } },
    });
  }
  return { events, final: balance };
}

test('from any start, the sums from the opening balance end at the last balance; order and duplicates change nothing', () => {
  fc.assert(fc.property(fc.array(movement, { minLength: 1, maxLength: 40 }), fc.nat(), fc.nat(), (moves, startPick, seed) => {
    const { events, final } = history(moves);
    fc.pre(events.length > 0);
    assert.equal(balanceTransactionSums(events), final, 'a store from the first event sums from zero');
    const start = startPick % events.length;
    const held = events.slice(start);
    // Stored in another order, one event twice.
    const shuffled = [...held].sort((a, b) => ((a.sequence * 7919 + seed) % 101) - ((b.sequence * 7919 + seed) % 101));
    shuffled.push(held[seed % held.length]!);
    const opening = openingBalance(shuffled);
    assert.ok(opening, 'a balance transaction to start from');
    assert.equal(balanceTransactionSums(shuffled, opening), final);
    assert.equal(opening, start === 0 ? zero() : balancesAfter(events[start - 1]!), 'the opening is the balance after the event before the start');
  }), { numRuns: 2000 });
});

function balancesAfter(e: StoredEvent): BucketSums {
  const after = e.data.object.balance_after as Record<string, number>;
  return { available_minor: BigInt(after.available_minor!), pending_clearing_minor: BigInt(after.pending_clearing_minor!), reserved_minor: BigInt(after.reserved_minor!) };
}

test.run();
