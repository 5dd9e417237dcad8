// The withdrawal decider as the contract's "Withdrawal transitions" table: each row is
// given(events that put the order in the From status).when(command).then(events | refusal),
// calling core/withdrawal/decide.ts directly (decide, and admitWithdrawal for the creation
// checks): no handler, no Tx, no world. Ids and times are fixed in the commands, so the
// events are written out in full, fee shares included. The last tests check that every
// refusal code the file can return has a row here.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Beneficiary, Merchant } from '../../core/directory.ts';
import type { Command } from '../../core/handler/commands.ts';
import { limits } from '../../core/limits.ts';
import { defaultAmountPolicy, defaultFeeSchedule, withdrawalFee, type Minor } from '../../core/money.ts';
import { admitWithdrawal, decide, type AdmittedWithdrawal, type CreateWithdrawalFacts, type NewWithdrawal, type WithdrawalCommand } from '../../core/withdrawal/decide.ts';
import { evolve, type Fill, type RefundIds, type Withdrawal, type WithdrawalEvent, type WithdrawalStatus } from '../../core/withdrawal/state.ts';
import { given, refusalCodesOfRows, refusalCodesReachable, table, type Decider, type Row } from '../support/decider.ts';

type Events = readonly WithdrawalEvent[];
const withdrawal: Decider<Withdrawal | undefined, WithdrawalEvent, WithdrawalCommand, Events> = {
  initialState: () => undefined,
  evolve,
  decide: (command, state) => decide(command, state),
};
type WithdrawalRow = Row<Withdrawal | undefined, WithdrawalEvent, WithdrawalCommand, Events, undefined>;

// ---- fixed values ----

const minute = 60_000;
const hour = 60 * minute;
const T0 = Date.UTC(2026, 10, 21, 3, 0, 0);
const amount = 100_000n;
const fee = withdrawalFee(defaultFeeSchedule); // 1 000 fixed + 70 VAT
const expiresAt = T0 + limits.withdrawalLifetimeMs;
const refund: RefundIds = { principalBalanceTransactionId: 'btxn_r1', feeBalanceTransactionId: 'btxn_r2' };

const newWithdrawal = (requiresApproval: boolean): NewWithdrawal => ({
  id: 'wdr_1', merchantId: 'mch_payer', whiteLabelId: 'wl_1', livemode: true, merchantReference: 'payout-1', endUserRef: 'payee-1',
  beneficiaryId: 'ben_1', amountTotalMinor: amount, feeTotalMinor: fee.totalMinor, feeBreakdown: fee.breakdown, maxSplits: limits.withdrawalMaxSplits,
  createdAt: T0, expiresAt, requiresApproval, approvalsRequired: requiresApproval ? 2 : 0, reservedBalanceTransactionId: 'btxn_0',
});

// ---- events that build the From states ----

const created = (requiresApproval: boolean): WithdrawalEvent => ({ type: 'WithdrawalCreated', at: T0, withdrawal: newWithdrawal(requiresApproval) });
const reserved = (n: number, amountMinor: Minor, at = T0 + n * minute): WithdrawalEvent => ({ type: 'LegReserved', at, legRef: `leg_p${n}`, amountMinor });
/** A fill as decide writes it, with its proportional fee share. */
const fill = (n: number, amountMinor: Minor, feeShare: Minor, at = T0 + hour * n): Fill => ({
  legRef: `leg_p${n}`, sequence: n, amountMinor, feeRecognizedMinor: feeShare, settledAt: at, balanceTransactionId: `btxn_f${n}`,
  feeBalanceTransactionId: feeShare > 0n ? `btxn_ff${n}` : null, autoConfirmAt: at + limits.fillAutoConfirmMs, receiptState: 'pending',
});
const landed = (n: number, amountMinor: Minor, feeShare: Minor): WithdrawalEvent => ({ type: 'FillLanded', at: T0 + hour * n, fill: fill(n, amountMinor, feeShare) });

const pendingApproval: Events = [created(true)];
const open: Events = [created(false)];
// 30 000 of 100 000 filled: fee share ⌊1 070 × 30 000 / 100 000⌋ = 321.
const partiallyFilled: Events = [...open, reserved(1, 30_000n), landed(1, 30_000n, 321n)];
const settled: Events = [...partiallyFilled, reserved(2, 70_000n), landed(2, 70_000n, 749n), { type: 'WithdrawalSettled', at: T0 + 2 * hour }];
const expired: Events = [...partiallyFilled, { type: 'WithdrawalExpired', at: expiresAt, refund }];
/** Expired while a payer was mid-transfer on leg_p1 (30 000 of 100 000 held). */
const expiredHolding: Events = [...open, reserved(1, 30_000n), { type: 'WithdrawalExpired', at: expiresAt, refund }];
const refund2 = { principalBalanceTransactionId: 'btxn_h1', feeBalanceTransactionId: 'btxn_h2' };
/** A late slip's paid leg held for less than its payee has (the capacity was short), and an order with one. */
const owing = (n: number, amountMinor: Minor, owedMinor: Minor, at = T0 + n * minute): WithdrawalEvent => ({ type: 'LegReserved', at, legRef: `leg_p${n}`, amountMinor, owedMinor });
const owedScene: Events = [...open, reserved(1, 80_000n), owing(2, 20_000n, 30_000n, T0 + hour)];

const disputeOpened: WithdrawalEvent = {
  type: 'DisputeOpened', at: T0 + 2 * hour,
  dispute: { id: 'dsp_1', reasonCode: 'not_received', amountMinor: 30_000n, openedAt: T0 + 2 * hour, respondBy: T0 + 50 * hour, fundsOnHold: false, status: 'open', evidenceCount: 0 },
};

// ---- commands ----

const fillLeg = (n: number, amountMinor: Minor): WithdrawalCommand => ({
  type: 'FillLeg', at: T0 + hour * n, legRef: `leg_p${n}`, amountMinor, balanceTransactionId: `btxn_f${n}`, feeBalanceTransactionId: `btxn_ff${n}`,
});
const reverseFill = (legRef: string, at = T0 + 3 * hour): WithdrawalCommand => ({
  type: 'ReverseFill', at, legRef, reasonCode: 'BANK_RECALL', balanceTransactionId: 'btxn_rv', feeBalanceTransactionId: 'btxn_rvf',
});
const reversed = (legRef: string, refundTo: 'available' | 'reserved', at = T0 + 3 * hour): WithdrawalEvent => ({
  type: 'FillReversed', at, legRef, reasonCode: 'BANK_RECALL', balanceTransactionId: 'btxn_rv', feeBalanceTransactionId: 'btxn_rvf', refundTo,
});

/** The events, and the status evolve folds them into. */
const thenStatus = (expected: Events, status: WithdrawalStatus) => (out: Events, state: Withdrawal | undefined) => {
  assert.equal(out, expected);
  let s = state;
  for (const e of out) s = evolve(s, e);
  assert.is(s?.status, status);
};

const rows: WithdrawalRow[] = [
  // ---- (create) ----
  { row: '(create) approval required → pending_approval', given: [], when: { type: 'CreateWithdrawal', at: T0, withdrawal: newWithdrawal(true) }, then: thenStatus(pendingApproval, 'pending_approval') },
  { row: '(create) no approval needed → open', given: [], when: { type: 'CreateWithdrawal', at: T0, withdrawal: newWithdrawal(false) }, then: thenStatus(open, 'open') },
  { row: '(create) an id that already exists → validation_error (not_unique)', given: open, when: { type: 'CreateWithdrawal', at: T0, withdrawal: newWithdrawal(false) }, refused: 'validation_error' },
  { row: 'any command on an order that does not exist → resource_not_found', given: [], when: { type: 'ReleaseLeg', at: T0, legRef: 'leg_p1' }, refused: 'resource_not_found' },

  // ---- pending_approval ----
  {
    row: 'pending_approval → first of two approvals → still pending_approval',
    given: pendingApproval, when: { type: 'ApproveWithdrawal', at: T0 + minute, operatorId: 'emp_alice' },
    then: thenStatus([{ type: 'WithdrawalApprovalRecorded', at: T0 + minute, operatorId: 'emp_alice', opens: false }], 'pending_approval'),
  },
  {
    row: 'pending_approval → back office approves (second employee) → open',
    given: [...pendingApproval, { type: 'WithdrawalApprovalRecorded', at: T0 + minute, operatorId: 'emp_alice', opens: false }],
    when: { type: 'ApproveWithdrawal', at: T0 + 2 * minute, operatorId: 'emp_bob' },
    then: thenStatus([{ type: 'WithdrawalApprovalRecorded', at: T0 + 2 * minute, operatorId: 'emp_bob', opens: true }], 'open'),
  },
  {
    row: 'pending_approval: the second approval by the same employee → operation_not_allowed',
    given: [...pendingApproval, { type: 'WithdrawalApprovalRecorded', at: T0 + minute, operatorId: 'emp_alice', opens: false }],
    when: { type: 'ApproveWithdrawal', at: T0 + 2 * minute, operatorId: 'emp_alice' }, refused: 'operation_not_allowed', message: /different employee/,
  },
  { row: 'open: approve → operation_not_allowed', given: open, when: { type: 'ApproveWithdrawal', at: T0 + minute, operatorId: 'emp_alice' }, refused: 'operation_not_allowed' },
  {
    row: 'pending_approval → back office rejects → rejected (full refund)',
    given: pendingApproval, when: { type: 'RejectWithdrawal', at: T0 + minute, operatorId: 'emp_alice', note: 'Unknown payee', refund },
    then: thenStatus([{ type: 'WithdrawalRejected', at: T0 + minute, refund, operatorId: 'emp_alice', note: 'Unknown payee' }], 'rejected'),
  },
  { row: 'open: reject → operation_not_allowed (rejected only from pending_approval)', given: open, when: { type: 'RejectWithdrawal', at: T0 + minute, operatorId: 'emp_alice', refund }, refused: 'operation_not_allowed' },
  {
    row: 'pending_approval → cancel → canceled (merchant_request)',
    given: pendingApproval, when: { type: 'CancelWithdrawal', at: T0 + minute, by: 'merchant', refund },
    then: thenStatus([{ type: 'WithdrawalCanceled', at: T0 + minute, by: 'merchant', reasonCode: 'merchant_request', refund }], 'canceled'),
  },
  {
    row: 'pending_approval → 24-hour approval timeout → canceled (approval_ttl_expired)',
    given: pendingApproval, when: { type: 'TimeOutApproval', at: T0 + limits.withdrawalApprovalTimeoutMs, refund },
    then: thenStatus([{ type: 'WithdrawalCanceled', at: T0 + limits.withdrawalApprovalTimeoutMs, by: 'system', reasonCode: 'approval_ttl_expired', refund }], 'canceled'),
  },
  { row: 'pending_approval: the approval timer firing early → no events', given: pendingApproval, when: { type: 'TimeOutApproval', at: T0 + limits.withdrawalApprovalTimeoutMs - 1, refund }, then: [] },
  { row: 'pending_approval: a payer cannot be matched → alloc_state_conflict', given: pendingApproval, when: { type: 'ReserveLeg', at: T0 + minute, legRef: 'leg_p1', amountMinor: 30_000n }, refused: 'alloc_state_conflict' },

  // ---- open ----
  { row: 'open → payer matched → open (withdrawal.matched; the leg holds capacity)', given: open, when: { type: 'ReserveLeg', at: T0 + minute, legRef: 'leg_p1', amountMinor: 30_000n }, then: thenStatus([reserved(1, 30_000n)], 'open') },
  { row: 'open: a leg larger than the capacity left → alloc_state_conflict', given: [...open, reserved(1, 80_000n)], when: { type: 'ReserveLeg', at: T0 + 2 * minute, legRef: 'leg_p2', amountMinor: 30_000n }, refused: 'alloc_state_conflict' },
  { row: 'open: a payer after expires_at → alloc_state_conflict', given: open, when: { type: 'ReserveLeg', at: expiresAt, legRef: 'leg_p1', amountMinor: 30_000n }, refused: 'alloc_state_conflict' },
  { row: 'open, past expires_at (its expiry not yet run): a late slip\'s paid leg held again → held (money the payee has, not a new payer)', given: open, when: { type: 'ReserveLeg', at: expiresAt, legRef: 'leg_p1', amountMinor: 30_000n, paid: true }, then: thenStatus([{ type: 'LegReserved', at: expiresAt, legRef: 'leg_p1', amountMinor: 30_000n }], 'open') },
  { row: 'open: a late slip\'s paid leg larger than the capacity left → alloc_state_conflict', given: [...open, reserved(1, 80_000n)], when: { type: 'ReserveLeg', at: T0 + 2 * minute, legRef: 'leg_p2', amountMinor: 30_000n, paid: true }, refused: 'alloc_state_conflict' },
  { row: 'pending_approval: a late slip\'s paid leg is not held (the order takes no fill) → alloc_state_conflict', given: pendingApproval, when: { type: 'ReserveLeg', at: T0 + minute, legRef: 'leg_p1', amountMinor: 30_000n, paid: true }, refused: 'alloc_state_conflict' },
  // A late slip's leg held short of the money its payee has (owedMinor): raised, and topped up as capacity frees.
  { row: 'open: a late slip\'s paid leg held 20 000, a second late transfer → held 30 000 (raised, not a second leg)', given: [...open, reserved(1, 20_000n)], when: { type: 'ReserveLeg', at: T0 + hour, legRef: 'leg_p1', amountMinor: 30_000n, paid: true }, then: thenStatus([reserved(1, 30_000n, T0 + hour)], 'open') },
  { row: 'open: a paid leg asked to hold less than it does → no events (a hold is never lowered)', given: [...open, reserved(1, 30_000n)], when: { type: 'ReserveLeg', at: T0 + hour, legRef: 'leg_p1', amountMinor: 20_000n, paid: true }, then: [] },
  { row: 'open: a paid leg raised beyond the capacity left → alloc_state_conflict', given: [...open, reserved(1, 20_000n), reserved(2, 75_000n)], when: { type: 'ReserveLeg', at: T0 + hour, legRef: 'leg_p1', amountMinor: 30_000n, paid: true }, refused: 'alloc_state_conflict' },
  { row: 'open: a paid leg with less capacity left than its payee has → held for what is left, the rest owed', given: [...open, reserved(1, 80_000n)], when: { type: 'ReserveLeg', at: T0 + hour, legRef: 'leg_p2', amountMinor: 20_000n, paid: true, owedMinor: 30_000n }, then: thenStatus([owing(2, 20_000n, 30_000n, T0 + hour)], 'open') },
  { row: 'open: another leg released while a paid leg is owed more → the capacity tops it up first (LegReserved), in the same decision', given: owedScene, when: { type: 'ReleaseLeg', at: T0 + 2 * hour, legRef: 'leg_p1' }, then: thenStatus([{ type: 'LegReleased', at: T0 + 2 * hour, legRef: 'leg_p1' }, reserved(2, 30_000n, T0 + 2 * hour)], 'open') },
  { row: 'open: a small leg released while a paid leg is owed more → topped up by what it freed, the rest still owed', given: [...open, reserved(1, 75_000n), reserved(3, 5_000n), owing(2, 20_000n, 30_000n, T0 + hour)], when: { type: 'ReleaseLeg', at: T0 + 2 * hour, legRef: 'leg_p3' }, then: [{ type: 'LegReleased', at: T0 + 2 * hour, legRef: 'leg_p3' }, owing(2, 25_000n, 30_000n, T0 + 2 * hour)] },
  { row: 'open: another leg lands short of its hold while a paid leg is owed more → what it did not take tops the paid leg up', given: owedScene, when: fillLeg(1, 70_000n), then: thenStatus([landed(1, 70_000n, 749n), reserved(2, 30_000n, T0 + hour)], 'partially_filled') },
  { row: 'partially filled: a fill reversed into the lock while a paid leg is owed more → topped up', given: [...open, reserved(1, 80_000n), landed(1, 80_000n, 856n), owing(2, 10_000n, 20_000n, T0 + 2 * hour)], when: reverseFill('leg_p1'), then: [reversed('leg_p1', 'reserved'), reserved(2, 20_000n, T0 + 3 * hour)] },
  { row: 'open, held in full by other payers: a paid leg with no capacity left → in flight holding nothing, owed its money (counted among the splits)', given: [...open, reserved(1, 100_000n)], when: { type: 'ReserveLeg', at: T0 + hour, legRef: 'leg_p2', amountMinor: 0n, paid: true, owedMinor: 30_000n }, then: thenStatus([owing(2, 0n, 30_000n, T0 + hour)], 'open') },
  { row: 'open: the other payer\'s leg released → the waiting paid leg takes the capacity first', given: [...open, reserved(1, 100_000n), owing(2, 0n, 30_000n, T0 + hour)], when: { type: 'ReleaseLeg', at: T0 + 2 * hour, legRef: 'leg_p1' }, then: [{ type: 'LegReleased', at: T0 + 2 * hour, legRef: 'leg_p1' }, reserved(2, 30_000n, T0 + 2 * hour)] },
  { row: 'settled: a paid leg with nothing to hold → no events (the order takes nothing more; the deposit\'s settlement places the money)', given: settled, when: { type: 'ReserveLeg', at: T0 + 3 * hour, legRef: 'leg_p3', amountMinor: 0n, paid: true, owedMinor: 30_000n }, then: [] },
  { row: 'expired holding a paid leg: asked to hold more → no events (an expired order keeps what it held)', given: expiredHolding, when: { type: 'ReserveLeg', at: expiresAt + hour, legRef: 'leg_p1', amountMinor: 40_000n, paid: true }, then: [] },
  { row: 'open: the same leg reserved again → no events', given: [...open, reserved(1, 30_000n)], when: { type: 'ReserveLeg', at: T0 + 2 * minute, legRef: 'leg_p1', amountMinor: 30_000n }, then: [] },
  { row: 'open: a leg released (its deposit closed) → capacity back', given: [...open, reserved(1, 30_000n)], when: { type: 'ReleaseLeg', at: T0 + hour, legRef: 'leg_p1' }, then: [{ type: 'LegReleased', at: T0 + hour, legRef: 'leg_p1' }] },
  { row: 'open: releasing a leg not in flight → no events', given: open, when: { type: 'ReleaseLeg', at: T0 + hour, legRef: 'leg_p1' }, then: [] },
  {
    row: 'open → first fill lands → partially_filled (withdrawal.filled), fee recognised in proportion',
    given: [...open, reserved(1, 30_000n)], when: fillLeg(1, 30_000n), then: thenStatus([landed(1, 30_000n, 321n)], 'partially_filled'),
  },
  {
    row: 'partially_filled → next fill lands → partially_filled, cumulative fee share',
    given: [...partiallyFilled, reserved(2, 30_000n)], when: fillLeg(2, 30_000n), then: thenStatus([landed(2, 30_000n, 321n)], 'partially_filled'),
  },
  {
    row: 'open or partially_filled → fills reach the full amount → settled (withdrawal.filled and withdrawal.settled), the whole fee recognised',
    given: [...partiallyFilled, reserved(2, 70_000n)], when: fillLeg(2, 70_000n),
    then: thenStatus([landed(2, 70_000n, 749n), { type: 'WithdrawalSettled', at: T0 + 2 * hour }], 'settled'),
  },
  {
    row: 'open → one fill of the full amount → settled',
    given: [...open, reserved(1, amount)], when: fillLeg(1, amount),
    then: thenStatus([landed(1, amount, fee.totalMinor), { type: 'WithdrawalSettled', at: T0 + hour }], 'settled'),
  },
  { row: 'open: a fill larger than what remains (others in flight) → alloc_state_conflict', given: [...open, reserved(1, 80_000n)], when: fillLeg(2, 30_000n), refused: 'alloc_state_conflict', message: /exceeds/ },
  { row: 'partially_filled: the same leg_ref landing again → no events', given: partiallyFilled, when: fillLeg(1, 30_000n), then: [] },
  { row: 'expired: a fill → alloc_state_conflict', given: expired, when: fillLeg(2, 10_000n), refused: 'alloc_state_conflict', message: /expired withdrawal cannot take a fill/ },
  {
    row: 'open or partially_filled → expires_at passes with remainder → expired (refund of the remainder)',
    given: partiallyFilled, when: { type: 'ExpireWithdrawal', at: expiresAt, refund }, then: thenStatus([{ type: 'WithdrawalExpired', at: expiresAt, refund }], 'expired'),
  },
  {
    row: 'open: expiry while a payer is mid-transfer → expired at expires_at, the rest refunded, the leg held',
    given: [...open, reserved(1, 30_000n)], when: { type: 'ExpireWithdrawal', at: expiresAt, refund }, then: thenStatus([{ type: 'WithdrawalExpired', at: expiresAt, refund }], 'expired'),
  },
  // The held leg lands after expiry: it is paid from the lock with its fee share (⌊1 070 × 30 000 / 100 000⌋ = 321); the order stays expired.
  { row: 'expired holding a leg: the leg lands → its fill, stays expired', given: expiredHolding, when: fillLeg(1, 30_000n), then: thenStatus([landed(1, 30_000n, 321n)], 'expired') },
  { row: 'expired holding a leg: more than it held → alloc_state_conflict', given: expiredHolding, when: fillLeg(1, 30_100n), refused: 'alloc_state_conflict', message: /exceeds/ },
  { row: 'expired holding a leg: a leg it did not hold → alloc_state_conflict', given: expiredHolding, when: fillLeg(2, 10_000n), refused: 'alloc_state_conflict', message: /expired withdrawal cannot take a fill/ },
  {
    row: 'expired holding a leg: the leg released (its deposit declined) → LegReleased with the rows giving it back',
    given: expiredHolding, when: { type: 'ReleaseLeg', at: expiresAt + hour, legRef: 'leg_p1', refund: refund2 }, then: thenStatus([{ type: 'LegReleased', at: expiresAt + hour, legRef: 'leg_p1', refund: refund2 }], 'expired'),
  },
  { row: 'expired holding a leg: released without refund rows → alloc_state_conflict', given: expiredHolding, when: { type: 'ReleaseLeg', at: expiresAt + hour, legRef: 'leg_p1' }, refused: 'alloc_state_conflict' },
  { row: 'open: the expiry timer firing early → no events', given: open, when: { type: 'ExpireWithdrawal', at: expiresAt - 1, refund }, then: [] },
  {
    row: 'open or partially_filled → remainder canceled → canceled (merchant_request)',
    given: partiallyFilled, when: { type: 'CancelWithdrawal', at: T0 + 2 * hour, by: 'merchant', refund },
    then: thenStatus([{ type: 'WithdrawalCanceled', at: T0 + 2 * hour, by: 'merchant', reasonCode: 'merchant_request', refund }], 'canceled'),
  },
  {
    row: 'open → remainder canceled by an operator → canceled (operator_request)',
    given: open, when: { type: 'CancelWithdrawal', at: T0 + hour, by: 'operator', refund },
    then: [{ type: 'WithdrawalCanceled', at: T0 + hour, by: 'operator', reasonCode: 'operator_request', refund }],
  },
  { row: 'open: cancel while a fill is in flight → withdrawal_has_pending_fill', given: [...open, reserved(1, 30_000n)], when: { type: 'CancelWithdrawal', at: T0 + hour, by: 'merchant', refund }, refused: 'withdrawal_has_pending_fill' },
  { row: 'open: cancel while a late slip\'s leg waits holding nothing (its payee paid, capacity gone since) → withdrawal_has_pending_fill', given: [...open, owing(2, 0n, 30_000n)], when: { type: 'CancelWithdrawal', at: T0 + hour, by: 'merchant', refund }, refused: 'withdrawal_has_pending_fill' },
  {
    row: "open: a claim's refund (refund_of_deposit_id) canceled by the merchant → withdrawal_not_cancelable (an operator may)",
    given: [{ type: 'WithdrawalCreated', at: T0, withdrawal: { ...newWithdrawal(false), refundOfDepositId: 'dep_paid' } } as WithdrawalEvent],
    when: { type: 'CancelWithdrawal', at: T0 + hour, by: 'merchant', refund }, refused: 'withdrawal_not_cancelable',
  },
  {
    row: "open: a claim's refund canceled by an operator → canceled (operator_request)",
    given: [{ type: 'WithdrawalCreated', at: T0, withdrawal: { ...newWithdrawal(false), refundOfDepositId: 'dep_paid' } } as WithdrawalEvent],
    when: { type: 'CancelWithdrawal', at: T0 + hour, by: 'operator', refund },
    then: [{ type: 'WithdrawalCanceled', at: T0 + hour, by: 'operator', reasonCode: 'operator_request', refund }],
  },
  { row: 'settled: cancel → withdrawal_not_cancelable', given: settled, when: { type: 'CancelWithdrawal', at: T0 + 3 * hour, by: 'merchant', refund }, refused: 'withdrawal_not_cancelable' },

  // ---- fill reversals ----
  { row: 'settled → a fill is reversed → status never moves back; the money returns to available', given: settled, when: reverseFill('leg_p1'), then: thenStatus([reversed('leg_p1', 'available')], 'settled') },
  { row: 'partially_filled → a fill is reversed → partially_filled; the amount returns to the order\'s lock', given: partiallyFilled, when: reverseFill('leg_p1'), then: thenStatus([reversed('leg_p1', 'reserved')], 'partially_filled') },
  { row: 'settled: the same fill reversed again → operation_not_allowed (a fill is reversed once)', given: [...settled, reversed('leg_p1', 'available')], when: reverseFill('leg_p1', T0 + 4 * hour), refused: 'operation_not_allowed', message: /already reversed/ },
  { row: 'settled: reversing a leg_ref with no fill → resource_not_found', given: settled, when: reverseFill('leg_p9'), refused: 'resource_not_found' },
  { row: 'expired after a fill → the fill is reversed (a lost dispute) → stays expired; the money returns to available', given: expired, when: reverseFill('leg_p1', expiresAt + hour), then: thenStatus([reversed('leg_p1', 'available', expiresAt + hour)], 'expired') },
  { row: 'open: reversing a fill it does not have → resource_not_found', given: open, when: reverseFill('leg_p1'), refused: 'resource_not_found' },
  {
    row: "expired claim refund (refund_of_deposit_id) after a fill → the fill is reversed → stays expired; the money goes through its lock back to suspense (no available: it was never the merchant's)",
    given: [{ type: 'WithdrawalCreated', at: T0, withdrawal: { ...newWithdrawal(false), refundOfDepositId: 'dep_paid' } } as WithdrawalEvent, ...expired.slice(1)],
    when: { ...(reverseFill('leg_p1', expiresAt + hour) as Extract<WithdrawalCommand, { type: 'ReverseFill' }>), suspenseBalanceTransactionId: 'btxn_rvs' },
    then: thenStatus([{ ...reversed('leg_p1', 'reserved', expiresAt + hour), toSuspense: { balanceTransactionId: 'btxn_rvs' } } as WithdrawalEvent], 'expired'),
  },
  {
    row: "partially filled claim refund → a fill is reversed → partially_filled; the amount returns to its lock (nothing to suspense)",
    given: [{ type: 'WithdrawalCreated', at: T0, withdrawal: { ...newWithdrawal(false), refundOfDepositId: 'dep_paid' } } as WithdrawalEvent, ...partiallyFilled.slice(1)],
    when: reverseFill('leg_p1'), then: thenStatus([reversed('leg_p1', 'reserved')], 'partially_filled'),
  },

  // ---- receipts and disputes ----
  { row: 'any → payee confirms receipt → unchanged (withdrawal.receipt_confirmed)', given: settled, when: { type: 'ConfirmReceipt', at: T0 + 3 * hour, legRef: 'leg_p1', auto: false }, then: [{ type: 'ReceiptConfirmed', at: T0 + 3 * hour, legRef: 'leg_p1', auto: false }] },
  {
    row: 'any → receipt auto-confirmed 3 hours after the fill → unchanged',
    given: partiallyFilled, when: { type: 'ConfirmReceipt', at: T0 + hour + limits.fillAutoConfirmMs, legRef: 'leg_p1', auto: true },
    then: [{ type: 'ReceiptConfirmed', at: T0 + hour + limits.fillAutoConfirmMs, legRef: 'leg_p1', auto: true }],
  },
  { row: 'any: the auto-confirm timer firing early → no events', given: partiallyFilled, when: { type: 'ConfirmReceipt', at: T0 + hour, legRef: 'leg_p1', auto: true }, then: [] },
  { row: 'any: confirming a leg_ref with no fill → resource_not_found', given: partiallyFilled, when: { type: 'ConfirmReceipt', at: T0 + 2 * hour, legRef: 'leg_p9', auto: false }, refused: 'resource_not_found' },
  {
    row: 'any → dispute opened → unchanged (withdrawal.disputed), no funds held',
    given: settled, when: { type: 'OpenDispute', at: T0 + 2 * hour, disputeId: 'dsp_1', reasonCode: 'not_received', amountMinor: 30_000n, respondBy: T0 + 50 * hour },
    then: thenStatus([disputeOpened], 'settled'),
  },
  {
    row: 'any: a second dispute while one is open → operation_not_allowed',
    given: [...settled, disputeOpened], when: { type: 'OpenDispute', at: T0 + 3 * hour, disputeId: 'dsp_2', reasonCode: 'not_received', amountMinor: 1n, respondBy: T0 + 50 * hour },
    refused: 'operation_not_allowed', message: /already has an open dispute/,
  },
  {
    row: 'any: a dispute for more than was filled → validation_error',
    given: partiallyFilled, when: { type: 'OpenDispute', at: T0 + 2 * hour, disputeId: 'dsp_1', reasonCode: 'not_received', amountMinor: 30_001n, respondBy: T0 + 50 * hour },
    refused: 'validation_error', message: /at most the filled amount/,
  },
  { row: 'any: evidence on an open dispute before respond_by → recorded', given: [...settled, disputeOpened], when: { type: 'SubmitDisputeEvidence', at: T0 + 3 * hour }, then: [{ type: 'DisputeEvidenceSubmitted', at: T0 + 3 * hour }] },
  { row: 'any: evidence after respond_by → operation_not_allowed', given: [...settled, disputeOpened], when: { type: 'SubmitDisputeEvidence', at: T0 + 50 * hour + 1 }, refused: 'operation_not_allowed', message: /deadline/ },
  { row: 'any: evidence with no open dispute → operation_not_allowed', given: settled, when: { type: 'SubmitDisputeEvidence', at: T0 + 3 * hour }, refused: 'operation_not_allowed', message: /no open dispute/ },
  { row: 'any → dispute resolved → unchanged (withdrawal.dispute_resolved)', given: [...settled, disputeOpened], when: { type: 'ResolveDispute', at: T0 + 4 * hour, outcome: 'merchant_won' }, then: thenStatus([{ type: 'DisputeResolved', at: T0 + 4 * hour, outcome: 'merchant_won' }], 'settled') },
  { row: 'any: resolving with no open dispute → operation_not_allowed', given: settled, when: { type: 'ResolveDispute', at: T0 + 4 * hour, outcome: 'merchant_won' }, refused: 'operation_not_allowed' },
];

table(withdrawal, rows);

// ---- (create): admitWithdrawal, every check a new order must pass ----

type CreateRequest = Extract<Command, { type: 'CreateWithdrawal' }>;
const merchant: Merchant = { id: 'mch_payer', whiteLabelId: 'wl_1', name: 'Shop', suspended: false, version: 0, createdAt: T0 };
const beneficiary: Beneficiary = {
  id: 'ben_1', merchantId: 'mch_payer', livemode: true, bankCode: '004', accountNumber: '1112223331', accountNameTh: 'สมหญิง รักดี',
  status: 'verified', version: 1, createdAt: T0, verifiedAt: T0,
};
const facts = (over: Partial<CreateWithdrawalFacts> = {}): CreateWithdrawalFacts => ({
  merchant, whiteLabel: { fees: defaultFeeSchedule, amounts: defaultAmountPolicy }, beneficiary, referenceUsed: false,
  balances: { availableMinor: amount + fee.totalMinor, pendingClearingMinor: 0n, reservedMinor: 0n }, nextClearingAt: () => null, at: T0, ...over,
});
const request = (over: Partial<CreateRequest> = {}): CreateRequest => ({
  type: 'CreateWithdrawal', actor: { kind: 'merchant', merchantId: 'mch_payer', livemode: true }, amountMinor: amount, merchantReference: 'payout-1',
  endUserRef: 'payee-1', beneficiaryId: 'ben_1', requiresApproval: false, p2pMinimumApplies: false, ...over,
});
const admission: Decider<undefined, never, CreateRequest, AdmittedWithdrawal, CreateWithdrawalFacts> = {
  initialState: () => undefined, evolve: (s) => s, decide: (c, _s, f) => admitWithdrawal(c, f),
};
type AdmissionRow = Row<undefined, never, CreateRequest, AdmittedWithdrawal, CreateWithdrawalFacts>;
const admissionRows: AdmissionRow[] = [
  { row: '(create) admitted: available covers amount + fee; the fee is the white label\'s fixed fee plus VAT', given: [], when: request(), facts: facts(), then: { fee, beneficiary } },
  { row: '(create) unknown merchant → api_key_invalid', given: [], when: request(), facts: facts({ merchant: undefined }), refused: 'api_key_invalid' },
  { row: '(create) suspended merchant → tenant_suspended', given: [], when: request(), facts: facts({ merchant: { ...merchant, suspended: true } }), refused: 'tenant_suspended' },
  { row: '(create) amount 0 → amount_not_supported', given: [], when: request({ amountMinor: 0n }), facts: facts(), refused: 'amount_not_supported' },
  { row: '(create) below the minimum on a P2P route → amount_below_p2p_minimum', given: [], when: request({ amountMinor: 5_000n, p2pMinimumApplies: true }), facts: facts(), refused: 'amount_below_p2p_minimum' },
  { row: '(create) below the minimum elsewhere → amount_not_supported', given: [], when: request({ amountMinor: 5_000n }), facts: facts(), refused: 'amount_not_supported', message: /at least/ },
  { row: '(create) a beneficiary of another merchant → validation_error (not_found)', given: [], when: request(), facts: facts({ beneficiary: { ...beneficiary, merchantId: 'mch_other' } }), refused: 'validation_error', message: /beneficiary_id/ },
  { row: '(create) a beneficiary not verified yet → beneficiary_not_verified', given: [], when: request(), facts: facts({ beneficiary: { ...beneficiary, status: 'pending_verification' } }), refused: 'beneficiary_not_verified' },
  { row: '(create) merchant_reference already used → validation_error (not_unique)', given: [], when: request(), facts: facts({ referenceUsed: true }), refused: 'validation_error', message: /merchant_reference/ },
  {
    row: '(create) sandbox scenario 11300 → insufficient_balance even when available covers it, naming the clearing funds',
    given: [], when: request({ actor: { kind: 'merchant', merchantId: 'mch_payer', livemode: false }, amountMinor: 11_300n }),
    facts: facts({ beneficiary: { ...beneficiary, livemode: false }, balances: { availableMinor: 1_000_000n, pendingClearingMinor: 9_839n, reservedMinor: 0n } }),
    refused: 'insufficient_balance',
  },
  {
    row: '(create) live 11300 is an ordinary amount → admitted',
    given: [], when: request({ amountMinor: 11_300n }), facts: facts({ balances: { availableMinor: 1_000_000n, pendingClearingMinor: 0n, reservedMinor: 0n } }), then: { fee, beneficiary },
  },
  {
    row: '(create) available below amount + fee → insufficient_balance',
    given: [], when: request(), facts: facts({ balances: { availableMinor: amount + fee.totalMinor - 1n, pendingClearingMinor: 5_000n, reservedMinor: 0n } }), refused: 'insufficient_balance',
  },
];
table(admission, admissionRows);

// ---- every refusal code has a row ----

test('every refusal code core/withdrawal/decide.ts can return (its money checks included) has a row in decide\'s or admission\'s table', () => {
  const covered = new Set([...refusalCodesOfRows(rows), ...refusalCodesOfRows(admissionRows)]);
  const codes = [...refusalCodesReachable('core/withdrawal/decide.ts')];
  assert.ok(codes.includes('amount_below_p2p_minimum'), 'the amount check of money.ts is read through the import');
  assert.equal(codes.filter((c) => !covered.has(c)).sort(), [], 'codes with no row');
});

test('the table is the contract\'s: a row from every From status of "Withdrawal transitions"', () => {
  const named = rows.map((r) => r.row);
  for (const from of ['(create)', 'pending_approval', 'open', 'partially_filled', 'settled', 'any']) {
    assert.ok(named.some((n) => n.startsWith(from)), `no row from ${from}`);
  }
  assert.is(given(withdrawal, settled).state?.filledMinor, amount);
});

test.run();
