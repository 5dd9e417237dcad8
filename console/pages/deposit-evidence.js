// The evidence half of the deposit page: the six verdicts side by side (expected, what
// the slip showed, match), the slips (each image fetched with the operator's token as a
// blob and shown from an object URL, revoked when the page goes), the duplicate-registry
// hits, the legs with their counterparties, the verifier's answer as kept (masked), and
// the timeline in journal order with each step's seq. An operator whose roles may read the
// deposit but not its slip images (finance) is told so instead of fetching one to a 403.
//
// data-testids: verdicts, verdict-row (data-dimension), slip (data-receipt), slip-image, slip-image-withheld,
//   duplicate-hits, legs, timeline, timeline-step (data-seq).

import { useEffect, useState } from 'preact/hooks';
import { getBlob } from '../api.js';
import { label, t } from '../i18n.js';
import { shortId } from '../format.js';
import { Check, Empty, FieldName, html, Id, Money, Named, PageLink, RawJson, Status, Time, useCan, usePageContext } from '../ui.js';

export function Evidence({ data }) {
  const { evidence, timeline, deposit } = data;
  return html`
    <div class="card"><h2>${t('evidence.verdicts')}</h2><${Verdicts} verdicts=${evidence.verdicts} /></div>
    <div class="card"><h2>${t('evidence.slips')}</h2>
      ${evidence.slips.length === 0 ? html`<${Empty}>${t('evidence.noSlips')}</${Empty}>` : html`<div class="slips">${evidence.slips.map((s) => html`<${Slip} slip=${s} />`)}</div>`}
      ${evidence.provider_answer ? html`<${RawJson} value=${evidence.provider_answer} summary=${t('evidence.providerAnswer')} />` : null}
    </div>
    <div class="card" data-testid="duplicate-hits"><h2>${t('evidence.duplicates')}</h2>
      ${evidence.duplicate_hits.length === 0 ? html`<${Empty}>${t('evidence.noDuplicates')}</${Empty}>` : html`<table class="grid">
        <thead><tr><th><${FieldName} name="trans_ref" /></th><th>${t('evidence.usedBy')}</th></tr></thead>
        <tbody>${evidence.duplicate_hits.map((hit) => html`<tr><td class="mono">${hit.trans_ref}</td>
          <td><${Id} id=${hit.used_by_deposit_id} to=${`#/deposits/${encodeURIComponent(hit.used_by_deposit_id)}`} keep=${14} /></td></tr>`)}</tbody>
      </table>`}
      ${evidence.route_confirmation ? html`<p class="small">${t('evidence.routeConfirmation')}: <span class="mono">${evidence.route_confirmation.trans_ref}</span> <${Money} minor=${evidence.route_confirmation.amount_minor} /> <${Time} at=${evidence.route_confirmation.confirmed_at} /></p>` : null}
    </div>
    <div class="card"><h2>${t('evidence.legs')}</h2><${Legs} legs=${evidence.legs} livemode=${deposit.livemode} /></div>
    <div class="card"><h2>${t('evidence.timeline')}</h2><${Timeline} steps=${timeline} /></div>`;
}

function VerdictValue({ dimension, value }) {
  if (value === undefined || value === null) return html`<span class="muted">—</span>`;
  if (dimension === 'amount') return html`<${Money} minor=${value} />`;
  if (dimension === 'time_window') {
    if (typeof value === 'string') return html`<${Time} at=${value} />`;
    return html`<${Time} at=${value.from} /> – <${Time} at=${value.to} />`;
  }
  if (dimension === 'receiver') {
    const list = Array.isArray(value) ? value : [value];
    return html`${list.map((r) => html`<div class="mono">${r.leg_ref ? html`<span class="muted">${r.leg_ref}</span> ` : null}${r.bank_code} ${r.account_number_masked ?? ''} <${Named} text=${r.name_masked} /></div>`)}`;
  }
  return typeof value === 'object' ? html`<span class="mono">${JSON.stringify(value)}</span>` : html`<span class="mono">${String(value)}</span>`;
}

function Verdicts({ verdicts }) {
  return html`<table class="grid verdicts" data-testid="verdicts">
    <thead><tr><th>${t('verdict.dimension')}</th><th>${t('verdict.expected')}</th><th>${t('verdict.shown')}</th><th class="center">${t('verdict.match')}</th></tr></thead>
    <tbody>${verdicts.map((v) => html`<tr data-testid="verdict-row" data-dimension=${v.dimension} class=${v.match === false ? 'mismatch' : ''}>
      <th scope="row">${label('dimension', v.dimension)}</th>
      <td><${VerdictValue} dimension=${v.dimension} value=${v.expected} /></td>
      <td><${VerdictValue} dimension=${v.dimension} value=${v.shown} /></td>
      <td class="center"><${Check} value=${v.match} /></td>
    </tr>`)}</tbody>
  </table>`;
}

/** The slip image, fetched with the token (an <img src> cannot send it) and shown from an object URL. */
function SlipImage({ url }) {
  const { showError } = usePageContext();
  const [objectUrl, setObjectUrl] = useState(null);
  const [zoom, setZoom] = useState(false);
  useEffect(() => {
    let made = null, gone = false;
    getBlob(url).then((blob) => {
      if (gone) return;
      made = URL.createObjectURL(blob);
      setObjectUrl(made);
    }, (error) => { if (!gone) showError(error); });
    return () => { gone = true; if (made) URL.revokeObjectURL(made); };
  }, [url]);
  if (!objectUrl) return html`<div class="slip-image loading">${t('common.loading')}</div>`;
  return html`<img class=${zoom ? 'slip-image zoom' : 'slip-image'} data-testid="slip-image" src=${objectUrl} alt=${t('evidence.slipImage')} onClick=${() => setZoom(!zoom)} />`;
}

function SlipPicture({ slip }) {
  const can = useCan();
  if (slip.kind !== 'image' || !slip.image_url) return html`<div class="slip-image none">${slip.kind === 'no_image' ? t('evidence.noImage') : t('evidence.notStored')}</div>`;
  if (!can('GET /v1/bo/deposits/:id/slips/:receiptId/image')) return html`<div class="slip-image none" data-testid="slip-image-withheld">${t('evidence.imageWithheld')}</div>`;
  return html`<${SlipImage} url=${slip.image_url} />`;
}

function Slip({ slip }) {
  return html`<div class="slip" data-testid="slip" data-receipt=${slip.receipt_id}>
    <${SlipPicture} slip=${slip} />
    <dl class="facts small">
      <dt>${t('evidence.receipt')}</dt><dd><${Id} id=${slip.receipt_id} keep=${12} /></dd>
      <dt>${t('evidence.receivedAt')}</dt><dd><${Time} at=${slip.received_at} />${slip.is_late ? html` <span class="badge warn">${t('evidence.late')}</span>` : null}</dd>
      ${slip.trans_ref ? html`<dt><${FieldName} name="trans_ref" /></dt><dd class="mono">${slip.trans_ref}</dd>` : null}
      ${slip.kind === 'image' ? html`<dt>${t('evidence.image')}</dt><dd><span class="mono" title=${slip.image_sha256}>${shortId(slip.image_sha256, 6)}</span> · ${slip.media_type} · ${slip.image_bytes} B</dd>` : null}
      ${slip.kind === 'image' ? html`<dt>${t('evidence.qr')}</dt><dd>${slip.qr_decoded ? html`<span class="mono">${slip.qr_decoded.sending_bank_code} · ${slip.qr_decoded.trans_ref}</span>` : slip.qr_present ? t('evidence.qrUnreadable') : t('evidence.qrAbsent')}</dd>` : null}
      ${slip.kind === 'no_image' ? html`<dt>${t('evidence.sendingBank')}</dt><dd class="mono">${slip.sending_bank_code}</dd><dt>${t('evidence.occurredAt')}</dt><dd><${Time} at=${slip.occurred_at} /></dd>` : null}
    </dl>
  </div>`;
}

function Legs({ legs, livemode }) {
  if (legs.length === 0) return html`<${Empty}>${t('evidence.noLegs')}</${Empty}>`;
  return html`<table class="grid" data-testid="legs">
    <thead><tr><th>${t('leg.ref')}</th><th>#</th><th class="num">${t('common.amount')}</th><th>${t('common.status')}</th><th>${t('leg.receiver')}</th><th>${t('leg.counterparty')}</th><th class="num">${t('leg.verified')}</th><th class="num">${t('leg.filled')}</th><th><${FieldName} name="trans_ref" /></th></tr></thead>
    <tbody>${legs.map((l) => html`<tr>
      <td class="mono">${l.leg_ref}</td><td>${l.sequence}</td><td class="num"><${Money} minor=${l.amount_minor} /></td>
      <td><${Status} status=${l.leg_status} prefix="legStatus" /></td>
      <td class="mono">${l.receiver.bank_code} ${l.receiver.account_number_masked} <${Named} text=${l.receiver.account_name_masked} /></td>
      <td>${l.counterparty.kind === 'withdrawal'
        ? html`<${Id} id=${l.counterparty.withdrawal_id} to=${`#/withdrawals/${encodeURIComponent(l.counterparty.withdrawal_id)}`} /> <a class="small" href=${`#/merchants/${encodeURIComponent(l.counterparty.merchant_id)}?livemode=${livemode}`}>${t('common.merchant')}</a>`
        : t('leg.gateway')}</td>
      <td class="num" data-testid="leg-verified">${l.verified_amount_minor !== undefined ? html`<${Money} minor=${l.verified_amount_minor} />` : '—'}</td>
      <td class="num" data-testid="leg-filled">${l.filled_minor !== undefined ? html`<${Money} minor=${l.filled_minor} />` : '—'}</td>
      <td class="mono">${l.trans_ref ?? '—'}</td>
    </tr>`)}</tbody>
  </table>`;
}

const idLinks = [[/^dep_/, '/deposits/'], [/^wdr_/, '/withdrawals/'], [/^clm_/, '/claims/'], [/^dsp_/, '/disputes/'], [/^mch_/, '/merchants/']];

/**
 * The dictionaries that may name a code, by the field that holds it, tried in order (a
 * timeline's `status` is a claim's or a delivery's); a code none of them knows shows as it is.
 */
const codeLabels = {
  leg_status: ['legStatus'], bucket_from: ['bucket'], bucket_to: ['bucket'], direction: ['direction'], type: ['btType'], kind: ['claimKind', 'counterpartyKind'],
  status: ['claimStatus', 'status'], decision: ['decision'], outcome: ['verdictOutcome'], reason_code: ['reversal'], source: ['matchSource'], settled_via: ['settledVia'],
};

/** A code's words in the console's language; undefined when no dictionary names it. */
function codeText(name, code) {
  return (codeLabels[name] ?? []).map((prefix) => label(prefix, code)).find((named) => named !== code);
}

/**
 * One detail value: ids of pages the console has (and the operator may read) become links;
 * money fields are baht; yes/no and the codes a dictionary names (a status, a bucket, a
 * direction) are words, the API's value in the title; lists and objects are laid out field by field.
 */
export function DetailValue({ name, value }) {
  if (value === null || value === undefined) return html`<span class="muted">—</span>`;
  if (/_minor$/.test(name) && (typeof value === 'number' || typeof value === 'string')) return html`<${Money} minor=${value} />`;
  if (/_at$/.test(name) && typeof value === 'string') return html`<${Time} at=${value} />`;
  if (typeof value === 'boolean') return html`<span title=${String(value)}>${t(value ? 'common.yes' : 'common.no')}</span>`;
  if (typeof value === 'string') {
    const named = codeText(name, value);
    if (named !== undefined) return html`<span title=${value}>${named}</span>`; // the API's code in the title
    const link = idLinks.find(([re]) => re.test(value));
    return link ? html`<${PageLink} cls="mono" to=${`#${link[1]}${encodeURIComponent(value)}`}>${value}</${PageLink}>` : html`<span class="mono"><${Named} text=${value} /></span>`;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return html`<span class="muted">—</span>`;
    if (value.every((v) => v === null || typeof v !== 'object')) return value.map((v, i) => html`${i > 0 ? ', ' : ''}<${DetailValue} name=${name} value=${v} />`);
    return html`<ol class="detail-list">${value.map((v) => html`<li><${DetailValue} name=${name} value=${v} /></li>`)}</ol>`;
  }
  // An object (a leg, its receiver, a verification): its fields as the step's own, not JSON.
  if (typeof value === 'object') return html`<span class="kv-group">${Object.entries(value).map(([k, v]) => html`<span class="kv"><${FieldName} name=${k} /> <${DetailValue} name=${k} value=${v} /></span> `)}</span>`;
  return html`<span class="mono">${String(value)}</span>`;
}

function Timeline({ steps }) {
  return html`<table class="grid timeline" data-testid="timeline">
    <thead><tr><th class="num"><${FieldName} name="seq" /></th><th>${t('timeline.at')}</th><th>${t('timeline.step')}</th><th>${t('timeline.entry')}</th><th>${t('timeline.detail')}</th></tr></thead>
    <tbody>${steps.map((s) => html`<tr data-testid="timeline-step" data-seq=${s.seq} data-step=${s.step}>
      <td class="num mono" title=${s.hash ?? ''}>${s.seq}</td>
      <td><${Time} at=${s.at} /></td>
      <td><span class=${`step step-${s.step}`}>${label('step', s.step)}</span></td>
      <td class="small mono">${s.type ?? ''}${s.version !== undefined ? html` <span class="muted" title=${t('evidence.journalEntry', { n: s.version })}>v${s.object_version ?? s.version}</span>` : null}</td>
      <td class="detail">${Object.entries(s.detail ?? {}).map(([k, v]) => html`<span class="kv"><${FieldName} name=${k} /> <${DetailValue} name=${k} value=${v} /></span> `)}</td>
    </tr>`)}</tbody>
  </table>`;
}
