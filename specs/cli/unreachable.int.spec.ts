// A server that is not there, as an operator meets it: `call`, `admin`, `bo` and `report` run
// as child processes against a port nothing listens on. Each exits 1 (call used to exit 2, as
// a usage error; the README promises 1 for anything but a 2xx/3xx answer) and says which URL
// it could not reach and why, instead of a bare "fetch failed" or a raw ECONNREFUSED. A server
// that takes the connection and never answers is given up on after SATANG_CLI_TIMEOUT_SECONDS
// (call waited for ever, the others five minutes).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort as closedPort } from '../support/ports.ts';
import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));

function satang(args: readonly string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // An operator token from the environment: the data dir is not what is tested here.
    const env = { ...process.env, SATANG_LOG_LEVEL: 'silent', SATANG_OPERATOR_TOKEN: 'not-a-token', SATANG_STEP_UP_TOKEN: 'not-a-token', ...extraEnv };
    const child = spawn(satangPath, args, { cwd: tmpdir(), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('call, admin, bo and report: exit 1, naming the URL and the refused connection', async () => {
  const base = `http://127.0.0.1:${await closedPort()}`;
  const cases: readonly [readonly string[], string][] = [
    [['call', 'GET', '/v1/pay/balance', '--key', 'sk_test_nothing', '--url', base], `${base}/v1/pay/balance`],
    [['call', 'POST', '/v1/pay/deposits', '--key', 'sk_test_nothing', '--data', '{}', '--url', base], `${base}/v1/pay/deposits`],
    [['admin', 'clock', 'show', '--url', base], `${base}/v1/bo/clock`],
    [['bo', 'queue', '--url', base], `${base}/v1/bo/`],
    [['report', 'trial-balance', '--url', base], `${base}/v1/bo/reports/trial-balance`],
  ];
  for (const [args, url] of cases) {
    const r = await satang(args);
    const label = args.slice(0, 2).join(' ');
    assert.is(r.code, 1, `${label}: ${r.stderr}`);
    assert.match(r.stderr, `cannot reach ${url}`, label);
    assert.match(r.stderr, /: connection refused \(ECONNREFUSED\); is the server running\?/, label);
    assert.not.match(r.stderr, /fetch failed|at .*\.ts:\d+/, `${label}: no bare "fetch failed", no stack`);
    assert.is(r.stdout, '', `${label} printed nothing on stdout`);
  }
});

test('a server that takes the connection and never answers: exit 1 after SATANG_CLI_TIMEOUT_SECONDS, naming the URL and a POST\'s Idempotency-Key', async () => {
  const sockets: Socket[] = [];
  const silent = createServer((socket) => { sockets.push(socket); socket.on('error', () => {}); });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  try {
    const cases: readonly [readonly string[], string, string | null][] = [
      [['call', 'GET', '/v1/pay/balance', '--key', 'sk_test_nothing', '--url', base], `${base}/v1/pay/balance`, null],
      [['call', 'POST', '/v1/pay/deposits', '--key', 'sk_test_nothing', '--data', '{}', '--idempotency-key', 'k-silent-1', '--url', base], `${base}/v1/pay/deposits`, 'k-silent-1'],
      [['admin', 'clock', 'show', '--url', base], `${base}/v1/bo/clock`, null],
      [['report', 'trial-balance', '--url', base], `${base}/v1/bo/reports/trial-balance`, null],
    ];
    for (const [args, url, key] of cases) {
      const started = Date.now();
      const r = await satang(args, { SATANG_CLI_TIMEOUT_SECONDS: '0.5' });
      const label = args.slice(0, 2).join(' ');
      assert.is(r.code, 1, `${label}: ${r.stderr}`);
      assert.match(r.stderr, `cannot reach ${url}: no answer within 0.5 s (SATANG_CLI_TIMEOUT_SECONDS)`, label);
      if (key) assert.match(r.stderr, `Its Idempotency-Key was ${key}`, label);
      assert.ok(Date.now() - started < 30_000, `${label} gave up`);
    }
    const bad = await satang(['call', 'GET', '/v1/pay/balance', '--key', 'sk_test_nothing', '--url', base], { SATANG_CLI_TIMEOUT_SECONDS: 'soon' });
    assert.is(bad.code, 1, bad.stderr);
    assert.match(bad.stderr, /SATANG_CLI_TIMEOUT_SECONDS must be a number of seconds above 0, not "soon"/);
  } finally {
    for (const socket of sockets) socket.destroy();
    silent.close();
  }
});

test.run();
