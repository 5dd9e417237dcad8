// What a command says when it cannot reach the server: the URL it tried and why, in words,
// instead of undici's bare "fetch failed" (its reason is in error.cause) or a raw errno with
// exit 2; and when what answers is not satang (another server's HTML 404, a proxy's empty
// 431): the URL and the status, instead of a JSON parser's "Unexpected token '<'". Both are
// a Refusal, so main.ts exits 1, as the README promises of every request that does not get a
// 2xx/3xx answer. A POST that got no satang answer may have been done all the same: its
// Idempotency-Key is said, so that a retry with it cannot do it twice.

import { Refusal, type CommandSpec } from './args.ts';
import { inOptionWords } from './option-words.ts';

/**
 * How long a command waits for the server to begin its answer: SATANG_CLI_TIMEOUT_SECONDS,
 * 90 by default (the server gives up on a request after 60 s; undici would wait 300 s and
 * node:http for ever on a server that accepts and never answers).
 */
export function answerWaitMs(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.SATANG_CLI_TIMEOUT_SECONDS ?? '';
  const seconds = given === '' ? 90 : Number(given);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Refusal(`SATANG_CLI_TIMEOUT_SECONDS must be a number of seconds above 0, not ${JSON.stringify(given)}`);
  return Math.round(seconds * 1000);
}

/** The server took the connection but did not begin answering within answerWaitMs. */
export class NoAnswer extends Error {
  constructor(readonly waitedMs: number) {
    super(`no answer within ${waitedMs / 1000} s (SATANG_CLI_TIMEOUT_SECONDS)`);
  }
}

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
  if (error instanceof NoAnswer) return error.message;
  const code = codeOf(error);
  return code === undefined ? messageOf(error) : `${reasons[code] ?? messageOf(error)} (${code})`;
}

/** `Its Idempotency-Key was K: …` for a POST that got no answer it can trust (it may have been done), '' otherwise. */
function retryHint(idempotencyKey: string | undefined): string {
  return idempotencyKey === undefined ? '' : `Its Idempotency-Key was ${idempotencyKey}: to retry, run it again with --idempotency-key ${idempotencyKey} (done once either way)`;
}

/** `text`, then `more` as its next sentence on the same line. */
function thenSay(text: string, more: string): string {
  return more === '' ? text : `${text}${text.endsWith('?') ? '' : '.'} ${more}`;
}

/** `cannot reach URL: connection refused (ECONNREFUSED); is the server running?` */
export function unreachable(url: string, error: unknown, idempotencyKey?: string): Refusal {
  const hint = codeOf(error) === 'ECONNREFUSED' ? '; is the server running?' : '';
  return new Refusal(thenSay(`cannot reach ${url}: ${whyUnreachable(error)}${hint}`, retryHint(idempotencyKey)));
}

/** `URL answered HTTP 404 (text/html), not satang's JSON: …`: another server, a proxy's page, an empty body. */
export function notSatang(url: string, status: number, contentType: string | null, idempotencyKey?: string): Refusal {
  return new Refusal(thenSay(`${url} answered HTTP ${status} (${contentType || 'no content type'}), not satang's JSON: --url (or $SATANG_BASE_URL) is not a satang server, or something in between answered`, retryHint(idempotencyKey)));
}

/**
 * fetch, with a failure to connect, or no answer begun within answerWaitMs, turned into a
 * Refusal naming the URL and the cause (and the Idempotency-Key given, which a retry must reuse).
 */
export async function fetchOrRefuse(url: string, init?: RequestInit, idempotencyKey?: string): Promise<Response> {
  const waitMs = answerWaitMs();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new NoAnswer(waitMs)), waitMs);
  try {
    return await fetch(url, { ...init, signal: controller.signal });
  } catch (error) {
    throw unreachable(url, error, idempotencyKey);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The answer's JSON as satang writes it: any JSON on a 2xx, an error object ({error: {code}})
 * otherwise. Anything else is a Refusal naming the URL and the status (notSatang).
 */
export async function satangJson(url: string, res: Response, idempotencyKey?: string): Promise<any> {
  const body = await res.text();
  let json: any;
  try { json = JSON.parse(body); } catch { throw notSatang(url, res.status, res.headers.get('content-type'), idempotencyKey); }
  const refusal = res.status < 200 || res.status >= 300;
  if (refusal && typeof json?.error?.code !== 'string') throw notSatang(url, res.status, res.headers.get('content-type'), idempotencyKey);
  // As `call` says it: a retry answered from the first request's record did nothing again.
  if (idempotencyKey !== undefined && res.headers.get('idempotent-replay') === 'true') process.stderr.write(`(replay) the answer first given to Idempotency-Key ${idempotencyKey}; nothing was done again\n`);
  return json;
}

/**
 * A refused answer as `report` and `call` say it, on stderr: `HTTP 422: {"error":…}`, one
 * line; its message naming the options of `spec` (the command that asked) where it names the
 * API fields they fill.
 */
export function printRefused(status: number, json: unknown, spec?: CommandSpec): void {
  process.stderr.write(`HTTP ${status}: ${JSON.stringify(inOptionWords(json, spec))}\n`);
}

/** What /readyz answered: its status, its content type, and its JSON (undefined when it is none). */
export interface Readyz {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: { status?: unknown; checks?: Record<string, unknown>; error?: { details?: { checks?: Record<string, unknown> } } } | undefined;
}

/** GET `url`/readyz, given 3 s; throws when nothing answers in time (doctor, restore). */
export async function readyzAt(url: string): Promise<Readyz> {
  const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3_000) });
  const text = await res.text();
  let body: Readyz['body'];
  try { body = JSON.parse(text) as Readyz['body']; } catch { body = undefined; }
  return { status: res.status, contentType: res.headers.get('content-type'), body };
}

/**
 * How a satang server at `url` answers /readyz (`ready`, `degraded`, `not ready`), or
 * undefined when none does within 3 s (nothing listening, another server, no answer).
 */
export async function satangServerAt(url: string): Promise<string | undefined> {
  const answer = await readyzAt(url).catch(() => undefined);
  const body = answer?.body;
  if (typeof body?.checks === 'object' && body.checks !== null && typeof body.status === 'string') return body.status;
  if (typeof body?.error?.details?.checks === 'object') return 'not ready';
  return undefined;
}
