// Postings are a table: every event that moves money maps here, and only here, to the
// balanced movements it posts — settlement and its fee, clearing, reversal and its fee
// refund, a withdrawal's reserve, refund on close, fill and fill reversal, an operator's
// adjustment. Pure: the transaction (core/handler/tx.ts) turns each movement into a
// balance transaction (buildOwnedTransaction asserts it balances) and applies it with
// balancesAfter, the one place that adds a transaction to a merchant's buckets and
// asserts the range invariant (no bucket below zero or above the safe integer maximum).
// A fee is earned net of VAT: its VAT goes to vat_payable, the output tax owed on it.

import { assert } from '../assert.ts';
import type { Deposit, DepositEvent } from '../deposit/state.ts';
import { vatOf, vatRecognizedFor, type Minor } from '../money.ts';
import { heldFeeOf, inFlightFor, inFlightOf, remainingOf, type RefundIds, type Withdrawal, type WithdrawalEvent } from '../withdrawal/state.ts';
import {
  bucketDeltas, bucketInRange, bucketOutOfRange, merchantAccountKey,
  type BalanceTransaction, type Balances, type Bucket, type MovementFields, type MovementOwner,
} from './ledger.ts';

/** A movement to post; its balance transaction id is drawn when posted unless given. */
export type PlannedMovement = MovementFields & { readonly id?: string };

/** What one event posts: the owner of the money and its movements, in posting order. */
export interface Postings {
  readonly owner: MovementOwner;
  readonly movements: readonly PlannedMovement[];
}

/**
 * The system side of a fee movement of `amount` holding `vat`: fee revenue takes the fee
 * net of VAT, VAT payable the VAT (the output tax the service owes on the fee it charged).
 * A zero share posts nothing (buildOwnedTransaction skips it).
 */
function feeCounter(amount: Minor, vat: Minor): PlannedMovement['counter'] {
  return [{ account: 'fee_revenue', amountMinor: amount - vat }, { account: 'vat_payable', amountMinor: vat }];
}

/**
 * The VAT in `fee`, a fill's fee share that the decision recognised (or, reversed, took
 * back): the difference the decision made to the VAT of the order's recognised fee. One
 * fill lands or is reversed per decision, which the assertion holds to.
 */
function vatMoved(before: Withdrawal, w: Withdrawal, fee: Minor): Minor {
  const moved = w.feeRecognizedMinor - before.feeRecognizedMinor;
  assert(moved === fee || moved === -fee, () => `${w.id}: one decision moved ${moved} of recognised fee, not one fill's ${fee}`);
  const vat = vatOf(w.feeBreakdown);
  const change = vatRecognizedFor(w.feeTotalMinor, vat, w.feeRecognizedMinor) - vatRecognizedFor(w.feeTotalMinor, vat, before.feeRecognizedMinor);
  return change < 0n ? -change : change;
}

/** The bucket a settled deposit's credit sits (or sat, before a reversal) in: pending_clearing until it clears. */
export function creditBucketOf(d: Deposit): Bucket {
  return d.settlement!.clearedAt === undefined ? 'pending_clearing' : 'available';
}

/**
 * What a deposit event posts; `d` is the deposit after the decision's events. null for
 * the events that move no money (most of them).
 */
export function depositPostings(d: Deposit, e: DepositEvent): Postings | null {
  const owner: MovementOwner = { merchantId: d.merchantId, whiteLabelId: d.whiteLabelId, livemode: d.livemode, source: { type: 'deposit', id: d.id } };
  switch (e.type) {
    case 'DepositSettled': {
      // pending_clearing is credited A, against the withdrawals' transit, the gateway (or the
      // sandbox's simulated counterparty, which stands where a gateway would, in the sandbox
      // ledger), or suspense for what no order could take, and debited the fee.
      const st = e.settlement;
      let transit = 0n, gateway = 0n;
      for (const f of e.fills) {
        if (f.counterparty.kind === 'withdrawal') transit += f.amountMinor;
        else gateway += f.amountMinor;
      }
      const movements: PlannedMovement[] = [{
        id: st.balanceTransactionId, type: 'deposit_settled', amountMinor: st.receivedMinor, from: null, to: 'pending_clearing',
        counter: [{ account: 'p2p_transit', amountMinor: transit }, { account: 'gateway_settlement', amountMinor: gateway }, { account: 'suspense', amountMinor: e.suspenseMinor }],
        availableAt: st.clearingAvailableAt ?? undefined,
      }];
      if (st.feeTotalMinor > 0n) {
        movements.push({ id: st.feeBalanceTransactionId, type: 'fee', amountMinor: st.feeTotalMinor, from: 'pending_clearing', to: null, counter: feeCounter(st.feeTotalMinor, vatOf(st.feeBreakdown)) });
      }
      return { owner, movements };
    }
    case 'DepositCleared': {
      const st = d.settlement!;
      if (st.creditedMinor <= 0n) return null;
      return { owner, movements: [{ type: 'clearing_released', amountMinor: st.creditedMinor, from: 'pending_clearing', to: 'available', counter: [], clearedFromBalanceTransactionId: st.balanceTransactionId }] };
    }
    case 'DepositReversed': {
      // The fee is refunded first, so the bucket never dips below zero between the two
      // rows; the net is the credit (the decider checked the bucket holds it).
      const st = d.settlement!;
      const bucket = creditBucketOf(d);
      const movements: PlannedMovement[] = [];
      if (st.feeTotalMinor > 0n) {
        movements.push({ type: 'fee', amountMinor: st.feeTotalMinor, from: null, to: bucket, counter: feeCounter(st.feeTotalMinor, vatOf(st.feeBreakdown)), reversesBalanceTransactionId: st.feeBalanceTransactionId });
      }
      movements.push({
        id: e.balanceTransactionId, type: 'reversal', amountMinor: st.receivedMinor, from: bucket, to: null,
        counter: [{ account: 'reversals', amountMinor: st.receivedMinor }], reversesBalanceTransactionId: st.balanceTransactionId,
      });
      return { owner: { ...owner, reasonCode: e.reasonCode }, movements };
    }
    default:
      return null;
  }
}

/**
 * A closed order's lock given back, principal and unused fee as separate rows: to
 * available, or, for a claim's refund, to suspense, where it came from. The fee part
 * comes back as the lock went out, withdrawal_*: no fee was charged on it (fee movements
 * are what the fees report and the tax invoice show; month-end audit: a canceled payout's
 * statement showed a "fee" credit never charged).
 */
function released(w: Withdrawal, refund: RefundIds, principal: Minor, unusedFee: Minor): PlannedMovement[] {
  const back = (amountMinor: Minor) => (w.refundOfDepositId !== undefined ? { to: null, counter: [{ account: 'suspense' as const, amountMinor }] } : { to: 'available' as const, counter: [] });
  const movements: PlannedMovement[] = [];
  if (principal > 0n) movements.push({ id: refund.principalBalanceTransactionId, type: 'withdrawal_released', amountMinor: principal, from: 'reserved', ...back(principal) });
  if (unusedFee > 0n) movements.push({ id: refund.feeBalanceTransactionId, type: 'withdrawal_released', amountMinor: unusedFee, from: 'reserved', ...back(unusedFee) });
  return movements;
}

/**
 * What a withdrawal event posts: `before` is the order as the decision found it, `w` as
 * the decision left it. A created order reserves amount + fee; a closed one refunds the
 * remainder and the unused fee as separate rows; a fill pays out of the reserve and
 * recognises its fee share; a reversed fill brings both back.
 */
export function withdrawalPostings(before: Withdrawal | undefined, w: Withdrawal, e: WithdrawalEvent): Postings | null {
  const owner: MovementOwner = { merchantId: w.merchantId, whiteLabelId: w.whiteLabelId, livemode: w.livemode, source: { type: 'withdrawal', id: w.id } };
  switch (e.type) {
    case 'WithdrawalCreated':
      // A claim's refund is locked out of suspense, where money that is no merchant's is
      // kept (DESIGN "Claims"): the merchant's available is never touched.
      if (w.refundOfDepositId !== undefined) {
        return { owner, movements: [{ id: w.reservedBalanceTransactionId, type: 'withdrawal_reserved', amountMinor: w.amountTotalMinor + w.feeTotalMinor, from: null, to: 'reserved', counter: [{ account: 'suspense', amountMinor: w.amountTotalMinor + w.feeTotalMinor }] }] };
      }
      return { owner, movements: [{ id: w.reservedBalanceTransactionId, type: 'withdrawal_reserved', amountMinor: w.amountTotalMinor + w.feeTotalMinor, from: 'available', to: 'reserved', counter: [] }] };
    case 'WithdrawalRejected':
    case 'WithdrawalCanceled':
    case 'WithdrawalExpired': {
      assert(before, 'closing an unknown withdrawal');
      // An expiry holds the legs in flight and the fee they would recognise (w keeps them).
      return { owner, movements: released(w, e.refund, remainingOf(before) - inFlightOf(w), before.feeTotalMinor - before.feeRecognizedMinor - heldFeeOf(w)) };
    }
    case 'LegReleased': {
      if (!e.refund) return null; // a leg of an open order: nothing was taken from the lock
      assert(before, 'releasing a leg of an unknown withdrawal');
      // A leg an expired order held: it and the fee it held go back.
      return { owner, movements: released(w, e.refund, inFlightFor(before, e.legRef) ?? 0n, heldFeeOf(before) - heldFeeOf(w)) };
    }
    case 'FillLanded': {
      const f = e.fill;
      const movements: PlannedMovement[] = [{ id: f.balanceTransactionId, type: 'withdrawal_settled', amountMinor: f.amountMinor, from: 'reserved', to: null, counter: [{ account: 'p2p_transit', amountMinor: f.amountMinor }] }];
      if (f.feeRecognizedMinor > 0n) {
        assert(before, 'a fill lands on a known withdrawal');
        const vat = vatMoved(before, w, f.feeRecognizedMinor);
        movements.push({ id: f.feeBalanceTransactionId!, type: 'fee', amountMinor: f.feeRecognizedMinor, from: 'reserved', to: null, counter: feeCounter(f.feeRecognizedMinor, vat) });
      }
      return { owner, movements };
    }
    case 'FillReversed': {
      const fill = before?.fills.find((f) => f.legRef === e.legRef);
      assert(fill, () => `reversing unknown fill ${e.legRef} of ${w.id}`);
      const movements: PlannedMovement[] = [{
        id: e.balanceTransactionId, type: 'reversal', amountMinor: fill.amountMinor, from: null, to: e.refundTo,
        counter: [{ account: 'reversals', amountMinor: fill.amountMinor }], reversesBalanceTransactionId: fill.balanceTransactionId, reasonCode: e.reasonCode,
      }];
      if (fill.feeRecognizedMinor > 0n) {
        const vat = vatMoved(before!, w, fill.feeRecognizedMinor);
        // Named as a reversal's row, as a reversed deposit's fee refund is: what it reverses, and why.
        movements.push({
          id: e.feeBalanceTransactionId, type: 'fee', amountMinor: fill.feeRecognizedMinor, from: null, to: e.refundTo, counter: feeCounter(fill.feeRecognizedMinor, vat), reasonCode: e.reasonCode,
          ...(fill.feeBalanceTransactionId !== null ? { reversesBalanceTransactionId: fill.feeBalanceTransactionId } : {}),
        });
      }
      // An order that expired holding legs holds their fee reckoned on what it filled: the
      // rounding the reversal moves goes back to available, or into the lock out of what the
      // reversal just returned (at most the fee share it returned, heldFeeMoved).
      const held = e.heldFee;
      if (held && held.amountMinor > 0n) movements.push({ id: held.balanceTransactionId, type: 'withdrawal_released', amountMinor: held.amountMinor, from: 'reserved', to: 'available', counter: [] });
      if (held && held.amountMinor < 0n) movements.push({ id: held.balanceTransactionId, type: 'withdrawal_reserved', amountMinor: -held.amountMinor, from: 'available', to: 'reserved', counter: [] });
      // A closed claim refund's reversed amount goes on to suspense, as its lock does on close (released).
      const fee = fill.feeRecognizedMinor;
      if (e.toSuspense) movements.push({ id: e.toSuspense.balanceTransactionId, type: 'withdrawal_released', amountMinor: fill.amountMinor + fee, from: 'reserved', to: null, counter: [{ account: 'suspense', amountMinor: fill.amountMinor + fee }], reasonCode: e.reasonCode });
      return { owner, movements };
    }
    default:
      return null;
  }
}

/**
 * An operator's adjustment: between the merchant's available bucket and the adjustments
 * account (the other two buckets belong to orders; the decider refuses them).
 */
export function adjustmentPostings(
  a: {
    readonly merchantId: string; readonly whiteLabelId: string; readonly livemode: boolean; readonly operatorId: string; readonly amountMinor: Minor;
    readonly direction: 'credit' | 'debit'; readonly bucket: Bucket; readonly reasonCode: string; readonly reason: string;
  },
  balanceTransactionId: string,
): Postings {
  return {
    owner: { merchantId: a.merchantId, whiteLabelId: a.whiteLabelId, livemode: a.livemode, source: { type: 'adjustment', id: a.operatorId } },
    movements: [{
      id: balanceTransactionId, type: 'adjustment', amountMinor: a.amountMinor, from: a.direction === 'debit' ? a.bucket : null, to: a.direction === 'credit' ? a.bucket : null,
      counter: [{ account: 'adjustments', amountMinor: a.amountMinor }], reasonCode: a.reasonCode, note: a.reason,
    }],
  };
}

/**
 * A merchant's buckets after one of its balance transactions, asserting the range
 * invariant on each: a decider that let a bucket leave its range is a bug, and the
 * command stops before anything applies.
 */
export function balancesAfter(before: Balances, txn: BalanceTransaction): Balances {
  const d = bucketDeltas(txn);
  const after: Balances = {
    availableMinor: before.availableMinor + d.availableMinor,
    pendingClearingMinor: before.pendingClearingMinor + d.pendingClearingMinor,
    reservedMinor: before.reservedMinor + d.reservedMinor,
  };
  if (!bucketInRange(after.availableMinor)) outOfRange(txn, 'available', after.availableMinor);
  if (!bucketInRange(after.pendingClearingMinor)) outOfRange(txn, 'pending_clearing', after.pendingClearingMinor);
  if (!bucketInRange(after.reservedMinor)) outOfRange(txn, 'reserved', after.reservedMinor);
  return after;
}

function outOfRange(txn: BalanceTransaction, bucket: Bucket, balance: Minor): never {
  bucketOutOfRange(merchantAccountKey(txn.merchantId, txn.livemode, bucket), balance, txn.id);
}
