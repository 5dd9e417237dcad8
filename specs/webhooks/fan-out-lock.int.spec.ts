// The dispatcher's fan-out on the event loop:
// - while another connection holds journal.db's write lock (the journal's writer thread
//   does, for every batch it writes) the event loop does not sleep in SQLite's busy
//   handler waiting for it; the fan-out is tried again shortly and happens once the lock
//   is free, each event fanned out once (the manual clock's drain still waits for the
//   lock: every spec that advances the clock runs it);
// - its commit is not fsynced (synchronous=NORMAL: what it wrote is redone from the
//   outbox after a power cut), except a batch that mails a merchant, which is rolled back
//   and committed again at FULL; the connection is FULL again after either; a fan-out
//   lost that way and redone writes its deliveries under the same ids (derivedUlid), which
//   sort, for one endpoint, as their events' ids do;
// - wakes (one per durable commit) run the pump at most once in wakeIntervalMinMs, so a
//   burst of commits is fanned out in a few transactions, every event once.
// Real parts: journal.db in a temp dir, a second connection holding BEGIN IMMEDIATE, the
// dispatcher as the server builds it (Webhooks); only the event source is the spec's
// (events it hands out by hand, noting the connection's synchronous setting each time
// the fan-out reads them, inside its transaction) and the poster answers at once.

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { decodeTime, isValid } from 'ulid';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../adapters/clock.ts';
import { UlidIds } from '../../adapters/ids.ts';
import { Sealer } from '../../adapters/sealing.ts';
import { openDatabase, type Db } from '../../adapters/sqlite/schema.ts';
import type { EventSource, SourcedEvent } from '../../adapters/webhooks/events.ts';
import type { Poster } from '../../adapters/webhooks/http-post.ts';
import { Webhooks } from '../../adapters/webhooks/webhooks.ts';
import { webhookSettings } from '../../adapters/webhooks/settings.ts';
import { webhookLimits } from '../../core/limits.ts';
import { removeDir, startMs, tempDir } from '../adapters/support.ts';

/** Events the spec appends; the dispatcher is woken as the outbox's signal would wake it. */
class HandedEvents implements EventSource {
  readonly name = 'spec';
  readonly table = 'outbox' as const;
  /** PRAGMA synchronous at each read: 1 NORMAL, 2 FULL. */
  readonly synchronousAtRead: number[] = [];
  /** hasUnread calls: each pump makes one or more. */
  unreadChecks = 0;
  private readonly events: SourcedEvent[] = [];
  private wake: () => void = () => {};
  constructor(private readonly db: Db) {}
  read(position: number, limit: number): SourcedEvent[] {
    this.synchronousAtRead.push(this.db.pragma('synchronous', { simple: true }) as number);
    return this.events.filter((e) => e.position > position).slice(0, limit);
  }
  hasUnread(position: number): boolean {
    this.unreadChecks++;
    return this.events.some((e) => e.position > position);
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
  const source = new HandedEvents(db);
  const sealer = Sealer.ephemeral();
  const logged: unknown[] = [];
  const errors: { fields: unknown; message: string }[] = [];
  // The service's webhooks on this database, as a (re)started process builds them.
  const build = () => new Webhooks({
    db, clock, ids: new UlidIds(), log: { info: (fields: unknown) => logged.push(fields), warn: (fields: unknown) => logged.push(fields), error: (fields: unknown, message?: string) => errors.push({ fields, message: message ?? '' }) }, sealer,
    settings: webhookSettings('development', {}), directory: () => undefined, source, poster: answered,
  });
  const webhooks = build();
  const endpoint = webhooks.endpoints.create('mch_shop', false, 'http://127.0.0.1:9/hook', null);
  const deliveries = db.prepare<[string], number>('SELECT COUNT(*) FROM webhook_deliveries WHERE endpoint_id = ?').pluck(true);
  // Another connection to the same file, as the writer thread has.
  const other = new Database(join(dir, 'journal.db'));
  const close = () => { webhooks.stop(); other.close(); db.close(); removeDir(dir); };
  const mails = db.prepare<[], number>("SELECT COUNT(*) FROM email_outbox WHERE kind = 'mandatory_event'").pluck(true);
  const mailIds = db.prepare<[], string>('SELECT id FROM email_outbox').pluck(true);
  return { db, clock, source, webhooks, build, endpoint, count: () => deliveries.get(endpoint.id)!, mails: () => mails.get()!, mailIds: () => mailIds.all(), logged, errors, other, close };
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

test('a full database stops the fan-out without ending the process; said once, tried again, and it goes on once there is room', async () => {
  const s = setUp();
  try {
    s.webhooks.start();
    // SQLite's own SQLITE_FULL: the file may not grow past the pages it has.
    s.db.pragma(`max_page_count = ${s.db.pragma('page_count', { simple: true }) as number}`);
    for (let i = 0; i < 300; i++) s.source.add(event(`evt_${String(i).padStart(3, '0')}`));
    for (let i = 0; i < 200 && s.errors.length === 0; i++) await sleep(5);
    assert.is(s.errors.length, 1, 'said once');
    assert.match(s.errors[0]!.message, /cannot write \(disk full or failing\); retrying/);
    assert.is((s.errors[0]!.fields as { code: string }).code, 'SQLITE_FULL');
    assert.ok(s.count() < 300, `not every event fanned out while full: ${s.count()}`);
    await sleep(webhookLimits.storageRetryMinMs + 500);
    assert.is(s.errors.length, 1, 'a retry that fails again says nothing more');
    s.db.pragma('max_page_count = 1073741823');
    for (let i = 0; i < 400 && s.count() < 300; i++) await sleep(10);
    assert.is(s.count(), 300, 'every event fanned out once there is room, each once');
    assert.ok(s.logged.some((f) => typeof (f as { failing_ms?: unknown }).failing_ms === 'number'), 'and says it writes again');
  } finally {
    s.close();
  }
});

const normal = 1, full = 2;

test('a fan-out commits without its own fsync, and leaves the connection at FULL', async () => {
  const s = setUp();
  try {
    s.webhooks.start();
    s.source.add(event('evt_1'));
    for (let i = 0; i < 200 && s.count() < 1; i++) await sleep(5);
    assert.is(s.count(), 1);
    assert.equal(s.source.synchronousAtRead, [normal], 'read (and committed) at NORMAL');
    assert.is(s.db.pragma('synchronous', { simple: true }), full);
  } finally {
    s.close();
  }
});

test('a fan-out that mails the merchant is rolled back and committed again at FULL: one mail, and the event handled once', async () => {
  const s = setUp();
  try {
    // The merchant's only endpoint is disabled: its mandatory events go by e-mail (contract: Events).
    assert.ok(s.webhooks.endpoints.disable(s.endpoint.id, 'operator', startMs));
    s.webhooks.start();
    s.source.add({ ...event('evt_1'), type: 'balance.debited' });
    for (let i = 0; i < 200 && s.mails() < 1; i++) await sleep(5);
    await sleep(20);
    assert.is(s.mails(), 1, 'one mail');
    assert.equal(s.source.synchronousAtRead, [normal, full], 'tried at NORMAL, rolled back, committed at FULL');
    assert.is(s.db.pragma('synchronous', { simple: true }), full);
    const logLines = s.logged.filter((f) => (f as { email_id?: string }).email_id !== undefined) as { email_id: string }[];
    assert.equal(logLines.map((l) => l.email_id), s.mailIds(), 'one log line, naming the mail the outbox holds: the try at NORMAL stopped before queuing it');
    s.source.add(event('evt_2')); // not mandatory: no mail, so no fsync of its own
    for (let i = 0; i < 200 && s.source.synchronousAtRead.length < 3; i++) await sleep(5);
    await sleep(20);
    assert.equal(s.source.synchronousAtRead, [normal, full, normal]);
    assert.is(s.mails(), 1);
  } finally {
    s.close();
  }
});

test('a fan-out that plays the sandbox key-rotation scenario rotates once, committed at FULL', async () => {
  const s = setUp();
  try {
    // The sandbox deposit.created of scenario amount 11400, as the journal's writer stores it.
    const body = JSON.stringify({ id: 'evt_1', type: 'deposit.created', data: { object: { amount_minor: 11_400 } } });
    s.db.prepare(`INSERT INTO outbox (id, merchant_id, livemode, sequence, type, stream, version, created_at, body, journal_seq)
      VALUES ('evt_1', 'mch_shop', 0, 1, 'deposit.created', 'dep_1', 1, ?, ?, 1)`).run(startMs, body);
    const stored = s.db.prepare<[], number>('SELECT COUNT(*) FROM webhook_signing_keys_sandbox').pluck(true);
    assert.is(stored.get(), 1);
    s.webhooks.start();
    s.source.add(event('evt_1'));
    for (let i = 0; i < 200 && s.count() < 1; i++) await sleep(5);
    await sleep(20);
    assert.equal(s.source.synchronousAtRead, [normal, full], 'tried at NORMAL, rolled back, committed at FULL');
    assert.is(stored.get(), 2, 'the next key is stored');
    assert.ok(s.webhooks.sandboxKeys.next(), 'and announced as next in memory');
    assert.is(s.webhooks.sandboxKeys.published().length, 2, 'memory holds what the table holds');
  } finally {
    s.close();
  }
});

test('a burst of wakes runs the pump at most once in wakeIntervalMinMs, and fans out every event once', async () => {
  const s = setUp();
  try {
    s.webhooks.start();
    await sleep(50);
    const checksBefore = s.source.unreadChecks;
    const started = performance.now();
    for (let i = 1; i <= 100; i++) {
      s.source.add(event(`evt_${i}`)); // a wake each, as each durable commit does
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (let i = 0; i < 200 && s.count() < 100; i++) await sleep(5);
    const elapsed = performance.now() - started;
    assert.is(s.count(), 100, 'every event fanned out, once');
    const pumps = s.source.synchronousAtRead.length; // one fan-out transaction per pump that found events
    const allowed = Math.ceil(elapsed / webhookLimits.wakeIntervalMinMs) + 2;
    assert.ok(pumps <= allowed, `${pumps} fan-outs in ${Math.round(elapsed)} ms: at most ${allowed}`);
    assert.ok(pumps < 50, `${pumps} fan-outs for 100 wakes`);
    assert.ok(s.source.unreadChecks - checksBefore < 200, 'the pump did not run once a wake');
  } finally {
    s.close();
  }
});

test('the manual clock\'s drain fans out at FULL', async () => {
  const s = setUp();
  try {
    s.source.add(event('evt_1')); // not started: nothing runs it but the drain
    await s.webhooks.dispatcher.drain();
    assert.is(s.count(), 1);
    assert.equal(s.source.synchronousAtRead, [full]);
  } finally {
    s.close();
  }
});

test('a fan-out lost before its commit reached the disk is redone under the same delivery ids, listed in the events\' order; a resend gets a fresh id', async () => {
  const s = setUp();
  try {
    const second = s.webhooks.endpoints.create('mch_shop', false, 'http://127.0.0.1:9/second', null);
    const rows = s.db.prepare<[], { id: string; endpoint_id: string; event_id: string }>('SELECT id, endpoint_id, event_id FROM webhook_deliveries ORDER BY endpoint_id, id');
    // Events as the journal's writer names them (one monotonic factory: within a millisecond
    // they differ in their last bits), and one whose id holds no ULID.
    const eventIds = new UlidIds();
    const named = [eventIds.next('evt'), eventIds.next('evt'), eventIds.next('evt'), 'evt_not_a_ulid'];
    s.webhooks.start();
    for (const [i, id] of named.entries()) s.source.add({ ...event(id), createdAt: startMs + i });
    for (let i = 0; i < 200 && s.count() < named.length; i++) await sleep(5);
    const first = rows.all();
    assert.is(first.length, 8, 'four events to two endpoints');
    assert.is(new Set(first.map((d) => d.id)).size, 8);
    for (const endpoint of [s.endpoint.id, second.id]) {
      const ofUlids = first.filter((d) => d.endpoint_id === endpoint && d.event_id !== 'evt_not_a_ulid'); // by id
      assert.equal(ofUlids.map((d) => d.event_id), named.slice(0, 3), 'an endpoint\'s deliveries sort as their events do');
    }
    for (const d of first) {
      const ulid = d.id.slice('whd_'.length);
      assert.ok(d.id.startsWith('whd_') && isValid(ulid), `${d.id} is whd_ and a ULID`);
      const instant = d.event_id === 'evt_not_a_ulid' ? startMs + 3 : decodeTime(d.event_id.slice('evt_'.length));
      assert.is(decodeTime(ulid), instant, 'at its event id\'s instant, or the event\'s when its id holds no ULID');
    }
    s.webhooks.stop();
    // What a power cut leaves when the fan-out's commit (not fsynced) did not reach the disk:
    // the outbox and the read position as they were before it.
    s.db.exec("DELETE FROM webhook_attempts; DELETE FROM webhook_deliveries; UPDATE webhook_positions SET position = 0 WHERE source = 'spec'");
    const again = s.build();
    try {
      await again.dispatcher.drain();
      assert.equal(rows.all(), first, 'the same deliveries, under the same ids');
      const resent = again.operations.resend(again.endpoints.get(second.id)!, again.deliveries.get(first.find((d) => d.endpoint_id === second.id)!.id)!);
      assert.ok(resent.ok);
      assert.ok(!first.some((d) => d.id === resent.value.id), 'a resend is a delivery of its own');
    } finally {
      again.stop();
    }
  } finally {
    s.close();
  }
});

test.run();
