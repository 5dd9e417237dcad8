// The slip routes. POST /v1/pay/deposits/{id}/slip (served at slip_upload.upload_url) takes
// the order capability, never merchant HMAC: admission (admission.ts) → rate limits
// (quota.ts) → Idempotency-Key → the body, read here under its byte cap (body.ts) → the
// durable intake (intake.ts), answering 202 with the slip receipt. GET of the same path is
// a merchant route (HMAC, own orders only) that returns the slip image's bytes with the
// type its magic bytes show. Thin: every decision about the order is the core's.
//
// A request refused before its body was read to the end is answered with Connection:
// close and its socket is closed once the answer is out, so an oversized or unwanted
// upload is never read whole.

import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { merchantAuth, merchantOf } from '../auth/merchant.ts';
import type { CapabilitySigner } from '../capability.ts';
import type { SlipStore } from '../../adapters/slips/store.ts';
import { ApiError } from '../errors.ts';
import { closeAfterAnswer } from '../request-body.ts';
import { idempotencyKeyOf } from '../idempotency.ts';
import type { Services } from '../ports.ts';
import { apiVersion } from '../../core/present.ts';
import { ownedBy, queryOf } from '../routes/common.ts';
import { emptyQuery } from '../schemas.ts';
import { admit, tokenClaims } from './admission.ts';
import { bodyWasRead, readEvidence } from './body.ts';
import type { Accepts } from './evidence.ts';
import type { SlipIntake } from './intake.ts';
import { detectMediaType } from './magic.ts';
import { sandboxSlipImage } from './sandbox-slip.ts';
import { SlipQuota } from './quota.ts';

export interface SlipRouteParts {
  readonly services: Services;
  readonly uploadUrl: string;
  readonly capability: CapabilitySigner;
  readonly intake: SlipIntake;
  readonly store: SlipStore;
  readonly accepts: Accepts;
}

export const slipPath = '/v1/pay/deposits/:id/slip';

export function slipRoutes(parts: SlipRouteParts): Router {
  const { services } = parts;
  const quota = new SlipQuota();
  const router = new Router({ sensitive: true });

  router.post(slipPath, closeUnreadBody, async (ctx) => {
    const claims = tokenClaims(ctx, parts.capability);
    const headers = quota.take(ctx, claims?.rate_subject ?? null, services.securityClock.now()); // rate limits run on the wall clock
    try {
      const admitted = admit(ctx, claims, services, parts.uploadUrl, apiVersion);
      const key = idempotencyKeyOf(ctx);
      const evidence = await readEvidence(ctx, parts.accepts);
      await parts.intake.accept(ctx, admitted, key, evidence);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'idempotency_in_flight') quota.giveBack(ctx, claims?.rate_subject ?? null, services.securityClock.now());
      throw error;
    } finally {
      ctx.set(headers);
    }
  });

  router.get(slipPath, merchantAuth(services), async (ctx) => {
    emptyQuery(queryOf(ctx));
    const m = merchantOf(ctx);
    const d = ownedBy(m, services.write.world.deposits.get(ctx.params.id!), 'deposit');
    if (!d.slip?.hasImage) throw new ApiError('resource_not_found', 'This deposit has no slip image.');
    const stored = await parts.store.image(d.slip.receiptId);
    // In the sandbox the sandbox bank pays scenario deposits: no image was uploaded, and its
    // placeholder stands for one. Live, the receipt was only given once the image was on
    // disk: a missing file is a fault of ours.
    const bytes = stored ?? (d.livemode ? undefined : sandboxSlipImage());
    if (!bytes) throw new Error(`slip image of receipt ${d.slip.receiptId} is missing from the store`);
    answerSlipImage(ctx, bytes, detectMediaType(bytes) ?? 'application/octet-stream');
  });

  return router;
}

/** A slip image (bank names and accounts on it): never cached, never sniffed as another type. */
export function answerSlipImage(ctx: Context, bytes: Uint8Array, mediaType: string): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = mediaType;
  ctx.body = bytes;
}

async function closeUnreadBody(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } finally {
    const hasBody = ctx.get('Transfer-Encoding') !== '' || Number(ctx.get('Content-Length') || 0) > 0;
    if (hasBody && !bodyWasRead(ctx)) closeAfterAnswer(ctx);
  }
}
