// Idempotency for every POST (contract: Errors, "Idempotency replay"). A key belongs to
// the merchant and mode. The record of a successful command is written in the same
// transaction as the command (CommitMeta.idempotency), so a key is consumed exactly when
// its effects exist. A refusal consumes nothing (it changed nothing; a retry is decided
// afresh); a 429 never reaches here. Same key + same request → the original status and
// bytes with Idempotent-Replay: true; same key + another request → 409
// idempotency_key_reused; a request still running under the key → 409
// idempotency_in_flight (retry in 1 s).

import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { Command } from '../core/handler/commands.ts';
import type { IdempotencyRecord } from '../core/ports.ts';
import { limits } from '../core/limits.ts';
import { ApiError } from './errors.ts';
import { secretShaped, secretShapes } from './secret-text.ts';
import { rawBodyOf } from './request-body.ts';
import type { Services } from './ports.ts';

export interface Response { readonly status: number; readonly body: unknown; readonly headers?: Readonly<Record<string, string>> }

/** Keys of requests still running, per service instance (nothing process-global). */
const inFlightBy = new WeakMap<Services, Set<string>>();

function inFlightOf(services: Services): Set<string> {
  let set = inFlightBy.get(services);
  if (!set) inFlightBy.set(services, (set = new Set()));
  return set;
}

export interface KeyRules { readonly minLength?: number }

/**
 * The Idempotency-Key header as every route reads it ('' when absent): one header, printable
 * ASCII. Two headers were joined into "a, b", a key no one chose (a proxy or a client library
 * that adds its own); bytes past ASCII were read as latin-1, a key stored garbled and its
 * length counted in bytes — the merchant routes refused them, the slip upload and operator
 * routes took them.
 */
/** The methods that change something and so carry an Idempotency-Key (a webhook endpoint's DELETE too). */
export const takesIdempotencyKey = (method: string): boolean => method === 'POST' || method === 'DELETE';

export function idempotencyKeyHeader(ctx: Context): string {
  const key = ctx.get('Idempotency-Key');
  // Node joins two headers with ", ": only then are they counted (headersDistinct builds every header's list).
  if (key.includes(', ') && (ctx.req.headersDistinct['idempotency-key']?.length ?? 0) > 1) {
    throw new ApiError('validation_error', 'Idempotency-Key is given more than once; send one.', { fields: [{ path: 'header.Idempotency-Key', reason: 'duplicate', hint: 'one header' }] });
  }
  if (!/^[\x20-\x7e]*$/.test(key)) {
    throw new ApiError('validation_error', 'Idempotency-Key must be printable ASCII (a UUID is a good key).', { fields: [{ path: 'header.Idempotency-Key', reason: 'format', hint: 'printable ASCII' }] });
  }
  refuseSecretShapedHeader('Idempotency-Key', key);
  return key;
}

/**
 * A header kept in the journal (an Idempotency-Key, with the request it answers and in the
 * events it caused; a PG-Nonce, in the nonce memory) never holds text shaped like a secret:
 * as in a body, it would sit there in clear for good (outside-in security audit).
 */
export function refuseSecretShapedHeader(name: string, value: string): void {
  if (!secretShaped(value)) return;
  throw new ApiError('validation_error', `${name} holds text shaped like ${secretShapes}: a secret is never sent there (a UUID is a good value).`, { fields: [{ path: `header.${name}`, reason: 'secret_shaped' }] });
}

export function idempotencyKeyOf(ctx: Context, rules: KeyRules = {}): string {
  const key = idempotencyKeyHeader(ctx);
  if (!key) throw new ApiError('idempotency_key_required');
  const min = rules.minLength ?? 1;
  if (key.length < min || key.length > limits.idempotencyKeyLengthMax) {
    throw new ApiError('validation_error', `Idempotency-Key must be ${min}–${limits.idempotencyKeyLengthMax} characters.`, {
      fields: [{ path: 'header.Idempotency-Key', reason: 'length', hint: `${min}–${limits.idempotencyKeyLengthMax} characters` }],
    });
  }
  return key;
}

/**
 * What "the same request" means: the method, the path, the query and the body's JSON value
 * — its keys in any order, written with any spacing — so a retry that serialises the same
 * body again is a replay, not idempotency_key_reused. A body that is not JSON counts by its bytes.
 */
export function requestHash(ctx: Context): string {
  const parsed = (ctx.request as { body?: unknown }).body;
  const hash = createHash('sha256').update(`${ctx.method}\n${ctx.path}\n${ctx.querystring}\n`);
  return (parsed === undefined ? hash.update(rawBodyOf(ctx)) : hash.update('json\n').update(canonicalJson(parsed))).digest('hex');
}

/** The hash records written before bodies counted by their JSON value: by the bytes (kept valid for their day). */
function rawRequestHash(ctx: Context): string {
  return createHash('sha256').update(`${ctx.method}\n${ctx.path}\n${ctx.querystring}\n`).update(rawBodyOf(ctx)).digest('hex');
}

/** JSON text of a parsed JSON value with every object's keys sorted: one text per value. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
}

/** Answers with `r`; `text` is its body already serialised (for the idempotency record), if it was. */
function send(ctx: Context, r: Response, text = JSON.stringify(r.body ?? null)): void {
  ctx.status = r.status;
  ctx.type = 'application/json';
  ctx.body = text;
  for (const [k, v] of Object.entries(r.headers ?? {})) ctx.set(k, v);
}

/**
 * Files a command names, written before it is submitted (so that what the journal names is
 * on disk) and removed again when the core refuses it (a refused request leaves nothing
 * behind). Neither runs for a replay.
 */
export interface Staged {
  write(): Promise<void>;
  undo(): Promise<void>;
}

/**
 * Runs `command` under the request's Idempotency-Key and answers with `render(outcome)`.
 * `scope` names whose keys these are (merchant and mode, or the operator). `decidedOn`
 * reads what the route keeps of the state the command is decided on (an action log's
 * "before"): run just before the command is submitted, in the same synchronous turn as it
 * is decided, so no other command can land between (not for a replay, which decides nothing).
 */
export async function runIdempotent(
  ctx: Context, services: Services, scope: string, command: Command, render: (objectId: string | undefined) => Response,
  rules: KeyRules & { readonly staged?: Staged; readonly admit?: Admit; readonly decidedOn?: () => void } = {},
): Promise<void> {
  await runIdempotentOwn(ctx, services, scope, async (keep) => {
    let response: Response | undefined;
    const meta = { requestId: ctx.state.requestId as string, idempotencyKey: ctx.get('Idempotency-Key') };
    await rules.staged?.write();
    let submitted: ReturnType<Services['write']['submit']>;
    try {
      rules.decidedOn?.();
      submitted = services.write.submit(command, meta, (o) => {
        if (!o.ok) return undefined;
        response = render(o.objectId);
        return keep(response);
      });
    } catch (error) {
      await rules.staged?.undo();
      throw error;
    }
    const { outcome, durable } = submitted;
    if (!outcome.ok) {
      await rules.staged?.undo();
      throw ApiError.from(outcome.rejection);
    }
    // The key stays in flight until the command is durable: nobody replays an answer
    // whose effects could still be lost.
    await durable;
    return response!;
  }, rules);
}

function refuseChangedRequest(prior: IdempotencyRecord, hash: string, earlierHash?: string): void {
  if (prior.requestHash !== hash && (earlierHash === undefined || prior.requestHash !== earlierHash)) {
    throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request.', { original_request_id: prior.requestId });
  }
}

export function replay(ctx: Context, prior: IdempotencyRecord, hash: string, earlierHash?: string): void {
  refuseChangedRequest(prior, hash, earlierHash);
  ctx.status = prior.status;
  ctx.type = 'application/json';
  ctx.body = prior.body; // the stored bytes, not a re-serialisation
  ctx.set('Idempotent-Replay', 'true');
  ctx.set('Original-Request-Id', prior.requestId);
}

/**
 * What a request must pass once its key's record has been looked up, before the replay
 * (`replaying`) or the run: a route's check of its body and its step-up (the step-up is
 * asked of a replay too; a check of what the body says is not, since a retry is replayed
 * whatever its first run changed). A fresh run holds its key in flight meanwhile, so the
 * record looked up stays the answer: no second look after the step-up.
 */
export type Admit = (replaying: boolean) => void | Promise<void>;

/**
 * The same rules for a request whose effects are not a core command (webhook operations):
 * `perform` opens its own transaction and stores in it the record that `keep(response)`
 * builds, so the key is consumed exactly when the effects exist; a refusal it throws
 * consumes nothing. `admit` runs after the replay lookup (Admit). `beforeRun` runs after
 * the replay check and before `perform` (a quota belongs there: an idempotent replay must
 * not spend it).
 */
export async function runIdempotentOwn(
  ctx: Context, services: Services, scope: string,
  perform: (keep: (response: Response) => IdempotencyRecord) => Response | Promise<Response>,
  options: KeyRules & { beforeRun?: () => void; admit?: Admit } = {},
): Promise<void> {
  const key = idempotencyKeyOf(ctx, options);
  const hash = requestHash(ctx);
  const now = services.write.clock.now();
  const slot = `${scope}\u0000${key}`;
  const inFlight = inFlightOf(services);
  if (inFlight.has(slot)) throw new ApiError('idempotency_in_flight', undefined, undefined, 1);
  const prior = services.idempotency.get(scope, key, now);
  if (prior) {
    // Another body under a used key is told as such before any admission check: a retry's
    // step-up is bound to the request it authorised, so it would refuse a changed body as
    // "another action" and hide the answer the key's rules give (idempotency_key_reused).
    const earlierHash = rawRequestHash(ctx); // hashed once: the check here and the replay's
    refuseChangedRequest(prior, hash, earlierHash);
    await options.admit?.(true);
    return replay(ctx, prior, hash, earlierHash);
  }
  inFlight.add(slot);
  try {
    await options.admit?.(false);
    options.beforeRun?.();
    const requestId = ctx.state.requestId as string;
    // The body is serialised once: the record stores the bytes the answer sends.
    let kept: { response: Response; text: string } | undefined;
    const response = await perform((r) => {
      kept = { response: r, text: JSON.stringify(r.body ?? null) };
      return { scope, key, requestHash: hash, requestId, status: r.status, body: kept.text, createdAt: now, expiresAt: now + limits.idempotencyKeyLifetimeMs };
    });
    send(ctx, response, kept?.response === response ? kept.text : undefined);
  } finally {
    inFlight.delete(slot);
  }
}
