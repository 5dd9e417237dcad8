// POST /v1/test/webhooks/replay-out-of-order (sandbox key, merchant HMAC, Idempotency-Key).
// Body: {"case": "A" | "B" | "C"} (the contract's cases; see adapters/webhooks/out-of-order.ts).
// Answers 202 with the test order's id, its events in the order they happened (with
// versions and sequences) and the order they are delivered in, released one second apart
// to every enabled sandbox endpoint of the merchant.

import Router from '@koa/router';
import { outOfOrderCases, type OutOfOrderCase } from '../../adapters/webhooks/out-of-order.ts';
import type { Webhooks } from '../../adapters/webhooks/webhooks.ts';
import { iso } from '../../core/present.ts';
import { keyRefusal, merchantAuth, merchantOf } from '../auth/merchant.ts';
import { ApiError } from '../errors.ts';
import { runIdempotentOwn } from '../idempotency.ts';
import type { Services } from '../ports.ts';
import { compile } from '../validate.ts';
import { bodyOf, merchantScope, parseWith } from './common.ts';
import { addListenRoute } from './webhooks-listen.ts';

const caseBody = compile<{ case: OutOfOrderCase }>({ type: 'object', additionalProperties: false, required: ['case'], properties: { case: { enum: [...outOfOrderCases] } } });

export function webhookTestRoutes(services: Services, webhooks: Webhooks): Router {
  const router = new Router({ prefix: '/v1/test/webhooks', sensitive: true });
  router.use(merchantAuth(services));
  router.post('/replay-out-of-order', async (ctx) => {
    const m = merchantOf(ctx);
    if (m.livemode) throw new ApiError('scope_denied', 'Test routes take a sandbox key (sk_test_…).');
    const b = parseWith(caseBody, bodyOf(ctx));
    const ops = webhooks.operations;
    await runIdempotentOwn(ctx, services, merchantScope(m), (keep) => ops.transact(() => {
      const r = webhooks.outOfOrder({ merchantId: m.merchantId, whiteLabelId: m.whiteLabelId }, b.case);
      if (!r.ok) throw ApiError.from(r.rejection);
      const run = r.value;
      const response = { status: 202, body: {
        object: 'webhook_test_replay', case: run.case, livemode: false, object_id: run.objectId, expected: run.expected,
        events: run.events, delivery_order: run.deliveryOrder,
        deliveries: run.deliveries.map((d) => ({ endpoint_id: d.endpointId, delivery_id: d.deliveryId, event_id: d.eventId, release_at: iso(d.releaseAt) })),
      } };
      if (!ops.keepIdempotency(keep(response))) throw new ApiError('idempotency_in_flight', undefined, undefined, 1);
      return response;
    }));
  });
  addListenRoute(router, webhooks, (keyId) => keyRefusal(services, keyId)); // GET /v1/test/webhooks/listen: the stream of `satang listen`
  return router;
}

/** The request schema, for the OpenAPI document (server/openapi/). */
export { caseBody as outOfOrderCaseBody };
