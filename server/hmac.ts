// Merchant request signing, exactly as the contract's "Merchant HMAC" section: the
// nine-line canonical string, HMAC-SHA256 with the API key as secret, the 'v1=<hex>'
// PG-Signature header and the +/-300 s PG-Timestamp window. The server half (verify,
// checkTimestamp) and the client half (signRequest, used by tests and the CLI) share
// canonicalString, so they cannot drift apart.
//
// Invariants kept: signatures are compared in constant time on equal-length buffers;
// the query line keeps the raw encoding of each pair (only their order changes).

import { createHmac, hash, randomUUID, timingSafeEqual } from 'node:crypto';
import { limits } from '../core/limits.ts';
import { apiVersion } from '../core/present.ts';

/** The PG-Version values this service speaks (contract: Versioning); any other is refused once the signature verifies. */
export const apiVersions = [apiVersion] as const;

export interface CanonicalFields {
  /** PG-Timestamp as sent (unix seconds). */
  timestamp: string | number;
  nonce: string;
  method: string;
  /** The request path without the query, e.g. '/v1/pay/deposits'. */
  path: string;
  /** The raw query string without '?', as it appears on the wire; '' when none. */
  query: string;
  bodySha256Hex: string;
  /** '' or undefined when the request carries no Idempotency-Key. */
  idempotencyKey?: string;
  version: string;
}

/** The nine lines, each ended by a newline: 'v1', timestamp, nonce, METHOD, path, sorted query, body SHA-256, idempotency key, version. */
export function canonicalString(fields: CanonicalFields): string {
  const query = fields.query === '' ? '' : sortedQuery(fields.query);
  return `v1\n${fields.timestamp}\n${fields.nonce}\n${fields.method.toUpperCase()}\n${fields.path}\n${query}\n${fields.bodySha256Hex}\n${fields.idempotencyKey ?? ''}\n${fields.version}\n`;
}

/** The key=value pairs of a raw query, ordered by key then value, still percent-encoded as sent. */
export function sortedQuery(rawQuery: string): string {
  const pairs = rawQuery.split('&').filter((pair) => pair !== '').map(splitPair);
  pairs.sort((a, b) => compareStrings(a.key, b.key) || compareStrings(a.value, b.value));
  return pairs.map((pair) => pair.raw).join('&');
}

function splitPair(raw: string): { key: string; value: string; raw: string } {
  const eq = raw.indexOf('=');
  return eq === -1 ? { key: raw, value: '', raw } : { key: raw.slice(0, eq), value: raw.slice(eq + 1), raw };
}

// Plain code-unit order, not localeCompare: both sides must sort identically everywhere.
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The SHA-256 of no bytes: every GET's body line, computed once. */
const emptySha256Hex = hash('sha256', '', 'hex');

/** One-shot crypto.hash (node ≥ 20.12): no Hash object per request. */
export function sha256Hex(body: string | Uint8Array): string {
  return body.length === 0 ? emptySha256Hex : hash('sha256', body, 'hex');
}

/** HMAC-SHA256 of the canonical string under the API key, as bytes. */
function hmacSha256(secret: string, canonical: string): Buffer {
  return createHmac('sha256', secret).update(canonical, 'utf8').digest();
}

export function sign(secret: string, canonical: string): string {
  return hmacSha256(secret, canonical).toString('hex');
}

/** The contract's 'v1=<lowercase hex HMAC-SHA256>'. */
const signatureHeaderPattern = /^v1=([0-9a-f]{64})$/;

/** A header that would be the signature but for its hex digits' case: told apart, so the refusal can say so. */
export function isUppercaseSignature(headerValue: string | undefined): boolean {
  return /^v1=[0-9a-fA-F]{64}$/.test(headerValue?.trim() ?? '') && /[A-F]/.test(headerValue!);
}

/**
 * What a refused PG-Signature is told: its shape when that is wrong (uppercase digits, no
 * `v1=`, not 64 digits), else where a right-shaped HMAC usually goes astray — never the
 * expected value.
 */
export function signatureRefusal(headerValue: string | undefined): string {
  if (isUppercaseSignature(headerValue)) return 'PG-Signature is v1= and the HMAC in lowercase hex; this one has uppercase digits.';
  if (!signatureHeaderPattern.test(headerValue?.trim() ?? '')) return 'PG-Signature is v1= followed by the HMAC-SHA256 in 64 lowercase hex digits; this one is not of that shape.';
  return 'The request signature does not match: check the canonical string (nine lines, each ending in a newline, the last too; the query as sent, still percent-encoded, its pairs sorted; the SHA-256 of the body bytes as sent) and the key.';
}

/** True only when the header is 'v1=<64 lowercase hex digits>' and matches the expected HMAC. */
export function verifySignatureHeader(secret: string, canonical: string, headerValue: string | undefined): boolean {
  const match = signatureHeaderPattern.exec(headerValue?.trim() ?? '');
  if (match === null) return false;
  const given = Buffer.from(match[1]!, 'hex');
  const expected = hmacSha256(secret, canonical); // the bytes, not hex to decode again
  // timingSafeEqual throws on unequal lengths; the pattern already fixes 32 bytes, this keeps it so.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export type TimestampCheck = 'ok' | 'timestamp_out_of_window';

/** Accepts unix seconds within +/-300 s of now, bounds included; anything not a plain integer is refused. */
export function checkTimestamp(tsHeader: string | undefined, nowSeconds: number): TimestampCheck {
  // At most 15 digits keeps the value a safe integer.
  if (tsHeader === undefined || !/^[0-9]{1,15}$/.test(tsHeader)) return 'timestamp_out_of_window';
  const skewSeconds = Math.abs(Number(tsHeader) - nowSeconds);
  return skewSeconds <= limits.timestampSkewSecondsMax ? 'ok' : 'timestamp_out_of_window';
}

export interface SignRequestInput {
  /** The API key: it is both the bearer credential and the HMAC secret. */
  secret: string;
  method: string;
  path: string;
  query?: string;
  body?: string | Uint8Array;
  idempotencyKey?: string;
  version: string;
  /** Unix seconds; defaults to the current time. */
  timestamp?: number;
  /** Defaults to a fresh random UUID, as every attempt needs a new nonce. */
  nonce?: string;
}

/** The headers a merchant client sends with a signed request. */
export function signRequest(input: SignRequestInput): Record<string, string> {
  const timestamp = String(input.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = input.nonce ?? randomUUID();
  const canonical = canonicalString({
    timestamp,
    nonce,
    method: input.method,
    path: input.path,
    query: input.query ?? '',
    bodySha256Hex: sha256Hex(input.body ?? ''),
    idempotencyKey: input.idempotencyKey,
    version: input.version,
  });
  const headers: Record<string, string> = {
    Authorization: `Bearer ${input.secret}`,
    'PG-Timestamp': timestamp,
    'PG-Nonce': nonce,
    'PG-Version': input.version,
    'PG-Signature': `v1=${sign(input.secret, canonical)}`,
  };
  if (input.idempotencyKey !== undefined) headers['Idempotency-Key'] = input.idempotencyKey;
  return headers;
}
