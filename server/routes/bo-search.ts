// Support's search (DESIGN: operator routes, "search"): GET /v1/bo/search?q=&livemode=&merchant_id=&limit=
// finds the orders and claims a merchant or an end user names in a ticket, whatever their
// status — by satang's id (dep_, wdr_, clm_, mch_), by the merchant's own reference, by the
// end user's reference, or by the bank's transaction reference of a slip. Exact matches
// only (references are identifiers, not words), newest first, each row saying what it
// matched on. Ids and transaction references are looked up in the write side's world (an
// archived order is read back by id); references in the order-list projections, through
// expression indexes on their stored state (projections/order-lists.ts), so a reference of
// an order closed years ago is one index probe.

import type Database from 'better-sqlite3';
import type Router from '@koa/router';
import type { Deposit } from '../../core/deposit/state.ts';
import { decode } from '../../core/journal.ts';
import { backOfficeLimits, readSideLimits } from '../../core/limits.ts';
import { iso } from '../../core/present.ts';
import type { Withdrawal } from '../../core/withdrawal/state.ts';
import { ApiError } from '../errors.ts';
import type { Services } from '../ports.ts';
import { booleanParam, limitParam, readQuery, readSideOf } from './read-params.ts';

type MatchedOn = 'id' | 'merchant_reference' | 'end_user_ref' | 'trans_ref';

interface Hit {
  readonly object: 'deposit' | 'withdrawal' | 'claim' | 'merchant';
  readonly id: string;
  readonly merchant_id: string;
  readonly livemode: boolean | null;
  readonly status: string;
  readonly amount_minor: number | null;
  readonly merchant_reference: string | null;
  readonly end_user_ref: string | null;
  readonly created_at: string;
  readonly matched_on: MatchedOn;
}

const depositHit = (d: Deposit, on: MatchedOn): Hit => ({
  object: 'deposit', id: d.id, merchant_id: d.merchantId, livemode: d.livemode, status: d.status, amount_minor: Number(d.amountMinor),
  merchant_reference: d.merchantReference, end_user_ref: d.endUserRef, created_at: iso(d.createdAt), matched_on: on,
});

const withdrawalHit = (w: Withdrawal, on: MatchedOn): Hit => ({
  object: 'withdrawal', id: w.id, merchant_id: w.merchantId, livemode: w.livemode, status: w.status, amount_minor: Number(w.amountTotalMinor),
  merchant_reference: w.merchantReference, end_user_ref: w.endUserRef, created_at: iso(w.createdAt), matched_on: on,
});

/** The longest text searched for: ids and references are at most 64 characters (contract). */
const queryLengthMax = 64;

export function registerSearch(router: Router, services: Services, projections: Database.Database): void {
  const world = () => services.write.world;
  // Prepared at the first search: the read side creates the projections' tables after this router is built.
  let prepared: ReturnType<typeof prepare> | undefined;
  const prepare = () => {
    const byField = (table: 'dl_deposits' | 'wl_withdrawals', field: 'merchantReference' | 'endUserRef' | 'slip.transRef') => projections.prepare<[string, number | null, number | null, string | null, string | null, number], [string]>(
      `SELECT id FROM ${table} WHERE json_extract(state, '$.${field}') = ? AND (? IS NULL OR livemode = ?) AND (? IS NULL OR merchant_id = ?)
       ORDER BY created_at DESC, id DESC LIMIT ?`,
    ).raw(true);
    return {
      lookups: [
        [byField('dl_deposits', 'merchantReference'), 'deposit', 'merchant_reference'], [byField('wl_withdrawals', 'merchantReference'), 'withdrawal', 'merchant_reference'],
        [byField('dl_deposits', 'endUserRef'), 'deposit', 'end_user_ref'], [byField('wl_withdrawals', 'endUserRef'), 'withdrawal', 'end_user_ref'],
        // Every deposit whose slip showed the reference (a duplicate too), beside the one credited for it (below).
        [byField('dl_deposits', 'slip.transRef'), 'deposit', 'trans_ref'],
      ] as const,
      depositState: projections.prepare<[string], string>('SELECT state FROM dl_deposits WHERE id = ?').pluck(true),
      withdrawalState: projections.prepare<[string], string>('SELECT state FROM wl_withdrawals WHERE id = ?').pluck(true),
    };
  };

  router.get('/search', async (ctx) => {
    const q = readQuery(ctx, ['q', 'livemode', 'merchant_id', 'limit']);
    const text = (q.q ?? '').trim();
    // Characters as the references are counted when they are created (code points, not UTF-16 units).
    if (text === '' || [...text].length > queryLengthMax) {
      throw new ApiError('validation_error', `q is what to find: an id (dep_, wdr_, clm_, mch_), a merchant reference, an end user reference or a bank transaction reference, 1 to ${queryLengthMax} characters.`, {
        fields: [{ path: 'query.q', reason: text === '' ? 'required' : 'maximum', hint: 'an id or a reference, exactly as written' }],
      });
    }
    const livemode = booleanParam(q.livemode, 'livemode');
    const merchantId = q.merchant_id;
    const limit = limitParam(q.limit, backOfficeLimits.queuePageSizeDefault, backOfficeLimits.queuePageSizeMax);
    const wanted = (h: { livemode: boolean | null; merchant_id: string }) => (livemode === undefined || h.livemode === null || h.livemode === livemode) && (merchantId === undefined || h.merchant_id === merchantId);
    // Read your writes, briefly, as the lists do; then answer with what the replica has.
    const readSide = readSideOf(services);
    await Promise.all((['deposit_list', 'withdrawal_list'] as const).map((name) => readSide.caughtUp(name, world().lastSeq, readSideLimits.listFreshnessWaitMs)));
    const { lookups, depositState, withdrawalState } = prepared ??= prepare();
    const hits = new Map<string, Hit>();
    const add = (h: Hit | undefined) => { if (h && wanted(h) && !hits.has(h.id)) hits.set(h.id, h); };
    // The freshest state: the write side's world (an archived order is read back by id), else the projection's.
    const fromProjection = <T>(state: string | undefined) => (state === undefined ? undefined : decode<T>(state));
    const deposit = (id: string) => world().deposits.get(id) ?? fromProjection<Deposit>(depositState.get(id));
    const withdrawal = (id: string) => world().withdrawals.get(id) ?? fromProjection<Withdrawal>(withdrawalState.get(id));

    const d = deposit(text);
    if (d) add(depositHit(d, 'id'));
    const w = withdrawal(text);
    if (w) add(withdrawalHit(w, 'id'));
    const c = world().claims.get(text);
    if (c) add({ object: 'claim', id: c.id, merchant_id: c.merchantId, livemode: c.livemode, status: c.status, amount_minor: Number(c.amountMinor), merchant_reference: null, end_user_ref: null, created_at: iso(c.createdAt), matched_on: 'id' });
    const m = world().merchants.get(text);
    if (m) add({ object: 'merchant', id: m.id, merchant_id: m.id, livemode: null, status: m.suspended ? 'suspended' : 'active', amount_minor: null, merchant_reference: null, end_user_ref: null, created_at: iso(m.createdAt), matched_on: 'id' });
    for (const live of [true, false]) {
      const owner = world().transRefOwner(live, text);
      const paid = owner === undefined ? undefined : deposit(owner);
      if (paid) add(depositHit(paid, 'trans_ref'));
    }
    const mode = livemode === undefined ? null : livemode ? 1 : 0;
    for (const [lookup, kind, on] of lookups) {
      for (const [id] of lookup.all(text, mode, mode, merchantId ?? null, merchantId ?? null, limit + 1)) {
        if (kind === 'deposit') { const x = deposit(id); if (x) add(depositHit(x, on)); } else { const x = withdrawal(id); if (x) add(withdrawalHit(x, on)); }
      }
    }
    const data = [...hits.values()].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1));
    ctx.body = { object: 'search_result', q: text, livemode: livemode ?? null, merchant_id: merchantId ?? null, data: data.slice(0, limit), has_more: data.length > limit, as_of: iso(services.write.clock.now()) };
  });
}
