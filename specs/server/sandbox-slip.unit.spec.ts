// The sandbox bank's slip placeholder (server/slips/sandbox-slip.ts) is a PNG a viewer can
// open: its chunks carry correct CRCs, its header names a greyscale image, and its pixels,
// inflated, are as many rows as it is tall, each a filter byte and a pixel per column, with
// the word inked dark on white.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inflateSync } from 'node:zlib';
import { sandboxSlipImage } from '../../server/slips/sandbox-slip.ts';
import { detectMediaType } from '../../server/slips/magic.ts';

/** CRC-32 (IEEE) bit by bit: the slow reference the module's table must agree with. */
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

test('a valid greyscale PNG with the word inked on it', () => {
  const png = Buffer.from(sandboxSlipImage());
  assert.is(detectMediaType(png), 'image/png');
  const chunks: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString('latin1');
    const data = png.subarray(at + 8, at + 8 + length);
    assert.is(png.readUInt32BE(at + 8 + length), crc32(png.subarray(at + 4, at + 8 + length)), `${type}'s CRC`);
    chunks.push({ type, data });
    at += 12 + length;
  }
  assert.equal(chunks.map((c) => c.type), ['IHDR', 'IDAT', 'IEND']);
  const header = chunks[0]!.data;
  const [width, height] = [header.readUInt32BE(0), header.readUInt32BE(4)];
  assert.equal([header[8], header[9]], [8, 0], '8-bit greyscale');
  const raw = inflateSync(chunks[1]!.data);
  assert.is(raw.length, (width + 1) * height);
  const pixels = Array.from({ length: height }, (_, y) => raw.subarray(y * (width + 1) + 1, (y + 1) * (width + 1)));
  assert.ok(pixels.every((_, y) => raw[y * (width + 1)] === 0), 'no filter on any row');
  const dark = pixels.reduce((n, row) => n + row.filter((v) => v < 0x40).length, 0);
  assert.ok(dark > width * height * 0.05 && dark < width * height * 0.5, `the word is inked (${dark} dark pixels)`);
  assert.is(sandboxSlipImage(), sandboxSlipImage(), 'drawn once');
});

test.run();
