// Emmett-style decider specs: given(events).when(command).then(events | refusal),
// calling a decider's own `decide` directly (no handler, no Tx, no world), with its state
// folded by its own `evolve` from its initial state. A table is a list of rows, each named
// after the contract's transition row it proves; `table` turns each row into a test and
// `refusalCodesOfRows` reads back which codes the table covers, so a meta-test can check
// every refusal code a decider's source can return has a row (refusalCodesReachable).

import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isRejection, type ErrorCode, type Rejection } from '../../core/errors.ts';

/** A decider as the specs see it: an initial state, evolve, and decide over outside facts. */
export interface Decider<State, Event, Command, Out, Facts = undefined> {
  readonly initialState: () => State;
  readonly evolve: (state: State, event: Event) => State;
  readonly decide: (command: Command, state: State, facts: Facts) => Out | Rejection;
}

/** What `when` decided, and the checks on it. */
export interface Decided<State, Out> {
  readonly state: State;
  readonly decision: Out | Rejection;
  /** The decision is `expected` (deep equality), or passes `check`. */
  then(expected: Out | ((out: Out, state: State) => void)): Out;
  /** The decision is a refusal naming `code` (and a message matching `message`). */
  thenRefused(code: ErrorCode, message?: RegExp): Rejection;
}

export function given<State, Event, Command, Out, Facts>(decider: Decider<State, Event, Command, Out, Facts>, events: readonly Event[]) {
  let state = decider.initialState();
  for (const e of events) state = decider.evolve(state, e);
  return {
    state,
    when(command: Command, facts?: Facts): Decided<State, Out> {
      const decision = decider.decide(command, state, facts as Facts);
      return {
        state, decision,
        then(expected) {
          if (isRejection(decision)) assert.unreachable(`refused ${decision.code}: ${decision.message}`);
          const out = decision as Out;
          if (typeof expected === 'function') (expected as (out: Out, state: State) => void)(out, state);
          else assert.equal(out, expected);
          return out;
        },
        thenRefused(code, message) {
          if (!isRejection(decision)) throw new assert.Assertion({ message: `accepted; expected refusal ${code}`, operator: 'thenRefused', expects: code, actual: decision });
          assert.is(decision.code, code, decision.message);
          if (message) assert.match(decision.message, message);
          return decision;
        },
      };
    },
  };
}

/** The events `given` plus what `decide` makes of `command`: a scene built by the decider itself. */
export function after<State, Event, Command, Facts>(decider: Decider<State, Event, Command, readonly Event[], Facts>, events: readonly Event[], command: Command, facts?: Facts): Event[] {
  const decision = given(decider, events).when(command, facts).decision;
  if (isRejection(decision)) throw new Error(`scene refused: ${decision.code} ${decision.message}`);
  return [...events, ...decision];
}

/** One row of a decider's table: the contract row it proves, given, when, then. */
export type Row<State, Event, Command, Out, Facts> = {
  readonly row: string;
  readonly given: readonly Event[];
  readonly when: Command;
  readonly facts?: Facts;
} & (
  | { readonly then: Out | ((out: Out, state: State) => void) }
  | { readonly refused: ErrorCode; readonly message?: RegExp }
);

/** Registers one uvu test per row. */
export function table<State, Event, Command, Out, Facts>(decider: Decider<State, Event, Command, Out, Facts>, rows: readonly Row<State, Event, Command, Out, Facts>[]): void {
  for (const r of rows) {
    test(r.row, () => {
      const decided = given(decider, r.given).when(r.when, r.facts);
      if ('refused' in r) decided.thenRefused(r.refused, r.message);
      else decided.then(r.then);
    });
  }
}

export function refusalCodesOfRows(rows: readonly ({ readonly refused?: ErrorCode } | object)[]): Set<string> {
  const codes = new Set<string>();
  for (const r of rows) if ('refused' in r && r.refused) codes.add(r.refused);
  return codes;
}

// ---- what a decider's source can refuse with ----

const source = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const rejectCodes = (text: string) => [...text.matchAll(/reject\(\s*'([a-z0-9_]+)'/g)].map((m) => m[1]!);

/** The body of `function name(` in `text`, up to the closing brace at column 0. */
function functionBody(text: string, name: string): string | undefined {
  const start = text.search(new RegExp(`\\nexport function ${name}\\b`));
  if (start < 0) return undefined;
  const end = text.indexOf('\n}\n', start);
  return text.slice(start, end < 0 ? undefined : end);
}

/**
 * The refusal codes a decider file can return: every reject('code' in it, plus those of
 * the functions it imports from other core modules that refuse (the amount and credit
 * checks of money.ts), one level deep: a refusal handed back from a check is the
 * decider's refusal too.
 */
export function refusalCodesReachable(path: string): Set<string> {
  const text = source(path);
  const codes = new Set(rejectCodes(text));
  for (const m of text.matchAll(/import\s*{([^}]*)}\s*from\s*'(\.[^']+)'/g)) {
    const target = new URL(m[2]!, new URL(`../../${path}`, import.meta.url));
    const relative = target.pathname.slice(new URL('../../', import.meta.url).pathname.length);
    if (!relative.startsWith('core/')) continue;
    const imported = source(relative);
    for (const raw of m[1]!.split(',')) {
      const name = raw.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]!;
      if (!name) continue;
      const body = functionBody(imported, name);
      if (body) for (const code of rejectCodes(body)) codes.add(code);
    }
  }
  return codes;
}

/** Every file under core/ whose source contains a reject('code' (relative paths). */
export function refusingCoreFiles(): string[] {
  const root = new URL('../../core/', import.meta.url);
  const out: string[] = [];
  const walk = (dir: URL, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(new URL(`${entry.name}/`, dir), `${rel}${entry.name}/`);
      else if (entry.name.endsWith('.ts') && rejectCodes(source(`core/${rel}${entry.name}`)).length > 0) out.push(`core/${rel}${entry.name}`);
    }
  };
  walk(root, '');
  return out.sort();
}
