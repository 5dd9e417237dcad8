// The six-dimension slip check and the review reasons: masked account numbers and names
// as Thai slips print them (match, no_match, or indeterminate, which never settles on its
// own), the time window's edges, and reasons[] ordered by importance with AMOUNT_MISMATCH
// only ever alongside another reason; actionable_by as the contract lists it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { actionableBy, orderReasons, reasonImportance, reasonTexts } from '../../core/deposit/reasons.ts';
import type { Deposit, ReviewReasonCode } from '../../core/deposit/state.ts';
import { checkTransfer, matchAccountNumber, matchName, type SlipTransfer } from '../../core/deposit/verification.ts';
import { exactTransfer } from '../support/core-harness.ts';
import { noFacts, openDeposit, scene } from '../support/transitions.ts';

test('matchAccountNumber: full numbers compare digits only; masked ones compare visible digits, right-aligned', () => {
  const full = '9876543210';
  const table: [string, string][] = [
    ['9876543210', 'match'], ['987-6-54321-0', 'match'], ['9876 543 210', 'match'], ['9876543211', 'no_match'],
    ['xxx-x-x4321-x', 'match'], ['XXX-X-X4321-X', 'match'], ['*****4321*', 'match'], ['•••••4321•', 'match'],
    ['x4321x', 'match'], ['xxx-x-x4322-x', 'no_match'], ['xxx-x-xx321-x', 'indeterminate'], ['xxxxxxxxxx', 'indeterminate'],
    ['', 'indeterminate'], [' - ', 'indeterminate'],
  ];
  for (const [seen, answer] of table) assert.is(matchAccountNumber(full, seen), answer, `"${seen}"`);
});

test('matchName: honorifics and spacing ignored; a masked name matches on a visible prefix of 3+ characters', () => {
  const full = 'สมชาย ใจดี';
  const table: [string, string][] = [
    ['สมชาย ใจดี', 'match'], ['นาย สมชาย ใจดี', 'match'], ['นายสมชาย ใจดี', 'match'], ['  สมชาย   ใจดี ', 'match'],
    ['สมชาย ใ***', 'match'], ['สมชาย ใจ**', 'match'], ['สมชาย xxx', 'match'], ['สมศรี ใ***', 'no_match'], ['สมชาย ใจร้าย', 'no_match'],
    ['สม***', 'indeterminate'], ['***', 'indeterminate'], ['', 'indeterminate'],
  ];
  for (const [seen, answer] of table) assert.is(matchName(full, seen), answer, `"${seen}"`);
  assert.is(matchName('Somchai Jaidee', 'MR. SOMCHAI JAIDEE'), 'match', 'English names compare case-insensitively');
  assert.is(matchName('Max Power', 'MAX POWER'), 'match', 'an x that is part of an equal name is not a mask');
  // Thai spellings that show the same letters (core/thai-names.ts): NFC does not unify them.
  const sameShown: [string, string, string][] = [
    ['สมคำ ใจดี', 'สมค\u0e4d\u0e32 ใจดี', 'SARA AM as NIKHAHIT + SARA AA (text copied from a PDF)'],
    ['สมค\u0e4d\u0e32 ใจดี', 'สมคำ ใจดี', 'the other way'],
    ['ศรีสุข ดีใจ', 'ศ\u0e23\u0e35สุข ดีใจ', 'the same code points'],
    ['ปี่ ใจดี', 'ป\u0e48\u0e35 ใจดี', 'a tone mark typed before its vowel'],
    ['สมชาย ใจดี', 'สม\u200cชาย ใจดี', 'a zero-width non-joiner'],
    ['สมชาย ใจดี', 'สมชาย\u200b ใจดี', 'a zero-width space a word processor put at a word break'],
  ];
  for (const [registered, slip, what] of sameShown) assert.is(matchName(registered, slip), 'match', what);
  assert.is(matchName('สมคำ ใจดี', 'สมคา ใจดี'), 'no_match', 'SARA AA alone is another name');
  assert.is(matchName('ปี่ ใจดี', 'ปี ใจดี'), 'no_match', 'a tone mark left out is another name');
  assert.is(matchName('Xavier Dupont', 'Xavier Dupont'), 'match');
  assert.is(matchName('Xavier Dupont', 'Xavier Martin'), 'indeterminate', 'a leading x may be a mask: no visible prefix to compare');
  assert.is(matchName('นางสาว สมหญิง รักดี', 'สมหญิง ร***'), 'match');
});

test('orderReasons: deduplicated, by importance, AMOUNT_MISMATCH last and never alone', () => {
  assert.equal(orderReasons([{ code: 'AMOUNT_MISMATCH' }]), [], 'an amount-only mismatch never opens review');
  assert.equal(orderReasons([{ code: 'AMOUNT_MISMATCH' }, { code: 'AMOUNT_MISMATCH' }]), []);
  assert.equal(orderReasons([{ code: 'AMOUNT_MISMATCH' }, { code: 'TIME_WINDOW' }]).map((r) => r.code), ['TIME_WINDOW', 'AMOUNT_MISMATCH']);
  assert.equal(orderReasons([{ code: 'AMBIGUOUS_MATCH', detail: { first: true } }, { code: 'AMBIGUOUS_MATCH' }]), [{ code: 'AMBIGUOUS_MATCH', detail: { first: true } }]);
  const shuffled = [...reasonImportance].reverse().map((code) => ({ code }));
  assert.equal(orderReasons(shuffled).map((r) => r.code), [...reasonImportance]);
  assert.is(reasonImportance[reasonImportance.length - 1], 'AMOUNT_MISMATCH');
  assert.is(reasonImportance[0], 'DUPLICATE_SLIP', 'reused evidence is shown first');
});

test('actionableBy follows the contract’s list; every code has Thai and English texts', () => {
  const contract: Record<ReviewReasonCode, 'end_user' | 'support'> = {
    AMOUNT_MISMATCH: 'end_user', TIME_WINDOW: 'support', SENDER_BANK_MISMATCH: 'end_user', SENDER_ACCOUNT_MISMATCH: 'end_user',
    SENDER_NAME_MISMATCH: 'end_user', RECEIVER_MISMATCH: 'end_user', BANK_DISABLED: 'support', DUPLICATE_SLIP: 'end_user',
    SLIP_INVALID: 'support', AMBIGUOUS_MATCH: 'support', PROVIDER_UNAVAILABLE: 'support', SENDER_ACCOUNT_UNAVAILABLE: 'support',
    LATE_SLIP: 'support', CANCELED_ORDER_SLIP: 'support', ALLOCATION_CONFLICT: 'support', SETTLE_CONFLICT: 'support',
    ROUTE_VERIFICATION_PENDING: 'support', LATE_ROUTE_CONFIRMATION: 'support', NO_SLIP_IMAGE: 'support', RISK_HOLD: 'support',
  };
  for (const [code, who] of Object.entries(contract) as [ReviewReasonCode, string][]) {
    assert.is(actionableBy(code), who, code);
    assert.ok(reasonTexts[code].th.length > 0 && reasonTexts[code].en.length > 0, code);
  }
  assert.equal([...reasonImportance].sort(), Object.keys(contract).sort(), 'every known code has a place in the order');
});

function deposit(): Deposit & { transfer: (over?: Parameters<typeof exactTransfer>[2]) => SlipTransfer } {
  const s = scene();
  s.h.withdrawal(s.payer, 100_000n);
  const id = openDeposit(s, 50_000n);
  return Object.assign({ ...s.h.world.deposits.get(id)! }, { transfer: (over: Parameters<typeof exactTransfer>[2] = {}) => exactTransfer(s.h, id, over) });
}

const codes = (d: Deposit, t: SlipTransfer, isLate = false, facts = noFacts) => checkTransfer(d, t, facts, isLate).reasons.map((r) => r.code);

test('checkTransfer: an exact transfer passes all six dimensions and names its leg', () => {
  const d = deposit();
  const check = checkTransfer(d, d.transfer(), noFacts, false);
  assert.equal(check.reasons, []);
  assert.is(check.leg?.legRef, d.legs[0]!.legRef);
  assert.equal(check.verification, { amountExact: true, withinTimeWindow: true, senderBankMatch: true, senderAccountMatch: true, senderNameMatch: true, receiverMatch: true });
});

test('checkTransfer: AMOUNT_MISMATCH appears only with another reason, ordered last', () => {
  const d = deposit();
  const short = checkTransfer(d, d.transfer({ amountMinor: 40_000n }), noFacts, false);
  assert.equal([short.reasons, short.verification.amountExact], [[], false], 'short-pay alone: no reason, the amount flag tells');
  assert.equal(codes(d, d.transfer({ amountMinor: 60_000n, senderName: 'สมศรี มีสุข' })), ['SENDER_NAME_MISMATCH', 'AMOUNT_MISMATCH']);
  assert.equal(
    codes(d, d.transfer({ amountMinor: 60_000n, senderName: 'สมศรี มีสุข' }), false, { duplicateOfDepositId: 'dep_other', senderBankDisabled: true }),
    ['DUPLICATE_SLIP', 'SENDER_NAME_MISMATCH', 'BANK_DISABLED', 'AMOUNT_MISMATCH'],
  );
});

test('checkTransfer: masked sender details match on visible parts; too little visible is AMBIGUOUS_MATCH; none is SENDER_ACCOUNT_UNAVAILABLE', () => {
  const d = deposit();
  const masked = checkTransfer(d, d.transfer({ senderAccount: 'xxx-x-x4321-x', senderName: 'สมชาย ใ***' }), noFacts, false);
  assert.equal([masked.reasons, masked.verification.senderAccountMatch, masked.verification.senderNameMatch], [[], true, true]);
  assert.equal(codes(d, d.transfer({ senderAccount: 'xxx-x-xx321-x' })), ['AMBIGUOUS_MATCH']);
  assert.equal(codes(d, d.transfer({ senderAccount: 'xxx-x-xx321-x', senderName: 'สม***' })), ['AMBIGUOUS_MATCH'], 'one reason however many unsure parts');
  assert.equal(codes(d, d.transfer({ senderAccount: '  ' })), ['SENDER_ACCOUNT_UNAVAILABLE']);
  assert.equal(codes(d, d.transfer({ senderAccount: '1111111111', senderBank: '002' })), ['SENDER_ACCOUNT_MISMATCH', 'SENDER_BANK_MISMATCH']);
});

test('checkTransfer: receiver — another account is RECEIVER_MISMATCH; two candidate legs or a blurred number are AMBIGUOUS_MATCH', () => {
  const d = deposit();
  const t = d.transfer();
  assert.equal(codes(d, { ...t, receiver: { ...t.receiver, accountNumber: '5555555555' } }), ['RECEIVER_MISMATCH']);
  assert.equal(codes(d, { ...t, receiver: { ...t.receiver, bankCode: '002' } }), ['RECEIVER_MISMATCH']);
  assert.equal(codes(d, { ...t, receiver: { ...t.receiver, accountNumber: 'xxxxxxx890' } }), ['AMBIGUOUS_MATCH']);
  const twoLegs = { ...d, legs: [d.legs[0]!, { ...d.legs[0]!, legRef: 'leg_twin', sequence: 2 }] };
  const check = checkTransfer(twoLegs, t, noFacts, false);
  assert.equal([check.reasons.map((r) => r.code), check.verification.receiverMatch], [['AMBIGUOUS_MATCH'], false]);
});

test('checkTransfer: a second transfer to a leg already paid is AMBIGUOUS_MATCH for support, the receiver matched and the amount the leg\'s, not the order\'s', () => {
  const d = deposit();
  const t = d.transfer({ amountMinor: 30_000n });
  const other = { ...d.legs[0]!, legRef: 'leg_other', sequence: 2, receiver: { ...d.legs[0]!.receiver, accountNumber: '7777777777' } };
  const paid = { ...d, legs: [{ ...d.legs[0]!, amountMinor: 30_000n, legStatus: 'complete' as const, verifiedAmountMinor: 30_000n }, other] };
  const check = checkTransfer(paid, t, noFacts, false);
  assert.equal(check.reasons.map((r) => r.code), ['AMBIGUOUS_MATCH'], 'not RECEIVER_MISMATCH, nor AMOUNT_MISMATCH against the order\'s total');
  assert.equal([check.leg, check.verification.receiverMatch, check.verification.amountExact], [undefined, true, true]);
  // Another account than any leg's is still the wrong destination.
  assert.equal(codes(paid, { ...t, receiver: { ...t.receiver, accountNumber: '5555555555' } }), ['RECEIVER_MISMATCH', 'AMOUNT_MISMATCH']);
});

test('checkTransfer: the time window runs from 10 min before creation to 5 min after the leg expires; a late slip says LATE_SLIP', () => {
  const d = deposit();
  const minute = 60_000;
  const earliest = d.createdAt - 10 * minute;
  const latest = d.legs[0]!.expiresAt + 5 * minute;
  assert.equal(codes(d, d.transfer({ occurredAt: earliest })), []);
  assert.equal(codes(d, d.transfer({ occurredAt: latest })), []);
  assert.equal(codes(d, d.transfer({ occurredAt: earliest - 1 })), ['TIME_WINDOW']);
  assert.equal(codes(d, d.transfer({ occurredAt: latest + 1 })), ['TIME_WINDOW']);
  assert.equal(codes(d, d.transfer({ occurredAt: latest + 1 }), true), ['LATE_SLIP']);
  assert.equal(codes(d, d.transfer({ occurredAt: latest }), true), [], 'a late slip for a transfer in time is clean');
});

test.run();
