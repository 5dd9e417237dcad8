// Webhook signatures end to end, checked independently of the signer with
// @noble/ed25519: a delivery's headers and signature against GET
// /v1/webhooks/signing-keys, its timestamp the wall clock's (security time) whatever the
// service clock says, as the reference consumer requires; the published keys' shape; the
// three test-vector sets (verified with @noble/ed25519 and node:crypto); and a key rotation — announced 7 days
// ahead by webhook.key.rotating to every endpoint, with deliveries verifying under the
// old key before the switch and under the new one after it (a retry across the switch
// is re-signed by the new key).

import * as ed from '@noble/ed25519';
import { createPublicKey, verify } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WebhookConsumer } from '../../scripts/webhook-consumer.ts';
import type { MerchantKeys, TestServer } from '../support/server-harness.ts';
import { addEndpoint, advance, day, emitEvent, nobleVerifies, publishedKeys, Receiver, second, startServer } from './support.ts';

let s: TestServer;
let shop: MerchantKeys;
let receiver: Receiver;
let endpointId: string;

test.before(async () => {
  s = await startServer();
  receiver = await Receiver.start(() => s.clock.now());
  shop = await s.onboard('Shop');
  endpointId = await addEndpoint(s, shop.id, receiver.url, true);
});
test.after(async () => { await s.stop(); await Receiver.stopAll(); });

test('a delivery carries every contract header, and its signature verifies with @noble/ed25519 against the published key', async () => {
  await emitEvent(s, shop);
  await advance(s, 0);
  assert.is(receiver.received.length, 1);
  const r = receiver.received[0]!;
  const body = JSON.parse(r.body.toString('utf8'));
  assert.is(r.headers['content-type'], 'application/json; charset=utf-8');
  assert.match(String(r.headers['user-agent']), /^satang-webhooks\//);
  assert.is(r.headers['x-pg-event-id'], body.id);
  assert.is(r.headers['x-pg-event-type'], body.type);
  assert.match(String(r.headers['x-pg-delivery-id']), /^whd_/);
  assert.is(r.headers['x-pg-attempt'], '1');
  assert.is(r.headers['x-pg-api-version'], body.api_version);
  assert.is(r.headers['x-pg-livemode'], 'true');
  assert.is(r.headers['x-pg-resend'], undefined);
  assert.match(String(r.headers['x-pg-signature']), /^v1,kid=[^,]+,t=\d+,s=[A-Za-z0-9_-]+$/);
  const keys = await publishedKeys(s);
  const checked = await nobleVerifies(r, keys);
  assert.ok(checked.ok, 'signature verifies with @noble/ed25519');
  assert.ok(Math.abs(checked.t - s.wallSeconds()) <= 1, `t=${checked.t} is the wall clock's (${s.wallSeconds()}), not the service clock's`);
  assert.is(keys.keys.find((k) => k.kid === checked.kid)?.status, 'active');
  // The check is real: one changed byte of the body fails it.
  const tampered = { ...r, body: Buffer.from(r.body.toString('utf8').replace('"livemode":true', '"livemode":false')) };
  assert.not.ok((await nobleVerifies(tampered, keys)).ok);
});

test('on a service clock hours (and days) from the wall clock, t is the wall clock\'s: the reference consumer, holding t to ±300 s of its real clock, applies the delivery', async () => {
  await advance(s, 3 * 3_600_000);
  assert.ok(Math.abs(s.clock.now() - Date.now()) > 3_600_000, 'the service clock is hours from the wall clock');
  const consumer = new WebhookConsumer({ signingKeysUrl: `${s.url}/v1/webhooks/signing-keys`, livemode: true, db: ':memory:' }); // Date.now
  const before = receiver.received.length;
  await emitEvent(s, shop);
  await advance(s, 0);
  const r = receiver.received.at(-1)!;
  assert.ok(receiver.received.length > before, 'delivered');
  assert.equal(await consumer.handle(r.headers, r.body), { status: 200, outcome: 'applied' });
});

test('GET /v1/webhooks/signing-keys: Ed25519 keys as base64 SPKI DER and raw base64url bytes that agree', async () => {
  const r = await s.raw('GET', '/v1/webhooks/signing-keys');
  assert.is(r.status, 200);
  const key = r.json.keys[0];
  assert.equal(Object.keys(key).sort(), ['alg', 'format', 'kid', 'livemode', 'not_after', 'not_before', 'public_key', 'raw_public_key', 'status']);
  // One active key per mode, each saying which deliveries it signs (a live delivery must verify with a live key).
  const active = r.json.keys.filter((k: { status: string }) => k.status === 'active').map((k: { livemode: boolean }) => k.livemode);
  assert.equal(active.sort(), [false, true]);
  assert.is(key.alg, 'Ed25519');
  assert.is(key.format, 'spki_der_base64');
  const spki = Buffer.from(key.public_key, 'base64');
  const raw = Buffer.from(key.raw_public_key, 'base64url');
  assert.is(raw.length, 32);
  assert.ok(spki.subarray(spki.length - 32).equals(raw));
  assert.is(createPublicKey({ key: spki, format: 'der', type: 'spki' }).asymmetricKeyType, 'ed25519');
  assert.match(key.not_before, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

test('test vectors: three sets (Thai, a URL with /, an emoji pair) verify with @noble/ed25519 and node:crypto, under a dedicated key', async () => {
  const r = await s.raw('GET', '/v1/webhooks/test-vectors');
  assert.is(r.status, 200);
  const sets = r.json.sets as any[];
  assert.is(sets.length, 3);
  const live = (await publishedKeys(s)).keys;
  for (const v of sets) {
    const bytes = Buffer.from(v.raw_body_base64, 'base64');
    assert.is(bytes.toString('utf8'), v.raw_body, `${v.name}: raw_body_base64 is the body's bytes`);
    assert.is(bytes.length, v.raw_body_bytes);
    assert.is(JSON.parse(v.raw_body).id, v.event_id);
    const message = Buffer.concat([Buffer.from(`v1.${v.t}.${v.event_id}.`, 'utf8'), bytes]);
    assert.ok(Buffer.from(v.signed_payload_base64, 'base64').equals(message));
    const signature = Buffer.from(v.signature, 'base64url');
    assert.ok(await ed.verifyAsync(signature, message, Buffer.from(v.raw_public_key, 'base64url')), `${v.name}: @noble/ed25519`);
    assert.ok(verify(null, message, createPublicKey({ key: Buffer.from(v.public_key, 'base64'), format: 'der', type: 'spki' }), signature), `${v.name}: node:crypto`);
    assert.is(v.signature_header, `v1,kid=${v.kid},t=${v.t},s=${v.signature}`);
    assert.not.ok(live.some((k) => k.kid === v.kid || k.raw_public_key === v.raw_public_key), 'never a live signing key');
  }
  const [thai, url, emoji] = sets.map((v) => v.raw_body as string);
  const nonAscii = (text: string) => [...text].filter((ch) => ch.codePointAt(0)! > 0x7f);
  assert.ok(nonAscii(thai!).length > 0 && nonAscii(thai!).every((ch) => /[\u0E00-\u0E7F]/.test(ch)), 'set 1: Thai text only');
  assert.ok(/https:\/\/[^"]*\/[^"]*\//.test(url!) && !url!.includes('\\/'), "set 2: a URL with '/' kept unescaped");
  assert.ok(/[\uD800-\uDBFF][\uDC00-\uDFFF]/.test(emoji!), 'set 3: a surrogate pair');
  // The vectors are fixed: a second call gives the same bytes.
  assert.is((await s.raw('GET', '/v1/webhooks/test-vectors')).text, r.text);
});

test('rotation: announced 7 days ahead to every live endpoint (by mail where all are disabled), never to sandbox ones; deliveries verify under the old key before the switch and the new key after', async () => {
  const sandboxReceiver = await Receiver.start(() => s.clock.now());
  const other = await s.onboard('Other', shop.whiteLabelId);
  const otherEndpoint = await addEndpoint(s, other.id, sandboxReceiver.url, false);
  assert.ok(otherEndpoint);
  // A merchant whose only live endpoint is disabled hears of it by mail (the contract's rule for the five mandatory events).
  const quiet = await s.onboard('Quiet', shop.whiteLabelId);
  const quietEndpoint = await addEndpoint(s, quiet.id, sandboxReceiver.url, true);
  assert.is((await s.bo('POST', `/v1/bo/webhooks/${quietEndpoint}/disable`, {})).status, 200);
  const before = (await publishedKeys(s)).keys.find((k) => k.status === 'active')!;
  assert.is((await s.bo('POST', '/v1/bo/webhooks/signing-keys/rotate', {})).status, 403, 'rotation needs a step-up token');
  const started = s.clock.now();
  const seen = receiver.received.length;
  const rotated = await s.bo('POST', '/v1/bo/webhooks/signing-keys/rotate', {}, { stepUp: true });
  assert.is(rotated.status, 201, rotated.text);
  assert.is(rotated.json.previous_kid, before.kid);
  assert.is(rotated.json.not_before, new Date(started + 7 * day).toISOString());
  assert.is((await s.bo('POST', '/v1/bo/webhooks/signing-keys/rotate', {}, { stepUp: true })).status, 409, 'one rotation at a time');
  const listed = (await publishedKeys(s)).keys;
  assert.is(listed.find((k) => k.kid === rotated.json.kid)?.status, 'next');
  assert.is(listed.find((k) => k.kid === before.kid)?.not_after, rotated.json.not_before);

  await advance(s, 0);
  assert.equal(sandboxReceiver.received.map((r) => r.headers['x-pg-event-type']), [], 'the live key\'s rotation is not told to sandbox endpoints: their key does not change');
  const mailed = s.running.store.db.prepare<[string], { kind: string; subject: string; body: string }>('SELECT kind, subject, body FROM email_outbox WHERE merchant_id = ?').all(quiet.id);
  assert.equal(mailed.map((m) => [m.kind, m.subject]), [['mandatory_event', '[satang] webhook.key.rotating (live): your webhook endpoint is disabled']]);
  assert.ok(mailed[0]!.body.includes(rotated.json.kid), 'the mail carries the event');
  const quietFeed = await s.call(quiet.live.api_key, 'GET', '/v1/pay/events?since_sequence=0');
  assert.ok(quietFeed.json.data.some((e: any) => e.type === 'webhook.key.rotating'), 'and its feed has it');
  for (const [r, livemode] of [[receiver.received[seen]!, 'true']] as const) {
    assert.is(r.headers['x-pg-event-type'], 'webhook.key.rotating', 'every live endpoint hears of the rotation');
    assert.is(r.headers['x-pg-livemode'], livemode);
    const data = JSON.parse(r.body.toString('utf8')).data;
    const object = data.object;
    assert.is(object.kid, rotated.json.kid);
    assert.is(object.not_before, rotated.json.not_before);
    assert.is(String(object.livemode), livemode, 'the object carries its mode, as every object does');
    assert.ok('previous_attributes' in data && data.previous_attributes === null, 'previous_attributes is null (a new key), not absent');
    assert.ok((await nobleVerifies(r, await publishedKeys(s))).ok);
  }

  // Just before the switch: signed by the old key. The receiver fails it, so its retry 10 s
  // later falls after the switch and is signed afresh by the new key.
  await advance(s, 7 * day - 5 * second);
  receiver.answer(500);
  const firstIndex = receiver.received.length;
  await emitEvent(s, shop);
  await advance(s, 0);
  receiver.answer(204);
  await advance(s, 12 * second);
  const [beforeSwitch, afterSwitch] = [receiver.received[firstIndex]!, receiver.received[firstIndex + 1]!];
  assert.is(afterSwitch.headers['x-pg-event-id'], beforeSwitch.headers['x-pg-event-id']);
  assert.is(afterSwitch.headers['x-pg-attempt'], '2');
  const keys = await publishedKeys(s);
  const a = await nobleVerifies(beforeSwitch, keys), b = await nobleVerifies(afterSwitch, keys);
  assert.ok(a.ok && b.ok, 'both verify against the published keys');
  assert.is(a.kid, before.kid);
  assert.is(b.kid, rotated.json.kid);
  assert.is(keys.keys.find((k) => k.kid === before.kid)?.status, 'retired');
  assert.is(keys.keys.find((k) => k.kid === rotated.json.kid)?.status, 'active');

  // The old key leaked: once it stopped signing it is withdrawn, the list drops it, and the
  // reference consumer, asked about a signature by a key it last saw retired, refetches and refuses.
  let offsetMs = 0;
  const consumer = new WebhookConsumer({ signingKeysUrl: `${s.url}/v1/webhooks/signing-keys`, livemode: true, db: ':memory:', now: () => Date.now() + offsetMs });
  assert.is((await consumer.handle(beforeSwitch.headers, new Uint8Array(beforeSwitch.body))).status, 200, 'signed by the retired key, still listed');
  const signingNow = await s.bo('POST', `/v1/bo/webhooks/signing-keys/${rotated.json.kid}/withdraw`, {}, { stepUp: true });
  assert.equal([signingNow.status, signingNow.json.error?.code], [409, 'operation_not_allowed'], 'the key that signs cannot be withdrawn: rotate first');
  assert.is((await s.bo('POST', `/v1/bo/webhooks/signing-keys/${before.kid}/withdraw`, {})).status, 403, 'withdrawing needs a step-up');
  const withdrawn = await s.bo('POST', `/v1/bo/webhooks/signing-keys/${before.kid}/withdraw`, {}, { stepUp: true });
  assert.equal([withdrawn.status, withdrawn.json.status], [200, 'withdrawn'], withdrawn.text);
  assert.not.ok((await publishedKeys(s)).keys.some((k) => k.kid === before.kid), 'published no more');
  offsetMs = 61_000;
  const refused = await consumer.handle(beforeSwitch.headers, new Uint8Array(beforeSwitch.body));
  assert.equal([refused.status, refused.outcome], [401, 'rejected'], JSON.stringify(refused));
  await sandboxReceiver.stop();
});

test('the reference consumer, holding a copy of the keys fetched while a rotation was announced, refetches before trusting the old key once its not_after has passed: a withdrawn key is refused', async () => {
  const { generateKeyPairSync } = await import('node:crypto');
  const { signDelivery } = await import('../../adapters/webhooks/signing.ts');
  const { publishedKey } = await import('../../adapters/webhooks/signing.ts');
  const pair = generateKeyPairSync('ed25519');
  const old = { kid: 'whk_old', privateKey: pair.privateKey, publicKey: pair.publicKey };
  const switchAt = Date.UTC(2026, 11, 1, 0, 0, 0);
  let now = switchAt - 30_000;
  let withdrawn = false;
  const listed = () => ({ keys: withdrawn ? [] : [{ kid: old.kid, ...publishedKey(old.publicKey), status: now < switchAt ? 'active' : 'retired', not_after: new Date(switchAt).toISOString() }] });
  const consumer = new WebhookConsumer({ signingKeysUrl: 'http://keys.invalid/', livemode: true, db: ':memory:', now: () => now, fetchKeys: async () => listed() });
  const delivery = (id: string) => {
    const body = Buffer.from(JSON.stringify({ id, object: 'event', type: 'deposit.settled', livemode: true, data: { object: { id: `dep_${id}`, object: 'deposit_order', version: 1, status: 'settled' } } }));
    return { headers: { 'x-pg-signature': signDelivery(old, Math.floor(now / 1000), id, body), 'x-pg-event-id': id }, body };
  };
  const first = delivery('evt_in_window');
  assert.is((await consumer.handle(first.headers, new Uint8Array(first.body))).status, 200, 'signed in the notice window: the active key');
  // The switch passed, the key leaked and was withdrawn; the consumer's copy still says "active".
  now = switchAt + 90_000;
  withdrawn = true;
  const forged = delivery('evt_forged');
  const answer = await consumer.handle(forged.headers, new Uint8Array(forged.body));
  assert.equal([answer.status, answer.outcome], [401, 'rejected'], JSON.stringify(answer));
});

test.run();
