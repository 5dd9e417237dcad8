// The statement (finance): GET /v1/bo/reports/statements?merchant_id=&livemode=&date= (a
// day in Asia/Bangkok), &from=&to= for a period of days (both included), or &month= ("The
// date's month", or a period of days that is one whole month: a month up to the server's
// today). Per bucket: the opening balance, each
// movement type (count, credits, debits, net) and the closing balance, exactly as the
// server computed them. "Download CSV" fetches the same statement with format=csv using
// the operator's token and saves it through a blob link, under the name the server gives.
//
// data-testids: statement-form, statement-merchant, statement-livemode, statement-date,
//   statement-date-to, statement-month, show-statement, statement, statement-bucket
//   (data-bucket), movement-row (data-type), opening, closing, download-csv.

import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { label, t } from '../i18n.js';
import { bangkokToday, formatCount, reportPeriodOf, wholeMonthOf } from '../format.js';
import { ActionButton, Empty, html, Money, Named, navigate, saveReport, Time, usePageData } from '../ui.js';

export function StatementPage({ query }) {
  const params = { merchant_id: query.merchant_id ?? '', livemode: query.livemode ?? 'true', ...reportPeriodOf(query) };
  const key = JSON.stringify(params);
  const { data } = usePageData(() => (params.merchant_id ? get('/v1/bo/reports/statements', params) : Promise.resolve(null)), [key]);
  return html`<section>
    <div class="page-head"><h1>${t('statement.title')}</h1></div>
    <${StatementForm} key=${key} params=${params} />
    ${!params.merchant_id ? html`<${Empty}>${t('statement.chooseMerchant')}</${Empty}>` : null}
    ${data ? html`<${Statement} s=${data} params=${params} />` : null}
  </section>`;
}

function StatementForm({ params }) {
  const [merchant, setMerchant] = useState(params.merchant_id);
  const [livemode, setLivemode] = useState(params.livemode);
  const [from, setFrom] = useState(params.date ?? params.from ?? (params.month ? `${params.month}-01` : bangkokToday()));
  const [to, setTo] = useState(params.to ?? '');
  const base = () => ({ merchant_id: merchant.trim(), livemode });
  const show = (first, last) => {
    const month = wholeMonthOf(first, last);
    navigate('/statement', { ...base(), ...(month ? { month } : last && last !== first ? { from: first, to: last } : { date: first }) });
  };
  // The chosen date's month, the service's this month by default (format.js reads the service's clock); the server counts a month's days up to its today.
  const thisMonth = () => navigate('/statement', { ...base(), month: (/^\d{4}-\d{2}/.test(from) ? from : bangkokToday()).slice(0, 7) });
  return html`<form class="filters" data-testid="statement-form" onSubmit=${(e) => { e.preventDefault(); show(from, to); }}>
    <label>${t('common.merchant')}<input data-testid="statement-merchant" placeholder="mch_…" required value=${merchant} onInput=${(e) => setMerchant(e.currentTarget.value)} size="30" /></label>
    <label>${t('common.mode')}<select data-testid="statement-livemode" value=${livemode} onChange=${(e) => setLivemode(e.currentTarget.value)}>
      <option value="true">${t('mode.live')}</option><option value="false">${t('mode.test')}</option></select></label>
    <label>${t('statement.date')}<input type="date" data-testid="statement-date" required value=${from} max=${bangkokToday()} onInput=${(e) => setFrom(e.currentTarget.value)} /></label>
    <label>${t('statement.dateTo')}<input type="date" data-testid="statement-date-to" value=${to} min=${from} max=${bangkokToday()} onInput=${(e) => setTo(e.currentTarget.value)} /></label>
    <button type="submit" data-testid="show-statement">${t('statement.show')}</button>
    <button type="button" class="ghost" data-testid="statement-month" disabled=${!merchant.trim()} onClick=${thisMonth}>${t('statement.thisMonth')}</button>
  </form>`;
}

function Statement({ s, params }) {
  const download = () => saveReport('/v1/bo/reports/statements', { ...params, format: 'csv' });
  const period = s.date ?? `${s.date_from} – ${s.date_to}`;
  return html`<div class="card" data-testid="statement">
    <div class="sub-head">
      <h2>${s.merchant_name ? html`<span data-testid="statement-merchant-name"><${Named} text=${s.merchant_name} /></span> ` : null}<span class="mono">${s.merchant_id}</span> · ${s.livemode ? t('mode.live') : t('mode.test')} · ${period} <span class="muted small">(${s.time_zone})</span></h2>
      <${ActionButton} testid="download-csv" onRun=${download}>⬇ ${t('statement.downloadCsv')}</${ActionButton}>
    </div>
    <p class="small muted">${t('statement.period')} <${Time} at=${s.period_start} /> – <${Time} at=${s.period_end} /> · ${t('common.asOf')} <${Time} at=${s.as_of} /></p>
    <table class="grid statement">
      <thead><tr><th>${t('statement.line')}</th><th class="num">${t('statement.count')}</th><th class="num">${t('statement.credit')}</th><th class="num">${t('statement.debit')}</th><th class="num">${t('statement.net')}</th></tr></thead>
      ${s.buckets.map((b) => html`<tbody data-testid="statement-bucket" data-bucket=${b.bucket}>
        <tr class="bucket-head"><th colspan="5">${label('bucket', b.bucket)}</th></tr>
        <tr data-testid="opening"><td>${t('statement.opening')}</td><td></td><td></td><td></td><td class="num"><${Money} minor=${b.opening_minor} /></td></tr>
        ${b.movements.length === 0 ? html`<tr><td colspan="5" class="muted">${t('statement.noMovements')}</td></tr>` : null}
        ${b.movements.map((m) => html`<tr data-testid="movement-row" data-type=${m.type}>
          <td>${label('btType', m.type)} <span class="mono small muted">${m.type}</span></td><td class="num">${formatCount(m.count)}</td>
          <td class="num"><${Money} minor=${m.credit_minor} /></td><td class="num"><${Money} minor=${m.debit_minor} /></td><td class="num"><${Money} minor=${m.net_minor} signed /></td>
        </tr>`)}
        <tr class="total" data-testid="closing"><td>${t('statement.closing')}</td><td></td><td></td><td></td><td class="num"><${Money} minor=${b.closing_minor} /></td></tr>
      </tbody>`)}
    </table>
  </div>`;
}
