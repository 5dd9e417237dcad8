// The directory decider: white labels, merchants, beneficiaries, saved senders, bank
// availability, sandbox resets, suspension and operators' adjustments. decide(command,
// reads, at, ids) → the records to write (and, for an adjustment, what it posts) or a
// refusal naming the contract's error code. The handler gives it read access to the
// directory and the wallets it needs; ids are drawn only once a command is accepted, so
// a refused command uses none.

import { isRejection, reject, type Rejection } from '../errors.ts';
import type { Command } from '../handler/commands.ts';
import type { JournalEntry, StreamKind, Timer } from '../journal.ts';
import type { Balances } from '../ledger/ledger.ts';
import { adjustmentPostings, type Postings } from '../ledger/postings.ts';
import { limits } from '../limits.ts';
import { checkMerchantCredit, defaultAmountPolicy, defaultFeeSchedule, minorToJson, type Minor } from '../money.ts';
import type { Ids } from '../ports.ts';
import { adjustmentReasonDirection, adjustmentReasons, bankByCode, proposalWaiting, sandboxRunGenerationMax, sandboxRunGenerationOf, type AdjustmentProposal, type Beneficiary, type DirectoryEvent, type Merchant, type WhiteLabel } from '../directory.ts';
import { sameOperator } from '../operators.ts';
import { approvalRefusal, feeScheduleOf, sameTerms } from './fee-schedule.ts';

export type DirectoryCommand = Extract<Command, {
  type: 'RegisterWhiteLabel' | 'SetGatewayRoute' | 'ApproveGatewayRoute' | 'SetFeeSchedule' | 'ApproveFeeSchedule' | 'RegisterMerchant' | 'SetMerchantSuspended' | 'ResetSandboxRun' | 'AdvanceSequencesAfterRestore'
    | 'RegisterBeneficiary' | 'VerifyBeneficiary' | 'RegisterSender' | 'SetBankAvailability' | 'PostAdjustment' | 'ProposeAdjustment' | 'ApproveAdjustment';
}>;

/** What the directory decider may read: the directory and a merchant's wallet. */
export interface DirectoryReads {
  hasWhiteLabel(id: string): boolean;
  whiteLabel(id: string): WhiteLabel | undefined;
  merchant(id: string): Merchant | undefined;
  /** Every merchant (the sequences a restore advances are every merchant's). */
  merchants(): Iterable<Merchant>;
  beneficiary(id: string): Beneficiary | undefined;
  balances(merchantId: string, livemode: boolean): Balances;
  nextClearingAt(merchantId: string, livemode: boolean): number | null;
  /** What the operator credited to live wallets on their word alone after `sinceMs` (core/solo-credits.ts). */
  soloLiveCreditsMinor(operatorId: string, sinceMs: number): Minor;
}

/** One record entry to write: its stream, kind, mode and merchant as the journal keeps them. */
export interface RecordWrite {
  readonly stream: string;
  readonly kind: StreamKind;
  readonly livemode: JournalEntry['livemode'];
  readonly merchantId: string | null;
  readonly event: DirectoryEvent;
}

export interface DirectoryChange {
  readonly objectId?: string;
  readonly records: readonly RecordWrite[];
  readonly postings?: Postings;
  readonly timer?: Timer;
}

export type DirectoryDecision = DirectoryChange | Rejection;

const notFound = (what: string): Rejection => reject('resource_not_found', `No such ${what}.`);

/** A decision that records one event on a white label's stream (white labels have no mode and no merchant). */
const onWhiteLabel = (id: string, event: DirectoryEvent): DirectoryChange =>
  ({ objectId: id, records: [{ stream: id, kind: 'white_label', livemode: null, merchantId: null, event }] });

export function decide(c: DirectoryCommand, reads: DirectoryReads, at: number, ids: Ids): DirectoryDecision {
  switch (c.type) {
    case 'RegisterWhiteLabel': {
      const id = ids.next('wl');
      const whiteLabel = { id, name: c.name, fees: c.fees ?? defaultFeeSchedule, amounts: c.amounts ?? defaultAmountPolicy, createdAt: at };
      return onWhiteLabel(id, { type: 'WhiteLabelRegistered', at, whiteLabel });
    }
    case 'SetGatewayRoute': {
      if (!reads.hasWhiteLabel(c.whiteLabelId)) return notFound('white label');
      const unknownBank = checkBank(c.bankCode, 'receiver');
      if (unknownBank) return unknownBank;
      // Every fallback deposit of the white label pays this account: one operator proposes
      // it, a second approves it (ApproveGatewayRoute); a new proposal replaces a waiting one.
      const proposal = { bankCode: c.bankCode, accountNumber: c.accountNumber, accountName: c.accountName, ttlSeconds: c.ttlSeconds, proposedBy: operatorIdOf(c.actor), proposedAt: at };
      return onWhiteLabel(c.whiteLabelId, { type: 'GatewayRouteProposed', at, whiteLabelId: c.whiteLabelId, proposal });
    }
    case 'ApproveGatewayRoute': return approveGatewayRoute(c, reads, at);
    case 'SetFeeSchedule': return proposeFeeSchedule(c, reads, at);
    case 'ApproveFeeSchedule': return approveFeeSchedule(c, reads, at);
    case 'RegisterMerchant': return registerMerchant(c, reads, at, ids);
    case 'SetMerchantSuspended': {
      const m = reads.merchant(c.merchantId);
      if (!m) return notFound('merchant');
      if (m.suspended === c.suspended) return { objectId: m.id, records: [] };
      // Who suspended (or lifted it) and why stay on the journal's event, as for every operator decision.
      const by = c.actor.kind === 'operator' ? { operatorId: c.actor.operatorId } : {};
      const event = { type: 'MerchantSuspensionChanged' as const, at, merchantId: m.id, suspended: c.suspended, ...by, ...(c.reason !== undefined ? { reason: c.reason } : {}) };
      return { objectId: m.id, records: [{ stream: m.id, kind: 'merchant', livemode: null, merchantId: m.id, event }] };
    }
    case 'ResetSandboxRun': return resetSandboxRun(c, reads, at);
    case 'AdvanceSequencesAfterRestore': return advanceSequencesAfterRestore(c, reads, at);
    case 'RegisterBeneficiary': return registerBeneficiary(c, reads, at, ids);
    case 'VerifyBeneficiary': {
      const b = reads.beneficiary(c.beneficiaryId);
      if (!b) return notFound('beneficiary');
      return { objectId: b.id, records: b.status === 'verified' ? [] : [beneficiaryVerified(b, at)] };
    }
    case 'RegisterSender': {
      if (!reads.merchant(c.merchantId)) return notFound('merchant');
      const unknownBank = checkBank(c.bankCode, 'sender');
      if (unknownBank) return unknownBank;
      const id = ids.next('snd');
      const sender = { id, merchantId: c.merchantId, livemode: c.livemode, endUserRef: c.endUserRef, bankCode: c.bankCode, accountNumber: c.accountNumber, accountNameTh: c.accountNameTh, verifiedAt: at };
      return { objectId: id, records: [{ stream: id, kind: 'sender', livemode: c.livemode, merchantId: c.merchantId, event: { type: 'SenderRegistered', at, sender } }] };
    }
    case 'SetBankAvailability': {
      const event: DirectoryEvent = { type: 'BankAvailabilityChanged', at, bankCode: c.bankCode, available: c.available, ...(c.messageTh ? { messageTh: c.messageTh } : {}) };
      return { records: [{ stream: `bank_${c.bankCode}`, kind: 'bank', livemode: null, merchantId: null, event }] };
    }
    case 'PostAdjustment': return postAdjustment(c, reads, ids, at);
    case 'ProposeAdjustment': return proposeAdjustment(c, reads, ids, at);
    case 'ApproveAdjustment': return approveAdjustment(c, reads, ids, at);
    default: {
      const _exhaustive: never = c;
      return _exhaustive;
    }
  }
}

/** A beneficiary's verification (by an operator, or by its timer). */
export function beneficiaryVerified(b: Beneficiary, at: number): RecordWrite {
  return { stream: b.id, kind: 'beneficiary', livemode: b.livemode, merchantId: b.merchantId, event: { type: 'BeneficiaryVerified', at, beneficiaryId: b.id } };
}

function registerMerchant(c: Extract<DirectoryCommand, { type: 'RegisterMerchant' }>, reads: DirectoryReads, at: number, ids: Ids): DirectoryDecision {
  if (!reads.hasWhiteLabel(c.whiteLabelId)) {
    return reject('validation_error', 'Unknown white label.', { fields: [{ path: 'white_label_id', reason: 'not_found' }] });
  }
  const id = ids.next('mch');
  const merchant = { id, whiteLabelId: c.whiteLabelId, name: c.name, suspended: false, createdAt: at, ...(c.technicalContactEmail ? { technicalContactEmail: c.technicalContactEmail } : {}) };
  return { objectId: id, records: [{ stream: id, kind: 'merchant', livemode: null, merchantId: id, event: { type: 'MerchantRegistered', at, merchant } }] };
}

function resetSandboxRun(c: Extract<DirectoryCommand, { type: 'ResetSandboxRun' }>, reads: DirectoryReads, at: number): DirectoryDecision {
  const m = reads.merchant(c.actor.merchantId);
  if (!m) return notFound('merchant');
  if (c.actor.livemode) return reject('operation_not_allowed', 'A sandbox run is reset with a sandbox key only.');
  const runGeneration = sandboxRunGenerationOf(m) + 1;
  if (runGeneration > sandboxRunGenerationMax) return reject('operation_not_allowed', `run_generation cannot pass ${sandboxRunGenerationMax}.`);
  return { objectId: m.id, records: [{ stream: m.id, kind: 'merchant', livemode: false, merchantId: m.id, event: { type: 'SandboxRunReset', at, merchantId: m.id, runGeneration } }] };
}

/**
 * One entry per merchant, on its own stream (so a shard of merchants journals its own):
 * its sequences jump by limits.sequenceJumpAfterRestore. A merchant that has this restore's
 * jump already is left out, so a start that journaled it and crashed before it removed
 * restored.json journals nothing the second time.
 */
function advanceSequencesAfterRestore(c: Extract<DirectoryCommand, { type: 'AdvanceSequencesAfterRestore' }>, reads: DirectoryReads, at: number): DirectoryDecision {
  if (c.restoreId === '') return reject('validation_error', 'A restore is named by its id.');
  const records: RecordWrite[] = [];
  for (const m of reads.merchants()) {
    if (m.sequencesAdvancedFor === c.restoreId) continue;
    // At the ceiling a reset is refused anyway; the run stays there rather than pass it.
    const sandboxRunGeneration = Math.min(sandboxRunGenerationOf(m) + limits.runGenerationJumpAfterRestore, sandboxRunGenerationMax);
    const event = { type: 'SequencesAdvancedAfterRestore' as const, at, merchantId: m.id, restoreId: c.restoreId, backupTakenAt: c.backupTakenAt, by: limits.sequenceJumpAfterRestore, sandboxRunGeneration };
    records.push({ stream: m.id, kind: 'merchant', livemode: null, merchantId: m.id, event });
  }
  return { records };
}

function operatorIdOf(actor: Command['actor']): string {
  return actor.kind === 'operator' ? actor.operatorId : actor.kind;
}

/** A white label's proposal that `approver` may approve: one waiting (within `ttlMs`), and not their own (four eyes). */
function waitingFor<P extends { readonly proposedBy: string; readonly proposedAt: number }>(approver: string, p: P | undefined, ttlMs: number, at: number, what: string): P | Rejection {
  if (!proposalWaiting(p, ttlMs, at)) {
    return reject('operation_not_allowed', `No ${what} waits for approval on this white label (a proposal lapses after 24 hours); propose one first.`);
  }
  if (sameOperator(approver, p.proposedBy)) {
    return reject('operation_not_allowed', `The operator who proposed a ${what} cannot approve it: a second operator does.`, { proposed_by: p.proposedBy });
  }
  return p;
}

/**
 * An approval naming another account than the route proposed. Pure, so the route asks it
 * before the step-up too: a body refused for what it says spends none (README, Token bounds).
 */
export function gatewayRouteMismatch(p: { readonly bankCode: string; readonly accountNumber: string }, bankCode: string, accountNumber: string): Rejection | null {
  if (bankCode === p.bankCode && accountNumber === p.accountNumber) return null;
  return reject('validation_error', 'The account approved is not the one proposed; read the proposal again and approve the account it names.', {
    fields: [{ path: bankCode !== p.bankCode ? 'bank_code' : 'account_number', reason: 'mismatch' }],
  });
}

/** An approval naming another amount than the adjustment proposed (asked before the step-up too, as gatewayRouteMismatch). */
export function adjustmentMismatch(p: { readonly amountMinor: Minor }, amountMinor: Minor): Rejection | null {
  if (amountMinor === p.amountMinor) return null;
  return reject('validation_error', 'The amount approved is not the one proposed; read the proposal again and approve the amount it names.', { fields: [{ path: 'amount_minor', reason: 'mismatch' }] });
}

function approveGatewayRoute(c: Extract<DirectoryCommand, { type: 'ApproveGatewayRoute' }>, reads: DirectoryReads, at: number): DirectoryDecision {
  const wl = reads.whiteLabel(c.whiteLabelId);
  if (!wl) return notFound('white label');
  const approver = operatorIdOf(c.actor);
  const p = waitingFor(approver, wl.gatewayRouteProposal, limits.gatewayRouteProposalTtlMs, at, 'gateway route');
  if (isRejection(p)) return p;
  const mismatch = gatewayRouteMismatch(p, c.bankCode, c.accountNumber);
  if (mismatch) return mismatch;
  const route = { bankCode: p.bankCode, accountNumber: p.accountNumber, accountName: p.accountName, expiresAt: at + p.ttlSeconds * 1000 };
  return onWhiteLabel(c.whiteLabelId, { type: 'GatewayRouteSet', at, whiteLabelId: c.whiteLabelId, route, proposedBy: p.proposedBy, approvedBy: approver });
}

/**
 * Every fee the white label charges from its approval on is reckoned from the schedule, so
 * one operator proposes it and a second approves it (ApproveFeeSchedule); a new proposal
 * replaces a waiting one. The figures are checked here, and again against the schedule in
 * force when it is approved.
 */
function proposeFeeSchedule(c: Extract<DirectoryCommand, { type: 'SetFeeSchedule' }>, reads: DirectoryReads, at: number): DirectoryDecision {
  const wl = reads.whiteLabel(c.whiteLabelId);
  if (!wl) return notFound('white label');
  const next = feeScheduleOf(wl, c.terms);
  if (isRejection(next)) return next;
  if (sameTerms(next, wl)) return reject('operation_not_allowed', 'The fee schedule and amount limits proposed are the ones in force: nothing to approve.');
  const proposal = { fees: next.fees, amounts: next.amounts, proposedBy: operatorIdOf(c.actor), proposedAt: at };
  return onWhiteLabel(wl.id, { type: 'FeeScheduleProposed', at, whiteLabelId: wl.id, proposal });
}

function approveFeeSchedule(c: Extract<DirectoryCommand, { type: 'ApproveFeeSchedule' }>, reads: DirectoryReads, at: number): DirectoryDecision {
  const wl = reads.whiteLabel(c.whiteLabelId);
  if (!wl) return notFound('white label');
  const approver = operatorIdOf(c.actor);
  const p = waitingFor(approver, wl.feeScheduleProposal, limits.feeScheduleProposalTtlMs, at, 'fee schedule');
  if (isRejection(p)) return p;
  const refused = approvalRefusal(wl, c.terms, at);
  if (refused) return refused;
  return onWhiteLabel(wl.id, { type: 'FeeScheduleSet', at, whiteLabelId: wl.id, fees: p.fees, amounts: p.amounts, proposedBy: p.proposedBy, approvedBy: approver });
}

/** A bank the account's side of a transfer can use: a deposit could not be paid from, or into, any other. */
/** A bank code the body names for `side`, or validation_error (exported: a route asks it before a step-up, which a body it refuses does not spend). */
export function checkBank(bankCode: string, side: 'sender' | 'receiver'): Rejection | null {
  if (bankByCode(bankCode)?.side.includes(side)) return null;
  return reject('validation_error', `bank_code ${bankCode} is not a known ${side === 'sender' ? 'sending' : 'receiving'} bank (GET /v1/pay/banks).`, { fields: [{ path: 'bank_code', reason: 'unknown_bank' }] });
}

function registerBeneficiary(c: Extract<DirectoryCommand, { type: 'RegisterBeneficiary' }>, reads: DirectoryReads, at: number, ids: Ids): DirectoryDecision {
  if (!reads.merchant(c.merchantId)) return notFound('merchant');
  const unknownBank = checkBank(c.bankCode, 'receiver');
  if (unknownBank) return unknownBank;
  const id = ids.next('ben', c.merchantId);
  const beneficiary = {
    id, merchantId: c.merchantId, livemode: c.livemode, bankCode: c.bankCode, accountNumber: c.accountNumber, accountNameTh: c.accountNameTh,
    status: c.verified ? 'verified' as const : 'pending_verification' as const, createdAt: at, ...(c.verified ? { verifiedAt: at } : {}),
    ...(c.promptpayId ? { promptpayId: c.promptpayId } : {}),
  };
  const records: RecordWrite[] = [{ stream: id, kind: 'beneficiary', livemode: c.livemode, merchantId: c.merchantId, event: { type: 'BeneficiaryRegistered', at, beneficiary } }];
  if (c.verified) return { objectId: id, records };
  return { objectId: id, records, timer: { id: `${id}:beneficiary.verify`, stream: id, kind: 'beneficiary.verify', dueAt: at + limits.beneficiaryVerificationMs } };
}

/**
 * An operator's adjustment moves money between the merchant's available bucket and the
 * adjustments account. The other two buckets belong to orders: reserved is what open
 * withdrawals lock (their close releases exactly their lock), pending_clearing is what
 * settled deposits wait to clear (their clearing moves exactly their credit), so a change
 * there by hand would make a later release or clearing drive the bucket negative. A debit
 * takes at most what available holds; a credit keeps the merchant's total presentable.
 */
function postAdjustment(c: Extract<DirectoryCommand, { type: 'PostAdjustment' }>, reads: DirectoryReads, ids: Ids, at: number): DirectoryDecision {
  const m = reads.merchant(c.merchantId);
  if (!m) return notFound('merchant');
  if (c.amountMinor <= 0n) return reject('validation_error', 'amount_minor must be positive.', { fields: [{ path: 'amount_minor', reason: 'minimum' }] });
  const reasonRefused = checkAdjustmentReason(c.reasonCode, c.direction);
  if (reasonRefused) return reasonRefused;
  const bucketRefused = checkAdjustmentBucket(c.bucket);
  if (bucketRefused) return bucketRefused;
  const b = reads.balances(m.id, c.livemode);
  if (c.direction === 'debit' && b.availableMinor < c.amountMinor) {
    return reject('insufficient_balance', 'The available bucket holds less than the debit.', {
      available_minor: minorToJson(b.availableMinor), required_minor: minorToJson(c.amountMinor),
      pending_clearing_minor: minorToJson(b.pendingClearingMinor), pending_clearing_available_at: reads.nextClearingAt(m.id, c.livemode),
    });
  }
  if (c.direction === 'credit') {
    const tooMuch = checkMerchantCredit(b.availableMinor + b.pendingClearingMinor + b.reservedMinor, c.amountMinor);
    if (tooMuch) return tooMuch;
  }
  if (c.fourEyesByTotal && c.direction === 'credit' && c.livemode && c.actor.kind === 'operator') {
    const alone = reads.soloLiveCreditsMinor(c.actor.operatorId, at - limits.adjustmentSoloWindowMs);
    if (alone + c.amountMinor >= BigInt(limits.adjustmentFourEyesMinorMin)) {
      return proposeAdjustment({ type: 'ProposeAdjustment', actor: c.actor, merchantId: c.merchantId, amountMinor: c.amountMinor, reasonCode: c.reasonCode, reason: c.reason }, reads, ids, at, alone);
    }
  }
  const postings = adjustmentPostings({
    merchantId: m.id, whiteLabelId: m.whiteLabelId, livemode: c.livemode, operatorId: c.actor.kind === 'operator' ? c.actor.operatorId : 'system',
    amountMinor: c.amountMinor, direction: c.direction, bucket: c.bucket, reasonCode: c.reasonCode, reason: c.reason,
  }, ids.next('btxn', m.id));
  return { objectId: postings.movements[0]!.id!, records: [], postings };
}

/**
 * Adjustments move only the available bucket (postAdjustment says why): a pure check of the
 * body, so the route asks it before the step-up too, which a refused body does not spend.
 */
export function checkAdjustmentBucket(bucket: string): Rejection | null {
  if (bucket === 'available') return null;
  const owner = bucket === 'reserved' ? 'the open withdrawals that lock it' : 'the settled deposits waiting to clear';
  return reject('operation_not_allowed',
    `Adjustments move only the available bucket; ${bucket} belongs to ${owner}. Adjust available instead (cancel or reverse the order to change its part).`, { bucket });
}

/**
 * The adjustment's reason_code: one of the catalogue, and not one that says the money went
 * the other way. The body's own fault, so the route asks it before the step-up too.
 */
export function checkAdjustmentReason(reasonCode: string, direction: 'credit' | 'debit'): Rejection | null {
  if (adjustmentReasons[reasonCode] === undefined) {
    return reject('validation_error', `reason_code must be one of: ${Object.keys(adjustmentReasons).join(', ')}.`, { fields: [{ path: 'reason_code', reason: 'enum' }] });
  }
  const way = adjustmentReasonDirection[reasonCode];
  if (way !== undefined && way !== direction) {
    return reject('validation_error', `reason_code ${reasonCode} is for a ${way}: the merchant reads "${adjustmentReasons[reasonCode]}" beside this ${direction}. Give another (MANUAL_ADJUSTMENT, SETTLEMENT_CORRECTION or FEE_CORRECTION go either way).`,
      { fields: [{ path: 'reason_code', reason: 'direction', hint: `a ${way} only` }] });
  }
  return null;
}

/**
 * A large live credit proposed (the back office's route sends one of limits.adjustmentFourEyesMinorMin
 * or more here, not to PostAdjustment): checked as a credit is, recorded on the merchant,
 * nothing posted until a second operator approves it.
 */
function proposeAdjustment(c: Extract<DirectoryCommand, { type: 'ProposeAdjustment' }>, reads: DirectoryReads, ids: Ids, at: number, proposerRecentMinor?: Minor): DirectoryDecision {
  const m = reads.merchant(c.merchantId);
  if (!m) return notFound('merchant');
  if (c.amountMinor <= 0n) return reject('validation_error', 'amount_minor must be positive.', { fields: [{ path: 'amount_minor', reason: 'minimum' }] });
  const reasonRefused = checkAdjustmentReason(c.reasonCode, 'credit');
  if (reasonRefused) return reasonRefused;
  const b = reads.balances(m.id, true);
  const tooMuch = checkMerchantCredit(b.availableMinor + b.pendingClearingMinor + b.reservedMinor, c.amountMinor);
  if (tooMuch) return tooMuch;
  const proposal = {
    id: ids.next('adjp', m.id), livemode: true, amountMinor: c.amountMinor, reasonCode: c.reasonCode, reason: c.reason,
    proposedBy: c.actor.kind === 'operator' ? c.actor.operatorId : 'system', proposedAt: at,
    ...(proposerRecentMinor !== undefined ? { proposerRecentMinor } : {}),
  };
  return { objectId: proposal.id, records: [{ stream: m.id, kind: 'merchant', livemode: null, merchantId: m.id, event: { type: 'AdjustmentProposed', at, merchantId: m.id, proposal } }] };
}

/**
 * The merchant's proposal `proposalId` if it waits for approval, else resource_not_found
 * (exported: the route asks it before the step-up, which an unknown proposal does not spend).
 */
export function waitingAdjustmentProposal(m: Merchant, proposalId: string, at: number): AdjustmentProposal | Rejection {
  const p = waitingAdjustmentProposals(m, at).find((x) => x.id === proposalId);
  return p ?? reject('resource_not_found', 'No adjustment proposal of this id waits for approval on this merchant (a proposal lapses after 24 hours); propose it again.');
}

/** The merchant's live credits that still wait for a second operator at `at`: lapsed ones (limits.adjustmentProposalTtlMs) can no longer be approved. */
export function waitingAdjustmentProposals(m: Merchant, at: number): readonly AdjustmentProposal[] {
  return (m.adjustmentProposals ?? []).filter((p) => proposalWaiting(p, limits.adjustmentProposalTtlMs, at));
}

/**
 * The second operator's approval of a proposed live credit: not its proposer, within 24 hours,
 * naming the amount as they read it. Posts the adjustment as the proposal gave it (its reason,
 * its reason code), posted_by the approver.
 */
function approveAdjustment(c: Extract<DirectoryCommand, { type: 'ApproveAdjustment' }>, reads: DirectoryReads, ids: Ids, at: number): DirectoryDecision {
  const m = reads.merchant(c.merchantId);
  if (!m) return notFound('merchant');
  const p = waitingAdjustmentProposal(m, c.proposalId, at);
  if (isRejection(p)) return p;
  const approver = c.actor.kind === 'operator' ? c.actor.operatorId : 'system';
  if (sameOperator(approver, p.proposedBy)) {
    return reject('operation_not_allowed', 'The operator who proposed an adjustment cannot approve it: a second operator does (four eyes).', { proposed_by: p.proposedBy });
  }
  const mismatch = adjustmentMismatch(p, c.amountMinor);
  if (mismatch) return mismatch;
  const b = reads.balances(m.id, p.livemode);
  const tooMuch = checkMerchantCredit(b.availableMinor + b.pendingClearingMinor + b.reservedMinor, p.amountMinor);
  if (tooMuch) return tooMuch;
  const balanceTransactionId = ids.next('btxn', m.id);
  const postings = adjustmentPostings({
    merchantId: m.id, whiteLabelId: m.whiteLabelId, livemode: p.livemode, operatorId: approver,
    amountMinor: p.amountMinor, direction: 'credit', bucket: 'available', reasonCode: p.reasonCode, reason: p.reason,
  }, balanceTransactionId);
  return {
    objectId: postings.movements[0]!.id!,
    records: [{ stream: m.id, kind: 'merchant', livemode: null, merchantId: m.id, event: { type: 'AdjustmentApproved', at, merchantId: m.id, proposalId: p.id, approvedBy: approver, balanceTransactionId } }],
    postings,
  };
}
