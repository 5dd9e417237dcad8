// The fee-schedule approval's action-log row names the schedule the approval replaced: the
// one in force when the approval is decided, after its step-up is checked — not the one
// read when the request came in. A step-up is checked against the issuer's keys, which the
// server may have to fetch (a remote JWKS, as in production): another operator's approval
// can land meanwhile. Here the issuer's JWKS is a server of the spec's own, whose answer for
// the step-up's new signing key waits until three other operator calls have changed the
// schedule in force (jose fetches a JWKS again for an unknown key once 30 s have passed
// since the last fetch, so the spec waits that long once).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { operatorAudience } from '../../server/auth/operator.ts';
import { operatorRoles } from '../../server/auth/roles.ts';
import { TestServer, type Reply } from '../support/server-harness.ts';

const issuer = 'https://login.example.test/';
/** jose's createRemoteJWKSet: no fetch again for an unknown key within 30 s of the last (cooldownDuration). */
const jwksCooldownMs = 30_000;

interface Key { readonly kid: string; readonly privateKey: KeyLike; readonly jwk: JWK }

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

test('an approval whose step-up waits on the issuer\'s keys while two other approvals land logs, as its before, the schedule in force when it was decided', async () => {
  const jwks = new JwksServer();
  const [first, second] = [await newKey('ext-1'), await newKey('ext-2')];
  jwks.keys = [first];
  const s = await TestServer.start({ SATANG_OIDC_ISSUER: issuer, SATANG_OIDC_JWKS: await jwks.start() });
  try {
    const bo = async (method: string, path: string, body: unknown, sub: string, stepUpKey?: Key): Promise<Reply> => {
      const headers: Record<string, string> = { Authorization: `Bearer ${await token(first, sub, false)}`, 'Content-Type': 'application/json' };
      if (method === 'POST') headers['Idempotency-Key'] = randomUUID();
      if (stepUpKey) headers['X-PG-Step-Up-Token'] = await token(stepUpKey, sub, true);
      return s.raw(method, path, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    };
    const wl = await bo('POST', '/v1/bo/white-labels', { name: 'Brand' }, 'emp_maker');
    assert.is(wl.status, 201, wl.text);
    const fees = `/v1/bo/white-labels/${wl.json.id}/fees`;
    const slow = { deposit_processing_fee_bps: 180, withdrawal_fixed_fee_minor: 1_500 };
    const meanwhile = { deposit_processing_fee_bps: 200, withdrawal_fixed_fee_minor: 1_500 };
    const propose = async (body: object) => assert.is((await bo('POST', fees, body, 'emp_maker', first)).status, 202);
    const approve = async (body: object) => { const r = await bo('POST', `${fees}/approve`, body, 'emp_checker', first); assert.is(r.status, 200, r.text); };
    await propose(slow);

    // The step-up of emp_slow's approval is signed with a key the server has not fetched: it fetches the JWKS again, and waits.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, jwks.lastFetchAt + jwksCooldownMs + 500 - Date.now())));
    jwks.keys = [first, second];
    const fetch = jwks.hold();
    const slowApproval = bo('POST', `${fees}/approve`, slow, 'emp_slow', second);
    await fetch.arrived;
    // Meanwhile the schedule proposed is approved by another, a second one proposed and approved, and the first proposed again.
    await approve(slow);
    await propose(meanwhile);
    await approve(meanwhile);
    await propose(slow);
    fetch.release();
    const approved = await slowApproval;
    assert.equal([approved.status, approved.json.deposit_processing_fee_bps, approved.json.approved_by], [200, 180, 'emp_slow'], approved.text);

    const log = await bo('GET', `/v1/bo/reports/action-logs?route=${encodeURIComponent('/v1/bo/white-labels/:id/fees/approve')}`, undefined, 'emp_auditor');
    assert.is(log.status, 200, log.text);
    const rows = log.json.data.filter((r: any) => r.outcome === 'ok').map((r: any) => [r.subject, r.changes.fee_schedule.before.deposit_processing_fee_bps, r.changes.fee_schedule.after.deposit_processing_fee_bps]);
    assert.equal(rows, [['emp_slow', 200, 180], ['emp_checker', 180, 200], ['emp_checker', 150, 180]], 'newest first: the slow approval replaced the 200 bps schedule in force when it was decided');
  } finally {
    await s.stop();
    await jwks.stop();
  }
});

test.run();
