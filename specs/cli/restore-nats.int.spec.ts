// `satang restore --nats` run as an operator runs it (a child process) after a disaster, in
// the production shape: the API relays its journal to a real nats-server's JetStream.
// - what was committed after the backup is read from the stream before anything is
//   restored, printed and kept in the restored data dir (restore-lost.json, 0600): how
//   many entries, their seqs and times, and per merchant the entries, the webhook events
//   emitted and the orders they touched;
// - the stream is deleted (a purge would keep the lost entries' message ids in its
//   duplicate window), so a server started on the restored journal publishes its new
//   entries under the seqs the lost ones had, and JetStream takes them instead of
//   dropping them as duplicates;
// - an unreachable NATS refuses the restore before the data dir is touched;
// - a stream NATS will not delete, once the files are restored: exit 1, the list of what was
//   lost still kept, and the command to delete the stream by hand.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, StringCodec } from 'nats';
import { journalStreamName } from '../../projections/entry.ts';
import { NatsServer } from '../support/nats.ts';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { until } from '../webhooks/support.ts';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));
let nats: NatsServer;
let s: TestServer;
let shop: MerchantKeys;
let dir: string;

function satang(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(satangPath, args, { cwd: tmpdir(), env: { ...process.env, SATANG_LOG_LEVEL: 'silent', SATANG_NATS_URL: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Waits until the relay has published every committed entry to JetStream. */
const published = (server: TestServer) => until(() => server.running.readSide.relay.position === server.running.store.world.lastSeq, 10_000);

/** The stream's message count and the journal entry of its last message; null when there is no stream. */
async function streamState(): Promise<{ messages: number; lastEntry: { seq: number; type: string } | null } | null> {
  const nc = await connect({ servers: nats.url });
  try {
    const jsm = await nc.jetstreamManager();
    const info = await jsm.streams.info(journalStreamName).catch(() => null);
    if (!info) return null;
    if (info.state.messages === 0) return { messages: 0, lastEntry: null };
    const last = await jsm.streams.getMessage(journalStreamName, { seq: info.state.last_seq });
    return { messages: info.state.messages, lastEntry: JSON.parse(StringCodec().decode(last.data)) };
  } finally {
    await nc.close();
  }
}

test.before(async () => {
  nats = await NatsServer.start();
  dir = mkdtempSync(join(tmpdir(), 'satang-restore-nats-'));
  s = await TestServer.start({ SATANG_NATS_URL: nats.url });
  shop = await s.onboard('Shop');
});
test.after(async () => {
  await s.stop();
  await nats.remove();
  rmSync(dir, { recursive: true, force: true });
});

test('an unreachable NATS refuses the restore before the data dir is touched', async () => {
  await s.fund(shop.id, 100_000);
  const backup = join(dir, 'early');
  assert.is((await satang(['backup', '--to', backup, '--data-dir', s.dataDir])).code, 0);
  const target = join(dir, 'untouched');
  const r = await satang(['restore', '--from', backup, '--data-dir', target, '--nats', 'nats://127.0.0.1:9']);
  assert.is(r.code, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /cannot reach NATS at nats:\/\/127\.0\.0\.1:9/);
  assert.not.ok(existsSync(target), 'nothing restored');
});

test('what was committed after the backup is listed and kept; the stream is deleted, and the restored server publishes again', async () => {
  await s.fund(shop.id, 200_000);
  await published(s);
  const backup = join(dir, 'backup');
  const taken = await satang(['backup', '--to', backup, '--data-dir', s.dataDir, '--json']);
  assert.is(taken.code, 0, taken.stdout + taken.stderr);
  const backupTail = JSON.parse(taken.stdout).manifest.journal.tail_seq as number;
  assert.is(backupTail, s.running.store.world.lastSeq);

  // Committed after the backup: two fundings and a withdrawal, relayed to JetStream.
  await s.fund(shop.id, 300_000);
  await s.fund(shop.id, 400_000);
  const beneficiary = await s.beneficiary(shop.id);
  const w = await s.call(shop.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 50_000, currency: 'THB', merchant_reference: 'lost-1', end_user_ref: 'payee', beneficiary_id: beneficiary });
  assert.is(w.status, 201, w.text);
  await published(s);
  const lostTail = s.running.store.world.lastSeq;
  assert.ok(lostTail > backupTail + 3);
  await s.stop(false);

  // A drill with the unit's environment loaded, into a scratch dir: the deployment's stream is not touched.
  const drill = join(dir, 'drill');
  const drilled = await satang(['restore', '--from', backup, '--data-dir', drill], { SATANG_NATS_URL: nats.url, SATANG_DATA_DIR: s.dataDir });
  assert.is(drilled.code === 0 || drilled.code === 1, true, drilled.stdout + drilled.stderr); // 1: no master key beside the drill's dir
  assert.match(drilled.stderr, /is not the deployment's data dir \(\$SATANG_DATA_DIR\), so the journal stream at \$SATANG_NATS_URL is left alone/);
  assert.not.ok(existsSync(join(drill, 'restore-lost.json')));
  const probe = await connect({ servers: nats.url });
  try {
    assert.is((await (await probe.jetstreamManager()).streams.info(journalStreamName)).state.last_seq, lostTail, "the deployment's stream is whole");
  } finally {
    await probe.close();
  }

  const restored = join(dir, 'restored');
  copyFileSync(`${s.dataDir}.master-key`, `${restored}.master-key`); // kept apart from the backup
  const r = await satang(['restore', '--from', backup, '--data-dir', restored, '--nats', nats.url, '--json']);
  assert.is(r.code, 0, r.stdout + r.stderr);
  const lost = JSON.parse(r.stdout).lost;
  assert.is(lost.backup_tail_seq, backupTail);
  assert.is(lost.stream_last_seq, lostTail);
  assert.is(lost.entries, lostTail - backupTail);
  assert.equal([lost.from_seq, lost.to_seq], [backupTail + 1, lostTail]);
  assert.is(lost.listed_all, true);
  const mine = lost.merchants.find((m: any) => m.merchant_id === shop.id && m.livemode === true);
  assert.ok(mine, JSON.stringify(lost.merchants));
  assert.ok(mine.orders.includes(w.json.id), 'the lost withdrawal is named');
  assert.ok(mine.events >= 4, `webhook events emitted: ${mine.events}`);
  assert.is(lost.merchants.reduce((t: number, m: any) => t + m.entries, 0), lost.entries, 'every lost entry is counted under its merchant');
  assert.ok(lost.stream_deleted_messages >= lostTail);
  const kept = join(restored, 'restore-lost.json');
  assert.equal(JSON.parse(readFileSync(kept, 'utf8')), lost);
  assert.is(statSync(kept).mode & 0o777, 0o600);
  assert.is(await streamState(), null, 'the stream is deleted');

  // The restored journal gives the lost seqs again: JetStream takes the new entries.
  const s2 = await TestServer.start({ SATANG_NATS_URL: nats.url }, restored);
  try {
    // The first start journaled the restore's sequence jump: one entry per merchant.
    const jumps = s2.running.store.world.merchants.size;
    assert.is(s2.running.store.world.lastSeq, backupTail + jumps);
    await s2.fund(shop.id, 700_000);
    await published(s2);
    const state = (await streamState())!;
    assert.is(state.messages, backupTail + jumps + 1, 'the relay published the restored journal, the jump and the new entry');
    assert.is(state.lastEntry?.seq, backupTail + jumps + 1, 'the new entry is in the stream under a lost seq');
    assert.ok(backupTail + jumps + 1 <= lostTail);
    assert.is(state.lastEntry?.type, 'BalanceTransactionPosted');
    const balance = (await s2.call(shop.live.api_key, 'GET', '/v1/pay/balance')).json;
    assert.is(balance.available_minor, 100_000 + 200_000 + 700_000, 'the backup\'s balance and the new funding, nothing of what was lost');
  } finally {
    await s2.stop();
  }
});

test('a journal stream NATS refuses to delete, once the files are restored: exit 1, what was lost still kept, the stream named to delete by hand', async () => {
  const guarded = await NatsServer.start({ denyPublish: ['$JS.API.STREAM.DELETE.>'] });
  const g = await TestServer.start({ SATANG_NATS_URL: guarded.url });
  try {
    const shop2 = await g.onboard('Shop');
    await g.fund(shop2.id, 100_000);
    await published(g);
    const backup = join(dir, 'guarded-backup');
    assert.is((await satang(['backup', '--to', backup, '--data-dir', g.dataDir])).code, 0);
    await g.fund(shop2.id, 200_000);
    await published(g);
    const lostTail = g.running.store.world.lastSeq;
    await g.stop(false);
    const restored = join(dir, 'guarded-restored');
    copyFileSync(`${g.dataDir}.master-key`, `${restored}.master-key`);
    const r = await satang(['restore', '--from', backup, '--data-dir', restored, '--nats', guarded.url]);
    assert.is(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /the journal is restored and verifies, but the journal stream could not be deleted \(.*Permissions Violation/);
    assert.match(r.stderr, /scripts\/satang drop-stream --nats URL/);
    assert.match(r.stdout, /LOST: \d+ journal entries .* the journal stream could NOT be deleted/);
    const lost = JSON.parse(readFileSync(join(restored, 'restore-lost.json'), 'utf8'));
    assert.is(lost.stream_last_seq, lostTail);
    assert.ok(lost.entries > 0);
    assert.is(lost.stream_deleted_messages, null);
    assert.ok(existsSync(join(restored, 'journal.db')), 'the files are restored');
  } finally {
    await g.stop();
    await guarded.remove();
  }
});

test.run();
