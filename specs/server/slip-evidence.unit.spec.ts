// The slip body's building blocks without a server: file types by magic bytes (JPEG, PNG,
// WebP, HEIC/HEIF, PDF; names and declared types play no part), the multipart parser
// (boundaries quoted or not, a preamble, malformed bodies refused), the evidence
// fingerprint (equal for the same evidence in every encoding, different for any other),
// the refusals of a malformed body said in words (what is wrong, what to send instead),
// and the bank simulator's masking, which the core's masked matchers must still match.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { matchAccountNumber, matchName } from '../../core/deposit/verification.ts';
import { maskAccountNumber, maskName } from '../../adapters/slips/bank-sim.ts';
import { evidenceFromJson, evidenceFromMultipart, fingerprintOf } from '../../server/slips/evidence.ts';
import { detectMediaType } from '../../server/slips/magic.ts';
import { boundaryOf, parseMultipart, type FormPart } from '../../server/slips/multipart.ts';
import { jpegSlip, multipartBody, pngSlip } from '../support/slip-harness.ts';

const accepts = { maxBytes: 1024, contentTypes: ['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif', 'application/json'] };

function ftyp(major: string, compatible: string[]): Buffer {
  const size = 16 + 4 * compatible.length;
  const box = Buffer.alloc(size);
  box.writeUInt32BE(size, 0);
  box.write('ftyp', 4, 'latin1');
  box.write(major, 8, 'latin1');
  compatible.forEach((b, i) => box.write(b, 16 + 4 * i, 'latin1'));
  return Buffer.concat([box, Buffer.from('....mdat')]);
}

test('detectMediaType reads magic bytes only', () => {
  assert.is(detectMediaType(jpegSlip()), 'image/jpeg');
  assert.is(detectMediaType(pngSlip()), 'image/png');
  assert.is(detectMediaType(Buffer.concat([Buffer.from('RIFF'), Buffer.from([1, 2, 3, 4]), Buffer.from('WEBPVP8 ')])), 'image/webp');
  assert.is(detectMediaType(ftyp('heic', ['mif1', 'heic'])), 'image/heic');
  assert.is(detectMediaType(ftyp('mif1', ['mif1', 'miaf'])), 'image/heif');
  assert.is(detectMediaType(ftyp('isom', ['isom', 'mp41'])), null, 'an MP4 is not a slip');
  assert.is(detectMediaType(ftyp('avif', ['avif', 'mif1'])), null, 'an AVIF declares the HEIF container but is not a slip type');
  assert.is(detectMediaType(Buffer.from('%PDF-1.4 ...')), 'application/pdf');
  assert.is(detectMediaType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), null);
  assert.is(detectMediaType(Buffer.from('GIF89a')), null);
  assert.is(detectMediaType(Buffer.alloc(0)), null);
  assert.is(detectMediaType(Buffer.from([0xff, 0xd8])), null, 'too short to be a JPEG');
});

test('parseMultipart: parts with names and filenames; quoted boundary; a preamble; malformed bodies are null', () => {
  const { body, contentType } = multipartBody([{ name: 'file', data: Buffer.from([0, 1, 13, 10, 2]), filename: 'a "quoted" name.png' }, { name: 'payload', data: 'qr' }], 'xyz');
  assert.is(boundaryOf(contentType), 'xyz');
  assert.is(boundaryOf('multipart/form-data; boundary="with space"; charset=utf-8'), 'with space');
  assert.is(boundaryOf('multipart/form-data'), null);
  const parts = parseMultipart(body, 'xyz', 4) as FormPart[];
  assert.equal(parts.map((p) => p.name), ['file', 'payload']);
  assert.ok(parts[0]!.data.equals(Buffer.from([0, 1, 13, 10, 2])), 'binary data with CRLF inside survives');
  assert.is(parts[1]!.data.toString(), 'qr');
  const withPreamble = Buffer.concat([Buffer.from('ignored preamble\r\n'), body]);
  assert.is(parseMultipart(withPreamble, 'xyz', 4)!.length, 2);
  assert.is(parseMultipart(body, 'other', 4), null, 'wrong boundary');
  assert.is(parseMultipart(body.subarray(0, body.length - 10), 'xyz', 4), null, 'no closing delimiter');
  assert.is(parseMultipart(body, 'xyz', 1), 'too_many_parts', 'more parts than allowed: said so, not called malformed');
  assert.is(parseMultipart(Buffer.from('--xyz\r\nContent-Type: text/plain\r\n\r\nx\r\n--xyz--'), 'xyz', 4), null, 'a part without a form-data name');
});

test('the evidence fingerprint is the same for the same evidence in every encoding, and differs otherwise', () => {
  const image = pngSlip('fingerprint');
  const viaMultipart = (boundary: string, payload?: string) => {
    const { body, contentType } = multipartBody([{ name: 'file', data: image, filename: 'x.jpg', contentType: 'image/jpeg' }, ...(payload ? [{ name: 'payload', data: payload }] : [])], boundary);
    return fingerprintOf(evidenceFromMultipart(body, contentType, accepts));
  };
  const viaJson = (text: string) => fingerprintOf(evidenceFromJson(Buffer.from(text), accepts));
  const b64 = image.toString('base64');
  const reference = viaMultipart('one', 'qr');
  assert.match(reference, /^ef1:[0-9a-f]{64}$/);
  assert.is(viaMultipart('two', 'qr'), reference);
  assert.is(viaJson(JSON.stringify({ image_base64: b64, payload: 'qr' })), reference);
  assert.is(viaJson(JSON.stringify({ payload: 'qr', image_base64: b64.replace(/.{4}/g, '$& \n') })), reference);
  assert.is(viaJson(JSON.stringify({ payload: 'qr', image_base64: image.toString('base64url') })), reference);
  assert.is.not(viaMultipart('one'), reference, 'without the payload');
  assert.is.not(viaMultipart('one', 'qr2'), reference, 'another payload');
  assert.is.not(viaJson(JSON.stringify({ image_base64: pngSlip('other').toString('base64'), payload: 'qr' })), reference, 'another image');
  const noImage = (occurredAt: string, bank = '014') => viaJson(JSON.stringify({ trans_ref: 'TR1', sending_bank_code: bank, occurred_at: occurredAt }));
  assert.is(noImage('2026-11-21T03:00:00Z'), noImage('2026-11-21T10:00:00.000+07:00'));
  assert.is.not(noImage('2026-11-21T03:00:00Z'), noImage('2026-11-21T03:00:00Z', '004'));
});

test('a refused slip body says in words what is wrong and what to send, never "file is not valid."', () => {
  const refusal = (run: () => unknown): { message: string; fields: { path: string; reason: string }[] } => {
    try {
      run();
    } catch (e) {
      const err = e as { code: string; message: string; details: { fields: { path: string; reason: string }[] } };
      assert.is(err.code, 'validation_error');
      return { message: err.message, fields: err.details.fields };
    }
    throw new Error('not refused');
  };
  const viaMultipart = (parts: Parameters<typeof multipartBody>[0]) => () => {
    const { body, contentType } = multipartBody(parts);
    return evidenceFromMultipart(body, contentType, accepts);
  };
  const viaJson = (value: unknown) => () => evidenceFromJson(Buffer.from(JSON.stringify(value)), accepts);
  const image = pngSlip('said');
  const cases: [string, () => unknown, string, string, RegExp][] = [
    ['the image under another part name', viaMultipart([{ name: 'image', data: image, filename: 's.png' }]), 'image', 'unknown_field', /part named "image".*image as file.*payload/],
    ['no file part', viaMultipart([{ name: 'payload', data: 'qr' }]), 'file', 'required', /no file part: send the slip image as file/],
    ['two file parts', viaMultipart([{ name: 'file', data: image }, { name: 'file', data: image }]), 'file', 'duplicate', /2 file parts; send one slip image per upload/],
    ['two payload parts', viaMultipart([{ name: 'file', data: image }, { name: 'payload', data: 'a' }, { name: 'payload', data: 'b' }]), 'payload', 'duplicate', /2 payload parts/],
    ['an empty payload part', viaMultipart([{ name: 'file', data: image }, { name: 'payload', data: '' }]), 'payload', 'too_short', /payload is empty: leave it out/],
    ['a payload part that is not UTF-8', viaMultipart([{ name: 'file', data: image }, { name: 'payload', data: Buffer.from([0x61, 0xff]) }]), 'payload', 'encoding', /not UTF-8/],
    ['a FileReader data: URL', viaJson({ image_base64: `data:image/png;base64,${image.toString('base64')}` }), 'image_base64', 'invalid_base64', /data: URL prefix.*only the base64 after the comma/],
    ['text that is not base64', viaJson({ image_base64: 'not*base64!' }), 'image_base64', 'invalid_base64', /image_base64 is not base64/],
  ];
  for (const [what, run, path, reason, said] of cases) {
    const { message, fields } = refusal(run);
    assert.equal(fields.map((f) => [f.path, f.reason]), [[path, reason]], what);
    assert.match(message, said, `${what}: ${message}`);
    assert.not.match(message, /is not valid\./, `${what}: ${message}`);
  }
});

test('the simulator prints slips masked, and the core\'s matchers still match them (and only them)', () => {
  assert.is(maskAccountNumber('9876543210'), 'xxx-x-x4321-x');
  assert.is(maskAccountNumber('123456789012'), 'xxxxxxx8901x');
  assert.is(maskName('สมชาย ใจดี'), 'สมชาย ใ***');
  assert.is(maskName('นาย สมชาย ใจดี'), 'นาย สมชาย ใ***');
  assert.is(maskName('Somchai'), 'Som***');
  for (const account of ['9876543210', '123456789012', '0012345678']) assert.is(matchAccountNumber(account, maskAccountNumber(account)), 'match', account);
  assert.is(matchAccountNumber('9876543210', maskAccountNumber('9876540000')), 'no_match');
  for (const name of ['สมชาย ใจดี', 'นาย สมชาย ใจดี', 'Somchai Jaidee']) assert.is(matchName(name.replace(/^นาย /, ''), maskName(name)), 'match', name);
  assert.is(matchName('สมชาย ใจดี', maskName('สมศักดิ์ มีเงิน')), 'no_match');
});

test.run();
