// A data dir whose journal.db a newer satang wrote (PRAGMA user_version 99), its development
// master key beside it: what a downgrade meets (adapters/sqlite/schema.ts, SchemaTooNew).

import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Makes `dir` so, and returns it; its key is `${dir}.master-key`, for the caller to remove. */
export function newerDataDir(dir: string): string {
  mkdirSync(dir, { mode: 0o700 });
  const db = new Database(join(dir, 'journal.db'));
  db.pragma('user_version = 99');
  db.close();
  writeFileSync(`${dir}.master-key`, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  return dir;
}
