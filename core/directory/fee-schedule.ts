// A white label's fee schedule and amount limits as an operator states them
// (SetFeeSchedule, ApproveFeeSchedule): the figures, their bounds, and the schedule they
// make with what they leave as it is. The VAT rates on the two fees are figures too (7 %,
// 700 bps, unless an operator sets another: the contract fixes none, DESIGN.md has the
// fees configurable per white label), proposed and approved as the others.

import { proposalWaiting, type WhiteLabel } from '../directory.ts';
import { isRejection, reject, type Rejection } from '../errors.ts';
import { limits } from '../limits.ts';
import { safeIntegerMax, type AmountPolicy, type FeeSchedule } from '../money.ts';
import { qrAmountMinorMax } from '../qr.ts';

/** The figures an operator sets; an amount limit or VAT rate not given stays as it is. */
export interface FeeTerms {
  readonly depositProcessingFeeBps: number;
  readonly withdrawalFixedFeeMinor: number;
  readonly depositMinMinor?: number;
  readonly depositMaxMinor?: number;
  readonly depositStepMinor?: number;
  readonly withdrawalMinMinor?: number;
  readonly withdrawalMaxMinor?: number;
  readonly depositVatBps?: number;
  readonly withdrawalVatBps?: number;
}

export interface FeeScheduleTerms {
  readonly fees: FeeSchedule;
  readonly amounts: AmountPolicy;
}

/**
 * The most a schedule lets one deposit be: what one QR can ask for (tag 54's 13 characters)
 * and a reviewer can approve (limits.reviewFiguresMinorMax, 2,000,000 baht), the smaller. A
 * larger deposit could be created but never paid with one transfer nor approved in review.
 */
export const scheduleDepositMinorMax = Math.min(limits.reviewFiguresMinorMax, qrAmountMinorMax);
/**
 * The most a schedule lets one withdrawal be: what it can be filled by, max_splits payers of
 * the white label each paying at most one deposit (20,000,000 baht). More could never be
 * paid out in full; the amount plus its fee stays far within a safe integer.
 */
export const scheduleWithdrawalMinorMax = limits.withdrawalMaxSplits * scheduleDepositMinorMax;

/**
 * A withdrawal maximum of none, as the schedule keeps and shows it (the largest safe integer,
 * money.ts defaultAmountPolicy): sent back as it was shown, or to go back to none, it is
 * taken, though above the bound a set maximum has.
 */
export const noWithdrawalMaximum = safeIntegerMax;

/** Each figure: its name at the edge (a refusal's field path), its bounds, and where it sits in the schedule. */
const figures = [
  { key: 'depositProcessingFeeBps', path: 'deposit_processing_fee_bps', required: true, min: 0, max: limits.depositProcessingFeeBpsMax, of: (t: FeeScheduleTerms) => t.fees.deposit.processingFeeBps },
  { key: 'withdrawalFixedFeeMinor', path: 'withdrawal_fixed_fee_minor', required: true, min: 0, max: limits.withdrawalFixedFeeMinorMax, of: (t: FeeScheduleTerms) => t.fees.withdrawal.fixedFeeMinor },
  { key: 'depositVatBps', path: 'deposit_vat_bps', required: false, min: 0, max: limits.vatBpsMax, of: (t: FeeScheduleTerms) => t.fees.deposit.vatBps },
  { key: 'withdrawalVatBps', path: 'withdrawal_vat_bps', required: false, min: 0, max: limits.vatBpsMax, of: (t: FeeScheduleTerms) => t.fees.withdrawal.vatBps },
  { key: 'depositMinMinor', path: 'deposit_min_minor', required: false, min: 1, max: scheduleDepositMinorMax, of: (t: FeeScheduleTerms) => t.amounts.depositMinMinor },
  { key: 'depositMaxMinor', path: 'deposit_max_minor', required: false, min: 1, max: scheduleDepositMinorMax, of: (t: FeeScheduleTerms) => t.amounts.depositMaxMinor },
  { key: 'depositStepMinor', path: 'deposit_step_minor', required: false, min: 1, max: scheduleDepositMinorMax, of: (t: FeeScheduleTerms) => t.amounts.depositStepMinor },
  { key: 'withdrawalMinMinor', path: 'withdrawal_min_minor', required: false, min: 1, max: scheduleWithdrawalMinorMax, of: (t: FeeScheduleTerms) => t.amounts.withdrawalMinMinor },
  { key: 'withdrawalMaxMinor', path: 'withdrawal_max_minor', required: false, min: 1, max: scheduleWithdrawalMinorMax, of: (t: FeeScheduleTerms) => t.amounts.withdrawalMaxMinor },
] as const satisfies readonly { key: keyof FeeTerms; path: string; required: boolean; min: number; max: number; of: (t: FeeScheduleTerms) => number }[];

type Field = { path: string; reason: string; hint?: string };

/**
 * The schedule `terms` make of `current`, or the refusal naming every figure that is not an
 * integer within its bounds, and the limits that contradict each other: a minimum above its
 * maximum, or a deposit bound that is no multiple of the step (no deposit could have it).
 */
export function feeScheduleOf(current: FeeScheduleTerms, terms: FeeTerms): FeeScheduleTerms | Rejection {
  const fields: Field[] = [];
  for (const f of figures) {
    const value: unknown = terms[f.key];
    if (value === undefined && !f.required) continue;
    // 'type', as the request schema names a number that is no integer (server/validate.ts).
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) fields.push({ path: f.path, reason: 'type', hint: 'an integer' });
    else if (value < f.min) fields.push({ path: f.path, reason: 'minimum', hint: `at least ${f.min}` });
    else if (value > f.max && !(f.key === 'withdrawalMaxMinor' && value === noWithdrawalMaximum)) fields.push({ path: f.path, reason: 'maximum', hint: `at most ${f.max}` });
  }
  if (fields.length > 0) return refused(fields);
  const amounts: AmountPolicy = {
    depositMinMinor: terms.depositMinMinor ?? current.amounts.depositMinMinor,
    depositMaxMinor: terms.depositMaxMinor ?? current.amounts.depositMaxMinor,
    depositStepMinor: terms.depositStepMinor ?? current.amounts.depositStepMinor,
    withdrawalMinMinor: terms.withdrawalMinMinor ?? current.amounts.withdrawalMinMinor,
    withdrawalMaxMinor: terms.withdrawalMaxMinor ?? current.amounts.withdrawalMaxMinor,
  };
  if (amounts.depositMinMinor > amounts.depositMaxMinor) fields.push({ path: 'deposit_min_minor', reason: 'above_maximum', hint: `at most deposit_max_minor (${amounts.depositMaxMinor})` });
  for (const [path, bound] of [['deposit_min_minor', amounts.depositMinMinor], ['deposit_max_minor', amounts.depositMaxMinor]] as const) {
    if (bound % amounts.depositStepMinor !== 0) fields.push({ path, reason: 'multiple_of', hint: `a multiple of deposit_step_minor (${amounts.depositStepMinor})` });
  }
  if (amounts.withdrawalMinMinor > amounts.withdrawalMaxMinor) fields.push({ path: 'withdrawal_min_minor', reason: 'above_maximum', hint: `at most withdrawal_max_minor (${amounts.withdrawalMaxMinor})` });
  if (fields.length > 0) return refused(fields);
  const fees: FeeSchedule = {
    deposit: { processingFeeBps: terms.depositProcessingFeeBps, vatBps: terms.depositVatBps ?? current.fees.deposit.vatBps },
    withdrawal: { fixedFeeMinor: terms.withdrawalFixedFeeMinor, vatBps: terms.withdrawalVatBps ?? current.fees.withdrawal.vatBps },
  };
  return { fees, amounts };
}

function refused(fields: readonly Field[]): Rejection {
  return reject('validation_error', `The fee schedule is not valid: ${fields.map((f) => `${f.path} (${f.hint ?? f.reason})`).join(', ')}.`, { fields });
}

export function sameTerms(a: FeeScheduleTerms, b: FeeScheduleTerms): boolean {
  return figures.every((f) => f.of(a) === f.of(b));
}

/**
 * An approval's figures refused before anything else is asked of it: out of bounds, or not
 * those of the proposal waiting. No state changes for this, so the route asks it before the
 * step-up and a refusal spends none (README, Token bounds); with no proposal waiting there is
 * nothing to compare, and the decider's 409 says so.
 */
export function approvalRefusal(wl: WhiteLabel, terms: FeeTerms, at: number): Rejection | null {
  const named = feeScheduleOf(wl, terms);
  if (isRejection(named)) return named;
  const p = wl.feeScheduleProposal;
  if (!proposalWaiting(p, limits.feeScheduleProposalTtlMs, at)) return null;
  const fields = figuresNotApproved(terms, p, wl);
  if (fields.length === 0) return null;
  return reject('validation_error', 'The fee schedule approved is not the one proposed; read the proposal again and approve the figures it names.', { fields });
}

/**
 * The figures an approval names that are not the proposal's, and those it leaves out that
 * the proposal changes: a second operator approves every figure that moves, as they read it.
 */
function figuresNotApproved(terms: FeeTerms, proposed: FeeScheduleTerms, current: FeeScheduleTerms): Field[] {
  const fields: Field[] = [];
  for (const f of figures) {
    const named = terms[f.key];
    if (named === undefined ? f.of(proposed) !== f.of(current) : named !== f.of(proposed)) {
      fields.push({ path: f.path, reason: 'mismatch', hint: named === undefined ? 'the proposal changes it: name it' : 'not the figure proposed' });
    }
  }
  return fields;
}
