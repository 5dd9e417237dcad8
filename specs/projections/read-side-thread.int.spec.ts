// Where the embedded read side runs, and how it stops (server/read-side.ts,
// server/read-side-thread.ts, server/read-side-worker.ts):
// - by default the relay, the in-process bus and the projections run on a worker thread:
//   they apply while this thread is blocked and never yields; with onThisThread they do
//   not move until it yields;
// - the worker's log lines reach the read side's logger (a projection reset behind its
//   back fills the gap from the journal and says so);
// - close() mid catch-up stops with every projections.db connection closed (SQLite drops
//   the WAL file when the last one closes) and the relay position it mirrors equal to the
//   stored one; started again, the read side carries on, and the projections end
//   byte-identical to a rebuild from the journal: no entry skipped or applied twice.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { JournalReader } from '../../adapters/bus/journal-reader.ts';
import type { Store } from '../../adapters/sqlite/store.ts';
import { projectionNames, projections, projectionSchemas } from '../../projections/all.ts';
import { Applier } from '../../projections/applier.ts';
import { openProjectionsDb, projectionsFileName, RelayPositions } from '../../projections/db.ts';
import type { ReadSideLog } from '../../projections/gate.ts';
import { readSideLimits } from '../../core/limits.ts';
import { rebuildProjections } from '../../projections/rebuild.ts';
import { startReadSide, type ReadSide } from '../../server/read-side.ts';
import { Driver, openTestStore, removeDir, tempDir } from '../adapters/support.ts';
import { dumpProjections } from '../support/projections.ts';

const catchUpMs = 20_000;
const silent: ReadSideLog = { info() {}, warn() {}, error() {} };

function lowest(readSide: ReadSide): number {
  return Math.min(...projectionNames.map((name) => readSide.models.position(name)));
}

async function caughtUpAll(readSide: ReadSide, seq: number): Promise<boolean> {
  const each = await Promise.all(projectionNames.map((name) => readSide.caughtUp(name, seq, catchUpMs)));
  return each.every(Boolean);
}

/** Runs on this thread without yielding (no timer, no I/O, no message) until `check` holds or `ms` pass. */
function blockedUntil(check: () => boolean, ms: number): boolean {
  for (const deadline = performance.now() + ms; performance.now() < deadline;) if (check()) return true;
  return check();
}

/** Appends `entries` journal entries (adjustments, submitted together: a few group commits); the durable tail after. */
async function funded(store: Store, driver: Driver, merchantId: string, entries: number): Promise<number> {
  await Promise.all(Array.from({ length: entries }, () => driver.fund(merchantId, 1000n)));
  return store.durableSeq;
}

async function writeSide(tag: string): Promise<{ dir: string; store: Store; write: (entries: number) => Promise<number> }> {
  const dir = tempDir(tag);
  const { store, clock } = openTestStore(dir);
  const driver = new Driver(store, clock);
  const merchantId = await driver.merchant(await driver.whiteLabel());
  return { dir, store, write: (entries) => funded(store, driver, merchantId, entries) };
}

for (const onThisThread of [false, true]) {
  const where = onThisThread ? 'onThisThread' : 'embedded default (worker thread)';

  test(`${where}: the projections ${onThisThread ? 'wait' : 'apply'} while this thread is blocked`, async () => {
    const { dir, store, write } = await writeSide('read-side-thread');
    const readSide = await startReadSide({ dataDir: dir, tail: () => store.durableSeq, log: silent, onThisThread });
    try {
      assert.ok(await caughtUpAll(readSide, store.durableSeq));
      const tail = await write(20);
      readSide.wake();
      await null; // the wake's microtask has run: the worker is told the durable tail
      const before = lowest(readSide);
      // Nothing on this thread can apply before it yields: the in-process bus hands entries
      // over on a later turn of the event loop.
      const reached = blockedUntil(() => lowest(readSide) >= tail, onThisThread ? 300 : catchUpMs);
      assert.is(reached, !onThisThread, `from ${before} towards ${tail}`);
      assert.ok(await caughtUpAll(readSide, tail), 'caught up once this thread yields');
    } finally {
      await readSide.close();
      store.close();
      removeDir(dir);
    }
  });

  test(`${where}: close() mid catch-up keeps the positions; started again, no entry skipped or applied twice`, async () => {
    const { dir, store, write } = await writeSide('read-side-restart');
    const rebuilt = tempDir('read-side-rebuilt');
    try {
      await write(3 * readSideLimits.relayBatchEntriesMax); // three relay batches: close() comes while they are applied
      const first = await startReadSide({ dataDir: dir, tail: () => store.durableSeq, log: silent, onThisThread });
      assert.ok(await first.caughtUp('balance_history', 1, catchUpMs));
      await first.close();
      assert.not.ok(existsSync(join(dir, `${projectionsFileName}-wal`)), 'every projections.db connection closed');
      const db = openProjectionsDb(dir, projectionSchemas, silent);
      assert.is(new RelayPositions(db).load('inprocess'), first.relay.position, 'the mirrored relay position is the stored one');
      db.close();

      const second = await startReadSide({ dataDir: dir, tail: () => store.durableSeq, log: silent, onThisThread });
      store.onDurable(() => second.wake());
      try {
        const tail = await write(30);
        assert.ok(await caughtUpAll(second, tail));
      } finally {
        await second.close();
      }

      const fresh = openProjectionsDb(rebuilt, projectionSchemas, silent);
      const journal = new JournalReader(dir);
      rebuildProjections(fresh, journal, projections);
      journal.close();
      fresh.close();
      assert.fixture(dumpProjections(dir), dumpProjections(rebuilt));
    } finally {
      store.close();
      removeDir(dir);
      removeDir(rebuilt);
    }
  });
}

test('embedded default: the worker thread logs through the read side\'s logger', async () => {
  const { dir, store, write } = await writeSide('read-side-log');
  const lines: { level: string; fields: { projection?: string }; message: string }[] = [];
  const at = (level: string) => (fields: object, message: string) => { lines.push({ level, fields, message }); };
  const readSide = await startReadSide({ dataDir: dir, tail: () => store.durableSeq, log: { info: at('info'), warn: at('warn'), error: at('error') } });
  store.onDurable(() => readSide.wake());
  try {
    assert.ok(await caughtUpAll(readSide, store.durableSeq));
    const db = openProjectionsDb(dir, projectionSchemas, silent);
    new Applier(db, projections.find((p) => p.name === 'events_feed')!).reset();
    db.close();
    const tail = await write(1);
    assert.ok(await caughtUpAll(readSide, tail));
    // The worker's messages arrive in order, and it answers a relay stop after everything it
    // did before: its position and the gap fill's line are in by then.
    await readSide.relay.stop();
    assert.is(readSide.relay.position, tail);
    assert.ok(lines.some((l) => l.level === 'info' && /filled a gap from the journal/.test(l.message) && l.fields.projection === 'events_feed'), JSON.stringify(lines));
  } finally {
    await readSide.close();
    store.close();
    removeDir(dir);
  }
});

test.run();
