// JSON text with every digit of a bigint: JSON itself has no limit on a number's size, but
// JSON.stringify refuses a bigint. A report's figure past 2^53 − 1 (core/money.ts,
// reportMinor) is written as a JSON number with all its digits; a reader in JavaScript needs
// a big-number-aware parser for such a figure, and the CSV carries the same digits.

import { randomBytes } from 'node:crypto';

export function exactJson(value: unknown): string {
  // A mark no string of the value can hold: a NUL (written \u0000 in JSON) and a fresh nonce.
  const nonce = randomBytes(8).toString('hex');
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `\u0000${nonce}:${v}` : v));
  return text.replace(new RegExp(`"\\\\u0000${nonce}:(-?[0-9]+)"`, 'g'), '$1');
}

/**
 * JSON.parse, with every integer that is not a safe integer read as a bigint rather than
 * rounded (for the CLI's report tables). Walks the text once, outside strings only.
 */
export function parseExact(text: string): unknown {
  const mark = `\u0000${randomBytes(8).toString('hex')}:`; // as parsed: a NUL, a nonce, a colon
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') { inString = true; continue; }
    if (ch !== '-' && (ch < '0' || ch > '9')) continue;
    let end = i + 1;
    while (end < text.length && /[0-9.eE+-]/.test(text[end]!)) end++;
    const number = text.slice(i, end);
    if (/^-?[0-9]+$/.test(number) && !Number.isSafeInteger(Number(number))) {
      out += `${text.slice(from, i)}"\\u0000${mark.slice(1)}${number}"`;
      from = end;
    }
    i = end - 1;
  }
  return JSON.parse(out + text.slice(from), (_key, v: unknown) => (typeof v === 'string' && v.startsWith(mark) ? BigInt(v.slice(mark.length)) : v));
}
