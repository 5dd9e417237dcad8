// The fallback route confirming a transfer after the order closed, over real HTTP:
// POST /v1/bo/deposits/{id}/route-confirmations puts an expired gateway deposit under
// review with LATE_ROUTE_CONFIRMATION, the merchant sees it on GET, a reviewer other than
// the operator who posted it settles it at the confirmed amount, and bad input gets the
// contract's codes with nothing written.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expectError, gatewayRoute, journalRows } from '../support/api-checks.ts';
import { depositBody, TestServer, type MerchantKeys } from '../support/server-harness.ts';

let s: TestServer;
let shop: MerchantKeys;

test.before(async () => {
  s = await TestServer.start();
  shop = await s.onboard('Shop');
  await gatewayRoute(s, shop.whiteLabelId);
});
test.after(async () => { await s.stop(); });

async function expiredGatewayDeposit(amountMinor = 40_000): Promise<string> {
  const created = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: amountMinor }));
  assert.is(created.status, 201, created.text);
  assert.is(created.json.liquidity_source, 'external_gateway');
  const advanced = await s.bo('POST', '/v1/bo/clock/advance', { seconds: 16 * 60 });
  assert.is(advanced.status, 200, advanced.text);
  const got = await s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${created.json.id}`);
  assert.equal([got.json.status, got.json.is_terminal], ['expired', false]);
  return created.json.id;
}

test('a late route confirmation puts the order under review; the reviewer settles it at the confirmed amount', async () => {
  const id = await expiredGatewayDeposit();
  const confirmed = await s.bo('POST', `/v1/bo/deposits/${id}/route-confirmations`, { trans_ref: 'GW-HTTP-1', amount_minor: 40_000 }, { sub: 'emp_feed' });
  assert.is(confirmed.status, 200, confirmed.text);
  assert.is(confirmed.json.status, 'under_review');
  const seen = await s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${id}`);
  assert.equal(seen.json.review.reasons.map((r: { code: string; actionable_by: string }) => [r.code, r.actionable_by]), [['LATE_ROUTE_CONFIRMATION', 'support']]);
  // the confirmation is the word of the operator who posted it: they do not also settle on it
  const rows = await journalRows(s);
  const own = await s.bo('POST', `/v1/bo/deposits/${id}/approve`, { note: 'Gateway statement line matches the order.' }, { sub: 'emp_feed' });
  expectError(own, 'operation_not_allowed');
  assert.match(own.json.error.message, /You posted this route confirmation/);
  assert.is(own.json.error.details.confirmed_by, 'emp_feed');
  // The same person under another spelling: refused, the details naming who posted it as recorded, not the caller's spelling.
  const spelled = await s.bo('POST', `/v1/bo/deposits/${id}/approve`, { note: 'Gateway statement line matches the order.' }, { sub: 'EMP_FEED' });
  expectError(spelled, 'operation_not_allowed');
  assert.is(spelled.json.error.details.confirmed_by, 'emp_feed');
  assert.is(await journalRows(s), rows, 'the refusal wrote nothing');
  assert.is((await s.bo('GET', `/v1/bo/deposits/${id}`)).json.evidence.route_confirmation.confirmed_by, 'emp_feed');
  const approved = await s.bo('POST', `/v1/bo/deposits/${id}/approve`, { note: 'Gateway statement line matches the order.' });
  assert.is(approved.status, 200, approved.text);
  assert.equal([approved.json.status, approved.json.amount_received_minor, approved.json.partial], ['settled', 40_000, false]);
});

test('refusals: bad body → validation_error, unknown order → resource_not_found, open order → operation_not_allowed; none writes', async () => {
  const rows = await journalRows(s);
  const open = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody());
  const afterCreate = await journalRows(s);
  assert.ok(afterCreate > rows);
  expectError(await s.bo('POST', `/v1/bo/deposits/${open.json.id}/route-confirmations`, { trans_ref: 'GW-2', amount_minor: 0 }), 'validation_error');
  expectError(await s.bo('POST', `/v1/bo/deposits/${open.json.id}/route-confirmations`, { trans_ref: 'GW-2' }), 'validation_error');
  expectError(await s.bo('POST', '/v1/bo/deposits/dep_00000000000000000000000000/route-confirmations', { trans_ref: 'GW-2', amount_minor: 100 }), 'resource_not_found');
  expectError(await s.bo('POST', `/v1/bo/deposits/${open.json.id}/route-confirmations`, { trans_ref: 'GW-2', amount_minor: 100 }), 'operation_not_allowed');
  assert.is(await journalRows(s), afterCreate, 'no refusal wrote a journal row');
});

test.run();
