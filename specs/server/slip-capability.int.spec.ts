// The order capability on a real server over HTTP (contract: "Order capability"): the
// slip_upload token is an Ed25519 signature that an independent implementation
// (@noble/ed25519) verifies against the signer's public key, with the bound claims; the
// upload route takes only that token and an Idempotency-Key — an API key, any PG-* header,
// no token, a forged or altered token, a token of another order or a URL that is not
// upload_url byte for byte are all 401 signature_invalid and write nothing; a revoked API
// key or a suspended merchant does not stop the capability; slip-token issues one that
// works the same; the route's rate limits (per rate_subject + IP, per end user) answer 429
// with the RateLimit headers.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as ed from '@noble/ed25519';
import { createHash, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { expectError, journalRows } from '../support/api-checks.ts';
import { depositBody, signedHeaders, freshSender } from '../support/server-harness.ts';
import { assertReceipt, getDeposit, matchedDeposit, multipartBody, pngSlip, slipScene, upload, uploadFile, uploadJson, type Capability, type SlipScene } from '../support/slip-harness.ts';

let scene: SlipScene;

test.before(async () => { scene = await slipScene(); });
test.after(async () => { await scene.s.stop(); });

function claimsOf(token: string): Record<string, any> {
  return JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8'));
}

test('the token verifies with @noble/ed25519 against the signer\'s public key and carries the bound claims', async () => {
  const endUser = `payer-${randomUUID()}`;
  const deposit = await matchedDeposit(scene, { sender: freshSender(), end_user_ref: endUser }); // a payer of its own (orders are left open)
  const cap: Capability = deposit.slip_upload;
  const [body, signature] = cap.token.split('.') as [string, string];
  const publicKey = scene.s.running.capability.rawPublicKey();
  assert.ok(await ed.verifyAsync(Buffer.from(signature, 'base64url'), Buffer.from(body), publicKey), 'noble verifies node:crypto\'s signature');
  const claims = claimsOf(cap.token);
  assert.is(claims.aud, 'pg-slip-ingest');
  assert.is(claims.scope, 'slip:write');
  assert.is(claims.tenant, scene.shop.id);
  assert.is(claims.livemode, true);
  assert.is(claims.deposit_id, deposit.id);
  assert.is(claims.htu, cap.upload_url);
  assert.is(cap.upload_url, `${scene.s.url}/v1/pay/deposits/${deposit.id}/slip`);
  assert.match(claims.rate_subject, /^[0-9a-f]{32}$/);
  // Keyed: a payer holding the token cannot test guesses of the end user's reference against it.
  const guess = (ref: string) => createHash('sha256').update(`${scene.shop.id}:live:${ref}`).digest('hex').slice(0, 32);
  assert.is.not(claims.rate_subject, guess(endUser));
  // Still one subject per end user and mode: another order of the same end user shares it, another end user's does not.
  const again = claimsOf((await matchedDeposit(scene, { sender: freshSender(), end_user_ref: endUser })).slip_upload.token);
  const other = claimsOf((await matchedDeposit(scene, { sender: freshSender(), end_user_ref: `${endUser}-2` })).slip_upload.token);
  assert.equal([again.rate_subject === claims.rate_subject, other.rate_subject === claims.rate_subject], [true, false]);
  assert.is(claims.api_version, '2026-08-01');
  assert.is(claims.hold_until, Date.parse(deposit.expires_at));
  assert.is(claims.exp * 1000, Date.parse(cap.expires_at));
  const altered = Buffer.from(JSON.stringify({ ...claims, deposit_id: 'dep_other' })).toString('base64url');
  assert.not.ok(await ed.verifyAsync(Buffer.from(signature, 'base64url'), Buffer.from(altered), publicKey), 'the signature covers the claims');
  assert.is(cap.max_bytes, 5 * 1024 * 1024);
  assert.ok(cap.content_types.includes('image/jpeg') && cap.content_types.includes('application/json'));
  assert.not.ok(cap.content_types.includes('application/pdf'));
});

test('only the capability: an API key, PG-* headers, no token, a forged or altered token → 401 signature_invalid, nothing written', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  const cap: Capability = deposit.slip_upload;
  const rows = await journalRows(scene.s);
  const { body, contentType } = multipartBody([{ name: 'file', data: pngSlip(), filename: 'slip.png' }]);
  const path = new URL(cap.upload_url).pathname;
  const hmac = signedHeaders(scene.shop.live.api_key, 'POST', path, body.toString('latin1'), { idempotencyKey: randomUUID(), nowSeconds: scene.s.wallSeconds() });
  const [claims, signature] = cap.token.split('.') as [string, string];
  const altered = `${Buffer.from(JSON.stringify({ ...claimsOf(cap.token), tenant: scene.payer.id })).toString('base64url')}.${signature}`;
  const flipped = `${claims}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
  const attempts: [string, Record<string, string>][] = [
    ['the merchant\'s API key with a valid HMAC signature', hmac],
    ['the token plus PG-Signature', { 'PG-Signature': hmac['PG-Signature']! }],
    ['the token plus PG-Timestamp and PG-Nonce', { 'PG-Timestamp': hmac['PG-Timestamp']!, 'PG-Nonce': hmac['PG-Nonce']! }],
    ['no Authorization', { Authorization: '' }],
    ['a forged signature', { Authorization: `Bearer ${flipped}` }],
    ['altered claims', { Authorization: `Bearer ${altered}` }],
  ];
  for (const [what, headers] of attempts) {
    const r = await upload(cap, body, contentType, { headers });
    expectError(r, 'signature_invalid');
    assert.is(r.status, 401, what);
  }
  assert.is(await journalRows(scene.s), rows, 'nothing was journaled');
  assert.is((await getDeposit(scene, deposit.id)).status, 'awaiting_payment');
});

/** A POST with its headers as a raw list, each line sent as given (fetch would join two of a name into one, and refuses bytes past latin-1). */
function rawPost(url: URL, headers: readonly string[], body: Buffer | string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: ['Host', url.host, ...headers, 'Content-Length', String(Buffer.byteLength(body))] }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('an Idempotency-Key is one header of printable ASCII on every route: two keys or UTF-8 bytes are 422 naming the header, nothing written', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() });
  const { body, contentType } = multipartBody([{ name: 'file', data: pngSlip(), filename: 'slip.png' }]);
  const thai = Buffer.from('คีย์ทดสอบ').toString('latin1'); // the UTF-8 bytes, sent as they are
  const rows = await journalRows(scene.s);
  const operator = `Bearer ${await scene.s.operatorToken(undefined, false, ['ops_admin'])}`;
  const merchant = signedHeaders(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', '{}', { idempotencyKey: 'first-key', nowSeconds: scene.s.wallSeconds() });
  const merchantLines = Object.entries(merchant).filter(([name]) => name.toLowerCase() !== 'idempotency-key').flat();
  const cases: [string, URL, string[], Buffer | string, string][] = [
    ['slip upload, two keys', new URL(deposit.slip_upload.upload_url), ['Authorization', `Bearer ${deposit.slip_upload.token}`, 'Content-Type', contentType, 'Idempotency-Key', 'key-a', 'Idempotency-Key', 'key-b'], body, 'duplicate'],
    ['slip upload, UTF-8', new URL(deposit.slip_upload.upload_url), ['Authorization', `Bearer ${deposit.slip_upload.token}`, 'Content-Type', contentType, 'Idempotency-Key', thai], body, 'format'],
    ['operator, two keys', new URL(`${scene.s.url}/v1/bo/merchants/${scene.shop.id}/suspend`), ['Authorization', operator, 'Content-Type', 'application/json', 'Idempotency-Key', 'key-a', 'Idempotency-Key', 'key-b'], '{}', 'duplicate'],
    ['operator, UTF-8', new URL(`${scene.s.url}/v1/bo/merchants/${scene.shop.id}/suspend`), ['Authorization', operator, 'Content-Type', 'application/json', 'Idempotency-Key', thai], '{}', 'format'],
    ['merchant, two keys', new URL(`${scene.s.url}/v1/pay/deposits`), [...merchantLines, 'Content-Type', 'application/json', 'Idempotency-Key', 'first-key', 'Idempotency-Key', 'second-key'], '{}', 'duplicate'],
  ];
  for (const [what, url, headers, sent, reason] of cases) {
    const answer = await rawPost(url, headers, sent);
    assert.is(answer.status, 422, `${what}: ${answer.body}`);
    const error = JSON.parse(answer.body).error;
    assert.equal([error.code, error.details.fields[0].path, error.details.fields[0].reason], ['validation_error', 'header.Idempotency-Key', reason], what);
  }
  assert.is(await journalRows(scene.s), rows, 'nothing was journaled');
});

test('the token twice, in two Authorization headers → 401 signature_invalid saying so, nothing written', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  const cap: Capability = deposit.slip_upload;
  const rows = await journalRows(scene.s);
  const { body, contentType } = multipartBody([{ name: 'file', data: pngSlip(), filename: 'slip.png' }]);
  const url = new URL(cap.upload_url);
  const answer = await rawPost(url, ['Authorization', `Bearer ${cap.token}`, 'Authorization', `Bearer ${cap.token}`,
    'Idempotency-Key', randomUUID(), 'Content-Type', contentType], body);
  assert.is(answer.status, 401, answer.body);
  const error = JSON.parse(answer.body).error;
  assert.is(error.code, 'signature_invalid');
  assert.match(error.message, /one Authorization header/);
  assert.is(await journalRows(scene.s), rows, 'nothing was journaled');
});

test('a token for deposit A on deposit B\'s URL, or on a URL that is not upload_url byte for byte, is refused', async () => {
  const a = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  const b = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  const { body, contentType } = multipartBody([{ name: 'file', data: pngSlip(), filename: 'slip.png' }]);
  for (const url of [b.slip_upload.upload_url, `${a.slip_upload.upload_url}?x=1`]) {
    expectError(await upload(a.slip_upload, body, contentType, { url }), 'signature_invalid');
  }
  // Paths are case-sensitive: another case of the path is no slip upload route (refused before any route, as a multipart body elsewhere is).
  const otherCase = await upload(a.slip_upload, body, contentType, { url: a.slip_upload.upload_url.replace('/v1/pay/', '/v1/PAY/') });
  assert.ok(otherCase.status === 400 || otherCase.status === 404, `${otherCase.status} ${otherCase.text}`);
  assert.is((await getDeposit(scene, a.id)).status, 'awaiting_payment', 'nothing received');
  assert.is((await getDeposit(scene, b.id)).status, 'awaiting_payment');
  assertReceipt(await upload(b.slip_upload, body, contentType));
});

test('a revoked API key or a suspended merchant does not stop the capability of an open order', async () => {
  const other = await scene.s.onboard('Shop Two', scene.payer.whiteLabelId);
  const created = await scene.s.call(other.live.api_key, 'POST', '/v1/pay/deposits', {
    amount_minor: 50_000, currency: 'THB', merchant_reference: `ref-${randomUUID()}`, end_user_ref: 'user-two', fill_preference: 'internal_only',
    sender: { bank_code: '014', account_number: '9876543210', account_name_th: 'สมชาย ใจดี' }, client: { device_fingerprint: 'fp', ip: '203.0.113.9', user_agent: 'spec' },
  });
  assert.is(created.status, 201, created.text);
  const revoked = await scene.s.bo('POST', `/v1/bo/keys/${other.live.key_id}/revoke`, {}, { stepUp: true });
  assert.is(revoked.status, 200, revoked.text);
  expectError(await scene.s.call(other.live.api_key, 'GET', `/v1/pay/deposits/${created.json.id}`), 'api_key_revoked');
  const suspended = await scene.s.bo('POST', `/v1/bo/merchants/${other.id}/suspend`, {}, { stepUp: true });
  assert.is(suspended.status, 200, suspended.text);
  assertReceipt(await uploadFile(created.json.slip_upload, pngSlip()));
  assert.is(scene.s.running.store.world.deposits.get(created.json.id)!.status, 'slip_processing');
});

test('slip-token issues a capability for the order (Cache-Control: no-store) that uploads like the first', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  const r = await scene.s.call(scene.shop.live.api_key, 'POST', `/v1/pay/deposits/${deposit.id}/slip-token`);
  assert.is(r.status, 200, r.text);
  assert.is(r.headers.get('cache-control'), 'no-store');
  assert.equal(Object.keys(r.json).sort(), ['content_types', 'expires_at', 'max_bytes', 'token', 'upload_url']);
  assert.is(r.json.upload_url, deposit.slip_upload.upload_url);
  assertReceipt(await uploadFile(r.json, pngSlip()));
});

test('an upload without Idempotency-Key is 400 idempotency_key_required', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  const { body, contentType } = multipartBody([{ name: 'file', data: pngSlip() }]);
  expectError(await upload(deposit.slip_upload, body, contentType, { headers: { 'Idempotency-Key': '' } }), 'idempotency_key_required');
});

test('rate limits: 20 per minute per end user, with RateLimit headers; the 21st is 429 rate_limited until the window ends', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  for (let i = 1; i <= 20; i++) {
    const r = await upload(deposit.slip_upload, 'not a slip', 'text/plain');
    expectError(r, 'unsupported_media_type');
    assert.is(r.headers.get('ratelimit-limit'), '20');
    assert.is(r.headers.get('ratelimit-remaining'), String(20 - i));
    assert.is(r.headers.get('ratelimit-policy'), '20;w=60');
    assert.ok(r.headers.get('x-ratelimit-scope')?.startsWith('slip_upload_'));
  }
  const limited = await upload(deposit.slip_upload, 'not a slip', 'text/plain');
  const e = expectError(limited, 'rate_limited');
  assert.ok(['slip_upload_subject', 'slip_upload_user'].includes(e.details.bucket));
  assert.ok(Number(limited.headers.get('retry-after')) > 0);
  assert.is(limited.headers.get('ratelimit-remaining'), '0');
  await scene.s.running.services.write.advanceClock!(61_000);
  expectError(await upload(deposit.slip_upload, 'not a slip', 'text/plain'), 'rate_limited'); // business time does not reopen a quota
  scene.s.securityClock.advance(61_000);
  expectError(await upload(deposit.slip_upload, 'not a slip', 'text/plain'), 'unsupported_media_type');
});

test('a sandbox order\'s uploads never spend the live quota of the same end user (the modes are apart)', async () => {
  const endUser = `both-modes-${randomUUID().slice(0, 8)}`;
  const live = await matchedDeposit(scene, { sender: freshSender(), end_user_ref: endUser });
  const r = await scene.s.call(scene.shop.sandbox.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 50_000, sender: freshSender(), end_user_ref: endUser }));
  assert.is(r.status, 201, r.text);
  for (let i = 1; i <= 20; i++) expectError(await upload(r.json.slip_upload, 'not a slip', 'text/plain'), 'unsupported_media_type');
  expectError(await upload(r.json.slip_upload, 'not a slip', 'text/plain'), 'rate_limited');
  const liveAnswer = await upload(live.slip_upload, 'not a slip', 'text/plain');
  expectError(liveAnswer, 'unsupported_media_type');
  assert.is(liveAnswer.headers.get('ratelimit-remaining'), '19', 'the live end user\'s quota is whole');
});

test("the upload's refusals carry a sentence for the payer's screen (details.public_message_th); a merchant route's do not", async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() });
  const cap: Capability = deposit.slip_upload;
  const shown = async (reply: Promise<{ status: number; json: any }>) => { const r = await reply; return [r.status, r.json.error.code, r.json.error.details.public_message_th]; };
  assert.equal(await shown(upload(cap, Buffer.alloc(0), 'image/png')), [400, 'unsupported_media_type', 'รองรับเฉพาะรูปภาพสลิป (JPEG, PNG, WebP หรือ HEIC) กรุณาเลือกรูปสลิปใหม่']);
  const huge = Buffer.concat([pngSlip(), Buffer.alloc(cap.max_bytes)]);
  assert.equal(await shown(uploadFile(cap, huge)), [422, 'validation_error', 'ไฟล์รูปสลิปใหญ่เกินไป (ไม่เกิน 5 MB) กรุณาเลือกรูปที่เล็กลง']);
  // Never "open a new link": a payer who has paid would start a new order and pay twice.
  assert.equal(await shown(uploadFile({ ...cap, token: `${cap.token}x` }, pngSlip())), [401, 'signature_invalid', 'ลิงก์อัปโหลดสลิปนี้ใช้ไม่ได้หรือหมดอายุแล้ว หากท่านโอนเงินไปแล้ว กรุณาอย่าโอนซ้ำ และติดต่อร้านค้าพร้อมสลิป']);
  // The app's own faults (no Idempotency-Key, a field the upload does not take) are not the payer's image: go to the merchant.
  const appFault = 'ไม่สามารถส่งสลิปได้เนื่องจากข้อผิดพลาดของระบบร้านค้า กรุณาติดต่อร้านค้า';
  const noKey = await fetch(cap.upload_url, { method: 'POST', headers: { Authorization: `Bearer ${cap.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ image_base64: pngSlip().toString('base64') }) });
  assert.equal([noKey.status, ((await noKey.json()) as any).error.details.public_message_th], [400, appFault]);
  assert.equal(await shown(uploadJson(cap, { image_base64: pngSlip().toString('base64'), payload: 'qr', extra: 'x' })), [422, 'validation_error', appFault]);
  // The merchant's own calls are for the merchant's staff: message_th only.
  const merchant = await scene.s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', { amount_minor: -1 });
  assert.equal([merchant.status, merchant.json.error.details.public_message_th], [422, undefined]);
});

test.run();
