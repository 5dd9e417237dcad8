// The redactions that need no knowledge of a body's shape, small enough for the API's
// own thread: text shaped like a secret (an API key secret, a JWT), a URL's credentials
// (query values, user info), a webhook URL's path and query, and a path's account numbers.
// server/redact.ts builds the request log's body redaction on them on its worker; the
// action log (what a stranger chose), the endpoints table's clear column and the back
// office's reads (a webhook URL for roles that do not manage it) use them where they are.

import { createHash } from 'node:crypto';

export const redacted = '[redacted]';

/**
 * Strings that are secrets whatever key holds them: an API key secret (not inside a longer
 * word: a "task_test_…" reference is no key), and a signed token — a JWT (an operator's
 * access or step-up token: header.payload.signature) or a slip upload token (server/
 * capability.ts: claims "." signature, two parts) — as base64url JSON opening "eyJ".
 */
const secretSource = '(?<![A-Za-z0-9])sk_(?:live|test)_[A-Za-z0-9_-]{8,}|eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}(?:\\.[A-Za-z0-9_-]+)?';
const secretText = new RegExp(secretSource, 'g');
const secretTest = new RegExp(secretSource);

/** Every match starts with one of these: a string holding neither is not scanned (most are not). */
const mayHoldSecret = (text: string) => text.includes('sk_') || text.includes('eyJ');

/** Whether `text` holds something shaped like a secret. */
export function secretShaped(text: string): boolean {
  return mayHoldSecret(text) && secretTest.test(text);
}

/** What a refusal of secret-shaped text says it saw. */
export const secretShapes = 'an API key secret (sk_live_… or sk_test_…) or a signed token (eyJ…: an operator, step-up or slip upload token)';

/** Text with anything shaped like a secret replaced. */
export function redactSecretText(text: string): string {
  return mayHoldSecret(text) ? text.replace(secretText, redacted) : text;
}

/** A URL with its query values and its user and password redacted (`https://h/p?token=[redacted]`); the rest kept. */
export function redactUrl(text: string): string {
  let url: URL;
  try { url = new URL(text); } catch { return redactSecretText(text); }
  if (url.search === '' && url.username === '' && url.password === '') return redactSecretText(text);
  // Rebuilt by the URL itself: a URL without a host ("a:https://h/p?token=…") keeps its shape, so redacting it again changes nothing.
  url.search = [...new Set(url.searchParams.keys())].map((k) => `${encodeURIComponent(k)}=${redacted}`).join('&');
  url.username = '';
  url.password = '';
  url.hash = '';
  return url.href;
}

/**
 * A webhook URL as an operator's view and the request log show it: its scheme and host, a
 * path other than "/" as `/[redacted]` (a provider may put its secret there, as
 * hooks.slack.com/services/… does), a query as `?[redacted]` (a merchant's ?token=), no
 * user, password or fragment; a host that is no host name or address (an unknown scheme's opaque
 * host, x://host;token) as `[redacted]`. Redacting it again changes nothing. Text that is no
 * hierarchical URL keeps what comes before its first "/", "?" or "#" (after a "scheme://") when
 * it looks like a host, the rest `/[redacted]`.
 */
export function redactWebhookUrl(text: string): string {
  let url: URL | undefined;
  try { url = new URL(text); } catch { /* not a URL: cut as text */ }
  if (url === undefined || !url.href.startsWith(`${url.protocol}//`)) return unparsedUrlRedacted(text);
  const path = url.pathname === '' || url.pathname === '/' ? url.pathname : `/${redacted}`;
  // A scheme the URL standard does not know keeps its host opaque, whatever it holds
  // (x://host;token parses): kept only when it looks like a host, as for text refused as a URL.
  const host = url.host === '' || hostLike.test(url.host) ? url.host : redacted;
  return `${url.protocol}//${host}${path}${url.search === '' ? '' : `?${redacted}`}`;
}

/** A URL's opening up to its path: a "scheme://" and what follows up to the first "/", "?" or "#". */
const urlHead = /^(?:[A-Za-z][A-Za-z0-9+.-]*:\/\/)?[^/?#]*/;

/** What a host and port look like: a name or address, or a bracketed IPv6 literal, and an optional port. */
const hostLike = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]*)?$/;

/**
 * Whether text cut short may be the start of a host as redactWebhookUrl keeps it: a host and
 * port as hostLike has them, or `[redacted]`, cut anywhere.
 */
export function hostPrefixLike(text: string): boolean {
  return /^(?:[A-Za-z0-9.-]*|\[[0-9A-Za-z:.]*\]?)(?::[0-9]*)?$/.test(text);
}

/**
 * Text refused as a URL: its scheme and host kept when the host looks like one, else
 * `[redacted]` in its place too (`http://host;token` refused is still a secret after the
 * host's characters); past the host, as for a URL.
 */
function unparsedUrlRedacted(text: string): string {
  const head = urlHead.exec(text)![0];
  const rest = text.slice(head.length);
  const [, scheme = '', host = ''] = /^((?:[^:/?#]+:\/\/)?)(?:[^@]*@)?(.*)$/s.exec(head)!; // no user or password
  const origin = `${scheme}${host === '' || hostLike.test(host) ? host : redacted}`;
  return redactSecretText(rest === '' || rest === '/' ? origin + rest : `${origin}/${redacted}`);
}

/**
 * A webhook URL as what is kept of it for good or in clear (the action log's before and
 * after, the endpoints table's `url` beside the sealed URL): its scheme and host, and for
 * the rest (a path and query a provider may put its secret in) a fingerprint — the first
 * 12 hex of the SHA-256 of the URL without user or password — so an auditor tells two URLs
 * apart, and checks a known one, without either being kept. A bare origin is kept whole.
 */
export function fingerprintedUrl(url: string): string {
  let parsed: URL | undefined;
  try { parsed = new URL(url); } catch { /* not a URL: redacted as text */ }
  if (parsed === undefined || !parsed.href.startsWith(`${parsed.protocol}//`)) return redactWebhookUrl(url);
  parsed.username = '';
  parsed.password = '';
  // Bare only as written so: an empty query or fragment ("https://host/?") reads as none in
  // search and hash, yet href keeps its "?" — a row satang verify flags and every start reseals.
  if (parsed.href === `${parsed.protocol}//${parsed.host}/`) return parsed.href;
  return `${parsed.protocol}//${parsed.host}/… sha256:${createHash('sha256').update(parsed.href).digest('hex').slice(0, 12)}`;
}

/**
 * Nine digits or more, one dash or space allowed between them: an account number (10 to 15
 * digits, 123-4-56789-0 as Thai banks print it), a citizen id. Not inside a word: an id's
 * digits between its letters (dep_01M8…) keep their shape. An underscore is no part of a
 * word here: `acct_1234567890` or `ref_0123456789` is an account number glued to a label,
 * masked — but only up to accountDigitsGluedMax digits, so an id the service mints
 * (`dep_` and a 26-letter ULID: its run after the underscore either meets a letter or,
 * all digits by chance, is 26 long) always keeps its shape.
 */
const accountDigits = /(?<![A-Za-z0-9])\d(?:[-\s]?\d){8,}(?![A-Za-z0-9])/g;
/** The contract's longest account number (`^[0-9]{6,20}$`), shorter than a ULID's 26. */
const accountDigitsGluedMax = 20;

/** `text` with each run of account digits masked to its last four, as the API masks account numbers. */
export function maskAccountDigits(text: string): string {
  return text.replace(accountDigits, (run: string, at: number) => {
    const digits = run.replace(/[-\s]/g, '');
    const glued = text[at - 1] === '_' || text[at + run.length] === '_';
    return glued && digits.length > accountDigitsGluedMax ? run : `${'x'.repeat(digits.length - 4)}${digits.slice(-4)}`;
  });
}

/**
 * A request path as the logs keep it: secret-shaped text replaced, and a run of nine digits
 * or more (an account number someone put in a URL) masked to its last four.
 */
export function redactPath(path: string): string {
  // Percent-decoded first: `%2E` for the dot, `%65yJ` for "eyJ" spelt a token the patterns did not see.
  return maskAccountDigits(redactSecretText(path.includes('%') ? percentDecoded(path) : path));
}

/** `text` with its %XX escapes decoded where they form UTF-8, each bad one left as it was. */
function percentDecoded(text: string): string {
  try { return decodeURIComponent(text); } catch { return text.replace(/(%[0-9A-Fa-f]{2})+/g, (run) => { try { return decodeURIComponent(run); } catch { return run; } }); }
}
