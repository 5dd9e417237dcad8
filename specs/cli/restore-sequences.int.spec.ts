// A restore never gives a merchant's sequence out twice (`satang restore`, then the
// server's first start on the data dir, run as an operator runs them):
// - what was committed after the backup is lost, but its merchant was told of it (events
//   feed, webhooks, balance history) under sequences past the backup's: the first start
//   journals the restore's jump, so the next event and the next balance-history row are
//   numbered above every one given out before the restore;
// - a balance-history client whose cursor is from the lost tail pages on from it and gets
//   the rows made since (no 422 until the new rows pass it, no row skipped); a cursor above
//   the new checkpoint is still 422 invalid_cursor;
// - `satang reconcile` on a store that holds lost events says the feed no longer holds them
//   (feed_rewound), truthfully: the feed holds the later events, not one at that sequence;
// - the events feed says which sequences the jump skipped (coverage.skipped), and
//   `satang reconcile` of a merchant that lost nothing takes them for no gap, not for ~10^9
//   sequences pending and, 4 days on, lost;
// - a sandbox reset in the lost tail began a run the restored service must not begin again:
//   the jump moves the sandbox's run_generation past it (the sandbox history starts that run,
//   as at a reset), so the next reset's run is new and a cursor of the lost run is 409;
// - the jump is journaled once: a second start (with restored.json put back, as after a
//   crash between the journal and its removal) adds none, and projections rebuilt from the
//   journal give the same next sequences;
// - a restored.json that does not read, or lacks its id or backup_taken_at, refuses the
//   start (one line saying what to write in it, exit 78) and journals nothing: the jump is
//   not skipped.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { limits } from '../../core/limits.ts';
import { type MerchantKeys, TestServer } from '../support/server-harness.ts';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
const startPath = fileURLToPath(new URL('../../server/start.mjs', import.meta.url));
const jump = limits.sequenceJumpAfterRestore;

function satang(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(satangPath, args, { cwd: tmpdir(), env: { ...process.env, SATANG_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The merchant's live events, as the feed serves them. */
async function events(s: TestServer, shop: MerchantKeys): Promise<{ id: string; sequence: number }[]> {
  const r = await s.call(shop.live.api_key, 'GET', '/v1/pay/events?since_sequence=0&limit=200');
  assert.is(r.status, 200, r.text);
  return r.json.data;
}

/** A balance-history page, once the history is ready (the projection catches up on its own thread). */
async function history(s: TestServer, shop: MerchantKeys, since: string): Promise<{ status: number; json: any }> {
  for (let i = 0; ; i++) {
    const r = await s.call(shop.live.api_key, 'GET', `/v1/pay/balance/transactions?limit=100&since_sequence=${since}`);
    if (r.status !== 503 || i === 100) return r;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A sandbox balance-history page, once the history is ready. */
async function sandboxHistory(s: TestServer, shop: MerchantKeys, query: string): Promise<{ status: number; json: any }> {
  for (let i = 0; ; i++) {
    const r = await s.call(shop.sandbox.api_key, 'GET', `/v1/pay/balance/transactions?limit=100&${query}`);
    if (r.status !== 503 || i === 100) return r;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The checkpoint once the history has every balance transaction of the journal. */
async function checkpoint(s: TestServer, shop: MerchantKeys): Promise<bigint> {
  const r = await history(s, shop, '0');
  assert.is(r.status, 200, JSON.stringify(r.json));
  return BigInt(r.json.checkpoint.sequence);
}

const dir = mkdtempSync(join(tmpdir(), 'satang-restore-seq-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test("after a restore, the merchant's next event and balance-history row are numbered past every one given out before it; cursors from the lost tail go on", async () => {
  const s = await TestServer.start({}, join(dir, 'before'));
  let shop: MerchantKeys;
  let quiet: MerchantKeys; // a merchant with nothing after the backup: it loses no event
  let lost: { id: string; sequence: number }[];
  let lostCursor: string;
  let lostRun: number; // the sandbox run a reset after the backup began
  let highestRow: bigint;
  const store = join(dir, 'reconcile.json');
  const quietStore = join(dir, 'reconcile-quiet.json');
  const backup = join(dir, 'backup');
  try {
    shop = await s.onboard('Shop');
    await s.fund(shop.id, 10_000);
    quiet = await s.onboard('Quiet');
    await s.fund(quiet.id, 5_000);
    const quietReconciled = await satang(['reconcile', '--key', quiet.live.api_key, '--url', s.url, '--store', quietStore, '--json']);
    assert.is(quietReconciled.code, 0, quietReconciled.stdout + quietReconciled.stderr);
    const backedUp = await satang(['backup', '--to', backup, '--data-dir', s.dataDir]);
    assert.is(backedUp.code, 0, backedUp.stdout + backedUp.stderr);
    const atBackup = (await events(s, shop)).length;
    const rowsAtBackup = await checkpoint(s, shop);
    // After the backup: events and rows the merchant sees, and that the restore loses.
    await s.fund(shop.id, 20_000);
    await s.fund(shop.id, 30_000);
    lost = (await events(s, shop)).slice(atBackup);
    assert.ok(lost.length >= 2, `lost: ${lost.length}`);
    highestRow = await checkpoint(s, shop);
    assert.ok(highestRow >= rowsAtBackup + 2n);
    lostCursor = String(rowsAtBackup + 1n); // a client that read the first lost row
    const reset = await s.call(shop.sandbox.api_key, 'POST', '/v1/test/sandbox/reset', {});
    assert.is(reset.status, 200, reset.text);
    lostRun = reset.json.run_generation;
    assert.is(lostRun, 2);
    // The merchant's reconciliation store holds the lost events.
    const reconciled = await satang(['reconcile', '--key', shop.live.api_key, '--url', s.url, '--store', store, '--json']);
    assert.is(reconciled.code, 0, reconciled.stdout + reconciled.stderr);
  } finally {
    await s.stop(false);
  }
  const restoredDir = join(dir, 'restored');
  const restored = await satang(['restore', '--from', backup, '--data-dir', restoredDir]);
  assert.is(restored.code, 0, restored.stdout + restored.stderr);
  assert.ok(existsSync(join(restoredDir, 'restored.json')), 'the restore leaves its marker for the first start');
  const marker = readFileSync(join(restoredDir, 'restored.json'), 'utf8');
  assert.match(restored.stdout, /sequences: the server's first start on it moves every merchant's event and balance-history sequences on by 1000000000/);
  copyFileSync(`${join(dir, 'before')}.master-key`, `${restoredDir}.master-key`);

  const highestEvent = Math.max(...lost.map((e) => e.sequence));
  let s2 = await TestServer.start({}, restoredDir);
  try {
    assert.not.ok(existsSync(join(restoredDir, 'restored.json')), 'the start journaled the jump and removed the marker');
    const restoredCheckpoint = await checkpoint(s2, shop);
    assert.ok(restoredCheckpoint > highestRow, `the checkpoint ${restoredCheckpoint} is past every row given out before the restore (${highestRow})`);
    await s2.fund(shop.id, 40_000);
    const after = (await events(s2, shop)).filter((e) => !lost.some((l) => l.id === e.id));
    const next = after[after.length - 1]!;
    assert.ok(next.sequence > highestEvent, `the new event's sequence ${next.sequence} is above every lost one (${highestEvent})`);
    assert.not.ok(lost.some((l) => l.sequence === next.sequence), 'no sequence names two events');

    // A cursor from the lost tail: its next page holds the new row, numbered past the old rows.
    const page = await history(s2, shop, lostCursor);
    assert.is(page.status, 200, JSON.stringify(page.json));
    assert.is(page.json.data.length, 1, JSON.stringify(page.json.data));
    assert.ok(BigInt(page.json.data[0].sequence) > highestRow, `row ${page.json.data[0].sequence} is past ${highestRow}`);
    assert.is(page.json.data[0].bucket_deltas.available_minor, '40000');
    assert.is(page.json.next_sequence, page.json.data[0].sequence);
    // One above the new checkpoint is still refused.
    const ahead = await history(s2, shop, String(BigInt(page.json.checkpoint.sequence) + 1n));
    assert.is(ahead.status, 422);
    assert.is(ahead.json.error.code, 'invalid_cursor');

    // The store holding lost events: the feed no longer holds its last one at that sequence, and says what it holds instead.
    const rewound = await satang(['reconcile', '--key', shop.live.api_key, '--url', s2.url, '--store', store, '--json']);
    assert.is(rewound.code, 1, rewound.stdout + rewound.stderr);
    const report = JSON.parse(rewound.stdout);
    assert.is(report.feed_rewound.store_sequence, highestEvent);
    assert.is(report.feed_rewound.feed_event_id, null);
    assert.is(report.feed_rewound.feed_next_sequence, next.sequence);
    const said = await satang(['reconcile', '--key', shop.live.api_key, '--url', s2.url, '--store', store]);
    assert.match(said.stdout, `the feed no longer holds this store's event ${lost[lost.length - 1]!.id} at sequence ${highestEvent} (it holds none there; its next is ${next.sequence})`);
    assert.match(said.stdout, /restore-lost\.json/);

    // The sandbox: its run is past the lost one; the next reset begins a run never begun; the lost run's cursor is refused.
    const sandboxPage = await sandboxHistory(s2, shop, 'since_sequence=0');
    assert.is(sandboxPage.status, 200, JSON.stringify(sandboxPage.json));
    assert.is(sandboxPage.json.run_generation, 1 + limits.runGenerationJumpAfterRestore, 'the run the jump began, past the lost run');
    const nextReset = await s2.call(shop.sandbox.api_key, 'POST', '/v1/test/sandbox/reset', {});
    assert.is(nextReset.status, 200, nextReset.text);
    assert.ok(nextReset.json.run_generation > lostRun, `the reset's run ${nextReset.json.run_generation} is not the lost run ${lostRun} again`);
    const lostRunCursor = await sandboxHistory(s2, shop, `since_sequence=1&run_generation=${lostRun}`);
    assert.is(lostRunCursor.status, 409, JSON.stringify(lostRunCursor.json));
    assert.is(lostRunCursor.json.error.code, 'sandbox_run_changed');

    // The merchant that lost nothing: the feed names the jump, and its reconciliation across it finds no gap.
    const quietLast = (await events(s2, quiet)).at(-1)!.sequence;
    await s2.fund(quiet.id, 6_000);
    const feed = await s2.call(quiet.live.api_key, 'GET', `/v1/pay/events?since_sequence=${quietLast}&limit=200`);
    assert.is(feed.status, 200, feed.text);
    assert.is(feed.json.data[0].sequence, quietLast + jump + 1, 'the new event is past the jump');
    assert.equal(feed.json.coverage, { state: 'complete', retention_days: feed.json.coverage.retention_days, min_since_sequence: 0, skipped: [{ from_sequence: quietLast + 1, to_sequence: quietLast + jump, reason: 'restore' }] });
    const past = await s2.call(quiet.live.api_key, 'GET', `/v1/pay/events?since_sequence=${quietLast + jump + 1}&limit=200`);
    assert.not.ok('skipped' in past.json.coverage, 'a page after the jump says nothing of it');
    s2.clock.advance(5 * 86_400_000); // the event after the jump is older than 4 days: a gap there would be lost
    const acrossJump = await satang(['reconcile', '--key', quiet.live.api_key, '--url', s2.url, '--store', quietStore, '--json']);
    assert.is(acrossJump.code, 0, acrossJump.stdout + acrossJump.stderr);
    const quietReport = JSON.parse(acrossJump.stdout);
    assert.equal(quietReport.gaps, []);
    assert.is(quietReport.feed_rewound, null);
    assert.equal(quietReport.skipped, [{ from: quietLast + 1, to: quietLast + jump }]);
    assert.is(quietReport.balance.agrees, true, JSON.stringify(quietReport.balance));
    const quietSaid = await satang(['reconcile', '--key', quiet.live.api_key, '--url', s2.url, '--store', quietStore]);
    assert.is(quietSaid.code, 0, quietSaid.stdout);
    assert.match(quietSaid.stdout, `sequence gaps: none\nsequences ${quietLast + 1}–${quietLast + jump}: skipped by a restore`);
  } finally {
    await s2.stop(false);
  }

  // A start cut short after the journal, before the marker went: the marker again, the same id; and projections rebuilt from the journal.
  writeFileSync(join(restoredDir, 'restored.json'), marker, { mode: 0o600 });
  rmSync(join(restoredDir, 'projections.db'), { force: true });
  s2 = await TestServer.start({}, restoredDir);
  try {
    assert.not.ok(existsSync(join(restoredDir, 'restored.json')));
    const rebuilt = await checkpoint(s2, shop);
    const before = (await events(s2, shop)).at(-1)!.sequence;
    await s2.fund(shop.id, 50_000);
    const last = (await events(s2, shop)).at(-1)!;
    assert.is(last.sequence, before + 1, 'no second jump: the next event follows on');
    assert.is(await checkpoint(s2, shop), rebuilt + 1n, 'the history rebuilt from the journal goes on from the same sequence');
    assert.ok(rebuilt < BigInt(jump) * 2n, 'one jump, not two');
  } finally {
    await s2.stop();
  }
});

/** The server started as systemd starts it, on `dataDir`: its exit code and what it wrote to stderr. */
function started(dataDir: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [startPath], { env: { PATH: process.env.PATH, SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

const journalTail = (dataDir: string): number => {
  const db = new Database(join(dataDir, 'journal.db'), { readonly: true });
  try { return db.prepare('SELECT max(seq) FROM journal').pluck(true).get() as number; } finally { db.close(); }
};

test('a restored.json that does not read, or lacks its id or backup_taken_at, refuses the start in one line saying what to write in it, and nothing is journaled', async () => {
  const s = await TestServer.start({}, join(dir, 'marker'));
  await s.onboard('Shop');
  await s.stop(false);
  const tail = journalTail(s.dataDir);
  const markerFile = join(s.dataDir, 'restored.json');
  const what = '{"id": "<any new uuid>", "backup_taken_at": "<the backup\'s taken_at>"}';
  for (const [marker, problem] of [
    ['{"id": "7f1c", "backup_taken_at": ', /restored\.json does not read \(.*JSON.*\)/],
    ['{"id": "7f1c"}', /restored\.json lacks its id or backup_taken_at/],
    ['{"backup_taken_at": "2026-11-21T02:00:00.000Z"}', /restored\.json lacks its id or backup_taken_at/],
    ['{"id": "7f1c", "backup_taken_at": "yesterday"}', /restored\.json lacks its id or backup_taken_at/],
  ] as const) {
    writeFileSync(markerFile, marker, { mode: 0o600 });
    const r = await started(s.dataDir);
    assert.is(r.code, 78, `${marker}: ${r.stderr}`);
    assert.match(r.stderr, problem, marker);
    assert.ok(r.stderr.startsWith('satang: ') && r.stderr.trimEnd().endsWith(`write ${what} into it`), r.stderr);
    assert.is(r.stderr.trimEnd().split('\n').length, 1, `one line, no stack: ${r.stderr}`);
    assert.is(journalTail(s.dataDir), tail, 'nothing journaled');
    assert.ok(existsSync(markerFile), 'the marker is left for the start that follows its mending');
  }
  // Mended as the message says: the start journals the jump and removes it.
  writeFileSync(markerFile, JSON.stringify({ id: 'c0ffee00-0000-4000-8000-000000000000', backup_taken_at: '2026-11-21T02:00:00.000Z' }), { mode: 0o600 });
  const mended = await TestServer.start({}, s.dataDir);
  await mended.stop(false);
  assert.not.ok(existsSync(markerFile));
  assert.ok(journalTail(s.dataDir) > tail, 'the jump was journaled');
});

test.run();
