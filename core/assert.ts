// Invariants that must hold are assertions that stay on and crash loudly: a broken
// ledger must stop the writer, not be written down. Refusals of bad input are values
// (core/errors.ts), never these.

export class InvariantViolation extends Error {
  override name = 'InvariantViolation';
}

/**
 * Throws when the condition is false. The message may be a function, so that a hot path
 * pays for building it only when the invariant is broken.
 */
export function assert(condition: unknown, message: string | (() => string)): asserts condition {
  if (!condition) throw new InvariantViolation(typeof message === 'string' ? message : message());
}

/**
 * Throws for a broken invariant. For the hottest paths, which test the condition first
 * (`if (!ok) violated(...)`): a lazy message there is a closure per call, and the
 * variables it captures live in a heap-allocated context even when it never runs.
 */
export function violated(message: string): never {
  throw new InvariantViolation(message);
}

export function unreachable(value: never, what: string): never {
  throw new InvariantViolation(`unhandled ${what}: ${JSON.stringify(value)}`);
}
