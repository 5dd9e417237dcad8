// Exact report JSON (server/exact-json.ts): a bigint is written with every digit as a JSON
// number, a safe integer as JSON.stringify writes it, and parseExact reads the text back
// with the bigints intact; strings that look like numbers or marks stay strings.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { exactJson, parseExact } from '../../server/exact-json.ts';

test('bigints keep every digit, and parseExact reads back what exactJson wrote', () => {
  const value = fc.oneof(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
  fc.assert(fc.property(fc.dictionary(fc.string(), value), fc.array(value), (record, list) => {
    const text = exactJson({ record, list });
    JSON.parse(text); // valid JSON (a JavaScript reader rounds the big numbers; parseExact does not)
    const back = parseExact(text) as { record: Record<string, unknown>; list: unknown[] };
    // What the text says: a safe bigint is a number; an integer past the safe range, written in digits, a bigint (also a double's).
    const same = (v: unknown) => (typeof v === 'bigint' && Number.isSafeInteger(Number(v)) ? Number(v)
      : typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v) && /^-?[0-9]+$/.test(JSON.stringify(v)) ? BigInt(JSON.stringify(v))
      : Object.is(v, -0) ? 0 : v);
    assert.equal(back.list, list.map(same));
    assert.equal(back.record, Object.fromEntries(Object.entries(record).map(([k, v]) => [k, same(v)])));
  }));
});

test('a string never turns into a number', () => {
  const tricky = ['12345678901234567890', '"\u0000big:1"', 'x:99999999999999999,', '\\"12345678901234567890'];
  assert.equal(parseExact(exactJson({ tricky, n: 2n ** 64n })), { tricky, n: 2n ** 64n });
  assert.is(exactJson({ a: 2n ** 64n, b: 5n }), '{"a":18446744073709551616,"b":5}', 'bigints as numbers');
});

test.run();
