// The projector's check that a stream is its journal's (projections/own-journal.ts), on two
// real journals of two real servers: deliveries equal to the local journal's entries pass
// to the projection; another journal's entries at the same seqs, and entries beyond the
// local journal's end, are never delivered — handed back (nak) after a pause, and said once.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JournalReader } from '../../adapters/bus/journal-reader.ts';
import { readSideLimits } from '../../core/limits.ts';
import type { RelayedEntry } from '../../projections/entry.ts';
import type { Delivery } from '../../projections/gate.ts';
import { OwnJournalTransport } from '../../projections/own-journal.ts';
import type { Transport } from '../../projections/projector.ts';
import { TestServer } from '../support/server-harness.ts';

function deliveries(entries: readonly RelayedEntry[], naks: number[]): Delivery[] {
  return entries.map((entry) => ({ entry, deliveryCount: 1, ack() {}, nak() { naks.push(entry.seq); } }));
}

test('deliveries of this journal pass; another journal\'s, or beyond this journal\'s end, are handed back unapplied and said once', async () => {
  const ours = await TestServer.start();
  const theirs = await TestServer.start();
  try {
    await ours.onboard('Ours');
    for (const name of ['Theirs', 'Theirs too']) await theirs.onboard(name);
    const local = new JournalReader(ours.dataDir);
    const other = new JournalReader(theirs.dataDir);
    const ourEntries = local.read(0, 1000);
    const theirEntries = other.read(0, 1000);
    assert.ok(theirEntries.length > ourEntries.length, 'their journal is longer: some of its seqs lie beyond ours');
    let feed: (d: readonly Delivery[]) => void = () => {};
    const inner: Transport = { subscribe: (_p, deliver) => { feed = deliver; return { stop: async () => {} }; } };
    const errors: string[] = [];
    const log = { info() {}, warn() {}, error: (_f: object, message: string) => { errors.push(message); } };
    const delivered: number[] = [];
    new OwnJournalTransport(inner, local, log).subscribe('balance_history', (ds) => { for (const d of ds) delivered.push(d.entry.seq); });

    const naks: number[] = [];
    feed(deliveries(ourEntries, naks));
    assert.equal(delivered, ourEntries.map((e) => e.seq), 'this journal\'s entries pass');
    feed(deliveries(theirEntries.slice(0, 3), naks));
    feed(deliveries(theirEntries.slice(ourEntries.length), naks));
    assert.equal(delivered, ourEntries.map((e) => e.seq), 'nothing of theirs reaches the projection');
    assert.is(errors.length, 1, 'said once');
    assert.match(errors[0]!, /not this data dir's journal's/);
    // A projector left running through a restore reads the journal moved aside under it, and
    // meets the restored stream so: said too, since drop-stream (the other remedy) refuses there.
    assert.match(errors[0]!, /Or this projector was left running through a restore, on the data dir moved aside under it: stop it and start it again/);
    await new Promise((resolve) => setTimeout(resolve, readSideLimits.foreignStreamRecheckMs + 200));
    assert.equal(naks.sort((a, b) => a - b), [...theirEntries.slice(0, 3), ...theirEntries.slice(ourEntries.length)].map((e) => e.seq).sort((a, b) => a - b), 'handed back, to be checked again');
    local.close();
    other.close();
  } finally {
    await ours.stop();
    await theirs.stop();
  }
});

test.run();
