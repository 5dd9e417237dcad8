// An OIDC issuer whose JWKS is served by the spec itself, with a fetch that can be held: a
// step-up checked against a key the server has not fetched waits on that fetch, so another
// operator's call can land while it waits (routes that read what they act on before their
// step-up, and must read it again after). jose fetches a JWKS again for an unknown key only
// once 30 s have passed since the last fetch, so `whileSteppingUp` waits that long.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import { operatorAudience } from '../../server/auth/operator.ts';
import { operatorRoles } from '../../server/auth/roles.ts';
import { TestServer, type Reply } from './server-harness.ts';

const issuer = 'https://login.example.test/';
/** jose's createRemoteJWKSet: no fetch again for an unknown key within 30 s of the last (cooldownDuration). */
const jwksCooldownMs = 30_000;

export interface Key { readonly kid: string; readonly privateKey: KeyLike; readonly jwk: JWK }

async function newKey(kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA' } };
}

/** The issuer's JWKS endpoint: `keys` as they stand; while `held`, a fetch waits until `release()`. */
class JwksServer {
  keys: Key[] = [];
  lastFetchAt = 0;
  private held: { arrived: () => void; waiting: Promise<void>; release: () => void } | undefined;
  private readonly server: Server = createServer((req: IncomingMessage, res: ServerResponse) => void this.answer(res));

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/jwks.json`;
  }

  /** The next fetch waits: resolves once it has come; `release` lets it be answered. */
  hold(): { arrived: Promise<void>; release: () => void } {
    let arrived!: () => void;
    let release!: () => void;
    const came = new Promise<void>((resolve) => { arrived = resolve; });
    const waiting = new Promise<void>((resolve) => { release = resolve; });
    this.held = { arrived, waiting, release };
    return { arrived: came, release };
  }

  private async answer(res: ServerResponse): Promise<void> {
    const held = this.held;
    this.held = undefined;
    if (held) {
      held.arrived();
      await held.waiting;
    }
    this.lastFetchAt = Date.now();
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: this.keys.map((k) => k.jwk) }));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function token(key: Key, sub: string, stepUp: boolean): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ roles: [...operatorRoles], ...(stepUp ? { acr: 'step-up' } : {}) })
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid }).setIssuer(issuer).setAudience(operatorAudience).setSubject(sub)
    .setIssuedAt(now).setExpirationTime(now + (stepUp ? 300 : 3600)).setJti(randomUUID()).sign(key.privateKey);
}

/** Operator calls to `s` with tokens signed by `key`; a step-up token signed by `stepUpKey` when given. */
function operatorCalls(s: TestServer, key: Key) {
  return async (method: string, path: string, body: unknown, sub: string, stepUpKey?: Key): Promise<Reply> => {
    const headers: Record<string, string> = { Authorization: `Bearer ${await token(key, sub, false)}`, 'Content-Type': 'application/json' };
    if (method === 'POST' || method === 'DELETE') headers['Idempotency-Key'] = randomUUID();
    if (stepUpKey) headers['X-PG-Step-Up-Token'] = await token(stepUpKey, sub, true);
    return s.raw(method, path, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  };
}

export interface HeldIssuer {
  readonly s: TestServer;
  /** The key the server has fetched: every call's token, and a step-up checked at once. */
  readonly known: Key;
  readonly bo: ReturnType<typeof operatorCalls>;
  /**
   * Sends `slow` with a step-up signed by a key the server has not fetched (once a spec: the
   * first time, after jose's cooldown): its JWKS fetch waits until `meanwhile` has run; `slow`'s answer.
   */
  whileSteppingUp(slow: (stepUpKey: Key) => Promise<Reply>, meanwhile: () => Promise<void>): Promise<Reply>;
}

/** A development server on an issuer whose JWKS is the spec's own (`JwksServer`), stopped with it after `run`. */
export async function onHeldIssuer(run: (h: HeldIssuer) => Promise<void>): Promise<void> {
  const jwks = new JwksServer();
  const [known, unfetched] = [await newKey('ext-1'), await newKey('ext-2')];
  jwks.keys = [known];
  const s = await TestServer.start({ SATANG_OIDC_ISSUER: issuer, SATANG_OIDC_JWKS: await jwks.start() });
  try {
    await run({
      s, known, bo: operatorCalls(s, known),
      async whileSteppingUp(slow, meanwhile) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, jwks.lastFetchAt + jwksCooldownMs + 500 - Date.now())));
        jwks.keys = [known, unfetched];
        const fetch = jwks.hold();
        const answer = slow(unfetched);
        await fetch.arrived;
        await meanwhile();
        fetch.release();
        return answer;
      },
    });
  } finally {
    await s.stop();
    await jwks.stop();
  }
}
