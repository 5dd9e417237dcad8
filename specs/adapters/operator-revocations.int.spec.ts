// adapters/sqlite/operator-revocations.ts: revocations are kept by the operator's folded id
// (core/operators.ts). Rows an older build kept under the subject as given are re-keyed when
// the table opens; when two spellings of one person meet, the later revocation is kept whole —
// its instant with its revoker and its reason, never the later instant with the earlier words.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { OperatorRevocationsTable } from '../../adapters/sqlite/operator-revocations.ts';

function olderBuildTable(rows: readonly [sub: string, at: number, by: string, reason: string][]): Database.Database {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE operator_revocations (sub TEXT PRIMARY KEY, revoked_at INTEGER NOT NULL, revoked_by TEXT NOT NULL, reason TEXT) WITHOUT ROWID');
  const insert = db.prepare('INSERT INTO operator_revocations (sub, revoked_at, revoked_by, reason) VALUES (?, ?, ?, ?)');
  for (const row of rows) insert.run(...row);
  return db;
}

const stored = (db: Database.Database) => db.prepare('SELECT sub, revoked_at, revoked_by, reason FROM operator_revocations ORDER BY sub').all();

for (const order of ['later first', 'earlier first'] as const) {
  test(`two spellings of one person re-keyed: the later revocation is kept whole (${order})`, () => {
    const later: [string, number, string, string] = ['EMP_X', 2_000, 'emp_lead', 'left the company'];
    const earlier: [string, number, string, string] = ['Emp_X', 1_000, 'emp_old_lead', 'on leave'];
    const db = olderBuildTable(order === 'later first' ? [later, earlier] : [earlier, later]);
    const table = new OperatorRevocationsTable(db);
    assert.equal(stored(db), [{ sub: 'emp_x', revoked_at: 2_000, revoked_by: 'emp_lead', reason: 'left the company' }]);
    assert.is(table.revokedAtSeconds('ＥＭＰ_Ｘ'), 2_000);
    // An older revocation arriving now does not put back its words over the later one's.
    table.revoke('emp_x', 1_500, 'emp_someone', 'late paperwork');
    assert.equal(stored(db), [{ sub: 'emp_x', revoked_at: 2_000, revoked_by: 'emp_lead', reason: 'left the company' }]);
    table.revoke('EMP_X', 3_000, 'emp_sec', 'again');
    assert.equal(stored(db), [{ sub: 'emp_x', revoked_at: 3_000, revoked_by: 'emp_sec', reason: 'again' }]);
    db.close();
  });
}

test.run();
