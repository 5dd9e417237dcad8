// The reads the API serves from projections.db: balance history snapshots, events feed
// pages, deposit and withdrawal list pages, the finance reports' figures (disputes and payer debts too),
// and each projection's position (how far through the journal it is). Read-only: the projector writes, this only reads.

import type { Deposit } from '../core/deposit/state.ts';
import type { Withdrawal } from '../core/withdrawal/state.ts';
import { BalanceHistoryReads } from './balance-history.ts';
import type { ProjectionsDb } from './db.ts';
import { DisputeReads } from './dispute-ledger.ts';
import { EventsFeedReads } from './events-feed.ts';
import { FinanceReads } from './finance-reads.ts';
import { OrderListReads } from './order-lists.ts';
import { PayerDebtReads } from './payer-debts.ts';
import type { ProjectionName } from './projection.ts';
import { ReceivingAccountReads } from './receiving-accounts.ts';

export class ReadModels {
  readonly balanceHistory: BalanceHistoryReads;
  readonly events: EventsFeedReads;
  readonly deposits: OrderListReads<Deposit>;
  readonly withdrawals: OrderListReads<Withdrawal>;
  readonly finance: FinanceReads;
  readonly receiving: ReceivingAccountReads;
  readonly disputes: DisputeReads;
  readonly payerDebts: PayerDebtReads;
  private readonly positionOf;

  constructor(db: ProjectionsDb) {
    this.balanceHistory = new BalanceHistoryReads(db);
    this.events = new EventsFeedReads(db);
    this.deposits = new OrderListReads<Deposit>(db, 'dl_deposits');
    this.withdrawals = new OrderListReads<Withdrawal>(db, 'wl_withdrawals');
    this.finance = new FinanceReads(db);
    this.receiving = new ReceivingAccountReads(db);
    this.disputes = new DisputeReads(db);
    this.payerDebts = new PayerDebtReads(db);
    this.positionOf = db.prepare<[string], number>('SELECT last_seq FROM projection_positions WHERE name = ?').pluck(true);
  }

  /** The last journal seq `projection` applied (0 before the first). */
  position(projection: ProjectionName): number {
    return this.positionOf.get(projection) ?? 0;
  }
}
