// The write-off of what a claim's payer owes back, as a table: given(claim events)
// .when(ProposeWriteOff | ApproveWriteOff).then(events | refusal), against decideWriteOff
// with the claim folded by evolveClaim; every refusal code the decider can return has a row
// (refusalCodesReachable). Then the debt's rule (payerDebtAfter) under fast-check: for any
// sequence of write-offs and recalls, owed and written off stay ≥ 0, a write-off moves its
// amount from one to the other, a recall caps their sum at what is left refunded and takes
// what it recovers from owed first; and evolveClaim's fields follow the same rule. A
// write-off leaves the payer's debt the payer's: what the claim says its payee owes
// (owedByPayeeOf) stays what the payee debts' rule (owedByPayeeAfter) folds to, nothing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { decideWriteOff, type WriteOffCommand } from '../../core/claim/write-off.ts';
import { evolveClaim, noPayerDebt, owedByPayeeAfter, owedByPayeeOf, payerDebtAfter, payerDebtOf, type Claim, type ClaimEvent, type PayeeDebt, type PayerDebt } from '../../core/claim/state.ts';
import { limits } from '../../core/limits.ts';
import { refusalCodesOfRows, refusalCodesReachable, table, type Decider, type Row } from '../support/decider.ts';

const T0 = Date.UTC(2026, 10, 21, 3);
const note = 'payer unreachable for 90 days, collection declined';
const ev = { at: T0 + 1000, claimId: 'clm_1', note, status: 'closed' as const };
// A claim closed having refunded 50 baht, its deposit then reversed: the payer owes the 50 back.
const owing: Claim = {
  id: 'clm_1', kind: 'overpayment', status: 'closed', depositId: 'dep_1', merchantId: 'mch_1', livemode: true, amountMinor: 5_000n, refundedMinor: 5_000n,
  refundWithdrawalId: 'wdr_1', owedByPayerMinor: 5_000n, version: 5, createdAt: T0, updatedAt: T0,
};
const proposed: ClaimEvent = { type: 'ClaimWriteOffProposed', ...ev, operatorId: 'emp_a', proposalId: 'wop_1', amountMinor: 3_000n };
const writtenOff: ClaimEvent = { type: 'ClaimWrittenOff', ...ev, operatorId: 'emp_b', note: `Wrote off 30.00 baht the payer owes back, as emp_a proposed: ${note}`, proposalId: 'wop_1', proposedBy: 'emp_a', amountMinor: 3_000n };
const propose = (over: Partial<Extract<WriteOffCommand, { type: 'ProposeWriteOff' }>> = {}): WriteOffCommand => ({ type: 'ProposeWriteOff', at: ev.at, operatorId: 'emp_a', note, proposalId: 'wop_1', ...over });
const approve = (over: Partial<Extract<WriteOffCommand, { type: 'ApproveWriteOff' }>> = {}): WriteOffCommand => ({ type: 'ApproveWriteOff', at: ev.at, operatorId: 'emp_b', proposalId: 'wop_1', amountMinor: 3_000n, ...over });

const decider: Decider<Claim, ClaimEvent, WriteOffCommand, readonly ClaimEvent[]> = {
  initialState: () => owing,
  evolve: evolveClaim,
  decide: (c, s) => decideWriteOff(c, s) as readonly ClaimEvent[],
};

const rows: Row<Claim, ClaimEvent, WriteOffCommand, readonly ClaimEvent[], undefined>[] = [
  { row: 'owed 50 → propose 30: proposed, nothing written off yet', given: [], when: propose({ amountMinor: 3_000n }), then: [proposed] },
  { row: 'owed 50 → propose without an amount: all that is owed', given: [], when: propose(), then: [{ ...proposed, amountMinor: 5_000n } as ClaimEvent] },
  { row: 'propose more than owed: validation_error (amount_minor maximum)', given: [], when: propose({ amountMinor: 5_001n }), refused: 'validation_error', message: /at most what the payer owes back: 50(\.00)? baht/ },
  { row: 'propose nothing: validation_error', given: [], when: propose({ amountMinor: 0n }), refused: 'validation_error' },
  { row: 'propose with a short note: review_note_required', given: [], when: propose({ note: 'bad debt' }), refused: 'review_note_required' },
  { row: 'propose while another proposal waits: operation_not_allowed', given: [proposed], when: propose({ operatorId: 'emp_c', proposalId: 'wop_2' }), refused: 'operation_not_allowed', message: /waits for approval/ },
  { row: 'propose once the waiting proposal lapsed: proposed again', given: [proposed], when: propose({ at: ev.at + limits.writeOffProposalTtlMs, proposalId: 'wop_2', amountMinor: 1_000n }), then: [{ ...proposed, at: ev.at + limits.writeOffProposalTtlMs, proposalId: 'wop_2', amountMinor: 1_000n } as ClaimEvent] },
  { row: 'nothing owed: operation_not_allowed', given: [proposed, writtenOff, { ...proposed, proposalId: 'wop_2', amountMinor: 2_000n }, { ...writtenOff, proposalId: 'wop_2', amountMinor: 2_000n }], when: propose({ proposalId: 'wop_3' }), refused: 'operation_not_allowed', message: /owes nothing back/ },
  { row: 'approve by another operator, naming the amount: written off', given: [proposed], when: approve(), then: [writtenOff] },
  { row: 'approve with a note of its own', given: [proposed], when: approve({ note: 'agreed: the collection agency declined too' }), then: [{ ...writtenOff, note: 'agreed: the collection agency declined too' } as ClaimEvent] },
  { row: 'approve by its proposer: operation_not_allowed (four eyes)', given: [proposed], when: approve({ operatorId: 'emp_a' }), refused: 'operation_not_allowed', message: /four eyes/ },
  { row: 'approve by its proposer spelled in capitals: operation_not_allowed', given: [proposed], when: approve({ operatorId: 'EMP_A' }), refused: 'operation_not_allowed' },
  { row: 'approve another amount: validation_error', given: [proposed], when: approve({ amountMinor: 2_000n }), refused: 'validation_error', message: /not the one proposed/ },
  { row: 'approve an unknown proposal: resource_not_found', given: [proposed], when: approve({ proposalId: 'wop_9' }), refused: 'resource_not_found' },
  { row: 'approve a lapsed proposal: resource_not_found', given: [proposed], when: approve({ at: ev.at + limits.writeOffProposalTtlMs }), refused: 'resource_not_found' },
  { row: 'approve twice: resource_not_found (it no longer waits)', given: [proposed, writtenOff], when: approve(), refused: 'resource_not_found' },
  { row: 'approve with a short note: review_note_required', given: [proposed], when: approve({ note: 'ok' }), refused: 'review_note_required' },
  {
    row: 'approve after a recall lowered the debt below the proposal: validation_error', given: [proposed, { type: 'ClaimRefundRecalled', ...ev, operatorId: 'emp_r', recalledWithdrawalId: 'wdr_1', legRef: 'leg_1', recalledMinor: 3_000n, refundedMinor: 2_000n }],
    when: approve(), refused: 'validation_error', message: /now \(the bank recovered some of it/,
  },
];

table(decider, rows);

test('a write-off leaves the payee owing nothing: the debt written off is still the payer\'s', () => {
  const claim = [proposed, writtenOff].reduce(evolveClaim, owing);
  assert.equal([claim.owedByPayerMinor, claim.writtenOffMinor, owedByPayeeOf(claim)], [2_000n, 3_000n, 0n]);
  assert.equal([proposed, writtenOff].reduce(owedByPayeeAfter, { owedMinor: 0n, closed: true }), { owedMinor: 0n, closed: true });
});

test('no claim: resource_not_found (a short note first: the body\'s fault)', () => {
  assert.equal((decideWriteOff(propose(), undefined) as any).code, 'resource_not_found');
  assert.equal((decideWriteOff(propose({ note: 'x' }), undefined) as any).code, 'review_note_required');
  assert.equal((decideWriteOff(approve(), undefined) as any).code, 'resource_not_found');
});

test('every refusal code the write-off decider can return has a row', () => {
  const covered = refusalCodesOfRows(rows);
  covered.add('resource_not_found');
  assert.equal([...refusalCodesReachable('core/claim/write-off.ts')].filter((c) => !covered.has(c)), []);
});

test('the claim after a write-off: owed down, written off up, the proposal gone, the status kept; evolve refuses a write-off above what is owed', () => {
  const after = [proposed, writtenOff].reduce(evolveClaim, owing);
  assert.equal([after.owedByPayerMinor, after.writtenOffMinor, after.writeOffProposal, after.status, after.version], [2_000n, 3_000n, undefined, 'closed', owing.version + 2]);
  assert.equal(after.notes?.map((n) => [n.operatorId, n.status]), [['emp_a', 'closed'], ['emp_b', 'closed']]);
  const all = [{ ...proposed, proposalId: 'wop_2', amountMinor: 2_000n } as ClaimEvent, { ...writtenOff, proposalId: 'wop_2', amountMinor: 2_000n } as ClaimEvent].reduce(evolveClaim, after);
  assert.equal([all.owedByPayerMinor, all.writtenOffMinor], [undefined, 5_000n]);
  assert.throws(() => evolveClaim(owing, { ...proposed, amountMinor: 5_001n } as ClaimEvent));
  assert.throws(() => evolveClaim(evolveClaim(owing, proposed), { ...writtenOff, amountMinor: 5_001n } as ClaimEvent));
  assert.throws(() => evolveClaim(owing, writtenOff), 'no proposal waits');
});

test('a recall after a write-off: what it recovers lowers what is owed first, then what was written off; never below zero', () => {
  const recall = (refundedMinor: bigint): ClaimEvent => ({ type: 'ClaimRefundRecalled', ...ev, operatorId: 'emp_r', recalledWithdrawalId: 'wdr_1', legRef: 'leg_1', recalledMinor: 5_000n - refundedMinor, refundedMinor });
  const debt = { owedMinor: 2_000n, writtenOffMinor: 3_000n };
  assert.equal(payerDebtAfter(debt, recall(4_000n)), { owedMinor: 1_000n, writtenOffMinor: 3_000n }, '10 recovered, of what is owed');
  assert.equal(payerDebtAfter(debt, recall(2_000n)), { owedMinor: 0n, writtenOffMinor: 2_000n }, '30 recovered: the 20 owed, then 10 of the loss');
  assert.equal(payerDebtAfter(debt, recall(0n)), noPayerDebt, 'all recovered');
  assert.equal(payerDebtAfter({ owedMinor: 0n, writtenOffMinor: 5_000n }, recall(0n)), noPayerDebt, 'a whole loss recovered');
  assert.equal(payerDebtAfter(debt, recall(6_000n)), debt, 'a recall that leaves more refunded than the debt recovers nothing');
  const claim = evolveClaim([proposed, writtenOff].reduce(evolveClaim, owing), recall(2_000n));
  assert.equal([claim.owedByPayerMinor, claim.writtenOffMinor, claim.refundedMinor], [undefined, 2_000n, 2_000n]);
});

type Step = { kind: 'writeOff'; share: number } | { kind: 'recall'; share: number };

test('property: owed and written off never go below zero; a write-off conserves the debt; a recall caps it at what is left refunded and takes from owed first', () => {
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('writeOff' as const), share: fc.double({ min: 0, max: 1, noNaN: true }) }),
    fc.record({ kind: fc.constant('recall' as const), share: fc.double({ min: 0, max: 1, noNaN: true }) }),
  );
  fc.assert(fc.property(fc.integer({ min: 100, max: 10_000_000 }), fc.array(step, { maxLength: 12 }), (owedAtFirst, steps) => {
    let refunded = BigInt(owedAtFirst);
    let claim: Claim = { ...owing, amountMinor: refunded, refundedMinor: refunded, owedByPayerMinor: refunded };
    let debt: PayerDebt = { owedMinor: refunded, writtenOffMinor: 0n };
    // Closed, then all it refunded owed back by the payer: the payee owes nothing.
    let payee: PayeeDebt = { owedMinor: 0n, closed: true };
    let n = 0;
    for (const s of steps) {
      const before = debt;
      let events: readonly ClaimEvent[];
      if (s.kind === 'writeOff') {
        if (debt.owedMinor === 0n) continue;
        const amount = 1n + BigInt(Math.floor(Number(debt.owedMinor - 1n) * s.share));
        const p = decideWriteOff(propose({ at: ev.at + n, proposalId: `wop_${++n}`, amountMinor: amount }), claim) as readonly ClaimEvent[];
        claim = p.reduce(evolveClaim, claim);
        events = decideWriteOff(approve({ at: ev.at + n, proposalId: `wop_${n}`, amountMinor: amount }), claim) as readonly ClaimEvent[];
      } else {
        refunded -= BigInt(Math.floor(Number(refunded) * s.share));
        events = [{ type: 'ClaimRefundRecalled', ...ev, operatorId: 'emp_r', recalledWithdrawalId: 'wdr_1', legRef: `leg_${++n}`, recalledMinor: 1n, refundedMinor: refunded }];
      }
      for (const e of events) { debt = payerDebtAfter(debt, e); payee = owedByPayeeAfter(payee, e); claim = evolveClaim(claim, e); }
      assert.is(owedByPayeeOf(claim), payee.owedMinor, 'the claim\'s payee debt follows the payee debts\' rule: a write-off is no payee\'s');
      assert.ok(debt.owedMinor >= 0n && debt.writtenOffMinor >= 0n, `no part below zero: ${JSON.stringify(debt, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`);
      assert.equal(payerDebtOf(claim), debt, 'the claim\'s fields follow the rule');
      const total = debt.owedMinor + debt.writtenOffMinor, totalBefore = before.owedMinor + before.writtenOffMinor;
      if (s.kind === 'writeOff') assert.is(total, totalBefore, 'a write-off moves, never creates, debt');
      else {
        assert.is(total, totalBefore < refunded ? totalBefore : refunded, 'a recall caps the debt at what is left refunded');
        if (debt.writtenOffMinor < before.writtenOffMinor) assert.is(debt.owedMinor, 0n, 'the loss is recovered only once nothing is owed');
      }
    }
  }), { numRuns: 300 });
});

test.run();
