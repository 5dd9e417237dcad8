// The README's CSV column lists (Finance) are what a finance analyst maps a spreadsheet by:
// each must name the columns the code writes, in order, so a column added, renamed or moved
// in core/finance/ is said there too.

import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { disputeReportCsvHeader } from '../../core/finance/disputes.ts';
import { feeReportCsvHeader } from '../../core/finance/fees.ts';
import { receivingCsvHeader } from '../../core/finance/receiving.ts';
import { statementCsvHeader, statementLinesCsvHeader } from '../../core/finance/statement.ts';
import { accountLinesCsvHeader } from '../../core/finance/system-lines.ts';
import { trialBalanceCsvHeader } from '../../core/finance/trial-balance.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The columns the README lists after `<label> columns:`, without the values said in parentheses. */
function readmeColumns(label: string): string[] {
  const found = readme.match(new RegExp(`${label} columns: \`([^\`]*)\``));
  assert.ok(found, `README lists the ${label} CSV's columns`);
  return found![1]!.replace(/\([^)]*\)/g, '').split(',').map((c) => c.trim());
}

const documented: readonly [string, readonly string[]][] = [
  ['Statement', statementCsvHeader], ['Trial balance', trialBalanceCsvHeader], ['Fees', feeReportCsvHeader],
  ['Receiving-accounts', receivingCsvHeader], ['Statement-lines', statementLinesCsvHeader],
  ['Account-lines', accountLinesCsvHeader], ['Disputes', disputeReportCsvHeader],
];

for (const [label, header] of documented) {
  test(`README's ${label} columns are the CSV's, in order`, () => {
    assert.equal(readmeColumns(label), [...header]);
  });
}

test.run();
