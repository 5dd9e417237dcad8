// The back-office dashboard's reads (GET /v1/bo/dashboard): aggregates over the deposit
// and withdrawal list projections (dl_deposits, wl_withdrawals), so the figures are a
// replica's, rebuildable from the journal like every projection, and never used for a
// money decision (contract: "replica-based aggregates"). Each figure says the journal
// position it reflects. Read-only; amounts are core's encode() of bigints in the stored
// state, summed as bigint (deposits, in one pass folded here) or as SQLite integers turned
// to decimal text (withdrawals), so no float ever touches them.
//
// The hourly series split the business day into its 24 hours by when a thing happened (a
// deposit's settled_at, a fill's settled_at, a slip's received_at), where the *_today
// figures count orders created today; an order's updated_at is never before any of those
// instants, so `updated_at >= day start` (or a waiting status) picks the rows before any
// JSON is read, and each deposit's state is read once for every figure.

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

type Counted = { status: string; n: number; amount: string | null };

/** What the dashboard reads of one deposit: a few fields of its state, extracted in one pass. */
interface DepositFacts {
  readonly status: string;
  readonly created_at: number;
  readonly amount: string;
  readonly received: string | null;
  readonly settled_at: number | null;
  readonly opened_at: number | null;
  readonly slip_at: number | null;
  /** review.reasons as JSON text, when the deposit has a review. */
  readonly reasons: string | null;
}

const providerUnavailable = 'PROVIDER_UNAVAILABLE';
const heldForProvider = (reasons: string | null) =>
  reasons !== null && reasons.includes(providerUnavailable) && (JSON.parse(reasons) as { code: string }[]).some((r) => r.code === providerUnavailable);

/** The hour of the business day (0 to hoursPerDay − 1) `at` falls in, or undefined outside it. */
function hourOf(at: number | null, since: number): number | undefined {
  if (at === null || at < since || at >= since + durations.day) return undefined;
  return Math.floor((at - since) / durations.hour);
}

/** The review-age bucket of a review opened at `openedAt`. */
function ageBucketOf(openedAt: number, now: number): number {
  const ageMs = now - openedAt;
  const i = backOfficeLimits.reviewAgeBucketEdgesSeconds.findIndex((edge) => ageMs < edge * 1000);
  return i === -1 ? backOfficeLimits.reviewAgeBucketEdgesSeconds.length : i;
}

export class DashboardReads {
  private readonly s;

  constructor(db: ProjectionsDb) {
    const scope = 'livemode = @livemode AND (@merchant IS NULL OR merchant_id = @merchant)';
    this.s = {
      // One pass over the deposits the day's figures can involve: touched today (created,
      // settled or slipped today are all touched today), or still waiting (review, liquidity).
      // The state is parsed once per row (SQLite reuses the parse across the json_extracts).
      deposits: db.prepare<[object], DepositFacts>(
        `SELECT status, created_at, ${big('amountMinor')} AS amount, ${big('settlement.receivedMinor')} AS received,
           json_extract(state, '$.settlement.settledAt') AS settled_at, json_extract(state, '$.review.openedAt') AS opened_at,
           json_extract(state, '$.slip.receivedAt') AS slip_at, json_extract(state, '$.review.reasons') AS reasons
         FROM dl_deposits WHERE ${scope} AND (updated_at >= @since OR status IN ('under_review', 'awaiting_liquidity'))`),
      withdrawals: db.prepare<[object], Counted>(
        `SELECT status, count(*) AS n, CAST(sum(CAST(${big('amountTotalMinor')} AS INTEGER)) AS TEXT) AS amount FROM wl_withdrawals WHERE ${scope} AND created_at >= @since GROUP BY status ORDER BY status`),
      withdrawalFilled: db.prepare<[object], string | null>(
        `SELECT CAST(sum(CAST(${big('filledMinor')} AS INTEGER)) AS TEXT) FROM wl_withdrawals WHERE ${scope} AND created_at >= @since`).pluck(true),
      // (better-sqlite3 binds a JavaScript number as REAL, hence the CAST to an hour index.)
      filledByHour: db.prepare<[object], { hour: number; amount: string }>(
        `SELECT CAST((at - @since) / ${durations.hour} AS INTEGER) AS hour, CAST(sum(CAST(amount AS INTEGER)) AS TEXT) AS amount
         FROM (SELECT json_extract(f.value, '$.settledAt') AS at, json_extract(f.value, '$.amountMinor."$bigint"') AS amount, json_extract(f.value, '$.reversal') AS reversal
               FROM wl_withdrawals w, json_each(w.state, '$.fills') f
               WHERE w.livemode = @livemode AND (@merchant IS NULL OR w.merchant_id = @merchant) AND w.updated_at >= @since)
         WHERE reversal IS NULL AND at >= @since AND at < @until GROUP BY hour`),
    };
  }

  /** Everything the deposits say, folded from their facts. */
  private depositFigures(p: object, scope: DashboardScope): Omit<DashboardFigures, 'withdrawalsByStatus' | 'withdrawalFilledMinor'> {
    const byStatus = new Map<string, { count: number; amountMinor: bigint }>();
    let volume = 0n;
    const review = { size: 0, oldestOpenedAt: null as number | null };
    const liquidity = { count: 0, amountMinor: 0n };
    const slipProvider = { slips: 0, unavailable: 0 };
    const volumesByHour = Array.from({ length: hoursPerDay }, () => ({ depositsSettledCount: 0, depositsSettledMinor: 0n, withdrawalsFilledMinor: 0n }));
    const slipsByHour = Array.from({ length: hoursPerDay }, () => ({ slips: 0, providerErrors: 0 }));
    const reviewAges = reviewAgeBuckets.map(() => 0);
    for (const d of this.s.deposits.all(p)) {
      const settled = d.status === 'settled';
      const providerError = d.slip_at !== null && heldForProvider(d.reasons);
      if (d.created_at >= scope.since) {
        const g = byStatus.get(d.status) ?? { count: 0, amountMinor: 0n };
        byStatus.set(d.status, { count: g.count + 1, amountMinor: g.amountMinor + BigInt(d.amount) });
        if (settled) volume += BigInt(d.received!);
        if (d.slip_at !== null) { slipProvider.slips++; if (providerError) slipProvider.unavailable++; }
      }
      if (d.status === 'under_review') {
        review.size++;
        review.oldestOpenedAt = Math.min(review.oldestOpenedAt ?? d.opened_at!, d.opened_at!);
        reviewAges[ageBucketOf(d.opened_at!, scope.now)]!++;
      }
      if (d.status === 'awaiting_liquidity') { liquidity.count++; liquidity.amountMinor += BigInt(d.amount); }
      const settledHour = settled ? hourOf(d.settled_at, scope.since) : undefined;
      if (settledHour !== undefined) { volumesByHour[settledHour]!.depositsSettledCount++; volumesByHour[settledHour]!.depositsSettledMinor += BigInt(d.received!); }
      const slipHour = hourOf(d.slip_at, scope.since);
      if (slipHour !== undefined) { slipsByHour[slipHour]!.slips++; if (providerError) slipsByHour[slipHour]!.providerErrors++; }
    }
    const depositsByStatus = [...byStatus.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([status, g]) => ({ status, ...g }));
    return { depositsByStatus, depositVolumeMinor: volume, reviewQueue: review, liquidityWaiting: liquidity, slipProvider, volumesByHour, slipsByHour, reviewAges };
  }

  figures(scope: DashboardScope): DashboardFigures {
    const p = { livemode: scope.livemode ? 1 : 0, merchant: scope.merchantId ?? null, since: scope.since, until: scope.since + durations.day };
    const deposits = this.depositFigures(p, scope);
    const filled = new Map<number, bigint>();
    for (const r of this.s.filledByHour.all(p)) {
      assert(Number.isInteger(r.hour) && r.hour >= 0 && r.hour < hoursPerDay, () => `dashboard: hour ${r.hour} outside the business day`);
      filled.set(r.hour, BigInt(r.amount));
    }
    return {
      ...deposits,
      volumesByHour: deposits.volumesByHour.map((h, i) => ({ ...h, withdrawalsFilledMinor: filled.get(i) ?? 0n })),
      withdrawalsByStatus: this.s.withdrawals.all(p).map((r) => ({ status: r.status, count: r.n, amountMinor: BigInt(r.amount ?? '0') })),
      withdrawalFilledMinor: BigInt(this.s.withdrawalFilled.get(p) ?? '0'),
    };
  }
}
