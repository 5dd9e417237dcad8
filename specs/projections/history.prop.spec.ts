// Property (fast-check): for random command sequences over three merchants of one white
// label in both modes — fundings, debits, withdrawals and their cancellation, deposits
// paid into other merchants' withdrawals and settled, time passing (clearing, expiry),
// sandbox resets — driven through the real store of a running server, the balance
// history read over HTTP with since_sequence pages of random limits:
// - returns every row exactly once, in sequence order (1, 2, …, checkpoint; unique ids);
// - sums to the authoritative balances (GET /v1/pay/balance): exactly in live; in sandbox,
//   with pending clearing folded into available, to the change since the run's reset;
// - ends at a checkpoint equal to those balances.
// Runs are kept modest (historyRuns) so the file stays well under a minute.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import type { Command } from '../../core/handler/commands.ts';
import { Driver, merchantActor } from '../adapters/support.ts';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { runWalletOp } from '../support/wallet-ops.ts';
import { settled } from '../../core/handler/handle.ts';

const historyRuns = 50;
const commandsPerRunMax = 25;
const hourMs = 3_600_000;

type Op =
  | { kind: 'fund'; m: number; live: boolean; amount: number }
  | { kind: 'debit'; m: number; live: boolean; amount: number }
  | { kind: 'withdraw'; m: number; live: boolean; amount: number }
  | { kind: 'cancel'; m: number; live: boolean; pick: number }
  | { kind: 'deposit'; m: number; live: boolean; amount: number }
  | { kind: 'advance'; hours: number }
  | { kind: 'reset'; m: number };

const merchant = fc.integer({ min: 0, max: 2 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('fund' as const), m: merchant, live: fc.boolean(), amount: fc.integer({ min: 1_000, max: 500_000 }) }),
  fc.record({ kind: fc.constant('debit' as const), m: merchant, live: fc.boolean(), amount: fc.integer({ min: 100, max: 200_000 }) }),
  fc.record({ kind: fc.constant('withdraw' as const), m: merchant, live: fc.boolean(), amount: fc.integer({ min: 10_000, max: 200_000 }) }),
  fc.record({ kind: fc.constant('cancel' as const), m: merchant, live: fc.boolean(), pick: fc.nat() }),
  fc.record({ kind: fc.constant('deposit' as const), m: merchant, live: fc.boolean(), amount: fc.integer({ min: 20, max: 2_000 }).map((x) => x * 100) }),
  fc.record({ kind: fc.constant('advance' as const), hours: fc.integer({ min: 1, max: 80 }) }),
  fc.record({ kind: fc.constant('reset' as const), m: merchant }),
);

let s: TestServer;
let driver: Driver;

interface Party { keys: MerchantKeys; beneficiary: { live: string; test: string }; openingTest: { available: bigint; reserved: bigint } }

async function parties(): Promise<Party[]> {
  const first = await s.onboard('P0');
  const all = [first, await s.onboard('P1', first.whiteLabelId), await s.onboard('P2', first.whiteLabelId)];
  const out: Party[] = [];
  for (const keys of all) {
    const register = (livemode: boolean) => driver.ok({
      type: 'RegisterBeneficiary', actor: { kind: 'operator', operatorId: 'emp_prop' }, merchantId: keys.id, livemode, bankCode: '004',
      accountNumber: `7${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`, accountNameTh: 'สมหญิง รักดี', verified: true,
    });
    out.push({ keys, beneficiary: { live: await register(true), test: await register(false) }, openingTest: { available: 0n, reserved: 0n } });
  }
  return out;
}

async function run(o: Op, ps: Party[]): Promise<void> {
  const store = s.running.store;
  const operator = { kind: 'operator' as const, operatorId: 'emp_prop' };
  const attempt = (c: Command) => settled(store.submit(c)); // a refusal is a fine outcome here
  switch (o.kind) {
    case 'fund':
    case 'debit':
    case 'withdraw':
    case 'cancel':
      return runWalletOp(o, ps, { world: store.world, attempt, operator, reason: 'prop' });
    case 'deposit': {
      const created = await attempt({ type: 'CreateDeposit', actor: merchantActor(ps[o.m]!.keys.id, o.live), amountMinor: BigInt(o.amount), merchantReference: `d-${randomUUID()}`, endUserRef: `u-${randomUUID().slice(0, 8)}`, sender: { bankCode: '014', accountNumber: '9876543210', accountNameTh: 'สมชาย ใจดี' }, hasClientData: true });
      if (created.ok && (store.world.deposits.get(created.objectId!)?.legs.length ?? 0) > 0) await driver.payFirstLeg(created.objectId!);
      return;
    }
    case 'advance':
      await s.running.services.write.advanceClock!(o.hours * hourMs);
      return;
    case 'reset': {
      const p = ps[o.m]!;
      const r = await s.call(p.keys.sandbox.api_key, 'POST', '/v1/test/sandbox/reset');
      assert.is(r.status, 200, r.text);
      const b = store.world.balances(p.keys.id, false);
      p.openingTest = { available: b.availableMinor + b.pendingClearingMinor, reserved: b.reservedMinor };
      return;
    }
  }
}

/** All rows of one merchant and mode, paged with the given limits (cycled). */
async function pages(key: string, live: boolean, limits: readonly number[]): Promise<{ rows: any[]; checkpoint: any }> {
  const rows: any[] = [];
  let since = '0';
  let generation = '';
  for (let i = 0; ; i++) {
    const r = await s.call(key, 'GET', `/v1/pay/balance/transactions?limit=${limits[i % limits.length]}&since_sequence=${since}${generation}`);
    assert.is(r.status, 200, r.text);
    if (!live) generation = `&run_generation=${r.json.run_generation}`;
    rows.push(...r.json.data);
    since = r.json.next_sequence;
    if (!r.json.has_more) return { rows, checkpoint: r.json.checkpoint };
  }
}

async function check(ps: Party[], limits: readonly number[]): Promise<void> {
  for (const p of ps) {
    for (const live of [true, false]) {
      const key = live ? p.keys.live.api_key : p.keys.sandbox.api_key;
      const { rows, checkpoint } = await pages(key, live, limits);
      assert.equal(rows.map((r) => r.sequence), rows.map((_, i) => String(i + 1)), 'every row once, in sequence order');
      assert.is(new Set(rows.map((r) => r.id)).size, rows.length, 'ids unique');
      assert.is(checkpoint.sequence, String(rows.length));
      const total = (bucket: string) => rows.reduce((t, r) => t + BigInt(r.bucket_deltas[bucket]), 0n);
      const balance = (await s.call(key, 'GET', '/v1/pay/balance')).json;
      if (live) {
        for (const bucket of ['available_minor', 'pending_clearing_minor', 'reserved_minor']) {
          assert.is(total(bucket).toString(), String(balance[bucket]), `${p.keys.id} live ${bucket}: rows sum to the balance`);
          assert.is(checkpoint[bucket], String(balance[bucket]));
        }
      } else {
        const available = BigInt(balance.available_minor) + BigInt(balance.pending_clearing_minor);
        assert.is(total('available_minor'), available - p.openingTest.available, `${p.keys.id} sandbox: rows sum to the change since the reset`);
        assert.is(total('reserved_minor'), BigInt(balance.reserved_minor) - p.openingTest.reserved);
        assert.is(total('pending_clearing_minor'), 0n);
        assert.equal([checkpoint.available_minor, checkpoint.reserved_minor], [available.toString(), String(balance.reserved_minor)]);
      }
    }
  }
}

test.before(async () => {
  s = await TestServer.start();
  driver = new Driver(s.running.store, s.clock);
});
test.after(async () => { await s.stop(); });

test('balance history: rows of each merchant sum to the authoritative balances; paging returns each row once, in order', async () => {
  let settled = 0;
  await fc.assert(fc.asyncProperty(
    fc.array(op, { minLength: 1, maxLength: commandsPerRunMax }),
    fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 6 }),
    async (ops, limits) => {
      const ps = await parties();
      // Seed liquidity so that deposits find withdrawals to pay into.
      await run({ kind: 'fund', m: 0, live: true, amount: 400_000 }, ps);
      await run({ kind: 'withdraw', m: 0, live: true, amount: 150_000 }, ps);
      for (const o of ops) await run(o, ps);
      settled += [...s.running.store.world.deposits.values()].filter((d) => d.status === 'settled' && ps.some((p) => p.keys.id === d.merchantId)).length;
      await check(ps, limits);
    },
  ), { numRuns: historyRuns });
  assert.ok(settled > 0, 'the generator reaches deposit settlements');
});

test.run();
