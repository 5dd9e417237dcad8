// An endpoint change (POST /v1/bo/webhooks/{id}) whose new URL is still being checked when
// another change of the same endpoint lands. In production a new URL's host is resolved and
// its addresses checked before anything is stored — an await during which another operator's
// change can commit. Here the server runs with SATANG_ENV=production on a host lookup of the
// spec's own, whose answer for the slow change's host waits until the other change has
// landed; the slow change is then decided, versioned and logged against the endpoint as the
// other left it: what it asks is what the endpoint ends with, each change moves the version
// once, its action-log "before" is the other's "after", and a change to an endpoint deleted
// meanwhile is refused (409 operation_not_allowed) leaving it as it was.

import { randomBytes, randomUUID } from 'node:crypto';
import type { LookupAddress, LookupAllOptions } from 'node:dns';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Lookup } from '../../adapters/webhooks/url-policy.ts';
import { startServer, type Running } from '../../server/main.ts';
import { externalIssuer, type ExternalIssuer } from '../support/server-harness.ts';

/** A public address every name resolves to (the URL check refuses anything else). */
const publicAddress: LookupAddress = { address: '93.184.216.34', family: 4 };

/** Answers every name with `publicAddress` at once, except the next lookup of a host held with `hold`. */
class HeldLookup {
  private readonly held = new Map<string, { arrived: () => void; waiting: Promise<void> }>();

  readonly lookup = ((hostname: string, _options: LookupAllOptions, callback: (e: NodeJS.ErrnoException | null, a: LookupAddress[]) => void) => {
    const held = this.held.get(hostname);
    this.held.delete(hostname);
    if (!held) return setImmediate(() => callback(null, [publicAddress]));
    held.arrived();
    void held.waiting.then(() => callback(null, [publicAddress]));
  }) as unknown as Lookup;

  /** The next lookup of `host` waits: `arrived` once it has come; `release` answers it. */
  hold(host: string): { arrived: Promise<void>; release: () => void } {
    let arrived!: () => void;
    let release!: () => void;
    const came = new Promise<void>((resolve) => { arrived = resolve; });
    this.held.set(host, { arrived, waiting: new Promise<void>((resolve) => { release = resolve; }) });
    return { arrived: came, release };
  }
}

let running: Running;
let dataDir: string;
let issuer: ExternalIssuer; // production trusts only a configured OIDC issuer
let merchantId: string;
const dns = new HeldLookup();

const bo = async (method: string, path: string, body: unknown, sub = 'emp_alice') => {
  const headers: Record<string, string> = { Authorization: `Bearer ${await issuer.mint(sub)}`, 'Idempotency-Key': randomUUID() };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(running.url + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) as any, requestId: res.headers.get('x-request-id') };
};

test.before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'satang-prod-'));
  issuer = await externalIssuer(dataDir);
  running = await startServer(
    { SATANG_ENV: 'production', SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_LOG_LEVEL: 'silent', SATANG_SLIP_PROVIDER_URL: 'http://127.0.0.1:9', SATANG_MASTER_KEY: randomBytes(32).toString('base64'), ...issuer.env },
    { hostLookup: dns.lookup },
  );
  const wl = (await bo('POST', '/v1/bo/white-labels', { name: 'Brand' })).json.id;
  merchantId = (await bo('POST', '/v1/bo/merchants', { white_label_id: wl, name: 'Shop' })).json.id;
});
test.after(async () => { await running.close(); rmSync(dataDir, { recursive: true, force: true }); });

const newEndpoint = async (url: string, eventTypes: string[] | null) => {
  const r = await bo('POST', `/v1/bo/merchants/${merchantId}/webhook-endpoints`, { url, livemode: true, ...(eventTypes === null ? {} : { event_types: eventTypes }) });
  assert.is(r.status, 201, r.text);
  return r.json.id as string;
};
const endpointOf = async (id: string) => (await bo('GET', `/v1/bo/webhooks/${id}`, undefined)).json;
const changesOf = async (requestId: string | null) => {
  const rows = (await bo('GET', `/v1/bo/reports/action-logs?route=${encodeURIComponent('/v1/bo/webhooks/:endpointId')}&limit=100`, undefined)).json.data as any[];
  return rows.find((r) => r.request_id === requestId)?.changes ?? null;
};

/** `slow`'s URL check waits on its host until `meanwhile` has answered; both answers, in the order they came. */
async function whileResolving(host: string, slow: () => ReturnType<typeof bo>, meanwhile: () => Promise<unknown>) {
  const lookup = dns.hold(host);
  const slowAnswer = slow();
  await lookup.arrived;
  await meanwhile();
  lookup.release();
  return slowAnswer;
}

test('a change whose URL is checked while another lands is decided and logged on what the other left', async () => {
  const id = await newEndpoint('https://first.example/', ['deposit.settled']);
  let other: Awaited<ReturnType<typeof bo>> | undefined;
  const slow = await whileResolving('slow.example', () => bo('POST', `/v1/bo/webhooks/${id}`, { url: 'https://slow.example/', event_types: ['deposit.settled'] }, 'emp_slow'), async () => {
    other = await bo('POST', `/v1/bo/webhooks/${id}`, { url: 'https://second.example/', event_types: null }, 'emp_other');
    assert.is(other.status, 200, other.text);
    assert.is(other.json.version, 1);
  });
  assert.is(slow.status, 200, slow.text);
  const now = await endpointOf(id);
  assert.equal([now.url, now.event_types, now.version], ['https://slow.example/', ['deposit.settled'], 2], 'the slow change is what the endpoint ends with: its subscription too, one version more');
  assert.equal([slow.json.url, slow.json.event_types, slow.json.version], [now.url, now.event_types, now.version], 'and what it answered');
  assert.equal(await changesOf(other!.requestId), {
    url: { before: 'https://first.example/', after: 'https://second.example/' }, event_types: { before: ['deposit.settled'], after: null },
  });
  assert.equal(await changesOf(slow.requestId), {
    url: { before: 'https://second.example/', after: 'https://slow.example/' }, event_types: { before: null, after: ['deposit.settled'] },
  }, 'the slow change\'s before is the other\'s after');
});

test('a change that, once its URL is checked, names what another has just made changes nothing: no version, no change logged', async () => {
  const id = await newEndpoint('https://first.example/', null);
  const slow = await whileResolving('same.example', () => bo('POST', `/v1/bo/webhooks/${id}`, { url: 'https://same.example/' }, 'emp_slow'), async () => {
    const other = await bo('POST', `/v1/bo/webhooks/${id}`, { url: 'https://same.example/' }, 'emp_other');
    assert.equal([other.status, other.json.version], [200, 1], other.text);
  });
  assert.is(slow.status, 200, slow.text);
  assert.equal([slow.json.url, slow.json.version], ['https://same.example/', 1], slow.text);
  assert.is((await endpointOf(id)).version, 1, 'one change, one version');
  assert.is(await changesOf(slow.requestId), null, 'the action log claims no change of it');
});

test('a change to an endpoint deleted while its URL was checked is refused and leaves it as it was', async () => {
  const id = await newEndpoint('https://first.example/', null);
  const slow = await whileResolving('late.example', () => bo('POST', `/v1/bo/webhooks/${id}`, { url: 'https://late.example/' }, 'emp_slow'), async () => {
    assert.is((await bo('POST', `/v1/bo/webhooks/${id}/disable`, {}, 'emp_other')).status, 200);
    assert.is((await bo('DELETE', `/v1/bo/webhooks/${id}`, undefined, 'emp_other')).status, 200);
  });
  assert.equal([slow.status, slow.json.error?.code], [409, 'operation_not_allowed'], slow.text);
  const now = await endpointOf(id);
  assert.equal([now.status, now.url], ['deleted', 'https://first.example/'], 'still deleted, at the URL it had');
});

test.run();
