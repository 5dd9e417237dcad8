// One dispute: GET /v1/bo/disputes/{id} → the withdrawal it concerns, the dispute and
// every evidence submission the merchant made (text, each file's name and size with a
// download of its bytes — saved, never opened in the console's origin —, with the
// journal seq and hash it rode in on). ops_admin resolves an open dispute
// (merchant_won | merchant_lost | withdrawn, a note of 20 characters); a lost dispute moves no
// money by itself — the page says so, before and after, and links the withdrawal whose fills
// to reverse. Who opened it, who resolved it and their note are shown (the operators' side).
//
// data-testids: dispute-status, dispute-amount, dispute-opened-by, dispute-resolved-by, dispute-resolution-note, dispute-lost-help,
//   evidence, evidence-row (data-seq), evidence-file, evidence-download, resolve-form, resolve-outcome, note, resolve.

import { useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { label, t } from '../i18n.js';
import { ActionButton, CodeName, Empty, Facts, FieldName, html, Id, Loading, Mode, Money, Named, NoteField, saveReport, Status, Time, useCan, useNote, usePageData } from '../ui.js';

const outcomes = ['merchant_won', 'merchant_lost', 'withdrawn'];

export function DisputePage({ id }) {
  const { data, error, reload } = usePageData(() => get(`/v1/bo/disputes/${encodeURIComponent(id)}`), [id]);
  if (!data) return html`<${Loading} error=${error} />`;
  const d = data.dispute, w = data.withdrawal;
  return html`<section>
    <div class="page-head">
      <h1>${t('dispute.title')} <span class="mono">${d.id}</span></h1>
      <div class="summary">
        <span data-testid="dispute-status"><${Status} status=${d.status} prefix="disputeStatus" /></span>
        ${d.outcome ? html`<${Status} status=${d.outcome} prefix="outcome" />` : null}
        <${Mode} livemode=${d.livemode} />
        <strong data-testid="dispute-amount"><${Money} minor=${d.amount_minor} /></strong>
      </div>
    </div>
    <div class="columns">
      <div class="card"><h2>${t('dispute.title')}</h2>
        <${Facts} rows=${[
          [t('common.reason'), html`<${CodeName} prefix="disputeReason" code=${d.reason_code} testid="dispute-reason-code" />`],
          [t('dispute.openedAt'), html`<${Time} at=${d.opened_at} />`],
          [t('dispute.respondBy'), html`<${Time} at=${d.respond_by} />`],
          [t('dispute.fundsOnHold'), d.funds_on_hold ? t('common.yes') : t('common.no')],
          [t('dispute.openedBy'), html`<span class="mono" data-testid="dispute-opened-by">${d.opened_by ?? '—'}</span>`],
          ...(d.status === 'open' ? [] : [
            [t('dispute.resolvedBy'), html`<span class="mono" data-testid="dispute-resolved-by">${d.resolved_by ?? '—'}</span>`],
            [t('dispute.resolutionNote'), html`<span class="prewrap" data-testid="dispute-resolution-note"><${Named} text=${d.resolution_note ?? '—'} /></span>`],
          ]),
        ]} />
        ${d.outcome === 'merchant_lost' ? html`<p class="small warn-text" data-testid="dispute-lost-help">${t('dispute.lostHelp')} <a href=${`#/withdrawals/${encodeURIComponent(w.id)}`}>${t('common.withdrawal')}</a></p>` : null}
      </div>
      <div class="card"><h2>${t('common.withdrawal')}</h2>
        <${Facts} rows=${[
          [t('common.withdrawal'), html`<${Id} id=${w.id} to=${`#/withdrawals/${encodeURIComponent(w.id)}`} keep=${14} />`],
          [t('common.merchant'), html`<${Id} id=${data.merchant_id} to=${`#/merchants/${encodeURIComponent(data.merchant_id)}?livemode=${w.livemode}`} keep=${14} />`],
          [t('common.status'), html`<${Status} status=${w.status} />`],
          [t('withdrawal.amountTotal'), html`<${Money} minor=${w.amount_total_minor} />`],
          [t('withdrawal.filled'), html`<${Money} minor=${w.filled_minor} />`],
          [t('withdrawal.fills'), String(w.fills.length)],
        ]} />
      </div>
    </div>
    <div class="card"><h2>${t('dispute.evidence')}</h2><${EvidenceList} evidence=${d.evidence ?? []} /></div>
    ${d.status === 'open' ? html`<${Resolve} dispute=${d} reload=${reload} />` : null}
  </section>`;
}

function EvidenceList({ evidence }) {
  if (evidence.length === 0) return html`<${Empty}>${t('dispute.noEvidence')}</${Empty}>`;
  return html`<table class="grid" data-testid="evidence">
    <thead><tr><th class="num"><${FieldName} name="seq" /></th><th>${t('dispute.submittedAt')}</th><th>${t('dispute.text')}</th><th>${t('dispute.files')}</th></tr></thead>
    <tbody>${evidence.map((e) => html`<tr data-testid="evidence-row" data-seq=${e.seq}>
      <td class="num mono" title=${e.hash}>${e.seq}</td><td><${Time} at=${e.submitted_at} /></td>
      <td class="prewrap">${e.text ?? html`<span class="muted">—</span>`}</td>
      <td>${(e.files ?? []).length === 0 ? '—' : html`<ul class="plain">${e.files.map((f) => html`<li data-testid="evidence-file">
        <span class="mono">${f.name}</span> <span class="muted">${f.bytes} B${f.media_type ? ` · ${f.media_type}` : ''}</span>
        ${f.download_url ? html` <${ActionButton} testid="evidence-download" onRun=${() => saveReport(f.download_url)}>⬇ ${t('dispute.download')}</${ActionButton}>` : null}
      </li>`)}</ul>`}</td>
    </tr>`)}</tbody>
  </table>`;
}

function Resolve({ dispute, reload }) {
  const can = useCan();
  const [outcome, setOutcome] = useState('merchant_won');
  const n = useNote(); // a resolution moves money (merchant_lost) or closes the case for good: why, in 20 characters at least, as a review decision
  if (!can('POST /v1/bo/disputes/:id/resolve')) return null;
  const run = async () => {
    if (!n.check()) return false;
    await post(`/v1/bo/disputes/${encodeURIComponent(dispute.id)}/resolve`, { outcome, note: n.note.trim() });
    return true;
  };
  return html`<div class="card action-card" data-testid="resolve-form">
    <h2>${t('dispute.resolve')}</h2>
    <label class="inline">${t('dispute.outcome')}
      <select data-testid="resolve-outcome" value=${outcome} onChange=${(e) => setOutcome(e.currentTarget.value)}>
        ${outcomes.map((o) => html`<option value=${o}>${label('outcome', o)}</option>`)}
      </select></label>
    ${outcome === 'merchant_lost' ? html`<p class="small warn-text">${t('dispute.lostHelp')}</p>` : null}
    <${NoteField} n=${n} />
    <div class="buttons"><${ActionButton} testid="resolve" tone="primary" onRun=${run} done=${reload}>${t('dispute.resolve')}</${ActionButton}></div>
  </div>`;
}
