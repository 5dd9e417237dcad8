// Where a manual test clock (SATANG_CLOCK=manual) stood after its last advance, in
// journal.db (table manual_clock, one row): a restart resumes there, or at the journal's
// last entry when that is later, so business time never runs back behind an advance that
// was answered — one that journaled nothing (no timer fell due) included. Written after
// the advance's timers have fired; an advance cut by a crash resumes where the journal or
// the last finished advance left it.

import type { Db } from './schema.ts';

export class ManualClockMark {
  private readonly s;

  constructor(db: Db) {
    db.exec('CREATE TABLE IF NOT EXISTS manual_clock (id INTEGER PRIMARY KEY CHECK (id = 1), now_ms INTEGER NOT NULL)');
    this.s = {
      read: db.prepare<[], number>('SELECT now_ms FROM manual_clock WHERE id = 1').pluck(true),
      write: db.prepare<[number]>('INSERT INTO manual_clock (id, now_ms) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET now_ms = MAX(now_ms, excluded.now_ms)'),
    };
  }

  read(): number | undefined {
    return this.s.read.get() ?? undefined;
  }

  write(nowMs: number): void {
    this.s.write.run(nowMs);
  }
}
