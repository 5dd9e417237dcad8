// A bulk replay (POST /v1/bo/webhooks/{id}/replay, ⚑) is decided on the endpoint as it is
// once its step-up is checked, not as it was when the request came in. The step-up is
// checked against the issuer's keys, which the server may have to fetch (a remote JWKS, as
// in production): here the issuer's JWKS is the spec's own server, whose answer for the
// step-up's new signing key waits until another operator has disabled the endpoint — the
// replay is then refused as on any disabled endpoint (409 operation_not_allowed), nothing
// scheduled (jose fetches a JWKS again for an unknown key once 30 s have passed since the
// last fetch, so the spec waits that long once).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { onHeldIssuer } from '../support/held-jwks.ts';

test('a replay whose step-up waits on the issuer\'s keys while the endpoint is disabled is refused, nothing scheduled', async () => {
  await onHeldIssuer(async ({ s, bo, whileSteppingUp }) => {
    const wl = await bo('POST', '/v1/bo/white-labels', { name: 'Brand' }, 'emp_admin');
    const m = await bo('POST', '/v1/bo/merchants', { white_label_id: wl.json.id, name: 'Shop' }, 'emp_admin');
    assert.is(m.status, 201, m.text);
    const created = await bo('POST', `/v1/bo/merchants/${m.json.id}/webhook-endpoints`, { url: 'http://127.0.0.1:9/hook', livemode: true }, 'emp_admin');
    assert.is(created.status, 201, created.text);
    const endpoint = `/v1/bo/webhooks/${created.json.id}`;
    const now = s.clock.now(); // business time: the replay window's bounds
    const window = { created_after: new Date(now - 86_400_000).toISOString(), created_before: new Date(now + 86_400_000).toISOString() };

    // The step-up of emp_slow's replay is signed with a key the server has not fetched: it fetches the JWKS again, and waits.
    const replay = await whileSteppingUp((stepUpKey) => bo('POST', `${endpoint}/replay`, window, 'emp_slow', stepUpKey), async () => {
      const disabled = await bo('POST', `${endpoint}/disable`, {}, 'emp_other');
      assert.is(disabled.status, 200, disabled.text);
    });
    assert.equal([replay.status, replay.json.error?.code], [409, 'operation_not_allowed'], replay.text);
    const deliveries = await bo('GET', `${endpoint}/deliveries`, undefined, 'emp_admin');
    assert.equal(deliveries.json.data, [], 'nothing scheduled');
  });
});

test.run();
