// Who an operator is, for four eyes and for revocation. An issuer's `sub` is compared as one
// person when it differs only by case, by Unicode compatibility form (EMP_NOK and emp_nok, a
// full-width letter), or by characters a screen does not show (a zero-width space, a soft
// hyphen, a variation selector, a space at either end): an issuer that does not normalise its
// subjects (or two issuers, the console's and the CLI's) must not let one person be both
// approvers, nor keep a token a revocation of the other spelling cut off. Refusing a true pair
// of operators that differ only so costs a third person; accepting one person twice costs the
// control. The server refuses, at the token check, a subject carrying such characters at all
// (operatorIdProblem): the fold is the second line, for ids already written to the journal.
//
// Invariant: the fold is idempotent (folding a key gives the key), so a key stored folded and
// a subject folded at lookup meet.

/**
 * Characters no one sees in an id: controls (Cc), format characters (Cf: U+200B–U+200F, U+00AD,
 * U+2060, U+FEFF…), lone surrogates (Cs) and every default-ignorable code point (variation
 * selectors, the combining grapheme joiner, Hangul fillers).
 */
const invisible = /[\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}]/gu;
const invisibleAnywhere = new RegExp(invisible.source, 'u'); // no g: exec from the start each time

// NFKC both before and after lowering: a compatibility form may decompose to capitals (U+3381
// ㎁ is "nA"), and a lowered letter may compose anew; the second pass makes the fold idempotent.
const folded = (sub: string): string =>
  sub.normalize('NFKC').replace(invisible, '').toLowerCase().normalize('NFKC').toLowerCase().trim();

/** One key per person for four eyes and revocation (a map keyed by it counts EMP_NOK and emp_nok as one). */
export const operatorKey = folded;

/**
 * The scope of an operator's Idempotency-Key (server/routes/common.ts operatorScope): the
 * person by their folded id, so a retry under another spelling of the sub replays, and the
 * object the call acts on when it names one.
 */
export function operatorIdempotencyScope(sub: string, on?: string): string {
  const key = folded(sub);
  return on === undefined ? `op:${key}` : `op:${key}:${on}`;
}

/** An id the service mints (a prefix and a ULID, or `bank_` and a bank code): an operator scope's object. */
const objectId = /^[a-z]+_(?:[0-9A-HJKMNP-TV-Z]{26}|[0-9]+)$/;

/**
 * An operator's idempotency scope in today's form — an older build wrote the sub as the token
 * spelt it (op:EMP_X:dep_…) — or undefined for a scope that is no operator's. A sub may hold
 * colons itself (Keycloak's f:<provider>:<user>), so what follows the last one is the object
 * only when shaped as an id the service mints; the object is never folded (a ULID's capitals).
 */
export function refoldedOperatorScope(scope: string): string | undefined {
  if (!scope.startsWith('op:')) return undefined;
  const rest = scope.slice('op:'.length);
  const colon = rest.lastIndexOf(':');
  const on = rest.slice(colon + 1);
  return colon >= 0 && objectId.test(on) ? operatorIdempotencyScope(rest.slice(0, colon), on) : operatorIdempotencyScope(rest);
}

/** Whether two operator ids name one person for four eyes (false when either is absent). */
export function sameOperator(a: string | null | undefined, b: string | null | undefined): boolean {
  return typeof a === 'string' && typeof b === 'string' && folded(a) === folded(b);
}

/** Whether `operatorId` is one of `ids` (four eyes: has this person already acted?). */
export function amongOperators(ids: readonly string[], operatorId: string): boolean {
  return ids.some((id) => sameOperator(id, operatorId));
}

/**
 * Why `sub` cannot name an operator, or undefined: empty, not text, white space at an end, or
 * a character no one sees (a token's subject is what the action log and four eyes show a
 * person; two that look alike must be one).
 */
export function operatorIdProblem(sub: unknown): string | undefined {
  if (typeof sub !== 'string' || sub === '') return 'token has no sub claim naming the operator';
  if (sub.trim() !== sub) return 'token sub claim has white space at an end; an operator is named without it';
  const hidden = invisibleAnywhere.exec(sub);
  if (hidden) {
    const at = `U+${hidden[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    return `token sub claim carries an invisible character (${at}); an operator is named by visible characters only`;
  }
  if (folded(sub) === '') return 'token sub claim names no one once folded';
  return undefined;
}
