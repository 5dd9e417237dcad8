// The development issuer as a real OpenID provider (oidc-provider), mounted at /oidc on the
// API's own port in development only, so that the console logs in through the same
// authorization code + PKCE flow against a development issuer as against production's.
// It signs with the development issuer's Ed25519 key, so its access tokens verify against
// the same JWKS as `scripts/satang token`'s; its issuer is `${baseUrl}/oidc`.
//
// Access tokens are JWTs for the resource `${baseUrl}/v1/bo` with audience
// satang-back-office, the operator's `roles`, `acr` and `auth_time`. A step-up is an
// authorization for the resource `${baseUrl}/v1/bo/step-up` with `acr_values=step-up` and
// `prompt=login`: the operator types their password again and the token it yields carries
// `acr: "step-up"` and lives five minutes (the API takes it only in X-PG-Step-Up-Token).
// Seeded operators (dev-operators.ts) share one development password; production refuses
// to start without a real issuer.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JWK } from 'jose';

import { devOidcPath } from './dev-operators.ts';
import type { DevProvider, ProviderOptions } from './dev-oidc-provider.ts';

export interface DevOidc {
  readonly issuer: string;
  /** The resource indicator of /v1/bo (its access tokens' audience is satang-back-office). */
  readonly resource: string;
  /** The resource indicator a step-up asks for (`resource=`): its token carries acr step-up and lives five minutes. */
  readonly stepUpResource: string;
  /** Answers the request when it is the provider's (under /oidc) and says so. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
}

/**
 * The provider at /oidc. oidc-provider and its dependencies (about 0.6 s to load, and their
 * memory) are loaded by the first request under /oidc (dev-oidc-provider.ts), not at start:
 * a server that no one signs in to through the console (the specs' servers, a benchmark)
 * never loads them. Requests that come while it loads wait for it.
 */
export function startDevOidc(
  options: { baseUrl: string; signingJwk: JWK },
  load: () => Promise<(options: ProviderOptions) => DevProvider> = loadProvider,
): DevOidc {
  const issuer = `${options.baseUrl}${devOidcPath}`;
  const resource = `${options.baseUrl}/v1/bo`;
  const stepUpResource = `${resource}/step-up`;
  let provider: Promise<DevProvider> | undefined;
  return {
    issuer,
    resource,
    stepUpResource,
    handle(req, res) {
      const url = req.url ?? '/';
      if (url !== devOidcPath && !url.startsWith(`${devOidcPath}/`) && !url.startsWith(`${devOidcPath}?`)) return false;
      const loading = provider ??= load().then((devProvider) => devProvider({ ...options, issuer, resource, stepUpResource }));
      loading.then((p) => {
        try {
          p.handle(req, res, url);
        } catch (error) {
          refuse(res, 500, `the development OpenID provider failed: ${(error as Error).message}`);
        }
      }, (error: unknown) => {
        if (provider === loading) provider = undefined; // tried again by the next request
        refuse(res, 503, `the development OpenID provider could not be loaded: ${(error as Error).message}`);
      });
      return true;
    },
  };
}

/** The provider's module, imported on first use (the specs pass their own to count and fail loads). */
async function loadProvider(): Promise<(options: ProviderOptions) => DevProvider> {
  return (await import('./dev-oidc-provider.ts')).devProvider;
}

function refuse(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(`${text}\n`);
}
