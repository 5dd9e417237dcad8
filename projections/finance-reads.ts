// Reads of the finance ledger projection (finance-ledger.ts) for the reports. Each report
// is one read transaction, so its figures are of one journal position, which it returns.
// A statement reads the merchant's day rows of its period, summed by bucket and type, and
// the sums of the days before and up to its end (the primary key leads with merchant, mode
// and day); a trial balance sums whole days, then whole hours of the last day, then the
// postings of the last partial hour. The fees report reads the fee ledger's day rows of
// its period (fee-ledger.ts). The account lines read one system account's rows of the
// system lines projection (system-lines.ts): the sum before the period, then its rows.
// The statement lines read one merchant's rows of the statement lines projection
// (statement-lines.ts) booked in the period.

import { bangkokDayBounds, bangkokDayOf, hourOf } from '../core/finance/calendar.ts';
import type { MovementLine, BucketTotals } from '../core/finance/statement.ts';
import { noFees, type FeeSums, type MerchantFees } from '../core/finance/fees.ts';
import type { AccountTurnover } from '../core/finance/trial-balance.ts';
import type { Balances, Bucket } from '../core/ledger/ledger.ts';
import type { ProjectionsDb } from './db.ts';
import type { SystemLineAccount } from '../core/finance/system-lines.ts';

export interface StatementFigures {
  readonly opening: BucketTotals;
  readonly lines: readonly MovementLine[];
  readonly closing: BucketTotals;
  readonly position: number;
}

export interface TrialBalanceFigures {
  readonly turnovers: readonly AccountTurnover[];
  readonly position: number;
}

type SumRow = [string, bigint];
type LineRow = [string, string, bigint, bigint, bigint];
type TurnoverRow = [bigint, string, bigint, bigint, bigint];

function totals(rows: readonly SumRow[]): BucketTotals {
  const t: Record<Bucket, bigint> = { available: 0n, pending_clearing: 0n, reserved: 0n };
  for (const [bucket, net] of rows) t[bucket as Bucket] += net;
  return t;
}

type FeeRow = [string, string, bigint, bigint, bigint];
type SystemLineRow = [bigint, string, bigint, bigint];

/** One posting to a system account: its transaction, the journal entry that posted it, the signed amount. */
export interface SystemLine {
  readonly createdAt: number;
  readonly id: string;
  readonly journalSeq: number;
  readonly amountMinor: bigint;
}

export interface SystemLineFigures {
  /** The account's balance (credits − debits) before the period. */
  readonly openingMinor: bigint;
  readonly lines: readonly SystemLine[];
  /** More lines than asked for lie in the period. */
  readonly hasMore: boolean;
}

/** A transaction that moved a merchant's buckets: when it was booked, the journal entry that posted it, what it moved in each. */
export interface StatementLine {
  readonly createdAt: number;
  readonly id: string;
  readonly journalSeq: number;
  readonly deltas: Balances;
}

export interface StatementLineFigures {
  readonly lines: readonly StatementLine[];
  /** More lines than asked for lie in the period. */
  readonly hasMore: boolean;
}

export class FinanceReads {
  private readonly statementTx;
  private readonly trialBalanceTx;
  private readonly feeDays;
  private readonly systemLinesTx;
  private readonly statementLineRows;

  constructor(db: ProjectionsDb) {
    this.feeDays = db.prepare<[number, string, string, string | null, string | null], FeeRow>(`SELECT merchant_id, direction, sum(count), sum(fee_minor), sum(vat_minor) FROM fin_fee_days
      WHERE livemode = ? AND day >= ? AND day <= ? AND (? IS NULL OR merchant_id = ?) GROUP BY merchant_id, direction`).raw(true).safeIntegers(true);
    const position = db.prepare<[], number>("SELECT last_seq FROM projection_positions WHERE name = 'finance_ledger'").pluck(true);
    const systemBefore = db.prepare<[number, string, number], bigint | null>(`SELECT sum(amount) FROM fin_system_lines
      WHERE livemode = ? AND account = ? AND created_at < ?`).pluck(true).safeIntegers(true);
    const systemRows = db.prepare<[number, string, number, number, number], SystemLineRow>(`SELECT created_at, id, journal_seq, amount FROM fin_system_lines
      WHERE livemode = ? AND account = ? AND created_at >= ? AND created_at < ? ORDER BY created_at, id, part LIMIT ?`).raw(true).safeIntegers(true);
    this.systemLinesTx = db.transaction((livemode: boolean, account: SystemLineAccount, fromMs: number, toMs: number, max: number): SystemLineFigures => {
      const mode = livemode ? 1 : 0;
      const rows = systemRows.all(mode, account, fromMs, toMs, max + 1);
      return {
        openingMinor: systemBefore.get(mode, account, fromMs) ?? 0n,
        lines: rows.slice(0, max).map(([createdAt, id, seq, amount]) => ({ createdAt: Number(createdAt), id, journalSeq: Number(seq), amountMinor: amount })),
        hasMore: rows.length > max,
      };
    });
    this.statementLineRows = db.prepare<[string, number, number, number, number], [bigint, string, bigint, bigint, bigint, bigint]>(
      `SELECT created_at, id, journal_seq, available_minor, pending_clearing_minor, reserved_minor FROM fin_statement_lines
       WHERE merchant_id = ? AND livemode = ? AND created_at >= ? AND created_at < ? ORDER BY created_at, journal_seq LIMIT ?`).raw(true).safeIntegers(true);
    const before = db.prepare<[string, number, string], SumRow>(`SELECT bucket, sum(credit_minor - debit_minor) FROM fin_statement_days
      WHERE merchant_id = ? AND livemode = ? AND day < ? GROUP BY bucket`).raw(true).safeIntegers(true);
    const upTo = db.prepare<[string, number, string], SumRow>(`SELECT bucket, sum(credit_minor - debit_minor) FROM fin_statement_days
      WHERE merchant_id = ? AND livemode = ? AND day <= ? GROUP BY bucket`).raw(true).safeIntegers(true);
    const periodLines = db.prepare<[string, number, string, string], LineRow>(`SELECT bucket, type, sum(count), sum(credit_minor), sum(debit_minor) FROM fin_statement_days
      WHERE merchant_id = ? AND livemode = ? AND day >= ? AND day <= ? GROUP BY bucket, type`).raw(true).safeIntegers(true);
    this.statementTx = db.transaction((merchantId: string, livemode: boolean, from: string, to: string): StatementFigures => {
      const mode = livemode ? 1 : 0;
      return {
        opening: totals(before.all(merchantId, mode, from)),
        lines: periodLines.all(merchantId, mode, from, to).map(([bucket, type, count, credit, debit]) => ({ bucket: bucket as Bucket, type, count: Number(count), creditMinor: credit, debitMinor: debit })),
        closing: totals(upTo.all(merchantId, mode, to)),
        position: position.get() ?? 0,
      };
    });

    const days = db.prepare<[string], TurnoverRow>(`SELECT livemode, account, sum(count), sum(credit_minor), sum(debit_minor) FROM fin_account_days
      WHERE day < ? GROUP BY livemode, account`).raw(true).safeIntegers(true);
    const hours = db.prepare<[number, number], TurnoverRow>(`SELECT livemode, account, sum(count), sum(credit_minor), sum(debit_minor) FROM fin_account_hours
      WHERE hour >= ? AND hour < ? GROUP BY livemode, account`).raw(true).safeIntegers(true);
    const recent = db.prepare<[number, number], [bigint, string]>('SELECT livemode, postings FROM fin_transactions WHERE created_at >= ? AND created_at <= ?').raw(true).safeIntegers(true);
    this.trialBalanceTx = db.transaction((asOfMs: number): TrialBalanceFigures => {
      const day = bangkokDayOf(asOfMs);
      const hour = hourOf(asOfMs);
      const sums = new Map<string, { livemode: boolean; account: string; count: number; creditMinor: bigint; debitMinor: bigint }>();
      const addTo = (livemode: boolean, account: string, count: number, credit: bigint, debit: bigint) => {
        const key = `${livemode ? 1 : 0}|${account}`;
        const s = sums.get(key);
        if (s) { s.count += count; s.creditMinor += credit; s.debitMinor += debit; } else sums.set(key, { livemode, account, count, creditMinor: credit, debitMinor: debit });
      };
      for (const [mode, account, count, credit, debit] of days.all(day)) addTo(mode === 1n, account, Number(count), credit, debit);
      for (const [mode, account, count, credit, debit] of hours.all(bangkokDayBounds(day).startMs, hour)) addTo(mode === 1n, account, Number(count), credit, debit);
      for (const [mode, text] of recent.all(hour, asOfMs)) {
        for (const [account, amount] of JSON.parse(text) as [string, string][]) {
          const a = BigInt(amount);
          addTo(mode === 1n, account, 1, a > 0n ? a : 0n, a < 0n ? -a : 0n);
        }
      }
      return { turnovers: [...sums.values()], position: position.get() ?? 0 };
    });
  }

  /** The figures of one merchant's statement from one Bangkok day to another, both included. */
  statement(merchantId: string, livemode: boolean, from: string, to: string): StatementFigures {
    return this.statementTx.deferred(merchantId, livemode, from, to);
  }

  /** Each merchant's fees charged and refunded from one Bangkok day to another, both included (fee_ledger); one merchant's when given. */
  fees(livemode: boolean, from: string, to: string, merchantId?: string): MerchantFees[] {
    const byMerchant = new Map<string, { merchantId: string; charged: FeeSums; refunded: FeeSums }>();
    for (const [id, direction, count, fee, vat] of this.feeDays.all(livemode ? 1 : 0, from, to, merchantId ?? null, merchantId ?? null)) {
      let m = byMerchant.get(id);
      if (!m) byMerchant.set(id, (m = { merchantId: id, charged: noFees, refunded: noFees }));
      m[direction === 'refunded' ? 'refunded' : 'charged'] = { count: Number(count), feeMinor: fee, vatMinor: vat };
    }
    return [...byMerchant.values()];
  }

  /** A system account's balance before [fromMs, toMs) and at most `max` of its postings in it, oldest first. */
  systemLines(livemode: boolean, account: SystemLineAccount, fromMs: number, toMs: number, max: number): SystemLineFigures {
    return this.systemLinesTx.deferred(livemode, account, fromMs, toMs, max);
  }

  /** At most `max` of a merchant's statement lines booked in [fromMs, toMs), oldest first (one statement: one read). */
  statementLines(merchantId: string, livemode: boolean, fromMs: number, toMs: number, max: number): StatementLineFigures {
    const rows = this.statementLineRows.all(merchantId, livemode ? 1 : 0, fromMs, toMs, max + 1);
    return {
      lines: rows.slice(0, max).map(([createdAt, id, seq, a, p, r]) => ({ createdAt: Number(createdAt), id, journalSeq: Number(seq), deltas: { availableMinor: a, pendingClearingMinor: p, reservedMinor: r } })),
      hasMore: rows.length > max,
    };
  }

  /** Every account's turnover over the transactions booked at or before `asOfMs`. */
  trialBalance(asOfMs: number): TrialBalanceFigures {
    return this.trialBalanceTx.deferred(asOfMs);
  }
}
