// `satang certify` when the server says no, run as a user runs it (child processes of
// scripts/satang against a real server on the manual clock, real HTTP, no mocks): a poll
// refused 429 because the key's read quota is spent is waited out as the answer asks and
// the outcome still printed; a refusal that outlasts --wait, and a refused start, are said
// with their code and message (never "undefined"), exit 1; a --wait that is not a number
// of seconds is a usage error before anything is asked.
//
// The quota is spent from here, through the key's own signed GETs; the security clock
// (the one rate-limit windows run on) is held a few seconds before the window ends, so the
// CLI's polls are refused for as long as this spec wants, whatever the machine's speed.

import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rateLimitPolicies } from '../../server/rate-limit.ts';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { addEndpoint, Receiver } from '../webhooks/support.ts';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
const exitWaitMs = 120_000;
/** At most this many seconds of the read window are left when the security clock is held. */
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
let env: Record<string, string>;
test.before(async () => {
  s = await TestServer.start();
  s.clock.set(Date.now()); // the CLI signs on the wall clock
  env = { SATANG_DATA_DIR: s.dataDir, SATANG_BASE_URL: s.url, SATANG_LOG_LEVEL: 'silent' };
});
test.after(async () => { await s.stop(); await Receiver.stopAll(); });

/** A merchant whose sandbox endpoint verifies signatures, as certification wants. */
async function certifiable(name: string): Promise<MerchantKeys> {
  const shop = await s.onboard(name);
  const receiver = await Receiver.start(() => s.clock.now());
  receiver.verifyAgainst(s);
  await addEndpoint(s, shop.id, receiver.url, false);
  return shop;
}

/** Spends the sandbox key's read quota (GETs, a few at a time) until one is refused; that 429. */
async function spendReadQuota(shop: MerchantKeys): Promise<{ retryAfterSeconds: number }> {
  const width = 20;
  for (let sent = 0; sent <= rateLimitPolicies.pay_read.limit; sent += width) {
    const replies = await Promise.all(Array.from({ length: width }, () => s.call(shop.sandbox.api_key, 'GET', '/v1/pay/balance')));
    const refused = replies.find((r) => r.status === 429);
    if (refused) return { retryAfterSeconds: refused.json.error.retry_after_seconds };
  }
  throw new Error('the read quota was never spent');
}

test('a poll refused 429 (the key\'s read quota spent) is waited out as asked, and certify still prints the outcome', async () => {
  const shop = await certifiable('Busy reader');
  const { retryAfterSeconds } = await spendReadQuota(shop);
  s.securityClock.advance((retryAfterSeconds - windowLeftSecondsMax) * 1000);
  s.securityClock.hold();
  // What a refused poll is asked to wait while the clock is held (a refusal does not count).
  const asked = (await s.call(shop.sandbox.api_key, 'GET', '/v1/pay/balance')).json.error.retry_after_seconds;
  assert.ok(asked >= 1 && asked <= windowLeftSecondsMax, `${asked}`);
  let released = false;
  const r = await satang(['certify', '--key', shop.sandbox.api_key], env, (stderr) => {
    // Refused twice, each waited out: then the window ends and the next poll is answered.
    if (released || (stderr.match(/GET \/v1\/test\/certification → 429 rate_limited/g) ?? []).length < 2) return;
    released = true;
    s.securityClock.release();
    s.securityClock.advance(windowLeftSecondsMax * 1000);
  });
  if (!released) s.securityClock.release();
  assert.ok(released, `the polls were refused: ${r.stderr}`);
  assert.match(r.stderr, new RegExp(`GET /v1/test/certification → 429 rate_limited: \\S.*; asking again in ${asked} s`), 'the wait the answer asked for');
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /certification cert_[0-9A-Z]+: passed/);
  for (const check of ['10300', '10800', '10900', '11600', 'out_of_order', 'signature']) assert.match(r.stdout, new RegExp(`${check}\\s+passed`));
  assert.not.match(r.stdout, / +$/m, 'no line ends in spaces (a passed check has nothing after its status)');
  assert.not.match(r.stdout + r.stderr, /undefined|not iterable/);
});

test('a refusal that outlasts --wait is said with its code and message and the run it started, exit 1', async () => {
  const shop = await certifiable('Still busy');
  const { retryAfterSeconds } = await spendReadQuota(shop);
  assert.ok(retryAfterSeconds > 10, `the window has time left: ${retryAfterSeconds} s`);
  const r = await satang(['certify', '--key', shop.sandbox.api_key, '--wait', '3'], env);
  assert.is(r.code, 1, r.stderr + r.stdout);
  assert.match(r.stderr, /GET \/v1\/test\/certification → 429 rate_limited: \S/);
  assert.match(r.stderr, /certification cert_[0-9A-Z]+ started on the server, but its outcome could not be read/);
  assert.not.match(r.stdout + r.stderr, /undefined|not iterable/);
});

test('a refused start says its code and message, exit 1; a --wait that is no number of seconds is a usage error', async () => {
  const shop = await s.onboard('No endpoint');
  const r = await satang(['certify', '--key', shop.sandbox.api_key], env);
  assert.is(r.code, 1, r.stderr + r.stdout);
  assert.match(r.stderr, /^POST \/v1\/test\/certification → 409 operation_not_allowed: \S/m);
  assert.not.match(r.stdout + r.stderr, /undefined/);
  const before = s.running.store.world.lastSeq;
  const wait = await satang(['certify', '--key', shop.sandbox.api_key, '--wait', 'soon'], env);
  assert.is(wait.code, 2, wait.stdout);
  assert.match(wait.stderr, /--wait must be a whole number of seconds/);
  assert.is(s.running.store.world.lastSeq, before, 'nothing was asked of the server');
});

test.run();
