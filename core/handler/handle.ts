// The command handler: load → decide → append. handle() is pure: it reads the world,
// decides, and returns the commit (or the refusal) without changing anything.
// CommandHandler is the same written against the ports: it applies an accepted commit to
// the world at once (so the next command of the same event-loop turn decides against it)
// and hands it to the Journal, which makes it durable before any answer goes out; a
// journal that fails to write rebuilds the world from what is on disk.

import { decide as decideDeposit, checkReversalReason } from '../deposit/decide.ts';
import type { Deposit } from '../deposit/state.ts';
import type { VerificationFacts } from '../deposit/verification.ts';
import { beneficiaryVerified, decide as decideDirectory, type DirectoryCommand } from '../directory/decide.ts';
import { isRejection, reject, type Rejection } from '../errors.ts';
import { limits } from '../limits.ts';
import type { Commit } from '../journal.ts';
import type { Clock, CommitMeta, Ids, Journal } from '../ports.ts';
import type { World } from '../world.ts';
import { merchantEvents } from '../outbox.ts';
import type { WithdrawalCommand } from '../withdrawal/decide.ts';
import { holdsLegFees, isPayable, type OperatorDecision, type Withdrawal } from '../withdrawal/state.ts';
import { checkNote } from '../note.ts';
import { visibleTo, type Actor, type Command, type CommandType } from './commands.ts';
import { closeLateWindow, createDeposit, runDeposit, settleContext } from './deposits.ts';
import { runToQuiescence } from './react.ts';
import { done, fail, type Outcome, type Step } from './reactions.ts';
import { createWithdrawal, refundIds, runWithdrawal } from './withdrawals.ts';
import { Tx } from './tx.ts';
import { decideClaimStep, openClaim, reversalFacts, writeOffStep } from './claims.ts';
import { fireSandboxStep } from './sandbox.ts';

export type { Outcome };

/** The outcome once its commit is durable, for a caller with nothing to do meanwhile (specs, benches). */
export async function settled({ outcome, durable }: Submitted): Promise<Outcome> {
  await durable;
  return outcome;
}

/** Builds the idempotency record from the command's outcome, so it commits with the command. */
export type Respond = (outcome: Outcome) => CommitMeta['idempotency'];

/** A command decided and applied: its outcome now, and the promise that its commit is on disk. */
export interface Submitted {
  readonly outcome: Outcome;
  /** Resolves when the commit is durable (with the group commit of this event-loop turn); rejects if it was not written. */
  readonly durable: Promise<void>;
}

/**
 * The one door to the journal: the HTTP routes, the slip worker and the scheduler submit
 * every command here (adapters/sqlite/store.ts implements it). Nothing answers or acts on
 * an outcome before `durable` resolves.
 */
export interface CommandPort {
  /** The world as of now (read it afresh: a store may rebuild it). */
  readonly world: World;
  submit(command: Command, meta?: CommitMeta, respond?: Respond): Submitted;
}

export interface Handled {
  readonly outcome: Outcome;
  /** Present when the command was accepted; may hold no entries (nothing to change). */
  readonly commit?: Commit;
}

export function handle(world: World, command: Command, at: number, ids: Ids): Handled {
  const tx = new Tx(world, ids, at);
  const outcome = runToQuiescence(tx, route(tx, command));
  if (command.type === 'FireTimer' && (!outcome.ok || tx.entries.length === 0)) {
    // A timer command is never refused to its scheduler: one that is refused or changes
    // nothing is dropped (its aggregate's next change derives it again if still wanted).
    return { outcome: { ok: true }, commit: { entries: [], timers: { set: [], clear: [command.timerId] } } };
  }
  if (!outcome.ok) return { outcome };
  return { outcome, commit: { entries: tx.entries, timers: tx.timerChanges(), states: { deposits: tx.deposits, withdrawals: tx.withdrawals }, entryStates: tx.entryStates } };
}

type Handler<T extends CommandType> = (tx: Tx, c: Extract<Command, { type: T }>) => Step;

function route(tx: Tx, c: Command): Step {
  return (handlers[c.type] as Handler<CommandType>)(tx, c);
}

// Loading is the handler's part: a stream the actor may not see is "not found" (the
// contract does not tell a missing id from another tenant's), decided before any id is
// drawn for the command. Everything after that is the decider's.
const notFound = (what: string): Step => fail(reject('resource_not_found', `No such ${what}.`));

/** Loads a deposit (as the actor may see it, when given) and runs the decision made on it. */
function withDeposit(tx: Tx, actor: Actor | undefined, id: string, decision: (d: Deposit) => Parameters<typeof runDeposit>[2]): Step {
  const d = actor ? visibleTo(actor, tx.deposit(id)) : tx.deposit(id);
  return d ? runDeposit(tx, d.id, decision(d)) : notFound('deposit');
}

/** Loads a withdrawal (as the actor may see it, when given) and runs the command made for it. */
function withWithdrawal(tx: Tx, actor: Actor | undefined, id: string | undefined, command: (w: Withdrawal) => WithdrawalCommand | Rejection, what = 'withdrawal'): Step {
  const w = id === undefined ? undefined : actor ? visibleTo(actor, tx.withdrawal(id)) : tx.withdrawal(id);
  if (!w) return notFound(what);
  const c = command(w);
  return isRejection(c) ? fail(c) : runWithdrawal(tx, w.id, c);
}

/** An operator's note on a step that moves money, refused when too short (core/note.ts); the system gives none. */
function operatorNote(actor: Actor, note: string, what: string): Rejection | null {
  return actor.kind === 'operator' ? checkNote(note, what) : null;
}

/** Who decided and why, kept on the event: the timeline is rebuilt from the journal alone. */
function decisionOf(actor: Actor, note: string): { decision?: OperatorDecision } {
  return actor.kind === 'operator' ? { decision: { operatorId: actor.operatorId, note } } : {};
}

/** The operator a dispute's events name (the back office shows who opened and resolved it). */
function operatorBy(actor: Actor): { by?: string } {
  return actor.kind === 'operator' ? { by: actor.operatorId } : {};
}

/** The duplicate index and bank availability, added to what the verifier found. */
function withFacts(tx: Tx, d: Deposit, outcome: Extract<Command, { type: 'RecordSlipVerification' }>['outcome']): typeof outcome {
  if (outcome.kind === 'no_image') {
    // The claim's trans_ref, typed by the uploader: another deposit's already is a duplicate as a slip image's would be.
    const claimed = d.slip?.transRef;
    const owner = claimed === undefined ? undefined : tx.world.transRefOwner(d.livemode, claimed);
    return owner !== undefined && owner !== d.id ? { kind: 'no_image', duplicateOfDepositId: owner } : outcome;
  }
  if (outcome.kind !== 'found') return outcome;
  const owner = tx.world.transRefOwner(d.livemode, outcome.transfer.transRef);
  const facts = {
    senderBankDisabled: outcome.facts.senderBankDisabled || tx.world.banksDown(d.livemode).has(outcome.transfer.sender.bankCode),
    duplicateOfDepositId: owner !== undefined && owner !== d.id ? owner : outcome.facts.duplicateOfDepositId,
    outsideTimeWindow: outcome.facts.outsideTimeWindow,
    allocationConflict: outcome.facts.allocationConflict,
  } satisfies { [K in keyof Required<VerificationFacts>]: VerificationFacts[K] };
  return { kind: 'found', transfer: outcome.transfer, facts };
}

function directory(tx: Tx, c: DirectoryCommand): Step {
  const decision = decideDirectory(c, tx, tx.at, tx.ids);
  if (isRejection(decision)) return fail(decision);
  for (const r of decision.records) tx.emitRecord(r.stream, r.kind, r.livemode, r.merchantId, r.event);
  if (decision.timer) tx.setTimer(decision.timer);
  if (decision.postings) tx.postAll(decision.postings);
  return done(decision.objectId);
}

/** A gateway route set is liquidity for the white label's live deposits: those already waiting for it get a turn, as new ones go to it at once. */
function gatewayRouteApproval(tx: Tx, c: Extract<Command, { type: 'ApproveGatewayRoute' }>): Step {
  const step = directory(tx, c);
  if (!step.ok) return step;
  return done(step.objectId, [{ type: 'MatchWaitingDeposits' as const, whiteLabelId: c.whiteLabelId, livemode: true }]);
}

/** A suspension lifted puts the merchant's open withdrawals back in its pools: the deposits waiting there get a turn. */
function merchantSuspension(tx: Tx, c: Extract<Command, { type: 'SetMerchantSuspended' }>): Step {
  const step = directory(tx, c);
  const whiteLabelId = tx.world.merchants.get(c.merchantId)?.whiteLabelId;
  if (!step.ok || c.suspended || whiteLabelId === undefined) return step;
  return done(step.objectId, [true, false].map((livemode) => ({ type: 'MatchWaitingDeposits' as const, whiteLabelId, livemode })));
}

const handlers: { readonly [T in CommandType]: Handler<T> } = {
  RegisterWhiteLabel: directory, SetGatewayRoute: directory, ApproveGatewayRoute: gatewayRouteApproval, SetFeeSchedule: directory, ApproveFeeSchedule: directory, RegisterMerchant: directory, SetMerchantSuspended: merchantSuspension,
  ResetSandboxRun: directory, AdvanceSequencesAfterRestore: directory, RegisterBeneficiary: directory, VerifyBeneficiary: directory, RegisterSender: directory,
  SetBankAvailability: directory, PostAdjustment: directory, ProposeAdjustment: directory, ApproveAdjustment: directory,
  CreateDeposit: createDeposit,
  CancelDeposit: (tx, c) => withDeposit(tx, c.actor, c.depositId, (d) =>
    decideDeposit({ type: 'CancelDeposit', at: tx.at, by: c.actor.kind === 'merchant' ? 'merchant' : 'system', reasonCode: 'merchant_request' }, d)),
  ReceiveSlip: (tx, c) => withDeposit(tx, c.actor, c.depositId, (d) =>
    decideDeposit({ type: 'ReceiveSlip', at: tx.at, receiptId: c.receiptId, hasImage: c.hasImage, transRef: c.transRef }, d)),
  RecordSlipVerification: (tx, c) => withDeposit(tx, c.actor, c.depositId, (d) =>
    decideDeposit({ type: 'RecordVerification', at: tx.at, receiptId: c.receiptId, outcome: withFacts(tx, d, c.outcome), settle: settleContext(tx, d) }, d)),
  ApproveDepositReview: (tx, c) => withDeposit(tx, undefined, c.depositId, (d) => decideDeposit({
    type: 'ApproveReview', at: tx.at, operatorId: c.actor.operatorId, note: c.note, settle: settleContext(tx, d),
    ...(c.transferredAmountMinor !== undefined ? { transferredAmountMinor: c.transferredAmountMinor } : {}),
    ...(c.legAmounts !== undefined ? { legAmounts: c.legAmounts } : {}),
    ...(c.expectedVersion !== undefined ? { expectedVersion: c.expectedVersion } : {}),
  }, d)),
  DeclineDepositReview: (tx, c) => withDeposit(tx, undefined, c.depositId, (d) =>
    decideDeposit({ type: 'DeclineReview', at: tx.at, operatorId: c.actor.operatorId, note: c.note }, d)),
  ConfirmGatewayRoute: (tx, c) => withDeposit(tx, c.actor, c.depositId, (d) => {
    const owner = tx.world.transRefOwner(d.livemode, c.transRef);
    return decideDeposit({ type: 'ConfirmRoute', at: tx.at, transRef: c.transRef, amountMinor: c.amountMinor, ...(owner !== undefined && owner !== d.id ? { duplicateOfDepositId: owner } : {}),
      ...(c.actor.kind === 'operator' ? { operatorId: c.actor.operatorId } : {}) }, d);
  }),
  ReverseDeposit: (tx, c) => withDeposit(tx, undefined, c.depositId, (d) => checkReversalReason(c.reasonCode) ?? operatorNote(c.actor, c.note, 'A reversal')
    ?? decideDeposit({ type: 'ReverseDeposit', at: tx.at, reasonCode: c.reasonCode, balanceTransactionId: tx.ids.next('btxn', d.merchantId), ...reversalFacts(tx, d),
      ...(c.claimRefunds ? { claimRefunds: c.claimRefunds } : {}), ...decisionOf(c.actor, c.note) }, d)),
  CreateWithdrawal: createWithdrawal,
  ApproveWithdrawal: (tx, c) => runWithdrawal(tx, c.withdrawalId, { type: 'ApproveWithdrawal', at: tx.at, operatorId: c.actor.operatorId, ...(c.note !== undefined ? { note: c.note } : {}) }),
  RejectWithdrawal: (tx, c) => withWithdrawal(tx, undefined, c.withdrawalId, (w) =>
    ({ type: 'RejectWithdrawal', at: tx.at, operatorId: c.actor.operatorId, refund: refundIds(tx, w), ...(c.note !== undefined ? { note: c.note } : {}) })),
  CancelWithdrawal: (tx, c) => withWithdrawal(tx, c.actor, c.withdrawalId, (w) =>
    ({ type: 'CancelWithdrawal', at: tx.at, by: c.actor.kind === 'merchant' ? 'merchant' : 'operator', refund: refundIds(tx, w), ...(c.actor.kind === 'operator' ? { operatorId: c.actor.operatorId } : {}), ...(c.note !== undefined ? { note: c.note } : {}) })),
  ReverseFill: (tx, c) => withWithdrawal(tx, c.actor, c.withdrawalId, (w) => operatorNote(c.actor, c.note, 'A fill reversal') ?? ({
    type: 'ReverseFill', at: tx.at, legRef: c.legRef, reasonCode: c.reasonCode,
    balanceTransactionId: tx.ids.next('btxn', w.merchantId), feeBalanceTransactionId: tx.ids.next('btxn', w.merchantId),
    ...(holdsLegFees(w) ? { heldFeeBalanceTransactionId: tx.ids.next('btxn', w.merchantId) } : {}),
    ...(w.refundOfDepositId !== undefined && !isPayable(w) ? { suspenseBalanceTransactionId: tx.ids.next('btxn', w.merchantId) } : {}),
    ...decisionOf(c.actor, c.note),
  })),
  ConfirmReceipt: (tx, c) => withWithdrawal(tx, c.actor, c.withdrawalId, () => ({ type: 'ConfirmReceipt', at: tx.at, legRef: c.legRef, auto: false })),
  OpenDispute: (tx, c) => withWithdrawal(tx, c.actor, c.withdrawalId, (w) => ({
    type: 'OpenDispute', at: tx.at, disputeId: tx.ids.next('dsp', w.merchantId), reasonCode: c.reasonCode, amountMinor: c.amountMinor, respondBy: c.respondBy ?? tx.at + limits.disputeRespondByMs,
    ...operatorBy(c.actor),
  })),
  SubmitDisputeEvidence: (tx, c) => withWithdrawal(tx, c.actor, tx.world.withdrawalByDispute.get(c.disputeId), () => ({ type: 'SubmitDisputeEvidence', at: tx.at, evidence: { text: c.text, files: c.files ?? [] } }), 'dispute'),
  ResolveDispute: (tx, c) => withWithdrawal(tx, c.actor, tx.world.withdrawalByDispute.get(c.disputeId), () => operatorNote(c.actor, c.note ?? '', 'A dispute resolution') ?? ({ type: 'ResolveDispute', at: tx.at, outcome: c.outcome, ...(c.note !== undefined ? { note: c.note } : {}), ...operatorBy(c.actor) }), 'dispute'),
  FireTimer: (tx, c) => fireTimer(tx, c.timerId),
  OpenClaim: openClaim,
  DecideClaim: decideClaimStep,
  ProposeWriteOff: writeOffStep,
  ApproveWriteOff: writeOffStep,
};

/** A due timer becomes the command it stands for; one that changes nothing is dropped. */
function fireTimer(tx: Tx, timerId: string): Step {
  const t = tx.world.timer(timerId);
  if (!t || t.dueAt > tx.at) return done();
  const at = tx.at;
  switch (t.kind) {
    case 'deposit.expire': {
      const d = tx.deposit(t.stream);
      return d ? runDeposit(tx, d.id, decideDeposit({ type: 'ExpireDeposit', at, settle: settleContext(tx, d) }, d)) : done();
    }
    case 'deposit.close_late_window':
      return closeLateWindow(tx, tx.deposit(t.stream));
    case 'deposit.escalate_review':
      return runDeposit(tx, t.stream, decideDeposit({ type: 'EscalateReview', at }, tx.deposit(t.stream)));
    case 'deposit.extend_review':
      return runDeposit(tx, t.stream, decideDeposit({ type: 'ExtendReview', at }, tx.deposit(t.stream)));
    case 'deposit.clear':
      return runDeposit(tx, t.stream, decideDeposit({ type: 'ClearDeposit', at }, tx.deposit(t.stream)));
    case 'deposit.liquidity_wait':
      return runDeposit(tx, t.stream, decideDeposit({ type: 'EndLiquidityWait', at }, tx.deposit(t.stream)));
    case 'withdrawal.approval_timeout':
      return runWithdrawal(tx, t.stream, { type: 'TimeOutApproval', at, refund: refundIds(tx, tx.withdrawal(t.stream)) });
    case 'withdrawal.expire':
      return runWithdrawal(tx, t.stream, { type: 'ExpireWithdrawal', at, refund: refundIds(tx, tx.withdrawal(t.stream)) });
    case 'withdrawal.auto_confirm':
      return runWithdrawal(tx, t.stream, { type: 'ConfirmReceipt', at, legRef: t.arg!, auto: true });
    case 'sandbox.step':
      return fireSandboxStep(tx, t);
    case 'beneficiary.verify': {
      const b = tx.world.beneficiaries.get(t.stream);
      if (b && b.status !== 'verified') {
        const r = beneficiaryVerified(b, at);
        tx.emitRecord(r.stream, r.kind, r.livemode, r.merchantId, r.event);
      }
      tx.clearTimer(t.id);
      return done(t.stream);
    }
    default: {
      const _exhaustive: never = t.kind;
      return _exhaustive;
    }
  }
}

/**
 * The command handler on its ports. Commands are serialised: Node runs one writer. The
 * edge never calls it: the store's submit (the CommandPort) runs it inside the journal's
 * capture; specs of the core drive it directly.
 */
export class CommandHandler {
  constructor(readonly world: World, private readonly journal: Journal, private readonly clock: Clock, private readonly ids: Ids) {}

  /**
   * Decides and applies a command; the journal makes it durable (at once, or with the
   * group commit that the caller awaits before answering). `respond` builds the
   * idempotency record from the world after the command, so it commits with it.
   */
  execute(command: Command, meta: CommitMeta = {}, respond?: Respond): Outcome {
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
