// `satang admin …`: the onboarding back office from the command line. It mints an
// ops_admin operator token from the local development issuer (or takes
// SATANG_OPERATOR_TOKEN) and prints the JSON answers. Examples:
//   satang admin merchant create --name Shop            (creates a white label if none given)
//   satang admin fund --merchant mch_… --amount 1000000 [--sandbox]
//   satang admin beneficiary create --merchant mch_… --account 1234567890 --name "สมหญิง รักดี" [--bank 004] [--sandbox]
//   satang admin sender create --merchant mch_… --end-user u1 --account 9876543210 --name "สมชาย ใจดี" [--bank 014]
//   satang admin key revoke --key key_…   |   satang admin merchant suspend --merchant mch_…
//   satang admin webhook create --merchant mch_… --endpoint-url http://127.0.0.1:4000/ [--events deposit.settled,withdrawal.filled] [--sandbox]
//   satang admin clock advance --seconds 900            (manual clock only)

import { randomUUID } from 'node:crypto';
import { defaultDataDir, defaultUrl, flag, option, type Args } from './args.ts';
import { mintToken } from './token.ts';

interface Context { url: string; dataDir: string; sub: string }

/** Every action here (onboarding, funding, keys, suspension, webhooks, the clock) is ops_admin's. */
const adminRoles = ['ops_admin'] as const;

async function bo(ctx: Context, path: string, body: unknown, stepUp = false): Promise<{ status: number; json: any }> {
  const token = process.env.SATANG_OPERATOR_TOKEN ?? await mintToken(ctx.dataDir, ctx.sub, adminRoles, false);
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' };
  if (stepUp) headers['X-PG-Step-Up-Token'] = process.env.SATANG_STEP_UP_TOKEN ?? await mintToken(ctx.dataDir, ctx.sub, adminRoles, true);
  const res = await fetch(ctx.url + path, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

function print(r: { status: number; json: unknown }): number {
  console.log(JSON.stringify(r.json, null, 2));
  return r.status < 300 ? 0 : 1;
}

export async function adminCommand(args: Args): Promise<number> {
  const ctx: Context = { url: option(args, 'url', defaultUrl), dataDir: option(args, 'data-dir', defaultDataDir), sub: option(args, 'sub', 'emp_admin') };
  const [noun = '', verb = ''] = args.words;
  const livemode = !flag(args, 'sandbox');
  switch (`${noun} ${verb}`.trim()) {
    case 'white-label create':
      return print(await bo(ctx, '/v1/bo/white-labels', { name: option(args, 'name', 'Default brand') }));
    case 'merchant create': {
      let wl = typeof args.options['white-label'] === 'string' ? args.options['white-label'] : undefined;
      if (!wl) {
        const created = await bo(ctx, '/v1/bo/white-labels', { name: `${option(args, 'name', 'Shop')} brand` });
        if (created.status >= 300) return print(created);
        wl = created.json.id as string;
      }
      return print(await bo(ctx, '/v1/bo/merchants', { white_label_id: wl, name: option(args, 'name', 'Shop') }));
    }
    case 'merchant suspend':
    case 'merchant unsuspend':
      return print(await bo(ctx, `/v1/bo/merchants/${option(args, 'merchant')}/${verb}`, {}, true));
    case 'fund':
      return print(await bo(ctx, `/v1/bo/merchants/${option(args, 'merchant')}/adjustments`, {
        livemode, amount_minor: Number(option(args, 'amount')), direction: 'credit', bucket: 'available', reason: option(args, 'reason', 'funding'),
      }, true));
    case 'beneficiary create':
      return print(await bo(ctx, `/v1/bo/merchants/${option(args, 'merchant')}/beneficiaries`, {
        livemode, bank_code: option(args, 'bank', '004'), account_number: option(args, 'account'), account_name_th: option(args, 'name'),
      }));
    case 'sender create':
      return print(await bo(ctx, `/v1/bo/merchants/${option(args, 'merchant')}/senders`, {
        livemode, end_user_ref: option(args, 'end-user'), bank_code: option(args, 'bank', '014'), account_number: option(args, 'account'), account_name_th: option(args, 'name'),
      }));
    case 'key create': {
      const scopes = option(args, 'scopes', 'wallet:read,withdrawals:write,withdrawals:read').split(',').filter(Boolean);
      return print(await bo(ctx, `/v1/bo/merchants/${option(args, 'merchant')}/keys`, { livemode, scopes }, true));
    }
    case 'key revoke':
      return print(await bo(ctx, `/v1/bo/keys/${option(args, 'key')}/revoke`, {}, true));
    case 'webhook create': {
      const events = typeof args.options.events === 'string' ? { event_types: args.options.events.split(',').filter(Boolean) } : {};
      return print(await bo(ctx, `/v1/bo/merchants/${option(args, 'merchant')}/webhook-endpoints`, { url: option(args, 'endpoint-url'), livemode, ...events }));
    }
    case 'clock advance':
      return print(await bo(ctx, '/v1/bo/clock/advance', { seconds: Number(option(args, 'seconds')) }));
    default:
      console.error('usage: satang admin (white-label create | merchant create|suspend|unsuspend | fund | beneficiary create | sender create | key create|revoke | webhook create | clock advance) [--options]');
      return 2;
  }
}
