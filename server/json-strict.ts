// What JSON.parse forgives and satang's requests must not carry, found in one pass over
// text that JSON.parse has already accepted:
//   - a key given twice in one object (JSON.parse keeps the last, silently: a body that
//     says two amounts means whichever a reader happens to take);
//   - a number written with a fraction or an exponent (10000.0, 1e4): every number in
//     satang's request bodies is an integer ("integers, never floats"), and JSON.parse
//     turns those into the integer 10000, which the schema then cannot tell apart.
// The path is dotted as validate.ts writes it ('sender.bank_code', array items by index).
//
// Invariant kept: it reads text JSON.parse accepted, so it follows only what it must
// (strings with their escapes, nesting, numbers) and never judges syntax itself.

export interface JsonDeparture {
  readonly path: string;
  readonly reason: 'duplicate_key' | 'not_integer';
}

interface Frame {
  /** The keys this object has shown (null for an array). */
  readonly keys: Set<string> | null;
  /** The object's key being read (objects). */
  at: string;
  /** The item being read (arrays). */
  index: number;
}

const quote = 0x22, backslash = 0x5c, colon = 0x3a, comma = 0x2c;

/** The first duplicate key in `text` (valid JSON), else its first non-integer number, or null. */
export function jsonDeparture(text: string): JsonDeparture | null {
  const stack: Frame[] = [];
  let notInteger: JsonDeparture | null = null; // the first; a key twice anywhere is said first
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === quote) {
      const end = stringEnd(text, i);
      const top = stack[stack.length - 1];
      if (expectKey && top?.keys) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (top.keys.has(key)) return { path: pathOf(stack, key), reason: 'duplicate_key' };
        top.keys.add(key);
        top.at = key;
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      stack.push({ keys: new Set(), at: '', index: 0 });
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      stack.push({ keys: null, at: '', index: 0 });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === comma) {
      const top = stack[stack.length - 1]!;
      if (top.keys) expectKey = true;
      else top.index++;
    } else if (c === colon) {
      expectKey = false;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      let integer = true;
      for (; j < text.length; j++) {
        const d = text.charCodeAt(j);
        if (d === 0x2e /* . */ || d === 0x65 /* e */ || d === 0x45 /* E */) integer = false;
        else if (!(d >= 0x30 && d <= 0x39) && d !== 0x2b /* + */ && d !== 0x2d) break;
      }
      if (!integer) notInteger ??= { path: pathOf(stack), reason: 'not_integer' };
      i = j - 1;
    }
  }
  return notInteger;
}

/**
 * A number with a fraction or an exponent a parsed body held, kept with the body until its
 * schema has judged it (server/validate.ts): where the schema wants text or an object there,
 * its type error says so ("must be string"), and only a body the schema takes — the number
 * where an integer goes (10000.0 parses to the integer 10000) — is refused for the fraction.
 */
const notIntegers = new WeakMap<object, JsonDeparture>();

export function keepNotInteger(body: object, departure: JsonDeparture): void {
  notIntegers.set(body, departure);
}

/** The number with a fraction or an exponent `body` held as sent, if any. */
export function notIntegerIn(body: unknown): JsonDeparture | undefined {
  return typeof body === 'object' && body !== null ? notIntegers.get(body) : undefined;
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === backslash) i++;
    else if (c === quote) return i;
  }
  return text.length - 1;
}

function pathOf(stack: readonly Frame[], key?: string): string {
  const parts = stack.map((f) => (f.keys ? f.at : String(f.index)));
  if (key !== undefined) parts[parts.length - 1] = key;
  return echoedPath(parts.join('.'));
}

/** The most of a field's path an error answer gives back, in characters: its start and its end, an ellipsis between. */
export const echoedPathMax = 200;

/**
 * A field's path as an error answer names it (message and details.fields): whole up to
 * echoedPathMax characters, else its first and last characters around an ellipsis. The path
 * is the client's own keys, so a key of 60,000 characters or 40,000 levels of nesting would
 * otherwise come back at that size, in every answer and log line that names it.
 */
export function echoedPath(path: string): string {
  if (path.length <= echoedPathMax) return path;
  const half = (echoedPathMax - 1) / 2;
  let head = path.slice(0, Math.floor(half));
  let tail = path.slice(path.length - Math.ceil(half));
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1); // never half a surrogate pair
  if (/^[\uDC00-\uDFFF]/.test(tail)) tail = tail.slice(1);
  return `${head}…${tail}`;
}
