// The public webhook support routes (contract: "Events and webhook support"), no auth:
// GET /v1/webhooks/signing-keys — the keys merchants verify deliveries with (next, active,
// recently retired), each as base64 SPKI DER and as the 32 raw bytes in base64url; and
// GET /v1/webhooks/test-vectors — three fixed signed samples (Thai text, a URL with '/',
// an emoji outside the BMP) signed by a dedicated test-vector key.

import Router from '@koa/router';
import { presentEndpoint } from '../../adapters/webhooks/endpoints.ts';
import { testVectors } from '../../adapters/webhooks/test-vectors.ts';
import { merchantAuth, merchantOf } from '../auth/merchant.ts';
import { readQuery } from './read-params.ts';
import type { Webhooks } from '../../adapters/webhooks/webhooks.ts';
import type { Services } from '../ports.ts';
import { webhookBackOfficeRoutes } from './webhooks-bo.ts';
import { webhookTestRoutes } from './webhooks-test.ts';

/** Consumers may cache the list up to 24 h (contract); a rotation is announced 7 days ahead, so 5 minutes here is ample. */
const signingKeysCacheSeconds = 300;

export function webhookPublicRoutes(webhooks: Webhooks): Router {
  const router = new Router({ prefix: '/v1/webhooks', sensitive: true });
  router.get('/signing-keys', (ctx) => {
    ctx.set('Cache-Control', `public, max-age=${signingKeysCacheSeconds}`);
    ctx.body = { object: 'list', keys: webhooks.publishedKeys() };
  });
  router.get('/test-vectors', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = testVectors();
  });
  return router;
}

/**
 * GET /v1/pay/webhook-endpoints — the caller's own endpoints in its key's mode, read-only:
 * status, flag and health (failing since, failures since the last success, last success),
 * so a merchant sees an endpoint that is failing, flagged or disabled, not only missing
 * events. Operators create and change endpoints (onboarding).
 */
export function webhookMerchantRoutes(services: Services, webhooks: Webhooks): Router {
  const router = new Router({ prefix: '/v1/pay/webhook-endpoints', sensitive: true });
  router.use(merchantAuth(services));
  router.get('/', (ctx) => {
    readQuery(ctx, []);
    const m = merchantOf(ctx);
    ctx.body = { object: 'list', data: webhooks.endpoints.forMerchant(m.merchantId, m.livemode).map(presentEndpoint) };
  });
  return router;
}

/** Every webhook router, for createApp's extraRouters. */
export function webhookRouters(services: Services, webhooks: Webhooks, verifyOperator: Parameters<typeof webhookBackOfficeRoutes>[2]): Router[] {
  return [webhookPublicRoutes(webhooks), webhookMerchantRoutes(services, webhooks), webhookBackOfficeRoutes(services, webhooks, verifyOperator), webhookTestRoutes(services, webhooks)];
}
