// The action log's `changes` column came after rows were written: a journal.db from before
// it (the table without the column, rows hashed over the fourteen pinned columns) is opened,
// gains the column, and its chain still verifies with rows of both kinds after it; a row's
// changes are hashed, so altering them breaks the chain at that row. A subject filter matches
// one operator under any spelling (case, full-width letters), the rows kept as written, by an
// indexed lookup of the folded subject, which an older log's rows gain when it is opened.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { ActionLog, verifyActionLog, type ActionRecord } from '../../adapters/sqlite/action-log.ts';
import { genesisHash } from '../../adapters/sqlite/chain.ts';

/** The table and a row as a build before the column wrote them. */
const oldSchema = `CREATE TABLE action_log (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, request_id TEXT NOT NULL, subject TEXT, authenticated INTEGER NOT NULL,
  roles TEXT NOT NULL, method TEXT NOT NULL, route TEXT NOT NULL, target_ids TEXT NOT NULL, ip TEXT NOT NULL, step_up INTEGER NOT NULL, status INTEGER NOT NULL,
  outcome TEXT NOT NULL, error_code TEXT, prev_hash TEXT NOT NULL, hash TEXT NOT NULL)`;
const oldRow = { id: 1, at: 1_700_000_000_000, request_id: 'req_old', subject: 'emp_old', authenticated: 1, roles: '["ops_admin"]', method: 'POST',
  route: '/v1/bo/webhooks/:endpointId', target_ids: '{"endpointId":"whep_1"}', ip: '127.0.0.1', step_up: 0, status: 200, outcome: 'ok', error_code: null };
const field = (v: string | number | null) => (v === null ? '~' : `${Buffer.byteLength(String(v))}:${v}`);
const oldHash = createHash('sha256').update(genesisHash).update(Object.values(oldRow).map(field).join('')).digest('hex');

const record = (requestId: string, changes?: ActionRecord['changes']): ActionRecord => ({
  at: 1_700_000_001_000, requestId, subject: 'emp_new', authenticated: true, roles: ['ops_admin'], method: 'POST', route: '/v1/bo/webhooks/:endpointId',
  targetIds: { endpointId: 'whep_1' }, ip: '127.0.0.1', stepUp: false, status: 200, outcome: 'ok', errorCode: null, ...(changes ? { changes } : {}),
});

test('a log from before the changes column gains it and its chain verifies; changes are hashed', () => {
  const db = new Database(':memory:');
  db.exec(oldSchema);
  db.prepare(`INSERT INTO action_log VALUES (${Object.keys(oldRow).map((k) => `@${k}`).join(', ')}, @prev_hash, @hash)`).run({ ...oldRow, prev_hash: genesisHash, hash: oldHash });
  assert.ok(verifyActionLog(db).ok, 'the old chain verifies before the column');

  const log = new ActionLog(db);
  const plain = log.append(record('req_plain'));
  const changed = log.append(record('req_changed', { url: { before: 'http://h/old?token=[redacted]', after: 'http://h/new' } }));
  const report = verifyActionLog(db);
  assert.equal([report.ok, report.rows, report.head], [true, 3, changed]);
  // A row without changes is hashed as before the column: the same formula over the fourteen columns.
  const plainRow = db.prepare('SELECT * FROM action_log WHERE id = ?').get(plain.id) as Record<string, string | number | null>;
  const pinned = Object.keys(oldRow).map((k) => field(plainRow[k] ?? null)).join('');
  assert.is(plain.hash, createHash('sha256').update(oldHash).update(pinned).digest('hex'));

  db.exec('DROP TRIGGER action_log_refuses_update');
  db.prepare('UPDATE action_log SET changes = ? WHERE id = ?').run('{"url":{"before":"http://h/elsewhere","after":"http://h/new"}}', changed.id);
  assert.equal([verifyActionLog(db).ok, verifyActionLog(db).first_bad_id], [false, changed.id], 'altered changes break the chain at their row');
  db.close();
});

test('a subject filter finds every spelling of one operator, and the rows stay as written', () => {
  const db = new Database(':memory:');
  const log = new ActionLog(db);
  const subjects = ['emp_x', 'EMP_X', 'Ｅｍｐ_Ｘ', 'emp_y', null];
  subjects.forEach((subject, i) => log.append({ ...record(`req_${i}`), subject }));
  const found = (subject: string) => log.page({ subject, limit: 10 }).map((r) => r.subject);
  assert.equal(found('emp_x'), ['Ｅｍｐ_Ｘ', 'EMP_X', 'emp_x'], 'newest first, each as the token said it');
  assert.equal(found('EMP_X'), found('emp_x'));
  assert.equal(found('emp_y'), ['emp_y']);
  assert.equal(found('emp_z'), []);
  assert.is(log.page({ limit: 10 }).length, subjects.length, 'no filter: every row, a refused token without a subject too');
  assert.ok(log.hasSignedIn('Emp_X') && !log.hasSignedIn('emp_z'), 'seen_before by the same fold');
  assert.ok(verifyActionLog(db).ok, 'the chain is untouched');
  // The key is not hashed (the subject is): one that no longer follows its subject hides the row from a filter, and verify says so.
  db.exec('DROP TRIGGER action_log_refuses_update');
  db.prepare("UPDATE action_log SET subject_key = 'emp_y' WHERE subject = 'EMP_X'").run();
  assert.equal([verifyActionLog(db).ok, verifyActionLog(db).first_bad_id], [false, 2]);
  db.close();
});

test('the subject filter searches an index of the folded subject, which rows of an older log gain at open', () => {
  const db = new Database(':memory:');
  db.exec(oldSchema);
  const insert = db.prepare(`INSERT INTO action_log VALUES (${Object.keys(oldRow).map((k) => `@${k}`).join(', ')}, @prev_hash, @hash)`);
  insert.run({ ...oldRow, subject: 'EMP_OLD', prev_hash: genesisHash, hash: oldHash.replace(/./, 'x') }); // the hash is not what this checks
  insert.run({ ...oldRow, id: 2, subject: null, prev_hash: 'x', hash: 'y' });

  const log = new ActionLog(db);
  assert.is(log.keyedOnOpen, 1, 'the row with a subject is keyed; the one without has nothing to key');
  assert.equal(db.prepare('SELECT id, subject_key FROM action_log ORDER BY id').all(), [{ id: 1, subject_key: 'emp_old' }, { id: 2, subject_key: null }]);
  assert.throws(() => db.prepare('UPDATE action_log SET subject_key = ? WHERE id = 1').run('emp_other'), /append-only/, 'the update trigger is back');
  assert.is(new ActionLog(db).keyedOnOpen, 0, 'a second open keys nothing');
  log.append({ ...record('req_new'), subject: 'Emp_Old' });
  assert.equal(log.page({ subject: 'emp_old', limit: 10 }).map((r) => r.subject), ['Emp_Old', 'EMP_OLD']);
  assert.equal(log.page({ subject: 'emp_old', beforeId: 3, limit: 10 }).map((r) => r.id), [1], 'the next page, from a cursor');

  // The statements as the log prepared them, planned: an index search, not a scan folding every row.
  const planned = new Database(':memory:');
  const prepared: string[] = [];
  const prepare = planned.prepare.bind(planned);
  planned.prepare = ((sql: string) => (prepared.push(sql), prepare(sql))) as typeof planned.prepare;
  new ActionLog(planned);
  const plan = (needle: string, params: object) => {
    const sql = prepared.find((s) => s.includes(needle))!;
    return prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params).map((r) => (r as { detail: string }).detail).join('\n');
  };
  const filters = { outcome: null, route: null, since: null, without_clock: 1, before: 3, limit: 10 };
  assert.match(plan('subject_key = @subject', { ...filters, subject: 'emp_old' }), /SEARCH action_log USING INDEX action_log_by_subject \(subject_key=\? AND rowid<\?\)/);
  assert.match(plan('subject_key = ? AND authenticated', ['emp_old']), /SEARCH action_log USING INDEX action_log_by_subject \(subject_key=\?\)/, 'seen_before too');
  planned.close();
  db.close();
});

test('keys folded under other Unicode tables are folded again when the log opens under new ones; the chain is untouched', () => {
  const db = new Database(':memory:');
  const older = new ActionLog(db, '15.1');
  older.append({ ...record('req_a'), subject: 'EMP_A' });
  older.append({ ...record('req_b'), subject: 'emp_b' });
  older.append({ ...record('req_c'), subject: null });
  // What an older Node's case tables might have made of the first subject: a key that no longer follows it under this Node's.
  db.exec('DROP TRIGGER action_log_refuses_update');
  db.prepare("UPDATE action_log SET subject_key = 'emp_a\u0307' WHERE id = 1").run();
  assert.equal([verifyActionLog(db).ok, verifyActionLog(db).first_bad_id], [false, 1], 'a key that does not follow its subject is what verify refuses');
  assert.is(new ActionLog(db, '15.1').keyedOnOpen, 0, 'the same tables: nothing re-folded (verify keeps telling)');
  db.exec('DROP TRIGGER action_log_refuses_update');

  const upgraded = new ActionLog(db, process.versions.unicode!);
  assert.is(upgraded.keyedOnOpen, 1, 'only the key that moved');
  assert.equal(db.prepare('SELECT id, subject_key FROM action_log ORDER BY id').all(), [{ id: 1, subject_key: 'emp_a' }, { id: 2, subject_key: 'emp_b' }, { id: 3, subject_key: null }]);
  assert.ok(verifyActionLog(db).ok, 'the chain verifies: keys are derived, not hashed');
  assert.equal(upgraded.page({ subject: 'Emp_A', limit: 10 }).map((r) => r.id), [1], 'the filter finds the row again');
  assert.throws(() => db.prepare('UPDATE action_log SET subject_key = ? WHERE id = 1').run('x'), /append-only/, 'the update trigger is back');
  assert.is(new ActionLog(db, process.versions.unicode!).keyedOnOpen, 0, 'recorded: a second open re-folds nothing');
  db.close();
});

test('a log from before the recorded Unicode version records it at open without re-folding', () => {
  const db = new Database(':memory:');
  new ActionLog(db).append({ ...record('req_a'), subject: 'EMP_A' });
  db.exec('DROP TABLE action_log_fold');
  assert.is(new ActionLog(db, '15.1').keyedOnOpen, 0);
  assert.is(db.prepare('SELECT unicode FROM action_log_fold').pluck().get(), '15.1');
  db.close();
});

test.run();
