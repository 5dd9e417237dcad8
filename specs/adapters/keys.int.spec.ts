// Nonces and idempotency records kept durably beside the journal: a nonce is accepted once
// in its 10-minute window (also after a restart, its row having ridden the next
// transaction), an idempotency record is found until its 7 days are over, and expired rows
// are pruned in bounded batches.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limits, writeSideLimits } from '../../core/limits.ts';
import { openTestStore, operator, record, removeDir, startMs, tempDir } from './support.ts';
import { ManualClock } from '../../adapters/clock.ts';
import { settled } from '../../core/handler/handle.ts';

const dirs: string[] = [];
const fresh = () => { const d = tempDir('keys'); dirs.push(d); return d; };
test.after(() => { for (const d of dirs) removeDir(d); });

test('a nonce is accepted once within its memory, per scope, and again after it', async () => {
  const { store } = openTestStore(fresh());
  const k = store.keys;
  assert.ok(k.rememberNonce('key_1', 'n1', startMs));
  assert.not.ok(k.rememberNonce('key_1', 'n1', startMs + 1000));
  assert.ok(k.rememberNonce('key_2', 'n1', startMs + 1000), 'another scope');
  assert.not.ok(k.rememberNonce('key_1', 'n1', startMs + limits.nonceMemoryMs - 1));
  assert.ok(k.rememberNonce('key_1', 'n1', startMs + limits.nonceMemoryMs));
  store.close();
});

test('the nonce sketch: thousands of new nonces pass, every replay is refused, across the window the sketch rotates at', async () => {
  const { store } = openTestStore(fresh());
  const k = store.keys;
  const minute = 60_000;
  const at = startMs + 5 * minute;
  const nonces = Array.from({ length: 20_000 }, (_, i) => `nonce-${i}`);
  for (const n of nonces) assert.ok(k.rememberNonce('key_1', n, at));
  for (const n of nonces.slice(0, 500)) assert.not.ok(k.rememberNonce('key_1', n, at + 1), 'a replay in the same turn (rows not yet written)');
  await store.journal.flushed();
  const later = at + 7 * minute; // past the sketch's first window: it has rotated, the nonces sit in the previous filter
  for (const n of nonces.slice(0, 2_000)) assert.not.ok(k.rememberNonce('key_1', n, later), `${n} replayed after the rotation`);
  assert.ok(k.rememberNonce('key_2', nonces[0]!, later), 'the same nonce under another key is new');
  assert.ok(k.rememberNonce('key_1', nonces[1]!, at + limits.nonceMemoryMs), 'a nonce is new again once its window is over');
  store.close();
});

test('nonces survive a restart: the row rides the next transaction', async () => {
  const dir = fresh();
  const first = openTestStore(dir);
  assert.ok(first.store.keys.rememberNonce('key_1', 'n-restart', startMs));
  await first.store.journal.flushed();
  assert.is(first.store.db.prepare('SELECT COUNT(*) FROM nonces').pluck(true).get(), 1);
  first.store.close();
  const second = openTestStore(dir, { clock: new ManualClock(startMs + 60_000) });
  assert.not.ok(second.store.keys.rememberNonce('key_1', 'n-restart', startMs + 60_000));
  second.store.close();
  const later = openTestStore(dir, { clock: new ManualClock(startMs + limits.nonceMemoryMs + 1) });
  assert.ok(later.store.keys.rememberNonce('key_1', 'n-restart', startMs + limits.nonceMemoryMs + 1), 'expired rows are not loaded');
  later.store.close();
});

test('a nonce rides the same transaction as a command enqueued in the same turn', async () => {
  const { store } = openTestStore(fresh());
  store.keys.rememberNonce('key_1', 'n-ride', startMs);
  await settled(store.submit({ type: 'RegisterWhiteLabel', actor: operator(), name: 'Brand' }));
  assert.is(store.db.prepare('SELECT COUNT(*) FROM nonces').pluck(true).get(), 1);
  store.close();
});

test('an idempotency record is found until it expires; pruning deletes expired rows in bounded batches', async () => {
  const { store, clock } = openTestStore(fresh());
  const r = await settled(store.submit({ type: 'RegisterWhiteLabel', actor: operator(), name: 'Brand' }, {}, record('idem-1', clock.now())));
  assert.ok(r.ok);
  const found = store.keys.getIdempotency('spec', 'idem-1', clock.now() + limits.idempotencyKeyLifetimeMs - 1)!;
  assert.equal({ ...found }, {
    scope: 'spec', key: 'idem-1', requestHash: 'hash-idem-1', requestId: 'req_idem-1', status: 200, body: JSON.stringify({ id: r.objectId }),
    createdAt: startMs, expiresAt: startMs + limits.idempotencyKeyLifetimeMs,
  });
  assert.is(store.keys.getIdempotency('spec', 'idem-1', startMs + limits.idempotencyKeyLifetimeMs), undefined);
  assert.is(store.keys.getIdempotency('other', 'idem-1', startMs), undefined);

  const rows = writeSideLimits.pruneRowsPerBatchMax * writeSideLimits.pruneBatchesPerCallMax + 5;
  const insert = store.db.prepare('INSERT INTO nonces (scope, nonce, expires_at) VALUES (?, ?, ?)');
  store.db.transaction(() => { for (let i = 0; i < rows; i++) insert.run('bulk', `n${i}`, startMs); })();
  insert.run('bulk', 'alive', startMs + limits.nonceMemoryMs);
  const later = startMs + limits.idempotencyKeyLifetimeMs;
  assert.equal(store.keys.pruneExpired(later - 1), { nonces: rows - 5, idempotency: 0 }, 'one call stops after its batches');
  assert.equal(store.keys.pruneExpired(later), { nonces: 6, idempotency: 1 });
  assert.is(store.db.prepare('SELECT COUNT(*) FROM nonces').pluck(true).get(), 0);
  store.close();
});

test('an expired idempotency key may be used again', async () => {
  const { store, clock } = openTestStore(fresh());
  await settled(store.submit({ type: 'RegisterWhiteLabel', actor: operator(), name: 'A' }, {}, record('again', clock.now())));
  clock.advance(limits.idempotencyKeyLifetimeMs);
  const r = await settled(store.submit({ type: 'RegisterWhiteLabel', actor: operator(), name: 'B' }, {}, record('again', clock.now())));
  assert.ok(r.ok);
  assert.is(JSON.parse(store.keys.getIdempotency('spec', 'again', clock.now())!.body).id, r.objectId);
  store.close();
});

test.run();
