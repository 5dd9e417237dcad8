// Claims: GET /v1/bo/claims?kind=&status=&deposit_id=&merchant_id=&owed_by_payer=&owed_by_payee=&livemode= (oldest
// first, the server's cursor), a row opens the claim and names its merchant (merchant_name before the id); what its payer owes back, and
// what its payee owes the service (the trial balance's owed_by_payers and owed_by_payees), each shows as a
// column when a claim on the page has such a debt. ops_admin may open a claim by hand
// (POST /v1/bo/claims {kind, deposit_id, amount_minor, note ≥ the server's minimum,
// evidence?}).
//
// data-testids: claims-filters, filter-kind, filter-status, filter-deposit,
//   filter-merchant, filter-owed-by-payer, filter-owed-by-payee, filter-livemode, refresh, claims-table, claim-row (data-id), claim-row-merchant-name, prev-page, next-page,
//   new-claim, new-claim-kind, new-claim-deposit, new-claim-amount, new-claim-error, note, note-error,
//   new-claim-evidence, open-claim, claim-owed (a row's owed_by_payer_minor), claim-owed-by-payee (a row's owed_by_payee_minor).

import { useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { label, t } from '../i18n.js';
import { parseBahtToMinor } from '../format.js';
import { ActionButton, Empty, html, Id, MerchantName, Mode, ModeFilter, Money, navigate, NoteField, Pager, Status, Time, useCan, useFieldError, useNote, usePageData, usePager } from '../ui.js';

const kinds = ['overpayment', 'late_slip', 'manual'];
const statuses = ['open', 'under_review', 'refund_pending', 'return_pending_payout', 'closed', 'rejected'];

export function ClaimsPage({ query }) {
  const can = useCan();
  const filters = { kind: query.kind ?? '', status: query.status ?? '', deposit_id: query.deposit_id ?? '', merchant_id: query.merchant_id ?? '', owed_by_payer: query.owed_by_payer ?? '', owed_by_payee: query.owed_by_payee ?? '', livemode: query.livemode ?? '', limit: query.limit ?? '50' };
  const filterKey = JSON.stringify(filters);
  const pager = usePager(filterKey);
  const { data, loading, reload } = usePageData(() => get('/v1/bo/claims', { ...filters, cursor: pager.cursor }), [filterKey, pager.cursor]);
  const set = (patch) => navigate('/claims', { ...filters, ...patch });
  const owedShown = (data?.data ?? []).some((c) => c.owed_by_payer_minor !== null);
  const payeeOwedShown = (data?.data ?? []).some((c) => c.owed_by_payee_minor !== null && c.owed_by_payee_minor !== undefined);
  return html`<section>
    <div class="page-head"><h1>${t('claims.title')}</h1></div>
    <form class="filters" data-testid="claims-filters" onSubmit=${(e) => { e.preventDefault(); set(Object.fromEntries(new FormData(e.currentTarget))); }}>
      <label>${t('claims.kind')}
        <select name="kind" data-testid="filter-kind" value=${filters.kind} onChange=${(e) => set({ kind: e.currentTarget.value })}>
          <option value="">${t('common.any')}</option>${kinds.map((k) => html`<option value=${k}>${label('claimKind', k)}</option>`)}
        </select></label>
      <label>${t('common.status')}
        <select name="status" data-testid="filter-status" value=${filters.status} onChange=${(e) => set({ status: e.currentTarget.value })}>
          <option value="">${t('common.any')}</option>${statuses.map((s) => html`<option value=${s}>${label('claimStatus', s)}</option>`)}
        </select></label>
      <label>${t('common.deposit')}<input name="deposit_id" data-testid="filter-deposit" placeholder="dep_…" value=${filters.deposit_id} size="24" /></label>
      <label>${t('common.merchant')}<input name="merchant_id" data-testid="filter-merchant" placeholder="mch_…" value=${filters.merchant_id} size="24" /></label>
      <label>${t('claims.owedByPayer')}
        <select name="owed_by_payer" data-testid="filter-owed-by-payer" value=${filters.owed_by_payer} onChange=${(e) => set({ owed_by_payer: e.currentTarget.value })}>
          <option value="">${t('common.any')}</option><option value="true">${t('common.yes')}</option><option value="false">${t('common.no')}</option>
        </select></label>
      <label>${t('claims.owedByPayee')}
        <select name="owed_by_payee" data-testid="filter-owed-by-payee" value=${filters.owed_by_payee} onChange=${(e) => set({ owed_by_payee: e.currentTarget.value })}>
          <option value="">${t('common.any')}</option><option value="true">${t('common.yes')}</option><option value="false">${t('common.no')}</option>
        </select></label>
      <${ModeFilter} value=${filters.livemode} set=${set} />
      <input type="hidden" name="limit" value=${filters.limit} />
      <button type="submit">${t('common.apply')}</button>
      <button type="button" class="ghost" data-testid="refresh" onClick=${reload}>${t('common.refresh')}</button>
    </form>
    ${data && data.data.length === 0 ? html`<${Empty}>${t('claims.empty')}</${Empty}>` : null}
    ${data && data.data.length > 0 ? html`<table class="grid clickable" data-testid="claims-table" aria-busy=${loading}>
      <thead><tr><th>${t('claims.claim')}</th><th>${t('claims.kind')}</th><th>${t('common.status')}</th><th class="num">${t('common.amount')}</th>${owedShown ? html`<th class="num">${t('field.owed_by_payer_minor')}</th>` : null}${payeeOwedShown ? html`<th class="num">${t('field.owed_by_payee_minor')}</th>` : null}
        <th>${t('common.deposit')}</th><th>${t('common.merchant')}</th><th>${t('common.created')}</th><th>${t('claims.updated')}</th></tr></thead>
      <tbody>${data.data.map((c) => html`<tr data-testid="claim-row" data-id=${c.id} tabindex="0" onClick=${(e) => { if (e.target.tagName !== 'A') navigate(`/claims/${encodeURIComponent(c.id)}`); }}>
        <td><${Id} id=${c.id} to=${`#/claims/${encodeURIComponent(c.id)}`} /> ${c.livemode === false ? html`<${Mode} livemode=${false} />` : null}</td>
        <td>${label('claimKind', c.kind)}</td><td><${Status} status=${c.status} prefix="claimStatus" /></td>
        <td class="num"><${Money} minor=${c.amount_minor} /></td>
        ${owedShown ? html`<td class="num" data-testid="claim-owed">${c.owed_by_payer_minor === null ? '—' : html`<${Money} minor=${c.owed_by_payer_minor} />`}</td>` : null}
        ${payeeOwedShown ? html`<td class="num" data-testid="claim-owed-by-payee">${c.owed_by_payee_minor === null || c.owed_by_payee_minor === undefined ? '—' : html`<${Money} minor=${c.owed_by_payee_minor} />`}</td>` : null}
        <td><${Id} id=${c.deposit_id} to=${`#/deposits/${encodeURIComponent(c.deposit_id)}`} /></td>
        <td><${MerchantName} name=${c.merchant_name} testid="claim-row-merchant-name" /><${Id} id=${c.merchant_id} /></td>
        <td><${Time} at=${c.created_at} /></td><td><${Time} at=${c.updated_at} /></td>
      </tr>`)}</tbody>
    </table>` : null}
    <${Pager} pager=${pager} nextCursor=${data?.next_cursor} />
    ${can('POST /v1/bo/claims') ? html`<${NewClaim} depositId=${filters.deposit_id} />` : null}
  </section>`;
}

function NewClaim({ depositId }) {
  const [kind, setKind] = useState('manual');
  const [deposit, setDeposit] = useState(depositId ?? '');
  const [amount, setAmount] = useState('');
  const [evidence, setEvidence] = useState('');
  const [error, setError] = useState(null);
  const invalid = useFieldError(error, 'new-claim-error');
  const n = useNote();
  const open = async () => {
    const minor = parseBahtToMinor(amount);
    if (deposit.trim() === '' || minor === null || minor <= 0) { setError(t('claims.formInvalid')); return false; }
    if (!n.check()) return false;
    const body = { kind, deposit_id: deposit.trim(), amount_minor: minor, note: n.note.trim(), ...(evidence.trim() ? { evidence: evidence.trim() } : {}) };
    const claim = await post('/v1/bo/claims', body);
    navigate(`/claims/${encodeURIComponent(claim.id)}`);
    return true;
  };
  return html`<details class="card" data-testid="new-claim">
    <summary>${t('claims.new')}</summary>
    <div class="form-row">
      <label>${t('claims.kind')}<select data-testid="new-claim-kind" value=${kind} onChange=${(e) => setKind(e.currentTarget.value)}>${kinds.map((k) => html`<option value=${k}>${label('claimKind', k)}</option>`)}</select></label>
      <label>${t('common.deposit')}<input data-testid="new-claim-deposit" placeholder="dep_…" ...${invalid.field} value=${deposit} onInput=${(e) => { setDeposit(e.currentTarget.value); setError(null); }} /></label>
      <label>${t('common.amount')}<input data-testid="new-claim-amount" inputmode="decimal" placeholder="0.00" ...${invalid.field} value=${amount} onInput=${(e) => { setAmount(e.currentTarget.value); setError(null); }} /></label>
    </div>
    ${invalid.message}
    <${NoteField} n=${n} />
    <label class="block">${t('claims.evidence')}<textarea data-testid="new-claim-evidence" rows="2" value=${evidence} onInput=${(e) => setEvidence(e.currentTarget.value)} /></label>
    <div class="buttons"><${ActionButton} testid="open-claim" tone="primary" onRun=${open}>${t('claims.openClaim')}</${ActionButton}></div>
  </details>`;
}
