// The Koa application: a tiny core with everything else as middleware, in this order:
// request id → access log → the one error mapper → the body policy (deadline; an unread
// body closes its connection) → rate limits (headers on every answer) → load shedding →
// the body's declared type → routers per surface. No body is read here: each surface
// reads its own once the request is authenticated (server/request-body.ts), so a request
// refused before that costs the server its headers only.

import Koa from 'koa';
import Router from '@koa/router';
import type { RouteLayer, RouteLayerState } from './route-layer.ts';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import ipaddr from 'ipaddr.js';
import type { Logger } from 'pino';
import { ApiError, catalogue, errorMiddleware } from './errors.ts';
import { payerMessageTh } from './slips/payer-messages.ts';
import type { KnownKeyState } from './auth/merchant.ts';
import { requestIdMiddleware } from './request-id.ts';
import { RateLimiter, rateLimitedError, rateLimitHeaders, type BucketName } from './rate-limit.ts';
import { bearer, keyRefusal, noteKnownKey } from './auth/merchant.ts';
import type { Config } from './config.ts';
import type { Services } from './ports.ts';
import { depositRoutes } from './routes/deposits.ts';
import { walletRoutes } from './routes/withdrawals.ts';
import { backOfficeRoutes } from './routes/bo.ts';
import type { CapabilitySigner } from './capability.ts';
import { chargeUnroutedOperatorCall, identifyOperator, type operatorAuth } from './auth/operator.ts';
import { bodyPolicy, declaresBody, refuseOtherCharset } from './request-body.ts';
import { requestLimits } from '../core/limits.ts';
import { documentOf } from './openapi/document.ts';
import type { Metrics } from './metrics.ts';
import type { Readiness } from './readiness.ts';
import { redactPath } from './secret-text.ts';

export interface AppParts {
  readonly services: Services;
  readonly config: Config;
  readonly logger: Logger;
  readonly capability: CapabilitySigner;
  readonly verifyOperator: Parameters<typeof operatorAuth>[0];
  /** The load meter (tests may pass one whose lag they set). */
  readonly loadMeter?: LoadMeter;
  /** How long a JSON body may take to arrive (request-timeouts.ts; tests shorten it). */
  readonly bodyDeadlineMs?: number;
  /** Extra routers (slip upload, webhooks, sandbox, simulator) mounted by later modules. */
  readonly extraRouters?: readonly Router[];
  /** Middleware that must see every answer as sent (outside the error mapper): the back office's audit (request log, action log). */
  readonly outerMiddleware?: readonly Koa.Middleware[];
  /** Prometheus metrics (server/metrics.ts); absent in specs that build the app alone. */
  readonly metrics?: Metrics;
  /** GET /readyz's answer (server/readiness.ts); without it the app is ready once it answers. */
  readonly readiness?: () => Readiness;
}

const { shedDepositsLagMs, shedReadsLagMs, loadWindowMs } = requestLimits;

/**
 * The event loop's mean delay over the last full window (one second): a spike counts for
 * the next window and then ages out, so shedding never locks itself on.
 */
export class LoadMeter {
  recentLagMs = 0;
  private readonly histogram = monitorEventLoopDelay({ resolution: 10 });
  private readonly timer: NodeJS.Timeout;
  constructor() {
    this.histogram.enable();
    this.timer = setInterval(() => {
      this.recentLagMs = this.histogram.count > 0 ? this.histogram.mean / 1e6 : 0;
      this.histogram.reset();
    }, loadWindowMs);
    this.timer.unref();
  }
  stop(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }
}

/** Liveness and readiness: answered to anyone, the strangers' quota aside. */
const probePaths = new Set(['/healthz', '/readyz']);

/** A client's network for its rate limits: an IPv4 address, or an IPv6 address's /64 (one host's usual share). */
export function clientNetwork(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip); // an IPv4-mapped IPv6 address as the IPv4 one
  if (address.kind() === 'ipv4') return address.toString();
  return `${(address as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16)).join(':')}::/64`;
}

/** The public webhook support routes (no auth), limited per client address. */
const publicWebhookPaths = new Set(['/v1/webhooks/signing-keys', '/v1/webhooks/test-vectors']);
const balanceHistoryPath = '/v1/pay/balance/transactions';

export function createApp(parts: AppParts): Koa {
  const { services, config, logger } = parts;
  const app = new Koa();
  // The client's address: the socket's, or behind SATANG_TRUST_PROXY proxies the one they name.
  app.proxy = config.trustProxyHops > 0;
  app.maxIpsCount = config.trustProxyHops;
  // Two limiters, so that no stranger can take a merchant's window away: one window per
  // known API key (as many as the keys onboarded), and the rest — no key, or a key that
  // is not one of ours — per client network (an IPv4 address, an IPv6 /64), evicted
  // among themselves when too many.
  const keyLimiter = new RateLimiter();
  const networkLimiter = new RateLimiter();
  const strangerLimiter = new RateLimiter();
  let routeLabel: (ctx: Koa.Context) => string | undefined = () => undefined;
  let routeLayer: (ctx: Koa.Context) => RouteLayer | undefined = () => undefined;
  let namesResource: (path: string) => boolean = () => false;
  const routeLayerOf = (ctx: Koa.Context) => routeLayer(ctx); // one function for every request: nothing allocated per request
  const loadMeter = parts.loadMeter ?? new LoadMeter();

  app.use(requestIdMiddleware());
  // The route a request asked for, for the middleware outside every router (the action log):
  // a call refused before its route ran (a role, a media type, a body) still names it.
  app.use((ctx, next) => { (ctx.state as RouteLayerState).routeLayerOf = routeLayerOf; return next(); });
  app.use(async (ctx, next) => {
    // The API's answers carry keys, slip capabilities and account data: no cache keeps one
    // unless its route says otherwise (the published signing keys may be cached).
    try {
      await next();
    } finally {
      if (!ctx.headerSent && !ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-store');
    }
  });
  app.use(async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      parts.metrics?.observeRequest(ctx.method, routeLabel(ctx), ctx.status, (performance.now() - started) / 1000);
      if (logger.isLevelEnabled('info') && (ctx.state as { unlogged?: boolean }).unlogged !== true) {
        // Who asked, so a merchant's or an operator's requests can be followed in the log alone.
        const who = ctx.state as { merchant?: { merchantId: string }; slipOrder?: { merchantId: string }; operator?: { sub: string }; authenticatedOperator?: { sub: string } } & KnownKeyState;
        logger.info({
          request_id: ctx.state.requestId, method: ctx.method, route: redactPath(ctx.path), status: ctx.status, duration_ms: Math.round(performance.now() - started), code: ctx.state.errorCode,
          merchant_id: who.merchant?.merchantId ?? who.slipOrder?.merchantId ?? who.knownKey?.merchantId, operator: (who.operator ?? who.authenticatedOperator)?.sub, action_log: ctx.state.actionLogHead,
        }, 'request');
      }
    }
  });
  for (const m of parts.outerMiddleware ?? []) app.use(m);
  // The slip upload is the one route a payer's own device calls: its refusals carry a sentence for their screen.
  app.use(errorMiddleware(logger, (ctx, code, details) => (isSlipUpload(ctx) ? payerMessageTh(code, details) : undefined)));
  app.use(async (ctx, next) => {
    // Strangers, on every path: a client network whose requests without an identity keep
    // being refused (401, 404, 429 …) gets, once it has had its quota of those in a minute
    // (rateLimitPolicies.strangers), 429 at once until the minute is over, and those answers
    // are counted, not each written to the request log — made-up keys, tokens and paths
    // cannot grow logs.db. Someone known — a merchant's key, an operator's token that
    // verifies, a slip capability that reads — is never held up by strangers on its network
    // (looked at only then).
    // The probes are no one's and refuse no one: a health checker behind the same NAT as a stranger is never held up.
    if (ctx.method === 'GET' && probePaths.has(ctx.path)) return next();
    const network = networkOf(ctx.ip);
    const now = services.securityClock.now();
    const standing = strangerLimiter.peek('strangers', network, now);
    if (!standing.allowed && !(await knownBearer(ctx))) {
      (ctx.state as { unlogged?: boolean }).unlogged = true;
      ctx.set(rateLimitHeaders(standing, 'strangers'));
      throw rateLimitedError(standing, 'strangers', 'ip');
    }
    let status = 500;
    try {
      await next();
      status = ctx.status;
    } catch (error) {
      if (error instanceof ApiError) status = catalogue[error.code].status;
      throw error;
    } finally {
      if (status >= 400 && status < 500 && !hasIdentity(ctx)) strangerLimiter.take('strangers', network, now);
    }
  });
  app.use(bodyPolicy(parts.bodyDeadlineMs, isSlipUpload));

  /** clientNetwork of the last address asked again (a keep-alive connection's requests come from one). */
  let lastAddress = '';
  let lastNetwork = '';
  function networkOf(ip: string): string {
    if (ip !== lastAddress) [lastAddress, lastNetwork] = [ip, clientNetwork(ip)];
    return lastNetwork;
  }

  /** Whether the request's bearer is one of ours: a live API key, an operator token that verifies, or a slip capability. */
  async function knownBearer(ctx: Koa.Context): Promise<boolean> {
    const secret = bearer(ctx);
    if (secret === undefined) return false;
    // Known is usable: a revoked key, or a token of an operator revoked or out of bounds, is a stranger's.
    const key = services.keys.bySecret(secret);
    if ((key !== undefined && key.revokedAt === null) || parts.capability.read(secret) !== null) return true;
    return 'operator' in await identifyOperator(parts.verifyOperator, secret);
  }

  app.use(async (ctx, next) => {
    // Rate limits per api key on merchant routes (/v1/pay and the sandbox's /v1/test, the
    // same buckets), per client address on the public webhook support routes; headers on
    // every answer, a 429 never reaches idempotency (so it does not consume the key).
    const publicRead = publicWebhookPaths.has(ctx.path);
    const merchantPath = ctx.path.startsWith('/v1/pay/') || ctx.path.startsWith('/v1/test/');
    if (!publicRead && (!merchantPath || isSlipUpload(ctx))) return next(); // the slip upload has its own buckets
    const secret = publicRead ? undefined : bearer(ctx);
    const key = secret === undefined ? undefined : services.keys.bySecret(secret);
    const bucket: BucketName = publicRead ? 'public_read' : ctx.method === 'GET' || ctx.method === 'HEAD' ? 'pay_read' : 'pay_write';
    // Whose key it is, for the logs of an answer given before authentication ends (this 429, a slow body's 408).
    if (key) noteKnownKey(ctx, key);
    // A key whose standing authentication refuses (revoked, its account suspended) draws on
    // its network's quota, as a made-up key does, not on its own: that refusal comes from the
    // headers alone, before any body or signature, so the key's quota guards no work for it —
    // and a 429 hid the revocation (api_key_revoked) behind a quota that no longer mattered,
    // spending it too (a penetration test).
    const quotaKey = key !== undefined && keyRefusal(services, key.keyId) === null ? key : undefined;
    const taken = quotaKey ? keyLimiter.take(bucket, quotaKey.keyId, services.securityClock.now()) : networkLimiter.take(bucket, networkOf(ctx.ip), services.securityClock.now());
    // Balance history's 429 carries Retry-After 60, the contract's figure (a whole window), not what is left of this one;
    // the sandbox's history none: "sandbox responses carry no Retry-After", its 429 is sandbox_rate_limited.
    const sandboxHistory = ctx.path === balanceHistoryPath && quotaKey !== undefined && !quotaKey.livemode;
    const result = taken.allowed || ctx.path !== balanceHistoryPath ? taken : { ...taken, retryAfterSeconds: sandboxHistory ? null : taken.windowSeconds };
    const headers = rateLimitHeaders(result, bucket);
    ctx.set(headers);
    if (!result.allowed) {
      // A stranger's refusals are counted (metrics), not each kept in the request log: a
      // flood of made-up keys would otherwise grow logs.db without bound. A usable key's own
      // 429 is someone known over their quota, not a stranger: it does not count toward its
      // network's strangers' quota (a busy integration would lock its whole network out of
      // the signing keys and /readyz).
      if (!key) (ctx.state as { unlogged?: boolean }).unlogged = true;
      else if (quotaKey) (ctx.state as { quotaKeyId?: string }).quotaKeyId = quotaKey.keyId;
      throw sandboxHistory ? new ApiError('sandbox_rate_limited', undefined, { bucket, scope: 'api_key' }) : rateLimitedError(result, bucket, quotaKey ? 'api_key' : 'ip');
    }
    try {
      await next();
    } finally {
      // A route with a quota of its own (the sandbox history) names its bucket instead.
      ctx.set((ctx.state as { rateLimitHeaders?: Record<string, string> }).rateLimitHeaders ?? headers);
    }
  });

  app.use(async (ctx, next) => {
    // Load shedding by the contract's priorities: slip upload (P0) and crediting (P1)
    // never; new deposits (P3) first; status reads (P2) only under heavy lag. Runs after
    // the rate limiter, so a shed answer carries the rate-limit headers too.
    const lagMs = loadMeter.recentLagMs;
    if (lagMs > shedDepositsLagMs) {
      const isNewDeposit = ctx.method === 'POST' && ctx.path === '/v1/pay/deposits';
      const isRead = ctx.method === 'GET' && ctx.path.startsWith('/v1/pay/');
      if (isNewDeposit || (isRead && lagMs > shedReadsLagMs)) {
        parts.metrics?.loadShed(isNewDeposit ? 'new_deposit' : 'read');
        throw new ApiError('service_unavailable', 'The service is shedding load; retry shortly.', undefined, 1);
      }
    }
    await next();
  });

  app.use(async (ctx, next) => {
    // An operator call no route authenticated (404, 405, a refused body) still counts
    // against the operator's quota: each is a row of the append-only action log.
    if (!ctx.path.startsWith('/v1/bo')) return next();
    let failure: unknown;
    try {
      await next();
    } catch (error) {
      failure = error;
    }
    const token = bearer(ctx);
    if (token !== undefined && !(ctx.state as { operatorAuthAttempted?: boolean }).operatorAuthAttempted) await chargeUnroutedOperatorCall(ctx, parts.verifyOperator, token);
    if (failure !== undefined) throw failure;
  });

  app.use(async (ctx, next) => {
    // The API's paths take no trailing slash. The router would match one anyway (strict is
    // off), and then the slip upload's capability (bound to the URL byte for byte) or the
    // JSON check refuses it with an error that names the wrong problem. The slash is named
    // only when the path without it is a resource: a client's URL parser collapses a dot
    // segment (…/withdrawals/%2e%2e is sent as /v1/pay/), and the request its user wrote had none.
    if (ctx.path.startsWith('/v1/') && ctx.path.endsWith('/')) {
      const withoutSlash = ctx.path.replace(/\/+$/, '');
      throw new ApiError('resource_not_found', namesResource(withoutSlash)
        ? `No such resource: the path as received, ${ctx.path}, ends in a slash; the API's paths take no trailing slash (${withoutSlash}).`
        : `No such resource: the path as received is ${ctx.path}.`);
    }
    // Only JSON bodies, as UTF-8 and uncompressed, on these routes; anything else is refused
    // rather than ignored, since the signature covers the bytes the client sent.
    if (declaresBody(ctx) && ctx.method !== 'GET' && !isSlipUpload(ctx)) {
      if (!ctx.is('application/json')) throw new ApiError('unsupported_media_type', 'Send request bodies as application/json.');
      refuseOtherCharset(ctx);
      const encoding = ctx.get('Content-Encoding').trim().toLowerCase();
      if (encoding !== '' && encoding !== 'identity') throw new ApiError('unsupported_media_type', 'Compressed request bodies are not accepted.');
    }
    await next();
  });

  const health = new Router({ sensitive: true });
  health.get('/healthz', (ctx) => { ctx.body = { status: 'ok', profile: config.profile, livemode_default: false }; });
  health.get('/v1/openapi.json', (ctx) => { ctx.body = documentOf(ctx.app); });
  health.get('/readyz', (ctx) => {
    const readiness = parts.readiness?.();
    if (readiness && !readiness.ready) throw new ApiError('service_unavailable', 'The service is not ready; see details.checks.', { status: readiness.status, checks: readiness.checks }, 1);
    ctx.body = { status: readiness?.status ?? 'ready', ...(readiness ? { checks: readiness.checks } : {}) };
  });
  const routers = [health, depositRoutes(services, config, parts.capability), walletRoutes(services, config), backOfficeRoutes(services, parts.verifyOperator), ...(parts.extraRouters ?? [])];
  /**
   * The route template a request is counted under: the one the router ran, else — refused
   * before it (a rate limit), or by a router's own middleware (authentication), which
   * koa-router reports as its prefix pattern — the template its path and method name.
   */
  routeLayer = (ctx) => {
    for (const r of routers) {
      const layers = r.match(ctx.path, ctx.method).pathAndMethod;
      for (let i = layers.length - 1; i >= 0; i--) if (layers[i]!.methods.length > 0) return layers[i]!;
    }
    return undefined;
  };
  namesResource = (path) => routers.some((r) => r.match(path, 'GET').path.some((layer) => layer.methods.length > 0));
  routeLabel = (ctx) => {
    const ran = ctx._matchedRoute as string | undefined;
    if (ran !== undefined && !ran.includes('(')) return ran;
    return routeLayer(ctx)?.path as string | undefined;
  };
  for (const r of routers) app.use(r.routes()).use(r.allowedMethods());
  return app;
}

/** The slip upload route itself (it has its own buckets), not any path that ends in /slip. */
function isSlipUpload(ctx: Koa.Context): boolean {
  return isSlipUploadRequest(ctx.method, ctx.path);
}

/** The same, from a request's method and path (the HTTP server's own answers, before the app: server/main.ts). */
export function isSlipUploadRequest(method: string | undefined, path: string): boolean {
  return method === 'POST' && slipUploadPath.test(path);
}
const slipUploadPath = /^\/v1\/pay\/deposits\/[^/]+\/slip$/;

/** Whether the request was made by someone the service knows: a merchant's key, an operator's token, a slip capability. */
function hasIdentity(ctx: Koa.Context): boolean {
  const state = ctx.state as { merchant?: unknown; authenticatedOperator?: unknown; slipCapability?: unknown; quotaKeyId?: unknown; quotaOperator?: unknown };
  return state.merchant !== undefined || state.authenticatedOperator !== undefined || state.slipCapability !== undefined
    || state.quotaKeyId !== undefined || state.quotaOperator !== undefined;
}
