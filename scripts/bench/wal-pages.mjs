// Which tables and indexes a SQLite WAL's frames are pages of: the write amplification of
// the last group commits, by b-tree. For journal.db and its WAL as `npm run bench:api --
// --wal-copy DIR` leaves them. Prints JSON: the WAL's valid frames (those of its current
// generation, up to the last commit), its transactions, frames per transaction, the
// deposits those transactions created, and frames by b-tree (dbstat), largest first.
// Usage: node scripts/bench/wal-pages.mjs DIR/journal.db   (DIR/journal.db-wal beside it)

import Database from 'better-sqlite3';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const file = process.argv[2];
if (!file || process.argv.length !== 3) {
  console.error('usage: node scripts/bench/wal-pages.mjs DIR/journal.db');
  process.exit(2);
}

/** The WAL's committed frames (WAL format: a 32-byte header, then 24-byte frame headers each before a page). */
function committedFrames(wal) {
  const pageSize = wal.readUInt32BE(8);
  const salts = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  const transactions = [];
  let open = [];
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salts[0] || wal.readUInt32BE(at + 12) !== salts[1]) break; // an older generation
    open.push(wal.readUInt32BE(at));
    if (wal.readUInt32BE(at + 4) !== 0) { transactions.push(open); open = []; } // a commit frame
  }
  return { pageSize, transactions };
}

/** The deposits created after the last checkpoint: rows of `db`'s journal past the database file's own. */
function depositsInWal(db) {
  const dir = mkdtempSync(join(tmpdir(), 'wal-pages-'));
  try {
    copyFileSync(file, join(dir, 'journal.db')); // the database file without its WAL
    const alone = new Database(join(dir, 'journal.db'), { readonly: true });
    const checkpointed = alone.prepare('SELECT COALESCE(MAX(seq), 0) FROM journal').pluck().get();
    alone.close();
    return db.prepare("SELECT COUNT(*) FROM journal WHERE seq > ? AND kind = 'deposit' AND version = 1").pluck().get(checkpointed);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const { pageSize, transactions } = committedFrames(readFileSync(`${file}-wal`));
const db = new Database(file, { readonly: true });
const owner = new Map(db.prepare('SELECT pageno, name, pagetype FROM dbstat').all()
  .map((r) => [r.pageno, r.pagetype === 'overflow' ? `${r.name} (overflow)` : r.name]));
const deposits = depositsInWal(db);
db.close();

const byBtree = new Map();
let frames = 0;
for (const t of transactions) {
  for (const page of t) {
    const name = owner.get(page) ?? '(free)';
    byBtree.set(name, (byBtree.get(name) ?? 0) + 1);
  }
  frames += t.length;
}
const sizes = transactions.map((t) => t.length).sort((a, b) => a - b);
const round1 = (x) => Math.round(x * 10) / 10;
console.log(JSON.stringify({
  page_size: pageSize,
  frames,
  transactions: transactions.length,
  frames_per_transaction: { median: sizes[Math.floor(sizes.length / 2)] ?? 0, max: sizes.at(-1) ?? 0 },
  deposits_created: deposits,
  frames_per_deposit: deposits > 0 ? round1(frames / deposits) : null,
  by_btree: [...byBtree].sort((a, b) => b[1] - a[1]).map(([name, n]) => ({ name, frames: n, percent: round1((100 * n) / frames) })),
}, null, 2));
