// Operator authentication and authorisation for /v1/bo/*: an OIDC bearer JWT verified
// against a JWKS (SATANG_OIDC_ISSUER + SATANG_OIDC_JWKS as a URL or a file). With neither
// set (development only: production refuses to start so), a local development issuer
// (Ed25519 key pair in the data dir) signs and verifies, and `scripts/satang token` mints
// from it. Step-up tokens are short-lived JWTs of the same subject with acr "step-up",
// sent in X-PG-Step-Up-Token. After authentication the same middleware checks the roles
// table (./roles.ts), so every /v1/bo router is authorised in one place.
//
// Invariants kept: token times (exp, nbf, iat, auth_time) are security time and are
// always checked against the wall clock, never the service Clock a test may advance
// (DESIGN.md "Two clocks"); access tokens live at most 12 h and must carry exp and iat;
// a step-up is at most 5 minutes old; a subject is text a person can read, with no invisible
// character and no white space at an end (core/operators.ts operatorIdProblem), and one
// person's revocation and quota are keyed by the fold four eyes uses (operatorKey). Every
// refusal says what is wrong with the token.

import { createLocalJWKSet, createRemoteJWKSet, errors, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK, type JWTPayload, type KeyLike } from 'jose';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type Router from '@koa/router';
import { ensurePrivateDir, sealedKeyFileNames, writePrivateFile } from '../../adapters/private-files.ts';
import type { Sealer } from '../../adapters/sealing.ts';
import type { Context, Next } from 'koa';
import { ApiError } from '../errors.ts';
import { idempotencyKeyHeader, requestHash, takesIdempotencyKey } from '../idempotency.ts';
import { redactSecretText } from '../secret-text.ts';
import { RateLimiter, rateLimitedError, rateLimitHeaders, type BucketName } from '../rate-limit.ts';
import type { Config } from '../config.ts';
import { bearer } from './merchant.ts';
import { roleRefusal } from './roles.ts';
import { declaresBody, readJsonBody } from '../request-body.ts';
import { iso, isIsoInstant } from '../../core/present.ts';
import { requestLimits } from '../../core/limits.ts';
import { operatorIdProblem, operatorKey, sameOperator } from '../../core/operators.ts';

export const devIssuer = 'urn:satang:dev-issuer';
export const operatorAudience = 'satang-back-office';
const {
  operatorAccessTokenLifetimeSeconds: accessTokenSeconds, operatorStepUpTokenLifetimeSeconds: stepUpTokenSeconds,
  operatorTokenLifetimeSecondsMax: tokenLifetimeSecondsMax, operatorStepUpAgeSecondsMax: stepUpAgeSecondsMax,
  operatorIssuerClockSkewSecondsMax: issuerClockSkewSeconds,
} = requestLimits; // token lifetimes and ages live with every other limit (core/limits.ts)

/** Security time: the wall clock, in whole seconds. */
export const wallSeconds = (): number => Math.floor(Date.now() / 1000);
export const devIssuerKeyPurpose = 'dev_issuer_key';
export const devIssuerKeyFileName = sealedKeyFileNames.devIssuer;

export interface Operator {
  readonly sub: string;
  readonly roles: readonly string[];
  /** Why the token's `roles` claim gave fewer roles than it seems to carry (absent, not an array, not text): said with a refusal, since "this token has: none" alone points at the wrong fix. */
  readonly rolesClaimProblem?: string;
}

/** The roles a token's `roles` claim names (an array of text), and what is wrong with the claim's shape, if anything. */
function rolesOfClaim(claim: unknown): Pick<Operator, 'roles' | 'rolesClaimProblem'> {
  if (claim === undefined) return { roles: [], rolesClaimProblem: 'the token has no "roles" claim: the issuer must put the operator\'s roles in it, as an array of role names' };
  if (!Array.isArray(claim)) {
    const shape = claim === null ? 'null' : typeof claim === 'string' ? 'a string' : typeof claim === 'object' ? 'an object' : `a ${typeof claim}`;
    return { roles: [], rolesClaimProblem: `the token's "roles" claim is ${shape}, not an array of role names: have the issuer send it as an array (["ops_admin"])` };
  }
  const roles = claim.filter((r): r is string => typeof r === 'string');
  const others = claim.length - roles.length;
  return others === 0 ? { roles } : { roles, rolesClaimProblem: `the token's "roles" claim holds ${others} value(s) that are not text, which name no role` };
}

/** A verified token's claims, or why it is refused (in words an operator can act on). */
export type Verified = { readonly ok: true; readonly payload: JWTPayload } | { readonly ok: false; readonly problem: string };
export type Verify = (token: string) => Promise<Verified>;

/** The local development issuer: key pair kept in the data dir so tokens survive restarts. */
export class DevIssuer {
  private constructor(private readonly privateKey: KeyLike, readonly publicJwk: JWK, private readonly jwk: JWK) {}

  /** The private JWK, for the development OpenID provider (server/auth/dev-oidc.ts) that signs with the same key. */
  get signingJwk(): JWK {
    return { ...this.jwk };
  }

  /**
   * The key is sealed under the master key (dev-issuer.jwk.sealed); a JWK an older build
   * wrote in clear (dev-issuer.jwk.json) is sealed and removed.
   */
  static async fromDataDir(dataDir: string, sealer: Sealer): Promise<DevIssuer> {
    const path = join(dataDir, devIssuerKeyFileName);
    const clearPath = join(dataDir, 'dev-issuer.jwk.json');
    if (!existsSync(path)) {
      ensurePrivateDir(dataDir);
      let text: string;
      if (existsSync(clearPath)) text = readFileSync(clearPath, 'utf8');
      else {
        const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
        text = JSON.stringify({ ...await exportJWK(privateKey), kid: 'dev-1', alg: 'EdDSA' });
      }
      writePrivateFile(path, sealer.seal(text, devIssuerKeyPurpose));
    }
    rmSync(clearPath, { force: true });
    const jwk = JSON.parse(sealer.openText(readFileSync(path, 'utf8').trim(), devIssuerKeyPurpose)) as JWK;
    const privateKey = (await importJWK(jwk, 'EdDSA')) as KeyLike;
    const { d: _secret, ...publicJwk } = jwk;
    return new DevIssuer(privateKey, publicJwk, jwk);
  }

  /** Mints on the wall clock unless `nowSeconds` says otherwise (tokens are security time). */
  async mint(sub: string, options: { roles?: readonly string[]; stepUp?: boolean; nowSeconds?: number } = {}): Promise<string> {
    const now = options.nowSeconds ?? wallSeconds();
    const lifetime = options.stepUp ? stepUpTokenSeconds : accessTokenSeconds;
    return new SignJWT({ roles: [...(options.roles ?? [])], ...(options.stepUp ? { acr: 'step-up' } : {}) })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'dev-1' }).setIssuer(devIssuer).setAudience(operatorAudience).setSubject(sub)
      .setIssuedAt(now).setExpirationTime(now + lifetime).setJti(randomUUID()).sign(this.privateKey); // a step-up is used once (StepUpsUsed)
  }
}

/**
 * Verifies signature, issuer, audience, exp and nbf against the wall clock; the lifetime bounds
 * are tokenBoundsProblem's. In development the key of the local issuer signs for two issuer
 * names: `scripts/satang token`'s and the development OpenID provider's (`devProviderIssuer`).
 */
export async function operatorVerifier(config: Config, dev: DevIssuer | undefined, devProviderIssuer?: string): Promise<Verify> {
  let jwks: Parameters<typeof jwtVerify>[1];
  let issuer: string | string[];
  if (config.oidcIssuer && config.oidcJwks) {
    issuer = config.oidcIssuer;
    jwks = /^https?:/.test(config.oidcJwks) ? createRemoteJWKSet(new URL(config.oidcJwks)) : createLocalJWKSet(JSON.parse(readFileSync(config.oidcJwks, 'utf8')));
  } else {
    if (!dev) throw new Error('no OIDC issuer configured and no development issuer available');
    issuer = devProviderIssuer ? [devIssuer, devProviderIssuer] : devIssuer;
    jwks = createLocalJWKSet({ keys: [{ ...dev.publicJwk, kid: 'dev-1', alg: 'EdDSA' }] });
  }
  return async (token) => {
    if (/^sk_(live|test)_/.test(token)) return { ok: false, problem: 'this is a merchant API key; /v1/bo needs an operator OIDC token' };
    if (token.split('.').length !== 3) return { ok: false, problem: 'the bearer token is not a JWT; /v1/bo needs an operator OIDC token' };
    try {
      return { ok: true, payload: (await jwtVerify(token, jwks as never, { issuer, audience: operatorAudience, currentDate: new Date(wallSeconds() * 1000) })).payload };
    } catch (error) {
      return { ok: false, problem: verifyProblem(error, issuer) };
    }
  };
}

/** A token's claim (Unix seconds) in words; a claim RFC 3339 cannot write is quoted as it came. */
function instantText(seconds: number): string {
  return isIsoInstant(seconds * 1000) ? iso(seconds * 1000) : `${seconds} (Unix seconds)`;
}

/** A jose failure in words: which check failed and, for times, when. */
function verifyProblem(error: unknown, issuers: string | string[]): string {
  const issuer = [issuers].flat().join(' or ');
  const at = (seconds: unknown) => (typeof seconds === 'number' ? instantText(seconds) : 'an unknown time');
  if (error instanceof errors.JWTExpired) return `token expired at ${at(error.payload.exp)} (wall clock now ${at(wallSeconds())}); mint a new one`;
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) {
    return `token signature does not verify against the configured issuer (${issuer})`;
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return `wrong audience ${JSON.stringify(error.payload.aud ?? null)}: operator tokens are for ${operatorAudience}`;
    if (error.claim === 'iss') return `wrong issuer ${JSON.stringify(error.payload.iss ?? null)}: this service trusts ${issuer}`;
    if (error.claim === 'nbf') return `token not valid before ${at(error.payload.nbf)}`;
    return `token claim ${error.claim} is invalid (${error.reason})`;
  }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return `the configured issuer's keys (JWKS) could not be read: ${error.message}`;
  if (error instanceof errors.JOSEError) return `token is malformed or unsupported: ${error.message}`;
  return 'token could not be verified against the configured issuer';
}

/** Why a verified token's times are out of bounds (all on the wall clock), or undefined. */
export function tokenBoundsProblem(p: JWTPayload, kind: 'access' | 'step-up', nowSeconds: number): string | undefined {
  if (typeof p.exp !== 'number') return 'token has no exp claim; operator tokens must expire (at most 12 h after iat)';
  if (typeof p.iat !== 'number') return 'token has no iat claim; operator tokens must say when they were issued';
  const max = `at most ${tokenLifetimeSecondsMax} s (12 h) is accepted`;
  if (p.exp - p.iat > tokenLifetimeSecondsMax) return `token lifetime too long: exp − iat is ${p.exp - p.iat} s, ${max}`;
  if (p.exp - nowSeconds > tokenLifetimeSecondsMax) return `token lifetime too long: it is valid for ${p.exp - nowSeconds} s more, ${max}`;
  if (p.iat > nowSeconds + issuerClockSkewSeconds) return `token issued in the future (iat ${instantText(p.iat)})`;
  // A sign-in after the token was issued, or yet to come, would make a step-up's age negative: fresh for ever.
  if (typeof p.auth_time === 'number' && p.auth_time > p.iat + issuerClockSkewSeconds) {
    return `token says its operator signed in after it was issued (auth_time ${instantText(p.auth_time)}, iat ${instantText(p.iat)})`;
  }
  if (kind === 'step-up') {
    const by = typeof p.auth_time === 'number' ? 'auth_time' : 'iat';
    const age = nowSeconds - (by === 'auth_time' ? (p.auth_time as number) : p.iat);
    if (age > stepUpAgeSecondsMax) return `step-up token is ${age} s old (by ${by}); at most ${stepUpAgeSecondsMax} s is accepted, step up again`;
  }
  return undefined;
}

/**
 * Why a verified access token no longer stands — its operator's sessions revoked since it
 * was issued, or it was signed out — or undefined. Asked when the token is verified, and
 * again once a request's body is read: a body may take seconds to arrive, and a revocation
 * made meanwhile cuts the request off as it does the next one.
 */
function revocationProblem(verify: Verify, token: string, payload: JWTPayload): string | undefined {
  const store = revocationsOf(verify);
  const revokedAt = store?.revokedAtSeconds(payload.sub!); // by the operator's folded id: EMP_X is refused once emp_x is revoked
  if (revokedAt !== undefined && (payload.iat as number) <= revokedAt) {
    // The revocation covers tokens issued up to the issuers' clock skew after it was made:
    // the same instant as the revocation's tokens_issued_before.
    return `the operator's sessions were revoked: tokens issued before ${instantText(revokedAt + 1)} are refused, and this one was (sign in again, if the issuer still lets you)`;
  }
  if (store?.signedOut(operatorTokenId(token, payload))) return 'this token was signed out; sign in again';
  return undefined;
}

/** The operator an access token names, once it verifies and its claims hold (wall clock), or why not. */
export async function identifyOperator(verify: Verify, token: string): Promise<{ operator: Operator; payload: JWTPayload } | { problem: string }> {
  const verified = await verify(token);
  if (!verified.ok) return { problem: verified.problem };
  const payload = verified.payload;
  if (payload.acr === 'step-up') return { problem: 'this is a step-up token; send it in X-PG-Step-Up-Token and an access token in Authorization' };
  const subProblem = operatorIdProblem(payload.sub);
  if (subProblem) return { problem: subProblem };
  const bounds = tokenBoundsProblem(payload, 'access', wallSeconds());
  if (bounds) return { problem: bounds };
  const revoked = revocationProblem(verify, token, payload);
  if (revoked) return { problem: revoked };
  return { operator: { sub: payload.sub!, ...rolesOfClaim(payload.roles) }, payload };
}

/**
 * Why a step-up token's subject cannot confirm `operatorSub`'s action: one the gate would refuse
 * (an invisible character folds away, so it would pass as the same person otherwise), or another
 * person. The same person under another spelling (EMP_X for emp_x) is the one four eyes counts.
 */
function stepUpSubProblem(sub: unknown, operatorSub: string): string | undefined {
  const problem = operatorIdProblem(sub);
  if (problem) return `the step-up ${problem}`;
  return sameOperator(sub as string, operatorSub) ? undefined : 'the step-up token belongs to another operator';
}

/** Authenticates the bearer token, then checks the roles table for the route this router matched. */
export function operatorAuth(verify: Verify) {
  return async (ctx: Context, next: Next): Promise<void> => {
    ctx.state.operatorAuthAttempted = true; // the action log tells a refused token from a route no one asked to authenticate
    const token = bearer(ctx);
    if (!token) throw new ApiError('api_key_invalid', 'Operator routes need an OIDC bearer token, in one Authorization header.');
    const identified = await identifyOperator(verify, token);
    if ('problem' in identified) throw new ApiError('signature_invalid', identified.problem);
    const { operator, payload } = identified;
    ctx.state.authenticatedOperator = operator; // the action log names who was refused by the roles table
    takeOperatorQuota(ctx, quotaOf(verify), quotaKey(payload));
    authorise(ctx, operator);
    ctx.state.operator = operator;
    if (takesIdempotencyKey(ctx.method)) idempotencyKeyHeader(ctx); // one key, ASCII, before anything reads it (the step-up is spent on it)
    ctx.state.operatorToken = { id: operatorTokenId(token, payload), expiresAtSeconds: payload.exp as number };
    ctx.state.verifyStepUp = async () => {
      const stepUp = ctx.get('X-PG-Step-Up-Token');
      if (!stepUp) throw new ApiError('scope_denied', 'This action needs a step-up token in X-PG-Step-Up-Token.');
      // A step-up is spent on its action, named with its Idempotency-Key: a request refused for
      // want of the key would spend it on an action its retry (with a key) is not.
      if (takesIdempotencyKey(ctx.method) && !ctx.get('Idempotency-Key')) throw new ApiError('idempotency_key_required');
      const checked = await verify(stepUp);
      const p = checked.ok ? checked.payload : undefined;
      const problem = !checked.ok ? checked.problem
        : p!.acr !== 'step-up' ? 'the X-PG-Step-Up-Token is not a step-up token (acr "step-up")'
        : stepUpSubProblem(p!.sub, operator.sub) ?? tokenBoundsProblem(p!, 'step-up', wallSeconds());
      if (problem) throw new ApiError('scope_denied', `Step-up refused: ${problem}.`);
      // The action as kept in journal.db: a secret pasted where an id goes (a key's secret for its id) is not kept with it.
      // The request's digest (method, path, query and body, as idempotency compares them) belongs to it: under the same
      // key, a request the service refused without keeping the key (a debit larger than the balance) followed by
      // another body (a credit) is a second action, not a retry.
      const idempotencyKey = ctx.get('Idempotency-Key');
      const action = `${redactSecretText(`${ctx.method} ${ctx.path} ${idempotencyKey}`)} ${requestHash(ctx).slice(0, 32)}`;
      const reuse = stepUpsOf(verify).use(stepUp, p!, action, idempotencyKey !== '', wallSeconds());
      if (reuse) throw new ApiError('scope_denied', `Step-up refused: ${reuse}.`);
      ctx.state.stepUpUsed = true; // for the action log
    };
    await readJsonBody(ctx); // only now: an unauthenticated caller never makes the server read a body
    if (declaresBody(ctx)) { // the body took its time: a revocation or sign-out made meanwhile stands
      const revoked = revocationProblem(verify, token, payload);
      if (revoked) throw new ApiError('signature_invalid', revoked);
    }
    await next();
  };
}

/**
 * Where spent step-ups are kept: `claim` records that `id` authorised `action` until
 * `expSeconds` and answers undefined, or, when `id` was claimed before and has not run
 * out, answers the action it was claimed for (and records nothing). The server keeps them
 * in journal.db (adapters/sqlite/step-ups.ts), so a restart does not make a spent
 * step-up good again; without one (a verifier of a test), in memory.
 */
export interface StepUpStore {
  claim(id: string, action: string, expSeconds: number, nowSeconds: number): string | undefined;
}

class StepUpsInMemory implements StepUpStore {
  private readonly used = new Map<string, { readonly action: string; readonly expSeconds: number }>();

  claim(id: string, action: string, expSeconds: number, nowSeconds: number): string | undefined {
    for (const [key, u] of this.used) if (u.expSeconds <= nowSeconds) this.used.delete(key);
    const earlier = this.used.get(id);
    if (earlier) return earlier.action;
    this.used.set(id, { action, expSeconds });
    return undefined;
  }
}

/**
 * Step-up tokens as used: one authorises one action — one request (method, path, body and
 * Idempotency-Key), or its retries — not every ⚑ action for its five minutes. Kept until
 * the token could no longer pass (wall clock), so as many as were stepped up in five
 * minutes. One memory per verifier (per server), shared by every router that verifies with it.
 */
class StepUpsUsed {
  constructor(private readonly store: StepUpStore) {}

  /** Why this use is refused, or undefined (and the token is then spent on `action`: "METHOD path Idempotency-Key digest"). */
  use(token: string, p: JWTPayload, action: string, keyed: boolean, nowSeconds: number): string | undefined {
    const id = operatorTokenId(token, p);
    // Remembered while it could still be accepted: until exp, or its step-up age runs out.
    const since = typeof p.auth_time === 'number' ? p.auth_time : typeof p.iat === 'number' ? p.iat : nowSeconds;
    const expSeconds = Math.min(typeof p.exp === 'number' ? p.exp : Infinity, since + stepUpAgeSecondsMax);
    const earlier = this.store.claim(id, action, expSeconds, nowSeconds);
    if (earlier === undefined) return undefined;
    // A retry is the same request again: same method, path and body, under a key it gave (not none).
    return keyed && earlier === action ? undefined
      : 'this step-up token was already used for another action; step up again (one step-up, one action)';
  }
}

/**
 * The operator's quota (bo_read for GET and HEAD, bo_write else), counted once a request
 * (several routers share the prefix) on the wall clock; its RateLimit-* headers on the
 * answer, 429 rate_limited past it. One limiter per verifier (per server), as the step-ups.
 */
function takeOperatorQuota(ctx: Context, limiter: RateLimiter, operatorKey: string): void {
  const state = ctx.state as { operatorQuota?: Record<string, string> };
  if (state.operatorQuota) return;
  const bucket: BucketName = ctx.method === 'GET' || ctx.method === 'HEAD' ? 'bo_read' : 'bo_write';
  const result = limiter.take(bucket, operatorKey, Date.now());
  state.operatorQuota = rateLimitHeaders(result, bucket);
  ctx.set(state.operatorQuota);
  if (!result.allowed) throw rateLimitedError(result, bucket, 'operator');
}

/**
 * The quota of an operator call no route authenticated — a path or method that does not
 * exist, a body refused before routing — taken once it is answered: such calls are rows of
 * the action log, so a runaway script or a stolen token is held to bo_read/bo_write there
 * too (past them, 429 without a row: `unlogged`). A token that does not verify is left to
 * the strangers' quota.
 */
export async function chargeUnroutedOperatorCall(ctx: Context, verify: Verify, token: string): Promise<void> {
  const identified = await identifyOperator(verify, token);
  if (!('operator' in identified)) return;
  (ctx.state as { quotaOperator?: string }).quotaOperator = identified.operator.sub; // someone known: not a stranger's refusal (server/app.ts)
  try {
    takeOperatorQuota(ctx, quotaOf(verify), quotaKey(identified.payload));
  } catch (error) {
    (ctx.state as { unlogged?: boolean }).unlogged = true;
    throw error;
  }
}

/** Whose quota a call takes: one person's under any spelling of their sub (operatorKey), per issuer. */
const quotaKey = (p: JWTPayload): string => `${p.iss ?? ''} ${operatorKey(p.sub!)}`;

const quotas = new WeakMap<Verify, RateLimiter>();

function quotaOf(verify: Verify): RateLimiter {
  let limiter = quotas.get(verify);
  if (!limiter) quotas.set(verify, limiter = new RateLimiter());
  return limiter;
}

const stepUpMemories = new WeakMap<Verify, StepUpsUsed>();

function stepUpsOf(verify: Verify): StepUpsUsed {
  let memory = stepUpMemories.get(verify);
  if (!memory) stepUpMemories.set(verify, memory = new StepUpsUsed(new StepUpsInMemory()));
  return memory;
}

/** Keeps the step-ups this verifier's routes spend in `store` (the server: journal.db), before any is spent. */
export function keepStepUpsIn(verify: Verify, store: StepUpStore): void {
  stepUpMemories.set(verify, new StepUpsUsed(store));
}

/**
 * Operators whose tokens are refused though they verify: every token of a subject issued
 * at or before its revocation (wall-clock seconds). A subject is one person under any
 * spelling of it (core/operators.ts operatorKey, as four eyes): the store matches by it.
 * The server keeps them in journal.db (adapters/sqlite/operator-revocations.ts); a
 * verifier without one revokes nothing.
 */
export interface OperatorRevocationStore {
  revokedAtSeconds(sub: string): number | undefined;
  /** Whether the holder of this access token (by operatorTokenId) signed it out. */
  signedOut(tokenId: string): boolean;
}

/** A token's id for the records that name it, never the token: iss and jti, or a digest of the whole. */
export function operatorTokenId(token: string, p: JWTPayload): string {
  return typeof p.jti === 'string' ? `jti:${p.iss ?? ''}:${p.jti}` : `sha256:${createHash('sha256').update(token).digest('hex')}`;
}

const revocations = new WeakMap<Verify, OperatorRevocationStore>();

function revocationsOf(verify: Verify): OperatorRevocationStore | undefined {
  return revocations.get(verify);
}

/** Refuses, on this verifier's routes, the tokens `store` names revoked. */
export function keepRevocationsIn(verify: Verify, store: OperatorRevocationStore): void {
  revocations.set(verify, store);
}

/** 403 scope_denied unless the operator holds one of the roles the table gives the matched route. */
function authorise(ctx: Context, operator: Operator): void {
  // koa-router runs this middleware for a route of its own router; ask it which one (the
  // first route layer in the stack is the one that answers).
  const router = (ctx as Context & { router?: Router }).router;
  const layer = router?.match(ctx.path, ctx.method).pathAndMethod.find((l) => l.methods.length > 0);
  const refusal = roleRefusal(operator.roles, ctx.method, layer ? String(layer.path) : ctx.path);
  if (refusal) {
    const message = operator.rolesClaimProblem ? `${refusal.message} ${operator.rolesClaimProblem[0]!.toUpperCase()}${operator.rolesClaimProblem.slice(1)}.` : refusal.message;
    throw new ApiError('scope_denied', message, { required_roles: [...refusal.requiredRoles], token_roles: [...operator.roles] });
  }
}

/** The access token this request authenticated with, by id, and when it runs out (wall-clock seconds). */
export function operatorTokenOf(ctx: Context): { readonly id: string; readonly expiresAtSeconds: number } {
  const t = (ctx.state as { operatorToken?: { id: string; expiresAtSeconds: number } }).operatorToken;
  if (!t) throw new ApiError('api_key_invalid');
  return t;
}

export function operatorOf(ctx: Context): Operator {
  const op = (ctx.state as { operator?: Operator }).operator;
  if (!op) throw new ApiError('api_key_invalid');
  return op;
}

export async function requireStepUp(ctx: Context): Promise<void> {
  await (ctx.state as { verifyStepUp: () => Promise<void> }).verifyStepUp();
}
