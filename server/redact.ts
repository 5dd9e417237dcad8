// Redaction before storage (DESIGN.md "Logging"): what the request log keeps of a body.
// Credentials and capabilities (API keys, secrets, slip and step-up tokens, signatures),
// raw QR payloads (the deposit's qr_payload and a slip's mini-QR payload) and slip images
// are replaced by "[redacted]"; full account numbers become their masked form and names
// their masked form (core/present.ts), as does a run of nine digits or more in free text
// (a note with an account number typed into it, or glued after an underscore, acct_1234567890;
// not a transfer's trans_ref, nor an id the service mints); a webhook URL keeps its scheme and host, its path
// (a provider's secret), its query (a merchant's token) and any user or password redacted; any string anywhere that looks like an API key
// secret or a JWT is replaced too, whatever its key. Then the JSON text is cut to
// backOfficeLimits.requestLogBodyBytesMax bytes. Pure: the same input, the same output.
// It runs on the request log's worker thread (server/request-log-worker.ts), not the API's;
// the two shape-blind redactions it builds on live in server/secret-text.ts.

import { backOfficeLimits } from '../core/limits.ts';
import { maskAccountNumber, maskName } from '../core/present.ts';
import { accountNumberKeyInJson, accountNumberKeys, nameKeys, secretKeys, urlKeyInJson, urlKeys } from '../core/sensitive-keys.ts';
import { bodyMarkOf, unserialisableMark } from './body-marks.ts';
import { hostPrefixLike, maskAccountDigits, redacted, redactSecretText as withoutSecretText, redactWebhookUrl } from './secret-text.ts';

/** A bank's reference for a transfer: often a long run of digits, no one's account, and what support looks for. */
const referenceKeys = ['trans_ref'];
const depthMax = 12;
/**
 * The version of these rules. logs.db records the version its rows were redacted under;
 * a store opened by a build with newer rules redacts every stored body again (the request
 * log worker, redactStoredBody), so rows an older build kept — a webhook URL's query token
 * logged before URLs were redacted, its path before paths were (3), the host part of text refused as a URL that is
 * no host (4), an unknown scheme's opaque host that is no host and a secret as a name's first word (5), an account number sent as a JSON number — do not stay in clear for their 30 days. Raise it with every
 * change that redacts more.
 */
export const redactionRulesVersion = 5;
/**
 * What the masks of core/present.ts leave (an account number's hidden places and its last
 * four at most; a name's first word and a letter, or two letters, then "***"): such a value
 * shows no more than its mask would, and is kept as it is, so that redacting a kept body
 * again changes nothing.
 */
const maskedForms = { account_number: /^x*[0-9]{0,4}$/, name: /^(?:\S+ \S|\S{0,2})\*{3}$/u };
/** In a body cut short (no longer JSON): an account number's digits after its key, as a build before the rule for numbers kept them. */
const accountNumberInText = new RegExp(`(${accountNumberKeyInJson})([0-9][0-9 -]*[0-9])`, 'gi');
/** What ends a body cut to the byte limit. */
const cutMark = '…[truncated]';
/** In a body cut short: a webhook URL after its key, up to its closing quote or the cut's mark (redacted as bodyForLog's). */
const urlInText = new RegExp(`(${urlKeyInJson})((?:(?!…\\[truncated\\])[^"\\\\])+)`, 'gi');

type KeyKind = 'secret' | 'account_number' | 'name' | 'url' | 'reference' | 'plain';
const keyKinds = new Map<string, Exclude<KeyKind, 'plain'>>([
  ...secretKeys.map((k) => [k, 'secret'] as const), ...accountNumberKeys.map((k) => [k, 'account_number'] as const), ...nameKeys.map((k) => [k, 'name'] as const),
  ...urlKeys.map((k) => [k, 'url'] as const), ...referenceKeys.map((k) => [k, 'reference'] as const),
]);
/**
 * What a key names is decided by these case-insensitive patterns (a /i pattern without the
 * u flag folds ASCII letters only). The table finds a key's kind with one lookup of its
 * lower-case form instead of a pattern test per kind and key; a hit is confirmed by the
 * pattern, since toLowerCase also folds a few other letters onto ASCII (U+212A KELVIN SIGN
 * → k). A miss needs no check: a key a pattern matches is ASCII, its lower case a word here.
 */
const keyPatterns: Record<Exclude<KeyKind, 'plain'>, RegExp> = {
  secret: new RegExp(`^(${secretKeys.join('|')})$`, 'i'), account_number: new RegExp(`^(${accountNumberKeys.join('|')})$`, 'i'), name: new RegExp(`^(${nameKeys.join('|')})$`, 'i'),
  url: new RegExp(`^(${urlKeys.join('|')})$`, 'i'), reference: new RegExp(`^(${referenceKeys.join('|')})$`, 'i'),
};

function kindOf(key: string): KeyKind {
  const kind = keyKinds.get(key.toLowerCase());
  return kind !== undefined && keyPatterns[kind].test(key) ? kind : 'plain';
}


export function redactValue(value: unknown, key = ''): unknown {
  return redactAs(value, kindOf(key), 0);
}

function redactAs(value: unknown, kind: KeyKind, depth: number): unknown {
  if (depth > depthMax) return redacted;
  if (typeof value === 'string') return redactText(value, kind);
  if (value === null || value === undefined) return value;
  if (kind !== 'plain' && kind !== 'reference') return redactNonText(value, kind);
  if (typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactAs(v, kind, depth + 1));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) out[k] = redactAs((value as Record<string, unknown>)[k], kindOf(k), depth + 1);
  return out;
}

function redactText(value: string, kind: KeyKind): string {
  switch (kind) {
    // Free text (a note, a search, a memo): an account number typed into it is masked as in a path.
    case 'plain': return maskAccountDigits(withoutSecretText(value));
    case 'reference': return withoutSecretText(value);
    case 'url': return redactWebhookUrl(value);
    case 'secret': return redacted;
    case 'account_number': return value === redacted || maskedForms.account_number.test(value) ? value : maskAccountNumber(value);
    // A name's first word is kept: a secret pasted there goes first.
    case 'name': { const v = withoutSecretText(value); return v === redacted || maskedForms.name.test(v) ? v : maskName(v); }
    default: { const unknownKind: never = kind; return unknownKind; }
  }
}

/**
 * A masked kind's value that is not text (a client's mistake, refused with 422, yet logged:
 * an account number sent as a JSON number was kept in clear and shown to support): a number
 * where an account number belongs is masked as its digits would be; anything else — a list,
 * an object, a number or a boolean for a secret, a name or a URL — is replaced whole, never
 * walked (its own keys would be plain, its digits kept).
 */
function redactNonText(value: unknown, kind: Exclude<KeyKind, 'plain' | 'reference'>): string {
  return kind === 'account_number' && typeof value === 'number' ? maskAccountNumber(String(value)) : redacted;
}

/** A body as the request log keeps it: redacted JSON, cut to the byte limit (marked when cut). A string is parsed as JSON when it is JSON. */
export function bodyForLog(body: unknown): string | null {
  const mark = bodyMarkOf(body);
  if (mark !== undefined) return mark;
  let text: string;
  try {
    text = JSON.stringify(redactValue(typeof body === 'string' ? tryParse(body) : body)) ?? '';
  } catch {
    return unserialisableMark;
  }
  const max = backOfficeLimits.requestLogBodyBytesMax;
  if (Buffer.byteLength(text) <= max) return text;
  // Cut on a character boundary, then say so.
  return `${Buffer.from(text).subarray(0, max).toString('utf8').replace(/\uFFFD+$/, '')}${cutMark}`;
}

/**
 * A body the request log stored, redacted again under today's rules; what bodyForLog wrote
 * under them comes back unchanged. A body it cut (no longer JSON) is redacted as text: its
 * secrets, an account number and a webhook URL after their keys (other digits are left: a
 * cut body's keys are not all known, and a trans_ref is what support looks for).
 */
export function redactStoredBody(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return withoutSecretText(text)
      .replace(accountNumberInText, (_all, head: string, digits: string) => head + maskAccountNumber(digits))
      // Only a URL the cut ended can be one cut after its redaction; one that ran to its quote is whole.
      .replace(urlInText, (all: string, head: string, url: string, at: number, whole: string) =>
        head + (whole.startsWith(cutMark, at + all.length) && cutAfterRedaction(url) ? url : redactWebhookUrl(url)));
  }
  return bodyForLog(parsed) ?? text;
}

/**
 * A URL cut short that was redacted before the cut: cut inside its host (nothing of a path
 * or query is there, and a host cut short may read as another: http://1 as 0.0.0.1), or
 * its redaction starts with it (but for a query's "?" the cut left with nothing after).
 */
function cutAfterRedaction(url: string): boolean {
  // Cut inside its host: kept when what there is of the host may be one (a host part that is
  // none, http://127.0.0.1:8080;token, is a secret an older build kept: redacted).
  const inHost = /^([^/?#@]*?)(?:\/\/([^/?#@]*))?$/.exec(url);
  if (inHost) return hostPrefixLike(inHost[2] ?? inHost[1]!);
  return redactWebhookUrl(url).startsWith(url.replace(/\?$/, ''));
}

function tryParse(text: string): unknown {
  try { return JSON.parse(text); } catch { return maskAccountDigits(withoutSecretText(text)); }
}
