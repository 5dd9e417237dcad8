// Readiness (GET /readyz, server/readiness.ts) against liveness (GET /healthz): ready on
// the embedded read side; with SATANG_NATS_URL, ready only while the relay is connected to
// a real nats-server (specs/support/nats.ts) — it flips to 503 when the server stops and
// back when it returns, while /healthz stays 200 throughout. A closed journal and a
// projection beyond its lag bound are not ready either. A journal stream that is not this
// journal's (another data dir's, or one a restore left behind) keeps the relay unready and
// unpublished, however far the journal grows, until the stream is deleted; `satang doctor
// --nats` says FAIL while it is foreign and OK once the relay has published its own.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { connect } from 'nats';
import { NatsServer } from '../support/nats.ts';
import { journalStreamName } from '../../projections/entry.ts';
import { TestServer } from '../support/server-harness.ts';
import { readinessOf } from '../../server/readiness.ts';
import { observabilityLimits } from '../../core/limits.ts';
import { projectionNames } from '../../projections/all.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerWhileStarting } from '../../server/main.ts';

const run = promisify(execFile);

test('embedded: ready, with the checks named; /healthz is liveness only', async () => {
  const s = await TestServer.start();
  try {
    const ready = await s.raw('GET', '/readyz');
    assert.is(ready.status, 200, ready.text);
    assert.is(ready.json.status, 'ready');
    assert.is(ready.json.checks.journal, 'writable');
    assert.is(ready.json.checks.nats, 'not_configured');
    assert.equal(Object.keys(ready.json.checks.projections).sort(), [...projectionNames].sort());
    assert.is((await s.raw('GET', '/healthz')).status, 200);
  } finally {
    await s.stop();
  }
});

test('while the server starts, /healthz is 200 {"status":"starting"} (a liveness probe spares a replaying server) and every other request 503 with Retry-After', async () => {
  const server = createServer(answerWhileStarting);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const health = await fetch(`${url}/healthz`);
    assert.equal([health.status, await health.json()], [200, { status: 'starting' }]);
    for (const path of ['/readyz', '/v1/pay/balance', '/v1/bo/deposits']) {
      const r = await fetch(`${url}${path}`);
      assert.equal([r.status, r.headers.get('retry-after'), (await r.json()).error.code], [503, '1', 'service_unavailable'], path);
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a closed journal and a projection beyond its lag bound are not ready', async () => {
  const s = await TestServer.start();
  try {
    const closed = new Database(':memory:');
    closed.close();
    const base = { dataDir: s.dataDir, readSide: s.running.readSide };
    assert.is(readinessOf({ ...base, journal: () => closed, tail: () => 0 }).checks.journal, 'closed');
    assert.not.ok(readinessOf({ ...base, journal: () => closed, tail: () => 0 }).ready);
    const behind = readinessOf({ ...base, journal: () => s.running.store.db, tail: () => observabilityLimits.readinessProjectionLagEntriesMax + 1_000_000 });
    assert.not.ok(behind.ready);
    assert.not.ok(behind.checks.projections.deposit_list!.ready);
    assert.ok(readinessOf({ ...base, journal: () => s.running.store.db, tail: () => s.running.store.world.lastSeq }).ready);
  } finally {
    await s.stop();
  }
});

test('with NATS: ready while connected, 503 service_unavailable when nats-server stops, ready again when it returns', async () => {
  const nats = await NatsServer.start();
  const s = await TestServer.start({ SATANG_NATS_URL: nats.url });
  /** Polls /readyz until it answers `expected` or `ms` pass; returns the last status. */
  const waitFor = async (expected: number, ms: number): Promise<number> => {
    let last = 0;
    for (const deadline = Date.now() + ms; (last = (await s.raw('GET', '/readyz')).status) !== expected && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 100));
    return last;
  };
  try {
    assert.is(await waitFor(200, 10_000), 200, 'ready once the relay is connected');
    assert.is((await s.raw('GET', '/readyz')).json.checks.nats, 'connected');

    await nats.stop();
    assert.is(await waitFor(503, 10_000), 503, 'not ready once NATS is gone');
    const down = await s.raw('GET', '/readyz');
    assert.is(down.status, 503);
    assert.is(down.json.error.code, 'service_unavailable');
    assert.is(down.json.error.details.checks.nats, 'disconnected');
    assert.is((await s.raw('GET', '/healthz')).status, 200, 'still alive');

    await nats.restart();
    assert.is(await waitFor(200, 15_000), 200, 'ready again');
  } finally {
    await s.stop();
    await nats.remove();
  }
});

/** `satang doctor --nats`'s stream check, as an operator runs it (a child process). */
async function doctorStream(server: TestServer, natsUrl: string): Promise<{ level: string; detail: string }> {
  const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
  const { stdout } = await run(satangPath, ['doctor', '--data-dir', server.dataDir, '--url', server.url, '--nats', natsUrl, '--json'], { env: { ...process.env, SATANG_LOG_LEVEL: 'silent' } }).catch((e: { stdout: string }) => e);
  return (JSON.parse(stdout).checks as { check: string; level: string; detail: string }[]).find((c) => c.check === 'stream')!;
}

test("with NATS: a journal stream that is not this journal's is never published to; deleting it lets the relay start over", async () => {
  const nats = await NatsServer.start();
  /** Polls /readyz until it answers `expected` or `ms` pass; returns the last status. */
  const waitFor = async (server: TestServer, expected: number, ms: number): Promise<number> => {
    let last = 0;
    for (const deadline = Date.now() + ms; (last = (await server.raw('GET', '/readyz')).status) !== expected && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 100));
    return last;
  };
  const other = await TestServer.start({ SATANG_NATS_URL: nats.url });
  let s: TestServer | undefined;
  try {
    // Another data dir's journal fills the stream.
    const shop = await other.onboard('Other');
    for (let i = 0; i < 3; i++) await other.fund(shop.id, 1000 + i);
    assert.is(await waitFor(other, 200, 10_000), 200);
    for (const deadline = Date.now() + 10_000; other.running.readSide.relay.position < other.running.store.world.lastSeq && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
    const theirs = other.running.store.world.lastSeq;
    await other.stop();

    // This server's journal is shorter, then longer than the stream: never published to.
    s = await TestServer.start({ SATANG_NATS_URL: nats.url });
    const mine = await s.onboard('Mine');
    await new Promise((r) => setTimeout(r, 1500));
    assert.is((await s.raw('GET', '/readyz')).json.error?.details?.checks?.nats, 'disconnected', 'not ready: the stream is not ours');
    for (let i = 0; s.running.store.world.lastSeq <= theirs + 2; i++) await s.fund(mine.id, 500 + i);
    await new Promise((r) => setTimeout(r, 1500));
    assert.is((await s.raw('GET', '/readyz')).status, 503, 'a longer journal does not make a foreign stream ours');
    const foreign = await doctorStream(s, nats.url);
    assert.is(foreign.level, 'FAIL', foreign.detail);
    assert.match(foreign.detail, /is not this journal's/);
    const nc = await connect({ servers: nats.url });
    try {
      const jsm = await nc.jetstreamManager();
      assert.is((await jsm.streams.info(journalStreamName)).state.messages, theirs, 'nothing of this journal was published');
      await jsm.streams.delete(journalStreamName);
      assert.is(await waitFor(s, 200, 10_000), 200, 'ready once the stream is deleted');
      const tail = s.running.store.world.lastSeq;
      for (const deadline = Date.now() + 10_000; s.running.readSide.relay.position < tail && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
      assert.is((await jsm.streams.info(journalStreamName)).state.messages, tail, 'the whole journal published from seq 1');
      const ours = await doctorStream(s, nats.url);
      assert.is(ours.level, 'OK', ours.detail);
    } finally {
      await nc.close();
    }
  } finally {
    await s?.stop();
    await nats.remove();
  }
});

test.run();
