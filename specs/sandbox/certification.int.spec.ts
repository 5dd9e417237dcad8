// Certification before a live key, end to end on real listening servers on the manual
// clock with real webhook receivers: a run passes against a receiver that acknowledges
// everything; it fails, naming the check and the event, against one that answers 500 to
// deposit.reversed; and with SATANG_ENV=production a merchant starts with its sandbox key
// only, a live key is refused (409) before a pass and issued after it. The production
// part restarts servers on one data dir: production refuses the local receiver a test
// can run, so the run itself happens on a development server over the same journal.

import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expectError } from '../support/api-checks.ts';
import { startServer } from '../../server/main.ts';
import { externalIssuer, TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { addEndpoint, nobleVerifies, publishedKeys, Receiver } from '../webhooks/support.ts';

let s: TestServer;
test.before(async () => { s = await TestServer.start(); });
test.after(async () => { await s.stop(); await Receiver.stopAll(); });

const checks = ['10300', '10800', '10900', '11600', 'out_of_order', 'signature'];

async function certify(server: TestServer, shop: MerchantKeys): Promise<any> {
  const started = await server.call(shop.sandbox.api_key, 'POST', '/v1/test/certification', {});
  assert.is(started.status, 202, started.text);
  assert.equal([started.json.object, started.json.livemode], ['certification_run', false]);
  // The signature probes are answered before the 202: a receiver that accepted one has failed already.
  const signature = started.json.checks.find((c: any) => c.check === 'signature');
  assert.is(started.json.status, signature.status === 'failed' ? 'failed' : 'running');
  assert.equal(started.json.checks.map((c: any) => c.check), checks);
  for (const seconds of [5, 5, 60, 60]) {
    const r = await server.bo('POST', '/v1/bo/clock/advance', { seconds });
    assert.is(r.status, 200, r.text);
  }
  const got = await server.call(shop.sandbox.api_key, 'GET', '/v1/test/certification');
  assert.is(got.status, 200, got.text);
  assert.is(got.json.id, started.json.id);
  return got.json;
}

test('a run passes against a receiver that verifies every signature and acknowledges what verifies, each event signed by a sandbox key', async () => {
  const shop = await s.onboard('Certified');
  const receiver = await Receiver.start(() => s.clock.now());
  receiver.verifyAgainst(s);
  await addEndpoint(s, shop.id, receiver.url, false);
  expectError(await s.call(shop.sandbox.api_key, 'GET', '/v1/test/certification'), 'resource_not_found');
  const run = await certify(s, shop);
  assert.is(run.status, 'passed', JSON.stringify(run.checks.filter((c: any) => c.status !== 'passed')));
  assert.ok(run.passed_at);
  for (const c of run.checks.filter((c: any) => c.check !== 'signature')) {
    assert.is(c.status, 'passed', c.check);
    assert.ok(c.events.length >= 1 && c.events.every((e: any) => e.status === 'passed' && e.response_status === 204 && e.kid), c.check);
  }
  // The two deliveries it had to refuse, refused as the contract says: a bad signature 401, a stale t 400.
  const signature = run.checks.find((c: any) => c.check === 'signature');
  assert.equal(signature.events.map((e: any) => [e.event_type, e.status, e.response_status]), [['bad_signature', 'passed', 401], ['stale_timestamp', 'passed', 400]]);
  assert.equal(run.checks[0].events.map((e: any) => e.event_type), ['deposit.settled', 'deposit.reversed']);
  assert.is(run.checks[4].events.length, 8, 'A and B two events each, C three chunks and the settlement');
  const sandboxKids = new Set(run.checks.flatMap((c: any) => c.events.map((e: any) => e.kid)));
  const keys = (await s.raw('GET', '/v1/webhooks/signing-keys')).json.keys.map((k: any) => k.kid);
  assert.ok([...sandboxKids].every((kid) => keys.includes(kid)), 'signed by published keys');
});

test('a run fails, naming 10300 and deposit.reversed, against a receiver that answers 500 to deposit.reversed', async () => {
  const shop = await s.onboard('Flaky');
  const receiver = await Receiver.start(() => s.clock.now());
  receiver.verifyAgainst(s, (r, res) => { res.statusCode = r.headers['x-pg-event-type'] === 'deposit.reversed' ? 500 : 200; res.end(); });
  await addEndpoint(s, shop.id, receiver.url, false);
  const run = await certify(s, shop);
  assert.is(run.status, 'failed');
  assert.is(run.passed_at, null);
  // Out-of-order case B delivers a deposit.reversed too: both checks that send one fail, on it.
  const failed = run.checks.filter((c: any) => c.status === 'failed');
  assert.equal(failed.map((c: any) => c.check), ['10300', 'out_of_order']);
  for (const c of failed) assert.equal([c.failure.event_type, c.failure.reason, c.failure.response_status], ['deposit.reversed', 'not_acknowledged', 500], c.check);
  assert.ok(run.checks.filter((c: any) => !['10300', 'out_of_order'].includes(c.check)).every((c: any) => c.status === 'passed'));
  assert.equal(run.summary, { passed: 4, failed: 2, pending: 0 }, 'the run says at a glance how its checks stand');
  expectError(await s.call(shop.live.api_key, 'POST', '/v1/test/certification', {}), 'scope_denied');
  // Two runs at once (the clock not advanced between them): the second pays from an account of its own, not refused as the first's duplicate.
  const first = await s.call(shop.sandbox.api_key, 'POST', '/v1/test/certification', {});
  const second = await s.call(shop.sandbox.api_key, 'POST', '/v1/test/certification', {});
  assert.equal([first.status, second.status], [202, 202], second.text);
  assert.is.not(second.json.id, first.json.id);
});

test('a receiver that acknowledges everything, verifying nothing, fails the signature check (the scenarios alone would pass it)', async () => {
  const shop = await s.onboard('Credulous');
  const receiver = await Receiver.start(() => s.clock.now());
  await addEndpoint(s, shop.id, receiver.url, false);
  const run = await certify(s, shop);
  assert.is(run.status, 'failed');
  assert.equal(run.checks.filter((c: any) => c.status === 'failed').map((c: any) => c.check), ['signature']);
  const signature = run.checks.find((c: any) => c.check === 'signature');
  assert.equal(signature.events.map((e: any) => [e.event_type, e.status, e.response_status, e.reason]), [['bad_signature', 'failed', 204, 'accepted_unverified'], ['stale_timestamp', 'failed', 204, 'accepted_unverified']]);
  assert.equal([signature.failure.event_type, signature.failure.reason], ['bad_signature', 'accepted_unverified']);
  // What it was sent: a deposit.settled under the sandbox kid, of no order.
  const probes = receiver.received.filter((r) => String(r.headers['x-pg-event-id']).startsWith('evt_certprobe_'));
  assert.is(probes.length, 2);
  const keys = await publishedKeys(s);
  const [bad, stale] = await Promise.all(probes.map((p) => nobleVerifies(p, keys)));
  assert.equal([bad!.ok, stale!.ok], [false, true], 'one does not verify; the other verifies but is 600 s old');
  assert.ok(s.wallSeconds() - stale!.t >= 600);
});

test('a run needs an enabled sandbox endpoint', async () => {
  const shop = await s.onboard('No endpoint');
  expectError(await s.call(shop.sandbox.api_key, 'POST', '/v1/test/certification', {}), 'operation_not_allowed');
});

test('production: the sandbox key only at first; a live key is refused before a pass and issued after it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'satang-cert-'));
  const issuer = await externalIssuer(dataDir);
  const env = { SATANG_SLIP_PROVIDER_URL: 'http://127.0.0.1:9', SATANG_MASTER_KEY: randomBytes(32).toString('base64'), ...issuer.env };
  const bo = async (server: { url: string }, path: string, body: unknown) => {
    const headers = { Authorization: `Bearer ${await issuer.mint('emp_alice')}`, 'X-PG-Step-Up-Token': await issuer.mint('emp_alice', { acr: 'step-up' }), 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' };
    const res = await fetch(server.url + path, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
  };
  // Production runs on the system clock (the manual clock is refused there).
  const production = () => startServer({ ...env, SATANG_ENV: 'production', SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_LOG_LEVEL: 'silent' });
  try {
    let prod = await production();
    const wl = (await bo(prod, '/v1/bo/white-labels', { name: 'Brand' })).json.id;
    const created = await bo(prod, '/v1/bo/merchants', { white_label_id: wl, name: 'Shop' });
    assert.is(created.status, 201, created.text);
    assert.is(created.json.keys.live, null, 'no live key before certification');
    assert.match(created.json.keys.sandbox.api_key, /^sk_test_/);
    const refused = expectError(await bo(prod, `/v1/bo/merchants/${created.json.id}/keys`, { livemode: true, scopes: ['wallet:read'] }), 'operation_not_allowed');
    assert.is(refused.details.reason, 'certification_required');
    await prod.close();

    const dev = await TestServer.start(env, dataDir);
    // The development server's manual clock starts in the past; production ran on the wall clock.
    const behindSeconds = Math.ceil((Date.now() - dev.clock.now()) / 1000) + 60;
    assert.is((await bo(dev, '/v1/bo/clock/advance', { seconds: behindSeconds })).status, 200);
    const shop: MerchantKeys = { id: created.json.id, whiteLabelId: wl, live: { key_id: '', api_key: '' }, sandbox: created.json.keys.sandbox };
    const receiver = await Receiver.start(() => dev.clock.now());
    receiver.verifyAgainst(dev);
    const endpoint = await bo(dev, `/v1/bo/merchants/${shop.id}/webhook-endpoints`, { url: receiver.url, livemode: false });
    assert.is(endpoint.status, 201, endpoint.text);
    const run = await certifyWith(dev, shop, (path, body) => bo(dev, path, body));
    assert.is(run.status, 'passed');
    await dev.stop(false);

    prod = await production();
    const issued = await bo(prod, `/v1/bo/merchants/${shop.id}/keys`, { livemode: true, scopes: ['wallet:read', 'withdrawals:write', 'withdrawals:read'] });
    assert.is(issued.status, 201, issued.text);
    assert.match(issued.json.api_key, /^sk_live_/);
    await prod.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** certify() with the back-office calls of an external issuer (no development issuer here). */
async function certifyWith(server: TestServer, shop: MerchantKeys, bo: (path: string, body: unknown) => Promise<{ status: number; text: string }>): Promise<any> {
  const started = await server.call(shop.sandbox.api_key, 'POST', '/v1/test/certification', {});
  assert.is(started.status, 202, started.text);
  for (const seconds of [5, 5, 60, 60]) assert.is((await bo('/v1/bo/clock/advance', { seconds })).status, 200);
  return (await server.call(shop.sandbox.api_key, 'GET', '/v1/test/certification')).json;
}

test.run();
