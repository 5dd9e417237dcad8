// The NATS JetStream bus (SATANG_NATS_URL): the stream SATANG_JOURNAL on subjects
// satang.journal.<live|test|system>.<merchant_id|system>.<type>, the relay's publisher
// (Nats-Msg-Id = journal seq, so a re-publish within the duplicate window is dropped by the
// server) and one durable pull consumer per projection (explicit acks, max_deliver,
// ack_wait; made again at a projector's start from the projection's position when it delivered past it).
// Connections use noAsyncTraces (DESIGN.md, Performance notes), never give up
// reconnecting, and are opened in the background: writes never wait for NATS.
//
// Invariants kept: the publisher says it is ready only once the stream exists and the
// relay has been told where the stream ends (so a new or wiped stream is refilled from
// the journal); a consumer hands deliveries over in the order they arrive.

import { readFileSync } from 'node:fs';
import {
  AckPolicy, connect, ConsumerEvents, DeliverPolicy, DiscardPolicy, nanos, RetentionPolicy, StorageType, StringCodec,
  type ConnectionOptions, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg, type NatsConnection,
} from 'nats';
import { decodeEntry, encodeEntry, journalStreamName, journalSubjectPrefix, subjectOf, type RelayedEntry } from '../../projections/entry.ts';
import type { Delivery, ReadSideLog } from '../../projections/gate.ts';
import { readSideLimits } from '../../core/limits.ts';
import type { Subscription, Transport } from '../../projections/projector.ts';
import type { ProjectionName } from '../../projections/projection.ts';
import type { Publisher } from './relay.ts';
import { journalStreamReplicas, withoutNatsCredentials, type NatsAuth } from './nats-settings.ts';

const codec = StringCodec();

function connectionAuth(auth: NatsAuth | undefined): Pick<ConnectionOptions, 'user' | 'pass' | 'tls'> {
  if (!auth) return {};
  return {
    ...(auth.user && auth.passwordFile ? { user: auth.user, pass: readFileSync(auth.passwordFile, 'utf8').trim() } : {}),
    ...(auth.caFile ? { tls: { caFile: auth.caFile } } : {}),
  };
}

/** Connects (waiting for the first connection however long it takes) with the read side's options. */
export function connectNats(url: string, name: string, auth?: NatsAuth): Promise<NatsConnection> {
  return connect({
    servers: url, name, noAsyncTraces: true, waitOnFirstConnect: true,
    maxReconnectAttempts: -1, reconnectTimeWait: readSideLimits.natsReconnectWaitMs, ...connectionAuth(auth),
  });
}

/**
 * Logs a connection's losses until it closes: a warning on each disconnect, a line on each
 * reconnect with how long NATS was gone. nats.js reconnects by itself and says nothing, so
 * without this a process that only consumes (the projector) falls behind in silence.
 */
export async function logConnectionStatus(nc: NatsConnection, log: ReadSideLog, who: string): Promise<void> {
  let lostAt: number | null = null;
  for await (const s of nc.status()) {
    if (s.type === 'disconnect') {
      lostAt ??= Date.now();
      log.warn({ server: String(s.data) }, `${who} lost NATS; it reconnects by itself and catches up once NATS is back`);
    } else if (s.type === 'reconnect') {
      log.info({ server: String(s.data), ...(lostAt !== null ? { outage_ms: Date.now() - lostAt } : {}) }, `${who} reconnected to NATS`);
      lostAt = null;
    }
  }
}

/** Connects once for a command line's look at the stream (status, restore, doctor): fails after natsApiTimeoutMs instead of waiting. */
export function connectNatsOnce(url: string, auth?: NatsAuth): Promise<NatsConnection> {
  return connect({ servers: url, noAsyncTraces: true, timeout: readSideLimits.natsApiTimeoutMs, ...connectionAuth(auth) });
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && /not found/i.test(error.message);
}

/** Whether the journal stream is there (another failure is thrown). */
export async function journalStreamExists(jsm: JetStreamManager): Promise<boolean> {
  try {
    await jsm.streams.info(journalStreamName);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

export async function ensureJournalStream(jsm: JetStreamManager): Promise<void> {
  if (await journalStreamExists(jsm)) return;
  await jsm.streams.add({
    name: journalStreamName, subjects: [`${journalSubjectPrefix}.>`], storage: StorageType.File, retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old, duplicate_window: nanos(readSideLimits.streamDuplicateWindowMs), max_age: nanos(readSideLimits.streamMessageAgeMsMax), num_replicas: journalStreamReplicas(),
  });
}

/**
 * The journal seq of the stream's last message: 0 for a stream that never held one (all
 * must be published), null when its messages aged out (it tells nothing).
 */
export async function lastJournalSeqInStream(jsm: JetStreamManager): Promise<number | null> {
  const last = await lastEntryInStream(jsm);
  return last === 0 || last === null ? last : last.seq;
}

/** The stream's last entry: 0 for a stream that never held one (or does not exist), null when its messages aged out (or it is not an entry: it tells nothing). */
export async function lastEntryInStream(jsm: JetStreamManager): Promise<RelayedEntry | 0 | null> {
  let info;
  try {
    info = await jsm.streams.info(journalStreamName);
  } catch (error) {
    if (isNotFound(error)) return 0;
    throw error;
  }
  if (info.state.last_seq === 0) return 0;
  if (info.state.messages === 0) return null;
  const last = await jsm.streams.getMessage(journalStreamName, { seq: info.state.last_seq });
  try {
    return decodeEntry(codec.decode(last.data));
  } catch {
    return null;
  }
}

/** What the journal stream holds past a journal seq: for a restore, what the restored journal lacks. */
export interface StreamBeyond {
  /** Entries after the seq, oldest first, each once (at most the `max` asked for). */
  readonly entries: readonly RelayedEntry[];
  /** Whether the stream holds more of them than were read. */
  readonly more: boolean;
  /** The journal seq of the stream's last message (null: the stream holds none, or does not exist). */
  readonly lastSeq: number | null;
}

/**
 * The entries the journal stream holds after journal seq `afterSeq`. The relay publishes in
 * seq order, so the stream's messages rise with the journal seq (Nats-Msg-Id): a binary
 * search finds the first one past `afterSeq`, and the rest are read from there.
 */
export async function journalEntriesBeyond(jsm: JetStreamManager, afterSeq: number, max: number): Promise<StreamBeyond> {
  let state;
  try {
    state = (await jsm.streams.info(journalStreamName)).state;
  } catch (error) {
    if (isNotFound(error)) return { entries: [], more: false, lastSeq: null };
    throw error;
  }
  if (state.messages === 0) return { entries: [], more: false, lastSeq: null };
  const at = async (streamSeq: number) => {
    try {
      return await jsm.streams.getMessage(journalStreamName, { seq: streamSeq });
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  };
  const journalSeqOf = (m: { header?: { get(k: string): string } }) => Number(m.header?.get('Nats-Msg-Id'));
  let lo = state.first_seq, hi = state.last_seq + 1; // the first stream seq past afterSeq lies in [lo, hi]
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const m = await at(mid);
    if (m === null || journalSeqOf(m) > afterSeq) hi = mid;
    else lo = mid + 1;
  }
  const entries: RelayedEntry[] = [];
  let last = afterSeq;
  for (let streamSeq = lo; streamSeq <= state.last_seq; streamSeq++) {
    const m = await at(streamSeq);
    if (m === null) continue;
    const entry = decodeEntry(codec.decode(m.data));
    if (entry.seq <= last) continue; // a re-published duplicate
    if (entries.length === max) return { entries, more: true, lastSeq: await lastJournalSeqInStream(jsm) };
    entries.push(entry);
    last = entry.seq;
  }
  return { entries, more: false, lastSeq: await lastJournalSeqInStream(jsm) };
}

/**
 * Deletes the journal stream, with its consumers and its duplicate window; answers how many
 * messages it held. After a restore the journal gives its seqs again, and a stream that kept
 * them would drop the new entries as duplicates of the lost ones: a purge empties the
 * stream but (nats-server 2.9, Debian's) keeps the message ids of the duplicate window. The
 * relay and the projector create the stream and the consumers again when they start.
 */
export async function deleteJournalStream(jsm: JetStreamManager): Promise<number> {
  try {
    const held = (await jsm.streams.info(journalStreamName)).state.messages;
    await jsm.streams.delete(journalStreamName);
    return held;
  } catch (error) {
    if (isNotFound(error)) return 0;
    throw error;
  }
}

export function durableNameOf(projection: ProjectionName): string {
  return `satang_${projection}`;
}

/** The relay's side: publishes entries once connected and the stream is set up. */
export class JetStreamPublisher implements Publisher {
  private nc: NatsConnection | null = null;
  private js: JetStreamClient | null = null;
  private closed = false;
  /** The highest stream sequence NATS acknowledged since the stream was set up: a lower one means another made it again. */
  private lastAckSeq = 0;
  /** When the stream another satang made again under this relay was created: published to no more until it is gone. */
  private foreignCreated: string | null = null;

  /** Connected, with the stream set up: the relay publishes only then (and is woken when it becomes so). */
  get ready(): boolean {
    return this.js !== null;
  }

  /**
   * `onReady` learns the stream's last journal seq each time the link is (re)established.
   * `ours` says whether an entry the stream holds is this journal's, as journal.db has it:
   * a stream whose last entry is not (a restored journal behind a stream that was not
   * reset, another deployment's stream) is never published to — its message ids would
   * drop the new entries as duplicates and its consumers would skip them — and the relay
   * stays unready (/readyz 503) until the stream is deleted.
   */
  constructor(
    private readonly url: string, private readonly log: ReadSideLog, private readonly onReady: (lastInStream: number | null) => void,
    private readonly ours: (entry: RelayedEntry) => boolean = () => true, private readonly auth?: NatsAuth,
  ) {}

  /** Connects in the background; returns at once. */
  start(): void {
    void this.run();
  }

  async publish(entries: readonly RelayedEntry[]): Promise<void> {
    const js = this.js;
    if (!js) throw new Error('NATS JetStream is not connected');
    try {
      const acks = await Promise.all(entries.map((e) => js.publish(subjectOf(e), codec.encode(encodeEntry(e)), { msgID: String(e.seq), timeout: readSideLimits.relayPublishTimeoutMs })));
      const stored = acks.filter((a) => !a.duplicate).map((a) => a.seq);
      const lowest = Math.min(...stored); // Infinity when all were duplicates
      if (lowest <= this.lastAckSeq && this.js === js) await this.takenOver(lowest);
      this.lastAckSeq = Math.max(this.lastAckSeq, ...stored);
    } catch (error) {
      // No stream answers (deleted under the relay — drop-stream --force, a NATS store wiped):
      // set it up again, which tells the relay where the new stream ends (from seq 1).
      if (isNoResponders(error) && this.js === js) {
        this.js = null;
        this.log.warn({ stream: journalStreamName }, 'the journal stream is gone; the relay makes it again and publishes the journal from where it ends');
        void this.setUp();
      }
      throw error;
    }
  }

  /**
   * NATS stored an entry below one it stored before: the stream was deleted and made again
   * by another satang (a drill, a second deployment on this NATS) whose journal it now
   * holds. Publishing on would mix two journals and stall the projector behind the old
   * sequence in silence: the relay stops, says so, and waits for the stream to be gone.
   */
  private async takenOver(storedAt: number): Promise<never> {
    this.js = null;
    let created: string | null = null;
    try {
      created = (await (await this.nc!.jetstreamManager({ timeout: readSideLimits.natsApiTimeoutMs })).streams.info(journalStreamName)).created;
    } catch { /* gone already, or NATS not answering: the set-up finds out */ }
    this.foreignCreated = created;
    this.log.error({ stored_at: storedAt, last_acknowledged: this.lastAckSeq, stream_created: created }, `the journal stream ${journalStreamName} was made again by another satang (NATS stored this journal's entry at stream seq ${storedAt}, after ${this.lastAckSeq}): another deployment, or a drill, shares this NATS. The relay publishes nothing until that stream is deleted (stop the other, give it its own NATS, then scripts/satang drop-stream --nats URL --force)`);
    void this.setUp();
    throw new Error(`${journalStreamName} was made again by another satang`);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.js = null;
    if (this.nc && !this.nc.isClosed()) await this.nc.close();
  }

  private async run(): Promise<void> {
    // A refused sign-in (a password file not yet in place, a password rotated on the server
    // first) or a connection NATS closes for good is tried again, slower each time, the
    // password file read afresh: the relay must not stay down until the API restarts.
    let refusedWaitMs: number = readSideLimits.relayRetryMs;
    let said = { problem: '', atMs: 0 };
    while (!this.closed) {
      const nc = await this.connect();
      if (typeof nc === 'string') {
        if (nc !== said.problem || Date.now() - said.atMs >= readSideLimits.natsWaitLogMs) {
          this.log.error({ err: nc, retry_in_ms: refusedWaitMs }, `relay cannot connect to NATS${/authoriz|authentic/i.test(nc) ? ' (NATS refused the sign-in: check SATANG_NATS_USER and the password in SATANG_NATS_PASSWORD_FILE, read again on each try)' : ''}; writes go on, it tries again`);
          said = { problem: nc, atMs: Date.now() };
        }
        await new Promise((resolve) => setTimeout(resolve, refusedWaitMs).unref()); // never keeps a stopping process alive
        refusedWaitMs = Math.min(refusedWaitMs * 2, readSideLimits.relaySetUpRetryMsMax);
        continue;
      }
      if (this.closed) { await nc.close(); return; }
      if (said.problem) this.log.info({}, 'relay signed in to NATS');
      refusedWaitMs = readSideLimits.relayRetryMs;
      said = { problem: '', atMs: 0 };
      this.nc = nc;
      await this.follow(nc);
      this.js = null;
      if (!this.closed) this.log.warn({ err: String((await nc.closed()) ?? 'closed by the server') }, 'relay\'s NATS connection closed (NATS refused it again, or gave up on it); it connects again');
    }
  }

  /** A connection, or why there is none. */
  private async connect(): Promise<NatsConnection | string> {
    // connectNats retries without a word while NATS does not answer: say so, now and then.
    const waiting = setInterval(() => this.log.warn({ nats: withoutNatsCredentials(this.url) }, 'relay still waiting for NATS; writes go on, the relay catches up once it answers'), readSideLimits.natsWaitLogMs);
    waiting.unref();
    try {
      return await connectNats(this.url, 'satang-relay', this.auth);
    } catch (error) {
      return String(error);
    } finally {
      clearInterval(waiting);
    }
  }

  /** Sets the stream up, then again after each reconnection, until the connection closes. */
  private async follow(nc: NatsConnection): Promise<void> {
    const statuses = nc.status();
    await this.setUp();
    for await (const s of statuses) {
      if (this.closed) break;
      if (s.type === 'disconnect') {
        this.js = null;
        this.log.warn({ server: String(s.data) }, 'relay lost NATS; writes go on, the relay catches up once it is back');
      }
      if (s.type === 'reconnect') await this.setUp();
    }
  }

  private async setUp(): Promise<void> {
    const nc = this.nc;
    let foreignLogged = false;
    // A stream NATS refuses (more replicas than its cluster has, say) is refused again on
    // every try: the tries slow down, and the reason is said when it changes or every natsWaitLogMs.
    let waitMs: number = readSideLimits.relayRetryMs;
    let said = { problem: '', atMs: 0 };
    while (nc && !this.closed && !nc.isClosed()) {
      try {
        const jsm = await nc.jetstreamManager({ timeout: readSideLimits.natsApiTimeoutMs });
        await ensureJournalStream(jsm);
        const created = (await jsm.streams.info(journalStreamName)).created;
        if (created === this.foreignCreated) {
          await sleep(readSideLimits.foreignStreamRecheckMs);
          continue;
        }
        this.foreignCreated = null;
        const last = await lastEntryInStream(jsm);
        if (last !== 0 && last !== null && !this.ours(last)) {
          if (!foreignLogged) this.log.error({ last_in_stream: last.seq }, `the journal stream ${journalStreamName} holds an entry at seq ${last.seq} that is not this journal's (a journal restored without \`satang restore --nats\`, or another deployment's stream): the relay publishes nothing until the stream is deleted (scripts/satang drop-stream --nats URL)`);
          foreignLogged = true;
          await sleep(readSideLimits.foreignStreamRecheckMs);
          continue;
        }
        this.js = nc.jetstream({ timeout: readSideLimits.relayPublishTimeoutMs });
        this.lastAckSeq = 0;
        const lastSeq = last === 0 || last === null ? last : last.seq;
        this.onReady(lastSeq);
        this.log.info({ last_in_stream: lastSeq }, 'relay connected to NATS JetStream');
        return;
      } catch (error) {
        const problem = String(error);
        if (problem !== said.problem || Date.now() - said.atMs >= readSideLimits.natsWaitLogMs) {
          const hint = /replicas/i.test(problem) ? `: the NATS server cannot keep ${journalStreamName} with the replicas SATANG_NATS_REPLICAS asks (a cluster of that many servers is needed)` : '';
          this.log.warn({ err: problem, retry_in_ms: waitMs }, `NATS JetStream not ready; the relay cannot set up its stream${hint}; retrying`);
          said = { problem, atMs: Date.now() };
        }
        await sleep(waitMs);
        waitMs = Math.min(waitMs * 2, readSideLimits.relaySetUpRetryMsMax);
      }
    }
  }
}

/** Parsed messages kept for the other consumers (each projection's consumer gets its own copy). */
const sharedEntriesMax = 4 * readSideLimits.pullMessagesMax;

/**
 * The projector's side: one durable consumer per projection. Every consumer receives every
 * entry; a message is parsed once (by stream sequence) and the entry shared, so the domain
 * event inside it is decoded once too (projections/entry.ts eventOf).
 */
export class JetStreamTransport implements Transport {
  private readonly parsed = new Map<number, RelayedEntry>();
  private readonly consumers = new Set<DurableConsumer>();

  constructor(private readonly nc: NatsConnection, private readonly log: ReadSideLog) {}

  subscribe(projection: ProjectionName, deliver: (deliveries: readonly Delivery[]) => void, fromSeq = 0): Subscription {
    // One consumer that finds its stream or itself gone makes every other start again: they
    // were deleted with the stream too, and a consume with no pull waiting learns it only
    // from missed heartbeats, 30 s later (the last projection held the others' position back).
    const consumer = new DurableConsumer(this.nc, durableNameOf(projection), fromSeq, deliver, this.log, (m) => this.entryOf(m), (gone) => {
      for (const other of this.consumers) if (other !== gone) other.restart();
    });
    this.consumers.add(consumer);
    consumer.start();
    return { stop: async () => { this.consumers.delete(consumer); await consumer.stop(); } };
  }

  private entryOf(m: JsMsg): RelayedEntry {
    const key = m.info.streamSequence;
    let entry = this.parsed.get(key);
    if (entry === undefined) {
      entry = decodeEntry(codec.decode(m.data));
      this.parsed.set(key, entry);
      if (this.parsed.size > sharedEntriesMax) this.parsed.delete(this.parsed.keys().next().value!);
    }
    return entry;
  }
}

/** A publish or request no JetStream stream answered (NATS's 503). */
function isNoResponders(error: unknown): boolean {
  return (error as { code?: unknown }).code === '503';
}

/** The consumer events that mean its stream or itself is gone: its consume ends, and the loop makes them again. */
const consumerGone: ReadonlySet<string> = new Set([ConsumerEvents.ConsumerDeleted, ConsumerEvents.ConsumerNotFound, ConsumerEvents.StreamNotFound]);

class DurableConsumer implements Subscription {
  private stopped = false;
  private messages: ConsumerMessages | null = null;
  private pending: Delivery[] = [];
  private scheduled: NodeJS.Immediate | null = null;
  private running: Promise<void> = Promise.resolve();
  /** Whether the durable consumer was checked against the projection's position since this one started. */
  private resumed = false;

  /** `fromSeq`: the projection's position as it subscribed; the consumer delivers every entry after it. */
  constructor(
    private readonly nc: NatsConnection, private readonly durable: string, private readonly fromSeq: number, private readonly deliver: (d: readonly Delivery[]) => void,
    private readonly log: ReadSideLog, private readonly entryOf: (m: JsMsg) => RelayedEntry,
    private readonly onGone: (gone: DurableConsumer) => void = () => {},
  ) {}

  /** Ends the current consume: the loop checks the stream and its consumer again (projections apply by seq: a redelivery changes nothing). */
  restart(): void {
    void this.messages?.close().catch(() => {});
  }

  start(): void {
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    this.pending = [];
    await this.messages?.close().catch(() => {});
    await this.running;
  }

  private async run(): Promise<void> {
    let complained = false, waiting = false;
    while (!this.stopped && !this.nc.isClosed()) {
      try {
        const jsm = await this.nc.jetstreamManager({ timeout: readSideLimits.natsApiTimeoutMs });
        // The relay makes the stream, and publishes into a new one the journal from seq 1: a
        // stream the projector made would let the relay go on where it was, the entries
        // before missing from it for good.
        if (!(await journalStreamExists(jsm))) {
          if (!waiting) this.log.info({ consumer: this.durable }, 'projection consumer waiting for the journal stream (the API\'s relay makes it)');
          waiting = true;
          await sleep(readSideLimits.relayRetryMs);
          continue;
        }
        waiting = false;
        await this.ensureConsumer(jsm);
        const consumer = await this.nc.jetstream().consumers.get(journalStreamName, this.durable);
        if (this.stopped) return;
        this.messages = await consumer.consume({ max_messages: readSideLimits.pullMessagesMax });
        void this.endWhenGone(this.messages);
        complained = false;
        for await (const m of this.messages) {
          const delivery = this.toDelivery(m);
          if (delivery) this.pending.push(delivery);
          if (!this.scheduled) this.scheduled = setImmediate(() => this.flush());
        }
      } catch (error) {
        if (!complained && !this.stopped) this.log.warn({ consumer: this.durable, err: String(error) }, 'projection consumer cannot reach NATS; retrying');
        complained = true;
      }
      if (!this.stopped) await sleep(readSideLimits.relayRetryMs);
    }
  }

  /**
   * nats.js keeps a consume waiting, quietly, when its consumer or stream is deleted: the
   * projections would stall for good. Such a status ends it; the projections apply by seq,
   * so the new consumer's redelivery from seq 1 changes nothing they hold.
   */
  private async endWhenGone(messages: ConsumerMessages): Promise<void> {
    try {
      for await (const s of await messages.status()) {
        if (!consumerGone.has(s.type)) continue;
        this.log.warn({ consumer: this.durable, event: s.type }, 'projection consumer lost its consumer or the journal stream; making them again');
        await messages.close().catch(() => {});
        this.onGone(this);
        return;
      }
    } catch {
      // the consume closed first: nothing to watch
    }
  }

  /**
   * The durable consumer outlives the projector: one an earlier projector moved on (acked, or
   * let run out of deliveries, as one left running through a restore does with a journal
   * that is not its own) never delivers those entries again, and a projection behind them
   * stayed there until the next write's gap fill. So on its first set-up here a consumer
   * that delivered past the projection's position is made again from the entry after it
   * (a stream seq is never below its entry's journal seq, so nothing is skipped; what the
   * projection holds already is acknowledged and dropped by seq).
   */
  private async ensureConsumer(jsm: JetStreamManager): Promise<void> {
    try {
      const info = await jsm.consumers.info(journalStreamName, this.durable);
      if (this.resumed || info.delivered.stream_seq <= this.fromSeq) { this.resumed = true; return; }
      this.log.info({ consumer: this.durable, delivered: info.delivered.stream_seq, position: this.fromSeq }, 'projection consumer delivered past the projection\'s position (an earlier projector acknowledged or spent them): made again from the entry after it');
      await jsm.consumers.delete(journalStreamName, this.durable);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    await jsm.consumers.add(journalStreamName, {
      durable_name: this.durable, ack_policy: AckPolicy.Explicit, filter_subject: `${journalSubjectPrefix}.>`,
      ...(this.fromSeq > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: this.fromSeq + 1 } : { deliver_policy: DeliverPolicy.All }),
      max_deliver: readSideLimits.deliveriesMax, ack_wait: nanos(readSideLimits.ackWaitMs), max_ack_pending: readSideLimits.ackPendingDeliveriesMax,
    });
    this.resumed = true;
  }

  private flush(): void {
    this.scheduled = null;
    const batch = this.pending;
    this.pending = [];
    if (batch.length > 0 && !this.stopped) this.deliver(batch);
  }

  private toDelivery(m: JsMsg): Delivery | null {
    let entry: RelayedEntry;
    try {
      entry = this.entryOf(m);
    } catch (error) {
      // Not a journal entry at all: nothing to apply or park by seq. Dropped, loudly.
      this.log.error({ consumer: this.durable, stream_seq: m.info.streamSequence, err: String(error) }, 'projection consumer dropped a message that is not a journal entry');
      m.term();
      return null;
    }
    return { entry, deliveryCount: m.info.deliveryCount, ack: () => m.ack(), nak: () => m.nak() };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
