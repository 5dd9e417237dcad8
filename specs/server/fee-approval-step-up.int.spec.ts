// The fee-schedule approval's action-log row names the schedule the approval replaced: the
// one in force when the approval is decided, after its step-up is checked — not the one
// read when the request came in. A step-up is checked against the issuer's keys, which the
// server may have to fetch (a remote JWKS, as in production): another operator's approval
// can land meanwhile. Here the issuer's JWKS is a server of the spec's own, whose answer for
// the step-up's new signing key waits until three other operator calls have changed the
// schedule in force (jose fetches a JWKS again for an unknown key once 30 s have passed
// since the last fetch, so the spec waits that long once).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { onHeldIssuer } from '../support/held-jwks.ts';

test('an approval whose step-up waits on the issuer\'s keys while two other approvals land logs, as its before, the schedule in force when it was decided', async () => {
  await onHeldIssuer(async ({ bo, known, whileSteppingUp }) => {
    const wl = await bo('POST', '/v1/bo/white-labels', { name: 'Brand' }, 'emp_maker');
    assert.is(wl.status, 201, wl.text);
    const fees = `/v1/bo/white-labels/${wl.json.id}/fees`;
    const slow = { deposit_processing_fee_bps: 180, withdrawal_fixed_fee_minor: 1_500 };
    const meanwhile = { deposit_processing_fee_bps: 200, withdrawal_fixed_fee_minor: 1_500 };
    const propose = async (body: object) => assert.is((await bo('POST', fees, body, 'emp_maker', known)).status, 202);
    const approve = async (body: object) => { const r = await bo('POST', `${fees}/approve`, body, 'emp_checker', known); assert.is(r.status, 200, r.text); };
    await propose(slow);

    // The step-up of emp_slow's approval is signed with a key the server has not fetched: it fetches the JWKS again, and waits.
    const approved = await whileSteppingUp((stepUpKey) => bo('POST', `${fees}/approve`, slow, 'emp_slow', stepUpKey), async () => {
      // Meanwhile the schedule proposed is approved by another, a second one proposed and approved, and the first proposed again.
      await approve(slow);
      await propose(meanwhile);
      await approve(meanwhile);
      await propose(slow);
    });
    assert.equal([approved.status, approved.json.deposit_processing_fee_bps, approved.json.approved_by], [200, 180, 'emp_slow'], approved.text);

    const log = await bo('GET', `/v1/bo/reports/action-logs?route=${encodeURIComponent('/v1/bo/white-labels/:id/fees/approve')}`, undefined, 'emp_auditor');
    assert.is(log.status, 200, log.text);
    const rows = log.json.data.filter((r: any) => r.outcome === 'ok').map((r: any) => [r.subject, r.changes.fee_schedule.before.deposit_processing_fee_bps, r.changes.fee_schedule.after.deposit_processing_fee_bps]);
    assert.equal(rows, [['emp_slow', 200, 180], ['emp_checker', 180, 200], ['emp_checker', 150, 180]], 'newest first: the slow approval replaced the 200 bps schedule in force when it was decided');
  });
});

test.run();
