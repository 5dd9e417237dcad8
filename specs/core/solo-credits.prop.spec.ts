// Four eyes on live credits split into small ones (core/solo-credits.ts, directory/decide.ts):
// the back office's live credit (PostAdjustment with fourEyesByTotal) is posted on its
// operator's word alone only while what that person credited alone over the last 24 hours
// of business time, with it, stays under limits.adjustmentFourEyesMinorMin; past that it is
// proposed and waits for a second operator. A fast-check property over random runs of
// credits by three spellings of two people (emp_a, EMP_A, emp_b) with the clock moved
// between them, some proposals approved by a checker: every credit posted alone keeps its
// person's 24-hour total under the amount (the control holds), every credit that would have
// kept it under was posted (the control does not over-reach), credits a second operator
// approved do not count against their approver, and a world folded again from the journal
// decides the next credit the same way.

import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limits } from '../../core/limits.ts';
import { World } from '../../core/world.ts';
import { Harness, operator } from '../support/core-harness.ts';

const threshold = BigInt(limits.adjustmentFourEyesMinorMin);
const person = (sub: string) => sub.toLowerCase();

type Step = { readonly sub: 'emp_a' | 'EMP_A' | 'emp_b'; readonly baht: number; readonly laterMinutes: number; readonly approve: boolean };

test("an operator's live credits posted alone stay under 100,000 baht in any 24 hours; a credit that would pass it is proposed, one that would not is posted", () => {
  const seen = { posted: 0, proposed: 0, approved: 0 };
  fc.assert(fc.property(
    fc.array(fc.record({
      sub: fc.constantFrom<Step['sub']>('emp_a', 'EMP_A', 'emp_b'),
      baht: fc.integer({ min: 1, max: 60_000 }),
      laterMinutes: fc.integer({ min: 0, max: 12 * 60 }),
      approve: fc.boolean(),
    }), { minLength: 1, maxLength: 25 }),
    (steps) => {
      const h = new Harness();
      const merchant = h.merchant(h.whiteLabel());
      const alone: { who: string; at: number; minor: bigint }[] = []; // the model: credits posted on one word
      for (const step of steps) {
        h.advance(step.laterMinutes * 60_000);
        const at = h.clock.ms;
        const minor = BigInt(step.baht) * 100n;
        const before = alone.filter((c) => c.who === person(step.sub) && c.at > at - limits.adjustmentSoloWindowMs).reduce((sum, c) => sum + c.minor, 0n);
        const id = h.ok({ type: 'PostAdjustment', actor: operator(step.sub), merchantId: merchant, livemode: true, amountMinor: minor, direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'top-up', fourEyesByTotal: true });
        if (before + minor < threshold) {
          assert.match(id, /^btxn_/, `posted: ${before} + ${minor} stays under the amount`);
          alone.push({ who: person(step.sub), at, minor });
          seen.posted++;
          continue;
        }
        assert.match(id, /^adjp_/, `proposed: ${before} + ${minor} reaches the amount`);
        const proposal = h.world.merchants.get(merchant)!.adjustmentProposals!.find((p) => p.id === id)!;
        assert.is(proposal.proposerRecentMinor, before, 'the proposal says what its proposer had credited alone');
        seen.proposed++;
        if (step.approve) {
          assert.match(h.ok({ type: 'ApproveAdjustment', actor: operator('emp_checker'), merchantId: merchant, proposalId: id, amountMinor: minor }), /^btxn_/);
          assert.is(h.world.soloCredits.totalSince('emp_checker', -1), 0n, 'an approval is not its approver\'s credit alone');
          seen.approved++;
        }
      }
      // The fold of the journal counts the same credits: a rebuilt world decides as this one.
      const again = new World();
      for (const entry of h.journal.entries) again.applyEntry(entry);
      for (const who of ['emp_a', 'emp_b']) {
        const since = h.clock.ms - limits.adjustmentSoloWindowMs;
        assert.is(again.soloCredits.totalSince(who, since), h.world.soloCredits.totalSince(who, since), who);
        assert.is(h.world.soloCredits.totalSince(who, since), alone.filter((c) => c.who === who && c.at > since).reduce((sum, c) => sum + c.minor, 0n), `${who}: the model's total`);
      }
    },
  ), { numRuns: 200 });
  assert.ok(seen.posted > 0 && seen.proposed > 0 && seen.approved > 0, JSON.stringify(seen));
});

test('without the flag (a command from inside, a sandbox credit, a debit) nothing is proposed by the total', () => {
  const h = new Harness();
  const merchant = h.merchant(h.whiteLabel());
  const credit = { type: 'PostAdjustment' as const, actor: operator('emp_a'), merchantId: merchant, livemode: true, amountMinor: threshold - 1n, direction: 'credit' as const, bucket: 'available' as const, reasonCode: 'FUNDING', reason: 'top-up' };
  assert.match(h.ok(credit), /^btxn_/);
  assert.match(h.ok(credit), /^btxn_/, 'no flag: posted');
  assert.match(h.ok({ ...credit, livemode: false, fourEyesByTotal: true }), /^btxn_/, 'sandbox money is not money');
  assert.match(h.ok({ ...credit, direction: 'debit', reasonCode: 'MANUAL_ADJUSTMENT', amountMinor: 1_000n, fourEyesByTotal: true }), /^btxn_/, 'a debit takes money out');
  assert.match(h.ok({ ...credit, amountMinor: 100n, fourEyesByTotal: true }), /^adjp_/, 'flagged: the total is past the amount');
  assert.is(h.world.soloCredits.totalSince('EMP_A', -1), 2n * (threshold - 1n), 'one person under any spelling');
});

test.run();
