// The process entry point: opens the write side (SQLite journal, recovered world, timer
// scheduler), the key store, the operator token verifier and the capability signer, and
// serves the Koa app. `npm start` runs this on the embedded default through
// server/start.mjs (and execs node, so a SIGTERM sent to npm reaches this process, which
// drains and exits).

import type Koa from 'koa';
import { existsSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join as joinPath } from 'node:path';
import { ClockBehindJournal, clockBehindJournal, clockFromEnv, ManualClock, SystemClock } from '../adapters/clock.ts';
import { ManualClockMark } from '../adapters/sqlite/manual-clock.ts';
import { unusableDatabases } from '../adapters/sqlite/unusable.ts';
import { UlidIds } from '../adapters/ids.ts';
import { Scheduler } from '../adapters/scheduler.ts';
import { ensurePrivateDir, tightenDataDir } from '../adapters/private-files.ts';
import { compactAfterSealing, type Sealer, WrongMasterKey } from '../adapters/sealing.ts';
import { SqliteKeyStore } from '../adapters/sqlite/api-keys.ts';
import { openStore, type Store } from '../adapters/sqlite/store.ts';
import { sequenceJumps } from '../adapters/sqlite/writer.ts';
import { peekJournal } from '../adapters/sqlite/peek.ts';
import { refuseUnreadableRequestLog } from '../adapters/request-log.ts';
import { Webhooks } from '../adapters/webhooks/webhooks.ts';
import { isCliEndpoint } from '../adapters/webhooks/endpoints.ts';
import { webhookSettings } from '../adapters/webhooks/settings.ts';
import { RetentionSweeps } from '../adapters/webhooks/retention.ts';
import type { Lookup } from '../adapters/webhooks/url-policy.ts';
import type { Clock, IdempotencyRecord } from '../core/ports.ts';
import { limits, requestLimits, webhookLimits } from '../core/limits.ts';
import { createApp, isSlipUploadRequest, LoadMeter } from './app.ts';
import type { Duplex } from 'node:stream';
import { errorBody } from './errors.ts';
import { payerMessageTh } from './slips/payer-messages.ts';
import { newRequestId } from './request-id.ts';
import { DevIssuer, keepRevocationsIn, keepStepUpsIn, operatorAudience, operatorVerifier } from './auth/operator.ts';
import { OperatorRevocationsTable } from '../adapters/sqlite/operator-revocations.ts';
import { startDevOidc } from './auth/dev-oidc.ts';
import { stepUpAcr } from './auth/dev-operators.ts';
import { CapabilitySigner } from './capability.ts';
import { DataDirInUse, DataDirLock } from '../adapters/data-dir-lock.ts';
import { ChainBroken } from '../adapters/sqlite/errors.ts';
import { SchemaTooNew } from '../adapters/sqlite/schema.ts';
import { readRestoreMarker, restorableBackupAtMs, removeRestoreMarker, RestoreMarkerUnreadable, type RestoreMarker } from '../adapters/sqlite/backup.ts';
import { addressesOf, ConfigError, configErrorExitCode, readConfig, shutdownDrainMs, type Config } from './config.ts';
import { connectionsCheckMs, requestTimeouts } from './request-timeouts.ts';
import { createLogger } from './log.ts';
import type { Logger } from 'pino';
import { sealerFor } from './master-key.ts';
import type { Services, WriteSide } from './ports.ts';
import { startReadSide, type ReadSide } from './read-side.ts';
import { projectionSchemas } from '../projections/all.ts';
import { openProjectionsDb, ProjectionsDbRefused, type ProjectionsDb } from '../projections/db.ts';
import { readRouters } from './routes/read-routes.ts';
import { backOfficeDeskRoutes } from './routes/bo-desk.ts';
import { backOfficeClaimRoutes } from './routes/bo-claims.ts';
import { auditMiddleware, backOfficeAuditRoutes } from './routes/bo-audit.ts';
import { backOfficeReadRoutes } from './routes/bo-reads.ts';
import { ActionLog } from '../adapters/sqlite/action-log.ts';
import { StepUpsTable } from '../adapters/sqlite/step-ups.ts';
import { RequestLogThread } from './request-log-thread.ts';
import { reportRouters } from './routes/reports.ts';
import { webhookRouters } from './routes/webhooks.ts';
import { startSlips, type SlipOptions } from './slips/wiring.ts';
import { pendingSlip, type SlipWorker } from '../adapters/slips/worker.ts';
import { listenMetrics, Metrics, type MetricsListener } from './metrics.ts';
import { readinessOf, type Readiness } from './readiness.ts';
import { CertificationStore } from '../adapters/sandbox/certification.ts';
import { certificationRoutes } from './routes/certification.ts';
import { consoleRoutes } from './console/static.ts';

export interface Running {
  readonly url: string;
  readonly config: Config;
  readonly store: Store;
  readonly services: Services;
  /** The Koa app (specs walk its routers, e.g. to check every /v1/bo route has roles). */
  readonly app: Koa;
  readonly devIssuer?: DevIssuer;
  readonly loadMeter: LoadMeter;
  readonly webhooks: Webhooks;
  /** Verifies received slips; drain() verifies everything pending now (tests). */
  readonly slipWorker: SlipWorker;
  /** The relay and projections (embedded, on a worker thread), or the relay to NATS and the reads of the projector's projections.db. */
  readonly readSide: ReadSide;
  /** Signs and reads slip upload capabilities. */
  readonly capability: CapabilitySigner;
  /** Prometheus metrics; served at metricsUrl when SATANG_METRICS_PORT is set. */
  readonly metrics: Metrics;
  readonly metricsUrl?: string;
  /** What GET /readyz answers from. */
  readiness(): Readiness;
  /** The process logger (what the signal handler reports a shutdown on). */
  readonly logger: Logger;
  /** Requests being answered and connections open now: what a drain waits on. */
  inFlight(): Promise<{ requests: number; connections: number }>;
  close(): Promise<void>;
}

/**
 * Every request while the server starts (replaying a long journal can take a while):
 * 503 service_unavailable, but GET /healthz — liveness, "the process answers" — is 200
 * {"status":"starting"}, so a liveness probe does not kill a server that is replaying;
 * readiness (/readyz) says 503 until it is ready.
 */
export const answerWhileStarting: RequestListener = (req, res) => {
  if (req.method === 'GET' && req.url?.split('?')[0] === '/healthz') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"status":"starting"}');
    return;
  }
  res.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '1' });
  res.end(JSON.stringify(errorBody('service_unavailable', newRequestId(), { message: 'The service is starting; retry shortly.', retryAfterSeconds: 1 })));
};

/**
 * A connection Node refused before a request existed: a header section not complete within
 * headersMs is 408 with the error object of request_timeout (Node's own answer was a bare
 * "408 Request Timeout"), a header section too large 431, anything unparseable 400 — as
 * Node answers them (its own handler, which a listener replaces), then the socket is closed.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex, slipUpload: boolean): ClientErrorAnswer | undefined {
  const inFlight = (socket as Duplex & { _httpMessage?: { _headerSent?: boolean } })._httpMessage;
  let answered: ClientErrorAnswer | undefined;
  if (socket.writable && !inFlight?._headerSent) {
    const requestId = newRequestId(); // as on every answer: the header equals error.request_id, and the log line names it
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      // A slip upload's body has no deadline of its own but the whole request's (a phone on a
      // slow network): its payer's screen gets its sentence, as every refusal of the upload does.
      const details = slipUpload ? { public_message_th: payerMessageTh('request_timeout', {}) } : undefined;
      const body = JSON.stringify(errorBody('request_timeout', requestId, { message: 'The request did not arrive in time.', ...(details ? { details } : {}) }));
      socket.write(`HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`
        + `Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`);
      answered = { status: 408, code: 'request_timeout', requestId };
    } else if (error.code === 'HPE_HEADER_OVERFLOW') {
      socket.write(`HTTP/1.1 431 Request Header Fields Too Large\r\nRequest-Id: ${requestId}\r\nConnection: close\r\n\r\n`);
      answered = { status: 431, requestId };
    } else if (error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') {
      socket.write(`HTTP/1.1 413 Payload Too Large\r\nRequest-Id: ${requestId}\r\nConnection: close\r\n\r\n`);
      answered = { status: 413, requestId };
    } else {
      // The contract's error object, as every other refusal: Node's parser could not read the request.
      const body = JSON.stringify(errorBody('malformed_request', requestId, { message: `The request is not well-formed HTTP (${error.code ?? 'parse error'}); the server could not read it.` }));
      socket.write(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`
        + `Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`);
      answered = { status: 400, code: 'malformed_request', requestId };
    }
  }
  socket.destroy(error);
  return answered;
}

/** What the HTTP server answered a request the app never saw, for its log line and metrics. */
interface ClientErrorAnswer { readonly status: number; readonly code?: string; readonly requestId: string }

/** `hostLookup`: how webhook endpoint host names resolve in production (default: node:dns). */
type StartOptions = { clock?: Clock; securityClock?: Clock; hostLookup?: Lookup } & SlipOptions;

/**
 * What a start has opened so far — the data dir's lock, the listeners, the journal's writer
 * thread, the read side's worker — closed in reverse when a later step throws: the process
 * exits then anyway, but a caller in the same process (a spec, an embedder) must be left no
 * live thread and no locked data dir.
 */
class OpenedSoFar {
  private readonly closers: (() => unknown)[] = [];

  add(close: () => unknown): void { this.closers.push(close); }

  /** Closes everything, last opened first; a closer that fails does not keep the others open. */
  async closeAll(): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) {
      try { await close(); } catch { /* the start's own failure is what the caller is told */ }
    }
  }
}

/**
 * The first start after `satang restore` (restored.json in the data dir): before any request
 * or timer makes an event, every merchant's event and balance-history sequences jump past
 * what the lost tail may have given out, in one journaled commit; then the marker goes. A
 * start cut short between the two journals nothing the second time (the command skips the
 * merchants that have this restore's jump).
 */
async function advanceSequencesAfterRestore(store: Store, dataDir: string, marker: RestoreMarker | null, logger: Logger): Promise<void> {
  if (!marker) return;
  const { outcome, durable } = store.submit({ type: 'AdvanceSequencesAfterRestore', actor: { kind: 'system' }, restoreId: marker.id, backupTakenAt: marker.backupTakenAt });
  await durable;
  if (!outcome.ok) throw new Error(`the restore's sequence jump was refused: ${outcome.rejection.message}`);
  removeRestoreMarker(dataDir);
  logger.warn({ restore_id: marker.id, merchants: store.world.merchants.size, by: limits.sequenceJumpAfterRestore },
    "restore: every merchant's event and balance-history sequences moved on past what was given out after the backup");
}

/** `clock` is business time (default: SATANG_CLOCK); `securityClock` is the wall clock unless a test passes its own. */
export async function startServer(env: NodeJS.ProcessEnv = process.env, options: StartOptions = {}): Promise<Running> {
  const opened = new OpenedSoFar();
  try {
    return await start(env, options, opened);
  } catch (error) {
    await opened.closeAll();
    throw error;
  }
}

async function start(env: NodeJS.ProcessEnv, options: StartOptions, opened: OpenedSoFar): Promise<Running> {
  const configured = readConfig(env);
  const timeouts = requestTimeouts(configured.env, env);
  const drainMs = shutdownDrainMs(env); // a bad value refuses to start, before anything listens
  const logger = createLogger({ level: configured.logLevel });
  // Secrets at rest (adapters/private-files.ts): everything this process creates from here
  // on is private by default — SQLite makes -wal and -shm lazily, the slip store its files —
  // and a data dir left looser by an older build is tightened to 0700/0600.
  process.umask(0o077);
  // A first start on a host that does not resolve or is none of this machine's, or on a port
  // in use, is refused before the data dir and its master key are made: a typo left both
  // behind, empty. (A data dir that exists is locked first, as below: a second server on it
  // is told the data dir is in use, whatever its port.)
  if (!existsSync(configured.dataDir)) {
    await canListenOn(configured.host, configured.port);
    if (configured.metrics) await canListenOn(configured.metrics.host, configured.metrics.port);
  }
  ensurePrivateDir(configured.dataDir);
  // One API server per data dir (adapters/data-dir-lock.ts): refused before anything is read or bound.
  const lock = DataDirLock.acquire(configured.dataDir);
  opened.add(() => lock.release());
  tightenDataDir(configured.dataDir);
  const sealer: Sealer = sealerFor(configured, env); // refuses a data dir whose key is gone: the lock goes with the refusal
  // Listen first, so that port 0 (a free port, for tests) is known before the URLs are made;
  // until the app is ready, a request is answered at once, never left hanging.
  let handle: RequestListener = answerWhileStarting;
  // Counted for the shutdown's log line: what the drain waits on.
  let requestsInFlight = 0;
  // Slow clients: a header section must arrive within headersMs, a whole request within requestMs.
  const server: Server = createServer({
    headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, keepAliveTimeout: timeouts.keepAliveMs,
    connectionsCheckingInterval: connectionsCheckMs(timeouts),
  }, (req, res) => {
    requestsInFlight++;
    res.once('close', () => { requestsInFlight--; });
    if (req.method === 'POST' && isSlipUploadRequest(req.method, (req.url ?? '').split('?', 1)[0]!)) { // the path read only for a POST
      uploading.add(req.socket);
      res.once('close', () => uploading.delete(req.socket));
    }
    handle(req, res);
  });
  // Connections whose request in progress is a slip upload, for the answer Node's request timeout gets.
  const uploading = new WeakSet<Duplex>();
  // Answered by the HTTP server before the app (a request Node could not parse, or too slow):
  // logged as every answered request is, its Request-Id on the line, and counted (route unmatched).
  let countClientError: ((status: number) => void) | undefined;
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    const answered = answerClientError(error, socket, uploading.has(socket));
    if (!answered) return;
    logger.info({ request_id: answered.requestId, status: answered.status, code: answered.code, parser: error.code }, 'request');
    countClientError?.(answered.status);
  });
  // A port in use rejects (EADDRINUSE) rather than an unhandled 'error' event.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject); // a port in use, a host of no interface
    server.listen(configured.port, configured.host, () => { server.off('error', reject); resolve(); });
  });
  opened.add(() => closeAtOnce(server)); // a start refused later leaves nothing listening
  const port = (server.address() as AddressInfo).port;
  const config: Config = env.SATANG_BASE_URL ? configured : { ...configured, port, ...addressesOf(env, configured.host, port) };
  const metrics = new Metrics();
  countClientError = (status) => metrics.observeRequest('unknown', undefined, status, 0);
  // The metrics port taken refuses the start rather than run unobserved.
  const metricsListener: MetricsListener | undefined = configured.metrics ? await listenMetrics(metrics, configured.metrics.host, configured.metrics.port) : undefined;
  if (metricsListener) opened.add(() => metricsListener.close());
  const clock = options.clock ?? clockFromEnv(env);
  const ids = new UlidIds();
  // Every check that may refuse the start and can read the files as the build before left
  // them runs before openStore migrates journal.db, so that an upgrade refused here can still
  // go back: journal.db is only read (peek.ts: schema version, master key, hash chain, the
  // last entry's time), logs.db only looked at, and projections.db is refused if this build
  // cannot use it (the columns it adds otherwise, the older build ignores). What follows
  // needs the migrated schema (the webhooks', keys' and action log's tables, the manual
  // clock's mark, the read side's worker reading journal.db), or fails rather than checks:
  // NATS is connected in the background and refuses no start.
  const peek = peekJournal(config.dataDir, sealer);
  const lastRecordedAt = peek?.lastRecordedAt ?? 0;
  // The system clock never runs back behind the journal: a few minutes ahead (a clock
  // stepped back) it waits for the wall clock; further (a data dir a manual clock advanced,
  // a machine's clock wrong) the start is refused.
  if (clock instanceof SystemClock) {
    const now = clock.now();
    const behind = clockBehindJournal(lastRecordedAt, now);
    if (behind) throw behind;
    clock.notBefore(lastRecordedAt);
  }
  refuseUnreadableRequestLog(config.dataDir);
  const projectionsDb: ProjectionsDb = openProjectionsDb(config.dataDir, projectionSchemas, logger);
  opened.add(() => projectionsDb.close()); // the read side's once it runs (closing twice is harmless)
  // Read before the store opens (and upgrades journal.db's schema): a marker that does not read
  // refuses the start with the data dir as it was, which an older build still opens.
  const restoreMarker = readRestoreMarker(config.dataDir);
  const store: Store = openStore(config.dataDir, {
    clock, ids, groupCommit: true, writerThread: true, sealer, ...(peek ? { recovered: peek.recovered } : {}),
    onRebuilt: (reason) => logger.error({ err: String(reason) }, 'world rebuilt from the journal after a failed commit'),
    onWriteFailure: (error) => logger.error({ err: String(error) }, 'journal write failed: the disk refused a transaction (request nonces); retried with the next one'),
    onDurabilityLost: (error) => {
      // The WAL could not be synced: no write can be called durable any more. Stop, as
      // PostgreSQL does on a failed fsync; a restart recovers from what the disk holds.
      logger.fatal({ err: String(error) }, 'journal WAL fdatasync failed; exiting');
      process.exit(70);
    },
  });
  opened.add(() => store.close()); // stops the journal's writer thread
  // SATANG_CLOCK=manual starts at the wall clock. After advances and a restart, it resumes
  // where the last advance left it or at the journal's last entry, whichever is later:
  // business time never runs back behind an advance that was answered or what the journal
  // recorded. A test's own clock is left as given.
  const clockMark = !options.clock && clock instanceof ManualClock ? new ManualClockMark(store.db) : undefined;
  let advancing: Promise<unknown> = Promise.resolve();
  if (clockMark && clock instanceof ManualClock) {
    const resume = Math.max(lastRecordedAt, clockMark.read() ?? 0);
    if (resume > clock.now()) clock.set(resume);
  }
  store.journal.onGroupCommit = (commands, seconds) => metrics.observeGroupCommit(commands, seconds);
  await advanceSequencesAfterRestore(store, config.dataDir, restoreMarker, logger);
  const securityClock = options.securityClock ?? new SystemClock();
  const webhooks = new Webhooks({
    db: store.db, clock, securityClock, ids, log: logger, sealer, settings: webhookSettings(config.env, env), directory: (id) => store.world.merchants.get(id), merchants: () => store.world.merchants.keys(),
    durableSeq: () => store.durableSeq, onAttempt: (endpointId, outcome) => metrics.webhookAttempt(endpointId, outcome),
    ...(options.hostLookup ? { hostLookup: options.hostLookup } : {}),
  });
  // Every endpoint's permanent-failure series exists at 0 from the start, a new one's from its creation: the alert reads it with increase().
  for (const { merchantId, livemode } of webhooks.endpoints.merchantsWithEndpoints()) for (const e of webhooks.endpoints.enabled(merchantId, livemode)) if (!isCliEndpoint(e)) metrics.webhookEndpoint(e.id);
  webhooks.endpoints.onCreated = (e) => { if (!isCliEndpoint(e)) metrics.webhookEndpoint(e.id); };
  const apiKeys = new SqliteKeyStore(store.db, sealer);
  const operatorKeys = store.keys.operatorScopesFoldedOnOpen;
  if (operatorKeys.moved + operatorKeys.dropped > 0) {
    logger.info({ moved: operatorKeys.moved, later_duplicates_dropped: operatorKeys.dropped }, "idempotency: operators' records an older build keyed by the sub as spelt moved to the folded sub, so a retry under any spelling replays");
  }
  // Secrets an older build kept in clear were sealed just now; their old bytes must not linger in free pages or the WAL.
  if (store.keys.sealedOnOpen + apiKeys.sealedOnOpen + webhooks.keys.sealedOnOpen + webhooks.sandboxKeys.sealedOnOpen + webhooks.endpoints.sealedOnOpen > 0) compactAfterSealing(store.db);
  if (webhooks.endpoints.sealedOnOpen > 0) logger.warn({ endpoints: webhooks.endpoints.sealedOnOpen }, 'webhook endpoints: URLs an older build kept with their path or query in clear were sealed (journal.db vacuumed)');
  const certification = new CertificationStore(store.db, (kid) => webhooks.sandboxKeys.publicKey(kid) !== undefined);
  store.onDurable(() => webhooks.signal.notify()); // durable commits wake the webhook dispatcher
  const readSide = await startReadSide({ dataDir: config.dataDir, projectionsDb, ...(config.natsUrl ? { natsUrl: config.natsUrl } : {}), ...(config.natsAuth ? { natsAuth: config.natsAuth } : {}), tail: () => store.durableSeq, log: logger });
  opened.add(() => readSide.close());
  store.onDurable(() => readSide.wake()); // the relay publishes after commit, never inside the request
  const scheduler = new Scheduler(store, (error) => logger.error({ err: String(error) }, 'timer failed'));
  store.onDurable(() => scheduler.poke()); // a command may have set an earlier timer
  const retentionSweeps = new RetentionSweeps(webhooks.retention, {
    now: () => clock.now(), publishedSeq: () => readSide.relay.position,
    onSwept: (d) => {
      metrics.retentionSwept(d);
      if (d.outbox + d.serviceEvents + d.deliveries === 0) return;
      logger.info({ outbox: d.outbox, service_events: d.serviceEvents, deliveries: d.deliveries }, `event retention: deleted what had outlived ${webhookLimits.eventRetentionDays} days`);
    },
    onError: (error) => logger.error({ err: error }, 'event retention failed; it runs again at the next sweep'),
  });
  // A decision on a deposit (a review's approval) may hand over a slip that waited in the
  // order's queue: the slip worker is told once it is durable, as an upload would tell it
  // (it also finds such slips when it starts). The worker's own verdicts tell it themselves.
  let slipHandedOver: ((depositId: string) => void) | undefined;
  const write: WriteSide = {
    get world() { return store.world; },
    clock, ids,
    caughtUp: () => store.caughtUp(),
    inFlight: (id) => store.inFlight(id),
    // The one door: routes, the slip worker and the scheduler all submit here.
    submit: (command, meta, respond) => {
      const submitted = store.submit(command, meta, respond);
      if (submitted.outcome.ok && 'depositId' in command && command.type !== 'RecordSlipVerification' && command.type !== 'ReceiveSlip') {
        const depositId = command.depositId;
        submitted.durable.then(() => slipHandedOver?.(depositId), () => {});
      }
      return submitted;
    },
    // A manual clock's advance may age events past the retention: a sweep follows it.
    ...(clock instanceof ManualClock ? {
      // One advance at a time: each steps from where it finds the clock to that instant plus
      // its own seconds, firing timers on the way, so two at once would each set the clock to
      // their own target (time lost, or refused as running back). They queue instead.
      advanceClock: (ms: number, keep?: (nowMs: number) => IdempotencyRecord, request?: string) => {
        const run = advancing.then(async () => {
          // A retry of an advance a crash cut goes on to the instant the first aimed at: the
          // clock resumed past where that one started (the timers it fired are in the journal).
          const aimedAt = request === undefined ? undefined : clockMark?.aimedAt(request);
          const by = aimedAt === undefined ? ms : Math.max(0, aimedAt - clock.now());
          if (request !== undefined && aimedAt === undefined) clockMark?.begin(request, clock.now() + ms);
          await webhooks.advance(by, { nextDueAt: () => store.world.nextTimerDueAt(), advance: (step) => scheduler.advance(step) });
          // Where the clock stopped and the answer to the request that moved it, together: a
          // retry after a restart answers this advance instead of making a second.
          store.db.transaction(() => {
            clockMark?.write(clock.now());
            clockMark?.end();
            if (keep) store.keys.keepIdempotency(keep(clock.now()));
          })();
          retentionSweeps.run();
        });
        advancing = run.catch(() => undefined);
        return run;
      },
    } : {}),
  };
  const services: Services = {
    write, securityClock, keys: apiKeys,
    nonces: { remember: (scope, nonce, now) => store.keys.rememberNonce(scope, nonce, now) },
    idempotency: { get: (scope, key, now) => store.keys.getIdempotency(scope, key, now), keep: (record) => store.keys.keepIdempotency(record) },
    read: readSide,
    serviceEvents: webhooks.events.since.bind(webhooks.events),
    eventFloor: webhooks.retention.floor.bind(webhooks.retention),
    sequenceJumps: sequenceJumps(store.db), // read once: the restore's jump is journaled above, before the services exist
    ...(config.env === 'production' ? { liveKeys: { certified: (id: string) => certification.certified(id, (ids) => ids.flatMap((e) => webhooks.endpoints.get(e) ?? []), clock.now()) } } : {}),
  };
  const devIssuer = config.oidcIssuer ? undefined : await DevIssuer.fromDataDir(config.dataDir, sealer);
  // In development the console signs in at a real OpenID provider on this port (/oidc) that signs with the development key.
  const devOidc = devIssuer ? startDevOidc({ baseUrl: config.baseUrl, signingJwk: devIssuer.signingJwk }) : undefined;
  // Operator tokens are security time: verified on the wall clock, never the (maybe manual) service clock.
  const verifyOperator = await operatorVerifier(config, devIssuer, devOidc?.issuer);
  const loadMeter = new LoadMeter();
  opened.add(() => loadMeter.stop());
  const capability = CapabilitySigner.fromDataDir(config.dataDir, sealer);
  const slips = startSlips({ services, config, logger, capability, metrics }, options);
  opened.add(() => slips.close());
  slipHandedOver = (depositId) => {
    const d = store.world.deposits.get(depositId);
    if (d && pendingSlip(d)) slips.worker.notify(depositId);
  };
  metrics.watch({
    tail: () => store.durableSeq, readSide, world: () => store.world, now: () => clock.now(),
    webhookQueue: () => webhooks.deliveries.pendingByEndpoint(), eventLoopLagMs: () => loadMeter.recentLagMs,
    lastBackupAtMs: () => restorableBackupAtMs(config.dataDir),
    oldestEnvelopeAtMs: () => webhooks.retention.oldestEnvelopeAt(),
    readiness: () => readiness(),
  });
  const readinessHistory = { everReady: false };
  const readiness = () => readinessOf({ dataDir: config.dataDir, journal: () => store.db, tail: () => store.durableSeq, readSide, commitFailure: () => store.commitFailure, history: readinessHistory });
  const actionLog = new ActionLog(store.db);
  if (actionLog.keyedOnOpen > 0) logger.info({ rows: actionLog.keyedOnOpen }, 'action log: rows keyed by their folded subject for the subject filter (written by an older build without the key, or folded under another Unicode version)');
  keepStepUpsIn(verifyOperator, new StepUpsTable(store.db)); // a spent step-up stays spent across a restart
  const operatorRevocations = new OperatorRevocationsTable(store.db);
  keepRevocationsIn(verifyOperator, operatorRevocations); // an operator who left is cut off before their tokens run out
  const requestLog = new RequestLogThread(config.dataDir, logger, () => securityClock.now());
  opened.add(() => requestLog.close());
  const boReads = backOfficeReadRoutes(services, store.db, config.dataDir, verifyOperator, sealer);
  opened.add(() => boReads.close());
  const app = createApp({
    services, config, logger, capability, verifyOperator, loadMeter, bodyDeadlineMs: timeouts.bodyMs, metrics, readiness,
    outerMiddleware: [auditMiddleware(actionLog, requestLog, securityClock, verifyOperator)],
    extraRouters: [
      ...webhookRouters(services, webhooks, verifyOperator), certificationRoutes(services, webhooks, certification), ...slips.routers, ...readRouters(services),
      ...reportRouters(services, verifyOperator),
      backOfficeDeskRoutes({ services, journalDb: store.db, dataDir: config.dataDir, verify: verifyOperator }), backOfficeClaimRoutes(services, verifyOperator),
      backOfficeAuditRoutes(actionLog, requestLog, verifyOperator, operatorRevocations), boReads.router,
      // The operator console (/console/): it logs in with the OIDC issuer (the configured one, else the development issuer under /oidc).
      consoleRoutes({
        issuer: devOidc?.issuer ?? config.oidcIssuer!, clientId: config.oidcClientId, audience: operatorAudience, scopes: ['openid', 'profile'],
        ...(devOidc ? { resource: devOidc.resource } : {}), stepUp: { acrValues: stepUpAcr, ...(devOidc ? { resource: devOidc.stepUpResource } : {}) },
      }),
    ],
  });
  const appHandle = app.callback();
  // Nothing below refuses the start: what it starts, close() stops.
  handle = devOidc ? (req, res) => { if (!devOidc.handle(req, res)) void appHandle(req, res); } : appHandle;
  scheduler.start();
  webhooks.start();
  slips.worker.start();
  const prune = setInterval(() => store.keys.pruneExpired(securityClock.now(), clock.now()), limits.nonceMemoryMs);
  prune.unref();
  retentionSweeps.start();
  const url = `http://${config.host}:${port}`;
  logger.info({ url, data_dir: config.dataDir, profile: config.profile, clock: config.clock, entries: store.recovered.entries }, 'satang listening');
  if (devIssuer) logger.info('operator tokens come from the local development issuer: scripts/satang token --sub emp_you --roles ops_admin');
  if (devOidc) logger.info({ console: `${config.baseUrl}/console/`, issuer: devOidc.issuer }, 'the console signs in at the development OpenID provider (seeded operators, password satang-dev)');
  return {
    url, config, store, services, app, loadMeter, capability, webhooks, slipWorker: slips.worker, readSide, ...(devIssuer ? { devIssuer } : {}),
    metrics, readiness, ...(metricsListener ? { metricsUrl: metricsListener.url } : {}), logger,
    inFlight: () => new Promise((resolve) => server.getConnections((error, connections) => resolve({ requests: requestsInFlight, connections: error ? -1 : connections }))),
    async close() {
      await metricsListener?.close();
      scheduler.stop();
      loadMeter.stop();
      clearInterval(prune);
      retentionSweeps.stop();
      // Requests and webhook attempts in flight finish together, within the same drain time.
      const [, webhooksCut] = await Promise.all([drain(server, drainMs), webhooks.stopAfterInFlight(drainMs)]);
      if (webhooksCut > 0) logger.warn({ webhook_attempts_cut: webhooksCut, drain_ms: drainMs }, 'shutdown: webhook attempts still waiting for their receivers were cut; each is retried as its next attempt after the restart');
      // Each step runs though one before it failed, so a failure never leaves the journal's
      // writer thread running or the data dir locked; the first is thrown once all have run.
      let failure: unknown;
      for (const step of [() => slips.close(), () => readSide.close(), () => requestLog.close(), () => boReads.close(), () => store.close(), () => lock.release()]) {
        try { await step(); } catch (error) { failure ??= error; }
      }
      if (failure !== undefined) throw failure;
    },
  };
}

/**
 * Stops accepting connections and lets the requests in flight finish; a connection still
 * open after drainMs (a slow or stalled client) is cut, so shutdown never waits on a client.
 */
async function drain(server: Server, drainMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const sweep = setInterval(() => server.closeIdleConnections(), requestLimits.shutdownIdleSweepMs);
  server.closeIdleConnections();
  const deadline = setTimeout(() => server.closeAllConnections(), drainMs);
  try {
    await closed;
  } finally {
    clearInterval(sweep);
    clearTimeout(deadline);
  }
}

/** Closes a server the app never answered on (a start refused): connections a client kept open while it started are cut. */
function closeAtOnce(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Binds `port` (0: any) on `host` and lets it go: throws what listening there would (ENOTFOUND, EADDRNOTAVAIL, EADDRINUSE). */
async function canListenOn(host: string, port: number): Promise<void> {
  const probe = createNetServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/**
 * Serves until SIGTERM or SIGINT: the first drains and exits, a second one exits at once.
 * `npm start` reaches it through server/start.mjs (this module bundled, without tsx); `node
 * --import tsx server/main.ts` runs it directly.
 */
/**
 * A start-up failure an operator mends — a host that is none of this machine's, a data dir
 * that is a file or on a read-only disk, a database that is no SQLite file, a broken hash
 * chain — in one line, no stack: restarting would meet it again, so it exits 78 as a
 * refused configuration does. Anything else is thrown (a crash, which the unit restarts).
 */
function startFailureLine(error: unknown): string | undefined {
  if (error instanceof ChainBroken || error instanceof SchemaTooNew || error instanceof ClockBehindJournal || error instanceof ProjectionsDbRefused || error instanceof RestoreMarkerUnreadable) return error.message;
  const e = error as (NodeJS.ErrnoException & { hostname?: string; address?: string; port?: number }) | null;
  const dataDir = process.env.SATANG_DATA_DIR ?? './data';
  switch (e?.code) {
    case 'ENOTFOUND': return `the host to listen on, ${e.hostname}, does not resolve: set SATANG_HOST (or SATANG_METRICS_HOST) to an address of this machine`;
    case 'EADDRNOTAVAIL': return `no interface of this machine has the address ${e.address}: set SATANG_HOST (or SATANG_METRICS_HOST) to one it has`;
    case 'EACCES': case 'EPERM':
      if (e.syscall === 'listen' || e.syscall === 'bind') return `port ${e.port} may not be bound by this user: choose a port above 1023 (SATANG_PORT), or grant the capability`;
      return `the data dir ${dataDir} cannot be used: ${e.message} (its owner and mode must let this user write it)`;
    case 'EEXIST': case 'ENOTDIR': return `the data dir ${dataDir} cannot be used: ${e.message} (SATANG_DATA_DIR must name a directory, or where one may be made)`;
    case 'EROFS': return `the data dir ${dataDir} is on a read-only file system: ${e.message}`;
    case 'SQLITE_NOTADB': case 'SQLITE_CORRUPT': {
      // Which file, and what mends it: only the journal needs a backup.
      const unusable = unusableDatabases(dataDir, { thorough: true });
      if (unusable.length === 0) return `a database in the data dir ${dataDir} is not a usable SQLite file (${e.code}: ${e.message}): restore the data dir from a backup (scripts/satang restore)`;
      return unusable.map((u) => `${joinPath(dataDir, u.file)} is not a usable SQLite file (${u.problem}): ${u.advice}`).join('; ');
    }
    case 'SQLITE_CANTOPEN': case 'SQLITE_READONLY': return `a database in the data dir ${dataDir} cannot be opened for writing (${e.code}: ${e.message}): check the disk and the files' owner`;
    default: return undefined;
  }
}

export async function serveUntilSignalled(): Promise<void> {
  let running: Running;
  try {
    running = await startServer();
  } catch (error) {
    // What an operator reads in the journal: what to mend, no stack trace; exit 78, which the unit does not restart.
    const failure = startFailureLine(error);
    if (error instanceof ConfigError) process.stderr.write(`satang: the configuration is refused (see .env.example):\n${error.problems.map((p) => `  - ${p}\n`).join('')}`);
    else if (error instanceof DataDirInUse || error instanceof WrongMasterKey) process.stderr.write(`satang: ${error.message}\n`);
    else if (failure !== undefined) process.stderr.write(`satang: ${failure}\n`);
    else if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      // Perhaps the previous process still holding it: exit 1, and systemd tries again.
      process.stderr.write(`satang: ${(error as NodeJS.ErrnoException & { address?: string; port?: number }).address ?? ''}:${(error as { port?: number }).port ?? ''} is in use by another process\n`);
      process.exit(1);
    } else throw error;
    process.exit(configErrorExitCode);
  }
  const drainMs = shutdownDrainMs(process.env);
  const log = running.logger;
  let stopping = false;
  // Each step is logged: an operator reading the journal after a restart must see that the
  // process was told to stop (and by what), what it waited on, and how it ended.
  let startedAt = 0;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      if (Date.now() - startedAt < requestLimits.shutdownRepeatedSignalMs) return; // the same stop told twice (Ctrl-C: the terminal and npm)
      log.warn({ signal }, 'second signal during the drain: exiting at once, requests in flight are cut');
      process.exit(1);
    }
    stopping = true;
    startedAt = Date.now();
    const hardStopMs = drainMs + requestLimits.shutdownAfterDrainMsMax;
    setTimeout(() => {
      log.error({ signal, waited_ms: Date.now() - startedAt }, 'shutdown did not finish in time: exiting');
      process.exit(1);
    }, hardStopMs).unref();
    void running.inFlight().then(({ requests, connections }) => {
      log.info({ signal, requests_in_flight: requests, connections, drain_ms: drainMs }, 'shutdown: draining requests in flight');
      return running.close();
    }).then(() => {
      log.info({ signal, duration_ms: Date.now() - startedAt }, 'shutdown: drained and closed; exiting');
      process.exit(0);
    }, (error: unknown) => {
      log.error({ signal, err: error, duration_ms: Date.now() - startedAt }, 'shutdown failed; exiting');
      process.exit(1);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

const isEntryPoint = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntryPoint) await serveUntilSignalled();
