// The sealer (adapters/sealing.ts) as the journal's writer thread uses it: a sealer made in
// a worker thread from the keys another shared opens what that one sealed and the reverse,
// under the same purpose only; nonces come from a random block filled a few hundred seals at
// a time and never repeat across fills.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Sealer, SealError } from '../../adapters/sealing.ts';

test('a sealer made from shared keys seals and opens as the original does, for the same purpose only', () => {
  const original = Sealer.ephemeral();
  const shared = structuredClone(original.shareWithThread()); // as it crosses to a worker thread
  const thread = new Sealer(shared);
  const sealed = thread.seal('{"id":"dep_1"}', 'idempotency:scope\nkey');
  assert.is(original.openText(sealed, 'idempotency:scope\nkey'), '{"id":"dep_1"}');
  assert.is(thread.openText(original.seal('secret', 'p'), 'p'), 'secret');
  assert.throws(() => original.open(sealed, 'idempotency:scope\nother'), (e: unknown) => e instanceof SealError);
  assert.throws(() => Sealer.ephemeral().open(sealed, 'idempotency:scope\nkey'), (e: unknown) => e instanceof SealError);
});

test('nonces never repeat across the random block\'s refills', () => {
  const sealer = Sealer.ephemeral();
  const nonces = new Set<string>();
  for (let i = 0; i < 2_000; i++) {
    const bytes = Buffer.from(sealer.seal('x', 'p').slice('sealed:v1:'.length), 'base64url');
    nonces.add(bytes.subarray(0, 12).toString('hex'));
  }
  assert.is(nonces.size, 2_000);
});

test.run();
