// One merchant's deposit followed through the server's own log lines, as an on-call engineer
// reads them (on-call audit: the log had no merchant, no verdict and no failed webhook
// attempt): the server started as `npm start` runs it at level info; a sandbox deposit made
// with a signed request, its slip uploaded, verified and settled; a webhook endpoint that
// refuses connections. Each request line names who asked (merchant_id, or operator); the
// slip's verdict is a line with the deposit id; each failed webhook attempt a line with its
// delivery, endpoint and merchant, and the error's code only.

import { execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../support/ports.ts';
import { depositBody, signedHeaders } from '../support/server-harness.ts';
import { pngSlip } from '../support/slip-harness.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const satang = join(root, 'scripts/satang');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('the log alone follows a merchant\'s deposit: who asked, the slip\'s verdict, every failed webhook attempt', async () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'satang-trace-')), 'data');
  const port = await freePort();
  const server = spawn(process.execPath, ['server/start.mjs'], {
    cwd: root, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, SATANG_PORT: String(port), SATANG_DATA_DIR: dataDir, SATANG_LOG_LEVEL: 'info' },
  });
  let stdout = '';
  server.stdout!.on('data', (d) => { stdout += d; });
  const exited = new Promise((resolve) => server.on('exit', resolve));
  const lines = () => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>);
  const until = async (what: string, found: () => boolean) => {
    for (let i = 0; i < 200 && !found(); i++) await sleep(50);
    assert.ok(found(), what);
  };
  try {
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 600; i++) {
      if ((await fetch(`${base}/readyz`).then((r) => r.status, () => 0)) === 200) break;
      await sleep(100);
    }
    const token = (await run(satang, ['token', '--sub', 'emp_trace', '--roles', 'ops_admin', '--data-dir', dataDir], { cwd: root })).stdout.trim();
    const bo = async (path: string, body: unknown) => (await fetch(`${base}${path}`, {
      method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() }, body: JSON.stringify(body),
    })).json() as Promise<any>;
    const wl = await bo('/v1/bo/white-labels', { name: 'Trace brand' });
    const m = await bo('/v1/bo/merchants', { white_label_id: wl.id, name: 'Traced shop' });
    // A receiver that refuses every connection: the port of a listener closed at once.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const deadPort = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const endpoint = await bo(`/v1/bo/merchants/${m.id}/webhook-endpoints`, { url: `http://127.0.0.1:${deadPort}/hook?token=SECRETQ`, livemode: false });
    assert.match(endpoint.id ?? '', /^whep_/, JSON.stringify(endpoint));

    const key = m.keys.sandbox.api_key as string;
    const payload = JSON.stringify(depositBody({ amount_minor: 20_000 }));
    const created = await fetch(`${base}/v1/pay/deposits`, { method: 'POST', headers: { ...signedHeaders(key, 'POST', '/v1/pay/deposits', payload, { idempotencyKey: randomUUID() }), 'Content-Type': 'application/json' }, body: payload });
    const deposit = await created.json() as any;
    assert.is(created.status, 201, JSON.stringify(deposit));
    const upload = await fetch(deposit.slip_upload.upload_url, {
      method: 'POST', headers: { Authorization: `Bearer ${deposit.slip_upload.token}`, 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' },
      body: JSON.stringify({ image_base64: pngSlip().toString('base64') }),
    });
    assert.is(upload.status, 202, await upload.text());

    await until('the slip\'s verdict is a line naming the deposit', () => lines().some((l) => l.msg === 'slip verified' && l.deposit_id === deposit.id));
    const verdict = lines().find((l) => l.msg === 'slip verified' && l.deposit_id === deposit.id)!;
    assert.equal([verdict.verdict, verdict.status], ['found', 'settled']);
    await until('a failed webhook attempt is a line', () => lines().some((l) => l.msg === 'webhook attempt failed; retried' && l.merchant_id === m.id));
    const attempt = lines().find((l) => l.msg === 'webhook attempt failed; retried' && l.merchant_id === m.id)!;
    assert.equal([attempt.endpoint_id, attempt.attempt, attempt.error], [endpoint.id, 1, 'connection_refused']);
    assert.match(attempt.delivery_id, /^whd_/);

    const requests = lines().filter((l) => l.msg === 'request');
    assert.ok(requests.some((l) => l.route === '/v1/pay/deposits' && l.merchant_id === m.id), 'the create names its merchant');
    assert.ok(requests.some((l) => l.route === `/v1/pay/deposits/${deposit.id}/slip` && l.merchant_id === m.id), 'the end user\'s upload names the order\'s merchant');
    assert.ok(requests.some((l) => l.route === '/v1/bo/merchants' && l.operator === 'emp_trace'), 'an operator call names its operator');
    // A secret or an account number pasted into a URL's path stays out of the log, a route matched or not (the log and logs.db).
    const pasted = [`/v1/pay/nonexistent/${key}`, `/v1/bo/deposits/${token}`, '/v1/bo/nonexistent/987-6-54321-0/9876543210'];
    for (const path of pasted) await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}` } });
    await until('the pasted paths are logged', () => lines().filter((l) => l.msg === 'request' && /nonexistent|deposits\/\[redacted\]/.test(l.route)).length === 3);
    assert.ok(requests.length > 0 && lines().some((l) => l.route === '/v1/bo/nonexistent/xxxxxx3210/xxxxxx3210'), 'account numbers masked to their last four');
    assert.not.ok(stdout.includes('SECRETQ') || stdout.includes(key) || stdout.includes(token) || stdout.includes('9876543210') || stdout.includes('54321'), 'no secret and no account number in the log');
    // A request Node's parser refused (a Content-Length that is no number) is answered before the app: its Request-Id is on a log line too.
    const unparsed = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /v1/pay/balance HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'));
      let text = '';
      socket.on('data', (d) => { text += d; });
      socket.on('close', () => resolve(text));
      socket.on('error', () => {});
    });
    const unparsedId = /\r\nRequest-Id: (req_\w+)\r\n/.exec(unparsed)?.[1];
    assert.ok(unparsed.startsWith('HTTP/1.1 400 ') && unparsedId, unparsed.slice(0, 200));
    await until('the parser\'s refusal is a request line with its Request-Id', () => lines().some((l) => l.msg === 'request' && l.request_id === unparsedId && l.status === 400 && l.code === 'malformed_request'));
    const logsDb = new Database(join(dataDir, 'logs.db'), { readonly: true });
    const actionLog = new Database(join(dataDir, 'journal.db'), { readonly: true });
    try {
      // logs.db is written off the request thread: wait for the pasted paths' rows.
      await until('logs.db holds the pasted paths\' rows', () => (logsDb.prepare(`SELECT count(*) AS n FROM request_logs WHERE route LIKE '%nonexistent%' OR route = '/v1/bo/deposits/:id'`).get() as { n: number }).n >= 3);
      assert.ok((actionLog.prepare(`SELECT count(*) AS n FROM action_log WHERE route LIKE '/v1/bo/nonexistent/%'`).get() as { n: number }).n === 1, 'the action log has the pasted path\'s row');
      for (const db of [logsDb, actionLog]) {
        const text = JSON.stringify(db.prepare(`SELECT * FROM ${db === logsDb ? 'request_logs' : 'action_log'}`).all());
        assert.not.ok(text.includes(key) || text.includes(token) || text.includes('9876543210') || text.includes('54321'), `${db === logsDb ? 'logs.db' : 'the action log'} keeps no secret and no account number`);
      }
    } finally {
      logsDb.close();
      actionLog.close();
    }
  } finally {
    server.kill('SIGTERM');
    await exited;
  }
});

test.run();
