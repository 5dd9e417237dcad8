// The development OpenID provider itself (oidc-provider), loaded by dev-oidc.ts on the first
// request under /oidc: its configuration (the console as the one client, the seeded
// operators, the resource indicators of /v1/bo and its step-up) and the sign-in form.

import Provider, { errors as oidcErrors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JWK } from 'jose';
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js';
import { operatorAudience } from './operator.ts';
import { consoleClientId, devOidcPath, devOperatorPassword, devOperators, stepUpAcr } from './dev-operators.ts';
import { requestLimits } from '../../core/limits.ts';

const passwordAcr = 'pwd';
const loginFormBytesMax = 4096;

/**
 * The library's own in-memory store, chosen on purpose (the provider warns when it falls
 * back to it): development only, so sessions and grants end with the process and the
 * console signs in again after a restart.
 */
class DevelopmentStore extends MemoryAdapter {}

export interface ProviderOptions {
  readonly baseUrl: string;
  readonly signingJwk: JWK;
  readonly issuer: string;
  readonly resource: string;
  readonly stepUpResource: string;
}

export interface DevProvider {
  handle(req: IncomingMessage, res: ServerResponse, url: string): void;
}

export function devProvider(options: ProviderOptions): DevProvider {
  const { issuer, resource, stepUpResource } = options;
  const operators = new Map(devOperators.map((o) => [o.sub, o]));
  const console = `${options.baseUrl}/console/`;

  const configuration: Configuration = {
    clients: [{
      client_id: consoleClientId, token_endpoint_auth_method: 'none', application_type: 'web',
      redirect_uris: [console, `${console}callback.html`], post_logout_redirect_uris: [console],
      grant_types: ['authorization_code'], response_types: ['code'], id_token_signed_response_alg: 'EdDSA',
    }],
    jwks: { keys: [{ ...options.signingJwk, use: 'sig' } as never] },
    acrValues: [passwordAcr, stepUpAcr],
    responseTypes: ['code'],
    adapter: DevelopmentStore,
    claims: { openid: ['sub'], profile: ['name', 'roles'] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    pkce: { required: () => true },
    // The console calls the token endpoint from its own page: the API's origin, nothing else.
    clientBasedCORS: (_ctx, origin) => origin === new URL(options.baseUrl).origin,
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      // The library's own pages load a web font from Google; these are the sign-in form's, bilingual, with its CSP.
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) => answerPage(ctx, 'Sign out', `<h1>Sign out of satang? / ออกจากระบบ?</h1>${form}
<button autofocus type="submit" form="op.logoutForm" name="logout" value="yes" data-testid="logout-confirm">Sign out / ออกจากระบบ</button>
<button type="submit" form="op.logoutForm" class="secondary">Stay signed in / อยู่ในระบบต่อ</button>`),
        postLogoutSuccessSource: (ctx) => answerPage(ctx, 'Signed out', `<h1>Signed out / ออกจากระบบแล้ว</h1><p><a href="${escapeHtml(console)}">Back to the console / กลับสู่คอนโซล</a></p>`),
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf ?? resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          // A step-up token is for one action now; an access token for a working stretch (≤ 12 h).
          const jwt = { sign: { alg: 'EdDSA' as const } };
          if (indicator === resource) return { scope: 'bo', audience: operatorAudience, accessTokenFormat: 'jwt', accessTokenTTL: requestLimits.operatorAccessTokenLifetimeSeconds, jwt };
          if (indicator === stepUpResource) return { scope: 'step-up', audience: operatorAudience, accessTokenFormat: 'jwt', accessTokenTTL: requestLimits.operatorStepUpTokenLifetimeSeconds, jwt };
          throw new oidcErrors.InvalidTarget();
        },
      },
    },
    ttl: {
      AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? requestLimits.operatorAccessTokenLifetimeSeconds,
      AuthorizationCode: 60, IdToken: 3600, Interaction: 600, Session: 12 * 3600, Grant: 12 * 3600,
    },
    // Roles, and how and when the operator signed in. Only a token for the step-up resource
    // carries the session's acr (step-up after the password was typed again for it); the
    // API checks its auth_time (≤ 5 minutes old), so an old session yields no usable step-up.
    extraTokenClaims: (ctx, token) => {
      const code = ctx.oidc.entities.AuthorizationCode;
      const roles = operators.get(String((token as { accountId?: string }).accountId))?.roles ?? [];
      const forStepUp = (token as { aud?: unknown; resourceServer?: { identifier(): string } }).resourceServer?.identifier() === stepUpResource;
      return { roles: [...roles], acr: forStepUp ? code?.acr ?? passwordAcr : passwordAcr, ...(code?.authTime ? { auth_time: code.authTime } : {}) };
    },
    findAccount: (_ctx, sub) => {
      const operator = operators.get(sub);
      return operator ? { accountId: sub, claims: () => ({ sub, name: operator.name, roles: [...operator.roles] }) } : undefined;
    },
    // The console is the service's own client: its grant is given, never asked of the operator.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope('openid profile');
      grant.addResourceScope(resource, 'bo');
      grant.addResourceScope(stepUpResource, 'step-up');
      await grant.save();
      return grant;
    },
    interactions: { url: (_ctx, interaction) => `${devOidcPath}/interaction/${interaction.uid}` },
    renderError: (ctx, out) => answerPage(ctx, 'Sign-in error', `<p>${escapeHtml(String(out.error))}: ${escapeHtml(String(out.error_description ?? ''))}</p><p><a href="${escapeHtml(console)}">Back to the console</a></p>`),
  };
  const provider = new Provider(issuer, configuration);
  // The provider names its endpoints (discovery, redirects) from the request's host and
  // protocol: they are the base URL's, whatever Host or X-Forwarded-* a client sends, so a
  // forged Host cannot make discovery point a console at another server.
  provider.proxy = true;
  const base = new URL(options.baseUrl);
  const callback = provider.callback();

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, submitted: boolean): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new oidcErrors.InvalidRequest('interaction does not match its cookie');
    if (details.prompt.name !== 'login') {
      // The console's grant is given (loadExistingGrant); asking for more than it holds is refused, never a loop of forms.
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: `the development issuer grants the console openid, profile and /v1/bo only (${details.prompt.name} asked)` }, { mergeWithLastSubmission: false });
      return;
    }
    const stepUp = String(details.params.acr_values ?? '').split(' ').includes(stepUpAcr);
    const hint = typeof details.params.login_hint === 'string' ? details.params.login_hint : '';
    let problem = '';
    let chosen = '';
    if (submitted) {
      const form = new URLSearchParams(await readForm(req));
      const sub = stepUp && hint ? hint : form.get('operator') ?? '';
      chosen = sub;
      if (operators.has(sub) && samePassword(form.get('password') ?? '', devOperatorPassword)) {
        const login = { accountId: sub, acr: stepUp ? stepUpAcr : passwordAcr, amr: ['pwd'], ts: Math.floor(Date.now() / 1000) };
        await provider.interactionFinished(req, res, { login }, { mergeWithLastSubmission: false });
        return;
      }
      problem = 'Unknown operator or wrong password. / ผู้ใช้หรือรหัสผ่านไม่ถูกต้อง';
    }
    const who = stepUp && hint
      ? `<input type="hidden" name="operator" value="${escapeHtml(hint)}"><p>Confirm it is you, <b>${escapeHtml(hint)}</b>, to continue a protected action. / ยืนยันตัวตนอีกครั้งเพื่อทำรายการที่ต้องยืนยัน</p>`
      : `<label>Operator / ผู้ปฏิบัติงาน <select name="operator" data-testid="login-operator">${devOperators.map((o) => `<option value="${o.sub}"${o.sub === chosen ? ' selected' : ''}>${escapeHtml(o.sub)} — ${escapeHtml(o.name)}</option>`).join('')}</select></label>`;
    const body = `<h1>satang ${stepUp ? 'step-up' : 'sign in'}</h1>
<p class="dev">Development issuer: every seeded operator's password is <code>${devOperatorPassword}</code>.</p>
${problem ? `<p class="problem" role="alert" id="problem">${problem}</p>` : ''}
<form method="post" action="${devOidcPath}/interaction/${escapeHtml(uid)}/login">${who}
<label>Password / รหัสผ่าน <input type="password" name="password" autocomplete="current-password" autofocus data-testid="login-password"${problem ? ' aria-invalid="true" aria-describedby="problem"' : ''}></label>
<button type="submit" data-testid="login-submit">${stepUp ? 'Confirm / ยืนยัน' : 'Sign in / เข้าสู่ระบบ'}</button></form>`;
    res.writeHead(problem ? 401 : 200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...pageHeaders });
    res.end(page(stepUp ? 'Step-up' : 'Sign in', body));
  }

  return {
    handle(req, res, url) {
      const inner = url.slice(devOidcPath.length) || '/';
      req.headers.host = base.host;
      req.headers['x-forwarded-host'] = base.host;
      req.headers['x-forwarded-proto'] = base.protocol.slice(0, -1);
      delete req.headers['x-forwarded-for'];
      const form = /^\/interaction\/([A-Za-z0-9_-]+)(\/login)?$/.exec(inner.split('?')[0]!);
      if (form && (req.method === 'GET' || (req.method === 'POST' && form[2]))) {
        interaction(req, res, form[1]!, req.method === 'POST').catch((error: unknown) => {
          if (res.headersSent) return void res.destroy();
          res.writeHead(400, { 'Content-Type': 'text/html; charset=utf-8', ...pageHeaders });
          res.end(page('Sign-in error', `<p>${escapeHtml(error instanceof Error ? error.message : 'the sign-in could not continue')}</p><p><a href="${escapeHtml(console)}">Start again</a></p>`));
        });
        return;
      }
      // The provider finds its own mount path from originalUrl minus url (as under express).
      (req as IncomingMessage & { originalUrl?: string }).originalUrl = url;
      req.url = inner;
      void callback(req, res);
    },
  };
}

const pageHeaders = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer',
};

/** A page of the provider's own (sign-out, its error) as the sign-in form is served: its CSP and headers. */
function answerPage(ctx: { set(headers: Record<string, string>): void; type: string; body: unknown }, title: string, body: string): void {
  ctx.set(pageHeaders);
  ctx.type = 'html';
  ctx.body = page(title, body);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)} · satang</title>
<style>body{font:15px system-ui,sans-serif;max-width:26rem;margin:4rem auto;padding:0 1rem;color:#1a1f36}label{display:block;margin:.8rem 0}select,input{display:block;width:100%;padding:.45rem;margin-top:.25rem;font:inherit}button{margin-top:1rem;padding:.5rem 1rem;font:inherit;background:#0b5cff;color:#fff;border:0;border-radius:4px}button.secondary{background:#e3e8ee;color:#1a1f36;margin-left:.5rem}.dev{color:#697386;font-size:13px}.problem{color:#b3261e}</style>
</head><body>${body}</body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function samePassword(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function readForm(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > loginFormBytesMax) throw new Error('the sign-in form is too large');
  }
  return text;
}
