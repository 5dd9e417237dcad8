// The payer debts projection: what the trial balance reads for the refunds payers owe back
// (core/finance/trial-balance.ts, its owed_by_payers line), built from the claim entries
// that move a claim's owed_by_payer_minor (ClaimRefundOwed, ClaimRefundRecalled):
//   fin_payer_debts  one row per change of what a claim's payer owes back: when, the
//                    journal entry, the claim's mode, merchant and deposit, and what is
//                    owed after it (0 once recovered).
// The ledger has no posting for such a debt: the refund drew suspense when it was paid
// out, and suspense still carries it (README, Finance). The owed amount after each event
// is core's rule (owedByPayerAfter), applied to the claim's previous row here, so the rows
// are what the claim's field was at each instant. Rebuildable from the journal; a
// projection of its own, so a deployment from before it fills it from the journal's first
// entry on its own.

import { assert } from '../core/assert.ts';
import { owedByPayerAfter, type ClaimEvent } from '../core/claim/state.ts';
import type { OwedByPayers } from '../core/finance/trial-balance.ts';
import type { Minor } from '../core/money.ts';
import type { ProjectionsDb } from './db.ts';
import { eventOf, type RelayedEntry } from './entry.ts';
import type { Projection } from './projection.ts';

const schema = `
CREATE TABLE IF NOT EXISTS fin_payer_debts (
  claim_id     TEXT    NOT NULL,
  journal_seq  INTEGER NOT NULL,
  at           INTEGER NOT NULL,  -- ms since the epoch, the claim event's business time
  livemode     INTEGER NOT NULL,
  merchant_id  TEXT    NOT NULL,
  deposit_id   TEXT    NOT NULL,
  owed_minor   INTEGER NOT NULL,  -- satang the payer owes back after this change, >= 0
  PRIMARY KEY (claim_id, journal_seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS fin_payer_debts_by_at ON fin_payer_debts (at);
`;

const moves: ReadonlySet<string> = new Set<ClaimEvent['type']>(['ClaimRefundOwed', 'ClaimRefundRecalled']);

export const payerDebts: Projection = {
  name: 'payer_debts',
  tables: ['fin_payer_debts'],
  schema,
  prepare(db: ProjectionsDb) {
    const latest = db.prepare<[string], [bigint, string]>('SELECT owed_minor, deposit_id FROM fin_payer_debts WHERE claim_id = ? ORDER BY journal_seq DESC LIMIT 1').raw(true).safeIntegers(true);
    const insert = db.prepare('INSERT INTO fin_payer_debts (claim_id, journal_seq, at, livemode, merchant_id, deposit_id, owed_minor) VALUES (?, ?, ?, ?, ?, ?, ?)');
    return {
      apply(entry: RelayedEntry) {
        if (entry.kind !== 'claim' || !moves.has(entry.type)) return;
        const e = eventOf(entry) as ClaimEvent;
        const before = latest.get(entry.stream);
        const owedBefore: Minor = before?.[0] ?? 0n;
        const owedAfter = owedByPayerAfter(owedBefore, e);
        if (owedAfter === owedBefore) return;
        const depositId = e.type === 'ClaimRefundOwed' ? e.depositId : before?.[1];
        assert(depositId !== undefined && entry.merchantId !== null && entry.livemode !== null, () => `claim ${entry.stream}: a payer debt without deposit, merchant or mode`);
        assert(owedAfter >= 0n, () => `claim ${entry.stream}: owed ${owedAfter}`);
        insert.run(entry.stream, entry.seq, e.at, entry.livemode ? 1 : 0, entry.merchantId, depositId, owedAfter);
      },
    };
  },
};

type AtRow = [bigint, bigint];

/**
 * Reads of a claims' debts table (fin_payer_debts, fin_payee_debts: one row per change of what
 * a claim's party owes, with owed_minor after it) for the trial balance's owed lines.
 */
export class DebtReads {
  private readonly at;

  constructor(db: ProjectionsDb, table: 'fin_payer_debts' | 'fin_payee_debts') {
    // Each claim's last change at or before the instant (a claim has a handful of rows).
    this.at = db.prepare<[number, number, number, number], AtRow>(`SELECT livemode, sum(owed_minor) FROM ${table} d
      WHERE at <= ? AND journal_seq <= ? AND journal_seq = (SELECT max(journal_seq) FROM ${table} l WHERE l.claim_id = d.claim_id AND l.at <= ? AND l.journal_seq <= ?)
      GROUP BY livemode`).raw(true).safeIntegers(true);
  }

  /**
   * Per mode in which such a debt was recorded at or before `asOfMs`: what is owed then (0 once
   * all of it is back), from the journal's entries up to `uptoSeq` (another projection's
   * position, so that both read as of one journal position).
   */
  owedAt(asOfMs: number, uptoSeq: number): OwedByPayers[] {
    return this.at.all(asOfMs, uptoSeq, asOfMs, uptoSeq).map(([mode, owed]) => ({ livemode: mode === 1n, owedMinor: owed }));
  }
}
