// A command's transaction in memory: reads see the world plus what this command has
// already decided; writes are journal entries. Nothing reaches the world until the
// commit is appended and applied, so a refusal anywhere leaves no trace.

import { violated } from '../assert.ts';
import { changesNothingShown, evolve as evolveDeposit, type Deposit, type DepositEvent } from '../deposit/state.ts';
import type { Beneficiary, DirectoryEvent, GatewayRoute, Merchant, WhiteLabel } from '../directory.ts';
import type { DirectoryReads } from '../directory/decide.ts';
import type { Ids } from '../ports.ts';
import type { Minor } from '../money.ts';
import type { JournalEntry, StreamKind, Timer } from '../journal.ts';
import { buildOwnedTransaction, type BalanceTransaction, type Balances, type MovementOwner } from '../ledger/ledger.ts';
import { balancesAfter, type PlannedMovement, type Postings } from '../ledger/postings.ts';
import { evolve as evolveWithdrawal, withdrawalChangesNothingShown, type Withdrawal, type WithdrawalEvent } from '../withdrawal/state.ts';
import type { World } from '../world.ts';
import { limits } from '../limits.ts';
import type { Reaction } from './reactions.ts';
import { depositTimers, TimerReconciler, withdrawalTimers } from './timers.ts';

/**
 * A merchant's buckets as this command has left them so far (one per merchant and mode,
 * starting from the world's balances: the world does not change while a command decides).
 */
interface RunningBalances {
  readonly merchantId: string; readonly livemode: boolean;
  current: Balances;
}

// A command touches a handful of objects at most, so the transaction keeps them in small
// arrays searched in order: cheaper than a Map per command, which the write path would
// allocate and throw away some hundred thousand times a second.

export class Tx implements DirectoryReads {
  readonly entries: JournalEntry[] = [];
  /** Per entry, the deposit or withdrawal it left (undefined for the others): see Commit.entryStates. */
  readonly entryStates: (Deposit | Withdrawal | undefined)[] = [];
  /** The deposits and withdrawals this command changed, as they are now. */
  readonly deposits: Deposit[] = [];
  readonly withdrawals: Withdrawal[] = [];
  private readonly running: RunningBalances[] = [];
  /** Versions of the records (not aggregates) this command wrote, created on first use. */
  private recordVersions: Map<string, number> | undefined;
  /** Suspensions changed by this command, by merchant. */
  private suspensions: Map<string, boolean> | undefined;
  /** Gateway routes this command set (the world learns them at apply). */
  private routes: Map<string, GatewayRoute> | undefined;
  /** Beneficiaries this command registered (a claim's refund to its payer; the world learns them at apply). */
  private beneficiaries: Map<string, Beneficiary> | undefined;
  /** Timers this command cleared explicitly (a fired timer that changed nothing); rare. */
  private cleared: string[] | undefined;
  /** Timers set explicitly (not derived from an aggregate's state); rare. */
  private extra: Timer[] | undefined;

  /** Reactions still to run, the next one last: a stack, so they run depth first. */
  private readonly reactions: Reaction[] = [];
  private reactionsRun = 0;

  constructor(readonly world: World, readonly ids: Ids, readonly at: number) {}

  /** Queues a step's reactions to run next, in the order given (before older ones). */
  react(then: readonly Reaction[]): void {
    for (let i = then.length - 1; i >= 0; i--) this.reactions.push(then[i]!);
  }

  /** The next reaction to run; a command that causes more than the limit is a bug (a loop). */
  nextReaction(): Reaction | undefined {
    const r = this.reactions.pop();
    if (r !== undefined && ++this.reactionsRun > limits.reactionsPerCommandMax) violated(`more than ${limits.reactionsPerCommandMax} reactions in one command`);
    return r;
  }

  clearTimer(id: string): void {
    (this.cleared ??= []).push(id);
  }

  setTimer(t: Timer): void {
    (this.extra ??= []).push(t);
  }

  deposit(id: string): Deposit | undefined {
    return find(this.deposits, id) ?? this.world.deposits.get(id);
  }

  withdrawal(id: string): Withdrawal | undefined {
    return find(this.withdrawals, id) ?? this.world.withdrawals.get(id);
  }

  /** Withdrawals this command created or changed (not yet in the world's indexes). */
  touchedWithdrawals(): Iterable<Withdrawal> {
    return this.withdrawals;
  }

  hasWhiteLabel(id: string): boolean {
    return this.world.whiteLabels.has(id);
  }

  whiteLabel(id: string): WhiteLabel | undefined {
    return this.world.whiteLabels.get(id);
  }

  merchant(id: string): Merchant | undefined {
    return this.world.merchants.get(id);
  }

  merchants(): Iterable<Merchant> {
    return this.world.merchants.values();
  }

  /** The white label's gateway route as this command has left it (one approved here counts: the world learns it at apply). */
  gatewayRoute(whiteLabelId: string): GatewayRoute | undefined {
    return this.routes?.get(whiteLabelId) ?? this.world.whiteLabels.get(whiteLabelId)?.gatewayRoute;
  }

  /** Whether the merchant is suspended as this command has left it (a suspension lifted here counts: the world learns it at apply). */
  suspended(merchantId: string): boolean {
    return this.suspensions?.get(merchantId) ?? this.world.merchants.get(merchantId)?.suspended === true;
  }

  /** The beneficiary as this command has left it (one registered here counts: the world learns it at apply). */
  beneficiary(id: string): Beneficiary | undefined {
    return this.beneficiaries?.get(id) ?? this.world.beneficiaries.get(id);
  }

  nextClearingAt(merchantId: string, livemode: boolean): number | null {
    return this.world.nextClearingAt(merchantId, livemode);
  }

  soloLiveCreditsMinor(operatorId: string, sinceMs: number): Minor {
    return this.world.soloCredits.totalSince(operatorId, sinceMs);
  }

  balances(merchantId: string, livemode: boolean): Balances {
    return this.runningOf(merchantId, livemode)?.current ?? this.world.balances(merchantId, livemode);
  }

  private runningOf(merchantId: string, livemode: boolean): RunningBalances | undefined {
    const running = this.running;
    for (let i = 0; i < running.length; i++) {
      const r = running[i]!;
      if (r.merchantId === merchantId && r.livemode === livemode) return r;
    }
    return undefined;
  }

  /** The next version of a record stream (white label, merchant, beneficiary, ...). */
  private nextRecordVersion(stream: string, kind: StreamKind): number {
    const versions = this.recordVersions ??= new Map();
    const current = versions.get(stream) ?? this.world.streamVersion(stream, kind);
    const next = current === undefined ? 0 : current + 1;
    versions.set(stream, next);
    return next;
  }

  private push(stream: string, streamKind: StreamKind, version: number, livemode: boolean | null, merchantId: string | null, event: JournalEntry['event'], state?: Deposit | Withdrawal): void {
    this.entries.push({ stream, streamKind, version, type: event.type, livemode, merchantId, recordedAt: this.at, event });
    this.entryStates.push(state);
  }

  // An aggregate's entry carries the version evolve gave its new state: evolve checks
  // it continues the state it was given, and the world checks that state is its own.
  // Each event folds once, here, into a new state kept with its entry (the outbox
  // presents each entry's state without folding again).
  emitDeposit(id: string, events: readonly DepositEvent[]): Deposit | undefined {
    let state = this.deposit(id);
    for (let i = 0; i < events.length; i++) {
      const e = silentDeposit(events[i]!);
      const next = evolveDeposit(state, e);
      this.push(id, 'deposit', next.version, next.livemode, next.merchantId, e, next);
      state = next;
    }
    if (state) replace(this.deposits, state);
    return state;
  }

  emitWithdrawal(id: string, events: readonly WithdrawalEvent[]): Withdrawal | undefined {
    let state = this.withdrawal(id);
    for (let i = 0; i < events.length; i++) {
      const e = silentWithdrawal(events[i]!, state);
      const next = evolveWithdrawal(state, e);
      this.push(id, 'withdrawal', next.version, next.livemode, next.merchantId, e, next);
      state = next;
    }
    if (state) replace(this.withdrawals, state);
    return state;
  }

  emitRecord(stream: string, kind: StreamKind, livemode: boolean | null, merchantId: string | null, event: DirectoryEvent): void {
    if (event.type === 'MerchantSuspensionChanged') (this.suspensions ??= new Map()).set(event.merchantId, event.suspended);
    if (event.type === 'GatewayRouteSet') (this.routes ??= new Map()).set(event.whiteLabelId, event.route);
    if (event.type === 'BeneficiaryRegistered') (this.beneficiaries ??= new Map()).set(event.beneficiary.id, { ...event.beneficiary, version: 0 });
    this.push(stream, kind, this.nextRecordVersion(stream, kind), livemode, merchantId, event);
  }

  /**
   * Posts a balanced transaction; returns it. The id is allocated here unless given. A
   * balance transaction is written once, at version 0 (the world keeps no version for it).
   * balancesAfter (ledger/postings.ts) asserts the range invariant on the merchant's
   * buckets: a decider that let a bucket go negative is a bug, and the command stops
   * before anything applies.
   */
  post(owner: MovementOwner, movement: PlannedMovement): BalanceTransaction {
    const txn = buildOwnedTransaction(owner, movement, movement.id ?? this.ids.next('btxn', owner.merchantId), this.at);
    for (let i = 0; i < this.entries.length; i++) if (this.entries[i]!.stream === txn.id) violated(`balance transaction ${txn.id} posted twice in one command`);
    this.push(txn.id, 'balance_transaction', 0, txn.livemode, txn.merchantId, { type: 'BalanceTransactionPosted', at: this.at, transaction: txn });
    const running = this.runningOf(txn.merchantId, txn.livemode);
    if (running) running.current = balancesAfter(running.current, txn);
    else this.running.push({ merchantId: txn.merchantId, livemode: txn.livemode, current: balancesAfter(this.world.balances(txn.merchantId, txn.livemode), txn) });
    return txn;
  }

  /** Posts what one event moves (postings.ts), in the table's order; returns the last transaction. */
  postAll(postings: Postings | null): BalanceTransaction | undefined {
    if (!postings) return undefined;
    let last: BalanceTransaction | undefined;
    for (const m of postings.movements) last = this.post(postings.owner, m);
    return last;
  }

  /**
   * The timer changes: for every aggregate touched, the timers its state calls for.
   * Written with small arrays rather than Maps and Sets: an aggregate has at most a few
   * timers, and this runs on every command.
   */
  timerChanges(): { set: Timer[]; clear: string[] } {
    const set: Timer[] = this.extra ? this.extra.slice() : [];
    const clear: string[] = [];
    if (this.cleared) for (const id of this.cleared) if (!clear.includes(id)) clear.push(id);
    const reconciler = new TimerReconciler(set, clear);
    for (const d of this.deposits) {
      reconciler.begin(this.world.timersByStream.get(d.id));
      depositTimers(d, reconciler);
      reconciler.end();
    }
    for (const w of this.withdrawals) {
      reconciler.begin(this.world.timersByStream.get(w.id));
      withdrawalTimers(w, reconciler);
      reconciler.end();
    }
    return { set, clear };
  }
}

function find<T extends { readonly id: string }>(states: readonly T[], id: string): T | undefined {
  for (let i = 0; i < states.length; i++) if (states[i]!.id === id) return states[i];
  return undefined;
}

/** Puts the object's new state in place of its old one (or adds it). */
function replace<T extends { readonly id: string }>(states: T[], state: T): void {
  for (let i = 0; i < states.length; i++) {
    if (states[i]!.id === state.id) { states[i] = state; return; }
  }
  states.push(state);
}

/** The event as journaled: marked silent when it changes nothing its merchant sees (the object's version stays). */
function silentDeposit(e: DepositEvent): DepositEvent {
  return changesNothingShown(e) && !('silent' in e) ? { ...e, silent: true } as DepositEvent : e;
}

function silentWithdrawal(e: WithdrawalEvent, before: Withdrawal | undefined): WithdrawalEvent {
  return withdrawalChangesNothingShown(e, before) && !('silent' in e) ? { ...e, silent: true } as WithdrawalEvent : e;
}
