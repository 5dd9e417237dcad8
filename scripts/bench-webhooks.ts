// npm run bench:webhooks — prints JSON:
//   deliveries: signed deliveries per second from the real dispatcher (outbox fan-out,
//     durable claim, Ed25519 signature, HTTP POST, durable outcome) to a local receiver
//     (node:http answering 204, in a child process so it does not share the dispatcher's
//     thread), on journal.db with synchronous=FULL;
//   pending_retries: the cost of holding and scheduling 100,000 pending retries — the
//     time to write them, the database bytes and process memory they take (they live in
//     SQLite, not in memory), and the time to find the next due instant and to claim a
//     batch of due ones.
// Usage: npm run bench:webhooks [-- deliveries]   (default 20000)

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ManualClock, SystemClock } from '../adapters/clock.ts';
import { UlidIds } from '../adapters/ids.ts';
import { Sealer } from '../adapters/sealing.ts';
import { openDatabase } from '../adapters/sqlite/schema.ts';
import { webhookLimits } from '../core/limits.ts';
import { Webhooks } from '../adapters/webhooks/webhooks.ts';
import type { Clock } from '../core/ports.ts';

const deliveriesCount = Number(process.argv[2] ?? 20_000);
const pendingRetriesCount = 100_000;
const merchantId = 'mch_BENCH';
const silent = { info() {}, warn() {}, error() {} };
const directory = () => ({ whiteLabelId: 'wl_BENCH', name: 'Bench' });

// A full collection before each memory reading, so the deltas are what is held, not garbage.
setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

const receiverSource = `
const http = require('node:http');
const server = http.createServer((req, res) => { req.resume(); req.on('end', () => { res.statusCode = 204; res.end(); }); });
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;

async function startReceiver(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['-e', receiverSource], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
  return { url: `http://127.0.0.1:${port}/hook`, stop: () => child.kill() };
}

function envelope(id: string, sequence: number): string {
  return JSON.stringify({
    id, object: 'event', type: 'deposit.settled', api_version: '2026-08-01', livemode: true, created_at: new Date().toISOString(), sequence,
    account: { merchant_id: merchantId, white_label_id: 'wl_BENCH' },
    data: { object: { id: `dep_${sequence}`, object: 'deposit_order', version: 4, status: 'settled', amount_minor: 50000, currency: 'THB', metadata: { note: 'ชำระเงินแล้ว' } }, previous_attributes: { status: 'slip_processing', version: 3 } },
  });
}

function open(dir: string, clock: Clock) {
  const db = openDatabase(dir);
  const ids = new UlidIds();
  const webhooks = new Webhooks({ db, clock, ids, log: silent, directory, sealer: Sealer.ephemeral(), settings: { mode: 'development', timeouts: { connectMs: 5000, firstByteMs: 10_000, totalMs: 15_000 } } });
  return { db, ids, webhooks };
}

async function benchDeliveries(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'satang-bench-webhooks-'));
  const receiver = await startReceiver();
  const { db, ids, webhooks } = open(dir, new SystemClock());
  try {
    webhooks.operations.transact(() => webhooks.operations.createEndpoint(merchantId, true, receiver.url, null));
    const insert = db.prepare('INSERT INTO outbox (id, merchant_id, livemode, sequence, type, stream, version, created_at, body, journal_seq) VALUES (?, ?, 1, ?, ?, ?, 4, ?, ?, ?)');
    db.transaction(() => {
      for (let i = 1; i <= deliveriesCount; i++) {
        const id = ids.next('evt');
        insert.run(id, merchantId, i, 'deposit.settled', `dep_${i}`, Date.now(), envelope(id, i), i);
      }
    })();
    const delivered = db.prepare<[], number>("SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'delivered'").pluck(true);
    const started = performance.now();
    webhooks.start();
    while (delivered.get()! < deliveriesCount) await new Promise((r) => setTimeout(r, 20));
    const seconds = (performance.now() - started) / 1000;
    const failed = db.prepare<[], number>("SELECT COUNT(*) FROM webhook_deliveries WHERE status <> 'delivered'").pluck(true).get()!;
    return {
      count: deliveriesCount, seconds: round(seconds, 3), per_second: Math.round(deliveriesCount / seconds), not_delivered: failed,
      receiver: 'node:http 204 in a child process, keep-alive', in_flight_per_endpoint_max: webhookLimits.inFlightDeliveriesPerEndpointMax,
      includes: 'outbox fan-out, durable claim, Ed25519 signature (node:crypto), HTTP POST, durable outcome (synchronous=FULL)',
    };
  } finally {
    webhooks.stop();
    db.close();
    receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function benchPendingRetries(): Record<string, unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'satang-bench-retries-'));
  const clock = new ManualClock(Date.UTC(2026, 10, 21));
  const { db, ids, webhooks } = open(dir, clock);
  try {
    const endpoint = webhooks.operations.transact(() => webhooks.operations.createEndpoint(merchantId, true, 'http://127.0.0.1:9/hook', null));
    if (!endpoint.ok) throw new Error('endpoint');
    const bytesBefore = dbBytes(db, dir);
    gc();
    const memBefore = process.memoryUsage();
    const now = clock.now();
    const spanMs = 92 * 3600 * 1000; // the contract's whole schedule
    const t0 = performance.now();
    db.transaction(() => {
      for (let i = 0; i < pendingRetriesCount; i++) {
        webhooks.deliveries.insert({ endpointId: endpoint.value.id, event: { id: ids.next('evt'), type: 'deposit.settled', createdAt: now, table: 'outbox' }, dueAt: now + Math.floor((i * spanMs) / pendingRetriesCount) + 1 }, now);
      }
    })();
    const insertSeconds = (performance.now() - t0) / 1000;
    gc();
    const memAfter = process.memoryUsage();
    const timeMs = (fn: () => unknown, runs: number) => { const s = performance.now(); for (let i = 0; i < runs; i++) fn(); return round((performance.now() - s) / runs, 4); };
    const nextDueMs = timeMs(() => webhooks.dispatcher.nextDueAt(), 200);
    clock.set(now + spanMs / 100); // 1 % of them are due
    const dueQueryMs = timeMs(() => webhooks.deliveries.due(clock.now(), webhookLimits.inFlightDeliveriesMax, []), 50);
    const key = webhooks.keys.current();
    const t1 = performance.now();
    const batch = webhooks.deliveries.due(clock.now(), webhookLimits.inFlightDeliveriesMax, []);
    db.transaction(() => { for (const d of batch) webhooks.deliveries.claim(d, clock.now(), key.kid, clock.now() + 600_000); })();
    const claimMs = performance.now() - t1;
    return {
      count: pendingRetriesCount, insert_seconds: round(insertSeconds, 3), inserts_per_second: Math.round(pendingRetriesCount / insertSeconds),
      db_bytes: dbBytes(db, dir) - bytesBefore, heap_mb_delta: round((memAfter.heapUsed - memBefore.heapUsed) / 2 ** 20, 1), rss_mb_delta: round((memAfter.rss - memBefore.rss) / 2 ** 20, 1),
      next_due_at_ms: nextDueMs, due_batch_query_ms: dueQueryMs, claim_batch: { size: batch.length, ms: round(claimMs, 2), note: 'select + durable claim in one transaction' },
      held_in: 'SQLite (webhook_deliveries, partial index on next_attempt_at); nothing per retry in memory',
    };
  } finally {
    webhooks.stop();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The database file's size once the WAL is checkpointed into it. */
function dbBytes(db: ReturnType<typeof openDatabase>, dir: string): number {
  db.pragma('wal_checkpoint(TRUNCATE)');
  return statSync(join(dir, 'journal.db')).size;
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

const deliveries = await benchDeliveries();
const pendingRetries = benchPendingRetries();
console.log(JSON.stringify({ bench: 'webhooks', node: process.version, deliveries, pending_retries: pendingRetries }, null, 2));
