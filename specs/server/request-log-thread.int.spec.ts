// The request log's worker thread (server/request-log-thread.ts, request-log-worker.ts):
// redaction, truncation and the writes to logs.db happen on the worker, and give the rows
// the API's thread used to store. The API's thread never loads the redaction (no import
// from server/main.ts reaches server/redact.ts), and a row arrives in logs.db, redacted,
// while the API's thread is busy and never yields. close() writes everything still buffered or handed over, then closes
// logs.db. A worker that dies is logged and started again, and the rows added meanwhile
// are written by the next one. Over HTTP, the row of a signed create-deposit equals
// bodyForLog of the body sent and of the answer received, and the answer's bytes are
// unchanged (its JSON text, now made by the audit middleware instead of Koa).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestLogThread, type BodyHandoff, type RequestLogEntry, type RequestLogThreadLog } from '../../server/request-log-thread.ts';
import { RequestLogReader, RequestLogStore, requestLogFileName, type RequestLogRecord } from '../../adapters/request-log.ts';
import { bodyForLog, redactionRulesVersion, redactStoredBody } from '../../server/redact.ts';
import { backOfficeLimits } from '../../core/limits.ts';
import { TestServer, depositBody } from '../support/server-harness.ts';
import { importGraph, sourceFiles } from '../structure/source-files.ts';

const now = Date.UTC(2026, 10, 1);
const jwt = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJlbXBfYXVkaXQiLCJyb2xlcyI6WyJzdXBwb3J0Il19.qg7C7Kv4ARE-0Pza5oEWlAyQUXxp';

function entry(requestId: string, requestBody: BodyHandoff = null, responseBody: BodyHandoff = null): RequestLogEntry {
  return { at: now, requestId, merchantId: 'mch_1', livemode: true, keyId: 'key_1', ip: '127.0.0.1', operator: null, method: 'POST', route: '/v1/pay/deposits', status: 201, durationMs: 3, errorCode: null, requestBody, responseBody };
}

/** A log that keeps its lines, and resolves a promise when a line with a given message arrives. */
function recordingLog(): RequestLogThreadLog & { lines: { message: string; fields: Record<string, unknown> }[]; next(message: string): Promise<Record<string, unknown>> } {
  const lines: { message: string; fields: Record<string, unknown> }[] = [];
  const waiting: { message: string; resolve: (fields: Record<string, unknown>) => void }[] = [];
  const record = (fields: object, message: string) => {
    lines.push({ message, fields: fields as Record<string, unknown> });
    for (const w of waiting.filter((x) => x.message === message)) w.resolve(fields as Record<string, unknown>);
  };
  return { lines, error: record, warn: record, next: (message) => new Promise((resolve) => waiting.push({ message, resolve })) };
}

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'satang-request-log-'));
  try {
    await run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const request = depositBody({ api_key: 'sk_live_abcdefghijkl', sender: { bank_code: '014', account_number: '9876543210', account_name_th: 'สมชาย ใจดี' } });
const answer = { id: 'dep_1', legs: [{ qr_payload: '000201010212', receiver: { account_name_masked: 'สมหญิง ร***' } }], slip_upload: { token: jwt }, memo: 'ก'.repeat(700) };

test('the API\'s thread never loads the redaction: the worker is the only way into server/redact.ts', () => {
  const graph = importGraph(sourceFiles(['core', 'adapters', 'server', 'projections']));
  const loaded = new Set<string>();
  const work = ['server/main.ts'];
  for (let file = work.pop(); file !== undefined; file = work.pop()) {
    if (loaded.has(file)) continue;
    loaded.add(file);
    work.push(...(graph.get(file) ?? []));
  }
  assert.ok(loaded.has('server/routes/bo-audit.ts') && loaded.has('server/request-log-thread.ts'));
  assert.is(loaded.has('server/redact.ts'), false, 'server/main.ts reaches server/redact.ts');
  assert.is(loaded.has('server/request-log-worker.ts'), false);
  assert.ok(graph.get('server/request-log-worker.ts')!.includes('server/redact.ts'));
});

test('redaction and truncation run on the worker: the row arrives while this thread never yields, as bodyForLog gives it', () => withDir(async (dir) => {
  const thread = new RequestLogThread(dir, recordingLog(), () => now);
  try {
    thread.add(entry('req_warm'));
    await thread.page({ limit: 1 }); // the worker is up
    thread.add(entry('req_known', JSON.stringify(request), JSON.stringify(answer)));
    thread.flush();
    // From here until the row is found this thread runs one synchronous loop: only another thread can redact and write it.
    const probe = new Database(join(dir, requestLogFileName), { readonly: true });
    const find = probe.prepare<[string], { request_body: string; response_body: string }>('SELECT request_body, response_body FROM request_logs WHERE request_id = ?');
    const until = Date.now() + 10_000;
    let row = find.get('req_known');
    while (row === undefined && Date.now() < until) row = find.get('req_known');
    probe.close();
    assert.ok(row, 'the worker wrote the row within 10 s');
    assert.equal(row, { request_body: bodyForLog(request), response_body: bodyForLog(answer) });
    assert.match(row.request_body, /"account_number":"xxxxxx3210".*"api_key":"\[redacted\]"/);
    assert.match(row.response_body, /"qr_payload":"\[redacted\]".*"token":"\[redacted\]".*…\[truncated\]$/);
  } finally {
    await thread.close();
  }
}));

test('close() writes every row still buffered or handed over, then closes logs.db', () => withDir(async (dir) => {
  const log = recordingLog();
  const thread = new RequestLogThread(dir, log, () => now);
  const rows = backOfficeLimits.requestLogFlushRowsMax * 2 + 234; // two batches handed over as they fill, the rest buffered
  const requestOf = (i: number) => ({ n: i, api_key: `sk_live_${'k'.repeat(12)}${i}` });
  for (let i = 0; i < rows; i++) thread.add(entry(`req_${i}`, JSON.stringify(requestOf(i)), JSON.stringify({ id: `dep_${i}` })));
  await thread.close(); // the worker may not even have started yet
  assert.equal(log.lines, [], 'nothing lost, nothing dropped');
  assert.is(existsSync(join(dir, `${requestLogFileName}-wal`)), false, 'every connection closed (the last one to close removes the WAL)');
  const reader = new RequestLogReader(dir);
  try {
    const stored = reader.page({ limit: rows + 1 });
    assert.is(stored.length, rows);
    assert.equal(stored.map((r) => r.request_id), Array.from({ length: rows }, (_, i) => `req_${rows - 1 - i}`));
    assert.equal([stored[0]!.request_body, stored[0]!.response_body], [bodyForLog(requestOf(rows - 1)), `{"id":"dep_${rows - 1}"}`]);
  } finally {
    reader.close();
  }
}));

test('a worker that dies is logged and started again; rows added meanwhile are written by the next one', () => withDir(async (dir) => {
  const log = recordingLog();
  const thread = new RequestLogThread(dir, log, () => now);
  // The thread's worker and timers are unref'd (a server's sockets keep its process up); here nothing else would while the worker dies.
  const keepAlive = setInterval(() => {}, 1_000);
  try {
    thread.add(entry('req_before'));
    await thread.page({ limit: 1 });
    const exited = log.next('request log worker exited; starting it again');
    // A damaged store: the worker's next insert fails, and the exception ends the worker.
    const db = new Database(join(dir, requestLogFileName));
    db.exec('DROP TABLE request_logs');
    db.close();
    thread.add(entry('req_lost'));
    thread.flush();
    assert.equal((await exited).rows_lost, 1);
    assert.ok(log.lines.some((l) => l.message === 'request log worker failed' && /no such table/.test(String(l.fields.err))));
    thread.add(entry('req_after'));
    // The read waits for the new worker (started after requestLogWorkerRetryMs), which recreates the table.
    let found: string[] = [];
    for (let attempt = 0; attempt < 3 && found.length === 0; attempt++) found = (await thread.page({ limit: 10 })).map((r) => r.request_id);
    assert.equal(found, ['req_after']);
  } finally {
    clearInterval(keepAlive);
    await thread.close();
  }
}));

test('rows an older build kept under older rules are redacted again when the worker opens logs.db, once, and their old bytes are gone', () => withDir(async (dir) => {
  // As a build before the rules' version kept them: a webhook URL's token and an account number sent as a JSON number, in clear.
  const old = new RequestLogStore(dir);
  const hook = '{"url":"https://hooks.example/in?token=s3cr3t-t0ken-q","event_types":["deposit.settled"]}';
  const numeric = '{"sender":{"bank_code":"014","account_number":5566778899}}';
  old.append([
    { ...entry('req_hook'), route: '/v1/pay/webhook_endpoints', requestBody: hook, responseBody: `{"id":"we_1","url":"https://hooks.example/in?token=s3cr3t-t0ken-q","secret":"whsec_x"}` },
    { ...entry('req_numeric'), requestBody: numeric, responseBody: null },
    { ...entry('req_today'), requestBody: bodyForLog(request), responseBody: bodyForLog(answer) },
  ], now);
  old.close();
  const file = join(dir, requestLogFileName);
  const raw = new Database(file);
  raw.pragma('user_version = 0');
  raw.close();

  const log = recordingLog();
  const redone = log.next('request log: rows an older build kept were redacted again under this build\'s rules (logs.db vacuumed)');
  const thread = new RequestLogThread(dir, log, () => now);
  const alive = setInterval(() => undefined, 1000); // the worker is unref'd: keep the process up while its line is awaited
  try {
    // Read at once: the read waits for the new worker's first batch, which it acknowledges only once the old rows are redacted again.
    const rows = new Map((await thread.page({ limit: 10 })).map((r) => [r.request_id, r]));
    const late = new Promise((_, reject) => setTimeout(() => reject(new Error('no line said the old rows were redacted again')), 15_000).unref());
    assert.equal(await Promise.race([redone, late]), { rows: 2 }, 'the two old rows; today\'s row is unchanged');
    assert.is(rows.get('req_hook')!.request_body, '{"url":"https://hooks.example/[redacted]?[redacted]","event_types":["deposit.settled"]}');
    assert.is(rows.get('req_hook')!.response_body, '{"id":"we_1","url":"https://hooks.example/[redacted]?[redacted]","secret":"[redacted]"}');
    assert.is(rows.get('req_numeric')!.request_body, '{"sender":{"bank_code":"014","account_number":"xxxxxx8899"}}');
    assert.equal([rows.get('req_today')!.request_body, rows.get('req_today')!.response_body], [bodyForLog(request), bodyForLog(answer)]);
  } finally {
    clearInterval(alive);
    await thread.close();
  }
  const bytes = Buffer.concat(readdirSync(dir).filter((f) => f.startsWith(requestLogFileName)).map((f) => readFileSync(join(dir, f))));
  for (const secret of ['s3cr3t-t0ken-q', '5566778899', 'whsec_x']) assert.not.ok(bytes.includes(Buffer.from(secret)), `${secret} left in logs.db's bytes`);
  const after = new Database(file, { readonly: true });
  assert.is(after.pragma('user_version', { simple: true }), redactionRulesVersion);
  after.close();
  // Opened again under the same rules: nothing to redo, nothing said.
  const quiet = recordingLog();
  const again = new RequestLogThread(dir, quiet, () => now);
  await again.page({ limit: 1 });
  await again.close();
  assert.equal(quiet.lines, []);
}));

test("a logs.db kept under the rules before webhook URL paths were redacted (version 2) loses a Slack-style path when the worker opens it", () => withDir(async (dir) => {
  const old = new RequestLogStore(dir);
  const slack = '{"url":"https://hooks.example.com/services/T000/B000/XXXXSECRETPATH","livemode":true}';
  old.append([{ ...entry('req_slack'), route: '/v1/bo/merchants/:id/webhook-endpoints', requestBody: slack, responseBody: `{"id":"whep_1","url":"https://hooks.example.com/services/T000/B000/XXXXSECRETPATH"}` }], now);
  old.close();
  const file = join(dir, requestLogFileName);
  const raw = new Database(file);
  raw.pragma('user_version = 2');
  raw.close();
  const thread = new RequestLogThread(dir, recordingLog(), () => now);
  try {
    const [row] = await thread.page({ limit: 1 });
    assert.is(row!.request_body, '{"url":"https://hooks.example.com/[redacted]","livemode":true}');
    assert.is(row!.response_body, '{"id":"whep_1","url":"https://hooks.example.com/[redacted]"}');
  } finally {
    await thread.close();
  }
  const bytes = Buffer.concat(readdirSync(dir).filter((f) => f.startsWith(requestLogFileName)).map((f) => readFileSync(join(dir, f))));
  assert.not.ok(bytes.includes(Buffer.from('XXXXSECRETPATH')), "the path left in logs.db's bytes");
}));

/** logs.db's free pages and user_version, read on a connection of its own (a VACUUM leaves no free page). */
function fileState(dir: string): { freePages: number; version: number } {
  const db = new Database(join(dir, requestLogFileName), { readonly: true });
  try {
    return { freePages: db.pragma('freelist_count', { simple: true }) as number, version: db.pragma('user_version', { simple: true }) as number };
  } finally {
    db.close();
  }
}

/** A store holding `kept` rows made by `row`, beside pages freed by a prune (rows past the retention deleted). */
function storeWithFreePages(dir: string, kept: number, row: (i: number) => RequestLogRecord): RequestLogStore {
  const store = new RequestLogStore(dir);
  const lapsed = now - backOfficeLimits.requestLogRetentionMs - 1;
  store.append(Array.from({ length: 300 }, (_, i) => ({ ...entry(`req_old_${i}`), at: lapsed, requestBody: bodyForLog(request), responseBody: bodyForLog(answer) })), now - 2 * backOfficeLimits.requestLogRetentionMs);
  store.append(Array.from({ length: kept }, (_, i) => row(i)), now - 2 * backOfficeLimits.requestLogRetentionMs);
  assert.is(store.prune(now), 300);
  return store;
}

test('a rules bump with no row to change leaves logs.db as it was: no vacuum (its free pages kept), the version recorded, nothing said', () => withDir(async (dir) => {
  storeWithFreePages(dir, 20, (i) => ({ ...entry(`req_today_${i}`), requestBody: bodyForLog(request), responseBody: bodyForLog(answer) })).close();
  const raw = new Database(join(dir, requestLogFileName));
  raw.pragma('user_version = 0');
  raw.close();
  const before = fileState(dir);
  assert.ok(before.freePages > 0, 'the prune freed pages');
  const log = recordingLog();
  const thread = new RequestLogThread(dir, log, () => now);
  try {
    assert.is((await thread.page({ limit: 100 })).length, 20);
  } finally {
    await thread.close();
  }
  assert.equal(fileState(dir), { freePages: before.freePages, version: redactionRulesVersion }, 'vacuumed though no row changed');
  assert.equal(log.lines, []);
}));

test('a rewrite cut short before its vacuum is vacuumed by the next one, though it finds nothing left to change: the old bytes are gone', () => withDir(async (dir) => {
  const hook = '{"url":"https://hooks.example/in?token=s3cr3t-t0ken-q"}';
  // Two pages of the rewrite: the first with a token to redact, the second with nothing to change.
  const page = backOfficeLimits.requestLogRedactAgainRowsMax;
  const store = storeWithFreePages(dir, page + 20, (i) => ({ ...entry(`req_${i}`), requestBody: i < page ? hook : bodyForLog(request), responseBody: i < page ? hook : bodyForLog(answer) }));
  let bodies = 0;
  const cutShort = (text: string) => {
    if (++bodies > 2 * page) throw new Error('the start stops here'); // the first page committed
    return redactStoredBody(text);
  };
  assert.throws(() => store.redactStored(redactionRulesVersion, cutShort), /the start stops here/);
  const owed = fileState(dir);
  assert.ok(owed.freePages > 0 && owed.version < 0, `the first page's rewrite says a vacuum is owed: ${JSON.stringify(owed)}`);
  assert.is(store.redactStored(redactionRulesVersion, redactStoredBody), 0, 'nothing left to change');
  store.close();
  assert.equal(fileState(dir), { freePages: 0, version: redactionRulesVersion });
  const again = new RequestLogStore(dir);
  again.close();
  const bytes = Buffer.concat(readdirSync(dir).filter((f) => f.startsWith(requestLogFileName)).map((f) => readFileSync(join(dir, f))));
  assert.not.ok(bytes.includes(Buffer.from('s3cr3t-t0ken-q')), "the token left in logs.db's bytes");
}));

test('over HTTP: the row of a signed create-deposit is bodyForLog of the body sent and the answer received; the answer is its JSON text', async () => {
  const s = await TestServer.start();
  try {
    const m = await s.onboard('Logged');
    const ben = await s.beneficiary(m.id);
    await s.fund(m.id, 1_000_000);
    const w = await s.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 500_000, currency: 'THB', merchant_reference: 'log-w', end_user_ref: 'payee', beneficiary_id: ben });
    assert.is(w.status, 201, w.text);
    const sent = depositBody({ amount_minor: 50_000 });
    const d = await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', sent);
    assert.is(d.status, 201, d.text);
    assert.is(d.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.is(d.headers.get('content-length'), String(Buffer.byteLength(d.text)));
    assert.is(d.text, JSON.stringify(d.json));
    const found = await s.bo('GET', `/v1/bo/logs?request_id=${d.headers.get('x-request-id')}`, undefined, { roles: ['support'] });
    assert.is(found.status, 200, found.text);
    const row = found.json.data[0];
    assert.equal([row.request_body, row.response_body], [bodyForLog(sent), bodyForLog(d.json)]);
    assert.match(row.response_body, /"qr_payload":"\[redacted\]"/);
  } finally {
    await s.stop();
  }
});

test.run();
