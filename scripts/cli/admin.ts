// `satang admin …`: the onboarding back office from the command line. It mints an
// ops_admin operator token from the local development issuer (or takes SATANG_OPERATOR_TOKEN, and
// SATANG_STEP_UP_TOKEN for the calls that need a step-up) and prints the JSON answers; a
// refused answer goes to stderr (`HTTP 422: {…}`, as report and call say it, its message naming
// the options where the API's names the fields they fill: each option's `field`), never stdout,
// so `$(satang admin …)` in a script is empty when nothing was made. Each POST takes
// --idempotency-key (a fresh one by default), named in the error when no answer came, so a
// retry after a timeout does not fund twice. Every subcommand declares its options below;
// `satang admin <subcommand> --help` prints them, and the README's command-line section lists them.

import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { adjustmentReasons } from '../../core/directory.ts';
import { bahtOf } from '../../core/finance/money-text.ts';
import { limits, writeSideLimits } from '../../core/limits.ts';
import { noWithdrawalMaximum, scheduleDepositMinorMax, scheduleWithdrawalMinorMax } from '../../core/directory/fee-schedule.ts';
import { defaultDataDir, dispatch, flag, text, type Args, type CommandSpec, type OptionSpec, type Subcommand, urlOption, idempotencyKeyOption } from './args.ts';
import { table } from './table.ts';
import { fetchOrRefuse, printRefused, satangJson } from './reach.ts';
import { mintToken, stepUpToken } from './token.ts';

interface Context { url: string; dataDir: string; sub: string; idempotencyKey: string }

interface Answer { status: number; json: any }

/** Secret files (a merchant's keys) are readable by their owner only. */
const secretFileMode = 0o600;
const secretDirMode = 0o700;
/** Every action here (onboarding, funding, keys, suspension, webhooks, the clock) is ops_admin's. */
const adminRoles = ['ops_admin'] as const;

/**
 * A POST with the command's idempotency key (`keySuffix` after it for a second POST of the
 * same command; a step-up token too when asked), or a GET when `body` is undefined.
 */
async function bo(ctx: Context, path: string, body: unknown, stepUp = false, keySuffix = ''): Promise<Answer> {
  const token = process.env.SATANG_OPERATOR_TOKEN ?? await mintToken(ctx.dataDir, ctx.sub, adminRoles, false);
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  const url = ctx.url + path;
  if (body === undefined) {
    const res = await fetchOrRefuse(url, { headers });
    return { status: res.status, json: await satangJson(url, res) };
  }
  Object.assign(headers, { 'Idempotency-Key': ctx.idempotencyKey + keySuffix, 'Content-Type': 'application/json' });
  if (stepUp) headers['X-PG-Step-Up-Token'] = await stepUpToken(ctx.dataDir, ctx.sub, adminRoles);
  const res = await fetchOrRefuse(url, { method: 'POST', headers, body: JSON.stringify(body) }, ctx.idempotencyKey);
  return { status: res.status, json: await satangJson(url, res, ctx.idempotencyKey) };
}

/** The answer's JSON on stdout, or a refusal on stderr (exit 1), its message naming the command's options for the API fields they fill. */
function print(args: Args, r: Answer): number {
  if (r.status >= 300) {
    printRefused(r.status, r.json, args.spec);
    return 1;
  }
  console.log(JSON.stringify(r.json, null, 2));
  return 0;
}

// ---- options ----

const common: Record<string, OptionSpec> = {
  url: urlOption,
  'data-dir': { type: 'string', value: 'DIR', default: defaultDataDir, help: "the server's data directory, where the development issuer's key is ($SATANG_DATA_DIR)" },
  sub: { type: 'string', value: 'ID', default: 'emp_admin', help: 'the operator the minted token names' },
  // Admin commands always print the server's JSON; --json is taken too, as the other commands take it (DESIGN.md's example uses it).
  json: { type: 'boolean', help: "print the server's JSON answer (what admin commands print anyway)" },
};
const merchant: OptionSpec = { type: 'string', value: 'MCH_ID', required: true, help: 'the merchant (mch_…)' };
/** A fee schedule's amount limits: option, body field, what it is, its bound. */
const feeLimitOptions = [
  ['deposit-min', 'deposit_min_minor', 'the smallest deposit', scheduleDepositMinorMax], ['deposit-max', 'deposit_max_minor', 'the largest deposit', scheduleDepositMinorMax],
  ['deposit-step', 'deposit_step_minor', 'what every deposit amount is a multiple of', scheduleDepositMinorMax],
  ['withdrawal-min', 'withdrawal_min_minor', 'the smallest withdrawal', scheduleWithdrawalMinorMax], ['withdrawal-max', 'withdrawal_max_minor', `the largest withdrawal, at most ${scheduleWithdrawalMinorMax} (${noWithdrawalMaximum}: none)`, noWithdrawalMaximum],
] as const;
/** A fee schedule's VAT rates: option, body field, the fee it is charged on. */
const feeVatOptions = [['deposit-vat-bps', 'deposit_vat_bps', "a deposit's processing fee"], ['withdrawal-vat-bps', 'withdrawal_vat_bps', "a withdrawal's fixed fee"]] as const;
const sandbox: OptionSpec = { type: 'boolean', help: 'the sandbox (test) mode instead of live' };
/**
 * The operator's words on an action, the API's free-text `reason` (never a code: codes are
 * --reason-code, as in `satang bo`). --reason, its first spelling here, is still taken.
 */
const operatorNote = (more: Pick<OptionSpec, 'help' | 'default' | 'required'>): OptionSpec => ({ type: 'string', value: 'TEXT', field: 'reason', aliases: ['reason'], ...more });

/** A subcommand that POSTs: it takes --idempotency-key. */
function spec(usage: string, summary: string, options: Record<string, OptionSpec>, notes?: string[]): CommandSpec {
  return readSpec(usage, summary, { ...options, 'idempotency-key': idempotencyKeyOption }, notes);
}

/**
 * A subcommand that only reads (GET). Its own options come first in its help, then the common
 * ones, and its own win where both name one (key list's --json prints JSON instead of its table).
 */
function readSpec(usage: string, summary: string, options: Record<string, OptionSpec>, notes?: string[]): CommandSpec {
  return { usage: `satang admin ${usage}`, summary, options: { ...options, ...common, ...options }, ...(notes ? { notes } : {}) };
}

function context(args: Args): Context {
  return { url: text(args, 'url'), dataDir: text(args, 'data-dir'), sub: text(args, 'sub'), idempotencyKey: text(args, 'idempotency-key') || randomUUID() };
}

const livemode = (args: Args) => !flag(args, 'sandbox');
const merchantPath = (args: Args, rest: string) => `/v1/bo/merchants/${encodeURIComponent(text(args, 'merchant'))}/${rest}`;

/**
 * What the saved merchant file holds, as the answer says: in production a new merchant has
 * its sandbox key only (`keys.live` is null until a certification run passed).
 */
function merchantFileNote(keys: { live: unknown; sandbox: unknown }): string {
  if (keys.live === null) return 'the file holds the sandbox secret key (mode 0600); it is shown only once. No live key yet: one is issued (admin key create) once a certification run passed (satang certify)';
  return 'the file holds the live and sandbox secret keys (mode 0600); they are shown only once';
}

/** Writes the merchant (with its keys) to a file only its owner can read; prints where. */
function saveMerchant(ctx: Context, path: string, answer: Answer): number {
  const keyIds = [answer.json.keys?.live?.key_id, answer.json.keys?.sandbox?.key_id].filter(Boolean).join(', ');
  if (!saveSecret(ctx, path, answer, `merchant ${answer.json.id} was made with keys ${keyIds}`)) return 1;
  console.log(JSON.stringify({ id: answer.json.id, white_label_id: answer.json.white_label_id, saved_to: path, note: merchantFileNote(answer.json.keys) }, null, 2));
  return 0;
}

/**
 * Whether --out cannot take the answer, said before anything is asked of the server (its
 * keys are shown once, and would be shown to no one): the file exists (it may hold the only
 * copy of keys shown once), or it cannot be made there (a file as its directory, no write
 * access, /sys). Its directory is made here (0700); the file is tried, then removed.
 */
function outRefused(args: Args): boolean {
  const out = text(args, 'out');
  if (!out) return false;
  if (existsSync(out)) {
    console.error(`${out} exists already and may hold the only copy of keys shown once: name another file (or move it away first).`);
    return true;
  }
  try {
    mkdirSync(dirname(out), { recursive: true, mode: secretDirMode });
    closeSync(openSync(out, 'wx', secretFileMode));
    rmSync(out);
  } catch (error) {
    console.error(`cannot write ${out} (${(error as Error).message}): nothing was made; name a file in a directory you can write (--out)`);
    return true;
  }
  return false;
}

/**
 * Writes an answer that holds a secret to `path`, mode 0600, never to the terminal. Should
 * that fail after outRefused found it possible (the disk filled meanwhile), the secret is not
 * printed either (stdout may be a CI log): the server replays the same answer to the same
 * Idempotency-Key, so the message gives the command again with it and another file, and what
 * to revoke if that is not done. False when it failed (said on stderr).
 */
function saveSecret(ctx: Context, path: string, answer: Answer, made: string): boolean {
  try {
    // Never over another file: it may hold the only copy of keys shown once (flag 'wx').
    writeFileSync(path, JSON.stringify(answer.json, null, 2) + '\n', { mode: secretFileMode, flag: 'wx' });
    return true;
  } catch (error) {
    console.error(`${made}, but ${path} could not be written (${(error as Error).message}): run the same command again with --out ANOTHER_FILE --idempotency-key ${ctx.idempotencyKey} (within 7 days) for the same answer, or revoke the keys (satang admin key revoke --key KEY_ID)`);
    return false;
  }
}

/** The figures of a fee schedule, as POST /v1/bo/white-labels/{id}/fees takes them: the two fees always, the VAT rates and amount limits when they change. */
const feeOptions: Record<string, OptionSpec> = {
  'white-label': { type: 'string', value: 'WL_ID', required: true, help: 'the white label' },
  'deposit-bps': { type: 'string', value: 'BPS', required: true, field: 'deposit_processing_fee_bps', integer: true, min: 0, max: limits.depositProcessingFeeBpsMax, unit: 'basis points', help: 'the processing fee on a deposit (150 = 1.5 %; VAT on it is added, --deposit-vat-bps)' },
  'withdrawal-fee': { type: 'string', value: 'SATANG', required: true, field: 'withdrawal_fixed_fee_minor', integer: true, min: 0, max: limits.withdrawalFixedFeeMinorMax, unit: 'satang', help: 'the fixed fee on a withdrawal (VAT on it is added, --withdrawal-vat-bps)' },
  ...Object.fromEntries(feeVatOptions.map(([option, field, on]) => [option, { type: 'string', value: 'BPS', field, integer: true, min: 0, max: limits.vatBpsMax, unit: 'basis points', help: `the VAT rate on ${on} (700 = 7 %, the default; default: as it is)` } satisfies OptionSpec])),
  ...Object.fromEntries(feeLimitOptions.map(([option, field, help, max]) => [option, { type: 'string', value: 'SATANG', field, integer: true, min: 1, max, unit: 'satang', help: `${help} (default: as it is)` } satisfies OptionSpec])),
};

function feeBody(args: Args): Record<string, number> {
  const body: Record<string, number> = { deposit_processing_fee_bps: Number(text(args, 'deposit-bps')), withdrawal_fixed_fee_minor: Number(text(args, 'withdrawal-fee')) };
  for (const [option, field] of [...feeLimitOptions, ...feeVatOptions]) if (text(args, option)) body[field] = Number(text(args, option));
  return body;
}

/** The white label's schedule in force and the one waiting for approval (GET /v1/bo/white-labels/{id}); an unknown one is the server's 404, said as every refusal. */
async function showFees(args: Args): Promise<number> {
  const answer = await bo(context(args), `/v1/bo/white-labels/${encodeURIComponent(text(args, 'white-label'))}`, undefined);
  if (answer.status >= 300) return print(args, answer);
  console.log(JSON.stringify({ fee_schedule: answer.json.fee_schedule, fee_schedule_proposal: answer.json.fee_schedule_proposal }, null, 2));
  return 0;
}

// ---- subcommands ----

const subcommands: readonly Subcommand[] = [
  {
    words: ['white-label', 'create'],
    spec: spec('white-label create', 'Creates a white label (a brand; deposits match withdrawals within one).', {
      name: { type: 'string', value: 'NAME', default: 'Default brand', help: "the white label's name" },
    }),
    run: async (args) => print(args, await bo(context(args), '/v1/bo/white-labels', { name: text(args, 'name') })),
  },
  {
    words: ['gateway-route', 'propose'],
    spec: spec('gateway-route propose', "Proposes the account a white label's fallback deposits pay (a second operator approves it; a step-up token is minted for you).", {
      'white-label': { type: 'string', value: 'WL_ID', required: true, help: 'the white label' },
      bank: { type: 'string', value: 'CODE', required: true, field: 'bank_code', help: 'the account\'s 3-digit bank code' },
      account: { type: 'string', value: 'NUMBER', required: true, field: 'account_number', help: 'the account number' },
      name: { type: 'string', value: 'NAME', required: true, field: 'account_name', help: "the account's name" },
      'ttl-seconds': { type: 'string', value: 'SECONDS', default: '86400', field: 'ttl_seconds', integer: true, min: limits.gatewayRouteTtlSecondsMin, max: limits.gatewayRouteTtlSecondsMax, unit: 'seconds', help: 'how long the route serves once approved (a minute to a year)' },
    }, ['example: scripts/satang admin gateway-route propose --white-label wl_… --bank 004 --account 5550001111 --name "Gateway Co" --sub emp_maker']),
    run: async (args) => print(args, await bo(context(args), `/v1/bo/white-labels/${encodeURIComponent(text(args, 'white-label'))}/gateway-route`, {
      bank_code: text(args, 'bank'), account_number: text(args, 'account'), account_name: text(args, 'name'), ttl_seconds: Number(text(args, 'ttl-seconds')),
    }, true)),
  },
  {
    words: ['gateway-route', 'approve'],
    spec: spec('gateway-route approve', 'Approves the proposed gateway route, naming its account as you read it (not its proposer; a step-up token is minted for you).', {
      'white-label': { type: 'string', value: 'WL_ID', required: true, help: 'the white label' },
      bank: { type: 'string', value: 'CODE', required: true, field: 'bank_code', help: 'the bank code of the proposed account' },
      account: { type: 'string', value: 'NUMBER', required: true, field: 'account_number', help: 'the proposed account number' },
    }, ['example: scripts/satang admin gateway-route approve --white-label wl_… --bank 004 --account 5550001111 --sub emp_checker']),
    run: async (args) => print(args, await bo(context(args), `/v1/bo/white-labels/${encodeURIComponent(text(args, 'white-label'))}/gateway-route/approve`, {
      bank_code: text(args, 'bank'), account_number: text(args, 'account'),
    }, true)),
  },
  {
    words: ['fees', 'show'],
    spec: readSpec('fees show', "Prints a white label's fee schedule and amount limits in force, and a proposal waiting for approval (null when none).", {
      'white-label': { type: 'string', value: 'WL_ID', required: true, help: 'the white label' },
    }, ['example: scripts/satang admin fees show --white-label wl_…']),
    run: showFees,
  },
  {
    words: ['fees', 'propose'],
    spec: spec('fees propose', "Proposes a white label's fee schedule (a second operator approves it; a step-up token is minted for you). Deposits settled and withdrawals created after the approval are charged it; fees already booked or pinned stay.", feeOptions,
      ['example: scripts/satang admin fees propose --white-label wl_… --deposit-bps 180 --withdrawal-fee 1500 --sub emp_maker']),
    run: async (args) => print(args, await bo(context(args), `/v1/bo/white-labels/${encodeURIComponent(text(args, 'white-label'))}/fees`, feeBody(args), true)),
  },
  {
    words: ['fees', 'approve'],
    spec: spec('fees approve', 'Approves the proposed fee schedule, naming every figure it changes as you read it (not its proposer; a step-up token is minted for you).', feeOptions,
      ['example: scripts/satang admin fees approve --white-label wl_… --deposit-bps 180 --withdrawal-fee 1500 --sub emp_checker']),
    run: async (args) => print(args, await bo(context(args), `/v1/bo/white-labels/${encodeURIComponent(text(args, 'white-label'))}/fees/approve`, feeBody(args), true)),
  },
  {
    words: ['merchant', 'create'],
    spec: spec('merchant create', 'Creates a merchant with its API keys (shown once: live and sandbox; in production the sandbox key only, until certification), in a new white label unless one is given.', {
      name: { type: 'string', value: 'NAME', default: 'Shop', help: "the merchant's name" },
      'white-label': { type: 'string', value: 'WL_ID', field: 'white_label_id', help: 'put the merchant in this white label (default: create one named "NAME brand")' },
      out: { type: 'string', value: 'FILE', help: 'write the answer (with the secret keys) to FILE, mode 0600, and print only the ids' },
    }, ['example: scripts/satang admin merchant create --name Shop --out .satang/shop.json']),
    run: async (args) => {
      if (outRefused(args)) return 1;
      const ctx = context(args);
      let wl = text(args, 'white-label');
      if (!wl) {
        // Its own key, made of the command's: a retry with --idempotency-key replays both.
        const created = await bo(ctx, '/v1/bo/white-labels', { name: `${text(args, 'name')} brand` }, false, ':white-label');
        if (created.status >= 300) return print(args, created);
        wl = created.json.id as string;
      }
      const answer = await bo(ctx, '/v1/bo/merchants', { white_label_id: wl, name: text(args, 'name') });
      return answer.status < 300 && text(args, 'out') ? saveMerchant(ctx, text(args, 'out'), answer) : print(args, answer);
    },
  },
  ...(['suspend', 'unsuspend'] as const).map((verb): Subcommand => ({
    words: ['merchant', verb],
    spec: spec(`merchant ${verb}`, `${verb === 'suspend' ? 'Suspends' : 'Lifts the suspension of'} a merchant (a step-up token is minted for you).`, {
      merchant, note: operatorNote({ help: 'why (kept on the journal with the operator)' }),
    }),
    run: async (args) => print(args, await bo(context(args), merchantPath(args, verb), text(args, 'note') ? { reason: text(args, 'note') } : {}, true)),
  })),
  {
    words: ['fund'],
    spec: spec('fund', "Credits a merchant's available balance by an operator adjustment (a step-up token is minted for you).", {
      merchant,
      amount: { type: 'string', value: 'SATANG', required: true, field: 'amount_minor', integer: true, min: 1, unit: 'satang', help: 'the amount in satang (100 = THB 1.00)' },
      'reason-code': { type: 'string', value: 'CODE', field: 'reason_code', default: 'FUNDING', help: `what the merchant sees as reason_code (${Object.keys(adjustmentReasons).join(', ')})` },
      note: operatorNote({ default: 'funding', help: "the operator's note, kept on the journal and never shown to the merchant" }),
      sandbox,
    }),
    run: async (args) => {
      const r = await bo(context(args), merchantPath(args, 'adjustments'), {
        livemode: livemode(args), amount_minor: Number(text(args, 'amount')), direction: 'credit', bucket: 'available', reason_code: text(args, 'reason-code'), reason: text(args, 'note'),
      }, true);
      // A large live credit (or one that brings what this operator credited alone in 24 hours
      // to that much) is proposed, not posted: say so and why, and what the second operator runs.
      if (r.status === 202) {
        const recent = r.json.proposer_recent_credits_minor;
        const why = typeof recent === 'number'
          ? `with the ${bahtOf(BigInt(recent))} baht you credited alone in the last 24 hours this reaches 100,000 baht, so it`
          : 'a live credit of 100,000 baht or more';
        process.stderr.write(`proposed, not posted: ${why} is posted when a second ops_admin approves it (within 24 h):\n`
          + `  scripts/satang admin adjustment approve --proposal ${r.json.id} --merchant ${r.json.merchant_id} --amount ${r.json.amount_minor} --sub OTHER_OPERATOR\n`);
      }
      return print(args, r);
    },
  },
  {
    words: ['debit'],
    spec: spec('debit', "Debits a merchant's available balance by an operator adjustment: a fee correction, a loss recovered (a step-up token is minted for you). More than available is 402 insufficient_balance; the other buckets belong to orders.", {
      merchant,
      amount: { type: 'string', value: 'SATANG', required: true, field: 'amount_minor', integer: true, min: 1, unit: 'satang', help: 'the amount in satang (100 = THB 1.00)' },
      'reason-code': { type: 'string', value: 'CODE', field: 'reason_code', default: 'MANUAL_ADJUSTMENT', help: `what the merchant sees as reason_code (${Object.keys(adjustmentReasons).join(', ')})` },
      note: operatorNote({ required: true, help: "why, in the operator's words: kept on the journal and never shown to the merchant" }),
      sandbox,
    }),
    run: async (args) => print(args, await bo(context(args), merchantPath(args, 'adjustments'), {
      livemode: livemode(args), amount_minor: Number(text(args, 'amount')), direction: 'debit', bucket: 'available', reason_code: text(args, 'reason-code'), reason: text(args, 'note'),
    }, true)),
  },
  {
    words: ['adjustment', 'approve'],
    spec: spec('adjustment approve', "Approves a live credit another ops_admin proposed (admin fund of 100,000 baht or more, or one that brought what they credited alone in 24 hours to that), naming its amount: the adjustment is posted (a step-up token is minted for you).", {
      proposal: { type: 'string', value: 'ADJP_ID', required: true, help: 'the proposal (admin fund said it; GET /v1/bo/merchants/{id}/adjustment-proposals lists them)' },
      merchant,
      amount: { type: 'string', value: 'SATANG', required: true, field: 'amount_minor', integer: true, min: 1, unit: 'satang', help: 'the amount as you read it in the proposal' },
    }),
    run: async (args) => print(args, await bo(context(args), `${merchantPath(args, 'adjustments')}/${encodeURIComponent(text(args, 'proposal'))}/approve`, { amount_minor: Number(text(args, 'amount')) }, true)),
  },
  {
    words: ['beneficiary', 'create'],
    spec: spec('beneficiary create', "Registers a beneficiary: the bank account a merchant's withdrawals pay out to.", {
      merchant,
      account: { type: 'string', value: 'NUMBER', required: true, field: 'account_number', help: 'the account number' },
      name: { type: 'string', value: 'NAME', required: true, field: 'account_name_th', help: "the account holder's name in Thai" },
      bank: { type: 'string', value: 'CODE', field: 'bank_code', default: '004', help: 'the bank code' },
      sandbox,
    }),
    run: async (args) => print(args, await bo(context(args), merchantPath(args, 'beneficiaries'), {
      livemode: livemode(args), bank_code: text(args, 'bank'), account_number: text(args, 'account'), account_name_th: text(args, 'name'),
    })),
  },
  {
    words: ['sender', 'create'],
    spec: spec('sender create', "Registers an end user's sending bank account (a deposit may then name it by sender_id).", {
      merchant,
      'end-user': { type: 'string', value: 'REF', required: true, field: 'end_user_ref', help: "the merchant's reference of the end user" },
      account: { type: 'string', value: 'NUMBER', required: true, field: 'account_number', help: 'the account number' },
      name: { type: 'string', value: 'NAME', required: true, field: 'account_name_th', help: "the account holder's name in Thai" },
      bank: { type: 'string', value: 'CODE', field: 'bank_code', default: '014', help: 'the bank code' },
      sandbox,
    }),
    run: async (args) => print(args, await bo(context(args), merchantPath(args, 'senders'), {
      livemode: livemode(args), end_user_ref: text(args, 'end-user'), bank_code: text(args, 'bank'), account_number: text(args, 'account'), account_name_th: text(args, 'name'),
    })),
  },
  {
    words: ['key', 'create'],
    spec: spec('key create', 'Creates another API key for a merchant (its secret is shown once; a step-up token is minted for you).', {
      merchant,
      scopes: { type: 'string', value: 'LIST', default: 'wallet:read,withdrawals:write,withdrawals:read', help: 'comma-separated scopes' },
      sandbox,
      out: { type: 'string', value: 'FILE', help: 'write the answer (with the secret) to FILE, mode 0600, and print only the key id: the secret stays out of the terminal\'s scrollback' },
    }),
    run: async (args) => {
      if (outRefused(args)) return 1;
      const ctx = context(args);
      const answer = await bo(ctx, merchantPath(args, 'keys'), { livemode: livemode(args), scopes: text(args, 'scopes').split(',').filter(Boolean) }, true);
      if (answer.status >= 300 || !text(args, 'out')) return print(args, answer);
      if (!saveSecret(ctx, text(args, 'out'), answer, `key ${answer.json.key_id} was made`)) return 1;
      console.log(JSON.stringify({ key_id: answer.json.key_id, livemode: answer.json.livemode, saved_to: text(args, 'out'), note: 'the file holds the secret key (mode 0600); it is shown only once' }, null, 2));
      return 0;
    },
  },
  {
    words: ['key', 'list'],
    spec: readSpec('key list', "A merchant's API keys, newest first, both modes unless --live or --sandbox: id, mode, scopes, a hint of the secret (never the secret), created, revoked.", {
      merchant, live: { type: 'boolean', help: 'live keys only' }, sandbox: { type: 'boolean', help: 'sandbox keys only' }, json: { type: 'boolean', help: "print the server's JSON instead of a table" },
    }),
    run: async (args) => {
      const mode = flag(args, 'live') ? '?livemode=true' : flag(args, 'sandbox') ? '?livemode=false' : '';
      const r = await bo(context(args), `${merchantPath(args, 'keys')}${mode}`, undefined);
      if (flag(args, 'json') || r.status >= 300) return print(args, r);
      console.log(r.json.data.length === 0 ? 'no key'
        : table(['KEY', 'MODE', 'SCOPES', 'SECRET', 'CREATED', 'REVOKED'], r.json.data.map((k: any) => [k.key_id, k.livemode ? 'live' : 'sandbox', k.scopes.join(','), k.api_key_hint, k.created_at, k.revoked_at ?? '-'])));
      return 0;
    },
  },
  {
    words: ['key', 'revoke'],
    spec: spec('key revoke', 'Revokes an API key (a step-up token is minted for you).', {
      key: { type: 'string', value: 'KEY_ID', required: true, help: 'the key id (key_…)' },
    }),
    run: async (args) => print(args, await bo(context(args), `/v1/bo/keys/${encodeURIComponent(text(args, 'key'))}/revoke`, {}, true)),
  },
  {
    words: ['webhook', 'create'],
    spec: spec('webhook create', "Registers a webhook endpoint for a merchant; the answer holds its id (whep_…), URL and event types. Deliveries are signed with the service's Ed25519 keys: their kid and public key are at GET /v1/webhooks/signing-keys, not in this answer.", {
      merchant,
      'endpoint-url': { type: 'string', value: 'URL', required: true, field: 'url', help: 'where the events are POSTed' },
      events: { type: 'string', value: 'LIST', field: 'event_types', help: 'comma-separated event types, e.g. deposit.settled,withdrawal.filled (default: all)' },
      sandbox,
    }),
    run: async (args) => {
      const events = text(args, 'events') ? { event_types: text(args, 'events').split(',').filter(Boolean) } : {};
      return print(args, await bo(context(args), merchantPath(args, 'webhook-endpoints'), { url: text(args, 'endpoint-url'), livemode: livemode(args), ...events }));
    },
  },
  {
    words: ['webhook', 'update'],
    spec: spec('webhook update', "Points an endpoint at another URL or changes its subscription, keeping its id and deliveries' history (a new URL starts its health and 410 flag afresh).", {
      endpoint: { type: 'string', value: 'WHEP_ID', required: true, help: 'the endpoint (whep_…)' },
      'endpoint-url': { type: 'string', value: 'URL', field: 'url', help: 'the new URL' },
      events: { type: 'string', value: 'LIST', field: 'event_types', help: "comma-separated event types, or 'all' (the five mandatory ones are always sent)" },
    }),
    run: async (args) => {
      const url = text(args, 'endpoint-url');
      const events = text(args, 'events');
      if (!url && !events) {
        console.error('satang admin webhook update: give --endpoint-url, --events or both');
        return 2;
      }
      const body = { ...(url ? { url } : {}), ...(events ? { event_types: events === 'all' ? null : events.split(',').filter(Boolean) } : {}) };
      return print(args, await bo(context(args), `/v1/bo/webhooks/${encodeURIComponent(text(args, 'endpoint'))}`, body));
    },
  },
  {
    words: ['clock', 'advance'],
    spec: spec('clock advance', 'Moves the manual clock forward and fires the timers that fall due (servers started with SATANG_CLOCK=manual only).', {
      seconds: { type: 'string', value: 'N', required: true, integer: true, min: writeSideLimits.manualClockAdvanceSecondsMin, max: writeSideLimits.manualClockAdvanceSecondsMax, unit: 'seconds', help: 'how far to move (at most a year)' },
    }),
    run: async (args) => print(args, await bo(context(args), '/v1/bo/clock/advance', { seconds: Number(text(args, 'seconds')) })),
  },
  {
    words: ['clock', 'show'],
    spec: readSpec('clock show', "Prints the service's business time ({now, clock: 'manual' | 'system'}): what a transfer's occurred_at must be near on a manual clock.", {}),
    run: async (args) => print(args, await bo(context(args), '/v1/bo/clock', undefined)),
  },
];

export async function adminCommand(argv: readonly string[]): Promise<number> {
  return dispatch('admin', 'The back office from the command line: each subcommand mints an operator token from the development issuer (or uses $SATANG_OPERATOR_TOKEN) and prints the JSON answer.', subcommands, argv);
}
