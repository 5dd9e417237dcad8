// Money: integer satang only. Ledger sums and balances are bigint; single amounts cross
// the edge as JSON numbers and are checked to be safe integers here, in one place.
// Also the amount policy, the fee schedule per white label and the withdrawal quote.
//
// Rounding (written down once): every percentage is computed in integer arithmetic as
// round-half-up of amount × bps / 10 000, i.e. floor((amount × bps + 5 000) / 10 000).
// VAT is computed on the rounded fee component it applies to, then rounded the same way.

import { reject, type Rejection } from './errors.ts';

export type Minor = bigint;
export const safeIntegerMax = 9_007_199_254_740_991;

/** An amount from the edge (a JSON number) → bigint, or null if it is not a safe integer. */
export function minorFromJson(value: unknown): Minor | null {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) return null;
  return BigInt(value);
}

/**
 * A bigint amount → a JSON number; an amount past the safe range is a broken invariant.
 * One conversion, then the number's check: a bigint beyond ±(2^53 − 1) converts to a
 * number of magnitude 2^53 or more (rounding cannot bring it back under), which is not a
 * safe integer, so no bigint comparison is needed.
 */
export function minorToJson(value: Minor): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new RangeError(`amount ${value} is outside the safe integer range`);
  return number;
}

/**
 * A report's figure: a JSON number when it is a safe integer, else the bigint itself, for
 * a writer that puts every digit in the JSON text (server/exact-json.ts). A balance is
 * capped, but a turnover or a sum over merchants is not: sandbox funding moved back and
 * forth can carry one past 2^53 − 1, and a report must still answer, exactly.
 */
export function reportMinor(value: Minor): number | bigint {
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : value;
}

export function percentOf(amount: Minor, bps: number): Minor {
  return (amount * BigInt(bps) + 5_000n) / 10_000n;
}

export function minOf(a: Minor, b: Minor): Minor {
  return a < b ? a : b;
}

export interface AmountPolicy {
  readonly depositMinMinor: number;
  readonly depositMaxMinor: number;
  /** Deposits must be multiples of this ("round amounts, no satang remainder"). */
  readonly depositStepMinor: number;
  readonly withdrawalMinMinor: number;
  readonly withdrawalMaxMinor: number;
}

export interface FeeSchedule {
  readonly deposit: { readonly processingFeeBps: number; readonly vatBps: number };
  readonly withdrawal: { readonly fixedFeeMinor: number; readonly vatBps: number };
}

export const defaultAmountPolicy: AmountPolicy = {
  depositMinMinor: 2_000,
  depositMaxMinor: 20_000_000,
  depositStepMinor: 100,
  withdrawalMinMinor: 10_000,
  withdrawalMaxMinor: safeIntegerMax,
};

export const defaultFeeSchedule: FeeSchedule = {
  deposit: { processingFeeBps: 150, vatBps: 700 },
  withdrawal: { fixedFeeMinor: 1_000, vatBps: 700 },
};

export type FeeComponent = 'processing_fee' | 'fixed_fee' | 'vat';

export interface FeeLine {
  readonly component: FeeComponent;
  readonly amountMinor: Minor;
  readonly rateBps?: number;
}

export interface Fee {
  readonly totalMinor: Minor;
  readonly breakdown: readonly FeeLine[];
}

/** The fee on an accepted deposit amount A: processing fee plus VAT on it. Never above A. */
export function depositFee(schedule: FeeSchedule, acceptedMinor: Minor): Fee {
  const processing = percentOf(acceptedMinor, schedule.deposit.processingFeeBps);
  const vat = percentOf(processing, schedule.deposit.vatBps);
  const total = processing + vat;
  if (total > acceptedMinor) {
    // A schedule that would charge more than the amount is capped at the amount.
    return { totalMinor: acceptedMinor, breakdown: [{ component: 'processing_fee', amountMinor: acceptedMinor, rateBps: schedule.deposit.processingFeeBps }] };
  }
  return {
    totalMinor: total,
    breakdown: [
      { component: 'processing_fee', amountMinor: processing, rateBps: schedule.deposit.processingFeeBps },
      { component: 'vat', amountMinor: vat, rateBps: schedule.deposit.vatBps },
    ],
  };
}

/** The withdrawal fee, fixed at creation and added on top of the amount. */
/**
 * The fee is the same for every withdrawal under one schedule, so it is computed once per
 * schedule object and shared (fee lines are immutable values; every open order holds one).
 */
const withdrawalFees = new WeakMap<FeeSchedule, Fee>();

export function withdrawalFee(schedule: FeeSchedule): Fee {
  let fee = withdrawalFees.get(schedule);
  if (!fee) withdrawalFees.set(schedule, (fee = Object.freeze(computeWithdrawalFee(schedule))));
  return fee;
}

function computeWithdrawalFee(schedule: FeeSchedule): Fee {
  const fixed = BigInt(schedule.withdrawal.fixedFeeMinor);
  const vat = percentOf(fixed, schedule.withdrawal.vatBps);
  return {
    totalMinor: fixed + vat,
    breakdown: [
      { component: 'fixed_fee', amountMinor: fixed },
      { component: 'vat', amountMinor: vat, rateBps: schedule.withdrawal.vatBps },
    ],
  };
}

/**
 * Fee recognised after `filled` of `amount` has been paid out: proportional, rounded down,
 * and exactly the whole fee once the amount is filled. Computed cumulatively so that the
 * fills' shares add up to the total with no drift.
 */
export function feeRecognizedFor(feeTotal: Minor, amount: Minor, filled: Minor): Minor {
  if (filled >= amount) return feeTotal;
  if (filled <= 0n) return 0n;
  return (feeTotal * filled) / amount;
}

/** The VAT a fee holds: its vat line, or 0 when it has none (a deposit fee capped at the amount). */
export function vatOf(breakdown: readonly FeeLine[]): Minor {
  let vat = 0n;
  for (const line of breakdown) if (line.component === 'vat') vat += line.amountMinor;
  return vat;
}

/**
 * The VAT part of `recognized` of a fee of `total` that holds `vat`: proportional, rounded
 * half up as the fees themselves are (rounding down would under-declare the output VAT of
 * every fee an order never completes), 0 at 0 and exactly `vat` at the whole fee. A
 * function of the recognised amount, not of the path to it, so each recognition or refund
 * moves the difference between two values of it, and what a fee's fills and reversals
 * move adds up to the VAT of what is recognised. The difference never exceeds the fee
 * movement it belongs to (vat < total).
 */
export function vatRecognizedFor(total: Minor, vat: Minor, recognized: Minor): Minor {
  if (recognized >= total) return vat;
  if (recognized <= 0n) return 0n;
  return (2n * vat * recognized + total) / (2n * total);
}

export function checkDepositAmount(policy: AmountPolicy, amount: Minor): Rejection | null {
  const ok = amount >= BigInt(policy.depositMinMinor) && amount <= BigInt(policy.depositMaxMinor)
    && amount % BigInt(policy.depositStepMinor) === 0n;
  if (ok) return null;
  return reject('amount_not_supported',
    `amount_minor must be between ${policy.depositMinMinor} and ${policy.depositMaxMinor} and a multiple of ${policy.depositStepMinor}`,
    { min_minor: policy.depositMinMinor, max_minor: policy.depositMaxMinor });
}

/**
 * The largest withdrawal amount: the policy's maximum, lowered so that amount + fee stays a
 * safe integer (the lock, the quote's total and insufficient_balance's required_minor are
 * all amount + fee, and each is presented as a JSON number).
 */
export function withdrawalAmountMaxMinor(policy: AmountPolicy, feeTotalMinor: Minor): number {
  const roomForFee = safeIntegerMax - Number(feeTotalMinor);
  return policy.withdrawalMaxMinor < roomForFee ? policy.withdrawalMaxMinor : roomForFee;
}

export function checkWithdrawalAmount(policy: AmountPolicy, amount: Minor, p2pMinimumApplies: boolean, feeTotalMinor: Minor): Rejection | null {
  const max = withdrawalAmountMaxMinor(policy, feeTotalMinor);
  if (amount <= 0n || amount > BigInt(max)) {
    const why = max < policy.withdrawalMaxMinor ? ` (the amount plus the fee of ${feeTotalMinor} must stay within ${safeIntegerMax})` : '';
    return reject('amount_not_supported', `amount_minor must be between ${policy.withdrawalMinMinor} and ${max}${why}`, { min_minor: policy.withdrawalMinMinor, max_minor: max });
  }
  if (amount < BigInt(policy.withdrawalMinMinor)) {
    return p2pMinimumApplies
      ? reject('amount_below_p2p_minimum', `amount_minor must be at least ${policy.withdrawalMinMinor}`, { min_minor: policy.withdrawalMinMinor })
      : reject('amount_not_supported', `amount_minor must be at least ${policy.withdrawalMinMinor}`,
        { min_minor: policy.withdrawalMinMinor, max_minor: max });
  }
  return null;
}

/**
 * The most a merchant may hold across its three buckets of one mode. Money moves between
 * the buckets (reserve, release, clearing), so the total, not each bucket, is what must
 * stay presentable: every bucket is then a safe integer whatever moves come later.
 */
export const merchantTotalMaxMinor = safeIntegerMax;

/** A credit from outside into a merchant's buckets that would carry its total past merchantTotalMaxMinor. */
export function checkMerchantCredit(totalMinor: Minor, amount: Minor): Rejection | null {
  const room = BigInt(merchantTotalMaxMinor) - totalMinor;
  if (amount <= room) return null;
  const roomMinor = room > 0n ? Number(room) : 0;
  return reject('amount_not_supported',
    `The merchant's balance may not exceed ${merchantTotalMaxMinor} satang across its buckets; at most ${roomMinor} can be credited now.`,
    { min_minor: 1, max_minor: roomMinor });
}

export interface Quote {
  readonly channel: 'withdrawal';
  readonly amountMinor: Minor;
  readonly fee: Fee;
  readonly totalMinor: Minor;
}

/**
 * What a withdrawal of `amount` would cost, for an amount a withdrawal may have: below the
 * minimum or with a total past the safe range it is refused as creation refuses it.
 */
export function withdrawalQuote(schedule: FeeSchedule, policy: AmountPolicy, amount: Minor): Quote | Rejection {
  const fee = withdrawalFee(schedule);
  const problem = checkWithdrawalAmount(policy, amount, false, fee.totalMinor);
  if (problem) return problem;
  return { channel: 'withdrawal', amountMinor: amount, fee, totalMinor: amount + fee.totalMinor };
}
