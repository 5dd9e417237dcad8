// The finance ledger projection (issue 16): what the daily statements and the trial
// balance read, built from BalanceTransactionPosted entries only, so that a report is a
// few indexed reads however many transactions a merchant has — never a journal scan:
//   fin_statement_days  per merchant, mode, Bangkok day, bucket and transaction type: the
//                       count, credits and debits of that bucket's postings;
//   fin_account_days    per ledger account (merchant buckets and system accounts) and
//                       Bangkok day: count, credits, debits;
//   fin_account_hours   the same per UTC hour (hours nest in Bangkok days);
//   fin_transactions    each transaction's postings by booking time, for the part of an
//                       hour before a trial balance's as_of.
// A transaction belongs to the day and hour of its created_at (the booking time).
// Invariants kept: every table sums the same postings, so for each account the days, the
// hours and the transactions agree; each transaction's postings sum to zero (the ledger
// asserted it), so every aggregate does too. Rebuildable from the journal like the rest.

import { accountKey, type BalanceTransaction } from '../core/ledger/ledger.ts';
import { bangkokDayOf, hourOf } from '../core/finance/calendar.ts';
import type { ProjectionsDb } from './db.ts';
import { postedTransaction, type RelayedEntry } from './entry.ts';
import type { Projection } from './projection.ts';

const schema = `
CREATE TABLE IF NOT EXISTS fin_statement_days (
  merchant_id  TEXT    NOT NULL,
  livemode     INTEGER NOT NULL,
  day          TEXT    NOT NULL,  -- YYYY-MM-DD, Asia/Bangkok
  bucket       TEXT    NOT NULL,
  type         TEXT    NOT NULL,  -- balance_transaction.type
  count        INTEGER NOT NULL,
  credit_minor INTEGER NOT NULL,
  debit_minor  INTEGER NOT NULL,
  PRIMARY KEY (merchant_id, livemode, day, bucket, type)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS fin_account_days (
  livemode     INTEGER NOT NULL,
  account      TEXT    NOT NULL,  -- core/ledger accountKey()
  day          TEXT    NOT NULL,
  count        INTEGER NOT NULL,
  credit_minor INTEGER NOT NULL,
  debit_minor  INTEGER NOT NULL,
  PRIMARY KEY (day, livemode, account)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS fin_account_hours (
  livemode     INTEGER NOT NULL,
  account      TEXT    NOT NULL,
  hour         INTEGER NOT NULL,  -- ms since the epoch of the UTC hour's start
  count        INTEGER NOT NULL,
  credit_minor INTEGER NOT NULL,
  debit_minor  INTEGER NOT NULL,
  PRIMARY KEY (hour, livemode, account)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS fin_transactions (
  created_at INTEGER NOT NULL,
  id         TEXT    NOT NULL,
  livemode   INTEGER NOT NULL,
  postings   TEXT    NOT NULL,  -- JSON [[account, amount as a decimal string], …]
  PRIMARY KEY (created_at, id)
) WITHOUT ROWID;
`;

interface Sums { count: number; credit: bigint; debit: bigint }

/** Adds one posting's amount to a running sum (credits are +, debits −). */
function add(map: Map<string, Sums & { key: readonly (string | number)[] }>, id: string, key: readonly (string | number)[], amount: bigint): void {
  let s = map.get(id);
  if (!s) map.set(id, (s = { key, count: 0, credit: 0n, debit: 0n }));
  s.count++;
  if (amount >= 0n) s.credit += amount;
  else s.debit -= amount;
}

export const financeLedger: Projection = {
  name: 'finance_ledger',
  tables: ['fin_statement_days', 'fin_account_days', 'fin_account_hours', 'fin_transactions'],
  schema,
  prepare(db: ProjectionsDb) {
    const sum = 'count = count + excluded.count, credit_minor = credit_minor + excluded.credit_minor, debit_minor = debit_minor + excluded.debit_minor';
    const upsertStatement = db.prepare(`INSERT INTO fin_statement_days (merchant_id, livemode, day, bucket, type, count, credit_minor, debit_minor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (merchant_id, livemode, day, bucket, type) DO UPDATE SET ${sum}`);
    const upsertDay = db.prepare(`INSERT INTO fin_account_days (livemode, account, day, count, credit_minor, debit_minor) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (day, livemode, account) DO UPDATE SET ${sum}`);
    const upsertHour = db.prepare(`INSERT INTO fin_account_hours (livemode, account, hour, count, credit_minor, debit_minor) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (hour, livemode, account) DO UPDATE SET ${sum}`);
    const insertTransaction = db.prepare('INSERT INTO fin_transactions (created_at, id, livemode, postings) VALUES (?, ?, ?, ?)');
    // Sums of one applier transaction, written once when it ends (a rebuild applies
    // thousands of entries per transaction to a handful of keys).
    const statementSums = new Map<string, Sums & { key: readonly (string | number)[] }>();
    const daySums = new Map<string, Sums & { key: readonly (string | number)[] }>();
    const hourSums = new Map<string, Sums & { key: readonly (string | number)[] }>();
    const clear = () => { statementSums.clear(); daySums.clear(); hourSums.clear(); };

    const post = (t: BalanceTransaction) => {
      const mode = t.livemode ? 1 : 0;
      const day = bangkokDayOf(t.createdAt);
      const hour = hourOf(t.createdAt);
      const postings: [string, string][] = [];
      for (const p of t.postings) {
        const account = accountKey(p.account);
        postings.push([account, p.amountMinor.toString()]);
        add(daySums, `${day}|${mode}|${account}`, [mode, account, day], p.amountMinor);
        add(hourSums, `${hour}|${mode}|${account}`, [mode, account, hour], p.amountMinor);
        const a = p.account;
        if (a.kind === 'merchant' && a.merchantId === t.merchantId) {
          add(statementSums, `${t.merchantId}|${mode}|${day}|${a.bucket}|${t.type}`, [t.merchantId, mode, day, a.bucket, t.type], p.amountMinor);
        }
      }
      insertTransaction.run(t.createdAt, t.id, mode, JSON.stringify(postings));
    };

    return {
      reset: clear,
      flush() {
        for (const s of statementSums.values()) upsertStatement.run(...s.key, s.count, s.credit, s.debit);
        for (const s of daySums.values()) upsertDay.run(...s.key, s.count, s.credit, s.debit);
        for (const s of hourSums.values()) upsertHour.run(...s.key, s.count, s.credit, s.debit);
        clear();
      },
      apply(entry: RelayedEntry) {
        const t = postedTransaction(entry);
        if (t) post(t);
      },
    };
  },
};
