// The events feed is the merchant's reconciliation source: events the webhook service
// emits outside the journal (webhook.key.rotating here) take the merchant's sequence
// too, so the feed must list them between the journal's events, with no gap; a merchant
// with no endpoint finds the notice in its feed all the same.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { MerchantKeys } from '../support/server-harness.ts';
import { addEndpoint, advance, emitEvent, Receiver, startServer } from './support.ts';
import type { TestServer } from '../support/server-harness.ts';

let s: TestServer;
let shop: MerchantKeys;
let receiver: Receiver;
/** A merchant with no endpoint: it reads the feed alone. */
let quiet: MerchantKeys;

test.before(async () => {
  s = await startServer();
  shop = await s.onboard('Shop');
  receiver = await Receiver.start(() => s.clock.now());
  await addEndpoint(s, shop.id, receiver.url);
  quiet = await s.onboard('Reads the feed only');
});
test.after(async () => { await receiver.stop(); await s.stop(); });

test('a key rotation notice sits in the feed between journal events, sequences without gaps', async () => {
  await emitEvent(s, shop);
  const rotated = await s.bo('POST', '/v1/bo/webhooks/signing-keys/rotate', {}, { stepUp: true });
  assert.is(rotated.status, 201, rotated.text);
  await emitEvent(s, shop);
  await advance(s, 1000);
  const feed = await s.call(shop.live.api_key, 'GET', '/v1/pay/events?since_sequence=0&limit=200');
  assert.is(feed.status, 200, feed.text);
  const types = feed.json.data.map((e: { type: string }) => e.type);
  assert.ok(types.includes('webhook.key.rotating'), `the rotation notice is in the feed (${types.join(', ')})`);
  const sequences = feed.json.data.map((e: { sequence: number }) => e.sequence);
  assert.equal(sequences, sequences.map((_: number, i: number) => i + 1), 'sequences 1..n, no gap');
  assert.is(feed.json.next_sequence, sequences[sequences.length - 1]);

  // Paging one by one returns the same events, each exactly once.
  const paged: number[] = [];
  let since = 0;
  for (let i = 0; i < 50; i++) {
    const page = await s.call(shop.live.api_key, 'GET', `/v1/pay/events?since_sequence=${since}&limit=1`);
    paged.push(...page.json.data.map((e: { sequence: number }) => e.sequence));
    since = page.json.next_sequence;
    if (!page.json.has_more) break;
  }
  assert.equal(paged, sequences);

  // A merchant with no endpoint is told of the next key in its feed too (live: not in its sandbox feed).
  const quietFeed = await s.call(quiet.live.api_key, 'GET', '/v1/pay/events?since_sequence=0');
  const notices = quietFeed.json.data.filter((e: { type: string }) => e.type === 'webhook.key.rotating');
  assert.equal(notices.map((e: any) => [e.data.object.kid, e.data.object.status, e.livemode, e.sequence]), [[rotated.json.kid, 'next', true, 1]], quietFeed.text);
  const quietSandbox = await s.call(quiet.sandbox.api_key, 'GET', '/v1/pay/events?since_sequence=0');
  assert.not.ok(quietSandbox.json.data.some((e: { type: string }) => e.type === 'webhook.key.rotating'), quietSandbox.text);
});


test.run();
