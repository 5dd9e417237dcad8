// Each operator's live credits posted on their word alone, over the last
// limits.adjustmentSoloWindowMs of business time. The back office proposes (four eyes) a
// live credit that would bring its operator's total to limits.adjustmentFourEyesMinorMin, as
// it proposes one that large, so the control is not passed by splitting a large credit into
// small ones (directory/decide.ts). Part of the world: rebuilt by folding the journal, each
// operator's list pruned to the window as their next credit lands.
// Invariants: a credit a second operator approved (AdjustmentApproved) is not counted, in
// whichever order a commit's record and posting are applied; one person under any spelling
// of their id (operatorKey) has one total.

import { limits } from './limits.ts';
import type { Minor } from './money.ts';
import { operatorKey } from './operators.ts';

interface SoloCredit { readonly id: string; readonly at: number; readonly amountMinor: Minor }

export class SoloCredits {
  private readonly byOperator = new Map<string, SoloCredit[]>();
  /** Balance transactions a second operator's approval posted, seen before their posting. */
  private readonly approvedAhead = new Set<string>();

  /** A live credit to available, posted by `operatorId` (its balance transaction `id`). */
  posted(operatorId: string, id: string, at: number, amountMinor: Minor): void {
    if (this.approvedAhead.delete(id)) return;
    const key = operatorKey(operatorId);
    const kept = (this.byOperator.get(key) ?? []).filter((c) => c.at > at - limits.adjustmentSoloWindowMs);
    kept.push({ id, at, amountMinor });
    this.byOperator.set(key, kept);
  }

  /** The balance transaction `id` was posted by a second operator's approval: not one operator's word. */
  approved(id: string): void {
    for (const credits of this.byOperator.values()) {
      const i = credits.findIndex((c) => c.id === id);
      if (i >= 0) {
        credits.splice(i, 1);
        return;
      }
    }
    this.approvedAhead.add(id);
  }

  /** What `operatorId` credited alone after `sinceMs` (business time; a credit exactly 24 hours old has left the window). */
  totalSince(operatorId: string, sinceMs: number): Minor {
    let total = 0n;
    for (const c of this.byOperator.get(operatorKey(operatorId)) ?? []) if (c.at > sinceMs) total += c.amountMinor;
    return total;
  }
}
