// Endpoint creation on a server started with SATANG_ENV=production: the back office
// refuses http URLs, credentials, private or loopback literals and names that resolve to
// loopback (checked before anything is stored), with 422 validation_error on `url`.

import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type Running } from '../../server/main.ts';

let running: Running;
let dataDir: string;
let merchantId: string;

const bo = async (method: string, path: string, body?: unknown) => {
  const token = await running.devIssuer!.mint('emp_alice', { nowSeconds: Math.floor(Date.now() / 1000) });
  const res = await fetch(running.url + path, { method, headers: { Authorization: `Bearer ${token}`, 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() as any };
};

test.before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'satang-prod-'));
  running = await startServer({ SATANG_ENV: 'production', SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_LOG_LEVEL: 'silent', SATANG_SLIP_PROVIDER_URL: 'http://127.0.0.1:9', SATANG_MASTER_KEY: randomBytes(32).toString('base64') });
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

test.run();
