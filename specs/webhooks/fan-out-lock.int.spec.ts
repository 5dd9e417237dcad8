// The dispatcher's fan-out while another connection holds journal.db's write lock (the
// journal's writer thread does, for every batch it writes): the event loop does not sleep
// in SQLite's busy handler waiting for it; the fan-out is tried again a millisecond later
// and happens once the lock is free, each event fanned out once (the manual clock's drain
// still waits for the lock: every spec that advances the clock runs it). Real parts: journal.db in a temp dir, a second connection
// holding BEGIN IMMEDIATE, the dispatcher as the server builds it (Webhooks); only the
// event source is the spec's (events it hands out by hand) and the poster answers at once.

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../adapters/clock.ts';
import { UlidIds } from '../../adapters/ids.ts';
import { Sealer } from '../../adapters/sealing.ts';
import { openDatabase } from '../../adapters/sqlite/schema.ts';
import type { EventSource, SourcedEvent } from '../../adapters/webhooks/events.ts';
import type { Poster } from '../../adapters/webhooks/http-post.ts';
import { Webhooks, webhookSettings } from '../../adapters/webhooks/webhooks.ts';
import { removeDir, startMs, tempDir } from '../adapters/support.ts';

/** Events the spec appends; the dispatcher is woken as the outbox's signal would wake it. */
class HandedEvents implements EventSource {
  readonly name = 'spec';
  readonly table = 'outbox' as const;
  private readonly events: SourcedEvent[] = [];
  private wake: () => void = () => {};
  read(position: number, limit: number): SourcedEvent[] {
    return this.events.filter((e) => e.position > position).slice(0, limit);
  }
  subscribe(wake: () => void): () => void {
    this.wake = wake;
    return () => { this.wake = () => {}; };
  }
  add(e: Omit<SourcedEvent, 'position'>): void {
    this.events.push({ ...e, position: this.events.length + 1 });
    this.wake();
  }
}

const answered: Poster = { post: async () => ({ outcome: 'delivered', status: 200, excerpt: null, durationMs: 0, error: null }), close: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function setUp() {
  const dir = tempDir('fanout-lock');
  const db = openDatabase(dir);
  const clock = new ManualClock(startMs);
  const source = new HandedEvents();
  const webhooks = new Webhooks({
    db, clock, ids: new UlidIds(), log: { info: () => {}, warn: () => {}, error: () => {} }, sealer: Sealer.ephemeral(),
    settings: webhookSettings('development', {}), directory: () => undefined, source, poster: answered,
  });
  const endpoint = webhooks.endpoints.create('mch_shop', false, 'http://127.0.0.1:9/hook', null);
  const deliveries = db.prepare<[string], number>('SELECT COUNT(*) FROM webhook_deliveries WHERE endpoint_id = ?').pluck(true);
  // Another connection to the same file, as the writer thread has.
  const other = new Database(join(dir, 'journal.db'));
  const close = () => { webhooks.stop(); other.close(); db.close(); removeDir(dir); };
  return { db, clock, source, webhooks, count: () => deliveries.get(endpoint.id)!, other, close };
}

const event = (id: string): Omit<SourcedEvent, 'position'> => ({ id, merchantId: 'mch_shop', livemode: false, type: 'deposit.created', createdAt: startMs });

test('while another connection holds the write lock the event loop goes on; the fan-out happens once the lock is free, once', async () => {
  const s = setUp();
  try {
    s.webhooks.start();
    s.other.prepare('BEGIN IMMEDIATE').run();
    s.source.add(event('evt_1'));
    s.source.add(event('evt_2'));
    // The event loop turns while the lock is held: timers fire (a pump that waited
    // in the busy handler would hold this thread for busy_timeout, 5 s, then throw).
    const started = performance.now();
    for (let i = 0; i < 20; i++) await sleep(5);
    assert.ok(performance.now() - started < 3_000, `20 turns of 5 ms took ${Math.round(performance.now() - started)} ms`);
    assert.is(s.count(), 0, 'nothing fanned out while the lock is held');
    assert.is(s.db.pragma('busy_timeout', { simple: true }), 5_000, 'the connection waits for locks again everywhere else');
    s.other.prepare('COMMIT').run();
    for (let i = 0; i < 200 && s.count() < 2; i++) await sleep(5);
    assert.is(s.count(), 2, 'both events fanned out once the lock was free');
    s.source.add(event('evt_3'));
    for (let i = 0; i < 200 && s.count() < 3; i++) await sleep(5);
    await sleep(20);
    assert.is(s.count(), 3, 'each event once');
  } finally {
    s.close();
  }
});

test.run();
