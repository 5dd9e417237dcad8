// Small helpers shared by the route modules: reading a validated query, checking money
// at the edge, the merchant's idempotency scope, and a noted decision's step-up.

import type { Context } from 'koa';
import { minorFromJson, type Minor } from '../../core/money.ts';
import { visibleTo } from '../../core/handler/commands.ts';
import { ApiError } from '../errors.ts';
import type { MerchantState } from '../auth/merchant.ts';
import { operatorOf, requireStepUp } from '../auth/operator.ts';
import type { Admit } from '../idempotency.ts';
import { checkNote } from '../../core/note.ts';
import type { Rejection } from '../../core/errors.ts';
import { operatorIdempotencyScope } from '../../core/operators.ts';
import type { AdjustmentProposal, FeeScheduleProposal } from '../../core/directory.ts';
import type { FeeScheduleTerms } from '../../core/directory/fee-schedule.ts';
import { limits } from '../../core/limits.ts';
import { iso } from '../../core/present.ts';
import type { Services } from '../ports.ts';

/**
 * Waits, while a commit that changes the order `id` is being made durable, until it is (with
 * every commit before it). The world applies a commit at once; a GET of one order then shows
 * no state a crash could still take back, and an order read beside its journal trail sees
 * both at one point. Nothing in flight (nearly always): no wait.
 */
export async function durableRead(services: Services, id: string): Promise<void> {
  if (services.write.inFlight(id)) await services.write.caughtUp();
}

/**
 * runIdempotent's admit for a command whose refusals core can say before it runs: they are
 * answered before the step-up, which they do not spend (README, Token bounds); a replay is not
 * checked again (its first run was), the step-up is asked of it still. The command decides
 * them again.
 */
export function refusedBeforeStepUp(ctx: Context, refusal: () => Rejection | null): Admit {
  return async (replaying) => {
    const refused = replaying ? null : refusal();
    if (refused) throw ApiError.from(refused);
    await requireStepUp(ctx);
  };
}

/**
 * refusedBeforeStepUp for an operator's decision that needs a note: a note too short is the
 * body's fault (422 review_note_required), and a target there is not (`found` throws its 404,
 * after the body's 422). The core checks both too.
 */
export function noteBeforeStepUp(ctx: Context, note: string, what: string, found: () => void): Admit {
  return refusedBeforeStepUp(ctx, () => {
    const short = checkNote(note, what);
    if (!short) found();
    return short;
  });
}

/** The query as a plain object; a repeated parameter is refused (it would be ambiguous). */
export function queryOf(ctx: Context): Record<string, string> {
  // No prototype: a parameter named __proto__ is a key like any other (then refused as unknown), not a prototype to set.
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(ctx.query)) {
    if (Array.isArray(v)) throw new ApiError('validation_error', `Query parameter ${k} is repeated.`, { fields: [{ path: `query.${k}`, reason: 'duplicate' }] });
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** A JSON amount → bigint; an amount beyond the safe integer range is refused here. */
export function amountOf(value: number, path = 'amount_minor'): Minor {
  const minor = minorFromJson(value);
  if (minor === null) throw new ApiError('validation_error', `${path} must be a safe integer (at most 9007199254740991).`, { fields: [{ path, reason: 'unsafe_integer' }] });
  return minor;
}

export function merchantScope(m: MerchantState): string {
  return `${m.merchantId}:${m.livemode ? 'live' : 'test'}`;
}

export function bodyOf(ctx: Context): unknown {
  return (ctx.request as { body?: unknown }).body ?? {};
}

export function notFound(what = 'object'): ApiError {
  return new ApiError('resource_not_found', `No such ${what}.`);
}

/** Validates `data` with a compiled schema and returns it typed (the validator throws on failure). */
export function parseWith<T>(validate: (data: unknown) => data is T, data: unknown): T {
  if (!validate(data)) throw new ApiError('validation_error');
  return data;
}

/** The object if it is the merchant's own in the key's mode, else 404 resource_not_found (core's visibleTo). */
export function ownedBy<T extends { readonly merchantId: string; readonly livemode: boolean }>(m: MerchantState, object: T | undefined, what: string): T {
  const visible = visibleTo({ kind: 'merchant', merchantId: m.merchantId, livemode: m.livemode }, object);
  if (!visible) throw notFound(what);
  return visible;
}

/**
 * An operator's Idempotency-Key scope: the operator and the object the call acts on (the
 * route's id, or `target`), so that a key is one operator's on one object — within one
 * merchant, and so one white label's shard (DESIGN "Scaling past one machine"): the same
 * key on two merchants' adjustments is two requests, as it would be on two shards. A call
 * that names no object (a new white label or merchant) is the operator's alone. The operator
 * is their folded id, so a retry under another spelling of the same sub replays.
 */
export function operatorScope(ctx: Context, target?: string): string {
  const params = (ctx as Context & { params?: Record<string, string> }).params ?? {};
  return operatorIdempotencyScope(operatorOf(ctx).sub, target ?? params.id ?? params.endpointId); // one person under any spelling, as four eyes counts them
}

/** A live credit waiting for its second operator, as the back office shows it (202 of the adjustment, the merchant's view). */
export function presentAdjustmentProposal(merchantId: string, p: AdjustmentProposal): Record<string, unknown> {
  return {
    id: p.id, object: 'adjustment_proposal', livemode: p.livemode, merchant_id: merchantId, status: 'pending_approval', direction: 'credit',
    amount_minor: Number(p.amountMinor), currency: 'THB', reason_code: p.reasonCode, note: p.reason, proposed_by: p.proposedBy,
    proposed_at: iso(p.proposedAt), approve_by: iso(p.proposedAt + limits.adjustmentProposalTtlMs),
    // Why one under the amount waits: what its proposer had credited alone in the 24 hours before it (null: the amount itself).
    proposer_recent_credits_minor: p.proposerRecentMinor === undefined ? null : Number(p.proposerRecentMinor),
  };
}

/**
 * A white label's fee schedule and amount limits, flat, as an operator sets them
 * (POST /v1/bo/white-labels/{id}/fees takes the same names, the VAT rates among them).
 */
export function presentFeeSchedule(whiteLabelId: string, t: FeeScheduleTerms): Record<string, unknown> {
  return {
    object: 'fee_schedule', white_label_id: whiteLabelId,
    deposit_processing_fee_bps: t.fees.deposit.processingFeeBps, deposit_vat_bps: t.fees.deposit.vatBps,
    withdrawal_fixed_fee_minor: t.fees.withdrawal.fixedFeeMinor, withdrawal_vat_bps: t.fees.withdrawal.vatBps,
    deposit_min_minor: t.amounts.depositMinMinor, deposit_max_minor: t.amounts.depositMaxMinor, deposit_step_minor: t.amounts.depositStepMinor,
    withdrawal_min_minor: t.amounts.withdrawalMinMinor, withdrawal_max_minor: t.amounts.withdrawalMaxMinor,
  };
}

export function presentFeeScheduleProposal(whiteLabelId: string, p: FeeScheduleProposal): Record<string, unknown> {
  return {
    ...presentFeeSchedule(whiteLabelId, p), object: 'fee_schedule_proposal', status: 'pending_approval',
    proposed_by: p.proposedBy, proposed_at: iso(p.proposedAt), approve_by: iso(p.proposedAt + limits.feeScheduleProposalTtlMs),
  };
}
