// The slip adapters' limits in one place, units last in the names: the provider client's
// attempts and timeouts, the verification worker's batches and queue, the bank
// simulator's memory. Every loop, queue and retry of slip verification is bounded here.

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
  workerQueueLengthMax: 100_000,
  /** Wait before a slip whose verification failed on our side (store, journal) is tried again. */
  workerRetryDelayMs: 5_000,
  /** Transfers the bank simulator remembers. */
  simulatorTransfersMax: 100_000,
  /** A request body the standalone simulator reads. */
  simulatorRequestBytesMax: 64 * 1024,
  /** The mini-QR payload of a slip, in characters. */
  payloadLengthMax: 1_024,
} as const;
