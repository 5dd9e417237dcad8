// The payer debts projection: what the trial balance reads for the refunds payers owe back
// (core/finance/trial-balance.ts, its owed_by_payers and payer_debts_written_off lines),
// built from the claim entries that move a claim's owed_by_payer_minor or written_off_minor
// (ClaimRefundOwed, ClaimWrittenOff, ClaimRefundRecalled):
//   fin_payer_debts  one row per change of a claim's payer debt: when, the journal entry,
//                    the claim's mode, merchant and deposit, what is owed after it (0 once
//                    recovered or written off) and what of it is written off (0 until a
//                    write-off, and again once the bank recovered it all).
// The ledger has no posting for such a debt: the refund drew suspense when it was paid
// out, and suspense still carries it (README, Finance). The debt after each event is core's
// rule (payerDebtAfter), applied to the claim's previous row here, so the rows are what the
// claim's fields were at each instant. Rebuildable from the journal; a
// projection of its own, so a deployment from before it fills it from the journal's first
// entry on its own.

import { assert } from '../core/assert.ts';
import { noPayerDebt, payerDebtAfter, type ClaimEvent } from '../core/claim/state.ts';
import type { OwedByPayers } from '../core/finance/trial-balance.ts';
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
  written_off_minor INTEGER NOT NULL DEFAULT 0,  -- satang of the debt written off as a loss after this change, >= 0
  PRIMARY KEY (claim_id, journal_seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS fin_payer_debts_by_at ON fin_payer_debts (at);
`;

const moves: ReadonlySet<string> = new Set<ClaimEvent['type']>(['ClaimRefundOwed', 'ClaimWrittenOff', 'ClaimRefundRecalled']);

export const payerDebts: Projection = {
  name: 'payer_debts',
  tables: ['fin_payer_debts'],
  schema,
  prepare(db: ProjectionsDb) {
    const latest = db.prepare<[string], [bigint, bigint, string]>('SELECT owed_minor, written_off_minor, deposit_id FROM fin_payer_debts WHERE claim_id = ? ORDER BY journal_seq DESC LIMIT 1').raw(true).safeIntegers(true);
    const insert = db.prepare('INSERT INTO fin_payer_debts (claim_id, journal_seq, at, livemode, merchant_id, deposit_id, owed_minor, written_off_minor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    return {
      apply(entry: RelayedEntry) {
        if (entry.kind !== 'claim' || !moves.has(entry.type)) return;
        const e = eventOf(entry) as ClaimEvent;
        const before = latest.get(entry.stream);
        const debtBefore = before ? { owedMinor: before[0], writtenOffMinor: before[1] } : noPayerDebt;
        const after = payerDebtAfter(debtBefore, e);
        if (after.owedMinor === debtBefore.owedMinor && after.writtenOffMinor === debtBefore.writtenOffMinor) return;
        const depositId = e.type === 'ClaimRefundOwed' ? e.depositId : before?.[2];
        assert(depositId !== undefined && entry.merchantId !== null && entry.livemode !== null, () => `claim ${entry.stream}: a payer debt without deposit, merchant or mode`);
        assert(after.owedMinor >= 0n && after.writtenOffMinor >= 0n, () => `claim ${entry.stream}: owed ${after.owedMinor}, written off ${after.writtenOffMinor}`);
        insert.run(entry.stream, entry.seq, e.at, entry.livemode ? 1 : 0, entry.merchantId, depositId, after.owedMinor, after.writtenOffMinor);
      },
    };
  },
};

/** A mode, what is owed and written off then, and whether any write-off was recorded in it by then (1n) or not (0n). */
type AtRow = [bigint, bigint, bigint, bigint];

/**
 * Reads of a claims' debts table (fin_payer_debts, fin_payee_debts: one row per change of what
 * a claim's party owes, with owed_minor after it) for the trial balance's owed lines.
 */
export class DebtReads {
  private readonly at;

  constructor(db: ProjectionsDb, table: 'fin_payer_debts' | 'fin_payee_debts') {
    // A payee's debt is never written off: its table has no such column.
    const writtenOff = table === 'fin_payer_debts' ? 'written_off_minor' : '0';
    // Each claim's last change at or before the instant (a claim has a handful of rows); and
    // whether any row by then had a write-off (the written-off line stays, at 0, once recovered).
    this.at = db.prepare<[{ asOf: number; upto: number }], AtRow>(`SELECT livemode,
        sum(CASE WHEN latest THEN owed_minor ELSE 0 END), sum(CASE WHEN latest THEN written_off ELSE 0 END), max(written_off > 0)
      FROM (SELECT livemode, owed_minor, ${writtenOff} AS written_off,
          journal_seq = (SELECT max(journal_seq) FROM ${table} l WHERE l.claim_id = d.claim_id AND l.at <= @asOf AND l.journal_seq <= @upto) AS latest
        FROM ${table} d WHERE at <= @asOf AND journal_seq <= @upto)
      GROUP BY livemode`).raw(true).safeIntegers(true);
  }

  /**
   * Per mode in which such a debt was recorded at or before `asOfMs`: what is owed then (0 once
   * all of it is back or written off), and what is written off then when any write-off was
   * recorded in that mode by then, from the journal's entries up to `uptoSeq` (another
   * projection's position, so that both read as of one journal position).
   */
  owedAt(asOfMs: number, uptoSeq: number): OwedByPayers[] {
    return this.at.all({ asOf: asOfMs, upto: uptoSeq }).map(([mode, owed, writtenOff, anyWriteOff]) => ({
      livemode: mode === 1n, owedMinor: owed, ...(anyWriteOff === 1n ? { writtenOffMinor: writtenOff } : {}),
    }));
  }
}
