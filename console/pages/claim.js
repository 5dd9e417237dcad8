// One claim: GET /v1/bo/claims/{id} → the claim with every decision (notes[]: at,
// operator, status, note, event), what the payer owes back, what finance wrote off of it and a
// write-off waiting for approval, its refund withdrawal and its merchant_name (shown before the
// merchant's id, as the deposit and withdrawal pages show theirs). ops_admin moves it with one route per
// transition (review, refund, payout, close, reject), each with a note of at least the
// server's minimum (checked here first, and by the server) and, for refund, an optional
// amount. Only the transitions the server's table (claim_transitions in
// /console/tables.json) allows from the current status are offered; the server still
// refuses a wrong one (409 operation_not_allowed, shown in the banner).
//
// data-testids: claim-status, claim-kind, claim-evidence (an automatic claim's cause by its name, its code in
//   claim-evidence-code; an operator's evidence as written), claim-merchant-name, claim-amount, claim-owed-by-payer (a refund the payer owes
//   back, shown when > 0), claim-written-off (what of it finance wrote off, when > 0),
//   claim-write-off-proposal (a write-off waiting for a second finance operator), claim-owed-by-payee (what its refunds paid that the payee owes, shown when > 0), notes, note-row, note-operator (the operator's id; for an automatic claim's opening, which has none, the system by name), note-text (in Thai, a note the service wrote:
//   note-label, its Thai label by the note's event, and note-stored, the English as stored), refund-withdrawal, transition-form,
//   note, note-error, refund-amount, refund-amount-error, claim-review, claim-refund,
//   claim-payout, claim-close, claim-reject.

import { useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { dictionaries, label, language, t } from '../i18n.js';
import { formatBaht, formatTime, parseBahtToMinor, sameOperator } from '../format.js';
import { ActionButton, CodeName, Empty, Facts, html, Id, Loading, MerchantName, Mode, Money, Named, NoteField, Status, Time, useCan, useFieldError, useNote, usePageContext, usePageData } from '../ui.js';

const transitionOrder = ['review', 'refund', 'payout', 'close', 'reject'];
/** The transitions that move money out: the server asks a fresh step-up for them. */
const stepsUp = new Set(['refund', 'payout']);

export function ClaimPage({ id }) {
  const { data: c, error, reload } = usePageData(() => get(`/v1/bo/claims/${encodeURIComponent(id)}`), [id]);
  if (!c) return html`<${Loading} error=${error} />`;
  const refund = c.refund_withdrawal;
  return html`<section>
    <div class="page-head">
      <h1>${t('claims.claim')} <span class="mono">${c.id}</span></h1>
      <div class="summary">
        <span data-testid="claim-status"><${Status} status=${c.status} prefix="claimStatus" /></span>
        <${Mode} livemode=${c.livemode} />
        <strong data-testid="claim-amount"><${Money} minor=${c.amount_minor} /></strong>
      </div>
    </div>
    <div class="columns">
      <div class="card"><h2>${t('claims.claim')}</h2>
        <${Facts} rows=${[
          [t('claims.kind'), html`<${CodeName} prefix="claimKind" code=${c.kind} testid="claim-kind" />`],
          [t('common.deposit'), html`<${Id} id=${c.deposit_id} to=${`#/deposits/${encodeURIComponent(c.deposit_id)}`} keep=${14} />`],
          [t('common.merchant'), html`<${MerchantName} name=${c.merchant_name} testid="claim-merchant-name" /><${Id} id=${c.merchant_id} to=${`#/merchants/${encodeURIComponent(c.merchant_id)}?livemode=${c.livemode}`} keep=${14} />`],
          [t('common.created'), html`<${Time} at=${c.created_at} />`],
          [t('claims.updated'), html`<${Time} at=${c.updated_at} />`],
          c.evidence ? [t('claims.evidence'), html`<${Evidence} evidence=${c.evidence} />`] : null,
          c.refund_minor !== null ? [t('claims.refundAmount'), html`<${Money} minor=${c.refund_minor} />`] : null,
          c.refund_account ? [t('claims.refundAccount'), html`<span class="mono">${c.refund_account.bank_code} ${c.refund_account.account_number_masked} <${Named} text=${c.refund_account.account_name_th_masked} /></span>`] : null,
          c.refunded_minor !== null ? [t('claims.refunded'), html`<${Money} minor=${c.refunded_minor} />`] : null,
          // A refund the payer owes back (its deposit reversed after the refund was paid): the claim behind the trial balance's owed_by_payers.
          c.owed_by_payer_minor > 0 ? [t('field.owed_by_payer_minor'), html`<span data-testid="claim-owed-by-payer"><${Money} minor=${c.owed_by_payer_minor} /></span>`] : null,
          // What finance wrote off of that debt (two operators; the trial balance's payer_debts_written_off), and a write-off waiting for its second operator.
          c.written_off_minor > 0 ? [t('field.written_off_minor'), html`<span data-testid="claim-written-off"><${Money} minor=${c.written_off_minor} /></span>`] : null,
          c.write_off_proposal ? [t('claims.writeOffProposal'), html`<span data-testid="claim-write-off-proposal">${t('claims.writeOffProposalText', {
            amount: formatBaht(c.write_off_proposal.amount_minor), operator: c.write_off_proposal.proposed_by, approveBy: formatTime(c.write_off_proposal.approve_by),
          })}</span>`] : null,
          // What its refunds paid that the payer does not owe back (money the service never held, in the payee's account): the claim behind owed_by_payees.
          c.owed_by_payee_minor > 0 ? [t('field.owed_by_payee_minor'), html`<span data-testid="claim-owed-by-payee"><${Money} minor=${c.owed_by_payee_minor} /></span>`] : null,
        ]} />
      </div>
      <div class="card" data-testid="refund-withdrawal"><h2>${t('claims.refundWithdrawal')}</h2>
        ${refund ? html`<${Facts} rows=${[
          [t('common.withdrawal'), html`<${Id} id=${refund.id} to=${`#/withdrawals/${encodeURIComponent(refund.id)}`} keep=${14} />`],
          [t('common.status'), html`<${Status} status=${refund.status} />`],
          [t('withdrawal.amountTotal'), html`<${Money} minor=${refund.amount_total_minor} />`],
          [t('withdrawal.filled'), html`<${Money} minor=${refund.filled_minor} />`],
        ]} />` : html`<${Empty}>${t('claims.noRefundWithdrawal')}</${Empty}>`}
      </div>
    </div>
    <div class="card"><h2>${t('claims.notes')}</h2>
      ${c.notes.length === 0 ? html`<${Empty} />` : html`<table class="grid" data-testid="notes">
        <thead><tr><th>${t('timeline.at')}</th><th>${t('claims.operator')}</th><th>${t('common.status')}</th><th>${t('claims.note')}</th></tr></thead>
        <tbody>${c.notes.map((x) => html`<tr data-testid="note-row"><td><${Time} at=${x.at} /></td><td class="mono operator-id"><span data-testid="note-operator">${x.operator == null || x.operator === serviceOperator ? t('claims.systemOperator') : x.operator}</span></td>
          <td><${Status} status=${x.status} prefix="claimStatus" /></td><td class="prewrap" data-testid="note-text"><${NoteText} note=${x} evidence=${c.evidence} /></td></tr>`)}</tbody>
      </table>`}
      ${c.note && c.notes[0]?.note !== c.note ? html`<p class="small muted">${t('claims.openingNote')}: <${Named} text=${c.note} /></p>` : null}
    </div>
    <${Transitions} claim=${c} reload=${reload} />
  </section>`;
}

/** The operator id the service's own claim decisions carry (systemOperatorId, core/handler/claims.ts). */
const serviceOperator = 'system';

/**
 * The label of a note the service wrote (its text is English, as the journal keeps it), by the
 * note's event and operator, never by its words; null for an operator's own note. The opening
 * of an automatic claim has no operator; a close by the service carries serviceOperator; a
 * refund's recall and a refund owed back (the deposit reversed) are always the service's words.
 */
function serviceNoteKey(note) {
  if (note.event === 'ClaimOpened' && note.operator === null) return 'claimNote.openedAutomatically';
  if (note.event === 'ClaimClosed' && note.operator === serviceOperator) return 'claimNote.closedAutomatically';
  if (note.event === 'ClaimRefundRecalled') return 'claimNote.refundRecalled';
  if (note.event === 'ClaimRefundOwed') return 'claimNote.refundOwed';
  return null;
}

/** A note as written; in Thai, a note the service wrote under its Thai label, the stored English beneath. */
function NoteText({ note, evidence }) {
  const key = language() === 'th' ? serviceNoteKey(note) : null;
  if (!key) return html`<${Named} text=${note.note} />`;
  return html`<span data-testid="note-label">${t(key, { cause: label('claimEvidence', evidence) })}</span>
    <span class="small muted note-stored" lang="en" data-testid="note-stored">${note.note}</span>`;
}

/**
 * What the claim rests on: an automatic claim's cause (a code: same_transfer_excess,
 * additional_transfer) by its name in the console's language, the code kept beside it for
 * support staff; an operator's evidence, free text, as written.
 */
function Evidence({ evidence }) {
  if (dictionaries.en[`claimEvidence.${evidence}`] === undefined) return html`<span class="prewrap" data-testid="claim-evidence">${evidence}</span>`;
  return html`<${CodeName} prefix="claimEvidence" code=${evidence} testid="claim-evidence" /> <span class="small mono muted" data-testid="claim-evidence-code">${evidence}</span>`;
}

/**
 * Whom the four eyes bar from a transition (the server's rule, core/claim/decide.ts): the
 * operator who opened the claim approves no refund of it, and the one who approved the
 * refund pays none out. The button stays, disabled and saying why, rather than costing a
 * step-up for a 409.
 */
function barredBy(claim, sub) {
  const opener = claim.notes.find((x) => x.status === 'open')?.operator;
  const approver = [...claim.notes].reverse().find((x) => x.status === 'refund_pending')?.operator;
  return { refund: sameOperator(opener, sub) ? 'claims.fourEyes.opened' : null, payout: sameOperator(approver, sub) ? 'claims.fourEyes.approved' : null };
}

function Transitions({ claim, reload }) {
  const can = useCan();
  const { tables, session } = usePageContext();
  const barred = barredBy(claim, session?.sub);
  const n = useNote();
  const [amount, setAmount] = useState('');
  const [amountError, setAmountError] = useState(null);
  const invalid = useFieldError(amountError, 'refund-amount-error');
  // Close waits for the refund's payout to be final (the server refuses it meanwhile): not offered until then.
  const refundPaying = claim.status === 'return_pending_payout' && !['settled', 'expired', 'canceled', 'rejected'].includes(claim.refund_withdrawal?.status);
  const offered = transitionOrder.filter((tr) => (tables.claim_transitions?.[tr] ?? []).includes(claim.status) && can(`POST /v1/bo/claims/:id/${tr}`)
    && !(tr === 'close' && refundPaying));
  if (offered.length === 0) return null;
  const run = async (transition) => {
    if (!n.check()) return false;
    const body = { note: n.note.trim() };
    if (transition === 'refund' && amount.trim() !== '') {
      const minor = parseBahtToMinor(amount);
      if (minor === null || minor <= 0) { setAmountError(t('amount.invalid')); return false; }
      body.amount_minor = minor;
    }
    // Money leaves on a refund or a payout: the server asks for a fresh step-up (bo-claims.ts).
    await post(`/v1/bo/claims/${encodeURIComponent(claim.id)}/${transition}`, body, { stepUp: stepsUp.has(transition) });
    n.clear();
    setAmount('');
    return true;
  };
  return html`<div class="card action-card" data-testid="transition-form">
    <h2>${t('claims.decide')}</h2>
    <${NoteField} n=${n} />
    ${offered.includes('refund') ? html`<label class="inline">${t('claims.refundAmountInput')}
      <input data-testid="refund-amount" inputmode="decimal" placeholder=${t('claims.refundAll')} ...${invalid.field} value=${amount} onInput=${(e) => { setAmount(e.currentTarget.value); setAmountError(null); }} /></label>
      ${invalid.message}` : null}
    <div class="buttons">${offered.map((tr) => html`<${ActionButton} testid=${`claim-${tr}`} stepUp=${stepsUp.has(tr)} tone=${tr === 'reject' ? 'danger' : 'primary'} disabled=${barred[tr] != null} title=${barred[tr] ? t(barred[tr]) : undefined} onRun=${() => run(tr)} done=${reload}>${t(`claims.t.${tr}`)}</${ActionButton}>`)}</div>
    ${offered.filter((tr) => barred[tr]).map((tr) => html`<p class="muted" data-testid="four-eyes-hint">${t(barred[tr])}</p>`)}
  </div>`;
}
