// Durable slip intake on a real server (contract: slip receipt; 503 slip_intake_unavailable;
// idempotency by evidence fingerprint). A slip store whose fsync fails answers 503 with
// Retry-After, leaves no journal entry and no evidence under a final name; once the store
// recovers, a retry with the same key and evidence gets 202 with the receipt id the first
// attempt was given. The same evidence under another multipart boundary, JSON key order,
// base64 alphabet or line breaks, or sent as multipart once and JSON once, is a replay
// (same receipt, Idempotent-Replay: true, one journal entry); other evidence under the
// same key is 409 idempotency_key_reused. Evidence the worker cannot read is retried, then
// sent to review; a slip received before a restart is verified after it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { DiskSlipStore, type IntakeRecord, type ProviderAnswer, type SlipStore } from '../../adapters/slips/store.ts';
import { slipAdapterLimits } from '../../core/limits.ts';
import { expectError, journalRows } from '../support/api-checks.ts';
import { TestServer, freshSender } from '../support/server-harness.ts';
import {
  assertReceipt, getDeposit, matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, uploadJson, type SlipScene,
} from '../support/slip-harness.ts';

/** The disk store with a switch that makes fsync fail (EIO), and a record of the receipts it was asked to store. */
class FlakyStore implements SlipStore {
  failing = false;
  recordFailing = false;
  putDelayMs = 0;
  readonly puts: string[] = [];
  readonly inner: DiskSlipStore;
  constructor(dir: string) {
    this.inner = new DiskSlipStore(dir, {
      fsync: async (handle: FileHandle) => {
        if (this.failing) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
        await handle.sync();
      },
    });
  }
  async put(record: IntakeRecord, image?: Uint8Array) {
    this.puts.push(record.receiptId);
    if (this.putDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.putDelayMs));
    return this.inner.put(record, image);
  }
  record(id: string) { return this.recordFailing ? Promise.reject(new Error('EIO: i/o error, read')) : this.inner.record(id); }
  image(id: string) { return this.inner.image(id); }
  remove(id: string) { return this.inner.remove(id); }
  markVerified(id: string) { return this.inner.markVerified(id); }
  isVerified(id: string) { return this.inner.isVerified(id); }
  putAnswer(id: string, answer: ProviderAnswer) { return this.inner.putAnswer(id, answer); }
  answer(id: string) { return this.inner.answer(id); }
}

const dataDir = mkdtempSync(join(tmpdir(), 'satang-slip-intake-'));
const store = new FlakyStore(join(dataDir, 'slips'));
let scene: SlipScene;

test.before(async () => { scene = await slipScene({}, { slipStore: store }, dataDir); });
test.after(async () => { await scene.s.stop(); });

test('a store that fails fsync → 503 slip_intake_unavailable, no journal entry; the retry after recovery gets the same receipt id', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  const image = pngSlip();
  const key = randomUUID();
  const rows = await journalRows(scene.s);
  store.failing = true;
  const failed = await uploadFile(deposit.slip_upload, image, { key });
  const e = expectError(failed, 'slip_intake_unavailable');
  assert.is(failed.headers.get('retry-after'), String(e.retry_after_seconds));
  assert.ok(e.retry_after_seconds >= 1);
  assert.is(await journalRows(scene.s), rows, 'no journal entry');
  assert.is((await getDeposit(scene, deposit.id)).status, 'awaiting_payment');
  const allocated = store.puts.at(-1)!;
  const finalFiles = [`${allocated}.img`, `${allocated}.json`].filter((f) => existsSync(join(dataDir, 'slips', f)));
  assert.equal(finalFiles, [], 'no evidence under a final name');
  assert.ok(readdirSync(join(dataDir, 'slips')).every((f) => !f.includes('.tmp-')), 'no temporary file left');

  const again = await uploadFile(deposit.slip_upload, image, { key });
  expectError(again, 'slip_intake_unavailable');
  store.failing = false;
  const receipt = assertReceipt(await uploadFile(deposit.slip_upload, image, { key }));
  assert.is(receipt.receipt_id, allocated, 'the retry reuses the receipt of the first attempt');
  assert.is(new Set(store.puts.slice(-3)).size, 1, 'every attempt stored under that one receipt');
  assert.ok(existsSync(join(dataDir, 'slips', `${allocated}.img`)));
  assert.is((await getDeposit(scene, deposit.id)).status, 'slip_processing');
  const replay = await uploadFile(deposit.slip_upload, image, { key });
  assert.is(replay.status, 202);
  assert.is(replay.headers.get('idempotent-replay'), 'true');
  assert.is(replay.json.receipt_id, allocated);
});

test('different evidence after a 503 under the same key is 409 idempotency_key_reused', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  const key = randomUUID();
  store.failing = true;
  expectError(await uploadFile(deposit.slip_upload, pngSlip(), { key }), 'slip_intake_unavailable');
  store.failing = false;
  const e = expectError(await uploadFile(deposit.slip_upload, pngSlip(), { key }), 'idempotency_key_reused');
  assert.match(e.details.original_request_id, /^req_/);
});

test('the same evidence under another multipart boundary, or as JSON base64 with line breaks, is a replay with the same receipt', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  const image = pngSlip();
  const key = randomUUID();
  const rows = await journalRows(scene.s);
  const first = assertReceipt(await uploadFile(deposit.slip_upload, image, { key, payload: 'qr-123', boundary: 'AaB03x' }));
  const written = await journalRows(scene.s);
  assert.ok(written > rows);
  const replays = [
    await uploadFile(deposit.slip_upload, image, { key, payload: 'qr-123', boundary: `----Other${randomUUID()}`, filename: 'renamed.png', fileType: 'image/png' }),
    await uploadJson(deposit.slip_upload, `{"payload":"qr-123","image_base64":"${image.toString('base64').replace(/.{8}/g, '$&\\n')}"}`, key),
    await uploadJson(deposit.slip_upload, { image_base64: image.toString('base64url').replace(/=+$/, ''), payload: 'qr-123' }, key),
  ];
  for (const r of replays) {
    assert.is(r.status, 202, r.text);
    assert.is(r.headers.get('idempotent-replay'), 'true');
    assert.is(r.json.receipt_id, first.receipt_id);
    assert.is(r.json.received_at, first.received_at);
  }
  assert.is(await journalRows(scene.s), written, 'replays write nothing');
  const other = expectError(await uploadFile(deposit.slip_upload, image, { key, payload: 'qr-456' }), 'idempotency_key_reused');
  assert.match(other.details.original_request_id, /^req_/);
});

test('a retry while the first attempt is still being stored is 409 idempotency_in_flight; the first still gets its 202', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  const image = pngSlip();
  const key = randomUUID();
  store.putDelayMs = 300;
  try {
    const [first, second] = await Promise.all([
      uploadFile(deposit.slip_upload, image, { key }),
      new Promise((resolve) => setTimeout(resolve, 100)).then(() => uploadFile(deposit.slip_upload, image, { key })),
    ]);
    assertReceipt(first);
    const e = expectError(second, 'idempotency_in_flight');
    assert.is(e.retry_after_seconds, 1);
  } finally {
    store.putDelayMs = 0;
  }
});

test("retries answered idempotency_in_flight do not use up the end user's 20 uploads a minute: 25 of them, then the replay is still answered", async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() });
  const image = pngSlip();
  const key = randomUUID();
  store.putDelayMs = 1_000;
  try {
    const first = uploadFile(deposit.slip_upload, image, { key });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const retries = await Promise.all(Array.from({ length: 25 }, () => uploadFile(deposit.slip_upload, image, { key })));
    assert.equal([...new Set(retries.map((r) => `${r.status} ${r.json.error?.code}`))], ['409 idempotency_in_flight'], 'none refused 429 rate_limited');
    assertReceipt(await first);
  } finally {
    store.putDelayMs = 0;
  }
  const replay = await uploadFile(deposit.slip_upload, image, { key });
  assert.is(replay.status, 202, replay.text);
  assert.is(replay.headers.get('idempotent-replay'), 'true');
});

test('no-image fields in another key order and with occurred_at in +07:00 are the same evidence', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  const key = randomUUID();
  const first = assertReceipt(await uploadJson(deposit.slip_upload, { trans_ref: 'TR-778899', sending_bank_code: '014', occurred_at: '2026-11-21T03:00:00Z' }, key));
  const replay = await uploadJson(deposit.slip_upload, '{"occurred_at":"2026-11-21T10:00:00.000+07:00","sending_bank_code":"014","trans_ref":"TR-778899"}', key);
  assert.is(replay.status, 202, replay.text);
  assert.is(replay.headers.get('idempotent-replay'), 'true');
  assert.is(replay.json.receipt_id, first.receipt_id);
  expectError(await uploadJson(deposit.slip_upload, { trans_ref: 'TR-778899', sending_bank_code: '004', occurred_at: '2026-11-21T03:00:00Z' }, key), 'idempotency_key_reused');
});

test('slips under new keys while the first is being verified are taken up to the cap; the 4th is refused 422 and stores nothing', async () => {
  const deposit = await matchedDeposit(scene, { sender: freshSender() }); // a payer of its own (orders are left open)
  for (let i = 0; i < 3; i++) assertReceipt(await uploadFile(deposit.slip_upload, pngSlip()));
  assert.is((await getDeposit(scene, deposit.id)).status, 'slip_processing');
  const stored = store.puts.length;
  const e = expectError(await uploadFile(deposit.slip_upload, pngSlip()), 'validation_error');
  assert.equal(e.details.fields, [{ path: 'file', reason: 'upload_limit_reached' }]);
  assert.is(store.puts.length, stored, 'the core refused before anything was written');
});

test('evidence the worker cannot read is tried again, and after workerAttemptsPerSlipMax goes to review — never settled, never lost', async () => {
  const deposit = await matchedDeposit(scene, { amount_minor: 50_100 }); // paid by the default sender: an amount no other open order has
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, deposit, { image_sha256: sha256Hex(image) }));
  await scene.s.running.slipWorker.drain(); // what earlier tests left pending
  assertReceipt(await uploadFile(deposit.slip_upload, image));
  store.recordFailing = true;
  try {
    for (let attempt = 1; attempt < slipAdapterLimits.workerAttemptsPerSlipMax; attempt++) {
      assert.is(await scene.s.running.slipWorker.drain(), 0, `attempt ${attempt} failed on our side`);
      assert.is((await getDeposit(scene, deposit.id)).status, 'slip_processing');
    }
    assert.is(await scene.s.running.slipWorker.drain(), 1);
  } finally {
    store.recordFailing = false;
  }
  const after = await getDeposit(scene, deposit.id);
  assert.is(after.status, 'under_review');
  assert.equal(after.review.reasons.map((r: any) => r.code), ['PROVIDER_UNAVAILABLE']);
});

test('a slip received before a restart is verified after it (the journal is the queue)', async () => {
  const deposit = await matchedDeposit(scene, { amount_minor: 50_200 }); // paid by the default sender: an amount no other open order has
  const image = pngSlip();
  assertReceipt(await uploadFile(deposit.slip_upload, image));
  await scene.s.stop(false);
  scene = await slipSceneAgain();
  // The simulator keeps its transfers in memory: the bank learns of the transfer after the restart.
  await registerTransfer(scene.s, transferFor(scene, deposit, { image_sha256: sha256Hex(image) }));
  assert.ok(await scene.s.running.slipWorker.drain() >= 1);
  assert.is((await getDeposit(scene, deposit.id)).status, 'settled');
});

async function slipSceneAgain(): Promise<SlipScene> {
  const s = await TestServer.start({}, dataDir, { slipWorker: 'manual', slipStore: store });
  return { ...scene, s };
}

test.run();
