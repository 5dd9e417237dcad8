// Resend and bulk replay from the back office (contract: Delivery rules, Back office):
// a resend sends the same event id and the same stored bytes under a fresh signature, a
// new delivery id, X-PG-Attempt 1 and X-PG-Resend: manual, with a fresh set of attempts;
// it needs a step-up token and an Idempotency-Key (a replayed key answers the same and
// sends nothing more), is limited to 10 per minute per endpoint (429 rate_limited) and
// to events at most 30 days old. A bulk replay resends a filtered range (only_failed,
// event types, time window), released at 50 per second, outside the resend quota. The
// delivery list pages with a cursor bound to its filters.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { MerchantKeys, TestServer } from '../support/server-harness.ts';
import { addEndpoint, advance, day, deliveries, emitEvent, nobleVerifies, publishedKeys, Receiver, second, startServer } from './support.ts';

let s: TestServer;
let shop: MerchantKeys;
let receiver: Receiver;
let endpointId: string;

test.before(async () => {
  s = await startServer();
  receiver = await Receiver.start(() => s.clock.now());
  shop = await s.onboard('Shop');
  endpointId = await addEndpoint(s, shop.id, receiver.url);
});
test.after(async () => { await s.stop(); await Receiver.stopAll(); });

const resend = (deliveryId: string, options: { stepUp?: boolean; idempotencyKey?: string } = { stepUp: true }) =>
  s.bo('POST', `/v1/bo/webhooks/${endpointId}/deliveries/${deliveryId}/resend`, {}, options);

test('resend: same event id and bytes, fresh signature, new delivery id, attempt 1, X-PG-Resend: manual; idempotent', async () => {
  await emitEvent(s, shop);
  await advance(s, 0);
  const original = receiver.received.at(-1)!;
  const [delivered] = await deliveries(s, endpointId);
  assert.is(delivered.status, 'delivered');
  await advance(s, 5 * second);
  s.securityClock.advance(5 * second); // the signature's timestamp is the wall clock's

  assert.is((await resend(delivered.id, {})).status, 403, 'step-up token required');
  const r = await resend(delivered.id, { stepUp: true, idempotencyKey: 'resend-1' });
  assert.is(r.status, 201, r.text);
  assert.equal(Object.keys(r.json).sort(), ['attempt', 'created_at', 'delivery_id', 'event_id', 'livemode', 'resend', 'status']);
  assert.is(r.json.livemode, delivered.livemode, "the resend says its endpoint's mode");
  assert.is(r.json.event_id, delivered.event_id);
  assert.is.not(r.json.delivery_id, delivered.id);
  assert.is(r.json.resend, true);
  await advance(s, 0);
  const again = receiver.received.at(-1)!;
  assert.is(again.headers['x-pg-event-id'], original.headers['x-pg-event-id']);
  assert.ok(again.body.equals(original.body), 'the same stored bytes');
  assert.is(again.headers['x-pg-delivery-id'], r.json.delivery_id);
  assert.is(again.headers['x-pg-attempt'], '1');
  assert.is(again.headers['x-pg-resend'], 'manual');
  assert.is.not(again.headers['x-pg-signature'], original.headers['x-pg-signature'], 'signed afresh');
  assert.ok((await nobleVerifies(again, await publishedKeys(s))).ok);

  const count = receiver.received.length;
  const replayed = await resend(delivered.id, { stepUp: true, idempotencyKey: 'resend-1' });
  assert.is(replayed.status, 201);
  assert.is(replayed.headers.get('idempotent-replay'), 'true');
  assert.is(replayed.json.delivery_id, r.json.delivery_id);
  await advance(s, 0);
  assert.is(receiver.received.length, count, 'a replayed key sends nothing more');
  const record = (await deliveries(s, endpointId)).find((d) => d.id === r.json.delivery_id);
  assert.is(record.resend, true);
  assert.is(record.status, 'delivered');
});

test('a resend to a failing receiver runs a fresh set of attempts', async () => {
  const [delivered] = await deliveries(s, endpointId, '&status=delivered');
  receiver.answer(500);
  const r = await resend(delivered.id);
  await advance(s, 11 * second);
  const sent = receiver.received.filter((x) => x.headers['x-pg-delivery-id'] === r.json.delivery_id);
  assert.equal(sent.map((x) => x.headers['x-pg-attempt']), ['1', '2']);
  assert.ok(sent.every((x) => x.headers['x-pg-resend'] === 'manual'));
  receiver.answer(204);
  await advance(s, 2 * 60 * second);
});

test('resend quota: 10 per minute per endpoint, then 429 rate_limited; a wall-clock minute later it is open again', async () => {
  s.securityClock.advance(61 * second); // the earlier tests' resends are in an older window
  const [d] = await deliveries(s, endpointId, '&status=delivered');
  for (let i = 0; i < 10; i++) assert.is((await resend(d.id)).status, 201, `resend ${i + 1}`);
  const refused = await resend(d.id);
  assert.is(refused.status, 429);
  assert.is(refused.json.error.code, 'rate_limited');
  assert.is(refused.json.error.details.bucket, 'webhook_resend');
  assert.is(refused.headers.get('ratelimit-policy'), '10;w=60');
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  const replay = await s.bo('POST', `/v1/bo/webhooks/${endpointId}/replay`, { created_after: '2020-01-01T00:00:00Z', created_before: '2100-01-01T00:00:00Z', event_types: ['balance.credited'] }, { stepUp: true });
  assert.is(replay.status, 202, 'bulk replay is outside the resend quota');
  await advance(s, 61 * second);
  assert.is((await resend(d.id)).status, 429, 'the quota is security time: moving the business clock does not reopen it');
  s.securityClock.advance(61 * second);
  assert.is((await resend(d.id)).status, 201);
});

test('nothing is resent 30 days after the event was created', async () => {
  const [d] = await deliveries(s, endpointId, '&status=delivered');
  s.securityClock.advance(61 * second); // a fresh resend window
  await advance(s, 31 * day);
  const r = await resend(d.id);
  assert.is(r.status, 409);
  assert.is(r.json.error.code, 'operation_not_allowed');
});

test('bulk replay: only the failed events of the range, released at 50 per second, each as a manual resend', async () => {
  const m = await s.onboard('Bulk', shop.whiteLabelId);
  const bulk = await Receiver.start(() => s.clock.now());
  const bulkEndpoint = await addEndpoint(s, m.id, bulk.url);
  const from = new Date(s.clock.now()).toISOString();
  bulk.answer(410); // fails for good at once: these become 'failed'
  for (let i = 0; i < 60; i++) await emitEvent(s, m);
  await advance(s, 0);
  bulk.answer(204);
  for (let i = 0; i < 5; i++) await emitEvent(s, m);
  await advance(s, second);
  assert.is(bulk.received.length, 65);
  assert.is((await deliveries(s, bulkEndpoint, '&status=failed')).length, 60);

  // A window wholly older than the 30 days events are replayed within: said, not scheduled empty.
  const day = 86_400_000;
  const stale = await s.bo('POST', `/v1/bo/webhooks/${bulkEndpoint}/replay`,
    { created_after: new Date(s.clock.now() - 62 * day).toISOString(), created_before: new Date(s.clock.now() - 31 * day).toISOString() }, { stepUp: true });
  assert.equal([stale.status, stale.json.error?.details?.fields?.[0]?.path], [422, 'created_before'], stale.text);
  assert.match(stale.json.error.message, /within 30 days/);

  const before = bulk.received.length;
  const r = await s.bo('POST', `/v1/bo/webhooks/${bulkEndpoint}/replay`,
    { event_types: [], created_after: from, created_before: new Date(s.clock.now() + 1).toISOString(), only_failed: true }, { stepUp: true });
  assert.is(r.status, 202, r.text);
  assert.is(r.json.event_count, 60);
  assert.is(r.json.has_more, false);
  assert.is(Date.parse(r.json.last_release_at) - Date.parse(r.json.first_release_at), 59 * 20, '50 per second: 20 ms apart');
  await advance(s, 0);
  assert.is(bulk.received.length - before, 1, 'released one at a time');
  await advance(s, second);
  assert.is(bulk.received.length - before, 51, '50 per second');
  await advance(s, second);
  const replayed = bulk.received.slice(before);
  assert.is(replayed.length, 60);
  assert.ok(replayed.every((x) => x.headers['x-pg-resend'] === 'manual' && x.headers['x-pg-attempt'] === '1'));
  const failedIds = new Set((await deliveries(s, bulkEndpoint, '&status=failed')).map((d) => d.event_id));
  assert.equal(new Set(replayed.map((x) => String(x.headers['x-pg-event-id']))), failedIds, 'exactly the failed events');
});

test('only_failed after an outage: the events the endpoint never received (canceled when it was disabled, or made while it was) are replayed; delivered ones are not', async () => {
  const m = await s.onboard('Outage', shop.whiteLabelId);
  const hook = await Receiver.start(() => s.clock.now());
  const endpoint = await addEndpoint(s, m.id, hook.url);
  const from = new Date(s.clock.now()).toISOString();
  await emitEvent(s, m); // delivered
  await advance(s, second);
  const delivered = hook.received.length;
  assert.ok(delivered >= 1);
  hook.answer(500);
  await emitEvent(s, m); // fails, retrying …
  await advance(s, 0);
  assert.is((await s.bo('POST', `/v1/bo/webhooks/${endpoint}/disable`, {})).status, 200); // … canceled by the disable
  await emitEvent(s, m); // made while disabled: no delivery at all
  await advance(s, second); // the fan-out passes it by while the endpoint is disabled
  assert.is(hook.received.length, delivered + 1, 'one failed attempt, nothing while disabled');
  hook.answer(204);
  assert.is((await s.bo('POST', `/v1/bo/webhooks/${endpoint}/enable`, {})).status, 200);
  const before = hook.received.length;
  const r = await s.bo('POST', `/v1/bo/webhooks/${endpoint}/replay`,
    { event_types: [], created_after: from, created_before: new Date(s.clock.now() + 1).toISOString(), only_failed: true }, { stepUp: true });
  assert.is(r.status, 202, r.text);
  assert.is(r.json.event_count, 2, 'the canceled one and the one never sent');
  await advance(s, second);
  const replayed = hook.received.slice(before).map((x) => String(x.headers['x-pg-event-id']));
  const firstDelivered = new Set(hook.received.slice(0, delivered).map((x) => String(x.headers['x-pg-event-id'])));
  assert.is(replayed.length, 2);
  assert.ok(replayed.every((id) => !firstDelivered.has(id)), 'nothing delivered before is sent again');
});

test("only_failed leaves out the events made before the endpoint, though the service clock stood still between them (a manual clock, or the same millisecond)", async () => {
  const m = await s.onboard('Late endpoint', shop.whiteLabelId);
  const from = new Date(s.clock.now()).toISOString();
  await emitEvent(s, m); // before the endpoint exists: never its to receive
  await emitEvent(s, m);
  await advance(s, 0);
  await new Promise((resolve) => setTimeout(resolve, 5)); // the ids' clock (the wall's) moves on; the service clock does not
  const hook = await Receiver.start(() => s.clock.now());
  const endpoint = await addEndpoint(s, m.id, hook.url);
  const made = (await s.bo('GET', `/v1/bo/webhooks/${endpoint}`)).json.created_at;
  assert.is(made, from, 'the endpoint was made at the very instant of the events, on the service clock');
  await emitEvent(s, m); // after it: delivered
  await advance(s, 0);
  assert.is(hook.received.length, 1);
  hook.answer(500);
  await emitEvent(s, m); // after it, at the same instant still: fails, its retry waiting
  await advance(s, 0);
  assert.is(hook.received.length, 2);
  assert.is((await s.bo('POST', `/v1/bo/webhooks/${endpoint}/disable`, {})).status, 200); // its retry canceled
  hook.answer(204);
  assert.is((await s.bo('POST', `/v1/bo/webhooks/${endpoint}/enable`, {})).status, 200);
  const r = await s.bo('POST', `/v1/bo/webhooks/${endpoint}/replay`,
    { event_types: [], created_after: from, created_before: new Date(s.clock.now() + 1).toISOString(), only_failed: true }, { stepUp: true });
  assert.is(r.status, 202, r.text);
  assert.is(r.json.event_count, 1, 'the failed one alone: not the two made before the endpoint');
  await advance(s, second);
  assert.is(String(hook.received.at(-1)!.headers['x-pg-event-id']), String(hook.received[1]!.headers['x-pg-event-id']));
});

test('the delivery list pages with a cursor bound to its filters', async () => {
  const first = await s.bo('GET', `/v1/bo/webhooks/${endpointId}/deliveries?limit=2&status=delivered`);
  assert.is(first.status, 200);
  assert.is(first.json.data.length, 2);
  assert.is(first.json.has_more, true);
  const next = await s.bo('GET', `/v1/bo/webhooks/${endpointId}/deliveries?limit=2&status=delivered&cursor=${first.json.next_cursor}`);
  assert.is(next.status, 200);
  assert.ok(next.json.data[0].id < first.json.data[1].id, 'newest first, continuing');
  const mismatch = await s.bo('GET', `/v1/bo/webhooks/${endpointId}/deliveries?limit=2&status=failed&cursor=${first.json.next_cursor}`);
  assert.is(mismatch.status, 400);
  assert.is(mismatch.json.error.code, 'cursor_filter_mismatch');
  const otherEndpoint = await addEndpoint(s, shop.id, `${receiver.url}/other`);
  const elsewhere = await s.bo('GET', `/v1/bo/webhooks/${otherEndpoint}/deliveries?limit=2&status=delivered&cursor=${first.json.next_cursor}`);
  assert.equal([elsewhere.status, elsewhere.json.error?.code], [400, 'cursor_filter_mismatch'], 'one endpoint\'s cursor does not page another\'s');
  // Another back-office list's cursor here, and this one's there: a mismatch both ways, as between every list.
  const logs = await s.bo('GET', '/v1/bo/logs?limit=1');
  const logsHere = await s.bo('GET', `/v1/bo/webhooks/${endpointId}/deliveries?limit=2&status=delivered&cursor=${logs.json.next_cursor}`);
  assert.equal([logsHere.status, logsHere.json.error?.code], [400, 'cursor_filter_mismatch'], logsHere.text);
  const deliveriesThere = await s.bo('GET', `/v1/bo/merchants?cursor=${first.json.next_cursor}`);
  assert.equal([deliveriesThere.status, deliveriesThere.json.error?.code], [400, 'cursor_filter_mismatch'], deliveriesThere.text);
  assert.is((await s.bo('GET', '/v1/bo/webhooks/whep_nope/deliveries')).status, 404);
  // A status that is none: named as every list names a query parameter, with the ones there are.
  const weird = await s.bo('GET', `/v1/bo/webhooks/${endpointId}/deliveries?status=weird`);
  assert.equal([weird.status, weird.json.error?.code, weird.json.error?.details?.fields?.[0]?.path], [422, 'validation_error', 'query.status'], weird.text);
  assert.match(weird.json.error.message, /^status is one of .*delivered/);
});

test.run();
