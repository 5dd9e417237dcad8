// The SQLite journal on real database files: durable settings, what one command writes
// (journal, postings, snapshots, outbox envelopes, timers, idempotency record) and that it
// writes all or nothing, recovery, append-only triggers, tamper detection by verify and
// at startup, the recovery rate, and a commit the disk cannot take (readiness reads it).

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decode, encode } from '../../core/journal.ts';
import { ChainBroken, IdempotencyKeyInUse } from '../../adapters/sqlite/errors.ts';
import { recoverWorld } from '../../adapters/sqlite/recovery.ts';
import { openDatabase } from '../../adapters/sqlite/schema.ts';
import { openStore } from '../../adapters/sqlite/store.ts';
import { verifyStore } from '../../adapters/sqlite/verify.ts';
import { ManualClock } from '../../adapters/clock.ts';
import { UlidIds } from '../../adapters/ids.ts';
import { Driver, merchantActor, openTestStore, operator, record, removeDir, rowCounts, startMs, system, tempDir } from './support.ts';
import { settled } from '../../core/handler/handle.ts';

const satang = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
const dirs: string[] = [];
const fresh = (tag: string) => { const d = tempDir(tag); dirs.push(d); return d; };
test.after(() => { for (const d of dirs) removeDir(d); });

/** A store with a white label, a funded payer with one open withdrawal, and a depositor. */
async function scene(groupCommit = true) {
  const dir = fresh('journal');
  const { store, clock } = openTestStore(dir, { groupCommit });
  const d = new Driver(store, clock);
  const wl = await d.whiteLabel();
  const payer = await d.merchant(wl, 50_000_000n);
  const depositor = await d.merchant(wl);
  const withdrawal = await d.withdrawal(payer, 1_000_000n);
  return { dir, store, clock, d, wl, payer, depositor, withdrawal };
}

const envelopes = (store: { db: ReturnType<typeof openDatabase> }, where = '1 = 1') =>
  (store.db.prepare(`SELECT body FROM outbox WHERE ${where} ORDER BY rowid`).pluck(true).all() as string[]).map((b) => JSON.parse(b));

test('journal.db runs in WAL mode with synchronous read back as FULL (2)', () => {
  const db = openDatabase(fresh('pragma'));
  assert.is(db.pragma('journal_mode', { simple: true }), 'wal');
  assert.is(db.pragma('synchronous', { simple: true }), 2);
  db.close();
});

test('one command writes its entries, postings, snapshot, envelope and idempotency record together', async () => {
  const s = await scene();
  const before = rowCounts(s.store);
  const meta = { requestId: 'req_fund', idempotencyKey: 'idem-fund' };
  const r = await settled(s.store.submit(
    { type: 'PostAdjustment', actor: operator(), merchantId: s.depositor, livemode: true, amountMinor: 123_456n, direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'funding' },
    meta, record('idem-fund', s.clock.now())));
  assert.ok(r.ok);
  const btxn = r.objectId!;
  const after = rowCounts(s.store);
  assert.equal({ journal: after.journal - before.journal, postings: after.postings - before.postings, snapshots: after.snapshots - before.snapshots, outbox: after.outbox - before.outbox, idempotency: after.idempotency - before.idempotency },
    { journal: 1, postings: 2, snapshots: 1, outbox: 1, idempotency: 1 });

  const row = s.store.db.prepare('SELECT seq, stream, kind, version, type, livemode, merchant_id, recorded_at FROM journal ORDER BY seq DESC LIMIT 1').get() as Record<string, unknown>;
  assert.equal(row, { seq: after.journal, stream: btxn, kind: 'balance_transaction', version: 0, type: 'BalanceTransactionPosted', livemode: 1, merchant_id: s.depositor, recorded_at: startMs });
  const postings = s.store.db.prepare('SELECT account, amount FROM postings WHERE balance_transaction_id = ? ORDER BY account').safeIntegers(true).all(btxn) as { account: string; amount: bigint }[];
  assert.equal(postings, [{ account: `${s.depositor}:live:available`, amount: 123_456n }, { account: 'sys:live:adjustments', amount: -123_456n }]);
  const snapshot = s.store.db.prepare('SELECT kind, version, data, journal_seq FROM snapshots WHERE stream = ?').get(btxn) as Record<string, unknown>;
  const entryData = s.store.db.prepare('SELECT data FROM journal WHERE seq = ?').pluck(true).get(after.journal) as string;
  assert.equal(snapshot, { kind: 'balance_transaction', version: 0, data: encode(decode<{ transaction: unknown }>(entryData).transaction), journal_seq: after.journal });
  assert.is(s.store.world.balances(s.depositor, true).availableMinor, 123_456n);

  const [event] = envelopes(s.store, `stream = '${btxn}'`);
  // An operator's call: the merchant's event names no request (only a merchant's own calls are named to it).
  assert.equal(Object.keys(event), ['id', 'object', 'type', 'api_version', 'livemode', 'created_at', 'sequence', 'account', 'data']);
  assert.match(event.id, /^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.equal({ ...event, id: 'x', data: Object.keys(event.data) }, {
    id: 'x', object: 'event', type: 'balance.credited', api_version: '2026-08-01', livemode: true, created_at: '2026-11-21T03:00:00.000Z', sequence: 1,
    account: { merchant_id: s.depositor, white_label_id: s.wl }, data: ['object'],
  }, 'balance_transaction events carry no previous_attributes key');
  assert.is(event.data.object.id, btxn);

  const rec = s.store.keys.getIdempotency('spec', 'idem-fund', s.clock.now())!;
  assert.equal(JSON.parse(rec.body), { id: btxn });
  assert.is(s.store.db.prepare('SELECT journal_seq FROM idempotency WHERE key = ?').pluck(true).get('idem-fund'), after.journal);
  s.store.close();
});

test('envelopes: previous_attributes null on *.created and the changed keys after; sequences per merchant and mode without gaps', async () => {
  const s = await scene();
  const deposit = await s.d.deposit(s.depositor, 100_000n);
  const created = envelopes(s.store, `stream = '${deposit}'`);
  assert.equal(created.map((e) => e.type), ['deposit.created', 'deposit.matched']);
  assert.is(created[0].data.previous_attributes, null);
  // deposit.created of a 201 shows the order as the request left it (awaiting_payment, its legs): only the version moves.
  assert.equal([created[0].data.object.status, created[0].data.object.legs.length, created[0].data.object.version], ['awaiting_payment', 1, 0]);
  assert.equal(created[1].data.previous_attributes, { version: 0 });
  assert.not.ok('request' in created[0], 'no request without a request id');
  const matched = envelopes(s.store, `stream = '${s.withdrawal}' AND type = 'withdrawal.matched'`);
  assert.is(matched.length, 1);
  assert.is(matched[0].data.object.version, 1);
  assert.is(matched[0].data.previous_attributes.version, 0);
  for (const merchant of [s.payer, s.depositor]) {
    const sequences = envelopes(s.store, `merchant_id = '${merchant}' AND livemode = 1`).map((e) => e.sequence);
    assert.equal(sequences, sequences.map((_, i) => i + 1), `${merchant}: ${sequences}`);
  }
  s.store.close();
});

test('snapshots and timers match the world after a mixed run; verify agrees', async () => {
  const s = await scene();
  const paid = await s.d.deposit(s.depositor, 100_000n);
  await s.d.payFirstLeg(paid);
  const canceled = await s.d.deposit(s.depositor, 50_000n);
  await s.d.ok({ type: 'CancelDeposit', actor: merchantActor(s.depositor), depositId: canceled });
  assert.is(s.store.world.deposits.get(paid)!.status, 'settled');
  const timers = s.store.db.prepare('SELECT id, stream, kind, due_at AS dueAt, arg FROM timers ORDER BY id').all() as { arg: string | null }[];
  const world = s.store.world.allTimers().sort((a, b) => (a.id < b.id ? -1 : 1)).map((t) => ({ id: t.id, stream: t.stream, kind: t.kind, dueAt: t.dueAt, arg: t.arg ?? null }));
  assert.equal(timers, world);
  for (const id of [paid, canceled]) {
    const data = s.store.db.prepare('SELECT data FROM snapshots WHERE stream = ?').pluck(true).get(id);
    assert.is(data, encode(s.store.world.deposits.get(id)));
  }
  const report = verifyStore(s.store.db);
  assert.ok(report.ok, JSON.stringify(report.mismatches));
  assert.is(report.postings_sum, '0');
  s.store.close();
});

test('a refused command writes nothing', async () => {
  const s = await scene();
  const before = rowCounts(s.store);
  const r = await settled(s.store.submit({
    type: 'CreateWithdrawal', actor: merchantActor(s.depositor), amountMinor: 1_000_000n, merchantReference: 'too-much', endUserRef: 'payee',
    beneficiaryId: await s.d.beneficiary(s.depositor), requiresApproval: false, p2pMinimumApplies: false,
  }, { requestId: 'req_x', idempotencyKey: 'idem-x' }, record('idem-x', s.clock.now())));
  assert.is(r.ok ? 'accepted' : r.rejection.code, 'insufficient_balance');
  const after = rowCounts(s.store);
  // The beneficiary, registered verified before it: its entry, its snapshot and its beneficiary.verified (the merchant's first event).
  assert.equal(after, { ...before, journal: before.journal + 1, snapshots: before.snapshots + 1, outbox: before.outbox + 1, outbox_sequences: before.outbox_sequences + 1 }, 'only the beneficiary registered before it');
  s.store.close();
});

for (const groupCommit of [false, true]) {
  test(`an append that fails leaves no partial rows and the world is rebuilt from the journal (groupCommit ${groupCommit})`, async () => {
    const s = await scene(groupCommit);
    await s.d.ok({ type: 'RegisterWhiteLabel', actor: operator(), name: 'first' }, {}).then(() => settled(s.store.submit(
      { type: 'RegisterWhiteLabel', actor: operator(), name: 'keyed' }, {}, record('taken', s.clock.now()))));
    const before = rowCounts(s.store);
    const balances = s.store.world.balances(s.depositor, true);
    let error: unknown;
    try {
      // The same unexpired key again: the record insert fails after the entries were written.
      await settled(s.store.submit({ type: 'PostAdjustment', actor: operator(), merchantId: s.depositor, livemode: true, amountMinor: 5_000n, direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'dup' },
        {}, record('taken', s.clock.now())));
    } catch (e) { error = e; }
    assert.instance(error, IdempotencyKeyInUse);
    assert.equal(rowCounts(s.store), before);
    assert.equal(s.store.world.balances(s.depositor, true), balances, 'the rebuilt world does not hold the failed command');
    assert.ok(verifyStore(s.store.db).ok);
    s.store.close();
  });
}

test('reopening the store rebuilds the same world', async () => {
  const s = await scene();
  const paid = await s.d.deposit(s.depositor, 100_000n);
  await s.d.payFirstLeg(paid);
  await s.d.deposit(s.depositor, 70_000n);
  const live = s.store.world;
  s.store.close();
  const reopened = openStore(s.dir, { clock: new ManualClock(startMs), ids: new UlidIds() });
  const w = reopened.world;
  assert.is(w.lastSeq, live.lastSeq);
  assert.equal([...w.deposits.keys()], [...live.deposits.keys()]);
  for (const [id, d] of live.deposits) assert.is(encode(w.deposits.get(id)), encode(d));
  for (const [id, x] of live.withdrawals) assert.is(encode(w.withdrawals.get(id)), encode(x));
  assert.equal(w.accounts, live.accounts);
  assert.equal(w.allTimers().sort((a, b) => (a.id < b.id ? -1 : 1)), live.allTimers().sort((a, b) => (a.id < b.id ? -1 : 1)));
  assert.equal(w.nextTimerDueAt(), live.nextTimerDueAt());
  reopened.close();
});

test('UPDATE and DELETE on the journal and the postings are refused', async () => {
  const s = await scene();
  for (const sql of ['UPDATE journal SET data = \'{}\' WHERE seq = 1', 'DELETE FROM journal WHERE seq = 1', 'UPDATE postings SET amount = 0', 'DELETE FROM postings']) {
    assert.throws(() => s.store.db.exec(sql), /append-only/, sql);
  }
  assert.ok(verifyStore(s.store.db).ok);
  s.store.close();
});

test('a row changed behind the service\'s back is caught by verify (CLI exit 1) and refused at startup', async () => {
  const s = await scene();
  s.store.close();
  const cli = (dir: string) => spawnSync(satang, ['verify', '--data-dir', dir], { encoding: 'utf8' });
  const clean = cli(s.dir);
  assert.is(clean.status, 0, clean.stderr);
  assert.is(JSON.parse(clean.stdout).ok, true);

  const db = openDatabase(s.dir);
  db.exec('DROP TRIGGER journal_refuses_update');
  const [seq, data] = db.prepare("SELECT seq, data FROM journal WHERE type = 'MerchantRegistered' ORDER BY seq LIMIT 1").raw(true).get() as [number, string];
  assert.ok(data.includes('"Shop"'));
  db.prepare('UPDATE journal SET data = ? WHERE seq = ?').run(data.replace('"Shop"', '"Shoq"'), seq);
  const report = verifyStore(db);
  db.close();
  assert.is(report.ok, false);
  assert.is(report.chain_ok, false);
  assert.is(report.first_bad_seq, seq);

  const tampered = cli(s.dir);
  assert.is(tampered.status, 1);
  assert.is(JSON.parse(tampered.stdout).first_bad_seq, seq);
  assert.throws(() => openStore(s.dir, { clock: new ManualClock(startMs), ids: new UlidIds() }),
    (e: unknown) => e instanceof ChainBroken && e.seq === seq && e.message.includes(`seq ${seq}`));
  assert.is(cli(fresh('empty')).status, 2, 'no journal.db');
});

test('a snapshot row that is no snapshot (not JSON) is named by satang verify as one that cannot be compared (exit 1), the rest still checked', async () => {
  const s = await scene();
  s.store.close();
  const db = openDatabase(s.dir);
  assert.is(db.prepare('UPDATE snapshots SET data = ? WHERE stream = ?').run('not a snapshot', s.payer).changes, 1, 'the merchant has a snapshot');
  db.close();
  const r = spawnSync(satang, ['verify', '--data-dir', s.dir], { encoding: 'utf8' });
  assert.is(r.status, 1, r.stdout + r.stderr);
  const report = JSON.parse(r.stdout) as { ok: boolean; mismatches: string[]; snapshots_checked: number; replay_ok: boolean };
  assert.is(report.ok, false);
  assert.is(report.replay_ok, true);
  assert.is(report.mismatches.length, 1, report.mismatches.join('\n'));
  assert.match(report.mismatches[0]!, new RegExp(`^snapshot ${s.payer}: cannot be compared with the replayed state: \\S`));
  assert.ok(report.snapshots_checked > 1, 'the other snapshots are checked too');
});

test('verify catches derived rows that disagree with the journal: a snapshot, a posting, an outbox row, a counter', async () => {
  const s = await scene();
  const db = s.store.db;
  const check = () => verifyStore(db);
  assert.ok(check().ok);
  const data = db.prepare('SELECT data FROM snapshots WHERE stream = ?').pluck(true).get(s.withdrawal) as string;
  db.prepare('UPDATE snapshots SET data = ? WHERE stream = ?').run(data.replace('"status":"open"', '"status":"canceled"'), s.withdrawal);
  assert.match(check().mismatches.join('\n'), `snapshot ${s.withdrawal}: data differs`);
  db.prepare('UPDATE snapshots SET data = ? WHERE stream = ?').run(data, s.withdrawal);

  db.prepare('INSERT INTO postings (journal_seq, balance_transaction_id, account, amount) VALUES (1, ?, ?, ?)').run('btxn_forged', `${s.depositor}:live:available`, 1_000n);
  const forged = check();
  assert.is(forged.ok, false);
  assert.is(forged.postings_sum, '1000');
  assert.match(forged.mismatches.join('\n'), `account ${s.depositor}:live:available: postings sum 1000, replayed balance 0`);

  const c = openTestStore(fresh('clean'));
  c.store.db.prepare("INSERT INTO outbox (id, merchant_id, livemode, sequence, type, stream, version, created_at, body, journal_seq) VALUES ('evt_x', 'mch_x', 1, 7, 't', 's', 0, 0, '{}', 99)").run();
  const dangling = verifyStore(c.store.db);
  assert.match(dangling.mismatches.join('\n'), 'outbox evt_x: journal_seq 99 does not exist');
  assert.match(dangling.mismatches.join('\n'), 'outbox sequence of mch_x (livemode 1): counter null, highest given 7');
  c.store.close();
  s.store.close();
});

// Recovery speed is measured by `npm run bench:journal`, not here; this proves a large
// journal replays into the very world that wrote it.
test('a snapshot an older build wrote verifies when it decodes to the replayed state (a review without extended, its keys in their own order); another amount, or extended true, does not', async () => {
  const s = await scene();
  const db = s.store.db;
  const depositId = await s.d.deposit(s.depositor, 20_000n);
  await s.d.ok({ type: 'ReceiveSlip', actor: system, depositId, receiptId: 'rcpt_no_image', hasImage: false, transRef: 'TRX-OLD' });
  await s.d.ok({ type: 'RecordSlipVerification', actor: system, depositId, receiptId: 'rcpt_no_image', outcome: { kind: 'no_image' } });
  assert.is(s.store.world.deposits.get(depositId)!.status, 'under_review');
  const data = db.prepare<[string], string>('SELECT data FROM snapshots WHERE stream = ?').pluck(true).get(depositId)!;
  assert.match(data, '"extended":false');
  const store = (snapshot: object) => db.prepare('UPDATE snapshots SET data = ? WHERE stream = ?').run(JSON.stringify(snapshot), depositId);
  // As the build before 67f5d53 wrote it: the review has no `extended` (this build reads its absence as false).
  const written = JSON.parse(data);
  const { extended, ...olderReview } = written.review;
  assert.is(extended, false);
  const older = Object.fromEntries(Object.entries({ ...written, review: olderReview }).reverse()); // and another key order
  store(older);
  const report = verifyStore(db);
  assert.ok(report.ok, report.mismatches.join('\n'));

  store({ ...older, amountMinor: { $bigint: '20001' } });
  assert.equal(verifyStore(db).mismatches, [`snapshot ${depositId}: data differs from the replayed state`], 'an amount the journal never gave');
  store({ ...older, review: { ...olderReview, extended: true } });
  assert.equal(verifyStore(db).mismatches, [`snapshot ${depositId}: data differs from the replayed state`], 'a flag the journal never set');
  store({ ...older, reversal: null });
  assert.is(verifyStore(db).ok, false, 'a key the replayed state lacks');
  db.prepare('UPDATE snapshots SET data = ? WHERE stream = ?').run(data, depositId);
  assert.ok(verifyStore(db).ok);
  s.store.close();
});

test('recovery of a journal of thousands of commands rebuilds the world that wrote it', async () => {
  const dir = fresh('recovery');
  const { store, clock } = openTestStore(dir);
  const d = new Driver(store, clock);
  const merchant = await d.merchant(await d.whiteLabel());
  for (let round = 0; round < 80; round++) {
    const batch = [];
    for (let i = 0; i < 100; i++) batch.push(settled(store.submit(d.depositCommand(merchant, 100_000n))));
    await Promise.all(batch);
  }
  const live = store.world;
  const expected = { deposits: live.deposits.size, versions: encode([...live.streamVersions()]), accounts: encode([...live.accounts]), timers: live.timerCount };
  store.close();
  const db = openDatabase(dir, { mustExist: true });
  const r = recoverWorld(db);
  db.close();
  assert.ok(r.entries >= 16_000, `${r.entries} entries`);
  assert.equal({ deposits: r.world.deposits.size, versions: encode([...r.world.streamVersions()]), accounts: encode([...r.world.accounts]), timers: r.world.timerCount }, expected);
});

test.run();

test('a commit the disk cannot take is the store\'s commitFailure (SQLite\'s code) until one is written; a refusal is not', async () => {
  const { store, clock, d, depositor } = await scene();
  const now = clock.now();
  await settled(store.submit({ type: 'RegisterWhiteLabel', actor: operator(), name: 'keyed' }, {}, record('taken', now)));
  const refused = await Promise.allSettled([settled(store.submit({ type: 'RegisterWhiteLabel', actor: operator(), name: 'again' }, {}, record('taken', now)))]);
  assert.instance((refused[0] as PromiseRejectedResult).reason, IdempotencyKeyInUse);
  assert.is(store.commitFailure, null, 'a key in use is a refusal, not a failing disk');
  // The file may grow no further: the next commits fail as on a full disk.
  const pages = store.db.pragma('page_count', { simple: true }) as number;
  store.db.pragma(`max_page_count = ${pages}`);
  let failure: unknown = null;
  for (let i = 0; i < 200 && failure === null; i++) {
    const outcome = await Promise.allSettled([settled(store.submit(d.depositCommand(depositor, 2_000n + BigInt(i))))]);
    if (outcome[0]!.status === 'rejected') failure = outcome[0].reason;
  }
  assert.is((failure as { code?: string } | null)?.code, 'SQLITE_FULL');
  assert.is(store.commitFailure?.code, 'SQLITE_FULL');
  assert.ok(Math.abs(store.commitFailure!.atMs - Date.now()) < 5_000, 'on the wall clock');
  store.db.pragma('max_page_count = 1073741823');
  const retry = await settled(store.submit(d.depositCommand(depositor, 3_000n)));
  assert.ok(retry.ok, 'room again: it commits');
  assert.is(store.commitFailure, null, 'a written commit clears it');
  assert.ok(verifyStore(store.db).ok);
  store.close();
});
