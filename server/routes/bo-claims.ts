// Claims in the back office (DESIGN.md "Claims"): open one by hand, list them (kind,
// status, deposit, merchant, a refund the payer owes back, what the payee owes, a payer debt written off, mode; oldest first, cursor paging),
// read one with every decision and its refund withdrawal (each with its merchant_name), and one route per transition
// (review, refund, payout, close, reject), each an idempotent operator command the claim
// decider rules on; and the write-off of what a claim's payer owes back, proposed by one
// finance operator and approved by another (core/claim/write-off.ts), each with a step-up
// that a refused request does not spend.

import Router from '@koa/router';
import type { Context } from 'koa';
import { claimTransitions, type ClaimTransition } from '../../core/claim/decide.ts';
import { claimKinds, claimStatuses, owedByPayeeOf, type Claim, type ClaimKind, type ClaimStatus } from '../../core/claim/state.ts';
import { approvalRefusal, proposalRefusal } from '../../core/claim/write-off.ts';
import { limits } from '../../core/limits.ts';
import { presentClaim, presentWithdrawal } from '../../core/present.ts';
import { operatorAuth, operatorOf } from '../auth/operator.ts';
import type { Command } from '../../core/handler/commands.ts';
import { refundTermsRefusalOf, worldReads } from '../../core/handler/claims.ts';
import { ApiError } from '../errors.ts';
import type { Services } from '../ports.ts';
import { runIdempotent } from '../idempotency.ts';
import { compile } from '../validate.ts';
import { visible, writtenText } from '../schemas.ts';
import { amountOf, bodyOf, durableRead, noteBeforeStepUp, notFound, parseWith, operatorScope, refusedBeforeStepUp } from './common.ts';
import { booleanParam, enumParam, readQuery } from './read-params.ts';
import { pageOf } from './bo-desk.ts';

export const claimSchemas = {
  open: compile<{ kind: ClaimKind; deposit_id: string; amount_minor: number; note?: string; evidence?: string }>({
    // A missing note is a note too short: review_note_required, as on every decision.
    type: 'object', additionalProperties: false, required: ['kind', 'deposit_id', 'amount_minor'],
    properties: {
      kind: { enum: [...claimKinds] }, deposit_id: { type: 'string', minLength: 1, maxLength: 64 }, amount_minor: { type: 'integer', minimum: 1 },
      note: { type: 'string', maxLength: limits.noteLengthMax, pattern: writtenText }, evidence: { type: 'string', maxLength: limits.noteLengthMax, pattern: writtenText },
    },
  }),
  decide: compile<{ note?: string; amount_minor?: number; refund_account?: { bank_code: string; account_number: string; account_name_th: string } }>({
    type: 'object', additionalProperties: false, required: [],
    properties: {
      note: { type: 'string', maxLength: limits.noteLengthMax, pattern: writtenText }, amount_minor: { type: 'integer', minimum: 1 },
      // The refund's account when it is not the order's sender (the transfer came from another): the payer's, as they confirmed it.
      refund_account: {
        type: 'object', additionalProperties: false, required: ['bank_code', 'account_number', 'account_name_th'],
        properties: { bank_code: { type: 'string', pattern: '^[0-9]{3}$' }, account_number: { type: 'string', pattern: '^[0-9]{6,20}$' }, account_name_th: { type: 'string', minLength: 1, maxLength: 140, pattern: visible, 'x-readable': true } },
      },
    },
  }),
  // A write-off of what the payer owes back: all of it without amount_minor; the note says why.
  writeOff: compile<{ amount_minor?: number; note?: string }>({
    type: 'object', additionalProperties: false, required: [],
    properties: { amount_minor: { type: 'integer', minimum: 1 }, note: { type: 'string', maxLength: limits.noteLengthMax, pattern: writtenText } },
  }),
  // The second operator names the amount as they read it in the proposal.
  writeOffApproval: compile<{ amount_minor: number; note?: string }>({
    type: 'object', additionalProperties: false, required: ['amount_minor'],
    properties: { amount_minor: { type: 'integer', minimum: 1 }, note: { type: 'string', maxLength: limits.noteLengthMax, pattern: writtenText } },
  }),
};

export function backOfficeClaimRoutes(services: Services, verify: Parameters<typeof operatorAuth>[0]): Router {
  const router = new Router({ prefix: '/v1/bo', sensitive: true });
  router.use(operatorAuth(verify));
  const world = () => services.write.world;
  const operator = (ctx: Context) => ({ kind: 'operator' as const, operatorId: operatorOf(ctx).sub });
  // A claim with its merchant's name, read from the directory by the claim's merchant id (a
  // name search would also match a merchant whose name holds that id), as the approvals queue names a withdrawal's.
  const claimRow = (c: Claim) => ({ ...presentClaim(c, services.write.clock.now()), merchant_name: world().merchants.get(c.merchantId)?.name ?? null });
  const claimView = (id: string) => {
    const c = world().claims.get(id);
    if (!c) throw notFound('claim');
    const refund = c.refundWithdrawalId ? world().withdrawals.get(c.refundWithdrawalId) : undefined;
    return { ...claimRow(c), refund_withdrawal: refund ? presentWithdrawal(refund) : null };
  };

  router.post('/claims', async (ctx) => {
    const b = parseWith(claimSchemas.open, bodyOf(ctx));
    await runIdempotent(ctx, services, operatorScope(ctx, b.deposit_id), {
      type: 'OpenClaim', actor: operator(ctx), kind: b.kind, depositId: b.deposit_id, amountMinor: amountOf(b.amount_minor), note: b.note ?? '', ...(b.evidence !== undefined ? { evidence: b.evidence } : {}),
    }, (id) => ({ status: 201, body: claimView(id!) }));
  });

  router.get('/claims', (ctx) => {
    const q = readQuery(ctx, ['kind', 'status', 'deposit_id', 'merchant_id', 'owed_by_payer', 'owed_by_payee', 'written_off', 'livemode', 'cursor', 'limit']);
    const kind = enumParam<ClaimKind>(q.kind, 'kind', claimKinds);
    const status = enumParam<ClaimStatus>(q.status, 'status', claimStatuses);
    // The claims whose payer owes a refund back (owed_by_payer_minor), or only the others: the trial balance's owed_by_payers line, claim by claim.
    const owedByPayer = booleanParam(q.owed_by_payer, 'owed_by_payer');
    // The claims whose payee owes the service what their refunds paid (owed_by_payee_minor), or the others: the owed_by_payees line, claim by claim.
    const owedByPayee = booleanParam(q.owed_by_payee, 'owed_by_payee');
    // The claims whose payer's debt finance wrote off in part or whole (written_off_minor), or the others: the payer_debts_written_off line, claim by claim.
    const writtenOff = booleanParam(q.written_off, 'written_off');
    // One mode's claims (live and sandbox are separate ledgers, as the trial balance's sections), as the deposit and withdrawal queues take it.
    const livemode = booleanParam(q.livemode, 'livemode');
    const filters = JSON.stringify(['claims', kind ?? null, status ?? null, q.deposit_id ?? null, q.merchant_id ?? null, owedByPayer ?? null, owedByPayee ?? null, writtenOff ?? null, livemode ?? null]);
    const rows = [...world().claims.values()].filter((c) => (kind === undefined || c.kind === kind) && (status === undefined || c.status === status)
      && (q.deposit_id === undefined || c.depositId === q.deposit_id) && (q.merchant_id === undefined || c.merchantId === q.merchant_id)
      && (owedByPayer === undefined || ((c.owedByPayerMinor ?? 0n) > 0n) === owedByPayer) && (owedByPayee === undefined || (owedByPayeeOf(c) > 0n) === owedByPayee)
      && (writtenOff === undefined || ((c.writtenOffMinor ?? 0n) > 0n) === writtenOff) && (livemode === undefined || c.livemode === livemode));
    const { page, hasMore, next } = pageOf(rows, (c) => ({ since: c.createdAt, id: c.id }), q, filters);
    ctx.body = { object: 'list', data: page.map(claimRow), has_more: hasMore, next_cursor: next };
  });

  router.get('/claims/:id', async (ctx) => {
    readQuery(ctx, []);
    await durableRead(services, ctx.params.id!);
    ctx.body = claimView(ctx.params.id!);
  });

  for (const transition of Object.keys(claimTransitions) as ClaimTransition[]) {
    router.post(`/claims/:id/${transition}`, async (ctx) => {
      // A refund's approval and its payout move money out of suspense: step-up, as for adjustments.
      const b = parseWith(claimSchemas.decide, bodyOf(ctx));
      const command: Extract<Command, { type: 'DecideClaim' }> = {
        type: 'DecideClaim', actor: operator(ctx), claimId: ctx.params.id!, transition, note: b.note ?? '', ...(b.amount_minor !== undefined ? { amountMinor: amountOf(b.amount_minor) } : {}),
        ...(b.refund_account && transition === 'refund' ? { refundAccount: { bankCode: b.refund_account.bank_code, accountNumber: b.refund_account.account_number, accountNameTh: b.refund_account.account_name_th } } : {}),
      };
      // Before the step-up, which they do not spend: a claim there is not, and a refund refused for its account or amount,
      // which the operator mends in the request (the command decides them again).
      const found = () => {
        if (!world().claims.has(ctx.params.id!)) throw notFound('claim');
        const terms = refundTermsRefusalOf(worldReads(world(), services.write.clock.now()), command);
        if (terms) throw ApiError.from(terms);
      };
      await runIdempotent(ctx, services, operatorScope(ctx), command, (id) => ({ status: 200, body: claimView(id!) }),
        transition === 'refund' || transition === 'payout' ? { admit: noteBeforeStepUp(ctx, b.note ?? '', 'Every claim decision', found) } : {});
    });
  }

  // Writing off what the payer owes back: a proposal (202, the claim with its write_off_proposal), then another finance operator's approval.
  router.post('/claims/:id/write-offs', async (ctx) => {
    const b = parseWith(claimSchemas.writeOff, bodyOf(ctx));
    const claimId = ctx.params.id!;
    const amount = b.amount_minor !== undefined ? { amountMinor: amountOf(b.amount_minor) } : {};
    const note = b.note ?? '';
    await runIdempotent(ctx, services, operatorScope(ctx), { type: 'ProposeWriteOff', actor: operator(ctx), claimId, note, ...amount }, (id) => ({ status: 202, body: claimView(id!) }), {
      admit: refusedBeforeStepUp(ctx, () => proposalRefusal({ type: 'ProposeWriteOff', at: services.write.clock.now(), operatorId: operatorOf(ctx).sub, note, proposalId: '', ...amount }, world().claims.get(claimId))),
    });
  });

  router.post('/claims/:id/write-offs/:proposalId/approve', async (ctx) => {
    const b = parseWith(claimSchemas.writeOffApproval, bodyOf(ctx));
    const claimId = ctx.params.id!;
    const approval = { proposalId: ctx.params.proposalId!, amountMinor: amountOf(b.amount_minor), ...(b.note !== undefined ? { note: b.note } : {}) };
    await runIdempotent(ctx, services, operatorScope(ctx), { type: 'ApproveWriteOff', actor: operator(ctx), claimId, ...approval }, (id) => ({ status: 200, body: claimView(id!) }), {
      admit: refusedBeforeStepUp(ctx, () => approvalRefusal({ type: 'ApproveWriteOff', at: services.write.clock.now(), operatorId: operatorOf(ctx).sub, ...approval }, world().claims.get(claimId))),
    });
  });

  return router;
}
