// The webhook service assembled on journal.db: tables, signing keys, endpoints,
// deliveries, the dispatcher and the operations, plus the two seams the process needs —
// a timer host whose durable commits wake the dispatcher (the outbox EventSource's
// trigger), and the manual clock's advance, which interleaves the core's timers with
// due webhook attempts and health milestones so that each runs at its own instant.
//
//   const webhooks = new Webhooks({ db: store.db, clock, ids, log, directory, sealer, settings: webhookSettings(config.env, env) });
//   webhooks.start(); … webhooks.stop();

import type { Clock, Ids } from '../../core/ports.ts';
import { ManualClock, SystemClock } from '../clock.ts';
import type { Sealer } from '../sealing.ts';
import type { Db } from '../sqlite/schema.ts';
import { DeliveryStore } from './deliveries.ts';
import { Dispatcher } from './dispatcher.ts';
import { EmailOutbox, type Directory, type LogLike } from './email.ts';
import { EndpointStore } from './endpoints.ts';
import { DurableSignal, OutboxEventSource, ServiceEvents, type EventSource, type SourcedEvent } from './events.ts';
import { FanOut } from './fan-out.ts';
import { EndpointHealth } from './health.ts';
import { HttpPoster, type Poster } from './http-post.ts';
import type { WebhookSettings } from './settings.ts';
import { CliAwarePoster, CliStreams } from './cli-streams.ts';
import { limits, webhookLimits } from '../../core/limits.ts';
import { scenarioOf } from '../../core/sandbox/scenarios.ts';
import { WebhookOperations } from './operations.ts';
import { runOutOfOrderCase, type OutOfOrderCase } from './out-of-order.ts';
import { EventRetention } from './retention.ts';
import { migrateWebhooks } from './schema.ts';
import { SigningKeyRing, type PublishedSigningKey } from './signing-keys.ts';
import { resolvesPublicOnly, type Lookup, type Resolution, type UrlMode } from './url-policy.ts';

export interface WebhookDeps {
  readonly db: Db;
  /** Business time (the service clock): due times, retries, key rotation. */
  readonly clock: Clock;
  /** Security time for the signatures' timestamps: the wall clock (default: the system clock). */
  readonly securityClock?: Clock;
  readonly ids: Ids;
  readonly log: LogLike;
  readonly directory: Directory;
  /**
   * Every merchant's id: a signing-key rotation is in every merchant's events feed, with an
   * endpoint or not (default: the merchants with an endpoint, for a store of endpoints alone).
   */
  readonly merchants?: () => Iterable<string>;
  readonly settings: WebhookSettings;
  /** Seals the signing keys and the idempotency bodies kept here under the master key. */
  readonly sealer: Sealer;
  /** Defaults to the outbox, woken through `signal`. */
  readonly source?: EventSource;
  /** The journal's durable tail: the outbox is read no further (default: every committed row). */
  readonly durableSeq?: () => number;
  readonly poster?: Poster;
  /**
   * How endpoint host names resolve in production — the URL check when an endpoint is created
   * or moved, and each delivery's guarded lookup (default: node:dns; a spec's own to hold an answer).
   */
  readonly hostLookup?: Lookup;
  readonly random?: () => number;
  /** Told each delivery attempt's outcome once recorded (server/metrics.ts). */
  readonly onAttempt?: (endpointId: string, outcome: string) => void;
}

/** The core's timers as the manual advance sees them. */
export interface CoreTimers {
  nextDueAt(): number | undefined;
  /** Fires the core timers due within `ms` and moves the clock forward by `ms`. */
  advance(ms: number): Promise<unknown>;
}

export class Webhooks {
  readonly signal = new DurableSignal();
  readonly keys: SigningKeyRing;
  /** The sandbox's own signing keys: sandbox deliveries are signed by these (DESIGN.md "Sandbox"). */
  readonly sandboxKeys: SigningKeyRing;
  readonly endpoints: EndpointStore;
  readonly deliveries: DeliveryStore;
  readonly events: ServiceEvents;
  readonly dispatcher: Dispatcher;
  /** The dispatcher's poster (address guard, deadlines), for certification's signature probes too. */
  readonly poster: Poster;
  /** The wall clock a delivery's signature t is read from. */
  readonly securityClock: Clock;
  /** The open `satang listen` streams (cli endpoints; adapters/webhooks/cli-streams.ts). */
  readonly cliStreams = new CliStreams();
  readonly operations: WebhookOperations;
  /** What has outlived the event retention goes (swept by the server; adapters/webhooks/retention.ts). */
  readonly retention: EventRetention;

  constructor(private readonly deps: WebhookDeps) {
    const { db, clock, ids, log, directory, sealer } = deps;
    migrateWebhooks(db);
    this.keys = new SigningKeyRing(db, clock, ids, sealer);
    this.sandboxKeys = new SigningKeyRing(db, clock, ids, sealer, 'webhook_signing_keys_sandbox');
    this.endpoints = new EndpointStore(db, clock, ids, sealer);
    this.deliveries = new DeliveryStore(db, ids);
    this.events = new ServiceEvents(db, ids);
    this.retention = new EventRetention(db);
    const email = new EmailOutbox(db, ids, directory, log);
    const fanOut = new FanOut(this.endpoints, this.deliveries, this.events, email);
    const health = new EndpointHealth(this.endpoints, this.deliveries, this.events, fanOut, email, directory, log);
    this.securityClock = deps.securityClock ?? new SystemClock();
    this.poster = new CliAwarePoster(deps.poster ?? new HttpPoster(deps.settings.timeouts, deps.settings.mode, deps.hostLookup), this.cliStreams);
    this.dispatcher = new Dispatcher({
      db, clock, securityClock: this.securityClock, source: deps.source ?? new OutboxEventSource(db, this.signal, deps.durableSeq),
      poster: this.poster,
      keys: this.keys, sandboxKeys: this.sandboxKeys, events: this.events, endpoints: this.endpoints, deliveries: this.deliveries, fanOut, health, log,
      onFannedOut: (event, now) => this.playKeyRotationScenario(event, now),
      ...(deps.random ? { random: deps.random } : {}), ...(deps.onAttempt ? { onAttempt: deps.onAttempt } : {}),
    });
    this.operations = new WebhookOperations({
      db, clock, ids, endpoints: this.endpoints, deliveries: this.deliveries, events: this.events, fanOut, keys: this.keys, sandboxKeys: this.sandboxKeys, directory, wake: () => this.dispatcher.wake(), sealer,
      ...(deps.merchants ? { merchants: deps.merchants } : {}),
    });
  }

  get mode(): UrlMode { return this.deps.settings.mode; }

  /** Whether `host` resolves to public addresses only (the production URL check), through the deployment's lookup. */
  resolvesPublicOnly(host: string): Promise<Resolution> {
    return resolvesPublicOnly(host, this.deps.hostLookup);
  }

  /** GET /v1/webhooks/signing-keys: the live keys, then the sandbox's own. */
  publishedKeys(): PublishedSigningKey[] {
    return [...this.keys.published(), ...this.sandboxKeys.published()];
  }

  /**
   * Sandbox scenario 11400, played as the merchant's deposit.created of that amount is
   * fanned out (inside the fan-out's transaction, so once): the sandbox's signing key is
   * rotated with 60 s notice and webhook.key.rotating announced. Never a live key. Returns
   * whether it rotated (a write the fan-out must not repeat).
   */
  private playKeyRotationScenario(event: SourcedEvent, now: number): boolean {
    if (event.livemode || event.type !== 'deposit.created') return false;
    const body = this.events.body('outbox', event.id);
    const amount = body === undefined ? undefined : (JSON.parse(body) as { data?: { object?: { amount_minor?: unknown } } }).data?.object?.amount_minor;
    if (typeof amount !== 'number' || scenarioOf({ livemode: false, amountMinor: BigInt(amount) }) !== 11_400) return false;
    this.operations.rotateSandbox(limits.sandboxKeyRotationNoticeMs, now);
    return true;
  }


  start(): void {
    // No `satang listen` stream survives a restart: their temporary endpoints go before anything is delivered.
    this.operations.transact(() => { for (const id of this.endpoints.cliEndpointIds()) this.endpoints.remove(id); });
    this.dispatcher.start();
  }
  stop(): void {
    this.cliStreams.closeAll();
    this.dispatcher.stop();
  }

  /** A shutdown's stop: the attempts in flight get up to `maxMs` to be answered and recorded; returns how many were cut. */
  async stopAfterInFlight(maxMs: number): Promise<number> {
    const cut = await this.dispatcher.stopAfterInFlight(maxMs);
    this.cliStreams.closeAll();
    return cut;
  }

  /** Writes one out-of-order test case and schedules its deliveries (inside operations.transact). */
  outOfOrder(merchant: { merchantId: string; whiteLabelId: string }, c: OutOfOrderCase) {
    return runOutOfOrderCase({ ids: this.deps.ids, endpoints: this.endpoints, deliveries: this.deliveries, events: this.events }, merchant, c, this.deps.clock.now());
  }

  /**
   * Manual clock only: moves time forward by `ms`, stopping at every instant where a core
   * timer, a webhook attempt or an endpoint health milestone falls due, firing it there
   * and waiting for the webhook outcomes before going on.
   */
  async advance(ms: number, core: CoreTimers): Promise<void> {
    const clock = this.deps.clock;
    if (!(clock instanceof ManualClock)) throw new Error('advance() needs the manual clock (SATANG_CLOCK=manual)');
    const target = clock.now() + ms;
    await this.dispatcher.drain();
    for (let step = 0; ; step++) {
      if (step >= webhookLimits.advanceStepsMax) throw new Error(`advance: more than ${webhookLimits.advanceStepsMax} steps`);
      const a = core.nextDueAt(), b = this.dispatcher.nextDueAt();
      const next = a === undefined ? b : b === undefined ? a : Math.min(a, b);
      if (next === undefined || next > target) break;
      await core.advance(Math.max(0, next - clock.now()));
      await this.dispatcher.drain();
    }
    await core.advance(target - clock.now());
    await this.dispatcher.drain();
  }
}
