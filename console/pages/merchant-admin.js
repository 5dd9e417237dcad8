// An ops_admin's actions on a merchant, on its page, each ⚑ (a step-up, as the server
// requires): suspend or lift a suspension (POST /v1/bo/merchants/{id}/suspend |
// unsuspend {reason}: the merchant's keys answer 403 tenant_suspended meanwhile; the
// reason, which the server keeps on the journal's event with the operator, is asked for
// in the page before the step-up), and a manual
// balance adjustment in the page's mode (POST /v1/bo/merchants/{id}/adjustments {livemode,
// direction, bucket, amount_minor, reason_code, reason}): a credit or a debit of one bucket,
// with the code the merchant sees (from the catalogue) and the operator's note, which stays
// in the back office; the server refuses one that would take a bucket below zero. Shown only when the operator's roles may call the routes (merchant.js checks);
// after either, the page reloads its wallet and transactions.
//
// A live credit of 100,000 baht or more is proposed, not posted (202 adjustment_proposal:
// the page says so); the live credits waiting for a second ops_admin are listed with who
// proposed them, each with Approve ⚑ (POST …/adjustments/{proposal}/approve {amount_minor}:
// the amount the approver types as they checked it, which the server compares with the
// proposal's); their proposer sees a note there instead (the server refuses them anyway).
//
// data-testids: merchant-admin, suspend, unsuspend, suspension-reason, suspension-reason-error, adjustment-form, adjustment-direction,
//   adjustment-bucket, adjustment-amount, adjustment-reason-code, adjustment-reason, adjustment-error, post-adjustment,
//   adjustment-proposals, adjustment-proposal (data-id), approve-adjustment-amount, approve-adjustment, approve-adjustment-error, own-adjustment-proposal.

import { useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { label, t } from '../i18n.js';
import { formatBaht, parseBahtToMinor, sameOperator } from '../format.js';
import { ActionButton, html, Mode, Money, Named, NoteField, StepUpFlag, Time, useCan, useFieldError, useNote, usePageContext, usePartData } from '../ui.js';

const buckets = ['available', 'pending_clearing', 'reserved'];
/** The adjustment form's labels of the fields a refusal may name (the banner names them so). */
const adjustmentFieldLabels = { amount_minor: 'common.amount', reason: 'merchantAdmin.reason', reason_code: 'merchantAdmin.reasonCode', direction: 'merchantAdmin.direction', bucket: 'merchantAdmin.bucket' };
/** The adjustment reasons for a direction, from the server's table (core/directory.ts: a reason that says which way money went goes only that way). */
const reasonsFor = (tables, direction) => (tables.adjustment_reasons ?? []).filter((r) => (r.direction ?? direction) === direction).map((r) => r.code);

export function MerchantAdmin({ merchant, livemode, onChanged }) {
  const can = useCan();
  const id = encodeURIComponent(merchant.id);
  const verb = merchant.suspended ? 'unsuspend' : 'suspend';
  const mayToggle = can(`POST /v1/bo/merchants/:id/${verb}`);
  const mayAdjust = can('POST /v1/bo/merchants/:id/adjustments');
  const [proposed, setProposed] = useState(0); // a new proposal: the list reads them again
  if (!mayToggle && !mayAdjust) return null;
  return html`<div class="card" data-testid="merchant-admin">
    <h2>${t('merchantAdmin.title')}</h2>
    ${mayToggle ? html`<${Suspension} key=${verb} id=${id} suspended=${merchant.suspended} onChanged=${onChanged} />` : null}
    ${mayAdjust ? html`<${Adjustment} id=${id} livemode=${livemode} onChanged=${onChanged} onProposed=${() => setProposed((n) => n + 1)} />` : null}
    ${mayAdjust && livemode ? html`<${Proposals} id=${id} proposed=${proposed} onChanged=${onChanged} />` : null}
  </div>`;
}

/** Suspend, or lift a suspension, with the reason the server keeps (required here: the journal should say why). */
function Suspension({ id, suspended, onChanged }) {
  const verb = suspended ? 'unsuspend' : 'suspend';
  const n = useNote(1);
  const run = async () => {
    if (!n.check()) return false;
    await post(`/v1/bo/merchants/${id}/${verb}`, { reason: n.note.trim() }, { stepUp: true });
    n.clear();
    return true;
  };
  return html`<${NoteField} n=${n} testid="suspension-reason" rows=${2} label=${t(`merchantAdmin.${verb}Reason`)} />
    <div class="buttons">
      <${ActionButton} testid=${verb} stepUp tone=${suspended ? 'primary' : 'danger'} onRun=${run} done=${onChanged} fieldLabels=${{ reason: `merchantAdmin.${verb}Reason` }}>${t(`merchantAdmin.${verb}`)}</${ActionButton}>
      <span class="small muted">${t(suspended ? 'merchantAdmin.suspendedHelp' : 'merchantAdmin.suspendHelp')}</span>
    </div>`;
}

function Adjustment({ id, livemode, onChanged, onProposed }) {
  const { tables } = usePageContext();
  const [direction, setDirection] = useState('credit');
  const [bucket, setBucket] = useState('available');
  const [amount, setAmount] = useState('');
  const [reasonCode, setReasonCode] = useState(tables.adjustment_reason_default);
  const [reason, setReason] = useState('');
  const [error, setError] = useState(null);
  const invalid = useFieldError(error, 'adjustment-error');
  const run = async () => {
    const minor = parseBahtToMinor(amount);
    if (minor === null || minor <= 0) { setError(t('merchantAdmin.amountInvalid')); return false; }
    if (reason.trim() === '') { setError(t('merchantAdmin.reasonRequired')); return false; }
    const answer = await post(`/v1/bo/merchants/${id}/adjustments`, { livemode, direction, bucket, amount_minor: minor, reason_code: reasonCode, reason: reason.trim() }, { stepUp: true });
    setAmount('');
    setReason('');
    // A large live credit (or one that brings what this operator credited alone in 24 hours to
    // that much) waits for a second ops_admin: nothing is posted yet. The notice says which.
    if (answer?.object === 'adjustment_proposal') {
      onProposed();
      const recent = answer.proposer_recent_credits_minor;
      return { notice: typeof recent === 'number' ? t('merchantAdmin.proposedByTotal', { recent: formatBaht(recent) }) : t('merchantAdmin.proposed') };
    }
    return true;
  };
  return html`<details class="subcard" data-testid="adjustment-form">
    <summary><${StepUpFlag} /> ${t('merchantAdmin.adjustment')} <${Mode} livemode=${livemode} /></summary>
    <div class="form-row">
      <label>${t('merchantAdmin.direction')}<select data-testid="adjustment-direction" value=${direction} onChange=${(e) => { const next = e.currentTarget.value; setDirection(next); if (!reasonsFor(tables, next).includes(reasonCode)) setReasonCode(tables.adjustment_reason_default); }}>
        <option value="credit">${t('merchantAdmin.credit')}</option><option value="debit">${t('merchantAdmin.debit')}</option></select></label>
      <label>${t('merchantAdmin.bucket')}<select data-testid="adjustment-bucket" value=${bucket} onChange=${(e) => setBucket(e.currentTarget.value)}>
        ${buckets.map((b) => html`<option value=${b}>${label('bucket', b)}</option>`)}</select></label>
      <label>${t('common.amount')}<input data-testid="adjustment-amount" inputmode="decimal" placeholder="0.00" ...${invalid.field} value=${amount} onInput=${(e) => { setAmount(e.currentTarget.value); setError(null); }} /></label>
    </div>
    <label class="block">${t('merchantAdmin.reasonCode')}<select data-testid="adjustment-reason-code" value=${reasonCode} onChange=${(e) => setReasonCode(e.currentTarget.value)}>
      ${reasonsFor(tables, direction).map((c) => html`<option value=${c}>${label('adjustmentReason', c)}</option>`)}</select></label>
    <label class="block">${t('merchantAdmin.reason')}<input data-testid="adjustment-reason" maxlength="500" ...${invalid.field} value=${reason} onInput=${(e) => { setReason(e.currentTarget.value); setError(null); }} /></label>
    ${invalid.message}
    <div class="buttons"><${ActionButton} testid="post-adjustment" stepUp tone="primary" onRun=${run} done=${onChanged} fieldLabels=${adjustmentFieldLabels}>${t('merchantAdmin.post')}</${ActionButton}></div>
  </details>`;
}

/** The live credits waiting for a second ops_admin, each approved by naming the amount shown on its row. */
function Proposals({ id, proposed, onChanged }) {
  const [generation, setGeneration] = useState(0);
  const proposals = usePartData(() => get(`/v1/bo/merchants/${id}/adjustment-proposals`).then((r) => r.data), [id, generation, proposed], []);
  if (!proposals || proposals.length === 0) return null;
  return html`<div class="subcard" data-testid="adjustment-proposals">
    <h3>${t('merchantAdmin.proposals')}</h3>
    <table class="grid">
      <thead><tr><th class="num">${t('common.amount')}</th><th>${t('merchantAdmin.reasonCode')}</th><th>${t('merchantAdmin.proposalNote')}</th><th>${t('merchantAdmin.proposedBy')}</th><th>${t('merchantAdmin.approveBy')}</th><th><span class="visually-hidden">${t('common.actions')}</span></th></tr></thead>
      <tbody>${proposals.map((p) => html`<tr data-testid="adjustment-proposal" data-id=${p.id}>
        <td class="num"><${Money} minor=${p.amount_minor} /></td><td>${label('adjustmentReason', p.reason_code)}</td><td><${Named} text=${p.note} /></td>
        <td class="mono">${p.proposed_by}</td><td><${Time} at=${p.approve_by} /></td>
        <td><${ProposalDecision} id=${id} proposal=${p} done=${async () => { setGeneration(generation + 1); await onChanged(); }} /></td>
      </tr>`)}</tbody>
    </table>
  </div>`;
}

/**
 * What the operator may do with a live credit waiting for a second ops_admin (here and on the
 * approvals page): approve it, or, its proposer, read why they may not. `id`: the merchant's, encoded.
 */
export function ProposalDecision({ id, proposal, done }) {
  const { session } = usePageContext();
  // Four eyes: its proposer may not approve it (the server refuses them, in any spelling of their id), so no button that opens a step-up for a refusal.
  if (sameOperator(proposal.proposed_by, session.sub)) return html`<span class="small muted" data-testid="own-adjustment-proposal">${t('merchantAdmin.ownProposal')}</span>`;
  return html`<${ApproveProposal} id=${id} proposal=${proposal} done=${done} />`;
}

/**
 * A second ops_admin's approval of a live credit: they type the amount as they checked it
 * (the evidence, the ticket), as the fee schedule's approver types every figure that moves;
 * the server refuses one that is not the proposal's (422 mismatch), so a 100× slip of the
 * proposer's is caught by the second pair of eyes rather than confirmed by a click.
 */
function ApproveProposal({ id, proposal, done }) {
  const [amount, setAmount] = useState('');
  const [error, setError] = useState(null);
  const invalid = useFieldError(error, 'approve-adjustment-error');
  const run = async () => {
    const minor = parseBahtToMinor(amount);
    if (minor === null || minor <= 0) { setError(t('merchantAdmin.approveAmountInvalid')); return false; }
    await post(`/v1/bo/merchants/${id}/adjustments/${encodeURIComponent(proposal.id)}/approve`, { amount_minor: minor }, { stepUp: true });
    setAmount('');
    return true;
  };
  return html`<div class="form-row">
    <label>${t('merchantAdmin.approveAmount')}<input data-testid="approve-adjustment-amount" inputmode="decimal" placeholder="0.00" ...${invalid.field} value=${amount} onInput=${(e) => { setAmount(e.currentTarget.value); setError(null); }} /></label>
    <${ActionButton} testid="approve-adjustment" stepUp tone="primary" onRun=${run} done=${done} fieldLabels=${{ amount_minor: 'merchantAdmin.approveAmount' }}>${t('merchantAdmin.approveProposal')}</${ActionButton}>
  </div>${invalid.message}`;
}
