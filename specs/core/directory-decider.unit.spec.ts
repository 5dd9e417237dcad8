// The directory decider (core/directory/decide.ts) as a table: white labels, merchants,
// beneficiaries, saved senders, bank availability, sandbox resets, suspension and
// operators' adjustments. The directory has no aggregate of its own: its state is the
// World's directory and balances, folded from directory and ledger events by the World's
// own applyEntry (its evolve for records); the reads decide asks for come from that fold.
// Each row is given(events).when(command).then(the records and postings | refusal), with
// the time and the ids decide draws fixed. The last test checks that every refusal code
// the decider can return has a row here.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DirectoryEvent } from '../../core/directory.ts';
import { sandboxRunGenerationMax } from '../../core/directory.ts';
import { decide, type DirectoryChange, type DirectoryCommand, type DirectoryReads } from '../../core/directory/decide.ts';
import type { JournalEntry, LedgerEvent, StreamKind } from '../../core/journal.ts';
import { buildOwnedTransaction } from '../../core/ledger/ledger.ts';
import { adjustmentPostings } from '../../core/ledger/postings.ts';
import { limits } from '../../core/limits.ts';
import { defaultAmountPolicy, defaultFeeSchedule, merchantTotalMaxMinor, type Minor } from '../../core/money.ts';
import type { Ids } from '../../core/ports.ts';
import { World } from '../../core/world.ts';
import { refusalCodesOfRows, refusalCodesReachable, table, type Decider, type Row } from '../support/decider.ts';

// ---- the decider under test, over the World's fold of directory and ledger events ----

type Event = DirectoryEvent | LedgerEvent;

function streamOf(e: Event): [string, StreamKind] {
  switch (e.type) {
    case 'WhiteLabelRegistered': return [e.whiteLabel.id, 'white_label'];
    case 'GatewayRouteProposed': case 'GatewayRouteSet': case 'FeeScheduleProposed': case 'FeeScheduleSet': return [e.whiteLabelId, 'white_label'];
    case 'MerchantRegistered': return [e.merchant.id, 'merchant'];
    case 'MerchantSuspensionChanged': case 'SandboxRunReset': case 'SequencesAdvancedAfterRestore': case 'AdjustmentProposed': case 'AdjustmentApproved': return [e.merchantId, 'merchant'];
    case 'BeneficiaryRegistered': return [e.beneficiary.id, 'beneficiary'];
    case 'BeneficiaryVerified': return [e.beneficiaryId, 'beneficiary'];
    case 'SenderRegistered': return [e.sender.id, 'sender'];
    case 'BankAvailabilityChanged': return [`bank_${e.bankCode}`, 'bank'];
    case 'ClaimOpened': return [e.claim.id, 'claim'];
    case 'ClaimReviewStarted': case 'ClaimRefundApproved': case 'ClaimRefundPaidOut': case 'ClaimClosed': case 'ClaimRejected': case 'ClaimRefundRecalled': case 'ClaimRefundOwed': case 'ClaimWriteOffProposed': case 'ClaimWrittenOff': return [e.claimId, 'claim'];
    case 'BalanceTransactionPosted': return [e.transaction.id, 'balance_transaction'];
    default: { const _exhaustive: never = e; return _exhaustive; }
  }
}

/** Applies one event as the journal entry that continues its stream. */
function applied(world: World, event: Event): World {
  const [stream, streamKind] = streamOf(event);
  const previous = world.streamVersion(stream, streamKind);
  const entry: JournalEntry = { stream, streamKind, version: previous === undefined ? 0 : previous + 1, type: event.type, livemode: null, merchantId: null, recordedAt: event.at, event };
  world.applyEntry(entry);
  return world;
}

/** Ids as decide draws them, numbered from 1 per prefix on every command. */
function fixedIds(): Ids {
  const n = new Map<string, number>();
  return { next: (prefix) => { const k = (n.get(prefix) ?? 0) + 1; n.set(prefix, k); return `${prefix}_${k}`; } };
}

const reads = (w: World): DirectoryReads => ({
  hasWhiteLabel: (id) => w.whiteLabels.has(id), whiteLabel: (id) => w.whiteLabels.get(id), merchant: (id) => w.merchants.get(id), merchants: () => w.merchants.values(), beneficiary: (id) => w.beneficiaries.get(id),
  balances: (m, live) => w.balances(m, live), nextClearingAt: (m, live) => w.nextClearingAt(m, live),
  soloLiveCreditsMinor: (operatorId, since) => w.soloCredits.totalSince(operatorId, since),
});

const T0 = Date.UTC(2026, 10, 21, 3, 0, 0);
const at = T0 + 60 * 60_000;
const directory: Decider<World, Event, DirectoryCommand, DirectoryChange> = {
  initialState: () => new World(),
  evolve: applied,
  decide: (command, world) => decide(command, reads(world), at, fixedIds()),
};
type DirectoryRow = Row<World, Event, DirectoryCommand, DirectoryChange, undefined>;

// ---- events ----

const ops = { kind: 'operator' as const, operatorId: 'emp_ops' };
const whiteLabel: Event = { type: 'WhiteLabelRegistered', at: T0, whiteLabel: { id: 'wl_1', name: 'Brand', fees: defaultFeeSchedule, amounts: defaultAmountPolicy, createdAt: T0 } };
const merchant: Event = { type: 'MerchantRegistered', at: T0, merchant: { id: 'mch_1', whiteLabelId: 'wl_1', name: 'Shop', suspended: false, createdAt: T0 } };
const registered: readonly Event[] = [whiteLabel, merchant];
const beneficiary = (verified: boolean): Event => ({
  type: 'BeneficiaryRegistered', at: T0,
  beneficiary: { id: 'ben_1', merchantId: 'mch_1', livemode: true, bankCode: '004', accountNumber: '1112223331', accountNameTh: 'สมหญิง รักดี', status: verified ? 'verified' : 'pending_verification', createdAt: T0 },
});
/** The merchant's available bucket credited by an earlier adjustment. */
function funded(amountMinor: Minor): Event {
  const p = adjustmentPostings({ merchantId: 'mch_1', whiteLabelId: 'wl_1', livemode: true, operatorId: 'emp_ops', amountMinor, direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'funding' }, 'btxn_seed');
  return { type: 'BalanceTransactionPosted', at: T0, transaction: buildOwnedTransaction(p.owner, p.movements[0]!, 'btxn_seed', T0) };
}

const proposal = { bankCode: '004', accountNumber: '5550001111', accountName: 'GW', ttlSeconds: 60, proposedBy: 'emp_ops', proposedAt: at };
const proposed: Event = { type: 'GatewayRouteProposed', at, whiteLabelId: 'wl_1', proposal };
const approveRoute = (over: Partial<Extract<DirectoryCommand, { type: 'ApproveGatewayRoute' }>> = {}): DirectoryCommand => ({
  type: 'ApproveGatewayRoute', actor: { kind: 'operator', operatorId: 'emp_second' }, whiteLabelId: 'wl_1', bankCode: '004', accountNumber: '5550001111', ...over,
});

const feeProposal = {
  fees: { deposit: { processingFeeBps: 200, vatBps: 700 }, withdrawal: { fixedFeeMinor: 1_500, vatBps: 700 } }, amounts: { ...defaultAmountPolicy, depositMinMinor: 5_000 },
  proposedBy: 'emp_ops', proposedAt: at,
};
const feesProposed: Event = { type: 'FeeScheduleProposed', at, whiteLabelId: 'wl_1', proposal: feeProposal };
const approveFees = (over: Partial<Extract<DirectoryCommand, { type: 'ApproveFeeSchedule' }>> = {}): DirectoryCommand => ({
  type: 'ApproveFeeSchedule', actor: { kind: 'operator', operatorId: 'emp_second' }, whiteLabelId: 'wl_1', terms: { depositProcessingFeeBps: 200, withdrawalFixedFeeMinor: 1_500, depositMinMinor: 5_000 }, ...over,
});

// ---- expected changes ----

const record = (stream: string, kind: StreamKind, event: DirectoryEvent, livemode: boolean | null = null, merchantId: string | null = null) => ({ stream, kind, livemode, merchantId, event });
const adjust = (over: Partial<Extract<DirectoryCommand, { type: 'PostAdjustment' }>> = {}): DirectoryCommand => ({
  type: 'PostAdjustment', actor: ops, merchantId: 'mch_1', livemode: true, amountMinor: 10_000n, direction: 'credit', bucket: 'available', reasonCode: 'GOODWILL_CREDIT', reason: 'a late payout, our apology', ...over,
});
const proposedFloat = { id: 'adjp_1', livemode: true, amountMinor: 10_000_000n, reasonCode: 'FUNDING', reason: 'opening float', proposedBy: 'emp_ops', proposedAt: at - 60_000 };
const floatProposed: Event = { type: 'AdjustmentProposed', at: at - 60_000, merchantId: 'mch_1', proposal: proposedFloat };
const approveFloat = (over: Partial<Extract<DirectoryCommand, { type: 'ApproveAdjustment' }>> = {}): DirectoryCommand => ({
  type: 'ApproveAdjustment', actor: { kind: 'operator', operatorId: 'emp_second' }, merchantId: 'mch_1', proposalId: 'adjp_1', amountMinor: 10_000_000n, ...over,
});
const adjustment = (amountMinor: Minor, direction: 'credit' | 'debit', reasonCode = 'GOODWILL_CREDIT'): DirectoryChange => ({
  objectId: 'btxn_1', records: [],
  postings: {
    owner: { merchantId: 'mch_1', whiteLabelId: 'wl_1', livemode: true, source: { type: 'adjustment', id: 'emp_ops' } },
    movements: [{
      id: 'btxn_1', type: 'adjustment', amountMinor, from: direction === 'debit' ? 'available' : null, to: direction === 'credit' ? 'available' : null,
      counter: [{ account: 'adjustments', amountMinor }], reasonCode, note: 'a late payout, our apology',
    }],
  },
});

const rows: DirectoryRow[] = [
  {
    row: 'white label registered with the default fee schedule and amount policy',
    given: [], when: { type: 'RegisterWhiteLabel', actor: ops, name: 'Brand' },
    then: { objectId: 'wl_1', records: [record('wl_1', 'white_label', { type: 'WhiteLabelRegistered', at, whiteLabel: { id: 'wl_1', name: 'Brand', fees: defaultFeeSchedule, amounts: defaultAmountPolicy, createdAt: at } })] },
  },
  {
    row: 'gateway route proposed by one operator: nothing routes to it yet',
    given: [whiteLabel], when: { type: 'SetGatewayRoute', actor: ops, whiteLabelId: 'wl_1', bankCode: '004', accountNumber: '5550001111', accountName: 'GW', ttlSeconds: 60 },
    then: { objectId: 'wl_1', records: [record('wl_1', 'white_label', { type: 'GatewayRouteProposed', at, whiteLabelId: 'wl_1', proposal: proposal })] },
  },
  {
    row: 'gateway route approved by a second operator naming the same account: set, expiring its ttl after the approval',
    given: [whiteLabel, proposed], when: approveRoute(),
    then: { objectId: 'wl_1', records: [record('wl_1', 'white_label', { type: 'GatewayRouteSet', at, whiteLabelId: 'wl_1', route: { bankCode: '004', accountNumber: '5550001111', accountName: 'GW', expiresAt: at + 60_000 }, proposedBy: 'emp_ops', approvedBy: 'emp_second' })] },
  },
  { row: 'gateway route approved by its proposer → operation_not_allowed', given: [whiteLabel, proposed], when: approveRoute({ actor: ops }), refused: 'operation_not_allowed', message: /cannot approve/ },
  { row: 'gateway route approved by its proposer spelled in capitals → operation_not_allowed', given: [whiteLabel, proposed], when: approveRoute({ actor: { ...ops, operatorId: 'EMP_OPS' } }), refused: 'operation_not_allowed', message: /cannot approve/ },
  { row: 'gateway route approved naming another account → validation_error', given: [whiteLabel, proposed], when: approveRoute({ accountNumber: '5550009999' }), refused: 'validation_error', message: /not the one proposed/ },
  { row: 'gateway route approved with none proposed → operation_not_allowed', given: [whiteLabel], when: approveRoute(), refused: 'operation_not_allowed', message: /propose one first/ },
  {
    row: 'gateway route approved after the proposal lapsed (24 h) → operation_not_allowed',
    given: [whiteLabel, { ...proposed, proposal: { ...proposal, proposedAt: at - limits.gatewayRouteProposalTtlMs } } as Event], when: approveRoute(), refused: 'operation_not_allowed', message: /lapses/,
  },
  {
    row: 'gateway route on an unknown white label → resource_not_found',
    given: [], when: { type: 'SetGatewayRoute', actor: ops, whiteLabelId: 'wl_1', bankCode: '004', accountNumber: '5550001111', accountName: 'GW', ttlSeconds: 60 }, refused: 'resource_not_found',
  },
  {
    row: 'fee schedule proposed by one operator: the figures given, the amount limits not given as they are, VAT the law\'s',
    given: [whiteLabel], when: { type: 'SetFeeSchedule', actor: ops, whiteLabelId: 'wl_1', terms: { depositProcessingFeeBps: 200, withdrawalFixedFeeMinor: 1_500, depositMinMinor: 5_000 } },
    then: { objectId: 'wl_1', records: [record('wl_1', 'white_label', { type: 'FeeScheduleProposed', at, whiteLabelId: 'wl_1', proposal: feeProposal })] },
  },
  {
    row: 'fee schedule approved by a second operator naming every figure it changes: in force',
    given: [whiteLabel, feesProposed], when: approveFees(),
    then: { objectId: 'wl_1', records: [record('wl_1', 'white_label', { type: 'FeeScheduleSet', at, whiteLabelId: 'wl_1', fees: feeProposal.fees, amounts: feeProposal.amounts, proposedBy: 'emp_ops', approvedBy: 'emp_second' })] },
  },
  { row: 'fee schedule with a fractional bps → validation_error', given: [whiteLabel], when: { type: 'SetFeeSchedule', actor: ops, whiteLabelId: 'wl_1', terms: { depositProcessingFeeBps: 1.5, withdrawalFixedFeeMinor: 1_000 } }, refused: 'validation_error', message: /deposit_processing_fee_bps/ },
  { row: 'fee schedule the same as in force → operation_not_allowed', given: [whiteLabel], when: { type: 'SetFeeSchedule', actor: ops, whiteLabelId: 'wl_1', terms: { depositProcessingFeeBps: 150, withdrawalFixedFeeMinor: 1_000 } }, refused: 'operation_not_allowed', message: /in force/ },
  { row: 'fee schedule on an unknown white label → resource_not_found', given: [], when: { type: 'SetFeeSchedule', actor: ops, whiteLabelId: 'wl_1', terms: { depositProcessingFeeBps: 200, withdrawalFixedFeeMinor: 1_000 } }, refused: 'resource_not_found' },
  { row: 'fee schedule approved by its proposer → operation_not_allowed', given: [whiteLabel, feesProposed], when: approveFees({ actor: ops }), refused: 'operation_not_allowed', message: /cannot approve/ },
  { row: 'fee schedule approved without the amount limit it changes → validation_error', given: [whiteLabel, feesProposed], when: approveFees({ terms: { depositProcessingFeeBps: 200, withdrawalFixedFeeMinor: 1_500 } }), refused: 'validation_error', message: /not the one proposed/ },
  { row: 'fee schedule approved with none proposed → operation_not_allowed', given: [whiteLabel], when: approveFees(), refused: 'operation_not_allowed', message: /propose one first/ },
  {
    row: 'merchant registered under a known white label, not suspended',
    given: [whiteLabel], when: { type: 'RegisterMerchant', actor: ops, whiteLabelId: 'wl_1', name: 'Shop' },
    then: { objectId: 'mch_1', records: [record('mch_1', 'merchant', { type: 'MerchantRegistered', at, merchant: { id: 'mch_1', whiteLabelId: 'wl_1', name: 'Shop', suspended: false, createdAt: at } }, null, 'mch_1')] },
  },
  { row: 'merchant under an unknown white label → validation_error (white_label_id not_found)', given: [], when: { type: 'RegisterMerchant', actor: ops, whiteLabelId: 'wl_9', name: 'Lost' }, refused: 'validation_error', message: /white label/ },
  {
    row: 'merchant suspended: a change is one record',
    given: registered, when: { type: 'SetMerchantSuspended', actor: ops, merchantId: 'mch_1', suspended: true, reason: 'chargebacks above the limit' },
    then: { objectId: 'mch_1', records: [record('mch_1', 'merchant', { type: 'MerchantSuspensionChanged', at, merchantId: 'mch_1', suspended: true, operatorId: 'emp_ops', reason: 'chargebacks above the limit' }, null, 'mch_1')] },
  },
  {
    row: 'merchant suspended again: the same value is no record',
    given: [...registered, { type: 'MerchantSuspensionChanged', at: T0, merchantId: 'mch_1', suspended: true }], when: { type: 'SetMerchantSuspended', actor: ops, merchantId: 'mch_1', suspended: true },
    then: { objectId: 'mch_1', records: [] },
  },
  { row: 'suspension of an unknown merchant → resource_not_found', given: [whiteLabel], when: { type: 'SetMerchantSuspended', actor: ops, merchantId: 'mch_1', suspended: true }, refused: 'resource_not_found' },
  {
    row: 'sandbox reset with a sandbox key → the next run generation',
    given: registered, when: { type: 'ResetSandboxRun', actor: { kind: 'merchant', merchantId: 'mch_1', livemode: false } },
    then: { objectId: 'mch_1', records: [record('mch_1', 'merchant', { type: 'SandboxRunReset', at, merchantId: 'mch_1', runGeneration: 2 }, false, 'mch_1')] },
  },
  { row: 'sandbox reset with a live key → operation_not_allowed', given: registered, when: { type: 'ResetSandboxRun', actor: { kind: 'merchant', merchantId: 'mch_1', livemode: true } }, refused: 'operation_not_allowed', message: /sandbox key/ },
  {
    row: 'sandbox reset past the largest run generation → operation_not_allowed',
    given: [...registered, { type: 'SandboxRunReset', at: T0, merchantId: 'mch_1', runGeneration: sandboxRunGenerationMax }],
    when: { type: 'ResetSandboxRun', actor: { kind: 'merchant', merchantId: 'mch_1', livemode: false } }, refused: 'operation_not_allowed', message: /run_generation/,
  },
  { row: 'sandbox reset of an unknown merchant → resource_not_found', given: [], when: { type: 'ResetSandboxRun', actor: { kind: 'merchant', merchantId: 'mch_1', livemode: false } }, refused: 'resource_not_found' },
  {
    row: 'beneficiary registered unverified, with its verification timer',
    given: registered, when: { type: 'RegisterBeneficiary', actor: ops, merchantId: 'mch_1', livemode: true, bankCode: '004', accountNumber: '1112223331', accountNameTh: 'สมหญิง รักดี', verified: false },
    then: {
      objectId: 'ben_1', records: [record('ben_1', 'beneficiary', {
        type: 'BeneficiaryRegistered', at,
        beneficiary: { id: 'ben_1', merchantId: 'mch_1', livemode: true, bankCode: '004', accountNumber: '1112223331', accountNameTh: 'สมหญิง รักดี', status: 'pending_verification', createdAt: at },
      }, true, 'mch_1')],
      timer: { id: 'ben_1:beneficiary.verify', stream: 'ben_1', kind: 'beneficiary.verify', dueAt: at + limits.beneficiaryVerificationMs },
    },
  },
  {
    row: 'beneficiary registered verified: no timer',
    given: registered, when: { type: 'RegisterBeneficiary', actor: ops, merchantId: 'mch_1', livemode: true, bankCode: '004', accountNumber: '1112223331', accountNameTh: 'สมหญิง รักดี', verified: true },
    then: (change) => { assert.is(change.timer, undefined); assert.equal(change.records.map((r) => r.event.type === 'BeneficiaryRegistered' && r.event.beneficiary.status), ['verified']); },
  },
  { row: 'beneficiary of an unknown merchant → resource_not_found', given: [whiteLabel], when: { type: 'RegisterBeneficiary', actor: ops, merchantId: 'mch_1', livemode: true, bankCode: '004', accountNumber: '1', accountNameTh: 'x', verified: true }, refused: 'resource_not_found' },
  {
    row: 'beneficiary verified by an operator',
    given: [...registered, beneficiary(false)], when: { type: 'VerifyBeneficiary', actor: ops, beneficiaryId: 'ben_1' },
    then: { objectId: 'ben_1', records: [record('ben_1', 'beneficiary', { type: 'BeneficiaryVerified', at, beneficiaryId: 'ben_1' }, true, 'mch_1')] },
  },
  { row: 'beneficiary already verified: no record', given: [...registered, beneficiary(true)], when: { type: 'VerifyBeneficiary', actor: ops, beneficiaryId: 'ben_1' }, then: { objectId: 'ben_1', records: [] } },
  { row: 'verifying an unknown beneficiary → resource_not_found', given: registered, when: { type: 'VerifyBeneficiary', actor: ops, beneficiaryId: 'ben_1' }, refused: 'resource_not_found' },
  {
    row: 'saved sender registered for an end user',
    given: registered, when: { type: 'RegisterSender', actor: ops, merchantId: 'mch_1', livemode: true, endUserRef: 'user-1', bankCode: '014', accountNumber: '9876543210', accountNameTh: 'สมชาย ใจดี' },
    then: {
      objectId: 'snd_1', records: [record('snd_1', 'sender', {
        type: 'SenderRegistered', at,
        sender: { id: 'snd_1', merchantId: 'mch_1', livemode: true, endUserRef: 'user-1', bankCode: '014', accountNumber: '9876543210', accountNameTh: 'สมชาย ใจดี', verifiedAt: at },
      }, true, 'mch_1')],
    },
  },
  {
    row: 'beneficiary at a bank that receives no PromptPay transfer (unknown code) → validation_error (unknown_bank)',
    given: registered, when: { type: 'RegisterBeneficiary', actor: ops, merchantId: 'mch_1', livemode: true, bankCode: '999', accountNumber: '1112223331', accountNameTh: 'สมหญิง รักดี', verified: true },
    refused: 'validation_error', message: /not a known receiving bank/,
  },
  {
    row: 'beneficiary at a bank that only sends (069) → validation_error (unknown_bank)',
    given: registered, when: { type: 'RegisterBeneficiary', actor: ops, merchantId: 'mch_1', livemode: true, bankCode: '069', accountNumber: '1112223331', accountNameTh: 'สมหญิง รักดี', verified: true },
    refused: 'validation_error', message: /not a known receiving bank/,
  },
  {
    row: 'saved sender at an unknown bank → validation_error (unknown_bank)',
    given: registered, when: { type: 'RegisterSender', actor: ops, merchantId: 'mch_1', livemode: true, endUserRef: 'user-1', bankCode: '999', accountNumber: '9876543210', accountNameTh: 'สมชาย ใจดี' },
    refused: 'validation_error', message: /not a known sending bank/,
  },
  { row: 'saved sender of an unknown merchant → resource_not_found', given: [], when: { type: 'RegisterSender', actor: ops, merchantId: 'mch_1', livemode: true, endUserRef: 'u', bankCode: '014', accountNumber: '1', accountNameTh: 'x' }, refused: 'resource_not_found' },
  {
    row: 'bank availability changed, with its Thai message',
    given: [], when: { type: 'SetBankAvailability', actor: ops, bankCode: '014', available: false, messageTh: 'ปิดปรับปรุง' },
    then: { records: [record('bank_014', 'bank', { type: 'BankAvailabilityChanged', at, bankCode: '014', available: false, messageTh: 'ปิดปรับปรุง' })] },
  },
  { row: 'adjustment: a credit of available → one balance transaction against adjustments', given: registered, when: adjust(), then: adjustment(10_000n, 'credit') },
  { row: 'adjustment: a debit of available within what it holds', given: [...registered, funded(10_000n)], when: adjust({ direction: 'debit', reasonCode: 'LOSS_RECOVERY' }), then: adjustment(10_000n, 'debit', 'LOSS_RECOVERY') },
  { row: 'adjustment: a debit named as a goodwill credit → validation_error (the merchant would read the opposite)', given: [...registered, funded(10_000n)], when: adjust({ direction: 'debit' }), refused: 'validation_error', message: /GOODWILL_CREDIT is for a credit/ },
  { row: 'adjustment: a debit named as funding → validation_error', given: [...registered, funded(10_000n)], when: adjust({ direction: 'debit', reasonCode: 'FUNDING' }), refused: 'validation_error', message: /FUNDING is for a credit/ },
  { row: 'adjustment: a credit named as a loss recovered → validation_error', given: registered, when: adjust({ reasonCode: 'LOSS_RECOVERY' }), refused: 'validation_error', message: /LOSS_RECOVERY is for a debit/ },
  { row: 'adjustment: a correction goes either way', given: [...registered, funded(10_000n)], when: adjust({ direction: 'debit', reasonCode: 'FEE_CORRECTION' }), then: adjustment(10_000n, 'debit', 'FEE_CORRECTION') },
  { row: 'adjustment of zero → validation_error (minimum)', given: registered, when: adjust({ amountMinor: 0n }), refused: 'validation_error', message: /positive/ },
  { row: 'adjustment of the reserved bucket → operation_not_allowed (it belongs to open withdrawals)', given: registered, when: adjust({ bucket: 'reserved' }), refused: 'operation_not_allowed', message: /only the available bucket/ },
  { row: 'adjustment: a debit past available → insufficient_balance', given: [...registered, funded(10_000n)], when: adjust({ direction: 'debit', reasonCode: 'LOSS_RECOVERY', amountMinor: 10_001n }), refused: 'insufficient_balance' },
  {
    row: 'large live credit proposed → recorded on the merchant, nothing posted',
    given: registered, when: { type: 'ProposeAdjustment', actor: ops, merchantId: 'mch_1', amountMinor: 10_000_000n, reasonCode: 'FUNDING', reason: 'opening float' },
    then: { objectId: 'adjp_1', records: [record('mch_1', 'merchant', { type: 'AdjustmentProposed', at, merchantId: 'mch_1', proposal: { ...proposedFloat, proposedAt: at } }, null, 'mch_1')] },
  },
  { row: 'large live credit approved by its proposer → operation_not_allowed', given: [...registered, floatProposed], when: approveFloat({ actor: ops }), refused: 'operation_not_allowed', message: /cannot approve it/ },
  { row: 'large live credit approved naming another amount → validation_error', given: [...registered, floatProposed], when: approveFloat({ amountMinor: 100_000_000n }), refused: 'validation_error', message: /not the one proposed/ },
  { row: 'large live credit approved after 24 hours → resource_not_found (lapsed)', given: [...registered, { ...floatProposed, proposal: { ...proposedFloat, proposedAt: at - limits.adjustmentProposalTtlMs } } as Event], when: approveFloat(), refused: 'resource_not_found', message: /lapses after 24 hours/ },
  {
    row: 'large live credit approved by a second operator naming its amount → posted as proposed, the proposal closed',
    given: [...registered, floatProposed], when: approveFloat(),
    then: {
      objectId: 'btxn_1',
      records: [record('mch_1', 'merchant', { type: 'AdjustmentApproved', at, merchantId: 'mch_1', proposalId: 'adjp_1', approvedBy: 'emp_second', balanceTransactionId: 'btxn_1' }, null, 'mch_1')],
      postings: {
        owner: { merchantId: 'mch_1', whiteLabelId: 'wl_1', livemode: true, source: { type: 'adjustment', id: 'emp_second' } },
        movements: [{ id: 'btxn_1', type: 'adjustment', amountMinor: 10_000_000n, from: null, to: 'available', counter: [{ account: 'adjustments', amountMinor: 10_000_000n }], reasonCode: 'FUNDING', note: 'opening float' }],
      },
    },
  },
  { row: 'adjustment: a credit past the merchant total cap → amount_not_supported', given: [...registered, funded(10_000n)], when: adjust({ amountMinor: BigInt(merchantTotalMaxMinor) }), refused: 'amount_not_supported' },
  { row: 'adjustment for an unknown merchant → resource_not_found', given: [whiteLabel], when: adjust(), refused: 'resource_not_found' },
  { row: 'adjustment with a reason code outside the catalogue → validation_error (reason_code)', given: registered, when: adjust({ reasonCode: 'goodwill' }), refused: 'validation_error', message: /reason_code must be one of/ },
];

table(directory, rows);

test('every refusal code core/directory/decide.ts can return (its credit check included) has a row in this table', () => {
  const covered = refusalCodesOfRows(rows);
  const codes = [...refusalCodesReachable('core/directory/decide.ts')];
  assert.ok(codes.includes('amount_not_supported'), 'the credit check of money.ts is read through the import');
  assert.equal(codes.filter((c) => !covered.has(c)).sort(), [], 'codes with no row');
});

test.run();
