// The commands the outside world sends to the core: from the merchant API, the back
// office, the slip verification worker and the timer scheduler. Each names its actor;
// a merchant may only touch its own objects in its own mode (others are "not found").

import type { Minor } from '../money.ts';
import type { ClaimKind, RefundAccount } from '../claim/state.ts';
import type { ClaimTransition } from '../claim/decide.ts';
import type { LegAmount, ReversalReasonCode, Sender } from '../deposit/state.ts';
import type { ClaimRefundsOnReversal, VerificationOutcome } from '../deposit/decide.ts';
import type { Bucket } from '../ledger/ledger.ts';
import type { AmountPolicy, FeeSchedule } from '../money.ts';
import type { DisputeEvidenceFile } from '../withdrawal/state.ts';
import type { FeeTerms } from '../directory/fee-schedule.ts';

export type Actor =
  | { readonly kind: 'merchant'; readonly merchantId: string; readonly livemode: boolean }
  | { readonly kind: 'operator'; readonly operatorId: string }
  | { readonly kind: 'system' };

/**
 * A merchant sees only its own objects in its own mode; anything else is "not found"
 * (the contract does not tell a missing id from another tenant's on purpose).
 */
export function visibleTo<T extends { readonly merchantId: string; readonly livemode: boolean }>(actor: Actor, object: T | undefined): T | undefined {
  if (!object) return undefined;
  if (actor.kind === 'merchant' && (object.merchantId !== actor.merchantId || object.livemode !== actor.livemode)) return undefined;
  return object;
}

export type Command =
  | { readonly type: 'RegisterWhiteLabel'; readonly actor: Actor; readonly name: string; readonly fees?: FeeSchedule; readonly amounts?: AmountPolicy }
  | { readonly type: 'SetGatewayRoute'; readonly actor: Actor; readonly whiteLabelId: string; readonly bankCode: string; readonly accountNumber: string; readonly accountName: string; readonly ttlSeconds: number }
  /** The second operator approves the proposed route, naming the account it pays, as they read it. */
  | { readonly type: 'ApproveGatewayRoute'; readonly actor: Actor; readonly whiteLabelId: string; readonly bankCode: string; readonly accountNumber: string }
  /** One operator proposes the white label's fee schedule and amount limits (limits not given stay); ApproveFeeSchedule sets them. */
  | { readonly type: 'SetFeeSchedule'; readonly actor: Actor; readonly whiteLabelId: string; readonly terms: FeeTerms }
  /** The second operator approves the proposed schedule, naming every figure it changes, as they read it. */
  | { readonly type: 'ApproveFeeSchedule'; readonly actor: Actor; readonly whiteLabelId: string; readonly terms: FeeTerms }
  | { readonly type: 'RegisterMerchant'; readonly actor: Actor; readonly whiteLabelId: string; readonly name: string; readonly technicalContactEmail?: string }
  | { readonly type: 'SetMerchantSuspended'; readonly actor: Actor; readonly merchantId: string; readonly suspended: boolean; readonly reason?: string }
  | { readonly type: 'ResetSandboxRun'; readonly actor: Actor & { kind: 'merchant' } }
  /** The first start after a restore (restored.json): every merchant's sequences jump past the lost tail's (SequencesAdvancedAfterRestore). */
  | { readonly type: 'AdvanceSequencesAfterRestore'; readonly actor: Actor & { kind: 'system' }; readonly restoreId: string; readonly backupTakenAt: number }
  | { readonly type: 'RegisterBeneficiary'; readonly actor: Actor; readonly merchantId: string; readonly livemode: boolean; readonly bankCode: string; readonly accountNumber: string; readonly accountNameTh: string; readonly promptpayId?: string; readonly verified: boolean }
  | { readonly type: 'VerifyBeneficiary'; readonly actor: Actor; readonly beneficiaryId: string }
  | { readonly type: 'RegisterSender'; readonly actor: Actor; readonly merchantId: string; readonly livemode: boolean; readonly endUserRef: string; readonly bankCode: string; readonly accountNumber: string; readonly accountNameTh: string }
  | { readonly type: 'SetBankAvailability'; readonly actor: Actor; readonly bankCode: string; readonly available: boolean; readonly messageTh?: string }
  /** A large live credit, as the back office takes it (limits.adjustmentFourEyesMinorMin): posted by ApproveAdjustment. */
  | { readonly type: 'ProposeAdjustment'; readonly actor: Actor; readonly merchantId: string; readonly amountMinor: Minor; readonly reasonCode: string; readonly reason: string }
  | { readonly type: 'ApproveAdjustment'; readonly actor: Actor; readonly merchantId: string; readonly proposalId: string; readonly amountMinor: Minor }
  | {
    readonly type: 'PostAdjustment'; readonly actor: Actor; readonly merchantId: string; readonly livemode: boolean; readonly amountMinor: Minor; readonly direction: 'credit' | 'debit'; readonly bucket: Bucket; readonly reasonCode: string; readonly reason: string;
    /**
     * As the back office sends a live credit: one that would bring its operator's own live
     * credits within limits.adjustmentSoloWindowMs to limits.adjustmentFourEyesMinorMin is
     * proposed instead (as ProposeAdjustment), for a second operator's approval.
     */
    readonly fourEyesByTotal?: boolean;
  }
  | {
    readonly type: 'CreateDeposit'; readonly actor: Actor & { kind: 'merchant' };
    readonly amountMinor: Minor; readonly merchantReference: string; readonly endUserRef: string;
    readonly sender?: Sender; readonly senderId?: string; readonly hasClientData: boolean;
    readonly fillPreference?: 'any' | 'internal_only'; readonly expiresInSeconds?: number; readonly minTtlSeconds?: number;
    readonly metadata?: Readonly<Record<string, string>>; readonly returnUrl?: string;
  }
  | { readonly type: 'CancelDeposit'; readonly actor: Actor; readonly depositId: string; readonly reason?: string }
  | { readonly type: 'ReceiveSlip'; readonly actor: Actor; readonly depositId: string; readonly receiptId: string; readonly hasImage: boolean; readonly transRef?: string }
  | { readonly type: 'RecordSlipVerification'; readonly actor: Actor; readonly depositId: string; readonly receiptId: string; readonly outcome: VerificationOutcome }
  | { readonly type: 'ApproveDepositReview'; readonly actor: Actor & { kind: 'operator' }; readonly depositId: string; readonly note: string; readonly transferredAmountMinor?: Minor; readonly legAmounts?: readonly LegAmount[]; readonly expectedVersion?: number }
  | { readonly type: 'DeclineDepositReview'; readonly actor: Actor & { kind: 'operator' }; readonly depositId: string; readonly note: string }
  | { readonly type: 'ConfirmGatewayRoute'; readonly actor: Actor; readonly depositId: string; readonly transRef: string; readonly amountMinor: Minor }
  /** `claimRefunds`: what the operator says of the deposit's claims' refunds already paid (deposit/decide.ts reverse). */
  | { readonly type: 'ReverseDeposit'; readonly actor: Actor; readonly depositId: string; readonly reasonCode: ReversalReasonCode; readonly note: string; readonly claimRefunds?: ClaimRefundsOnReversal }
  | {
    readonly type: 'CreateWithdrawal'; readonly actor: Actor & { kind: 'merchant' };
    readonly amountMinor: Minor; readonly merchantReference: string; readonly endUserRef: string; readonly beneficiaryId: string;
    readonly metadata?: Readonly<Record<string, string>>; readonly requiresApproval: boolean; readonly p2pMinimumApplies: boolean;
  }
  | { readonly type: 'ApproveWithdrawal'; readonly actor: Actor & { kind: 'operator' }; readonly withdrawalId: string; readonly note?: string }
  | { readonly type: 'RejectWithdrawal'; readonly actor: Actor & { kind: 'operator' }; readonly withdrawalId: string; readonly note?: string }
  | { readonly type: 'CancelWithdrawal'; readonly actor: Actor; readonly withdrawalId: string; readonly note?: string }
  | { readonly type: 'ReverseFill'; readonly actor: Actor; readonly withdrawalId: string; readonly legRef: string; readonly reasonCode: string; readonly note: string }
  | { readonly type: 'ConfirmReceipt'; readonly actor: Actor; readonly withdrawalId: string; readonly legRef: string }
  | { readonly type: 'OpenDispute'; readonly actor: Actor; readonly withdrawalId: string; readonly reasonCode: string; readonly amountMinor: Minor; readonly respondBy?: number }
  | { readonly type: 'SubmitDisputeEvidence'; readonly actor: Actor; readonly disputeId: string; readonly text: string; readonly fileCount: number; readonly files?: readonly DisputeEvidenceFile[] }
  | { readonly type: 'ResolveDispute'; readonly actor: Actor; readonly disputeId: string; readonly outcome: string; readonly note?: string }
  | { readonly type: 'FireTimer'; readonly actor: Actor; readonly timerId: string }
  | { readonly type: 'OpenClaim'; readonly actor: Extract<Actor, { kind: 'operator' }>; readonly kind: ClaimKind; readonly depositId: string; readonly amountMinor: Minor; readonly note: string; readonly evidence?: string }
  /** `refundAccount`: where a refund goes when it is not the order's sender (the payer's own account, as they confirmed it). */
  | { readonly type: 'DecideClaim'; readonly actor: Extract<Actor, { kind: 'operator' }>; readonly claimId: string; readonly transition: ClaimTransition; readonly note: string; readonly amountMinor?: Minor; readonly refundAccount?: RefundAccount }
  /** A write-off of what a claim's payer owes back (core/claim/write-off.ts): `amountMinor` absent, all of it; a second operator approves it. */
  | { readonly type: 'ProposeWriteOff'; readonly actor: Extract<Actor, { kind: 'operator' }>; readonly claimId: string; readonly note: string; readonly amountMinor?: Minor }
  | { readonly type: 'ApproveWriteOff'; readonly actor: Extract<Actor, { kind: 'operator' }>; readonly claimId: string; readonly proposalId: string; readonly amountMinor: Minor; readonly note?: string };

export type CommandType = Command['type'];
