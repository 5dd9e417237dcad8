// Fees and VAT (finance): GET /v1/bo/reports/fees?livemode=&date= (a day in Asia/Bangkok),
// &from=&to= for a period of days, or &month= (the default this one; "The date's month", or
// a period of days that is one whole month: a month up to the server's today), optionally &merchant_id= or &white_label_id=. Per merchant (with
// its white label) the fees charged and refunded, each as fee revenue net of VAT and VAT,
// the net of both and their total; then the totals — the figures of the month's tax
// invoices and its output VAT, exactly as the server computed them. A merchant links to
// its statement of the same period. "Download CSV" saves format=csv under the name the
// server gives.
//
// data-testids: fees-form, fees-merchant, fees-white-label, fees-livemode, fees-date,
//   fees-date-to, fees-month, show-fees, fees, fees-row (data-merchant), fees-merchant-name, fees-totals,
//   download-csv.

import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { t } from '../i18n.js';
import { bangkokToday, formatCount, wholeMonthOf } from '../format.js';
import { ActionButton, Empty, html, Id, Money, Named, navigate, saveReport, Time, usePageData } from '../ui.js';

/** The period the page's URL names: a day, a period (from, to), or a month (this one by default). */
function periodOf(query) {
  if (query.from && query.to) return query.from === query.to ? { date: query.from } : { from: query.from, to: query.to };
  if (query.date) return { date: query.date };
  return { month: query.month ?? bangkokToday().slice(0, 7) };
}

export function FeesPage({ query }) {
  const only = (name) => (query[name] ? { [name]: query[name] } : {});
  const params = { livemode: query.livemode ?? 'true', ...only('merchant_id'), ...only('white_label_id'), ...periodOf(query) };
  const key = JSON.stringify(params);
  const { data } = usePageData(() => get('/v1/bo/reports/fees', params), [key]);
  return html`<section>
    <div class="page-head"><h1>${t('fees.title')}</h1></div>
    <${FeesForm} key=${key} params=${params} />
    ${data ? html`<${Fees} r=${data} params=${params} />` : null}
  </section>`;
}

function FeesForm({ params }) {
  const [merchant, setMerchant] = useState(params.merchant_id ?? '');
  const [whiteLabel, setWhiteLabel] = useState(params.white_label_id ?? '');
  const [livemode, setLivemode] = useState(params.livemode);
  const [from, setFrom] = useState(params.date ?? params.from ?? `${params.month}-01`);
  const [to, setTo] = useState(params.to ?? '');
  const base = () => ({ livemode, ...(merchant.trim() ? { merchant_id: merchant.trim() } : {}), ...(whiteLabel.trim() ? { white_label_id: whiteLabel.trim() } : {}) });
  const show = (first, last) => {
    const month = wholeMonthOf(first, last);
    navigate('/fees', { ...base(), ...(month ? { month } : last && last !== first ? { from: first, to: last } : { date: first }) });
  };
  // The chosen date's month, the service's this month by default (format.js reads the service's clock); the server counts a month's days up to its today.
  const thisMonth = () => navigate('/fees', { ...base(), month: (/^\d{4}-\d{2}/.test(from) ? from : bangkokToday()).slice(0, 7) });
  return html`<form class="filters" data-testid="fees-form" onSubmit=${(e) => { e.preventDefault(); show(from, to); }}>
    <label>${t('common.merchant')}<input data-testid="fees-merchant" placeholder=${t('fees.allMerchants')} value=${merchant} onInput=${(e) => setMerchant(e.currentTarget.value)} size="30" /></label>
    <label>${t('merchants.whiteLabel')}<input data-testid="fees-white-label" placeholder="wl_…" value=${whiteLabel} onInput=${(e) => setWhiteLabel(e.currentTarget.value)} size="30" /></label>
    <label>${t('common.mode')}<select data-testid="fees-livemode" value=${livemode} onChange=${(e) => setLivemode(e.currentTarget.value)}>
      <option value="true">${t('mode.live')}</option><option value="false">${t('mode.test')}</option></select></label>
    <label>${t('statement.date')}<input type="date" data-testid="fees-date" required value=${from} max=${bangkokToday()} onInput=${(e) => setFrom(e.currentTarget.value)} /></label>
    <label>${t('statement.dateTo')}<input type="date" data-testid="fees-date-to" value=${to} min=${from} max=${bangkokToday()} onInput=${(e) => setTo(e.currentTarget.value)} /></label>
    <button type="submit" data-testid="show-fees">${t('statement.show')}</button>
    <button type="button" class="ghost" data-testid="fees-month" onClick=${thisMonth}>${t('statement.thisMonth')}</button>
  </form>`;
}

/** The cells of one line: charged, refunded, and the net (fee, VAT, total). */
function FeeCells({ l }) {
  return html`<td class="num">${formatCount(l.charged.count)}</td><td class="num"><${Money} minor=${l.charged.fee_minor} /></td><td class="num"><${Money} minor=${l.charged.vat_minor} /></td>
    <td class="num">${formatCount(l.refunded.count)}</td><td class="num"><${Money} minor=${l.refunded.fee_minor} /></td><td class="num"><${Money} minor=${l.refunded.vat_minor} /></td>
    <td class="num"><${Money} minor=${l.fee_minor} signed /></td><td class="num"><${Money} minor=${l.vat_minor} signed /></td><td class="num"><${Money} minor=${l.total_minor} signed /></td>`;
}

function Fees({ r, params }) {
  const download = () => saveReport('/v1/bo/reports/fees', { ...params, format: 'csv' });
  const period = r.date ?? `${r.date_from} – ${r.date_to}`;
  const statementOf = (id) => `#/statement?${new URLSearchParams({ merchant_id: id, livemode: String(r.livemode), ...(r.date ? { date: r.date } : { from: r.date_from, to: r.date_to }) })}`;
  return html`<div class="card" data-testid="fees">
    <div class="sub-head">
      <h2>${r.livemode ? t('mode.live') : t('mode.test')} · ${period} <span class="muted small">(${r.time_zone})</span></h2>
      <${ActionButton} testid="download-csv" onRun=${download}>⬇ ${t('statement.downloadCsv')}</${ActionButton}>
    </div>
    <p class="small muted">${t('statement.period')} <${Time} at=${r.period_start} /> – <${Time} at=${r.period_end} /> · ${t('common.asOf')} <${Time} at=${r.as_of} /></p>
    ${r.merchants.length === 0 ? html`<${Empty}>${t('fees.none')}</${Empty}>` : null}
    <div class="table-scroll"><table class="grid">
      <thead>
        <tr><th rowspan="2">${t('common.merchant')}</th><th colspan="3">${t('fees.charged')}</th><th colspan="3">${t('fees.refunded')}</th><th colspan="3">${t('fees.net')}</th></tr>
        <tr>${[0, 1].map(() => html`<th class="num">${t('statement.count')}</th><th class="num">${t('fees.fee')}</th><th class="num">${t('fees.vat')}</th>`)}
          <th class="num">${t('fees.fee')}</th><th class="num">${t('fees.vat')}</th><th class="num">${t('fees.total')}</th></tr>
      </thead>
      <tbody>${r.merchants.map((m) => html`<tr data-testid="fees-row" data-merchant=${m.merchant_id}>
        <td class="merchant-cell"><${Id} id=${m.merchant_id} to=${statementOf(m.merchant_id)} keep=${14} /> <span data-testid="fees-merchant-name"><${Named} text=${m.merchant_name} /></span> <span class="mono small muted">${m.white_label_id}</span></td><${FeeCells} l=${m} />
      </tr>`)}</tbody>
      <tfoot data-testid="fees-totals"><tr class="total"><td class="merchant-cell">${t('fees.totals')}</td><${FeeCells} l=${r.totals} /></tr></tfoot>
    </table></div>
  </div>`;
}
