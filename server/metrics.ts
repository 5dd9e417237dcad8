// Prometheus metrics (prom-client), one registry per server (no process-global state), and
// the listener that serves them: GET /metrics on SATANG_METRICS_HOST:SATANG_METRICS_PORT,
// a port of its own, not the API's. Why a separate port rather than the operator token:
// a scraper holds a static credential or none, while operator tokens are short-lived OIDC
// tokens; the metrics hold no merchant data beyond opaque endpoint ids, so they are served
// without auth on an address that only the monitoring network reaches (127.0.0.1 by
// default). README "Metrics" lists every metric.
//
// Cost on the request path: one histogram observation per request (in the access-log
// middleware) and counter increments where something happens; everything that is a level
// (lags, queue depths, timers) is read only when Prometheus scrapes, by collect().

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RetentionBatch } from '../adapters/webhooks/retention.ts';
import type { SlipVerifier } from '../core/deposit/slip-verifier.ts';
import { observabilityLimits, webhookLimits } from '../core/limits.ts';
import type { World } from '../core/world.ts';
import { projectionNames } from '../projections/all.ts';
import type { ReadSide } from './read-side.ts';
import type { Readiness } from './readiness.ts';

/** Levels read at scrape time. */
export interface MetricSources {
  /** The journal's last durable seq. */
  readonly tail: () => number;
  readonly readSide: ReadSide;
  readonly world: () => World;
  /** Business time (timers fall due on it). */
  readonly now: () => number;
  /** Pending webhook deliveries per endpoint id. */
  readonly webhookQueue: () => ReadonlyMap<string, number>;
  /** The load meter's recent event-loop lag, ms (the load-shedding signal). */
  readonly eventLoopLagMs: () => number;
  /** When the data dir's last verified backup was taken (wall clock, ms), null when none. */
  readonly lastBackupAtMs: () => number | null;
  /** created_at (business time, ms) of the oldest outbox envelope the event retention could delete; null when none. */
  readonly oldestEnvelopeAtMs: () => number | null;
  /** What /readyz says now (a projection stalled, the bus connected). */
  readonly readiness?: () => Readiness;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly requestSeconds = new Histogram({
    name: 'satang_http_request_duration_seconds', help: 'HTTP request duration by route template, method and status.',
    labelNames: ['method', 'route', 'status'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers: [this.registry], // to the body's 10 s and a request's 60 s
  });
  private readonly groupCommitSeconds = new Histogram({
    name: 'satang_journal_group_commit_seconds', help: 'Time to write and commit one group commit transaction of the journal.',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1], registers: [this.registry],
  });
  private readonly groupCommitCommands = new Histogram({
    name: 'satang_journal_group_commit_commands', help: 'Commands per group commit transaction.',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512], registers: [this.registry],
  });
  private readonly webhookAttempts = new Counter({
    name: 'satang_webhook_attempts_total', help: 'Webhook delivery attempts by endpoint and outcome.', labelNames: ['endpoint', 'outcome'], registers: [this.registry],
  });
  private readonly slipSeconds = new Histogram({
    name: 'satang_slip_verification_seconds', help: 'Slip verification latency (provider or simulator call) by verdict.',
    labelNames: ['verdict'], buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [this.registry],
  });
  private readonly slipProviderErrors = new Counter({
    name: 'satang_slip_provider_errors_total', help: 'Slip provider failures: a failed HTTP attempt (retried) or a verification that ended provider_unavailable.',
    labelNames: ['kind'], registers: [this.registry],
  });
  private readonly retentionDeleted = new Counter({
    name: 'satang_event_retention_deleted_total', help: 'Rows the event retention deleted, by table (outbox, webhook_events, webhook_deliveries).',
    labelNames: ['table'], registers: [this.registry],
  });
  private readonly shed = new Counter({
    name: 'satang_load_shedding_decisions_total', help: 'Requests refused 503 by load shedding, by request class.', labelNames: ['class'], registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'satang_' });
    // Each series the alerts read with increase() exists from the start at 0: a counter born
    // at its first event has no earlier sample, so increase() would miss that first event
    // after every restart (outside-in SRE audit).
    for (const kind of ['attempt_failed', 'unavailable'] as const) this.slipProviderErrors.inc({ kind }, 0);
    for (const requestClass of ['new_deposit', 'read'] as const) this.shed.inc({ class: requestClass }, 0);
  }

  observeRequest(method: string, route: string | undefined, status: number, seconds: number): void {
    this.requestSeconds.observe({ method, route: route ?? 'unmatched', status: String(status) }, seconds);
  }

  observeGroupCommit(commands: number, seconds: number): void {
    this.groupCommitSeconds.observe(seconds);
    this.groupCommitCommands.observe(commands);
  }

  webhookAttempt(endpointId: string, outcome: string): void {
    this.webhookAttempts.inc({ endpoint: endpointId, outcome });
  }

  /** An endpoint's permanent-failure series at 0 from its start (or the server's): the alert reads it with increase(), which misses a series born at 1. */
  webhookEndpoint(endpointId: string): void {
    this.webhookAttempts.inc({ endpoint: endpointId, outcome: 'permanent' }, 0);
  }

  slipProviderError(kind: 'attempt_failed' | 'unavailable'): void {
    this.slipProviderErrors.inc({ kind });
  }

  retentionSwept(deleted: RetentionBatch): void {
    this.retentionDeleted.inc({ table: 'outbox' }, deleted.outbox);
    this.retentionDeleted.inc({ table: 'webhook_events' }, deleted.serviceEvents);
    this.retentionDeleted.inc({ table: 'webhook_deliveries' }, deleted.deliveries);
  }

  loadShed(requestClass: 'new_deposit' | 'read'): void {
    this.shed.inc({ class: requestClass });
  }

  /**
   * The verifier, timed: latency by verdict, a round at a time (a provider down for a moment
   * is asked again, so one slip may take several rounds). A verification that ended
   * provider_unavailable, after its rounds, is counted where the worker gives up
   * (slipProviderError('unavailable'), server/slips/wiring.ts), not here: a blip the
   * worker rides out pages no one.
   */
  timed(verifier: SlipVerifier): SlipVerifier {
    return {
      verify: async (evidence) => {
        const end = this.slipSeconds.startTimer();
        const verdict = await verifier.verify(evidence);
        end({ verdict: verdict.kind });
        return verdict;
      },
    };
  }

  /** The gauges read at scrape time. */
  watch(sources: MetricSources): void {
    const registers = [this.registry];
    new Gauge({ name: 'satang_relay_lag_entries', help: 'Journal entries committed but not yet published to the bus (journal seq − published seq).', registers, collect() { this.set(Math.max(0, sources.tail() - sources.readSide.relay.position)); } });
    new Gauge({
      name: 'satang_projection_lag_entries', help: 'Journal entries a projection has not applied yet (journal seq − projection position).', labelNames: ['projection'], registers,
      collect() { for (const name of projectionNames) this.set({ projection: name }, Math.max(0, sources.tail() - sources.readSide.models.position(name))); },
    });
    new Gauge({
      name: 'satang_webhook_queue_depth', help: 'Pending webhook deliveries per endpoint.', labelNames: ['endpoint'], registers,
      collect() { this.reset(); for (const [endpoint, count] of sources.webhookQueue()) this.set({ endpoint }, count); },
    });
    const timerCounts = () => countTimers(sources.world(), sources.now());
    new Gauge({ name: 'satang_timers_due', help: 'Timers whose due time has passed and that have not run yet.', registers, collect() { this.set(timerCounts().due); } });
    new Gauge({ name: 'satang_timers_overdue', help: `Timers still pending more than ${observabilityLimits.timerOverdueAfterMs / 1000} s after they fell due.`, registers, collect() { this.set(timerCounts().overdue); } });
    // The operators' queues, from the write side's open work (what GET /v1/bo/deposits?status=under_review and the approvals queue list).
    const queues = () => queueFigures(sources.world(), sources.now());
    const queueGauge = (name: string, help: string, read: (q: ReturnType<typeof queueFigures>) => Map<string, QueueFigure>, field: keyof QueueFigure) =>
      new Gauge({ name, help, labelNames: ['livemode'], registers, collect() { for (const [livemode, q] of read(queues())) this.set({ livemode }, q[field]); } });
    queueGauge('satang_review_queue_deposits', 'Deposits under review, per mode.', (q) => q.review, 'count');
    queueGauge('satang_review_queue_oldest_seconds', 'How long the oldest deposit under review has waited since its review opened (0 when none), per mode.', (q) => q.review, 'oldestSeconds');
    queueGauge('satang_approval_queue_withdrawals', 'Withdrawals pending approval, per mode.', (q) => q.approval, 'count');
    queueGauge('satang_slip_queue_deposits', 'Deposits whose slip is being verified (received, no verdict yet), per mode: the verifier\'s backlog.', (q) => q.verifying, 'count');
    queueGauge('satang_slip_queue_oldest_seconds', 'How long the oldest slip being verified has waited since it was received (0 when none), per mode.', (q) => q.verifying, 'oldestSeconds');
    queueGauge('satang_approval_queue_oldest_seconds', 'How long the oldest withdrawal pending approval has waited since it was created (0 when none), per mode.', (q) => q.approval, 'oldestSeconds');
    new Gauge({
      name: 'satang_backup_last_success_timestamp_seconds', help: "When the data dir's last verified backup was taken (Unix seconds; 0 when none, or when it is sealed with a master key a rekey has since retired): satang backup notes it.", registers,
      collect() { this.set((sources.lastBackupAtMs() ?? 0) / 1000); },
    });
    new Gauge({
      name: 'satang_events_oldest_age_seconds', help: `Age of the oldest webhook envelope in journal.db (0 when none): the event retention keeps it under ${webhookLimits.eventRetentionDays} days.`, registers,
      collect() { const at = sources.oldestEnvelopeAtMs(); this.set(at === null ? 0 : Math.max(0, sources.now() - at) / 1000); },
    });
    // What /readyz knows, for alerts that must page at low traffic too: a projection behind
    // the tail that has not moved (a projector down) and the read side's bus (outside-in SRE audit).
    new Gauge({
      name: 'satang_projection_stalled_seconds', help: 'How long a projection behind the journal has not moved (0 when it moves or is caught up): a projector down, a stream gone.', labelNames: ['projection'], registers,
      collect() {
        const r = sources.readiness?.();
        for (const name of projectionNames) this.set({ projection: name }, (r?.checks.projections[name]?.stalled_ms ?? 0) / 1000);
      },
    });
    new Gauge({
      name: 'satang_bus_connected', help: "1 while the read side's bus is connected (NATS; the embedded bus always is), 0 while it is not.", registers,
      collect() { this.set(sources.readiness?.().checks.nats === 'disconnected' ? 0 : 1); },
    });
    new Gauge({ name: 'satang_event_loop_lag_seconds', help: 'Mean event-loop delay over the last second (the load-shedding signal).', registers, collect() { this.set(sources.eventLoopLagMs() / 1000); } });
  }
}

interface QueueFigure { count: number; oldestSeconds: number }

/** Per mode ('true' | 'false'): deposits under review and withdrawals pending approval, with the oldest one's wait. */
function queueFigures(world: World, now: number): { review: Map<string, QueueFigure>; approval: Map<string, QueueFigure>; verifying: Map<string, QueueFigure> } {
  const empty = () => new Map([['true', { count: 0, oldestSeconds: 0 }], ['false', { count: 0, oldestSeconds: 0 }]]);
  const review = empty(), approval = empty(), verifying = empty();
  const note = (into: Map<string, QueueFigure>, livemode: boolean, since: number) => {
    const q = into.get(String(livemode))!;
    q.count++;
    q.oldestSeconds = Math.max(q.oldestSeconds, Math.max(0, Math.floor((now - since) / 1000)));
  };
  for (const d of world.deposits.values()) if (d.status === 'under_review') note(review, d.livemode, d.review?.openedAt ?? d.createdAt);
  for (const w of world.withdrawals.values()) if (w.status === 'pending_approval') note(approval, w.livemode, w.createdAt);
  for (const d of world.deposits.values()) if (d.status === 'slip_processing') note(verifying, d.livemode, d.slip?.receivedAt ?? d.updatedAt);
  return { review, approval, verifying };
}

function countTimers(world: World, now: number): { due: number; overdue: number } {
  let due = 0, overdue = 0;
  for (const timers of world.timersByStream.values()) {
    for (const timer of timers) {
      if (timer.dueAt <= now) due++;
      if (timer.dueAt <= now - observabilityLimits.timerOverdueAfterMs) overdue++;
    }
  }
  return { due, overdue };
}

export interface MetricsListener {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves GET /metrics (and nothing else) on its own port. */
export async function listenMetrics(metrics: Metrics, host: string, port: number): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(text),
      (error: unknown) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`metrics failed: ${String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject); // a port in use rejects (EADDRINUSE)
    server.listen(port, host, () => { server.off('error', reject); resolve(); });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/metrics`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
