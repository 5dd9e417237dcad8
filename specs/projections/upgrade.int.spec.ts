// A data dir an older build left behind, started by this one. projections.db from before
// ra_legs had slip_shown_minor and declined (341a281): opening it adds the columns, in one
// place, before the API's reads or the projections prepare a statement — the real server
// starts on it and answers the receiving-accounts report. A projections.db this build
// cannot use refuses the start before journal.db is migrated, so the older build still
// opens the journal; moved aside, it is made anew. A journal.db a version-4 build left (no
// outbox_sequence_jumps) is brought to version 5 by adding the table, and the restore's jump
// that follows is recorded in it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { merchantActor } from '../adapters/support.ts';
import { projectionSchemas } from '../../projections/all.ts';
import { openProjectionsDb, projectionsFileName, ProjectionsDbRefused } from '../../projections/db.ts';
import { ReceivingAccountReads } from '../../projections/receiving-accounts.ts';
import { accepted, financeOperator as operator, payLeg } from '../support/finance.ts';
import { TestServer } from '../support/server-harness.ts';
import { RestoreMarkerUnreadable } from '../../adapters/sqlite/backup.ts';

/** ra_legs as the build before 341a281 created it (`git show 341a281^:projections/receiving-accounts.ts`). */
const raLegsBefore341a281 = `
CREATE TABLE ra_legs (
  deposit_id TEXT NOT NULL, leg_ref TEXT NOT NULL, livemode INTEGER NOT NULL, merchant_id TEXT NOT NULL,
  withdrawal_id TEXT NOT NULL, payout_leg_ref TEXT NOT NULL, bank_code TEXT NOT NULL, account_number TEXT NOT NULL,
  account_name TEXT NOT NULL, told_minor INTEGER NOT NULL, told_at INTEGER NOT NULL, verified_minor INTEGER, filled_minor INTEGER,
  released INTEGER NOT NULL DEFAULT 0, fill_reversed INTEGER NOT NULL DEFAULT 0, deposit_reversed INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (deposit_id, leg_ref)
) WITHOUT ROWID;
CREATE INDEX ra_legs_by_account ON ra_legs (livemode, merchant_id, bank_code, account_number, told_at);
CREATE INDEX ra_legs_by_payout ON ra_legs (withdrawal_id, payout_leg_ref);`;

const recordingLog = () => {
  const lines: { fields: object; message: string }[] = [];
  return { lines, warn: (fields: object, message: string) => { lines.push({ fields, message }); } };
};

const columnsOf = (db: Database.Database, table: string) => db.prepare<[string], string>('SELECT name FROM pragma_table_info(?)').pluck(true).all(table);
const userVersion = (file: string) => {
  const db = new Database(file, { readonly: true });
  try { return db.pragma('user_version', { simple: true }) as number; } finally { db.close(); }
};

/** Turns the data dir's ra_legs into the older build's table, its rows kept. */
function downgradeRaLegs(dataDir: string): number {
  const db = new Database(join(dataDir, projectionsFileName));
  try {
    db.exec('ALTER TABLE ra_legs RENAME TO ra_legs_new; DROP INDEX ra_legs_by_account; DROP INDEX ra_legs_by_payout');
    db.exec(raLegsBefore341a281);
    const old = columnsOf(db, 'ra_legs').join(', ');
    db.exec(`INSERT INTO ra_legs (${old}) SELECT ${old} FROM ra_legs_new; DROP TABLE ra_legs_new`);
    assert.not.ok(columnsOf(db, 'ra_legs').includes('slip_shown_minor'));
    return db.prepare<[], number>('SELECT count(*) FROM ra_legs').pluck(true).get()!;
  } finally {
    db.close();
  }
}

test('opening an older projections.db adds the columns its tables lack, logs it once, and keeps the rows (empty in the new columns until a rebuild)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-upgrade-'));
  try {
    const old = new Database(join(dir, projectionsFileName));
    old.exec(raLegsBefore341a281);
    old.exec(`INSERT INTO ra_legs VALUES ('dep_old', 'leg_1', 1, 'mch_w', 'wdr_1', 'leg_p', '004', '7123456789', 'สมหญิง', 100, 0, 100, 100, 0, 0, 0)`);
    old.pragma('user_version = 1');
    old.close();
    const log = recordingLog();
    const db = openProjectionsDb(dir, projectionSchemas, log);
    try {
      assert.ok(columnsOf(db, 'ra_legs').includes('slip_shown_minor') && columnsOf(db, 'ra_legs').includes('declined'), columnsOf(db, 'ra_legs').join(','));
      assert.equal(log.lines.map((l) => l.fields), [{ file: projectionsFileName, added: ['ra_legs.slip_shown_minor', 'ra_legs.declined'] }]);
      assert.match(log.lines[0]!.message, /projections rebuild/);
      // The API's read prepares on it (it failed with "no such column: slip_shown_minor").
      const [account] = new ReceivingAccountReads(db).accounts('mch_w', true, 10);
      assert.equal(account!.legs.map((l) => [l.depositId, l.verifiedMinor, l.declinedShownMinor, l.inReviewShownMinor]), [['dep_old', 100n, null, null]]);
    } finally {
      db.close();
    }
    const again = recordingLog();
    openProjectionsDb(dir, projectionSchemas, again).close();
    assert.equal(again.lines, [], 'an up-to-date file is not migrated again');
    // Nor locked: an up-to-date file opens while another connection holds the write lock (the worker mid-batch).
    const writer = new Database(join(dir, projectionsFileName));
    writer.exec('BEGIN IMMEDIATE');
    try {
      const started = performance.now();
      openProjectionsDb(dir, projectionSchemas, recordingLog()).close();
      assert.ok(performance.now() - started < 2_000, 'it waited for the write lock');
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a column that cannot be added in place (NOT NULL, no default) is refused, saying to move projections.db aside', () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-upgrade-'));
  try {
    openProjectionsDb(dir, ['CREATE TABLE IF NOT EXISTS t (a TEXT PRIMARY KEY)'], recordingLog()).close();
    assert.throws(() => openProjectionsDb(dir, ['CREATE TABLE IF NOT EXISTS t (a TEXT PRIMARY KEY, b TEXT NOT NULL)'], recordingLog()),
      (e: unknown) => e instanceof ProjectionsDbRefused && /lacks column b.*move projections\.db/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the server starts on a data dir whose projections.db predates ra_legs' newer columns and answers the receiving-accounts report from the rows it had", async () => {
  let s = await TestServer.start();
  const dataDir = s.dataDir;
  try {
    const withdrawer = await s.onboard('ผู้ถอน');
    const payer = await s.onboard('Payer', withdrawer.whiteLabelId);
    await s.fund(withdrawer.id, 1_000_000);
    const beneficiaryId = await accepted(s, { type: 'RegisterBeneficiary', actor: operator, merchantId: withdrawer.id, livemode: true, bankCode: '004', accountNumber: '7123456789', accountNameTh: 'สมหญิง รักดี', verified: true });
    await accepted(s, { type: 'CreateWithdrawal', actor: merchantActor(withdrawer.id), amountMinor: 500_000n, merchantReference: 'w-1', endUserRef: 'payee', beneficiaryId, requiresApproval: false, p2pMinimumApplies: false });
    const depositId = await accepted(s, {
      type: 'CreateDeposit', actor: merchantActor(payer.id), amountMinor: 20_000n, merchantReference: `d-${randomUUID()}`, endUserRef: 'u-1',
      sender: { bankCode: '014', accountNumber: '9876543210', accountNameTh: 'สมชาย ใจดี' }, hasClientData: true,
    });
    await payLeg(s, depositId, 0, 20_000n);
    const report = () => s.bo('GET', `/v1/bo/reports/receiving-accounts?merchant_id=${withdrawer.id}&livemode=true`, undefined, { roles: ['finance'] });
    const before = await report();
    assert.is(before.status, 200, before.text);
    await s.stop(false);

    assert.is(downgradeRaLegs(dataDir), 1, "the older build's table holds the leg");
    s = await TestServer.start({}, dataDir);
    const after = await report();
    assert.is(after.status, 200, after.text);
    assert.equal(after.json.data, before.json.data, 'the same account, legs and totals');
    assert.equal([after.json.data[0].legs, after.json.data[0].told_minor, after.json.data[0].verified_minor], [1, 20_000, 20_000]);
  } finally {
    await s.stop(false);
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(`${dataDir}.master-key`, { force: true });
  }
});

test('a projections.db this build cannot use refuses the start before journal.db is migrated; moved aside, it is made anew', async () => {
  const first = await TestServer.start();
  const dataDir = first.dataDir;
  await first.onboard('Shop');
  await first.stop(false);
  const journalFile = join(dataDir, 'journal.db');
  const projectionsFile = join(dataDir, projectionsFileName);
  try {
    // The journal as the build before schema version 2 left it; a projections.db of a shape this build does not know.
    const journal = new Database(journalFile);
    journal.pragma('user_version = 1');
    journal.close();
    const projections = new Database(projectionsFile);
    projections.pragma('user_version = 99');
    projections.close();
    try {
      const refused = await TestServer.start({}, dataDir);
      await refused.stop(false);
      assert.unreachable('started on a projections.db of schema version 99');
    } catch (error) {
      assert.instance(error, ProjectionsDbRefused);
      assert.match((error as Error).message, /schema version 99.*move projections\.db/);
    }
    assert.is(userVersion(journalFile), 1, 'journal.db left as the older build can open it');
    for (const suffix of ['', '-wal', '-shm']) rmSync(projectionsFile + suffix, { force: true });
    const s = await TestServer.start({}, dataDir);
    try {
      assert.is((await s.bo('GET', '/v1/bo/merchants?limit=10')).status, 200);
    } finally {
      await s.stop(false);
    }
    assert.is(userVersion(journalFile), 5, 'migrated once everything opened');
    assert.is(userVersion(projectionsFile), 1);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(`${dataDir}.master-key`, { force: true });
  }
});

test("a journal.db of schema version 4 gets outbox_sequence_jumps at the start, then version 5 (not when a bad restore marker refuses the start); a restore's jump lands in it", async () => {
  const first = await TestServer.start();
  const dataDir = first.dataDir;
  const shop = await first.onboard('Shop');
  await first.fund(shop.id, 10_000);
  await first.stop(false);
  const journalFile = join(dataDir, 'journal.db');
  try {
    const journal = new Database(journalFile);
    journal.exec('DROP TABLE outbox_sequence_jumps');
    journal.pragma('user_version = 4');
    journal.close();
    // A marker that does not read refuses the start before journal.db is migrated: the older build still opens it.
    writeFileSync(join(dataDir, 'restored.json'), '{"id": "cut', { mode: 0o600 });
    try {
      const refused = await TestServer.start({}, dataDir);
      await refused.stop(false);
      assert.unreachable('started on a restored.json that does not read');
    } catch (error) {
      assert.instance(error, RestoreMarkerUnreadable);
    }
    assert.is(userVersion(journalFile), 4, 'journal.db left as the older build can open it');
    // As `satang restore` leaves it: the start journals the jump before any request.
    writeFileSync(join(dataDir, 'restored.json'), JSON.stringify({ id: randomUUID(), backup_taken_at: '2026-11-21T02:00:00.000Z' }), { mode: 0o600 });
    const s = await TestServer.start({}, dataDir);
    try {
      const feed = await s.call(shop.live.api_key, 'GET', '/v1/pay/events?since_sequence=0&limit=200');
      assert.is(feed.status, 200, feed.text);
      assert.is(feed.json.coverage.skipped.length, 1, JSON.stringify(feed.json.coverage));
    } finally {
      await s.stop(false);
    }
    assert.is(userVersion(journalFile), 5);
    const db = new Database(journalFile, { readonly: true });
    try {
      assert.is(db.prepare('SELECT count(*) FROM outbox_sequence_jumps').pluck(true).get(), 2, "the merchant's live and sandbox jumps");
    } finally {
      db.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(`${dataDir}.master-key`, { force: true });
  }
});

test.run();
