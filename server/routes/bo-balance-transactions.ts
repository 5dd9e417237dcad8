// GET /v1/bo/merchants/:id/balance-transactions?livemode=&limit=&cursor= — a merchant's
// balance transactions in one mode, newest first, for the operator console's merchant
// page. Presentation only. Also the two reports read line by line from the journal's
// transactions: GET /v1/bo/reports/statement-lines (a merchant's, from the statement lines
// projection: the ledger's postings the statement sums, in sandbox as in live, every run)
// and GET /v1/bo/reports/account-lines (a system account's).
//
// The page's rows come from the balance history projection (bh_rows: one row per transaction that
// moved money, numbered per merchant and mode; sandbox: the merchant's current run only,
// ids and deltas as the merchant's own history shows them — sbxbtxn_l_ ids, pending
// clearing folded into available). Each row is enriched from the journal entry that posted
// it (BalanceTransactionPosted at the row's journal_seq): type, direction, amount, buckets,
// source. The page's entries are read by seq in one statement (primary-key lookups), never
// a scan of the journal; its approved adjustments' proposers in two more, however many
// (adjustmentProposers).
//
// Read your writes, briefly: the read waits up to listFreshnessWaitMs for the projection
// to reach what the write side had committed when the request came in, then answers what
// the projection has. The cursor is opaque: the last sequence shown, the run it belongs
// to and the filters (the merchant, livemode) it was issued under — another merchant or livemode: 400
// cursor_filter_mismatch; a sandbox run reset since: 409 sandbox_run_changed.
//
// Invariants kept: every row's journal entry exists and posted that very transaction
// (asserted: the projection is derived from the journal, so anything else is corruption).

import type Router from '@koa/router';
import { assert } from '../../core/assert.ts';
import type { DomainEvent } from '../../core/journal.ts';
import { decode } from '../../core/journal.ts';
import type { BalanceTransaction, Balances } from '../../core/ledger/ledger.ts';
import { backOfficeLimits, financeLimits, readSideLimits } from '../../core/limits.ts';
import { balanceTransactionIdOf, iso } from '../../core/present.ts';
import type { Db } from '../../adapters/sqlite/schema.ts';
import { sandboxDeltas, type PostedRow } from '../../projections/balance-history.ts';
import { ApiError } from '../errors.ts';
import type { Services } from '../ports.ts';
import { notFound } from './common.ts';
import { booleanParam, decodeFilterCursor, encodeFilterCursor, enumParam, limitParam, readQuery, readSideOf } from './read-params.ts';
import { formatParam, fresh, merchantParam, periodParam } from './reports.ts';
import { bangkokDayBounds, bangkokDayOf, financeTimeZone } from '../../core/finance/calendar.ts';
import { bahtOf, csvText } from '../../core/finance/money-text.ts';
import { periodLabel, periodText, statementLinesCsvHeader } from '../../core/finance/statement.ts';
import { accountLinesCsv, buildAccountLines, presentAccountLines, systemLineAccounts, type SystemLineDetail } from '../../core/finance/system-lines.ts';
import { exactJson } from '../exact-json.ts';

const n = (minor: bigint) => Number(minor);

interface Cursor { readonly sequence: string; readonly run: number }
const isCursor = (c: Record<string, unknown>): c is Record<string, unknown> & Cursor =>
  typeof c.sequence === 'string' && /^[1-9][0-9]{0,18}$/.test(c.sequence) && Number.isSafeInteger(c.run);

/** The journal entries that posted the page's rows, by seq: one statement of primary-key lookups. */
function postedTransactions(journalDb: Db) {
  const bySeq = journalDb.prepare<[string], { seq: number; data: string }>(
    `SELECT seq, data FROM journal WHERE seq IN (SELECT value FROM json_each(?)) LIMIT ${backOfficeLimits.balanceTransactionPageSizeMax}`);
  return (rows: readonly { readonly journalSeq: number }[]): Map<number, BalanceTransaction> => {
    const out = new Map<number, BalanceTransaction>();
    if (rows.length === 0) return out;
    for (const entry of bySeq.all(JSON.stringify(rows.map((r) => r.journalSeq)))) {
      const event = decode<DomainEvent>(entry.data);
      assert(event.type === 'BalanceTransactionPosted', () => `journal seq ${entry.seq} is ${event.type}, not the BalanceTransactionPosted the balance history names`);
      out.set(entry.seq, event.transaction);
    }
    return out;
  };
}

function presentDeltas(d: Balances) {
  return { available_minor: n(d.availableMinor), pending_clearing_minor: n(d.pendingClearingMinor), reserved_minor: n(d.reservedMinor) };
}

/**
 * A balance transaction as the back office shows it, with what it moved in each bucket
 * (`deltas`, as the caller's view counts them), the journal entry that posted it and, for
 * an adjustment a second operator approved, its proposer (`proposedBy`, adjustmentProposers).
 */
function presentTransaction(t: BalanceTransaction, deltas: Balances, livemode: boolean, journalSeq: number, proposedBy?: string): Record<string, unknown> {
  // Every id that names a line is spelt as the line's own is, so a reversal or a clearing
  // release is matched to the line it refers to in sandbox too.
  const lineId = (id: string) => balanceTransactionIdOf(id, livemode);
  return {
    id: lineId(t.id), object: 'balance_transaction',
    type: t.type, direction: t.direction, amount_minor: n(t.amountMinor), bucket_from: t.bucketFrom, bucket_to: t.bucketTo,
    bucket_deltas: presentDeltas(deltas),
    // An adjustment's source is the adjustment itself, as the merchant's copy names it; the operator who posted it apart.
    source: { type: t.source.type, id: t.source.type === 'adjustment' ? lineId(t.id) : t.source.id },
    ...(t.source.type === 'adjustment' ? { posted_by: t.source.id } : {}),
    ...(proposedBy !== undefined ? { proposed_by: proposedBy } : {}), // four eyes: posted_by approved what proposed_by proposed
    ...(t.reversesBalanceTransactionId ? { reverses_balance_transaction_id: lineId(t.reversesBalanceTransactionId) } : {}),
    ...(t.clearedFromBalanceTransactionId ? { cleared_from_balance_transaction_id: lineId(t.clearedFromBalanceTransactionId) } : {}),
    ...(t.reasonCode ? { reason_code: t.reasonCode } : {}),
    ...(t.note ? { note: t.note } : {}), // the operator's words on an adjustment: the back office's, not the merchant's
    created_at: iso(t.createdAt), journal_seq: journalSeq,
  };
}

/** A row of the merchant's balance history: its sequence, and its deltas as that history shows them (sandbox: pending clearing folded). */
function presentRow(row: PostedRow, t: BalanceTransaction | undefined, livemode: boolean, proposers: Proposers): Record<string, unknown> {
  assert(t !== undefined && t.id === row.id, () => `balance history row ${row.id} (journal seq ${row.journalSeq}) has no matching journal entry`);
  const { id, object, ...rest } = presentTransaction(t, livemode ? row.deltas : sandboxDeltas(row.deltas), livemode, row.journalSeq, proposers.get(t.id));
  return { id, object, sequence: row.sequence.toString(), ...rest };
}

/** The proposer of each approved adjustment, by its balance transaction's id. */
type Proposers = ReadonlyMap<string, string>;
type AdjustmentApproved = Extract<DomainEvent, { type: 'AdjustmentApproved' }>;
type AdjustmentProposed = Extract<DomainEvent, { type: 'AdjustmentProposed' }>;
/** The approval is journaled by the same command as its posting, just before it: within this many entries. */
const approvalEntriesBeforePostingMax = 4;

/**
 * The adjustment proposals named by id, each with the stream that holds it: lookups in the
 * journal's index of proposals (journal_adjustment_proposals), however long the streams.
 */
const proposalsByIdSql = `SELECT stream, data FROM journal WHERE type = 'AdjustmentProposed'
  AND json_extract(data, '$.proposal.id') IN (SELECT value FROM json_each(?))`;

/**
 * The operators who proposed the adjustments a second operator approved and posted (four
 * eyes on a large live credit), among the transactions given by the seq of the entry that
 * posted each: read from the journal, so adjustments posted before this was shown name
 * their proposer too. Two statements for a page of transactions, whatever its adjustments
 * (none without one; a longer report one more per page): the approvals by seq (primary-key
 * lookups of the few entries before each adjustment's posting, where its command journaled
 * the approval naming the balance transaction and the proposal), then the proposals they
 * name, by id (the approval records the proposal's id, not its seq: proposalsByIdSql), each
 * on its merchant's own stream. An adjustment posted on one operator's word and any other
 * transaction have no entry.
 */
function adjustmentProposers(journalDb: Db) {
  const approvalsAt = journalDb.prepare<[string], string>(
    "SELECT data FROM journal WHERE seq IN (SELECT value FROM json_each(?)) AND type = 'AdjustmentApproved'").pluck(true);
  const proposalsNamed = journalDb.prepare<[string], { stream: string; data: string }>(proposalsByIdSql);
  return (transactions: ReadonlyMap<number, BalanceTransaction>): Proposers => {
    const out = new Map<string, string>();
    const adjustments = new Map<string, BalanceTransaction>();
    const seqs: number[] = [];
    for (const [journalSeq, t] of transactions) {
      if (t.source.type !== 'adjustment') continue;
      adjustments.set(t.id, t);
      for (let back = 1; back <= approvalEntriesBeforePostingMax; back++) seqs.push(journalSeq - back);
    }
    if (seqs.length === 0) return out;
    const approvals: AdjustmentApproved[] = [];
    // A page of transactions' candidates per statement, as postedAll reads the transactions.
    const seqsPerRead = backOfficeLimits.balanceTransactionPageSizeMax * approvalEntriesBeforePostingMax;
    for (let i = 0; i < seqs.length; i += seqsPerRead) {
      for (const data of approvalsAt.all(JSON.stringify(seqs.slice(i, i + seqsPerRead)))) {
        const a = decode<AdjustmentApproved>(data);
        if (adjustments.get(a.balanceTransactionId)?.merchantId === a.merchantId) approvals.push(a);
      }
    }
    if (approvals.length === 0) return out;
    const proposals = new Map<string, { stream: string; proposedBy: string }>();
    for (const { stream, data } of proposalsNamed.all(JSON.stringify(approvals.map((a) => a.proposalId)))) {
      const { proposal } = decode<AdjustmentProposed>(data);
      proposals.set(proposal.id, { stream, proposedBy: proposal.proposedBy });
    }
    for (const a of approvals) {
      const p = proposals.get(a.proposalId);
      assert(p?.stream === a.merchantId, () => `adjustment ${a.balanceTransactionId} approves proposal ${a.proposalId}, which the journal does not hold on merchant ${a.merchantId}'s stream`);
      out.set(a.balanceTransactionId, p.proposedBy);
    }
    return out;
  };
}

/** Registers the routes on the back office's read router (operatorAuth already applies). */
export function registerBalanceTransactions(router: Router, services: Services, journalDb: Db): void {
  const posted = postedTransactions(journalDb);
  const proposersOf = adjustmentProposers(journalDb);
  const entriesBefore = journalDb.prepare<[string, number], string>('SELECT data FROM journal WHERE stream = ? AND seq < ? ORDER BY seq DESC LIMIT 4').pluck(true);
  const payoutBefore = journalDb.prepare<[number, number], string>("SELECT data FROM journal WHERE type IN ('ClaimRefundPaidOut', 'ClaimRefundRecalled') AND seq < ? AND seq >= ? ORDER BY seq DESC LIMIT 4").pluck(true);
  type Decided = { at?: number; decision?: { operatorId: string; note: string }; operatorId?: unknown; note?: unknown; withdrawalId?: unknown; replacementWithdrawalId?: unknown };
  const decidedIn = (e: Decided) => e.decision ?? (typeof e.operatorId === 'string' ? { operatorId: e.operatorId, note: typeof e.note === 'string' ? e.note : '' } : undefined);
  /**
   * The operator who decided a posting a person caused, and their note: a reversal (of a
   * deposit or a fill), a review's settlement beyond what orders could take, a claim's
   * step — the decision the same command journaled just before the posting (the same
   * business instant) on the transaction's own order, or, for a claim's refund drawn from
   * suspense, the claim's payout that created it (or the recall its replacement opened on). Undefined where no person decided.
   */
  const decisionBehind = (t: BalanceTransaction, journalSeq: number): { operatorId: string; note: string } | undefined => {
    if (t.source.type === 'adjustment') return undefined;
    for (const data of entriesBefore.all(t.source.id, journalSeq)) {
      const e = decode<Decided>(data);
      if (e.at !== t.createdAt) break; // an earlier command's
      const d = decidedIn(e);
      if (d) return d;
    }
    if (t.source.type !== 'withdrawal') return undefined;
    for (const data of payoutBefore.all(journalSeq, journalSeq - 64)) {
      const e = decode<Decided>(data);
      if (e.at === t.createdAt && (e.withdrawalId === t.source.id || e.replacementWithdrawalId === t.source.id)) return decidedIn(e);
    }
    return undefined;
  };
  /** The journal's transactions of any number of rows, in pages of primary-key lookups. */
  const postedAll = (rows: readonly { readonly journalSeq: number }[]): Map<number, BalanceTransaction> => {
    const out = new Map<number, BalanceTransaction>();
    for (let i = 0; i < rows.length; i += backOfficeLimits.balanceTransactionPageSizeMax) {
      for (const [seq, t] of posted(rows.slice(i, i + backOfficeLimits.balanceTransactionPageSizeMax))) out.set(seq, t);
    }
    return out;
  };

  // A merchant's balance transactions of a statement's period, one line each, oldest first:
  // the lines behind the statement's totals, for reconciling them against orders. The same
  // periods as the statements (date, month, or from and to, Bangkok days); at most
  // financeLimits.statementLinesMax lines, a longer period is refused so it can be asked in parts.
  router.get('/reports/statement-lines', async (ctx) => {
    const q = readQuery(ctx, ['merchant_id', 'livemode', 'date', 'month', 'from', 'to', 'format']);
    const merchant = services.write.world.merchants.get(merchantParam(services, q))!;
    const livemode = booleanParam(q.livemode, 'livemode') ?? true;
    const period = periodParam(services, q);
    const format = formatParam(q.format);
    await fresh(services, 'statement_lines');
    const page = readSideOf(services).models.finance.statementLines(merchant.id, livemode, bangkokDayBounds(period.from).startMs, bangkokDayBounds(period.to).endMs, financeLimits.statementLinesMax);
    if (page.hasMore) {
      throw new ApiError('validation_error', `The period holds more than ${financeLimits.statementLinesMax} balance transactions; ask for it in shorter periods.`, { fields: [{ path: 'query.to', reason: 'too_many_lines' }] });
    }
    const transactions = postedAll(page.lines);
    const proposers = proposersOf(transactions);
    const lines = page.lines.map((l) => {
      const t = transactions.get(l.journalSeq);
      assert(t !== undefined && t.id === l.id, () => `statement line ${l.id} (journal seq ${l.journalSeq}) has no matching journal entry`);
      // The ledger's own deltas in both modes, pending clearing apart: what the statement sums.
      return { date: bangkokDayOf(l.createdAt), ...presentTransaction(t, l.deltas, livemode, l.journalSeq, proposers.get(t.id)) };
    });
    if (format === 'csv') {
      ctx.type = 'text/csv; charset=utf-8; header=present';
      ctx.set('Content-Disposition', `attachment; filename="statement-lines-${merchant.id}-${livemode ? 'live' : 'test'}-${periodText(period).replace('/', '_')}.csv"`);
      ctx.body = csvText(statementLinesCsvHeader, lines.map((l: any) => [
        l.date, financeTimeZone, merchant.id, livemode, l.created_at, l.id, l.type, l.direction, l.amount_minor, bahtOf(BigInt(l.amount_minor)),
        l.bucket_deltas.available_minor, l.bucket_deltas.pending_clearing_minor, l.bucket_deltas.reserved_minor, l.source.type, l.source.id,
        l.posted_by ?? null, l.proposed_by ?? null, l.reverses_balance_transaction_id ?? null, l.reason_code ?? null, l.note ?? null,
      ]));
      return;
    }
    ctx.body = { object: 'list', merchant_id: merchant.id, livemode, ...periodLabel(period), date_from: period.from, date_to: period.to, time_zone: financeTimeZone, count: lines.length, data: lines };
  });
  // One system account's postings of a statement's period, oldest first, with the running
  // balance (core/finance/system-lines.ts): what lies behind the trial balance's figure for
  // suspense, reversals, adjustments and gateway settlement. Read from the system lines
  // projection, each line's transaction from the journal entry that posted it; the same
  // periods, formats and bound on lines as the statement lines.
  router.get('/reports/account-lines', async (ctx) => {
    const q = readQuery(ctx, ['account', 'livemode', 'date', 'month', 'from', 'to', 'format']);
    if (q.account === undefined || q.account === '') {
      throw new ApiError('validation_error', `account is required: one of ${systemLineAccounts.join(', ')}.`, { fields: [{ path: 'query.account', reason: 'required', hint: systemLineAccounts.join(', ') }] });
    }
    const account = enumParam(q.account, 'account', systemLineAccounts)!;
    const livemode = booleanParam(q.livemode, 'livemode') ?? true;
    const period = periodParam(services, q);
    const format = formatParam(q.format);
    await fresh(services, 'system_lines');
    const figures = readSideOf(services).models.finance.systemLines(livemode, account, bangkokDayBounds(period.from).startMs, bangkokDayBounds(period.to).endMs, financeLimits.statementLinesMax);
    if (figures.hasMore) {
      throw new ApiError('validation_error', `The period holds more than ${financeLimits.statementLinesMax} postings to ${account}; ask for it in shorter periods.`, { fields: [{ path: 'query.to', reason: 'too_many_lines' }] });
    }
    const transactions = postedAll(figures.lines);
    const proposers = proposersOf(transactions);
    const details = figures.lines.map((l): SystemLineDetail => {
      const t = transactions.get(l.journalSeq);
      assert(t !== undefined && t.id === l.id, () => `system line ${l.id} (journal seq ${l.journalSeq}) has no matching journal entry`);
      const decided = decisionBehind(t, l.journalSeq);
      const proposedBy = proposers.get(t.id);
      const note = t.note || decided?.note;
      // Sandbox ids as the merchant's history and the statement lines spell them, so an
      // analyst matches a posting to the merchant's line.
      const id = balanceTransactionIdOf(t.id, livemode);
      return {
        createdAt: l.createdAt, balanceTransactionId: id, type: t.type, merchantId: t.merchantId, amountMinor: l.amountMinor,
        // An adjustment's source is the adjustment itself, as everywhere; the operator who posted it apart.
        source: { type: t.source.type, id: t.source.type === 'adjustment' ? id : t.source.id },
        ...(t.source.type === 'adjustment' ? { postedBy: t.source.id } : decided ? { postedBy: decided.operatorId } : {}),
        ...(proposedBy !== undefined ? { proposedBy } : {}),
        ...(t.reversesBalanceTransactionId ? { reversesBalanceTransactionId: balanceTransactionIdOf(t.reversesBalanceTransactionId, livemode) } : {}),
        ...(t.reasonCode ? { reasonCode: t.reasonCode } : {}),
        ...(note ? { note } : {}),
      };
    });
    const report = buildAccountLines(period, livemode, account, figures.openingMinor, details);
    if (format === 'csv') {
      ctx.type = 'text/csv; charset=utf-8; header=present';
      ctx.set('Content-Disposition', `attachment; filename="account-lines-${account}-${livemode ? 'live' : 'test'}-${periodText(period).replace('/', '_')}.csv"`);
      ctx.body = accountLinesCsv(report);
      return;
    }
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = exactJson(presentAccountLines(report, Math.min(bangkokDayBounds(period.to).endMs, services.write.clock.now())));
  });
  router.get('/merchants/:id/balance-transactions', async (ctx) => {
    const q = readQuery(ctx, ['livemode', 'limit', 'cursor']);
    const livemode = booleanParam(q.livemode, 'livemode') ?? true;
    const limit = limitParam(q.limit, backOfficeLimits.balanceTransactionPageSizeDefault, backOfficeLimits.balanceTransactionPageSizeMax);
    // The merchant in the path is a filter too: another merchant's cursor would skip rows.
    const filters = JSON.stringify(['balance_transactions', ctx.params.id!, livemode]);
    const after = decodeFilterCursor(q.cursor, filters, isCursor);
    const merchant = services.write.world.merchants.get(ctx.params.id!);
    if (!merchant) throw notFound('merchant');
    const readSide = readSideOf(services);
    await readSide.caughtUp('balance_history', services.write.world.lastSeq, readSideLimits.listFreshnessWaitMs);
    const page = readSide.models.balanceHistory.newestFirst(merchant.id, livemode, after ? BigInt(after.sequence) : readSideLimits.sequenceMax, limit);
    if (after && after.run !== page.runGeneration) {
      throw new ApiError('sandbox_run_changed', 'The sandbox run changed since this cursor was issued; start again without cursor.', { run_generation: after.run, current_run_generation: page.runGeneration });
    }
    const transactions = posted(page.rows);
    const proposers = proposersOf(transactions);
    const last = page.rows[page.rows.length - 1];
    ctx.body = {
      object: 'list', livemode,
      data: page.rows.map((r) => presentRow(r, transactions.get(r.journalSeq), livemode, proposers)),
      has_more: page.hasMore,
      next_cursor: page.hasMore && last ? encodeFilterCursor({ sequence: last.sequence.toString(), run: page.runGeneration }, filters) : null,
    };
  });
}
