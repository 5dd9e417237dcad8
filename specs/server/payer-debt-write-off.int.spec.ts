// Writing off what a claim's payer owes back, over real HTTP: a finance operator proposes
// (a note, a step-up), a second one approves naming the amount; the claim's
// owed_by_payer_minor goes down and written_off_minor up, the deposit's timeline shows both
// steps, and the trial balance moves that much from owed_by_payers to payer_debts_written_off
// (a loss), taken from suspense's debit balance, still balanced, at every as_of. Refusals —
// above what is owed, the proposer approving, another amount, a short note, nothing owed, a
// second proposal while one waits, another role — are answered before the step-up and leave
// the journal as it was. A later recall of the refund from the payer is a recovery: it lowers
// what is written off, never what is owed below zero. A proposal left 24 hours lapses: the
// claim no longer shows it as waiting.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'csv-parse/sync';
import { owedClaim, slipScene, type SlipScene } from '../support/slip-harness.ts';
import { verifyStore } from '../../adapters/sqlite/verify.ts';

let scene: SlipScene;
const note = 'looked at the bank statement for this one';
const reason = 'the payer cannot be reached for 90 days; collection declined';
const financeA = { sub: 'emp_fin_a', roles: ['finance'], stepUp: true };
const financeB = { sub: 'emp_fin_b', roles: ['finance'], stepUp: true };

test.before(async () => { scene = await slipScene(); });
test.after(async () => { await scene.s.stop(); });

const journalLength = (): number => scene.s.running.store.db.prepare('SELECT count(*) FROM journal').pluck(true).get() as number;
const claimOf = async (id: string): Promise<any> => (await scene.s.bo('GET', `/v1/bo/claims/${id}`, undefined, { roles: ['finance'] })).json;
const postedTo = (account: string): number => Number(scene.s.running.store.db.prepare('SELECT coalesce(sum(amount), 0) FROM postings WHERE account = ?').pluck(true).get(account));

/** The live section of the trial balance at `asOfMs` (now when omitted), its lines by name, and its CSV rows. */
async function liveTrialBalance(asOfMs?: number): Promise<{ section: any; line: (name: string) => any; csv: Record<string, string>[] }> {
  const query = asOfMs === undefined ? '' : `as_of=${new Date(asOfMs).toISOString()}&`;
  const json = await scene.s.bo('GET', `/v1/bo/reports/trial-balance?${query}`, undefined, { roles: ['finance'] });
  assert.is(json.status, 200, json.text);
  const csv = await scene.s.bo('GET', `/v1/bo/reports/trial-balance?${query}format=csv`, undefined, { roles: ['finance'] });
  const section = json.json.sections.find((x: any) => x.livemode === true);
  // Every section balances, and its reclassifications sum to zero.
  for (const s of json.json.sections) {
    assert.ok(s.balanced, 'balanced');
    assert.is(s.accounts.reduce((t: number, a: any) => t + a.reclassified_minor, 0), 0, 'the reclassifications sum to zero');
    assert.is(s.accounts.reduce((t: number, a: any) => t + a.balance_minor, 0), 0, 'the balances sum to zero');
  }
  return {
    section, line: (name) => section.accounts.find((a: any) => a.account === `sys:live:${name}`),
    csv: (parse(csv.text, { columns: true }) as Record<string, string>[]).filter((r) => r.livemode === 'true'),
  };
}

function ledgerBalanced(step: string): void {
  const report = verifyStore(scene.s.running.store.db);
  assert.ok(report.ok, `${step}: ${JSON.stringify(report.mismatches).slice(0, 1500)}`);
}

test('a payer\'s debt written off on two finance operators\' word: the claim, the timeline and the trial balance show it (a loss, out of owed_by_payers); a recall after it is a recovery', async () => {
  const { claimId, deposit, refundWithdrawal } = await owedClaim(scene, 'WriteOff', note);
  const owedClaimVersion = (await claimOf(claimId)).version;
  const before = await liveTrialBalance();
  assert.equal([before.line('owed_by_payers').balance_minor, before.line('payer_debts_written_off')], [-5_000, undefined], 'owed, no write-off line yet');
  scene.s.clock.advance(60_000);
  const beforeWriteOff = scene.s.clock.now();
  scene.s.clock.advance(60_000);

  // Refused before the step-up, which they do not spend, and nothing is written: more than is owed (the
  // contract's validation_error), a note too short, an unknown claim, another role than finance.
  const journal = journalLength();
  const tooMuch = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs`, { amount_minor: 5_001, note: reason }, { sub: 'emp_fin_a', roles: ['finance'] });
  assert.equal([tooMuch.status, tooMuch.json.error?.code, tooMuch.json.error?.details?.fields], [422, 'validation_error', [{ path: 'amount_minor', reason: 'maximum', hint: 'at most 5000' }]], tooMuch.text);
  assert.match(tooMuch.json.error.message, /at most what the payer owes back: 50(\.00)? baht/);
  assert.equal((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs`, { amount_minor: 5_001, note: reason }, financeA)).status, 422, 'with a step-up too');
  const short = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs`, { note: 'bad debt' }, { sub: 'emp_fin_a', roles: ['finance'] });
  assert.equal([short.status, short.json.error?.code], [422, 'review_note_required'], short.text);
  assert.is((await scene.s.bo('POST', '/v1/bo/claims/clm_nobody/write-offs', { note: reason }, { sub: 'emp_fin_a', roles: ['finance'] })).status, 404);
  const ops = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs`, { note: reason }, { sub: 'emp_ops', roles: ['ops_admin'], stepUp: true });
  assert.equal([ops.status, ops.json.error?.code], [403, 'scope_denied'], ops.text);
  const noStepUp = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs`, { amount_minor: 3_000, note: reason }, { sub: 'emp_fin_a', roles: ['finance'] });
  assert.equal([noStepUp.status, noStepUp.json.error?.code], [403, 'scope_denied'], 'an admissible proposal needs the step-up');
  assert.is(journalLength(), journal, 'the refusals wrote nothing');
  assert.equal([(await claimOf(claimId)).version, (await claimOf(claimId)).owed_by_payer_minor], [owedClaimVersion, 5_000]);

  // emp_fin_a proposes 30 baht of the 50: nothing moves yet.
  const proposed = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs`, { amount_minor: 3_000, note: reason }, financeA);
  assert.is(proposed.status, 202, proposed.text);
  const proposal = proposed.json.write_off_proposal;
  assert.equal([proposal.amount_minor, proposal.proposed_by, proposal.note, proposed.json.owed_by_payer_minor, proposed.json.written_off_minor, proposed.json.status], [3_000, 'emp_fin_a', reason, 5_000, null, 'closed']);
  assert.match(proposal.id, /^wop_/);
  assert.is((await liveTrialBalance()).line('payer_debts_written_off'), undefined, 'a proposal moves nothing');
  const waiting = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs`, { note: reason }, { sub: 'emp_fin_b', roles: ['finance'] });
  assert.equal([waiting.status, waiting.json.error?.code, waiting.json.error?.details?.proposal_id], [409, 'operation_not_allowed', proposal.id], 'one proposal at a time');

  // Four eyes: its proposer cannot approve it, nor can anyone approve another amount or an unknown proposal; nothing written.
  const afterProposal = journalLength();
  const approve = (body: unknown, as: any, id = proposal.id) => scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs/${id}/approve`, body, as);
  const same = await approve({ amount_minor: 3_000 }, financeA);
  assert.equal([same.status, same.json.error?.code, same.json.error?.details?.proposed_by], [409, 'operation_not_allowed', 'emp_fin_a'], same.text);
  assert.match(same.json.error.message, /four eyes/);
  assert.is((await approve({ amount_minor: 3_000 }, { sub: 'EMP_FIN_A', roles: ['finance'], stepUp: true })).status, 409, 'the same person under another spelling');
  const other = await approve({ amount_minor: 2_000 }, financeB);
  assert.equal([other.status, other.json.error?.details?.fields?.[0]?.reason], [422, 'mismatch'], other.text);
  assert.is((await approve({ amount_minor: 3_000 }, financeB, 'wop_nobody')).status, 404);
  assert.is(journalLength(), afterProposal);

  // emp_fin_b approves: owed 20 baht, written off 30.
  const approved = await approve({ amount_minor: 3_000 }, financeB);
  assert.is(approved.status, 200, approved.text);
  assert.equal([approved.json.owed_by_payer_minor, approved.json.written_off_minor, approved.json.write_off_proposal, approved.json.status, approved.json.version], [2_000, 3_000, null, 'closed', owedClaimVersion + 2]);
  const last = approved.json.notes.at(-1);
  assert.equal([last.operator, last.status], ['emp_fin_b', 'closed']);
  assert.match(last.note, new RegExp(`Wrote off 30(\\.00)? baht .* as emp_fin_a proposed: ${reason}`));
  const types = scene.s.running.store.db.prepare('SELECT type FROM journal WHERE stream = ? ORDER BY version').pluck(true).all(claimId);
  assert.equal(types.slice(-3), ['ClaimRefundOwed', 'ClaimWriteOffProposed', 'ClaimWrittenOff']);
  // A replay answers the same, and writes nothing more.
  const key = 'write-off-approval-replay';
  const other30 = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs`, { amount_minor: 1_000, note: reason }, { ...financeA, idempotencyKey: key });
  assert.is(other30.status, 202, other30.text);
  const replay = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs`, { amount_minor: 1_000, note: reason }, { ...financeA, idempotencyKey: key });
  assert.equal([replay.status, replay.headers.get('idempotent-replay'), replay.json.write_off_proposal.id], [202, 'true', other30.json.write_off_proposal.id]);

  // The trial balance: owed_by_payers −20, payer_debts_written_off −30 (a debit: the loss), suspense +50 reclassified.
  const tb = await liveTrialBalance();
  const writtenOff = tb.line('payer_debts_written_off');
  assert.equal([writtenOff.kind, writtenOff.name, writtenOff.postings, writtenOff.debit_minor, writtenOff.credit_minor, writtenOff.reclassified_minor, writtenOff.balance_minor, writtenOff.side],
    ['system', 'payer_debts_written_off', 0, 0, 0, -3_000, -3_000, 'debit']);
  assert.equal([tb.line('owed_by_payers').balance_minor, tb.line('suspense').reclassified_minor], [-2_000, 5_000]);
  assert.is(tb.line('suspense').balance_minor - tb.line('suspense').reclassified_minor, postedTo('sys:live:suspense'), 'suspense\'s postings unchanged');
  const row = tb.csv.find((r) => r.account === 'sys:live:payer_debts_written_off')!;
  assert.equal([row.reclassified_minor, row.balance_minor, row.side], ['-3000', '-3000', 'debit']);
  // As of before the write-off: all owed, no written-off line.
  const earlier = await liveTrialBalance(beforeWriteOff);
  assert.equal([earlier.line('owed_by_payers').balance_minor, earlier.line('payer_debts_written_off')], [-5_000, undefined]);
  // The claim is still listed as owing (20 baht), and the deposit's timeline shows the proposal and the write-off.
  const owedList = (await scene.s.bo('GET', '/v1/bo/claims?owed_by_payer=true&livemode=true', undefined, { roles: ['finance'] })).json.data;
  assert.equal(owedList.filter((c: any) => c.id === claimId).map((c: any) => [c.owed_by_payer_minor, c.written_off_minor]), [[2_000, 3_000]]);
  const steps = (await scene.s.bo('GET', `/v1/bo/deposits/${deposit.id}`, undefined, { roles: ['finance'] })).json.timeline.filter((t: any) => t.step === 'claim' && t.detail.write_off_proposal_id === proposal.id);
  assert.equal(steps.map((t: any) => [t.type, t.detail.operator, t.detail.write_off_minor ?? t.detail.written_off_minor, t.detail.proposed_by ?? null]),
    [['ClaimWriteOffProposed', 'emp_fin_a', 3_000, null], ['ClaimWrittenOff', 'emp_fin_b', 3_000, 'emp_fin_a']]);
  ledgerBalanced('written off in part');

  // The rest: the waiting 10 baht approved by emp_fin_b, then the last 10 (no amount: all that is owed) by emp_fin_b, approved by emp_fin_a.
  assert.is((await approve({ amount_minor: 1_000 }, financeB, other30.json.write_off_proposal.id)).status, 200);
  const rest = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs`, { note: reason }, financeB);
  assert.equal([rest.status, rest.json.write_off_proposal?.amount_minor], [202, 1_000], rest.text);
  const all = await approve({ amount_minor: 1_000 }, financeA, rest.json.write_off_proposal.id);
  assert.equal([all.status, all.json.owed_by_payer_minor, all.json.written_off_minor], [200, null, 5_000], all.text);
  const nothing = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs`, { note: reason }, financeA);
  assert.equal([nothing.status, nothing.json.error?.code], [409, 'operation_not_allowed'], 'nothing left owed');
  const whole = await liveTrialBalance();
  assert.equal([whole.line('owed_by_payers').balance_minor, whole.line('payer_debts_written_off').balance_minor, whole.line('suspense').reclassified_minor], [0, -5_000, 5_000]);
  const owedNow = (await scene.s.bo('GET', '/v1/bo/claims?owed_by_payer=true', undefined, { roles: ['finance'] })).json.data;
  assert.not.ok(owedNow.some((c: any) => c.id === claimId), 'owes nothing: no longer listed');
  // The claims behind the payer_debts_written_off line: written_off=true lists this one, false the others; the value is checked.
  const listed = async (q: string) => (await scene.s.bo('GET', `/v1/bo/claims?${q}&limit=100`, undefined, { roles: ['finance'] })).json.data.map((c: any) => [c.id, c.written_off_minor]);
  assert.equal(await listed('written_off=true'), [[claimId, 5_000]]);
  assert.not.ok((await listed('written_off=false')).some(([id]: [string]) => id === claimId));
  const badFilter = await scene.s.bo('GET', '/v1/bo/claims?written_off=yes', undefined, { roles: ['finance'] });
  assert.equal([badFilter.status, badFilter.json.error?.details?.fields?.[0]?.path], [422, 'query.written_off'], badFilter.text);

  // The payer's bank gives the refund back after all (its fill reversed): a recovery of the loss, nothing owed below zero.
  scene.s.clock.advance(60_000);
  const beforeRecall = scene.s.clock.now() - 1;
  const legRef = (await scene.s.bo('GET', `/v1/bo/withdrawals/${refundWithdrawal.id}`)).json.withdrawal.fills[0].leg_ref;
  const recovered = await scene.s.bo('POST', `/v1/bo/withdrawals/${refundWithdrawal.id}/fills/${legRef}/reverse`, { reason_code: 'BANK_RECALL', note: 'the payer\'s bank recalled the refund transfer' }, { sub: 'emp_recall', stepUp: true });
  assert.is(recovered.status, 200, recovered.text);
  const done = await claimOf(claimId);
  assert.equal([done.owed_by_payer_minor, done.written_off_minor, done.refunded_minor], [null, null, 0]);
  const after = await liveTrialBalance();
  assert.equal([after.line('owed_by_payers').balance_minor, after.line('payer_debts_written_off').balance_minor, after.line('suspense').reclassified_minor], [0, 0, 0], 'the line stays, at 0');
  assert.is(after.line('suspense').balance_minor, postedTo('sys:live:suspense'));
  // As of before the recall, the loss stands.
  assert.is((await liveTrialBalance(beforeRecall)).line('payer_debts_written_off').balance_minor, -5_000);
  ledgerBalanced('recovered after the write-off');
});

test('a proposal that lapsed (24 h unapproved) is no longer shown on the claim or in the list, cannot be approved, and another may be made', async () => {
  const { claimId } = await owedClaim(scene, 'WriteOffLapse', note);
  const proposed = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs`, { amount_minor: 2_000, note: reason }, financeA);
  assert.is(proposed.status, 202, proposed.text);
  const proposal = proposed.json.write_off_proposal;
  scene.s.clock.advance(24 * 3_600_000 - 1);
  assert.is((await claimOf(claimId)).write_off_proposal?.id, proposal.id, 'still waiting a millisecond before approve_by');
  scene.s.clock.advance(1);
  const lapsed = await claimOf(claimId);
  assert.equal([lapsed.write_off_proposal, lapsed.owed_by_payer_minor], [null, 5_000], 'lapsed at approve_by: not shown as waiting');
  const listed = (await scene.s.bo('GET', '/v1/bo/claims?owed_by_payer=true&limit=100', undefined, { roles: ['finance'] })).json.data.find((c: any) => c.id === claimId);
  assert.is(listed.write_off_proposal, null, 'nor in the list');
  const late = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs/${proposal.id}/approve`, { amount_minor: 2_000 }, financeB);
  assert.is(late.status, 404, late.text);
  const again = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/write-offs`, { amount_minor: 2_000, note: reason }, financeB);
  assert.equal([again.status, again.json.write_off_proposal?.proposed_by], [202, 'emp_fin_b'], again.text);
  assert.is.not(again.json.write_off_proposal.id, proposal.id);
});

test.run();
