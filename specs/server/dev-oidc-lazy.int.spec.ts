// The development issuer is loaded on first use (server/auth/dev-oidc.ts): the server as
// `npm start` runs it does not import oidc-provider until a request comes under /oidc —
// watched from outside, by module hooks that write down every package the process imports —
// and the mount answers 503 when the provider cannot be loaded (the next request tries
// again), 500 when it fails on a request, and loads it once for requests that come together.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDevOidc } from '../../server/auth/dev-oidc.ts';
import type { DevProvider, ProviderOptions } from '../../server/auth/dev-oidc-provider.ts';

const startPath = fileURLToPath(new URL('../../server/start.mjs', import.meta.url));
const tracePath = fileURLToPath(new URL('../support/import-trace.mjs', import.meta.url));

test('npm start\'s server imports oidc-provider only when a request comes under /oidc', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-oidc-lazy-'));
  const trace = join(dir, 'imports.txt');
  const dataDir = join(dir, 'data');
  const child = spawn(process.execPath, ['--import', tracePath, startPath], {
    env: { ...process.env, SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_LOG_LEVEL: 'info', SATANG_SPEC_IMPORT_TRACE: trace },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => { output += d; });
  child.stderr!.on('data', (d) => { output += d; });
  const imported = () => (existsSync(trace) ? readFileSync(trace, 'utf8').split('\n') : []);
  try {
    const deadline = Date.now() + 60_000;
    let url: string | undefined;
    while (!(url = /"url":"(http:[^"]+)","data_dir"/.exec(output)?.[1])) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start: ${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.is((await fetch(`${url}/readyz`)).status, 200);
    assert.is((await fetch(`${url}/v1/bo/merchants`)).status, 401);
    assert.is((await fetch(`${url}/console/`)).status, 200);
    assert.ok(imported().includes('koa'), `the trace sees the server's packages: ${imported().join(' ')}`);
    assert.not.ok(imported().includes('oidc-provider'), 'nothing under /oidc yet, so no provider');
    const discovery = await fetch(`${url}/oidc/.well-known/openid-configuration`);
    assert.is(discovery.status, 200);
    assert.is((await discovery.json() as { issuer: string }).issuer, `${url}/oidc`);
    assert.ok(imported().includes('oidc-provider'));
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'close');
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${dataDir}.master-key`, { force: true });
  }
});

/** The mount on a server of its own, with a provider module of the spec's making. */
async function mounted(load: () => Promise<(options: ProviderOptions) => DevProvider>): Promise<{ url: string; server: Server }> {
  let url = '';
  let oidc: ReturnType<typeof startDevOidc> | undefined;
  const server = createServer((req, res) => {
    if (oidc!.handle(req, res)) return;
    res.writeHead(404);
    res.end('not the provider\'s');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  oidc = startDevOidc({ baseUrl: url, signingJwk: { kty: 'OKP', crv: 'Ed25519', x: 'unused' } }, load);
  return { url, server };
}

const answering = (body: string): DevProvider => ({
  handle(_req, res, path) {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(`${body} ${path}`);
  },
});

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

test('paths outside /oidc are not the provider\'s and load nothing; /oidc, /oidc/… and /oidc?… load it once with the issuer and resources', async () => {
  let loads = 0;
  const given: ProviderOptions[] = [];
  const { url, server } = await mounted(async () => { loads++; return (o) => { given.push(o); return answering('provider'); }; });
  try {
    for (const path of ['/', '/v1/bo/merchants', '/oidcx', '/oidc-admin', '/console/oidc']) {
      const r = await fetch(url + path);
      assert.is(r.status, 404, path);
    }
    assert.is(loads, 0);
    for (const path of ['/oidc', '/oidc/auth', '/oidc?x=1']) {
      const r = await fetch(url + path);
      assert.is(r.status, 200, path);
      assert.is(await r.text(), `provider ${path}`);
    }
    assert.is(loads, 1);
    assert.equal(given.map((o) => [o.issuer, o.resource, o.stepUpResource]), [[`${url}/oidc`, `${url}/v1/bo`, `${url}/v1/bo/step-up`]]);
  } finally {
    await close(server);
  }
});

test('requests that come while the provider loads wait for the one load', async () => {
  let loads = 0;
  let release!: () => void;
  const loaded = new Promise<void>((resolve) => { release = resolve; });
  const { url, server } = await mounted(async () => { loads++; await loaded; return () => answering('late'); });
  try {
    const pending = ['/oidc/a', '/oidc/b', '/oidc/c'].map((p) => fetch(url + p).then(async (r) => [r.status, await r.text()]));
    await new Promise((r) => setTimeout(r, 50));
    release();
    assert.equal(await Promise.all(pending), [[200, 'late /oidc/a'], [200, 'late /oidc/b'], [200, 'late /oidc/c']]);
    assert.is(loads, 1);
  } finally {
    await close(server);
  }
});

test('a provider that cannot be loaded is a 503 that says why, and the next request tries again', async () => {
  let loads = 0;
  const { url, server } = await mounted(async () => {
    loads++;
    if (loads === 1) throw new Error('Cannot find package \'oidc-provider\'');
    return () => answering('second try');
  });
  try {
    const first = await fetch(`${url}/oidc/.well-known/openid-configuration`);
    assert.is(first.status, 503);
    assert.is(await first.text(), 'the development OpenID provider could not be loaded: Cannot find package \'oidc-provider\'\n');
    const second = await fetch(`${url}/oidc/jwks`);
    assert.is(second.status, 200);
    assert.is(await second.text(), 'second try /oidc/jwks');
    assert.is(loads, 2);
  } finally {
    await close(server);
  }
});

test('a provider that throws on a request is a 500 for that request, and the next is served', async () => {
  let calls = 0;
  const { url, server } = await mounted(async () => () => ({
    handle(req, res, path) {
      if (++calls === 1) throw new Error('bad state');
      answering('after').handle(req, res, path);
    },
  }));
  try {
    const failed = await fetch(`${url}/oidc/auth`);
    assert.is(failed.status, 500);
    assert.is(await failed.text(), 'the development OpenID provider failed: bad state\n');
    const next = await fetch(`${url}/oidc/auth`);
    assert.is(next.status, 200);
  } finally {
    await close(server);
  }
});

test.run();
