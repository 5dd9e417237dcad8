// Ids (adapters/ids.ts): one monotonic factory per merchant. A merchant's ids made within
// one millisecond step by one, whatever other merchants made between them, so its own ids
// count none of another's work; two merchants' ids never sit next to each other; a leg_ref
// takes a fresh random part; a beneficiary id is ben_ + 32 hex characters.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { UlidIds } from '../../adapters/ids.ts';

const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const timePart = (id: string) => id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11);
const randomPart = (id: string) => [...id.slice(id.indexOf('_') + 11)].reduce((v, ch) => v * 32n + BigInt(crockford.indexOf(ch)), 0n);

test("a merchant's ids step by one within a millisecond, whatever other merchants made between them", () => {
  const ids = new UlidIds();
  const made: Record<string, string[]> = { mch_a: [], mch_b: [], platform: [] };
  for (let i = 0; i < 600; i++) {
    made.mch_a!.push(ids.next(i % 2 ? 'evt' : 'btxn', 'mch_a'));
    for (let j = 0; j < i % 4; j++) made.mch_b!.push(ids.next('evt', 'mch_b'));
    if (i % 7 === 0) made.platform!.push(ids.next('mch'));
  }
  let sameMs = 0;
  for (const list of Object.values(made)) {
    for (let i = 1; i < list.length; i++) {
      const [before, after] = [list[i - 1]!, list[i]!];
      assert.ok(after.slice(after.indexOf('_') + 1) > before.slice(before.indexOf('_') + 1), `${after} sorts after ${before}`);
      if (timePart(before) === timePart(after)) { sameMs++; assert.is(randomPart(after) - randomPart(before), 1n, `${before} → ${after}`); }
    }
  }
  assert.ok(sameMs > 100, `${sameMs} pairs made within one millisecond`);
  const aByMs = new Map<string, string[]>();
  for (const a of made.mch_a!) (aByMs.get(timePart(a)) ?? aByMs.set(timePart(a), []).get(timePart(a))!).push(a);
  for (const b of made.mch_b!) {
    for (const a of aByMs.get(timePart(b)) ?? []) {
      const gap = randomPart(b) - randomPart(a);
      assert.ok(gap > 1_000_000n || gap < -1_000_000n, `${b} is ${gap} from ${a}`);
    }
  }
});

test('a leg_ref takes a fresh random part; a beneficiary id is ben_ and 32 hex characters', () => {
  const ids = new UlidIds();
  const dep = ids.next('dep', 'mch_a');
  const leg = ids.next('leg', 'mch_a');
  const gap = randomPart(leg) - randomPart(dep);
  assert.ok(gap > 1_000_000n || gap < -1_000_000n, `${leg} is ${gap} from ${dep}`);
  assert.match(ids.next('ben', 'mch_a'), /^ben_[0-9a-f]{32}$/);
});

test.run();
