// The service's webhook signing keys: Ed25519 key pairs in webhook_signing_keys, each with
// the instant from which it signs (not_before). Which key signs is a function of time —
// the one with the latest not_before that has passed — so a rotation needs no timer: it
// is announced with a new key whose not_before lies 7 days ahead (webhook.key.rotating),
// and the kid switches by itself at that instant. Published statuses follow from the same
// order: 'next' (announced, not yet signing), 'active' (signing now; not_after = the next
// key's not_before, or null), 'retired' (stopped signing at not_after; still listed for
// retiredKeyListedMs). Invariant: at most one 'next' key at a time; keys are never deleted.
// A retired key that leaked is withdrawn (withdrawn_at): it is published no more, so a
// receiver that verifies against the list refuses what it signs (the runbook in the
// README: rotate with the least notice, then withdraw the old kid once it stopped signing).
// At rest the private key (PKCS#8 DER) is sealed under the master key, bound to its kid
// (private_pkcs8 then holds the sealed text); a key an older build kept in clear is sealed
// when the ring opens. Two rings exist: live deliveries are signed by the keys in
// webhook_signing_keys, sandbox deliveries by the sandbox's own keys in
// webhook_signing_keys_sandbox (DESIGN.md "Sandbox"; scenario 11400 rotates only those).

import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { Clock, Ids } from '../../core/ports.ts';
import { iso } from '../../core/present.ts';
import { isSealed, type Sealer } from '../sealing.ts';
import type { Db } from '../sqlite/schema.ts';
import { webhookLimits } from '../../core/limits.ts';
import { publicKeyFromSpki, publishedKey, spkiDer, type SigningKey } from './signing.ts';

export interface KeyRecord {
  readonly kid: string;
  readonly notBefore: number;
  readonly createdAt: number;
  /** When an operator withdrew it (a leak): never published again. */
  readonly withdrawnAt: number | null;
  readonly key: SigningKey;
}

export type KeyStatus = 'active' | 'next' | 'retired';

export interface PublishedSigningKey {
  kid: string; alg: 'Ed25519'; public_key: string; format: 'spki_der_base64'; raw_public_key: string;
  status: KeyStatus; not_before: string; not_after: string | null;
  /** The mode whose deliveries the key signs: live keys sign live events, sandbox keys sandbox ones. */
  livemode: boolean;
}

/** private_pkcs8: sealed text (sealing.ts), or DER bytes as an older build kept them. */
interface Row { kid: string; private_pkcs8: string | Buffer; public_spki: Buffer; not_before: number; created_at: number; withdrawn_at: number | null }

/** What a signing key's sealed private key is bound to (server/rekey.ts reseals it). */
export const privateKeyPurpose = (kid: string) => `webhook_signing_key:${kid}`;

/** The table a ring keeps its keys in, by mode. */
export type SigningKeyTable = 'webhook_signing_keys' | 'webhook_signing_keys_sandbox';

export class SigningKeyRing {
  /** Ascending by not_before. */
  private keys: KeyRecord[] = [];
  private readonly insert;

  /** Keys an older build kept in clear, sealed when the ring opened. */
  readonly sealedOnOpen: number;

  constructor(private readonly db: Db, private readonly clock: Clock, private readonly ids: Ids, private readonly sealer: Sealer, private readonly table: SigningKeyTable = 'webhook_signing_keys') {
    const columns = db.prepare<[], string>(`SELECT name FROM pragma_table_info('${table}')`).pluck(true).all();
    if (!columns.includes('withdrawn_at')) db.exec(`ALTER TABLE ${table} ADD COLUMN withdrawn_at INTEGER`);
    this.insert = db.prepare(`INSERT INTO ${table} (kid, private_pkcs8, public_spki, not_before, created_at) VALUES (?, ?, ?, ?, ?)`);
    this.sealedOnOpen = this.sealClearKeys();
    this.load();
    if (this.keys.length === 0) this.add(this.clock.now());
  }

  /** The key that signs at `now`. */
  current(now = this.clock.now()): SigningKey {
    let found: KeyRecord | undefined;
    for (const k of this.keys) if (k.notBefore <= now) found = k;
    if (!found) throw new Error('no webhook signing key is valid yet');
    return found.key;
  }

  /** The announced key that has not started signing yet, if any. */
  next(now = this.clock.now()): KeyRecord | undefined {
    return this.keys.find((k) => k.notBefore > now);
  }

  publicKey(kid: string): KeyObject | undefined {
    return this.keys.find((k) => k.kid === kid)?.key.publicKey;
  }

  /** GET /v1/webhooks/signing-keys: next, active and recently retired keys, newest first. */
  published(now = this.clock.now()): PublishedSigningKey[] {
    const out: PublishedSigningKey[] = [];
    const activeIndex = this.keys.reduce((found, k, i) => (k.notBefore <= now ? i : found), -1);
    this.keys.forEach((k, i) => {
      const notAfter = this.keys[i + 1]?.notBefore ?? null;
      const status: KeyStatus = i > activeIndex ? 'next' : i === activeIndex ? 'active' : 'retired';
      if (status === 'retired' && (k.withdrawnAt !== null || now >= notAfter! + webhookLimits.retiredKeyListedMs)) return;
      out.push({ kid: k.kid, alg: 'Ed25519', ...publishedKey(k.key.publicKey), status, not_before: iso(k.notBefore), not_after: notAfter === null ? null : iso(notAfter), livemode: this.table === 'webhook_signing_keys' });
    });
    return out.reverse();
  }

  /**
   * Creates the next key, signing from now + noticeMs. Call inside the transaction that
   * announces it; undefined when a rotation is already announced.
   */
  rotate(noticeMs: number): KeyRecord | undefined {
    const now = this.clock.now();
    if (this.next(now)) return undefined;
    return this.add(now + noticeMs);
  }

  /**
   * Why `kid` cannot be withdrawn at `now`, else null: no such key, one already withdrawn,
   * or one that signs now or is announced to sign (rotate first: its deliveries would go out
   * signed by a key no receiver can find). Reads only: the route asks it before the step-up.
   */
  withdrawalRefusal(kid: string, now = this.clock.now()): 'unknown' | 'signing' | 'already' | null {
    const i = this.keys.findIndex((k) => k.kid === kid);
    if (i < 0) return 'unknown';
    if (this.keys[i]!.withdrawnAt !== null) return 'already';
    const next = this.keys[i + 1];
    return next === undefined || next.notBefore > now ? 'signing' : null;
  }

  /** Withdraws a retired key (withdrawalRefusal): from now on it is not published. */
  withdraw(kid: string, now = this.clock.now()): 'withdrawn' | 'unknown' | 'signing' | 'already' {
    const refused = this.withdrawalRefusal(kid, now);
    if (refused) return refused;
    const i = this.keys.findIndex((k) => k.kid === kid);
    const k = this.keys[i]!;
    this.db.prepare(`UPDATE ${this.table} SET withdrawn_at = ? WHERE kid = ?`).run(now, kid);
    this.keys[i] = { ...k, withdrawnAt: now };
    return 'withdrawn';
  }

  /** Re-reads the table (after a transaction that added a key rolled back). */
  load(): void {
    const rows = this.db.prepare<[], Row>(`SELECT kid, private_pkcs8, public_spki, not_before, created_at, withdrawn_at FROM ${this.table} ORDER BY not_before, kid`).all();
    this.keys = rows.map((r) => ({
      kid: r.kid, notBefore: r.not_before, createdAt: r.created_at, withdrawnAt: r.withdrawn_at,
      key: { kid: r.kid, privateKey: createPrivateKey({ key: this.openPrivate(r), format: 'der', type: 'pkcs8' }), publicKey: publicKeyFromSpki(r.public_spki) },
    }));
  }

  private openPrivate(r: Row): Buffer {
    if (!isSealed(r.private_pkcs8)) throw new Error(`webhook signing key ${r.kid}: the private key is stored in clear, but every key is sealed when the ring opens`);
    return this.sealer.open(r.private_pkcs8, privateKeyPurpose(r.kid));
  }

  /** Seals the private keys an older build kept in clear; returns how many. */
  private sealClearKeys(): number {
    const rows = this.db.prepare<[], { kid: string; private_pkcs8: string | Buffer }>(`SELECT kid, private_pkcs8 FROM ${this.table}`).all()
      .filter((r) => !isSealed(r.private_pkcs8));
    const update = this.db.prepare(`UPDATE ${this.table} SET private_pkcs8 = ? WHERE kid = ?`);
    this.db.transaction(() => {
      for (const r of rows) update.run(this.sealer.seal(r.private_pkcs8, privateKeyPurpose(r.kid)), r.kid);
    })();
    return rows.length;
  }

  private add(notBefore: number): KeyRecord {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const kid = this.ids.next('whk');
    const createdAt = this.clock.now();
    this.insert.run(kid, this.sealer.seal(privateKey.export({ format: 'der', type: 'pkcs8' }), privateKeyPurpose(kid)), spkiDer(publicKey), notBefore, createdAt);
    const record: KeyRecord = { kid, notBefore, createdAt, withdrawnAt: null, key: { kid, privateKey, publicKey } };
    this.keys.push(record);
    this.keys.sort((a, b) => a.notBefore - b.notBefore || (a.kid < b.kid ? -1 : 1));
    return record;
  }
}
