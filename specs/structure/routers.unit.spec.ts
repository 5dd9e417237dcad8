// Every router of the server matches paths case-sensitively: @koa/router matches any case by
// default, and /V1/PAY/… then reached the routes while passing by the rate limits and load
// shedding, which read the path as written (the security audit). A router made without
// `sensitive: true` fails here; specs/server/errors.int.spec.ts checks the answers.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot, sourceFiles } from './source-files.ts';

test('every new Router(…) in server/ is case-sensitive', () => {
  const made: string[] = [];
  const careless: string[] = [];
  for (const file of sourceFiles(['server'])) {
    const text = readFileSync(join(repositoryRoot, file), 'utf8');
    for (const m of text.matchAll(/new Router\(([^)]*)\)/g)) {
      made.push(file);
      if (!/sensitive: true/.test(m[1]!)) careless.push(`${file}: ${m[0]}`);
    }
  }
  assert.ok(made.length >= 15, `found ${made.length} routers`);
  assert.equal(careless, []);
});

test.run();
