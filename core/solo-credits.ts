// Each operator's live credits posted on their word alone, over the last
// limits.adjustmentSoloWindowMs of business time. The back office proposes (four eyes) a
// live credit that would bring its operator's total to limits.adjustmentFourEyesMinorMin, as
// it proposes one that large, so the control is not passed by splitting a large credit into
// small ones (directory/decide.ts). Part of the world: rebuilt by folding the journal.
// Invariants: a credit a second operator approved (AdjustmentApproved) is not counted, in
// whichever order a commit's record and posting are applied; one person under any spelling
// of their id (operatorKey) has one total; the cost of a credit or a total does not grow
// with how many an operator posted (a funding job posting thousands a day): credits arrive
// in business-time order, each operator's leave from the front of their list as their next
// credit lands, and the total is kept as they come and go. Were business time ever to step
// back, a credit would stay counted longer than the window: more four eyes, never fewer.

import { limits } from './limits.ts';
import type { Minor } from './money.ts';
import { operatorKey } from './operators.ts';

interface SoloCredit { readonly id: string; readonly at: number; amountMinor: Minor }

/** One operator's credits: those from `head` on are in the window as of their last credit, and sum to `total`. */
interface OperatorCredits { credits: SoloCredit[]; head: number; total: Minor }

/** Credits that left the window are dropped from memory once they are this many and half the list. */
const compactAfter = 1_024;

export class SoloCredits {
  private readonly byOperator = new Map<string, OperatorCredits>();
  /** Balance transactions a second operator's approval posted, seen before their posting. */
  private readonly approvedAhead = new Set<string>();

  /** A live credit to available, posted by `operatorId` (its balance transaction `id`). */
  posted(operatorId: string, id: string, at: number, amountMinor: Minor): void {
    if (this.approvedAhead.delete(id)) return;
    const key = operatorKey(operatorId);
    let mine = this.byOperator.get(key);
    if (!mine) this.byOperator.set(key, mine = { credits: [], head: 0, total: 0n });
    mine.credits.push({ id, at, amountMinor });
    mine.total += amountMinor;
    const leftWindow = at - limits.adjustmentSoloWindowMs;
    while (mine.head < mine.credits.length && mine.credits[mine.head]!.at <= leftWindow) mine.total -= mine.credits[mine.head++]!.amountMinor;
    if (mine.head >= compactAfter && mine.head * 2 >= mine.credits.length) {
      mine.credits = mine.credits.slice(mine.head);
      mine.head = 0;
    }
  }

  /** The balance transaction `id` was posted by a second operator's approval: not one operator's word. */
  approved(id: string): void {
    for (const mine of this.byOperator.values()) {
      for (let i = mine.head; i < mine.credits.length; i++) {
        const c = mine.credits[i]!;
        if (c.id !== id) continue;
        mine.total -= c.amountMinor;
        c.amountMinor = 0n;
        return;
      }
    }
    this.approvedAhead.add(id);
  }

  /** What `operatorId` credited alone after `sinceMs` (business time; a credit exactly 24 hours old has left the window). */
  totalSince(operatorId: string, sinceMs: number): Minor {
    const mine = this.byOperator.get(operatorKey(operatorId));
    if (!mine) return 0n;
    let total = mine.total;
    for (let i = mine.head; i < mine.credits.length && mine.credits[i]!.at <= sinceMs; i++) total -= mine.credits[i]!.amountMinor;
    return total;
  }
}
