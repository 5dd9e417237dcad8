// The statement lines projection: what the statement-lines report reads, built from
// BalanceTransactionPosted entries only:
//   fin_statement_lines  one row per transaction that posts to its merchant's own buckets,
//                        by merchant, mode and booking time, with the journal entry that
//                        posted it and what it moved in each bucket.
// The same postings the finance ledger's statement days sum (finance-ledger.ts), so a
// period's lines add up to its statement's movements bucket by bucket and type by type, in
// sandbox as in live. Not the balance history: that is the merchant's own view, where a
// sandbox run restarts with every reset and pending clearing is folded into available. A
// reset moves no money, so it changes nothing here; past days keep their lines as the
// statement keeps their figures. A projection of its own, so a deployment that had the
// finance ledger before this one fills it from the journal's first entry on its own.

import { bucketDeltas } from '../core/ledger/ledger.ts';
import type { ProjectionsDb } from './db.ts';
import { postedTransaction, type RelayedEntry } from './entry.ts';
import type { Projection } from './projection.ts';

const schema = `
CREATE TABLE IF NOT EXISTS fin_statement_lines (
  merchant_id            TEXT    NOT NULL,
  livemode               INTEGER NOT NULL,
  created_at             INTEGER NOT NULL,  -- the booking time, ms since the epoch
  journal_seq            INTEGER NOT NULL,
  id                     TEXT    NOT NULL,  -- the balance transaction
  available_minor        INTEGER NOT NULL,  -- satang, signed: what it moved in each bucket
  pending_clearing_minor INTEGER NOT NULL,
  reserved_minor         INTEGER NOT NULL,
  PRIMARY KEY (merchant_id, livemode, created_at, journal_seq)
) WITHOUT ROWID;
`;

export const statementLines: Projection = {
  name: 'statement_lines',
  tables: ['fin_statement_lines'],
  schema,
  prepare(db: ProjectionsDb) {
    const insert = db.prepare(`INSERT INTO fin_statement_lines (merchant_id, livemode, created_at, journal_seq, id, available_minor, pending_clearing_minor, reserved_minor)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    return {
      apply(entry: RelayedEntry) {
        const t = postedTransaction(entry);
        // The statement counts a posting to the merchant's own account even where the transaction nets to zero there.
        if (!t?.postings.some((p) => p.account.kind === 'merchant' && p.account.merchantId === t.merchantId)) return;
        const d = bucketDeltas(t);
        insert.run(t.merchantId, t.livemode ? 1 : 0, t.createdAt, entry.seq, t.id, d.availableMinor, d.pendingClearingMinor, d.reservedMinor);
      },
    };
  },
};
