// Support's search: GET /v1/bo/search?q= — what a ticket names (an id, the merchant's
// reference, the end user's reference, a slip's bank transaction reference), found in any
// status, newest first. The header's box leads here; a row opens the order, claim or merchant.
//
// data-testids: search-table, search-row (data-id, data-object), search-empty.

import { get } from '../api.js';
import { t } from '../i18n.js';
import { Empty, FieldName, html, Id, Mode, Money, navigate, pageOfId, Status, Time, useLinkable, usePageData } from '../ui.js';

/** Each kind of result names its statuses in its own part of the dictionary (a claim's, a merchant's). */
const statusPrefix = { claim: 'claimStatus', merchant: 'merchantStatus' };

export function SearchPage({ query }) {
  const q = query.q ?? '';
  const { data } = usePageData(() => (q ? get('/v1/bo/search', { q, limit: '50' }) : Promise.resolve(null)), [q]);
  const linkable = useLinkable();
  // A hit whose page the operator's roles cannot read is listed, not linked (it would open on a 403).
  const href = (h) => linkable(pageOfId(h.id));
  return html`<section>
    <div class="page-head"><h1>${t('search.title')} <span class="mono">${q}</span></h1></div>
    ${!q || (data && data.data.length === 0) ? html`<div data-testid="search-empty"><${Empty}>${q ? t('search.none') : t('search.hint')}</${Empty}></div>` : null}
    ${data && data.data.length > 0 ? html`<table class="grid clickable" data-testid="search-table">
      <thead><tr><th>${t('search.object')}</th><th><${FieldName} name="id" /></th><th>${t('common.merchant')}</th><th>${t('common.mode')}</th><th>${t('common.status')}</th>
        <th class="num">${t('search.amount')}</th><th>${t('search.reference')}</th><th>${t('search.endUser')}</th><th>${t('common.created')}</th><th>${t('search.matchedOn')}</th></tr></thead>
      <tbody>${data.data.map((h) => html`<tr data-testid="search-row" data-id=${h.id} data-object=${h.object} tabindex=${href(h) ? '0' : undefined} onClick=${() => { if (href(h)) navigate(href(h).slice(1)); }}>
        <td>${t(`search.object.${h.object}`)}</td>
        <td>${href(h) ? html`<a href=${href(h)}><${Id} id=${h.id} keep=${14} /></a>` : html`<${Id} id=${h.id} keep=${14} />`}</td>
        <td><${Id} id=${h.merchant_id} keep=${14} /></td>
        <td>${h.livemode === null ? '—' : html`<${Mode} livemode=${h.livemode} />`}</td>
        <td><${Status} status=${h.status} prefix=${statusPrefix[h.object] ?? 'status'} /></td>
        <td class="num">${h.amount_minor === null ? '—' : html`<${Money} minor=${h.amount_minor} />`}</td>
        <td class="mono small">${h.merchant_reference ?? '—'}</td>
        <td class="mono small">${h.end_user_ref ?? '—'}</td>
        <td><${Time} at=${h.created_at} /></td>
        <td class="small">${t(`search.on.${h.matched_on}`)}</td>
      </tr>`)}</tbody>
    </table>` : null}
  </section>`;
}
