// POST /v1/test/sandbox/reset (sandbox key, merchant HMAC, Idempotency-Key; DESIGN.md
// "sandbox run"): starts a new run of the merchant's sandbox balance history — the journal
// records SandboxRunReset with the next run_generation, the history projection restarts
// its sequences (the balances carry over as the run's opening) and earlier cursors get
// 409 sandbox_run_changed. Body: none or {}. Answer 200 {object 'sandbox_run', livemode
// false, run_generation}. A live key is 403 scope_denied, as on the other /v1/test routes.

import Router from '@koa/router';
import { sandboxRunGenerationOf } from '../../core/directory.ts';
import { merchantAuth, merchantOf } from '../auth/merchant.ts';
import { ApiError } from '../errors.ts';
import { runIdempotent } from '../idempotency.ts';
import type { Services } from '../ports.ts';
import { emptyBody, emptyQuery } from '../schemas.ts';
import { bodyOf, merchantScope, parseWith, queryOf } from './common.ts';

export function sandboxRoutes(services: Services): Router {
  const router = new Router({ prefix: '/v1/test/sandbox', sensitive: true });
  router.use(merchantAuth(services));
  router.post('/reset', async (ctx) => {
    const m = merchantOf(ctx);
    if (m.livemode) throw new ApiError('scope_denied', 'Sandbox routes take a sandbox key (sk_test_…).');
    parseWith(emptyQuery, queryOf(ctx));
    parseWith(emptyBody, bodyOf(ctx));
    await runIdempotent(ctx, services, merchantScope(m), { type: 'ResetSandboxRun', actor: { kind: 'merchant', merchantId: m.merchantId, livemode: false } }, () => ({
      status: 200,
      body: { object: 'sandbox_run', livemode: false, run_generation: sandboxRunGenerationOf(services.write.world.merchants.get(m.merchantId)!) },
    }));
  });
  return router;
}
