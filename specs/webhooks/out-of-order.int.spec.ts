// POST /v1/test/webhooks/replay-out-of-order, cases A, B and C, received by the
// merchant-side reference consumer (scripts/webhook-consumer.ts) behind a real HTTP
// receiver: each case's events arrive in the stated wrong order, the consumer verifies
// every signature with @noble/ed25519, applies the newest version and answers 200 to
// the stale one without effect — A stays settled, B never credits, C's remaining_minor
// follows the highest version. The consumer also answers 200 to a duplicate (a resend)
// and refuses bad signatures, wrong event ids, wrong modes and old timestamps.

import { componentErrors } from '../support/openapi-check.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WebhookConsumer, type Answer } from '../../scripts/webhook-consumer.ts';
import type { MerchantKeys, TestServer } from '../support/server-harness.ts';
import { addEndpoint, advance, Receiver, second, startServer } from './support.ts';

let s: TestServer;
let shop: MerchantKeys;
let receiver: Receiver;
let consumer: WebhookConsumer;
let endpointId: string;
const answers: { eventId: string; type: string; answer: Answer; data: any }[] = [];
const credits: string[] = [];

test.before(async () => {
  s = await startServer();
  shop = await s.onboard('Shop');
  consumer = new WebhookConsumer({
    signingKeysUrl: `${s.url}/v1/webhooks/signing-keys`, livemode: false, db: ':memory:', now: () => s.securityClock.now(),
    onApplied: (event, object) => { if (object.status === 'settled' && object.object === 'deposit_order') credits.push(String(object.id)); },
  });
  receiver = await Receiver.start(() => s.clock.now());
  receiver.handler = (r, res) => {
    consumer.handle(r.headers, r.body).then((answer) => {
      answers.push({ eventId: String(r.headers['x-pg-event-id']), type: String(r.headers['x-pg-event-type']), answer, data: JSON.parse(r.body.toString()).data });
      res.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
    });
  };
  endpointId = await addEndpoint(s, shop.id, receiver.url, false);
});
test.after(async () => { await s.stop(); await Receiver.stopAll(); });

async function run(c: 'A' | 'B' | 'C') {
  const r = await s.call(shop.sandbox.api_key, 'POST', '/v1/test/webhooks/replay-out-of-order', { case: c });
  assert.is(r.status, 202, r.text);
  const from = answers.length;
  await advance(s, 3 * second);
  return { r: r.json, got: answers.slice(from) };
}

test('case A: an older deposit.expired arrives after deposit.settled; the order stays settled', async () => {
  const { r, got } = await run('A');
  assert.equal(got.map((g) => g.type), ['deposit.settled', 'deposit.expired']);
  for (const g of got) assert.equal(componentErrors('DepositOrder', g.data.object), [], g.type);
  assert.equal(got.map((g) => g.eventId), r.delivery_order);
  const settled = r.events.find((e: any) => e.type === 'deposit.settled'), expired = r.events.find((e: any) => e.type === 'deposit.expired');
  assert.ok(expired.version < settled.version && expired.sequence < settled.sequence, 'the expired event is the older one');
  // Shaped as production sends them: the late-slip window 24 h after expires_at; a late slip settles by review.
  const [settledObject, expiredObject] = got.map((g) => g.data.object);
  assert.is(Date.parse(expiredObject.late_slip_accepted_until) - Date.parse(expiredObject.expires_at), 24 * 3_600_000);
  assert.equal([settledObject.settled_via, settledObject.slip.is_late], ['review', true]);
  assert.equal(r.events.map((e: any) => [e.type, e.version]), [['deposit.created', 0], ['deposit.matched', 1], ['deposit.expired', 2], ['deposit.slip_received', 3], ['deposit.under_review', 4], ['deposit.settled', 5]],
    'from its creation, as production sends them');
  assert.match(r.expected, /deposit\.settled \(version 5\)/, 'the answer names the versions its events carry');
  assert.equal(got.map((g) => [g.answer.status, g.answer.outcome]), [[200, 'applied'], [200, 'stale']]);
  const stored = consumer.object(r.object_id)!;
  assert.is(stored.status, 'settled');
  assert.is(stored.version, settled.version);
  assert.is(stored.data.livemode, false, 'the sandbox test order says it is sandbox');
  assert.equal(credits, [r.object_id], 'credited once');
});

test('case B: an older deposit.settled arrives after deposit.reversed; no credit', async () => {
  const before = credits.length;
  const { r, got } = await run('B');
  assert.equal(got.map((g) => g.type), ['deposit.reversed', 'deposit.settled']);
  for (const g of got) assert.equal(componentErrors('DepositOrder', g.data.object), [], g.type);
  assert.equal(got.map((g) => g.answer.outcome), ['applied', 'stale']);
  assert.equal(r.events.map((e: any) => [e.type, e.version]), [['deposit.created', 0], ['deposit.matched', 1], ['deposit.slip_received', 2], ['deposit.settled', 3], ['deposit.reversed', 4]]);
  assert.equal(got.map((g) => g.data.object.is_terminal), [true, false], 'a reversed order is final, as production sends it');
  assert.is(consumer.object(r.object_id)!.status, 'reversed');
  assert.is(credits.length, before, 'the stale settlement credits nothing');
  // Balance transactions named as every sandbox one is, the reversal naming the settlement's.
  const { reversal, balance_transaction_id: settlement } = got[0]!.data.object;
  assert.equal([reversal.reverses_balance_transaction_id, got[1]!.data.object.balance_transaction_id], [settlement, settlement]);
  for (const id of [settlement, reversal.balance_transaction_id]) assert.match(id, /^sbxbtxn_l_/);
});

test('case C: withdrawal.filled chunks out of order; remaining_minor follows the highest version; withdrawal.settled closes it, as production sends them', async () => {
  const { r, got } = await run('C');
  assert.equal(got.map((g) => g.type), ['withdrawal.filled', 'withdrawal.filled', 'withdrawal.filled', 'withdrawal.settled']);
  const versionOf = (id: string) => r.events.find((e: any) => e.id === id).version;
  assert.equal(got.map((g) => versionOf(g.eventId)), [6, 2, 4, 7]);
  assert.equal(got.map((g) => g.data.fill?.leg_ref ?? null), ['leg_test_3', 'leg_test_1', 'leg_test_2', null], 'each withdrawal.filled names its fill, as production does');
  // A consumer that validates payloads against the OpenAPI schema accepts the test's orders, as production's.
  for (const g of got) assert.equal(componentErrors('WithdrawalOrder', g.data.object), [], `${g.type} v${versionOf(g.eventId)}`);
  assert.equal(r.events.map((e: any) => [e.type, e.version]), [['withdrawal.created', 0], ['withdrawal.matched', 1], ['withdrawal.filled', 2], ['withdrawal.matched', 3],
    ['withdrawal.filled', 4], ['withdrawal.matched', 5], ['withdrawal.filled', 6], ['withdrawal.settled', 7]], 'created at 0, a match before each fill, settled after the last, as production');
  assert.equal(got.map((g) => g.answer.outcome), ['applied', 'stale', 'stale', 'applied']);
  const stored = consumer.object(r.object_id)!;
  assert.is(stored.version, 7);
  assert.is(stored.status, 'settled');
  assert.is(stored.data.remaining_minor, 0);
  assert.is(stored.data.livemode, false, 'the sandbox test withdrawal says it is sandbox');
  assert.is(stored.data.filled_minor, stored.data.amount_total_minor);
  for (const id of [stored.data.reserved_balance_transaction_id, ...(stored.data.fills as any[]).map((f) => f.balance_transaction_id), ...got.flatMap((g) => g.data.fill ? [g.data.fill.balance_transaction_id] : [])]) {
    assert.match(id, /^sbxbtxn_l_/, 'a sandbox balance transaction id');
  }
});

test('the route: sandbox keys only, a case is required, the answer is idempotent', async () => {
  const live = await s.call(shop.live.api_key, 'POST', '/v1/test/webhooks/replay-out-of-order', { case: 'A' });
  assert.is(live.status, 403);
  const bad = await s.call(shop.sandbox.api_key, 'POST', '/v1/test/webhooks/replay-out-of-order', { case: 'D' });
  assert.is(bad.status, 422);
  const first = await s.call(shop.sandbox.api_key, 'POST', '/v1/test/webhooks/replay-out-of-order', { case: 'B' }, { idempotencyKey: 'ooo-1' });
  const again = await s.call(shop.sandbox.api_key, 'POST', '/v1/test/webhooks/replay-out-of-order', { case: 'B' }, { idempotencyKey: 'ooo-1' });
  assert.is(again.status, 202);
  assert.is(again.headers.get('idempotent-replay'), 'true');
  assert.is(again.json.object_id, first.json.object_id);
  await advance(s, 3 * second);
});

test('the reference consumer: 200 to a duplicate; 401 on a bad signature; 400 on a wrong event id, mode or old timestamp', async () => {
  const delivered = (await s.bo('GET', `/v1/bo/webhooks/${endpointId}/deliveries?status=delivered&limit=1`)).json.data[0];
  const from = answers.length;
  const resent = await s.bo('POST', `/v1/bo/webhooks/${endpointId}/deliveries/${delivered.id}/resend`, {}, { stepUp: true });
  assert.is(resent.status, 201);
  await advance(s, 0);
  assert.equal(answers.slice(from).map((a) => [a.answer.status, a.answer.outcome]), [[200, 'duplicate']]);

  const sample = receiver.received.at(-1)!;
  const headers = { ...sample.headers };
  const tampered = Buffer.from(sample.body.toString('utf8').replace('"object":"event"', '"object":"evenT"'));
  assert.is((await consumer.handle(headers, tampered)).status, 401);
  assert.is((await consumer.handle({ ...headers, 'x-pg-event-id': 'evt_other' }, sample.body)).status, 401, 'the event id is signed too');
  const liveConsumer = new WebhookConsumer({ signingKeysUrl: `${s.url}/v1/webhooks/signing-keys`, livemode: true, db: ':memory:', now: () => s.securityClock.now() });
  assert.equal(await liveConsumer.handle(headers, sample.body), { status: 400, outcome: 'rejected', reason: 'livemode mismatch' });
  s.securityClock.advance(301 * second); // the receiver's real clock, which the signature's t is held to
  assert.is((await consumer.handle(headers, sample.body)).status, 400, 'more than 300 s old');
});

test.run();
