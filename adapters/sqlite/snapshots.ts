// The snapshot of one object: its internal state in the world after an entry of its
// stream, as the snapshots table stores it (single-object GETs read it). One function for
// the writer and for `satang verify`, so a snapshot written live and one re-derived by
// replay are built the same way. A balance transaction is immutable and kept by the world
// only as postings, so its snapshot is the transaction its entry posted.

import { assert, unreachable } from '../../core/assert.ts';
import { encode, type JournalEntry } from '../../core/journal.ts';
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
