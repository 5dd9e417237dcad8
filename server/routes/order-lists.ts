// The deposit and withdrawal lists (GET /v1/pay/deposits, GET /v1/pay/withdrawals), served
// from the list projections: newest first by (created_at, id), filters status and
// updated_after, limit 1–200 (default 20), and an opaque cursor that names the last row
// and the list, merchant, mode and filters it was issued under (any other: 400
// cursor_filter_mismatch; limit may change). A list waits briefly for its projection to
// reach what the write side had committed when the request came in (read your writes),
// then answers with what it has.

import Router from '@koa/router';
import type { Context } from 'koa';
import type { Deposit } from '../../core/deposit/state.ts';
import { limits, readSideLimits } from '../../core/limits.ts';
import { presentDeposit, presentWithdrawal } from '../../core/present.ts';
import type { Withdrawal } from '../../core/withdrawal/state.ts';
import type { OrderListReads } from '../../projections/order-lists.ts';
import type { ProjectionName } from '../../projections/projection.ts';
import { merchantAuth, merchantOf, requireScope } from '../auth/merchant.ts';
import { ApiError } from '../errors.ts';
import type { Services } from '../ports.ts';
import { listDepositsQuery, listWithdrawalsQuery } from '../schemas.ts';
import { parseIso } from '../time.ts';
import { parseWith, queryOf } from './common.ts';
import { limitParam, readSideOf } from './read-params.ts';

interface ListQuery { limit?: string; status?: string; updated_after?: string; cursor?: string }

interface ListSpec<T> {
  readonly projection: ProjectionName;
  readonly validate: (data: unknown) => data is ListQuery;
  readonly reads: (services: Services) => OrderListReads<T>;
  readonly present: (state: T) => unknown;
  readonly createdAt: (state: T) => number;
  readonly id: (state: T) => string;
}

const deposits: ListSpec<Deposit> = {
  projection: 'deposit_list', validate: listDepositsQuery, reads: (s) => readSideOf(s).models.deposits,
  present: (d) => presentDeposit(d), createdAt: (d) => d.createdAt, id: (d) => d.id,
};

const withdrawals: ListSpec<Withdrawal> = {
  projection: 'withdrawal_list', validate: listWithdrawalsQuery, reads: (s) => readSideOf(s).models.withdrawals,
  present: (w) => presentWithdrawal(w), createdAt: (w) => w.createdAt, id: (w) => w.id,
};

async function listPage<T>(ctx: Context, services: Services, spec: ListSpec<T>): Promise<void> {
  const m = merchantOf(ctx);
  const query = queryOf(ctx);
  const limit = limitParam(query.limit, limits.pageSizeDefault, limits.pageSizeMax); // the reasons every list gives
  const q = parseWith(spec.validate, query);
  // A cursor is bound to its list, its merchant and mode, and its filters: a deposits
  // cursor on the withdrawals list, or another key's, is refused, never read as a position.
  const filters = JSON.stringify([spec.projection, m.merchantId, m.livemode, q.status ?? null, q.updated_after ?? null]);
  let after: { id: string; createdAt: number } | undefined;
  if (q.cursor) {
    const cursor = decodeCursor(q.cursor);
    if (cursor.f !== filters) throw new ApiError('cursor_filter_mismatch', 'This cursor was issued for another list, merchant, mode or filters; start again without a cursor.');
    after = { id: cursor.id, createdAt: cursor.t };
  }
  await readSideOf(services).caughtUp(spec.projection, services.write.world.lastSeq, readSideLimits.listFreshnessWaitMs);
  const rows = spec.reads(services).read({
    merchantId: m.merchantId, livemode: m.livemode, limit,
    ...(q.status ? { status: q.status } : {}), ...(q.updated_after ? { updatedAfter: parseIso(q.updated_after)! } : {}), ...(after ? { after } : {}),
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const hasMore = rows.length > limit;
  ctx.body = {
    object: 'list', data: page.map(spec.present), has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor({ id: spec.id(last), t: spec.createdAt(last), f: filters }) : null,
  };
}

/** GET /v1/pay/deposits (mounted by the deposits router). */
export function listDeposits(ctx: Context, services: Services): Promise<void> {
  return listPage(ctx, services, deposits);
}

/** GET /v1/pay/withdrawals (scope withdrawals:read for live keys). */
export function withdrawalListRoutes(services: Services): Router {
  const router = new Router({ prefix: '/v1/pay/withdrawals', sensitive: true });
  router.use(merchantAuth(services));
  router.get('/', async (ctx) => {
    requireScope(ctx, 'withdrawals:read');
    await listPage(ctx, services, withdrawals);
  });
  return router;
}

interface Cursor { id: string; t: number; f: string }

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function decodeCursor(raw: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor;
    if (typeof c.id === 'string' && typeof c.t === 'number' && typeof c.f === 'string') return c;
  } catch { /* falls through to the refusal */ }
  throw new ApiError('validation_error', 'cursor is not one this API issued.', { fields: [{ path: 'query.cursor', reason: 'invalid' }] });
}
