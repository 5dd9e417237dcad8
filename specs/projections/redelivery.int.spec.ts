// Deliveries that fail, on both buses — NATS JetStream durable consumers (a real
// nats-server started here) and the in-process bus — with two probe projections:
// - a flaky one that fails twice on one entry and then applies it: it is delivered again
//   (JetStream counts the redeliveries), nothing overtakes it, and every entry is applied
//   once, in journal order;
// - a poisoned one that always fails on one entry: after deliveriesMax deliveries the entry
//   is parked with its error (logged, and listed by the status report), never retried
//   again, and every other entry is applied once, in order.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JournalReader } from '../../adapters/bus/journal-reader.ts';
import { InProcessBus } from '../../adapters/bus/in-process.ts';
import { connectNats, durableNameOf, JetStreamTransport } from '../../adapters/bus/nats.ts';
import { Relay } from '../../adapters/bus/relay.ts';
import type { Store } from '../../adapters/sqlite/store.ts';
import { openProjectionsDb, RelayPositions, type ProjectionsDb } from '../../projections/db.ts';
import { journalStreamName, type RelayedEntry } from '../../projections/entry.ts';
import type { ReadSideLog } from '../../projections/gate.ts';
import { readSideLimits } from '../../core/limits.ts';
import type { Projection, ProjectionName } from '../../projections/projection.ts';
import { Projector, type Transport } from '../../projections/projector.ts';
import { readSideStatus } from '../../projections/status.ts';
import { startReadSide } from '../../server/read-side.ts';
import { NatsServer } from '../support/nats.ts';
import { Driver, openTestStore, removeDir, tempDir } from '../adapters/support.ts';

const entriesWritten = 40;
const flakySeq = 7;
const poisonSeq = 11;

interface Probe { projection: Projection; failures: () => number }

/** A projection recording the seqs it applies, in order, failing as `fails` says. */
function probe(name: string, fails: (entry: RelayedEntry, failuresSoFar: number) => boolean): Probe {
  const table = `probe_${name}`;
  let failures = 0;
  return {
    failures: () => failures,
    projection: {
      name: name as ProjectionName, tables: [table],
      schema: `CREATE TABLE IF NOT EXISTS ${table} (n INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER NOT NULL UNIQUE);`,
      prepare(db: ProjectionsDb) {
        const insert = db.prepare(`INSERT INTO ${table} (seq) VALUES (?)`);
        return {
          apply(entry: RelayedEntry) {
            if (fails(entry, failures)) { failures++; throw new Error(`probe ${name} refuses seq ${entry.seq}`); }
            insert.run(entry.seq);
          },
        };
      },
    },
  };
}

function appliedSeqs(db: ProjectionsDb, name: string): number[] {
  return db.prepare<[], number>(`SELECT seq FROM probe_${name} ORDER BY n`).pluck(true).all();
}

function memoryLog(): ReadSideLog & { lines: { level: string; fields: object; message: string }[] } {
  const lines: { level: string; fields: object; message: string }[] = [];
  const at = (level: string) => (fields: object, message: string) => { lines.push({ level, fields, message }); };
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

/** Wraps a bus to record every delivery's (projection, seq, delivery count). */
function recording(transport: Transport, seen: { projection: string; seq: number; count: number }[]): Transport {
  return {
    subscribe: (projection, deliver) => transport.subscribe(projection, (deliveries) => {
      for (const d of deliveries) seen.push({ projection, seq: d.entry.seq, count: d.deliveryCount });
      deliver(deliveries);
    }),
  };
}

function deliveryCounts(seen: readonly { projection: string; seq: number; count: number }[], projection: string, seq: number): number[] {
  return seen.filter((d) => d.projection === projection && d.seq === seq).map((d) => d.count);
}

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function writeEntries(store: Store, clock: ConstructorParameters<typeof Driver>[1]): Promise<void> {
  const driver = new Driver(store, clock);
  const wl = await driver.whiteLabel();
  const m = await driver.merchant(wl);
  while (store.world.lastSeq < entriesWritten) await driver.fund(m, 1000n);
}

function checkOutcome(db: ProjectionsDb, tail: number, flaky: Probe, poison: Probe, log: ReturnType<typeof memoryLog>, seen: readonly { projection: string; seq: number; count: number }[]): void {
  assert.equal(deliveryCounts(seen, 'flaky', flakySeq), [1, 2, 3], 'the bus delivered the flaky entry again, counting');
  assert.equal(deliveryCounts(seen, 'poison', poisonSeq), [1, 2, 3, 4, 5], 'the poison entry: deliveriesMax deliveries');
  const all = Array.from({ length: tail }, (_, i) => i + 1);
  assert.equal(appliedSeqs(db, 'flaky'), all, 'flaky: every entry once, in journal order');
  assert.is(flaky.failures(), 2);
  assert.equal(appliedSeqs(db, 'poison'), all.filter((s) => s !== poisonSeq), 'poison: every other entry once, in order');
  assert.is(poison.failures(), readSideLimits.deliveriesMax, 'bounded: delivered deliveriesMax times, then parked');
  const status = readSideStatus(db, tail, ['flaky', 'poison']);
  const [flakyStatus, poisonStatus] = status.projections;
  assert.equal([flakyStatus!.position, flakyStatus!.parked, flakyStatus!.retrying.length], [tail, 0, 0]);
  assert.is(poisonStatus!.position, tail);
  assert.is(poisonStatus!.parked, 1);
  assert.is(poisonStatus!.parked_entries[0]!.seq, poisonSeq);
  assert.is(poisonStatus!.parked_entries[0]!.attempts, readSideLimits.deliveriesMax);
  assert.match(poisonStatus!.parked_entries[0]!.error, `probe poison refuses seq ${poisonSeq}`);
  assert.ok(log.lines.some((l) => l.level === 'error' && /parked a poison entry/.test(l.message) && (l.fields as { seq: number }).seq === poisonSeq));
}

type Seen = { projection: string; seq: number; count: number }[];

async function scenario(runBus: (store: Store, db: ProjectionsDb, dir: string, projector: Projector, log: ReadSideLog, seen: Seen) => Promise<() => Promise<void>>): Promise<{ db: ProjectionsDb; tail: number; log: ReturnType<typeof memoryLog>; flaky: Probe; poison: Probe; seen: Seen; cleanup: () => Promise<void> }> {
  const dir = tempDir('redelivery');
  const { store, clock } = openTestStore(dir);
  await writeEntries(store, clock);
  const tail = store.world.lastSeq;
  const flaky = probe('flaky', (e, failures) => e.seq === flakySeq && failures < 2);
  const poison = probe('poison', (e) => e.seq === poisonSeq);
  const log = memoryLog();
  const db = openProjectionsDb(dir, [flaky.projection.schema, poison.projection.schema], log);
  const journal = new JournalReader(dir);
  const projector = new Projector(db, journal, log, [flaky.projection, poison.projection]);
  const seen: Seen = [];
  const stopBus = await runBus(store, db, dir, projector, log, seen);
  await until(() => projector.lowestPosition() >= tail);
  return {
    db, tail, log, flaky, poison, seen,
    cleanup: async () => { await projector.stop(); await stopBus(); journal.close(); db.close(); store.close(); removeDir(dir); },
  };
}

test('NATS JetStream: a flaky entry is redelivered in order; a poison entry is parked after max_deliver', async () => {
  const nats = await NatsServer.start();
  let nc: Awaited<ReturnType<typeof connectNats>> | null = null;
  try {
    const run = await scenario(async (store, _db, dir, projector, log, seen) => {
      const readSide = await startReadSide({ dataDir: dir, natsUrl: nats.url, tail: () => store.world.lastSeq, log });
      nc = await connectNats(nats.url, 'spec');
      projector.start(recording(new JetStreamTransport(nc, log), seen));
      return () => readSide.close();
    });
    try {
      checkOutcome(run.db, run.tail, run.flaky, run.poison, run.log, run.seen);
      const jsm = await nc!.jetstreamManager();
      const consumer = await jsm.consumers.info(journalStreamName, durableNameOf('flaky' as ProjectionName));
      assert.is(consumer.config.max_deliver, readSideLimits.deliveriesMax);
      assert.ok(consumer.delivered.stream_seq >= run.tail);
      assert.is(consumer.num_ack_pending, 0, 'everything acknowledged');
    } finally {
      await run.cleanup();
    }
  } finally {
    await (nc as Awaited<ReturnType<typeof connectNats>> | null)?.close();
    await nats.remove();
  }
});

// A durable consumer outlives its projector. One left running through a restore met the
// restored stream as another journal's and handed every entry back until its deliveries
// ran out; one on another data dir acknowledged entries its own projections held. Either
// way the consumer was past them, and the projector started again on the data dir stood at
// position 0 (and /readyz degraded) until the next write. It must catch up from the stream
// at once, with nothing written since.
test('NATS JetStream: a projector started again catches up from the stream, whatever an earlier one acknowledged or let run out of deliveries', async () => {
  const nats = await NatsServer.start();
  const dir = tempDir('redelivery-spent');
  const { store, clock } = openTestStore(dir);
  const log = memoryLog();
  let nc: Awaited<ReturnType<typeof connectNats>> | null = null;
  const closers: (() => Promise<void> | void)[] = [];
  try {
    await writeEntries(store, clock);
    const tail = store.world.lastSeq;
    const readSide = await startReadSide({ dataDir: dir, natsUrl: nats.url, tail: () => store.world.lastSeq, log });
    closers.push(() => readSide.close());
    nc = await connectNats(nats.url, 'spec');
    const jsm = await nc.jetstreamManager();
    const acked = probe('acked', () => false);
    const spent = probe('spent', () => false);

    // The earlier projector: acknowledges every entry of one projection, hands every entry of the other back until it is spent.
    const earlier = new JetStreamTransport(nc, log);
    const handled = new Set<string>();
    const subscriptions = [
      earlier.subscribe('acked' as ProjectionName, (ds) => { for (const d of ds) { d.ack(); handled.add(`acked ${d.entry.seq}`); } }),
      earlier.subscribe('spent' as ProjectionName, (ds) => { for (const d of ds) { d.nak(); if (d.deliveryCount >= readSideLimits.deliveriesMax) handled.add(`spent ${d.entry.seq}`); } }),
    ];
    await until(() => handled.size === 2 * tail);
    await new Promise((r) => setTimeout(r, 300)); // the last acks and naks reach the server
    for (const subscription of subscriptions) await subscription.stop();
    for (const name of ['acked', 'spent']) {
      const info = await jsm.consumers.info(journalStreamName, durableNameOf(name as ProjectionName));
      assert.ok(info.delivered.stream_seq >= tail, `${name}: the earlier projector was delivered everything`);
      assert.is(info.num_pending + info.num_ack_pending, 0, `${name}: nothing left for the consumer to deliver`);
    }

    // Started again on the data dir, its projections at 0: caught up, nothing written since.
    const db = openProjectionsDb(dir, [acked.projection.schema, spent.projection.schema], log);
    closers.unshift(() => { db.close(); });
    const journal = new JournalReader(dir);
    closers.unshift(() => journal.close());
    const projector = new Projector(db, journal, log, [acked.projection, spent.projection]);
    assert.is(projector.lowestPosition(), 0);
    projector.start(new JetStreamTransport(nc, log));
    closers.unshift(() => projector.stop());
    await until(() => projector.lowestPosition() >= tail, 15_000).catch(() => {
      throw new Error(`the projector started again stands at ${projector.lowestPosition()} of ${tail}`);
    });
    assert.is(store.world.lastSeq, tail, 'nothing was written meanwhile');
    const all = Array.from({ length: tail }, (_, i) => i + 1);
    assert.equal(appliedSeqs(db, 'acked'), all);
    assert.equal(appliedSeqs(db, 'spent'), all);
  } finally {
    for (const close of closers) await close();
    await (nc as Awaited<ReturnType<typeof connectNats>> | null)?.close();
    store.close();
    removeDir(dir);
    await nats.remove();
  }
});

test('in-process bus: the same gate, the same outcome', async () => {
  const run = await scenario(async (store, db, dir, projector, log, seen) => {
    const bus = new InProcessBus();
    projector.start(recording(bus, seen));
    const reader = new JournalReader(dir);
    const relay = new Relay(reader, bus, new RelayPositions(db), { bus: 'inprocess', tail: () => store.world.lastSeq, log, startAtMost: projector.lowestPosition() });
    relay.start();
    return async () => { await relay.stop(); reader.close(); };
  });
  try {
    checkOutcome(run.db, run.tail, run.flaky, run.poison, run.log, run.seen);
  } finally {
    await run.cleanup();
  }
});

test.run();
