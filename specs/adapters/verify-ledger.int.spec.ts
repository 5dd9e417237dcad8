// `satang verify` and startup recovery against a journal forged past the core: entries
// written straight through the journal adapter (CommitWriter), with a valid hash chain,
// postings that sum to zero, snapshots and a postings table that all agree, but that drive
// a merchant bucket below zero or past 2^53 − 1. Only the ledger's range invariant tells
// such a journal from a good one; verify must report it (CLI exit 1) and recovery refuse it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Commit, JournalEntry } from '../../core/journal.ts';
import { InvariantViolation } from '../../core/assert.ts';
import { buildTransaction, type Bucket } from '../../core/ledger/ledger.ts';
import { safeIntegerMax } from '../../core/money.ts';
import { World } from '../../core/world.ts';
import { UlidIds } from '../../adapters/ids.ts';
import { ManualClock } from '../../adapters/clock.ts';
import { openDatabase } from '../../adapters/sqlite/schema.ts';
import { openStore } from '../../adapters/sqlite/store.ts';
import { verifyStore } from '../../adapters/sqlite/verify.ts';
import { CommitWriter, pendingCommit } from '../../adapters/sqlite/writer.ts';
import { Driver, openTestStore, removeDir, startMs, tempDir } from './support.ts';

const satang = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
const dirs: string[] = [];
test.after(() => { for (const d of dirs) removeDir(d); });

/** A journal with a funded merchant and one open withdrawal of 100,000 (locks 101,070). */
async function journalWithWithdrawal(): Promise<{ dir: string; merchantId: string; whiteLabelId: string }> {
  const dir = tempDir('verify-ledger');
  dirs.push(dir);
  const { store, clock } = openTestStore(dir, { groupCommit: false });
  const d = new Driver(store, clock);
  const whiteLabelId = await d.whiteLabel();
  const merchantId = await d.merchant(whiteLabelId, 1_000_000n);
  await d.withdrawal(merchantId, 100_000n);
  assert.equal(store.world.balances(merchantId, true), { availableMinor: 898_930n, pendingClearingMinor: 0n, reservedMinor: 101_070n });
  assert.ok(verifyStore(store.db).ok, 'the honest journal verifies');
  store.close();
  return { dir, merchantId, whiteLabelId };
}

/**
 * Appends one adjustment balance transaction through the journal adapter, as a writer that
 * skipped the core's checks would: chained on the tail, with its postings and snapshot.
 */
function forgeAdjustment(dir: string, m: { merchantId: string; whiteLabelId: string }, id: string, direction: 'credit' | 'debit', bucket: Bucket, amountMinor: bigint): void {
  const txn = buildTransaction({
    id, type: 'adjustment', merchantId: m.merchantId, whiteLabelId: m.whiteLabelId, livemode: true, amountMinor,
    source: { type: 'adjustment', id: 'emp_forger' }, createdAt: startMs, reasonCode: 'forged',
    from: direction === 'debit' ? bucket : null, to: direction === 'credit' ? bucket : null, counter: [{ account: 'adjustments', amountMinor }],
  });
  const entry: JournalEntry = {
    stream: id, streamKind: 'balance_transaction', version: 0, type: 'BalanceTransactionPosted', livemode: true, merchantId: m.merchantId,
    recordedAt: startMs, event: { type: 'BalanceTransactionPosted', at: startMs, transaction: txn },
  };
  const commit: Commit = { entries: [entry], timers: { set: [], clear: [] } };
  const db = openDatabase(dir);
  try {
    const writer = new CommitWriter(db, new UlidIds());
    // The snapshot of a balance transaction is the transaction itself; an empty world serves.
    db.transaction(() => writer.write(pendingCommit(new World(), commit, {}, []), writer.tail()))();
  } finally {
    db.close();
  }
}

function verifyDir(dir: string) {
  const db = openDatabase(dir);
  try { return verifyStore(db); } finally { db.close(); }
}

test('verify reports a forged journal that drives reserved below zero; the CLI exits 1; recovery refuses it', async () => {
  const m = await journalWithWithdrawal();
  forgeAdjustment(m.dir, m, 'btxn_forged_reserved', 'debit', 'reserved', 150_000n);
  const report = verifyDir(m.dir);
  assert.is(report.ok, false);
  assert.is(report.chain_ok, true, 'the forged row is chained correctly');
  assert.is(report.postings_sum, '0', 'its postings balance');
  assert.is(report.buckets_out_of_range, 1);
  const line = report.mismatches.find((t) => t.startsWith('bucket '));
  assert.ok(line, JSON.stringify(report.mismatches));
  assert.match(line!, `${m.merchantId}:live:reserved: -48930 after balance transaction btxn_forged_reserved`);

  const cli = spawnSync(satang, ['verify', '--data-dir', m.dir], { encoding: 'utf8' });
  assert.is(cli.status, 1, cli.stderr);
  assert.is(JSON.parse(cli.stdout).buckets_out_of_range, 1);

  assert.throws(() => openStore(m.dir, { clock: new ManualClock(startMs), ids: new UlidIds() }),
    (e: unknown) => e instanceof InvariantViolation && /reserved would hold -48930 after balance transaction btxn_forged_reserved/.test(e.message));
});

test('verify reports a forged credit that carries available past 2^53 − 1', async () => {
  const m = await journalWithWithdrawal();
  forgeAdjustment(m.dir, m, 'btxn_forged_huge', 'credit', 'available', BigInt(safeIntegerMax));
  const report = verifyDir(m.dir);
  assert.is(report.ok, false);
  assert.is(report.buckets_out_of_range, 1);
  assert.ok(report.mismatches.some((t) => t.startsWith(`bucket ${m.merchantId}:live:available: ${BigInt(safeIntegerMax) + 898_930n} after balance transaction btxn_forged_huge`)), JSON.stringify(report.mismatches));
});

test('a forged debit that stays within the bucket is no range break (verify sees only what is wrong)', async () => {
  const m = await journalWithWithdrawal();
  forgeAdjustment(m.dir, m, 'btxn_forged_small', 'debit', 'available', 898_930n);
  const report = verifyDir(m.dir);
  assert.is(report.buckets_out_of_range, 0);
  assert.ok(report.ok, JSON.stringify(report.mismatches));
});

test.run();
