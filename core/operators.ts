// Who an operator is, for four eyes. An issuer's `sub` is compared as one person when it
// differs only by case or by Unicode compatibility form (EMP_NOK and emp_nok, a full-width
// letter): an issuer that does not normalise its subjects (or two issuers, the console's and
// the CLI's) must not let one person be both approvers. Refusing a true pair of operators that
// differ only so costs a third person; accepting one person twice costs the control.

const folded = (sub: string): string => sub.normalize('NFKC').toLowerCase();

/** One key per person for four eyes (a map of operators keyed by it counts EMP_NOK and emp_nok as one). */
export const operatorKey = folded;

/** Whether two operator ids name one person for four eyes (false when either is absent). */
export function sameOperator(a: string | null | undefined, b: string | null | undefined): boolean {
  return typeof a === 'string' && typeof b === 'string' && folded(a) === folded(b);
}

/** Whether `operatorId` is one of `ids` (four eyes: has this person already acted?). */
export function amongOperators(ids: readonly string[], operatorId: string): boolean {
  return ids.some((id) => sameOperator(id, operatorId));
}
