// No route reads a query parameter it does not know as nothing: every GET the document
// describes (server/openapi/operations.ts), called with the ids of real objects and one
// parameter it does not take, answers 422 validation_error naming `query.<name>` with
// reason unknown_field — a typo (`livemode=x` on a route that shows both modes, `limt=5`)
// is told, not silently ignored. Apart: the probes and the public documents, which a load
// balancer or a cache buster may call with a query of its own (README: Merchant requests).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { operations } from '../../server/openapi/operations.ts';
import { depositBody, TestServer } from '../support/server-harness.ts';
import { withdrawalBody } from '../support/api-checks.ts';

const tolerant = ['GET /healthz', 'GET /readyz', 'GET /v1/openapi.json', 'GET /v1/webhooks/signing-keys', 'GET /v1/webhooks/test-vectors'];

test('every GET but the probes and public documents refuses a query parameter it does not take, and one it takes given empty', async () => {
  const s = await TestServer.start();
  try {
    const m = await s.onboard('Queried');
    await s.fund(m.id, 1_000_000);
    const beneficiary = await s.beneficiary(m.id, true, '1231231234');
    const withdrawal = await s.call(m.live.api_key, 'POST', '/v1/pay/withdrawals', withdrawalBody(beneficiary, { amount_minor: 20_000 }));
    assert.is(withdrawal.status, 201, withdrawal.text);
    const deposit = await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 10_000 }));
    assert.ok(deposit.status === 201 || deposit.status === 202, deposit.text);
    const endpoint = await s.bo('POST', `/v1/bo/merchants/${m.id}/webhook-endpoints`, { url: 'https://example.com/hooks', livemode: true });
    assert.is(endpoint.status, 201, endpoint.text);
    const ids: Record<string, string> = {
      '/v1/bo/merchants/:id': m.id, '/v1/pay/deposits/:id': deposit.json.id, '/v1/bo/deposits/:id': deposit.json.id,
      '/v1/pay/withdrawals/:id': withdrawal.json.id, '/v1/bo/withdrawals/:id': withdrawal.json.id, '/v1/pay/beneficiaries/:id': beneficiary,
    };
    const concrete = (path: string) => path
      .replace(/^(\/v1\/(?:bo|pay)\/[a-z-]+\/):id/, (whole, prefix: string) => `${prefix}${ids[whole] ?? 'x_unknown'}`)
      .replace(':endpointId', endpoint.json.id).replace(/:[a-zA-Z]+/g, 'x_unknown');
    const checked: string[] = [];
    let emptied = 0;
    for (const [route, info] of Object.entries(operations)) {
      const [method, path] = route.split(' ') as [string, string];
      if (method !== 'GET' || tolerant.includes(route)) continue;
      // __proto__: a key like any other, not one an object's prototype swallows (fuzzing found it ignored)
      for (const name of ['not_a_parameter', '__proto__']) {
        const target = `${concrete(path)}?${name}=1`;
        const key = path.startsWith('/v1/test/') ? m.sandbox.api_key : m.live.api_key;
        const r = info.auth === 'operator' ? await s.bo('GET', target) : await s.call(key, 'GET', target);
        // Beside any parameter the route requires and was not given, also named.
        const named = (r.json?.error?.details?.fields ?? []).find((f: { path: string }) => f.path === `query.${name}`);
        assert.equal([r.status, r.json?.error?.code, named?.reason], [422, 'validation_error', 'unknown_field'], `${route} (${target}): ${r.text.slice(0, 400)}`);
      }
      // Each parameter it does take, given empty (a script's unset variable): told, not read as a filter that matches nothing.
      const params = Object.keys(info.queryParams ?? (info.query as { schema?: { properties?: object } } | undefined)?.schema?.properties ?? {});
      for (const name of params) {
        const target = `${concrete(path)}?${name}=`;
        const key = path.startsWith('/v1/test/') ? m.sandbox.api_key : m.live.api_key;
        const r = info.auth === 'operator' ? await s.bo('GET', target) : await s.call(key, 'GET', target);
        const named = (r.json?.error?.details?.fields ?? []).find((f: { path: string }) => f.path === `query.${name}`);
        assert.equal([r.status, r.json?.error?.code, named !== undefined], [422, 'validation_error', true], `${route} (${target}): ${r.text.slice(0, 400)}`);
        emptied++;
      }
      checked.push(route);
    }
    assert.ok(checked.length >= 40, `${checked.length} routes`);
    assert.ok(emptied >= 60, `${emptied} parameters given empty`);
    for (const route of tolerant) {
      const r = await s.raw('GET', `${route.split(' ')[1]}?not_a_parameter=1`);
      assert.is(r.status, 200, `${route} answers a probe with a query of its own`);
    }
  } finally {
    await s.stop();
  }
});

test.run();
