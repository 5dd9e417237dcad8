// `satang call METHOD PATH --key sk_... [--data JSON] [--idempotency-key K] [--url URL]`:
// signs a merchant request (contract: Merchant HMAC) and prints the status and the JSON
// answer — the curl of this API. POSTs get a fresh Idempotency-Key unless one is given.

import { randomUUID } from 'node:crypto';
import { signRequest } from '../../server/hmac.ts';
import { defaultUrl, option, type Args } from './args.ts';

export async function callCommand(args: Args): Promise<number> {
  const [method = '', target = ''] = args.words;
  if (!method || !target.startsWith('/')) throw new Error('usage: satang call METHOD PATH --key sk_... [--data JSON]');
  const upper = method.toUpperCase();
  const key = option(args, 'key', process.env.SATANG_API_KEY);
  const body = typeof args.options.data === 'string' ? args.options.data : '';
  if (body !== '') JSON.parse(body); // fail here, not at the server, on a typo
  const [path = '', query = ''] = target.split('?');
  const idempotencyKey = upper === 'POST' ? option(args, 'idempotency-key', randomUUID()) : undefined;
  const headers = signRequest({ secret: key, method: upper, path, query, body, version: '2026-08-01', ...(idempotencyKey ? { idempotencyKey } : {}) });
  if (body !== '') headers['Content-Type'] = 'application/json';
  const res = await fetch(option(args, 'url', defaultUrl) + target, { method: upper, headers, ...(body !== '' ? { body } : {}) });
  const text = await res.text();
  console.error(`HTTP ${res.status}${res.headers.get('idempotent-replay') ? ' (replay)' : ''}`);
  try { console.log(JSON.stringify(JSON.parse(text), null, 2)); } catch { console.log(text); }
  return res.ok ? 0 : 1;
}
