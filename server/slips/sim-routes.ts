// The bank simulator mounted on the server's own port at /v1/sim/bank/ (DESIGN.md "Slip
// verification"): POST /v1/sim/bank/transfers and POST /v1/sim/bank/verify, the protocol
// of adapters/slips/bank-sim.ts. Development only: the wiring never mounts it when
// SATANG_ENV=production. No authentication — it holds nothing but test transfers.

import Router from '@koa/router';
import type { BankSimulator } from '../../adapters/slips/bank-sim.ts';
import { bodyOf } from '../routes/common.ts';
import { readJsonBody } from '../request-body.ts';

export const simulatorPrefix = '/v1/sim/bank';

export function simulatorRoutes(simulator: BankSimulator): Router {
  const router = new Router({ prefix: simulatorPrefix, sensitive: true });
  for (const path of ['/transfers', '/verify']) {
    router.post(path, async (ctx) => {
      await readJsonBody(ctx);
      const answer = simulator.handle('POST', path, bodyOf(ctx));
      ctx.status = answer.status;
      ctx.body = answer.body;
    });
  }
  return router;
}
