// The double-entry ledger. Every balance transaction is a set of postings that sums to
// zero across accounts: the three buckets of a merchant in one mode, or a system account
// of that mode (fee revenue, P2P transit, gateway settlement, reversals, suspense,
// adjustments). A merchant's bucket balance is the sum of its postings, nothing else.
// The merchant-facing balance_transaction (contract) is one row per transaction; it is
// derived from the postings that touch that merchant's buckets.
//
// Sign convention: a posting's amount is what it adds to the account's balance. For a
// merchant bucket, + is money in the bucket; system accounts carry the opposite sides.
//
// Range invariant: after every balance transaction each merchant bucket (available,
// pending_clearing, reserved; per merchant and mode) is at least 0 and at most the safe
// integer maximum (balances are presented as JSON numbers). Deciders refuse before either
// could happen; the places that apply postings (Tx.post, World.applyEntry) assert it.

import { assert, violated } from '../assert.ts';
import { safeIntegerMax, type Minor } from '../money.ts';

export type Bucket = 'available' | 'pending_clearing' | 'reserved';
export const buckets: readonly Bucket[] = ['available', 'pending_clearing', 'reserved'];

export type SystemAccount =
  | 'fee_revenue'       // fees earned by the service, net of VAT
  | 'vat_payable'       // output VAT charged on those fees, owed to the Revenue Department
  | 'p2p_transit'       // a deposit leg paid straight to a withdrawing party: nets to zero per settlement
  | 'gateway_settlement'// money received through the external gateway route
  | 'reversals'         // money taken back (bank recall, reversed fills)
  | 'suspense'          // settled money that no withdrawal could take (late slips into closed orders)
  | 'adjustments';      // operator funding and corrections

export type AccountRef =
  | { readonly kind: 'merchant'; readonly merchantId: string; readonly livemode: boolean; readonly bucket: Bucket }
  | { readonly kind: 'system'; readonly livemode: boolean; readonly account: SystemAccount };

export interface Posting {
  readonly account: AccountRef;
  readonly amountMinor: Minor;
}

/** The contract's balance_transaction.type values (an open enum: readers keep a default branch). */
export const balanceTransactionTypes = [
  'deposit_settled', 'clearing_released', 'withdrawal_reserved', 'withdrawal_settled',
  'withdrawal_released', 'fee', 'reversal', 'adjustment',
] as const;
export type BalanceTransactionType = (typeof balanceTransactionTypes)[number];

/** What a movement and the balance transaction built from it have in common. */
interface TransactionFields {
  readonly id: string;
  readonly type: BalanceTransactionType;
  readonly merchantId: string;
  readonly whiteLabelId: string;
  readonly livemode: boolean;
  readonly amountMinor: Minor;
  readonly source: { readonly type: string; readonly id: string };
  readonly createdAt: number;
  readonly availableAt?: number;
  readonly reversesBalanceTransactionId?: string;
  readonly clearedFromBalanceTransactionId?: string;
  readonly reasonCode?: string;
  /** An operator's own words on an adjustment: on the journal and in the back office, never shown to the merchant. */
  readonly note?: string;
}

export interface BalanceTransaction extends TransactionFields {
  readonly direction: 'credit' | 'debit';
  readonly bucketFrom: Bucket | null;
  readonly bucketTo: Bucket | null;
  readonly postings: readonly Posting[];
}

export interface Balances {
  readonly availableMinor: Minor;
  readonly pendingClearingMinor: Minor;
  readonly reservedMinor: Minor;
}

export const zeroBalances: Balances = { availableMinor: 0n, pendingClearingMinor: 0n, reservedMinor: 0n };

export function accountKey(ref: AccountRef): string {
  if (ref.kind === 'merchant') return merchantAccountKey(ref.merchantId, ref.livemode, ref.bucket);
  const keys = ref.livemode ? systemKeys.live : systemKeys.test;
  return keys[ref.account] ?? (keys[ref.account] = `sys:${ref.livemode ? 'live' : 'test'}:${ref.account}`);
}

/** System account keys, built once (see merchantKeys for why). */
const systemKeys: { live: { [A in SystemAccount]?: string }; test: { [A in SystemAccount]?: string } } = { live: {}, test: {} };

type BucketKeys = { readonly [B in Bucket]: string };

/**
 * Merchant account keys, built once per merchant and mode. Speed: the write path looks
 * up every posting's account by key, and a key built afresh each time is a new string
 * that must be hashed again; the same string object keeps its hash. Bounded by the
 * number of merchants; the keys are values, so sharing them changes nothing.
 */
const merchantKeys = new Map<string, { live?: BucketKeys; test?: BucketKeys }>();

/** accountKey(merchantAccount(merchantId, livemode, bucket)), without building the ref. */
export function merchantAccountKey(merchantId: string, livemode: boolean, bucket: Bucket): string {
  let byMode = merchantKeys.get(merchantId);
  if (!byMode) merchantKeys.set(merchantId, (byMode = {}));
  const mode = livemode ? 'live' : 'test';
  const keys = byMode[mode] ?? (byMode[mode] = {
    available: `${merchantId}:${mode}:available`, pending_clearing: `${merchantId}:${mode}:pending_clearing`, reserved: `${merchantId}:${mode}:reserved`,
  });
  return keys[bucket];
}

export function merchantAccount(merchantId: string, livemode: boolean, bucket: Bucket): AccountRef {
  return { kind: 'merchant', merchantId, livemode, bucket };
}

export function systemAccount(livemode: boolean, account: SystemAccount): AccountRef {
  return { kind: 'system', livemode, account };
}

/**
 * The same refs, shared: postings are immutable values, so every posting to one account
 * may point at one ref object instead of allocating its own (the write path posts several
 * per command). Bounded like merchantKeys.
 */
const merchantRefs = new Map<string, { live?: { [B in Bucket]?: AccountRef }; test?: { [B in Bucket]?: AccountRef } }>();
const systemRefs: { live: { [A in SystemAccount]?: AccountRef }; test: { [A in SystemAccount]?: AccountRef } } = { live: {}, test: {} };

function sharedMerchantAccount(merchantId: string, livemode: boolean, bucket: Bucket): AccountRef {
  let byMode = merchantRefs.get(merchantId);
  if (!byMode) merchantRefs.set(merchantId, (byMode = {}));
  const refs = livemode ? (byMode.live ??= {}) : (byMode.test ??= {});
  return refs[bucket] ?? (refs[bucket] = Object.freeze(merchantAccount(merchantId, livemode, bucket)));
}

function sharedSystemAccount(livemode: boolean, account: SystemAccount): AccountRef {
  const refs = livemode ? systemRefs.live : systemRefs.test;
  return refs[account] ?? (refs[account] = Object.freeze(systemAccount(livemode, account)));
}

const bucketMaxMinor = BigInt(safeIntegerMax);

/** Whether a merchant bucket's balance keeps the range invariant. */
export function bucketInRange(balance: Minor): boolean {
  return balance >= 0n && balance <= bucketMaxMinor;
}

/** The range invariant broken: stops the writer (nothing of the command is applied). */
export function bucketOutOfRange(account: string, balance: Minor, balanceTransactionId: string): never {
  violated(`merchant bucket ${account} would hold ${balance} after balance transaction ${balanceTransactionId}; a bucket stays within 0..${safeIntegerMax}`);
}

export function sumPostings(postings: readonly Posting[]): Minor {
  let total = 0n;
  for (const p of postings) total += p.amountMinor;
  return total;
}

/** The change a transaction makes to one merchant's three buckets. */
export function bucketDeltas(txn: BalanceTransaction): Balances {
  let available = 0n, pending = 0n, reserved = 0n;
  for (const p of txn.postings) {
    const a = p.account;
    if (a.kind !== 'merchant' || a.merchantId !== txn.merchantId || a.livemode !== txn.livemode) continue;
    if (a.bucket === 'available') available += p.amountMinor;
    else if (a.bucket === 'pending_clearing') pending += p.amountMinor;
    else reserved += p.amountMinor;
  }
  return { availableMinor: available, pendingClearingMinor: pending, reservedMinor: reserved };
}

export function addBalances(a: Balances, b: Balances): Balances {
  return {
    availableMinor: a.availableMinor + b.availableMinor,
    pendingClearingMinor: a.pendingClearingMinor + b.pendingClearingMinor,
    reservedMinor: a.reservedMinor + b.reservedMinor,
  };
}

export interface Movement extends TransactionFields {
  /** The merchant bucket the amount leaves, or null when it comes from outside. */
  readonly from: Bucket | null;
  /** The merchant bucket the amount enters, or null when it leaves the merchant. */
  readonly to: Bucket | null;
  /** The system accounts on the other side, with their shares (they sum to amountMinor). */
  readonly counter: readonly { readonly account: SystemAccount; readonly amountMinor: Minor }[];
}

/** Whose money a movement moves, shared by the transactions one event posts. */
export type MovementOwner = Pick<Movement, 'merchantId' | 'whiteLabelId' | 'livemode' | 'source' | 'reasonCode'>;
/** What one movement moves; a reasonCode here overrides the owner's. */
export type MovementFields = Omit<Movement, 'id' | 'createdAt' | keyof MovementOwner> & { readonly reasonCode?: string };

/**
 * Builds a balanced transaction from a movement of money into, out of, or between a
 * merchant's buckets. Direction follows the merchant's total: a move between two of its
 * buckets is a debit when it leaves available (a reserve) and a credit when it enters it.
 */
export function buildTransaction(m: Movement): BalanceTransaction {
  return buildOwnedTransaction(m, m, m.id, m.createdAt);
}

/**
 * buildTransaction for a movement given in two parts, owner and fields. Speed: the write
 * path posts several transactions per event for one owner, and this saves merging the
 * two into a new object for each.
 */
export function buildOwnedTransaction(owner: MovementOwner, m: MovementFields, id: string, createdAt: number): BalanceTransaction {
  const { merchantId, livemode } = owner;
  const reasonCode = m.reasonCode !== undefined ? m.reasonCode : owner.reasonCode;
  assert(m.amountMinor > 0n, () => `a balance transaction moves a positive amount, got ${m.amountMinor}`);
  assert(m.from !== null || m.to !== null, 'a balance transaction must touch a merchant bucket');
  assert(m.from !== m.to, 'a balance transaction must move between different buckets');
  // Sized up front: a pushed-into [] would reserve room for sixteen postings.
  let size = (m.from ? 1 : 0) + (m.to ? 1 : 0);
  for (const c of m.counter) if (c.amountMinor !== 0n) size++;
  const postings = new Array<Posting>(size);
  let n = 0;
  if (m.from) postings[n++] = { account: sharedMerchantAccount(merchantId, livemode, m.from), amountMinor: -m.amountMinor };
  if (m.to) postings[n++] = { account: sharedMerchantAccount(merchantId, livemode, m.to), amountMinor: m.amountMinor };
  const outside = m.to === null ? m.amountMinor : m.from === null ? -m.amountMinor : 0n;
  let counterTotal = 0n;
  for (const c of m.counter) {
    counterTotal += c.amountMinor;
    if (c.amountMinor !== 0n) postings[n++] = { account: sharedSystemAccount(livemode, c.account), amountMinor: outside >= 0n ? c.amountMinor : -c.amountMinor };
  }
  assert(counterTotal === (outside === 0n ? 0n : m.amountMinor), () => `counter shares ${counterTotal} do not cover ${m.amountMinor}`);
  assert(sumPostings(postings) === 0n, () => `postings of ${id} do not sum to zero`);
  const direction: 'credit' | 'debit' = m.to === null ? 'debit' : m.from === null ? 'credit' : m.from === 'available' ? 'debit' : m.to === 'available' ? 'credit' : 'debit';
  // Every key is present, the optional ones last and undefined when unset: one shape for
  // all transactions, and the stored JSON (which skips undefined) keeps its key order.
  return {
    id, type: m.type, merchantId, whiteLabelId: owner.whiteLabelId, livemode,
    direction, amountMinor: m.amountMinor, bucketFrom: m.from, bucketTo: m.to, source: owner.source,
    createdAt, postings, availableAt: m.availableAt, reversesBalanceTransactionId: m.reversesBalanceTransactionId || undefined,
    clearedFromBalanceTransactionId: m.clearedFromBalanceTransactionId || undefined, reasonCode: reasonCode || undefined, note: m.note || undefined,
  } satisfies { [K in keyof Required<BalanceTransaction>]: BalanceTransaction[K] };
}
