// The sandbox scenario engine's rules (contract: "Sandbox scenarios"; DESIGN.md "Sandbox").
// A sandbox deposit whose amount_minor is one of the table's seventeen amounts plays that
// scenario; in live mode these amounts are ordinary amounts. Pure and state-derived: the
// next step of a deposit follows from its scenario and its state alone, so the step is a
// durable timer that the reconciler (handler/timers.ts) sets and moves like any other, a
// restart loses nothing, and `POST /v1/bo/clock/advance` drives it. Other sandbox amounts
// play no scenario: their slips verify as an exact transfer from the order's sender.
//
// Invariants kept: nothing here applies to a live deposit (scenarioOf answers undefined);
// a step names the state it acts on, so a step that fires after the state moved on (a
// merchant uploaded first, a reviewer decided) does nothing.

import { limits } from '../limits.ts';
import type { Minor } from '../money.ts';
import type { Deposit, Leg, Receiver, Slip } from '../deposit/state.ts';
import type { VerificationOutcome } from '../deposit/decide.ts';
import type { SlipTransfer } from '../deposit/verification.ts';

export interface Scenario {
  readonly amountMinor: number;
  /** A short name `satang trigger` also accepts. */
  readonly name: string;
  /** The contract's words for what happens. */
  readonly summary: string;
}

/** The contract's table, in its order. */
export const sandboxScenarios: readonly Scenario[] = [
  { amountMinor: 10_000, name: 'auto_settle', summary: 'matched, automatic slip check, settled in about 5 seconds' },
  { amountMinor: 10_100, name: 'sender_name_mismatch', summary: 'under_review with SENDER_NAME_MISMATCH until approved or rejected' },
  { amountMinor: 10_200, name: 'late_slip', summary: 'expired, automatic late slip at +60 s, under_review LATE_SLIP, then settled' },
  { amountMinor: 10_300, name: 'reversal', summary: 'settled, reversed at +60 s' },
  { amountMinor: 10_400, name: 'fallback_route', summary: 'fallback route with 2 legs (TTL about 4 minutes)' },
  { amountMinor: 10_500, name: 'liquidity_wait', summary: 'awaiting_liquidity for 25 seconds before a destination appears' },
  { amountMinor: 10_600, name: 'bank_disabled', summary: 'under_review with BANK_DISABLED' },
  { amountMinor: 10_700, name: 'split_three', summary: 'counterparty withdrawal split into 3 chunks' },
  { amountMinor: 10_800, name: 'duplicate_transfer', summary: 'duplicate transfer: settled, then deposit.overpaid at +45 s' },
  { amountMinor: 10_900, name: 'canceled_then_paid', summary: 'canceled then transferred: late slip, under_review CANCELED_ORDER_SLIP' },
  { amountMinor: 11_000, name: 'allocation_conflict', summary: 'ALLOCATION_CONFLICT plus withdrawal.disputed on the counterparty' },
  { amountMinor: 11_100, name: 'short_pay', summary: "automatic clean short-pay: settled, A = V < X, partial true, settled_via 'auto'" },
  { amountMinor: 11_200, name: 'late_window_closed', summary: 'late-slip window closed: 410 late_slip_window_closed with claim_url' },
  { amountMinor: 11_300, name: 'pending_clearing', summary: '402 insufficient_balance on withdrawal creation (funds in pending_clearing)' },
  { amountMinor: 11_400, name: 'key_rotation', summary: 'key rotation: webhook.key.rotating then kid switches within 60 s' },
  { amountMinor: 11_500, name: 'idempotency_conflict', summary: 'idempotency conflict: same key, different body' },
  { amountMinor: 11_600, name: 'same_slip_overpayment', summary: 'same-slip overpayment: X=11600, V=12100, one deposit.settled with A=X, E=500 and an open flag, no auto refund' },
];

const byAmount = new Map(sandboxScenarios.map((s) => [BigInt(s.amountMinor), s.amountMinor]));

/** The scenario a sandbox order plays (its amount_minor), or undefined (live, or an ordinary amount). */
export function scenarioOf(o: { readonly livemode: boolean; readonly amountMinor: Minor }): number | undefined {
  return o.livemode ? undefined : byAmount.get(o.amountMinor);
}

/** 11300: a sandbox withdrawal of this amount is refused as if its funds were still clearing. */
export function withdrawalScenarioRefuses(o: { readonly livemode: boolean; readonly amountMinor: Minor }): boolean {
  return scenarioOf(o) === 11_300;
}

export type SandboxStep = 'pay' | 'expire' | 'cancel' | 'late_slip' | 'close_late_window' | 'approve' | 'reverse' | 'duplicate_transfer' | 'match';

/** Scenarios whose end user pays (the scenario's own transfer) shortly after creation. */
const paidAfterCreation = new Set([10_000, 10_100, 10_300, 10_600, 10_800, 11_000, 11_100, 11_600]);

/** The next step a sandbox deposit's scenario takes from its state, and when; undefined when none. */
export function sandboxStepOf(d: Deposit): { readonly step: SandboxStep; readonly dueAt: number } | undefined {
  const scenario = scenarioOf(d);
  if (scenario === undefined) return undefined;
  const step = (s: SandboxStep, dueAt: number) => ({ step: s, dueAt });
  switch (d.status) {
    case 'awaiting_liquidity':
      return scenario === 10_500 && d.liquidity ? step('match', d.liquidity.waitStartedAt + limits.sandboxLiquidityWaitMs) : undefined;
    case 'awaiting_payment': {
      if (d.uploads > 0) return undefined;
      const at = d.createdAt + limits.sandboxAutoStepMs;
      if (paidAfterCreation.has(scenario)) return step('pay', at);
      if (scenario === 10_200 || scenario === 11_200) return step('expire', at);
      return scenario === 10_900 ? step('cancel', at) : undefined;
    }
    case 'expired':
    case 'canceled':
      if (d.isTerminal || d.slip) return undefined;
      if (scenario === 10_200 || scenario === 10_900) return step('late_slip', d.updatedAt + limits.sandboxLateSlipDelayMs);
      return scenario === 11_200 ? step('close_late_window', d.updatedAt) : undefined;
    case 'under_review':
      return scenario === 10_200 && d.review?.reasons.some((r) => r.code === 'LATE_SLIP') ? step('approve', d.review.openedAt + limits.sandboxAutoStepMs) : undefined;
    case 'settled':
      if (scenario === 10_300 && !d.reversal) return step('reverse', d.settlement!.settledAt + limits.sandboxReversalDelayMs);
      if (scenario === 10_800 && !d.overpayment && !d.additionalSlip) return step('duplicate_transfer', d.settlement!.settledAt + limits.sandboxDuplicateTransferDelayMs);
      return undefined;
    default:
      return undefined;
  }
}

/** The simulated counterparty's receiving accounts, one per leg, so a transfer names its leg. */
function simulatedReceiver(sequence: number): Receiver {
  return { bankCode: '004', accountNumber: `99900000${String(sequence).padStart(2, '0')}`, accountName: 'บริษัท แซนด์บ็อกซ์ จำกัด' };
}

/** How a sandbox order with no own withdrawal to pay is shaped: legs and their lifetime. */
export function simulatedShape(d: { readonly livemode: boolean; readonly amountMinor: Minor }, expiresAt: number, at: number): { legs: number; expiresAt: number; source: 'internal' | 'external_gateway' } {
  const scenario = scenarioOf(d);
  if (scenario === 10_400) return { legs: 2, expiresAt: Math.min(expiresAt, at + limits.sandboxFallbackRouteTtlMs), source: 'external_gateway' };
  return { legs: scenario === 10_700 ? 3 : 1, expiresAt, source: 'internal' };
}

/** Legs to the simulated counterparty: the amount in `count` chunks, the last taking the rest. */
export function simulatedLegs(amountMinor: Minor, count: number, expiresAt: number, nextLegRef: () => string): Leg[] {
  const chunk = amountMinor / BigInt(count);
  return Array.from({ length: count }, (_, i): Leg => ({
    legRef: nextLegRef(), sequence: i + 1, amountMinor: i === count - 1 ? amountMinor - chunk * BigInt(count - 1) : chunk, expiresAt,
    legStatus: 'pending', method: 'promptpay_qr', receiver: simulatedReceiver(i + 1), counterparty: { kind: 'simulated' }, held: false,
  }));
}

/**
 * What the sandbox bank says of a slip: an exact transfer from the order's sender to the
 * first leg still pending, as the slip's scenario shapes it (a mismatched name, a disabled
 * bank, a short or an excess amount, a stamp outside the order's window).
 */
export function sandboxVerification(d: Deposit, slip: Slip, transRef: string): VerificationOutcome {
  const leg = d.legs.find((l) => l.legStatus === 'pending') ?? d.legs[0];
  const scenario = scenarioOf(d);
  let amountMinor = leg?.amountMinor ?? d.amountMinor;
  if (scenario === 11_100) amountMinor = d.amountMinor - limits.sandboxShortPayMinor;
  if (scenario === 11_600) amountMinor = d.amountMinor + limits.sandboxOverpayMinor;
  if (d.status === 'settled') amountMinor = d.amountMinor; // 10800's second transfer repeats the first
  const receiver = leg?.receiver ?? simulatedReceiver(1);
  const transfer: SlipTransfer = {
    transRef, amountMinor, occurredAt: slip.receivedAt,
    sender: { bankCode: d.sender.bankCode, accountNumber: d.sender.accountNumber, name: scenario === 10_100 ? 'บุคคล อื่น' : d.sender.accountNameTh },
    receiver: { bankCode: receiver.bankCode, accountNumber: receiver.accountNumber, name: receiver.accountName },
  };
  return {
    kind: 'found', transfer,
    facts: {
      senderBankDisabled: scenario === 10_600,
      ...(scenario === 10_200 && slip.isLate ? { outsideTimeWindow: true } : {}),
      ...(scenario === 11_000 ? { allocationConflict: true } : {}),
    },
  };
}

/** The sandbox bank's reference for the transfer a slip shows (one per receipt). */
export function sandboxTransRef(receiptId: string): string {
  return `SBX${receiptId.replace(/^rcpt_/, '').toUpperCase()}`;
}
