// `npm run bench:projections`: the read side's two figures, printed as one JSON object.
//
// 1. Journal → read-model lag over NATS at a steady command rate (default 1,000 commands
//    per second for 10 s): a nats-server of its own (free port, temp store), the write side
//    and the relay in this process (as in the API), `scripts/satang projector` as a child
//    process (as in production). A command's lag is the time from its commit being durable
//    to every projection in projections.db having applied the journal's tail as it was then
//    (polled every lagPollMs, so figures are at most that much high). The mix: 50 % funding
//    adjustments, 25 % withdrawals (created, reserve posted), 25 % deposits (matched to
//    withdrawals or awaiting liquidity).
// 2. Rebuild speed: a journal of at least 1,000,000 entries (funding adjustments with 10 %
//    withdrawals, written through the real handler with group commit; kept in
//    .bench/projections-journal/ and reused, since writing it takes a while), replayed into
//    a fresh projections.db by the rebuild every projection uses.
//
// Usage: npm run bench:projections [-- --rate 1000 --seconds 10 --entries 1000000 --skip-lag --skip-rebuild]

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { ManualClock, SystemClock } from '../adapters/clock.ts';
import { UlidIds } from '../adapters/ids.ts';
import { JournalReader } from '../adapters/bus/journal-reader.ts';
import { openStore, type Store } from '../adapters/sqlite/store.ts';
import type { Command } from '../core/handler/commands.ts';
import { projections, projectionSchemas } from '../projections/all.ts';
import { openProjectionsDb, projectionsFileName } from '../projections/db.ts';
import { rebuildProjections } from '../projections/rebuild.ts';
import { startReadSide } from '../server/read-side.ts';
import { NatsServer } from '../specs/support/nats.ts';
import { settled } from '../core/handler/handle.ts';

const args = process.argv.slice(2);
const arg = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const ratePerSecond = Number(arg('--rate') ?? 1000);
const seconds = Number(arg('--seconds') ?? 10);
const rebuildEntries = Number(arg('--entries') ?? 1_000_000);
const tickMs = 10;
const lagPollMs = 1;
const merchantsCount = 20;
const operator = { kind: 'operator' as const, operatorId: 'emp_bench' };
const root = new URL('..', import.meta.url).pathname;
const require = createRequire(import.meta.url);

const quiet = { info() {}, warn() {}, error(fields: object, message: string) { console.error(message, fields); } };

function percentile(sorted: readonly number[], p: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 100) / 100;
}

async function ok(store: Store, command: Command): Promise<string> {
  const r = await settled(store.submit(command));
  if (!r.ok) throw new Error(`${command.type}: ${r.rejection.code}`);
  return r.objectId ?? '';
}

interface Party { merchantId: string; beneficiaryId: string }

async function setUp(store: Store, count: number): Promise<Party[]> {
  const wl = await ok(store, { type: 'RegisterWhiteLabel', actor: operator, name: 'Bench' });
  const parties: Party[] = [];
  for (let i = 0; i < count; i++) {
    const merchantId = await ok(store, { type: 'RegisterMerchant', actor: operator, whiteLabelId: wl, name: `Shop ${i}` });
    await ok(store, { type: 'PostAdjustment', actor: operator, merchantId, livemode: true, amountMinor: 10_000_000_000n, direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'bench' });
    const beneficiaryId = await ok(store, { type: 'RegisterBeneficiary', actor: operator, merchantId, livemode: true, bankCode: '004', accountNumber: `90000${String(i).padStart(5, '0')}`, accountNameTh: 'สมหญิง รักดี', verified: true });
    parties.push({ merchantId, beneficiaryId });
  }
  return parties;
}

function mixed(n: number, parties: readonly Party[]): Command {
  const p = parties[n % parties.length]!;
  const actor = { kind: 'merchant' as const, merchantId: p.merchantId, livemode: true };
  switch (n % 4) {
    case 1: return { type: 'CreateWithdrawal', actor, amountMinor: 50_000n, merchantReference: `w-${n}`, endUserRef: 'payee', beneficiaryId: p.beneficiaryId, requiresApproval: false, p2pMinimumApplies: false };
    case 3: return { type: 'CreateDeposit', actor, amountMinor: 20_000n, merchantReference: `d-${n}`, endUserRef: `u-${n}`, sender: { bankCode: '014', accountNumber: '9876543210', accountNameTh: 'สมชาย ใจดี' }, hasClientData: true };
    default: return { type: 'PostAdjustment', actor: operator, merchantId: p.merchantId, livemode: true, amountMinor: BigInt(1000 + n), direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'bench' };
  }
}

/**
 * Watches projections.db from a worker thread (so the writer's fsyncs on this thread do not
 * delay the observation): each time the lowest projection position moves, it reports the
 * position and the wall-clock instant (performance.timeOrigin + performance.now()).
 */
function positionWatcher(dir: string): { seen: { seq: number; at: number }[]; stop: () => Promise<void> } {
  const seen: { seq: number; at: number }[] = [];
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const Database = require(workerData.sqlite);
    const db = new Database(workerData.file, { readonly: true });
    db.pragma('busy_timeout = 5000');
    const q = db.prepare('SELECT count(*) AS n, min(last_seq) AS low FROM projection_positions');
    let last = -1;
    const timer = setInterval(() => {
      const r = q.get();
      const seq = r.n < workerData.projections ? 0 : (r.low ?? 0);
      if (seq !== last) { last = seq; parentPort.postMessage({ seq, at: performance.timeOrigin + performance.now() }); }
    }, workerData.pollMs);
    parentPort.on('message', () => { clearInterval(timer); db.close(); process.exit(0); });
  `;
  const worker = new Worker(code, { eval: true, workerData: { sqlite: require.resolve('better-sqlite3'), file: join(dir, projectionsFileName), projections: projections.length, pollMs: lagPollMs } });
  worker.on('message', (m: { seq: number; at: number }) => seen.push(m));
  return { seen, stop: () => new Promise((resolve) => { worker.once('exit', () => resolve()); worker.postMessage('stop'); }) };
}

const wallNow = () => performance.timeOrigin + performance.now();

async function lagOverNats(): Promise<Record<string, unknown>> {
  const nats = await NatsServer.start();
  const dir = mkdtempSync(join(tmpdir(), 'satang-bench-lag-'));
  const store = openStore(dir, { clock: new SystemClock(), ids: new UlidIds(), groupCommit: true });
  const readSide = await startReadSide({ dataDir: dir, natsUrl: nats.url, tail: () => store.world.lastSeq, log: quiet });
  const projector = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts/cli/main.ts'), 'projector', '--data-dir', dir, '--nats', nats.url], {
    cwd: root, env: { ...process.env, SATANG_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'inherit', 'inherit'],
  });
  const watcher = positionWatcher(dir);
  try {
    const parties = await setUp(store, merchantsCount);
    const reached = () => watcher.seen.length > 0 ? watcher.seen[watcher.seen.length - 1]!.seq : 0;
    const settle = async (seq: number) => {
      const deadline = Date.now() + 30_000;
      while (reached() < seq) {
        if (Date.now() > deadline) throw new Error(`the projections did not reach seq ${seq}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    await settle(store.world.lastSeq); // warm: the projector is connected and has the set-up

    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    loopDelay.enable();
    const commits: { seq: number; at: number }[] = [];
    const total = ratePerSecond * seconds;
    const perTick = (ratePerSecond * tickMs) / 1000;
    const inFlight: Promise<unknown>[] = [];
    const started = performance.now();
    for (let n = 0; n < total;) {
      const due = Math.min(total, Math.floor(((performance.now() - started) / tickMs + 1) * perTick));
      for (; n < due; n++) {
        const { durable } = store.capture(() => store.handler.execute(mixed(n, parties)));
        // Durable: the journal's tail now includes this command's entries.
        inFlight.push(durable.then(() => { readSide.wake(); commits.push({ seq: store.world.lastSeq, at: wallNow() }); }));
      }
      await new Promise((r) => setTimeout(r, tickMs));
    }
    await Promise.all(inFlight);
    const elapsed = (performance.now() - started) / 1000;
    loopDelay.disable();
    await settle(store.world.lastSeq);
    const lags: number[] = [];
    let i = 0;
    for (const c of commits) {
      while (watcher.seen[i]!.seq < c.seq) i++;
      lags.push(Math.max(0, watcher.seen[i]!.at - c.at));
    }
    lags.sort((a, b) => a - b);
    return {
      commands: total, commands_per_second: Math.round(total / elapsed), journal_entries: store.world.lastSeq,
      lag_samples: lags.length, lag_p50_ms: percentile(lags, 0.5), lag_p99_ms: percentile(lags, 0.99), lag_max_ms: percentile(lags, 1),
      writer_event_loop_delay_p99_ms: Math.round(loopDelay.percentile(99) / 1e4) / 100,
    };
  } finally {
    await watcher.stop();
    projector.kill('SIGTERM');
    await new Promise((r) => projector.once('exit', r));
    await readSide.close();
    store.close();
    await nats.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A journal of at least `entries` entries in .bench/projections-journal (written once, then reused). */
async function benchJournal(entries: number): Promise<{ dir: string; written_now: boolean; seconds_to_write: number }> {
  const dir = join(root, '.bench', 'projections-journal');
  if (existsSync(join(dir, 'journal.db'))) {
    const reader = new JournalReader(dir);
    const tail = reader.tail();
    reader.close();
    if (tail >= entries) return { dir, written_now: false, seconds_to_write: 0 };
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const store = openStore(dir, { clock: new ManualClock(Date.UTC(2026, 10, 21, 3)), ids: new UlidIds(), groupCommit: true });
  const parties = await setUp(store, 100);
  for (let n = 0; store.world.lastSeq < entries;) {
    const batch: Promise<unknown>[] = [];
    for (let i = 0; i < 1000; i++, n++) batch.push(settled(store.submit(n % 10 === 1 ? withdrawal(n, parties) : funding(n, parties))));
    await Promise.all(batch);
  }
  store.close();
  return { dir, written_now: true, seconds_to_write: Math.round((performance.now() - started) / 1000) };
}

function funding(n: number, parties: readonly Party[]): Command {
  const p = parties[n % parties.length]!;
  return { type: 'PostAdjustment', actor: operator, merchantId: p.merchantId, livemode: n % 3 !== 0, amountMinor: BigInt(100 + (n % 1000)), direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'bench' };
}

function withdrawal(n: number, parties: readonly Party[]): Command {
  const p = parties[n % parties.length]!;
  return { type: 'CreateWithdrawal', actor: { kind: 'merchant', merchantId: p.merchantId, livemode: true }, amountMinor: 10_000n, merchantReference: `w-${n}`, endUserRef: 'payee', beneficiaryId: p.beneficiaryId, requiresApproval: false, p2pMinimumApplies: false };
}

async function rebuildSpeed(): Promise<Record<string, unknown>> {
  const journal = await benchJournal(rebuildEntries);
  const out = mkdtempSync(join(tmpdir(), 'satang-bench-rebuild-'));
  try {
    // The rebuild reads the bench journal where it is and writes a fresh projections.db elsewhere.
    const reader = new JournalReader(journal.dir);
    const db = openProjectionsDb(out, projectionSchemas, quiet);
    const report = rebuildProjections(db, reader, projections);
    db.close();
    reader.close();
    return { journal: journal.dir, journal_written_now: journal.written_now, seconds_to_write_journal: journal.seconds_to_write, ...report };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const loadBefore = loadavg()[0]!;
const lag = args.includes('--skip-lag') ? null : await lagOverNats();
const rebuild = args.includes('--skip-rebuild') ? null : await rebuildSpeed();
console.log(JSON.stringify({
  machine: { cpus: cpus().length, load_average_1m_before: Math.round(loadBefore * 100) / 100, load_average_1m_after: Math.round(loadavg()[0]! * 100) / 100 },
  lag_over_nats: lag && { target_commands_per_second: ratePerSecond, seconds, ...lag, target_p99_ms: 50 },
  rebuild: rebuild && { ...rebuild, target_entries_per_second: 25_000 },
}, null, 2));
process.exit(0);
