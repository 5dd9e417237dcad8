// The slip_upload capability (contract: "Order capability"): an Ed25519-signed token,
// audience pg-slip-ingest, scope slip:write, bound to tenant, livemode, deposit_id, the
// full upload URL (htu), rate_subject, API version and the reservation's hold_until.
// Signed and verified with node:crypto on the request path (DESIGN.md, Performance).
// Format: base64url(JSON claims) "." base64url(signature over the first part).
// The signing key lives in the data dir sealed under the master key
// (slip-capability-ed25519.key: the sealed PKCS#8 DER); a PEM an older build wrote in
// clear is sealed on the next start and removed.

import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, sealedKeyFileNames, writePrivateFile } from '../adapters/private-files.ts';
import type { Sealer } from '../adapters/sealing.ts';

export const keyFileName = sealedKeyFileNames.slipCapability;
/** Where an older build kept the key, in clear. */
const clearKeyFileName = 'slip-capability-ed25519.pem';
export const keyPurpose = 'slip_capability_key';

export interface CapabilityClaims {
  readonly aud: 'pg-slip-ingest';
  readonly scope: 'slip:write';
  readonly tenant: string;
  readonly livemode: boolean;
  readonly deposit_id: string;
  readonly htu: string;
  readonly rate_subject: string;
  readonly api_version: string;
  readonly hold_until: number;
  readonly iat: number;
  readonly exp: number;
}

export class CapabilitySigner {
  /** Keys rate subjects (subjectOf): derived from the signing key, so only this deployment can compute one. */
  private readonly subjectKey: Buffer;

  private constructor(private readonly privateKey: KeyObject, private readonly publicKey: KeyObject) {
    this.subjectKey = createHmac('sha256', privateKey.export({ type: 'pkcs8', format: 'der' })).update('satang capability rate_subject v1').digest();
  }

  /**
   * A token's rate_subject for `name` (the end user in a mode): a keyed hash, so a payer holding
   * the token (plain base64url JSON) cannot test guesses of the merchant's end_user_ref — a
   * phone number, a citizen id — against it offline, as an unkeyed sha256 let them.
   */
  subjectOf(name: string): string {
    return createHmac('sha256', this.subjectKey).update(name).digest('hex').slice(0, 32);
  }

  /** Loads the key pair from the data dir (sealed), creating it on first start. */
  static fromDataDir(dataDir: string, sealer: Sealer): CapabilitySigner {
    const path = join(dataDir, keyFileName);
    const clearPath = join(dataDir, clearKeyFileName);
    if (!existsSync(path)) {
      ensurePrivateDir(dataDir);
      const privateKey = existsSync(clearPath) ? createPrivateKey(readFileSync(clearPath)) : generateKeyPairSync('ed25519').privateKey;
      writePrivateFile(path, sealer.seal(privateKey.export({ type: 'pkcs8', format: 'der' }), keyPurpose));
    }
    rmSync(clearPath, { force: true }); // sealed now (or never used): no key stays in clear
    const privateKey = createPrivateKey({ key: sealer.open(readFileSync(path, 'utf8').trim(), keyPurpose), format: 'der', type: 'pkcs8' });
    return new CapabilitySigner(privateKey, createPublicKey(privateKey));
  }

  static ephemeral(): CapabilitySigner {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    return new CapabilitySigner(privateKey, publicKey);
  }

  issue(claims: CapabilityClaims): string {
    const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${body}.${sign(null, Buffer.from(body), this.privateKey).toString('base64url')}`;
  }

  /** The claims of a token with a valid signature, or null. Expiry is the caller's check. */
  read(token: string): CapabilityClaims | null {
    const dot = token.indexOf('.');
    if (dot <= 0 || dot !== token.lastIndexOf('.')) return null;
    const body = token.slice(0, dot);
    const signature = Buffer.from(token.slice(dot + 1), 'base64url');
    if (signature.length !== 64 || !verify(null, Buffer.from(body), this.publicKey, signature)) return null;
    try {
      return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CapabilityClaims;
    } catch {
      return null;
    }
  }

  rawPublicKey(): Buffer {
    return this.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  }
}
