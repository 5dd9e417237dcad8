// Every limit of webhook delivery in one place, units last in the names. Values come from
// the contract (Delivery rules, Limits, Webhook signatures); the rest are this module's
// own bounds on queues, batches and loops, each named with why it is what it is.

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;

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
  replayReleasePerSecond: 50,
  /** Out-of-order test events are released this far apart, in the order the case names. */
  outOfOrderSpacingMs: 1 * second,

  // Contract: Webhook signatures.
  keyRotationNoticeMs: 7 * day,
  /** A rotation may be announced sooner in an emergency, never with less notice than this. */
  keyRotationNoticeMsMin: 1 * minute,
  /** Retired signing keys stay listed this long after they stop signing (event retention). */
  retiredKeyListedMs: 30 * day,

  // Endpoint URLs.
  endpointUrlLengthMax: 2048,
  endpointsPerMerchantMax: 16,
  eventTypesPerEndpointMax: 64,

  // The dispatcher's own bounds.
  /** Requests in flight at once, over all endpoints. */
  inFlightDeliveriesMax: 512,
  /** Requests in flight at once to one endpoint: a slow receiver cannot take every slot. */
  inFlightPerEndpointMax: 64,
  /** Outbox events fanned out into deliveries per transaction. */
  fanOutEventsPerBatchMax: 500,
  /** Fan-out batches per pump before the dispatcher yields to the event loop. */
  fanOutBatchesPerPumpMax: 20,
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

/** The five events a subscription can never leave out (contract: Events). */
export const mandatoryEventTypes: ReadonlySet<string> = new Set([
  'deposit.reversed', 'withdrawal.fill_reversed', 'balance.debited', 'webhook.key.rotating', 'webhook.endpoint.disabled',
]);

/** Contract: Delivery rules, "Success": these statuses only. */
export const successStatuses: ReadonlySet<number> = new Set([200, 201, 202, 204]);
