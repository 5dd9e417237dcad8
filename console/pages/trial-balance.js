// The trial balance (finance): GET /v1/bo/reports/trial-balance[?as_of=] — every ledger
// account at an instant (now, or a Bangkok time typed in), live and sandbox apart (two
// ledgers): postings, debit and credit turnover, balance and side, then the section's
// totals and whether it balances, exactly as the server computed them. A section where a
// line takes its balance from another (owed_by_payers from suspense) shows what each line
// reclassified beside its turnover. A merchant's
// account links to the merchant's page in that mode; suspense, reversals, adjustments and
// gateway_settlement link to their lines (account-lines) for the as-of day in Bangkok — the
// day's postings, its opening and its closing (the day's end, or now while it runs). "Download
// CSV" saves format=csv under the name the server gives.
//
// data-testids: trial-balance-form, trial-balance-as-of, show-trial-balance,
//   trial-balance-now, trial-balance, tb-section (data-livemode), tb-account
//   (data-account), tb-account-lines (a system account's link to its lines), tb-debt-claims (owed_by_payers' and owed_by_payees' link to their claims), tb-reclassified (when the section reclassifies), tb-totals, tb-balanced (data-balanced), download-csv.

import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { label, t } from '../i18n.js';
import { bangkokLocalEndToIso, bangkokToday, formatCount, isoToBangkokLocal } from '../format.js';
import { ActionButton, Badge, href, html, Mode, Money, Named, navigate, PageLink, saveReport, Time, usePageData } from '../ui.js';
import { accountLineAccounts } from './account-lines.js';

export function TrialBalancePage({ query }) {
  const params = query.as_of ? { as_of: query.as_of } : {};
  const key = JSON.stringify(params);
  const { data } = usePageData(() => get('/v1/bo/reports/trial-balance', params), [key]);
  return html`<section>
    <div class="page-head"><h1>${t('trialBalance.title')}</h1></div>
    <${AsOfForm} key=${key} asOf=${query.as_of ?? ''} />
    ${data ? html`<${TrialBalance} tb=${data} params=${params} />` : null}
  </section>`;
}

function AsOfForm({ asOf }) {
  const [local, setLocal] = useState(asOf ? isoToBangkokLocal(asOf) : '');
  const show = () => {
    const at = local ? bangkokLocalEndToIso(local) : null; // the typed second (or minute) whole
    navigate('/trial-balance', at ? { as_of: at } : {});
  };
  return html`<form class="filters" data-testid="trial-balance-form" onSubmit=${(e) => { e.preventDefault(); show(); }}>
    <label>${t('trialBalance.at')}<input type="datetime-local" step="1" data-testid="trial-balance-as-of" value=${local} onInput=${(e) => setLocal(e.currentTarget.value)} /></label>
    <button type="submit" data-testid="show-trial-balance">${t('statement.show')}</button>
    <button type="button" class="ghost" data-testid="trial-balance-now" onClick=${() => navigate('/trial-balance', {})}>${t('trialBalance.now')}</button>
  </form>`;
}

function TrialBalance({ tb, params }) {
  const download = () => saveReport('/v1/bo/reports/trial-balance', { ...params, format: 'csv' });
  return html`<div class="card" data-testid="trial-balance">
    <div class="sub-head">
      <h2>${t('common.asOf')} <${Time} at=${tb.as_of} /> <span class="muted small">${tb.currency}</span></h2>
      <${ActionButton} testid="download-csv" onRun=${download}>⬇ ${t('statement.downloadCsv')}</${ActionButton}>
    </div>
    ${tb.sections.map((s) => html`<${Section} s=${s} day=${bangkokToday(Date.parse(tb.as_of))} />`)}
  </div>`;
}

/** The claims behind a debts line (GET /v1/bo/claims' filter of the same name), in the section's mode. */
const debtClaims = { owed_by_payers: 'owed_by_payer', owed_by_payees: 'owed_by_payee' };

/**
 * A merchant's account names its merchant (by name, linked in the section's mode; the id beside it) and bucket; a system account its purpose,
 * a debts line linked to the claims whose payers or payees owe it (the claims list is of now, whatever instant the balance is at).
 */
function AccountName({ a, livemode, day }) {
  const filter = a.kind === 'merchant' ? undefined : debtClaims[a.name];
  if (a.kind !== 'merchant' && accountLineAccounts.includes(a.name)) {
    const to = href('/account-lines', { account: a.name, livemode, date: day });
    return html`<${PageLink} to=${to} testid="tb-account-lines">${label('systemAccount', a.name)}</${PageLink}> <span class="mono small muted">${a.account}</span>`;
  }
  if (filter) return html`<a href=${`#/claims?${filter}=true&livemode=${livemode}`} data-testid="tb-debt-claims">${label('systemAccount', a.name)}</a> <span class="mono small muted">${a.account}</span>`;
  if (a.kind !== 'merchant') return html`${label('systemAccount', a.name)} <span class="mono small muted">${a.account}</span>`;
  const to = `#/merchants/${encodeURIComponent(a.merchant_id)}?livemode=${livemode}`;
  return html`<a href=${to} data-testid="tb-merchant">${a.merchant_name ? html`<${Named} text=${a.merchant_name} />` : a.merchant_id}</a> <span class="mono small muted">${a.merchant_id}</span> · ${label('bucket', a.name)}`;
}

function Section({ s, day }) {
  const reclassified = s.accounts.some((a) => a.reclassified_minor !== 0);
  const blank = reclassified ? html`<td></td>` : null;
  return html`<section class="tb-section" data-testid="tb-section" data-livemode=${String(s.livemode)}>
    <h3><${Mode} livemode=${s.livemode} /> ${s.balanced
      ? html`<span data-testid="tb-balanced" data-balanced="true"><${Badge} tone="good">${t('trialBalance.balanced')}</${Badge}></span>`
      : html`<span data-testid="tb-balanced" data-balanced="false"><${Badge} tone="bad">${t('trialBalance.unbalanced')}</${Badge}></span>`}</h3>
    <table class="grid">
      <thead><tr><th>${t('trialBalance.account')}</th><th class="num">${t('trialBalance.postings')}</th><th class="num">${t('trialBalance.debit')}</th>
        <th class="num">${t('trialBalance.credit')}</th>${reclassified ? html`<th class="num">${t('trialBalance.reclassified')}</th>` : null}<th class="num">${t('trialBalance.balance')}</th><th>${t('trialBalance.side')}</th></tr></thead>
      <tbody>${s.accounts.map((a) => html`<tr data-testid="tb-account" data-account=${a.account}>
        <td><${AccountName} a=${a} livemode=${s.livemode} day=${day} /></td><td class="num">${formatCount(a.postings)}</td>
        <td class="num"><${Money} minor=${a.debit_minor} /></td><td class="num"><${Money} minor=${a.credit_minor} /></td>
        ${reclassified ? html`<td class="num" data-testid="tb-reclassified"><${Money} minor=${a.reclassified_minor} /></td>` : null}<td class="num"><${Money} minor=${a.balance_minor} /></td><td>${label('side', a.side)}</td>
      </tr>`)}</tbody>
      <tfoot data-testid="tb-totals">
        <tr class="total"><td>${t('trialBalance.turnover')}</td><td></td><td class="num"><${Money} minor=${s.total_debit_minor} /></td><td class="num"><${Money} minor=${s.total_credit_minor} /></td>${blank}<td></td><td></td></tr>
        <tr class="total"><td>${t('trialBalance.balances')}</td><td></td><td class="num"><${Money} minor=${s.total_debit_balance_minor} /></td><td class="num"><${Money} minor=${s.total_credit_balance_minor} /></td>${blank}<td></td><td></td></tr>
      </tfoot>
    </table>
  </section>`;
}
