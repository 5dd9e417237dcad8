// One withdrawal: GET /v1/bo/withdrawals/{id} → {withdrawal, merchant_id, approvals,
// approvals_required, dispute (with every evidence submission) | null, disputes (every one it has had, newest first)}. The figures
// (total, fee, locked, filled, remaining, in flight, refunded), the approvals so far and
// — for an approver, while pending — approve / reject, each confirmed first
// (withdrawal-decision.js); the fills, each with its reversal
// ⚑ for ops_admin (reason and note; step-up); its disputes (each a link to its page) and, for
// ops_admin while none is open, a form to open one (POST …/disputes: no step-up in the server's table); and,
// for ops_admin while it is open, its cancel ⚑ (POST …/cancel, a note, step-up).
//
// data-testids: withdrawal-status, withdrawal-amount, withdrawal-rejection, withdrawal-rejection-display, withdrawal-canceled-by, withdrawal-cancel-reason,
//   approvals, approve, reject,
//   decision-* (withdrawal-decision.js), fills, fill-row (data-leg), reverse-fill (data-leg), reverse-fill-form,
//   reverse-fill-reason, reverse-fill-note, reverse-fill-note-error, reverse-fill-confirm, reverse-fill-cancel,
//   disputes, dispute-row (data-id), dispute-link, dispute-outcome, dispute-form, dispute-reason, dispute-amount, dispute-respond-by, dispute-error,
//   open-dispute, cancel-withdrawal-form, cancel-withdrawal, cancel-withdrawal-note, cancel-withdrawal-confirm,
//   cancel-withdrawal-cancel.

import { useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { displayText, label, t } from '../i18n.js';
import { bangkokLocalToIso, parseBahtToMinor } from '../format.js';
import { ActionButton, CodeName, Empty, Facts, html, Id, Loading, Mode, Money, Named, NoteField, PageLink, Payee, Status, StepUpFlag, Time, useCan, useConfirmation, useFieldError, useNote, usePageContext, usePageData } from '../ui.js';
import { WithdrawalDecision } from './withdrawal-decision.js';

export function WithdrawalPage({ id }) {
  const { data, error, reload } = usePageData(() => get(`/v1/bo/withdrawals/${encodeURIComponent(id)}`), [id]);
  if (!data) return html`<${Loading} error=${error} />`;
  const w = data.withdrawal;
  return html`<section>
    <div class="page-head">
      <h1>${t('common.withdrawal')} <span class="mono">${w.id}</span></h1>
      <div class="summary">
        <span data-testid="withdrawal-status"><${Status} status=${w.status} /></span>
        <${Mode} livemode=${w.livemode} />
        <strong data-testid="withdrawal-amount"><${Money} minor=${w.amount_total_minor} /></strong>
      </div>
    </div>
    <div class="columns">
      <div class="card">
        <h2>${t('withdrawal.order')}</h2>
        <${Facts} rows=${[
          // Whose money it is, by name (the approver checks it), and its id.
          [t('common.merchant'), html`<span data-testid="withdrawal-merchant">${data.merchant_name ? html`<${Named} text=${data.merchant_name} /> ` : null}<${Id} id=${data.merchant_id} to=${`#/merchants/${encodeURIComponent(data.merchant_id)}?livemode=${w.livemode}`} keep=${14} /></span>`],
          [t('deposit.reference'), html`<span class="mono">${w.merchant_reference}</span>`],
          [t('withdrawal.endUser'), html`<span class="mono">${w.end_user_ref}</span>`],
          [t('withdrawal.beneficiary'), html`<span data-testid="withdrawal-payee"><${Payee} beneficiary=${data.beneficiary} /></span> <${Id} id=${w.beneficiary_id} />`],
          [t('common.created'), html`<${Time} at=${w.created_at} />`],
          [t('deposit.expires'), html`<${Time} at=${w.expires_at} />`],
          w.refund_of_deposit_id ? [t('withdrawal.refundOf'), html`<${Id} id=${w.refund_of_deposit_id} to=${`#/deposits/${encodeURIComponent(w.refund_of_deposit_id)}`} />`] : null,
          w.replacement_of_withdrawal_id ? [t('withdrawal.replacementOf'), html`<${Id} id=${w.replacement_of_withdrawal_id} to=${`#/withdrawals/${encodeURIComponent(w.replacement_of_withdrawal_id)}`} />`] : null,
          // Why it was rejected or canceled, and who canceled it, in words (the codes in the titles); a
          // rejection with the sentence the API gives it, as the merchant reads it (display_th, display_en).
          w.rejection ? [t('deposit.rejection'), html`<${CodeName} prefix="withdrawalRejection" code=${w.rejection.code} testid="withdrawal-rejection" /> <span data-testid="withdrawal-rejection-display">${displayText(w.rejection)}</span>`] : null,
          w.cancel_reason_code ? [t('withdrawal.canceled'), html`${w.canceled_by ? html`<${CodeName} prefix="canceledBy" code=${w.canceled_by} testid="withdrawal-canceled-by" /> · ` : null}<${CodeName}
            prefix="cancelReason" code=${w.cancel_reason_code} testid="withdrawal-cancel-reason" />`] : null,
        ]} />
      </div>
      <div class="card">
        <h2>${t('withdrawal.figures')}</h2>
        <${Facts} rows=${[
          [t('withdrawal.amountTotal'), html`<${Money} minor=${w.amount_total_minor} />`],
          [t('withdrawal.fee'), html`<${Money} minor=${w.fee_total_minor} />`],
          [t('withdrawal.locked'), html`<${Money} minor=${w.total_locked_minor} />`],
          [t('withdrawal.filled'), html`<${Money} minor=${w.filled_minor} />`],
          [t('withdrawal.remaining'), html`<${Money} minor=${w.remaining_minor} />`],
          [t('withdrawal.inFlight'), html`<${Money} minor=${w.reserved_minor} />`],
          [t('withdrawal.refunded'), html`<${Money} minor=${w.refunded_minor} />`],
          [t('withdrawal.feeRecognized'), html`<${Money} minor=${w.fee_recognized_minor} />`],
          [t('withdrawal.splits'), `${w.settled_splits} / ${w.max_splits}`],
        ]} />
      </div>
      <${Approval} data=${data} reload=${reload} />
    </div>
    <${CancelCard} w=${w} reload=${reload} />
    <div class="card"><h2>${t('withdrawal.fills')}</h2><${Fills} w=${w} reload=${reload} /></div>
    <${DisputeCard} data=${data} reload=${reload} />
  </section>`;
}

function Approval({ data, reload }) {
  const w = data.withdrawal;
  return html`<div class="card">
    <h2>${t('withdrawal.approval')}</h2>
    <${Facts} rows=${[
      [t('withdrawal.requiresApproval'), w.requires_approval ? t('common.yes') : t('common.no')],
      [t('queue.fourEyes'), html`<span data-testid="approvals">${data.approvals.length}/${data.approvals_required}</span> ${data.approvals.length > 0 ? html`<span class="muted">(${data.approvals.join(', ')})</span>` : null}`],
    ]} />
    <${WithdrawalDecision} w=${w} beneficiary=${data.beneficiary} approvals=${data.approvals} approvalsRequired=${data.approvals_required} reload=${reload} />
  </div>`;
}

/** Statuses an operator may cancel from (the server's isOpenStatus); a fill in flight is the server's 409 to tell. */
const cancelableStatuses = ['pending_approval', 'open', 'partially_filled'];

/**
 * ⚑ Cancel the remainder (ops_admin, step-up, a note): the lock goes back where it came from
 * (a claim's refund to suspense, its claim closed with what it filled). The way to stop a
 * refund a reversal of its deposit waits for.
 */
function CancelCard({ w, reload }) {
  const can = useCan();
  const confirmation = useConfirmation();
  const n = useNote(1);
  if (!can('POST /v1/bo/withdrawals/:id/cancel') || !cancelableStatuses.includes(w.status)) return null;
  const run = async () => {
    if (!n.check()) return false;
    await post(`/v1/bo/withdrawals/${encodeURIComponent(w.id)}/cancel`, { note: n.note.trim() }, { stepUp: true });
    return true;
  };
  return html`<div class="card action-card" data-testid="cancel-withdrawal-form">
    <h2><${StepUpFlag} /> ${t('withdrawal.cancelTitle')}</h2>
    <p class="small muted">${t(w.refund_of_deposit_id ? 'withdrawal.cancelRefundHelp' : 'withdrawal.cancelHelp')}</p>
    ${confirmation.value ? html`<div onKeyDown=${confirmation.onKeyDown}><${NoteField} n=${n} testid="cancel-withdrawal-note" rows=${2} />
      <div class="buttons">
        <${ActionButton} testid="cancel-withdrawal-confirm" buttonRef=${confirmation.confirmRef} tone="danger" stepUp onRun=${run} done=${async () => { confirmation.close(); await reload(); }}>${t('withdrawal.cancelConfirm')}</${ActionButton}>
        <button type="button" class="ghost" data-testid="cancel-withdrawal-cancel" onClick=${confirmation.cancel}>${t('common.cancel')}</button>
      </div></div>`
      : html`<div class="buttons"><button type="button" class="danger" data-testid="cancel-withdrawal" ref=${confirmation.openerRef()} onClick=${() => confirmation.open()}><${StepUpFlag} /> ${t('withdrawal.cancelTitle')}</button></div>`}
  </div>`;
}

function Fills({ w, reload }) {
  const can = useCan();
  const reversing = useConfirmation(); // its value: the leg_ref whose reversal form is open
  if (w.fills.length === 0) return html`<${Empty}>${t('withdrawal.noFills')}</${Empty}>`;
  const mayReverse = can('POST /v1/bo/withdrawals/:id/fills/:legRef/reverse');
  return html`<table class="grid" data-testid="fills">
    <thead><tr><th>${t('leg.ref')}</th><th>#</th><th class="num">${t('common.amount')}</th><th class="num">${t('withdrawal.feeShare')}</th>
      <th>${t('withdrawal.settledAt')}</th><th>${t('withdrawal.autoConfirm')}</th><th>${t('withdrawal.receipt')}</th><th>${t('withdrawal.balanceTransaction')}</th><th>${t('common.deposit')}</th><th><span class="visually-hidden">${t('common.actions')}</span></th></tr></thead>
    <tbody>${w.fills.map((f) => html`<tr data-testid="fill-row" data-leg=${f.leg_ref}>
      <td class="mono">${f.leg_ref}</td><td>${f.sequence}</td>
      <td class="num"><${Money} minor=${f.amount_minor} /></td><td class="num"><${Money} minor=${f.fee_recognized_minor} /></td>
      <td><${Time} at=${f.settled_at} /></td><td><${Time} at=${f.auto_confirm_at} /></td>
      <td>${f.receipt_state ? html`<${Status} status=${f.receipt_state} prefix="receipt" />` : '—'}</td>
      <td><${Id} id=${f.balance_transaction_id} /></td>
      <td data-testid="fill-deposit">${f.deposit_id ? html`<${Id} id=${f.deposit_id} to=${`#/deposits/${encodeURIComponent(f.deposit_id)}`} />` : '—'}</td>
      <td>${mayReverse && f.receipt_state !== 'reversed' ? html`<button type="button" class="danger" data-testid="reverse-fill" data-leg=${f.leg_ref} aria-expanded=${reversing.value === f.leg_ref ? 'true' : 'false'} ref=${reversing.openerRef(f.leg_ref)} onClick=${() => reversing.open(f.leg_ref)}><${StepUpFlag} /> ${t('withdrawal.reverseFill')}</button>` : null}</td>
    </tr>`)}</tbody>
  </table>
  ${reversing.value ? html`<${ReverseFill} key=${reversing.value} w=${w} legRef=${reversing.value} confirmation=${reversing} reload=${reload} />` : null}`;
}

/** Opened from a fill's row: focus goes to its first field; Cancel or Escape gives it back to that row's button. */
function ReverseFill({ w, legRef, confirmation, reload }) {
  const { tables } = usePageContext();
  const codes = tables.reversal_reason_codes ?? [];
  const [reason, setReason] = useState(codes[0] ?? '');
  const n = useNote(); // a fill reversal needs a note as a review decision does (20 readable characters)
  const run = async () => {
    if (!n.check()) return false;
    await post(`/v1/bo/withdrawals/${encodeURIComponent(w.id)}/fills/${encodeURIComponent(legRef)}/reverse`, { reason_code: reason, note: n.note.trim() }, { stepUp: true });
    return true;
  };
  return html`<div class="subcard" data-testid="reverse-fill-form" role="group" aria-label=${t('withdrawal.reverseFillTitle', { leg: legRef })} onKeyDown=${confirmation.onKeyDown}>
    <h3><${StepUpFlag} /> ${t('withdrawal.reverseFillTitle', { leg: legRef })}</h3>
    <p class="small muted">${t('withdrawal.reverseFillHelp')}</p>
    <label class="inline">${t('common.reason')}
      <select data-testid="reverse-fill-reason" ref=${confirmation.confirmRef} value=${reason} onChange=${(e) => setReason(e.currentTarget.value)}>
        ${codes.map((c) => html`<option value=${c}>${label('reversal', c)}</option>`)}
      </select></label>
    <${NoteField} n=${n} testid="reverse-fill-note" rows=${2} />
    <div class="buttons">
      <${ActionButton} testid="reverse-fill-confirm" tone="danger" stepUp onRun=${run} done=${async () => { confirmation.close(); await reload(); }}>${t('withdrawal.reverseFill')}</${ActionButton}>
      <button type="button" class="ghost" data-testid="reverse-fill-cancel" onClick=${confirmation.cancel}>${t('common.cancel')}</button>
    </div>
  </div>`;
}

/** Every dispute the withdrawal has had, newest first (the current one on top), each linking to its own page. */
function DisputeList({ disputes }) {
  return html`<div class="card">
    <h2>${t(disputes.length > 1 ? 'dispute.titleAll' : 'dispute.title')}</h2>
    <table class="grid" data-testid="disputes">
      <thead><tr><th>${t('dispute.title')}</th><th>${t('common.status')}</th><th>${t('common.reason')}</th><th class="num">${t('common.amount')}</th>
        <th>${t('dispute.openedAt')}</th><th>${t('dispute.respondBy')} / ${t('dispute.resolvedAt')}</th></tr></thead>
      <tbody>${disputes.map((d) => html`<tr data-testid="dispute-row" data-id=${d.id}>
        <td><${PageLink} testid="dispute-link" cls="mono" to=${`#/disputes/${encodeURIComponent(d.id)}`}>${d.id}</${PageLink}></td>
        <td><${Status} status=${d.status} prefix="disputeStatus" />${d.outcome ? html` <span data-testid="dispute-outcome" data-status=${d.outcome}><${Status} status=${d.outcome} prefix="outcome" /></span>` : null}</td>
        <td><${CodeName} prefix="disputeReason" code=${d.reason_code} testid="dispute-reason-code" /></td>
        <td class="num"><${Money} minor=${d.amount_minor} /></td>
        <td><${Time} at=${d.opened_at} /></td>
        <td>${d.resolved_at ? html`<${Time} at=${d.resolved_at} />` : html`<${Time} at=${d.respond_by} />`}</td>
      </tr>`)}</tbody>
    </table>
  </div>`;
}

function DisputeCard({ data, reload }) {
  const can = useCan();
  const [reason, setReason] = useState('');
  const [amount, setAmount] = useState('');
  const [respondBy, setRespondBy] = useState('');
  const [error, setError] = useState(null);
  const invalid = useFieldError(error, 'dispute-error');
  const disputes = data.disputes ?? (data.dispute ? [data.dispute] : []);
  const list = disputes.length > 0 ? html`<${DisputeList} disputes=${disputes} />` : null;
  // The server takes a new dispute once the current one is resolved, so only an open one hides the form.
  if (data.dispute?.status === 'open' || !can('POST /v1/bo/withdrawals/:id/disputes')) return list;
  const open = async () => {
    const minor = parseBahtToMinor(amount);
    if (reason.trim() === '' || minor === null || minor <= 0) { setError(t('dispute.formInvalid')); return false; }
    const body = { reason_code: reason.trim(), amount_minor: minor };
    if (respondBy) body.respond_by = bangkokLocalToIso(respondBy);
    await post(`/v1/bo/withdrawals/${encodeURIComponent(data.withdrawal.id)}/disputes`, body);
    return true;
  };
  return html`${list}<details class="card" data-testid="dispute-form">
    <summary>${t('dispute.open')}</summary>
    <div class="form-row">
      <label>${t('common.reason')}<input data-testid="dispute-reason" placeholder=${t('dispute.reasonExample')} ...${invalid.field} value=${reason} onInput=${(e) => { setReason(e.currentTarget.value); setError(null); }} /></label>
      <label>${t('dispute.amount')}<input data-testid="dispute-amount" inputmode="decimal" placeholder="0.00" ...${invalid.field} value=${amount} onInput=${(e) => { setAmount(e.currentTarget.value); setError(null); }} /></label>
      <label>${t('dispute.respondByBangkok')}<input type="datetime-local" data-testid="dispute-respond-by" value=${respondBy} onInput=${(e) => setRespondBy(e.currentTarget.value)} /></label>
    </div>
    ${invalid.message}
    <div class="buttons"><${ActionButton} testid="open-dispute" tone="danger" onRun=${open} done=${reload}>${t('dispute.open')}</${ActionButton}></div>
  </details>`;
}
