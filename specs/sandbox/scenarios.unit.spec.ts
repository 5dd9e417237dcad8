// The scenario engine's rules (core/sandbox/scenarios.ts) through the real command
// handler on the in-memory core: which first step each of the seventeen amounts arms (a
// durable 'sandbox.step' timer with its due time), that live deposits of the same amounts
// and ordinary sandbox amounts arm none, and how the simulated counterparty's legs are cut.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limits } from '../../core/limits.ts';
import { sandboxScenarios, scenarioOf, simulatedLegs } from '../../core/sandbox/scenarios.ts';
import type { Outcome } from '../../core/handler/handle.ts';
import { Harness } from '../support/core-harness.ts';

const firstStep: Record<number, [string, number] | null> = {
  10_000: ['pay', limits.sandboxAutoStepMs], 10_100: ['pay', limits.sandboxAutoStepMs], 10_200: ['expire', limits.sandboxAutoStepMs],
  10_300: ['pay', limits.sandboxAutoStepMs], 10_400: null, 10_500: ['match', limits.sandboxLiquidityWaitMs], 10_600: ['pay', limits.sandboxAutoStepMs],
  10_700: null, 10_800: ['pay', limits.sandboxAutoStepMs], 10_900: ['cancel', limits.sandboxAutoStepMs], 11_000: ['pay', limits.sandboxAutoStepMs],
  11_100: ['pay', limits.sandboxAutoStepMs], 11_200: ['expire', limits.sandboxAutoStepMs], 11_300: null, 11_400: null, 11_500: null,
  11_600: ['pay', limits.sandboxAutoStepMs],
};

function scene() {
  const h = new Harness();
  const merchant = h.merchant(h.whiteLabel());
  return { h, merchant };
}

/** The id of a deposit the handler accepted. */
function idOf(r: Outcome): string {
  if (!r.ok) throw new Error(`refused: ${r.rejection.code} ${r.rejection.message}`);
  return r.objectId!;
}

const stepsOf = (h: Harness, id: string) => h.world.timersOf(id).filter((t) => t.kind === 'sandbox.step').map((t) => [t.arg, t.dueAt - h.clock.ms]);

test('each of the seventeen sandbox amounts arms its first step (or none), as a durable timer', () => {
  assert.equal(Object.keys(firstStep).map(Number), sandboxScenarios.map((s) => s.amountMinor));
  for (const s of sandboxScenarios) {
    const { h, merchant } = scene();
    const id = idOf(h.deposit(merchant, BigInt(s.amountMinor), { livemode: false }));
    const expected = firstStep[s.amountMinor];
    assert.equal(stepsOf(h, id), expected ? [expected] : [], String(s.amountMinor));
  }
});

test('live deposits of the same amounts play nothing; ordinary sandbox amounts play nothing but get legs at once', () => {
  for (const s of sandboxScenarios) {
    const { h, merchant } = scene();
    const id = idOf(h.deposit(merchant, BigInt(s.amountMinor), { livemode: true }));
    assert.equal(stepsOf(h, id), [], `live ${s.amountMinor}`);
    assert.is(h.world.deposits.get(id)!.status, 'awaiting_liquidity', 'no simulated counterparty in live');
    assert.is(scenarioOf({ livemode: true, amountMinor: BigInt(s.amountMinor) }), undefined);
  }
  const { h, merchant } = scene();
  const d = h.world.deposits.get(idOf(h.deposit(merchant, 20_000n, { livemode: false })))!;
  assert.equal([d.status, d.legs.length, d.legs[0]!.counterparty.kind], ['awaiting_payment', 1, 'simulated']);
  assert.equal(stepsOf(h, d.id), []);
});

test('a step that fires after the state moved on does nothing; one that fires on time moves the order', () => {
  const { h, merchant } = scene();
  const id = idOf(h.deposit(merchant, 10_000n, { livemode: false }));
  h.advance(limits.sandboxAutoStepMs - 1);
  assert.is(h.world.deposits.get(id)!.status, 'awaiting_payment');
  h.advance(1);
  assert.is(h.world.deposits.get(id)!.status, 'settled');
  assert.equal(stepsOf(h, id), [], 'nothing left to play');
});

test('simulated legs: the amount in n chunks, the last takes the rest, each to its own account', () => {
  let n = 0;
  const legs = simulatedLegs(10_700n, 3, 1_000, () => `leg_${++n}`);
  assert.equal(legs.map((l) => l.amountMinor), [3_566n, 3_566n, 3_568n]);
  assert.equal(legs.map((l) => l.sequence), [1, 2, 3]);
  assert.is(new Set(legs.map((l) => l.receiver.accountNumber)).size, 3);
  assert.ok(legs.every((l) => l.counterparty.kind === 'simulated' && !l.held && l.expiresAt === 1_000));
});

test.run();
