// The snapshot of one object: its internal state in the world after an entry of its
// stream, as the snapshots table stores it (single-object GETs read it). One function for
// the writer and for `satang verify`, so a snapshot written live and one re-derived by
// replay are built the same way. A balance transaction is immutable and kept by the world
// only as postings, so its snapshot is the transaction its entry posted.
// A stored snapshot holds a state when it decodes to it (holdsState): an older build wrote
// the same state with its keys in another order and without the flags added since.

import { assert, unreachable } from '../../core/assert.ts';
import { decode, encode, type JournalEntry } from '../../core/journal.ts';
import type { World } from '../../core/world.ts';

function stateOf(world: World, entry: JournalEntry): unknown {
  const e = entry.event;
  switch (entry.streamKind) {
    case 'deposit': return world.deposits.get(entry.stream);
    case 'withdrawal': return world.withdrawals.get(entry.stream);
    case 'white_label': return world.whiteLabels.get(entry.stream);
    case 'merchant': return world.merchants.get(entry.stream);
    case 'beneficiary': return world.beneficiaries.get(entry.stream);
    case 'sender': return world.senders.get(entry.stream);
    case 'claim': return world.claims.get(entry.stream);
    case 'balance_transaction':
      assert(e.type === 'BalanceTransactionPosted', `balance transaction stream ${entry.stream} holds ${e.type}`);
      return e.transaction;
    case 'bank': {
      assert(e.type === 'BankAvailabilityChanged', `bank stream ${entry.stream} holds ${e.type}`);
      const unavailable = world.unavailableBanks.has(e.bankCode);
      const messageTh = world.unavailableBanks.get(e.bankCode);
      return { bankCode: e.bankCode, available: !unavailable, ...(messageTh !== undefined ? { messageTh } : {}), version: entry.version };
    }
    default:
      return unreachable(entry.streamKind, 'stream kind');
  }
}

/** encode() of the state of entry's object in `world`, which must already hold the entry. */
export function snapshotData(world: World, entry: JournalEntry): string {
  const state = stateOf(world, entry);
  assert(state !== undefined, `no state for ${entry.streamKind} ${entry.stream}`);
  return encode(state);
}

/**
 * Whether `stored`, a snapshot's data as some build wrote it, decodes to the state whose
 * data this build writes as `replayed`. Not the text: key order is each build's, and a
 * flag added since (review.extended, 67f5d53) is absent from what an older build wrote
 * and read by this one as false. Every value, bigints and array order included, must agree.
 */
export function holdsState(stored: string, replayed: string): boolean {
  return stored === replayed || sameDecoded(decode(stored), decode(replayed));
}

function sameDecoded(stored: unknown, replayed: unknown): boolean {
  if (stored === replayed) return true;
  if (typeof stored !== 'object' || typeof replayed !== 'object' || stored === null || replayed === null) return false;
  if (Array.isArray(stored) || Array.isArray(replayed)) {
    if (!Array.isArray(stored) || !Array.isArray(replayed) || stored.length !== replayed.length) return false;
    return stored.every((value, i) => sameDecoded(value, replayed[i]));
  }
  const was = stored as Record<string, unknown>;
  const is = replayed as Record<string, unknown>;
  for (const key of Object.keys(was)) if (!Object.hasOwn(is, key)) return false;
  for (const key of Object.keys(is)) {
    if (Object.hasOwn(was, key) ? !sameDecoded(was[key], is[key]) : is[key] !== false) return false;
  }
  return true;
}
