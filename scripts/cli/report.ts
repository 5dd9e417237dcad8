// `satang report statement|statement-lines|account-lines|trial-balance|fees|disputes|receiving-account …`: the finance reports
// (GET /v1/bo/reports/*) on the command line, as a readable table or, with --csv (--excel:
// after a byte-order mark), the
// server's RFC 4180 CSV unchanged. Mints a finance operator token from the development
// issuer (or takes $SATANG_OPERATOR_TOKEN). Exit 0 on an answer, 1 when the server
// refuses (its error is printed), 2 on a usage error.

import { parseExact } from '../../server/exact-json.ts';
import { bahtOf } from '../../core/finance/money-text.ts';
import { defaultDataDir, dispatch, inBangkok, flag, text, usageError, type Args, type CommandSpec, type OptionSpec, type Subcommand, urlOption } from './args.ts';
import { fetchOrRefuse } from './reach.ts';
import { columns } from './table.ts';
import { mintToken } from './token.ts';

const common: Record<string, OptionSpec> = {
  url: urlOption,
  'data-dir': { type: 'string', value: 'DIR', default: defaultDataDir, help: "the server's data directory, for the development issuer ($SATANG_DATA_DIR)" },
  sub: { type: 'string', value: 'ID', default: 'emp_finance', help: "the operator's employee id" },
  csv: { type: 'boolean', help: 'print the CSV the server writes (RFC 4180, UTF-8) instead of a table' },
  excel: { type: 'boolean', help: 'the CSV after a UTF-8 byte-order mark, as the console saves it: Excel reads the Thai (implies --csv)' },
};

async function fetchReport(args: Args, path: string): Promise<{ status: number; body: string }> {
  const token = process.env.SATANG_OPERATOR_TOKEN ?? await mintToken(text(args, 'data-dir'), text(args, 'sub'), ['finance'], false);
  const r = await fetchOrRefuse(text(args, 'url') + path, { headers: { Authorization: `Bearer ${token}` } });
  return { status: r.status, body: await r.text() };
}

/** Runs a report: the CSV as is, or the JSON through `table`. */
async function show(args: Args, path: string, table: (json: any) => string[]): Promise<number> {
  const excel = flag(args, 'excel');
  const csv = excel || flag(args, 'csv');
  const r = await fetchReport(args, csv ? `${path}${path.includes('?') ? '&' : '?'}format=csv` : path);
  if (r.status !== 200) {
    process.stderr.write(`HTTP ${r.status}: ${r.body}\n`);
    return 1;
  }
  // Excel reads a CSV without a byte-order mark in the system's code page: Thai becomes mojibake.
  process.stdout.write(csv ? `${excel ? '\uFEFF' : ''}${r.body}` : table(parseExact(r.body)).join('\n') + '\n');
  return 0;
}

const baht = (minor: number | bigint) => bahtOf(BigInt(minor));
/** Who stands behind a line (posted_by: the operator who posted an adjustment or decided what posted it) and, for an adjustment a second operator approved, its proposer. */
const postedBy = (l: any): string => `${l.posted_by ?? ''}${l.proposed_by ? ` · proposed by ${l.proposed_by}` : ''}`;

function statementTable(s: any): string[] {
  const rows: string[][] = [['bucket', 'line', 'count', 'credit THB', 'debit THB', 'amount THB']];
  for (const b of s.buckets) {
    rows.push([b.bucket, 'opening', '', '', '', baht(b.opening_minor)]);
    for (const m of b.movements) rows.push(['', m.type, String(m.count), baht(m.credit_minor), baht(m.debit_minor), baht(m.net_minor)]);
    rows.push(['', 'closing', '', '', '', baht(b.closing_minor)]);
  }
  const period = s.month ?? (s.date_from === s.date_to ? s.date_from : `${s.date_from} to ${s.date_to}`);
  return [`statement ${s.merchant_id} ${s.livemode ? 'live' : 'sandbox'} ${period} (${s.time_zone}: ${s.period_start} – ${s.period_end})`, '', ...columns(rows, [2, 3, 4, 5])];
}

function linesTable(list: any): string[] {
  const rows: string[][] = [['date', 'id', 'type', 'available THB', 'pending THB', 'reserved THB', 'source', 'by', 'reason']];
  for (const l of list.data) {
    const d = l.bucket_deltas;
    rows.push([l.date, l.id, l.type, baht(d.available_minor), baht(d.pending_clearing_minor), baht(d.reserved_minor), `${l.source.type} ${l.source.id}`, postedBy(l), l.reason_code ?? '']);
  }
  const period = list.month ?? (list.date_from === list.date_to ? list.date_from : `${list.date_from} to ${list.date_to}`);
  return [`statement lines ${list.merchant_id} ${list.livemode ? 'live' : 'sandbox'} ${period} (${list.time_zone}): ${list.count}`, '', ...columns(rows, [3, 4, 5])];
}

function accountLinesTable(r: any): string[] {
  const rows: string[][] = [['date', 'transaction', 'type', 'merchant', 'credit THB', 'debit THB', 'balance THB', 'source', 'by', 'reason']];
  rows.push(['', 'opening', '', '', '', '', baht(r.opening_balance_minor), '', '', '']);
  for (const l of r.data) rows.push([l.date, l.balance_transaction_id, l.type, l.merchant_id, baht(l.credit_minor), baht(l.debit_minor), baht(l.balance_minor), `${l.source.type} ${l.source.id}`, postedBy(l), l.reason_code ?? '']);
  rows.push(['', 'closing', '', '', baht(r.credit_minor), baht(r.debit_minor), baht(r.closing_balance_minor), '', '', '']);
  const period = r.month ?? (r.date_from === r.date_to ? r.date_from : `${r.date_from} to ${r.date_to}`);
  return [`account lines ${r.account} ${period} (${r.time_zone}: ${r.period_start} – ${r.period_end}): ${r.count}`, '', ...columns(rows, [4, 5, 6])];
}

function trialBalanceTable(tb: any): string[] {
  const out = [`trial balance as of ${tb.as_of}`];
  for (const s of tb.sections) {
    // The reclassified column only where a line takes its balance from another (owed_by_payers, payer_debts_written_off, owed_by_payees from suspense).
    const reclassified = s.accounts.some((a: any) => a.reclassified_minor !== 0);
    const withReclassified = (row: string[], value: string) => (reclassified ? [...row.slice(0, 5), value, ...row.slice(5)] : row);
    // The merchant's name beside its account's id, as the JSON and the CSV give it (empty for a system account).
    const rows: string[][] = [withReclassified(['account', 'merchant name', 'postings', 'debit THB', 'credit THB', 'balance THB', 'side'], 'reclassified THB')];
    for (const a of s.accounts) rows.push(withReclassified([a.account, a.merchant_name ?? '', String(a.postings), baht(a.debit_minor), baht(a.credit_minor), baht(a.balance_minor), a.side], baht(a.reclassified_minor)));
    rows.push(withReclassified(['total', '', '', baht(s.total_debit_minor), baht(s.total_credit_minor), '', s.balanced ? 'balanced' : 'NOT BALANCED'], ''));
    out.push('', `${s.livemode ? 'live' : 'sandbox'}:`, ...columns(rows, reclassified ? [2, 3, 4, 5, 6] : [2, 3, 4, 5]));
  }
  return out;
}

function feesTable(r: any): string[] {
  const period = r.date_from === r.date_to ? r.date_from : `${r.date_from} to ${r.date_to}`;
  const rows: string[][] = [['white label', 'merchant', 'name', 'charged', 'fee THB', 'VAT THB', 'refunded', 'fee THB', 'VAT THB', 'net fee THB', 'net VAT THB', 'total THB']];
  const row = (label: string, id: string, name: string, l: any) => [label, id, name, String(l.charged.count), baht(l.charged.fee_minor), baht(l.charged.vat_minor), String(l.refunded.count), baht(l.refunded.fee_minor), baht(l.refunded.vat_minor), baht(l.fee_minor), baht(l.vat_minor), baht(l.total_minor)];
  for (const m of r.merchants) rows.push(row(m.white_label_id, m.merchant_id, m.merchant_name, m));
  rows.push(row('total', '', '', r.totals));
  return [`fees and VAT ${r.livemode ? 'live' : 'sandbox'} ${period} (${r.time_zone}: ${r.period_start} – ${r.period_end})`, '', ...columns(rows, [3, 4, 5, 6, 7, 8, 9, 10, 11])];
}

function disputesTable(r: any): string[] {
  const period = r.month ?? (r.date_from === r.date_to ? r.date_from : `${r.date_from} to ${r.date_to}`);
  // A total's count in a column of its own, before its amount, as the statement's and the fees' tables print theirs.
  const rows: string[][] = [['dispute', 'merchant', 'withdrawal', 'reason', 'count', 'THB', 'status', 'opened', 'resolved', 'outcome']];
  for (const d of r.disputes) rows.push([d.dispute_id, d.merchant_id, d.withdrawal_id, d.reason_code, '', baht(d.amount_minor), d.status, inBangkok(d.opened_at), d.resolved_at === null ? '' : inBangkok(d.resolved_at), d.outcome ?? '']);
  const total = (label: string, s: any, outcome = '') => [label, '', '', '', `${s.count}`, baht(s.amount_minor), '', '', '', outcome];
  const t = r.totals;
  rows.push(total('open at start', t.open_at_start), total('opened', t.opened));
  for (const [outcome, s] of Object.entries(t.resolved.by_outcome)) rows.push(total('resolved', s, outcome));
  rows.push(total('open at end', t.open_at_end));
  return [`disputes ${r.livemode ? 'live' : 'sandbox'} ${period} (${r.time_zone}: ${r.period_start} – ${r.period_end})`, '', ...columns(rows, [4, 5])];
}

function receivingTable(list: any): string[] {
  const out = [`receiving accounts of ${list.merchant_id} ${list.livemode ? 'live' : 'sandbox'} as of ${list.as_of}`];
  const rows: string[][] = [['bank', 'account', 'name', 'legs', 'told THB', 'verified THB', 'filled THB', 'agrees']];
  for (const a of list.data) rows.push([a.bank_code, a.account_number_masked, a.account_name_masked, String(a.legs), baht(a.told_minor), baht(a.verified_minor), baht(a.filled_minor), a.agrees ? 'yes' : 'NO']);
  out.push('', ...columns(rows, [3, 4, 5, 6]));
  for (const a of list.data) {
    for (const d of a.differences) {
      out.push(`  ${a.account_number_masked} ${d.deposit_id} ${d.leg_ref}: ${d.reason} (told ${baht(d.told_minor)}, verified ${d.verified_minor === null ? '—' : baht(d.verified_minor)}, filled ${d.filled_minor === null ? '—' : baht(d.filled_minor)}${d.slip_shown_minor === undefined ? '' : `, the ${d.reason === 'SLIP_IN_REVIEW' ? 'slip in review' : "declined order's slip"} showed ${baht(d.slip_shown_minor)}`})`);
    }
  }
  return out;
}

const periodOptions: Record<string, OptionSpec> = {
  date: { type: 'string', value: 'YYYY-MM-DD', help: 'one day, in Asia/Bangkok' },
  month: { type: 'string', value: 'YYYY-MM', help: 'a month: its days, up to today while it runs' },
  from: { type: 'string', value: 'YYYY-MM-DD', help: "a period's first day (with --to)" },
  to: { type: 'string', value: 'YYYY-MM-DD', help: "a period's last day, included (at most 366 days)" },
  sandbox: { type: 'boolean', help: 'the sandbox ledger instead of live' },
};

const statementSpec: CommandSpec = {
  usage: 'satang report statement',
  summary: "A merchant's statement for a day, a month or a period of days in Asia/Bangkok: per bucket the opening balance, the movements by type and the closing balance.",
  options: { merchant: { type: 'string', value: 'ID', required: true, help: 'the merchant (mch_…)' }, ...periodOptions, ...common },
};

const linesSpec: CommandSpec = {
  usage: 'satang report statement-lines',
  summary: "The lines behind a merchant's statement: its balance transactions of a day, a month or a period of days in Asia/Bangkok, oldest first, with each bucket's change.",
  options: { merchant: { type: 'string', value: 'ID', required: true, help: 'the merchant (mch_…)' }, ...periodOptions, ...common },
};

const accountLinesSpec: CommandSpec = {
  usage: 'satang report account-lines',
  summary: "The lines behind a system account's figure in the trial balance: its postings of a day, a month or a period of days in Asia/Bangkok, oldest first, with the running balance.",
  options: { account: { type: 'string', value: 'NAME', required: true, help: 'suspense, reversals, adjustments or gateway_settlement' }, ...periodOptions, ...common },
};

const feesSpec: CommandSpec = {
  usage: 'satang report fees',
  summary: 'Fees and VAT for a day, a month or a period of days in Asia/Bangkok: per merchant the fees charged and refunded, as fee revenue net of VAT and output VAT, and the totals.',
  options: {
    merchant: { type: 'string', value: 'ID', help: 'only this merchant (mch_…)' },
    'white-label': { type: 'string', value: 'ID', help: "only this white label's merchants (wl_…)" },
    ...periodOptions, ...common,
  },
};

const disputesSpec: CommandSpec = {
  usage: 'satang report disputes',
  summary: 'Withdrawal disputes open at some time in a day, a month or a period of days in Asia/Bangkok: each with merchant, withdrawal, amount, status and outcome as at the end; open at the start, opened, resolved by outcome and open at the end.',
  options: { merchant: { type: 'string', value: 'ID', help: 'only this merchant (mch_…)' }, ...periodOptions, ...common },
};

/** The period and mode query of a report (`&date=…&livemode=…`), or null when no period is given. */
function periodQuery(args: Args): string | null {
  const period = (['date', 'month', 'from', 'to'] as const).filter((name) => text(args, name));
  if (period.length === 0) return null;
  return `&livemode=${!flag(args, 'sandbox')}` + period.map((name) => `&${name}=${encodeURIComponent(text(args, name))}`).join('');
}

const subcommands: Subcommand[] = [
  {
    words: ['statement'],
    spec: statementSpec,
    run: (args) => {
      const query = periodQuery(args);
      if (query === null) return Promise.resolve(usageError(statementSpec, '--date, --month, or --from and --to is required'));
      return show(args, `/v1/bo/reports/statements?merchant_id=${encodeURIComponent(text(args, 'merchant'))}${query}`, statementTable);
    },
  },
  {
    words: ['statement-lines'],
    spec: linesSpec,
    run: (args) => {
      const query = periodQuery(args);
      if (query === null) return Promise.resolve(usageError(linesSpec, '--date, --month, or --from and --to is required'));
      return show(args, `/v1/bo/reports/statement-lines?merchant_id=${encodeURIComponent(text(args, 'merchant'))}${query}`, linesTable);
    },
  },
  {
    words: ['account-lines'],
    spec: accountLinesSpec,
    run: (args) => {
      const query = periodQuery(args);
      if (query === null) return Promise.resolve(usageError(accountLinesSpec, '--date, --month, or --from and --to is required'));
      return show(args, `/v1/bo/reports/account-lines?account=${encodeURIComponent(text(args, 'account'))}${query}`, accountLinesTable);
    },
  },
  {
    words: ['fees'],
    spec: feesSpec,
    run: (args) => {
      const query = periodQuery(args);
      if (query === null) return Promise.resolve(usageError(feesSpec, '--date, --month, or --from and --to is required'));
      const only = (option: string, param: string) => (text(args, option) ? `&${param}=${encodeURIComponent(text(args, option))}` : '');
      return show(args, `/v1/bo/reports/fees?${query.slice(1)}${only('merchant', 'merchant_id')}${only('white-label', 'white_label_id')}`, feesTable);
    },
  },
  {
    words: ['disputes'],
    spec: disputesSpec,
    run: (args) => {
      const query = periodQuery(args);
      if (query === null) return Promise.resolve(usageError(disputesSpec, '--date, --month, or --from and --to is required'));
      const merchant = text(args, 'merchant') ? `&merchant_id=${encodeURIComponent(text(args, 'merchant'))}` : '';
      return show(args, `/v1/bo/reports/disputes?${query.slice(1)}${merchant}`, disputesTable);
    },
  },
  {
    words: ['trial-balance'],
    spec: {
      usage: 'satang report trial-balance', summary: 'Every ledger account, system accounts included, with debits, credits and balance at an instant; live and sandbox apart.',
      options: { 'as-of': { type: 'string', value: 'TIME', help: 'an RFC 3339 instant (default: now on the service clock)' }, ...common },
    },
    run: (args) => show(args, `/v1/bo/reports/trial-balance${text(args, 'as-of') ? `?as_of=${encodeURIComponent(text(args, 'as-of'))}` : ''}`, trialBalanceTable),
  },
  {
    words: ['receiving-account'],
    spec: {
      usage: 'satang report receiving-account', summary: "A withdrawing merchant's beneficiary accounts: what payers were told to send there, the verified slips and the fills, and each leg where they differ with its reason.",
      options: {
        merchant: { type: 'string', value: 'ID', required: true, help: 'the withdrawing merchant (mch_…)' },
        sandbox: { type: 'boolean', help: 'the sandbox ledger instead of live' },
        ...common,
      },
    },
    run: (args) => show(args, `/v1/bo/reports/receiving-accounts?merchant_id=${encodeURIComponent(text(args, 'merchant'))}&livemode=${!flag(args, 'sandbox')}`, receivingTable),
  },
];

export async function reportCommand(argv: readonly string[]): Promise<number> {
  return dispatch('report', 'Finance reports from the back office (role finance): a table, or the CSV with --csv.', subcommands, argv);
}
