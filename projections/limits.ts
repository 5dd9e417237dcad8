// The read side's limits in one place, units last in the names: the relay, the bus
// (in-process or NATS JetStream), the projection appliers, rebuilds and the reads that
// wait for the projections to catch up. Core's limits are in core/limits.ts, the write
// side's in adapters/limits.ts.

const second = 1000;
const minute = 60 * second;
const day = 24 * 60 * minute;

export const readSideLimits = {
  // ---- relay (journal → bus) ----
  /** Journal entries read and published per relay round. */
  relayBatchEntriesMax: 500,
  /** The relay looks at the journal's tail at least this often without a wake-up (timer-fired commands). */
  relayPollMs: 10,
  /** Wait after a failed publish (bus down) before the relay tries again from its position. */
  relayRetryMs: 250,
  /** A JetStream publish not acknowledged within this is failed (and retried: Nats-Msg-Id dedupes). */
  relayPublishTimeoutMs: 5 * second,

  // ---- deliveries to a projection ----
  /** max_deliver: deliveries of one entry before it is parked as poison. */
  deliveriesMax: 5,
  /** Wait before an entry that failed is delivered again, by delivery count (last value repeats). */
  redeliveryBackoffMs: [100, 250, 500, 1000] as readonly number[],
  /** ack_wait of the durable consumers: an unacknowledged delivery comes back after this. */
  ackWaitMs: 30 * second,
  /** max_ack_pending of the durable consumers: deliveries in flight per projection. */
  ackPendingMax: 2000,
  /** Messages one pull of a consumer asks for (the client's prefetch window). */
  pullMessagesMax: 500,
  /** A redelivery awaited longer than this is given up on, and the gap is filled from the journal. */
  redeliveryAwaitMsMax: 2 * 30 * second,
  /** Entries applied to a projection in one SQLite transaction (live and gap-fill). */
  applyEntriesPerTransactionMax: 2000,
  /** Journal entries a gap fill applies before it yields to the event loop. */
  gapFillEntriesPerTurnMax: 10_000,

  // ---- JetStream stream ----
  /** Window within which a re-published journal seq (Nats-Msg-Id) is dropped by the server. */
  streamDuplicateWindowMs: 10 * minute,
  /** Messages older than this leave the stream; a projection further behind fills from the journal. */
  streamMaxAgeMs: 7 * day,
  /** Waiting for nats-server to accept JetStream API calls (stream/consumer set-up). */
  natsApiTimeoutMs: 5 * second,
  /** Pause between reconnection attempts to nats-server (forever: writes never wait for NATS). */
  natsReconnectWaitMs: 250,

  // ---- rebuild ----
  /** Entries per SQLite transaction when a projection is replayed from the journal. */
  rebuildEntriesPerTransaction: 10_000,

  // ---- reads ----
  /** Polling interval while a read waits for a projection to reach the write side's tail. */
  freshnessPollMs: 2,
  /** Balance history waits this long for its projection before answering 503 history_not_ready. */
  historyFreshnessWaitMs: 250,
  /** Lists and the events feed wait this long for their projection, then answer what they have. */
  listFreshnessWaitMs: 1000,
  /** Sandbox balance history keeps rows this many days (contract: retention_days 30). */
  sandboxHistoryRetentionDays: 30,
  sandboxHistoryRetentionMs: 30 * day,
  /** Sandbox balance history quota per API key (contract: sandbox_rate_limited; its value is not shown). */
  sandboxHistoryRequestsPerWindowMax: 600,
  sandboxHistoryWindowSeconds: 60,
  /** Largest since_sequence (contract: 0..9223372036854775807). */
  sequenceMax: 9_223_372_036_854_775_807n,
  /** run_generation of a sandbox history request (contract: integer 1-2147483647). */
  runGenerationMax: 2_147_483_647,
} as const;
