// A real satang server for specs: listening on a free port, on a fresh data dir in a
// temp folder, with the manual clock, driven over HTTP by a signing client written
// here (it builds the contract's nine-line canonical string itself, independently of
// server/hmac.ts, so a bug there cannot hide behind the same bug here).
//
// Two clocks, as in DESIGN.md: `clock` is business time (manual, moved by the spec);
// `securityClock` is the wall clock the HMAC window, nonce memory and rate limits run on.
// Merchant calls are signed with the security clock, which follows the real time unless a
// spec steps it forward (to age nonces or rate-limit windows without waiting).

import { createHash, createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../adapters/clock.ts';
import { operatorAudience } from '../../server/auth/operator.ts';
import { operatorRoles } from '../../server/auth/roles.ts';
import { startServer, type Running } from '../../server/main.ts';
import type { SlipOptions } from '../../server/slips/wiring.ts';
import type { Clock } from '../../core/ports.ts';
import { checkAgainstOpenApi } from './openapi-check.ts';

/** The wall clock plus an offset a spec may step forward; never behind the real time. */
export class SteppedWallClock implements Clock {
  private offsetMs = 0;
  private heldAt: number | undefined;
  now(): number { return this.heldAt ?? Date.now() + this.offsetMs; }
  /** Stops the clock until `release`, so a boundary a test probes cannot move under it when a second ticks. */
  hold(): void { this.heldAt = this.now(); }
  /** Runs again from the real time plus the offset: forward by the time it was held, never back. */
  release(): void {
    if (this.heldAt !== undefined) this.offsetMs += Math.max(0, this.heldAt - (Date.now() + this.offsetMs));
    this.heldAt = undefined;
  }
  advance(ms: number): void {
    if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`security clock: cannot advance by ${ms} ms`);
    if (this.heldAt !== undefined) this.heldAt += ms;
    else this.offsetMs += ms;
  }
}

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: any;
}

export interface MerchantKeys {
  readonly id: string;
  readonly whiteLabelId: string;
  readonly live: { key_id: string; api_key: string };
  readonly sandbox: { key_id: string; api_key: string };
}

export class TestServer {
  private constructor(readonly running: Running, readonly clock: ManualClock, readonly securityClock: SteppedWallClock, readonly dataDir: string) {}

  /** `systemClock`: the server runs on the system clock, as in production (`clock` is then a ManualClock that drives nothing). */
  static async start(env: Record<string, string> = {}, dataDir = mkdtempSync(join(tmpdir(), 'satang-spec-')), options: SlipOptions & { systemClock?: boolean } = {}): Promise<TestServer> {
    const clock = new ManualClock(Date.UTC(2026, 10, 21, 3, 0, 0));
    const securityClock = new SteppedWallClock();
    const { systemClock, ...slipOptions } = options;
    const running = await startServer(
      { SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_CLOCK: systemClock ? 'system' : 'manual', SATANG_LOG_LEVEL: 'silent', ...env },
      { ...(systemClock ? {} : { clock }), securityClock, ...slipOptions },
    );
    return new TestServer(running, clock, securityClock, dataDir);
  }

  get url(): string { return this.running.url; }

  async stop(removeData = true): Promise<void> {
    await this.running.close();
    if (removeData) {
      rmSync(this.dataDir, { recursive: true, force: true });
      rmSync(`${this.dataDir}.master-key`, { force: true }); // development's key, generated beside the data dir
    }
  }

  /**
   * A development-issuer token with every role unless told otherwise, minted on the wall
   * clock as `scripts/satang token` does (tokens are security time; the manual clock is
   * business time and never moves them).
   */
  async operatorToken(sub = 'emp_alice', stepUp = false, roles: readonly string[] = operatorRoles): Promise<string> {
    return this.running.devIssuer!.mint(sub, { nowSeconds: Math.floor(Date.now() / 1000), stepUp, roles });
  }

  async raw(method: string, path: string, init: { headers?: Record<string, string>; body?: string | Uint8Array } = {}): Promise<Reply> {
    const res = await fetch(this.url + path, { method, headers: init.headers ?? {}, ...(init.body !== undefined ? { body: init.body as BodyInit } : {}) });
    const text = await res.text();
    let json: unknown = undefined;
    try { json = JSON.parse(text); } catch { /* not JSON */ }
    const reply = { status: res.status, headers: res.headers, text, json };
    checkAgainstOpenApi(method, path, reply); // every answer a spec sees matches docs/openapi.json
    return reply;
  }

  /** An operator call with a fresh idempotency key (and a step-up token when asked); every role unless `roles` names them. */
  async bo(method: string, path: string, body?: unknown, options: { sub?: string; stepUp?: boolean; idempotencyKey?: string; roles?: readonly string[] } = {}): Promise<Reply> {
    const headers: Record<string, string> = { Authorization: `Bearer ${await this.operatorToken(options.sub, false, options.roles)}` };
    if (method === 'POST' || method === 'DELETE') headers['Idempotency-Key'] = options.idempotencyKey ?? randomUUID();
    if (options.stepUp) headers['X-PG-Step-Up-Token'] = await this.operatorToken(options.sub, true);
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return this.raw(method, path, { headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  }

  /** Unix seconds on the security clock: what a merchant's synchronised clock reads. */
  wallSeconds(): number { return Math.floor(this.securityClock.now() / 1000); }

  /** A signed merchant call (contract: Merchant HMAC), signed with the wall time; a Uint8Array body is sent and signed as those bytes. */
  async call(key: string, method: string, pathWithQuery: string, body?: unknown, options: SignOptions = {}): Promise<Reply> {
    const payload: string | Uint8Array = body === undefined ? '' : typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
    const headers = signedHeaders(key, method, pathWithQuery, payload, { idempotencyKey: method === 'POST' ? randomUUID() : undefined, nowSeconds: this.wallSeconds(), ...options });
    if (payload.length > 0) headers['Content-Type'] = 'application/json';
    const sent = options.tamper && typeof payload === 'string' ? options.tamper(payload) : payload;
    return this.raw(method, pathWithQuery, { headers, ...(sent.length > 0 ? { body: sent } : {}) });
  }

  async onboard(name = 'Shop', whiteLabelId?: string): Promise<MerchantKeys> {
    const wl = whiteLabelId ?? (await this.bo('POST', '/v1/bo/white-labels', { name: 'Brand' })).json.id;
    const m = await this.bo('POST', '/v1/bo/merchants', { white_label_id: wl, name });
    if (m.status !== 201) throw new Error(`onboarding failed: ${m.text}`);
    return { id: m.json.id, whiteLabelId: wl, live: m.json.keys.live, sandbox: m.json.keys.sandbox };
  }

  async fund(merchantId: string, amountMinor: number, livemode = true): Promise<void> {
    const r = await this.bo('POST', `/v1/bo/merchants/${merchantId}/adjustments`, { livemode, amount_minor: amountMinor, direction: 'credit', bucket: 'available', reason: 'funding' }, { stepUp: true });
    // A large live credit is proposed (four eyes): a second operator approves it, naming the amount.
    const posted = r.status === 202
      ? await this.bo('POST', `/v1/bo/merchants/${merchantId}/adjustments/${r.json.id}/approve`, { amount_minor: amountMinor }, { sub: 'emp_second_pair', stepUp: true })
      : r;
    if (posted.status !== 201) throw new Error(`funding failed: ${posted.text}`);
  }

  async beneficiary(merchantId: string, livemode = true, accountNumber = '1234567890'): Promise<string> {
    const r = await this.bo('POST', `/v1/bo/merchants/${merchantId}/beneficiaries`, { livemode, bank_code: '004', account_number: accountNumber, account_name_th: 'สมหญิง รักดี' });
    if (r.status !== 201) throw new Error(`beneficiary failed: ${r.text}`);
    return r.json.id;
  }
}

/** A key set file's text holding one issuer public key (the server refuses an empty set): for a spec that starts production and signs no operator token. */
export function publicKeySetJson(): string {
  return JSON.stringify({ keys: [{ ...generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }), kid: 'spec-1', alg: 'EdDSA' }] });
}

/** An OIDC issuer of a test's own: an Ed25519 key whose JWKS is written to `dir`, named by the env a server needs. */
export interface ExternalIssuer {
  readonly env: { SATANG_OIDC_ISSUER: string; SATANG_OIDC_JWKS: string };
  /** A one-hour access token (every role) on the wall clock; `claims` adds or overrides. */
  mint(sub: string, claims?: JWTPayload): Promise<string>;
}

export async function externalIssuer(dir: string, issuer = 'https://login.example.test/'): Promise<ExternalIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const jwksPath = join(dir, 'external-jwks.json');
  writeFileSync(jwksPath, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'ext-1', alg: 'EdDSA' }] }));
  return {
    env: { SATANG_OIDC_ISSUER: issuer, SATANG_OIDC_JWKS: jwksPath },
    mint: (sub, claims = {}) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ roles: [...operatorRoles], iss: issuer, aud: operatorAudience, sub, iat: now, exp: now + 3600, jti: randomUUID(), ...claims })
        .setProtectedHeader({ alg: 'EdDSA', kid: 'ext-1' }).sign(privateKey);
    },
  };
}

export interface SignOptions {
  idempotencyKey?: string | undefined;
  nowSeconds?: number;
  nonce?: string;
  version?: string;
  /** Changes the body bytes after signing (to prove the signature covers them). */
  tamper?: (body: string) => string;
}

export function canonical(ts: string, nonce: string, method: string, path: string, query: string, body: string | Uint8Array, idempotencyKey: string, version: string): string {
  const sortedQuery = query === '' ? '' : query.split('&').filter((p) => p !== '').sort((a, b) => {
    const [ka = '', va = ''] = a.split('='), [kb = '', vb = ''] = b.split('=');
    return ka < kb ? -1 : ka > kb ? 1 : va < vb ? -1 : va > vb ? 1 : 0;
  }).join('&');
  const bodyHash = createHash('sha256').update(body).digest('hex');
  return ['v1', ts, nonce, method.toUpperCase(), path, sortedQuery, bodyHash, idempotencyKey, version].map((l) => `${l}\n`).join('');
}

export function signedHeaders(key: string, method: string, pathWithQuery: string, body: string | Uint8Array, o: SignOptions): Record<string, string> {
  const [path = '', query = ''] = pathWithQuery.split('?');
  const ts = String(o.nowSeconds ?? Math.floor(Date.now() / 1000));
  const nonce = o.nonce ?? randomUUID();
  const version = o.version ?? '2026-08-01';
  const signature = createHmac('sha256', key).update(canonical(ts, nonce, method, path, query, body, o.idempotencyKey ?? '', version)).digest('hex');
  return {
    Authorization: `Bearer ${key}`, 'PG-Timestamp': ts, 'PG-Nonce': nonce, 'PG-Version': version, 'PG-Signature': `v1=${signature}`,
    ...(o.idempotencyKey ? { 'Idempotency-Key': o.idempotencyKey } : {}),
  };
}

export const sender = { bank_code: '014', account_number: '9876543210', account_name_th: 'สมชาย ใจดี' };

let senders = 0;
/**
 * A sender account of its own: one account's open orders for one amount are
 * duplicate_open_deposit whoever the end user, so a spec that keeps several open orders of
 * one amount gives each payer one of these (slips of the default `sender` won't match them).
 */
export function freshSender(): typeof sender {
  return { ...sender, account_number: String(1_000_000_000 + process.pid * 1000 + ++senders).slice(-10) };
}

export function depositBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount_minor: 50_000, currency: 'THB', merchant_reference: `ref-${randomUUID()}`, end_user_ref: `user-${randomUUID().slice(0, 8)}`,
    sender, client: { device_fingerprint: 'fp-1', ip: '203.0.113.7', user_agent: 'spec' }, ...overrides,
  };
}
