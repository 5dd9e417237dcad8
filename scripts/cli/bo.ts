// `satang bo …`: an operator's day from the command line — the review queue, one deposit
// with its evidence and timeline, approve/decline with a note, a settled one reversed, the
// approvals queue, a withdrawal with its fills (one reversed), claims, disputes, request
// logs and the action log. Each subcommand mints a token from
// the development issuer with the role its work needs (or uses $SATANG_OPERATOR_TOKEN, and
// $SATANG_STEP_UP_TOKEN where a step-up is needed), prints a table for people, or the
// server's JSON answer with --json (for scripts). Exit 0 on a 2xx answer, 1 otherwise, the
// refusal on stderr (`HTTP 422: {…}`, as report and call say it; its message naming the
// options, --amount, --reason-code, where the API's names the fields they fill, amount_minor,
// reason_code: each option's `field`) and nothing on stdout. A subcommand that POSTs takes --idempotency-key, said in the error
// when no answer came.

import { randomUUID } from 'node:crypto';
import { defaultDataDir, dispatch, flag, text, usageError, type Args, type CommandSpec, type OptionSpec, type Subcommand, urlOption, idempotencyKeyOption, inBangkok } from './args.ts';
import { bahtOf } from '../../core/finance/money-text.ts';
import { reversalReasonCodes } from '../../core/deposit/state.ts';
import { webhookLimits } from '../../core/limits.ts';
import { fetchOrRefuse, printRefused, satangJson } from './reach.ts';
import { table } from './table.ts';
import { mintToken, stepUpToken } from './token.ts';

interface Answer { status: number; json: any }
type Role = 'reviewer' | 'approver' | 'ops_admin' | 'finance' | 'support';

async function call(args: Args, role: Role, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, stepUp = false): Promise<Answer> {
  const dataDir = text(args, 'data-dir');
  const sub = text(args, 'sub');
  const token = process.env.SATANG_OPERATOR_TOKEN ?? await mintToken(dataDir, sub, [role], false);
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (stepUp) headers['X-PG-Step-Up-Token'] = await stepUpToken(dataDir, sub, [role]);
  const idempotencyKey = method !== 'GET' ? text(args, 'idempotency-key') || randomUUID() : undefined;
  if (idempotencyKey !== undefined) {
    headers['Idempotency-Key'] = idempotencyKey;
    headers['Content-Type'] = 'application/json';
  }
  const url = text(args, 'url') + path;
  const res = await fetchOrRefuse(url, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }, idempotencyKey);
  return { status: res.status, json: await satangJson(url, res, idempotencyKey) };
}

/** The claim transitions that move money out of suspense, which need a step-up and a second operator. */
const moneyMoving = (transition: string): boolean => transition === 'refund' || transition === 'payout';

// ---- output ----

/**
 * An object's fields as a person reads them, `k=v` separated by spaces (where a long one
 * wraps): text as it is (an instant in Bangkok time), anything else as JSON with a space
 * between its items (`[{ "leg_ref": "leg_1", "amount_minor": 500 }]`), so that it too wraps
 * between them rather than mid-word. JSON writes a line break inside text as \n, so each
 * of its line breaks is between items.
 */
function fieldsInWords(o: Record<string, unknown>): string {
  const spaced = (v: unknown) => JSON.stringify(v, null, 1)?.replace(/\n */g, ' ');
  return Object.entries(o).map(([k, v]) => `${k}=${typeof v === 'string' ? inBangkok(v) : spaced(v)}`).join(' ');
}

/**
 * A verdict's figure as a person reads it: a time window `from – to` in Bangkok time, an
 * object's fields `k=v`, a list's items a line each (a multi-leg order's receivers), whole.
 */
function verdictValue(x: unknown): unknown {
  if (x === null || typeof x !== 'object') return typeof x === 'string' ? inBangkok(x) : x;
  if (Array.isArray(x)) return x.map(verdictValue).join('\n');
  const o = x as Record<string, unknown>;
  if (typeof o.from === 'string' && typeof o.to === 'string') return `${inBangkok(o.from)} – ${inBangkok(o.to)}`;
  return fieldsInWords(o);
}

/** `--since` as the API takes it: RFC 3339, or the CLI's own `2026-11-30 19:22:50 +07` (what its tables print). */
function sinceOf(a: Args): string {
  const given = text(a, 'since');
  const printed = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) \+07$/.exec(given);
  return printed ? `${printed[1]}T${printed[2]}+07:00` : given;
}

/** --live or --sandbox as a list's livemode filter ('' for both modes; --live when both are given). */
const livemodeOf = (a: Args): string => (flag(a, 'live') ? 'true' : flag(a, 'sandbox') ? 'false' : '');

/** GET /v1/bo/withdrawals with the list's filter and the options above. */
function withdrawalListPath(a: Args, filter: Record<string, string>): string {
  return `/v1/bo/withdrawals${query({ ...filter, merchant_id: text(a, 'merchant'), livemode: livemodeOf(a), limit: text(a, 'limit'), cursor: text(a, 'cursor') })}`;
}

/** How long something has waited, as a person reads it: `42m`, `25h 15m`, `3d 4h`. */
function ageOf(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

/** The last line of a page when there is another (the README's `more: --cursor C`), else ''. */
const more = (json: any): string => (json.has_more && json.next_cursor ? `\nmore: --cursor ${json.next_cursor}` : '');

/**
 * A page of a list: its table, then where the next page starts (--cursor) when there is
 * one; `nothing` instead of a bare header when the page is empty.
 */
function page(json: any, headers: readonly string[], row: (item: any) => readonly unknown[], nothing: string, below?: (item: any) => readonly string[]): string {
  if (json.data.length === 0) return nothing;
  return `${table(headers, json.data.map(row), below ? { below: (i) => below(json.data[i]) } : {})}${more(json)}`;
}

/**
 * What an action-log row changed (its `changes`), a line per field under the row, whole (a URL
 * is not cut at a column's width): `  url: https://old/… → https://new/…`.
 */
function changeLines(changes: Record<string, { before: unknown; after: unknown }> | null | undefined): string[] {
  const value = (v: unknown) => (v === null || v === undefined ? '-' : typeof v === 'string' ? v : JSON.stringify(v));
  return Object.entries(changes ?? {}).map(([field, { before, after }]) => `    ${field}: ${value(before)} → ${value(after)}`);
}

/**
 * Prints the answer: JSON with --json, else what `render` makes of it; a refusal on stderr
 * alone, its message naming the command's options for the API fields they fill.
 */
function print(args: Args, a: Answer, render: (json: any) => string): number {
  if (a.status >= 300) {
    printRefused(a.status, a.json, args.spec);
    return 1;
  }
  console.log(flag(args, 'json') ? JSON.stringify(a.json, null, 2) : render(a.json));
  return 0;
}

/** Satang as baht with two decimals, from the integer (never through a float). */
const thb = (minor: number | null | undefined) => (typeof minor === 'number' && Number.isSafeInteger(minor) ? bahtOf(BigInt(minor)) : '-');
const query = (pairs: Record<string, string>) => {
  const q = new URLSearchParams(Object.entries(pairs).filter(([, v]) => v !== ''));
  return q.size > 0 ? `?${q}` : '';
};

// ---- options ----

const common: Record<string, OptionSpec> = {
  json: { type: 'boolean', help: "print the server's JSON answer instead of a table" },
  url: urlOption,
  'data-dir': { type: 'string', value: 'DIR', default: defaultDataDir, help: "the server's data directory, where the development issuer's key is ($SATANG_DATA_DIR)" },
  sub: { type: 'string', value: 'ID', default: 'emp_operator', help: 'the operator the minted token names' },
};
const note: OptionSpec = { type: 'string', value: 'TEXT', required: true, help: 'why (at least 20 characters; kept with the decision)' };
/** A payout decision's note: optional, as the server takes it, and kept with the decision. */
const payoutNote: OptionSpec = { type: 'string', value: 'TEXT', help: 'why (optional; kept with the decision)' };
const paging: Record<string, OptionSpec> = {
  limit: { type: 'string', value: 'N', integer: true, min: 1, max: 200, unit: 'rows', help: 'rows per page (1–200)' },
  cursor: { type: 'string', value: 'CURSOR', help: 'the next_cursor of the previous page' },
};

/**
 * --no-clock-reads: a log without the reads of the service clock (GET /v1/bo/clock), which a
 * console open on a manual clock makes each minute; the API's clock_reads=false (default true).
 */
const clockReadsOption: Record<string, OptionSpec> = {
  'no-clock-reads': { type: 'boolean', field: 'clock_reads', fieldValue: 'false', help: 'leave out reads of the service clock (GET /v1/bo/clock), as the console\'s activity log does' },
};
const clockReadsOf = (a: Args): string => (flag(a, 'no-clock-reads') ? 'false' : '');

/** --live and --sandbox, a list's mode (livemodeOf): only live `what`, only sandbox ones. */
const modeOptions = (what: string): Record<string, OptionSpec> => ({ live: { type: 'boolean', help: `only live ${what}` }, sandbox: { type: 'boolean', help: `only sandbox ${what}` } });

/** --merchant, a list's merchant_id: only this merchant's rows. */
const merchantOption: Record<string, OptionSpec> = { merchant: { type: 'string', value: 'MCH_ID', field: 'merchant_id', help: 'only this merchant' } };

/** The options of a withdrawals list (approvals, disputes): a merchant, a mode, a page. */
const withdrawalListOptions: Record<string, OptionSpec> = {
  ...merchantOption, ...modeOptions('payouts'), ...paging,
};

/**
 * A code is --reason-code and free text --note, in every bo and admin command (admin's
 * adjustments too): --reason, this option's first spelling here, is still taken for it.
 */
const reasonCode = (more: Pick<OptionSpec, 'help' | 'required' | 'field'>): OptionSpec => ({ type: 'string', value: 'CODE', aliases: ['reason'], ...more });

/** A reversal's --reason-code (a deposit's, a fill's): the reason_code the merchant sees, one of the route's. */
const reversalReasonCode = reasonCode({ required: true, field: 'reason_code', help: `the reversal's reason_code, which the merchant sees: ${reversalReasonCodes.join(', ')}` });

/** `--legs leg_1=30000,leg_2=0` → [{leg_ref, amount_minor}]; [] when absent, null when malformed. */
function legAmounts(value: string): { leg_ref: string; amount_minor: number }[] | null {
  if (value === '') return [];
  const pairs = value.split(',').map((pair) => /^([A-Za-z0-9_]+)=(\d+)$/.exec(pair.trim()));
  if (pairs.some((m) => m === null)) return null;
  return pairs.map((m) => ({ leg_ref: m![1]!, amount_minor: Number(m![2]) }));
}

function spec(usage: string, summary: string, options: Record<string, OptionSpec> = {}, words?: string[]): CommandSpec {
  return { usage: `satang bo ${usage}`, summary, options: { ...options, ...common }, ...(words ? { words } : {}) };
}


/** A subcommand that POSTs: it takes --idempotency-key. */
function postSpec(usage: string, summary: string, options: Record<string, OptionSpec> = {}, words?: string[]): CommandSpec {
  return spec(usage, summary, { ...options, 'idempotency-key': idempotencyKeyOption }, words);
}

/** The first word as a path segment, encoded here; a query's values go to `query()` as typed (it encodes them). */
const id = (args: Args) => encodeURIComponent(args.words[0]!);

function renderQueue(json: any): string {
  if (json.data.length === 0) return json.total > 0 ? `none on this page; ${json.total} waiting in all` : 'nothing waiting';
  const rows = json.data.map((d: any) => [d.id, d.merchant_id, d.livemode ? 'live' : 'sandbox', thb(d.amount_minor), ageOf(d.age_seconds), d.review?.reasons.map((r: any) => r.code).join(',') ?? '-',
    d.review?.escalated ? 'yes' : 'no', d.estimated_resolution_bucket ?? '-', (d.approvals ?? []).join(',') || '-']);
  return `${table(['DEPOSIT', 'MERCHANT', 'MODE', 'THB', 'AGE', 'REASONS', 'ESCALATED', 'ESTIMATE', 'APPROVED BY'], rows)}\n${json.total} waiting${more(json)}`;
}

function renderDeposit(json: any): string {
  const d = json.deposit;
  // An expired or canceled order's late-slip window: until when a slip for it is still taken (null: none, it never had a destination).
  const lateSlips = d.late_slip_accepted_until === undefined ? ''
    : `\nlate slips accepted until ${d.late_slip_accepted_until === null ? 'never (no destination was ever named)' : inBangkok(d.late_slip_accepted_until)}`;
  const head = `${d.id}  ${d.status}  version ${d.version}  THB ${thb(d.amount_minor)}  merchant ${json.merchant.id} (${json.merchant.name ?? '-'})${lateSlips}`;
  const review = json.review ? `review: ${json.review.reasons.map((r: any) => r.code).join(', ')}; approvals ${json.review.approvals.join(', ') || 'none'} of ${json.review.approvals_needed}` : 'no review';
  // The amount verdict in baht, as every other amount here (the API gives satang).
  const shownAs = (v: any, x: unknown) => (v.dimension === 'amount' && typeof x === 'number' ? thb(x) : verdictValue(x));
  // Wrapped, not cut: the receiver check names each leg's account, and a reviewer compares them whole.
  const verdicts = table(['VERDICT', 'EXPECTED', 'SHOWN', 'MATCH'], json.evidence.verdicts.map((v: any) => [v.dimension, shownAs(v, v.expected), shownAs(v, v.shown), v.match]), { wrap: true });
  // The legs, with the refs an approval's --legs names when more than one waits for money, and
  // what each paid: the withdrawal and, once filled, its fill's leg_ref (PAID TO and FILL are
  // the words bo fill reverse takes; the leg's own ref is the deposit's, not the fill's).
  const legs = table(['LEG', 'THB', 'STATUS', 'RECEIVER', 'PAID TO', 'FILL'], (json.evidence.legs ?? []).map((l: any) => [
    l.leg_ref, thb(l.amount_minor), l.leg_status, `${l.receiver?.bank_code ?? ''} ${l.receiver?.account_number_masked ?? ''}`.trim(), l.counterparty?.withdrawal_id ?? l.counterparty?.kind ?? '-',
    l.filled_minor > 0 ? l.counterparty?.payout_leg_ref : '-',
  ]));
  // The timeline a step a row, its detail's fields wrapped in their column, never cut (a cut lost a delivery's status and error).
  const timeline = table(['SEQ', 'AT', 'STEP', 'STREAM', 'DETAIL'], json.timeline.map((t: any) => [t.seq, t.at, t.step, t.stream, fieldsInWords(t.detail ?? {}) || '-']), { wrap: true });
  return [head, review, '', legs, '', verdicts, '', timeline].join('\n');
}

/** Each evidence file with where its bytes are read (an operator's GET, e.g. curl with a `satang token`). */
function disputeFiles(evidence: any[]): string {
  const files = evidence.flatMap((e: any) => e.files.filter((f: any) => f.download_url));
  // One line each, not a table: a table cuts cells at 60 characters, and the path must stay whole.
  return files.length === 0 ? '' : `\n\n${files.map((f: any) => `file ${f.name}: ${f.bytes} bytes, ${f.media_type ?? '-'}, sha256 ${f.sha256 ?? '-'}\n  GET ${f.download_url}`).join('\n')}`;
}

/** A dispute: who opened and resolved it, the withdrawal's fills (a lost one's is reversed by its LEG_REF), the evidence. */
function renderDispute(j: any): string {
  const d = j.dispute;
  const head = `${d.id} on ${j.withdrawal.id}: ${d.status}${d.outcome ? ` (${d.outcome})` : ''}\n`
    + `reason ${d.reason_code}, THB ${thb(d.amount_minor)}, opened ${inBangkok(d.opened_at)} by ${d.opened_by ?? '-'}, evidence by ${inBangkok(d.respond_by)}`
    + (d.status === 'open' ? '' : `\nresolved by ${d.resolved_by ?? '-'}: ${d.resolution_note ?? '-'}`);
  const evidence = table(['SEQ', 'SUBMITTED', 'TEXT', 'FILES'], d.evidence.map((e: any) => [e.seq, e.submitted_at, e.text, e.files.map((f: any) => f.name).join(',')]));
  return `${head}\n\n${fillsTable(j.withdrawal)}\n\n${evidence}${disputeFiles(d.evidence)}`;
}

/**
 * A withdrawal's fills as an operator reads them (bo dispute show, bo withdrawal show): the
 * LEG_REF bo fill reverse takes, the deposit that paid it, its amount and fee share, its
 * receipt state or `reversed (CODE)`, when it landed.
 */
function fillsTable(w: any): string {
  if (w.fills.length === 0) return 'no fill yet';
  return table(['LEG_REF', 'DEPOSIT', 'THB', 'FEE', 'STATUS', 'FILLED AT'], w.fills.map((f: any) => [
    f.leg_ref, f.deposit_id, thb(f.amount_minor), thb(f.fee_recognized_minor), f.reversal_reason_code ? `reversed (${f.reversal_reason_code})` : f.receipt_state, f.settled_at,
  ]));
}

/** One withdrawal (GET /v1/bo/withdrawals/{id}): where it stands, whom it pays, what it refunds or is disputed by, then its fills. */
function renderWithdrawal(j: any): string {
  const w = j.withdrawal;
  const b = j.beneficiary;
  const lines = [
    `${w.id}  ${w.status}  ${w.livemode ? 'live' : 'sandbox'}  THB ${thb(w.filled_minor)} of ${thb(w.amount_total_minor)} filled  merchant ${j.merchant_id} (${j.merchant_name ?? '-'})`,
    `pays ${b ? `${b.bank_code} ${b.account_number_masked} ${b.account_name_masked} (${b.id}, ${b.status})` : w.beneficiary_id}; created ${inBangkok(w.created_at)}, expires ${inBangkok(w.expires_at)}`,
    ...(w.refund_of_deposit_id ? [`a claim's refund of ${w.refund_of_deposit_id}`] : []),
    ...(w.requires_approval ? [`approvals ${j.approvals.join(', ') || 'none'} of ${j.approvals_required}`] : []),
    ...(j.dispute ? [`dispute ${j.dispute.id}: ${j.dispute.status}${j.dispute.outcome ? ` (${j.dispute.outcome})` : ''}; its evidence: bo dispute show ${j.dispute.id}`] : []),
  ];
  return `${lines.join('\n')}\n\n${fillsTable(w)}`;
}

/** A fill reversal's answer, the withdrawal: the fill's reversal as `bo reverse` says a deposit's, then where the order stands. */
function renderFillReversed(w: any, legRef: string): string {
  const f = w.fills.find((x: any) => x.leg_ref === legRef);
  return `${w.id}: fill ${legRef} reversed (${f.reversal_reason_code}; balance transaction ${f.reversal_balance_transaction_id} takes back ${f.balance_transaction_id}, THB ${thb(f.amount_minor)} and fee THB ${thb(f.fee_recognized_minor)})\n`
    + `withdrawal ${w.status}, THB ${thb(w.filled_minor)} of ${thb(w.amount_total_minor)} filled`;
}

// What the refunds paid and what the payer owes back (a deposit reversed after its refund paid them), as bo claims lists them:
// the claim behind a trial balance's owed_by_payers line says its figure here too.
const renderClaim = (c: any) => table(['CLAIM', 'KIND', 'STATUS', 'DEPOSIT', 'THB', 'REFUNDED', 'OWED BY PAYER', 'WRITTEN OFF', 'OWED BY PAYEE', 'VERSION', 'REFUND'],
  [[c.id, c.kind, c.status, c.deposit_id, thb(c.amount_minor), thb(c.refunded_minor), thb(c.owed_by_payer_minor), thb(c.written_off_minor), thb(c.owed_by_payee_minor), c.version, c.refund_withdrawal_id]])
  + (c.write_off_proposal ? `\n\nwrite-off proposal ${c.write_off_proposal.id}: THB ${thb(c.write_off_proposal.amount_minor)} by ${c.write_off_proposal.proposed_by}, approve by ${inBangkok(c.write_off_proposal.approve_by)}` : '')
  // Each note whole, wrapped in its column: an operator reads why the claim moved, not its first 60 characters.
  + (c.notes?.length ? `\n\n${table(['AT', 'OPERATOR', 'STATUS', 'NOTE'], c.notes.map((n: any) => [n.at, n.operator, n.status, n.note]), { wrap: true })}` : '');

const subcommands: readonly Subcommand[] = [
  {
    words: ['queue'],
    spec: spec('queue', 'The review queue: deposits under review, oldest first, with reasons, age and estimate; --status for orders stuck before review.', {
      status: { type: 'string', value: 'STATUS', help: 'another status than under_review: awaiting_liquidity, awaiting_payment or slip_processing (a stuck order)' },
      'reason-code': reasonCode({ field: 'reason', help: 'only this review reason' }), escalated: { type: 'boolean', help: 'only escalated reviews' },
      ...merchantOption, ...modeOptions('orders'), ...paging,
    }),
    run: async (a) => print(a, await call(a, 'reviewer', 'GET', `/v1/bo/deposits${query({
      status: text(a, 'status'), reason: text(a, 'reason-code'), escalated: flag(a, 'escalated') ? 'true' : '', merchant_id: text(a, 'merchant'), livemode: livemodeOf(a), limit: text(a, 'limit'), cursor: text(a, 'cursor'),
    })}`), renderQueue),
  },
  {
    words: ['merchants'],
    spec: spec('merchants', 'Merchants, oldest first; a suspended one with who suspended it, when and why.', {
      q: { type: 'string', value: 'TEXT', help: 'a name, or an id' }, suspended: { type: 'boolean', help: 'only suspended merchants' }, ...paging,
    }),
    run: async (a) => print(a, await call(a, 'support', 'GET', `/v1/bo/merchants${query({ q: text(a, 'q'), suspended: flag(a, 'suspended') ? 'true' : '', limit: text(a, 'limit'), cursor: text(a, 'cursor') })}`),
      (j) => page(j, ['MERCHANT', 'NAME', 'WHITE LABEL', 'SUSPENDED', 'BY', 'WHEN', 'WHY'], (m: any) => [m.id, m.name, m.white_label_id, m.suspended ? 'yes' : 'no', m.suspension?.by ?? '', m.suspension?.at ?? '', m.suspension?.reason ?? ''], 'no merchant matches')),
  },
  {
    words: ['search'],
    // TEXT is the API's q: a refusal naming q (too long) names TEXT.
    spec: { ...spec('search TEXT', 'Finds deposits, withdrawals, claims and merchants by id, merchant reference, end user reference or a slip\'s bank transaction reference, any status, newest first.', {
      ...merchantOption, ...modeOptions('orders'),
      limit: paging.limit!,
    }, ['TEXT']), wordFields: { TEXT: 'q' } },
    run: async (a) => print(a, await call(a, 'support', 'GET', `/v1/bo/search${query({ q: a.words[0]!, merchant_id: text(a, 'merchant'), livemode: livemodeOf(a), limit: text(a, 'limit') })}`),
      (j) => (j.data.length === 0 ? `nothing has exactly the id or reference ${JSON.stringify(j.q)}` : table(['OBJECT', 'ID', 'MERCHANT', 'MODE', 'STATUS', 'THB', 'REFERENCE', 'END USER', 'CREATED', 'MATCHED ON'], j.data.map((h: any) => [
        h.object, h.id, h.merchant_id, h.livemode === null ? '-' : h.livemode ? 'live' : 'sandbox', h.status, h.amount_minor === null ? '-' : thb(h.amount_minor),
        h.merchant_reference ?? '-', h.end_user_ref ?? '-', h.created_at, h.matched_on]))
        + (j.has_more ? '\nmore match: raise --limit, or narrow with --merchant, --live or --sandbox' : ''))),
  },
  {
    words: ['show'],
    spec: spec('show DEPOSIT_ID', 'One deposit: the verdicts side by side with what was expected, and its timeline with the journal seq of every step.', {}, ['DEPOSIT_ID']),
    run: async (a) => print(a, await call(a, 'reviewer', 'GET', `/v1/bo/deposits/${id(a)}`), renderDeposit),
  },
  ...(['approve', 'decline'] as const).map((verb): Subcommand => {
    const decision = postSpec(`${verb} DEPOSIT_ID`, verb === 'approve' ? 'Approves a deposit under review (four-eyes reviews need two different reviewers).' : 'Declines a deposit under review: one reviewer\'s decline is final, on any deposit (even one with an approval recorded).', {
      note, ...(verb === 'approve' ? {
        amount: { type: 'string', value: 'SATANG', field: 'amount_minor', integer: true, min: 1, unit: 'satang', help: 'the transferred amount as you verified it, when the slip gave none' },
        legs: { type: 'string', value: 'LEG=SATANG,…', field: 'legs[]', help: 'what each leg still waiting received (0 where nothing arrived), needed when more than one waits' },
        version: { type: 'string', value: 'N', integer: true, min: 0, help: 'the version `bo show` gave: refused if the deposit changed since (another reviewer\'s figures), instead of confirming figures you did not see' },
      } : {}),
    }, ['DEPOSIT_ID']);
    return {
      words: [verb],
      spec: decision,
      run: async (a) => {
        const legs = legAmounts(text(a, 'legs'));
        if (legs === null) return usageError(decision, `--legs takes LEG_REF=SATANG pairs separated by commas, not '${text(a, 'legs')}'`);
        return print(a, await call(a, 'reviewer', 'POST', `/v1/bo/deposits/${id(a)}/${verb}`, {
          note: text(a, 'note'), ...(text(a, 'amount') ? { amount_minor: Number(text(a, 'amount')) } : {}), ...(legs.length > 0 ? { legs } : {}),
          ...(verb === 'approve' && text(a, 'version') !== '' ? { version: Number(text(a, 'version')) } : {}),
        }), (d) => `${d.id}: ${d.status}${d.status === 'under_review' ? ' (approval recorded; it waits for another reviewer — or, if another reviewer had recorded other figures, yours replaced theirs: bo show lists the approvals and figures)' : ''}`);
      },
    };
  }),
  {
    words: ['reverse'],
    // A settled deposit taken back (the bank recalled the transfer), with the route's reason codes and its word on refunds already paid.
    spec: postSpec('reverse DEPOSIT_ID', "Reverses a settled deposit (deposit.reversed): what it credited the merchant is taken back, its fee refunded. ops_admin; a step-up: minted for you, or $SATANG_STEP_UP_TOKEN.", {
      'reason-code': reversalReasonCode,
      note,
      'recover-from-payer': { type: 'boolean', field: 'claim_refunds', fieldValue: 'recover_from_payer', help: "when a claim's refund already paid the payer part of the transfer (the first try is refused, 409, naming it): reverse all the same, the claim recording the refund as owed back by the payer (claim_refunds: recover_from_payer)" },
    }, ['DEPOSIT_ID']),
    // A refusal naming claim_refunds: "recover_from_payer" names --recover-from-payer (its field).
    run: async (a) => print(a, await call(a, 'ops_admin', 'POST', `/v1/bo/deposits/${id(a)}/reverse`, {
      reason_code: text(a, 'reason-code'), note: text(a, 'note'), ...(flag(a, 'recover-from-payer') ? { claim_refunds: 'recover_from_payer' } : {}),
    }, true), (d) => `${d.id}: ${d.status} (${d.reversal.reason_code}; balance transaction ${d.reversal.balance_transaction_id} takes back ${d.reversal.reverses_balance_transaction_id})`),
  },
  {
    words: ['fill', 'reverse'],
    // The one money move a lost dispute leads to (README's Fill reversals and disputes): the fill's amount and fee share go back to the withdrawing merchant.
    spec: postSpec('fill reverse WITHDRAWAL_ID LEG_REF', "Reverses one fill of a withdrawal (withdrawal.fill_reversed, balance.credited), as after a lost dispute: its amount and fee share return to the order's lock while it is still payable, else to available (a closed claim refund's: to suspense, a replacement refund opened). LEG_REF is the fill's leg_ref: the fills table of bo withdrawal show (or bo dispute show), or the deposit's bo show (its leg's PAID TO and FILL). ops_admin; a step-up: minted for you, or $SATANG_STEP_UP_TOKEN.", {
      'reason-code': reversalReasonCode,
      note,
    }, ['WITHDRAWAL_ID', 'LEG_REF']),
    run: async (a) => print(a, await call(a, 'ops_admin', 'POST', `/v1/bo/withdrawals/${id(a)}/fills/${encodeURIComponent(a.words[1]!)}/reverse`, { reason_code: text(a, 'reason-code'), note: text(a, 'note') }, true),
      (w) => renderFillReversed(w, a.words[1]!)),
  },
  {
    words: ['approvals'],
    spec: spec('approvals', 'The approvals queue: withdrawals pending approval, oldest first, with their mode and who approved so far.', withdrawalListOptions),
    run: async (a) => print(a, await call(a, 'approver', 'GET', withdrawalListPath(a, { status: 'pending_approval' })),
      // The mode on every row: an approver never mistakes a test payout for a real one.
      (j) => page(j, ['WITHDRAWAL', 'MODE', 'MERCHANT', 'THB', 'AGE', 'APPROVALS'], (w: any) => [w.id, w.livemode ? 'live' : 'sandbox', w.merchant_id, thb(w.amount_total_minor), ageOf(w.age_seconds), `${w.approvals.join(',') || 'none'} (${w.approvals.length}/${w.approvals_required})`], 'no withdrawal is waiting for approval')),
  },
  {
    words: ['disputes'],
    spec: spec('disputes', 'The open disputes, oldest withdrawal first, whatever the withdrawal\'s status: the amount at stake and when evidence is due.', withdrawalListOptions),
    run: async (a) => print(a, await call(a, 'support', 'GET', withdrawalListPath(a, { disputed: 'true' })),
      (j) => page(j, ['DISPUTE', 'WITHDRAWAL', 'STATUS', 'MODE', 'MERCHANT', 'THB', 'REASON', 'RESPOND BY'], (w: any) => [
        w.dispute?.id, w.id, w.status, w.livemode ? 'live' : 'sandbox', w.merchant_id, thb(w.dispute?.amount_minor), w.dispute?.reason_code, w.dispute?.respond_by,
      ], 'no dispute is open')),
  },
  ...(['approve', 'reject'] as const).map((verb): Subcommand => ({
    words: ['withdrawal', verb],
    spec: postSpec(`withdrawal ${verb} WITHDRAWAL_ID`, verb === 'approve' ? 'Approves a withdrawal pending approval (live_p2p: two different approvers).' : 'Rejects a withdrawal pending approval: one approver\'s rejection is final and returns what it locked.', { note: payoutNote }, ['WITHDRAWAL_ID']),
    run: async (a) => print(a, await call(a, 'approver', 'POST', `/v1/bo/withdrawals/${id(a)}/${verb}`, text(a, 'note') ? { note: text(a, 'note') } : {}), (w) => `${w.id}: ${w.status}`),
  })),
  {
    words: ['withdrawal', 'cancel'],
    spec: postSpec('withdrawal cancel WITHDRAWAL_ID', "Calls a withdrawal off as an operator (a claim's refund to stop: its merchant may not), its lock released. A step-up: minted for you, or $SATANG_STEP_UP_TOKEN.", { note: payoutNote }, ['WITHDRAWAL_ID']),
    run: async (a) => print(a, await call(a, 'ops_admin', 'POST', `/v1/bo/withdrawals/${id(a)}/cancel`, text(a, 'note') ? { note: text(a, 'note') } : {}, true), (w) => `${w.id}: ${w.status}`),
  },
  {
    words: ['withdrawal', 'show'],
    spec: spec('withdrawal show WITHDRAWAL_ID', 'One withdrawal: where it stands, whom it pays, and its fills (the LEG_REF bo fill reverse takes, the deposit that paid each).', {}, ['WITHDRAWAL_ID']),
    run: async (a) => print(a, await call(a, 'support', 'GET', `/v1/bo/withdrawals/${id(a)}`), renderWithdrawal),
  },
  {
    words: ['claims'],
    spec: spec('claims', 'Claims, oldest first.', {
      kind: { type: 'string', value: 'KIND', help: 'overpayment, late_slip or manual' }, status: { type: 'string', value: 'STATUS', help: 'open, under_review, refund_pending, return_pending_payout, closed, rejected' }, deposit: { type: 'string', value: 'DEP_ID', field: 'deposit_id', help: 'only claims about this deposit' }, ...merchantOption,
      'owed-by-payer': { type: 'boolean', field: 'owed_by_payer', help: "only claims whose payer owes a refund back (the trial balance's owed_by_payers, claim by claim)" },
      'owed-by-payee': { type: 'boolean', field: 'owed_by_payee', help: "only claims whose payee owes the service what their refunds paid (the trial balance's owed_by_payees, claim by claim)" },
      'written-off': { type: 'boolean', field: 'written_off', help: "only claims whose payer's debt finance wrote off in part or whole (the trial balance's payer_debts_written_off, claim by claim)" }, ...modeOptions('claims'), ...paging,
    }),
    run: async (a) => print(a, await call(a, 'support', 'GET', `/v1/bo/claims${query({
      kind: text(a, 'kind'), status: text(a, 'status'), deposit_id: text(a, 'deposit'), merchant_id: text(a, 'merchant'), owed_by_payer: flag(a, 'owed-by-payer') ? 'true' : '', owed_by_payee: flag(a, 'owed-by-payee') ? 'true' : '', written_off: flag(a, 'written-off') ? 'true' : '', livemode: livemodeOf(a), limit: text(a, 'limit'), cursor: text(a, 'cursor'),
    })}`),
      (j) => page(j, ['CLAIM', 'MODE', 'KIND', 'STATUS', 'DEPOSIT', 'THB', 'OWED BY PAYER', 'OWED BY PAYEE', 'UPDATED'], (c: any) => [c.id, c.livemode ? 'live' : 'sandbox', c.kind, c.status, c.deposit_id, thb(c.amount_minor), thb(c.owed_by_payer_minor), thb(c.owed_by_payee_minor), c.updated_at], 'no claim matches')),
  },
  {
    words: ['claim', 'show'],
    spec: spec('claim show CLAIM_ID', 'One claim with every decision and its refund withdrawal.', {}, ['CLAIM_ID']),
    run: async (a) => print(a, await call(a, 'support', 'GET', `/v1/bo/claims/${id(a)}`), renderClaim),
  },
  {
    words: ['claim', 'open'],
    spec: postSpec('claim open', 'Opens a claim about a deposit.', {
      kind: { type: 'string', value: 'KIND', required: true, help: 'overpayment, late_slip or manual' }, deposit: { type: 'string', value: 'DEP_ID', required: true, field: 'deposit_id', help: 'the deposit' },
      amount: { type: 'string', value: 'SATANG', required: true, field: 'amount_minor', integer: true, min: 1, unit: 'satang', help: 'the amount at stake' }, note, evidence: { type: 'string', value: 'TEXT', help: 'what the claim rests on' },
    }),
    run: async (a) => print(a, await call(a, 'ops_admin', 'POST', '/v1/bo/claims', { kind: text(a, 'kind'), deposit_id: text(a, 'deposit'), amount_minor: Number(text(a, 'amount')), note: text(a, 'note'), ...(text(a, 'evidence') ? { evidence: text(a, 'evidence') } : {}) }), renderClaim),
  },
  ...(['review', 'refund', 'payout', 'close', 'reject'] as const).map((transition): Subcommand => ({
    words: ['claim', transition],
    spec: postSpec(`claim ${transition} CLAIM_ID`, `Moves a claim on: ${transition}.${moneyMoving(transition) ? ' Money leaves suspense: a step-up token is minted for you, and another operator (--sub) than the one who opened the claim (refund) or approved the refund (payout) must run it.' : ''}`,
      {
        note, ...(transition === 'refund' ? {
          amount: { type: 'string', value: 'SATANG', field: 'amount_minor', integer: true, min: 1, unit: 'satang', help: 'refund less than the whole claim' },
          // A further transfer from another account than the order's sender is refunded to the payer's account, as they confirmed it.
          'to-bank': { type: 'string', value: 'CODE', field: 'refund_account.bank_code', help: "the payer's bank, when the transfer did not come from the order's sender (with --to-account, --to-name)" },
          'to-account': { type: 'string', value: 'NUMBER', field: 'refund_account.account_number', help: "the payer's account number" }, 'to-name': { type: 'string', value: 'NAME', field: 'refund_account.account_name_th', help: "the payer's account name in Thai" },
        } : {}),
      }, ['CLAIM_ID']),
    run: async (a) => {
      // The payer's account is all three or none: one left out sent none, and the refund went to the order's sender.
      const account = (['to-bank', 'to-account', 'to-name'] as const).filter((o) => text(a, o));
      if (account.length > 0 && account.length < 3) return usageError(a.spec, `--to-bank, --to-account and --to-name name the payer's account together: give all three, or none to refund the order's sender`);
      return print(a, await call(a, 'ops_admin', 'POST', `/v1/bo/claims/${id(a)}/${transition}`, {
        note: text(a, 'note'), ...(text(a, 'amount') ? { amount_minor: Number(text(a, 'amount')) } : {}),
        ...(account.length > 0 ? { refund_account: { bank_code: text(a, 'to-bank'), account_number: text(a, 'to-account'), account_name_th: text(a, 'to-name') } } : {}),
      }, moneyMoving(transition)), renderClaim);
    },
  })),
  // Writing off what a claim's payer owes back: finance's four eyes, as a large adjustment (one proposes, another approves naming the amount).
  {
    words: ['claim', 'write-off'],
    spec: postSpec('claim write-off CLAIM_ID', "Proposes to write off what the claim's payer owes back (owed_by_payer_minor), all of it or --amount, as a loss: nothing moves until another finance operator runs claim write-off-approve. finance; a step-up is minted for you.", {
      amount: { type: 'string', value: 'SATANG', field: 'amount_minor', integer: true, min: 1, unit: 'satang', help: 'write off less than all that is owed' }, note,
    }, ['CLAIM_ID']),
    run: async (a) => print(a, await call(a, 'finance', 'POST', `/v1/bo/claims/${id(a)}/write-offs`, { note: text(a, 'note'), ...(text(a, 'amount') ? { amount_minor: Number(text(a, 'amount')) } : {}) }, true),
      (c) => `${renderClaim(c)}\n\nwrite-off ${c.write_off_proposal.id} of THB ${thb(c.write_off_proposal.amount_minor)} proposed; another finance operator approves it by ${inBangkok(c.write_off_proposal.approve_by)}:\n`
        + `  scripts/satang bo claim write-off-approve ${c.id} --proposal ${c.write_off_proposal.id} --amount ${c.write_off_proposal.amount_minor} --sub OTHER_OPERATOR`),
  },
  {
    words: ['claim', 'write-off-approve'],
    spec: postSpec('claim write-off-approve CLAIM_ID', "Approves a write-off another finance operator proposed, naming its amount: what the payer owes goes down by it, the trial balance's payer_debts_written_off up. finance; a step-up is minted for you.", {
      proposal: { type: 'string', value: 'WOP_ID', required: true, field: 'proposal_id', help: "the proposal's id (claim show lists it)" },
      amount: { type: 'string', value: 'SATANG', required: true, field: 'amount_minor', integer: true, min: 1, unit: 'satang', help: 'the amount as the proposal names it' },
      note: { ...note, required: false },
    }, ['CLAIM_ID']),
    run: async (a) => print(a, await call(a, 'finance', 'POST', `/v1/bo/claims/${id(a)}/write-offs/${encodeURIComponent(text(a, 'proposal'))}/approve`, {
      amount_minor: Number(text(a, 'amount')), ...(text(a, 'note') ? { note: text(a, 'note') } : {}),
    }, true), renderClaim),
  },
  {
    words: ['dispute', 'open'],
    spec: postSpec('dispute open WITHDRAWAL_ID', 'Opens a dispute on a withdrawal (withdrawal.disputed; no funds are held: the amount left in the fills).', {
      'reason-code': reasonCode({ required: true, field: 'reason_code', help: 'the dispute reason code' }), amount: { type: 'string', value: 'SATANG', required: true, field: 'amount_minor', integer: true, min: 1, unit: 'satang', help: 'the disputed amount' },
      'respond-by': { type: 'string', value: 'RFC3339', field: 'respond_by', help: 'the evidence deadline (default: the service default)' },
    }, ['WITHDRAWAL_ID']),
    run: async (a) => print(a, await call(a, 'ops_admin', 'POST', `/v1/bo/withdrawals/${id(a)}/disputes`, { reason_code: text(a, 'reason-code'), amount_minor: Number(text(a, 'amount')), ...(text(a, 'respond-by') ? { respond_by: text(a, 'respond-by') } : {}) }),
      (d) => `${d.id}: ${d.status}, THB ${thb(d.amount_minor)} disputed (no funds held); evidence by ${inBangkok(d.respond_by)}`),
  },
  {
    words: ['dispute', 'show'],
    spec: spec('dispute show DISPUTE_ID', "A dispute with the disputed withdrawal's fills (the LEG_REF bo fill reverse takes) and the merchant's evidence.", {}, ['DISPUTE_ID']),
    run: async (a) => print(a, await call(a, 'support', 'GET', `/v1/bo/disputes/${id(a)}`), renderDispute),
  },
  {
    words: ['dispute', 'resolve'],
    spec: postSpec('dispute resolve DISPUTE_ID', 'Resolves a dispute (withdrawal.dispute_resolved).', { outcome: { type: 'string', value: 'OUTCOME', required: true, help: 'merchant_won, merchant_lost or withdrawn' }, note }, ['DISPUTE_ID']),
    run: async (a) => print(a, await call(a, 'ops_admin', 'POST', `/v1/bo/disputes/${id(a)}/resolve`, { outcome: text(a, 'outcome'), note: text(a, 'note') }), (d) => `${d.id}: ${d.status} (${d.outcome})`),
  },
  // ---- webhooks: the merchant's "we never got deposit.settled" ticket, from a shell ----
  {
    words: ['webhooks'],
    spec: spec('webhooks MERCHANT_ID', "A merchant's webhook endpoints, both modes, with their health.", {}, ['MERCHANT_ID']),
    run: async (a) => print(a, await call(a, 'support', 'GET', `/v1/bo/merchants/${id(a)}/webhook-endpoints`),
      (j) => (j.data.length === 0 ? 'this merchant has no webhook endpoint'
        : table(['ENDPOINT', 'MODE', 'STATUS', 'URL', 'FAILING SINCE', 'LAST SUCCESS'], j.data.map((e: any) => [e.id, e.livemode ? 'live' : 'sandbox', e.status, e.url, e.failing_since ?? '-', e.last_success_at ?? '-'])))),
  },
  {
    words: ['deliveries'],
    spec: spec('deliveries ENDPOINT_ID', "An endpoint's deliveries, newest first.", {
      status: { type: 'string', value: 'STATUS', help: 'pending, delivered, failed or canceled' }, ...paging,
    }, ['ENDPOINT_ID']),
    run: async (a) => print(a, await call(a, 'support', 'GET', `/v1/bo/webhooks/${id(a)}/deliveries${query({ status: text(a, 'status'), limit: text(a, 'limit'), cursor: text(a, 'cursor') })}`),
      (j) => page(j, ['DELIVERY', 'EVENT', 'TYPE', 'STATUS', 'ATTEMPT', 'LAST ATTEMPT', 'ANSWER', 'ERROR'], (d: any) => [d.id, d.event_id, d.event_type, d.status, d.attempt, d.last_attempt_at ?? '-', d.response_status ?? '-', d.error ?? '-'], 'no delivery matches')),
  },
  {
    words: ['delivery'],
    spec: spec('delivery ENDPOINT_ID DELIVERY_ID', 'One delivery with every attempt (when, which key signed it, what the receiver answered).', {}, ['ENDPOINT_ID', 'DELIVERY_ID']),
    run: async (a) => print(a, await call(a, 'support', 'GET', `/v1/bo/webhooks/${id(a)}/deliveries/${encodeURIComponent(a.words[1]!)}`),
      (d) => `${d.id}: ${d.event_type} ${d.event_id}, ${d.status}${d.next_retry_at ? `, next attempt ${inBangkok(d.next_retry_at)}` : ''}\n\n${table(['ATTEMPT', 'STARTED', 'KID', 'OUTCOME', 'ANSWER', 'MS', 'ERROR'], d.attempts.map((t: any) => [t.attempt, t.started_at, t.kid, t.outcome, t.response_status ?? '-', t.duration_ms ?? '-', t.error ?? '-']))}`),
  },
  {
    words: ['resend'],
    spec: postSpec('resend ENDPOINT_ID DELIVERY_ID', 'Sends a delivery\'s event again, as a new delivery (X-PG-Resend: manual). A step-up: minted for you, or $SATANG_STEP_UP_TOKEN.', {}, ['ENDPOINT_ID', 'DELIVERY_ID']),
    run: async (a) => print(a, await call(a, 'ops_admin', 'POST', `/v1/bo/webhooks/${id(a)}/deliveries/${encodeURIComponent(a.words[1]!)}/resend`, {}, true),
      (d) => `${d.delivery_id}: a new delivery of ${d.event_id}, ${d.status}`),
  },
  {
    words: ['signing-key', 'rotate'],
    spec: postSpec('signing-key rotate', 'Starts a rotation of the live webhook signing key: the next key is published now and signs from not_before (7 days by default); every merchant is told (webhook.key.rotating). A step-up: minted for you, or $SATANG_STEP_UP_TOKEN.', {
      'notice-seconds': { type: 'string', value: 'N', field: 'notice_seconds', integer: true, min: webhookLimits.keyRotationNoticeMsMin / 1000, max: webhookLimits.keyRotationNoticeMs / 1000, unit: 'seconds', help: 'how long before the next key signs (default 7 days)' },
    }),
    run: async (a) => print(a, await call(a, 'ops_admin', 'POST', '/v1/bo/webhooks/signing-keys/rotate', text(a, 'notice-seconds') ? { notice_seconds: Number(text(a, 'notice-seconds')) } : {}, true),
      (r) => `${r.kid}: next, signs from ${inBangkok(r.not_before)} (after ${r.previous_kid}); ${r.announced_deliveries} announcement deliveries`),
  },
  ...(['enable', 'disable'] as const).map((verb): Subcommand => ({
    words: ['webhook', verb],
    spec: postSpec(`webhook ${verb} ENDPOINT_ID`, verb === 'enable' ? 'Enables an endpoint again (its queued deliveries go out).' : 'Disables an endpoint (its queued deliveries are canceled; mandatory events go by mail).', {}, ['ENDPOINT_ID']),
    run: async (a) => print(a, await call(a, 'ops_admin', 'POST', `/v1/bo/webhooks/${id(a)}/${verb}`, {}), (e) => `${e.id}: ${e.status}`),
  })),
  {
    words: ['webhook', 'delete'],
    spec: postSpec('webhook delete ENDPOINT_ID', "Deletes a disabled endpoint for good: out of the merchant's lists, never delivered to again; its deliveries stay readable (disable it first).", {}, ['ENDPOINT_ID']),
    run: async (a) => print(a, await call(a, 'ops_admin', 'DELETE', `/v1/bo/webhooks/${id(a)}`), (e) => `${e.id}: deleted (its deliveries stay readable: satang bo deliveries ${e.id})`),
  },
  ...(['down', 'up'] as const).map((verb): Subcommand => ({
    words: ['bank', verb],
    spec: postSpec(`bank ${verb} BANK_CODE`, verb === 'down'
      ? 'Marks a sending bank down at its end: new deposits from it are refused (409 sender_bank_unavailable, with the banks that are up), GET /v1/pay/banks says so.'
      : 'Marks a sending bank up again: deposits from it are taken.', verb === 'down' ? { message: { type: 'string', value: 'TEXT', field: 'message_th', help: 'what end users are told, in Thai (the default says the bank is closed for now)' } } : {}, ['BANK_CODE']),
    run: async (a) => print(a, await call(a, 'ops_admin', 'POST', `/v1/bo/banks/${id(a)}/availability`, { available: verb === 'up', ...(text(a, 'message') ? { message_th: text(a, 'message') } : {}) }),
      (b) => `bank ${b.bank_code}: ${b.available ? 'available' : 'down'}${b.message_th ? ` (${b.message_th})` : ''}`),
  })),
  {
    words: ['signing-key', 'withdraw'],
    spec: postSpec('signing-key withdraw KID', 'Withdraws a retired live signing key that leaked: published no more. Rotate first (the README\'s runbook). A step-up.', {}, ['KID']),
    run: async (a) => print(a, await call(a, 'ops_admin', 'POST', `/v1/bo/webhooks/signing-keys/${id(a)}/withdraw`, {}, true), (k) => `${k.kid}: ${k.status} at ${inBangkok(k.withdrawn_at)}`),
  },
  {
    words: ['operator', 'revoke'],
    spec: postSpec('operator revoke SUB', 'Off-boarding: every token of this operator issued until now is refused at once. A step-up.', {
      // The API's free-text reason, so --note; --reason, its first spelling, is still taken (this command has no code to mistake it for).
      note: { type: 'string', value: 'TEXT', field: 'reason', aliases: ['reason'], help: 'why (kept with the revocation)' },
    }, ['SUB']),
    run: async (a) => print(a, await call(a, 'ops_admin', 'POST', `/v1/bo/operators/${id(a)}/revoke`, text(a, 'note') ? { reason: text(a, 'note') } : {}, true),
      (r) => `${r.sub}: tokens issued before ${inBangkok(r.tokens_issued_before)} are refused (by ${r.revoked_by})${r.seen_before ? '' : `\nwarning: ${r.sub} never signed in here — a typo? The operator you meant still has access.`}`),
  },
  {
    words: ['logs'],
    spec: spec('logs', 'Request logs (redacted), newest first.', {
      'request-id': { type: 'string', value: 'REQ_ID', field: 'request_id', help: 'one request' }, merchant: { type: 'string', value: 'MCH_ID', field: 'merchant_id', help: 'one merchant' },
      key: { type: 'string', value: 'KEY_ID', field: 'key_id', help: 'one API key (its id): what a leaked key did, and from where' }, route: { type: 'string', value: 'PATTERN', help: 'one route pattern, e.g. /v1/pay/deposits' },
      status: { type: 'string', value: 'CODE', help: 'one HTTP status' }, since: { type: 'string', value: 'RFC3339', help: 'from this instant' }, ...clockReadsOption, ...paging,
    }),
    run: async (a) => print(a, await call(a, 'support', 'GET', `/v1/bo/logs${query({ request_id: text(a, 'request-id'), merchant_id: text(a, 'merchant'), key_id: text(a, 'key'), route: text(a, 'route'), status: text(a, 'status'), since: sinceOf(a), clock_reads: clockReadsOf(a), limit: text(a, 'limit'), cursor: text(a, 'cursor') })}`),
      (j) => page(j, ['AT', 'REQUEST', 'METHOD', 'ROUTE', 'STATUS', 'MS', 'WHO', 'KEY', 'IP'], (r: any) => [r.at, r.request_id, r.method, r.route, r.status, r.duration_ms, r.operator ?? r.merchant_id, r.key_id ?? '', r.ip ?? ''], 'no request log matches')),
  },
  {
    words: ['actions'],
    spec: spec('actions', 'The action log: every operator call and refused authentication, newest first.', {
      subject: { type: 'string', value: 'SUB', help: 'one operator' }, outcome: { type: 'string', value: 'OUTCOME', help: 'ok, refused, failed, refused_authorization, refused_authentication' },
      route: { type: 'string', value: 'PATTERN', help: 'one route, as the log names it (/v1/bo/keys/:id/revoke)' }, since: { type: 'string', value: 'RFC3339', help: 'from this instant' }, ...clockReadsOption, ...paging,
    }),
    run: async (a) => print(a, await call(a, 'finance', 'GET', `/v1/bo/reports/action-logs${query({ subject: text(a, 'subject'), outcome: text(a, 'outcome'), route: text(a, 'route'), since: sinceOf(a), clock_reads: clockReadsOf(a), limit: text(a, 'limit'), cursor: text(a, 'cursor') })}`),
      (j) => page(j, ['ID', 'AT', 'SUBJECT', 'METHOD', 'ROUTE', 'TARGETS', 'STEP-UP', 'OUTCOME'], (r: any) => [r.id, r.at, r.subject, r.method, r.route, r.target_ids, r.step_up ? 'yes' : 'no', r.outcome], 'no operator action matches',
        (r: any) => changeLines(r.changes))),
  },
];

export async function boCommand(argv: readonly string[]): Promise<number> {
  return dispatch('bo', "An operator's day: search, review queue, deposits with their timeline and reversals, approvals, claims, disputes, webhooks, logs, access. Tables for people, --json for scripts.", subcommands, argv);
}
