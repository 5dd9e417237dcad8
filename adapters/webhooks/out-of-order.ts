// POST /v1/test/webhooks/replay-out-of-order: the contract's three out-of-order cases,
// delivered to the merchant's sandbox endpoints in the wrong order so a merchant can see
// its version guard at work. Each case builds the events of a synthetic sandbox test
// order (livemode false, ids of their own, consistent versions and previous_attributes,
// sequences from the merchant's sandbox counter in the order the events happened) and
// releases them outOfOrderSpacingMs apart in the stated wrong order:
//   A  deposit.settled (v5), then the older deposit.expired (v2)   → stays settled
//   B  deposit.reversed (v4), then the older deposit.settled (v3)  → no credit
//   C  withdrawal.filled v6 (remaining 0), then v2, then v4, then   → remaining follows v6;
//      withdrawal.settled v7                                          settled closes it
// No ledger state is touched: these are test events only.

import { actionableBy, reasonTexts } from '../../core/deposit/reasons.ts';
import { reject } from '../../core/errors.ts';
import { replayTestMetadata } from '../../core/finance/reconcile.ts';
import { balanceTransactionIdOf, iso, type Json } from '../../core/present.ts';
import type { Ids } from '../../core/ports.ts';
import type { DeliveryStore } from './deliveries.ts';
import type { EndpointStore } from './endpoints.ts';
import type { ServiceEvents } from './events.ts';
import { webhookLimits } from '../../core/limits.ts';
import type { Result } from './operations.ts';

export type OutOfOrderCase = 'A' | 'B' | 'C';
export const outOfOrderCases: readonly OutOfOrderCase[] = ['A', 'B', 'C'];

type Obj = { [key: string]: Json };

/** A balance transaction id of the test order, spelt as every sandbox one is (sbxbtxn_l_). */
const testBalanceTransactionId = (ids: Ids) => balanceTransactionIdOf(ids.next('btxn'), false);

interface Step { readonly type: string; readonly object: Obj; readonly deliver: boolean; readonly fill?: Obj }

export interface OutOfOrderRun {
  readonly case: OutOfOrderCase;
  readonly objectId: string;
  readonly expected: string;
  /** In the order they happened (ascending version and sequence). */
  readonly events: { id: string; type: string; version: number; sequence: number }[];
  /** Event ids in the order they are delivered. */
  readonly deliveryOrder: string[];
  readonly deliveries: { endpointId: string; deliveryId: string; eventId: string; releaseAt: number }[];
}

export interface OutOfOrderParts {
  readonly ids: Ids;
  readonly endpoints: EndpointStore;
  readonly deliveries: DeliveryStore;
  readonly events: ServiceEvents;
}

/** Only the changed keys plus the previous version (the contract's previous_attributes). */
function previousAttributes(before: Obj, after: Obj): Obj {
  const changed: Obj = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (key !== 'version' && JSON.stringify(before[key]) !== JSON.stringify(after[key])) changed[key] = before[key] ?? null;
  }
  changed.version = before.version ?? null;
  return changed;
}

function depositSteps(c: 'A' | 'B', id: string, now: number, ids: Ids): Step[] {
  const created = iso(now - 3_600_000);
  const base: Obj = {
    id, object: 'deposit_order', livemode: false, version: 0, status: 'awaiting_payment', is_terminal: false, merchant_reference: `test-out-of-order-${c}-${id.slice(-6)}`,
    amount_minor: 10000, currency: 'THB', created_at: created, expires_at: iso(now - 2_700_000), legs: [],
    sender: { bank_code: '014', account_number_masked: 'xxxxxx3210', account_name_th_masked: 'สมชาย ใ***' },
    metadata: { ...replayTestMetadata, case: c },
  };
  const settled = (version: number): Obj => ({
    ...base, version, status: 'settled', ordered_amount_minor: 10000, transferred_amount_minor: 10000, amount_received_minor: 10000,
    fee_total_minor: 161, credited_amount_minor: 9839, overpayment: null, partial: false, settled_via: 'auto', balance_transaction_id: testBalanceTransactionId(ids),
    settled_at: iso(now - 60_000), clearing_available_at: iso(now - 60_000 + 72 * 3_600_000),
    fee_breakdown: [{ component: 'processing_fee', amount_minor: 150, rate_bps: 150 }, { component: 'vat', amount_minor: 11, rate_bps: 700 }],
  });
  if (c === 'A') {
    // As production: the late-slip window is 24 h from expires_at, and a late slip is held
    // for review (LATE_SLIP) before a reviewer settles it (settled_via 'review').
    const expired: Obj = { ...base, version: 2, status: 'expired', expired_reason: 'no_payment', late_slip_accepted_until: iso(now - 2_700_000 + 24 * 3_600_000) };
    const slip = { received_at: iso(now - 300_000), is_late: true };
    const lateSlip: Obj = { ...base, version: 3, status: 'slip_processing', slip };
    const review: Obj = {
      ...base, version: 4, status: 'under_review', slip,
      review: { opened_at: iso(now - 240_000), escalated: false, four_eyes_required: false, estimated_resolution_bucket: 'under_15m',
        reasons: [{ code: 'LATE_SLIP', display_th: reasonTexts.LATE_SLIP.th, display_en: reasonTexts.LATE_SLIP.en, actionable_by: actionableBy('LATE_SLIP') }] },
    };
    return [
      { type: 'deposit.created', object: base, deliver: false },
      { type: 'deposit.matched', object: { ...base, version: 1 }, deliver: false },
      { type: 'deposit.expired', object: expired, deliver: true },
      { type: 'deposit.slip_received', object: lateSlip, deliver: false },
      { type: 'deposit.under_review', object: review, deliver: false },
      { type: 'deposit.settled', object: { ...settled(5), settled_via: 'review', slip }, deliver: true },
    ];
  }
  const s = settled(3);
  return [
    { type: 'deposit.created', object: base, deliver: false },
    { type: 'deposit.matched', object: { ...base, version: 1 }, deliver: false },
    { type: 'deposit.slip_received', object: { ...base, version: 2, status: 'slip_processing', slip: { received_at: iso(now - 120_000), is_late: false } }, deliver: false },
    { type: 'deposit.settled', object: s, deliver: true },
    // A reversed order is final: is_terminal true, as production sends it.
    { type: 'deposit.reversed', object: { ...s, version: 4, status: 'reversed', is_terminal: true, reversal: { reason_code: 'BANK_RECALL', reverses_balance_transaction_id: s.balance_transaction_id!, balance_transaction_id: testBalanceTransactionId(ids) } }, deliver: true },
  ];
}

/**
 * Case C in the shape production sends (core/outbox.ts): created at version 0; each payer
 * matched (withdrawal.matched) before its fill lands (withdrawal.filled); the fill that
 * completes the order leaves it partially_filled with remaining_minor 0 and the next
 * version, withdrawal.settled, closes it — each event's object is the order as that event
 * left it. The three fills are delivered last first; the settlement after them.
 */
function withdrawalSteps(id: string, now: number, ids: Ids): Step[] {
  const total = 90000, fee = 1070, chunk = 30000;
  // The keys, in their order, of a production withdrawal_order (core/present.ts presentWithdrawal).
  const base: Obj = {
    id, object: 'withdrawal_order', livemode: false, version: 0, status: 'open', merchant_reference: `test-out-of-order-C-${id.slice(-6)}`, end_user_ref: 'test-payee',
    beneficiary_id: ids.next('ben'), currency: 'THB', amount_total_minor: total, fee_total_minor: fee, total_locked_minor: total + fee,
    fee_recognized_minor: 0, filled_minor: 0, remaining_minor: total, reserved_minor: 0, refunded_minor: 0, settled_splits: 0, max_splits: 10,
    created_at: iso(now - 3_600_000), expires_at: iso(now + 6 * 24 * 3_600_000), requires_approval: false, reserved_balance_transaction_id: testBalanceTransactionId(ids),
    fee_breakdown: [{ component: 'fixed_fee', amount_minor: 1000 }, { component: 'vat', amount_minor: 70, rate_bps: 700 }], fills: [], metadata: { ...replayTestMetadata, case: 'C' },
  };
  const fills: Json[] = [];
  const steps: Step[] = [{ type: 'withdrawal.created', object: base, deliver: false }];
  let last = base;
  for (let n = 1; n <= 3; n++) {
    const settledAt = now - (4 - n) * 60_000;
    last = { ...last, version: (last.version as number) + 1 };
    steps.push({ type: 'withdrawal.matched', deliver: false, object: last });
    fills.push({ leg_ref: `leg_test_${n}`, sequence: n, amount_minor: chunk, fee_recognized_minor: Math.round((fee * n) / 3) - Math.round((fee * (n - 1)) / 3),
      settled_at: iso(settledAt), balance_transaction_id: testBalanceTransactionId(ids), auto_confirm_at: iso(settledAt + 3 * 3_600_000) });
    last = {
      ...last, version: (last.version as number) + 1, status: 'partially_filled', filled_minor: chunk * n, remaining_minor: total - chunk * n,
      fee_recognized_minor: Math.round((fee * n) / 3), settled_splits: n, fills: [...fills],
    };
    steps.push({ type: 'withdrawal.filled', deliver: true, object: last, fill: fills[n - 1] as Obj });
  }
  steps.push({ type: 'withdrawal.settled', deliver: true, object: { ...last, version: (last.version as number) + 1, status: 'settled' } });
  return steps;
}

const expectations: Record<OutOfOrderCase, string> = {
  A: 'the older deposit.expired (version 2) arrives after deposit.settled (version 5): the order stays settled',
  B: 'the older deposit.settled (version 3) arrives after deposit.reversed (version 4): no credit',
  C: 'withdrawal.filled arrives as version 6, 2, 4, then withdrawal.settled (7): remaining_minor follows the highest version (0), and the order closes at settled',
};

/** Writes the case's events and schedules their deliveries (inside the caller's transaction). */
export function runOutOfOrderCase(p: OutOfOrderParts, merchant: { merchantId: string; whiteLabelId: string }, c: OutOfOrderCase, now: number): Result<OutOfOrderRun> {
  const endpoints = p.endpoints.forMerchant(merchant.merchantId, false).filter((e) => e.status === 'enabled');
  if (endpoints.length === 0) return { ok: false, rejection: reject('operation_not_allowed', 'The merchant has no enabled sandbox webhook endpoint to deliver to.') };
  const ids: Ids = { next: (prefix) => p.ids.next(prefix, merchant.merchantId) };
  const objectId = ids.next(c === 'C' ? 'wdr' : 'dep');
  const steps = c === 'C' ? withdrawalSteps(objectId, now, ids) : depositSteps(c, objectId, now, ids);
  const written = steps.map((step, i) => {
    const previous = i === 0 ? null : previousAttributes(steps[i - 1]!.object, step.object);
    const e = p.events.emit({ merchantId: merchant.merchantId, whiteLabelId: merchant.whiteLabelId, livemode: false, type: step.type,
      createdAt: now - (steps.length - i) * 1000, object: step.object, previousAttributes: previous, ...(step.fill ? { fill: step.fill } : {}) });
    return { ...e, version: step.object.version as number, deliver: step.deliver };
  });
  const delivered = written.filter((w) => w.deliver);
  // The wrong order: newest first, then the older ones (C: the last chunk, then the first two, then the settlement).
  const order = c === 'C' ? [delivered[2]!, delivered[0]!, delivered[1]!, delivered[3]!] : [...delivered].reverse();
  const deliveries: OutOfOrderRun['deliveries'] = [];
  order.forEach((e, i) => {
    const releaseAt = now + i * webhookLimits.outOfOrderSpacingMs;
    for (const endpoint of endpoints) {
      if (endpoint.eventTypes !== null && !endpoint.eventTypes.includes(e.type)) continue;
      const deliveryId = p.deliveries.insert({ endpointId: endpoint.id, event: { id: e.id, type: e.type, createdAt: e.createdAt, table: 'service' }, dueAt: releaseAt }, now)!;
      deliveries.push({ endpointId: endpoint.id, deliveryId, eventId: e.id, releaseAt });
    }
  });
  return { ok: true, value: {
    case: c, objectId, expected: expectations[c],
    events: written.map((w) => ({ id: w.id, type: w.type, version: w.version, sequence: w.sequence })),
    deliveryOrder: order.map((e) => e.id), deliveries,
  } };
}
