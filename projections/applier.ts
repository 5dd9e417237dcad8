// Applies journal entries to one projection. Invariants kept:
// - exactly once, in journal order: each transaction reads the projection's position,
//   skips entries at or below it (duplicates), applies only the entry right after it
//   (seq = position + 1; journal seqs are gapless) and writes the new position with the
//   rows — so a crash, a redelivery or a second applier racing on the same file (the
//   server and a `projections rebuild`) never applies an entry twice or skips one;
// - a failing entry leaves no trace: its transaction is rolled back, the entries before
//   it are applied again alone, and it is reported with its error;
// - a poison entry is parked (projection_parked, with its error) and the position moves
//   past it, so it is reported and never retried forever.

import type { ProjectionsDb } from './db.ts';
import type { RelayedEntry } from './entry.ts';
import type { Projection, ProjectionName, ProjectionWriter } from './projection.ts';

export type RunResult =
  /** `consumed` entries were applied or were duplicates. */
  | { readonly outcome: 'done'; readonly consumed: number; readonly position: number }
  /** entries[consumed] does not follow the position: entries are missing before it. */
  | { readonly outcome: 'gap'; readonly consumed: number; readonly position: number }
  /** entries[consumed] failed; nothing of it was written. */
  | { readonly outcome: 'failed'; readonly consumed: number; readonly position: number; readonly error: unknown };

class Rollback extends Error {}

export class Applier {
  readonly name: ProjectionName;
  private readonly writer: ProjectionWriter;
  private readonly selectPosition;
  private readonly upsertPosition;
  private readonly insertParked;
  private readonly upsertAttempt;
  private readonly deleteAttempts;
  private readonly countAttempts;
  private readonly run;
  /** Set while projection_attempts may hold rows of this projection. */
  private attemptsRecorded: boolean;

  constructor(private readonly db: ProjectionsDb, readonly projection: Projection) {
    this.name = projection.name;
    this.writer = projection.prepare(db);
    this.selectPosition = db.prepare<[string], number>('SELECT last_seq FROM projection_positions WHERE name = ?').pluck(true);
    this.upsertPosition = db.prepare('INSERT INTO projection_positions (name, last_seq) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET last_seq = excluded.last_seq');
    this.insertParked = db.prepare('INSERT INTO projection_parked (name, seq, type, stream, attempts, error) VALUES (?, ?, ?, ?, ?, ?)');
    this.upsertAttempt = db.prepare<[string, number, string], number>(`INSERT INTO projection_attempts (name, seq, attempts, error) VALUES (?, ?, 1, ?)
      ON CONFLICT (name, seq) DO UPDATE SET attempts = attempts + 1, error = excluded.error RETURNING attempts`).pluck(true);
    this.deleteAttempts = db.prepare('DELETE FROM projection_attempts WHERE name = ? AND seq <= ?');
    this.countAttempts = db.prepare<[string], number>('SELECT count(*) FROM projection_attempts WHERE name = ?').pluck(true);
    this.attemptsRecorded = this.countAttempts.get(this.name)! > 0;
    this.run = db.transaction((entries: readonly RelayedEntry[], failed: { index: number; error: unknown } | null): RunResult => {
      this.writer.reset?.();
      const start = this.position();
      let position = start;
      let consumed = 0;
      let outcome: RunResult['outcome'] = 'done';
      for (const entry of entries) {
        if (failed && consumed === failed.index) break;
        if (entry.seq > position) {
          if (entry.seq !== position + 1) { outcome = 'gap'; break; }
          try {
            this.writer.apply(entry);
          } catch (error) {
            throw new FailedAt(consumed, error);
          }
          position = entry.seq;
        }
        consumed++;
      }
      if (position !== start) {
        this.writer.flush?.();
        this.upsertPosition.run(this.name, position);
        if (this.attemptsRecorded) this.clearAttempts(position);
      }
      return failed ? { outcome: 'failed', consumed, position, error: failed.error } : { outcome, consumed, position };
    });
  }

  /** The last journal seq this projection applied (0 before the first). */
  position(): number {
    return this.selectPosition.get(this.name) ?? 0;
  }

  /** Applies the entries (in seq order) that follow the position, in one transaction. */
  applyRun(entries: readonly RelayedEntry[]): RunResult {
    try {
      return this.run.immediate(entries, null);
    } catch (error) {
      if (!(error instanceof FailedAt)) throw error;
      // The failing entry's writes are gone with the transaction; the ones before it are
      // deterministic, so they apply again, and the run ends at the failure.
      return this.run.immediate(entries, { index: error.index, error: error.cause });
    }
  }

  /** Counts one more failed delivery of `seq` (durably); returns how many there were. */
  recordFailure(seq: number, error: unknown): number {
    this.attemptsRecorded = true;
    return this.upsertAttempt.get(this.name, seq, describe(error))!;
  }

  /** Parks `entry` (which must follow the position) with its error and moves past it. */
  park(entry: RelayedEntry, error: unknown, attempts: number): boolean {
    return this.db.transaction(() => {
      if (this.position() !== entry.seq - 1) return false; // applied, parked or raced by another applier
      this.insertParked.run(this.name, entry.seq, entry.type, entry.stream, attempts, describe(error));
      this.upsertPosition.run(this.name, entry.seq);
      this.clearAttempts(entry.seq);
      return true;
    }).immediate();
  }

  /** Empties the projection's tables and position (the start of a rebuild). */
  reset(): void {
    this.db.transaction(() => {
      for (const table of this.projection.tables) this.db.exec(`DROP TABLE IF EXISTS ${table}`);
      this.db.exec(this.projection.schema);
      for (const table of ['projection_positions', 'projection_parked', 'projection_attempts']) {
        this.db.prepare(`DELETE FROM ${table} WHERE name = ?`).run(this.name);
      }
    }).immediate();
    this.attemptsRecorded = false;
  }

  private clearAttempts(upTo: number): void {
    this.deleteAttempts.run(this.name, upTo);
    this.attemptsRecorded = this.countAttempts.get(this.name)! > 0;
  }
}

class FailedAt extends Rollback {
  constructor(readonly index: number, override readonly cause: unknown) { super('entry failed'); }
}

export function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
