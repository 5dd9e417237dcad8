// Drops projections and replays them from the journal (`scripts/satang projections rebuild
// [NAME]`): each named projection is emptied (tables, position, parked and retry rows), then
// the journal is read once, in chunks of rebuildEntriesPerTransactionMax entries, and every
// chunk is applied to each projection in one transaction per projection. An entry that
// fails is parked at once (a replay fails the same way every time) and the replay goes on.
//
// A rebuild may run while the server or a projector keeps applying: both go through the
// applier's position check, so whoever commits an entry first applies it and the other
// drops it. The result is byte-identical to a projection built live (projections are
// deterministic functions of the journal).

import { Applier } from './applier.ts';
import type { ProjectionsDb } from './db.ts';
import type { EntrySource, ReadSideLog } from './gate.ts';
import { readSideLimits } from '../core/limits.ts';
import type { Projection } from './projection.ts';

export interface RebuildReport {
  readonly projections: readonly string[];
  /** Journal entries replayed. */
  readonly entries: number;
  readonly parked: number;
  readonly elapsedMs: number;
  readonly entriesPerSecond: number;
}

/** `onProgress` is told the entries replayed so far and the journal's tail after each chunk (scripts/cli/progress.ts). */
export function rebuildProjections(db: ProjectionsDb, journal: EntrySource & { tail(): number }, projections: readonly Projection[], log?: ReadSideLog, onProgress?: (entries: number, tail: number) => void): RebuildReport {
  const started = performance.now();
  // A rebuild is derived work end to end: if the machine dies mid-way, the projection's
  // position says how far it got and a rebuild (or the live applier) carries on. So the
  // chunks need not wait for fsync; WAL keeps every transaction atomic either way.
  const synchronous = db.pragma('synchronous', { simple: true });
  db.pragma('synchronous = OFF');
  try {
    return replay(db, journal, projections, started, log, onProgress);
  } finally {
    db.pragma(`synchronous = ${Number(synchronous)}`);
  }
}

function replay(db: ProjectionsDb, journal: EntrySource & { tail(): number }, projections: readonly Projection[], started: number, log?: ReadSideLog, onProgress?: (entries: number, tail: number) => void): RebuildReport {
  const appliers = projections.map((p) => new Applier(db, p));
  for (const a of appliers) a.reset();
  const tail = journal.tail();
  let after = 0;
  let entries = 0;
  let parked = 0;
  while (after < tail) {
    const chunk = journal.read(after, readSideLimits.rebuildEntriesPerTransactionMax);
    if (chunk.length === 0) break;
    for (const applier of appliers) {
      let rest = chunk;
      for (;;) {
        const result = applier.applyRun(rest);
        if (result.outcome !== 'failed') break;
        const entry = rest[result.consumed]!;
        applier.park(entry, result.error, 1);
        parked++;
        log?.error({ projection: applier.name, seq: entry.seq, type: entry.type, err: String(result.error) }, 'rebuild parked an entry');
        rest = rest.slice(result.consumed + 1);
      }
    }
    after = chunk[chunk.length - 1]!.seq;
    entries += chunk.length;
    onProgress?.(after, tail);
  }
  const elapsedMs = performance.now() - started;
  return { projections: projections.map((p) => p.name), entries, parked, elapsedMs: Math.round(elapsedMs), entriesPerSecond: Math.round(entries / Math.max(elapsedMs / 1000, 1e-9)) };
}
