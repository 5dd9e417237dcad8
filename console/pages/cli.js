// The command line's tokens: with the service's own OIDC issuer, `scripts/satang admin|bo|
// report` cannot sign in by itself; an operator signed in here takes the lines to paste into a
// terminal — the access token (SATANG_OPERATOR_TOKEN, as long as this session's) and, for
// one ⚑ command, a fresh step-up token (SATANG_STEP_UP_TOKEN: the password again in a popup;
// five minutes, one action). The tokens are shown only on this page, on the operator's
// request, and kept nowhere but in its text boxes; leaving the page forgets them.
//
// data-testids: cli-access (the lines to paste), cli-access-expires, cli-copy-access,
//   cli-step-up, cli-step-up-lines, cli-copy-step-up.

import { useEffect, useState } from 'preact/hooks';
import { accessToken, accessTokenExpiresAt, stepUpToken } from '../auth.js';
import { t } from '../i18n.js';
import { ActionButton, html, Time, usePageContext } from '../ui.js';

export function CliPage() {
  const { setReady } = usePageContext();
  const [stepUp, setStepUp] = useState(null);
  useEffect(() => { setReady(true); }, []);
  const access = `export SATANG_BASE_URL='${location.origin}'\nexport SATANG_OPERATOR_TOKEN='${accessToken()}'`;
  return html`<section>
    <div class="page-head"><h1>${t('cli.title')}</h1></div>
    <p class="small muted">${t('cli.help')}</p>
    <div class="card">
      <h2>${t('cli.access')}</h2>
      <textarea class="mono token-lines" readonly rows="3" data-testid="cli-access" aria-label=${t('cli.access')} onFocus=${(e) => e.currentTarget.select()}>${access}</textarea>
      <p class="small">${t('cli.expires')} <span data-testid="cli-access-expires"><${Time} at=${new Date(accessTokenExpiresAt()).toISOString()} /></span></p>
      <${Copy} text=${access} testid="cli-copy-access" />
    </div>
    <div class="card">
      <h2>${t('cli.stepUp')}</h2>
      <p class="small muted">${t('cli.stepUpHelp')}</p>
      <${ActionButton} testid="cli-step-up" stepUp onRun=${async () => { setStepUp(`export SATANG_STEP_UP_TOKEN='${await stepUpToken()}'`); return { notice: t('cli.stepUpReady') }; }}>${t('cli.stepUpButton')}</${ActionButton}>
      ${stepUp ? html`<textarea class="mono token-lines" readonly rows="2" data-testid="cli-step-up-lines" aria-label=${t('cli.stepUp')} onFocus=${(e) => e.currentTarget.select()}>${stepUp}</textarea>
        <${Copy} text=${stepUp} testid="cli-copy-step-up" />` : null}
    </div>
  </section>`;
}

function Copy({ text, testid }) {
  const [copied, setCopied] = useState(false);
  return html`<button type="button" data-testid=${testid} onClick=${async () => {
    try { await navigator.clipboard.writeText(text); setCopied(true); } catch { setCopied(false); /* no clipboard here: the text box selects on focus */ }
  }}>${copied ? t('cli.copied') : t('cli.copy')}</button>`;
}
