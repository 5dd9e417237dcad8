// The write side's state in memory: every aggregate's current state, the balance of
// every ledger account, the pending timers and the indexes the deciders' facts come
// from. It is derived: applying the journal's entries in order rebuilds it exactly,
// which is what recovery and `satang verify` do. Only apply() changes it.

import { assert, unreachable, violated } from './assert.ts';
import { evolve as evolveDeposit, isOpenUnpaid, type Deposit } from './deposit/state.ts';
import type { Beneficiary, Claim, Merchant, SavedSender, WhiteLabel } from './directory.ts';
import type { Commit, JournalEntry, Timer } from './journal.ts';
import { accountKey, merchantAccountKey, type Balances } from './ledger/ledger.ts';
import { evolve as evolveWithdrawal, isOpenStatus, type Withdrawal } from './withdrawal/state.ts';

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
}

function before(a: Timer, b: Timer): boolean {
  return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.id < b.id);
}

const mode = (livemode: boolean) => (livemode ? 'live' : 'test');

export class World {
  readonly deposits = new Map<string, Deposit>();
  readonly withdrawals = new Map<string, Withdrawal>();
  readonly whiteLabels = new Map<string, WhiteLabel>();
  readonly merchants = new Map<string, Merchant>();
  readonly beneficiaries = new Map<string, Beneficiary>();
  readonly senders = new Map<string, SavedSender>();
  readonly claims = new Map<string, Claim>();
  readonly unavailableBanks = new Map<string, string | undefined>();
  /** Ledger account balances by accountKey. */
  readonly accounts = new Map<string, bigint>();
  readonly timers = new Map<string, Timer>();
  readonly timersByStream = new Map<string, Set<string>>();
  private readonly timerQueue = new TimerQueue();
  /** Last version per stream, for every stream (aggregates and records alike). */
  readonly streamVersions = new Map<string, number>();
  /** The journal seq of the last applied entry (set by the adapter that numbers entries). */
  lastSeq = 0;

  // Indexes for the deciders' facts.
  readonly depositByReference = new Map<string, string>();
  readonly withdrawalByReference = new Map<string, string>();
  readonly openDepositsByEndUser = new Map<string, Set<string>>();
  readonly depositByTransRef = new Map<string, string>();
  readonly withdrawalByDispute = new Map<string, string>();
  /** Settled deposits not yet cleared, per merchant and mode: deposit id → clearing time. */
  readonly unclearedDeposits = new Map<string, Map<string, number>>();
  /** Withdrawals that may take payers, per white label and mode, oldest first (insertion order). */
  readonly payableWithdrawals = new Map<string, Set<string>>();
  /** Deposits waiting for liquidity, per white label and mode, oldest first. */
  readonly waitingDeposits = new Map<string, Set<string>>();

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
    const uncleared = this.unclearedDeposits.get(World.referenceKey(merchantId, livemode, ''));
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
      const current = this.timers.get(t.id);
      if (current && current.dueAt === t.dueAt) { due.push(t); skipped.push(t); }
    }
    for (const t of skipped) this.timerQueue.push(t); // still pending until a commit clears them
    return due;
  }

  nextTimerDueAt(): number | undefined {
    for (;;) {
      const t = this.timerQueue.peek();
      if (!t) return undefined;
      const current = this.timers.get(t.id);
      if (current && current.dueAt === t.dueAt) return t.dueAt;
      this.timerQueue.pop();
    }
  }

  static referenceKey(merchantId: string, livemode: boolean, reference: string): string {
    return `${merchantId}:${mode(livemode)}:${reference}`;
  }
  static poolKey(whiteLabelId: string, livemode: boolean): string {
    return `${whiteLabelId}:${mode(livemode)}`;
  }
  static transRefKey(livemode: boolean, transRef: string): string {
    return `${mode(livemode)}:${transRef}`;
  }

  apply(commit: Commit): void {
    const states = commit.states;
    if (!states) {
      for (const entry of commit.entries) this.applyEntry(entry);
    } else {
      for (const entry of commit.entries) {
        const folded = entry.streamKind === 'deposit' ? states.deposits.has(entry.stream) : entry.streamKind === 'withdrawal' && states.withdrawals.has(entry.stream);
        if (folded) this.advanceVersion(entry);
        else this.applyEntry(entry);
      }
      for (const [id, d] of states.deposits) {
        assert(d.version === this.streamVersions.get(id), () => `deposit ${id}: state version ${d.version} ≠ journal`);
        const before = this.deposits.get(id);
        this.deposits.set(id, d);
        this.indexDeposit(before, d);
      }
      for (const [id, w] of states.withdrawals) {
        assert(w.version === this.streamVersions.get(id), () => `withdrawal ${id}: state version ${w.version} ≠ journal`);
        const before = this.withdrawals.get(id);
        this.withdrawals.set(id, w);
        this.indexWithdrawal(before, w);
      }
    }
    for (const id of commit.timers.clear) this.clearTimer(id);
    for (const t of commit.timers.set) this.setTimer(t);
  }

  setTimer(t: Timer): void {
    this.timers.set(t.id, t);
    toggle(this.timersByStream, t.stream, t.id, true);
    this.timerQueue.push(t);
  }

  clearTimer(id: string): void {
    const t = this.timers.get(id);
    if (!t) return;
    this.timers.delete(id);
    toggle(this.timersByStream, t.stream, id, false);
  }

  timersOf(stream: string): Timer[] {
    const ids = this.timersByStream.get(stream);
    return ids ? [...ids].map((id) => this.timers.get(id)!) : [];
  }

  private advanceVersion(entry: JournalEntry): void {
    const previous = this.streamVersions.get(entry.stream);
    if (previous === undefined ? entry.version !== 0 : entry.version !== previous + 1) violated(`stream ${entry.stream}: version ${entry.version} after ${previous}`);
    this.streamVersions.set(entry.stream, entry.version);
  }

  applyEntry(entry: JournalEntry): void {
    this.advanceVersion(entry);
    const e = entry.event;
    switch (e.type) {
      case 'DepositCreated': case 'DepositAwaitingLiquidity': case 'DepositMatched': case 'SlipReceived':
      case 'AdditionalSlipReceived': case 'SlipRejected': case 'LegCompleted': case 'LegsReleased':
      case 'DepositUnderReview': case 'ReviewEscalated': case 'ReviewApprovalRecorded': case 'DepositSettled':
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
        for (const p of e.transaction.postings) {
          const key = accountKey(p.account);
          this.accounts.set(key, (this.accounts.get(key) ?? 0n) + p.amountMinor);
        }
        return;
      case 'WhiteLabelRegistered':
        this.whiteLabels.set(e.whiteLabel.id, { ...e.whiteLabel, version: 0 });
        return;
      case 'GatewayRouteSet': {
        const wl = this.whiteLabels.get(e.whiteLabelId);
        assert(wl, () => `gateway route for unknown white label ${e.whiteLabelId}`);
        this.whiteLabels.set(wl.id, { ...wl, gatewayRoute: e.route, version: entry.version });
        return;
      }
      case 'MerchantRegistered':
        this.merchants.set(e.merchant.id, { ...e.merchant, version: 0 });
        return;
      case 'MerchantSuspensionChanged': {
        const m = this.merchants.get(e.merchantId);
        assert(m, () => `suspension of unknown merchant ${e.merchantId}`);
        this.merchants.set(m.id, { ...m, suspended: e.suspended, version: entry.version });
        return;
      }
      case 'SandboxRunReset': {
        const m = this.merchants.get(e.merchantId);
        assert(m, () => `sandbox reset of unknown merchant ${e.merchantId}`);
        this.merchants.set(m.id, { ...m, sandboxRunGeneration: e.runGeneration, version: entry.version });
        return;
      }
      case 'BeneficiaryRegistered':
        this.beneficiaries.set(e.beneficiary.id, { ...e.beneficiary, version: 0 });
        return;
      case 'BeneficiaryVerified': {
        const b = this.beneficiaries.get(e.beneficiaryId);
        assert(b, () => `verification of unknown beneficiary ${e.beneficiaryId}`);
        this.beneficiaries.set(b.id, { ...b, status: 'verified', verifiedAt: e.at, version: entry.version });
        return;
      }
      case 'SenderRegistered':
        this.senders.set(e.sender.id, { ...e.sender, version: 0 });
        return;
      case 'BankAvailabilityChanged':
        if (e.available) this.unavailableBanks.delete(e.bankCode);
        else this.unavailableBanks.set(e.bankCode, e.messageTh);
        return;
      case 'ClaimOpened':
        this.claims.set(e.claim.id, { ...e.claim, version: 0, updatedAt: e.at });
        return;
      default:
        unreachable(e, 'journal event');
    }
  }

  private indexDeposit(before: Deposit | undefined, d: Deposit): void {
    if (!before) this.depositByReference.set(World.referenceKey(d.merchantId, d.livemode, d.merchantReference), d.id);
    const userKey = World.referenceKey(d.merchantId, d.livemode, d.endUserRef);
    toggle(this.openDepositsByEndUser, userKey, d.id, isOpenUnpaid(d));
    toggle(this.waitingDeposits, World.poolKey(d.whiteLabelId, d.livemode), d.id, d.status === 'awaiting_liquidity');
    const merchantKey = World.referenceKey(d.merchantId, d.livemode, '');
    const clearingAt = d.status === 'settled' && d.settlement && d.settlement.clearedAt === undefined ? d.settlement.clearingAvailableAt : null;
    let uncleared = this.unclearedDeposits.get(merchantKey);
    if (clearingAt !== null) {
      if (!uncleared) this.unclearedDeposits.set(merchantKey, (uncleared = new Map()));
      uncleared.set(d.id, clearingAt);
    } else if (uncleared?.delete(d.id) && uncleared.size === 0) this.unclearedDeposits.delete(merchantKey);
    for (const transRef of [d.slip?.transRef, d.additionalSlip?.transRef, d.routeConfirmation?.transRef]) {
      if (transRef && !this.depositByTransRef.has(World.transRefKey(d.livemode, transRef))) {
        this.depositByTransRef.set(World.transRefKey(d.livemode, transRef), d.id);
      }
    }
  }

  private indexWithdrawal(before: Withdrawal | undefined, w: Withdrawal): void {
    if (!before) this.withdrawalByReference.set(World.referenceKey(w.merchantId, w.livemode, w.merchantReference), w.id);
    if (w.dispute) this.withdrawalByDispute.set(w.dispute.id, w.id);
    const payable = (w.status === 'open' || w.status === 'partially_filled') && isOpenStatus(w.status);
    toggle(this.payableWithdrawals, World.poolKey(w.whiteLabelId, w.livemode), w.id, payable);
  }
}

function toggle(index: Map<string, Set<string>>, key: string, id: string, present: boolean): void {
  let set = index.get(key);
  if (present) {
    if (!set) index.set(key, (set = new Set()));
    set.add(id);
  } else if (set) {
    set.delete(id);
    if (set.size === 0) index.delete(key);
  }
}
