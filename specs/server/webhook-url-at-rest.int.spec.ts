// A webhook endpoint's URL with its secret in the path (a Slack-style
// https://hooks.example.com/services/T000/B000/XXXX…), not only in a ?token=: no file of the
// data dir keeps the path in clear after the endpoint is created or moved there (journal.db's
// endpoints table: scheme, host and a fingerprint beside the sealed URL; logs.db: the host
// and "/[redacted]"), deliveries still go to the whole URL, rows an older build kept in clear
// are sealed when the server opens the data dir (once), and the secrets-at-rest scan of
// `satang verify` and `satang doctor` flags a path kept in clear in either file.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sealer } from '../../adapters/sealing.ts';
import { openDatabaseReadOnly } from '../../adapters/sqlite/schema.ts';
import { scanDataDir } from '../../adapters/sqlite/verify-at-rest.ts';
import { RequestLogStore, type RequestLogRecord } from '../../adapters/request-log.ts';
import { urlPurpose } from '../../adapters/webhooks/endpoints.ts';
import { TestServer } from '../support/server-harness.ts';
import { addEndpoint, advance, emitEvent, second } from '../webhooks/support.ts';

const freshDataDir = () => join(mkdtempSync(join(tmpdir(), 'satang-hook-url-')), 'data');
const fingerprint = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 12);

/** Every file of the data dir, each as bytes. */
function bytesOf(dir: string): Buffer {
  const files: Buffer[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    files.push(statSync(path).isDirectory() ? bytesOf(path) : readFileSync(path));
  }
  return Buffer.concat(files);
}

/** The endpoints table as it is on disk. */
function rows(dataDir: string): Map<string, { url: string; url_sealed: string | null }> {
  const db = new Database(join(dataDir, 'journal.db'), { readonly: true });
  try {
    return new Map(db.prepare<[], { id: string; url: string; url_sealed: string | null }>('SELECT id, url, url_sealed FROM webhook_endpoints').all().map(({ id, ...r }) => [id, r]));
  } finally {
    db.close();
  }
}

/** satang verify's scan: the files, and journal.db's endpoints table. */
function verifyScan(dataDir: string) {
  const db = openDatabaseReadOnly(dataDir);
  try {
    return scanDataDir(dataDir, { journal: db });
  } finally {
    db.close();
  }
}

/** A receiver that records the path each delivery was posted to. */
async function pathRecorder(): Promise<{ origin: string; paths: string[]; close(): Promise<void> }> {
  const paths: string[] = [];
  const server = createServer((req: IncomingMessage, res) => { paths.push(req.url ?? ''); req.resume(); req.on('end', () => { res.statusCode = 204; res.end(); }); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test('created or moved to a URL with a secret path, no file keeps the path: the table keeps host and fingerprint, the log the host; deliveries go to the whole URL', async () => {
  const dataDir = freshDataDir();
  const key = randomBytes(32).toString('base64');
  const receiver = await pathRecorder();
  const s = await TestServer.start({ SATANG_MASTER_KEY: key }, dataDir);
  const created = `${receiver.origin}/services/T000/B000/CREATEDSECRETPATH`;
  const moved = `${receiver.origin}/services/T000/B000/MOVEDSECRETPATH`;
  let createdId = '', movedId = '', originId = '';
  try {
    const m = await s.onboard('Slack hooks');
    createdId = await addEndpoint(s, m.id, created);
    movedId = await addEndpoint(s, m.id, `${receiver.origin}/first`);
    const update = await s.bo('POST', `/v1/bo/webhooks/${movedId}`, { url: moved });
    assert.is(update.status, 200, update.text);
    originId = await addEndpoint(s, m.id, 'https://origin.example.com/', false);
    assert.is((await s.bo('GET', `/v1/bo/webhooks/${createdId}`)).json.url, created, 'ops_admin reads it whole');
    await emitEvent(s, m);
    await advance(s, 5 * second);
    for (let i = 0; i < 50 && receiver.paths.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(receiver.paths.sort(), ['/services/T000/B000/CREATEDSECRETPATH', '/services/T000/B000/MOVEDSECRETPATH'], 'each delivery went to its whole URL');
  } finally {
    await s.stop(false);
    await receiver.close();
  }
  try {
    const table = rows(dataDir);
    assert.is(table.get(createdId)!.url, `${receiver.origin}/… sha256:${fingerprint(created)}`);
    assert.is(table.get(movedId)!.url, `${receiver.origin}/… sha256:${fingerprint(moved)}`);
    assert.ok(table.get(createdId)!.url_sealed && table.get(movedId)!.url_sealed);
    assert.equal(table.get(originId), { url: 'https://origin.example.com/', url_sealed: null }, 'a bare origin hides nothing: kept as it is');
    const bytes = bytesOf(dataDir);
    for (const secret of ['CREATEDSECRETPATH', 'MOVEDSECRETPATH', '/services/T000']) assert.not.ok(bytes.includes(Buffer.from(secret)), `${secret} in clear in the data dir`);
    const report = verifyScan(dataDir);
    assert.ok(report.ok, report.findings.join('\n'));
  } finally {
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  }
});

test("an older build's clear rows are sealed when the server opens the data dir, once: a path kept whole, a query URL's path beside its sealed URL; satang verify flags them before", async () => {
  const dataDir = freshDataDir();
  const masterKey = randomBytes(32);
  const env = { SATANG_MASTER_KEY: masterKey.toString('base64') };
  const s = await TestServer.start(env, dataDir);
  const m = await s.onboard('Old hooks');
  await s.stop(false);
  const slack = 'https://hooks.example.com/services/T000/B000/OLDSECRETPATH';
  const withQuery = 'https://old.example/OLDQUERYPATH/in?token=oldTOKEN7788';
  const db = new Database(join(dataDir, 'journal.db'));
  const insert = db.prepare(`INSERT INTO webhook_endpoints (id, merchant_id, livemode, url, url_sealed, event_types, status, created_at) VALUES (?, ?, 1, ?, ?, NULL, 'enabled', 0)`);
  // As the build before kept them: a URL without a query whole, one with a query with its path in clear and its values redacted.
  insert.run('whep_oldpath', m.id, slack, null);
  insert.run('whep_oldquery', m.id, 'https://old.example/OLDQUERYPATH/in?token=[redacted]', new Sealer(masterKey).seal(withQuery, urlPurpose('whep_oldquery')));
  insert.run('whep_oldorigin', m.id, 'https://origin.example/', null);
  db.close();
  const before = verifyScan(dataDir);
  assert.not.ok(before.ok);
  assert.equal(before.findings.filter((f) => f.includes('webhook endpoint')), [
    "journal.db: webhook endpoint whep_oldpath: its URL's path or query in clear (webhook_endpoints.url)",
    "journal.db: webhook endpoint whep_oldquery: its URL's path or query in clear (webhook_endpoints.url)",
  ]);
  const satang = (args: string[]) => spawnSync(fileURLToPath(new URL('../../scripts/satang', import.meta.url)), args, { encoding: 'utf8', env: { ...process.env, SATANG_LOG_LEVEL: 'silent', ...env } });
  const doctorCheck = (name: string) => {
    const doctor = satang(['doctor', '--data-dir', dataDir, '--url', 'http://127.0.0.1:9', '--json']);
    return { ...JSON.parse(doctor.stdout).checks.find((c: { check: string }) => c.check === name), raw: doctor.stdout };
  };
  const atRest = doctorCheck('at rest');
  assert.is(atRest.level, 'FAIL', atRest.raw);
  assert.ok(atRest.detail.includes('webhook endpoint whep_oldpath'), atRest.detail);
  // A backup taken now keeps the old rows as they are (the journal verifies): the server's sealing cannot reach it.
  const oldBackup = join(dataDir, '..', 'backup-before-sealing');
  const backedUp = satang(['backup', '--to', oldBackup, '--data-dir', dataDir]);
  assert.is(backedUp.status, 0, backedUp.stdout + backedUp.stderr);
  try {
    const again = await TestServer.start(env, dataDir);
    try {
      assert.is((await again.bo('GET', '/v1/bo/webhooks/whep_oldpath')).json.url, slack, 'the URL opens whole');
      assert.is((await again.bo('GET', '/v1/bo/webhooks/whep_oldquery')).json.url, withQuery);
      assert.is((await again.bo('GET', '/v1/bo/webhooks/whep_oldpath', undefined, { roles: ['support'] })).json.url, 'https://hooks.example.com/[redacted]');
    } finally {
      await again.stop(false);
    }
    const table = rows(dataDir);
    assert.is(table.get('whep_oldpath')!.url, `https://hooks.example.com/… sha256:${fingerprint(slack)}`);
    assert.is(table.get('whep_oldquery')!.url, `https://old.example/… sha256:${fingerprint(withQuery)}`);
    assert.equal(table.get('whep_oldorigin'), { url: 'https://origin.example/', url_sealed: null });
    const bytes = bytesOf(dataDir);
    for (const secret of ['OLDSECRETPATH', 'OLDQUERYPATH', 'oldTOKEN7788']) assert.not.ok(bytes.includes(Buffer.from(secret)), `${secret} left in the data dir's bytes (not vacuumed?)`);
    const after = verifyScan(dataDir);
    assert.ok(after.ok, after.findings.join('\n'));
    // The data dir is clean now, its last backup not: doctor says so, and what to do.
    const stale = doctorCheck('backup');
    assert.is(stale.level, 'WARN', stale.raw);
    assert.match(stale.detail, /keeps 2 webhook endpoint URLs with the path or query in clear .*take a new backup \(satang backup --to DIR\) and delete that one/);
    assert.is(doctorCheck('at rest').level, 'OK');
    const renewed = satang(['backup', '--to', join(dataDir, '..', 'backup-after-sealing'), '--data-dir', dataDir]);
    assert.is(renewed.status, 0, renewed.stdout + renewed.stderr);
    assert.is(doctorCheck('backup').level, 'OK', 'a backup taken since holds only sealed URLs');
    // Opened again: nothing left to seal, each sealed value kept as it was.
    const third = await TestServer.start(env, dataDir);
    await third.stop(false);
    assert.equal(rows(dataDir), table);
  } finally {
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  }
});

test('an origin with an empty query ("https://host/?") is sealed as any URL with a query: satang verify passes, and a restart has nothing to seal', async () => {
  const dataDir = freshDataDir();
  const env = { SATANG_MASTER_KEY: randomBytes(32).toString('base64') };
  const s = await TestServer.start(env, dataDir);
  let id = '';
  try {
    const m = await s.onboard('Empty query');
    id = await addEndpoint(s, m.id, 'https://origin.example.com/?');
    assert.is((await s.bo('GET', `/v1/bo/webhooks/${id}`)).json.url, 'https://origin.example.com/?', 'ops_admin reads it as given');
  } finally {
    await s.stop(false);
  }
  try {
    const table = rows(dataDir);
    assert.is(table.get(id)!.url, `https://origin.example.com/… sha256:${fingerprint('https://origin.example.com/?')}`);
    assert.ok(table.get(id)!.url_sealed);
    const report = verifyScan(dataDir);
    assert.ok(report.ok, report.findings.join('\n'));
    const again = await TestServer.start(env, dataDir);
    await again.stop(false);
    assert.equal(rows(dataDir), table, 'opened again: nothing resealed');
  } finally {
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  }
});

test("the scan flags a webhook URL's path a logged body kept in clear in logs.db, not one redacted or cut", () => {
  const dir = freshDataDir();
  mkdirSync(dir, { mode: 0o700 });
  const store = new RequestLogStore(dir);
  const at = Date.UTC(2026, 10, 1);
  const entry = (requestId: string, requestBody: string): RequestLogRecord => ({
    at, requestId, merchantId: null, livemode: null, keyId: null, ip: '127.0.0.1', operator: 'emp_x', method: 'POST', route: '/v1/bo/merchants/:id/webhook-endpoints',
    status: 201, durationMs: 1, errorCode: null, requestBody, responseBody: null,
  });
  try {
    store.append([
      entry('req_redacted', '{"url":"https://hooks.example.com/[redacted]?[redacted]"}'),
      entry('req_origin', '{"url":"https://origin.example.com/","endpoint_url":"https://q.example/?[redacted]"}'),
      entry('req_cut', '{"url":"https://hooks.example.com/…[truncated]'),
    ], at);
    assert.ok(scanDataDir(dir).ok, scanDataDir(dir).findings.join('\n'));
    store.append([entry('req_clear', '{"URL":"https://hooks.example.com/services/T000/B000/XXXXSECRETPATH"}')], at);
    const report = scanDataDir(dir);
    assert.ok(report.findings.some((f) => f.startsWith("logs.db") && f.includes("a webhook URL's path (a logged body) in clear")), report.findings.join('\n'));
  } finally {
    store.close();
    rmSync(join(dir, '..'), { recursive: true, force: true });
  }
});

test.run();
