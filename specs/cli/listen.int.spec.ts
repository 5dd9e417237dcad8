// `satang listen` end to end, as a developer runs it: the real CLI as a child process opens
// the signed SSE stream of a real server, which creates a temporary `cli` endpoint; a
// sandbox event is delivered down the stream; the CLI forwards it to a local receiver,
// which verifies the Ed25519 signature of the bytes it got against the published keys
// (@noble/ed25519, not the signer's code); the CLI prints the receiver's answer; Ctrl-C
// ends the CLI and the server removes the endpoint; a stream ended by a revoked key's
// delivery leaves another stream's outcome of the same event recorded.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { expectError } from '../support/api-checks.ts';
import { freePort } from '../support/ports.ts';
import { advance, deliveries, nobleVerifies, publishedKeys, Receiver, until } from '../webhooks/support.ts';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));

let s: TestServer;
let shop: MerchantKeys;

test.before(async () => {
  s = await TestServer.start({ SATANG_METRICS_PORT: '0' });
  s.clock.set(Date.now()); // webhook signatures carry the service clock's time; keep it real
  shop = await s.onboard('Shop');
});
test.after(async () => {
  await Receiver.stopAll();
  await s.stop();
});

interface Listening { readonly child: ChildProcessWithoutNullStreams; stdout: string; stderr: string; readonly exited: Promise<number | null> }

function listen(key: string, forwardTo: string, baseUrl = s.url): Listening {
  const child = spawn(satangPath, ['listen', '--forward-to', forwardTo, '--key', key], {
    cwd: tmpdir(), env: { ...process.env, SATANG_BASE_URL: baseUrl, SATANG_WEBHOOK_TIMEOUTS_MS: '500,1000,1500' }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  const l: Listening = { child, stdout: '', stderr: '', exited: new Promise((resolve) => child.on('close', resolve)) };
  child.stdout.on('data', (d) => { l.stdout += d; });
  child.stderr.on('data', (d) => { l.stderr += d; });
  return l;
}

const endpointsOf = async () => (await s.bo('GET', `/v1/bo/merchants/${shop.id}/webhook-endpoints`)).json.data as { id: string; type: string; livemode: boolean }[];

test('server → stream → CLI → local receiver: the forwarded bytes verify against the published key; Ctrl-C removes the endpoint', async () => {
  const receiver = await Receiver.start(() => s.clock.now(), '/webhooks');
  const cli = listen(shop.sandbox.api_key, receiver.url);
  try {
    await until(() => /ready endpoint=whep_/.test(cli.stdout), 20_000);
    const endpoints = await endpointsOf();
    assert.is(endpoints.length, 1);
    assert.is(endpoints[0]!.type, 'cli');
    assert.is(endpoints[0]!.livemode, false);
    assert.ok(cli.stdout.includes(endpoints[0]!.id));

    await s.fund(shop.id, 10_000, false); // a sandbox balance.credited event
    await advance(s, 0);
    await until(() => receiver.received.length >= 1 && / → 204/.test(cli.stdout), 20_000);

    const got = receiver.received[0]!;
    const verified = await nobleVerifies(got, await publishedKeys(s));
    assert.ok(verified.ok, 'the Ed25519 signature verifies over the forwarded bytes');
    const envelope = JSON.parse(got.body.toString('utf8'));
    assert.is(envelope.id, got.headers['x-pg-event-id']);
    assert.is(envelope.livemode, false);
    assert.is(got.headers['x-pg-livemode'], 'false');
    assert.ok(got.headers['x-pg-delivery-id'], 'the original delivery headers');
    assert.match(got.headers['content-type'] ?? '', /^application\/json/);
    assert.ok(cli.stdout.includes(`${got.headers['x-pg-event-type']} ${envelope.id} → 204`), cli.stdout);

    receiver.answer(500);
    await s.fund(shop.id, 10_000, false);
    await advance(s, 0);
    await until(() => / → 500/.test(cli.stdout), 20_000);
    // A local handler that never answers (a breakpoint) is given satang's own deadline, then
    // the next delivery goes: it held every later one behind it.
    receiver.handler = () => { /* never answers */ };
    await s.fund(shop.id, 10_000, false);
    await advance(s, 0);
    await until(() => / → failed: no answer within 1\.5 s \(satang's own deadline for an endpoint\)/.test(cli.stdout), 20_000);
    receiver.answer(204);
    const before = (cli.stdout.match(/ → 204/g) ?? []).length;
    await s.fund(shop.id, 10_000, false);
    await advance(s, 0);
    await until(() => (cli.stdout.match(/ → 204/g) ?? []).length > before, 20_000);

    // Each session's endpoint is a fresh id: the metrics count them all under endpoint="cli", or every reconnect would add series for ever.
    const metrics = await (await fetch(s.running.metricsUrl!)).text();
    assert.match(metrics, /satang_webhook_attempts_total\{endpoint="cli",outcome="delivered"\} [1-9]/);
    assert.not.ok(metrics.includes(endpoints[0]!.id), 'no series names the session\'s endpoint');

    // A stream's endpoint is no endpoint to certify against: its deliveries are done once
    // written to the stream, whatever the local server answers (this one answers 500).
    const certification = await s.call(shop.sandbox.api_key, 'POST', '/v1/test/certification', {});
    expectError(certification, 'operation_not_allowed');
    assert.match(certification.json.error.message, /satang listen/);
  } finally {
    cli.child.kill('SIGINT');
  }
  assert.is(await cli.exited, 0, cli.stderr);
  await until(() => false, 200).catch(() => {});
  assert.equal(await endpointsOf(), [], 'the temporary endpoint is gone with its stream');
});

test('a stream whose key is revoked, or whose merchant is suspended, since it opened is ended with the reason; nothing more is delivered to it', async () => {
  for (const cut of ['revoke', 'suspend'] as const) {
    const m = await s.onboard(`Cut by ${cut}`);
    const minted = await s.bo('POST', `/v1/bo/merchants/${m.id}/keys`, { livemode: false, scopes: ['wallet:read', 'withdrawals:read', 'withdrawals:write'] }, { stepUp: true });
    assert.is(minted.status, 201, minted.text);
    const receiver = await Receiver.start(() => s.clock.now(), '/webhooks');
    const cli = listen(minted.json.api_key, receiver.url);
    await until(() => /ready endpoint=whep_/.test(cli.stdout), 20_000);
    const cutOff = cut === 'revoke'
      ? await s.bo('POST', `/v1/bo/keys/${minted.json.key_id}/revoke`, {}, { stepUp: true })
      : await s.bo('POST', `/v1/bo/merchants/${m.id}/suspend`, { reason: 'the stream must end with the merchant' }, { stepUp: true });
    assert.is(cutOff.status, 200, cutOff.text);
    await s.fund(m.id, 10_000, false); // an event the stream must not carry
    await advance(s, 0);
    const code = await Promise.race([cli.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 20_000))]);
    if (code === 'still running') cli.child.kill('SIGINT');
    assert.is(code, 1, `${cut}: the CLI ends (stdout ${cli.stdout}, stderr ${cli.stderr})`);
    // Said once, in the server's words: not followed by a second 'the server closed the stream'.
    assert.match(cli.stderr, cut === 'revoke' ? /^satang listen: the server ended the stream: the key was revoked \(api_key_revoked\)\n$/ : /^satang listen: the server ended the stream: the merchant is suspended \(tenant_suspended\)\n$/);
    assert.is(receiver.received.length, 0, `${cut}: nothing forwarded after it`);
    assert.equal((await s.bo('GET', `/v1/bo/merchants/${m.id}/webhook-endpoints`)).json.data, [], `${cut}: the stream's endpoint is gone`);
  }
});

test('a stream ended by the delivery that finds its key revoked takes nothing down with it: another stream\'s delivery of the same event is recorded delivered', async () => {
  const m = await s.onboard('Two streams');
  const mint = async () => (await s.bo('POST', `/v1/bo/merchants/${m.id}/keys`, { livemode: false, scopes: ['wallet:read'] }, { stepUp: true })).json;
  const [cut, kept] = [await mint(), await mint()];
  const receiver = await Receiver.start(() => s.clock.now(), '/webhooks');
  const ending = listen(cut.api_key, receiver.url);
  const staying = listen(kept.api_key, receiver.url);
  try {
    await until(() => /ready endpoint=whep_/.test(ending.stdout) && /ready endpoint=whep_/.test(staying.stdout), 20_000);
    const stayingEndpoint = /ready endpoint=(whep_\w+)/.exec(staying.stdout)![1]!;
    assert.is((await s.bo('POST', `/v1/bo/keys/${cut.key_id}/revoke`, {}, { stepUp: true })).status, 200);
    await s.fund(m.id, 10_000, false); // one event, one delivery to each stream, their outcomes recorded together
    await advance(s, 0);
    assert.is(await ending.exited, 1, ending.stderr);
    await until(() => / → 204/.test(staying.stdout), 20_000);
    await until(() => false, 200).catch(() => {});
    const recorded = await deliveries(s, stayingEndpoint);
    assert.equal(recorded.map((d) => [d.event_type, d.status, d.attempt]), [['balance.credited', 'delivered', 1]], 'the other stream\'s outcome was recorded, not rolled back with the ended one\'s');
  } finally {
    ending.child.kill('SIGINT');
    staying.child.kill('SIGINT');
  }
  assert.is(await staying.exited, 0, staying.stderr);
});

test('a live key is refused by the CLI and by the server', async () => {
  const cli = listen(shop.live.api_key, 'http://127.0.0.1:9/hook');
  assert.is(await cli.exited, 2);
  assert.match(cli.stderr, /the key given is a live key \(sk_live_…\); this command takes the merchant's sandbox key/);
  assert.not.match(cli.stderr, /SATANG_API_KEY/);
  // Forwarded over HTTP(S) only: another scheme failed every delivery the stream handed over.
  const ftp = listen(`sk_test_${'x'.repeat(40)}`, 'ftp://127.0.0.1/hook');
  assert.is(await ftp.exited, 2);
  assert.match(ftp.stderr, /--forward-to must be an http:\/\/ or https:\/\/ URL, not ftp:/);
  expectError(await s.call(shop.live.api_key, 'GET', '/v1/test/webhooks/listen'), 'scope_denied');
  assert.equal(await endpointsOf(), []);
});

test('a server that is not there, and a key it refuses, are said as every other command says them: exit 1', async () => {
  const down = `http://127.0.0.1:${await freePort()}`;
  const unreached = listen('sk_test_nothing', 'http://127.0.0.1:9/hook', down);
  assert.is(await unreached.exited, 1, unreached.stderr);
  assert.is(unreached.stderr, `satang listen: cannot reach ${down}/v1/test/webhooks/listen: connection refused (ECONNREFUSED); is the server running?\n`);
  const refused = listen(`sk_test_${'x'.repeat(40)}`, 'http://127.0.0.1:9/hook');
  assert.is(await refused.exited, 1, refused.stderr);
  assert.match(refused.stderr, /^HTTP 401: \{"error":\{"code":"[a-z_]+"/);
  assert.equal(await endpointsOf(), []);
});

test.run();
