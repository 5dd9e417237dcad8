// The OpenAPI 3.1 document, built from what the service really is: the paths and methods
// the app's routers register (read off the Koa app, so a new route appears by itself),
// the ajv schemas the routes validate with (operations.ts holds the very validators), the
// error catalogue (components.ts), the headers and the auth schemes. Served at
// GET /v1/openapi.json and written to docs/openapi.json by `npm run openapi`; a spec
// keeps the committed file equal to this and validates it, and the HTTP specs check every
// answer they receive against it (specs/support/openapi-check.ts).
//
// Invariant kept: the output depends only on the routes and the code's tables (sorted
// paths, no clock, no host), so the committed file can be compared byte for byte.
// The bank simulator (/v1/sim/, development only) and the operator console's files
// (/console/, a web page served beside the API) are not part of the API and left out.

import type Router from '@koa/router';
import type Koa from 'koa';
import { apiVersion } from '../../core/present.ts';
import { codesByStatus, commonHeaderRefs, errorResponseName, errorResponses, headers, parameters, schemas, securitySchemes } from './components.ts';
import { exampleOf } from './examples.ts';
import { operations, type Auth, type OperationInfo } from './operations.ts';
import { webhooksSection } from './webhooks.ts';
import { takesIdempotencyKey } from '../idempotency.ts';

type Json = Record<string, unknown>;

export interface RouteKey {
  readonly method: string;
  /** The Koa path, with :params. */
  readonly path: string;
}

const undocumentedPrefixes = ['/v1/sim/', '/console'];

/** Every METHOD path the app's routers register (HEAD rides on GET), in a stable order. */
export function routesOf(app: Koa): RouteKey[] {
  const routers = app.middleware.map((m) => (m as { router?: Router }).router).filter((r): r is Router => r !== undefined);
  const keys = new Map<string, RouteKey>();
  for (const router of routers) {
    for (const layer of router.stack) {
      const path = layer.path.toString();
      if (undocumentedPrefixes.some((p) => path.startsWith(p))) continue;
      for (const method of layer.methods) if (method !== 'HEAD') keys.set(`${method} ${path}`, { method, path });
    }
  }
  return [...keys.values()].sort((a, b) => (a.path === b.path ? a.method.localeCompare(b.method) : a.path.localeCompare(b.path)));
}

/** '/v1/pay/deposits/:id' → '/v1/pay/deposits/{id}'. */
export const openApiPath = (koaPath: string): string => koaPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const securityOf: Record<Auth, Json[]> = {
  merchant: [{ MerchantHmac: [] }], operator: [{ OperatorBearer: [] }], capability: [{ SlipCapability: [] }], none: [],
};

const paramRef = (name: string): Json => ({ $ref: `#/components/parameters/${name}` });

const pathParamExamples: Record<string, string> = {
  id: 'dep_01JD0000000000000000000000', keyId: 'key_01JD0000000000000000000000', endpointId: 'whep_01JD0000000000000000000000', deliveryId: 'whd_01JD0000000000000000000000',
};

function parametersOf(route: RouteKey, info: OperationInfo | undefined): Json[] {
  const out: Json[] = [];
  for (const [, name] of route.path.matchAll(/:([A-Za-z0-9_]+)/g)) {
    out.push({ name, in: 'path', required: true, schema: { type: 'string' }, example: pathParamExamples[name!] ?? 'id_01JD0000000000000000000000' });
  }
  const query = info?.query?.schema as Json | undefined;
  const queryProps = { ...((query?.properties ?? {}) as Record<string, Json>), ...(info?.queryParams ?? {}) };
  const required = new Set((query?.required ?? []) as string[]);
  // A hand-checked parameter the route requires says so with `required: true` beside its schema.
  for (const [name, { required: mustGive, ...schema }] of Object.entries(queryProps) as [string, Json][]) {
    out.push({ name, in: 'query', required: required.has(name) || mustGive === true, schema });
  }
  if (info?.auth === 'merchant') out.push(paramRef('PgTimestamp'), paramRef('PgNonce'), paramRef('PgVersion'), paramRef('PgSignature'));
  if (takesIdempotencyKey(route.method)) out.push(paramRef(route.path === '/v1/pay/withdrawals' ? 'IdempotencyKeyWithdrawal' : 'IdempotencyKey'));
  if (info?.stepUp) out.push(paramRef('StepUpToken'));
  return out;
}

function successResponses(route: RouteKey, info: OperationInfo | undefined): Json {
  if (!info) return { '2XX': { description: 'Success (not yet described in server/openapi/operations.ts).', headers: commonHeaderRefs, content: { 'application/json': { schema: { $ref: '#/components/schemas/Object' } } } } };
  const rateLimited = (info.auth === 'merchant' && route.path.startsWith('/v1/pay/')) || info.auth === 'operator';
  const responseHeaders = { ...commonHeaderRefs, ...(rateLimited ? { 'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' }, 'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' }, 'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' }, 'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' }, 'X-RateLimit-Scope': { $ref: '#/components/headers/X-RateLimit-Scope' } } : {}) };
  const replayHeaders = takesIdempotencyKey(route.method) ? { 'Idempotent-Replay': { $ref: '#/components/headers/Idempotent-Replay' }, 'Original-Request-Id': { $ref: '#/components/headers/Original-Request-Id' } } : {};
  const out: Json = {};
  for (const [status, answer] of Object.entries(info.responses)) {
    if (typeof answer !== 'string') {
      const jsonSchema = { $ref: `#/components/schemas/${answer.json}` };
      const json = answer.json === undefined ? {} : { 'application/json': { schema: jsonSchema, example: exampleOf(jsonSchema, schemas) } };
      const types = answer.mediaTypes ?? [answer.mediaType!];
      const raw = Object.fromEntries(types.map((t) => [t, { schema: { type: 'string' }, ...(answer.example !== undefined ? { example: answer.example } : {}) }]));
      out[status] = { description: answer.description, headers: responseHeaders, content: { ...json, ...raw } };
      continue;
    }
    const schema = { $ref: `#/components/schemas/${answer}` };
    out[status] = { description: answer, headers: { ...responseHeaders, ...replayHeaders }, content: { 'application/json': { schema, example: info.responseExamples?.[status] ?? exampleOf(schema, schemas) } } };
  }
  return out;
}

function operationOf(route: RouteKey): Json {
  const key = `${route.method} ${route.path}`;
  const info = operations[key];
  const body = info?.body?.schema as Json | undefined;
  // An unauthenticated read (health, readiness, this document, the public webhook keys) can
  // only be rate limited, fail or be unavailable; every other operation may meet any status.
  const statuses = [...codesByStatus().keys()].filter((status) => info?.auth !== 'none' || status === 429 || status >= 500);
  const errors = Object.fromEntries(statuses.map((status) => [String(status), { $ref: `#/components/responses/${errorResponseName(status)}` }]));
  return {
    operationId: operationIdOf(route),
    summary: info?.summary ?? key,
    tags: [tagOf(route.path)],
    security: securityOf[info?.auth ?? 'none'],
    parameters: parametersOf(route, info),
    ...(info?.requestContent
      ? { requestBody: { required: true, description: info.requestContent.description, content: info.requestContent.content } }
      : body ? { requestBody: { required: ((body.required as unknown[] | undefined)?.length ?? 0) > 0, content: { 'application/json': { schema: body, example: info?.example ?? exampleOf(body) } } } } : {}),
    responses: { ...successResponses(route, info), ...errors },
  };
}

function operationIdOf(route: RouteKey): string {
  const words = route.path.split('/').filter((p) => p !== '' && p !== 'v1').map((p) => (p.startsWith(':') ? `by_${p.slice(1)}` : p.replace(/[^A-Za-z0-9]+/g, '_')));
  return `${route.method.toLowerCase()}_${words.join('_')}`;
}

function tagOf(path: string): string {
  if (path.startsWith('/v1/bo/')) return 'back office';
  if (path.startsWith('/v1/test/')) return 'sandbox';
  if (path.startsWith('/v1/webhooks/')) return 'webhooks';
  if (path.startsWith('/v1/pay/')) return 'merchant';
  return 'service';
}

export function openApiDocument(routes: readonly RouteKey[]): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operationOf(route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'satang', version: apiVersion,
      description: 'Person-to-person bank-transfer payments for Thai baht: deposits, withdrawals, a double-entry wallet and signed webhooks. Money is integer satang; timestamps are RFC 3339 UTC with three fractional digits; every error is the error object of the Error schema, its code listed under the HTTP status it is answered with.',
    },
    tags: ['merchant', 'sandbox', 'webhooks', 'back office', 'service'].map((name) => ({ name })),
    paths,
    webhooks: webhooksSection(),
    components: { schemas, responses: errorResponses(), headers, parameters, securitySchemes },
  };
}

const served = new WeakMap<Koa, Json>();

/** The document of a running app, built once on first use (the routers do not change after start-up). */
export function documentOf(app: Koa): Json {
  let doc = served.get(app);
  if (!doc) served.set(app, (doc = openApiDocument(routesOf(app))));
  return doc;
}
