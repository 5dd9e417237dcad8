// One deposit: GET /v1/bo/deposits/{id} → {deposit, merchant, review, evidence, timeline}.
// The order and its review state (reasons, age, escalation, four-eyes approvals of
// approvals_needed), the reviewer's decision (approve / decline with a note; the page
// refuses a note under the server's minimum before calling, the server refuses it too and
// any other refusal — the same reviewer twice is a 409 — shows in the banner), the
// reversal ⚑ of a settled deposit (ops_admin), then the evidence (deposit-evidence.js):
// the six verdicts side by side, the slips with their images, duplicate hits, legs and the
// timeline with journal seqs. Buttons the operator's roles cannot call are not shown.
//
// data-testids: deposit-status, deposit-amount, review-panel, approvals, approvals-needed,
//   deposit-sender, decision-form, note, note-error, amount, leg-amount (data-leg), amount-error, approve, decline, reverse-form,
//   deposit-reversal-reason, reverse-reason, reverse-note, reverse-note-error, reverse, (deposit-evidence.js: verdicts, verdict-row,
//   slip, slip-image, duplicate-hits, legs, timeline, timeline-step).

import { ApiProblem, get, post } from '../api.js';
import { displayText, label, language, t } from '../i18n.js';
import { formatBaht, parseBahtToMinor } from '../format.js';
import { ActionButton, Age, Badge, CodeName, Facts, FieldName, html, Id, Loading, Mode, Money, Named, NoteField, ReviewReason, Status, StepUpFlag, Time, useCan, useFieldError, useNote, usePageContext, usePageData } from '../ui.js';
import { DetailValue, Evidence } from './deposit-evidence.js';
import { useState } from 'preact/hooks';

export function DepositPage({ id }) {
  const can = useCan();
  const { data, error, reload } = usePageData(() => get(`/v1/bo/deposits/${encodeURIComponent(id)}`), [id]);
  if (!data) return html`<${Loading} error=${error} />`;
  const { deposit, merchant, review } = data;
  return html`<section>
    <div class="page-head">
      <h1>${t('common.deposit')} <span class="mono">${deposit.id}</span></h1>
      <div class="summary">
        <span data-testid="deposit-status"><${Status} status=${deposit.status} /></span>
        <${Mode} livemode=${deposit.livemode} />
        <strong data-testid="deposit-amount"><${Money} minor=${deposit.amount_minor} /></strong>
      </div>
    </div>
    <div class="columns">
      <div class="card">
        <h2>${t('deposit.order')}</h2>
        <${Facts} rows=${[
          [t('common.merchant'), html`<a href=${`#/merchants/${encodeURIComponent(merchant.id)}?livemode=${deposit.livemode}`}><${Named} text=${merchant.name ?? merchant.id} /></a> <${Id} id=${merchant.id} />`],
          [t('deposit.reference'), html`<span class="mono">${deposit.merchant_reference}</span>`],
          [t('common.created'), html`<${Time} at=${deposit.created_at} />`],
          [t('deposit.expires'), html`<${Time} at=${deposit.expires_at} />`],
          // An expired or canceled order takes a late slip until then (null: it never had a destination).
          deposit.late_slip_accepted_until !== undefined ? [t('deposit.lateSlipUntil'), html`<span data-testid="deposit-late-slip-until">${deposit.late_slip_accepted_until === null ? t('deposit.lateSlipNever') : html`<${Time} at=${deposit.late_slip_accepted_until} />`}</span>`] : null,
          [t('deposit.sender'), html`<span data-testid="deposit-sender">${deposit.sender?.bank_code ?? ''} ${deposit.sender?.account_number_masked ?? ''} <${Named} text=${deposit.sender?.account_name_th_masked} /></span>`],
          deposit.amount_received_minor !== undefined ? [t('deposit.received'), html`<${Money} minor=${deposit.amount_received_minor} />`] : null,
          deposit.credited_amount_minor !== undefined ? [t('deposit.credited'), html`<${Money} minor=${deposit.credited_amount_minor} />`] : null,
          deposit.fee_total_minor !== undefined ? [t('deposit.fee'), html`<${Money} minor=${deposit.fee_total_minor} />`] : null,
          deposit.settled_at ? [t('deposit.settledAt'), html`<${Time} at=${deposit.settled_at} />`] : null,
          deposit.overpayment ? [t('deposit.overpayment'), html`<${Money} minor=${deposit.overpayment.amount_minor} /> <${Id} id=${deposit.overpayment.claim_id} to=${`#/claims/${encodeURIComponent(deposit.overpayment.claim_id)}`} keep=${14} />`] : null,
          deposit.rejection ? [t('deposit.rejection'), html`<${ReviewReason} code=${deposit.rejection.code} /> ${displayText(deposit.rejection)}`] : null,
          deposit.reversal ? [t('deposit.reversal'), html`<${CodeName} prefix="reversal" code=${deposit.reversal.reason_code} testid="deposit-reversal-reason" />`] : null,
          can('GET /v1/bo/claims') ? [t('deposit.claims'), html`<a href=${`#/claims?deposit_id=${encodeURIComponent(deposit.id)}`}>${t('deposit.claimsLink')}</a>`] : null,
        ]} />
      </div>
      ${review ? html`<${ReviewPanel} review=${review} />` : null}
    </div>
    <${Decision} deposit=${deposit} review=${review} reload=${reload} />
    <${Reversal} deposit=${deposit} reload=${reload} />
    <${Evidence} data=${data} />
  </section>`;
}

function ReviewPanel({ review }) {
  const { tables } = usePageContext();
  const reasonText = (code) => {
    const r = (tables.review_reasons ?? []).find((x) => x.code === code);
    return r ? (language() === 'th' ? r.th : r.en) : '';
  };
  return html`<div class="card" data-testid="review-panel">
    <h2>${t('deposit.review')} ${review.escalated ? html`<${Badge} tone="bad">${t('queue.escalatedBadge')}</${Badge}>` : null}</h2>
    <${Facts} rows=${[
      [t('deposit.reviewOpened'), html`<${Time} at=${review.opened_at} />`],
      [t('queue.age'), html`<${Age} seconds=${review.age_seconds} />`],
      [t('queue.fourEyes'), html`<span data-testid="approvals">${review.approvals.length}</span> / <span data-testid="approvals-needed">${review.approvals_needed}</span>
        ${review.approvals.length > 0 ? html` <span class="muted">(${review.approvals.join(', ')})</span>` : null}`],
      [t('queue.reasons'), html`<ul class="plain">${review.reasons.map((r) => html`<li><${ReviewReason} code=${r.code} text=${reasonText(r.code)} /> ${reasonText(r.code)}
        ${r.detail ? html`<div class="small" data-testid="reason-detail">${Object.entries(r.detail).map(([k, v]) => html`<${FieldName} name=${k} /> <${DetailValue} name=${k} value=${v} /> `)}</div>` : null}</li>`)}</ul>`],
    ]} />
  </div>`;
}

function Decision({ deposit, review, reload }) {
  const can = useCan();
  const n = useNote();
  const [amount, setAmount] = useState('');
  const [amountError, setAmountError] = useState(null);
  const invalid = useFieldError(amountError, 'amount-error');
  const [legAmounts, setLegAmounts] = useState({});
  // More than one leg waiting: one figure cannot say which destination got the money, so
  // the reviewer gives each leg's (the server refuses a single amount then).
  const waiting = (deposit.legs ?? []).filter((l) => l.leg_status !== 'complete');
  const perLeg = waiting.length > 1;
  const mayApprove = can('POST /v1/bo/deposits/:id/approve'), mayDecline = can('POST /v1/bo/deposits/:id/decline');
  if (deposit.status !== 'under_review' || !review || (!mayApprove && !mayDecline)) return null;
  const path = (verb) => `/v1/bo/deposits/${encodeURIComponent(deposit.id)}/${verb}`;
  const decide = async (verb) => {
    if (!n.check()) return false;
    // An approval names the version this page shows: figures another reviewer recorded since are refused, not confirmed unseen.
    const body = verb === 'approve' ? { note: n.note.trim(), version: deposit.version } : { note: n.note.trim() };
    const confirming = (review.approved_amounts ?? null) !== null && waiting.every((l) => (legAmounts[l.leg_ref] ?? '').trim() === '');
    if (verb === 'approve' && perLeg && !confirming) {
      const legs = waiting.map((l) => ({ leg_ref: l.leg_ref, amount_minor: parseBahtToMinor((legAmounts[l.leg_ref] ?? '').trim()) }));
      if (legs.some((l) => l.amount_minor === null || l.amount_minor < 0)) { setAmountError(t('deposit.legAmountsRequired')); return false; }
      body.legs = legs;
    } else if (verb === 'approve' && amount.trim() !== '') {
      const minor = parseBahtToMinor(amount);
      if (minor === null || minor <= 0) { setAmountError(t('amount.invalid')); return false; }
      body.amount_minor = minor;
    }
    let answer;
    try {
      answer = await post(path(verb), body);
    } catch (error) {
      // No amount typed where the slip shows none: the server's refusal names its field (amount_minor);
      // say it at the amount's field, in the console's language, the note kept.
      const unknownAmount = verb === 'approve' && !perLeg && error instanceof ApiProblem && error.code === 'validation_error'
        && (error.details?.fields ?? []).some((f) => f.path === 'amount_minor' && f.reason === 'required');
      if (!unknownAmount) throw error;
      setAmountError(t('deposit.amountRequired'));
      return false;
    }
    n.clear();
    setAmount('');
    setLegAmounts({});
    // Four eyes: say what this approval did when it did not settle — recorded as the first,
    // or, after another reviewer's, restarted because the figures differ from theirs.
    if (verb === 'approve' && answer?.status === 'under_review') return { notice: t(review.approvals.length > 0 ? 'deposit.restartedNotice' : 'deposit.firstApprovalNotice') };
    return true;
  };
  return html`<div class="card action-card" data-testid="decision-form">
    <h2>${t('deposit.decision')}</h2>
    <${NoteField} n=${n} />
    ${mayApprove && review.approved_amounts ? html`<p class="small" data-testid="approved-amounts">${t('deposit.approvedAmounts')}
      ${review.approved_amounts.map((r) => html` ${perLeg ? html`<span class="mono">${r.leg_ref}</span> ` : null}<${Money} minor=${r.amount_minor} />`)}</p>` : null}
    ${mayApprove && perLeg ? html`<p class="small">${t('deposit.legAmountsHint')}</p>
      ${waiting.map((l) => html`<label class="inline">${t('deposit.legReceived', { leg: l.leg_ref })} <${Money} minor=${l.amount_minor} />
        <input data-testid="leg-amount" data-leg=${l.leg_ref} inputmode="decimal" ...${invalid.field} value=${legAmounts[l.leg_ref] ?? ''}
          onInput=${(e) => { setLegAmounts({ ...legAmounts, [l.leg_ref]: e.currentTarget.value }); setAmountError(null); }} /></label>`)}
      ${invalid.message}` : null}
    ${mayApprove && !perLeg ? html`<label class="inline">${t('deposit.transferredAmount')}
      <input data-testid="amount" inputmode="decimal" placeholder=${t('deposit.transferredAmountHint')} ...${invalid.field} value=${amount} onInput=${(e) => { setAmount(e.currentTarget.value); setAmountError(null); }} /></label>
      ${invalid.message}` : null}
    <div class="buttons">
      ${mayApprove ? html`<${ActionButton} testid="approve" tone="primary" onRun=${() => decide('approve')} done=${reload}>${t('deposit.approve')}</${ActionButton}>` : null}
      ${mayDecline ? html`<${ActionButton} testid="decline" tone="danger" onRun=${() => decide('decline')} done=${reload}>${t('deposit.decline')}</${ActionButton}>` : null}
    </div>
  </div>`;
}

function Reversal({ deposit, reload }) {
  const can = useCan();
  const { tables } = usePageContext();
  const n = useNote(); // a reversal needs a note as a review decision does (20 readable characters)
  const codes = tables.reversal_reason_codes ?? [];
  const [reason, setReason] = useState(codes[0] ?? '');
  // A claim already refunded the payer part of this transfer: the server refuses the reversal
  // (the bank's recall pays them again) until the operator says the refund is owed back.
  const [refunded, setRefunded] = useState(null);
  const [recover, setRecover] = useState(false);
  if (deposit.status !== 'settled' || !can('POST /v1/bo/deposits/:id/reverse')) return null;
  const reverse = async () => {
    if (!n.check()) return false;
    const body = { reason_code: reason, note: n.note.trim(), ...(recover ? { claim_refunds: 'recover_from_payer' } : {}) };
    try {
      await post(`/v1/bo/deposits/${encodeURIComponent(deposit.id)}/reverse`, body, { stepUp: true });
    } catch (error) {
      if (error?.code === 'operation_not_allowed' && typeof error.details?.refunded_minor === 'number') setRefunded(error.details);
      throw error;
    }
    n.clear();
    return true;
  };
  return html`<details class="card action-card" data-testid="reverse-form">
    <summary><${StepUpFlag} /> ${t('deposit.reverseTitle')}</summary>
    <p class="small muted">${t('deposit.reverseHelp')}</p>
    <label class="inline">${t('common.reason')}
      <select data-testid="reverse-reason" value=${reason} onChange=${(e) => setReason(e.currentTarget.value)}>
        ${codes.map((c) => html`<option value=${c}>${label('reversal', c)}</option>`)}
      </select></label>
    <${NoteField} n=${n} testid="reverse-note" rows=${2} />
    ${refunded ? html`<label class="block" data-testid="reverse-recover-label"><input type="checkbox" data-testid="reverse-recover" checked=${recover}
      onChange=${(e) => setRecover(e.currentTarget.checked)} /> ${t('deposit.reverseRecover', { claim: refunded.claim_id, amount: formatBaht(refunded.refunded_minor) })}</label>` : null}
    <div class="buttons"><${ActionButton} testid="reverse" tone="danger" stepUp onRun=${reverse} done=${reload}>${t('deposit.reverse')}</${ActionButton}></div>
  </details>`;
}
