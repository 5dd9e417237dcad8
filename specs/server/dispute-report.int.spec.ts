// The disputes report over real HTTP (GET /v1/bo/reports/disputes, role finance): a
// deposit fills the payer's withdrawal, ops opens a dispute on it, resolves it lost and
// opens another; the day's report lists both — the first resolved with its outcome and
// time, the second open — with merchant, withdrawal and integer satang, and totals that
// roll forward (open at the start + opened = resolved + open at the end, the resolved the
// sum of their outcomes). Its CSV says the same, line for line; the next day's report
// starts with the open one; another merchant's, the sandbox's and another role's see none.
// `satang report disputes` prints the table and, with --csv, the API's CSV unchanged.

import { test } from 'uvu';
import { bangkokWallTimeOf } from '../../core/finance/calendar.ts';
import * as assert from 'uvu/assert';
import { matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, type SlipScene } from '../support/slip-harness.ts';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { disputeReportCsvHeader } from '../../core/finance/disputes.ts';

let scene: SlipScene;
const satangPath = new URL('../../scripts/satang', import.meta.url).pathname;
const satangReport = (args: readonly string[]) => promisify(execFile)(satangPath, ['report', 'disputes', ...args], {
  env: { ...process.env, SATANG_DATA_DIR: scene.s.dataDir, SATANG_BASE_URL: scene.s.url, SATANG_LOG_LEVEL: 'silent' },
});

test.before(async () => { scene = await slipScene(); });
test.after(async () => { await scene.s.stop(); });

const bangkokDay = (ms: number) => new Date(ms + 7 * 3_600_000).toISOString().slice(0, 10);
const report = (query: string, roles = ['finance']) => scene.s.bo('GET', `/v1/bo/reports/disputes?${query}`, undefined, { roles });

/** A deposit settled into the payer's first withdrawal: a fill to dispute. */
async function filledWithdrawal(): Promise<string> {
  const d = await matchedDeposit(scene);
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, d, { image_sha256: sha256Hex(image) }));
  assert.is((await uploadFile(d.slip_upload, image)).status, 202);
  await scene.s.running.slipWorker.drain();
  return scene.withdrawalIds[0]!;
}

/** CSV text as rows of fields (the report writes no quoted commas for these values). */
const csvRows = (text: string) => text.trimEnd().split('\r\n').map((line) => line.split(','));

test('a dispute opened, resolved lost and another opened: the day\'s report in JSON and CSV, totals that roll forward', async () => {
  const withdrawalId = await filledWithdrawal();
  const first = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/disputes`, { reason_code: 'not_received', amount_minor: 30_000 }, { roles: ['ops_admin'] });
  assert.is(first.status, 201, first.text);
  const lost = await scene.s.bo('POST', `/v1/bo/disputes/${first.json.id}/resolve`, { outcome: 'merchant_lost', note: 'the payee bank confirmed no credit arrived' }, { roles: ['ops_admin'] });
  assert.is(lost.status, 200, lost.text);
  scene.s.clock.advance(60_000);
  const second = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/disputes`, { reason_code: 'wrong_amount', amount_minor: 10_001 }, { roles: ['ops_admin'] });
  assert.is(second.status, 201, second.text);
  const today = bangkokDay(scene.s.clock.now());

  const json = await report(`date=${today}`);
  assert.is(json.status, 200, json.text);
  assert.equal([json.json.object, json.json.livemode, json.json.date, json.json.time_zone], ['dispute_report', true, today, 'Asia/Bangkok']);
  const [a, b] = json.json.disputes;
  assert.equal(json.json.disputes.length, 2);
  assert.equal(a, {
    dispute_id: first.json.id, withdrawal_id: withdrawalId, merchant_id: scene.payer.id, merchant_name: 'Payer', reason_code: 'not_received',
    amount_minor: 30_000, status: 'resolved', opened_at: first.json.opened_at, respond_by: first.json.respond_by, resolved_at: a.resolved_at, outcome: 'merchant_lost',
  });
  assert.match(a.resolved_at, /^\d{4}-\d{2}-\d{2}T/);
  assert.equal([b.dispute_id, b.amount_minor, b.status, b.resolved_at, b.outcome], [second.json.id, 10_001, 'open', null, null]);
  const t = json.json.totals;
  assert.equal(t, {
    open_at_start: { count: 0, amount_minor: 0 }, opened: { count: 2, amount_minor: 40_001 },
    resolved: { count: 1, amount_minor: 30_000, by_outcome: { merchant_won: { count: 0, amount_minor: 0 }, merchant_lost: { count: 1, amount_minor: 30_000 }, withdrawn: { count: 0, amount_minor: 0 } } },
    open_at_end: { count: 1, amount_minor: 10_001 },
  });
  assert.is(t.open_at_start.amount_minor + t.opened.amount_minor, t.resolved.amount_minor + t.open_at_end.amount_minor, 'the totals roll forward');

  const csv = await report(`date=${today}&format=csv`);
  assert.is(csv.status, 200, csv.text);
  assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
  assert.is(csv.headers.get('content-disposition'), `attachment; filename="disputes-live-${today}.csv"`);
  const rows = csvRows(csv.text);
  assert.equal(rows[0], [...disputeReportCsvHeader]);
  const field = (row: string[], name: (typeof disputeReportCsvHeader)[number]) => row[disputeReportCsvHeader.indexOf(name)];
  const lines = rows.slice(1).map((r) => [field(r, 'line'), field(r, 'dispute_id'), field(r, 'withdrawal_id'), field(r, 'status'), field(r, 'outcome'), field(r, 'count'), field(r, 'amount_minor'), field(r, 'amount_baht')]);
  assert.equal(lines, [
    ['dispute', first.json.id, withdrawalId, 'resolved', 'merchant_lost', '1', '30000', '300.00'],
    ['dispute', second.json.id, withdrawalId, 'open', '', '1', '10001', '100.01'],
    ['open_at_start', '', '', '', '', '0', '0', '0.00'],
    ['opened', '', '', '', '', '2', '40001', '400.01'],
    ['resolved', '', '', '', 'merchant_won', '0', '0', '0.00'],
    ['resolved', '', '', '', 'merchant_lost', '1', '30000', '300.00'],
    ['resolved', '', '', '', 'withdrawn', '0', '0', '0.00'],
    ['open_at_end', '', '', '', '', '1', '10001', '100.01'],
  ]);

  // One merchant's: the payer's are all of them, the shop has none; the sandbox ledger has none.
  assert.is((await report(`date=${today}&merchant_id=${scene.payer.id}`)).json.disputes.length, 2);
  assert.equal((await report(`date=${today}&merchant_id=${scene.shop.id}`)).json.totals.opened, { count: 0, amount_minor: 0 });
  assert.equal((await report(`date=${today}&livemode=false`)).json.disputes, []);
  // A finance report: support is refused, as for the fees report.
  const support = await report(`date=${today}`, ['support']);
  assert.equal([support.status, support.json.error.code], [403, 'scope_denied']);
  // Bad input is the contract's 422, never a 500.
  const tomorrow = bangkokDay(scene.s.clock.now() + 86_400_000);
  assert.equal([(await report(`date=${tomorrow}`)).status, (await report(`date=${today}&format=xlsx`)).status, (await report(`date=${today}&month=${today.slice(0, 7)}`)).status], [422, 422, 422]);
  assert.is((await report(`date=${today}&merchant_id=mch_nobody`)).status, 404);

  // The next day opens with the dispute still open; the first, resolved before it, is not listed.
  scene.s.clock.advance(86_400_000);
  const next = await report(`date=${tomorrow}`);
  assert.is(next.status, 200, next.text);
  assert.equal(next.json.disputes.map((d: any) => [d.dispute_id, d.status]), [[second.json.id, 'open']]);
  assert.equal([next.json.totals.open_at_start, next.json.totals.opened, next.json.totals.resolved.count, next.json.totals.open_at_end],
    [{ count: 1, amount_minor: 10_001 }, { count: 0, amount_minor: 0 }, 0, { count: 1, amount_minor: 10_001 }]);
  // Both days as a period: the first day's report, over a longer period.
  const both = await report(`from=${today}&to=${tomorrow}`);
  assert.equal([both.json.disputes.length, both.json.totals.opened.count, both.json.totals.resolved.count, both.json.totals.open_at_end.count], [2, 2, 1, 1]);

  const period = ['--from', today, '--to', tomorrow, '--merchant', scene.payer.id];
  const table = (await satangReport(period)).stdout;
  assert.match(table, new RegExp(`^disputes live ${today} to ${tomorrow} `));
  const cells = (line: string) => line.trim().split(/ {2,}/);
  const rowOf = (label: string) => table.split('\n').map(cells).find((c) => c[0] === label);
  assert.equal(rowOf('dispute'), ['dispute', 'merchant', 'withdrawal', 'reason', 'count', 'THB', 'status', 'opened', 'resolved', 'outcome']);
  assert.equal(rowOf(first.json.id)!.slice(0, 6), [first.json.id, scene.payer.id, withdrawalId, 'not_received', '300.00', 'resolved'], 'a dispute has no count of its own');
  assert.ok(table.includes(second.json.id), table);
  // Each total row reads label, count (under 'count'), amount, and a resolved row its outcome.
  const totalOf = (s: { count: number; amount_minor: number }) => [String(s.count), (s.amount_minor / 100).toFixed(2)];
  const bothTotals = both.json.totals;
  assert.equal(rowOf('open at start'), ['open at start', ...totalOf(bothTotals.open_at_start)]);
  assert.equal(rowOf('opened'), ['opened', ...totalOf(bothTotals.opened)]);
  const resolvedRows = table.split('\n').map(cells).filter((c) => c[0] === 'resolved');
  assert.equal(resolvedRows, Object.entries(bothTotals.resolved.by_outcome).map(([outcome, s]: [string, any]) => ['resolved', ...totalOf(s), outcome]));
  assert.ok(resolvedRows.some((c) => c.join() === 'resolved,1,300.00,merchant_lost'), table);
  assert.equal(rowOf('open at end'), ['open at end', ...totalOf(bothTotals.open_at_end)]);
  const header = table.split('\n').find((l) => l.startsWith('dispute '))!;
  const opened = table.split('\n').find((l) => l.startsWith('opened '))!;
  assert.is(opened.indexOf('  2') + 3, header.indexOf('count') + 'count'.length, 'the count stands right-aligned under its header');
  // Its instants in Bangkok time, as every CLI table prints them (the header names Asia/Bangkok).
  const openedAt = both.json.disputes.find((d: any) => d.dispute_id === first.json.id).opened_at;
  assert.ok(table.includes(`${bangkokWallTimeOf(Date.parse(openedAt))} +07`), table);
  assert.not.ok(table.includes(openedAt), 'no UTC instant in the table');
  assert.is((await satangReport([...period, '--csv'])).stdout, (await report(`from=${today}&to=${tomorrow}&merchant_id=${scene.payer.id}&format=csv`)).text, 'the CSV as the API writes it');
});

test.run();
