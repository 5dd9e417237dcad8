// jsonDeparture: the first key given twice, else the first number with a fraction or exponent, in JSON
// text JSON.parse accepted, with its dotted path; strings (escapes included) are skipped.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { echoedPathMax, jsonDeparture } from '../../server/json-strict.ts';

test('integers and distinct keys pass, whatever the strings hold', () => {
  for (const text of ['{}', '{"a":1,"b":{"c":[1,-2,{"d":3}]}}', '{"k":"1.5e3","n":-5,"s":"a\\"b,\\"a\\":1"}', '{"a":{"b":1},"b":{"b":1}}', '{"l":[true,false,null,"e"]}']) {
    assert.is(jsonDeparture(text), null, text);
  }
});

test('a fraction or an exponent anywhere is not_integer at its path', () => {
  assert.equal(jsonDeparture('{"amount_minor":10000.0}'), { path: 'amount_minor', reason: 'not_integer' });
  assert.equal(jsonDeparture('{"amount_minor":1e4}'), { path: 'amount_minor', reason: 'not_integer' });
  assert.equal(jsonDeparture('{"legs":[{"q":1},{"q":-2.5E+1}]}'), { path: 'legs.1.q', reason: 'not_integer' });
});

test('a key twice in one object is duplicate_key at its path, escapes decoded', () => {
  assert.equal(jsonDeparture('{"a":1,"a":2}'), { path: 'a', reason: 'duplicate_key' });
  assert.equal(jsonDeparture('{"s":{"x":"a\\"b","x":1}}'), { path: 's.x', reason: 'duplicate_key' });
  assert.equal(jsonDeparture('{"a\\u0041":1,"aA":2}'), { path: 'aA', reason: 'duplicate_key' });
  assert.equal(jsonDeparture('[{"a":1},{"a":2},{"b":1,"b":2}]'), { path: '2.b', reason: 'duplicate_key' });
  assert.equal(jsonDeparture('{"n":1.5,"a":1,"a":2}'), { path: 'a', reason: 'duplicate_key' }, 'a key twice is said before a fraction met first');
});

test('a key twice 40,000 levels deep is named by a path of echoedPathMax characters: its first levels and the key', () => {
  const depth = 40_000;
  const text = `${'{"a":'.repeat(depth)}{"x":1,"dup":1,"dup":2}${'}'.repeat(depth)}`;
  const found = jsonDeparture(text)!;
  assert.is(found.reason, 'duplicate_key');
  assert.is(found.path.length, echoedPathMax);
  assert.ok(found.path.startsWith('a.a.a.') && found.path.endsWith('a.a.dup') && found.path.includes('…'));
});

test.run();
