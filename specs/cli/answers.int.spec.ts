// What the CLI makes of the answers it gets, run as child processes against a stub HTTP
// server on a free port that answers as the case needs: not satang at all (an HTML 404, an
// empty 431), satang's refusal, a page with more to come, a connection cut mid-request.
// - an answer that is not satang's JSON: one line on stderr naming the URL, the status and
//   that it is not satang's JSON, exit 1 (it was "Unexpected token '<'", exit 2; reconcile's
//   "Cannot read properties of null"; trigger's "the server refused the key" for a 404);
// - reconcile with the server down says "cannot reach URL: connection refused", as the rest;
// - a refused answer of admin and bo: on stderr (`HTTP 422: {…}`, one line), stdout empty;
// - a POST sends --idempotency-key as given, and names the key it used when no answer came;
// - $SATANG_BASE_URL with a trailing / asks /v1/…, not //v1/…; one with a query is refused;
// - bo queue ends a page with `more: --cursor C`, as every paged list; bo decline's help says
//   one reviewer declines.

import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort as closedPort } from '../support/ports.ts';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));

interface Seen { method: string; path: string; idempotencyKey: string | undefined }

let stub: Server;
let base: string;
let dir: string;
const seen: Seen[] = [];
/** How the stub answers a request; an HTML 404 unless a case says otherwise. */
let answer: (req: IncomingMessage, res: ServerResponse) => void;
const html404 = (_req: IncomingMessage, res: ServerResponse) => { res.writeHead(404, { 'content-type': 'text/html' }); res.end('<html><body>Not Found</body></html>'); };

function satang(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // An operator token from the environment: nothing is minted, no data dir is read.
    const child = spawn(satangPath, args, { cwd: tmpdir(), env: { ...process.env, SATANG_LOG_LEVEL: 'silent', SATANG_OPERATOR_TOKEN: 'not-a-token', SATANG_STEP_UP_TOKEN: 'not-a-token', SATANG_BASE_URL: base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'satang-answers-'));
  stub = createServer((req, res) => {
    seen.push({ method: req.method!, path: req.url!, idempotencyKey: req.headers['idempotency-key'] as string | undefined });
    req.resume();
    req.on('end', () => answer(req, res));
  });
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(stub.address() as { port: number }).port}`;
});
test.after(async () => {
  await new Promise((resolve) => stub.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

test('not satang (an HTML 404, an empty 431): one line naming the URL, the status and that the answer is not satang\'s JSON, exit 1', async () => {
  answer = html404;
  const cases: readonly [readonly string[], string][] = [
    [['admin', 'fund', '--merchant', 'mch_x', '--amount', '100'], '/v1/bo/merchants/mch_x/adjustments'],
    [['admin', 'clock', 'show'], '/v1/bo/clock'],
    [['bo', 'queue'], '/v1/bo/deposits'],
    [['bo', 'show', 'dep_x'], '/v1/bo/deposits/dep_x'],
    [['bo', 'search', 'x', '--json'], '/v1/bo/search?q=x'],
    [['reconcile', '--key', 'sk_live_notakeyatall', '--store', join(dir, 'store.json')], '/v1/pay/events'],
    [['trigger', '10000', '--key', 'sk_test_notakeyatall'], '/v1/pay/events'],
  ];
  for (const [args, path] of cases) {
    const r = await satang(args);
    const label = args.slice(0, 2).join(' ');
    assert.is(r.code, 1, `${label}: ${r.stderr}`);
    assert.ok(r.stderr.includes(`${base}${path}`), `${label} names the URL: ${r.stderr}`);
    assert.match(r.stderr, /answered HTTP 404 \(text\/html\), not satang's JSON/, label);
    assert.is(r.stderr.trim().split('\n').length, 1, `${label}: one line: ${r.stderr}`);
    assert.not.match(r.stderr, /Unexpected token|Cannot read properties|refused the key/, label);
    assert.is(r.stdout, '', `${label} printed nothing on stdout`);
  }
  answer = (_req, res) => { res.writeHead(431); res.end(); };
  const empty = await satang(['admin', 'clock', 'show']);
  assert.is(empty.code, 1, empty.stderr);
  assert.match(empty.stderr, /\/v1\/bo\/clock answered HTTP 431 \(no content type\), not satang's JSON/);
  assert.not.match(empty.stderr, /Unexpected end of JSON input/);
});

test('reconcile with nothing listening says "cannot reach URL: connection refused", as every other command', async () => {
  const down = `http://127.0.0.1:${await closedPort()}`;
  const r = await satang(['reconcile', '--key', 'sk_live_notakeyatall', '--store', join(dir, 'down.json'), '--url', down]);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, `cannot reach ${down}/v1/pay/events`);
  assert.match(r.stderr, /connection refused \(ECONNREFUSED\); is the server running\?/);
  assert.not.match(r.stderr, /fetch failed/);
});

test('a refused answer of admin and bo: the error on stderr in one line, nothing on stdout, exit 1', async () => {
  const refusal = { error: { code: 'resource_not_found', type: 'invalid_request_error', message: 'No such merchant.', details: {} } };
  answer = (_req, res) => { res.writeHead(404, { 'content-type': 'application/json' }); res.end(JSON.stringify(refusal)); };
  for (const args of [['admin', 'beneficiary', 'create', '--merchant', 'mch_typo', '--account', '1234567', '--name', 'สมหญิง'], ['bo', 'approve', 'dep_x', '--note', 'the sender changed her name at the bank'], ['bo', 'queue', '--json']]) {
    const r = await satang(args);
    const label = args.slice(0, 2).join(' ');
    assert.is(r.code, 1, `${label}: ${r.stderr}`);
    assert.is(r.stdout, '', `${label}: nothing on stdout, so $(…) is empty`);
    assert.is(r.stderr, `HTTP 404: ${JSON.stringify(refusal)}\n`, label);
  }
});

test('--idempotency-key is sent as given; a POST that got no answer names the key it used, to retry with', async () => {
  answer = (_req, res) => { res.writeHead(201, { 'content-type': 'application/json' }); res.end('{"id":"btxn_1"}'); };
  seen.length = 0;
  assert.is((await satang(['admin', 'fund', '--merchant', 'mch_x', '--amount', '100', '--idempotency-key', 'fund-2026-11-30'])).code, 0);
  assert.is((await satang(['bo', 'claim', 'open', '--kind', 'manual', '--deposit', 'dep_x', '--amount', '100', '--note', 'the payer says this was paid twice over', '--idempotency-key', 'claim-1'])).code, 0);
  assert.equal(seen.map((r) => r.idempotencyKey), ['fund-2026-11-30', 'claim-1']);
  // The connection cut before an answer (a timeout, a proxy gone): the key the request carried is said.
  answer = (req) => req.socket.destroy();
  seen.length = 0;
  for (const args of [['admin', 'fund', '--merchant', 'mch_x', '--amount', '100'], ['bo', 'claim', 'open', '--kind', 'manual', '--deposit', 'dep_x', '--amount', '100', '--note', 'the payer says this was paid twice over']]) {
    const r = await satang(args);
    const sent = seen.at(-1)!.idempotencyKey!;
    assert.is(r.code, 1, r.stderr);
    assert.ok(r.stderr.includes(`Its Idempotency-Key was ${sent}: to retry, run it again with --idempotency-key ${sent}`), r.stderr);
    assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});

test('SATANG_BASE_URL with a trailing / asks /v1/…; one with a query or a fragment is refused before anything is sent', async () => {
  answer = (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"object":"service_clock","now":"2026-11-30T00:00:00.000Z","clock":"manual"}'); };
  seen.length = 0;
  const slash = await satang(['admin', 'clock', 'show'], { SATANG_BASE_URL: `${base}/` });
  assert.is(slash.code, 0, slash.stderr);
  assert.equal(seen.map((r) => r.path), ['/v1/bo/clock']);
  for (const url of [`${base}/?tenant=1`, `${base}/#top`]) {
    const r = await satang(['admin', 'clock', 'show'], { SATANG_BASE_URL: url });
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, /--url \(or \$SATANG_BASE_URL\) must be the server's address, .* without a query or a fragment/);
  }
  assert.is(seen.length, 1, 'nothing sent');
});

test('bo queue ends a page with `more: --cursor C`, as the other lists; bo decline says one reviewer declines', async () => {
  const entry = { id: 'dep_1', merchant_id: 'mch_1', livemode: true, amount_minor: 50_000, age_seconds: 120, review: { reasons: [{ code: 'SENDER_NAME_MISMATCH' }], escalated: false }, approvals: [] };
  answer = (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ object: 'list', data: [entry], total: 14, has_more: true, next_cursor: 'C2' })); };
  const r = await satang(['bo', 'queue', '--limit', '1']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /\n14 waiting\nmore: --cursor C2\n$/);
  assert.not.match(r.stdout, /next page/);
  const help = await satang(['bo', 'decline', '--help']);
  assert.match(help.stdout, /one reviewer's decline is final, on any deposit/);
  assert.not.match(help.stdout, /two different reviewers/);
});

test("admin key list prints a table, its --json the server's JSON, and its help says so (not the other admin commands' 'what admin commands print anyway')", async () => {
  const key = { key_id: 'key_1', livemode: true, scopes: ['deposits:write'], api_key_hint: 'sk_live_…abcd', created_at: '2026-12-01T00:00:00.000Z', revoked_at: null };
  answer = (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ object: 'list', data: [key] })); };
  const table = await satang(['admin', 'key', 'list', '--merchant', 'mch_1']);
  assert.is(table.code, 0, table.stderr);
  assert.match(table.stdout, /^KEY\s+MODE\s+SCOPES/);
  const json = await satang(['admin', 'key', 'list', '--merchant', 'mch_1', '--json']);
  assert.is(JSON.parse(json.stdout).data[0].key_id, 'key_1');
  const help = await satang(['admin', 'key', 'list', '--help']);
  assert.match(help.stdout, /--json\s+print the server's JSON instead of a table/);
  assert.not.match(help.stdout, /what admin commands print anyway/);
});

test.run();
