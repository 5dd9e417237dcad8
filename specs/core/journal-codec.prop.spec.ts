// core/journal.ts encode/decode: bigint travels as {"$bigint": "digits"} and comes back as
// bigint, everything else as JSON does. Checked against the reference decoder (a JSON.parse
// reviver, the straightforward form) on random values, including keys that JSON.parse
// treats specially ("__proto__" stays an own key) and objects that merely contain "$bigint".

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { decode, encode } from '../../core/journal.ts';

function reference(text: string): unknown {
  return JSON.parse(text, (_key, v) => (v !== null && typeof v === 'object' && typeof v.$bigint === 'string' && Object.keys(v).length === 1 ? BigInt(v.$bigint) : v));
}

const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', '$bigint', 'constructor'));
const value = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, fc.bigInt(), fc.integer(), fc.string({ maxLength: 8 }), fc.boolean(), fc.constant(null), fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(key, tie('v'), { maxKeys: 4 })),
})).v;

function outcome(f: () => unknown): { value?: string; keys?: string; error?: boolean } {
  try {
    const v = f();
    return { value: encode(v), keys: JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.keys(x) : x)) };
  } catch {
    return { error: true };
  }
}

test('decode(encode(v)) agrees with the reviver on random values, bigint included', () => {
  fc.assert(fc.property(value, (v) => {
    const text = encode(v);
    assert.equal(outcome(() => decode(text)), outcome(() => reference(text)));
  }), { numRuns: 5000 });
});

test('bigint round-trips exactly; "__proto__" stays an own key', () => {
  const v = { amount: 9_223_372_036_854_775_807n, list: [-1n, 0n], meta: JSON.parse('{"__proto__":"x"}') };
  const back = decode<typeof v>(encode(v));
  assert.is(back.amount, 9_223_372_036_854_775_807n);
  assert.equal(back.list, [-1n, 0n]);
  assert.equal(Object.keys(back.meta), ['__proto__']);
  assert.is(Object.getPrototypeOf(back.meta), Object.prototype);
});

test.run();
