// Activity — who did what, newest first, each list with the server's cursor:
//   - operator actions (finance, ops_admin): GET /v1/bo/reports/action-logs?subject=&outcome=&route=&since=
//     every back-office call and refused sign-in: the operator (unverified when the token
//     was refused), roles, route, the ids it named (linked), step-up, status and outcome,
//     and under a call that changed a setting its changes (`URL: before → after`, redacted;
//     each field named in the console's language, the API's name in its title);
//   - API requests (finance, support, ops_admin): GET /v1/bo/logs?request_id=&merchant_id=&route=&status=&since=
//     every request as logged (redacted on the server), its bodies one click away — what
//     support needs when a merchant quotes a request_id.
// Both leave out reads of the service clock (GET /v1/bo/clock, clock_reads=false: on a manual clock
// the console reads it on every navigation) unless the operator ticks "Show reads of the service
// clock" or filters by that route.
// The tab shown is `tab` (actions | requests) when the operator may read it, else the one
// they may; roles that may read neither never open the page (app.js says so instead).
//
// data-testids: activity-tab-actions, activity-tab-requests, activity-filters,
//   filter-subject, filter-outcome, filter-route, filter-request, filter-merchant,
//   filter-status, filter-since, filter-clock-reads, actions-table, action-row (data-id, data-outcome),
//   action-changes (a field each, data-field),
//   requests-table, request-row (data-request-id), request-bodies, prev-page, next-page.

import { get } from '../api.js';
import { label, t } from '../i18n.js';
import { bangkokLocalToIso, isoToBangkokLocal } from '../format.js';
import { Badge, Empty, FieldName, html, Id, Mode, navigate, pageOfId, Pager, Role, Status, Time, useCan, usePageData, usePager } from '../ui.js';

const paths = { actions: '/v1/bo/reports/action-logs', requests: '/v1/bo/logs' };
const outcomes = ['ok', 'refused', 'failed', 'refused_authorization', 'refused_authentication'];
const fields = {
  actions: ['subject', 'outcome', 'route', 'since', 'clock_reads'],
  requests: ['request_id', 'merchant_id', 'route', 'status', 'since', 'clock_reads'],
};
const clockRoute = '/v1/bo/clock';

/**
 * The query a tab's filters ask the server: reads of the service clock left out unless the operator
 * shows them (or filters by that route) — on a manual clock the console reads it on every
 * navigation, and those rows would bury the real calls.
 */
const queryOf = (filters) => ({ ...filters, clock_reads: filters.clock_reads === 'true' || filters.route === clockRoute ? '' : 'false' });

export function ActivityPage({ query }) {
  const can = useCan();
  const tabs = Object.keys(paths).filter((tab) => can(`GET ${paths[tab]}`));
  const tab = tabs.includes(query.tab) ? query.tab : tabs[0] ?? 'actions';
  const filters = Object.fromEntries(fields[tab].map((f) => [f, query[f] ?? '']));
  const set = (patch) => navigate('/activity', { tab, ...filters, ...patch });
  return html`<section>
    <div class="page-head"><h1>${t('activity.title')}</h1></div>
    <nav class="tabs" aria-label=${t('activity.title')}>${tabs.map((name) => html`<a href=${`#/activity?tab=${name}`} aria-current=${name === tab ? 'page' : undefined}
      class=${name === tab ? 'active' : ''} data-testid=${`activity-tab-${name}`}>${t(`activity.tab.${name}`)}</a>`)}</nav>
    <${Filters} tab=${tab} filters=${filters} set=${set} />
    ${tab === 'actions' ? html`<${Actions} filters=${filters} />` : html`<${Requests} filters=${filters} />`}
  </section>`;
}

function Filters({ tab, filters, set }) {
  const submit = (e) => {
    e.preventDefault();
    const form = Object.fromEntries(new FormData(e.currentTarget));
    set({ ...form, since: form.since ? bangkokLocalToIso(form.since) ?? '' : '', clock_reads: form.clock_reads === 'true' ? 'true' : '' });
  };
  const text = (name, placeholder, size = 20) => html`<label>${t(`activity.${name}`)}<input name=${name} data-testid=${`filter-${name.replace('_id', '')}`}
    placeholder=${placeholder} value=${filters[name]} size=${size} /></label>`;
  return html`<form class="filters" data-testid="activity-filters" key=${JSON.stringify(filters)} onSubmit=${submit}>
    ${tab === 'actions' ? html`
      ${text('subject', 'emp_…', 14)}
      <label>${t('activity.outcome')}<select name="outcome" data-testid="filter-outcome" value=${filters.outcome} onChange=${(e) => set({ outcome: e.currentTarget.value })}>
        <option value="">${t('common.any')}</option>${outcomes.map((o) => html`<option value=${o}>${label('actionOutcome', o)}</option>`)}</select></label>` : html`
      ${text('request_id', 'req_…', 26)}
      ${text('merchant_id', 'mch_…', 26)}
      <label>${t('activity.status')}<input name="status" data-testid="filter-status" inputmode="numeric" placeholder="422" value=${filters.status} size="4" /></label>`}
    ${text('route', '/v1/bo/deposits/:id/approve', 26)}
    <label>${t('activity.since')}<input type="datetime-local" name="since" data-testid="filter-since" value=${filters.since ? isoToBangkokLocal(filters.since) : ''} /></label>
    <label class="check-label"><input type="checkbox" name="clock_reads" value="true" data-testid="filter-clock-reads" checked=${filters.clock_reads === 'true'}
      onChange=${(e) => set({ clock_reads: e.currentTarget.checked ? 'true' : '' })} /> ${t('activity.clockReads')}</label>
    <button type="submit">${t('common.apply')}</button>
  </form>`;
}

/** The ids an action named, each linked to its page. */
function Targets({ ids }) {
  const values = Object.values(ids ?? {});
  if (values.length === 0) return html`<span class="muted">—</span>`;
  return html`${values.map((id, i) => html`${i > 0 ? ' ' : ''}<${Id} id=${String(id)} to=${pageOfId(id)} keep=${12} />`)}`;
}

/** A value of a change as the log keeps it: text as it is (a URL redacted on the server), none as —, a list as JSON. */
const changeValue = (v) => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

/** What a call changed, under its row, a line per field: `url: before → after` (a webhook endpoint's URL, its event types). */
function Changes({ changes }) {
  return html`<tr data-testid="action-changes"><td class="detail" colspan="9"><span class="small muted">${t('activity.changes')}</span>
    ${Object.entries(changes).map(([field, { before, after }]) => html`<div class="mono small" data-field=${field}><${FieldName} name=${field} />: ${changeValue(before)} → ${changeValue(after)}</div>`)}
  </td></tr>`;
}

function Actions({ filters }) {
  const filterKey = JSON.stringify(filters);
  const pager = usePager(filterKey);
  const { data, loading } = usePageData(() => get(paths.actions, { ...queryOf(filters), limit: '50', cursor: pager.cursor }), [filterKey, pager.cursor]);
  if (data && data.data.length === 0) return html`<${Empty}>${t('activity.none')}</${Empty}>`;
  return html`${data ? html`<table class="grid" data-testid="actions-table" aria-busy=${loading}>
      <thead><tr><th>${t('activity.at')}</th><th>${t('activity.operator')}</th><th>${t('activity.roles')}</th><th>${t('activity.route')}</th>
        <th>${t('activity.targets')}</th><th>${t('activity.stepUp')}</th><th class="num">${t('activity.status')}</th><th>${t('activity.outcome')}</th><th><${FieldName} name="request_id" /></th></tr></thead>
      <tbody>${data.data.map((r) => html`<tr data-testid="action-row" data-id=${r.id} data-outcome=${r.outcome}>
        <td><${Time} at=${r.at} /></td>
        <td class="mono">${r.subject ?? '—'} ${r.authenticated ? null : html`<${Badge} tone="bad" title=${t('activity.unverifiedTitle')}>${t('activity.unverified')}</${Badge}>`}</td>
        <td>${r.roles.map((role) => html`<${Role} role=${role} /> `)}</td>
        <td class="mono small">${r.method} ${r.route}</td>
        <td><${Targets} ids=${r.target_ids} /></td>
        <td>${r.step_up ? html`<span class="flag" role="img" aria-label=${t('stepup.title')} title=${t('stepup.title')}>⚑</span>` : ''}</td>
        <td class="num">${r.status}</td>
        <td><${Status} status=${r.outcome} prefix="actionOutcome" />${r.error_code ? html` <span class="mono small muted">${r.error_code}</span>` : null}</td>
        <td class="mono small" title=${`hash ${r.hash}`}>${r.request_id}</td>
      </tr>${r.changes ? html`<${Changes} changes=${r.changes} />` : null}`)}</tbody>
    </table>` : null}
    <${Pager} pager=${pager} nextCursor=${data?.next_cursor} />`;
}

/** A stored body (JSON text, redacted on the server) shown pretty when it parses. */
function Body({ text }) {
  if (text === null || text === undefined) return html`<span class="muted">—</span>`;
  try { return html`<pre>${JSON.stringify(JSON.parse(text), null, 2)}</pre>`; } catch { return html`<pre>${text}</pre>`; }
}

function Requests({ filters }) {
  const filterKey = JSON.stringify(filters);
  const pager = usePager(filterKey);
  const { data, loading } = usePageData(() => get(paths.requests, { ...queryOf(filters), limit: '50', cursor: pager.cursor }), [filterKey, pager.cursor]);
  if (data && data.data.length === 0) return html`<${Empty}>${t('activity.none')}</${Empty}>`;
  return html`${data ? html`<p class="small muted">${t('activity.retention', { days: data.retention_days })}</p>
    <table class="grid" data-testid="requests-table" aria-busy=${loading}>
      <thead><tr><th>${t('activity.at')}</th><th><${FieldName} name="request_id" /></th><th>${t('activity.who')}</th><th>${t('common.mode')}</th><th>${t('activity.route')}</th>
        <th class="num">${t('activity.status')}</th><th class="num"><${FieldName} name="duration_ms" /></th><th>${t('activity.bodies')}</th></tr></thead>
      <tbody>${data.data.map((r) => html`<tr data-testid="request-row" data-request-id=${r.request_id}>
        <td><${Time} at=${r.at} /></td>
        <td class="mono small">${r.request_id}</td>
        <td>${r.operator ? html`<span class="mono">${r.operator}</span>` : html`<${Id} id=${r.merchant_id} to=${r.merchant_id ? pageOfId(r.merchant_id, r.livemode) : undefined} keep=${12} />`}</td>
        <td>${r.livemode === null ? '—' : html`<${Mode} livemode=${r.livemode} />`}</td>
        <td class="mono small">${r.method} ${r.route}</td>
        <td class="num">${r.status}${r.error_code ? html` <span class="mono small muted">${r.error_code}</span>` : null}</td>
        <td class="num">${r.duration_ms}</td>
        <td>${r.request_body === null && r.response_body === null ? html`<span class="muted">—</span>` : html`<details data-testid="request-bodies"><summary>${t('activity.show')}</summary>
          <div class="small">${t('activity.request')}</div><${Body} text=${r.request_body} />
          <div class="small">${t('activity.response')}</div><${Body} text=${r.response_body} /></details>`}</td>
      </tr>`)}</tbody>
    </table>` : null}
    <${Pager} pager=${pager} nextCursor=${data?.next_cursor} />`;
}
