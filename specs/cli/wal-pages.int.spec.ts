// scripts/bench/wal-pages.mjs (the write-amplification reading of bench:api --wal-copy) on a
// real journal.db and its WAL, so it cannot rot: it counts the WAL's committed frames and
// transactions, names the b-tree each frame is a page of, counts the deposits created after
// the last checkpoint, and leaves out frames after the last commit.

import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase } from '../../adapters/sqlite/schema.ts';
import { removeDir, tempDir } from '../adapters/support.ts';

const script = new URL('../../scripts/bench/wal-pages.mjs', import.meta.url).pathname;

interface Reading {
  page_size: number; frames: number; transactions: number; deposits_created: number;
  frames_per_transaction: { median: number; max: number }; by_btree: { name: string; frames: number; percent: number }[];
}

test('counts a WAL\'s committed frames by b-tree, and the deposits created since the checkpoint', () => {
  const dir = tempDir('wal-pages');
  try {
    const db = openDatabase(dir);
    const journal = db.prepare(`INSERT INTO journal (seq, stream, kind, version, type, livemode, merchant_id, recorded_at, data, prev_hash, hash)
      VALUES (?, ?, ?, ?, 'created', 1, 'mch_1', 0, '{}', '', '')`);
    journal.run(1, 'dep_before', 'deposit', 1); // checkpointed below: not in the WAL
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.pragma('wal_autocheckpoint = 0');
    db.transaction(() => {
      journal.run(2, 'dep_a', 'deposit', 1);
      journal.run(3, 'dep_b', 'deposit', 1);
      journal.run(4, 'dep_a', 'deposit', 2); // a deposit's later entry: not a creation
      journal.run(5, 'wdr_a', 'withdrawal', 1);
    })();
    const nonce = db.prepare('INSERT INTO nonces (scope, nonce, expires_at) VALUES (?, ?, 0)');
    db.transaction(() => { for (let i = 0; i < 2_000; i++) nonce.run('key_1', `nonce-${i}-${'x'.repeat(40)}`); })();
    const wal = join(dir, 'journal.db-wal');
    // A frame of this generation after the last commit (as a writer mid-transaction leaves it): not counted.
    const frame = Buffer.alloc(24 + 4096);
    frame.writeUInt32BE(2, 0); // page 2, no commit mark
    readFileSync(wal).copy(frame, 8, 16, 24); // the header's salts
    appendFileSync(wal, frame);
    const r = JSON.parse(execFileSync(process.execPath, [script, join(dir, 'journal.db')], { encoding: 'utf8' })) as Reading;
    db.close();

    assert.is(r.page_size, 4096);
    assert.is(r.transactions, 2);
    assert.is(r.deposits_created, 2);
    const frames = (name: string) => r.by_btree.find((b) => b.name === name)?.frames ?? 0;
    assert.ok(frames('nonces') >= 2_000 * 50 / 4096, `2,000 nonce rows of ≈ 55 bytes span many pages: ${JSON.stringify(r.by_btree)}`);
    assert.ok(frames('journal') >= 1 && frames('sqlite_autoindex_journal_1') >= 1, JSON.stringify(r.by_btree));
    assert.is(r.by_btree.reduce((n, b) => n + b.frames, 0), r.frames);
    assert.ok(r.frames_per_transaction.max >= frames('nonces') + frames('nonces_by_expiry'), 'the nonces\' transaction is the larger');
    assert.ok(r.frames_per_transaction.max < r.frames, 'and not the only one');
  } finally {
    removeDir(dir);
  }
});

test.run();
