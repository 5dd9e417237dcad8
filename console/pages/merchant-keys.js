// A merchant's API keys in the page's mode, on its page (GET /v1/bo/merchants/{id}/keys,
// ops_admin and support): id, scopes, a hint of the secret (never the secret), created,
// revoked. ops_admin revokes one ⚑ (POST /v1/bo/keys/{key_id}/revoke: at once, the
// merchant's requests with it answer 401 api_key_revoked) and mints one ⚑ (POST
// /v1/bo/merchants/{id}/keys {livemode, scopes}): its secret is shown here once, to hand
// to the merchant, and is never shown again. Read-only otherwise; shown only when the
// operator's roles may read the keys (merchant.js checks).
//
// data-testids: api-keys (data-loaded="1" once read), key-row (data-id, data-revoked),
//   revoke-key, new-key, new-key-scope (data-scope), mint-key, new-key-secret.

import { useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { t } from '../i18n.js';
import { ActionButton, Badge, Empty, html, StepUpFlag, Time, useCan, usePartData } from '../ui.js';

const scopes = ['wallet:read', 'withdrawals:write', 'withdrawals:read'];

export function ApiKeys({ merchantId, livemode }) {
  const can = useCan();
  const [generation, setGeneration] = useState(0);
  const [minted, setMinted] = useState(null);
  const id = encodeURIComponent(merchantId);
  const keys = usePartData(() => get(`/v1/bo/merchants/${id}/keys`, { livemode }).then((r) => r.data), [merchantId, livemode, generation], []);
  const reload = () => setGeneration((g) => g + 1);
  const mayRevoke = can('POST /v1/bo/keys/:keyId/revoke');
  return html`<div class="card" data-testid="api-keys" data-loaded=${keys ? '1' : undefined}>
    <h2>${t('keys.title')}</h2>
    ${keys && keys.length === 0 ? html`<${Empty}>${t('keys.none')}</${Empty}>` : null}
    ${keys && keys.length > 0 ? html`<table class="grid">
      <thead><tr><th>${t('keys.key')}</th><th>${t('keys.scopes')}</th><th>${t('keys.secret')}</th><th>${t('common.created')}</th><th>${t('keys.revoked')}</th><th><span class="visually-hidden">${t('common.actions')}</span></th></tr></thead>
      <tbody>${keys.map((k) => html`<tr data-testid="key-row" data-id=${k.key_id} data-revoked=${String(k.revoked_at !== null)}>
        <td class="mono">${k.key_id}</td><td class="small">${k.scopes.join(', ')}</td><td class="mono">${k.api_key_hint}</td>
        <td><${Time} at=${k.created_at} /></td>
        <td>${k.revoked_at ? html`<${Badge} tone="bad">${t('keys.revokedBadge')}</${Badge}> <${Time} at=${k.revoked_at} />` : html`<span class="muted">—</span>`}</td>
        <td class="row-actions">${mayRevoke && k.revoked_at === null ? html`<${ActionButton} testid="revoke-key" stepUp tone="danger"
          onRun=${() => post(`/v1/bo/keys/${encodeURIComponent(k.key_id)}/revoke`, {}, { stepUp: true })} done=${reload}>${t('keys.revoke')}</${ActionButton}>` : null}</td>
      </tr>`)}</tbody>
    </table>` : null}
    ${minted ? html`<div class="secret-once" data-testid="new-key-secret"><strong>${t('keys.shownOnce')}</strong>
      <div class="mono">${minted.key_id}</div><div class="mono secret">${minted.api_key}</div></div>` : null}
    ${can('POST /v1/bo/merchants/:id/keys') ? html`<${NewKey} id=${id} livemode=${livemode} onMinted=${(k) => { setMinted(k); reload(); }} />` : null}
  </div>`;
}

function NewKey({ id, livemode, onMinted }) {
  const [chosen, setChosen] = useState(new Set(scopes));
  const toggle = (scope) => setChosen((s) => { const next = new Set(s); if (next.has(scope)) next.delete(scope); else next.add(scope); return next; });
  const mint = async () => {
    const key = await post(`/v1/bo/merchants/${id}/keys`, { livemode, scopes: scopes.filter((s) => chosen.has(s)) }, { stepUp: true });
    onMinted(key);
    return true;
  };
  return html`<details class="subcard" data-testid="new-key">
    <summary><${StepUpFlag} /> ${t('keys.new')}</summary>
    <div class="form-row">${scopes.map((scope) => html`<label class="check-label"><input type="checkbox" data-testid="new-key-scope" data-scope=${scope}
      checked=${chosen.has(scope)} onChange=${() => toggle(scope)} /> <span class="mono">${scope}</span></label>`)}</div>
    <div class="buttons"><${ActionButton} testid="mint-key" stepUp tone="primary" onRun=${mint}>${t('keys.mint')}</${ActionButton}></div>
  </details>`;
}
