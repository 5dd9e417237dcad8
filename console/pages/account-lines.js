// The lines behind a system account's figure in the trial balance (finance):
// GET /v1/bo/reports/account-lines?account=&livemode=&date= (a day in Asia/Bangkok),
// &from=&to= for a period of days (both included), or &month= ("The date's month", or a
// period of days that is one whole month), for the accounts no merchant's statement
// explains: suspense, reversals, adjustments, gateway_settlement. The opening balance, each
// posting oldest first (its time in Bangkok, balance transaction, type, merchant, debit or
// credit, the running balance, who posted and who proposed it, its reason code and note),
// the period's debits and credits and the closing balance, exactly as the server computed
// them. The trial balance links each of those accounts here for its as-of day. "Download
// CSV" saves format=csv under the name the server gives (after a BOM, for Excel).
//
// data-testids: account-lines-form, account-lines-account, account-lines-livemode,
//   account-lines-date, account-lines-date-to, account-lines-month, show-account-lines,
//   account-lines, al-opening, al-line (data-id), al-totals, al-closing, download-csv.

import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { label, t } from '../i18n.js';
import { bangkokToday, reportPeriodOf, wholeMonthOf } from '../format.js';
import { ActionButton, CodeName, Empty, html, Id, Money, Named, navigate, pageOfId, saveReport, Time, usePageData } from '../ui.js';

/** The system accounts the report explains (core/finance/system-lines.ts systemLineAccounts). */
export const accountLineAccounts = ['suspense', 'reversals', 'adjustments', 'gateway_settlement'];

export function AccountLinesPage({ query }) {
  const params = { account: query.account ?? 'suspense', livemode: query.livemode ?? 'true', ...reportPeriodOf(query) };
  const key = JSON.stringify(params);
  const { data } = usePageData(() => get('/v1/bo/reports/account-lines', params), [key]);
  return html`<section>
    <div class="page-head"><h1>${t('accountLines.title')}</h1></div>
    <${AccountLinesForm} key=${key} params=${params} />
    ${data ? html`<${AccountLines} r=${data} params=${params} />` : null}
  </section>`;
}

function AccountLinesForm({ params }) {
  const [account, setAccount] = useState(params.account);
  const [livemode, setLivemode] = useState(params.livemode);
  const [from, setFrom] = useState(params.date ?? params.from ?? (params.month ? `${params.month}-01` : bangkokToday()));
  const [to, setTo] = useState(params.to ?? '');
  const base = () => ({ account, livemode });
  const show = (first, last) => {
    const month = wholeMonthOf(first, last);
    navigate('/account-lines', { ...base(), ...(month ? { month } : last && last !== first ? { from: first, to: last } : { date: first }) });
  };
  // The chosen date's month; the server counts a month's days up to its today.
  const thisMonth = () => navigate('/account-lines', { ...base(), month: (/^\d{4}-\d{2}/.test(from) ? from : bangkokToday()).slice(0, 7) });
  return html`<form class="filters" data-testid="account-lines-form" onSubmit=${(e) => { e.preventDefault(); show(from, to); }}>
    <label>${t('trialBalance.account')}<select data-testid="account-lines-account" value=${account} onChange=${(e) => setAccount(e.currentTarget.value)}>
      ${accountLineAccounts.map((a) => html`<option value=${a}>${label('systemAccount', a)}</option>`)}</select></label>
    <label>${t('common.mode')}<select data-testid="account-lines-livemode" value=${livemode} onChange=${(e) => setLivemode(e.currentTarget.value)}>
      <option value="true">${t('mode.live')}</option><option value="false">${t('mode.test')}</option></select></label>
    <label>${t('statement.date')}<input type="date" data-testid="account-lines-date" required value=${from} max=${bangkokToday()} onInput=${(e) => setFrom(e.currentTarget.value)} /></label>
    <label>${t('statement.dateTo')}<input type="date" data-testid="account-lines-date-to" value=${to} min=${from} max=${bangkokToday()} onInput=${(e) => setTo(e.currentTarget.value)} /></label>
    <button type="submit" data-testid="show-account-lines">${t('statement.show')}</button>
    <button type="button" class="ghost" data-testid="account-lines-month" onClick=${thisMonth}>${t('statement.thisMonth')}</button>
  </form>`;
}

/** A balance and its side (debit, credit), as the trial balance shows one. */
function Balance({ minor, side }) {
  return html`<${Money} minor=${minor} /> <span class="small muted">${label('side', side)}</span>`;
}

/** Who posted the line, and who proposed it when a second operator approved it. */
function Operators({ l }) {
  if (!l.posted_by && !l.proposed_by) return html`<span class="muted">—</span>`;
  return html`${l.posted_by ? html`<span class="mono">${l.posted_by}</span>` : null}${l.proposed_by
    ? html`<div class="small muted">${t('accountLines.proposedBy')} <span class="mono">${l.proposed_by}</span></div>` : null}`;
}

function Line({ l, livemode }) {
  return html`<tr data-testid="al-line" data-id=${l.balance_transaction_id}>
    <td><${Time} at=${l.created_at} /></td>
    <td class="mono small">${l.balance_transaction_id}</td>
    <td>${label('btxn.type', l.type)}</td>
    <td><${Id} id=${l.merchant_id} to=${pageOfId(l.merchant_id, livemode)} /></td>
    <td class="num">${l.debit_minor !== 0 ? html`<${Money} minor=${l.debit_minor} />` : null}</td>
    <td class="num">${l.credit_minor !== 0 ? html`<${Money} minor=${l.credit_minor} />` : null}</td>
    <td class="num"><${Money} minor=${l.balance_minor} /></td>
    <td><${Operators} l=${l} /></td>
    <td>${l.reason_code ? html`<${CodeName} prefix="reversal" code=${l.reason_code} />` : null}</td>
    <td class="note">${l.note ? html`<${Named} text=${l.note} />` : null}</td>
  </tr>`;
}

function AccountLines({ r, params }) {
  const download = () => saveReport('/v1/bo/reports/account-lines', { ...params, format: 'csv' });
  const period = r.date ?? r.month ?? `${r.date_from} – ${r.date_to}`;
  const blank = (n) => Array.from({ length: n }, () => html`<td></td>`);
  return html`<div class="card" data-testid="account-lines">
    <div class="sub-head">
      <h2>${label('systemAccount', r.name)} <span class="mono small muted">${r.account}</span> · ${r.livemode ? t('mode.live') : t('mode.test')} · ${period} <span class="muted small">(${r.time_zone})</span></h2>
      <${ActionButton} testid="download-csv" onRun=${download}>⬇ ${t('statement.downloadCsv')}</${ActionButton}>
    </div>
    <p class="small muted">${t('statement.period')} <${Time} at=${r.period_start} /> – <${Time} at=${r.period_end} /> · ${t('common.asOf')} <${Time} at=${r.as_of} /></p>
    <table class="grid">
      <thead><tr><th>${t('accountLines.time')}</th><th>${t('field.balance_transaction_id')}</th><th>${t('accountLines.type')}</th><th>${t('common.merchant')}</th>
        <th class="num">${t('trialBalance.debit')}</th><th class="num">${t('trialBalance.credit')}</th><th class="num">${t('trialBalance.balance')}</th>
        <th>${t('accountLines.postedBy')}</th><th>${t('field.reason_code')}</th><th>${t('field.note')}</th></tr></thead>
      <tbody>
        <tr data-testid="al-opening"><td colspan="6">${t('statement.opening')}</td><td class="num"><${Balance} minor=${r.opening_balance_minor} side=${r.opening_side} /></td>${blank(3)}</tr>
        ${r.data.length === 0 ? html`<tr><td colspan="10"><${Empty}>${t('accountLines.none')}</${Empty}></td></tr>` : null}
        ${r.data.map((l) => html`<${Line} l=${l} livemode=${r.livemode} />`)}
      </tbody>
      <tfoot>
        <tr class="total" data-testid="al-totals"><td colspan="4">${t('accountLines.totals', { count: r.count })}</td><td class="num"><${Money} minor=${r.debit_minor} /></td><td class="num"><${Money} minor=${r.credit_minor} /></td>${blank(4)}</tr>
        <tr class="total" data-testid="al-closing"><td colspan="6">${t('statement.closing')}</td><td class="num"><${Balance} minor=${r.closing_balance_minor} side=${r.closing_side} /></td>${blank(3)}</tr>
      </tfoot>
    </table>
  </div>`;
}
