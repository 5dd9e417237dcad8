// The HTTP slip provider client against a real HTTP server playing the provider: retried
// on 5xx, 429 and timeouts with bounded attempts; a verdict is taken only in the protocol's
// exact shape; anything else (a 4xx, a 'found' without a full transfer, a body that is not
// JSON, a provider that never answers) is provider_unavailable. The request carries only
// the image hash and the payload.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpSlipVerifier } from '../../adapters/slips/http-verifier.ts';

type Handler = (body: any, attempt: number, res: ServerResponse) => void;
let handler: Handler = () => {};
let attempts = 0;
let lastBody: any;
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  let text = '';
  req.on('data', (d) => { text += d; });
  req.on('end', () => { attempts++; lastBody = JSON.parse(text); handler(lastBody, attempts, res); });
});
let url = '';

test.before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after(async () => { server.closeAllConnections(); await new Promise<void>((resolve) => server.close(() => resolve())); });
test.before.each(() => { attempts = 0; });

const evidence = { imageSha256: 'a'.repeat(64), payload: 'qr-1' };
// Generous per attempt, so a loaded machine never turns an answer into a timeout; the timeout test sets its own.
const noSleep = { sleep: async () => {}, attemptTimeoutMs: 5_000 };
const transfer = {
  trans_ref: 'TR1', amount_minor: 50_000, occurred_at: '2026-11-21T03:00:00.000Z',
  sender: { bank_code: '014', account_number: 'xxx-x-x4321-x', account_name_th: 'สมชาย ใ***' },
  receiver: { bank_code: '004', account_number: 'xxx-x-x6789-x', account_name: 'สมหญิง ร***' },
};
const json = (res: ServerResponse, status: number, body: unknown) => { res.writeHead(status, { 'Content-Type': 'application/json' }); res.end(JSON.stringify(body)); };

test('5xx and 429 are retried; the verdict after them is taken, and the request is {payload, image_sha256} at /verify', async () => {
  handler = (_body, attempt, res) => (attempt === 1 ? json(res, 503, {}) : attempt === 2 ? json(res, 429, {}) : json(res, 200, { status: 'found', transfer }));
  const verdict = await new HttpSlipVerifier(`${url}/`, noSleep).verify(evidence);
  assert.is(attempts, 3);
  assert.equal(lastBody, { payload: 'qr-1', image_sha256: 'a'.repeat(64) });
  assert.is(verdict.kind, 'found');
  if (verdict.kind !== 'found') return;
  assert.is(verdict.transfer.amountMinor, 50_000n);
  assert.is(verdict.transfer.sender.name, 'สมชาย ใ***');
  assert.is(verdict.transfer.occurredAt, Date.parse('2026-11-21T03:00:00.000Z'));
});

test('a provider that keeps failing is provider_unavailable after attemptsMax', async () => {
  handler = (_body, _attempt, res) => json(res, 500, {});
  assert.equal(await new HttpSlipVerifier(url, { ...noSleep, attemptsMax: 4 }).verify(evidence), { kind: 'provider_unavailable' });
  assert.is(attempts, 4);
});

test('a provider that does not answer in time is retried, then provider_unavailable', async () => {
  handler = () => { /* never answers */ };
  const started = Date.now();
  assert.equal(await new HttpSlipVerifier(url, { ...noSleep, attemptTimeoutMs: 100 }).verify(evidence), { kind: 'provider_unavailable' });
  assert.is(attempts, 3);
  assert.ok(Date.now() - started < 2_000);
});

test('answers that are not a verdict are provider_unavailable at once (no retry): 4xx, a partial transfer, a bad amount, not JSON', async () => {
  const answers: ((res: ServerResponse) => void)[] = [
    (res) => json(res, 400, { error: 'bad' }),
    (res) => json(res, 200, { status: 'found' }),
    (res) => json(res, 200, { status: 'found', transfer: { ...transfer, sender: undefined } }),
    (res) => json(res, 200, { status: 'found', transfer: { ...transfer, amount_minor: 1.5 } }),
    (res) => json(res, 200, { status: 'found', transfer: { ...transfer, amount_minor: '50000' } }),
    (res) => json(res, 200, { status: 'maybe' }),
    (res) => { res.writeHead(200); res.end('<html>'); },
  ];
  for (const answer of answers) {
    attempts = 0;
    handler = (_body, _attempt, res) => answer(res);
    assert.equal(await new HttpSlipVerifier(url, noSleep).verify(evidence), { kind: 'provider_unavailable' });
    assert.is(attempts, 1);
  }
});

test('not_found and unreadable are verdicts of their own', async () => {
  handler = (_body, _attempt, res) => json(res, 200, { status: 'not_found' });
  assert.equal(await new HttpSlipVerifier(url, noSleep).verify({ imageSha256: 'b'.repeat(64) }), { kind: 'not_found' });
  assert.equal(lastBody, { image_sha256: 'b'.repeat(64) }, 'no payload key when there is none');
  handler = (_body, _attempt, res) => json(res, 200, { status: 'unreadable' });
  assert.equal(await new HttpSlipVerifier(url, noSleep).verify(evidence), { kind: 'unreadable' });
});

test.run();
