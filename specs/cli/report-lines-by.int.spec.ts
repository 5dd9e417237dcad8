// `satang report statement-lines` and `report account-lines` name the operator behind each
// line, as their JSON and CSV do: a `by` column with posted_by, and "· proposed by X" for an
// adjustment a second operator approved (four eyes on a large live credit). Run as a finance
// analyst runs them (a child process against a real server sharing its data directory, real
// operator tokens and step-ups); the column is read where the header puts it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bangkokDayOf } from '../../core/finance/calendar.ts';
import { limits } from '../../core/limits.ts';
import { satangRun } from '../support/projections.ts';
import { TestServer } from '../support/server-harness.ts';

let s: TestServer;

test.before(async () => { s = await TestServer.start(); });
test.after(async () => { await s.stop(); });

const report = (args: readonly string[]) => satangRun(['report', ...args], { SATANG_DATA_DIR: s.dataDir, SATANG_BASE_URL: s.url });

const credit = (merchantId: string, amount: number, sub: string) =>
  s.bo('POST', `/v1/bo/merchants/${merchantId}/adjustments`, { livemode: true, amount_minor: amount, direction: 'credit', bucket: 'available', reason_code: 'FUNDING', reason: 'opening float, ticket 4411' }, { sub, roles: ['ops_admin'], stepUp: true });

/** The table's `by` cell on the row naming `id`: the text from where the header's `by` starts up to the next column's (cells are left-aligned, ASCII here). */
function byCell(table: string, id: string): string {
  const lines = table.split('\n');
  const header = lines.find((l) => /^date\s/.test(l))!;
  const from = header.search(/ by /) + 1;
  const to = header.search(/ reason$/) + 1;
  assert.ok(from > 0 && to > from, `a by column before reason: ${header}`);
  const row = lines.find((l) => l.includes(` ${id} `));
  assert.ok(row, `a row for ${id}:\n${table}`);
  return row!.slice(from, to).trim();
}

test('the statement lines and the adjustments account lines say who posted each adjustment, and who proposed one a second operator approved', async () => {
  const m = await s.onboard('Named on the line');
  const proposed = await credit(m.id, limits.adjustmentFourEyesMinorMin, 'emp_maker');
  assert.is(proposed.status, 202, proposed.text);
  const approved = await s.bo('POST', `/v1/bo/merchants/${m.id}/adjustments/${proposed.json.id}/approve`, { amount_minor: limits.adjustmentFourEyesMinorMin }, { sub: 'emp_checker', roles: ['ops_admin'], stepUp: true });
  assert.is(approved.status, 201, approved.text);
  const alone = await credit(m.id, 5_000, 'emp_alone');
  assert.is(alone.status, 201, alone.text);
  const day = bangkokDayOf(s.clock.now());

  const lines = await report(['statement-lines', '--merchant', m.id, '--date', day]);
  assert.is(lines.code, 0, lines.stderr);
  assert.is(byCell(lines.stdout, approved.json.id), 'emp_checker · proposed by emp_maker', lines.stdout);
  assert.is(byCell(lines.stdout, alone.json.id), 'emp_alone', lines.stdout);

  const account = await report(['account-lines', '--account', 'adjustments', '--date', day]);
  assert.is(account.code, 0, account.stderr);
  assert.is(byCell(account.stdout, approved.json.id), 'emp_checker · proposed by emp_maker', account.stdout);
  assert.is(byCell(account.stdout, alone.json.id), 'emp_alone', account.stdout);
  // The opening and closing lines name nobody.
  for (const edge of ['opening', 'closing']) assert.is(byCell(account.stdout, edge), '', account.stdout);
});

test.run();
