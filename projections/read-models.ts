// The reads the API serves from projections.db: balance history snapshots, events feed
// pages, deposit and withdrawal list pages, the finance reports' figures (disputes and payer debts too),
// and each projection's position (how far through the journal it is). Read-only: the projector writes, this only reads.

import type { Deposit } from '../core/deposit/state.ts';
import type { AccountTurnover, OwedByPayers } from '../core/finance/trial-balance.ts';
import type { Withdrawal } from '../core/withdrawal/state.ts';
import { BalanceHistoryReads } from './balance-history.ts';
import type { ProjectionsDb } from './db.ts';
import { DisputeReads } from './dispute-ledger.ts';
import { EventsFeedReads } from './events-feed.ts';
import { FinanceReads } from './finance-reads.ts';
import { OrderListReads } from './order-lists.ts';
import { DebtReads } from './payer-debts.ts';
import type { ProjectionName } from './projection.ts';
import { ReceivingAccountReads } from './receiving-accounts.ts';

/**
 * The trial balance's figures as of one journal position (finance_ledger's), or, while
 * payer_debts has not applied that far, only the position it must reach (read again then).
 */
export type TrialBalanceSnapshot =
  | { readonly ready: true; readonly position: number; readonly turnovers: readonly AccountTurnover[]; readonly owedByPayers: readonly OwedByPayers[]; readonly owedByPayees: readonly OwedByPayers[] }
  | { readonly ready: false; readonly position: number; readonly behind: ProjectionName };

/** The projections the trial balance's owed lines come from, read as of finance_ledger's position. */
const debtProjections: readonly ProjectionName[] = ['payer_debts', 'payee_debts'];

export class ReadModels {
  readonly balanceHistory: BalanceHistoryReads;
  readonly events: EventsFeedReads;
  readonly deposits: OrderListReads<Deposit>;
  readonly withdrawals: OrderListReads<Withdrawal>;
  readonly finance: FinanceReads;
  readonly receiving: ReceivingAccountReads;
  readonly disputes: DisputeReads;
  readonly payerDebts: DebtReads;
  readonly payeeDebts: DebtReads;
  private readonly positionOf;
  private readonly trialBalanceTx;

  constructor(db: ProjectionsDb) {
    this.balanceHistory = new BalanceHistoryReads(db);
    this.events = new EventsFeedReads(db);
    this.deposits = new OrderListReads<Deposit>(db, 'dl_deposits');
    this.withdrawals = new OrderListReads<Withdrawal>(db, 'wl_withdrawals');
    this.finance = new FinanceReads(db);
    this.receiving = new ReceivingAccountReads(db);
    this.disputes = new DisputeReads(db);
    this.payerDebts = new DebtReads(db, 'fin_payer_debts');
    this.payeeDebts = new DebtReads(db, 'fin_payee_debts');
    this.positionOf = db.prepare<[string], number>('SELECT last_seq FROM projection_positions WHERE name = ?').pluck(true);
    // One read transaction (WAL: one snapshot of projections.db), and payer_debts bounded to
    // finance_ledger's position in it: each projection applies at its own pace, on another
    // connection, so two reads apart — or one projection ahead of the other — would put the
    // owed line a few entries ahead of (or behind) the turnovers.
    this.trialBalanceTx = db.transaction((asOfMs: number): TrialBalanceSnapshot => {
      const { turnovers, position } = this.finance.trialBalance(asOfMs);
      const behind = debtProjections.find((name) => this.position(name) < position);
      if (behind) return { ready: false, position, behind };
      return { ready: true, position, turnovers, owedByPayers: this.payerDebts.owedAt(asOfMs, position), owedByPayees: this.payeeDebts.owedAt(asOfMs, position) };
    });
  }

  /** The trial balance's turnovers and payer debts at `asOfMs`, both as of one journal position. */
  trialBalance(asOfMs: number): TrialBalanceSnapshot {
    return this.trialBalanceTx.deferred(asOfMs);
  }

  /** The last journal seq `projection` applied (0 before the first). */
  position(projection: ProjectionName): number {
    return this.positionOf.get(projection) ?? 0;
  }
}
