// What the journal holds: one entry per domain event, on the stream of the object it
// changed, with that object's version after the change. A command's entries, the timer
// changes it causes and nothing else form a Commit, which a Journal port appends
// atomically. Balance transactions are entries too (stream = btxn id), so replaying the
// journal rebuilds every balance from the postings.

import type { Deposit, DepositEvent } from './deposit/state.ts';
import type { DirectoryEvent } from './directory.ts';
import type { BalanceTransaction } from './ledger/ledger.ts';
import type { Withdrawal, WithdrawalEvent } from './withdrawal/state.ts';

export type LedgerEvent = { readonly type: 'BalanceTransactionPosted'; readonly at: number; readonly transaction: BalanceTransaction };

export type DomainEvent = DepositEvent | WithdrawalEvent | DirectoryEvent | LedgerEvent;

export type StreamKind = 'deposit' | 'withdrawal' | 'balance_transaction' | 'white_label' | 'merchant' | 'beneficiary' | 'sender' | 'bank' | 'claim';

export interface JournalEntry {
  readonly stream: string;
  readonly streamKind: StreamKind;
  /** The object's version after this event; 0 for the event that created it. */
  readonly version: number;
  readonly type: DomainEvent['type'];
  readonly livemode: boolean | null;
  readonly merchantId: string | null;
  readonly recordedAt: number;
  readonly event: DomainEvent;
}

export type TimerKind =
  | 'deposit.expire' | 'deposit.close_late_window' | 'deposit.escalate_review' | 'deposit.clear' | 'deposit.liquidity_wait'
  | 'withdrawal.approval_timeout' | 'withdrawal.expire' | 'withdrawal.auto_confirm' | 'beneficiary.verify';

export interface Timer {
  readonly id: string;
  readonly stream: string;
  readonly kind: TimerKind;
  readonly dueAt: number;
  readonly arg?: string;
}

export interface Commit {
  readonly entries: readonly JournalEntry[];
  readonly timers: { readonly set: readonly Timer[]; readonly clear: readonly string[] };
  /**
   * The aggregates' states after the commit, as the deciding transaction computed them.
   * Not stored: the world takes them instead of folding the same events a second time.
   * Replay (recovery, verify) has no such field and folds the entries.
   */
  readonly states?: { readonly deposits: ReadonlyMap<string, Deposit>; readonly withdrawals: ReadonlyMap<string, Withdrawal> };
}

/** Encodes values with bigint for storage: bigint becomes {"$bigint": "digits"}. */
export function encode(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? { $bigint: v.toString() } : v));
}

export function decode<T = unknown>(text: string): T {
  return JSON.parse(text, (_key, v) => (v !== null && typeof v === 'object' && typeof v.$bigint === 'string' && Object.keys(v).length === 1 ? BigInt(v.$bigint) : v)) as T;
}
