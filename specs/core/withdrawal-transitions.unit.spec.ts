// The withdrawal decider's transition table (contract: "Withdrawal transitions"): one test
// per row, given a state reached through the real command handler (fills come from real
// deposits settling into the order), when one command, then the status, the journal
// entries and merchant events, the version step and the wallet movements. Throughout,
// the merchant's reserved bucket must equal what its open orders still lock (remaining
// principal plus unused fee). Refusal rows assert the code, no journal entry and
// byte-identical balances; the last test checks every refusal code the withdrawal decider
// and its handler can return appears in a row.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Command } from '../../core/handler/commands.ts';
import { limits } from '../../core/limits.ts';
import { presentWithdrawal } from '../../core/present.ts';
import { decide } from '../../core/withdrawal/decide.ts';
import { lockedOf, remainingOf } from '../../core/withdrawal/state.ts';
import { exactTransfer, merchantActor, operator, type Harness } from '../support/core-harness.ts';
import { balances, emitted, found, openDeposit, receiveSlip, refusalCodesIn, refused, row, scene, verify, type Scene } from '../support/transitions.ts';

const seen = new Set<string>();
const hour = 3_600_000;
const funds = 1_000_000n;

const wdr = (h: Harness, id: string) => h.world.withdrawals.get(id)!;

/** The payer's reserved bucket is exactly what its open orders still lock. */
function assertReservedMatchesLocks(s: Scene): void {
  let locked = 0n;
  for (const w of s.h.world.withdrawals.values()) if (w.merchantId === s.payer) locked += lockedOf(w);
  assert.is(balances(s.h, s.payer)[2], locked, 'reserved = Σ remaining + unused fee');
}

/** A deposit of `amountMinor` matched to the oldest payable order and settled: one fill. */
function fill(s: Scene, amountMinor: bigint): string {
  const id = openDeposit(s, amountMinor);
  receiveSlip(s.h, id, 'rcpt_1');
  verify(s.h, id, 'rcpt_1', found(exactTransfer(s.h, id)));
  assert.is(s.h.world.deposits.get(id)!.status, 'settled');
  return id;
}

const createCommand = (s: Scene, beneficiaryId: string, over: Partial<Extract<Command, { type: 'CreateWithdrawal' }>> = {}): Command => ({
  type: 'CreateWithdrawal', actor: merchantActor(s.payer), amountMinor: 100_000n, merchantReference: s.h.ids.next('ref'), endUserRef: 'payee',
  beneficiaryId, requiresApproval: false, p2pMinimumApplies: false, ...over,
});

// ---- (create) ----

test('(create) no approval needed → open; withdrawal.created and balance.debited withdrawal_reserved (amount + fee)', () => {
  const s = scene(funds);
  let id = '';
  const beneficiaryId = s.h.beneficiary(s.payer); // its own commit: beneficiary.verified
  const out = emitted(s.h, () => { id = s.h.withdrawal(s.payer, 100_000n, { beneficiaryId }); });
  const w = wdr(s.h, id);
  assert.equal([w.status, w.version, w.requiresApproval], ['open', 0, false]);
  assert.equal(out.on(id), ['WithdrawalCreated']);
  assert.equal(out.events, ['withdrawal.created', 'balance.debited']);
  assert.equal(out.ledger.map(row), [['withdrawal_reserved', s.payer, 'available', 'reserved', 101_070n]]);
  assert.equal(balances(s.h, s.payer), [funds - 101_070n, 0n, 101_070n]);
  const shown = presentWithdrawal(w);
  assert.equal(
    [shown.amount_total_minor, shown.fee_total_minor, shown.total_locked_minor, shown.filled_minor, shown.remaining_minor, shown.fee_recognized_minor, shown.settled_splits, shown.max_splits],
    [100_000, 1_070, 101_070, 0, 100_000, 0, 0, limits.withdrawalMaxSplits],
  );
  assert.is(shown.reserved_balance_transaction_id, out.ledger[0]!.id);
  assert.equal(s.h.world.timersOf(id).map((t) => [t.kind, t.dueAt]), [['withdrawal.expire', w.createdAt + limits.withdrawalLifetimeMs]]);
});

test('(create) approval required → pending_approval with the same reserve; not payer-matchable', () => {
  const s = scene(funds);
  let id = '';
  const beneficiaryId = s.h.beneficiary(s.payer);
  const out = emitted(s.h, () => { id = s.h.withdrawal(s.payer, 100_000n, { requiresApproval: true, beneficiaryId }); });
  const w = wdr(s.h, id);
  assert.equal([w.status, w.version, w.approvalsRequired], ['pending_approval', 0, limits.withdrawalApprovalsRequired]);
  assert.equal(out.events, ['withdrawal.created', 'balance.debited']);
  assert.equal(out.ledger.map(row), [['withdrawal_reserved', s.payer, 'available', 'reserved', 101_070n]]);
  assert.equal(s.h.world.timersOf(id).map((t) => [t.kind, t.dueAt]), [['withdrawal.approval_timeout', w.createdAt + limits.withdrawalApprovalTimeoutMs]]);
  const deposit = openDeposit(s, 20_000n);
  assert.is(s.h.world.deposits.get(deposit)!.status, 'awaiting_liquidity', 'a pending order takes no payer');
});

test('(create) refusals: no order and no lock', () => {
  const s = scene(funds);
  const verified = s.h.beneficiary(s.payer);
  refused(s.h, createCommand(s, verified, { actor: merchantActor('mch_unknown') }), 'api_key_invalid', seen);
  refused(s.h, createCommand(s, verified, { amountMinor: 0n }), 'amount_not_supported', seen);
  refused(s.h, createCommand(s, verified, { amountMinor: 9_999n }), 'amount_not_supported', seen);
  const below = refused(s.h, createCommand(s, verified, { amountMinor: 9_999n, p2pMinimumApplies: true }), 'amount_below_p2p_minimum', seen);
  assert.equal(below.details, { min_minor: 10_000 });
  const foreign = s.h.beneficiary(s.depositor);
  refused(s.h, createCommand(s, foreign), 'validation_error', seen);
  const pending = s.h.ok({ type: 'RegisterBeneficiary', actor: operator(), merchantId: s.payer, livemode: true, bankCode: '004', accountNumber: '1212121212', accountNameTh: 'สมหญิง รักดี', verified: false });
  const r = refused(s.h, createCommand(s, pending), 'beneficiary_not_verified', seen);
  assert.equal(r.details, { beneficiary_id: pending });
  s.h.ok(createCommand(s, verified, { merchantReference: 'payout-1' }));
  refused(s.h, createCommand(s, verified, { merchantReference: 'payout-1' }), 'validation_error', seen);
  s.h.ok({ type: 'SetMerchantSuspended', actor: operator(), merchantId: s.payer, suspended: true });
  refused(s.h, createCommand(s, verified), 'tenant_suspended', seen);
});

test('a suspended merchant\'s open withdrawals take no new payer (nor show in suggested amounts); lifting the suspension matches the deposits that waited', () => {
  const s = scene(funds);
  const mine = s.h.withdrawal(s.payer, 300_000n);
  s.h.ok({ type: 'SetMerchantSuspended', actor: operator(), merchantId: s.payer, suspended: true });
  const waiting = openDeposit(s, 100_000n);
  const d = s.h.world.deposits.get(waiting)!;
  assert.is(d.status, 'awaiting_liquidity', 'no leg to a frozen merchant\'s payee');
  assert.equal(d.liquidity?.suggestedAmountsMinor, [], 'its amounts are not offered either');
  assert.equal(wdr(s.h, mine).inFlight, [], 'nothing in flight to it');
  s.h.ok({ type: 'SetMerchantSuspended', actor: operator(), merchantId: s.payer, suspended: false });
  const matched = s.h.world.deposits.get(waiting)!;
  assert.is(matched.status, 'awaiting_payment', 'matched once the suspension is lifted');
  assert.equal(matched.legs.map((l) => l.counterparty.kind === 'withdrawal' ? l.counterparty.withdrawalId : null), [mine]);
});

test('(create) insufficient_balance: available < amount + fee while funds sit in pending_clearing; details say when they clear', () => {
  const s = scene(funds);
  s.h.withdrawal(s.payer, 100_000n);
  const deposit = fill(s, 50_000n);
  const clearsAt = s.h.world.deposits.get(deposit)!.settlement!.clearingAvailableAt!;
  const beneficiary = s.h.beneficiary(s.depositor);
  const command: Command = { ...createCommand(s, beneficiary), actor: merchantActor(s.depositor), amountMinor: 10_000n } as Command;
  const r = refused(s.h, command, 'insufficient_balance', seen);
  assert.equal(r.details, { available_minor: 0, required_minor: 11_070, pending_clearing_minor: 49_197, pending_clearing_available_at: clearsAt });
  s.h.advance(clearsAt - s.h.clock.ms);
  s.h.ok({ ...command, merchantReference: 'after-clearing' } as Command);
  assert.equal(balances(s.h, s.depositor), [49_197n - 11_070n, 0n, 11_070n]);
});

// ---- pending_approval ----

test('pending_approval → back office approves (two different operators) → open; no dedicated event; a waiting deposit is matched', () => {
  const s = scene(funds);
  const deposit = openDeposit(s, 20_000n);
  const id = s.h.withdrawal(s.payer, 100_000n, { requiresApproval: true });
  const first = emitted(s.h, () => s.h.ok({ type: 'ApproveWithdrawal', actor: operator('emp_alice'), withdrawalId: id }));
  assert.equal(first.entries, ['WithdrawalApprovalRecorded']);
  assert.equal(first.events, []);
  assert.equal([wdr(s.h, id).status, wdr(s.h, id).version, wdr(s.h, id).approvals], ['pending_approval', 1, ['emp_alice']]);
  const r = refused(s.h, { type: 'ApproveWithdrawal', actor: operator('emp_alice'), withdrawalId: id }, 'operation_not_allowed', seen);
  assert.match(r.message, /different employee/);
  // One person however the issuer spells them: case, or a full-width letter (an issuer that does not normalise its subjects).
  for (const spelled of ['EMP_ALICE', 'Emp_Alice', '\uFF45mp_alice']) {
    assert.match(refused(s.h, { type: 'ApproveWithdrawal', actor: operator(spelled), withdrawalId: id }, 'operation_not_allowed', seen).message, /different employee/, spelled);
  }
  const second = emitted(s.h, () => s.h.ok({ type: 'ApproveWithdrawal', actor: operator('emp_bob'), withdrawalId: id }));
  assert.equal(second.on(id), ['WithdrawalApprovalRecorded', 'LegReserved']);
  assert.equal(second.on(deposit), ['DepositMatched']);
  assert.equal(second.events, ['deposit.matched', 'withdrawal.matched']);
  assert.equal(second.ledger, [], 'approval moves no money: the lock was taken at creation');
  assert.equal([wdr(s.h, id).status, wdr(s.h, id).version], ['open', 3]);
  assert.is(s.h.world.deposits.get(deposit)!.status, 'awaiting_payment');
  assert.equal(s.h.world.timersOf(id).map((t) => t.kind), ['withdrawal.expire'], 'no approval timeout once open; the expiry, leg in flight or not');
  refused(s.h, { type: 'ApproveWithdrawal', actor: operator('emp_carol'), withdrawalId: id }, 'operation_not_allowed', seen);
  refused(s.h, { type: 'ApproveWithdrawal', actor: operator('emp_carol'), withdrawalId: 'wdr_unknown' }, 'resource_not_found', seen);
  assertReservedMatchesLocks(s);
});

test('pending_approval → back office rejects → rejected; withdrawal.rejected and balance.credited: full refund incl. fee', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 100_000n, { requiresApproval: true });
  const out = emitted(s.h, () => s.h.ok({ type: 'RejectWithdrawal', actor: operator(), withdrawalId: id, note: 'beneficiary looks wrong' }));
  const w = wdr(s.h, id);
  assert.equal([w.status, w.version, w.refundedMinor, w.rejection?.code], ['rejected', 1, 100_000n, 'rejected_by_operator']);
  assert.equal(out.on(id), ['WithdrawalRejected']);
  assert.equal(out.events, ['withdrawal.rejected', 'balance.credited', 'balance.credited']);
  assert.equal(out.ledger.map(row), [['withdrawal_released', s.payer, 'reserved', 'available', 100_000n], ['withdrawal_released', s.payer, 'reserved', 'available', 1_070n]]);
  assert.equal(balances(s.h, s.payer), [funds, 0n, 0n]);
  refused(s.h, { type: 'RejectWithdrawal', actor: operator(), withdrawalId: id }, 'operation_not_allowed', seen);
  const open = s.h.withdrawal(s.payer, 100_000n);
  const r = refused(s.h, { type: 'RejectWithdrawal', actor: operator(), withdrawalId: open }, 'operation_not_allowed', seen);
  assert.equal(r.details, { status: 'open' });
});

test('pending_approval → cancel → canceled; withdrawal.canceled and balance.credited', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 100_000n, { requiresApproval: true });
  const out = emitted(s.h, () => s.h.ok({ type: 'CancelWithdrawal', actor: merchantActor(s.payer), withdrawalId: id }));
  const w = wdr(s.h, id);
  assert.equal([w.status, w.canceledBy, w.cancelReasonCode, w.refundedMinor], ['canceled', 'merchant', 'merchant_request', 100_000n]);
  assert.equal(out.events, ['withdrawal.canceled', 'balance.credited', 'balance.credited']);
  assert.equal(balances(s.h, s.payer), [funds, 0n, 0n]);
});

test('pending_approval → 24-hour approval timeout → canceled approval_ttl_expired, refunded', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 100_000n, { requiresApproval: true });
  s.h.advance(limits.withdrawalApprovalTimeoutMs - 1);
  assert.is(wdr(s.h, id).status, 'pending_approval');
  const out = emitted(s.h, () => s.h.advance(1));
  const w = wdr(s.h, id);
  assert.equal([w.status, w.version, w.canceledBy, w.cancelReasonCode], ['canceled', 1, 'system', 'approval_ttl_expired']);
  assert.equal(out.on(id), ['WithdrawalCanceled']);
  assert.equal(out.ledger.map(row), [['withdrawal_released', s.payer, 'reserved', 'available', 100_000n], ['withdrawal_released', s.payer, 'reserved', 'available', 1_070n]]);
  assert.equal(balances(s.h, s.payer), [funds, 0n, 0n]);
});

// ---- open / partially_filled ----

test('open → payer matched → open; withdrawal.matched every time, capacity held in flight', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 100_000n);
  for (const [n, amount] of [[1, 20_000n], [2, 30_000n]] as const) {
    const out = emitted(s.h, () => openDeposit(s, amount));
    assert.equal(out.on(id), ['LegReserved']);
    assert.ok(out.events.includes('withdrawal.matched'));
    assert.equal([wdr(s.h, id).status, wdr(s.h, id).version, wdr(s.h, id).inFlight.length], ['open', n, n]);
  }
  const shown = presentWithdrawal(wdr(s.h, id));
  assert.equal([shown.reserved_minor, shown.remaining_minor, shown.filled_minor], [50_000, 100_000, 0]);
  assert.equal(s.h.world.timersOf(id).map((t) => [t.kind, t.dueAt]), [['withdrawal.expire', wdr(s.h, id).expiresAt]], 'expiry does not wait for a payer mid-transfer');
});

test('open → first fill lands → partially_filled; withdrawal.filled and balance.debited (principal and recognised fee)', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 100_000n);
  const deposit = openDeposit(s, 50_000n);
  const leg = s.h.world.deposits.get(deposit)!.legs[0]!;
  receiveSlip(s.h, deposit, 'rcpt_1');
  const out = emitted(s.h, () => verify(s.h, deposit, 'rcpt_1', found(exactTransfer(s.h, deposit))));
  const w = wdr(s.h, id);
  assert.equal([w.status, w.version, w.filledMinor, remainingOf(w), w.settledSplits], ['partially_filled', 2, 50_000n, 50_000n, 1]);
  assert.equal(out.on(id), ['FillLanded']);
  assert.equal(out.events.filter((e) => e.startsWith('withdrawal.')), ['withdrawal.filled']);
  const payerRows = out.ledger.filter((t) => t.merchantId === s.payer);
  assert.equal(payerRows.map(row), [['withdrawal_settled', s.payer, 'reserved', null, 50_000n], ['fee', s.payer, 'reserved', null, 535n]]);
  assert.ok(payerRows.every((t) => t.direction === 'debit'));
  const f = w.fills[0]!;
  assert.ok(leg.counterparty.kind === 'withdrawal');
  assert.equal([f.legRef, f.sequence, f.amountMinor, f.feeRecognizedMinor, f.autoConfirmAt, f.receiptState], [leg.counterparty.payoutLegRef, 1, 50_000n, 535n, s.h.clock.ms + limits.fillAutoConfirmMs, 'pending']);
  assert.equal(balances(s.h, s.payer), [funds - 101_070n, 0n, 101_070n - 50_535n]);
  assertReservedMatchesLocks(s);
});

test('partially_filled → next fill → partially_filled; fills reach the full amount → settled; fee recognised proportionally, exactly fee_total at the end', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 30_000n);
  const outs = [0, 1, 2].map(() => {
    const deposit = openDeposit(s, 10_000n);
    receiveSlip(s.h, deposit, 'rcpt_1');
    return emitted(s.h, () => verify(s.h, deposit, 'rcpt_1', found(exactTransfer(s.h, deposit))));
  });
  assert.equal(outs.map((o) => o.on(id)), [['FillLanded'], ['FillLanded'], ['FillLanded', 'WithdrawalSettled']]);
  assert.equal(outs[2]!.events.filter((e) => e.startsWith('withdrawal.')), ['withdrawal.filled', 'withdrawal.settled']);
  const w = wdr(s.h, id);
  assert.equal(w.fills.map((f) => f.feeRecognizedMinor), [356n, 357n, 357n], 'cumulative floor of fee × filled / amount');
  assert.equal([w.status, w.feeRecognizedMinor, remainingOf(w), w.settledSplits], ['settled', w.feeTotalMinor, 0n, 3]);
  assert.equal(balances(s.h, s.payer), [funds - 31_070n, 0n, 0n]);
  const single = s.h.withdrawal(s.payer, 10_000n);
  const deposit = openDeposit(s, 10_000n);
  receiveSlip(s.h, deposit, 'rcpt_1');
  const out = emitted(s.h, () => verify(s.h, deposit, 'rcpt_1', found(exactTransfer(s.h, deposit))));
  assert.equal(out.on(single), ['FillLanded', 'WithdrawalSettled'], 'open → settled in one fill');
  assert.is(wdr(s.h, single).feeRecognizedMinor, 1_070n);
  assertReservedMatchesLocks(s);
});

test('open or partially_filled → expires_at passes with remainder → expired; refunded_minor plus unused fee returned', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 100_000n);
  fill(s, 50_000n);
  s.h.advance(60_000);
  const untouched = s.h.withdrawal(s.payer, 10_000n);
  s.h.advance(wdr(s.h, id).expiresAt - s.h.clock.ms - 1);
  assert.is(wdr(s.h, id).status, 'partially_filled');
  const out = emitted(s.h, () => s.h.advance(1));
  const w = wdr(s.h, id);
  assert.equal([w.status, w.filledMinor, w.refundedMinor], ['expired', 50_000n, 50_000n]);
  assert.equal(out.on(id), ['WithdrawalExpired']);
  assert.equal(out.events, ['withdrawal.expired', 'balance.credited', 'balance.credited']);
  assert.equal(out.ledger.map(row), [['withdrawal_released', s.payer, 'reserved', 'available', 50_000n], ['withdrawal_released', s.payer, 'reserved', 'available', 535n]]);
  assert.is(wdr(s.h, untouched).status, 'open');
  const unfilled = emitted(s.h, () => s.h.advance(60_000));
  assert.equal(unfilled.ledger.map(row), [['withdrawal_released', s.payer, 'reserved', 'available', 10_000n], ['withdrawal_released', s.payer, 'reserved', 'available', 1_070n]], 'an unfilled order gets everything back');
  assert.equal([wdr(s.h, untouched).status, wdr(s.h, untouched).refundedMinor], ['expired', 10_000n]);
  assert.equal(balances(s.h, s.payer), [funds - 50_535n, 0n, 0n]);
});

test('open → expires_at while a payer is mid-transfer → expired at once: the rest and its fee back, the leg and its fee share held; the leg lands → filled on the expired order', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 100_000n);
  const deposit = openDeposit(s, 30_000n);
  receiveSlip(s.h, deposit, 'rcpt_1'); // the slip being verified: the payer is mid-transfer
  const paid = exactTransfer(s.h, deposit); // the transfer, made now
  const out = emitted(s.h, () => s.h.advance(wdr(s.h, id).expiresAt - s.h.clock.ms));
  const w = wdr(s.h, id);
  assert.equal([w.status, w.refundedMinor, w.inFlight.map((l) => l.amountMinor)], ['expired', 70_000n, [30_000n]]);
  assert.equal(out.on(id), ['WithdrawalExpired']);
  assert.equal(out.events, ['withdrawal.expired', 'balance.credited', 'balance.credited']);
  // 1 070 of fee: the leg's share ⌊1 070 × 30 000 / 100 000⌋ = 321 held, 749 back.
  assert.equal(out.ledger.map(row), [['withdrawal_released', s.payer, 'reserved', 'available', 70_000n], ['withdrawal_released', s.payer, 'reserved', 'available', 749n]]);
  assert.equal(balances(s.h, s.payer), [funds - 30_321n, 0n, 30_321n]);
  assert.equal(s.h.world.timersOf(id), [], 'nothing more to expire');
  assertReservedMatchesLocks(s);

  const landed = emitted(s.h, () => verify(s.h, deposit, 'rcpt_1', found(paid))); // the verifier answers at last
  assert.is(s.h.world.deposits.get(deposit)!.status, 'settled', 'the payer who paid is credited');
  const after = wdr(s.h, id);
  assert.equal([after.status, after.filledMinor, after.feeRecognizedMinor, after.inFlight.length, after.refundedMinor], ['expired', 30_000n, 321n, 0, 70_000n]);
  assert.ok(landed.events.includes('withdrawal.filled'));
  assert.equal(balances(s.h, s.payer), [funds - 30_321n, 0n, 0n], 'the lock paid the leg and its fee share, to the satang');
  assertReservedMatchesLocks(s);
});

test('expired holding a leg → the payer\'s slip declined → the leg and its fee share come back (balance.credited); no payer is matched to it', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 100_000n);
  const deposit = openDeposit(s, 30_000n);
  receiveSlip(s.h, deposit, 'rcpt_1');
  verify(s.h, deposit, 'rcpt_1', found(exactTransfer(s.h, deposit, { senderName: 'สมศรี มีสุข' }))); // another payer's name: held for review
  assert.is(s.h.world.deposits.get(deposit)!.status, 'under_review');
  s.h.advance(wdr(s.h, id).expiresAt - s.h.clock.ms);
  assert.equal([wdr(s.h, id).status, wdr(s.h, id).refundedMinor], ['expired', 70_000n]);
  assert.is(s.h.world.deposits.get(openDeposit(s, 10_000n))!.status, 'awaiting_liquidity', 'an expired order takes no new payer');
  const out = emitted(s.h, () => s.h.ok({ type: 'DeclineDepositReview', actor: operator(), depositId: deposit, note: 'no such transfer in the bank statement' }));
  assert.equal(out.on(id), ['LegReleased']);
  assert.equal(out.events.filter((e) => e.startsWith('balance.')), ['balance.credited', 'balance.credited']);
  // The order is told too: the expiry's refund grew, so its snapshot (the highest version) says so.
  const told = s.h.journal.events.find((e) => e.type === 'withdrawal.expired' && (e.object as { refunded_minor?: number }).refunded_minor === 100_000) as unknown as { previousAttributes: Record<string, unknown> } | undefined;
  assert.ok(told && out.events.includes('withdrawal.expired'), 'withdrawal.expired with refunded_minor 100000');
  assert.equal([told!.previousAttributes.refunded_minor, told!.previousAttributes.reserved_minor], [70_000, 30_000]);
  assert.equal(out.ledger.map(row), [['withdrawal_released', s.payer, 'reserved', 'available', 30_000n], ['withdrawal_released', s.payer, 'reserved', 'available', 321n]]);
  const w = wdr(s.h, id);
  assert.equal([w.status, w.refundedMinor, w.inFlight.length, w.filledMinor], ['expired', 100_000n, 0, 0n]);
  assert.equal(balances(s.h, s.payer), [funds, 0n, 0n], 'everything back');
  assertReservedMatchesLocks(s);
});

test('expired holding a leg → a landed fill reversed: the held fee\'s rounding moves between the lock and available, every bucket to the satang; the leg then goes', () => {
  // The ledger property's counterexample: 89,167 with a 5,000 fill and a 10,000 leg held at
  // expiry; reversing the fill left the reserved bucket a satang over the lock, as the held
  // fee is cumulative shares rounded on what the order filled.
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 89_167n);
  fill(s, 5_000n);
  const held = openDeposit(s, 10_000n);
  receiveSlip(s.h, held, 'rcpt_h');
  verify(s.h, held, 'rcpt_h', found(exactTransfer(s.h, held, { senderName: 'สมศรี มีสุข' }))); // held for review
  s.h.advance(wdr(s.h, id).expiresAt - s.h.clock.ms);
  const w = wdr(s.h, id);
  assert.equal([w.status, w.inFlight.length], ['expired', 1]);
  const f = w.fills[0]!;
  const out = emitted(s.h, () => s.h.ok({ type: 'ReverseFill', actor: operator(), withdrawalId: id, legRef: f.legRef, reasonCode: 'BANK_RECALL', note: 'recalled by the sender bank' }));
  assert.equal(out.ledger.map(row), [
    ['reversal', s.payer, null, 'available', 5_000n],
    ['fee', s.payer, null, 'available', f.feeRecognizedMinor],
    ['withdrawal_released', s.payer, 'reserved', 'available', 1n],
  ], 'the fill, its fee, and the satang of rounding the held fee no longer needs');
  assert.is(wdr(s.h, id).fills[0]!.reversal?.reasonCode, 'BANK_RECALL');
  assertReservedMatchesLocks(s);
  s.h.ok({ type: 'DeclineDepositReview', actor: operator(), depositId: held, note: 'no such transfer in the bank statement' });
  assert.equal(wdr(s.h, id).inFlight.length, 0);
  assert.equal(balances(s.h, s.payer), [funds, 0n, 0n], 'everything back: the fill, its fee, the held leg and its fee');
  assertReservedMatchesLocks(s);
});

test('expired holding a leg → a later fill reversed whose cumulative share rounded down: the held fee grows a satang, taken into the lock out of the fee returned', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 100_000n); // fee 1,070
  fill(s, 5_000n); // ⌊1,070 × 5,000 / 100,000⌋ = 53
  fill(s, 5_000n); // cumulative: ⌊1,070 × 10,000 / 100,000⌋ − 53 = 54
  const held = openDeposit(s, 5_000n); // would recognise ⌊1,070 × 15,000 / 100,000⌋ − 107 = 53
  receiveSlip(s.h, held, 'rcpt_h');
  verify(s.h, held, 'rcpt_h', found(exactTransfer(s.h, held, { senderName: 'สมศรี มีสุข' }))); // held for review
  s.h.advance(wdr(s.h, id).expiresAt - s.h.clock.ms);
  const f = wdr(s.h, id).fills[1]!;
  assert.equal([wdr(s.h, id).status, wdr(s.h, id).inFlight.length, f.feeRecognizedMinor], ['expired', 1, 54n]);
  const out = emitted(s.h, () => s.h.ok({ type: 'ReverseFill', actor: operator(), withdrawalId: id, legRef: f.legRef, reasonCode: 'BANK_RECALL', note: 'recalled by the sender bank' }));
  assert.equal(out.ledger.map(row), [
    ['reversal', s.payer, null, 'available', 5_000n],
    ['fee', s.payer, null, 'available', 54n],
    ['withdrawal_reserved', s.payer, 'available', 'reserved', 1n],
  ], 'the held leg would now recognise ⌊1,070 × 10,000 / 100,000⌋ − 53 = 54, a satang more: it is locked');
  assertReservedMatchesLocks(s);
  // The held leg lands after all (an operator approves the payer's slip): it takes its share out of the lock, and nothing is left.
  s.h.ok({ type: 'ApproveDepositReview', actor: operator(), depositId: held, note: 'the payer is the account holder' });
  const w = wdr(s.h, id);
  assert.equal([w.status, w.inFlight.length, w.filledMinor, w.fills[2]!.feeRecognizedMinor], ['expired', 0, 10_000n, 54n]);
  assert.is(balances(s.h, s.payer)[2], 0n, 'the lock is spent to the satang');
  assertReservedMatchesLocks(s);
});

test('open or partially_filled → remainder canceled → canceled, refunded like expiry; refused while a fill is in flight or once closed', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 100_000n);
  fill(s, 50_000n);
  const inFlight = openDeposit(s, 20_000n);
  const cancel: Command = { type: 'CancelWithdrawal', actor: merchantActor(s.payer), withdrawalId: id };
  const pending = refused(s.h, cancel, 'withdrawal_has_pending_fill', seen);
  assert.equal(pending.details, { reserved_minor: 20_000 });
  refused(s.h, { ...cancel, actor: merchantActor(s.depositor) } as Command, 'resource_not_found', seen);
  s.h.ok({ type: 'CancelDeposit', actor: merchantActor(s.depositor), depositId: inFlight });
  const out = emitted(s.h, () => s.h.ok(cancel));
  const w = wdr(s.h, id);
  assert.equal([w.status, w.refundedMinor, w.cancelReasonCode], ['canceled', 50_000n, 'merchant_request']);
  assert.equal(out.events, ['withdrawal.canceled', 'balance.credited', 'balance.credited']);
  assert.equal(out.ledger.map(row), [['withdrawal_released', s.payer, 'reserved', 'available', 50_000n], ['withdrawal_released', s.payer, 'reserved', 'available', 535n]]);
  const closed = refused(s.h, cancel, 'withdrawal_not_cancelable', seen);
  assert.equal(closed.details, { status: 'canceled' });
  const done = s.h.withdrawal(s.payer, 10_000n);
  fill(s, 10_000n);
  refused(s.h, { ...cancel, withdrawalId: done } as Command, 'withdrawal_not_cancelable', seen);
  assertReservedMatchesLocks(s);
});

// ---- fill reversals ----

test('partially_filled → a fill is reversed → status never moves back; amount and its fee return to the lock', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 100_000n);
  fill(s, 30_000n);
  fill(s, 30_000n);
  const [first, second] = wdr(s.h, id).fills;
  const reverse = (legRef: string): Command => ({ type: 'ReverseFill', actor: operator(), withdrawalId: id, legRef, reasonCode: 'BANK_RECALL', note: 'recalled by the sender bank' });
  const out = emitted(s.h, () => s.h.ok(reverse(first!.legRef)));
  const w = wdr(s.h, id);
  assert.equal([w.status, w.version, w.filledMinor, remainingOf(w), w.feeRecognizedMinor], ['partially_filled', 5, 30_000n, 70_000n, 321n]);
  assert.equal(out.on(id), ['FillReversed']);
  assert.equal(out.events, ['withdrawal.fill_reversed', 'balance.credited', 'balance.credited']);
  assert.equal(out.ledger.map(row), [['reversal', s.payer, null, 'reserved', 30_000n], ['fee', s.payer, null, 'reserved', 321n]]);
  assert.is(out.ledger[0]!.reversesBalanceTransactionId, first!.balanceTransactionId);
  // The fee's refund names what it reverses and why, as a reversed deposit's fee refund does.
  assert.equal([out.ledger[1]!.reversesBalanceTransactionId, out.ledger[1]!.reasonCode], [first!.feeBalanceTransactionId, 'BANK_RECALL']);
  assert.is(w.fills[0]!.reversal?.reasonCode, 'BANK_RECALL');
  assertReservedMatchesLocks(s);
  const again = refused(s.h, reverse(first!.legRef), 'operation_not_allowed', seen);
  assert.equal(again.details, { leg_ref: first!.legRef }, 'a reversed fill is reversed once');
  s.h.ok(reverse(second!.legRef));
  assert.equal([wdr(s.h, id).status, wdr(s.h, id).filledMinor], ['partially_filled', 0n], 'never back to open');
  refused(s.h, reverse('leg_unknown'), 'resource_not_found', seen);
  assertReservedMatchesLocks(s);
});

test('settled → a fill is reversed → stays settled with remaining > 0; the money returns to available', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 10_000n);
  fill(s, 10_000n);
  const legRef = wdr(s.h, id).fills[0]!.legRef;
  const out = emitted(s.h, () => s.h.ok({ type: 'ReverseFill', actor: operator(), withdrawalId: id, legRef, reasonCode: 'ACCOUNT_FROZEN', note: 'recalled by the sender bank' }));
  const w = wdr(s.h, id);
  assert.equal([w.status, remainingOf(w), w.filledMinor], ['settled', 10_000n, 0n]);
  assert.equal(out.ledger.map(row), [['reversal', s.payer, null, 'available', 10_000n], ['fee', s.payer, null, 'available', 1_070n]]);
  assert.equal(balances(s.h, s.payer), [funds, 0n, 0n]);
});

test('expired after a fill → the fill is reversed (a dispute lost) → stays expired; the amount and its fee share return to available', () => {
  const s = scene(funds);
  const expired = s.h.withdrawal(s.payer, 100_000n);
  fill(s, 20_000n);
  s.h.advance(limits.withdrawalLifetimeMs);
  assert.is(wdr(s.h, expired).status, 'expired');
  const before = balances(s.h, s.payer);
  const legRef = wdr(s.h, expired).fills[0]!.legRef;
  const out = emitted(s.h, () => s.h.ok({ type: 'ReverseFill', actor: operator(), withdrawalId: expired, legRef, reasonCode: 'OPS_ERROR', note: 'recalled by the sender bank' }));
  const w = wdr(s.h, expired);
  assert.equal([w.status, w.filledMinor, w.feeRecognizedMinor], ['expired', 0n, 0n]);
  assert.equal(out.ledger.map(row), [['reversal', s.payer, null, 'available', 20_000n], ['fee', s.payer, null, 'available', 214n]]);
  assert.equal(balances(s.h, s.payer), [before[0]! + 20_214n, 0n, 0n], 'back in available; nothing left locked');
  refused(s.h, { type: 'ReverseFill', actor: operator(), withdrawalId: expired, legRef, reasonCode: 'OPS_ERROR', note: 'recalled by the sender bank' }, 'operation_not_allowed', seen);
});

// ---- any status ----

test('any → payee confirms receipt → unchanged; withdrawal.receipt_confirmed, by hand or automatically 3 h after the fill', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 100_000n);
  fill(s, 20_000n);
  fill(s, 20_000n);
  const [first, second] = wdr(s.h, id).fills;
  const confirm: Command = { type: 'ConfirmReceipt', actor: merchantActor(s.payer), withdrawalId: id, legRef: first!.legRef };
  const out = emitted(s.h, () => s.h.ok(confirm));
  assert.equal(out.entries, ['ReceiptConfirmed']);
  assert.equal(out.events, ['withdrawal.receipt_confirmed']);
  const confirmedFill = () => (s.h.journal.events[s.h.journal.events.length - 1] as { fill?: { leg_ref: string } }).fill?.leg_ref;
  assert.is(confirmedFill(), first!.legRef, 'the event names the fill whose payee confirmed (data.fill)');
  assert.equal([wdr(s.h, id).status, wdr(s.h, id).fills[0]!.receiptState], ['partially_filled', 'confirmed']);
  assert.equal(emitted(s.h, () => s.h.ok(confirm)).entries, [], 'confirmed once');
  s.h.advance(limits.fillAutoConfirmMs - 1);
  assert.is(wdr(s.h, id).fills[1]!.receiptState, 'pending');
  const auto = emitted(s.h, () => s.h.advance(1));
  assert.equal(auto.entries, ['ReceiptConfirmed']);
  assert.is(confirmedFill(), second!.legRef);
  assert.equal(wdr(s.h, id).fills.map((f) => f.receiptState), ['confirmed', 'auto_confirmed']);
  assert.is(second!.autoConfirmAt, s.h.clock.ms);
  refused(s.h, { ...confirm, legRef: 'leg_unknown' } as Command, 'resource_not_found', seen);
});

test('any → dispute opened / resolved → unchanged; withdrawal.disputed then withdrawal.dispute_resolved; no funds held, no bucket moved', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 100_000n);
  fill(s, 50_000n);
  const money = balances(s.h, s.payer);
  const open: Command = { type: 'OpenDispute', actor: operator(), withdrawalId: id, reasonCode: 'NOT_RECEIVED', amountMinor: 20_000n };
  refused(s.h, { ...open, amountMinor: 50_001n } as Command, 'validation_error', seen);
  const opened = emitted(s.h, () => s.h.ok(open));
  const w = wdr(s.h, id);
  assert.equal(opened.entries, ['DisputeOpened']);
  assert.equal(opened.events, ['withdrawal.disputed']);
  assert.equal([w.status, w.dispute!.fundsOnHold, w.dispute!.status, w.dispute!.respondBy], ['partially_filled', false, 'open', s.h.clock.ms + limits.disputeRespondByMs]);
  assert.equal((presentWithdrawal(w).dispute as { funds_on_hold: boolean }).funds_on_hold, false);
  assert.equal(balances(s.h, s.payer), money);
  refused(s.h, open, 'operation_not_allowed', seen);
  const disputeId = w.dispute!.id;
  assert.equal(emitted(s.h, () => s.h.ok({ type: 'SubmitDisputeEvidence', actor: merchantActor(s.payer), disputeId, text: 'receipt attached', fileCount: 1 })).entries, ['DisputeEvidenceSubmitted']);
  const resolved = emitted(s.h, () => s.h.ok({ type: 'ResolveDispute', actor: operator(), disputeId, outcome: 'merchant_won', note: 'the evidence settles it for the merchant' }));
  assert.equal(resolved.entries, ['DisputeResolved']);
  assert.equal(resolved.events, ['withdrawal.dispute_resolved']);
  assert.equal([wdr(s.h, id).status, wdr(s.h, id).dispute!.fundsOnHold, wdr(s.h, id).dispute!.outcome], ['partially_filled', false, 'merchant_won']);
  refused(s.h, { type: 'ResolveDispute', actor: operator(), disputeId, outcome: 'again', note: 'the evidence settles it for the merchant' }, 'operation_not_allowed', seen);
  refused(s.h, { type: 'ResolveDispute', actor: operator(), disputeId: 'dsp_unknown', outcome: 'none' }, 'resource_not_found', seen);
  s.h.ok({ ...open, respondBy: s.h.clock.ms + hour } as Command);
  s.h.advance(2 * hour);
  refused(s.h, { type: 'SubmitDisputeEvidence', actor: merchantActor(s.payer), disputeId: wdr(s.h, id).dispute!.id, text: 'late', fileCount: 0 }, 'operation_not_allowed', seen);
});

test('max_splits: an order takes at most max_splits legs; the next payer waits until a split frees up', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 100_000n);
  const deposits = Array.from({ length: limits.withdrawalMaxSplits }, () => openDeposit(s, 2_000n));
  assert.is(wdr(s.h, id).inFlight.length, limits.withdrawalMaxSplits);
  const waiting = openDeposit(s, 2_000n);
  assert.is(s.h.world.deposits.get(waiting)!.status, 'awaiting_liquidity', 'capacity is left but no split');
  const out = emitted(s.h, () => s.h.ok({ type: 'CancelDeposit', actor: merchantActor(s.depositor), depositId: deposits[0]! }));
  assert.equal(out.on(id), ['LegReleased', 'LegReserved']);
  assert.equal(out.on(waiting), ['DepositMatched']);
});

// ---- the decider on its own ----

test('decide: fills are keyed by leg_ref (a repeat changes nothing); fills and legs the order cannot take → alloc_state_conflict', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 100_000n);
  fill(s, 50_000n);
  const w = wdr(s.h, id);
  const at = s.h.clock.ms;
  const legRef = w.fills[0]!.legRef;
  const fillLeg = (ref: string, amountMinor: bigint) => ({ type: 'FillLeg' as const, at, legRef: ref, amountMinor, balanceTransactionId: 'btxn_x', feeBalanceTransactionId: 'btxn_y' });
  assert.equal(decide(fillLeg(legRef, 50_000n), w), [], 'the same leg_ref lands once');
  assert.equal(decide(fillLeg(legRef, 1n), w), []);
  const over = decide(fillLeg('leg_new', 50_001n), w);
  assert.equal('code' in over && over.code, 'alloc_state_conflict');
  const ok = decide(fillLeg('leg_new', 50_000n), w);
  assert.equal(Array.isArray(ok) && ok.map((e) => e.type), ['FillLanded', 'WithdrawalSettled']);
  const closed = { ...w, status: 'expired' as const };
  const onClosed = decide(fillLeg('leg_new', 1_000n), closed);
  assert.equal('code' in onClosed && onClosed.code, 'alloc_state_conflict');
  const reserve = decide({ type: 'ReserveLeg', at, legRef: 'leg_r', amountMinor: 50_001n }, w);
  assert.equal('code' in reserve && reserve.code, 'alloc_state_conflict');
  seen.add('alloc_state_conflict');
  const reserved = decide({ type: 'ReserveLeg', at, legRef: 'leg_r', amountMinor: 1_000n }, w);
  assert.equal(Array.isArray(reserved) && reserved.map((e) => e.type), ['LegReserved']);
  assert.equal(decide({ type: 'ReserveLeg', at, legRef: 'leg_r', amountMinor: 1_000n }, { ...w, inFlight: [{ legRef: 'leg_r', amountMinor: 1_000n }] }), [], 'reserving a held leg again changes nothing');
});

test('decide: timer commands that no longer apply decide to no events; unknown or duplicate orders are refused', () => {
  const s = scene(funds);
  const id = s.h.withdrawal(s.payer, 100_000n);
  openDeposit(s, 20_000n);
  const w = wdr(s.h, id);
  const at = s.h.clock.ms;
  const refund = { principalBalanceTransactionId: 'btxn_p', feeBalanceTransactionId: 'btxn_f' };
  assert.equal(decide({ type: 'ExpireWithdrawal', at: w.expiresAt - 1, refund }, w), [], 'the expiry timer firing early');
  assert.equal(decide({ type: 'TimeOutApproval', at: at + limits.withdrawalApprovalTimeoutMs, refund }, w), [], 'only a pending order times out');
  assert.equal(decide({ type: 'ReleaseLeg', at, legRef: 'leg_not_held' }, w), []);
  const missing = decide({ type: 'ApproveWithdrawal', at, operatorId: 'emp_alice' }, undefined);
  assert.equal('code' in missing && missing.code, 'resource_not_found');
  const { version: _v, status: _s, updatedAt: _u, approvals: _a, inFlight: _i, fills: _f, feeRecognizedMinor: _r, filledMinor: _fm, refundedMinor: _rm, settledSplits: _ss, ...fields } = w;
  const twice = decide({ type: 'CreateWithdrawal', at, withdrawal: fields }, w);
  assert.equal('code' in twice && twice.code, 'validation_error');
});

test('every refusal code the withdrawal decider and its handler can return appears in a row of this table', () => {
  const expected = refusalCodesIn('core/withdrawal/decide.ts', 'core/handler/withdrawals.ts');
  assert.ok(expected.size >= 8, `found ${expected.size} codes in the sources`);
  assert.equal([...expected].filter((code) => !seen.has(code)).sort(), [], 'codes with no row');
});

test.run();
