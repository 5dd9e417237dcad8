// The webhook dispatcher: turns merchant events into signed HTTP deliveries on the
// contract's retry schedule. One pump, run on wakes (after a durable commit, at most once
// in wakeIntervalMinMs), on a timer, and after outcomes are recorded:
//   1. fan-out: events after the durable read position become pending deliveries, and
//      the position moves, in one transaction per batch, committed without its own fsync
//      (see fanOutDeferringSync: what it wrote can be redone, and is on disk before any
//      delivery of it is sent);
//   2. health: endpoint down-time milestones that fell due (warnings, auto-disable);
//   3. claim: due deliveries are claimed in one transaction (the attempt is counted and
//      the next attempt's time, with ±10 % jitter, already set), then POSTed, each with a
//      fresh signature by the key that signs now;
//   4. record: outcomes are written in one transaction per event-loop turn.
// Invariants: an attempt is durably claimed before it is sent, so no attempt number is
// ever sent twice and a crash loses nothing (see deliveries.ts); at most
// inFlightDeliveriesMax requests are open, at most inFlightDeliveriesPerEndpointMax per
// endpoint, inFlightDeliveriesPerMerchantMax per merchant and mode, and
// inFlightSandboxDeliveriesMax to sandbox endpoints, and the last inFlightDeliveriesReserved
// slots only to merchants with fewer than inFlightReserveShareMax open: a merchant whose
// receivers hang, or a sandbox under test, holds only its share, and everyone else's
// deliveries go out beside it;
// time comes from the service Clock, so on the manual clock nothing is due until the
// clock is advanced (drain() then runs everything due and waits for the outcomes).

import type { Clock } from '../../core/ports.ts';
import type { Db } from '../sqlite/schema.ts';
import { isStorageFailure } from '../sqlite/errors.ts';
import type { Delivery, DeliveryStatus, DeliveryStore } from './deliveries.ts';
import type { LogLike } from './email.ts';
import { isCliEndpoint, type Endpoint, type EndpointStore } from './endpoints.ts';
import type { EventSource, ServiceEvents, SourcedEvent } from './events.ts';
import { MustSyncNow, type FanOut } from './fan-out.ts';
import type { EndpointHealth } from './health.ts';
import type { Poster, PostResult } from './http-post.ts';
import { webhookLimits } from '../../core/limits.ts';
import type { SigningKeyRing } from './signing-keys.ts';
import { signDelivery, type SigningKey } from './signing.ts';

export const userAgent = 'satang-webhooks/1.0';

export interface DispatcherParts {
  readonly db: Db;
  /** Business time: when deliveries are due, the retry schedule, the attempts' times. */
  readonly clock: Clock;
  /**
   * Security time, the wall clock always: the signature's timestamp, which receivers hold
   * to ±300 s of their own clock (an advanced test clock must not make them refuse).
   */
  readonly securityClock: Clock;
  readonly source: EventSource;
  readonly poster: Poster;
  readonly keys: SigningKeyRing;
  /** Signs the deliveries to sandbox endpoints. */
  readonly sandboxKeys: SigningKeyRing;
  /**
   * Called for each event as it is fanned out, inside the fan-out's transaction; returns
   * true when it wrote something that must not be done twice (the commit is then fsynced
   * before the fan-out goes on, see fanOutDeferringSync).
   */
  readonly onFannedOut?: (event: SourcedEvent, now: number) => boolean;
  readonly events: ServiceEvents;
  readonly endpoints: EndpointStore;
  readonly deliveries: DeliveryStore;
  readonly fanOut: FanOut;
  readonly health: EndpointHealth;
  readonly log: LogLike;
  /** Uniform in [0, 1); jitter draws from it (injectable for tests). */
  readonly random?: () => number;
  /**
   * Told each attempt's outcome once it is recorded (metrics), by endpoint id, or 'cli' for
   * every `satang listen` endpoint: those come and go with each session, and a label per id
   * would grow without bound.
   */
  readonly onAttempt?: (endpointLabel: string, outcome: string) => void;
}


interface Claimed { readonly delivery: Delivery; readonly endpoint: Endpoint; readonly attempt: number; readonly key: SigningKey; readonly body: string | undefined }
interface Outcome { readonly claimed: Claimed; readonly result: PostResult; readonly done: () => void }

/** A delay of the schedule with ±jitterFraction applied. */
export function jittered(delayMs: number, random: () => number): number {
  return Math.round(delayMs * (1 + webhookLimits.jitterFraction * (2 * random() - 1)));
}

export class Dispatcher {
  private position: number;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  /** Open requests by merchant and mode (shareKey), and to sandbox endpoints in all. */
  private readonly perMerchant = new Map<string, number>();
  private sandboxInFlight = 0;
  private outcomes: Outcome[] = [];
  private flushScheduled = false;
  private wakeScheduled = false;
  /** performance.now() when the last pump began: wakes are spaced by wakeIntervalMinMs. */
  private lastPumpAt = Number.NEGATIVE_INFINITY;
  private running = false;
  /** Set by a stop: no round runs again (a clock advance's drain included). */
  private quieted = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly random: () => number;
  private readonly savePosition;
  private readonly fanOutBatch;
  /** busy_timeout 0 and back: the fan-out's try for the write lock (tryFanOut). */
  private readonly lockWait: { none: () => void; restore: () => void };
  /** synchronous=NORMAL and back: the fan-out's commit without its own fsync (fanOutDeferringSync). */
  private readonly syncMode: { deferred: () => void; restore: () => void };
  private fanOutRetry: NodeJS.Timeout | null = null;
  /** Wall-clock ms since a storage failure stops the rounds (null while writes work), and the current wait before the next try. */
  private storageFailedSince: number | null = null;
  private storageRetryMs = 0;
  private readonly claimBatch;
  private readonly recordBatch;

  constructor(private readonly p: DispatcherParts) {
    this.random = p.random ?? Math.random;
    const name = p.source.name;
    this.position = p.db.prepare<[string], number>('SELECT position FROM webhook_positions WHERE source = ?').pluck(true).get(name) ?? 0;
    const upsert = p.db.prepare('INSERT INTO webhook_positions (source, position) VALUES (?, ?) ON CONFLICT (source) DO UPDATE SET position = excluded.position');
    this.savePosition = (position: number) => upsert.run(name, position);
    // The events after the position are read inside the transaction (once its lock is held):
    // returns the position reached, or null when there were none. `deferredSync`: the
    // commit will not be fsynced, so a mail or a scenario's write refuses it (MustSyncNow).
    this.fanOutBatch = p.db.transaction((now: number, deferredSync: boolean): number | null => {
      const events = p.source.read(this.position, webhookLimits.fanOutEventsPerBatchMax);
      if (events.length === 0) return null;
      const mailed = p.fanOut.mailed;
      let once = false;
      const enabled = new Map<string, readonly Endpoint[]>(); // each merchant's endpoints read once a batch
      for (const e of events) {
        p.fanOut.deliver({ ...e, table: p.source.table }, now, enabled);
        if (p.onFannedOut?.(e, now) === true) once = true;
      }
      if (deferredSync && (once || p.fanOut.mailed !== mailed)) throw new MustSyncNow();
      const reached = events[events.length - 1]!.position;
      this.savePosition(reached);
      return reached;
    });
    // Through db.pragma each time: SQLite applies PRAGMA busy_timeout when the statement is
    // prepared, so a prepared one run again would change nothing.
    const waitMs = p.db.pragma('busy_timeout', { simple: true }) as number;
    this.lockWait = { none: () => p.db.pragma('busy_timeout = 0'), restore: () => p.db.pragma(`busy_timeout = ${waitMs}`) };
    const synchronous = p.db.pragma('synchronous', { simple: true }) as number;
    this.syncMode = { deferred: () => p.db.pragma('synchronous = NORMAL'), restore: () => p.db.pragma(`synchronous = ${synchronous}`) };
    this.claimBatch = p.db.transaction((candidates: Delivery[], now: number) => this.claimAll(candidates, now));
    this.recordBatch = p.db.transaction((outcomes: Outcome[], now: number) => { for (const o of outcomes) this.recordOne(o, now); });
  }

  /** Recovers interrupted attempts, then runs on wakes and on its timer. */
  start(): void {
    const interrupted = this.p.deliveries.recoverInterrupted();
    if (interrupted > 0) this.p.log.warn({ interrupted }, 'webhook attempts interrupted by the last stop will be retried as their next attempt');
    this.running = true;
    this.unsubscribe = this.p.source.subscribe(() => this.wake());
    this.wake();
  }

  /** Stops at once: open requests are abandoned (recovered as interrupted at the next start). */
  stop(): void {
    this.quiet();
    this.stopped = true;
    this.p.poster.close();
  }

  /**
   * A shutdown's stop: claims nothing more and waits, up to `maxMs`, for the attempts in
   * flight to be answered and recorded, so a receiver that answered is not sent the same
   * attempt again after the restart; then stops. Returns how many were still open (each is
   * recovered as interrupted at the next start and retried as its next attempt).
   */
  async stopAfterInFlight(maxMs: number): Promise<number> {
    this.quiet();
    if (this.inFlight.size > 0) {
      let deadline: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all([...this.inFlight.values()]), new Promise((resolve) => { deadline = setTimeout(resolve, maxMs); })]);
      clearTimeout(deadline);
    }
    const open = this.inFlight.size;
    this.stop();
    return open;
  }

  /** No more rounds: no wake, no timer, no claim; outcomes of attempts in flight are still recorded. */
  private quiet(): void {
    this.running = false;
    this.quieted = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.fanOutRetry) clearTimeout(this.fanOutRetry);
    this.fanOutRetry = null;
  }

  /** Something may have become due: pump on the next turn, or once wakeIntervalMinMs has passed since the last pump (coalesced). */
  wake(): void {
    if (!this.running || this.wakeScheduled) return;
    this.wakeScheduled = true;
    const run = () => { this.wakeScheduled = false; this.pump(); };
    const wait = this.lastPumpAt + webhookLimits.wakeIntervalMinMs - performance.now();
    if (wait <= 0) setImmediate(run);
    else setTimeout(run, wait).unref();
  }

  /** The earliest instant something is due: now when events are unread, else the next attempt or health milestone. */
  nextDueAt(): number | undefined {
    return this.nextDueGiven(this.p.deliveries.nextDueAt(), this.p.endpoints.nextHealthCheckAt());
  }

  /** nextDueAt from the earliest attempt and milestone already read. */
  private nextDueGiven(attemptAt: number | undefined, healthAt: number | undefined): number | undefined {
    if (this.p.source.hasUnread(this.position)) return this.p.clock.now();
    return attemptAt === undefined ? healthAt : healthAt === undefined ? attemptAt : Math.min(attemptAt, healthAt);
  }

  /** Runs everything due now and waits for every outcome (the manual clock's step). */
  async drain(): Promise<void> {
    for (let step = 0; step < webhookLimits.advanceStepsMax; step++) {
      this.pump(true);
      if (this.inFlight.size > 0) { await Promise.all(this.inFlight.values()); continue; }
      const next = this.nextDueAt();
      if (next === undefined || next > this.p.clock.now()) return;
    }
    throw new Error(`webhook drain: more than ${webhookLimits.advanceStepsMax} steps; something stays due`);
  }

  /**
   * One round: fan-out, health milestones, claims and sends. Synchronous; outcomes arrive
   * later. The fan-out waits for the database's write lock only when `waitForLock` (the
   * manual clock's drain). Otherwise it tries: while another connection holds the lock (the
   * journal's writer thread, writing a batch) the round ends there, to run again at the next
   * wake (that batch's acknowledgement) or after fanOutRetryMs, rather than sleep on the
   * event loop in SQLite's busy handler (1, 2, 5 ms…) while requests wait, or spin.
   */
  pump(waitForLock = false): void {
    if (this.quieted) return;
    this.lastPumpAt = performance.now();
    try {
      this.pumpOnce(waitForLock);
    } catch (error) {
      if (!isStorageFailure(error)) throw error;
      // The disk is full or failing: the journal's writer refuses commands meanwhile, and
      // nothing here is lost by waiting (the outbox and the deliveries are on disk). Said once
      // an episode, then tried again, backing off, instead of dying with the process.
      if (this.storageFailedSince === null) {
        this.storageFailedSince = Date.now();
        this.p.log.error({ code: (error as { code?: unknown }).code, err: String(error) }, 'webhook dispatcher cannot write (disk full or failing); retrying until it can');
      }
      this.storageRetryMs = Math.min(webhookLimits.storageRetryMaxMs, this.storageRetryMs === 0 ? webhookLimits.storageRetryMinMs : this.storageRetryMs * 2);
      this.fanOutRetry ??= setTimeout(() => { this.fanOutRetry = null; this.pump(); }, this.storageRetryMs);
      return;
    }
    if (this.storageFailedSince !== null) {
      this.p.log.info({ failing_ms: Date.now() - this.storageFailedSince }, 'webhook dispatcher writes again');
      this.storageFailedSince = null;
      this.storageRetryMs = 0;
    }
  }

  /** pump's round, which a storage failure may interrupt (pump waits it out). */
  private pumpOnce(waitForLock: boolean): void {
    const now = this.p.clock.now();
    for (let i = 0; i < webhookLimits.fanOutBatchesPerPumpMax; i++) {
      if (!this.p.source.hasUnread(this.position)) break; // nothing unread: no transaction
      const reached = waitForLock ? this.fanOutBatch(now, false) : this.tryFanOut(now);
      if (reached === 'busy') {
        this.fanOutRetry ??= setTimeout(() => { this.fanOutRetry = null; this.pump(); }, webhookLimits.fanOutRetryMs);
        return; // not armed: arm() would see the unread events as due now and run this again at once
      }
      if (reached === null) break;
      this.position = reached;
    }
    // The earliest milestone and attempt (a MIN over an index each) decide whether the
    // queries for what is due run at all: under load most pumps find nothing due. When
    // nothing was, they also arm the timer (nothing they cover changed since).
    const healthAt = this.p.endpoints.nextHealthCheckAt();
    const healthDue = isDue(healthAt, now);
    if (healthDue) {
      for (const e of this.p.endpoints.dueHealthChecks(now, webhookLimits.healthChecksPerPumpMax)) {
        this.p.db.transaction(() => this.p.health.checkMilestone(e, now))();
      }
    }
    const attemptAt = this.p.deliveries.nextDueAt();
    const attemptDue = isDue(attemptAt, now);
    if (attemptDue) this.claimAndSend(now);
    if (this.running) this.arm(healthDue || attemptDue ? this.nextDueAt() : this.nextDueGiven(attemptAt, healthAt));
  }

  /** The next fan-out batch if the write lock is free now (the position reached, null when nothing was unread); 'busy', nothing read or written, while another connection holds it. */
  private tryFanOut(now: number): number | null | 'busy' {
    this.lockWait.none();
    try {
      return this.fanOutDeferringSync(now);
    } catch (error) {
      if (String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) return 'busy'; // the lock is held (or the WAL being recovered): later
      throw error;
    } finally {
      this.lockWait.restore();
    }
  }

  /**
   * The next fan-out batch, its lock taken first (before anything is read or called) and
   * its commit not fsynced (synchronous=NORMAL): during load a third of the event loop's
   * fsyncs were these. Why that loses nothing: what a fan-out writes (the deliveries, the
   * read position) is redone the same from the durable outbox if a power cut takes it
   * (a delivery is inserted once per endpoint and event); the next fsync of the WAL (the
   * journal writer's, after its next batch, or this connection's next FULL commit) makes it
   * durable; and no delivery is sent before its claim commits at FULL, which syncs the WAL
   * and so every fan-out before it. A mail or a scenario's write cannot be taken back from
   * outside, so a batch that makes one is rolled back and run again at FULL.
   */
  private fanOutDeferringSync(now: number): number | null {
    this.syncMode.deferred();
    this.p.fanOut.deferringSync = true;
    try {
      return this.fanOutBatch.immediate(now, true);
    } catch (error) {
      if (!(error instanceof MustSyncNow)) throw error;
    } finally {
      this.p.fanOut.deferringSync = false;
      this.syncMode.restore();
    }
    // A scenario's key rotation was rolled back with the rest: it must not stay in memory.
    this.p.keys.load();
    this.p.sandboxKeys.load();
    return this.fanOutBatch.immediate(now, false);
  }

  private claimAndSend(now: number): void {
    const free = webhookLimits.inFlightDeliveriesMax - this.inFlight.size;
    if (free <= 0) return;
    // Left out of the query: endpoints at their cap, and every endpoint of a merchant at its
    // share, so that a backlog of theirs due earlier does not fill the batch and hide the
    // deliveries that may go; sandbox endpoints while the sandbox's share is taken.
    // In the reserved slots, only merchants with few requests open may claim.
    const shareCap = this.inFlight.size >= webhookLimits.inFlightDeliveriesMax - webhookLimits.inFlightDeliveriesReserved
      ? webhookLimits.inFlightReserveShareMax : webhookLimits.inFlightDeliveriesPerMerchantMax;
    const saturated = [...this.perEndpoint].filter(([, n]) => n >= webhookLimits.inFlightDeliveriesPerEndpointMax).map(([id]) => id);
    for (const [share, n] of this.perMerchant) {
      if (n < shareCap) continue;
      const [merchantId, mode] = share.split(':') as [string, string];
      for (const e of this.p.endpoints.forMerchant(merchantId, mode === 'live')) saturated.push(e.id);
    }
    const candidates = this.p.deliveries.due(now, free, saturated, this.sandboxInFlight < webhookLimits.inFlightSandboxDeliveriesMax);
    if (candidates.length === 0) return;
    const claimed: Claimed[] = this.claimBatch(candidates, now);
    for (const c of claimed) this.send(c);
  }

  /** Inside the claim transaction: counts each attempt and sets the following one's time. */
  private claimAll(candidates: Delivery[], now: number): Claimed[] {
    const claimed: Claimed[] = [];
    const addedByEndpoint = new Map<string, number>();
    const addedByShare = new Map<string, number>();
    let sandboxAdded = 0;
    // Each mode's key is looked up once per batch, and only when a delivery of that mode is claimed.
    let liveKey: SigningKey | undefined, sandboxKey: SigningKey | undefined;
    for (const d of candidates) {
      const endpoint = this.p.endpoints.get(d.endpointId);
      if (!endpoint || endpoint.status !== 'enabled') { this.p.deliveries.cancelQueued(d.endpointId, 'canceled: the endpoint is disabled'); continue; }
      const share = shareKey(endpoint);
      if ((this.perEndpoint.get(endpoint.id) ?? 0) + (addedByEndpoint.get(endpoint.id) ?? 0) >= webhookLimits.inFlightDeliveriesPerEndpointMax) continue;
      const open = this.inFlight.size + claimed.length;
      const shareCap = open >= webhookLimits.inFlightDeliveriesMax - webhookLimits.inFlightDeliveriesReserved ? webhookLimits.inFlightReserveShareMax : webhookLimits.inFlightDeliveriesPerMerchantMax;
      if ((this.perMerchant.get(share) ?? 0) + (addedByShare.get(share) ?? 0) >= shareCap) continue;
      if (!endpoint.livemode && this.sandboxInFlight + sandboxAdded >= webhookLimits.inFlightSandboxDeliveriesMax) continue;
      const attempt = d.attempt + 1;
      const key = endpoint.livemode ? (liveKey ??= this.p.keys.current(now)) : (sandboxKey ??= this.p.sandboxKeys.current(now));
      const following = attempt < webhookLimits.attemptsMax ? now + jittered(webhookLimits.attemptDelaysMs[attempt]!, this.random) : null;
      if (!this.p.deliveries.claim(d, now, key.kid, following)) continue;
      addedByEndpoint.set(endpoint.id, (addedByEndpoint.get(endpoint.id) ?? 0) + 1);
      addedByShare.set(share, (addedByShare.get(share) ?? 0) + 1);
      if (!endpoint.livemode) sandboxAdded++;
      claimed.push({ delivery: d, endpoint, attempt, key, body: this.p.events.body(d.eventTable, d.eventId) });
    }
    return claimed;
  }

  private send(c: Claimed): void {
    const id = c.delivery.id;
    this.perEndpoint.set(c.endpoint.id, (this.perEndpoint.get(c.endpoint.id) ?? 0) + 1);
    const share = shareKey(c.endpoint);
    this.perMerchant.set(share, (this.perMerchant.get(share) ?? 0) + 1);
    if (!c.endpoint.livemode) this.sandboxInFlight++;
    const body = c.body === undefined ? undefined : Buffer.from(c.body, 'utf8');
    const sent = body === undefined
      ? Promise.resolve<PostResult>({ outcome: 'permanent', status: null, excerpt: null, durationMs: 0, error: 'event_missing: the event is no longer stored' })
      : this.p.poster.post(c.endpoint.url, this.headers(c, body), body);
    const settled = sent.then((result) => new Promise<void>((done) => {
      if (this.stopped) return done();
      this.outcomes.push({ claimed: c, result, done });
      this.scheduleFlush();
    }));
    this.inFlight.set(id, settled);
  }

  private headers(c: Claimed, body: Buffer): Record<string, string> {
    const d = c.delivery;
    return {
      'Content-Type': 'application/json; charset=utf-8',
      'User-Agent': userAgent,
      'X-PG-Signature': signDelivery(c.key, Math.floor(this.p.securityClock.now() / 1000), d.eventId, body),
      'X-PG-Event-Id': d.eventId,
      'X-PG-Event-Type': d.eventType,
      'X-PG-Delivery-Id': d.id,
      'X-PG-Attempt': String(c.attempt),
      'X-PG-Api-Version': apiVersionOf(c.body!),
      'X-PG-Livemode': String(c.endpoint.livemode),
      ...(d.resend ? { 'X-PG-Resend': 'manual' } : {}),
    };
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      if (this.stopped) return;
      const outcomes = this.outcomes;
      this.outcomes = [];
      try {
        this.recordBatch(outcomes, this.p.clock.now());
      } catch (error) {
        this.p.log.error({ err: String(error), outcomes: outcomes.length }, 'recording webhook outcomes failed; the attempts will be recovered as interrupted');
      }
      for (const o of outcomes) {
        this.inFlight.delete(o.claimed.delivery.id);
        // Failed for good — a 410, or the last attempt spent — is `permanent`, as the alert on it means; else what the poster said.
        const counted = o.result.outcome === 'retry' && o.claimed.attempt >= webhookLimits.attemptsMax ? 'permanent' : o.result.outcome;
        this.p.onAttempt?.(isCliEndpoint(o.claimed.endpoint) ? 'cli' : o.claimed.endpoint.id, counted);
        countDown(this.perEndpoint, o.claimed.endpoint.id);
        countDown(this.perMerchant, shareKey(o.claimed.endpoint));
        if (!o.claimed.endpoint.livemode) this.sandboxInFlight--;
        o.done();
      }
      this.wake(); // the next due deliveries, spaced like every wake
    });
  }

  /** Inside the record transaction: the outcome, then the endpoint's health. */
  private recordOne(o: Outcome, now: number): void {
    const { claimed: c, result: r } = o;
    const endpoint = this.p.endpoints.get(c.endpoint.id);
    // A `satang listen` stream's endpoint is removed with its deliveries when the stream ends —
    // also by the very attempt that finds its key revoked or its merchant suspended. Nothing of
    // it is left to record; reading its health threw, and rolled back every outcome of the
    // batch with it (another stream's or endpoint's delivery left claimed, never recorded).
    if (endpoint === undefined) return;
    const status: DeliveryStatus = r.outcome === 'delivered' ? 'delivered'
      : r.outcome === 'permanent' || c.attempt >= webhookLimits.attemptsMax ? 'failed'
        : endpoint.status === 'enabled' ? 'pending' : 'canceled';
    this.p.deliveries.record(c.delivery.id, c.attempt, status, r.outcome, { status: r.status, excerpt: r.excerpt, durationMs: r.durationMs, error: r.error });
    if (r.outcome === 'delivered') return this.p.health.onSuccess(c.endpoint.id, now);
    // A receiver's failure in the log, with what to look it up by: the error's code only
    // (http_503, timeout_first_byte, connection_refused…), never a redirect's Location.
    const failed = { delivery_id: c.delivery.id, event_id: c.delivery.eventId, event_type: c.delivery.eventType, endpoint_id: c.endpoint.id, merchant_id: c.endpoint.merchantId, attempt: c.attempt, status: r.status, error: r.error?.split(/[:\s]/)[0] ?? null, next: status };
    // A delivery's first failed attempt at info, its retries at debug, its end at warn: a dead
    // endpoint's eleven attempts per delivery no longer flood the log (outside-in SRE audit);
    // every attempt stays in its delivery record and in satang_webhook_attempts_total.
    if (status === 'failed') this.p.log.warn(failed, 'webhook delivery failed for good');
    else if (c.attempt === 1) this.p.log.info(failed, 'webhook attempt failed; retried');
    else this.p.log.debug?.(failed, 'webhook attempt failed; retried');
    if (c.body === undefined) return; // the event is gone: not the endpoint's failure
    if (r.outcome === 'permanent') this.p.endpoints.flag(c.endpoint.id, 'http_410_gone', now);
    this.p.health.onFailure(c.endpoint.id, now);
  }

  /** The timer for the next pump, at `next` (the earliest thing due) or within pollIntervalMsMax. */
  private arm(next: number | undefined): void {
    if (this.timer) clearTimeout(this.timer);
    const wait = next === undefined ? webhookLimits.pollIntervalMsMax : Math.min(webhookLimits.pollIntervalMsMax, Math.max(0, next - this.p.clock.now()));
    this.timer = setTimeout(() => { this.timer = null; this.pump(); }, Math.max(wait, 1));
    this.timer.unref();
  }
}

/** The share of the in-flight slots an endpoint's requests count against: its merchant's, in its mode. */
function shareKey(e: Endpoint): string {
  return `${e.merchantId}:${e.livemode ? 'live' : 'sandbox'}`;
}

function countDown(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 1) - 1;
  if (n <= 0) counts.delete(key); else counts.set(key, n);
}

function isDue(at: number | undefined, now: number): boolean {
  return at !== undefined && at <= now;
}

/** The api_version pinned in the stored envelope (its key order puts it near the start). */
function apiVersionOf(body: string): string {
  return /"api_version":"([^"]+)"/.exec(body.slice(0, 512))?.[1] ?? (JSON.parse(body) as { api_version: string }).api_version;
}
