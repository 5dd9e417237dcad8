// Who did what: the audit middleware and its two reads.
//
// The middleware runs outside the error mapper (server/app.ts outerMiddleware), so it sees
// every answer as sent. For every request it adds a row to the request log (redacted and
// truncated before storage, on the request log's worker thread: server/request-log-thread.ts;
// this thread hands over only texts it has anyway); for every /v1/bo request it appends to the
// action log — the operator's subject and roles, the route, the target ids, request_id,
// IP, whether a step-up was verified, and the outcome — including refused
// authentications (subject as the token claimed it, unverified, flagged so) and refused
// authorisations (the roles table said no). A call that changed a setting whose old value
// no other record keeps (a webhook endpoint's URL) adds it, before and after, as its route
// noted it (noteChanges), on its row when it succeeded.
//
// GET /v1/bo/logs reads the request log, GET /v1/bo/reports/action-logs the action log;
// both newest first with an opaque cursor bound to their filters.

import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Clock } from '../../core/ports.ts';
import { backOfficeLimits, requestLimits } from '../../core/limits.ts';
import { iso } from '../../core/present.ts';
import { actionOutcomes, type ActionLog, type ActionRecord } from '../../adapters/sqlite/action-log.ts';
import { bearer, type KnownKeyState } from '../auth/merchant.ts';
import { identifyOperator, operatorAuth, operatorOf, operatorTokenOf, requireStepUp, type Operator, type Verify } from '../auth/operator.ts';
import { ApiError } from '../errors.ts';
import { idempotencyKeyOf } from '../idempotency.ts';
import { parseIso } from '../time.ts';
import { bodyMarkOf, unserialisableMark } from '../body-marks.ts';
import { redactPath } from '../secret-text.ts';
import type { RouteLayer, RouteLayerState } from '../route-layer.ts';
import { emptyBody, writtenText } from '../schemas.ts';
import { escapeInvisible } from '../text-rules.ts';
import { compile } from '../validate.ts';
import { bodyOf, parseWith } from './common.ts';
import type { OperatorRevocationsTable } from '../../adapters/sqlite/operator-revocations.ts';
import { jsonTextOf } from '../request-body.ts';
import type { BodyHandoff, RequestLogThread } from '../request-log-thread.ts';
import { booleanParam, decodeFilterCursor, encodeFilterCursor, enumParam, limitParam, readQuery } from './read-params.ts';

interface AuditState {
  requestId?: string;
  operatorAuthAttempted?: boolean;
  operator?: Operator;
  authenticatedOperator?: Operator;
  unlogged?: boolean;
  actionLogHead?: string;
  /** What the call changed (noteChanges): kept on its action-log row when it succeeded. */
  actionChanges?: ActionChanges;
  stepUpUsed?: boolean;
  errorCode?: string;
  merchant?: { merchantId: string; livemode: boolean; key: { keyId: string } };
  /** A slip upload's order (server/slips/admission.ts): its merchant, mode and deposit. */
  slipOrder?: { merchantId: string; livemode: boolean; depositId: string };
  /** A revoked API key that was refused (server/auth/merchant.ts). */
  refusedKeyId?: string;
  /** A key found before authentication ended, or refused (server/auth/merchant.ts KnownKeyState). */
  knownKey?: KnownKeyState['knownKey'];
}

type ActionChanges = NonNullable<ActionRecord['changes']>;

/**
 * Notes, for the call's action-log row, what it changed: each field's value before and after,
 * already as a log may keep it (a URL redacted). Written only if the call answers below 400,
 * so a change refused or rolled back after this note leaves no claim of one.
 */
export function noteChanges(ctx: Context, changes: ActionChanges): void {
  if (Object.keys(changes).length > 0) (ctx.state as AuditState).actionChanges = changes;
}

/** The sub a bearer JWT claims, read without verifying it (for the record of a refusal only). */
function claimedSubject(ctx: Context): string | null {
  const token = bearer(ctx);
  const payload = token?.split('.')[1];
  if (!payload) return null;
  try {
    const sub = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: unknown }).sub;
    // Anyone may send any token: what it claims is kept short and with anything shaped like a
    // secret replaced, as the request log does, so a stranger cannot write one into the journal.
    return typeof sub === 'string' ? boundedText(sub) : null;
  } catch {
    return null;
  }
}

function outcomeOf(state: AuditState, status: number): ActionRecord['outcome'] {
  if (!state.operator) return state.authenticatedOperator ? 'refused_authorization' : 'refused_authentication';
  return status < 400 ? 'ok' : status >= 500 ? 'failed' : 'refused';
}

/**
 * Who made a /v1/bo call and how it ended. A call no route authenticated — a path or
 * method that does not exist (404, 405) — is put to the token here, so a valid token that
 * asked for the wrong thing is `refused` under its operator, not taken for a bad token.
 */
async function callerOf(ctx: Context, verify: Verify): Promise<{ operator: Operator | undefined; outcome: ActionRecord['outcome'] }> {
  const state = ctx.state as AuditState;
  if (!state.operatorAuthAttempted) {
    const token = bearer(ctx);
    const identified = token === undefined ? undefined : await identifyOperator(verify, token);
    if (identified && 'operator' in identified) return { operator: identified.operator, outcome: ctx.status >= 500 ? 'failed' : 'refused' };
  }
  return { operator: state.operator ?? state.authenticatedOperator, outcome: outcomeOf(state, ctx.status) };
}

type Layer = RouteLayer;

/**
 * The route that the call asked for: of the router that dispatched (as the roles check
 * asks it), else of any of the app's routers — a call refused before any router ran (a
 * media type, a body too large) was logged under its raw path, which a filter by route missed.
 */
function layerOf(ctx: Context): Layer | undefined {
  const dispatched = (ctx as Context & { router?: Router }).router;
  const layer = dispatched?.match(ctx.path, ctx.method).pathAndMethod.find((l) => l.methods.length > 0);
  return layer ?? (ctx.state as RouteLayerState).routeLayerOf?.(ctx);
}

/** The route pattern that answered, else the path, cut short. */
function routeOf(ctx: Context, layer: Layer | undefined): string {
  return layer ? String(layer.path) : boundedText(ctx.path);
}

/**
 * What a caller chose (an unmatched path, a claimed subject, a path parameter) as the
 * append-only action log keeps it: control and bidirectional characters written as their
 * codes, at most backOfficeLimits.auditTextLengthMax characters, secret-shaped text
 * replaced and account-number-shaped digits masked. Unbounded, a stranger's 7,500-character paths grew journal.db (and every backup)
 * by 9 MB a minute within the refusals' quota, rows nothing may delete (on-call audit).
 */
function boundedText(chosen: string): string {
  const max = backOfficeLimits.auditTextLengthMax;
  const text = escapeInvisible(chosen); // a forged sub's new line or right-to-left override, written as its code
  const kept = redactPath(text.length > max ? text.slice(0, max) : text);
  return text.length > max ? `${kept}…` : kept;
}

function boundedParams(params: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params ?? {})) out[k] = boundedText(v);
  return out;
}

/**
 * What a POST answered 201 made: the answer's `id`, `key_id` (an API key) or `kid` (a
 * signing key), a replay's too. Without it, the row of a key minted named only its merchant,
 * and once the request log aged out (30 days) no one could tell who minted which key.
 */
function createdOf(ctx: Context): string | undefined {
  if (ctx.method !== 'POST' || ctx.status !== 201) return undefined;
  let body: unknown = ctx.body;
  if (typeof body === 'string' && body.startsWith('{')) {
    try { body = JSON.parse(body); } catch { return undefined; }
  }
  if (body === null || typeof body !== 'object') return undefined;
  const b = body as { id?: unknown; key_id?: unknown; kid?: unknown };
  const id = [b.key_id, b.kid, b.id].find((x): x is string => typeof x === 'string' && x !== '');
  return id;
}

/** Query parameters that name whose data a read is about (a report's merchant, a list's deposit): the action log's targets too. */
const targetQueryKeys = ['merchant_id', 'white_label_id', 'deposit_id', 'withdrawal_id', 'account'];

/**
 * What a call was about: the route's params, and the query's named targets (a statement's
 * merchant is in its query). The params are read off the route's pattern when the call was
 * refused before its route ran (a role the roles table refused, a body that is not JSON): the
 * router's own ctx.params are then those of its router-wide middleware, none.
 */
function targetsOf(ctx: Context, layer: Layer | undefined): Record<string, string> {
  const own = (ctx as Context & { params?: Record<string, string> }).params;
  const params = own !== undefined && Object.keys(own).length > 0 ? own : layer ? layer.params(ctx.path, layer.captures(ctx.path), {}) as Record<string, string> : {};
  const out = boundedParams(params);
  const created = createdOf(ctx);
  if (created !== undefined) out.created = boundedText(created);
  for (const key of targetQueryKeys) {
    const value = ctx.query[key];
    if (typeof value === 'string' && value !== '' && out[key] === undefined) out[key] = boundedText(value);
  }
  return out;
}
const isLogRead = (route: string) => route === '/v1/bo/logs' || route === '/v1/bo/reports/action-logs';

/**
 * The answer's body as the request log's worker takes it. An object is serialised here,
 * once, and its text becomes ctx.body: Koa would run the same JSON.stringify on it when
 * it sends the answer (Content-Type is already JSON, so the bytes sent do not change), so
 * this thread pays nothing more, and redacting that text on the worker gives what
 * redacting the object did (bodyForLog parses a JSON string). A string is handed over as
 * it is; bytes, a stream or no body are marked here, without reading them.
 */
function responseHandoff(ctx: Context): BodyHandoff {
  const body: unknown = ctx.body;
  const mark = bodyMarkOf(body);
  if (mark !== undefined) return mark === null ? null : { kept: mark };
  if (typeof body === 'string') return body;
  let text: string | undefined;
  try {
    text = JSON.stringify(body);
  } catch {
    return { kept: unserialisableMark }; // Koa's own JSON.stringify will fail the same way; ctx.body is left to it
  }
  if (text === undefined) return null; // a toJSON that answered undefined: no JSON to keep
  if (!ctx.headerSent) ctx.body = text;
  return text;
}

export function auditMiddleware(actionLog: ActionLog, requestLog: RequestLogThread, wallClock: Clock, verify: Verify): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const state = ctx.state as AuditState;
      const layer = layerOf(ctx);
      const route = routeOf(ctx, layer);
      const operator = state.operator ?? state.authenticatedOperator;
      const at = wallClock.now();
      try {
        // A stranger's network past its quota of refusals is answered 429 without a row each
        // (counted in metrics, as for the request log): the refusals before it are rows.
        if ((ctx.path.startsWith('/v1/bo/') || ctx.path === '/v1/bo') && state.unlogged !== true) {
          const caller = await callerOf(ctx, verify);
          const head = actionLog.append({
            at, requestId: state.requestId ?? '', subject: caller.operator?.sub ?? claimedSubject(ctx), authenticated: caller.operator !== undefined,
            roles: caller.operator?.roles ?? [], method: ctx.method, route, targetIds: targetsOf(ctx, layer),
            ip: ctx.ip, stepUp: state.stepUpUsed === true, status: ctx.status, outcome: caller.outcome, errorCode: state.errorCode ?? null,
            ...(state.actionChanges !== undefined && ctx.status < 400 ? { changes: state.actionChanges } : {}),
          });
          // On the server's log line for this request: an anchor kept off the host, which `satang verify --action-log-head` checks.
          state.actionLogHead = `${head.id}:${head.hash}`;
        }
      } finally {
        // The request log's row only after the action log's: a call logs.db holds has its row there (satang verify checks).
        if (state.unlogged !== true) requestLog.add({
          at, requestId: state.requestId ?? '', merchantId: state.merchant?.merchantId ?? state.slipOrder?.merchantId ?? state.knownKey?.merchantId ?? null,
          livemode: state.merchant?.livemode ?? state.slipOrder?.livemode ?? state.knownKey?.livemode ?? null,
          keyId: state.merchant?.key.keyId ?? state.refusedKeyId ?? state.knownKey?.keyId ?? null, ip: ctx.ip || null,
          operator: operator?.sub ?? null, method: ctx.method, route, status: ctx.status, durationMs: Math.round(performance.now() - started),
          errorCode: state.errorCode ?? null, requestBody: jsonTextOf(ctx) ?? null,
          responseBody: isLogRead(route) ? { kept: '[omitted: a log read]' } : responseHandoff(ctx),
        });
      }
    }
  };
}

// ---- reads: newest first by row id, the cursor names the last id and the filters ----

function cursorOf(raw: string | undefined, filters: string): number | undefined {
  return decodeFilterCursor(raw, filters, (c): c is Record<string, unknown> & { before: number } => typeof c.before === 'number')?.before;
}

function sinceOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const ms = parseIso(raw);
  if (ms === null) throw new ApiError('validation_error', 'since is an RFC 3339 instant.', { fields: [{ path: 'query.since', reason: 'format' }] });
  return ms;
}

function pageAnswer<T extends { id: number }>(rows: T[], limit: number, filters: string, present: (row: T) => unknown): Record<string, unknown> {
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { object: 'list', data: page.map(present), has_more: hasMore, next_cursor: hasMore && last ? encodeFilterCursor({ before: last.id }, filters) : null };
}

const revokeBody = compile<{ reason?: string }>({ type: 'object', additionalProperties: false, properties: { reason: { type: 'string', minLength: 1, maxLength: 500, pattern: writtenText } } });

export function backOfficeAuditRoutes(actionLog: ActionLog, requestLog: RequestLogThread, verify: Parameters<typeof operatorAuth>[0], revocations?: OperatorRevocationsTable): Router {
  const router = new Router({ prefix: '/v1/bo', sensitive: true });
  router.use(operatorAuth(verify));
  const { logPageSizeDefault, logPageSizeMax } = backOfficeLimits;

  router.get('/logs', async (ctx) => {
    const q = readQuery(ctx, ['request_id', 'merchant_id', 'key_id', 'route', 'status', 'since', 'clock_reads', 'cursor', 'limit']);
    const clockReads = booleanParam(q.clock_reads, 'clock_reads') ?? true;
    const status = q.status === undefined ? undefined : /^[1-5][0-9]{2}$/.test(q.status) ? Number(q.status) : undefined;
    if (q.status !== undefined && status === undefined) throw new ApiError('validation_error', 'status is an HTTP status code.', { fields: [{ path: 'query.status', reason: 'format' }] });
    const filters = JSON.stringify(['request_log', q.request_id ?? null, q.merchant_id ?? null, q.route ?? null, status ?? null, q.since ?? null, q.key_id ?? null, ...(clockReads ? [] : ['without_clock_reads'])]);
    const limit = limitParam(q.limit, logPageSizeDefault, logPageSizeMax);
    const before = cursorOf(q.cursor, filters);
    const since = sinceOf(q.since);
    const rows = await requestLog.page({
      ...(q.request_id !== undefined ? { requestId: q.request_id } : {}), ...(q.merchant_id !== undefined ? { merchantId: q.merchant_id } : {}),
      ...(q.key_id !== undefined ? { keyId: q.key_id } : {}),
      ...(q.route !== undefined ? { route: q.route } : {}), ...(status !== undefined ? { status } : {}), ...(since !== undefined ? { since } : {}),
      withoutClockReads: !clockReads, ...(before !== undefined ? { beforeId: before } : {}), limit: limit + 1,
    });
    ctx.body = {
      ...pageAnswer(rows, limit, filters, (r) => ({
        id: r.id, at: iso(r.at), request_id: r.request_id, merchant_id: r.merchant_id, livemode: r.livemode === null ? null : r.livemode === 1,
        key_id: r.key_id ?? null, ip: r.ip ?? null, operator: r.operator,
        method: r.method, route: r.route, status: r.status, duration_ms: r.duration_ms, error_code: r.error_code, request_body: r.request_body, response_body: r.response_body,
      })),
      retention_days: backOfficeLimits.requestLogRetentionMs / 86_400_000,
    };
  });

  router.get('/reports/action-logs', (ctx) => {
    const q = readQuery(ctx, ['subject', 'outcome', 'route', 'since', 'clock_reads', 'cursor', 'limit']);
    const outcome = enumParam(q.outcome, 'outcome', actionOutcomes); // a typo is refused, not answered with an empty list
    const clockReads = booleanParam(q.clock_reads, 'clock_reads') ?? true;
    const filters = JSON.stringify(['action_log', q.subject ?? null, q.outcome ?? null, q.route ?? null, q.since ?? null, ...(clockReads ? [] : ['without_clock_reads'])]);
    const limit = limitParam(q.limit, logPageSizeDefault, logPageSizeMax);
    const before = cursorOf(q.cursor, filters);
    const since = sinceOf(q.since);
    const rows = actionLog.page({
      ...(q.subject !== undefined ? { subject: q.subject } : {}), ...(outcome !== undefined ? { outcome } : {}), ...(q.route !== undefined ? { route: q.route } : {}),
      ...(since !== undefined ? { since } : {}), withoutClockReads: !clockReads, ...(before !== undefined ? { beforeId: before } : {}), limit: limit + 1,
    });
    ctx.body = pageAnswer(rows as (typeof rows[number] & { id: number })[], limit, filters, (r) => ({
      id: r.id, at: iso(r.at as number), request_id: r.request_id, subject: r.subject, authenticated: r.authenticated === 1, roles: JSON.parse(r.roles as string),
      method: r.method, route: r.route, target_ids: JSON.parse(r.target_ids as string), ip: r.ip, step_up: r.step_up === 1, status: r.status,
      outcome: r.outcome, error_code: r.error_code, changes: r.changes === null ? null : JSON.parse(r.changes as string), hash: r.hash, prev_hash: r.prev_hash,
    }));
  });

  // Off-boarding: an operator who left is disabled at the issuer, and their tokens issued
  // until now (access tokens live up to 12 h) are refused from this request on.
  if (revocations) router.post('/operators/:sub/revoke', async (ctx) => {
    const b = parseWith(revokeBody, bodyOf(ctx));
    const sub = ctx.params.sub!;
    if (sub.length > 200) throw new ApiError('validation_error', 'An operator subject is at most 200 characters.', { fields: [{ path: 'sub', reason: 'too_long' }] });
    await requireStepUp(ctx); // after the subject's 422, which spends none
    // Up to the issuer's clock skew ahead: a token an issuer whose clock runs fast stamped "later" is refused too.
    const r = revocations.revoke(sub, Math.floor(Date.now() / 1000) + requestLimits.operatorIssuerClockSkewSecondsMax, operatorOf(ctx).sub, b.reason ?? null);
    // Whether this subject ever signed in here: a typo ("emp_pl0y") revokes nobody, and says so.
    ctx.body = { object: 'operator_revocation', sub: r.sub, tokens_issued_before: iso((r.revokedAtSeconds + 1) * 1000), revoked_by: r.by, reason: r.reason, seen_before: actionLog.hasSignedIn(sub) };
  });

  // Sign-out: the access token of this request is refused from now on, so one copied from
  // the page (or left in a shared machine's memory) does not outlive the session that
  // held it. The operator's other sessions (another browser, the CLI) go on.
  // Signing out twice is signing out: the Idempotency-Key every operator POST carries is
  // required, and nothing more is needed of it.
  if (revocations) router.post('/session/sign-out', (ctx) => {
    idempotencyKeyOf(ctx);
    parseWith(emptyBody, bodyOf(ctx)); // none or {}
    const token = operatorTokenOf(ctx);
    const nowSeconds = Math.floor(Date.now() / 1000);
    revocations.signOut(token.id, token.expiresAtSeconds, nowSeconds);
    ctx.body = { object: 'operator_sign_out', sub: operatorOf(ctx).sub, signed_out_at: iso(nowSeconds * 1000), token_expires_at: iso(token.expiresAtSeconds * 1000) };
  });

  return router;
}
