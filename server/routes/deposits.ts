// /v1/pay/deposits: create (201 matched / 202 awaiting liquidity), get, list with cursor,
// cancel, slip-token (the slip upload and image routes are in ../slips/routes.ts). Thin:
// validate, build the command, let the core decide, present.

import Router from '@koa/router';
import type { Context } from 'koa';
import { uploadsAllowed } from '../../core/deposit/decide.ts';
import type { Deposit } from '../../core/deposit/state.ts';
import { limits, slipUploadLimits } from '../../core/limits.ts';
import { apiVersion, iso, presentDeposit } from '../../core/present.ts';
import { promptPayPayload } from '../../core/qr.ts';
import { merchantAuth, merchantOf } from '../auth/merchant.ts';
import type { CapabilitySigner } from '../capability.ts';
import { claimUrlOf, type Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import { runIdempotent, runIdempotentOwn } from '../idempotency.ts';
import type { Services } from '../ports.ts';
import { cancelBody, createDepositBody, emptyBody, emptyQuery } from '../schemas.ts';
import { amountOf, bodyOf, durableRead, merchantScope, ownedBy, parseWith, queryOf } from './common.ts';
import { listDeposits } from './order-lists.ts';
import { slipContentTypes } from '../slips/evidence.ts';

export function depositRoutes(services: Services, config: Config, capability: CapabilitySigner): Router {
  const router = new Router({ prefix: '/v1/pay/deposits', sensitive: true });
  router.use(merchantAuth(services));

  const visible = (ctx: Context, id: string): Deposit => {
    const m = merchantOf(ctx);
    return ownedBy(m, services.write.world.deposits.get(id), 'deposit');
  };

  const slipUpload = (d: Deposit) => {
    const uploadUrl = `${config.uploadUrl}/v1/pay/deposits/${d.id}/slip`;
    // Usable until the late-slip window closes: the one the order has once it closed, else the one it will have.
    const closed = (d.status === 'expired' || d.status === 'canceled') && d.lateSlipAcceptedUntil != null;
    const expiresAt = closed ? d.lateSlipAcceptedUntil! : d.expiresAt + limits.lateSlipWindowMs;
    // Every claim derives from the order's state, so the same order version yields the
    // same token bytes (a slip-token retry under its Idempotency-Key replays the stored answer).
    const token = capability.issue({
      aud: 'pg-slip-ingest', scope: 'slip:write', tenant: d.merchantId, livemode: d.livemode, deposit_id: d.id, htu: uploadUrl,
      // The end user in one mode: a sandbox order's uploads never spend the live end user's quota.
      rate_subject: capability.subjectOf(`${d.merchantId}:${d.livemode ? 'live' : 'sandbox'}:${d.endUserRef}`),
      api_version: apiVersion, hold_until: d.expiresAt, iat: Math.floor(d.updatedAt / 1000), exp: Math.floor(expiresAt / 1000),
    });
    return { token, expires_at: iso(expiresAt), upload_url: uploadUrl, max_bytes: slipUploadLimits.evidenceBytesMax, content_types: slipContentTypes };
  };

  // The QR (it holds the payee's full account) only while there is something to pay: once
  // the order is paid, expired or closed, a read no longer hands another merchant's payee
  // account to this one; a leg already complete has none either (core/present.ts).
  const withQr = (d: Deposit) => (d.status === 'awaiting_payment' ? presentDeposit(d, { qrPayload: (leg) => promptPayPayload(leg.receiver, leg.amountMinor) }) : presentDeposit(d));

  router.post('/', async (ctx) => {
    const m = merchantOf(ctx);
    const body = parseWith(createDepositBody, bodyOf(ctx));
    if (body.sender && body.sender_id) throw new ApiError('validation_error', 'Give either sender or sender_id, not both.', { fields: [{ path: 'sender_id', reason: 'conflict' }] });
    const metadataProblem = Object.entries(body.metadata ?? {}).find(([, v]) => Buffer.byteLength(v) > limits.metadataValueBytesMax);
    if (metadataProblem) throw new ApiError('validation_error', `metadata.${metadataProblem[0]} is over ${limits.metadataValueBytesMax} bytes.`, { fields: [{ path: `metadata.${metadataProblem[0]}`, reason: 'too_long' }] });
    const longKey = Object.keys(body.metadata ?? {}).find((k) => Buffer.byteLength(k) > limits.depositMetadataKeyBytesMax);
    if (longKey !== undefined) throw new ApiError('validation_error', `A metadata key is over ${limits.depositMetadataKeyBytesMax} bytes.`, { fields: [{ path: 'metadata', reason: 'too_long', hint: `keys of at most ${limits.depositMetadataKeyBytesMax} bytes` }] });
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

  // The list is served from the deposit list projection (server/routes/order-lists.ts).
  router.get('/', (ctx) => listDeposits(ctx, services));

  router.get('/:id', async (ctx) => {
    emptyQuery(queryOf(ctx));
    await durableRead(services, ctx.params.id!);
    ctx.body = withQr(visible(ctx, ctx.params.id!));
  });

  router.post('/:id/cancel', async (ctx) => {
    const m = merchantOf(ctx);
    cancelBody(bodyOf(ctx));
    const d = visible(ctx, ctx.params.id!);
    await runIdempotent(ctx, services, merchantScope(m), { type: 'CancelDeposit', actor: { kind: 'merchant', merchantId: m.merchantId, livemode: m.livemode }, depositId: d.id },
      () => ({ status: 200, body: presentDeposit(services.write.world.deposits.get(d.id)!) }));
  });

  /** Why no slip token is issued for the order now; nothing when one may be. */
  const refuseSlipToken = (d: Deposit): void => {
    // Every order that takes a slip gets a token: one open or in its late window, and one
    // whose slip is being verified or reviewed, or that settled (a slip then waits its turn,
    // or is a transfer after settlement) — a merchant that did not keep the creation token
    // (the contract tells it not to) can still send the payer's real slip.
    const takesSlips = d.status === 'awaiting_payment' || d.status === 'expired' || d.status === 'canceled'
      || d.status === 'slip_processing' || d.status === 'under_review' || d.status === 'settled';
    if (d.legs.length === 0 || !takesSlips) {
      // An order past taking slips (rejected, reversed): a payer who transferred again goes to a claim.
      if (d.legs.length === 0) {
        throw new ApiError('operation_not_allowed', `A slip token exists only once the deposit has a destination; this one is ${d.status} without one.`, { status: d.status });
      }
      throw new ApiError('operation_not_allowed', `This deposit is ${d.status} and takes no more slips; a payer who transferred again goes to a claim (claim_url).`,
        { status: d.status, claim_url: claimUrlOf(config, d.id) });
    }
    // A token's use ends once the order's uploads are used up: every upload with a new one
    // would be refused, so the refusal is said now, as the upload says it.
    if (d.uploads >= uploadsAllowed(d)) {
      throw new ApiError('validation_error', `All ${uploadsAllowed(d)} slip uploads of this deposit are used, so no token is issued; a payer who did pay goes to a claim (claim_url).`,
        { fields: [{ path: 'deposit', reason: 'upload_limit_reached' }], claim_url: claimUrlOf(config, d.id) });
    }
    if ((d.status === 'slip_processing' || d.status === 'under_review' || d.status === 'settled') && services.write.clock.now() > d.expiresAt + limits.lateSlipWindowMs) {
      // The creation token would have run out too: a transfer this late is a matter for a claim.
      throw new ApiError('operation_not_allowed', 'This deposit takes no more slips: its upload tokens ran out 24 hours after its expires_at; a transfer since is a matter for a claim.',
        { status: d.status, claim_url: claimUrlOf(config, d.id) });
    }
    // A closed order takes a slip only in its late window: after it, a token would be born
    // expired, and the upload would be refused anyway. Said now, as the upload says it.
    const until = d.lateSlipAcceptedUntil ?? null;
    if ((d.status === 'expired' || d.status === 'canceled') && (d.isTerminal || until === null || services.write.clock.now() > until)) {
      throw new ApiError('late_slip_window_closed', 'The late-slip window of this deposit has closed; no slip can be uploaded, so no token is issued.',
        { deposit_id: d.id, late_slip_accepted_until: until === null ? null : iso(until), claim_url: claimUrlOf(config, d.id) });
    }
  };

  router.post('/:id/slip-token', async (ctx) => {
    const m = merchantOf(ctx);
    parseWith(emptyBody, bodyOf(ctx)); // none or {}
    const d = visible(ctx, ctx.params.id!);
    // Under the request's Idempotency-Key, as every POST: a retry replays the token first
    // issued (Idempotent-Replay: true) even once the order has moved on, and the key used
    // for another order or request is idempotency_key_reused. The token is no command's
    // effect, so its record is stored here (sealed, as every answer kept); a refusal keeps nothing.
    await runIdempotentOwn(ctx, services, merchantScope(m), (keep) => {
      refuseSlipToken(d);
      const response = { status: 200, body: slipUpload(d), headers: { 'Cache-Control': 'no-store' } };
      if (!services.idempotency.keep(keep(response))) throw new ApiError('idempotency_in_flight', undefined, undefined, 1);
      return response;
    });
  });

  return router;
}
