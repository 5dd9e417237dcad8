// The dashboard: GET /v1/bo/dashboard?livemode=&merchant_id= — replica aggregates for the
// business day (from 00:00 Bangkok), never for money decisions: orders today by status,
// volumes, the review queue, deposits waiting for liquidity, webhook delivery health per
// endpoint (last 24 h) and slip-provider errors. Charts (charts.js, plain SVG) for volume
// per hour, review-queue age, webhook success rate per endpoint and slip-provider errors
// per hour. The hourly series (volumes_by_hour, review_queue.age_buckets,
// slip_provider_by_hour) are drawn from whatever rows the answer carries — a list of
// objects with a time (or bucket) field and numeric fields — and a series the answer does
// not have says so instead of a chart.
//
// data-testids: dashboard-filters, filter-livemode, filter-merchant, refresh,
//   figure-review-queue, figure-oldest, figure-liquidity, figure-volume-deposits,
//   figure-volume-withdrawals, figure-slip-error-rate, orders-deposits, orders-withdrawals,
//   chart-volume, chart-queue-age, chart-webhooks, chart-slip-errors, series-missing.

import { get } from '../api.js';
import { label, t } from '../i18n.js';
import { formatBaht, formatCount, formatPercent, formatTime } from '../format.js';
import { BarList, ColumnChart, LineChart, magnitude } from '../charts.js';
import { Empty, formatAge, html, Loading, Money, navigate, Status, Time, usePageData } from '../ui.js';

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

/** The rows of a series in whatever list shape the answer has, or null when it is absent. */
export function seriesRows(series) {
  if (series === undefined || series === null) return null;
  if (Array.isArray(series)) return series;
  for (const k of ['data', 'hours', 'buckets', 'series', 'rows']) if (Array.isArray(series[k])) return series[k];
  if (typeof series === 'object') return Object.entries(series).filter(([, v]) => typeof v === 'number').map(([bucket, count]) => ({ bucket, count }));
  return null;
}

const timeKeys = ['hour', 'hour_start', 'start', 'starts_at', 'at', 'from', 'bucket', 'label', 'le_seconds', 'max_age_seconds', 'age_seconds_max', 'under_seconds'];

/** Label of a row: an instant becomes its Bangkok hour (HH:00), a bound in seconds an age, anything else its text. */
function rowLabel(row) {
  const k = timeKeys.find((key) => row[key] !== undefined && row[key] !== null);
  if (k === undefined) return '';
  const v = row[k];
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v)) return formatTime(v).slice(11, 16);
  if (typeof v === 'number' && /seconds/.test(k)) return `≤ ${formatAge(v)}`;
  return typeof v === 'string' ? label('ageBucket', v) : String(v);
}

/** The numeric fields of the rows (everything but the label fields), as chart series. */
function numericSeries(rows) {
  const names = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((k) => !timeKeys.includes(k) && k !== 'as_of' && k !== 'journal_seq'
    && rows.some((r) => typeof r[k] === 'number' || (typeof r[k] === 'string' && /^-?\d+$/.test(r[k]))));
  return names.map((name) => ({
    key: name, name: label('series', name), values: rows.map((r) => r[name] ?? 0),
    format: /_minor$/.test(name) ? (v) => formatBaht(v) : (v) => formatCount(magnitude(v)),
  }));
}

function Missing({ what }) {
  return html`<p class="empty" data-testid="series-missing">${t('dashboard.seriesMissing', { what })}</p>`;
}

function HourlyChart({ rows, testid, kind, what }) {
  if (rows === null) return html`<${Missing} what=${what} />`;
  if (rows.length === 0) return html`<${Empty}>${t('dashboard.noData')}</${Empty}>`;
  const all = numericSeries(rows);
  if (all.length === 0) return html`<${Missing} what=${what} />`;
  // One axis: amounts and counts do not share it, so when the rows have amounts only those are drawn.
  const money = all.some((s) => /_minor$/.test(s.key));
  const series = money ? all.filter((s) => /_minor$/.test(s.key)) : all;
  const axis = (v) => (money ? formatBaht(Math.round(v)).replace(/\.\d\d$/, '') : formatCount(Math.round(v)));
  const Chart = kind === 'line' ? LineChart : ColumnChart;
  return html`<div><${Chart} testid=${testid} labels=${rows.map(rowLabel)} series=${series} format=${axis} />
    <div class="legend">${series.map((s, k) => html`<span class=${`key series-${k}`}>${s.name}</span>`)}</div></div>`;
}

function Charts({ d }) {
  const endpoints = d.webhooks_last_24h?.endpoints ?? [];
  const queueAge = seriesRows(d.review_queue?.age_buckets);
  return html`<div class="columns charts">
    <div class="card"><h2>${t('dashboard.volumeByHour')}</h2><${HourlyChart} rows=${seriesRows(d.volumes_by_hour)} testid="chart-volume" what="volumes_by_hour" /></div>
    <div class="card"><h2>${t('dashboard.queueAge')}</h2>
      ${queueAge === null ? html`<${Missing} what="review_queue.age_buckets" />` : queueAge.length === 0 ? html`<${Empty}>${t('dashboard.noData')}</${Empty}>`
        : html`<${BarList} testid="chart-queue-age" rows=${queueAge.map((r) => {
          const count = r.count ?? r.deposits ?? r.size ?? numericSeries([r])[0]?.values[0] ?? 0;
          return { label: rowLabel(r), value: magnitude(count), text: formatCount(magnitude(count)), tone: 'series-2' };
        })} />`}
    </div>
    <div class="card"><h2>${t('dashboard.webhookSuccess')}</h2>
      ${endpoints.length === 0 ? html`<${Empty}>${t('dashboard.noEndpoints')}</${Empty}>` : html`<${BarList} testid="chart-webhooks" max=${1} rows=${endpoints.map((e) => {
        const rate = e.failure_rate == null ? null : 1 - e.failure_rate;
        return {
          label: shortUrl(e.url), value: rate ?? 0, text: rate === null ? '—' : formatPercent(rate), tone: rate === null ? 'series-muted' : rate >= 0.95 ? 'series-good' : rate >= 0.8 ? 'series-warn' : 'series-bad',
          title: `${e.url} (${e.endpoint_id}) — ${t('dashboard.webhookCounts', { delivered: e.delivered, failed: e.failed, pending: e.pending })}`,
        };
      })} />`}
    </div>
    <div class="card"><h2>${t('dashboard.slipErrorsByHour')}</h2><${HourlyChart} rows=${seriesRows(d.slip_provider_by_hour)} testid="chart-slip-errors" kind="line" what="slip_provider_by_hour" /></div>
  </div>`;
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
