// The two bare ceilings of `npm run bench:api`, each run as its own process: Koa +
// koa-body (parsed as the real app parses: strict JSON, raw body kept) + the nine-line
// HMAC check of server/hmac.ts with one fixed key, answering 201. With --fsync, each
// request also inserts one row into a WAL SQLite database at synchronous=FULL before it
// answers: the cost of one durable write per request, with no batching.
//
// Usage (forked by scripts/bench-api.ts): api-bare.ts --key SECRET [--fsync --db FILE].
// Tells the parent its port over IPC once it listens.

import Database from 'better-sqlite3';
import Koa from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { canonicalString, checkTimestamp, sha256Hex, verifySignatureHeader } from '../../server/hmac.ts';

const { values } = parseArgs({ options: { key: { type: 'string' }, fsync: { type: 'boolean', default: false }, db: { type: 'string' } } });
const secret = values.key;
if (!secret) throw new Error('--key is required');
if (values.fsync && !values.db) throw new Error('--fsync needs --db FILE');

/** One durable insert per call, or nothing. */
function durableInsert(): (id: number, body: string) => void {
  if (!values.fsync) return () => {};
  const db = new Database(values.db!);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE IF NOT EXISTS deposits (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO deposits (id, body) VALUES (?, ?)');
  return (id, body) => { insert.run(id, body); };
}

const insert = durableInsert();
let lastId = 0;

const app = new Koa();
app.use(koaBody({ jsonLimit: '64kb', includeUnparsed: true, multipart: false, urlencoded: false, text: false, jsonStrict: true, parsedMethods: [HttpMethodEnum.POST] }));
app.use((ctx) => {
  const raw = (ctx.request.body as Record<symbol, unknown> | undefined)?.[Symbol.for('unparsedBody')];
  const rawBody = typeof raw === 'string' ? raw : '';
  const timestamp = ctx.get('PG-Timestamp');
  const canonical = canonicalString({
    timestamp, nonce: ctx.get('PG-Nonce'), method: ctx.method, path: ctx.path, query: ctx.querystring,
    bodySha256Hex: sha256Hex(rawBody), idempotencyKey: ctx.get('Idempotency-Key'), version: ctx.get('PG-Version'),
  });
  if (checkTimestamp(timestamp, Math.floor(Date.now() / 1000)) !== 'ok' || !verifySignatureHeader(secret, canonical, ctx.get('PG-Signature'))) {
    ctx.status = 401;
    ctx.body = { error: { code: 'signature_invalid' } };
    return;
  }
  lastId += 1;
  insert(lastId, rawBody);
  ctx.status = 201;
  ctx.body = { id: `dep_bare_${lastId}`, object: 'deposit', status: 'created' };
});

const server = app.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
