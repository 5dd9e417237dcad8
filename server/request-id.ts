// Gives every request its id (req_ + ULID) before anything else runs, so error bodies,
// logs and the Request-Id / X-Request-Id response headers all name the same request.
// Ids are always minted here: a client-supplied id is never trusted or echoed.

import type { Context, Middleware } from 'koa';
import { monotonicFactory } from 'ulid';
import { blockRandom } from '../adapters/ids.ts';

export interface RequestIdState {
  requestId: string;
}

export type RequestIdGenerator = () => string;

/**
 * A generator of req_ ids that sort by creation time, also within one millisecond. Its
 * random part is drawn from a CSPRNG block (adapters/ids.ts), not one randomFillSync per
 * character as ulid's default does: that cost 6 % of the server's thread under load.
 */
export function createRequestIdGenerator(): RequestIdGenerator {
  const nextUlid = monotonicFactory(blockRandom());
  return () => `req_${nextUlid()}`;
}

const fallbackGenerator = createRequestIdGenerator();

/** An id for a response produced outside the middleware chain (e.g. an error before ids were set). */
export function newRequestId(): string {
  return fallbackGenerator();
}

export function requestIdMiddleware(generate: RequestIdGenerator = createRequestIdGenerator()): Middleware<RequestIdState> {
  return async (ctx, next) => {
    const requestId = generate();
    ctx.state.requestId = requestId;
    ctx.set('Request-Id', requestId);
    ctx.set('X-Request-Id', requestId);
    await next();
  };
}

export function requestIdOf(ctx: Pick<Context, 'state'>): string | undefined {
  const id: unknown = ctx.state.requestId;
  return typeof id === 'string' ? id : undefined;
}
