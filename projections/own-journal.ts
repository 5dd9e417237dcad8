// A projector run apart from the API (`satang projector`) takes its entries from a NATS
// stream that anything could have written: another deployment sharing the nats-server, or
// a data dir restored without `satang restore --nats`. The API's relay refuses to publish
// to a stream that is not its journal's; this is the projector's side of the same rule.
// Every delivered entry is compared with the entry of the same seq in the local journal —
// the data dir's, which the projections serve — before any projection sees it: one that
// differs, or lies beyond the journal's end, is not applied but handed back later, and
// the projector says so once. So projections.db never holds another journal's entries.
//
// Invariant kept: a projection applies only entries equal to the local journal's.

import { readSideLimits } from '../core/limits.ts';
import type { RelayedEntry } from './entry.ts';
import type { Delivery, EntrySource, ReadSideLog } from './gate.ts';
import type { ProjectionName } from './projection.ts';
import type { Subscription, Transport } from './projector.ts';

function sameEntry(a: RelayedEntry, b: RelayedEntry | undefined): boolean {
  return b !== undefined && a.seq === b.seq && a.stream === b.stream && a.version === b.version && a.type === b.type && a.data === b.data;
}

/** A transport whose deliveries are checked against the local journal first. */
export class OwnJournalTransport implements Transport {
  private warned = false;

  constructor(private readonly inner: Transport, private readonly journal: EntrySource, private readonly log: ReadSideLog) {}

  subscribe(projection: ProjectionName, deliver: (deliveries: readonly Delivery[]) => void, fromSeq?: number): Subscription {
    return this.inner.subscribe(projection, (deliveries) => {
      if (deliveries.length === 0) return;
      // One read of the local journal covers the batch's seqs (a batch is near-contiguous).
      let first = Infinity, last = 0;
      for (const d of deliveries) { first = Math.min(first, d.entry.seq); last = Math.max(last, d.entry.seq); }
      const bySeq = new Map(this.journal.read(first - 1, last - first + 1).map((e) => [e.seq, e]));
      const foreign = deliveries.find((d) => !sameEntry(d.entry, bySeq.get(d.entry.seq)));
      if (!foreign) return deliver(deliveries);
      if (!this.warned) {
        const beyond = bySeq.get(foreign.entry.seq) === undefined;
        this.log.error({ projection, seq: foreign.entry.seq, beyond_journal_end: beyond },
          `the journal stream holds an entry at seq ${foreign.entry.seq} that is not this data dir's journal's${beyond ? ' (beyond its end)' : ''}: `
          + 'another deployment\'s stream, or a journal restored without `satang restore --nats`. Nothing is applied until the stream is this journal\'s (scripts/satang drop-stream --nats URL, then restart the API). '
          + 'Or this projector was left running through a restore, on the data dir moved aside under it: stop it and start it again on the restored one');
        this.warned = true;
      }
      // Handed back after a pause, unapplied: the stream may yet be replaced by this journal's.
      setTimeout(() => { for (const d of deliveries) d.nak(); }, readSideLimits.foreignStreamRecheckMs).unref();
    }, fromSeq);
  }
}
