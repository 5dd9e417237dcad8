// `scripts/satang projections rebuild [NAME]` and `projections status` on the embedded
// default, with the server running: a rebuild drops a projection and replays it from the
// journal while the server keeps applying (both go through the applier's position check,
// so nothing is applied twice or skipped); the result is byte-identical to the live
// projection, before and after more writes; reads stay right throughout.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { dumpProjections, satangRun, waitForProjections } from '../support/projections.ts';

let s: TestServer;
let shop: MerchantKeys;

const tail = () => s.running.store.world.lastSeq;

async function activity(rounds: number): Promise<void> {
  const ben = await s.beneficiary(shop.id, true, `88${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`);
  for (let i = 0; i < rounds; i++) {
    await s.fund(shop.id, 20_000 + i);
    const w = await s.call(shop.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 10_000, currency: 'THB', merchant_reference: `r-${Date.now()}-${i}-${Math.random()}`, end_user_ref: 'payee', beneficiary_id: ben });
    assert.is(w.status, 201, w.text);
    if (i % 2 === 0) assert.is((await s.call(shop.live.api_key, 'POST', `/v1/pay/withdrawals/${w.json.id}/cancel`, {})).status, 200);
  }
}

test.before(async () => {
  s = await TestServer.start();
  shop = await s.onboard('Shop');
  await activity(20);
  await waitForProjections(s.dataDir, tail());
});
test.after(async () => { await s.stop(); });

test('status: every projection and the in-process relay at the journal tail, nothing parked', async () => {
  const r = await satangRun(['projections', 'status', '--data-dir', s.dataDir]);
  assert.is(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.is(report.journal_tail, tail());
  assert.equal(report.projections.map((p: any) => [p.name, p.position, p.lag, p.parked]), [
    ['balance_history', tail(), 0, 0], ['events_feed', tail(), 0, 0], ['deposit_list', tail(), 0, 0], ['withdrawal_list', tail(), 0, 0],
    ['finance_ledger', tail(), 0, 0], ['fee_ledger', tail(), 0, 0], ['receiving_accounts', tail(), 0, 0], ['system_lines', tail(), 0, 0], ['dispute_ledger', tail(), 0, 0], ['statement_lines', tail(), 0, 0], ['payer_debts', tail(), 0, 0], ['payee_debts', tail(), 0, 0],
  ]);
  assert.equal(report.relays, [{ bus: 'inprocess', position: tail(), lag: 0 }]);
});

test('a rebuild with the server running gives tables byte-identical to the live ones', async () => {
  const live = dumpProjections(s.dataDir);
  const r = await satangRun(['projections', 'rebuild', '--data-dir', s.dataDir]);
  assert.is(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).projections, ['balance_history', 'events_feed', 'deposit_list', 'withdrawal_list', 'finance_ledger', 'fee_ledger', 'receiving_accounts', 'system_lines', 'dispute_ledger', 'statement_lines', 'payer_debts', 'payee_debts']);
  assert.fixture(dumpProjections(s.dataDir), live);
  await activity(5);
  await waitForProjections(s.dataDir, tail());
  const after = dumpProjections(s.dataDir);
  assert.is((await satangRun(['projections', 'rebuild', 'balance_history', '--data-dir', s.dataDir])).code, 0);
  assert.fixture(dumpProjections(s.dataDir), after);
  const history = await s.call(shop.live.api_key, 'GET', '/v1/pay/balance/transactions?limit=100');
  assert.is(history.status, 200, history.text);
  assert.is(history.json.checkpoint.available_minor, String((await s.call(shop.live.api_key, 'GET', '/v1/pay/balance')).json.available_minor));
});

test('writes during a rebuild: the server and the rebuild share the work, and end equal to a fresh rebuild', async () => {
  const rebuilding = satangRun(['projections', 'rebuild', '--data-dir', s.dataDir]);
  await activity(5);
  assert.is((await rebuilding).code, 0);
  await waitForProjections(s.dataDir, tail());
  const live = dumpProjections(s.dataDir);
  assert.is((await satangRun(['projections', 'rebuild', '--data-dir', s.dataDir])).code, 0);
  assert.fixture(dumpProjections(s.dataDir), live);
});

test('an unknown projection name is a usage error', async () => {
  const r = await satangRun(['projections', 'rebuild', 'nope', '--data-dir', s.dataDir]);
  assert.is(r.code, 2);
  assert.match(r.stderr, /unknown projection nope/);
});

test.run();
