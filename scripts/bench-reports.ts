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
// Measured (each repeated, p50 and max printed): the work the report routes do after the
// freshness check — read the projection in one transaction, build (and assert) the report,
// present it as JSON and as CSV — for a statement on the first day, a middle day and the
// last day, and a trial balance at the last instant and in the middle of an hour (which
// sums whole days, whole hours and that hour's transactions). HTTP framing is not included.
//
// Usage: npm run bench:reports [-- --transactions 1000000 --days 100 --repeat 20]

import { mkdtempSync, rmSync } from 'node:fs';
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
import { financeLedger } from '../projections/finance-ledger.ts';
import { FinanceReads } from '../projections/finance-reads.ts';

const args = process.argv.slice(2);
const arg = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const transactions = Number(arg('--transactions') ?? 1_000_000);
const days = Number(arg('--days') ?? 100);
const repeat = Number(arg('--repeat') ?? 20);
const entriesPerTransaction = 2000;
const otherMerchants = 5;
const startMs = Date.UTC(2026, 7, 1, 0, 0, 0);
const dayMs = 86_400_000;
const merchantId = 'mch_bench_statement';

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

function build(dir: string): { applyMs: number; entries: number } {
  const db = openProjectionsDb(dir, [financeLedger.schema]);
  db.pragma('synchronous = OFF');
  const applier = new Applier(db, financeLedger);
  const spacingMs = (days * dayMs) / transactions;
  const started = performance.now();
  let seq = 0;
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
  return { applyMs: Math.round(performance.now() - started), entries: seq };
}

function timed(fn: () => void): { p50Ms: number; maxMs: number } {
  const samples: number[] = [];
  fn(); // the first read warms the page cache like a server that has been running
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    fn();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 100) / 100;
  return { p50Ms: round(samples[Math.floor(samples.length / 2)]!), maxMs: round(samples[samples.length - 1]!) };
}

const dir = mkdtempSync(join(tmpdir(), 'satang-bench-reports-'));
try {
  console.error(`building ${transactions} balance transactions over ${days} days…`);
  const built = build(dir);
  const db = openProjectionsDb(dir, [financeLedger.schema]);
  const reads = new FinanceReads(db);
  const endMs = startMs + days * dayMs - 1;
  const statement = (day: string) => () => {
    const f = reads.statement(merchantId, true, day);
    const s = buildStatement({ merchantId, merchantName: 'ร้านทดสอบ', livemode: true, day }, f.opening, f.lines, f.closing);
    JSON.stringify(presentStatement(s, endMs));
    statementCsv(s);
  };
  const trialBalance = (asOfMs: number) => () => {
    const tb = buildTrialBalance(asOfMs, reads.trialBalance(asOfMs).turnovers);
    JSON.stringify(presentTrialBalance(tb));
    trialBalanceCsv(tb);
  };
  const midHour = startMs + Math.floor(days / 2) * dayMs + 13 * 3_600_000 + 1_799_999;
  const perDay = reads.statement(merchantId, true, bangkokDayOf(startMs + Math.floor(days / 2) * dayMs)).lines.reduce((t, l) => t + l.count, 0);
  const result = {
    transactions_of_merchant: transactions, journal_entries: built.entries, days, apply_ms: built.applyMs,
    bucket_postings_on_a_middle_day: perDay, repeat,
    statement_first_day: timed(statement(bangkokDayOf(startMs))),
    statement_middle_day: timed(statement(bangkokDayOf(startMs + Math.floor(days / 2) * dayMs))),
    statement_last_day: timed(statement(bangkokDayOf(endMs))),
    trial_balance_at_end: timed(trialBalance(endMs)),
    trial_balance_mid_hour: timed(trialBalance(midHour)),
    budget_ms: 200,
  };
  db.close();
  console.log(JSON.stringify(result, null, 2));
  const worst = Math.max(result.statement_first_day.maxMs, result.statement_middle_day.maxMs, result.statement_last_day.maxMs, result.trial_balance_at_end.maxMs, result.trial_balance_mid_hour.maxMs);
  if (worst > result.budget_ms) { console.error(`over budget: ${worst} ms > ${result.budget_ms} ms`); process.exitCode = 1; }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
