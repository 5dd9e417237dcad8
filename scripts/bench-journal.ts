// `npm run bench:journal`: durable deposit creations per second through the real command
// handler and SQLite journal (WAL, synchronous=FULL), one transaction per command against
// group commit with 100 commands in flight, in the same run; then the recovery rate of
// the journal written. Prints one JSON object. The deposits go to awaiting_liquidity (no
// withdrawals are open), which keeps the rows per command lean: 2 journal entries, 1
// snapshot, 2 outbox events, 1 sequence bump, 1 timer, 1 idempotency record.
//
// Usage: npm run bench:journal [-- --commands N] [--mode both|single|group] [--dir DIR]
// (DIR, where the databases go, defaults to the system temp dir; they are removed after.)

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from '../core/handler/commands.ts';
import { limits } from '../core/limits.ts';
import { ManualClock } from '../adapters/clock.ts';
import { UlidIds } from '../adapters/ids.ts';
import { openDatabase } from '../adapters/sqlite/schema.ts';
import { recoverWorld } from '../adapters/sqlite/recovery.ts';
import { openStore, type Store } from '../adapters/sqlite/store.ts';
import { settled } from '../core/handler/handle.ts';

const inFlight = 100;
const args = process.argv.slice(2);
const arg = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const commands = Number(arg('--commands') ?? 6000);
const baseDir = arg('--dir') ?? tmpdir();

interface Figures { commands: number; commands_per_second: number; p50_commit_ms: number; p99_commit_ms: number; rows_per_command: number; outbox_body_bytes_avg: number }

async function setUp(store: Store): Promise<string> {
  const actor = { kind: 'operator' as const, operatorId: 'emp_bench' };
  const wl = await settled(store.submit({ type: 'RegisterWhiteLabel', actor, name: 'Bench' }));
  const m = await settled(store.submit({ type: 'RegisterMerchant', actor, whiteLabelId: (wl as { objectId: string }).objectId, name: 'Shop' }));
  return (m as { objectId: string }).objectId;
}

function depositCommand(merchantId: string, n: number): Command {
  return {
    type: 'CreateDeposit', actor: { kind: 'merchant', merchantId, livemode: true }, amountMinor: 100_000n, merchantReference: `ref-${n}`,
    endUserRef: `user-${n}`, sender: { bankCode: '014', accountNumber: '9876543210', accountNameTh: 'สมชาย ใจดี' }, hasClientData: true,
  };
}

/** Executes deposit n as the server would: request id, idempotency key and record. */
function run(store: Store, merchantId: string, n: number): Promise<unknown> {
  const key = `idem-${n}`;
  const now = store.clock.now();
  return settled(store.submit(depositCommand(merchantId, n), { requestId: `req_${n}`, idempotencyKey: key }, (outcome) => ({
    scope: `${merchantId}:live`, key, requestHash: 'h'.repeat(64), requestId: `req_${n}`, status: 201,
    body: JSON.stringify({ id: outcome.ok ? outcome.objectId : null }), createdAt: now, expiresAt: now + limits.idempotencyKeyLifetimeMs,
  })));
}

function percentile(sorted: number[], p: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 1000) / 1000;
}

async function measure(groupCommit: boolean): Promise<Figures & { dir: string }> {
  const dir = mkdtempSync(join(baseDir, `satang-bench-${groupCommit ? 'group' : 'single'}-`));
  const store = openStore(dir, { clock: new ManualClock(Date.UTC(2026, 10, 21, 3)), ids: new UlidIds(), groupCommit });
  const merchantId = await setUp(store);
  const rowsBefore = totalRows(store);
  const latencies: number[] = [];
  const timed = (n: number) => {
    const t0 = performance.now();
    return run(store, merchantId, n).then(() => latencies.push(performance.now() - t0));
  };
  const started = performance.now();
  if (groupCommit) {
    for (let n = 0; n < commands; n += inFlight) {
      const round: Promise<unknown>[] = [];
      for (let i = n; i < Math.min(commands, n + inFlight); i++) round.push(timed(i));
      await Promise.all(round);
    }
  } else {
    for (let n = 0; n < commands; n++) await timed(n);
  }
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const rows = (totalRows(store) - rowsBefore) / commands;
  const bodyBytes = store.db.prepare('SELECT AVG(LENGTH(CAST(body AS BLOB))) FROM outbox').pluck(true).get() as number;
  store.close();
  return {
    dir, commands, commands_per_second: Math.round(commands / elapsed), p50_commit_ms: percentile(latencies, 0.5), p99_commit_ms: percentile(latencies, 0.99),
    rows_per_command: Math.round(rows * 10) / 10, outbox_body_bytes_avg: Math.round(bodyBytes),
  };
}

function totalRows(store: Store): number {
  let total = 0;
  for (const t of ['journal', 'postings', 'snapshots', 'outbox', 'timers', 'idempotency']) total += store.db.prepare(`SELECT COUNT(*) FROM ${t}`).pluck(true).get() as number;
  return total;
}

function recoveryRate(dir: string): { entries: number; entries_per_second: number } {
  const db = openDatabase(dir, { mustExist: true });
  const r = recoverWorld(db);
  db.close();
  return { entries: r.entries, entries_per_second: Math.round(r.entries / (r.elapsedMs / 1000)) };
}

const mode = arg('--mode') ?? 'both';
const single = mode === 'group' ? null : await measure(false);
const group = mode === 'single' ? null : await measure(true);
const recovery = recoveryRate((group ?? single)!.dir);
for (const m of [single, group]) if (m && !arg('--dir')) rmSync(m.dir, { recursive: true, force: true });
const strip = (m: (Figures & { dir: string }) | null) => { if (!m) return null; const { dir: _dir, ...figures } = m; return figures; };
console.log(JSON.stringify({
  command: 'CreateDeposit (awaiting_liquidity) with idempotency record, WAL synchronous=FULL',
  one_transaction_per_command: strip(single),
  group_commit: group && { in_flight: inFlight, ...strip(group) },
  group_over_single: single && group ? Math.round((group.commands_per_second / single.commands_per_second) * 100) / 100 : null,
  recovery,
}, null, 2));
