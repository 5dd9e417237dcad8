// The deposit decider's transition table (contract: "Deposit transitions"): one test per
// row, given a state reached through the real command handler, when one command, then
// the status, the journal entries and merchant events it emitted, the version step and
// the ledger effects the row names. Refusal rows assert the contract's code, no journal
// entry and byte-identical balances; the last test checks that every refusal code the
// deposit decider and its handler can return appears in a row.
// One file holds the whole table (STYLE 9: one table per decider), so it runs past the
// ~400-line guide; its sections follow the contract's From column.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decide, type SettleContext } from '../../core/deposit/decide.ts';
import { evolve, reversalReasonCodes } from '../../core/deposit/state.ts';
import type { Command } from '../../core/handler/commands.ts';
import { backOfficeLimits, limits } from '../../core/limits.ts';
import { defaultFeeSchedule } from '../../core/money.ts';
import { presentDeposit } from '../../core/present.ts';
import { senderAmountKey, World } from '../../core/world.ts';
import { defaultSender, exactTransfer, merchantActor, operator, system, type Harness } from '../support/core-harness.ts';
import {
  approve, balances, emitted, found, legTransfer, openDeposit, receiveSlip, refusalCodesIn, refused, row, scene, verify,
  withdrawalTo, type Scene,
} from '../support/transitions.ts';

const seen = new Set<string>();
const minute = 60_000;
const hour = 60 * minute;

const dep = (h: Harness, id: string) => h.world.deposits.get(id)!;
const wdr = (h: Harness, id: string) => h.world.withdrawals.get(id)!;
const reasonsOf = (h: Harness, id: string) => dep(h, id).review!.reasons.map((r) => r.code);
const shownReasons = (h: Harness, id: string) => (presentDeposit(dep(h, id)).review as { reasons: { code: string; actionable_by: string }[] }).reasons;

/** A scene with one open withdrawal of `withdrawalMinor` that deposits are paid into. */
function withLiquidity(withdrawalMinor = 100_000n): Scene & { withdrawal: string } {
  const s = scene();
  return { ...s, withdrawal: s.h.withdrawal(s.payer, withdrawalMinor) };
}

function inSlipProcessing(s: Scene, amountMinor = 50_000n): string {
  const id = openDeposit(s, amountMinor);
  receiveSlip(s.h, id, 'rcpt_1');
  return id;
}

function settled(s: Scene, amountMinor = 50_000n, transRef?: string): string {
  const id = inSlipProcessing(s, amountMinor);
  verify(s.h, id, 'rcpt_1', found(exactTransfer(s.h, id, transRef ? { transRef } : {})));
  assert.is(dep(s.h, id).status, 'settled');
  return id;
}

function underReview(s: Scene, amountMinor = 50_000n): string {
  const id = inSlipProcessing(s, amountMinor);
  verify(s.h, id, 'rcpt_1', found(exactTransfer(s.h, id, { senderName: 'สมศรี มีสุข' })));
  assert.is(dep(s.h, id).status, 'under_review');
  return id;
}

const createCommand = (s: Scene, over: Partial<Extract<Command, { type: 'CreateDeposit' }>> = {}): Command => ({
  type: 'CreateDeposit', actor: merchantActor(s.depositor), amountMinor: 20_000n, merchantReference: s.h.ids.next('ref'),
  endUserRef: 'user-1', sender: defaultSender, hasClientData: true, ...over,
});

// ---- (create) ----

test('(create) 201: given an open withdrawal, when a deposit is created, then awaiting_payment with a leg holding capacity', () => {
  const s = withLiquidity();
  const payerBefore = balances(s.h, s.payer);
  let id = '';
  const out = emitted(s.h, () => { id = openDeposit(s, 50_000n); });
  const d = dep(s.h, id);
  assert.is(d.status, 'awaiting_payment');
  assert.is(d.version, 1);
  assert.is(d.isTerminal, false);
  assert.is(d.liquiditySource, 'internal');
  assert.equal(d.legs.map((l) => [l.sequence, l.amountMinor, l.legStatus]), [[1, 50_000n, 'pending']]);
  assert.equal(out.on(id), ['DepositCreated', 'DepositMatched']);
  assert.equal(out.on(s.withdrawal), ['LegReserved']);
  assert.equal(out.events, ['deposit.created', 'deposit.matched', 'withdrawal.matched']);
  assert.equal(out.ledger, [], 'matching moves no money');
  assert.equal(balances(s.h, s.payer), payerBefore);
  const leg = d.legs[0]!;
  assert.ok(leg.counterparty.kind === 'withdrawal');
  assert.equal(wdr(s.h, s.withdrawal).inFlight, [{ legRef: leg.counterparty.payoutLegRef, amountMinor: 50_000n }]);
});

test('(create) 202: given no liquidity, when a deposit is created, then awaiting_liquidity with no legs', () => {
  const s = scene();
  let id = '';
  const out = emitted(s.h, () => { id = openDeposit(s, 20_000n); });
  const d = dep(s.h, id);
  assert.is(d.status, 'awaiting_liquidity');
  assert.is(d.version, 1);
  assert.equal(d.legs, []);
  assert.equal(out.entries, ['DepositCreated', 'DepositAwaitingLiquidity']);
  assert.equal(out.events, ['deposit.created', 'deposit.awaiting_liquidity']);
  assert.equal(d.liquidity?.waitStartedAt, s.h.clock.ms);
  assert.is(d.liquidity?.retryIntervalMs, limits.liquidityRetryIntervalMs);
  assert.equal(s.h.world.timersOf(id).map((t) => [t.kind, t.dueAt]), [['deposit.liquidity_wait', s.h.clock.ms + limits.liquidityWaitMs]]);
});

test('(create) refusals: each names its code and creates no order', () => {
  const s = withLiquidity(1_000_000n);
  refused(s.h, createCommand(s, { actor: merchantActor('mch_unknown') }), 'api_key_invalid', seen);
  const r = refused(s.h, createCommand(s, { amountMinor: 20_050n }), 'amount_not_supported', seen);
  assert.equal(r.details, { min_minor: 2_000, max_minor: 20_000_000 });
  const { sender: _none, ...withoutSender } = createCommand(s) as Extract<Command, { type: 'CreateDeposit' }>;
  refused(s.h, withoutSender, 'sender_required', seen);
  refused(s.h, createCommand(s, { sender: { ...defaultSender, bankCode: '999' } }), 'validation_error', seen);
  refused(s.h, createCommand(s, { senderId: 'snd_unknown' }), 'validation_error', seen);
  s.h.ok(createCommand(s, { merchantReference: 'order-1' }));
  refused(s.h, createCommand(s, { merchantReference: 'order-1', endUserRef: 'user-2' }), 'validation_error', seen);
  refused(s.h, createCommand(s), 'duplicate_open_deposit', seen);
  s.h.ok(createCommand(s, { amountMinor: 30_000n }));
  refused(s.h, createCommand(s, { amountMinor: 40_000n }), 'too_many_open_deposits', seen);
  // Another end user, from the same account, for the same amount: a duplicate too (the rule is the sender and the amount).
  refused(s.h, createCommand(s, { endUserRef: 'user-3' }), 'duplicate_open_deposit', seen);
  const own = { ...defaultSender, accountNumber: '1231231231' };
  s.h.ok(createCommand(s, { endUserRef: 'user-3', sender: own }));
  const withoutClient = refused(s.h, createCommand(s, { endUserRef: 'user-3', sender: own, amountMinor: 40_000n, hasClientData: false }), 'too_many_open_deposits', seen);
  assert.match(withoutClient.message, /limit 1 without client\{\}; send the end user's client/, 'the lower limit says why');
  s.h.ok({ type: 'SetBankAvailability', actor: operator(), bankCode: '014', available: false });
  const unavailable = refused(s.h, createCommand(s, { endUserRef: 'user-4' }), 'sender_bank_unavailable', seen);
  assert.ok((unavailable.details!.alternative_banks as string[]).includes('004'));
  s.h.ok({ type: 'SetMerchantSuspended', actor: operator(), merchantId: s.depositor, suspended: true });
  refused(s.h, createCommand(s, { endUserRef: 'user-5' }), 'tenant_suspended', seen);
});

// ---- awaiting_liquidity ----

test('awaiting_liquidity → destination found → awaiting_payment: a withdrawal opening matches the waiting deposit', () => {
  const s = scene();
  const id = openDeposit(s, 20_000n);
  const firstExpiry = dep(s.h, id).expiresAt;
  s.h.advance(2 * minute);
  let withdrawal = '';
  const beneficiaryId = s.h.beneficiary(s.payer);
  const out = emitted(s.h, () => { withdrawal = s.h.withdrawal(s.payer, 100_000n, { beneficiaryId }); });
  const d = dep(s.h, id);
  assert.is(d.status, 'awaiting_payment');
  assert.is(d.version, 2);
  assert.equal(out.on(id), ['DepositMatched']);
  assert.equal(out.on(withdrawal), ['WithdrawalCreated', 'LegReserved']);
  assert.equal(out.events, ['withdrawal.created', 'balance.debited', 'deposit.matched', 'withdrawal.matched']);
  assert.is(d.expiresAt, s.h.clock.ms + d.lifetimeMs, 'expires_at restarts when the destination appears');
  assert.ok(d.expiresAt > firstExpiry);
  assert.is(d.liquidity, undefined);
  assert.equal(s.h.world.timersOf(id).map((t) => [t.kind, t.dueAt]), [['deposit.expire', d.expiresAt]]);
});

test('awaiting_liquidity: two orders of one sender and amount, both created waiting, are never both awaiting payment (duplicate_open_deposit); the second has its turn when the first leaves', () => {
  const s = scene();
  const first = s.h.ok(createCommand(s));
  const second = s.h.ok(createCommand(s, { endUserRef: 'user-2' }));
  const other = s.h.ok(createCommand(s, { endUserRef: 'user-3', amountMinor: 30_000n }));
  assert.equal([dep(s.h, first).status, dep(s.h, second).status], ['awaiting_liquidity', 'awaiting_liquidity'], 'the rule at creation is for orders awaiting payment');
  s.h.withdrawal(s.payer, 200_000n);
  assert.equal([first, second, other].map((id) => dep(s.h, id).status), ['awaiting_payment', 'awaiting_liquidity', 'awaiting_payment'],
    'enough capacity for all three, but the twin waits: the sender\'s slip would be ambiguous between them');
  receiveSlip(s.h, first, 'rcpt_1');
  assert.equal([dep(s.h, first).status, dep(s.h, second).status], ['slip_processing', 'awaiting_liquidity'], 'a slip being verified may come back unreadable: still being paid');
  verify(s.h, first, 'rcpt_1', { kind: 'unreadable' });
  assert.equal([dep(s.h, first).status, dep(s.h, second).status], ['awaiting_payment', 'awaiting_liquidity'], 'back to awaiting payment: the twin still waits (found by the ledger model property)');
  receiveSlip(s.h, first, 'rcpt_2');
  // Created while the first's slip is verified (the rule at creation is for orders awaiting payment): it waits too.
  const third = s.h.ok(createCommand(s, { endUserRef: 'user-4' }));
  assert.is(dep(s.h, third).status, 'awaiting_liquidity', 'not matched beside a twin whose slip may come back unreadable');
  verify(s.h, first, 'rcpt_2', found(exactTransfer(s.h, first)));
  assert.equal([dep(s.h, first).status, dep(s.h, second).status, dep(s.h, third).status], ['settled', 'awaiting_payment', 'awaiting_liquidity'], 'paid: the older twin is matched at once, the younger waits for it');
  // The index of waiting twins holds what waits, no more: a key with none left goes (memory bounded by open work).
  const key = senderAmountKey(defaultSender.bankCode, defaultSender.accountNumber, dep(s.h, third).amountMinor);
  assert.equal([...s.h.world.waitingBySenderAmount.get(s.depositor, true, key) ?? []], [third]);
  s.h.ok({ type: 'CancelDeposit', actor: merchantActor(s.depositor, true), depositId: third });
  assert.is(s.h.world.waitingBySenderAmount.get(s.depositor, true, key), undefined);
});

test('matching never asks a payer to pay into his own account: the order whose payee he is is passed over', () => {
  const s = scene();
  const own = s.h.withdrawal(s.payer, 100_000n); // pays beneficiary 004/1234567890 (the harness's)
  const payer = { bankCode: '004', accountNumber: '1234567890', accountNameTh: 'สมหญิง รักดี' };
  const self = s.h.ok(createCommand(s, { sender: payer, amountMinor: 20_000n }));
  assert.equal([dep(s.h, self).status, dep(s.h, self).legs], ['awaiting_liquidity', []], 'not matched to the order that pays his own account');
  assert.equal(dep(s.h, self).liquidity?.suggestedAmountsMinor, [], 'nor is its capacity suggested to him: no amount would match him at once');
  const other = s.h.ok(createCommand(s, { endUserRef: 'user-2', amountMinor: 20_000n }));
  assert.equal(dep(s.h, other).legs.map((l) => l.counterparty.kind === 'withdrawal' && l.counterparty.withdrawalId), [own], 'another payer is');
});

test('awaiting_liquidity → no liquidity available → canceled no_liquidity_available, terminal at once', () => {
  const s = scene();
  const id = openDeposit(s, 20_000n);
  s.h.advance(limits.liquidityWaitMs - 1);
  assert.is(dep(s.h, id).status, 'awaiting_liquidity');
  const out = emitted(s.h, () => s.h.advance(1));
  const d = dep(s.h, id);
  assert.is(d.status, 'canceled');
  assert.is(d.version, 2);
  assert.equal(out.entries, ['DepositCanceled']);
  assert.equal(out.events, ['deposit.canceled']);
  assert.is(d.canceledBy, 'system');
  assert.is(d.cancelReasonCode, 'no_liquidity_available');
  assert.is(d.lateSlipAcceptedUntil, null, 'no destination ever existed');
  assert.is(d.isTerminal, true);
  const r = refused(s.h, { type: 'ReceiveSlip', actor: system, depositId: id, receiptId: 'rcpt_1', hasImage: true }, 'late_slip_window_closed', seen);
  assert.equal(r.details, { deposit_id: id, late_slip_accepted_until: null });
});

test('awaiting_liquidity: estimated_wait_ms is the median of the pool\'s last waits (a wait canceled for want of liquidity counts in full, a merchant\'s cancel not at all)', () => {
  const s = scene();
  const estimateOf = (id: string) => dep(s.h, id).liquidity!.estimatedWaitMs;
  const first = openDeposit(s, 20_000n);
  assert.is(estimateOf(first), limits.liquidityWaitMs / 2, 'no wait seen yet: half the longest');
  s.h.advance(30_000);
  s.h.withdrawal(s.payer, 20_000n);
  assert.is(dep(s.h, first).status, 'awaiting_payment', 'matched after 30 s');
  const second = openDeposit(s, 20_000n);
  assert.is(estimateOf(second), 30_000);
  const third = openDeposit(s, 20_000n);
  s.h.ok({ type: 'CancelDeposit', actor: merchantActor(s.depositor), depositId: third });
  s.h.advance(limits.liquidityWaitMs);
  assert.is(dep(s.h, second).cancelReasonCode, 'no_liquidity_available');
  const fourth = openDeposit(s, 20_000n);
  assert.is(estimateOf(fourth), (30_000 + limits.liquidityWaitMs) / 2, 'the median of 30 s and the full wait; the merchant\'s cancel is not a wait');
  const elsewhere = s.h.merchant(s.h.whiteLabel());
  const other = s.h.ok(createCommand(s, { actor: merchantActor(elsewhere) }));
  assert.is(estimateOf(other), limits.liquidityWaitMs / 2, 'another white label\'s pool has seen no wait');
  const wl = s.h.world.merchants.get(s.depositor)!.whiteLabelId;
  assert.is(s.h.world.liquidityWaits.estimate(World.poolKey(wl, false)), limits.liquidityWaitMs / 2, 'nor has the sandbox pool of the same white label');
  const sandbox = s.h.ok(createCommand(s, { actor: merchantActor(s.depositor, false), amountMinor: 10_500n }));
  assert.is(estimateOf(sandbox), limits.sandboxLiquidityWaitMs, "the sandbox's 10500 tells the wait it plays");
});

// ---- awaiting_payment ----

test('awaiting_payment → slip claimed → slip_processing (deposit.slip_received, not late, expiry paused)', () => {
  const s = withLiquidity();
  const id = openDeposit(s, 50_000n);
  const out = emitted(s.h, () => receiveSlip(s.h, id, 'rcpt_1'));
  const d = dep(s.h, id);
  assert.is(d.status, 'slip_processing');
  assert.is(d.version, 2);
  assert.equal(out.entries, ['SlipReceived']);
  assert.equal(out.events, ['deposit.slip_received']);
  assert.is(d.slip?.isLate, false);
  assert.is(d.uploads, 1);
  assert.equal(s.h.world.timersOf(id), [], 'no expiry while the slip is being verified');
});

test('awaiting_payment → expires_at passes with no slip → expired (not terminal, 24 h late-slip window, leg released)', () => {
  const s = withLiquidity();
  const id = openDeposit(s, 50_000n);
  const expiresAt = dep(s.h, id).expiresAt;
  const out = emitted(s.h, () => s.h.advance(limits.depositExpiresInSecondsDefault * 1000));
  const d = dep(s.h, id);
  assert.is(d.status, 'expired');
  assert.is(d.version, 2);
  assert.equal(out.on(id), ['DepositExpired']);
  assert.equal(out.on(s.withdrawal), ['LegReleased']);
  assert.equal(out.events, ['deposit.expired', 'withdrawal.match_released'], 'the payee\'s merchant is told its reservation went');
  assert.equal(out.ledger, []);
  assert.is(d.isTerminal, false);
  assert.is(d.expiredReason, 'no_payment');
  assert.is(d.lateSlipAcceptedUntil, expiresAt + limits.lateSlipWindowMs);
  assert.equal(wdr(s.h, s.withdrawal).inFlight, []);
});

test('awaiting_payment → cancel while no slip exists → canceled (not terminal, leg released)', () => {
  const s = withLiquidity();
  const id = openDeposit(s, 50_000n);
  const out = emitted(s.h, () => s.h.ok({ type: 'CancelDeposit', actor: merchantActor(s.depositor), depositId: id }));
  const d = dep(s.h, id);
  assert.is(d.status, 'canceled');
  assert.is(d.version, 2);
  assert.equal(out.on(id), ['DepositCanceled']);
  assert.equal(out.on(s.withdrawal), ['LegReleased']);
  assert.equal(out.events, ['deposit.canceled', 'withdrawal.match_released']);
  assert.is(d.canceledBy, 'merchant');
  assert.is(d.cancelReasonCode, 'merchant_request');
  assert.is(d.isTerminal, false);
  assert.is(d.lateSlipAcceptedUntil, s.h.clock.ms + limits.lateSlipWindowMs);
});

test('cancel refusals: a slip exists, the order is settled, or it is not the merchant’s → no change', () => {
  const s = withLiquidity(200_000n);
  const processing = inSlipProcessing(s);
  const cancel = (depositId: string, merchantId = s.depositor): Command => ({ type: 'CancelDeposit', actor: merchantActor(merchantId), depositId });
  const r = refused(s.h, cancel(processing), 'deposit_not_cancelable', seen);
  assert.equal(r.details, { status: 'slip_processing' });
  const done = settled(s, 50_000n, 'TX-settled');
  refused(s.h, cancel(done), 'deposit_not_cancelable', seen);
  refused(s.h, cancel(done, s.payer), 'resource_not_found', seen);
  refused(s.h, cancel('dep_unknown'), 'resource_not_found', seen);
});

// ---- slip_processing ----

test('slip_processing → exact transfer, all six checks pass → settled; deposit_settled + fee on the depositor, withdrawal_settled + fee on the withdrawer', () => {
  const s = withLiquidity();
  const id = inSlipProcessing(s);
  const out = emitted(s.h, () => verify(s.h, id, 'rcpt_1', found(exactTransfer(s.h, id))));
  const d = dep(s.h, id);
  const st = d.settlement!;
  assert.is(d.status, 'settled');
  assert.is(d.version, 3);
  assert.equal(out.on(id), ['DepositSettled']);
  assert.equal(out.on(s.withdrawal), ['FillLanded']);
  assert.equal(out.events, ['deposit.settled', 'balance.credited', 'balance.credited', 'withdrawal.filled', 'balance.debited', 'balance.debited']);
  assert.equal([st.orderedMinor, st.transferredMinor, st.receivedMinor, st.feeTotalMinor, st.creditedMinor], [50_000n, 50_000n, 50_000n, 803n, 49_197n]);
  assert.is(st.partial, false);
  assert.is(st.settledVia, 'auto');
  assert.is(d.overpayment, undefined);
  assert.is(st.clearingAvailableAt, s.h.clock.ms + limits.clearingPeriodMs);
  assert.ok(Object.values(d.verification!).every((v) => v === true), 'all six dimensions pass');
  assert.equal(out.ledger.map(row), [
    ['deposit_settled', s.depositor, null, 'pending_clearing', 50_000n],
    ['fee', s.depositor, 'pending_clearing', null, 803n],
    ['withdrawal_settled', s.payer, 'reserved', null, 50_000n],
    ['fee', s.payer, 'reserved', null, 535n],
  ]);
  assert.equal(balances(s.h, s.depositor), [0n, 49_197n, 0n]);
  assert.equal(balances(s.h, s.payer), [20_000_000n - 101_070n, 0n, 101_070n - 50_535n]);
  assert.equal(presentDeposit(d).overpayment, null, 'overpayment key present and null on a settled snapshot');
});

test('slip_processing → short-pay with the other five passing → settled automatically at A = V < X, partial', () => {
  const s = withLiquidity();
  const id = inSlipProcessing(s);
  const out = emitted(s.h, () => verify(s.h, id, 'rcpt_1', found(exactTransfer(s.h, id, { amountMinor: 40_000n }))));
  const d = dep(s.h, id);
  const st = d.settlement!;
  assert.is(d.status, 'settled');
  assert.equal([st.orderedMinor, st.transferredMinor, st.receivedMinor, st.feeTotalMinor, st.creditedMinor], [50_000n, 40_000n, 40_000n, 642n, 39_358n]);
  assert.is(st.partial, true);
  assert.is(st.settledVia, 'auto');
  assert.is(d.verification!.amountExact, false);
  assert.is(d.review, undefined, 'an amount-only mismatch never opens review');
  assert.equal(out.ledger.map(row)[0], ['deposit_settled', s.depositor, null, 'pending_clearing', 40_000n]);
  const w = wdr(s.h, s.withdrawal);
  assert.is(w.filledMinor, 40_000n);
  assert.equal(w.inFlight, [], 'the unpaid part of the leg goes back to the withdrawal');
});

test('slip_processing → same-slip overpayment → settled at A = X with E = V − X and an open overpayment claim', () => {
  const s = withLiquidity();
  const id = inSlipProcessing(s);
  const out = emitted(s.h, () => verify(s.h, id, 'rcpt_1', found(exactTransfer(s.h, id, { amountMinor: 60_000n }))));
  const d = dep(s.h, id);
  const st = d.settlement!;
  assert.is(d.status, 'settled');
  assert.equal([st.orderedMinor, st.transferredMinor, st.receivedMinor], [50_000n, 60_000n, 50_000n]);
  assert.is(st.partial, false);
  assert.is(d.overpayment?.cause, 'same_transfer_excess');
  assert.is(d.overpayment?.amountMinor, 10_000n);
  assert.equal(out.on(id), ['DepositSettled']);
  assert.ok(out.entries.includes('ClaimOpened'));
  assert.is(out.events.filter((e) => e === 'deposit.overpaid').length, 0, 'one flagged deposit.settled, not deposit.overpaid');
  const claim = s.h.world.claims.get(d.overpayment!.claimId)!;
  assert.equal([claim.kind, claim.status, claim.amountMinor, claim.depositId], ['overpayment', 'open', 10_000n, id]);
  assert.is(wdr(s.h, s.withdrawal).filledMinor, 50_000n, 'the excess is never auto-credited');
  assert.equal(out.ledger.map(row)[0], ['deposit_settled', s.depositor, null, 'pending_clearing', 50_000n]);
});

test('slip_processing → non-amount failures → under_review, reasons ordered by importance, actionable_by from the contract', () => {
  const s = withLiquidity();
  const id = inSlipProcessing(s);
  const before = balances(s.h, s.depositor);
  const out = emitted(s.h, () => verify(s.h, id, 'rcpt_1', found(exactTransfer(s.h, id, { senderBank: '002', senderName: 'สมศรี มีสุข', amountMinor: 45_000n }))));
  const d = dep(s.h, id);
  assert.is(d.status, 'under_review');
  assert.is(d.version, 3);
  assert.equal(out.entries, ['DepositUnderReview']);
  assert.equal(out.events, ['deposit.under_review']);
  assert.equal(shownReasons(s.h, id).map((r) => [r.code, r.actionable_by]), [
    ['SENDER_BANK_MISMATCH', 'end_user'], ['SENDER_NAME_MISMATCH', 'end_user'], ['AMOUNT_MISMATCH', 'end_user'],
  ]);
  assert.equal(d.review!.reasons[2]!.detail, { expected_minor: 50_000, transferred_minor: 45_000 });
  assert.equal([d.review!.escalated, d.review!.fourEyesRequired, d.review!.openedAt], [false, false, s.h.clock.ms]);
  assert.equal(balances(s.h, s.depositor), before, 'review moves no money');
  assert.is(wdr(s.h, s.withdrawal).inFlight.length, 1, 'the leg stays held during review');
});

test('slip_processing → wrong receiver and transfer outside the window → under_review [RECEIVER_MISMATCH, TIME_WINDOW]', () => {
  const s = withLiquidity();
  const id = inSlipProcessing(s);
  const transfer = exactTransfer(s.h, id, { occurredAt: dep(s.h, id).createdAt - hour });
  verify(s.h, id, 'rcpt_1', found({ ...transfer, receiver: { ...transfer.receiver, accountNumber: '5555555555' } }));
  const shown = shownReasons(s.h, id) as { code: string; actionable_by: string; detail?: unknown }[];
  assert.equal(shown.map((r) => [r.code, r.actionable_by]), [['RECEIVER_MISMATCH', 'end_user'], ['TIME_WINDOW', 'support']]);
  assert.is(shown[0]!.detail, undefined, 'never a detail for RECEIVER_MISMATCH');
  assert.is(dep(s.h, id).verification!.receiverMatch, false);
});

test('slip_processing → evidence or policy holds → under_review: NO_SLIP_IMAGE, PROVIDER_UNAVAILABLE, SLIP_INVALID, BANK_DISABLED', () => {
  const cases: [string, (s: Scene, id: string) => void, string][] = [
    ['NO_SLIP_IMAGE', (s, id) => verify(s.h, id, 'rcpt_1', { kind: 'no_image' }), 'support'],
    ['PROVIDER_UNAVAILABLE', (s, id) => verify(s.h, id, 'rcpt_1', { kind: 'provider_unavailable' }), 'support'],
    ['SLIP_INVALID', (s, id) => verify(s.h, id, 'rcpt_1', { kind: 'not_found' }), 'support'],
    ['BANK_DISABLED', (s, id) => {
      s.h.ok({ type: 'SetBankAvailability', actor: operator(), bankCode: defaultSender.bankCode, available: false });
      verify(s.h, id, 'rcpt_1', found(exactTransfer(s.h, id)));
    }, 'support'],
  ];
  for (const [code, act, actionable] of cases) {
    const s = withLiquidity();
    const id = openDeposit(s, 50_000n);
    receiveSlip(s.h, id, 'rcpt_1', code === 'NO_SLIP_IMAGE' ? { hasImage: false, transRef: 'TX-json' } : {});
    const out = emitted(s.h, () => act(s, id));
    assert.equal(out.on(id), ['DepositUnderReview'], code);
    assert.equal(shownReasons(s.h, id).map((r) => [r.code, r.actionable_by]), [[code, actionable]], code);
    assert.equal(out.ledger, [], code);
  }
});

test('slip_processing → DUPLICATE_SLIP when another deposit already used the trans_ref (image-only slips)', () => {
  const s = withLiquidity(200_000n);
  const first = settled(s, 50_000n, 'TX-shared');
  const second = inSlipProcessing(s);
  const before = balances(s.h, s.depositor);
  const out = emitted(s.h, () => verify(s.h, second, 'rcpt_1', found(exactTransfer(s.h, second, { transRef: 'TX-shared' }))));
  assert.is(dep(s.h, second).status, 'under_review');
  assert.equal(out.on(second), ['DepositUnderReview']);
  assert.equal(shownReasons(s.h, second).map((r) => [r.code, r.actionable_by]), [['DUPLICATE_SLIP', 'end_user']]);
  assert.equal(balances(s.h, s.depositor), before, 'a duplicate never credits twice');
  assert.is(dep(s.h, first).status, 'settled');
});

test('slip_processing → image unreadable and time remains → awaiting_payment, slip_rejected retryable with attempts_left', () => {
  const s = withLiquidity();
  const id = inSlipProcessing(s);
  const out = emitted(s.h, () => verify(s.h, id, 'rcpt_1', { kind: 'unreadable' }));
  const d = dep(s.h, id);
  assert.is(d.status, 'awaiting_payment');
  assert.is(d.version, 3);
  assert.equal(out.entries, ['SlipRejected']);
  assert.equal(out.events, ['deposit.slip_rejected']);
  assert.equal(presentDeposit(d).rejection, { code: 'SLIP_UNREADABLE', display_th: 'อ่านสลิปไม่ได้ กรุณาอัปโหลดรูปสลิปที่ชัดเจนและไม่ถูกตัดขอบ', display_en: 'The slip could not be read; please upload a clear, uncropped image of it.', retryable: true, attempts_left: 2 });
  assert.equal(s.h.world.timersOf(id).map((t) => [t.kind, t.dueAt]), [['deposit.expire', d.expiresAt]], 'expiry is armed again');
});

test('slip_processing → image unreadable and time is up → expired with slip_rejected and expired', () => {
  const s = withLiquidity();
  const id = openDeposit(s, 50_000n);
  s.h.advance(14 * minute);
  receiveSlip(s.h, id, 'rcpt_1');
  s.h.advance(2 * minute);
  assert.is(dep(s.h, id).status, 'slip_processing', 'no expiry while verifying');
  const out = emitted(s.h, () => verify(s.h, id, 'rcpt_1', { kind: 'unreadable' }));
  const d = dep(s.h, id);
  assert.is(d.status, 'expired');
  assert.is(d.version, 4);
  assert.equal(out.on(id), ['SlipRejected', 'DepositExpired']);
  assert.equal(out.on(s.withdrawal), ['LegReleased']);
  assert.equal(out.events, ['deposit.slip_rejected', 'deposit.expired', 'withdrawal.match_released']);
  assert.is(d.attemptsLeft, 2);
  assert.is(d.lateSlipAcceptedUntil, s.h.clock.ms + limits.lateSlipWindowMs);
  assert.is(d.isTerminal, false);
  assert.equal(shownRejections(s.h, id, 2), [['deposit.slip_rejected', 'slip_processing', true, 2], ['deposit.expired', 'expired', true, 2]],
    'both events tell the integrator a new image is taken (the late window), not the rejection false and the expiry true');
});

test('a late slip that is unreadable: back to expired in the same window, and both events say another upload is taken', () => {
  const s = withLiquidity();
  const id = openDeposit(s, 50_000n);
  s.h.advance(16 * minute);
  assert.equal([dep(s.h, id).status, dep(s.h, id).isTerminal], ['expired', false]);
  const until = dep(s.h, id).lateSlipAcceptedUntil;
  receiveSlip(s.h, id, 'rcpt_1');
  s.h.advance(minute);
  const out = emitted(s.h, () => verify(s.h, id, 'rcpt_1', { kind: 'unreadable' }));
  assert.equal(out.events, ['deposit.slip_rejected', 'deposit.expired']);
  assert.equal([dep(s.h, id).status, dep(s.h, id).lateSlipAcceptedUntil], ['expired', until], 'the window it came in');
  assert.equal(shownRejections(s.h, id, 2), [['deposit.slip_rejected', 'slip_processing', true, 2], ['deposit.expired', 'expired', true, 2]]);
});

/** The last `count` merchant events of a deposit: type, status and the rejection's retryable and attempts_left. */
function shownRejections(h: Harness, id: string, count: number): [string, unknown, unknown, unknown][] {
  return h.journal.events.filter((e) => e.stream === id).slice(-count).map((e) => {
    const rejection = e.object.rejection as { retryable?: boolean; attempts_left?: number } | undefined;
    return [e.type, e.object.status, rejection?.retryable, rejection?.attempts_left];
  });
}

test('at most 3 uploads per order, counted across before and after expiry', () => {
  const s = withLiquidity();
  const id = openDeposit(s, 50_000n);
  for (const [receipt, left] of [['rcpt_1', 2], ['rcpt_2', 1]] as const) {
    receiveSlip(s.h, id, receipt);
    verify(s.h, id, receipt, { kind: 'unreadable' });
    assert.equal([dep(s.h, id).status, dep(s.h, id).attemptsLeft], ['awaiting_payment', left]);
  }
  receiveSlip(s.h, id, 'rcpt_3');
  const out = emitted(s.h, () => verify(s.h, id, 'rcpt_3', { kind: 'unreadable' }));
  assert.equal(out.on(id), ['SlipRejected'], 'time remains: the order waits for expires_at (the contract decides by time), attempts_left 0');
  assert.equal([dep(s.h, id).status, dep(s.h, id).attemptsLeft], ['awaiting_payment', 0]);
  // The payer's screen is not told to upload again when no upload will be taken.
  assert.equal(presentDeposit(dep(s.h, id)).rejection, {
    code: 'SLIP_UNREADABLE', display_th: 'อ่านสลิปไม่ได้ และไม่สามารถอัปโหลดใหม่ได้แล้ว กรุณาติดต่อร้านค้า',
    display_en: 'The slip could not be read, and no more uploads are taken: please contact the merchant.', retryable: false, attempts_left: 0,
  });
  const r = refused(s.h, { type: 'ReceiveSlip', actor: system, depositId: id, receiptId: 'rcpt_4', hasImage: true }, 'validation_error', seen);
  assert.equal(r.details, { fields: [{ path: 'file', reason: 'upload_limit_reached' }] });
  s.h.advance(15 * minute + minute);
  assert.equal([dep(s.h, id).status, dep(s.h, id).isTerminal, typeof dep(s.h, id).lateSlipAcceptedUntil], ['expired', false, 'number'], 'it expires as any order does, with its late window');
  const late = refused(s.h, { type: 'ReceiveSlip', actor: system, depositId: id, receiptId: 'rcpt_5', hasImage: true }, 'validation_error', seen);
  assert.equal(late.details, { fields: [{ path: 'file', reason: 'upload_limit_reached' }] }, 'the cap counts across expiry');
});

// ---- expired / canceled ----

test('expired → late slip within the window → slip_processing with is_late; a late transfer goes to review LATE_SLIP', () => {
  const s = withLiquidity();
  const id = openDeposit(s, 50_000n);
  s.h.advance(15 * minute + hour);
  assert.is(dep(s.h, id).status, 'expired');
  const out = emitted(s.h, () => receiveSlip(s.h, id, 'rcpt_1'));
  const d = dep(s.h, id);
  assert.is(d.status, 'slip_processing');
  assert.is(d.version, 3);
  assert.equal(out.entries, ['SlipReceived']);
  assert.equal(out.events, ['deposit.slip_received']);
  assert.equal(presentDeposit(d).slip, { received_at: new Date(s.h.clock.ms).toISOString(), is_late: true });
  verify(s.h, id, 'rcpt_1', found(exactTransfer(s.h, id)));
  assert.equal(shownReasons(s.h, id).map((r) => [r.code, r.actionable_by]), [['LATE_SLIP', 'support']]);
});

test('expired → late slip for a transfer made in time → settles automatically into the withdrawal that still has capacity', () => {
  const s = withLiquidity();
  const id = openDeposit(s, 50_000n);
  const paidAt = dep(s.h, id).expiresAt - minute;
  s.h.advance(15 * minute + hour);
  receiveSlip(s.h, id, 'rcpt_1');
  const out = emitted(s.h, () => verify(s.h, id, 'rcpt_1', found(exactTransfer(s.h, id, { occurredAt: paidAt }))));
  assert.is(dep(s.h, id).status, 'settled');
  assert.equal(out.on(s.withdrawal), ['FillLanded']);
  assert.equal(balances(s.h, s.depositor), [0n, 49_197n, 0n]);
});

test('canceled → late slip within the window → slip_processing, then forced under_review CANCELED_ORDER_SLIP', () => {
  for (const outcome of ['clean transfer', 'unreadable'] as const) {
    const s = withLiquidity();
    const id = openDeposit(s, 50_000n);
    s.h.ok({ type: 'CancelDeposit', actor: merchantActor(s.depositor), depositId: id });
    const received = emitted(s.h, () => receiveSlip(s.h, id, 'rcpt_1'));
    assert.equal(received.events, ['deposit.slip_received']);
    assert.equal([dep(s.h, id).status, dep(s.h, id).slip?.isLate], ['slip_processing', true]);
    const out = emitted(s.h, () => verify(s.h, id, 'rcpt_1', outcome === 'unreadable' ? { kind: 'unreadable' } : found(exactTransfer(s.h, id))));
    // A clean transfer reached the payee: its withdrawal is held again while support checks.
    assert.equal(out.entries, outcome === 'unreadable' ? ['DepositUnderReview'] : ['DepositUnderReview', 'LegReserved'], outcome);
    assert.equal(shownReasons(s.h, id)[0], { code: 'CANCELED_ORDER_SLIP', display_th: 'โอนเข้ารายการที่ถูกยกเลิกแล้ว รอเจ้าหน้าที่ตรวจสอบ', display_en: 'The transfer was made to a canceled order. Support will check.', actionable_by: 'support' }, outcome);
  }
});

test('expired or canceled → late-slip window closes → unchanged status, is_terminal true; a later slip gets late_slip_window_closed', () => {
  for (const closed of ['expired', 'canceled'] as const) {
    const s = withLiquidity();
    const id = openDeposit(s, 50_000n);
    if (closed === 'canceled') s.h.ok({ type: 'CancelDeposit', actor: merchantActor(s.depositor), depositId: id });
    else s.h.advance(15 * minute);
    const until = dep(s.h, id).lateSlipAcceptedUntil!;
    s.h.advance(until - s.h.clock.ms - 1);
    assert.is(dep(s.h, id).isTerminal, false);
    const out = emitted(s.h, () => s.h.advance(1));
    const d = dep(s.h, id);
    assert.equal([d.status, d.isTerminal, d.version], [closed, true, 3]);
    assert.equal(out.entries, ['LateSlipWindowClosed']);
    assert.equal(out.events, [`deposit.${closed}`]);
    const r = refused(s.h, { type: 'ReceiveSlip', actor: system, depositId: id, receiptId: 'rcpt_1', hasImage: true }, 'late_slip_window_closed', seen);
    assert.equal(r.details, { deposit_id: id, late_slip_accepted_until: until });
  }
});

/** A deposit paid through the white label's fallback route (no withdrawal is open). */
function viaGateway(s: Scene, amountMinor = 30_000n): string {
  s.h.ok({ type: 'SetGatewayRoute', actor: operator(), whiteLabelId: s.whiteLabel, bankCode: '002', accountNumber: '5550001111', accountName: 'Gateway Co', ttlSeconds: 86_400 });
  s.h.ok({ type: 'ApproveGatewayRoute', actor: operator('emp_second'), whiteLabelId: s.whiteLabel, bankCode: '002', accountNumber: '5550001111' });
  const id = openDeposit(s, amountMinor);
  assert.equal([dep(s.h, id).liquiditySource, dep(s.h, id).legs[0]!.counterparty.kind], ['external_gateway', 'gateway']);
  return id;
}

const confirmRoute = (depositId: string, transRef: string, amountMinor = 30_000n): Command => ({ type: 'ConfirmGatewayRoute', actor: system, depositId, transRef, amountMinor });

test('expired or canceled → fallback route confirms after close → under_review LATE_ROUTE_CONFIRMATION; approval credits what the route received', () => {
  for (const closed of ['expired', 'canceled'] as const) {
    const s = scene();
    const id = viaGateway(s);
    if (closed === 'canceled') s.h.ok({ type: 'CancelDeposit', actor: merchantActor(s.depositor), depositId: id });
    else s.h.advance(15 * minute);
    assert.equal([dep(s.h, id).status, dep(s.h, id).isTerminal], [closed, false]);
    const version = dep(s.h, id).version;
    const out = emitted(s.h, () => s.h.ok(confirmRoute(id, `GW-${closed}`, 25_000n)));
    const d = dep(s.h, id);
    assert.equal([d.status, d.isTerminal, d.version], ['under_review', false, version + 1]);
    assert.equal(out.entries, ['DepositUnderReview']);
    assert.equal(out.events, ['deposit.under_review']);
    assert.equal(out.ledger, [], 'no money moves before a reviewer decides');
    assert.equal(shownReasons(s.h, id), [{ code: 'LATE_ROUTE_CONFIRMATION', display_th: 'ช่องทางรับเงินยืนยันหลังปิดรายการ รอเจ้าหน้าที่ตรวจสอบ', display_en: 'The route confirmed after the order closed. Support will check.', actionable_by: 'support' }]);
    assert.equal(d.routeConfirmation, { transRef: `GW-${closed}`, amountMinor: 25_000n, legRef: d.legs[0]!.legRef, confirmedAt: s.h.clock.ms });
    // The feed repeating itself changes nothing; the reviewer settles at the confirmed amount, into the gateway.
    assert.is(s.h.exec(confirmRoute(id, `GW-${closed}`, 25_000n)).ok, true);
    assert.is(dep(s.h, id).version, version + 1);
    const approved = emitted(s.h, () => s.h.ok(approve(id)));
    const st = dep(s.h, id).settlement!;
    assert.equal([dep(s.h, id).status, st.transferredMinor, st.receivedMinor, st.partial, st.settledVia], ['settled', 25_000n, 25_000n, true, 'review']);
    assert.equal(approved.ledger.map(row).map((r) => r[0]), ['deposit_settled', 'fee']);
    assert.equal(balances(s.h, s.depositor), [0n, st.creditedMinor, 0n]);
  }
});

test('route confirmation refusals: not a gateway deposit, still open, window closed, bad amount → no change; its trans_ref is then a duplicate elsewhere', () => {
  const s = withLiquidity();
  const internal = openDeposit(s, 50_000n);
  s.h.advance(15 * minute);
  refused(s.h, confirmRoute(internal, 'GW-1'), 'operation_not_allowed', seen);
  const g = scene();
  const open = viaGateway(g);
  const r = refused(g.h, confirmRoute(open, 'GW-2'), 'operation_not_allowed', seen);
  assert.equal(r.details, { status: 'awaiting_payment' });
  refused(g.h, confirmRoute(open, 'GW-2', 0n), 'validation_error', seen);
  refused(g.h, { ...confirmRoute(open, 'GW-2'), actor: merchantActor(g.payer) } as Command, 'resource_not_found', seen);
  g.h.advance(15 * minute + limits.lateSlipWindowMs);
  assert.equal([dep(g.h, open).status, dep(g.h, open).isTerminal], ['expired', true]);
  refused(g.h, confirmRoute(open, 'GW-2'), 'late_slip_window_closed', seen);
  // A trans_ref the route already confirmed for one order is a duplicate on another.
  const first = viaGateway(g);
  const second = viaGateway(g);
  g.h.advance(15 * minute);
  g.h.ok(confirmRoute(first, 'GW-SAME'));
  g.h.ok(confirmRoute(second, 'GW-SAME'));
  assert.equal(reasonsOf(g.h, second), ['DUPLICATE_SLIP', 'LATE_ROUTE_CONFIRMATION']);
});

// ---- under_review ----

test('under_review → escalation timeout → under_review escalated, new version, money untouched', () => {
  const s = withLiquidity();
  const id = underReview(s);
  const version = dep(s.h, id).version;
  const money = [balances(s.h, s.depositor), balances(s.h, s.payer)];
  s.h.advance(limits.reviewEscalationMs - 1);
  assert.is(dep(s.h, id).review!.escalated, false);
  const out = emitted(s.h, () => s.h.advance(1));
  const d = dep(s.h, id);
  assert.equal([d.status, d.review!.escalated, d.version], ['under_review', true, version + 1]);
  assert.equal(out.entries, ['ReviewEscalated']);
  assert.equal(out.events, ['deposit.under_review']);
  assert.equal([balances(s.h, s.depositor), balances(s.h, s.payer)], money);
  assert.is((presentDeposit(d).review as { estimated_resolution_bucket: string }).estimated_resolution_bucket, 'under_4h');
  // Still open four hours after it opened: the contract's 'extended', told to the merchant once.
  const opened = d.review!.openedAt;
  assert.equal(s.h.world.timersOf(id).map((t) => [t.kind, t.dueAt]), [['deposit.extend_review', opened + backOfficeLimits.reviewExtendedAfterMs]]);
  s.h.advance(opened + backOfficeLimits.reviewExtendedAfterMs - s.h.clock.ms);
  const extended = dep(s.h, id);
  assert.equal([extended.status, extended.review!.extended, extended.version, (presentDeposit(extended).review as { estimated_resolution_bucket: string }).estimated_resolution_bucket], ['under_review', true, version + 2, 'extended']);
  assert.equal([balances(s.h, s.depositor), balances(s.h, s.payer)], money);
  assert.equal(s.h.world.timersOf(id), [], 'escalation and extension happen once');
});

test('under_review → reviewer approves with a note of 20+ characters → settled via review (shorter note refused)', () => {
  const s = withLiquidity();
  const id = inSlipProcessing(s);
  verify(s.h, id, 'rcpt_1', found(exactTransfer(s.h, id, { senderName: 'สมศรี มีสุข', amountMinor: 45_000n })));
  const withNote = (note: string): Command => ({ type: 'ApproveDepositReview', actor: operator(), depositId: id, note });
  const r = refused(s.h, withNote('looks fine'), 'review_note_required', seen);
  assert.equal(r.details, { min_length: 20 });
  refused(s.h, withNote(`     ${'x'.repeat(19)}     `), 'review_note_required', seen);
  const out = emitted(s.h, () => s.h.ok(withNote('x'.repeat(20))));
  const d = dep(s.h, id);
  const st = d.settlement!;
  assert.is(d.status, 'settled');
  assert.is(d.version, 4);
  assert.equal(out.on(id), ['DepositSettled']);
  assert.equal(out.on(s.withdrawal), ['FillLanded']);
  assert.equal(out.events, ['deposit.settled', 'balance.credited', 'balance.credited', 'withdrawal.filled', 'balance.debited', 'balance.debited']);
  assert.equal([st.receivedMinor, st.feeTotalMinor, st.partial, st.settledVia], [45_000n, 722n, true, 'review']);
  assert.equal(out.ledger.map(row), [
    ['deposit_settled', s.depositor, null, 'pending_clearing', 45_000n],
    ['fee', s.depositor, 'pending_clearing', null, 722n],
    ['withdrawal_settled', s.payer, 'reserved', null, 45_000n],
    ['fee', s.payer, 'reserved', null, 481n],
  ]);
});

test('under_review → approve a review without a known amount (NO_SLIP_IMAGE) needs the reviewer’s amount, and a second reviewer: no bank showed it', () => {
  const s = withLiquidity();
  const id = openDeposit(s, 50_000n);
  receiveSlip(s.h, id, 'rcpt_1', { hasImage: false, transRef: 'TX-json' });
  verify(s.h, id, 'rcpt_1', { kind: 'no_image' });
  const r = refused(s.h, approve(id), 'validation_error', seen);
  assert.equal(r.details, { fields: [{ path: 'amount_minor', reason: 'required' }] });
  s.h.ok(approve(id, 'emp_alice', 50_000n));
  assert.equal([dep(s.h, id).status, dep(s.h, id).review!.approvals], ['under_review', ['emp_alice']], 'one reviewer credits nothing no evidence showed');
  s.h.ok(approve(id, 'emp_bob'));
  assert.equal([dep(s.h, id).status, dep(s.h, id).settlement!.settledVia, dep(s.h, id).settlement!.partial], ['settled', 'review', false]);
});

test('under_review → four-eyes when the amount ≥ fourEyesAmountMinorMin: two different operators approve', () => {
  const s = withLiquidity(6_000_000n);
  const below = underReview(s, BigInt(limits.fourEyesAmountMinorMin) - 100n);
  assert.is(dep(s.h, below).review!.fourEyesRequired, false);
  s.h.ok({ type: 'DeclineDepositReview', actor: operator(), depositId: below, note: 'Declined to free the withdrawal.' });
  const id = underReview(s, BigInt(limits.fourEyesAmountMinorMin));
  assert.is(dep(s.h, id).review!.fourEyesRequired, true);
  const first = emitted(s.h, () => s.h.ok(approve(id, 'emp_alice')));
  assert.equal(first.entries, ['ReviewApprovalRecorded']);
  assert.equal(first.events, ['deposit.under_review'], 'a first approval moves the review on: told at its version');
  assert.equal([dep(s.h, id).status, dep(s.h, id).review!.approvals], ['under_review', ['emp_alice']]);
  refused(s.h, approve(id, 'emp_alice'), 'operation_not_allowed', seen);
  const second = emitted(s.h, () => s.h.ok(approve(id, 'emp_bob')));
  assert.equal(second.on(id), ['DepositSettled']);
  assert.equal([dep(s.h, id).status, dep(s.h, id).settlement!.receivedMinor], ['settled', 5_000_000n]);
});

test('under_review → one reviewer cannot settle beyond the evidence or the order: a figure above the slip\'s, or above the order, or at the four-eyes bound, waits for a second approver', () => {
  const s = withLiquidity(6_000_000n);
  // The slip showed 50,000 (a name mismatch held it): a reviewer alone settles that figure.
  const asShown = underReview(s, 50_000n);
  assert.is(dep(s.h, asShown).review!.fourEyesRequired, false);
  s.h.ok(approve(asShown, 'emp_alice'));
  assert.is(dep(s.h, asShown).status, 'settled');
  // A figure above what the slip showed (and above the order, and at the four-eyes bound): recorded, not settled.
  for (const figure of [60_000n, BigInt(limits.fourEyesAmountMinorMin)]) {
    const id = underReview(s, 50_000n);
    const first = emitted(s.h, () => s.h.ok(approve(id, 'emp_alice', figure)));
    assert.equal(first.entries, ['ReviewApprovalRecorded'], `${figure}`);
    assert.equal(first.events, ['deposit.under_review']);
    assert.equal([dep(s.h, id).status, dep(s.h, id).review!.fourEyesRequired, dep(s.h, id).overpayment], ['under_review', true, undefined]);
    const second = emitted(s.h, () => s.h.ok(approve(id, 'emp_bob')));
    assert.equal(second.on(id), ['DepositSettled']);
    assert.equal([dep(s.h, id).settlement!.transferredMinor, dep(s.h, id).overpayment?.amountMinor], [figure, figure - 50_000n]);
  }
});

test('under_review with DUPLICATE_SLIP → four eyes whatever the amount (approving it credits one transfer twice)', () => {
  const s = withLiquidity(200_000n);
  settled(s, 50_000n, 'TX-twice');
  const id = inSlipProcessing(s);
  verify(s.h, id, 'rcpt_1', found(exactTransfer(s.h, id, { transRef: 'TX-twice' })));
  assert.equal(reasonsOf(s.h, id), ['DUPLICATE_SLIP']);
  assert.is(dep(s.h, id).review!.fourEyesRequired, true);
  s.h.ok(approve(id, 'emp_alice'));
  assert.is(dep(s.h, id).status, 'under_review', 'one approval is not enough');
  s.h.ok(approve(id, 'emp_bob'));
  assert.is(dep(s.h, id).status, 'settled');
});

test('under_review → reviewer declines → rejected: no credit, no ledger entry, leg released; final', () => {
  const s = withLiquidity();
  const id = underReview(s);
  refused(s.h, { type: 'DeclineDepositReview', actor: operator(), depositId: id, note: 'too short' }, 'review_note_required', seen);
  const out = emitted(s.h, () => s.h.ok({ type: 'DeclineDepositReview', actor: operator(), depositId: id, note: 'Sender is not the account holder.' }));
  const d = dep(s.h, id);
  assert.equal([d.status, d.isTerminal, d.version], ['rejected', true, 4]);
  assert.equal(out.on(id), ['DepositRejected']);
  assert.equal(out.on(s.withdrawal), ['LegReleased']);
  assert.equal(out.events, ['deposit.rejected', 'withdrawal.match_released']);
  assert.equal(out.ledger, []);
  assert.equal(presentDeposit(d).rejection, { code: 'SENDER_NAME_MISMATCH', display_th: 'รายการนี้ไม่ผ่านการตรวจสอบ (ชื่อผู้โอนไม่ตรงกับที่แจ้งไว้) หากท่านโอนเงินแล้ว กรุณาติดต่อร้านค้าพร้อมสลิปเพื่อขอคืนเงิน', display_en: 'The order was declined on review (The sender name differs from the registered one). If you transferred money, contact the merchant with your slip for a refund.' });
  refused(s.h, approve(id), 'operation_not_allowed', seen);
  refused(s.h, { type: 'DeclineDepositReview', actor: operator(), depositId: id, note: 'Sender is not the account holder.' }, 'operation_not_allowed', seen);
  const r = refused(s.h, { type: 'ReceiveSlip', actor: system, depositId: id, receiptId: 'rcpt_2', hasImage: true }, 'validation_error', seen);
  assert.equal(r.details, { fields: [{ path: 'deposit', reason: 'not_accepting_slips' }], status: 'rejected' });
});

// ---- settled ----

test('settled → reversal inside the clearing window → reversed, taken from pending_clearing, fee returned', () => {
  const s = withLiquidity();
  const id = settled(s);
  s.h.advance(hour);
  const settlementId = dep(s.h, id).settlement!.balanceTransactionId;
  const out = emitted(s.h, () => s.h.ok({ type: 'ReverseDeposit', actor: operator(), depositId: id, reasonCode: 'BANK_RECALL', note: 'recalled by the sender bank' }));
  const d = dep(s.h, id);
  assert.equal([d.status, d.isTerminal, d.version], ['reversed', true, 4]);
  assert.equal(out.on(id), ['DepositReversed']);
  // The fee comes back first, so pending_clearing (which holds A − fee) never dips below 0.
  assert.equal(out.events, ['deposit.reversed', 'balance.credited', 'balance.debited']);
  assert.equal(out.ledger.map(row), [['fee', s.depositor, null, 'pending_clearing', 803n], ['reversal', s.depositor, 'pending_clearing', null, 50_000n]]);
  assert.is(out.ledger[1]!.reversesBalanceTransactionId, settlementId);
  assert.equal(presentDeposit(d).reversal, { reason_code: 'BANK_RECALL', reverses_balance_transaction_id: settlementId, balance_transaction_id: out.ledger[1]!.id });
  assert.is(d.settlement!.clearingAvailableAt, null);
  assert.equal(balances(s.h, s.depositor), [0n, 0n, 0n]);
  s.h.advance(limits.clearingPeriodMs);
  assert.equal(balances(s.h, s.depositor), [0n, 0n, 0n], 'a reversed deposit never clears');
  refused(s.h, { type: 'ReverseDeposit', actor: operator(), depositId: id, reasonCode: 'BANK_RECALL', note: 'recalled by the sender bank' }, 'operation_not_allowed', seen);
});

test('settled → reversal after clearing is taken from available; every contract reason code is accepted, others refused', () => {
  const s = withLiquidity(1_000_000n);
  const id = settled(s, 20_000n, 'TX-cleared');
  s.h.advance(limits.clearingPeriodMs);
  const out = emitted(s.h, () => s.h.ok({ type: 'ReverseDeposit', actor: operator(), depositId: id, reasonCode: 'ACCOUNT_FROZEN', note: 'recalled by the sender bank' }));
  assert.equal(out.ledger.map(row), [['fee', s.depositor, null, 'available', 321n], ['reversal', s.depositor, 'available', null, 20_000n]]);
  assert.equal(balances(s.h, s.depositor), [0n, 0n, 0n]);
  // Once the merchant has spent what cleared, available cannot give the credit back: refused, nothing moves.
  const spent = settled(s, 20_000n, 'TX-spent');
  s.h.advance(limits.clearingPeriodMs);
  s.h.ok({ type: 'PostAdjustment', actor: operator(), merchantId: s.depositor, livemode: true, amountMinor: 19_000n, direction: 'debit', bucket: 'available', reasonCode: 'MANUAL_ADJUSTMENT', reason: 'paid out' });
  const short = refused(s.h, { type: 'ReverseDeposit', actor: operator(), depositId: spent, reasonCode: 'BANK_RECALL', note: 'recalled by the sender bank' }, 'insufficient_balance', seen);
  assert.equal(short.details, { available_minor: 679, required_minor: 19_679, pending_clearing_minor: 0, pending_clearing_available_at: null, bucket: 'available' });
  assert.is(dep(s.h, spent).status, 'settled');
  assert.equal(balances(s.h, s.depositor), [679n, 0n, 0n]);
  s.h.ok({ type: 'PostAdjustment', actor: operator(), merchantId: s.depositor, livemode: true, amountMinor: 19_000n, direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'merchant repaid' });
  s.h.ok({ type: 'ReverseDeposit', actor: operator(), depositId: spent, reasonCode: 'BANK_RECALL', note: 'recalled by the sender bank' });
  assert.equal(balances(s.h, s.depositor), [0n, 0n, 0n]);
  for (const reasonCode of reversalReasonCodes) {
    const other = settled(s, 20_000n, `TX-${reasonCode}`);
    s.h.ok({ type: 'ReverseDeposit', actor: operator(), depositId: other, reasonCode, note: 'recalled by the sender bank' });
    assert.is(dep(s.h, other).reversal!.reasonCode, reasonCode);
  }
  const open = settled(s, 20_000n, 'TX-open');
  refused(s.h, { type: 'ReverseDeposit', actor: operator(), depositId: open, reasonCode: 'LOST_IN_MAIL' as never, note: 'recalled by the sender bank' }, 'validation_error', seen);
  const waiting = openDeposit(s, 20_000n);
  const r = refused(s.h, { type: 'ReverseDeposit', actor: operator(), depositId: waiting, reasonCode: 'OPS_ERROR', note: 'recalled by the sender bank' }, 'operation_not_allowed', seen);
  assert.equal(r.details, { status: 'awaiting_payment' });
  refused(s.h, { type: 'ReverseDeposit', actor: operator(), depositId: 'dep_unknown', reasonCode: 'OPS_ERROR', note: 'recalled by the sender bank' }, 'resource_not_found', seen);
});

test('settled → 72 hours after credit → unchanged status, balance.cleared moves credited pending_clearing → available', () => {
  const s = withLiquidity();
  const id = settled(s);
  const st = dep(s.h, id).settlement!;
  s.h.advance(limits.clearingPeriodMs - 1);
  assert.equal(balances(s.h, s.depositor), [0n, 49_197n, 0n]);
  const version = dep(s.h, id).version;
  const out = emitted(s.h, () => s.h.advance(1));
  const d = dep(s.h, id);
  assert.equal([d.status, d.version, d.settlement!.clearedAt], ['settled', version + 1, st.clearingAvailableAt]);
  assert.equal(out.entries, ['DepositCleared', 'BalanceTransactionPosted']);
  assert.equal(out.events, ['balance.cleared']);
  assert.equal(out.ledger.map(row), [['clearing_released', s.depositor, 'pending_clearing', 'available', 49_197n]]);
  assert.is(out.ledger[0]!.clearedFromBalanceTransactionId, st.balanceTransactionId);
  assert.equal(balances(s.h, s.depositor), [49_197n, 0n, 0n], 'a bucket move, not new money');
});

test('settled → second transfer after settlement → unchanged, deposit.overpaid with a claim; V and A untouched', () => {
  const s = withLiquidity();
  const id = settled(s, 50_000n, 'TX-first');
  const settlement = dep(s.h, id).settlement;
  const money = balances(s.h, s.depositor);
  const slip = emitted(s.h, () => receiveSlip(s.h, id, 'rcpt_2'));
  assert.equal(slip.entries, ['AdditionalSlipReceived']);
  assert.equal([dep(s.h, id).status, dep(s.h, id).uploads], ['settled', 2]);
  const out = emitted(s.h, () => verify(s.h, id, 'rcpt_2', found(exactTransfer(s.h, id, { transRef: 'TX-second', amountMinor: 20_000n }))));
  const d = dep(s.h, id);
  assert.equal(out.entries, ['DepositOverpaid', 'ClaimOpened']);
  assert.equal(out.events, ['deposit.overpaid']);
  assert.equal([d.status, d.overpayment?.cause, d.overpayment?.amountMinor], ['settled', 'additional_transfer', 20_000n]);
  assert.equal(d.settlement, settlement, 'never changes V or A of the original settlement');
  assert.equal(balances(s.h, s.depositor), money, 'excess is never auto-credited');
  assert.is(s.h.world.claims.get(d.overpayment!.claimId)!.amountMinor, 20_000n);
  receiveSlip(s.h, id, 'rcpt_3');
  const again = emitted(s.h, () => verify(s.h, id, 'rcpt_3', found(exactTransfer(s.h, id, { transRef: 'TX-first' }))));
  assert.equal(again.entries, [], 'the original transfer uploaded again is not new money');
  refused(s.h, { type: 'ReceiveSlip', actor: system, depositId: id, receiptId: 'rcpt_4', hasImage: true }, 'validation_error', seen);
});

// ---- multi-leg ----

function multiLeg(): Scene & { withdrawals: string[]; id: string } {
  const s = scene();
  const withdrawals = ['1111111111', '2222222222', '3333333333'].map((account) => withdrawalTo(s, 10_000n, account));
  return { ...s, withdrawals, id: openDeposit(s, 25_000n) };
}

test('(create) no leg asks for less than 1 baht: a withdrawal with 1 satang left is passed over and does not block its payee\'s other order', () => {
  const s = scene();
  const odd = withdrawalTo(s, 10_001n, '1111111111');
  const first = openDeposit(s, 10_000n);
  receiveSlip(s.h, first, 'rcpt_1');
  verify(s.h, first, 'rcpt_1', found(legTransfer(s.h, first, 0, 'TX-odd')));
  assert.is(wdr(s.h, odd).filledMinor, 10_000n, 'the odd withdrawal has 1 satang left');
  const sameAccount = s.h.ok({ // the same payee, a later order
    type: 'CreateWithdrawal', actor: merchantActor(s.payer), amountMinor: 50_000n, merchantReference: 'ref-again', endUserRef: 'payee',
    beneficiaryId: s.h.beneficiary(s.payer, true, '1111111111'), requiresApproval: false, p2pMinimumApplies: false,
  });
  const other = withdrawalTo(s, 50_000n, '2222222222');
  const next = openDeposit(s, 2_000n);
  assert.equal(dep(s.h, next).legs.map((l) => [l.amountMinor, l.counterparty.kind === 'withdrawal' ? l.counterparty.withdrawalId : '']), [[2_000n, sameAccount]]);
  assert.equal([wdr(s.h, other).inFlight.length, wdr(s.h, odd).inFlight.length], [0, 0]);
  // A leg never leaves less than 1 baht for the next: 10,100 over capacities of 10,050 and
  // more is 10,000 + 100, not 10,050 + 50.
  const t = scene();
  withdrawalTo(t, 10_050n, '3333333333');
  withdrawalTo(t, 50_000n, '4444444444');
  const split = openDeposit(t, 10_100n);
  assert.equal(dep(t.h, split).legs.map((l) => l.amountMinor), [10_000n, 100n]);
});

test('(create) a payee\'s older order taken in part does not strand a deposit its later order can take whole', () => {
  const s = scene();
  const older = withdrawalTo(s, 100_000n, '5555555555');
  const larger = s.h.ok({ // the same payee's later, larger order
    type: 'CreateWithdrawal', actor: merchantActor(s.payer), amountMinor: 1_000_000n, merchantReference: 'ref-larger', endUserRef: 'payee',
    beneficiaryId: s.h.beneficiary(s.payer, true, '5555555555'), requiresApproval: false, p2pMinimumApplies: false,
  });
  const id = openDeposit(s, 500_000n);
  assert.equal(dep(s.h, id).legs.map((l) => [l.amountMinor, l.counterparty.kind === 'withdrawal' ? l.counterparty.withdrawalId : '']), [[500_000n, larger]]);
  // When the legs can place it, oldest first still holds: the older order takes what it can.
  const small = openDeposit(s, 50_000n);
  assert.equal(dep(s.h, small).legs.map((l) => l.counterparty.kind === 'withdrawal' ? l.counterparty.withdrawalId : ''), [older]);
});

test('(create) multi-leg: a deposit larger than one withdrawal’s capacity gets up to 3 legs, each holding its withdrawal', () => {
  const m = multiLeg();
  const d = dep(m.h, m.id);
  assert.equal(d.legs.map((l) => [l.sequence, l.amountMinor, l.receiver.accountNumber]), [
    [1, 10_000n, '1111111111'], [2, 10_000n, '2222222222'], [3, 5_000n, '3333333333'],
  ]);
  assert.equal(d.legs.map((l) => (l.counterparty.kind === 'withdrawal' ? l.counterparty.withdrawalId : '')), m.withdrawals);
  assert.equal(m.withdrawals.map((w) => wdr(m.h, w).inFlight.map((l) => l.amountMinor)), [[10_000n], [10_000n], [5_000n]]);
  const s = scene();
  for (const account of ['1', '2', '3', '4']) withdrawalTo(s, 10_000n, account.repeat(10));
  const tooBig = openDeposit(s, 40_000n);
  assert.equal([dep(s.h, tooBig).status, dep(s.h, tooBig).legs], ['awaiting_liquidity', []], 'four legs are never planned');
});

test('(create) 202: suggested_amounts_minor names only orders a payer can be matched to now (not one whose splits are all taken)', () => {
  const s = scene();
  const busy = withdrawalTo(s, 500_000n, '7777777777');
  for (let i = 0; i < wdr(s.h, busy).maxSplits; i++) assert.is(dep(s.h, openDeposit(s, 2_000n)).status, 'awaiting_payment');
  assert.is(wdr(s.h, busy).inFlight.length, wdr(s.h, busy).maxSplits);
  const waiting = dep(s.h, openDeposit(s, 3_000n));
  assert.equal([waiting.status, waiting.liquidity?.suggestedAmountsMinor], ['awaiting_liquidity', []], 'its capacity cannot take a payer: no suggestion');
  withdrawalTo(s, 40_000n, '8888888888'); // the waiting 3,000 takes 3,000 of it at once
  assert.is(dep(s.h, waiting.id).status, 'awaiting_payment');
  const next = dep(s.h, openDeposit(s, 60_000n));
  assert.equal([next.status, next.liquidity?.suggestedAmountsMinor], ['awaiting_liquidity', [37_000n]]);
});

test('(create) 202: a suggestion is rounded down to two figures, not another merchant\'s payout to the baht, and still matches at once', () => {
  const s = scene();
  withdrawalTo(s, 1_234_500n, '7777777777');
  withdrawalTo(s, 98_700n, '8888888888');
  const tooBig = dep(s.h, openDeposit(s, 5_000_000n));
  assert.equal([tooBig.status, tooBig.liquidity?.suggestedAmountsMinor], ['awaiting_liquidity', [1_200_000n, 98_000n]]);
  for (const amount of tooBig.liquidity!.suggestedAmountsMinor) assert.is(dep(s.h, openDeposit(s, amount)).status, 'awaiting_payment', `${amount} matches`);
});

test('(create) multi-leg: no two legs pay the same account (a slip is matched to its leg by the receiving account); the payee\'s second order waits for another deposit', () => {
  const s = scene();
  const sameA = withdrawalTo(s, 10_000n, '1111111111');
  s.h.clock.ms += 1;
  const alsoA = s.h.ok({ type: 'CreateWithdrawal', actor: merchantActor(s.payer), amountMinor: 10_000n, merchantReference: 'ref-a-again', endUserRef: 'payee', beneficiaryId: wdr(s.h, sameA).beneficiaryId, requiresApproval: false, p2pMinimumApplies: false });
  const otherB = withdrawalTo(s, 20_000n, '2222222222');
  const id = openDeposit(s, 25_000n);
  const d = dep(s.h, id);
  assert.equal(d.legs.map((l) => [l.amountMinor, l.receiver.accountNumber]), [[10_000n, '1111111111'], [15_000n, '2222222222']]);
  assert.equal(d.legs.map((l) => (l.counterparty.kind === 'withdrawal' ? l.counterparty.withdrawalId : '')), [sameA, otherB]);
  assert.equal(wdr(s.h, alsoA).inFlight, [], 'the same payee\'s second order is left for the next deposit');
  const next = dep(s.h, openDeposit(s, 10_000n));
  assert.equal(next.legs.map((l) => (l.counterparty.kind === 'withdrawal' ? l.counterparty.withdrawalId : '')), [alsoA]);
});

test('(create) multi-leg: no two legs go to accounts of one bank that a masked slip shows alike (xxx-x-x6700-x, xxxxxx0000); those orders wait for other deposits', () => {
  for (const [first, lookalike] of [['1234567000', '1234567001'], ['9876540000', '1111110000']] as const) {
    const s = scene();
    const a = withdrawalTo(s, 10_000n, first);
    s.h.clock.ms += 1;
    const b = withdrawalTo(s, 10_000n, lookalike);
    s.h.clock.ms += 1;
    const c = withdrawalTo(s, 20_000n, '5555500005');
    const id = openDeposit(s, 25_000n);
    assert.equal(dep(s.h, id).legs.map((l) => [l.amountMinor, l.receiver.accountNumber]), [[10_000n, first], [15_000n, '5555500005']], `${first} and ${lookalike} are not both in one deposit`);
    assert.equal([wdr(s.h, a).inFlight.length, wdr(s.h, b).inFlight.length, wdr(s.h, c).inFlight.length], [1, 0, 1]);
    const next = dep(s.h, openDeposit(s, 10_000n));
    assert.equal(next.legs.map((l) => l.receiver.accountNumber), [lookalike], 'the look-alike is paid by a deposit of its own');
  }
});

test('any non-terminal → a leg is verified → LegCompleted (deposit.leg_updated); all legs complete → settled with a fill per leg', () => {
  const m = multiLeg();
  for (const [i, version] of [[0, 3], [1, 5]] as const) {
    receiveSlip(m.h, m.id, `rcpt_${i}`);
    const out = emitted(m.h, () => verify(m.h, m.id, `rcpt_${i}`, found(legTransfer(m.h, m.id, i, `TX-${i}`))));
    assert.equal(out.entries, ['LegCompleted']);
    assert.equal(out.events, ['deposit.leg_updated']);
    assert.equal(out.ledger, [], 'a complete leg proves no money on its own');
    const d = dep(m.h, m.id);
    assert.equal([d.status, d.version, d.legs[i]!.legStatus], ['awaiting_payment', version, 'complete']);
  }
  receiveSlip(m.h, m.id, 'rcpt_2');
  const out = emitted(m.h, () => verify(m.h, m.id, 'rcpt_2', found(legTransfer(m.h, m.id, 2, 'TX-2'))));
  const d = dep(m.h, m.id);
  assert.equal([d.status, d.version, d.settlement!.receivedMinor, d.settlement!.partial], ['settled', 7, 25_000n, false]);
  assert.equal(d.legs.map((l) => l.legStatus), ['complete', 'complete', 'complete']);
  assert.equal(m.withdrawals.map((w) => out.on(w)), [['FillLanded', 'WithdrawalSettled'], ['FillLanded', 'WithdrawalSettled'], ['FillLanded']]);
  assert.equal(balances(m.h, m.depositor), [0n, 25_000n - 401n, 0n]);
});

test('awaiting_payment → expiry with some legs complete → settled partial at the verified legs; the rest released', () => {
  const m = multiLeg();
  receiveSlip(m.h, m.id, 'rcpt_0');
  verify(m.h, m.id, 'rcpt_0', found(legTransfer(m.h, m.id, 0, 'TX-0')));
  const out = emitted(m.h, () => m.h.advance(15 * minute));
  const d = dep(m.h, m.id);
  const st = d.settlement!;
  assert.is(d.status, 'settled');
  assert.equal(out.on(m.id), ['DepositSettled']);
  assert.equal(m.withdrawals.map((w) => out.on(w)), [['FillLanded', 'WithdrawalSettled'], ['LegReleased'], ['LegReleased']]);
  assert.equal([st.orderedMinor, st.transferredMinor, st.receivedMinor, st.partial, st.settledVia], [25_000n, 10_000n, 10_000n, true, 'auto']);
  assert.equal(balances(m.h, m.depositor), [0n, 10_000n - 161n, 0n]);
});

test('slip_processing → unreadable after expiry with some legs complete → settled partial, not expired (verified money is kept)', () => {
  const m = multiLeg();
  receiveSlip(m.h, m.id, 'rcpt_0');
  verify(m.h, m.id, 'rcpt_0', found(legTransfer(m.h, m.id, 0, 'TX-0')));
  m.h.advance(14 * minute);
  receiveSlip(m.h, m.id, 'rcpt_1');
  m.h.advance(2 * minute);
  const out = emitted(m.h, () => verify(m.h, m.id, 'rcpt_1', { kind: 'unreadable' }));
  const d = dep(m.h, m.id);
  assert.equal(out.on(m.id), ['SlipRejected', 'DepositSettled']);
  assert.equal(out.events.slice(0, 2), ['deposit.slip_rejected', 'deposit.settled']);
  assert.equal([d.status, d.settlement!.receivedMinor, d.settlement!.partial], ['settled', 10_000n, true]);
  assert.equal(m.withdrawals.map((w) => wdr(m.h, w).filledMinor), [10_000n, 0n, 0n]);
  assert.equal(shownRejections(m.h, m.id, 2), [['deposit.slip_rejected', 'slip_processing', false, 3], ['deposit.settled', 'settled', false, 3]],
    'a settled order takes no new image: the rejection says so');
});

test('under_review (multi-leg) → one amount cannot say which destination got the money (refused); legs[] fills each withdrawal by what its leg received', () => {
  const m = multiLeg();
  receiveSlip(m.h, m.id, 'rcpt_0');
  const transfer = legTransfer(m.h, m.id, 2, 'TX-2');
  verify(m.h, m.id, 'rcpt_0', found({ ...transfer, sender: { ...transfer.sender, name: 'สมศรี มีสุข' } }));
  assert.equal(reasonsOf(m.h, m.id), ['SENDER_NAME_MISMATCH']);
  const before = dep(m.h, m.id).version;
  const refused = m.h.exec(approve(m.id));
  assert.equal(refused.ok ? null : [refused.rejection.code, (refused.rejection.details as { fields: { path: string }[] }).fields[0]!.path], ['validation_error', 'legs']);
  assert.is(dep(m.h, m.id).version, before, 'a refused approval changes nothing');
  const legs = dep(m.h, m.id).legs;
  // The slip showed the third leg's transfer; the reviewer found the second leg paid too, the
  // first not. That is more than the slip showed, so a second reviewer confirms it.
  const figures = [{ legRef: legs[0]!.legRef, amountMinor: 0n }, { legRef: legs[1]!.legRef, amountMinor: legs[1]!.amountMinor }, { legRef: legs[2]!.legRef, amountMinor: legs[2]!.amountMinor }];
  const first = emitted(m.h, () => m.h.ok({ ...approve(m.id), legAmounts: figures } as Command));
  assert.equal(first.entries, ['ReviewApprovalRecorded']);
  assert.is(dep(m.h, m.id).review!.fourEyesRequired, true, 'the figures asked for a second approver');
  const out = emitted(m.h, () => m.h.ok(approve(m.id, 'emp_bob')));
  assert.equal(m.withdrawals.map((w) => out.on(w)), [['LegReleased'], ['FillLanded', 'WithdrawalSettled'], ['FillLanded']]);
  assert.equal(m.withdrawals.map((w) => wdr(m.h, w).filledMinor), [0n, legs[1]!.amountMinor, legs[2]!.amountMinor]);
  assert.equal(dep(m.h, m.id).legs.map((l) => l.legStatus), ['pending', 'complete', 'complete']);
  assert.equal([dep(m.h, m.id).settlement!.receivedMinor, dep(m.h, m.id).settlement!.partial], [legs[1]!.amountMinor + legs[2]!.amountMinor, true]);
});

test('multi-leg, the whole order paid to one payee: review at once (SETTLE_CONFLICT), not a leg complete and the payer asked for the others until a late window closes', () => {
  const m = multiLeg();
  receiveSlip(m.h, m.id, 'rcpt_0');
  const transfer = legTransfer(m.h, m.id, 0, 'TX-all');
  const out = emitted(m.h, () => verify(m.h, m.id, 'rcpt_0', found({ ...transfer, amountMinor: 25_000n })));
  assert.equal(out.on(m.id), ['DepositUnderReview']);
  assert.equal(reasonsOf(m.h, m.id), ['SETTLE_CONFLICT']);
  const d = dep(m.h, m.id);
  assert.equal([d.status, d.slip!.transferredAmountMinor, d.slip!.legRef], ['under_review', 25_000n, d.legs[0]!.legRef], 'the review keeps what the slip showed and the leg it paid');
  assert.equal((presentDeposit(d).legs as { qr_payload?: unknown }[]).map((l) => l.qr_payload), [undefined, undefined, undefined], 'no leg asks the payer for money');
  // The reviewer says where the money went: all of it to the first payee, none to the others.
  const legs = d.legs;
  const figures = [{ legRef: legs[0]!.legRef, amountMinor: 25_000n }, { legRef: legs[1]!.legRef, amountMinor: 0n }, { legRef: legs[2]!.legRef, amountMinor: 0n }];
  m.h.ok({ ...approve(m.id), legAmounts: figures } as Command);
  if (dep(m.h, m.id).status === 'under_review') m.h.ok({ ...approve(m.id, 'emp_bob'), legAmounts: figures } as Command);
  assert.is(dep(m.h, m.id).status, 'settled');
  assert.equal(m.withdrawals.map((w) => wdr(m.h, w).filledMinor), [10_000n, 0n, 0n], 'the first payee\'s withdrawal takes its share; the others wait for another payer');
  assert.equal(m.withdrawals.map((w) => wdr(m.h, w).inFlight.length), [0, 0, 0]);
});

// ---- slips that arrive while another is being verified ----
// Evidence of money is never refused while the order can take a slip; only the upload cap
// and the late-slip window refuse. A slip claimed while another is verified (or reviewed)
// is kept in the order's queue and verified after it, in the order the slips came.

const queueOf = (h: Harness, id: string) => (dep(h, id).queuedSlips ?? []).map((q) => q.receiptId);

test('slip_processing → another slip claimed → queued (an upload counted, version +1, no webhook); verified next, in order, and the order settles', () => {
  const m = multiLeg();
  receiveSlip(m.h, m.id, 'rcpt_0');
  const queued = emitted(m.h, () => receiveSlip(m.h, m.id, 'rcpt_1'));
  let d = dep(m.h, m.id);
  assert.equal(queued.entries, ['SlipQueued']);
  assert.equal(queued.events, [], 'status unchanged: the slip is announced (deposit.slip_received) when its verification starts');
  assert.equal([d.status, d.version, d.uploads, d.slip!.receiptId], ['slip_processing', 3, 2, 'rcpt_0']);
  assert.equal(queueOf(m.h, m.id), ['rcpt_1']);
  receiveSlip(m.h, m.id, 'rcpt_2');
  assert.equal([queueOf(m.h, m.id), dep(m.h, m.id).uploads], [['rcpt_1', 'rcpt_2'], 3]);
  // A result for a queued slip before its turn is stale: nothing changes.
  const before = dep(m.h, m.id);
  verify(m.h, m.id, 'rcpt_2', found(legTransfer(m.h, m.id, 2, 'TX-2')));
  assert.is(dep(m.h, m.id), before, 'results are taken in the order the slips came');

  const first = emitted(m.h, () => verify(m.h, m.id, 'rcpt_0', found(legTransfer(m.h, m.id, 0, 'TX-0'))));
  d = dep(m.h, m.id);
  assert.equal(first.on(m.id), ['LegCompleted', 'SlipDequeued']);
  assert.equal(first.events, ['deposit.leg_updated', 'deposit.slip_received']);
  assert.equal([d.status, d.version, d.slip!.receiptId, d.slip!.isLate, d.uploads], ['slip_processing', 6, 'rcpt_1', false, 3]);
  assert.equal(d.legs.map((l) => l.legStatus), ['complete', 'pending', 'pending']);
  assert.equal(queueOf(m.h, m.id), ['rcpt_2']);
  assert.equal(m.h.world.timersOf(m.id), [], 'no expiry while a slip is being verified');

  verify(m.h, m.id, 'rcpt_1', found(legTransfer(m.h, m.id, 1, 'TX-1')));
  assert.equal([dep(m.h, m.id).status, dep(m.h, m.id).slip!.receiptId, queueOf(m.h, m.id)], ['slip_processing', 'rcpt_2', []]);
  const last = emitted(m.h, () => verify(m.h, m.id, 'rcpt_2', found(legTransfer(m.h, m.id, 2, 'TX-2'))));
  d = dep(m.h, m.id);
  assert.equal(last.on(m.id), ['DepositSettled']);
  assert.equal([d.status, d.version, d.settlement!.receivedMinor, d.settlement!.partial], ['settled', 9, 25_000n, false]);
  assert.equal(m.withdrawals.map((w) => wdr(m.h, w).filledMinor), [10_000n, 10_000n, 5_000n]);
  const versions = m.h.journal.entries.filter((e) => e.stream === m.id).map((e) => e.version);
  assert.equal(versions, versions.map((_, i) => i), 'every change of the order is one new version (0 at creation)');
});

test('at most 3 uploads: three slips back to back are taken (one verifying, two queued); the 4th gets validation_error upload_limit_reached', () => {
  const s = withLiquidity();
  const id = openDeposit(s, 50_000n);
  for (const receipt of ['rcpt_1', 'rcpt_2', 'rcpt_3']) receiveSlip(s.h, id, receipt);
  assert.equal([dep(s.h, id).status, dep(s.h, id).uploads, queueOf(s.h, id)], ['slip_processing', 3, ['rcpt_2', 'rcpt_3']]);
  const r = refused(s.h, { type: 'ReceiveSlip', actor: system, depositId: id, receiptId: 'rcpt_4', hasImage: true }, 'validation_error', seen);
  assert.equal(r.details, { fields: [{ path: 'file', reason: 'upload_limit_reached' }] });
});

test('slip_processing → unreadable with a slip queued → slip_rejected, and the queued slip is verified next (the order does not close)', () => {
  const s = withLiquidity();
  const id = openDeposit(s, 50_000n);
  s.h.advance(14 * minute);
  receiveSlip(s.h, id, 'rcpt_1');
  receiveSlip(s.h, id, 'rcpt_2');
  s.h.advance(2 * minute);
  const out = emitted(s.h, () => verify(s.h, id, 'rcpt_1', { kind: 'unreadable' }));
  const d = dep(s.h, id);
  assert.equal(out.on(id), ['SlipRejected', 'SlipDequeued']);
  assert.equal(out.events, ['deposit.slip_rejected', 'deposit.slip_received']);
  assert.equal([d.status, d.slip!.receiptId, d.slip!.isLate, d.attemptsLeft], ['slip_processing', 'rcpt_2', false, 1]);
  verify(s.h, id, 'rcpt_2', found(exactTransfer(s.h, id)));
  assert.is(dep(s.h, id).status, 'settled', 'a slip that came in time settles though the order\'s expiry passed while it waited');
});

test('under_review → another slip claimed → queued; after approval it is verified as a transfer after settlement (deposit.overpaid, a claim)', () => {
  const s = withLiquidity();
  const id = underReview(s);
  const queued = emitted(s.h, () => receiveSlip(s.h, id, 'rcpt_2'));
  assert.equal([queued.entries, queued.events], [['SlipQueued'], []]);
  assert.equal([dep(s.h, id).status, queueOf(s.h, id)], ['under_review', ['rcpt_2']]);
  const approved = emitted(s.h, () => s.h.ok(approve(id)));
  assert.equal(approved.on(id), ['DepositSettled', 'SlipDequeued']);
  assert.equal(approved.events.filter((e) => e.startsWith('deposit.')), ['deposit.settled']);
  const d = dep(s.h, id);
  assert.equal([d.status, d.additionalSlip?.receiptId, queueOf(s.h, id)], ['settled', 'rcpt_2', []]);
  const extra = emitted(s.h, () => verify(s.h, id, 'rcpt_2', found(exactTransfer(s.h, id, { transRef: 'TX-extra', amountMinor: 20_000n }))));
  assert.equal(extra.events, ['deposit.overpaid']);
  assert.equal([dep(s.h, id).overpayment?.cause, dep(s.h, id).overpayment?.amountMinor], ['additional_transfer', 20_000n]);
});

// ---- the decider on its own: rows no command sequence reaches, and timer no-ops ----

const settleContext: SettleContext = { fees: defaultFeeSchedule, balanceTransactionId: 'btxn_a', feeBalanceTransactionId: 'btxn_b', claimId: 'clm_a', capacityByLeg: new Map() };

test('decide: a review with no leg to settle against → alloc_state_conflict; no state → resource_not_found; create twice → validation_error', () => {
  const s = scene();
  const id = openDeposit(s, 20_000n);
  const waiting = dep(s.h, id);
  const reviewed = evolve(waiting, { type: 'DepositUnderReview', at: s.h.clock.ms, reasons: [{ code: 'RISK_HOLD' }], fourEyesRequired: false });
  const at = s.h.clock.ms;
  const conflict = decide({ type: 'ApproveReview', at, operatorId: 'emp_alice', note: 'x'.repeat(20), transferredAmountMinor: 20_000n, settle: settleContext }, reviewed);
  assert.equal('code' in conflict && conflict.code, 'alloc_state_conflict');
  seen.add('alloc_state_conflict');
  const missing = decide({ type: 'EscalateReview', at }, undefined);
  assert.equal('code' in missing && missing.code, 'resource_not_found');
  const { version: _v, status: _s, isTerminal: _t, legs: _l, uploads: _u, updatedAt: _a, attemptsLeft: _al, ...fields } = waiting;
  const again = decide({ type: 'CreateDeposit', at, deposit: fields, match: { kind: 'waiting', liquidity: waiting.liquidity! } }, waiting);
  assert.equal('code' in again && again.code, 'validation_error');
});

test('decide: timer and worker commands that no longer apply decide to no events, never a refusal', () => {
  const s = withLiquidity();
  const id = settled(s);
  const d = dep(s.h, id);
  const at = s.h.clock.ms;
  const noOps = [
    decide({ type: 'ExpireDeposit', at: at + hour, settle: settleContext }, d),
    decide({ type: 'EndLiquidityWait', at }, d),
    decide({ type: 'CloseLateSlipWindow', at: at + 2 * limits.lateSlipWindowMs }, d),
    decide({ type: 'EscalateReview', at: at + hour }, d),
    decide({ type: 'ClearDeposit', at: at + limits.clearingPeriodMs - 1 }, d),
    decide({ type: 'RecordVerification', at, receiptId: 'rcpt_stale', outcome: { kind: 'unreadable' }, settle: settleContext }, d),
    decide({ type: 'MatchDeposit', at, match: { kind: 'matched', legs: d.legs, source: 'internal', expiresAt: at + hour } }, d),
  ];
  assert.equal(noOps, noOps.map(() => []));
});

test('every refusal code the deposit decider (decide and its creation rules) and its handler can return appears in a row of this table', () => {
  const expected = refusalCodesIn('core/deposit/decide.ts', 'core/deposit/create.ts', 'core/handler/deposits.ts');
  assert.ok(expected.size >= 10, `found ${expected.size} codes in the sources`);
  assert.equal([...expected].filter((code) => !seen.has(code)).sort(), [], 'codes with no row');
});

test.run();
