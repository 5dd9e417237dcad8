// Event retention on a real server: webhook envelopes (the outbox's and the service's own),
// deliveries and attempts older than 35 days leave journal.db, the journal itself stays,
// the merchant's floor is recorded and the events feed tells it (coverage); the feed's own
// copies go a day later, a rebuild from the journal gives the same feed, and `satang
// reconcile` on a new store starts after the floor instead of reporting a loss. What must
// stay stays: an event as old as a pending delivery's, an entry the relay has not
// published, and the outbox's newest row.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventRetention } from '../../adapters/webhooks/retention.ts';
import { webhookLimits } from '../../core/limits.ts';
import { satangRun, waitForProjections } from '../support/projections.ts';
import type { MerchantKeys, TestServer } from '../support/server-harness.ts';
import { addEndpoint, advance, day, emitEvent, minute, Receiver, second, startServer, until } from './support.ts';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));

let s: TestServer;
let shop: MerchantKeys;
let receiver: Receiver;
let dir: string;
/** The highest sequence retention deleted in the first test. */
let floor = 0;

const count = (sql: string, ...args: unknown[]) => s.running.store.db.prepare(sql).pluck(true).get(...args) as number;
const published = () => s.running.readSide.relay.position;
const caughtUp = () => waitForProjections(s.dataDir, s.running.store.world.lastSeq);
const feed = async (since = 0) => {
  const r = await s.call(shop.live.api_key, 'GET', `/v1/pay/events?since_sequence=${since}&limit=200`);
  assert.is(r.status, 200, r.text);
  return r.json as { data: { id: string; sequence: number; type: string }[]; coverage: { state: string; retention_days: number; min_since_sequence: number } };
};

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'satang-retention-'));
  s = await startServer({ SATANG_METRICS_PORT: '0' });
  shop = await s.onboard('Shop');
  receiver = await Receiver.start(() => s.clock.now());
  await addEndpoint(s, shop.id, receiver.url);
});
test.after(async () => { await receiver.stop(); await s.stop(); rmSync(dir, { recursive: true, force: true }); });

test('past 35 days the envelopes, deliveries and attempts go, the journal stays, and the feed tells the floor', async () => {
  // The service's own event first, so the outbox's (later sequences) must raise the floor past it.
  assert.is((await s.bo('POST', '/v1/bo/webhooks/signing-keys/rotate', {}, { stepUp: true })).status, 201);
  for (let i = 0; i < 3; i++) await emitEvent(s, shop);
  await advance(s, second);
  const early = await feed();
  assert.ok(early.data.some((e) => e.type === 'webhook.key.rotating'), 'a service event among the early ones');
  assert.equal(early.coverage, { state: 'complete', retention_days: 35, min_since_sequence: 0 });

  await advance(s, 20 * day);
  for (let i = 0; i < 2; i++) await emitEvent(s, shop);
  await advance(s, 14 * day);
  await caughtUp();
  await until(() => count("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'") === 0);

  // The next advance ages the early ones past 35 days; the server sweeps after it.
  const cutoff = s.clock.now() + 2 * day - webhookLimits.eventRetentionMs;
  const old = {
    outbox: count('SELECT count(*) FROM outbox WHERE created_at < ?', cutoff),
    service: count('SELECT count(*) FROM webhook_events WHERE created_at < ?', cutoff),
    deliveries: count('SELECT count(*) FROM webhook_deliveries WHERE created_at < ?', cutoff),
  };
  assert.ok(old.outbox >= 3 && old.service >= 1 && old.deliveries >= 4, JSON.stringify(old));
  const younger = count('SELECT count(*) FROM outbox WHERE created_at >= ?', cutoff);
  assert.ok(younger >= 2, 'the later events are younger than the cutoff');
  const entries = count('SELECT count(*) FROM journal');
  const attemptsBefore = count('SELECT count(*) FROM webhook_attempts');
  assert.equal(await s.running.webhooks.retention.sweep(() => s.clock.now(), published), { outbox: 0, serviceEvents: 0, deliveries: 0 }, 'nothing has outlived 35 days yet');

  await advance(s, 2 * day);
  await until(() => count('SELECT count(*) FROM outbox WHERE created_at < ?', cutoff) === 0, 10_000);
  await until(() => count('SELECT count(*) FROM webhook_deliveries WHERE created_at < ?', cutoff) === 0);
  assert.is(count('SELECT count(*) FROM webhook_events WHERE created_at < ?', cutoff), 0);
  assert.is(count('SELECT count(*) FROM outbox WHERE created_at >= ?', cutoff), younger, 'the younger ones stay');
  assert.is(count('SELECT count(*) FROM webhook_attempts WHERE delivery_id NOT IN (SELECT id FROM webhook_deliveries)'), 0, 'no attempt outlives its delivery');
  assert.ok(count('SELECT count(*) FROM webhook_attempts') < attemptsBefore);
  assert.is(count('SELECT count(*) FROM journal'), entries, 'the journal is never touched');
  assert.equal(await s.running.webhooks.retention.sweep(() => s.clock.now(), published), { outbox: 0, serviceEvents: 0, deliveries: 0 }, 'a second sweep finds nothing');

  floor = Math.max(...early.data.map((e) => e.sequence));
  assert.is(s.running.webhooks.retention.floor(shop.id, true), floor, 'the floor is the highest sequence deleted');
  assert.is(s.running.webhooks.retention.floor(shop.id, false), 0, 'the sandbox lost nothing');

  // The feed still shows its copies (it drops them a day later) and says they may be gone.
  const told = await feed();
  assert.equal(told.coverage, { state: 'partial', retention_days: 35, min_since_sequence: floor });
  assert.equal((await feed(floor)).coverage.state, 'complete');

  // A day later, the next applied entry drops the feed's copies: sequences above the floor only, none missing.
  await advance(s, day + 2 * minute);
  await emitEvent(s, shop);
  await advance(s, second);
  const later = await feed();
  const sequences = later.data.map((e) => e.sequence);
  assert.ok(sequences.length >= 3 && sequences.every((q) => q > floor), `the feed starts after the floor (${sequences.join(', ')})`);
  assert.equal(sequences, sequences.map((_, i) => floor + 1 + i), 'above the floor, no gap');
  assert.equal(later.coverage, { state: 'partial', retention_days: 35, min_since_sequence: floor });

  // The metric reads the oldest envelope left: younger than the retention now.
  const metrics = await (await fetch(s.running.metricsUrl!)).text();
  const age = Number(/^satang_events_oldest_age_seconds (\S+)$/m.exec(metrics)?.[1]);
  assert.ok(age > 0 && age < webhookLimits.eventRetentionMs / 1000, `oldest envelope ${age} s`);
  const deletedFrom = (table: string) => Number(new RegExp(`^satang_event_retention_deleted_total\\{table="${table}"\\} (\\S+)$`, 'm').exec(metrics)?.[1]);
  assert.equal([deletedFrom('outbox'), deletedFrom('webhook_events'), deletedFrom('webhook_deliveries')], [old.outbox, old.service, old.deliveries], 'the server\'s sweep counted what it deleted');
});

test('a rebuild of the feed from the journal gives the same feed', async () => {
  await caughtUp();
  const before = await feed();
  const r = await satangRun(['projections', 'rebuild', 'events_feed', '--data-dir', s.dataDir]);
  assert.is(r.code, 0, r.stderr);
  assert.equal(await feed(), before);
});

test('satang reconcile: a new store starts after the floor, and nothing is reported lost', async () => {
  const store = join(dir, 'store.json');
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(satangPath, ['reconcile', '--key', shop.live.api_key, '--url', s.url, '--store', store, '--json'], { env: { ...process.env, SATANG_LOG_LEVEL: 'silent' } });
    let stdout = '', stderr = '';
    child.stdout.on('data', (c) => { stdout += c; });
    child.stderr.on('data', (c) => { stderr += c; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  assert.is(result.code, 0, result.stdout + result.stderr);
  const report = JSON.parse(result.stdout);
  assert.equal(report.retention, { days: 35, min_since_sequence: floor, store_starts_after_it: true });
  assert.equal(report.gaps, []);
  assert.ok(report.balance.checked && report.balance.agrees, `the balance is checked from the first balance transaction it holds: ${JSON.stringify(report.balance)}`);
  assert.is(report.ok, true);
});

test('what must stay stays: events as old as a pending delivery, entries not yet published, the newest row', async () => {
  // A retention of ten minutes, on the server's own journal.db connection.
  const retention = new EventRetention(s.running.store.db, { retentionMs: 10 * minute });
  receiver.answer(500);
  await emitEvent(s, shop);
  await emitEvent(s, shop);
  await advance(s, 30 * minute);
  await caughtUp();
  const pendingSince = count("SELECT min(event_created_at) FROM webhook_deliveries WHERE status = 'pending'");
  assert.ok(pendingSince > 0, 'the receiver failed: deliveries are pending');
  retention.deleteOnce(s.clock.now(), published());
  assert.is(count('SELECT count(*) FROM outbox WHERE created_at < ?', pendingSince), 0, 'what is older than the pending delivery goes');
  assert.is(count('SELECT count(*) FROM outbox WHERE created_at >= ?', pendingSince), 2, 'the pending deliveries\' events stay');

  receiver.answer(204);
  await advance(s, 6 * 60 * minute);
  await until(() => count("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'") === 0);
  await emitEvent(s, shop);
  await advance(s, 30 * minute);
  await caughtUp();
  const newest = count('SELECT max(rowid) FROM outbox');
  assert.is(retention.deleteOnce(s.clock.now(), 0).outbox, 0, 'nothing the relay has not published goes');
  const swept = await retention.sweep(() => s.clock.now(), published);
  assert.is(swept.outbox, 2, 'the two events whose delivery was pending');
  assert.is(count('SELECT count(*) FROM outbox'), 1, 'the newest row stays, however old');
  assert.is(count('SELECT rowid FROM outbox'), newest);
});

test.run();
