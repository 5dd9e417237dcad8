// An endpoint deleted for good (DELETE /v1/bo/webhooks/{id}), against real local receivers
// on the manual clock: an enabled endpoint is refused (disable it first); a disabled one is
// deleted — out of the operator's and the merchant's lists, never delivered to again, its
// deliveries still readable, every later change refused; the merchant whose endpoints are all
// deleted hears its mandatory events by mail; a retried DELETE with its key is a replay.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import type { TestServer } from '../support/server-harness.ts';
import { addEndpoint, advance, emitEvent, Receiver, second, startServer } from './support.ts';

let s: TestServer;

test.before(async () => { s = await startServer(); });
test.after(async () => { await s.stop(); await Receiver.stopAll(); });

test('an enabled endpoint is not deleted; a disabled one is, for good, its deliveries kept; the merchant then hears mandatory events by mail', async () => {
  const receiver = await Receiver.start(() => s.clock.now());
  const m = await s.onboard('Leaving');
  const id = await addEndpoint(s, m.id, receiver.url);
  await emitEvent(s, m);
  await advance(s, second);
  assert.is(receiver.received.length, 1);

  const enabled = await s.bo('DELETE', `/v1/bo/webhooks/${id}`);
  assert.is(enabled.status, 409, enabled.text);
  assert.is(enabled.json.error.code, 'operation_not_allowed');
  assert.match(enabled.json.error.message, /Disable the endpoint first/);
  assert.is((await s.bo('GET', `/v1/bo/webhooks/${id}`)).json.status, 'enabled', 'the refusal left it as it was');
  assert.is((await s.bo('DELETE', `/v1/bo/webhooks/${id}`, undefined, { roles: ['support'] })).status, 403, "support's token may not");

  assert.is((await s.bo('POST', `/v1/bo/webhooks/${id}/disable`, {})).status, 200);
  const key = randomUUID();
  const deleted = await s.bo('DELETE', `/v1/bo/webhooks/${id}`, undefined, { idempotencyKey: key });
  assert.is(deleted.status, 200, deleted.text);
  assert.equal([deleted.json.id, deleted.json.status, deleted.json.deleted, deleted.json.deleted_at], [id, 'deleted', true, new Date(s.clock.now()).toISOString()]);
  const replayed = await s.bo('DELETE', `/v1/bo/webhooks/${id}`, undefined, { idempotencyKey: key });
  assert.equal([replayed.status, replayed.headers.get('idempotent-replay'), replayed.text], [200, 'true', deleted.text]);

  assert.equal((await s.bo('GET', `/v1/bo/merchants/${m.id}/webhook-endpoints`)).json.data, [], "out of the operator's list");
  assert.equal((await s.call(m.live.api_key, 'GET', '/v1/pay/webhook-endpoints')).json.data, [], "and the merchant's");
  assert.is((await s.bo('GET', `/v1/bo/webhooks/${id}`)).json.status, 'deleted', 'still there by its id, for the record');
  const kept = await s.bo('GET', `/v1/bo/webhooks/${id}/deliveries`);
  assert.equal(kept.json.data.map((d: any) => d.status), ['delivered'], 'its deliveries readable');

  for (const [method, path, body] of [
    ['POST', `/v1/bo/webhooks/${id}/enable`, {}], ['POST', `/v1/bo/webhooks/${id}`, { url: receiver.url }], ['DELETE', `/v1/bo/webhooks/${id}`, undefined],
    ['POST', `/v1/bo/webhooks/${id}/replay`, { created_after: new Date(0).toISOString(), created_before: new Date(s.clock.now()).toISOString() }],
  ] as const) {
    const refused = await s.bo(method, path, body, { stepUp: true });
    assert.equal([method, path, refused.status, refused.json.error.code], [method, path, 409, 'operation_not_allowed']);
    assert.match(refused.json.error.message, /deleted/);
  }

  // Never delivered to again; a mandatory event (balance.debited) goes by mail instead.
  await emitEvent(s, m);
  const debit = await s.bo('POST', `/v1/bo/merchants/${m.id}/adjustments`, { livemode: true, amount_minor: 5_000, direction: 'debit', bucket: 'available', reason: 'chargeback fee' }, { stepUp: true });
  assert.is(debit.status, 201, debit.text);
  await advance(s, 10 * second);
  assert.is(receiver.received.length, 1, 'nothing more to the deleted endpoint');
  const mailed = s.running.store.db.prepare<[string], { kind: string; subject: string }>('SELECT kind, subject FROM email_outbox WHERE merchant_id = ?').all(m.id);
  assert.equal(mailed.map((x) => [x.kind, x.subject]), [['mandatory_event', '[satang] balance.debited (live): your webhook endpoint is deleted']]);

  // The slot is free: a new endpoint can be registered and receives from then on.
  const next = await Receiver.start(() => s.clock.now());
  await addEndpoint(s, m.id, next.url);
  await emitEvent(s, m);
  await advance(s, second);
  assert.is(next.received.length, 1);
});

test('a merchant who never had an endpoint is not mailed: it reads the events feed', async () => {
  const m = await s.onboard('Feed reader');
  await emitEvent(s, m);
  const debit = await s.bo('POST', `/v1/bo/merchants/${m.id}/adjustments`, { livemode: true, amount_minor: 5_000, direction: 'debit', bucket: 'available', reason: 'chargeback fee' }, { stepUp: true });
  assert.is(debit.status, 201, debit.text);
  await advance(s, second);
  assert.is(s.running.store.db.prepare('SELECT COUNT(*) FROM email_outbox WHERE merchant_id = ?').pluck(true).get(m.id), 0);
});

test.run();
