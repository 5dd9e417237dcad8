// The payee debts projection: what the trial balance reads for the claims' refunds the payees
// owe the service (core/finance/trial-balance.ts, its owed_by_payees line), built from the
// claim entries that move a claim's owed_by_payee_minor (ClaimClosed, ClaimRefundOwed,
// ClaimRefundRecalled):
//   fin_payee_debts  one row per change of what a claim's payee owes: when, the journal
//                    entry, the claim's mode and merchant, what is owed after it (0 once
//                    taken off the payee) and whether the claim was closed then.
// A claim's money was never posted: it sits in the account the payer transferred to, so a
// refund of it drew suspense below zero (README, Finance). The owed amount after each event
// is core's rule (owedByPayeeAfter), applied to the claim's previous row here, so the rows
// are what the claim's field was at each instant. Rebuildable from the journal; a projection
// of its own, so a deployment from before it fills it from the journal's first entry.

import { assert } from '../core/assert.ts';
import { noPayeeDebt, owedByPayeeAfter, type ClaimEvent } from '../core/claim/state.ts';
import type { ProjectionsDb } from './db.ts';
import { eventOf, type RelayedEntry } from './entry.ts';
import type { Projection } from './projection.ts';

const schema = `
CREATE TABLE IF NOT EXISTS fin_payee_debts (
  claim_id     TEXT    NOT NULL,
  journal_seq  INTEGER NOT NULL,
  at           INTEGER NOT NULL,  -- ms since the epoch, the claim event's business time
  livemode     INTEGER NOT NULL,
  merchant_id  TEXT    NOT NULL,
  owed_minor   INTEGER NOT NULL,  -- satang the payee owes after this change, >= 0
  closed       INTEGER NOT NULL,  -- 1 when the claim was closed after this change
  PRIMARY KEY (claim_id, journal_seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS fin_payee_debts_by_at ON fin_payee_debts (at);
`;

const moves: ReadonlySet<string> = new Set<ClaimEvent['type']>(['ClaimClosed', 'ClaimRefundOwed', 'ClaimRefundRecalled']);

export const payeeDebts: Projection = {
  name: 'payee_debts',
  tables: ['fin_payee_debts'],
  schema,
  prepare(db: ProjectionsDb) {
    const latest = db.prepare<[string], [bigint, bigint]>('SELECT owed_minor, closed FROM fin_payee_debts WHERE claim_id = ? ORDER BY journal_seq DESC LIMIT 1').raw(true).safeIntegers(true);
    const insert = db.prepare('INSERT INTO fin_payee_debts (claim_id, journal_seq, at, livemode, merchant_id, owed_minor, closed) VALUES (?, ?, ?, ?, ?, ?, ?)');
    return {
      apply(entry: RelayedEntry) {
        if (entry.kind !== 'claim' || !moves.has(entry.type)) return;
        const e = eventOf(entry) as ClaimEvent;
        const row = latest.get(entry.stream);
        const before = row === undefined ? noPayeeDebt : { owedMinor: row[0], closed: row[1] === 1n };
        const after = owedByPayeeAfter(before, e);
        // A claim that never owed anything has no row (its mode gets no line for it); after a
        // first debt, every change of what is owed or of whether the claim is closed is a row.
        if (after.owedMinor === before.owedMinor && (row === undefined || after.closed === before.closed)) return;
        assert(entry.merchantId !== null && entry.livemode !== null, () => `claim ${entry.stream}: a payee debt without merchant or mode`);
        assert(after.owedMinor >= 0n, () => `claim ${entry.stream}: owed ${after.owedMinor}`);
        insert.run(entry.stream, entry.seq, e.at, entry.livemode ? 1 : 0, entry.merchantId, after.owedMinor, after.closed ? 1 : 0);
      },
    };
  },
};
