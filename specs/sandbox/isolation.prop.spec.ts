// Isolation of the two modes, as a property (DESIGN.md "Sandbox": no sandbox command
// changes a live figure, and no live command a sandbox one). Random sequences of live and
// sandbox commands from two merchants of one white label — deposits of the scenario
// amounts and of ordinary ones, withdrawals (both modes' liquidity), payments, reviews,
// cancellations, reversals, adjustments, sandbox run resets and the clock, whose timers
// fire one at a time — run through the real command handler. Before and after each
// command (and each fired timer), the OTHER mode's view is taken: every merchant's
// balances, its merchant events (so its per-merchant sequences), its balance transactions
// (the rows balance history is built from), its deposits and withdrawals, its pending
// timers and the sandbox run generation. The two views must be identical. A failure
// prints the shrunk command list.

import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Command } from '../../core/handler/commands.ts';
import { sandboxScenarios } from '../../core/sandbox/scenarios.ts';
import { defaultSender, exactTransfer, Harness, merchantActor, operator, system } from '../support/core-harness.ts';

const runs = Number(process.env.SATANG_PROP_RUNS ?? 500);

interface Real { h: Harness; merchants: string[]; checked: { commands: number; timers: number } }

const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

/** Everything of one mode a command of the other mode must leave alone. */
function view(r: Real, livemode: boolean): string {
  const { h } = r;
  const streams = new Set<string>();
  const deposits = [...h.world.deposits.values()].filter((d) => d.livemode === livemode);
  const withdrawals = [...h.world.withdrawals.values()].filter((w) => w.livemode === livemode);
  for (const o of [...deposits, ...withdrawals]) streams.add(o.id);
  return json({
    balances: r.merchants.map((m) => h.world.balances(m, livemode)),
    runs: livemode ? null : r.merchants.map((m) => h.world.merchants.get(m)!.sandboxRunGeneration ?? 1),
    events: h.journal.events.filter((e) => e.livemode === livemode),
    rows: h.journal.entries.flatMap((e) => (e.event.type === 'BalanceTransactionPosted' && e.event.transaction.livemode === livemode ? [e.event.transaction] : [])),
    deposits, withdrawals,
    timers: [...streams].flatMap((s) => h.world.timersOf(s)),
  });
}

/** Runs `step` (whose changes belong to `livemode`) and checks the other mode did not move. */
function isolated(r: Real, livemode: boolean, what: string, step: () => void): void {
  const before = view(r, !livemode);
  step();
  const after = view(r, !livemode);
  if (before !== after) assert.unreachable(`${what} (${livemode ? 'live' : 'sandbox'}) changed the ${livemode ? 'sandbox' : 'live'} view`);
}

function modeOfStream(r: Real, stream: string): boolean | undefined {
  const w = r.h.world;
  return w.deposits.get(stream)?.livemode ?? w.withdrawals.get(stream)?.livemode ?? w.beneficiaries.get(stream)?.livemode;
}

const pick = <T>(xs: readonly T[], i: number): T | undefined => (xs.length === 0 ? undefined : xs[i % xs.length]);

type Cmd = { toString(): string; run(r: Real): void };

const amounts = [...sandboxScenarios.map((s) => BigInt(s.amountMinor)), 20_000n, 50_000n];

function command(kind: number, m: number, livemode: boolean, i: number): Cmd {
  const name = ['Deposit', 'Withdrawal', 'Pay', 'Cancel', 'Review', 'Reverse', 'Adjust', 'Reset', 'Advance'][kind]!;
  return {
    toString: () => `${name}(m${m}, ${livemode ? 'live' : 'sandbox'}, ${i})`,
    run(r: Real) {
      if (name === 'Advance') return advance(r, [5_000, 25_000, 60_000, 300_000, 3_600_000][i % 5]!);
      const c = build(r, name, r.merchants[m % r.merchants.length]!, livemode, i);
      if (!c) return;
      isolated(r, livemode, this.toString(), () => { for (const one of c) r.h.exec(one); });
      r.checked.commands++;
    },
  };
}

/** The command(s) a step stands for, against the world as it is; undefined when nothing fits. */
function build(r: Real, name: string, merchantId: string, livemode: boolean, i: number): Command[] | undefined {
  const { h } = r;
  const actor = merchantActor(merchantId, livemode);
  const own = [...h.world.deposits.values()].filter((d) => d.merchantId === merchantId && d.livemode === livemode);
  const inStatus = (status: string) => own.filter((d) => d.status === status).map((d) => d.id);
  switch (name) {
    case 'Deposit':
      return [{ type: 'CreateDeposit', actor, amountMinor: pick(amounts, i)!, merchantReference: h.ids.next('ref'), endUserRef: h.ids.next('user'), sender: defaultSender, hasClientData: true }];
    case 'Withdrawal': {
      const ben = h.beneficiary(merchantId, livemode, `55${String(i).padStart(8, '0')}`);
      return [{ type: 'CreateWithdrawal', actor, amountMinor: pick([10_000n, 30_000n, 100_000n], i)!, merchantReference: h.ids.next('ref'), endUserRef: 'payee', beneficiaryId: ben, requiresApproval: false, p2pMinimumApplies: false }];
    }
    case 'Pay': {
      const id = pick(inStatus('awaiting_payment'), i);
      if (!id) return undefined;
      const receiptId = h.ids.next('rcpt');
      return [{ type: 'ReceiveSlip', actor: system, depositId: id, receiptId, hasImage: true },
        { type: 'RecordSlipVerification', actor: system, depositId: id, receiptId, outcome: { kind: 'found', transfer: exactTransfer(h, id, { transRef: `tr_${receiptId}` }), facts: { senderBankDisabled: false } } }];
    }
    case 'Cancel': {
      const id = pick([...inStatus('awaiting_payment'), ...inStatus('awaiting_liquidity')], i);
      return id ? [{ type: 'CancelDeposit', actor, depositId: id }] : undefined;
    }
    case 'Review': {
      const id = pick(inStatus('under_review'), i);
      return id ? [{ type: i % 2 === 0 ? 'ApproveDepositReview' : 'DeclineDepositReview', actor: operator(), depositId: id, note: 'Checked against the bank statement today.' } as Command] : undefined;
    }
    case 'Reverse': {
      const id = pick(inStatus('settled'), i);
      return id ? [{ type: 'ReverseDeposit', actor: operator(), depositId: id, reasonCode: 'BANK_RECALL', note: 'recalled by the sender bank' }] : undefined;
    }
    case 'Adjust':
      return [{ type: 'PostAdjustment', actor: operator(), merchantId, livemode, amountMinor: 1_000n + BigInt(i), direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'correction' }];
    case 'Reset':
      return livemode ? undefined : [{ type: 'ResetSandboxRun', actor: { kind: 'merchant', merchantId, livemode: false } }];
    default:
      return undefined;
  }
}

/** Moves the clock, firing due timers one at a time, each checked against the other mode. */
function advance(r: Real, ms: number): void {
  const { h } = r;
  const target = h.clock.ms + ms;
  for (let fired = 0; fired < 500; fired++) {
    const next = h.world.nextTimerDueAt();
    if (next === undefined || next > target) break;
    if (next > h.clock.ms) h.clock.ms = next;
    const due = h.world.dueTimers(h.clock.ms, 1)[0]!;
    const livemode = modeOfStream(r, due.stream);
    if (livemode === undefined) { h.handler.fireDueTimers(1); continue; }
    isolated(r, livemode, `timer ${due.kind}${due.arg ? `:${due.arg}` : ''}`, () => h.handler.fireDueTimers(1));
    r.checked.timers++;
  }
  h.clock.ms = target;
}

const commandArb = fc.tuple(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 1 }), fc.boolean(), fc.nat(1000))
  .map(([kind, m, livemode, i]) => command(kind, m, livemode, i));

const totals = { commands: 0, timers: 0 };

test('no sandbox command or timer changes a live figure, and no live one a sandbox figure', () => {
  fc.assert(fc.property(fc.array(commandArb, { minLength: 1, maxLength: 40 }), (cmds) => {
    const h = new Harness();
    const wl = h.whiteLabel();
    const merchants = [h.merchant(wl), h.merchant(wl)];
    for (const m of merchants) for (const livemode of [true, false]) {
      h.ok({ type: 'PostAdjustment', actor: operator(), merchantId: m, livemode, amountMinor: 1_000_000n, direction: 'credit', bucket: 'available', reasonCode: 'FUNDING', reason: 'opening funds' });
    }
    const r: Real = { h, merchants, checked: { commands: 0, timers: 0 } };
    for (const c of cmds) c.run(r);
    totals.commands += r.checked.commands;
    totals.timers += r.checked.timers;
  }), { numRuns: runs });
  assert.ok(totals.commands > runs, `commands were checked (${totals.commands})`);
  assert.ok(totals.timers > 0, `timers were checked (${totals.timers})`);
});

test.run();
