// API keys kept durably beside the journal, but never in it: the journal is published to
// the bus, and an HMAC secret must not travel with it. Each write is its own small
// transaction (keys change rarely); reads are served from memory, loaded at open.
// At rest the secret is sealed under the master key (bound to its key_id), since HMAC
// needs it readable; secret_index, a keyed digest of the secret, keeps secrets unique
// without storing them. Rows an older build kept in clear are sealed when the store opens.

import type { IdempotencyRecord } from '../../core/ports.ts';
import type { ApiKey, KeyStore, Scope } from '../../server/ports.ts';
import { isSealed, sealedPrefix, type Sealer } from '../sealing.ts';
import { idempotencyRow, insertIdempotencySql } from './keys.ts';
import type { Db } from './schema.ts';

interface Row { key_id: string; secret: string; secret_index: string | null; merchant_id: string; livemode: number; scopes: string; revoked_at: number | null; created_at: number }

/** What a key's sealed secret is bound to (server/rekey.ts reseals it). */
export const secretPurpose = (keyId: string) => `api_key:${keyId}`;

export class SqliteKeyStore implements KeyStore {
  private readonly byKeyId = new Map<string, ApiKey>();
  private readonly bySecretValue = new Map<string, string>();
  private readonly insert;
  private readonly revokeRow;
  private readonly insertIdempotency;
  private readonly saveBoth;

  /** Rows an older build kept in clear, sealed when this store opened. */
  readonly sealedOnOpen: number;

  constructor(db: Db, private readonly sealer: Sealer) {
    // secret: sealed (sealing.ts); secret_index: sealer.index(secret), unique.
    db.exec(`CREATE TABLE IF NOT EXISTS api_keys (
      key_id TEXT PRIMARY KEY, secret TEXT NOT NULL UNIQUE, merchant_id TEXT NOT NULL, livemode INTEGER NOT NULL,
      scopes TEXT NOT NULL, revoked_at INTEGER, created_at INTEGER NOT NULL, secret_index TEXT)`);
    const columns = db.prepare<[], string>("SELECT name FROM pragma_table_info('api_keys')").pluck(true).all();
    if (!columns.includes('secret_index')) db.exec('ALTER TABLE api_keys ADD COLUMN secret_index TEXT');
    this.sealedOnOpen = this.sealClearRows(db);
    db.exec('CREATE UNIQUE INDEX IF NOT EXISTS api_keys_by_secret_index ON api_keys (secret_index)');
    this.insert = db.prepare('INSERT INTO api_keys (key_id, secret, secret_index, merchant_id, livemode, scopes, revoked_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    this.revokeRow = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL');
    this.insertIdempotency = db.prepare(insertIdempotencySql);
    this.saveBoth = db.transaction((key: ApiKey, r: IdempotencyRecord) => {
      this.insertRow(key);
      this.insertIdempotency.run(...idempotencyRow(this.sealer, r));
    });
    for (const r of db.prepare<[], Row>('SELECT * FROM api_keys').iterate()) this.remember(this.fromRow(r));
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
    this.insert.run(key.keyId, this.sealer.seal(key.secret, secretPurpose(key.keyId)), this.sealer.index(key.secret), key.merchantId, key.livemode ? 1 : 0, JSON.stringify(key.scopes), key.revokedAt, key.createdAt);
  }

  revoke(keyId: string, at: number): void {
    this.revokeRow.run(at, keyId);
    const k = this.byKeyId.get(keyId);
    if (k && k.revokedAt === null) this.byKeyId.set(keyId, { ...k, revokedAt: at });
  }

  forMerchant(merchantId: string): ApiKey[] {
    return [...this.byKeyId.values()].filter((k) => k.merchantId === merchantId);
  }

  private remember(key: ApiKey): void {
    this.byKeyId.set(key.keyId, key);
    this.bySecretValue.set(key.secret, key.keyId);
  }

  private fromRow(r: Row): ApiKey {
    const secret = this.sealer.openText(r.secret, secretPurpose(r.key_id));
    return { keyId: r.key_id, secret, merchantId: r.merchant_id, livemode: r.livemode === 1, scopes: JSON.parse(r.scopes) as Scope[], revokedAt: r.revoked_at, createdAt: r.created_at };
  }

  /** Seals the secrets an older build kept in clear (and indexes them); returns how many. */
  private sealClearRows(db: Db): number {
    const rows = db.prepare<[string], { key_id: string; secret: string }>(
      "SELECT key_id, secret FROM api_keys WHERE secret_index IS NULL OR secret NOT LIKE ? || '%'").all(sealedPrefix);
    const update = db.prepare('UPDATE api_keys SET secret = ?, secret_index = ? WHERE key_id = ?');
    db.transaction(() => {
      for (const r of rows) {
        const secret = isSealed(r.secret) ? this.sealer.openText(r.secret, secretPurpose(r.key_id)) : r.secret;
        update.run(this.sealer.seal(secret, secretPurpose(r.key_id)), this.sealer.index(secret), r.key_id);
      }
    })();
    return rows.length;
  }
}
