// A fee schedule's approval (four eyes: POST /v1/bo/white-labels/{id}/fees, then …/fees/approve
// by a second ops_admin) records on its action-log row `changes.fee_schedule` {before, after}.
//
// Proves: `before` is the whole schedule in force until the approval — every figure, as
// GET /v1/bo/white-labels/{id} gave it just before, the ones the proposal left alone too —
// and not the schedule approved (the new figures), nor the white label's first one; `after`
// is the approval's answer. Two approvals in a row, so the second's `before` is the first's
// `after`, not the defaults.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestServer } from '../support/server-harness.ts';

let s: TestServer;
test.before(async () => { s = await TestServer.start(); });
test.after(async () => { await s.stop(); });

const figures = ['deposit_processing_fee_bps', 'deposit_vat_bps', 'withdrawal_fixed_fee_minor', 'withdrawal_vat_bps',
  'deposit_min_minor', 'deposit_max_minor', 'deposit_step_minor', 'withdrawal_min_minor', 'withdrawal_max_minor'] as const;
type Schedule = Record<string, unknown>;

test("an approval's action-log row gives, as before, the schedule in force until it, every figure; as after, the one it put in force", async () => {
  const { json: wl } = await s.bo('POST', '/v1/bo/white-labels', { name: 'Brand of two changes' });
  const path = `/v1/bo/white-labels/${wl.id}/fees`;
  const inForce = async (): Promise<Schedule> => (await s.bo('GET', `/v1/bo/white-labels/${wl.id}`, undefined, { roles: ['finance'] })).json.fee_schedule;
  /** Proposed by one ops_admin and approved by another: the schedule in force just before the approval, and the approval's answer. */
  const change = async (body: Record<string, number>): Promise<{ was: Schedule; approved: Schedule }> => {
    const proposed = await s.bo('POST', path, body, { stepUp: true, sub: 'emp_maker' });
    assert.is(proposed.status, 202, proposed.text);
    const was = await inForce();
    const approved = await s.bo('POST', `${path}/approve`, body, { stepUp: true, sub: 'emp_checker' });
    assert.is(approved.status, 200, approved.text);
    const { approved_by: by, ...schedule } = approved.json;
    assert.is(by, 'emp_checker');
    assert.equal(await inForce(), schedule, 'the answer is the schedule now in force');
    return { was, approved: schedule };
  };
  const rows = async (): Promise<{ before: Schedule; after: Schedule }[]> => {
    const log = await s.bo('GET', `/v1/bo/reports/action-logs?route=${encodeURIComponent('/v1/bo/white-labels/:id/fees/approve')}&limit=200`, undefined, { roles: ['finance'] });
    assert.is(log.status, 200, log.text);
    return log.json.data.filter((r: any) => r.outcome === 'ok' && r.changes?.fee_schedule?.after.white_label_id === wl.id).map((r: any) => r.changes.fee_schedule);
  };

  const defaults = await inForce();
  // Every figure moves: the defaults and the first change differ in each.
  const first = await change({ deposit_processing_fee_bps: 210, deposit_vat_bps: 650, withdrawal_fixed_fee_minor: 1_800, withdrawal_vat_bps: 600,
    deposit_min_minor: 3_000, deposit_max_minor: 4_000_000, deposit_step_minor: 500, withdrawal_min_minor: 15_000, withdrawal_max_minor: 9_000_000 });
  assert.equal(first.was, defaults);
  for (const f of figures) assert.is.not(first.approved[f], defaults[f], `${f} changes`);
  // The second moves three figures; the others stay as the first set them.
  const second = await change({ deposit_processing_fee_bps: 260, withdrawal_fixed_fee_minor: 1_800, deposit_vat_bps: 700, deposit_max_minor: 5_000_000 });
  assert.equal(second.was, first.approved);

  const [secondRow, firstRow, ...others] = await rows();
  assert.equal(others, [], 'one row per approval, newest first');
  assert.equal(firstRow, { before: defaults, after: first.approved }, "the first approval's before is the white label's first schedule");
  assert.equal(secondRow, { before: first.approved, after: second.approved }, "the second's is the first's after: in force until it, not the figures it approved");
  assert.equal(figures.filter((f) => secondRow!.before[f] !== secondRow!.after[f]), ['deposit_processing_fee_bps', 'deposit_vat_bps', 'deposit_max_minor'],
    'before and after differ in the figures the approval changed, and only those');
});

test.run();
