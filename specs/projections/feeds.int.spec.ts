// The events feed and the order lists, served from projections on a real server:
// - GET /v1/pay/events: every envelope of the caller's merchant and mode, byte for byte as
//   the outbox stored it (the bytes a webhook sends), by sequence, paged with
//   since_sequence/limit, next_sequence kept on an empty page, parameters refused;
// - GET /v1/pay/withdrawals: newest first with a cursor, status filter, a filter change
//   mid-cursor refused, scope withdrawals:read, modes apart; and a list reads its writes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { expectError } from '../support/api-checks.ts';
import { depositBody, TestServer, type MerchantKeys } from '../support/server-harness.ts';

let s: TestServer;
let shop: MerchantKeys;
let other: MerchantKeys;
let ben: string;

function outboxBodies(merchantId: string, livemode: boolean): string[] {
  const db = new Database(join(s.dataDir, 'journal.db'), { readonly: true });
  try {
    return db.prepare<[string, number], string>('SELECT body FROM outbox WHERE merchant_id = ? AND livemode = ? ORDER BY sequence').pluck(true).all(merchantId, livemode ? 1 : 0);
  } finally {
    db.close();
  }
}

const withdrawal = (ref: string, amount = 20_000) => ({ amount_minor: amount, currency: 'THB', merchant_reference: ref, end_user_ref: 'payee', beneficiary_id: ben });

test.before(async () => {
  s = await TestServer.start();
  shop = await s.onboard('Shop');
  other = await s.onboard('Other', shop.whiteLabelId);
  await s.fund(shop.id, 2_000_000);
  await s.fund(shop.id, 100_000, false);
  await s.fund(other.id, 50_000);
  ben = await s.beneficiary(shop.id);
  for (const ref of ['w-1', 'w-2', 'w-3']) assert.is((await s.call(shop.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawal(ref))).status, 201);
  s.clock.advance(1000);
  const canceled = await s.call(shop.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawal('w-4'));
  assert.is((await s.call(shop.live.api_key, 'POST', `/v1/pay/withdrawals/${canceled.json.id}/cancel`, {})).status, 200);
});
test.after(async () => { await s.stop(); });

test('events: the envelopes exactly as stored, by sequence; paging keeps every one once', async () => {
  const stored = outboxBodies(shop.id, true);
  assert.ok(stored.length >= 8);
  const all = await s.call(shop.live.api_key, 'GET', '/v1/pay/events?limit=200');
  assert.is(all.status, 200);
  assert.is(all.text, `{"object":"list","data":[${stored.join(',')}],"has_more":false,"next_sequence":${stored.length},"coverage":{"state":"complete","retention_days":35,"min_since_sequence":0}}`);
  const seen: string[] = [];
  let since = 0;
  for (;;) {
    const page = await s.call(shop.live.api_key, 'GET', `/v1/pay/events?since_sequence=${since}&limit=3`);
    seen.push(...page.json.data.map((e: any) => JSON.stringify(e)));
    const sequences: number[] = page.json.data.map((e: any) => e.sequence);
    assert.ok(sequences.every((q, i) => q > (i === 0 ? since : sequences[i - 1]!)), 'increasing, after since_sequence');
    since = page.json.next_sequence;
    if (!page.json.has_more) break;
  }
  assert.equal(seen, stored);
  const empty = await s.call(shop.live.api_key, 'GET', '/v1/pay/events?since_sequence=9007199254740991');
  assert.is(empty.text, '{"object":"list","data":[],"has_more":false,"next_sequence":9007199254740991,"coverage":{"state":"complete","retention_days":35,"min_since_sequence":0}}');
  // An event's sequence is a JSON number: past 2^53 − 1 there is none, and the echo would not survive JSON.parse.
  const beyond = expectError(await s.call(shop.live.api_key, 'GET', '/v1/pay/events?since_sequence=9007199254740993'), 'validation_error');
  assert.equal(beyond.details.fields, [{ path: 'query.since_sequence', reason: 'maximum', hint: 'at most 9007199254740991' }]);
});

test('events: modes and merchants apart; parameters refused', async () => {
  const sandbox = await s.call(shop.sandbox.api_key, 'GET', '/v1/pay/events');
  assert.equal(sandbox.json.data.map((e: any) => e.livemode), outboxBodies(shop.id, false).map(() => false));
  assert.ok(sandbox.json.data.length >= 1);
  const others = await s.call(other.live.api_key, 'GET', '/v1/pay/events');
  assert.ok(others.json.data.every((e: any) => e.account.merchant_id === other.id));
  for (const q of ['?limit=0', '?limit=201', '?since_sequence=-1', '?since_sequence=007', '?cursor=x', '?type=deposit.created', '?limit=1&limit=2']) {
    expectError(await s.call(shop.live.api_key, 'GET', `/v1/pay/events${q}`), 'validation_error');
  }
});

test('withdrawals list: newest first, a cursor, status filter; a filter change mid-cursor is refused', async () => {
  const first = await s.call(shop.live.api_key, 'GET', '/v1/pay/withdrawals?limit=2');
  assert.is(first.status, 200, first.text);
  assert.equal([first.json.object, first.json.data.length, first.json.has_more], ['list', 2, true]);
  assert.is(first.json.data[0].merchant_reference, 'w-4', 'newest first');
  const second = await s.call(shop.live.api_key, 'GET', `/v1/pay/withdrawals?limit=2&cursor=${first.json.next_cursor}`);
  assert.equal([...first.json.data, ...second.json.data].map((w: any) => w.merchant_reference), ['w-4', 'w-3', 'w-2', 'w-1']);
  assert.equal([second.json.has_more, second.json.next_cursor], [false, null]);
  const one = await s.call(shop.live.api_key, 'GET', `/v1/pay/withdrawals/${second.json.data[0].id}`);
  assert.equal({ ...second.json.data[0], fills: [] }, { ...one.json, fills: [] }, 'a list row is the order as GET shows it');
  const canceled = await s.call(shop.live.api_key, 'GET', '/v1/pay/withdrawals?status=canceled');
  assert.equal(canceled.json.data.map((w: any) => [w.merchant_reference, w.status]), [['w-4', 'canceled']]);
  const updated = await s.call(shop.live.api_key, 'GET', `/v1/pay/withdrawals?updated_after=${encodeURIComponent(new Date(s.clock.now() - 500).toISOString())}`);
  assert.equal(updated.json.data.map((w: any) => w.merchant_reference), ['w-4']);
  expectError(await s.call(shop.live.api_key, 'GET', `/v1/pay/withdrawals?limit=2&status=open&cursor=${first.json.next_cursor}`), 'cursor_filter_mismatch');
  expectError(await s.call(shop.live.api_key, 'GET', '/v1/pay/withdrawals?status=paid'), 'validation_error');
  expectError(await s.call(shop.live.api_key, 'GET', '/v1/pay/withdrawals?limit=201'), 'validation_error');
  assert.equal((await s.call(shop.sandbox.api_key, 'GET', '/v1/pay/withdrawals')).json.data, [], 'sandbox sees no live order');
  assert.equal((await s.call(other.live.api_key, 'GET', '/v1/pay/withdrawals')).json.data, [], 'another merchant sees none');
  const key = await s.bo('POST', `/v1/bo/merchants/${shop.id}/keys`, { livemode: true, scopes: ['wallet:read'] }, { stepUp: true });
  expectError(await s.call(key.json.api_key, 'GET', '/v1/pay/withdrawals'), 'scope_denied');
});

test('lists read their writes: an order created just now is listed at once', async () => {
  for (let i = 0; i < 5; i++) {
    const created = await s.call(other.live.api_key, 'POST', '/v1/pay/deposits', depositBody());
    assert.ok(created.status === 201 || created.status === 202, created.text);
    const list = await s.call(other.live.api_key, 'GET', '/v1/pay/deposits?limit=1');
    assert.is(list.json.data[0].id, created.json.id);
    assert.is(list.json.data[0].version, created.json.version);
  }
});

test.run();
