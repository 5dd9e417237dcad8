// The configuration as an operator meets it: everything wrong with the environment is
// refused at once, before the data dir is touched or a port is bound. readConfig collects
// every problem into one ConfigError; the server started as `npm start` starts it prints
// the list without a stack trace (never echoing a secret's value) and exits 78 (EX_CONFIG),
// which the systemd unit does not restart. What only starting finds — a host that is none
// of this machine's, a data dir that is a file, a database that is no SQLite file — is one
// line and exit 78 as well: a restart would meet it again.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { newerDataDir } from '../support/newer-journal.ts';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addressesOf, ConfigError, configErrorExitCode, readConfig } from '../../server/config.ts';
import { publicKeySetJson, TestServer } from '../support/server-harness.ts';
import Database from 'better-sqlite3';
import { everSealed } from '../../adapters/sealing.ts';

/** What `npm start` and the systemd unit run: server/main.ts bundled. */
const startPath = fileURLToPath(new URL('../../server/start.mjs', import.meta.url));
const unitPath = fileURLToPath(new URL('../../deploy/systemd/satang-api.service', import.meta.url));
const badKey = 'not-a-key-but-still-a-secret';

test('readConfig: every problem at once, in one ConfigError', () => {
  const error = (() => {
    try { readConfig({ SATANG_ENV: 'production', SATANG_PORT: '80x', SATANG_CLOCK: 'manual', SATANG_METRICS_PORT: 'nine', SATANG_SHUTDOWN_DRAIN_MS: '1.5' }); } catch (e) { return e; }
    return null;
  })();
  assert.instance(error, ConfigError);
  const problems = (error as ConfigError).problems;
  for (const name of ['SATANG_PORT', 'SATANG_CLOCK=manual', 'SATANG_SLIP_PROVIDER_URL', 'SATANG_OIDC_ISSUER', 'SATANG_MASTER_KEY', 'SATANG_METRICS_PORT', 'SATANG_SHUTDOWN_DRAIN_MS']) {
    assert.ok(problems.some((p) => p.includes(name)), `${name} in ${JSON.stringify(problems)}`);
  }
  assert.is(problems.length, 7);
  // SATANG_CLAIM_URL: an http(s) URL, {deposit_id} where the order's id goes; the back office's claims by default.
  const claimProblems = (() => { try { readConfig({ SATANG_CLAIM_URL: 'help desk' }); } catch (e) { return (e as ConfigError).problems; } return []; })();
  assert.ok(claimProblems.some((p) => p.includes('SATANG_CLAIM_URL')), JSON.stringify(claimProblems));
  assert.is(readConfig({ SATANG_CLAIM_URL: 'https://help.example/claims?d={deposit_id}' }).claimUrl, 'https://help.example/claims?d={deposit_id}');
  // Sent to every merchant in a 410: a user name or password in it is refused, and not echoed.
  const leaky = (() => { try { readConfig({ SATANG_CLAIM_URL: 'https://ops:hunter2@help.example/claims/{deposit_id}' }); } catch (e) { return (e as ConfigError).problems; } return []; })();
  assert.ok(leaky.some((p) => p.includes('SATANG_CLAIM_URL') && p.includes('password')), JSON.stringify(leaky));
  assert.not.ok(leaky.some((p) => p.includes('hunter2')), 'the password is not repeated in the refusal');
  for (const malformed of ['https://ops:hunter2@[bad/{deposit_id}', 'ops:hunter2@claims.example/{deposit_id}']) {
    const problems = (() => { try { readConfig({ SATANG_CLAIM_URL: malformed }); } catch (e) { return (e as ConfigError).problems; } return []; })();
    assert.ok(problems.some((p) => p.includes('SATANG_CLAIM_URL')), JSON.stringify(problems));
    assert.not.ok(problems.some((p) => p.includes('hunter2')), `no URL, and still the password is not repeated: ${malformed}`);
  }
  // Empty is unset, as for the other URL settings: the default stands.
  assert.is(readConfig({ SATANG_CLAIM_URL: '' }).claimUrl, 'http://127.0.0.1:8080/v1/bo/claims?kind=late_slip&deposit_id={deposit_id}');
  assert.is(readConfig({}).claimUrl, 'http://127.0.0.1:8080/v1/bo/claims?kind=late_slip&deposit_id={deposit_id}');
  // A good environment still reads as before.
  assert.is(readConfig({ SATANG_PORT: '0' }).port, 0);
  assert.is(readConfig({}).port, 8080);
});

test('the server refuses a bad environment with the whole list, no stack trace, no secret, exit 78, nothing created', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-config-'));
  const dataDir = join(dir, 'data');
  try {
    const r = await new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, [startPath], {
        env: { PATH: process.env.PATH, SATANG_ENV: 'production', SATANG_PORT: '80x', SATANG_DATA_DIR: dataDir, SATANG_MASTER_KEY: badKey, SATANG_LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '', stdout = '';
      child.stderr.on('data', (d) => { stderr += d; });
      child.stdout.on('data', (d) => { stdout += d; });
      child.on('close', (code) => resolve({ code, stderr, stdout }));
    });
    assert.is(r.code, configErrorExitCode);
    const lines = r.stderr.trimEnd().split('\n');
    assert.is(lines[0], 'satang: the configuration is refused (see .env.example):');
    assert.is(lines.length, 5, r.stderr);
    assert.ok(lines.slice(1).every((l) => l.startsWith('  - SATANG_')), r.stderr);
    assert.not.match(r.stderr, /\n\s+at /, 'no stack trace');
    assert.not.match(r.stderr, new RegExp(badKey), 'the secret is not echoed');
    assert.not.ok(existsSync(dataDir), 'the data dir was not created');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('readConfig: the tests-only and tuning variables, and the master key file, are refused with the rest (not a crash later)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-config-'));
  try {
    const keyFile = join(dir, 'master-key');
    writeFileSync(keyFile, 'not a key\n', { mode: 0o600 });
    const open = join(dir, 'open-key');
    writeFileSync(open, `${randomBytes(32).toString('base64')}\n`, { mode: 0o644 });
    const problemsOf = (env: Record<string, string>) => {
      try { readConfig(env); } catch (e) { return (e as ConfigError).problems; }
      return [];
    };
    const dev = problemsOf({ SATANG_DATA_DIR: join(dir, 'data'), SATANG_WEBHOOK_TIMEOUTS_MS: '1,x', SATANG_REQUEST_TIMEOUTS_MS: '100', SATANG_LOG_LEVEL: 'loud', SATANG_NATS_URL: 'nats://127.0.0.1:1', SATANG_NATS_REPLICAS: '2', SATANG_MASTER_KEY_FILE: keyFile });
    for (const name of ['SATANG_WEBHOOK_TIMEOUTS_MS', 'SATANG_REQUEST_TIMEOUTS_MS', 'SATANG_LOG_LEVEL', 'SATANG_NATS_REPLICAS', 'SATANG_MASTER_KEY_FILE']) {
      assert.ok(dev.some((p) => p.includes(name)), `${name} in ${JSON.stringify(dev)}`);
    }
    assert.not.ok(dev.some((p) => p.includes('not a key')), 'the key file\'s content is never quoted');
    assert.ok(problemsOf({ SATANG_MASTER_KEY_FILE: join(dir, 'missing') }).some((p) => /cannot read/.test(p)));
    const prod = problemsOf({ SATANG_ENV: 'production', SATANG_DATA_DIR: join(dir, 'data'), SATANG_MASTER_KEY_FILE: open, SATANG_WEBHOOK_TIMEOUTS_MS: '1,1,1' });
    assert.ok(prod.some((p) => /may be read by others/.test(p)), JSON.stringify(prod));
    assert.ok(prod.some((p) => /SATANG_WEBHOOK_TIMEOUTS_MS is for tests/.test(p)), JSON.stringify(prod));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the addresses the service calls or hands out are refused when malformed, and in production when plain http off this host: the issuer, its key set, the slip provider, the base and upload URLs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-config-urls-'));
  try {
    const problemsOf = (env: Record<string, string>) => {
      try { readConfig({ SATANG_DATA_DIR: join(dir, 'data'), ...env }); } catch (e) { return (e as ConfigError).problems; }
      return [];
    };
    const notJson = join(dir, 'jwks-bad.json');
    writeFileSync(notJson, '{not json');
    const noKeys = join(dir, 'jwks-nokeys.json');
    writeFileSync(noKeys, '{"issuer":"x"}');
    const good = join(dir, 'jwks.json');
    writeFileSync(good, publicKeySetJson());
    const dev = problemsOf({
      SATANG_OIDC_ISSUER: 'not-a-url', SATANG_OIDC_JWKS: join(dir, 'missing.json'), SATANG_UPLOAD_URL: 'javascript:alert(1)//', SATANG_BASE_URL: 'https://user:pw@api.example',
      SATANG_SLIP_PROVIDER_URL: 'notaurl',
    });
    assert.equal(dev.map((p) => p.split(' ')[0]).sort(), ['SATANG_BASE_URL', 'SATANG_OIDC_ISSUER', 'SATANG_OIDC_JWKS', 'SATANG_SLIP_PROVIDER_URL', 'SATANG_UPLOAD_URL'], JSON.stringify(dev));
    assert.ok(dev.some((p) => /SATANG_OIDC_JWKS .*cannot be read \(ENOENT\)/.test(p)));
    assert.not.ok(dev.some((p) => p.includes('pw@')), 'a URL with credentials is not repeated');
    assert.ok(problemsOf({ SATANG_OIDC_ISSUER: 'https://login.example/', SATANG_OIDC_JWKS: notJson }).some((p) => /is not JSON/.test(p)));
    assert.ok(problemsOf({ SATANG_OIDC_ISSUER: 'https://login.example/', SATANG_OIDC_JWKS: noKeys }).some((p) => /no "keys" array/.test(p)));
    const empty = join(dir, 'jwks-empty.json');
    writeFileSync(empty, '{"keys":[]}');
    assert.ok(problemsOf({ SATANG_OIDC_ISSUER: 'https://login.example/', SATANG_OIDC_JWKS: empty }).some((p) => /SATANG_OIDC_JWKS .*holds no key: every operator token would be refused/.test(p)), 'an empty set, read once at start, would refuse every operator as a bad signature');
    const withPrivate = join(dir, 'jwks-private.json');
    const privateJwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
    writeFileSync(withPrivate, JSON.stringify({ keys: [JSON.parse(publicKeySetJson()).keys[0], { ...privateJwk, kid: 'leaked' }] }));
    const leaked = problemsOf({ SATANG_OIDC_ISSUER: 'https://login.example/', SATANG_OIDC_JWKS: withPrivate });
    assert.ok(leaked.some((p) => /SATANG_OIDC_JWKS .*holds a private or secret key \(keys\[1\]\): whoever reads it can mint operator tokens/.test(p)), JSON.stringify(leaked));
    assert.not.ok(leaked.some((p) => p.includes(String(privateJwk.d))), 'the private key is never quoted');
    const symmetric = join(dir, 'jwks-oct.json');
    writeFileSync(symmetric, JSON.stringify({ keys: [{ kty: 'oct', k: randomBytes(32).toString('base64url') }] }));
    assert.ok(problemsOf({ SATANG_OIDC_ISSUER: 'https://login.example/', SATANG_OIDC_JWKS: symmetric }).some((p) => /holds a private or secret key \(keys\[0\]\)/.test(p)), 'a shared secret (HS256) is a secret too');
    assert.equal(problemsOf({ SATANG_OIDC_ISSUER: 'http://login.example/', SATANG_OIDC_JWKS: good, SATANG_SLIP_PROVIDER_URL: 'http://slips.example' }), [], 'development takes http');
    const key = join(dir, 'key');
    writeFileSync(key, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    const production = { SATANG_ENV: 'production', SATANG_MASTER_KEY_FILE: key };
    const prod = problemsOf({ ...production, SATANG_OIDC_ISSUER: 'http://login.example/', SATANG_OIDC_JWKS: 'http://login.example/jwks.json', SATANG_SLIP_PROVIDER_URL: 'http://slips.example/v1', SATANG_BASE_URL: 'http://api.example' });
    assert.equal(prod.filter((p) => /must use https when SATANG_ENV=production/.test(p)).map((p) => p.split(' ')[0]).sort(), ['SATANG_BASE_URL', 'SATANG_OIDC_ISSUER', 'SATANG_OIDC_JWKS', 'SATANG_SLIP_PROVIDER_URL'], JSON.stringify(prod));
    assert.equal(problemsOf({ ...production, SATANG_OIDC_ISSUER: 'https://login.example/', SATANG_OIDC_JWKS: good, SATANG_SLIP_PROVIDER_URL: 'http://127.0.0.1:9000/v1' }), [], 'https, a key set file, and a slip provider beside the server over http');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('readConfig: the hosts to listen on, the NATS URL and a metrics port that is the API\'s are refused with the rest', () => {
  const problemsOf = (env: Record<string, string>) => {
    try { readConfig({ SATANG_DATA_DIR: join(tmpdir(), 'satang-config-none'), ...env }); } catch (e) { return (e as ConfigError).problems; }
    return [];
  };
  const bad = problemsOf({ SATANG_HOST: 'a b', SATANG_METRICS_HOST: 'http://127.0.0.1', SATANG_METRICS_PORT: '9100', SATANG_NATS_URL: 'notaurl' });
  for (const name of ['SATANG_HOST', 'SATANG_METRICS_HOST', 'SATANG_NATS_URL']) assert.ok(bad.some((p) => p.startsWith(name)), `${name} in ${JSON.stringify(bad)}`);
  assert.ok(problemsOf({ SATANG_NATS_URL: 'nats://user:secret@' }).every((p) => !p.includes('secret')), 'a URL with a password is not repeated');
  assert.ok(problemsOf({ SATANG_PORT: '9100', SATANG_METRICS_PORT: '9100' }).some((p) => /needs a port of its own/.test(p)));
  assert.equal(problemsOf({ SATANG_HOST: '0.0.0.0', SATANG_METRICS_HOST: '::1', SATANG_METRICS_PORT: '9100', SATANG_NATS_URL: 'nats://10.0.0.1:4222,tls://nats.example.com:4443' }), []);
  assert.equal(problemsOf({ SATANG_HOST: 'localhost', SATANG_PORT: '0', SATANG_METRICS_PORT: '0' }), [], 'any free port twice is two ports');
  // An IPv6 host is bracketed in the URLs made of it (`http://:::8080` crashed the start).
  assert.is(addressesOf({}, '::', 8080).baseUrl, 'http://[::]:8080');
  assert.is(addressesOf({}, '::1', 8080).uploadUrl, 'http://[::1]:8080');
});

/** `npm start` as the unit runs it, on `env`: its exit code and stderr. */
function started(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [startPath], { env: { PATH: process.env.PATH, SATANG_PORT: '0', SATANG_LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

test('what only starting finds is one line and exit 78, no stack: a data dir that is a file, a journal that is no SQLite file, a host of no interface', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-start-'));
  try {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a directory\n');
    const garbage = join(dir, 'garbage');
    mkdirSync(garbage, { mode: 0o700 });
    writeFileSync(join(garbage, 'journal.db'), 'garbage, not SQLite '.repeat(100));
    writeFileSync(`${garbage}.master-key`, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 }); // its key is there: the file itself is the matter
    // A journal a newer build wrote (a downgrade): refused, never misread.
    const newer = newerDataDir(join(dir, 'newer'));
    for (const [env, expected] of [
      [{ SATANG_DATA_DIR: file }, /^satang: the data dir .*a-file cannot be used: /],
      [{ SATANG_DATA_DIR: garbage }, /^satang: .*garbage\/journal\.db is not a usable SQLite file \(SQLITE_NOTADB.*: the journal is the record: restore the data dir from a backup/],
      [{ SATANG_DATA_DIR: newer }, /^satang: journal\.db has schema version 99, written by a newer satang; this build knows up to \d+: run that build/],
      [{ SATANG_DATA_DIR: join(dir, 'data'), SATANG_HOST: '192.0.2.1' }, /^satang: no interface of this machine has the address 192\.0\.2\.1/],
      [{ SATANG_DATA_DIR: join(dir, 'data'), SATANG_HOST: 'no-such-host.invalid' }, /^satang: the host to listen on, no-such-host\.invalid, does not resolve/],
      [{ SATANG_DATA_DIR: join(dir, 'data'), SATANG_METRICS_HOST: '192.0.2.1', SATANG_METRICS_PORT: '0' }, /^satang: no interface of this machine has the address 192\.0\.2\.1/],
    ] as const) {
      const r = await started(env);
      assert.is(r.code, configErrorExitCode, `${JSON.stringify(env)}: ${r.stderr}`);
      assert.match(r.stderr, expected);
      assert.is(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    }
    // A port in use on a first start: exit 1 (the unit tries again), and nothing made either.
    const busy = createNetServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', () => resolve()));
    try {
      const r = await started({ SATANG_DATA_DIR: join(dir, 'data'), SATANG_PORT: String((busy.address() as AddressInfo).port) });
      assert.is(r.code, 1, r.stderr);
      assert.match(r.stderr, /is in use by another process/);
    } finally {
      busy.close();
    }
    // A host or a port refused leaves nothing behind: no data dir, no master key beside it.
    assert.not.ok(existsSync(join(dir, 'data')), 'a refused start made the data dir');
    assert.not.ok(existsSync(join(dir, 'data.master-key')), 'a refused start made a master key');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    for (const d of ['a-file', 'garbage', 'newer', 'data']) rmSync(join(dir, `${d}.master-key`), { force: true });
  }
});

test("a data dir whose development master key is gone is refused in one line naming the key file, never sealed anew with a key that opens nothing", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-lost-key-'));
  const dataDir = join(dir, 'data');
  try {
    const first = await TestServer.start({}, dataDir);
    await first.stop(false);
    rmSync(`${dataDir}.master-key`);
    const r = await started({ SATANG_DATA_DIR: dataDir });
    assert.is(r.code, configErrorExitCode, r.stderr);
    assert.match(r.stderr, /^satang: the data dir's development master key .*data\.master-key is missing, and .*journal\.db was sealed with it: put that key back/);
    assert.is(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    assert.not.ok(existsSync(`${dataDir}.master-key`), 'no new key was made');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a newer satang's journal whose development master key is gone is refused as every newer journal is (the schema's line), sealed or not, and no key is made for it", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-newer-keyless-'));
  try {
    // One a server sealed (its marker there), then written by a newer build; one never sealed.
    const sealed = join(dir, 'sealed');
    const first = await TestServer.start({}, sealed);
    await first.stop(false);
    const db = new Database(join(sealed, 'journal.db'));
    db.pragma('user_version = 99');
    db.close();
    const unsealed = newerDataDir(join(dir, 'unsealed'));
    for (const dataDir of [sealed, unsealed]) {
      rmSync(`${dataDir}.master-key`);
      const r = await started({ SATANG_DATA_DIR: dataDir });
      assert.is(r.code, configErrorExitCode, r.stderr);
      assert.match(r.stderr, /^satang: journal\.db has schema version 99, written by a newer satang; this build knows up to \d+: run that build/, dataDir);
      assert.is(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
      assert.not.ok(existsSync(`${dataDir}.master-key`), `${dataDir}: a key was made for a journal this build cannot read`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a data dir an older build left with nothing sealed (no sealed marker) gets a development key made at start, and is sealed under it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-never-sealed-'));
  const dataDir = join(dir, 'data');
  try {
    mkdirSync(dataDir, { mode: 0o700 });
    // journal.db with nothing sealed in it — no sealing table, no marker — as a build before 79b9bd3 left it (its tables made at start).
    new Database(join(dataDir, 'journal.db')).exec('CREATE TABLE left_by_an_older_build (x)').close();
    const s = await TestServer.start({}, dataDir);
    try {
      assert.ok(existsSync(`${dataDir}.master-key`), 'the development key is made');
      assert.is((await s.onboard('After the upgrade')).id.startsWith('mch_'), true);
    } finally {
      await s.stop(false);
    }
    const sealed = new Database(join(dataDir, 'journal.db'), { readonly: true });
    try {
      assert.ok(everSealed(sealed), 'sealed under the new key from this start on');
    } finally {
      sealed.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the systemd unit does not restart a refused configuration', () => {
  assert.match(readFileSync(unitPath, 'utf8'), new RegExp(`^RestartPreventExitStatus=${configErrorExitCode}$`, 'm'));
});

test.run();
