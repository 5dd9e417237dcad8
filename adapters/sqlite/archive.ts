// The write side's archive of closed orders (core/world.ts Archive): the snapshots table,
// which every commit already writes. A closed deposit or withdrawal leaves the world's
// memory once its snapshot is written; a command or a GET that names it reads it back
// here, and a new order's merchant_reference is checked against the archived ones through
// partial expression indexes on the snapshots (built from the same rows, so nothing new
// is written per command and an older journal gets them when it opens).

import { decode } from '../../core/journal.ts';
import type { Deposit } from '../../core/deposit/state.ts';
import type { Withdrawal } from '../../core/withdrawal/state.ts';
import type { Archive } from '../../core/world.ts';
import type { Db } from './schema.ts';

/** The indexes archived reference checks read (CREATE IF NOT EXISTS: cheap when present). */
export const archiveIndexes = `
CREATE INDEX IF NOT EXISTS snapshots_deposit_reference ON snapshots
  (json_extract(data, '$.merchantId'), json_extract(data, '$.merchantReference')) WHERE kind = 'deposit';
CREATE INDEX IF NOT EXISTS snapshots_withdrawal_reference ON snapshots
  (json_extract(data, '$.merchantId'), json_extract(data, '$.merchantReference')) WHERE kind = 'withdrawal';
`;

const referenceQuery = (kind: 'deposit' | 'withdrawal') => `SELECT 1 FROM snapshots
  WHERE kind = '${kind}' AND json_extract(data, '$.merchantId') = ? AND json_extract(data, '$.merchantReference') = ?
    AND json_extract(data, '$.livemode') = ? LIMIT 1`;

export class SnapshotArchive implements Archive {
  private readonly depositData;
  private readonly withdrawalData;
  private readonly depositReference;
  private readonly withdrawalReference;

  constructor(db: Db) {
    db.exec(archiveIndexes);
    this.depositData = db.prepare<[string], string>("SELECT data FROM snapshots WHERE stream = ? AND kind = 'deposit'").pluck(true);
    this.withdrawalData = db.prepare<[string], string>("SELECT data FROM snapshots WHERE stream = ? AND kind = 'withdrawal'").pluck(true);
    this.depositReference = db.prepare<[string, string, number], number>(referenceQuery('deposit')).pluck(true);
    this.withdrawalReference = db.prepare<[string, string, number], number>(referenceQuery('withdrawal')).pluck(true);
  }

  deposit(id: string): Deposit | undefined {
    const data = this.depositData.get(id);
    return data === undefined ? undefined : decode<Deposit>(data);
  }

  withdrawal(id: string): Withdrawal | undefined {
    const data = this.withdrawalData.get(id);
    return data === undefined ? undefined : decode<Withdrawal>(data);
  }

  depositReferenceUsed(merchantId: string, livemode: boolean, reference: string): boolean {
    return this.depositReference.get(merchantId, reference, livemode ? 1 : 0) !== undefined;
  }

  withdrawalReferenceUsed(merchantId: string, livemode: boolean, reference: string): boolean {
    return this.withdrawalReference.get(merchantId, reference, livemode ? 1 : 0) !== undefined;
  }
}
