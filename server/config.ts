// The service's configuration, read once from the environment (all optional; DESIGN.md
// "Configuration"). Refuses combinations that must never run in production.

export type Profile = 'wide' | 'live_p2p';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly baseUrl: string;
  readonly uploadUrl: string;
  readonly natsUrl?: string;
  readonly profile: Profile;
  readonly env: 'development' | 'production';
  readonly clock: 'system' | 'manual';
  readonly oidcIssuer?: string;
  readonly oidcJwks?: string;
  readonly slipProviderUrl?: string;
  readonly logLevel: string;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.SATANG_PORT ?? 8080);
  const host = env.SATANG_HOST ?? '127.0.0.1';
  const profile = (env.SATANG_PROFILE ?? 'wide') as Profile;
  if (profile !== 'wide' && profile !== 'live_p2p') throw new Error(`SATANG_PROFILE must be wide or live_p2p, not ${profile}`);
  const mode = env.SATANG_ENV ?? 'development';
  if (mode !== 'development' && mode !== 'production') throw new Error(`SATANG_ENV must be development or production, not ${mode}`);
  const clock = env.SATANG_CLOCK ?? 'system';
  if (clock !== 'system' && clock !== 'manual') throw new Error(`SATANG_CLOCK must be system or manual, not ${clock}`);
  if (clock === 'manual' && mode === 'production') throw new Error('SATANG_CLOCK=manual is for tests and is refused when SATANG_ENV=production');
  if (!env.SATANG_SLIP_PROVIDER_URL && mode === 'production') throw new Error('SATANG_SLIP_PROVIDER_URL is required when SATANG_ENV=production: the bank simulator is for development only');
  checkIssuer(env, mode);
  const baseUrl = (env.SATANG_BASE_URL ?? `http://${host}:${port}`).replace(/\/$/, '');
  return {
    port, host, dataDir: env.SATANG_DATA_DIR ?? './data', baseUrl, uploadUrl: (env.SATANG_UPLOAD_URL ?? baseUrl).replace(/\/$/, ''),
    profile, env: mode, clock, logLevel: env.SATANG_LOG_LEVEL ?? 'info',
    ...(env.SATANG_NATS_URL ? { natsUrl: env.SATANG_NATS_URL } : {}),
    ...(env.SATANG_OIDC_ISSUER ? { oidcIssuer: env.SATANG_OIDC_ISSUER } : {}),
    ...(env.SATANG_OIDC_JWKS ? { oidcJwks: env.SATANG_OIDC_JWKS } : {}),
    ...(env.SATANG_SLIP_PROVIDER_URL ? { slipProviderUrl: env.SATANG_SLIP_PROVIDER_URL } : {}),
  };
}

/**
 * The operator token issuer is configured whole or not at all; without one the server
 * trusts a development key kept in its own data dir, which production must never do.
 */
function checkIssuer(env: NodeJS.ProcessEnv, mode: Config['env']): void {
  const issuer = Boolean(env.SATANG_OIDC_ISSUER), jwks = Boolean(env.SATANG_OIDC_JWKS);
  if (!issuer && !jwks && mode === 'production') {
    throw new Error('SATANG_OIDC_ISSUER and SATANG_OIDC_JWKS are required when SATANG_ENV=production: the development token issuer is for development only');
  }
  if (issuer !== jwks) {
    const missing = issuer ? 'SATANG_OIDC_JWKS' : 'SATANG_OIDC_ISSUER';
    throw new Error(`${missing} is missing: set both SATANG_OIDC_ISSUER and SATANG_OIDC_JWKS, or neither (development issuer)`);
  }
}
