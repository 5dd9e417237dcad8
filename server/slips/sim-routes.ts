// The bank simulator mounted on the server's own port at /v1/sim/bank/ (DESIGN.md "Slip
// verification"): POST /v1/sim/bank/transfers and POST /v1/sim/bank/verify, the protocol
// of adapters/slips/bank-sim.ts. Development only: the wiring never mounts it when
// SATANG_ENV=production. No authentication — it holds nothing but test transfers.
// Mounted under /v1/, it answers as the API does: a refusal is the contract's error object
// (eight keys, request_id, details.fields), not the simulator protocol's own {code,
// message, fields} that `scripts/satang bank-sim` speaks — a newcomer's mistyped transfer
// in the quick start's curl read unlike every other 422 of the same server.

import Router from '@koa/router';
import type { BankSimulator, SimFailureBody, SimResponse } from '../../adapters/slips/bank-sim.ts';
import { ApiError } from '../errors.ts';
import { bodyOf } from '../routes/common.ts';
import { readJsonBody } from '../request-body.ts';

export const simulatorPrefix = '/v1/sim/bank';

export function simulatorRoutes(simulator: BankSimulator): Router {
  const router = new Router({ prefix: simulatorPrefix, sensitive: true });
  for (const path of ['/transfers', '/verify']) {
    router.post(path, async (ctx) => {
      await readJsonBody(ctx);
      const answer = simulator.handle('POST', path, bodyOf(ctx));
      if (answer.status >= 400) throw refusalOf(answer);
      ctx.status = answer.status;
      ctx.body = answer.body;
    });
  }
  return router;
}

/**
 * A simulator refusal as the API's error: its field problems as validation_error; a transfer
 * or slip already registered, or the simulator full, as a rule refusing it
 * (operation_not_allowed, the simulator's own code in details.reason).
 */
function refusalOf(answer: SimResponse): ApiError {
  const { code, message, fields } = (answer.body as SimFailureBody).error;
  if (code === 'validation_error') return new ApiError('validation_error', message, { fields: fields ?? [] });
  return new ApiError('operation_not_allowed', message, { reason: code });
}
