// The load generator of `npm run bench:api`, run as its own process (forked by
// scripts/bench-api.ts) so that it never shares an event loop with the server it measures.
//
// It keeps `connections` raw keep-alive HTTP/1.1 sockets, each with one request in flight
// (a closed loop, as autocannon does), and signs every request as a merchant would: a fresh
// nonce, the wall-clock timestamp, the nine-line canonical string of server/hmac.ts. Raw
// sockets rather than node:http because the client shares the machine's two cores with
// the server: its own parsing is a handful of indexOf calls per answer.
//
// Protocol: the parent sends one LoadPlan over IPC and receives one LoadReport back.

import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { signRequest } from '../../server/hmac.ts';
import { apiVersion } from '../../core/present.ts';

export type LoadMode = 'create' | 'get';

export interface LoadPlan {
  readonly host: string;
  readonly port: number;
  readonly mode: LoadMode;
  /** API keys (bearer credential and HMAC secret), used round-robin. */
  readonly keys: readonly string[];
  /** Deposit ids to read, round-robin ('get' only). */
  readonly depositIds: readonly string[];
  readonly connections: number;
  readonly warmupSeconds: number;
  readonly seconds: number;
  /** Statuses that count as success (e.g. 201 and 202 for a created deposit). */
  readonly okStatuses: readonly number[];
  /** Keep the ids of created deposits (for the read scenario that follows). */
  readonly collectIds: boolean;
}

export interface LoadReport {
  readonly requests_per_second: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly max_ms: number;
  /** Successful answers completed inside the measured window. */
  readonly count: number;
  readonly ok_by_status: Record<string, number>;
  readonly errors_by_status: Record<string, number>;
  /** Requests still unanswered when the window closed (not counted anywhere else). */
  readonly in_flight_at_end: number;
  readonly measured_seconds: number;
  /** The load generator's own CPU use over the window, in % of one core. */
  readonly load_generator_cpu_percent: number;
  readonly ids: string[];
}

/** What the load generator tells its parent: the window opened, then the report. */
export type LoadMessage = { readonly kind: 'window_started' } | { readonly kind: 'report'; readonly report: LoadReport };

// Past this, ids of created deposits are not kept: more than any read scenario cycles through.
const idsKeptMax = 200_000;
// A connection that cannot be opened again is retried after this pause, not in a tight loop.
const reconnectPauseMs = 50;

const headerEndMarker = Buffer.from('\r\n\r\n');
const sender = { bank_code: '014', account_number: '9876543210', account_name_th: 'สมชาย ใจดี' };
const clientInfo = { device_fingerprint: 'bench-fp', ip: '203.0.113.7', user_agent: 'satang-bench-api' };

/** One request on the wire, with its start time. */
interface Sent { readonly startedMs: number }

class Tally {
  readonly latenciesMs: number[] = [];
  readonly ok: Record<string, number> = {};
  readonly errors: Record<string, number> = {};
  readonly ids: string[] = [];
  measuring = false;

  answer(status: number, latencyMs: number, okStatuses: readonly number[]): boolean {
    const ok = okStatuses.includes(status);
    if (this.measuring) {
      const counts = ok ? this.ok : this.errors;
      counts[status] = (counts[status] ?? 0) + 1;
      if (ok) this.latenciesMs.push(latencyMs);
    }
    return ok;
  }

  failure(reason: string): void {
    if (this.measuring) this.errors[reason] = (this.errors[reason] ?? 0) + 1;
  }
}

/** The next request's bytes: signed now, with fresh references for a new deposit. */
function requestMaker(plan: LoadPlan): () => string {
  const runTag = randomUUID().slice(0, 8);
  const hostHeader = `${plan.host}:${plan.port}`;
  let n = 0;
  return () => {
    n += 1;
    const secret = plan.keys[n % plan.keys.length]!;
    if (plan.mode === 'get') {
      const path = `/v1/pay/deposits/${plan.depositIds[n % plan.depositIds.length]}`;
      const headers = signRequest({ secret, method: 'GET', path, version: apiVersion });
      return `GET ${path} HTTP/1.1\r\nHost: ${hostHeader}\r\n${headerLines(headers)}\r\n`;
    }
    // Unique references per deposit: the core caps open deposits per end user.
    const body = JSON.stringify({
      amount_minor: 50_000, currency: 'THB', merchant_reference: `b-${runTag}-${n}`, end_user_ref: `u-${runTag}-${n}`, sender, client: clientInfo,
    });
    const headers = signRequest({ secret, method: 'POST', path: '/v1/pay/deposits', body, idempotencyKey: `bench-${runTag}-${n}`, version: apiVersion });
    return `POST /v1/pay/deposits HTTP/1.1\r\nHost: ${hostHeader}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headerLines(headers)}\r\n${body}`;
  };
}

function headerLines(headers: Record<string, string>): string {
  let lines = '';
  for (const name in headers) lines += `${name}: ${headers[name]}\r\n`;
  return lines;
}

interface Parsed { readonly status: number; readonly body: Buffer; readonly rest: Buffer; readonly close: boolean }

/** One complete response off the front of buf, or undefined when more bytes are needed. */
export function parseResponse(buf: Buffer): Parsed | undefined {
  const headerEnd = buf.indexOf(headerEndMarker);
  if (headerEnd < 0) return undefined;
  const head = buf.toString('latin1', 0, headerEnd);
  const status = Number(head.slice(9, 12));
  const close = /\r\nconnection:[ \t]*close/i.test(head);
  const bodyStart = headerEnd + 4;
  const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
  if (length !== null) {
    const bodyEnd = bodyStart + Number(length[1]);
    if (buf.length < bodyEnd) return undefined;
    return { status, body: buf.subarray(bodyStart, bodyEnd), rest: buf.subarray(bodyEnd), close };
  }
  if (/\r\ntransfer-encoding:[ \t]*chunked/i.test(head)) return parseChunked(buf, bodyStart, status, close);
  // No length and not chunked: only bodiless answers (204, 304) are expected here.
  return { status, body: Buffer.alloc(0), rest: buf.subarray(bodyStart), close };
}

function parseChunked(buf: Buffer, from: number, status: number, close: boolean): Parsed | undefined {
  const chunks: Buffer[] = [];
  let at = from;
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(buf.toString('latin1', at, lineEnd), 16);
    if (size === 0) {
      const end = buf.indexOf(headerEndMarker, lineEnd - 2); // no trailers expected: '0\r\n\r\n'
      if (end < 0) return undefined;
      return { status, body: Buffer.concat(chunks), rest: buf.subarray(end + 4), close };
    }
    const dataEnd = lineEnd + 2 + size;
    if (buf.length < dataEnd + 2) return undefined;
    chunks.push(buf.subarray(lineEnd + 2, dataEnd));
    at = dataEnd + 2;
  }
}

const idPattern = /"id":"([^"]+)"/;

/** Runs one connection's closed loop until stop() is called. */
class Connection {
  private socket: Socket | undefined;
  private buffered: Buffer | undefined;
  private sent: Sent | undefined;
  private stopped = false;

  constructor(private readonly plan: LoadPlan, private readonly next: () => string, private readonly tally: Tally) {}

  start(): void {
    const socket = connect({ host: this.plan.host, port: this.plan.port, noDelay: true });
    this.socket = socket;
    this.buffered = undefined;
    socket.on('connect', () => this.send());
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => { /* reported on close */ });
    socket.on('close', (hadError) => {
      if (this.socket !== socket) return;
      if (this.sent !== undefined || hadError) this.tally.failure('socket_error');
      this.sent = undefined;
      this.socket = undefined;
      if (!this.stopped) setTimeout(() => { if (!this.stopped) this.start(); }, hadError ? reconnectPauseMs : 0);
    });
  }

  get inFlight(): boolean { return this.sent !== undefined; }

  stop(): void {
    this.stopped = true;
    this.socket?.destroy();
  }

  private send(): void {
    if (this.stopped || this.socket === undefined) return;
    this.sent = { startedMs: performance.now() };
    this.socket.write(this.next());
  }

  private receive(chunk: Buffer): void {
    this.buffered = this.buffered === undefined ? chunk : Buffer.concat([this.buffered, chunk]);
    const parsed = parseResponse(this.buffered);
    if (parsed === undefined || this.sent === undefined) return;
    const latencyMs = performance.now() - this.sent.startedMs;
    this.sent = undefined;
    this.buffered = parsed.rest.length > 0 ? parsed.rest : undefined;
    const ok = this.tally.answer(parsed.status, latencyMs, this.plan.okStatuses);
    if (ok && this.plan.collectIds && this.tally.ids.length < idsKeptMax) {
      const id = idPattern.exec(parsed.body.toString('utf8'))?.[1];
      if (id !== undefined) this.tally.ids.push(id);
    }
    if (parsed.close) { this.socket?.destroy(); return; } // 'close' reconnects
    this.send();
  }
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return round2(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!);
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runLoad(plan: LoadPlan, windowStarted: () => void = () => {}): Promise<LoadReport> {
  if (plan.keys.length === 0) throw new Error('no keys to sign with');
  if (plan.mode === 'get' && plan.depositIds.length === 0) throw new Error('no deposit ids to read');
  const tally = new Tally();
  const next = requestMaker(plan);
  const connections = Array.from({ length: plan.connections }, () => new Connection(plan, next, tally));
  for (const c of connections) c.start();
  await sleep(plan.warmupSeconds * 1000);
  // Answers are counted by when they arrive: those landing inside the window count.
  tally.measuring = true;
  const startedMs = performance.now();
  const cpuAtStart = process.cpuUsage();
  windowStarted();
  await sleep(plan.seconds * 1000);
  tally.measuring = false;
  const measuredSeconds = (performance.now() - startedMs) / 1000;
  const cpu = process.cpuUsage(cpuAtStart);
  const inFlight = connections.filter((c) => c.inFlight).length;
  for (const c of connections) c.stop();
  const sorted = tally.latenciesMs.sort((a, b) => a - b);
  return {
    requests_per_second: Math.round(sorted.length / measuredSeconds),
    p50_ms: percentile(sorted, 0.5),
    p99_ms: percentile(sorted, 0.99),
    max_ms: round2(sorted[sorted.length - 1] ?? 0),
    count: sorted.length,
    ok_by_status: tally.ok,
    errors_by_status: tally.errors,
    in_flight_at_end: inFlight,
    measured_seconds: round2(measuredSeconds),
    load_generator_cpu_percent: Math.round((cpu.user + cpu.system) / 1e4 / measuredSeconds),
    ids: tally.ids,
  };
}

const isEntryPoint = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntryPoint) {
  if (process.send === undefined) throw new Error('api-load.ts is forked by scripts/bench-api.ts (it needs the IPC channel)');
  process.once('message', (plan: LoadPlan) => {
    const tell = (message: LoadMessage, then: () => void = () => {}) => process.send!(message, then);
    runLoad(plan, () => tell({ kind: 'window_started' })).then(
      (report) => tell({ kind: 'report', report }, () => process.exit(0)),
      (error: unknown) => { console.error(error); process.exit(1); },
    );
  });
}
