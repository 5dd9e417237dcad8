// The dispatcher's slots are shared fairly (tenancy audit: one merchant's sandbox receivers
// that never answer held every slot, and another merchant's live webhook waited 60 s). Real
// receivers on their own ports (the HTTP agent's per-host pool is not what limits here),
// deadlines stretched so that a hanging request holds its slot for 20 s: each merchant holds
// at most inFlightDeliveriesPerMerchantMax requests per mode, the sandbox at most
// inFlightSandboxDeliveriesMax in all, and a live delivery of another merchant goes out at once.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { webhookLimits } from '../../core/limits.ts';
import type { TestServer } from '../support/server-harness.ts';
import { addEndpoint, Receiver, startServer, until } from './support.ts';

let s: TestServer;

test.before(async () => {
  s = await startServer({ SATANG_WEBHOOK_TIMEOUTS_MS: '1000,20000,25000' });
});
test.after(async () => { await Receiver.stopAll(); await s.stop(); });

test('merchants whose sandbox receivers hang hold only their share of the slots; another merchant\'s live webhook goes out at once', async () => {
  const perMerchant = webhookLimits.inFlightDeliveriesPerMerchantMax;
  const sandboxMax = webhookLimits.inFlightSandboxDeliveriesMax;
  // Merchants each with more due sandbox deliveries than its share: together more than the sandbox's.
  const hungBy = new Map<string, Receiver[]>();
  const first = await s.onboard('Hanging 1');
  const merchants = [first];
  while (merchants.length * perMerchant <= sandboxMax) merchants.push(await s.onboard(`Hanging ${merchants.length + 1}`, merchants.length % 2 === 0 ? undefined : first.whiteLabelId));
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
  // Hang up: the requests fail and their slots come free for the next test.
  for (const receivers of hungBy.values()) for (const r of receivers) await r.stop();
  await until(() => false, 500).catch(() => {});
});

test('however many merchants\' live receivers hang at their share, the reserved slots let another merchant\'s webhook out', async () => {
  const perMerchant = webhookLimits.inFlightDeliveriesPerMerchantMax;
  const unreserved = webhookLimits.inFlightDeliveriesMax - webhookLimits.inFlightDeliveriesReserved;
  const hanging: { id: string; receivers: Receiver[] }[] = [];
  const brand = await s.onboard('Hanging live 0');
  hanging.push({ id: brand.id, receivers: [] });
  // More than the whole pool asked for: without the reserve they would hold every slot.
  while (hanging.length * perMerchant <= webhookLimits.inFlightDeliveriesMax) hanging.push({ id: (await s.onboard(`Hanging live ${hanging.length}`, brand.whiteLabelId)).id, receivers: [] });
  for (const h of hanging) {
    for (let i = 0; i < 2; i++) {
      const r = await Receiver.start(() => s.clock.now());
      r.handler = () => { /* never answers */ };
      await addEndpoint(s, h.id, r.url, true);
      h.receivers.push(r);
    }
  }
  // Funded by an operator of their own each (an operator's bo_write quota is 600 a minute).
  const fundAs = async (merchantId: string, amount: number, sub: string) => {
    const r = await s.bo('POST', `/v1/bo/merchants/${merchantId}/adjustments`, { livemode: true, amount_minor: amount, direction: 'credit', bucket: 'available', reason: 'funding' }, { stepUp: true, sub });
    assert.is(r.status, 201, r.text);
  };
  for (let i = 0; i < perMerchant / 2; i++) for (const [k, h] of hanging.entries()) await fundAs(h.id, 100 + i, `emp_fund_${k}`);
  const open = () => hanging.reduce((n, h) => n + h.receivers.reduce((m, r) => m + r.received.length, 0), 0);
  await until(() => open() >= unreserved, 8000);
  // Until the hanging merchants have claimed all they can (nothing new for half a second).
  for (let last = -1, still = 0; still < 5; await new Promise((resolve) => setTimeout(resolve, 100))) {
    const now = open();
    still = now === last ? still + 1 : 0;
    last = now;
  }
  const shop = await s.onboard('Live shop 2', brand.whiteLabelId);
  const live = await Receiver.start(() => s.clock.now());
  await addEndpoint(s, shop.id, live.url, true);
  const sent = performance.now();
  await s.fund(shop.id, 10_000, true);
  await until(() => live.received.length >= 1, 3000);
  assert.ok(performance.now() - sent < 2500, 'out at once, in the reserved slots');
  assert.ok(open() <= unreserved + hanging.length * webhookLimits.inFlightReserveShareMax, `the hanging merchants hold ${open()}`);
});

test.run();
