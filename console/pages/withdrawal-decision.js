// Approve or reject a withdrawal pending approval, from the approvals queue or its own page.
// Either is confirmed first, on a line that names what it decides: the amount that will
// leave (or stay), its fee, the masked payee and which approval of how many this is — a
// payout is not one stray click. The optional note goes with the request (the action log
// keeps it). An operator who approved already is told so where Approve was (four eyes: the
// server would refuse them a second time; they may still reject). The server still decides
// (roles, four eyes, the status).
//
// data-testids: approve, approved-by-you, reject, decision-confirm (data-decision), decision-summary,
//   decision-note, decision-submit, decision-cancel.

import { useState } from 'preact/hooks';
import { post } from '../api.js';
import { formatBaht, sameOperator } from '../format.js';
import { t } from '../i18n.js';
import { ActionButton, html, Payee, useCan, useConfirmation, usePageContext } from '../ui.js';

/** w: the withdrawal (id, status, amount_total_minor, fee_total_minor); beneficiary: the masked payee; approvals: who approved so far, of approvalsRequired. */
export function WithdrawalDecision({ w, beneficiary, approvals, approvalsRequired, reload }) {
  const can = useCan();
  const { session } = usePageContext();
  const confirmation = useConfirmation();
  const decision = confirmation.value;
  const [note, setNote] = useState('');
  if (w.status !== 'pending_approval') return null;
  const mayApprove = can('POST /v1/bo/withdrawals/:id/approve');
  const mayReject = can('POST /v1/bo/withdrawals/:id/reject');
  const approvedAlready = approvals.some((a) => sameOperator(a, session.sub));
  if (decision === null) {
    return html`<span class="buttons">
      ${mayApprove && approvedAlready ? html`<span class="muted small" data-testid="approved-by-you">${t('approvals.approvedByYou')}</span>` : null}
      ${mayApprove && !approvedAlready ? html`<button type="button" class="primary" data-testid="approve" ref=${confirmation.openerRef('approve')} onClick=${() => confirmation.open('approve')}>${t('approvals.approve')}</button>` : null}
      ${mayReject ? html`<button type="button" class="danger" data-testid="reject" ref=${confirmation.openerRef('reject')} onClick=${() => confirmation.open('reject')}>${t('approvals.reject')}</button>` : null}
    </span>`;
  }
  const approving = decision === 'approve';
  const vars = {
    amount: formatBaht(w.amount_total_minor), fee: formatBaht(w.fee_total_minor ?? 0),
    n: approvals.length + 1, of: Math.max(approvalsRequired, 1),
  };
  const cancel = () => { confirmation.cancel(); setNote(''); };
  return html`<div class="inline-form confirm" data-testid="decision-confirm" data-decision=${decision} onKeyDown=${(e) => { if (e.key === 'Escape') setNote(''); confirmation.onKeyDown(e); }}>
    <span data-testid="decision-summary">${t(approving ? 'approvals.confirmApprove' : 'approvals.confirmReject', vars)} <${Payee} beneficiary=${beneficiary} /></span>
    <input data-testid="decision-note" aria-label=${t('note.optional')} placeholder=${t('note.optional')} value=${note} onInput=${(e) => setNote(e.currentTarget.value)} />
    <${ActionButton} testid="decision-submit" buttonRef=${confirmation.confirmRef} tone=${approving ? 'primary' : 'danger'}
      onRun=${() => post(`/v1/bo/withdrawals/${encodeURIComponent(w.id)}/${decision}`, note.trim() ? { note: note.trim() } : {})}
      done=${async () => { confirmation.close(); setNote(''); await reload(); }}>${t(approving ? 'approvals.confirmApproveButton' : 'approvals.confirmRejectButton')}</${ActionButton}>
    <button type="button" class="ghost" data-testid="decision-cancel" onClick=${cancel}>${t('common.cancel')}</button>
  </div>`;
}
