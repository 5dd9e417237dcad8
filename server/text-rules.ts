// The text rules of request fields, as JSON Schema patterns (server/schemas.ts uses them;
// server/validate.ts says them in words when a field breaks one).

/**
 * Text without control characters: C0, DEL and C1 controls, the line and paragraph
 * separators (U+2028/9: a new line in a log or a CSV cell), the soft hyphen (U+00AD:
 * invisible, so "Shop" and "Sh\u00adop" would read the same) and the zero-width space,
 * word joiner and byte-order mark (U+200B, U+2060, U+FEFF: "order-1" and "ord\u200ber-1"
 * would be two references that read the same), the bidirectional marks
 * (U+061C, U+200E/F), embeddings, overrides and isolates (a reference that reads
 * backwards in a back office or a CSV), and lone surrogates (half a character, which no
 * encoder can write). ajv compiles
 * patterns with the u flag, in which a surrogate range matches only unpaired halves.
 */
const invisibleClass = '\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u200b\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\ud800-\\udfff';
export const visible = `^[^${invisibleClass}]*$`;

/** An absolute http: or https: URL (its scheme in any case) with no character `visible` refuses; format 'uri' checks the rest (validate.ts). */
export const httpUrlText = `^[Hh][Tt][Tt][Pp][Ss]?://[^${invisibleClass}]*$`;

const invisibleCharacters = new RegExp(`[${invisibleClass}]`, 'gu');

/**
 * What a stranger chose, kept where people read it (the action log's claimed subject, an
 * unmatched path): each character `visible` refuses written as its code, `\u000a`, so that a
 * forged token's sub cannot start a new line in a log or read backwards (U+202E) in the console.
 */
export function escapeInvisible(text: string): string {
  return text.replace(invisibleCharacters, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Text a person writes (a note, a reason, evidence): `visible`'s rule, but a tab and line
 * breaks are kept, and the zero-width characters (a note pasted from a document; no note is
 * told apart from another by them). A right-to-left override in an adjustment's reason made the audit note
 * read backwards in the console and the CSVs (bad-input audit).
 */
export const writtenText = '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]*$';
