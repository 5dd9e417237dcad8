// A command's transaction in memory: reads see the world plus what this command has
// already decided; writes are journal entries. Nothing reaches the world until the
// commit is appended and applied, so a refusal anywhere leaves no trace.

import { assert, violated } from '../assert.ts';
import { evolve as evolveDeposit, type Deposit, type DepositEvent } from '../deposit/state.ts';
import type { DirectoryEvent } from '../directory.ts';
import type { Ids } from '../ports.ts';
import type { JournalEntry, StreamKind, Timer } from '../journal.ts';
import { addBalances, buildOwnedTransaction, type BalanceTransaction, type Balances, type MovementFields, type MovementOwner } from '../ledger/ledger.ts';
import { evolve as evolveWithdrawal, type Withdrawal, type WithdrawalEvent } from '../withdrawal/state.ts';
import type { World } from '../world.ts';
import { depositTimers, withdrawalTimers } from './timers.ts';

/** A merchant's bucket changes within one command, summed in place (one per merchant and mode). */
interface BalanceDelta { availableMinor: bigint; pendingClearingMinor: bigint; reservedMinor: bigint }

export class Tx {
  readonly entries: JournalEntry[] = [];
  readonly deposits = new Map<string, Deposit>();
  readonly withdrawals = new Map<string, Withdrawal>();
  // Created on first use: most commands touch one or two streams and no balance, and a
  // Map per command that stays empty is garbage the write path need not make.
  private balanceDeltas: Map<string, { live?: BalanceDelta; test?: BalanceDelta }> | undefined;
  private versions: Map<string, number> | undefined;
  /** Timers this command cleared explicitly (a fired timer that changed nothing). */
  readonly clearedTimers: string[] = [];
  /** Timers set explicitly (not derived from an aggregate's state). */
  readonly extraTimers: Timer[] = [];

  constructor(readonly world: World, readonly ids: Ids, readonly at: number) {}

  deposit(id: string): Deposit | undefined {
    return this.deposits.get(id) ?? this.world.deposits.get(id);
  }

  withdrawal(id: string): Withdrawal | undefined {
    return this.withdrawals.get(id) ?? this.world.withdrawals.get(id);
  }

  /** Withdrawals this command created or changed (not yet in the world's indexes). */
  touchedWithdrawals(): Iterable<Withdrawal> {
    return this.withdrawals.values();
  }

  balances(merchantId: string, livemode: boolean): Balances {
    const base = this.world.balances(merchantId, livemode);
    const byMode = this.balanceDeltas?.get(merchantId);
    const delta = livemode ? byMode?.live : byMode?.test;
    return delta ? addBalances(base, delta) : base;
  }

  private nextVersion(stream: string, kind: StreamKind): number {
    if (kind === 'balance_transaction') {
      // Written once, never again: the world keeps no version for them (see streamVersion).
      const versions = this.versions ??= new Map();
      if (versions.has(stream)) violated(`balance transaction ${stream} posted twice in one command`);
      versions.set(stream, 0);
      return 0;
    }
    const versions = this.versions ??= new Map();
    const current = versions.get(stream) ?? this.world.streamVersion(stream, kind);
    const next = current === undefined ? 0 : current + 1;
    versions.set(stream, next);
    return next;
  }

  private push(stream: string, streamKind: StreamKind, livemode: boolean | null, merchantId: string | null, event: JournalEntry['event']): JournalEntry {
    const entry: JournalEntry = { stream, streamKind, version: this.nextVersion(stream, streamKind), type: event.type, livemode, merchantId, recordedAt: this.at, event };
    this.entries.push(entry);
    return entry;
  }

  emitDeposit(id: string, events: readonly DepositEvent[]): Deposit | undefined {
    let state = this.deposit(id);
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      const next = evolveDeposit(state, e);
      const entry = this.push(id, 'deposit', next.livemode, next.merchantId, e);
      assert(entry.version === next.version, () => `deposit ${id}: journal version ${entry.version} ≠ object version ${next.version}`);
      state = next;
    }
    if (state) this.deposits.set(id, state);
    return state;
  }

  emitWithdrawal(id: string, events: readonly WithdrawalEvent[]): Withdrawal | undefined {
    let state = this.withdrawal(id);
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      const next = evolveWithdrawal(state, e);
      const entry = this.push(id, 'withdrawal', next.livemode, next.merchantId, e);
      assert(entry.version === next.version, () => `withdrawal ${id}: journal version ${entry.version} ≠ object version ${next.version}`);
      state = next;
    }
    if (state) this.withdrawals.set(id, state);
    return state;
  }

  emitRecord(stream: string, kind: StreamKind, livemode: boolean | null, merchantId: string | null, event: DirectoryEvent): void {
    this.push(stream, kind, livemode, merchantId, event);
  }

  /** Posts a balanced transaction; returns it. The id is allocated here unless given. */
  post(owner: MovementOwner, movement: MovementFields & { readonly id?: string }): BalanceTransaction {
    const txn = buildOwnedTransaction(owner, movement, movement.id ?? this.ids.next('btxn'), this.at);
    this.push(txn.id, 'balance_transaction', txn.livemode, txn.merchantId, { type: 'BalanceTransactionPosted', at: this.at, transaction: txn });
    const deltas = this.balanceDeltas ??= new Map();
    let byMode = deltas.get(txn.merchantId);
    if (!byMode) deltas.set(txn.merchantId, (byMode = {}));
    const delta = txn.livemode ? (byMode.live ??= zeroDelta()) : (byMode.test ??= zeroDelta());
    addPostings(delta, txn);
    return txn;
  }

  /**
   * The timer changes: for every aggregate touched, the timers its state calls for.
   * Written with small arrays rather than Maps and Sets: an aggregate has at most a few
   * timers, and this runs on every command.
   */
  timerChanges(): { set: Timer[]; clear: string[] } {
    const set: Timer[] = this.extraTimers.slice();
    const clear: string[] = [];
    for (const id of this.clearedTimers) if (!clear.includes(id)) clear.push(id);
    for (const d of this.deposits.values()) this.reconcileTimers(d.id, depositTimers(d), set, clear);
    for (const w of this.withdrawals.values()) this.reconcileTimers(w.id, withdrawalTimers(w), set, clear);
    return { set, clear };
  }

  /** Clears the stream's timers its state no longer calls for; sets the new or moved ones. */
  private reconcileTimers(stream: string, desired: readonly Timer[], set: Timer[], clear: string[]): void {
    const current = this.world.timersByStream.get(stream);
    if (current) {
      for (const t of current) if (!clear.includes(t.id) && !desired.some((d) => d.kind === t.kind && d.arg === t.arg)) clear.push(t.id);
    }
    for (const t of desired) {
      const existing = current?.find((c) => c.kind === t.kind && c.arg === t.arg);
      const cleared = clear.indexOf(t.id);
      if (!existing || existing.dueAt !== t.dueAt || cleared !== -1) {
        set.push(t);
        if (cleared !== -1) clear.splice(cleared, 1);
      }
    }
  }
}

function zeroDelta(): BalanceDelta {
  return { availableMinor: 0n, pendingClearingMinor: 0n, reservedMinor: 0n };
}

/** Adds what a transaction moves in its own merchant's buckets (as bucketDeltas would). */
function addPostings(delta: BalanceDelta, txn: BalanceTransaction): void {
  for (const p of txn.postings) {
    const a = p.account;
    if (a.kind !== 'merchant' || a.merchantId !== txn.merchantId || a.livemode !== txn.livemode) continue;
    if (a.bucket === 'available') delta.availableMinor += p.amountMinor;
    else if (a.bucket === 'pending_clearing') delta.pendingClearingMinor += p.amountMinor;
    else delta.reservedMinor += p.amountMinor;
  }
}
