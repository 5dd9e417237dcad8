// White labels (#/white-labels): GET /v1/bo/white-labels?q= with the server's cursor. Each
// white label with its merchants, the fee schedule in force (the deposit processing fee as
// a percentage, the withdrawal fixed fee in baht, the VAT rates, the amount limits) and the
// proposal waiting for a second ops_admin, if any: who proposed it, when, until when it may
// be approved, and each figure it changes, before → after.
//
// For ops_admin, each ⚑ after a step-up: propose a schedule (POST …/fees: the two fees
// always, a VAT rate or an amount limit only when it changes), and approve one proposed by someone else
// (POST …/fees/approve), typing again every figure it changes — the server refuses an
// approval that does not name them as proposed. Its proposer sees no Approve, but why
// (four eyes: the server would refuse them, in any spelling of their id). A proposal sent
// or approved closes the form, which opens again on the new figures. A figure the
// server refuses (validation_error's details.fields) is shown at its field. Every other
// role that may read the list sees it read-only.
//
// data-testids: white-labels-filters, filter-q, white-label (data-id), white-label-merchants,
//   fee-schedule, fee-figure (data-figure), fee-proposal, fee-proposed-by, fee-proposed-at,
//   fee-approve-by, fee-change (data-figure), fee-own-proposal, propose-fees, approve-fees,
//   fee-field (data-figure) with its fee-input and fee-error, send-proposal, send-approval, prev-page, next-page.

import { useState } from 'preact/hooks';
import { ApiProblem, get, post } from '../api.js';
import { label, t } from '../i18n.js';
import { formatBaht, formatBps, formatCount, parseBahtToMinor, parsePercentToBps, sameOperator } from '../format.js';
import { ActionButton, Empty, html, Id, Named, navigate, Pager, StepUpFlag, Time, useCan, useFieldError, usePageContext, usePageData, usePager } from '../ui.js';

/** The figures an operator sets, by the API's names, each in the unit an operator reads it in: the fee and VAT rates in percent, amounts in baht. */
export const feeFigures = [
  { name: 'deposit_processing_fee_bps', unit: 'percent', required: true },
  { name: 'deposit_vat_bps', unit: 'percent' },
  { name: 'withdrawal_fixed_fee_minor', unit: 'baht', required: true },
  { name: 'withdrawal_vat_bps', unit: 'percent' },
  { name: 'deposit_min_minor', unit: 'baht' },
  { name: 'deposit_max_minor', unit: 'baht' },
  { name: 'deposit_step_minor', unit: 'baht' },
  { name: 'withdrawal_min_minor', unit: 'baht' },
  { name: 'withdrawal_max_minor', unit: 'baht' },
];

/** The server's stand-in for a maximum no white label has set (core/money.ts: the largest safe integer). */
const noMaximum = 9007199254740991;
const shown = (f, value) => (f.unit === 'percent' ? formatBps(value)
  : f.name.endsWith('_max_minor') && value === noMaximum ? t('whiteLabels.noMaximum') : formatBaht(value));
/** As the figure's input holds it: '1.50', '12,345.67'. */
const typed = (f, value) => (f.unit === 'percent' ? formatBps(value) : formatBaht(value)).replace(/[%฿]/g, '');
const parsed = (f, text) => (f.unit === 'percent' ? parsePercentToBps(text) : parseBahtToMinor(text));

/** The figures a proposal changes from the schedule in force. */
export const changedFigures = (schedule, proposal) => feeFigures.filter((f) => proposal[f.name] !== schedule[f.name]);

export function WhiteLabelsPage({ query }) {
  const filters = { q: query.q ?? '', limit: query.limit ?? '50' };
  const filterKey = JSON.stringify(filters);
  const pager = usePager(filterKey);
  const { data, reload } = usePageData(() => get('/v1/bo/white-labels', { ...filters, cursor: pager.cursor }), [filterKey, pager.cursor]);
  return html`<section>
    <div class="page-head"><h1>${t('nav.white-labels')}</h1></div>
    <form class="filters" data-testid="white-labels-filters" onSubmit=${(e) => { e.preventDefault(); navigate('/white-labels', Object.fromEntries(new FormData(e.currentTarget))); }}>
      <label>${t('common.search')}<input name="q" data-testid="filter-q" placeholder=${t('whiteLabels.searchPlaceholder')} value=${filters.q} size="24" /></label>
      <input type="hidden" name="limit" value=${filters.limit} />
      <button type="submit">${t('common.apply')}</button>
    </form>
    ${data && data.data.length === 0 ? html`<${Empty}>${t('whiteLabels.empty')}</${Empty}>` : null}
    ${data?.data.map((w) => html`<${WhiteLabel} key=${w.id} w=${w} reload=${reload} />`)}
    <${Pager} pager=${pager} nextCursor=${data?.next_cursor} />
  </section>`;
}

function WhiteLabel({ w, reload }) {
  const can = useCan();
  const proposal = w.fee_schedule_proposal;
  return html`<div class="card" data-testid="white-label" data-id=${w.id}>
    <h2><${Named} text=${w.name} /> <${Id} id=${w.id} keep=${14} /></h2>
    <p class="small"><a data-testid="white-label-merchants" href=${`#/merchants?white_label_id=${encodeURIComponent(w.id)}`}>${t('whiteLabels.merchants', { n: formatCount(w.merchants) })}</a></p>
    <${Schedule} schedule=${w.fee_schedule} />
    ${proposal ? html`<${Proposal} w=${w} proposal=${proposal} reload=${reload} />` : null}
    ${can('POST /v1/bo/white-labels/:id/fees') ? html`<${ProposeForm} key=${JSON.stringify([w.fee_schedule, proposal?.proposed_at])} w=${w} reload=${reload} />` : null}
  </div>`;
}

function Schedule({ schedule }) {
  return html`<table class="grid fee-schedule" data-testid="fee-schedule">
    <caption class="visually-hidden">${t('whiteLabels.inForce')}</caption>
    <thead><tr><th>${t('whiteLabels.figure')}</th><th class="num">${t('whiteLabels.inForce')}</th></tr></thead>
    <tbody>${feeFigures.map((f) => html`<tr data-testid="fee-figure" data-figure=${f.name}>
      <td>${t(`field.${f.name}`)}</td><td class="num money">${shown(f, schedule[f.name])}</td></tr>`)}</tbody>
  </table>`;
}

/** The schedule waiting for a second ops_admin: what it changes, and — for another ops_admin — its approval. */
function Proposal({ w, proposal, reload }) {
  const can = useCan();
  const { session } = usePageContext();
  const changed = changedFigures(w.fee_schedule, proposal);
  const own = sameOperator(proposal.proposed_by, session.sub);
  return html`<div class="subcard" data-testid="fee-proposal">
    <h3><span class="badge warn">${t('whiteLabels.pending')}</span></h3>
    <p class="small">${t('whiteLabels.proposedBy')} <span class="mono" data-testid="fee-proposed-by">${proposal.proposed_by}</span>, <span data-testid="fee-proposed-at"><${Time} at=${proposal.proposed_at} /></span>;
      ${' '}${t('whiteLabels.approveBy')} <span data-testid="fee-approve-by"><${Time} at=${proposal.approve_by} /></span></p>
    <table class="grid">
      <thead><tr><th>${t('whiteLabels.figure')}</th><th class="num">${t('whiteLabels.before')}</th><th class="num">${t('whiteLabels.after')}</th></tr></thead>
      <tbody>${changed.map((f) => html`<tr data-testid="fee-change" data-figure=${f.name}>
        <td>${t(`field.${f.name}`)}</td><td class="num money">${shown(f, w.fee_schedule[f.name])}</td><td class="num money"><strong>${shown(f, proposal[f.name])}</strong></td></tr>`)}</tbody>
    </table>
    ${!can('POST /v1/bo/white-labels/:id/fees/approve') ? null
      : own ? html`<p class="muted" data-testid="fee-own-proposal">${t('whiteLabels.ownProposal')}</p>`
      : html`<${ApproveForm} w=${w} proposal=${proposal} changed=${changed} reload=${reload} />`}
  </div>`;
}

/** One figure's input, in its unit, with the error the page or the server gave it. */
function FigureInput({ f, value, error, onInput }) {
  const invalid = useFieldError(error, 'fee-error');
  return html`<div data-testid="fee-field" data-figure=${f.name}>
    <label>${t(`field.${f.name}`)} (${t(f.unit === 'percent' ? 'whiteLabels.unitPercent' : 'whiteLabels.unitBaht')})
      <input data-testid="fee-input" inputmode="decimal" size="12" ...${invalid.field} value=${value} onInput=${(e) => onInput(e.currentTarget.value)} /></label>
    ${invalid.message}
  </div>`;
}

/**
 * The figures typed into a form, and their errors: `read()` gives the API's integers, or
 * null after marking each figure that is no amount (or percentage); `refused(error)` marks
 * the figures a validation_error names and says whether it named any.
 */
function useFigures(initial) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState({});
  return {
    values, errors,
    set: (name, text) => { setValues((v) => ({ ...v, [name]: text })); setErrors((e) => ({ ...e, [name]: null })); },
    read: (figures) => {
      const found = {};
      const wrong = {};
      for (const f of figures) {
        const value = parsed(f, values[f.name]);
        if (value === null) wrong[f.name] = t(f.unit === 'percent' ? 'whiteLabels.percentInvalid' : 'whiteLabels.bahtInvalid');
        else found[f.name] = value;
      }
      setErrors(wrong);
      return Object.keys(wrong).length === 0 ? found : null;
    },
    refused: (error) => {
      const fields = error instanceof ApiProblem && error.code === 'validation_error' ? error.details?.fields ?? [] : [];
      const named = Object.fromEntries(fields.filter((x) => feeFigures.some((f) => f.name === x.path)).map((x) => [x.path, refusalText(x)]));
      setErrors(named);
      return Object.keys(named).length > 0;
    },
  };
}

/** The server's reason for a figure, in the console's language; its own hint (in satang or bps) when the console has no words for it. */
function refusalText(field) {
  const text = label('whiteLabels.refused', field.reason);
  return text === field.reason ? field.hint ?? field.reason : text;
}

function ProposeForm({ w, reload }) {
  const form = useFigures(Object.fromEntries(feeFigures.map((f) => [f.name, typed(f, w.fee_schedule[f.name])])));
  const run = async () => {
    const figures = form.read(feeFigures);
    if (!figures) return false;
    // The two fees always (the API requires them); a VAT rate or limit only when it moves, as the CLI sends them.
    const body = Object.fromEntries(feeFigures.filter((f) => f.required || figures[f.name] !== w.fee_schedule[f.name]).map((f) => [f.name, figures[f.name]]));
    try {
      await post(`/v1/bo/white-labels/${encodeURIComponent(w.id)}/fees`, body, { stepUp: true });
    } catch (error) {
      form.refused(error);
      throw error; // the banner says it was refused, with its request_id
    }
    return { notice: t('whiteLabels.proposed') };
  };
  return html`<details class="subcard" data-testid="propose-fees">
    <summary><${StepUpFlag} /> ${t('whiteLabels.propose')}</summary>
    <p class="small muted">${t('whiteLabels.proposeHelp')}</p>
    <div class="form-row">${feeFigures.map((f) => html`<${FigureInput} key=${f.name} f=${f} value=${form.values[f.name]} error=${form.errors[f.name]} onInput=${(v) => form.set(f.name, v)} />`)}</div>
    <div class="buttons"><${ActionButton} testid="send-proposal" stepUp tone="primary" onRun=${run} done=${reload}>${t('whiteLabels.sendProposal')}</${ActionButton}></div>
  </details>`;
}

/** The second ops_admin types every changed figure again, reading them above; the two fees, when unchanged, go as they stand. */
function ApproveForm({ w, proposal, changed, reload }) {
  const form = useFigures(Object.fromEntries(changed.map((f) => [f.name, ''])));
  const run = async () => {
    const figures = form.read(changed);
    if (!figures) return false;
    const body = { ...Object.fromEntries(feeFigures.filter((f) => f.required).map((f) => [f.name, proposal[f.name]])), ...figures };
    try {
      await post(`/v1/bo/white-labels/${encodeURIComponent(w.id)}/fees/approve`, body, { stepUp: true });
    } catch (error) {
      form.refused(error);
      throw error;
    }
    return { notice: t('whiteLabels.approved') };
  };
  return html`<div data-testid="approve-fees">
    <p class="small">${t('whiteLabels.approveHelp')}</p>
    <div class="form-row">${changed.map((f) => html`<${FigureInput} key=${f.name} f=${f} value=${form.values[f.name]} error=${form.errors[f.name]} onInput=${(v) => form.set(f.name, v)} />`)}</div>
    <div class="buttons"><${ActionButton} testid="send-approval" stepUp tone="primary" onRun=${run} done=${reload}>${t('whiteLabels.approve')}</${ActionButton}></div>
  </div>`;
}
