// Finance reports (issue 16), read from the finance projections (projections/finance-*.ts,
// projections/receiving-accounts.ts), never from the journal:
//   GET /v1/bo/reports/statements?merchant_id=&livemode=&{date|month|from&to}=&format=  finance
//   GET /v1/bo/reports/trial-balance?as_of=&format=                                     finance (payer_debts, payee_debts too)
//   GET /v1/bo/reports/receiving-accounts?merchant_id=&livemode=&format=                finance
//   GET /v1/bo/reports/fees?{date|month|from&to}=&livemode=&merchant_id=&white_label_id=&format=  finance
//   GET /v1/bo/reports/disputes?{date|month|from&to}=&livemode=&merchant_id=&format=    finance
//   GET /v1/pay/reports/statements?{date|month|from&to}=&format=                        wallet:read
//   GET /v1/pay/reports/fees?{date|month|from&to}=&format=                              wallet:read
// date is a day in Asia/Bangkok (YYYY-MM-DD); month (YYYY-MM) its days, up to today while
// it runs; from and to (both included) a period of such days, at most a year; as_of an
// RFC 3339 instant (default: now on the service clock). format=csv answers RFC 4180 text
// (UTF-8, header row). A report waits briefly until the projections have applied
// everything the write side had committed when the request came in; otherwise 503
// service_unavailable (retry).

import Router from '@koa/router';
import type { Context } from 'koa';
import { bangkokDayBounds, bangkokDayOf, bangkokDaysIn, bangkokWallTimeOf, isCalendarDay } from '../../core/finance/calendar.ts';
import { buildDisputeReport, disputeReportCsv, presentDisputeReport } from '../../core/finance/disputes.ts';
import { buildFeeReport, feeReportCsv, presentFeeReport } from '../../core/finance/fees.ts';
import { presentReceivingAccount, receivingAccountsCsv, summariseReceivingAccount } from '../../core/finance/receiving.ts';
import { buildStatement, periodText, presentStatement, statementCsv, type Statement, type StatementPeriod } from '../../core/finance/statement.ts';
import { buildTrialBalance, presentTrialBalance, trialBalanceCsv } from '../../core/finance/trial-balance.ts';
import { financeLimits } from '../../core/limits.ts';
import { iso } from '../../core/present.ts';
import type { ProjectionName } from '../../projections/projection.ts';
import type { TrialBalanceSnapshot } from '../../projections/read-models.ts';
import { merchantAuth, requireScope } from '../auth/merchant.ts';
import { operatorAuth } from '../auth/operator.ts';
import { exactJson } from '../exact-json.ts';
import { ApiError } from '../errors.ts';
import type { Services } from '../ports.ts';
import { parseIso } from '../time.ts';
import { notFound } from './common.ts';
import { booleanParam, readQuery, readSideOf } from './read-params.ts';

function invalid(name: string, hint: string): ApiError {
  return new ApiError('validation_error', `${name}: ${hint}.`, { fields: [{ path: `query.${name}`, reason: 'format', hint }] });
}

function required(q: Record<string, string>, name: string, hint: string): string {
  const value = q[name];
  if (value === undefined || value === '') throw new ApiError('validation_error', `${name} is required: ${hint}.`, { fields: [{ path: `query.${name}`, reason: 'required', hint }] });
  return value;
}

const dayHint = 'a day in Asia/Bangkok as YYYY-MM-DD';

/** A Bangkok day named by query parameter `name` that has begun. */
function begunDay(services: Services, name: string, day: string): string {
  if (!isCalendarDay(day)) throw invalid(name, dayHint);
  if (day < financeLimits.reportDayMin) throw invalid(name, `a day from ${financeLimits.reportDayMin}`);
  if (bangkokDayBounds(day).startMs > services.write.clock.now()) throw invalid(name, `a day that has begun (today in Asia/Bangkok is ${bangkokDayOf(services.write.clock.now())})`);
  return day;
}

/**
 * date=YYYY-MM-DD (one day), month=YYYY-MM (its days, up to today while it runs), or from=
 * and to= (a period, both days included, at most a year): exactly one of the three.
 */
export function periodParam(services: Services, q: Record<string, string>): StatementPeriod {
  const given = (name: string) => q[name] !== undefined && q[name] !== '';
  const ways = [['date'], ['month'], ['from', 'to']].filter((names) => names.some(given));
  if (ways.length > 1) {
    throw new ApiError('validation_error', 'A report is for a date, a month, or a period from one day to another: send one of them.', {
      fields: ways.flat().filter(given).map((name) => ({ path: `query.${name}`, reason: 'conflict', hint: 'either date, month, or from and to' })),
    });
  }
  if (given('date')) {
    const day = begunDay(services, 'date', q.date!);
    return { from: day, to: day };
  }
  if (given('month')) return monthPeriod(services, q.month!);
  if (!given('from') && !given('to')) {
    throw new ApiError('validation_error', `date is required (${dayHint}), or month, or from and to for a period.`, { fields: [{ path: 'query.date', reason: 'required', hint: `${dayHint}; month=YYYY-MM; or from and to` }] });
  }
  const from = begunDay(services, 'from', required(q, 'from', `the period's first day, ${dayHint}`));
  const to = begunDay(services, 'to', required(q, 'to', `the period's last day (included), ${dayHint}`));
  if (to < from) throw invalid('to', `a day not before from (${from})`);
  const days = bangkokDaysIn(from, to);
  if (days > financeLimits.statementPeriodDaysMax) throw invalid('to', `at most ${financeLimits.statementPeriodDaysMax} days from from (this period has ${days})`);
  return { from, to };
}

/** A calendar month in Asia/Bangkok that has begun: its first day to its last, or to today while it runs. */
function monthPeriod(services: Services, month: string): StatementPeriod {
  const hint = 'a month in Asia/Bangkok as YYYY-MM';
  const from = `${month}-01`;
  if (!/^\d{4}-\d{2}$/.test(month) || !isCalendarDay(from)) throw invalid('month', hint);
  if (from < financeLimits.reportDayMin) throw invalid('month', `a month from ${financeLimits.reportDayMin.slice(0, 7)}`);
  const today = bangkokDayOf(services.write.clock.now());
  if (from > today) throw invalid('month', `a month that has begun (today in Asia/Bangkok is ${today})`);
  const [year, m] = month.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(year, m, 0)).toISOString().slice(0, 10);
  return { from, to: last < today ? last : today, month };
}

/** The report's merchant_id: required, and a merchant that exists (404 otherwise). */
export function merchantParam(services: Services, q: Record<string, string>): string {
  const id = required(q, 'merchant_id', 'the mch_ id of a merchant');
  if (!services.write.world.merchants.has(id)) throw notFound('merchant');
  return id;
}

export function formatParam(raw: string | undefined): 'json' | 'csv' {
  if (raw === undefined || raw === 'json') return 'json';
  if (raw === 'csv') return 'csv';
  throw invalid('format', 'json or csv');
}

/** A report as JSON, every figure exact (server/exact-json.ts: one past 2^53 − 1 keeps all its digits). */
function answerJson(ctx: Context, body: unknown): void {
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = exactJson(body);
}

function catchingUp(): ApiError {
  return new ApiError('service_unavailable', 'The finance projections are catching up with the journal; retry shortly.', undefined, 1);
}

/** Waits until `projection` has applied what the write side had committed; else 503. */
export async function fresh(services: Services, projection: ProjectionName): Promise<void> {
  const read = readSideOf(services);
  if (!(await read.caughtUp(projection, services.write.world.lastSeq, financeLimits.reportFreshnessWaitMs))) {
    throw catchingUp();
  }
}

/**
 * The trial balance's figures of one snapshot, as of finance_ledger's position in it; while
 * payer_debts has not applied that far, waits for it (as fresh()) and reads again.
 */
async function trialBalanceFigures(services: Services, asOf: number): Promise<Extract<TrialBalanceSnapshot, { ready: true }>> {
  const read = readSideOf(services);
  for (let attempt = 1; ; attempt++) {
    const figures = read.models.trialBalance(asOf);
    if (figures.ready) return figures;
    if (attempt >= financeLimits.reportSnapshotAttemptsMax || !(await read.caughtUp(figures.behind, figures.position, financeLimits.reportFreshnessWaitMs))) {
      throw catchingUp();
    }
  }
}

async function statementOf(services: Services, merchantId: string, livemode: boolean, period: StatementPeriod): Promise<Statement> {
  await fresh(services, 'finance_ledger');
  const f = readSideOf(services).models.finance.statement(merchantId, livemode, period.from, period.to);
  const name = services.write.world.merchants.get(merchantId)?.name ?? '';
  return buildStatement({ merchantId, merchantName: name, livemode, ...period }, f.opening, f.lines, f.closing);
}

/** A CSV's file name for a report at an instant: `<stem>-20261127T084227Z.csv` (UTC, no separators a file system minds). */
/** `stem-YYYYMMDDTHHMMSSZ.csv`, with the milliseconds when there are any, so two instants never share a name. */
function csvFileInstant(stem: string, at: number): string {
  return `${stem}-${iso(at).replace(/[-:]|\.000(?=Z)/g, '')}.csv`;
}

function answerStatement(ctx: Context, services: Services, s: Statement, format: 'json' | 'csv'): void {
  if (format === 'csv') {
    ctx.type = 'text/csv; charset=utf-8; header=present';
    ctx.set('Content-Disposition', `attachment; filename="statement-${s.merchantId}-${s.livemode ? 'live' : 'test'}-${periodText(s).replace('/', '_')}.csv"`);
    ctx.body = statementCsv(s);
    return;
  }
  const { endMs } = bangkokDayBounds(s.to);
  answerJson(ctx, presentStatement(s, Math.min(endMs, services.write.clock.now())));
}

/** The fees report of a period and mode, all merchants' or one's, as JSON or CSV. */
async function answerFees(ctx: Context, services: Services, livemode: boolean, period: StatementPeriod, of: { merchantId?: string; whiteLabelId?: string }, format: 'json' | 'csv'): Promise<void> {
  await fresh(services, 'fee_ledger');
  const fees = readSideOf(services).models.finance.fees(livemode, period.from, period.to, of.merchantId);
  const namesOf = (id: string) => {
    const m = services.write.world.merchants.get(id);
    return { name: m?.name ?? '', whiteLabelId: m?.whiteLabelId ?? '' };
  };
  const report = buildFeeReport(period, livemode, fees, namesOf, of.whiteLabelId);
  if (format === 'csv') {
    const whose = of.merchantId ?? of.whiteLabelId;
    ctx.type = 'text/csv; charset=utf-8; header=present';
    ctx.set('Content-Disposition', `attachment; filename="fees-${whose ? `${whose}-` : ''}${livemode ? 'live' : 'test'}-${periodText(period).replace('/', '_')}.csv"`);
    ctx.body = feeReportCsv(report);
    return;
  }
  answerJson(ctx, presentFeeReport(report, Math.min(bangkokDayBounds(period.to).endMs, services.write.clock.now())));
}

/** The disputes open at some time in a period of one mode, all merchants' or one's, as JSON or CSV. */
async function answerDisputes(ctx: Context, services: Services, livemode: boolean, period: StatementPeriod, merchantId: string | undefined, format: 'json' | 'csv'): Promise<void> {
  await fresh(services, 'dispute_ledger');
  const startMs = bangkokDayBounds(period.from).startMs, endMs = bangkokDayBounds(period.to).endMs;
  const found = readSideOf(services).models.disputes.openIn(livemode, startMs, endMs, merchantId, financeLimits.statementLinesMax);
  if (found.hasMore) {
    throw new ApiError('validation_error', `The period holds more than ${financeLimits.statementLinesMax} disputes; ask for it in shorter periods, or for one merchant.`, { fields: [{ path: 'query.to', reason: 'too_many_lines' }] });
  }
  const report = buildDisputeReport(period, livemode, found.records, (id) => services.write.world.merchants.get(id)?.name ?? '');
  if (format === 'csv') {
    ctx.type = 'text/csv; charset=utf-8; header=present';
    ctx.set('Content-Disposition', `attachment; filename="disputes-${merchantId ? `${merchantId}-` : ''}${livemode ? 'live' : 'test'}-${periodText(period).replace('/', '_')}.csv"`);
    ctx.body = disputeReportCsv(report);
    return;
  }
  answerJson(ctx, presentDisputeReport(report, Math.min(endMs, services.write.clock.now())));
}

function backOfficeReports(services: Services, verify: Parameters<typeof operatorAuth>[0]): Router {
  const router = new Router({ prefix: '/v1/bo/reports', sensitive: true });
  router.use(operatorAuth(verify));

  router.get('/statements', async (ctx) => {
    const q = readQuery(ctx, ['merchant_id', 'livemode', 'date', 'month', 'from', 'to', 'format']);
    const merchantId = merchantParam(services, q);
    const livemode = booleanParam(q.livemode, 'livemode') ?? true;
    const period = periodParam(services, q);
    const format = formatParam(q.format);
    answerStatement(ctx, services, await statementOf(services, merchantId, livemode, period), format);
  });

  router.get('/trial-balance', async (ctx) => {
    const q = readQuery(ctx, ['as_of', 'format']);
    const now = services.write.clock.now();
    const asOf = q.as_of === undefined ? now : parseIso(q.as_of);
    if (asOf === null) throw invalid('as_of', 'an RFC 3339 instant');
    if (asOf < bangkokDayBounds(financeLimits.reportDayMin).startMs) throw invalid('as_of', `an instant from ${financeLimits.reportDayMin} (Asia/Bangkok), as the statements' days`);
    if (asOf > now) throw invalid('as_of', `an instant not after now (${iso(now)}, ${bangkokWallTimeOf(now)} in Bangkok)`);
    const format = formatParam(q.format);
    await fresh(services, 'finance_ledger');
    const figures = await trialBalanceFigures(services, asOf);
    const tb = buildTrialBalance(asOf, figures.turnovers, figures.owedByPayers, figures.owedByPayees);
    const merchantName = (id: string) => services.write.world.merchants.get(id)?.name;
    if (format === 'csv') {
      ctx.type = 'text/csv; charset=utf-8; header=present';
      ctx.set('Content-Disposition', `attachment; filename="${csvFileInstant('trial-balance', asOf)}"`);
      ctx.body = trialBalanceCsv(tb, merchantName);
    } else answerJson(ctx, presentTrialBalance(tb, merchantName));
  });

  router.get('/fees', async (ctx) => {
    const q = readQuery(ctx, ['merchant_id', 'white_label_id', 'livemode', 'date', 'month', 'from', 'to', 'format']);
    // Empty: every merchant, of every white label.
    const merchantId = q.merchant_id ? merchantParam(services, q) : undefined;
    const whiteLabelId = q.white_label_id || undefined;
    if (whiteLabelId !== undefined && !services.write.world.whiteLabels.has(whiteLabelId)) throw notFound('white label');
    if (merchantId !== undefined && whiteLabelId !== undefined && services.write.world.merchants.get(merchantId)!.whiteLabelId !== whiteLabelId) {
      throw new ApiError('validation_error', `merchant ${merchantId} is not a merchant of white label ${whiteLabelId}: give one of them, or a matching pair.`, {
        fields: [{ path: 'query.merchant_id', reason: 'conflict', hint: `a merchant of ${whiteLabelId}` }],
      });
    }
    const livemode = booleanParam(q.livemode, 'livemode') ?? true;
    const period = periodParam(services, q);
    await answerFees(ctx, services, livemode, period, { merchantId, whiteLabelId }, formatParam(q.format));
  });

  router.get('/disputes', async (ctx) => {
    const q = readQuery(ctx, ['merchant_id', 'livemode', 'date', 'month', 'from', 'to', 'format']);
    const merchantId = q.merchant_id ? merchantParam(services, q) : undefined; // empty: every merchant
    const livemode = booleanParam(q.livemode, 'livemode') ?? true;
    const period = periodParam(services, q);
    await answerDisputes(ctx, services, livemode, period, merchantId, formatParam(q.format));
  });

  router.get('/receiving-accounts', async (ctx) => {
    const q = readQuery(ctx, ['merchant_id', 'livemode', 'format']);
    const merchantId = merchantParam(services, q);
    const livemode = booleanParam(q.livemode, 'livemode') ?? true;
    const format = formatParam(q.format);
    await fresh(services, 'receiving_accounts');
    const accounts = readSideOf(services).models.receiving.accounts(merchantId, livemode, financeLimits.receivingAccountsPerReportMax);
    const summaries = accounts.map((a) => summariseReceivingAccount(a, a.legs, financeLimits.receivingDifferencesListedMax));
    if (format === 'csv') {
      ctx.type = 'text/csv; charset=utf-8; header=present';
      ctx.set('Content-Disposition', `attachment; filename="${csvFileInstant(`receiving-accounts-${merchantId}-${livemode ? 'live' : 'test'}`, services.write.clock.now())}"`);
      ctx.body = receivingAccountsCsv(summaries);
      return;
    }
    const data = summaries.map(presentReceivingAccount);
    answerJson(ctx, { object: 'list', merchant_id: merchantId, livemode, as_of: iso(services.write.clock.now()), data, has_more: accounts.length >= financeLimits.receivingAccountsPerReportMax });
  });
  return router;
}

function merchantReports(services: Services): Router {
  const router = new Router({ prefix: '/v1/pay/reports', sensitive: true });
  router.use(merchantAuth(services));
  router.get('/statements', async (ctx) => {
    const m = requireScope(ctx, 'wallet:read');
    const q = readQuery(ctx, ['date', 'month', 'from', 'to', 'format']);
    const period = periodParam(services, q);
    const format = formatParam(q.format);
    answerStatement(ctx, services, await statementOf(services, m.merchantId, m.livemode, period), format);
  });
  router.get('/fees', async (ctx) => {
    const m = requireScope(ctx, 'wallet:read');
    const q = readQuery(ctx, ['date', 'month', 'from', 'to', 'format']);
    const period = periodParam(services, q);
    await answerFees(ctx, services, m.livemode, period, { merchantId: m.merchantId }, formatParam(q.format));
  });
  return router;
}

/** The report routers, for createApp's extraRouters. */
export function reportRouters(services: Services, verify: Parameters<typeof operatorAuth>[0]): Router[] {
  return [backOfficeReports(services, verify), merchantReports(services)];
}
