// The slip image of a sandbox deposit the sandbox bank paid (a scenario amount, `satang
// trigger`): no end user uploaded one, so `GET /v1/pay/deposits/{id}/slip` answers this
// placeholder — a real PNG reading "SANDBOX" — and an integrator's slip download works in the
// sandbox as it will live. Drawn once, on first use, with node's zlib; no image library.

import { deflateSync } from 'node:zlib';

/** 5 × 7 glyphs, one string per row, '#' inked. */
const glyphs: Record<string, readonly string[]> = {
  S: ['.####', '#....', '#....', '.###.', '....#', '....#', '####.'],
  A: ['.###.', '#...#', '#...#', '#####', '#...#', '#...#', '#...#'],
  N: ['#...#', '##..#', '#.#.#', '#..##', '#...#', '#...#', '#...#'],
  D: ['####.', '#...#', '#...#', '#...#', '#...#', '#...#', '####.'],
  B: ['####.', '#...#', '#...#', '####.', '#...#', '#...#', '####.'],
  O: ['.###.', '#...#', '#...#', '#...#', '#...#', '#...#', '.###.'],
  X: ['#...#', '#...#', '.#.#.', '..#..', '.#.#.', '#...#', '#...#'],
};

const word = 'SANDBOX';
const scale = 6;
const margin = 24;
const width = margin * 2 + (word.length * 6 - 1) * scale;
const height = margin * 2 + 7 * scale;

let image: Uint8Array | undefined;

export function sandboxSlipImage(): Uint8Array {
  return (image ??= drawn());
}

function drawn(): Uint8Array {
  // Greyscale, 8 bits: each row is a filter byte (0, none) and its pixels.
  const stride = width + 1;
  const raw = Buffer.alloc(stride * height, 0xff);
  for (let y = 0; y < height; y++) raw[y * stride] = 0;
  const ink = (x: number, y: number, shade: number) => { raw[y * stride + 1 + x] = shade; };
  for (let x = 0; x < width; x++) { ink(x, 0, 0x80); ink(x, height - 1, 0x80); }
  for (let y = 0; y < height; y++) { ink(0, y, 0x80); ink(width - 1, y, 0x80); }
  [...word].forEach((letter, i) => {
    glyphs[letter]!.forEach((row, gy) => {
      for (let gx = 0; gx < 5; gx++) {
        if (row[gx] !== '#') continue;
        for (let dy = 0; dy < scale; dy++) for (let dx = 0; dx < scale; dx++) ink(margin + (i * 6 + gx) * scale + dx, margin + gy * scale + dy, 0x30);
      }
    });
  });
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

let crcTable: Uint32Array | undefined;

function crc32(bytes: Uint8Array): number {
  const table = (crcTable ??= Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  }));
  let c = 0xffffffff;
  for (const b of bytes) c = table[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
