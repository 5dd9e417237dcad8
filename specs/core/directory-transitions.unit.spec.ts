// The directory decider's table (core/directory/decide.ts): white labels, merchants,
// beneficiaries, senders, bank availability, sandbox resets, suspension and adjustments.
// Accepted rows go through the real command handler and assert the journal entries;
// refusal rows assert the contract's code, no journal entry and byte-identical state.
// The last tests check that every refusal code the decider can return appears in a row,
// and that the command handler itself refuses nothing but what it cannot load (every
// other rule is a decider's).

import { readdirSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sandboxRunGenerationMax, sandboxRunGenerationOf } from '../../core/directory.ts';
import { limits } from '../../core/limits.ts';
import { merchantTotalMaxMinor } from '../../core/money.ts';
import { merchantActor, operator } from '../support/core-harness.ts';
import { balances, emitted, refusalCodesIn, refused, scene } from '../support/transitions.ts';

const seen = new Set<string>();

test('white label and gateway route: proposed by one operator, set by a second; a route on an unknown white label → resource_not_found', () => {
  const s = scene();
  const e = emitted(s.h, () => s.h.ok({ type: 'SetGatewayRoute', actor: operator(), whiteLabelId: s.whiteLabel, bankCode: '004', accountNumber: '5550001111', accountName: 'GW', ttlSeconds: 60 }));
  assert.equal(e.entries, ['GatewayRouteProposed']);
  assert.is(s.h.world.whiteLabels.get(s.whiteLabel)!.gatewayRoute, undefined, 'nothing routes to a proposal');
  refused(s.h, { type: 'ApproveGatewayRoute', actor: operator(), whiteLabelId: s.whiteLabel, bankCode: '004', accountNumber: '5550001111' }, 'operation_not_allowed', seen);
  const set = emitted(s.h, () => s.h.ok({ type: 'ApproveGatewayRoute', actor: operator('emp_second'), whiteLabelId: s.whiteLabel, bankCode: '004', accountNumber: '5550001111' }));
  assert.equal(set.entries, ['GatewayRouteSet']);
  const wl = s.h.world.whiteLabels.get(s.whiteLabel)!;
  assert.equal([wl.gatewayRoute?.accountNumber, wl.gatewayRouteProposal], ['5550001111', undefined]);
  refused(s.h, { type: 'SetGatewayRoute', actor: operator(), whiteLabelId: 'wl_missing', bankCode: '004', accountNumber: '5550001111', accountName: 'GW', ttlSeconds: 60 }, 'resource_not_found', seen);
});

test('merchant: registered under a known white label; an unknown one → validation_error', () => {
  const s = scene();
  const e = emitted(s.h, () => s.h.ok({ type: 'RegisterMerchant', actor: operator(), whiteLabelId: s.whiteLabel, name: 'Another' }));
  assert.equal(e.entries, ['MerchantRegistered']);
  const r = refused(s.h, { type: 'RegisterMerchant', actor: operator(), whiteLabelId: 'wl_missing', name: 'Lost' }, 'validation_error', seen);
  assert.equal(r.details, { fields: [{ path: 'white_label_id', reason: 'not_found' }] });
});

test('suspension: a change is one entry, the same value is no entry; an unknown merchant → resource_not_found', () => {
  const s = scene();
  assert.equal(emitted(s.h, () => s.h.ok({ type: 'SetMerchantSuspended', actor: operator(), merchantId: s.depositor, suspended: true })).entries, ['MerchantSuspensionChanged']);
  assert.equal(emitted(s.h, () => s.h.ok({ type: 'SetMerchantSuspended', actor: operator(), merchantId: s.depositor, suspended: true })).entries, []);
  refused(s.h, { type: 'SetMerchantSuspended', actor: operator(), merchantId: 'mch_missing', suspended: true }, 'resource_not_found', seen);
});

test('sandbox reset: a sandbox key starts a new run; a live key → operation_not_allowed', () => {
  const s = scene();
  assert.equal(emitted(s.h, () => s.h.ok({ type: 'ResetSandboxRun', actor: merchantActor(s.depositor, false) })).entries, ['SandboxRunReset']);
  assert.is(s.h.world.merchants.get(s.depositor)!.sandboxRunGeneration, 2);
  const r = refused(s.h, { type: 'ResetSandboxRun', actor: merchantActor(s.depositor, true) }, 'operation_not_allowed', seen);
  assert.match(r.message, /sandbox key/);
  assert.ok(sandboxRunGenerationMax > 2);
});

test("restore's sequence jump: one entry per merchant on its own stream; journaled again for the same restore, none; an unnamed restore → validation_error", () => {
  const s = scene();
  const merchants = [...s.h.world.merchants.keys()];
  const e = emitted(s.h, () => s.h.ok({ type: 'AdvanceSequencesAfterRestore', actor: { kind: 'system' }, restoreId: 'restore-1', backupTakenAt: 0 }));
  assert.equal(e.entries, merchants.map(() => 'SequencesAdvancedAfterRestore'));
  for (const id of merchants) assert.is(s.h.world.merchants.get(id)!.sequencesAdvancedFor, 'restore-1');
  for (const id of merchants) assert.is(sandboxRunGenerationOf(s.h.world.merchants.get(id)!), 1 + limits.runGenerationJumpAfterRestore, 'the sandbox run is past any a lost reset began');
  assert.equal(emitted(s.h, () => s.h.ok({ type: 'AdvanceSequencesAfterRestore', actor: { kind: 'system' }, restoreId: 'restore-1', backupTakenAt: 0 })).entries, [], 'a start cut short journals it once');
  assert.is(emitted(s.h, () => s.h.ok({ type: 'AdvanceSequencesAfterRestore', actor: { kind: 'system' }, restoreId: 'restore-2', backupTakenAt: 0 })).entries.length, merchants.length, 'a later restore jumps again');
  refused(s.h, { type: 'AdvanceSequencesAfterRestore', actor: { kind: 'system' }, restoreId: '', backupTakenAt: 0 }, 'validation_error', seen);
});

test('beneficiary and sender: registered for a known merchant; an unknown merchant or beneficiary → resource_not_found', () => {
  const s = scene();
  let id = '';
  const e = emitted(s.h, () => { id = s.h.ok({ type: 'RegisterBeneficiary', actor: operator(), merchantId: s.payer, livemode: true, bankCode: '004', accountNumber: '1112223334', accountNameTh: 'สมหญิง รักดี', verified: false }); });
  assert.equal(e.entries, ['BeneficiaryRegistered']);
  const ben = s.h.world.beneficiaries.get(id)!;
  assert.is(ben.status, 'pending_verification');
  assert.ok(s.h.world.timer(`${ben.id}:beneficiary.verify`), 'an unverified beneficiary gets its verification timer');
  const verified = emitted(s.h, () => s.h.ok({ type: 'VerifyBeneficiary', actor: operator(), beneficiaryId: ben.id }));
  assert.equal(verified.entries, ['BeneficiaryVerified']);
  assert.equal(verified.events, ['beneficiary.verified']);
  // The object carries the version its previous_attributes count from, as every versioned object does.
  const event = s.h.journal.events.at(-1)!;
  assert.equal([event.object.status, event.object.version, event.previousAttributes], ['verified', s.h.world.beneficiaries.get(id)!.version, { status: 'pending_verification', version: ben.version }]);
  assert.ok((event.object.version as number) > ben.version);
  // Registered verified by an operator (the Live P2P way): the merchant hears of it as of a verification, with the id it pays out to.
  let vouched = '';
  const registeredVerified = emitted(s.h, () => { vouched = s.h.ok({ type: 'RegisterBeneficiary', actor: operator(), merchantId: s.payer, livemode: true, bankCode: '004', accountNumber: '5556667778', accountNameTh: 'สมชาย ใจดี', verified: true }); });
  assert.equal([registeredVerified.entries, registeredVerified.events], [['BeneficiaryRegistered'], ['beneficiary.verified']]);
  const announced = s.h.journal.events.at(-1)!;
  assert.equal([announced.object.id, announced.object.status, announced.previousAttributes], [vouched, 'verified', null]);
  assert.not.ok(s.h.world.timer(`${vouched}:beneficiary.verify`), 'no verification timer for what is verified');
  refused(s.h, { type: 'VerifyBeneficiary', actor: operator(), beneficiaryId: 'ben_missing' }, 'resource_not_found', seen);
  refused(s.h, { type: 'RegisterBeneficiary', actor: operator(), merchantId: 'mch_missing', livemode: true, bankCode: '004', accountNumber: '1', accountNameTh: 'x', verified: true }, 'resource_not_found', seen);
  refused(s.h, { type: 'RegisterSender', actor: operator(), merchantId: 'mch_missing', livemode: true, endUserRef: 'u', bankCode: '014', accountNumber: '1', accountNameTh: 'x' }, 'resource_not_found', seen);
});

test('adjustment: credit and debit of available; zero, another bucket, a debit past available, a credit past the cap → refused, nothing posted', () => {
  const s = scene(0n);
  const adjust = (over: object) => ({ type: 'PostAdjustment' as const, actor: operator(), merchantId: s.depositor, livemode: true, amountMinor: 10_000n, direction: 'credit' as const, bucket: 'available' as const, reasonCode: 'FUNDING', reason: 'r', ...over });
  assert.equal(emitted(s.h, () => s.h.ok(adjust({}))).entries, ['BalanceTransactionPosted']);
  assert.equal(balances(s.h, s.depositor), [10_000n, 0n, 0n]);
  refused(s.h, adjust({ amountMinor: 0n }), 'validation_error', seen);
  refused(s.h, adjust({ bucket: 'reserved' }), 'operation_not_allowed', seen);
  refused(s.h, adjust({ direction: 'debit', reasonCode: 'MANUAL_ADJUSTMENT', amountMinor: 10_001n }), 'insufficient_balance', seen);
  refused(s.h, adjust({ amountMinor: BigInt(merchantTotalMaxMinor) }), 'amount_not_supported', seen);
  refused(s.h, adjust({ merchantId: 'mch_missing' }), 'resource_not_found', seen);
  refused(s.h, adjust({ reasonCode: 'BECAUSE_I_SAID_SO' }), 'validation_error', seen);
  assert.equal(balances(s.h, s.depositor), [10_000n, 0n, 0n]);
});

test('every refusal code the directory decider can return appears in a row of this table', () => {
  // Plus the credit cap the decider asks of money.ts (checkMerchantCredit).
  const expected = [...refusalCodesIn('core/directory/decide.ts'), 'amount_not_supported'];
  assert.ok(expected.length >= 5, `found ${expected.length} codes in the sources`);
  assert.equal(expected.filter((code) => !seen.has(code)).sort(), [], 'codes with no row');
});

test('the command handler refuses nothing but what it cannot load: every other rule is a decider\'s', () => {
  const dir = new URL('../../core/handler/', import.meta.url);
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => `core/handler/${f}`);
  assert.ok(files.includes('core/handler/handle.ts'));
  assert.equal([...refusalCodesIn(...files)].sort(), ['resource_not_found']);
});

test.run();
