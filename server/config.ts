// The service's configuration, read once from the environment (all optional; DESIGN.md
// "Configuration"). Refuses combinations that must never run in production.

import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { isAbsolute, relative, resolve } from 'node:path';
import { journalStreamReplicas, natsAuthFrom, natsAuthProblems, type NatsAuth } from '../adapters/bus/nats-settings.ts';
import { webhookSettings } from '../adapters/webhooks/settings.ts';
import { logLevels } from './log.ts';
import { requestTimeouts } from './request-timeouts.ts';
import { isHttpUrl } from './validate.ts';
import { requestLimits } from '../core/limits.ts';

export type Profile = 'wide' | 'live_p2p';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly baseUrl: string;
  readonly uploadUrl: string;
  /**
   * SATANG_CLAIM_URL: where a slip refused after the late window can be claimed (the 410's
   * details.claim_url), `{deposit_id}` replaced by the order's id; by default the back
   * office's claims route, which only operators can open — a deployment points it at the
   * page where its end users or merchants raise a claim.
   */
  readonly claimUrl: string;
  readonly natsUrl?: string;
  /** How the relay signs in to NATS (adapters/bus/nats.ts, NatsAuth). */
  readonly natsAuth?: NatsAuth;
  readonly profile: Profile;
  readonly env: 'development' | 'production';
  readonly clock: 'system' | 'manual';
  readonly oidcIssuer?: string;
  readonly oidcJwks?: string;
  /** SATANG_OIDC_CLIENT_ID: the console's client at the issuer (a public client, code flow with PKCE; default satang-console). */
  readonly oidcClientId: string;
  readonly slipProviderUrl?: string;
  readonly logLevel: string;
  /** Where the master key (the key-encryption key of secrets at rest) comes from; see server/master-key.ts. */
  readonly masterKey: MasterKeySource;
  /** SATANG_METRICS_PORT (and SATANG_METRICS_HOST, default 127.0.0.1): where GET /metrics is served; unset, no metrics listener (server/metrics.ts). */
  readonly metrics?: { readonly host: string; readonly port: number };
  /**
   * SATANG_TRUST_PROXY: how many proxies in front of the server to believe (0 by default):
   * with 1, the client's address is the last one X-Forwarded-For names (the request log's
   * `ip`, the strangers' quota); with 0 the header is ignored, as a client could forge it.
   */
  readonly trustProxyHops: number;
}

/**
 * SATANG_MASTER_KEY (base64 of 32 bytes; read from the environment when needed, never kept
 * here), SATANG_MASTER_KEY_FILE (a file outside the data dir holding that base64), or in
 * development only a key generated beside the data dir (`<data dir>.master-key`).
 */
export type MasterKeySource =
  | { readonly kind: 'env' }
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'development'; readonly path: string };

/** Everything wrong with the environment at once, so that one restart fixes it all (npm start prints the list and exits 78). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`the configuration is refused: ${problems.join('; ')}`);
  }
}

/** Exit code of a refused configuration (sysexits.h EX_CONFIG), so that a supervisor can tell it from a crash. */
export const configErrorExitCode = 78;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  /** Runs one check; a refusal is noted and `fallback` stands in, so that every check runs. */
  const check = <T>(read: () => T, fallback: T): T => {
    try { return read(); } catch (error) { problems.push((error as Error).message); return fallback; }
  };
  const port = check(() => portOf(env), 8080);
  const host = env.SATANG_HOST ?? '127.0.0.1';
  for (const name of ['SATANG_HOST', 'SATANG_METRICS_HOST'] as const) {
    const problem = env[name] === undefined ? undefined : hostProblem(env[name]!);
    if (problem) problems.push(`${name} ${problem}`);
  }
  const natsProblem = env.SATANG_NATS_URL ? natsUrlProblem(env.SATANG_NATS_URL) : undefined;
  if (natsProblem) problems.push(natsProblem);
  const profile = (env.SATANG_PROFILE ?? 'wide') as Profile;
  if (profile !== 'wide' && profile !== 'live_p2p') problems.push(`SATANG_PROFILE must be wide or live_p2p, not ${profile}`);
  const mode = env.SATANG_ENV ?? 'development';
  if (mode !== 'development' && mode !== 'production') problems.push(`SATANG_ENV must be development or production, not ${mode}`);
  const clock = env.SATANG_CLOCK ?? 'system';
  if (clock !== 'system' && clock !== 'manual') problems.push(`SATANG_CLOCK must be system or manual, not ${clock}`);
  if (clock === 'manual' && mode === 'production') problems.push('SATANG_CLOCK=manual is for tests and is refused when SATANG_ENV=production');
  if (!env.SATANG_SLIP_PROVIDER_URL && mode === 'production') problems.push('SATANG_SLIP_PROVIDER_URL is required when SATANG_ENV=production: the bank simulator is for development only');
  const envMode = mode === 'production' ? 'production' : 'development';
  check(() => checkIssuer(env, envMode), undefined);
  const dataDir = env.SATANG_DATA_DIR ?? './data';
  const masterKey = check(() => masterKeySource(env, dataDir, envMode), { kind: 'env' } as MasterKeySource);
  const metrics = check(() => metricsListen(env), {});
  const wildcard = (h: string) => h === '0.0.0.0' || h === '::';
  if (metrics.metrics && metrics.metrics.port !== 0 && metrics.metrics.port === port
    && (metrics.metrics.host === host || wildcard(metrics.metrics.host) || wildcard(host))) {
    problems.push(`SATANG_METRICS_PORT ${port} is SATANG_PORT's on the same host: the metrics listener needs a port of its own`);
  }
  const trustProxyHops = check(() => trustProxyOf(env), 0);
  check(() => shutdownDrainMs(env), 0);
  checkLaterSettings(env, envMode, problems);
  checkServiceUrls(env, envMode, problems);
  const claimUrl = env.SATANG_CLAIM_URL || undefined; // empty is unset, as for the other URLs
  const claimProblem = claimUrl === undefined ? undefined : claimUrlProblem(claimUrl);
  if (claimProblem) problems.push(claimProblem);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port, host, dataDir, masterKey, ...addressesOf(env, host, port),
    profile, env: envMode, clock: clock === 'manual' ? 'manual' : 'system', logLevel: env.SATANG_LOG_LEVEL ?? 'info',
    ...(env.SATANG_NATS_URL ? { natsUrl: env.SATANG_NATS_URL } : {}),
    ...(env.SATANG_NATS_URL && natsAuthFrom(env) ? { natsAuth: natsAuthFrom(env)! } : {}),
    ...(env.SATANG_OIDC_ISSUER ? { oidcIssuer: env.SATANG_OIDC_ISSUER } : {}),
    ...(env.SATANG_OIDC_JWKS ? { oidcJwks: env.SATANG_OIDC_JWKS } : {}),
    oidcClientId: env.SATANG_OIDC_CLIENT_ID || 'satang-console', trustProxyHops,
    ...(env.SATANG_SLIP_PROVIDER_URL ? { slipProviderUrl: env.SATANG_SLIP_PROVIDER_URL } : {}),
    ...metrics,
  };
}

/** Where a merchant's end user opens a claim for this order (a 410 late_slip_window_closed's details.claim_url). */
export function claimUrlOf(config: Pick<Config, 'claimUrl'>, depositId: string): string {
  return config.claimUrl.replaceAll('{deposit_id}', encodeURIComponent(depositId));
}

/** What is wrong with SATANG_CLAIM_URL: it goes to every merchant in a 410, so no credentials in it. */
function claimUrlProblem(value: string): string | undefined {
  const url = value.replaceAll('{deposit_id}', 'dep_x');
  // A value with an @ may hold a password, even when it is no URL: it is not repeated.
  const shown = value.includes('@') ? 'the value given (not repeated: it holds an @)' : value;
  if (!isHttpUrl(url)) return `SATANG_CLAIM_URL must be an http(s) URL (with {deposit_id} where the order's id goes), not ${shown}`;
  const { username, password } = new URL(url);
  if (username !== '' || password !== '') return 'SATANG_CLAIM_URL must not carry a user name or password: it is sent to merchants in every late slip\'s 410';
  return undefined;
}

/** SATANG_CLAIM_URL's default: the back office's late-slip claims of the order (operators only). */
/**
 * The URLs the service hands out: its base, the slip upload's and the claim page's, from
 * the environment or from where it listens. The server derives them again once it knows
 * the port it bound (SATANG_PORT=0).
 */
export function addressesOf(env: NodeJS.ProcessEnv, host: string, port: number): Pick<Config, 'baseUrl' | 'uploadUrl' | 'claimUrl'> {
  // Empty is unset, as for every URL of the environment (an env file's `SATANG_BASE_URL=`).
  // An IPv6 address is bracketed in a URL (`http://[::1]:8080`): `http://:::8080` crashed the start.
  const baseUrl = (env.SATANG_BASE_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/$/, '');
  return {
    baseUrl, uploadUrl: (env.SATANG_UPLOAD_URL || baseUrl).replace(/\/$/, ''),
    claimUrl: env.SATANG_CLAIM_URL || defaultClaimUrl(baseUrl), // empty is unset, as for the other URLs
  };
}

export function defaultClaimUrl(baseUrl: string): string {
  return `${baseUrl}/v1/bo/claims?kind=late_slip&deposit_id={deposit_id}`;
}

/** SATANG_TRUST_PROXY: 0 (default) to 5 proxies believed in X-Forwarded-For. */
function trustProxyOf(env: NodeJS.ProcessEnv): number {
  const raw = env.SATANG_TRUST_PROXY;
  if (raw === undefined || raw === '') return 0;
  if (!/^[0-5]$/.test(raw)) throw new Error(`SATANG_TRUST_PROXY must be the number of proxies in front of the server, 0 to 5, not ${raw}`);
  return Number(raw);
}

/** SATANG_PORT: 0 (any free port) to 65535. */
/** What is wrong with a host to listen on: an IP address or a host name, nothing else (a space, a URL, a port). */
function hostProblem(value: string): string | undefined {
  if (isIP(value) !== 0) return undefined;
  const label = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
  if (value.length <= 253 && new RegExp(`^${label}(?:\\.${label})*$`).test(value)) return undefined;
  return `must be an IP address or a host name to listen on (127.0.0.1, 0.0.0.0, ::, localhost), not ${JSON.stringify(value)}`;
}

/** What is wrong with SATANG_NATS_URL: one or more (comma-separated) nats://, tls://, ws:// or wss:// URLs naming a host. */
function natsUrlProblem(value: string): string | undefined {
  for (const entry of value.split(',').map((s) => s.trim())) {
    let url: URL | undefined;
    try { url = new URL(entry); } catch { /* not a URL */ }
    if (!url || !['nats:', 'tls:', 'ws:', 'wss:'].includes(url.protocol) || url.hostname === '') {
      // A value with an @ may hold a password: it is not repeated.
      const shown = entry.includes('@') ? 'a value with an @ (not repeated)' : JSON.stringify(entry);
      return `SATANG_NATS_URL must be nats://host:port (or tls://, ws://, wss://; several separated by commas), not ${shown}`;
    }
  }
  return undefined;
}

function portOf(env: NodeJS.ProcessEnv): number {
  const raw = env.SATANG_PORT;
  if (raw === undefined || raw === '') return 8080;
  if (!/^\d+$/.test(raw) || Number(raw) > 65_535) throw new Error(`SATANG_PORT must be a port number (0 = any free port), not ${raw}`);
  return Number(raw);
}

/** SATANG_SHUTDOWN_DRAIN_MS: how long a stop waits for requests in flight (default 10,000). */
export function shutdownDrainMs(env: NodeJS.ProcessEnv): number {
  const raw = env.SATANG_SHUTDOWN_DRAIN_MS;
  if (raw === undefined || raw === '') return requestLimits.shutdownDrainMsDefault;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new Error(`SATANG_SHUTDOWN_DRAIN_MS must be a whole number of milliseconds, not ${raw}`);
  return Number(raw);
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

/**
 * The addresses the service calls or hands out, each an http(s) URL without a user name or
 * password; in production https, or http to this host only (a sidecar: no network between
 * to read or change what passes). An operator key set fetched over plain http could be
 * anyone's on the path, and every merchant follows the upload URL. SATANG_OIDC_JWKS may be a
 * file instead: it must hold a JSON key set ({"keys": […]}). Checked here, with the rest,
 * so a bad one is refused (exit 78) before the data dir is touched, not a crash later.
 */
function checkServiceUrls(env: NodeJS.ProcessEnv, mode: 'development' | 'production', problems: string[]): void {
  const urls: [string, string | undefined][] = [
    ['SATANG_BASE_URL', env.SATANG_BASE_URL], ['SATANG_UPLOAD_URL', env.SATANG_UPLOAD_URL], ['SATANG_SLIP_PROVIDER_URL', env.SATANG_SLIP_PROVIDER_URL],
    ['SATANG_OIDC_ISSUER', env.SATANG_OIDC_ISSUER],
  ];
  const jwks = env.SATANG_OIDC_JWKS || undefined;
  if (jwks !== undefined && jwks.includes('://')) urls.push(['SATANG_OIDC_JWKS', jwks]);
  else if (jwks !== undefined) {
    const problem = jwksFileProblem(jwks);
    if (problem) problems.push(`SATANG_OIDC_JWKS ${jwks}: ${problem}`);
  }
  for (const [name, value] of urls) {
    if (!value) continue; // empty is unset
    const problem = serviceUrlProblem(value, mode);
    if (problem) problems.push(`${name} ${problem}`);
  }
}

function serviceUrlProblem(value: string, mode: 'development' | 'production'): string | undefined {
  const shown = value.includes('@') ? '(the value given is not repeated: it holds an @)' : value;
  if (!isHttpUrl(value)) return `must be an http(s) URL, not ${shown}`;
  const url = new URL(value);
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  if (mode === 'production' && url.protocol !== 'https:' && !loopback) return `must use https when SATANG_ENV=production (http only to this host), not ${shown}`;
  return undefined;
}

function jwksFileProblem(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give a key set file or the issuer's https JWKS URL`;
  }
  let keys: unknown;
  try {
    keys = (JSON.parse(text) as { keys?: unknown }).keys;
  } catch {
    return 'is not JSON: a JSON Web Key Set is {"keys": […]}';
  }
  if (!Array.isArray(keys)) return 'holds no "keys" array: a JSON Web Key Set is {"keys": […]}';
  // Read once at start: an empty set would refuse every operator token, until a restart, as
  // a bad signature rather than as the set it is.
  if (keys.length === 0) return 'holds no key: every operator token would be refused; give the issuer\'s public keys';
  const secret = keys.findIndex((key) => typeof key === 'object' && key !== null && jwkPrivateMembers.some((member) => member in key));
  if (secret >= 0) return `holds a private or secret key (keys[${secret}]): whoever reads it can mint operator tokens; give the issuer's public keys only`;
  return undefined;
}

/** The JWK members (RFC 7518 §6) that only a private key or a symmetric secret has; never quoted. */
const jwkPrivateMembers = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** base64 (or base64url) of exactly 32 bytes: 43 characters and an optional '='. */
export const masterKeyPattern = /^[A-Za-z0-9+/_-]{43}=?$/;

function masterKeySource(env: NodeJS.ProcessEnv, dataDir: string, mode: 'development' | 'production'): MasterKeySource {
  const value = env.SATANG_MASTER_KEY, file = env.SATANG_MASTER_KEY_FILE;
  if (value && file) throw new Error('Set SATANG_MASTER_KEY or SATANG_MASTER_KEY_FILE, not both');
  // The message never repeats the value: it is a secret even when it is malformed.
  if (value) {
    if (!masterKeyPattern.test(value.trim())) throw new Error('SATANG_MASTER_KEY must be the base64 of 32 bytes (e.g. `openssl rand -base64 32`)');
    return { kind: 'env' };
  }
  if (file) {
    const inside = relative(resolve(dataDir), resolve(file));
    if (!inside.startsWith('..') && !isAbsolute(inside)) throw new Error('SATANG_MASTER_KEY_FILE must be outside the data dir: a key kept with the data it seals protects nothing');
    checkKeyFile(resolve(file), mode);
    return { kind: 'file', path: resolve(file) };
  }
  if (mode === 'production') throw new Error('SATANG_MASTER_KEY or SATANG_MASTER_KEY_FILE is required when SATANG_ENV=production: secrets at rest are sealed with it (only development generates one)');
  return { kind: 'development', path: `${resolve(dataDir)}.master-key` };
}

/** The key file is there, holds a key, and (in production) only its owner may read it. Never quotes its content. */
function checkKeyFile(path: string, mode: 'development' | 'production'): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`SATANG_MASTER_KEY_FILE: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (!masterKeyPattern.test(text.trim())) throw new Error(`SATANG_MASTER_KEY_FILE ${path} must hold the base64 of 32 bytes (e.g. \`openssl rand -base64 32\`)`);
  const fileMode = statSync(path).mode & 0o777;
  if (mode === 'production' && (fileMode & 0o077) !== 0) throw new Error(`SATANG_MASTER_KEY_FILE ${path} may be read by others (mode ${fileMode.toString(8)}): chmod 0600 (or 0400) it`);
}

/** The tests-only and tuning variables the server reads later, checked here so that a bad one is refused with the rest. */
function checkLaterSettings(env: NodeJS.ProcessEnv, mode: 'development' | 'production', problems: string[]): void {
  const tryIt = (read: () => unknown) => { try { read(); } catch (error) { problems.push((error as Error).message); } };
  tryIt(() => webhookSettings(mode, env));
  tryIt(() => requestTimeouts(mode, env));
  tryIt(() => { if (env.SATANG_NATS_URL) journalStreamReplicas(env); });
  problems.push(...natsAuthProblems(env, mode));
  const level = env.SATANG_LOG_LEVEL;
  if (level !== undefined && !logLevels.includes(level)) problems.push(`SATANG_LOG_LEVEL must be one of ${logLevels.join(', ')}, not ${level}`);
}

function metricsListen(env: NodeJS.ProcessEnv): Pick<Config, 'metrics'> {
  const raw = env.SATANG_METRICS_PORT;
  if (raw === undefined || raw === '') return {};
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65_535) throw new Error(`SATANG_METRICS_PORT must be a port number (0 = any free port), not ${raw}`);
  return { metrics: { host: env.SATANG_METRICS_HOST ?? '127.0.0.1', port } };
}
