// The write side's state in memory: every aggregate's current state, the balance of
// every ledger account, the pending timers and the indexes the deciders' facts come
// from. It is derived: applying the journal's entries in order rebuilds it exactly,
// which is what recovery and `satang verify` do. Only apply() changes it.

import { assert, unreachable, violated } from './assert.ts';
import { writeSideLimits } from './limits.ts';
import { LiquidityWaits } from './matching.ts';
import { SoloCredits } from './solo-credits.ts';
import type { Minor } from './money.ts';
import { evolve as evolveDeposit, isOpenUnpaid, isSettledAndUncleared, type Deposit } from './deposit/state.ts';
import type { Beneficiary, Claim, DirectoryEvent, Merchant, SavedSender, WhiteLabel } from './directory.ts';
import { evolveClaim } from './claim/state.ts';
import type { Commit, JournalEntry, StreamKind, Timer } from './journal.ts';
import { accountKey, bucketInRange, bucketOutOfRange, merchantAccountKey, type Balances, type BalanceTransaction } from './ledger/ledger.ts';
import { evolve as evolveWithdrawal, isFinalWithdrawalStatus, isPayable, type Withdrawal } from './withdrawal/state.ts';

/** A min-heap of timers by (dueAt, id); entries whose timer changed are skipped lazily. */
class TimerQueue {
  private heap: Timer[] = [];
  push(t: Timer): void {
    const h = this.heap;
    h.push(t);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }
  peek(): Timer | undefined { return this.heap[0]; }
  pop(): Timer | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
  get size(): number { return this.heap.length; }

  /** Replaces the queue's entries with these (a heap built in O(n)). */
  rebuild(timers: Timer[]): void {
    const h = timers.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0)); // a sorted array is a heap
    this.heap = h;
  }
}

function before(a: Timer, b: Timer): boolean {
  return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.id < b.id);
}

const mode = (livemode: boolean) => (livemode ? 'live' : 'test');
const noBanksDown: ReadonlyMap<string, string | undefined> = new Map();

/**
 * Where closed orders go when the world lets them go: the write side's snapshots. Memory
 * is then bounded by open work, not history; a command or a GET that names a closed order
 * reads it back from here. Implemented by the adapter that writes the snapshots.
 */
export interface Archive {
  deposit(id: string): Deposit | undefined;
  withdrawal(id: string): Withdrawal | undefined;
  depositReferenceUsed(merchantId: string, livemode: boolean, reference: string): boolean;
  withdrawalReferenceUsed(merchantId: string, livemode: boolean, reference: string): boolean;
  /** Told when an order leaves memory (its snapshot is written): the archive now answers for it. */
  archived(kind: 'deposit' | 'withdrawal', order: { readonly id: string; readonly merchantId: string; readonly livemode: boolean; readonly merchantReference: string }): void;
}

/**
 * The orders of one kind: those in memory, and behind them the archive. get() reads an
 * archived order back without keeping it; set() (an event applied) keeps it again until
 * it closes. Iteration and size cover the orders in memory only — every order, for a
 * world with no archive (recovery, verify, core specs).
 */
export class Orders<T> {
  private readonly resident = new Map<string, T>();
  constructor(private readonly archived: (id: string) => T | undefined) {}
  get(id: string): T | undefined { return this.resident.get(id) ?? this.archived(id); }
  has(id: string): boolean { return this.get(id) !== undefined; }
  set(id: string, value: T): void { this.resident.set(id, value); }
  /** Lets a closed order go from memory (its snapshot is written). */
  evict(id: string): void { this.resident.delete(id); }
  isResident(id: string): boolean { return this.resident.has(id); }
  get size(): number { return this.resident.size; }
  keys(): IterableIterator<string> { return this.resident.keys(); }
  values(): IterableIterator<T> { return this.resident.values(); }
  [Symbol.iterator](): IterableIterator<[string, T]> { return this.resident.entries(); }
}

/** Whether `reference` is taken: by an order in memory, or by an archived one. */
class References {
  private readonly inMemory = new MerchantScoped<string>();
  constructor(private readonly archived: (merchantId: string, livemode: boolean, reference: string) => boolean) {}
  has(merchantId: string, livemode: boolean, reference: string): boolean {
    return this.inMemory.has(merchantId, livemode, reference) || this.archived(merchantId, livemode, reference);
  }
  set(merchantId: string, livemode: boolean, reference: string, id: string): void { this.inMemory.set(merchantId, livemode, reference, id); }
  forget(merchantId: string, livemode: boolean, reference: string): void { this.inMemory.scope(merchantId, livemode)?.delete(reference); }
}

/**
 * At most `max` orders' latest presentations, the oldest entered dropped first: bounded by
 * recent work rather than by the orders open (16,000 deposits waiting for liquidity kept
 * one each, about as much as the deposits themselves).
 */
class RecentPresentations {
  private readonly byId = new Map<string, { readonly state: object; readonly shown: unknown }>();
  constructor(private readonly max: number) {}
  get(id: string): { readonly state: object; readonly shown: unknown } | undefined { return this.byId.get(id); }
  set(id: string, presented: { readonly state: object; readonly shown: unknown }): void {
    const isNew = !this.byId.has(id);
    this.byId.set(id, presented);
    if (isNew && this.byId.size > this.max) this.byId.delete(this.byId.keys().next().value!);
  }
  delete(id: string): void { this.byId.delete(id); }
  clear(): void { this.byId.clear(); }
  get size(): number { return this.byId.size; }
}

export class World {
  /** Set by the write side once its snapshots can answer for closed orders; null keeps every order in memory. */
  archive: Archive | null = null;
  readonly deposits = new Orders<Deposit>((id) => this.archive?.deposit(id));
  readonly withdrawals = new Orders<Withdrawal>((id) => this.archive?.withdrawal(id));
  /** A withdrawal as it is now, for presenting a deposit whose review depends on it (presentDeposit). */
  readonly withdrawalOf = (id: string): Withdrawal | undefined => this.withdrawals.get(id);
  /**
   * Per order presented lately, the API presentation of its latest presented state
   * (core/outbox.ts): a state is immutable, so the snapshot one commit's event carries is
   * the "before" of the next. A cache of the most recent orders only: an order presented
   * again after it left is presented afresh, to the same JSON.
   */
  readonly presentations = new RecentPresentations(writeSideLimits.presentationsCachedMax);
  /** Orders that reached a final state since the last eviction: candidates to let go. */
  private closedSinceEviction: string[] = [];
  readonly whiteLabels = new Map<string, WhiteLabel>();
  readonly merchants = new Map<string, Merchant>();
  readonly beneficiaries = new Map<string, Beneficiary>();
  readonly senders = new Map<string, SavedSender>();
  readonly claims = new Map<string, Claim>();
  readonly unavailableBanks = new Map<string, string | undefined>();
  /** Ledger account balances by accountKey. */
  readonly accounts = new Map<string, bigint>();
  /** Each operator's live credits on their word alone, over the four-eyes window (solo-credits.ts). */
  readonly soloCredits = new SoloCredits();

  /**
   * The sending banks down at their end, with the message for end users: a live outage.
   * The sandbox never sees one (its scenarios and certification go on).
   */
  banksDown(livemode: boolean): ReadonlyMap<string, string | undefined> {
    return livemode ? this.unavailableBanks : noBanksDown;
  }
  /**
   * Pending timers by stream: an aggregate has at most a few, so a small array each. A
   * timer's id starts with its stream and a colon, so the id alone finds it.
   */
  readonly timersByStream = new Map<string, Timer[]>();
  private pendingTimers = 0;
  private readonly timerQueue = new TimerQueue();
  /** Versions of the bank-availability records (the only streams with no object here). */
  private readonly bankVersions = new Map<string, number>();
  /** The journal seq of the last applied entry (set by the adapter that numbers entries). */
  lastSeq = 0;

  // Indexes for the deciders' facts. Those per merchant and mode are keyed by the
  // merchant's own string (a reference, an end user), which the object already holds:
  // no key string is built, hashed and kept per order.
  readonly depositByReference = new References((m, l, r) => this.archive?.depositReferenceUsed(m, l, r) ?? false);
  readonly withdrawalByReference = new References((m, l, r) => this.archive?.withdrawalReferenceUsed(m, l, r) ?? false);
  /** An end user's open unpaid deposits (a few at most: the cap is small). */
  readonly openDepositsByEndUser = new MerchantScoped<string[]>();
  /**
   * Deposits awaiting payment by sender account and amount (senderAmountKey): one at most
   * but for orders from before the duplicate rule covered every end user.
   */
  readonly awaitingPaymentBySenderAmount = new MerchantScoped<string[]>();
  /**
   * Deposits waiting for liquidity by sender account and amount: the twins a deposit of the
   * same sender and amount keeps from being matched while it is being paid, each given its
   * turn when that one is no longer (payingBySenderAmount).
   */
  readonly waitingBySenderAmount = new MerchantScoped<Set<string>>();
  /**
   * Deposits being paid — awaiting payment, or a slip being verified (an unreadable image
   * sends it back to awaiting payment) — by sender account and amount: what keeps a twin
   * waiting for liquidity from being matched (duplicate_open_deposit at matching).
   */
  readonly payingBySenderAmount = new MerchantScoped<string[]>();
  /** The deposit that first used a bank transfer (trans_ref), per mode. */
  readonly depositByTransRef = { live: new Map<string, string>(), test: new Map<string, string>() };
  readonly withdrawalByDispute = new Map<string, string>();
  /** Settled deposits not yet cleared, per merchant and mode: deposit id → clearing time. */
  readonly unclearedDeposits = new MerchantScoped<number>();
  /** Withdrawals that may take payers, per white label and mode, oldest first (insertion order). */
  readonly payableWithdrawals = new Map<string, Set<string>>();
  /** Deposits waiting for liquidity, per white label and mode, oldest first. */
  readonly waitingDeposits = new Map<string, Set<string>>();
  /** How long each pool's deposits waited for liquidity lately (estimated_wait_ms). */
  readonly liquidityWaits = new LiquidityWaits();

  balances(merchantId: string, livemode: boolean): Balances {
    const accounts = this.accounts;
    return {
      availableMinor: accounts.get(merchantAccountKey(merchantId, livemode, 'available')) ?? 0n,
      pendingClearingMinor: accounts.get(merchantAccountKey(merchantId, livemode, 'pending_clearing')) ?? 0n,
      reservedMinor: accounts.get(merchantAccountKey(merchantId, livemode, 'reserved')) ?? 0n,
    };
  }

  /** When the earliest pending clearing of a merchant's deposits releases funds, if any. */
  nextClearingAt(merchantId: string, livemode: boolean): number | null {
    const uncleared = this.unclearedDeposits.scope(merchantId, livemode);
    if (!uncleared) return null;
    let earliest: number | null = null;
    for (const at of uncleared.values()) if (earliest === null || at < earliest) earliest = at;
    return earliest;
  }

  /** The timers due at `now`, in due order, at most `max`. */
  dueTimers(now: number, max: number): Timer[] {
    const due: Timer[] = [];
    const skipped: Timer[] = [];
    while (due.length < max) {
      const t = this.timerQueue.peek();
      if (!t || t.dueAt > now) break;
      this.timerQueue.pop();
      const current = this.timer(t.id);
      if (current && current.dueAt === t.dueAt) { due.push(t); skipped.push(t); }
    }
    for (const t of skipped) this.timerQueue.push(t); // still pending until a commit clears them
    return due;
  }

  nextTimerDueAt(): number | undefined {
    for (;;) {
      const t = this.timerQueue.peek();
      if (!t) return undefined;
      const current = this.timer(t.id);
      if (current && current.dueAt === t.dueAt) return t.dueAt;
      this.timerQueue.pop();
    }
  }

  /** The deposit that first used this bank transfer in this mode, if any. */
  transRefOwner(livemode: boolean, transRef: string): string | undefined {
    return (livemode ? this.depositByTransRef.live : this.depositByTransRef.test).get(transRefKey(transRef));
  }

  static poolKey(whiteLabelId: string, livemode: boolean): string {
    return `${whiteLabelId}:${mode(livemode)}`;
  }

  /**
   * The version a stream is at, or undefined for a stream not seen yet. Aggregates and
   * records carry their version; a balance transaction is written once (version 0) and
   * is never looked up again, so it is always new here: the journal's UNIQUE (stream,
   * version) refuses a second write of the same id.
   */
  streamVersion(stream: string, kind: StreamKind): number | undefined {
    switch (kind) {
      case 'deposit': return this.deposits.get(stream)?.version;
      case 'withdrawal': return this.withdrawals.get(stream)?.version;
      case 'balance_transaction': return undefined;
      case 'white_label': return this.whiteLabels.get(stream)?.version;
      case 'merchant': return this.merchants.get(stream)?.version;
      case 'beneficiary': return this.beneficiaries.get(stream)?.version;
      case 'sender': return this.senders.get(stream)?.version;
      case 'claim': return this.claims.get(stream)?.version;
      case 'bank': return this.bankVersions.get(stream);
      default: return unreachable(kind, 'stream kind');
    }
  }

  /** Every stream's version the world keeps (all but balance transactions), for checks. */
  streamVersions(): Map<string, number> {
    const versions = new Map<string, number>(this.bankVersions);
    for (const objects of [this.deposits, this.withdrawals, this.whiteLabels, this.merchants, this.beneficiaries, this.senders, this.claims] as Iterable<[string, { readonly version: number }]>[]) {
      for (const [id, o] of objects) versions.set(id, o.version);
    }
    return versions;
  }

  apply(commit: Commit): void {
    const states = commit.states;
    const entries = commit.entries;
    if (!states) {
      for (let i = 0; i < entries.length; i++) this.applyEntry(entries[i]!);
    } else {
      for (let i = 0; i < entries.length; i++) {
        const entry = entries[i]!;
        const kind = entry.streamKind;
        if (kind === 'deposit' ? !holds(states.deposits, entry.stream) : kind !== 'withdrawal' || !holds(states.withdrawals, entry.stream)) this.applyEntry(entry);
      }
      // The deciding transaction folded these states from the world it read; they fit
      // only if the world has not moved since: each stream's entries must continue it.
      for (const d of states.deposits) {
        const before = this.deposits.get(d.id);
        checkContinues(entries, d.id, before?.version, d.version);
        this.deposits.set(d.id, d);
        this.indexDeposit(before, d);
      }
      for (const w of states.withdrawals) {
        const before = this.withdrawals.get(w.id);
        checkContinues(entries, w.id, before?.version, w.version);
        this.withdrawals.set(w.id, w);
        this.indexWithdrawal(before, w);
      }
    }
    for (const id of commit.timers.clear) this.clearTimer(id);
    for (const t of commit.timers.set) this.setTimer(t);
  }

  /** The pending timer with this id, if any. */
  timer(id: string): Timer | undefined {
    const timers = this.timersByStream.get(streamOfTimer(id));
    if (!timers) return undefined;
    for (let i = 0; i < timers.length; i++) if (timers[i]!.id === id) return timers[i];
    return undefined;
  }

  get timerCount(): number { return this.pendingTimers; }

  /** Entries in the due-order queue, stale ones included (bounded by compactTimerQueue). */
  get queuedTimerEntries(): number { return this.timerQueue.size; }

  /** Every pending timer (for checks and tests; the scheduler uses dueTimers). */
  allTimers(): Timer[] {
    const all: Timer[] = [];
    for (const timers of this.timersByStream.values()) all.push(...timers);
    return all;
  }

  setTimer(t: Timer): void {
    if (t.id.charCodeAt(t.stream.length) !== 58 || !t.id.startsWith(t.stream)) violated(`timer ${t.id} does not start with its stream ${t.stream} and a colon`);
    const timers = this.timersByStream.get(t.stream);
    if (!timers) {
      this.timersByStream.set(t.stream, [t]);
      this.pendingTimers++;
    } else {
      const at = timers.findIndex((x) => x.id === t.id);
      if (at === -1) { timers.push(t); this.pendingTimers++; } else timers[at] = t;
    }
    this.timerQueue.push(t);
    this.compactTimerQueue();
  }

  /**
   * A cleared or moved timer stays in the queue until it reaches the top. When such stale
   * entries outnumber the pending timers twice over, the queue is rebuilt from the pending
   * ones, so its memory stays within three times what is pending.
   */
  private compactTimerQueue(): void {
    const stale = this.timerQueue.size - this.pendingTimers;
    if (stale > 4096 && stale > 2 * this.pendingTimers) this.timerQueue.rebuild(this.allTimers());
  }

  clearTimer(id: string): void {
    const stream = streamOfTimer(id);
    const timers = this.timersByStream.get(stream);
    if (!timers) return;
    const at = timers.findIndex((x) => x.id === id);
    if (at === -1) return;
    this.pendingTimers--;
    if (timers.length === 1) this.timersByStream.delete(stream);
    else timers.splice(at, 1);
  }

  timersOf(stream: string): Timer[] {
    return this.timersByStream.get(stream)?.slice() ?? [];
  }

  /** Checks a record event continues its stream: version 0 creates it, then one more each time. */
  private continues(entry: JournalEntry, previous: number | undefined): void {
    if (previous === undefined ? entry.version !== 0 : entry.version !== previous + 1) violated(`stream ${entry.stream}: version ${entry.version} after ${previous}`);
  }

  /** A record's first event: version 0 on a stream not seen before. */
  private register<T extends { readonly version: number }>(records: Map<string, T>, id: string, entry: JournalEntry, record: T): void {
    this.continues(entry, records.get(id)?.version);
    records.set(id, record);
  }

  /** The record an event changes: it must exist, and the entry must continue its stream. */
  private recordFor<T extends { readonly version: number }>(records: Map<string, T>, id: string, entry: JournalEntry): T {
    const record = records.get(id);
    if (!record) violated(`${entry.type} for unknown ${entry.streamKind} ${id}`);
    this.continues(entry, record.version);
    return record;
  }

  applyEntry(entry: JournalEntry): void {
    const e = entry.event;
    switch (e.type) {
      case 'DepositCreated': case 'DepositAwaitingLiquidity': case 'DepositMatched': case 'SlipReceived':
      case 'SlipQueued': case 'SlipDequeued': case 'AdditionalSlipReceived': case 'SlipRejected': case 'LegCompleted': case 'LegsReleased': case 'AdditionalTransferMatched':
      case 'DepositUnderReview': case 'ReviewEscalated': case 'ReviewExtended': case 'ReviewApprovalRecorded': case 'DepositSettled':
      case 'DepositRejected': case 'DepositExpired': case 'DepositCanceled': case 'LateSlipWindowClosed':
      case 'DepositCleared': case 'DepositReversed': case 'DepositOverpaid': {
        const before = this.deposits.get(entry.stream);
        const after = evolveDeposit(before, e);
        assert(after.version === entry.version, () => `deposit ${after.id}: version ${after.version} ≠ entry ${entry.version}`);
        this.deposits.set(after.id, after);
        this.indexDeposit(before, after);
        return;
      }
      case 'WithdrawalCreated': case 'WithdrawalApprovalRecorded': case 'WithdrawalRejected': case 'WithdrawalCanceled':
      case 'WithdrawalExpired': case 'LegReserved': case 'LegReleased': case 'FillLanded': case 'WithdrawalSettled':
      case 'FillReversed': case 'ReceiptConfirmed': case 'DisputeOpened': case 'DisputeEvidenceSubmitted': case 'DisputeResolved': {
        const before = this.withdrawals.get(entry.stream);
        const after = evolveWithdrawal(before, e);
        assert(after.version === entry.version, () => `withdrawal ${after.id}: version ${after.version} ≠ entry ${entry.version}`);
        this.withdrawals.set(after.id, after);
        this.indexWithdrawal(before, after);
        return;
      }
      case 'BalanceTransactionPosted':
        this.continues(entry, undefined);
        for (const p of e.transaction.postings) {
          const key = accountKey(p.account);
          const balance = (this.accounts.get(key) ?? 0n) + p.amountMinor;
          // The ledger's range invariant (ledger.ts); a replayed journal that breaks it is refused.
          if (p.account.kind === 'merchant' && !bucketInRange(balance)) bucketOutOfRange(key, balance, e.transaction.id);
          this.accounts.set(key, balance);
        }
        this.noteSoloCredit(e.transaction);
        return;
      default:
        this.applyRecord(entry, e);
    }
  }

  /** A live credit to available is an operator's (its source names them): counted until a second operator's approval says otherwise. */
  private noteSoloCredit(t: BalanceTransaction): void {
    if (t.type === 'adjustment' && t.livemode && t.direction === 'credit' && t.bucketTo === 'available') this.soloCredits.posted(t.source.id, t.id, t.createdAt, t.amountMinor);
  }

  /** A directory record's entry: white labels, merchants, beneficiaries, senders, banks, claims. */
  private applyRecord(entry: JournalEntry, e: DirectoryEvent): void {
    switch (e.type) {
      case 'WhiteLabelRegistered':
        this.register(this.whiteLabels, e.whiteLabel.id, entry, { ...e.whiteLabel, version: 0 });
        return;
      case 'GatewayRouteProposed': case 'GatewayRouteSet': case 'FeeScheduleProposed': case 'FeeScheduleSet':
        this.whiteLabels.set(e.whiteLabelId, whiteLabelAfter(this.recordFor(this.whiteLabels, e.whiteLabelId, entry), e, entry.version));
        return;
      case 'MerchantRegistered':
        this.register(this.merchants, e.merchant.id, entry, { ...e.merchant, version: 0 });
        return;
      case 'MerchantSuspensionChanged': {
        const m = this.recordFor(this.merchants, e.merchantId, entry);
        this.merchants.set(m.id, { ...m, suspended: e.suspended, version: entry.version });
        return;
      }
      case 'SandboxRunReset': {
        const m = this.recordFor(this.merchants, e.merchantId, entry);
        this.merchants.set(m.id, { ...m, sandboxRunGeneration: e.runGeneration, version: entry.version });
        return;
      }
      case 'SequencesAdvancedAfterRestore': {
        const m = this.recordFor(this.merchants, e.merchantId, entry);
        this.merchants.set(m.id, { ...m, sequencesAdvancedFor: e.restoreId, ...(e.sandboxRunGeneration === undefined ? {} : { sandboxRunGeneration: e.sandboxRunGeneration }), version: entry.version });
        return;
      }
      case 'AdjustmentProposed': {
        const m = this.recordFor(this.merchants, e.merchantId, entry);
        this.merchants.set(m.id, { ...m, adjustmentProposals: [...(m.adjustmentProposals ?? []), e.proposal], version: entry.version });
        return;
      }
      case 'AdjustmentApproved': {
        this.soloCredits.approved(e.balanceTransactionId);
        const m = this.recordFor(this.merchants, e.merchantId, entry);
        this.merchants.set(m.id, { ...m, adjustmentProposals: (m.adjustmentProposals ?? []).filter((p) => p.id !== e.proposalId), version: entry.version });
        return;
      }
      case 'BeneficiaryRegistered':
        this.register(this.beneficiaries, e.beneficiary.id, entry, { ...e.beneficiary, version: 0 });
        return;
      case 'BeneficiaryVerified': {
        const b = this.recordFor(this.beneficiaries, e.beneficiaryId, entry);
        this.beneficiaries.set(b.id, { ...b, status: 'verified', verifiedAt: e.at, version: entry.version });
        return;
      }
      case 'SenderRegistered':
        this.register(this.senders, e.sender.id, entry, { ...e.sender, version: 0 });
        return;
      case 'BankAvailabilityChanged':
        this.continues(entry, this.bankVersions.get(entry.stream));
        this.bankVersions.set(entry.stream, entry.version);
        if (e.available) this.unavailableBanks.delete(e.bankCode);
        else this.unavailableBanks.set(e.bankCode, e.messageTh);
        return;
      case 'ClaimOpened':
        this.register(this.claims, e.claim.id, entry, { ...e.claim, version: 0, updatedAt: e.at });
        return;
      case 'ClaimReviewStarted': case 'ClaimRefundApproved': case 'ClaimRefundPaidOut': case 'ClaimClosed': case 'ClaimRejected': case 'ClaimRefundRecalled': case 'ClaimRefundOwed': case 'ClaimWriteOffProposed': case 'ClaimWrittenOff': {
        const c = this.recordFor(this.claims, e.claimId, entry);
        this.claims.set(c.id, evolveClaim(c, e));
        return;
      }
      default:
        unreachable(e, 'journal event');
    }
  }

  // The indexes change only where a membership changed between the old and the new
  // state: most events touch none of them, and building their keys costs more than
  // the comparison.
  private indexDeposit(before: Deposit | undefined, d: Deposit): void {
    if (!before) this.depositByReference.set(d.merchantId, d.livemode, d.merchantReference, d.id);
    const open = isOpenUnpaid(d);
    if (open !== (before !== undefined && isOpenUnpaid(before))) {
      toggleListed(this.openDepositsByEndUser.scopeFor(d.merchantId, d.livemode), d.endUserRef, d.id, open);
    }
    const awaiting = d.status === 'awaiting_payment';
    if (awaiting !== (before?.status === 'awaiting_payment')) {
      toggleListed(this.awaitingPaymentBySenderAmount.scopeFor(d.merchantId, d.livemode), senderAmountKey(d.sender.bankCode, d.sender.accountNumber, d.amountMinor), d.id, awaiting);
    }
    const paying = isBeingPaid(d);
    if (paying !== (before !== undefined && isBeingPaid(before))) {
      toggleListed(this.payingBySenderAmount.scopeFor(d.merchantId, d.livemode), senderAmountKey(d.sender.bankCode, d.sender.accountNumber, d.amountMinor), d.id, paying);
    }
    const waiting = d.status === 'awaiting_liquidity';
    if (waiting !== (before?.status === 'awaiting_liquidity')) {
      const pool = World.poolKey(d.whiteLabelId, d.livemode);
      togglePooled(this.waitingDeposits, pool, d.id, waiting);
      // A set: one sender may have thousands of one amount waiting (a list's includes() made each create O(n)).
      toggleKeyed(this.waitingBySenderAmount.scopeFor(d.merchantId, d.livemode), senderAmountKey(d.sender.bankCode, d.sender.accountNumber, d.amountMinor), d.id, waiting);
      const waitedMs = before?.liquidity ? waitEnded(before.liquidity.waitStartedAt, d) : null;
      if (waitedMs !== null) this.liquidityWaits.record(pool, waitedMs);
    }
    const clearingAt = unclearedAt(d);
    if (clearingAt !== (before ? unclearedAt(before) : null)) {
      if (clearingAt !== null) this.unclearedDeposits.set(d.merchantId, d.livemode, d.id, clearingAt);
      else this.unclearedDeposits.scope(d.merchantId, d.livemode)?.delete(d.id);
    }
    if (this.archive && isClosedDeposit(d)) this.closedSinceEviction.push(d.id);
    this.indexTransRef(d, d.slip?.transRef, before?.slip?.transRef);
    this.indexTransRef(d, d.additionalSlip?.transRef, before?.additionalSlip?.transRef);
    this.indexTransRef(d, d.routeConfirmation?.transRef, before?.routeConfirmation?.transRef);
    // A transfer after settlement the order counted: no other order may count it again.
    const counted = d.countedTransRefs ?? [];
    for (let i = before?.countedTransRefs?.length ?? 0; i < counted.length; i++) this.indexTransRef(d, counted[i], undefined);
  }

  /** The first deposit a trans_ref was seen on keeps it (a later one is the duplicate). */
  private indexTransRef(d: Deposit, transRef: string | undefined, before: string | undefined): void {
    if (!transRef || transRef === before) return;
    const owners = d.livemode ? this.depositByTransRef.live : this.depositByTransRef.test;
    const key = transRefKey(transRef);
    if (!owners.has(key)) owners.set(key, d.id);
  }

  private indexWithdrawal(before: Withdrawal | undefined, w: Withdrawal): void {
    if (!before) this.withdrawalByReference.set(w.merchantId, w.livemode, w.merchantReference, w.id);
    if (w.dispute && w.dispute !== before?.dispute) this.withdrawalByDispute.set(w.dispute.id, w.id);
    const payable = isPayable(w);
    if (payable !== (before !== undefined && isPayable(before))) togglePooled(this.payableWithdrawals, World.poolKey(w.whiteLabelId, w.livemode), w.id, payable);
    if (this.archive && isFinalWithdrawalStatus(w.status)) this.closedSinceEviction.push(w.id);
  }

  /**
   * Lets go of the orders that closed since the last call and still are closed: final,
   * no timer pending (a late-slip window, a clearing), no money uncleared, no dispute
   * open. Call it only once their snapshots are written (the journal does, after each
   * group commit); with no archive it keeps everything. `unwritten(id)` says an order's
   * last change is not written yet (a writer thread still holds it): it stays a candidate.
   * Returns how many went.
   */
  evictClosed(unwritten?: (id: string) => boolean): number {
    if (!this.archive || this.closedSinceEviction.length === 0) return 0;
    const candidates = this.closedSinceEviction;
    this.closedSinceEviction = [];
    let evicted = 0;
    for (const id of candidates) {
      if (unwritten?.(id)) {
        this.closedSinceEviction.push(id);
        continue;
      }
      if (this.timersByStream.has(id)) continue;
      const d = this.deposits.isResident(id) ? this.deposits.get(id)! : undefined;
      if (d && isClosedDeposit(d)) {
        this.deposits.evict(id);
        this.presentations.delete(id);
        this.depositByReference.forget(d.merchantId, d.livemode, d.merchantReference);
        this.archive.archived('deposit', d);
        evicted++;
        continue;
      }
      const w = this.withdrawals.isResident(id) ? this.withdrawals.get(id)! : undefined;
      if (w && isFinalWithdrawalStatus(w.status) && w.dispute?.status !== 'open') {
        this.withdrawals.evict(id);
        this.presentations.delete(id);
        this.withdrawalByReference.forget(w.merchantId, w.livemode, w.merchantReference);
        this.archive.archived('withdrawal', w);
        evicted++;
      }
    }
    return evicted;
  }

  /** After recovery: every order already closed is a candidate (evictClosed lets them go). */
  considerAllClosed(): void {
    for (const d of this.deposits.values()) if (isClosedDeposit(d)) this.closedSinceEviction.push(d.id);
    for (const w of this.withdrawals.values()) if (isFinalWithdrawalStatus(w.status)) this.closedSinceEviction.push(w.id);
  }
}

/**
 * How long a deposit that left awaiting_liquidity waited, if its wait says anything about
 * the pool: matched, or canceled for want of liquidity; not when its merchant or end user
 * canceled it first.
 */
function waitEnded(waitStartedAt: number, d: Deposit): number | null {
  if (d.status === 'awaiting_payment') return d.updatedAt - waitStartedAt;
  if (d.status === 'canceled' && d.cancelReasonCode === 'no_liquidity_available') return d.updatedAt - waitStartedAt;
  return null;
}

/**
 * A deposit with no work left but what an operator or a late transfer may start: final
 * (is_terminal), or settled with its funds cleared (a reversal or an additional transfer
 * can still come, and reads it back from the archive).
 */
function isClosedDeposit(d: Deposit): boolean {
  return d.isTerminal || (d.status === 'settled' && d.settlement !== undefined && d.settlement.clearedAt !== undefined);
}

/** When a settled, not yet cleared deposit releases its funds; null otherwise. */
function unclearedAt(d: Deposit): number | null {
  return isSettledAndUncleared(d) ? d.settlement.clearingAvailableAt : null;
}

function holds(states: readonly { readonly id: string }[], id: string): boolean {
  for (let i = 0; i < states.length; i++) if (states[i]!.id === id) return true;
  return false;
}

/** A timer id is its stream, a colon, then its kind (and argument). */
function streamOfTimer(id: string): string {
  const colon = id.indexOf(':');
  return colon === -1 ? id : id.slice(0, colon);
}

/** The commit's entries on `stream` run on from `before` to `after`, one version each. */
function checkContinues(entries: readonly JournalEntry[], stream: string, before: number | undefined, after: number): void {
  let expected = before === undefined ? 0 : before + 1;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.stream !== stream) continue;
    if (entry.version !== expected) violated(`stream ${stream}: version ${entry.version} after ${expected - 1}`);
    expected++;
  }
  if (expected - 1 !== after) violated(`stream ${stream}: state version ${after} ≠ journal ${expected - 1}`);
}

/** Values per merchant and mode, keyed by a string of the merchant's choosing. */
export class MerchantScoped<V> {
  private readonly scopes = new Map<string, { live: Map<string, V> | undefined; test: Map<string, V> | undefined }>();

  /** The merchant's map in this mode, if it ever held anything (it stays once made). */
  scope(merchantId: string, livemode: boolean): Map<string, V> | undefined {
    const s = this.scopes.get(merchantId);
    return s ? (livemode ? s.live : s.test) : undefined;
  }

  scopeFor(merchantId: string, livemode: boolean): Map<string, V> {
    let s = this.scopes.get(merchantId);
    if (!s) this.scopes.set(merchantId, (s = { live: undefined, test: undefined }));
    return livemode ? (s.live ??= new Map()) : (s.test ??= new Map());
  }

  get(merchantId: string, livemode: boolean, key: string): V | undefined {
    return this.scope(merchantId, livemode)?.get(key);
  }

  has(merchantId: string, livemode: boolean, key: string): boolean {
    return this.scope(merchantId, livemode)?.has(key) ?? false;
  }

  set(merchantId: string, livemode: boolean, key: string, value: V): void {
    this.scopeFor(merchantId, livemode).set(key, value);
  }
}

/** Adds or removes an id in a pool; a pool (per white label and mode) stays when empty. */
function togglePooled(index: Map<string, Set<string>>, key: string, id: string, present: boolean): void {
  let set = index.get(key);
  if (!set) {
    if (!present) return;
    index.set(key, (set = new Set()));
  }
  if (present) set.add(id);
  else set.delete(id);
}

/** Adds or removes an id in a set keyed by a sender and amount; an empty set goes (keys are many, each set short-lived). */
function toggleKeyed(index: Map<string, Set<string>>, key: string, id: string, present: boolean): void {
  const set = index.get(key);
  if (present) {
    if (set) set.add(id);
    else index.set(key, new Set([id]));
    return;
  }
  if (set?.delete(id) && set.size === 0) index.delete(key);
}

/** Awaiting payment, or a slip being verified that may send it back there: a deposit a payer is paying. */
export function isBeingPaid(d: Pick<Deposit, 'status'>): boolean {
  return d.status === 'awaiting_payment' || d.status === 'slip_processing';
}

/**
 * A bank transfer's reference as the duplicate index keys it: without white space and in
 * upper case, so a claim that types a transfer's reference with spaces around it, or in
 * lower case, is still that transfer (a duplicate), not a new one.
 */
export function transRefKey(transRef: string): string {
  return transRef.replace(/\s+/g, '').toUpperCase();
}

/** The key of the duplicate-open-deposit rule: the same sender account and amount. */
export function senderAmountKey(bankCode: string, accountNumber: string, amountMinor: Minor): string {
  return `${bankCode}:${accountNumber}:${amountMinor}`;
}

/** Adds or removes an id in a short list keyed by an end user; an empty list goes. */
function toggleListed(index: Map<string, string[]>, key: string, id: string, present: boolean): void {
  const list = index.get(key);
  if (present) {
    if (!list) index.set(key, [id]);
    else if (!list.includes(id)) list.push(id);
    return;
  }
  if (!list) return;
  const at = list.indexOf(id);
  if (at === -1) return;
  if (list.length === 1) index.delete(key);
  else list.splice(at, 1);
}

/** A white label after a change of its gateway route or fee schedule: a proposal waits, an approval puts it in force. */
function whiteLabelAfter(wl: WhiteLabel, e: Extract<DirectoryEvent, { whiteLabelId: string }>, version: number): WhiteLabel {
  switch (e.type) {
    case 'GatewayRouteProposed': return { ...wl, gatewayRouteProposal: e.proposal, version };
    case 'GatewayRouteSet': {
      const { gatewayRouteProposal: _approved, ...rest } = wl;
      return { ...rest, gatewayRoute: e.route, version };
    }
    case 'FeeScheduleProposed': return { ...wl, feeScheduleProposal: e.proposal, version };
    case 'FeeScheduleSet': {
      const { feeScheduleProposal: _approved, ...rest } = wl;
      return { ...rest, fees: e.fees, amounts: e.amounts, version };
    }
    default: return unreachable(e, 'white label event');
  }
}
