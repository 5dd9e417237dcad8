// The liquidity matcher: a deposit is paid straight to withdrawing parties of the same
// white label and mode. Pure: it takes the candidate orders oldest first and returns
// legs. Capacity of an order = remaining − what is already in flight to it. At most
// legsPerDepositMax legs; an amount that does not fit in that many legs is not split
// further. With fill_preference 'any' and a live gateway route, the gateway takes the
// whole amount when internal liquidity cannot.

import { limits } from './limits.ts';
import type { Minor } from './money.ts';
import { capacityOf, isMatchable } from './withdrawal/decide.ts';
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
}

export function matchLiquidity(request: MatchRequest, candidatesOldestFirst: Iterable<Withdrawal>): MatchPlan {
  const legs: LegPlan[] = [];
  let left = request.amountMinor;
  for (const w of candidatesOldestFirst) {
    if (left === 0n || legs.length === limits.legsPerDepositMax) break;
    if (!isMatchable(w, request.at) || w.expiresAt < request.payableUntil) continue;
    const capacity = capacityOf(w);
    const take = capacity < left ? capacity : left;
    legs.push({ withdrawal: w, amountMinor: take });
    left -= take;
  }
  if (left === 0n) return { kind: 'internal', legs };
  if (request.fillPreference === 'any' && request.gatewayAvailable) return { kind: 'gateway' };
  return { kind: 'none' };
}
