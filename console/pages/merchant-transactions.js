// A merchant's balance transactions in one mode, newest first, on the merchant page under
// the wallet (GET /v1/bo/merchants/{id}/balance-transactions, the server's cursor, 20 a
// page): when, the type, the source (a link to the deposit, withdrawal or claim when the
// operator may open it; an adjustment's operator who posted it, and who proposed it when a
// second operator approved it), the amount with its direction, the three bucket deltas and the
// sequence. Sandbox rows are the merchant's current sandbox run, as the server gives them.
// Read-only; shown only when the operator's roles may call the route (merchant.js checks).
//
// data-testids: balance-transactions (the table; data-loaded="1" once read), btxn-row
//   (data-id), btxn-posted-by, btxn-proposed-by, btxn-prev-page, btxn-next-page.

import { get } from '../api.js';
import { label, t } from '../i18n.js';
import { Empty, html, Id, Money, pageOfId, Time, usePager, usePartData } from '../ui.js';

const pageSize = 20;

export function BalanceTransactions({ merchantId, livemode }) {
  const pager = usePager(`${merchantId}:${livemode}`);
  const page = usePartData(() => get(`/v1/bo/merchants/${encodeURIComponent(merchantId)}/balance-transactions`, { livemode, limit: pageSize, cursor: pager.cursor }),
    [merchantId, livemode, pager.cursor], { data: [], next_cursor: null });
  return html`<div class="card">
    <h2>${t('btxn.title')}</h2>
    <table class="grid" data-testid="balance-transactions" data-loaded=${page ? '1' : undefined}>
      <thead><tr><th>${t('btxn.time')}</th><th>${t('btxn.type')}</th><th>${t('btxn.source')}</th><th class="num">${t('btxn.amount')}</th>
        <th class="num">${t('bucket.available')}</th><th class="num">${t('bucket.pending_clearing')}</th><th class="num">${t('bucket.reserved')}</th><th class="num">${t('btxn.sequence')}</th></tr></thead>
      <tbody>${(page?.data ?? []).map((b) => html`<${Row} key=${b.id} b=${b} />`)}</tbody>
    </table>
    ${page && page.data.length === 0 ? html`<${Empty}>${t('btxn.empty')}</${Empty}>` : null}
    <div class="pager">
      <button type="button" data-testid="btxn-prev-page" disabled=${pager.page <= 1} onClick=${pager.prev}>‹ ${t('pager.prev')}</button>
      <span class="muted">${t('pager.page', { n: pager.page })}</span>
      <button type="button" data-testid="btxn-next-page" disabled=${!page?.next_cursor} onClick=${() => pager.next(page.next_cursor)}>${t('pager.next')} ›</button>
    </div>
  </div>`;
}

function Row({ b }) {
  const signed = b.direction === 'debit' ? -b.amount_minor : b.amount_minor;
  const delta = (minor) => (minor === 0 ? html`<span class="muted">—</span>` : html`<${Money} minor=${minor} signed />`);
  return html`<tr data-testid="btxn-row" data-id=${b.id}>
    <td><${Time} at=${b.created_at} /></td>
    <td>${label('btxn.type', b.type)}<div class="small muted mono" title=${b.id}>${b.id.slice(0, 16)}…</div></td>
    <td><span class="small muted" data-testid="btxn-source-type">${b.source?.type ? label('btxn.source', b.source.type) : ''}</span> <${Id} id=${b.source?.id} to=${pageOfId(b.source?.id)} keep=${16} />
      ${b.posted_by ? html`<div class="small muted">${t('btxn.postedBy')} <span class="mono" data-testid="btxn-posted-by">${b.posted_by}</span>${b.proposed_by
        ? html` · ${t('btxn.proposedBy')} <span class="mono" data-testid="btxn-proposed-by">${b.proposed_by}</span>` : null}</div>` : null}</td>
    <td class="num"><${Money} minor=${signed} signed /></td>
    <td class="num">${delta(b.bucket_deltas.available_minor)}</td>
    <td class="num">${delta(b.bucket_deltas.pending_clearing_minor)}</td>
    <td class="num">${delta(b.bucket_deltas.reserved_minor)}</td>
    <td class="num mono">${b.sequence}</td>
  </tr>`;
}
