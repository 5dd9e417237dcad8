// `satang reconcile --key sk_… [--since-sequence N] --store FILE`: the daily reconciliation
// job the contract makes mandatory for merchants, and its reference implementation. It
// reads GET /v1/pay/events from the last sequence it saw (or from the first gap it still
// waits on), stores every event by id in FILE (JSON, written whole and renamed into place,
// 0600), and reports (rules in core/finance/reconcile.ts):
//   - sequence gaps: pending while the event after the gap is under 4 days old on the
//     service clock (as_of of GET /v1/pay/balance), lost after; the ranges the feed says a
//     restore skipped (coverage.skipped, kept in FILE) are none;
//   - balance-transaction sums against GET /v1/pay/balance (when the store holds every
//     event from sequence 1 and no gap);
//   - the latest stored snapshot of the orders this run saw against a GET of each (the
//     sandbox's out-of-order replay names test orders that have events only: counted apart).
// Exit 0 when nothing is lost and nothing disagrees (pending gaps are normal), 1 when
// something is lost or disagrees, 2 on a usage error.

import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { balanceTransactionSums, isReplayTestOrder, latestSnapshots, openingBalance, sequenceGaps, snapshotDisagreement, type SequenceGap, type SkippedRange, type StoredEvent } from '../../core/finance/reconcile.ts';
import { bahtOf } from '../../core/finance/money-text.ts';
import { financeLimits } from '../../core/limits.ts';
import { signRequest } from '../../server/hmac.ts';
import { fetchOrRefuse, notSatang } from './reach.ts';
import { exitFailed, exitOk, flag, parseCommand, text, usageError, type Args, type CommandSpec, urlOption } from './args.ts';

const apiVersion = '2026-08-01';
const storeFormat = 'satang-reconcile-store/1';
const pageLimit = 200;

export const reconcileSpec: CommandSpec = {
  usage: 'satang reconcile',
  summary: 'Reads GET /v1/pay/events since the last sequence seen, stores the events by id, and reports sequence gaps (pending under 4 days, lost after), balance-transaction sums against the balance, and orders whose latest event disagrees with a GET. Exit 1 when anything is lost or disagrees.',
  options: {
    key: { type: 'string', value: 'SK', secret: true, help: 'the secret API key (sk_…; $SATANG_API_KEY) with wallet:read and withdrawals:read (the events feed needs both)' },
    'since-sequence': { type: 'string', value: 'N', default: '0', integer: true, min: 0, help: 'where a new store starts (events after N); a store continues from what it holds' },
    store: { type: 'string', value: 'FILE', required: true, help: 'the JSON file the events are kept in (created if missing)' },
    url: urlOption,
    json: { type: 'boolean', help: 'print the report as JSON instead of text' },
  },
  notes: ['example: scripts/satang reconcile --key $KEY --store reconcile-live.json   (run daily; keep the file)'],
};

interface Store {
  readonly format: typeof storeFormat;
  /** The sequence the store started after: events at or below it are not expected. */
  base_sequence: number;
  merchant_id: string | null;
  events: Record<string, StoredEvent>;
  /** The ranges the feed said a restore skipped (no event ever held one); absent in a store from before them. */
  skipped?: SkippedRange[];
}

function loadStore(path: string, since: number): Store {
  if (!existsSync(path)) return { format: storeFormat, base_sequence: since, merchant_id: null, events: {} };
  const store = JSON.parse(readFileSync(path, 'utf8')) as Store;
  if (store.format !== storeFormat) throw new Error(`${path} is not a reconcile store (format ${String(store.format)})`);
  return store;
}

function saveStore(path: string, store: Store): void {
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, JSON.stringify(store), { mode: 0o600 });
  renameSync(temporary, path);
}

class Api {
  constructor(private readonly base: string, private readonly key: string) {}
  async get(pathWithQuery: string): Promise<{ status: number; json: any }> {
    const [path = '', query = ''] = pathWithQuery.split('?');
    const headers = signRequest({ secret: this.key, method: 'GET', path, query, body: '', version: apiVersion });
    const url = this.base + pathWithQuery;
    const r = await fetchOrRefuse(url, { headers });
    const body = await r.text();
    let json: any = null;
    try { json = JSON.parse(body); } catch { /* said below */ }
    // Not satang's JSON (another server's HTML 404, a proxy's empty answer): said as such, not as a missing field later.
    if (json === null || (r.status !== 200 && typeof json.error?.code !== 'string')) throw notSatang(url, r.status, r.headers.get('content-type'));
    if (r.status !== 200 && r.status !== 404) throw new Error(`GET ${path}: HTTP ${r.status} ${body.slice(0, 300)}`);
    return { status: r.status, json };
  }
}

/**
 * What the feed says retention has deleted (events at or below min_since_sequence may be
 * gone), and the ranges in or right after the page that a restore skipped (never an event).
 */
interface Coverage {
  readonly retention_days: number; readonly min_since_sequence: number;
  readonly skipped?: readonly { readonly from_sequence: number; readonly to_sequence: number; readonly reason: string }[];
}

/** Reads the feed after `since` to its end; returns the events read, the feed's last coverage and every page's skipped ranges. */
async function readFeed(api: Api, since: number): Promise<{ events: StoredEvent[]; coverage: Coverage; skipped: SkippedRange[] }> {
  const read: StoredEvent[] = [];
  const skipped: SkippedRange[] = [];
  let next = since;
  for (let page = 0; page < financeLimits.reconcilePagesPerRunMax; page++) {
    const r = await api.get(`/v1/pay/events?since_sequence=${next}&limit=${pageLimit}`);
    read.push(...(r.json.data as StoredEvent[]));
    const coverage = r.json.coverage as Coverage;
    for (const s of coverage.skipped ?? []) skipped.push({ from: s.from_sequence, to: s.to_sequence });
    next = Number(r.json.next_sequence);
    if (!r.json.has_more) return { events: read, coverage, skipped };
  }
  throw new Error(`the events feed did not end within ${financeLimits.reconcilePagesPerRunMax} pages; run again to continue`);
}

interface ObjectCheck { readonly id: string; readonly problem: string }

async function checkObjects(api: Api, snapshots: Map<string, Record<string, unknown>>, touched: ReadonlySet<string>): Promise<{ checked: number; testOrders: number; problems: ObjectCheck[] }> {
  const problems: ObjectCheck[] = [];
  let checked = 0, testOrders = 0;
  for (const id of touched) {
    const stored = snapshots.get(id);
    if (!stored || checked >= financeLimits.reconcileObjectsCheckedMax) continue;
    checked++;
    const path = stored.object === 'deposit_order' ? `/v1/pay/deposits/${id}` : `/v1/pay/withdrawals/${id}`;
    const r = await api.get(path);
    if (r.status === 404 && isReplayTestOrder(stored)) { testOrders++; continue; }
    if (r.status === 404) { problems.push({ id, problem: 'GET answers 404 for an order the events name' }); continue; }
    const problem = snapshotDisagreement(stored, r.json);
    if (problem) problems.push({ id, problem });
  }
  return { checked, testOrders, problems };
}

function hours(ms: number): string {
  return ms >= 86_400_000 ? `${Math.floor(ms / 86_400_000)} d ${Math.floor((ms % 86_400_000) / 3_600_000)} h` : `${Math.floor(ms / 3_600_000)} h ${Math.floor((ms % 3_600_000) / 60_000)} min`;
}

interface Report {
  merchant_id: string | null; livemode: boolean; as_of: string; read_from_sequence: number; events_read: number; new_events: number; stored_events: number;
  /** The feed no longer holds the store's last event at its sequence (a restore reused the sequences): nothing read is kept. */
  /** feed_next_sequence: when the feed holds no event at store_sequence, the first it holds after it (null: it ends before it). */
  feed_rewound: { store_sequence: number; store_event_id: string; feed_event_id: string | null; feed_next_sequence: number | null } | null;
  last_sequence: number; gaps: SequenceGap[];
  /** The ranges the store holds as skipped by a restore (the feed's coverage.skipped): no gap. */
  skipped: SkippedRange[];
  /** The feed's coverage: events at or below min_since_sequence were deleted after `days`; a new store starts after it. */
  retention: { days: number; min_since_sequence: number; store_starts_after_it: boolean };
  /** opening: when the store began after the first event, the balance its sums start from (the first balance transaction's balance_after less its movement). */
  balance: { checked: boolean; reason?: string; opening?: Record<string, string>; events_sum?: Record<string, string>; balance?: Record<string, string>; agrees?: boolean };
  /** test_orders: orders of the sandbox's out-of-order replay, events only (their GET answers 404 by design). */
  objects: { checked: number; named: number; test_orders: number; disagreements: ObjectCheck[] };
  ok: boolean;
}

function printText(r: Report, storePath: string): void {
  const out: string[] = [];
  out.push(`reconcile ${r.merchant_id ?? '(no events yet)'} ${r.livemode ? 'live' : 'sandbox'} as of ${r.as_of}`);
  out.push(`events: read ${r.events_read} after sequence ${r.read_from_sequence} (${r.new_events} new); ${r.stored_events} stored in ${storePath}; last sequence ${r.last_sequence}`);
  if (r.feed_rewound) {
    const f = r.feed_rewound;
    const holds = f.feed_event_id ? `it holds ${f.feed_event_id} there` : f.feed_next_sequence !== null ? `it holds none there; its next is ${f.feed_next_sequence}` : 'it ends before it';
    out.push(`events: the feed no longer holds this store's event ${f.store_event_id} at sequence ${f.store_sequence} (${holds}): the service was restored from a backup taken before it (the events after the backup are lost, listed in the operators' restore-lost.json; the feed goes on past them, the sequences between a gap that never held an event), or the store is another merchant's or mode's. Nothing was read into it; keep it aside and start a new store (--store)`);
  }
  if (r.gaps.length === 0) out.push('sequence gaps: none');
  for (const s of r.skipped) out.push(`sequences ${s.from}–${s.to}: skipped by a restore of the service (the feed says no event ever held them): no gap`);
  if (r.retention.store_starts_after_it) out.push(`retention: the feed keeps ${r.retention.days} days; events up to sequence ${r.retention.min_since_sequence} were deleted before this store began, so it starts after them`);
  for (const g of r.gaps) {
    const deleted = g.from <= r.retention.min_since_sequence ? `; the feed deleted events up to ${r.retention.min_since_sequence} after ${r.retention.days} days, before this store read them` : '';
    out.push(`sequence gap ${g.from}${g.to > g.from ? `–${g.to}` : ''}: ${g.state === 'lost' ? 'LOST' : 'pending'} (the event after it is ${hours(g.ageMs)} old; lost after 4 d${deleted})`);
  }
  if (!r.balance.checked) out.push(`balance: not checked (${r.balance.reason})`);
  else {
    const from = r.balance.opening ? ` from the balance before the store's first balance transaction (${buckets(r.balance.opening)})` : '';
    out.push(`balance: events sum to ${buckets(r.balance.events_sum!)}${from}; GET /v1/pay/balance ${r.balance.agrees ? 'agrees' : `DISAGREES: it says ${buckets(r.balance.balance!)}`}`);
  }
  const testOrders = r.objects.test_orders > 0 ? ` (${r.objects.test_orders} of them test orders of the out-of-order replay: events only, no GET)` : '';
  const unchecked = r.objects.named > r.objects.checked ? ` (of ${r.objects.named} the new events name: at most ${financeLimits.reconcileObjectsCheckedMax} a run)` : '';
  out.push(`orders: ${r.objects.checked} checked against GET${unchecked}${testOrders}, ${r.objects.disagreements.length === 0 ? 'all agree' : `${r.objects.disagreements.length} DISAGREE`}`);
  for (const d of r.objects.disagreements) out.push(`  ${d.id}: ${d.problem}`);
  out.push(`result: ${r.ok ? 'OK' : 'FAILED'}`);
  process.stdout.write(out.join('\n') + '\n');
}

/** The three buckets for a person, in baht as every table prints them: 'available 1234.56, pending_clearing 0.00, reserved 0.00 THB' (--json keeps the satang). */
function buckets(b: Record<string, string>): string {
  return `${['available', 'pending_clearing', 'reserved'].map((k) => `${k} ${bahtOf(BigInt(b[`${k}_minor`]!))}`).join(', ')} THB`;
}

export async function reconcileCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(reconcileSpec, argv);
  if (typeof args === 'number') return args;
  const key = text(args, 'key') || (process.env.SATANG_API_KEY ?? '');
  if (!key) return usageError(reconcileSpec, '--key is required (or set SATANG_API_KEY)');
  const since = Number(text(args, 'since-sequence'));
  if (since < 0) return usageError(reconcileSpec, '--since-sequence must be 0 or more');
  // A refused or failed request (403 scope_denied, the server down) is a failed run (1), not a usage error (2).
  try {
    return await reconcile(args, key, since);
  } catch (error) {
    process.stderr.write(`satang reconcile: ${(error as Error).message}\n`);
    return exitFailed;
  }
}

async function reconcile(args: Args, key: string, since: number): Promise<number> {
  const storePath = text(args, 'store');
  const api = new Api(text(args, 'url'), key);
  const store = loadStore(storePath, since);

  const held = Object.values(store.events);
  const lastSequence = held.reduce((m, e) => Math.max(m, e.sequence), store.base_sequence);
  const openGaps = sequenceGaps(store.base_sequence, held, 0, store.skipped);
  const start = openGaps.length > 0 ? openGaps[0]!.from - 1 : lastSequence;
  // The store's event at `start` is read again: the feed must still hold it there, or its
  // sequences are no longer this store's (the service was restored from a backup taken
  // before it: the event is lost, and the feed goes on past a jump, never reusing its sequence).
  const anchor = start > store.base_sequence ? held.find((e) => e.sequence === start) : undefined;
  const { events: fetched, coverage, skipped } = await readFeed(api, anchor ? start - 1 : start);
  const rewound = anchor !== undefined && (fetched[0]?.sequence !== anchor.sequence || fetched[0]?.id !== anchor.id)
    ? { store_sequence: anchor.sequence, store_event_id: anchor.id, feed_event_id: fetched[0]?.sequence === anchor.sequence ? fetched[0].id : null,
      feed_next_sequence: fetched[0] === undefined || fetched[0].sequence === anchor.sequence ? null : fetched[0].sequence } : null;
  // Read past a rewind, events would sit beside others of the same sequence: none is kept.
  const read = rewound ? [] : anchor ? fetched.slice(1) : fetched;
  // A new store cannot hold what retention deleted before it began: it starts after the feed's floor.
  const startsAfterRetention = held.length === 0 && coverage.min_since_sequence > store.base_sequence;
  if (startsAfterRetention) store.base_sequence = coverage.min_since_sequence;
  // A range is kept once (by its first sequence), with the store's events, unless the feed rewound.
  if (!rewound) for (const s of skipped) if (!(store.skipped ?? []).some((k) => k.from === s.from)) (store.skipped ??= []).push(s);
  let added = 0;
  const touched = new Set<string>();
  for (const e of read) {
    store.merchant_id ??= (e as unknown as { account?: { merchant_id?: string } }).account?.merchant_id ?? null;
    if (e.sequence <= store.base_sequence) continue; // still shown by the feed, but before the store's start
    if (!store.events[e.id]) { store.events[e.id] = e; added++; }
    const o = e.data.object;
    if ((o.object === 'deposit_order' || o.object === 'withdrawal_order') && typeof o.id === 'string') touched.add(o.id);
  }
  saveStore(storePath, store);

  const balance = (await api.get('/v1/pay/balance')).json;
  const nowMs = Date.parse(balance.as_of);
  const events = Object.values(store.events);
  const gaps = sequenceGaps(store.base_sequence, events, nowMs, store.skipped);
  const report: Report = {
    merchant_id: store.merchant_id, livemode: balance.livemode !== false, as_of: balance.as_of, read_from_sequence: start, events_read: read.length, new_events: added, feed_rewound: rewound,
    stored_events: events.length, last_sequence: events.reduce((m, e) => Math.max(m, e.sequence), store.base_sequence), gaps, skipped: store.skipped ?? [],
    retention: { days: coverage.retention_days, min_since_sequence: coverage.min_since_sequence, store_starts_after_it: startsAfterRetention },
    balance: { checked: false }, objects: { checked: 0, named: 0, test_orders: 0, disagreements: [] }, ok: true,
  };
  // A store that began after the first event sums from the balance before its first balance transaction.
  const opening = store.base_sequence === 0 ? undefined : openingBalance(events);
  if (gaps.length > 0) report.balance = { checked: false, reason: 'sequence gaps: the sums would be short' };
  else if (opening === null) report.balance = { checked: false, reason: `the store starts after sequence ${store.base_sequence} and holds no balance transaction yet` };
  else {
    const sums = balanceTransactionSums(events, opening);
    const asText = (o: object) => Object.fromEntries(['available_minor', 'pending_clearing_minor', 'reserved_minor'].map((k) => [k, String((o as Record<string, unknown>)[k])]));
    const agrees = (['available_minor', 'pending_clearing_minor', 'reserved_minor'] as const).every((k) => sums[k] === BigInt(balance[k]));
    report.balance = { checked: true, ...(opening ? { opening: asText(opening) } : {}), events_sum: asText(sums), balance: asText(balance), agrees };
  }
  const objects = await checkObjects(api, latestSnapshots(events), touched);
  report.objects = { checked: objects.checked, named: touched.size, test_orders: objects.testOrders, disagreements: objects.problems };
  report.ok = rewound === null && !gaps.some((g) => g.state === 'lost') && report.balance.agrees !== false && objects.problems.length === 0;
  if (flag(args, 'json')) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  else printText(report, storePath);
  return report.ok ? exitOk : exitFailed;
}
