// Sealing secrets at rest (DESIGN.md "Secrets at rest"): AES-256-GCM under a key derived
// from the master key (the key-encryption key, which never lives in the data dir).
//
//   sealed = "sealed:v1:" base64url(nonce 12 bytes ‖ ciphertext ‖ tag 16 bytes)
//
// Invariants kept: every value gets a fresh random nonce; the additional data names the
// value's purpose and row (e.g. "api_key:key_…"), so a sealed value copied onto another
// row or purpose does not open; a value that does not open — wrong master key, tampered
// bytes, wrong row — throws, never returns garbage. The master key is checked once when
// a database is opened (checkMasterKey): a sealed marker row that must open with it.
// The version prefix leaves room for another scheme later; a new master key reseals
// everything (server/rekey.ts).

import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { Db } from './sqlite/schema.ts';

export const masterKeyBytes = 32;
/** Every sealed value starts with this (SQL finds values stored in clear by it). */
export const sealedPrefix = 'sealed:v1:';
const nonceBytes = 12;
const tagBytes = 16;
/** Nonces drawn per random fill (4 KB). */
const noncesPerFill = 341;

export class SealError extends Error {}

/** A sealer's derived keys as they cross to a worker thread (structured clone). */
export interface SharedSealer {
  readonly sealingKey: Uint8Array;
  readonly indexKey: Uint8Array;
}

export class Sealer {
  private readonly sealingKey: Buffer;
  private readonly indexKey: Buffer;
  /** Random bytes filled a block at a time: a seal takes its 96-bit nonce from here, not from a fill of its own. */
  private nonces = Buffer.alloc(0);
  private nonceAt = 0;

  /** From the master key, or (in a worker thread) from the keys another sealer of this process shared. */
  constructor(key: Buffer | SharedSealer) {
    if (!Buffer.isBuffer(key)) {
      this.sealingKey = Buffer.from(key.sealingKey);
      this.indexKey = Buffer.from(key.indexKey);
      return;
    }
    if (key.length !== masterKeyBytes) throw new Error(`the master key must be ${masterKeyBytes} bytes, not ${key.length}`);
    // Separate keys for separate jobs, so an index value says nothing about a sealed one.
    this.sealingKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'satang seal v1', 32));
    this.indexKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'satang secret index v1', 32));
  }

  /**
   * The derived keys, for a worker thread of this process to make the same sealer
   * (new Sealer(shared)): they cross in process memory only, and are never logged or stored.
   */
  shareWithThread(): SharedSealer {
    return { sealingKey: Uint8Array.from(this.sealingKey), indexKey: Uint8Array.from(this.indexKey) };
  }

  /** A sealer with a random key, for tools and specs that keep nothing across runs. */
  static ephemeral(): Sealer {
    return new Sealer(randomBytes(masterKeyBytes));
  }

  seal(plain: string | Uint8Array, purpose: string): string {
    const nonce = this.nextNonce();
    const cipher = createCipheriv('aes-256-gcm', this.sealingKey, nonce);
    cipher.setAAD(Buffer.from(purpose, 'utf8'));
    const body = Buffer.concat([cipher.update(typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain), cipher.final()]);
    return sealedPrefix + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** A fresh random nonce (AES-GCM: never repeated under one key; 96 random bits per seal, as randomBytes gives). */
  private nextNonce(): Buffer {
    if (this.nonceAt + nonceBytes > this.nonces.length) {
      this.nonces = randomBytes(nonceBytes * noncesPerFill);
      this.nonceAt = 0;
    }
    const nonce = this.nonces.subarray(this.nonceAt, this.nonceAt + nonceBytes);
    this.nonceAt += nonceBytes;
    return nonce;
  }

  /** The plaintext bytes of a sealed value; throws SealError when it does not open under this key and purpose. */
  open(sealed: string, purpose: string): Buffer {
    if (!isSealed(sealed)) throw new SealError(`${purpose}: the stored value is not sealed`);
    const bytes = Buffer.from(sealed.slice(sealedPrefix.length), 'base64url');
    if (bytes.length < nonceBytes + tagBytes) throw new SealError(`${purpose}: the sealed value is truncated`);
    const decipher = createDecipheriv('aes-256-gcm', this.sealingKey, bytes.subarray(0, nonceBytes));
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(nonceBytes, bytes.length - tagBytes)), decipher.final()]);
    } catch {
      throw new SealError(`${purpose}: the sealed value does not open with this master key`);
    }
  }

  openText(sealed: string, purpose: string): string {
    return this.open(sealed, purpose).toString('utf8');
  }

  /** A keyed digest of a secret: lets a secret be looked up and kept unique without storing it. */
  index(secret: string): string {
    return createHmac('sha256', this.indexKey).update(secret, 'utf8').digest('hex');
  }
}

export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(sealedPrefix);
}

export const checkPurpose = 'master_key_check';
export const checkPlain = 'satang master key check';

/**
 * Refuses a master key other than the one the database's secrets were sealed with: the
 * first open stores a sealed marker, every later open must open it. Throws a message that
 * says what to do, never a decryption error from deep inside a store.
 */
export function checkMasterKey(db: Db, sealer: Sealer): void {
  db.exec('CREATE TABLE IF NOT EXISTS sealing (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
  const opens = masterKeyOpens(db, sealer);
  if (opens === undefined) {
    db.prepare('INSERT INTO sealing (name, value) VALUES (?, ?)').run(checkPurpose, sealer.seal(checkPlain, checkPurpose));
    return;
  }
  if (!opens) throw new WrongMasterKey();
}

/** The data dir's secrets were sealed with another key: a configuration to mend, not a crash. */
export class WrongMasterKey extends Error {
  override readonly name = 'WrongMasterKey';
  constructor(message = 'the master key does not open this data dir: its secrets were sealed with another key. '
      + 'Start with the SATANG_MASTER_KEY (or SATANG_MASTER_KEY_FILE) it was sealed with (after `satang rekey`, the new one).') {
    super(message);
  }
}

/** The database's sealed marker, written with its first sealed value (none: nothing in it was ever sealed). */
function sealedMarker(db: Db): string | undefined {
  const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sealing'").get() !== undefined;
  return hasTable ? db.prepare<[string], string>('SELECT value FROM sealing WHERE name = ?').pluck(true).get(checkPurpose) : undefined;
}

/** Whether anything in the database was sealed under some master key (its marker is there). Reads only. */
export function everSealed(db: Db): boolean {
  return sealedMarker(db) !== undefined;
}

/** Whether `sealer` opens the database's marker; undefined when it has none yet. Reads only (satang doctor asks it too). */
export function masterKeyOpens(db: Db, sealer: Sealer): boolean | undefined {
  const stored = sealedMarker(db);
  if (stored === undefined) return undefined;
  try { return sealer.openText(stored, checkPurpose) === checkPlain; } catch { return false; }
}

/**
 * After sealing values an older build stored in clear: rebuilds the database (VACUUM
 * drops the free pages and cell remnants that still hold the old bytes) and empties the
 * WAL into it. Run at startup, before other connections open.
 */
export function compactAfterSealing(db: Db): void {
  db.exec('VACUUM');
  db.pragma('wal_checkpoint(TRUNCATE)');
}
