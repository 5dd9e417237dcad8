// What a decision asks of other aggregates. When one aggregate's event must move another
// (a matched leg holds capacity on a withdrawal, a settled leg fills it, a freed capacity
// matches deposits waiting for liquidity), the step that emitted the event names a
// follow-up as a Reaction instead of calling the other aggregate's handler. The reaction
// loop (react.ts) runs them, depth first, on a bounded worklist in the transaction.
// Types only: deposits.ts and withdrawals.ts build reactions without importing each other.

import type { Rejection } from '../errors.ts';
import type { Minor } from '../money.ts';

export type Reaction =
  /** A matched leg holds its amount on the withdrawal it pays; `paid`: a late slip's leg, held again for the money it brought (`owedMinor`: all of it, when capacity held less). */
  | { readonly type: 'ReserveLeg'; readonly withdrawalId: string; readonly legRef: string; readonly amountMinor: Minor; readonly paid?: true; readonly owedMinor?: Minor }
  /** A leg that closed without money frees what it held. */
  | { readonly type: 'ReleaseLeg'; readonly withdrawalId: string; readonly legRef: string }
  /** A held leg that took no fill at settlement (short-pay) is released if still in flight. */
  | { readonly type: 'ReleaseUnfilledLeg'; readonly withdrawalId: string; readonly legRef: string }
  /** A settled leg's share lands on its withdrawal (ids for its postings drawn when it runs). */
  | { readonly type: 'FillLeg'; readonly withdrawalId: string; readonly legRef: string; readonly amountMinor: Minor; readonly depositId: string }
  /** Capacity appeared in a pool: the deposits waiting there get their turn, oldest first. */
  | { readonly type: 'MatchWaitingDeposits'; readonly whiteLabelId: string; readonly livemode: boolean }
  /** One waiting deposit's turn to be matched against the pool as it is now. */
  | { readonly type: 'MatchWaitingDeposit'; readonly depositId: string }
  /** A claim's refund withdrawal reached a final status: the claim closes with what it paid out. */
  | { readonly type: 'CloseRefundedClaim'; readonly claimId: string }
  /** A deposit was reversed: its claims whose refunds already paid the payer of its transfer record that money as owed back. */
  | { readonly type: 'RecordClaimRefundsOwed'; readonly depositId: string; readonly reasonCode: string; readonly operatorId?: string }
  /** The bank recalled a fill of a claim's closed refund withdrawal: the claim pays that amount again (a replacement refund). */
  | { readonly type: 'RecallClaimRefund'; readonly claimId: string; readonly withdrawalId: string; readonly legRef: string; readonly operatorId?: string }
  /** The payee of a withdrawal disputes what it was paid (the sandbox's scenario 11000). */
  | { readonly type: 'DisputeFills'; readonly withdrawalId: string; readonly amountMinor: Minor; readonly reasonCode: string };

export type Outcome = { readonly ok: true; readonly objectId?: string } | { readonly ok: false; readonly rejection: Rejection };

/** An accepted step and the reactions its events call for, in the order they must run. */
export type Step = { readonly ok: true; readonly objectId?: string; readonly then?: readonly Reaction[] } | { readonly ok: false; readonly rejection: Rejection };

export const fail = (rejection: Rejection): Step => ({ ok: false, rejection });
export const done = (objectId?: string, then?: readonly Reaction[]): Step =>
  objectId === undefined ? (then === undefined ? { ok: true } : { ok: true, then }) : then === undefined ? { ok: true, objectId } : { ok: true, objectId, then };
