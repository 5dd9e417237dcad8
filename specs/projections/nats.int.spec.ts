// The process split over a real nats-server (started here on a free port with its own store
// directory): the API runs the relay (journal → JetStream SATANG_JOURNAL) and serves reads
// from projections.db; `scripts/satang projector` runs as a child process and writes it.
// Proves, against the journal as the truth (a rebuild from it, compared byte for byte):
// - an outage: with nats-server stopped writes go on (and balance history says 503
//   history_not_ready); once it is back the projections catch up with no gap and no
//   duplicate; the projector logs the loss (warn) and the reconnect (info, with the outage's
//   length), which nats.js alone does silently;
// - a projector killed (SIGKILL) mid-stream and restarted catches up the same way;
// - `projections rebuild` gives tables byte-identical to the live ones, and `projections
//   status` shows every projection at the journal's tail.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildProcess } from 'node:child_process';
import type { Command } from '../../core/handler/commands.ts';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { NatsServer } from '../support/nats.ts';
import { dumpProjections, lowestPosition, satang, satangRun, waitForProjections } from '../support/projections.ts';
import { settled } from '../../core/handler/handle.ts';
import { connect } from 'nats';
import { journalStreamName } from '../../projections/entry.ts';

let nats: NatsServer;
let s: TestServer;
let projector: ChildProcess | null = null;
let shop: MerchantKeys;
/** The projector's log lines (JSON) since it last started. */
let projectorLogs: Record<string, unknown>[] = [];

function startProjector(): void {
  projector = satang(['projector', '--data-dir', s.dataDir, '--nats', nats.url], { SATANG_LOG_LEVEL: 'info' });
  projectorLogs = [];
  let partial = '';
  projector.stdout!.on('data', (d) => {
    const lines = (partial + d).split('\n');
    partial = lines.pop()!;
    for (const line of lines.filter((l) => l.startsWith('{'))) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      projectorLogs.push(entry);
      // Its warnings and errors show up with a failing spec's output.
      if ((entry.level as number) >= 40) process.stderr.write(`${line}\n`);
    }
  });
  projector.stderr!.pipe(process.stderr);
}

async function projectorLogged(msg: string, withinMs: number): Promise<Record<string, unknown>> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const found = projectorLogs.find((l) => l.msg === msg);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`the projector did not log '${msg}' within ${withinMs} ms; it logged ${JSON.stringify(projectorLogs.map((l) => l.msg))}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function killProjector(signal: NodeJS.Signals): Promise<void> {
  const child = projector;
  if (!child) return;
  projector = null;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

/** `count` fundings of the shop straight through the store (group commit), awaited together. */
async function fundings(count: number, livemode = true): Promise<void> {
  const store = s.running.store;
  const command = (i: number): Command => ({
    type: 'PostAdjustment', actor: { kind: 'operator', operatorId: 'emp_spec' }, merchantId: shop.id, livemode,
    amountMinor: BigInt(100 + i), direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'spec funding',
  });
  for (let done = 0; done < count; done += 200) {
    const batch = Array.from({ length: Math.min(200, count - done) }, (_, i) => settled(store.submit(command(done + i))));
    for (const outcome of await Promise.all(batch)) assert.ok(outcome.ok);
  }
}

const tail = () => s.running.store.world.lastSeq;

async function assertRebuildIdentical(): Promise<void> {
  await waitForProjections(s.dataDir, tail());
  const live = dumpProjections(s.dataDir);
  await killProjector('SIGTERM');
  const rebuilt = await satangRun(['projections', 'rebuild', '--data-dir', s.dataDir]);
  assert.is(rebuilt.code, 0, rebuilt.stderr);
  const report = JSON.parse(rebuilt.stdout);
  assert.is(report.entries, tail());
  assert.is(report.parked, 0);
  assert.fixture(dumpProjections(s.dataDir), live);
  startProjector();
}

/** Every history row exactly once, sequences 1..N, summing to the authoritative balance. */
async function assertHistoryComplete(keys: MerchantKeys): Promise<void> {
  let since = '0';
  let expected = 1n;
  let available = 0n;
  for (;;) {
    const r = await s.call(keys.live.api_key, 'GET', `/v1/pay/balance/transactions?limit=100&since_sequence=${since}`);
    assert.is(r.status, 200, r.text);
    for (const row of r.json.data) {
      assert.is(row.sequence, String(expected++));
      available += BigInt(row.bucket_deltas.available_minor);
    }
    since = r.json.next_sequence;
    if (!r.json.has_more) {
      const balance = await s.call(keys.live.api_key, 'GET', '/v1/pay/balance');
      assert.is(available.toString(), String(balance.json.available_minor));
      assert.is(r.json.checkpoint.available_minor, String(balance.json.available_minor));
      return;
    }
  }
}

test.before(async () => {
  nats = await NatsServer.start();
  s = await TestServer.start({ SATANG_NATS_URL: nats.url });
  startProjector();
  shop = await s.onboard('Shop');
  await s.fund(shop.id, 1_000_000);
  await waitForProjections(s.dataDir, tail());
});

test.after(async () => {
  await killProjector('SIGTERM');
  await s.stop();
  await nats.remove();
});

test('reads are served from the projector\'s projections.db: history, events, lists', async () => {
  await assertHistoryComplete(shop);
  const events = await s.call(shop.live.api_key, 'GET', '/v1/pay/events');
  assert.is(events.status, 200);
  assert.is(events.json.data[0].type, 'balance.credited');
  const status = await satangRun(['projections', 'status', '--data-dir', s.dataDir, '--nats', nats.url]);
  assert.is(status.code, 0, status.stderr);
  const report = JSON.parse(status.stdout);
  assert.is(report.journal_tail, tail());
  for (const p of report.projections) assert.is(p.lag, 0, `${p.name} lag`);
  assert.is(report.relays.find((r: { bus: string }) => r.bus === 'nats').position, tail());
  assert.is(report.nats.stream.name, 'SATANG_JOURNAL');
  assert.is(report.nats.consumers.balance_history.num_pending, 0);
});

test('NATS outage: writes go on; after the restart the projections catch up with no gap and no duplicate', async () => {
  await nats.stop();
  const lost = await projectorLogged('projector lost NATS; it reconnects by itself and catches up once NATS is back', 10_000);
  assert.is(lost.level, 40, 'warn');
  assert.match(String(lost.server), `127.0.0.1:${nats.port}`);
  const before = tail();
  const started = performance.now();
  await fundings(300);
  const funded = await s.bo('POST', `/v1/bo/merchants/${shop.id}/adjustments`, { livemode: true, amount_minor: 777, direction: 'credit', bucket: 'available', reason: 'during the outage' }, { stepUp: true });
  assert.is(funded.status, 201, 'an API write succeeds with NATS down');
  assert.ok(performance.now() - started < 10_000, 'writes are not held up by the outage');
  assert.ok(tail() > before + 300);
  const history = await s.call(shop.live.api_key, 'GET', '/v1/pay/balance/transactions');
  assert.is(history.status, 503, 'publication incomplete');
  assert.is(history.json.error.code, 'history_not_ready');
  assert.is(history.headers.get('retry-after'), '1');
  assert.ok(lowestPosition(s.dataDir) <= before);

  await nats.restart();
  const back = await projectorLogged('projector reconnected to NATS', 10_000);
  assert.is(back.level, 30, 'info');
  assert.ok(typeof back.outage_ms === 'number' && back.outage_ms > 0, `the outage's length: ${back.outage_ms}`);
  await waitForProjections(s.dataDir, tail(), 30_000);
  await assertHistoryComplete(shop);
  await assertRebuildIdentical();
});

test('the journal stream deleted under a running relay and projector (drop-stream --force, a NATS store wiped): both make it again and the projections catch up with no gap and no duplicate', async () => {
  await fundings(5);
  await waitForProjections(s.dataDir, tail(), 30_000); // the projector is consuming
  const nc = await connect({ servers: nats.url });
  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(journalStreamName);
    await projectorLogged('projection consumer lost its consumer or the journal stream; making them again', 20_000);
    await fundings(50); // the relay meets no stream: it makes it again and publishes the journal from seq 1
    await waitForProjections(s.dataDir, tail(), 30_000);
    const stream = (await jsm.streams.info(journalStreamName)).state;
    assert.equal([stream.first_seq, stream.messages], [1, tail()], 'the new stream holds the whole journal, from seq 1');
  } finally {
    await nc.close();
  }
  await assertHistoryComplete(shop);
  await assertRebuildIdentical();
});

test('a projector killed mid-stream and restarted catches up with no gap and no duplicate', async () => {
  await waitForProjections(s.dataDir, tail());
  const before = tail();
  const writing = fundings(3000);
  // Kill it once it is part-way through the burst.
  const deadline = Date.now() + 20_000;
  while (lowestPosition(s.dataDir) < before + 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
  await killProjector('SIGKILL');
  const killedAt = lowestPosition(s.dataDir);
  await writing;
  assert.ok(killedAt < tail(), `killed mid-stream (at ${killedAt} of ${tail()})`);
  startProjector();
  await waitForProjections(s.dataDir, tail(), 30_000);
  await assertHistoryComplete(shop);
  await assertRebuildIdentical();
});

test.run();
