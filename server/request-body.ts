// Reading a JSON route's body, only once the request is authenticated: merchantAuth reads
// it after the key, account, timestamp and nonce shape check out (and then verifies the
// signature over exactly these bytes); operatorAuth after the token verifies; the
// development bank simulator (no authentication) in its route. Nothing else reads a body,
// so a request refused earlier (no credentials, unknown route, wrong method, rate limit)
// never costs more than its headers, and is answered at once.
//
// Invariants kept: the bytes are kept as sent (a Buffer; the HMAC and the idempotency
// hash are over them, not over decoded text); a body over jsonBodyBytesMax is refused by
// its Content-Length before a byte is read, or as soon as the running count passes the
// cap; a body not complete within the body deadline is 408 request_timeout; the text is
// decoded as strict UTF-8 (invalid bytes are 400 malformed_json, never U+FFFD); a key
// given twice in one object, or a number with a fraction or an exponent, is 422
// validation_error (json-strict.ts: JSON.parse would keep the last, or make 1e4 an
// integer the schema cannot tell apart); a request
// whose body was not read to its end is answered with Connection: close and its socket
// closed, so the unread rest is never waited for.

import type { Context, Next } from 'koa';
import type { IncomingMessage } from 'node:http';
import { ApiError } from './errors.ts';
import { echoedPath, jsonDeparture, keepNotInteger } from './json-strict.ts';
import { requestLimits } from '../core/limits.ts';
import { requestTimeoutsDefault } from './request-timeouts.ts';
import { secretShaped, secretShapes } from './secret-text.ts';

interface BodyState {
  /** The body's bytes once read; absent until then. */
  rawBody?: Buffer;
  /** The deadline for reading a body, set per app (tests shorten it). */
  bodyDeadlineMs?: number;
  /** The decoded text that ctx.request.body was parsed from; absent while that body is. */
  jsonText?: string;
}

const stateOf = (ctx: Context) => ctx.state as BodyState;

/** True when the request says it carries a body (a length above zero, or chunked). */
export function declaresBody(ctx: Context): boolean {
  return ctx.get('Transfer-Encoding') !== '' || Number(ctx.get('Content-Length') || 0) > 0;
}

/** The bytes read so far: empty until readRawBody ran (or when the request has none). */
export function rawBodyOf(ctx: Context): Buffer {
  return stateOf(ctx).rawBody ?? Buffer.alloc(0);
}

/** The text ctx.request.body was parsed from (JSON.parse of it gives that body again), or undefined when there is none. */
export function jsonTextOf(ctx: Context): string | undefined {
  return stateOf(ctx).jsonText;
}

/**
 * The app's outermost body rule: sets the read deadline, and closes the connection of a
 * request whose body was not read to its end once the answer is out. A route that reads
 * its own body (the slip upload, under its own cap) is left to do its own closing.
 */
export function bodyPolicy(bodyDeadlineMs: number = requestTimeoutsDefault.bodyMs, readsItsOwn: (ctx: Context) => boolean = () => false) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (readsItsOwn(ctx)) return next();
    stateOf(ctx).bodyDeadlineMs = bodyDeadlineMs;
    try {
      await next();
    } finally {
      if (declaresBody(ctx) && stateOf(ctx).rawBody === undefined) closeAfterAnswer(ctx);
    }
  };
}

/**
 * Closes the connection of a request whose body was not read, once its answer is out —
 * a lingering close, as nginx does it. With `Connection: close` Node destroys the socket
 * the moment the answer is flushed (socket.destroySoon), and a kernel that still holds
 * unread request bytes then answers the client with RST, which can make the client lose
 * the answer itself (the 401 or 422 it was meant to read). So for this socket the close
 * lingers: the server half-closes (FIN) after the answer, Node goes on reading and
 * dropping what the client still sends, and the socket is cut after requestLimits.unreadBodyLingerMs
 * at the latest.
 */
export function closeAfterAnswer(ctx: Context): void {
  ctx.set('Connection', 'close');
  const socket = ctx.req.socket;
  socket.destroySoon = () => {
    socket.end();
    socket.resume();
    setTimeout(() => socket.destroy(), requestLimits.unreadBodyLingerMs).unref();
  };
}

/** Reads the body once (later calls give the same bytes), under the JSON cap and the deadline. */
export async function readRawBody(ctx: Context): Promise<Buffer> {
  const state = stateOf(ctx);
  if (state.rawBody !== undefined) return state.rawBody;
  if (!declaresBody(ctx)) return (state.rawBody = Buffer.alloc(0));
  const capBytes = requestLimits.jsonBodyBytesMax;
  if (Number(ctx.get('Content-Length') || 0) > capBytes) throw tooLarge(capBytes);
  const deadlineMs = state.bodyDeadlineMs ?? requestTimeoutsDefault.bodyMs;
  return (state.rawBody = await readBounded(ctx.req, capBytes, deadlineMs));
}

/**
 * Reads the body and, on a POST, parses it as a JSON object into ctx.request.body (an
 * empty body is {}). Call it only after the request is authenticated — and for merchant
 * requests only after the signature over rawBodyOf(ctx) verified.
 */
export async function readJsonBody(ctx: Context): Promise<void> {
  parseJsonBody(ctx, await readRawBody(ctx));
}

/**
 * Where in a parsed body the secret-shaped text is (`url`, `legs.0.note`), or undefined; a
 * key's name that is one is named by the object holding it (`metadata`, inKey), never
 * spelt: the refusal would hand the secret back to the client's logs.
 */
function secretShapedPath(value: unknown, path = ''): { path: string; inKey: boolean } | undefined {
  if (typeof value === 'string') return secretShaped(value) ? { path, inKey: false } : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (secretShaped(key)) return { path, inKey: true };
    const found = secretShapedPath(inner, path ? `${path}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** 400 unsupported_media_type unless the Content-Type's charset is absent or UTF-8 (JSON bodies, the slip upload's too). */
export function refuseOtherCharset(ctx: Context): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(ctx.get('Content-Type'))?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw new ApiError('unsupported_media_type', 'JSON bodies are UTF-8; send charset=utf-8 or none.');
}

/** The bytes as UTF-8 text (a leading BOM dropped), or 400 malformed_json: nothing is guessed or replaced. */
export function utf8Text(raw: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw new ApiError('malformed_json', 'The request body is not valid UTF-8.');
  }
}

export function parseJsonBody(ctx: Context, raw: Buffer): void {
  if (ctx.method !== 'POST' || raw.length === 0) return;
  const text = utf8Text(raw);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError('malformed_json');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('validation_error', 'The body must be a JSON object.', { fields: [{ path: '', reason: 'type' }] });
  }
  refuseJsonDepartures(text, body);
  // A secret never travels in a body; a reference shaped like one would be kept in the
  // append-only journal, where the secrets-at-rest scan (satang verify, doctor) would find
  // "a key in clear" for good (security audit).
  // The parsed values too: a JSON escape ("sk\u005flive_…") spells a key the text does not show.
  if (secretShaped(text) || (text.includes('\\u') && secretShaped(JSON.stringify(body)))) {
    const shaped = secretShapedPath(body) ?? { path: '', inKey: false };
    const found = { ...shaped, path: echoedPath(shaped.path) };
    const where = found.inKey ? ` in the name of a key of ${found.path || 'the body'}` : found.path ? ` in ${found.path}` : '';
    throw new ApiError('validation_error', `The body holds text shaped like ${secretShapes}${where}: a secret is never sent in a body, and no reference or note may look like one.`,
      { fields: [{ path: found.path, reason: 'secret_shaped', ...(found.inKey ? { hint: "a key's name" } : {}) }] });
  }
  (ctx.request as { body?: unknown }).body = body;
  stateOf(ctx).jsonText = text; // the request log hands this text to its worker, which parses it again there
}

/**
 * 422 validation_error for a key given twice in `text` (JSON that parsed into `body`); a
 * number with a fraction or an exponent is kept with `body` for its schema's validator,
 * which refuses it (server/validate.ts) once it knows what the field should hold.
 */
export function refuseJsonDepartures(text: string, body: object): void {
  const departure = jsonDeparture(text);
  if (departure?.reason === 'duplicate_key') {
    throw new ApiError('validation_error', `The body gives ${departure.path || 'a key'} more than once.`, { fields: [{ path: departure.path, reason: 'duplicate_key', hint: 'give each key once' }] });
  }
  if (departure) keepNotInteger(body, departure);
}

function tooLarge(capBytes: number): ApiError {
  return new ApiError('validation_error', `The request body is larger than ${capBytes} bytes.`, {
    fields: [{ path: '', reason: 'too_large', hint: `at most ${capBytes} bytes` }],
  });
}

/** The whole body; refuses as soon as it passes capBytes or the deadline passes (the stream is then left unread). */
function readBounded(req: IncomingMessage, capBytes: number, deadlineMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const settle = (outcome: () => void) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onEndedEarly);
      req.off('close', onEndedEarly);
      req.pause();
      outcome();
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > capBytes) settle(() => reject(tooLarge(capBytes)));
      else chunks.push(chunk);
    };
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks, total)));
    // The client went away mid-body (Node reports 'aborted' as an error, then 'close'): nobody waits for the answer.
    const onEndedEarly = () => settle(() => reject(new ApiError('validation_error', 'The request body ended early.', { fields: [{ path: '', reason: 'incomplete' }] })));
    const timer = setTimeout(() => settle(() => reject(new ApiError('request_timeout', `The request body did not arrive within ${deadlineMs / 1000} s.`))), deadlineMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onEndedEarly);
    req.on('close', onEndedEarly);
  });
}
