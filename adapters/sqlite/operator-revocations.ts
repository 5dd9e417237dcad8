// Operators cut off before their tokens run out (server/auth/operator.ts
// OperatorRevocationStore), in journal.db beside the action log and the spent step-ups. A
// row says: every token of this subject issued at or before `revoked_at` (wall-clock
// seconds) is refused. An operator who left is disabled at the issuer and revoked here, so
// the access token they still hold (up to 12 h) stops working at once; a token the issuer
// mints later (the operator came back) works again. Read on every operator request, one
// primary-key lookup; two processes on the same file see the same rows.
//
// A row's `sub` is the operator's folded id (core/operators.ts operatorKey, as four eyes
// compares them), and a token's subject is folded to look it up: revoking emp_x cuts off the
// tokens of EMP_X and ＥＭＰ_X too. Rows an older build wrote as given are folded when the
// table is opened (two spellings of one person merged, the later revocation kept).
//
// Beside them, the access tokens their holders signed out (the console's "sign out"): each
// refused from then until it would have run out anyway, then forgotten.

import type { Db } from './schema.ts';
import type { OperatorRevocationStore } from '../../server/auth/operator.ts';
import { operatorKey } from '../../core/operators.ts';

export interface OperatorRevocation { readonly sub: string; readonly revokedAtSeconds: number; readonly by: string; readonly reason: string | null }

export class OperatorRevocationsTable implements OperatorRevocationStore {
  private readonly s;

  constructor(db: Db) {
    db.exec('CREATE TABLE IF NOT EXISTS operator_revocations (sub TEXT PRIMARY KEY, revoked_at INTEGER NOT NULL, revoked_by TEXT NOT NULL, reason TEXT) WITHOUT ROWID');
    db.exec('CREATE TABLE IF NOT EXISTS operator_signed_out_tokens (token_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID');
    this.s = {
      upsert: db.prepare<[string, number, string, string | null]>(`INSERT INTO operator_revocations (sub, revoked_at, revoked_by, reason) VALUES (?, ?, ?, ?)
        ON CONFLICT (sub) DO UPDATE SET revoked_at = MAX(revoked_at, excluded.revoked_at),
          revoked_by = IIF(excluded.revoked_at >= revoked_at, excluded.revoked_by, revoked_by), reason = IIF(excluded.revoked_at >= revoked_at, excluded.reason, reason)`),
      revokedAt: db.prepare<[string], number>('SELECT revoked_at FROM operator_revocations WHERE sub = ?').pluck(true),
      signOut: db.prepare<[string, number]>('INSERT OR IGNORE INTO operator_signed_out_tokens (token_id, expires_at) VALUES (?, ?)'),
      forgetExpired: db.prepare<[number]>('DELETE FROM operator_signed_out_tokens WHERE expires_at < ?'),
      signedOut: db.prepare<[string], number>('SELECT 1 FROM operator_signed_out_tokens WHERE token_id = ?').pluck(true),
    };
    foldStoredSubjects(db, this.s.upsert);
  }

  /** Refuses this access token from now on (until `expiresAtSeconds`, when it would run out anyway). */
  signOut(tokenId: string, expiresAtSeconds: number, nowSeconds: number): void {
    this.s.forgetExpired.run(nowSeconds);
    this.s.signOut.run(tokenId, expiresAtSeconds);
  }

  signedOut(tokenId: string): boolean {
    return this.s.signedOut.get(tokenId) !== undefined;
  }

  /** Revokes the person `sub` names (under any spelling); the answer names them as given. */
  revoke(sub: string, nowSeconds: number, by: string, reason: string | null): OperatorRevocation {
    const key = operatorKey(sub);
    this.s.upsert.run(key, nowSeconds, by, reason);
    return { sub, revokedAtSeconds: this.s.revokedAt.get(key)!, by, reason };
  }

  revokedAtSeconds(sub: string): number | undefined {
    return this.s.revokedAt.get(operatorKey(sub));
  }
}

/**
 * Rows keyed by a subject as given (before revocations were folded) rekeyed by its fold, in
 * one transaction: when two spellings of one person meet, the upsert keeps the later
 * revocation, its instant with its revoker and reason.
 * Operators are counted in tens, so the whole table is read.
 */
function foldStoredSubjects(db: Db, upsert: { run(sub: string, at: number, by: string, reason: string | null): unknown }): void {
  const all = db.prepare<[], { sub: string; revoked_at: number; revoked_by: string; reason: string | null }>('SELECT sub, revoked_at, revoked_by, reason FROM operator_revocations');
  const unfolded = () => all.all().filter((r) => operatorKey(r.sub) !== r.sub);
  if (unfolded().length === 0) return;
  const remove = db.prepare<[string]>('DELETE FROM operator_revocations WHERE sub = ?');
  db.transaction(() => { // read again under the write lock: another process may have folded them meanwhile
    for (const r of unfolded()) {
      remove.run(r.sub);
      upsert.run(operatorKey(r.sub), r.revoked_at, r.revoked_by, r.reason);
    }
  }).immediate();
}
