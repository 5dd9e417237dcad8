// `satang scenarios`, `satang trigger` and `satang certify` run as a user runs them: child
// processes of scripts/satang against a real server on the manual clock (set to the wall
// clock the CLI signs with), sharing its data directory so the CLI can mint the operator
// token that moves the clock. trigger prints the scenario's events in order; certify
// prints the pass/fail table and exits 0 on a pass. A deposit creation refused 429 (the
// key's write quota spent from here, the security clock held a few seconds before the
// window ends) is waited out as the answer asks, as certify waits out its polls; so is a
// last read of the events feed refused 429 (the key's read quota spent but one read), and
// one that cannot be read at all (the key revoked while it waits) is said on stderr, exit 1.

import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sandboxScenarios } from '../../core/sandbox/scenarios.ts';
import { rateLimitPolicies } from '../../server/rate-limit.ts';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { addEndpoint, Receiver } from '../webhooks/support.ts';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
const exitWaitMs = 120_000;
/** At most this many seconds of the write window are left when the security clock is held. */
const windowLeftSecondsMax = 3;

interface Ran { code: number | null; stdout: string; stderr: string }

/** Runs scripts/satang; `onStderr` sees its stderr as it comes. */
function satang(args: readonly string[], env: Record<string, string>, onStderr: (soFar: string) => void = () => {}): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(satangPath, args, { cwd: tmpdir(), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; onStderr(stderr); });
    const timer = setTimeout(() => child.kill('SIGKILL'), exitWaitMs);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

let s: TestServer;
let shop: MerchantKeys;
let env: Record<string, string>;
test.before(async () => {
  s = await TestServer.start();
  s.clock.set(Date.now()); // the CLI signs on the wall clock
  shop = await s.onboard('Shop');
  env = { SATANG_DATA_DIR: s.dataDir, SATANG_BASE_URL: s.url, SATANG_LOG_LEVEL: 'silent' };
});
test.after(async () => { await s.stop(); await Receiver.stopAll(); });

test('satang scenarios lists the seventeen amounts of the table', async () => {
  const r = await satang(['scenarios'], env);
  assert.is(r.code, 0, r.stderr);
  const amounts = r.stdout.trim().split('\n').map((line) => Number(line.split(/\s+/)[0]));
  assert.equal(amounts, sandboxScenarios.map((x) => x.amountMinor));
  assert.ok(r.stdout.includes('11600   same_slip_overpayment'));
});

test('satang trigger 10300 creates the deposit, moves the manual clock and prints settled then reversed', async () => {
  const r = await satang(['trigger', '10300', '--key', shop.sandbox.api_key], env);
  assert.is(r.code, 0, r.stderr + r.stdout);
  const types = [...r.stdout.matchAll(/ (deposit\.[a-z_]+) dep_/g)].map((m) => m[1]);
  assert.equal(types, ['deposit.created', 'deposit.matched', 'deposit.slip_received', 'deposit.settled', 'deposit.reversed'], r.stdout);
});

test('satang trigger pending_clearing (by name) shows the 402 of a withdrawal of 11300', async () => {
  const r = await satang(['trigger', 'pending_clearing', '--key', shop.sandbox.api_key], env);
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /POST \/v1\/pay\/withdrawals 11300 → 402 insufficient_balance/);
});

test('satang trigger refuses a live key and an unknown scenario before acting', async () => {
  const before = s.running.store.world.lastSeq;
  const live = await satang(['trigger', '10000', '--key', shop.live.api_key], env);
  assert.is(live.code, 2);
  // Said to be a live key, not sent off to set SATANG_API_KEY; the key itself not repeated.
  assert.match(live.stderr, /the key given is a live key \(sk_live_…\); this command takes the merchant's sandbox key \(sk_test_…/);
  assert.not.match(live.stderr, /SATANG_API_KEY/);
  assert.not.ok(live.stderr.includes(shop.live.api_key));
  const none = await satang(['trigger', '10000'], { ...env, SATANG_API_KEY: '' });
  assert.is(none.code, 2);
  assert.match(none.stderr, /--key is missing: give a sandbox key \(sk_test_…\), or set SATANG_API_KEY/);
  assert.is((await satang(['trigger', 'no_such_scenario', '--key', shop.sandbox.api_key], env)).code, 2);
  // An amount as the API writes it, or refused: not 1e4, 010000 or 10000.0 (taken for 10000, played as 'no scenario').
  for (const word of ['1e4', '010000', '10000.0', '+10000']) {
    const r = await satang(['trigger', word, '--key', shop.sandbox.api_key], env);
    assert.is(r.code, 2, `${word}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /neither a scenario name nor an amount/);
  }
  const seconds = await satang(['trigger', '10000', '--seconds', 'abc', '--key', shop.sandbox.api_key], env);
  assert.is(seconds.code, 2, seconds.stdout);
  assert.match(seconds.stderr, /--seconds must be a whole number/);
  assert.is(s.running.store.world.lastSeq, before, 'nothing was written');
  const forged = await satang(['trigger', '10000', '--key', `sk_test_${'x'.repeat(40)}`], env);
  assert.is(forged.code, 1);
  assert.match(forged.stderr, /GET \/v1\/pay\/events → 401 [a-z_]+: \S/, 'the refusal is named, with its message');
  assert.is(s.running.store.world.lastSeq, before, 'nothing was written');
});

test('satang trigger plays a scenario again while the last one\'s order is open (a sender of its own each time), printing only its own order\'s events', async () => {
  const runs = await Promise.all([0, 1].map(() => satang(['trigger', '10700', '--key', shop.sandbox.api_key, '--seconds', '5'], env)));
  const ids = runs.map((r) => {
    assert.is(r.code, 0, r.stderr + r.stdout);
    return /POST \/v1\/pay\/deposits → 201 (dep_\w+)/.exec(r.stdout)![1]!;
  });
  assert.is.not(ids[0], ids[1]);
  runs.forEach((r, i) => {
    const named = [...r.stdout.matchAll(/ deposit\.[a-z_]+ (dep_\w+)/g)].map((m) => m[1]);
    assert.ok(named.length >= 2, r.stdout);
    assert.ok(named.every((id) => id === ids[i]), `only its own deposit's events: ${r.stdout}`);
  });
});

test('satang certify runs certification and prints a passing table', async () => {
  const receiver = await Receiver.start(() => s.clock.now());
  receiver.verifyAgainst(s);
  await addEndpoint(s, shop.id, receiver.url, false);
  const r = await satang(['certify', '--key', shop.sandbox.api_key], env);
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /certification cert_[0-9A-Z]+: passed/);
  for (const check of ['10300', '10800', '10900', '11600', 'out_of_order', 'signature']) assert.match(r.stdout, new RegExp(`${check}\\s+passed`));
});

/** Spends the sandbox key's write quota (POSTs the schema refuses: nothing written) until one is refused; that 429. */
async function spendWriteQuota(keys: MerchantKeys): Promise<{ retryAfterSeconds: number }> {
  const width = 20;
  for (let sent = 0; sent <= rateLimitPolicies.pay_write.limit; sent += width) {
    const replies = await Promise.all(Array.from({ length: width }, () => s.call(keys.sandbox.api_key, 'POST', '/v1/pay/deposits', {})));
    const refused = replies.find((r) => r.status === 429);
    if (refused) return { retryAfterSeconds: refused.json.error.retry_after_seconds };
  }
  throw new Error('the write quota was never spent');
}

test('satang trigger waits out a deposit creation refused 429 (the key\'s write quota spent) as asked, then plays the scenario once', async () => {
  const busy = await s.onboard('Busy writer');
  const { retryAfterSeconds } = await spendWriteQuota(busy);
  s.securityClock.advance((retryAfterSeconds - windowLeftSecondsMax) * 1000);
  s.securityClock.hold();
  let released = false;
  const r = await satang(['trigger', '10000', '--key', busy.sandbox.api_key], env, (stderr) => {
    // Refused once and waited out: then the window ends and the next creation is answered.
    if (released || !/POST \/v1\/pay\/deposits → 429 rate_limited/.test(stderr)) return;
    released = true;
    s.securityClock.release();
    s.securityClock.advance(windowLeftSecondsMax * 1000);
  });
  if (!released) s.securityClock.release();
  assert.ok(released, `the creation was refused: ${r.stderr}${r.stdout}`);
  assert.match(r.stderr, /POST \/v1\/pay\/deposits → 429 rate_limited: \S.*; asking again in \d+ s/, 'the wait the answer asked for');
  assert.is(r.code, 0, r.stderr + r.stdout);
  const created = [...r.stdout.matchAll(/POST \/v1\/pay\/deposits → 201 (dep_\w+)/g)].map((m) => m[1]);
  assert.is(created.length, 1, r.stdout);
  const types = [...r.stdout.matchAll(/ (deposit\.[a-z_]+) dep_/g)].map((m) => m[1]);
  assert.equal(types, ['deposit.created', 'deposit.matched', 'deposit.slip_received', 'deposit.settled'], r.stdout);
  const list = await s.call(busy.sandbox.api_key, 'GET', '/v1/pay/deposits?limit=10');
  assert.equal(list.json.data.map((d: { id: string }) => d.id), created, 'one deposit: the retry kept its Idempotency-Key');
});

/**
 * Spends the sandbox key's read quota (GETs of its events) until one read is left, then
 * holds the security clock windowLeftSecondsMax before its window ends: trigger's first read
 * of the feed is answered, every read after it 429 until the clock moves on.
 */
async function spendReadQuotaButOne(keys: MerchantKeys): Promise<void> {
  const width = 20;
  let remaining: number = rateLimitPolicies.pay_read.limit;
  let resetSeconds = 0;
  while (remaining > 1) {
    const replies = await Promise.all(Array.from({ length: Math.min(width, remaining - 1) }, () => s.call(keys.sandbox.api_key, 'GET', '/v1/pay/events?limit=1')));
    for (const r of replies) assert.is(r.status, 200, r.text);
    remaining = Math.min(...replies.map((r) => Number(r.headers.get('ratelimit-remaining'))));
    resetSeconds = Math.min(...replies.map((r) => Number(r.headers.get('ratelimit-reset'))));
  }
  assert.is(remaining, 1);
  s.securityClock.advance(Math.max(0, resetSeconds - windowLeftSecondsMax) * 1000);
  s.securityClock.hold();
}

/** trigger's last read of the feed refused 429 and waited out, in its stderr. */
const lastReadWaited = /GET \/v1\/pay\/events\?since_sequence=\d+&limit=100 → 429 rate_limited: \S.*; asking again in \d+ s/;

test('satang trigger waits out its last read of the events feed refused 429 and prints every event of the scenario', async () => {
  const reader = await s.onboard('Busy reader');
  await spendReadQuotaButOne(reader);
  let released = false;
  const r = await satang(['trigger', '10000', '--key', reader.sandbox.api_key], env, (stderr) => {
    if (released || !lastReadWaited.test(stderr)) return;
    released = true;
    s.securityClock.release();
    s.securityClock.advance(windowLeftSecondsMax * 1000);
  });
  if (!released) s.securityClock.release();
  assert.ok(released, `the last read was not refused: ${r.stderr}${r.stdout}`);
  assert.is(r.code, 0, r.stderr + r.stdout);
  const types = [...r.stdout.matchAll(/ (deposit\.[a-z_]+) dep_/g)].map((m) => m[1]);
  assert.equal(types, ['deposit.created', 'deposit.matched', 'deposit.slip_received', 'deposit.settled'], r.stdout);
});

test('satang trigger says on stderr, exit 1, when the scenario\'s last events cannot be read (its key revoked while it waits out a 429)', async () => {
  const reader = await s.onboard('Revoked reader');
  await spendReadQuotaButOne(reader);
  let revoked: Promise<unknown> | undefined;
  const r = await satang(['trigger', '10000', '--key', reader.sandbox.api_key], env, (stderr) => {
    if (revoked || !lastReadWaited.test(stderr)) return;
    revoked = s.bo('POST', `/v1/bo/keys/${reader.sandbox.key_id}/revoke`, {}, { stepUp: true }).then((x) => assert.is(x.status, 200, x.text));
  });
  s.securityClock.release();
  assert.ok(revoked, `the last read was not refused: ${r.stderr}${r.stdout}`);
  await revoked;
  assert.is(r.code, 1, r.stderr + r.stdout);
  assert.match(r.stdout, /POST \/v1\/pay\/deposits → 201 dep_\w+/, 'the scenario was played');
  assert.match(r.stderr, /GET \/v1\/pay\/events → 401 api_key_revoked: \S/, 'why, by its code and message');
  assert.match(r.stderr, /its events from sequence \d+ on could not be read: scripts\/satang call GET '\/v1\/pay\/events\?since_sequence=\d+' --key … reads them/);
});

test.run();
