// Helpers for the read-side specs: a canonical dump of the projections' tables (every row
// of every projection table, in primary-key order, integers exact, plus the positions) to
// compare a live projection with a rebuild byte for byte; waiting until the projections
// have caught up with the journal; and running the satang command line as a child.

import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { projections } from '../../projections/all.ts';
import { projectionsFileName } from '../../projections/db.ts';

const root = new URL('../..', import.meta.url).pathname;

/** Every projection table (and the positions) as one string; identical data ⇔ identical string. */
export function dumpProjections(dataDir: string): string {
  const db = new Database(join(dataDir, projectionsFileName), { readonly: true });
  try {
    const lines: string[] = [];
    const tables = [...projections.flatMap((p) => p.tables), 'projection_positions'];
    for (const table of tables) {
      const columns = db.prepare<[string], { name: string; pk: number }>('SELECT name, pk FROM pragma_table_info(?)').all(table);
      const key = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
      const order = (key.length > 0 ? key : columns.map((c) => c.name)).join(', ');
      lines.push(`# ${table} (${columns.map((c) => c.name).join(', ')})`);
      for (const row of db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).raw(true).safeIntegers(true).iterate()) {
        lines.push(JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
      }
    }
    return lines.join('\n');
  } finally {
    db.close();
  }
}

/** The lowest position of all projections in dataDir's projections.db. */
export function lowestPosition(dataDir: string): number {
  const db = new Database(join(dataDir, projectionsFileName), { readonly: true });
  try {
    const rows = db.prepare<[], { name: string; last_seq: number }>('SELECT name, last_seq FROM projection_positions').all();
    if (rows.length < projections.length) return 0;
    return Math.min(...rows.map((r) => r.last_seq));
  } finally {
    db.close();
  }
}

/** Waits until every projection has applied `seq`; throws after `timeoutMs`. */
export async function waitForProjections(dataDir: string, seq: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const at = lowestPosition(dataDir);
    if (at >= seq) return;
    if (Date.now() > deadline) throw new Error(`projections at ${at}, not at ${seq} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `scripts/satang <args>` as a child process (stdout kept; stderr too when it fails). */
export function satang(args: readonly string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(join(root, 'scripts/satang'), args, {
    cwd: root, env: { ...process.env, SATANG_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs a satang command to the end: its exit code and output. */
export async function satangRun(args: readonly string[], env: Record<string, string> = {}, stopAfterMs?: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = satang(args, env);
  let stdout = '', stderr = '';
  child.stdout!.on('data', (d) => { stdout += d; });
  child.stderr!.on('data', (d) => { stderr += d; });
  // A command that should have refused but runs on (a projector) is stopped, and its exit read, rather than waited for.
  const stop = stopAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGTERM'), stopAfterMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(stop);
  return { code, stdout, stderr };
}
