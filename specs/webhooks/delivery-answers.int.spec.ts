// What a receiver's answer makes of a delivery (contract: Delivery rules), against a real
// local receiver on the manual clock: "Success: HTTP 200, 201, 202 or 204 only" — any other
// 2xx (203, 205, 206, 299) is a failure, recorded and retried like a 500; and "Response body
// retained: up to 8 KB" — the excerpt kept is at most 8,192 bytes of UTF-8 whatever the
// answer holds: never a character cut in half at the limit (it decoded as U+FFFD and took the
// excerpt past 8 KB), nor undecodable bytes grown threefold into U+FFFDs past it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { webhookLimits } from '../../core/limits.ts';
import type { MerchantKeys, TestServer } from '../support/server-harness.ts';
import { addEndpoint, advance, deliveries, emitEvent, Receiver, second, startServer } from './support.ts';

let s: TestServer;
let shop: MerchantKeys;

test.before(async () => {
  s = await startServer();
  shop = await s.onboard('Answers');
});
test.after(async () => { await s.stop(); await Receiver.stopAll(); });

test('only 200, 201, 202 and 204 deliver; another 2xx is a failure and is retried', async () => {
  const receiver = await Receiver.start(() => s.clock.now());
  const endpointId = await addEndpoint(s, shop.id, receiver.url);
  const outcomes: [number, string, number, string | null][] = [];
  for (const status of [200, 201, 202, 204, 203, 205, 206, 299]) {
    receiver.answer(status);
    await emitEvent(s, shop);
    await advance(s, second);
    const [d] = await deliveries(s, endpointId);
    outcomes.push([status, d.status, d.response_status, d.error]);
  }
  assert.equal(outcomes, [
    [200, 'delivered', 200, null], [201, 'delivered', 201, null], [202, 'delivered', 202, null], [204, 'delivered', 204, null],
    [203, 'pending', 203, 'http_203'], [205, 'pending', 205, 'http_205'], [206, 'pending', 206, 'http_206'], [299, 'pending', 299, 'http_299'],
  ]);
  const sent = receiver.received.length;
  receiver.answer(204);
  await advance(s, 15 * second);
  assert.is(receiver.received.length, sent + 4, 'each of the four is tried again 10 s on');
  assert.ok((await deliveries(s, endpointId)).every((d) => d.status === 'delivered'));
  await receiver.stop();
});

test('the answer kept is at most 8 KB of UTF-8, cut between characters', async () => {
  const receiver = await Receiver.start(() => s.clock.now());
  const other = await s.onboard('Long answers', shop.whiteLabelId);
  const endpointId = await addEndpoint(s, other.id, receiver.url);
  const kept: string[] = [];
  for (const body of [Buffer.from('x'.repeat(20_000)), Buffer.from('ก'.repeat(5_000)), Buffer.alloc(20_000, 0xff)]) {
    receiver.handler = (_r, res) => { res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }); res.end(body); };
    await emitEvent(s, other);
    await advance(s, second);
    kept.push((await deliveries(s, endpointId))[0].response_body_excerpt);
  }
  const max = webhookLimits.responseExcerptBytesMax;
  assert.is(kept[0], 'x'.repeat(max), 'ASCII: the first 8,192 bytes');
  assert.is(kept[1], 'ก'.repeat(Math.floor(max / 3)), 'Thai (3 bytes a letter): the whole letters that fit, no U+FFFD for the one cut');
  assert.ok(kept.every((k) => Buffer.byteLength(k, 'utf8') <= max), `each at most ${max} bytes: ${kept.map((k) => Buffer.byteLength(k, 'utf8')).join(', ')}`);
  await receiver.stop();
});

test.run();
