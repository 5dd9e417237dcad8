// The redactions that need no knowledge of a body's shape, small enough for the API's
// own thread: text shaped like a secret (an API key secret, a JWT), a URL's credentials
// (query values, user info), and a path's account numbers. server/redact.ts builds the request log's body redaction on
// them on its worker; the action log (what a stranger chose) and the back office's reads
// (a webhook URL for roles that do not manage it) use them where they are.

export const redacted = '[redacted]';

/** Strings that are secrets whatever key holds them: API key secrets and JWTs (operator, step-up, slip capability tokens). */
const secretText = /sk_(live|test)_[A-Za-z0-9_-]{8,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/g;

/** Text with anything shaped like a secret replaced. Every match starts with one of these, so a string holding neither is kept as it is, unscanned. */
export function redactSecretText(text: string): string {
  return text.includes('sk_') || text.includes('eyJ') ? text.replace(secretText, redacted) : text;
}

/** A URL with its query values and its user and password redacted (`https://h/p?token=[redacted]`); the rest kept. */
export function redactUrl(text: string): string {
  let url: URL;
  try { url = new URL(text); } catch { return redactSecretText(text); }
  if (url.search === '' && url.username === '' && url.password === '') return redactSecretText(text);
  const query = [...new Set(url.searchParams.keys())].map((k) => `${encodeURIComponent(k)}=${redacted}`).join('&');
  return `${url.protocol}//${url.host}${url.pathname}${query ? `?${query}` : ''}`;
}

/** Nine digits or more, one dash or space allowed between them: an account number (10 to 15 digits), a citizen id, typed into a path. */
const accountDigits = /\d(?:[-\s]?\d){8,}/g;

/**
 * A request path as the logs keep it: secret-shaped text replaced, and a run of nine digits
 * or more (an account number someone put in a URL) masked to its last four, as the API masks
 * account numbers. Ids are letters and digits mixed and keep their shape.
 */
export function redactPath(path: string): string {
  return redactSecretText(path).replace(accountDigits, (run) => {
    const digits = run.replace(/[-\s]/g, '');
    return `${'x'.repeat(digits.length - 4)}${digits.slice(-4)}`;
  });
}
