// GET /v1/webhooks/test-vectors: three signed sample deliveries (contract: "Events and
// webhook support") for merchants to test their verifier against — set 1 carries Thai
// text only, set 2 a URL with '/' (which some JSON encoders escape as '\/': the bytes
// must be verified as received), set 3 an emoji outside the BMP (a UTF-16 surrogate
// pair, four UTF-8 bytes). They are signed by a dedicated test-vector key derived from a
// fixed seed, never by a live signing key, so the vectors are the same on every
// deployment and forever (Ed25519 signatures are deterministic).

import { createHash, createPublicKey } from 'node:crypto';
import { apiVersion } from '../../core/present.ts';
import { privateKeyFromSeed, publishedKey, signDelivery, signedBytes, type SigningKey } from './signing.ts';
import { reviewDisplay } from '../../core/deposit/reasons.ts';

export const testVectorKid = 'whk_test_vectors_1';
/** Fixed: 2026-01-01T00:00:00Z. Older than 300 s, so a verifier must be told to skip its time check. */
export const testVectorT = 1_767_225_600;

function testVectorKey(): SigningKey {
  const privateKey = privateKeyFromSeed(createHash('sha256').update('satang webhook test-vector key 1').digest());
  return { kid: testVectorKid, privateKey, publicKey: createPublicKey(privateKey) };
}

const account = { merchant_id: 'mch_01JGTV0000000000000000000M', white_label_id: 'wl_01JGTV0000000000000000000W' };
const createdAt = '2026-01-01T00:00:00.000Z';

function envelope(id: string, sequence: number, type: string, object: Record<string, unknown>, previous: Record<string, unknown> | null): string {
  return JSON.stringify({ id, object: 'event', type, api_version: apiVersion, livemode: false, created_at: createdAt, sequence, account, data: { object, previous_attributes: previous } });
}

const bodies: readonly { name: string; description: string; eventId: string; body: string }[] = [
  {
    name: 'set_1_thai', description: 'Thai text only (multi-byte UTF-8, no emoji)', eventId: 'evt_01JGTV00000000000000000001',
    body: envelope('evt_01JGTV00000000000000000001', 1, 'deposit.under_review', {
      id: 'dep_01JGTV0000000000000000000D', object: 'deposit_order', version: 3, status: 'under_review', is_terminal: false, amount_minor: 50000, currency: 'THB',
      review: { opened_at: createdAt, escalated: false, four_eyes_required: false, estimated_resolution_bucket: 'under_1h',
        reasons: [{ code: 'SENDER_NAME_MISMATCH', display_th: reviewDisplay('SENDER_NAME_MISMATCH').th, display_en: reviewDisplay('SENDER_NAME_MISMATCH').en, actionable_by: 'end_user' }] }, // as the service sends it
    }, { status: 'slip_processing', version: 2 }),
  },
  {
    name: 'set_2_url_slash', description: "a URL containing '/' (must not become '\\/')", eventId: 'evt_01JGTV00000000000000000002',
    body: envelope('evt_01JGTV00000000000000000002', 2, 'deposit.matched', {
      id: 'dep_01JGTV0000000000000000000E', object: 'deposit_order', version: 1, status: 'awaiting_payment', is_terminal: false, amount_minor: 120000, currency: 'THB',
      checkout_url: 'https://pay.example.co.th/checkout/dep_01JGTV0000000000000000000E/th?return=/orders/42',
    }, { status: 'awaiting_liquidity', version: 0 }),
  },
  {
    name: 'set_3_emoji', description: 'an emoji outside the BMP (UTF-16 surrogate pair, 4 UTF-8 bytes)', eventId: 'evt_01JGTV00000000000000000003',
    body: envelope('evt_01JGTV00000000000000000003', 3, 'deposit.settled', {
      id: 'dep_01JGTV0000000000000000000F', object: 'deposit_order', version: 4, status: 'settled', is_terminal: false, amount_minor: 10000, currency: 'THB',
      metadata: { note: 'ขอบคุณครับ 😀🙏' },
    }, { status: 'slip_processing', version: 3 }),
  },
];

export interface TestVectorSet {
  name: string; description: string;
  raw_body: string; raw_body_base64: string; raw_body_bytes: number;
  t: number; event_id: string; kid: string;
  signed_payload_base64: string; signature: string; signature_header: string;
  public_key: string; format: 'spki_der_base64'; raw_public_key: string;
}

let computed: { algorithm: 'Ed25519'; signed_bytes: string; kid: string; sets: TestVectorSet[] } | undefined;

/** The three sets (computed once: the key and the bodies are fixed). */
export function testVectors(): NonNullable<typeof computed> {
  if (computed) return computed;
  const key = testVectorKey();
  const published = publishedKey(key.publicKey);
  const sets = bodies.map((b): TestVectorSet => {
    const bytes = Buffer.from(b.body, 'utf8');
    const header = signDelivery(key, testVectorT, b.eventId, bytes);
    return {
      name: b.name, description: b.description, raw_body: b.body, raw_body_base64: bytes.toString('base64'), raw_body_bytes: bytes.length,
      t: testVectorT, event_id: b.eventId, kid: key.kid,
      signed_payload_base64: signedBytes(testVectorT, b.eventId, bytes).toString('base64'),
      signature: /,s=([^,]+)$/.exec(header)![1]!, signature_header: header, ...published,
    };
  });
  computed = { algorithm: 'Ed25519', signed_bytes: "UTF-8 of 'v1.' + t + '.' + event_id + '.' followed by the raw body bytes", kid: key.kid, sets };
  return computed;
}
