// Helpers for the adapter specs: fresh temp directories, a store on a manual clock, and a
// driver that issues the usual commands through the real store (each awaited until
// durable). Command shapes follow specs/support/core-harness.ts.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from '../../core/handler/commands.ts';
import { settled, type Outcome } from '../../core/handler/handle.ts';
import type { CommitMeta, IdempotencyRecord } from '../../core/ports.ts';
import { limits } from '../../core/limits.ts';
import { ManualClock } from '../../adapters/clock.ts';
import { UlidIds } from '../../adapters/ids.ts';
import { openStore, type Store } from '../../adapters/sqlite/store.ts';
import { defaultSender, merchantActor, operator, system } from '../support/core-harness.ts';

export { defaultSender, merchantActor, operator, system };

export const startMs = Date.UTC(2026, 10, 21, 3, 0, 0);

export function tempDir(tag: string): string {
  return mkdtempSync(join(tmpdir(), `satang-${tag}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export function openTestStore(dir: string, opts: { groupCommit?: boolean; writerThread?: boolean; clock?: ManualClock } = {}): { store: Store; clock: ManualClock } {
  const clock = opts.clock ?? new ManualClock(startMs);
  const store = openStore(dir, { clock, ids: new UlidIds(), groupCommit: opts.groupCommit ?? true, writerThread: opts.writerThread ?? false });
  return { store, clock };
}

/** An idempotency record for `key`, answering with the outcome's object id. */
export function record(key: string, nowMs: number) {
  return (outcome: Outcome): IdempotencyRecord => ({
    scope: 'spec', key, requestHash: `hash-${key}`, requestId: `req_${key}`, status: outcome.ok ? 200 : 409,
    body: JSON.stringify(outcome.ok ? { id: outcome.objectId ?? null } : { error: outcome.rejection.code }),
    createdAt: nowMs, expiresAt: nowMs + limits.idempotencyKeyLifetimeMs,
  });
}

export class Driver {
  private n = 0;
  constructor(readonly store: Store, readonly clock: ManualClock) {}

  async ok(command: Command, meta: CommitMeta = {}): Promise<string> {
    const r = await settled(this.store.submit(command, meta));
    if (!r.ok) throw new Error(`${command.type} refused: ${r.rejection.code} ${r.rejection.message}`);
    return r.objectId ?? '';
  }

  whiteLabel(): Promise<string> {
    return this.ok({ type: 'RegisterWhiteLabel', actor: operator(), name: 'Brand' });
  }

  async merchant(whiteLabelId: string, fundsMinor = 0n): Promise<string> {
    const id = await this.ok({ type: 'RegisterMerchant', actor: operator(), whiteLabelId, name: 'Shop' });
    if (fundsMinor > 0n) await this.fund(id, fundsMinor);
    return id;
  }

  fund(merchantId: string, amountMinor: bigint): Promise<string> {
    return this.ok({ type: 'PostAdjustment', actor: operator(), merchantId, livemode: true, amountMinor, direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'funding' });
  }

  beneficiary(merchantId: string, accountNumber = '1234567890'): Promise<string> {
    return this.ok({ type: 'RegisterBeneficiary', actor: operator(), merchantId, livemode: true, bankCode: '004', accountNumber, accountNameTh: 'สมหญิง รักดี', verified: true });
  }

  async withdrawal(merchantId: string, amountMinor: bigint, accountNumber = `10000${++this.n}`.padEnd(10, '0')): Promise<string> {
    const beneficiaryId = await this.beneficiary(merchantId, accountNumber);
    return this.ok(this.withdrawalCommand(merchantId, amountMinor, beneficiaryId));
  }

  withdrawalCommand(merchantId: string, amountMinor: bigint, beneficiaryId: string): Command {
    return {
      type: 'CreateWithdrawal', actor: merchantActor(merchantId), amountMinor, merchantReference: `wref-${++this.n}`, endUserRef: 'payee',
      beneficiaryId, requiresApproval: false, p2pMinimumApplies: false,
    };
  }

  depositCommand(merchantId: string, amountMinor: bigint, opts: { expiresInSeconds?: number; reference?: string } = {}): Command {
    const n = ++this.n;
    return {
      type: 'CreateDeposit', actor: merchantActor(merchantId), amountMinor, merchantReference: opts.reference ?? `dref-${n}`, endUserRef: `user-${n}`,
      // Each payer its own account: one account's open orders for one amount are duplicates.
      sender: { ...defaultSender, accountNumber: String(9_876_543_210 + n) }, hasClientData: true, ...(opts.expiresInSeconds !== undefined ? { expiresInSeconds: opts.expiresInSeconds } : {}),
    };
  }

  deposit(merchantId: string, amountMinor: bigint, opts: { expiresInSeconds?: number } = {}): Promise<string> {
    return this.ok(this.depositCommand(merchantId, amountMinor, opts));
  }

  /** Uploads a slip for the deposit's first leg and verifies it as an exact transfer. */
  async payFirstLeg(depositId: string): Promise<void> {
    const receiptId = `rcpt_${++this.n}`;
    const transRef = `tr_${depositId}`;
    await this.ok({ type: 'ReceiveSlip', actor: system, depositId, receiptId, hasImage: true, transRef });
    const d = this.store.world.deposits.get(depositId)!;
    const leg = d.legs[0]!;
    await this.ok({
      type: 'RecordSlipVerification', actor: system, depositId, receiptId,
      outcome: {
        kind: 'found', facts: { senderBankDisabled: false },
        transfer: {
          transRef, amountMinor: leg.amountMinor, occurredAt: this.clock.now(),
          sender: { bankCode: d.sender.bankCode, accountNumber: d.sender.accountNumber, name: d.sender.accountNameTh },
          receiver: { bankCode: leg.receiver.bankCode, accountNumber: leg.receiver.accountNumber, name: leg.receiver.accountName },
        },
      },
    });
  }
}

/** Counts rows of a table (for "nothing was written" checks). */
export function rowCounts(store: Store): Record<string, number> {
  const out: Record<string, number> = {};
  for (const table of ['journal', 'postings', 'snapshots', 'outbox', 'outbox_sequences', 'timers', 'idempotency', 'nonces']) {
    out[table] = store.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck(true).get() as number;
  }
  return out;
}
