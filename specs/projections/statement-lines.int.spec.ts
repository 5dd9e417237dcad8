// GET /v1/bo/reports/statement-lines against GET /v1/bo/reports/statements, over real HTTP:
// in each mode, the lines of a period, summed by bucket and type from their bucket_deltas,
// are the statement's movements (credits and debits), no line outside them. Around what
// makes the sandbox differ from live: money in pending_clearing (the sandbox merchant's own
// history folds it into available and leaves out a clearing release, which moves nothing
// there), a 10300 deposit settled then reversed inside the clearing window, and a sandbox
// reset (the merchant's history starts a new run; the ledger, and so the statement and its
// lines, keep every past day).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'csv-parse/sync';
import { bangkokDayOf } from '../../core/finance/calendar.ts';
import { matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, type SlipScene } from '../support/slip-harness.ts';
import { advanceSeconds, sandboxDeposit, type SandboxScene } from '../sandbox/support.ts';

const buckets = ['available', 'pending_clearing', 'reserved'] as const;
let scene: SlipScene;
let firstDay: string;

const finance = { roles: ['finance'] };

async function report(path: string): Promise<any> {
  const r = await scene.s.bo('GET', path, undefined, finance);
  assert.is(r.status, 200, r.text);
  return r;
}

/** The lines of a period in a mode, asserting that by bucket and type they are the statement's movements. */
async function linesTieOut(livemode: boolean, from: string, to: string, merchantId = scene.shop.id): Promise<any[]> {
  const query = `merchant_id=${merchantId}&livemode=${livemode}&from=${from}&to=${to}`;
  const statement = (await report(`/v1/bo/reports/statements?${query}`)).json;
  const lines = (await report(`/v1/bo/reports/statement-lines?${query}`)).json;
  assert.is(lines.count, lines.data.length);
  const sums = new Map<string, { credit_minor: number; debit_minor: number }>();
  for (const l of lines.data) {
    for (const bucket of buckets) {
      const delta = l.bucket_deltas[`${bucket}_minor`] as number;
      if (delta === 0) continue;
      const sum = sums.get(`${bucket} ${l.type}`) ?? { credit_minor: 0, debit_minor: 0 };
      sums.set(`${bucket} ${l.type}`, { credit_minor: sum.credit_minor + Math.max(0, delta), debit_minor: sum.debit_minor + Math.max(0, -delta) });
    }
  }
  const movements = new Map<string, { credit_minor: number; debit_minor: number }>();
  for (const b of statement.buckets) {
    for (const m of b.movements) if (m.net_minor !== 0 || m.credit_minor !== 0) movements.set(`${b.bucket} ${m.type}`, { credit_minor: m.credit_minor, debit_minor: m.debit_minor });
  }
  const sorted = (m: Map<string, unknown>) => [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
  assert.equal(sorted(sums), sorted(movements), `${livemode ? 'live' : 'sandbox'} ${from}–${to}: the lines by bucket and type are the statement's movements`);
  // The CSV holds the same lines, deltas and all.
  const csv = parse((await report(`/v1/bo/reports/statement-lines?${query}&format=csv`)).text, { columns: true }) as Record<string, string>[];
  assert.equal(csv.map((r) => [r.id, r.type, Number(r.available_minor), Number(r.pending_clearing_minor), Number(r.reserved_minor)]),
    lines.data.map((l: any) => [l.id, l.type, l.bucket_deltas.available_minor, l.bucket_deltas.pending_clearing_minor, l.bucket_deltas.reserved_minor]));
  return lines.data;
}

test.before(async () => {
  scene = await slipScene();
  firstDay = bangkokDayOf(scene.s.clock.now());
  const shop = scene.shop;
  // Live: a funding, and a deposit settled (into pending clearing) by a verified slip.
  await scene.s.fund(shop.id, 1_000_000);
  const d = await matchedDeposit(scene);
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, d, { image_sha256: sha256Hex(image) }));
  assert.is((await uploadFile(d.slip_upload, image)).status, 202);
  await scene.s.running.slipWorker.drain();
  assert.is((await scene.s.call(shop.live.api_key, 'GET', `/v1/pay/deposits/${d.id}`)).json.status, 'settled');
  // Sandbox: 10000 settles at +5 s; 10300 settles at +5 s and is reversed 60 s later, inside the clearing window.
  const sandbox = { s: scene.s, shop } as SandboxScene;
  await sandboxDeposit(sandbox, 10_000);
  await sandboxDeposit(sandbox, 10_300);
  await advanceSeconds(sandbox, 5);
  await advanceSeconds(sandbox, 60);
  // Past the clearing window: pending clearing is released into available, in both modes.
  await advanceSeconds(sandbox, 73 * 3600);
});
test.after(async () => { await scene.s.stop(); });

test('live and sandbox: the statement lines sum to the statement, pending clearing and its release included', async () => {
  const today = bangkokDayOf(scene.s.clock.now());
  for (const livemode of [true, false]) {
    const lines = await linesTieOut(livemode, firstDay, today);
    assert.ok(lines.some((l) => l.bucket_deltas.pending_clearing_minor > 0), `${livemode}: a credit into pending clearing`);
    assert.ok(lines.some((l) => l.bucket_deltas.pending_clearing_minor < 0 && l.bucket_deltas.available_minor > 0), `${livemode}: its release into available`);
    for (const day of [firstDay, today]) await linesTieOut(livemode, day, day);
  }
  const sandbox = await linesTieOut(false, firstDay, firstDay);
  const reversal = sandbox.find((l) => l.type === 'reversal' && l.source.type === 'deposit');
  assert.ok(reversal, 'the 10300 reversal is a line');
  assert.equal(reversal.bucket_deltas, { available_minor: 0, pending_clearing_minor: -10_300, reserved_minor: 0 }, 'taken from pending clearing, as the statement books it');
  assert.ok(sandbox.every((l) => l.id.startsWith('sbxbtxn_l_')), 'sandbox lines keep the ids the merchant sees');
  // A reversal and a clearing release name the line they refer to as that line is named, in each mode.
  for (const livemode of [true, false]) {
    const lines = await linesTieOut(livemode, firstDay, today);
    const ids = new Set(lines.map((l) => l.id));
    const referring = lines.filter((l) => l.reverses_balance_transaction_id || l.cleared_from_balance_transaction_id);
    assert.ok(referring.some((l) => l.cleared_from_balance_transaction_id), `${livemode}: a clearing release`);
    for (const l of referring) {
      for (const ref of [l.reverses_balance_transaction_id, l.cleared_from_balance_transaction_id].filter(Boolean)) assert.ok(ids.has(ref), `${livemode}: ${l.type} ${l.id} refers to ${ref}, no line`);
    }
  }
  const settled = sandbox.find((l) => l.type === 'deposit_settled' && l.source.id === reversal.source.id);
  assert.is(reversal.reverses_balance_transaction_id, settled.id, 'the 10300 reversal names its deposit_settled line');
  const csv = parse((await report(`/v1/bo/reports/statement-lines?merchant_id=${scene.shop.id}&livemode=false&date=${firstDay}&format=csv`)).text, { columns: true }) as Record<string, string>[];
  assert.is(csv.find((r) => r.id === reversal.id)!.reverses_balance_transaction_id, settled.id, 'and so does its CSV line');
  // The merchant's page in the back office: the reversal's row names the row it reverses.
  const page = (await report(`/v1/bo/merchants/${scene.shop.id}/balance-transactions?livemode=false&limit=100`)).json.data;
  assert.is(page.find((r: any) => r.id === reversal.id).reverses_balance_transaction_id, page.find((r: any) => r.id === settled.id).id);
});

test('the account lines name a sandbox transaction as its statement line does, in the JSON and the CSV', async () => {
  const today = bangkokDayOf(scene.s.clock.now());
  for (const livemode of [true, false]) {
    const lines = await linesTieOut(livemode, firstDay, today);
    const ids = new Set(lines.map((l) => l.id));
    const mine: any[] = [];
    for (const account of ['suspense', 'reversals', 'adjustments', 'gateway_settlement']) {
      const query = `account=${account}&livemode=${livemode}&from=${firstDay}&to=${today}`;
      const json = (await report(`/v1/bo/reports/account-lines?${query}`)).json.data.filter((l: any) => l.merchant_id === scene.shop.id);
      const csv = (parse((await report(`/v1/bo/reports/account-lines?${query}&format=csv`)).text, { columns: true }) as Record<string, string>[])
        .filter((r) => r.line === 'posting' && r.merchant_id === scene.shop.id);
      assert.equal(csv.map((r) => [r.balance_transaction_id, r.reverses_balance_transaction_id || undefined]),
        json.map((l: any) => [l.balance_transaction_id, l.reverses_balance_transaction_id]), `${livemode} ${account}: the CSV names the JSON's ids`);
      mine.push(...json);
    }
    assert.ok(mine.length > 0, `${livemode}: the merchant's postings to system accounts`);
    if (!livemode) assert.ok(mine.some((l) => l.type === 'reversal' && l.reverses_balance_transaction_id), 'the 10300 reversal among the account lines');
    for (const l of mine) {
      for (const ref of [l.balance_transaction_id, l.reverses_balance_transaction_id].filter(Boolean)) {
        assert.ok(ids.has(ref), `${livemode}: account line ${l.type} ${l.balance_transaction_id} names ${ref}, no statement line`);
        assert.match(ref, livemode ? /^btxn_/ : /^sbxbtxn_l_/);
      }
    }
  }
});

test('a sandbox reset starts a new run of the merchant\'s history, not of its ledger: the lines of past days stay and still tie out', async () => {
  const today = bangkokDayOf(scene.s.clock.now());
  const before = await linesTieOut(false, firstDay, today);
  const reset = await scene.s.call(scene.shop.sandbox.api_key, 'POST', '/v1/test/sandbox/reset', {});
  assert.is(reset.status, 200, reset.text);
  const after = await linesTieOut(false, firstDay, today);
  assert.equal(after, before, 'the same lines after the reset');
  // A movement of the new run joins them.
  await scene.s.fund(scene.shop.id, 2_500, false);
  const more = await linesTieOut(false, firstDay, bangkokDayOf(scene.s.clock.now()));
  assert.equal(more.slice(0, before.length), before);
  assert.equal(more.slice(before.length).map((l: any) => [l.type, l.bucket_deltas.available_minor, l.source.id]), [['adjustment', 2_500, more.at(-1).id]], 'an adjustment\'s source is its own line');
  await linesTieOut(true, firstDay, today);
});

test('a sandbox reset alone: a merchant funded by an adjustment keeps that line, as its statement keeps the adjustment', async () => {
  const shop = await scene.s.onboard('Funded');
  await scene.s.fund(shop.id, 1_000_000, false);
  const today = bangkokDayOf(scene.s.clock.now());
  const before = await linesTieOut(false, today, today, shop.id);
  assert.equal(before.map((l) => [l.type, l.bucket_deltas.available_minor]), [['adjustment', 1_000_000]]);
  const reset = await scene.s.call(shop.sandbox.api_key, 'POST', '/v1/test/sandbox/reset', {});
  assert.is(reset.status, 200, reset.text);
  assert.equal(await linesTieOut(false, today, today, shop.id), before);
});

test.run();
