// The three body shapes of a slip upload (contract: POST /v1/pay/deposits/{id}/slip) turned
// into one Evidence value, and its versioned fingerprint:
//   1. multipart/form-data: file (required) and payload (optional mini-QR string);
//   2. application/json {image_base64, payload?};
//   3. application/json {trans_ref, sending_bank_code, occurred_at} — no image.
// Images are typed by magic bytes only and must be among the capability's content_types;
// max_bytes counts decoded bytes (base64 is measured before it is decoded).
//
// The evidence fingerprint ('ef1:' + SHA-256 of a canonical JSON) covers only what the
// evidence says — the SHA-256 of the decoded image and the payload, or the three no-image
// fields with occurred_at normalised to the instant — so the same evidence under another
// multipart boundary, JSON key order, base64 alphabet or line breaks, or sent once as
// multipart and once as JSON, is the same request for idempotency.

import { createHash } from 'node:crypto';
import { ApiError } from '../errors.ts';
import { refuseJsonDepartures, utf8Text } from '../request-body.ts';
import { secretShaped, secretShapes } from '../secret-text.ts';
import { visible } from '../schemas.ts';
import { iso } from '../../core/present.ts';
import { parseIso } from '../time.ts';
import { compile } from '../validate.ts';
import { detectMediaType, type SlipMediaType } from './magic.ts';
import { boundaryOf, parseMultipart } from './multipart.ts';
import { slipUploadLimits } from '../../core/limits.ts';
import { bankByCode } from '../../core/directory.ts';

export type Evidence =
  | { readonly kind: 'image'; readonly bytes: Buffer; readonly mediaType: SlipMediaType; readonly imageSha256: string; readonly payload?: string }
  | { readonly kind: 'no_image'; readonly transRef: string; readonly sendingBankCode: string; readonly occurredAt: number };

export interface Accepts {
  readonly maxBytes: number;
  readonly contentTypes: readonly string[];
}

/** slip_upload.content_types; 'application/json' allows the two JSON shapes. PDF is not offered. */
export const slipImageTypes: readonly string[] = ['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif'];
export const slipContentTypes: readonly string[] = [...slipImageTypes, 'application/json'];

export const fingerprintVersion = 'ef1';

export function fingerprintOf(e: Evidence): string {
  // Keys in alphabetical order, written out so the bytes never depend on how a value was built.
  const canonical = e.kind === 'image'
    ? JSON.stringify({ image_sha256: e.imageSha256, kind: 'image', payload: e.payload ?? null })
    : JSON.stringify({ kind: 'no_image', occurred_at: iso(e.occurredAt), sending_bank_code: e.sendingBankCode, trans_ref: e.transRef });
  return `${fingerprintVersion}:${createHash('sha256').update(canonical).digest('hex')}`;
}

// Every refusal says in words what is wrong and what to send instead: a payer's app
// developer reads the message, and "file is not valid." told neither.
const fieldError = (path: string, reason: string, hint: string | undefined, message: string) =>
  new ApiError('validation_error', message, { fields: [{ path, reason, ...(hint ? { hint } : {}) }] });

function imageEvidence(bytes: Buffer, payload: string | undefined, path: string, accepts: Accepts): Evidence {
  if (bytes.length === 0) throw fieldError(path, 'required', 'the slip image is empty', 'The slip image is empty.');
  if (bytes.length > accepts.maxBytes) {
    throw fieldError(path, 'too_large', `at most ${accepts.maxBytes} decoded bytes`, `The slip image is larger than max_bytes (${accepts.maxBytes} bytes).`);
  }
  const mediaType = detectMediaType(bytes);
  if (mediaType === null || !accepts.contentTypes.includes(mediaType)) {
    throw new ApiError('unsupported_media_type', 'The file is not one of the capability\'s content_types; the type is read from the file\'s bytes, not its name or Content-Type.', {
      detected_type: mediaType, content_types: [...accepts.contentTypes],
    });
  }
  return {
    kind: 'image', bytes, mediaType, imageSha256: createHash('sha256').update(bytes).digest('hex'),
    ...(payload !== undefined ? { payload } : {}),
  };
}

const visibleText = new RegExp(visible, 'u');

/**
 * 422 secret_shaped for a payload or trans_ref shaped like a secret (server/secret-text.ts), as every
 * merchant body is refused: kept in the append-only journal, it would be "a key in clear"
 * to the secrets-at-rest scan for good.
 */
function refuseSecretShaped(path: string, text: string | undefined): void {
  if (text !== undefined && secretShaped(text)) {
    throw fieldError(path, 'secret_shaped', `no text shaped like ${secretShapes}`, `${path} holds text shaped like ${secretShapes}: a secret is never sent, and no reference may look like one.`);
  }
}

function checkPayload(payload: string): string {
  if (payload.length === 0) throw fieldError('payload', 'too_short', 'at least 1 character', 'payload is empty: leave it out when the slip\'s mini-QR was not read.');
  if (payload.length > slipUploadLimits.payloadLengthMax) {
    throw fieldError('payload', 'too_long', `at most ${slipUploadLimits.payloadLengthMax} characters`, `payload is longer than the ${slipUploadLimits.payloadLengthMax} characters a slip's mini-QR holds.`);
  }
  if (!visibleText.test(payload)) {
    throw fieldError('payload', 'pattern', 'the characters the mini-QR holds: no control or direction characters', 'payload holds a control or direction character, which no slip\'s mini-QR holds: send the text the QR decodes to.');
  }
  refuseSecretShaped('payload', payload);
  return payload;
}

export function evidenceFromMultipart(body: Buffer, contentType: string, accepts: Accepts): Evidence {
  const boundary = boundaryOf(contentType);
  const parts = boundary === null ? null : parseMultipart(body, boundary, slipUploadLimits.multipartPartsMax);
  if (parts === null) throw fieldError('', 'malformed_multipart', 'a multipart/form-data body with a boundary', 'The body is not well-formed multipart/form-data.');
  if (parts === 'too_many_parts') {
    throw fieldError('', 'too_many_parts', `at most ${slipUploadLimits.multipartPartsMax} parts: a file and a payload`, `The multipart body has more than ${slipUploadLimits.multipartPartsMax} parts; send the file and, optionally, the payload.`);
  }
  const unknown = parts.find((p) => p.name !== 'file' && p.name !== 'payload');
  if (unknown) {
    throw fieldError(unknown.name, 'unknown_field', 'only file and payload', `The multipart body has a part named "${unknown.name}"; a slip upload takes the image as file and, optionally, the mini-QR as payload.`);
  }
  const files = parts.filter((p) => p.name === 'file');
  const payloads = parts.filter((p) => p.name === 'payload');
  if (files.length === 0) throw fieldError('file', 'required', 'exactly one file part', 'The multipart body has no file part: send the slip image as file.');
  if (files.length > 1) throw fieldError('file', 'duplicate', 'exactly one file part', `The multipart body has ${files.length} file parts; send one slip image per upload.`);
  if (payloads.length > 1) throw fieldError('payload', 'duplicate', 'at most one payload part', `The multipart body has ${payloads.length} payload parts; send the slip's mini-QR once.`);
  const payload = payloads[0] === undefined ? undefined : checkPayload(payloadText(payloads[0].data));
  return imageEvidence(files[0]!.data, payload, 'file', accepts);
}

/** A multipart payload part as UTF-8 text; a byte that is not is refused, never replaced. */
function payloadText(data: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(data);
  } catch {
    throw fieldError('payload', 'encoding', 'UTF-8 text, as the mini-QR holds', 'The payload part is not UTF-8 text; send the mini-QR\'s text as UTF-8.');
  }
}

interface ImageBody { image_base64: string; payload?: string }
interface NoImageBody { trans_ref: string; sending_bank_code: string; occurred_at: string }
const noImageFields = ['trans_ref', 'sending_bank_code', 'occurred_at'] as const;
const jsonShapes = 'A JSON slip is the image, {image_base64, payload?}, or a transfer without one, {trans_ref, sending_bank_code, occurred_at}';

const imageBody = compile<ImageBody>({
  type: 'object', additionalProperties: false, required: ['image_base64'],
  properties: { image_base64: { type: 'string', minLength: 1 }, payload: { type: 'string', minLength: 1, maxLength: slipUploadLimits.payloadLengthMax, pattern: visible } },
});
const noImageBody = compile<NoImageBody>({
  type: 'object', additionalProperties: false, required: [...noImageFields],
  properties: {
    trans_ref: { type: 'string', minLength: 1, maxLength: slipUploadLimits.transRefLengthMax, pattern: visible },
    sending_bank_code: { type: 'string', pattern: '^[0-9]{3}$' },
    occurred_at: { type: 'string', format: 'date-time' },
  },
});

/** The JSON shapes' schemas, for the OpenAPI document. */
export const slipBodySchemas = { image: imageBody.schema, noImage: noImageBody.schema };

export function evidenceFromJson(body: Buffer, accepts: Accepts): Evidence {
  let data: unknown;
  const text = utf8Text(body); // toString would replace a bad byte and the verifier see evidence the payer never sent
  try {
    data = JSON.parse(text);
  } catch {
    throw new ApiError('malformed_json');
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw fieldError('', 'type', 'a JSON object', 'The body must be a JSON object.');
  refuseJsonDepartures(text, data); // a key given twice: which trans_ref would the reviewer see?
  // Which shape the body means, said before either schema speaks: an image under another
  // name read as a claim without one answered "trans_ref required", steering the payer to
  // the shape that always goes to review.
  const claimGiven = noImageFields.filter((k) => k in data);
  if ('image_base64' in data && claimGiven.length > 0) {
    throw new ApiError('validation_error', `${jsonShapes}; this body mixes the two.`, { fields: claimGiven.map((path) => ({ path, reason: 'unknown_field', hint: 'not with image_base64' })) });
  }
  if (!('image_base64' in data) && claimGiven.length === 0) {
    const others = Object.keys(data).filter((k) => k !== 'payload');
    throw new ApiError('validation_error', `${jsonShapes}; this body is neither.`, {
      fields: [{ path: 'image_base64', reason: 'required', hint: 'the slip image, base64' }, ...others.map((path) => ({ path, reason: 'unknown_field' }))],
    });
  }
  if ('image_base64' in data) {
    if (!imageBody(data)) throw new ApiError('validation_error');
    refuseSecretShaped('payload', data.payload);
    return imageEvidence(decodeBase64(data.image_base64, accepts.maxBytes), data.payload, 'image_base64', accepts);
  }
  if (!noImageBody(data)) throw new ApiError('validation_error');
  refuseSecretShaped('trans_ref', data.trans_ref);
  // A bank the payer could have sent from (GET /v1/pay/banks), as a deposit's sender is checked.
  if (!bankByCode(data.sending_bank_code)?.side.includes('sender')) {
    throw fieldError('sending_bank_code', 'unknown_bank', 'a sending bank of GET /v1/pay/banks', `There is no sending bank ${data.sending_bank_code}.`);
  }
  // The reference as the bank prints it: white space around it is the typist's, not the bank's.
  const transRef = data.trans_ref.trim();
  if (transRef === '') throw new ApiError('validation_error', 'trans_ref is the transfer\'s reference as the bank shows it; this one is blank.', { fields: [{ path: 'trans_ref', reason: 'required' }] });
  return { kind: 'no_image', transRef, sendingBankCode: data.sending_bank_code, occurredAt: parseIso(data.occurred_at)! };
}

/**
 * Base64 in either alphabet, padded or not, with any whitespace (line breaks) ignored. The
 * decoded size is computed and checked before anything is decoded.
 */
function decodeBase64(text: string, maxBytes: number): Buffer {
  const compact = text.replace(/\s+/g, '');
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact) || compact.length % 4 === 1 || (padding > 0 && compact.length % 4 !== 0)) {
    // A FileReader's data: URL is the common slip here (README: "strip it"): say so.
    throw /^data:/i.test(compact)
      ? fieldError('image_base64', 'invalid_base64', 'standard or URL-safe base64', 'image_base64 starts with a data: URL prefix (data:image/…;base64,); send only the base64 after the comma.')
      : fieldError('image_base64', 'invalid_base64', 'standard or URL-safe base64', 'image_base64 is not base64: standard or URL-safe letters, padded or not (line breaks are ignored).');
  }
  const decodedBytes = Math.floor((compact.length * 3) / 4) - padding;
  if (decodedBytes > maxBytes) {
    throw fieldError('image_base64', 'too_large', `at most ${maxBytes} decoded bytes`, `The slip image is larger than max_bytes (${maxBytes} bytes).`);
  }
  return Buffer.from(compact, 'base64');
}
