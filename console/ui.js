// The console's small shared pieces: the htm binding, the page context (the operator's
// session, the server's tables, the ready flag and the error banner), the hash links,
// and the components every page writes with (money, time, status, pager, action button,
// inline confirmation, field error, a Thai name marked lang="th"). Focus is never left on
// <body> by them: a confirmation takes it and gives it back, an action button takes it back.
// No business rule here: `can(route)` reads the server's roles table (/console/tables.json)
// to hide what the operator's roles cannot call; the server still decides.

import { createContext, h } from 'preact';
import { useCallback, useContext, useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import htm from 'htm';
import { ageParts, formatBaht, formatTime, isoTitle, minorOf, noteLength, shortId } from './format.js';
import { label, t } from './i18n.js';
import { getFile } from './api.js';

export const html = htm.bind(h);

/** {session: {sub, roles}, tables, setReady(bool), showError(problem), showNotice(text)} — provided by app.js. */
export const PageContext = createContext(null);

export function usePageContext() {
  return useContext(PageContext);
}

/** Whether the operator holds one of the roles the server's table gives `route` ('POST /v1/bo/deposits/:id/approve'). */
export function useCan() {
  const { session, tables } = usePageContext();
  return useCallback((route) => {
    const roles = tables?.route_roles?.[route];
    return Array.isArray(roles) && roles.some((r) => session.roles.includes(r));
  }, [session, tables]);
}

/** The read a console page starts with, by its hash: a link to a page the roles cannot read is not offered. */
const pageReads = [
  [/^#\/deposits\//, 'GET /v1/bo/deposits/:id'], [/^#\/withdrawals\//, 'GET /v1/bo/withdrawals/:id'], [/^#\/claims\//, 'GET /v1/bo/claims/:id'],
  [/^#\/claims(\?|$)/, 'GET /v1/bo/claims'], [/^#\/disputes\//, 'GET /v1/bo/disputes/:id'], [/^#\/merchants/, 'GET /v1/bo/merchants'],
  [/^#\/queue/, 'GET /v1/bo/deposits'], [/^#\/approvals/, 'GET /v1/bo/withdrawals'], [/^#\/statement/, 'GET /v1/bo/reports/statements'], [/^#\/dashboard/, 'GET /v1/bo/dashboard'],
  [/^#\/trial-balance/, 'GET /v1/bo/reports/trial-balance'], [/^#\/account-lines/, 'GET /v1/bo/reports/account-lines'], [/^#\/white-labels/, 'GET /v1/bo/white-labels'], [/^#\/fees/, 'GET /v1/bo/reports/fees'], [/^#\/activity/, 'GET /v1/bo/logs'],
];

/** The console page of an id the server names, by its typed prefix (a merchant in `livemode`, live by default); undefined for any other id. */
export function pageOfId(id, livemode = true) {
  const to = { dep_: 'deposits', wdr_: 'withdrawals', clm_: 'claims', dsp_: 'disputes', mch_: 'merchants' }[String(id ?? '').slice(0, 4)];
  return to ? `#/${to}/${encodeURIComponent(id)}${to === 'merchants' ? `?livemode=${livemode !== false}` : ''}` : undefined;
}

/** The read the page at `to` (a hash) starts with; undefined for a page every role may open. */
export function pageReadOf(to) {
  return pageReads.find(([re]) => re.test(to))?.[1];
}

/** (hash) → the hash when the operator may open that page, else null. */
export function useLinkable() {
  const can = useCan();
  return useCallback((to) => {
    const read = pageReadOf(to);
    return read === undefined || can(read) ? to : null;
  }, [can]);
}

/** A link to a console page, or its text alone when the operator's roles cannot read that page. */
export function PageLink({ to, children, testid, cls }) {
  const linkable = useLinkable();
  return linkable(to) ? html`<a href=${to} data-testid=${testid} class=${cls}>${children}</a>` : html`<span data-testid=${testid} class=${cls}>${children}</span>`;
}

// ---- hash routes: #/path?query ----

export function href(path, query) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const text = q.toString();
  return `#${path}${text ? `?${text}` : ''}`;
}

export function navigate(path, query) {
  location.hash = href(path, query).slice(1);
}

/**
 * A part of a page that loads on its own beside the page's data (the page is ready without
 * it): `load()` (async) runs again when `deps` change; null while it loads; after a refusal
 * the banner says why and `failed` stands in, so the part shows empty, not loading forever.
 */
export function usePartData(load, deps, failed) {
  const { showError } = usePageContext();
  const [data, setData] = useState(null);
  useEffect(() => {
    let gone = false;
    setData(null);
    load().then((d) => { if (!gone) setData(d); }, (error) => { if (!gone) { showError(error); setData(failed); } });
    return () => { gone = true; };
  }, deps);
  return data;
}

/**
 * Loads a page's data with `load()` (async), re-running when `deps` change. Keeps <main>'s
 * data-ready off while loading and sets it once the data (or the error) has rendered.
 */
export function usePageData(load, deps) {
  const { setReady, showError } = usePageContext();
  const [state, setState] = useState({ data: null, error: null, loading: true });
  const generation = useRef(0);
  const run = useCallback(async () => {
    const mine = ++generation.current;
    setReady(false);
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await load();
      if (mine === generation.current) setState({ data, error: null, loading: false });
    } catch (error) {
      if (mine !== generation.current) return;
      setState({ data: null, error, loading: false });
      showError(error);
    }
  }, deps);
  useEffect(() => { run(); }, [run]);
  useEffect(() => { if (!state.loading) setReady(true); }, [state.loading, state.data, state.error]);
  return { ...state, reload: run };
}

// ---- small components ----

export function Money({ minor, signed = false }) {
  const value = minorOf(minor);
  const cls = value === null ? 'money muted' : value < 0n ? 'money negative' : 'money';
  const text = formatBaht(minor);
  return html`<span class=${cls}>${signed && value !== null && value > 0n ? '+' : ''}${text}</span>`;
}

export function Time({ at }) {
  if (!at) return html`<span class="muted">—</span>`;
  return html`<time datetime=${at} title=${isoTitle(at)}>${formatTime(at)}</time>`;
}

export function formatAge(seconds) {
  const p = ageParts(seconds);
  if (!p) return '—';
  const units = [['d', 'age.d'], ['h', 'age.h'], ['m', 'age.m'], ['s', 'age.s']];
  return units.filter(([u]) => p[u] !== undefined).map(([u, key]) => t(key, { n: u === 'm' && p.h !== undefined ? String(p[u]).padStart(2, '0') : p[u] })).join(' ');
}

export function Age({ seconds }) {
  const cls = seconds >= 4 * 3600 ? 'age old' : seconds >= 3600 ? 'age late' : 'age';
  return html`<span class=${cls}>${formatAge(seconds)}</span>`;
}

const toneOfStatus = {
  settled: 'good', delivered: 'good', closed: 'good', enabled: 'good', merchant_won: 'good', complete: 'good', cleared: 'good', ok: 'good',
  under_review: 'warn', pending_approval: 'warn', pending: 'warn', open: 'info', partially_filled: 'info', awaiting_payment: 'info', slip_processing: 'info',
  awaiting_liquidity: 'warn', refund_pending: 'warn', return_pending_payout: 'warn',
  confirmed: 'good', auto_confirmed: 'good', retry: 'warn', interrupted: 'warn', in_flight: 'info', permanent: 'bad', resolved: 'muted',
  refused: 'warn', refused_authorization: 'bad', refused_authentication: 'bad',
  rejected: 'bad', failed: 'bad', reversed: 'bad', disabled: 'bad', merchant_lost: 'bad', expired: 'muted', canceled: 'muted', withdrawn: 'muted',
};

export function Status({ status, prefix = 'status' }) {
  return html`<span class=${`badge ${toneOfStatus[status] ?? 'muted'}`} data-status=${status}>${label(prefix, status)}</span>`;
}

export function Badge({ tone = 'muted', title, children }) {
  return html`<span class=${`badge ${tone}`} title=${title}>${children}</span>`;
}

export function Mode({ livemode }) {
  return livemode === false ? html`<span class="badge test">${t('mode.test')}</span>` : html`<span class="badge live">${t('mode.live')}</span>`;
}

/** A list's mode filter (the hash's livemode): any, live or test, as the server's lists take it (livemode=true|false). */
export function ModeFilter({ value, set }) {
  return html`<label>${t('common.mode')}
    <select name="livemode" data-testid="filter-livemode" value=${value} onChange=${(e) => set({ livemode: e.currentTarget.value })}>
      <option value="">${t('common.any')}</option><option value="true">${t('mode.live')}</option><option value="false">${t('mode.test')}</option>
    </select></label>`;
}

export function Id({ id, to, keep = 10 }) {
  const linkable = useLinkable();
  if (!id) return html`<span class="muted">—</span>`;
  const text = shortId(id, keep);
  return to && linkable(to) ? html`<a class="mono" href=${to} title=${id}>${text}</a>` : html`<span class="mono" title=${id}>${text}</span>`;
}

export function Check({ value }) {
  if (value === true) return html`<span class="check yes" title=${t('verdict.match')}>✓</span>`;
  if (value === false) return html`<span class="check no" title=${t('verdict.mismatch')}>✗</span>`;
  return html`<span class="check none" title=${t('verdict.unknown')}>—</span>`;
}

/**
 * A field the server names (a timeline step's, a review reason's): its label in the
 * console's language, the API's own name in the title (operators quote it to the API and
 * the CLI); a field the dictionaries do not know yet is shown as the API names it.
 */
export function FieldName({ name }) {
  return html`<span class="k" title=${name}>${label('field', name)}</span>`;
}

/**
 * A code the server hands the page that operators may also type (a dispute's reason): its
 * words when a dictionary (`prefix`) names it, the code in the title; else the code as it is.
 */
export function CodeName({ prefix, code, testid }) {
  const named = label(prefix, code);
  return named === String(code ?? '—') ? html`<span class="mono" data-testid=${testid}>${named}</span>` : html`<span title=${code} data-testid=${testid}>${named}</span>`;
}

/** An operator's role as a badge: its name in the console's language, the role as the identity provider grants it in the title. */
export function Role({ role }) {
  return html`<span class="badge role" title=${role}>${label('role', role)}</span>`;
}

/** Roles named in a sentence ("needs one of the roles: …"), in the console's language; a role the dictionaries do not know as it is granted. */
export function roleNames(roles) {
  return roles.map((role) => label('role', role)).join(', ');
}

/**
 * A deposit's review reason (or the code it was declined for) as a badge: its short name in
 * the console's language; the API's code, and the server's sentence when the page has it, in
 * the title (operators quote the code to the API and the CLI). A code the dictionaries do not
 * know yet shows as the code.
 */
export function ReviewReason({ code, text }) {
  return html`<span class="badge warn reason" data-testid="review-reason" data-code=${code} title=${text ? `${code} — ${text}` : code}>${label('reviewReason', code)}</span>`;
}

/** Key–value rows: [[label, value], …]; a null value row is left out. */
export function Facts({ rows }) {
  return html`<dl class="facts">${rows.filter((r) => r && r[1] !== null && r[1] !== undefined).map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

/**
 * Cursor paging: the server's next_cursor forward, the cursors seen so far backward. The
 * cursors belong to one set of filters (`filterKey`): new filters start at page 1 in the
 * same render, so a cursor is never sent with filters it was not issued for. They are kept in
 * the history entry's state too (replaceState: paging adds no entry), so that Back from a row
 * the operator opened comes back to the page they were on, not to page 1.
 */
export function usePager(filterKey) {
  const [state, setState] = useState(() => ({ key: filterKey, cursors: rememberedCursors(filterKey) }));
  const cursors = state.key === filterKey ? state.cursors : rememberedCursors(filterKey);
  const go = (next) => {
    rememberCursors(filterKey, next);
    setState({ key: filterKey, cursors: next });
  };
  return {
    cursor: cursors[cursors.length - 1],
    page: cursors.length + 1,
    next: (nextCursor) => nextCursor && go([...cursors, nextCursor]),
    prev: () => go(cursors.slice(0, -1)),
    first: () => go([]),
  };
}

const pagerStateKey = 'satangPagers';

function rememberedCursors(filterKey) {
  const kept = globalThis.history?.state?.[pagerStateKey]?.[filterKey];
  return Array.isArray(kept) && kept.every((c) => typeof c === 'string') ? kept : [];
}

function rememberCursors(filterKey, cursors) {
  try {
    const state = history.state ?? {};
    history.replaceState({ ...state, [pagerStateKey]: { ...state[pagerStateKey], [filterKey]: cursors } }, '');
  } catch { /* no history (a sandboxed frame): paging still works, Back starts at page 1 */ }
}

export function Pager({ pager, nextCursor }) {
  return html`<div class="pager">
    <button type="button" data-testid="prev-page" disabled=${pager.page <= 1} onClick=${pager.prev}>‹ ${t('pager.prev')}</button>
    <span class="muted">${t('pager.page', { n: pager.page })}</span>
    <button type="button" data-testid="next-page" disabled=${!nextCursor} onClick=${() => pager.next(nextCursor)}>${t('pager.next')} ›</button>
  </div>`;
}

/** ⚑: the action asks for a step-up; a screen reader hears why, in words, not the glyph. */
export function StepUpFlag() {
  return html`<span class="flag" role="img" aria-label=${t('stepup.title')}>⚑</span>`;
}

/** Where focus goes when the element that held it is gone: the success notice, else the error banner (app.js gives both tabindex=-1). */
function focusOutcome() {
  const outcome = document.getElementById('notice') ?? document.getElementById('error-banner');
  outcome?.focus();
}

/** Whether the operator's focus went nowhere (to <body>), so that putting it back moves nothing they chose. */
function focusIsLost(button) {
  const active = document.activeElement;
  return !active || active === document.body || active === button;
}

/**
 * A button that runs an async action once at a time: busy while it runs, the server's
 * refusal in the error banner, `done` after success. ⚑ marks an action that needs step-up.
 * Disabled while busy, it loses focus: afterwards focus comes back to it, or, when it is
 * gone (its form closed), to the notice that says what happened. `buttonRef` reaches the
 * <button> (a confirmation focuses it when it opens). `fieldLabels` (API field → the key of
 * this form's label for it) lets the banner name a refused field as the form does.
 */
export function ActionButton({ testid, onRun, done, stepUp = false, tone = '', disabled = false, children, title, buttonRef, fieldLabels }) {
  const { showError, showNotice } = usePageContext();
  const [busy, setBusy] = useState(false);
  const own = useRef(null);
  const refocus = useRef(false);
  useEffect(() => {
    if (busy || !refocus.current) return;
    refocus.current = false;
    if (own.current?.isConnected && focusIsLost(own.current)) own.current.focus();
  }, [busy]);
  const click = async () => {
    if (busy) return;
    setBusy(true);
    try {
      const result = await onRun();
      if (result !== false) {
        showNotice(result?.notice ?? t('notice.done')); // an action may say what it did
        await done?.(result);
      }
    } catch (error) {
      // The banner names a refused field by this form's label (API field → label key), where the page gives them.
      if (fieldLabels && error && typeof error === 'object') error.fieldLabels = fieldLabels;
      showError(error);
    } finally {
      refocus.current = true;
      setBusy(false);
      // Unmounted (its form closed on success): no effect will run; the outcome takes focus once it has rendered.
      setTimeout(() => { if (!own.current?.isConnected && focusIsLost(null)) focusOutcome(); });
    }
  };
  const ref = (el) => { own.current = el; if (buttonRef) buttonRef.current = el; };
  return html`<button type="button" ref=${ref} class=${`action ${tone}`} data-testid=${testid} disabled=${disabled || busy} onClick=${click} title=${stepUp ? t('stepup.title') : title}>
    ${stepUp ? html`<${StepUpFlag} /> ` : null}${children}${busy ? '…' : ''}
  </button>`;
}

/**
 * An inline confirmation ("Confirm approval" / Cancel): opened by a button, it takes focus
 * to its confirm button (`confirmRef`); Cancel or Escape (`onKeyDown` on its container)
 * closes it and gives focus back to the button that opened it (`openerRef(value)`, one per
 * opener). `value` is what was asked (true, or 'approve' | 'reject'), null while closed;
 * `close()` after the action went through leaves focus to the ActionButton.
 */
export function useConfirmation() {
  const [value, setValue] = useState(null);
  const openers = useRef({});
  const asked = useRef(null);
  const returning = useRef(false);
  const confirmRef = useRef(null);
  useLayoutEffect(() => { // before paint: focus never rests on a button the render replaced
    if (value !== null) confirmRef.current?.focus();
    else if (returning.current) { returning.current = false; openers.current[asked.current]?.focus(); }
  }, [value]);
  const cancel = () => { returning.current = true; setValue(null); };
  return {
    value, confirmRef,
    open: (what = true) => { asked.current = what; setValue(what); },
    cancel,
    close: () => setValue(null),
    openerRef: (what = true) => (el) => { if (el) openers.current[what] = el; },
    onKeyDown: (e) => { if (e.key === 'Escape') { e.preventDefault(); cancel(); } },
  };
}

/**
 * A field's error, heard as it appears (role=alert) and tied to its field(s): spread
 * `field` on each input it is about (aria-invalid, aria-describedby), render `message`.
 */
export function useFieldError(error, testid) {
  const id = useId();
  return {
    field: error ? { 'aria-invalid': 'true', 'aria-describedby': id } : {},
    message: error ? html`<p class="field-error" id=${id} role="alert" data-testid=${testid}>${error}</p>` : null,
  };
}

/** A name as the server gave it, marked lang="th" when it is written in Thai script, so a screen reader speaks it in Thai in the English console. */
export function Named({ text }) {
  if (text === null || text === undefined || text === '') return null;
  return langOf(text) ? html`<span lang="th">${text}</span>` : text;
}

/** A merchant's name before its id, as the server names it (merchant_name, read by the row's merchant id), then a space; nothing without one. */
export function MerchantName({ name, testid }) {
  return name ? html`<span data-testid=${testid}><${Named} text=${name} /></span> ` : null;
}

/** 'th' for text written in Thai script, else undefined: the lang of an element that cannot hold a span (an <option>). */
export function langOf(text) {
  return /[\u0E00-\u0E7F]/.test(String(text ?? '')) ? 'th' : undefined;
}

/**
 * Fetches a report's file (a CSV) with the operator's token and saves it through a
 * temporary link, under the name the server's Content-Disposition gives (the token never
 * leaves fetch).
 */
export async function saveReport(path, query) {
  const { blob, filename } = await getFile(path, query);
  // Excel reads a CSV without a byte-order mark in the system's code page, and the reports'
  // Thai would come out garbled; the saved file is the API's CSV after a UTF-8 BOM.
  const saved = blob.type.startsWith('text/csv') ? new Blob(['\uFEFF', blob], { type: blob.type }) : blob;
  const url = URL.createObjectURL(saved);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Pretty JSON in a closed <details>, for what the server says that the page has no layout for. */
export function RawJson({ value, summary }) {
  return html`<details class="raw"><summary>${summary ?? t('common.raw')}</summary><pre>${JSON.stringify(value, null, 2)}</pre></details>`;
}

export function Empty({ children }) {
  return html`<p class="empty">${children ?? t('common.none')}</p>`;
}

/** While the page's data loads; after a failed load, says so (the banner has the server's reason). */
export function Loading({ error }) {
  return error ? html`<p class="empty" data-testid="load-failed">${t('common.loadFailed')}</p>` : html`<p class="loading">${t('common.loading')}</p>`;
}

/**
 * An operator's note for a decision, with the length check the server makes too (code
 * points of the trimmed text, at least the server's note_length_min), so the operator
 * hears it in their language before a round trip. check() shows why and returns false.
 * minOverride: a note the server only requires to be present (a suspension's reason) passes 1.
 */
export function useNote(minOverride) {
  const { tables } = usePageContext();
  const min = minOverride ?? tables?.note_length_min ?? 20;
  const [note, setNote] = useState('');
  const [error, setError] = useState(null);
  return {
    note, error, min,
    onInput: (e) => { setNote(e.currentTarget.value); setError(null); },
    check: () => {
      if (noteLength(note) >= min) return true;
      setError(min <= 1 ? t('note.required') : t('note.tooShort', { min, n: noteLength(note) }));
      return false;
    },
    clear: () => setNote(''),
  };
}

/** A note's textarea and its error; `label` names it when it is not "Note" (a suspension's reason). */
export function NoteField({ n, testid = 'note', rows = 3, optional = false, label: named }) {
  const title = named ?? (optional ? t('note.optional') : n.min <= 1 ? t('note.labelRequired') : t('note.label', { min: n.min }));
  const error = useFieldError(n.error, `${testid}-error`);
  return html`<label class="block">${title}
    <textarea data-testid=${testid} rows=${rows} placeholder=${optional || n.min <= 1 ? '' : t('note.placeholder', { min: n.min })} value=${n.note} onInput=${n.onInput} ...${error.field} />
  </label>
  ${error.message}`;
}

/** Where a payout goes, as an approver checks it: bank, masked account and masked name (GET /v1/bo/withdrawals). */
export function Payee({ beneficiary: b }) {
  if (!b) return html`<span class="muted">—</span>`;
  return html`<span class="payee"><span title=${b.bank_name_th ?? ''}>${b.bank_code}${b.bank_name_th ? html` <${Named} text=${b.bank_name_th} />` : ''}</span> <span class="mono">${b.account_number_masked}</span> <${Named} text=${b.account_name_masked} /></span>`;
}
