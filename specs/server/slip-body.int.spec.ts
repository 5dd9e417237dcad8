// The slip upload's bodies over real HTTP (contract: POST /v1/pay/deposits/{id}/slip): the
// three shapes each answer 202 with a receipt; the file type is read from magic bytes only
// (a PNG named .jpg and sent as image/jpeg is a PNG, and GET /slip returns it as one; a
// text file named .png is 400 unsupported_media_type); max_bytes counts decoded bytes
// (base64 of max_bytes + 1 is 422, base64 of exactly max_bytes with line breaks is taken);
// an oversized request is refused before it is read whole, by Content-Length or, without
// one, as soon as the byte cap is passed; malformed bodies get the contract's codes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import { connect } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ErrorCode } from '../../core/errors.ts';
import { expectError } from '../support/api-checks.ts';
import { signedHeaders, freshSender } from '../support/server-harness.ts';
import {
  assertReceipt, getDeposit, jpegSlip, matchedDeposit, multipartBody, pngSlip, slipScene, upload, uploadFile, uploadJson, type Capability, type SlipScene,
} from '../support/slip-harness.ts';

let scene: SlipScene;
const maxBytes = 5 * 1024 * 1024;

test.before(async () => { scene = await slipScene(); });
test.after(async () => { await scene.s.stop(); });

/** A PNG of exactly `bytes` bytes (its signature, then filler). */
function pngOfSize(bytes: number): Buffer {
  const png = pngSlip();
  return Buffer.concat([png, Buffer.alloc(bytes - png.length, 0x2e)]);
}

async function slipImage(depositId: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const path = `/v1/pay/deposits/${depositId}/slip`;
  const headers = signedHeaders(scene.shop.live.api_key, 'GET', path, '', { nowSeconds: scene.s.wallSeconds() });
  const res = await fetch(scene.s.url + path, { headers });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

test('the three body shapes each answer 202 with a slip receipt, and the order moves to slip_processing', async () => {
  const shapes: [string, (cap: Capability) => ReturnType<typeof upload>][] = [
    ['multipart file + payload', (cap) => uploadFile(cap, jpegSlip(), { payload: 'mini-qr-1' })],
    ['JSON image_base64 + payload', (cap) => uploadJson(cap, { image_base64: pngSlip().toString('base64'), payload: 'mini-qr-2' })],
    ['JSON without image', (cap) => uploadJson(cap, { trans_ref: 'TR-NO-IMAGE-1', sending_bank_code: '014', occurred_at: new Date(scene.s.clock.now()).toISOString() })],
  ];
  for (const [what, send] of shapes) {
    const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
    const receipt = assertReceipt(await send(deposit.slip_upload));
    const after = await getDeposit(scene, deposit.id);
    assert.is(after.status, 'slip_processing', what);
    assert.is(after.slip.received_at, receipt.received_at, what);
    assert.is(after.slip.is_late, false, what);
  }
});

test('magic bytes decide: a PNG named slip.jpg sent as image/jpeg is stored and served as image/png', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  const png = pngSlip();
  assertReceipt(await uploadFile(deposit.slip_upload, png, { filename: 'slip.jpg', fileType: 'image/jpeg' }));
  const image = await slipImage(deposit.id);
  assert.is(image.status, 200);
  assert.is(image.type, 'image/png');
  assert.ok(image.bytes.equals(png), 'the same bytes come back');
  const foreign = await scene.s.call(scene.payer.live.api_key, 'GET', `/v1/pay/deposits/${deposit.id}/slip`);
  expectError(foreign, 'resource_not_found');
});

test('a text file renamed .png, a PDF, or base64 of text are 400 unsupported_media_type; nothing is received', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  const text = expectError(await uploadFile(deposit.slip_upload, Buffer.from('just some text, honestly a PNG'), { filename: 'slip.png', fileType: 'image/png' }), 'unsupported_media_type');
  assert.is(text.details.detected_type, null);
  const pdf = expectError(await uploadFile(deposit.slip_upload, Buffer.from('%PDF-1.7\n%slip\n'), { filename: 'slip.png', fileType: 'image/png' }), 'unsupported_media_type');
  assert.is(pdf.details.detected_type, 'application/pdf', 'PDF is detected, and refused because content_types does not list it');
  expectError(await uploadJson(deposit.slip_upload, { image_base64: Buffer.from('hello').toString('base64') }), 'unsupported_media_type');
  expectError(await upload(deposit.slip_upload, 'file=x', 'application/x-www-form-urlencoded'), 'unsupported_media_type');
  expectError(await upload(deposit.slip_upload, pngSlip(), 'application/json', { headers: { 'Content-Encoding': 'gzip' } }), 'unsupported_media_type');
  assert.is((await getDeposit(scene, deposit.id)).status, 'awaiting_payment');
});

test('max_bytes counts decoded bytes: base64 of max_bytes + 1 is 422, of exactly max_bytes with line breaks is 202', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  const over = expectError(await uploadJson(deposit.slip_upload, { image_base64: pngOfSize(maxBytes + 1).toString('base64') }), 'validation_error');
  assert.equal(over.details.fields[0], { path: 'image_base64', reason: 'too_large', hint: `at most ${maxBytes} decoded bytes` });
  const overFile = expectError(await uploadFile(deposit.slip_upload, pngOfSize(maxBytes + 1)), 'validation_error');
  assert.is(overFile.details.fields[0].path, 'file');
  assert.is(overFile.details.fields[0].reason, 'too_large');
  const exact = pngOfSize(maxBytes).toString('base64').replace(/.{76}/g, '$&\r\n');
  assertReceipt(await uploadJson(deposit.slip_upload, { image_base64: exact }));
});

/** Sends headers, then body chunks until the server answers (or `sendBytesMax` is sent); resolves with the answer and what was sent. */
function rawUpload(cap: Capability, headers: Record<string, string>, sendBytesMax: number): Promise<{ status: number; json: any; sentBytes: number }> {
  const url = new URL(cap.upload_url);
  return new Promise((resolve, reject) => {
    let sentBytes = 0;
    let answered = false;
    const timer = setTimeout(() => reject(new Error(`no answer after sending ${sentBytes} bytes`)), 10_000);
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { Authorization: `Bearer ${cap.token}`, 'Idempotency-Key': randomUUID(), ...headers } }, (res) => {
      answered = true;
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => { clearTimeout(timer); req.destroy(); resolve({ status: res.statusCode!, json: JSON.parse(text), sentBytes }); });
    });
    req.on('error', (error) => { if (!answered) { clearTimeout(timer); reject(error); } });
    const chunk = Buffer.alloc(256 * 1024, 0x41);
    const pump = () => {
      while (!answered && sentBytes < sendBytesMax) {
        sentBytes += chunk.length;
        if (!req.write(chunk)) { req.once('drain', pump); return; }
      }
    };
    pump();
  });
}

test('an oversized request is refused before it is read whole: by Content-Length at once, and without one at the byte cap', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  const declared = 50 * 1024 * 1024;
  const byLength = await rawUpload(deposit.slip_upload, { 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': String(declared) }, 256 * 1024);
  assert.is(byLength.status, 422);
  assert.is(byLength.json.error.code, 'validation_error');
  assert.is(byLength.json.error.details.fields[0].reason, 'too_large');
  assert.is(byLength.sentBytes, 256 * 1024, 'answered after 256 KiB of a declared 50 MiB');

  const streamed = await rawUpload(deposit.slip_upload, { 'Content-Type': 'multipart/form-data; boundary=x' }, declared);
  assert.is(streamed.status, 422);
  assert.is(streamed.json.error.details.fields[0].reason, 'too_large');
  assert.ok(streamed.sentBytes < 20 * 1024 * 1024, `stopped at ${streamed.sentBytes} bytes, far short of 50 MiB`);

  // The connection was closed, not the server: the order still takes a slip.
  assertReceipt(await uploadFile(deposit.slip_upload, pngSlip()));
});

test('malformed bodies: bad JSON 400 malformed_json; missing file, unknown fields, bad base64, bad no-image fields, broken multipart 422', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  const cap: Capability = deposit.slip_upload;
  expectError(await upload(cap, '{"image_base64": ', 'application/json'), 'malformed_json');
  const cases: [string, Promise<any>, string, string][] = [
    ['no file part', upload(cap, ...Object.values(multipartBody([{ name: 'payload', data: 'qr' }])) as [Buffer, string]), 'file', 'required'],
    ['an unknown part', upload(cap, ...Object.values(multipartBody([{ name: 'file', data: pngSlip() }, { name: 'note', data: 'hi' }])) as [Buffer, string]), 'note', 'unknown_field'],
    ['no boundary', upload(cap, 'garbage', 'multipart/form-data'), '', 'malformed_multipart'],
    ['an unclosed multipart body', upload(cap, '--b\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc', 'multipart/form-data; boundary=b'), '', 'malformed_multipart'],
    ['more parts than a file and a payload', upload(cap, ...Object.values(multipartBody(Array.from({ length: 6 }, () => ({ name: 'payload', data: 'qr' })))) as [Buffer, string]), '', 'too_many_parts'],
    ['bad base64', uploadJson(cap, { image_base64: 'not*base64!' }), 'image_base64', 'invalid_base64'],
    ['an unknown JSON field', uploadJson(cap, { image_base64: pngSlip().toString('base64'), note: 'x' }), 'note', 'unknown_field'],
    ['image and no-image fields mixed', uploadJson(cap, { image_base64: pngSlip().toString('base64'), trans_ref: 'TR1' }), 'trans_ref', 'unknown_field'],
    ['a bad occurred_at', uploadJson(cap, { trans_ref: 'TR1', sending_bank_code: '014', occurred_at: 'yesterday' }), 'occurred_at', 'format'],
    ['a bad sending_bank_code', uploadJson(cap, { trans_ref: 'TR1', sending_bank_code: 'KBANK', occurred_at: '2026-11-21T10:00:00+07:00' }), 'sending_bank_code', 'pattern'],
    ['a payload with a NUL (JSON)', uploadJson(cap, { image_base64: pngSlip().toString('base64'), payload: 'a\u0000' }), 'payload', 'pattern'],
    ['a payload with a direction override (multipart)', upload(cap, ...Object.values(multipartBody([{ name: 'file', data: pngSlip() }, { name: 'payload', data: 'qr\u202e1' }])) as [Buffer, string]), 'payload', 'pattern'],
    ['a bank that does not exist', uploadJson(cap, { trans_ref: 'TR1', sending_bank_code: '999', occurred_at: '2026-11-21T10:00:00+07:00' }), 'sending_bank_code', 'unknown_bank'],
    ['a transfer made in 2099', uploadJson(cap, { trans_ref: 'TR1', sending_bank_code: '014', occurred_at: '2099-01-01T00:00:00Z' }), 'occurred_at', 'in_the_future'],
    ['an empty file', uploadFile(cap, Buffer.alloc(0)), 'file', 'required'],
    ['trans_ref given twice', upload(cap, '{"trans_ref":"A1","sending_bank_code":"014","occurred_at":"2026-11-21T10:00:00+07:00","trans_ref":"B2"}', 'application/json'), 'trans_ref', 'duplicate_key'],
    ['a trans_ref that reads backwards', uploadJson(cap, { trans_ref: 'TR\u202e1', sending_bank_code: '014', occurred_at: '2026-11-21T10:00:00+07:00' }), 'trans_ref', 'pattern'],
  ];
  for (const [what, sent, path, reason] of cases) {
    const e = expectError(await sent, 'validation_error');
    assert.ok(e.details.fields.some((f: any) => f.path === path && f.reason === reason), `${what}: ${JSON.stringify(e.details.fields)}`);
  }
  assert.is((await getDeposit(scene, deposit.id)).status, 'awaiting_payment', 'no refused body was received');
  // Said in words, on an order of another end user (a minute's quota is 20 uploads): the two
  // JSON shapes, and that a body mixes them or is neither — the image under another name is
  // no claim without an image: image_base64 is what is missing, not trans_ref.
  const other: Capability = (await matchedDeposit(scene, { sender: freshSender(), end_user_ref: `shapes-${randomUUID().slice(0, 8)}` })).slip_upload;
  const empty = expectError(await uploadJson(other, {}), 'validation_error');
  assert.equal(empty.details.fields, [{ path: 'image_base64', reason: 'required', hint: 'the slip image, base64' }]);
  const neither = expectError(await uploadJson(other, { image: pngSlip().toString('base64') }), 'validation_error');
  assert.equal(neither.details.fields, [{ path: 'image_base64', reason: 'required', hint: 'the slip image, base64' }, { path: 'image', reason: 'unknown_field' }]);
  assert.match(neither.message, /\{image_base64, payload\?\}.*\{trans_ref, sending_bank_code, occurred_at\}.*neither/);
  assert.not.ok(neither.details.fields.some((f: any) => f.path === 'trans_ref'), JSON.stringify(neither.details.fields));
  const mixed = expectError(await uploadJson(other, { image_base64: pngSlip().toString('base64'), trans_ref: 'TR1' }), 'validation_error');
  assert.match(mixed.message, /mixes the two/);
  assert.equal(mixed.details.fields, [{ path: 'trans_ref', reason: 'unknown_field', hint: 'not with image_base64' }]);
});

test('bytes that are not UTF-8, or a charset that is not, are refused before any upload is counted: nothing is replaced and sent to the verifier', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() });
  const cap: Capability = deposit.slip_upload;
  const image = pngSlip().toString('base64');
  const notUtf8 = Buffer.concat([Buffer.from(`{"image_base64":"${image}","payload":"A`), Buffer.from([0xff]), Buffer.from('B"}')]);
  const cases: [string, Promise<any>, ErrorCode, string?][] = [
    ['a JSON body with a byte that is not UTF-8', upload(cap, notUtf8, 'application/json'), 'malformed_json'],
    ['a JSON body declared latin-1', upload(cap, JSON.stringify({ image_base64: image, payload: 'qr' }), 'application/json; charset=iso-8859-1'), 'unsupported_media_type'],
    ['a JSON body declared UTF-16', upload(cap, JSON.stringify({ image_base64: image }), 'application/json; charset="utf-16"'), 'unsupported_media_type'],
    ['a multipart payload part with a byte that is not UTF-8', upload(cap, ...Object.values(multipartBody([{ name: 'file', data: pngSlip() }, { name: 'payload', data: Buffer.from([0x61, 0xff, 0x62]) }])) as [Buffer, string]), 'validation_error', 'payload'],
  ];
  for (const [what, sent, code, path] of cases) {
    const e = expectError(await sent, code);
    if (path) assert.equal(e.details.fields.map((f: any) => [f.path, f.reason]), [[path, 'encoding']], what);
  }
  assert.is((await getDeposit(scene, deposit.id)).status, 'awaiting_payment', 'no refused body was received');
  assertReceipt(await upload(cap, JSON.stringify({ image_base64: image, payload: 'qr' }), 'application/json; charset=UTF-8'));
});

test('a payload or trans_ref shaped like an API key secret is 422 secret_shaped, as every merchant body: nothing reaches the journal', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() });
  const cap: Capability = deposit.slip_upload;
  const cases: [string, Promise<any>, string][] = [
    ['the merchant\'s live key as the payload (multipart)', upload(cap, ...Object.values(multipartBody([{ name: 'file', data: pngSlip() }, { name: 'payload', data: scene.shop.live.api_key }])) as [Buffer, string]), 'payload'],
    ['a sandbox-key-shaped payload (JSON)', uploadJson(cap, { image_base64: pngSlip().toString('base64'), payload: 'qr sk_test_abcdefgh12345678' }), 'payload'],
    ['a key-shaped trans_ref', uploadJson(cap, { trans_ref: scene.shop.live.api_key, sending_bank_code: '014', occurred_at: '2026-11-21T10:00:00+07:00' }), 'trans_ref'],
  ];
  for (const [what, sent, path] of cases) {
    const e = expectError(await sent, 'validation_error');
    assert.equal(e.details.fields.map((f: any) => [f.path, f.reason]), [[path, 'secret_shaped']], what);
  }
  assert.is((await getDeposit(scene, deposit.id)).status, 'awaiting_payment', 'no refused body was received');
  for (const file of readdirSync(scene.s.dataDir).filter((f) => f.startsWith('journal.db'))) {
    assert.is(readFileSync(join(scene.s.dataDir, file)).indexOf(scene.shop.live.api_key), -1, `the key is nowhere in ${file}`);
  }
});

test('an upload whose body outlasts the whole request\'s timeout (a phone on a slow network): 408 request_timeout from the HTTP server, with the payer\'s sentence as every refusal of the upload has; nothing received', async () => {
  // The upload's body has no deadline of its own but the whole request's (Node's requestTimeout), which answers before the app.
  const slow = await slipScene({ SATANG_REQUEST_TIMEOUTS_MS: '500,500,1500' });
  try {
    const deposit = await matchedDeposit(slow, { sender: freshSender() });
    const cap: Capability = deposit.slip_upload;
    const url = new URL(cap.upload_url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${cap.token}\r\nIdempotency-Key: ${randomUUID()}\r\n`
          + 'Content-Type: multipart/form-data; boundary=slow\r\nContent-Length: 100000\r\n\r\n--slow\r\nContent-Disposition: form-data; name="file"; filename="slip.jpg"\r\nContent-Type: image/jpeg\r\n\r\n');
        socket.write(jpegSlip().subarray(0, 64)); // and then nothing more
      });
      let text = '';
      socket.on('data', (chunk) => { text += chunk.toString('utf8'); });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      setTimeout(() => { socket.destroy(); resolve(text); }, 6_000);
    });
    assert.match(answer, /^HTTP\/1\.1 408 /, answer.slice(0, 200));
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    assert.is(body.error.code, 'request_timeout');
    assert.match(body.error.details.public_message_th, /อัปโหลดนานเกินไป/, 'the payer\'s screen has its sentence');
    assert.is((await getDeposit(slow, deposit.id)).status, 'awaiting_payment', 'nothing was received');
  } finally {
    await slow.s.stop();
  }
});

test.run();
