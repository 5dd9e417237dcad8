// The adapters' limits in one place, units last in the names (core's limits live in
// core/limits.ts). Every queue, batch and loop of the write side is bounded by one of these.

export const adapterLimits = {
  /** Commands in one group-commit transaction; a longer queue is flushed in several. */
  groupCommitCommandsMax: 1000,
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
  /** The scheduler looks again at least this often, whatever the next due time. */
  schedulerPollMsMax: 1000,
  /** verify: mismatches listed in the report (the count is always exact). */
  verifyMismatchesListedMax: 100,
} as const;
