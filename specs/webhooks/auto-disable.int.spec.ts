// Auto-disable (contract: Delivery rules) on the manual clock: an endpoint that fails
// every delivery is warned about at 6 h and 12 h of down-time (a log line and a mail
// to the technical contact), is still enabled just before 24 h, and is disabled at 24 h
// (≥ 50 failures, 0 successes): its queued deliveries are canceled and
// webhook.endpoint.disabled reaches the merchant's other endpoint even though that one
// subscribes to something else (a mandatory event). When the disabled endpoint was the
// merchant's only one, the mandatory events are mailed instead. A success in between
// restarts the down-time.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestServer } from '../support/server-harness.ts';
import { addEndpoint, advance, deliveries, hour, minute, Receiver, startServer } from './support.ts';
import { webhookLimits } from '../../core/limits.ts';

let s: TestServer;
let wl: string;

test.before(async () => {
  s = await startServer();
  wl = (await s.bo('POST', '/v1/bo/white-labels', { name: 'Brand' })).json.id;
});
test.after(async () => { await s.stop(); await Receiver.stopAll(); });

async function merchant(name: string): Promise<string> {
  const r = await s.bo('POST', '/v1/bo/merchants', { white_label_id: wl, name, technical_contact_email: `tech@${name.toLowerCase()}.example` });
  return r.json.id;
}

async function fundTimes(merchantId: string, n: number, direction: 'credit' | 'debit' = 'credit'): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await s.bo('POST', `/v1/bo/merchants/${merchantId}/adjustments`, { livemode: true, amount_minor: 100, direction, bucket: 'available', reason: 'funding' }, { stepUp: true });
    assert.is(r.status, 201, r.text);
  }
}

const mails = (merchantId: string) => s.running.store.db.prepare<[string], { kind: string; to_address: string | null; subject: string; body: string }>(
  'SELECT kind, to_address, subject, body FROM email_outbox WHERE merchant_id = ? ORDER BY created_at, id').all(merchantId);

const endpoint = async (id: string) => (await s.bo('GET', `/v1/bo/webhooks/${id}`)).json;

test('warnings at 6 h and 12 h, disabled at 24 h: queued deliveries canceled, webhook.endpoint.disabled to the other endpoint', async () => {
  const failing = await Receiver.start(() => s.clock.now());
  failing.answer(503);
  const healthy = await Receiver.start(() => s.clock.now());
  const m = await merchant('Shop');
  const failingId = await addEndpoint(s, m, failing.url);
  await addEndpoint(s, m, healthy.url, true, ['deposit.settled']);
  const started = s.clock.now();
  await fundTimes(m, 50);
  await advance(s, 0);
  assert.is(failing.received.length, 50);
  assert.is(healthy.received.length, 0, 'not subscribed to balance.credited');
  assert.is((await endpoint(failingId)).failing_since, new Date(started).toISOString());
  assert.is((await endpoint(failingId)).version, 0, 'failures are health, not a change of the endpoint: version 0 as created');

  await advance(s, 6 * hour - minute);
  assert.equal(mails(m).map((x) => x.kind), []);
  await advance(s, minute);
  assert.equal(mails(m).map((x) => x.kind), ['endpoint_downtime_warning'], 'warned at 6 h');
  assert.is(mails(m)[0]!.to_address, 'tech@shop.example');
  await advance(s, 6 * hour);
  assert.equal(mails(m).map((x) => x.kind), ['endpoint_downtime_warning', 'endpoint_downtime_warning'], 'warned at 12 h');
  assert.match(mails(m)[1]!.subject, /12 hours/);
  // Thai first for the merchant's staff, then English.
  assert.match(mails(m)[1]!.body, /^การส่ง webhook ไปยัง .* ล้มเหลวตั้งแต่ [\s\S]*\n\nDeliveries to /);
  // The endpoint by its id and its URL's host: a mail is kept in journal.db, where a URL's path (a provider's secret) is sealed only.
  const shownUrl = `${new URL(failing.url).origin}/[redacted]`;
  assert.ok(mails(m).every((x) => x.body.includes(`${shownUrl} (${failingId}`) && !x.body.includes(failing.url)), mails(m)[0]!.body);

  await advance(s, 12 * hour - minute);
  assert.is((await endpoint(failingId)).status, 'enabled', 'not yet 24 h');
  await advance(s, minute);
  const disabled = await endpoint(failingId);
  assert.is(disabled.status, 'disabled');
  assert.is(disabled.disabled_reason, 'auto_disabled');
  assert.is(disabled.disabled_at, new Date(started + 24 * hour).toISOString());
  assert.ok(disabled.failed_attempts_since_last_success >= 50);
  const records = await deliveries(s, failingId);
  assert.is(records.length, 50);
  assert.ok(records.every((d) => d.status === 'canceled' && d.next_retry_at === null), 'queued deliveries canceled');
  assert.is(mails(m).at(-1)!.kind, 'endpoint_disabled');

  assert.is(healthy.received.length, 1);
  const event = JSON.parse(healthy.received[0]!.body.toString('utf8'));
  assert.is(event.type, 'webhook.endpoint.disabled');
  assert.is(event.data.object.id, failingId);
  assert.is(event.data.object.status, 'disabled');
  assert.is(event.data.object.url, shownUrl, 'the event names its host, not its path');
  // The endpoint's version, as other objects carry theirs: the event's is GET's, and previous_attributes has the one before.
  assert.is(disabled.version, 1);
  assert.is(event.data.object.version, disabled.version);
  assert.equal(event.data.previous_attributes, { status: 'enabled', disabled_at: null, disabled_reason: null, version: 0 });
  assert.not.ok(mails(m).at(-1)!.body.includes(failing.url));
  assert.is(event.livemode, true);
  const seen = failing.received.length;
  await fundTimes(m, 1);
  await advance(s, hour);
  assert.is(failing.received.length, seen, 'a disabled endpoint gets no new deliveries');

  const reenabled = await s.bo('POST', `/v1/bo/webhooks/${failingId}/enable`, {});
  assert.is(reenabled.status, 200, reenabled.text);
  assert.is(reenabled.json.status, 'enabled');
  assert.is(reenabled.json.failing_since, null);
  assert.is(reenabled.json.version, 2, 're-enabling is a change: the next version');
});

test('the only endpoint disabled: the mandatory events go to the technical contact by mail', async () => {
  const failing = await Receiver.start(() => s.clock.now());
  failing.answer(500);
  const m = await merchant('Solo');
  const id = await addEndpoint(s, m, failing.url);
  await fundTimes(m, 50);
  await advance(s, 25 * hour);
  assert.is((await endpoint(id)).status, 'disabled');
  assert.equal(mails(m).map((x) => x.kind), ['endpoint_downtime_warning', 'endpoint_downtime_warning', 'endpoint_disabled', 'mandatory_event']);
  assert.match(mails(m).at(-1)!.body, /"type":"webhook\.endpoint\.disabled"/);
  assert.ok(mails(m).at(-1)!.body.includes(`"url":"${new URL(failing.url).origin}/[redacted]"`), 'the mailed event names its host, not its path');
  await fundTimes(m, 1, 'debit'); // balance.debited: mandatory
  await fundTimes(m, 1, 'credit'); // balance.credited: not mandatory, not mailed
  await advance(s, 0);
  const kinds = mails(m).map((x) => x.kind);
  assert.is(kinds.length, 5);
  assert.match(mails(m).at(-1)!.body, /"type":"balance\.debited"/);
});

test('a success restarts the down-time: no disable at 24 h after the first failure', async () => {
  const flaky = await Receiver.start(() => s.clock.now());
  flaky.answer(500);
  const m = await merchant('Flaky');
  const id = await addEndpoint(s, m, flaky.url);
  await fundTimes(m, 50);
  await advance(s, 20 * hour);
  flaky.answer(204);
  await fundTimes(m, 1);
  await advance(s, 0);
  assert.is((await endpoint(id)).failing_since, null, 'the success ended the down-time');
  flaky.answer(500);
  await advance(s, 10 * hour);
  assert.is((await endpoint(id)).status, 'enabled');
});

test("a merchant reads its own endpoints in its key's mode: a disabled one says so, with its health; another merchant's are not there", async () => {
  const failing = await Receiver.start(() => s.clock.now());
  failing.answer(500);
  const own = await s.onboard('Reads its endpoints', wl);
  const other = await s.onboard('Someone else', wl);
  const live = await addEndpoint(s, own.id, failing.url);
  const sandbox = await addEndpoint(s, own.id, `${failing.url}sandbox`, false);
  await addEndpoint(s, other.id, failing.url);
  await fundTimes(own.id, 50);
  await advance(s, 25 * hour);
  const seen = await s.call(own.live.api_key, 'GET', '/v1/pay/webhook-endpoints');
  assert.is(seen.status, 200, seen.text);
  assert.equal(seen.json.data.map((e: any) => [e.id, e.status, e.disabled_reason !== null, e.failed_attempts_since_last_success >= 50]), [[live, 'disabled', true, true]]);
  assert.is(seen.json.data[0].version, 1, 'the version webhook.endpoint.disabled carried');
  assert.equal((await s.call(own.sandbox.api_key, 'GET', '/v1/pay/webhook-endpoints')).json.data.map((e: any) => e.id), [sandbox], "the sandbox key sees the sandbox's");
  assert.ok(!(await s.call(other.live.api_key, 'GET', '/v1/pay/webhook-endpoints')).json.data.some((e: any) => e.id === live), "another merchant's are not there");
  assert.is((await s.call(own.live.api_key, 'GET', '/v1/pay/webhook-endpoints?limit=5')).status, 422, 'no parameters');
});

test('the cap counts enabled endpoints: a merchant at 16 disables one to add another (the disabled one keeps its history), and enables it again only with a slot free', async () => {
  const m = await s.onboard('Sixteen endpoints', wl);
  const ids: string[] = [];
  for (let i = 0; i < webhookLimits.endpointsPerMerchantMax; i++) ids.push(await addEndpoint(s, m.id, `http://127.0.0.1:9/hook-${i}`));
  const seventeenth = await s.bo('POST', `/v1/bo/merchants/${m.id}/webhook-endpoints`, { url: 'http://127.0.0.1:9/new-home', livemode: true });
  assert.equal([seventeenth.status, seventeenth.json.error.code], [409, 'operation_not_allowed']);
  assert.match(seventeenth.json.error.message, /16 enabled webhook endpoints; disable one/);
  assert.is((await s.bo('POST', `/v1/bo/webhooks/${ids[0]}/disable`, {})).status, 200);
  const moved = await s.bo('POST', `/v1/bo/merchants/${m.id}/webhook-endpoints`, { url: 'http://127.0.0.1:9/new-home', livemode: true });
  assert.is(moved.status, 201, moved.text);
  const back = await s.bo('POST', `/v1/bo/webhooks/${ids[0]}/enable`, {});
  assert.equal([back.status, back.json.error?.code], [409, 'operation_not_allowed'], 'no slot free');
  assert.is((await s.bo('POST', `/v1/bo/webhooks/${moved.json.id}/disable`, {})).status, 200);
  assert.is((await s.bo('POST', `/v1/bo/webhooks/${ids[0]}/enable`, {})).status, 200, 'a slot freed: enabled again');
});

test.run();
