// The CLI's tables line their columns up by terminal width, not by string length: Thai
// vowel and tone marks sit on the consonant before them and take no column of their own.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { displayWidth, padDisplay } from '../../scripts/cli/args.ts';
import { table } from '../../scripts/cli/bo.ts';

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

test.run();
