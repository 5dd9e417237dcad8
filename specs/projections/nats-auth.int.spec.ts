// NATS carries the whole journal — account numbers and names included — so in production
// its clients sign in (deploy/nats/nats-server.conf): against a real nats-server that
// refuses anyone without the password, the API's relay and `scripts/satang projector` sign
// in as SATANG_NATS_USER with the password read from SATANG_NATS_PASSWORD_FILE (never the
// URL or the environment) and the projections catch up with the journal; a client without
// it is refused; `scripts/satang doctor` signs in the same way to compare the stream. The
// configuration check: in production a NATS URL needs the sign-in, a URL carrying a
// password is refused (without repeating it), and the password file must be private.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { ConfigError, readConfig } from '../../server/config.ts';
import { journalStreamName } from '../../projections/entry.ts';
import { NatsServer } from '../support/nats.ts';
import { satang, satangRun, waitForProjections } from '../support/projections.ts';
import { TestServer } from '../support/server-harness.ts';

const password = randomBytes(18).toString('base64url');
let nats: NatsServer;
let dir: string;
let signIn: Record<string, string>;

test.before(async () => {
  nats = await NatsServer.start({ password });
  dir = mkdtempSync(join(tmpdir(), 'satang-nats-auth-'));
  const passwordFile = join(dir, 'nats-password');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  signIn = { SATANG_NATS_URL: nats.url, SATANG_NATS_USER: 'satang', SATANG_NATS_PASSWORD_FILE: passwordFile };
});

test.after(async () => {
  await nats.remove();
  rmSync(dir, { recursive: true, force: true });
});

test('the relay and the projector sign in with the password file; a client without it is refused', async () => {
  const anonymous = await connect({ servers: nats.url, noAsyncTraces: true, timeout: 2_000 }).then(() => 'connected', (error: Error) => error.message);
  assert.match(anonymous, /Authorization Violation/i, 'no password, no journal');
  const s = await TestServer.start(signIn);
  let projector: ChildProcess | null = null;
  try {
    projector = satang(['projector', '--data-dir', s.dataDir, '--nats', nats.url], signIn);
    const shop = await s.onboard('Signed in');
    await s.fund(shop.id, 250_000);
    await waitForProjections(s.dataDir, s.running.store.world.lastSeq);
    const history = await s.call(shop.live.api_key, 'GET', '/v1/pay/balance/transactions');
    assert.is(history.status, 200, history.text);
    assert.is(history.json.data.length, 1, 'the funding came through NATS into the projections');
    const nc = await connect({ servers: nats.url, user: 'satang', pass: password, noAsyncTraces: true });
    try {
      const info = await (await nc.jetstreamManager()).streams.info(journalStreamName);
      assert.is(info.state.last_seq, s.running.store.world.lastSeq, 'the relay published the journal');
    } finally {
      await nc.close();
    }
    const doctor = await satangRun(['doctor', '--data-dir', s.dataDir, '--nats', nats.url, '--json'], signIn);
    const stream = JSON.parse(doctor.stdout).checks.find((c: { check: string }) => c.check === 'stream');
    assert.is(stream?.level, 'OK', doctor.stdout);
    const unsigned = await satangRun(['doctor', '--data-dir', s.dataDir, '--nats', nats.url, '--json'], { SATANG_NATS_USER: '', SATANG_NATS_PASSWORD_FILE: '' });
    const refused = JSON.parse(unsigned.stdout).checks.find((c: { check: string }) => c.check === 'stream');
    assert.is(refused?.level, 'WARN', unsigned.stdout);
    assert.match(refused.detail, /Authorization Violation/i);
    // A projector without the password is told so and ends (it waited for ever, deaf to SIGTERM).
    const lost = await satangRun(['projector', '--data-dir', s.dataDir, '--nats', nats.url], { SATANG_NATS_USER: '', SATANG_NATS_PASSWORD_FILE: '' });
    assert.is(lost.code, 1, lost.stderr);
    assert.match(lost.stderr, /NATS refused the sign-in \(.*Authorization Violation.*\): give SATANG_NATS_USER and SATANG_NATS_PASSWORD_FILE/i);
    // What the API refuses in the environment they share, the projector refuses before it
    // connects, saying what and never repeating the password (it ran on them: outside-in drill).
    const production = { ...signIn, SATANG_ENV: 'production' };
    const inUrl = await satangRun(['projector', '--data-dir', s.dataDir, '--nats', nats.url.replace('://', `://satang:${password}@`)], production, 15_000);
    assert.is(inUrl.code, 1, inUrl.stderr);
    assert.match(inUrl.stderr, /the NATS settings are refused, as the API refuses them.*\n  - SATANG_NATS_URL carries a user or a password/);
    assert.not.ok(inUrl.stderr.includes(password) || inUrl.stdout.includes(password), 'the password is not repeated');
    const unsignedProduction = await satangRun(['projector', '--data-dir', s.dataDir, '--nats', nats.url], { ...production, SATANG_NATS_USER: '', SATANG_NATS_PASSWORD_FILE: '' }, 15_000);
    assert.is(unsignedProduction.code, 1, unsignedProduction.stderr);
    assert.match(unsignedProduction.stderr, /SATANG_NATS_USER and SATANG_NATS_PASSWORD_FILE are required with SATANG_NATS_URL when SATANG_ENV=production/);
    const readable = join(dir, 'nats-password-readable');
    writeFileSync(readable, `${password}\n`, { mode: 0o644 });
    chmodSync(readable, 0o644);
    const loose = await satangRun(['projector', '--data-dir', s.dataDir, '--nats', nats.url], { ...production, SATANG_NATS_PASSWORD_FILE: readable }, 15_000);
    assert.is(loose.code, 1, loose.stderr);
    assert.match(loose.stderr, /SATANG_NATS_PASSWORD_FILE .* may be read by others \(mode 644\)/);
  } finally {
    projector?.kill('SIGTERM');
    await s.stop();
  }
});

test('a relay NATS refused signs in once the password file is right, without a restart, and publishes what was written meanwhile', async () => {
  const fresh = await NatsServer.start({ password });
  const passwordFile = join(dir, 'nats-password-rotated');
  writeFileSync(passwordFile, 'the-password-before-rotation\n', { mode: 0o600 });
  const s = await TestServer.start({ ...signIn, SATANG_NATS_URL: fresh.url, SATANG_NATS_PASSWORD_FILE: passwordFile });
  const inStream = async (): Promise<number | null> => {
    const nc = await connect({ servers: fresh.url, user: 'satang', pass: password, noAsyncTraces: true });
    try {
      return (await (await nc.jetstreamManager()).streams.info(journalStreamName)).state.last_seq;
    } catch {
      return null; // no stream yet
    } finally {
      await nc.close();
    }
  };
  try {
    const shop = await s.onboard('Refused at first');
    await s.fund(shop.id, 100_000);
    await new Promise((r) => setTimeout(r, 1_000));
    assert.is(await inStream(), null, 'refused: nothing published');
    const drop = await satangRun(['drop-stream', '--nats', fresh.url, '--force'], signIn);
    assert.is(drop.code, 0, drop.stderr);
    assert.is(drop.stdout, `${journalStreamName} does not exist: nothing to delete (the relay makes it at its next write)\n`);
    const refused = await s.raw('GET', '/readyz');
    assert.is((refused.json as { checks: { nats: string } }).checks.nats, 'disconnected', refused.text);
    writeFileSync(passwordFile, `${password}\n`);
    const deadline = Date.now() + 20_000;
    while ((await inStream()) !== s.running.store.world.lastSeq) {
      assert.ok(Date.now() < deadline, 'the relay signed in with the mended password file and caught up');
      await new Promise((r) => setTimeout(r, 200));
    }
    for (;;) { // readiness learns the relay's link within busStatusReportMs
      const ready = await s.raw('GET', '/readyz');
      if ((ready.json as { checks: { nats: string } }).checks.nats === 'connected') break;
      assert.ok(Date.now() < deadline, ready.text);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await s.stop();
    await fresh.remove();
  }
});

test('configuration: production needs the sign-in with a NATS URL, refuses a password in the URL without repeating it, and a password file others may read', () => {
  const problems = (env: Record<string, string>): readonly string[] => {
    try { readConfig({ SATANG_ENV: 'production', SATANG_MASTER_KEY: randomBytes(32).toString('base64'), SATANG_SLIP_PROVIDER_URL: 'https://slips.example', SATANG_OIDC_ISSUER: 'https://login.example', SATANG_OIDC_JWKS: 'https://login.example/jwks', SATANG_BASE_URL: 'https://pay.example', SATANG_DATA_DIR: join(dir, 'data'), ...env }); return []; } catch (error) { return error instanceof ConfigError ? error.problems : [String(error)]; }
  };
  const nats = (p: readonly string[]) => p.filter((x) => x.includes('NATS'));
  assert.ok(nats(problems({ SATANG_NATS_URL: 'nats://127.0.0.1:4222' })).some((p) => /SATANG_NATS_USER and SATANG_NATS_PASSWORD_FILE are required/.test(p)));
  const inUrl = nats(problems({ SATANG_NATS_URL: 'nats://satang:hunter2secret@127.0.0.1:4222' }));
  assert.ok(inUrl.some((p) => /carries a user or a password/.test(p)), JSON.stringify(inUrl));
  assert.not.ok(inUrl.join(' ').includes('hunter2secret'), 'the password is not repeated');
  const loose = join(dir, 'loose-password');
  writeFileSync(loose, 'pw\n');
  chmodSync(loose, 0o644); // not by writeFileSync's mode: a server started in this process set the umask to 077
  assert.ok(nats(problems({ SATANG_NATS_URL: 'nats://127.0.0.1:4222', SATANG_NATS_USER: 'satang', SATANG_NATS_PASSWORD_FILE: loose })).some((p) => /may be read by others/.test(p)));
  assert.ok(nats(problems({ SATANG_NATS_URL: 'nats://127.0.0.1:4222', SATANG_NATS_USER: 'satang' })).some((p) => /go together/.test(p)));
  assert.equal(nats(problems({ ...signIn, SATANG_NATS_URL: 'nats://127.0.0.1:4222' })), [], 'user and a private password file: nothing to say');
});

test.run();
