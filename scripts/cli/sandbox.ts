// The sandbox from the command line (README "Sandbox"):
//   satang scenarios                                  the contract's scenario table
//   satang trigger <amount | name> --key sk_test_…   plays one scenario, like `stripe trigger`
//   satang certify --key sk_test_…                    runs certification, prints pass/fail
// trigger creates the sandbox deposit (and, for 11300, the withdrawal; for 11500, the
// conflicting retry), uploads a slip where the scenario needs one (11200), moves a manual
// clock when the server has one (POST /v1/bo/clock/advance with a development operator
// token) or else waits in real time, and prints each of the merchant's events as the
// events feed shows it. certify waits out a 429 or 503 (its start's and its polls') as the
// answer asks, within --wait, and trigger its feed's first read and its deposit's creation
// (a minute at most), and its feed's last read (a minute more); both name any other
// refusal by its code and message, and trigger exits 1 when the scenario's last events
// could not be read, saying from which sequence on. The
// scenario table itself is core's (core/sandbox/scenarios.ts).

import { randomInt, randomUUID } from 'node:crypto';
import { sandboxScenarios, type Scenario } from '../../core/sandbox/scenarios.ts';
import { signRequest } from '../../server/hmac.ts';
import { defaultDataDir, notASandboxKey, parseCommand, text, usageError, type CommandSpec, type OptionSpec, urlOption } from './args.ts';
import { fetchOrRefuse, notSatang } from './reach.ts';
import { columns } from './table.ts';
import { mintToken } from './token.ts';

const apiVersion = '2026-08-01';

const common: Record<string, OptionSpec> = {
  key: { type: 'string', value: 'SK', secret: true, help: 'the sandbox API key (sk_test_…; $SATANG_API_KEY)' },
  url: urlOption,
  'data-dir': { type: 'string', value: 'DIR', default: defaultDataDir, help: "the server's data directory, for the operator token that moves a manual clock ($SATANG_DATA_DIR)" },
};

interface Reply { status: number; json: any; headers: Headers }
interface Ctx { url: string; key: string; dataDir: string }

async function merchant(ctx: Ctx, method: string, target: string, body?: unknown, idempotencyKey?: string): Promise<Reply> {
  const [path = '', query = ''] = target.split('?');
  const payload = body === undefined ? '' : JSON.stringify(body);
  const key = method === 'POST' ? idempotencyKey ?? randomUUID() : undefined;
  const headers = signRequest({ secret: ctx.key, method, path, query, body: payload, version: apiVersion, ...(key ? { idempotencyKey: key } : {}) });
  if (payload !== '') headers['Content-Type'] = 'application/json';
  const res = await fetchOrRefuse(ctx.url + target, { method, headers, ...(payload !== '' ? { body: payload } : {}) });
  return { status: res.status, json: await res.json().catch(() => null), headers: res.headers };
}

/** Moves a manual clock by `seconds`; false when the server runs on the system clock (or refuses). */
async function advance(ctx: Ctx, seconds: number): Promise<boolean> {
  const token = process.env.SATANG_OPERATOR_TOKEN ?? await mintToken(ctx.dataDir, 'emp_sandbox_cli', ['ops_admin'], false).catch(() => undefined);
  if (!token) return false;
  const res = await fetchOrRefuse(`${ctx.url}/v1/bo/clock/advance`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' }, body: JSON.stringify({ seconds }) });
  return res.status === 200;
}

function context(args: { values: Record<string, unknown> }): Ctx | string {
  const key = text(args as never, 'key') || (process.env.SATANG_API_KEY ?? '');
  return notASandboxKey(key) ?? { url: text(args as never, 'url'), key, dataDir: text(args as never, 'data-dir') };
}

// ---- scenarios ----

export const scenariosSpec: CommandSpec = { usage: 'satang scenarios', summary: 'Lists the sandbox scenarios: amount_minor, name and what happens.', options: {} };

export async function scenariosCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(scenariosSpec, argv);
  if (typeof args === 'number') return args;
  for (const s of sandboxScenarios) process.stdout.write(`${String(s.amountMinor).padEnd(7)} ${s.name.padEnd(22)} ${s.summary}\n`);
  return 0;
}

// ---- trigger ----

export const triggerSpec: CommandSpec = {
  usage: 'satang trigger <amount | scenario name>',
  summary: 'Plays one sandbox scenario: creates the deposit, drives the clock and prints each event as it arrives. Exit 0 when the scenario ran.',
  words: ['SCENARIO'],
  options: { ...common, seconds: { type: 'string', value: 'N', default: '', integer: true, min: 1, max: 999_999, unit: 'seconds', help: 'how long to play (default: the scenario\'s own length)' } },
  notes: ['example: scripts/satang trigger 10300 --key sk_test_…', 'scripts/satang scenarios lists the amounts and names.'],
};

/**
 * How long each scenario takes to play out (service-clock seconds, a step past its last
 * event in the README's table), so that on a system clock a trigger waits no longer than
 * its scenario: 10000 is done in 10 s, not 75.
 */
const lengths: ReadonlyMap<number, number> = new Map([
  [10_200, 75], [10_300, 70], [10_400, 245], [10_500, 30], [10_800, 55], [10_900, 70], [11_400, 65],
]);
/** How long trigger waits out a busy server (429, 503), in seconds in all: before the scenario starts, and for its last events. */
const triggerBusyWaitSecondsMax = 60;

function lengthOf(s: Scenario | undefined): number {
  return (s && lengths.get(s.amountMinor)) ?? 10;
}

/**
 * The end user's account, a new one per trigger: the same sender and amount awaiting
 * payment is duplicate_open_deposit, so a scenario could not be played again while the
 * last one's order was open.
 */
function demoSender() {
  return { bank_code: '014', account_number: String(randomInt(1_000_000_000, 9_999_999_999)), account_name_th: 'สมชาย ใจดี' };
}

export async function triggerCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(triggerSpec, argv);
  if (typeof args === 'number') return args;
  const ctx = context(args);
  if (typeof ctx === 'string') return usageError(triggerSpec, ctx);
  const word = args.words[0] ?? '';
  // An amount is written as the API takes it: digits, no sign, no leading zero, no decimals.
  const amount = /^[1-9][0-9]{0,15}$/.test(word) ? Number(word) : sandboxScenarios.find((s) => s.name === word)?.amountMinor;
  if (amount === undefined || !Number.isSafeInteger(amount)) return usageError(triggerSpec, `'${word}' is neither a scenario name nor an amount in satang (digits, e.g. 10300)`);
  const scenario = sandboxScenarios.find((s) => s.amountMinor === amount);
  const secondsText = text(args, 'seconds');
  // A busy server's 429 or 503 (a spent quota, load shedding) is waited out as it asks, as
  // certify does, up to triggerBusyWaitSecondsMax in all: the scenario was not played yet.
  const busyDeadlineMs = Date.now() + triggerBusyWaitSecondsMax * 1000;
  const feed = new EventFeed(ctx);
  const refused = await feed.skipToEnd(busyDeadlineMs);
  if (refused) { process.stderr.write(`${refused}\n`); return 1; }
  process.stdout.write(scenario ? `scenario ${scenario.amountMinor} ${scenario.name}: ${scenario.summary}\n` : `amount ${amount}: no scenario, an exact transfer verifies\n`);
  const body = { amount_minor: amount, currency: 'THB', merchant_reference: `trigger-${randomUUID()}`, end_user_ref: `trigger-${randomUUID().slice(0, 8)}`, sender: demoSender() };
  const key = randomUUID();
  const created = await patiently(ctx, 'POST', '/v1/pay/deposits', busyDeadlineMs, body, key);
  process.stdout.write(`POST /v1/pay/deposits → ${created.status} ${created.json?.id ?? JSON.stringify(created.json)}\n`);
  if (created.status >= 300) return 1;
  feed.only(created.json.id);
  if (amount === 11_500) {
    const again = await merchant(ctx, 'POST', '/v1/pay/deposits', { ...body, amount_minor: amount + 100 }, key);
    process.stdout.write(`POST /v1/pay/deposits (same Idempotency-Key, another body) → ${again.status} ${again.json?.error?.code ?? ''}\n`);
  }
  const seconds = Number(secondsText || lengthOf(scenario));
  const manual = await play(ctx, feed, seconds, amount === 11_200 ? created.json : undefined);
  if (amount === 11_300) await refusedWithdrawal(ctx, manual);
  // The scenario's last events: a busy server waited out as before it started; events that
  // could not be read are said (where to read them from), never dropped with exit 0.
  const unread = await feed.print(Date.now() + triggerBusyWaitSecondsMax * 1000);
  if (unread) {
    process.stderr.write(`${unread}\nthe scenario was played, but its events from sequence ${feed.sinceSequence} on could not be read: `
      + `scripts/satang call GET '/v1/pay/events?since_sequence=${feed.sinceSequence}' --key … reads them\n`);
    return 1;
  }
  return 0;
}

/** Moves the clock (or waits) in 5 s steps, printing events; 11200 uploads its slip once the window closed. */
async function play(ctx: Ctx, feed: EventFeed, seconds: number, slipFor?: any): Promise<boolean> {
  let manual = true;
  for (let t = 0; t < seconds; t += 5) {
    if (manual) manual = await advance(ctx, 5);
    if (!manual) await new Promise((r) => setTimeout(r, 5000));
    // Not waited out here: what a busy server did not give now, the next read (the last one waits) gives.
    await feed.print(Date.now());
    if (slipFor && t === 5) await uploadSlip(slipFor);
  }
  return manual;
}

/** A tiny JPEG (the magic bytes the intake checks), posted with the deposit's slip capability. */
async function uploadSlip(deposit: any): Promise<void> {
  const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(`satang trigger ${randomUUID()}`), Buffer.from([0xff, 0xd9])]);
  const form = new FormData();
  form.set('file', new Blob([jpeg], { type: 'image/jpeg' }), 'slip.jpg');
  const res = await fetchOrRefuse(deposit.slip_upload.upload_url, { method: 'POST', headers: { Authorization: `Bearer ${deposit.slip_upload.token}`, 'Idempotency-Key': randomUUID() }, body: form });
  const json: any = await res.json().catch(() => null);
  process.stdout.write(`POST slip → ${res.status} ${json?.error?.code ?? json?.status ?? ''}${json?.error?.details?.claim_url ? ` claim_url=${json.error.details.claim_url}` : ''}\n`);
}

/** 11300: a beneficiary, its verification, then the withdrawal of 11300 that is refused. */
async function refusedWithdrawal(ctx: Ctx, manual: boolean): Promise<void> {
  const ben = await merchant(ctx, 'POST', '/v1/pay/beneficiaries', { bank_code: '004', account_number: '1234567890', account_name_th: 'สมหญิง รักดี' });
  if (ben.status !== 201) { process.stdout.write(`POST /v1/pay/beneficiaries → ${ben.status}\n`); return; }
  for (let i = 0; i < 8; i++) {
    const b = await merchant(ctx, 'GET', `/v1/pay/beneficiaries/${ben.json.id}`);
    if (b.json?.status === 'verified') break;
    if (!manual || !(await advance(ctx, 5))) await new Promise((r) => setTimeout(r, 5000));
  }
  const w = await merchant(ctx, 'POST', '/v1/pay/withdrawals', { amount_minor: 11_300, currency: 'THB', merchant_reference: `trigger-${randomUUID()}`, end_user_ref: 'payee-1', beneficiary_id: ben.json.id });
  const d = w.json?.error?.details ?? {};
  process.stdout.write(`POST /v1/pay/withdrawals 11300 → ${w.status} ${w.json?.error?.code ?? w.json?.id} pending_clearing_minor=${d.pending_clearing_minor} pending_clearing_available_at=${d.pending_clearing_available_at}\n`);
}

/**
 * The merchant's events feed (sandbox), read from where it ended when the command started;
 * once `only` names the trigger's deposit, the events that name it (and key rotations,
 * 11400's), not those of other orders played at the same time.
 */
class EventFeed {
  private since = '0';
  private depositId: string | undefined;
  constructor(private readonly ctx: Ctx) {}

  only(depositId: string): void {
    this.depositId = depositId;
  }

  /** Where the feed is read from now: what a person passes to read on where trigger stopped. */
  get sinceSequence(): string {
    return this.since;
  }

  /**
   * The feed's next page from where it was read to, a 429 or 503 waited out until
   * `busyDeadlineMs`; a string when it cannot be read (a bad key, a server refusal, a busy
   * server past the deadline, not satang at all), naming why.
   */
  private async page(busyDeadlineMs: number): Promise<{ data: any[]; next_sequence: number; has_more: boolean } | string> {
    const target = `/v1/pay/events?since_sequence=${this.since}&limit=100`;
    const r = await patiently(this.ctx, 'GET', target, busyDeadlineMs);
    if (r.status === 200 && Array.isArray(r.json?.data)) return r.json;
    return typeof r.json?.error?.code === 'string' ? `GET /v1/pay/events → ${describe(r)}` : notSatang(this.ctx.url + target, r.status, r.headers.get('content-type')).message;
  }

  /** Undefined once at the end; else why the feed cannot be read. */
  async skipToEnd(busyDeadlineMs: number): Promise<string | undefined> {
    for (let page = 0; page < 10_000; page++) {
      const read = await this.page(busyDeadlineMs);
      if (typeof read === 'string') return read;
      this.since = String(read.next_sequence);
      if (!read.has_more) return undefined;
    }
    return undefined;
  }

  private mine(e: any): boolean {
    return this.depositId === undefined || e.type.startsWith('webhook.key.') || JSON.stringify(e.data).includes(this.depositId);
  }

  /**
   * Prints this trigger's events since the last read, to the feed's end; undefined once
   * there, else why it stopped (the events from sinceSequence on were not shown). A busy
   * server is waited out until `busyDeadlineMs` (now: not waited out, the next read catches up).
   */
  async print(busyDeadlineMs: number): Promise<string | undefined> {
    for (let page = 0; page < 100; page++) {
      const read = await this.page(busyDeadlineMs);
      if (typeof read === 'string') return read;
      for (const e of read.data) {
        if (!this.mine(e)) continue;
        const o = e.data?.object ?? {};
        const reasons = o.review?.reasons?.map((x: any) => x.code).join(',');
        process.stdout.write(`  #${e.sequence} ${e.created_at} ${e.type} ${o.id ?? o.kid ?? ''}${o.status ? ` ${o.status}` : ''}${o.version !== undefined ? ` v${o.version}` : ''}${reasons ? ` [${reasons}]` : ''}\n`);
      }
      this.since = String(read.next_sequence);
      if (!read.has_more) return undefined;
    }
    return undefined;
  }
}

// ---- certify ----

export const certifySpec: CommandSpec = {
  usage: 'satang certify',
  summary: 'Runs certification (10300, 10800, 10900, 11600, out-of-order A/B/C) against your sandbox webhook endpoints and prints a pass/fail table. Exit 0 when it passed.',
  options: { ...common, wait: { type: 'string', value: 'SECONDS', default: '150', integer: true, min: 1, max: 999_999, unit: 'seconds', help: 'how long to wait for the result in all: for the run (on a system clock) and for a busy server (429, 503)' } },
};

/** The shortest wait before asking again after a 429 or 503 (seconds): a server asking for 0 is not asked in a tight loop. */
const busyWaitSecondsMin = 1;

/** A refusal in words: `429 rate_limited: Too many requests…`, whatever the body (a proxy's HTML page has no error object). */
function describe(reply: Reply): string {
  const error = reply.json?.error;
  if (typeof error?.code === 'string') return `${reply.status} ${error.code}: ${error.message ?? ''}`;
  return `${reply.status} ${reply.json === null ? '(the answer was not JSON)' : JSON.stringify(reply.json)}`;
}

/** How long a 429 or 503 asks to wait, in seconds: its body's retry_after_seconds, else its Retry-After header (seconds or a date), else 1. */
function retryAfterSecondsOf(reply: Reply, nowMs: number): number {
  const fromBody = reply.json?.error?.retry_after_seconds;
  if (typeof fromBody === 'number' && Number.isFinite(fromBody) && fromBody >= 0) return Math.max(busyWaitSecondsMin, fromBody);
  const header = reply.headers.get('retry-after')?.trim() ?? '';
  if (/^\d{1,9}$/.test(header)) return Math.max(busyWaitSecondsMin, Number(header));
  const at = Date.parse(header);
  return Number.isNaN(at) ? busyWaitSecondsMin : Math.max(busyWaitSecondsMin, Math.ceil((at - nowMs) / 1000));
}

/**
 * A merchant call asked again while the server answers 429 or 503, each time after the
 * wait it asks for, until `deadlineMs`: the last answer, busy or not. A POST is asked again
 * with the same Idempotency-Key (a 429 never reaches idempotency; a 503 asks for the same
 * key). Bounded: each wait is at least busyWaitSecondsMin or the rest of the time.
 */
async function patiently(ctx: Ctx, method: 'GET' | 'POST', target: string, deadlineMs: number, body?: unknown, idempotencyKey = method === 'POST' ? randomUUID() : undefined): Promise<Reply> {
  let reply = await merchant(ctx, method, target, body, idempotencyKey);
  while (reply.status === 429 || reply.status === 503) {
    const waitMs = Math.min(retryAfterSecondsOf(reply, Date.now()) * 1000, deadlineMs - Date.now());
    if (waitMs <= 0) break;
    process.stderr.write(`${method} ${target} → ${describe(reply)}; asking again in ${Math.ceil(waitMs / 1000)} s\n`);
    await new Promise((r) => setTimeout(r, waitMs));
    reply = await merchant(ctx, method, target, body, idempotencyKey);
  }
  return reply;
}

export async function certifyCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(certifySpec, argv);
  if (typeof args === 'number') return args;
  const ctx = context(args);
  if (typeof ctx === 'string') return usageError(certifySpec, ctx);
  const waitText = text(args, 'wait');
  // The whole command's wait: the start and the polls, and what a busy server asks of them.
  const deadlineMs = Date.now() + Number(waitText) * 1000;
  const started = await patiently(ctx, 'POST', '/v1/test/certification', deadlineMs, {});
  if (started.status !== 202) { process.stderr.write(`POST /v1/test/certification → ${describe(started)}\n`); return 1; }
  let run = started.json;
  let manual = true;
  for (const seconds of [5, 5, 60, 60]) if (manual) manual = await advance(ctx, seconds);
  for (;;) {
    const polled = await patiently(ctx, 'GET', '/v1/test/certification', deadlineMs);
    if (polled.status !== 200) {
      process.stderr.write(`GET /v1/test/certification → ${describe(polled)}\n`
        + `certification ${run.id} started on the server, but its outcome could not be read; ask again later: scripts/satang call GET /v1/test/certification --key …\n`);
      return 1;
    }
    run = polled.json;
    if (run.status !== 'running' || Date.now() > deadlineMs) break;
    await new Promise((r) => setTimeout(r, 2000));
  }
  process.stdout.write(`certification ${run.id}: ${run.status}\n`);
  // A check a line, lined up as the CLI's tables are (no trailing space on a passed check's line).
  const rows = run.checks.map((c: any) => [c.check, c.status, c.failure ? `${c.failure.event_type} → ${c.failure.reason}${c.failure.response_status ? ` (HTTP ${c.failure.response_status})` : ''}` : '']);
  for (const line of rows.length > 0 ? columns(rows, []) : []) process.stdout.write(`  ${line}\n`);
  return run.status === 'passed' ? 0 : 1;
}
