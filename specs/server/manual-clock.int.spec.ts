// SATANG_CLOCK=manual across a restart: the clock a server makes for itself starts at the
// wall clock, and on a data dir whose journal was written after clock advances it resumes
// at the journal's last entry or where the last advance left it, whichever is later, so
// business time never runs back behind what was recorded or answered
// (reports would refuse their own days as "not yet begun", timers would wait again). An
// advance takes an Idempotency-Key like every operator POST: a retry does not move it twice.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SystemClock } from '../../adapters/clock.ts';
import { settled } from '../../core/handler/handle.ts';
import { startServer } from '../../server/main.ts';
import { operator } from '../support/core-harness.ts';
import { expectError } from '../support/api-checks.ts';
import { depositBody, TestServer } from '../support/server-harness.ts';
import { satangRun } from '../support/projections.ts';
import { signRequest } from '../../server/hmac.ts';

const dayMs = 86_400_000;

test('a manual clock resumes at the journal\'s last entry, or its last advance, after a restart, and starts at the wall clock on a fresh data dir', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-manual-clock-'));
  const env = { SATANG_DATA_DIR: join(dir, 'data'), SATANG_PORT: '0', SATANG_CLOCK: 'manual', SATANG_LOG_LEVEL: 'silent' };
  try {
    const first = await startServer(env);
    const startedAt = first.services.write.clock.now();
    assert.ok(Math.abs(startedAt - Date.now()) < 60_000, 'a fresh data dir starts at the wall clock');
    await first.services.write.advanceClock!(4 * dayMs);
    const r = await settled(first.store.submit({ type: 'RegisterWhiteLabel', actor: operator(), name: 'After four days' }));
    assert.ok(r.ok);
    const recordedAt = first.services.write.clock.now();
    assert.ok(recordedAt >= startedAt + 4 * dayMs);
    await first.close();

    const second = await startServer(env);
    let advancedTo: number;
    try {
      assert.is(second.services.write.clock.now(), recordedAt, 'resumed at the last entry, not at the wall clock four days earlier');
      assert.ok(second.store.world.whiteLabels.size === 1);
      // an hour on with nothing due: no journal entry, but an answered advance all the same
      await second.services.write.advanceClock!(3_600_000);
      advancedTo = second.services.write.clock.now();
      assert.is(advancedTo, recordedAt + 3_600_000);
    } finally {
      await second.close();
    }

    const third = await startServer(env);
    try {
      assert.is(third.services.write.clock.now(), advancedTo, 'resumed where the last advance left it, past the last entry');
    } finally {
      await third.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the system clock never runs back behind the journal: a data dir a manual clock advanced days is refused on it, one a few minutes ahead waits for the wall clock', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-clock-back-'));
  const manual = { SATANG_DATA_DIR: join(dir, 'data'), SATANG_PORT: '0', SATANG_CLOCK: 'manual', SATANG_LOG_LEVEL: 'silent' };
  const system = { ...manual, SATANG_CLOCK: 'system' };
  try {
    const first = await startServer(manual);
    await first.services.write.advanceClock!(60_000); // a minute ahead: within what a clock stepped back may be
    assert.ok((await settled(first.store.submit({ type: 'RegisterWhiteLabel', actor: operator(), name: 'A minute ahead' }))).ok);
    const minuteAhead = first.services.write.clock.now();
    await first.close();
    const second = await startServer(system);
    try {
      assert.ok(second.services.write.clock.now() >= minuteAhead, 'business time starts at the last entry, not a minute before it');
    } finally {
      await second.close();
    }

    const third = await startServer(manual);
    await third.services.write.advanceClock!(2 * dayMs);
    assert.ok((await settled(third.store.submit({ type: 'RegisterWhiteLabel', actor: operator(), name: 'Two days ahead' }))).ok);
    await third.close();
    const refused = await startServer(system).then(async (r) => { await r.close(); return 'started'; }, (error: Error) => error.message);
    assert.match(refused, /^journal\.db's last entry was recorded at \S+, 4[78]\.\d h after this machine's clock .*business time would run back.*SATANG_CLOCK=manual/, refused);
    const again = await startServer(manual); // nothing was left locked or half made: the manual clock still starts on it
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SystemClock holds time where it was when the wall clock steps back', () => {
  const clock = new SystemClock();
  const realNow = Date.now;
  try {
    let wall = 1_800_000_000_000;
    Date.now = () => wall;
    assert.is(clock.now(), wall);
    wall -= 30_000; // NTP steps the clock back half a minute
    assert.is(clock.now(), 1_800_000_000_000, 'held, not run back');
    wall += 45_000;
    assert.is(clock.now(), 1_800_000_015_000, 'runs again once the wall clock passes it');
    clock.notBefore(1_800_000_100_000);
    assert.is(clock.now(), 1_800_000_100_000, 'not before what the journal recorded');
  } finally {
    Date.now = realNow;
  }
});

test('POST /v1/bo/clock/advance: a retry with the same Idempotency-Key answers the first advance and moves nothing; another figure under it is refused; none is refused', async () => {
  const s = await TestServer.start();
  try {
    const now = async () => Date.parse((await s.bo('GET', '/v1/bo/clock')).json.now);
    const before = await now();
    const first = await s.bo('POST', '/v1/bo/clock/advance', { seconds: 3600 }, { idempotencyKey: 'advance-1' });
    assert.is(first.status, 200, first.text);
    const retry = await s.bo('POST', '/v1/bo/clock/advance', { seconds: 3600 }, { idempotencyKey: 'advance-1' });
    assert.equal([retry.status, retry.json, retry.headers.get('idempotent-replay')], [200, first.json, 'true']);
    assert.is(await now(), before + 3600_000, 'moved once');
    expectError(await s.bo('POST', '/v1/bo/clock/advance', { seconds: 60 }, { idempotencyKey: 'advance-1' }), 'idempotency_key_reused');
    const bare = await s.raw('POST', '/v1/bo/clock/advance', { headers: { Authorization: `Bearer ${await s.operatorToken()}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ seconds: 60 }) });
    expectError(bare, 'idempotency_key_required');
    const other = await s.bo('POST', '/v1/bo/clock/advance', { seconds: 60 }, { idempotencyKey: 'advance-2' });
    assert.is(other.status, 200, other.text);
    assert.is(await now(), before + 3660_000);
  } finally {
    await s.stop(false);
  }
  // After a restart the key still answers the first advance: kept in journal.db, not in the server's memory.
  const restarted = await TestServer.start({}, s.dataDir);
  try {
    const at = Date.parse((await restarted.bo('GET', '/v1/bo/clock')).json.now);
    const retry = await restarted.bo('POST', '/v1/bo/clock/advance', { seconds: 3600 }, { idempotencyKey: 'advance-1' });
    assert.equal([retry.status, retry.headers.get('idempotent-replay')], [200, 'true'], retry.text);
    assert.is(Date.parse((await restarted.bo('GET', '/v1/bo/clock')).json.now), at, 'the retry moved nothing');
  } finally {
    await restarted.stop();
  }
});

test('POST /v1/bo/clock/advance answers GET /v1/bo/clock\'s shape; an advance of 0 seconds moves nothing and answers so (it runs what is due at the instant); one below 0 is a 422 validation_error', async () => {
  const s = await TestServer.start();
  try {
    const advanced = await s.bo('POST', '/v1/bo/clock/advance', { seconds: 60 });
    assert.is(advanced.status, 200, advanced.text);
    assert.equal(advanced.json, (await s.bo('GET', '/v1/bo/clock')).json, 'the same object, now and clock as a read gives them');
    assert.is(advanced.json.object, 'service_clock');
    const before = s.clock.now();
    const still = await s.bo('POST', '/v1/bo/clock/advance', { seconds: 0 });
    assert.is(still.status, 200, still.text);
    assert.equal(still.json, { object: 'service_clock', now: new Date(before).toISOString(), clock: 'manual' });
    const refused = expectError(await s.bo('POST', '/v1/bo/clock/advance', { seconds: -1 }), 'validation_error');
    assert.equal(refused.details.fields.map((f: { path: string; reason: string }) => [f.path, f.reason]), [['seconds', 'minimum']]);
    assert.is(s.clock.now(), before, 'neither moved the clock');
  } finally {
    await s.stop();
  }
});

/** `node server/start.mjs` (what `npm start` runs), its URL once it listens, and a SIGKILL. */
async function serverProcess(env: Record<string, string>): Promise<{ url: string; child: ChildProcess; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('../../server/start.mjs', import.meta.url))], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => { output += d; });
  child.stderr!.on('data', (d) => { output += d; });
  const exited = new Promise((resolve) => child.on('close', resolve));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const line = output.split('\n').find((l) => l.includes('"satang listening"'));
    if (line) return { url: JSON.parse(line).url, child, exited };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('an advance a crash cut, retried with its Idempotency-Key after the restart, ends where the first aimed: not its seconds again from where the clock resumed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-clock-cut-'));
  const dataDir = join(dir, 'data');
  // A receiver that never answers: each attempt due on the way holds the advance 1 s, so it is still stepping when killed.
  const hanging = createServer(() => {});
  await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
  const env = { SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_CLOCK: 'manual', SATANG_LOG_LEVEL: 'info', SATANG_WEBHOOK_TIMEOUTS_MS: '300,1000,1000' };
  let server = await serverProcess(env);
  try {
    const token = (await satangRun(['token', '--sub', 'emp_clock', '--roles', 'ops_admin', '--data-dir', dataDir])).stdout.trim();
    const bo = async (method: string, path: string, body?: unknown, key: string = randomUUID()) => {
      const r = await fetch(server.url + path, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': key }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return { status: r.status, json: await r.json() as any };
    };
    const wl = (await bo('POST', '/v1/bo/white-labels', { name: 'Brand' })).json.id;
    const m = (await bo('POST', '/v1/bo/merchants', { white_label_id: wl, name: 'Shop' })).json;
    assert.is((await bo('POST', `/v1/bo/merchants/${m.id}/webhook-endpoints`, { url: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hook`, livemode: true })).status, 201);
    // A deposit with no liquidity, canceled when it expires 10 minutes on: a journal entry inside the advance.
    const body = JSON.stringify(depositBody({ expires_in_seconds: 600 }));
    const headers = signRequest({ secret: m.keys.live.api_key, method: 'POST', path: '/v1/pay/deposits', query: '', body, version: '2026-08-01', idempotencyKey: randomUUID() });
    const deposit = await fetch(`${server.url}/v1/pay/deposits`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body }).then((r) => r.json() as Promise<any>);
    const clockNow = async () => Date.parse((await bo('GET', '/v1/bo/clock')).json.now);
    const start = await clockNow();

    let answered = false;
    const cut = bo('POST', '/v1/bo/clock/advance', { seconds: 3600 }, 'advance-cut').then(() => { answered = true; }, () => {});
    for (const deadline = Date.now() + 30_000; (await bo('GET', `/v1/bo/deposits/${deposit.id}`)).json.deposit?.status !== 'canceled';) {
      assert.ok(Date.now() < deadline, 'the deposit is canceled within the advance');
      await new Promise((r) => setTimeout(r, 20));
    }
    server.child.kill('SIGKILL');
    await server.exited;
    await cut;
    assert.not.ok(answered, 'the advance was still stepping when the server was killed');

    server = await serverProcess(env);
    const resumed = await clockNow();
    assert.ok(resumed >= start + 600_000, 'resumed at the journal\'s last entry, the cancellation 10 minutes on');
    const retry = await bo('POST', '/v1/bo/clock/advance', { seconds: 3600 }, 'advance-cut');
    assert.is(retry.status, 200, JSON.stringify(retry.json));
    assert.is(await clockNow(), start + 3600_000, 'an hour from where the first advance started, once');
    assert.is(Date.parse(retry.json.now), start + 3600_000);
  } finally {
    server.child.kill('SIGKILL');
    await server.exited;
    hanging.closeAllConnections();
    hanging.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('advances sent at once queue: the clock moves by their sum, each answers 200, none a 500 (timers falling due on the way)', async () => {
  const s = await TestServer.start();
  try {
    const m = await s.onboard('Racing clocks');
    // Orders whose expiries fall inside the hour: each advance stops at them and awaits between steps.
    for (let i = 0; i < 6; i++) {
      const r = await s.call(m.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 20_000 + i * 1_000, expires_in_seconds: 600 + i * 300 }));
      assert.ok(r.status === 201 || r.status === 202, r.text);
    }
    const now = async () => Date.parse((await s.bo('GET', '/v1/bo/clock')).json.now);
    const before = await now();
    const answers = await Promise.all(Array.from({ length: 6 }, () => s.bo('POST', '/v1/bo/clock/advance', { seconds: 3600 })));
    assert.equal(answers.map((a) => a.status), [200, 200, 200, 200, 200, 200], answers.map((a) => a.text).join('\n'));
    assert.is(await now(), before + 6 * 3600_000, 'six hours, as asked');
    assert.equal(answers.map((a) => Date.parse(a.json.now)).sort((a, b) => a - b), [1, 2, 3, 4, 5, 6].map((h) => before + h * 3600_000), 'each answered where its own advance ended');
  } finally {
    await s.stop();
  }
});

test.run();
