// Operator authentication for /v1/bo/*: an OIDC bearer JWT verified against a JWKS
// (SATANG_OIDC_ISSUER + SATANG_OIDC_JWKS as a URL or a file). With neither set, a local
// development issuer (Ed25519 key pair in the data dir) signs and verifies, and
// `scripts/satang token` mints from it. Step-up tokens are short-lived JWTs of the same
// subject with acr "step-up", sent in X-PG-Step-Up-Token.

import { createLocalJWKSet, createRemoteJWKSet, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK, type JWTPayload, type KeyLike } from 'jose';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, writePrivateFile } from '../../adapters/private-files.ts';
import type { Sealer } from '../../adapters/sealing.ts';
import type { Context, Next } from 'koa';
import { ApiError } from '../errors.ts';
import type { Config } from '../config.ts';

export const devIssuer = 'urn:satang:dev-issuer';
export const operatorAudience = 'satang-back-office';
const accessTokenSeconds = 3600;
const stepUpTokenSeconds = 300;
const devIssuerKeyPurpose = 'dev_issuer_key';

export interface Operator {
  readonly sub: string;
  readonly roles: readonly string[];
}

type Verify = (token: string) => Promise<JWTPayload>;

/** The local development issuer: key pair kept in the data dir so tokens survive restarts. */
export class DevIssuer {
  private constructor(private readonly privateKey: KeyLike, readonly publicJwk: JWK) {}

  /**
   * The key is sealed under the master key (dev-issuer.jwk.sealed); a JWK an older build
   * wrote in clear (dev-issuer.jwk.json) is sealed and removed.
   */
  static async fromDataDir(dataDir: string, sealer: Sealer): Promise<DevIssuer> {
    const path = join(dataDir, 'dev-issuer.jwk.sealed');
    const clearPath = join(dataDir, 'dev-issuer.jwk.json');
    if (!existsSync(path)) {
      ensurePrivateDir(dataDir);
      let text: string;
      if (existsSync(clearPath)) text = readFileSync(clearPath, 'utf8');
      else {
        const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
        text = JSON.stringify({ ...await exportJWK(privateKey), kid: 'dev-1', alg: 'EdDSA' });
      }
      writePrivateFile(path, sealer.seal(text, devIssuerKeyPurpose));
    }
    rmSync(clearPath, { force: true });
    const jwk = JSON.parse(sealer.openText(readFileSync(path, 'utf8').trim(), devIssuerKeyPurpose)) as JWK;
    const privateKey = (await importJWK(jwk, 'EdDSA')) as KeyLike;
    const { d: _secret, ...publicJwk } = jwk;
    return new DevIssuer(privateKey, publicJwk);
  }

  async mint(sub: string, options: { roles?: readonly string[]; stepUp?: boolean; nowSeconds: number }): Promise<string> {
    const lifetime = options.stepUp ? stepUpTokenSeconds : accessTokenSeconds;
    return new SignJWT({ roles: [...(options.roles ?? [])], ...(options.stepUp ? { acr: 'step-up' } : {}) })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'dev-1' }).setIssuer(devIssuer).setAudience(operatorAudience).setSubject(sub)
      .setIssuedAt(options.nowSeconds).setExpirationTime(options.nowSeconds + lifetime).sign(this.privateKey);
  }
}

export async function operatorVerifier(config: Config, dev: DevIssuer | undefined, nowSeconds: () => number): Promise<Verify> {
  let jwks: Parameters<typeof jwtVerify>[1];
  let issuer: string;
  if (config.oidcIssuer && config.oidcJwks) {
    issuer = config.oidcIssuer;
    jwks = /^https?:/.test(config.oidcJwks) ? createRemoteJWKSet(new URL(config.oidcJwks)) : createLocalJWKSet(JSON.parse(readFileSync(config.oidcJwks, 'utf8')));
  } else {
    if (!dev) throw new Error('no OIDC issuer configured and no development issuer available');
    issuer = devIssuer;
    jwks = createLocalJWKSet({ keys: [{ ...dev.publicJwk, kid: 'dev-1', alg: 'EdDSA' }] });
  }
  return async (token) => (await jwtVerify(token, jwks as never, { issuer, audience: operatorAudience, currentDate: new Date(nowSeconds() * 1000) })).payload;
}

export function operatorAuth(verify: Verify) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const token = /^Bearer\s+(\S+)$/.exec(ctx.get('Authorization'))?.[1];
    if (!token) throw new ApiError('api_key_invalid', 'Operator routes need an OIDC bearer token.');
    let payload: JWTPayload;
    try {
      payload = await verify(token);
    } catch {
      throw new ApiError('signature_invalid');
    }
    if (!payload.sub || payload.acr === 'step-up') throw new ApiError('signature_invalid');
    const operator: Operator = { sub: payload.sub, roles: Array.isArray(payload.roles) ? (payload.roles as string[]) : [] };
    ctx.state.operator = operator;
    ctx.state.verifyStepUp = async () => {
      const stepUp = ctx.get('X-PG-Step-Up-Token');
      if (!stepUp) throw new ApiError('scope_denied', 'This action needs a step-up token in X-PG-Step-Up-Token.');
      try {
        const p = await verify(stepUp);
        if (p.acr !== 'step-up' || p.sub !== operator.sub) throw new Error('not a step-up token of this operator');
      } catch {
        throw new ApiError('scope_denied', 'The step-up token is missing, expired or not yours.');
      }
    };
    await next();
  };
}

export function operatorOf(ctx: Context): Operator {
  const op = (ctx.state as { operator?: Operator }).operator;
  if (!op) throw new ApiError('api_key_invalid');
  return op;
}

export async function requireStepUp(ctx: Context): Promise<void> {
  await (ctx.state as { verifyStepUp: () => Promise<void> }).verifyStepUp();
}
