// An order's version, as its merchant sees it, moves with what the merchant can see and is
// told by an event each time (contract: version "increases on every change; no two events
// of one object share a version"; a merchant keeping the latest version by events is never
// left with a gap or a stale object). Random mixes of deposits (exact, mismatched, large
// enough for four eyes), slips queued behind others and after settlement, reviews
// approved once or twice or declined, cancellations, withdrawals needing approval,
// disputes with evidence, reversals and clock advances (expiry, late windows, clearing).
// After every step, for every journal entry on a deposit or a withdrawal:
//   - a version that moved moved by one, and an event of that object carries it — but for
//     the approval that opens a withdrawal (contract: "no dedicated event; read status from
//     the next event");
//   - a version that did not move hides no change: the order shows the same as before;
//   - each event's object is the order as GET shows it at that version.

import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { objectVersion, type Deposit } from '../../core/deposit/state.ts';
import { presentDeposit, presentWithdrawal } from '../../core/present.ts';
import { withdrawalVersion, type Withdrawal } from '../../core/withdrawal/state.ts';
import { exactTransfer, Harness, merchantActor, operator, system } from '../support/core-harness.ts';

type Step =
  | { kind: 'withdraw'; amount: number; approval: boolean }
  | { kind: 'approveWithdrawal'; pick: number; second: boolean }
  | { kind: 'deposit'; amount: number }
  | { kind: 'slip'; pick: number; match: 'exact' | 'name' | 'short' }
  | { kind: 'approveReview'; pick: number; second: boolean }
  | { kind: 'decline'; pick: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'dispute'; pick: number; step: 'open' | 'evidence' | 'resolve' }
  | { kind: 'reverse'; pick: number }
  | { kind: 'advance'; minutes: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('withdraw' as const), amount: fc.integer({ min: 10_000, max: 80_000 }), approval: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('approveWithdrawal' as const), pick: fc.nat(), second: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deposit' as const), amount: fc.integer({ min: 20, max: 60_000 }) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('slip' as const), pick: fc.nat(), match: fc.constantFrom('exact' as const, 'name' as const, 'short' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('approveReview' as const), pick: fc.nat(), second: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('decline' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('dispute' as const), pick: fc.nat(), step: fc.constantFrom('open' as const, 'evidence' as const, 'resolve' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reverse' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), minutes: fc.integer({ min: 1, max: 60 * 80 }) }) },
);

const note = 'checked against the bank statement today';
const without = (o: Record<string, unknown>) => ({ ...o, version: undefined });
const shown = (s: Deposit | Withdrawal) => (s.id.startsWith('dep_') ? presentDeposit(s as Deposit) : presentWithdrawal(s as Withdrawal));
const versionOf = (s: Deposit | Withdrawal) => (s.id.startsWith('dep_') ? objectVersion(s as Deposit) : withdrawalVersion(s as Withdrawal));

/** What the checks counted (over and over: every step checks the whole journal), to see the interesting cases were met. */
interface Seen { silent: number; toldOnly: number; opening: number }

/** The checks of the header over every journal entry so far. */
function check(h: Harness, seen: Seen): void {
  const told = new Map<string, Record<string, unknown>>();
  for (const e of h.journal.events) {
    const o = e.object as Record<string, unknown>;
    if (o.object !== 'deposit_order' && o.object !== 'withdrawal_order') continue;
    const key = `${o.id}@${o.version}`;
    assert.not.ok(told.has(key), `two events of ${key}`);
    told.set(key, o);
  }
  const last = new Map<string, Deposit | Withdrawal>();
  for (const c of h.journal.commits) {
    for (let i = 0; i < c.entries.length; i++) {
      const entry = c.entries[i]!;
      const after = c.entryStates?.[i];
      if (!after) continue;
      const before = last.get(entry.stream);
      last.set(entry.stream, after);
      const v = versionOf(after);
      if (before === undefined) {
        assert.is(v, 0, `${entry.stream} starts at version 0`);
        assert.ok(told.has(`${entry.stream}@0`), `${entry.stream}: created without an event`);
        continue;
      }
      const was = versionOf(before);
      if (v === was) {
        seen.silent++;
        assert.equal(without(shown(after)), without(shown(before)), `${entry.stream}: ${entry.type} changed what the merchant sees without moving version ${v}`);
        continue;
      }
      assert.is(v, was + 1, `${entry.stream}: ${entry.type} moved the version from ${was} to ${v}`);
      const opens = entry.event.type === 'WithdrawalApprovalRecorded' && entry.event.opens;
      if (opens) { seen.opening++; continue; }
      const event = told.get(`${entry.stream}@${v}`);
      assert.ok(event, `${entry.stream}: ${entry.type} moved the version to ${v} and no event carries it`);
      if (JSON.stringify(without(shown(after))) === JSON.stringify(without(shown(before)))) seen.toldOnly++;
    }
  }
  // Each event's object is the order as it was at that version (the last entry reaching it).
  for (const [id, state] of last) {
    const key = `${id}@${versionOf(state)}`;
    const event = told.get(key);
    if (event) assert.equal(JSON.parse(JSON.stringify(event)), JSON.parse(JSON.stringify(shown(state))), `${key}: the event's object is not GET's`);
  }
}

function run(steps: readonly Step[], seen: Seen): void {
  const h = new Harness();
  const wl = h.whiteLabel();
  const payee = h.merchant(wl, 1_000_000_000n);
  const shop = h.merchant(wl);
  const withdrawals = [h.withdrawal(payee, 3_000_000n)];
  const deposits: string[] = [];
  const pick = <T>(list: readonly T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);
  for (const s of steps) {
    switch (s.kind) {
      case 'withdraw': withdrawals.push(h.withdrawal(payee, BigInt(s.amount) * 100n, { requiresApproval: s.approval })); break;
      case 'approveWithdrawal': {
        const id = pick(withdrawals.filter((w) => h.world.withdrawals.get(w)!.status === 'pending_approval'), s.pick);
        if (!id) break;
        h.exec({ type: 'ApproveWithdrawal', actor: operator('emp_alice'), withdrawalId: id }); // the first of two: silent
        if (s.second) h.exec({ type: 'ApproveWithdrawal', actor: operator('emp_bob'), withdrawalId: id }); // opens it
        break;
      }
      case 'deposit': {
        const r = h.deposit(shop, BigInt(s.amount) * 100n);
        if (r.ok && r.objectId) deposits.push(r.objectId);
        break;
      }
      case 'slip': {
        const id = pick(deposits, s.pick);
        const d = id && h.world.deposits.get(id);
        if (!d || d.legs.length === 0) break;
        const receiptId = h.ids.next('rcpt');
        if (!h.exec({ type: 'ReceiveSlip', actor: system, depositId: d.id, receiptId, hasImage: true }).ok) break;
        const now = h.world.deposits.get(d.id)!;
        if (now.status !== 'slip_processing' || !now.slip) break; // queued behind another, or recorded after settlement
        // The first leg still waiting (a multi-leg order takes a slip per leg).
        const leg = now.legs.find((l) => l.legStatus === 'pending') ?? now.legs[0]!;
        const transfer = {
          ...exactTransfer(h, d.id, { transRef: h.ids.next('tr'), ...(s.match === 'name' ? { senderName: 'ผู้อื่น ไม่ตรง' } : {}) }),
          amountMinor: s.match === 'short' ? leg.amountMinor - 100n : leg.amountMinor,
          receiver: { bankCode: leg.receiver.bankCode, accountNumber: leg.receiver.accountNumber, name: leg.receiver.accountName },
        };
        h.exec({ type: 'RecordSlipVerification', actor: system, depositId: d.id, receiptId: now.slip.receiptId, outcome: { kind: 'found', facts: { senderBankDisabled: false }, transfer } });
        break;
      }
      case 'approveReview': {
        const id = pick(deposits, s.pick)!;
        if (id) h.exec({ type: 'ApproveDepositReview', actor: operator(s.second ? 'emp_bob' : 'emp_alice'), depositId: id, note });
        break;
      }
      case 'decline': {
        const id = pick(deposits, s.pick);
        if (id) h.exec({ type: 'DeclineDepositReview', actor: operator(), depositId: id, note });
        break;
      }
      case 'cancel': {
        const id = pick(deposits, s.pick);
        if (id) h.exec({ type: 'CancelDeposit', actor: merchantActor(shop), depositId: id });
        break;
      }
      case 'dispute': {
        const w = pick(withdrawals.map((id) => h.world.withdrawals.get(id)!).filter((x) => x.filledMinor > 0n), s.pick);
        if (!w) break;
        if (s.step === 'open' && w.filledMinor > 0n) h.exec({ type: 'OpenDispute', actor: operator(), withdrawalId: w.id, reasonCode: 'NOT_RECEIVED', amountMinor: w.filledMinor });
        else if (s.step === 'evidence' && w.dispute) h.exec({ type: 'SubmitDisputeEvidence', actor: merchantActor(payee), disputeId: w.dispute.id, text: 'bank statement attached', fileCount: 0 });
        else if (s.step === 'resolve' && w.dispute) h.exec({ type: 'ResolveDispute', actor: operator(), disputeId: w.dispute.id, outcome: 'merchant_won', note });
        break;
      }
      case 'reverse': {
        const id = pick(deposits, s.pick);
        if (id) h.exec({ type: 'ReverseDeposit', actor: operator(), depositId: id, reasonCode: 'BANK_RECALL', note });
        break;
      }
      case 'advance': h.advance(s.minutes * 60_000); break;
    }
    check(h, seen);
  }
}

test('every change the merchant sees moves the version by one and is told at it; a silent entry changes nothing shown', () => {
  const seen: Seen = { silent: 0, toldOnly: 0, opening: 0 };
  fc.assert(fc.property(fc.array(step, { minLength: 4, maxLength: 40 }), (steps) => run(steps, seen)), { numRuns: 120 });
  assert.ok(seen.silent > 20, `only ${seen.silent} silent entries met`);
  assert.ok(seen.opening > 5, `only ${seen.opening} opening approvals met`);
  assert.ok(seen.toldOnly > 3, `only ${seen.toldOnly} first approvals of a four-eyes review met`);
});

test.run();
