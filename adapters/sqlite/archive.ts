// The write side's archive of closed orders (core/world.ts Archive): the snapshots table,
// which every commit already writes. A closed deposit or withdrawal leaves the world's
// memory once its snapshot is written; a command or a GET that names it reads it back
// here, and a new order's merchant_reference is checked against the archived ones through
// partial expression indexes on the snapshots (built from the same rows, so nothing new
// is written per command and an older journal gets them when it opens).
// Most lookups are for orders that were never archived — a new order's id and reference
// are looked up while it is created — so Bloom filters of the archived ids and references
// answer those without touching the database; a "maybe" reads the row. The filters grow
// (rebuilt from the snapshots, twice as large) as the archive does, keeping false "maybe"s
// near 0.3 %.

import { decode } from '../../core/journal.ts';
import type { Deposit } from '../../core/deposit/state.ts';
import type { Withdrawal } from '../../core/withdrawal/state.ts';
import type { Archive } from '../../core/world.ts';
import { Bloom } from '../bloom.ts';
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

/** Orders the filters are first sized for; they double when the archive outgrows them. */
const initialCapacityLog2 = 16;
/** Bits per order: 16, with three bits a key, keeps false "maybe"s near 0.3 %. */
const bitsPerOrderLog2 = 4;

export class SnapshotArchive implements Archive {
  private readonly depositData;
  private readonly withdrawalData;
  private readonly depositReference;
  private readonly withdrawalReference;
  private readonly allOrders;
  private count = 0;
  private ids: Bloom;
  private references: Bloom;

  /** `capacityLog2`: the filters' first size, in orders (specs start small to see them grow). */
  constructor(db: Db, private capacityLog2 = initialCapacityLog2) {
    this.ids = new Bloom(capacityLog2 + bitsPerOrderLog2);
    this.references = new Bloom(capacityLog2 + bitsPerOrderLog2);
    db.exec(archiveIndexes);
    this.allOrders = db.prepare<[], [string, string, string, number, string]>(`SELECT kind, stream, json_extract(data, '$.merchantId'),
      json_extract(data, '$.livemode'), json_extract(data, '$.merchantReference') FROM snapshots WHERE kind IN ('deposit', 'withdrawal')`).raw(true);
    this.depositData = db.prepare<[string], string>("SELECT data FROM snapshots WHERE stream = ? AND kind = 'deposit'").pluck(true);
    this.withdrawalData = db.prepare<[string], string>("SELECT data FROM snapshots WHERE stream = ? AND kind = 'withdrawal'").pluck(true);
    this.depositReference = db.prepare<[string, string, number], number>(referenceQuery('deposit')).pluck(true);
    this.withdrawalReference = db.prepare<[string, string, number], number>(referenceQuery('withdrawal')).pluck(true);
  }

  archived(kind: 'deposit' | 'withdrawal', order: { id: string; merchantId: string; livemode: boolean; merchantReference: string }): void {
    if (++this.count > 2 ** this.capacityLog2) this.grow();
    this.ids.add(order.id);
    this.references.add(referenceKey(kind, order.merchantId, order.livemode, order.merchantReference));
  }

  deposit(id: string): Deposit | undefined {
    if (!this.ids.mayHave(id)) return undefined;
    const data = this.depositData.get(id);
    return data === undefined ? undefined : decode<Deposit>(data);
  }

  withdrawal(id: string): Withdrawal | undefined {
    if (!this.ids.mayHave(id)) return undefined;
    const data = this.withdrawalData.get(id);
    return data === undefined ? undefined : decode<Withdrawal>(data);
  }

  depositReferenceUsed(merchantId: string, livemode: boolean, reference: string): boolean {
    if (!this.references.mayHave(referenceKey('deposit', merchantId, livemode, reference))) return false;
    return this.depositReference.get(merchantId, reference, livemode ? 1 : 0) !== undefined;
  }

  withdrawalReferenceUsed(merchantId: string, livemode: boolean, reference: string): boolean {
    if (!this.references.mayHave(referenceKey('withdrawal', merchantId, livemode, reference))) return false;
    return this.withdrawalReference.get(merchantId, reference, livemode ? 1 : 0) !== undefined;
  }

  /** Twice the capacity, refilled from every order's snapshot (open ones too: a "maybe" more is harmless). */
  private grow(): void {
    this.capacityLog2++;
    this.ids = new Bloom(this.capacityLog2 + bitsPerOrderLog2);
    this.references = new Bloom(this.capacityLog2 + bitsPerOrderLog2);
    for (const [kind, id, merchantId, livemode, reference] of this.allOrders.iterate()) {
      this.ids.add(id);
      this.references.add(referenceKey(kind as 'deposit' | 'withdrawal', merchantId, livemode === 1, reference));
    }
  }
}

const referenceKey = (kind: string, merchantId: string, livemode: boolean, reference: string) => `${kind}\n${merchantId}\n${livemode ? 1 : 0}\n${reference}`;
