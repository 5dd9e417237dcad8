// Deposit steps: gathers the facts the deposit decider needs (the creation facts, the
// liquidity plan, the capacity of the withdrawals a leg fills, ids), runs it, emits its
// events, posts what the postings table says they move, and names the reactions they
// ask of withdrawals (a matched leg reserves, a closed one releases, a settled one fills).
// It never calls the withdrawal side: the reaction loop (react.ts) does.

import { assert } from '../assert.ts';
import { decide, isRejection, legCapacities, type Match, type SettleContext } from '../deposit/decide.ts';
import type { Deposit, DepositEvent, Leg, Overpayment } from '../deposit/state.ts';
import { admitDeposit } from '../deposit/create.ts';
import type { Rejection } from '../errors.ts';
import { limits } from '../limits.ts';
import { LiquidityPlanner } from '../matching.ts';
import type { Minor } from '../money.ts';
import { isMatchable } from '../withdrawal/decide.ts';
import { capacityOf } from '../withdrawal/state.ts';
import type { Withdrawal } from '../withdrawal/state.ts';
import { scenarioOf, simulatedLegs, simulatedShape } from '../sandbox/scenarios.ts';

import { depositPostings } from '../ledger/postings.ts';
import { isBeingPaid, senderAmountKey, World } from '../world.ts';
import type { Command } from './commands.ts';
import { done, fail, type Reaction, type Step } from './reactions.ts';
import type { Tx } from './tx.ts';

/**
 * The late-slip window closes: an expired order whose late slips paid some of its legs
 * settles them (ids are drawn only then, so a plain close draws none).
 */
export function closeLateWindow(tx: Tx, d: Deposit | undefined, scenario?: true): Step {
  if (!d) return done();
  const settle = d.status === 'expired' && d.legs.some((l) => l.legStatus === 'complete') ? settleContext(tx, d) : undefined;
  return runDeposit(tx, d.id, decide({ type: 'CloseLateSlipWindow', at: tx.at, ...(scenario ? { scenario } : {}), ...(settle ? { settle } : {}) }, d));
}

export function settleContext(tx: Tx, d: Deposit): SettleContext {
  const wl = tx.world.whiteLabels.get(d.whiteLabelId);
  assert(wl, () => `deposit ${d.id} of unknown white label ${d.whiteLabelId}`);
  return {
    fees: wl.fees, capacityByLeg: legCapacities(d, (id) => tx.withdrawal(id)),
    balanceTransactionId: tx.ids.next('btxn', d.merchantId), feeBalanceTransactionId: tx.ids.next('btxn', d.merchantId), claimId: tx.ids.next('clm', d.merchantId),
  };
}

/**
 * Runs the deposit decider and carries out its events: emits them, posts what they move
 * in the ledger, and names what they ask of the withdrawals their legs pay (reactions).
 */
export function runDeposit(tx: Tx, id: string, decision: readonly DepositEvent[] | Rejection): Step {
  if (isRejection(decision)) return fail(decision);
  if (decision.length === 0) return done(id);
  const before = tx.deposit(id);
  const after = tx.emitDeposit(id, decision);
  assert(after, () => `deposit ${id} vanished`);
  const then: Reaction[] = [];
  for (const e of decision) carryOut(tx, before, after, e, then);
  if (before !== undefined && isBeingPaid(before) && !isBeingPaid(after)) {
    // Its twins waiting for liquidity (matchWaitingDeposit kept them back) get their turn.
    for (const twin of tx.world.waitingBySenderAmount.get(after.merchantId, after.livemode, senderAmountKey(after.sender.bankCode, after.sender.accountNumber, after.amountMinor)) ?? []) {
      then.push({ type: 'MatchWaitingDeposit', depositId: twin });
    }
  }
  return done(id, then.length > 0 ? then : undefined);
}

function carryOut(tx: Tx, before: Deposit | undefined, d: Deposit, e: DepositEvent, then: Reaction[]): void {
  tx.postAll(depositPostings(d, e));
  switch (e.type) {
    case 'DepositMatched':
      for (const leg of e.legs) {
        if (leg.counterparty.kind !== 'withdrawal') continue;
        then.push({ type: 'ReserveLeg', withdrawalId: leg.counterparty.withdrawalId, legRef: leg.counterparty.payoutLegRef, amountMinor: leg.amountMinor });
      }
      return;
    case 'DepositSettled':
      if (e.overpayment) openClaim(tx, d, e.overpayment);
      settledLegs(d, e, then);
      return;
    case 'LegCompleted':
    case 'DepositUnderReview': {
      // A late slip's leg held again for the money it brought (decide.ts lateHold).
      const leg = d.legs.find((l) => l.legRef === e.legRef);
      // Held short of that money (capacity others hold), or not at all: the rest is owed, topped up as capacity frees.
      if ((e.holdMinor === undefined && e.owedMinor === undefined) || leg?.counterparty.kind !== 'withdrawal') return;
      then.push({
        type: 'ReserveLeg', withdrawalId: leg.counterparty.withdrawalId, legRef: leg.counterparty.payoutLegRef, amountMinor: e.holdMinor ?? 0n, paid: true,
        ...(e.owedMinor !== undefined ? { owedMinor: e.owedMinor } : {}),
      });
      return;
    }
    case 'DepositExpired':
    case 'DepositCanceled':
      releaseLegs(before, then, d);
      return;
    case 'DepositRejected':
      releaseLegs(before, then);
      return;
    case 'DepositOverpaid':
      openClaim(tx, d, e.overpayment);
      return;
    case 'DepositReversed':
      // Claims whose refunds already paid the payer of the recalled transfer record it as owed back (claims.ts).
      then.push({ type: 'RecordClaimRefundsOwed', depositId: d.id, reasonCode: e.reasonCode, ...(e.decision ? { operatorId: e.decision.operatorId } : {}) });
      return;
    default:
      return;
  }
}

/** Legs that were holding capacity on a withdrawal and no longer do give it back (those `after` still holds keep it). */
function releaseLegs(before: Deposit | undefined, then: Reaction[], after?: Deposit): void {
  for (const leg of before?.legs ?? []) {
    if (!leg.held || leg.counterparty.kind !== 'withdrawal') continue;
    if (after?.legs.some((l) => l.legRef === leg.legRef && l.held)) continue;
    then.push({ type: 'ReleaseLeg', withdrawalId: leg.counterparty.withdrawalId, legRef: leg.counterparty.payoutLegRef });
  }
}

/** An overpayment opens its claim at once: the excess is never the merchant's, so a person decides where it goes. */
function openClaim(tx: Tx, d: Deposit, o: Overpayment): void {
  const note = o.cause === 'same_transfer_excess' ? 'Opened automatically: the slip showed more than the order asked.' : 'Opened automatically: a further transfer arrived after settlement.';
  tx.emitRecord(o.claimId, 'claim', d.livemode, d.merchantId, {
    type: 'ClaimOpened', at: tx.at,
    claim: {
      id: o.claimId, kind: 'overpayment', status: 'open', depositId: d.id, merchantId: d.merchantId, livemode: d.livemode, amountMinor: o.amountMinor, createdAt: tx.at,
      note, evidence: o.cause, notes: [{ at: tx.at, operatorId: null, status: 'open', note }], ...(o.sender ? { transferSender: o.sender } : {}),
    },
  });
}

/** Each settled leg fills its withdrawal; legs that were held but took no fill (short-pay of a multi-leg order) are released. */
function settledLegs(d: Deposit, e: Extract<DepositEvent, { type: 'DepositSettled' }>, then: Reaction[]): void {
  for (const f of e.fills) {
    if (f.counterparty.kind !== 'withdrawal') continue;
    then.push({ type: 'FillLeg', withdrawalId: f.counterparty.withdrawalId, legRef: f.counterparty.payoutLegRef, amountMinor: f.amountMinor, depositId: d.id });
  }
  for (const leg of d.legs) {
    if (leg.counterparty.kind !== 'withdrawal' || e.fills.some((f) => f.legRef === leg.legRef)) continue;
    then.push({ type: 'ReleaseUnfilledLeg', withdrawalId: leg.counterparty.withdrawalId, legRef: leg.counterparty.payoutLegRef });
  }
}

// ---- create ----

type MatchShape = {
  amountMinor: Minor; merchantId: string; whiteLabelId: string; livemode: boolean; fillPreference: 'any' | 'internal_only';
  readonly sender: { readonly bankCode: string; readonly accountNumber: string };
  /** min_ttl_seconds in ms: a route that lives less than this from now is not offered. */
  readonly minTtlMs?: number;
};

/** Whether a route that lives until `routeExpiresAt` leaves the order the time its merchant asked the end user be given (min_ttl_seconds). */
function routeLastsFor(d: Pick<MatchShape, 'minTtlMs'>, routeExpiresAt: number, at: number): boolean {
  return routeExpiresAt > at && routeExpiresAt - at >= (d.minTtlMs ?? 0);
}

/**
 * A sandbox order pays only its own merchant's sandbox withdrawals (DESIGN.md "Sandbox"); a
 * live one any of its pool — but a suspended merchant's: a merchant frozen (a fraud
 * inquiry, say) has no new payer sent to its payees. Legs already in flight go on.
 */
function mayPay(tx: Tx, d: Pick<MatchShape, 'livemode' | 'merchantId'>, w: Withdrawal): boolean {
  return (d.livemode || w.merchantId === d.merchantId) && !tx.suspended(w.merchantId);
}

/**
 * mayPay, and never into the sender's own account (a claim's refund to him, say): a
 * transfer to oneself is no payment, and it would both fill the order and credit the merchant.
 */
function payableBy(tx: Tx, d: Pick<MatchShape, 'livemode' | 'merchantId' | 'sender'>, w: Withdrawal): boolean {
  if (!mayPay(tx, d, w)) return false;
  const account = tx.beneficiary(w.beneficiaryId);
  return !account || account.bankCode !== d.sender.bankCode || account.accountNumber !== d.sender.accountNumber;
}

function plannedLegs(tx: Tx, d: MatchShape, expiresAt: number): Match | null {
  // The white label's gateway route is a real account paid with real money: live orders
  // only. A sandbox order never pays it (a tester scanning its QR would send money there).
  const gateway = d.livemode ? tx.gatewayRoute(d.whiteLabelId) : undefined;
  const route = gateway && routeLastsFor(d, gateway.expiresAt, tx.at) ? gateway : undefined;
  const pool = tx.world.payableWithdrawals.get(World.poolKey(d.whiteLabelId, d.livemode));
  // The world's pool, oldest first, then orders this command opened (created or approved
  // just now): the world's index only learns of those once the commit is applied.
  const accountOf = (w: Withdrawal) => tx.beneficiary(w.beneficiaryId);
  const payable = (w: Withdrawal) => payableBy(tx, d, w);
  const planner = new LiquidityPlanner({
    amountMinor: d.amountMinor, fillPreference: d.fillPreference, gatewayAvailable: route !== undefined, at: tx.at, payableUntil: expiresAt, accountOf,
  });
  let placed = false;
  if (pool) {
    for (const id of pool) {
      const w = tx.withdrawal(id);
      if (w && payable(w) && (placed = planner.offer(w))) break;
    }
  }
  if (!placed) {
    for (const w of tx.touchedWithdrawals()) {
      if (pool?.has(w.id) || w.whiteLabelId !== d.whiteLabelId || w.livemode !== d.livemode || !payable(w)) continue;
      if (planner.offer(w)) break;
    }
  }
  const plan = planner.plan();
  if (plan.kind === 'none') return null;
  if (plan.kind === 'gateway') {
    const legExpiresAt = Math.min(expiresAt, route!.expiresAt);
    const leg: Leg = {
      legRef: tx.ids.next('leg'), sequence: 1, amountMinor: d.amountMinor, expiresAt: legExpiresAt, legStatus: 'pending',
      method: 'promptpay_qr', receiver: { bankCode: route!.bankCode, accountNumber: route!.accountNumber, accountName: route!.accountName },
      counterparty: { kind: 'gateway' }, held: false,
    };
    return { kind: 'matched', legs: [leg], source: 'external_gateway', expiresAt: legExpiresAt };
  }
  const legs: Leg[] = plan.legs.map((p, i) => {
    const ben = tx.beneficiary(p.withdrawal.beneficiaryId);
    assert(ben, () => `withdrawal ${p.withdrawal.id} pays unknown beneficiary ${p.withdrawal.beneficiaryId}`);
    return {
      legRef: tx.ids.next('leg'), sequence: i + 1, amountMinor: p.amountMinor, expiresAt, legStatus: 'pending', method: 'promptpay_qr',
      receiver: { bankCode: ben.bankCode, accountNumber: ben.accountNumber, accountName: ben.accountNameTh },
      counterparty: { kind: 'withdrawal', withdrawalId: p.withdrawal.id, merchantId: p.withdrawal.merchantId, payoutLegRef: tx.ids.next('leg') },
      held: true,
    };
  });
  return { kind: 'matched', legs, source: 'internal', expiresAt };
}

export function createDeposit(tx: Tx, c: Extract<Command, { type: 'CreateDeposit' }>): Step {
  const { merchantId, livemode } = c.actor;
  const merchant = tx.world.merchants.get(merchantId);
  const admitted = admitDeposit(c, {
    merchant, amounts: merchant && tx.world.whiteLabels.get(merchant.whiteLabelId)?.amounts,
    savedSender: c.senderId === undefined ? undefined : tx.world.senders.get(c.senderId),
    unavailableBanks: tx.world.banksDown(livemode),
    referenceUsed: tx.world.depositByReference.has(merchantId, livemode, c.merchantReference),
    openDeposits: (tx.world.openDepositsByEndUser.get(merchantId, livemode, c.endUserRef) ?? []).map((id) => tx.deposit(id)!),
    awaitingPaymentFrom: (bankCode, accountNumber, amountMinor) =>
      (tx.world.awaitingPaymentBySenderAmount.get(merchantId, livemode, senderAmountKey(bankCode, accountNumber, amountMinor)) ?? []).map((id) => tx.deposit(id)!),
  });
  if (isRejection(admitted)) return fail(admitted);
  const { sender, lifetimeSeconds } = admitted;
  const lifetimeMs = lifetimeSeconds * 1000;
  const id = tx.ids.next('dep', merchantId);
  const fillPreference = c.fillPreference ?? 'any';
  const minTtlMs = c.minTtlSeconds ? c.minTtlSeconds * 1000 : undefined;
  const shape = { amountMinor: c.amountMinor, merchantId, whiteLabelId: merchant!.whiteLabelId, livemode, fillPreference, sender, minTtlMs };
  // A twin whose slip is being verified may come back to awaiting payment: the new order waits (duplicate_open_deposit at matching).
  const twin = twinBeingPaid(tx, { merchantId, livemode, sender, amountMinor: c.amountMinor });
  const match: Match = (twin ? null : firstMatch(tx, shape, tx.at + lifetimeMs)) ?? {
    kind: 'waiting',
    liquidity: {
      waitStartedAt: tx.at, retryIntervalMs: limits.liquidityRetryIntervalMs, suggestedAmountsMinor: suggestedAmounts(tx, shape),
      // Scenario 10500 matches after its own wait, so that is the wait it tells.
      estimatedWaitMs: scenarioOf({ livemode, amountMinor: c.amountMinor }) === 10_500 ? limits.sandboxLiquidityWaitMs : tx.world.liquidityWaits.estimate(World.poolKey(shape.whiteLabelId, livemode)),
    },
  };
  const decision = decide({
    type: 'CreateDeposit', at: tx.at, match,
    deposit: {
      id, merchantId, whiteLabelId: merchant!.whiteLabelId, livemode, merchantReference: c.merchantReference, endUserRef: c.endUserRef,
      amountMinor: c.amountMinor, createdAt: tx.at, expiresAt: tx.at + lifetimeMs, lifetimeMs, minTtlMs, sender, hasClientData: c.hasClientData, fillPreference,
      senderId: c.senderId, metadata: c.metadata, returnUrl: c.returnUrl || undefined,
    },
  }, undefined);
  return runDeposit(tx, id, decision);
}

/**
 * A new order's destination. Sandbox liquidity: its own sandbox withdrawals first, else the
 * simulated counterparty, so a sandbox deposit gets legs at once — except where its
 * scenario says otherwise (10500 waits; 10400 and 10700 take the shaped simulated legs,
 * 10400 only when its fill_preference lets a gateway take it).
 */
function firstMatch(tx: Tx, d: MatchShape, expiresAt: number): Match | null {
  if (d.livemode) return plannedLegs(tx, d, expiresAt);
  const scenario = scenarioOf(d);
  if (scenario === 10_500) return null;
  // 10400's fallback route is a gateway, which internal_only refuses, as does a min_ttl_seconds
  // beyond its 4 minutes: as live, the order takes internal liquidity (the merchant's own
  // sandbox withdrawals) or waits for it.
  if (scenario === 10_400 && (d.fillPreference === 'internal_only' || !routeLastsFor(d, tx.at + limits.sandboxFallbackRouteTtlMs, tx.at))) return plannedLegs(tx, d, expiresAt);
  if (scenario === 10_400 || scenario === 10_700) return simulatedMatch(tx, d, expiresAt);
  return plannedLegs(tx, d, expiresAt) ?? simulatedMatch(tx, d, expiresAt);
}

/** Legs to the sandbox's simulated counterparty, shaped by the order's scenario (2 for 10400, 3 for 10700, else 1). */
export function simulatedMatch(tx: Tx, d: { livemode: boolean; amountMinor: Minor }, expiresAt: number): Extract<Match, { kind: 'matched' }> {
  const shape = simulatedShape(d, expiresAt, tx.at);
  return { kind: 'matched', legs: simulatedLegs(d.amountMinor, shape.legs, shape.expiresAt, () => tx.ids.next('leg')), source: shape.source, expiresAt: shape.expiresAt };
}

/**
 * Amounts that would match at once: the largest capacities on offer, rounded down to two
 * significant figures (in multiples of the step) — of orders a payer can be matched to now
 * (not those whose splits are all taken, nor, for a sandbox order, another merchant's, nor
 * one that pays the sender's own account: he would never be matched to it).
 * Two figures say what can be placed without handing a merchant another's open payout to
 * the baht (a deposit too large to match learnt each order's remainder exactly).
 */
function suggestedAmounts(tx: Tx, d: Pick<MatchShape, 'whiteLabelId' | 'livemode' | 'merchantId' | 'sender'>): Minor[] {
  const wl = tx.world.whiteLabels.get(d.whiteLabelId)!;
  const step = BigInt(wl.amounts.depositStepMinor);
  const out = new Set<Minor>();
  for (const id of tx.world.payableWithdrawals.get(World.poolKey(d.whiteLabelId, d.livemode)) ?? []) {
    const w = tx.withdrawal(id)!;
    if (!isMatchable(w, tx.at) || !payableBy(tx, d, w)) continue;
    const amount = twoFigures(capacityOf(w), step);
    if (amount >= BigInt(wl.amounts.depositMinMinor)) out.add(amount > BigInt(wl.amounts.depositMaxMinor) ? BigInt(wl.amounts.depositMaxMinor) : amount);
    if (out.size === 3) break;
  }
  return [...out].sort((a, b) => (a < b ? 1 : -1));
}

/** `amount` rounded down to two significant figures, in multiples of `step` (123,456 → 120,000; with a step of 100, 3,750 → 3,700). */
function twoFigures(amount: Minor, step: Minor): Minor {
  let unit = step;
  while (amount / unit >= 100n) unit *= 10n;
  return (amount / unit) * unit;
}

/** Capacity appeared in a pool: the deposits waiting there, oldest first, each get a turn. */
export function waitingDepositsOf(tx: Tx, whiteLabelId: string, livemode: boolean): Step {
  const waiting = tx.world.waitingDeposits.get(World.poolKey(whiteLabelId, livemode));
  if (!waiting) return done();
  const then: Reaction[] = [];
  for (const depositId of waiting) {
    if (then.length === limits.waitingDepositsMatchedPerCommandMax) break;
    then.push({ type: 'MatchWaitingDeposit', depositId });
  }
  return done(undefined, then);
}

/**
 * Whether another deposit of d's sender and amount is being paid (awaiting payment, or a
 * slip being verified, which an unreadable image sends back), this command's own changes
 * included (the world's indexes have not seen them).
 */
function twinBeingPaid(tx: Tx, d: Pick<Deposit, 'merchantId' | 'livemode' | 'sender' | 'amountMinor'> & { readonly id?: string }): boolean {
  const key = senderAmountKey(d.sender.bankCode, d.sender.accountNumber, d.amountMinor);
  for (const id of tx.world.payingBySenderAmount.get(d.merchantId, d.livemode, key) ?? []) {
    const twin = tx.deposit(id);
    if (twin && isBeingPaid(twin)) return true;
  }
  return tx.deposits.some((t) => t.id !== d.id && isBeingPaid(t) && t.merchantId === d.merchantId && t.livemode === d.livemode
    && senderAmountKey(t.sender.bankCode, t.sender.accountNumber, t.amountMinor) === key);
}

/**
 * One waiting deposit's turn: matched if the pool, as it is now, can take it — and if no
 * deposit of the same sender and amount is being paid (twinBeingPaid): the contract's
 * duplicate_open_deposit, which creation alone cannot keep when both were created waiting
 * (the sender's slip would be ambiguous between them). It keeps waiting, and has its turn
 * again when that one is no longer being paid (runDeposit).
 */
export function matchWaitingDeposit(tx: Tx, id: string): Step {
  const d = tx.deposit(id);
  if (!d || d.status !== 'awaiting_liquidity') return done();
  if (twinBeingPaid(tx, d)) return done();
  const match = plannedLegs(tx, d, tx.at + d.lifetimeMs);
  if (!match || match.kind !== 'matched') return done();
  return runDeposit(tx, id, decide({ type: 'MatchDeposit', at: tx.at, match }, d));
}
