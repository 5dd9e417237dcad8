// A command's transaction in memory: reads see the world plus what this command has
// already decided; writes are journal entries. Nothing reaches the world until the
// commit is appended and applied, so a refusal anywhere leaves no trace.

import { assert } from '../assert.ts';
import { evolve as evolveDeposit, type Deposit, type DepositEvent } from '../deposit/state.ts';
import type { DirectoryEvent } from '../directory.ts';
import type { Ids } from '../ports.ts';
import type { JournalEntry, StreamKind, Timer } from '../journal.ts';
import { addBalances, bucketDeltas, buildTransaction, type BalanceTransaction, type Balances, type Movement } from '../ledger/ledger.ts';
import { evolve as evolveWithdrawal, type Withdrawal, type WithdrawalEvent } from '../withdrawal/state.ts';
import type { World } from '../world.ts';
import { depositTimers, withdrawalTimers } from './timers.ts';

export class Tx {
  readonly entries: JournalEntry[] = [];
  readonly deposits = new Map<string, Deposit>();
  readonly withdrawals = new Map<string, Withdrawal>();
  private readonly balanceDeltas = new Map<string, Balances>();
  private readonly versions = new Map<string, number>();
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
    const delta = this.balanceDeltas.get(`${merchantId}:${livemode}`);
    return delta ? addBalances(base, delta) : base;
  }

  private nextVersion(stream: string): number {
    const current = this.versions.get(stream) ?? this.world.streamVersions.get(stream);
    const next = current === undefined ? 0 : current + 1;
    this.versions.set(stream, next);
    return next;
  }

  private push(stream: string, streamKind: StreamKind, livemode: boolean | null, merchantId: string | null, event: JournalEntry['event']): JournalEntry {
    const entry: JournalEntry = { stream, streamKind, version: this.nextVersion(stream), type: event.type, livemode, merchantId, recordedAt: this.at, event };
    this.entries.push(entry);
    return entry;
  }

  emitDeposit(id: string, events: readonly DepositEvent[]): Deposit | undefined {
    let state = this.deposit(id);
    for (const e of events) {
      state = evolveDeposit(state, e);
      const entry = this.push(id, 'deposit', state.livemode, state.merchantId, e);
      assert(entry.version === state!.version, () => `deposit ${id}: journal version ${entry.version} ≠ object version ${state!.version}`);
    }
    if (state) this.deposits.set(id, state);
    return state;
  }

  emitWithdrawal(id: string, events: readonly WithdrawalEvent[]): Withdrawal | undefined {
    let state = this.withdrawal(id);
    for (const e of events) {
      state = evolveWithdrawal(state, e);
      const entry = this.push(id, 'withdrawal', state.livemode, state.merchantId, e);
      assert(entry.version === state!.version, () => `withdrawal ${id}: journal version ${entry.version} ≠ object version ${state!.version}`);
    }
    if (state) this.withdrawals.set(id, state);
    return state;
  }

  emitRecord(stream: string, kind: StreamKind, livemode: boolean | null, merchantId: string | null, event: DirectoryEvent): void {
    this.push(stream, kind, livemode, merchantId, event);
  }

  /** Posts a balanced transaction; returns it. The id is allocated here unless given. */
  post(movement: Omit<Movement, 'id' | 'createdAt'> & { id?: string }): BalanceTransaction {
    const txn = buildTransaction({ ...movement, id: movement.id ?? this.ids.next('btxn'), createdAt: this.at });
    this.push(txn.id, 'balance_transaction', txn.livemode, txn.merchantId, { type: 'BalanceTransactionPosted', at: this.at, transaction: txn });
    const key = `${txn.merchantId}:${txn.livemode}`;
    const delta = bucketDeltas(txn);
    const prior = this.balanceDeltas.get(key);
    this.balanceDeltas.set(key, prior ? addBalances(prior, delta) : delta);
    return txn;
  }

  /** The timer changes: for every aggregate touched, the timers its state calls for. */
  timerChanges(): { set: Timer[]; clear: string[] } {
    const set: Timer[] = [...this.extraTimers];
    const clear = new Set(this.clearedTimers);
    const reconcile = (stream: string, desired: Timer[]) => {
      const wanted = new Map(desired.map((t) => [t.id, t]));
      for (const t of this.world.timersOf(stream)) if (!wanted.has(t.id)) clear.add(t.id);
      for (const t of desired) {
        const existing = this.world.timers.get(t.id);
        if (!existing || existing.dueAt !== t.dueAt || clear.has(t.id)) { set.push(t); clear.delete(t.id); }
      }
    };
    for (const d of this.deposits.values()) reconcile(d.id, depositTimers(d));
    for (const w of this.withdrawals.values()) reconcile(w.id, withdrawalTimers(w));
    return { set, clear: [...clear] };
  }
}
