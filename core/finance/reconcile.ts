// The merchant's daily reconciliation job, its rules (contract: Webhook envelope
// "sequence", Limits "Sequence gap considered lost", Events "GET /v1/pay/events"):
// - sequences increase per merchant; a missing run of them is a gap, normal while young
//   (pending) and a real loss once the event after it is older than 4 days (lost); the
//   sequences the feed says a restore skipped (coverage.skipped) never held an event and
//   are no gap;
// - balance transactions accumulate (never overwrite): their signed amounts per bucket,
//   summed from the first sequence, must equal the balance; a store that began later
//   (retention, or --since-sequence) starts from the balance before its first balance
//   transaction, which that transaction's balance_after less its own movement gives;
// - an object's latest stored snapshot must agree with a GET of it (a missing event shows
//   as a status or fill figure the events never told).
// Pure: the command line (scripts/cli/reconcile.ts) fetches, stores and reports.

import { financeLimits } from '../limits.ts';

export interface StoredEvent {
  readonly id: string;
  readonly sequence: number;
  readonly type: string;
  readonly created_at: string;
  readonly data: { readonly object: Record<string, unknown> & { readonly object?: string; readonly id?: string } };
}

export interface SequenceGap {
  /** The first and last missing sequence. */
  readonly from: number;
  readonly to: number;
  readonly state: 'pending' | 'lost';
  /** How long ago the first event after the gap was created (ms, service clock). */
  readonly ageMs: number;
}

/** A run of sequences the feed says no event ever held (coverage.skipped: a restore's jump), first and last. */
export interface SkippedRange {
  readonly from: number;
  readonly to: number;
}

/**
 * The gaps in `sequences` above `base` (the sequence the store started after), each aged
 * by the created_at of the event that follows it, leaving out the `skipped` ranges (a gap
 * partly skipped keeps its other parts). Sorted input is not required.
 */
export function sequenceGaps(base: number, events: readonly Pick<StoredEvent, 'sequence' | 'created_at'>[], nowMs: number, skipped: readonly SkippedRange[] = []): SequenceGap[] {
  const sorted = [...events].filter((e) => e.sequence > base).sort((a, b) => a.sequence - b.sequence);
  const gaps: SequenceGap[] = [];
  let expected = base + 1;
  for (const e of sorted) {
    if (e.sequence > expected) {
      const ageMs = nowMs - Date.parse(e.created_at);
      const state = ageMs > financeLimits.sequenceGapLostAfterMs ? 'lost' : 'pending';
      for (const [from, to] of unskipped(expected, e.sequence - 1, skipped)) gaps.push({ from, to, state, ageMs });
    }
    expected = Math.max(expected, e.sequence + 1);
  }
  return gaps;
}

/** The parts of from..to outside every skipped range, ascending. */
function unskipped(from: number, to: number, skipped: readonly SkippedRange[]): [number, number][] {
  const parts: [number, number][] = [];
  let at = from;
  for (const s of [...skipped].sort((a, b) => a.from - b.from)) {
    if (s.to < at || s.from > to) continue;
    if (s.from > at) parts.push([at, s.from - 1]);
    at = Math.max(at, s.to + 1);
  }
  if (at <= to) parts.push([at, to]);
  return parts;
}

export interface BucketSums {
  available_minor: bigint;
  pending_clearing_minor: bigint;
  reserved_minor: bigint;
}

const bucketField = { available: 'available_minor', pending_clearing: 'pending_clearing_minor', reserved: 'reserved_minor' } as const;

type TransactionObject = StoredEvent['data']['object'];

/** Adds a balance transaction's movement to `sums` (sign 1), or takes it away (sign -1). */
function move(sums: BucketSums, t: TransactionObject, sign: 1n | -1n): void {
  const amount = BigInt(t.amount_minor as number) * sign;
  const from = t.bucket_from as keyof typeof bucketField | null;
  const to = t.bucket_to as keyof typeof bucketField | null;
  if (from) sums[bucketField[from]] -= amount;
  if (to) sums[bucketField[to]] += amount;
}

/** The buckets' totals from every balance transaction among the events (each id once), added to `opening` (zero by default). */
export function balanceTransactionSums(events: readonly StoredEvent[], opening?: BucketSums): BucketSums {
  const sums: BucketSums = opening ? { ...opening } : { available_minor: 0n, pending_clearing_minor: 0n, reserved_minor: 0n };
  const seen = new Set<string>();
  for (const e of events) {
    const t = e.data.object;
    if (t.object !== 'balance_transaction' || typeof t.id !== 'string' || seen.has(t.id)) continue;
    seen.add(t.id);
    move(sums, t, 1n);
  }
  return sums;
}

/**
 * The balance before the first balance transaction among the events (the lowest sequence:
 * a merchant's sequences are given in booking order), from its balance_after less its own
 * movement; null when the events hold none. Where a store that did not begin at the first
 * event starts its sums.
 */
export function openingBalance(events: readonly StoredEvent[]): BucketSums | null {
  let first: StoredEvent | null = null;
  for (const e of events) {
    if (e.data.object.object === 'balance_transaction' && (!first || e.sequence < first.sequence)) first = e;
  }
  if (!first) return null;
  const t = first.data.object;
  const after = t.balance_after as Record<string, unknown>;
  const opening: BucketSums = {
    available_minor: BigInt(after.available_minor as number), pending_clearing_minor: BigInt(after.pending_clearing_minor as number), reserved_minor: BigInt(after.reserved_minor as number),
  };
  move(opening, t, -1n);
  return opening;
}

/** The latest stored snapshot of every deposit and withdrawal order, by id. */
export function latestSnapshots(events: readonly StoredEvent[]): Map<string, Record<string, unknown>> {
  const latest = new Map<string, Record<string, unknown>>();
  for (const e of events) {
    const o = e.data.object;
    if ((o.object !== 'deposit_order' && o.object !== 'withdrawal_order') || typeof o.id !== 'string') continue;
    const held = latest.get(o.id);
    if (!held || (held.version as number) < (o.version as number)) latest.set(o.id, o);
  }
  return latest;
}

/** What the sandbox's out-of-order replay writes in its test orders' metadata (adapters/webhooks/out-of-order.ts). */
export const replayTestMetadata = { satang_test: 'replay-out-of-order' } as const;

/**
 * Whether a snapshot is of a test order of the sandbox's out-of-order replay: events only,
 * with no order behind them, so its GET answers 404 by design.
 */
export function isReplayTestOrder(snapshot: Record<string, unknown>): boolean {
  const metadata = snapshot.metadata as Record<string, unknown> | null | undefined;
  return snapshot.livemode === false && metadata?.satang_test === replayTestMetadata.satang_test;
}

/**
 * Where a GET of an order disagrees with its latest event snapshot: the status, and for a
 * withdrawal its fill figures. A withdrawal's pending_approval → open has no event of its
 * own (contract), so that alone is no disagreement.
 */
export function snapshotDisagreement(stored: Record<string, unknown>, current: Record<string, unknown>): string | null {
  const fields = stored.object === 'withdrawal_order' ? ['status', 'filled_minor', 'remaining_minor'] : ['status'];
  const differing = fields.filter((f) => stored[f] !== current[f]);
  if (differing.length === 1 && differing[0] === 'status' && stored.status === 'pending_approval' && current.status === 'open') return null;
  if (differing.length === 0) return null;
  return differing.map((f) => `${f}: events say ${String(stored[f])}, GET says ${String(current[f])}`).join('; ');
}
