// The review queue: GET /v1/bo/deposits, oldest first as the server orders it, one page
// at a time by the server's cursor (never everything: thousands may wait). Filters live
// in the hash (#/queue?status=&reason=&escalated=&merchant_id=&livemode=&limit=) so a
// view can be shared. Shows the total and the oldest age, each row's age, amount,
// reasons, escalation, the estimate and the four-eyes approvals so far, and its merchant by
// name before the id (merchant_name, as the claims list). A row opens the deposit page.
//
// data-testids: queue-filters, filter-status, filter-reason, filter-escalated,
//   filter-merchant, filter-livemode, filter-limit, refresh, queue-total, queue-oldest,
//   queue-table, queue-row (data-id), queue-row-merchant-name, review-reason (data-code), escalated-badge, prev-page,
//   next-page.

import { get } from '../api.js';
import { displayText, label, language, t } from '../i18n.js';
import { Age, Badge, Empty, formatAge, html, Id, MerchantName, Mode, ModeFilter, Money, navigate, Pager, ReviewReason, Time, usePageContext, usePageData, usePager } from '../ui.js';

const queueStatuses = ['under_review', 'awaiting_payment', 'slip_processing', 'awaiting_liquidity'];

export function QueuePage({ query }) {
  const { tables } = usePageContext();
  const filters = {
    status: query.status ?? 'under_review', reason: query.reason ?? '', escalated: query.escalated ?? '',
    merchant_id: query.merchant_id ?? '', livemode: query.livemode ?? '', limit: query.limit ?? '50',
  };
  const filterKey = JSON.stringify(filters);
  const pager = usePager(filterKey);
  const { data, loading, reload } = usePageData(() => get('/v1/bo/deposits', { ...filters, cursor: pager.cursor }), [filterKey, pager.cursor]);
  const set = (patch) => navigate('/queue', { ...filters, ...patch });

  return html`<section>
    <div class="page-head">
      <h1>${t('queue.title')}</h1>
      <div class="summary">
        <span data-testid="queue-total"><strong>${data ? data.total : loading ? '…' : '—'}</strong> ${t('queue.total')}</span>
        <span data-testid="queue-oldest">${t('queue.oldest')} <strong>${data?.oldest_age_seconds == null ? '—' : formatAge(data.oldest_age_seconds)}</strong></span>
        ${data?.as_of ? html`<span class="muted">${t('common.asOf')} <${Time} at=${data.as_of} /></span>` : null}
      </div>
    </div>
    <form class="filters" data-testid="queue-filters" onSubmit=${(e) => { e.preventDefault(); set(Object.fromEntries(new FormData(e.currentTarget))); }}>
      <label>${t('queue.status')}
        <select name="status" data-testid="filter-status" value=${filters.status} onChange=${(e) => set({ status: e.currentTarget.value })}>
          ${queueStatuses.map((s) => html`<option value=${s}>${label('status', s)}</option>`)}
        </select></label>
      <label>${t('queue.reason')}
        <select name="reason" data-testid="filter-reason" value=${filters.reason} onChange=${(e) => set({ reason: e.currentTarget.value })}>
          <option value="">${t('common.any')}</option>
          ${(tables.review_reasons ?? []).map((r) => html`<option value=${r.code} title=${`${r.code} — ${language() === 'th' ? r.th : r.en}`}>${label('reviewReason', r.code)}</option>`)}
        </select></label>
      <label>${t('queue.escalated')}
        <select name="escalated" data-testid="filter-escalated" value=${filters.escalated} onChange=${(e) => set({ escalated: e.currentTarget.value })}>
          <option value="">${t('common.any')}</option><option value="true">${t('common.yes')}</option><option value="false">${t('common.no')}</option>
        </select></label>
      <label>${t('common.merchant')}
        <input name="merchant_id" data-testid="filter-merchant" placeholder="mch_…" value=${filters.merchant_id} size="24" /></label>
      <${ModeFilter} value=${filters.livemode} set=${set} />
      <label>${t('common.perPage')}
        <select name="limit" data-testid="filter-limit" value=${filters.limit} onChange=${(e) => set({ limit: e.currentTarget.value })}>
          ${['20', '50', '100', '200'].map((n) => html`<option value=${n}>${n}</option>`)}
        </select></label>
      <button type="submit">${t('common.apply')}</button>
      <button type="button" class="ghost" data-testid="refresh" onClick=${reload}>${t('common.refresh')}</button>
    </form>
    ${data && data.data.length === 0 ? html`<${Empty}>${t('queue.empty')}</${Empty}>` : null}
    ${data && data.data.length > 0 ? html`<table class="grid clickable" data-testid="queue-table" aria-busy=${loading}>
      <thead><tr>
        <th>${t('queue.age')}</th><th>${t('common.deposit')}</th><th>${t('common.merchant')}</th><th class="num">${t('common.amount')}</th>
        <th>${t('queue.reasons')}</th><th>${t('queue.estimate')}</th><th>${t('queue.fourEyes')}</th><th>${t('common.created')}</th>
      </tr></thead>
      <tbody>${data.data.map((row) => html`<${QueueRow} row=${row} />`)}</tbody>
    </table>` : null}
    <${Pager} pager=${pager} nextCursor=${data?.next_cursor} />
  </section>`;
}

function QueueRow({ row }) {
  const review = row.review;
  const approvals = row.approvals ?? [];
  const needed = review?.four_eyes_required ? 2 : 1;
  const open = () => navigate(`/deposits/${encodeURIComponent(row.id)}`);
  return html`<tr data-testid="queue-row" data-id=${row.id} tabindex="0" onClick=${open} onKeyDown=${(e) => { if (e.key === 'Enter') open(); }}>
    <td><${Age} seconds=${row.age_seconds} /></td>
    <td><${Id} id=${row.id} to=${`#/deposits/${encodeURIComponent(row.id)}`} /> ${row.livemode === false ? html`<${Mode} livemode=${false} />` : null}</td>
    <td><${MerchantName} name=${row.merchant_name} testid="queue-row-merchant-name" /><${Id} id=${row.merchant_id} /></td>
    <td class="num"><${Money} minor=${row.amount_minor} /></td>
    <td class="reasons">
      ${review?.escalated ? html`<span data-testid="escalated-badge"><${Badge} tone="bad">${t('queue.escalatedBadge')}</${Badge}></span> ` : null}
      ${(review?.reasons ?? []).map((r) => html`<${ReviewReason} code=${r.code} text=${displayText(r)} /> `)}
      ${!review ? html`<span class="muted">${label('status', row.status)}</span>` : null}
    </td>
    <td>${row.estimated_resolution_bucket ? label('estimate', row.estimated_resolution_bucket) : '—'}</td>
    <td>${review ? html`<span class=${approvals.length > 0 ? 'badge info' : 'muted'} title=${approvals.join(', ')}>${approvals.length}/${needed}</span>` : '—'}</td>
    <td><${Time} at=${row.created_at} /></td>
  </tr>`;
}
