// Money at the edges: the documented rounding (round half up of amount × bps / 10 000, VAT
// on the rounded component), the fee never above the accepted amount, fee recognised
// proportionally and exactly in full at the last fill (and its VAT with it), the amount policy's boundaries,
// and the JSON conversions that keep single amounts safe integers.

import fc from 'fast-check';
import { test } from 'uvu';
import { isRejection } from '../../core/errors.ts';
import * as assert from 'uvu/assert';
import {
  checkDepositAmount, checkMerchantCredit, checkWithdrawalAmount, withdrawalAmountMaxMinor, defaultAmountPolicy, defaultFeeSchedule, depositFee, feeRecognizedFor,
  minorFromJson, minorToJson, percentOf, safeIntegerMax, vatOf, vatRecognizedFor, withdrawalFee, withdrawalQuote, type FeeSchedule,
} from '../../core/money.ts';

const schedule = (processingFeeBps: number, vatBps: number, fixedFeeMinor = 1_000): FeeSchedule => ({
  deposit: { processingFeeBps, vatBps }, withdrawal: { fixedFeeMinor, vatBps },
});

test('percentOf rounds half up in integer arithmetic', () => {
  assert.is(percentOf(50n, 100), 1n, '0.5 rounds up');
  assert.is(percentOf(49n, 100), 0n, '0.49 rounds down');
  assert.is(percentOf(150n, 100), 2n, '1.5 rounds up');
  assert.is(percentOf(750n, 700), 53n, '52.5 rounds up');
  assert.is(percentOf(0n, 700), 0n);
  assert.is(percentOf(9_007_199_254_740_991n, 10_000), 9_007_199_254_740_991n, 'no float on the way');
});

test('depositFee: processing fee plus VAT on the rounded processing fee, with its breakdown', () => {
  assert.equal(depositFee(defaultFeeSchedule, 50_000n), {
    totalMinor: 803n,
    breakdown: [{ component: 'processing_fee', amountMinor: 750n, rateBps: 150 }, { component: 'vat', amountMinor: 53n, rateBps: 700 }],
  });
  assert.is(depositFee(defaultFeeSchedule, 45_000n).totalMinor, 722n, '675 + round(47.25)');
  assert.is(depositFee(defaultFeeSchedule, 100n).totalMinor, 2n, 'round(1.5) + round(0.14)');
  assert.is(depositFee(defaultFeeSchedule, 33n).totalMinor, 0n, 'round(0.495) = 0: a tiny amount may carry no fee');
});

test('depositFee is capped at the accepted amount: 0 ≤ fee ≤ A for every A', () => {
  assert.equal(depositFee(schedule(20_000, 700), 1_000n), { totalMinor: 1_000n, breakdown: [{ component: 'processing_fee', amountMinor: 1_000n, rateBps: 20_000 }] });
  for (const s of [defaultFeeSchedule, schedule(9_500, 700), schedule(10_000, 0), schedule(0, 700)]) {
    for (let a = 1n; a <= 3_000n; a += 7n) {
      const fee = depositFee(s, a);
      assert.ok(fee.totalMinor >= 0n && fee.totalMinor <= a, `fee ${fee.totalMinor} of A ${a}`);
      assert.is(fee.breakdown.reduce((sum, l) => sum + l.amountMinor, 0n), fee.totalMinor, 'breakdown adds up to the total');
    }
  }
});

test('withdrawalFee: fixed fee plus VAT on it, fixed at creation; the quote adds it on top', () => {
  assert.equal(withdrawalFee(defaultFeeSchedule), {
    totalMinor: 1_070n, breakdown: [{ component: 'fixed_fee', amountMinor: 1_000n }, { component: 'vat', amountMinor: 70n, rateBps: 700 }],
  });
  assert.is(withdrawalFee(schedule(150, 700, 15)).totalMinor, 16n, '15 + round(1.05)');
  assert.is(withdrawalFee(schedule(150, 700, 0)).totalMinor, 0n);
  const quote = withdrawalQuote(defaultFeeSchedule, defaultAmountPolicy, 100_000n);
  assert.ok(!isRejection(quote));
  assert.equal([quote.channel, quote.amountMinor, quote.fee.totalMinor, quote.totalMinor], ['withdrawal', 100_000n, 1_070n, 101_070n]);
  // What creation refuses, the quote refuses: below the minimum, zero, past the safe range.
  for (const amount of [0n, 100n, BigInt(defaultAmountPolicy.withdrawalMinMinor) - 1n]) {
    const refused = withdrawalQuote(defaultFeeSchedule, defaultAmountPolicy, amount);
    assert.ok(isRejection(refused) && refused.code === 'amount_not_supported' && refused.details?.min_minor === defaultAmountPolicy.withdrawalMinMinor, String(amount));
  }
  assert.ok(!isRejection(withdrawalQuote(defaultFeeSchedule, defaultAmountPolicy, BigInt(defaultAmountPolicy.withdrawalMinMinor))));
  const tooMuch = withdrawalQuote(defaultFeeSchedule, { ...defaultAmountPolicy, withdrawalMaxMinor: safeIntegerMax }, BigInt(safeIntegerMax));
  assert.ok(isRejection(tooMuch) && tooMuch.code === 'amount_not_supported');
});

test('feeRecognizedFor: proportional, rounded down, exactly the whole fee once filled', () => {
  assert.is(feeRecognizedFor(1_070n, 100_000n, 0n), 0n);
  assert.is(feeRecognizedFor(1_070n, 100_000n, -5n), 0n);
  assert.is(feeRecognizedFor(1_070n, 100_000n, 50_000n), 535n);
  assert.is(feeRecognizedFor(1_070n, 100_000n, 33_333n), 356n, '356.66 rounds down');
  assert.is(feeRecognizedFor(1_070n, 100_000n, 99_999n), 1_069n);
  assert.is(feeRecognizedFor(1_070n, 100_000n, 100_000n), 1_070n);
  assert.is(feeRecognizedFor(1_070n, 100_000n, 200_000n), 1_070n, 'never more than the fee');
  assert.is(feeRecognizedFor(0n, 100_000n, 50_000n), 0n);
});

test('feeRecognizedFor: the shares of any split add up to the fee with no drift', () => {
  const splits: bigint[][] = [[33_333n, 33_333n, 33_334n], [1n, 99_999n], [99_999n, 1n], [10_000n, 10_000n, 10_000n, 70_000n], Array(10).fill(10_000n)];
  for (const parts of splits) {
    let filled = 0n, recognised = 0n;
    for (const part of parts) {
      filled += part;
      const share = feeRecognizedFor(1_070n, 100_000n, filled) - recognised;
      assert.ok(share >= 0n, `share ${share} after ${filled}`);
      recognised += share;
    }
    assert.is(recognised, 1_070n, parts.join('+'));
  }
});

test('vatOf: the vat line of a fee, 0 for a fee capped at the amount (which has none)', () => {
  assert.is(vatOf(depositFee(defaultFeeSchedule, 100_000n).breakdown), 105n);
  assert.is(vatOf(withdrawalFee(defaultFeeSchedule).breakdown), 70n);
  assert.is(vatOf(depositFee(schedule(20_000, 700), 2_000n).breakdown), 0n);
});

test('vatRecognizedFor: the VAT of a recognised part, 0 at none, exact at the whole fee, its steps never above the fee moved', () => {
  assert.is(vatRecognizedFor(1_070n, 70n, 0n), 0n);
  assert.is(vatRecognizedFor(1_070n, 70n, 535n), 35n);
  assert.is(vatRecognizedFor(1_070n, 70n, 356n), 23n, '23.28 rounds down');
  assert.is(vatRecognizedFor(1_070n, 70n, 149n), 10n, '9.75 rounds up: 149 holds 139 + 10, 7 % of 139 being 9.73');
  assert.is(vatRecognizedFor(1_070n, 70n, 107n), 7n, 'exactly 7.00');
  assert.is(vatRecognizedFor(1_070n, 70n, 1_070n), 70n);
  fc.assert(fc.property(
    fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 5_000 }), fc.array(fc.integer({ min: -400, max: 400 }), { maxLength: 30 }),
    (fixed, vatBps, steps) => {
      // Any walk of the recognised fee, up and down (fills and their reversals), within 0..total.
      const fee = withdrawalFee(schedule(150, vatBps, fixed));
      const vat = vatOf(fee.breakdown);
      let recognised = 0n, vatSoFar = 0n;
      for (const step of [...steps, Number.MAX_SAFE_INTEGER]) {
        const next = BigInt(Math.max(0, Math.min(Number(fee.totalMinor), Number(recognised) + step)));
        const moved = vatRecognizedFor(fee.totalMinor, vat, next) - vatRecognizedFor(fee.totalMinor, vat, recognised);
        const feeMoved = next - recognised;
        assert.ok(moved >= 0n === feeMoved >= 0n || moved === 0n, 'VAT moves with the fee');
        assert.ok((moved < 0n ? -moved : moved) <= (feeMoved < 0n ? -feeMoved : feeMoved), 'never more VAT than fee in one movement');
        vatSoFar += moved;
        recognised = next;
      }
      assert.is(vatSoFar, vat, 'the whole fee recognised carries the whole VAT');
    },
  ), { numRuns: 500 });
});

test('checkDepositAmount: inside [min, max] and a multiple of the step, else amount_not_supported with the bounds', () => {
  const p = defaultAmountPolicy;
  for (const ok of [2_000n, 2_100n, 20_000_000n]) assert.is(checkDepositAmount(p, ok), null, `${ok}`);
  for (const bad of [1_900n, 2_050n, 20_000_100n, 0n, -2_000n]) {
    assert.equal(checkDepositAmount(p, bad)?.code, 'amount_not_supported', `${bad}`);
    assert.equal(checkDepositAmount(p, bad)?.details, { min_minor: 2_000, max_minor: 20_000_000 });
  }
});

test('checkWithdrawalAmount: positive, at most max; below the P2P minimum names amount_below_p2p_minimum only under that policy', () => {
  const p = defaultAmountPolicy;
  const fee = 0n;
  assert.is(checkWithdrawalAmount(p, 10_000n, true, fee), null);
  assert.is(checkWithdrawalAmount(p, BigInt(safeIntegerMax), false, fee), null);
  assert.is(checkWithdrawalAmount(p, 0n, false, fee)?.code, 'amount_not_supported');
  assert.is(checkWithdrawalAmount(p, -1n, true, fee)?.code, 'amount_not_supported');
  assert.is(checkWithdrawalAmount(p, BigInt(safeIntegerMax) + 1n, false, fee)?.code, 'amount_not_supported');
  assert.equal(checkWithdrawalAmount(p, 9_999n, true, fee), { code: 'amount_below_p2p_minimum', message: 'amount_minor must be at least 10000', details: { min_minor: 10_000 } });
  assert.is(checkWithdrawalAmount(p, 9_999n, false, fee)?.code, 'amount_not_supported');
});

test('checkWithdrawalAmount: amount + fee must stay a safe integer, so the maximum is lowered by the fee', () => {
  const p = defaultAmountPolicy;
  const fee = withdrawalFee(defaultFeeSchedule).totalMinor;
  const max = safeIntegerMax - Number(fee);
  assert.is(withdrawalAmountMaxMinor(p, fee), max);
  assert.is(checkWithdrawalAmount(p, BigInt(max), false, fee), null);
  const over = checkWithdrawalAmount(p, BigInt(max) + 1n, false, fee);
  assert.is(over?.code, 'amount_not_supported');
  assert.equal(over?.details, { min_minor: 10_000, max_minor: max });
  assert.is(checkWithdrawalAmount(p, BigInt(safeIntegerMax), false, fee)?.code, 'amount_not_supported');
  // A policy maximum below the safe range is the limit as it is.
  assert.is(withdrawalAmountMaxMinor({ ...p, withdrawalMaxMinor: 5_000_000 }, fee), 5_000_000);
});

test('checkMerchantCredit: a credit may fill the merchant up to the safe maximum, no further', () => {
  assert.is(checkMerchantCredit(0n, BigInt(safeIntegerMax)), null);
  assert.is(checkMerchantCredit(1_000n, BigInt(safeIntegerMax) - 1_000n), null);
  const over = checkMerchantCredit(1_000n, BigInt(safeIntegerMax) - 999n);
  assert.is(over?.code, 'amount_not_supported');
  assert.equal(over?.details, { min_minor: 1, max_minor: safeIntegerMax - 1_000 });
  assert.equal(checkMerchantCredit(BigInt(safeIntegerMax), 1n)?.details, { min_minor: 1, max_minor: 0 });
});

test('minorFromJson: only safe-integer JSON numbers become amounts', () => {
  assert.is(minorFromJson(0), 0n);
  assert.is(minorFromJson(-0), 0n);
  assert.is(minorFromJson(10_000), 10_000n);
  assert.is(minorFromJson(-5), -5n, 'sign is checked by the amount policy, not here');
  assert.is(minorFromJson(safeIntegerMax), 9_007_199_254_740_991n);
  assert.is(minorFromJson(-safeIntegerMax), -9_007_199_254_740_991n);
  for (const bad of [safeIntegerMax + 1, -safeIntegerMax - 1, 1.5, 0.1, 1e21, Number.NaN, Infinity, -Infinity, '100', '1e3', 100n, null, undefined, true, {}, []]) {
    assert.is(minorFromJson(bad), null, `${String(bad)} (${typeof bad})`);
  }
});

test('minorToJson: a bigint inside the safe range becomes a number; outside it is a broken invariant', () => {
  assert.is(minorToJson(0n), 0);
  assert.is(minorToJson(-1_070n), -1_070);
  assert.is(minorToJson(9_007_199_254_740_991n), safeIntegerMax);
  assert.is(minorToJson(-9_007_199_254_740_991n), -safeIntegerMax);
  assert.throws(() => minorToJson(9_007_199_254_740_992n), RangeError);
  assert.throws(() => minorToJson(-9_007_199_254_740_992n), RangeError);
  for (const n of [1, 2_000, 20_000_000, safeIntegerMax]) assert.is(minorToJson(minorFromJson(n)!), n, 'round trip');
  // Around and far past the edge: refused exactly when the magnitude exceeds 2^53 - 1, else the same value.
  const edge = BigInt(safeIntegerMax);
  fc.assert(fc.property(fc.oneof(fc.bigInt({ min: -edge - 1_000n, max: -edge + 1_000n }), fc.bigInt({ min: edge - 1_000n, max: edge + 1_000n }), fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n })), (v) => {
    const outside = v > edge || v < -edge;
    if (outside) assert.throws(() => minorToJson(v), RangeError);
    else assert.is(BigInt(minorToJson(v)), v);
  }), { numRuns: 2_000 });
});

test.run();
