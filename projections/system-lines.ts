// The system lines projection: what the account-lines report reads (core/finance/system-lines.ts),
// built from BalanceTransactionPosted entries only:
//   fin_system_lines  one row per posting to a system account that holds money nobody's
//                     statement explains — suspense, reversals, adjustments, gateway
//                     settlement (core/finance/system-lines.ts) — by mode, account and booking time,
//                     with the transaction's id, the journal entry that posted it and the
//                     signed amount (+ a credit, − a debit, as core/ledger posts it).
// Fee revenue and VAT payable are explained by the fees report, and P2P transit nets to
// zero per settlement; their postings (one or two per order) are not copied here. A
// transaction posting twice to one account gives two rows with their own `part`. Rebuildable
// from the journal; a projection of its own, so a deployment that had the finance ledger
// before this one fills it from the journal's first entry on its own.

import { systemLineAccounts } from '../core/finance/system-lines.ts';
import type { ProjectionsDb } from './db.ts';
import { postedTransaction, type RelayedEntry } from './entry.ts';
import type { Projection } from './projection.ts';

const schema = `
CREATE TABLE IF NOT EXISTS fin_system_lines (
  livemode    INTEGER NOT NULL,
  account     TEXT    NOT NULL,  -- the system account's name (suspense, reversals, …)
  created_at  INTEGER NOT NULL,  -- the transaction's booking time, ms since the epoch
  id          TEXT    NOT NULL,  -- the balance transaction
  part        INTEGER NOT NULL,  -- its posting's place among those to this account (0 for the first)
  journal_seq INTEGER NOT NULL,
  amount      INTEGER NOT NULL,  -- satang, signed: + credit, − debit
  PRIMARY KEY (livemode, account, created_at, id, part)
) WITHOUT ROWID;
`;

const listed: ReadonlySet<string> = new Set(systemLineAccounts);

export const systemLines: Projection = {
  name: 'system_lines',
  tables: ['fin_system_lines'],
  schema,
  prepare(db: ProjectionsDb) {
    const insert = db.prepare('INSERT INTO fin_system_lines (livemode, account, created_at, id, part, journal_seq, amount) VALUES (?, ?, ?, ?, ?, ?, ?)');
    return {
      apply(entry: RelayedEntry) {
        const t = postedTransaction(entry);
        if (!t) return;
        const parts = new Map<string, number>();
        for (const p of t.postings) {
          if (p.account.kind !== 'system' || !listed.has(p.account.account)) continue;
          const part = parts.get(p.account.account) ?? 0;
          parts.set(p.account.account, part + 1);
          insert.run(t.livemode ? 1 : 0, p.account.account, t.createdAt, t.id, part, entry.seq, p.amountMinor);
        }
      },
    };
  },
};
