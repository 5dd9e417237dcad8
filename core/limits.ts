// Every limit of the service in one place, units last in the names. Values come from the
// contract's Limits table where it gives one, and from DESIGN.md's choices otherwise.

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;

export const limits = {
  // HMAC and idempotency (contract: Authentication, Limits)
  timestampSkewSecondsMax: 300,
  nonceMemoryMs: 10 * minute,
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
  legsPerDepositMax: 3,
  reviewEscalationMs: 1 * hour,
  reviewNoteLengthMin: 20,
  fourEyesAmountMinorMin: 5_000_000,
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
  beneficiaryVerificationMs: 30 * second,

  // Text fields
  referenceLengthMax: 64,
  metadataKeysMax: 20,
  metadataValueBytesMax: 500,
  metadataKeyLengthMax: 40,
  noteLengthMax: 2000,

  // Lists
  pageSizeDefault: 20,
  pageSizeMax: 200,
  balanceHistoryPageSizeMax: 100,

  // Write path: follow-up steps one command may cause (a settlement's fills and releases,
  // each release matching up to waitingDepositsMatchedPerCommandMax deposits of up to
  // legsPerDepositMax legs): far above any real chain, so hitting it means a loop.
  reactionsPerCommandMax: 1000,
} as const;

export const durations = { second, minute, hour, day } as const;
