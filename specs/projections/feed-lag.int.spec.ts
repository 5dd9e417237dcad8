// The events feed while its projection lags (SATANG_NATS_URL set, no projector running yet:
// NATS down or a projector behind looks the same to the API). The service's own events
// (webhook.key.rotating here) are read from journal.db at once and take the merchant's
// next sequence; the journal's events below them reach the feed only through the
// projection. A page must not step over a sequence that is not there yet: a reconciliation
// job that reads from the last next_sequence it was given would never see the events the
// projection adds below it. Found by an on-call test with nats-server stopped: the feed
// answered [2739 webhook.key.rotating] next_sequence 2739 while 2735–2738 were on their way.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildProcess } from 'node:child_process';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { NatsServer } from '../support/nats.ts';
import { satang, waitForProjections } from '../support/projections.ts';

let nats: NatsServer;
let s: TestServer;
let projector: ChildProcess | null = null;
let shop: MerchantKeys;

test.before(async () => {
  nats = await NatsServer.start();
  s = await TestServer.start({ SATANG_NATS_URL: nats.url });
  shop = await s.onboard('Shop');
});

test.after(async () => {
  if (projector) {
    const exited = new Promise((r) => projector!.once('exit', r));
    projector.kill('SIGTERM');
    await exited;
  }
  await s.stop();
  await nats.remove();
});

async function feed(since: number): Promise<{ sequences: number[]; types: string[]; next: number; hasMore: boolean }> {
  const r = await s.call(shop.live.api_key, 'GET', `/v1/pay/events?since_sequence=${since}&limit=200`);
  assert.is(r.status, 200, r.text);
  return { sequences: r.json.data.map((e: { sequence: number }) => e.sequence), types: r.json.data.map((e: { type: string }) => e.type), next: r.json.next_sequence, hasMore: r.json.has_more };
}

test('a page ends before a sequence the lagging projection has not applied; next_sequence never passes it', async () => {
  await s.fund(shop.id, 500_000); // journal: balance.credited, sequence 1 — not projected (no projector)
  const rotated = await s.bo('POST', '/v1/bo/webhooks/signing-keys/rotate', {}, { stepUp: true });
  assert.is(rotated.status, 201, rotated.text); // service event: webhook.key.rotating, sequence 2, in journal.db at once

  const lagging = await feed(0);
  assert.equal(lagging.sequences, [], `nothing past the missing sequence 1 (${lagging.types.join(', ')})`);
  assert.is(lagging.next, 0, 'next_sequence stays where the reader is');
  assert.is(lagging.hasMore, false);

  projector = satang(['projector', '--data-dir', s.dataDir, '--nats', nats.url]);
  await waitForProjections(s.dataDir, s.running.store.world.lastSeq);

  // A reader that kept the next_sequence it was given gets everything, in order, once.
  const caughtUp = await feed(lagging.next);
  assert.equal(caughtUp.sequences, [1, 2]);
  assert.equal(caughtUp.types, ['balance.credited', 'webhook.key.rotating']);
  assert.is(caughtUp.next, 2);
  assert.equal((await feed(caughtUp.next)).sequences, []);
});

test.run();
