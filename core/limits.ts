// Every limit of the service in one place, units last in the names (Ms, Seconds, Bytes,
// Minor for satang; Length counts characters; a count names what it counts, as in
// relayBatchEntriesMax). Values come from the contract's Limits table where it gives one,
// and from DESIGN.md's choices otherwise. Pure constants only, so the one module can live
// in core/ and the outer folders import it from here (core imports nothing from them):
// `limits` is core's own; after it come the write side's adapters, slip verification, the
// slip upload, the HTTP server, webhook delivery and the read side, one object each, so a
// reader sees which part of the service a limit bounds.

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;

/** PG-Timestamp may be this far from the wall clock's second, either way, bounds included. */
const timestampSkewSecondsMax = 300;

export const limits = {
  // HMAC and idempotency (contract: Authentication, Limits)
  timestampSkewSecondsMax,
  /**
   * How long a nonce is remembered from the instant its request is accepted: as long as the
   * same request could be accepted again, derived from the window so the two cannot drift.
   * A timestamp T first accepted at instant a is at most skew ahead of a's second; it stays
   * in the window until the wall clock's second passes T + skew, that is until before
   * (floor(a / 1 s) + 2·skew + 1) s ≤ a + (2·skew + 1) s. The contract's ten minutes (at
   * least) fall a second short: a request signed at the window's far edge could be replayed
   * once in its last second (a penetration test).
   */
  nonceMemoryMs: (2 * timestampSkewSecondsMax + 1) * second,
  idempotencyKeyLifetimeMs: 7 * day,
  idempotencyKeyLengthMax: 200,
  withdrawalIdempotencyKeyLengthMin: 8,

  // Deposits
  depositExpiresInSecondsDefault: 900,
  depositExpiresInSecondsMin: 60,
  depositExpiresInSecondsMax: 86_400,
  depositMinTtlSecondsMax: 86_400,
  lateSlipWindowMs: 24 * hour,
  slipUploadsPerDepositMax: 3,
  openDepositsPerEndUserMax: 2,
  openDepositsPerEndUserWithoutClientMax: 1,
  liquidityWaitMs: 10 * minute,
  liquidityRetryIntervalMs: 5 * second,
  /** The waits per pool whose median a waiting deposit's estimated_wait_ms is. */
  liquidityWaitsRemembered: 16,
  legsPerDepositMax: 3,
  /**
   * The smallest transfer a leg asks of an end user (1 baht): a withdrawal whose capacity is
   * less is left for its expiry rather than ask for a 0.01-baht transfer, and a leg never
   * leaves less than this for the next one.
   */
  legAmountMinMinor: 100,
  reviewEscalationMs: 1 * hour,
  reviewNoteLengthMin: 20,
  fourEyesAmountMinorMin: 5_000_000,
  /**
   * A reviewer's figures (the transfer, or every waiting leg's) add up to at most this:
   * 2,000,000 baht, more than a bank lets one PromptPay transfer carry — beyond is a typo
   * (an approval of 9,007,199,254,740,991 satang opened a claim of 90 trillion baht;
   * bad-input audit). A payer's own slip of a transfer a hundred times the order stays possible.
   */
  reviewFiguresMinorMax: 200_000_000,
  waitingDepositsMatchedPerCommandMax: 10,

  // Wallet
  clearingPeriodMs: 72 * hour,

  // Withdrawals
  withdrawalApprovalTimeoutMs: 24 * hour,
  withdrawalApprovalsRequired: 2,
  withdrawalLifetimeMs: 7 * day,
  withdrawalExpiryRetryMs: 1 * minute,
  fillAutoConfirmMs: 3 * hour,
  withdrawalMaxSplits: 10,
  disputeRespondByMs: 7 * day,
  /** The latest a dispute's respond_by may be set: an evidence deadline, not an open case for ever. */
  disputeRespondByMsMax: 90 * day,
  beneficiaryVerificationMs: 30 * second,
  /** A gateway route's lifetime (POST /v1/bo/white-labels/{id}/gateway-route ttl_seconds): a minute to a year. */
  gatewayRouteTtlSecondsMin: 60,
  gatewayRouteTtlSecondsMax: 31_536_000,
  /** How long a proposed gateway route waits for a second operator's approval. */
  gatewayRouteProposalTtlMs: 24 * 3_600_000,
  /**
   * A white label's fee schedule (POST /v1/bo/white-labels/{id}/fees): the deposit's
   * processing fee at most the whole amount (100 %), the withdrawal's fixed fee at most
   * 10,000 baht — beyond is a typo, not a price.
   */
  depositProcessingFeeBpsMax: 10_000,
  withdrawalFixedFeeMinorMax: 1_000_000,
  /** A VAT rate on a fee, in basis points (700 = the Thai 7 %): at most the whole fee (100 %). */
  vatBpsMax: 10_000,
  /** How long a proposed fee schedule waits for a second operator's approval. */
  feeScheduleProposalTtlMs: 24 * 3_600_000,
  /**
   * A live credit adjustment of this much or more is proposed by one ops_admin and posted
   * only when a second approves it naming the amount (100,000 baht): a payment provider's
   * maker-checker on money that appears in a wallet on an operator's word.
   */
  adjustmentFourEyesMinorMin: 10_000_000,
  /** How long such a proposal waits for its second operator. */
  adjustmentProposalTtlMs: 24 * 3_600_000,
  /** How long a proposed write-off of a payer's debt (core/claim/write-off.ts) waits for its second finance operator. */
  writeOffProposalTtlMs: 24 * 3_600_000,
  /**
   * The business time over which an operator's own live credits (each posted on their word
   * alone) are added up: one that would bring the total to adjustmentFourEyesMinorMin is
   * proposed too, so the control is not passed by splitting one credit into small ones.
   */
  adjustmentSoloWindowMs: 24 * 3_600_000,

  // Sandbox scenarios (contract: "Sandbox scenarios"; each step a durable timer on the service clock)
  /** The scenario's automatic transfer (or expiry, or cancellation) comes this long after creation ("settled in about 5 seconds"). */
  sandboxAutoStepMs: 5 * second,
  /** 10200 and 10900: the transfer after the order closed comes this long after it closed. */
  sandboxLateSlipDelayMs: 60 * second,
  /** 10300: the reversal comes this long after settlement. */
  sandboxReversalDelayMs: 60 * second,
  /** 10800: the duplicate transfer comes this long after settlement. */
  sandboxDuplicateTransferDelayMs: 45 * second,
  /** 10500: how long the order waits for liquidity before a destination appears. */
  sandboxLiquidityWaitMs: 25 * second,
  /** 10400: the fallback route's legs live this long ("TTL about 4 minutes"). */
  sandboxFallbackRouteTtlMs: 4 * minute,
  /** 11100: the clean short-pay transfers this much less than ordered. */
  sandboxShortPayMinor: 1_100n,
  /** 11400: the sandbox's next signing key signs from this long after the announcement ("kid switches within 60 s"). */
  sandboxKeyRotationNoticeMs: 60 * second,
  /** 11600: the same slip carries this much more than ordered (X = 11600, V = 12100). */
  sandboxOverpayMinor: 500n,

  // Text fields
  referenceLengthMax: 64,
  metadataKeysMax: 20,
  metadataValueBytesMax: 500,
  /** The withdrawal Live profile's key length (the contract); a deposit's keys are bounded as its values, in bytes. */
  metadataKeyLengthMax: 40,
  depositMetadataKeyBytesMax: 500,
  noteLengthMax: 2000,

  // Lists
  pageSizeDefault: 20,
  pageSizeMax: 200,
  balanceHistoryPageSizeMax: 100,

  // Write path: follow-up steps one command may cause (a settlement's fills and releases,
  // each release matching up to waitingDepositsMatchedPerCommandMax deposits of up to
  // legsPerDepositMax legs): far above any real chain, so hitting it means a loop.
  reactionsPerCommandMax: 1000,
  /**
   * What the first start after a restore adds to every merchant's next event sequence and
   * next balance-history sequence (SequencesAdvancedAfterRestore), so that none the lost
   * tail may have given out (webhooks, feeds) names another event or row. 10^9 is more than
   * a merchant makes between a backup and its restore (a day at 11,000 events a second),
   * and 9 × 10^6 restores still stay below 2^53 − 1 (the events feed's JS-safe range) and
   * far below int64.
   */
  sequenceJumpAfterRestore: 1_000_000_000,
  /**
   * What the same start adds to every merchant's sandbox run_generation (the sandbox
   * history starts that run), so that no run a reset in the lost tail began is begun again.
   * 10^6 is more resets than a merchant makes between a backup and its restore (a reset is
   * a pay write, 600 a minute per key: 864,000 in a day on one key), and 2,000 restores stay
   * below run_generation's ceiling of 2^31 − 1 (past it, the run stays at the ceiling).
   */
  runGenerationJumpAfterRestore: 1_000_000,
} as const;

export const durations = { second, minute, hour, day } as const;

// ---- write side: the SQLite journal, request keys, scheduler, verify (adapters/) ----

export const writeSideLimits = {
  /** Commands in one group-commit transaction; a longer queue is flushed in several. */
  groupCommitCommandsMax: 1000,
  /** After a transaction the disk refused, request nonces go alone to the writer thread again only this much later. */
  loneNoncesRetryMs: 1000,
  /** Retry-After of the 503 a write the disk refused answers (readiness holds commit_failed 15 s meanwhile). */
  storageFailureRetryAfterSeconds: 5,
  /**
   * With the writer thread, commands decided in one turn of the event loop are handed over
   * this many at a time, before the turn ends: a turn that reads fifty requests would
   * otherwise decide them all before the thread could start writing the first.
   */
  handOverEarlyCommands: 16,
  /**
   * How far journal.db's last entry may be ahead of the system clock at start (a clock
   * stepped back a little): business time then waits for the wall clock to pass it. Further
   * ahead, the start is refused (adapters/clock.ts ClockBehindJournal).
   */
  journalAheadOfClockMsMax: 5 * 60 * second,
  /** How long a writer waits for another connection's write lock before failing. */
  sqliteBusyTimeoutMs: 5000,
  /** Expired nonces or idempotency records deleted per prune statement. */
  pruneRowsPerBatchMax: 1000,
  /** Prune batches per pruneExpired() call, so one call never stalls the writer for long. */
  pruneBatchesPerCallMax: 10,
  /** Timers fired per scheduler tick before it yields to the event loop. */
  schedulerTimersPerTickMax: 100,
  /** Timers one manual-clock advance may fire: more means a timer that never stops falling due. */
  advanceTimersMax: 1_000_000,
  /**
   * The least one manual-clock advance moves business time: 0 moves nothing but still runs
   * what is due at the instant (timers, webhook attempts), which a test on a manual clock
   * uses to let deliveries land without moving time.
   */
  manualClockAdvanceSecondsMin: 0,
  /** The most one manual-clock advance (POST /v1/bo/clock/advance) moves business time: a year. */
  manualClockAdvanceSecondsMax: 31_536_000,
  /**
   * The latest instant the manual clock reaches (9899-12-31T23:59:59.999Z): a century short
   * of year 9999's end, so every instant derived from now (expiry, clearing, retention,
   * timers) still has an RFC 3339 form. An advance past it is refused.
   */
  manualClockMsMax: Date.UTC(9900, 0, 1) - 1,
  /** The scheduler looks again at least this often, whatever the next due time. */
  schedulerPollMsMax: 1000,
  /**
   * After a tick whose timers failed to commit (a full disk), the scheduler waits this long
   * before the next, doubling per failure up to the max, back to none after a tick that
   * commits: each failure rebuilds the world from the journal, and a due timer retried at
   * once kept a core busy (an outside-in drill: 98 % CPU, 20 log lines a second).
   */
  schedulerFailureBackoffMsMin: 1000,
  schedulerFailureBackoffMsMax: 30_000,
  /** verify: mismatches listed in the report (the count is always exact). */
  verifyMismatchesListedMax: 100,
  /**
   * V8's old space of each worker thread (adapters/worker-thread.ts), MB. Set, so a worker
   * neither inherits the process's own limit (--max-old-space-size is process-wide) nor
   * grows its heap lazily as V8 does on a large machine: what a worker holds is bounded
   * (the journal's writer: two batches; the read side: one projection batch; the request
   * log: its rows in flight), and a worker over it ends with ERR_WORKER_OUT_OF_MEMORY and
   * is handled as a failed worker.
   */
  /**
   * Orders whose latest presentation the write path keeps (World.presentations), most
   * recent first: an order's next event compares against it instead of presenting the
   * state again. More than a burst of commits touches; fewer than the orders a busy
   * merchant base keeps open.
   */
  presentationsCachedMax: 4_096,
  workerOldSpaceMb: 64,
  /**
   * V8's young generation of each worker thread, MB. V8 sizes it for the machine (32 MB a
   * thread here), and a scavenge touches all of it: three workers held about 100 MB
   * resident in young space they barely use. A worker's allocation rate is a fraction of
   * the event loop's, so a small one costs a few more scavenges, not throughput.
   */
  workerYoungSpaceMb: 8,
  /**
   * The nice value of the background worker threads (the read side, the request log):
   * they run whenever a core is free, and give way while the event loop or the journal's
   * writer thread wants one (adapters/thread-priority.ts).
   */
  backgroundThreadNice: 10,
} as const;

// ---- slip verification: provider client, worker, bank simulator (adapters/slips/) ----

export const slipAdapterLimits = {
  /** Calls to the provider for one slip before its answer counts as provider_unavailable. */
  providerAttemptsMax: 3,
  /** One provider call, connect to last byte. */
  providerAttemptTimeoutMs: 5_000,
  /** Wait before the second attempt; each later wait doubles it. */
  providerRetryDelayMs: 200,
  /** A provider answer larger than this is not read (it is not a verdict). */
  providerResponseBytesMax: 64 * 1024,
  /** Slips one worker pass verifies before it yields. */
  workerSlipsPerPassMax: 1_000,
  /** Deposits queued for verification; past it the worker rescans the world instead. */
  workerQueuedDepositsMax: 100_000,
  /** Wait before a slip whose verification failed (our store or journal, or the provider's attempts all failed) is tried again. */
  workerRetryDelayMs: 5_000,
  /** Rounds at one slip that fail before it is sent to review instead (≈ 25 s of a provider outage ridden out). */
  workerAttemptsPerSlipMax: 5,
  /** Transfers the bank simulator remembers. */
  simulatorTransfersMax: 100_000,
  /** A request body the standalone simulator reads. */
  simulatorRequestBytesMax: 64 * 1024,
  /** The mini-QR payload of a slip. */
  payloadLengthMax: 1_024,
} as const;

// ---- slip upload (contract: slip_upload capability, Limits; server/slips/) ----

export const slipUploadLimits = {
  /** A claim without an image may say its transfer was made at most this long after now (clocks drift); later is refused. */
  claimedTransferAheadMaxMs: 5 * 60_000,
  /** slip_upload.max_bytes: decoded evidence bytes (5 MiB). */
  evidenceBytesMax: 5 * 1024 * 1024,
  /** Boundaries, part headers and the payload field around the file of a multipart body. */
  multipartOverheadBytesMax: 64 * 1024,
  /** Keys, quotes and the payload around image_base64 in a JSON body. */
  jsonOverheadBytesMax: 64 * 1024,
  /** Parts of a multipart body (file and payload, with room for nothing else). */
  multipartPartsMax: 4,
  payloadLengthMax: slipAdapterLimits.payloadLengthMax,
  transRefLengthMax: 64,
  /** Receipts allocated to an intake that has not committed yet (a retry after 503 reuses them). */
  pendingIntakesMax: 10_000,
  pendingIntakeLifetimeMs: 1 * day,
} as const;

// ---- HTTP requests (server/): what one request may cost before it is answered ----

export const requestLimits = {
  /** The JSON body of a merchant or back-office route; the slip upload has its own cap (slipUploadLimits). */
  jsonBodyBytesMax: 256 * 1024,
  /** PG-Nonce: a UUID is 36 characters; anything much longer is not a nonce. */
  nonceLengthMax: 128,
  /** From a connection's first byte (or the end of its previous request) to the end of the header section: server.headersTimeout. */
  headersTimeoutMs: 10 * second,
  /** From the start of reading a JSON body to its last byte, then 408 request_timeout and the connection closed. */
  bodyTimeoutMs: 10 * second,
  /** The whole request, headers and body, on any route (slip uploads too): server.requestTimeout. */
  requestTimeoutMs: 60 * second,
  /** An idle keep-alive connection between two requests: server.keepAliveTimeout. */
  keepAliveTimeoutMs: 5 * second,
  /** How often, at most, the server looks for connections past their timeouts (Node's default of 30 s would let a slow client overstay by 30 s). */
  connectionsCheckMsMax: 1 * second,
  /** How long a connection refused mid-body may go on sending after its answer before it is cut (a lingering close). */
  unreadBodyLingerMs: 1 * second,
  /** Fields listed in one validation_error's details.fields (the rest are left out). */
  validationFieldsReportedMax: 50,
  // Operator tokens (server/auth/operator.ts), all on the wall clock:
  /** What the development issuer mints: an access token lives an hour, a step-up token five minutes. */
  operatorAccessTokenLifetimeSeconds: 3600,
  operatorStepUpTokenLifetimeSeconds: 300,
  /** The longest an access token may live, by exp − iat and by exp − now (12 h). */
  operatorTokenLifetimeSecondsMax: 12 * 3600,
  /** The oldest a step-up may be, by auth_time if present, else iat (5 minutes). */
  operatorStepUpAgeSecondsMax: 300,
  /** Tolerated disagreement between the issuer's clock and ours, for iat in the future. */
  operatorIssuerClockSkewSecondsMax: 60,
  // Load shedding by the contract's priorities (server/app.ts), on the event loop's mean lag:
  /** Mean lag above which new deposits (P3) are shed. */
  shedDepositsLagMs: 200,
  /** Mean lag above which status reads (P2) are shed too. */
  shedReadsLagMs: 500,
  /** The window the lag is averaged over; a spike counts for the next window, then ages out. */
  loadWindowMs: 1 * second,
  /** Rate-limit subjects (keys, IPs) tracked at once per limiter; the least recently used go first. */
  rateLimitTrackedKeysMax: 100_000,
  // Shutdown (server/main.ts):
  /** How long shutdown lets in-flight requests run before it cuts the connections left open (SATANG_SHUTDOWN_DRAIN_MS). */
  shutdownDrainMsDefault: 10 * second,
  /** What closing the stores may take after the drain before the process exits anyway. */
  shutdownAfterDrainMsMax: 5 * second,
  /** How often the drain closes connections that became idle (a kept-alive one after its answer). */
  shutdownIdleSweepMs: 50,
  /**
   * A second stop signal this soon after the first is the same stop told twice, not an
   * operator's "now": a terminal's Ctrl-C reaches the whole process group, so the server
   * gets SIGINT from the terminal and again from npm, which passes it on.
   */
  shutdownRepeatedSignalMs: 1 * second,
} as const;

// ---- webhook delivery (contract: Delivery rules, Limits, Webhook signatures; adapters/webhooks/) ----

export const webhookLimits = {
  // Contract: Delivery rules, "Attempts": 11, delays from the previous attempt.
  attemptDelaysMs: [0, 10 * second, 1 * minute, 5 * minute, 30 * minute, 2 * hour, 6 * hour, 12 * hour, 24 * hour, 24 * hour, 24 * hour] as readonly number[],
  attemptsMax: 11,
  /** ±10 % on every delay. */
  jitterFraction: 0.1,

  // Contract: Delivery rules, "Timeouts".
  connectTimeoutMs: 5 * second,
  firstByteTimeoutMs: 10 * second,
  totalTimeoutMs: 15 * second,
  /** Contract: response body retained up to 8 KB. */
  responseExcerptBytesMax: 8 * 1024,

  // Contract: Delivery rules, "Auto-disable".
  autoDisableDowntimeMs: 24 * hour,
  autoDisableFailuresMin: 50,
  downtimeWarningsMs: [6 * hour, 12 * hour] as readonly number[],

  // Contract: Delivery rules, "Resend" and "Bulk replay"; Limits.
  resendEventAgeMsMax: 30 * day,
  replayEventsPerCommandMax: 10_000,
  replayEventsReleasedPerSecond: 50,
  /** Out-of-order test events are released this far apart, in the order the case names. */
  outOfOrderSpacingMs: 1 * second,

  // Contract: Webhook signatures.
  keyRotationNoticeMs: 7 * day,
  /** A rotation may be announced sooner in an emergency, never with less notice than this. */
  keyRotationNoticeMsMin: 1 * minute,
  /** Retired signing keys stay listed this long after they stop signing (event retention). */
  retiredKeyListedMs: 30 * day,

  // Event retention (adapters/webhooks/retention.ts). Contract Limits: event retention 30
  // days, resend age limit 30 days; a resend made on the 30th day is retried for about four
  // more (attemptDelaysMs), so envelopes, deliveries and attempts go after 35.
  eventRetentionDays: 35,
  eventRetentionMs: 35 * day,
  /** How often the server looks for what has outlived the retention. */
  retentionSweepEveryMs: 10 * minute,
  /** Rows of one table deleted per transaction (journal.db's write lock is shared with the writer). */
  retentionRowsPerBatchMax: 500,
  /** Batches per sweep; a sweep yields to the event loop between two. */
  retentionBatchesPerSweepMax: 2_000,

  // Endpoint URLs.
  endpointUrlLengthMax: 2048,
  endpointsPerMerchantMax: 16,
  eventTypesPerEndpointMax: 64,

  // The dispatcher's own bounds.
  /** Requests in flight at once, over all endpoints. */
  inFlightDeliveriesMax: 512,
  /** Requests in flight at once to one endpoint: a slow receiver cannot take every slot. */
  inFlightDeliveriesPerEndpointMax: 64,
  /**
   * Requests in flight at once to one merchant's endpoints of one mode (it may have 16): a
   * merchant whose receivers hang holds at most this many slots, and the others' deliveries
   * go out beside them.
   */
  inFlightDeliveriesPerMerchantMax: 32,
  /**
   * The last slots of inFlightDeliveriesMax, kept for merchants with fewer than
   * inFlightReserveShareMax requests open: however many merchants' receivers hang (eight at
   * their share took the whole pool; security audit), another merchant's delivery goes out.
   */
  inFlightDeliveriesReserved: 128,
  inFlightReserveShareMax: 4,
  /** Requests in flight at once to sandbox endpoints, all merchants together: sandbox traffic never takes live's slots. */
  inFlightSandboxDeliveriesMax: 128,
  /** Outbox events fanned out into deliveries per transaction. */
  fanOutEventsPerBatchMax: 500,
  /** Fan-out batches per pump before the dispatcher yields to the event loop. */
  fanOutBatchesPerPumpMax: 20,
  /**
   * A fan-out that found journal.db's write lock held is tried again after this long (or at
   * the next wake, when the writer thread's batch is acknowledged, whichever comes first).
   */
  fanOutRetryMs: 5,
  /** A full or failing disk: the dispatcher's first retry, doubling to the last (adapters/webhooks/dispatcher.ts). */
  storageRetryMinMs: 1_000,
  storageRetryMaxMs: 30_000,
  /**
   * A wake (a durable commit, an operator's change) runs the pump at most once in this
   * long: under load the writer's acknowledgements come every few milliseconds, and each
   * pump's fixed cost (the write lock tried, a transaction, the due and health queries)
   * is paid once for all the events of the interval instead of once per batch.
   */
  wakeIntervalMinMs: 10,
  /** Endpoint health milestones (warnings, disable) handled per pump. */
  healthChecksPerPumpMax: 100,
  /** The dispatcher looks at the outbox and the due attempts at least this often. */
  pollIntervalMsMax: 1 * second,
  /** Manual clock: steps one advance may take before it is a runaway (a due row that never clears). */
  advanceStepsMax: 1_000_000,
  /** Idle keep-alive sockets kept per receiver host. */
  keepAliveSocketsPerHostMax: 64,

  // Back office lists.
  deliveriesPageSizeDefault: 20,
  deliveriesPageSizeMax: 200,
  attemptsListedPerDeliveryMax: 50,
} as const;

// ---- read side: relay, bus (in-process or NATS JetStream), projections, rebuilds, reads (projections/) ----

export const readSideLimits = {
  // Relay (journal → bus).
  /** Journal entries read and published per relay round. */
  relayBatchEntriesMax: 500,
  /** The relay looks at the journal's tail at least this often without a wake-up (timer-fired commands). */
  relayPollMs: 10,
  /** Wait after a failed publish (bus down) before the relay tries again from its position. */
  relayRetryMs: 250,
  /** How often the relay looks again at a journal stream that is not this journal's (until it is deleted). */
  foreignStreamRecheckMs: 1 * second,
  /** How often a relay or projector that NATS does not answer says so. */
  natsWaitLogMs: 10 * second,
  /** The longest wait between two tries at setting the journal stream up (from relayRetryMs, doubling). */
  relaySetUpRetryMsMax: 10 * second,
  /** A JetStream publish not acknowledged within this is failed (and retried: Nats-Msg-Id dedupes). */
  relayPublishTimeoutMs: 5 * second,

  // Deliveries to a projection.
  /** max_deliver: deliveries of one entry before it is parked as poison. */
  deliveriesMax: 5,
  /** Wait before an entry that failed is delivered again, by delivery count (last value repeats). */
  redeliveryBackoffMs: [100, 250, 500, 1000] as readonly number[],
  /** ack_wait of the durable consumers: an unacknowledged delivery comes back after this. */
  ackWaitMs: 30 * second,
  /** max_ack_pending of the durable consumers: deliveries in flight per projection. */
  ackPendingDeliveriesMax: 2000,
  /** Messages one pull of a consumer asks for (the client's prefetch window). */
  pullMessagesMax: 500,
  /** A redelivery awaited longer than this is given up on, and the gap is filled from the journal. */
  redeliveryAwaitMsMax: 2 * 30 * second,
  /** Entries applied to a projection in one SQLite transaction (live and gap-fill). */
  applyEntriesPerTransactionMax: 2000,
  /** Journal entries a gap fill applies before it yields to the event loop. */
  gapFillEntriesPerTurnMax: 10_000,

  // JetStream stream.
  /** Window within which a re-published journal seq (Nats-Msg-Id) is dropped by the server. */
  streamDuplicateWindowMs: 10 * minute,
  /** Messages older than this leave the stream; a projection further behind fills from the journal. */
  streamMessageAgeMsMax: 7 * day,
  /** Waiting for nats-server to accept JetStream API calls (stream/consumer set-up). */
  natsApiTimeoutMs: 5 * second,
  /** Pause between reconnection attempts to nats-server (forever: writes never wait for NATS). */
  natsReconnectWaitMs: 250,

  /**
   * Entries of the journal stream past a backup that `satang restore --nats` lists (read
   * one by one); beyond, they are only counted (journal seqs are gapless).
   */
  restoreLostEntriesListedMax: 10_000,

  // Rebuild.
  /** Entries per SQLite transaction when a projection is replayed from the journal. */
  rebuildEntriesPerTransactionMax: 10_000,

  // Reads.
  /** Polling interval while a read waits for a projection to reach the write side's tail. */
  freshnessPollMs: 2,
  /** Balance history waits this long for its projection before answering 503 history_not_ready. */
  historyFreshnessWaitMs: 250,
  /** Lists and the events feed wait this long for their projection, then answer what they have. */
  listFreshnessWaitMs: 1000,
  /** Sandbox balance history keeps rows this many days (contract: retention_days 30). */
  sandboxHistoryRetentionDays: 30,
  sandboxHistoryRetentionMs: 30 * day,
  /**
   * The events feed projection drops an envelope this long after it was created: a day
   * after the write side drops it (webhookLimits.eventRetentionMs), so the write side has
   * always recorded what it dropped (the feed's coverage) before the feed stops showing it.
   */
  eventsFeedRetentionMs: webhookLimits.eventRetentionMs + day,
  /** The feed drops old envelopes once the oldest is this far past its retention: a minute's worth at a time. */
  eventsFeedPruneSlackMs: 1 * minute,
  /** Envelopes the feed drops per applied journal entry at most (it catches up entry by entry). */
  eventsFeedPruneRowsPerApplyMax: 500,
  /** Sandbox balance history quota per API key (contract: sandbox_rate_limited; its value is not shown). */
  sandboxHistoryRequestsPerWindowMax: 600,
  sandboxHistoryWindowSeconds: 60,
  /** Largest since_sequence (contract: 0..9223372036854775807). */
  sequenceMax: 9_223_372_036_854_775_807n,
  /** run_generation of a sandbox history request (contract: integer 1-2147483647). */
  runGenerationMax: 2_147_483_647,
} as const;

/** The back office (issue 15): operator views, logs and the action log. */
export const backOfficeLimits = {
  /** Caller-chosen text the action log keeps (an unmatched path, a refused token's claimed sub, a path parameter), in characters. */
  auditTextLengthMax: 200,
  /** Rows any one part of a deposit's timeline reads from the journal (entries, transactions, events, deliveries). */
  trailEntriesMax: 500,
  /** Review and approval queues: page size (same bounds as the merchant lists). */
  queuePageSizeDefault: 20,
  queuePageSizeMax: 200,
  /** A review waiting this long without escalation is estimated 'under_1h'; beyond the escalation, 'under_4h'; after this, 'extended'. */
  reviewExtendedAfterMs: 4 * hour,
  /**
   * The dashboard's histogram of review ages (review_queue.age_buckets): the upper edges of
   * its buckets, in seconds — under 5 min, 5–15 min, 15–60 min, 1–4 h — and the last
   * bucket, from reviewExtendedAfterMs on, is the contract's 'extended'.
   */
  reviewAgeBucketEdgesSeconds: [5 * 60, 15 * 60, 60 * 60, (4 * hour) / second] as readonly number[],
  /** Request logs: bytes of each request and response body kept (after redaction), and how long rows are kept. */
  requestLogBodyBytesMax: 2048,
  requestLogRetentionMs: 30 * day,
  /**
   * The request log is handed to its worker thread in batches: every this many ms, or at
   * this many rows, or once the batch's bodies reach this many characters (bodies travel
   * whole, to be cut on the worker); old rows are pruned every this many batches.
   */
  requestLogFlushIntervalMs: 100,
  requestLogFlushRowsMax: 500,
  requestLogFlushCharsMax: 1_000_000,
  requestLogPruneEveryFlushes: 50,
  /**
   * Rows handed over but not yet written (the worker is behind, or restarting): past this
   * many rows, or this many characters of bodies, a new row is dropped (counted and logged).
   */
  requestLogBacklogRowsMax: 20_000,
  requestLogBacklogCharsMax: 32_000_000,
  /** Wait before a request log worker that died is started again. */
  requestLogWorkerRetryMs: 1 * second,
  /** A read of the request log waits at most this long for the rows handed over before it to be written, then reads what is there. */
  requestLogReadWaitMsMax: 5 * second,
  /**
   * Rows an older build kept, redacted again under newer rules when the worker opens
   * logs.db: this many a transaction; the vacuum after waits this long for a reader's lock.
   */
  requestLogRedactAgainRowsMax: 500,
  requestLogVacuumBusyMs: 5 * second,
  /** A merchant's balance transactions (GET /v1/bo/merchants/:id/balance-transactions): page size. */
  balanceTransactionPageSizeDefault: 50,
  balanceTransactionPageSizeMax: 200,
  /** Request log and action log reads: page size. */
  logPageSizeDefault: 50,
  logPageSizeMax: 200,
} as const;

// ── Observability: metrics and readiness (server/metrics.ts, server/readiness.ts) ──

export const observabilityLimits = {
  /** A timer still pending this long after it fell due counts as overdue (the scheduler runs due timers within a second). */
  timerOverdueAfterMs: minute,
  /** GET /readyz is 503 while a projection is further than this behind the journal's tail. */
  readinessProjectionLagEntriesMax: 10_000,
  /** Once ready, GET /readyz is degraded while a projection behind the journal's tail has not moved for this long (seen across readiness checks). */
  readinessProjectionStallMs: 10 * second,
  /** GET /readyz is 503 this long after a journal commit failed (a full disk, an I/O error), unless one was written since. */
  readinessCommitFailureHoldMs: 15 * second,
  /** GET /readyz is 503 (journal disk_full) while the data dir's file system has less room than this for a journal commit and its WAL. */
  readinessDiskFreeBytesMin: 1024 * 1024,
  /** How often the relay worker thread tells the API whether NATS JetStream is connected. */
  busStatusReportMs: 500,
  /** Long CLI work (verify) reports its progress once per this many journal entries. */
  progressEntriesPerStep: 1000,
} as const;

// ── `satang listen` (server/routes/webhooks-listen.ts) ──

export const listenLimits = {
  /** An SSE comment this often keeps proxies and the CLI's idle detection from closing a quiet stream. */
  heartbeatMs: 15 * second,
} as const;

// ---- finance reports (issue 16: statements, trial balance, receiving accounts, reconcile) ----

export const financeLimits = {
  /** Statements and the trial balance speak of days in Asia/Bangkok: UTC+7, no daylight saving. */
  bangkokOffsetMs: 7 * hour,
  /** The longest statement period, in Bangkok days (a leap year): a year's close in one answer. */
  statementPeriodDaysMax: 366,
  /** The first day a report may name (no money moved before; the instants of earlier days fall outside what an ISO time can say). */
  reportDayMin: '1970-01-01',
  /** How long a report waits for the finance projections to apply what the write side had committed. */
  reportFreshnessWaitMs: 2 * second,
  /** Reads of the trial balance while payer_debts trails finance_ledger (each waits for it as above), then 503. */
  reportSnapshotAttemptsMax: 3,
  /** Balance transactions in one statement-lines report: a longer period is refused, to be asked in parts. */
  statementLinesMax: 100_000,
  /** Receiving accounts listed in one report (the busiest first). */
  receivingAccountsPerReportMax: 500,
  /** Legs shown per receiving account with a difference (the rest are counted). */
  receivingDifferencesListedMax: 200,
  /** Contract (Limits): a sequence gap older than this is a real loss; younger, it is pending. */
  sequenceGapLostAfterMs: 4 * day,
  /** Events pages the reconcile job reads in one run before it stops and says so. */
  reconcilePagesPerRunMax: 100_000,
  /** Objects the reconcile job compares with a GET in one run (the most recently changed). */
  reconcileObjectsCheckedMax: 1_000,
} as const;

// ---- the operator console's files (issue 17: server/console/static.ts) ----

export const consoleLimits = {
  /** Files read from console/ at startup (they are kept in memory: a bound on that memory). */
  filesMax: 200,
  /** Folder levels below console/ that are read (console/pages/ is one). */
  folderDepthMax: 3,
} as const;
