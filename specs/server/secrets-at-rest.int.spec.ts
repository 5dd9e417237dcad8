// Secrets at rest (DESIGN.md "Secrets at rest"): a real server on a real data dir is made
// to hold every kind of secret — API key secrets (merchant creation and key minting),
// slip upload tokens and QR payloads (deposit creation), webhook signing keys (an
// endpoint and a rotation) — and to replay idempotent requests; then every file of the
// data dir, -wal and -shm included, is read as bytes, while the server runs and after it
// stopped, and must not hold any of the exact strings the API returned nor a private key.
// Also: modes (0700 dir, 0600 files), the master key (wrong key refused at startup,
// production without one refused, development generating one beside the data dir),
// migration of a data dir written in clear, and the verify scan catching planted secrets.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scanDataDir } from '../../adapters/sqlite/verify-at-rest.ts';
import { readConfig } from '../../server/config.ts';
import { depositBody, TestServer, type MerchantKeys } from '../support/server-harness.ts';

const masterKey = () => randomBytes(32).toString('base64');
const freshDataDir = () => join(mkdtempSync(join(tmpdir(), 'satang-secrets-')), 'data');

/** Every file under dir (recursively) with its bytes. */
function filesOf(dir: string): { path: string; bytes: Buffer }[] {
  const out: { path: string; bytes: Buffer }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesOf(path));
    else out.push({ path, bytes: readFileSync(path) });
  }
  return out;
}

/** The secrets found in clear, as "file: what". */
function inClear(dir: string, secrets: ReadonlyMap<string, Buffer>): string[] {
  const found: string[] = [];
  for (const f of filesOf(dir)) for (const [name, bytes] of secrets) if (f.bytes.includes(bytes)) found.push(`${f.path}: ${name}`);
  return found;
}

function modesOf(dir: string): string[] {
  const wrong: string[] = [];
  const mode = statSync(dir).mode & 0o777;
  if (mode !== 0o700) wrong.push(`${dir}: ${mode.toString(8)}`);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) wrong.push(...modesOf(path));
    else if ((statSync(path).mode & 0o777) !== 0o600) wrong.push(`${path}: ${(statSync(path).mode & 0o777).toString(8)}`);
  }
  return wrong;
}

/** The private keys of the webhook signing key ring, as DER and as the raw 32-byte seed. */
function signingKeySecrets(s: TestServer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const ring = s.running.webhooks.keys;
  const keys = [ring.current(), ring.next()?.key].filter((k) => k !== undefined);
  for (const k of keys) {
    const der = k.privateKey.export({ format: 'der', type: 'pkcs8' });
    out.set(`webhook signing key ${k.kid} (pkcs8)`, der);
    out.set(`webhook signing key ${k.kid} (seed)`, der.subarray(-32));
  }
  return out;
}

/** The message a start that must fail fails with. */
async function refusal(starting: Promise<TestServer>): Promise<string> {
  try {
    const s = await starting;
    await s.stop(false);
    return 'started';
  } catch (error) {
    return (error as Error).message;
  }
}

interface Made { secrets: Map<string, Buffer>; merchant: MerchantKeys }

/** Drives the server through every request that makes a secret; replays answer the same bytes. */
async function makeSecrets(s: TestServer): Promise<Made> {
  const secrets = new Map<string, Buffer>();
  const keep = (name: string, value: string) => secrets.set(name, Buffer.from(value));
  const onboardKey = randomUUID();
  const wl = (await s.bo('POST', '/v1/bo/white-labels', { name: 'Brand' })).json.id;
  const created = await s.bo('POST', '/v1/bo/merchants', { white_label_id: wl, name: 'Payer' }, { idempotencyKey: onboardKey });
  assert.is(created.status, 201, created.text);
  const replayed = await s.bo('POST', '/v1/bo/merchants', { white_label_id: wl, name: 'Payer' }, { idempotencyKey: onboardKey });
  assert.is(replayed.text, created.text, 'a replay of merchant creation answers the same keys');
  assert.is(replayed.headers.get('Idempotent-Replay'), 'true');
  const payer: MerchantKeys = { id: created.json.id, whiteLabelId: wl, live: created.json.keys.live, sandbox: created.json.keys.sandbox };
  keep('payer live key', payer.live.api_key);
  keep('payer sandbox key', payer.sandbox.api_key);
  const shop = await s.onboard('Shop', wl);
  keep('shop live key', shop.live.api_key);
  keep('shop sandbox key', shop.sandbox.api_key);

  const mintKey = randomUUID();
  const minted = await s.bo('POST', `/v1/bo/merchants/${shop.id}/keys`, { livemode: true, scopes: ['wallet:read', 'withdrawals:read'] }, { stepUp: true, idempotencyKey: mintKey });
  assert.is(minted.status, 201, minted.text);
  const mintedAgain = await s.bo('POST', `/v1/bo/merchants/${shop.id}/keys`, { livemode: true, scopes: ['wallet:read', 'withdrawals:read'] }, { stepUp: true, idempotencyKey: mintKey });
  assert.is(mintedAgain.text, minted.text, 'a replay of key minting answers the same secret');
  keep('minted key', minted.json.api_key);

  await s.fund(payer.id, 1_000_000);
  const ben = await s.beneficiary(payer.id);
  const w = await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 200_000, currency: 'THB', merchant_reference: 'w-1', end_user_ref: 'payee-1', beneficiary_id: ben });
  assert.is(w.status, 201, w.text);
  const body = depositBody();
  const depositKey = randomUUID();
  const deposit = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', body, { idempotencyKey: depositKey });
  assert.is(deposit.status, 201, deposit.text);
  const depositAgain = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', body, { idempotencyKey: depositKey });
  assert.is(depositAgain.text, deposit.text, 'a replay of deposit creation answers the same token and QR');
  assert.is(depositAgain.headers.get('Idempotent-Replay'), 'true');
  keep('live slip token', deposit.json.slip_upload.token);
  deposit.json.legs.forEach((l: { qr_payload: string }, i: number) => keep(`live qr payload ${i}`, l.qr_payload));
  const second = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 30_000 }));
  assert.is(second.status, 201, second.text);
  keep('second slip token', second.json.slip_upload.token);
  second.json.legs.forEach((l: { qr_payload: string }, i: number) => keep(`second qr payload ${i}`, l.qr_payload));
  const reissued = await s.call(shop.live.api_key, 'POST', `/v1/pay/deposits/${second.json.id}/slip-token`, {});
  assert.is(reissued.status, 200, reissued.text);
  keep('reissued slip token', reissued.json.token);

  // A receiver authenticated by a token in its URL: the token is the merchant's secret.
  const endpoint = await s.bo('POST', `/v1/bo/merchants/${shop.id}/webhook-endpoints`, { url: 'http://127.0.0.1:9/hook?token=whsecQ9Z8Y7X6W5V4U3', livemode: true });
  assert.is(endpoint.status, 201, endpoint.text);
  assert.is(endpoint.json.url, 'http://127.0.0.1:9/hook?token=whsecQ9Z8Y7X6W5V4U3', 'ops_admin reads it whole');
  keep('webhook URL token', 'whsecQ9Z8Y7X6W5V4U3');
  const rotated = await s.bo('POST', '/v1/bo/webhooks/signing-keys/rotate', {}, { stepUp: true });
  assert.ok(rotated.status < 300, rotated.text);
  for (const [name, bytes] of signingKeySecrets(s)) secrets.set(name, bytes);
  return { secrets, merchant: shop };
}

test('no secret the API returned is in clear in any file of the data dir; the dir is 0700 and its files 0600', async () => {
  const dataDir = freshDataDir();
  const s = await TestServer.start({ SATANG_MASTER_KEY: masterKey() }, dataDir);
  let made: Made;
  try {
    made = await makeSecrets(s);
    // While running: the WAL still holds the recent pages.
    assert.ok(existsSync(join(dataDir, 'journal.db-wal')));
    assert.equal(inClear(dataDir, made.secrets), []);
    assert.equal(modesOf(dataDir), []);
    assert.equal(scanDataDir(dataDir).findings, []);
  } finally {
    await s.stop(false);
  }
  assert.equal(inClear(dataDir, made.secrets), []);
  assert.equal(modesOf(dataDir), []);
  const report = scanDataDir(dataDir);
  assert.ok(report.ok, report.findings.join('\n'));
  assert.ok(report.files_scanned >= 3);
  rmSync(join(dataDir, '..'), { recursive: true, force: true });
});

/** A server on a fresh data dir with its own master key, and a merchant onboarded under a known idempotency key. */
async function onboardedOnFreshDir() {
  const dataDir = freshDataDir();
  const key = masterKey();
  const s = await TestServer.start({ SATANG_MASTER_KEY: key }, dataDir);
  const onboardKey = randomUUID();
  const wl = (await s.bo('POST', '/v1/bo/white-labels', { name: 'Brand' })).json.id;
  const created = await s.bo('POST', '/v1/bo/merchants', { white_label_id: wl, name: 'Shop' }, { idempotencyKey: onboardKey });
  return { dataDir, key, s, onboardKey, wl, created };
}

test('a server started with another master key refuses with a clear error, and a replay still answers after a restart with the right one', async () => {
  const { dataDir, key, s, onboardKey, wl, created } = await onboardedOnFreshDir();
  await s.stop(false);
  try {
    assert.match(await refusal(TestServer.start({ SATANG_MASTER_KEY: masterKey() }, dataDir)), /master key does not open this data dir/);
    // Without any key, a development server does not make one for a journal sealed with another: it says which file is missing.
    assert.match(await refusal(TestServer.start({}, dataDir)), /development master key .*\.master-key is missing, and .*journal\.db was sealed with it/);
    assert.not.ok(existsSync(`${dataDir}.master-key`), 'no key made that would open nothing');
    const again = await TestServer.start({ SATANG_MASTER_KEY: key }, dataDir);
    try {
      const replayed = await again.bo('POST', '/v1/bo/merchants', { white_label_id: wl, name: 'Shop' }, { idempotencyKey: onboardKey });
      assert.is(replayed.text, created.text);
      const balance = await again.call(created.json.keys.live.api_key, 'GET', '/v1/pay/balance');
      assert.is(balance.status, 200, balance.text);
    } finally {
      await again.stop(false);
    }
  } finally {
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  }
});

test('development generates the master key beside the data dir (0600) and uses it again on restart', async () => {
  const dataDir = freshDataDir();
  const keyFile = `${dataDir}.master-key`;
  const s = await TestServer.start({}, dataDir);
  const merchant = await s.onboard('Shop');
  await s.stop(false);
  try {
    assert.ok(existsSync(keyFile), 'the generated key is beside the data dir');
    assert.is(statSync(keyFile).mode & 0o777, 0o600);
    assert.is(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64').length, 32);
    assert.not.ok(readdirSync(dataDir).some((n) => n.includes('master')), 'the key is not inside the data dir');
    const again = await TestServer.start({}, dataDir);
    try {
      assert.is((await again.call(merchant.sandbox.api_key, 'GET', '/v1/pay/balance')).status, 200);
    } finally {
      await again.stop(false);
    }
    // SATANG_MASTER_KEY_FILE names the same key explicitly.
    const named = await TestServer.start({ SATANG_MASTER_KEY_FILE: keyFile }, dataDir);
    await named.stop(false);
  } finally {
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  }
});

test('readConfig: production refuses to start without a master key; bad keys and a key file inside the data dir are refused', () => {
  const production = { SATANG_ENV: 'production', SATANG_SLIP_PROVIDER_URL: 'https://slips.example', SATANG_OIDC_ISSUER: 'https://issuer.example', SATANG_OIDC_JWKS: 'https://issuer.example/jwks', SATANG_DATA_DIR: '/var/lib/satang' };
  assert.throws(() => readConfig(production), /SATANG_MASTER_KEY.*required.*production/);
  assert.ok(readConfig({ ...production, SATANG_MASTER_KEY: masterKey() }));
  const keyDir = mkdtempSync(join(tmpdir(), 'satang-key-'));
  try {
    const keyFile = join(keyDir, 'master.key');
    writeFileSync(keyFile, `${masterKey()}\n`, { mode: 0o600 });
    assert.ok(readConfig({ ...production, SATANG_MASTER_KEY_FILE: keyFile }));
  } finally {
    rmSync(keyDir, { recursive: true, force: true });
  }
  assert.throws(() => readConfig({ SATANG_MASTER_KEY: randomBytes(16).toString('base64') }), /32 bytes/);
  assert.throws(() => readConfig({ SATANG_MASTER_KEY: 'not base64 at all!' }), /32 bytes/);
  assert.throws(() => readConfig({ SATANG_MASTER_KEY: masterKey(), SATANG_MASTER_KEY_FILE: '/etc/k' }), /not both/);
  assert.throws(() => readConfig({ SATANG_DATA_DIR: '/var/lib/satang', SATANG_MASTER_KEY_FILE: '/var/lib/satang/master.key' }), /outside the data dir/);
  // The refusal never echoes the key.
  const short = randomBytes(16).toString('base64');
  try { readConfig({ SATANG_MASTER_KEY: short }); } catch (error) { assert.not.ok((error as Error).message.includes(short)); }
});

test('a data dir written in clear by an older build is sealed on open: the keys still work, replays answer, nothing stays in clear', async () => {
  const { dataDir, key, s, onboardKey, wl, created } = await onboardedOnFreshDir();
  const keys = created.json.keys as { live: { key_id: string; api_key: string }; sandbox: { key_id: string; api_key: string } };
  const signing = signingKeySecrets(s);
  await s.stop(false);
  // Rewrite the data dir the way the older build kept it: secrets in clear, no key check.
  const db = new Database(join(dataDir, 'journal.db'));
  db.exec('DROP INDEX IF EXISTS api_keys_by_secret_index; ALTER TABLE api_keys DROP COLUMN secret_index; DROP TABLE IF EXISTS sealing');
  for (const k of [keys.live, keys.sandbox]) db.prepare('UPDATE api_keys SET secret = ? WHERE key_id = ?').run(k.api_key, k.key_id);
  db.prepare('UPDATE idempotency SET body = ? WHERE key = ?').run(created.text, onboardKey);
  const ring = new Map<string, Buffer>();
  for (const [name, bytes] of signing) if (name.endsWith('(pkcs8)')) ring.set(name.split(' ')[3]!, bytes);
  for (const [kid, der] of ring) db.prepare('UPDATE webhook_signing_keys SET private_pkcs8 = ? WHERE kid = ?').run(der, kid);
  // An endpoint whose URL (token and all) an older build kept in clear.
  db.prepare(`INSERT INTO webhook_endpoints (id, merchant_id, livemode, url, event_types, status, created_at) VALUES ('whep_old', ?, 1, 'https://old.example/hook?token=oldTOKEN7788', NULL, 'enabled', 0)`).run(created.json.id);
  db.exec('ALTER TABLE webhook_endpoints DROP COLUMN url_sealed');
  db.close();
  const { generateKeyPairSync } = await import('node:crypto');
  rmSync(join(dataDir, 'slip-capability-ed25519.key'), { force: true });
  writeFileSync(join(dataDir, 'slip-capability-ed25519.pem'), generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o644 });
  chmodSync(join(dataDir, 'journal.db'), 0o644);
  chmodSync(dataDir, 0o755);
  assert.not.ok(scanDataDir(dataDir).ok, 'the planted data dir is caught by the scan');
  try {
    const again = await TestServer.start({ SATANG_MASTER_KEY: key }, dataDir);
    try {
      assert.is((await again.call(keys.live.api_key, 'GET', '/v1/pay/balance')).status, 200);
      const replayed = await again.bo('POST', '/v1/bo/merchants', { white_label_id: wl, name: 'Shop' }, { idempotencyKey: onboardKey });
      assert.is(replayed.text, created.text);
      assert.is((await again.bo('GET', '/v1/bo/webhooks/whep_old')).json.url, 'https://old.example/hook?token=oldTOKEN7788', 'the URL opens whole');
      assert.equal(inClear(dataDir, new Map([['live key', Buffer.from(keys.live.api_key)], ['sandbox key', Buffer.from(keys.sandbox.api_key)], ['webhook URL token', Buffer.from('oldTOKEN7788')], ...signing])), []);
    } finally {
      await again.stop(false);
    }
    const report = scanDataDir(dataDir);
    assert.ok(report.ok, report.findings.join('\n'));
    assert.equal(modesOf(dataDir), []);
  } finally {
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  }
});

test('the verify scan catches a planted secret, a private key, a slip token, a bearer token, the master key and loose modes; satang verify fails on them', async () => {
  const dataDir = freshDataDir();
  const key = masterKey();
  const s = await TestServer.start({ SATANG_MASTER_KEY: key }, dataDir);
  const merchant = await s.onboard('Shop');
  const operatorToken = await s.operatorToken('emp_careless', true);
  await s.stop(false);
  try {
    const cli = () => spawnSync(fileURLToPath(new URL('../../scripts/satang', import.meta.url)), ['verify', '--data-dir', dataDir], { encoding: 'utf8', env: { ...process.env, SATANG_MASTER_KEY: key } });
    const clean = cli();
    assert.is(clean.status, 0, clean.stdout + clean.stderr);
    assert.ok(JSON.parse(clean.stdout).secrets_at_rest.ok);

    const { generateKeyPairSync } = await import('node:crypto');
    const pair = generateKeyPairSync('ed25519');
    mkdirSync(join(dataDir, 'stray'), { mode: 0o755 });
    chmodSync(join(dataDir, 'stray'), 0o755);
    writeFileSync(join(dataDir, 'stray', 'notes.txt'), `the key is ${merchant.live.api_key}\n`, { mode: 0o600 });
    writeFileSync(join(dataDir, 'key.pem'), pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    writeFileSync(join(dataDir, 'key.der'), Buffer.concat([Buffer.from('junk'), pair.privateKey.export({ type: 'pkcs8', format: 'der' })]), { mode: 0o600 });
    const token = `${Buffer.from(JSON.stringify({ aud: 'pg-slip-ingest', scope: 'slip:write', tenant: 'mch_1' })).toString('base64url')}.${randomBytes(64).toString('base64url')}`;
    writeFileSync(join(dataDir, 'token.log'), token, { mode: 0o644 });
    chmodSync(join(dataDir, 'token.log'), 0o644);
    writeFileSync(join(dataDir, 'tok.txt'), `step-up: ${operatorToken}\n`, { mode: 0o600 });
    writeFileSync(join(dataDir, 'copy-of-key'), `${key}\n`, { mode: 0o600 });
    writeFileSync(join(dataDir, 'raw-key.bin'), Buffer.concat([randomBytes(100), Buffer.from(key, 'base64'), randomBytes(100)]), { mode: 0o600 });
    // A request log row as a build before the mend kept it: an account number sent as a JSON number, in clear.
    const logs = new Database(join(dataDir, 'logs.db'));
    logs.prepare('UPDATE request_logs SET request_body = ? WHERE rowid = (SELECT max(rowid) FROM request_logs)').run('{"sender":{"bank_code":"014","account_number":5566778899}}');
    logs.close();
    const report = scanDataDir(dataDir, { masterKey: Buffer.from(key, 'base64') });
    assert.not.ok(report.ok);
    const text = report.findings.join('\n');
    assert.match(text, /tok\.txt: a signed JWT \(a bearer token\) in clear/);
    assert.match(text, /copy-of-key: the master key in clear/);
    assert.match(text, /raw-key\.bin: the master key in clear/);
    assert.not.ok(scanDataDir(dataDir).findings.some((f) => f.includes('master key')), 'without the key the scan cannot know it');
    assert.match(text, /stray\/notes\.txt: an API key secret \(sk_live_\)/);
    assert.match(text, /logs\.db: an account number \(a logged body\) in clear/);
    assert.not.ok(text.includes('5566778899'));
    assert.match(text, /key\.pem: a PEM private key/);
    assert.match(text, /key\.der: a PKCS#8 private key/);
    assert.match(text, /token\.log: a slip upload token/);
    assert.match(text, /token\.log: mode 644, expected 600/);
    assert.match(text, /stray: mode 755, expected 700/);
    assert.not.ok(text.includes(merchant.live.api_key), 'the report never prints the secret it found');
    const dirty = cli();
    assert.is(dirty.status, 1, dirty.stdout + dirty.stderr);
    assert.not.ok(JSON.parse(dirty.stdout).secrets_at_rest.ok);
    assert.ok(JSON.parse(dirty.stdout).secrets_at_rest.findings.includes('copy-of-key: the master key in clear'), 'satang verify reads the configured key to look for it');
  } finally {
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  }
});

test.run();
