// The merchant directory: GET /v1/bo/merchants?q=&white_label_id=&suspended= (search by
// name or exact id; the server's cursor). A row opens the merchant page. ops_admin
// onboards a merchant below it (merchant-new.js).
//
// data-testids: merchants-filters, filter-q, filter-white-label, filter-suspended, refresh,
//   merchants-table, merchant-row (data-id), prev-page, next-page.

import { get } from '../api.js';
import { t } from '../i18n.js';
import { Badge, Empty, html, Id, Named, navigate, Pager, Time, useCan, usePageData, usePager } from '../ui.js';
import { NewMerchant } from './merchant-new.js';

export function MerchantsPage({ query }) {
  const can = useCan();
  const filters = { q: query.q ?? '', white_label_id: query.white_label_id ?? '', suspended: query.suspended ?? '', limit: query.limit ?? '50' };
  const filterKey = JSON.stringify(filters);
  const pager = usePager(filterKey);
  const { data, loading, reload } = usePageData(() => get('/v1/bo/merchants', { ...filters, cursor: pager.cursor }), [filterKey, pager.cursor]);
  const set = (patch) => navigate('/merchants', { ...filters, ...patch });
  return html`<section>
    <div class="page-head"><h1>${t('merchants.title')}</h1></div>
    <form class="filters" data-testid="merchants-filters" onSubmit=${(e) => { e.preventDefault(); set(Object.fromEntries(new FormData(e.currentTarget))); }}>
      <label>${t('merchants.search')}<input name="q" type="search" data-testid="filter-q" placeholder=${t('merchants.searchHint')} value=${filters.q} size="30" /></label>
      <label>${t('merchants.whiteLabel')}<input name="white_label_id" data-testid="filter-white-label" placeholder="wl_…" value=${filters.white_label_id} size="24" /></label>
      <label>${t('merchants.suspended')}
        <select name="suspended" data-testid="filter-suspended" value=${filters.suspended} onChange=${(e) => set({ suspended: e.currentTarget.value })}>
          <option value="">${t('common.any')}</option><option value="true">${t('common.yes')}</option><option value="false">${t('common.no')}</option>
        </select></label>
      <input type="hidden" name="limit" value=${filters.limit} />
      <button type="submit">${t('common.search')}</button>
      <button type="button" class="ghost" data-testid="refresh" onClick=${reload}>${t('common.refresh')}</button>
    </form>
    ${data && data.data.length === 0 ? html`<${Empty}>${t('merchants.empty')}</${Empty}>` : null}
    ${data && data.data.length > 0 ? html`<table class="grid clickable" data-testid="merchants-table" aria-busy=${loading}>
      <thead><tr><th>${t('merchants.name')}</th><th>${t('merchants.id')}</th><th>${t('merchants.whiteLabel')}</th><th>${t('common.status')}</th><th>${t('common.created')}</th></tr></thead>
      <tbody>${data.data.map((m) => html`<tr data-testid="merchant-row" data-id=${m.id} tabindex="0" onClick=${() => navigate(`/merchants/${encodeURIComponent(m.id)}`)}>
        <td><a href=${`#/merchants/${encodeURIComponent(m.id)}`}><${Named} text=${m.name} /></a></td>
        <td><${Id} id=${m.id} keep=${14} /></td>
        <td><${Id} id=${m.white_label_id} keep=${14} /></td>
        <td>${m.suspended ? html`<${Badge} tone="bad">${t('merchants.suspendedBadge')}</${Badge}>` : html`<${Badge} tone="good">${t('merchants.active')}</${Badge}>`}</td>
        <td><${Time} at=${m.created_at} /></td>
      </tr>`)}</tbody>
    </table>` : null}
    <${Pager} pager=${pager} nextCursor=${data?.next_cursor} />
    ${can('POST /v1/bo/merchants') ? html`<${NewMerchant} />` : null}
  </section>`;
}
