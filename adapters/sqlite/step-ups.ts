// Spent step-up tokens, in journal.db beside the action log (server/auth/operator.ts
// StepUpStore): one step-up authorises one action, and a restart must not make a spent
// one good again. A row holds the token's id (issuer and jti, or a SHA-256 of the token),
// the action it was spent on ("METHOD path Idempotency-Key") and when it runs out on the
// wall clock — never the token. Rows that ran out are deleted as new ones come, so the
// table holds at most the step-ups of the last five minutes. The claim is one INSERT …
// ON CONFLICT DO NOTHING, so two processes on the same file cannot both spend one token.

import type { Db } from './schema.ts';
import type { StepUpStore } from '../../server/auth/operator.ts';

export class StepUpsTable implements StepUpStore {
  private readonly s;

  constructor(db: Db) {
    db.exec('CREATE TABLE IF NOT EXISTS step_ups_used (id TEXT PRIMARY KEY, action TEXT NOT NULL, exp_seconds INTEGER NOT NULL) WITHOUT ROWID');
    this.s = {
      forget: db.prepare<[number]>('DELETE FROM step_ups_used WHERE exp_seconds <= ?'),
      insert: db.prepare<[string, string, number]>('INSERT INTO step_ups_used (id, action, exp_seconds) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING'),
      earlier: db.prepare<[string], string>('SELECT action FROM step_ups_used WHERE id = ?').pluck(true),
    };
  }

  claim(id: string, action: string, expSeconds: number, nowSeconds: number): string | undefined {
    this.s.forget.run(nowSeconds);
    if (this.s.insert.run(id, action, expSeconds).changes === 1) return undefined;
    return this.s.earlier.get(id);
  }
}
