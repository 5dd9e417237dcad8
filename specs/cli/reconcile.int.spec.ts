// `satang reconcile` run as a merchant runs it (a child process, real HMAC signatures)
// against a real server with real money movements: funding, a withdrawal filled by another
// merchant's deposit, its cancellation. Between the CLI and the server sits an HTTP proxy
// that can withhold chosen events from GET /v1/pay/events, as a lost delivery would.
// - a clean run finds no gap, the balance-transaction sums equal GET /v1/pay/balance, every
//   order agrees with its GET, exit 0; a second run reads nothing new;
// - a store begun at any later sequence sums from the balance before its first balance
//   transaction (its balance_after less its movement) and agrees too;
// - a withheld event is a pending gap (exit 0, balance not summed), still pending after 3
//   days on the service clock, lost after 4 (exit 1); once the feed serves it again the
//   gap closes and the sums agree (exit 0);
// - a withheld last event of an order shows as a disagreement with its GET (exit 1);
// - the sandbox's out-of-order replay's test order (events only, GET 404) is counted apart.

import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Command } from '../../core/handler/commands.ts';
import { merchantActor } from '../adapters/support.ts';
import { accepted, financeOperator as operator, payLeg } from '../support/finance.ts';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { addEndpoint, Receiver } from '../webhooks/support.ts';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
const dayMs = 86_400_000;

let s: TestServer;
let shop: MerchantKeys;
let dir: string;
let proxy: Server;
let proxyUrl: string;
/** Sequences the proxy leaves out of every events page. */
let withheld = new Set<number>();

function reconcile(args: readonly string[], key = shop.live.api_key): Promise<{ code: number | null; report: any; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(satangPath, ['reconcile', '--key', key, '--url', proxyUrl, ...args], { cwd: tmpdir(), env: { ...process.env, SATANG_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => {
      let report: any = null;
      try { report = JSON.parse(stdout); } catch { /* text mode */ }
      resolve({ code, report, stdout, stderr });
    });
  });
}

const ok = (c: Command) => accepted(s, c);

/** Funding, a withdrawal of `shop` filled by another merchant's paid deposit, a second withdrawal canceled. */
async function moveMoney(): Promise<{ canceledId: string }> {
  const payer = await s.onboard('Payer', shop.whiteLabelId);
  await s.fund(shop.id, 1_000_000);
  const beneficiaryId = await ok({ type: 'RegisterBeneficiary', actor: operator, merchantId: shop.id, livemode: true, bankCode: '004', accountNumber: '7000000001', accountNameTh: 'สมหญิง รักดี', verified: true });
  const withdraw = (amount: bigint) => ok({ type: 'CreateWithdrawal', actor: merchantActor(shop.id), amountMinor: amount, merchantReference: `w-${randomUUID()}`, endUserRef: 'payee', beneficiaryId, requiresApproval: false, p2pMinimumApplies: false });
  await withdraw(100_000n);
  const depositId = await ok({ type: 'CreateDeposit', actor: merchantActor(payer.id), amountMinor: 50_000n, merchantReference: `d-${randomUUID()}`, endUserRef: 'u-1', sender: { bankCode: '014', accountNumber: '9876543210', accountNameTh: 'สมชาย ใจดี' }, hasClientData: true });
  await payLeg(s, depositId, 0, s.running.store.world.deposits.get(depositId)!.legs[0]!.amountMinor);
  const canceledId = await withdraw(30_000n);
  await s.running.services.write.advanceClock!(60_000);
  await ok({ type: 'CancelWithdrawal', actor: merchantActor(shop.id), withdrawalId: canceledId });
  return { canceledId };
}

/** The live events of `shop`, as the feed serves them. */
async function feed(): Promise<any[]> {
  const r = await s.call(shop.live.api_key, 'GET', '/v1/pay/events?since_sequence=0&limit=200');
  assert.is(r.status, 200, r.text);
  return r.json.data;
}

test.before(async () => {
  s = await TestServer.start();
  shop = await s.onboard('ร้านกระทบยอด');
  dir = mkdtempSync(join(tmpdir(), 'satang-reconcile-'));
  proxy = createServer(async (req, res) => {
    const upstream = await fetch(s.url + req.url, { headers: Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'connection').map(([k, v]) => [k, String(v)])) });
    let body = await upstream.text();
    if (req.url!.startsWith('/v1/pay/events') && upstream.status === 200) {
      const page = JSON.parse(body);
      page.data = page.data.filter((e: any) => !withheld.has(e.sequence));
      body = JSON.stringify(page);
    }
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  proxyUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
test.after(async () => {
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

let canceledId = '';

test('a clean run: no gap, the balance transactions sum to the balance, every order agrees with its GET; a second run reads nothing new', async () => {
  ({ canceledId } = await moveMoney());
  const events = await feed();
  assert.ok(events.length >= 8, `events: ${events.length}`);
  const store = join(dir, 'clean.json');
  const first = await reconcile(['--store', store, '--json']);
  assert.is(first.code, 0, first.stdout + first.stderr);
  assert.equal(first.report.gaps, []);
  assert.is(first.report.new_events, events.length);
  assert.ok(first.report.balance.checked);
  assert.ok(first.report.balance.agrees);
  const balance = (await s.call(shop.live.api_key, 'GET', '/v1/pay/balance')).json;
  assert.equal(first.report.balance.events_sum, { available_minor: String(balance.available_minor), pending_clearing_minor: String(balance.pending_clearing_minor), reserved_minor: String(balance.reserved_minor) });
  assert.ok(first.report.objects.checked >= 2);
  assert.is(first.report.objects.named, first.report.objects.checked, 'every order the new events name, under the cap of a run');
  assert.equal(first.report.objects.disagreements, []);
  assert.is((statSync(store).mode & 0o777), 0o600, 'the store is private');
  const again = await reconcile(['--store', store]);
  assert.is(again.code, 0, again.stdout);
  assert.match(again.stdout, /read 0 after sequence \d+ \(0 new\)/);
  assert.match(again.stdout, /sequence gaps: none/);
  assert.match(again.stdout, /GET \/v1\/pay\/balance agrees/);
  // For a person, the sums in baht with their buckets' names, as every table prints money (not the JSON's satang strings).
  const inBaht = (minor: number) => `${Math.trunc(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
  assert.ok(again.stdout.includes(`balance: events sum to available ${inBaht(balance.available_minor)}, pending_clearing ${inBaht(balance.pending_clearing_minor)}, reserved ${inBaht(balance.reserved_minor)} THB;`), again.stdout);
  assert.match(again.stdout, /result: OK/);
});

test('a feed that no longer holds the store\'s last event at its sequence (a restore reused the sequences; another merchant\'s key): said, nothing read into the store, exit 1', async () => {
  const store = join(dir, 'clean.json');
  const before = readFileSync(store, 'utf8');
  const last = Math.max(...Object.values(JSON.parse(before).events as Record<string, { sequence: number }>).map((e) => e.sequence));
  const other = await s.onboard('Another shop, a shorter feed');
  await s.fund(other.id, 10_000);
  const r = await reconcile(['--store', store, '--json'], other.live.api_key);
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.is(r.report.feed_rewound.store_sequence, last);
  assert.is(r.report.new_events, 0);
  assert.is(readFileSync(store, 'utf8'), before, 'the store is left as it was');
  const text = await reconcile(['--store', store], other.live.api_key);
  assert.match(text.stdout, /the feed no longer holds this store's event evt_\w+ at sequence \d+ \(it ends before it\)/);
  assert.match(text.stdout, /start a new store/);
});

test('a store that begins later (--since-sequence) sums from the balance before its first balance transaction, and agrees', async () => {
  const events = await feed();
  const last = events[events.length - 1].sequence;
  const balance = (await s.call(shop.live.api_key, 'GET', '/v1/pay/balance')).json;
  let checked = 0;
  for (let since = 1; since < last; since++) {
    const r = await reconcile(['--store', join(dir, `since-${since}.json`), '--since-sequence', String(since), '--json']);
    assert.is(r.code, 0, `since ${since}: ${r.stdout}${r.stderr}`);
    const later = events.filter((e) => e.sequence > since && e.data.object.object === 'balance_transaction');
    if (later.length === 0) {
      assert.is(r.report.balance.checked, false, `since ${since}: nothing to start from`);
      continue;
    }
    const first = later[0].data.object;
    assert.ok(r.report.balance.checked && r.report.balance.agrees, `since ${since}: ${JSON.stringify(r.report.balance)}`);
    assert.equal(r.report.balance.events_sum, { available_minor: String(balance.available_minor), pending_clearing_minor: String(balance.pending_clearing_minor), reserved_minor: String(balance.reserved_minor) });
    assert.ok(r.report.balance.opening, `since ${since}: the opening is reported`);
    if (first.bucket_to === 'available' && first.bucket_from === null) {
      assert.is(r.report.balance.opening.available_minor, String(first.balance_after.available_minor - first.amount_minor), 'a credit to available: its balance_after less its amount');
    }
    checked++;
  }
  assert.ok(checked >= 5, `stores checked from a later start: ${checked}`);
});

test('a withheld event is a pending gap, still pending after 3 days, lost after 4 (exit 1); served again, the gap closes', async () => {
  const events = await feed();
  // An event in the middle whose order has later events (its latest snapshot is still served).
  const created = events.find((e) => e.type === 'withdrawal.created' && e.data.object.id === canceledId)!;
  withheld = new Set([created.sequence]);
  const store = join(dir, 'withheld.json');
  const run1 = await reconcile(['--store', store, '--json']);
  assert.is(run1.code, 0, run1.stdout + run1.stderr);
  assert.equal(run1.report.gaps.map((g: any) => [g.from, g.to, g.state]), [[created.sequence, created.sequence, 'pending']]);
  assert.is(run1.report.balance.checked, false, 'no sums over a gap');
  await s.running.services.write.advanceClock!(3 * dayMs);
  const run2 = await reconcile(['--store', store, '--json']);
  assert.is(run2.code, 0);
  assert.is(run2.report.gaps[0].state, 'pending', 'three days: still pending');
  await s.running.services.write.advanceClock!(1 * dayMs + 60_000);
  const run3 = await reconcile(['--store', store]);
  assert.is(run3.code, 1, run3.stdout);
  assert.match(run3.stdout, new RegExp(`sequence gap ${created.sequence}: LOST`));
  assert.match(run3.stdout, /result: FAILED/);
  withheld = new Set();
  const run4 = await reconcile(['--store', store, '--json']);
  assert.is(run4.code, 0, run4.stdout);
  assert.equal(run4.report.gaps, []);
  assert.ok(run4.report.balance.agrees, 'with the gap closed the sums agree');
});

test("a withheld last event of an order disagrees with the order's GET (exit 1)", async () => {
  const events = await feed();
  const canceled = events.find((e) => e.type === 'withdrawal.canceled' && e.data.object.id === canceledId)!;
  withheld = new Set([canceled.sequence]);
  const r = await reconcile(['--store', join(dir, 'stale.json'), '--json']);
  withheld = new Set();
  assert.is(r.code, 1, r.stdout + r.stderr);
  const disagreement = r.report.objects.disagreements.find((d: any) => d.id === canceledId);
  assert.ok(disagreement, JSON.stringify(r.report.objects));
  assert.match(disagreement.problem, /status: events say open, GET says canceled/);
});

test("the sandbox's out-of-order replay names test orders with events only: counted apart, not a disagreement; a real sandbox order is still checked", async () => {
  const receiver = await Receiver.start(() => s.clock.now());
  try {
    await addEndpoint(s, shop.id, receiver.url, false); // the replay delivers to an enabled sandbox endpoint
    const replay = await s.call(shop.sandbox.api_key, 'POST', '/v1/test/webhooks/replay-out-of-order', { case: 'C' });
    assert.is(replay.status, 202, replay.text);
    assert.is((await s.call(shop.sandbox.api_key, 'GET', `/v1/pay/withdrawals/${replay.json.object_id}`)).status, 404, 'a test order has no GET');
    const real = await s.call(shop.sandbox.api_key, 'POST', '/v1/pay/deposits', { amount_minor: 25_000, currency: 'THB', merchant_reference: `sbx-${randomUUID()}`, end_user_ref: 'u-2',
      sender: { bank_code: '014', account_number: '9876543210', account_name_th: 'สมชาย ใจดี' } });
    assert.ok(real.status === 201 || real.status === 202, real.text);
    const r = await reconcile(['--store', join(dir, 'sandbox.json'), '--json'], shop.sandbox.api_key);
    assert.is(r.code, 0, r.stdout + r.stderr);
    assert.is(r.report.livemode, false);
    assert.is(r.report.objects.test_orders, 1);
    assert.is(r.report.objects.checked, 2, 'the test order and the real deposit');
    assert.equal(r.report.objects.disagreements, []);
    const text = await reconcile(['--store', join(dir, 'sandbox-text.json')], shop.sandbox.api_key);
    assert.match(text.stdout, /orders: 2 checked against GET \(1 of them test orders of the out-of-order replay: events only, no GET\), all agree/);
  } finally {
    await Receiver.stopAll();
  }
});

test('usage: --store is required, nothing is read without it', async () => {
  const child = spawn(satangPath, ['reconcile', '--key', shop.live.api_key], { cwd: tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.is(code, 2);
  assert.match(stderr, /--store is required/);
});

test('a key without the feed\'s scopes: the server\'s 403 scope_denied is a failed run (exit 1), not a usage error', async () => {
  const minted = await s.bo('POST', `/v1/bo/merchants/${shop.id}/keys`, { livemode: true, scopes: ['wallet:read'] }, { stepUp: true });
  assert.is(minted.status, 201, minted.text);
  const child = spawn(satangPath, ['reconcile', '--key', minted.json.api_key, '--url', s.url, '--store', join(dir, 'scoped.json')], { cwd: tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.is(code, 1, stderr);
  assert.match(stderr, /403[\s\S]*scope_denied/);
});

test.run();
