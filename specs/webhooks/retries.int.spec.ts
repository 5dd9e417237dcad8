// The delivery rules against real local receivers on the manual clock: exactly 11
// attempts on the fixed schedule (each gap within ±10 % of its nominal delay) for a
// receiver that always fails; a 410 stops retries at once and flags the endpoint (until a
// later delivery succeeds); a 302
// is a failure and its Location (another local server) receives nothing; and a crash
// between claiming an attempt and recording it loses nothing and repeats no attempt
// number — the interrupted attempt is retried as the next one, under the same event id; a
// stop lets an attempt in flight be answered and recorded (up to its drain time).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { webhookLimits } from '../../core/limits.ts';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { addEndpoint, advance, deliveries, deliveryWithAttempts, emitEvent, goneEndpoint, hour, Receiver, second, startServer, until } from './support.ts';

let s: TestServer;
let shop: MerchantKeys;

test.before(async () => {
  s = await startServer();
  shop = await s.onboard('Shop');
});
test.after(async () => { await s.stop(); await Receiver.stopAll(); });

test('a receiver that always fails gets exactly 11 attempts, on the schedule, each gap within ±10 % jitter', async () => {
  const receiver = await Receiver.start(() => s.clock.now());
  receiver.answer(500, {}, 'down for maintenance');
  const endpointId = await addEndpoint(s, shop.id, receiver.url);
  // What the server's log is told of this delivery, by level (its logger, listened to for the test's length).
  const logged: [string, string, number][] = [];
  const log = s.running.logger as unknown as Record<'info' | 'debug' | 'warn', (fields: { endpoint_id?: string; attempt?: number }, msg: string) => void>;
  const kept = { info: log.info, debug: log.debug, warn: log.warn };
  for (const level of ['info', 'debug', 'warn'] as const) {
    log[level] = (fields, msg) => { if (fields?.endpoint_id === endpointId) logged.push([level, msg, fields.attempt ?? 0]); };
  }
  await emitEvent(s, shop);
  try {
    await advance(s, 100 * hour);
  } finally {
    Object.assign(log, kept);
  }
  // The first failed attempt at info, the retries at debug, the end at warn: a dead endpoint does not flood the log.
  assert.equal(logged.filter(([, msg]) => /^webhook (attempt|delivery) /.test(msg)), [
    ['info', 'webhook attempt failed; retried', 1],
    ...Array.from({ length: 9 }, (_, i) => ['debug', 'webhook attempt failed; retried', i + 2] as [string, string, number]),
    ['warn', 'webhook delivery failed for good', 11],
  ]);
  assert.is(receiver.received.length, 11);
  assert.equal(receiver.received.map((r) => r.headers['x-pg-attempt']), ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11']);
  assert.is(new Set(receiver.received.map((r) => r.headers['x-pg-event-id'])).size, 1, 'one event id on every attempt');
  assert.is(new Set(receiver.received.map((r) => r.headers['x-pg-delivery-id'])).size, 1);
  const gaps = receiver.received.slice(1).map((r, i) => r.clockMs - receiver.received[i]!.clockMs);
  gaps.forEach((gap, i) => {
    const nominal = webhookLimits.attemptDelaysMs[i + 1]!;
    assert.ok(gap >= nominal * 0.9 && gap <= nominal * 1.1, `gap ${i + 1}: ${gap} ms within ±10 % of ${nominal} ms`);
  });
  assert.ok(gaps.some((gap, i) => gap !== webhookLimits.attemptDelaysMs[i + 1]), 'jitter is applied');

  const [d] = await deliveries(s, endpointId);
  assert.is(d.status, 'failed');
  assert.is(d.attempt, 11);
  assert.is(d.next_retry_at, null);
  assert.is(d.response_status, 500);
  assert.is(d.response_body_excerpt, 'down for maintenance');
  assert.is(d.error, 'http_500');
  assert.type(d.duration_ms, 'number');
  const detail = await deliveryWithAttempts(s, endpointId, d.id);
  assert.is(detail.attempts.length, 11);
  assert.equal(detail.attempts.map((a: any) => [a.outcome, a.response_status]), [...Array.from({ length: 10 }, () => ['retry', 500]), ['failed', 500]], 'the last attempt says the delivery failed');
  await advance(s, 48 * hour);
  assert.is(receiver.received.length, 11, 'nothing after the 11th attempt');
  await receiver.stop();
});

test('410 Gone stops retries at once and flags the endpoint', async () => {
  const { merchant: other, endpointId, receiver } = await goneEndpoint(s, shop, 'Gone', 100 * hour);
  assert.is(receiver.received.length, 1);
  const [d] = await deliveries(s, endpointId);
  assert.is(d.status, 'failed');
  assert.is(d.attempt, 1);
  assert.is(d.response_status, 410);
  const endpoint = (await s.bo('GET', `/v1/bo/webhooks/${endpointId}`)).json;
  assert.is(endpoint.flagged, true);
  assert.is(endpoint.status, 'enabled', 'flagged, not disabled');

  receiver.answer(204); // the receiver is back: the next delivery succeeds and the flag goes
  await emitEvent(s, other);
  await advance(s, second);
  assert.is(receiver.received.length, 2);
  const after = (await s.bo('GET', `/v1/bo/webhooks/${endpointId}`)).json;
  assert.is(after.flagged, false, 'a delivered attempt clears the 410 flag');
  assert.is(after.flagged_at, null);
  await receiver.stop();
});

test('a 3xx is a failure and is never followed: the Location receives nothing', async () => {
  const target = await Receiver.start(() => s.clock.now());
  const redirecting = await Receiver.start(() => s.clock.now());
  // A receiver's secret path and token in the query, its body saying them again.
  redirecting.answer(302, { Location: `${target.url}/services/REDIRECTSECRETPATH?token=redirect-secret-4242` }, `Found. Redirecting to ${target.url}/services/REDIRECTSECRETPATH?token=redirect-secret-4242`);
  const other = await s.onboard('Redirect', shop.whiteLabelId);
  const endpointId = await addEndpoint(s, other.id, redirecting.url);
  await emitEvent(s, other);
  await advance(s, 15 * second);
  assert.is(redirecting.received.length, 2, 'attempt 1, then its retry 10 s later');
  assert.is(target.received.length, 0, 'the redirect was not followed');
  const [d] = await deliveries(s, endpointId);
  assert.is(d.status, 'pending');
  assert.is(d.response_status, 302);
  assert.match(d.error, /redirects are not followed/);
  assert.ok(d.error.includes(`Location: ${new URL(target.url).origin}/[redacted])`), d.error);
  for (const secret of ['redirect-secret-4242', 'REDIRECTSECRETPATH']) {
    assert.not.ok(d.error.includes(secret), 'where it pointed, not the secret in its path or query');
    assert.not.ok(JSON.stringify(d).includes(secret), 'nor the body that repeats it (response_body_excerpt)');
  }
  assert.type(d.next_retry_at, 'string');
  await target.stop();
  await redirecting.stop();
});

test('a crash after claiming an attempt: it is retried as the next attempt, same event, never twice under one number', async () => {
  const crashed = await TestServer.start({ SATANG_SHUTDOWN_DRAIN_MS: '100' }); // the stop cuts what is in flight after 100 ms
  const receiver = await Receiver.start(() => crashed.clock.now());
  receiver.handler = () => { /* never answers: the process stops mid-flight */ };
  const m = await crashed.onboard('Crash');
  const endpointId = await addEndpoint(crashed, m.id, receiver.url);
  await emitEvent(crashed, m); // the durable commit wakes the dispatcher, which claims and sends
  await until(() => receiver.received.length === 1);
  await crashed.stop(false); // its drain cut: attempt 1 claimed and its outcome never recorded

  const restarted = await TestServer.start({}, crashed.dataDir);
  receiver.answer(204);
  const [interrupted] = await deliveries(restarted, endpointId);
  assert.is(interrupted.status, 'pending');
  assert.is(interrupted.attempt, 1);
  assert.match(interrupted.error, /^interrupted/);
  await advance(restarted, 15 * second);
  assert.is(receiver.received.length, 2);
  const [first, retry] = receiver.received;
  assert.is(retry!.headers['x-pg-event-id'], first!.headers['x-pg-event-id']);
  assert.is(retry!.headers['x-pg-delivery-id'], first!.headers['x-pg-delivery-id']);
  assert.equal([first!.headers['x-pg-attempt'], retry!.headers['x-pg-attempt']], ['1', '2']);
  const detail = await deliveryWithAttempts(restarted, endpointId, interrupted.id);
  assert.is(detail.status, 'delivered');
  assert.equal(detail.attempts.map((a: any) => a.outcome), ['interrupted', 'delivered']);
  await restarted.stop();
  await receiver.stop();
});

test('a stop waits for the attempt in flight: its answer is recorded, nothing is sent again after the restart', async () => {
  const stopping = await TestServer.start();
  const receiver = await Receiver.start(() => stopping.clock.now());
  receiver.handler = (_r, res) => { setTimeout(() => { res.statusCode = 204; res.end(); }, 400); }; // answers while the server stops
  const m = await stopping.onboard('Stopping');
  const endpointId = await addEndpoint(stopping, m.id, receiver.url);
  await emitEvent(stopping, m);
  await until(() => receiver.received.length === 1);
  await stopping.stop(false);

  const restarted = await TestServer.start({}, stopping.dataDir);
  const [d] = await deliveries(restarted, endpointId);
  assert.is(d.status, 'delivered', 'recorded before the stop ended');
  assert.is(d.attempt, 1);
  await advance(restarted, hour);
  assert.is(receiver.received.length, 1, 'not sent again');
  await restarted.stop();
  await receiver.stop();
});

test.run();
