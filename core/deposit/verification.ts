// The six-dimension slip check: compares what the bank says was transferred with the
// order. Pure: the transfer facts and outside facts (duplicate, bank disabled) come in
// as values. Names and numbers on slips are often masked ("xxx-x-x1234-x", "สมชาย ใ***"),
// so each comparison answers match, no_match or indeterminate; an indeterminate answer
// never settles money on its own: it opens review with AMBIGUOUS_MATCH.

import type { Minor } from '../money.ts';
import type { Deposit, Leg, ReviewReason, Verification } from './state.ts';
import { orderReasons } from './reasons.ts';
import { foldThaiName } from '../thai-names.ts';

export interface SlipParty {
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly name: string;
}

export interface SlipTransfer {
  readonly transRef: string;
  readonly amountMinor: Minor;
  readonly occurredAt: number;
  readonly sender: SlipParty;
  readonly receiver: SlipParty;
}

export interface VerificationFacts {
  /** Another deposit already used this transfer (same trans_ref). */
  readonly duplicateOfDepositId?: string;
  readonly senderBankDisabled: boolean;
  /** The bank stamped the transfer outside the order's window (the sandbox's scenario 10200 says so of its late slip). */
  readonly outsideTimeWindow?: boolean;
  /** The destination was allocated to another payment meanwhile (the sandbox's scenario 11000 says so). */
  readonly allocationConflict?: boolean;
}

export type MatchAnswer = 'match' | 'no_match' | 'indeterminate';

const maskChars = /[xX*•●]/;
const visibleCharsMin = 4;
const nameVisiblePrefixMin = 3;
const honorifics = /^(นาย|นางสาว|นาง|น\.ส\.|ด\.ช\.|ด\.ญ\.|mr\.?|mrs\.?|ms\.?|miss)\s*/i;
/** A transfer may be stamped a little before the order (clock skew between banks). */
const timeWindowEarlyMs = 10 * 60_000;
/** ...and shortly after the leg expired (the app confirmed, the bank stamped late). */
const timeWindowLateMs = 5 * 60_000;

/** When a transfer to the order (to `leg`, else to its first expiry) may be stamped: what the time_window check applies and a reviewer is shown. */
export function transferTimeWindow(deposit: Pick<Deposit, 'createdAt' | 'expiresAt'>, leg?: { readonly expiresAt?: number }): { from: number; to: number } {
  return { from: deposit.createdAt - timeWindowEarlyMs, to: (leg?.expiresAt ?? deposit.expiresAt) + timeWindowLateMs };
}

function digitsOrMask(s: string): string {
  return s.replace(/[\s-]/g, '');
}

/** Compares a full account number with one read from a slip, which may be masked. */
export function matchAccountNumber(full: string, seen: string): MatchAnswer {
  const a = digitsOrMask(full), b = digitsOrMask(seen);
  if (b.length === 0) return 'indeterminate';
  if (!maskChars.test(b)) return a === b ? 'match' : 'no_match';
  // Masked numbers keep the account's length on Thai slips; compare visible positions,
  // aligned from the right when lengths differ (some banks drop leading digits).
  const offset = a.length - b.length;
  let visible = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    if (maskChars.test(c)) continue;
    const j = i + offset;
    if (j < 0 || a[j] !== c) return 'no_match';
    visible++;
  }
  return visible >= visibleCharsMin ? 'match' : 'indeterminate';
}

/**
 * What a slip may show of an account at a bank, as keys: the number itself, the four digits
 * before the last (Thai slips' "xxx-x-x1234-x") and the last four ("xxxxxx1234"). Two
 * accounts that share a key cannot be told apart on such a slip, so no two legs of one
 * deposit go to them (matching.ts): the slip of either would match both.
 */
export function slipLookalikeKeys(bankCode: string, accountNumber: string): [string, string, string] {
  const digits = digitsOrMask(accountNumber);
  const n = digits.length;
  return [`${bankCode}:${digits}`, `${bankCode}:${n}:${digits.slice(Math.max(0, n - 5), n - 1)}-`, `${bankCode}:${digits.slice(-4)}`];
}

function normaliseName(s: string): string {
  return foldThaiName(s).trim().replace(honorifics, '').replace(/\s+/g, ' ').toLowerCase();
}

/** Compares a registered name with one read from a slip, which may be cut and masked. */
export function matchName(full: string, seen: string): MatchAnswer {
  const a = normaliseName(full), b = normaliseName(seen);
  if (b.length === 0) return 'indeterminate';
  // Equal names match even when they contain a letter that doubles as a mask ("Max").
  if (a === b) return 'match';
  const maskAt = b.search(maskChars);
  if (maskAt < 0) return a === b ? 'match' : 'no_match';
  const prefix = b.slice(0, maskAt).trimEnd();
  if (!a.startsWith(prefix)) return 'no_match';
  return prefix.length >= nameVisiblePrefixMin ? 'match' : 'indeterminate';
}

const allSixPass: Verification = Object.freeze({
  amountExact: true, withinTimeWindow: true, senderBankMatch: true, senderAccountMatch: true, senderNameMatch: true, receiverMatch: true,
});

export interface LegCheck {
  readonly leg: Leg | undefined;
  /** A leg already verified whose account this transfer surely reached again (`leg` is then undefined). */
  readonly paidAgain?: Leg;
  readonly verification: Verification;
  readonly reasons: ReviewReason[];
}

/** Whether a transfer may have gone to one of the order's accounts, whatever its leg's status. */
export function reachedALeg(deposit: Deposit, transfer: SlipTransfer): boolean {
  return deposit.legs.some((l) => mayHaveReached(l, transfer));
}

/** Whether the transfer may have gone to this leg's account (a masked number that may be it counts). */
export function mayHaveReached(leg: Leg, transfer: SlipTransfer): boolean {
  return leg.receiver.bankCode === transfer.receiver.bankCode && matchAccountNumber(leg.receiver.accountNumber, transfer.receiver.accountNumber) !== 'no_match';
}

/** Finds the leg the transfer went to (by receiver) and checks all six dimensions. */
export function checkTransfer(deposit: Deposit, transfer: SlipTransfer, facts: VerificationFacts, isLate: boolean): LegCheck {
  const reasons: ReviewReason[] = [];
  const candidates = deposit.legs.filter((l) => l.legStatus === 'pending');
  const answers = candidates.map((leg) => ({
    leg,
    answer: leg.receiver.bankCode !== transfer.receiver.bankCode ? 'no_match' as MatchAnswer
      : matchAccountNumber(leg.receiver.accountNumber, transfer.receiver.accountNumber),
  }));
  const matched = answers.filter((a) => a.answer === 'match');
  const unsure = answers.filter((a) => a.answer === 'indeterminate');
  let leg: Leg | undefined;
  // A leg already paid that this transfer reached again: the money went to one of the
  // order's destinations, so neither "not the destination" nor the order's total is true
  // of it; a person decides what the second transfer is (AMBIGUOUS_MATCH, for support).
  let paidAgain: Leg | undefined;
  if (matched.length === 1) leg = matched[0]!.leg;
  else if (matched.length > 1 || unsure.length > 0) {
    reasons.push({ code: 'AMBIGUOUS_MATCH' });
    leg = matched[0]?.leg ?? unsure[0]?.leg;
  } else {
    paidAgain = deposit.legs.find((l) => l.legStatus === 'complete' && l.receiver.bankCode === transfer.receiver.bankCode
      && matchAccountNumber(l.receiver.accountNumber, transfer.receiver.accountNumber) === 'match');
    reasons.push({ code: paidAgain ? 'AMBIGUOUS_MATCH' : 'RECEIVER_MISMATCH' });
  }

  const expected = leg?.amountMinor ?? paidAgain?.amountMinor ?? deposit.amountMinor;
  const window = transferTimeWindow(deposit, leg);
  const amountExact = transfer.amountMinor === expected;
  const withinTimeWindow = facts.outsideTimeWindow !== true && transfer.occurredAt >= window.from && transfer.occurredAt <= window.to;
  const senderBankMatch = transfer.sender.bankCode === deposit.sender.bankCode;
  const account = transfer.sender.accountNumber.trim() === '' ? 'unavailable' : matchAccountNumber(deposit.sender.accountNumber, transfer.sender.accountNumber);
  const name = matchName(deposit.sender.accountNameTh, transfer.sender.name);

  if (!amountExact) reasons.push({ code: 'AMOUNT_MISMATCH', detail: { expected_minor: Number(expected), transferred_minor: Number(transfer.amountMinor) } });
  if (!withinTimeWindow) reasons.push({ code: isLate ? 'LATE_SLIP' : 'TIME_WINDOW' });
  if (!senderBankMatch) reasons.push({ code: 'SENDER_BANK_MISMATCH' });
  if (account === 'unavailable') reasons.push({ code: 'SENDER_ACCOUNT_UNAVAILABLE' });
  else if (account === 'no_match') reasons.push({ code: 'SENDER_ACCOUNT_MISMATCH' });
  else if (account === 'indeterminate') reasons.push({ code: 'AMBIGUOUS_MATCH' });
  if (name === 'no_match') reasons.push({ code: 'SENDER_NAME_MISMATCH' });
  else if (name === 'indeterminate') reasons.push({ code: 'AMBIGUOUS_MATCH' });
  if (facts.duplicateOfDepositId !== undefined) reasons.push({ code: 'DUPLICATE_SLIP' });
  if (facts.senderBankDisabled) reasons.push({ code: 'BANK_DISABLED' });
  if (facts.allocationConflict) reasons.push({ code: 'ALLOCATION_CONFLICT' });

  const senderAccountMatch = account === 'match', senderNameMatch = name === 'match', receiverMatch = matched.length === 1 || paidAgain !== undefined;
  const allPass = amountExact && withinTimeWindow && senderBankMatch && senderAccountMatch && senderNameMatch && receiverMatch;
  return {
    leg,
    ...(paidAgain ? { paidAgain } : {}),
    // The common answer is one shared value: every settled deposit keeps its verification.
    verification: allPass ? allSixPass : { amountExact, withinTimeWindow, senderBankMatch, senderAccountMatch, senderNameMatch, receiverMatch },
    reasons: orderReasons(reasons),
  };
}
