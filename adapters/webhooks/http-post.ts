// One webhook POST over node:http / node:https (not fetch: redirects must never be
// followed, and each phase needs its own deadline). Contract, Delivery rules: success is
// 200, 201, 202 or 204 only; a 3xx is a failure and is not followed; 410 is permanent;
// everything else — other statuses, 429, connect, DNS and TLS errors — is retried, with
// Retry-After ignored. Deadlines: connect (DNS + TCP + TLS) 5 s, first byte of the answer
// 10 s after that, 15 s for the whole exchange; each injectable so tests need not wait.
// At most 8 KB of the answer is kept; a longer answer is cut off there (its status is
// already known). Invariant: a post settles exactly once, with its duration measured on
// the monotonic clock (the service Clock may be a frozen manual one).

import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { webhookLimits } from '../../core/limits.ts';
import { redactWebhookUrl } from '../../server/secret-text.ts';
import { DestinationNotAllowed, guardedLookup, urlProblem, type Lookup, type UrlMode } from './url-policy.ts';
import type { Timeouts } from './settings.ts';

export type PostOutcome = 'delivered' | 'retry' | 'permanent';

export interface PostResult {
  readonly outcome: PostOutcome;
  readonly status: number | null;
  readonly excerpt: string | null;
  readonly durationMs: number;
  readonly error: string | null;
}

export interface Poster {
  post(url: string, headers: Record<string, string>, body: Buffer): Promise<PostResult>;
  close(): void;
}

export class HttpPoster implements Poster {
  private readonly httpAgent: HttpAgent;
  private readonly httpsAgent: HttpsAgent;
  private readonly lookup: ReturnType<typeof guardedLookup>;

  /** `hostLookup`: how a production delivery's host resolves before its address is checked (default: node:dns). */
  constructor(private readonly timeouts: Timeouts, private readonly mode: UrlMode, hostLookup?: Lookup) {
    this.lookup = guardedLookup(hostLookup);
    const agentOptions = { keepAlive: true, maxSockets: webhookLimits.inFlightDeliveriesPerEndpointMax, maxFreeSockets: webhookLimits.keepAliveSocketsPerHostMax };
    this.httpAgent = new HttpAgent(agentOptions);
    this.httpsAgent = new HttpsAgent({ ...agentOptions, minVersion: 'TLSv1.2' });
  }

  post(urlText: string, headers: Record<string, string>, body: Buffer): Promise<PostResult> {
    const started = performance.now();
    return new Promise((resolve) => {
      const timers: NodeJS.Timeout[] = [];
      let settled = false;
      let req: ClientRequest | undefined;
      const finish = (r: Omit<PostResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        for (const t of timers) clearTimeout(t);
        resolve({ ...r, durationMs: Math.round(performance.now() - started) });
      };
      const fail = (error: string) => {
        finish({ outcome: 'retry', status: null, excerpt: null, error });
        req?.destroy();
      };
      const problem = urlProblem(urlText, this.mode);
      if (problem) return fail(`destination_not_allowed: ${problem}`);
      const url = new URL(urlText);
      const isHttps = url.protocol === 'https:';
      const options = {
        method: 'POST', headers: { ...headers, 'Content-Length': String(body.length) }, agent: isHttps ? this.httpsAgent : this.httpAgent,
        ...(this.mode === 'production' ? { lookup: this.lookup as never } : {}),
      };
      req = isHttps ? httpsRequest(url, options) : httpRequest(url, options);
      timers.push(setTimeout(() => fail(`timeout_total: no complete answer within ${this.timeouts.totalMs} ms`), this.timeouts.totalMs));
      let firstByte: NodeJS.Timeout | undefined;
      const armFirstByte = () => {
        firstByte = setTimeout(() => fail(`timeout_first_byte: no answer within ${this.timeouts.firstByteMs} ms of connecting`), this.timeouts.firstByteMs);
        timers.push(firstByte);
      };
      req.on('socket', (socket: Socket) => {
        if (!socket.connecting) return armFirstByte(); // a kept-alive socket, already connected
        const connectTimer = setTimeout(() => fail(`timeout_connect: not connected within ${this.timeouts.connectMs} ms`), this.timeouts.connectMs);
        timers.push(connectTimer);
        socket.once(isHttps ? 'secureConnect' : 'connect', () => { clearTimeout(connectTimer); armFirstByte(); });
      });
      req.on('response', (res: IncomingMessage) => { clearTimeout(firstByte); this.read(res, finish, fail); });
      req.on('error', (error) => fail(describeError(error)));
      req.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private read(res: IncomingMessage, finish: (r: Omit<PostResult, 'durationMs'>) => void, fail: (error: string) => void): void {
    const status = res.statusCode ?? 0;
    const chunks: Buffer[] = [];
    let kept = 0;
    const done = () => {
      // A redirect's body is its Location again ("Found. Redirecting to …?token=…"): not kept, as the Location's query is not.
      const excerpt = status >= 300 && status < 400 ? null : excerptOf(Buffer.concat(chunks), webhookLimits.responseExcerptBytesMax);
      finish({ ...classify(status, res.headers.location), excerpt });
    };
    res.on('data', (chunk: Buffer) => {
      if (kept >= webhookLimits.responseExcerptBytesMax) return;
      chunks.push(chunk);
      kept += chunk.length;
      if (kept >= webhookLimits.responseExcerptBytesMax) { done(); res.destroy(); }
    });
    res.on('end', done);
    res.on('error', (error) => fail(describeError(error)));
    res.on('aborted', () => fail('connection_reset: the answer was cut off'));
  }
}

/**
 * The answer as kept: at most `bytesMax` bytes of UTF-8 (contract: "response body retained up
 * to 8 KB"), cut between characters. Cut mid-character, the bytes decoded to a U+FFFD that took
 * the text past the limit; undecodable bytes decode to a U+FFFD each (three bytes for one), so
 * the text is cut again once encoded.
 */
export function excerptOf(bytes: Buffer, bytesMax: number): string {
  const text = bytes.subarray(0, characterStart(bytes, bytesMax)).toString('utf8');
  const encoded = Buffer.from(text, 'utf8');
  return encoded.length <= bytesMax ? text : encoded.subarray(0, characterStart(encoded, bytesMax)).toString('utf8');
}

/** `at`, moved back over at most three UTF-8 continuation bytes to where a character starts (a longer run is not UTF-8: cut anywhere). */
function characterStart(bytes: Buffer, at: number): number {
  if (at >= bytes.length) return bytes.length;
  let start = at;
  while (start > at - 3 && start > 0 && (bytes[start]! & 0xc0) === 0x80) start--;
  return (bytes[start]! & 0xc0) === 0x80 ? at : start;
}

/** Contract: Delivery rules, "Success": these statuses only. */
const successStatuses: ReadonlySet<number> = new Set([200, 201, 202, 204]);

function classify(status: number, location: string | undefined): Omit<PostResult, 'durationMs' | 'excerpt'> {
  if (successStatuses.has(status)) return { outcome: 'delivered', status, error: null };
  if (status === 410) return { outcome: 'permanent', status, error: 'http_410: the endpoint answered Gone; retries stopped and the endpoint is flagged' };
  if (status >= 300 && status < 400) return { outcome: 'retry', status, error: `http_${status}: redirects are not followed${location ? ` (Location: ${redirectTarget(location)})` : ''}` };
  return { outcome: 'retry', status, error: `http_${status}` };
}

/**
 * Where a redirect pointed, as the delivery record keeps it (journal.db, the back office's
 * reads): its scheme and host, without its path, query, fragment, path parameters and any
 * user or password — an http→https redirect carries the receiver's `?token=` along, and
 * its secret path (hooks.slack.com/services/…).
 */
function redirectTarget(location: string): string {
  const cut = location.search(/[?#;]/); // a path's ;parameters too (…/hook;token=…)
  return redactWebhookUrl(cut === -1 ? location : location.slice(0, cut)).slice(0, 200);
}

const tlsCode = /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|ERR_OSSL|EPROTO$)/;

function describeError(error: Error & { code?: string }): string {
  const code = error.code ?? '';
  if (error instanceof DestinationNotAllowed) return `destination_not_allowed: ${error.message}`;
  if (/^(ENOTFOUND|EAI_)/.test(code)) return `dns_error: ${code}`;
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return `connection_reset: ${code}`;
  if (tlsCode.test(code)) return `tls_error: ${code}`;
  return `network_error: ${code || error.message}`;
}
