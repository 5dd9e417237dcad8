// Readiness (GET /readyz), unlike liveness (GET /healthz, "the process answers"): ready only
// when the journal is open and writable, every projection is within
// observabilityLimits.readinessProjectionLagEntriesMax entries of the journal's tail, and —
// when SATANG_NATS_URL is set — the relay is connected to NATS JetStream. A load balancer
// stops sending traffic to a process that is not ready; nothing restarts it for that.
//
// "Writable" is checked without writing: the connection is open and not read-only and the
// journal file accepts writes (access W_OK). A write probe would take the write lock on
// the request path, and better-sqlite3 waits for a lock synchronously.

import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { observabilityLimits } from '../core/limits.ts';
import { projectionNames } from '../projections/all.ts';
import type { ReadSide } from './read-side.ts';

export interface ReadinessSources {
  readonly dataDir: string;
  readonly journal: () => { readonly open: boolean; readonly readonly: boolean };
  readonly tail: () => number;
  readonly readSide: ReadSide;
}

export interface Readiness {
  readonly ready: boolean;
  readonly checks: {
    readonly journal: 'writable' | 'closed' | 'read_only';
    readonly projections: Record<string, { readonly lag_entries: number; readonly ready: boolean }>;
    readonly nats: 'connected' | 'disconnected' | 'not_configured';
  };
}

export function readinessOf(s: ReadinessSources): Readiness {
  const journal = journalState(s);
  const tail = s.tail();
  const projections = Object.fromEntries(projectionNames.map((name) => {
    const lag = Math.max(0, tail - s.readSide.models.position(name));
    return [name, { lag_entries: lag, ready: lag <= observabilityLimits.readinessProjectionLagEntriesMax }];
  }));
  const bus = s.readSide.busConnected();
  const nats = bus === null ? 'not_configured' : bus ? 'connected' : 'disconnected';
  const ready = journal === 'writable' && Object.values(projections).every((p) => p.ready) && nats !== 'disconnected';
  return { ready, checks: { journal, projections, nats } };
}

function journalState(s: ReadinessSources): Readiness['checks']['journal'] {
  const db = s.journal();
  if (!db.open) return 'closed';
  if (db.readonly) return 'read_only';
  try {
    accessSync(join(s.dataDir, 'journal.db'), constants.W_OK);
    return 'writable';
  } catch {
    return 'read_only';
  }
}
