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
// data-testids: merchant-admin, suspend, unsuspend, suspension-reason, suspension-reason-error, adjustment-form, adjustment-direction,
//   adjustment-bucket, adjustment-amount, adjustment-reason-code, adjustment-reason, adjustment-error, post-adjustment.

import { useState } from 'preact/hooks';
import { post } from '../api.js';
import { label, t } from '../i18n.js';
import { parseBahtToMinor } from '../format.js';
import { ActionButton, html, Mode, NoteField, StepUpFlag, useCan, useFieldError, useNote } from '../ui.js';

const buckets = ['available', 'pending_clearing', 'reserved'];
/** The adjustment reasons a merchant may see (core/directory.ts adjustmentReasons). */
const reasonCodes = ['MANUAL_ADJUSTMENT', 'FUNDING', 'SETTLEMENT_CORRECTION', 'FEE_CORRECTION', 'GOODWILL_CREDIT', 'LOSS_RECOVERY'];

export function MerchantAdmin({ merchant, livemode, onChanged }) {
  const can = useCan();
  const id = encodeURIComponent(merchant.id);
  const verb = merchant.suspended ? 'unsuspend' : 'suspend';
  const mayToggle = can(`POST /v1/bo/merchants/:id/${verb}`);
  const mayAdjust = can('POST /v1/bo/merchants/:id/adjustments');
  if (!mayToggle && !mayAdjust) return null;
  return html`<div class="card" data-testid="merchant-admin">
    <h2>${t('merchantAdmin.title')}</h2>
    ${mayToggle ? html`<${Suspension} key=${verb} id=${id} suspended=${merchant.suspended} onChanged=${onChanged} />` : null}
    ${mayAdjust ? html`<${Adjustment} id=${id} livemode=${livemode} onChanged=${onChanged} />` : null}
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
      <${ActionButton} testid=${verb} stepUp tone=${suspended ? 'primary' : 'danger'} onRun=${run} done=${onChanged}>${t(`merchantAdmin.${verb}`)}</${ActionButton}>
      <span class="small muted">${t(suspended ? 'merchantAdmin.suspendedHelp' : 'merchantAdmin.suspendHelp')}</span>
    </div>`;
}

function Adjustment({ id, livemode, onChanged }) {
  const [direction, setDirection] = useState('credit');
  const [bucket, setBucket] = useState('available');
  const [amount, setAmount] = useState('');
  const [reasonCode, setReasonCode] = useState(reasonCodes[0]);
  const [reason, setReason] = useState('');
  const [error, setError] = useState(null);
  const invalid = useFieldError(error, 'adjustment-error');
  const run = async () => {
    const minor = parseBahtToMinor(amount);
    if (minor === null || minor <= 0) { setError(t('merchantAdmin.amountInvalid')); return false; }
    if (reason.trim() === '') { setError(t('merchantAdmin.reasonRequired')); return false; }
    await post(`/v1/bo/merchants/${id}/adjustments`, { livemode, direction, bucket, amount_minor: minor, reason_code: reasonCode, reason: reason.trim() }, { stepUp: true });
    setAmount('');
    setReason('');
    return true;
  };
  return html`<details class="subcard" data-testid="adjustment-form">
    <summary><${StepUpFlag} /> ${t('merchantAdmin.adjustment')} <${Mode} livemode=${livemode} /></summary>
    <div class="form-row">
      <label>${t('merchantAdmin.direction')}<select data-testid="adjustment-direction" value=${direction} onChange=${(e) => setDirection(e.currentTarget.value)}>
        <option value="credit">${t('merchantAdmin.credit')}</option><option value="debit">${t('merchantAdmin.debit')}</option></select></label>
      <label>${t('merchantAdmin.bucket')}<select data-testid="adjustment-bucket" value=${bucket} onChange=${(e) => setBucket(e.currentTarget.value)}>
        ${buckets.map((b) => html`<option value=${b}>${label('bucket', b)}</option>`)}</select></label>
      <label>${t('common.amount')}<input data-testid="adjustment-amount" inputmode="decimal" placeholder="0.00" ...${invalid.field} value=${amount} onInput=${(e) => { setAmount(e.currentTarget.value); setError(null); }} /></label>
    </div>
    <label class="block">${t('merchantAdmin.reasonCode')}<select data-testid="adjustment-reason-code" value=${reasonCode} onChange=${(e) => setReasonCode(e.currentTarget.value)}>
      ${reasonCodes.map((c) => html`<option value=${c}>${label('adjustmentReason', c)}</option>`)}</select></label>
    <label class="block">${t('merchantAdmin.reason')}<input data-testid="adjustment-reason" maxlength="500" ...${invalid.field} value=${reason} onInput=${(e) => { setReason(e.currentTarget.value); setError(null); }} /></label>
    ${invalid.message}
    <div class="buttons"><${ActionButton} testid="post-adjustment" stepUp tone="primary" onRun=${run} done=${onChanged}>${t('merchantAdmin.post')}</${ActionButton}></div>
  </details>`;
}
