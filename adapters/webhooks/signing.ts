// Webhook signatures (contract: Webhook signatures) with node:crypto, the hot-path
// implementation (DESIGN.md, Performance notes). The signed bytes are the UTF-8 text
// `v1.<t>.<event id>.` followed by the raw body bytes; the header is
// `v1,kid=<kid>,t=<unix seconds>,s=<base64url signature>`. Invariant: the body is signed
// as the exact bytes that are sent (never re-serialised). Verification is the receiver's:
// the specs and scripts/webhook-consumer.ts verify with @noble/ed25519, independently.

import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';

/** The DER prefix of an Ed25519 PKCS#8 private key; the 32-byte seed follows it. */
const pkcs8Ed25519Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');
/** The DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32-byte public key follows it. */
const spkiEd25519Prefix = Buffer.from('302a300506032b6570032100', 'hex');
const ed25519KeyBytes = 32;

export function signedBytes(t: number, eventId: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`v1.${t}.${eventId}.`, 'utf8'), body]);
}

export function signatureHeader(kid: string, t: number, signatureBase64Url: string): string {
  return `v1,kid=${kid},t=${t},s=${signatureBase64Url}`;
}

/** Signs one delivery: returns the X-PG-Signature value. */
export function signDelivery(key: SigningKey, t: number, eventId: string, body: Buffer): string {
  const s = sign(null, signedBytes(t, eventId, body), key.privateKey).toString('base64url');
  return signatureHeader(key.kid, t, s);
}

export interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

/** An Ed25519 private key from its 32-byte seed (the test-vector key is derived this way). */
export function privateKeyFromSeed(seed: Buffer): KeyObject {
  if (seed.length !== ed25519KeyBytes) throw new RangeError(`an Ed25519 seed is ${ed25519KeyBytes} bytes, not ${seed.length}`);
  return createPrivateKey({ key: Buffer.concat([pkcs8Ed25519Prefix, seed]), format: 'der', type: 'pkcs8' });
}

export function spkiDer(publicKey: KeyObject): Buffer {
  return publicKey.export({ format: 'der', type: 'spki' });
}

/** The 32 raw public-key bytes inside an Ed25519 SPKI. */
export function rawPublicKey(publicKey: KeyObject): Buffer {
  const der = spkiDer(publicKey);
  if (der.length !== spkiEd25519Prefix.length + ed25519KeyBytes || !der.subarray(0, spkiEd25519Prefix.length).equals(spkiEd25519Prefix)) {
    throw new Error('not an Ed25519 public key');
  }
  return der.subarray(spkiEd25519Prefix.length);
}

export function publicKeyFromSpki(der: Buffer): KeyObject {
  return createPublicKey({ key: der, format: 'der', type: 'spki' });
}

/** How a key is published (GET /v1/webhooks/signing-keys, test vectors). */
export function publishedKey(publicKey: KeyObject): { public_key: string; format: 'spki_der_base64'; raw_public_key: string } {
  return { public_key: spkiDer(publicKey).toString('base64'), format: 'spki_der_base64', raw_public_key: rawPublicKey(publicKey).toString('base64url') };
}
