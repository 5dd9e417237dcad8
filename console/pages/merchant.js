// One merchant, in one mode (#/merchants/<id>?livemode=true|false): its directory entry
// (GET /v1/bo/merchants?q=<id>), the wallet's three buckets from the ledger
// (GET /v1/bo/wallet), links to its work elsewhere (review queue, approvals, claims, the
// day's statement with its balance movements, the dashboard), under the wallet its
// balance transactions newest first (GET /v1/bo/merchants/{id}/balance-transactions,
// merchant-transactions.js), for finance its receiving accounts (told, verified, filled;
// merchant-receiving.js), for ops_admin suspension and manual adjustments ⚑
// (merchant-admin.js), its API keys with revocation and minting ⚑ (merchant-keys.js), and its webhook endpoints with their delivery log, resend ⚑
// and replay ⚑ (merchant-webhooks.js). Each part is read only when the operator's roles
// may read it.
//
// data-testids: merchant-name, mode-live, mode-test, wallet, wallet-available,
//   wallet-pending, wallet-reserved, merchant-links, (merchant-transactions.js:
//   balance-transactions, btxn-row, btxn-prev-page, btxn-next-page), (merchant-receiving.js:
//   receiving-accounts, receiving-account, …), (merchant-admin.js: merchant-admin, suspend,
//   unsuspend, adjustment-form, …), (merchant-keys.js: api-keys, key-row, revoke-key, …),
//   (merchant-webhooks.js:
//   endpoints, endpoint-row, …).

import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { t } from '../i18n.js';
import { bangkokToday } from '../format.js';
import { Badge, Empty, html, Id, Loading, Money, Named, navigate, Time, useCan, usePageData } from '../ui.js';
import { BalanceTransactions } from './merchant-transactions.js';
import { Webhooks } from './merchant-webhooks.js';
import { ReceivingAccounts } from './merchant-receiving.js';
import { MerchantAdmin } from './merchant-admin.js';
import { ApiKeys } from './merchant-keys.js';

export function MerchantPage({ id, query }) {
  const can = useCan();
  const livemode = query.livemode !== 'false';
  const mayWallet = can('GET /v1/bo/wallet'), mayEndpoints = can('GET /v1/bo/merchants/:id/webhook-endpoints');
  const mayTransactions = can('GET /v1/bo/merchants/:id/balance-transactions');
  // An operator's action here (merchant-admin.js) reloads the page and remounts the parts that read on their own.
  const [generation, setGeneration] = useState(0);
  const { data, error, reload } = usePageData(async () => {
    const [directory, wallet, endpoints] = await Promise.all([
      get('/v1/bo/merchants', { q: id, limit: 20 }),
      mayWallet ? get('/v1/bo/wallet', { merchant_id: id, livemode }) : null,
      mayEndpoints ? get(`/v1/bo/merchants/${encodeURIComponent(id)}/webhook-endpoints`) : null,
    ]);
    return { merchant: directory.data.find((m) => m.id === id) ?? null, wallet, endpoints: endpoints?.data ?? null };
  }, [id, livemode, mayWallet, mayEndpoints]);
  if (!data) return html`<${Loading} error=${error} />`;
  const m = data.merchant;
  const mode = (value) => navigate(`/merchants/${encodeURIComponent(id)}`, { ...query, livemode: value, endpoint: undefined });
  return html`<section>
    <div class="page-head">
      <h1><span data-testid="merchant-name"><${Named} text=${m?.name ?? id} /></span> <span class="mono muted small">${id}</span></h1>
      <div class="summary">
        ${m?.suspended ? html`<${Badge} tone="bad">${t('merchants.suspendedBadge')}</${Badge}>` : null}
        <span class="segmented" role="group" aria-label=${t('common.mode')}>
          <button type="button" class=${livemode ? 'on' : ''} aria-pressed=${livemode ? 'true' : 'false'} data-testid="mode-live" onClick=${() => mode('true')}>${t('mode.live')}</button>
          <button type="button" class=${!livemode ? 'on test' : ''} aria-pressed=${!livemode ? 'true' : 'false'} data-testid="mode-test" onClick=${() => mode('false')}>${t('mode.test')}</button>
        </span>
      </div>
    </div>
    ${!m ? html`<p class="field-error">${t('merchants.notFound')}</p>` : null}
    <div class="columns">
      ${data.wallet ? html`<${Wallet} wallet=${data.wallet} />` : null}
      <div class="card">
        <h2>${t('merchant.details')}</h2>
        <dl class="facts">
          <dt>${t('merchants.id')}</dt><dd><${Id} id=${id} keep=${20} /></dd>
          ${m ? html`<dt>${t('merchants.whiteLabel')}</dt><dd><a href=${`#/merchants?white_label_id=${encodeURIComponent(m.white_label_id)}`}><${Id} id=${m.white_label_id} keep=${14} /></a></dd>
            <dt>${t('common.created')}</dt><dd><${Time} at=${m.created_at} /></dd>` : null}
        </dl>
        <${Links} id=${id} livemode=${livemode} can=${can} />
      </div>
    </div>
    ${m ? html`<${MerchantAdmin} merchant=${m} livemode=${livemode} onChanged=${async () => { await reload(); setGeneration((g) => g + 1); }} />` : null}
    ${can('GET /v1/bo/merchants/:id/keys') && m ? html`<${ApiKeys} merchantId=${id} livemode=${livemode} />` : null}
    ${mayTransactions && m ? html`<${BalanceTransactions} key=${generation} merchantId=${id} livemode=${livemode} />` : null}
    ${can('GET /v1/bo/reports/receiving-accounts') && m ? html`<${ReceivingAccounts} merchantId=${id} livemode=${livemode} />` : null}
    ${data.endpoints ? html`<${Webhooks} merchantId=${id} livemode=${livemode} endpoints=${data.endpoints.filter((e) => e.livemode === livemode)} query=${query} onCreated=${reload} />` : null}
  </section>`;
}

function Wallet({ wallet }) {
  return html`<div class="card" data-testid="wallet">
    <h2>${t('merchant.wallet')} <span class="muted small">${t('common.asOf')} <${Time} at=${wallet.as_of} /></span></h2>
    <div class="figures">
      <div class="figure" data-testid="wallet-available"><span class="figure-label">${t('bucket.available')}</span><span class="figure-value"><${Money} minor=${wallet.available_minor} /></span></div>
      <div class="figure" data-testid="wallet-pending"><span class="figure-label">${t('bucket.pending_clearing')}</span><span class="figure-value"><${Money} minor=${wallet.pending_clearing_minor} /></span></div>
      <div class="figure" data-testid="wallet-reserved"><span class="figure-label">${t('bucket.reserved')}</span><span class="figure-value"><${Money} minor=${wallet.reserved_minor} /></span></div>
    </div>
  </div>`;
}

function Links({ id, livemode, can }) {
  const links = [
    can('GET /v1/bo/deposits') && [`#/queue?merchant_id=${encodeURIComponent(id)}&livemode=${livemode}`, t('merchant.linkQueue')],
    can('GET /v1/bo/withdrawals') && [`#/approvals?merchant_id=${encodeURIComponent(id)}&livemode=${livemode}`, t('merchant.linkApprovals')],
    can('GET /v1/bo/claims') && [`#/claims?merchant_id=${encodeURIComponent(id)}`, t('merchant.linkClaims')],
    can('GET /v1/bo/reports/statements') && [`#/statement?merchant_id=${encodeURIComponent(id)}&livemode=${livemode}&date=${bangkokToday()}`, t('merchant.linkStatement')],
    can('GET /v1/bo/dashboard') && [`#/dashboard?merchant_id=${encodeURIComponent(id)}&livemode=${livemode}`, t('merchant.linkDashboard')],
  ].filter(Boolean);
  if (links.length === 0) return html`<${Empty} />`;
  return html`<ul class="links" data-testid="merchant-links">${links.map(([to, text]) => html`<li><a href=${to}>${text} →</a></li>`)}</ul>`;
}
