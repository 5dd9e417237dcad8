// What the CLI refuses before it sends anything, run as child processes against a real
// server sharing its data directory — each case checks the server saw nothing (the key still
// works, no key, merchant, journal entry or balance change):
// - a secret (sk_live_…, sk_test_…) where an id belongs (admin key revoke --key, bo logs
//   --key, a DEPOSIT_ID): exit 2, the secret not echoed (it went to the server in the path);
// - admin key create / merchant create --out FILE where FILE cannot be made (a regular file
//   as its directory): exit 1 before the key or merchant is made (they were made, then lost);
//   the same --idempotency-key with another --out gives the same key again (what a failed
//   write after the key was made tells the operator to do);
// - call POST --output into a directory that does not exist: exit 2, the POST not sent (it
//   moved money, then lost the answer); what call --output writes is 0600;
// - a number out of its option's bounds (--amount -5, --amount=-5, --amount 0, --limit 201,
//   --port 70000, --seconds past the year an advance may move): one line in one wording naming the unit and the bounds, exit 2 (parseArgs'
//   "ambiguous", or the server's generic 422);
// - with SATANG_OIDC_ISSUER the CLI mints nothing, even where a development issuer's key lies;
// and a retry of admin fund with the same --idempotency-key credits once.

import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { depositBody, TestServer, type MerchantKeys } from '../support/server-harness.ts';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));

let s: TestServer;
let shop: MerchantKeys;
let dir: string;
let env: Record<string, string>;

function satang(args: readonly string[], extra: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(satangPath, args, { cwd: tmpdir(), env: { ...process.env, ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const keyCount = async () => (await s.bo('GET', `/v1/bo/merchants/${shop.id}/keys`, undefined, { roles: ['ops_admin'] })).json.data.length as number;
const available = async () => (await s.call(shop.live.api_key, 'GET', '/v1/pay/balance')).json.available_minor as number;

test.before(async () => {
  s = await TestServer.start();
  s.clock.set(Date.now()); // the CLI signs and mints on the wall clock
  shop = await s.onboard('Shop');
  dir = mkdtempSync(join(tmpdir(), 'satang-before-sending-'));
  env = { SATANG_DATA_DIR: s.dataDir, SATANG_BASE_URL: s.url, SATANG_LOG_LEVEL: 'silent' };
});
test.after(async () => {
  await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a secret where an id belongs: exit 2, not echoed, nothing sent (the key still works)', async () => {
  const secret = shop.live.api_key;
  const cases: readonly [readonly string[], RegExp][] = [
    [['admin', 'key', 'revoke', '--key', secret], /--key was given something shaped like a secret .*: nothing was sent; give the key's id \(key_…/],
    [['bo', 'logs', '--key', shop.sandbox.api_key], /--key was given something shaped like a secret/],
    [['bo', 'show', secret], /DEPOSIT_ID was given something shaped like a secret/],
    [['admin', 'fund', '--merchant', secret, '--amount', '100'], /--merchant was given something shaped like a secret .*give the MCH_ID/],
  ];
  for (const [args, message] of cases) {
    const r = await satang(args);
    const label = args.slice(0, 3).join(' ');
    assert.is(r.code, 2, `${label}: ${r.stderr}`);
    assert.match(r.stderr, message, label);
    assert.not.ok(r.stderr.includes(secret) || r.stderr.includes(shop.sandbox.api_key), `${label} echoed the secret`);
    assert.is(r.stdout, '');
  }
  assert.is((await s.call(secret, 'GET', '/v1/pay/balance')).status, 200, 'the key was not revoked');
  // A key is still taken where a secret belongs.
  assert.is((await satang(['call', 'GET', '/v1/pay/balance', '--key', secret])).code, 0);
  // Signed as sent: a dot segment the URL parser resolves, and a Thai query value it percent-encodes.
  const dotted = await satang(['call', 'GET', '/v1/pay/x/%2e%2e/balance', '--key', secret]);
  assert.equal([dotted.code, dotted.stderr.trim()], [0, 'HTTP 200'], dotted.stdout + dotted.stderr);
  const thai = await satang(['call', 'GET', '/v1/pay/deposits?cursor=ใบสั่งซื้อ-1', '--key', secret]);
  assert.equal([thai.stderr.trim(), JSON.parse(thai.stdout).error.code], ['HTTP 422', 'validation_error'], 'the signature passed: the cursor is what is refused');
  // Pasted without --key, or as an option's name: parseArgs' own refusals quote what was typed; the key is not printed back.
  for (const args of [['call', 'GET', '/v1/pay/balance', secret], ['admin', 'key', 'revoke', secret], ['call', `--${secret}`], [secret]]) {
    const r = await satang(args);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.not.ok(r.stderr.includes(secret), `${args.join(' ').replace(secret, 'SECRET')} printed the key back: ${r.stderr.replace(secret, 'SECRET')}`);
  }
  // A local file named like a key is no key: it is never sent.
  const named = join(dir, 'sk_test_shop_key_file.json');
  const made = await satang(['admin', 'key', 'create', '--merchant', shop.id, '--sandbox', '--out', named]);
  assert.is(made.code, 0, made.stderr);
  assert.ok(existsSync(named));
});

test('SATANG_BASE_URL set empty is unset, as the server reads it: the CLI calls SATANG_HOST and SATANG_PORT', async () => {
  const port = new URL(s.url).port;
  const r = await satang(['call', 'GET', '/v1/pay/balance', '--key', shop.live.api_key], { SATANG_BASE_URL: '', SATANG_HOST: '127.0.0.1', SATANG_PORT: port });
  assert.is(r.code, 0, r.stderr);
});

test('--out FILE that cannot be made: refused before the key or the merchant is made', async () => {
  const notADir = join(dir, 'a-file');
  writeFileSync(notADir, 'x');
  const keys = await keyCount();
  const seq = s.running.store.world.lastSeq;
  const merchants = s.running.store.world.merchants.size;
  for (const args of [['admin', 'key', 'create', '--merchant', shop.id, '--out', join(notADir, 'key.json')], ['admin', 'merchant', 'create', '--name', 'Lost', '--out', join(notADir, 'shop.json')]]) {
    const r = await satang(args);
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stderr, /^cannot write .*a-file\/(key|shop)\.json \(.*\): nothing was made; name a file in a directory you can write \(--out\)\n$/);
    assert.is(r.stdout, '');
  }
  assert.is(await keyCount(), keys, 'no key made for nobody');
  assert.equal([s.running.store.world.lastSeq, s.running.store.world.merchants.size], [seq, merchants], 'no merchant, no white label');
  // A directory that can be made still is (0700), and the file written 0600.
  const file = join(dir, 'new', 'deeper', 'key.json');
  const ok = await satang(['admin', 'key', 'create', '--merchant', shop.id, '--out', file]);
  assert.is(ok.code, 0, ok.stderr);
  assert.is(statSync(file).mode & 0o777, 0o600);
  // What a failed write's message offers: the same --idempotency-key and another file give the same key again.
  const again = [join(dir, 'first.json'), join(dir, 'second.json')];
  const said: string[] = [];
  for (const out of again) {
    const r = await satang(['admin', 'key', 'create', '--merchant', shop.id, '--out', out, '--idempotency-key', 'key-once']);
    assert.is(r.code, 0, r.stderr);
    said.push(r.stderr);
  }
  assert.not.match(said[0]!, /replay/, 'the first was done');
  assert.match(said[1]!, /^\(replay\) the answer first given to Idempotency-Key key-once; nothing was done again$/m, 'the retry says it is a replay, as call does');
  const [first, second] = again.map((out) => JSON.parse(readFileSync(out, 'utf8')));
  assert.equal([second.key_id, second.api_key], [first.key_id, first.api_key]);
});

test('call POST --output into a directory that does not exist: nothing sent; what --output writes is 0600', async () => {
  const seq = s.running.store.world.lastSeq;
  const r = await satang(['call', 'POST', '/v1/pay/deposits', '--key', shop.live.api_key, '--data', JSON.stringify(depositBody()), '--output', join(dir, 'nonexistent', 'x.json')]);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /--output .*nonexistent\/x\.json cannot be written \(ENOENT.*\): nothing was sent/);
  assert.is(s.running.store.world.lastSeq, seq, 'no deposit made');
  const fresh = join(dir, 'balance.json');
  const kept = join(dir, 'was-0644.json');
  writeFileSync(kept, 'old');
  chmodSync(kept, 0o644);
  for (const file of [fresh, kept]) {
    const saved = await satang(['call', 'GET', '/v1/pay/balance', '--key', shop.live.api_key, '--output', file]);
    assert.is(saved.code, 0, saved.stderr);
    assert.is(statSync(file).mode & 0o777, 0o600, file);
  }
});

test('numbers: one wording for every number option, naming the unit and the bounds, exit 2, nothing sent; a retried fund with the same key credits once', async () => {
  const before = await available();
  const cases: readonly [readonly string[], string][] = [
    [['admin', 'fund', '--merchant', shop.id, '--amount', '-5'], "--amount must be a whole number of satang, 1 or more, not '-5'"],
    [['admin', 'fund', '--merchant', shop.id, '--amount=-5'], "--amount must be a whole number of satang, 1 or more, not '-5'"],
    [['admin', 'fund', '--merchant', shop.id, '--amount', '0'], "--amount must be a whole number of satang, 1 or more, not '0'"],
    // Past the largest safe integer: the bound it broke, not '1 or more', which it is.
    [['admin', 'fund', '--merchant', shop.id, '--amount', '99999999999999999999'], "--amount must be a whole number of satang from 1 to 9007199254740991, not '99999999999999999999'"],
    [['admin', 'fund', '--merchant', shop.id, '--amount='], '--amount is empty: give a value, or leave the option out'],
    // An empty filter (a script's unset variable) is refused, not dropped: it listed every merchant's calls.
    [['bo', 'logs', '--merchant', ''], '--merchant is empty: give a value, or leave the option out'],
    [['bo', 'actions', '--route', ''], '--route is empty: give a value, or leave the option out'],
    [['bo', 'queue', '--limit', '-1'], "--limit must be a whole number of rows from 1 to 200, not '-1'"],
    [['bo', 'queue', '--limit', '201'], "--limit must be a whole number of rows from 1 to 200, not '201'"],
    // An advance of 0 moves nothing: refused here as the server refuses it (422 validation_error).
    [['admin', 'clock', 'advance', '--seconds', '-1'], "--seconds must be a whole number of seconds from 0 to 31536000, not '-1'"],
    [['admin', 'clock', 'advance', '--seconds', '1.5'], "--seconds must be a whole number of seconds from 0 to 31536000, not '1.5'"],
    // The server's bound too (a year an advance): refused here, not sent for the server's generic 422.
    [['admin', 'clock', 'advance', '--seconds', '31536001'], "--seconds must be a whole number of seconds from 0 to 31536000, not '31536001'"],
    [['bank-sim', '--port', '70000'], "--port must be a whole number from 0 to 65535, not '70000'"],
    // The server's bounds, said before anything is sent: a minute to a year.
    [['admin', 'gateway-route', 'propose', '--white-label', 'wl_x', '--bank', '004', '--account', '5550001111', '--name', 'Gateway Co', '--ttl-seconds', '59'], "--ttl-seconds must be a whole number of seconds from 60 to 31536000, not '59'"],
  ];
  for (const [args, message] of cases) {
    const r = await satang(args);
    assert.is(r.code, 2, r.stderr);
    assert.ok(r.stderr.includes(message), r.stderr);
    assert.not.match(r.stderr, /ambiguous/);
  }
  assert.is(await available(), before, 'nothing credited');
  for (let i = 0; i < 2; i++) {
    const r = await satang(['admin', 'fund', '--merchant', shop.id, '--amount', '700', '--idempotency-key', 'fund-once']);
    assert.is(r.code, 0, r.stderr);
  }
  assert.is(await available(), before + 700, 'credited once');
  // And taken back: admin debit, the same adjustment the other way; more than available is refused.
  const debit = await satang(['admin', 'debit', '--merchant', shop.id, '--amount', '300', '--reason-code', 'FEE_CORRECTION', '--note', 'fee charged twice on 2026-11-29']);
  assert.is(debit.code, 0, debit.stderr);
  assert.equal([JSON.parse(debit.stdout).type, JSON.parse(debit.stdout).direction, JSON.parse(debit.stdout).reason_code], ['adjustment', 'debit', 'FEE_CORRECTION']);
  assert.is(await available(), before + 400, 'debited');
  const tooMuch = await satang(['admin', 'debit', '--merchant', shop.id, '--amount', String(before + 401), '--note', 'more than there is']);
  assert.is(tooMuch.code, 1, tooMuch.stderr);
  assert.match(tooMuch.stderr + tooMuch.stdout, /insufficient_balance/);
  assert.is(await available(), before + 400, 'nothing taken');
  const noReason = await satang(['admin', 'debit', '--merchant', shop.id, '--amount', '1']);
  assert.is(noReason.code, 2, 'a debit says why');
});

test('with SATANG_OIDC_ISSUER the CLI mints nothing, though the data dir holds the development issuer\'s key', async () => {
  assert.ok(existsSync(join(s.dataDir, 'dev-issuer.jwk.sealed')));
  for (const args of [['token'], ['bo', 'queue'], ['admin', 'clock', 'show'], ['report', 'trial-balance']]) {
    const r = await satang(args, { SATANG_OIDC_ISSUER: 'https://login.example.test/' });
    assert.is(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /SATANG_OIDC_ISSUER is set, so the CLI mints no token: sign in to the console, open Command line \(#\/cli\).*SATANG_OPERATOR_TOKEN/);
    assert.is(r.stdout, '', `${args.join(' ')} printed ${r.stdout}`);
  }
});

test.run();
