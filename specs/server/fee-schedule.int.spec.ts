// A white label's fee schedule set over HTTP (POST /v1/bo/white-labels/{id}/fees and
// .../fees/approve, server/routes/bo.ts): ops_admin only, with a step-up, four eyes; the
// white labels' list shows the schedule in force and the one waiting; the approval's
// action-log row carries the schedule before and after; the quote, a new withdrawal and a
// deposit settled after it are reckoned from the new schedule, while a withdrawal created
// before keeps its pinned fee and a deposit settled before keeps its booked one; the fee
// report adds them up as they were booked.

import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bangkokDayOf } from '../../core/finance/calendar.ts';
import { merchantActor } from '../adapters/support.ts';
import { accepted, financeOperator as operator, payLeg } from '../support/finance.ts';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';

let s: TestServer;
let payout: MerchantKeys;
let shop: MerchantKeys;
let pinned = '';
let beneficiaryId = '';
/** Settled under the default schedule, and created under it but settled after the change. */
let booked = '';
let openAcrossChange = '';

const withdrawal = (amountMinor: bigint) => accepted(s, {
  type: 'CreateWithdrawal', actor: merchantActor(payout.id), amountMinor, merchantReference: `w-${randomUUID()}`, endUserRef: 'payee', beneficiaryId, requiresApproval: false, p2pMinimumApplies: false,
});

const deposit = (amountMinor: bigint) => accepted(s, {
  type: 'CreateDeposit', actor: merchantActor(shop.id), amountMinor, merchantReference: `d-${randomUUID()}`, endUserRef: `u-${randomUUID().slice(0, 8)}`,
  sender: { bankCode: '014', accountNumber: '9876543210', accountNameTh: 'สมชาย ใจดี' }, hasClientData: true,
});

async function settle(id: string, amountMinor: bigint): Promise<void> {
  await payLeg(s, id, 0, amountMinor);
  assert.is(s.running.store.world.deposits.get(id)!.status, 'settled');
}

const quote = async () => (await s.call(shop.live.api_key, 'GET', '/v1/pay/quote?channel=withdrawal&amount_minor=100000')).json;
const listed = async (roles: string[] = ['finance']) => (await s.bo('GET', '/v1/bo/white-labels', undefined, { roles })).json.data.find((w: any) => w.id === shop.whiteLabelId);

test.before(async () => {
  s = await TestServer.start();
  payout = await s.onboard('Payout');
  shop = await s.onboard('Shop', payout.whiteLabelId);
  await s.fund(payout.id, 5_000_000);
  beneficiaryId = await accepted(s, { type: 'RegisterBeneficiary', actor: operator, merchantId: payout.id, livemode: true, bankCode: '004', accountNumber: '7123456789', accountNameTh: 'สมหญิง รักดี', verified: true });
  pinned = await withdrawal(2_000_000n);
  booked = await deposit(100_000n);
  await settle(booked, 100_000n);
  openAcrossChange = await deposit(200_000n);
});
test.after(async () => { await s.stop(); });

const next = { deposit_processing_fee_bps: 300, withdrawal_fixed_fee_minor: 2_500, withdrawal_min_minor: 20_000 };

test('only ops_admin, with a step-up, proposes and approves; a second operator approves the figures proposed; the list and the action log show it', async () => {
  const path = `/v1/bo/white-labels/${shop.whiteLabelId}/fees`;
  const before = await listed();
  assert.equal(before.fee_schedule, {
    object: 'fee_schedule', white_label_id: shop.whiteLabelId, deposit_processing_fee_bps: 150, deposit_vat_bps: 700, withdrawal_fixed_fee_minor: 1_000, withdrawal_vat_bps: 700,
    deposit_min_minor: 2_000, deposit_max_minor: 20_000_000, deposit_step_minor: 100, withdrawal_min_minor: 10_000, withdrawal_max_minor: 9_007_199_254_740_991,
  });
  assert.is(before.fee_schedule_proposal, null);
  for (const roles of [['support'], ['reviewer'], ['finance']]) {
    const r = await s.bo('POST', path, next, { stepUp: true, roles });
    assert.equal([r.status, r.json.error?.code], [403, 'scope_denied'], `${roles}: ${r.text}`);
  }
  const noStepUp = await s.bo('POST', path, next, { sub: 'emp_maker' });
  assert.is(noStepUp.status, 403, noStepUp.text);
  for (const [body, field] of [[{ ...next, deposit_processing_fee_bps: 1.5 }, 'deposit_processing_fee_bps'], [{ ...next, withdrawal_fixed_fee_minor: -1 }, 'withdrawal_fixed_fee_minor'],
    [{ ...next, deposit_processing_fee_bps: 10_001 }, 'deposit_processing_fee_bps'], [{ ...next, deposit_min_minor: 2_050 }, 'deposit_min_minor'], [{ withdrawal_fixed_fee_minor: 2_500 }, 'deposit_processing_fee_bps']] as const) {
    const r = await s.bo('POST', path, body, { stepUp: true, sub: 'emp_maker' });
    assert.equal([r.status, r.json.error?.code], [422, 'validation_error'], r.text);
    assert.ok(r.json.error.details.fields.some((f: any) => f.path.endsWith(field)), r.text);
  }
  assert.is((await s.bo('POST', '/v1/bo/white-labels/wl_missing/fees', next, { stepUp: true, sub: 'emp_maker' })).status, 404);

  const proposed = await s.bo('POST', path, next, { stepUp: true, sub: 'emp_maker' });
  assert.is(proposed.status, 202, proposed.text);
  assert.equal([proposed.json.object, proposed.json.status, proposed.json.proposed_by, proposed.json.deposit_processing_fee_bps, proposed.json.withdrawal_min_minor, proposed.json.deposit_min_minor],
    ['fee_schedule_proposal', 'pending_approval', 'emp_maker', 300, 20_000, 2_000]);
  const waiting = await listed();
  assert.equal([waiting.fee_schedule.deposit_processing_fee_bps, waiting.fee_schedule_proposal?.withdrawal_fixed_fee_minor], [150, 2_500], 'a proposal is not in force');
  assert.is((await quote()).fee_total_minor, 1_070);

  const self = await s.bo('POST', `${path}/approve`, next, { stepUp: true, sub: 'emp_maker' });
  assert.equal([self.status, self.json.error?.code], [409, 'operation_not_allowed'], self.text);
  const unnamed = await s.bo('POST', `${path}/approve`, { deposit_processing_fee_bps: 300, withdrawal_fixed_fee_minor: 2_500 }, { stepUp: true, sub: 'emp_checker' });
  assert.equal([unnamed.status, unnamed.json.error?.code, unnamed.json.error?.details.fields[0].path], [422, 'validation_error', 'withdrawal_min_minor'], unnamed.text);
  const reviewer = await s.bo('POST', `${path}/approve`, next, { stepUp: true, roles: ['reviewer'], sub: 'emp_checker' });
  assert.equal([reviewer.status, reviewer.json.error?.code], [403, 'scope_denied'], reviewer.text);

  const approved = await s.bo('POST', `${path}/approve`, next, { stepUp: true, sub: 'emp_checker' });
  assert.is(approved.status, 200, approved.text);
  assert.equal([approved.json.object, approved.json.approved_by, approved.json.deposit_processing_fee_bps, approved.json.withdrawal_fixed_fee_minor, approved.json.withdrawal_min_minor, approved.json.deposit_vat_bps],
    ['fee_schedule', 'emp_checker', 300, 2_500, 20_000, 700]);
  const after = await listed(['support']);
  assert.equal([after.fee_schedule.deposit_processing_fee_bps, after.fee_schedule.withdrawal_fixed_fee_minor, after.fee_schedule_proposal], [300, 2_500, null]);

  const log = await s.bo('GET', `/v1/bo/reports/action-logs?route=${encodeURIComponent('/v1/bo/white-labels/:id/fees/approve')}`, undefined, { roles: ['finance'] });
  assert.is(log.status, 200, log.text);
  const ok = log.json.data.filter((r: any) => r.outcome === 'ok');
  assert.is(ok.length, 1, log.text);
  assert.equal([ok[0].subject, ok[0].step_up, ok[0].changes.fee_schedule.before.deposit_processing_fee_bps, ok[0].changes.fee_schedule.after.deposit_processing_fee_bps,
    ok[0].changes.fee_schedule.before.withdrawal_min_minor, ok[0].changes.fee_schedule.after.withdrawal_min_minor], ['emp_checker', true, 150, 300, 10_000, 20_000]);
  assert.ok(log.json.data.filter((r: any) => r.outcome !== 'ok').every((r: any) => r.changes === null), 'a refused approval claims no change');
  const journal = s.running.store.db.prepare("SELECT data FROM journal WHERE type = 'FeeScheduleSet'").all() as { data: string }[];
  assert.ok(journal.length === 1 && journal[0]!.data.includes('emp_maker') && journal[0]!.data.includes('emp_checker'), 'both operators are on the journal');
});

test('the quote and new orders take the new schedule; a pinned withdrawal fee and a booked deposit fee stay; the fee report adds them up', async () => {
  // (the first test set 300 bps and a 2,500 fixed fee; undo nothing: this one books around it)
  const q = await quote();
  assert.equal([q.fee_total_minor, q.total_minor, q.fee_breakdown], [2_675, 102_675, [{ component: 'fixed_fee', amount_minor: 2_500 }, { component: 'vat', amount_minor: 175, rate_bps: 700 }]]);
  const below = await s.call(shop.live.api_key, 'GET', '/v1/pay/quote?channel=withdrawal&amount_minor=15000');
  assert.equal([below.status, below.json.error?.code], [422, 'amount_not_supported'], 'the new withdrawal minimum is in force');
  const later = await withdrawal(100_000n);
  const wdr = (id: string) => s.call(payout.live.api_key, 'GET', `/v1/pay/withdrawals/${id}`);
  assert.is((await wdr(later)).json.fee_total_minor, 2_675);
  assert.is((await wdr(pinned)).json.fee_total_minor, 1_070, 'a withdrawal created before keeps the fee pinned at its creation');

  await settle(openAcrossChange, 200_000n);
  const dep = async (id: string) => (await s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${id}`)).json;
  assert.is((await dep(booked)).fee_total_minor, 1_605, 'a fee booked before stays: 150 bps of 100,000 and its VAT');
  assert.is((await dep(openAcrossChange)).fee_total_minor, 6_420, 'reckoned at settlement: 300 bps of 200,000 and its VAT');

  const date = bangkokDayOf(s.clock.now());
  const report = await s.bo('GET', `/v1/bo/reports/fees?date=${date}&livemode=true&white_label_id=${shop.whiteLabelId}`, undefined, { roles: ['finance'] });
  assert.is(report.status, 200, report.text);
  const line = (id: string) => report.json.merchants.find((m: any) => m.merchant_id === id);
  assert.equal([line(shop.id).charged.count, line(shop.id).charged.fee_minor, line(shop.id).charged.vat_minor], [2, 1_500 + 6_000, 105 + 420], JSON.stringify(line(shop.id)));
  // The payout side recognises the pinned fee in proportion to what was paid out (300,000 of 2,000,000).
  const recognised = Number(s.running.store.world.withdrawals.get(pinned)!.feeRecognizedMinor);
  assert.is(recognised, Math.floor(1_070 * 300_000 / 2_000_000));
  assert.is(line(payout.id).total_minor, recognised, JSON.stringify(line(payout.id)));
  assert.is(report.json.totals.total_minor, 1_605 + 6_420 + recognised);
});

test("a body refused 422 spends no step-up: the mended one passes with the same; a figure beyond what one QR, a review or ten payers can carry is refused, naming its bound", async () => {
  const wl = (await s.bo('POST', '/v1/bo/white-labels', { name: 'Bounds' })).json.id;
  const path = `/v1/bo/white-labels/${wl}/fees`;
  const send = async (to: string, sub: string, stepUp: string, body: unknown, key = randomUUID()) => s.raw('POST', to, {
    headers: { Authorization: `Bearer ${await s.operatorToken(sub)}`, 'X-PG-Step-Up-Token': stepUp, 'Idempotency-Key': key, 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const refusedAt = (r: Awaited<ReturnType<typeof send>>, field: string, reason: string) => {
    assert.equal([r.status, r.json.error?.code], [422, 'validation_error'], r.text);
    const f = r.json.error.details.fields.find((x: any) => x.path === field);
    assert.is(f?.reason, reason, r.text);
    return f;
  };
  const fees = { deposit_processing_fee_bps: 150, withdrawal_fixed_fee_minor: 1_000 };
  const maker = await s.operatorToken('emp_maker', true);
  refusedAt(await send(path, 'emp_maker', maker, { ...fees, deposit_min_minor: 50_000, deposit_max_minor: 40_000 }), 'deposit_min_minor', 'above_maximum');
  refusedAt(await send(path, 'emp_maker', maker, { ...fees, deposit_step_minor: 300 }), 'deposit_min_minor', 'multiple_of');
  assert.match(refusedAt(await send(path, 'emp_maker', maker, { ...fees, deposit_max_minor: 9_007_199_254_740_900 }), 'deposit_max_minor', 'maximum').hint, /200000000/);
  assert.match(refusedAt(await send(path, 'emp_maker', maker, { ...fees, deposit_max_minor: 200_000_100 }), 'deposit_max_minor', 'maximum').hint, /200000000/);
  assert.match(refusedAt(await send(path, 'emp_maker', maker, { ...fees, withdrawal_max_minor: 2_000_000_001 }), 'withdrawal_max_minor', 'maximum').hint, /2000000000/);
  // Not a whole number is one reason however it is written; too large for one, its bound.
  refusedAt(await send(path, 'emp_maker', maker, { ...fees, deposit_processing_fee_bps: 1.5 }), 'deposit_processing_fee_bps', 'type');
  refusedAt(await send(path, 'emp_maker', maker, { ...fees, deposit_processing_fee_bps: '150' }), 'deposit_processing_fee_bps', 'type');
  refusedAt(await send(path, 'emp_maker', maker, '{"deposit_processing_fee_bps": 9007199254740992, "withdrawal_fixed_fee_minor": 1000}'), 'deposit_processing_fee_bps', 'maximum');
  assert.is((await send('/v1/bo/white-labels/wl_missing/fees', 'emp_maker', maker, fees)).status, 404);
  const largest = { deposit_processing_fee_bps: 200, withdrawal_fixed_fee_minor: 1_000, deposit_max_minor: 200_000_000, withdrawal_max_minor: 2_000_000_000 };
  const proposed = await send(path, 'emp_maker', maker, largest);
  assert.is(proposed.status, 202, `the step-up is still good after every refusal: ${proposed.text}`);
  const spent = await send(path, 'emp_maker', maker, { ...largest, deposit_processing_fee_bps: 210 });
  assert.equal([spent.status, spent.json.error?.code], [403, 'scope_denied'], 'once used, it is spent');

  const checker = await s.operatorToken('emp_checker', true);
  refusedAt(await send(`${path}/approve`, 'emp_checker', checker, { ...largest, deposit_processing_fee_bps: 210 }), 'deposit_processing_fee_bps', 'mismatch');
  refusedAt(await send(`${path}/approve`, 'emp_checker', checker, fees), 'deposit_max_minor', 'mismatch');
  refusedAt(await send(`${path}/approve`, 'emp_checker', checker, { ...largest, deposit_max_minor: 200_000_100 }), 'deposit_max_minor', 'maximum');
  refusedAt(await send(`${path}/approve`, 'emp_checker', checker, { ...largest, deposit_min_minor: 300_000, deposit_max_minor: 200_000 }), 'deposit_min_minor', 'above_maximum');
  assert.is((await send('/v1/bo/white-labels/wl_missing/fees/approve', 'emp_checker', checker, largest)).status, 404);
  const approvalKey = randomUUID();
  const approved = await send(`${path}/approve`, 'emp_checker', checker, largest, approvalKey);
  assert.is(approved.status, 200, approved.text);
  assert.equal([approved.json.deposit_max_minor, approved.json.withdrawal_max_minor], [200_000_000, 2_000_000_000]);
  // Its key with another body, under the same step-up: the key's rule answers (not the step-up's "another action").
  const changed = await send(`${path}/approve`, 'emp_checker', checker, { ...largest, deposit_processing_fee_bps: 210 }, approvalKey);
  assert.equal([changed.status, changed.json.error?.code], [409, 'idempotency_key_reused'], changed.text);
  const retried = await send(`${path}/approve`, 'emp_checker', checker, largest, approvalKey);
  assert.equal([retried.status, retried.headers.get('idempotent-replay')], [200, 'true'], 'the true retry still replays');
});

test('the other four-eyes approvals spend no step-up on a misread figure either, and a retried proposal replays after its approval', async () => {
  const send = async (to: string, sub: string, stepUp: string, body: unknown, key = randomUUID()) => s.raw('POST', to, {
    headers: { Authorization: `Bearer ${await s.operatorToken(sub)}`, 'X-PG-Step-Up-Token': stepUp, 'Idempotency-Key': key, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const mismatch = (r: Awaited<ReturnType<typeof send>>, field: string) =>
    assert.equal([r.status, r.json.error?.details?.fields?.[0]], [422, { path: field, reason: 'mismatch' }], r.text);
  // A gateway route: the approver misreads the account number, then approves it with the same step-up.
  const wl = (await s.bo('POST', '/v1/bo/white-labels', { name: 'Route' })).json.id;
  const route = { bank_code: '014', account_number: '1234567890', account_name: 'Gate', ttl_seconds: 3600 };
  assert.is((await s.bo('POST', `/v1/bo/white-labels/${wl}/gateway-route`, route, { sub: 'emp_a', roles: ['ops_admin'], stepUp: true })).status, 202);
  const b = await s.operatorToken('emp_b', true);
  mismatch(await send(`/v1/bo/white-labels/${wl}/gateway-route/approve`, 'emp_b', b, { bank_code: '014', account_number: '1234567899' }), 'account_number');
  const routed = await send(`/v1/bo/white-labels/${wl}/gateway-route/approve`, 'emp_b', b, { bank_code: '014', account_number: '1234567890' });
  assert.is(routed.status, 200, `the step-up is still good: ${routed.text}`);
  // A live credit above the four-eyes bound: the approver misreads the amount.
  const amount = 20_000_000;
  const proposal = await s.bo('POST', `/v1/bo/merchants/${shop.id}/adjustments`, { livemode: true, amount_minor: amount, direction: 'credit', bucket: 'available', reason_code: 'FUNDING', reason: 'opening float' }, { sub: 'emp_a', roles: ['ops_admin'], stepUp: true });
  assert.is(proposal.status, 202, proposal.text);
  const c = await s.operatorToken('emp_c', true);
  const approve = `/v1/bo/merchants/${shop.id}/adjustments/${proposal.json.id}/approve`;
  mismatch(await send(approve, 'emp_c', c, { amount_minor: amount + 1 }), 'amount_minor');
  const credited = await send(approve, 'emp_c', c, { amount_minor: amount });
  assert.is(credited.status, 201, `the step-up is still good: ${credited.text}`);
  // The proposer retries a fee proposal (lost answer) after a second operator approved it: the first answer, not a 422 for a schedule now in force.
  const fwl = (await s.bo('POST', '/v1/bo/white-labels', { name: 'Retried' })).json.id;
  const fees = { deposit_processing_fee_bps: 175, withdrawal_fixed_fee_minor: 1_000 };
  const maker = await s.operatorToken('emp_maker2', true);
  const key = randomUUID();
  const first = await send(`/v1/bo/white-labels/${fwl}/fees`, 'emp_maker2', maker, fees, key);
  assert.is(first.status, 202, first.text);
  assert.is((await s.bo('POST', `/v1/bo/white-labels/${fwl}/fees/approve`, fees, { sub: 'emp_checker2', roles: ['ops_admin'], stepUp: true })).status, 200);
  const retried = await send(`/v1/bo/white-labels/${fwl}/fees`, 'emp_maker2', maker, fees, key);
  assert.equal([retried.status, retried.headers.get('idempotent-replay'), retried.text], [202, 'true', first.text]);
});

test('a schedule sent back as GET shows it, with its withdrawal maximum of none, is taken; a set maximum goes back to none the same way', async () => {
  const wl = (await s.bo('POST', '/v1/bo/white-labels', { name: 'As shown' })).json.id;
  const shown = (await s.bo('GET', `/v1/bo/white-labels?q=${encodeURIComponent('As shown')}`, undefined, { roles: ['finance'] })).json.data.find((w: { id: string }) => w.id === wl).fee_schedule;
  assert.is(shown.withdrawal_max_minor, 9_007_199_254_740_991, 'none, as the schedule keeps it');
  const { object: _o, white_label_id: _w, deposit_vat_bps: _d, withdrawal_vat_bps: _v, ...figures } = shown;
  const change = async (body: Record<string, unknown>) => {
    const proposed = await s.bo('POST', `/v1/bo/white-labels/${wl}/fees`, body, { sub: 'emp_shown_a', roles: ['ops_admin'], stepUp: true });
    assert.is(proposed.status, 202, proposed.text);
    const approved = await s.bo('POST', `/v1/bo/white-labels/${wl}/fees/approve`, body, { sub: 'emp_shown_b', roles: ['ops_admin'], stepUp: true });
    assert.is(approved.status, 200, approved.text);
    return approved.json;
  };
  assert.is((await change({ ...figures, deposit_processing_fee_bps: 160, withdrawal_max_minor: 50_000_000 })).withdrawal_max_minor, 50_000_000);
  assert.is((await change({ ...figures, deposit_processing_fee_bps: 170 })).withdrawal_max_minor, 9_007_199_254_740_991, 'back to none');
  const between = await s.bo('POST', `/v1/bo/white-labels/${wl}/fees`, { ...figures, deposit_processing_fee_bps: 180, withdrawal_max_minor: 9_007_199_254_740_990 }, { sub: 'emp_shown_a', roles: ['ops_admin'], stepUp: true });
  assert.equal([between.status, between.json.error.details.fields[0].path, between.json.error.details.fields[0].reason], [422, 'withdrawal_max_minor', 'maximum'], 'only none itself is taken above the bound');
});

test('a white label\'s VAT rates are figures of its schedule: in basis points 0–10000, proposed and approved by two operators, each named; the quote charges them', async () => {
  const wl = (await s.bo('POST', '/v1/bo/white-labels', { name: 'VAT' })).json.id;
  const merchant = await s.onboard('Taxed', wl);
  const path = `/v1/bo/white-labels/${wl}/fees`;
  const fees = { deposit_processing_fee_bps: 150, withdrawal_fixed_fee_minor: 1_000 };
  const as = (sub: string) => ({ sub, roles: ['ops_admin'], stepUp: true });
  for (const [body, reason] of [[{ ...fees, withdrawal_vat_bps: 10_001 }, 'maximum'], [{ ...fees, deposit_vat_bps: -1 }, 'minimum'], [{ ...fees, deposit_vat_bps: 7.5 }, 'type']] as const) {
    const r = await s.bo('POST', path, body, as('emp_vat_a'));
    assert.equal([r.status, r.json.error?.code], [422, 'validation_error'], r.text);
    assert.ok(r.json.error.details.fields.some((f: any) => f.path.endsWith(Object.keys(body)[2]!)), `${reason}: ${r.text}`);
  }
  const unchanged = await s.bo('POST', path, { ...fees, deposit_vat_bps: 700 }, as('emp_vat_a'));
  assert.equal([unchanged.status, unchanged.json.error?.code], [409, 'operation_not_allowed'], 'the default 7 % named is no change');
  const next = { ...fees, deposit_vat_bps: 0, withdrawal_vat_bps: 1_000 };
  const proposed = await s.bo('POST', path, next, as('emp_vat_a'));
  assert.is(proposed.status, 202, proposed.text);
  assert.equal([proposed.json.deposit_vat_bps, proposed.json.withdrawal_vat_bps], [0, 1_000]);
  const q = async () => (await s.call(merchant.live.api_key, 'GET', '/v1/pay/quote?channel=withdrawal&amount_minor=100000')).json;
  assert.is((await q()).fee_total_minor, 1_070, 'a proposal is not in force');
  const unnamed = await s.bo('POST', `${path}/approve`, { ...fees, deposit_vat_bps: 0 }, as('emp_vat_b'));
  assert.equal([unnamed.status, unnamed.json.error?.details.fields.map((f: any) => f.path)], [422, ['withdrawal_vat_bps']], 'the approval names every rate that moves');
  const self = await s.bo('POST', `${path}/approve`, next, as('emp_vat_a'));
  assert.is(self.status, 409, 'four eyes');
  const approved = await s.bo('POST', `${path}/approve`, next, as('emp_vat_b'));
  assert.is(approved.status, 200, approved.text);
  assert.equal([approved.json.deposit_vat_bps, approved.json.withdrawal_vat_bps], [0, 1_000]);
  const quoted = await q();
  assert.equal([quoted.fee_total_minor, quoted.fee_breakdown], [1_100, [{ component: 'fixed_fee', amount_minor: 1_000 }, { component: 'vat', amount_minor: 100, rate_bps: 1_000 }]]);
  // Left out, a rate stays as it is.
  const kept = await s.bo('POST', path, { ...fees, withdrawal_fixed_fee_minor: 2_000 }, as('emp_vat_a'));
  assert.equal([kept.status, kept.json.deposit_vat_bps, kept.json.withdrawal_vat_bps], [202, 0, 1_000], kept.text);
});

test.run();
