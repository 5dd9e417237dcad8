// Two satang deployments on one NATS (a restore drill started with production's
// environment): the drill's relay makes the journal stream again once it is deleted, and
// the production relay's next entries would land in it behind the drill's journal — mixed
// journals, and a projector waiting in silence behind the old sequence. NATS storing an
// entry below one it stored before tells the relay the stream is another's: it publishes
// no more (/readyz: nats disconnected) until that stream is gone, then makes its own again
// and publishes its journal from seq 1.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'nats';
import { journalStreamName } from '../../projections/entry.ts';
import { NatsServer } from '../support/nats.ts';
import { TestServer } from '../support/server-harness.ts';

async function until(what: string, check: () => Promise<boolean>, withinMs = 20_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a stream another satang made again under the relay: it stops publishing into it, says so on /readyz, and starts again once it is deleted', async () => {
  const nats = await NatsServer.start();
  const nc = await connect({ servers: nats.url, noAsyncTraces: true });
  const jsm = await nc.jetstreamManager();
  const lastInStream = async () => (await jsm.streams.info(journalStreamName).catch(() => null))?.state.last_seq ?? null;
  const natsCheck = async (s: TestServer) => ((await s.raw('GET', '/readyz')).json as { checks: { nats: string } }).checks.nats;
  const production = await TestServer.start({ SATANG_NATS_URL: nats.url });
  let drill: TestServer | null = null;
  try {
    const shop = await production.onboard('Production');
    await production.fund(shop.id, 100_000);
    await production.fund(shop.id, 100_000);
    await until('production published', async () => (await lastInStream()) === production.running.store.world.lastSeq);
    await jsm.streams.delete(journalStreamName); // drop-stream, run from the drill's data dir
    drill = await TestServer.start({ SATANG_NATS_URL: nats.url });
    await drill.onboard('Drill');
    await until('the drill made the stream and published its journal', async () => (await lastInStream()) === drill!.running.store.world.lastSeq);
    assert.ok(drill.running.store.world.lastSeq < production.running.store.world.lastSeq, 'the drill\'s journal is the shorter');
    const drillTail = drill.running.store.world.lastSeq;

    await production.fund(shop.id, 100_000);
    await until('production\'s relay says NATS is not its own', async () => (await natsCheck(production)) === 'disconnected');
    await production.fund(shop.id, 100_000);
    await new Promise((r) => setTimeout(r, 1_500));
    assert.ok((await lastInStream())! <= drillTail + 1, 'at most the entry that told it: nothing more mixed into the drill\'s stream');

    await drill.stop();
    drill = null;
    await jsm.streams.delete(journalStreamName);
    await until('production made its own stream again and published its whole journal', async () => (await lastInStream()) === production.running.store.world.lastSeq);
    await until('ready again', async () => (await natsCheck(production)) === 'connected');
  } finally {
    await drill?.stop();
    await production.stop();
    await nc.close();
    await nats.remove();
  }
});

test.run();
