// Onboarding a merchant from the directory (ops_admin): POST /v1/bo/merchants {white_label_id,
// name, technical_contact_email?} under an existing white label (GET /v1/bo/white-labels)
// or a new one made first (POST /v1/bo/white-labels {name}). The answer's keys — the live
// one (null in production until a certification run passes) and the sandbox one — are
// shown here once, to hand to the merchant, with a link to its page.
//
// data-testids: new-merchant, new-merchant-name, new-merchant-email, new-merchant-white-label,
//   new-white-label-name, new-merchant-error, onboard, onboarded (data-id), onboarded-key (data-mode).

import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { t } from '../i18n.js';
import { ActionButton, html, langOf, Named, useFieldError, usePageContext } from '../ui.js';

const newWhiteLabel = '__new__';

export function NewMerchant() {
  const { showError } = usePageContext();
  const [labels, setLabels] = useState([]);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [whiteLabel, setWhiteLabel] = useState(newWhiteLabel);
  const [labelName, setLabelName] = useState('');
  const [error, setError] = useState(null);
  const invalid = useFieldError(error, 'new-merchant-error');
  const [made, setMade] = useState(null);
  useEffect(() => { get('/v1/bo/white-labels', { limit: 200 }).then((r) => setLabels(r.data), showError); }, []);
  const onboard = async () => {
    if (name.trim() === '' || (whiteLabel === newWhiteLabel && labelName.trim() === '')) { setError(t('newMerchant.formInvalid')); return false; }
    const whiteLabelId = whiteLabel === newWhiteLabel ? (await post('/v1/bo/white-labels', { name: labelName.trim() })).id : whiteLabel;
    const merchant = await post('/v1/bo/merchants', { white_label_id: whiteLabelId, name: name.trim(), ...(email.trim() ? { technical_contact_email: email.trim() } : {}) });
    setMade(merchant);
    return true;
  };
  return html`<details class="card" data-testid="new-merchant">
    <summary>${t('newMerchant.title')}</summary>
    <div class="form-row">
      <label>${t('merchants.name')}<input data-testid="new-merchant-name" maxlength="140" ...${invalid.field} value=${name} onInput=${(e) => { setName(e.currentTarget.value); setError(null); }} /></label>
      <label>${t('newMerchant.email')}<input type="email" data-testid="new-merchant-email" value=${email} onInput=${(e) => setEmail(e.currentTarget.value)} /></label>
      <label>${t('merchants.whiteLabel')}<select data-testid="new-merchant-white-label" value=${whiteLabel} onChange=${(e) => setWhiteLabel(e.currentTarget.value)}>
        <option value=${newWhiteLabel}>${t('newMerchant.newWhiteLabel')}</option>
        ${labels.map((l) => html`<option value=${l.id} lang=${langOf(l.name)}>${l.name} (${l.id})</option>`)}</select></label>
      ${whiteLabel === newWhiteLabel ? html`<label>${t('newMerchant.whiteLabelName')}<input data-testid="new-white-label-name" maxlength="140" ...${invalid.field} value=${labelName}
        onInput=${(e) => { setLabelName(e.currentTarget.value); setError(null); }} /></label>` : null}
    </div>
    ${invalid.message}
    <div class="buttons"><${ActionButton} testid="onboard" tone="primary" onRun=${onboard}>${t('newMerchant.onboard')}</${ActionButton}></div>
    ${made ? html`<div class="secret-once" data-testid="onboarded" data-id=${made.id}>
      <strong>${t('newMerchant.made')}</strong> <a href=${`#/merchants/${encodeURIComponent(made.id)}?livemode=true`}><${Named} text=${made.name} /> · ${made.id}</a>
      <p class="small">${t('keys.shownOnce')}</p>
      ${[['live', made.keys.live], ['sandbox', made.keys.sandbox]].map(([mode, k]) => html`<div data-testid="onboarded-key" data-mode=${mode}>
        <span class="badge">${mode}</span> ${k ? html`<span class="mono">${k.key_id}</span> <span class="mono secret">${k.api_key}</span>` : html`<span class="muted">${t('newMerchant.liveAfterCertification')}</span>`}</div>`)}
    </div>` : null}
  </details>`;
}
