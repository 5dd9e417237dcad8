// Redaction before storage (DESIGN.md "Logging"): what the request log keeps of a body.
// Credentials and capabilities (API keys, secrets, slip and step-up tokens, signatures),
// raw QR payloads (the deposit's qr_payload and a slip's mini-QR payload) and slip images
// are replaced by "[redacted]"; full account numbers become their masked form and names
// their masked form (core/present.ts); any string anywhere that looks like an API key
// secret or a JWT is replaced too, whatever its key. Then the JSON text is cut to
// backOfficeLimits.requestLogBodyBytesMax bytes. Pure: the same input, the same output.

import { backOfficeLimits } from '../core/limits.ts';
import { maskAccountNumber, maskName } from '../core/present.ts';

const redacted = '[redacted]';
/** Keys whose value is a secret or a capability, or raw evidence: never kept. */
const secretKey = /^(api_key|secret|signing_secret|token|step_up_token|password|private_key|qr_payload|payload|image_base64|content_base64|signature)$/i;
const accountNumberKey = /^(account_number|promptpay_id)$/i;
const nameKey = /^account_name(_th|_en)?$/i;
/** Strings that are secrets whatever key holds them: API key secrets and JWTs (operator, step-up, slip capability tokens). */
const secretText = /sk_(live|test)_[A-Za-z0-9_-]{8,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/g;
const depthMax = 12;

export function redactValue(value: unknown, key = '', depth = 0): unknown {
  if (depth > depthMax) return redacted;
  if (typeof value === 'string') {
    if (secretKey.test(key)) return redacted;
    if (accountNumberKey.test(key)) return maskAccountNumber(value);
    if (nameKey.test(key)) return maskName(value);
    return value.replace(secretText, redacted);
  }
  if (value === null || typeof value !== 'object') return secretKey.test(key) && value !== null && value !== undefined ? redacted : value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, key, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = secretKey.test(k) && typeof v === 'object' && v !== null ? redacted : redactValue(v, k, depth + 1);
  return out;
}

/** A body as the request log keeps it: redacted JSON, cut to the byte limit (marked when cut). */
export function bodyForLog(body: unknown): string | null {
  if (body === undefined || body === null || body === '') return null;
  if (Buffer.isBuffer(body) || body instanceof Uint8Array) return `[binary ${body.byteLength} bytes]`;
  if (typeof body === 'object' && typeof (body as { pipe?: unknown }).pipe === 'function') return '[stream]';
  let text: string;
  try {
    text = JSON.stringify(redactValue(typeof body === 'string' ? tryParse(body) : body)) ?? '';
  } catch {
    return '[unserialisable]';
  }
  const max = backOfficeLimits.requestLogBodyBytesMax;
  if (Buffer.byteLength(text) <= max) return text;
  // Cut on a character boundary, then say so.
  return `${Buffer.from(text).subarray(0, max).toString('utf8').replace(/\uFFFD+$/, '')}…[truncated]`;
}

function tryParse(text: string): unknown {
  try { return JSON.parse(text); } catch { return text.replace(secretText, redacted); }
}
