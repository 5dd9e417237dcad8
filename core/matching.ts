// The liquidity matcher: a deposit is paid straight to withdrawing parties of the same
// white label and mode. Pure: it takes the candidate orders oldest first and returns
// legs. Capacity of an order = remaining − what is already in flight to it. At most
// legsPerDepositMax legs; an amount that does not fit in that many legs is not split
// further. No leg is smaller than legAmountMinMinor (1 baht), and none leaves less for the
// next. No two legs of one deposit pay the same account, nor two accounts of one bank that a
// masked slip shows alike (slipLookalikeKeys): a slip is matched to its leg by the receiving
// account, so two such legs would make every slip ambiguous (two orders of one payee, or of
// payees whose accounts look alike, are taken by two deposits instead). With fill_preference 'any' and a live
// gateway route, the gateway takes the whole amount when internal liquidity cannot.

import { slipLookalikeKeys } from './deposit/verification.ts';
import { limits } from './limits.ts';
import type { Minor } from './money.ts';
import { isMatchable } from './withdrawal/decide.ts';
import { capacityOf } from './withdrawal/state.ts';
import type { Withdrawal } from './withdrawal/state.ts';

export interface LegPlan {
  readonly withdrawal: Withdrawal;
  readonly amountMinor: Minor;
}

export type MatchPlan =
  | { readonly kind: 'internal'; readonly legs: readonly LegPlan[] }
  | { readonly kind: 'gateway' }
  | { readonly kind: 'none' };

export interface MatchRequest {
  readonly amountMinor: Minor;
  readonly fillPreference: 'any' | 'internal_only';
  readonly gatewayAvailable: boolean;
  readonly at: number;
  /** The order must stay payable at least this long (the deposit's lifetime). */
  readonly payableUntil: number;
  /**
   * The account an order is paid into, which no two legs may share or have look alike on a
   * slip; undefined when it is not known (the order's own id stands for it then).
   */
  readonly accountOf: (w: Withdrawal) => { readonly bankCode: string; readonly accountNumber: string } | undefined;
}

export function matchLiquidity(request: MatchRequest, candidatesOldestFirst: Iterable<Withdrawal>): MatchPlan {
  const planner = new LiquidityPlanner(request);
  for (const w of candidatesOldestFirst) if (planner.offer(w)) break;
  return planner.plan();
}

/**
 * matchLiquidity one candidate at a time, for a caller that walks its own indexes: offer
 * orders oldest first until offer answers true (nothing left to place), then plan.
 */
export class LiquidityPlanner {
  private readonly legs: LegPlan[] = [];
  private readonly destinations: string[] = [];
  private left: Minor;
  /**
   * The oldest order that could take the whole amount alone: the plan when the legs cannot
   * place it — a payee whose older order was taken in part has its later, larger order
   * passed over (one account per deposit), which would leave the deposit waiting.
   */
  private whole: Withdrawal | undefined;

  constructor(private readonly request: MatchRequest) {
    this.left = request.amountMinor;
  }

  offer(w: Withdrawal): boolean {
    if (this.left === 0n) return true;
    if (!isMatchable(w, this.request.at) || w.expiresAt < this.request.payableUntil) return false;
    const capacity = capacityOf(w);
    if (this.whole === undefined && capacity >= this.request.amountMinor) this.whole = w;
    if (this.legs.length === limits.legsPerDepositMax) return this.whole !== undefined;
    const account = this.request.accountOf(w);
    const keys = account ? slipLookalikeKeys(account.bankCode, account.accountNumber) : [w.id];
    if (keys.some((k) => this.destinations.includes(k))) return false;
    let take = capacity < this.left ? capacity : this.left;
    // Leave the next leg at least the smallest transfer; an order that can take less than
    // that is passed over, and does not block its payee's other orders.
    const rest = this.left - take;
    const legMin = BigInt(limits.legAmountMinMinor);
    if (rest > 0n && rest < legMin) take -= legMin - rest;
    if (take < legMin) return false;
    this.destinations.push(...keys);
    this.legs.push({ withdrawal: w, amountMinor: take });
    this.left -= take;
    return this.left === 0n || (this.legs.length === limits.legsPerDepositMax && this.whole !== undefined);
  }

  plan(): MatchPlan {
    if (this.left === 0n) return { kind: 'internal', legs: this.legs };
    if (this.whole) return { kind: 'internal', legs: [{ withdrawal: this.whole, amountMinor: this.request.amountMinor }] };
    if (this.request.fillPreference === 'any' && this.request.gatewayAvailable) return { kind: 'gateway' };
    return { kind: 'none' };
  }
}

/**
 * How long the deposits of one pool (white label and mode) waited for liquidity lately,
 * for the `estimated_wait_ms` a new waiting deposit is told: the median of the pool's last
 * waits, a wait that ended unmatched (canceled for want of liquidity) counting in full. A
 * pool that has seen no wait yet says half the longest wait. Rebuilt as the journal is
 * applied; an estimate once given is in its deposit's event, so a replay need not repeat it.
 */
export class LiquidityWaits {
  private readonly recent = new Map<string, number[]>();

  record(pool: string, waitedMs: number): void {
    let waits = this.recent.get(pool);
    if (!waits) this.recent.set(pool, (waits = []));
    waits.push(Math.min(Math.max(0, waitedMs), limits.liquidityWaitMs));
    if (waits.length > limits.liquidityWaitsRemembered) waits.shift();
  }

  estimate(pool: string): number {
    const waits = this.recent.get(pool);
    if (!waits || waits.length === 0) return limits.liquidityWaitMs / 2;
    const sorted = [...waits].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
  }
}
