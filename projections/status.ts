// What `scripts/satang projections status` reports: the journal's tail, each relay's
// acknowledged position, and for each projection its position, its lag (journal entries
// not yet applied), the entries it parked as poison (with their errors) and those it is
// still retrying. Read-only.

import type { ProjectionsDb } from './db.ts';
import { projectionNames } from './all.ts';

/** Parked entries listed per projection (the count is always exact). */
const parkedListedMax = 20;

export interface ProjectionStatus {
  readonly name: string;
  readonly position: number;
  readonly lag: number;
  readonly parked: number;
  readonly parked_entries: readonly { seq: number; type: string; stream: string; attempts: number; error: string }[];
  readonly retrying: readonly { seq: number; attempts: number; error: string }[];
}

export interface ReadSideStatus {
  readonly journal_tail: number;
  readonly relays: readonly { bus: string; position: number; lag: number }[];
  readonly projections: readonly ProjectionStatus[];
}

export function readSideStatus(db: ProjectionsDb, journalTail: number, names: readonly string[] = projectionNames): ReadSideStatus {
  const position = db.prepare<[string], number>('SELECT last_seq FROM projection_positions WHERE name = ?').pluck(true);
  const parkedCount = db.prepare<[string], number>('SELECT count(*) FROM projection_parked WHERE name = ?').pluck(true);
  const parked = db.prepare<[string, number], { seq: number; type: string; stream: string; attempts: number; error: string }>(
    'SELECT seq, type, stream, attempts, error FROM projection_parked WHERE name = ? ORDER BY seq LIMIT ?');
  const retrying = db.prepare<[string], { seq: number; attempts: number; error: string }>('SELECT seq, attempts, error FROM projection_attempts WHERE name = ? ORDER BY seq');
  const relays = db.prepare<[], { bus: string; last_seq: number }>('SELECT bus, last_seq FROM relay_positions ORDER BY bus').all();
  return {
    journal_tail: journalTail,
    relays: relays.map((r) => ({ bus: r.bus, position: r.last_seq, lag: Math.max(0, journalTail - r.last_seq) })),
    projections: names.map((name) => {
      const at = position.get(name) ?? 0;
      return { name, position: at, lag: Math.max(0, journalTail - at), parked: parkedCount.get(name)!, parked_entries: parked.all(name, parkedListedMax), retrying: retrying.all(name) };
    }),
  };
}
