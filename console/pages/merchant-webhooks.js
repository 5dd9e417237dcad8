// A merchant's webhook endpoints in one mode and the delivery log of the chosen one
// (GET /v1/bo/webhooks/{endpoint}/deliveries, newest first, status filter, the server's
// cursor). A delivery row opens its attempts (GET …/deliveries/{id}). Replay's only_failed
// is the server's: the events this endpoint never received since it was created (failed,
// canceled, or never sent while disabled) with none on its way — a pending delivery is
// still being tried, so its event is left out; the label says so. ops_admin may
// resend one delivery ⚑ (step-up and Idempotency-Key; the server's quota of 10 a minute
// per endpoint answers 429, shown in the banner), replay a time range ⚑, and disable (a
// second click, "Confirm disable", sends it: the merchant's events stop at once) or
// enable the endpoint, delete a disabled one for good (a second click, "Confirm delete"; the
// server refuses an enabled one), change the chosen one's URL or event types (POST
// /v1/bo/webhooks/{id}: same id and history), and register a new one in the page's mode
// (POST /v1/bo/merchants/{id}/webhook-endpoints; the server decides what URL it takes). The
// chosen endpoint and filter live in the hash (endpoint=, delivery_status=).
//
// data-testids: endpoints, endpoint-row (data-id), select-endpoint, endpoint-disable,
//   endpoint-disable-confirm, endpoint-disable-cancel, endpoint-enable, endpoint-delete,
//   endpoint-delete-confirm, endpoint-delete-cancel, deliveries (data-loaded="1" once read), delivery-status-filter,
//   delivery-row (data-id), delivery-attempts, resend, replay-form, replay-after,
//   replay-before, replay-only-failed, replay-types, replay, replay-result,
//   deliveries-prev-page, deliveries-next-page, new-endpoint, new-endpoint-url,
//   new-endpoint-types, create-endpoint, edit-endpoint, edit-endpoint-url,
//   edit-endpoint-types, save-endpoint.

import { useEffect, useState } from 'preact/hooks';
import { del, get, post } from '../api.js';
import { label, t } from '../i18n.js';
import { bangkokLocalToIso, isoToBangkokLocal, serviceNow } from '../format.js';
import { ActionButton, Badge, Empty, FieldName, html, navigate, Status, StepUpFlag, Time, useCan, useConfirmation, usePageContext, usePager, usePartData } from '../ui.js';

const deliveryStatuses = ['pending', 'delivered', 'failed', 'canceled'];

export function Webhooks({ merchantId, livemode, endpoints: listed, query, onCreated }) {
  const can = useCan();
  // An enable or disable answers the endpoint's new status: the row and the delivery log both follow it.
  const [statusOf, setStatusOf] = useState({});
  const endpoints = listed.map((e) => (statusOf[e.id] ? { ...e, status: statusOf[e.id] } : e));
  const chosen = endpoints.find((e) => e.id === query.endpoint) ?? endpoints[0];
  const choose = (endpointId) => navigate(`/merchants/${encodeURIComponent(merchantId)}`, { ...query, livemode, endpoint: endpointId, delivery_status: undefined });
  return html`<div class="card">
    <h2>${t('webhooks.endpoints')}</h2>
    ${endpoints.length === 0 ? html`<${Empty}>${t('webhooks.noEndpoints')}</${Empty}>` : html`<table class="grid" data-testid="endpoints">
      <thead><tr><th><span class="visually-hidden">${t('webhooks.shown')}</span></th><th>${t('webhooks.url')}</th><th>${t('common.status')}</th><th>${t('webhooks.events')}</th><th>${t('webhooks.lastSuccess')}</th><th>${t('webhooks.failingSince')}</th><th><span class="visually-hidden">${t('common.actions')}</span></th></tr></thead>
      <tbody>${endpoints.map((e) => html`<${EndpointRow} key=${e.id} e=${e} chosen=${chosen?.id === e.id} onChoose=${() => choose(e.id)}
        onStatus=${(status) => (status === 'deleted' ? onCreated() : setStatusOf({ ...statusOf, [e.id]: status }))} />`)}</tbody>
    </table>`}
    ${chosen ? html`<${Deliveries} key=${`${chosen.id}:${query.delivery_status ?? ''}`} endpoint=${chosen} status=${query.delivery_status ?? ''}
      onStatus=${(s) => navigate(`/merchants/${encodeURIComponent(merchantId)}`, { ...query, livemode, endpoint: chosen.id, delivery_status: s })} />
      <${Replay} endpoint=${chosen} />
      ${chosen.type !== 'cli' && can('POST /v1/bo/webhooks/:endpointId') ? html`<${EditEndpoint} key=${chosen.id} endpoint=${chosen} onSaved=${onCreated} />` : null}` : null}
    ${can('POST /v1/bo/merchants/:id/webhook-endpoints') ? html`<${NewEndpoint} merchantId=${merchantId} livemode=${livemode} onCreated=${onCreated} />` : null}
  </div>`;
}

/** A new endpoint in the page's mode: its URL and, when it should not take every event, the types it subscribes to. */
function NewEndpoint({ merchantId, livemode, onCreated }) {
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState('');
  const create = async () => {
    const eventTypes = types.split(/[\s,]+/).filter(Boolean);
    await post(`/v1/bo/merchants/${encodeURIComponent(merchantId)}/webhook-endpoints`, { url: url.trim(), livemode, ...(eventTypes.length > 0 ? { event_types: eventTypes } : {}) });
    setUrl('');
    setTypes('');
    return true;
  };
  return html`<details class="subcard" data-testid="new-endpoint">
    <summary>${t('webhooks.newEndpoint')}</summary>
    <div class="form-row">
      <label>${t('webhooks.url')}<input type="url" data-testid="new-endpoint-url" placeholder="https://merchant.example/webhooks" size="40" value=${url} onInput=${(e) => setUrl(e.currentTarget.value)} /></label>
      <label>${t('webhooks.eventTypes')}<input data-testid="new-endpoint-types" placeholder=${t('webhooks.eventTypesHint')} size="30" value=${types} onInput=${(e) => setTypes(e.currentTarget.value)} /></label>
    </div>
    <p class="small muted">${t('webhooks.newEndpointHelp')}</p>
    <div class="buttons"><${ActionButton} testid="create-endpoint" tone="primary" onRun=${create} done=${onCreated}>${t('webhooks.create')}</${ActionButton}></div>
  </details>`;
}

/** The chosen endpoint's URL and subscription, changed in place (an empty types field: every event). */
function EditEndpoint({ endpoint, onSaved }) {
  const [url, setUrl] = useState(endpoint.url);
  const [types, setTypes] = useState(endpoint.event_types?.join(', ') ?? '');
  const save = async () => {
    const eventTypes = types.split(/[\s,]+/).filter(Boolean);
    const shown = endpoint.event_types?.join(',') ?? '';
    const body = { ...(url.trim() !== endpoint.url ? { url: url.trim() } : {}), ...(eventTypes.join(',') !== shown ? { event_types: eventTypes.length > 0 ? eventTypes : null } : {}) };
    if (Object.keys(body).length === 0) return true; // nothing changed: nothing sent
    await post(`/v1/bo/webhooks/${encodeURIComponent(endpoint.id)}`, body);
    return true;
  };
  return html`<details class="subcard" data-testid="edit-endpoint">
    <summary>${t('webhooks.editEndpoint')} <span class="mono small muted">${endpoint.id}</span></summary>
    <div class="form-row">
      <label>${t('webhooks.url')}<input type="url" data-testid="edit-endpoint-url" size="40" value=${url} onInput=${(e) => setUrl(e.currentTarget.value)} /></label>
      <label>${t('webhooks.eventTypes')}<input data-testid="edit-endpoint-types" placeholder=${t('webhooks.eventTypesHint')} size="30" value=${types} onInput=${(e) => setTypes(e.currentTarget.value)} /></label>
    </div>
    <p class="small muted">${t('webhooks.editEndpointHelp')}</p>
    <div class="buttons"><${ActionButton} testid="save-endpoint" tone="primary" onRun=${save} done=${onSaved}>${t('webhooks.save')}</${ActionButton}></div>
  </details>`;
}

function EndpointRow({ e, chosen, onChoose, onStatus }) {
  const can = useCan();
  const status = e.status;
  const confirmation = useConfirmation();
  const toggle = async (verb) => {
    const path = `/v1/bo/webhooks/${encodeURIComponent(e.id)}`;
    const answer = verb === 'delete' ? await del(path) : await post(`${path}/${verb}`, {});
    confirmation.close();
    onStatus(answer.status); // deleted: the list is read again, without it
  };
  return html`<tr data-testid="endpoint-row" data-id=${e.id} class=${chosen ? 'chosen' : ''}>
    <td><input type="radio" name="endpoint" data-testid="select-endpoint" checked=${chosen} onChange=${onChoose} aria-label=${e.id} /></td>
    <td><div class="mono url">${e.url}</div><div class="small muted mono">${e.id}</div></td>
    <td><${Status} status=${status} />${e.flagged ? html` <${Badge} tone="bad" title=${e.flag_reason ?? ''}>${t('webhooks.flagged')}</${Badge}>` : null}
      ${e.disabled_reason ? html`<div class="small muted" title=${e.disabled_reason}>${label('disabledReason', e.disabled_reason)}</div>` : null}</td>
    <td class="small">${e.event_types === null ? t('webhooks.allEvents') : e.event_types.join(', ')}</td>
    <td><${Time} at=${e.last_success_at} /></td>
    <td>${e.failing_since ? html`<${Time} at=${e.failing_since} /> <span class="small muted">(${e.failed_attempts_since_last_success})</span>` : '—'}</td>
    <td class="row-actions" onKeyDown=${confirmation.value !== null ? confirmation.onKeyDown : undefined}>
      ${status === 'enabled' && can('POST /v1/bo/webhooks/:endpointId/disable') ? (confirmation.value !== null
        ? html`<span class="small muted">${t('webhooks.disableWarning')}</span>
          <${ActionButton} testid="endpoint-disable-confirm" buttonRef=${confirmation.confirmRef} tone="danger" onRun=${() => toggle('disable')}>${t('webhooks.confirmDisable')}</${ActionButton}>
          <button type="button" class="ghost" data-testid="endpoint-disable-cancel" onClick=${confirmation.cancel}>${t('common.cancel')}</button>`
        : html`<button type="button" class="action danger" data-testid="endpoint-disable" ref=${confirmation.openerRef()} onClick=${() => confirmation.open()}>${t('webhooks.disable')}</button>`) : null}
      ${status === 'disabled' && can('POST /v1/bo/webhooks/:endpointId/enable') && confirmation.value === null ? html`<${ActionButton} testid="endpoint-enable" onRun=${() => toggle('enable')}>${t('webhooks.enable')}</${ActionButton}>` : null}
      ${status === 'disabled' && e.type !== 'cli' && can('DELETE /v1/bo/webhooks/:endpointId') ? (confirmation.value !== null
        ? html`<span class="small muted">${t('webhooks.deleteWarning')}</span>
          <${ActionButton} testid="endpoint-delete-confirm" buttonRef=${confirmation.confirmRef} tone="danger" onRun=${() => toggle('delete')}>${t('webhooks.confirmDelete')}</${ActionButton}>
          <button type="button" class="ghost" data-testid="endpoint-delete-cancel" onClick=${confirmation.cancel}>${t('common.cancel')}</button>`
        : html`<button type="button" class="action danger" data-testid="endpoint-delete" ref=${confirmation.openerRef()} onClick=${() => confirmation.open()}>${t('webhooks.delete')}</button>`) : null}
    </td>
  </tr>`;
}

function Deliveries({ endpoint, status, onStatus }) {
  const pager = usePager(`${endpoint.id}:${status}`);
  const [open, setOpen] = useState(null);
  const [generation, setGeneration] = useState(0);
  const page = usePartData(() => get(`/v1/bo/webhooks/${encodeURIComponent(endpoint.id)}/deliveries`, { limit: 20, status, cursor: pager.cursor }),
    [endpoint.id, status, pager.cursor, generation], { data: [], next_cursor: null });
  return html`<div class="subcard">
    <div class="sub-head">
      <h3>${t('webhooks.deliveries')} <span class="mono small muted">${endpoint.id}</span></h3>
      <label class="inline">${t('common.status')}
        <select data-testid="delivery-status-filter" value=${status} onChange=${(e) => onStatus(e.currentTarget.value)}>
          <option value="">${t('common.any')}</option>${deliveryStatuses.map((s) => html`<option value=${s}>${label('status', s)}</option>`)}
        </select></label>
      <button type="button" class="ghost" onClick=${() => setGeneration(generation + 1)}>${t('common.refresh')}</button>
    </div>
    <table class="grid" data-testid="deliveries" data-loaded=${page ? '1' : undefined}>
      <thead><tr><th>${t('webhooks.delivery')}</th><th>${t('webhooks.event')}</th><th>${t('common.status')}</th><th class="num">${t('webhooks.attempt')}</th>
        <th>${t('webhooks.response')}</th><th>${t('common.created')}</th><th>${t('webhooks.lastAttempt')}</th><th>${t('webhooks.nextRetry')}</th><th><span class="visually-hidden">${t('common.actions')}</span></th></tr></thead>
      <tbody>${(page?.data ?? []).map((d) => html`<${DeliveryRow} key=${d.id} d=${d} endpoint=${endpoint} open=${open === d.id} onToggle=${() => setOpen(open === d.id ? null : d.id)} onResent=${() => setGeneration(generation + 1)} />`)}</tbody>
    </table>
    ${page && page.data.length === 0 ? html`<${Empty}>${t('webhooks.noDeliveries')}</${Empty}>` : null}
    <div class="pager">
      <button type="button" data-testid="deliveries-prev-page" disabled=${pager.page <= 1} onClick=${pager.prev}>‹ ${t('pager.prev')}</button>
      <span class="muted">${t('pager.page', { n: pager.page })}</span>
      <button type="button" data-testid="deliveries-next-page" disabled=${!page?.next_cursor} onClick=${() => pager.next(page.next_cursor)}>${t('pager.next')} ›</button>
    </div>
  </div>`;
}

// A delivery's event type stays as the API names it in both languages: the forms above take it
// typed and the merchant's logs and X-PG-Event-Type carry it (README's console section).
function DeliveryRow({ d, endpoint, open, onToggle, onResent }) {
  const can = useCan();
  const resend = () => post(`/v1/bo/webhooks/${encodeURIComponent(endpoint.id)}/deliveries/${encodeURIComponent(d.id)}/resend`, {}, { stepUp: true });
  return html`<tr data-testid="delivery-row" data-id=${d.id} class=${open ? 'chosen' : ''}>
    <td><button type="button" class="link mono" onClick=${onToggle} title=${d.id}>${open ? '▾' : '▸'} ${d.id.slice(0, 14)}…</button>${d.resend ? html` <${Badge} tone="info">${t('webhooks.resendBadge')}</${Badge}>` : null}</td>
    <td><div class="mono small">${d.event_type}</div><div class="mono small muted">${d.event_id}</div></td>
    <td><${Status} status=${d.status} /></td>
    <td class="num">${d.attempt}</td>
    <td class="small">${d.response_status ?? ''} ${d.error ? html`<span class="mono bad-text">${d.error}</span>` : null}${d.duration_ms != null ? html` <span class="muted">${d.duration_ms} ms</span>` : null}</td>
    <td><${Time} at=${d.created_at} /></td><td><${Time} at=${d.last_attempt_at} /></td><td><${Time} at=${d.next_retry_at} /></td>
    <td class="row-actions">${can('POST /v1/bo/webhooks/:endpointId/deliveries/:deliveryId/resend') && endpoint.status === 'enabled'
      ? html`<${ActionButton} testid="resend" stepUp onRun=${resend} done=${onResent}>${t('webhooks.resend')}</${ActionButton}>` : null}</td>
  </tr>
  ${open ? html`<tr class="expanded"><td colspan="9"><${Attempts} endpoint=${endpoint} delivery=${d} /></td></tr>` : null}`;
}

function Attempts({ endpoint, delivery }) {
  const { showError } = usePageContext();
  const [detail, setDetail] = useState(null);
  useEffect(() => {
    get(`/v1/bo/webhooks/${encodeURIComponent(endpoint.id)}/deliveries/${encodeURIComponent(delivery.id)}`).then(setDetail, showError);
  }, [endpoint.id, delivery.id]);
  if (!detail) return html`<p class="loading">${t('common.loading')}</p>`;
  return html`<div data-testid="delivery-attempts">
    ${detail.response_body_excerpt ? html`<pre class="excerpt">${detail.response_body_excerpt}</pre>` : null}
    ${detail.attempts.length === 0 ? html`<${Empty}>${t('webhooks.noAttempts')}</${Empty}>` : html`<table class="grid inner">
      <thead><tr><th class="num">#</th><th>${t('webhooks.started')}</th><th><${FieldName} name="kid" /></th><th>${t('webhooks.outcome')}</th><th>${t('webhooks.response')}</th><th class="num"><${FieldName} name="duration_ms" /></th><th>${t('webhooks.error')}</th></tr></thead>
      <tbody>${detail.attempts.map((a) => html`<tr><td class="num">${a.attempt}</td><td><${Time} at=${a.started_at} /></td><td class="mono small">${a.kid}</td>
        <td><${Status} status=${a.outcome} /></td><td>${a.response_status ?? '—'}</td><td class="num">${a.duration_ms ?? '—'}</td><td class="mono small">${a.error ?? ''}</td></tr>`)}</tbody>
    </table>`}
  </div>`;
}

function Replay({ endpoint }) {
  const can = useCan();
  const now = serviceNow(); // events are created on the service's clock
  const [after, setAfter] = useState(isoToBangkokLocal(new Date(now - 24 * 3600 * 1000).toISOString()));
  const [before, setBefore] = useState(isoToBangkokLocal(new Date(now + 60 * 1000).toISOString()));
  const [onlyFailed, setOnlyFailed] = useState(true);
  const [types, setTypes] = useState('');
  const [result, setResult] = useState(null);
  if (!can('POST /v1/bo/webhooks/:endpointId/replay')) return null;
  const run = async () => {
    const body = { created_after: bangkokLocalToIso(after), created_before: bangkokLocalToIso(before), only_failed: onlyFailed };
    const eventTypes = types.split(/[\s,]+/).filter(Boolean);
    if (eventTypes.length > 0) body.event_types = eventTypes;
    setResult(await post(`/v1/bo/webhooks/${encodeURIComponent(endpoint.id)}/replay`, body, { stepUp: true }));
    return true;
  };
  return html`<details class="subcard" data-testid="replay-form">
    <summary><${StepUpFlag} /> ${t('webhooks.replayTitle')}</summary>
    <div class="form-row">
      <label>${t('webhooks.createdAfter')}<input type="datetime-local" data-testid="replay-after" value=${after} onInput=${(e) => setAfter(e.currentTarget.value)} /></label>
      <label>${t('webhooks.createdBefore')}<input type="datetime-local" data-testid="replay-before" value=${before} onInput=${(e) => setBefore(e.currentTarget.value)} /></label>
      <label class="check-label"><input type="checkbox" data-testid="replay-only-failed" checked=${onlyFailed} onChange=${(e) => setOnlyFailed(e.currentTarget.checked)} /> ${t('webhooks.onlyFailed')}</label>
      <label>${t('webhooks.eventTypes')}<input data-testid="replay-types" placeholder="deposit.settled, …" value=${types} onInput=${(e) => setTypes(e.currentTarget.value)} size="30" /></label>
    </div>
    <p class="small muted">${t('webhooks.replayHelp')}</p>
    <div class="buttons"><${ActionButton} testid="replay" stepUp onRun=${run}>${t('webhooks.replay')}</${ActionButton}></div>
    ${result ? html`<p data-testid="replay-result" class="small">${t('webhooks.replayResult', { n: result.event_count })}
      ${result.first_release_at ? html` <${Time} at=${result.first_release_at} /> – <${Time} at=${result.last_release_at} />` : null}
      ${result.has_more ? html` · ${t('webhooks.replayMore')} <${Time} at=${result.next_created_after} />` : null}</p>` : null}
  </details>`;
}

