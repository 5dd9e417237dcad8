// Merchant HMAC authentication for /v1/pay/* (contract: "Merchant HMAC"). Order of
// checks, everything that needs no body first: the key (unknown → api_key_invalid,
// revoked → api_key_revoked), the account chain (suspended → tenant_suspended), the
// timestamp window, the nonce's shape. Only then is the body read (request-body.ts: capped,
// with a deadline), and the signature over the nine-line canonical string — line 7 the
// SHA-256 of the body's bytes as sent — checked in constant time. After it: PG-Version
// (an unauthenticated caller learns nothing about versions), the body as JSON (strict
// UTF-8: malformed_json), then the nonce is remembered (durably, for as long as its request
// could pass the timestamp window again: limits.nonceMemoryMs). So an
// attacker without the secret can neither make the server read a body, nor probe or burn
// nonces; and a refused request leaves no nonce behind.
//
// Security time: the timestamp window and the nonce memory run on services.securityClock,
// the wall clock, never on the business clock a test may move (DESIGN "two clocks").

import type { Context, Next } from 'koa';
import { limits, requestLimits } from '../../core/limits.ts';
import { ApiError } from '../errors.ts';
import { apiVersions, canonicalString, checkTimestamp, sha256Hex, signatureRefusal, verifySignatureHeader } from '../hmac.ts';
import type { Merchant } from '../../core/directory.ts';
import type { ApiKey, Scope, Services } from '../ports.ts';
import { idempotencyKeyHeader, refuseSecretShapedHeader } from '../idempotency.ts';
import { parseJsonBody, readRawBody } from '../request-body.ts';

export interface MerchantState {
  readonly key: ApiKey;
  readonly merchantId: string;
  readonly whiteLabelId: string;
  readonly livemode: boolean;
}

/** How many Authorization headers the request sent (Node's parsed headers keep only the first). */
export function authorizationHeadersSent(ctx: Context): number {
  const raw = ctx.req.rawHeaders;
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 13 && raw[i]!.toLowerCase() === 'authorization') seen++;
  return seen;
}

/**
 * The bearer credential of the one Authorization header; undefined without one, or when
 * the request sends the header twice (Node keeps the first and drops the rest, so two
 * credentials would silently authenticate as whichever came first).
 */
export function bearer(ctx: Context): string | undefined {
  if (authorizationHeadersSent(ctx) > 1) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(ctx.get('Authorization')); // the scheme in any case (RFC 9110, 11.1)
  return match?.[1];
}

// Visible ASCII without spaces: a nonce is an opaque token (a UUID, usually).
const nonceShape = new RegExp(`^[\\x21-\\x7e]{1,${requestLimits.nonceLengthMax}}$`);

export function merchantAuth(services: Services) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const { key, whiteLabelId } = liveKeyOf(ctx, services);
    const nowMs = services.securityClock.now();
    const timestamp = ctx.get('PG-Timestamp');
    checkTimestampHeader(timestamp, Math.floor(nowMs / 1000));
    const nonce = ctx.get('PG-Nonce');
    if (!nonceShape.test(nonce)) throw new ApiError('signature_invalid', `PG-Nonce must be 1–${requestLimits.nonceLengthMax} visible ASCII characters, new on every attempt.`);
    refuseSecretShapedHeader('PG-Nonce', nonce);

    // A key the client's HTTP stack sent as other than ASCII would fail the signature as bytes
    // no one signed: say what is wrong with it instead (bad-input audit); two keys, likewise.
    idempotencyKeyHeader(ctx);
    const body = await readRawBody(ctx); // only now: the caller holds a live key and a fresh timestamp
    // The body may take seconds to arrive (up to the body deadline): a key revoked, or an
    // account suspended, meanwhile refuses the request as it would the next one.
    if (body.length > 0) {
      const refused = keyRefusal(services, key.keyId);
      if (refused) {
        if (refused === 'api_key_revoked') (ctx.state as { refusedKeyId?: string }).refusedKeyId = key.keyId;
        throw new ApiError(refused);
      }
    }
    const version = ctx.get('PG-Version');
    const canonical = canonicalString({
      timestamp, nonce, method: ctx.method, path: ctx.path, query: ctx.querystring,
      bodySha256Hex: sha256Hex(body), idempotencyKey: ctx.get('Idempotency-Key'), version,
    });
    if (!verifySignatureHeader(key.secret, canonical, ctx.get('PG-Signature'))) {
      throw new ApiError('signature_invalid', signatureRefusal(ctx.get('PG-Signature')));
    }
    requireSupportedVersion(version);
    parseJsonBody(ctx, body);
    if (!services.nonces.remember(key.keyId, nonce, nowMs)) throw new ApiError('nonce_replayed', `This PG-Nonce was used within the last ${limits.nonceMemoryMs / 1000} seconds; send a new one on every attempt.`);
    // Every POST needs a key; say so before anything else about the request is judged.
    if (ctx.method === 'POST' && !ctx.get('Idempotency-Key')) throw new ApiError('idempotency_key_required');
    const state: MerchantState = { key, merchantId: key.merchantId, whiteLabelId, livemode: key.livemode };
    ctx.state.merchant = state;
    await next();
  };
}

/**
 * A key's standing, the checks every request makes: revoked, its merchant gone (a key of no
 * merchant is no key), its account chain suspended — or the merchant it acts for.
 */
function standingOf(services: Services, key: ApiKey): { refused: 'api_key_revoked' | 'api_key_invalid' | 'tenant_suspended' } | { merchant: Merchant } {
  if (key.revokedAt !== null) return { refused: 'api_key_revoked' };
  const merchant = services.write.world.merchants.get(key.merchantId);
  if (!merchant) return { refused: 'api_key_invalid' };
  return merchant.suspended ? { refused: 'tenant_suspended' } : { merchant };
}

/**
 * Why a key that authenticated a long-lived request (a `satang listen` stream) may no longer
 * be served: the same standing, looked at again while the stream is open; null while it may.
 */
export function keyRefusal(services: Services, keyId: string): 'api_key_revoked' | 'api_key_invalid' | 'tenant_suspended' | null {
  const key = services.keys.byId(keyId);
  if (!key) return 'api_key_revoked';
  const standing = standingOf(services, key);
  return 'refused' in standing ? standing.refused : null;
}

/**
 * A key the request was found to hold before it was authenticated, or though it was refused
 * (revoked, over its quota, a body too slow): whose it is, so the request log and the log
 * line name the merchant whose key it is (a responder filtering by merchant sees a leaked
 * key still tried). Not an authentication: ctx.state.merchant is.
 */
export interface KnownKeyState { knownKey?: { readonly keyId: string; readonly merchantId: string; readonly livemode: boolean } }

/** Notes whose key the request holds (KnownKeyState), once: the rate limiter finds it first on merchant paths, authentication after. */
export function noteKnownKey(ctx: Context, key: ApiKey): void {
  (ctx.state as KnownKeyState).knownKey ??= { keyId: key.keyId, merchantId: key.merchantId, livemode: key.livemode };
}

/** The bearer key if it exists, is not revoked and its account chain is not suspended. */
function liveKeyOf(ctx: Context, services: Services): { key: ApiKey; whiteLabelId: string } {
  const secret = bearer(ctx);
  if (!secret || !(secret.startsWith('sk_live_') || secret.startsWith('sk_test_'))) throw new ApiError('api_key_invalid', 'Give your API key as one Authorization: Bearer sk_live_… or sk_test_… header.');
  const key = services.keys.bySecret(secret);
  if (!key) throw new ApiError('api_key_invalid');
  noteKnownKey(ctx, key);
  const standing = standingOf(services, key);
  if ('refused' in standing) {
    // The request log names the revoked key refused (after a leak: what the thief tried, and from where).
    if (standing.refused === 'api_key_revoked') (ctx.state as { refusedKeyId?: string }).refusedKeyId = key.keyId;
    throw new ApiError(standing.refused);
  }
  return { key, whiteLabelId: standing.merchant.whiteLabelId };
}

/**
 * PG-Timestamp: anything but unix seconds within ±300 s is timestamp_out_of_window, as the
 * contract rules; the message says which — missing, not whole seconds, milliseconds, or a
 * clock that is off — so a client is not sent to sync a clock that is right.
 */
function checkTimestampHeader(timestamp: string, nowSeconds: number): void {
  if (timestamp === '') throw new ApiError('timestamp_out_of_window', 'PG-Timestamp is missing: send the request\'s Unix time in whole seconds, and sign it.');
  if (!/^[0-9]{1,15}$/.test(timestamp)) throw new ApiError('timestamp_out_of_window', `PG-Timestamp must be the Unix time in whole seconds (digits only), not ${JSON.stringify(timestamp.slice(0, 40))}.`);
  if (checkTimestamp(timestamp, nowSeconds) === 'ok') return;
  if (timestamp.length >= 13 && Math.abs(Math.floor(Number(timestamp) / 1000) - nowSeconds) <= limits.timestampSkewSecondsMax) {
    throw new ApiError('timestamp_out_of_window', 'PG-Timestamp looks like milliseconds; send the Unix time in whole seconds.');
  }
  throw new ApiError('timestamp_out_of_window');
}

function requireSupportedVersion(version: string): void {
  if (version === '') {
    throw new ApiError('validation_error', `PG-Version is missing; send ${apiVersions.join(' or ')}.`, { fields: [{ path: 'PG-Version', reason: 'required', hint: apiVersions.join(', ') }] });
  }
  if ((apiVersions as readonly string[]).includes(version)) return;
  throw new ApiError('validation_error', `PG-Version ${JSON.stringify(version)} is not supported; send ${apiVersions.join(' or ')}.`, {
    fields: [{ path: 'PG-Version', reason: 'unsupported', hint: apiVersions.join(', ') }],
  });
}

export function merchantOf(ctx: Context): MerchantState {
  const m = (ctx.state as { merchant?: MerchantState }).merchant;
  if (!m) throw new ApiError('api_key_invalid');
  return m;
}

/**
 * Scopes bind every key (the contract names them for live keys; a sandbox key made with
 * fewer scopes is refused as its live twin will be, so an integration with a restricted key
 * is tried out before it goes live; the keys onboarding makes carry every scope). Every
 * scope given is needed; the refusal names the first one missing (and, when more than one
 * is needed, all of them).
 */
export function requireScope(ctx: Context, ...scopes: [Scope, ...Scope[]]): MerchantState {
  const m = merchantOf(ctx);
  const missing = scopes.find((scope) => !m.key.scopes.includes(scope));
  if (missing === undefined) return m;
  if (scopes.length === 1) throw new ApiError('scope_denied', `This key lacks the scope ${missing}.`, { required_scope: missing });
  throw new ApiError('scope_denied', `This key lacks the scope ${missing}; this route needs ${scopes.join(' and ')}.`, { required_scope: missing, required_scopes: [...scopes] });
}
