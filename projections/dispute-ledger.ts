// The dispute ledger projection: what the disputes report reads (core/finance/disputes.ts),
// built from the withdrawal entries of a dispute's life:
//   fin_disputes  one row per dispute ever opened, by mode: its withdrawal and merchant,
//                 reason, amount, when it opened and its evidence deadline, and once
//                 resolved, when and how. A withdrawal has at most one open dispute at a
//                 time (its decider refuses a second), so a resolution is the open row's.
// Every dispute is kept, not only a withdrawal's latest: a new dispute after a resolution
// takes the withdrawal's `dispute` field, and the write side forgets the earlier one.
// Rebuildable from the journal; a projection of its own, so a deployment from before it
// fills it from the journal's first entry on its own.

import { assert } from '../core/assert.ts';
import type { DisputeRecord } from '../core/finance/disputes.ts';
import type { WithdrawalEvent } from '../core/withdrawal/state.ts';
import type { ProjectionsDb } from './db.ts';
import { eventOf, type RelayedEntry } from './entry.ts';
import type { Projection } from './projection.ts';

const schema = `
CREATE TABLE IF NOT EXISTS fin_disputes (
  dispute_id    TEXT    PRIMARY KEY,
  livemode      INTEGER NOT NULL,
  merchant_id   TEXT    NOT NULL,  -- the withdrawing merchant
  withdrawal_id TEXT    NOT NULL,
  reason_code   TEXT    NOT NULL,
  amount_minor  INTEGER NOT NULL,  -- satang, > 0
  opened_at     INTEGER NOT NULL,  -- ms since the epoch
  respond_by    INTEGER NOT NULL,
  resolved_at   INTEGER,           -- NULL while open
  outcome       TEXT               -- merchant_won | merchant_lost | withdrawn, once resolved
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS fin_disputes_by_open ON fin_disputes (livemode, opened_at);
CREATE INDEX IF NOT EXISTS fin_disputes_of_withdrawal ON fin_disputes (withdrawal_id) WHERE resolved_at IS NULL;
`;

export const disputeLedger: Projection = {
  name: 'dispute_ledger',
  tables: ['fin_disputes'],
  schema,
  prepare(db: ProjectionsDb) {
    const insert = db.prepare(`INSERT INTO fin_disputes (dispute_id, livemode, merchant_id, withdrawal_id, reason_code, amount_minor, opened_at, respond_by)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    const resolve = db.prepare('UPDATE fin_disputes SET resolved_at = ?, outcome = ? WHERE withdrawal_id = ? AND resolved_at IS NULL');
    return {
      apply(entry: RelayedEntry) {
        if (entry.kind !== 'withdrawal' || (entry.type !== 'DisputeOpened' && entry.type !== 'DisputeResolved')) return;
        const e = eventOf(entry) as WithdrawalEvent;
        if (e.type === 'DisputeOpened') {
          assert(entry.merchantId !== null && entry.livemode !== null, () => `withdrawal ${entry.stream}: a dispute without merchant or mode`);
          const d = e.dispute;
          insert.run(d.id, entry.livemode ? 1 : 0, entry.merchantId, entry.stream, d.reasonCode, d.amountMinor, d.openedAt, d.respondBy);
        } else if (e.type === 'DisputeResolved') {
          const changed = resolve.run(e.at, e.outcome, entry.stream).changes;
          assert(changed === 1, () => `withdrawal ${entry.stream}: resolved ${changed} open disputes, not one`);
        }
      },
    };
  },
};

type Row = [string, string, string, string, bigint, bigint, bigint, bigint | null, string | null];

/** Reads of fin_disputes for the disputes report. */
export class DisputeReads {
  private readonly inPeriod;

  constructor(db: ProjectionsDb) {
    this.inPeriod = db.prepare<[number, number, number, string | null, string | null, number], Row>(`SELECT dispute_id, withdrawal_id, merchant_id, reason_code, amount_minor,
        opened_at, respond_by, resolved_at, outcome FROM fin_disputes
      WHERE livemode = ? AND opened_at < ? AND (resolved_at IS NULL OR resolved_at >= ?) AND (? IS NULL OR merchant_id = ?)
      ORDER BY opened_at, dispute_id LIMIT ?`).raw(true).safeIntegers(true);
  }

  /** The disputes open at some time in [fromMs, toMs), oldest opened first, one merchant's when given; `hasMore` past `max`. */
  openIn(livemode: boolean, fromMs: number, toMs: number, merchantId: string | undefined, max: number): { readonly records: readonly DisputeRecord[]; readonly hasMore: boolean } {
    const rows = this.inPeriod.all(livemode ? 1 : 0, toMs, fromMs, merchantId ?? null, merchantId ?? null, max + 1);
    return {
      records: rows.slice(0, max).map(([disputeId, withdrawalId, mId, reasonCode, amount, openedAt, respondBy, resolvedAt, outcome]) => ({
        disputeId, withdrawalId, merchantId: mId, reasonCode, amountMinor: amount, openedAt: Number(openedAt), respondBy: Number(respondBy),
        resolvedAt: resolvedAt === null ? null : Number(resolvedAt), outcome,
      })),
      hasMore: rows.length > max,
    };
  }
}
