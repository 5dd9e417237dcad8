// Nonces and idempotency records kept durably beside the journal: a nonce is accepted once
// in its 10-minute window (also after a restart, its row having ridden the next
// transaction), an idempotency record is found until its 7 days are over, and expired rows
// are pruned in bounded batches. An operator's records an older build keyed by the sub as
// spelt are moved to the folded sub when the store opens, so a retry under any spelling replays.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limits, writeSideLimits } from '../../core/limits.ts';
import { openTestStore, operator, record, removeDir, startMs, tempDir } from './support.ts';
import { ManualClock } from '../../adapters/clock.ts';
import { settled } from '../../core/handler/handle.ts';
import { openStore } from '../../adapters/sqlite/store.ts';
import { UlidIds } from '../../adapters/ids.ts';
import { Sealer } from '../../adapters/sealing.ts';
import { idempotencyRow, insertIdempotencySql } from '../../adapters/sqlite/keys.ts';

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

test("an operator's records an older build keyed by the sub as spelt are found under the folded sub after the store opens", () => {
  const dir = fresh();
  const sealer = Sealer.ephemeral();
  const open = () => openStore(dir, { clock: new ManualClock(startMs), ids: new UlidIds(), groupCommit: true, sealer });
  const deposit = 'dep_01JD0000000000000000000ABC';
  const merchant = 'mch_01JD0000000000000000000XYZ';
  const hour = 3_600_000;
  const kept = (scope: string, key: string, requestId: string, createdAt = startMs - hour) => ({
    scope, key, requestHash: `hash-${requestId}`, requestId, status: 201, body: JSON.stringify({ request: requestId }), createdAt, expiresAt: createdAt + limits.idempotencyKeyLifetimeMs,
  });
  const older = [
    kept(`op:EMP_X:${deposit}`, 'k-approve', 'req_approve'), // the old form: the sub as the token spelt it
    kept('op:Ｅｍｐ_Ｘ', 'k-merchant', 'req_merchant'), // a call naming no object
    kept('op:EMP_X:bank_004', 'k-bank', 'req_bank'),
    kept(`op:f:Realm:JDoe:${merchant}`, 'k-colons', 'req_colons'), // a sub with colons of its own (Keycloak federation)
    kept('op:f:Realm:JDoe', 'k-colons-alone', 'req_colons_alone'),
    // One person's key under three spellings: the earliest record is the one a retry replays.
    kept(`op:EMP_Y:${deposit}`, 'k-dup', 'req_second', startMs - 2 * hour),
    kept(`op:Emp_Y:${deposit}`, 'k-dup', 'req_first', startMs - 3 * hour),
    kept(`op:emp_y:${deposit}`, 'k-dup', 'req_third', startMs - hour),
    kept('mch_01JD0000000000000000000XYZ:live', 'k-merchant-own', 'req_shop'), // a merchant's: not an operator's
    kept('op:EMP_GONE', 'k-expired', 'req_expired', startMs - limits.idempotencyKeyLifetimeMs - hour), // expired: left for pruning
  ];
  const first = open();
  const insert = first.db.prepare(insertIdempotencySql);
  for (const r of older) insert.run(...idempotencyRow(sealer, r)); // sealed under the scope it was written with, as an older build did
  first.close();

  const store = open();
  assert.equal(store.keys.operatorScopesFoldedOnOpen, { moved: 6, dropped: 2 });
  const found = (scope: string, key: string) => store.keys.getIdempotency(scope, key, startMs)?.body;
  assert.is(found(`op:emp_x:${deposit}`, 'k-approve'), '{"request":"req_approve"}', 'the retry from emp_x replays, its body opened under the new scope');
  assert.is(found('op:emp_x', 'k-merchant'), '{"request":"req_merchant"}');
  assert.is(found('op:emp_x:bank_004', 'k-bank'), '{"request":"req_bank"}');
  assert.is(found(`op:f:realm:jdoe:${merchant}`, 'k-colons'), '{"request":"req_colons"}', "the sub folded whole, the object's capitals kept");
  assert.is(found('op:f:realm:jdoe', 'k-colons-alone'), '{"request":"req_colons_alone"}');
  assert.is(found(`op:emp_y:${deposit}`, 'k-dup'), '{"request":"req_first"}', 'the earliest of the duplicates');
  assert.is(found('mch_01JD0000000000000000000XYZ:live', 'k-merchant-own'), '{"request":"req_shop"}');
  const scopes = store.db.prepare<[], string>('SELECT scope FROM idempotency ORDER BY scope').pluck(true).all();
  assert.equal(scopes, [
    'mch_01JD0000000000000000000XYZ:live', 'op:EMP_GONE', 'op:emp_x', 'op:emp_x:bank_004', `op:emp_x:${deposit}`, `op:emp_y:${deposit}`, 'op:f:realm:jdoe', `op:f:realm:jdoe:${merchant}`,
  ], 'the duplicates gone; only the expired one stays as it was');
  store.close();

  const again = open();
  assert.equal(again.keys.operatorScopesFoldedOnOpen, { moved: 0, dropped: 0 }, 'a second open moves nothing');
  again.close();
});

test.run();
