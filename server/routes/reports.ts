// Finance reports (issue 16), read from the finance projections (projections/finance-*.ts,
// projections/receiving-accounts.ts), never from the journal:
//   GET /v1/bo/reports/statements?merchant_id=&livemode=&date=&format=   role finance
//   GET /v1/bo/reports/trial-balance?as_of=&format=                      role finance
//   GET /v1/bo/reports/receiving-accounts?merchant_id=&livemode=&format= role finance
//   GET /v1/pay/reports/statements?date=&format=                         scope wallet:read
// date is a day in Asia/Bangkok (YYYY-MM-DD); as_of an RFC 3339 instant (default: now on
// the service clock). format=csv answers RFC 4180 text (UTF-8, header row). A report waits
// briefly until the projections have applied everything the write side had committed
// when the request came in; otherwise 503 service_unavailable (retry).

import Router from '@koa/router';
import type { Context } from 'koa';
import { bangkokDayBounds, bangkokDayOf, isCalendarDay } from '../../core/finance/calendar.ts';
import { presentReceivingAccount, receivingAccountsCsv, summariseReceivingAccount } from '../../core/finance/receiving.ts';
import { buildStatement, presentStatement, statementCsv, type Statement } from '../../core/finance/statement.ts';
import { buildTrialBalance, presentTrialBalance, trialBalanceCsv } from '../../core/finance/trial-balance.ts';
import { financeLimits } from '../../core/limits.ts';
import { iso } from '../../core/present.ts';
import type { ProjectionName } from '../../projections/projection.ts';
import { merchantAuth, requireScope } from '../auth/merchant.ts';
import { operatorAuth } from '../auth/operator.ts';
import { ApiError } from '../errors.ts';
import type { Services } from '../ports.ts';
import { parseIso } from '../time.ts';
import { notFound } from './common.ts';
import { readQuery, readSideOf } from './read-params.ts';

function invalid(name: string, hint: string): ApiError {
  return new ApiError('validation_error', `${name}: ${hint}.`, { fields: [{ path: `query.${name}`, reason: 'format', hint }] });
}

function required(q: Record<string, string>, name: string, hint: string): string {
  const value = q[name];
  if (value === undefined || value === '') throw new ApiError('validation_error', `${name} is required: ${hint}.`, { fields: [{ path: `query.${name}`, reason: 'required', hint }] });
  return value;
}

/** date=YYYY-MM-DD, a Bangkok day that has begun. */
function dayParam(services: Services, q: Record<string, string>): string {
  const day = required(q, 'date', 'a day in Asia/Bangkok as YYYY-MM-DD');
  if (!isCalendarDay(day)) throw invalid('date', 'a day in Asia/Bangkok as YYYY-MM-DD');
  if (bangkokDayBounds(day).startMs > services.write.clock.now()) throw invalid('date', `a day that has begun (today in Asia/Bangkok is ${bangkokDayOf(services.write.clock.now())})`);
  return day;
}

function livemodeParam(raw: string | undefined): boolean {
  if (raw === undefined || raw === 'true') return true;
  if (raw === 'false') return false;
  throw invalid('livemode', 'true or false');
}

function formatParam(raw: string | undefined): 'json' | 'csv' {
  if (raw === undefined || raw === 'json') return 'json';
  if (raw === 'csv') return 'csv';
  throw invalid('format', 'json or csv');
}

/** Waits until `projection` has applied what the write side had committed; else 503. */
async function fresh(services: Services, projection: ProjectionName): Promise<void> {
  const read = readSideOf(services);
  if (!(await read.caughtUp(projection, services.write.world.lastSeq, financeLimits.reportFreshnessWaitMs))) {
    throw new ApiError('service_unavailable', 'The finance projections are catching up with the journal; retry shortly.', undefined, 1);
  }
}

async function statementOf(services: Services, merchantId: string, livemode: boolean, day: string): Promise<Statement> {
  await fresh(services, 'finance_ledger');
  const f = readSideOf(services).models.finance.statement(merchantId, livemode, day);
  const name = services.write.world.merchants.get(merchantId)?.name ?? '';
  return buildStatement({ merchantId, merchantName: name, livemode, day }, f.opening, f.lines, f.closing);
}

function answerStatement(ctx: Context, services: Services, s: Statement, format: 'json' | 'csv'): void {
  if (format === 'csv') {
    ctx.type = 'text/csv; charset=utf-8; header=present';
    ctx.set('Content-Disposition', `attachment; filename="statement-${s.merchantId}-${s.livemode ? 'live' : 'test'}-${s.day}.csv"`);
    ctx.body = statementCsv(s);
    return;
  }
  const { endMs } = bangkokDayBounds(s.day);
  ctx.body = presentStatement(s, Math.min(endMs, services.write.clock.now()));
}

function backOfficeReports(services: Services, verify: Parameters<typeof operatorAuth>[0]): Router {
  const router = new Router({ prefix: '/v1/bo/reports' });
  router.use(operatorAuth(verify));
  const merchantParam = (q: Record<string, string>) => {
    const id = required(q, 'merchant_id', 'the mch_ id of a merchant');
    if (!services.write.world.merchants.has(id)) throw notFound('merchant');
    return id;
  };

  router.get('/statements', async (ctx) => {
    const q = readQuery(ctx, ['merchant_id', 'livemode', 'date', 'format']);
    const merchantId = merchantParam(q);
    const livemode = livemodeParam(q.livemode);
    const day = dayParam(services, q);
    const format = formatParam(q.format);
    answerStatement(ctx, services, await statementOf(services, merchantId, livemode, day), format);
  });

  router.get('/trial-balance', async (ctx) => {
    const q = readQuery(ctx, ['as_of', 'format']);
    const now = services.write.clock.now();
    const asOf = q.as_of === undefined ? now : parseIso(q.as_of);
    if (asOf === null) throw invalid('as_of', 'an RFC 3339 instant');
    if (asOf > now) throw invalid('as_of', `an instant not after now (${iso(now)})`);
    const format = formatParam(q.format);
    await fresh(services, 'finance_ledger');
    const tb = buildTrialBalance(asOf, readSideOf(services).models.finance.trialBalance(asOf).turnovers);
    if (format === 'csv') {
      ctx.type = 'text/csv; charset=utf-8; header=present';
      ctx.body = trialBalanceCsv(tb);
    } else ctx.body = presentTrialBalance(tb);
  });

  router.get('/receiving-accounts', async (ctx) => {
    const q = readQuery(ctx, ['merchant_id', 'livemode', 'format']);
    const merchantId = merchantParam(q);
    const livemode = livemodeParam(q.livemode);
    const format = formatParam(q.format);
    await fresh(services, 'receiving_accounts');
    const accounts = readSideOf(services).models.receiving.accounts(merchantId, livemode, financeLimits.receivingAccountsPerReportMax);
    const summaries = accounts.map((a) => summariseReceivingAccount(a, a.legs, financeLimits.receivingDifferencesListedMax));
    if (format === 'csv') {
      ctx.type = 'text/csv; charset=utf-8; header=present';
      ctx.body = receivingAccountsCsv(summaries);
      return;
    }
    const data = summaries.map(presentReceivingAccount);
    ctx.body = { object: 'list', merchant_id: merchantId, livemode, as_of: iso(services.write.clock.now()), data, has_more: accounts.length >= financeLimits.receivingAccountsPerReportMax };
  });
  return router;
}

function merchantReports(services: Services): Router {
  const router = new Router({ prefix: '/v1/pay/reports' });
  router.use(merchantAuth(services));
  router.get('/statements', async (ctx) => {
    const m = requireScope(ctx, 'wallet:read');
    const q = readQuery(ctx, ['date', 'format']);
    const day = dayParam(services, q);
    const format = formatParam(q.format);
    answerStatement(ctx, services, await statementOf(services, m.merchantId, m.livemode, day), format);
  });
  return router;
}

/** The report routers, for createApp's extraRouters. */
export function reportRouters(services: Services, verify: Parameters<typeof operatorAuth>[0]): Router[] {
  return [backOfficeReports(services, verify), merchantReports(services)];
}
