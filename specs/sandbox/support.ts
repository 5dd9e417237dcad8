// Helpers for the sandbox specs: a real listening server on the manual clock, a merchant
// whose sandbox webhook endpoint is a real HTTP receiver, and readers for what arrived —
// the events in delivery order, with the object's status, version and amounts.

import * as assert from 'uvu/assert';
import { depositBody, TestServer, type MerchantKeys, type Reply } from '../support/server-harness.ts';
import { addEndpoint, Receiver, until } from '../webhooks/support.ts';

export interface SandboxScene {
  readonly s: TestServer;
  readonly shop: MerchantKeys;
  readonly receiver: Receiver;
  readonly endpointId: string;
}

/** Another merchant on the same server, with a receiver of its own (so its events are its own). */
export async function nextShop(scene: SandboxScene, name = 'Shop'): Promise<SandboxScene> {
  const shop = await scene.s.onboard(name);
  const receiver = await Receiver.start(() => scene.s.clock.now());
  const endpointId = await addEndpoint(scene.s, shop.id, receiver.url, false);
  return { s: scene.s, shop, receiver, endpointId };
}

export interface Delivered {
  readonly id: string;
  readonly type: string;
  readonly livemode: boolean;
  readonly sequence: number;
  readonly object: any;
  readonly previous: any;
}

export async function sandboxScene(env: Record<string, string> = {}): Promise<SandboxScene> {
  const s = await TestServer.start(env, undefined, { slipWorker: 'manual' });
  const shop = await s.onboard('Shop');
  const receiver = await Receiver.start(() => s.clock.now());
  const endpointId = await addEndpoint(s, shop.id, receiver.url, false);
  return { s, shop, receiver, endpointId };
}

/** Every event the receiver got, in arrival order (duplicates of a resend removed). */
export function delivered(scene: SandboxScene): Delivered[] {
  const seen = new Set<string>();
  const out: Delivered[] = [];
  for (const r of scene.receiver.received) {
    const e = JSON.parse(r.body.toString('utf8'));
    if (seen.has(e.id)) continue;
    seen.add(e.id);
    out.push({ id: e.id, type: e.type, livemode: e.livemode, sequence: Number(e.sequence), object: e.data.object, previous: e.data.previous_attributes });
  }
  return out;
}

/** The events of one object, in arrival order. */
export function eventsOf(scene: SandboxScene, objectId: string): Delivered[] {
  return delivered(scene).filter((e) => e.object.id === objectId);
}

/** Moves the service clock through the operator route (as `satang trigger` does) and lets deliveries land. */
export async function advanceSeconds(scene: SandboxScene, seconds: number): Promise<void> {
  const r = await scene.s.bo('POST', '/v1/bo/clock/advance', { seconds });
  assert.is(r.status, 200, r.text);
}

/** Waits (real time) until the receiver holds `count` distinct events of the object. */
export async function awaitEvents(scene: SandboxScene, objectId: string, count: number): Promise<Delivered[]> {
  await until(() => eventsOf(scene, objectId).length >= count, 5000).catch(() => undefined);
  return eventsOf(scene, objectId);
}

export async function sandboxDeposit(scene: SandboxScene, amountMinor: number, overrides: Record<string, unknown> = {}): Promise<any> {
  const r = await scene.s.call(scene.shop.sandbox.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: amountMinor, ...overrides }));
  assert.ok(r.status === 201 || r.status === 202, r.text); // 202: awaiting liquidity
  assert.is(r.json.livemode, false);
  return r.json;
}

export async function getSandboxDeposit(scene: SandboxScene, id: string): Promise<any> {
  const r: Reply = await scene.s.call(scene.shop.sandbox.api_key, 'GET', `/v1/pay/deposits/${id}`);
  assert.is(r.status, 200, r.text);
  return r.json;
}

export async function stopScene(scene: SandboxScene | undefined): Promise<void> {
  await scene?.s.stop();
  await Receiver.stopAll();
}

/** The sandbox balance history rows of the scene's merchant, run 1 from sequence 0. */
export async function sandboxHistory(scene: SandboxScene): Promise<any> {
  const r = await scene.s.call(scene.shop.sandbox.api_key, 'GET', '/v1/pay/balance/transactions?limit=100');
  assert.is(r.status, 200, r.text);
  return r.json;
}

/** [type, status, version] of each event: the shape most scenario checks compare. */
export function shape(events: readonly Delivered[]): [string, string, number][] {
  return events.map((e) => [e.type, e.object.status, e.object.version]);
}

export const secondsAfter = (isoTime: string, seconds: number): string => new Date(Date.parse(isoTime) + seconds * 1000).toISOString();
