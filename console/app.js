// The console's shell: logs the operator in (auth.ensureSession), loads the server's
// tables (/console/tables.json: roles per route, claim transitions, reason codes), and
// renders the header (operator, roles, language ไทย/English, sign out), the navigation
// (only the pages the operator's roles can read), the error banner and the page the
// hash names. Routes: #/queue (default), #/deposits/<id>, #/approvals,
// #/withdrawals/<id>, #/claims, #/claims/<id>, #/disputes/<id>, #/merchants,
// #/merchants/<id>?livemode=, #/white-labels, #/statement, #/trial-balance, #/account-lines
// (a system account's lines, from the trial balance), #/fees, #/dashboard.
//
// On a new page focus moves to its <h1>, and the tab's title names it (an object by its id).
// A page whose first read the operator's roles may not call (a bookmark, a pasted link) is
// not opened: its heading, that the roles may not, and which roles may (the server's table),
// without the filters and forms that could only be refused, and without asking the server.
//
// Test hooks: <main data-page="<name>" data-ready="1"> once the page's data has rendered
// (absent while loading), and data-error="1" while the error banner shows. data-testids here:
//   nav-<page>, search-form, search, operator, roles, lang-th, lang-en, logout, error-banner, error-code, error-text, error-fields, error-detail,
//   dismiss-error, sign-in-again, notice, forbidden, forbidden-roles; load-failed (ui.js: a page
//   whose data did not load).

import { render } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { logout, sessionEnded } from './auth.js';
import { ApiProblem, get } from './api.js';
import { setServiceTime } from './format.js';
import { language, problemText, refusalFieldLabels, setLanguage, t } from './i18n.js';
import { FieldName, html, PageContext, pageReadOf, Role, roleNames } from './ui.js';
import { QueuePage } from './pages/queue.js';
import { DepositPage } from './pages/deposit.js';
import { ApprovalsPage } from './pages/approvals.js';
import { WithdrawalPage } from './pages/withdrawal.js';
import { ClaimsPage } from './pages/claims.js';
import { ClaimPage } from './pages/claim.js';
import { DisputePage } from './pages/dispute.js';
import { MerchantsPage } from './pages/merchants.js';
import { MerchantPage } from './pages/merchant.js';
import { WhiteLabelsPage } from './pages/white-labels.js';
import { StatementPage } from './pages/statement.js';
import { DashboardPage } from './pages/dashboard.js';
import { SearchPage } from './pages/search.js';
import { TrialBalancePage } from './pages/trial-balance.js';
import { AccountLinesPage } from './pages/account-lines.js';
import { SigningKeysPage } from './pages/signing-keys.js';
import { FeesPage } from './pages/fees.js';
import { ActivityPage } from './pages/activity.js';
import { CliPage } from './pages/cli.js';

const routes = [
  { name: 'queue', pattern: /^\/queue$/, page: QueuePage },
  { name: 'deposit', pattern: /^\/deposits\/([^/]+)$/, page: DepositPage, section: 'queue' },
  { name: 'approvals', pattern: /^\/approvals$/, page: ApprovalsPage },
  { name: 'withdrawal', pattern: /^\/withdrawals\/([^/]+)$/, page: WithdrawalPage, section: 'approvals' },
  { name: 'claims', pattern: /^\/claims$/, page: ClaimsPage },
  { name: 'claim', pattern: /^\/claims\/([^/]+)$/, page: ClaimPage, section: 'claims' },
  { name: 'dispute', pattern: /^\/disputes\/([^/]+)$/, page: DisputePage, section: 'approvals' },
  { name: 'merchants', pattern: /^\/merchants$/, page: MerchantsPage },
  { name: 'merchant', pattern: /^\/merchants\/([^/]+)$/, page: MerchantPage, section: 'merchants' },
  { name: 'white-labels', pattern: /^\/white-labels$/, page: WhiteLabelsPage },
  { name: 'statement', pattern: /^\/statement$/, page: StatementPage },
  { name: 'dashboard', pattern: /^\/dashboard$/, page: DashboardPage },
  { name: 'search', pattern: /^\/search$/, page: SearchPage },
  { name: 'trial-balance', pattern: /^\/trial-balance$/, page: TrialBalancePage },
  { name: 'account-lines', pattern: /^\/account-lines$/, page: AccountLinesPage, section: 'trial-balance' },
  { name: 'fees', pattern: /^\/fees$/, page: FeesPage },
  { name: 'activity', pattern: /^\/activity$/, page: ActivityPage },
  { name: 'signing-keys', pattern: /^\/signing-keys$/, page: SigningKeysPage },
  { name: 'cli', pattern: /^\/cli$/, page: CliPage },
];

/** The navigation, each entry shown when the operator may call the read its page starts with. */
const nav = [
  { name: 'queue', read: 'GET /v1/bo/deposits' },
  { name: 'approvals', read: 'GET /v1/bo/withdrawals' },
  { name: 'claims', read: 'GET /v1/bo/claims' },
  { name: 'merchants', read: 'GET /v1/bo/merchants' },
  // Each white label's fee schedule (every role that reads the directory); ops_admin proposes and approves one there.
  { name: 'white-labels', read: 'GET /v1/bo/white-labels' },
  { name: 'statement', read: 'GET /v1/bo/reports/statements' },
  { name: 'trial-balance', read: 'GET /v1/bo/reports/trial-balance' },
  { name: 'fees', read: 'GET /v1/bo/reports/fees' },
  { name: 'dashboard', read: 'GET /v1/bo/dashboard' },
  // Operator actions (finance, ops_admin) or API requests (support too): the page shows the tabs the roles may read.
  { name: 'activity', read: 'GET /v1/bo/logs' },
  // The keys are public; the page is the rotation's (ops_admin).
  { name: 'signing-keys', read: 'POST /v1/bo/webhooks/signing-keys/rotate' },
];

function parseHash(hash) {
  const text = hash.replace(/^#/, '');
  const [rawPath, rawQuery = ''] = text.split('?', 2);
  const path = rawPath || '/';
  const query = Object.fromEntries(new URLSearchParams(rawQuery));
  for (const route of routes) {
    const m = route.pattern.exec(path);
    if (m) return { path, query, route, id: m[1] === undefined ? undefined : decodeURIComponent(m[1]) };
  }
  return { path, query, route: null };
}

function useHash() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return hash;
}

function ErrorBanner({ problem, onDismiss }) {
  if (!problem) return null;
  const p = problem instanceof ApiProblem ? problem : null;
  const required = p?.details?.required_roles;
  const fieldLabels = p ? refusalFieldLabels(p) : [];
  return html`<div class="banner error" role="alert" id="error-banner" tabindex="-1" data-testid="error-banner">
    <div>
      <strong data-testid="error-code">${p ? `${p.status || ''} ${p.code}`.trim() : t('error.unexpected')}</strong>
      <span title=${p?.message ?? ''} data-testid="error-text"> ${problemText(problem)}</span>
      ${fieldLabels.length > 0 ? html`<div data-testid="error-fields">${t('refusal.fields', { fields: fieldLabels.join(', ') })}</div>` : null}
      ${language() === 'th' && p?.message && p.message !== problemText(problem) ? html`<div class="small" lang="en" data-testid="error-detail">${p.message}</div>` : null}
      ${Array.isArray(required) && required.length > 0 ? html`<div class="small" title=${required.join(', ')}>${t('error.requiredRoles', { roles: roleNames(required) })}</div>` : null}
      ${p?.requestId ? html`<div class="small"><${FieldName} name="request_id" /> <span class="mono">${p.requestId}</span></div>` : null}
    </div>
    <div class="banner-actions">
      ${p?.status === 401 ? html`<button type="button" data-testid="sign-in-again" onClick=${() => logout()}>${t('auth.signInAgain')}</button>` : null}
      <button type="button" class="ghost" data-testid="dismiss-error" onClick=${onDismiss} aria-label=${t('common.dismiss')}>✕</button>
    </div>
  </div>`;
}

function Header({ session, allowed, section, lang, onLanguage }) {
  // With many roles the header wraps to two lines; the tables' sticky heads sit below it.
  const ref = useRef(null);
  useEffect(() => {
    const header = ref.current;
    const observer = new ResizeObserver(() => document.documentElement.style.setProperty('--header-height', `${header.offsetHeight}px`));
    observer.observe(header);
    return () => observer.disconnect();
  }, []);
  return html`<header class="top" ref=${ref}>
    <a class="brand" href="#/queue"><span class="logo">฿</span> satang <span class="muted">console</span></a>
    <nav>${nav.filter((n) => allowed(n.read)).map((n) => html`<a href=${`#/${n.name}`} class=${section === n.name ? 'active' : ''} aria-current=${section === n.name ? 'page' : undefined} data-testid=${`nav-${n.name}`}>${t(`nav.${n.name}`)}</a>`)}</nav>
    ${allowed('GET /v1/bo/search') ? html`<form class="search" role="search" data-testid="search-form" onSubmit=${(e) => {
      e.preventDefault();
      const q = new FormData(e.currentTarget).get('q').trim();
      if (q) location.hash = `#/search?${new URLSearchParams({ q })}`;
    }}><input name="q" type="search" data-testid="search" maxlength="64" placeholder=${t('search.placeholder')} aria-label=${t('search.title')} /></form>` : null}
    <div class="who">
      <span class="mono" data-testid="operator" title=${t('header.operator')}>${session.sub}</span>
      <span class="roles" data-testid="roles">${session.roles.map((r) => html`<${Role} role=${r} />`)}</span>
      <span class="lang" role="group" aria-label=${t('header.language')}>
        <button type="button" class=${lang === 'th' ? 'on' : ''} aria-pressed=${lang === 'th' ? 'true' : 'false'} data-testid="lang-th" lang="th" onClick=${() => onLanguage('th')}>ไทย</button>
        <button type="button" class=${lang === 'en' ? 'on' : ''} aria-pressed=${lang === 'en' ? 'true' : 'false'} data-testid="lang-en" lang="en" onClick=${() => onLanguage('en')}>English</button>
      </span>
      <a class="small" href="#/cli" data-testid="nav-cli" title=${t('cli.title')}>${t('header.cli')}</a>
      <button type="button" class="ghost" data-testid="logout" onClick=${() => logout()}>${t('header.logout')}</button>
    </div>
  </header>`;
}

function App({ session, tables }) {
  const hash = useHash();
  const [lang, setLang] = useState(language());
  // Ready belongs to one page (its hash path): a new page starts not ready in the same render.
  const [readyPath, setReadyPath] = useState(null);
  const [problem, setProblem] = useState(null);
  const [notice, setNotice] = useState(null);
  const allowed = useCallback((route) => (tables.route_roles[route] ?? []).some((r) => session.roles.includes(r)), [session, tables]);
  const home = allowed('GET /v1/bo/deposits') ? 'queue' : nav.find((n) => allowed(n.read))?.name ?? 'merchants';
  const where = parseHash(hash);

  useEffect(() => { if (where.path === '/') location.replace(`#/${home}`); }, [where.path, home]);
  useEffect(() => { setProblem(null); }, [where.path]);
  useEffect(() => {
    if (!notice) return undefined;
    // A notice that holds focus (its button was gone) stays until focus leaves it: removed, it would drop focus to <body>.
    const timer = setTimeout(() => { if (document.activeElement?.id !== 'notice') setNotice(null); }, 3000);
    return () => clearTimeout(timer);
  }, [notice]);

  const ready = readyPath === where.path;
  const context = useMemo(() => ({
    session, tables, setReady: (value) => setReadyPath(value ? where.path : null),
    // The service's refusal (a 4xx) is the operator's to read in the banner; anything else is a fault worth a console line.
    showError: (error) => {
      if (!(error instanceof ApiProblem && error.status >= 400 && error.status < 500) && !error?.i18nKey) console.error(error);
      setProblem(error);
    },
    // A success says so, and clears the refusal shown before it: an operator never reads a failure beside the success that followed.
    showNotice: (text) => { setProblem(null); setNotice(text); },
  }), [session, tables, where.path]);
  const onLanguage = (l) => { setLanguage(l); setLang(l); };
  const Page = where.route?.page;
  const name = where.route?.name ?? 'not-found';
  const read = pageReadOf(hash);
  const forbidden = read !== undefined && !allowed(read);
  useEffect(() => { if (!Page || forbidden) setReadyPath(where.path); }, [Page, forbidden, where.path]);
  // The tab and a screen reader's window list name the page, in the console's language.
  useEffect(() => { document.title = `${pageTitle(where)} · satang`; }, [hash, lang]);
  useFocusOnNewPage(where.path, ready);

  return html`<${PageContext.Provider} value=${context}>
    <${Header} session=${session} allowed=${allowed} section=${where.route?.section ?? where.route?.name} lang=${lang} onLanguage=${onLanguage} />
    <${ErrorBanner} problem=${problem} onDismiss=${() => setProblem(null)} />
    ${notice ? html`<div class="banner notice" role="status" id="notice" tabindex="-1" data-testid="notice" onBlur=${() => setNotice(null)}>${notice}</div>` : null}
    <main data-page=${name} data-ready=${ready ? '1' : undefined} data-error=${problem ? '1' : undefined} data-lang=${lang}>
      ${forbidden ? html`<${Forbidden} title=${pageTitle(where)} roles=${tables.route_roles[read] ?? []} />`
        : Page ? html`<${Page} key=${where.path} id=${where.id} query=${where.query} path=${where.path} />` : html`<h1>${t('common.notFound')}</h1>`}
    </main>
  </${PageContext.Provider}>`;
}

/** A page the operator's roles may not read: its name, that they may not and which roles may; nothing to fill in that would only be refused. */
function Forbidden({ title, roles }) {
  return html`<section data-testid="forbidden">
    <div class="page-head"><h1>${title}</h1></div>
    <p class="empty">${t('forbidden.message')}</p>
    ${roles.length > 0 ? html`<p class="small" data-testid="forbidden-roles" title=${roles.join(', ')}>${t('error.requiredRoles', { roles: roleNames(roles) })}</p>` : null}
  </section>`;
}

/** The page's name for the tab: a list's section, an object's kind and id, in the console's language. */
function pageTitle(where) {
  const name = where.route?.name;
  if (!name) return t('title.notFound');
  if (where.id !== undefined) return t(`title.${name}`, { id: where.id });
  return t(name === 'cli' ? 'header.cli' : name === 'search' ? 'search.title' : `nav.${name}`);
}

/**
 * On a new page (hash navigation), once its data has rendered, focus moves to its <h1>
 * (tabindex=-1), so a screen reader says where the operator now is; the first page of a
 * load keeps the browser's own start. A new query on the same page (filters) moves nothing.
 */
function useFocusOnNewPage(path, ready) {
  const focused = useRef(undefined);
  useEffect(() => {
    if (!ready || focused.current === path) return;
    const first = focused.current === undefined;
    focused.current = path;
    const heading = document.querySelector('main h1');
    if (first || !heading) return;
    heading.setAttribute('tabindex', '-1');
    heading.focus();
  }, [path, ready]);
}

/** A system clock's offset is read again at most this often (on coming back to the tab). */
const systemClockRereadMs = 3_600_000;
/** 'manual' or 'system', as the service last said; when it was last read (this browser's ms). */
let serviceClockKind = 'manual';
let serviceClockReadAt = 0;

function readServiceClock() {
  // An ended session is renewed on the operator's next action, never by a read in the background.
  if (sessionEnded()) return Promise.resolve();
  return get('/v1/bo/clock').then((c) => {
    setServiceTime(c.now);
    serviceClockKind = c.clock ?? 'manual';
    serviceClockReadAt = Date.now();
  }, (error) => console.warn('service clock', error));
}

/**
 * Keeps "today" the service's while the console stays open: a manual test clock moves by
 * steps (an operator advancing it from a terminal), and a page left open crosses midnight.
 * On a manual clock it is read again whenever the operator comes back to the tab, on every
 * navigation, and each minute while the tab is visible. A system clock runs beside this
 * browser's, so the offset read once holds: it is read again only on coming back to the tab
 * an hour after the last read — each read is an operator call in the action log, and a
 * console open all day would fill it with clock reads.
 */
function keepServiceClock() {
  const again = () => {
    if (document.visibilityState !== 'visible') return;
    if (serviceClockKind === 'system' && Date.now() - serviceClockReadAt < systemClockRereadMs) return;
    readServiceClock();
  };
  window.addEventListener('focus', again);
  window.addEventListener('hashchange', again);
  document.addEventListener('visibilitychange', again);
  setInterval(again, 60_000);
}

/** Renders the console for a signed-in operator (boot.js signs in first, before this module and its pages load). */
export async function start(session) {
  const root = document.getElementById('app');
  setLanguage(language());
  try {
    // The service's clock (a manual test clock runs apart from this browser's); without it the browser's stands in.
    const clock = readServiceClock();
    const res = await fetch('/console/tables.json', { cache: 'no-cache' });
    if (!res.ok) throw new Error(`tables.json: HTTP ${res.status}`);
    const tables = await res.json();
    await clock;
    keepServiceClock();
    root.textContent = '';
    render(html`<${App} session=${session} tables=${tables} />`, root);
  } catch (error) {
    console.error(error);
    root.textContent = `${t('error.startFailed')}: ${error?.message ?? error}`;
    root.className = 'boot-error';
  }
}
