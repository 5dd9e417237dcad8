// The back-office dashboard's reads (GET /v1/bo/dashboard): aggregates over the deposit
// and withdrawal list projections (dl_deposits, wl_withdrawals), so the figures are a
// replica's, rebuildable from the journal like every projection, and never used for a
// money decision (contract: "replica-based aggregates"). Each figure says the journal
// position it reflects. Read-only; amounts are core's encode() of bigints in the stored
// state, summed here as decimal text so no float ever touches them.
//
// The hourly series split the business day into its 24 hours by when a thing happened (a
// deposit's settled_at, a fill's settled_at, a slip's received_at), where the *_today
// figures count orders created today; an order's updated_at is never before any of those
// instants, so `updated_at >= day start` narrows each scan before the JSON is read.

import { assert } from '../core/assert.ts';
import { backOfficeLimits, durations } from '../core/limits.ts';
import type { ProjectionsDb } from './db.ts';

const big = (path: string) => `json_extract(state, '$.${path}."$bigint"')`;

/** A business day in Bangkok has 24 hours (Thailand keeps no daylight saving). */
export const hoursPerDay = durations.day / durations.hour;

/** The review-age histogram's buckets: labels and edges (seconds), the last open-ended ('extended'). */
export const reviewAgeBuckets: readonly { readonly label: string; readonly minSeconds: number; readonly maxSeconds: number | null }[] = (() => {
  const edges = backOfficeLimits.reviewAgeBucketEdgesSeconds;
  const labels = ['under_5m', '5m_to_15m', '15m_to_1h', '1h_to_4h', 'extended'];
  assert(labels.length === edges.length + 1, () => `review age buckets: ${labels.length} labels for ${edges.length} edges`);
  assert(edges[edges.length - 1]! * 1000 === backOfficeLimits.reviewExtendedAfterMs, () => 'the last review age bucket must start where a review is extended');
  return labels.map((label, i) => ({ label, minSeconds: i === 0 ? 0 : edges[i - 1]!, maxSeconds: i < edges.length ? edges[i]! : null }));
})();

export interface HourVolume { readonly depositsSettledCount: number; readonly depositsSettledMinor: bigint; readonly withdrawalsFilledMinor: bigint }
export interface HourSlips { readonly slips: number; readonly providerErrors: number }

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
  /** hoursPerDay entries from the day's start: deposits settled (still settled) and fills landed (still standing) in each hour. */
  readonly volumesByHour: readonly HourVolume[];
  /** hoursPerDay entries: orders whose (latest) slip was received in each hour, and those held for PROVIDER_UNAVAILABLE. */
  readonly slipsByHour: readonly HourSlips[];
  /** Reviews waiting, by age, one count per reviewAgeBuckets entry. */
  readonly reviewAges: readonly number[];
}

export interface DashboardScope {
  readonly livemode: boolean;
  readonly merchantId?: string;
  /** Start of the business day (ms): "today" is created_at ≥ this. */
  readonly since: number;
  /** The service clock's now (ms): what review ages are measured to. */
  readonly now: number;
}

type HourRow = { hour: number };

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
      settledByHour: db.prepare<[object], HourRow & { n: number; amount: string }>(
        `SELECT CAST((at - @since) / ${durations.hour} AS INTEGER) AS hour, count(*) AS n, CAST(sum(CAST(amount AS INTEGER)) AS TEXT) AS amount
         FROM (SELECT json_extract(state, '$.settlement.settledAt') AS at, ${big('settlement.receivedMinor')} AS amount
               FROM dl_deposits WHERE ${scope} AND status = 'settled' AND updated_at >= @since)
         WHERE at >= @since AND at < @until GROUP BY hour`),
      filledByHour: db.prepare<[object], HourRow & { amount: string }>(
        `SELECT CAST((at - @since) / ${durations.hour} AS INTEGER) AS hour, CAST(sum(CAST(amount AS INTEGER)) AS TEXT) AS amount
         FROM (SELECT json_extract(f.value, '$.settledAt') AS at, json_extract(f.value, '$.amountMinor."$bigint"') AS amount, json_extract(f.value, '$.reversal') AS reversal
               FROM wl_withdrawals w, json_each(w.state, '$.fills') f
               WHERE w.livemode = @livemode AND (@merchant IS NULL OR w.merchant_id = @merchant) AND w.updated_at >= @since)
         WHERE reversal IS NULL AND at >= @since AND at < @until GROUP BY hour`),
      slipsByHour: db.prepare<[object], HourRow & { slips: number; errors: number }>(
        `SELECT CAST((at - @since) / ${durations.hour} AS INTEGER) AS hour, count(*) AS slips,
           sum(EXISTS (SELECT 1 FROM json_each(state, '$.review.reasons') WHERE json_extract(value, '$.code') = 'PROVIDER_UNAVAILABLE')) AS errors
         FROM (SELECT json_extract(state, '$.slip.receivedAt') AS at, state FROM dl_deposits WHERE ${scope} AND updated_at >= @since)
         WHERE at >= @since AND at < @until GROUP BY hour`),
      // The bucket's index by the review's age in ms; the edges are the limits module's constants.
      reviewAges: db.prepare<[object], { bucket: number; n: number }>(
        `SELECT CASE ${backOfficeLimits.reviewAgeBucketEdgesSeconds.map((edge, i) => `WHEN age < ${edge * 1000} THEN ${i}`).join(' ')} ELSE ${backOfficeLimits.reviewAgeBucketEdgesSeconds.length} END AS bucket, count(*) AS n
         FROM (SELECT @now - json_extract(state, '$.review.openedAt') AS age FROM dl_deposits WHERE ${scope} AND status = 'under_review') GROUP BY bucket`),
    };
  }

  private hourly(p: object): { volumes: HourVolume[]; slips: HourSlips[] } {
    const volumes = Array.from({ length: hoursPerDay }, () => ({ depositsSettledCount: 0, depositsSettledMinor: 0n, withdrawalsFilledMinor: 0n }));
    const slips = Array.from({ length: hoursPerDay }, () => ({ slips: 0, providerErrors: 0 }));
    // (better-sqlite3 binds a JavaScript number as REAL, hence the CASTs to an hour index.)
    const at = (hour: number) => {
      assert(Number.isInteger(hour) && hour >= 0 && hour < hoursPerDay, () => `dashboard: hour ${hour} outside the business day`);
      return hour;
    };
    for (const r of this.s.settledByHour.all(p)) Object.assign(volumes[at(r.hour)]!, { depositsSettledCount: r.n, depositsSettledMinor: BigInt(r.amount) });
    for (const r of this.s.filledByHour.all(p)) volumes[at(r.hour)]!.withdrawalsFilledMinor = BigInt(r.amount);
    for (const r of this.s.slipsByHour.all(p)) slips[at(r.hour)] = { slips: r.slips, providerErrors: r.errors };
    return { volumes, slips };
  }

  figures(scope: DashboardScope): DashboardFigures {
    const p = { livemode: scope.livemode ? 1 : 0, merchant: scope.merchantId ?? null, since: scope.since, until: scope.since + durations.day, now: scope.now };
    const counts = (rows: { status: string; n: number; amount: string | null }[]) => rows.map((r) => ({ status: r.status, count: r.n, amountMinor: BigInt(r.amount ?? '0') }));
    const review = this.s.review.get(p)!;
    const liquidity = this.s.liquidity.get(p)!;
    const slips = this.s.slips.get(p)!;
    const hourly = this.hourly(p);
    const reviewAges = reviewAgeBuckets.map(() => 0);
    for (const r of this.s.reviewAges.all(p)) reviewAges[r.bucket] = r.n;
    return {
      depositsByStatus: counts(this.s.deposits.all(p)), withdrawalsByStatus: counts(this.s.withdrawals.all(p)),
      depositVolumeMinor: BigInt(this.s.depositVolume.get(p) ?? '0'), withdrawalFilledMinor: BigInt(this.s.withdrawalFilled.get(p) ?? '0'),
      reviewQueue: { size: review.n, oldestOpenedAt: review.oldest }, liquidityWaiting: { count: liquidity.n, amountMinor: BigInt(liquidity.amount ?? '0') },
      slipProvider: { slips: slips.slips, unavailable: slips.unavailable ?? 0 },
      volumesByHour: hourly.volumes, slipsByHour: hourly.slips, reviewAges,
    };
  }
}
