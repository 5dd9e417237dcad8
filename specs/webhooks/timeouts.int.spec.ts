// The delivery deadlines, shortened through SATANG_WEBHOOK_TIMEOUTS_MS (connect 1000 ms,
// first byte 200 ms, total 600 ms here; the contract's 5 s / 10 s / 15 s by default): a
// receiver that answers too late is cut at the first-byte deadline, one that starts its
// answer and never finishes is cut at the total deadline, one that accepts no connection
// at all is a retried connection failure; every one stays pending for its next attempt.

import { createServer } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { contractTimeouts, webhookSettings } from '../../adapters/webhooks/settings.ts';
import type { MerchantKeys, TestServer } from '../support/server-harness.ts';
import { addEndpoint, advance, deliveries, emitEvent, Receiver, startServer } from './support.ts';

let s: TestServer;
let shop: MerchantKeys;

test.before(async () => {
  s = await startServer({ SATANG_WEBHOOK_TIMEOUTS_MS: '1000,200,600' });
  shop = await s.onboard('Shop');
});
test.after(async () => { await s.stop(); await Receiver.stopAll(); });

test('production keeps the contract timeouts and refuses the test override', () => {
  assert.equal(webhookSettings('production', {}).timeouts, { connectMs: 5000, firstByteMs: 10_000, totalMs: 15_000 });
  assert.equal(contractTimeouts, { connectMs: 5000, firstByteMs: 10_000, totalMs: 15_000 });
  assert.throws(() => webhookSettings('production', { SATANG_WEBHOOK_TIMEOUTS_MS: '1,1,1' }), /refused/);
});

test('a receiver that answers after the first-byte deadline is cut there and retried', async () => {
  const receiver = await Receiver.start(() => s.clock.now());
  receiver.handler = (_r, res) => { setTimeout(() => { if (!res.destroyed) { res.statusCode = 204; res.end(); } }, 2000); };
  const m = await s.onboard('Slow', shop.whiteLabelId);
  const endpointId = await addEndpoint(s, m.id, receiver.url);
  const started = performance.now();
  await emitEvent(s, m);
  await advance(s, 0);
  const elapsed = performance.now() - started;
  const [d] = await deliveries(s, endpointId);
  assert.match(d.error, /^timeout_first_byte/);
  assert.is(d.status, 'pending');
  assert.is(d.response_status, null);
  assert.ok(d.duration_ms >= 190 && d.duration_ms < 1000, `cut after ${d.duration_ms} ms`);
  assert.ok(elapsed < 1500, 'the dispatcher did not wait for the slow answer');
  await receiver.stop();
});

test('a receiver that starts its answer and never finishes is cut at the total deadline', async () => {
  const receiver = await Receiver.start(() => s.clock.now());
  receiver.handler = (_r, res) => { res.writeHead(200, { 'Content-Type': 'text/plain' }); res.write('a'); /* never ends */ };
  const m = await s.onboard('Trickle', shop.whiteLabelId);
  const endpointId = await addEndpoint(s, m.id, receiver.url);
  await emitEvent(s, m);
  await advance(s, 0);
  const [d] = await deliveries(s, endpointId);
  assert.match(d.error, /^timeout_total/);
  assert.is(d.status, 'pending', 'a 200 that never completes is not a success');
  assert.ok(d.duration_ms >= 590 && d.duration_ms < 1500, `cut after ${d.duration_ms} ms`);
  await receiver.stop();
});

test('a closed port is a connection failure, retried', async () => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const m = await s.onboard('Closed', shop.whiteLabelId);
  const endpointId = await addEndpoint(s, m.id, `http://127.0.0.1:${port}/hook`);
  await emitEvent(s, m);
  await advance(s, 0);
  const [d] = await deliveries(s, endpointId);
  assert.is(d.error, 'connection_refused');
  assert.is(d.status, 'pending');
});

test.run();
