// GET /v1/pay/balance/transactions (contract: Balance history, merchant_balance_history_v1),
// served from the balance history projection. Live keys need wallet:read.
//
// One snapshot: the projection's account and rows are read in one read transaction and
// compared, in the same turn of the event loop, with the authoritative balances of the
// write side. History is ready only when the projection has applied everything the write
// side had committed when the request came in and its totals equal those balances; the
// request waits up to historyFreshnessWaitMs for that, then answers 503
// history_not_ready (Retry-After 1) — sandbox: 503 sandbox_balance_history_not_ready.
//
// Order of refusals: parameters (validation_error) → sandbox quota (sandbox_rate_limited)
// → sandbox run (sandbox_run_changed) → readiness (503) → since_sequence ahead of the
// checkpoint (invalid_cursor) → sandbox since_sequence below retention
// (sandbox_history_cursor_expired). Sandbox answers carry no Retry-After.

import Router from '@koa/router';
import type { Context } from 'koa';
import { sandboxRunGenerationOf } from '../../core/directory.ts';
import type { Balances } from '../../core/ledger/ledger.ts';
import { limits, readSideLimits } from '../../core/limits.ts';
import { balanceTransactionIdOf, iso } from '../../core/present.ts';
import { sandboxDeltas, type HistoryRow, type HistorySnapshot } from '../../projections/balance-history.ts';
import { requireScope, merchantAuth, type MerchantState } from '../auth/merchant.ts';
import { ApiError } from '../errors.ts';
import type { Services } from '../ports.ts';
import { RateLimiter, rateLimitHeaders } from '../rate-limit.ts';
import { limitParam, readQuery, readSideOf, runGenerationParam, sequenceParam } from './read-params.ts';

export const balanceHistoryContract = 'merchant_balance_history_v1';
export const balanceHistorySchemaVersion = 1;

function decimalDeltas(b: Balances): Record<string, string> {
  return { available_minor: b.availableMinor.toString(), pending_clearing_minor: b.pendingClearingMinor.toString(), reserved_minor: b.reservedMinor.toString() };
}

function sameBalances(a: Balances, b: Balances): boolean {
  return a.availableMinor === b.availableMinor && a.pendingClearingMinor === b.pendingClearingMinor && a.reservedMinor === b.reservedMinor;
}

function presentRow(row: HistoryRow, livemode: boolean): Record<string, unknown> {
  return {
    id: balanceTransactionIdOf(row.id, livemode),
    object: 'balance_transaction', sequence: row.sequence.toString(), currency: 'THB', created_at: iso(row.createdAt),
    bucket_deltas: decimalDeltas(livemode ? row.deltas : sandboxDeltas(row.deltas)),
  };
}

interface Consistent {
  readonly snapshot: HistorySnapshot;
  readonly ready: boolean;
}

/** Reads snapshots until one agrees with the write side, or the wait is over. */
async function consistentSnapshot(services: Services, m: MerchantState, since: bigint, limit: number, retainedFromMs: number | null): Promise<Consistent> {
  const read = readSideOf(services);
  const deadline = performance.now() + readSideLimits.historyFreshnessWaitMs;
  for (;;) {
    const target = services.write.world.lastSeq;
    await read.caughtUp('balance_history', target, Math.max(0, deadline - performance.now()));
    // From here to the comparison nothing awaits: the snapshot and the balances are of one moment.
    const snapshot = read.models.balanceHistory.snapshot(m.merchantId, m.livemode, since, limit, retainedFromMs);
    const world = services.write.world;
    const merchant = world.merchants.get(m.merchantId);
    const runAgrees = m.livemode || (merchant !== undefined && snapshot.account.runGeneration === sandboxRunGenerationOf(merchant));
    const ready = snapshot.position >= target && runAgrees && sameBalances(snapshot.account.totals, world.balances(m.merchantId, m.livemode));
    if (ready || performance.now() >= deadline) return { snapshot, ready };
    await new Promise((resolve) => setTimeout(resolve, readSideLimits.freshnessPollMs));
  }
}

export function balanceHistoryRoutes(services: Services): Router {
  const router = new Router({ prefix: '/v1/pay/balance/transactions', sensitive: true });
  router.use(merchantAuth(services));
  const sandboxQuota = new RateLimiter();

  router.get('/', async (ctx: Context) => {
    const m = requireScope(ctx, 'wallet:read');
    const q = readQuery(ctx, m.livemode ? ['limit', 'since_sequence'] : ['limit', 'since_sequence', 'run_generation']);
    const limit = limitParam(q.limit, limits.pageSizeDefault, limits.balanceHistoryPageSizeMax);
    const since = sequenceParam(q.since_sequence);
    const runGeneration = runGenerationParam(q.run_generation);
    if (!m.livemode && since > 0n && runGeneration === undefined) {
      throw new ApiError('validation_error', 'A positive since_sequence needs the run_generation it belongs to.', { fields: [{ path: 'query.run_generation', reason: 'required' }] });
    }
    if (m.livemode) {
      const { snapshot, ready } = await consistentSnapshot(services, m, since, limit, null);
      if (!ready) throw new ApiError('history_not_ready', 'Balance history is catching up with the ledger; retry with the same since_sequence.', undefined, 1);
      ctx.body = page(snapshot, since, true, services);
      return;
    }

    const now = services.write.clock.now();
    const quota = sandboxQuota.take('sandbox_history', m.key.keyId, services.securityClock.now()); // a rate limit: wall clock
    // The headers speak of the bucket that answers (not pay_read's), without Retry-After: sandbox answers carry none.
    const { 'Retry-After': _retryAfter, ...quotaHeaders } = rateLimitHeaders(quota, 'sandbox_history');
    (ctx.state as { rateLimitHeaders?: Record<string, string> }).rateLimitHeaders = quotaHeaders;
    if (!quota.allowed) throw new ApiError('sandbox_rate_limited', undefined, { bucket: 'sandbox_history', scope: 'api_key' });
    const merchant = services.write.world.merchants.get(m.merchantId)!;
    const current = sandboxRunGenerationOf(merchant);
    // A run not yet begun was never handed out: a bad parameter, not a run that changed.
    if (runGeneration !== undefined && runGeneration > current) {
      throw new ApiError('validation_error', `run_generation ${runGeneration} has not begun: the sandbox run is ${current}.`, { fields: [{ path: 'query.run_generation', reason: 'maximum', hint: `at most ${current}, the current run` }] });
    }
    if (runGeneration !== undefined && runGeneration !== current) {
      throw new ApiError('sandbox_run_changed', `The sandbox run is now ${current} (this request named ${runGeneration}): restart from sequence 0 with run_generation ${current}, or without run_generation.`, { run_generation: runGeneration, current_run_generation: current });
    }
    const { snapshot, ready } = await consistentSnapshot(services, m, since, limit, now - readSideLimits.sandboxHistoryRetentionMs);
    if (!ready) throw new ApiError('sandbox_balance_history_not_ready');
    if (since > 0n && since < snapshot.retentionFloor) {
      throw new ApiError('sandbox_history_cursor_expired', undefined, { run_generation: current, min_since_sequence: snapshot.retentionFloor.toString() });
    }
    ctx.body = page(snapshot, since, false, services);
  });
  return router;
}

function page(snapshot: HistorySnapshot, since: bigint, livemode: boolean, services: Services): Record<string, unknown> {
  const { account, rows } = snapshot;
  if (since > account.lastSequence) {
    throw new ApiError('invalid_cursor', `since_sequence ${since} is ahead of the checkpoint ${account.lastSequence}.`, { checkpoint_sequence: account.lastSequence.toString() });
  }
  const last = rows[rows.length - 1];
  const totals = livemode ? account.totals : sandboxDeltas(account.totals);
  const opening = account.opening;
  const complete = opening.availableMinor === 0n && opening.pendingClearingMinor === 0n && opening.reservedMinor === 0n && snapshot.retentionFloor === 0n;
  return {
    contract: balanceHistoryContract, schema_version: balanceHistorySchemaVersion, livemode,
    ...(livemode ? {} : { environment: 'sandbox', run_generation: account.runGeneration }),
    currency: 'THB',
    data: rows.map((r) => presentRow(r, livemode)),
    has_more: snapshot.hasMore,
    next_sequence: (last ? last.sequence : since).toString(),
    checkpoint: { sequence: account.lastSequence.toString(), ...decimalDeltas(totals) },
    ...(livemode ? {} : {
      coverage: { state: complete ? 'complete' : 'partial', retention_days: readSideLimits.sandboxHistoryRetentionDays, min_since_sequence: snapshot.retentionFloor.toString() },
    }),
    as_of: iso(services.write.clock.now()),
  };
}
