// What the slip upload accepts (contract: slip_upload capability, Limits): the decoded
// evidence size and media types every capability announces, and the wire sizes the
// upload route reads at most, derived from them. Units last in the names.

import { slipAdapterLimits } from '../../adapters/slips/limits.ts';

/** slip_upload.max_bytes: decoded evidence bytes (5 MiB). */
export const slipMaxBytes = 5 * 1024 * 1024;

/** slip_upload.content_types; 'application/json' allows the two JSON shapes. PDF is not offered. */
export const slipContentTypes: readonly string[] = ['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif', 'application/json'];

export const slipUploadLimits = {
  /** Boundaries, part headers and the payload field around the file of a multipart body. */
  multipartOverheadBytesMax: 64 * 1024,
  /** Keys, quotes and the payload around image_base64 in a JSON body. */
  jsonOverheadBytesMax: 64 * 1024,
  /** Parts of a multipart body (file and payload, with room for nothing else). */
  multipartPartsMax: 4,
  payloadLengthMax: slipAdapterLimits.payloadLengthMax,
  transRefLengthMax: 64,
  /** Receipts allocated to an intake that has not committed yet (a retry after 503 reuses them). */
  pendingIntakesMax: 10_000,
  pendingIntakeLifetimeMs: 24 * 60 * 60 * 1000,
} as const;

/** Base64 of `bytes`, with room for a line break (escaped in JSON: up to 4 bytes) every 64 characters. */
function base64WireBytesMax(bytes: number): number {
  const chars = Math.ceil(bytes / 3) * 4;
  return chars + 4 * Math.ceil(chars / 64);
}

/** The most a request body may carry on the wire, by shape; a larger one is refused unread. */
export function wireBytesMax(shape: 'multipart' | 'json', maxBytes = slipMaxBytes): number {
  return shape === 'multipart'
    ? maxBytes + slipUploadLimits.multipartOverheadBytesMax
    : base64WireBytesMax(maxBytes) + slipUploadLimits.jsonOverheadBytesMax;
}
