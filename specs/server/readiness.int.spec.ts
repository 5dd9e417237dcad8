// Readiness (GET /readyz, server/readiness.ts) against liveness (GET /healthz): ready on
// the embedded read side; with SATANG_NATS_URL, ready while the relay is connected to a
// real nats-server (specs/support/nats.ts) — degraded (200: writes go on) when the server
// stops and ready again when it returns, while /healthz stays 200 throughout. A closed
// journal, a failed commit and a projection beyond its lag bound while starting are not
// ready; a projection that lags after the process was ready only degrades it. A journal
// stream that is not this journal's (another data dir's, or one a restore left behind)
// keeps the relay disconnected and unpublished, however far the journal grows, until the
// stream is deleted (`satang drop-stream`, which keeps a stream that is this journal's);
// `satang doctor --nats` says FAIL while it is foreign and OK once the
// relay has published its own.

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

test('a closed journal, a failed commit and a projection beyond its lag bound while starting are not ready; a lag after that degrades', async () => {
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
    // Once it has been ready, a lagging projection only degrades it: the writer keeps taking traffic.
    const history = { everReady: false };
    const farBehind = () => observabilityLimits.readinessProjectionLagEntriesMax + 1_000_000;
    assert.is(readinessOf({ ...base, journal: () => s.running.store.db, tail: farBehind, history }).status, 'not_ready', 'starting: it catches up first');
    assert.is(readinessOf({ ...base, journal: () => s.running.store.db, tail: () => s.running.store.world.lastSeq, history }).status, 'ready');
    const lagging = readinessOf({ ...base, journal: () => s.running.store.db, tail: farBehind, history });
    assert.equal([lagging.ready, lagging.status, lagging.checks.projections.deposit_list!.ready], [true, 'degraded', false]);
    // A projection a few entries behind that does not move (its projector died): degraded once it has stood still a while, ready again when it catches up.
    let wall = Date.now();
    const watched = { everReady: true }; // its own record of where each projection stood, on this wall clock alone
    const stuck = () => readinessOf({ ...base, journal: () => s.running.store.db, tail: () => s.running.store.world.lastSeq + 5, history: watched, wallNow: () => wall });
    assert.equal([stuck().status, stuck().checks.projections.deposit_list!.lag_entries], ['ready', 5], 'a few entries behind: still moving, as far as it knows');
    wall += observabilityLimits.readinessProjectionStallMs - 1;
    assert.is(stuck().status, 'ready');
    wall += 1;
    const stalled = stuck();
    assert.equal([stalled.ready, stalled.status, stalled.checks.projections.deposit_list!.ready, stalled.checks.projections.deposit_list!.stalled_ms], [true, 'degraded', false, observabilityLimits.readinessProjectionStallMs]);
    assert.is(readinessOf({ ...base, journal: () => s.running.store.db, tail: () => s.running.store.world.lastSeq, history: watched, wallNow: () => wall }).status, 'ready', 'caught up');
    // A commit that failed (a full disk while the file stays writable): not ready, for a while or until one is written.
    const failed = readinessOf({ ...base, journal: () => s.running.store.db, tail: () => s.running.store.world.lastSeq, history, commitFailure: () => ({ atMs: Date.now(), code: 'SQLITE_FULL' }) });
    assert.equal([failed.ready, failed.status, failed.checks.journal, failed.checks.journal_error], [false, 'not_ready', 'commit_failed', 'SQLITE_FULL']);
    const longAgo = readinessOf({ ...base, journal: () => s.running.store.db, tail: () => s.running.store.world.lastSeq, history, commitFailure: () => ({ atMs: Date.now() - observabilityLimits.readinessCommitFailureHoldMs - 1, code: 'SQLITE_FULL' }) });
    assert.equal([longAgo.ready, longAgo.checks.journal], [true, 'writable'], 'asked again after a while: new commits say whether it still fails');
    assert.is(s.running.store.commitFailure, null, 'the store has no failed commit');
  } finally {
    await s.stop();
  }
});

/** One of `satang doctor --nats`'s checks, as an operator runs it (a child process). */
async function doctorCheck(server: TestServer, natsUrl: string, check = 'stream'): Promise<{ level: string; detail: string }> {
  const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
  const { stdout } = await run(satangPath, ['doctor', '--data-dir', server.dataDir, '--url', server.url, '--nats', natsUrl, '--json'], { env: { ...process.env, SATANG_LOG_LEVEL: 'silent' } }).catch((e: { stdout: string }) => e);
  return (JSON.parse(stdout).checks as { check: string; level: string; detail: string }[]).find((c) => c.check === check)!;
}

/** `satang drop-stream` as an operator runs it: its exit code and output. */
async function dropStream(server: TestServer, natsUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
  return run(satangPath, ['drop-stream', '--nats', natsUrl, '--data-dir', server.dataDir], { env: { ...process.env, SATANG_LOG_LEVEL: 'silent' } })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }));
}

test('with NATS: ready while connected, degraded (200: writes go on) when nats-server stops, ready again when it returns', async () => {
  const nats = await NatsServer.start();
  const s = await TestServer.start({ SATANG_NATS_URL: nats.url, SATANG_METRICS_PORT: '0' });
  /** satang_bus_connected as /metrics says it now. */
  const busConnected = async () => Number(/^satang_bus_connected (\S+)$/m.exec(await (await fetch(s.running.metricsUrl!)).text())?.[1]);
  /** Polls /readyz until its status is `expected` or `ms` pass; returns the last status. */
  const waitFor = async (expected: string, ms: number): Promise<string> => {
    let last = '';
    for (const deadline = Date.now() + ms; (last = (await s.raw('GET', '/readyz')).json.status) !== expected && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 100));
    return last;
  };
  try {
    assert.is(await waitFor('ready', 10_000), 'ready', 'ready once the relay is connected');
    assert.is((await s.raw('GET', '/readyz')).json.checks.nats, 'connected');
    assert.is(await busConnected(), 1, 'the metric the alert reads says connected');

    await nats.stop();
    assert.is(await waitFor('degraded', 10_000), 'degraded', 'degraded once NATS is gone');
    assert.is(await busConnected(), 0, 'and disconnected, which pages after 5 minutes');
    const down = await s.raw('GET', '/readyz');
    assert.is(down.status, 200, 'still taking traffic: writes go on, the relay catches up later');
    assert.is(down.json.checks.nats, 'disconnected');
    const shop = await s.onboard('Written while NATS is down');
    assert.is((await s.call(shop.live.api_key, 'GET', '/v1/pay/balance')).status, 200);
    assert.is((await s.raw('GET', '/healthz')).status, 200, 'still alive');
    const doctor = await doctorCheck(s, nats.url, 'server');
    assert.equal([doctor.level, doctor.detail.includes('degraded')], ['WARN', true], doctor.detail);

    await nats.restart();
    assert.is(await waitFor('ready', 15_000), 'ready', 'ready again');
  } finally {
    await s.stop();
    await nats.remove();
  }
});

test("with NATS: a journal stream that is not this journal's is never published to; deleting it lets the relay start over", async () => {
  const nats = await NatsServer.start();
  /** Polls /readyz until its status is `expected` or `ms` pass; returns the last status. */
  const waitFor = async (server: TestServer, expected: string, ms: number): Promise<string> => {
    let last = '';
    for (const deadline = Date.now() + ms; (last = (await server.raw('GET', '/readyz')).json.status) !== expected && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 100));
    return last;
  };
  const other = await TestServer.start({ SATANG_NATS_URL: nats.url });
  let s: TestServer | undefined;
  try {
    // Another data dir's journal fills the stream.
    const shop = await other.onboard('Other');
    for (let i = 0; i < 3; i++) await other.fund(shop.id, 1000 + i);
    assert.is(await waitFor(other, 'ready', 10_000), 'ready');
    // On a machine the rest of the suite loads, the relay may take a while: 30 s, then say so rather than fail on a stream not yet made.
    for (const deadline = Date.now() + 30_000; other.running.readSide.relay.position < other.running.store.world.lastSeq && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
    assert.is(other.running.readSide.relay.position, other.running.store.world.lastSeq, 'the other journal was published whole');
    const theirs = other.running.store.world.lastSeq;
    await other.stop();

    // This server's journal is shorter, then longer than the stream: never published to.
    s = await TestServer.start({ SATANG_NATS_URL: nats.url });
    const mine = await s.onboard('Mine');
    await new Promise((r) => setTimeout(r, 1500));
    const foreignReady = await s.raw('GET', '/readyz');
    assert.equal([foreignReady.json.status, foreignReady.json.checks.nats], ['degraded', 'disconnected'], 'the stream is not ours: no bus');
    for (let i = 0; s.running.store.world.lastSeq <= theirs + 2; i++) await s.fund(mine.id, 500 + i);
    await new Promise((r) => setTimeout(r, 1500));
    assert.is((await s.raw('GET', '/readyz')).json.checks.nats, 'disconnected', 'a longer journal does not make a foreign stream ours');
    const foreign = await doctorCheck(s, nats.url);
    assert.is(foreign.level, 'FAIL', foreign.detail);
    assert.match(foreign.detail, /is not this journal's/);
    const nc = await connect({ servers: nats.url });
    try {
      const jsm = await nc.jetstreamManager();
      assert.is((await jsm.streams.info(journalStreamName)).state.messages, theirs, 'nothing of this journal was published');
      // The shipped way to delete it (no nats CLI needed): it is not this journal's, so it goes.
      const dropped = await dropStream(s, nats.url);
      assert.equal([dropped.code, /SATANG_JOURNAL deleted \(\d+ messages\)/.test(dropped.stdout)], [0, true], dropped.stdout + dropped.stderr);
      assert.is(await waitFor(s, 'ready', 10_000), 'ready', 'ready once the stream is deleted');
      const tail = s.running.store.world.lastSeq;
      for (const deadline = Date.now() + 30_000; s.running.readSide.relay.position < tail && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
      assert.ok(s.running.readSide.relay.position >= tail, `the relay published up to ${s.running.readSide.relay.position} of ${tail}`);
      assert.is((await jsm.streams.info(journalStreamName)).state.messages, tail, 'the whole journal published from seq 1');
      const ours = await doctorCheck(s, nats.url);
      assert.is(ours.level, 'OK', ours.detail);
      // This journal's own stream is kept.
      const kept = await dropStream(s, nats.url);
      assert.equal([kept.code, /is this journal's: kept/.test(kept.stdout)], [1, true], kept.stdout + kept.stderr);
      assert.is((await jsm.streams.info(journalStreamName)).state.messages, tail);
    } finally {
      await nc.close();
    }
  } finally {
    await s?.stop();
    await nats.remove();
  }
});

test.run();
