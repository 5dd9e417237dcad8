// A real satang server for specs: listening on a free port, on a fresh data dir in a
// temp folder, with the manual clock, driven over HTTP by a signing client written
// here (it builds the contract's nine-line canonical string itself, independently of
// server/hmac.ts, so a bug there cannot hide behind the same bug here).

import { createHash, createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../adapters/clock.ts';
import { startServer, type Running } from '../../server/main.ts';
import type { SlipOptions } from '../../server/slips/wiring.ts';

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
  private constructor(readonly running: Running, readonly clock: ManualClock, readonly dataDir: string) {}

  static async start(env: Record<string, string> = {}, dataDir = mkdtempSync(join(tmpdir(), 'satang-spec-')), options: SlipOptions = {}): Promise<TestServer> {
    const clock = new ManualClock(Date.UTC(2026, 10, 21, 3, 0, 0));
    const running = await startServer({ SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_CLOCK: 'manual', SATANG_LOG_LEVEL: 'silent', ...env }, { clock, ...options });
    return new TestServer(running, clock, dataDir);
  }

  get url(): string { return this.running.url; }

  async stop(removeData = true): Promise<void> {
    await this.running.close();
    if (removeData) {
      rmSync(this.dataDir, { recursive: true, force: true });
      rmSync(`${this.dataDir}.master-key`, { force: true }); // development's key, generated beside the data dir
    }
  }

  async operatorToken(sub = 'emp_alice', stepUp = false): Promise<string> {
    return this.running.devIssuer!.mint(sub, { nowSeconds: Math.floor(this.clock.now() / 1000), stepUp });
  }

  async raw(method: string, path: string, init: { headers?: Record<string, string>; body?: string | Uint8Array } = {}): Promise<Reply> {
    const res = await fetch(this.url + path, { method, headers: init.headers ?? {}, ...(init.body !== undefined ? { body: init.body as BodyInit } : {}) });
    const text = await res.text();
    let json: unknown = undefined;
    try { json = JSON.parse(text); } catch { /* not JSON */ }
    return { status: res.status, headers: res.headers, text, json };
  }

  /** An operator call with a fresh idempotency key (and a step-up token when asked). */
  async bo(method: string, path: string, body?: unknown, options: { sub?: string; stepUp?: boolean; idempotencyKey?: string } = {}): Promise<Reply> {
    const headers: Record<string, string> = { Authorization: `Bearer ${await this.operatorToken(options.sub)}` };
    if (method === 'POST') headers['Idempotency-Key'] = options.idempotencyKey ?? randomUUID();
    if (options.stepUp) headers['X-PG-Step-Up-Token'] = await this.operatorToken(options.sub, true);
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return this.raw(method, path, { headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  }

  /** A signed merchant call (contract: Merchant HMAC). */
  async call(key: string, method: string, pathWithQuery: string, body?: unknown, options: SignOptions = {}): Promise<Reply> {
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    const headers = signedHeaders(key, method, pathWithQuery, text, { idempotencyKey: method === 'POST' ? randomUUID() : undefined, nowSeconds: Math.floor(this.clock.now() / 1000), ...options });
    if (text !== '') headers['Content-Type'] = 'application/json';
    const sent = options.tamper ? options.tamper(text) : text;
    return this.raw(method, pathWithQuery, { headers, ...(sent !== '' ? { body: sent } : {}) });
  }

  async onboard(name = 'Shop', whiteLabelId?: string): Promise<MerchantKeys> {
    const wl = whiteLabelId ?? (await this.bo('POST', '/v1/bo/white-labels', { name: 'Brand' })).json.id;
    const m = await this.bo('POST', '/v1/bo/merchants', { white_label_id: wl, name });
    if (m.status !== 201) throw new Error(`onboarding failed: ${m.text}`);
    return { id: m.json.id, whiteLabelId: wl, live: m.json.keys.live, sandbox: m.json.keys.sandbox };
  }

  async fund(merchantId: string, amountMinor: number, livemode = true): Promise<void> {
    const r = await this.bo('POST', `/v1/bo/merchants/${merchantId}/adjustments`, { livemode, amount_minor: amountMinor, direction: 'credit', bucket: 'available', reason: 'funding' }, { stepUp: true });
    if (r.status !== 201) throw new Error(`funding failed: ${r.text}`);
  }

  async beneficiary(merchantId: string, livemode = true, accountNumber = '1234567890'): Promise<string> {
    const r = await this.bo('POST', `/v1/bo/merchants/${merchantId}/beneficiaries`, { livemode, bank_code: '004', account_number: accountNumber, account_name_th: 'สมหญิง รักดี' });
    if (r.status !== 201) throw new Error(`beneficiary failed: ${r.text}`);
    return r.json.id;
  }
}

export interface SignOptions {
  idempotencyKey?: string | undefined;
  nowSeconds?: number;
  nonce?: string;
  version?: string;
  /** Changes the body bytes after signing (to prove the signature covers them). */
  tamper?: (body: string) => string;
}

export function canonical(ts: string, nonce: string, method: string, path: string, query: string, body: string, idempotencyKey: string, version: string): string {
  const sortedQuery = query === '' ? '' : query.split('&').filter((p) => p !== '').sort((a, b) => {
    const [ka = '', va = ''] = a.split('='), [kb = '', vb = ''] = b.split('=');
    return ka < kb ? -1 : ka > kb ? 1 : va < vb ? -1 : va > vb ? 1 : 0;
  }).join('&');
  const bodyHash = createHash('sha256').update(body).digest('hex');
  return ['v1', ts, nonce, method.toUpperCase(), path, sortedQuery, bodyHash, idempotencyKey, version].map((l) => `${l}\n`).join('');
}

export function signedHeaders(key: string, method: string, pathWithQuery: string, body: string, o: SignOptions): Record<string, string> {
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

export function depositBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount_minor: 50_000, currency: 'THB', merchant_reference: `ref-${randomUUID()}`, end_user_ref: `user-${randomUUID().slice(0, 8)}`,
    sender, client: { device_fingerprint: 'fp-1', ip: '203.0.113.7', user_agent: 'spec' }, ...overrides,
  };
}
