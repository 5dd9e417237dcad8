// What one HTTP request may cost the server before it is answered: how large a JSON body
// may be, how long a client may take over its header section and over its body, and how
// long an idle keep-alive connection is kept. Together with "authenticate before reading
// the body" (server/request-body.ts), they bound what an unauthenticated or slow client
// can make the server hold: a few KB of headers for at most headersMs, never a body.
//
// SATANG_REQUEST_TIMEOUTS_MS="headers,body" shortens the first two for tests; it is
// refused when SATANG_ENV=production, like SATANG_WEBHOOK_TIMEOUTS_MS.

const second = 1000;
const kibibyte = 1024;

export const requestLimits = {
  /** The JSON body of a merchant or back-office route; the slip upload has its own cap (slips/limits.ts). */
  jsonBodyBytesMax: 256 * kibibyte,
  /** PG-Nonce: a UUID is 36 characters; anything much longer is not a nonce. */
  nonceLengthMax: 128,
} as const;

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
  headersMs: 10 * second,
  bodyMs: 10 * second,
  requestMs: 60 * second,
  keepAliveMs: 5 * second,
};

/** The timeouts to serve with; SATANG_REQUEST_TIMEOUTS_MS shortens headers and body (tests only). */
export function requestTimeouts(mode: 'development' | 'production', env: NodeJS.ProcessEnv = process.env): RequestTimeouts {
  const override = env.SATANG_REQUEST_TIMEOUTS_MS;
  if (!override) return requestTimeoutsDefault;
  if (mode === 'production') throw new Error('SATANG_REQUEST_TIMEOUTS_MS is for tests and is refused when SATANG_ENV=production');
  const parts = override.split(',').map(Number);
  const [headersMs, bodyMs] = parts;
  if (parts.length !== 2 || ![headersMs, bodyMs].every((n) => Number.isSafeInteger(n) && n! > 0)) {
    throw new Error(`SATANG_REQUEST_TIMEOUTS_MS must be two positive integers "headers,body", not ${override}`);
  }
  return { ...requestTimeoutsDefault, headersMs: headersMs!, bodyMs: bodyMs! };
}

/**
 * How often the HTTP server looks for connections past their headers or request timeout
 * (Node's connectionsCheckingInterval, 30 s by default, which would let a slow client
 * hold a connection up to 30 s past the timeout).
 */
export function connectionsCheckMs(timeouts: RequestTimeouts): number {
  return Math.min(1 * second, timeouts.headersMs);
}
