// The dispatcher's slots are shared fairly (tenancy audit: one merchant's sandbox receivers
// that never answer held every slot, and another merchant's live webhook waited 60 s). Real
// receivers on their own ports (the HTTP agent's per-host pool is not what limits here),
// deadlines stretched so that a hanging request holds its slot for 5 s: each merchant holds
// at most inFlightDeliveriesPerMerchantMax requests per mode, the sandbox at most
// inFlightSandboxDeliveriesMax in all, and a live delivery of another merchant goes out at once.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { webhookLimits } from '../../core/limits.ts';
import type { TestServer } from '../support/server-harness.ts';
import { addEndpoint, Receiver, startServer, until } from './support.ts';

let s: TestServer;

test.before(async () => {
  s = await startServer({ SATANG_WEBHOOK_TIMEOUTS_MS: '1000,5000,6000' });
});
test.after(async () => { await Receiver.stopAll(); await s.stop(); });

test('merchants whose sandbox receivers hang hold only their share of the slots; another merchant\'s live webhook goes out at once', async () => {
  const perMerchant = webhookLimits.inFlightDeliveriesPerMerchantMax;
  const sandboxMax = webhookLimits.inFlightSandboxDeliveriesMax;
  // Three merchants, each with more due sandbox deliveries than its share: together more than the sandbox's.
  const hungBy = new Map<string, Receiver[]>();
  const first = await s.onboard('Hanging 1');
  const merchants = [first, await s.onboard('Hanging 2', first.whiteLabelId), await s.onboard('Hanging 3')];
  assert.ok(merchants.length * perMerchant > sandboxMax, 'the scene asks for more than the sandbox share');
  for (const m of merchants) {
    const receivers: Receiver[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await Receiver.start(() => s.clock.now());
      r.handler = () => { /* never answers: the request holds its slot until the first-byte deadline */ };
      await addEndpoint(s, m.id, r.url, false);
      receivers.push(r);
    }
    hungBy.set(m.id, receivers);
  }
  const eventsEach = perMerchant; // × 2 endpoints: twice the merchant's share
  for (let i = 0; i < eventsEach; i++) for (const m of merchants) await s.fund(m.id, 100 + i, false);
  const open = (m: string) => hungBy.get(m)!.reduce((n, r) => n + r.received.length, 0);
  const openInAll = () => merchants.reduce((n, m) => n + open(m.id), 0);
  await until(() => openInAll() >= sandboxMax, 5000);

  // A merchant with a live receiver that answers: its event goes out while the others hang.
  const shop = await s.onboard('Live shop', first.whiteLabelId);
  const live = await Receiver.start(() => s.clock.now());
  await addEndpoint(s, shop.id, live.url, true);
  const sent = performance.now();
  await s.fund(shop.id, 10_000, true);
  await until(() => live.received.length >= 1, 3000);
  const tookMs = performance.now() - sent;
  assert.ok(tookMs < 2500, `the live webhook took ${Math.round(tookMs)} ms behind the hanging sandbox receivers`);

  await new Promise((resolve) => setTimeout(resolve, 300)); // a few more pumps: nothing more may be claimed
  for (const m of merchants) assert.ok(open(m.id) <= perMerchant, `${m.id} holds ${open(m.id)} requests, its share is ${perMerchant}`);
  assert.is(openInAll(), sandboxMax, 'the sandbox holds its share, no more');
});

test.run();
