// A backup taken while operators work checks clean with `satang verify`, as the data dir it
// came from does. verify holds the action log (journal.db) against the back-office calls the
// request log (logs.db) names: the server appends a call's action-log row before the request
// log's line, so every call logs.db holds has its row — as long as logs.db is not read after
// journal.db. backup copies them one after the other, so it copies logs.db first: a call
// answered between the two copies then has its row in the journal copy and no line in the
// logs copy (allowed), never a line without its row (a backup, and every data dir restored
// from it, failing verify for good: "back-office call(s) of the request log have no row here").

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { satang } from '../support/cli.ts';
import { TestServer } from '../support/server-harness.ts';
import { backupCopySpanMaxMs, requestLogAheadOfJournal } from '../../adapters/sqlite/backup.ts';

test('backups taken while back-office calls go on verify with the request log as their witness', async () => {
  const s = await TestServer.start();
  const dir = mkdtempSync(join(tmpdir(), 'satang-backup-bo-'));
  let working = true;
  let load: Promise<number> = Promise.resolve(0);
  try {
    const { id } = await s.onboard('Shop');
    load = (async () => {
      let calls = 0;
      while (working) {
        const r = await s.bo('GET', `/v1/bo/merchants/${id}/balance`, undefined, { roles: ['finance'] });
        assert.is(r.status, 200, r.text);
        calls++;
      }
      return calls;
    })();
    const backups = 4;
    for (let i = 0; i < backups; i++) {
      const to = join(dir, `b${i}`);
      const r = await satang(['backup', '--to', to, '--data-dir', s.dataDir], { SATANG_LOG_LEVEL: 'silent' });
      assert.is(r.code, 0, r.stdout + r.stderr);
      const v = await satang(['verify', '--data-dir', to], { SATANG_LOG_LEVEL: 'silent' });
      const report = JSON.parse(v.stdout) as { ok: boolean; action_log: { ok: boolean; request_log_calls: number; problem: string | null } };
      assert.ok(report.action_log.ok, `backup ${i}: ${report.action_log.problem}`);
      assert.ok(report.action_log.request_log_calls > 0, 'the request log was a witness');
      assert.is(v.code, 0, v.stdout);
    }
    working = false;
    assert.ok(await load > backups, 'operators worked throughout');
  } finally {
    working = false;
    await load.catch(() => 0);
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

type Verified = { code: number; report: { ok: boolean; action_log: { ok: boolean; request_log_calls: number; request_log_calls_after_backup: number; problem: string | null } } };
async function verify(dataDir: string): Promise<Verified> {
  const v = await satang(['verify', '--data-dir', dataDir], { SATANG_LOG_LEVEL: 'silent' });
  return { code: v.code, report: JSON.parse(v.stdout) };
}

// A backup as a build before 2026-12-01 took it: journal.db copied (after taken_at), then a
// back-office call answered, then logs.db copied. Made from today's backup by copying logs.db
// again after the call, its manifest entry updated as the old build would have written it.
async function backupTheOldWay(s: TestServer, to: string, between: () => Promise<void>): Promise<void> {
  const r = await satang(['backup', '--to', to, '--data-dir', s.dataDir], { SATANG_LOG_LEVEL: 'silent' });
  assert.is(r.code, 0, r.stdout + r.stderr);
  await between();
  assert.is((await s.bo('GET', '/v1/bo/logs?limit=1')).status, 200); // commits every request-log row handed over before it
  const logs = join(to, 'logs.db');
  rmSync(`${logs}.later`, { force: true });
  const live = new Database(join(s.dataDir, 'logs.db'), { readonly: true });
  try { live.prepare('VACUUM INTO ?').run(`${logs}.later`); } finally { live.close(); }
  renameSync(`${logs}.later`, logs);
  const manifest = JSON.parse(readFileSync(join(to, 'backup.json'), 'utf8')) as { files: { path: string; bytes: number; sha256: string }[] };
  const bytes = readFileSync(logs);
  const entry = manifest.files.find((f) => f.path === 'logs.db')!;
  Object.assign(entry, { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  writeFileSync(join(to, 'backup.json'), JSON.stringify(manifest, null, 2));
}

test("an older build's backup, its request log copied after its journal, verifies — and so does every data dir restored from it; a row cut from before it still fails", async () => {
  const s = await TestServer.start({}, undefined, { systemClock: true });
  const dir = mkdtempSync(join(tmpdir(), 'satang-backup-old-'));
  const backup = join(dir, 'backup');
  const restored = join(dir, 'restored');
  try {
    await s.onboard('Shop'); // a merchant: the restored data dir's first start journals its jump
    // Between the two copies an operator onboards a merchant: two POSTs in the request log copy, no row in the journal copy.
    await backupTheOldWay(s, backup, async () => { await s.onboard('Answered between the copies'); });

    const ofBackup = await verify(backup);
    assert.is(ofBackup.code, 0, JSON.stringify(ofBackup.report.action_log));
    assert.ok(ofBackup.report.action_log.request_log_calls_after_backup >= 2, JSON.stringify(ofBackup.report.action_log));

    const r = await satang(['restore', '--from', backup, '--data-dir', restored], { SATANG_LOG_LEVEL: 'silent' });
    assert.is(r.code, 0, r.stdout + r.stderr);
    copyFileSync(`${s.dataDir}.master-key`, `${restored}.master-key`);
    const beforeStart = await verify(restored); // restored.json names the backup and the restore
    assert.is(beforeStart.code, 0, JSON.stringify(beforeStart.report.action_log));
    assert.ok(beforeStart.report.action_log.request_log_calls_after_backup >= 2);

    const s2 = await TestServer.start({}, restored, { systemClock: true });
    try {
      assert.is((await s2.bo('GET', '/v1/bo/merchants')).status, 200);
      assert.is((await s2.bo('GET', '/v1/bo/logs?limit=1')).status, 200);
    } finally {
      await s2.stop(false);
    }
    const afterStart = await verify(restored); // the journaled jump names them now
    assert.is(afterStart.code, 0, JSON.stringify(afterStart.report.action_log));
    assert.ok(afterStart.report.action_log.request_log_calls_after_backup >= 2);
    assert.ok(afterStart.report.action_log.request_log_calls > afterStart.report.action_log.request_log_calls_after_backup + 2, 'the calls since the restore were looked for too');

    // Rows cut from the end back to one answered before the backup: each is missing, in the
    // backup and in its restore (only the calls between the copies are excused).
    const takenAt = Date.parse((JSON.parse(readFileSync(join(backup, 'backup.json'), 'utf8')) as { taken_at: string }).taken_at);
    for (const target of [backup, restored]) {
      const tampered = join(dir, 'tampered');
      rmSync(tampered, { recursive: true, force: true });
      cpSync(target, tampered, { recursive: true });
      const db = new Database(join(tampered, 'journal.db'));
      let cutRows: number;
      try {
        db.exec('DROP TRIGGER action_log_refuses_delete');
        const lastBefore = db.prepare<[number], number>('SELECT max(id) FROM action_log WHERE at < ?').pluck(true).get(takenAt)!;
        cutRows = db.prepare('DELETE FROM action_log WHERE id >= ?').run(lastBefore).changes;
      } finally {
        db.close();
      }
      const cut = await verify(tampered);
      assert.is(cut.code, 1, target);
      assert.match(String(cut.report.action_log.problem), new RegExp(`^${cutRows} back-office call\\(s\\) of the request log have no row here`));
    }
  } finally {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${restored}.master-key`, { force: true });
  }
});

test('a restore marker written by hand excuses no more than a backup copy takes: its span is cut to backupCopySpanMaxMs from the backup it names', () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-span-'));
  const db = new Database(':memory:');
  try {
    const takenAt = Date.UTC(2026, 0, 1);
    writeFileSync(join(dir, 'restored.json'), JSON.stringify({ id: 'r1', backup_taken_at: new Date(takenAt).toISOString(), restored_at: new Date(takenAt + 30 * 24 * 3_600_000).toISOString() }));
    assert.equal(requestLogAheadOfJournal(dir, db), [{ from: takenAt, until: takenAt + backupCopySpanMaxMs }], 'a month claimed, an hour excused');
    writeFileSync(join(dir, 'restored.json'), JSON.stringify({ id: 'r2', backup_taken_at: new Date(takenAt).toISOString(), restored_at: new Date(takenAt + 60_000).toISOString() }));
    assert.equal(requestLogAheadOfJournal(dir, db), [{ from: takenAt, until: takenAt + 60_000 }], 'a restore within the hour: until it');
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
