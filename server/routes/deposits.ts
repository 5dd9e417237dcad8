// /v1/pay/deposits: create (201 matched / 202 awaiting liquidity), get, list with cursor,
// cancel, slip-token, and the slip image bytes. Thin: validate, build the command, let
// the core decide, present.

import Router from '@koa/router';
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { Deposit } from '../../core/deposit/state.ts';
import { limits } from '../../core/limits.ts';
import { iso, presentDeposit } from '../../core/present.ts';
import { promptPayPayload } from '../../core/qr.ts';
import { merchantAuth, merchantOf } from '../auth/merchant.ts';
import type { CapabilitySigner } from '../capability.ts';
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import { runIdempotent } from '../idempotency.ts';
import type { Services } from '../ports.ts';
import { cancelBody, createDepositBody, listDepositsQuery, emptyQuery } from '../schemas.ts';
import { parseIso } from '../time.ts';
import { amountOf, bodyOf, merchantScope, notFound, parseWith, queryOf } from './common.ts';

export const slipMaxBytes = 5 * 1024 * 1024;
export const slipContentTypes = ['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif', 'application/json'];
export const apiVersion = '2026-08-01';

export function depositRoutes(services: Services, config: Config, capability: CapabilitySigner): Router {
  const router = new Router({ prefix: '/v1/pay/deposits' });
  router.use(merchantAuth(services));

  const visible = (ctx: Context, id: string): Deposit => {
    const m = merchantOf(ctx);
    const d = services.write.world.deposits.get(id);
    if (!d || d.merchantId !== m.merchantId || d.livemode !== m.livemode) throw notFound('deposit');
    return d;
  };

  const slipUpload = (d: Deposit) => {
    const uploadUrl = `${config.uploadUrl}/v1/pay/deposits/${d.id}/slip`;
    const expiresAt = d.expiresAt + limits.lateSlipWindowMs;
    // Every claim derives from the order's state, so the same order version yields the
    // same token bytes: a slip-token retry under its Idempotency-Key gets the same answer.
    const token = capability.issue({
      aud: 'pg-slip-ingest', scope: 'slip:write', tenant: d.merchantId, livemode: d.livemode, deposit_id: d.id, htu: uploadUrl,
      rate_subject: createHash('sha256').update(`${d.merchantId}:${d.endUserRef}`).digest('hex').slice(0, 32),
      api_version: apiVersion, hold_until: d.expiresAt, iat: Math.floor(d.updatedAt / 1000), exp: Math.floor(expiresAt / 1000),
    });
    return { token, expires_at: iso(expiresAt), upload_url: uploadUrl, max_bytes: slipMaxBytes, content_types: slipContentTypes };
  };

  const withQr = (d: Deposit) => presentDeposit(d, { qrPayload: (leg) => promptPayPayload(leg.receiver.accountNumber, leg.amountMinor) });

  router.post('/', async (ctx) => {
    const m = merchantOf(ctx);
    const body = parseWith(createDepositBody, bodyOf(ctx));
    if (body.sender && body.sender_id) throw new ApiError('validation_error', 'Give either sender or sender_id, not both.', { fields: [{ path: 'sender_id', reason: 'conflict' }] });
    const metadataProblem = Object.entries(body.metadata ?? {}).find(([, v]) => Buffer.byteLength(v) > limits.metadataValueBytesMax);
    if (metadataProblem) throw new ApiError('validation_error', `metadata.${metadataProblem[0]} is over ${limits.metadataValueBytesMax} bytes.`, { fields: [{ path: `metadata.${metadataProblem[0]}`, reason: 'too_long' }] });
    const hasClientData = body.client !== undefined && Object.keys(body.client).length > 0;
    await runIdempotent(ctx, services, merchantScope(m), {
      type: 'CreateDeposit', actor: { kind: 'merchant', merchantId: m.merchantId, livemode: m.livemode },
      amountMinor: amountOf(body.amount_minor), merchantReference: body.merchant_reference, endUserRef: body.end_user_ref, hasClientData,
      ...(body.sender ? { sender: { bankCode: body.sender.bank_code, accountNumber: body.sender.account_number, accountNameTh: body.sender.account_name_th, ...(body.sender.account_name_en ? { accountNameEn: body.sender.account_name_en } : {}) } } : {}),
      ...(body.sender_id !== undefined ? { senderId: body.sender_id } : {}),
      ...(body.fill_preference ? { fillPreference: body.fill_preference } : {}),
      ...(body.expires_in_seconds !== undefined ? { expiresInSeconds: body.expires_in_seconds } : {}),
      ...(body.min_ttl_seconds !== undefined ? { minTtlSeconds: body.min_ttl_seconds } : {}),
      ...(body.metadata ? { metadata: body.metadata } : {}), ...(body.return_url ? { returnUrl: body.return_url } : {}),
    }, (id) => {
      const d = services.write.world.deposits.get(id!)!;
      if (d.status === 'awaiting_liquidity') return { status: 202, body: presentDeposit(d) };
      return { status: 201, body: { ...withQr(d), slip_upload: slipUpload(d) } };
    });
  });

  router.get('/', (ctx) => {
    const m = merchantOf(ctx);
    const q = parseWith(listDepositsQuery, queryOf(ctx));
    const limit = Number(q.limit ?? limits.pageSizeDefault);
    if (limit > limits.pageSizeMax) throw new ApiError('validation_error', `limit must be 1–${limits.pageSizeMax}.`, { fields: [{ path: 'query.limit', reason: 'maximum' }] });
    const updatedAfter = q.updated_after ? parseIso(q.updated_after)! : undefined;
    const filters = JSON.stringify([q.status ?? null, q.updated_after ?? null]);
    let after: { id: string; createdAt: number } | undefined;
    if (q.cursor) {
      const cursor = decodeCursor(q.cursor);
      if (cursor.f !== filters) throw new ApiError('cursor_filter_mismatch', 'The filters changed since this cursor was issued; start again without a cursor.');
      after = { id: cursor.id, createdAt: cursor.t };
    }
    const rows: Deposit[] = [];
    for (const d of services.write.world.deposits.values()) {
      if (d.merchantId !== m.merchantId || d.livemode !== m.livemode) continue;
      if (q.status && d.status !== q.status) continue;
      if (updatedAfter !== undefined && d.updatedAt <= updatedAfter) continue;
      if (after && !(d.createdAt < after.createdAt || (d.createdAt === after.createdAt && d.id < after.id))) continue;
      rows.push(d);
    }
    rows.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const hasMore = rows.length > limit;
    ctx.body = { object: 'list', data: page.map((d) => presentDeposit(d)), has_more: hasMore, next_cursor: hasMore && last ? encodeCursor({ id: last.id, t: last.createdAt, f: filters }) : null };
  });

  router.get('/:id', (ctx) => {
    emptyQuery(queryOf(ctx));
    ctx.body = withQr(visible(ctx, ctx.params.id!));
  });

  router.post('/:id/cancel', async (ctx) => {
    const m = merchantOf(ctx);
    cancelBody(bodyOf(ctx));
    const d = visible(ctx, ctx.params.id!);
    await runIdempotent(ctx, services, merchantScope(m), { type: 'CancelDeposit', actor: { kind: 'merchant', merchantId: m.merchantId, livemode: m.livemode }, depositId: d.id },
      () => ({ status: 200, body: presentDeposit(services.write.world.deposits.get(d.id)!) }));
  });

  router.post('/:id/slip-token', (ctx) => {
    merchantOf(ctx);
    if (!ctx.get('Idempotency-Key')) throw new ApiError('idempotency_key_required');
    const d = visible(ctx, ctx.params.id!);
    if (d.legs.length === 0 || (d.status !== 'awaiting_payment' && d.status !== 'expired' && d.status !== 'canceled')) {
      throw new ApiError('operation_not_allowed', 'A slip token exists only once the deposit has a destination and can take a slip.', { status: d.status });
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.body = slipUpload(d);
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
