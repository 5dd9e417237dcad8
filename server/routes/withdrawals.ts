// /v1/pay/withdrawals (create, get with fills[] and dispute, cancel), dispute evidence,
// balance, quote, banks, senders and beneficiaries. The live_p2p profile narrows the
// surface as the contract's Deployment profile says: beneficiary_id only, two approvals,
// the P2P minimum, and no beneficiary or quote APIs (403 feature_not_enabled).

import Router from '@koa/router';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Context } from 'koa';
import { bankDownMessageThDefault, banks } from '../../core/directory.ts';
import { foldThaiName } from '../../core/thai-names.ts';
import { isRejection } from '../../core/errors.ts';
import { minorToJson, withdrawalQuote } from '../../core/money.ts';
import { limits } from '../../core/limits.ts';
import { iso, maskAccountNumber, maskName, presentBalances, presentBeneficiary, presentDispute, presentWithdrawal } from '../../core/present.ts';
import type { Withdrawal } from '../../core/withdrawal/state.ts';
import { DiskSlipStore } from '../../adapters/slips/store.ts';
import { merchantAuth, merchantOf, requireScope } from '../auth/merchant.ts';
import { detectMediaType } from '../slips/magic.ts';
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import { runIdempotent } from '../idempotency.ts';
import type { Services } from '../ports.ts';
import { cancelBody, createBeneficiaryBody, createWithdrawalBody, disputeEvidenceBody, emptyBody, emptyQuery, quoteQuery, sendersQuery } from '../schemas.ts';
import { amountOf, bodyOf, durableRead, merchantScope, ownedBy, parseWith, queryOf } from './common.ts';

/** Two spellings of one name: the same letters, whatever the Unicode form, the Thai spelling (thai-names.ts) and the spaces between words. */
const sameName = (a: string, b: string): boolean => {
  const plain = (n: string) => foldThaiName(n).trim().replace(/\s+/gu, ' ');
  return plain(a) === plain(b);
};

export function walletRoutes(services: Services, config: Config): Router {
  const router = new Router({ prefix: '/v1/pay', sensitive: true });
  router.use(merchantAuth(services));
  // The world is read afresh on every use: a store may rebuild it (server/ports.ts WriteSide).
  const world = () => services.write.world;
  const p2p = config.profile === 'live_p2p';
  const featureOff = (what: string) => new ApiError('feature_not_enabled', `${what} is not enabled in this deployment profile.`);
  const evidenceFiles = new DiskSlipStore(join(config.dataDir, 'slips'));

  const visible = (ctx: Context, id: string): Withdrawal => {
    const m = merchantOf(ctx);
    return ownedBy(m, world().withdrawals.get(id), 'withdrawal');
  };

  router.post('/withdrawals', async (ctx) => {
    const m = requireScope(ctx, 'withdrawals:write');
    const body = parseWith(createWithdrawalBody, bodyOf(ctx));
    let beneficiaryId = body.beneficiary_id;
    if (body.beneficiary) {
      if (p2p) throw featureOff('An inline beneficiary');
      if (beneficiaryId) throw new ApiError('validation_error', 'Give either beneficiary_id or beneficiary, not both.', { fields: [{ path: 'beneficiary', reason: 'conflict' }] });
      const inline = body.beneficiary;
      const known = [...world().beneficiaries.values()].find((b) => b.merchantId === m.merchantId && b.livemode === m.livemode && b.bankCode === inline.bank_code && b.accountNumber === inline.account_number && b.status === 'verified');
      if (!known) throw new ApiError('beneficiary_not_verified', 'This account is not a verified beneficiary yet; register it and wait for beneficiary.verified.');
      // The payee as given must be the one verified: a mistyped name or PromptPay id is not paid to whoever holds the number.
      const differs = [
        ...(sameName(inline.account_name_th, known.accountNameTh) ? [] : ['account_name_th']),
        ...(inline.promptpay_id !== undefined && inline.promptpay_id !== known.promptpayId ? ['promptpay_id'] : []),
      ];
      if (differs.length > 0) {
        throw new ApiError('beneficiary_not_verified', `This account is verified under another ${differs.join(' and ')}; give the payee exactly as verified (beneficiary ${known.id}), or register the account anew.`, {
          beneficiary_id: known.id, fields: differs.map((path) => ({ path: `beneficiary.${path}`, reason: 'not_as_verified' })),
        });
      }
      beneficiaryId = known.id;
    }
    if (!beneficiaryId) throw new ApiError('validation_error', 'beneficiary_id is required.', { fields: [{ path: 'beneficiary_id', reason: 'required' }] });
    await runIdempotent(ctx, services, merchantScope(m), {
      type: 'CreateWithdrawal', actor: { kind: 'merchant', merchantId: m.merchantId, livemode: m.livemode },
      amountMinor: amountOf(body.amount_minor), merchantReference: body.merchant_reference, endUserRef: body.end_user_ref,
      beneficiaryId, requiresApproval: p2p, p2pMinimumApplies: p2p, ...(body.metadata ? { metadata: body.metadata } : {}),
    }, (id) => ({ status: 201, body: presentWithdrawal(world().withdrawals.get(id!)!) }), { minLength: limits.withdrawalIdempotencyKeyLengthMin });
  });

  router.get('/withdrawals/:id', async (ctx) => {
    requireScope(ctx, 'withdrawals:read');
    parseWith(emptyQuery, queryOf(ctx));
    await durableRead(services, ctx.params.id!);
    ctx.body = presentWithdrawal(visible(ctx, ctx.params.id!), { withReceipts: true });
  });

  router.post('/withdrawals/:id/cancel', async (ctx) => {
    const m = requireScope(ctx, 'withdrawals:write');
    parseWith(cancelBody, bodyOf(ctx));
    const w = visible(ctx, ctx.params.id!);
    await runIdempotent(ctx, services, merchantScope(m), { type: 'CancelWithdrawal', actor: { kind: 'merchant', merchantId: m.merchantId, livemode: m.livemode }, withdrawalId: w.id },
      () => ({ status: 200, body: presentWithdrawal(world().withdrawals.get(w.id)!) }));
  });

  // The payee says the money arrived (contract: "any | payee confirms receipt |
  // withdrawal.receipt_confirmed"): the merchant, whose end user the payee is, records it
  // before auto_confirm_at does. Once confirmed (or reversed) it is a replay of nothing.
  router.post('/withdrawals/:id/fills/:legRef/confirm', async (ctx) => {
    const m = requireScope(ctx, 'withdrawals:write');
    parseWith(emptyBody, bodyOf(ctx));
    const w = visible(ctx, ctx.params.id!);
    await runIdempotent(ctx, services, merchantScope(m), { type: 'ConfirmReceipt', actor: { kind: 'merchant', merchantId: m.merchantId, livemode: m.livemode }, withdrawalId: w.id, legRef: ctx.params.legRef! },
      () => ({ status: 200, body: presentWithdrawal(world().withdrawals.get(w.id)!, { withReceipts: true }) }));
  });

  router.post('/disputes/:id/evidence', async (ctx) => {
    // Speaking for the merchant in a dispute over a payout is a payout write.
    const m = requireScope(ctx, 'withdrawals:write');
    const body = parseWith(disputeEvidenceBody, bodyOf(ctx));
    const withdrawalId = world().withdrawalByDispute.get(ctx.params.id!);
    const w = ownedBy(m, withdrawalId ? world().withdrawals.get(withdrawalId) : undefined, 'dispute');
    // Each file's bytes are kept in the slip store under an id of their own (the operator
    // deciding the dispute downloads them), on disk before the journal names them.
    const files = (body.files ?? []).map((f) => ({ name: f.name, bytes: Buffer.from(f.content_base64, 'base64'), fileId: `dfile_${randomBytes(16).toString('hex')}` }));
    const undo = async () => { await Promise.all(files.map((f) => evidenceFiles.removeFile(f.fileId))); };
    await runIdempotent(ctx, services, merchantScope(m), {
      type: 'SubmitDisputeEvidence', actor: { kind: 'merchant', merchantId: m.merchantId, livemode: m.livemode }, disputeId: ctx.params.id!, text: body.text, fileCount: files.length,
      files: files.map((f) => ({ name: f.name, bytes: f.bytes.length, fileId: f.fileId, sha256: createHash('sha256').update(f.bytes).digest('hex'), mediaType: detectMediaType(f.bytes) ?? 'application/octet-stream' })),
    }, () => {
      const after = world().withdrawals.get(w.id)!;
      return { status: 200, body: after.dispute ? presentDispute(after.dispute, after.livemode) : null };
    }, {
      staged: {
        write: async () => {
          try {
            await Promise.all(files.map((f) => evidenceFiles.putFile(f.fileId, f.bytes)));
          } catch {
            await undo();
            throw new ApiError('service_unavailable', 'The evidence files could not be stored; nothing was recorded. Retry with the same Idempotency-Key.', undefined, 1);
          }
        },
        undo,
      },
    });
  });

  router.get('/balance', (ctx) => {
    const m = requireScope(ctx, 'wallet:read');
    parseWith(emptyQuery, queryOf(ctx));
    ctx.body = { object: 'balance', livemode: m.livemode, ...presentBalances(world().balances(m.merchantId, m.livemode)), currency: 'THB', as_of: iso(services.write.clock.now()) };
  });

  router.get('/quote', (ctx) => {
    const m = merchantOf(ctx);
    if (p2p) throw featureOff('The merchant quote');
    const q = parseWith(quoteQuery, queryOf(ctx));
    const wl = world().whiteLabels.get(m.whiteLabelId)!;
    const quote = withdrawalQuote(wl.fees, wl.amounts, amountOf(Number(q.amount_minor), 'query.amount_minor'));
    if (isRejection(quote)) throw ApiError.from(quote);
    ctx.body = {
      object: 'quote', livemode: m.livemode, channel: quote.channel, amount_minor: minorToJson(quote.amountMinor), fee_total_minor: minorToJson(quote.fee.totalMinor),
      total_minor: minorToJson(quote.totalMinor), currency: 'THB',
      fee_breakdown: quote.fee.breakdown.map((l) => ({ component: l.component, amount_minor: minorToJson(l.amountMinor), ...(l.rateBps !== undefined ? { rate_bps: l.rateBps } : {}) })),
    };
  });

  router.get('/banks', (ctx) => {
    const m = merchantOf(ctx);
    parseWith(emptyQuery, queryOf(ctx));
    const down = world().banksDown(m.livemode);
    ctx.body = {
      object: 'list',
      data: banks.map((b) => {
        const unavailable = down.has(b.bankCode);
        return { bank_code: b.bankCode, name_th: b.nameTh, name_en: b.nameEn, available: !unavailable, ...(unavailable ? { message_th: down.get(b.bankCode) ?? bankDownMessageThDefault } : {}), side: [...b.side] };
      }),
    };
  });

  router.get('/senders', (ctx) => {
    const m = merchantOf(ctx);
    const q = parseWith(sendersQuery, queryOf(ctx));
    const data = [...world().senders.values()]
      .filter((s) => s.merchantId === m.merchantId && s.livemode === m.livemode && s.endUserRef === q.end_user_ref)
      .map((s) => ({ sender_id: s.id, livemode: s.livemode, bank_code: s.bankCode, account_number_masked: maskAccountNumber(s.accountNumber), account_name_th_masked: maskName(s.accountNameTh), verified_at: iso(s.verifiedAt) }));
    ctx.body = { object: 'list', data, has_more: false };
  });

  router.post('/beneficiaries', async (ctx) => {
    // Adding where payouts may go is a payout write: not for a key handed to a reporting system.
    const m = requireScope(ctx, 'withdrawals:write');
    if (p2p) throw featureOff('Beneficiary registration');
    const body = parseWith(createBeneficiaryBody, bodyOf(ctx));
    await runIdempotent(ctx, services, merchantScope(m), {
      type: 'RegisterBeneficiary', actor: { kind: 'merchant', merchantId: m.merchantId, livemode: m.livemode }, merchantId: m.merchantId, livemode: m.livemode,
      bankCode: body.bank_code, accountNumber: body.account_number, accountNameTh: body.account_name_th, verified: false, ...(body.promptpay_id ? { promptpayId: body.promptpay_id } : {}),
    }, (id) => ({ status: 201, body: presentBeneficiary(world().beneficiaries.get(id!)!) }));
  });

  router.get('/beneficiaries/:id', async (ctx) => {
    const m = requireScope(ctx, 'withdrawals:read');
    if (p2p) throw featureOff('Beneficiary registration');
    parseWith(emptyQuery, queryOf(ctx));
    await durableRead(services, ctx.params.id!);
    const b = ownedBy(m, world().beneficiaries.get(ctx.params.id!), 'beneficiary');
    ctx.body = presentBeneficiary(b);
  });

  return router;
}
