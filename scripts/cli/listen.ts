// `satang listen --forward-to http://localhost:PORT/path --key sk_test_…`, like `stripe
// listen`: opens the signed, long-lived GET /v1/test/webhooks/listen (Server-Sent Events;
// the server creates a temporary `cli` endpoint for the merchant's sandbox and removes it
// when the stream closes) and forwards every delivery to the local URL byte for byte, with
// its original headers and X-PG-Signature, printing one line per delivery with the local
// answer. It works when the server cannot reach this machine: the CLI connects out.
// Runs until Ctrl-C (exit 0); a stream the server ends is exit 1.

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { webhookSettings } from '../../adapters/webhooks/settings.ts';
import { signRequest } from '../../server/hmac.ts';
import { exitFailed, exitOk, notASandboxKey, parseCommand, text, usageError, type CommandSpec, urlOption } from './args.ts';
import { notSatang, printRefused, unreachable, whyUnreachable } from './reach.ts';

const apiVersion = '2026-08-01';
const listenPath = '/v1/test/webhooks/listen';

export const listenSpec: CommandSpec = {
  usage: 'satang listen',
  summary: "Streams the merchant's sandbox webhook deliveries from the server and forwards each, byte for byte with its original headers and signature, to a local URL.",
  words: [],
  options: {
    'forward-to': { type: 'string', value: 'URL', required: true, local: true, help: 'where each delivery is POSTed (e.g. http://localhost:3000/webhooks)' },
    key: { type: 'string', value: 'SK', secret: true, help: 'a sandbox API key (sk_test_…; $SATANG_API_KEY)' },
    url: urlOption,
  },
  notes: [
    'Prints "ready endpoint=whep_…" once the temporary cli endpoint exists, then per delivery: <event type> <event id> → <status> (or the error).',
    'Verify the forwarded deliveries exactly as production ones: GET /v1/webhooks/signing-keys.',
  ],
};

interface Delivery { readonly headers: Record<string, string>; readonly body_base64: string }

/** Splits an SSE byte stream into events ({event, data}); comments and ids are dropped. */
export function sseEvents(onEvent: (event: string, data: string) => void): (chunk: string) => void {
  let buffer = '';
  return (chunk) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      if (data.length > 0) onEvent(event, data.join('\n'));
    }
  };
}

/**
 * `deadlineMs`: how long the local handler has to answer, satang's own deadline for an
 * endpoint (15 s in all; SATANG_WEBHOOK_TIMEOUTS_MS's total in tests). Without one, a handler
 * that never answers (a breakpoint, a dead lock) held every later delivery behind it.
 */
async function forward(target: URL, delivery: Delivery, deadlineMs: number): Promise<string> {
  const body = Buffer.from(delivery.body_base64, 'base64');
  const headers = { ...delivery.headers, 'Content-Length': String(body.length) };
  try {
    const res = await fetch(target, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(deadlineMs) });
    await res.arrayBuffer();
    return String(res.status);
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return `failed: no answer within ${deadlineMs / 1000} s (satang's own deadline for an endpoint)`;
    return `failed: ${whyUnreachable(error)}`; // as every command says it: connection refused (ECONNREFUSED)
  }
}

function open(url: URL, headers: Record<string, string>): Promise<IncomingMessage> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers: { ...headers, Accept: 'text/event-stream' } }, resolve);
    req.on('error', reject);
    req.end();
  });
}

export async function listenCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(listenSpec, argv);
  if (typeof args === 'number') return args;
  const key = text(args, 'key') || (process.env.SATANG_API_KEY ?? '');
  const notSandbox = notASandboxKey(key);
  if (notSandbox !== null) return usageError(listenSpec, notSandbox);
  let target: URL;
  try { target = new URL(text(args, 'forward-to')); } catch { return usageError(listenSpec, `--forward-to is not a URL: ${text(args, 'forward-to')}`); }
  // Forwarded over HTTP or HTTPS only: another scheme failed every delivery the stream had already handed over.
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return usageError(listenSpec, `--forward-to must be an http:// or https:// URL, not ${target.protocol}`);
  const deadlineMs = webhookSettings('development').timeouts.totalMs; // a bad SATANG_WEBHOOK_TIMEOUTS_MS is said before the stream opens
  const headers = signRequest({ secret: key, method: 'GET', path: listenPath, query: '', body: '', version: apiVersion });
  // As every other command says it: `satang listen: cannot reach URL: connection refused …`, or `HTTP 401: {…}`.
  const streamUrl = text(args, 'url') + listenPath;
  const res = await open(new URL(streamUrl), headers).catch((error: Error) => error);
  if (res instanceof Error) throw unreachable(streamUrl, res);
  if (res.statusCode !== 200) {
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    let json: unknown;
    try { json = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { json = undefined; }
    if ((json as { error?: { code?: unknown } } | undefined)?.error?.code === undefined) throw notSatang(streamUrl, res.statusCode ?? 0, res.headers['content-type'] ?? null);
    printRefused(res.statusCode ?? 0, json);
    return exitFailed;
  }
  let stopping = false;
  let endedWhy: string | undefined; // the server's own word on why it ended the stream, said once
  process.once('SIGINT', () => { stopping = true; res.destroy(); });
  process.once('SIGTERM', () => { stopping = true; res.destroy(); });
  // Deliveries are forwarded one at a time, in the order they arrive.
  let queue = Promise.resolve();
  const parse = sseEvents((event, data) => {
    if (event === 'ready') {
      process.stdout.write(`ready endpoint=${(JSON.parse(data) as { endpoint_id: string }).endpoint_id} forwarding to ${target.href}\n`);
      return;
    }
    if (event === 'closed') {
      const { reason } = JSON.parse(data) as { reason: string };
      endedWhy = reason;
      process.stderr.write(`satang listen: the server ended the stream: ${reason === 'api_key_revoked' ? 'the key was revoked' : reason === 'tenant_suspended' ? 'the merchant is suspended' : reason} (${reason})\n`);
      return;
    }
    if (event !== 'delivery') return;
    const delivery = JSON.parse(data) as Delivery;
    queue = queue.then(async () => {
      const answer = await forward(target, delivery, deadlineMs);
      process.stdout.write(`${delivery.headers['X-PG-Event-Type']} ${delivery.headers['X-PG-Event-Id']} → ${answer}\n`);
    });
  });
  res.setEncoding('utf8');
  await new Promise<void>((resolve) => {
    res.on('data', (chunk: string) => parse(chunk));
    res.on('close', resolve);
    res.on('end', resolve);
    res.on('error', () => resolve());
  });
  await queue;
  if (stopping) return exitOk;
  if (endedWhy === undefined) process.stderr.write('satang listen: the server closed the stream\n');
  return exitFailed;
}
