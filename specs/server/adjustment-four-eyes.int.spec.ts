// Four eyes on a large live credit (an auditor's finding: one ops_admin's word and their own
// step-up made 9 billion baht appear in a wallet). A live credit adjustment of
// limits.adjustmentFourEyesMinorMin or more is proposed (202, nothing posted) and posted only
// when a second ops_admin approves it naming the amount; its proposer (in any spelling) cannot,
// a wrong amount is refused, a proposal lapses after 24 hours. Smaller live credits, debits
// and sandbox credits post at once, as before — until what one person credited alone in 24
// hours would reach the threshold: then a small one is proposed too (split credits), also when
// sent at once. The posted credit names both operators wherever the back office shows it
// (its balance transactions, the statement lines, the adjustments account's lines, JSON and
// CSV). Over real HTTP with real tokens.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'csv-parse/sync';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { bangkokDayOf } from '../../core/finance/calendar.ts';
import { limits } from '../../core/limits.ts';
import { TestServer } from '../support/server-harness.ts';
import { advance } from '../webhooks/support.ts';

let s: TestServer;

test.before(async () => { s = await TestServer.start(); });
test.after(async () => { await s.stop(); });

const big = limits.adjustmentFourEyesMinorMin;
const credit = (merchantId: string, amount: number, sub: string, livemode = true) =>
  s.bo('POST', `/v1/bo/merchants/${merchantId}/adjustments`, { livemode, amount_minor: amount, direction: 'credit', bucket: 'available', reason_code: 'FUNDING', reason: 'opening float, ticket 4411' }, { sub, roles: ['ops_admin'], stepUp: true });
const approve = (merchantId: string, proposalId: string, amount: number, sub: string) =>
  s.bo('POST', `/v1/bo/merchants/${merchantId}/adjustments/${proposalId}/approve`, { amount_minor: amount }, { sub, roles: ['ops_admin'], stepUp: true });
const available = async (merchantId: string, mode: 'live' | 'sandbox' = 'live') => (await s.bo('GET', `/v1/bo/merchants/${merchantId}/balance`)).json[mode].available_minor as number;

test('a large live credit is proposed, and posted only when a second operator approves it naming its amount', async () => {
  const m = await s.onboard('Four eyes on money');
  const proposed = await credit(m.id, big, 'emp_maker');
  assert.is(proposed.status, 202, proposed.text);
  assert.equal([proposed.json.object, proposed.json.status, proposed.json.amount_minor, proposed.json.proposed_by, proposed.json.livemode], ['adjustment_proposal', 'pending_approval', big, 'emp_maker', true]);
  assert.match(proposed.json.id, /^adjp_/);
  assert.is(await available(m.id), 0, 'nothing posted yet');
  const listed = await s.bo('GET', `/v1/bo/merchants/${m.id}/adjustment-proposals`, undefined, { roles: ['finance'] });
  assert.equal(listed.json.data.map((p: any) => [p.id, p.note, p.reason_code]), [[proposed.json.id, 'opening float, ticket 4411', 'FUNDING']]);

  for (const sub of ['emp_maker', 'EMP_Maker']) {
    const own = await approve(m.id, proposed.json.id, big, sub);
    assert.equal([own.status, own.json.error?.code], [409, 'operation_not_allowed'], `${sub}: ${own.text}`);
  }
  const misread = await approve(m.id, proposed.json.id, big * 10, 'emp_checker');
  assert.equal([misread.status, misread.json.error?.code, misread.json.error?.details?.fields?.[0]], [422, 'validation_error', { path: 'amount_minor', reason: 'mismatch' }], misread.text);
  assert.is(await available(m.id), 0, 'refusals post nothing');

  const posted = await approve(m.id, proposed.json.id, big, 'emp_checker');
  assert.is(posted.status, 201, posted.text);
  assert.equal([posted.json.object, posted.json.type, posted.json.amount_minor, posted.json.posted_by, posted.json.proposed_by, posted.json.note], ['balance_transaction', 'adjustment', big, 'emp_checker', 'emp_maker', 'opening float, ticket 4411']);
  assert.is(await available(m.id), big);
  assert.equal((await s.bo('GET', `/v1/bo/merchants/${m.id}/adjustment-proposals`)).json.data, []);
  const twice = await approve(m.id, proposed.json.id, big, 'emp_third');
  assert.is(twice.status, 404, 'posted once');
  assert.is(await available(m.id), big);
  // The merchant sees one balance transaction, as for any adjustment.
  const seen = await s.call(m.live.api_key, 'GET', '/v1/pay/balance');
  assert.is(seen.json.available_minor, big);
});

test('below the threshold, a debit and a sandbox credit post at once; a proposal lapses after 24 hours', async () => {
  const m = await s.onboard('One pair of eyes');
  const small = await credit(m.id, big - 1, 'emp_maker');
  assert.is(small.status, 201, small.text);
  const sandbox = await credit(m.id, big, 'emp_maker', false);
  assert.is(sandbox.status, 201, sandbox.text);
  assert.is(await available(m.id, 'sandbox'), big);
  const debit = await s.bo('POST', `/v1/bo/merchants/${m.id}/adjustments`, { livemode: true, amount_minor: big - 1, direction: 'debit', bucket: 'available', reason: 'taken back: the float was sent twice' }, { roles: ['ops_admin'], stepUp: true });
  assert.is(debit.status, 201, debit.text);
  assert.is(await available(m.id), 0);

  const proposed = await credit(m.id, big, 'emp_maker');
  assert.is(proposed.status, 202, proposed.text);
  const everyMerchants = async () => (await s.bo('GET', '/v1/bo/adjustment-proposals?limit=100')).json.data.map((p: { id: string }) => p.id);
  assert.ok((await everyMerchants()).includes(proposed.json.id), 'waiting, it is on the list of every merchant\'s');
  await advance(s, limits.adjustmentProposalTtlMs);
  const late = await approve(m.id, proposed.json.id, big, 'emp_checker');
  assert.equal([late.status, late.json.error?.code], [404, 'resource_not_found'], late.text);
  assert.match(late.json.error.message, /lapses after 24 hours/);
  assert.equal((await s.bo('GET', `/v1/bo/merchants/${m.id}/adjustment-proposals`)).json.data, [], 'a lapsed proposal is not listed');
  assert.not.ok((await everyMerchants()).includes(proposed.json.id), 'nor on the list of every merchant\'s');
  assert.is(await available(m.id), 0);
});

test('an approved credit names its proposer beside its approver wherever the back office shows it; a credit posted alone its poster only', async () => {
  const m = await s.onboard('Both names on the line');
  const proposed = await credit(m.id, big, 'emp_maker');
  assert.is(proposed.status, 202, proposed.text);
  const approved = await approve(m.id, proposed.json.id, big, 'emp_checker');
  assert.is(approved.status, 201, approved.text);
  const alone = await credit(m.id, 5_000, 'emp_alone');
  assert.is(alone.status, 201, alone.text);
  const expected = [[approved.json.id, 'emp_checker', 'emp_maker'], [alone.json.id, 'emp_alone', undefined]];
  const byId = (rows: any[], id: (r: any) => string, posted: (r: any) => unknown, proposedBy: (r: any) => unknown) =>
    expected.map(([want]) => rows.find((r) => id(r) === want)).map((r) => [r && id(r), r && posted(r), r && proposedBy(r)]);
  const finance = { roles: ['finance'] };

  const page = await s.bo('GET', `/v1/bo/merchants/${m.id}/balance-transactions?livemode=true`, undefined, finance);
  assert.is(page.status, 200, page.text);
  assert.equal(byId(page.json.data, (r) => r.id, (r) => r.posted_by, (r) => r.proposed_by), expected, 'the merchant page in the back office');

  const today = bangkokDayOf(s.clock.now());
  const lines = `/v1/bo/reports/statement-lines?merchant_id=${m.id}&livemode=true&date=${today}`;
  const json = await s.bo('GET', lines, undefined, finance);
  assert.is(json.status, 200, json.text);
  assert.equal(byId(json.json.data, (r) => r.id, (r) => r.posted_by, (r) => r.proposed_by), expected, 'the statement lines');
  const csv = parse((await s.bo('GET', `${lines}&format=csv`, undefined, finance)).text, { columns: true }) as Record<string, string>[];
  assert.equal(byId(csv, (r) => r.id, (r) => r.posted_by, (r) => r.proposed_by || undefined), expected, 'the statement lines CSV');

  const account = `/v1/bo/reports/account-lines?account=adjustments&livemode=true&date=${today}`;
  const accountJson = await s.bo('GET', account, undefined, finance);
  assert.is(accountJson.status, 200, accountJson.text);
  assert.equal(byId(accountJson.json.data, (r) => r.balance_transaction_id, (r) => r.posted_by, (r) => r.proposed_by), expected, 'the adjustments account lines');
  const accountCsv = parse((await s.bo('GET', `${account}&format=csv`, undefined, finance)).text, { columns: true }) as Record<string, string>[];
  assert.equal(byId(accountCsv, (r) => r.balance_transaction_id, (r) => r.posted_by, (r) => r.proposed_by || undefined), expected, 'the adjustments account lines CSV');

  // The merchant's own copy names neither operator, as before.
  const history = await s.call(m.live.api_key, 'GET', '/v1/pay/balance/transactions?limit=100');
  assert.is(history.status, 200, history.text);
  assert.not.ok(/emp_(maker|checker|alone)/.test(history.text), history.text);
});

/**
 * The statements reading the journal the server runs on its journal connection (the write
 * side's own, where the back office reads the journal) while `read` is answered, with their
 * arguments: each statement's run as better-sqlite3 runs it, whatever the route calls it.
 */
async function journalStatementsWhile(read: () => Promise<{ status: number; text: string }>, server = s): Promise<{ source: string; args: unknown[] }[]> {
  const db = server.running.store.db;
  const statement = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<'all' | 'get' | 'iterate' | 'run', (...args: unknown[]) => unknown>;
  const runs = ['all', 'get', 'iterate', 'run'] as const;
  const own = runs.map((name) => statement[name]);
  const ran: { source: string; args: unknown[] }[] = [];
  runs.forEach((name, i) => {
    statement[name] = function (this: { database: unknown; source: string }, ...args: unknown[]) {
      if (this.database === db && /\bjournal\b/.test(this.source)) ran.push({ source: this.source, args });
      return own[i]!.apply(this, args);
    };
  });
  try {
    const reply = await read();
    assert.is(reply.status, 200, reply.text);
  } finally {
    runs.forEach((name, i) => { statement[name] = own[i]!; });
  }
  return ran;
}

test('the proposers of a page of approved adjustments are read in as many statements, however many the page holds', async () => {
  const m = await s.onboard('Many approvals');
  const approveOne = async () => {
    const proposed = await credit(m.id, big, 'emp_maker');
    assert.is(proposed.status, 202, proposed.text);
    const approved = await approve(m.id, proposed.json.id, big, 'emp_checker');
    assert.is(approved.status, 201, approved.text);
  };
  const finance = { roles: ['finance'] };
  const today = bangkokDayOf(s.clock.now());
  const reads = [
    `/v1/bo/merchants/${m.id}/balance-transactions?livemode=true&limit=200`,
    `/v1/bo/reports/statement-lines?merchant_id=${m.id}&livemode=true&date=${today}`,
    `/v1/bo/reports/account-lines?account=adjustments&livemode=true&date=${today}`,
  ];
  const statements = async () => {
    const counts: number[] = [];
    for (const path of reads) counts.push((await journalStatementsWhile(() => s.bo('GET', path, undefined, finance))).length);
    return counts;
  };
  await approveOne();
  const forOne = await statements();
  for (let i = 0; i < 8; i++) await approveOne();
  const page = await s.bo('GET', reads[0]!, undefined, finance);
  assert.equal(page.json.data.map((r: any) => r.proposed_by), Array(9).fill('emp_maker'), 'each names its proposer');
  assert.equal(await statements(), forOne, 'the same statements for nine approved adjustments as for one');
});

/** How SQLite runs each statement that reads adjustment proposals from the journal, one plan line each step. */
function proposalReadPlans(db: TestServer['running']['store']['db'], ran: readonly { source: string; args: unknown[] }[]): string[][] {
  return ran.filter((r) => r.source.includes('AdjustmentProposed'))
    .map((r) => db.prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${r.source}`).all(...r.args).map((step) => step.detail));
}

const byIndex = (plan: readonly string[]) => plan.some((d) => /^SEARCH journal USING INDEX journal_adjustment_proposals\b/.test(d)) && !plan.some((d) => /^SCAN journal\b/.test(d));

test('an approved adjustment\'s proposal is found by its id in the journal\'s index, not by reading its merchant\'s stream; a journal from before the index gets it when the server starts', async () => {
  const own = await TestServer.start();
  let running: TestServer | null = own;
  try {
    const m = await own.onboard('Proposals by id');
    const proposed = await own.bo('POST', `/v1/bo/merchants/${m.id}/adjustments`, { livemode: true, amount_minor: big, direction: 'credit', bucket: 'available', reason_code: 'FUNDING', reason: 'opening float, ticket 4412' }, { sub: 'emp_maker', roles: ['ops_admin'], stepUp: true });
    assert.is(proposed.status, 202, proposed.text);
    const approved = await own.bo('POST', `/v1/bo/merchants/${m.id}/adjustments/${proposed.json.id}/approve`, { amount_minor: big }, { sub: 'emp_checker', roles: ['ops_admin'], stepUp: true });
    assert.is(approved.status, 201, approved.text);
    const path = `/v1/bo/merchants/${m.id}/balance-transactions?livemode=true`;
    const proposerShown = async (server: TestServer) => {
      const page = await server.bo('GET', path, undefined, { roles: ['finance'] });
      assert.is(page.status, 200, page.text);
      return page.json.data.find((r: any) => r.id === approved.json.id)?.proposed_by;
    };
    const ran = await journalStatementsWhile(() => own.bo('GET', path, undefined, { roles: ['finance'] }), own);
    const plans = proposalReadPlans(own.running.store.db, ran);
    assert.is(plans.length, 1, 'one statement reads the page\'s proposals');
    assert.ok(plans.every(byIndex), JSON.stringify(plans));
    assert.is(await proposerShown(own), 'emp_maker');

    // A journal.db as a build before the index left it: the server builds the index when it starts.
    running = null;
    await own.stop(false);
    const Database = (await import('better-sqlite3')).default;
    const file = new Database(join(own.dataDir, 'journal.db'));
    file.exec('DROP INDEX journal_adjustment_proposals');
    file.close();
    const again = (running = await TestServer.start({}, own.dataDir));
    assert.ok(again.running.store.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'journal_adjustment_proposals'").get(), 'the index is built on start');
    assert.is(await proposerShown(again), 'emp_maker');
  } finally {
    if (running) await running.stop();
    else rmSync(own.dataDir, { recursive: true, force: true });
  }
});

test("split credits: once what one person credited alone in 24 hours would reach the threshold, a small credit is proposed too, even sent all at once; a day later it posts again", async () => {
  const m = await s.onboard('Split float');
  const part = Math.floor(big / 4) - 1; // four of these stay under, the fifth would not
  const sent = await Promise.all(Array.from({ length: 6 }, (_, i) => credit(m.id, part, i % 2 === 0 ? 'emp_split' : 'EMP_SPLIT')));
  assert.equal(sent.map((r) => r.status).sort(), [201, 201, 201, 201, 202, 202], sent.map((r) => r.text).join('\n'));
  const waiting = sent.filter((r) => r.status === 202).map((r) => r.json);
  assert.equal(waiting.map((p) => p.proposer_recent_credits_minor), [4 * part, 4 * part], 'each proposal says what its proposer had credited alone');
  assert.is(await available(m.id), 4 * part);
  // Another person's word is their own; a credit the second operator approved counts for nobody.
  const other = await credit(m.id, part, 'emp_other');
  assert.is(other.status, 201, other.text);
  const approved = await approve(m.id, waiting[0].id, part, 'emp_other');
  assert.is(approved.status, 201, approved.text);
  assert.is((await credit(m.id, part, 'emp_other')).status, 201, "the approval is not emp_other's credit alone");
  await advance(s, limits.adjustmentSoloWindowMs);
  const nextDay = await credit(m.id, part, 'emp_split');
  assert.is(nextDay.status, 201, nextDay.text);
  assert.is((await s.bo('GET', `/v1/bo/merchants/${m.id}/adjustment-proposals`)).json.data.length, 0, 'the other proposal lapsed with the day');
});

test.run();
