// The deposit decider as the contract's "Deposit transitions" table: each row is
// given(events that put the order in the From status).when(command).then(events | refusal),
// calling core/deposit/decide.ts and core/deposit/create.ts directly (no handler, no Tx,
// no world). Ids, times and outside facts are fixed values in the commands, so the
// expected events are written out in full, X/V/A/E and fees included. The last tests
// check that every refusal code the two files can return has a row here.
// One table per decider (STYLE 9), so the file runs past the ~400-line guide; its
// sections follow the contract's From column.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Merchant } from '../../core/directory.ts';
import { admitDeposit, type AdmittedDeposit, type CreateDepositFacts, type CreateDepositRequest } from '../../core/deposit/create.ts';
import { checkReversalReason, decide, type DepositCommand, type NewDeposit, type SettleContext, type VerificationOutcome, type WalletFacts } from '../../core/deposit/decide.ts';
import { reasonTexts } from '../../core/deposit/reasons.ts';
import { evolve, type Counterparty, type Deposit, type DepositEvent, type Leg, type ReviewReason, type Slip, type Verification } from '../../core/deposit/state.ts';
import type { SlipTransfer } from '../../core/deposit/verification.ts';
import type { Rejection } from '../../core/errors.ts';
import { limits } from '../../core/limits.ts';
import { defaultAmountPolicy, defaultFeeSchedule, type Minor } from '../../core/money.ts';
import { defaultSender } from '../support/core-harness.ts';
import { after, given, refusalCodesOfRows, refusalCodesReachable, table, type Decider, type Row } from '../support/decider.ts';

// ---- the decider under test ----

type Events = readonly DepositEvent[];
const deposit: Decider<Deposit | undefined, DepositEvent, DepositCommand, Events> = {
  initialState: () => undefined,
  evolve,
  decide: (command, state) => decide(command, state),
};
type DepositRow = Row<Deposit | undefined, DepositEvent, DepositCommand, Events, undefined>;

// ---- fixed values ----

const minute = 60_000;
const hour = 60 * minute;
const T0 = Date.UTC(2026, 10, 21, 3, 0, 0);
const X = 50_000n;
const expiresAt = T0 + 15 * minute;
const clearing = limits.clearingPeriodMs;
const lateWindow = limits.lateSlipWindowMs;
const note = 'Checked against the bank statement.';

const toWithdrawal = (n: number): Counterparty => ({ kind: 'withdrawal', withdrawalId: `wdr_${n}`, merchantId: 'mch_payer', payoutLegRef: `leg_p${n}` });
const leg = (n: number, amountMinor: Minor, counterparty: Counterparty = toWithdrawal(n)): Leg => ({
  legRef: `leg_${n}`, sequence: n, amountMinor, expiresAt, legStatus: 'pending', method: 'promptpay_qr',
  receiver: { bankCode: '004', accountNumber: `11122233${30 + n}`, accountName: 'สมหญิง รักดี' }, counterparty, held: counterparty.kind === 'withdrawal',
});
const gateway: Counterparty = { kind: 'gateway' };

const newDeposit = (amountMinor = X): NewDeposit => ({
  id: 'dep_1', merchantId: 'mch_dep', whiteLabelId: 'wl_1', livemode: true, merchantReference: 'order-1', endUserRef: 'user-1',
  amountMinor, createdAt: T0, expiresAt, lifetimeMs: 15 * minute, sender: defaultSender, hasClientData: true, fillPreference: 'any',
});

// ---- events that build the From states ----

const created = (amountMinor = X): DepositEvent => ({ type: 'DepositCreated', at: T0, deposit: newDeposit(amountMinor) });
const matched = (legs: readonly Leg[], source: 'internal' | 'external_gateway' = 'internal'): DepositEvent => ({ type: 'DepositMatched', at: T0, legs, source, expiresAt });
const liquidity = { waitStartedAt: T0, estimatedWaitMs: 5 * minute, retryIntervalMs: minute, suggestedAmountsMinor: [40_000n] };

/** A slip as decide writes it: every key present (see state.ts on shapes). */
const slip = (receiptId: string, receivedAt: number, late?: 'expired' | 'canceled'): Slip => ({
  receiptId, receivedAt, isLate: late !== undefined, hasImage: true, transRef: undefined, transferredAmountMinor: undefined, legRef: undefined, lateFrom: late,
});
const slipAt = (n: number) => T0 + n * minute;
const slipReceived = (n = 1, late?: 'expired' | 'canceled', at = slipAt(n)): DepositEvent => ({ type: 'SlipReceived', at, slip: slip(`rcpt_${n}`, at, late) });
const unreadableRejected = (n: number, attemptsLeft: number): DepositEvent => ({ type: 'SlipRejected', at: slipAt(n) + 30_000, attemptsLeft, timeRemains: true });

const awaitingLiquidity: Events = [created(), { type: 'DepositAwaitingLiquidity', at: T0, liquidity }];
const awaitingPayment: Events = [created(), matched([leg(1, X)])];
const slipProcessing: Events = [...awaitingPayment, slipReceived(1)];
const expiredEvent: DepositEvent = { type: 'DepositExpired', at: expiresAt, lateSlipAcceptedUntil: expiresAt + lateWindow };
const expired: Events = [...awaitingPayment, expiredEvent];
const canceledAt = T0 + 2 * minute;
const canceled: Events = [...awaitingPayment, { type: 'DepositCanceled', at: canceledAt, by: 'merchant', reasonCode: 'merchant_request', lateSlipAcceptedUntil: canceledAt + lateWindow }];
const sandboxAwaitingPayment: Events = [{ type: 'DepositCreated', at: T0, deposit: { ...newDeposit(), livemode: false } }, matched([leg(1, X, { kind: 'simulated' })])];
const gatewayExpired: Events = [created(), matched([leg(1, X, gateway)], 'external_gateway'), expiredEvent];

// ---- commands ----

const settle = (capacity: Minor = X, ...more: [string, Minor][]): SettleContext => ({
  fees: defaultFeeSchedule, balanceTransactionId: 'btxn_1', feeBalanceTransactionId: 'btxn_2', claimId: 'clm_1',
  capacityByLeg: new Map([['leg_1', capacity], ...more]),
});
const verifiedAt = T0 + 3 * minute;
const transfer = (amountMinor: Minor, over: Partial<SlipTransfer> & { senderName?: string; toLeg?: number } = {}): SlipTransfer => ({
  transRef: over.transRef ?? 'tr_1', amountMinor, occurredAt: over.occurredAt ?? slipAt(1),
  sender: { bankCode: defaultSender.bankCode, accountNumber: defaultSender.accountNumber, name: over.senderName ?? defaultSender.accountNameTh },
  receiver: over.receiver ?? { bankCode: '004', accountNumber: `11122233${30 + (over.toLeg ?? 1)}`, name: 'สมหญิง รักดี' },
});
/** The default sender as a slip shows it (a further transfer's overpayment names who sent it). */
const paidBy = { bankCode: defaultSender.bankCode, accountNumber: defaultSender.accountNumber, name: defaultSender.accountNameTh };
const found = (t: SlipTransfer, duplicateOfDepositId?: string): VerificationOutcome => ({
  kind: 'found', transfer: t, facts: duplicateOfDepositId ? { senderBankDisabled: false, duplicateOfDepositId } : { senderBankDisabled: false },
});
const verify = (outcome: VerificationOutcome, over: { at?: number; receiptId?: string; settle?: SettleContext } = {}): DepositCommand => ({
  type: 'RecordVerification', at: over.at ?? verifiedAt, receiptId: over.receiptId ?? 'rcpt_1', outcome, settle: over.settle ?? settle(),
});
const receive = (n: number, at = slipAt(n)): DepositCommand => ({ type: 'ReceiveSlip', at, receiptId: `rcpt_${n}`, hasImage: true });
const approve = (operatorId = 'emp_alice', over: { note?: string; transferredAmountMinor?: Minor; legs?: [number, Minor][]; at?: number; settle?: SettleContext } = {}): DepositCommand => ({
  type: 'ApproveReview', at: over.at ?? T0 + hour, operatorId, note: over.note ?? note, settle: over.settle ?? settle(),
  ...(over.transferredAmountMinor !== undefined ? { transferredAmountMinor: over.transferredAmountMinor } : {}),
  ...(over.legs !== undefined ? { legAmounts: over.legs.map(([n, amountMinor]) => ({ legRef: `leg_${n}`, amountMinor })) } : {}),
});
/** The decision an approval keeps on DepositSettled: who, why, and what each waiting leg received. */
const decidedBy = (operatorId: string, received: [number, Minor][]) => ({ operatorId, note, received: received.map(([n, amountMinor]) => ({ legRef: `leg_${n}`, amountMinor })) });
const approvalRecorded = (operatorId: string, received: [number, Minor][], restarted = false): DepositEvent => ({
  type: 'ReviewApprovalRecorded', at: T0 + hour, operatorId, note, received: received.map(([n, amountMinor]) => ({ legRef: `leg_${n}`, amountMinor })), ...(restarted ? { restarted: true as const } : {}),
});
const wallet = (pendingClearingMinor: Minor, availableMinor = 0n): WalletFacts => ({
  balances: { availableMinor, pendingClearingMinor, reservedMinor: 0n }, nextClearingAt: () => null,
});

// ---- expected events ----

const allSix: Verification = { amountExact: true, withinTimeWindow: true, senderBankMatch: true, senderAccountMatch: true, senderNameMatch: true, receiverMatch: true };
const fee = (processing: Minor, vat: Minor) => [
  { component: 'processing_fee' as const, amountMinor: processing, rateBps: 150 }, { component: 'vat' as const, amountMinor: vat, rateBps: 700 },
];

/** DepositSettled with the amounts spelled out: V transferred, A received, the fee lines, E overpaid. */
function settled(o: {
  at: number; V: Minor; A: Minor; fee: [Minor, Minor]; via?: 'auto' | 'review'; E?: Minor; verification?: Verification; transRef?: string;
  fills?: { leg: number; amountMinor: Minor; counterparty?: Counterparty }[]; suspenseMinor?: Minor; X?: Minor;
}): DepositEvent {
  const ordered = o.X ?? X;
  const feeTotal = o.fee[0] + o.fee[1];
  return {
    type: 'DepositSettled', at: o.at,
    settlement: {
      orderedMinor: ordered, transferredMinor: o.V, receivedMinor: o.A, feeTotalMinor: feeTotal, creditedMinor: o.A - feeTotal,
      feeBreakdown: fee(...o.fee), partial: o.V < ordered, settledVia: o.via ?? 'auto', balanceTransactionId: 'btxn_1',
      feeBalanceTransactionId: 'btxn_2', settledAt: o.at, clearingAvailableAt: o.at + clearing,
    },
    verification: o.verification,
    overpayment: o.E ? { claimId: 'clm_1', cause: 'same_transfer_excess', amountMinor: o.E, slipReceivedAt: slipAt(1) } : undefined,
    transRef: o.transRef,
    fills: (o.fills ?? [{ leg: 1, amountMinor: o.A }]).map((f) => ({ legRef: `leg_${f.leg}`, counterparty: f.counterparty ?? toWithdrawal(f.leg), amountMinor: f.amountMinor })),
    suspenseMinor: o.suspenseMinor ?? 0n,
  };
}

/** DepositUnderReview as verification opens it (what the found transfer showed, when one was found). */
function review(at: number, reasons: ReviewReason['code'][], seen?: { verification: Verification; V: Minor; transRef?: string; leg?: number; hold?: Minor; owed?: Minor }, fourEyesRequired = false): DepositEvent {
  return {
    type: 'DepositUnderReview', at, reasons: reasons.map((code) => ({ code })), fourEyesRequired,
    verification: seen?.verification, transferredAmountMinor: seen?.V, transRef: seen ? seen.transRef ?? 'tr_1' : undefined, legRef: seen ? `leg_${seen.leg ?? 1}` : undefined,
    ...(seen?.hold !== undefined ? { holdMinor: seen.hold } : {}), ...(seen?.owed !== undefined ? { owedMinor: seen.owed } : {}),
  };
}
const nameMismatch: Verification = { ...allSix, senderNameMatch: false };
const underReview: Events = [...slipProcessing, review(verifiedAt, ['SENDER_NAME_MISMATCH'], { verification: nameMismatch, V: X })];
const settledScene: Events = after(deposit, slipProcessing, verify(found(transfer(X))));
const settledAt = verifiedAt;

// Four eyes: an order of at least fourEyesAmountMinorMin needs two different approvers.
const big = BigInt(limits.fourEyesAmountMinorMin);
const bigUnderReview: Events = [
  created(big), matched([leg(1, big)]), slipReceived(1),
  review(verifiedAt, ['SENDER_NAME_MISMATCH'], { verification: nameMismatch, V: big }, true),
];

// Multi-leg: 30 000 to one withdrawal, 20 000 to another.
const twoLegs: Events = [created(), matched([leg(1, 30_000n), leg(2, 20_000n)])];
const legOneComplete: DepositEvent = { type: 'LegCompleted', at: verifiedAt, legRef: 'leg_1', verifiedAmountMinor: 30_000n, verification: allSix, transRef: 'tr_1' };

// A two-leg order that expired unpaid, and a late slip for its first leg.
const lateTwoLegs: Events = [...twoLegs, expiredEvent, slipReceived(1, 'expired', expiresAt + hour)];
// Leg 1 verified, then a second transfer to leg 1's account: review as AMBIGUOUS_MATCH, naming leg 1 (no waiting leg).
const paidAgainUnderReview = (V: Minor): DepositEvent => ({
  type: 'DepositUnderReview', at: slipAt(6), reasons: [{ code: 'AMBIGUOUS_MATCH' }], fourEyesRequired: false, verification: { ...allSix, amountExact: V === 30_000n }, transferredAmountMinor: V, transRef: 'tr_2', legRef: 'leg_1',
});
const paidAgainReview: Events = [...twoLegs, slipReceived(1), legOneComplete, slipReceived(2, undefined, slipAt(5)), paidAgainUnderReview(30_000n)];
// The same, leg 1 paid 20 000 of its 30 000 first, then 10 000 more to its account.
const legOneShort: DepositEvent = { ...legOneComplete, verifiedAmountMinor: 20_000n, verification: { ...allSix, amountExact: false } };
const paidUpReview: Events = [...twoLegs, slipReceived(1), legOneShort, slipReceived(2, undefined, slipAt(5)), paidAgainUnderReview(10_000n)];
// A second transfer to leg 1's account, as its late review records it (tr_2, leg 1 named, its hold raised).
const lateAgain = (V: Minor, hold: Partial<Record<'holdMinor' | 'owedMinor', Minor>>, fourEyesRequired = false): DepositEvent => ({
  type: 'DepositUnderReview', at: expiresAt + 2 * hour + minute, reasons: [{ code: 'AMBIGUOUS_MATCH' }, { code: 'AMOUNT_MISMATCH', detail: { expected_minor: 30_000, transferred_minor: Number(V) } }],
  fourEyesRequired, verification: { ...allSix, amountExact: false }, transferredAmountMinor: V, transRef: 'tr_2', legRef: 'leg_1', ...hold,
});
// A late order's leg 1 paid 20 000 by a late slip (held for it), then a second late slip.
const lateLegOneShort: Events = [...lateTwoLegs, { ...legOneShort, at: expiresAt + hour + minute, holdMinor: 20_000n }, slipReceived(2, 'expired', expiresAt + 2 * hour)];

// Held for review while the withdrawal its leg pays lost the capacity to take it (others
// filled, canceled or expired it): a late slip whose masked account leaves the sender
// unsure (AMBIGUOUS_MATCH), and a slip the withdrawal could take only part of (SETTLE_CONFLICT).
const ambiguousLate: Events = [...expired, slipReceived(1, 'expired', expiresAt + hour),
  review(expiresAt + hour + minute, ['AMBIGUOUS_MATCH'], { verification: { ...allSix, senderAccountMatch: false }, V: X })];
const settleConflict: Events = [...slipProcessing, review(verifiedAt, ['SETTLE_CONFLICT'], { verification: allSix, V: X })];

// Settled by a review that saw no transfer (a claim without an image), and later the transfer's slip.
const reviewedUnseen: Events = after(deposit, [...slipProcessing, review(verifiedAt, ['NO_SLIP_IMAGE'])], approve('emp_alice', { transferredAmountMinor: X }));
const reviewedUnseenMatched: Events = after(deposit, [...reviewedUnseen, { type: 'AdditionalSlipReceived', at: T0 + 2 * hour, slip: slip('rcpt_2', T0 + 2 * hour) }],
  verify(found(transfer(X, { transRef: 'tr_9' })), { receiptId: 'rcpt_2', at: T0 + 3 * hour }));
// The same, the claim naming its trans_ref: the review saw that transfer.
const claimedRef: DepositEvent = { type: 'SlipReceived', at: slipAt(1), slip: { ...slip('rcpt_1', slipAt(1)), hasImage: false, transRef: 'tr_claimed' } };
// No amount shown by any bank: two reviewers credit it.
const reviewedClaimed: Events = after(deposit, after(deposit, [...awaitingPayment, claimedRef, review(verifiedAt, ['NO_SLIP_IMAGE'])], approve('emp_alice', { transferredAmountMinor: X })),
  approve('emp_bob', { transferredAmountMinor: X }));
// Two legs credited by a review of a claim without an image: neither transfer seen.
const twoLegsUnseen: Events = after(deposit, [...twoLegs, slipReceived(1), review(verifiedAt, ['NO_SLIP_IMAGE'])],
  approve('emp_alice', { legs: [[1, 30_000n], [2, 20_000n]], settle: settle(30_000n, ['leg_2', 20_000n]) }));
// Two legs under review on leg 1's slip (its transfer seen), approved by two reviewers with what both received.
const twoLegsApproval = (operatorId: string) => approve(operatorId, { legs: [[1, 30_000n], [2, 20_000n]], settle: settle(30_000n, ['leg_2', 20_000n]) });
const twoLegsReviewed: Events = after(deposit,
  after(deposit, [...twoLegs, slipReceived(1), review(verifiedAt, ['SENDER_NAME_MISMATCH'], { verification: nameMismatch, V: 30_000n })], twoLegsApproval('emp_alice')),
  twoLegsApproval('emp_bob'));

const rows: DepositRow[] = [
  // ---- (create) ----
  {
    row: '(create) create answered 201 → awaiting_payment: DepositCreated, DepositMatched with the legs',
    given: [], when: { type: 'CreateDeposit', at: T0, deposit: newDeposit(), match: { kind: 'matched', legs: [leg(1, X)], source: 'internal', expiresAt } },
    then: [created(), matched([leg(1, X)])],
  },
  {
    row: '(create) create answered 202 → awaiting_liquidity: DepositCreated, DepositAwaitingLiquidity',
    given: [], when: { type: 'CreateDeposit', at: T0, deposit: newDeposit(), match: { kind: 'waiting', liquidity } },
    then: awaitingLiquidity,
  },
  {
    row: '(create) an id that already exists → validation_error (not_unique)',
    given: awaitingPayment, when: { type: 'CreateDeposit', at: T0, deposit: newDeposit(), match: { kind: 'waiting', liquidity } },
    refused: 'validation_error', message: /already exists/,
  },
  { row: 'any command on an order that does not exist → resource_not_found', given: [], when: { type: 'ClearDeposit', at: T0 }, refused: 'resource_not_found' },

  // ---- awaiting_liquidity ----
  {
    row: 'awaiting_liquidity → destination found → awaiting_payment (deposit.matched)',
    given: awaitingLiquidity, when: { type: 'MatchDeposit', at: T0 + minute, match: { kind: 'matched', legs: [leg(1, X)], source: 'internal', expiresAt: expiresAt + minute } },
    then: [{ type: 'DepositMatched', at: T0 + minute, legs: [leg(1, X)], source: 'internal', expiresAt: expiresAt + minute }],
  },
  {
    row: 'awaiting_liquidity → no liquidity available → canceled no_liquidity_available, terminal at once (no late window: nobody could pay)',
    given: awaitingLiquidity, when: { type: 'EndLiquidityWait', at: T0 + 10 * minute },
    then: [{ type: 'DepositCanceled', at: T0 + 10 * minute, by: 'system', reasonCode: 'no_liquidity_available', lateSlipAcceptedUntil: null }],
  },
  {
    row: 'awaiting_liquidity → merchant cancels → canceled, terminal at once',
    given: awaitingLiquidity, when: { type: 'CancelDeposit', at: T0 + minute, by: 'merchant', reasonCode: 'merchant_request' },
    then: [{ type: 'DepositCanceled', at: T0 + minute, by: 'merchant', reasonCode: 'merchant_request', lateSlipAcceptedUntil: null }],
  },
  {
    row: 'awaiting_liquidity: a slip before any destination → validation_error (not_accepting_slips)',
    given: awaitingLiquidity, when: receive(1), refused: 'validation_error', message: /does not accept a slip/,
  },

  // ---- awaiting_payment ----
  {
    row: 'awaiting_payment → consumer claims slip receipt → slip_processing (deposit.slip_received, not late)',
    given: awaitingPayment, when: receive(1), then: [slipReceived(1)],
  },
  {
    row: 'awaiting_payment → expires_at passes with no slip → expired, late-slip window of 24 h (is_terminal false)',
    given: awaitingPayment, when: { type: 'ExpireDeposit', at: expiresAt, settle: settle() }, then: [expiredEvent],
  },
  {
    row: 'awaiting_payment: an expiry timer firing before expires_at → no events',
    given: awaitingPayment, when: { type: 'ExpireDeposit', at: expiresAt - 1, settle: settle() }, then: [],
  },
  {
    row: 'sandbox awaiting_payment: the scenario engine expires the order before expires_at (10200, 11200) → expired',
    given: sandboxAwaitingPayment, when: { type: 'ExpireDeposit', at: T0 + 5_000, settle: settle(), scenario: true },
    then: [{ type: 'DepositExpired', at: T0 + 5_000, lateSlipAcceptedUntil: T0 + 5_000 + lateWindow }],
  },
  {
    row: 'live awaiting_payment: a scenario expiry before expires_at → no events (live has no scenarios)',
    given: awaitingPayment, when: { type: 'ExpireDeposit', at: T0 + 5_000, settle: settle(), scenario: true }, then: [],
  },
  {
    row: 'sandbox expired: the scenario engine closes the late window at once (11200) → is_terminal true',
    given: [...sandboxAwaitingPayment, { type: 'DepositExpired', at: T0 + 5_000, lateSlipAcceptedUntil: T0 + 5_000 + lateWindow }],
    when: { type: 'CloseLateSlipWindow', at: T0 + 5_000, scenario: true }, then: [{ type: 'LateSlipWindowClosed', at: T0 + 5_000 }],
  },
  {
    row: 'live expired: a scenario close before late_slip_accepted_until → no events',
    given: expired, when: { type: 'CloseLateSlipWindow', at: expiresAt + 1, scenario: true }, then: [],
  },
  {
    row: 'awaiting_payment → cancel while no slip exists → canceled with a 24 h late window (is_terminal false)',
    given: awaitingPayment, when: { type: 'CancelDeposit', at: canceledAt, by: 'merchant', reasonCode: 'merchant_request' }, then: canceled.slice(2),
  },
  {
    row: 'awaiting_payment: cancel once a slip was uploaded (rejected as unreadable) → deposit_not_cancelable',
    given: [...slipProcessing, unreadableRejected(1, 2)], when: { type: 'CancelDeposit', at: canceledAt, by: 'merchant', reasonCode: 'merchant_request' },
    refused: 'deposit_not_cancelable', message: /already uploaded/,
  },
  {
    row: 'settled: cancel → deposit_not_cancelable naming its status (not "a slip was already uploaded", though one was)',
    given: settledScene, when: { type: 'CancelDeposit', at: settledAt + 1, by: 'merchant', reasonCode: 'merchant_request' },
    refused: 'deposit_not_cancelable', message: /^A deposit in status settled cannot be canceled\.$/,
  },
  {
    row: 'awaiting_payment (multi-leg) → a leg is paid → unchanged, the leg completes (deposit.leg_updated)',
    given: [...twoLegs, slipReceived(1)], when: verify(found(transfer(30_000n)), { settle: settle(30_000n, ['leg_2', 20_000n]) }), then: [legOneComplete],
  },
  {
    row: 'awaiting_payment (multi-leg) → expires with one leg paid → settled as a short-pay of the paid legs',
    given: [...twoLegs, slipReceived(1), legOneComplete], when: { type: 'ExpireDeposit', at: expiresAt, settle: settle(30_000n, ['leg_2', 20_000n]) },
    then: [settled({ at: expiresAt, V: 30_000n, A: 30_000n, fee: [450n, 32n], verification: { ...allSix, amountExact: false } })], // each paid leg exact, the order short
  },
  {
    row: 'awaiting_payment (multi-leg) → the last leg is paid, the payer\'s amounts swapped between the legs → under_review SETTLE_CONFLICT: 10 000 sits with leg 2\'s payee beyond its withdrawal, and only a reviewer books that to suspense',
    given: [...twoLegs, slipReceived(1), { ...legOneComplete, verifiedAmountMinor: 20_000n }, slipReceived(2, undefined, slipAt(5))],
    when: verify(found(transfer(30_000n, { toLeg: 2, transRef: 'tr_2' })), { at: slipAt(6), receiptId: 'rcpt_2', settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [review(slipAt(6), ['SETTLE_CONFLICT'], { verification: { ...allSix, amountExact: false }, V: 30_000n, transRef: 'tr_2', leg: 2 }, true)],
  },
  {
    row: 'awaiting_payment (multi-leg) → expires with one leg paid beyond its share, the order short → under_review SETTLE_CONFLICT, four eyes: not expired no_payment with the money dropped and the withdrawals released to be paid again',
    given: [...twoLegs, slipReceived(1), { ...legOneComplete, verifiedAmountMinor: 40_000n }], when: { type: 'ExpireDeposit', at: expiresAt, settle: settle(30_000n, ['leg_2', 20_000n]) },
    // Whatever leg 2 got, 10 000 of leg 1's money is beyond what its withdrawal takes: suspense.
    then: [{ type: 'DepositUnderReview', at: expiresAt, reasons: [{ code: 'SETTLE_CONFLICT' }], fourEyesRequired: true }],
  },
  {
    row: 'awaiting_payment (multi-leg) → expires with one leg paid, its withdrawal unable to take it now → under_review SETTLE_CONFLICT, four eyes (not expired no_payment)',
    given: [...twoLegs, slipReceived(1), legOneComplete], when: { type: 'ExpireDeposit', at: expiresAt, settle: settle(10_000n, ['leg_2', 20_000n]) },
    then: [{ type: 'DepositUnderReview', at: expiresAt, reasons: [{ code: 'SETTLE_CONFLICT' }], fourEyesRequired: true }],
  },
  {
    row: 'expired (multi-leg, the whole order paid to one leg: a journal from before expiry took it to review) → the late window closes → under_review SETTLE_CONFLICT, four eyes',
    given: [...twoLegs, slipReceived(1), { ...legOneComplete, verifiedAmountMinor: X }, expiredEvent],
    when: { type: 'CloseLateSlipWindow', at: expiresAt + lateWindow, settle: settle(30_000n, ['leg_2', 20_000n]) },
    then: [{ type: 'DepositUnderReview', at: expiresAt + lateWindow, reasons: [{ code: 'SETTLE_CONFLICT' }], fourEyesRequired: true }],
  },

  // ---- slip_processing ----
  {
    row: 'slip_processing → all six checks pass, exact → settled: X = V = A, fee 1.5 % + VAT, the leg fills its withdrawal',
    given: slipProcessing, when: verify(found(transfer(X))),
    then: [settled({ at: verifiedAt, V: X, A: X, fee: [750n, 53n], verification: allSix, transRef: 'tr_1' })],
  },
  {
    row: 'slip_processing → short-pay with the other five passing → settled at A = V < X, partial true',
    given: slipProcessing, when: verify(found(transfer(30_000n))),
    then: [settled({ at: verifiedAt, V: 30_000n, A: 30_000n, fee: [450n, 32n], verification: { ...allSix, amountExact: false }, transRef: 'tr_1' })],
  },
  {
    row: 'slip_processing → overpayment with the other five passing → settled at A = X, E = V − X flagged (same_transfer_excess)',
    given: slipProcessing, when: verify(found(transfer(60_000n))),
    then: [settled({ at: verifiedAt, V: 60_000n, A: X, E: 10_000n, fee: [750n, 53n], verification: { ...allSix, amountExact: false }, transRef: 'tr_1' })],
  },
  {
    row: 'slip_processing → real non-amount reason (sender name) → under_review SENDER_NAME_MISMATCH, money untouched',
    given: slipProcessing, when: verify(found(transfer(X, { senderName: 'สมศรี มีสุข' }))), then: underReview.slice(-1),
  },
  {
    row: 'slip_processing → amount and a non-amount reason → under_review, the real reason first and AMOUNT_MISMATCH kept alongside',
    given: slipProcessing, when: verify(found(transfer(30_000n, { senderName: 'สมศรี มีสุข' }))),
    then: (events) => assert.equal(events.map((e) => e.type === 'DepositUnderReview' ? e.reasons.map((r) => r.code) : e.type), [['SENDER_NAME_MISMATCH', 'AMOUNT_MISMATCH']]),
  },
  {
    row: 'slip_processing → the transfer went to another account → under_review RECEIVER_MISMATCH',
    given: slipProcessing, when: verify(found(transfer(X, { toLeg: 7 }))),
    then: (events) => assert.equal(events.map((e) => e.type === 'DepositUnderReview' && e.reasons.map((r) => r.code)), [['RECEIVER_MISMATCH']]),
  },
  {
    row: 'slip_processing → the transfer was used by another deposit → under_review DUPLICATE_SLIP, four eyes',
    given: slipProcessing, when: verify(found(transfer(X), 'dep_other')),
    then: [review(verifiedAt, ['DUPLICATE_SLIP'], { verification: allSix, V: X }, true)],
  },
  {
    row: 'slip_processing → the provider finds no such transfer → under_review SLIP_INVALID',
    given: slipProcessing, when: verify({ kind: 'not_found' }), then: [review(verifiedAt, ['SLIP_INVALID'])],
  },
  {
    row: 'slip_processing → the provider is unavailable → under_review PROVIDER_UNAVAILABLE (policy hold)',
    given: slipProcessing, when: verify({ kind: 'provider_unavailable' }), then: [review(verifiedAt, ['PROVIDER_UNAVAILABLE'])],
  },
  {
    row: 'slip_processing → a claim with no image → under_review NO_SLIP_IMAGE, four eyes from the start (no bank showed an amount)',
    given: slipProcessing, when: verify({ kind: 'no_image' }), then: [review(verifiedAt, ['NO_SLIP_IMAGE'], undefined, true)],
  },
  {
    row: 'under_review (a claim without an image: no bank showed an amount) → approve → approval recorded, a second reviewer settles',
    given: [...awaitingPayment, claimedRef, review(verifiedAt, ['NO_SLIP_IMAGE'])], when: approve('emp_alice', { transferredAmountMinor: 20_000n }),
    then: [approvalRecorded('emp_alice', [[1, 20_000n]])],
  },
  {
    row: 'slip_processing → a claim with no image naming a transfer another deposit was credited for → under_review NO_SLIP_IMAGE and DUPLICATE_SLIP, four eyes',
    given: slipProcessing, when: verify({ kind: 'no_image', duplicateOfDepositId: 'dep_other' }), then: [review(verifiedAt, ['DUPLICATE_SLIP', 'NO_SLIP_IMAGE'], undefined, true)],
  },
  {
    row: 'slip_processing → the withdrawal cannot take the settlement → under_review SETTLE_CONFLICT',
    given: slipProcessing, when: verify(found(transfer(X)), { settle: settle(20_000n) }),
    then: [review(verifiedAt, ['SETTLE_CONFLICT'], { verification: allSix, V: X }, true)], // 30 000 would come out of suspense
  },
  {
    row: 'slip_processing → a non-amount reason on an order of the four-eyes size → under_review with four_eyes_required',
    given: [created(big), matched([leg(1, big)]), slipReceived(1)], when: verify(found(transfer(big, { senderName: 'สมศรี มีสุข' })), { settle: settle(big) }),
    then: bigUnderReview.slice(-1),
  },
  {
    row: 'slip_processing → image unreadable, time and attempts remain → awaiting_payment (deposit.slip_rejected, retryable)',
    given: slipProcessing, when: verify({ kind: 'unreadable' }),
    then: [{ type: 'SlipRejected', at: verifiedAt, attemptsLeft: 2, timeRemains: true }],
  },
  {
    row: 'slip_processing → image unreadable and time is up → expired (deposit.slip_rejected and deposit.expired)',
    given: slipProcessing, when: verify({ kind: 'unreadable' }, { at: expiresAt + minute }),
    then: [{ type: 'SlipRejected', at: expiresAt + minute, attemptsLeft: 2, timeRemains: false, retryable: true }, { type: 'DepositExpired', at: expiresAt + minute, lateSlipAcceptedUntil: expiresAt + minute + lateWindow }],
  },
  {
    row: 'slip_processing (multi-leg, one leg paid beyond its share) → image unreadable and time is up → slip_rejected and under_review SETTLE_CONFLICT, four eyes: the verified money is not expired as no_payment',
    given: [...twoLegs, slipReceived(1), { ...legOneComplete, verifiedAmountMinor: 40_000n }, slipReceived(2, undefined, slipAt(5))],
    when: verify({ kind: 'unreadable' }, { receiptId: 'rcpt_2', at: expiresAt + minute, settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [
      { type: 'SlipRejected', at: expiresAt + minute, attemptsLeft: 2, timeRemains: false, retryable: false },
      { type: 'DepositUnderReview', at: expiresAt + minute, reasons: [{ code: 'SETTLE_CONFLICT' }], fourEyesRequired: true },
    ],
  },
  {
    row: 'slip_processing → image unreadable on the last allowed upload, time remains → awaiting_payment with attempts_left 0 (the contract: time, not attempts, decides)',
    given: [...slipProcessing, unreadableRejected(1, 2), slipReceived(2), unreadableRejected(2, 1), slipReceived(3)],
    when: verify({ kind: 'unreadable' }, { receiptId: 'rcpt_3' }),
    then: [{ type: 'SlipRejected', at: verifiedAt, attemptsLeft: 0, timeRemains: true }],
  },
  {
    row: 'slip_processing → image unreadable on the last allowed upload and time is up → expired with its late window (a fallback route may still confirm in it)',
    given: [...slipProcessing, unreadableRejected(1, 2), slipReceived(2), unreadableRejected(2, 1), slipReceived(3)],
    when: verify({ kind: 'unreadable' }, { receiptId: 'rcpt_3', at: expiresAt + minute }),
    then: [{ type: 'SlipRejected', at: expiresAt + minute, attemptsLeft: 0, timeRemains: false, retryable: false }, { type: 'DepositExpired', at: expiresAt + minute, lateSlipAcceptedUntil: expiresAt + minute + lateWindow }],
  },
  {
    row: 'slip_processing: a second slip while the first is verified → queued (SlipQueued), verified in its turn',
    given: slipProcessing, when: receive(2), then: [{ type: 'SlipQueued', at: slipAt(2), slip: slip('rcpt_2', slipAt(2)) }],
  },
  {
    row: 'slip_processing → unreadable with a slip queued → awaiting_payment, and the queued slip takes its turn (SlipDequeued)',
    given: [...slipProcessing, { type: 'SlipQueued', at: slipAt(2), slip: slip('rcpt_2', slipAt(2)) }], when: verify({ kind: 'unreadable' }),
    then: [{ type: 'SlipRejected', at: verifiedAt, attemptsLeft: 1, timeRemains: true }, { type: 'SlipDequeued', at: verifiedAt, slip: slip('rcpt_2', slipAt(2)), afterSettlement: false }],
  },
  {
    row: 'slip_processing: a verification result for another receipt (stale or repeated) → no events',
    given: slipProcessing, when: verify(found(transfer(X)), { receiptId: 'rcpt_9' }), then: [],
  },
  {
    row: 'slip_processing: cancel once a slip exists → deposit_not_cancelable',
    given: slipProcessing, when: { type: 'CancelDeposit', at: canceledAt, by: 'end_user', reasonCode: 'end_user_request' }, refused: 'deposit_not_cancelable',
  },
  {
    row: 'slip_processing: a fourth upload (at most 3 per order) → validation_error (upload_limit_reached)',
    given: [...slipProcessing, unreadableRejected(1, 2), slipReceived(2), unreadableRejected(2, 1), slipReceived(3)], when: receive(4),
    refused: 'validation_error', message: /At most 3 slips/,
  },

  // ---- expired / canceled ----
  {
    row: 'expired → late slip within the 24-hour window → slip_processing with slip.is_late true',
    given: expired, when: receive(1, expiresAt + hour), then: [slipReceived(1, 'expired', expiresAt + hour)],
  },
  {
    row: 'expired (multi-leg, nothing paid) → a late slip paying one leg → the leg completes, held again on its withdrawal for its money; the order stays expired (its other legs\' late slips are still welcome)',
    given: lateTwoLegs, when: verify(found(transfer(30_000n)), { at: expiresAt + hour + minute, settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [{ ...legOneComplete, at: expiresAt + hour + minute, holdMinor: 30_000n }],
  },
  {
    row: 'expired (multi-leg) → a late slip paying one leg short → held for what it brought, the rest of its withdrawal left to other payers',
    given: lateTwoLegs, when: verify(found(transfer(25_000n)), { at: expiresAt + hour + minute, settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [{ ...legOneComplete, at: expiresAt + hour + minute, verifiedAmountMinor: 25_000n, verification: { ...allSix, amountExact: false }, holdMinor: 25_000n }],
  },
  {
    row: 'expired (multi-leg) → a late slip paying one leg beyond its share → held for its share (what its withdrawal takes)',
    given: lateTwoLegs, when: verify(found(transfer(40_000n)), { at: expiresAt + hour + minute, settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [{ ...legOneComplete, at: expiresAt + hour + minute, verifiedAmountMinor: 40_000n, verification: { ...allSix, amountExact: false }, holdMinor: 30_000n }],
  },
  {
    row: 'expired (multi-leg) → a late slip paying one leg, another payer holding part of its withdrawal since → held for what is left; the order\'s settlement finds too little (review)',
    given: lateTwoLegs, when: verify(found(transfer(30_000n)), { at: expiresAt + hour + minute, settle: settle(10_000n, ['leg_2', 20_000n]) }),
    then: [{ ...legOneComplete, at: expiresAt + hour + minute, holdMinor: 10_000n, owedMinor: 30_000n }], // the rest topped up as capacity frees
  },
  {
    row: 'expired (multi-leg) → a late slip paying one leg whose withdrawal others filled since (it takes nothing more) → the leg completes, nothing to hold',
    given: lateTwoLegs, when: verify(found(transfer(30_000n)), { at: expiresAt + hour + minute, settle: { ...settle(), capacityByLeg: new Map([['leg_2', 20_000n]]) } }),
    then: [{ ...legOneComplete, at: expiresAt + hour + minute }],
  },
  {
    row: 'expired (multi-leg) → a late slip paying one leg whose withdrawal other payers hold in full → the leg completes and waits on it for capacity (owed, nothing held yet: topped up as it frees)',
    given: lateTwoLegs, when: verify(found(transfer(30_000n)), { at: expiresAt + hour + minute, settle: settle(0n, ['leg_2', 20_000n]) }),
    then: [{ ...legOneComplete, at: expiresAt + hour + minute, owedMinor: 30_000n }],
  },
  {
    row: 'expired (multi-leg) → a late slip paying the whole order to leg 1 → under_review SETTLE_CONFLICT at once, leg 1 held again for its share (the payee has it whatever the reviewer decides), four eyes: the rest of the transfer, as the evidence puts it, would come out of suspense',
    given: lateTwoLegs, when: verify(found(transfer(X)), { at: expiresAt + hour + minute, settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [review(expiresAt + hour + minute, ['SETTLE_CONFLICT'], { verification: { ...allSix, amountExact: false }, V: X, hold: 30_000n }, true)],
  },
  {
    row: 'expired (multi-leg) → a late slip to leg 1 from a sender the order does not name → under_review, leg 1 held again for what it brought, as far as its withdrawal\'s capacity goes; four eyes: beyond it, suspense',
    given: lateTwoLegs, when: verify(found(transfer(30_000n, { senderName: 'Someone Else' })), { at: expiresAt + hour + minute, settle: settle(10_000n, ['leg_2', 20_000n]) }),
    then: [review(expiresAt + hour + minute, ['SENDER_NAME_MISMATCH'], { verification: nameMismatch, V: 30_000n, hold: 10_000n, owed: 30_000n }, true)],
  },
  {
    row: 'expired (multi-leg) → a late slip whose receiver is masked past telling the legs apart → under_review AMBIGUOUS_MATCH, nothing held (no leg surely reached)',
    given: lateTwoLegs, when: verify(found(transfer(30_000n, { receiver: { bankCode: '004', accountNumber: 'xxxxxxxx31', name: 'สมหญิง รักดี' } })), { at: expiresAt + hour + minute, settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [review(expiresAt + hour + minute, ['AMBIGUOUS_MATCH'], { verification: { ...allSix, receiverMatch: false }, V: 30_000n })],
  },
  {
    row: 'expired (multi-leg, leg 1 paid 20 000 of 30 000 late) → a second late transfer of 10 000 to leg 1\'s account → under_review AMBIGUOUS_MATCH naming leg 1, its hold raised to 30 000: its payee has both transfers',
    given: lateLegOneShort, when: verify(found(transfer(10_000n, { transRef: 'tr_2' })), { receiptId: 'rcpt_2', at: expiresAt + 2 * hour + minute, settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [lateAgain(10_000n, { holdMinor: 30_000n })],
  },
  {
    row: 'expired (multi-leg, leg 1 paid 20 000 of 30 000 late) → a second late transfer of 25 000 to leg 1 → hold raised to its share only (the rest is beyond it), four eyes: the excess over the share comes out of suspense',
    given: lateLegOneShort, when: verify(found(transfer(25_000n, { transRef: 'tr_2' })), { receiptId: 'rcpt_2', at: expiresAt + 2 * hour + minute, settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [lateAgain(25_000n, { holdMinor: 30_000n }, true)],
  },
  {
    row: 'expired (multi-leg, leg 1 paid 20 000 of 30 000 late) → a second late transfer, its withdrawal with 5 000 more capacity → raised as far as it goes, the rest owed (topped up as capacity frees); four eyes: as things stand, the rest from suspense',
    given: lateLegOneShort, when: verify(found(transfer(10_000n, { transRef: 'tr_2' })), { receiptId: 'rcpt_2', at: expiresAt + 2 * hour + minute, settle: settle(25_000n, ['leg_2', 20_000n]) }),
    then: [lateAgain(10_000n, { holdMinor: 25_000n, owedMinor: 30_000n }, true)],
  },
  {
    row: 'expired (multi-leg, leg 1 paid late) → its own transfer shown again (the same trans_ref) → under_review AMBIGUOUS_MATCH, no leg named, nothing raised: no new money',
    given: lateLegOneShort, when: verify(found(transfer(20_000n)), { receiptId: 'rcpt_2', at: expiresAt + 2 * hour + minute, settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [{ ...lateAgain(20_000n, {}), transRef: 'tr_1', legRef: undefined } as DepositEvent],
  },
  {
    row: 'expired (multi-leg, leg 1 paid 20 000 late, a second transfer of 10 000 to it under review) → approve with legs[] (0 at leg 2) → settled at 30 000, leg 1 filled with both transfers',
    given: after(deposit, lateLegOneShort, verify(found(transfer(10_000n, { transRef: 'tr_2' })), { receiptId: 'rcpt_2', at: expiresAt + 2 * hour + minute, settle: settle(30_000n, ['leg_2', 20_000n]) })),
    when: approve('emp_alice', { legs: [[2, 0n]], settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [{ ...settled({ at: T0 + hour, V: 30_000n, A: 30_000n, fee: [450n, 32n], via: 'review', fills: [{ leg: 1, amountMinor: 30_000n }] }), decision: decidedBy('emp_alice', [[2, 0n]]) } as DepositEvent],
  },
  {
    row: 'expired (multi-leg, one leg paid by a late slip) → the late window closes → settled as a short-pay of that leg',
    given: after(deposit, lateTwoLegs, verify(found(transfer(30_000n)), { at: expiresAt + hour + minute, settle: settle(30_000n, ['leg_2', 20_000n]) })),
    when: { type: 'CloseLateSlipWindow', at: expiresAt + lateWindow, settle: settle(30_000n, ['leg_2', 20_000n]) },
    then: [settled({ at: expiresAt + lateWindow, V: 30_000n, A: 30_000n, fee: [450n, 32n], verification: { ...allSix, amountExact: false } })], // the paid leg exact, the order short
  },
  {
    row: 'expired (multi-leg, one leg paid by a late slip, its withdrawal filled since) → the late window closes → under_review SETTLE_CONFLICT (the money is not dropped)',
    given: after(deposit, lateTwoLegs, verify(found(transfer(30_000n)), { at: expiresAt + hour + minute, settle: settle(30_000n, ['leg_2', 20_000n]) })),
    when: { type: 'CloseLateSlipWindow', at: expiresAt + lateWindow, settle: settle(0n, ['leg_2', 20_000n]) },
    then: [{ type: 'DepositUnderReview', at: expiresAt + lateWindow, reasons: [{ code: 'SETTLE_CONFLICT' }], fourEyesRequired: true }], // all of it from suspense
  },
  {
    row: 'expired → late slip after late_slip_accepted_until → late_slip_window_closed (410)',
    given: expired, when: receive(1, expiresAt + lateWindow + 1), refused: 'late_slip_window_closed',
  },
  {
    row: 'expired → late slip whose transfer came after expires_at → under_review LATE_SLIP',
    given: [...expired, slipReceived(1, 'expired', expiresAt + hour)],
    when: verify(found(transfer(X, { occurredAt: expiresAt + hour })), { at: expiresAt + hour + minute }),
    then: [review(expiresAt + hour + minute, ['LATE_SLIP'], { verification: { ...allSix, withinTimeWindow: false }, V: X, hold: X })], // its payee has the money: held again
  },
  {
    row: 'expired → a late slip the bank stamped outside the window (sandbox 10200 says so) → under_review LATE_SLIP',
    given: [...expired, slipReceived(1, 'expired', expiresAt + minute)],
    when: verify({ kind: 'found', transfer: transfer(X, { occurredAt: expiresAt + minute }), facts: { senderBankDisabled: false, outsideTimeWindow: true } }, { at: expiresAt + 2 * minute }),
    then: [review(expiresAt + 2 * minute, ['LATE_SLIP'], { verification: { ...allSix, withinTimeWindow: false }, V: X, hold: X })],
  },
  {
    row: 'slip_processing → the destination was allocated to another payment (sandbox 11000) → under_review ALLOCATION_CONFLICT',
    given: slipProcessing, when: verify({ kind: 'found', transfer: transfer(X), facts: { senderBankDisabled: false, allocationConflict: true } }),
    then: [review(verifiedAt, ['ALLOCATION_CONFLICT'], { verification: allSix, V: X })],
  },
  {
    row: 'canceled → late slip within the window → slip_processing (is_late, from canceled)',
    given: canceled, when: receive(1, canceledAt + hour), then: [slipReceived(1, 'canceled', canceledAt + hour)],
  },
  {
    row: 'canceled → late slip verified, all six passing → forced to under_review with CANCELED_ORDER_SLIP',
    given: [...canceled, slipReceived(1, 'canceled', canceledAt + hour)], when: verify(found(transfer(X)), { at: canceledAt + 2 * hour }),
    then: [review(canceledAt + 2 * hour, ['CANCELED_ORDER_SLIP'], { verification: allSix, V: X, hold: X })], // held again for the money its payee has
  },
  {
    row: 'expired or canceled → fallback route confirms after close → under_review LATE_ROUTE_CONFIRMATION',
    given: gatewayExpired, when: { type: 'ConfirmRoute', at: expiresAt + hour, transRef: 'tr_gw', amountMinor: X },
    then: [{
      type: 'DepositUnderReview', at: expiresAt + hour, reasons: [{ code: 'LATE_ROUTE_CONFIRMATION' }], fourEyesRequired: false,
      routeConfirmation: { transRef: 'tr_gw', amountMinor: X, legRef: 'leg_1', confirmedAt: expiresAt + hour },
    }],
  },
  {
    row: 'expired or canceled: a route confirmation with a non-positive amount → validation_error',
    given: gatewayExpired, when: { type: 'ConfirmRoute', at: expiresAt + hour, transRef: 'tr_gw', amountMinor: 0n }, refused: 'validation_error', message: /positive/,
  },
  {
    row: 'expired or canceled: a route confirmation for an order not routed to the gateway → operation_not_allowed',
    given: expired, when: { type: 'ConfirmRoute', at: expiresAt + hour, transRef: 'tr_gw', amountMinor: X }, refused: 'operation_not_allowed', message: /not routed to the gateway/,
  },
  {
    row: 'awaiting_payment: a route confirmation before close → operation_not_allowed',
    given: [created(), matched([leg(1, X, gateway)], 'external_gateway')], when: { type: 'ConfirmRoute', at: T0 + minute, transRef: 'tr_gw', amountMinor: X },
    refused: 'operation_not_allowed', message: /expired or canceled/,
  },
  {
    row: 'expired, late window closed: a route confirmation → late_slip_window_closed (a matter for a claim)',
    given: [...gatewayExpired, { type: 'LateSlipWindowClosed', at: expiresAt + lateWindow }], when: { type: 'ConfirmRoute', at: expiresAt + lateWindow + 1, transRef: 'tr_gw', amountMinor: X },
    refused: 'late_slip_window_closed',
  },
  {
    row: 'expired or canceled → late-slip window closes → unchanged, is_terminal true',
    given: expired, when: { type: 'CloseLateSlipWindow', at: expiresAt + lateWindow }, then: [{ type: 'LateSlipWindowClosed', at: expiresAt + lateWindow }],
  },
  {
    row: 'expired: the late-window timer firing before late_slip_accepted_until → no events',
    given: expired, when: { type: 'CloseLateSlipWindow', at: expiresAt + lateWindow - 1 }, then: [],
  },

  // ---- under_review ----
  {
    row: 'under_review → escalation timeout → under_review with review.escalated true, money untouched',
    given: underReview, when: { type: 'EscalateReview', at: T0 + 4 * hour }, then: [{ type: 'ReviewEscalated', at: T0 + 4 * hour }],
  },
  {
    row: 'under_review, escalated → four hours open → under_review with the estimate extended, money untouched',
    given: [...underReview, { type: 'ReviewEscalated', at: T0 + hour }], when: { type: 'ExtendReview', at: T0 + 4 * hour }, then: [{ type: 'ReviewExtended', at: T0 + 4 * hour }],
  },
  {
    row: 'under_review, already extended → extend again → no events',
    given: [...underReview, { type: 'ReviewEscalated', at: T0 + hour }, { type: 'ReviewExtended', at: T0 + 4 * hour }], when: { type: 'ExtendReview', at: T0 + 5 * hour }, then: [],
  },
  {
    row: 'under_review → reviewer approves → settled via review at the verified V',
    given: underReview, when: approve(),
    then: [{ ...settled({ at: T0 + hour, V: X, A: X, fee: [750n, 53n], via: 'review' }), decision: decidedBy('emp_alice', [[1, X]]) } as DepositEvent],
  },
  {
    row: 'under_review → reviewer approves with a corrected amount → settled at A = min(V, X)',
    given: underReview, when: approve('emp_alice', { transferredAmountMinor: 30_000n }),
    then: [{ ...settled({ at: T0 + hour, V: 30_000n, A: 30_000n, fee: [450n, 32n], via: 'review', verification: { ...nameMismatch, amountExact: false } }), decision: decidedBy('emp_alice', [[1, 30_000n]]) } as DepositEvent],
  },
  {
    row: 'under_review (four eyes) → first approval → under_review, approval recorded with what the leg received',
    given: bigUnderReview, when: approve('emp_alice'), then: [approvalRecorded('emp_alice', [[1, big]])],
  },
  {
    row: 'under_review (four eyes) → a second approval by a different operator → settled',
    given: [...bigUnderReview, { type: 'ReviewApprovalRecorded', at: T0 + hour, operatorId: 'emp_alice' }], when: approve('emp_bob', { settle: settle(big) }),
    then: [{ ...settled({ at: T0 + hour, X: big, V: big, A: big, fee: [75_000n, 5_250n], via: 'review' }), decision: decidedBy('emp_bob', [[1, big]]) } as DepositEvent],
  },
  {
    row: 'under_review (four eyes) → a second approval giving no amount → settled at the first approval\'s amount, not the slip\'s',
    given: [...bigUnderReview, approvalRecorded('emp_alice', [[1, big - 100_000n]])], when: approve('emp_bob', { settle: settle(big) }),
    then: [{ ...settled({ at: T0 + hour, X: big, V: big - 100_000n, A: big - 100_000n, fee: [73_500n, 5_145n], via: 'review', verification: { ...nameMismatch, amountExact: false } }), decision: decidedBy('emp_bob', [[1, big - 100_000n]]) } as DepositEvent],
  },
  {
    row: 'under_review (four eyes) → a second approval with the same amount → settled',
    given: [...bigUnderReview, approvalRecorded('emp_alice', [[1, big - 100_000n]])], when: approve('emp_bob', { transferredAmountMinor: big - 100_000n, settle: settle(big) }),
    then: [{ ...settled({ at: T0 + hour, X: big, V: big - 100_000n, A: big - 100_000n, fee: [73_500n, 5_145n], via: 'review', verification: { ...nameMismatch, amountExact: false } }), decision: decidedBy('emp_bob', [[1, big - 100_000n]]) } as DepositEvent],
  },
  {
    row: 'under_review (four eyes) → a second approval with another amount → under_review, it replaces the first (restarted): nothing settles on one reviewer\'s figure',
    given: [...bigUnderReview, approvalRecorded('emp_alice', [[1, big]])], when: approve('emp_bob', { transferredAmountMinor: big - 100_000n }),
    then: [approvalRecorded('emp_bob', [[1, big - 100_000n]], true)],
  },
  {
    row: 'under_review (four eyes), restarted by a second reviewer → the first reviewer may confirm the new amount → settled',
    given: [...bigUnderReview, approvalRecorded('emp_alice', [[1, big]]), approvalRecorded('emp_bob', [[1, big - 100_000n]], true)],
    when: approve('emp_alice', { settle: settle(big) }),
    then: [{ ...settled({ at: T0 + hour, X: big, V: big - 100_000n, A: big - 100_000n, fee: [73_500n, 5_145n], via: 'review', verification: { ...nameMismatch, amountExact: false } }), decision: decidedBy('emp_alice', [[1, big - 100_000n]]) } as DepositEvent],
  },
  {
    row: 'under_review AMBIGUOUS_MATCH, the withdrawal filled by others since → one approval → under_review, approval recorded: the credit would come out of suspense (four eyes)',
    given: ambiguousLate, when: approve('emp_alice', { settle: settle(0n) }), then: [approvalRecorded('emp_alice', [[1, X]])],
  },
  {
    row: 'under_review AMBIGUOUS_MATCH, the withdrawal filled by others since, one approval recorded → a second, different approver → settled, nothing filled, A out of suspense',
    given: [...ambiguousLate, approvalRecorded('emp_alice', [[1, X]])], when: approve('emp_bob', { settle: settle(0n) }),
    then: [{ ...settled({ at: T0 + hour, V: X, A: X, fee: [750n, 53n], via: 'review', fills: [], suspenseMinor: X }), decision: decidedBy('emp_bob', [[1, X]]) } as DepositEvent],
  },
  {
    row: 'under_review SETTLE_CONFLICT, the withdrawal able to take only part → one approval → under_review, approval recorded: the rest would come out of suspense (four eyes)',
    given: settleConflict, when: approve('emp_alice', { settle: settle(20_000n) }), then: [approvalRecorded('emp_alice', [[1, X]])],
  },
  {
    row: 'under_review SETTLE_CONFLICT, one approval recorded → a second, different approver → settled, the withdrawal filled by what it takes, the rest out of suspense',
    given: [...settleConflict, approvalRecorded('emp_alice', [[1, X]])], when: approve('emp_bob', { settle: settle(20_000n) }),
    then: [{ ...settled({ at: T0 + hour, V: X, A: X, fee: [750n, 53n], via: 'review', fills: [{ leg: 1, amountMinor: 20_000n }], suspenseMinor: 30_000n }), decision: decidedBy('emp_bob', [[1, X]]) } as DepositEvent],
  },
  {
    row: 'under_review SETTLE_CONFLICT found at expiry (leg 1 verified 40 000 on its 30 000) → amount_minor → recorded for leg 2, the one waiting: the verified leg keeps its 40 000, no figure replaces it',
    given: [...twoLegs, slipReceived(1), { ...legOneComplete, verifiedAmountMinor: 40_000n }, { type: 'DepositUnderReview', at: expiresAt, reasons: [{ code: 'SETTLE_CONFLICT' }], fourEyesRequired: true }],
    when: approve('emp_alice', { transferredAmountMinor: 10_000n, settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [approvalRecorded('emp_alice', [[2, 10_000n]])],
  },
  {
    row: 'under_review SETTLE_CONFLICT found at expiry (leg 1 verified, no figure for leg 2) → approve with no figures → validation_error asking legs[] (amount_minor cannot say leg 2 got 0)',
    given: [...twoLegs, slipReceived(1), { ...legOneComplete, verifiedAmountMinor: 40_000n }, { type: 'DepositUnderReview', at: expiresAt, reasons: [{ code: 'SETTLE_CONFLICT' }], fourEyesRequired: true }],
    when: approve('emp_alice', { settle: settle(30_000n, ['leg_2', 20_000n]) }),
    refused: 'validation_error', message: /reached no leg still waiting for money: give legs\[\]/,
  },
  {
    row: 'under_review SETTLE_CONFLICT found at expiry, approved by two with leg 2 at 0 → settled at V = 40 000: leg 1 fills its withdrawal\'s 30 000, 10 000 from suspense',
    given: [...twoLegs, slipReceived(1), { ...legOneComplete, verifiedAmountMinor: 40_000n }, { type: 'DepositUnderReview', at: expiresAt, reasons: [{ code: 'SETTLE_CONFLICT' }], fourEyesRequired: true }, approvalRecorded('emp_alice', [[2, 0n]])],
    when: approve('emp_bob', { settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [{ ...settled({ at: T0 + hour, V: 40_000n, A: 40_000n, fee: [600n, 42n], via: 'review', fills: [{ leg: 1, amountMinor: 30_000n }], suspenseMinor: 10_000n, verification: { ...allSix, amountExact: false } }), decision: decidedBy('emp_bob', [[2, 0n]]) } as DepositEvent],
  },
  {
    row: 'under_review SETTLE_CONFLICT, the withdrawal able to take it all by now → one approval → settled (nothing from suspense: one reviewer is enough)',
    given: settleConflict, when: approve('emp_alice', { settle: settle(X) }),
    then: [{ ...settled({ at: T0 + hour, V: X, A: X, fee: [750n, 53n], via: 'review' }), decision: decidedBy('emp_alice', [[1, X]]) } as DepositEvent],
  },
  {
    row: 'under_review (four eyes): a first approval when no transferred amount is known → validation_error (the first reviewer states it)',
    given: [created(big), matched([leg(1, big)]), slipReceived(1), review(verifiedAt, ['PROVIDER_UNAVAILABLE'], undefined, true)], when: approve('emp_alice'),
    refused: 'validation_error', message: /transferred amount is unknown/,
  },
  {
    row: 'under_review → approve with a figure above what one bank transfer carries → validation_error (a typo, never a claim of trillions)',
    given: underReview, when: approve('emp_alice', { transferredAmountMinor: BigInt(limits.reviewFiguresMinorMax) + 1n }), refused: 'validation_error', message: /more than one bank transfer carries/,
  },
  {
    row: 'under_review (multi-leg) → approve with legs[] adding up above what one bank transfer carries → validation_error',
    given: [...twoLegs, slipReceived(1), review(verifiedAt, ['NO_SLIP_IMAGE'])], when: approve('emp_alice', { legs: [[1, 9_007_199_254_740_991n], [2, 0n]] }),
    refused: 'validation_error', message: /more than one bank transfer carries/,
  },
  {
    row: 'under_review (multi-leg, two legs waiting) → approve with one amount → validation_error: legs[] must say what each destination received',
    given: [...twoLegs, slipReceived(1), review(verifiedAt, ['NO_SLIP_IMAGE'])], when: approve('emp_alice', { transferredAmountMinor: X }),
    refused: 'validation_error', message: /2 legs waiting/,
  },
  {
    row: 'under_review (multi-leg) → approve with legs[] → settled, each withdrawal filled by what its destination received',
    given: [...twoLegs, slipReceived(1), review(verifiedAt, ['NO_SLIP_IMAGE'])], when: approve('emp_alice', { legs: [[1, 30_000n], [2, 20_000n]], settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [{ ...settled({ at: T0 + hour, V: X, A: X, fee: [750n, 53n], via: 'review', fills: [{ leg: 1, amountMinor: 30_000n }, { leg: 2, amountMinor: 20_000n }] }), decision: decidedBy('emp_alice', [[1, 30_000n], [2, 20_000n]]), unseenCredits: [{ legRef: 'leg_1', amountMinor: 30_000n }, { legRef: 'leg_2', amountMinor: 20_000n }] } as DepositEvent],
  },
  {
    row: 'under_review (multi-leg) → approve with legs[], nothing at the second → settled short at the first leg, the second released',
    given: [...twoLegs, slipReceived(1), review(verifiedAt, ['NO_SLIP_IMAGE'])], when: approve('emp_alice', { legs: [[1, 30_000n], [2, 0n]], settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [{ ...settled({ at: T0 + hour, V: 30_000n, A: 30_000n, fee: [450n, 32n], via: 'review', fills: [{ leg: 1, amountMinor: 30_000n }] }), decision: decidedBy('emp_alice', [[1, 30_000n], [2, 0n]]), unseenCredits: [{ legRef: 'leg_1', amountMinor: 30_000n }] } as DepositEvent],
  },
  {
    row: 'under_review (multi-leg): legs[] without a waiting leg → validation_error naming it',
    given: [...twoLegs, slipReceived(1), review(verifiedAt, ['NO_SLIP_IMAGE'])], when: approve('emp_alice', { legs: [[1, 30_000n]] }),
    refused: 'validation_error', message: /every leg still waiting/,
  },
  {
    row: 'under_review (multi-leg): legs[] naming a leg the deposit does not have → validation_error',
    given: [...twoLegs, slipReceived(1), review(verifiedAt, ['NO_SLIP_IMAGE'])], when: approve('emp_alice', { legs: [[1, 30_000n], [2, 20_000n], [7, 1n]] }),
    refused: 'validation_error', message: /no leg leg_7/,
  },
  {
    row: 'under_review (multi-leg, first leg complete, the second\'s slip held) → approve → settled at both legs',
    given: [...twoLegs, slipReceived(1), legOneComplete, slipReceived(2, undefined, slipAt(5)), review(slipAt(6), ['SENDER_NAME_MISMATCH'], { verification: nameMismatch, V: 20_000n, leg: 2, transRef: 'tr_2' })],
    when: approve('emp_alice', { settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [{ ...settled({ at: T0 + hour, V: X, A: X, fee: [750n, 53n], via: 'review', fills: [{ leg: 1, amountMinor: 30_000n }, { leg: 2, amountMinor: 20_000n }] }), decision: decidedBy('emp_alice', [[2, 20_000n]]) } as DepositEvent],
  },
  {
    row: 'under_review (multi-leg, first leg complete, a second transfer to leg 1) → approve with no figures → validation_error: the waiting leg got nothing from it',
    given: paidAgainReview, when: approve('emp_alice', { settle: settle(30_000n, ['leg_2', 20_000n]) }),
    refused: 'validation_error', message: /reached no leg still waiting/,
  },
  {
    row: 'under_review (multi-leg, first leg complete, a second transfer to leg 1) → decline → operation_not_allowed: leg 1\'s money is not dropped',
    given: paidAgainReview, when: { type: 'DeclineReview', at: T0 + hour, operatorId: 'emp_alice', note },
    refused: 'operation_not_allowed', message: /already verified/,
  },
  {
    row: 'under_review (multi-leg, leg 1 paid 20 000 of 30 000, a second transfer of 10 000 to leg 1) → approve with legs[] (0 at leg 2) → settled at 30 000, leg 1 filled with both (not 20 000, its payee paid again for the rest by new payers), leg 2 released',
    given: paidUpReview, when: approve('emp_alice', { legs: [[2, 0n]], settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [{ ...settled({ at: T0 + hour, V: 30_000n, A: 30_000n, fee: [450n, 32n], via: 'review', fills: [{ leg: 1, amountMinor: 30_000n }] }), decision: decidedBy('emp_alice', [[2, 0n]]) } as DepositEvent],
  },
  {
    row: 'under_review (multi-leg, leg 1 paid its 30 000, then 30 000 more to leg 1) → approve with legs[] (0 at leg 2) → approval recorded: counted as one transfer of 60 000 to leg 1, the order\'s 50 000 settles with 20 000 beyond leg 1\'s share from suspense (four eyes)',
    given: paidAgainReview, when: approve('emp_alice', { legs: [[2, 0n]], settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [approvalRecorded('emp_alice', [[2, 0n]])],
  },
  {
    row: 'under_review (multi-leg, leg 1 paid its 30 000, then 30 000 more to leg 1), one approval recorded → a second approver → settled at 50 000: leg 1 filled 30 000, 20 000 from suspense, the 10 000 over the order a claim',
    given: after(deposit, paidAgainReview, approve('emp_alice', { legs: [[2, 0n]], settle: settle(30_000n, ['leg_2', 20_000n]) })),
    when: approve('emp_bob', { settle: settle(30_000n, ['leg_2', 20_000n]) }),
    then: [{
      ...settled({ at: T0 + hour, V: 60_000n, A: X, E: 10_000n, fee: [750n, 53n], via: 'review', verification: { ...allSix, amountExact: false }, fills: [{ leg: 1, amountMinor: 30_000n }], suspenseMinor: 20_000n }),
      overpayment: { claimId: 'clm_1', cause: 'same_transfer_excess', amountMinor: 10_000n, slipReceivedAt: slipAt(5) }, decision: decidedBy('emp_bob', [[2, 0n]]),
    } as DepositEvent],
  },
  {
    row: 'under_review (multi-leg, first leg complete): legs[] naming the complete leg → validation_error',
    given: [...twoLegs, slipReceived(1), legOneComplete, slipReceived(2, undefined, slipAt(5)), review(slipAt(6), ['NO_SLIP_IMAGE'])],
    when: approve('emp_alice', { legs: [[1, 30_000n], [2, 20_000n]] }),
    refused: 'validation_error', message: /already complete/,
  },
  {
    row: 'under_review (four eyes): the second approval by the same operator → operation_not_allowed',
    given: [...bigUnderReview, { type: 'ReviewApprovalRecorded', at: T0 + hour, operatorId: 'emp_alice' }], when: approve('emp_alice'),
    refused: 'operation_not_allowed', message: /different operator/,
  },
  {
    row: 'under_review (four eyes): the second approval by the same operator spelled in capitals (an issuer that does not normalise subjects) → operation_not_allowed',
    given: [...bigUnderReview, { type: 'ReviewApprovalRecorded', at: T0 + hour, operatorId: 'emp_alice' }], when: approve('EMP_Alice'),
    refused: 'operation_not_allowed', message: /different operator/,
  },
  {
    row: 'under_review (four eyes): a second approval naming a version the deposit has moved past (figures recorded since) → operation_not_allowed, nothing recorded',
    given: [...bigUnderReview, { type: 'ReviewApprovalRecorded', at: T0 + hour, operatorId: 'emp_alice' }], when: { ...approve('emp_bob'), expectedVersion: 0 } as DepositCommand,
    refused: 'operation_not_allowed', message: /changed since you read it/,
  },
  {
    row: 'under_review: an approval with a note shorter than 20 characters → review_note_required',
    given: underReview, when: approve('emp_alice', { note: 'ok' }), refused: 'review_note_required',
  },
  {
    row: 'under_review: approving when no transferred amount is known and none is given → validation_error',
    given: [...slipProcessing, review(verifiedAt, ['PROVIDER_UNAVAILABLE'])], when: approve(), refused: 'validation_error', message: /transferred amount is unknown/,
  },
  {
    row: 'under_review with no leg (a state no command reaches: defensive) → approve → alloc_state_conflict',
    given: [...awaitingLiquidity, review(verifiedAt, ['PROVIDER_UNAVAILABLE'])], when: approve('emp_alice', { transferredAmountMinor: X }),
    refused: 'alloc_state_conflict',
  },
  {
    row: 'under_review → reviewer declines → rejected, saying declined, the first reason and what a payer who paid does',
    given: underReview, when: { type: 'DeclineReview', at: T0 + hour, operatorId: 'emp_alice', note },
    then: [{
      type: 'DepositRejected', at: T0 + hour, code: 'SENDER_NAME_MISMATCH',
      displayTh: `รายการนี้ไม่ผ่านการตรวจสอบ (${reasonTexts.SENDER_NAME_MISMATCH.th}) หากท่านโอนเงินแล้ว กรุณาติดต่อร้านค้าพร้อมสลิปเพื่อขอคืนเงิน`,
      displayEn: 'The order was declined on review (The sender name differs from the registered one). If you transferred money, contact the merchant with your slip for a refund.',
      decision: { operatorId: 'emp_alice', note },
    }],
  },
  {
    row: 'under_review: a decline with a short note → review_note_required',
    given: underReview, when: { type: 'DeclineReview', at: T0 + hour, operatorId: 'emp_alice', note: '  short  ' }, refused: 'review_note_required',
  },
  {
    row: 'not under review: approve → operation_not_allowed',
    given: slipProcessing, when: approve(), refused: 'operation_not_allowed', message: /Only a deposit under review can be approved/,
  },
  {
    row: 'not under review: decline → operation_not_allowed',
    given: settledScene, when: { type: 'DeclineReview', at: T0 + hour, operatorId: 'emp_alice', note }, refused: 'operation_not_allowed',
  },
  {
    row: 'under_review: a slip claimed meanwhile → queued for after the review',
    given: underReview, when: receive(2, T0 + hour), then: [{ type: 'SlipQueued', at: T0 + hour, slip: slip('rcpt_2', T0 + hour) }],
  },

  // ---- settled ----
  {
    row: 'settled → bank recall → reversed, taken from pending_clearing inside the clearing window',
    given: settledScene, when: { type: 'ReverseDeposit', at: settledAt + hour, reasonCode: 'BANK_RECALL', balanceTransactionId: 'btxn_9', wallet: wallet(49_197n), refundsPayingOut: [], refundsPaid: [] },
    then: [{ type: 'DepositReversed', at: settledAt + hour, reasonCode: 'BANK_RECALL', reversesBalanceTransactionId: 'btxn_1', balanceTransactionId: 'btxn_9' }],
  },
  {
    row: 'settled: a reversal the credit bucket cannot cover → insufficient_balance (no bucket goes negative)',
    given: settledScene, when: { type: 'ReverseDeposit', at: settledAt + hour, reasonCode: 'ACCOUNT_FROZEN', balanceTransactionId: 'btxn_9', wallet: wallet(49_196n, 1_000_000n), refundsPayingOut: [], refundsPaid: [] },
    refused: 'insufficient_balance', message: /pending_clearing bucket/,
  },
  {
    row: 'settled, a claim\'s refund being paid out to the payer → reverse → operation_not_allowed: cancel the refund first, or the payer is paid twice',
    given: settledScene, when: { type: 'ReverseDeposit', at: settledAt + hour, reasonCode: 'BANK_RECALL', balanceTransactionId: 'btxn_9', wallet: wallet(49_197n), refundsPayingOut: [{ claimId: 'clm_1', withdrawalId: 'wdr_9' }], refundsPaid: [] },
    refused: 'operation_not_allowed', message: /refund withdrawal wdr_9 is paying the payer out.*\/v1\/bo\/withdrawals\/wdr_9\/cancel/,
  },
  {
    row: 'settled, a claim\'s refund already paid the payer some of the transfer → reverse → operation_not_allowed: the recall pays them again; say claim_refunds',
    given: settledScene, when: { type: 'ReverseDeposit', at: settledAt + hour, reasonCode: 'BANK_RECALL', balanceTransactionId: 'btxn_9', wallet: wallet(49_197n), refundsPayingOut: [], refundsPaid: [{ claimId: 'clm_1', refundedMinor: 500n }] },
    refused: 'operation_not_allowed', message: /Claim clm_1 already refunded 5(\.00)? baht of this transfer.*claim_refunds: "recover_from_payer"/,
  },
  {
    row: 'settled, a claim\'s refund already paid, the operator records it owed back by the payer → reversed as any (the claim records it: handler)',
    given: settledScene, when: { type: 'ReverseDeposit', at: settledAt + hour, reasonCode: 'BANK_RECALL', balanceTransactionId: 'btxn_9', wallet: wallet(49_197n), refundsPayingOut: [], refundsPaid: [{ claimId: 'clm_1', refundedMinor: 500n }], claimRefunds: 'recover_from_payer' },
    then: [{ type: 'DepositReversed', at: settledAt + hour, reasonCode: 'BANK_RECALL', reversesBalanceTransactionId: 'btxn_1', balanceTransactionId: 'btxn_9' }],
  },
  {
    row: 'not settled: reverse → operation_not_allowed',
    given: awaitingPayment, when: { type: 'ReverseDeposit', at: T0 + hour, reasonCode: 'OPS_ERROR', balanceTransactionId: 'btxn_9', wallet: wallet(X), refundsPayingOut: [], refundsPaid: [] },
    refused: 'operation_not_allowed', message: /Only a settled deposit/,
  },
  {
    row: 'settled → 72 hours after credit → unchanged (balance.cleared)',
    given: settledScene, when: { type: 'ClearDeposit', at: settledAt + clearing }, then: [{ type: 'DepositCleared', at: settledAt + clearing }],
  },
  {
    row: 'settled: the clearing timer firing early → no events',
    given: settledScene, when: { type: 'ClearDeposit', at: settledAt + clearing - 1 }, then: [],
  },
  {
    row: 'settled → second slip after settlement → unchanged, kept as an additional slip',
    given: settledScene, when: receive(2, settledAt + hour), then: [{ type: 'AdditionalSlipReceived', at: settledAt + hour, slip: slip('rcpt_2', settledAt + hour) }],
  },
  {
    row: 'settled → second transfer after settlement verified → unchanged, deposit.overpaid (additional_transfer; V and A untouched)',
    given: [...settledScene, { type: 'AdditionalSlipReceived', at: settledAt + hour, slip: slip('rcpt_2', settledAt + hour) }],
    when: verify(found(transfer(10_000n, { transRef: 'tr_2' })), { receiptId: 'rcpt_2', at: settledAt + 2 * hour }),
    then: [{ type: 'DepositOverpaid', at: settledAt + 2 * hour, overpayment: { claimId: 'clm_1', cause: 'additional_transfer', amountMinor: 10_000n, slipReceivedAt: settledAt + hour, receiptId: 'rcpt_2', transRef: 'tr_2', sender: paidBy } }],
  },
  {
    row: 'settled → a transfer after settlement to an account the order never named → no claim, unchanged',
    given: [...settledScene, { type: 'AdditionalSlipReceived', at: settledAt + hour, slip: slip('rcpt_2', settledAt + hour) }],
    when: verify(found(transfer(10_000n, { transRef: 'tr_2', receiver: { bankCode: '004', accountNumber: '9998887776', name: 'นายอื่น ไม่เกี่ยว' } })), { receiptId: 'rcpt_2', at: settledAt + 2 * hour }),
    then: [],
  },
  {
    row: 'settled → a transfer after settlement to the leg\'s bank number at another bank → no claim',
    given: [...settledScene, { type: 'AdditionalSlipReceived', at: settledAt + hour, slip: slip('rcpt_2', settledAt + hour) }],
    when: verify(found(transfer(10_000n, { transRef: 'tr_2', receiver: { bankCode: '014', accountNumber: '1112223331', name: 'สมหญิง รักดี' } })), { receiptId: 'rcpt_2', at: settledAt + 2 * hour }),
    then: [],
  },
  {
    row: 'settled → a transfer after settlement to a masked number that may be the leg\'s → deposit.overpaid (a reviewer works the claim)',
    given: [...settledScene, { type: 'AdditionalSlipReceived', at: settledAt + hour, slip: slip('rcpt_2', settledAt + hour) }],
    when: verify(found(transfer(10_000n, { transRef: 'tr_2', receiver: { bankCode: '004', accountNumber: 'xxx-x-x2333-1', name: 'สมหญิง ร.' } })), { receiptId: 'rcpt_2', at: settledAt + 2 * hour }),
    then: [{ type: 'DepositOverpaid', at: settledAt + 2 * hour, overpayment: { claimId: 'clm_1', cause: 'additional_transfer', amountMinor: 10_000n, slipReceivedAt: settledAt + hour, receiptId: 'rcpt_2', transRef: 'tr_2', sender: paidBy } }],
  },
  {
    row: 'settled: the settled transfer uploaded again → no events (no new money)',
    given: [...settledScene, { type: 'AdditionalSlipReceived', at: settledAt + hour, slip: slip('rcpt_2', settledAt + hour) }],
    when: verify(found(transfer(X)), { receiptId: 'rcpt_2', at: settledAt + 2 * hour }), then: [],
  },
  {
    row: 'settled by a review that saw no transfer → that transfer\'s slip after settlement → no overpayment: it is the money the review credited (AdditionalTransferMatched)',
    given: [...reviewedUnseen, { type: 'AdditionalSlipReceived', at: T0 + 2 * hour, slip: slip('rcpt_2', T0 + 2 * hour) }],
    when: verify(found(transfer(X, { transRef: 'tr_9' })), { receiptId: 'rcpt_2', at: T0 + 3 * hour }),
    then: [{ type: 'AdditionalTransferMatched', at: T0 + 3 * hour, legRef: 'leg_1', transRef: 'tr_9', amountMinor: X, creditedMinor: X, receiptId: 'rcpt_2' }],
  },
  {
    row: 'settled by a review that saw no transfer → a transfer made by then, larger than the credit → only the excess is an overpayment',
    given: [...reviewedUnseen, { type: 'AdditionalSlipReceived', at: T0 + 2 * hour, slip: slip('rcpt_2', T0 + 2 * hour) }],
    when: verify(found(transfer(X + 500n, { transRef: 'tr_9' })), { receiptId: 'rcpt_2', at: T0 + 3 * hour }),
    then: [
      { type: 'AdditionalTransferMatched', at: T0 + 3 * hour, legRef: 'leg_1', transRef: 'tr_9', amountMinor: X + 500n, creditedMinor: X, receiptId: 'rcpt_2' },
      { type: 'DepositOverpaid', at: T0 + 3 * hour, overpayment: { claimId: 'clm_1', cause: 'additional_transfer', amountMinor: 500n, slipReceivedAt: T0 + 2 * hour, receiptId: 'rcpt_2', transRef: 'tr_9', sender: paidBy } },
    ],
  },
  {
    row: 'settled by a review that saw no transfer → a transfer made after the review settled → new money: deposit.overpaid in full',
    given: [...reviewedUnseen, { type: 'AdditionalSlipReceived', at: T0 + 2 * hour, slip: slip('rcpt_2', T0 + 2 * hour) }],
    when: verify(found(transfer(X, { transRef: 'tr_9', occurredAt: T0 + 90 * minute })), { receiptId: 'rcpt_2', at: T0 + 3 * hour }),
    then: [{ type: 'DepositOverpaid', at: T0 + 3 * hour, overpayment: { claimId: 'clm_1', cause: 'additional_transfer', amountMinor: X, slipReceivedAt: T0 + 2 * hour, receiptId: 'rcpt_2', transRef: 'tr_9', sender: paidBy } }],
  },
  {
    row: 'settled by a review, its credit since matched to a transfer → a second transfer to the leg → deposit.overpaid in full; the matched one again → nothing',
    given: [...reviewedUnseenMatched, { type: 'AdditionalSlipReceived', at: T0 + 4 * hour, slip: slip('rcpt_3', T0 + 4 * hour) }],
    when: verify(found(transfer(X, { transRef: 'tr_10' })), { receiptId: 'rcpt_3', at: T0 + 5 * hour }),
    then: [{ type: 'DepositOverpaid', at: T0 + 5 * hour, overpayment: { claimId: 'clm_1', cause: 'additional_transfer', amountMinor: X, slipReceivedAt: T0 + 4 * hour, receiptId: 'rcpt_3', transRef: 'tr_10', sender: paidBy } }],
  },
  {
    row: 'settled by a review, its credit since matched → the matched transfer uploaded again → no events',
    given: [...reviewedUnseenMatched, { type: 'AdditionalSlipReceived', at: T0 + 4 * hour, slip: slip('rcpt_3', T0 + 4 * hour) }],
    when: verify(found(transfer(X, { transRef: 'tr_9' })), { receiptId: 'rcpt_3', at: T0 + 5 * hour }), then: [],
  },
  {
    row: 'settled by a review of a claim without an image naming a trans_ref (no bank saw it) → a transfer to the leg made before, another ref → the credit\'s money (the claim\'s ref was mistyped), no claim',
    given: [...reviewedClaimed, { type: 'AdditionalSlipReceived', at: T0 + 2 * hour, slip: slip('rcpt_2', T0 + 2 * hour) }],
    when: verify(found(transfer(X, { transRef: 'tr_other' })), { receiptId: 'rcpt_2', at: T0 + 3 * hour }),
    then: [{ type: 'AdditionalTransferMatched', at: T0 + 3 * hour, legRef: 'leg_1', transRef: 'tr_other', amountMinor: X, creditedMinor: X, receiptId: 'rcpt_2' }],
  },
  {
    row: 'settled by a review of a claim naming its trans_ref → the claimed transfer\'s image after settlement → no events',
    given: [...reviewedClaimed, { type: 'AdditionalSlipReceived', at: T0 + 2 * hour, slip: slip('rcpt_2', T0 + 2 * hour) }],
    when: verify(found(transfer(X, { transRef: 'tr_claimed' })), { receiptId: 'rcpt_2', at: T0 + 3 * hour }), then: [],
  },
  {
    row: 'settled by a review that saw no transfer → a transfer smaller than the credit → matched; the rest of the credit waits: a second transfer up to it is that money too',
    given: after(deposit, [...reviewedUnseen, { type: 'AdditionalSlipReceived', at: T0 + 2 * hour, slip: slip('rcpt_2', T0 + 2 * hour) }],
      verify(found(transfer(20_000n, { transRef: 'tr_a' })), { receiptId: 'rcpt_2', at: T0 + 3 * hour })).concat([{ type: 'AdditionalSlipReceived', at: T0 + 4 * hour, slip: slip('rcpt_3', T0 + 4 * hour) }]),
    when: verify(found(transfer(35_000n, { transRef: 'tr_b' })), { receiptId: 'rcpt_3', at: T0 + 5 * hour }),
    then: [
      { type: 'AdditionalTransferMatched', at: T0 + 5 * hour, legRef: 'leg_1', transRef: 'tr_b', amountMinor: 35_000n, creditedMinor: X - 20_000n, receiptId: 'rcpt_3' },
      { type: 'DepositOverpaid', at: T0 + 5 * hour, overpayment: { claimId: 'clm_1', cause: 'additional_transfer', amountMinor: 5_000n, slipReceivedAt: T0 + 4 * hour, receiptId: 'rcpt_3', transRef: 'tr_b', sender: paidBy } },
    ],
  },
  {
    row: 'settled → a transfer after settlement that opened a claim, uploaded again (another image, the same trans_ref) → nothing: one transfer, one claim',
    given: after(deposit, [...settledScene, { type: 'AdditionalSlipReceived', at: settledAt + hour, slip: slip('rcpt_2', settledAt + hour) }],
      verify(found(transfer(10_000n, { transRef: 'tr_2' })), { receiptId: 'rcpt_2', at: settledAt + 2 * hour })).concat([{ type: 'AdditionalSlipReceived', at: settledAt + 3 * hour, slip: slip('rcpt_3', settledAt + 3 * hour) }]),
    when: verify(found(transfer(10_000n, { transRef: 'tr_2' })), { receiptId: 'rcpt_3', at: settledAt + 4 * hour }), then: [],
  },
  {
    row: 'multi-leg credited by a review without transfers, two payees printed alike (xxxxx2333x) → a transfer of one leg\'s exact credit → that leg\'s money',
    given: [...twoLegsUnseen, { type: 'AdditionalSlipReceived', at: T0 + 2 * hour, slip: slip('rcpt_2', T0 + 2 * hour) }],
    when: verify(found(transfer(20_000n, { transRef: 'tr_m', receiver: { bankCode: '004', accountNumber: 'xxxxx2333x', name: 'สมหญิง ร.' } })), { receiptId: 'rcpt_2', at: T0 + 3 * hour }),
    then: [{ type: 'AdditionalTransferMatched', at: T0 + 3 * hour, legRef: 'leg_2', transRef: 'tr_m', amountMinor: 20_000n, creditedMinor: 20_000n, receiptId: 'rcpt_2' }],
  },
  {
    row: 'multi-leg credited by a review without transfers, two payees printed alike → a transfer that is neither leg\'s credit → no guess: an overpayment claim a person works',
    given: [...twoLegsUnseen, { type: 'AdditionalSlipReceived', at: T0 + 2 * hour, slip: slip('rcpt_2', T0 + 2 * hour) }],
    when: verify(found(transfer(25_000n, { transRef: 'tr_m', receiver: { bankCode: '004', accountNumber: 'xxxxx2333x', name: 'สมหญิง ร.' } })), { receiptId: 'rcpt_2', at: T0 + 3 * hour }),
    then: [{ type: 'DepositOverpaid', at: T0 + 3 * hour, overpayment: { claimId: 'clm_1', cause: 'additional_transfer', amountMinor: 25_000n, slipReceivedAt: T0 + 2 * hour, receiptId: 'rcpt_2', transRef: 'tr_m', sender: paidBy } }],
  },
  {
    row: 'multi-leg settled by a review crediting both legs, the reviewed slip paying leg 1 → leg 2\'s slip after settlement → matched to leg 2, no overpayment; leg 1\'s account again → new money',
    given: [...twoLegsReviewed, { type: 'AdditionalSlipReceived', at: T0 + 2 * hour, slip: slip('rcpt_2', T0 + 2 * hour) }],
    when: verify(found(transfer(20_000n, { transRef: 'tr_2', toLeg: 2 })), { receiptId: 'rcpt_2', at: T0 + 3 * hour }),
    then: [{ type: 'AdditionalTransferMatched', at: T0 + 3 * hour, legRef: 'leg_2', transRef: 'tr_2', amountMinor: 20_000n, creditedMinor: 20_000n, receiptId: 'rcpt_2' }],
  },
  {
    row: 'multi-leg settled by a review, the reviewed slip paying leg 1 → another transfer to leg 1 → deposit.overpaid in full (leg 1\'s transfer was seen)',
    given: [...twoLegsReviewed, { type: 'AdditionalSlipReceived', at: T0 + 2 * hour, slip: slip('rcpt_2', T0 + 2 * hour) }],
    when: verify(found(transfer(30_000n, { transRef: 'tr_3', toLeg: 1 })), { receiptId: 'rcpt_2', at: T0 + 3 * hour }),
    then: [{ type: 'DepositOverpaid', at: T0 + 3 * hour, overpayment: { claimId: 'clm_1', cause: 'additional_transfer', amountMinor: 30_000n, slipReceivedAt: T0 + 2 * hour, receiptId: 'rcpt_2', transRef: 'tr_3', sender: paidBy } }],
  },
  {
    row: 'settled: cancel → deposit_not_cancelable',
    given: settledScene, when: { type: 'CancelDeposit', at: settledAt + hour, by: 'merchant', reasonCode: 'merchant_request' }, refused: 'deposit_not_cancelable',
  },
];

table(deposit, rows);

// ---- a reversal's reason, checked before an id is drawn for it ----

const reversalReason: Decider<undefined, never, string, 'accepted'> = {
  initialState: () => undefined, evolve: (s) => s, decide: (reasonCode) => checkReversalReason(reasonCode) ?? 'accepted',
};
const reasonRows: Row<undefined, never, string, 'accepted', undefined>[] = [
  { row: 'settled → reversal with a reason the contract lists → accepted', given: [], when: 'MERCHANT_DISPUTE_LOST', then: 'accepted' },
  { row: 'settled: reversal with an unknown reason_code → validation_error (enum)', given: [], when: 'CHANGED_MY_MIND', refused: 'validation_error', message: /reversal reason_code/ },
];
table(reversalReason, reasonRows);

// ---- (create): admitDeposit, every check a new order must pass ----

const merchant: Merchant = { id: 'mch_dep', whiteLabelId: 'wl_1', name: 'Shop', suspended: false, version: 0, createdAt: T0 };
const facts = (over: Partial<CreateDepositFacts> = {}): CreateDepositFacts => ({
  merchant, amounts: defaultAmountPolicy, savedSender: undefined, unavailableBanks: new Map(), referenceUsed: false, openDeposits: [], awaitingPaymentFrom: () => [], ...over,
});
const request = (over: Partial<CreateDepositRequest> = {}): CreateDepositRequest => ({
  type: 'CreateDeposit', actor: { kind: 'merchant', merchantId: 'mch_dep', livemode: true }, amountMinor: X, merchantReference: 'order-2',
  endUserRef: 'user-1', sender: defaultSender, hasClientData: true, ...over,
});
const openOrder = (events: Events) => given(deposit, events).state!;
const savedSender = { id: 'snd_1', merchantId: 'mch_dep', livemode: true, endUserRef: 'user-1', bankCode: '004', accountNumber: '5556667778', accountNameTh: 'สมปอง ดีใจ', verifiedAt: T0, version: 0 };

const admission: Decider<undefined, never, CreateDepositRequest, AdmittedDeposit, CreateDepositFacts> = {
  initialState: () => undefined, evolve: (s) => s, decide: (c, _s, f) => admitDeposit(c, f),
};
type AdmissionRow = Row<undefined, never, CreateDepositRequest, AdmittedDeposit, CreateDepositFacts>;
const admissionRows: AdmissionRow[] = [
  { row: '(create) admitted: the inline sender and the default lifetime of 900 s', given: [], when: request(), facts: facts(), then: { sender: defaultSender, lifetimeSeconds: 900 } },
  {
    row: '(create) admitted: sender_id names the end user\'s saved sender; expires_in_seconds clamped to the maximum',
    given: [], when: request({ sender: undefined, senderId: 'snd_1', expiresInSeconds: 10 * limits.depositExpiresInSecondsMax }), facts: facts({ savedSender }),
    then: { sender: { bankCode: '004', accountNumber: '5556667778', accountNameTh: 'สมปอง ดีใจ' }, lifetimeSeconds: limits.depositExpiresInSecondsMax },
  },
  { row: '(create) unknown merchant → api_key_invalid', given: [], when: request(), facts: facts({ merchant: undefined }), refused: 'api_key_invalid' },
  { row: '(create) suspended merchant → tenant_suspended', given: [], when: request(), facts: facts({ merchant: { ...merchant, suspended: true } }), refused: 'tenant_suspended' },
  { row: '(create) an amount off the step of the white label → amount_not_supported', given: [], when: request({ amountMinor: 20_050n }), facts: facts(), refused: 'amount_not_supported' },
  { row: '(create) neither sender nor sender_id → sender_required', given: [], when: request({ sender: undefined }), facts: facts(), refused: 'sender_required' },
  { row: '(create) a sender bank that does not send → validation_error (unknown_bank)', given: [], when: request({ sender: { ...defaultSender, bankCode: '999' } }), facts: facts(), refused: 'validation_error', message: /sender.bank_code/ },
  {
    row: '(create) sender_id of another end user → validation_error (not_found)',
    given: [], when: request({ sender: undefined, senderId: 'snd_1', endUserRef: 'user-2' }), facts: facts({ savedSender }), refused: 'validation_error', message: /sender_id/,
  },
  {
    row: '(create) the sender bank is not accepting orders → sender_bank_unavailable with alternatives',
    given: [], when: request(), facts: facts({ unavailableBanks: new Map([['014', undefined]]) }), refused: 'sender_bank_unavailable',
  },
  { row: '(create) merchant_reference already used → validation_error (not_unique)', given: [], when: request(), facts: facts({ referenceUsed: true }), refused: 'validation_error', message: /merchant_reference/ },
  {
    row: '(create) an order awaiting payment from the same sender for the same amount, another end user\'s → duplicate_open_deposit',
    given: [], when: request({ endUserRef: 'user-2' }),
    facts: facts({ awaitingPaymentFrom: (bank, account, amount) => (bank === defaultSender.bankCode && account === defaultSender.accountNumber && amount === X ? [openOrder(awaitingPayment)] : []) }),
    refused: 'duplicate_open_deposit',
  },
  {
    row: '(create) the same sender\'s order for another amount → admitted',
    given: [], when: request({ amountMinor: 40_000n }),
    facts: facts({ awaitingPaymentFrom: (_b, _a, amount) => (amount === X ? [openOrder(awaitingPayment)] : []) }),
    then: { sender: defaultSender, lifetimeSeconds: 900 },
  },
  {
    row: '(create) the end user already has the most open orders → too_many_open_deposits',
    given: [], when: request({ amountMinor: 40_000n }), facts: facts({ openDeposits: [openOrder(awaitingPayment), openOrder(awaitingLiquidity)] }), refused: 'too_many_open_deposits',
  },
  {
    row: '(create) min_ttl_seconds longer than the lifetime → validation_error (exceeds_lifetime)',
    given: [], when: request({ expiresInSeconds: 600, minTtlSeconds: 601 }), facts: facts(), refused: 'validation_error', message: /min_ttl_seconds/,
  },
];
table(admission, admissionRows);

// ---- every refusal code has a row ----

test('every refusal code core/deposit/decide.ts can return has a row in the decide or reversal-reason table', () => {
  const covered = new Set([...refusalCodesOfRows(rows), ...refusalCodesOfRows(reasonRows)]);
  const codes = [...refusalCodesReachable('core/deposit/decide.ts')];
  assert.ok(codes.length >= 7, `found ${codes.length} codes in the source`);
  assert.equal(codes.filter((c) => !covered.has(c)).sort(), [], 'codes with no row');
});

test('every refusal code core/deposit/create.ts can return (its money checks included) has a row in the admission table', () => {
  const covered = refusalCodesOfRows(admissionRows);
  const codes = [...refusalCodesReachable('core/deposit/create.ts')];
  assert.ok(codes.includes('amount_not_supported'), 'the amount check of money.ts is read through the import');
  assert.equal(codes.filter((c) => !covered.has(c)).sort(), [], 'codes with no row');
});

test('the table is the contract\'s: one row per From status of "Deposit transitions" at least', () => {
  const named = rows.map((r) => r.row);
  for (const from of ['(create)', 'awaiting_liquidity', 'awaiting_payment', 'slip_processing', 'expired', 'canceled', 'under_review', 'settled']) {
    assert.ok(named.some((n) => n.startsWith(from)), `no row from ${from}`);
  }
  const _typed: Rejection | null = checkReversalReason('BANK_RECALL');
  assert.is(_typed, null);
});

test.run();
