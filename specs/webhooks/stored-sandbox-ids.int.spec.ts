// Sandbox events a build before 9094092 stored name their balance transactions by the raw
// btxn_ id, while the sandbox's history rows (and every event stored since) name them
// sbxbtxn_l_…. Such an event leaves the service in the sandbox form all the same, every
// way it leaves: the retry of a delivery that failed before the upgrade, a manual resend,
// a bulk replay and the events feed (journal events and the webhook service's own). The
// old form is made as the old build wrote it: the stored bodies of a stopped server's data
// dir are turned back (sbxbtxn_l_X → btxn_X, the only difference), then the server starts
// on it. Live envelopes keep their btxn_ ids and their stored bytes.

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectionsFileName } from '../../projections/db.ts';
import { journalFileName } from '../../adapters/sqlite/schema.ts';
import { depositBody, TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { addEndpoint, advance, deliveries, Receiver, second, until } from './support.ts';

let s: TestServer;
let shop: MerchantKeys;
let receiver: Receiver;
let endpointId: string;
test.after(async () => { await s?.stop(); await Receiver.stopAll(); });

const bodyText = (b: Buffer) => b.toString('utf8');
const idOf = (body: string): string => JSON.parse(body).id;

/** Turns the stored sandbox bodies of a table back into the form a build before 9094092 wrote; how many rows changed. */
function storeInOldForm(file: string, table: string): number {
  const db = new Database(file);
  try {
    return db.prepare(`UPDATE ${table} SET body = replace(body, 'sbxbtxn_l_', 'btxn_') WHERE livemode = 0 AND body LIKE '%sbxbtxn_l_%'`).run().changes;
  } finally {
    db.close();
  }
}

test('sandbox events stored with raw btxn_ ids leave as sbxbtxn_l_ on retry, resend, replay and in the feed', async () => {
  s = await TestServer.start({}, undefined, { slipWorker: 'manual' });
  shop = await s.onboard('Shop');
  receiver = await Receiver.start(() => s.clock.now());
  endpointId = await addEndpoint(s, shop.id, receiver.url, false);

  // Delivered: a funding adjustment (balance.credited) and a settled 10000 deposit (its credits and deposit.settled).
  await s.fund(shop.id, 50_000, false);
  const d = await s.call(shop.sandbox.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 10_000 }));
  assert.is(d.status, 201, d.text);
  await advance(s, 5 * second);
  // The webhook service's own events: out-of-order case B (a deposit settled and reversed, its balance transactions named).
  const ooo = await s.call(shop.sandbox.api_key, 'POST', '/v1/test/webhooks/replay-out-of-order', { case: 'B' });
  assert.is(ooo.status, 202, ooo.text);
  await advance(s, 3 * second);
  // Failed once, retried after the upgrade.
  receiver.answer(500);
  await s.fund(shop.id, 7_000, false);
  await advance(s, 0);
  // A live event, whose ids are btxn_ in every build.
  await s.fund(shop.id, 3_000, true);
  await advance(s, 0);

  const sent = new Map<string, string>(); // event id → the bytes first sent (today's form)
  for (const r of receiver.received) if (!sent.has(idOf(bodyText(r.body)))) sent.set(idOf(bodyText(r.body)), bodyText(r.body));
  const settled = [...sent.values()].find((b) => JSON.parse(b).type === 'deposit.settled' && JSON.parse(b).data.object.id === d.json.id)!;
  assert.ok(settled && JSON.parse(settled).data.object.balance_transaction_id.startsWith('sbxbtxn_l_'), 'deposit.settled names its sandbox row');
  const failedBody = bodyText(receiver.received.at(-1)!.body);
  assert.is(JSON.parse(failedBody).data.object.source.type, 'adjustment');
  assert.ok(JSON.parse(failedBody).data.object.source.id.startsWith('sbxbtxn_l_'));
  const feedBefore = await s.call(shop.sandbox.api_key, 'GET', '/v1/pay/events?since_sequence=0&limit=200');
  assert.is(feedBefore.status, 200, feedBefore.text);
  const liveFeedBefore = (await s.call(shop.live.api_key, 'GET', '/v1/pay/events?since_sequence=0&limit=200')).text;
  assert.match(liveFeedBefore, /"id":"btxn_/);

  const dataDir = s.dataDir;
  await s.stop(false);
  const changed = storeInOldForm(join(dataDir, journalFileName), 'outbox') + storeInOldForm(join(dataDir, journalFileName), 'webhook_events')
    + storeInOldForm(join(dataDir, projectionsFileName), 'ev_events');
  assert.ok(changed >= 10, `the stored sandbox envelopes are in the old form (${changed} rows)`);
  s = await TestServer.start({}, dataDir, { slipWorker: 'manual' });

  // The retry of the delivery that failed before the upgrade.
  receiver.answer(204);
  const before = receiver.received.length;
  await advance(s, 60 * second);
  await until(() => receiver.received.length > before);
  const retried = receiver.received.slice(before).filter((r) => idOf(bodyText(r.body)) === idOf(failedBody));
  assert.ok(retried.length >= 1, 'the failed delivery is retried');
  for (const r of retried) assert.is(bodyText(r.body), failedBody, 'retried in the sandbox form, byte for byte as first sent');

  // A manual resend of the delivered deposit.settled.
  const delivered = (await deliveries(s, endpointId, '&status=delivered')).find((x) => x.event_id === idOf(settled));
  assert.ok(delivered, 'the deposit.settled delivery');
  const resent = await s.bo('POST', `/v1/bo/webhooks/${endpointId}/deliveries/${delivered.id}/resend`, {}, { stepUp: true });
  assert.is(resent.status, 201, resent.text);
  const beforeResend = receiver.received.length;
  await advance(s, 0);
  await until(() => receiver.received.length > beforeResend);
  assert.is(bodyText(receiver.received.at(-1)!.body), settled, 'resent in the sandbox form');

  // A bulk replay of everything the endpoint was sent.
  const from = new Date(s.clock.now() - 86_400_000).toISOString(), to = new Date(s.clock.now() + second).toISOString();
  const replay = await s.bo('POST', `/v1/bo/webhooks/${endpointId}/replay`, { created_after: from, created_before: to }, { stepUp: true });
  assert.is(replay.status, 202, replay.text);
  const beforeReplay = receiver.received.length;
  await advance(s, 10 * second);
  await until(() => receiver.received.length - beforeReplay >= replay.json.event_count);
  const replayed = receiver.received.slice(beforeReplay).map((r) => bodyText(r.body));
  assert.ok(replayed.length >= 5);
  for (const body of replayed) {
    assert.not.match(body, /"btxn_/, 'no raw id replayed');
    if (sent.has(idOf(body))) assert.is(body, sent.get(idOf(body)), 'replayed as first sent');
  }

  // The events feed: the journal's events and the service's own, as before the old form was stored.
  const feed = await s.call(shop.sandbox.api_key, 'GET', '/v1/pay/events?since_sequence=0&limit=200');
  assert.is(feed.status, 200, feed.text);
  assert.not.match(feed.text, /"btxn_/);
  assert.is(feed.text, feedBefore.text, 'the feed reads as it did');
  const feedIds = new Set(feed.json.data.map((e: any) => e.id));
  assert.ok(ooo.json.events.every((e: any) => feedIds.has(e.id)), 'the out-of-order events are in it');
  assert.is((await s.call(shop.live.api_key, 'GET', '/v1/pay/events?since_sequence=0&limit=200')).text, liveFeedBefore, 'live keeps its btxn_ ids and bytes');
});

test.run();
