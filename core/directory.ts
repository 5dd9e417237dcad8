// The directory: white labels (brand, fee schedule, amount policy, gateway route),
// merchants, beneficiaries, saved senders, bank availability and claims. These change
// through journal events like everything else, so a replay rebuilds them too.

import type { Claim, ClaimEvent } from './claim/state.ts';
import type { AmountPolicy, FeeSchedule, Minor } from './money.ts';

export interface GatewayRoute {
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly accountName: string;
  readonly expiresAt: number;
}

/** A gateway route one operator asked for, waiting for a second to approve it (four eyes). */
export interface GatewayRouteProposal {
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly accountName: string;
  readonly ttlSeconds: number;
  readonly proposedBy: string;
  readonly proposedAt: number;
}

/**
 * Whether a proposal (a gateway route, a fee schedule, an adjustment) may still be approved
 * at `now`: it lapses `ttlMs` after it was made. Pure: the caller reads the clock.
 */
export function proposalWaiting<P extends { readonly proposedAt: number }>(p: P | undefined, ttlMs: number, now: number): p is P {
  return p !== undefined && now < p.proposedAt + ttlMs;
}

/**
 * A fee schedule and amount limits one operator asked for, waiting for a second to approve
 * them (four eyes): every fee the white label charges from then on is reckoned from them.
 */
export interface FeeScheduleProposal {
  readonly fees: FeeSchedule;
  readonly amounts: AmountPolicy;
  readonly proposedBy: string;
  readonly proposedAt: number;
}

export interface WhiteLabel {
  readonly id: string;
  readonly name: string;
  readonly fees: FeeSchedule;
  readonly amounts: AmountPolicy;
  readonly gatewayRoute?: GatewayRoute;
  readonly gatewayRouteProposal?: GatewayRouteProposal;
  readonly feeScheduleProposal?: FeeScheduleProposal;
  readonly version: number;
  readonly createdAt: number;
}

/** A live credit adjustment waiting for a second operator (limits.adjustmentFourEyesMinorMin). */
export interface AdjustmentProposal {
  readonly id: string;
  readonly livemode: boolean;
  readonly amountMinor: Minor;
  readonly reasonCode: string;
  readonly reason: string;
  readonly proposedBy: string;
  readonly proposedAt: number;
  /** Proposed although under the amount: what its proposer had credited alone in the window before it (limits.adjustmentSoloWindowMs). */
  readonly proposerRecentMinor?: Minor;
}

export interface Merchant {
  readonly id: string;
  readonly whiteLabelId: string;
  readonly name: string;
  readonly suspended: boolean;
  /** Live credits proposed and not yet approved (nor lapsed: a proposal lapses after limits.adjustmentProposalTtlMs). */
  readonly adjustmentProposals?: readonly AdjustmentProposal[];
  readonly technicalContactEmail?: string;
  /** The merchant's sandbox run (contract: sandbox balance history); absent until the first reset = 1. */
  readonly sandboxRunGeneration?: number;
  /** The restore (restored.json's id) whose sequence jump was journaled last for this merchant (SequencesAdvancedAfterRestore). */
  readonly sequencesAdvancedFor?: string;
  readonly version: number;
  readonly createdAt: number;
}

/** run_generation of a merchant's sandbox history (contract: integer 1-2147483647). */
export const sandboxRunGenerationFirst = 1;
export const sandboxRunGenerationMax = 2_147_483_647;

export function sandboxRunGenerationOf(m: Merchant): number {
  return m.sandboxRunGeneration ?? sandboxRunGenerationFirst;
}

export interface Beneficiary {
  readonly id: string;
  readonly merchantId: string;
  readonly livemode: boolean;
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly accountNameTh: string;
  readonly promptpayId?: string;
  readonly status: 'pending_verification' | 'verified';
  readonly version: number;
  readonly createdAt: number;
  readonly verifiedAt?: number;
}

export interface SavedSender {
  readonly id: string;
  readonly merchantId: string;
  readonly livemode: boolean;
  readonly endUserRef: string;
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly accountNameTh: string;
  readonly verifiedAt: number;
  readonly version: number;
}

// Claims are an aggregate of their own (core/claim/); their opening is recorded here with
// the other records, and their events ride the same record path.
export type { Claim } from './claim/state.ts';

/**
 * Why an operator adjusted a merchant's balance, as the merchant sees it (reason_code, with
 * reason_display_th): a closed catalogue, so the operator's own words (the adjustment's
 * `reason`) stay with the operators.
 */
export const adjustmentReasons: Readonly<Record<string, string>> = {
  FUNDING: 'เติมเงินเข้าบัญชี',
  SETTLEMENT_CORRECTION: 'ปรับปรุงยอดรายการชำระเงิน',
  FEE_CORRECTION: 'ปรับปรุงค่าธรรมเนียม',
  GOODWILL_CREDIT: 'เครดิตชดเชยจากผู้ให้บริการ',
  LOSS_RECOVERY: 'เรียกคืนค่าเสียหาย',
  MANUAL_ADJUSTMENT: 'ปรับปรุงยอดโดยเจ้าหน้าที่',
};
export const adjustmentReasonDefault = 'MANUAL_ADJUSTMENT';

/**
 * The reasons that say which way the money went: a funding or a goodwill credit is money
 * in, a loss recovered is money out; a merchant reading "เติมเงินเข้าบัญชี" on a debit would
 * be told the opposite of what happened. The corrections and the manual adjustment go
 * either way.
 */
export const adjustmentReasonDirection: Readonly<Record<string, 'credit' | 'debit'>> = { FUNDING: 'credit', GOODWILL_CREDIT: 'credit', LOSS_RECOVERY: 'debit' };

export interface Bank {
  readonly bankCode: string;
  readonly nameTh: string;
  readonly nameEn: string;
  readonly side: readonly ('sender' | 'receiver')[];
}

/** Thai banks that take part in PromptPay transfers (codes of the Bank of Thailand). */
export const banks: readonly Bank[] = [
  { bankCode: '002', nameTh: 'ธนาคารกรุงเทพ', nameEn: 'Bangkok Bank', side: ['sender', 'receiver'] },
  { bankCode: '004', nameTh: 'ธนาคารกสิกรไทย', nameEn: 'Kasikornbank', side: ['sender', 'receiver'] },
  { bankCode: '006', nameTh: 'ธนาคารกรุงไทย', nameEn: 'Krungthai Bank', side: ['sender', 'receiver'] },
  { bankCode: '011', nameTh: 'ธนาคารทหารไทยธนชาต', nameEn: 'TMBThanachart Bank', side: ['sender', 'receiver'] },
  { bankCode: '014', nameTh: 'ธนาคารไทยพาณิชย์', nameEn: 'Siam Commercial Bank', side: ['sender', 'receiver'] },
  { bankCode: '025', nameTh: 'ธนาคารกรุงศรีอยุธยา', nameEn: 'Bank of Ayudhya', side: ['sender', 'receiver'] },
  { bankCode: '030', nameTh: 'ธนาคารออมสิน', nameEn: 'Government Savings Bank', side: ['sender', 'receiver'] },
  { bankCode: '069', nameTh: 'ธนาคารเกียรตินาคินภัทร', nameEn: 'Kiatnakin Phatra Bank', side: ['sender'] },
];

/** What end users are told of a sending bank down when the operator gave no message. */
export const bankDownMessageThDefault = 'ธนาคารของท่านปิดรับรายการชั่วคราว กรุณาเลือกธนาคารอื่น';

export function bankByCode(code: string): Bank | undefined {
  return banks.find((b) => b.bankCode === code);
}

export type DirectoryEvent =
  | { readonly type: 'WhiteLabelRegistered'; readonly at: number; readonly whiteLabel: Omit<WhiteLabel, 'version'> }
  | { readonly type: 'GatewayRouteProposed'; readonly at: number; readonly whiteLabelId: string; readonly proposal: GatewayRouteProposal }
  /** proposedBy and approvedBy: the two operators (absent on routes set before four eyes). */
  | { readonly type: 'GatewayRouteSet'; readonly at: number; readonly whiteLabelId: string; readonly route: GatewayRoute; readonly proposedBy?: string; readonly approvedBy?: string }
  | { readonly type: 'FeeScheduleProposed'; readonly at: number; readonly whiteLabelId: string; readonly proposal: FeeScheduleProposal }
  /** The schedule in force from `at`: a fee already booked, or pinned on an open withdrawal, keeps the one it was reckoned from. */
  | { readonly type: 'FeeScheduleSet'; readonly at: number; readonly whiteLabelId: string; readonly fees: FeeSchedule; readonly amounts: AmountPolicy; readonly proposedBy: string; readonly approvedBy: string }
  | { readonly type: 'MerchantRegistered'; readonly at: number; readonly merchant: Omit<Merchant, 'version'> }
  | { readonly type: 'MerchantSuspensionChanged'; readonly at: number; readonly merchantId: string; readonly suspended: boolean; readonly operatorId?: string; readonly reason?: string }
  /** POST /v1/test/sandbox/reset: the merchant's sandbox history view starts a new run (sequences restart). */
  | { readonly type: 'SandboxRunReset'; readonly at: number; readonly merchantId: string; readonly runGeneration: number }
  /**
   * The first start after a restore: the merchant's event sequences (both modes' outbox
   * counters, adapters/sqlite/writer.ts) and balance-history sequences (both modes,
   * projections/balance-history.ts) go on `by` further, past any the lost tail gave out.
   * sandboxRunGeneration: the sandbox's run generation from now on, past any a reset in the
   * lost tail took (the sandbox history starts that run, as at a reset); absent in entries
   * journaled before it was (their run generation stays). restoreId names the restore
   * (restored.json), so a start journals it once.
   */
  | { readonly type: 'SequencesAdvancedAfterRestore'; readonly at: number; readonly merchantId: string; readonly restoreId: string; readonly backupTakenAt: number; readonly by: number; readonly sandboxRunGeneration?: number }
  | { readonly type: 'AdjustmentProposed'; readonly at: number; readonly merchantId: string; readonly proposal: AdjustmentProposal }
  /** The second operator's approval; the adjustment's balance transaction is posted by the same command. */
  | { readonly type: 'AdjustmentApproved'; readonly at: number; readonly merchantId: string; readonly proposalId: string; readonly approvedBy: string; readonly balanceTransactionId: string }
  | { readonly type: 'BeneficiaryRegistered'; readonly at: number; readonly beneficiary: Omit<Beneficiary, 'version'> }
  | { readonly type: 'BeneficiaryVerified'; readonly at: number; readonly beneficiaryId: string }
  | { readonly type: 'SenderRegistered'; readonly at: number; readonly sender: Omit<SavedSender, 'version'> }
  | { readonly type: 'BankAvailabilityChanged'; readonly at: number; readonly bankCode: string; readonly available: boolean; readonly messageTh?: string }
  | { readonly type: 'ClaimOpened'; readonly at: number; readonly claim: Omit<Claim, 'version' | 'updatedAt'> }
  | ClaimEvent;
