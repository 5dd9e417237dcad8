// The webhook signing keys (ops_admin): the keys merchants verify deliveries with, as
// published at GET /v1/webhooks/signing-keys (live and sandbox; active, next, retired, with
// not_before and not_after), and a rotation ⚑ (POST /v1/bo/webhooks/signing-keys/rotate
// {notice_seconds}, a step-up): the new key is published at once, every enabled endpoint
// is told (webhook.key.rotating) and the kid switches by itself at not_before. The notice
// is typed in hours (the server takes 60 s to 7 days; 7 days unless there is an
// emergency); a second click confirms, since every merchant must act on it. The server
// refuses a second rotation while one is announced (409), shown in the banner. A retired
// live key that leaked is withdrawn ⚑ (POST …/signing-keys/{kid}/withdraw, a step-up, after
// a confirmation): it is published no more, so receivers refuse what it signs.
//
// data-testids: signing-keys, signing-key (data-kid, data-status, data-livemode),
//   rotate-form, rotate-notice-hours, rotate-notice-error, rotate, rotate-confirm,
//   rotate-cancel, rotate-pending, rotation-result, withdraw-key (data-kid), withdraw-key-confirm.

import { useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { label, t } from '../i18n.js';
import { ActionButton, Badge, FieldName, html, Loading, Mode, StepUpFlag, Time, useCan, useConfirmation, useFieldError, usePageData } from '../ui.js';

const keyTone = { active: 'good', next: 'info', retired: 'muted' };
/** The server's bounds on notice_seconds (webhookLimits): 60 s for an emergency, 7 days at most and by default. */
const noticeHoursMax = 7 * 24;
const noticeSecondsMin = 60;

export function SigningKeysPage() {
  const { data, error, reload } = usePageData(() => get('/v1/webhooks/signing-keys'), []);
  const can = useCan();
  if (!data) return html`<${Loading} error=${error} />`;
  return html`<section>
    <div class="page-head"><h1>${t('signingKeys.title')}</h1></div>
    <p class="small muted">${t('signingKeys.help')}</p>
    <table class="grid" data-testid="signing-keys">
      <thead><tr><th><${FieldName} name="kid" /></th><th>${t('signingKeys.mode')}</th><th>${t('common.status')}</th><th>${t('signingKeys.notBefore')}</th><th>${t('signingKeys.notAfter')}</th><th><span class="visually-hidden">${t('common.actions')}</span></th></tr></thead>
      <tbody>${data.keys.map((k) => html`<tr data-testid="signing-key" data-kid=${k.kid} data-status=${k.status} data-livemode=${String(k.livemode)}>
        <td class="mono">${k.kid}</td><td><${Mode} livemode=${k.livemode} /></td>
        <td><${Badge} tone=${keyTone[k.status] ?? 'muted'}>${label('signingKeys.status', k.status)}</${Badge}></td>
        <td><${Time} at=${k.not_before} /></td><td>${k.not_after ? html`<${Time} at=${k.not_after} />` : '—'}</td>
        <td>${k.status === 'retired' && k.livemode && can('POST /v1/bo/webhooks/signing-keys/:kid/withdraw') ? html`<${Withdraw} kid=${k.kid} reload=${reload} />` : null}</td>
      </tr>`)}</tbody>
    </table>
    ${can('POST /v1/bo/webhooks/signing-keys/rotate') ? html`<${Rotate} reload=${reload} announced=${data.keys.find((k) => k.status === 'next' && k.livemode)} />` : null}
  </section>`;
}

/** A rotation while another is announced is refused (409): the button says so before the step-up is asked for. */
function Rotate({ reload, announced }) {
  const [hours, setHours] = useState(String(noticeHoursMax));
  const [problem, setProblem] = useState(null);
  const confirmation = useConfirmation();
  const confirming = confirmation.value !== null;
  const invalid = useFieldError(problem, 'rotate-notice-error');
  const [result, setResult] = useState(null);
  const noticeSeconds = () => {
    const h = Number(hours.trim());
    if (hours.trim() === '' || !Number.isFinite(h) || h <= 0 || h > noticeHoursMax) return null;
    return Math.max(noticeSecondsMin, Math.round(h * 3600));
  };
  const ask = () => {
    if (noticeSeconds() === null) { setProblem(t('signingKeys.noticeInvalid', { max: noticeHoursMax })); return; }
    confirmation.open();
  };
  const rotate = async () => {
    const answer = await post('/v1/bo/webhooks/signing-keys/rotate', { notice_seconds: noticeSeconds() }, { stepUp: true });
    setResult(answer);
    confirmation.close();
    return true;
  };
  return html`<div class="card action-card" data-testid="rotate-form">
    <h2>${t('signingKeys.rotate')}</h2>
    <label class="inline">${t('signingKeys.noticeHours')}
      <input data-testid="rotate-notice-hours" inputmode="decimal" value=${hours} ...${invalid.field} onInput=${(e) => { setHours(e.currentTarget.value); setProblem(null); confirmation.close(); }} /></label>
    ${invalid.message}
    <div class="buttons" onKeyDown=${confirming ? confirmation.onKeyDown : undefined}>${confirming
      ? html`<span class="small">${t('signingKeys.confirmText')}</span>
        <${ActionButton} testid="rotate-confirm" buttonRef=${confirmation.confirmRef} tone="danger" stepUp onRun=${rotate} done=${reload}>${t('signingKeys.confirm')}</${ActionButton}>
        <button type="button" class="ghost" data-testid="rotate-cancel" onClick=${confirmation.cancel}>${t('common.cancel')}</button>`
      : html`<button type="button" class="danger" data-testid="rotate" ref=${confirmation.openerRef()} disabled=${Boolean(announced)} onClick=${ask}><${StepUpFlag} /> ${t('signingKeys.rotate')}</button>`}</div>
    ${announced && !confirming ? html`<p class="small muted" data-testid="rotate-pending">${t('signingKeys.pending', { kid: announced.kid })}${' '}<${Time} at=${announced.not_before} /></p>` : null}
    ${result ? html`<p class="small" data-testid="rotation-result">${t('signingKeys.rotated', { kid: result.kid, previous: result.previous_kid ?? '—', n: result.announced_deliveries })}${' '}<${Time} at=${result.not_before} /></p>` : null}
  </div>`;
}

/** Withdraws a retired key that leaked, after a confirmation: it is published no more. */
function Withdraw({ kid, reload }) {
  const confirmation = useConfirmation();
  if (confirmation.value === null) return html`<button type="button" class="danger" data-testid="withdraw-key" data-kid=${kid} ref=${confirmation.openerRef()} onClick=${() => confirmation.open()}><${StepUpFlag} /> ${t('signingKeys.withdraw')}</button>`;
  return html`<span class="inline-form" onKeyDown=${confirmation.onKeyDown}><span class="small">${t('signingKeys.withdrawConfirmText')}</span>
    <${ActionButton} testid="withdraw-key-confirm" buttonRef=${confirmation.confirmRef} tone="danger" stepUp onRun=${() => post(`/v1/bo/webhooks/signing-keys/${encodeURIComponent(kid)}/withdraw`, {}, { stepUp: true })} done=${reload}>${t('signingKeys.withdrawConfirm')}</${ActionButton}>
    <button type="button" class="ghost" onClick=${confirmation.cancel}>${t('common.cancel')}</button></span>`;
}
