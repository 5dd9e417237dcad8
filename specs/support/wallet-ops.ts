// The wallet operations the projection properties share (history.prop, finance.prop): a
// funding or debit adjustment, a withdrawal, and the cancel of an open one, as core
// commands through the store. A refusal is a fine outcome: the properties judge the ledger
// and its read models, not whether each random step was allowed.

import { randomUUID } from 'node:crypto';
import type { Command } from '../../core/handler/commands.ts';
import type { Outcome } from '../../core/handler/handle.ts';
import type { World } from '../../core/world.ts';
import { merchantActor } from '../adapters/support.ts';

export type WalletOp =
  | { kind: 'fund' | 'debit'; m: number; live: boolean; amount: number }
  | { kind: 'withdraw'; m: number; live: boolean; amount: number }
  | { kind: 'cancel'; m: number; live: boolean; pick: number };

export interface WalletParty {
  readonly keys: { readonly id: string };
  readonly beneficiary: { readonly live: string; readonly test: string };
}

export interface WalletContext {
  readonly world: World;
  readonly attempt: (c: Command) => Promise<Outcome>;
  readonly operator: { readonly kind: 'operator'; readonly operatorId: string };
  /** The adjustments' reason (finance writes Thai and CSV-hostile text here on purpose). */
  readonly reason: string;
}

export async function runWalletOp(o: WalletOp, ps: readonly WalletParty[], c: WalletContext): Promise<void> {
  const p = ps[o.m]!;
  switch (o.kind) {
    case 'fund':
    case 'debit':
      await c.attempt({ type: 'PostAdjustment', actor: c.operator, merchantId: p.keys.id, livemode: o.live, amountMinor: BigInt(o.amount), direction: o.kind === 'fund' ? 'credit' : 'debit', bucket: 'available', reasonCode: o.kind === 'fund' ? 'FUNDING' : 'MANUAL_ADJUSTMENT', reason: c.reason });
      return;
    case 'withdraw':
      await c.attempt({
        type: 'CreateWithdrawal', actor: merchantActor(p.keys.id, o.live), amountMinor: BigInt(o.amount), merchantReference: `w-${randomUUID()}`, endUserRef: 'payee',
        beneficiaryId: o.live ? p.beneficiary.live : p.beneficiary.test, requiresApproval: false, p2pMinimumApplies: false,
      });
      return;
    case 'cancel': {
      const open = [...c.world.withdrawals.values()].filter((w) => w.merchantId === p.keys.id && w.livemode === o.live && (w.status === 'open' || w.status === 'partially_filled'));
      if (open.length > 0) await c.attempt({ type: 'CancelWithdrawal', actor: merchantActor(p.keys.id, o.live), withdrawalId: open[o.pick % open.length]!.id });
    }
  }
}
