// `satang call METHOD PATH --key sk_... [--data JSON] [-i] [--output FILE]`: signs a
// merchant request (contract: Merchant HMAC) and shows the answer — the curl of this API.
// POSTs get a fresh Idempotency-Key unless one is given. The body is passed on as the
// bytes received (a slip image stays an image): to --output FILE, or to stdout when that
// is a pipe or a file; only a terminal gets JSON pretty-printed, and never binary bytes.
// -i puts the status line and headers on stdout first, as curl -i does. --output FILE is
// tried before the request is sent (a POST moves money: its answer must have somewhere to
// go) and written 0600 (a payer's slip, an answer with account numbers); a POST that gets no
// answer, or whose answer cannot be written, names its Idempotency-Key for the retry.

import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, fchmodSync, fstatSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { privateFileMode } from '../../adapters/private-files.ts';
import { signRequest } from '../../server/hmac.ts';
import { flag, parseCommand, Refusal, text, usageError, type CommandSpec, urlOption } from './args.ts';
import { answerWaitMs, NoAnswer, unreachable } from './reach.ts';

const apiVersion = '2026-08-01';

export const callSpec: CommandSpec = {
  usage: 'satang call METHOD PATH',
  summary: 'Signs a merchant request with an API key (PG-Signature, PG-Timestamp, PG-Nonce) and sends it. Exit 0 on a 2xx or 3xx answer, 1 otherwise.',
  words: ['METHOD', 'PATH'],
  options: {
    key: { type: 'string', value: 'SK', secret: true, help: 'the secret API key (sk_…; $SATANG_API_KEY)' },
    data: { type: 'string', value: 'JSON', help: 'the JSON request body' },
    'idempotency-key': { type: 'string', value: 'KEY', help: 'the Idempotency-Key of a POST (default: a fresh UUID)' },
    url: urlOption,
    output: { type: 'string', short: 'o', value: 'FILE', help: 'write the body, byte for byte, to FILE' },
    include: { type: 'boolean', short: 'i', help: 'print the status line and the response headers before the body' },
  },
  notes: [
    "PATH may carry a query: 'GET /v1/pay/events?since_sequence=0'. The status goes to stderr (HTTP 200), unless -i.",
    'example: scripts/satang call GET /v1/pay/deposits/dep_…/slip --key $KEY --output slip.jpg',
  ],
};

interface Answer { readonly head: IncomingMessage; readonly body: Buffer }

function send(url: URL, method: string, headers: Record<string, string>, body: string): Promise<Answer> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const waitMs = answerWaitMs();
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (head) => {
      const chunks: Buffer[] = [];
      head.on('data', (c: Buffer) => chunks.push(c));
      head.on('end', () => resolve({ head, body: Buffer.concat(chunks) }));
      head.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(waitMs, () => req.destroy(new NoAnswer(waitMs))); // the socket silent that long: no answer, or one that stopped
    req.end(body === '' ? undefined : body);
  });
}

/** `HTTP/1.1 200 OK` and the headers as the server spelled them. */
function statusAndHeaders(head: IncomingMessage): string {
  const lines = [`HTTP/${head.httpVersion} ${head.statusCode} ${head.statusMessage ?? ''}`.trimEnd()];
  for (let i = 0; i < head.rawHeaders.length; i += 2) lines.push(`${head.rawHeaders[i]}: ${head.rawHeaders[i + 1]}`);
  return lines.join('\r\n') + '\r\n\r\n';
}

function isText(contentType: string): boolean {
  return /^(text\/|application\/([\w.+-]*\+)?json)/i.test(contentType);
}

/** What a terminal is shown: JSON indented, text as is, binary only described. */
function forTerminal(answer: Answer): string {
  const type = answer.head.headers['content-type'] ?? '';
  if (!isText(type)) return `(${answer.body.length} bytes of ${type || 'binary data'}; not written to a terminal: use --output FILE or a pipe)\n`;
  const body = answer.body.toString('utf8');
  try { return JSON.stringify(JSON.parse(body), null, 2) + '\n'; } catch { return body.endsWith('\n') || body === '' ? body : body + '\n'; }
}

/** Why --output FILE cannot be written, found by opening it (a new file is made, then removed); undefined when it can. */
function outputProblem(path: string): string | undefined {
  try {
    if (!existsSync(path)) {
      closeSync(openSync(path, 'wx', privateFileMode));
      rmSync(path);
    } else if (statSync(path).isDirectory()) return 'it is a directory';
    else closeSync(openSync(path, 'r+')); // open for writing, nothing changed
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Writes the body to `path`, mode 0600 (a file that was there is made 0600 too; a device such as /dev/stdout is left as it is). */
function writeOutput(path: string, body: Buffer): void {
  const fd = openSync(path, 'w', privateFileMode);
  try {
    if (fstatSync(fd).isFile()) fchmodSync(fd, privateFileMode);
    writeFileSync(fd, body);
  } finally {
    closeSync(fd);
  }
}

export async function callCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(callSpec, argv);
  if (typeof args === 'number') return args;
  const [method = '', target = ''] = args.words;
  if (!/^[A-Za-z]+$/.test(method)) return usageError(callSpec, `METHOD must be an HTTP method, not '${method}'`);
  if (!target.startsWith('/')) return usageError(callSpec, `PATH must start with /, not '${target}'`);
  const key = text(args, 'key') || (process.env.SATANG_API_KEY ?? '');
  if (!key) return usageError(callSpec, '--key is required (or set SATANG_API_KEY)');
  const body = text(args, 'data');
  if (body !== '') {
    try { JSON.parse(body); } catch (error) { return usageError(callSpec, `--data is not JSON: ${(error as Error).message}`); } // here, not at the server
  }
  const output = text(args, 'output');
  const unwritable = output ? outputProblem(output) : undefined;
  if (unwritable !== undefined) return usageError(callSpec, `--output ${output} cannot be written (${unwritable}): nothing was sent`);
  const upper = method.toUpperCase();
  const url = new URL(text(args, 'url') + target);
  // Signed as it goes on the wire: the URL parser resolves dot segments and percent-encodes
  // (a path typed with %2e%2e or a Thai query would otherwise be signed as typed and refused).
  const { pathname: path, search } = new URL(target, 'http://satang.invalid');
  const query = search.slice(1);
  const idempotencyKey = upper === 'POST' ? text(args, 'idempotency-key') || randomUUID() : undefined;
  const headers = signRequest({ secret: key, method: upper, path, query, body, version: apiVersion, ...(idempotencyKey ? { idempotencyKey } : {}) });
  if (body !== '') headers['Content-Type'] = 'application/json';
  const answer = await send(url, upper, headers, body).catch((error: unknown) => { throw unreachable(url.href, error, idempotencyKey); }); // exit 1, as any answer but 2xx/3xx
  const status = answer.head.statusCode ?? 0;
  if (flag(args, 'include')) process.stdout.write(statusAndHeaders(answer.head));
  else process.stderr.write(`HTTP ${status}${answer.head.headers['idempotent-replay'] ? ' (replay)' : ''}\n`);
  if (output) {
    try {
      writeOutput(output, answer.body);
    } catch (error) {
      const retry = idempotencyKey ? `; its Idempotency-Key was ${idempotencyKey}: send it again with --idempotency-key ${idempotencyKey} and another --output for the same answer` : '';
      throw new Refusal(`the answer (HTTP ${status}) could not be written to ${output} (${(error as Error).message})${retry}`);
    }
  } else if (process.stdout.isTTY) process.stdout.write(forTerminal(answer));
  else process.stdout.write(answer.body);
  return status >= 200 && status < 400 ? 0 : 1;
}
