// The CLI's tables (scripts/cli/table.ts: bo's and admin's `table`, the reports' `columns`)
// line their columns up by terminal width, not by string length: Thai vowel and tone marks
// sit on the consonant before them and take no column of their own. Both are one layout.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { columns, displayWidth, padDisplay, table } from '../../scripts/cli/table.ts';

test('displayWidth leaves out combining marks and zero-width characters', () => {
  assert.equal(['abc', 'สมหญิง รักดี', 'ผู้ถอน', 'a\u200bb'].map(displayWidth), [3, 9, 4, 2]);
  assert.is(padDisplay('ผู้ถอน', 6), 'ผู้ถอน  ');
  assert.is(padDisplay('12', 4, true), '  12');
});

test("a table's next column starts at the same terminal column after Thai and Latin names", () => {
  const lines = table(['name', 'amount'], [['สมหญิง รักดี', '100.00'], ['Somying Rakdee', '2.00']]).split('\n');
  const columnOf = (line: string) => displayWidth(line.slice(0, line.search(/\d+\.\d{2}$/)));
  assert.is(columnOf(lines[1]!), columnOf(lines[2]!));
});

test('a wrapped table keeps every word of a long cell, in lines of at most 60 columns, the next column lined up', () => {
  const long = `${'สมหญิง รักดี '.repeat(8)}end`;
  const lines = table(['k', 'text', 'next'], [['a', long, 'after']], { wrap: true }).split('\n').slice(1);
  assert.ok(lines.length > 1, 'wrapped');
  const parts = lines.map((l) => l.slice(3, 3 + l.slice(3).search(/ {2}after$|$/)).trim());
  assert.is(parts.join(' '), long.trim(), 'nothing lost');
  assert.ok(parts.every((p) => displayWidth(p) <= 60), JSON.stringify(parts));
  assert.ok(lines[0]!.endsWith('after'));
  assert.is(table(['k'], [['x'.repeat(80)]]).split('\n')[1], `${'x'.repeat(59)}…`, 'unwrapped: cut as before');
});

test("a report's columns line up after Thai names too, numbers right-aligned to the header's edge", () => {
  const lines = columns([['name', 'amount THB', 'side'], ['สมหญิง รักดี', '100.00', 'credit'], ['Somying Rakdee', '2.00', '']], [1]);
  assert.equal(lines, [
    'name            amount THB  side',
    `สมหญิง รักดี${' '.repeat(5 + 2 + 4)}100.00  credit`,
    'Somying Rakdee        2.00',
  ]);
});

test('the same short cells come out of table and columns alike: one layout', () => {
  const rows = [['dep_1', 'ผู้ถอน', '500.00'], ['dep_22', 'Somchai', '']];
  assert.is(table(['DEPOSIT', 'NAME', 'THB'], rows), columns([['DEPOSIT', 'NAME', 'THB'], ...rows], []).join('\n'));
});

test.run();
