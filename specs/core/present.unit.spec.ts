// The presenters of core/present.ts for the records the merchant API does not serve on
// their own routes yet (claims): they carry livemode like every other object (contract,
// "every object and event carries livemode").

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Claim } from '../../core/directory.ts';
import fc from 'fast-check';
import { iso, maskAccountNumber, maskAccountNumberLike, maskName, maskReadAccountNumber, presentClaim } from '../../core/present.ts';

const claim = (livemode: boolean): Claim => ({
  id: 'clm_01JGTV0000000000000000000C', kind: 'overpayment', status: 'open', depositId: 'dep_01JGTV0000000000000000000D', merchantId: 'mch_01JGTV0000000000000000000M',
  livemode, amountMinor: 500n, version: 1, createdAt: Date.UTC(2026, 0, 1), updatedAt: Date.UTC(2026, 0, 1),
});

test('an account number read from a slip keeps the shape the slip masked it in, its digits shown only in the last four places, as ours are', () => {
  assert.is(maskReadAccountNumber('xxx-x-x4321-x'), 'xxx-x-xx321-x', 'a Thai slip\'s digit before the last four places is hidden');
  assert.is(maskReadAccountNumber('***-*-*4321-*'), 'xxx-x-xx321-x');
  assert.is(maskReadAccountNumber('XXX-X-X4321-X'), 'xxx-x-xx321-x');
  assert.is(maskReadAccountNumber('xxxxxx3210'), 'xxxxxx3210');
  assert.is(maskReadAccountNumber('xx-98765432'), 'xx-xxxx5432', 'more than four digits shown: hidden from the left');
  assert.is(maskReadAccountNumber('9876543210'), 'xxxxxx3210', 'read in full: masked as ours are');
  assert.is(maskReadAccountNumber(maskReadAccountNumber('xxx-x-x4321-x')), 'xxx-x-xx321-x', 'masking again changes nothing');
});

test('any slip\'s mask of an account beside ours shows, together, no place but the last four', () => {
  fc.assert(fc.property(fc.stringMatching(/^[0-9]{10}$/), fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }), (account, hides) => {
    const slip = [...account].map((c, i) => (hides[i] ? 'x' : c)).join('');
    const shown = [maskReadAccountNumber(slip), maskAccountNumberLike(slip, account), maskAccountNumber(account)];
    for (const mask of shown) [...mask].forEach((c, i) => assert.ok(c === 'x' || i >= 6, `${slip} → ${mask}`));
  }));
});

test('a full account number masked like the slip showed one: the same places, so they compare digit by digit', () => {
  assert.is(maskAccountNumberLike('xxx-x-xx321-x', '9876543210'), 'xxx-x-xx321-x');
  assert.is(maskAccountNumberLike('xxx-x-xx321-x', '1111222233'), 'xxx-x-xx223-x', 'another account shows other digits at the same places');
  assert.is(maskAccountNumberLike('xxx-x-x4321-x', '9876543210'), 'xxx-x-xx321-x', 'an answer kept before the last-four rule: masked by it first');
  assert.is(maskAccountNumberLike('xxxx4321', '9876543210'), 'xxxxxx3210', 'not as many places as digits: the usual mask');
  assert.is(maskAccountNumberLike('xxx-x-xxxxx-x', '9876543210'), 'xxxxxx3210', 'no digit shown: the usual mask');
  assert.is(maskAccountNumberLike(undefined, '9876543210'), 'xxxxxx3210');
  fc.assert(fc.property(fc.stringMatching(/^[0-9]{10}$/), fc.stringMatching(/^[0-9]{10}$/), (ours, theirs) => {
    const shown = maskReadAccountNumber(`xxx-x-x${theirs.slice(5, 9)}-x`);
    const expected = maskAccountNumberLike(shown, ours);
    assert.is(expected.replace(/\d/g, '0'), shown.replace(/\d/g, '0'), 'the same shape');
    assert.is(expected === shown, ours.slice(6, 9) === theirs.slice(6, 9), 'equal exactly when the shown digits agree');
    assert.ok(expected.replace(/\D/g, '').length <= 4, 'never more than four digits');
  }));
});

test('a claim says its mode', () => {
  for (const livemode of [true, false]) {
    const shown = presentClaim(claim(livemode), 0);
    assert.is(shown.object, 'claim');
    assert.is(shown.livemode, livemode);
  }
});

test('iso writes every instant of years 0000-9999 as toISOString does (it formats the time of day itself)', () => {
  const yearZero = new Date('0000-01-01T00:00:00.000Z').getTime();
  const last = new Date('9999-12-31T23:59:59.999Z').getTime();
  for (const ms of [yearZero, last, 0, -1, 1, 86_399_999, 86_400_000, -86_400_001]) assert.is(iso(ms), new Date(ms).toISOString(), String(ms));
  fc.assert(fc.property(fc.integer({ min: yearZero, max: last }), (ms) => iso(ms) === new Date(ms).toISOString()), { numRuns: 20_000 });
  assert.throws(() => iso(last + 1), /years 0000-9999/);
  assert.throws(() => iso(0.5), /whole millisecond/);
});

test('iso answers instants written again (its memo of recent ones) as it answers them the first time', () => {
  // Sequences over a few instants, some a day or a millisecond apart, so that most calls find one remembered.
  const pool = fc.array(fc.integer({ min: 0, max: 253_402_300_799_999 }), { minLength: 1, maxLength: 6 })
    .chain((base) => fc.array(fc.tuple(fc.constantFrom(...base), fc.constantFrom(0, 1, -1, 86_400_000)), { minLength: 1, maxLength: 40 }));
  fc.assert(fc.property(pool, (calls) => calls.every(([ms, delta]) => {
    const at = Math.min(ms + delta, 253_402_300_799_999);
    return iso(at) === new Date(at).toISOString();
  })), { numRuns: 2_000 });
});

test('maskName keeps the first name and the first letter of the rest, whole code points, for any text', () => {
  assert.is(maskName('สมชาย ใจดี'), 'สมชาย ใ***');
  assert.is(maskName('  สมหญิง   รักดี  '), 'สมหญิง ร***');
  assert.is(maskName('Somchai'), 'So***');
  assert.is(maskName('😀😀😀 😀x'), '😀😀😀 😀***');
  // The plain statement of the rule, as a reference: split on whitespace, spread to code points.
  const reference = (name: string) => {
    const [first = '', ...rest] = name.trim().split(/\s+/);
    const last = rest.join(' ');
    return last ? `${first} ${[...last][0]}***` : `${[...first].slice(0, 2).join('')}***`;
  };
  fc.assert(fc.property(fc.string({ unit: 'binary' }), (name) => maskName(name) === reference(name)), { numRuns: 20_000 });
});

test.run();
