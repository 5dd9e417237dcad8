// What a projection is: a name, its tables in projections.db, and how one journal entry
// changes them. The applier (applier.ts) runs `apply` inside a transaction that also
// moves the projection's position, in journal order, once per entry; so `apply` needs no
// dedupe of its own, must be deterministic (a rebuild gives byte-identical tables) and
// must read only its own tables and the entry — never the clock or the write side.
// A writer may keep rows in memory within one transaction (flush writes them before the
// transaction commits; reset forgets them when one starts, so a rolled-back transaction
// leaves nothing behind).

import type { ProjectionsDb } from './db.ts';
import type { RelayedEntry } from './entry.ts';

export type ProjectionName = 'balance_history' | 'events_feed' | 'deposit_list' | 'withdrawal_list' | 'finance_ledger' | 'fee_ledger' | 'receiving_accounts' | 'system_lines' | 'dispute_ledger' | 'statement_lines' | 'payer_debts' | 'payee_debts';

export interface Projection {
  readonly name: ProjectionName;
  /** Its tables (indexes go with them): dropped on rebuild, dumped when comparing. */
  readonly tables: readonly string[];
  /** CREATE ... IF NOT EXISTS statements of its tables and indexes. */
  readonly schema: string;
  /** Prepares its statements on `db`. */
  prepare(db: ProjectionsDb): ProjectionWriter;
}

export interface ProjectionWriter {
  /** Writes (or keeps, until flush) what one entry changes. */
  apply(entry: RelayedEntry): void;
  /** Writes what apply kept in memory; called once before the transaction commits. */
  flush?(): void;
  /** Forgets what apply kept in memory; called when a transaction starts. */
  reset?(): void;
}
