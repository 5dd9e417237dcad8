// A withdrawing merchant's receiving accounts in one mode, on the merchant page for finance
// (GET /v1/bo/reports/receiving-accounts?merchant_id=&livemode=): per beneficiary account
// the payers were told to pay into, the legs, what they were told, what the verified slips
// showed and what was filled, pending and released legs, and whether the three agree; under
// each account its legs that differ or wait, with the reason the server gives (linked to
// the deposit and the withdrawal). "Download CSV" saves the server's CSV under its name.
// Read-only; shown only when the operator's roles may call the route (merchant.js checks).
//
// data-testids: receiving-accounts (data-loaded="1" once read), receiving-account
//   (data-account), receiving-account-name, receiving-agrees (data-agrees), receiving-leg (data-deposit,
//   data-reason), receiving-slip-shown (a declined order's slip amount), receiving-csv.

import { get } from '../api.js';
import { label, t } from '../i18n.js';
import { ActionButton, Badge, Empty, html, Id, Money, Named, pageOfId, saveReport, Time, usePartData } from '../ui.js';

const path = '/v1/bo/reports/receiving-accounts';

export function ReceivingAccounts({ merchantId, livemode }) {
  const query = { merchant_id: merchantId, livemode: String(livemode) };
  const data = usePartData(() => get(path, query), [merchantId, livemode], { data: [], has_more: false });
  return html`<div class="card" data-testid="receiving-accounts" data-loaded=${data ? '1' : undefined}>
    <div class="sub-head">
      <h2>${t('receiving.title')} ${data?.as_of ? html`<span class="muted small">${t('common.asOf')} <${Time} at=${data.as_of} /></span>` : null}</h2>
      ${data && data.data.length > 0 ? html`<${ActionButton} testid="receiving-csv" onRun=${() => saveReport(path, { ...query, format: 'csv' })}>⬇ ${t('statement.downloadCsv')}</${ActionButton}>` : null}
    </div>
    ${data && data.data.length === 0 ? html`<${Empty}>${t('receiving.none')}</${Empty}>` : null}
    ${data && data.data.length > 0 ? html`<table class="grid">
      <thead><tr><th>${t('receiving.account')}</th><th class="num">${t('receiving.legs')}</th><th class="num">${t('receiving.told')}</th>
        <th class="num">${t('receiving.verified')}</th><th class="num">${t('receiving.filled')}</th><th class="num">${t('receiving.pending')}</th>
        <th class="num">${t('receiving.released')}</th><th>${t('receiving.agreement')}</th></tr></thead>
      ${data.data.map((a) => html`<${Account} a=${a} />`)}
    </table>` : null}
    ${data?.has_more ? html`<p class="small muted">${t('receiving.more')}</p>` : null}
  </div>`;
}

function Account({ a }) {
  const key = `${a.bank_code}:${a.account_number_masked}`;
  return html`<tbody data-testid="receiving-account" data-account=${key}>
    <tr>
      <td><span class="mono">${a.bank_code} ${a.account_number_masked}</span> <span data-testid="receiving-account-name"><${Named} text=${a.account_name_masked} /></span></td>
      <td class="num">${a.legs}</td><td class="num"><${Money} minor=${a.told_minor} /></td><td class="num"><${Money} minor=${a.verified_minor} /></td>
      <td class="num"><${Money} minor=${a.filled_minor} /></td><td class="num">${a.pending_legs}</td><td class="num">${a.released_unpaid_legs}</td>
      <td data-testid="receiving-agrees" data-agrees=${String(a.agrees)}>${a.agrees
        ? html`<${Badge} tone="good">${t('receiving.agrees')}</${Badge}>`
        : html`<${Badge} tone="bad">${t('receiving.differs', { n: a.disagreeing_legs })}</${Badge}>`}</td>
    </tr>
    ${a.differences.map((d) => html`<tr class="sub-row" data-testid="receiving-leg" data-deposit=${d.deposit_id} data-reason=${d.reason}>
      <td class="small"><span class="badge muted reason" title=${d.reason}>${label('receivingReason', d.reason)}</span>
        <${Id} id=${d.deposit_id} to=${pageOfId(d.deposit_id)} keep=${12} /> → <${Id} id=${d.withdrawal_id} to=${pageOfId(d.withdrawal_id)} keep=${12} />
        <span class="muted"> · <${Time} at=${d.told_at} /></span>
        ${d.slip_shown_minor !== undefined ? html`<span class="muted" data-testid="receiving-slip-shown"> · ${t('receiving.slipShown')} <${Money} minor=${d.slip_shown_minor} /></span>` : null}</td>
      <td></td><td class="num"><${Money} minor=${d.told_minor} /></td><td class="num"><${Money} minor=${d.verified_minor} /></td>
      <td class="num"><${Money} minor=${d.filled_minor} /></td><td></td><td></td><td></td>
    </tr>`)}
  </tbody>`;
}
