// Claim steps: gathers what the claim decider needs (the claim, the deposit it is about,
// the payer's account, the refund withdrawal's outcome), runs it, and carries out a payout:
// the payer's account becomes a verified beneficiary of the deposit's merchant and a
// refund withdrawal (refund_of_deposit_id) opens for the refund, locked out of suspense
// (core/ledger/postings.ts) and filled by deposits like any other order. Ids are drawn
// only once the decider has accepted.

import { admitClaim, decideClaim, decideRefundOwed, decideRefundRecall, heldOfDeposit, refundedOfTransfer, refundRefusedForItsTerms, type ClaimCommand, type ClaimedDeposit, type RefundRecall } from '../claim/decide.ts';
import { refundWithdrawalsOf, type Claim, type ClaimEvent, type ClaimKind } from '../claim/state.ts';
import type { RefundPaid, RefundPayingOut, ReversalFacts } from '../deposit/decide.ts';
import type { Deposit } from '../deposit/state.ts';
import { matchAccountNumber } from '../deposit/verification.ts';
import { maskName, maskReadAccountNumber } from '../present.ts';
import { isRejection, type Rejection } from '../errors.ts';
import { limits } from '../limits.ts';
import { isOpenStatus } from '../withdrawal/state.ts';
import type { Command } from './commands.ts';
import { done, fail, type Reaction, type Step } from './reactions.ts';
import type { Tx } from './tx.ts';
import type { World } from '../world.ts';
import { runWithdrawal } from './withdrawals.ts';
import type { NewWithdrawal } from '../withdrawal/decide.ts';
import { violated } from '../assert.ts';
import { decideWriteOff } from '../claim/write-off.ts';

/**
 * What gathering a claim's or a reversal's facts reads: a command's transaction, or the world
 * as it stands (worldReads: a route's check before its step-up, which writes nothing).
 */
export type ClaimReads = Pick<Tx, 'world' | 'at' | 'deposit' | 'withdrawal' | 'balances'>;

/** The world as a command at `at` would read it before it changes anything. */
export function worldReads(world: World, at: number): ClaimReads {
  return { world, at, deposit: (id) => world.deposits.get(id), withdrawal: (id) => world.withdrawals.get(id), balances: (merchantId, livemode) => world.balances(merchantId, livemode) };
}

export function openClaim(tx: Tx, c: Extract<Command, { type: 'OpenClaim' }>): Step {
  const d = tx.deposit(c.depositId);
  let claimedMinor = 0n, overpaidMinor = 0n;
  for (const other of claimsOfDeposit(tx, c.depositId)) {
    if (sharesCap(other.kind, c.kind)) claimedMinor += heldOfDeposit(other);
    // What the service saw paid beyond the order: each overpayment claim it opened by itself (no operator opened it).
    if (other.kind === 'overpayment' && other.notes?.[0]?.operatorId === null) overpaidMinor += other.amountMinor;
  }
  const refusal = admitClaim(c, { deposit: d && { ...claimedDeposit(d), id: d.id, amountMinor: d.amountMinor }, claimedMinor, overpaidMinor });
  if (refusal || !d) return fail(refusal!);
  const id = tx.ids.next('clm', d.merchantId);
  tx.emitRecord(id, 'claim', d.livemode, d.merchantId, {
    type: 'ClaimOpened', at: tx.at,
    claim: {
      id, kind: c.kind, status: 'open', depositId: d.id, merchantId: d.merchantId, livemode: d.livemode, amountMinor: c.amountMinor, createdAt: tx.at,
      note: c.note, notes: [{ at: tx.at, operatorId: c.actor.operatorId, status: 'open', note: c.note }], ...(c.evidence !== undefined ? { evidence: c.evidence } : {}),
    },
  });
  return done(id);
}

/** One deposit's claims: few, so a scan of the open work (as the back office's view does). */
function* claimsOfDeposit(tx: ClaimReads, depositId: string): Iterable<Claim> {
  for (const claim of tx.world.claims.values()) if (claim.depositId === depositId) yield claim;
}

/**
 * Claims that together hold at most the deposit's amount: overpayment claims, on money
 * beyond the order, among themselves; late-slip and manual claims, on the order's own
 * amount, together — else one transfer could be claimed, and refunded, once of each kind.
 */
function sharesCap(a: ClaimKind, b: ClaimKind): boolean {
  return (a === 'overpayment') === (b === 'overpayment');
}

/** The deposit as the claim decider judges a claim on it. */
function claimedDeposit(d: Deposit): ClaimedDeposit {
  return { status: d.status, isTerminal: d.isTerminal, ...(d.settlement ? { settledAt: d.settlement.settledAt } : {}) };
}

/** The decider's command for a transition, with the facts it needs. */
function claimCommand(tx: ClaimReads, claim: Claim, c: Extract<Command, { type: 'DecideClaim' }>, withdrawalId: string): ClaimCommand {
  const base = { at: tx.at, operatorId: c.actor.operatorId, note: c.note };
  switch (c.transition) {
    case 'review': return { type: 'StartClaimReview', ...base };
    case 'refund': {
      const d = tx.deposit(claim.depositId)!;
      const { sender } = d;
      const from = claim.transferSender;
      const another = from && (from.bankCode !== sender.bankCode || matchAccountNumber(sender.accountNumber, from.accountNumber) !== 'match')
        ? `bank ${from.bankCode}, ${maskReadAccountNumber(from.accountNumber)}, ${maskName(from.name)}` : undefined;
      return {
        type: 'ApproveClaimRefund', ...base, deposit: claimedDeposit(d), accountNamed: c.refundAccount !== undefined,
        account: c.refundAccount ?? { bankCode: sender.bankCode, accountNumber: sender.accountNumber, accountNameTh: sender.accountNameTh },
        ...(another ? { transferFromAnother: another } : {}), ...(c.amountMinor !== undefined ? { refundMinor: c.amountMinor } : {}),
      };
    }
    case 'payout': return { type: 'PayOutClaimRefund', ...base, withdrawalId, deposit: claimedDeposit(tx.deposit(claim.depositId)!) };
    case 'close': {
      const refunds = refundsOf(tx, claim);
      return { type: 'CloseClaim', ...base, ...(refunds ? { refund: { final: !refunds.anyOpen, filledMinor: refunds.filledMinor } } : {}) };
    }
    case 'reject': return { type: 'RejectClaim', ...base };
    default: {
      const _exhaustive: never = c.transition;
      return _exhaustive;
    }
  }
}

export function decideClaimStep(tx: Tx, c: Extract<Command, { type: 'DecideClaim' }>): Step {
  const claim = tx.world.claims.get(c.claimId);
  if (!claim) return fail(decideClaim({ type: 'RejectClaim', at: tx.at, operatorId: c.actor.operatorId, note: c.note }, undefined) as Rejection);
  const checked = decideClaim(claimCommand(tx, claim, c, ''), claim);
  if (isRejection(checked)) return fail(checked);
  const withdrawalId = c.transition === 'payout' ? tx.ids.next('wdr', claim.merchantId) : '';
  const events = c.transition === 'payout' ? (decideClaim(claimCommand(tx, claim, c, withdrawalId), claim) as readonly ClaimEvent[]) : checked;
  for (const e of events) tx.emitRecord(claim.id, 'claim', claim.livemode, claim.merchantId, e);
  if (c.transition !== 'payout') return done(claim.id);
  const payout = openRefundWithdrawal(tx, claim, withdrawalId);
  return payout.ok ? done(claim.id, payout.then) : payout;
}

/**
 * A write-off of what the claim's payer owes back, proposed or approved (decideWriteOff);
 * the proposal's id is drawn only once the decider admits it.
 */
export function writeOffStep(tx: Tx, c: Extract<Command, { type: 'ProposeWriteOff' | 'ApproveWriteOff' }>): Step {
  const claim = tx.world.claims.get(c.claimId);
  const base = { at: tx.at, operatorId: c.actor.operatorId };
  const decide = (proposalId: string) => decideWriteOff(c.type === 'ProposeWriteOff'
    ? { type: 'ProposeWriteOff', ...base, note: c.note, proposalId, ...(c.amountMinor !== undefined ? { amountMinor: c.amountMinor } : {}) }
    : { type: 'ApproveWriteOff', ...base, proposalId: c.proposalId, amountMinor: c.amountMinor, ...(c.note !== undefined ? { note: c.note } : {}) }, claim);
  const checked = decide('');
  if (isRejection(checked)) return fail(checked);
  const admitted = claim ?? violated(`write-off of ${c.claimId} admitted without its claim`);
  const events = c.type === 'ProposeWriteOff' ? decide(tx.ids.next('wop', admitted.merchantId)) as readonly ClaimEvent[] : checked;
  for (const e of events) tx.emitRecord(admitted.id, 'claim', admitted.livemode, admitted.merchantId, e);
  return done(admitted.id);
}

/** The deposit's claims whose refund withdrawal is still open (a reversal waits for them to be canceled). */
function refundsPayingOut(tx: ClaimReads, depositId: string): RefundPayingOut[] {
  const out: RefundPayingOut[] = [];
  for (const claim of claimsOfDeposit(tx, depositId)) {
    for (const id of refundWithdrawalsOf(claim)) {
      const w = tx.withdrawal(id);
      if (w && isOpenStatus(w.status)) out.push({ claimId: claim.id, withdrawalId: w.id });
    }
  }
  return out;
}

/** The deposit's claims on its transfer whose refunds already paid the payer (a reversal asks the operator about them). */
function refundsPaid(tx: ClaimReads, depositId: string): RefundPaid[] {
  const out: RefundPaid[] = [];
  for (const claim of claimsOfDeposit(tx, depositId)) {
    const refundedMinor = refundedOfTransfer(claim);
    if (refundedMinor > 0n) out.push({ claimId: claim.id, refundedMinor });
  }
  return out;
}

/**
 * What a reversal of the deposit is decided on besides the deposit (deposit/decide.ts
 * reversalRefusal): the wallet it takes the credit back from, and its claims' refunds.
 */
export function reversalFacts(tx: ClaimReads, d: Deposit): Omit<ReversalFacts, 'claimRefunds'> {
  return {
    wallet: { balances: tx.balances(d.merchantId, d.livemode), nextClearingAt: () => tx.world.nextClearingAt(d.merchantId, d.livemode) },
    refundsPayingOut: refundsPayingOut(tx, d.id), refundsPaid: refundsPaid(tx, d.id),
  };
}

/**
 * The refusal a claim's refund gets for its terms (the account, the amount: claim/decide.ts
 * refundRefusedForItsTerms), gathered as the command gathers them; null for another
 * transition, a claim there is not, or a refund refused for something else first.
 */
export function refundTermsRefusalOf(tx: ClaimReads, c: Extract<Command, { type: 'DecideClaim' }>): Rejection | null {
  const claim = tx.world.claims.get(c.claimId);
  if (!claim || c.transition !== 'refund') return null;
  const command = claimCommand(tx, claim, c, '');
  return command.type === 'ApproveClaimRefund' ? refundRefusedForItsTerms(command, claim) : null;
}

/**
 * The deposit was just reversed: each of its claims whose refunds paid the payer of its
 * transfer records that money as owed back by the payer (decideRefundOwed), by the operator
 * who reversed it. The reversal was refused unless that operator said so.
 */
export function recordClaimRefundsOwed(tx: Tx, r: Extract<Reaction, { type: 'RecordClaimRefundsOwed' }>): Step {
  const { depositId } = r;
  if (tx.deposit(depositId)?.status !== 'reversed') violated(`recording claims' refunds owed on ${depositId}: it is not reversed`);
  for (const claim of claimsOfDeposit(tx, depositId)) {
    const events = decideRefundOwed({ at: tx.at, operatorId: r.operatorId ?? systemOperatorId, depositId, reasonCode: r.reasonCode }, claim);
    for (const e of events) tx.emitRecord(claim.id, 'claim', claim.livemode, claim.merchantId, e);
  }
  return done(depositId);
}

/** The claim's refund withdrawals (the payout's and each replacement): whether one is still open, and what they filled in all. */
function refundsOf(tx: ClaimReads, claim: Claim): { readonly anyOpen: boolean; readonly filledMinor: bigint } | undefined {
  const ids = refundWithdrawalsOf(claim);
  if (ids.length === 0) return undefined;
  let anyOpen = false, filledMinor = 0n;
  for (const id of ids) {
    const w = tx.withdrawal(id);
    if (!w) continue;
    if (isOpenStatus(w.status)) anyOpen = true;
    filledMinor += w.filledMinor;
  }
  return { anyOpen, filledMinor };
}

/** The operator id a claim decision of the service itself carries (the close that follows a final refund). */
export const systemOperatorId = 'system';

/**
 * A claim whose refund withdrawal has just closed (settled, expired, canceled) closes with
 * what the refund paid out (with a replacement, what all its refunds did): the same decision
 * an operator's close makes, taken by the service. A claim no longer waiting for its payout,
 * or with a refund still open, is left as it is.
 */
export function closeRefundedClaim(tx: Tx, claimId: string): Step {
  const claim = tx.world.claims.get(claimId);
  const w = claim?.refundWithdrawalId === undefined ? undefined : tx.withdrawal(claim.refundWithdrawalId);
  const refunds = claim && refundsOf(tx, claim);
  if (!claim || !w || !refunds || refunds.anyOpen || claim.status !== 'return_pending_payout') return done();
  const events = decideClaim({
    type: 'CloseClaim', at: tx.at, operatorId: systemOperatorId, note: `Closed automatically: the refund withdrawal ${w.id} is ${w.status}.`,
    refund: { final: true, filledMinor: refunds.filledMinor },
  }, claim);
  if (isRejection(events)) return fail(events);
  for (const e of events) tx.emitRecord(claim.id, 'claim', claim.livemode, claim.merchantId, e);
  return done(claim.id);
}

/**
 * The bank recalled a fill of a claim's refund withdrawal after it closed (the reversal put
 * the amount back in suspense): the claim decides (decideRefundRecall), and pays it again
 * through a replacement refund to the same account when it says so.
 */
export function recallClaimRefund(tx: Tx, r: Extract<Reaction, { type: 'RecallClaimRefund' }>): Step {
  const claim = tx.world.claims.get(r.claimId);
  const w = tx.withdrawal(r.withdrawalId);
  const fill = w?.fills.find((f) => f.legRef === r.legRef);
  const refunds = claim && refundsOf(tx, claim);
  if (!claim || !w || !fill?.reversal || !refunds) violated(`recalling ${r.legRef} of ${r.withdrawalId}: no claim ${r.claimId} refund with that reversed fill`);
  const recall = (replacementWithdrawalId: string): RefundRecall => ({
    at: tx.at, operatorId: r.operatorId ?? systemOperatorId, recalledWithdrawalId: w.id, legRef: fill.legRef, reasonCode: fill.reversal!.reasonCode,
    recalledMinor: fill.amountMinor, replacementWithdrawalId, deposit: claimedDeposit(tx.deposit(claim.depositId)!), refunds,
  });
  const checked = decideRefundRecall(recall(''), claim);
  if (isRejection(checked)) return fail(checked);
  const replaces = checked.some((e) => e.type === 'ClaimRefundRecalled' && e.replacementWithdrawalId !== undefined);
  const replacementId = replaces ? tx.ids.next('wdr', claim.merchantId) : '';
  const events = replaces ? (decideRefundRecall(recall(replacementId), claim) as readonly ClaimEvent[]) : checked;
  for (const e of events) tx.emitRecord(claim.id, 'claim', claim.livemode, claim.merchantId, e);
  if (!replaces) return done(claim.id);
  const opened = runWithdrawal(tx, replacementId, {
    type: 'CreateWithdrawal', at: tx.at,
    withdrawal: {
      ...refundOrder(tx, claim, replacementId, fill.amountMinor, w.beneficiaryId, `refund-${claim.id}-${refundWithdrawalsOf(claim).length + 1}`),
      replacementOfWithdrawalId: w.id,
    },
  });
  if (!opened.ok) return opened;
  return done(claim.id, [...(opened.then ?? []), { type: 'MatchWaitingDeposits', whiteLabelId: w.whiteLabelId, livemode: w.livemode }]);
}

/** A refund order of the claim's: to `beneficiaryId`, no fee, no approval, funded from suspense (postings.ts). */
function refundOrder(tx: Tx, claim: Claim, id: string, amountMinor: bigint, beneficiaryId: string, merchantReference: string): NewWithdrawal {
  const d = tx.deposit(claim.depositId)!;
  return {
    id, merchantId: d.merchantId, whiteLabelId: d.whiteLabelId, livemode: d.livemode, merchantReference, endUserRef: d.endUserRef,
    beneficiaryId, amountTotalMinor: amountMinor, feeTotalMinor: 0n, feeBreakdown: [], maxSplits: limits.withdrawalMaxSplits,
    createdAt: tx.at, expiresAt: tx.at + limits.withdrawalLifetimeMs, requiresApproval: false, approvalsRequired: 0,
    reservedBalanceTransactionId: tx.ids.next('btxn', d.merchantId), metadata: { claim_id: claim.id }, refundOfDepositId: d.id,
  };
}

/** The refund withdrawal to the payer's account: the claim's refund, no fee, opened at once. */
function openRefundWithdrawal(tx: Tx, claim: Claim, id: string): Step {
  const d = tx.deposit(claim.depositId)!;
  const account = claim.refundAccount!;
  const beneficiaryId = tx.ids.next('ben', d.merchantId);
  tx.emitRecord(beneficiaryId, 'beneficiary', d.livemode, d.merchantId, {
    type: 'BeneficiaryRegistered', at: tx.at,
    beneficiary: { id: beneficiaryId, merchantId: d.merchantId, livemode: d.livemode, bankCode: account.bankCode, accountNumber: account.accountNumber, accountNameTh: account.accountNameTh, status: 'verified', createdAt: tx.at, verifiedAt: tx.at },
  });
  const created = runWithdrawal(tx, id, { type: 'CreateWithdrawal', at: tx.at, withdrawal: refundOrder(tx, claim, id, claim.refundMinor!, beneficiaryId, `refund-${claim.id}`) });
  if (!created.ok) return created;
  return done(id, [...(created.then ?? []), { type: 'MatchWaitingDeposits', whiteLabelId: d.whiteLabelId, livemode: d.livemode }]);
}
