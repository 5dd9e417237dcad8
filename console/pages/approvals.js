// Withdrawal approvals: GET /v1/bo/withdrawals (default status=pending_approval; also the
// open ones, and final ones with an open dispute), oldest first with the server's cursor.
// Each row: age, merchant, amount and fee, the four-eyes approvals so far of
// approvals_required, and — for an approver — approve and reject right in the row, each
// confirmed first with the amount and the payee, with an optional note (withdrawal-decision.js);
// the server refuses the same approver twice (409), shown in the banner. For ops_admin, the
// white labels' fee schedules waiting for a second ops_admin are listed above (a part of
// their own, from GET /v1/bo/white-labels), each linked to the white labels page where it
// is approved; and every merchant's live credits waiting for a second ops_admin (GET
// /v1/bo/adjustment-proposals: amount, merchant, reason, proposer, when, and Approve ⚑ with the
// amount typed as checked, as on the merchant's page, merchant-admin.js), so a 100,000-baht
// credit waits where approvers look, not only on its merchant's page.
//
// data-testids: adjustment-proposals-waiting, waiting-adjustment (data-id), waiting-adjustment-merchant (and merchant-admin.js's
//   approve-adjustment-amount, approve-adjustment, own-adjustment-proposal), fee-proposals, fee-proposal-row (data-id), approvals-filters, filter-status, filter-merchant, filter-livemode,
//   filter-disputed, refresh, approvals-total, approvals-table, approval-row (data-id),
//   approve, reject, decision-* (withdrawal-decision.js), prev-page, next-page.

import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { label, t } from '../i18n.js';
import { Age, Empty, html, Id, MerchantName, Mode, ModeFilter, Money, Named, navigate, PageLink, Pager, Payee, Status, Time, useCan, usePageData, usePager, usePartData } from '../ui.js';
import { changedFigures } from './white-labels.js';
import { WithdrawalDecision } from './withdrawal-decision.js';
import { ProposalDecision } from './merchant-admin.js';

const openStatuses = ['pending_approval', 'open', 'partially_filled'];
// The queue lists open withdrawals; a final one only among disputed ones (GET /v1/bo/withdrawals
// refuses the rest 422): the final statuses are offered only with Disputed = yes.
const statuses = [...openStatuses, 'settled', 'expired', 'canceled', 'rejected'];

export function ApprovalsPage({ query }) {
  const filters = { status: query.status ?? 'pending_approval', merchant_id: query.merchant_id ?? '', livemode: query.livemode ?? '', disputed: query.disputed ?? '', limit: query.limit ?? '50' };
  const filterKey = JSON.stringify(filters);
  const pager = usePager(filterKey);
  const { data, loading, reload } = usePageData(() => get('/v1/bo/withdrawals', { ...filters, cursor: pager.cursor }), [filterKey, pager.cursor]);
  const set = (patch) => navigate('/approvals', { ...filters, ...patch });
  return html`<section>
    <div class="page-head">
      <h1>${t('approvals.title')}</h1>
      <div class="summary"><span data-testid="approvals-total"><strong>${data ? data.total : loading ? '…' : '—'}</strong> ${t('approvals.total')}</span>
        ${data?.as_of ? html`<span class="muted">${t('common.asOf')} <${Time} at=${data.as_of} /></span>` : null}</div>
    </div>
    <${AdjustmentProposals} />
    <${FeeProposals} />
    <form class="filters" data-testid="approvals-filters" onSubmit=${(e) => { e.preventDefault(); set(Object.fromEntries(new FormData(e.currentTarget))); }}>
      <label>${t('common.status')}
        <select name="status" data-testid="filter-status" value=${filters.status} onChange=${(e) => set({ status: e.currentTarget.value })}>
          ${(filters.disputed === 'true' ? statuses : openStatuses).map((s) => html`<option value=${s}>${label('status', s)}</option>`)}
        </select></label>
      <label>${t('approvals.disputed')}
        <select name="disputed" data-testid="filter-disputed" value=${filters.disputed} onChange=${(e) => {
          const disputed = e.currentTarget.value;
          set({ disputed, ...(disputed !== 'true' && !openStatuses.includes(filters.status) ? { status: 'pending_approval' } : {}) });
        }}>
          <option value="">${t('common.any')}</option><option value="true">${t('common.yes')}</option><option value="false">${t('common.no')}</option>
        </select></label>
      <label>${t('common.merchant')}<input name="merchant_id" data-testid="filter-merchant" placeholder="mch_…" value=${filters.merchant_id} size="24" /></label>
      <${ModeFilter} value=${filters.livemode} set=${set} />
      <input type="hidden" name="limit" value=${filters.limit} />
      <button type="submit">${t('common.apply')}</button>
      <button type="button" class="ghost" data-testid="refresh" onClick=${reload}>${t('common.refresh')}</button>
    </form>
    ${data && data.data.length === 0 ? html`<${Empty}>${t('approvals.empty')}</${Empty}>` : null}
    ${data && data.data.length > 0 ? html`<div class="narrow-scroll"><table class="grid" data-testid="approvals-table" aria-busy=${loading}>
      <thead><tr><th>${t('queue.age')}</th><th>${t('common.withdrawal')}</th><th>${t('common.merchant')}</th><th>${t('withdrawal.payee')}</th><th>${t('common.status')}</th>
        <th class="num">${t('common.amount')}</th><th class="num">${t('withdrawal.fee')}</th><th>${t('queue.fourEyes')}</th><th>${t('common.created')}</th><th class="sticky-actions"><span class="visually-hidden">${t('common.actions')}</span></th></tr></thead>
      <tbody>${data.data.map((w) => html`<${ApprovalRow} key=${w.id} w=${w} reload=${reload} />`)}</tbody>
    </table></div>` : null}
    <${Pager} pager=${pager} nextCursor=${data?.next_cursor} />
  </section>`;
}

function ApprovalRow({ w, reload }) {
  return html`<tr data-testid="approval-row" data-id=${w.id}>
    <td><${Age} seconds=${w.age_seconds} /></td>
    <td><${Id} id=${w.id} to=${`#/withdrawals/${encodeURIComponent(w.id)}`} /> ${w.livemode === false ? html`<${Mode} livemode=${false} />` : null}</td>
    <td><${MerchantName} name=${w.merchant_name} /><${Id} id=${w.merchant_id} to=${`#/merchants/${encodeURIComponent(w.merchant_id)}?livemode=${w.livemode}`} /></td>
    <td data-testid="approval-payee"><${Payee} beneficiary=${w.beneficiary} /></td>
    <td><${Status} status=${w.status} />${w.dispute ? html` <${PageLink} cls="badge bad" to=${`#/disputes/${encodeURIComponent(w.dispute.id)}`}>${t('withdrawal.disputeBadge')}</${PageLink}>` : null}</td>
    <td class="num"><${Money} minor=${w.amount_total_minor} /></td>
    <td class="num"><${Money} minor=${w.fee_total_minor} /></td>
    <td><span class=${w.approvals.length > 0 ? 'badge info' : 'muted'} title=${w.approvals.join(', ')}>${w.approvals.length}/${w.approvals_required}</span></td>
    <td><${Time} at=${w.created_at} /></td>
    <td class="row-actions sticky-actions"><${WithdrawalDecision} w=${w} beneficiary=${w.beneficiary} approvals=${w.approvals} approvalsRequired=${w.approvals_required} reload=${reload} /></td>
  </tr>`;
}

/** Every merchant's live credits waiting for a second ops_admin, oldest first: shown to those who may approve one. */
function AdjustmentProposals() {
  const can = useCan();
  const mayApprove = can('POST /v1/bo/merchants/:id/adjustments/:proposalId/approve');
  const [generation, setGeneration] = useState(0);
  const waiting = usePartData(() => (mayApprove ? get('/v1/bo/adjustment-proposals', { limit: 200 }).then((r) => r.data) : Promise.resolve([])), [mayApprove, generation], []);
  if (!waiting || waiting.length === 0) return null;
  return html`<div class="card" data-testid="adjustment-proposals-waiting">
    <h2>${t('merchantAdmin.proposals')}</h2>
    <div class="narrow-scroll"><table class="grid">
      <thead><tr><th class="num">${t('common.amount')}</th><th>${t('common.merchant')}</th><th>${t('merchantAdmin.reasonCode')}</th><th>${t('merchantAdmin.proposalNote')}</th>
        <th>${t('merchantAdmin.proposedBy')}</th><th>${t('approvals.proposedAt')}</th><th>${t('merchantAdmin.approveBy')}</th><th><span class="visually-hidden">${t('common.actions')}</span></th></tr></thead>
      <tbody>${waiting.map((p) => html`<tr data-testid="waiting-adjustment" data-id=${p.id}>
        <td class="num"><${Money} minor=${p.amount_minor} /></td>
        <td data-testid="waiting-adjustment-merchant"><${MerchantName} name=${p.merchant_name} /><${Id} id=${p.merchant_id} to=${`#/merchants/${encodeURIComponent(p.merchant_id)}?livemode=true`} /></td>
        <td>${label('adjustmentReason', p.reason_code)}</td><td><${Named} text=${p.note} /></td>
        <td class="mono">${p.proposed_by}</td><td><${Time} at=${p.proposed_at} /></td><td><${Time} at=${p.approve_by} /></td>
        <td><${ProposalDecision} id=${encodeURIComponent(p.merchant_id)} proposal=${p} done=${() => setGeneration((n) => n + 1)} /></td>
      </tr>`)}</tbody>
    </table></div>
  </div>`;
}

/** White labels read for their waiting fee schedules: pages of the server's largest, this many at most. */
const whiteLabelPagesMax = 10;

async function waitingFeeSchedules() {
  const waiting = [];
  let cursor;
  for (let page = 0; page < whiteLabelPagesMax; page++) {
    const r = await get('/v1/bo/white-labels', { limit: 200, cursor });
    waiting.push(...r.data.filter((w) => w.fee_schedule_proposal));
    if (!r.next_cursor) break;
    cursor = r.next_cursor;
  }
  return waiting;
}

/** Fee schedules waiting for a second ops_admin: shown to those who may approve one. */
function FeeProposals() {
  const can = useCan();
  const mayApprove = can('POST /v1/bo/white-labels/:id/fees/approve');
  const waiting = usePartData(() => (mayApprove ? waitingFeeSchedules() : Promise.resolve([])), [mayApprove], []);
  if (!waiting || waiting.length === 0) return null;
  return html`<div class="card" data-testid="fee-proposals">
    <h2>${t('approvals.feeProposals')}</h2>
    <table class="grid">
      <thead><tr><th>${t('approvals.whiteLabel')}</th><th>${t('approvals.feeChanges')}</th><th>${t('whiteLabels.proposedBy')}</th><th>${t('approvals.feeApproveBy')}</th></tr></thead>
      <tbody>${waiting.map((w) => html`<tr data-testid="fee-proposal-row" data-id=${w.id}>
        <td><a href=${`#/white-labels?q=${encodeURIComponent(w.id)}`}><${Named} text=${w.name} /></a> <${Id} id=${w.id} keep=${14} /></td>
        <td>${changedFigures(w.fee_schedule, w.fee_schedule_proposal).map((f) => t(`field.${f.name}`)).join(', ')}</td>
        <td class="mono">${w.fee_schedule_proposal.proposed_by}</td><td><${Time} at=${w.fee_schedule_proposal.approve_by} /></td>
      </tr>`)}</tbody>
    </table>
  </div>`;
}
