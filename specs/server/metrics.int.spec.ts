// Prometheus metrics (server/metrics.ts) on their own port (SATANG_METRICS_PORT=0 here):
// real traffic is driven through the API — deposits, a webhook delivered to a local
// receiver, a slip verified by the bank simulator, a shed request, timers left due — and
// each metric is read back from GET /metrics, in the Prometheus text format.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { depositBody, freshSender, TestServer } from '../support/server-harness.ts';
import { assertReceipt, jpegSlip, matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, type SlipScene } from '../support/slip-harness.ts';
import { addEndpoint, advance, Receiver, until } from '../webhooks/support.ts';
import { webhookLimits } from '../../core/limits.ts';

let scene: SlipScene;
let s: TestServer;

test.before(async () => {
  scene = await slipScene({ SATANG_METRICS_PORT: '0' });
  s = scene.s;
});
test.after(async () => {
  await Receiver.stopAll();
  await s.stop();
});

interface Sample { readonly name: string; readonly labels: Record<string, string>; readonly value: number }

async function scrape(): Promise<Sample[]> {
  const res = await fetch(s.running.metricsUrl!);
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  const samples: Sample[] = [];
  for (const line of (await res.text()).split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v))?.value;
}

test('the counters the alerts read with increase() are there at 0 from the start, so the first event after a restart counts', async () => {
  const fresh = await TestServer.start({ SATANG_METRICS_PORT: '0' });
  try {
    const res = await fetch(fresh.running.metricsUrl!);
    const text = await res.text();
    for (const series of ['satang_load_shedding_decisions_total{class="new_deposit"} 0', 'satang_load_shedding_decisions_total{class="read"} 0',
      'satang_slip_provider_errors_total{kind="attempt_failed"} 0', 'satang_slip_provider_errors_total{kind="unavailable"} 0']) {
      assert.ok(text.includes(series), series);
    }
    // A webhook endpoint's permanent failures too, after a restart: the first one then counts.
    const m = await fresh.onboard('Restarted');
    const endpointId = await addEndpoint(fresh, m.id, 'http://127.0.0.1:9/hooks');
    await fresh.stop(false);
    const restarted = await TestServer.start({ SATANG_METRICS_PORT: '0' }, fresh.dataDir);
    try {
      const after = await (await fetch(restarted.running.metricsUrl!)).text();
      assert.ok(after.includes(`satang_webhook_attempts_total{endpoint="${endpointId}",outcome="permanent"} 0`), `the endpoint's series at 0 after the restart`);
    } finally {
      await restarted.stop();
    }
  } finally {
    await fresh.stop();
  }
});

test('the metrics port serves GET /metrics only; the API port has no /metrics', async () => {
  assert.match(s.running.metricsUrl!, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  const other = await fetch(s.running.metricsUrl!.replace('/metrics', '/healthz'));
  assert.is(other.status, 404);
  assert.is((await s.raw('GET', '/metrics')).status, 404);
});

test('request durations by route template and status; group commits with their size', async () => {
  const before = await scrape();
  const created = await s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ fill_preference: 'internal_only', sender: freshSender() }));
  assert.is(created.status, 201, created.text);
  await s.call(scene.shop.live.api_key, 'GET', `/v1/pay/deposits/${created.json.id}`);
  await s.call(scene.shop.live.api_key, 'GET', '/v1/pay/deposits/dep_nope');
  const after = await scrape();
  const count = (samples: Sample[], labels: Record<string, string>) => value(samples, 'satang_http_request_duration_seconds_count', labels) ?? 0;
  assert.is(count(after, { method: 'POST', route: '/v1/pay/deposits', status: '201' }) - count(before, { method: 'POST', route: '/v1/pay/deposits', status: '201' }), 1);
  assert.is(count(after, { method: 'GET', route: '/v1/pay/deposits/:id', status: '200' }) - count(before, { method: 'GET', route: '/v1/pay/deposits/:id', status: '200' }), 1, 'the template, not the id');
  assert.is(count(after, { method: 'GET', route: '/v1/pay/deposits/:id', status: '404' }) - count(before, { method: 'GET', route: '/v1/pay/deposits/:id', status: '404' }), 1);
  // Refused by authentication (a router's own middleware) or a bad body: still the route's template, never the router's prefix pattern.
  await s.raw('GET', '/v1/pay/balance');
  await s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', '{"amount_minor":1e4}');
  const refused = await scrape();
  assert.is(count(refused, { method: 'GET', route: '/v1/pay/balance', status: '401' }) - count(after, { method: 'GET', route: '/v1/pay/balance', status: '401' }), 1);
  assert.is(count(refused, { method: 'POST', route: '/v1/pay/deposits', status: '422' }) - count(after, { method: 'POST', route: '/v1/pay/deposits', status: '422' }), 1);
  assert.not.ok(refused.some((x) => x.name === 'satang_http_request_duration_seconds_count' && /\(/.test(x.labels.route ?? '')), 'no prefix pattern as a route');
  assert.ok((value(after, 'satang_journal_group_commit_seconds_count') ?? 0) > (value(before, 'satang_journal_group_commit_seconds_count') ?? 0));
  assert.ok((value(after, 'satang_journal_group_commit_commands_sum') ?? 0) > (value(before, 'satang_journal_group_commit_commands_sum') ?? 0));
});

test('relay and projection lag per projection, event-loop lag, process metrics', async () => {
  const samples = await scrape();
  for (const projection of ['balance_history', 'events_feed', 'deposit_list', 'withdrawal_list']) {
    const lag = value(samples, 'satang_projection_lag_entries', { projection });
    assert.ok(lag !== undefined && lag >= 0, projection);
  }
  const relayLag = value(samples, 'satang_relay_lag_entries');
  assert.ok(relayLag !== undefined && relayLag >= 0);
  // What /readyz knows, for the alerts: nothing stalled, the embedded bus connected.
  for (const projection of ['balance_history', 'events_feed']) assert.is(value(samples, 'satang_projection_stalled_seconds', { projection }), 0, projection);
  assert.is(value(samples, 'satang_bus_connected'), 1);
  assert.ok(value(samples, 'satang_event_loop_lag_seconds') !== undefined);
  assert.ok(value(samples, 'satang_process_cpu_user_seconds_total') !== undefined);
});

test('webhook attempts by endpoint and outcome; queue depth per endpoint', async () => {
  const receiver = await Receiver.start(() => s.clock.now());
  receiver.answer(500);
  const endpointId = await addEndpoint(s, scene.shop.id, receiver.url);
  // Its permanent-failure series is there at 0 from its creation (the alert reads it with increase(), which misses a series born at 1).
  assert.is(value(await scrape(), 'satang_webhook_attempts_total', { endpoint: endpointId, outcome: 'permanent' }), 0, 'at 0 before any attempt');
  await s.fund(scene.shop.id, 10_000);
  await advance(s, 0);
  await until(() => receiver.received.length >= 1);
  await until(() => false, 300).catch(() => {}); // the outcome is recorded on the next turn
  const samples = await scrape();
  assert.ok((value(samples, 'satang_webhook_attempts_total', { endpoint: endpointId, outcome: 'retry' }) ?? 0) >= 1, 'a failed attempt counted');
  assert.is(value(samples, 'satang_webhook_queue_depth', { endpoint: endpointId }), 1, 'the delivery waits to be retried');
  receiver.answer(204);
  await advance(s, 60 * 60 * 1000);
  await until(() => receiver.received.length >= 2);
  await until(() => false, 300).catch(() => {});
  const later = await scrape();
  assert.ok((value(later, 'satang_webhook_attempts_total', { endpoint: endpointId, outcome: 'delivered' }) ?? 0) >= 1, 'a delivered attempt counted');
  assert.is(value(later, 'satang_webhook_queue_depth', { endpoint: endpointId }), undefined, 'nothing pending any more');
});

test('slip verification latency by verdict; the verifier\'s backlog (slips received, no verdict yet) and its oldest wait', async () => {
  const deposit = await matchedDeposit(scene);
  await registerTransfer(s, transferFor(scene, deposit));
  assertReceipt(await uploadFile(deposit.slip_upload, jpegSlip()));
  await s.running.services.write.advanceClock!(90_000); // the slip waits (this scene's worker runs on drain only)
  const waiting = await scrape();
  assert.is(value(waiting, 'satang_slip_queue_deposits', { livemode: 'true' }), 1, 'one slip waits for its verdict');
  assert.ok((value(waiting, 'satang_slip_queue_oldest_seconds', { livemode: 'true' }) ?? 0) >= 90, 'for 90 s');
  await s.running.slipWorker.drain();
  assert.is(value(await scrape(), 'satang_slip_queue_deposits', { livemode: 'true' }), 0, 'verified: none waits');
  const samples = await scrape();
  const counts = samples.filter((x) => x.name === 'satang_slip_verification_seconds_count');
  assert.ok(counts.length > 0 && counts.every((x) => ['found', 'not_found', 'unreadable', 'provider_unavailable'].includes(x.labels.verdict!)), 'by verdict');
  assert.ok(counts.reduce((sum, x) => sum + x.value, 0) >= 1, 'the verification was timed');
});

test('load shedding decisions by request class', async () => {
  s.running.loadMeter.stop(); // the reading set here must not be replaced by the meter's own window meanwhile
  s.running.loadMeter.recentLagMs = 800;
  const shed = await s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody());
  const read = await s.call(scene.shop.live.api_key, 'GET', '/v1/pay/balance');
  s.running.loadMeter.recentLagMs = 0;
  assert.is(shed.status, 503);
  assert.is(read.status, 503);
  const samples = await scrape();
  assert.ok((value(samples, 'satang_load_shedding_decisions_total', { class: 'new_deposit' }) ?? 0) >= 1);
  assert.ok((value(samples, 'satang_load_shedding_decisions_total', { class: 'read' }) ?? 0) >= 1);
});

test("the operators' queues: deposits under review and withdrawals pending approval, with the oldest one's wait, per mode", async () => {
  const before = await scrape();
  assert.is(value(before, 'satang_review_queue_deposits', { livemode: 'false' }), 0, 'an empty sandbox queue is 0, not absent');
  const deposit = await matchedDeposit(scene, { amount_minor: 51_000 }); // an amount of its own: an earlier test's order of 50,000 from this sender is still open
  const image = pngSlip(); // paid from another name: held for review (SENDER_NAME_MISMATCH)
  await registerTransfer(s, transferFor(scene, { amount_minor: deposit.legs[0].amount_minor }, { image_sha256: sha256Hex(image), sender: { bank_code: '014', account_number: '9876543210', account_name_th: 'สมศักดิ์ มีเงิน' } }));
  assertReceipt(await uploadFile(deposit.slip_upload, image));
  await s.running.slipWorker.drain();
  const review = (await s.bo('GET', '/v1/bo/deposits?status=under_review&livemode=true&limit=200')).json;
  assert.ok(review.total >= 1, 'a deposit waits for review');
  const approval = (await s.bo('GET', '/v1/bo/withdrawals?status=pending_approval&livemode=true&limit=200')).json;
  s.clock.advance(90_000);
  const samples = await scrape();
  assert.is(value(samples, 'satang_review_queue_deposits', { livemode: 'true' }), review.total, 'the queue the reviewers see');
  assert.is(value(samples, 'satang_review_queue_oldest_seconds', { livemode: 'true' }), review.oldest_age_seconds + 90);
  assert.is(value(samples, 'satang_approval_queue_withdrawals', { livemode: 'true' }), approval.data.length);
  assert.ok(value(samples, 'satang_approval_queue_oldest_seconds', { livemode: 'true' }) !== undefined);
});

test('timers due and overdue', async () => {
  const created = await s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ fill_preference: 'internal_only', sender: freshSender() }));
  assert.is(created.status, 201, created.text);
  s.clock.advance(2 * 24 * 60 * 60 * 1000); // the manual clock moves; nothing fires until the scheduler is told
  const samples = await scrape();
  assert.ok((value(samples, 'satang_timers_due') ?? 0) >= 1, 'the expiry timer is due');
  assert.ok((value(samples, 'satang_timers_overdue') ?? 0) >= 1, 'and overdue');
  await advance(s, 0); // the scheduler runs them
  const after = await scrape();
  assert.is(value(after, 'satang_timers_overdue'), 0);
});

// Last: it moves the clock twelve days on, past every other test's withdrawals.
test('a delivery that spends its last attempt is counted permanent (failed for good, as the alert means), not one more retry', async () => {
  const receiver = await Receiver.start(() => s.clock.now());
  receiver.answer(500);
  const shop = await s.onboard('Receiver always down');
  const endpointId = await addEndpoint(s, shop.id, receiver.url);
  await s.fund(shop.id, 10_000);
  await advance(s, 0);
  for (let attempt = 1; attempt <= webhookLimits.attemptsMax; attempt++) {
    await until(() => receiver.received.length >= attempt);
    if (attempt < webhookLimits.attemptsMax) await advance(s, 30 * 60 * 60 * 1000);
  }
  await until(() => false, 300).catch(() => {}); // the outcome is recorded on the next turn
  const samples = await scrape();
  assert.equal([value(samples, 'satang_webhook_attempts_total', { endpoint: endpointId, outcome: 'retry' }), value(samples, 'satang_webhook_attempts_total', { endpoint: endpointId, outcome: 'permanent' })],
    [webhookLimits.attemptsMax - 1, 1]);
});

test.run();
