// Endpoint creation on a server started with SATANG_ENV=production: the back office
// refuses http URLs, credentials, literals outside public unicast space (including IPv4
// addresses carried in IPv6 forms, NAT64, Teredo and the documentation nets) and names
// that resolve to loopback (checked before anything is stored), with 422
// validation_error on `url` whose hint names the refusing range.

import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type Running } from '../../server/main.ts';
import { externalIssuer, type ExternalIssuer } from '../support/server-harness.ts';

let running: Running;
let dataDir: string;
let merchantId: string;
let issuer: ExternalIssuer; // production trusts only a configured OIDC issuer

const bo = async (method: string, path: string, body?: unknown) => {
  const token = await issuer.mint('emp_alice');
  const res = await fetch(running.url + path, { method, headers: { Authorization: `Bearer ${token}`, 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() as any };
};

test.before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'satang-prod-'));
  issuer = await externalIssuer(dataDir);
  running = await startServer({ SATANG_ENV: 'production', SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_LOG_LEVEL: 'silent', SATANG_SLIP_PROVIDER_URL: 'http://127.0.0.1:9', SATANG_MASTER_KEY: randomBytes(32).toString('base64'), ...issuer.env });
  const wl = (await bo('POST', '/v1/bo/white-labels', { name: 'Brand' })).json.id;
  merchantId = (await bo('POST', '/v1/bo/merchants', { white_label_id: wl, name: 'Shop' })).json.id;
});
test.after(async () => { await running.close(); rmSync(dataDir, { recursive: true, force: true }); });

test('production refuses endpoint URLs that are not https or that reach private addresses', async () => {
  for (const url of ['http://hooks.example.com/satang', 'https://user:pw@hooks.example.com/', 'https://127.0.0.1/hook', 'https://10.1.2.3/hook',
    'https://169.254.169.254/latest/meta-data', 'https://[::1]/hook', 'https://localhost/hook']) {
    const r = await bo('POST', `/v1/bo/merchants/${merchantId}/webhook-endpoints`, { url, livemode: true });
    assert.is(r.status, 422, url);
    assert.is(r.json.error.code, 'validation_error');
    assert.is(r.json.error.details.fields[0].path, 'url');
  }
  const list = await bo('GET', `/v1/bo/merchants/${merchantId}/webhook-endpoints`);
  assert.equal(list.json.data, [], 'nothing was stored');
});

test('production refuses IPv4 hidden in IPv6 forms, NAT64, Teredo and the documentation nets, naming the range', async () => {
  const cases: [string, string][] = [
    ['https://[::7f00:1]/hook', 'ipv4Compatible loopback'], ['https://[2002:7f00:1::1]/hook', '6to4 loopback'],
    ['https://[64:ff9b:1::a00:1]/hook', 'rfc6052'], ['https://[64:ff9b::a00:1]/hook', 'rfc6052'], ['https://[64:ff9b::808:808]/hook', 'rfc6052'],
    ['https://[2001::1]/hook', 'teredo'], ['https://[::ffff:a9fe:a9fe]/hook', 'ipv4Mapped linkLocal'],
    ['https://192.0.2.10/hook', 'reserved'], ['https://198.51.100.10/hook', 'reserved'], ['https://203.0.113.10/hook', 'reserved'],
  ];
  for (const [url, range] of cases) {
    const r = await bo('POST', `/v1/bo/merchants/${merchantId}/webhook-endpoints`, { url, livemode: true });
    assert.is(r.status, 422, `${url}: ${JSON.stringify(r.json)}`);
    assert.is(r.json.error.code, 'validation_error', url);
    const field = r.json.error.details.fields[0];
    assert.is(field.path, 'url', url);
    assert.is(field.reason, 'not_allowed', url);
    assert.ok(field.hint.includes(`${range} range`), `${url}: the hint names the ${range} range: ${field.hint}`);
    assert.ok(r.json.error.message.includes(range), `${url}: the message names the range: ${r.json.error.message}`);
  }
  const list = await bo('GET', `/v1/bo/merchants/${merchantId}/webhook-endpoints`);
  assert.equal(list.json.data, [], 'nothing was stored');
});

test.run();
