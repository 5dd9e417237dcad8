// Helpers for the transition tables (specs/core/*-transitions.unit.spec.ts): scenes built
// through the real command handler, shorthands for slips and verification outcomes, what
// one command emitted (journal entry types, merchant event types, ledger rows), and the
// refusal check of the Blnk style: a refused command names its code, appends nothing,
// and leaves every balance, aggregate and stream version byte-identical.

import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import type { Command } from '../../core/handler/commands.ts';
import type { Rejection } from '../../core/errors.ts';
import { encode } from '../../core/journal.ts';
import type { BalanceTransaction } from '../../core/ledger/ledger.ts';
import type { VerificationOutcome } from '../../core/deposit/decide.ts';
import type { SlipTransfer, VerificationFacts } from '../../core/deposit/verification.ts';
import { Harness, merchantActor, operator, system } from './core-harness.ts';

export const noFacts: VerificationFacts = { senderBankDisabled: false };

export interface Scene {
  readonly h: Harness;
  readonly whiteLabel: string;
  /** The merchant whose withdrawals the deposits pay into (funded). */
  readonly payer: string;
  /** The merchant whose end users deposit. */
  readonly depositor: string;
}

export function scene(payerFundsMinor = 20_000_000n): Scene {
  const h = new Harness();
  const whiteLabel = h.whiteLabel();
  const payer = h.merchant(whiteLabel, payerFundsMinor);
  const depositor = h.merchant(whiteLabel);
  return { h, whiteLabel, payer, depositor };
}

/** An open withdrawal paying into its own beneficiary account (so legs can be told apart). */
export function withdrawalTo(s: Scene, amountMinor: bigint, accountNumber: string, requiresApproval = false): string {
  const beneficiaryId = s.h.beneficiary(s.payer, true, accountNumber);
  return s.h.ok({
    type: 'CreateWithdrawal', actor: merchantActor(s.payer), amountMinor, merchantReference: `ref-${accountNumber}`, endUserRef: 'payee',
    beneficiaryId, requiresApproval, p2pMinimumApplies: false,
  });
}

export function openDeposit(s: Scene, amountMinor: bigint, opts: { expiresInSeconds?: number } = {}): string {
  const r = s.h.deposit(s.depositor, amountMinor, opts);
  if (!r.ok) throw new Error(`deposit refused: ${r.rejection.code}`);
  return r.objectId!;
}

export function receiveSlip(h: Harness, depositId: string, receiptId: string, opts: { hasImage?: boolean; transRef?: string } = {}): void {
  h.ok({ type: 'ReceiveSlip', actor: system, depositId, receiptId, hasImage: opts.hasImage ?? true, ...(opts.transRef !== undefined ? { transRef: opts.transRef } : {}) });
}

export function verify(h: Harness, depositId: string, receiptId: string, outcome: VerificationOutcome): void {
  h.ok({ type: 'RecordSlipVerification', actor: system, depositId, receiptId, outcome });
}

export function found(transfer: SlipTransfer, facts: VerificationFacts = noFacts): VerificationOutcome {
  return { kind: 'found', transfer, facts };
}

/** A transfer exactly as leg `index` asks, from the deposit's registered sender. */
export function legTransfer(h: Harness, depositId: string, index: number, transRef: string, amountMinor?: bigint): SlipTransfer {
  const d = h.world.deposits.get(depositId)!;
  const leg = d.legs[index]!;
  return {
    transRef, amountMinor: amountMinor ?? leg.amountMinor, occurredAt: h.clock.ms,
    sender: { bankCode: d.sender.bankCode, accountNumber: d.sender.accountNumber, name: d.sender.accountNameTh },
    receiver: { bankCode: leg.receiver.bankCode, accountNumber: leg.receiver.accountNumber, name: leg.receiver.accountName },
  };
}

export const approveNote = 'Checked against the bank statement.';
export const approve = (depositId: string, operatorId = 'emp_alice', transferredAmountMinor?: bigint): Command => ({
  type: 'ApproveDepositReview', actor: operator(operatorId), depositId, note: approveNote,
  ...(transferredAmountMinor !== undefined ? { transferredAmountMinor } : {}),
});

// ---- what one command emitted ----

export interface Emitted {
  /** Journal entry types of the command's commit, in order. */
  readonly entries: string[];
  /** Entry types on one stream. */
  on(stream: string): string[];
  /** Merchant-facing event types (webhooks) the commit caused. */
  readonly events: string[];
  /** Balance transactions posted, in order. */
  readonly ledger: BalanceTransaction[];
}

/** Runs `act` and reports the last commit it appended (the harness appends one per command). */
export function emitted(h: Harness, act: () => void): Emitted {
  const eventsBefore = h.journal.events.length;
  const commitsBefore = h.journal.commits.length;
  act();
  assert.ok(h.journal.commits.length > commitsBefore, 'the command appended a commit');
  const commit = h.journal.commits[h.journal.commits.length - 1]!;
  return {
    entries: commit.entries.map((e) => e.type),
    on: (stream) => commit.entries.filter((e) => e.stream === stream).map((e) => e.type),
    events: h.journal.events.slice(eventsBefore).map((e) => e.type),
    ledger: commit.entries.flatMap((e) => (e.event.type === 'BalanceTransactionPosted' ? [e.event.transaction] : [])),
  };
}

/** A ledger row in a comparable shape: [type, merchant, from, to, amount]. */
export function row(t: BalanceTransaction): [string, string, string | null, string | null, bigint] {
  return [t.type, t.merchantId, t.bucketFrom, t.bucketTo, t.amountMinor];
}

export function balances(h: Harness, merchantId: string): [bigint, bigint, bigint] {
  const b = h.world.balances(merchantId, true);
  return [b.availableMinor, b.pendingClearingMinor, b.reservedMinor];
}

// ---- refusals ----

/** Everything a refusal must leave untouched, as bytes. */
export function fingerprint(h: Harness): string {
  const w = h.world;
  const sorted = <T>(m: Iterable<[string, T]>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return encode([sorted(w.accounts), sorted(w.deposits), sorted(w.withdrawals), sorted(w.claims), sorted(w.streamVersions()), w.allTimers().sort((a, b) => (a.id < b.id ? -1 : 1))]);
}

/** Asserts the command is refused with `code` and changes nothing; records the code. */
export function refused(h: Harness, command: Command, code: string, seen: Set<string>): Rejection {
  const commits = h.journal.commits.length;
  const events = h.journal.events.length;
  const before = fingerprint(h);
  const r = h.exec(command);
  if (r.ok) throw new Error(`${command.type} was accepted; expected ${code}`);
  assert.is(r.rejection.code, code, `${command.type}: ${r.rejection.message}`);
  assert.is(h.journal.commits.length, commits, 'a refusal appends no commit');
  assert.is(h.journal.events.length, events, 'a refusal emits no event');
  assert.is(fingerprint(h), before, 'a refusal leaves balances and objects byte-identical');
  seen.add(code);
  return r.rejection;
}

/** The refusal codes a source file can return: every reject('code' in it. */
export function refusalCodesIn(...paths: string[]): Set<string> {
  const codes = new Set<string>();
  for (const p of paths) {
    const text = readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');
    for (const m of text.matchAll(/reject\(\s*'([a-z0-9_]+)'/g)) codes.add(m[1]!);
  }
  return codes;
}
