// Back-office reads: the dashboard (replica aggregates from the projections, each figure
// with its as_of and the journal position it reflects; webhook failure rates from the
// delivery store), the wallet (the same numbers as the merchant's balance, from the write
// side's ledger), a merchant's balance transactions (bo-balance-transactions.ts), and the
// merchant and white-label directories with search, and support's search for orders and
// claims by id or reference (bo-search.ts).

import Router from '@koa/router';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { durations, limits, readSideLimits } from '../../core/limits.ts';
import { proposalWaiting, type WhiteLabel } from '../../core/directory.ts';
import { iso, maskAccountNumber, presentBalances } from '../../core/present.ts';
import type { Db } from '../../adapters/sqlite/schema.ts';
import { projectionsFileName } from '../../projections/db.ts';
import { DashboardReads, reviewAgeBuckets, type DashboardFigures, type StatusCount } from '../../projections/dashboard.ts';
import { operatorAuth } from '../auth/operator.ts';
import { ApiError } from '../errors.ts';
import type { Services } from '../ports.ts';
import { notFound, presentFeeSchedule, presentFeeScheduleProposal } from './common.ts';
import { booleanParam, readQuery, readSideOf } from './read-params.ts';
import { pageOf } from './bo-desk.ts';
import { registerBalanceTransactions } from './bo-balance-transactions.ts';
import { registerSearch } from './bo-search.ts';
import { redactWebhookUrl } from '../secret-text.ts';
import type { Sealer } from '../../adapters/sealing.ts';
import { wholeUrl } from '../../adapters/webhooks/endpoints.ts';
import { decode } from '../../core/journal.ts';

/** Thailand keeps UTC+7 all year: the business day starts at 00:00 in Bangkok. */
const bangkokOffsetMs = 7 * durations.hour;
export const businessDayStart = (now: number) => Math.floor((now + bangkokOffsetMs) / durations.day) * durations.day - bangkokOffsetMs;

const n = (minor: bigint) => Number(minor);
const statusRows = (rows: readonly StatusCount[]) => rows.map((r) => ({ status: r.status, count: r.count, amount_minor: n(r.amountMinor) }));

/**
 * Per endpoint, its health (why it is disabled or flagged, since when it fails and how many
 * failures since its last success: every dashboard reader sees them, finance too) and the
 * deliveries created in the window by status: delivered + failed + pending + canceled = deliveries.
 */
function webhookHealth(journalDb: Db, sealer: Sealer) {
  const s = journalDb.prepare<[{ since: number; livemode: number; merchant: string | null }], {
    endpoint_id: string; merchant_id: string; url: string; url_sealed: string | null; status: string; disabled_reason: string | null; flagged_at: number | null; failing_since: number | null;
    failures_since: number; last_success_at: number | null; total: number; delivered: number; failed: number; pending: number; canceled: number;
  }>(
    `SELECT e.id AS endpoint_id, e.merchant_id, e.url, e.url_sealed, e.status, e.disabled_reason, e.flagged_at, e.failing_since, e.failures_since, e.last_success_at,
       count(d.id) AS total, coalesce(sum(d.status = 'delivered'), 0) AS delivered,
       coalesce(sum(d.status = 'failed'), 0) AS failed, coalesce(sum(d.status = 'pending'), 0) AS pending, coalesce(sum(d.status = 'canceled'), 0) AS canceled
     FROM webhook_endpoints e LEFT JOIN webhook_deliveries d ON d.endpoint_id = e.id AND d.created_at >= @since
     WHERE e.livemode = @livemode AND (@merchant IS NULL OR e.merchant_id = @merchant) GROUP BY e.id ORDER BY e.id`);
  return (since: number, livemode: boolean, merchantId: string | undefined) => s.all({ since, livemode: livemode ? 1 : 0, merchant: merchantId ?? null }).map((r) => ({
    endpoint_id: r.endpoint_id, merchant_id: r.merchant_id, url: redactWebhookUrl(wholeUrl({ id: r.endpoint_id, url: r.url, url_sealed: r.url_sealed }, sealer)), status: r.status, // every dashboard reader: a secret path or ?token= is no health figure
    disabled_reason: r.disabled_reason, flagged: r.flagged_at !== null, failing_since: r.failing_since === null ? null : iso(r.failing_since),
    failed_attempts_since_last_success: r.failures_since, last_success_at: r.last_success_at === null ? null : iso(r.last_success_at),
    deliveries: r.total, delivered: r.delivered, failed: r.failed, pending: r.pending, canceled: r.canceled,
    failure_rate: r.delivered + r.failed === 0 ? null : r.failed / (r.delivered + r.failed),
  }));
}

/** The day's hourly series, each hour named by its start (UTC). */
function hourlySeries(f: DashboardFigures, since: number) {
  const hourStart = (i: number) => iso(since + i * durations.hour);
  return {
    volumes: f.volumesByHour.map((h, i) => ({ hour_start: hourStart(i), deposits_settled_count: h.depositsSettledCount, deposits_settled_minor: n(h.depositsSettledMinor), withdrawals_filled_minor: n(h.withdrawalsFilledMinor) })),
    slips: f.slipsByHour.map((h, i) => ({ hour_start: hourStart(i), slips: h.slips, provider_errors: h.providerErrors })),
  };
}

const ageBuckets = (counts: readonly number[]) => reviewAgeBuckets.map((b, i) => ({ label: b.label, min_seconds: b.minSeconds, max_seconds: b.maxSeconds, count: counts[i]! }));

/** `sealer` opens a webhook endpoint's sealed URL (read with the dashboard's endpoints), for the dashboard to redact as every operator view does. */
export function backOfficeReadRoutes(services: Services, journalDb: Db, dataDir: string, verify: Parameters<typeof operatorAuth>[0], sealer: Sealer): { router: Router; close(): void } {
  const router = new Router({ prefix: '/v1/bo', sensitive: true });
  router.use(operatorAuth(verify));
  // A read-only connection of our own to the projections (in NATS mode another process writes them).
  const projections = new Database(join(dataDir, projectionsFileName), { readonly: true, fileMustExist: true });
  const dashboard = new DashboardReads(projections);
  const webhooks = webhookHealth(journalDb, sealer);
  const world = () => services.write.world;

  router.get('/dashboard', async (ctx) => {
    const q = readQuery(ctx, ['livemode', 'merchant_id']);
    const livemode = booleanParam(q.livemode, 'livemode') ?? true;
    // An unknown merchant is not a merchant with an empty day: 404, as the wallet answers.
    if (q.merchant_id !== undefined && !world().merchants.has(q.merchant_id)) throw notFound('merchant');
    const readSide = readSideOf(services);
    // Read your writes, briefly, as the lists do; then answer with what the replica has.
    await Promise.all([readSide.caughtUp('deposit_list', world().lastSeq, readSideLimits.listFreshnessWaitMs), readSide.caughtUp('withdrawal_list', world().lastSeq, readSideLimits.listFreshnessWaitMs)]);
    const now = services.write.clock.now();
    const since = businessDayStart(now);
    const f = dashboard.figures({ livemode, since, now, ...(q.merchant_id !== undefined ? { merchantId: q.merchant_id } : {}) });
    const asOf = { as_of: iso(now), journal_seq: Math.min(readSide.models.position('deposit_list'), readSide.models.position('withdrawal_list')) };
    const hourly = hourlySeries(f, since);
    ctx.body = {
      object: 'dashboard', livemode, merchant_id: q.merchant_id ?? null, day_started_at: iso(since),
      orders_today: { deposits: statusRows(f.depositsByStatus), withdrawals: statusRows(f.withdrawalsByStatus), ...asOf },
      volumes_today: { deposits_received_minor: n(f.depositVolumeMinor), withdrawals_filled_minor: n(f.withdrawalFilledMinor), ...asOf },
      volumes_by_hour: { hours: hourly.volumes, ...asOf },
      review_queue: {
        size: f.reviewQueue.size, oldest_age_seconds: f.reviewQueue.oldestOpenedAt === null ? null : Math.max(0, Math.floor((now - f.reviewQueue.oldestOpenedAt) / 1000)),
        age_buckets: ageBuckets(f.reviewAges), ...asOf,
      },
      liquidity_waiting: { deposits: f.liquidityWaiting.count, amount_minor: n(f.liquidityWaiting.amountMinor), ...asOf },
      webhooks_last_24h: { endpoints: webhooks(now - durations.day, livemode, q.merchant_id), as_of: iso(now) },
      slip_provider_today: { slips: f.slipProvider.slips, provider_unavailable: f.slipProvider.unavailable, error_rate: f.slipProvider.slips === 0 ? null : f.slipProvider.unavailable / f.slipProvider.slips, ...asOf },
      slip_provider_by_hour: { hours: hourly.slips, ...asOf },
    };
  });

  router.get('/wallet', (ctx) => {
    const q = readQuery(ctx, ['merchant_id', 'livemode']);
    if (q.merchant_id === undefined) throw new ApiError('validation_error', 'merchant_id is required.', { fields: [{ path: 'query.merchant_id', reason: 'required' }] });
    const m = world().merchants.get(q.merchant_id);
    if (!m) throw notFound('merchant');
    const livemode = booleanParam(q.livemode, 'livemode') ?? true;
    ctx.body = { object: 'wallet', merchant_id: m.id, livemode, ...presentBalances(world().balances(m.id, livemode)), currency: 'THB', as_of: iso(services.write.clock.now()) };
  });

  registerBalanceTransactions(router, services, journalDb);
  registerSearch(router, services, projections);

  // Who suspended a merchant, when and why: from its last MerchantSuspensionChanged (the next shift's question).
  const lastSuspension = journalDb.prepare<[string], string>("SELECT data FROM journal WHERE stream = ? AND type = 'MerchantSuspensionChanged' ORDER BY seq DESC LIMIT 1").pluck(true);
  const suspensionOf = (merchantId: string) => {
    const data = lastSuspension.get(merchantId);
    if (data === undefined) return null;
    const e = decode<{ at: number; operatorId?: string; reason?: string }>(data);
    return { at: iso(e.at), by: e.operatorId ?? null, reason: e.reason ?? null };
  };

  router.get('/merchants', (ctx) => {
    const q = readQuery(ctx, ['q', 'white_label_id', 'suspended', 'cursor', 'limit']);
    const suspended = booleanParam(q.suspended, 'suspended');
    const needle = q.q?.toLowerCase();
    const rows = [...world().merchants.values()].filter((m) => (needle === undefined || m.name.toLowerCase().includes(needle) || m.id.toLowerCase() === needle)
      && (q.white_label_id === undefined || m.whiteLabelId === q.white_label_id) && (suspended === undefined || m.suspended === suspended));
    const { page, hasMore, next } = pageOf(rows, (m) => ({ since: m.createdAt, id: m.id }), q, JSON.stringify(['merchants', needle ?? null, q.white_label_id ?? null, suspended ?? null]));
    ctx.body = {
      object: 'list', has_more: hasMore, next_cursor: next,
      data: page.map((m) => ({ id: m.id, object: 'merchant', name: m.name, white_label_id: m.whiteLabelId, suspended: m.suspended, suspension: m.suspended ? suspensionOf(m.id) : null, created_at: iso(m.createdAt) })),
    };
  });

  /** A white label as the directory shows it: its merchants, its gateway route and fee schedule in force, and what waits for approval. */
  const whiteLabelRow = (w: WhiteLabel) => {
    const now = services.write.clock.now();
    const merchants = [...world().merchants.values()].filter((m) => m.whiteLabelId === w.id).length;
    // The route with whether it still serves; a proposal only while it may still be approved.
    const r = w.gatewayRoute, p = w.gatewayRouteProposal, f = w.feeScheduleProposal;
    const route = r ? { bank_code: r.bankCode, account_number_masked: maskAccountNumber(r.accountNumber), expires_at: iso(r.expiresAt), status: now < r.expiresAt ? 'active' : 'expired' } : null;
    const routeWaiting = proposalWaiting(p, limits.gatewayRouteProposalTtlMs, now) ? {
      bank_code: p.bankCode, account_number_masked: maskAccountNumber(p.accountNumber), proposed_by: p.proposedBy, proposed_at: iso(p.proposedAt), approve_by: iso(p.proposedAt + limits.gatewayRouteProposalTtlMs),
    } : null;
    const feesWaiting = proposalWaiting(f, limits.feeScheduleProposalTtlMs, now) ? presentFeeScheduleProposal(w.id, f) : null;
    return {
      id: w.id, object: 'white_label', name: w.name, merchants,
      gateway_route: route, gateway_route_proposal: routeWaiting,
      fee_schedule: presentFeeSchedule(w.id, w), fee_schedule_proposal: feesWaiting, created_at: iso(w.createdAt),
    };
  };

  router.get('/white-labels', (ctx) => {
    const q = readQuery(ctx, ['q', 'cursor', 'limit']);
    const needle = q.q?.toLowerCase();
    const rows = [...world().whiteLabels.values()].filter((w) => needle === undefined || w.name.toLowerCase().includes(needle) || w.id.toLowerCase() === needle);
    const { page, hasMore, next } = pageOf(rows, (w) => ({ since: w.createdAt, id: w.id }), q, JSON.stringify([needle ?? null]));
    ctx.body = { object: 'list', has_more: hasMore, next_cursor: next, data: page.map(whiteLabelRow) };
  });

  // One white label, as the directory lists it; 404 resource_not_found for an id that names none (satang admin fees show).
  router.get('/white-labels/:id', (ctx) => {
    readQuery(ctx, []);
    const w = world().whiteLabels.get(ctx.params.id!);
    if (!w) throw notFound('white label');
    ctx.body = whiteLabelRow(w);
  });

  return { router, close: () => projections.close() };
}
