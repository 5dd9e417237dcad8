// `npm run bench:api`: the service's headline figures, measured from outside over HTTP and
// printed as one JSON object (progress goes to stderr).
//
// Four scenarios, each a fixed window after a warm-up, at a fixed number of connections,
// each server in its own process and the load generator (scripts/bench/api-load.ts) in
// another, so no two share an event loop:
//   1. bare:        Koa + koa-body + the nine-line HMAC check answering 201 (the ceiling);
//   2. bare_fsync:  the same + one synchronous=FULL WAL SQLite insert per request;
//   3. create:      satang (`server/main.ts` on the embedded default, temp data dir),
//                   signed POST /v1/pay/deposits; 201 and 202 (awaiting liquidity: the
//                   merchant has none) both count as created;
//   4. get:         signed GET /v1/pay/deposits/{id} over the deposits created in 3, on the
//                   same satang process.
// The merchant gets enough live keys that the per-key rate limits (600 writes and 1,200
// reads a minute) do not bind at up to rateCeilingPerSecond, and requests go round-robin
// over them. Ratios compare created deposits with the bare ceilings of the same run.
//
// `npm run bench:memory` (`--memory N`) is the bounded-memory run instead: satang on a
// manual clock takes N signed deposits (default 1,000,000) in windows of --seconds; after
// each window the clock is advanced past the liquidity wait (POST /v1/bo/clock/advance), so
// every deposit of the window expires (canceled for want of liquidity: the merchant has
// none) and leaves the write side's memory; the server's RSS (VmRSS) is sampled after
// every window. Prints the samples, the peak and the final RSS against the 300 MB target.
// --server-heap-mb caps V8's old space in the satang process (as a deployment would): what
// stays above it is native memory (SQLite caches, code, buffers).
//
// Usage: npm run bench:api [-- --seconds 8 --warmup 2 --connections 50 --keys N --profile DIR]
//        npm run bench:memory [-- --memory 1000000 --seconds 10 --server-heap-mb 160]
// (--profile: the satang server writes a V8 CPU profile there; summarise it with
// `node scripts/bench/profile-summary.mjs DIR/*.cpuprofile`. --wal-copy DIR: journal.db
// and its WAL are copied there as the create window ends; `node scripts/bench/wal-pages.mjs
// DIR/journal.db` says which tables and indexes the last group commits wrote pages of.)

import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { devIssuerOf } from './cli/token.ts';
import { allScopes } from '../server/ports.ts';
import type { LoadMessage, LoadPlan, LoadReport } from './bench/api-load.ts';
import { startSatangProcess, stopProcess } from './bench/satang-process.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    keys: { type: 'string' },
    // Where the satang server writes a V8 CPU profile (node --cpu-prof) of its whole run.
    profile: { type: 'string' },
    // The bounded-memory run: this many deposits created and expired (see above).
    memory: { type: 'string' },
    // The memory run: V8's old-space limit of the satang process, MB (node --max-old-space-size); unset, V8's default.
    'server-heap-mb': { type: 'string' },
    // Where journal.db and its WAL are copied as the create window ends (read them with scripts/bench/wal-pages.mjs).
    'wal-copy': { type: 'string' },
  },
});
const memoryDeposits = values.memory !== undefined ? positive('memory', values.memory) : undefined;
const seconds = positive('seconds', values.seconds);
const warmupSeconds = positive('warmup', values.warmup, true);
const connections = positive('connections', values.connections);
// Per-key quotas: a fixed 60 s window per key and bucket (server/rate-limit.ts).
const writesPerKeyPerWindow = 600;
// The key count assumes no scenario goes faster than this; --keys overrides it.
const rateCeilingPerSecond = 10_000;
// The memory run goes on for minutes: enough keys that a 60 s window never binds.
const rateWindowSeconds = 60;
const keysCount = values.keys !== undefined ? positive('keys', values.keys)
  : Math.ceil((rateCeilingPerSecond * (memoryDeposits !== undefined ? rateWindowSeconds : warmupSeconds + seconds)) / writesPerKeyPerWindow);

const host = '127.0.0.1';
const root = new URL('..', import.meta.url).pathname;
const tsx = ['--import', 'tsx'];
// /proc/<pid>/stat counts CPU time in clock ticks: 100 a second on Linux (getconf CLK_TCK).
const clockTicksPerSecond = 100;
const bareKey = `sk_live_bench_${randomUUID()}`;
const operatorSub = 'emp_bench';
const operatorRoles = ['ops_admin', 'reviewer', 'approver', 'finance', 'support'];

const targets = {
  createPerSecondMin: 3_000,
  createP99MsMax: 50,
  createOverBareMin: 0.45,
  getPerSecondMin: 6_000,
  getP99MsMax: 20,
  memoryRssMbMax: 300,
};
/** Past the liquidity wait (core/limits.ts liquidityWaitMs, 10 minutes) with a minute to spare. */
const memoryAdvanceSeconds = 11 * 60;

function positive(name: string, text: string | undefined, zeroAllowed = false): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0 || (!zeroAllowed && n === 0)) throw new Error(`--${name} must be a ${zeroAllowed ? 'non-negative' : 'positive'} number, not ${text}`);
  return n;
}

const progress = (message: string) => console.error(`[bench:api] ${message}`);
const round2 = (x: number) => Math.round(x * 100) / 100;

/** Children still running, stopped if this process is interrupted. */
const children = new Set<ChildProcess>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => { for (const c of children) c.kill('SIGKILL'); process.exit(130); });
}

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

const stop = stopProcess;

/**
 * What a process has written so far (/proc/<pid>/io: bytes sent to the block layer, and
 * write system calls, all its threads); undefined where /proc is missing.
 */
function writesOf(pid: number | undefined): { bytes: number; calls: number } | undefined {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1]);
    const w = { bytes: field('write_bytes'), calls: field('syscw') };
    return Number.isFinite(w.bytes) && Number.isFinite(w.calls) ? w : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds a process has used so far, all its threads, or only its main thread (the
 * event loop: /proc/<pid>/task/<pid>); undefined where /proc is missing.
 */
function cpuSecondsOf(pid: number | undefined, mainThreadOnly = false): number | undefined {
  try {
    const stat = readFileSync(mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // the name may hold spaces
    return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond; // utime, stime
  } catch {
    return undefined;
  }
}

type Measured = LoadReport & {
  server_cpu_percent: number | null;
  /** The server's event-loop thread alone: what decides throughput once it is saturated. */
  server_main_thread_cpu_percent: number | null;
  /** Event-loop CPU per successful answer, µs: the path's cost, less sensitive than req/s to what else the machine runs. */
  server_main_thread_cpu_us_per_request: number | null;
  /** Bytes the server wrote to its files (WAL frames, checkpoints, projections, request log) per successful answer. */
  server_write_bytes_per_request: number | null;
  /** Write system calls (sockets included) per successful answer. */
  server_write_calls_per_request: number | null;
};

/**
 * Runs one load plan in a fresh load-generator process. The server's CPU use over the
 * window shows how much of the shared machine it got (two cores: up to 200 %).
 */
function load(plan: LoadPlan, server: ChildProcess): Promise<Measured> {
  const child = track(fork(join(root, 'scripts/bench/api-load.ts'), [], { execArgv: tsx, stdio: ['ignore', 2, 2, 'ipc'] }));
  let serverCpuAtStart: number | undefined;
  let mainCpuAtStart: number | undefined;
  let writesAtStart: { bytes: number; calls: number } | undefined;
  return new Promise((resolve, reject) => {
    child.on('message', (message: LoadMessage) => {
      if (message.kind === 'window_started') {
        serverCpuAtStart = cpuSecondsOf(server.pid);
        mainCpuAtStart = cpuSecondsOf(server.pid, true);
        writesAtStart = writesOf(server.pid);
        return;
      }
      const serverCpuAtEnd = cpuSecondsOf(server.pid);
      const mainCpuAtEnd = cpuSecondsOf(server.pid, true);
      const writesAtEnd = writesOf(server.pid);
      const r = message.report;
      const serverCpu = serverCpuAtStart !== undefined && serverCpuAtEnd !== undefined
        ? Math.round(((serverCpuAtEnd - serverCpuAtStart) * 100) / r.measured_seconds) : null;
      const mainCpu = mainCpuAtStart !== undefined && mainCpuAtEnd !== undefined ? mainCpuAtEnd - mainCpuAtStart : null;
      const answered = r.requests_per_second * r.measured_seconds;
      resolve({
        ...r, server_cpu_percent: serverCpu,
        server_main_thread_cpu_percent: mainCpu === null ? null : Math.round((mainCpu * 100) / r.measured_seconds),
        server_main_thread_cpu_us_per_request: mainCpu === null || answered === 0 ? null : Math.round((mainCpu * 1e6) / answered),
        server_write_bytes_per_request: writesAtStart && writesAtEnd && answered > 0 ? Math.round((writesAtEnd.bytes - writesAtStart.bytes) / answered) : null,
        server_write_calls_per_request: writesAtStart && writesAtEnd && answered > 0 ? round2((writesAtEnd.calls - writesAtStart.calls) / answered) : null,
      });
    });
    child.once('exit', (code) => reject(new Error(`load generator exited with ${code} before reporting`)));
    child.send(plan);
  });
}

/** A bare server process; resolves with its port once it listens. */
async function startBare(fsyncDb?: string): Promise<{ child: ChildProcess; port: number }> {
  const args = ['--key', bareKey, ...(fsyncDb ? ['--fsync', '--db', fsyncDb] : [])];
  const child = track(fork(join(root, 'scripts/bench/api-bare.ts'), args, { execArgv: tsx, stdio: ['ignore', 2, 2, 'ipc'] }));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code} before listening`)));
  });
  return { child, port };
}


/** satang on the embedded default, as `npm start` runs it, on a temp data dir (profiled with --profile). */
function startSatang(dataDir: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; url: string }> {
  const profiling = values.profile ? ['--cpu-prof', '--cpu-prof-dir', values.profile] : [];
  return startSatangProcess(dataDir, { extraEnv, nodeArgs: profiling, track });
}

/** A signed-in operator's POST to the back office (all roles, step-up on request). */
type BoPost = (path: string, body: unknown, stepUp?: boolean, expected?: number) => Promise<Record<string, any>>;

/** Onboards one merchant over the back-office API and mints its extra live keys. */
async function onboard(url: string, dataDir: string): Promise<{ keys: string[]; bo: BoPost }> {
  // The key pair the server created, sealed under the master key it generated beside the data dir.
  const issuer = await devIssuerOf(dataDir);
  const now = () => Math.floor(Date.now() / 1000);
  // Operator writes are rate limited per operator (bo_write, 600 a minute): minting 1,000
  // keys in seconds is a script's work, so it goes as a new operator every 500 writes.
  let writes = 0;
  const bo: BoPost = async (path, body, stepUp = false, expected = 201) => {
    const sub = `${operatorSub}_${Math.floor(writes++ / 500)}`;
    const headers: Record<string, string> = {
      Authorization: `Bearer ${await issuer.mint(sub, { roles: operatorRoles, nowSeconds: now() })}`,
      'Content-Type': 'application/json', 'Idempotency-Key': randomUUID(),
    };
    if (stepUp) headers['X-PG-Step-Up-Token'] = await issuer.mint(sub, { roles: operatorRoles, stepUp: true, nowSeconds: now() });
    const res = await fetch(url + path, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = await res.json() as Record<string, any>;
    if (res.status !== expected) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  const whiteLabel = await bo('/v1/bo/white-labels', { name: 'Bench brand' });
  const merchant = await bo('/v1/bo/merchants', { white_label_id: whiteLabel.id, name: 'Bench shop' });
  const keys: string[] = [merchant.keys.live.api_key];
  while (keys.length < keysCount) {
    const key = await bo(`/v1/bo/merchants/${merchant.id}/keys`, { livemode: true, scopes: allScopes }, true);
    keys.push(key.api_key);
  }
  return { keys, bo };
}

type Scenario = Omit<Measured, 'ids'>;

function plan(port: number, mode: LoadPlan['mode'], keys: string[], okStatuses: number[], depositIds: string[] = [], collectIds = false): LoadPlan {
  return { host, port, mode, keys, depositIds, connections, warmupSeconds, seconds, okStatuses, collectIds };
}

function summary(name: string, r: Scenario): void {
  progress(`${name}: ${r.requests_per_second}/s, p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms, errors ${JSON.stringify(r.errors_by_status)}, CPU server ${r.server_cpu_percent} % (event loop ${r.server_main_thread_cpu_percent} %, ${r.server_main_thread_cpu_us_per_request} µs a request) / load generator ${r.load_generator_cpu_percent} %, server wrote ${r.server_write_bytes_per_request} bytes in ${r.server_write_calls_per_request} write calls a request`);
}

async function bareScenario(fsyncDb?: string): Promise<Scenario> {
  const { child, port } = await startBare(fsyncDb);
  try {
    const { ids: _ids, ...report } = await load(plan(port, 'create', [bareKey], [201]), child);
    return report;
  } finally {
    await stop(child);
  }
}

/** journal.db's WAL (the last group commits of the create window) and the database, copied for scripts/bench/wal-pages.mjs. */
function copyWal(dataDir: string, into: string): void {
  mkdirSync(into, { recursive: true });
  for (const file of ['journal.db-wal', 'journal.db']) copyFileSync(join(dataDir, file), join(into, file));
  progress(`journal.db and its WAL copied to ${into}: node scripts/bench/wal-pages.mjs ${join(into, 'journal.db')}`);
}

async function satangScenarios(dataDir: string): Promise<{ create: Scenario; get: Scenario }> {
  const { child, url } = await startSatang(dataDir);
  try {
    progress(`satang up at ${url}; onboarding a merchant with ${keysCount} live keys`);
    const { keys } = await onboard(url, dataDir);
    const port = Number(new URL(url).port);
    progress('create: signed POST /v1/pay/deposits');
    const { ids, ...create } = await load(plan(port, 'create', keys, [201, 202], [], true), child);
    summary('create', create);
    if (values['wal-copy'] !== undefined) copyWal(dataDir, values['wal-copy']);
    if (ids.length === 0) throw new Error('no deposit was created: nothing to read');
    progress(`get: signed GET /v1/pay/deposits/{id} over ${ids.length} deposits`);
    const { ids: _none, ...get } = await load(plan(port, 'get', keys, [200], ids), child);
    summary('get', get);
    return { create, get };
  } finally {
    await stop(child);
  }
}

const check = (measured: number, op: '>=' | '<=', target: number) => ({ measured, target: `${op} ${target}`, meets: op === '>=' ? measured >= target : measured <= target });

async function main(): Promise<void> {
  const startedMs = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'satang-bench-api-'));
  const loadAtStart = loadavg().map(round2);
  try {
    progress(`bare: Koa + koa-body + HMAC, ${connections} connections, ${warmupSeconds} s warm-up + ${seconds} s`);
    const bare = await bareScenario();
    summary('bare', bare);
    progress('bare_fsync: the same + one synchronous=FULL SQLite insert per request');
    const bareFsync = await bareScenario(join(dir, 'bare-fsync.db'));
    summary('bare_fsync', bareFsync);
    const { create, get } = await satangScenarios(join(dir, 'satang'));
    const createOverBare = round2(create.requests_per_second / Math.max(1, bare.requests_per_second));
    const createOverBareFsync = round2(create.requests_per_second / Math.max(1, bareFsync.requests_per_second));
    const checks = {
      create_requests_per_second: check(create.requests_per_second, '>=', targets.createPerSecondMin),
      create_p99_ms: check(create.p99_ms, '<=', targets.createP99MsMax),
      create_over_bare: check(createOverBare, '>=', targets.createOverBareMin),
      get_requests_per_second: check(get.requests_per_second, '>=', targets.getPerSecondMin),
      get_p99_ms: check(get.p99_ms, '<=', targets.getP99MsMax),
    };
    const cpu = cpus();
    const report = {
      scenarios: { bare, bare_fsync: bareFsync, create, get },
      create_over_bare: createOverBare,
      create_over_bare_fsync: createOverBareFsync,
      targets: { ...checks, all_met: Object.values(checks).every((c) => c.meets) },
      settings: { connections, warmup_seconds: warmupSeconds, seconds, keys: keysCount },
      machine: { cpus: cpu.length, model: cpu[0]?.model ?? 'unknown', loadavg_at_start: loadAtStart },
      node: process.version,
      date: new Date().toISOString(),
      elapsed_seconds: round2((Date.now() - startedMs) / 1000),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The server's resident set size in MB (VmRSS), or null where /proc is missing. */
function rssMbOf(pid: number | undefined): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
    return Number.isFinite(kb) ? Math.round(kb / 1024) : null;
  } catch {
    return null;
  }
}

async function memoryMain(target: number): Promise<void> {
  const startedMs = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'satang-bench-memory-'));
  try {
    const heapMb = values['server-heap-mb'] !== undefined ? positive('server-heap-mb', values['server-heap-mb']) : undefined;
    const { child, url } = await startSatang(join(dir, 'satang'), { SATANG_CLOCK: 'manual', ...(heapMb ? { NODE_OPTIONS: `--max-old-space-size=${heapMb}` } : {}) });
    try {
      progress(`satang up at ${url} (manual clock); onboarding a merchant with ${keysCount} live keys`);
      const { keys, bo } = await onboard(url, join(dir, 'satang'));
      const port = Number(new URL(url).port);
      const samples: { deposits: number; rss_mb: number | null; requests_per_second: number }[] = [{ deposits: 0, rss_mb: rssMbOf(child.pid), requests_per_second: 0 }];
      let created = 0;
      const errors: Record<string, number> = {};
      while (created < target) {
        const { ids: _ids, ...window } = await load({ ...plan(port, 'create', keys, [201, 202]), warmupSeconds: 0 }, child);
        created += window.count;
        for (const [status, n] of Object.entries(window.errors_by_status)) errors[status] = (errors[status] ?? 0) + n;
        await bo('/v1/bo/clock/advance', { seconds: memoryAdvanceSeconds }, true, 200);
        samples.push({ deposits: created, rss_mb: rssMbOf(child.pid), requests_per_second: window.requests_per_second });
        progress(`${created} deposits created and expired; RSS ${samples.at(-1)!.rss_mb} MB`);
      }
      const peak = Math.max(...samples.map((x) => x.rss_mb ?? 0));
      const final = samples.at(-1)!.rss_mb ?? 0;
      const report = {
        scenario: 'memory', deposits_created_and_expired: created, rss_mb_final: final, rss_mb_peak: peak, errors_by_status: errors, samples,
        targets: { rss_mb_final: check(final, '<=', targets.memoryRssMbMax), rss_mb_peak: check(peak, '<=', targets.memoryRssMbMax) },
        settings: { connections, window_seconds: seconds, keys: keysCount, clock_advance_seconds: memoryAdvanceSeconds, server_heap_mb: heapMb ?? 'V8 default' },
        machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown' },
        node: process.version,
        date: new Date().toISOString(),
        elapsed_seconds: round2((Date.now() - startedMs) / 1000),
      };
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } finally {
      await stop(child);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

(memoryDeposits !== undefined ? memoryMain(memoryDeposits) : main()).then(() => process.exit(0), (error: unknown) => {
  console.error(error);
  for (const c of children) c.kill('SIGKILL');
  process.exit(1);
});
