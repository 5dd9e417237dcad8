// The dashboard: GET /v1/bo/dashboard?livemode=&merchant_id= — replica aggregates for the
// business day (from 00:00 Bangkok), never for money decisions: orders today by status,
// volumes, the review queue, deposits waiting for liquidity, webhook delivery health per
// endpoint (last 24 h) and slip-provider errors. Charts (charts.js, plain SVG) for volume
// per hour, review-queue age, webhook success rate per endpoint and slip-provider errors
// per hour: volumes_by_hour.hours and slip_provider_by_hour.hours (24 rows from 00:00
// Bangkok, labelled by hour_start) and review_queue.age_buckets ({label, count} with fixed
// edges); a series the answer does not have says so instead of a chart. Under the webhook
// chart, every endpoint of the mode with its status and its day's failed and pending
// counts, so a disabled or failing one is seen, not only a bar, with its disabled reason,
// a 410 flag and since when it fails (the dashboard answer carries them, for every role).
//
// data-testids: dashboard-filters, filter-livemode, filter-merchant, refresh,
//   figure-review-queue, figure-oldest, figure-liquidity, figure-volume-deposits,
//   figure-volume-withdrawals, figure-slip-error-rate, orders-deposits, orders-withdrawals,
//   chart-volume, chart-queue-age, chart-webhooks, chart-slip-errors (each hourly one's figures: <testid>-table), series-missing,
//   webhook-endpoints, webhook-endpoint (data-id, data-status, data-failing), webhook-failed,
//   webhook-pending, webhook-detail.

import { get } from '../api.js';
import { label, t } from '../i18n.js';
import { formatBaht, formatCount, formatPercent, formatTime } from '../format.js';
import { BarList, ColumnChart, LineChart, magnitude } from '../charts.js';
import { Badge, Empty, formatAge, html, Loading, Money, navigate, PageLink, pageOfId, Status, Time, usePageData } from '../ui.js';

export function DashboardPage({ query }) {
  const filters = { livemode: query.livemode ?? 'true', merchant_id: query.merchant_id ?? '' };
  const key = JSON.stringify(filters);
  const { data: d, error, reload } = usePageData(() => get('/v1/bo/dashboard', filters), [key]);
  const set = (patch) => navigate('/dashboard', { ...filters, ...patch });
  return html`<section>
    <div class="page-head">
      <h1>${t('dashboard.title')}</h1>
      <div class="summary">${d ? html`<span class="muted">${t('dashboard.daySince')} <${Time} at=${d.day_started_at} /></span>` : null}</div>
    </div>
    <form class="filters" data-testid="dashboard-filters" onSubmit=${(e) => { e.preventDefault(); set(Object.fromEntries(new FormData(e.currentTarget))); }}>
      <label>${t('common.mode')}<select name="livemode" data-testid="filter-livemode" value=${filters.livemode} onChange=${(e) => set({ livemode: e.currentTarget.value })}>
        <option value="true">${t('mode.live')}</option><option value="false">${t('mode.test')}</option></select></label>
      <label>${t('common.merchant')}<input name="merchant_id" data-testid="filter-merchant" placeholder=${t('dashboard.allMerchants')} value=${filters.merchant_id} size="28" /></label>
      <button type="submit">${t('common.apply')}</button>
      <button type="button" class="ghost" data-testid="refresh" onClick=${reload}>${t('common.refresh')}</button>
    </form>
    <p class="small muted">${t('dashboard.replicaNote')}</p>
    ${d ? html`<${Figures} d=${d} /><${Charts} d=${d} /><${Orders} d=${d} />` : html`<${Loading} error=${error} />`}
  </section>`;
}

function Figure({ testid, title, children, note }) {
  return html`<div class="figure" data-testid=${testid}><span class="figure-label">${title}</span><span class="figure-value">${children}</span>${note ? html`<span class="figure-note">${note}</span>` : null}</div>`;
}

function Figures({ d }) {
  const q = d.review_queue ?? {}, l = d.liquidity_waiting ?? {}, v = d.volumes_today ?? {}, s = d.slip_provider_today ?? {};
  return html`<div class="figures wide">
    <${Figure} testid="figure-review-queue" title=${t('dashboard.reviewQueue')}>${formatCount(q.size)}</${Figure}>
    <${Figure} testid="figure-oldest" title=${t('queue.oldest')}>${q.oldest_age_seconds == null ? '—' : formatAge(q.oldest_age_seconds)}</${Figure}>
    <${Figure} testid="figure-liquidity" title=${t('dashboard.liquidityWaiting')} note=${html`<${Money} minor=${l.amount_minor} />`}>${formatCount(l.deposits)}</${Figure}>
    <${Figure} testid="figure-volume-deposits" title=${t('dashboard.depositsReceived')}><${Money} minor=${v.deposits_received_minor} /></${Figure}>
    <${Figure} testid="figure-volume-withdrawals" title=${t('dashboard.withdrawalsFilled')}><${Money} minor=${v.withdrawals_filled_minor} /></${Figure}>
    <${Figure} testid="figure-slip-error-rate" title=${t('dashboard.slipErrorRate')} note=${t('dashboard.slipErrors', { n: formatCount(s.provider_unavailable), total: formatCount(s.slips) })}>${formatPercent(s.error_rate)}</${Figure}>
  </div>
  <p class="small muted">${t('common.asOf')} <${Time} at=${q.as_of ?? d.webhooks_last_24h?.as_of} />${q.journal_seq !== undefined ? html` · journal seq <span class="mono">${q.journal_seq}</span>` : null}</p>`;
}

/** An hour's label: its start in Bangkok time (HH:00). */
const hourLabel = (row) => formatTime(row.hour_start).slice(11, 16);

function Missing({ what }) {
  return html`<p class="empty" data-testid="series-missing">${t('dashboard.seriesMissing', { what })}</p>`;
}

/** Columns (or a line) per hour of the business day: `fields` name the numbers drawn; amounts and counts never share an axis. */
function HourlyChart({ series, fields, money, testid, kind, what, name }) {
  const rows = series?.hours;
  if (!Array.isArray(rows)) return html`<${Missing} what=${what} />`;
  // A figure is told exactly (its title, the table a screen reader reads); the axis rounds to whole baht.
  const drawn = fields.map((field) => ({ key: field, name: label('series', field), values: rows.map((r) => r[field] ?? 0), format: money ? (v) => formatBaht(v) : undefined }));
  const axis = (v) => (money ? formatBaht(Math.round(v)).replace(/\.\d\d$/, '') : formatCount(Math.round(v)));
  const Chart = kind === 'line' ? LineChart : ColumnChart;
  // An empty day: ฿0 · ฿1 · ฿2 (or 0 · 1 · 2), not three labels of 0 (the axis shows whole baht and whole counts).
  return html`<div><${Chart} testid=${testid} name=${name} labelsName=${t('dashboard.hour')} labels=${rows.map(hourLabel)} series=${drawn} format=${axis} least=${money ? 200 : 2} />
    <div class="legend">${drawn.map((s, k) => html`<span class=${`key series-${k}`}>${s.name}</span>`)}</div></div>`;
}

function Charts({ d }) {
  const endpoints = d.webhooks_last_24h?.endpoints ?? [];
  const queueAge = d.review_queue?.age_buckets;
  return html`<div class="columns charts">
    <div class="card"><h2>${t('dashboard.volumeByHour')}</h2><${HourlyChart} series=${d.volumes_by_hour} fields=${['deposits_settled_minor', 'withdrawals_filled_minor']} money testid="chart-volume" what="volumes_by_hour" name=${t('dashboard.volumeByHour')} /></div>
    <div class="card"><h2>${t('dashboard.queueAge')}</h2>
      ${!Array.isArray(queueAge) ? html`<${Missing} what="review_queue.age_buckets" />`
        : html`<${BarList} testid="chart-queue-age" name=${t('dashboard.queueAge')} rows=${queueAge.map((r) => ({ label: label('queueAge', r.label), value: r.count, text: formatCount(r.count), tone: 'series-2' }))} />`}
    </div>
    <div class="card"><h2>${t('dashboard.webhookSuccess')}</h2>
      ${endpoints.length === 0 ? html`<${Empty}>${t('dashboard.noEndpoints')}</${Empty}>` : html`<${BarList} testid="chart-webhooks" name=${t('dashboard.webhookSuccess')} max=${1} rows=${endpoints.map((e) => {
        const rate = e.failure_rate == null ? null : 1 - e.failure_rate;
        return {
          label: shortUrl(e.url), value: rate ?? 0, text: rate === null ? '—' : formatPercent(rate), tone: rate === null ? 'series-muted' : rate >= 0.95 ? 'series-good' : rate >= 0.8 ? 'series-warn' : 'series-bad',
          title: `${e.url} (${e.endpoint_id}) — ${t('dashboard.webhookCounts', { delivered: e.delivered, failed: e.failed, pending: e.pending })}`,
        };
      })} />`}
      ${endpoints.length === 0 ? null : html`<${WebhookEndpoints} endpoints=${endpoints} livemode=${d.livemode} />`}
    </div>
    <div class="card"><h2>${t('dashboard.slipErrorsByHour')}</h2><${HourlyChart} series=${d.slip_provider_by_hour} fields=${['slips', 'provider_errors']} kind="line" testid="chart-slip-errors" what="slip_provider_by_hour" name=${t('dashboard.slipErrorsByHour')} /></div>
  </div>`;
}

/** Each endpoint's status and its day's failed and pending deliveries, with why it is disabled or flagged and since when it fails. */
function WebhookEndpoints({ endpoints, livemode }) {
  return html`<table class="grid small" data-testid="webhook-endpoints">
    <thead><tr><th>${t('webhooks.url')}</th><th>${t('common.status')}</th><th class="num">${t('dashboard.webhookFailed')}</th><th class="num">${t('dashboard.webhookPending')}</th></tr></thead>
    <tbody>${endpoints.map((e) => {
      const failing = e.failing_since !== null;
      const to = `${pageOfId(e.merchant_id, livemode)}&endpoint=${encodeURIComponent(e.endpoint_id)}`;
      return html`<tr data-testid="webhook-endpoint" data-id=${e.endpoint_id} data-status=${e.status} data-failing=${String(failing)}>
        <td class="endpoint"><${PageLink} to=${to} cls="mono">${shortUrl(e.url)}</${PageLink}> <span class="muted mono" title=${e.endpoint_id}>${e.endpoint_id.slice(0, 14)}…</span>
          <div data-testid="webhook-detail">${e.disabled_reason ? html`<div title=${e.disabled_reason}>${label('disabledReason', e.disabled_reason)}</div>` : null}
            ${failing ? html`<div class="muted">${t('webhooks.failingSince')} <${Time} at=${e.failing_since} /> · ${t('dashboard.webhookFailuresSince', { n: formatCount(e.failed_attempts_since_last_success) })}</div>` : null}</div></td>
        <td><${Status} status=${e.status} />${failing ? html` <${Badge} tone="bad">${t('dashboard.webhookFailing')}</${Badge}>` : null}${e.flagged ? html` <${Badge} tone="warn">410</${Badge}>` : null}</td>
        <td class="num" data-testid="webhook-failed">${formatCount(e.failed)}</td>
        <td class="num" data-testid="webhook-pending">${formatCount(e.pending)}</td>
      </tr>`;
    })}</tbody>
  </table>`;
}

function shortUrl(url) {
  const text = String(url ?? '').replace(/^https?:\/\//, '');
  return text.length > 30 ? `${text.slice(0, 29)}…` : text;
}

function Orders({ d }) {
  const table = (rows, testid) => (rows.length === 0 ? html`<${Empty}>${t('dashboard.noOrders')}</${Empty}>` : html`<table class="grid" data-testid=${testid}>
    <thead><tr><th>${t('common.status')}</th><th class="num">${t('statement.count')}</th><th class="num">${t('common.amount')}</th></tr></thead>
    <tbody>${rows.map((r) => html`<tr><td><${Status} status=${r.status} /></td><td class="num">${formatCount(r.count)}</td><td class="num"><${Money} minor=${r.amount_minor} /></td></tr>`)}</tbody>
  </table>`);
  return html`<div class="columns">
    <div class="card"><h2>${t('dashboard.depositsToday')}</h2>${table(d.orders_today?.deposits ?? [], 'orders-deposits')}</div>
    <div class="card"><h2>${t('dashboard.withdrawalsToday')}</h2>${table(d.orders_today?.withdrawals ?? [], 'orders-withdrawals')}</div>
  </div>`;
}
