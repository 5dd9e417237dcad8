// `satang verify`: checks a journal.db from the journal up, inside one read transaction.
// It re-walks the hash chain; replays every entry into a fresh World; compares each
// snapshot, decoded, with the replayed state (one an older build wrote holds it too:
// snapshots.ts holdsState); re-derives every account balance from the postings table
// and compares it with the replayed world; checks that the postings sum to
// zero overall and per balance transaction and that they are exactly the postings the
// journal's entries carry; checks from the postings table that no merchant bucket ever
// left 0..2^53−1 after any balance transaction (the ledger's range invariant, re-derived
// without the core: a journal forged past the writer is caught here); checks that every outbox row and idempotency record points at a
// journal row that exists, that no outbox sequence counter is behind the sequences it
// gave, and that every timer belongs to a stream of the journal. Any mismatch makes `ok`
// false.

import type { JournalEntry } from '../../core/journal.ts';
import { accountKey } from '../../core/ledger/ledger.ts';
import { safeIntegerMax } from '../../core/money.ts';
import { World } from '../../core/world.ts';
import { writeSideLimits, observabilityLimits } from '../../core/limits.ts';
import { replayJournal } from './recovery.ts';
import type { Db } from './schema.ts';
import { holdsState, snapshotData } from './snapshots.ts';

export interface VerifyReport {
  ok: boolean;
  entries: number;
  chain_ok: boolean;
  first_bad_seq: number | null;
  replay_ok: boolean;
  snapshots_checked: number;
  accounts_checked: number;
  postings: number;
  postings_sum: string;
  /** Merchant buckets whose running balance left 0..2^53−1 at some balance transaction. */
  buckets_out_of_range: number;
  outbox_rows: number;
  idempotency_records: number;
  timers: number;
  mismatch_count: number;
  mismatches: string[];
}

/** `onProgress` is told the journal seq replayed so far and the last seq, every observabilityLimits.progressEntriesPerStep entries (scripts/cli/progress.ts). */
export function verifyStore(db: Db, onProgress?: (seq: number, lastSeq: number) => void): VerifyReport {
  return db.transaction(() => new Verification(db, onProgress).run()).deferred();
}

class Verification {
  private readonly mismatches: string[] = [];
  private mismatchCount = 0;
  private readonly world = new World();
  /** Per stream, its last entry (for snapshots); per balance transaction, its postings sum. */
  private readonly lastEntry = new Map<string, { seq: number; entry: JournalEntry }>();
  private readonly journalPostings = new Map<string, bigint>();
  private journalPostingCount = 0;
  private entries = 0;

  private readonly lastSeq: number;

  constructor(private readonly db: Db, private readonly onProgress?: (seq: number, lastSeq: number) => void) {
    this.lastSeq = onProgress ? (db.prepare('SELECT MAX(seq) FROM journal').pluck(true).get() as number | null) ?? 0 : 0;
  }

  run(): VerifyReport {
    let firstBadSeq: number | null = null;
    let replayOk = true;
    try {
      replayJournal(this.db, this.world, (seq, reason) => {
        if (firstBadSeq === null) firstBadSeq = seq;
        this.mismatch(`chain: ${reason}`);
      }, (seq, entry) => this.observe(seq, entry));
    } catch (error) {
      replayOk = false;
      this.mismatch(`replay stopped: ${(error as Error).message}`);
    }
    const snapshots = this.checkSnapshots();
    const { accounts, postings, sum } = this.checkPostings();
    const outOfRange = this.checkBucketRange();
    const outbox = this.checkReferences('outbox', 'id');
    const idempotency = this.checkReferences('idempotency', "scope || ' ' || key");
    this.checkSequenceCounters();
    const timers = this.checkTimers();
    return {
      ok: this.mismatchCount === 0, entries: this.entries, chain_ok: firstBadSeq === null, first_bad_seq: firstBadSeq, replay_ok: replayOk,
      snapshots_checked: snapshots, accounts_checked: accounts, postings, postings_sum: sum.toString(), buckets_out_of_range: outOfRange,
      outbox_rows: outbox, idempotency_records: idempotency, timers, mismatch_count: this.mismatchCount, mismatches: this.mismatches,
    };
  }

  private mismatch(text: string): void {
    this.mismatchCount++;
    if (this.mismatches.length < writeSideLimits.verifyMismatchesListedMax) this.mismatches.push(text);
  }

  private observe(seq: number, entry: JournalEntry): void {
    this.entries++;
    if (this.onProgress && (this.entries % observabilityLimits.progressEntriesPerStep === 0 || seq === this.lastSeq)) this.onProgress(seq, this.lastSeq);
    // Only the last entry of a stream is kept; a balance transaction's snapshot needs its entry.
    this.lastEntry.set(entry.stream, { seq, entry });
    if (entry.event.type !== 'BalanceTransactionPosted') return;
    for (const p of entry.event.transaction.postings) {
      const key = `${entry.event.transaction.id}\n${accountKey(p.account)}`;
      this.journalPostings.set(key, (this.journalPostings.get(key) ?? 0n) + p.amountMinor);
      this.journalPostingCount++;
    }
  }

  private checkSnapshots(): number {
    const rows = this.db.prepare<[], [string, string, number, string, number]>('SELECT stream, kind, version, data, journal_seq FROM snapshots').raw(true);
    let checked = 0;
    const seen = new Set<string>();
    for (const [stream, kind, version, data, journalSeq] of rows.iterate()) {
      checked++;
      seen.add(stream);
      const last = this.lastEntry.get(stream);
      if (!last) { this.mismatch(`snapshot ${stream}: no journal entry`); continue; }
      if (last.entry.streamKind !== kind || last.entry.version !== version || last.seq !== journalSeq) {
        this.mismatch(`snapshot ${stream}: ${kind} v${version} at seq ${journalSeq}, journal has ${last.entry.streamKind} v${last.entry.version} at seq ${last.seq}`);
        continue;
      }
      let holds: boolean;
      try {
        holds = holdsState(data, snapshotData(this.world, last.entry));
      } catch (error) { // no state to replay, or data that is no snapshot: say which
        this.mismatch(`snapshot ${stream}: cannot be compared with the replayed state: ${(error as Error).message}`);
        continue;
      }
      if (!holds) this.mismatch(`snapshot ${stream}: data differs from the replayed state`);
    }
    for (const stream of this.lastEntry.keys()) if (!seen.has(stream)) this.mismatch(`stream ${stream}: no snapshot`);
    return checked;
  }

  private checkPostings(): { accounts: number; postings: number; sum: bigint } {
    const db = this.db;
    const byAccount = db.prepare<[], [string, bigint]>('SELECT account, SUM(amount) FROM postings GROUP BY account').raw(true).safeIntegers(true);
    const derived = new Map<string, bigint>();
    for (const [account, total] of byAccount.iterate()) derived.set(account, total);
    const accountKeys = new Set([...derived.keys(), ...this.world.accounts.keys()]);
    for (const key of accountKeys) {
      const fromPostings = derived.get(key) ?? 0n;
      const replayed = this.world.accounts.get(key) ?? 0n;
      if (fromPostings !== replayed) this.mismatch(`account ${key}: postings sum ${fromPostings}, replayed balance ${replayed}`);
    }
    const sum = db.prepare<[], bigint | null>('SELECT SUM(amount) FROM postings').pluck(true).safeIntegers(true).get() ?? 0n;
    if (sum !== 0n) this.mismatch(`postings sum to ${sum}, not 0`);
    const unbalanced = db.prepare<[], [string, bigint]>('SELECT balance_transaction_id, SUM(amount) s FROM postings GROUP BY 1 HAVING s <> 0').raw(true).safeIntegers(true);
    for (const [id, total] of unbalanced.iterate()) this.mismatch(`balance transaction ${id}: postings sum to ${total}`);
    // The table holds exactly the postings the journal's entries carry, each on its entry's row.
    const table = db.prepare<[], [string, string, bigint]>('SELECT balance_transaction_id, account, SUM(amount) FROM postings GROUP BY 1, 2').raw(true).safeIntegers(true);
    const inTable = new Set<string>();
    for (const [id, account, total] of table.iterate()) {
      const key = `${id}\n${account}`;
      inTable.add(key);
      const journal = this.journalPostings.get(key);
      if (journal !== total) this.mismatch(`postings of ${id} on ${account}: table ${total}, journal ${journal ?? 'none'}`);
    }
    for (const key of this.journalPostings.keys()) if (!inTable.has(key)) this.mismatch(`postings of ${key.replace('\n', ' on ')}: in the journal, not in the table`);
    const misplaced = db.prepare<[], number>(`SELECT COUNT(*) FROM postings p
      WHERE NOT EXISTS (SELECT 1 FROM journal j WHERE j.seq = p.journal_seq AND j.stream = p.balance_transaction_id)`).pluck(true).get()!;
    if (misplaced > 0) this.mismatch(`${misplaced} postings rows do not name the journal row of their balance transaction`);
    const postings = db.prepare<[], number>('SELECT COUNT(*) FROM postings').pluck(true).get()!;
    if (postings !== this.journalPostingCount) this.mismatch(`postings table holds ${postings} rows, the journal's entries ${this.journalPostingCount}`);
    return { accounts: accountKeys.size, postings, sum };
  }

  /**
   * The range invariant, from the postings table alone: each merchant bucket's running
   * balance in journal order (one balance transaction per journal row, touching a bucket
   * at most once) must stay within 0..2^53−1. Reports the first break of each bucket.
   */
  private checkBucketRange(): number {
    const rows = this.db.prepare<[bigint], [string, bigint, string, bigint]>(`
      SELECT account, journal_seq, balance_transaction_id, balance FROM (
        SELECT account, journal_seq, balance_transaction_id,
          SUM(amount) OVER (PARTITION BY account ORDER BY journal_seq, rowid ROWS UNBOUNDED PRECEDING) AS balance
        FROM postings WHERE account NOT LIKE 'sys:%')
      WHERE balance < 0 OR balance > ? ORDER BY journal_seq`).raw(true).safeIntegers(true);
    const reported = new Set<string>();
    for (const [account, seq, id, balance] of rows.iterate(BigInt(safeIntegerMax))) {
      if (reported.has(account)) continue;
      reported.add(account);
      this.mismatch(`bucket ${account}: ${balance} after balance transaction ${id} (seq ${seq}); a merchant bucket stays within 0..${safeIntegerMax}`);
    }
    return reported.size;
  }

  /** Rows of `table` whose journal_seq names no journal row. Returns the table's row count. */
  private checkReferences(table: 'outbox' | 'idempotency', label: string): number {
    const dangling = this.db.prepare<[], [string, number]>(
      `SELECT ${label}, t.journal_seq FROM ${table} t WHERE t.journal_seq IS NOT NULL AND NOT EXISTS (SELECT 1 FROM journal j WHERE j.seq = t.journal_seq)`).raw(true);
    for (const [name, seq] of dangling.iterate()) this.mismatch(`${table} ${name}: journal_seq ${seq} does not exist`);
    return this.db.prepare<[], number>(`SELECT COUNT(*) FROM ${table}`).pluck(true).get()!;
  }

  /** A counter behind the highest sequence it gave would hand that sequence out again. */
  private checkSequenceCounters(): void {
    const behind = this.db.prepare<[], [string, number, number | null, number]>(`
      SELECT o.merchant_id, o.livemode, s.last_sequence, MAX(o.sequence) FROM outbox o
      LEFT JOIN outbox_sequences s ON s.merchant_id = o.merchant_id AND s.livemode = o.livemode
      GROUP BY o.merchant_id, o.livemode HAVING s.last_sequence IS NULL OR s.last_sequence < MAX(o.sequence)`).raw(true);
    for (const [merchant, livemode, last, max] of behind.iterate()) this.mismatch(`outbox sequence of ${merchant} (livemode ${livemode}): counter ${last}, highest given ${max}`);
  }

  private checkTimers(): number {
    let count = 0;
    for (const [id, stream] of this.db.prepare<[], [string, string]>('SELECT id, stream FROM timers').raw(true).iterate()) {
      count++;
      if (!this.lastEntry.has(stream)) this.mismatch(`timer ${id}: stream ${stream} is not in the journal`);
    }
    return count;
  }
}
