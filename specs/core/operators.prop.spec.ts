// Who counts as one operator (core/operators.ts): ids that differ only by case, compatibility
// form, or characters no one sees (a zero-width space, a soft hyphen, a word joiner, a BOM, a
// variation selector, white space at an end) fold to one key, so four eyes and revocation take
// them for one person; the fold is idempotent (a key stored folded meets a subject folded at
// lookup), checked over every code point of the Basic Multilingual Plane and over random
// strings; and operatorIdProblem refuses, at the token check, every subject carrying such a
// character, while ordinary ids (Thai, digits, an inner space) pass. An operator's idempotency
// scope an older build wrote with the sub as spelt refolds to today's scope, and today's is
// left as it is.

import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { amongOperators, operatorIdempotencyScope, operatorIdProblem, operatorKey, refoldedOperatorScope, sameOperator } from '../../core/operators.ts';

/** Invisible characters the penetration test used, and their kin. */
const invisibles = ['\u200b', '\u200c', '\u200d', '\u200e', '\u200f', '\u00ad', '\u2060', '\ufeff', '\ufe0f', '\u034f', '\u180e', '\u0000', '\u001f', '\u007f', '\u0085', '\u3164'];

test('one person: emp_r1 with an invisible character anywhere, white space at an end, another case or a full-width form', () => {
  for (const c of invisibles) {
    for (const spelling of [`emp_r1${c}`, `${c}emp_r1`, `emp${c}_r1`]) {
      assert.ok(sameOperator('emp_r1', spelling), JSON.stringify(spelling));
      assert.ok(amongOperators(['emp_r1'], spelling), JSON.stringify(spelling));
    }
  }
  for (const spelling of [' emp_r1', 'emp_r1 ', '\temp_r1\n', '\u00a0emp_r1', 'emp_r1\u3000', 'EMP_R1', 'Emp_R1', 'ＥＭＰ_Ｒ１', 'emp\u00ad_r\u200b1\ufe0f ']) {
    assert.ok(sameOperator('emp_r1', spelling), JSON.stringify(spelling));
  }
  assert.is(operatorKey('ＥＭＰ_X\u200b'), 'emp_x');
  assert.not.ok(sameOperator('emp_r1', 'emp_r2'));
  assert.not.ok(sameOperator('emp_r1', 'emp r1'), 'an inner space is a visible difference');
  assert.not.ok(sameOperator('emp_r1', undefined));
});

test('the fold is idempotent: every code point of the BMP, alone and between letters', () => {
  for (let cp = 0; cp <= 0xffff; cp++) {
    const c = String.fromCharCode(cp);
    for (const s of [c, `a${c}B`]) {
      const key = operatorKey(s);
      if (operatorKey(key) !== key) assert.unreachable(`U+${cp.toString(16)} in ${JSON.stringify(s)}: ${JSON.stringify(key)} folds again to ${JSON.stringify(operatorKey(key))}`);
    }
  }
});

test('property: idempotent on any string; inserting invisibles or padding never changes the key, and the padded id is refused at the token check', () => {
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 24 }), (s) => operatorKey(operatorKey(s)) === operatorKey(s)), { numRuns: 5_000 });
  const visibleId = fc.stringMatching(/^[a-zA-Z0-9_.@ก-๙-]{1,20}$/);
  fc.assert(fc.property(visibleId, fc.array(fc.tuple(fc.nat(), fc.constantFrom(...invisibles)), { minLength: 1, maxLength: 4 }), fc.constantFrom('', ' ', '\t', '\u00a0'), (id, inserts, pad) => {
    const chars = [...id];
    for (const [at, c] of inserts) chars.splice(at % (chars.length + 1), 0, c);
    const disguised = pad + chars.join('') + pad;
    assert.is(operatorIdProblem(id), undefined, JSON.stringify(id));
    assert.ok(operatorIdProblem(disguised) !== undefined, JSON.stringify(disguised));
    return operatorKey(disguised) === operatorKey(id) && sameOperator(id, disguised);
  }), { numRuns: 2_000 });
});

test("property: an operator's idempotency scope written with the sub as spelt refolds to today's; today's refolds to itself", () => {
  const sub = fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 16 }), fc.stringMatching(/^(f:[A-Za-z0-9-]{1,8}:)?[A-Za-z0-9_.@ก-๙|]{1,16}$/));
  const ulid = fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  const object = fc.option(fc.oneof(fc.tuple(fc.constantFrom('dep', 'wdr', 'mch', 'wl', 'clm', 'dsp', 'whep'), ulid).map(([p, u]) => `${p}_${u}`), fc.constantFrom('bank_002', 'bank_004')), { nil: undefined });
  fc.assert(fc.property(sub, object, (sub, on) => {
    const today = operatorIdempotencyScope(sub, on);
    const spelt = on === undefined ? `op:${sub}` : `op:${sub}:${on}`; // the build before 8172ef9
    // The one reading it cannot tell apart: a sub that itself ends in a colon and something shaped as an id the service mints.
    const ambiguous = /:[a-z]+_[0-9a-z]+$/i.test(sub);
    return ambiguous || (refoldedOperatorScope(today) === today && refoldedOperatorScope(spelt) === today);
  }), { numRuns: 5_000 });
  assert.is(refoldedOperatorScope('mch_01JD0000000000000000000XYZ:live'), undefined, "a merchant's scope is no operator's");
});

test('the token check refuses an empty or non-text subject, white space at an end and each invisible character, naming it; ordinary ids pass', () => {
  assert.match(operatorIdProblem('')!, /no sub claim/);
  assert.match(operatorIdProblem(undefined)!, /no sub claim/);
  assert.match(operatorIdProblem(42)!, /no sub claim/);
  for (const sub of [' emp_r1', 'emp_r1 ', 'emp_r1\n', '\u3000emp_r1', 'emp_r1\u00a0']) assert.match(operatorIdProblem(sub)!, /white space at an end/, JSON.stringify(sub));
  for (const c of invisibles) assert.match(operatorIdProblem(`emp_r1${c}x`)!, /invisible character \(U\+[0-9A-F]{4}\)/, JSON.stringify(c));
  assert.match(operatorIdProblem('emp_r1\u200b')!, /U\+200B/);
  assert.match(operatorIdProblem('emp_r1\u{e0041}')!, /invisible character \(U\+E0041\)/, 'a tag character (Cf) beyond the BMP');
  for (const sub of ['emp_r1', 'EMP_NOK', 'สมชาย.ใจดี', 'alice@example.com', 'auth0|5f7c8ec7c33c6c004bbafe82', 'emp r1']) assert.is(operatorIdProblem(sub), undefined, sub);
});

test.run();
