// /v1/bo/*: onboarding and the operator actions the core already knows (DESIGN.md,
// "Operators and onboarding"). Every POST takes an Idempotency-Key scoped to the
// operator; those marked ⚑ in DESIGN.md also need a step-up token. Reviews, approvals,
// claims and reports beyond these come with the back-office issue.

import Router from '@koa/router';
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { Command } from '../../core/handler/commands.ts';
import { adjustmentReasonDefault, adjustmentReasons, bankByCode, bankDownMessageThDefault, proposalWaiting } from '../../core/directory.ts';
import { balanceTransactionIdOf, iso, presentBalances, presentBeneficiary, presentDeposit, presentWithdrawal } from '../../core/present.ts';
import { reversalReasonCodes, type ReversalReasonCode } from '../../core/deposit/state.ts';
import { claimRefundsOnReversal, reversalRefusal, type ClaimRefundsOnReversal } from '../../core/deposit/decide.ts';
import { reversalFacts, worldReads } from '../../core/handler/claims.ts';
import { operatorAuth, operatorOf, requireStepUp } from '../auth/operator.ts';
import { ApiError } from '../errors.ts';
import { idempotencyKeyOf, runIdempotent, runIdempotentOwn, type Response } from '../idempotency.ts';
import { allScopes, type ApiKey, type Scope, type Services } from '../ports.ts';
import { compile } from '../validate.ts';
import { reference, visible, writtenText } from '../schemas.ts';
import { limits, writeSideLimits } from '../../core/limits.ts';
import { amountOf, bodyOf, notFound, parseWith, operatorScope, presentAdjustmentProposal, presentFeeSchedule, presentFeeScheduleProposal, refusedBeforeStepUp } from './common.ts';
import { noteChanges } from './bo-audit.ts';
import { approvalRefusal, feeScheduleOf, noWithdrawalMaximum, scheduleDepositMinorMax, scheduleWithdrawalMinorMax, type FeeTerms } from '../../core/directory/fee-schedule.ts';
import { isRejection, type Rejection } from '../../core/errors.ts';
import { checkNote } from '../../core/note.ts';
import { adjustmentMismatch, checkAdjustmentBucket, checkAdjustmentReason, checkBank, gatewayRouteMismatch, waitingAdjustmentProposal, waitingAdjustmentProposals } from '../../core/directory/decide.ts';
import { booleanParam, readQuery } from './read-params.ts';
import { pageOf } from './bo-desk.ts';

const str = (max = 200) => ({ type: 'string', minLength: 1, maxLength: max }) as const;
/** A name: visible characters only (no tab, newline or bidi control), and something to read. */
const name = (max = 200) => ({ ...str(max), pattern: visible, 'x-readable': true }) as const;
const depositLimit = { type: 'integer', minimum: 1, maximum: scheduleDepositMinorMax } as const;
const withdrawalLimit = { type: 'integer', minimum: 1, maximum: scheduleWithdrawalMinorMax } as const;
const schemas = {
  whiteLabel: compile<{ name: string }>({ type: 'object', additionalProperties: false, required: ['name'], properties: { name: name() } }),
  gatewayRouteApproval: compile<{ bank_code: string; account_number: string }>({
    type: 'object', additionalProperties: false, required: ['bank_code', 'account_number'],
    properties: { bank_code: { type: 'string', pattern: '^[0-9]{3}$' }, account_number: { type: 'string', pattern: '^[0-9]{6,20}$' } },
  }),
  gatewayRoute: compile<{ bank_code: string; account_number: string; account_name: string; ttl_seconds: number }>({
    type: 'object', additionalProperties: false, required: ['bank_code', 'account_number', 'account_name', 'ttl_seconds'],
    properties: { bank_code: { type: 'string', pattern: '^[0-9]{3}$' }, account_number: { type: 'string', pattern: '^[0-9]{6,20}$' }, account_name: name(), ttl_seconds: { type: 'integer', minimum: limits.gatewayRouteTtlSecondsMin, maximum: limits.gatewayRouteTtlSecondsMax } },
  }),
  feeSchedule: compile<FeeScheduleBody>({
    type: 'object', additionalProperties: false, required: ['deposit_processing_fee_bps', 'withdrawal_fixed_fee_minor'],
    properties: {
      deposit_processing_fee_bps: { type: 'integer', minimum: 0, maximum: limits.depositProcessingFeeBpsMax },
      withdrawal_fixed_fee_minor: { type: 'integer', minimum: 0, maximum: limits.withdrawalFixedFeeMinorMax },
      deposit_vat_bps: { type: 'integer', minimum: 0, maximum: limits.vatBpsMax }, withdrawal_vat_bps: { type: 'integer', minimum: 0, maximum: limits.vatBpsMax },
      // A deposit one QR can ask for and a reviewer approve; a withdrawal ten such payers can fill (core/directory/fee-schedule.ts).
      deposit_min_minor: depositLimit, deposit_max_minor: depositLimit, deposit_step_minor: depositLimit,
      withdrawal_min_minor: withdrawalLimit, withdrawal_max_minor: { ...withdrawalLimit, maximum: noWithdrawalMaximum }, // none, as shown, is taken; above the bound the core refuses it (maximum)
    },
  }),
  merchant: compile<{ white_label_id: string; name: string; technical_contact_email?: string }>({
    type: 'object', additionalProperties: false, required: ['white_label_id', 'name'],
    properties: { white_label_id: str(64), name: name(), technical_contact_email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$', maxLength: 254 } },
  }),
  key: compile<{ livemode: boolean; scopes: Scope[] }>({
    type: 'object', additionalProperties: false, required: ['livemode', 'scopes'],
    // At least one scope: a key that may do nothing is a mistake, said now rather than at its first 403.
    properties: { livemode: { type: 'boolean' }, scopes: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...allScopes] } } },
  }),
  // The end user's ref as the merchant writes it on its orders (GET /v1/pay/senders, sender_id): a ref no
  // deposit could carry (a control character, a space at either end) would register a sender no one can use.
  sender: compile<{ livemode: boolean; end_user_ref: string; bank_code: string; account_number: string; account_name_th: string }>({
    type: 'object', additionalProperties: false, required: ['livemode', 'end_user_ref', 'bank_code', 'account_number', 'account_name_th'],
    properties: { livemode: { type: 'boolean' }, end_user_ref: reference, bank_code: { type: 'string', pattern: '^[0-9]{3}$' }, account_number: { type: 'string', pattern: '^[0-9]{6,20}$' }, account_name_th: name(140) },
  }),
  beneficiary: compile<{ livemode: boolean; bank_code: string; account_number: string; account_name_th: string }>({
    type: 'object', additionalProperties: false, required: ['livemode', 'bank_code', 'account_number', 'account_name_th'],
    properties: { livemode: { type: 'boolean' }, bank_code: { type: 'string', pattern: '^[0-9]{3}$' }, account_number: { type: 'string', pattern: '^[0-9]{6,20}$' }, account_name_th: name(140) },
  }),
  adjustment: compile<{ livemode: boolean; amount_minor: number; direction: 'credit' | 'debit'; bucket: 'available' | 'pending_clearing' | 'reserved'; reason_code?: string; reason: string }>({
    type: 'object', additionalProperties: false, required: ['livemode', 'amount_minor', 'direction', 'bucket', 'reason'],
    properties: {
      livemode: { type: 'boolean' }, amount_minor: { type: 'integer', minimum: 1 }, direction: { enum: ['credit', 'debit'] }, bucket: { enum: ['available', 'pending_clearing', 'reserved'] },
      reason_code: { enum: Object.keys(adjustmentReasons) }, reason: { ...str(500), pattern: writtenText, 'x-readable': true },
    },
  }),
  adjustmentApproval: compile<{ amount_minor: number }>({
    type: 'object', additionalProperties: false, required: ['amount_minor'], properties: { amount_minor: { type: 'integer', minimum: 1 } },
  }),
  // A reviewer's note is checked by the core (review_note_required, missing or short alike).
  approval: compile<{ note?: string; amount_minor?: number; legs?: { leg_ref: string; amount_minor: number }[]; version?: number }>({
    type: 'object', additionalProperties: false,
    properties: {
      note: { type: 'string', maxLength: limits.noteLengthMax, pattern: writtenText }, amount_minor: { type: 'integer', minimum: 1 },
      // The deposit's version the reviewer read: a change since (another reviewer's figures) is refused, not confirmed unseen.
      version: { type: 'integer', minimum: 0 },
      legs: {
        type: 'array', minItems: 1, maxItems: limits.legsPerDepositMax,
        items: { type: 'object', additionalProperties: false, required: ['leg_ref', 'amount_minor'], properties: { leg_ref: str(64), amount_minor: { type: 'integer', minimum: 0 } } },
      },
    },
  }),
  /** A suspension or its lifting, with why (kept on the journal's event with the operator). */
  suspension: compile<{ reason?: string }>({ type: 'object', additionalProperties: false, properties: { reason: { ...str(limits.noteLengthMax), pattern: writtenText } } }),
  optionalNote: compile<{ note?: string }>({ type: 'object', additionalProperties: false, properties: { note: { type: 'string', maxLength: limits.noteLengthMax, pattern: writtenText } } }),
  // A missing note is a note too short (review_note_required), as on reviews and claims.
  reversal: compile<{ reason_code: string; note?: string; claim_refunds?: ClaimRefundsOnReversal }>({
    type: 'object', additionalProperties: false, required: ['reason_code'],
    properties: { reason_code: str(64), note: { type: 'string', maxLength: limits.noteLengthMax, pattern: writtenText }, claim_refunds: { enum: [...claimRefundsOnReversal] } },
  }),
  routeConfirmation: compile<{ trans_ref: string; amount_minor: number }>({
    type: 'object', additionalProperties: false, required: ['trans_ref', 'amount_minor'],
    properties: { trans_ref: str(64), amount_minor: { type: 'integer', minimum: 1 } },
  }),
  empty: compile<Record<string, never>>({ type: 'object', additionalProperties: false, properties: {} }),
  bankAvailability: compile<{ available: boolean; message_th?: string }>({
    type: 'object', additionalProperties: false, required: ['available'],
    properties: { available: { type: 'boolean' }, message_th: { ...str(200), pattern: writtenText } },
  }),
  advance: compile<{ seconds: number }>({ type: 'object', additionalProperties: false, required: ['seconds'], properties: { seconds: { type: 'integer', minimum: writeSideLimits.manualClockAdvanceSecondsMin, maximum: writeSideLimits.manualClockAdvanceSecondsMax } } }),
};

interface FeeScheduleBody {
  deposit_processing_fee_bps: number; withdrawal_fixed_fee_minor: number;
  deposit_min_minor?: number; deposit_max_minor?: number; deposit_step_minor?: number; withdrawal_min_minor?: number; withdrawal_max_minor?: number;
  deposit_vat_bps?: number; withdrawal_vat_bps?: number;
}

function feeTermsOf(b: FeeScheduleBody): FeeTerms {
  return {
    depositProcessingFeeBps: b.deposit_processing_fee_bps, withdrawalFixedFeeMinor: b.withdrawal_fixed_fee_minor,
    ...(b.deposit_min_minor !== undefined ? { depositMinMinor: b.deposit_min_minor } : {}), ...(b.deposit_max_minor !== undefined ? { depositMaxMinor: b.deposit_max_minor } : {}),
    ...(b.deposit_step_minor !== undefined ? { depositStepMinor: b.deposit_step_minor } : {}),
    ...(b.withdrawal_min_minor !== undefined ? { withdrawalMinMinor: b.withdrawal_min_minor } : {}), ...(b.withdrawal_max_minor !== undefined ? { withdrawalMaxMinor: b.withdrawal_max_minor } : {}),
    ...(b.deposit_vat_bps !== undefined ? { depositVatBps: b.deposit_vat_bps } : {}), ...(b.withdrawal_vat_bps !== undefined ? { withdrawalVatBps: b.withdrawal_vat_bps } : {}),
  };
}

/** A new key with a fresh secret (not yet saved). */
function newKey(services: Services, merchantId: string, livemode: boolean, scopes: readonly Scope[]): ApiKey {
  const secret = `${livemode ? 'sk_live_' : 'sk_test_'}${randomBytes(24).toString('base64url')}`;
  return { keyId: services.write.ids.next('key', merchantId), secret, merchantId, livemode, scopes: [...scopes], revokedAt: null, createdAt: services.write.clock.now() };
}

export function mintKey(services: Services, merchantId: string, livemode: boolean, scopes: readonly Scope[]): ApiKey {
  const key = newKey(services, merchantId, livemode, scopes);
  services.keys.save(key);
  return key;
}

/**
 * The manual clock stops at writeSideLimits.manualClockMsMax: past it the API's instants
 * (created_at, expires_at, …) would leave RFC 3339's four-digit years. An advance that
 * would cross it is refused, so the clock stays where it was and every answer stays valid.
 */
function checkClockRoom(nowMs: number, seconds: number): void {
  const roomSeconds = Math.max(0, Math.floor((writeSideLimits.manualClockMsMax - nowMs) / 1000));
  if (seconds <= roomSeconds) return;
  throw new ApiError('validation_error', `The manual clock stops at ${iso(writeSideLimits.manualClockMsMax)}; it can be advanced by at most ${roomSeconds} s more.`, {
    fields: [{ path: 'seconds', reason: 'maximum', hint: `at most ${roomSeconds}` }],
  });
}

// GET /v1/bo/clock and an advance's answer: one shape, so a client reads either the same way.
const presentClock = (nowMs: number, clock: 'manual' | 'system') => ({ object: 'service_clock', now: iso(nowMs), clock });

const keyView = (k: ApiKey) => ({ key_id: k.keyId, api_key: k.secret, scopes: [...k.scopes], livemode: k.livemode });

export function backOfficeRoutes(services: Services, verify: Parameters<typeof operatorAuth>[0]): Router {
  const router = new Router({ prefix: '/v1/bo', sensitive: true });
  router.use(operatorAuth(verify));
  // The world is read afresh on every use: a store may rebuild it (server/ports.ts WriteSide).
  const world = () => services.write.world;
  const actorOf = (ctx: Context) => ({ kind: 'operator' as const, operatorId: operatorOf(ctx).sub });
  const run = (ctx: Context, command: Command, render: (id: string | undefined) => Response) =>
    runIdempotent(ctx, services, operatorScope(ctx), command, render);
  const now = () => services.write.clock.now();
  /**
   * Runs a command that takes a step-up, `check` of its body first: a body refused for what
   * it says spends none (README, Token bounds). A retry is replayed whatever its first run
   * changed, so `check` is skipped for it (the step-up is asked of it still): the key's
   * record is looked up once, before both (runIdempotent's admit). No check: the step-up
   * comes first, before the key is read, as on every other route. `decidedOn` reads what the
   * route keeps of the state the command is decided on in the turn the command is decided
   * (runIdempotent's decidedOn): after the step-up (another operator's command may land while
   * it is checked) and every await; a replay decides nothing, and reads nothing.
   */
  const runSteppedUp = async (ctx: Context, command: Command, render: (id: string | undefined) => Response, check: (() => void) | undefined, decidedOn?: () => void) => {
    if (check === undefined) {
      await requireStepUp(ctx);
      return run(ctx, command, render);
    }
    return runIdempotent(ctx, services, operatorScope(ctx), command, render, {
      admit: refusedBeforeStepUp(ctx, () => {
        check();
        return null;
      }),
      decidedOn,
    });
  };
  const refuseIf = (refusal: Rejection | null) => { if (refusal) throw ApiError.from(refusal); };
  const whiteLabel = (ctx: Context) => {
    const wl = world().whiteLabels.get(ctx.params.id!);
    if (!wl) throw notFound('white label');
    return wl;
  };
  const merchant = (ctx: Context) => {
    const m = world().merchants.get(ctx.params.id!);
    if (!m) throw notFound('merchant');
    return m;
  };

  router.post('/white-labels', async (ctx) => {
    const body = parseWith(schemas.whiteLabel, bodyOf(ctx));
    await run(ctx, { type: 'RegisterWhiteLabel', actor: actorOf(ctx), name: body.name }, (id) => ({ status: 201, body: { id, object: 'white_label', name: body.name } }));
  });

  // Four eyes on where the white label's fallback deposits are paid: one operator proposes
  // the account (202, nothing routes to it yet), a second approves it naming the same
  // bank code and account number (200, the route).
  router.post('/white-labels/:id/gateway-route', async (ctx) => {
    const b = parseWith(schemas.gatewayRoute, bodyOf(ctx));
    // An unknown white label and a bank that receives no transfers are refused before the step-up, which they do not spend (the core checks both too).
    whiteLabel(ctx);
    refuseIf(checkBank(b.bank_code, 'receiver'));
    await requireStepUp(ctx);
    await run(ctx, { type: 'SetGatewayRoute', actor: actorOf(ctx), whiteLabelId: ctx.params.id!, bankCode: b.bank_code, accountNumber: b.account_number, accountName: b.account_name, ttlSeconds: b.ttl_seconds }, (id) => {
      const p = world().whiteLabels.get(id!)!.gatewayRouteProposal!;
      return {
        status: 202,
        body: {
          object: 'gateway_route_proposal', white_label_id: id, status: 'pending_approval', bank_code: p.bankCode, account_number: p.accountNumber, account_name: p.accountName,
          ttl_seconds: p.ttlSeconds, proposed_by: p.proposedBy, proposed_at: iso(p.proposedAt), approve_by: iso(p.proposedAt + limits.gatewayRouteProposalTtlMs),
        },
      };
    });
  });

  router.post('/white-labels/:id/gateway-route/approve', async (ctx) => {
    const b = parseWith(schemas.gatewayRouteApproval, bodyOf(ctx));
    const p = whiteLabel(ctx).gatewayRouteProposal;
    const check = proposalWaiting(p, limits.gatewayRouteProposalTtlMs, now()) ? () => refuseIf(gatewayRouteMismatch(p, b.bank_code, b.account_number)) : undefined;
    await runSteppedUp(ctx, { type: 'ApproveGatewayRoute', actor: actorOf(ctx), whiteLabelId: ctx.params.id!, bankCode: b.bank_code, accountNumber: b.account_number }, (id) => {
      const route = world().whiteLabels.get(id!)!.gatewayRoute!;
      return {
        status: 200,
        body: {
          object: 'gateway_route', white_label_id: id, bank_code: route.bankCode, account_number: route.accountNumber, account_name: route.accountName, expires_at: iso(route.expiresAt),
          approved_by: operatorOf(ctx).sub,
        },
      };
    }, check);
  });

  // Four eyes on what the white label charges: one operator proposes the schedule (202,
  // nothing changes yet), a second approves it naming every figure it changes (200, in
  // force for every deposit settled and withdrawal created from then on; a fee already
  // booked, or pinned on an open withdrawal, stays as it was).
  // The figures are checked before the step-up, against the schedule in force (and, to
  // approve, the proposal waiting): a body refused 422 spends none, and the operator sends
  // it mended with the same step-up. A 409 (the proposer approving, none waiting) comes after.
  router.post('/white-labels/:id/fees', async (ctx) => {
    const b = parseWith(schemas.feeSchedule, bodyOf(ctx));
    const wl = whiteLabel(ctx);
    // A retry is replayed, not judged again against the schedule its first run put in force.
    const check = () => { const next = feeScheduleOf(wl, feeTermsOf(b)); if (isRejection(next)) throw ApiError.from(next); };
    await runSteppedUp(ctx, { type: 'SetFeeSchedule', actor: actorOf(ctx), whiteLabelId: wl.id, terms: feeTermsOf(b) }, (id) =>
      ({ status: 202, body: presentFeeScheduleProposal(id!, world().whiteLabels.get(id!)!.feeScheduleProposal!) }), check);
  });

  router.post('/white-labels/:id/fees/approve', async (ctx) => {
    const b = parseWith(schemas.feeSchedule, bodyOf(ctx));
    const wl = whiteLabel(ctx);
    // The schedule it replaced is on the action log beside the one now in force: the one in
    // force when the approval is decided, read in that turn (another approval may land while its step-up is checked).
    let before = wl;
    await runSteppedUp(ctx, { type: 'ApproveFeeSchedule', actor: actorOf(ctx), whiteLabelId: wl.id, terms: feeTermsOf(b) }, (id) => {
      const after = presentFeeSchedule(id!, world().whiteLabels.get(id!)!);
      noteChanges(ctx, { fee_schedule: { before: presentFeeSchedule(id!, before), after } });
      return { status: 200, body: { ...after, approved_by: operatorOf(ctx).sub } };
    }, () => refuseIf(approvalRefusal(wl, feeTermsOf(b), now())), () => { before = whiteLabel(ctx); });
  });

  router.post('/merchants', async (ctx) => {
    const b = parseWith(schemas.merchant, bodyOf(ctx));
    await run(ctx, { type: 'RegisterMerchant', actor: actorOf(ctx), whiteLabelId: b.white_label_id, name: b.name, ...(b.technical_contact_email ? { technicalContactEmail: b.technical_contact_email } : {}) }, (id) => {
      // The two keys are minted with the merchant; their secrets are shown here once.
      // In production the live key waits for a passed certification run (services.liveKeys).
      const live = services.liveKeys ? null : mintKey(services, id!, true, allScopes);
      const sandbox = mintKey(services, id!, false, allScopes);
      return { status: 201, body: { id, object: 'merchant', white_label_id: b.white_label_id, name: b.name, keys: { live: live && keyView(live), sandbox: keyView(sandbox) } } };
    });
  });

  router.post('/merchants/:id/keys', async (ctx) => {
    const b = parseWith(schemas.key, bodyOf(ctx));
    // An unknown merchant, and a live key asked before certification (the body's to mend: a sandbox key), spend no step-up.
    const m = merchant(ctx);
    if (b.livemode && services.liveKeys && !services.liveKeys.certified(m.id)) {
      throw new ApiError('operation_not_allowed', 'A live key is issued once a certification run passed: run POST /v1/test/certification with the sandbox key, then ask again.',
        { reason: 'certification_required', certification_url: '/v1/test/certification' });
    }
    await requireStepUp(ctx);
    // Not a core command (keys stay out of the journal): the key and the request's
    // idempotency record are saved in one transaction, so a retry replays the same key.
    await runIdempotentOwn(ctx, services, operatorScope(ctx), (keep) => {
      const key = newKey(services, m.id, b.livemode, b.scopes);
      const response = { status: 201, body: keyView(key) };
      services.keys.saveWithIdempotency(key, keep(response));
      return response;
    });
  });

  // A merchant's keys for the operators who answer for them: never a secret, only its last
  // four characters to tell keys apart (as the merchant's dashboard of a PSP shows them).
  router.get('/merchants/:id/keys', (ctx) => {
    const q = readQuery(ctx, ['livemode']);
    const livemode = booleanParam(q.livemode, 'livemode');
    const m = merchant(ctx);
    const keys = services.keys.forMerchant(m.id).filter((k) => livemode === undefined || k.livemode === livemode)
      .sort((a, b) => b.createdAt - a.createdAt || (a.keyId < b.keyId ? 1 : -1));
    ctx.body = {
      object: 'list', merchant_id: m.id, data: keys.map((k) => ({
        key_id: k.keyId, object: 'api_key', livemode: k.livemode, scopes: [...k.scopes], api_key_hint: `${k.secret.slice(0, 8)}…${k.secret.slice(-4)}`,
        created_at: iso(k.createdAt), revoked_at: k.revokedAt === null ? null : iso(k.revokedAt),
      })),
    };
  });

  router.post('/keys/:keyId/revoke', async (ctx) => {
    parseWith(schemas.empty, bodyOf(ctx));
    const key = services.keys.byId(ctx.params.keyId!);
    if (!key) throw notFound('key'); // before the step-up, which it does not spend (a key is never removed, only revoked)
    await requireStepUp(ctx);
    // On the wall clock, as every security window and the request log: an incident's timeline
    // reads the revocation beside the key's last requests (business time may have been moved).
    if (key.revokedAt === null) services.keys.revoke(key.keyId, services.securityClock.now());
    const revokedAt = services.keys.byId(key.keyId)?.revokedAt ?? null;
    ctx.body = { key_id: key.keyId, object: 'api_key', livemode: key.livemode, revoked: true, revoked_at: revokedAt === null ? null : iso(revokedAt) };
  });

  // A sending bank down at its end (an outage, maintenance): new deposits from it are
  // refused 409 sender_bank_unavailable with the banks that are up, GET /v1/pay/banks says
  // so with the message for end users, and a slip from it goes to review (BANK_DISABLED).
  router.post('/banks/:code/availability', async (ctx) => {
    const b = parseWith(schemas.bankAvailability, bodyOf(ctx));
    const code = ctx.params.code!;
    if (!bankByCode(code)?.side.includes('sender')) throw notFound('sending bank');
    if (b.available && b.message_th !== undefined) {
      throw new ApiError('validation_error', 'message_th tells end users why a bank is down; a bank made available takes none.', { fields: [{ path: 'message_th', reason: 'not_allowed' }] });
    }
    await runIdempotent(ctx, services, operatorScope(ctx, `bank_${code}`), {
      type: 'SetBankAvailability', actor: actorOf(ctx), bankCode: code, available: b.available, ...(b.message_th !== undefined ? { messageTh: b.message_th } : {}),
    }, () => ({ status: 200, body: { object: 'bank_availability', bank_code: code, available: b.available, message_th: b.available ? null : b.message_th ?? bankDownMessageThDefault } }));
  });

  for (const [path, suspended] of [['suspend', true], ['unsuspend', false]] as const) {
    router.post(`/merchants/:id/${path}`, async (ctx) => {
      const b = parseWith(schemas.suspension, bodyOf(ctx));
      const m = merchant(ctx); // an unknown merchant spends no step-up (a merchant is never removed, so a retry finds it too)
      await requireStepUp(ctx);
      await run(ctx, { type: 'SetMerchantSuspended', actor: actorOf(ctx), merchantId: m.id, suspended, ...(b.reason !== undefined ? { reason: b.reason } : {}) },
        () => ({ status: 200, body: { id: m.id, object: 'merchant', suspended } }));
    });
  }

  router.post('/merchants/:id/senders', async (ctx) => {
    const b = parseWith(schemas.sender, bodyOf(ctx));
    const m = merchant(ctx);
    await run(ctx, { type: 'RegisterSender', actor: actorOf(ctx), merchantId: m.id, livemode: b.livemode, endUserRef: b.end_user_ref, bankCode: b.bank_code, accountNumber: b.account_number, accountNameTh: b.account_name_th }, (id) => ({
      status: 201, body: { sender_id: id, object: 'sender', end_user_ref: b.end_user_ref, bank_code: b.bank_code, livemode: b.livemode },
    }));
  });

  router.post('/merchants/:id/beneficiaries', async (ctx) => {
    const b = parseWith(schemas.beneficiary, bodyOf(ctx));
    const m = merchant(ctx);
    await run(ctx, { type: 'RegisterBeneficiary', actor: actorOf(ctx), merchantId: m.id, livemode: b.livemode, bankCode: b.bank_code, accountNumber: b.account_number, accountNameTh: b.account_name_th, verified: true },
      (id) => ({ status: 201, body: presentBeneficiary(world().beneficiaries.get(id!)!) }));
  });

  router.post('/merchants/:id/adjustments', async (ctx) => {
    const b = parseWith(schemas.adjustment, bodyOf(ctx));
    const reasonCode = b.reason_code ?? adjustmentReasonDefault;
    // A reason_code for the other direction, an unknown merchant and a bucket other than available are
    // refused before the step-up, which they do not spend (the core checks them too); the body's 422 first.
    refuseIf(checkAdjustmentReason(reasonCode, b.direction));
    const m = merchant(ctx);
    refuseIf(checkAdjustmentBucket(b.bucket));
    await requireStepUp(ctx);
    // Four eyes on a large live credit (limits.adjustmentFourEyesMinorMin): money that would appear
    // in a wallet on one operator's word is proposed, and posted when a second approves it. A
    // smaller one is too when it would bring what its operator credited alone within 24 hours
    // to that much (fourEyesByTotal: decided by the core, against every credit before it).
    const fourEyes = b.direction === 'credit' && b.livemode && b.bucket === 'available' && b.amount_minor >= limits.adjustmentFourEyesMinorMin;
    await run(ctx, fourEyes
      ? { type: 'ProposeAdjustment', actor: actorOf(ctx), merchantId: m.id, amountMinor: amountOf(b.amount_minor), reasonCode, reason: b.reason }
      : { type: 'PostAdjustment', actor: actorOf(ctx), merchantId: m.id, livemode: b.livemode, amountMinor: amountOf(b.amount_minor), direction: b.direction, bucket: b.bucket, reasonCode, reason: b.reason, fourEyesByTotal: true },
    (id) => {
      // A large live credit waits for a second operator (core: limits.adjustmentFourEyesMinorMin).
      const proposal = world().merchants.get(m.id)!.adjustmentProposals?.find((p) => p.id === id);
      if (proposal) return { status: 202, body: presentAdjustmentProposal(m.id, proposal) };
      return adjustmentAnswer(ctx, m.id, id!, { livemode: b.livemode, direction: b.direction, bucket: b.bucket, amountMinor: b.amount_minor, reasonCode, reason: b.reason });
    });
  });

  router.post('/merchants/:id/adjustments/:proposalId/approve', async (ctx) => {
    const b = parseWith(schemas.adjustmentApproval, bodyOf(ctx));
    const m = merchant(ctx);
    const proposal = m.adjustmentProposals?.find((p) => p.id === ctx.params.proposalId);
    // A proposal that does not wait (unknown, lapsed) and an amount other than its own spend no step-up; a retry,
    // whose first run approved it (so it no longer waits), is replayed without either.
    const check = () => {
      const waiting = waitingAdjustmentProposal(m, ctx.params.proposalId!, now());
      refuseIf(isRejection(waiting) ? waiting : adjustmentMismatch(waiting, amountOf(b.amount_minor)));
    };
    await runSteppedUp(ctx, { type: 'ApproveAdjustment', actor: actorOf(ctx), merchantId: m.id, proposalId: ctx.params.proposalId!, amountMinor: amountOf(b.amount_minor) }, (id) =>
      adjustmentAnswer(ctx, m.id, id!, { livemode: proposal!.livemode, direction: 'credit', bucket: 'available', amountMinor: Number(proposal!.amountMinor), reasonCode: proposal!.reasonCode, reason: proposal!.reason, proposedBy: proposal!.proposedBy }), check);
  });

  /** The 201 of a posted adjustment: the balance transaction, with who posted it (and proposed it, after four eyes). */
  const adjustmentAnswer = (ctx: Context, merchantId: string, btxnId: string, a: { livemode: boolean; direction: 'credit' | 'debit'; bucket: string; amountMinor: number; reasonCode: string; reason: string; proposedBy?: string }) => {
    const id = balanceTransactionIdOf(btxnId, a.livemode); // as the merchant's balance.credited and history row name it
    return { status: 201, body: {
      id, object: 'balance_transaction', livemode: a.livemode, type: 'adjustment', direction: a.direction, amount_minor: a.amountMinor, currency: 'THB',
      bucket_from: a.direction === 'debit' ? a.bucket : null, bucket_to: a.direction === 'credit' ? a.bucket : null,
      // source as the merchant's copy names it (the adjustment itself); who posted it apart.
      balance_after: presentBalances(world().balances(merchantId, a.livemode)), source: { type: 'adjustment', id }, posted_by: operatorOf(ctx).sub,
      ...(a.proposedBy !== undefined ? { proposed_by: a.proposedBy } : {}),
      reason_code: a.reasonCode, reason_display_th: adjustmentReasons[a.reasonCode], note: a.reason, created_at: iso(services.write.clock.now()),
    } };
  };

  router.post('/deposits/:id/approve', async (ctx) => {
    const b = parseWith(schemas.approval, bodyOf(ctx));
    await run(ctx, {
      type: 'ApproveDepositReview', actor: actorOf(ctx), depositId: ctx.params.id!, note: b.note ?? '', ...(b.version !== undefined ? { expectedVersion: b.version } : {}),
      ...(b.amount_minor !== undefined ? { transferredAmountMinor: amountOf(b.amount_minor) } : {}),
      ...(b.legs !== undefined ? { legAmounts: b.legs.map((l, i) => ({ legRef: l.leg_ref, amountMinor: amountOf(l.amount_minor, `legs.${i}.amount_minor`) })) } : {}),
    }, (id) => ({ status: 200, body: presentDeposit(world().deposits.get(id!)!, { withdrawalOf: world().withdrawalOf }) }));
  });

  router.post('/deposits/:id/decline', async (ctx) => {
    const b = parseWith(schemas.optionalNote, bodyOf(ctx)); // the core refuses a missing or short note (review_note_required)
    await run(ctx, { type: 'DeclineDepositReview', actor: actorOf(ctx), depositId: ctx.params.id!, note: b.note ?? '' }, (id) => ({ status: 200, body: presentDeposit(world().deposits.get(id!)!, { withdrawalOf: world().withdrawalOf }) }));
  });

  // The gateway (fallback route) confirming a transfer after the order closed; the order
  // goes to review with LATE_ROUTE_CONFIRMATION. The gateway's feed posts here with an
  // operator token of its own until a dedicated integration exists.
  router.post('/deposits/:id/route-confirmations', async (ctx) => {
    const b = parseWith(schemas.routeConfirmation, bodyOf(ctx));
    await run(ctx, { type: 'ConfirmGatewayRoute', actor: actorOf(ctx), depositId: ctx.params.id!, transRef: b.trans_ref, amountMinor: amountOf(b.amount_minor) },
      (id) => ({ status: 200, body: presentDeposit(world().deposits.get(id!)!, { withdrawalOf: world().withdrawalOf }) }));
  });

  router.post('/deposits/:id/reverse', async (ctx) => {
    const b = parseWith(schemas.reversal, bodyOf(ctx));
    if (!reversalReasonCodes.includes(b.reason_code as ReversalReasonCode)) throw new ApiError('validation_error', 'Unknown reason_code.', { fields: [{ path: 'reason_code', reason: 'enum', hint: reversalReasonCodes.join(', ') }] });
    const note = b.note ?? '';
    // A note too short is the body's fault, an unknown or unsettled deposit the target's, and a claim's refund paying the
    // payer out or paid without claim_refunds, or a bucket holding less than the credit, the operator mends (cancel it; say
    // recover_from_payer; top it up): answered before the step-up, which they do not spend (the handler decides them all
    // again, in the command); the body's 422 first.
    const claimRefunds = b.claim_refunds ? { claimRefunds: b.claim_refunds } : {};
    await runSteppedUp(ctx, { type: 'ReverseDeposit', actor: actorOf(ctx), depositId: ctx.params.id!, reasonCode: b.reason_code as ReversalReasonCode, note, ...claimRefunds },
      (id) => ({ status: 200, body: presentDeposit(world().deposits.get(id!)!, { withdrawalOf: world().withdrawalOf }) }), () => {
        refuseIf(checkNote(note, 'A reversal'));
        const d = world().deposits.get(ctx.params.id!);
        if (!d) throw notFound('deposit');
        refuseIf(reversalRefusal(d, { ...reversalFacts(worldReads(world(), now()), d), ...claimRefunds }));
      });
  });

  router.post('/withdrawals/:id/approve', async (ctx) => {
    const b = parseWith(schemas.optionalNote, bodyOf(ctx));
    await run(ctx, { type: 'ApproveWithdrawal', actor: actorOf(ctx), withdrawalId: ctx.params.id!, ...(b.note ? { note: b.note } : {}) }, (id) => ({ status: 200, body: presentWithdrawal(world().withdrawals.get(id!)!) }));
  });

  // A withdrawal called off by an operator (a claim's refund to stop: its merchant may not),
  // its lock released; money leaves a lock, so a step-up, as for a refund's payout.
  router.post('/withdrawals/:id/cancel', async (ctx) => {
    const b = parseWith(schemas.optionalNote, bodyOf(ctx));
    if (!world().withdrawals.has(ctx.params.id!)) throw notFound('withdrawal'); // spends no step-up (a withdrawal is never removed; the core checks it too)
    await requireStepUp(ctx);
    await run(ctx, { type: 'CancelWithdrawal', actor: actorOf(ctx), withdrawalId: ctx.params.id!, ...(b.note ? { note: b.note } : {}) }, (id) => ({ status: 200, body: presentWithdrawal(world().withdrawals.get(id!)!) }));
  });

  router.post('/withdrawals/:id/reject', async (ctx) => {
    const b = parseWith(schemas.optionalNote, bodyOf(ctx));
    await run(ctx, { type: 'RejectWithdrawal', actor: actorOf(ctx), withdrawalId: ctx.params.id!, ...(b.note ? { note: b.note } : {}) }, (id) => ({ status: 200, body: presentWithdrawal(world().withdrawals.get(id!)!) }));
  });

  // The service's time: a manual test clock runs apart from the operator's, and the console's "today" is the service's.
  router.get('/clock', (ctx) => {
    readQuery(ctx, []);
    ctx.body = presentClock(services.write.clock.now(), services.write.advanceClock ? 'manual' : 'system');
  });

  // An advance is relative and no core command: its Idempotency-Key, required as on every
  // operator POST, is kept in journal.db with where the clock stopped (server/main.ts), so a
  // retried advance — after a restart too — answers what the first did instead of moving the
  // clock again; a second advance under the same key while the first runs is in flight.
  router.post('/clock/advance', async (ctx) => {
    idempotencyKeyOf(ctx); // a missing key is said before the body is judged
    const b = parseWith(schemas.advance, bodyOf(ctx));
    const advanceClock = services.write.advanceClock;
    if (!advanceClock) throw new ApiError('operation_not_allowed', 'The clock can be advanced only when SATANG_CLOCK=manual.');
    await runIdempotentOwn(ctx, services, operatorScope(ctx), async (keep) => {
      checkClockRoom(services.write.clock.now(), b.seconds);
      let response: Response | undefined;
      // The request, so that its retry after a crash cut it goes on to the same instant.
      const request = `${operatorScope(ctx)}\u0000${idempotencyKeyOf(ctx)}\u0000${b.seconds}`;
      await advanceClock(b.seconds * 1000, (nowMs) => keep(response = { status: 200, body: presentClock(nowMs, 'manual') }), request);
      return response!;
    });
  });

  // The live credits waiting for a second operator (lapsed ones are not listed: they can no longer be approved).
  router.get('/merchants/:id/adjustment-proposals', (ctx) => {
    readQuery(ctx, []);
    const m = merchant(ctx);
    const waiting = waitingAdjustmentProposals(m, services.write.clock.now());
    ctx.body = { object: 'list', merchant_id: m.id, data: waiting.map((p) => presentAdjustmentProposal(m.id, p)) };
  });

  // Every merchant's live credits waiting for a second operator, oldest first (the approvals page's
  // list of waiting work: an approver should not have to open each merchant to find one), each with
  // its merchant's name; lapsed ones are left out as above.
  router.get('/adjustment-proposals', (ctx) => {
    const q = readQuery(ctx, ['cursor', 'limit']);
    const now = services.write.clock.now();
    const rows = [...world().merchants.values()].flatMap((m) => waitingAdjustmentProposals(m, now).map((p) => ({ m, p })));
    const { page, hasMore, next } = pageOf(rows, ({ p }) => ({ since: p.proposedAt, id: p.id }), q, JSON.stringify(['adjustment_proposals']));
    ctx.body = {
      object: 'list', has_more: hasMore, next_cursor: next, total: rows.length, as_of: iso(now),
      data: page.map(({ m, p }) => ({ ...presentAdjustmentProposal(m.id, p), merchant_name: m.name })),
    };
  });

  router.get('/merchants/:id/balance', (ctx) => {
    readQuery(ctx, []); // both modes, always: a livemode= here is refused, not ignored
    const m = merchant(ctx);
    // The merchant's own balance object is 'balance', one mode; this one holds both, read at as_of as GET /v1/bo/wallet's.
    ctx.body = {
      object: 'merchant_balance', merchant_id: m.id, live: presentBalances(world().balances(m.id, true)), sandbox: presentBalances(world().balances(m.id, false)),
      as_of: iso(services.write.clock.now()),
    };
  });

  return router;
}

/** The request schemas, for the OpenAPI document (server/openapi/). */
export { schemas as backOfficeSchemas };
