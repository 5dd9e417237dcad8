// The command handler: load → decide → append. handle() is pure: it reads the world,
// decides, and returns the commit (or the refusal) without changing anything.
// CommandHandler is the same written against the ports: it applies an accepted commit to
// the world at once (so the next command of the same event-loop turn decides against it)
// and hands it to the Journal, which makes it durable before any answer goes out; a
// journal that fails to write rebuilds the world from what is on disk.

import { decide as decideDeposit } from '../deposit/decide.ts';
import { checkMerchantCredit, defaultAmountPolicy, defaultFeeSchedule, minorToJson } from '../money.ts';
import { sandboxRunGenerationMax, sandboxRunGenerationOf } from '../directory.ts';
import { reject } from '../errors.ts';
import { limits } from '../limits.ts';
import type { Commit } from '../journal.ts';
import type { Clock, CommitMeta, Ids, Journal } from '../ports.ts';
import type { World } from '../world.ts';
import { merchantEvents } from '../outbox.ts';
import type { Command } from './commands.ts';
import { createDeposit, runDeposit, settleContext, visibleDeposit } from './deposits.ts';
import { runToQuiescence } from './react.ts';
import type { Outcome, Step } from './reactions.ts';
import { createWithdrawal, disputeWithdrawal, refundIds, runWithdrawal, visibleWithdrawal } from './withdrawals.ts';
import { Tx } from './tx.ts';
import type { VerificationFacts } from '../deposit/verification.ts';
import { reversalReasonCodes } from '../deposit/state.ts';
import { adjustmentPostings } from '../ledger/postings.ts';

export type { Outcome };

export interface Handled {
  readonly outcome: Outcome;
  /** Present when the command was accepted; may hold no entries (nothing to change). */
  readonly commit?: Commit;
}

const notFound = (what: string): Outcome => ({ ok: false, rejection: reject('resource_not_found', `No such ${what}.`) });

export function handle(world: World, command: Command, at: number, ids: Ids): Handled {
  const tx = new Tx(world, ids, at);
  const outcome = runToQuiescence(tx, route(tx, command));
  if (command.type === 'FireTimer' && (!outcome.ok || tx.entries.length === 0)) {
    // A timer command is never refused to its scheduler: one that is refused or changes
    // nothing is dropped (its aggregate's next change derives it again if still wanted).
    return { outcome: { ok: true }, commit: { entries: [], timers: { set: [], clear: [command.timerId] } } };
  }
  if (!outcome.ok) return { outcome };
  return { outcome, commit: { entries: tx.entries, timers: tx.timerChanges(), states: { deposits: tx.deposits, withdrawals: tx.withdrawals } } };
}

function route(tx: Tx, c: Command): Step {
  const at = tx.at;
  switch (c.type) {
    case 'RegisterWhiteLabel': {
      const id = tx.ids.next('wl');
      tx.emitRecord(id, 'white_label', null, null, {
        type: 'WhiteLabelRegistered', at, whiteLabel: { id, name: c.name, fees: c.fees ?? defaultFeeSchedule, amounts: c.amounts ?? defaultAmountPolicy, createdAt: at },
      });
      return { ok: true, objectId: id };
    }
    case 'SetGatewayRoute': {
      if (!tx.world.whiteLabels.has(c.whiteLabelId)) return notFound('white label');
      tx.emitRecord(c.whiteLabelId, 'white_label', null, null, {
        type: 'GatewayRouteSet', at, whiteLabelId: c.whiteLabelId,
        route: { bankCode: c.bankCode, accountNumber: c.accountNumber, accountName: c.accountName, expiresAt: at + c.ttlSeconds * 1000 },
      });
      return { ok: true, objectId: c.whiteLabelId };
    }
    case 'RegisterMerchant': {
      if (!tx.world.whiteLabels.has(c.whiteLabelId)) {
        return { ok: false, rejection: reject('validation_error', 'Unknown white label.', { fields: [{ path: 'white_label_id', reason: 'not_found' }] }) };
      }
      const id = tx.ids.next('mch');
      tx.emitRecord(id, 'merchant', null, id, {
        type: 'MerchantRegistered', at,
        merchant: { id, whiteLabelId: c.whiteLabelId, name: c.name, suspended: false, createdAt: at, ...(c.technicalContactEmail ? { technicalContactEmail: c.technicalContactEmail } : {}) },
      });
      return { ok: true, objectId: id };
    }
    case 'SetMerchantSuspended': {
      const m = tx.world.merchants.get(c.merchantId);
      if (!m) return notFound('merchant');
      if (m.suspended !== c.suspended) tx.emitRecord(m.id, 'merchant', null, m.id, { type: 'MerchantSuspensionChanged', at, merchantId: m.id, suspended: c.suspended });
      return { ok: true, objectId: m.id };
    }
    case 'ResetSandboxRun': {
      const m = tx.world.merchants.get(c.actor.merchantId);
      if (!m) return notFound('merchant');
      if (c.actor.livemode) return { ok: false, rejection: reject('operation_not_allowed', 'A sandbox run is reset with a sandbox key only.') };
      const runGeneration = sandboxRunGenerationOf(m) + 1;
      if (runGeneration > sandboxRunGenerationMax) return { ok: false, rejection: reject('operation_not_allowed', `run_generation cannot pass ${sandboxRunGenerationMax}.`) };
      tx.emitRecord(m.id, 'merchant', false, m.id, { type: 'SandboxRunReset', at, merchantId: m.id, runGeneration });
      return { ok: true, objectId: m.id };
    }
    case 'RegisterBeneficiary': {
      if (!tx.world.merchants.has(c.merchantId)) return notFound('merchant');
      const id = tx.ids.next('ben');
      tx.emitRecord(id, 'beneficiary', c.livemode, c.merchantId, {
        type: 'BeneficiaryRegistered', at,
        beneficiary: {
          id, merchantId: c.merchantId, livemode: c.livemode, bankCode: c.bankCode, accountNumber: c.accountNumber, accountNameTh: c.accountNameTh,
          status: c.verified ? 'verified' : 'pending_verification', createdAt: at, ...(c.verified ? { verifiedAt: at } : {}),
          ...(c.promptpayId ? { promptpayId: c.promptpayId } : {}),
        },
      });
      if (!c.verified) tx.setTimer({ id: `${id}:beneficiary.verify`, stream: id, kind: 'beneficiary.verify', dueAt: at + limits.beneficiaryVerificationMs });
      return { ok: true, objectId: id };
    }
    case 'VerifyBeneficiary': {
      const b = tx.world.beneficiaries.get(c.beneficiaryId);
      if (!b) return notFound('beneficiary');
      if (b.status !== 'verified') tx.emitRecord(b.id, 'beneficiary', b.livemode, b.merchantId, { type: 'BeneficiaryVerified', at, beneficiaryId: b.id });
      return { ok: true, objectId: b.id };
    }
    case 'RegisterSender': {
      if (!tx.world.merchants.has(c.merchantId)) return notFound('merchant');
      const id = tx.ids.next('snd');
      tx.emitRecord(id, 'sender', c.livemode, c.merchantId, {
        type: 'SenderRegistered', at,
        sender: { id, merchantId: c.merchantId, livemode: c.livemode, endUserRef: c.endUserRef, bankCode: c.bankCode, accountNumber: c.accountNumber, accountNameTh: c.accountNameTh, verifiedAt: at },
      });
      return { ok: true, objectId: id };
    }
    case 'SetBankAvailability':
      tx.emitRecord(`bank_${c.bankCode}`, 'bank', null, null, { type: 'BankAvailabilityChanged', at, bankCode: c.bankCode, available: c.available, ...(c.messageTh ? { messageTh: c.messageTh } : {}) });
      return { ok: true };
    case 'PostAdjustment':
      return postAdjustment(tx, c);
    case 'CreateDeposit':
      return createDeposit(tx, c);
    case 'CancelDeposit': {
      const d = visibleDeposit(tx, c.actor, c.depositId);
      if (!d) return notFound('deposit');
      const by = c.actor.kind === 'merchant' ? 'merchant' : 'system';
      return runDeposit(tx, d.id, decideDeposit({ type: 'CancelDeposit', at, by, reasonCode: 'merchant_request' }, d));
    }
    case 'ReceiveSlip': {
      const d = visibleDeposit(tx, c.actor, c.depositId);
      if (!d) return notFound('deposit');
      return runDeposit(tx, d.id, decideDeposit({ type: 'ReceiveSlip', at, receiptId: c.receiptId, hasImage: c.hasImage, transRef: c.transRef }, d));
    }
    case 'RecordSlipVerification': {
      const d = visibleDeposit(tx, c.actor, c.depositId);
      if (!d) return notFound('deposit');
      let outcome = c.outcome;
      if (outcome.kind === 'found') {
        // The duplicate fact comes from the journal's index of trans_refs already used.
        const owner = tx.world.transRefOwner(d.livemode, outcome.transfer.transRef);
        const facts = {
          senderBankDisabled: outcome.facts.senderBankDisabled || tx.world.unavailableBanks.has(outcome.transfer.sender.bankCode),
          duplicateOfDepositId: owner !== undefined && owner !== d.id ? owner : outcome.facts.duplicateOfDepositId,
        } satisfies { [K in keyof Required<VerificationFacts>]: VerificationFacts[K] };
        outcome = { kind: 'found', transfer: outcome.transfer, facts };
      }
      return runDeposit(tx, d.id, decideDeposit({ type: 'RecordVerification', at, receiptId: c.receiptId, outcome, settle: settleContext(tx, d) }, d));
    }
    case 'ApproveDepositReview': {
      const d = tx.deposit(c.depositId);
      if (!d) return notFound('deposit');
      return runDeposit(tx, d.id, decideDeposit({
        type: 'ApproveReview', at, operatorId: c.actor.operatorId, note: c.note, settle: settleContext(tx, d),
        ...(c.transferredAmountMinor !== undefined ? { transferredAmountMinor: c.transferredAmountMinor } : {}),
      }, d));
    }
    case 'DeclineDepositReview': {
      const d = tx.deposit(c.depositId);
      if (!d) return notFound('deposit');
      return runDeposit(tx, d.id, decideDeposit({ type: 'DeclineReview', at, operatorId: c.actor.operatorId, note: c.note }, d));
    }
    case 'ConfirmGatewayRoute': {
      const d = visibleDeposit(tx, c.actor, c.depositId);
      if (!d) return notFound('deposit');
      if (c.amountMinor <= 0n) return { ok: false, rejection: reject('validation_error', 'amount_minor must be positive.', { fields: [{ path: 'amount_minor', reason: 'minimum' }] }) };
      const owner = tx.world.transRefOwner(d.livemode, c.transRef);
      return runDeposit(tx, d.id, decideDeposit({
        type: 'ConfirmRoute', at, transRef: c.transRef, amountMinor: c.amountMinor, ...(owner !== undefined && owner !== d.id ? { duplicateOfDepositId: owner } : {}),
      }, d));
    }
    case 'ReverseDeposit': {
      const d = tx.deposit(c.depositId);
      if (!d) return notFound('deposit');
      if (!reversalReasonCodes.includes(c.reasonCode)) {
        return { ok: false, rejection: reject('validation_error', 'Unknown reversal reason_code.', { fields: [{ path: 'reason_code', reason: 'enum' }] }) };
      }
      return runDeposit(tx, d.id, decideDeposit({ type: 'ReverseDeposit', at, reasonCode: c.reasonCode, balanceTransactionId: tx.ids.next('btxn') }, d));
    }
    case 'CreateWithdrawal':
      return createWithdrawal(tx, c);
    case 'ApproveWithdrawal':
      if (!tx.withdrawal(c.withdrawalId)) return notFound('withdrawal');
      return runWithdrawal(tx, c.withdrawalId, { type: 'ApproveWithdrawal', at, operatorId: c.actor.operatorId });
    case 'RejectWithdrawal':
      if (!tx.withdrawal(c.withdrawalId)) return notFound('withdrawal');
      return runWithdrawal(tx, c.withdrawalId, { type: 'RejectWithdrawal', at, operatorId: c.actor.operatorId, refund: refundIds(tx), ...(c.note !== undefined ? { note: c.note } : {}) });
    case 'CancelWithdrawal': {
      const w = visibleWithdrawal(tx, c.actor, c.withdrawalId);
      if (!w) return notFound('withdrawal');
      return runWithdrawal(tx, w.id, { type: 'CancelWithdrawal', at, by: c.actor.kind === 'merchant' ? 'merchant' : 'operator', refund: refundIds(tx) });
    }
    case 'ReverseFill': {
      const w = visibleWithdrawal(tx, c.actor, c.withdrawalId);
      if (!w) return notFound('withdrawal');
      return runWithdrawal(tx, w.id, { type: 'ReverseFill', at, legRef: c.legRef, reasonCode: c.reasonCode, balanceTransactionId: tx.ids.next('btxn'), feeBalanceTransactionId: tx.ids.next('btxn') });
    }
    case 'ConfirmReceipt': {
      const w = visibleWithdrawal(tx, c.actor, c.withdrawalId);
      if (!w) return notFound('withdrawal');
      return runWithdrawal(tx, w.id, { type: 'ConfirmReceipt', at, legRef: c.legRef, auto: false });
    }
    case 'OpenDispute': {
      const w = visibleWithdrawal(tx, c.actor, c.withdrawalId);
      if (!w) return notFound('withdrawal');
      return runWithdrawal(tx, w.id, { type: 'OpenDispute', at, disputeId: tx.ids.next('dsp'), reasonCode: c.reasonCode, amountMinor: c.amountMinor, respondBy: c.respondBy ?? at + limits.disputeRespondByMs });
    }
    case 'SubmitDisputeEvidence': {
      const w = disputeWithdrawal(tx, c.actor, c.disputeId);
      if (!w) return notFound('dispute');
      return runWithdrawal(tx, w.id, { type: 'SubmitDisputeEvidence', at });
    }
    case 'ResolveDispute': {
      const w = disputeWithdrawal(tx, c.actor, c.disputeId);
      if (!w) return notFound('dispute');
      return runWithdrawal(tx, w.id, { type: 'ResolveDispute', at, outcome: c.outcome });
    }
    case 'FireTimer':
      return fireTimer(tx, c.timerId);
    default: {
      const _exhaustive: never = c;
      return _exhaustive;
    }
  }
}

/**
 * An operator's adjustment moves money between the merchant's available bucket and the
 * adjustments account. The other two buckets belong to orders: reserved is what open
 * withdrawals lock (their close releases exactly their lock), pending_clearing is what
 * settled deposits wait to clear (their clearing moves exactly their credit), so a change
 * there by hand would make a later release or clearing drive the bucket negative. A debit
 * takes at most what available holds; a credit keeps the merchant's total presentable.
 */
function postAdjustment(tx: Tx, c: Extract<Command, { type: 'PostAdjustment' }>): Step {
  const m = tx.world.merchants.get(c.merchantId);
  if (!m) return notFound('merchant');
  if (c.amountMinor <= 0n) return { ok: false, rejection: reject('validation_error', 'amount_minor must be positive.', { fields: [{ path: 'amount_minor', reason: 'minimum' }] }) };
  if (c.bucket !== 'available') {
    const owner = c.bucket === 'reserved' ? 'the open withdrawals that lock it' : 'the settled deposits waiting to clear';
    return { ok: false, rejection: reject('operation_not_allowed',
      `Adjustments move only the available bucket; ${c.bucket} belongs to ${owner}. Adjust available instead (cancel or reverse the order to change its part).`, { bucket: c.bucket }) };
  }
  const b = tx.balances(m.id, c.livemode);
  if (c.direction === 'debit' && b.availableMinor < c.amountMinor) {
    return { ok: false, rejection: reject('insufficient_balance', 'The available bucket holds less than the debit.', {
      available_minor: minorToJson(b.availableMinor), required_minor: minorToJson(c.amountMinor),
      pending_clearing_minor: minorToJson(b.pendingClearingMinor), pending_clearing_available_at: tx.world.nextClearingAt(m.id, c.livemode),
    }) };
  }
  if (c.direction === 'credit') {
    const tooMuch = checkMerchantCredit(b.availableMinor + b.pendingClearingMinor + b.reservedMinor, c.amountMinor);
    if (tooMuch) return { ok: false, rejection: tooMuch };
  }
  const txn = tx.postAll(adjustmentPostings({
    merchantId: m.id, whiteLabelId: m.whiteLabelId, livemode: c.livemode, operatorId: c.actor.kind === 'operator' ? c.actor.operatorId : 'system',
    amountMinor: c.amountMinor, direction: c.direction, bucket: c.bucket, reason: c.reason,
  }))!;
  return { ok: true, objectId: txn.id };
}

/** A due timer becomes the command it stands for; one that changes nothing is dropped. */
function fireTimer(tx: Tx, timerId: string): Step {
  const t = tx.world.timer(timerId);
  if (!t || t.dueAt > tx.at) return { ok: true };
  const at = tx.at;
  return ((): Step => {
    switch (t.kind) {
      case 'deposit.expire': {
        const d = tx.deposit(t.stream);
        return d ? runDeposit(tx, d.id, decideDeposit({ type: 'ExpireDeposit', at, settle: settleContext(tx, d) }, d)) : { ok: true };
      }
      case 'deposit.close_late_window':
        return runDeposit(tx, t.stream, decideDeposit({ type: 'CloseLateSlipWindow', at }, tx.deposit(t.stream)));
      case 'deposit.escalate_review':
        return runDeposit(tx, t.stream, decideDeposit({ type: 'EscalateReview', at }, tx.deposit(t.stream)));
      case 'deposit.clear':
        return runDeposit(tx, t.stream, decideDeposit({ type: 'ClearDeposit', at }, tx.deposit(t.stream)));
      case 'deposit.liquidity_wait':
        return runDeposit(tx, t.stream, decideDeposit({ type: 'EndLiquidityWait', at }, tx.deposit(t.stream)));
      case 'withdrawal.approval_timeout':
        return runWithdrawal(tx, t.stream, { type: 'TimeOutApproval', at, refund: refundIds(tx) });
      case 'withdrawal.expire':
        return runWithdrawal(tx, t.stream, { type: 'ExpireWithdrawal', at, refund: refundIds(tx) });
      case 'withdrawal.auto_confirm':
        return runWithdrawal(tx, t.stream, { type: 'ConfirmReceipt', at, legRef: t.arg!, auto: true });
      case 'beneficiary.verify': {
        const b = tx.world.beneficiaries.get(t.stream);
        if (b && b.status !== 'verified') tx.emitRecord(b.id, 'beneficiary', b.livemode, b.merchantId, { type: 'BeneficiaryVerified', at, beneficiaryId: b.id });
        tx.clearTimer(t.id);
        return { ok: true, objectId: t.stream };
      }
      default: {
        const _exhaustive: never = t.kind;
        return _exhaustive;
      }
    }
  })();
}

/** The command handler on its ports. Commands are serialised: Node runs one writer. */
export class CommandHandler {
  constructor(readonly world: World, private readonly journal: Journal, private readonly clock: Clock, private readonly ids: Ids) {}

  /**
   * Decides and applies a command; the journal makes it durable (at once, or with the
   * group commit that the caller awaits before answering). `respond` builds the
   * idempotency record from the world after the command, so it commits with it.
   */
  execute(command: Command, meta: CommitMeta = {}, respond?: (outcome: Outcome) => CommitMeta['idempotency']): Outcome {
    const { outcome, commit } = handle(this.world, command, this.clock.now(), this.ids);
    if (!commit) return outcome;
    const events = commit.entries.length > 0 ? merchantEvents(this.world, commit) : [];
    this.world.apply(commit);
    const idempotency = respond?.(outcome);
    this.journal.append(commit, idempotency ? { ...meta, idempotency } : meta, events);
    return outcome;
  }

  /** Fires every timer due now, in due order, each as its own command. Returns how many fired. */
  fireDueTimers(max = 1000): number {
    let fired = 0;
    while (fired < max) {
      const due = this.world.dueTimers(this.clock.now(), 1);
      if (due.length === 0) break;
      this.execute({ type: 'FireTimer', actor: { kind: 'system' }, timerId: due[0]!.id });
      fired++;
    }
    return fired;
  }
}
