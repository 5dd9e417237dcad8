// The HTTP server's timeouts: how long a client may take over its header section and over
// its body, how long the whole request may take, and how long an idle keep-alive
// connection is kept. Together with the body cap (requestLimits in core/limits.ts) and
// "authenticate before reading the body" (server/request-body.ts), they bound what an
// unauthenticated or slow client can make the server hold: a few KB of headers for at
// most headersMs, never a body. The values are core/limits.ts's; this module only adds
// the test override.
//
// SATANG_REQUEST_TIMEOUTS_MS="headers,body[,request]" shortens them for tests; it is
// refused when SATANG_ENV=production, like SATANG_WEBHOOK_TIMEOUTS_MS.

import { requestLimits } from '../core/limits.ts';

export interface RequestTimeouts {
  /** From a connection's first byte (or the end of its previous request) to the end of the header section: server.headersTimeout. */
  readonly headersMs: number;
  /** From the start of reading a JSON body to its last byte, then 408 request_timeout and the connection closed. */
  readonly bodyMs: number;
  /** The whole request, headers and body, on any route (slip uploads too): server.requestTimeout. */
  readonly requestMs: number;
  /** An idle keep-alive connection between two requests: server.keepAliveTimeout. */
  readonly keepAliveMs: number;
}

export const requestTimeoutsDefault: RequestTimeouts = {
  headersMs: requestLimits.headersTimeoutMs,
  bodyMs: requestLimits.bodyTimeoutMs,
  requestMs: requestLimits.requestTimeoutMs,
  keepAliveMs: requestLimits.keepAliveTimeoutMs,
};

/** The timeouts to serve with; SATANG_REQUEST_TIMEOUTS_MS shortens headers and body (tests only). */
export function requestTimeouts(mode: 'development' | 'production', env: NodeJS.ProcessEnv = process.env): RequestTimeouts {
  const override = env.SATANG_REQUEST_TIMEOUTS_MS;
  if (!override) return requestTimeoutsDefault;
  if (mode === 'production') throw new Error('SATANG_REQUEST_TIMEOUTS_MS is for tests and is refused when SATANG_ENV=production');
  const parts = override.split(',').map(Number);
  const [headersMs, bodyMs, requestMs] = parts;
  if ((parts.length !== 2 && parts.length !== 3) || !parts.every((n) => Number.isSafeInteger(n) && n > 0)) {
    throw new Error(`SATANG_REQUEST_TIMEOUTS_MS must be two or three positive integers "headers,body[,request]", not ${override}`);
  }
  if (requestMs !== undefined && requestMs < headersMs!) throw new Error(`SATANG_REQUEST_TIMEOUTS_MS: the whole request's timeout (${requestMs}) cannot be shorter than the headers' (${headersMs})`);
  return { ...requestTimeoutsDefault, headersMs: headersMs!, bodyMs: bodyMs!, ...(requestMs !== undefined ? { requestMs } : {}) };
}

/**
 * How often the HTTP server looks for connections past their headers or request timeout
 * (Node's connectionsCheckingInterval, 30 s by default, which would let a slow client
 * hold a connection up to 30 s past the timeout).
 */
export function connectionsCheckMs(timeouts: RequestTimeouts): number {
  return Math.min(requestLimits.connectionsCheckMsMax, timeouts.headersMs);
}
