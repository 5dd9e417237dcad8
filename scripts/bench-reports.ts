// `npm run bench:reports`: how long a daily statement and a trial balance take for a
// merchant with 1,000,000 balance transactions (issue 16: ≤ 200 ms each).
//
// Set-up: 1,000,000 balanced transactions of one live merchant (core's buildTransaction,
// which asserts each balances), spread evenly over 100 days on a realistic mix — deposit
// settled + its fee, clearing released, withdrawal reserved, settled + its fee, released,
// reversal, adjustment — plus a few other merchants' so the trial balance has company. They
// are applied as BalanceTransactionPosted journal entries by the real applier to the real
// finance_ledger projection in a fresh projections.db (synchronous OFF as in a rebuild).
//
// Measured (each repeated after one warm-up, p50 and max printed), over HTTP against a real
// server (startServer, manual clock at the end of the 100 days), each request signed or
// with an operator token as a client sends it: GET /v1/bo/reports/statements (JSON and
// CSV) for the first, a middle and the last day, for the last 30 days and for all 100
// days (periods: from and to), GET /v1/pay/reports/statements (HMAC,
// wallet:read), and GET /v1/bo/reports/trial-balance at the end and in the middle of an
// hour (which sums whole days, whole hours and that hour's transactions). Also the same
// reads in-process (projection read + build + present), without HTTP.
//
// How the data gets there: the merchant is onboarded through the store of a running
// server; the server stops; its projections.db gets the 1,000,000 transactions through
// the applier (numbered after the journal's tail, so the finance projection's position
// runs ahead of a journal that holds only the onboarding — writing a million transactions
// through the handler would take far longer than the measurement, and the routes read
// only the projection); the server starts again on that data directory and is measured.
//
// Usage: npm run bench:reports [-- --transactions 1000000 --days 100 --repeat 20]

import { mkdtempSync, rmSync } from 'node:fs';
import { ManualClock } from '../adapters/clock.ts';
import { assert } from '../core/assert.ts';
import { settled } from '../core/handler/handle.ts';
import { projectionSchemas } from '../projections/all.ts';
import { startServer, type Running } from '../server/main.ts';
import { signRequest } from '../server/hmac.ts';
import { mintKey } from '../server/routes/bo.ts';
import { allScopes } from '../server/ports.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bangkokDayOf } from '../core/finance/calendar.ts';
import { buildStatement, presentStatement, statementCsv } from '../core/finance/statement.ts';
import { buildTrialBalance, presentTrialBalance, trialBalanceCsv } from '../core/finance/trial-balance.ts';
import { encode } from '../core/journal.ts';
import { buildTransaction, type Movement } from '../core/ledger/ledger.ts';
import { Applier } from '../projections/applier.ts';
import { openProjectionsDb } from '../projections/db.ts';
import type { RelayedEntry } from '../projections/entry.ts';
import { projectionNames } from '../projections/all.ts';
import { financeLedger } from '../projections/finance-ledger.ts';

const args = process.argv.slice(2);
const arg = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const transactions = Number(arg('--transactions') ?? 1_000_000);
const days = Number(arg('--days') ?? 100);
const repeat = Number(arg('--repeat') ?? 20);
const entriesPerTransaction = 2000;
const otherMerchants = 5;
const startMs = Date.UTC(2026, 7, 1, 0, 0, 0);
const dayMs = 86_400_000;

/** The i-th movement of the mix; amounts keep every bucket non-negative along the way. */
function movement(i: number, owner: string): Omit<Movement, 'id' | 'createdAt'> {
  const base = { merchantId: owner, whiteLabelId: 'wl_bench', livemode: true, source: { type: 'bench', id: `src_${i}` } } as const;
  switch (i % 10) {
    case 0: return { ...base, type: 'adjustment', amountMinor: 1_000_000n, from: null, to: 'available', counter: [{ account: 'adjustments', amountMinor: 1_000_000n }] };
    case 1: return { ...base, type: 'deposit_settled', amountMinor: 50_000n, from: null, to: 'pending_clearing', counter: [{ account: 'p2p_transit', amountMinor: 50_000n }] };
    case 2: return { ...base, type: 'fee', amountMinor: 803n, from: 'pending_clearing', to: null, counter: [{ account: 'fee_revenue', amountMinor: 803n }] };
    case 3: return { ...base, type: 'clearing_released', amountMinor: 49_197n, from: 'pending_clearing', to: 'available', counter: [] };
    case 4: return { ...base, type: 'withdrawal_reserved', amountMinor: 101_070n, from: 'available', to: 'reserved', counter: [] };
    case 5: return { ...base, type: 'withdrawal_settled', amountMinor: 60_000n, from: 'reserved', to: null, counter: [{ account: 'p2p_transit', amountMinor: 60_000n }] };
    case 6: return { ...base, type: 'fee', amountMinor: 1_070n, from: 'reserved', to: null, counter: [{ account: 'fee_revenue', amountMinor: 1_070n }] };
    case 7: return { ...base, type: 'withdrawal_released', amountMinor: 40_000n, from: 'reserved', to: 'available', counter: [] };
    case 8: return { ...base, type: 'reversal', amountMinor: 5_000n, from: 'available', to: null, counter: [{ account: 'reversals', amountMinor: 5_000n }] };
    default: return { ...base, type: 'adjustment', amountMinor: 2_000n, from: 'available', to: null, counter: [{ account: 'adjustments', amountMinor: 2_000n }] };
  }
}

function entryOf(seq: number, i: number, createdAt: number, owner: string): RelayedEntry {
  const id = `btxn_${String(seq).padStart(12, '0')}`;
  const transaction = buildTransaction({ ...movement(i, owner), id, createdAt });
  return {
    seq, stream: id, kind: 'balance_transaction', version: 0, type: 'BalanceTransactionPosted', livemode: true, merchantId: owner,
    recordedAt: createdAt, data: encode({ type: 'BalanceTransactionPosted', at: createdAt, transaction }), events: [],
  };
}

function build(dir: string, merchantId: string): { applyMs: number; entries: number } {
  const db = openProjectionsDb(dir, projectionSchemas, { warn() {} });
  db.pragma('synchronous = OFF');
  const applier = new Applier(db, financeLedger);
  const spacingMs = (days * dayMs) / transactions;
  const started = performance.now();
  let seq = applier.position();
  const first = seq;
  let batch: RelayedEntry[] = [];
  const flush = () => { if (batch.length > 0) { const r = applier.applyRun(batch); if (r.outcome !== 'done') throw new Error(`apply: ${r.outcome}`); batch = []; } };
  for (let i = 0; i < transactions; i++) {
    const at = startMs + Math.floor(i * spacingMs);
    batch.push(entryOf(++seq, i, at, merchantId));
    // Now and then another merchant's transaction (10 per merchant per day).
    if (i % Math.max(1, Math.floor(transactions / (days * otherMerchants * 10))) === 0) batch.push(entryOf(++seq, i, at, `mch_bench_other_${i % otherMerchants}`));
    if (batch.length >= entriesPerTransaction) flush();
    if (i > 0 && i % 200_000 === 0) console.error(`  applied ${i} transactions`);
  }
  flush();
  db.close();
  return { applyMs: Math.round(performance.now() - started), entries: seq - first };
}

async function timed(fn: () => unknown): Promise<{ p50Ms: number; maxMs: number }> {
  const samples: number[] = [];
  await fn(); // the first read warms the page cache like a server that has been running
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 100) / 100;
  return { p50Ms: round(samples[Math.floor(samples.length / 2)]!), maxMs: round(samples[samples.length - 1]!) };
}

const operator = { kind: 'operator' as const, operatorId: 'emp_bench' };
const endMs = startMs + days * dayMs - 1;
const serverEnv = (dir: string) => ({ SATANG_DATA_DIR: dir, SATANG_PORT: '0', SATANG_CLOCK: 'manual', SATANG_LOG_LEVEL: 'silent' });

async function onboard(dir: string): Promise<{ merchantId: string; secret: string }> {
  const running = await startServer(serverEnv(dir), { clock: new ManualClock(startMs - dayMs) });
  const ok = async (c: Parameters<Running['store']['submit']>[0]) => {
    const r = await settled(running.store.submit(c));
    if (!r.ok) throw new Error(`${c.type}: ${r.rejection.code}`);
    return r.objectId!;
  };
  const wl = await ok({ type: 'RegisterWhiteLabel', actor: operator, name: 'Bench' });
  const merchantId = await ok({ type: 'RegisterMerchant', actor: operator, whiteLabelId: wl, name: 'ร้านทดสอบ' });
  const secret = mintKey(running.services, merchantId, true, allScopes).secret;
  for (const name of projectionNames) {
    if (!(await running.readSide.caughtUp(name, running.store.world.lastSeq, 10_000))) throw new Error(`${name} did not catch up`);
  }
  await running.close();
  return { merchantId, secret };
}

async function get(url: string, headers: Record<string, string>): Promise<void> {
  const r = await fetch(url, { headers });
  const body = await r.text();
  if (r.status !== 200) throw new Error(`${url}: HTTP ${r.status} ${body.slice(0, 300)}`);
}

const dir = mkdtempSync(join(tmpdir(), 'satang-bench-reports-'));
try {
  const { merchantId, secret } = await onboard(dir);
  console.error(`building ${transactions} balance transactions of ${merchantId} over ${days} days…`);
  const built = build(dir, merchantId);
  const running = await startServer(serverEnv(dir), { clock: new ManualClock(endMs + 1) });
  try {
    const token = await running.devIssuer!.mint('emp_bench', { roles: ['finance'] });
    const bo = (path: string) => () => get(running.url + path, { Authorization: `Bearer ${token}` });
    const pay = (path: string) => () => {
      const [p = '', query = ''] = path.split('?');
      return get(running.url + path, signRequest({ secret, method: 'GET', path: p, query, body: '', version: '2026-08-01' }));
    };
    const first = bangkokDayOf(startMs), middle = bangkokDayOf(startMs + Math.floor(days / 2) * dayMs), last = bangkokDayOf(endMs);
    const statementPath = (day: string) => `/v1/bo/reports/statements?merchant_id=${merchantId}&livemode=true&date=${day}`;
    const periodPath = (from: string, to: string) => `/v1/bo/reports/statements?merchant_id=${merchantId}&livemode=true&from=${from}&to=${to}`;
    const monthBefore = bangkokDayOf(endMs - 29 * dayMs);
    const midHour = startMs + Math.floor(days / 2) * dayMs + 13 * 3_600_000 + 1_799_999;
    const reads = running.readSide.models.finance;
    const inProcessStatement = (from: string, to = from) => () => {
      const f = reads.statement(merchantId, true, from, to);
      const st = buildStatement({ merchantId, merchantName: 'ร้านทดสอบ', livemode: true, from, to }, f.opening, f.lines, f.closing);
      JSON.stringify(presentStatement(st, endMs));
      statementCsv(st);
    };
    const inProcessTrialBalance = (asOfMs: number) => () => {
      const figures = running.readSide.models.trialBalance(asOfMs);
      assert(figures.ready, 'the projections are idle: the debts projections at finance_ledger\'s position');
      const tb = buildTrialBalance(asOfMs, figures.turnovers, figures.owedByPayers, figures.owedByPayees);
      const name = (id: string) => running.store.world.merchants.get(id)?.name;
      JSON.stringify(presentTrialBalance(tb, name));
      trialBalanceCsv(tb, name);
    };
    const perDay = reads.statement(merchantId, true, middle, middle).lines.reduce((t, l) => t + l.count, 0);
    const result = {
      transactions_of_merchant: transactions, entries_applied: built.entries, days, apply_ms: built.applyMs,
      bucket_postings_on_a_middle_day: perDay, repeat,
      http: {
        bo_statement_first_day: await timed(bo(statementPath(first))),
        bo_statement_middle_day: await timed(bo(statementPath(middle))),
        bo_statement_last_day: await timed(bo(statementPath(last))),
        bo_statement_last_day_csv: await timed(bo(`${statementPath(last)}&format=csv`)),
        bo_statement_last_30_days: await timed(bo(periodPath(monthBefore, last))),
        bo_statement_every_day: await timed(bo(periodPath(first, last))),
        bo_statement_every_day_csv: await timed(bo(`${periodPath(first, last)}&format=csv`)),
        pay_statement_last_day: await timed(pay(`/v1/pay/reports/statements?date=${last}`)),
        trial_balance_at_end: await timed(bo('/v1/bo/reports/trial-balance')),
        trial_balance_mid_hour: await timed(bo(`/v1/bo/reports/trial-balance?as_of=${new Date(midHour).toISOString()}`)),
        trial_balance_csv: await timed(bo('/v1/bo/reports/trial-balance?format=csv')),
      },
      in_process: {
        statement_middle_day: await timed(inProcessStatement(middle)),
        statement_last_day: await timed(inProcessStatement(last)),
        statement_every_day: await timed(inProcessStatement(first, last)),
        trial_balance_at_end: await timed(inProcessTrialBalance(endMs)),
        trial_balance_mid_hour: await timed(inProcessTrialBalance(midHour)),
      },
      budget_ms: 200,
    };
    console.log(JSON.stringify(result, null, 2));
    const worst = Math.max(...Object.values(result.http).map((x) => x.maxMs));
    if (worst > result.budget_ms) { console.error(`over budget: ${worst} ms > ${result.budget_ms} ms`); process.exitCode = 1; }
  } finally {
    await running.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  rmSync(`${dir}.master-key`, { force: true });
}
