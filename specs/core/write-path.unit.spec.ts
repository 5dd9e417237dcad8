// The write path's seams as assertions that stay on: the reaction loop is bounded (a
// command that keeps causing reactions stops the writer instead of spinning), and evolve
// refuses a settlement whose fills and suspense do not make A or an order whose legs do
// not split its amount. Deciders never produce these; the checks catch one that would.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InvariantViolation } from '../../core/assert.ts';
import { evolve } from '../../core/deposit/state.ts';
import { Tx } from '../../core/handler/tx.ts';
import { limits } from '../../core/limits.ts';
import { exactTransfer, Harness } from '../support/core-harness.ts';
import { found, openDeposit, receiveSlip, scene, verify } from '../support/transitions.ts';

const violation = (pattern: RegExp) => (e: unknown) => e instanceof InvariantViolation && pattern.test(e.message);

test('reaction loop: reactions run depth first, in the order given; past reactionsPerCommandMax it stops loudly', () => {
  const h = new Harness();
  const tx = new Tx(h.world, h.ids, h.clock.now());
  const release = (legRef: string) => ({ type: 'ReleaseLeg' as const, withdrawalId: 'wdr_x', legRef });
  tx.react([release('a'), release('b')]);
  assert.equal(tx.nextReaction(), release('a'));
  tx.react([release('a1'), release('a2')]); // what 'a' caused runs before 'b'
  assert.equal([tx.nextReaction(), tx.nextReaction(), tx.nextReaction(), tx.nextReaction()], [release('a1'), release('a2'), release('b'), undefined]);
  const endless = new Tx(h.world, h.ids, h.clock.now());
  assert.throws(() => {
    for (let i = 0; i <= limits.reactionsPerCommandMax; i++) {
      endless.react([release(`l${i}`)]);
      endless.nextReaction();
    }
  }, violation(/more than \d+ reactions in one command/));
});

test('evolve: a settlement whose fills and suspense do not make A, or legs that do not split the amount, is refused', () => {
  const s = scene();
  s.h.withdrawal(s.payer, 100_000n);
  const id = openDeposit(s, 50_000n);
  receiveSlip(s.h, id, 'rcpt_1');
  const before = s.h.world.deposits.get(id)!;
  verify(s.h, id, 'rcpt_1', found(exactTransfer(s.h, id)));
  const settledEntry = s.h.journal.commits.at(-1)!.entries.find((e) => e.type === 'DepositSettled')!;
  const settled = settledEntry.event as Extract<Parameters<typeof evolve>[1], { type: 'DepositSettled' }>;
  assert.ok(evolve(before, settled), 'the event as decided folds');
  assert.throws(() => evolve(before, { ...settled, suspenseMinor: settled.suspenseMinor + 1n }), violation(/do not make A/));
  const shortLegs = { ...before, legs: before.legs.map((l) => ({ ...l, amountMinor: l.amountMinor - 1n })) };
  assert.throws(() => evolve(shortLegs, { type: 'SlipQueued', at: s.h.clock.now(), slip: before.slip! }), violation(/legs sum to/));
});

test.run();
