// Readiness (GET /readyz), unlike liveness (GET /healthz, "the process answers"). A load
// balancer stops sending traffic to a process that is not ready; nothing restarts it for
// that. With one writer, taking it out is an outage, so only what stops it serving gates:
//   - the journal must be open and writable, and its last commit not a failed one (for
//     observabilityLimits.readinessCommitFailureHoldMs after a failure, unless a commit was
//     written since) nor the disk full: a full disk fails every write while the file stays
//     writable;
//   - every projection within readinessProjectionLagEntriesMax entries of the journal's
//     tail — until the process has first been ready (it starts by catching up).
// After that a lagging projection — one past that many entries, or one behind the tail that
// has not moved for readinessProjectionStallMs (its projector died) —, or NATS JetStream gone when SATANG_NATS_URL is set (the
// read side's bus: writes go on, the relay catches up), is `degraded`: 200, the checks
// saying what, and the metrics' alerts paging for it.
//
// "Writable" is checked without writing: the connection is open and not read-only, the
// journal file accepts writes (access W_OK) and its file system has room (statfs). A write
// probe would take the write lock on the request path, and better-sqlite3 waits for a lock
// synchronously.

import { accessSync, constants, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { observabilityLimits } from '../core/limits.ts';
import { projectionNames } from '../projections/all.ts';
import type { ReadSide } from './read-side.ts';

export interface ReadinessSources {
  readonly dataDir: string;
  readonly journal: () => { readonly open: boolean; readonly readonly: boolean };
  readonly tail: () => number;
  readonly readSide: ReadSide;
  /** The last journal commit that failed, until one is written again (adapters/sqlite/store.ts). */
  readonly commitFailure?: () => { readonly atMs: number; readonly code: string } | null;
  /**
   * Whether this process has been ready before (then a lagging projection only degrades
   * it), and where each projection stood when it was last seen to move. Kept by the caller.
   */
  readonly history?: { everReady: boolean; moved?: Map<string, { readonly position: number; readonly atMs: number }> };
  /** The wall clock (ms) a stall is timed on; Date.now by default. */
  readonly wallNow?: () => number;
}

export interface Readiness {
  /** Whether a load balancer should send traffic: ready or degraded. */
  readonly ready: boolean;
  readonly status: 'ready' | 'degraded' | 'not_ready';
  readonly checks: {
    readonly journal: 'writable' | 'closed' | 'read_only' | 'disk_full' | 'commit_failed';
    /** The failed commit's SQLite code, while journal is commit_failed. */
    readonly journal_error?: string;
    readonly projections: Record<string, { readonly lag_entries: number; readonly ready: boolean; readonly stalled_ms?: number }>;
    readonly nats: 'connected' | 'disconnected' | 'not_configured';
  };
}

export function readinessOf(s: ReadinessSources): Readiness {
  const failure = s.commitFailure?.() ?? null;
  const failing = failure !== null && (s.wallNow ?? Date.now)() - failure.atMs < observabilityLimits.readinessCommitFailureHoldMs;
  const stored = journalState(s);
  const journal = stored === 'writable' && failing ? 'commit_failed' : stored;
  const tail = s.tail();
  const nowMs = (s.wallNow ?? Date.now)();
  const moved = s.history ? (s.history.moved ??= new Map()) : undefined;
  const projections = Object.fromEntries(projectionNames.map((name) => {
    const position = s.readSide.models.position(name);
    const lag = Math.max(0, tail - position);
    // Stalled: behind the tail and not moved for a while (a projector that died, a stream
    // that stopped): degraded at once, not only past the start's 10,000 entries.
    const last = moved?.get(name);
    if (!last || last.position !== position || lag === 0) moved?.set(name, { position, atMs: nowMs });
    const stalled = lag > 0 && last !== undefined && last.position === position && nowMs - last.atMs >= observabilityLimits.readinessProjectionStallMs;
    return [name, { lag_entries: lag, ready: lag <= observabilityLimits.readinessProjectionLagEntriesMax && !stalled, ...(stalled ? { stalled_ms: nowMs - last!.atMs } : {}) }];
  }));
  const bus = s.readSide.busConnected();
  const nats = bus === null ? 'not_configured' : bus ? 'connected' : 'disconnected';
  // Starting, only the lag gates (a stall is seen across checks); once ready, a stall degrades too.
  const caughtUp = Object.values(projections).every((p) => p.lag_entries <= observabilityLimits.readinessProjectionLagEntriesMax);
  const serving = journal === 'writable' && (caughtUp || s.history?.everReady === true);
  const status = !serving ? 'not_ready' : Object.values(projections).every((p) => p.ready) && nats !== 'disconnected' ? 'ready' : 'degraded';
  if (serving && s.history) s.history.everReady = true;
  return { ready: serving, status, checks: { journal, ...(journal === 'commit_failed' ? { journal_error: failure!.code } : {}), projections, nats } };
}

function journalState(s: ReadinessSources): 'writable' | 'closed' | 'read_only' | 'disk_full' {
  const db = s.journal();
  if (!db.open) return 'closed';
  if (db.readonly) return 'read_only';
  try {
    accessSync(join(s.dataDir, 'journal.db'), constants.W_OK);
  } catch {
    return 'read_only';
  }
  try {
    const fs = statfsSync(s.dataDir);
    if (fs.bavail * fs.bsize < observabilityLimits.readinessDiskFreeBytesMin) return 'disk_full';
  } catch {
    // A file system that cannot say: judged by the commits alone.
  }
  return 'writable';
}
