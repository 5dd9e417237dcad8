// An endpoint changed in place (POST /v1/bo/webhooks/{id}), against real local receivers on
// the manual clock: a delivery queued for a failing URL goes to the new URL at its next
// attempt under the same delivery id, and the health and 410 flag start afresh; a new
// subscription decides which events are delivered from then on; the URL is stored as the
// WHATWG parser writes it; a refused change (empty body, unknown type, bad URL, support's
// token) leaves the endpoint as it was; re-enabling clears a 410's flag.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { MerchantKeys, TestServer } from '../support/server-harness.ts';
import { addEndpoint, advance, deliveries, emitEvent, goneEndpoint, hour, Receiver, second, startServer } from './support.ts';

let s: TestServer;
let shop: MerchantKeys;

test.before(async () => {
  s = await startServer();
  shop = await s.onboard('Shop');
});
test.after(async () => { await s.stop(); await Receiver.stopAll(); });

const endpointOf = async (id: string) => (await s.bo('GET', `/v1/bo/webhooks/${id}`)).json;

test('a URL is stored, shown and called as the parser writes it', async () => {
  const receiver = await Receiver.start(() => s.clock.now(), '/');
  const m = await s.onboard('Case', shop.whiteLabelId);
  const typed = receiver.url.replace('http://', 'HTTP://').replace(/\/$/, ''); // HTTP://127.0.0.1:port
  const created = await s.bo('POST', `/v1/bo/merchants/${m.id}/webhook-endpoints`, { url: typed, livemode: true });
  assert.is(created.status, 201, created.text);
  assert.is(created.json.url, receiver.url, 'lower-case scheme, the empty path written "/"');
  await emitEvent(s, m);
  await advance(s, second);
  assert.is(receiver.received.length, 1);
  await receiver.stop();
});

test('a new URL: the queued delivery goes there at its next attempt, same delivery, health afresh', async () => {
  const old = await Receiver.start(() => s.clock.now());
  old.answer(500, {}, 'moved');
  const next = await Receiver.start(() => s.clock.now());
  const m = await s.onboard('Move', shop.whiteLabelId);
  const id = await addEndpoint(s, m.id, old.url);
  await emitEvent(s, m);
  await advance(s, second);
  assert.is(old.received.length, 1);
  const failing = await endpointOf(id);
  assert.type(failing.failing_since, 'string');
  assert.is(failing.failed_attempts_since_last_success, 1);

  const moved = await s.bo('POST', `/v1/bo/webhooks/${id}`, { url: next.url });
  assert.is(moved.status, 200, moved.text);
  assert.is(moved.json.id, id);
  assert.is(moved.json.url, next.url);
  assert.is(moved.json.failing_since, null, 'the old URL\'s down-time is not the new one\'s');
  assert.is(moved.json.failed_attempts_since_last_success, 0);

  await advance(s, 11 * second); // the retry, 10 s ± 10 % after the first attempt
  assert.is(old.received.length, 1, 'nothing more to the old URL');
  assert.is(next.received.length, 1);
  assert.is(next.received[0]!.headers['x-pg-delivery-id'], old.received[0]!.headers['x-pg-delivery-id']);
  assert.is(next.received[0]!.headers['x-pg-attempt'], '2');
  const [d] = await deliveries(s, id);
  assert.is(d.status, 'delivered');
  await old.stop();
  await next.stop();
});

test('a new subscription decides what is delivered from then on; null takes every type again', async () => {
  const receiver = await Receiver.start(() => s.clock.now());
  const m = await s.onboard('Subscribe', shop.whiteLabelId);
  const id = await addEndpoint(s, m.id, receiver.url);
  const narrowed = await s.bo('POST', `/v1/bo/webhooks/${id}`, { event_types: ['deposit.settled'] });
  assert.is(narrowed.status, 200, narrowed.text);
  assert.equal(narrowed.json.event_types, ['deposit.settled']);
  await emitEvent(s, m); // balance.credited: not subscribed, not mandatory
  await advance(s, second);
  assert.is(receiver.received.length, 0);

  const widened = await s.bo('POST', `/v1/bo/webhooks/${id}`, { event_types: null });
  assert.is(widened.json.event_types, null);
  await emitEvent(s, m);
  await advance(s, second);
  assert.is(receiver.received.length, 1);
  assert.is(receiver.received[0]!.headers['x-pg-event-type'], 'balance.credited');
  await receiver.stop();
});

test('one update is one version, whatever it changes; naming what the endpoint is changes none', async () => {
  const receiver = await Receiver.start(() => s.clock.now());
  const other = await Receiver.start(() => s.clock.now());
  const m = await s.onboard('Versions', shop.whiteLabelId);
  const id = await addEndpoint(s, m.id, receiver.url);
  assert.is((await endpointOf(id)).version, 0);
  const update = async (body: object) => {
    const r = await s.bo('POST', `/v1/bo/webhooks/${id}`, body);
    assert.is(r.status, 200, r.text);
    assert.is((await endpointOf(id)).version, r.json.version, 'the answer is what GET shows');
    return r.json.version as number;
  };
  assert.is(await update({ event_types: ['deposit.settled'] }), 1);
  assert.is(await update({ event_types: ['deposit.settled'] }), 1, 'the subscription it has: no change');
  assert.is(await update({ url: receiver.url, event_types: ['deposit.settled'] }), 1, 'the URL and subscription it has');
  assert.is(await update({ url: other.url }), 2);
  assert.is(await update({ url: receiver.url, event_types: null }), 3, 'a new URL and subscription in one request: one change');
  assert.is(await update({ url: other.url, event_types: null }), 4, 'a new URL, every type as before');
  assert.is(await update({ event_types: null }), 4);
  await receiver.stop();
  await other.stop();
});

test('a refused change leaves the endpoint as it was', async () => {
  const receiver = await Receiver.start(() => s.clock.now());
  const m = await s.onboard('Refused', shop.whiteLabelId);
  const id = await addEndpoint(s, m.id, receiver.url);
  const before = await endpointOf(id);
  const refusals: [unknown, number, string, object?][] = [
    [{}, 422, 'validation_error'],
    [{ event_types: ['deposit.setled'] }, 422, 'validation_error'],
    [{ url: 'ftp://example.com/hook' }, 422, 'validation_error'],
    [{ url: ` ${receiver.url}` }, 422, 'validation_error'],
    [{ url: 'https://example.com/hook', livemode: false }, 422, 'validation_error'],
    [{ url: 'https://example.com/hook' }, 403, 'scope_denied', { roles: ['support'] }],
  ];
  for (const [body, status, code, options] of refusals) {
    const r = await s.bo('POST', `/v1/bo/webhooks/${id}`, body, options);
    assert.is(r.status, status, `${JSON.stringify(body)}: ${r.text}`);
    assert.is(r.json.error.code, code);
  }
  assert.equal(await endpointOf(id), before);
  assert.is((await s.bo('POST', '/v1/bo/webhooks/whep_01JUNKNOWN000000000000000', { event_types: null })).status, 404);
  await receiver.stop();
});

test('re-enabling an endpoint clears a 410 flag', async () => {
  const { endpointId: id, receiver } = await goneEndpoint(s, shop, 'Gone again', hour);
  assert.is((await endpointOf(id)).flagged, true);
  assert.is((await s.bo('POST', `/v1/bo/webhooks/${id}/disable`, {})).status, 200);
  assert.is((await endpointOf(id)).flagged, true, 'disabling keeps the flag');
  const enabled = await s.bo('POST', `/v1/bo/webhooks/${id}/enable`, {});
  assert.is(enabled.status, 200);
  assert.is(enabled.json.flagged, false);
  assert.is(enabled.json.flag_reason, null);
  await receiver.stop();
});

test.run();
