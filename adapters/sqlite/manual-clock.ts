// Where a manual test clock (SATANG_CLOCK=manual) stood after its last advance, in
// journal.db (table manual_clock, one row): a restart resumes there, or at the journal's
// last entry when that is later, so business time never runs back behind an advance that
// was answered — one that journaled nothing (no timer fell due) included. Written after
// the advance's timers have fired; an advance cut by a crash resumes where the journal or
// the last finished advance left it.
// Beside it (table manual_clock_intent, one row) the advance under way: its request (the
// operator's Idempotency-Key and seconds) and the instant it aims at, written before its
// first step and removed with the mark. A retry of an advance a crash cut goes on to that
// instant instead of adding its seconds again to where the clock resumed (the timers it
// had fired moved the journal, hence the clock, part of the way).

import type { Db } from './schema.ts';

export class ManualClockMark {
  private readonly s;

  constructor(db: Db) {
    db.exec('CREATE TABLE IF NOT EXISTS manual_clock (id INTEGER PRIMARY KEY CHECK (id = 1), now_ms INTEGER NOT NULL)');
    db.exec('CREATE TABLE IF NOT EXISTS manual_clock_intent (id INTEGER PRIMARY KEY CHECK (id = 1), request TEXT NOT NULL, target_ms INTEGER NOT NULL)');
    this.s = {
      read: db.prepare<[], number>('SELECT now_ms FROM manual_clock WHERE id = 1').pluck(true),
      write: db.prepare<[number]>('INSERT INTO manual_clock (id, now_ms) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET now_ms = MAX(now_ms, excluded.now_ms)'),
      aimed: db.prepare<[string], number>('SELECT target_ms FROM manual_clock_intent WHERE id = 1 AND request = ?').pluck(true),
      begin: db.prepare<[string, number]>('INSERT INTO manual_clock_intent (id, request, target_ms) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET request = excluded.request, target_ms = excluded.target_ms'),
      end: db.prepare('DELETE FROM manual_clock_intent'),
    };
  }

  /** The instant an advance of this request that a crash cut was aiming at, if one was. */
  aimedAt(request: string): number | undefined {
    return this.s.aimed.get(request) ?? undefined;
  }

  /** Before an advance's first step: the request and the instant it aims at. */
  begin(request: string, targetMs: number): void {
    this.s.begin.run(request, targetMs);
  }

  /** With the mark, once the advance is answered. */
  end(): void {
    this.s.end.run();
  }

  read(): number | undefined {
    return this.s.read.get() ?? undefined;
  }

  write(nowMs: number): void {
    this.s.write.run(nowMs);
  }
}
