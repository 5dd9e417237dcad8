// The fee ledger projection: what the fees and VAT report reads (core/finance/fees.ts),
// built from BalanceTransactionPosted entries only:
//   fin_fee_days  per mode, Bangkok day, merchant and direction (charged or refunded): the
//                 count of fee transactions and what they moved in fee revenue (net of
//                 VAT) and in VAT payable.
// A transaction counts when it posts to fee_revenue or vat_payable (a fee charged credits
// them, its refund debits them); what it moved is read from its postings, so the report
// and the trial balance sum the same postings. A withdrawal's unused fee going back to
// the merchant at close touches neither account: it was never revenue. A transaction
// belongs to the day of its created_at (the booking time). Rebuildable from the journal;
// a separate projection from finance_ledger, so that a deployment that had the other
// before this one fills it from the journal's first entry on its own.

import type { BalanceTransaction } from '../core/ledger/ledger.ts';
import { bangkokDayOf } from '../core/finance/calendar.ts';
import type { ProjectionsDb } from './db.ts';
import { postedTransaction, type RelayedEntry } from './entry.ts';
import type { Projection } from './projection.ts';

const schema = `
CREATE TABLE IF NOT EXISTS fin_fee_days (
  livemode    INTEGER NOT NULL,
  day         TEXT    NOT NULL,  -- YYYY-MM-DD, Asia/Bangkok
  merchant_id TEXT    NOT NULL,
  direction   TEXT    NOT NULL,  -- 'charged' | 'refunded'
  count       INTEGER NOT NULL,
  fee_minor   INTEGER NOT NULL,  -- fee revenue moved, net of VAT (≥ 0)
  vat_minor   INTEGER NOT NULL,  -- VAT payable moved (≥ 0)
  PRIMARY KEY (livemode, day, merchant_id, direction)
) WITHOUT ROWID;
`;

/** What a transaction moved in fee revenue and VAT payable (credits +), or null when it touched neither. */
function feeMoved(t: BalanceTransaction): { readonly fee: bigint; readonly vat: bigint } | null {
  let fee = 0n, vat = 0n, touched = false;
  for (const p of t.postings) {
    if (p.account.kind !== 'system') continue;
    if (p.account.account === 'fee_revenue') { fee += p.amountMinor; touched = true; }
    else if (p.account.account === 'vat_payable') { vat += p.amountMinor; touched = true; }
  }
  return touched ? { fee, vat } : null;
}

export const feeLedger: Projection = {
  name: 'fee_ledger',
  tables: ['fin_fee_days'],
  schema,
  prepare(db: ProjectionsDb) {
    const upsert = db.prepare(`INSERT INTO fin_fee_days (livemode, day, merchant_id, direction, count, fee_minor, vat_minor) VALUES (?, ?, ?, ?, 1, ?, ?)
      ON CONFLICT (livemode, day, merchant_id, direction) DO UPDATE SET count = count + 1, fee_minor = fee_minor + excluded.fee_minor, vat_minor = vat_minor + excluded.vat_minor`);
    return {
      apply(entry: RelayedEntry) {
        const t = postedTransaction(entry);
        if (!t) return;
        const moved = feeMoved(t);
        if (!moved) return;
        // A fee is charged (credits) or refunded (debits) whole: both shares go the same way.
        const refunded = moved.fee + moved.vat < 0n;
        const sign = refunded ? -1n : 1n;
        upsert.run(t.livemode ? 1 : 0, bangkokDayOf(t.createdAt), t.merchantId, refunded ? 'refunded' : 'charged', sign * moved.fee, sign * moved.vat);
      },
    };
  },
};
