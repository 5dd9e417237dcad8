// Operators cut off before their tokens run out (server/auth/operator.ts
// OperatorRevocationStore), in journal.db beside the action log and the spent step-ups. A
// row says: every token of this subject issued at or before `revoked_at` (wall-clock
// seconds) is refused. An operator who left is disabled at the issuer and revoked here, so
// the access token they still hold (up to 12 h) stops working at once; a token the issuer
// mints later (the operator came back) works again. Read on every operator request, one
// primary-key lookup; two processes on the same file see the same rows.
//
// Beside them, the access tokens their holders signed out (the console's "sign out"): each
// refused from then until it would have run out anyway, then forgotten.

import type { Db } from './schema.ts';
import type { OperatorRevocationStore } from '../../server/auth/operator.ts';

export interface OperatorRevocation { readonly sub: string; readonly revokedAtSeconds: number; readonly by: string; readonly reason: string | null }

export class OperatorRevocationsTable implements OperatorRevocationStore {
  private readonly s;

  constructor(db: Db) {
    db.exec('CREATE TABLE IF NOT EXISTS operator_revocations (sub TEXT PRIMARY KEY, revoked_at INTEGER NOT NULL, revoked_by TEXT NOT NULL, reason TEXT) WITHOUT ROWID');
    db.exec('CREATE TABLE IF NOT EXISTS operator_signed_out_tokens (token_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID');
    this.s = {
      upsert: db.prepare<[string, number, string, string | null]>(`INSERT INTO operator_revocations (sub, revoked_at, revoked_by, reason) VALUES (?, ?, ?, ?)
        ON CONFLICT (sub) DO UPDATE SET revoked_at = MAX(revoked_at, excluded.revoked_at), revoked_by = excluded.revoked_by, reason = excluded.reason`),
      revokedAt: db.prepare<[string], number>('SELECT revoked_at FROM operator_revocations WHERE sub = ?').pluck(true),
      signOut: db.prepare<[string, number]>('INSERT OR IGNORE INTO operator_signed_out_tokens (token_id, expires_at) VALUES (?, ?)'),
      forgetExpired: db.prepare<[number]>('DELETE FROM operator_signed_out_tokens WHERE expires_at < ?'),
      signedOut: db.prepare<[string], number>('SELECT 1 FROM operator_signed_out_tokens WHERE token_id = ?').pluck(true),
    };
  }

  /** Refuses this access token from now on (until `expiresAtSeconds`, when it would run out anyway). */
  signOut(tokenId: string, expiresAtSeconds: number, nowSeconds: number): void {
    this.s.forgetExpired.run(nowSeconds);
    this.s.signOut.run(tokenId, expiresAtSeconds);
  }

  signedOut(tokenId: string): boolean {
    return this.s.signedOut.get(tokenId) !== undefined;
  }

  revoke(sub: string, nowSeconds: number, by: string, reason: string | null): OperatorRevocation {
    this.s.upsert.run(sub, nowSeconds, by, reason);
    return { sub, revokedAtSeconds: this.s.revokedAt.get(sub)!, by, reason };
  }

  revokedAtSeconds(sub: string): number | undefined {
    return this.s.revokedAt.get(sub);
  }
}
