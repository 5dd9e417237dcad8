import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { iso } from '../../core/present.ts';
import { parseIso } from '../../server/time.ts';

const contractFormat = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

test('iso: RFC 3339 UTC with exactly three fractional digits and Z', () => {
  assert.is(iso(0), '1970-01-01T00:00:00.000Z');
  assert.is(iso(1_785_542_400_000), '2026-08-01T00:00:00.000Z');
  assert.is(iso(1_785_542_400_007), '2026-08-01T00:00:00.007Z');
  for (const ms of [1, 999, 1_000, 1_767_225_599_999, 253_402_300_799_999, -1]) {
    assert.match(iso(ms), contractFormat, `ms ${ms}`);
  }
});

test('iso refuses values that have no four-digit-year RFC 3339 form', () => {
  for (const bad of [Number.NaN, Infinity, 1.5, 253_402_300_800_000, -62_167_219_200_001]) {
    assert.throws(() => iso(bad), RangeError, `ms ${bad}`);
  }
});

test('parseIso round-trips iso', () => {
  for (const ms of [0, 1, 1_785_542_400_007, 951_782_400_000, 253_402_300_799_999, -86_400_000]) {
    assert.is(parseIso(iso(ms)), ms);
  }
});

test('parseIso accepts numeric offsets and fewer or more fractional digits', () => {
  const utc = Date.UTC(2026, 7, 1, 3, 0, 0);
  assert.is(parseIso('2026-08-01T10:00:00+07:00'), utc);
  assert.is(parseIso('2026-07-31T22:30:00-04:30'), utc);
  assert.is(parseIso('2026-08-01T03:00:00-00:00'), utc);
  assert.is(parseIso('2026-08-01T03:00:00Z'), utc);
  assert.is(parseIso('2026-08-01t03:00:00z'), utc, 'RFC 3339 §5.6: t and z may be lower case');
  assert.is(parseIso('2026-08-01T03:00:00.5Z'), utc + 500);
  assert.is(parseIso('2026-08-01T03:00:00.123456789Z'), utc + 123, 'sub-millisecond digits are truncated');
});

test('parseIso handles leap years and years before 100', () => {
  assert.is(parseIso('2024-02-29T00:00:00.000Z'), Date.UTC(2024, 1, 29));
  assert.is(parseIso('2000-02-29T00:00:00.000Z'), Date.UTC(2000, 1, 29));
  assert.is(parseIso('1900-02-29T00:00:00.000Z'), null);
  assert.is(parseIso('2026-02-29T00:00:00.000Z'), null);
  assert.is(parseIso('0050-01-01T00:00:00.000Z'), -60_589_296_000_000);
});

test('parseIso refuses everything Date.parse would forgive', () => {
  const refused = [
    '',
    '2026-08-01',
    '2026-08-01 10:00:00Z',
    '2026-08-01T10:00Z',
    '2026-08-01T10:00:00',
    '2026-08-01T10:00:00.Z',
    '2026-08-01T10:00:00.000+0700',
    '2026-08-01T10:00:00.000+07',
    '2026-8-1T10:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-01T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-08-00T00:00:00Z',
    '2026-08-01T24:00:00Z',
    '2026-08-01T23:60:00Z',
    '2026-12-31T23:59:60Z',
    '2026-08-01T10:00:00+24:00',
    '2026-08-01T10:00:00+07:60',
    '+002026-08-01T00:00:00.000Z',
    ' 2026-08-01T00:00:00Z',
    '2026-08-01T00:00:00Z ',
    'Sat, 01 Aug 2026 00:00:00 GMT',
    '1785542400000',
  ];
  for (const s of refused) assert.is(parseIso(s), null, JSON.stringify(s));
});

test.run();
