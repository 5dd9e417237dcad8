// What a command says when it cannot reach the server: the URL it tried and why, in words,
// instead of undici's bare "fetch failed" (its reason is in error.cause) or a raw errno with
// exit 2. A Refusal, so main.ts exits 1, as the README promises of every request that does not
// get a 2xx/3xx answer.

import { Refusal } from './args.ts';

/** The errno and undici codes a connection fails with, as an operator would say them. */
const reasons: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name did not resolve',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_SOCKET: 'connection closed',
};

/** The error's code: its own (node:http), its cause's (fetch), or the first of an AggregateError's (both address families refused). */
function codeOf(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: unknown; errors?: unknown[] } | undefined;
  if (e === undefined || e === null) return undefined;
  if (typeof e.code === 'string') return e.code;
  if (e.cause !== undefined) return codeOf(e.cause);
  if (Array.isArray(e.errors) && e.errors.length > 0) return codeOf(e.errors[0]);
  return undefined;
}

/** The innermost message: fetch's own is "fetch failed", its cause's says why ("bad port"). */
function messageOf(error: unknown): string {
  const e = error as { message?: unknown; cause?: unknown };
  return e.cause !== undefined && e.cause !== null ? messageOf(e.cause) : String(e.message ?? error);
}

/** Why a request got no answer: `connection refused (ECONNREFUSED)`, `bad port`. */
export function whyUnreachable(error: unknown): string {
  const code = codeOf(error);
  return code === undefined ? messageOf(error) : `${reasons[code] ?? messageOf(error)} (${code})`;
}

/** `cannot reach URL: connection refused (ECONNREFUSED); is the server running?` */
export function unreachable(url: string, error: unknown): Refusal {
  const hint = codeOf(error) === 'ECONNREFUSED' ? '; is the server running?' : '';
  return new Refusal(`cannot reach ${url}: ${whyUnreachable(error)}${hint}`);
}

/** fetch, with a failure to connect turned into a Refusal naming the URL and the cause. */
export async function fetchOrRefuse(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    throw unreachable(url, error);
  }
}
