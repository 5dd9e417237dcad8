// The balance history projection (contract: "Balance history", merchant_balance_history_v1):
// one row per balance transaction of a merchant in a mode, numbered by a per-(merchant,
// mode) `sequence` given in journal order, with the bucket deltas; and per merchant and
// mode the running totals of the three buckets and the last sequence (the checkpoint).
// Read by the merchant's GET /v1/pay/balance/transactions (oldest first from a sequence) and
// the back office's GET /v1/bo/merchants/:id/balance-transactions (newest first, each row
// naming the journal entry that posted it).
//
// Sandbox (livemode false) differs as the contract says: sequences restart with every
// run (POST /v1/test/sandbox/reset journals SandboxRunReset with the new run_generation;
// the totals carry over as the run's opening balance), and a transaction that moves no
// money once pending clearing is folded into available (a clearing release) makes no row.
//
// After a restore, SequencesAdvancedAfterRestore moves the merchant's live account's
// last sequence on by its jump (a gap that never held a row), so no sequence the lost tail
// gave out is given again: a cursor from the lost tail (at or below the new checkpoint)
// pages on from there and gets the rows made since. The sandbox account starts the run the
// entry names (past any a reset in the lost tail took), as at a reset: a cursor of an
// earlier run is 409 sandbox_run_changed. (An entry journaled before it named one moved the
// sandbox's last sequence on instead.)
//
// Invariants kept: for every account, opening + the sum of its run's rows = its totals;
// sequences of a run are 1, 2, 3, … with no gap but a restore's jump; totals are exact
// (INTEGER, bigint).

import { addBalances, bucketDeltas, type Balances } from '../core/ledger/ledger.ts';
import type { ProjectionsDb } from './db.ts';
import { eventOf, type RelayedEntry } from './entry.ts';
import type { Projection } from './projection.ts';

const schema = `
CREATE TABLE IF NOT EXISTS bh_accounts (
  merchant_id                    TEXT    NOT NULL,
  livemode                       INTEGER NOT NULL,
  run_generation                 INTEGER NOT NULL,
  last_sequence                  INTEGER NOT NULL,
  available_minor                INTEGER NOT NULL,
  pending_clearing_minor         INTEGER NOT NULL,
  reserved_minor                 INTEGER NOT NULL,
  opening_available_minor        INTEGER NOT NULL,
  opening_pending_clearing_minor INTEGER NOT NULL,
  opening_reserved_minor         INTEGER NOT NULL,
  PRIMARY KEY (merchant_id, livemode)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bh_rows (
  merchant_id            TEXT    NOT NULL,
  livemode               INTEGER NOT NULL,
  run_generation         INTEGER NOT NULL,
  sequence               INTEGER NOT NULL,
  id                     TEXT    NOT NULL,  -- the btxn_ id (the sandbox row id is derived when presented)
  created_at             INTEGER NOT NULL,  -- ms since the epoch (the booking time)
  available_minor        INTEGER NOT NULL,
  pending_clearing_minor INTEGER NOT NULL,
  reserved_minor         INTEGER NOT NULL,
  journal_seq            INTEGER NOT NULL,
  PRIMARY KEY (merchant_id, livemode, run_generation, sequence)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS bh_rows_sandbox_by_time ON bh_rows (merchant_id, livemode, run_generation, created_at) WHERE livemode = 0;
`;

export interface HistoryAccount {
  readonly runGeneration: number;
  readonly lastSequence: bigint;
  readonly totals: Balances;
  readonly opening: Balances;
}

export const firstRunGeneration = 1;

function emptyAccount(): HistoryAccount {
  return { runGeneration: firstRunGeneration, lastSequence: 0n, totals: zero(), opening: zero() };
}

function zero(): Balances {
  return { availableMinor: 0n, pendingClearingMinor: 0n, reservedMinor: 0n };
}

type AccountRow = [bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint];

function accountOf(row: AccountRow | undefined): HistoryAccount {
  if (!row) return emptyAccount();
  return {
    runGeneration: Number(row[0]), lastSequence: row[1],
    totals: { availableMinor: row[2], pendingClearingMinor: row[3], reservedMinor: row[4] },
    opening: { availableMinor: row[5], pendingClearingMinor: row[6], reservedMinor: row[7] },
  };
}

const accountColumns = `run_generation, last_sequence, available_minor, pending_clearing_minor, reserved_minor,
  opening_available_minor, opening_pending_clearing_minor, opening_reserved_minor`;

/** The deltas a sandbox row shows: pending clearing folded into available (contract: always '0'). */
export function sandboxDeltas(d: Balances): Balances {
  return { availableMinor: d.availableMinor + d.pendingClearingMinor, pendingClearingMinor: 0n, reservedMinor: d.reservedMinor };
}

function isZero(b: Balances): boolean {
  return b.availableMinor === 0n && b.pendingClearingMinor === 0n && b.reservedMinor === 0n;
}

export const balanceHistory: Projection = {
  name: 'balance_history',
  tables: ['bh_accounts', 'bh_rows'],
  schema,
  prepare(db: ProjectionsDb) {
    const select = db.prepare<[string, number], AccountRow>(`SELECT ${accountColumns} FROM bh_accounts WHERE merchant_id = ? AND livemode = ?`).raw(true).safeIntegers(true);
    const upsert = db.prepare(`INSERT INTO bh_accounts (merchant_id, livemode, ${accountColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (merchant_id, livemode) DO UPDATE SET run_generation = excluded.run_generation, last_sequence = excluded.last_sequence,
        available_minor = excluded.available_minor, pending_clearing_minor = excluded.pending_clearing_minor, reserved_minor = excluded.reserved_minor,
        opening_available_minor = excluded.opening_available_minor, opening_pending_clearing_minor = excluded.opening_pending_clearing_minor,
        opening_reserved_minor = excluded.opening_reserved_minor`);
    const insertRow = db.prepare(`INSERT INTO bh_rows (merchant_id, livemode, run_generation, sequence, id, created_at,
      available_minor, pending_clearing_minor, reserved_minor, journal_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    // The accounts a transaction touched, written once when it ends (a rebuild applies
    // thousands of entries per transaction to a handful of accounts).
    const touched = new Map<string, { merchantId: string; mode: number; account: HistoryAccount }>();
    const account = (merchantId: string, mode: number) => {
      const key = `${mode}:${merchantId}`;
      let held = touched.get(key);
      if (!held) touched.set(key, (held = { merchantId, mode, account: accountOf(select.get(merchantId, mode)) }));
      return held;
    };

    return {
      reset() { touched.clear(); },
      flush() {
        for (const { merchantId, mode, account: a } of touched.values()) {
          upsert.run(merchantId, mode, a.runGeneration, a.lastSequence, a.totals.availableMinor, a.totals.pendingClearingMinor, a.totals.reservedMinor,
            a.opening.availableMinor, a.opening.pendingClearingMinor, a.opening.reservedMinor);
        }
        touched.clear();
      },
      apply(entry: RelayedEntry) {
        if (entry.type === 'BalanceTransactionPosted') {
          const e = eventOf(entry);
          if (e.type !== 'BalanceTransactionPosted') return;
          const t = e.transaction;
          const held = account(t.merchantId, t.livemode ? 1 : 0);
          const before = held.account;
          const d = bucketDeltas(t);
          const makesRow = t.livemode ? !isZero(d) : !isZero(sandboxDeltas(d));
          const lastSequence = makesRow ? before.lastSequence + 1n : before.lastSequence;
          if (makesRow) {
            insertRow.run(t.merchantId, held.mode, before.runGeneration, lastSequence, t.id, t.createdAt, d.availableMinor, d.pendingClearingMinor, d.reservedMinor, entry.seq);
          }
          held.account = { ...before, lastSequence, totals: addBalances(before.totals, d) };
        } else if (entry.type === 'SandboxRunReset') {
          const e = eventOf(entry);
          if (e.type !== 'SandboxRunReset') return;
          const held = account(e.merchantId, 0);
          held.account = { runGeneration: e.runGeneration, lastSequence: 0n, totals: held.account.totals, opening: held.account.totals };
        } else if (entry.type === 'SequencesAdvancedAfterRestore') {
          const e = eventOf(entry);
          if (e.type !== 'SequencesAdvancedAfterRestore') return;
          for (const mode of [1, 0]) {
            const held = account(e.merchantId, mode);
            held.account = mode === 0 && e.sandboxRunGeneration !== undefined
              ? { runGeneration: e.sandboxRunGeneration, lastSequence: 0n, totals: held.account.totals, opening: held.account.totals }
              : { ...held.account, lastSequence: held.account.lastSequence + BigInt(e.by) };
          }
        }
      },
    };
  },
};

export interface HistoryRow {
  readonly sequence: bigint;
  readonly id: string;
  readonly createdAt: number;
  readonly deltas: Balances;
}

export interface HistorySnapshot {
  readonly account: HistoryAccount;
  /** Rows after `since` up to the checkpoint, at most `limit`. */
  readonly rows: readonly HistoryRow[];
  readonly hasMore: boolean;
  /** Sandbox: the sequence below which rows fell out of retention (0 when none did). */
  readonly retentionFloor: bigint;
  /** The projection's position when the snapshot was read. */
  readonly position: number;
}

/** A row as the back office pages it: with the journal entry that posted it. */
export interface PostedRow extends HistoryRow {
  readonly journalSeq: number;
}

export interface NewestFirstPage {
  /** The run the rows belong to (live: always the first). */
  readonly runGeneration: number;
  /** Rows of the run with sequence below `before`, newest first, at most `limit`. */
  readonly rows: readonly PostedRow[];
  readonly hasMore: boolean;
  /** The projection's position when the page was read. */
  readonly position: number;
}

/** Reads of the balance history tables; one snapshot is one read transaction. */
export class BalanceHistoryReads {
  private readonly account;
  private readonly rows;
  private readonly rowsNewestFirst;
  private readonly newestFirstTx;
  private readonly floor;
  private readonly position;
  private readonly snapshotTx;

  constructor(db: ProjectionsDb) {
    this.account = db.prepare<[string, number], AccountRow>(`SELECT ${accountColumns} FROM bh_accounts WHERE merchant_id = ? AND livemode = ?`).raw(true).safeIntegers(true);
    this.rows = db.prepare<[string, number, number, bigint, number], [bigint, string, bigint, bigint, bigint, bigint]>(
      `SELECT sequence, id, created_at, available_minor, pending_clearing_minor, reserved_minor FROM bh_rows
       WHERE merchant_id = ? AND livemode = ? AND run_generation = ? AND sequence > ? ORDER BY sequence LIMIT ?`).raw(true).safeIntegers(true);
    // Walks the primary key backwards: (merchant, mode, run) fixed, sequence descending.
    this.rowsNewestFirst = db.prepare<[string, number, number, bigint, number], [bigint, string, bigint, bigint, bigint, bigint, bigint]>(
      `SELECT sequence, id, created_at, available_minor, pending_clearing_minor, reserved_minor, journal_seq FROM bh_rows
       WHERE merchant_id = ? AND livemode = ? AND run_generation = ? AND sequence < ? ORDER BY sequence DESC LIMIT ?`).raw(true).safeIntegers(true);
    this.floor = db.prepare<[string, number, number], bigint | null>(
      'SELECT max(sequence) FROM bh_rows WHERE merchant_id = ? AND livemode = 0 AND run_generation = ? AND created_at < ?').pluck(true).safeIntegers(true);
    this.position = db.prepare<[], number>("SELECT last_seq FROM projection_positions WHERE name = 'balance_history'").pluck(true);
    this.snapshotTx = db.transaction((merchantId: string, livemode: boolean, since: bigint, limit: number, retainedFromMs: number | null): HistorySnapshot => {
      const mode = livemode ? 1 : 0;
      const account = accountOf(this.account.get(merchantId, mode));
      const retentionFloor = retainedFromMs === null ? 0n : (this.floor.get(merchantId, account.runGeneration, retainedFromMs) ?? 0n);
      const from = since > retentionFloor ? since : retentionFloor;
      const raw = this.rows.all(merchantId, mode, account.runGeneration, from, limit + 1);
      const rows = raw.slice(0, limit).map(([sequence, id, createdAt, a, p, r]) => ({
        sequence, id, createdAt: Number(createdAt), deltas: { availableMinor: a, pendingClearingMinor: p, reservedMinor: r },
      }));
      return { account, rows, hasMore: raw.length > limit, retentionFloor, position: this.position.get() ?? 0 };
    });
    this.newestFirstTx = db.transaction((merchantId: string, livemode: boolean, before: bigint, limit: number): NewestFirstPage => {
      const mode = livemode ? 1 : 0;
      const run = accountOf(this.account.get(merchantId, mode)).runGeneration;
      const raw = this.rowsNewestFirst.all(merchantId, mode, run, before, limit + 1);
      const rows = raw.slice(0, limit).map(([sequence, id, createdAt, a, p, r, journalSeq]) => ({
        sequence, id, createdAt: Number(createdAt), journalSeq: Number(journalSeq), deltas: { availableMinor: a, pendingClearingMinor: p, reservedMinor: r },
      }));
      return { runGeneration: run, rows, hasMore: raw.length > limit, position: this.position.get() ?? 0 };
    });
  }

  /**
   * The rows of the account's current run with sequence below `before`, newest first: the
   * back office's page of balance transactions.
   */
  newestFirst(merchantId: string, livemode: boolean, before: bigint, limit: number): NewestFirstPage {
    return this.newestFirstTx.deferred(merchantId, livemode, before, limit);
  }

  /**
   * The account, and its rows with sequence above `since` (and above the retention floor
   * when `retainedFromMs` is given: rows booked before it are out of retention).
   */
  snapshot(merchantId: string, livemode: boolean, since: bigint, limit: number, retainedFromMs: number | null): HistorySnapshot {
    return this.snapshotTx.deferred(merchantId, livemode, since, limit, retainedFromMs);
  }
}
