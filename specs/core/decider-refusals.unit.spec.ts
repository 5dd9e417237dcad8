// The refusal-coverage meta-test across deciders: every file under core/ that can return
// a refusal is either a decider whose codes a given/when/then table checks (the spec named
// here calls refusalCodesReachable on it and fails on a code with no row), or one of the
// few files that refuse for another reason, each with that reason. A new refusing file,
// or a new core/<aggregate>/decide.ts, fails here until a table claims it.

import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { refusingCoreFiles } from '../support/decider.ts';

/** Decider file → the spec whose table covers its refusal codes. */
const tables: Record<string, string> = {
  'core/deposit/decide.ts': 'specs/core/deposit-decider.unit.spec.ts',
  'core/deposit/create.ts': 'specs/core/deposit-decider.unit.spec.ts',
  'core/withdrawal/decide.ts': 'specs/core/withdrawal-decider.unit.spec.ts',
  'core/directory/decide.ts': 'specs/core/directory-decider.unit.spec.ts',
  'core/claim/decide.ts': 'specs/core/claim-decider.unit.spec.ts',
  'core/claim/write-off.ts': 'specs/core/claim-write-off.unit.spec.ts',
};

/** Files that refuse but are no decider, and where their codes are covered. */
const notDeciders: Record<string, string> = {
  'core/handler/handle.ts': 'loading only (resource_not_found): directory-transitions.unit.spec.ts checks the handler refuses nothing else',
  'core/directory/fee-schedule.ts': 'a fee schedule\'s figures (validation_error), read through the directory decider\'s imports; its table and fee-schedule.unit.spec.ts have the rows',
  'core/money.ts': 'amount and credit checks, read through each decider\'s imports by refusalCodesReachable',
  'core/note.ts': 'review_note_required, read through the deposit and claim deciders\' imports; their tables have its rows',
};

const root = new URL('../../', import.meta.url);

test('every file under core/ that returns a refusal is a decider with a table, or a named exception', () => {
  assert.equal(refusingCoreFiles(), [...Object.keys(tables), ...Object.keys(notDeciders)].sort());
});

test('every core/<aggregate>/decide.ts has a table', () => {
  const deciders = readdirSync(new URL('core/', root), { withFileTypes: true })
    .filter((d) => d.isDirectory() && readdirSync(new URL(`core/${d.name}/`, root)).includes('decide.ts'))
    .map((d) => `core/${d.name}/decide.ts`);
  assert.ok(deciders.length >= 3, `found ${deciders.length} deciders`);
  assert.equal(deciders.filter((f) => !(f in tables)), [], 'deciders with no table');
});

test('each table spec checks the refusal codes of the decider files it claims', () => {
  for (const [file, spec] of Object.entries(tables)) {
    const text = readFileSync(new URL(spec, root), 'utf8');
    assert.ok(text.includes(`refusalCodesReachable('${file}')`), `${spec} does not check the codes of ${file}`);
  }
});

test.run();
