// Modes (contract, "What the service does"): every object and event carries livemode
// (false = sandbox), and live and sandbox are strictly separated. Over HTTP, with one
// merchant's live key and its sandbox key: every object the API returns says the mode
// it belongs to, and every list (deposits, withdrawals, events, balance history) holds
// only the caller's mode. Webhook endpoints and their delivery records (back office)
// say the mode of the endpoint.

import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { depositBody, TestServer, type MerchantKeys, type Reply } from '../support/server-harness.ts';
import { delay, expectError, gatewayRoute, openDispute, payFirstLeg, withdrawalBody } from '../support/api-checks.ts';
import { assertReceipt, uploadJson } from '../support/slip-harness.ts';

let s: TestServer;
let m: MerchantKeys;

interface Made { deposits: Set<string>; withdrawals: Set<string>; beneficiaries: Set<string>; endpoint: string }
const made: Record<'live' | 'sandbox', Made> = {
  live: { deposits: new Set(), withdrawals: new Set(), beneficiaries: new Set(), endpoint: '' },
  sandbox: { deposits: new Set(), withdrawals: new Set(), beneficiaries: new Set(), endpoint: '' },
};
const modes = [['live', true], ['sandbox', false]] as const;
const keyOf = (mode: 'live' | 'sandbox') => m[mode].api_key;

/** Asserts `body` is an object whose livemode is `livemode`, and returns it. */
function carries(body: any, livemode: boolean, what: string): any {
  assert.ok(body && typeof body === 'object', `${what}: an object`);
  assert.ok('livemode' in body, `${what}: livemode is present`);
  assert.is(body.livemode, livemode, `${what}: livemode is ${livemode}`);
  return body;
}

function ok(r: Reply, status: number | number[], what: string): any {
  const allowed = Array.isArray(status) ? status : [status];
  assert.ok(allowed.includes(r.status), `${what}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.json;
}

test.before(async () => {
  s = await TestServer.start();
  m = await s.onboard('Modes Shop');
  await gatewayRoute(s, m.whiteLabelId);
  // Endpoints first, so every event below is fanned out to the endpoint of its mode.
  for (const [mode, livemode] of modes) {
    const e = ok(await s.bo('POST', `/v1/bo/merchants/${m.id}/webhook-endpoints`, { url: `http://127.0.0.1:9/${mode}`, livemode }), 201, `${mode} endpoint`);
    made[mode].endpoint = e.id;
  }
});
test.after(async () => { await s.stop(); });

test('every object the merchant API returns carries the livemode of the key, live and sandbox alike', async () => {
  for (const [mode, livemode] of modes) {
    const key = keyOf(mode);
    const adjustment = ok(await s.bo('POST', `/v1/bo/merchants/${m.id}/adjustments`, { livemode, amount_minor: 1_000_000, direction: 'credit', bucket: 'available', reason: 'funding' }, { stepUp: true }), 201, `${mode} adjustment`);
    carries(adjustment, livemode, `${mode} balance_transaction (back-office adjustment)`);

    const bboBen = ok(await s.bo('POST', `/v1/bo/merchants/${m.id}/beneficiaries`, { livemode, bank_code: '004', account_number: '1234567890', account_name_th: 'สมหญิง รักดี' }), 201, `${mode} bo beneficiary`);
    carries(bboBen, livemode, `${mode} beneficiary (back office)`);
    made[mode].beneficiaries.add(bboBen.id);

    // A withdrawal filled by an internal deposit, then disputed.
    const w1 = carries(ok(await s.call(key, 'POST', '/v1/pay/withdrawals', withdrawalBody(bboBen.id, { amount_minor: 50_000 })), 201, `${mode} withdrawal`), livemode, `${mode} withdrawal_order (create)`);
    made[mode].withdrawals.add(w1.id);
    const d1 = carries(ok(await s.call(key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 50_000, fill_preference: 'internal_only' })), 201, `${mode} deposit`), livemode, `${mode} deposit_order (create, 201)`);
    made[mode].deposits.add(d1.id);
    await payFirstLeg(s, d1.id);
    carries(ok(await s.call(key, 'GET', `/v1/pay/deposits/${d1.id}`), 200, `${mode} GET deposit`), livemode, `${mode} deposit_order (GET, settled)`);
    const disputeId = await openDispute(s, w1.id, 50_000n);
    const got = carries(ok(await s.call(key, 'GET', `/v1/pay/withdrawals/${w1.id}`), 200, `${mode} GET withdrawal`), livemode, `${mode} withdrawal_order (GET)`);
    carries(got.dispute, livemode, `${mode} dispute inside the withdrawal`);
    const evidence = ok(await s.call(key, 'POST', `/v1/pay/disputes/${disputeId}/evidence`, { text: 'The payee confirmed the transfer.' }), 200, `${mode} dispute evidence`);
    carries(evidence, livemode, `${mode} dispute (evidence answer)`);

    // Canceled before the waiting deposit below exists, which it would otherwise take.
    const w2 = ok(await s.call(key, 'POST', '/v1/pay/withdrawals', withdrawalBody(bboBen.id, { amount_minor: 40_000 })), 201, `${mode} withdrawal 2`);
    made[mode].withdrawals.add(w2.id);
    carries(ok(await s.call(key, 'POST', `/v1/pay/withdrawals/${w2.id}/cancel`, {}), 200, `${mode} cancel withdrawal`), livemode, `${mode} withdrawal_order (cancel)`);

    // A deposit waiting for liquidity (202), one matched to the gateway and canceled. A
    // sandbox deposit gets legs at once (simulated counterparty) unless it plays 10500.
    const waitingAmount = livemode ? 20_000 : 10_500;
    const waiting = carries(ok(await s.call(key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: waitingAmount, fill_preference: 'internal_only' })), 202, `${mode} waiting deposit`), livemode, `${mode} deposit_order (202)`);
    made[mode].deposits.add(waiting.id);
    const d2 = ok(await s.call(key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 30_000 })), 201, `${mode} gateway deposit`);
    made[mode].deposits.add(d2.id);
    carries(ok(await s.call(key, 'POST', `/v1/pay/deposits/${d2.id}/cancel`, {}), 200, `${mode} cancel deposit`), livemode, `${mode} deposit_order (cancel)`);

    carries(ok(await s.call(key, 'GET', '/v1/pay/balance'), 200, `${mode} balance`), livemode, `${mode} balance`);
    carries(ok(await s.call(key, 'GET', '/v1/pay/quote?channel=withdrawal&amount_minor=50000'), 200, `${mode} quote`), livemode, `${mode} quote`);

    const ben = carries(ok(await s.call(key, 'POST', '/v1/pay/beneficiaries', { bank_code: '006', account_number: '7778889990', account_name_th: 'บริษัท บี จำกัด' }), 201, `${mode} beneficiary`), livemode, `${mode} beneficiary (create)`);
    made[mode].beneficiaries.add(ben.id);
    carries(ok(await s.call(key, 'GET', `/v1/pay/beneficiaries/${ben.id}`), 200, `${mode} GET beneficiary`), livemode, `${mode} beneficiary (GET)`);

    const endUser = `modes-${mode}`;
    ok(await s.bo('POST', `/v1/bo/merchants/${m.id}/senders`, { livemode, end_user_ref: endUser, bank_code: '014', account_number: '9876543210', account_name_th: 'สมชาย ใจดี' }), 201, `${mode} sender`);
    const senders = ok(await s.call(key, 'GET', `/v1/pay/senders?end_user_ref=${endUser}`), 200, `${mode} senders`);
    assert.is(senders.data.length, 1, `${mode}: the sender of this mode`);
    for (const row of senders.data) carries(row, livemode, `${mode} saved sender`);
  }
});

test('each list holds only the caller’s mode, and its items say so', async () => {
  for (const [mode, livemode] of modes) {
    const key = keyOf(mode);
    const deposits = ok(await s.call(key, 'GET', '/v1/pay/deposits?limit=200'), 200, `${mode} deposit list`);
    assert.equal(new Set(deposits.data.map((d: any) => d.id)), made[mode].deposits, `${mode}: the deposit list holds exactly this mode's deposits`);
    for (const d of deposits.data) carries(d, livemode, `${mode} deposit list item ${d.id}`);

    const withdrawals = ok(await s.call(key, 'GET', '/v1/pay/withdrawals?limit=200'), 200, `${mode} withdrawal list`);
    assert.equal(new Set(withdrawals.data.map((w: any) => w.id)), made[mode].withdrawals, `${mode}: the withdrawal list holds exactly this mode's withdrawals`);
    for (const w of withdrawals.data) carries(w, livemode, `${mode} withdrawal list item ${w.id}`);

    const other = mode === 'live' ? made.sandbox : made.live;
    const events = ok(await s.call(key, 'GET', '/v1/pay/events?limit=200'), 200, `${mode} events`);
    assert.ok(events.data.length > 0, `${mode}: events exist`);
    const seenTypes = new Set<string>();
    for (const e of events.data) {
      carries(e, livemode, `${mode} event ${e.type}`);
      carries(e.data.object, livemode, `${mode} event ${e.type}: data.object (${e.data.object.object})`);
      seenTypes.add(e.data.object.object);
      for (const set of [other.deposits, other.withdrawals, other.beneficiaries]) assert.not.ok(set.has(e.data.object.id), `${mode}: event about ${e.data.object.id} of the other mode`);
    }
    for (const kind of ['deposit_order', 'withdrawal_order', 'balance_transaction']) assert.ok(seenTypes.has(kind), `${mode}: the feed has ${kind} events`);
    const movements = events.data.filter((e: any) => e.data.object.object === 'balance_transaction').map((e: any) => e.data.object.id);

    const history = ok(await s.call(key, 'GET', '/v1/pay/balance/transactions?limit=100'), 200, `${mode} balance history`);
    assert.is(history.livemode, livemode, `${mode}: balance history livemode`);
    assert.ok(history.data.length > 0, `${mode}: history rows exist`);
    for (const row of history.data) assert.match(row.id, livemode ? /^btxn_/ : /^sbxbtxn_l_/, `${mode}: history row ${row.id}`);
    if (livemode) assert.equal(new Set(history.data.map((r: any) => r.id)), new Set(movements), 'live: history rows are exactly the live balance transactions');
  }
});

test('webhook endpoints and their delivery records carry the endpoint’s mode', async () => {
  for (const [mode, livemode] of modes) {
    const endpointId = made[mode].endpoint;
    carries(ok(await s.bo('GET', `/v1/bo/webhooks/${endpointId}`), 200, `${mode} endpoint`), livemode, `${mode} webhook_endpoint`);
    let deliveries: any[] = [];
    for (let i = 0; i < 100 && deliveries.length === 0; i++) {
      deliveries = ok(await s.bo('GET', `/v1/bo/webhooks/${endpointId}/deliveries?limit=100`), 200, `${mode} deliveries`).data;
      if (deliveries.length === 0) await delay(50);
    }
    assert.ok(deliveries.length > 0, `${mode}: deliveries were made`);
    for (const d of deliveries) carries(d, livemode, `${mode} webhook_delivery ${d.id}`);
    carries(ok(await s.bo('GET', `/v1/bo/webhooks/${endpointId}/deliveries/${deliveries[0].id}`), 200, `${mode} delivery`), livemode, `${mode} webhook_delivery (GET)`);
  }
  const list = ok(await s.bo('GET', `/v1/bo/merchants/${m.id}/webhook-endpoints`), 200, 'endpoint list');
  for (const e of list.data) carries(e, e.id === made.live.endpoint, `listed endpoint ${e.id}`);
});

test('back office: a minted key and its revocation say the key’s mode', async () => {
  for (const [mode, livemode] of modes) {
    const key = carries(ok(await s.bo('POST', `/v1/bo/merchants/${m.id}/keys`, { livemode, scopes: ['wallet:read'] }, { stepUp: true }), 201, `${mode} key`), livemode, `${mode} api key`);
    // Its scopes bind it in either mode: a restricted integration is tried out in the sandbox as it will run live.
    ok(await s.call(key.api_key, 'GET', '/v1/pay/balance'), 200, `${mode} balance with wallet:read`);
    const denied = expectError(await s.call(key.api_key, 'GET', '/v1/pay/withdrawals'), 'scope_denied');
    assert.is(denied.details.required_scope, 'withdrawals:read', mode);
    carries(ok(await s.bo('POST', `/v1/bo/keys/${key.key_id}/revoke`, {}, { stepUp: true }), 200, `${mode} revoke`), livemode, `${mode} api_key (revoked)`);
  }
});

test('the slip receipt says the mode of its order: a sandbox upload answers livemode false, a live one true', async () => {
  const payer = await s.onboard('Payer', m.whiteLabelId); // a deposit is paid into another merchant's withdrawal
  for (const [mode, livemode] of modes) {
    await s.fund(payer.id, 5_000_000, livemode);
    const ben = await s.beneficiary(payer.id, livemode, '5550009999');
    ok(await s.call(payer[mode].api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(ben, { amount_minor: 4_000_000 })), 201, `${mode} withdrawal for the slip (room left after the waiting deposits of the tests above take theirs)`);
    const d = ok(await s.call(keyOf(mode), 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 30_000, fill_preference: 'internal_only' })), 201, `${mode} deposit for the slip`);
    const receipt = assertReceipt(await uploadJson(d.slip_upload, { trans_ref: `TR-${randomUUID().slice(0, 8)}`, sending_bank_code: '014', occurred_at: new Date(s.clock.now()).toISOString() }));
    assert.is(receipt.livemode, livemode, `${mode} slip receipt`);
  }
});

test.run();
