// The deposit and withdrawal list projections (GET /v1/pay/deposits, GET /v1/pay/withdrawals):
// each order's current state, folded from its journal entries with core's own evolve, with
// the columns the lists filter and page on. Newest first by (created_at, id), a cursor
// names the last row seen. Invariants kept: a row's state is the fold of its stream's
// entries in journal order (its version is the last entry's); the stored state is core's
// encode() of it, so a page presents exactly what GET of the order would.

import type { Statement } from 'better-sqlite3';
import { assert } from '../core/assert.ts';
import { evolve as evolveDeposit, type Deposit, type DepositEvent } from '../core/deposit/state.ts';
import { decode, encode } from '../core/journal.ts';
import { evolve as evolveWithdrawal, type Withdrawal, type WithdrawalEvent } from '../core/withdrawal/state.ts';
import type { ProjectionsDb } from './db.ts';
import { eventOf, type RelayedEntry } from './entry.ts';
import type { Projection, ProjectionName } from './projection.ts';

interface Order {
  readonly id: string;
  readonly merchantId: string;
  readonly livemode: boolean;
  readonly version: number;
  readonly status: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

interface OrderListSpec<T extends Order> {
  readonly name: ProjectionName;
  readonly table: string;
  readonly kind: 'deposit' | 'withdrawal';
  readonly evolve: (state: T | undefined, entry: RelayedEntry) => T;
}

function schemaOf(table: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${table} (
  id          TEXT    PRIMARY KEY,
  merchant_id TEXT    NOT NULL,
  livemode    INTEGER NOT NULL,
  status      TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  state       TEXT    NOT NULL   -- core's encode() of the order's state
);
CREATE INDEX IF NOT EXISTS ${table}_by_created ON ${table} (merchant_id, livemode, created_at, id);
CREATE INDEX IF NOT EXISTS ${table}_by_status ON ${table} (merchant_id, livemode, status, created_at, id);
-- Support's search (server/routes/bo-search.ts): an order by the merchant's or the end user's reference, any status.
CREATE INDEX IF NOT EXISTS ${table}_by_reference ON ${table} (json_extract(state, '$.merchantReference'));
CREATE INDEX IF NOT EXISTS ${table}_by_end_user ON ${table} (json_extract(state, '$.endUserRef'));
${table === 'dl_deposits' ? `-- A deposit by the bank's transaction reference on its slip: the order credited for it and
-- every other that showed it (a duplicate in review or declined), not the first alone.
CREATE INDEX IF NOT EXISTS ${table}_by_slip_trans_ref ON ${table} (json_extract(state, '$.slip.transRef'));` : ''}
`;
}

function orderList<T extends Order>(spec: OrderListSpec<T>): Projection {
  return {
    name: spec.name,
    tables: [spec.table],
    schema: schemaOf(spec.table),
    prepare(db: ProjectionsDb) {
      const select = db.prepare<[string], string>(`SELECT state FROM ${spec.table} WHERE id = ?`).pluck(true);
      const upsert = db.prepare(`INSERT INTO ${spec.table} (id, merchant_id, livemode, status, created_at, updated_at, state) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at, state = excluded.state`);
      return {
        apply(entry: RelayedEntry) {
          if (entry.kind !== spec.kind) return;
          const stored = select.get(entry.stream);
          const after = spec.evolve(stored === undefined ? undefined : decode<T>(stored), entry);
          assert(after.id === entry.stream && after.version === entry.version, () => `${spec.kind} ${entry.stream}: state version ${after.version} ≠ entry ${entry.version}`);
          upsert.run(after.id, after.merchantId, after.livemode ? 1 : 0, after.status, after.createdAt, after.updatedAt, encode(after));
        },
      };
    },
  };
}

export const depositList = orderList<Deposit>({
  name: 'deposit_list', table: 'dl_deposits', kind: 'deposit',
  evolve: (state, entry) => evolveDeposit(state, eventOf(entry) as DepositEvent),
});

export const withdrawalList = orderList<Withdrawal>({
  name: 'withdrawal_list', table: 'wl_withdrawals', kind: 'withdrawal',
  evolve: (state, entry) => evolveWithdrawal(state, eventOf(entry) as WithdrawalEvent),
});

export interface ListQuery {
  readonly merchantId: string;
  readonly livemode: boolean;
  readonly status?: string;
  /** Only orders updated after this instant (ms). */
  readonly updatedAfter?: number;
  /** Only orders before this one in the list's order (newest first). */
  readonly after?: { readonly id: string; readonly createdAt: number };
  readonly limit: number;
}

/** Pages of one order list; statements are prepared per filter shape, once. */
export class OrderListReads<T> {
  private readonly statements = new Map<string, Statement<unknown[], string>>();
  constructor(private readonly db: ProjectionsDb, private readonly table: string) {}

  /** Up to `limit + 1` states, newest first: the extra one says whether there are more. */
  read(q: ListQuery): T[] {
    const where = ['merchant_id = ?', 'livemode = ?'];
    const params: unknown[] = [q.merchantId, q.livemode ? 1 : 0];
    if (q.status !== undefined) { where.push('status = ?'); params.push(q.status); }
    if (q.updatedAfter !== undefined) { where.push('updated_at > ?'); params.push(q.updatedAfter); }
    if (q.after) { where.push('(created_at < ? OR (created_at = ? AND id < ?))'); params.push(q.after.createdAt, q.after.createdAt, q.after.id); }
    const sql = `SELECT state FROM ${this.table} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?`;
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare<unknown[], string>(sql).pluck(true)));
    return statement.all(...params, q.limit + 1).map((s) => decode<T>(s));
  }
}
