// Helpers for the finance specs: commands through the real store of a running server, and
// paying one deposit leg with a slip that shows any amount (exact, short or over); a
// payment that goes to review is approved for the amount the slip shows.

import type { Command } from '../../core/handler/commands.ts';
import { settled, type Outcome } from '../../core/handler/handle.ts';
import { system } from './core-harness.ts';
import type { TestServer } from './server-harness.ts';

export const financeOperator = { kind: 'operator' as const, operatorId: 'emp_finance_spec' };

/** Submits a command; a refusal is an outcome like any other. */
export function attempt(s: TestServer, c: Command): Promise<Outcome> {
  return settled(s.running.store.submit(c));
}

/** Submits a command that must be accepted; returns the object id. */
export async function accepted(s: TestServer, c: Command): Promise<string> {
  const r = await attempt(s, c);
  if (!r.ok) throw new Error(`${c.type} refused: ${r.rejection.code} ${r.rejection.message}`);
  return r.objectId ?? '';
}

let receipts = 0;

/** Uploads and verifies a slip for leg `legIndex` of the deposit, transferring `amountMinor`. */
export async function payLeg(s: TestServer, depositId: string, legIndex: number, amountMinor: bigint): Promise<void> {
  const store = s.running.store;
  const receiptId = `rcpt_fin_${++receipts}`;
  const transRef = `tr_${depositId}_${legIndex}`;
  if (!(await attempt(s, { type: 'ReceiveSlip', actor: system, depositId, receiptId, hasImage: true, transRef })).ok) return;
  const d = store.world.deposits.get(depositId)!;
  const leg = d.legs[legIndex]!;
  await attempt(s, {
    type: 'RecordSlipVerification', actor: system, depositId, receiptId,
    outcome: {
      kind: 'found', facts: { senderBankDisabled: false },
      transfer: {
        transRef, amountMinor, occurredAt: s.clock.now(),
        sender: { bankCode: d.sender.bankCode, accountNumber: d.sender.accountNumber, name: d.sender.accountNameTh },
        receiver: { bankCode: leg.receiver.bankCode, accountNumber: leg.receiver.accountNumber, name: leg.receiver.accountName },
      },
    },
  });
  if (store.world.deposits.get(depositId)!.status === 'under_review') {
    await attempt(s, { type: 'ApproveDepositReview', actor: financeOperator, depositId, note: 'verified by phone with the payer bank', transferredAmountMinor: amountMinor });
  }
}
