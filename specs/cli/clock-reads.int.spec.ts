// `satang bo actions` and `satang bo logs` with --no-clock-reads, run as an operator runs them
// (child processes against a real server on a manual clock, sharing its data directory): the
// reads of the service clock (GET /v1/bo/clock, which a console on a manual clock makes on
// every navigation) are left out of both logs with the option, the API's clock_reads=false,
// and are there without it (the commands had no way to ask the routes to leave them out).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { satang } from '../support/cli.ts';
import { TestServer } from '../support/server-harness.ts';

let s: TestServer;

test.before(async () => { s = await TestServer.start(); });
test.after(async () => { await s.stop(); });

/** The routes of a log's rows, as `satang bo <what> --json` lists them. */
async function routes(what: 'actions' | 'logs', ...options: string[]): Promise<string[]> {
  const ran = await satang(['bo', what, '--json', '--limit', '200', ...options], { SATANG_DATA_DIR: s.dataDir, SATANG_BASE_URL: s.url, SATANG_LOG_LEVEL: 'silent' });
  assert.is(ran.code, 0, ran.stderr);
  return JSON.parse(ran.stdout).data.map((r: { route: string }) => r.route);
}

test('--no-clock-reads leaves the reads of the service clock out of the action log and the request logs; without it they are there', async () => {
  for (let i = 0; i < 3; i++) assert.is((await s.bo('GET', '/v1/bo/clock', undefined, { sub: 'emp_console', roles: ['finance', 'support'] })).status, 200);
  assert.is((await s.bo('GET', '/v1/bo/merchants', undefined, { sub: 'emp_console', roles: ['finance', 'support'] })).status, 200);

  for (const what of ['actions', 'logs'] as const) {
    const all = await routes(what);
    assert.is(all.filter((r) => r === '/v1/bo/clock').length, 3, `bo ${what}: ${all.join(', ')}`);
    assert.ok(all.includes('/v1/bo/merchants'), `bo ${what}: ${all.join(', ')}`);
    const without = await routes(what, '--no-clock-reads');
    assert.not.ok(without.includes('/v1/bo/clock'), `bo ${what} --no-clock-reads: ${without.join(', ')}`);
    assert.ok(without.includes('/v1/bo/merchants'), `bo ${what} --no-clock-reads keeps the other calls: ${without.join(', ')}`);
  }
});

test.run();
