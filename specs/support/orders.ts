// Every deposit or withdrawal the write side ever made, as its latest snapshot. The world
// keeps only open orders in memory (closed ones are archived: README "Write path"), so a
// spec that needs all of them, closed ones included, reads them here.

import type { Deposit } from '../../core/deposit/state.ts';
import { decode } from '../../core/journal.ts';
import type { Withdrawal } from '../../core/withdrawal/state.ts';
import type { Db } from '../../adapters/sqlite/schema.ts';

export function allDeposits(db: Db): Deposit[] {
  return snapshotsOf<Deposit>(db, 'deposit');
}

export function allWithdrawals(db: Db): Withdrawal[] {
  return snapshotsOf<Withdrawal>(db, 'withdrawal');
}

function snapshotsOf<T>(db: Db, kind: 'deposit' | 'withdrawal'): T[] {
  return db.prepare<[string], string>('SELECT data FROM snapshots WHERE kind = ? ORDER BY stream').pluck(true).all(kind).map((data) => decode<T>(data));
}
