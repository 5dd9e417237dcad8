// API keys kept durably beside the journal, but never in it: the journal is published to
// the bus, and an HMAC secret must not travel with it. Each write is its own small
// transaction (keys change rarely); reads are served from memory, loaded at open.

import type { IdempotencyRecord } from '../../core/ports.ts';
import type { ApiKey, KeyStore, Scope } from '../../server/ports.ts';
import type { Db } from './schema.ts';
import { insertIdempotencySql } from './writer.ts';

interface Row { key_id: string; secret: string; merchant_id: string; livemode: number; scopes: string; revoked_at: number | null; created_at: number }

export class SqliteKeyStore implements KeyStore {
  private readonly byKeyId = new Map<string, ApiKey>();
  private readonly bySecretValue = new Map<string, string>();
  private readonly insert;
  private readonly revokeRow;
  private readonly insertIdempotency;
  private readonly saveBoth;

  constructor(db: Db) {
    db.exec(`CREATE TABLE IF NOT EXISTS api_keys (
      key_id TEXT PRIMARY KEY, secret TEXT NOT NULL UNIQUE, merchant_id TEXT NOT NULL, livemode INTEGER NOT NULL,
      scopes TEXT NOT NULL, revoked_at INTEGER, created_at INTEGER NOT NULL)`);
    this.insert = db.prepare('INSERT INTO api_keys (key_id, secret, merchant_id, livemode, scopes, revoked_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.revokeRow = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL');
    this.insertIdempotency = db.prepare(insertIdempotencySql);
    this.saveBoth = db.transaction((key: ApiKey, r: IdempotencyRecord) => {
      this.insertRow(key);
      this.insertIdempotency.run(r.scope, r.key, r.requestHash, r.requestId, r.status, r.body, r.createdAt, r.expiresAt, null);
    });
    for (const r of db.prepare<[], Row>('SELECT * FROM api_keys').iterate()) this.remember(fromRow(r));
  }

  bySecret(secret: string): ApiKey | undefined {
    const id = this.bySecretValue.get(secret);
    return id === undefined ? undefined : this.byKeyId.get(id);
  }

  byId(keyId: string): ApiKey | undefined {
    return this.byKeyId.get(keyId);
  }

  save(key: ApiKey): void {
    this.insertRow(key);
    this.remember(key);
  }

  saveWithIdempotency(key: ApiKey, record: IdempotencyRecord): void {
    this.saveBoth(key, record);
    this.remember(key);
  }

  private insertRow(key: ApiKey): void {
    this.insert.run(key.keyId, key.secret, key.merchantId, key.livemode ? 1 : 0, JSON.stringify(key.scopes), key.revokedAt, key.createdAt);
  }

  revoke(keyId: string, at: number): void {
    this.revokeRow.run(at, keyId);
    const k = this.byKeyId.get(keyId);
    if (k && k.revokedAt === null) this.byKeyId.set(keyId, { ...k, revokedAt: at });
  }

  private remember(key: ApiKey): void {
    this.byKeyId.set(key.keyId, key);
    this.bySecretValue.set(key.secret, key.keyId);
  }
}

function fromRow(r: Row): ApiKey {
  return { keyId: r.key_id, secret: r.secret, merchantId: r.merchant_id, livemode: r.livemode === 1, scopes: JSON.parse(r.scopes) as Scope[], revokedAt: r.revoked_at, createdAt: r.created_at };
}
