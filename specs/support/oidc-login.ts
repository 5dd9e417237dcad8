// An operator signing in at an OpenID provider the way a browser would, without one: the
// authorization code flow with PKCE through oauth4webapi (the library the console uses),
// following the provider's redirects with a cookie jar of our own and filling its sign-in
// form. For specs that need a provider-issued token and for the ones that check the
// provider itself; the console's browser tests drive the same flow in Chromium.

import * as oauth from 'oauth4webapi';

export interface ProviderLogin {
  readonly accessToken: string;
  readonly idTokenClaims: oauth.IDToken;
  readonly expiresIn: number | undefined;
}

/** One operator's browser: its cookies at the provider survive between sign-ins (the provider's session). */
export class OidcBrowser {
  private readonly cookies = new Map<string, string>();
  private as?: oauth.AuthorizationServer;

  /** `stepUpResource`: the resource indicator a step-up asks for (the provider's step-up audience). */
  constructor(readonly issuer: string, readonly clientId: string, readonly redirectUri: string, readonly stepUpResource?: string) {}

  private async server(): Promise<oauth.AuthorizationServer> {
    const url = new URL(this.issuer);
    this.as ??= await oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, { algorithm: 'oidc', [oauth.allowInsecureRequests]: true }));
    return this.as;
  }

  /** GET or POST with the jar; answers the response without following redirects. */
  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, { method: init.method ?? 'GET', headers, redirect: 'manual', ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}) });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /**
   * Signs in (or steps up: `stepUpOf` names the operator, who must type the password again)
   * and exchanges the code. `answerForm` fills the provider's form; undefined when the
   * provider's session lets the operator through without one.
   */
  async signIn(operator: string, password: string, options: { stepUp?: boolean; resource?: string } = {}): Promise<ProviderLogin & { formShown: boolean }> {
    const as = await this.server();
    const client: oauth.Client = { client_id: this.clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const authorize = new URL(as.authorization_endpoint!);
    const params: Record<string, string> = {
      client_id: this.clientId, redirect_uri: this.redirectUri, response_type: 'code', scope: 'openid profile',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state, nonce,
      ...(options.stepUp ? { prompt: 'login', max_age: '0', acr_values: 'step-up', login_hint: operator, ...(this.stepUpResource ? { resource: this.stepUpResource } : {}) } : {}),
      ...(options.resource ? { resource: options.resource } : {}),
    };
    for (const [k, v] of Object.entries(params)) authorize.searchParams.set(k, v);
    let res = await this.request(authorize.href);
    let formShown = false;
    for (let hops = 0; hops < 10; hops++) {
      const location = res.headers.get('location');
      if (location) {
        const next = new URL(location, res.url || authorize.href);
        if (next.href.startsWith(this.redirectUri) && (next.searchParams.has('code') || next.searchParams.has('error'))) {
          const callback = oauth.validateAuthResponse(as, client, next, state);
          const token = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), callback, this.redirectUri, verifier, { [oauth.allowInsecureRequests]: true });
          const result = await oauth.processAuthorizationCodeResponse(as, client, token, { expectedNonce: nonce, requireIdToken: true, ...(options.stepUp ? { maxAge: 60 } : {}) });
          return { accessToken: result.access_token, idTokenClaims: oauth.getValidatedIdTokenClaims(result)!, expiresIn: result.expires_in, formShown };
        }
        res = await this.request(next.href);
        continue;
      }
      const html = await res.text();
      const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
      if (res.status >= 400 && !action) throw new Error(`the provider answered ${res.status}: ${html.slice(0, 300)}`);
      if (!action) throw new Error(`no sign-in form and no redirect (status ${res.status})`);
      if (formShown && res.status === 401) throw Object.assign(new Error('the provider refused the sign-in'), { html }); // the form as shown again
      formShown = true;
      res = await this.request(new URL(action.replace(/&#47;/g, '/'), this.issuer).href, { method: 'POST', form: { operator, password } });
    }
    throw new Error('too many redirects signing in');
  }
}
