// A merchant-side reference consumer of satang webhooks: what a merchant's receiver should
// do, runnable as it stands. It uses @noble/ed25519 (pure JavaScript, no OpenSSL) and
// better-sqlite3, and keeps the contract's rules in this order:
//   1. parse X-PG-Signature as key=value pairs; refuse |now − t| > 300 s (400);
//   2. find the public key by kid in GET /v1/webhooks/signing-keys, cached at most 24 h,
//      refetched once when the kid is unknown (a rotation), and before trusting a key the
//      list called retired when it was fetched more than a minute ago (a leaked key is
//      withdrawn from the list: the refetch drops it); verify the Ed25519 signature
//      over `v1.<t>.<event id>.` + the raw body bytes BEFORE parsing the body (401);
//   3. the body's id must equal X-PG-Event-Id and its livemode this receiver's mode (400);
//   4. one SQLite transaction: a transactional inbox (event_id primary key, kept ≥ 31
//      days) answers 200 to duplicates; the version guard updates an object only where
//      the stored version < the event's version and ties side effects to the affected-row
//      count, so a stale event is answered 200 with no effect. Balance transactions are
//      immutable: accumulated by id, never overwritten.
//
//   tsx scripts/webhook-consumer.ts --satang http://127.0.0.1:8080 --port 4000 --livemode false --db ./consumer.db
//
// As a library: new WebhookConsumer({ signingKeysUrl, livemode, db }).handle(headers, rawBody).

import * as ed from '@noble/ed25519';
import Database from 'better-sqlite3';
import { createServer } from 'node:http';

const toleranceSeconds = 300;
const keyCacheMs = 24 * 3600 * 1000;
/** An unknown kid refetches the list, but not more often than this (forged kids must not hammer the service). */
const unknownKidRefetchMsMin = 60 * 1000;
const inboxRetentionMs = 31 * 24 * 3600 * 1000;
const bodyBytesMax = 256 * 1024;

export interface PublishedKey { kid: string; raw_public_key: string; status: string; not_after?: string | null }
export type Outcome = 'applied' | 'duplicate' | 'stale' | 'rejected';
export interface Answer { status: number; outcome: Outcome; reason?: string }
type Headers = Record<string, string | string[] | undefined>;
type Json = { [key: string]: unknown };

export interface ConsumerOptions {
  signingKeysUrl: string;
  livemode: boolean;
  /** A path or an open database. */
  db: string | Database.Database;
  /** Unix milliseconds (injectable for tests). */
  now?: () => number;
  fetchKeys?: (url: string) => Promise<{ keys: PublishedKey[] }>;
  /** Runs inside the transaction when an event changed an object: the place for side effects (credit the user once). */
  onApplied?: (event: Json, object: Json) => void;
}

export class WebhookConsumer {
  readonly db: Database.Database;
  private keys = new Map<string, Uint8Array>();
  private fetchedAt = -Infinity;
  /** Per kid, when it stops signing (0: already retired when fetched; Infinity: no successor yet). */
  private retired = new Map<string, number>();

  private retiredAt(kid: string): boolean {
    const until = this.retired.get(kid);
    return until !== undefined && this.now() >= until;
  }
  private readonly now: () => number;
  private readonly apply: (event: Json) => Outcome;

  constructor(private readonly options: ConsumerOptions) {
    this.db = typeof options.db === 'string' ? new Database(options.db) : options.db;
    this.now = options.now ?? Date.now;
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS inbox (event_id TEXT PRIMARY KEY, type TEXT NOT NULL, received_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS objects (id TEXT PRIMARY KEY, object TEXT NOT NULL, version INTEGER NOT NULL, status TEXT, data TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS balance_transactions (id TEXT PRIMARY KEY, data TEXT NOT NULL);`);
    const inbox = this.db.prepare('INSERT INTO inbox (event_id, type, received_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
    const guard = this.db.prepare(`INSERT INTO objects (id, object, version, status, data) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET version = excluded.version, status = excluded.status, data = excluded.data WHERE objects.version < excluded.version`);
    const ledger = this.db.prepare('INSERT INTO balance_transactions (id, data) VALUES (?, ?) ON CONFLICT DO NOTHING');
    this.apply = this.db.transaction((event: Json): Outcome => {
      if (inbox.run(event.id, event.type, this.now()).changes === 0) return 'duplicate';
      const object = ((event.data as Json | undefined)?.object ?? {}) as Json;
      let changed: number;
      if (typeof object.id === 'string' && Number.isSafeInteger(object.version)) {
        changed = guard.run(object.id, String(object.object), object.version, typeof object.status === 'string' ? object.status : null, JSON.stringify(object)).changes;
      } else if (object.object === 'balance_transaction' && typeof object.id === 'string') {
        changed = ledger.run(object.id, JSON.stringify(object)).changes;
      } else {
        changed = 1; // no versioned object (e.g. webhook.key.rotating): the inbox is the whole effect
        if (event.type === 'webhook.key.rotating') this.fetchedAt = -Infinity; // pick up the announced key early
      }
      if (changed === 0) return 'stale';
      this.options.onApplied?.(event, object);
      return 'applied';
    });
  }

  async handle(headers: Headers, rawBody: Uint8Array): Promise<Answer> {
    const header = (name: string) => { const v = headers[name.toLowerCase()]; return Array.isArray(v) ? v[0] : v; };
    const sig = parseSignature(header('X-PG-Signature') ?? '');
    if (!sig) return rejected(400, 'malformed X-PG-Signature');
    if (Math.abs(Math.floor(this.now() / 1000) - sig.t) > toleranceSeconds) return rejected(400, 'timestamp outside ±300 s');
    const eventId = header('X-PG-Event-Id') ?? '';
    const key = await this.keyFor(sig.kid);
    if (!key) return rejected(401, `unknown kid ${sig.kid}`);
    const signed = concat(new TextEncoder().encode(`v1.${sig.t}.${eventId}.`), rawBody);
    let valid = false;
    try { valid = await ed.verifyAsync(Buffer.from(sig.s, 'base64url'), signed, key); } catch { valid = false; }
    if (!valid) return rejected(401, 'signature does not verify');
    let event: Json;
    try { event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(rawBody)) as Json; } catch { return rejected(400, 'body is not JSON'); }
    if (event.id !== eventId) return rejected(400, 'body id differs from X-PG-Event-Id');
    if (event.livemode !== this.options.livemode) return rejected(400, 'livemode mismatch');
    return { status: 200, outcome: this.apply(event) };
  }

  /** The stored snapshot of an object (as the version guard left it). */
  object(id: string): { version: number; status: string | null; data: Json } | undefined {
    const row = this.db.prepare<[string], { version: number; status: string | null; data: string }>('SELECT version, status, data FROM objects WHERE id = ?').get(id);
    return row && { version: row.version, status: row.status, data: JSON.parse(row.data) as Json };
  }

  /** Forgets inbox rows older than 31 days (run daily). */
  prune(): number {
    return this.db.prepare('DELETE FROM inbox WHERE received_at < ?').run(this.now() - inboxRetentionMs).changes;
  }

  private async keyFor(kid: string): Promise<Uint8Array | undefined> {
    const age = this.now() - this.fetchedAt;
    if (age > keyCacheMs) await this.refresh();
    else if (!this.keys.has(kid) && age >= unknownKidRefetchMsMin) await this.refresh(); // one refetch on an unknown kid
    // A retired key signs nothing new once the next one signs: a signature by it is a late
    // retry or a forgery with a leaked key, which the service withdraws from the list. Retired
    // as the list said, or by time since (its not_after has passed; the copy may be older).
    else if (this.retiredAt(kid) && age >= unknownKidRefetchMsMin) await this.refresh();
    return this.keys.get(kid);
  }

  private async refresh(): Promise<void> {
    const fetchKeys = this.options.fetchKeys ?? (async (url: string) => (await fetch(url)).json() as Promise<{ keys: PublishedKey[] }>);
    const doc = await fetchKeys(this.options.signingKeysUrl);
    this.keys = new Map(doc.keys.map((k) => [k.kid, new Uint8Array(Buffer.from(k.raw_public_key, 'base64url'))]));
    this.retired = new Map(doc.keys.map((k) => [k.kid, k.status === 'retired' ? 0 : k.not_after ? Date.parse(k.not_after) : Infinity]));
    this.fetchedAt = this.now();
  }
}

function parseSignature(header: string): { kid: string; t: number; s: string } | undefined {
  const parts = header.split(',').map((p) => p.trim());
  const pairs = new Map(parts.filter((p) => p.includes('=')).map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)] as const));
  const kid = pairs.get('kid'), s = pairs.get('s'), t = Number(pairs.get('t'));
  if (!parts.includes('v1') || !kid || !s || !Number.isSafeInteger(t)) return undefined;
  return { kid, t, s };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

const rejected = (status: number, reason: string): Answer => ({ status, outcome: 'rejected', reason });

function flag(name: string, fallback?: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? process.argv[i + 1] : fallback;
  if (value === undefined) throw new Error(`--${name} is required`);
  return value;
}

const isEntryPoint = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntryPoint) {
  const satang = flag('satang', 'http://127.0.0.1:8080').replace(/\/$/, '');
  const consumer = new WebhookConsumer({ signingKeysUrl: `${satang}/v1/webhooks/signing-keys`, livemode: flag('livemode', 'false') === 'true', db: flag('db', './consumer.db') });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => { size += c.length; if (size <= bodyBytesMax) chunks.push(c); });
    req.on('end', () => {
      const answer = size > bodyBytesMax ? rejected(413, 'body over 256 KB') : null;
      (answer ? Promise.resolve(answer) : consumer.handle(req.headers, Buffer.concat(chunks))).then((a) => {
        console.log(JSON.stringify({ event_id: req.headers['x-pg-event-id'], type: req.headers['x-pg-event-type'], attempt: req.headers['x-pg-attempt'], ...a }));
        res.writeHead(a.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(a));
      }, (error) => { res.writeHead(500).end(); console.error(error); });
    });
  });
  const port = Number(flag('port', '4000'));
  server.listen(port, '127.0.0.1', () => console.log(`webhook consumer on http://127.0.0.1:${port}/ verifying with ${satang}/v1/webhooks/signing-keys`));
  setInterval(() => consumer.prune(), 24 * 3600 * 1000).unref();
}
