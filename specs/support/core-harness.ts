// A core harness for specs: the real World and command handler on a manual clock, with
// counter ids and an in-memory journal that keeps every commit. No I/O.

import { CommandHandler, type Outcome } from '../../core/handler/handle.ts';
import type { Command } from '../../core/handler/commands.ts';
import type { Commit, JournalEntry } from '../../core/journal.ts';
import type { Clock, Ids, Journal } from '../../core/ports.ts';
import { World } from '../../core/world.ts';
import type { Sender } from '../../core/deposit/state.ts';
import type { MerchantEvent } from '../../core/outbox.ts';

export class ManualClock implements Clock {
  constructor(public ms = Date.UTC(2026, 10, 21, 3, 0, 0)) {}
  now(): number { return this.ms; }
}

export class CounterIds implements Ids {
  private n = 0;
  next(prefix: string): string { return `${prefix}_${String(++this.n).padStart(8, '0')}`; }
}

export class MemoryJournal implements Journal {
  readonly commits: Commit[] = [];
  readonly events: MerchantEvent[] = [];
  append(commit: Commit, _meta: unknown, events: readonly MerchantEvent[]): void { this.commits.push(commit); this.events.push(...events); }
  get entries(): JournalEntry[] { return this.commits.flatMap((c) => c.entries); }
}

export const operator = (id = 'emp_alice') => ({ kind: 'operator' as const, operatorId: id });
export const system = { kind: 'system' as const };
export const merchantActor = (merchantId: string, livemode = true) => ({ kind: 'merchant' as const, merchantId, livemode });

export class Harness {
  readonly clock = new ManualClock();
  readonly ids = new CounterIds();
  readonly journal = new MemoryJournal();
  readonly world = new World();
  readonly handler = new CommandHandler(this.world, this.journal, this.clock, this.ids);

  exec(command: Command): Outcome {
    return this.handler.execute(command);
  }

  ok(command: Command): string {
    const r = this.exec(command);
    if (!r.ok) throw new Error(`${command.type} refused: ${r.rejection.code} ${r.rejection.message}`);
    return r.objectId ?? '';
  }

  /** Moves the clock forward, firing every timer that falls due, in due order. */
  advance(ms: number): void {
    const target = this.clock.ms + ms;
    for (;;) {
      const next = this.world.nextTimerDueAt();
      if (next === undefined || next > target) break;
      if (next > this.clock.ms) this.clock.ms = next;
      this.handler.fireDueTimers(1);
    }
    this.clock.ms = target;
  }

  whiteLabel(): string {
    return this.ok({ type: 'RegisterWhiteLabel', actor: operator(), name: 'Brand' });
  }

  merchant(whiteLabelId: string, fundsMinor = 0n, livemode = true): string {
    const id = this.ok({ type: 'RegisterMerchant', actor: operator(), whiteLabelId, name: 'Shop' });
    if (fundsMinor > 0n) this.ok({ type: 'PostAdjustment', actor: operator(), merchantId: id, livemode, amountMinor: fundsMinor, direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'funding' });
    return id;
  }

  beneficiary(merchantId: string, livemode = true, accountNumber = '1234567890'): string {
    return this.ok({ type: 'RegisterBeneficiary', actor: operator(), merchantId, livemode, bankCode: '004', accountNumber, accountNameTh: 'สมหญิง รักดี', verified: true });
  }

  /** A withdrawal to `opts.beneficiaryId`, else to a beneficiary registered for it (its own commit and beneficiary.verified event). */
  withdrawal(merchantId: string, amountMinor: bigint, opts: { livemode?: boolean; requiresApproval?: boolean; ref?: string; beneficiaryId?: string } = {}): string {
    const livemode = opts.livemode ?? true;
    return this.ok({
      type: 'CreateWithdrawal', actor: merchantActor(merchantId, livemode), amountMinor, merchantReference: opts.ref ?? this.ids.next('ref'), endUserRef: 'payee-1',
      beneficiaryId: opts.beneficiaryId ?? this.beneficiary(merchantId, livemode), requiresApproval: opts.requiresApproval ?? false, p2pMinimumApplies: false,
    });
  }

  private readonly senders = new Map<string, Sender>();

  /**
   * Each end user sends from an account of their own (one without an end user gets a new
   * one): two open orders for one amount from one account are duplicate_open_deposit
   * whoever the end user, so scenes with many payers give each its own.
   */
  senderOf(endUser: string | undefined): Sender {
    const known = endUser === undefined ? undefined : this.senders.get(endUser);
    if (known) return known;
    const sender = this.senders.size === 0 && endUser === undefined ? defaultSender : { ...defaultSender, accountNumber: String(9_876_543_210 + this.senders.size + 1) };
    this.senders.set(endUser ?? `#${this.senders.size}`, sender);
    return sender;
  }

  deposit(merchantId: string, amountMinor: bigint, opts: { livemode?: boolean; endUser?: string; sender?: Sender; expiresInSeconds?: number } = {}): Outcome {
    return this.exec({
      type: 'CreateDeposit', actor: merchantActor(merchantId, opts.livemode ?? true), amountMinor, merchantReference: this.ids.next('ref'),
      endUserRef: opts.endUser ?? this.ids.next('user'), sender: opts.sender ?? this.senderOf(opts.endUser), hasClientData: true,
      ...(opts.expiresInSeconds !== undefined ? { expiresInSeconds: opts.expiresInSeconds } : {}),
    });
  }
}

export const defaultSender: Sender = { bankCode: '014', accountNumber: '9876543210', accountNameTh: 'สมชาย ใจดี' };

/** A transfer exactly as the deposit's first leg asks, from the deposit's sender. */
export function exactTransfer(h: Harness, depositId: string, overrides: Partial<{ amountMinor: bigint; occurredAt: number; transRef: string; senderName: string; senderAccount: string; senderBank: string }> = {}) {
  const d = h.world.deposits.get(depositId)!;
  const leg = d.legs[0]!;
  return {
    transRef: overrides.transRef ?? `tr_${depositId}`,
    amountMinor: overrides.amountMinor ?? leg.amountMinor,
    occurredAt: overrides.occurredAt ?? h.clock.ms,
    sender: { bankCode: overrides.senderBank ?? d.sender.bankCode, accountNumber: overrides.senderAccount ?? d.sender.accountNumber, name: overrides.senderName ?? d.sender.accountNameTh },
    receiver: { bankCode: leg.receiver.bankCode, accountNumber: leg.receiver.accountNumber, name: leg.receiver.accountName },
  };
}
