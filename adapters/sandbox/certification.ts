// Certification before a live key (contract: "Five scenarios (10300, 10800, 10900, 11600
// and the out-of-order test) are verified automatically before a production key is
// issued"; DESIGN.md "Sandbox"). A run records what it started — one sandbox deposit per
// scenario and the three out-of-order cases — and the merchant's enabled sandbox
// endpoints at that moment; its result is read from the webhook deliveries themselves:
// every event a check expects must reach every endpoint, signed by a sandbox signing key,
// and be acknowledged (200, 201, 202 or 204, as every delivery) on its first attempt. A
// check fails, naming the event, as soon as one attempt was not acknowledged; it passes
// once all are; until then it is pending. A passed run is recorded (passed_at), which is
// what production's live-key rule asks.
//
// One more check, `signature`: as the run starts, each endpoint gets two deliveries it must
// refuse, as the contract's Webhook signatures tell a merchant to — one signed by another
// key under the sandbox kid (failed verification: 401) and one correctly signed but with a t
// 600 s old (beyond 300 s: 400). An endpoint that acknowledges everything, or verifies
// nothing, fails it: the scenarios alone would pass whatever answered 200.
//
// Kept in journal.db beside the webhook tables (not in the journal: no money moves here).

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { apiVersion } from '../../core/present.ts';
import type { Db } from '../sqlite/schema.ts';
import { userAgent } from '../webhooks/dispatcher.ts';
import { subscribes, type Endpoint } from '../webhooks/endpoints.ts';
import type { Poster } from '../webhooks/http-post.ts';
import { signDelivery, type SigningKey } from '../webhooks/signing.ts';

export type CheckName = '10300' | '10800' | '10900' | '11600' | 'out_of_order' | 'signature';

export type ProbeName = 'bad_signature' | 'stale_timestamp';

/** One probe as sent and answered (what the run records; its result is read from it). */
export interface ProbeRecord {
  readonly endpoint_id: string;
  readonly probe: ProbeName;
  readonly event_id: string;
  readonly kid: string;
  readonly response_status: number | null;
  readonly error: string | null;
}

/** The stale probe's age: beyond the contract's ±300 s window. */
const staleBySeconds = 600;

/**
 * Sends an endpoint the two deliveries it must refuse. Each is a sandbox deposit.settled of
 * no order (a consumer that processed it without verifying would settle nothing real).
 */
export async function probeSignatureChecks(endpoint: Endpoint, key: SigningKey, poster: Poster, wallSeconds: number, merchantId: string): Promise<ProbeRecord[]> {
  const probes: readonly { probe: ProbeName; sign: (eventId: string, body: Buffer) => string }[] = [
    { probe: 'bad_signature', sign: (id, body) => signDelivery({ ...key, privateKey: generateKeyPairSync('ed25519').privateKey }, wallSeconds, id, body) },
    { probe: 'stale_timestamp', sign: (id, body) => signDelivery(key, wallSeconds - staleBySeconds, id, body) },
  ];
  return Promise.all(probes.map(async ({ probe, sign }) => {
    const eventId = `evt_certprobe_${randomBytes(12).toString('hex')}`;
    const createdAt = new Date(wallSeconds * 1000).toISOString();
    const body = Buffer.from(JSON.stringify({
      id: eventId, object: 'event', type: 'deposit.settled', api_version: apiVersion, livemode: false, created_at: createdAt, sequence: 0, account: { merchant_id: merchantId },
      data: { object: { id: 'dep_certification_probe', object: 'deposit_order', livemode: false, version: 1, status: 'settled', amount_minor: 10000, currency: 'THB' }, previous_attributes: { status: 'slip_processing', version: 0 } },
    }));
    const r = await poster.post(endpoint.url, {
      'Content-Type': 'application/json; charset=utf-8', 'User-Agent': userAgent, 'X-PG-Signature': sign(eventId, body), 'X-PG-Event-Id': eventId,
      'X-PG-Event-Type': 'deposit.settled', 'X-PG-Delivery-Id': `whd_certprobe_${randomBytes(12).toString('hex')}`, 'X-PG-Attempt': '1', 'X-PG-Api-Version': apiVersion, 'X-PG-Livemode': 'false',
    }, body);
    return { endpoint_id: endpoint.id, probe, event_id: eventId, kid: key.kid, response_status: r.status, error: r.error };
  }));
}

/** A probe passes when it was refused as the contract says a receiver refuses it (400 or 401). */
function probeResult(p: ProbeRecord): EventResult {
  const base = { event_type: p.probe, event_id: p.event_id, endpoint_id: p.endpoint_id, delivery_id: null, response_status: p.response_status, kid: p.kid };
  if (p.response_status === 400 || p.response_status === 401) return { ...base, status: 'passed' };
  const reason = p.response_status === null ? 'unreachable' : p.response_status >= 200 && p.response_status < 300 ? 'accepted_unverified' : 'not_refused_with_400_or_401';
  return { ...base, status: 'failed', reason };
}

/** The four scenario checks: the amount and the events its deposit must deliver. */
export const scenarioChecks: readonly { readonly check: CheckName; readonly amountMinor: number; readonly events: readonly string[] }[] = [
  { check: '10300', amountMinor: 10_300, events: ['deposit.settled', 'deposit.reversed'] },
  { check: '10800', amountMinor: 10_800, events: ['deposit.settled', 'deposit.overpaid'] },
  { check: '10900', amountMinor: 10_900, events: ['deposit.canceled', 'deposit.slip_received', 'deposit.under_review'] },
  { check: '11600', amountMinor: 11_600, events: ['deposit.settled'] },
];

export interface RunPlan {
  readonly deposits: readonly { readonly check: CheckName; readonly depositId: string }[];
  /** The out-of-order cases' delivered events (service events, delivered in the wrong order on purpose). */
  readonly outOfOrder: readonly { readonly case: string; readonly events: readonly { readonly id: string; readonly type: string }[] }[];
  readonly endpointIds: readonly string[];
  /** The signature check's probes (runs before it have none, and no such check). */
  readonly probes?: readonly ProbeRecord[];
}

export interface StoredRun { readonly id: string; readonly merchantId: string; readonly createdAt: number; readonly plan: RunPlan; readonly passedAt: number | null }

type Status = 'pending' | 'passed' | 'failed';

export interface EventResult {
  readonly event_type: string; readonly event_id: string | null; readonly endpoint_id: string; readonly delivery_id: string | null;
  readonly status: Status; readonly response_status: number | null; readonly kid: string | null; readonly reason?: string;
}

export interface CheckResult { readonly check: CheckName; readonly status: Status; readonly object_ids: readonly string[]; readonly events: readonly EventResult[]; readonly failure?: EventResult }

export interface RunResult { readonly status: Status; readonly checks: readonly CheckResult[] }

interface DeliveryRow { id: string; status: string; attempt: number; inflight: number; response_status: number | null }

export class CertificationStore {
  private readonly s;

  constructor(db: Db, private readonly isSandboxKid: (kid: string) => boolean) {
    db.exec(`CREATE TABLE IF NOT EXISTS certification_runs (
      id          TEXT    PRIMARY KEY,  -- cert_<ULID>
      merchant_id TEXT    NOT NULL,
      created_at  INTEGER NOT NULL,
      plan        TEXT    NOT NULL,     -- RunPlan as JSON
      passed_at   INTEGER               -- set once every check passed
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS certification_runs_by_merchant ON certification_runs (merchant_id, created_at);`);
    this.s = {
      insert: db.prepare('INSERT INTO certification_runs (id, merchant_id, created_at, plan, passed_at) VALUES (?, ?, ?, ?, NULL)'),
      latest: db.prepare<[string], { id: string; merchant_id: string; created_at: number; plan: string; passed_at: number | null }>(
        'SELECT * FROM certification_runs WHERE merchant_id = ? ORDER BY created_at DESC, id DESC LIMIT 1'),
      passed: db.prepare<[string], number>('SELECT 1 FROM certification_runs WHERE merchant_id = ? AND passed_at IS NOT NULL LIMIT 1').pluck(true),
      markPassed: db.prepare('UPDATE certification_runs SET passed_at = ? WHERE id = ? AND passed_at IS NULL'),
      events: db.prepare<[string, string], { id: string; type: string }>('SELECT id, type FROM outbox WHERE merchant_id = ? AND livemode = 0 AND stream = ? ORDER BY sequence'),
      delivery: db.prepare<[string, string], DeliveryRow>(
        'SELECT id, status, attempt, inflight, response_status FROM webhook_deliveries WHERE endpoint_id = ? AND event_id = ? AND resend = 0 ORDER BY created_at, id LIMIT 1'),
      firstAttempt: db.prepare<[string], { kid: string; response_status: number | null; outcome: string }>('SELECT kid, response_status, outcome FROM webhook_attempts WHERE delivery_id = ? AND attempt = 1'),
    };
  }

  /** Inside the caller's transaction (with the request's idempotency record). */
  record(id: string, merchantId: string, createdAt: number, plan: RunPlan): void {
    this.s.insert.run(id, merchantId, createdAt, JSON.stringify(plan));
  }

  latest(merchantId: string): StoredRun | undefined {
    const r = this.s.latest.get(merchantId);
    return r && { id: r.id, merchantId: r.merchant_id, createdAt: r.created_at, plan: JSON.parse(r.plan) as RunPlan, passedAt: r.passed_at };
  }

  /** Whether any run of the merchant passed (the latest is evaluated first, so a pass not yet read counts). */
  certified(merchantId: string, endpoints: (ids: readonly string[]) => Endpoint[], now: number): boolean {
    const run = this.latest(merchantId);
    if (run && run.passedAt === null) this.evaluate(run, endpoints(run.plan.endpointIds), now);
    return this.s.passed.get(merchantId) === 1;
  }

  /** The run's result from the deliveries as they are now; a pass is recorded. */
  evaluate(run: StoredRun, endpoints: readonly Endpoint[], now: number): RunResult {
    const checks: CheckResult[] = [];
    for (const { check, depositId } of run.plan.deposits) {
      const expected = scenarioChecks.find((c) => c.check === check)!.events;
      const emitted = this.s.events.all(run.merchantId, depositId);
      const events = expected.map((type) => ({ type, id: emitted.find((e) => e.type === type)?.id ?? null }));
      checks.push(this.checkOf(check, [depositId], events, endpoints));
    }
    const ooo = run.plan.outOfOrder;
    checks.push(this.checkOf('out_of_order', ooo.map((c) => c.case), ooo.flatMap((c) => c.events), endpoints));
    if (run.plan.probes) {
      const results = run.plan.probes.map(probeResult);
      const failure = results.find((r) => r.status === 'failed');
      checks.push({ check: 'signature', status: failure ? 'failed' : 'passed', object_ids: [], events: results, ...(failure ? { failure } : {}) });
    }
    const status: Status = checks.some((c) => c.status === 'failed') ? 'failed' : checks.every((c) => c.status === 'passed') ? 'passed' : 'pending';
    if (status === 'passed' && run.passedAt === null) this.s.markPassed.run(now, run.id);
    return { status, checks };
  }

  private checkOf(check: CheckName, objectIds: readonly string[], events: readonly { type: string; id: string | null }[], endpoints: readonly Endpoint[]): CheckResult {
    const results: EventResult[] = [];
    for (const e of events) for (const endpoint of endpoints) results.push(this.eventResult(e, endpoint));
    if (endpoints.length === 0) results.push({ event_type: '*', event_id: null, endpoint_id: '', delivery_id: null, status: 'failed', response_status: null, kid: null, reason: 'no_enabled_sandbox_endpoint' });
    const failure = results.find((r) => r.status === 'failed');
    const status: Status = failure ? 'failed' : results.every((r) => r.status === 'passed') ? 'passed' : 'pending';
    return { check, status, object_ids: objectIds, events: results, ...(failure ? { failure } : {}) };
  }

  private eventResult(e: { type: string; id: string | null }, endpoint: Endpoint): EventResult {
    const base = { event_type: e.type, event_id: e.id, endpoint_id: endpoint.id };
    const none = { ...base, delivery_id: null, response_status: null, kid: null };
    if (endpoint.status !== 'enabled') return { ...none, status: 'failed', reason: 'endpoint_disabled' };
    if (e.id === null) return { ...none, status: 'pending' };
    const d = this.s.delivery.get(endpoint.id, e.id);
    if (!d) return subscribes(endpoint, e.type) ? { ...none, status: 'pending' } : { ...none, status: 'failed', reason: 'not_subscribed' };
    const first = this.s.firstAttempt.get(d.id);
    const found = { ...base, delivery_id: d.id, response_status: first?.response_status ?? null, kid: first?.kid ?? null };
    if (!first || first.outcome === 'interrupted' || (d.inflight === 1 && d.attempt === 1)) return { ...found, status: 'pending' };
    if (first.outcome !== 'delivered') return { ...found, status: 'failed', reason: 'not_acknowledged' };
    if (!this.isSandboxKid(first.kid)) return { ...found, status: 'failed', reason: 'not_signed_by_a_sandbox_key' };
    return { ...found, status: 'passed' };
  }
}
