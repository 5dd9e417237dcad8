// Satang as text for people and spreadsheets: baht with exactly two decimals, computed
// from the integer (never through a float), and CSV fields as RFC 4180 writes them.

import type { Minor } from '../money.ts';

/** 123456n → '1234.56'; -5n → '-0.05'. */
export function bahtOf(minor: Minor): string {
  const sign = minor < 0n ? '-' : '';
  const abs = minor < 0n ? -minor : minor;
  return `${sign}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}

/** A cell a spreadsheet would read as a formula: it starts with = + - @, a tab or a CR. */
const formulaStart = /^[=+\-@\t\r]/;
const plainNumber = /^-?\d+(?:\.\d+)?$/;

/**
 * One RFC 4180 field: quoted when it holds a comma, a quote, CR or LF; quotes doubled. Text
 * that a spreadsheet would run as a formula (a merchant's name, a payee's account name:
 * text merchants choose) gets a leading apostrophe, as OWASP advises against CSV
 * injection, so it shows as text; a plain number ('-0.05') is left as it is.
 */
export function csvField(value: string | number | bigint | boolean | null): string {
  let text = value === null ? '' : String(value);
  if (typeof value === 'string' && formulaStart.test(text) && !plainNumber.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** RFC 4180 text: a header row, then the rows, each line ended by CRLF. */
export function csvText(header: readonly string[], rows: readonly (readonly (string | number | bigint | boolean | null)[])[]): string {
  const line = (fields: readonly (string | number | bigint | boolean | null)[]) => `${fields.map(csvField).join(',')}\r\n`;
  return line(header) + rows.map(line).join('');
}
