// The CLI's tables, one layout for all: columns lined up by terminal width, not by string
// length (Thai vowel and tone marks sit on the consonant before them and take no column of
// their own), two spaces between, no trailing space. `columns` lays out cells already
// written (the finance reports', numbers right-aligned); `table` writes an API answer's
// values first (bo and admin: instants in Bangkok time, long cells cut or wrapped).

import { inBangkok } from './args.ts';

/**
 * The columns a text takes on a terminal: its code points less the combining marks that
 * sit on the one before (Thai vowel and tone marks above and below a consonant) and
 * zero-width characters. `'สมหญิง'.length` is 6, its width 5.
 */
export function displayWidth(text: string): number {
  return text.replace(/[\p{Mn}\p{Me}\u200b-\u200d\u2060\ufeff]/gu, '').length - (text.match(/[\ud800-\udbff]/g)?.length ?? 0);
}

/** `text` padded with spaces to `width` terminal columns, at the end or (`start`) the start. */
export function padDisplay(text: string, width: number, start = false): string {
  const pad = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return start ? pad + text : text + pad;
}

/**
 * Rows of cells, a cell given as its lines, laid out: each row's lines (as many as its
 * tallest cell), every column padded to its widest line — on the left for the columns in
 * `rightAligned` — as many columns as the first row has.
 */
function rowLines(rows: readonly (readonly (readonly string[])[])[], rightAligned: readonly number[]): string[][] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.flatMap((r) => (r[i] ?? ['']).map(displayWidth))));
  return rows.map((r) => {
    const height = Math.max(...r.map((c) => c.length));
    return Array.from({ length: height }, (_, line) => r.map((c, i) => padDisplay(c[line] ?? '', widths[i]!, rightAligned.includes(i))).join('  ').trimEnd());
  });
}

/** Cells already written, a line a row (the first row the header), padded to their widest; the columns in `rightAligned` (numbers) padded on the left. */
export function columns(rows: readonly (readonly string[])[], rightAligned: readonly number[]): string[] {
  return rowLines(rows.map((r) => r.map((cell) => [cell])), rightAligned).flat();
}

/** How wide a table's cell is, in terminal columns: longer text is cut, or wrapped where the table says. */
const cellWidthMax = 60;

/** The part of `text` (code units) that fits in `width` columns; a combining mark stays with its letter. */
function fittingLength(text: string, width: number): number {
  let used = 0, length = 0;
  for (const ch of text) {
    used += displayWidth(ch);
    if (used > width) break;
    length += ch.length;
  }
  return length;
}

/** A cell's text as lines of at most cellWidthMax columns: at its line breaks, then at the last space that fits (mid-word when none does). */
function wrappedLines(text: string): string[] {
  const lines: string[] = [];
  for (let rest of text.split('\n')) {
    while (displayWidth(rest) > cellWidthMax) {
      const fits = fittingLength(rest, cellWidthMax);
      const space = rest.lastIndexOf(' ', fits);
      const at = space > 0 ? space : fits;
      lines.push(rest.slice(0, at));
      rest = rest.slice(at).trimStart();
    }
    lines.push(rest);
  }
  return lines;
}

/**
 * A plain table of an answer's values: a header row, then rows, columns padded to their
 * widest cell (cells cut at 60 columns, or with `wrap` wrapped onto lines of their own, so a
 * figure a reader checks is never lost; `below` adds lines of its own under a row, whole,
 * outside the columns). An instant is shown in Bangkok time, `2026-11-30 18:23:40 +07`, as
 * the console shows it to the people who read it (--json keeps the API's UTC); a missing
 * value as '-'.
 */
export function table(headers: readonly string[], rows: readonly (readonly unknown[])[], options: { readonly wrap?: boolean; readonly below?: (row: number) => readonly string[] } = {}): string {
  const cell = (v: unknown): string[] => {
    const s = v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : inBangkok(String(v));
    if (options.wrap) return wrappedLines(s);
    return [displayWidth(s) > cellWidthMax ? `${s.slice(0, fittingLength(s, cellWidthMax - 1))}…` : s];
  };
  const laidOut = rowLines([headers.map((h) => [h]), ...rows.map((r) => r.map(cell))], []);
  return laidOut.flatMap((lines, index) => (index === 0 || !options.below ? lines : [...lines, ...options.below(index - 1)])).join('\n');
}
