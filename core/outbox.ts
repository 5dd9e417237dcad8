// The merchant-facing events a commit causes: which webhook event type each journal
// entry stands for, with the full snapshot of the object at that version and the
// previous_attributes (only changed keys, plus the previous version; null on *.created;
// absent for balance_transaction). Pure: the adapter gives each one its evt_ id, the
// merchant's next sequence, api_version and the request that caused it.

import { evolve as evolveDeposit, type Deposit } from './deposit/state.ts';
import type { Commit, JournalEntry } from './journal.ts';
import type { Balances } from './ledger/ledger.ts';
import { balancesAfter } from './ledger/postings.ts';
import { presentBalanceTransaction, presentBeneficiary, presentDeposit, presentWithdrawal, type Json, type Prior } from './present.ts';
import { evolve as evolveWithdrawal, type Withdrawal } from './withdrawal/state.ts';
import type { World } from './world.ts';

export interface MerchantEvent {
  readonly type: string;
  readonly merchantId: string;
  readonly whiteLabelId: string;
  readonly livemode: boolean;
  readonly createdAt: number;
  readonly object: { [key: string]: Json };
  /** undefined = key absent (balance_transaction); null on *.created. */
  readonly previousAttributes?: { [key: string]: Json } | null;
  /** withdrawal.filled: the fill that landed (contract: "fill object in withdrawal.filled"), as fills[] shows it. */
  readonly fill?: { [key: string]: Json };
  /** The journal entry this event stands for (stream and version). */
  readonly stream: string;
  readonly version: number;
}

type Obj = { [key: string]: Json };

/**
 * The keys whose values differ, with their values before (null for a key that was
 * absent), then the version before. Keys in the order of `before`, then those new in
 * `after`. Two values are the same when they would serialise to the same JSON.
 */
function diff(before: Obj, after: Obj): Obj {
  const changed: Obj = {};
  let kept = 0; // keys of `before` that `after` has (no JSON value is undefined)
  for (const key in before) {
    const is = after[key];
    if (is !== undefined) kept++;
    if (key === 'version') continue;
    const was = before[key]!;
    if (was !== is && !sameJson(was, is)) changed[key] = was; // shared parts are the same object
  }
  let keys = 0;
  for (const _ in after) keys++;
  // Only when `after` has keys `before` lacks are they looked for, one by one.
  if (keys !== kept) for (const key in after) if (key !== 'version' && !(key in before)) changed[key] = null;
  changed.version = before.version ?? null;
  return changed;
}

/** JSON.stringify(a) === JSON.stringify(b) for JSON values, without building the strings. */
function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  for (let i = 0; i < aKeys.length; i++) {
    const key = aKeys[i]!;
    if (bKeys[i] !== key || !sameJson(a[key], b[key])) return false; // key order counts, as in the JSON text
  }
  return true;
}

function depositEventType(entry: JournalEntry, d: Deposit): string | null {
  switch (entry.event.type) {
    case 'DepositCreated': return 'deposit.created';
    case 'DepositAwaitingLiquidity': return 'deposit.awaiting_liquidity';
    case 'DepositMatched': return 'deposit.matched';
    case 'SlipReceived': return 'deposit.slip_received';
    // A queued slip is announced when its verification starts, not when it joins the queue.
    case 'SlipDequeued': return entry.event.afterSettlement ? null : 'deposit.slip_received';
    case 'SlipRejected': return 'deposit.slip_rejected';
    case 'LegCompleted': return 'deposit.leg_updated';
    // A first approval of a four-eyes review moves the review on (four_eyes_required, the
    // version an approver's expected version checks): told as the escalation is.
    case 'DepositUnderReview': case 'ReviewEscalated': case 'ReviewExtended': case 'ReviewApprovalRecorded': return 'deposit.under_review';
    case 'DepositSettled': return 'deposit.settled';
    case 'DepositRejected': return 'deposit.rejected';
    case 'DepositExpired': return 'deposit.expired';
    case 'DepositCanceled': return 'deposit.canceled';
    case 'LateSlipWindowClosed': return d.status === 'canceled' ? 'deposit.canceled' : 'deposit.expired';
    case 'DepositReversed': return 'deposit.reversed';
    case 'DepositOverpaid': return 'deposit.overpaid';
    default: return null; // changes the merchant's object does not show: journaled silent, its version stays (state.ts changesNothingShown)
  }
}

function withdrawalEventType(entry: JournalEntry): string | null {
  // Journaled silent: the order shows nothing new, its version stays (state.ts withdrawalChangesNothingShown).
  if ('silent' in entry.event && entry.event.silent) return null;
  switch (entry.event.type) {
    case 'WithdrawalCreated': return 'withdrawal.created';
    case 'WithdrawalRejected': return 'withdrawal.rejected';
    case 'WithdrawalCanceled': return 'withdrawal.canceled';
    case 'WithdrawalExpired': return 'withdrawal.expired';
    case 'LegReserved': return 'withdrawal.matched';
    case 'FillLanded': return 'withdrawal.filled';
    case 'WithdrawalSettled': return 'withdrawal.settled';
    case 'FillReversed': return 'withdrawal.fill_reversed';
    case 'ReceiptConfirmed': return 'withdrawal.receipt_confirmed';
    case 'DisputeOpened': return 'withdrawal.disputed';
    case 'DisputeResolved': return 'withdrawal.dispute_resolved';
    // A leg an expired order held, released (its payer's deposit declined or gone): the
    // expiry's refund grows (refunded_minor) and the lock shrinks; told as the expiry it
    // completes, so a consumer applying the highest version is not left with the old refund.
    // On an open order, a payer's reservation released (their deposit expired, was declined
    // or went elsewhere): reserved_minor shrinks and capacity returns. The contract names no
    // event for it; every change the merchant's object shows is told (adding an event type
    // is not breaking), so withdrawal.match_released, withdrawal.matched's counterpart.
    case 'LegReleased': return entry.event.refund ? 'withdrawal.expired' : 'withdrawal.match_released';
    // The approval that opens an order: the contract's "no dedicated event; read status from
    // the next event" (its version moves, visible on GET). Approvals before it and dispute
    // evidence are journaled silent (state.ts withdrawalChangesNothingShown).
    default: return null;
  }
}

/**
 * The events of one commit, computed against the world as it was before the commit.
 * Each deposit and withdrawal entry's state comes from the commit (Commit.entryStates:
 * folded once, by the deciding transaction); only a commit without them (built by hand)
 * is folded here. Each state is presented once: the snapshot of one event is the
 * "before" of the next event on the same object.
 * Deposit settlement credits are announced as balance.credited twice (deposit_settled and
 * fee) as the contract's transition table says, though the fee row is a debit.
 */
export function merchantEvents(world: World, commit: Commit): MerchantEvent[] {
  const events: MerchantEvent[] = [];
  /**
   * Per object, its latest state in this commit and the presentation of that state if it
   * was presented; per wallet, its balances. A commit touches a handful of each, so these
   * are short lists (one item per object or wallet), not maps.
   */
  const latest: { stream: string; state: Deposit | Withdrawal; shown: Obj | undefined }[] = [];
  const balances: { merchantId: string; livemode: boolean; after: Balances }[] = [];
  const entries = commit.entries;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const e = entry.event;
    if (entry.streamKind === 'deposit' || entry.streamKind === 'withdrawal') {
      const isDeposit = entry.streamKind === 'deposit';
      let mine: (typeof latest)[number] | undefined;
      for (let k = 0; k < latest.length && !mine; k++) if (latest[k]!.stream === entry.stream) mine = latest[k];
      const before = mine?.state ?? (isDeposit ? world.deposits.get(entry.stream) : world.withdrawals.get(entry.stream));
      const after = commit.entryStates?.[i] ?? foldOnce(before, entry);
      const shownBefore = mine?.shown;
      if (mine) {
        mine.state = after;
        mine.shown = undefined;
      } else latest.push(mine = { stream: entry.stream, state: after, shown: undefined });
      const type = isDeposit ? depositEventType(entry, after as Deposit) : withdrawalEventType(entry);
      if (!type) continue;
      const object = presentOrder(world, createdAsAnswered(commit, i, after) ?? after, isDeposit);
      mine.shown = object;
      const created = type === 'deposit.created' || type === 'withdrawal.created';
      const previous = before && !created ? diff(shownBefore ?? presentOrder(world, before, isDeposit), object) : null;
      // The fill the event is about: the one that landed, or whose receipt was confirmed (which payee it was).
      const legRef = e.type === 'FillLanded' ? e.fill.legRef : e.type === 'ReceiptConfirmed' ? e.legRef : undefined;
      const fill = legRef !== undefined ? (object.fills as Obj[]).find((f) => f.leg_ref === legRef) : undefined;
      events.push({
        type, merchantId: after.merchantId, whiteLabelId: after.whiteLabelId, livemode: after.livemode, createdAt: entry.recordedAt,
        object, previousAttributes: previous, ...(fill ? { fill } : {}), stream: entry.stream, version: entry.version,
      });
    } else if (e.type === 'BalanceTransactionPosted') {
      const t = e.transaction;
      let wallet: (typeof balances)[number] | undefined;
      for (let k = 0; k < balances.length && !wallet; k++) if (balances[k]!.merchantId === t.merchantId && balances[k]!.livemode === t.livemode) wallet = balances[k];
      const after = balancesAfter(wallet?.after ?? world.balances(t.merchantId, t.livemode), t);
      if (wallet) wallet.after = after;
      else balances.push({ merchantId: t.merchantId, livemode: t.livemode, after });
      const type = t.type === 'clearing_released' ? 'balance.cleared'
        : t.type === 'deposit_settled' || (t.type === 'fee' && t.source.type === 'deposit' && !t.reversesBalanceTransactionId) ? 'balance.credited'
          : t.direction === 'credit' ? 'balance.credited' : 'balance.debited';
      events.push({
        type, merchantId: t.merchantId, whiteLabelId: t.whiteLabelId, livemode: t.livemode, createdAt: t.createdAt,
        object: presentBalanceTransaction(t, after), stream: entry.stream, version: entry.version,
      });
    } else if (e.type === 'BeneficiaryRegistered' && e.beneficiary.status === 'verified') {
      // Registered verified (an operator vouched for the account, the Live P2P way): the
      // merchant learns the id it pays out to as it would from a verification.
      const m = world.merchants.get(e.beneficiary.merchantId);
      if (!m) continue;
      const object = presentBeneficiary({ ...e.beneficiary, version: entry.version });
      events.push({ type: 'beneficiary.verified', merchantId: m.id, whiteLabelId: m.whiteLabelId, livemode: e.beneficiary.livemode, createdAt: entry.recordedAt, object, previousAttributes: null, stream: entry.stream, version: entry.version });
    } else if (e.type === 'BeneficiaryVerified') {
      const b = world.beneficiaries.get(e.beneficiaryId);
      const m = b && world.merchants.get(b.merchantId);
      if (!b || !m) continue;
      const object = presentBeneficiary({ ...b, status: 'verified', verifiedAt: e.at, version: entry.version });
      events.push({ type: 'beneficiary.verified', merchantId: b.merchantId, whiteLabelId: m.whiteLabelId, livemode: b.livemode, createdAt: entry.recordedAt, object, previousAttributes: { status: b.status, version: b.version }, stream: entry.stream, version: entry.version });
    }
  }
  return events;
}

/**
 * The API presentation of an order's state, made once per state: states are immutable, so
 * the snapshot an event carries is the "before" of the next commit's event on the object
 * (world.presentations keeps the latest of the orders presented most recently).
 */
function presentOrder(world: World, state: Deposit | Withdrawal, isDeposit: boolean): Obj {
  const last = world.presentations.get(state.id) as Prior<Deposit & Withdrawal> | undefined; // the same kind as `state`: ids are prefixed by kind
  if (last?.state === state) return last.shown;
  // The last presentation lends the nested parts that did not change (Prior in present.ts).
  const shown = isDeposit ? presentDeposit(state as Deposit, {}, last) : presentWithdrawal(state as Withdrawal, {}, last);
  world.presentations.set(state.id, { state, shown });
  return shown;
}

/** A hand-built commit's entry folded onto the object's state (the write path never needs this). */
/**
 * A deposit's deposit.created shows the order as the create request left it, at version 0,
 * not the instant between (awaiting_liquidity with no legs and no liquidity{}): with a
 * destination (the 201) awaiting_payment and its legs; without one (the 202)
 * awaiting_liquidity with its liquidity{}, as the contract's deposit_order has it "when
 * awaiting_liquidity". The contract's rows: create answered 201 → deposit.created and
 * deposit.matched; 202 → deposit.created and deposit.awaiting_liquidity.
 */
function createdAsAnswered(commit: Pick<Commit, 'entries' | 'entryStates'>, i: number, created: Deposit | Withdrawal): Deposit | undefined {
  const entry = commit.entries[i]!;
  const next = commit.entries[i + 1];
  if (entry.event.type !== 'DepositCreated' || next?.stream !== entry.stream) return undefined;
  if (next.event.type !== 'DepositMatched' && next.event.type !== 'DepositAwaitingLiquidity') return undefined;
  const answered = (commit.entryStates?.[i + 1] ?? foldOnce(created, next)) as Deposit;
  return { ...answered, version: created.version, updatedAt: created.updatedAt };
}

function foldOnce(before: Deposit | Withdrawal | undefined, entry: JournalEntry): Deposit | Withdrawal {
  return entry.streamKind === 'deposit'
    ? evolveDeposit(before as Deposit | undefined, entry.event as Parameters<typeof evolveDeposit>[1])
    : evolveWithdrawal(before as Withdrawal | undefined, entry.event as Parameters<typeof evolveWithdrawal>[1]);
}
