// Operator roles on /v1/bo: the one roles table (server/auth/roles.ts) names exactly the
// back-office routes a real started server registers, on every router that mounts them;
// over HTTP, a token without one of a route's roles gets 403 scope_denied naming the
// roles it needs (and nothing is written), a token with any one of them gets past the
// gate; the README lists the same table; `scripts/satang admin` mints the role it needs.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type Router from '@koa/router';
import { operatorRoles, routeRoles } from '../../server/auth/roles.ts';
import { TestServer } from '../support/server-harness.ts';

const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;
let s: TestServer;

test.before(async () => { s = await TestServer.start(); });
test.after(async () => { await s.stop(); });

/** Every `METHOD /v1/bo/...` the app's routers register (HEAD rides on GET). */
function registeredBackOfficeRoutes(): string[] {
  const routers = s.running.app.middleware.map((m) => (m as { router?: Router }).router).filter((r): r is Router => r !== undefined);
  const keys = routers.flatMap((router) => router.stack
    .filter((layer) => layer.methods.length > 0 && layer.path.toString().startsWith('/v1/bo'))
    .flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${layer.path}`)));
  return [...new Set(keys)].sort();
}

const concrete = (pattern: string) => pattern.replace(/:[A-Za-z]+/g, 'missing_1');

async function callAs(key: string, roles: readonly string[]) {
  const [method, pattern] = key.split(' ') as [string, string];
  return s.bo(method, concrete(pattern), method === 'POST' ? {} : undefined, { roles, stepUp: true });
}

test('the roles table names exactly the /v1/bo routes the started server registers', () => {
  const registered = registeredBackOfficeRoutes();
  assert.ok(registered.length >= 20, `found only ${registered.length} back-office routes`);
  const table = Object.keys(routeRoles).sort();
  assert.equal(registered.filter((k) => !table.includes(k)), [], 'routes without an entry in the roles table');
  assert.equal(table.filter((k) => !registered.includes(k)), [], 'table entries for routes that do not exist');
  for (const [key, roles] of Object.entries(routeRoles)) {
    assert.ok(roles.length > 0 && roles.every((r) => (operatorRoles as readonly string[]).includes(r)), `${key}: ${roles.join(',')}`);
  }
});

test('every route: a token without its roles gets 403 scope_denied naming them; each of its roles gets past the gate', async () => {
  for (const key of registeredBackOfficeRoutes()) {
    const allowed = routeRoles[key]!;
    const others = operatorRoles.filter((r) => !allowed.includes(r));
    for (const roles of [[], others]) {
      const refused = await callAs(key, roles);
      assert.is(refused.status, 403, `${key} with roles [${roles.join(',')}]: ${refused.text}`);
      assert.is(refused.json.error.code, 'scope_denied', key);
      assert.equal(refused.json.error.details.required_roles, [...allowed], key);
      assert.match(refused.json.error.message, allowed[0]!, key);
    }
    for (const role of allowed) {
      const passed = await callAs(key, [role]);
      assert.not.ok(passed.status === 401 || (passed.status === 403 && passed.json?.error?.code === 'scope_denied'), `${key} as ${role}: ${passed.status} ${passed.text}`);
    }
  }
});

test('the design\'s roles: reviewer decides deposit reviews, approver withdrawals, ops_admin onboards and adjusts and advances the clock', () => {
  assert.equal(routeRoles['POST /v1/bo/deposits/:id/approve'], ['reviewer']);
  assert.equal(routeRoles['POST /v1/bo/deposits/:id/decline'], ['reviewer']);
  assert.equal(routeRoles['POST /v1/bo/withdrawals/:id/approve'], ['approver']);
  assert.equal(routeRoles['POST /v1/bo/withdrawals/:id/reject'], ['approver']);
  for (const key of ['POST /v1/bo/merchants', 'POST /v1/bo/merchants/:id/adjustments', 'POST /v1/bo/merchants/:id/keys', 'POST /v1/bo/clock/advance', 'POST /v1/bo/webhooks/signing-keys/rotate']) {
    assert.equal(routeRoles[key], ['ops_admin'], key);
  }
});

test('a token with no roles cannot post an adjustment, and nothing is written', async () => {
  const m = await s.onboard('Roleless');
  const before = await s.bo('GET', `/v1/bo/merchants/${m.id}/balance`);
  const body = { livemode: true, amount_minor: 10_000, direction: 'credit', bucket: 'available', reason: 'no role' };
  for (const roles of [[], ['reviewer', 'approver', 'finance', 'support']]) {
    const r = await s.bo('POST', `/v1/bo/merchants/${m.id}/adjustments`, body, { roles, stepUp: true });
    assert.is(r.status, 403, r.text);
    assert.equal(r.json.error.details.required_roles, ['ops_admin']);
  }
  assert.equal((await s.bo('GET', `/v1/bo/merchants/${m.id}/balance`)).json, before.json);
  const allowed = await s.bo('POST', `/v1/bo/merchants/${m.id}/adjustments`, body, { roles: ['ops_admin'], stepUp: true });
  assert.is(allowed.status, 201, allowed.text);
});

test('the README lists the same route → roles table', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const rows = [...readme.matchAll(/^\| `(GET|POST|DELETE) (\/v1\/bo[^`]*)` \| ([^|]+) \|/gm)].map((m) => [`${m[1]} ${m[2]}`, m[3]!.split(',').map((r) => r.trim().replace(/`/g, '')).sort()] as const);
  assert.equal(Object.fromEntries(rows), Object.fromEntries(Object.entries(routeRoles).map(([k, v]) => [k, [...v].sort()])));
});

test('scripts/satang admin mints an ops_admin token: onboarding and the clock advance work from the CLI', async () => {
  const env = { ...process.env, SATANG_DATA_DIR: s.dataDir, SATANG_BASE_URL: s.url };
  const created = await run(join(root, 'scripts/satang'), ['admin', 'white-label', 'create', '--name', 'CLI brand'], { env, cwd: root });
  assert.match(JSON.parse(created.stdout).id, /^wl_/);
  const advanced = await run(join(root, 'scripts/satang'), ['admin', 'clock', 'advance', '--seconds', '60'], { env, cwd: root });
  assert.ok(typeof JSON.parse(advanced.stdout).now === 'string', advanced.stdout);
});

test("every role reads the service's clock: the manual clock's time, not the wall clock's", async () => {
  for (const role of operatorRoles) {
    const r = await s.bo('GET', '/v1/bo/clock', undefined, { roles: [role] });
    assert.is(r.status, 200, `${role}: ${r.text}`);
    assert.equal(r.json, { object: 'service_clock', now: new Date(s.clock.now()).toISOString(), clock: 'manual' });
  }
});

test("a merchant's balance, as each role that reads it gets it: merchant_balance, both modes, at the service's time, the numbers the merchant's own GET /v1/pay/balance gives", async () => {
  const m = await s.onboard('Balance read');
  await s.fund(m.id, 12_345);
  const own = (await s.call(m.live.api_key, 'GET', '/v1/pay/balance')).json;
  const buckets = (b: any) => ({ available_minor: b.available_minor, pending_clearing_minor: b.pending_clearing_minor, reserved_minor: b.reserved_minor });
  for (const role of routeRoles['GET /v1/bo/merchants/:id/balance']!) {
    const r = await s.bo('GET', `/v1/bo/merchants/${m.id}/balance`, undefined, { roles: [role] });
    assert.is(r.status, 200, `${role}: ${r.text}`);
    assert.equal(r.json, {
      object: 'merchant_balance', merchant_id: m.id, live: buckets(own), sandbox: { available_minor: 0, pending_clearing_minor: 0, reserved_minor: 0 },
      as_of: new Date(s.clock.now()).toISOString(),
    });
  }
  assert.is(own.available_minor, 12_345);
});

test.run();
