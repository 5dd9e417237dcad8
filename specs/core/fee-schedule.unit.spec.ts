// A white label's fee schedule set by two operators (SetFeeSchedule, ApproveFeeSchedule in
// core/directory/decide.ts), through the real command handler: a deposit's fee is reckoned
// from the schedule in force at its settlement, a withdrawal's stays the one pinned at its
// creation, and a schedule refused — not integers, out of bounds, limits that contradict
// each other, its proposer approving it, figures not the ones proposed — journals nothing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import type { Command } from '../../core/handler/commands.ts';
import { scheduleDepositMinorMax, scheduleWithdrawalMinorMax, type FeeTerms } from '../../core/directory/fee-schedule.ts';
import { promptPayPayload, qrAmountMinorMax } from '../../core/qr.ts';
import { limits } from '../../core/limits.ts';
import { defaultAmountPolicy, defaultFeeSchedule, depositFee, percentOf, withdrawalFee } from '../../core/money.ts';
import { encode } from '../../core/journal.ts';
import { exactTransfer, operator } from '../support/core-harness.ts';
import { emitted, found, openDeposit, receiveSlip, refused, scene, verify, type Scene } from '../support/transitions.ts';

const seen = new Set<string>();
const propose = (s: Scene, terms: FeeTerms, by = 'emp_maker'): Command => ({ type: 'SetFeeSchedule', actor: operator(by), whiteLabelId: s.whiteLabel, terms });
const approve = (s: Scene, terms: FeeTerms, by = 'emp_checker'): Command => ({ type: 'ApproveFeeSchedule', actor: operator(by), whiteLabelId: s.whiteLabel, terms });

function setSchedule(s: Scene, terms: FeeTerms): void {
  assert.equal(emitted(s.h, () => s.h.ok(propose(s, terms))).entries, ['FeeScheduleProposed']);
  assert.equal(emitted(s.h, () => s.h.ok(approve(s, terms))).entries, ['FeeScheduleSet']);
}

function settle(s: Scene, depositId: string, receipt: string): void {
  receiveSlip(s.h, depositId, receipt);
  verify(s.h, depositId, receipt, found(exactTransfer(s.h, depositId, { transRef: `TR-${receipt}` })));
  assert.is(s.h.world.deposits.get(depositId)!.status, 'settled');
}

const whiteLabelBytes = (s: Scene) => encode(s.h.world.whiteLabels.get(s.whiteLabel));

test('a proposal changes nothing until a second operator approves it; then the schedule and limits are in force, VAT the law\'s', () => {
  const s = scene();
  s.h.ok(propose(s, { depositProcessingFeeBps: 200, withdrawalFixedFeeMinor: 1_500, withdrawalMinMinor: 20_000 }));
  const wl = s.h.world.whiteLabels.get(s.whiteLabel)!;
  assert.equal([wl.fees, wl.amounts], [defaultFeeSchedule, defaultAmountPolicy], 'a proposal is not in force');
  assert.equal(wl.feeScheduleProposal?.proposedBy, 'emp_maker');
  s.h.ok(approve(s, { depositProcessingFeeBps: 200, withdrawalFixedFeeMinor: 1_500, withdrawalMinMinor: 20_000 }));
  const set = s.h.world.whiteLabels.get(s.whiteLabel)!;
  assert.equal(set.fees, { deposit: { processingFeeBps: 200, vatBps: 700 }, withdrawal: { fixedFeeMinor: 1_500, vatBps: 700 } });
  assert.equal(set.amounts, { ...defaultAmountPolicy, withdrawalMinMinor: 20_000 });
  assert.is(set.feeScheduleProposal, undefined);
});

test('a deposit created under one schedule and settled under the next is charged the next; one settled before keeps its fee', () => {
  const s = scene();
  s.h.withdrawal(s.payer, 1_000_000n);
  const before = openDeposit(s, 100_000n);
  settle(s, before, 'r1');
  const open = openDeposit(s, 200_000n);
  const bookedBefore = s.h.world.deposits.get(before)!.settlement!;
  setSchedule(s, { depositProcessingFeeBps: 300, withdrawalFixedFeeMinor: 1_000 });
  settle(s, open, 'r2');
  assert.equal(s.h.world.deposits.get(before)!.settlement, bookedBefore, 'a fee booked stays as it was');
  assert.is(bookedBefore.feeTotalMinor, 1_605n); // 1,500 + 7 % VAT
  const after = s.h.world.deposits.get(open)!.settlement!;
  assert.is(after.feeTotalMinor, 6_420n); // 300 bps of 200,000 = 6,000 + 420 VAT
  assert.equal(after.feeBreakdown.map((l) => [l.component, l.amountMinor, l.rateBps]), [['processing_fee', 6_000n, 300], ['vat', 420n, 700]]);
});

test('a withdrawal keeps the fee pinned at its creation after the schedule changes; a new one takes the new fee', () => {
  const s = scene();
  const pinned = s.h.withdrawal(s.payer, 100_000n);
  setSchedule(s, { depositProcessingFeeBps: 150, withdrawalFixedFeeMinor: 2_500 });
  assert.is(s.h.world.withdrawals.get(pinned)!.feeTotalMinor, 1_070n);
  const later = s.h.withdrawal(s.payer, 100_000n);
  assert.is(s.h.world.withdrawals.get(later)!.feeTotalMinor, 2_675n);
  // Filled in full after the change, the pinned order recognises its own fee, not the new one.
  const d = openDeposit(s, 100_000n);
  settle(s, d, 'r1');
  const w = s.h.world.withdrawals.get(pinned)!;
  assert.equal([w.status, w.feeRecognizedMinor], ['settled', 1_070n], `${w.status} ${w.feeRecognizedMinor}`);
});

test('the fee at settlement is the schedule in force then, for any schedule and amount (property)', () => {
  fc.assert(fc.property(fc.integer({ min: 0, max: limits.depositProcessingFeeBpsMax }), fc.integer({ min: 0, max: limits.withdrawalFixedFeeMinorMax }), fc.integer({ min: 100, max: 2_000 }),
    (bps, fixed, hundreds) => {
      const s = scene();
      const amount = BigInt(hundreds) * 100n;
      s.h.withdrawal(s.payer, amount);
      const d = openDeposit(s, amount);
      if (bps === defaultFeeSchedule.deposit.processingFeeBps && fixed === defaultFeeSchedule.withdrawal.fixedFeeMinor) return;
      setSchedule(s, { depositProcessingFeeBps: bps, withdrawalFixedFeeMinor: fixed });
      settle(s, d, 'r1');
      const fees = s.h.world.whiteLabels.get(s.whiteLabel)!.fees;
      assert.is(s.h.world.deposits.get(d)!.settlement!.feeTotalMinor, depositFee(fees, amount).totalMinor);
      assert.is(withdrawalFee(fees).totalMinor, BigInt(fixed) + percentOf(BigInt(fixed), 700));
    }), { numRuns: 40 });
});

test('every deposit a schedule allows fits one QR and a review; every withdrawal, ten such payers', () => {
  assert.is(scheduleDepositMinorMax, limits.reviewFiguresMinorMax, 'the review bound is the smaller');
  const amountLength = (minor: number) => Number(/530376454(\d\d)/.exec(promptPayPayload({ bankCode: '014', accountNumber: '1234567890' }, BigInt(minor)))![1]);
  assert.is(amountLength(qrAmountMinorMax), 13, "EMVCo's most");
  assert.ok(scheduleDepositMinorMax <= qrAmountMinorMax && amountLength(scheduleDepositMinorMax) <= 13);
  assert.is(scheduleWithdrawalMinorMax, limits.withdrawalMaxSplits * scheduleDepositMinorMax);
  const s = scene();
  const largest = { depositProcessingFeeBps: 150, withdrawalFixedFeeMinor: 1_000, depositMaxMinor: scheduleDepositMinorMax, withdrawalMaxMinor: scheduleWithdrawalMinorMax };
  setSchedule(s, largest);
  const refusal = refused(s.h, propose(s, { ...largest, depositMaxMinor: scheduleDepositMinorMax + 100 }), 'validation_error', seen);
  assert.equal(refusal.details!.fields, [{ path: 'deposit_max_minor', reason: 'maximum', hint: `at most ${scheduleDepositMinorMax}` }]);
});

test('refused schedules journal nothing and leave the white label as it was', () => {
  const s = scene();
  const base = { depositProcessingFeeBps: 150, withdrawalFixedFeeMinor: 1_000 };
  const cases: [FeeTerms, string, string][] = [
    [{ ...base, depositProcessingFeeBps: 1.5 }, 'deposit_processing_fee_bps', 'type'],
    [{ ...base, depositProcessingFeeBps: -1 }, 'deposit_processing_fee_bps', 'minimum'],
    [{ ...base, depositProcessingFeeBps: 10_001 }, 'deposit_processing_fee_bps', 'maximum'],
    [{ ...base, withdrawalFixedFeeMinor: 1_000_001 }, 'withdrawal_fixed_fee_minor', 'maximum'],
    [{ ...base, withdrawalFixedFeeMinor: Number.NaN }, 'withdrawal_fixed_fee_minor', 'type'],
    [{ ...base, withdrawalFixedFeeMinor: 9_007_199_254_740_992 }, 'withdrawal_fixed_fee_minor', 'type'],
    [{ ...base, depositMinMinor: 0 }, 'deposit_min_minor', 'minimum'],
    [{ ...base, depositStepMinor: 2.5 }, 'deposit_step_minor', 'type'],
    // A deposit no QR could ask for, nor a reviewer approve; a withdrawal ten of them could not fill.
    [{ ...base, depositMaxMinor: 9_007_199_254_740_900 }, 'deposit_max_minor', 'maximum'],
    [{ ...base, depositMaxMinor: 200_000_100 }, 'deposit_max_minor', 'maximum'],
    [{ ...base, depositMinMinor: 200_000_100, depositMaxMinor: 200_000_100 }, 'deposit_min_minor', 'maximum'],
    [{ ...base, depositStepMinor: 200_000_001 }, 'deposit_step_minor', 'maximum'],
    [{ ...base, withdrawalMaxMinor: 2_000_000_001 }, 'withdrawal_max_minor', 'maximum'],
    [{ ...base, withdrawalMinMinor: 9_007_199_254_740_991 }, 'withdrawal_min_minor', 'maximum'],
    [{ ...base, depositMinMinor: 30_000_000 }, 'deposit_min_minor', 'above_maximum'],
    [{ ...base, depositMinMinor: 2_050 }, 'deposit_min_minor', 'multiple_of'],
    [{ ...base, depositStepMinor: 300 }, 'deposit_min_minor', 'multiple_of'], // 2,000 is no multiple of 300
    [{ ...base, withdrawalMinMinor: 50_000, withdrawalMaxMinor: 40_000 }, 'withdrawal_min_minor', 'above_maximum'],
  ];
  for (const [terms, path, reason] of cases) {
    const before = whiteLabelBytes(s);
    const r = refused(s.h, propose(s, terms), 'validation_error', seen);
    assert.ok((r.details!.fields as { path: string; reason: string }[]).some((f) => f.path === path && f.reason === reason), `${JSON.stringify(terms)}: ${JSON.stringify(r.details)}`);
    assert.is(whiteLabelBytes(s), before);
  }
  const unchanged = refused(s.h, propose(s, base), 'operation_not_allowed', seen);
  assert.match(unchanged.message, /in force/);
  refused(s.h, { type: 'SetFeeSchedule', actor: operator(), whiteLabelId: 'wl_missing', terms: base }, 'resource_not_found', seen);
  refused(s.h, approve(s, base), 'operation_not_allowed', seen); // none proposed

  const next = { depositProcessingFeeBps: 180, withdrawalFixedFeeMinor: 1_200, depositMaxMinor: 10_000_000 };
  s.h.ok(propose(s, next));
  const waiting = whiteLabelBytes(s);
  assert.match(refused(s.h, approve(s, next, 'EMP_MAKER'), 'operation_not_allowed', seen).message, /cannot approve/);
  const wrong = refused(s.h, approve(s, { ...next, depositProcessingFeeBps: 190 }), 'validation_error', seen);
  assert.equal(wrong.details!.fields, [{ path: 'deposit_processing_fee_bps', reason: 'mismatch', hint: 'not the figure proposed' }]);
  const unnamed = refused(s.h, approve(s, { depositProcessingFeeBps: 180, withdrawalFixedFeeMinor: 1_200 }), 'validation_error', seen);
  assert.equal(unnamed.details!.fields, [{ path: 'deposit_max_minor', reason: 'mismatch', hint: 'the proposal changes it: name it' }]);
  assert.is(whiteLabelBytes(s), waiting, 'refused approvals leave the proposal waiting');
  s.h.advance(limits.feeScheduleProposalTtlMs);
  assert.match(refused(s.h, approve(s, next), 'operation_not_allowed', seen).message, /lapses/);
});

test.run();
