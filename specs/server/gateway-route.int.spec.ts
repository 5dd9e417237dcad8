// Four eyes on the gateway route (server/routes/bo.ts, core/directory/decide.ts): every
// fallback deposit of a white label pays the route's account, so one operator proposes it
// (202, nothing routes to it yet) and a second approves it, naming the same account; the
// proposer cannot approve, an approval naming another account is refused, and the white
// labels' list shows the proposal waiting (its account masked).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { depositBody, TestServer, type MerchantKeys } from '../support/server-harness.ts';

let s: TestServer;
let shop: MerchantKeys;

test.before(async () => {
  s = await TestServer.start();
  shop = await s.onboard('Gateway shop');
});
test.after(async () => { await s.stop(); });

const route = { bank_code: '004', account_number: '5550001111', account_name: 'Gateway Co', ttl_seconds: 86_400 };

test('a gateway route is proposed by one operator and set only when a second approves the same account', async () => {
  const path = `/v1/bo/white-labels/${shop.whiteLabelId}/gateway-route`;
  const proposed = await s.bo('POST', path, route, { stepUp: true, sub: 'emp_maker' });
  assert.is(proposed.status, 202, proposed.text);
  assert.equal([proposed.json.object, proposed.json.status, proposed.json.proposed_by, proposed.json.account_number], ['gateway_route_proposal', 'pending_approval', 'emp_maker', '5550001111']);
  const waiting = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 30_000 }));
  assert.is(waiting.status, 202, 'nothing routes to a proposal: no liquidity yet');
  const list = await s.bo('GET', '/v1/bo/white-labels', undefined, { roles: ['support'] });
  const mine = list.json.data.find((w: any) => w.id === shop.whiteLabelId);
  assert.equal([mine.gateway_route, mine.gateway_route_proposal?.proposed_by, mine.gateway_route_proposal?.account_number_masked], [null, 'emp_maker', 'xxxxxx1111']);

  const noStepUp = await s.bo('POST', `${path}/approve`, { bank_code: '004', account_number: '5550001111' }, { sub: 'emp_checker' });
  assert.is(noStepUp.status, 403, noStepUp.text);
  const self = await s.bo('POST', `${path}/approve`, { bank_code: '004', account_number: '5550001111' }, { stepUp: true, sub: 'emp_maker' });
  assert.equal([self.status, self.json.error.code], [409, 'operation_not_allowed'], self.text);
  const other = await s.bo('POST', `${path}/approve`, { bank_code: '004', account_number: '5550009999' }, { stepUp: true, sub: 'emp_checker' });
  assert.equal([other.status, other.json.error.code, other.json.error.details.fields[0].path], [422, 'validation_error', 'account_number'], other.text);

  const approved = await s.bo('POST', `${path}/approve`, { bank_code: '004', account_number: '5550001111' }, { stepUp: true, sub: 'emp_checker' });
  assert.is(approved.status, 200, approved.text);
  assert.equal([approved.json.object, approved.json.account_number, approved.json.approved_by], ['gateway_route', '5550001111', 'emp_checker']);
  // The deposit that waited for liquidity gets the route at once, as a new one does.
  const waited = (await s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${waiting.json.id}`)).json;
  assert.equal([waited.status, waited.liquidity_source, waited.legs[0]?.receiver.account_number_masked], ['awaiting_payment', 'external_gateway', 'xxxxxx1111'], JSON.stringify(waited));
  const routed = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 31_000 })); // (30,000 from this sender is being paid now)
  assert.is(routed.status, 201, routed.text);
  assert.is(routed.json.liquidity_source, 'external_gateway');
  // A sandbox order never pays the route's real account: it gets the sandbox's simulated one.
  const sandbox = await s.call(shop.sandbox.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 40_000 }));
  assert.is(sandbox.status, 201, sandbox.text);
  assert.ok(sandbox.json.liquidity_source !== 'external_gateway' && !sandbox.json.legs.some((l: any) => l.receiver.account_number_masked === 'xxxxxx1111') && !sandbox.json.legs.some((l: any) => (l.qr_payload ?? '').includes('5550001111')), JSON.stringify(sandbox.json));
  const again = await s.bo('POST', `${path}/approve`, { bank_code: '004', account_number: '5550001111' }, { stepUp: true, sub: 'emp_third' });
  assert.equal([again.status, again.json.error.code], [409, 'operation_not_allowed'], 'approved once: nothing waits');
  const listed = (await s.bo('GET', '/v1/bo/white-labels', undefined, { roles: ['support'] })).json.data.find((w: any) => w.id === shop.whiteLabelId);
  assert.equal([listed.gateway_route.status, listed.gateway_route.account_number_masked, listed.gateway_route_proposal], ['active', 'xxxxxx1111', null]);
  // A proposal that lapses is no longer shown as waiting; a route past its ttl is shown expired.
  assert.is((await s.bo('POST', path, { ...route, account_number: '5550002222', ttl_seconds: 3_600 }, { stepUp: true, sub: 'emp_maker' })).status, 202);
  await s.running.services.write.advanceClock!(25 * 3_600_000);
  const later = (await s.bo('GET', '/v1/bo/white-labels', undefined, { roles: ['support'] })).json.data.find((w: any) => w.id === shop.whiteLabelId);
  assert.equal([later.gateway_route.status, later.gateway_route_proposal], ['expired', null]);
  const journal = s.running.store.db.prepare("SELECT data FROM journal WHERE type = 'GatewayRouteSet'").all() as { data: string }[];
  assert.ok(journal.some((r) => r.data.includes('emp_maker') && r.data.includes('emp_checker')), 'both operators are on the journal');
});

test.run();
