// The console decides whether to offer Approve (a payout, a claim's refund or payout) by the
// same fold the server's four eyes uses (core/operators.ts operatorKey). The console is
// plain browser JavaScript and keeps its own copy (console/format.js
// `folded`): this spec runs that copy against core's on every BMP code point and on random
// strings, so the two cannot drift apart unseen.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { operatorKey } from '../../core/operators.ts';

const source = readFileSync(new URL('../../console/format.js', import.meta.url), 'utf8');
const copy = /^const folded = (\(sub\) => .+);$/m.exec(source);

test('the console keeps its fold as one arrow function the spec can read', () => {
  assert.ok(copy, 'console/format.js: no `const folded = (sub) => …;` line');
});

const consoleFold = copy ? (new Function(`return ${copy[1]}`)() as (sub: string) => string) : (sub: string) => sub;

test('the console folds every BMP code point as the server does, alone and around letters', () => {
  for (let code = 0; code <= 0xffff; code++) {
    const ch = String.fromCharCode(code);
    for (const sub of [ch, `emp_${ch}x`]) assert.is(consoleFold(sub), operatorKey(sub), `U+${code.toString(16).toUpperCase().padStart(4, '0')}`);
  }
});

test('the console folds random subjects as the server does', () => {
  fc.assert(fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 16 }), fc.mixedCase(fc.constantFrom('emp_nok', 'EMP_R1', 'ｅｍｐ_ｘ', 'emp\u200b_x', ' emp_y '))), (sub) => {
    assert.is(consoleFold(sub), operatorKey(sub));
  }), { numRuns: 2000 });
});

test.run();
