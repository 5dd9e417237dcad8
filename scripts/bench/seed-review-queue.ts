// Seeds a running satang server with a review queue of N deposits (default 10,000), as
// fast as the API allows and through its public HTTP API only: the back office onboards a
// white label with a gateway route (so every deposit gets a destination without anyone
// funding a withdrawal), a merchant and enough live API keys that the per-key write quota
// (600 a minute) never binds; then `concurrency` workers each create a signed deposit and
// upload a slip that the verifier holds for review, and the seeder waits until
// GET /v1/bo/deposits?status=under_review&merchant_id= reports them all.
//
// The queue is made to look like a real one, deposit i by i % 10:
//   0–4  a slip without image                      → NO_SLIP_IMAGE (always held, README "Slips")
//   5–6  an image whose mini-QR the bank never saw → SLIP_INVALID
//   7–8  a transfer from another name              → SENDER_NAME_MISMATCH
//   9    a transfer made 2 h before the order      → TIME_WINDOW
// the last two registered at the bank simulator the server mounts in development
// (/v1/sim/bank/; without it they become slips without image), and one deposit in 20 at a
// four-eyes amount (limits.fourEyesAmountMinorMin and up).
//
// Operator tokens are minted from the server's data dir, as `scripts/satang token` does
// (the development issuer, sealed under the master key found beside the data dir or in
// SATANG_MASTER_KEY); a server with an external OIDC issuer refuses them.
//
//   tsx scripts/bench/seed-review-queue.ts --url URL --data-dir DIR [--count N] [--concurrency 32] [--measure] [--ids]
//
// prints one JSON object: the merchant, the count, the seconds it took and the planned
// reasons; --measure adds the queue's GET latency (p50/p99 over 50 calls of the first page
// and of a page half-way through, limit 50); --ids adds every deposit id.

import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { limits } from '../../core/limits.ts';
import type { DevIssuer } from '../../server/auth/operator.ts';
import { devIssuerOf } from '../cli/token.ts';
import { signRequest } from '../../server/hmac.ts';
import { allScopes } from '../../server/ports.ts';

const apiVersion = '2026-08-01';
const operatorSub = 'emp_seeder';
const operatorRoles = ['ops_admin', 'reviewer', 'support'];
/** Creates per key and per rate-limit window (pay_write: 600 a minute), with room for retries. */
const createsPerKeyMax = 500;
/** Retries of one request refused for now (429, 503, 409 idempotency_in_flight, a dropped connection). */
const attemptsMax = 8;
const retryDelayMsMax = 2_000;
/** Waiting for the verifier: give up when the queue has not grown for this long. */
const stallMsMax = 60_000;
const pollMs = 250;
/** The gateway route lives a year (limits.gatewayRouteTtlSecondsMax). */
const gatewayRouteTtlSeconds = limits.gatewayRouteTtlSecondsMax;
const gatewayAccount = { bank_code: '004', account_number: '5550001234', account_name: 'สมหญิง รักดี' };
const senderName = 'สมชาย ใจดี';
const otherSenderName = 'สมศักดิ์ มีเงิน';
const depositAmountMinorMax = 20_000_000; // DESIGN.md: default deposit limits 2000–20,000,000

export type SeedReason = 'NO_SLIP_IMAGE' | 'SLIP_INVALID' | 'SENDER_NAME_MISMATCH' | 'TIME_WINDOW';

export interface SeedProgress { readonly phase: 'onboarding' | 'creating' | 'verifying'; readonly done: number; readonly total: number }

export interface SeedOptions {
  readonly baseUrl: string;
  readonly dataDir: string;
  readonly count?: number;
  /** Deposits in flight at once (default 32). */
  readonly concurrency?: number;
  /** Where transfers are registered (default: the simulator the server mounts, {baseUrl}/v1/sim/bank). */
  readonly bankSimUrl?: string;
  readonly onProgress?: (progress: SeedProgress) => void;
}

export interface SeedResult {
  readonly merchantId: string;
  readonly whiteLabelId: string;
  readonly depositIds: string[];
  readonly seconds: number;
  /** The review reason each deposit was made for, counted. */
  readonly reasons: Record<SeedReason, number>;
  /** Deposits at a four-eyes amount. */
  readonly fourEyes: number;
  readonly keys: number;
}

// ---- HTTP: retried JSON calls, the operator's and the merchant's ----

interface Answer { readonly status: number; readonly json: any; readonly text: string }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function retryable(a: Answer): boolean {
  return a.status === 429 || a.status === 503 || (a.status === 409 && a.json?.error?.code === 'idempotency_in_flight');
}

/** Sends `build()` (rebuilt per attempt: a retry needs a fresh nonce and signature) until it is not refused for now. */
async function send(url: string, build: () => Promise<RequestInit> | RequestInit): Promise<Answer> {
  for (let attempt = 1; ; attempt++) {
    let answer: Answer | undefined;
    try {
      const res = await fetch(url, await build());
      const text = await res.text();
      let json: unknown;
      try { json = JSON.parse(text); } catch { json = undefined; }
      answer = { status: res.status, json, text };
    } catch (error) {
      if (attempt >= attemptsMax) throw error; // a connection dropped: the same Idempotency-Key makes the retry safe
    }
    if (answer && (!retryable(answer) || attempt >= attemptsMax)) return answer;
    const after = answer?.json?.error?.retry_after_seconds;
    await sleep(typeof after === 'number' ? after * 1000 : Math.min(retryDelayMsMax, 50 * 2 ** attempt));
  }
}

function expect(answer: Answer, status: number, what: string): any {
  if (answer.status !== status) throw new Error(`${what}: HTTP ${answer.status} ${answer.text.slice(0, 500)}`);
  return answer.json;
}

/** The back office, as an operator of the development issuer minted from the data dir. */
class Operator {
  private constructor(private readonly baseUrl: string, private readonly issuer: DevIssuer, private readonly sub = operatorSub) {}

  static async of(baseUrl: string, dataDir: string): Promise<Operator> {
    return new Operator(baseUrl, await devIssuerOf(dataDir));
  }

  /** Another operator of the same issuer (the second pair of eyes a gateway route needs). */
  as(sub: string): Operator {
    return new Operator(this.baseUrl, this.issuer, sub);
  }

  async headers(stepUp = false): Promise<Record<string, string>> {
    const headers: Record<string, string> = { Authorization: `Bearer ${await this.issuer.mint(this.sub, { roles: operatorRoles })}` };
    if (stepUp) headers['X-PG-Step-Up-Token'] = await this.issuer.mint(this.sub, { roles: operatorRoles, stepUp: true });
    return headers;
  }

  async post(path: string, body: unknown, stepUp = false): Promise<Answer> {
    const key = randomUUID();
    return send(this.baseUrl + path, async () => ({
      method: 'POST', headers: { ...await this.headers(stepUp), 'Content-Type': 'application/json', 'Idempotency-Key': key }, body: JSON.stringify(body),
    }));
  }

  async get(path: string): Promise<Answer> {
    return send(this.baseUrl + path, async () => ({ headers: await this.headers() }));
  }
}

/** A signed merchant POST (contract: Merchant HMAC) with one Idempotency-Key over its retries. */
function merchantPost(baseUrl: string, key: string, path: string, body: unknown): Promise<Answer> {
  const text = JSON.stringify(body);
  const idempotencyKey = randomUUID();
  return send(baseUrl + path, () => ({
    method: 'POST', body: text,
    headers: { ...signRequest({ secret: key, method: 'POST', path, query: '', body: text, version: apiVersion, idempotencyKey }), 'Content-Type': 'application/json' },
  }));
}

// ---- onboarding ----

interface Onboarded { readonly whiteLabelId: string; readonly merchantId: string; readonly keys: readonly string[] }

async function onboard(operator: Operator, count: number, runId: string): Promise<Onboarded> {
  const probe = await operator.get('/v1/bo/deposits?limit=1');
  if (probe.status === 401) throw new Error('the server refused a token of the development issuer in the data dir: is --data-dir the one the server runs on (and its master key beside it or in SATANG_MASTER_KEY)?');
  expect(probe, 200, 'GET /v1/bo/deposits');
  const wl = expect(await operator.post('/v1/bo/white-labels', { name: `Review queue seed ${runId}` }), 201, 'POST /v1/bo/white-labels');
  expect(await operator.post(`/v1/bo/white-labels/${wl.id}/gateway-route`, { ...gatewayAccount, ttl_seconds: gatewayRouteTtlSeconds }, true), 202, 'POST gateway-route');
  const { bank_code, account_number } = gatewayAccount;
  expect(await operator.as(`${operatorSub}_second`).post(`/v1/bo/white-labels/${wl.id}/gateway-route/approve`, { bank_code, account_number }, true), 200, 'POST gateway-route/approve');
  const merchant = expect(await operator.post('/v1/bo/merchants', { white_label_id: wl.id, name: `Review queue shop ${runId}` }), 201, 'POST /v1/bo/merchants');
  if (!merchant.keys.live) throw new Error('the merchant got no live key (a production server issues it after certification)');
  const keys: string[] = [merchant.keys.live.api_key];
  const keysNeeded = Math.max(1, Math.ceil(count / createsPerKeyMax));
  while (keys.length < keysNeeded) {
    keys.push(expect(await operator.post(`/v1/bo/merchants/${merchant.id}/keys`, { livemode: true, scopes: allScopes }, true), 201, 'POST keys').api_key);
  }
  return { whiteLabelId: wl.id, merchantId: merchant.id, keys };
}

// ---- one deposit: its plan, its creation, its slip ----

interface Plan { readonly index: number; readonly reason: SeedReason; readonly amountMinor: number; readonly fourEyes: boolean }

const reasonByDigit: readonly SeedReason[] = [
  'NO_SLIP_IMAGE', 'NO_SLIP_IMAGE', 'NO_SLIP_IMAGE', 'NO_SLIP_IMAGE', 'NO_SLIP_IMAGE',
  'SLIP_INVALID', 'SLIP_INVALID', 'SENDER_NAME_MISMATCH', 'SENDER_NAME_MISMATCH', 'TIME_WINDOW',
];

export function planOf(index: number, simulator: boolean): Plan {
  const wanted = reasonByDigit[index % reasonByDigit.length]!;
  const reason = !simulator && (wanted === 'SENDER_NAME_MISMATCH' || wanted === 'TIME_WINDOW') ? 'NO_SLIP_IMAGE' : wanted;
  // A large order (four eyes by its amount); a claim without an image needs four eyes whatever its amount.
  const fourEyes = index % 20 === 7;
  // Ordinary orders 100–5,000 baht, spread by a prime stride; four-eyes ones from the threshold up, in whole baht.
  const amountMinor = fourEyes ? Math.min(depositAmountMinorMax, limits.fourEyesAmountMinorMin + (index % 7) * 1_000_000) : 10_000 + ((index * 7_919) % 4_901) * 100;
  return { index, reason, amountMinor, fourEyes };
}

/** A sender account of ten digits of its own per deposit, so no two open orders look alike (duplicate_open_deposit). */
const senderAccount = (runDigits: string, index: number) => `${runDigits}${String(index).padStart(6, '0')}`.slice(-10).padStart(10, '1');

/** A PNG signature and header, then a tag: its bytes make the type, the tag makes it unique. */
function pngSlip(tag: string): Buffer {
  return Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'), Buffer.from(`seeded slip ${tag}`)]);
}

interface Created { readonly id: string; readonly createdAt: string; readonly capability: { token: string; upload_url: string; content_types: string[] } }

async function createDeposit(baseUrl: string, key: string, plan: Plan, runId: string, account: string): Promise<Created> {
  const body = {
    amount_minor: plan.amountMinor, currency: 'THB', merchant_reference: `seed-${runId}-${plan.index}`, end_user_ref: `seed-user-${runId}-${plan.index}`,
    sender: { bank_code: '014', account_number: account, account_name_th: senderName },
    client: { device_fingerprint: `seed-${runId}-${plan.index}`, ip: '203.0.113.7', user_agent: 'satang-seed-review-queue' },
  };
  const d = expect(await merchantPost(baseUrl, key, '/v1/pay/deposits', body), 201, `deposit ${plan.index}`);
  if (!d.slip_upload) throw new Error(`deposit ${d.id} has no slip_upload capability`);
  return { id: d.id, createdAt: d.created_at, capability: d.slip_upload };
}

/** What the slip says (and, for a transfer the bank knows, the transfer registered first). */
async function slipBody(plan: Plan, d: Created, account: string, bankSimUrl: string): Promise<Record<string, string>> {
  const transRef = `SEED${d.id.slice(-20)}`;
  if (plan.reason === 'NO_SLIP_IMAGE') return { trans_ref: transRef, sending_bank_code: '014', occurred_at: d.createdAt };
  const payload = `seed-qr-${d.id}`;
  const image = pngSlip(d.id).toString('base64');
  if (plan.reason === 'SLIP_INVALID') return { image_base64: image, payload };
  const mismatch = plan.reason === 'SENDER_NAME_MISMATCH';
  const occurredAt = mismatch ? d.createdAt : new Date(Date.parse(d.createdAt) - 2 * 3_600_000).toISOString();
  const transfer = {
    trans_ref: transRef, amount_minor: plan.amountMinor, occurred_at: occurredAt, payload, receiver: gatewayAccount,
    sender: { bank_code: '014', account_number: account, account_name_th: mismatch ? otherSenderName : senderName },
  };
  const registered = await send(`${bankSimUrl}/transfers`, () => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(transfer) }));
  if (registered.status !== 201 && registered.status !== 409) expect(registered, 201, `bank simulator transfer of ${d.id}`);
  return { image_base64: image, payload };
}

async function uploadSlip(d: Created, body: Record<string, string>): Promise<void> {
  if (!d.capability.content_types.includes('application/json')) throw new Error(`the slip upload of ${d.id} takes no JSON (content_types ${d.capability.content_types.join(', ')})`);
  const key = randomUUID();
  const text = JSON.stringify(body);
  const receipt = await send(d.capability.upload_url, () => ({ method: 'POST', headers: { Authorization: `Bearer ${d.capability.token}`, 'Idempotency-Key': key, 'Content-Type': 'application/json' }, body: text }));
  expect(receipt, 202, `slip of ${d.id}`);
}

// ---- the whole run ----

/** Whether the server mounts the bank simulator (development without SATANG_SLIP_PROVIDER_URL). */
async function simulatorMounted(bankSimUrl: string): Promise<boolean> {
  const probe = await send(`${bankSimUrl}/verify`, () => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ payload: 'seed-probe' }) }));
  return probe.status !== 404 && probe.status !== 405;
}

async function createAll(o: Required<Pick<SeedOptions, 'baseUrl' | 'count' | 'concurrency'>> & SeedOptions, on: Onboarded, plans: readonly Plan[], runId: string): Promise<string[]> {
  const bankSimUrl = o.bankSimUrl ?? `${o.baseUrl}/v1/sim/bank`;
  const runDigits = String(Date.now()).slice(-4);
  const ids: string[] = new Array(plans.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (let i = next++; i < plans.length; i = next++) {
      const plan = plans[i]!;
      const account = senderAccount(runDigits, i);
      const d = await createDeposit(o.baseUrl, on.keys[i % on.keys.length]!, plan, runId, account);
      await uploadSlip(d, await slipBody(plan, d, account, bankSimUrl));
      ids[i] = d.id;
      if (++done % 500 === 0 || done === plans.length) o.onProgress?.({ phase: 'creating', done, total: plans.length });
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency, plans.length) }, worker));
  return ids;
}

/** Waits until the merchant's review queue holds `count` deposits; fails when it stops growing. */
async function awaitQueue(operator: Operator, merchantId: string, count: number, onProgress?: SeedOptions['onProgress']): Promise<void> {
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const total = expect(await operator.get(`/v1/bo/deposits?status=under_review&merchant_id=${merchantId}&limit=1`), 200, 'GET /v1/bo/deposits').total as number;
    if (total !== last) { last = total; lastChange = Date.now(); onProgress?.({ phase: 'verifying', done: total, total: count }); }
    if (total >= count) return;
    if (Date.now() - lastChange > stallMsMax) {
      const processing = expect(await operator.get(`/v1/bo/deposits?status=slip_processing&merchant_id=${merchantId}&limit=1`), 200, 'GET /v1/bo/deposits').total;
      throw new Error(`the review queue stopped at ${total} of ${count} for ${stallMsMax / 1000} s (${processing} slips still processing)`);
    }
    await sleep(pollMs);
  }
}

export async function seedReviewQueue(options: SeedOptions): Promise<SeedResult> {
  const o = { count: 10_000, concurrency: 32, ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') };
  if (!Number.isSafeInteger(o.count) || o.count < 1) throw new RangeError(`count must be a positive integer, not ${o.count}`);
  const started = Date.now();
  const runId = randomUUID().slice(0, 8);
  const operator = await Operator.of(o.baseUrl, o.dataDir);
  o.onProgress?.({ phase: 'onboarding', done: 0, total: o.count });
  const onboarded = await onboard(operator, o.count, runId);
  const simulator = await simulatorMounted(o.bankSimUrl ?? `${o.baseUrl}/v1/sim/bank`);
  const plans = Array.from({ length: o.count }, (_, i) => planOf(i, simulator));
  const depositIds = await createAll(o, onboarded, plans, runId);
  await awaitQueue(operator, onboarded.merchantId, o.count, o.onProgress);
  const reasons: Record<SeedReason, number> = { NO_SLIP_IMAGE: 0, SLIP_INVALID: 0, SENDER_NAME_MISMATCH: 0, TIME_WINDOW: 0 };
  for (const p of plans) reasons[p.reason]++;
  return {
    merchantId: onboarded.merchantId, whiteLabelId: onboarded.whiteLabelId, depositIds, reasons, fourEyes: plans.filter((p) => p.fourEyes).length,
    keys: onboarded.keys.length, seconds: Math.round((Date.now() - started) / 10) / 100,
  };
}

// ---- the queue's latency at that size ----

export interface Latency { readonly p50_ms: number; readonly p99_ms: number; readonly max_ms: number }
export interface QueueLatency { readonly total: number; readonly limit: number; readonly calls: number; readonly first_page: Latency; readonly deep_page: Latency & { readonly offset: number } }

function latencyOf(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return { p50_ms: round(at(0.5)), p99_ms: round(at(0.99)), max_ms: round(sorted[sorted.length - 1]!) };
}

async function timed(operator: Operator, path: string, calls: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const headers = await operator.headers(); // minted outside the timing
    const started = performance.now();
    const res = await fetch(path, { headers });
    await res.arrayBuffer();
    samples.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status}`);
  }
  return samples;
}

/** GET /v1/bo/deposits?status=under_review&limit=… timed one call at a time: the first page, and the page half-way through (by cursor). */
export async function measureQueue(options: { baseUrl: string; dataDir: string; calls?: number; limit?: number; merchantId?: string }): Promise<QueueLatency> {
  const { calls = 50, limit = 50 } = options;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const operator = await Operator.of(baseUrl, options.dataDir);
  const filter = `/v1/bo/deposits?status=under_review${options.merchantId ? `&merchant_id=${options.merchantId}` : ''}`;
  const first = expect(await operator.get(`${filter}&limit=1`), 200, 'GET /v1/bo/deposits');
  const total = first.total as number;
  // Walk to the middle with the largest pages (the cursor is bound to the filters, not to limit).
  let cursor: string | null = null;
  let offset = 0;
  while (offset + limits.pageSizeMax <= Math.floor(total / 2)) {
    const page: any = expect(await operator.get(`${filter}&limit=${limits.pageSizeMax}${cursor ? `&cursor=${cursor}` : ''}`), 200, 'GET /v1/bo/deposits');
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
    offset += page.data.length;
  }
  const firstPage = latencyOf(await timed(operator, `${baseUrl}${filter}&limit=${limit}`, calls));
  const deepPage = latencyOf(await timed(operator, `${baseUrl}${filter}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, calls));
  return { total, limit, calls, first_page: firstPage, deep_page: { ...deepPage, offset } };
}

// ---- command line ----

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' }, 'data-dir': { type: 'string' }, count: { type: 'string', default: '10000' },
      concurrency: { type: 'string', default: '32' }, measure: { type: 'boolean', default: false }, ids: { type: 'boolean', default: false },
    },
  });
  if (!values.url || !values['data-dir']) throw new Error('usage: tsx scripts/bench/seed-review-queue.ts --url URL --data-dir DIR [--count N] [--concurrency 32] [--measure] [--ids]');
  const baseUrl = values.url;
  const dataDir = values['data-dir'];
  const started = Date.now();
  const result = await seedReviewQueue({
    baseUrl, dataDir, count: Number(values.count), concurrency: Number(values.concurrency),
    onProgress: (p) => process.stderr.write(`[seed-review-queue] ${((Date.now() - started) / 1000).toFixed(1)} s ${p.phase} ${p.done}/${p.total}\n`),
  });
  const { depositIds, ...summary } = result;
  const measured = values.measure ? { queue_latency: await measureQueue({ baseUrl, dataDir }), queue_latency_merchant: await measureQueue({ baseUrl, dataDir, merchantId: result.merchantId }) } : {};
  process.stdout.write(`${JSON.stringify({ ...summary, count: depositIds.length, ...measured, ...(values.ids ? { depositIds } : {}) }, null, 2)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
