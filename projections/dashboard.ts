// The back-office dashboard's reads (GET /v1/bo/dashboard): aggregates over the deposit
// and withdrawal list projections (dl_deposits, wl_withdrawals), so the figures are a
// replica's, rebuildable from the journal like every projection, and never used for a
// money decision (contract: "replica-based aggregates"). Each figure says the journal
// position it reflects. Read-only; amounts are core's encode() of bigints in the stored
// state, summed here as decimal text so no float ever touches them.

import type { ProjectionsDb } from './db.ts';

const big = (path: string) => `json_extract(state, '$.${path}."$bigint"')`;

export interface StatusCount { readonly status: string; readonly count: number; readonly amountMinor: bigint }

export interface DashboardFigures {
  readonly depositsByStatus: readonly StatusCount[];
  readonly withdrawalsByStatus: readonly StatusCount[];
  /** Settled today: deposits' amount received, withdrawals' amount filled (orders created today). */
  readonly depositVolumeMinor: bigint;
  readonly withdrawalFilledMinor: bigint;
  readonly reviewQueue: { readonly size: number; readonly oldestOpenedAt: number | null };
  readonly liquidityWaiting: { readonly count: number; readonly amountMinor: bigint };
  /** Slips whose provider answered provider_unavailable, over orders that got a slip (created today). */
  readonly slipProvider: { readonly slips: number; readonly unavailable: number };
}

export interface DashboardScope {
  readonly livemode: boolean;
  readonly merchantId?: string;
  /** Start of the business day (ms): "today" is created_at ≥ this. */
  readonly since: number;
}

export class DashboardReads {
  private readonly s;

  constructor(db: ProjectionsDb) {
    const scope = 'livemode = @livemode AND (@merchant IS NULL OR merchant_id = @merchant)';
    this.s = {
      deposits: db.prepare<[object], { status: string; n: number; amount: string | null }>(
        `SELECT status, count(*) AS n, CAST(sum(CAST(${big('amountMinor')} AS INTEGER)) AS TEXT) AS amount FROM dl_deposits WHERE ${scope} AND created_at >= @since GROUP BY status ORDER BY status`),
      withdrawals: db.prepare<[object], { status: string; n: number; amount: string | null }>(
        `SELECT status, count(*) AS n, CAST(sum(CAST(${big('amountTotalMinor')} AS INTEGER)) AS TEXT) AS amount FROM wl_withdrawals WHERE ${scope} AND created_at >= @since GROUP BY status ORDER BY status`),
      depositVolume: db.prepare<[object], string | null>(
        `SELECT CAST(sum(CAST(${big('settlement.receivedMinor')} AS INTEGER)) AS TEXT) FROM dl_deposits WHERE ${scope} AND created_at >= @since AND status = 'settled'`).pluck(true),
      withdrawalFilled: db.prepare<[object], string | null>(
        `SELECT CAST(sum(CAST(${big('filledMinor')} AS INTEGER)) AS TEXT) FROM wl_withdrawals WHERE ${scope} AND created_at >= @since`).pluck(true),
      review: db.prepare<[object], { n: number; oldest: number | null }>(
        `SELECT count(*) AS n, min(json_extract(state, '$.review.openedAt')) AS oldest FROM dl_deposits WHERE ${scope} AND status = 'under_review'`),
      liquidity: db.prepare<[object], { n: number; amount: string | null }>(
        `SELECT count(*) AS n, CAST(sum(CAST(${big('amountMinor')} AS INTEGER)) AS TEXT) AS amount FROM dl_deposits WHERE ${scope} AND status = 'awaiting_liquidity'`),
      slips: db.prepare<[object], { slips: number; unavailable: number | null }>(
        `SELECT count(*) AS slips, sum(EXISTS (SELECT 1 FROM json_each(state, '$.review.reasons') WHERE json_extract(value, '$.code') = 'PROVIDER_UNAVAILABLE')) AS unavailable
         FROM dl_deposits WHERE ${scope} AND created_at >= @since AND json_extract(state, '$.slip') IS NOT NULL`),
    };
  }

  figures(scope: DashboardScope): DashboardFigures {
    const p = { livemode: scope.livemode ? 1 : 0, merchant: scope.merchantId ?? null, since: scope.since };
    const counts = (rows: { status: string; n: number; amount: string | null }[]) => rows.map((r) => ({ status: r.status, count: r.n, amountMinor: BigInt(r.amount ?? '0') }));
    const review = this.s.review.get(p)!;
    const liquidity = this.s.liquidity.get(p)!;
    const slips = this.s.slips.get(p)!;
    return {
      depositsByStatus: counts(this.s.deposits.all(p)), withdrawalsByStatus: counts(this.s.withdrawals.all(p)),
      depositVolumeMinor: BigInt(this.s.depositVolume.get(p) ?? '0'), withdrawalFilledMinor: BigInt(this.s.withdrawalFilled.get(p) ?? '0'),
      reviewQueue: { size: review.n, oldestOpenedAt: review.oldest }, liquidityWaiting: { count: liquidity.n, amountMinor: BigInt(liquidity.amount ?? '0') },
      slipProvider: { slips: slips.slips, unavailable: slips.unavailable ?? 0 },
    };
  }
}
