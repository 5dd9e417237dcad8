// The operator console's files over real HTTP (server/console/static.ts): /console/ serves
// index.html under a strict CSP whose only script hash is the inline import map's (hashed
// here again, independently); the vendor modules and every console module are JavaScript;
// every import in console/ resolves to a file the server serves (relative ones directly,
// bare ones through the import map), so the page's module graph cannot break unseen;
// traversal attempts, encoded or not, dotfiles and other extensions are 404 in the API's
// error shape, with the security headers still on; config.json and tables.json answer;
// ETag and If-None-Match give 304; the issuer's origin joins connect-src and form-action.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Koa from 'koa';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, posix, relative } from 'node:path';
import pino from 'pino';
import { TestServer } from '../support/server-harness.ts';
import { consoleRoutes } from '../../server/console/static.ts';
import { errorMiddleware } from '../../server/errors.ts';
import { routeRoles } from '../../server/auth/roles.ts';

const root = new URL('../../', import.meta.url).pathname;
const consoleDir = join(root, 'console');
let s: TestServer;

test.before(async () => { s = await TestServer.start(); });
test.after(async () => { await s.stop(); });

/** A GET with the path sent byte for byte (fetch would normalise `..` away). */
function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function importMapOf(html: string): { text: string; imports: Record<string, string> } {
  const m = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html);
  assert.ok(m, 'index.html has an inline import map');
  return { text: m![1]!, imports: JSON.parse(m![1]!).imports };
}

function assertSecurityHeaders(headers: Record<string, string | string[] | undefined>, where: string): void {
  const csp = String(headers['content-security-policy'] ?? '');
  for (const directive of ["default-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "img-src 'self' blob: data:"]) assert.ok(csp.includes(directive), `${where}: CSP has ${directive}: ${csp}`);
  assert.not.ok(csp.includes('unsafe-inline'), `${where}: no unsafe-inline`);
  assert.not.ok(csp.includes('unsafe-eval'), `${where}: no unsafe-eval`);
  assert.is(headers['x-content-type-options'], 'nosniff', where);
  assert.is(headers['referrer-policy'], 'no-referrer', where);
}

test('/console/ serves index.html with a CSP whose script hash is the import map\'s, and /console redirects there', async () => {
  const r = await rawGet(s.url, '/console/');
  assert.is(r.status, 200);
  assert.match(String(r.headers['content-type']), /^text\/html/);
  assert.not.match(r.body, /\{\{/, 'every placeholder of the template filled');
  assert.is(r.body.replace(/\/console\/v\/[A-Za-z0-9_-]{12}/g, '{{assets}}').replace(/content="\{&#34;[^"]*"/, 'content="{{config}}"'), readFileSync(join(consoleDir, 'index.html'), 'utf8'));
  const inline = /<meta name="satang-console-config" content="([^"]*)">/.exec(r.body)![1]!.replace(/&#(\d+);/g, (_m, c) => String.fromCharCode(Number(c)));
  assert.equal(JSON.parse(inline), JSON.parse((await rawGet(s.url, '/console/config.json')).body), 'index.html carries config.json');
  assertSecurityHeaders(r.headers, '/console/');
  const csp = String(r.headers['content-security-policy']);
  const hash = createHash('sha256').update(importMapOf(r.body).text, 'utf8').digest('base64');
  const scriptSrc = csp.split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src'));
  assert.is(scriptSrc, `script-src 'self' 'sha256-${hash}'`);
  assert.match(csp, new RegExp(`connect-src 'self' ${new URL(s.url).origin.replace(/[.]/g, '\\.')}`), 'the issuer (the development one under /oidc) may be fetched');
  assert.is(r.headers['cache-control'], 'no-cache');

  const redirect = await rawGet(s.url, '/console');
  assert.is(redirect.status, 301);
  assert.is(redirect.headers.location, '/console/');
});

test('this build\'s files are immutable under /console/v/<version>/, every module is preloaded, and another version is not found', async () => {
  const body = (await rawGet(s.url, '/console/')).body;
  const assets = /\/console\/v\/[A-Za-z0-9_-]{12}/.exec(body)![0];
  const preloaded = [...body.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]!);
  for (const module of consoleModules().filter((m) => m !== 'boot.js' && m !== 'callback.js')) {
    assert.ok(preloaded.includes(`${assets}/${module}`), `${module} is preloaded (index.html), so the page never waits on a chain of imports`);
  }
  for (const path of [...preloaded, `${assets}/boot.js`, `${assets}/style.css`]) {
    const r = await rawGet(s.url, path);
    assert.is(r.status, 200, path);
    assert.is(r.headers['cache-control'], 'public, max-age=31536000, immutable', path);
  }
  assert.is((await rawGet(s.url, '/console/v/AAAAAAAAAAAA/app.js')).status, 404);
  assert.is((await rawGet(s.url, `${assets}/../../../package.json`)).status, 404);
  assert.is((await rawGet(s.url, `${assets}/%2e%2e/%2e%2e/package.json`)).status, 404);
});

test('an ETag answers If-None-Match with 304', async () => {
  const first = await rawGet(s.url, '/console/app.js');
  assert.is(first.status, 200);
  const etag = String(first.headers.etag);
  assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
  const again = await rawGet(s.url, '/console/app.js', { 'If-None-Match': etag });
  assert.is(again.status, 304);
  assert.is(again.body, '');
  assert.is((await rawGet(s.url, '/console/app.js', { 'If-None-Match': '"other"' })).status, 200);
});

test('the vendor modules serve as JavaScript, byte for byte from node_modules, at the import map\'s URLs', async () => {
  const index = await rawGet(s.url, '/console/');
  const { imports } = importMapOf(index.body);
  assert.equal(Object.keys(imports).sort(), ['htm', 'oauth4webapi', 'preact', 'preact/hooks']);
  const files: Record<string, string> = {
    preact: 'node_modules/preact/dist/preact.mjs', 'preact/hooks': 'node_modules/preact/hooks/dist/hooks.mjs',
    htm: 'node_modules/htm/dist/htm.module.js', oauth4webapi: 'node_modules/oauth4webapi/build/index.js',
  };
  for (const [name, url] of Object.entries(imports)) {
    const r = await rawGet(s.url, url);
    assert.is(r.status, 200, `${name} → ${url}`);
    assert.match(String(r.headers['content-type']), /^text\/javascript/, url);
    assert.is(r.body, readFileSync(join(root, files[name]!), 'utf8'), url);
    assertSecurityHeaders(r.headers, url);
  }
  assert.is((await rawGet(s.url, '/console/vendor/react.js')).status, 404);
});

/** Every .js under console/, relative to it. */
function consoleModules(dir = consoleDir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    return e.isDirectory() ? consoleModules(full) : e.name.endsWith('.js') ? [relative(consoleDir, full)] : [];
  });
}

test('every import of every console module resolves to a JavaScript file the server serves', async () => {
  const { imports } = importMapOf((await rawGet(s.url, '/console/')).body);
  const modules = consoleModules();
  assert.ok(modules.includes('app.js') && modules.some((m) => m.startsWith('pages/')), modules.join(', '));
  for (const module of modules) {
    const served = await rawGet(s.url, `/console/${module}`);
    assert.is(served.status, 200, module);
    assert.match(String(served.headers['content-type']), /^text\/javascript/, module);
    const specifiers = [...served.body.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/gm)].map((m) => m[1]!);
    for (const specifier of specifiers) {
      const url = specifier.startsWith('.') ? posix.join('/console', posix.dirname(module), specifier) : imports[specifier];
      assert.ok(url, `${module}: the bare import ${specifier} is not in the import map`);
      const r = await rawGet(s.url, url!);
      assert.is(r.status, 200, `${module} imports ${specifier} (${url})`);
      assert.match(String(r.headers['content-type']), /^text\/javascript/, url!);
    }
  }
});

test('traversal, encoded or not, and unknown files are 404 in the API\'s error shape, with the security headers', async () => {
  const attempts = [
    '/console/../package.json', '/console/%2e%2e/package.json', '/console/%2E%2E%2Fpackage.json', '/console/..%2fpackage.json',
    '/console/pages/..%2f..%2fpackage.json', '/console/vendor/../../package.json', '/console/vendor/..%2f..%2fpackage.json',
    '/console/..%5c..%5cpackage.json', '/console/%2fetc%2fpasswd', '/console//etc/passwd', '/console/app.js%00.css',
    '/console/nope.js', '/console/pages/', '/console/index.htm', '/console/%252e%252e%252fpackage.json',
  ];
  for (const path of attempts) {
    const r = await rawGet(s.url, path);
    assert.is(r.status, 404, `${path} → ${r.status}: ${r.body.slice(0, 200)}`);
    const body = JSON.parse(r.body);
    assert.is(body.error.code, 'resource_not_found', path);
    assert.type(body.error.request_id, 'string', path);
    assert.not.ok(r.body.includes('"name": "satang"') || r.body.includes('root:'), `${path} leaked a file`);
    assertSecurityHeaders(r.headers, path);
  }
});

test('config.json names the issuer, client and audience; tables.json is the server\'s own roles table', async () => {
  const config = await rawGet(s.url, '/console/config.json');
  assert.is(config.status, 200);
  assert.match(String(config.headers['content-type']), /^application\/json/);
  assert.equal(JSON.parse(config.body), {
    issuer: `${s.url}/oidc`, client_id: 'satang-console', audience: 'satang-back-office', scopes: ['openid', 'profile'],
    resource: `${s.url}/v1/bo`, step_up: { acr_values: 'step-up', resource: `${s.url}/v1/bo/step-up` },
  });
  assertSecurityHeaders(config.headers, 'config.json');
  const tables = JSON.parse((await rawGet(s.url, '/console/tables.json')).body);
  assert.equal(tables.route_roles, JSON.parse(JSON.stringify(routeRoles)));
  assert.equal(tables.claim_transitions.review, ['open']);
  assert.ok(tables.reversal_reason_codes.includes('BANK_RECALL'));
  assert.ok(tables.review_reasons.some((r: { code: string; th: string; en: string }) => r.code === 'SENDER_NAME_MISMATCH' && r.th && r.en));
  assert.equal(tables.adjustment_reasons.filter((r: { direction: string | null }) => r.direction !== null), [{ code: 'FUNDING', direction: 'credit' }, { code: 'GOODWILL_CREDIT', direction: 'credit' }, { code: 'LOSS_RECOVERY', direction: 'debit' }]);
  assert.is(tables.note_length_min, 20);
});

test('a console folder of its own: only whitelisted extensions inside it are served, and the issuer origin joins the CSP', async () => {
  const base = mkdtempSync(join(tmpdir(), 'satang-console-'));
  const dir = join(base, 'console');
  mkdirSync(join(dir, 'pages'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="importmap">{"imports":{}}</script><script type="module" src="/console/app.js"></script>');
  writeFileSync(join(dir, 'app.js'), 'export const ok = 1;\n');
  writeFileSync(join(dir, 'pages', 'one.js'), 'export const one = 1;\n');
  writeFileSync(join(dir, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(dir, '.secret.js'), 'export const secret = 1;\n');
  writeFileSync(join(dir, 'notes.txt'), 'not served');
  writeFileSync(join(dir, 'data.json'), '{}');
  writeFileSync(join(base, 'outside.js'), 'export const outside = 1;\n');
  const app = new Koa();
  app.use(errorMiddleware(pino({ level: 'silent' })));
  const router = consoleRoutes({ root: dir, issuer: 'https://id.example.com/realms/ops', clientId: 'c', audience: 'a', scopes: ['openid', 'profile'], stepUp: { acrValues: 'step-up' } });
  app.use(router.routes()).use(router.allowedMethods());
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    for (const ok of ['/console/app.js', '/console/pages/one.js', '/console/logo.svg']) assert.is((await rawGet(url, ok)).status, 200, ok);
    assert.match(String((await rawGet(url, '/console/logo.svg')).headers['content-type']), /^image\/svg\+xml/);
    for (const no of ['/console/.secret.js', '/console/notes.txt', '/console/data.json', '/console/../outside.js', '/console/%2e%2e%2foutside.js']) {
      assert.is((await rawGet(url, no)).status, 404, no);
    }
    const csp = String((await rawGet(url, '/console/')).headers['content-security-policy']);
    assert.ok(csp.includes("connect-src 'self' https://id.example.com;"), csp);
    assert.ok(csp.includes("form-action 'self' https://id.example.com"), csp);
    assert.equal(JSON.parse((await rawGet(url, '/console/config.json')).body).scopes, ['openid', 'profile']);
  } finally {
    await new Promise((resolve) => server.close(resolve));
    rmSync(base, { recursive: true, force: true });
  }
});

test('an index.html with another inline script refuses to start (the CSP would have to allow it)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-console-'));
  try {
    writeFileSync(join(dir, 'index.html'), '<script type="importmap">{}</script><script>alert(1)</script>');
    assert.throws(() => consoleRoutes({ root: dir, issuer: 'https://id.example.com', clientId: 'c', audience: 'a', scopes: [], stepUp: { acrValues: 'step-up' } }), /exactly one inline script/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
