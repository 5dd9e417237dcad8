// File type by magic bytes only (contract: "File type is detected from magic bytes, not
// from extension or Content-Type"): JPEG, PNG, WebP, HEIC/HEIF (ISO base media files
// whose ftyp brands name HEVC or HEIF images) and PDF. The caller decides which of them
// the capability allows.

export type SlipMediaType = 'image/jpeg' | 'image/png' | 'image/webp' | 'image/heic' | 'image/heif' | 'application/pdf';

const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const heicBrands = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'hevm', 'hevs']);
const heifBrands = new Set(['mif1', 'msf1', 'mif2']);
const avifBrands = new Set(['avif', 'avis']);
/** ftyp brands read at most (a box lists a handful; the bound keeps a hostile box cheap). */
const ftypBrandsMax = 64;

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  if (bytes.length < at + prefix.length) return false;
  return prefix.every((b, i) => bytes[at + i] === b);
}

function ascii(bytes: Uint8Array, from: number, to: number): string {
  return Buffer.from(bytes.subarray(from, to)).toString('latin1');
}

export function detectMediaType(bytes: Uint8Array): SlipMediaType | null {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, png)) return 'image/png';
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'image/webp';
  if (ascii(bytes, 0, 5) === '%PDF-') return 'application/pdf';
  return isoBmffImage(bytes);
}

/** HEIC/HEIF: a leading ftyp box whose major or compatible brands name an image format. */
function isoBmffImage(bytes: Uint8Array): SlipMediaType | null {
  if (bytes.length < 16 || ascii(bytes, 4, 8) !== 'ftyp') return null;
  const boxBytes = Buffer.from(bytes.subarray(0, 4)).readUInt32BE(0);
  if (boxBytes < 16 || boxBytes > bytes.length) return null;
  const brands = [ascii(bytes, 8, 12)];
  for (let at = 16; at + 4 <= boxBytes && brands.length < ftypBrandsMax; at += 4) brands.push(ascii(bytes, at, at + 4));
  if (brands.some((b) => heicBrands.has(b))) return 'image/heic';
  // AVIF files declare the HEIF container too, but hold AV1 images: not one of the slip types.
  if (brands.some((b) => avifBrands.has(b))) return null;
  if (brands.some((b) => heifBrands.has(b))) return 'image/heif';
  return null;
}
