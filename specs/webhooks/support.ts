// Helpers for the webhook specs: real HTTP receivers on free ports (node:http servers
// whose answers each test programs), a server on the manual clock with webhook endpoints,
// and an independent signature check with @noble/ed25519 against the published keys
// (never the signer's own code, so a bug there cannot hide behind the same bug here).

import * as ed from '@noble/ed25519';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** The service clock (manual) when the request arrived. */
  readonly clockMs: number;
}

type Handler = (r: Received, res: ServerResponse) => void;

/** A local receiver; `handler` answers (204 by default) and may be changed at any time. */
export class Receiver {
  /** Every receiver still listening, so a spec's after() can stop them even when a test failed midway. */
  static readonly listening = new Set<Receiver>();
  readonly received: Received[] = [];
  handler: Handler = (_r, res) => { res.statusCode = 204; res.end(); };
  private readonly open = new Set<ServerResponse>();

  private constructor(private readonly server: Server, readonly url: string) {}

  static async start(clockMs: () => number = Date.now, path = '/hook'): Promise<Receiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    Receiver.listening.add(receiver);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: Received = { headers: req.headers, body: Buffer.concat(chunks), clockMs: clockMs() };
        receiver.received.push(r);
        receiver.open.add(res);
        res.on('close', () => receiver.open.delete(res));
        receiver.handler(r, res);
      });
    });
    return receiver;
  }

  /**
   * Answers as the contract tells a receiver to (Webhook signatures): 401 when the signature
   * does not verify against the published key of its kid (an unknown kid refetches the keys
   * once), 400 when its t is more than 300 s from the wall clock; otherwise `then` (204).
   */
  verifyAgainst(s: TestServer, then: Handler = (_r, res) => { res.statusCode = 204; res.end(); }): void {
    let keys: PublishedKeys | undefined;
    this.handler = (r, res) => {
      void (async () => {
        keys ??= await publishedKeys(s);
        let v = await nobleVerifies(r, keys);
        if (!keys.keys.some((k) => k.kid === v.kid)) v = await nobleVerifies(r, keys = await publishedKeys(s));
        if (!v.ok) { res.statusCode = 401; res.end(); return; }
        if (Math.abs(s.wallSeconds() - v.t) > 300) { res.statusCode = 400; res.end(); return; }
        then(r, res);
      })();
    };
  }

  /** Answers every request with `status` (and headers). */
  answer(status: number, headers: Record<string, string> = {}, body = ''): void {
    this.handler = (_r, res) => { res.writeHead(status, headers); res.end(body); };
  }

  static async stopAll(): Promise<void> {
    await Promise.all([...Receiver.listening].map((r) => r.stop()));
  }

  async stop(): Promise<void> {
    if (!Receiver.listening.delete(this)) return;
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export async function startServer(env: Record<string, string> = {}): Promise<TestServer> {
  return TestServer.start(env);
}

export async function advance(s: TestServer, ms: number): Promise<void> {
  await s.running.services.write.advanceClock!(ms);
}

export async function addEndpoint(s: TestServer, merchantId: string, url: string, livemode = true, eventTypes?: string[]): Promise<string> {
  const r = await s.bo('POST', `/v1/bo/merchants/${merchantId}/webhook-endpoints`, { url, livemode, ...(eventTypes ? { event_types: eventTypes } : {}) });
  if (r.status !== 201) throw new Error(`endpoint creation failed: ${r.status} ${r.text}`);
  return r.json.id;
}

/**
 * A merchant of `shop`'s white label whose only endpoint answered 410 Gone to its one
 * event: the delivery failed at once and the endpoint is flagged (the receiver still answers 410).
 */
export async function goneEndpoint(s: TestServer, shop: MerchantKeys, name: string, within: number): Promise<{ merchant: MerchantKeys; endpointId: string; receiver: Receiver }> {
  const receiver = await Receiver.start(() => s.clock.now());
  receiver.answer(410);
  const merchant = await s.onboard(name, shop.whiteLabelId);
  const endpointId = await addEndpoint(s, merchant.id, receiver.url);
  await emitEvent(s, merchant);
  await advance(s, within);
  return { merchant, endpointId, receiver };
}

/** One merchant event (balance.credited from a funding adjustment), delivered on the next advance. */
export async function emitEvent(s: TestServer, merchant: MerchantKeys, livemode = true): Promise<void> {
  await s.fund(merchant.id, 10_000, livemode);
}

export interface PublishedKeys { keys: { kid: string; raw_public_key: string; public_key: string; status: string; not_before: string; not_after: string | null }[] }

export async function publishedKeys(s: TestServer): Promise<PublishedKeys> {
  const r = await s.raw('GET', '/v1/webhooks/signing-keys');
  if (r.status !== 200) throw new Error(`signing keys: ${r.status}`);
  return r.json as PublishedKeys;
}

/** Parses X-PG-Signature by key and verifies it with @noble/ed25519 against the published key of its kid. */
export async function nobleVerifies(r: Received, keys: PublishedKeys): Promise<{ ok: boolean; kid: string; t: number }> {
  const pairs = new Map(String(r.headers['x-pg-signature']).split(',').filter((p) => p.includes('=')).map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)] as const));
  const kid = pairs.get('kid')!, t = Number(pairs.get('t')), s = pairs.get('s')!;
  const key = keys.keys.find((k) => k.kid === kid);
  if (!key) return { ok: false, kid, t };
  const message = Buffer.concat([Buffer.from(`v1.${t}.${String(r.headers['x-pg-event-id'])}.`, 'utf8'), r.body]);
  const ok = await ed.verifyAsync(Buffer.from(s, 'base64url'), message, Buffer.from(key.raw_public_key, 'base64url'));
  return { ok, kid, t };
}

export async function deliveryWithAttempts(s: TestServer, endpointId: string, deliveryId: string): Promise<any> {
  const r = await s.bo('GET', `/v1/bo/webhooks/${endpointId}/deliveries/${deliveryId}`);
  if (r.status !== 200) throw new Error(`delivery: ${r.status} ${r.text}`);
  return r.json;
}

export async function deliveries(s: TestServer, endpointId: string, query = ''): Promise<any[]> {
  const r = await s.bo('GET', `/v1/bo/webhooks/${endpointId}/deliveries?limit=200${query}`);
  if (r.status !== 200) throw new Error(`deliveries: ${r.status} ${r.text}`);
  return r.json.data;
}

/** Waits (real time) until `check` holds, at most `ms`. */
export async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}

export const second = 1000, minute = 60 * second, hour = 60 * minute, day = 24 * hour;
