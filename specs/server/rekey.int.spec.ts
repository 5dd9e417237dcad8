// Rotating the master key (`satang rekey`, server/rekey.ts) on a real data dir:
// - after the rotation the old key is refused and the new one serves everything sealed:
//   a merchant's HMAC (its key's secret), an idempotent replay byte for byte (a sealed
//   body), the webhook signing keys (opened at start), the development issuer's tokens;
//   and no value sealed under the old key is left anywhere in the data dir's files;
// - a running server refuses the rotation (the data dir's lock);
// - one cut short (the journal done, a key file not) is finished by running it again;
// - a sealed value of a kind it does not know refuses the whole rotation, changing nothing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataDirInUse } from '../../adapters/data-dir-lock.ts';
import { Sealer } from '../../adapters/sealing.ts';
import { rekeyDataDir } from '../../server/rekey.ts';
import { depositBody, publicKeySetJson, TestServer } from '../support/server-harness.ts';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
const newKey = () => randomBytes(32).toString('base64');
const sealerOf = (key: string) => new Sealer(Buffer.from(key, 'base64'));

/** A stopped server's data dir with merchants, a deposit created under a known idempotency key, and both signing key rings. */
async function populated() {
  const root = mkdtempSync(join(tmpdir(), 'satang-rekey-'));
  const dataDir = join(root, 'data');
  const key = newKey();
  const s = await TestServer.start({ SATANG_MASTER_KEY: key }, dataDir);
  const payer = await s.onboard('Payer');
  const shop = await s.onboard('Shop', payer.whiteLabelId);
  const idempotencyKey = randomUUID();
  const body = depositBody({ amount_minor: 25_000 });
  const created = await s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', body, { idempotencyKey });
  assert.ok(created.status === 201 || created.status === 202, created.text);
  const signingKeys = (await s.raw('GET', '/v1/webhooks/signing-keys')).json;
  const hookUrl = 'http://127.0.0.1:9/hook?token=rekeyTOKEN42';
  const endpoint = (await s.bo('POST', `/v1/bo/merchants/${shop.id}/webhook-endpoints`, { url: hookUrl, livemode: true })).json.id as string;
  await s.stop(false);
  return { root, dataDir, key, shop, idempotencyKey, body, created, signingKeys, endpoint, hookUrl };
}

/** Every sealed value stored in the data dir's files now (journal.db and the key files). */
function sealedNow(dataDir: string): string[] {
  const db = new Database(join(dataDir, 'journal.db'), { readonly: true });
  try {
    const values = [
      ...db.prepare<[], string>('SELECT secret FROM api_keys').pluck(true).all(),
      ...db.prepare<[], string>("SELECT body FROM idempotency WHERE body LIKE 'sealed:v1:%'").pluck(true).all(),
      ...db.prepare<[], string>('SELECT private_pkcs8 FROM webhook_signing_keys').pluck(true).all(),
      ...db.prepare<[], string>('SELECT private_pkcs8 FROM webhook_signing_keys_sandbox').pluck(true).all(),
      ...db.prepare<[], string>('SELECT url_sealed FROM webhook_endpoints WHERE url_sealed IS NOT NULL').pluck(true).all(),
    ];
    return [...values, ...['slip-capability-ed25519.key', 'dev-issuer.jwk.sealed'].map((f) => readFileSync(join(dataDir, f), 'utf8').trim())];
  } finally {
    db.close();
  }
}

function rekeyCli(dataDir: string, currentKey: string, newKeyFile: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(satangPath, ['rekey', '--new-key-file', newKeyFile, '--data-dir', dataDir, '--json'], {
      cwd: tmpdir(), env: { ...process.env, SATANG_MASTER_KEY: currentKey, SATANG_LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('after a rotation the old key is refused, the new one serves every sealed thing, and no value sealed under the old key remains', async () => {
  const p = await populated();
  try {
    const before = sealedNow(p.dataDir);
    assert.ok(before.length >= 8, `sealed values: ${before.length}`);
    const next = newKey();
    const keyFile = join(p.root, 'next.key');
    writeFileSync(keyFile, `${next}\n`, { mode: 0o600 });
    const r = await rekeyCli(p.dataDir, p.key, keyFile);
    assert.is(r.code, 0, r.stdout + r.stderr);
    const report = JSON.parse(r.stdout);
    assert.is(report.journal, 'resealed');
    assert.ok(report.api_keys >= 4 && report.idempotency_bodies >= 1 && report.signing_keys >= 2, r.stdout);
    assert.is(report.webhook_urls, 1, 'the endpoint URL with a token in its query, sealed, is counted');
    assert.equal(report.files.map((f: any) => f.state), ['resealed', 'resealed']);

    // Not one old ciphertext in any file of the data dir (the journal was vacuumed, its WAL truncated).
    const bytes = readdirSync(p.dataDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => readFileSync(join(e.parentPath ?? e.path, e.name)).toString('latin1')).join('\n');
    for (const old of before) assert.not.ok(bytes.includes(old.slice('sealed:v1:'.length, 'sealed:v1:'.length + 40)), 'an old sealed value remains');

    const refused = await TestServer.start({ SATANG_MASTER_KEY: p.key }, p.dataDir).then(async (s) => { await s.stop(false); return 'started'; }, (e: Error) => e.message);
    assert.match(refused, /master key does not open this data dir/);
    const s = await TestServer.start({ SATANG_MASTER_KEY: next }, p.dataDir);
    try {
      assert.is((await s.call(p.shop.live.api_key, 'GET', '/v1/pay/balance')).status, 200, 'the HMAC secret opens');
      const replay = await s.call(p.shop.live.api_key, 'POST', '/v1/pay/deposits', p.body, { idempotencyKey: p.idempotencyKey });
      assert.is(replay.text, p.created.text, 'the sealed idempotent answer, byte for byte');
      assert.equal((await s.raw('GET', '/v1/webhooks/signing-keys')).json, p.signingKeys, 'the same signing keys');
      assert.is((await s.bo('GET', `/v1/bo/webhooks/${p.endpoint}`)).json.url, p.hookUrl, "the webhook URL's token opens");
      assert.is((await s.bo('GET', '/v1/bo/merchants?limit=5')).status, 200, "the development issuer's key opens");
    } finally {
      await s.stop(false);
    }
  } finally {
    rmSync(p.root, { recursive: true, force: true });
  }
});

test('in production the new key file is checked as the server will read it: one others may read is refused before anything is resealed', async () => {
  const p = await populated();
  try {
    const loose = join(p.root, 'loose.key');
    writeFileSync(loose, `${newKey()}\n`, { mode: 0o644 });
    chmodSync(loose, 0o644);
    const jwks = join(p.root, 'jwks.json');
    writeFileSync(jwks, publicKeySetJson());
    const before = sealedNow(p.dataDir);
    const production = { SATANG_ENV: 'production', SATANG_OIDC_ISSUER: 'https://login.example/', SATANG_OIDC_JWKS: jwks, SATANG_SLIP_PROVIDER_URL: 'https://slips.example/v1' };
    const r = await rekeyCli(p.dataDir, p.key, loose, production);
    assert.is(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /may be read by others \(mode 644\): chmod 0600/);
    assert.equal(sealedNow(p.dataDir), before, 'nothing resealed');
    chmodSync(loose, 0o600);
    const done = await rekeyCli(p.dataDir, p.key, loose, production);
    assert.is(done.code, 0, done.stdout + done.stderr);
  } finally {
    rmSync(p.root, { recursive: true, force: true });
  }
});

test('a running server refuses the rotation; one cut short is finished by running it again; an unknown sealed value changes nothing', async () => {
  const p = await populated();
  try {
    const current = sealerOf(p.key), next = sealerOf(newKey());
    const s = await TestServer.start({ SATANG_MASTER_KEY: p.key }, p.dataDir);
    try {
      assert.throws(() => rekeyDataDir(p.dataDir, current, next), (e: unknown) => e instanceof DataDirInUse);
      const keyFile = join(p.root, 'while-running.key');
      writeFileSync(keyFile, `${newKey()}\n`, { mode: 0o600 });
      const told = await rekeyCli(p.dataDir, p.key, keyFile);
      assert.is(told.code, 1, told.stderr);
      assert.match(told.stderr, /is in use by another satang server .*; stop it first: rekey runs on a stopped server's data dir\n$/);
    } finally {
      await s.stop(false);
    }

    // A sealed value of a kind the rotation does not know: refused, nothing resealed.
    const untouched = sealedNow(p.dataDir);
    const db = new Database(join(p.dataDir, 'journal.db'));
    db.exec('CREATE TABLE extra_secrets (value TEXT)');
    db.prepare('INSERT INTO extra_secrets VALUES (?)').run(current.seal('something', 'extra'));
    db.close();
    assert.throws(() => rekeyDataDir(p.dataDir, current, next), /extra_secrets\.value holds 1 sealed values of which 0 were resealed/);
    assert.equal(sealedNow(p.dataDir), untouched, 'nothing was resealed');
    const cleanup = new Database(join(p.dataDir, 'journal.db'));
    cleanup.exec('DROP TABLE extra_secrets');
    cleanup.close();

    // Cut short: the journal rotated, a key file put back as it was before.
    const keyFile = join(p.dataDir, 'slip-capability-ed25519.key');
    copyFileSync(keyFile, join(p.root, 'capability.before'));
    const first = rekeyDataDir(p.dataDir, current, next);
    assert.is(first.journal, 'resealed');
    copyFileSync(join(p.root, 'capability.before'), keyFile);
    const second = rekeyDataDir(p.dataDir, current, next);
    assert.is(second.journal, 'already');
    assert.equal(second.files.map((f) => [f.name, f.state]), [['slip-capability-ed25519.key', 'resealed'], ['dev-issuer.jwk.sealed', 'already']]);
    const third = rekeyDataDir(p.dataDir, current, next);
    assert.ok(third.journal === 'already' && third.files.every((f) => f.state === 'already'), 'nothing left to do');
  } finally {
    rmSync(p.root, { recursive: true, force: true });
  }
});

test.run();
