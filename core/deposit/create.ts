// The deposit decider's creation rules: every check a new order must pass, in the
// contract's order of precedence, over the facts the handler gathers (the merchant and its
// amount policy, the saved sender, bank availability, the reference index, the end user's
// open orders). admitDeposit runs before any id is drawn, so a refused create uses none;
// what it admits (the sender, the lifetime) goes on to decide's CreateDeposit with the
// planned legs.

import { bankByCode, bankDownMessageThDefault, banks, type Merchant, type SavedSender } from '../directory.ts';
import { reject, type Rejection } from '../errors.ts';
import type { Command } from '../handler/commands.ts';
import { limits } from '../limits.ts';
import { checkDepositAmount, type AmountPolicy, type Minor } from '../money.ts';
import type { Deposit, Sender } from './state.ts';

export type CreateDepositRequest = Extract<Command, { type: 'CreateDeposit' }>;

export interface CreateDepositFacts {
  readonly merchant: Merchant | undefined;
  /** The amount policy of the merchant's white label. */
  readonly amounts: AmountPolicy | undefined;
  /** The saved sender named by sender_id, if any. */
  readonly savedSender: SavedSender | undefined;
  /** Banks not accepting new orders, with their Thai message. */
  readonly unavailableBanks: ReadonlyMap<string, string | undefined>;
  readonly referenceUsed: boolean;
  /** The end user's open deposits with this merchant in this mode. */
  readonly openDeposits: readonly Deposit[];
  /** This merchant's deposits in this mode awaiting payment from a sender account for an amount, any end user's. */
  readonly awaitingPaymentFrom: (bankCode: string, accountNumber: string, amountMinor: Minor) => readonly Deposit[];
}

export interface AdmittedDeposit {
  readonly sender: Sender;
  readonly lifetimeSeconds: number;
}

const senderBankRetryAfterSeconds = 300;

export function admitDeposit(c: CreateDepositRequest, facts: CreateDepositFacts): AdmittedDeposit | Rejection {
  const { merchant } = facts;
  if (!merchant) return reject('api_key_invalid', 'Unknown merchant.');
  if (merchant.suspended) return reject('tenant_suspended', 'The merchant account is suspended.');
  const amountProblem = checkDepositAmount(facts.amounts!, c.amountMinor);
  if (amountProblem) return amountProblem;
  const sender = senderOf(c, facts);
  if ('code' in sender) return sender;
  if (!bankByCode(sender.bankCode)?.side.includes('sender')) {
    return reject('validation_error', 'sender.bank_code is not a known sending bank.', { fields: [{ path: 'sender.bank_code', reason: 'unknown_bank' }] });
  }
  if (facts.unavailableBanks.has(sender.bankCode)) {
    const alternatives = banks.filter((b) => b.side.includes('sender') && !facts.unavailableBanks.has(b.bankCode)).map((b) => b.bankCode);
    return reject('sender_bank_unavailable', 'The sender bank is not accepting new orders right now.', {
      alternative_banks: alternatives, public_message_th: facts.unavailableBanks.get(sender.bankCode) ?? bankDownMessageThDefault, retry_after_hint_seconds: senderBankRetryAfterSeconds,
    });
  }
  if (facts.referenceUsed) {
    return reject('validation_error', 'merchant_reference is already used by another deposit.', { fields: [{ path: 'merchant_reference', reason: 'not_unique' }] });
  }
  // The contract's rule is the sender and the amount, whoever the end user: two such orders
  // would make the sender's slip ambiguous between them.
  const duplicates = facts.awaitingPaymentFrom(sender.bankCode, sender.accountNumber, c.amountMinor);
  const open = facts.openDeposits;
  if (duplicates.length > 0) return reject('duplicate_open_deposit', 'An identical deposit is already awaiting payment.', { open_deposit_ids: duplicates.map((d) => d.id) });
  const cap = c.hasClientData ? limits.openDepositsPerEndUserMax : limits.openDepositsPerEndUserWithoutClientMax;
  if (open.length >= cap) {
    const why = c.hasClientData ? '' : ` without client{}; send the end user's client (ip, user_agent, device_fingerprint) for a limit of ${limits.openDepositsPerEndUserMax}`;
    return reject('too_many_open_deposits', `The end user already has ${open.length} open ${open.length === 1 ? 'deposit' : 'deposits'} (limit ${cap}${why}).`, { limit: cap, open_deposit_ids: open.map((d) => d.id) });
  }
  const lifetimeSeconds = Math.min(limits.depositExpiresInSecondsMax, Math.max(limits.depositExpiresInSecondsMin, c.expiresInSeconds ?? limits.depositExpiresInSecondsDefault));
  if (c.minTtlSeconds !== undefined && c.minTtlSeconds > lifetimeSeconds) {
    return reject('validation_error', `min_ttl_seconds ${c.minTtlSeconds} does not fit the order lifetime of ${lifetimeSeconds} s.`, { fields: [{ path: 'min_ttl_seconds', reason: 'exceeds_lifetime', hint: `at most ${lifetimeSeconds}` }] });
  }
  return { sender, lifetimeSeconds };
}

/** The sender given inline, or the saved sender named by sender_id (of this end user, merchant and mode). */
function senderOf(c: CreateDepositRequest, facts: CreateDepositFacts): Sender | Rejection {
  if (c.senderId !== undefined) {
    const saved = facts.savedSender;
    if (!saved || saved.merchantId !== c.actor.merchantId || saved.livemode !== c.actor.livemode || saved.endUserRef !== c.endUserRef) {
      return reject('validation_error', 'sender_id is not a verified sender of this end user.', { fields: [{ path: 'sender_id', reason: 'not_found' }] });
    }
    return { bankCode: saved.bankCode, accountNumber: saved.accountNumber, accountNameTh: saved.accountNameTh };
  }
  return c.sender ?? reject('sender_required', 'Give either sender or sender_id.');
}
