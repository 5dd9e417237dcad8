// Operator routes for webhooks under /v1/bo: endpoints (created at onboarding, listed,
// disabled and re-enabled by hand), delivery records with their attempts, resend of one
// delivery and bulk replay (both ⚑: step-up token and Idempotency-Key), and the signing
// key rotation (⚑). Thin: validate, call WebhookOperations inside one transaction with
// the request's idempotency record, present. The resend quota (10 commands per minute
// per endpoint) is checked after the idempotent-replay check, so a replayed answer does
// not spend it; bulk replay does not count against it (contract: Delivery rules).

import Router from '@koa/router';
import type { Context } from 'koa';
import { presentAttempt, presentDelivery, deliveryStatuses, type DeliveryStatus } from '../../adapters/webhooks/deliveries.ts';
import { presentEndpoint, type Endpoint } from '../../adapters/webhooks/endpoints.ts';
import { webhookLimits } from '../../core/limits.ts';
import type { Result } from '../../adapters/webhooks/operations.ts';
import { hostOf, urlProblem } from '../../adapters/webhooks/url-policy.ts';
import type { Webhooks } from '../../adapters/webhooks/webhooks.ts';
import { iso } from '../../core/present.ts';
import { operatorAuth, operatorOf, requireStepUp } from '../auth/operator.ts';
import { ApiError } from '../errors.ts';
import { runIdempotentOwn, type Response } from '../idempotency.ts';
import type { Services } from '../ports.ts';
import { RateLimiter, rateLimitedError, rateLimitHeaders } from '../rate-limit.ts';
import { parseIso } from '../time.ts';
import { compile } from '../validate.ts';
import { webhookEventTypes } from '../openapi/webhooks.ts';
import { visible } from '../schemas.ts';
import { fingerprintedUrl, redactWebhookUrl } from '../secret-text.ts';
import { noteChanges } from './bo-audit.ts';
import { bodyOf, notFound, parseWith, queryOf, operatorScope } from './common.ts';
import { decodeFilterCursor, encodeFilterCursor, enumParam, limitParam, readQuery } from './read-params.ts';

// One of the types the service sends: a misspelt one ("deposit.setled") would leave the
// endpoint subscribed to nothing but the mandatory events, silently (bad-input audit).
const eventType = { enum: Object.keys(webhookEventTypes) } as const;
const endpointUrl = { type: 'string', minLength: 1, maxLength: webhookLimits.endpointUrlLengthMax, pattern: visible } as const;
const eventTypes = { type: 'array', uniqueItems: true, maxItems: webhookLimits.eventTypesPerEndpointMax, items: eventType } as const;
const schemas = {
  endpoint: compile<{ url: string; livemode: boolean; event_types?: string[] }>({
    type: 'object', additionalProperties: false, required: ['url', 'livemode'],
    properties: { url: endpointUrl, livemode: { type: 'boolean' }, event_types: eventTypes },
  }),
  update: compile<{ url?: string; event_types?: string[] | null }>({
    type: 'object', additionalProperties: false, minProperties: 1,
    properties: { url: endpointUrl, event_types: { ...eventTypes, type: ['array', 'null'] } },
  }),
  empty: compile<Record<string, never>>({ type: 'object', additionalProperties: false, properties: {} }),
  replay: compile<{ event_types?: string[]; created_after: string; created_before: string; only_failed?: boolean }>({
    type: 'object', additionalProperties: false, required: ['created_after', 'created_before'],
    properties: { event_types: { type: 'array', uniqueItems: true, maxItems: webhookLimits.eventTypesPerEndpointMax, items: eventType },
      created_after: { type: 'string', format: 'date-time' }, created_before: { type: 'string', format: 'date-time' }, only_failed: { type: 'boolean' } },
  }),
  rotate: compile<{ notice_seconds?: number }>({
    type: 'object', additionalProperties: false,
    properties: { notice_seconds: { type: 'integer', minimum: webhookLimits.keyRotationNoticeMsMin / 1000, maximum: webhookLimits.keyRotationNoticeMs / 1000 } },
  }),
  list: compile<{ limit?: string; status?: DeliveryStatus; cursor?: string }>({
    type: 'object', additionalProperties: false,
    properties: { limit: { type: 'string', pattern: '^[0-9]{1,3}$' }, status: { enum: [...deliveryStatuses] }, cursor: { type: 'string', maxLength: 200 } },
  }, { in: 'query' }),
};

function unwrap<T>(r: Result<T>): T {
  if (!r.ok) throw ApiError.from(r.rejection);
  return r.value;
}

export function webhookBackOfficeRoutes(services: Services, webhooks: Webhooks, verify: Parameters<typeof operatorAuth>[0]): Router {
  const router = new Router({ prefix: '/v1/bo', sensitive: true });
  router.use(operatorAuth(verify));
  const ops = webhooks.operations;
  const resendLimiter = new RateLimiter();
  /** Runs `act` and the idempotency record in one transaction. */
  const idempotent = (ctx: Context, act: () => Response, beforeRun?: () => void) => runIdempotentOwn(ctx, services, operatorScope(ctx), (keep) => ops.transact(() => {
    const response = act();
    if (!ops.keepIdempotency(keep(response))) throw new ApiError('idempotency_in_flight', undefined, undefined, 1);
    return response;
  }), beforeRun ? { beforeRun } : {});
  const endpointOf = (ctx: Context): Endpoint => {
    const e = webhooks.endpoints.get(ctx.params.endpointId!);
    if (!e) throw notFound('webhook endpoint');
    return e;
  };

  router.post('/merchants/:id/webhook-endpoints', async (ctx) => {
    const b = parseWith(schemas.endpoint, bodyOf(ctx));
    const merchantId = ctx.params.id!;
    if (!services.write.world.merchants.has(merchantId)) throw notFound('merchant');
    const url = await checkUrl(b.url, webhooks);
    await idempotent(ctx, () => ({ status: 201, body: presentEndpoint(unwrap(ops.createEndpoint(merchantId, b.livemode, url, b.event_types ?? null))) }));
  });

  router.get('/merchants/:id/webhook-endpoints', (ctx) => {
    readQuery(ctx, []); // no parameters: an unknown one is refused, not ignored
    if (!services.write.world.merchants.has(ctx.params.id!)) throw notFound('merchant');
    ctx.body = { data: [true, false].flatMap((livemode) => webhooks.endpoints.forMerchant(ctx.params.id!, livemode).map((e) => shownEndpoint(ctx, e))) };
  });

  router.get('/webhooks/:endpointId', (ctx) => {
    readQuery(ctx, []);
    ctx.body = shownEndpoint(ctx, endpointOf(ctx));
  });

  // A new URL or subscription for the same endpoint (its id, history and signing kept); POST, as Stripe updates an object.
  router.post('/webhooks/:endpointId', async (ctx) => {
    const b = parseWith(schemas.update, bodyOf(ctx));
    endpointOf(ctx); // an unknown endpoint is told so before its new host is resolved
    const url = b.url === undefined ? undefined : await checkUrl(b.url, webhooks);
    const change = { ...(url === undefined ? {} : { url }), ...(b.event_types === undefined ? {} : { eventTypes: b.event_types }) };
    await idempotent(ctx, () => {
      // Read once the URL is checked: another change may have landed while its host resolved,
      // and this one is decided (what moves, the version), and logged, against the endpoint as it is now.
      const endpoint = endpointOf(ctx);
      const updated = unwrap(ops.update(endpoint, change));
      noteChanges(ctx, endpointChanges(endpoint, updated));
      return { status: 200, body: presentEndpoint(updated) };
    });
  });

  for (const [path, enabled] of [['enable', true], ['disable', false]] as const) {
    router.post(`/webhooks/:endpointId/${path}`, async (ctx) => {
      parseWith(schemas.empty, bodyOf(ctx));
      const endpoint = endpointOf(ctx);
      await idempotent(ctx, () => ({ status: 200, body: presentEndpoint(unwrap(ops.setEnabled(endpoint, enabled))) }));
    });
  }

  // Gone for good (a disabled endpoint only): out of the merchant's lists, its deliveries kept for the record.
  router.delete('/webhooks/:endpointId', async (ctx) => {
    readQuery(ctx, []);
    const endpoint = endpointOf(ctx);
    await idempotent(ctx, () => ({ status: 200, body: { ...presentEndpoint(unwrap(ops.delete(endpoint))), deleted: true } }));
  });

  router.get('/webhooks/:endpointId/deliveries', (ctx) => {
    const query = queryOf(ctx);
    const limit = limitParam(query.limit, webhookLimits.deliveriesPageSizeDefault, webhookLimits.deliveriesPageSizeMax); // the reasons every list gives
    enumParam(query.status, 'status', deliveryStatuses); // and the words
    const q = parseWith(schemas.list, query);
    const endpoint = endpointOf(ctx);
    const status = q.status ?? null;
    const before = q.cursor === undefined ? null : readCursor(q.cursor, endpoint.id, status);
    const rows = webhooks.deliveries.page(endpoint.id, status, before, limit + 1);
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    ctx.body = { object: 'list', data: page.map((d) => presentDelivery(d, endpoint)), has_more: hasMore, next_cursor: hasMore ? writeCursor(page[page.length - 1]!.id, endpoint.id, status) : null };
  });

  router.get('/webhooks/:endpointId/deliveries/:deliveryId', (ctx) => {
    readQuery(ctx, []);
    const endpoint = endpointOf(ctx);
    const d = webhooks.deliveries.get(ctx.params.deliveryId!);
    if (!d || d.endpointId !== endpoint.id) throw notFound('delivery');
    ctx.body = { ...presentDelivery(d, endpoint), attempts: webhooks.deliveries.attempts(d.id).map(presentAttempt) };
  });

  router.post('/webhooks/:endpointId/deliveries/:deliveryId/resend', async (ctx) => {
    parseWith(schemas.empty, bodyOf(ctx));
    const endpoint = endpointOf(ctx);
    const original = webhooks.deliveries.get(ctx.params.deliveryId!);
    if (!original || original.endpointId !== endpoint.id) throw notFound('delivery');
    await requireStepUp(ctx); // after the lookups: an unknown endpoint or delivery spends none
    const quota = () => {
      const result = resendLimiter.take('webhook_resend', endpoint.id, services.securityClock.now()); // security time: the wall clock
      ctx.set(rateLimitHeaders(result, 'webhook_resend'));
      if (!result.allowed) throw rateLimitedError(result, 'webhook_resend', 'endpoint');
    };
    await idempotent(ctx, () => {
      const d = unwrap(ops.resend(endpoint, original));
      return { status: 201, body: { delivery_id: d.id, livemode: endpoint.livemode, event_id: d.eventId, status: d.status, attempt: d.attempt, resend: d.resend, created_at: iso(d.createdAt) } };
    }, quota);
  });

  router.post('/webhooks/:endpointId/replay', async (ctx) => {
    const b = parseWith(schemas.replay, bodyOf(ctx));
    endpointOf(ctx); // an unknown endpoint is told so before the step-up is spent
    const createdAfter = parseIso(b.created_after)!, createdBefore = parseIso(b.created_before)!;
    if (createdBefore <= createdAfter) throw new ApiError('validation_error', 'created_before must be after created_after.', { fields: [{ path: 'created_before', reason: 'range' }] });
    // A window wholly older than what may be replayed would be scheduled empty, saying nothing of why.
    const oldest = services.write.clock.now() - webhookLimits.resendEventAgeMsMax;
    if (createdBefore <= oldest) {
      throw new ApiError('validation_error', `Events are replayed within ${webhookLimits.resendEventAgeMsMax / 86_400_000} days of their created_at; this window ends before ${iso(oldest)}.`, { fields: [{ path: 'created_before', reason: 'range', hint: `after ${iso(oldest)}` }] });
    }
    await requireStepUp(ctx);
    await idempotent(ctx, () => {
      // Read after the step-up (its issuer's keys may be fetched meanwhile): the replay is
      // decided on the endpoint as it is now, another operator's disable or new subscription included.
      const endpoint = endpointOf(ctx);
      const r = unwrap(ops.replay(endpoint, { eventTypes: b.event_types ?? [], createdAfter, createdBefore, onlyFailed: b.only_failed ?? false }, operatorOf(ctx).sub));
      return { status: 202, body: {
        id: r.id, object: 'webhook_replay', livemode: endpoint.livemode, endpoint_id: endpoint.id, status: 'scheduled', event_count: r.eventCount, release_per_second: webhookLimits.replayEventsReleasedPerSecond,
        first_release_at: r.firstReleaseAt === null ? null : iso(r.firstReleaseAt), last_release_at: r.lastReleaseAt === null ? null : iso(r.lastReleaseAt),
        has_more: r.hasMore, next_created_after: r.nextCreatedAfter === null ? null : iso(r.nextCreatedAfter), created_at: iso(services.write.clock.now()),
      } };
    });
  });

  router.post('/webhooks/signing-keys/rotate', async (ctx) => {
    const b = parseWith(schemas.rotate, bodyOf(ctx));
    await requireStepUp(ctx);
    await idempotent(ctx, () => {
      const r = unwrap(ops.rotate((b.notice_seconds ?? webhookLimits.keyRotationNoticeMs / 1000) * 1000));
      return { status: 201, body: { kid: r.key.kid, previous_kid: r.previousKid, not_before: iso(r.key.notBefore), status: 'next', announced_deliveries: r.announcedTo } };
    });
  });

  // A leaked key: once rotated out, withdrawn from the published list at once (not 30 days later).
  router.post('/webhooks/signing-keys/:kid/withdraw', async (ctx) => {
    parseWith(schemas.empty, bodyOf(ctx));
    // An unknown kid, or the key signing now, spends no step-up (a key is never removed, and one that stopped signing never signs again).
    unwrap(ops.withdrawableKey(ctx.params.kid!));
    await requireStepUp(ctx);
    await idempotent(ctx, () => {
      const r = unwrap(ops.withdrawKey(ctx.params.kid!));
      return { status: 200, body: { kid: r.kid, status: 'withdrawn', withdrawn_at: iso(r.withdrawnAt) } };
    });
  });

  return router;
}

/**
 * An endpoint as the operator reading it may see it: its URL whole for ops_admin, who
 * manages endpoints; for the other roles (support reads delivery health) its scheme and
 * host only, the path and the query redacted (redactWebhookUrl), as the request log keeps it —
 * merchants authenticate receivers with a ?token=, providers with a secret path
 * (hooks.slack.com/services/…).
 */
function shownEndpoint(ctx: Context, e: Endpoint): ReturnType<typeof presentEndpoint> {
  const shown = presentEndpoint(e);
  return operatorOf(ctx).roles.includes('ops_admin') ? shown : { ...shown, url: redactWebhookUrl(shown.url) };
}

/**
 * An endpoint's URL and subscription before and after an update, for the action log: nothing
 * else keeps the old ones, and it keeps them for good. The URLs as scheme, host and a
 * fingerprint of the rest (fingerprintedUrl), as the endpoints table keeps them in clear.
 */
function endpointChanges(before: Endpoint, after: Endpoint): Parameters<typeof noteChanges>[1] {
  const sameTypes = JSON.stringify(before.eventTypes) === JSON.stringify(after.eventTypes);
  return {
    ...(before.url === after.url ? {} : { url: { before: fingerprintedUrl(before.url), after: fingerprintedUrl(after.url) } }),
    ...(sameTypes ? {} : { event_types: { before: before.eventTypes, after: after.eventTypes } }),
  };
}

/**
 * Refuses a URL this deployment may not deliver to (production: https, public addresses
 * only); else the URL as the WHATWG parser writes it (scheme and host in lower case, an
 * empty path as "/"), which is what is stored, shown and called.
 */
async function checkUrl(url: string, webhooks: Webhooks): Promise<string> {
  const problem = urlProblem(url, webhooks.mode);
  const refuse = (hint: string) => new ApiError('validation_error', `url: ${hint}.`, { fields: [{ path: 'url', reason: 'not_allowed', hint }] });
  if (problem) throw refuse(problem);
  const parsed = new URL(url);
  if (webhooks.mode !== 'production') return parsed.href;
  const resolved = await webhooks.resolvesPublicOnly(hostOf(parsed));
  if (!resolved.ok) throw refuse(resolved.error ? `the host does not resolve (${resolved.error})` : (resolved.refused ? `the host resolves to a refused address: ${resolved.refused}` : 'the host resolves to an address that is not public unicast'));
  return parsed.href;
}

/**
 * A deliveries page's cursor: where it ended, bound to this list, its endpoint (the path's)
 * and status filter, as every back-office list's (another list's cursor is a mismatch).
 */
const deliveriesFilters = (endpointId: string, status: DeliveryStatus | null) => JSON.stringify(['deliveries', endpointId, status]);

function writeCursor(beforeId: string, endpointId: string, status: DeliveryStatus | null): string {
  return encodeFilterCursor({ b: beforeId }, deliveriesFilters(endpointId, status));
}

function readCursor(cursor: string, endpointId: string, status: DeliveryStatus | null): string {
  return decodeFilterCursor(cursor, deliveriesFilters(endpointId, status), (c): c is Record<string, unknown> & { b: string } => typeof c.b === 'string')!.b;
}

/** The request schemas, for the OpenAPI document (server/openapi/). */
export { schemas as webhookBackOfficeSchemas };
