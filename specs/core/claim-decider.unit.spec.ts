// The claim decider as a table: given(claim events).when(command).then(events | refusal),
// against decideClaim itself with the claim folded by evolveClaim. Rows follow DESIGN's
// claim statuses: open → under_review → refund_pending → return_pending_payout → closed,
// rejected from open or under_review, close without refund from under_review; every
// refusal code the decider can return has a row (refusalCodesReachable).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { admitClaim, decideClaim, decideRefundOwed, decideRefundRecall, heldOfDeposit, refundedOfTransfer, type ClaimCommand, type ClaimDecision, type RefundRecall } from '../../core/claim/decide.ts';
import { evolveClaim, type Claim, type ClaimEvent } from '../../core/claim/state.ts';
import { isRejection } from '../../core/errors.ts';
import { refusalCodesOfRows, refusalCodesReachable, table, type Decider, type Row } from '../support/decider.ts';

const T0 = Date.UTC(2026, 10, 21, 3);
const note = 'checked against the bank statement';
const opened: Claim = { id: 'clm_1', kind: 'overpayment', status: 'open', depositId: 'dep_1', merchantId: 'mch_1', livemode: true, amountMinor: 5_000n, version: 0, createdAt: T0, updatedAt: T0 };
const account = { bankCode: '014', accountNumber: '9876543210', accountNameTh: 'สมชาย ใจดี' };
const base = { at: T0 + 1000, operatorId: 'emp_a', note };

// The decider's state starts as the opened claim: ClaimOpened is a record the handler writes.
const decider: Decider<Claim, ClaimEvent, ClaimCommand, readonly ClaimEvent[]> = {
  initialState: () => opened,
  evolve: evolveClaim,
  decide: (c, s) => decideClaim(c, s) as ClaimDecision as readonly ClaimEvent[],
};

const ev = { at: base.at, claimId: 'clm_1', operatorId: 'emp_a', note };
const reviewed: ClaimEvent = { type: 'ClaimReviewStarted', ...ev };
const refundApproved: ClaimEvent = { type: 'ClaimRefundApproved', ...ev, refundMinor: 5_000n, account };
const paidOut: ClaimEvent = { type: 'ClaimRefundPaidOut', ...ev, operatorId: 'emp_b', withdrawalId: 'wdr_1' };
const openedByHand: Claim = { ...opened, kind: 'manual', notes: [{ at: T0, operatorId: 'emp_a', status: 'open', note }] };

const rows: Row<Claim, ClaimEvent, ClaimCommand, readonly ClaimEvent[], undefined>[] = [
  { row: 'open → review → under_review', given: [], when: { type: 'StartClaimReview', ...base }, then: [reviewed] },
  { row: 'open → refund: refused, the claim is not under review', given: [], when: { type: 'ApproveClaimRefund', ...base, accountNamed: false, deposit: { status: 'settled', isTerminal: true }, account }, refused: 'operation_not_allowed' },
  { row: 'a decision without a 20-character note: review_note_required', given: [], when: { type: 'StartClaimReview', ...base, note: 'short' }, refused: 'review_note_required' },
  { row: 'under_review → refund (default: the whole amount) → refund_pending', given: [reviewed], when: { type: 'ApproveClaimRefund', ...base, accountNamed: false, deposit: { status: 'settled', isTerminal: true }, account }, then: [refundApproved] },
  { row: 'under_review → refund of part of the amount', given: [reviewed], when: { type: 'ApproveClaimRefund', ...base, accountNamed: false, deposit: { status: 'settled', isTerminal: true }, account, refundMinor: 1_000n }, then: [{ ...refundApproved, refundMinor: 1_000n } as ClaimEvent] },
  { row: 'under_review → refund above the claim: validation_error', given: [reviewed], when: { type: 'ApproveClaimRefund', ...base, accountNamed: false, deposit: { status: 'settled', isTerminal: true }, account, refundMinor: 5_001n }, refused: 'validation_error' },
  { row: 'under_review → refund below the smallest leg a payer pays (1.00): validation_error, it could never be paid', given: [reviewed], when: { type: 'ApproveClaimRefund', ...base, accountNamed: false, deposit: { status: 'settled', isTerminal: true }, account, refundMinor: 99n }, refused: 'validation_error' },
  { row: 'under_review → refund of exactly the smallest leg', given: [reviewed], when: { type: 'ApproveClaimRefund', ...base, accountNamed: false, deposit: { status: 'settled', isTerminal: true }, account, refundMinor: 100n }, then: [{ ...refundApproved, refundMinor: 100n } as ClaimEvent] },
  { row: 'refund_pending → payout by another operator → return_pending_payout', given: [reviewed, refundApproved], when: { type: 'PayOutClaimRefund', ...base, deposit: { status: 'settled', isTerminal: true }, operatorId: 'emp_b', withdrawalId: 'wdr_1' }, then: [paidOut] },
  { row: 'refund_pending → payout by the operator who approved the refund: refused (four eyes)', given: [reviewed, refundApproved], when: { type: 'PayOutClaimRefund', ...base, deposit: { status: 'settled', isTerminal: true }, withdrawalId: 'wdr_1' }, refused: 'operation_not_allowed' },
  { row: 'refund_pending → payout by that operator spelled in capitals: refused (four eyes)', given: [reviewed, refundApproved], when: { type: 'PayOutClaimRefund', ...base, deposit: { status: 'settled', isTerminal: true }, operatorId: 'EMP_A', withdrawalId: 'wdr_1' }, refused: 'operation_not_allowed' },
  { row: 'return_pending_payout → close while the refund is open: refused', given: [reviewed, refundApproved, paidOut], when: { type: 'CloseClaim', ...base, refund: { final: false, filledMinor: 0n } }, refused: 'operation_not_allowed' },
  { row: 'return_pending_payout → close once the refund is final → closed with what it filled', given: [reviewed, refundApproved, paidOut], when: { type: 'CloseClaim', ...base, refund: { final: true, filledMinor: 5_000n } }, then: [{ type: 'ClaimClosed', ...ev, refundedMinor: 5_000n }] },
  { row: 'under_review → close without refund → closed, nothing refunded', given: [reviewed], when: { type: 'CloseClaim', ...base }, then: [{ type: 'ClaimClosed', ...ev, refundedMinor: 0n }] },
  { row: 'open → reject → rejected', given: [], when: { type: 'RejectClaim', ...base }, then: [{ type: 'ClaimRejected', ...ev }] },
  { row: 'under_review, its deposit reversed since → refund: refused, the transfer is back with the payer', given: [reviewed], when: { type: 'ApproveClaimRefund', ...base, accountNamed: false, deposit: { status: 'reversed', isTerminal: true }, account }, refused: 'operation_not_allowed', message: /reversed: its transfer is undone/ },
  { row: 'refund_pending, its deposit reversed since → payout: refused', given: [reviewed, refundApproved], when: { type: 'PayOutClaimRefund', ...base, deposit: { status: 'reversed', isTerminal: true }, operatorId: 'emp_b', withdrawalId: 'wdr_1' }, refused: 'operation_not_allowed', message: /Close or reject the claim/ },
  { row: 'refund_pending → close without a payout → closed, nothing refunded (a refund approved and then not paid)', given: [reviewed, refundApproved], when: { type: 'CloseClaim', ...base }, then: [{ type: 'ClaimClosed', ...ev, refundedMinor: 0n }] },
  { row: 'refund_pending → reject: refused', given: [reviewed, refundApproved], when: { type: 'RejectClaim', ...base }, refused: 'operation_not_allowed' },
  { row: 'closed → anything: refused (final)', given: [reviewed, { type: 'ClaimClosed', ...ev, refundedMinor: 0n }], when: { type: 'RejectClaim', ...base }, refused: 'operation_not_allowed' },
];

table(decider, rows);

test('a claim opened by hand: its opener cannot approve its refund; another operator can', () => {
  const underReview = evolveClaim(openedByHand, { ...reviewed, operatorId: 'emp_a' });
  const own = decideClaim({ type: 'ApproveClaimRefund', ...base, accountNamed: false, deposit: { status: 'rejected', isTerminal: true }, account }, underReview);
  assert.ok(isRejection(own) && own.code === 'operation_not_allowed' && /another operator/.test(own.message), JSON.stringify(own));
  // The same person under another spelling is refused too, and the details name who opened it, as the claim records it (not the caller's spelling).
  const spelled = decideClaim({ type: 'ApproveClaimRefund', ...base, operatorId: 'EMP_A', accountNamed: false, deposit: { status: 'rejected', isTerminal: true }, account }, underReview);
  assert.ok(isRejection(spelled) && spelled.code === 'operation_not_allowed', JSON.stringify(spelled));
  assert.equal(isRejection(spelled) && spelled.details, { opened_by: 'emp_a' });
  const other = decideClaim({ type: 'ApproveClaimRefund', ...base, accountNamed: false, deposit: { status: 'rejected', isTerminal: true }, operatorId: 'emp_b', account }, underReview);
  assert.ok(!isRejection(other), isRejection(other) ? other.message : '');
});

test('a claim on the order\'s own amount: no refund approved or paid out once its deposit settled, is under review or takes late slips (the merchant was or may be credited); an overpayment claim\'s is', () => {
  const manual = evolveClaim(openedByHand, { ...reviewed, operatorId: 'emp_a' });
  // openedByHand is a manual claim opened at T0: a deposit that settled after it credited the amount it claims.
  for (const deposit of [{ status: 'settled', isTerminal: true, settledAt: T0 + 1 }, { status: 'under_review', isTerminal: false }, { status: 'canceled', isTerminal: false }]) {
    const r = decideClaim({ type: 'ApproveClaimRefund', ...base, accountNamed: false, operatorId: 'emp_b', deposit, account }, manual);
    assert.ok(isRejection(r) && r.code === 'operation_not_allowed' && /would pay the transfer twice/.test(r.message), deposit.status);
  }
  const approved = evolveClaim(manual, { ...refundApproved, operatorId: 'emp_b' });
  const payout = decideClaim({ type: 'PayOutClaimRefund', ...base, operatorId: 'emp_c', deposit: { status: 'settled', isTerminal: true, settledAt: T0 + 1 }, withdrawalId: 'wdr_1' }, approved);
  assert.ok(isRejection(payout) && payout.code === 'operation_not_allowed', 'settled between the refund and its payout');
  // A manual claim opened on a deposit already settled is on a transfer beyond it (the payer paid twice): refunded.
  assert.ok(!isRejection(decideClaim({ type: 'ApproveClaimRefund', ...base, accountNamed: false, operatorId: 'emp_b', deposit: { status: 'settled', isTerminal: true, settledAt: T0 - 1 }, account }, manual)), 'paid twice');
  assert.ok(!isRejection(decideClaim({ type: 'ApproveClaimRefund', ...base, accountNamed: false, operatorId: 'emp_b', deposit: { status: 'rejected', isTerminal: true }, account }, manual)), 'a rejected order: refunded');
});

test('a further transfer from another account than the order\'s sender: its refund needs the payer\'s account named, never the sender by default', () => {
  const claim = evolveClaim(opened, reviewed);
  const other = 'bank 002, xxxxxx1111, วิชัย ด***';
  const bySender = decideClaim({ type: 'ApproveClaimRefund', ...base, accountNamed: false, transferFromAnother: other, deposit: { status: 'settled', isTerminal: true }, account }, claim);
  assert.ok(isRejection(bySender) && bySender.code === 'operation_not_allowed' && bySender.message.includes(other), JSON.stringify(bySender));
  assert.equal(isRejection(bySender) ? bySender.details : null, { transfer_sender: other });
  const payer = { bankCode: '002', accountNumber: '1111111111', accountNameTh: 'วิชัย ดีมาก' };
  const named = decideClaim({ type: 'ApproveClaimRefund', ...base, accountNamed: true, transferFromAnother: other, deposit: { status: 'settled', isTerminal: true }, account: payer }, claim);
  assert.equal(named, [{ ...refundApproved, account: payer }]);
});

test('a deposit reversed since: a further transfer\'s claim (its own transfer, not recalled) is still refunded; the order\'s own and a same-slip excess are not', () => {
  const further = evolveClaim({ ...opened, evidence: 'additional_transfer' }, reviewed);
  assert.ok(!isRejection(decideClaim({ type: 'ApproveClaimRefund', ...base, accountNamed: false, deposit: { status: 'reversed', isTerminal: true }, account }, further)), 'the further transfer is refunded');
  const excess = evolveClaim({ ...opened, evidence: 'same_transfer_excess' }, reviewed);
  const r = decideClaim({ type: 'ApproveClaimRefund', ...base, accountNamed: false, deposit: { status: 'reversed', isTerminal: true }, account }, excess);
  assert.ok(isRejection(r) && /reversed: its transfer is undone/.test(r.message), 'the recalled transfer\'s excess came back with it');
});

test('a refund the bank recalled after it closed: paid again by a replacement (the claim reopens, closed or not); not when a payout would be refused, and then it closes with what its refunds filled', () => {
  const fold = (events: readonly ClaimEvent[]) => events.reduce(evolveClaim, opened);
  const closedRefunded: ClaimEvent = { type: 'ClaimClosed', ...ev, operatorId: 'system', refundedMinor: 5_000n };
  const closed = fold([reviewed, refundApproved, paidOut, closedRefunded]);
  const recall: RefundRecall = {
    at: base.at, operatorId: 'emp_c', recalledWithdrawalId: 'wdr_1', legRef: 'leg_1', reasonCode: 'BANK_RECALL', recalledMinor: 3_000n, replacementWithdrawalId: 'wdr_2',
    deposit: { status: 'settled', isTerminal: true }, refunds: { anyOpen: false, filledMinor: 2_000n },
  };
  const replaced = decideRefundRecall(recall, closed) as readonly ClaimEvent[];
  assert.equal(replaced.map((e) => [e.type, e.operatorId, (e as any).status, (e as any).replacementWithdrawalId]), [['ClaimRefundRecalled', 'emp_c', 'return_pending_payout', 'wdr_2']]);
  const reopened = replaced.reduce(evolveClaim, closed);
  assert.equal([reopened.status, reopened.refundWithdrawalId, reopened.earlierRefundWithdrawalIds, reopened.refundedMinor, heldOfDeposit(reopened)], ['return_pending_payout', 'wdr_2', ['wdr_1'], undefined, 5_000n]);
  // A second recall, of the first refund again, while the replacement still pays out: another replacement, the chain kept.
  const twice = (decideRefundRecall({ ...recall, legRef: 'leg_2', recalledMinor: 2_000n, replacementWithdrawalId: 'wdr_3' }, reopened) as readonly ClaimEvent[]).reduce(evolveClaim, reopened);
  assert.equal([twice.status, twice.refundWithdrawalId, twice.earlierRefundWithdrawalIds], ['return_pending_payout', 'wdr_3', ['wdr_1', 'wdr_2']]);
  // The deposit reversed since (the money back with the payer): no replacement; the claim stays closed with what is left refunded.
  const kept = decideRefundRecall({ ...recall, deposit: { status: 'reversed', isTerminal: true } }, closed) as readonly ClaimEvent[];
  assert.equal(kept.map((e) => [(e as any).status, (e as any).replacementWithdrawalId, (e as any).refundedMinor]), [['closed', undefined, 2_000n]]);
  assert.match(kept[0]!.note, /not refunded again .*reversed/);
  assert.equal(kept.reduce(evolveClaim, closed).refundedMinor, 2_000n);
  // … still waiting while another refund of it is open; below what a payer's leg pays, not replaced either.
  assert.equal((decideRefundRecall({ ...recall, deposit: { status: 'reversed', isTerminal: true }, refunds: { anyOpen: true, filledMinor: 0n } }, closed) as readonly ClaimEvent[]).map((e) => (e as any).status), ['return_pending_payout']);
  assert.equal((decideRefundRecall({ ...recall, recalledMinor: 99n }, closed) as readonly ClaimEvent[]).map((e) => (e as any).replacementWithdrawalId), [undefined]);
  // Not one of the claim's refunds, or a claim that never paid one out: refused (the reversal with it).
  const other = decideRefundRecall({ ...recall, recalledWithdrawalId: 'wdr_9' }, closed);
  assert.ok(isRejection(other) && other.code === 'operation_not_allowed');
  assert.ok(isRejection(decideRefundRecall(recall, fold([reviewed]))));
  // A claim closed once never moves again, but for this.
  assert.throws(() => evolveClaim(closed, reviewed));
});

test('a deposit reversed after its claim\'s refunds paid the payer of its transfer: the claim records that money owed back by the payer, keeping its status; a further transfer\'s claim, one that refunded nothing or is still open owes nothing', () => {
  const fold = (events: readonly ClaimEvent[], from: Claim = opened) => events.reduce(evolveClaim, from);
  const closedWith = (refundedMinor: bigint, from: Claim = opened) => fold([reviewed, refundApproved, paidOut, { type: 'ClaimClosed', ...ev, operatorId: 'system', refundedMinor }], from);
  const reversal = { at: base.at, operatorId: 'emp_c', depositId: 'dep_1', reasonCode: 'BANK_RECALL' };
  const closed = closedWith(3_000n);
  assert.is(refundedOfTransfer(closed), 3_000n);
  const owed = decideRefundOwed(reversal, closed);
  assert.equal(owed.map((e) => [e.type, e.operatorId, (e as any).owedMinor, (e as any).status]), [['ClaimRefundOwed', 'emp_c', 3_000n, 'closed']]);
  assert.match(owed[0]!.note, /dep_1 was reversed \(BANK_RECALL\) after this claim refunded 30(\.00)? baht.*owes it back/);
  const after = fold(owed, closed);
  assert.equal([after.status, after.refundedMinor, after.owedByPayerMinor, after.version], ['closed', 3_000n, 3_000n, closed.version + 1]);
  // Recorded once: the claim owes nothing more to a second look.
  assert.is(refundedOfTransfer(after), 0n);
  assert.equal(decideRefundOwed(reversal, after), []);
  // Then the bank recalls the refund from the payer too: they hold it no more, the owed amount follows what is left refunded.
  const recalled = fold([{ type: 'ClaimRefundRecalled', ...ev, recalledWithdrawalId: 'wdr_1', legRef: 'leg_1', recalledMinor: 1_000n, status: 'closed', refundedMinor: 2_000n }], after);
  assert.equal([recalled.refundedMinor, recalled.owedByPayerMinor], [2_000n, 2_000n]);
  // Nothing owed: a further transfer's claim (not recalled with the order's), a claim that refunded nothing, one not closed, another deposit's.
  assert.equal(decideRefundOwed(reversal, closedWith(3_000n, { ...opened, evidence: 'additional_transfer' })), []);
  assert.equal(decideRefundOwed(reversal, closedWith(0n)), []);
  assert.equal(decideRefundOwed(reversal, fold([reviewed, refundApproved, paidOut])), []);
  assert.equal(decideRefundOwed({ ...reversal, depositId: 'dep_2' }, closed), []);
  // A manual claim's and a late slip's refund count as the transfer's, as a refund after the reversal is refused for them.
  assert.is(refundedOfTransfer(closedWith(3_000n, { ...openedByHand, notes: [] })), 3_000n);
  // Only a closed claim, and never more than it refunded.
  assert.throws(() => evolveClaim(closed, { ...(owed[0] as any), owedMinor: 3_001n }));
  assert.throws(() => evolveClaim(fold([reviewed]), { ...(owed[0] as any), status: 'under_review' }));
});

test('no claim: resource_not_found', () => {
  const d = decideClaim({ type: 'StartClaimReview', ...base }, undefined);
  assert.ok(isRejection(d) && d.code === 'resource_not_found');
});

test('admission: an unknown deposit, a non-positive amount, more than the deposit and a short note are refused; a good claim passes', () => {
  const deposit = { id: 'dep_1', amountMinor: 50_000n, status: 'expired', isTerminal: true };
  const none = { claimedMinor: 0n, overpaidMinor: 0n };
  const refusals = [
    admitClaim({ kind: 'late_slip', amountMinor: 1n, note }, { deposit: undefined, ...none }),
    admitClaim({ kind: 'late_slip', amountMinor: 0n, note }, { deposit, ...none }),
    admitClaim({ kind: 'late_slip', amountMinor: 50_001n, note }, { deposit, ...none }),
    admitClaim({ kind: 'late_slip', amountMinor: 1n, note: 'short' }, { deposit, ...none }),
  ];
  assert.equal(refusals.map((r) => r?.code), ['validation_error', 'validation_error', 'validation_error', 'review_note_required']);
  assert.equal(refusals[2]!.details, { fields: [{ path: 'amount_minor', reason: 'maximum' }] });
  assert.match(refusals[2]!.message, /at most its deposit's amount \(500\.00 baht, amount_minor 50000\)/);
  assert.is(admitClaim({ kind: 'late_slip', amountMinor: 1n, note }, { deposit, ...none }), null);
  assert.is(admitClaim({ kind: 'late_slip', amountMinor: 50_000n, note }, { deposit, ...none }), null);
});

test('admission: never more across a deposit\'s claims of one kind than the deposit (a refund is never paid twice); never on an order that can still be paid, nor on one the bank recalled', () => {
  const deposit = { id: 'dep_1', amountMinor: 14_000n, status: 'rejected', isTerminal: true };
  const twice = admitClaim({ kind: 'late_slip', amountMinor: 14_000n, note }, { deposit, claimedMinor: 14_000n, overpaidMinor: 0n });
  assert.equal([twice?.code, twice?.details], ['validation_error', { fields: [{ path: 'amount_minor', reason: 'maximum', hint: 'at most 0' }] }]);
  assert.is(admitClaim({ kind: 'late_slip', amountMinor: 4_000n, note }, { deposit, claimedMinor: 10_000n, overpaidMinor: 0n }), null, 'the rest of it');
  assert.is(admitClaim({ kind: 'late_slip', amountMinor: 4_001n, note }, { deposit, claimedMinor: 10_000n, overpaidMinor: 0n })?.code, 'validation_error');
  for (const status of ['awaiting_liquidity', 'awaiting_payment', 'slip_processing', 'reversed']) {
    const r = admitClaim({ kind: 'late_slip', amountMinor: 1_000n, note }, { deposit: { ...deposit, status }, claimedMinor: 0n, overpaidMinor: 0n });
    assert.equal([r?.code, r?.details], ['operation_not_allowed', { status }], status);
  }
  for (const status of ['expired', 'canceled', 'rejected']) assert.is(admitClaim({ kind: 'late_slip', amountMinor: 1_000n, note }, { deposit: { ...deposit, status }, claimedMinor: 0n, overpaidMinor: 0n }), null, status);
});

test('admission: a claim on the order\'s own amount (late_slip, manual) is refused where that amount was or may still be the merchant\'s — settled, under review, closed but taking late slips — else one transfer is credited and refunded', () => {
  const deposit = { id: 'dep_1', amountMinor: 14_000n, status: 'settled', isTerminal: true };
  for (const [status, isTerminal, why] of [['under_review', false, /under review/], ['canceled', false, /still takes a late slip/], ['expired', false, /still takes a late slip/]] as const) {
    for (const kind of ['late_slip', 'manual'] as const) {
      const r = admitClaim({ kind, amountMinor: 1_000n, note }, { deposit: { ...deposit, status, isTerminal }, claimedMinor: 0n, overpaidMinor: 0n });
      assert.equal([r?.code, r?.details], ['operation_not_allowed', { status, kind }], `${kind} on ${status}`);
      assert.match(r!.message, why);
    }
  }
  // Settled: a late slip's amount was credited; a manual claim is on a transfer beyond it the service never saw (paid twice).
  const late = admitClaim({ kind: 'late_slip', amountMinor: 1_000n, note }, { deposit, claimedMinor: 0n, overpaidMinor: 0n });
  assert.equal([late?.code, /it settled/.test(late?.message ?? '')], ['operation_not_allowed', true]);
  assert.is(admitClaim({ kind: 'manual', amountMinor: 1_000n, note }, { deposit, claimedMinor: 0n, overpaidMinor: 0n }), null, 'the payer paid twice');
});

test('admission: an overpayment claim by hand is on what the service saw paid beyond the order (every excess and further transfer), not on the order\'s amount', () => {
  const deposit = { id: 'dep_1', amountMinor: 50_000n, status: 'settled', isTerminal: true };
  const none = admitClaim({ kind: 'overpayment', amountMinor: 1_000n, note }, { deposit, claimedMinor: 0n, overpaidMinor: 0n });
  assert.equal([none?.code, none?.message.includes('manual claim')], ['operation_not_allowed', true], 'no overpayment seen: none to claim as one');
  // 30,000 and 70,000 seen after settlement (100,000 beyond an order of 50,000); the 70,000 claim was rejected by mistake: it is claimed again.
  assert.is(admitClaim({ kind: 'overpayment', amountMinor: 70_000n, note }, { deposit, claimedMinor: 30_000n, overpaidMinor: 100_000n }), null);
  assert.is(admitClaim({ kind: 'overpayment', amountMinor: 70_001n, note }, { deposit, claimedMinor: 30_000n, overpaidMinor: 100_000n })?.code, 'validation_error', 'never more than was seen');
});

test('what a claim holds of its deposit: its amount while decided or paid, what its refund paid once closed, nothing once rejected', () => {
  const c = { amountMinor: 14_000n, refundedMinor: undefined };
  for (const status of ['open', 'under_review', 'refund_pending', 'return_pending_payout'] as const) assert.is(heldOfDeposit({ ...c, status }), 14_000n, status);
  assert.is(heldOfDeposit({ ...c, status: 'rejected' }), 0n);
  assert.is(heldOfDeposit({ ...c, status: 'closed', refundedMinor: 0n }), 0n, 'a refund that expired unfilled');
  assert.is(heldOfDeposit({ ...c, status: 'closed', refundedMinor: 5_000n }), 5_000n, 'a refund filled in part');
  assert.is(heldOfDeposit({ ...c, status: 'closed', refundedMinor: 14_000n }), 14_000n);
});

test('every status change bumps the version by one and keeps the note', () => {
  let c = opened;
  for (const e of [reviewed, refundApproved, paidOut]) c = evolveClaim(c, e);
  assert.equal([c.status, c.version, c.notes?.length, c.refundWithdrawalId], ['return_pending_payout', 3, 3, 'wdr_1']);
});

test('every refusal code the claim decider can return has a row', () => {
  const covered = new Set([...refusalCodesOfRows(rows), 'resource_not_found', 'validation_error', 'review_note_required']);
  assert.equal([...refusalCodesReachable('core/claim/decide.ts')].filter((c) => !covered.has(c)), []);
});

test.run();
