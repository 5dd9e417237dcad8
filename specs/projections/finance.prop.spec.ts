// Property (fast-check): for random command sequences spanning several days on the manual
// clock — fundings and debits, withdrawals and their cancellation, deposits paid exactly,
// short (reviewed and approved) and over (same-slip excess), multi-leg deposits, reversals
// inside and after clearing, fill reversals — driven through the real store of a running
// server, the finance reports read over HTTP:
// - every daily statement (each merchant, mode, bucket, Bangkok day): opening + movements
//   = closing; closing = the ledger's balance at the day's end, summed independently from
//   journal.db's postings; one day's opening is the day before's closing;
// - a statement for a period of days (from, to) is its first day's opening, the sum of its
//   days' movements type by type, and its last day's closing;
// - the trial balance at day ends and at random instants balances in each mode (Σ debits =
//   Σ credits, balances sum to zero) and every account equals the journal's postings up to
//   that instant;
// - the CSV of each statement and trial balance, parsed back with csv-parse, gives the same
//   figures as the JSON.
// - the fees report (each mode, from the run's first day to today) sums its merchants'
//   lines, and its net fee and VAT are fee_revenue's and vat_payable's change in the trial
//   balance over those days; its CSV gives the same figures.
// - what the claims' refunds paid out of suspense (their refund withdrawals' fills) less
//   what payers owe back is the trial balance's owed_by_payees line in each mode, and the
//   claims GET /v1/bo/claims?owed_by_payee=true lists are that line claim by claim;
// - what payers owe back and what finance wrote off of it (a write-off proposed by one finance
//   operator, approved or not by another) are the trial balance's owed_by_payers and
//   payer_debts_written_off lines in each mode, claim by claim (the line is the sum of the
//   claims' owed_by_payer_minor, resp. written_off_minor), each claim's debt, owed and written
//   off together, within what it refunded; the written-off line is there once a write-off was.
// And a worked example of fees and their VAT, in the trial balance and the fees report.
// Refunds are driven as claims (manual, and the overpayment claims a same-slip excess opens)
// paid out through a refund withdrawal, filled by deposits of another payer (every run ends
// with one filled, in a white label of its own: closingRefund); a reversal may record the
// refunds already paid as owed back by the payer, which finance may write off.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { Command } from '../../core/handler/commands.ts';
import { bangkokDayBounds, bangkokDayOf } from '../../core/finance/calendar.ts';
import { balanceTransactionIdOf } from '../../core/present.ts';
import { merchantActor } from '../adapters/support.ts';
import { attempt as attemptCommand, financeOperator as operator, payLeg } from '../support/finance.ts';
import { satangRun } from '../support/projections.ts';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';
import { allDeposits, allWithdrawals } from '../support/orders.ts';
import { refundWithdrawalsOf } from '../../core/claim/state.ts';
import { isOpenStatus, remainingOf } from '../../core/withdrawal/state.ts';
import { runWalletOp } from '../support/wallet-ops.ts';

const financeRuns = 20;
const commandsPerRunMax = 22;
const hourMs = 3_600_000;

type Op =
  | { kind: 'fund' | 'debit'; m: number; live: boolean; amount: number }
  | { kind: 'withdraw'; m: number; live: boolean; amount: number }
  | { kind: 'cancel'; m: number; live: boolean; pick: number }
  | { kind: 'deposit'; m: number; live: boolean; amount: number; pay: 'exact' | 'short' | 'over' | 'none'; payer: number }
  | { kind: 'reverse'; pick: number; recoverFromPayer: boolean }
  | { kind: 'reverseFill'; pick: number }
  | { kind: 'refund'; pick: number; amount: number; claim: 'manual' | 'overpayment'; pay: boolean }
  | { kind: 'writeOff'; pick: number; share: number; approve: boolean; recall: boolean }
  | { kind: 'advance'; hours: number };

const merchant = fc.integer({ min: 0, max: 2 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constantFrom('fund' as const, 'debit' as const), m: merchant, live: fc.boolean(), amount: fc.integer({ min: 1_000, max: 900_000 }) }), weight: 8 },
  { arbitrary: fc.record({ kind: fc.constant('withdraw' as const), m: merchant, live: fc.boolean(), amount: fc.integer({ min: 10_000, max: 300_000 }) }), weight: 8 },
  { arbitrary: fc.record({ kind: fc.constant('cancel' as const), m: merchant, live: fc.boolean(), pick: fc.nat() }), weight: 8 },
  { arbitrary: fc.record({ kind: fc.constant('deposit' as const), m: merchant, live: fc.boolean(), amount: fc.integer({ min: 20, max: 5_000 }).map((x) => x * 100), pay: fc.constantFrom('exact' as const, 'short' as const, 'over' as const, 'none' as const), payer: fc.integer({ min: 0, max: 1 }) }), weight: 8 },
  { arbitrary: fc.record({ kind: fc.constant('reverse' as const), pick: fc.nat(), recoverFromPayer: fc.boolean() }), weight: 8 },
  { arbitrary: fc.record({ kind: fc.constant('reverseFill' as const), pick: fc.nat() }), weight: 8 },
  { arbitrary: fc.record({ kind: fc.constant('refund' as const), pick: fc.nat(), amount: fc.integer({ min: 1, max: 50 }).map((x) => x * 100), claim: fc.constantFrom('manual' as const, 'overpayment' as const), pay: fc.boolean() }), weight: 8 },
  { arbitrary: fc.record({ kind: fc.constant('advance' as const), hours: fc.integer({ min: 1, max: 80 }) }), weight: 8 },
  // Rarer than the others, so they keep their share (a run closes with one as well: closingWriteOff).
  { arbitrary: fc.record({ kind: fc.constant('writeOff' as const), pick: fc.nat(), share: fc.double({ min: 0, max: 1, noNaN: true }), approve: fc.boolean(), recall: fc.boolean() }), weight: 1 },
);
/** A write-off step closes every run as well: the payer debts it needs are rare, so one among the ops seldom meets one. */
const closingWriteOff: fc.Arbitrary<Extract<Op, { kind: 'writeOff' }>> = fc.record({ kind: fc.constant('writeOff' as const), pick: fc.nat(), share: fc.double({ min: 0, max: 1, noNaN: true }), approve: fc.boolean(), recall: fc.boolean() });
/**
 * And then a refund filled (closingRefund): its mode, the deposit's amount and its payer. The
 * amount is above the sandbox's scenario amounts (100 to 116 baht, core/sandbox/scenarios.ts),
 * which would keep a sandbox deposit waiting or refuse a withdrawal.
 */
const closingRefundOf = fc.record({ live: fc.boolean(), amount: fc.integer({ min: 117, max: 5_000 }).map((x) => x * 100), payer: fc.integer({ min: 0, max: 1 }) });

let s: TestServer;
let journal: Database.Database;
let n = 0;
/** Movement types the statements showed, to prove the runs reach every kind of movement. */
const seenTypes = new Set<string>();

interface Party { keys: MerchantKeys; beneficiary: { live: string; test: string } }

const attempt = (c: Command) => attemptCommand(s, c); // a refusal is a fine outcome here

async function parties(): Promise<Party[]> {
  const first = await s.onboard('ร้านหนึ่ง, "First"');
  const all = [first, await s.onboard('ร้านสอง', first.whiteLabelId), await s.onboard('Shop 3', first.whiteLabelId)];
  const out: Party[] = [];
  for (const keys of all) out.push(await partyOf(keys));
  return out;
}

/** The merchant with a verified beneficiary in each mode. */
async function partyOf(keys: MerchantKeys): Promise<Party> {
  const register = async (livemode: boolean) => {
    const r = await attempt({ type: 'RegisterBeneficiary', actor: operator, merchantId: keys.id, livemode, bankCode: '004', accountNumber: `7${String(++n).padStart(9, '0')}`, accountNameTh: 'สมหญิง รักดี', verified: true });
    assert.ok(r.ok);
    return r.objectId!;
  };
  return { keys, beneficiary: { live: await register(true), test: await register(false) } };
}

/** Two payers: a claim's refund goes to its deposit's payer, and only the other one's transfers can fill it. */
const payers = [
  { bankCode: '014', accountNumber: '9876543210', accountNameTh: 'สมชาย ใจดี' },
  { bankCode: '025', accountNumber: '1357924680', accountNameTh: 'สมศรี มีสุข' },
] as const;

async function deposit(o: Extract<Op, { kind: 'deposit' }>, ps: Party[]): Promise<void> {
  const store = s.running.store;
  const created = await attempt({ type: 'CreateDeposit', actor: merchantActor(ps[o.m]!.keys.id, o.live), amountMinor: BigInt(o.amount), merchantReference: `d-${randomUUID()}`, endUserRef: `u-${++n}`, sender: payers[o.payer]!, hasClientData: true });
  if (!created.ok || o.pay === 'none') return;
  const legs = store.world.deposits.get(created.objectId!)?.legs ?? [];
  for (let i = 0; i < legs.length; i++) {
    const asked = legs[i]!.amountMinor;
    const last = i === legs.length - 1;
    const amount = !last || o.pay === 'exact' ? asked : o.pay === 'short' ? asked - asked / 3n : asked + 700n;
    await payLeg(s, created.objectId!, i, amount > 0n ? amount : asked);
  }
}

async function run(o: Op, ps: Party[]): Promise<void> {
  const store = s.running.store;
  switch (o.kind) {
    case 'fund':
    case 'debit':
    case 'withdraw':
    case 'cancel':
      return runWalletOp(o, ps, { world: store.world, attempt, operator, reason: 'ปรับยอด, "prop"' });
    case 'deposit':
      return deposit(o, ps);
    case 'reverse': {
      const ids = new Set(ps.map((p) => p.keys.id));
      const candidates = allDeposits(store.db).filter((d) => ids.has(d.merchantId) && d.status === 'settled'); // cleared ones too: they leave memory
      if (candidates.length > 0) {
        await attempt({
          type: 'ReverseDeposit', actor: operator, depositId: candidates[o.pick % candidates.length]!.id, reasonCode: 'BANK_RECALL', note: 'bank recalled the transfer',
          ...(o.recoverFromPayer ? { claimRefunds: 'recover_from_payer' as const } : {}),
        });
      }
      return;
    }
    case 'reverseFill': {
      const ids = new Set(ps.map((p) => p.keys.id));
      const fills = allWithdrawals(store.db).filter((w) => ids.has(w.merchantId)).flatMap((w) => w.fills.filter((f) => !f.reversal).map((f) => ({ w, f })));
      if (fills.length > 0) {
        const { w, f } = fills[o.pick % fills.length]!;
        await attempt({ type: 'ReverseFill', actor: operator, withdrawalId: w.id, legRef: f.legRef, reasonCode: 'OPS_ERROR', note: 'paid to the wrong account' });
      }
      return;
    }
    case 'refund': {
      // A claim walked to its payout: a refund withdrawal to the payer, funded from suspense
      // (never the merchant's available), filled by later deposits of the other payer. A
      // manual claim on a settled deposit, or an overpayment claim a same-slip excess opened.
      const claimId = o.claim === 'manual' ? await manualClaim(o, ps) : overpaymentClaim(o, ps);
      if (claimId === undefined) return;
      // Four eyes: the refund by another operator than the opener, the payout by a third.
      for (const transition of ['review', 'refund', 'payout'] as const) {
        const r = await attempt({ type: 'DecideClaim', actor: { kind: 'operator', operatorId: `emp_${transition}` }, claimId, transition, note: `claim ${transition} in the property` });
        if (!r.ok) return;
      }
      refundsPaidOut++;
      if (o.claim === 'overpayment') overpaymentRefundsPaidOut++;
      if (o.pay) await payRefund(claimId, ps);
      return;
    }
    case 'advance':
      await s.running.services.write.advanceClock!(o.hours * hourMs);
      return;
    case 'writeOff':
      return writeOff(o);
  }
}

/**
 * Part or all of what a claim's payer owes back, written off (any claim of the run's or an
 * earlier run's, closingRefund's among them: a claim that refunded its payer is rare among a
 * run's ops): one finance operator proposes it (refused while another proposal waits), a
 * second approves the proposal that waits, naming its amount, when `o.approve` (else it
 * waits, and may lapse). While no payer owes anything, a claim that refunded its payer has
 * its deposit reversed first when `o.recall`, recording the refund as owed back (a reverse op
 * alone rarely picks such a deposit). The payees still owe at the run's checks: closingRefund
 * comes after the run's last write-off.
 */
async function writeOff(o: Extract<Op, { kind: 'writeOff' }>): Promise<void> {
  const claims = () => [...s.running.store.world.claims.values()];
  if (o.recall && !claims().some((c) => (c.owedByPayerMinor ?? 0n) > 0n)) {
    const settledIds = new Set(allDeposits(s.running.store.db).filter((d) => d.status === 'settled').map((d) => d.id));
    const refunded = claims().filter((c) => c.status === 'closed' && (c.refundedMinor ?? 0n) > 0n && settledIds.has(c.depositId));
    if (refunded.length > 0) {
      await attempt({ type: 'ReverseDeposit', actor: operator, depositId: refunded[o.pick % refunded.length]!.depositId, reasonCode: 'BANK_RECALL', note: 'bank recalled the transfer', claimRefunds: 'recover_from_payer' });
    }
  }
  const owing = claims().filter((c) => (c.owedByPayerMinor ?? 0n) > 0n);
  if (owing.length === 0) return;
  const claim = owing[o.pick % owing.length]!;
  const amountMinor = 1n + BigInt(Math.floor(Number(claim.owedByPayerMinor! - 1n) * o.share));
  const proposed = await attempt({ type: 'ProposeWriteOff', actor: { kind: 'operator', operatorId: 'emp_wo_proposer' }, claimId: claim.id, amountMinor, note: 'the payer cannot be reached; collection declined' });
  if (proposed.ok) writeOffsProposed++;
  const waiting = s.running.store.world.claims.get(claim.id)!.writeOffProposal;
  if (!o.approve || waiting === undefined) return;
  const approved = await attempt({ type: 'ApproveWriteOff', actor: { kind: 'operator', operatorId: 'emp_wo_approver' }, claimId: claim.id, proposalId: waiting.id, amountMinor: waiting.amountMinor });
  if (approved.ok) writeOffsApproved++;
}

/** The merchant of the closing refunds, in a white label of its own (onboarded by the first). */
let refundShop: Party | undefined;

/**
 * Every run ends with an overpayment claim refunded and its refund filled, so each run's
 * checks meet a payee owing the service (and later runs' write-offs a refund to recall).
 * Among the run's ops a refund seldom fills: it waits behind the white label's orders, and
 * payRefund's round deposits (whole baht, at least 20) pay off their odd amounts only now
 * and then, so a seed could end its batches with no filled refund, overpayment or any. In a
 * white label of its own nothing else waits: a withdrawal of the deposit's amount + 13 baht,
 * the deposit paid 7 baht over (a same-slip excess opens its claim), the claim refunded and
 * paid out (the refund op), and the other payer's deposit of 20 baht fills the withdrawal's
 * 13 baht and the refund's 7, which closes the claim.
 */
async function closingRefund(o: { live: boolean; amount: number; payer: number }): Promise<void> {
  refundShop ??= await partyOf(await s.onboard('ร้านคืนเงิน'));
  const shop = [refundShop];
  // Enough for the withdrawal and its fee: write-offs of earlier runs may have reversed the shop's deposits.
  const short = BigInt(o.amount + 20_000) - s.running.store.world.balances(refundShop.keys.id, o.live).availableMinor;
  if (short > 0n) await run({ kind: 'fund', m: 0, live: o.live, amount: Number(short) }, shop);
  await run({ kind: 'withdraw', m: 0, live: o.live, amount: o.amount + 1_300 }, shop);
  await run({ kind: 'deposit', m: 0, live: o.live, amount: o.amount, pay: 'over', payer: o.payer }, shop);
  const newest = () => [...s.running.store.world.claims.values()].filter((c) => c.merchantId === refundShop!.keys.id).at(-1);
  assert.equal([newest()?.kind, newest()?.status], ['overpayment', 'open'], 'the 7 baht paid over opened an overpayment claim');
  await run({ kind: 'refund', pick: 0, amount: 100, claim: 'overpayment', pay: true }, shop);
  assert.equal([newest()?.status, newest()?.refundedMinor], ['closed', 700n], 'the refund filled and closed its claim');
}

/** A manual claim of `o.amount` at most on one of the parties' settled deposits, opened; its id. */
async function manualClaim(o: Extract<Op, { kind: 'refund' }>, ps: Party[]): Promise<string | undefined> {
  const ids = new Set(ps.map((p) => p.keys.id));
  const candidates = allDeposits(s.running.store.db).filter((d) => ids.has(d.merchantId) && d.status === 'settled');
  if (candidates.length === 0) return undefined;
  const d = candidates[o.pick % candidates.length]!;
  const opened = await attempt({ type: 'OpenClaim', actor: operator, kind: 'manual', depositId: d.id, amountMinor: BigInt(o.amount) < d.amountMinor ? BigInt(o.amount) : d.amountMinor, note: 'payer asks for money back' });
  return opened.ok ? opened.objectId! : undefined;
}

/** Deposits a claim's refund may take before the property stops paying it. */
const refundDepositsMax = 4;

/**
 * The other payer's deposits, exact, until the claim's refund is filled: withdrawals are filled
 * oldest first, so each deposit is for what the white label's withdrawals of the mode opened
 * before the refund (and the refund) still wait for, at most 5,000 baht.
 */
async function payRefund(claimId: string, ps: Party[]): Promise<void> {
  const store = s.running.store;
  const claim = store.world.claims.get(claimId)!;
  const payee = allDeposits(store.db).find((d) => d.id === claim.depositId)!.sender.accountNumber;
  const payer = payers.findIndex((p) => p.accountNumber !== payee);
  const m = ps.findIndex((p) => p.keys.id === claim.merchantId);
  for (let i = 0; i < refundDepositsMax; i++) {
    const refund = store.world.withdrawals.get(claim.refundWithdrawalId!);
    if (!refund || !isOpenStatus(refund.status)) return;
    const ids = new Set(ps.map((p) => p.keys.id));
    const waiting = [...store.world.withdrawals.values()].filter((w) => ids.has(w.merchantId) && w.livemode === claim.livemode && isOpenStatus(w.status) && w.createdAt <= refund.createdAt)
      .reduce((t, w) => t + remainingOf(w), 0n);
    await deposit({ kind: 'deposit', m, live: claim.livemode, amount: Number(waiting < 500_000n ? waiting : 500_000n), pay: 'exact', payer }, ps);
  }
}

/** One of the parties' open overpayment claims (a same-slip excess opened it by itself). */
function overpaymentClaim(o: Extract<Op, { kind: 'refund' }>, ps: Party[]): string | undefined {
  const ids = new Set(ps.map((p) => p.keys.id));
  const open = [...s.running.store.world.claims.values()].filter((c) => ids.has(c.merchantId) && c.kind === 'overpayment' && c.status === 'open');
  return open.length === 0 ? undefined : open[o.pick % open.length]!.id;
}

/** Claims walked to a refund payout across the runs (the generator must reach some), and of them overpayment claims. */
let refundsPaidOut = 0;
let overpaymentRefundsPaidOut = 0;
/** Checks that found the payees owing something in some mode (the generator must reach some). */
let payeeDebtsSeen = 0;
/** Write-offs proposed and approved across the runs (the generator must reach some), and checks that found a written-off line above 0. */
let writeOffsProposed = 0;
let writeOffsApproved = 0;
let writtenOffSeen = 0;

/** The ledger's balance of `account` over transactions booked before `beforeMs`, from journal.db itself. */
function ledgerBalance(account: string, beforeMs: number): bigint {
  const v = journal.prepare('SELECT coalesce(sum(p.amount), 0) FROM postings p JOIN journal j ON j.seq = p.journal_seq WHERE p.account = ? AND j.recorded_at < ?')
    .pluck(true).safeIntegers(true).get(account, beforeMs) as bigint;
  return v;
}

function daysBetween(fromMs: number, toMs: number): string[] {
  const days: string[] = [];
  for (let day = bangkokDayOf(fromMs); bangkokDayBounds(day).startMs <= toMs; day = bangkokDayOf(bangkokDayBounds(day).endMs)) days.push(day);
  return days;
}

async function checkStatements(ps: Party[], fromMs: number): Promise<number> {
  let checked = 0;
  for (const p of ps) {
    for (const live of [true, false]) {
      let previousClosing: Record<string, number> | null = null;
      const days = daysBetween(fromMs, s.clock.now());
      const daily: any[] = [];
      for (const day of days) {
        const r = await s.bo('GET', `/v1/bo/reports/statements?merchant_id=${p.keys.id}&livemode=${live}&date=${day}`, undefined, asFinance());
        assert.is(r.status, 200, r.text);
        daily.push(r.json);
        const endMs = bangkokDayBounds(day).endMs;
        const rows = (parse(await csvOf(`/v1/bo/reports/statements?merchant_id=${p.keys.id}&livemode=${live}&date=${day}&format=csv`), { columns: true }) as Record<string, string>[]);
        for (const b of r.json.buckets) {
          const net = b.movements.reduce((t: number, m: any) => t + m.net_minor, 0);
          assert.is(b.opening_minor + net, b.closing_minor, `${day} ${b.bucket}: opening + movements = closing`);
          for (const m of b.movements) { assert.is(m.credit_minor - m.debit_minor, m.net_minor); seenTypes.add(m.type); }
          const account = `${p.keys.id}:${live ? 'live' : 'test'}:${b.bucket}`;
          assert.is(BigInt(b.closing_minor), ledgerBalance(account, endMs), `${account} ${day}: closing = ledger at the day's end`);
          if (previousClosing) assert.is(b.opening_minor, previousClosing[b.bucket], `${account} ${day}: opening = the day before's closing`);
          const csv = rows.filter((row) => row.bucket === b.bucket);
          assert.is(Number(csv.find((row) => row.line === 'opening')!.amount_minor), b.opening_minor);
          assert.is(Number(csv.find((row) => row.line === 'closing')!.amount_minor), b.closing_minor);
          assert.equal(csv.filter((row) => row.line === 'movement').map((row) => [row.type, Number(row.count), Number(row.credit_minor), Number(row.debit_minor), Number(row.amount_minor)]),
            b.movements.map((m: any) => [m.type, m.count, m.credit_minor, m.debit_minor, m.net_minor]));
          for (const row of csv) assert.is(row.amount_baht, bahtText(Number(row.amount_minor)), 'baht with two decimals');
          assert.is(csv[0]!.merchant_name, s.running.store.world.merchants.get(p.keys.id)!.name, 'Thai text intact');
          checked++;
        }
        previousClosing = Object.fromEntries(r.json.buckets.map((b: any) => [b.bucket, b.closing_minor]));
      }
      const inner = Math.min(1, days.length - 1);
      for (const [i, j] of [[0, days.length - 1], [inner, Math.max(inner, days.length - 2)]] as const) {
        await checkPeriod(`/v1/bo/reports/statements?merchant_id=${p.keys.id}&livemode=${live}&from=${days[i]}&to=${days[j]}`, daily.slice(i, j + 1));
      }
    }
  }
  return checked;
}

/** The statement at `path` for a period against its days' statements: first opening, movements summed, last closing. */
async function checkPeriod(path: string, days: readonly any[]): Promise<void> {
  const r = await s.bo('GET', path, undefined, asFinance());
  assert.is(r.status, 200, r.text);
  const [first, last] = [days[0], days[days.length - 1]];
  assert.equal([r.json.date_from, r.json.date_to, r.json.period_start, r.json.period_end], [first.date, last.date, first.period_start, last.period_end]);
  assert.is(r.json.date, days.length === 1 ? first.date : undefined, 'date only for a single day');
  for (const b of r.json.buckets) {
    const sums = new Map<string, [number, number, number]>();
    for (const d of days) {
      for (const m of d.buckets.find((x: any) => x.bucket === b.bucket).movements) {
        const t = sums.get(m.type) ?? [0, 0, 0];
        sums.set(m.type, [t[0] + m.count, t[1] + m.credit_minor, t[2] + m.debit_minor]);
      }
    }
    assert.is(b.opening_minor, first.buckets.find((x: any) => x.bucket === b.bucket).opening_minor, `${path} ${b.bucket}: the first day's opening`);
    assert.is(b.closing_minor, last.buckets.find((x: any) => x.bucket === b.bucket).closing_minor, `${path} ${b.bucket}: the last day's closing`);
    assert.equal(b.movements.map((m: any) => [m.type, m.count, m.credit_minor, m.debit_minor]).sort(),
      [...sums].map(([type, [count, credit, debit]]) => [type, count, credit, debit]).sort(), `${path} ${b.bucket}: the days' movements summed`);
  }
  const rows = parse(await csvOf(`${path}&format=csv`), { columns: true }) as Record<string, string>[];
  const period = days.length === 1 ? first.date : `${first.date}/${last.date}`;
  assert.ok(rows.length > 0 && rows.every((row) => row.date === period), `the CSV's date column is ${period}`);
}

function bahtText(minor: number): string {
  const abs = Math.abs(minor);
  return `${minor < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

async function csvOf(path: string): Promise<string> {
  const r = await s.bo('GET', path, undefined, asFinance());
  assert.is(r.status, 200, r.text);
  assert.match(r.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8/);
  return r.text;
}

async function checkTrialBalance(asOfMs: number): Promise<void> {
  const asOf = new Date(asOfMs).toISOString();
  const r = await s.bo('GET', `/v1/bo/reports/trial-balance?as_of=${asOf}`, undefined, asFinance());
  assert.is(r.status, 200, r.text);
  const csvAnswer = await s.bo('GET', `/v1/bo/reports/trial-balance?as_of=${asOf}&format=csv`, undefined, asFinance());
  const compact = asOf.replace(/[-:]|\.000(?=Z)/g, ''); // milliseconds kept when there are any
  assert.is(csvAnswer.headers.get('content-disposition'), `attachment; filename="trial-balance-${compact}.csv"`, 'saved under the instant it is at');
  const csv = parse(await csvOf(`/v1/bo/reports/trial-balance?as_of=${asOf}&format=csv`), { columns: true }) as Record<string, string>[];
  let lines = 0;
  for (const section of r.json.sections) {
    assert.ok(section.balanced, 'balanced');
    assert.is(section.total_debit_minor, section.total_credit_minor, 'Σ debits = Σ credits');
    assert.is(section.accounts.reduce((t: number, a: any) => t + a.balance_minor, 0), 0, 'the balances sum to zero');
    assert.is(section.accounts.reduce((t: number, a: any) => t + a.reclassified_minor, 0), 0, 'the reclassifications sum to zero');
    for (const a of section.accounts) {
      // A line's balance is its postings' and what it takes over from another line (owed_by_payers from suspense).
      assert.is(BigInt(a.balance_minor - a.reclassified_minor), ledgerBalance(a.account, asOfMs + 1), `${a.account} at ${asOf}: the journal's postings agree`);
      assert.is(a.credit_minor - a.debit_minor, a.balance_minor - a.reclassified_minor, `${a.account}: its turnover is its postings'`);
      const row = csv.find((c) => c.account === a.account)!;
      assert.equal([Number(row.debit_minor), Number(row.credit_minor), Number(row.reclassified_minor), Number(row.balance_minor), row.livemode], [a.debit_minor, a.credit_minor, a.reclassified_minor, a.balance_minor, String(section.livemode)]);
      // A merchant's account names its merchant, so a reader needs no directory of ids.
      assert.is(a.merchant_name, a.kind === 'merchant' ? s.running.store.world.merchants.get(a.merchant_id)!.name : null, `${a.account}: merchant_name`);
      assert.is(row.merchant_name, a.merchant_name ?? '');
      lines++;
    }
  }
  const totals = csv.filter((c) => c.kind === 'total');
  assert.is(csv.length - totals.length, lines, 'one CSV row per account');
  assert.equal(totals.map((t) => [t.livemode, t.account, Number(t.debit_minor), Number(t.credit_minor), Number(t.balance_minor), t.side]),
    r.json.sections.map((x: any) => [String(x.livemode), 'total', x.total_debit_minor, x.total_credit_minor, 0, 'balanced']), "each section's total line, balanced");
  const systemAccounts = r.json.sections[0].accounts.filter((a: any) => a.kind === 'system').map((a: any) => a.name);
  if (systemAccounts.length > 0) assert.ok(systemAccounts.includes('adjustments'), 'system accounts are listed');
}

/** The trial balance's balance of each system account of one mode at `asOfMs`, as its postings made it (before any reclassification). */
async function systemBalancesAt(asOfMs: number, livemode: boolean): Promise<Record<string, number>> {
  const r = await s.bo('GET', `/v1/bo/reports/trial-balance?as_of=${new Date(asOfMs).toISOString()}`, undefined, asFinance());
  assert.is(r.status, 200, r.text);
  const section = r.json.sections.find((x: any) => x.livemode === livemode);
  return Object.fromEntries(section.accounts.filter((a: any) => a.kind === 'system').map((a: any) => [a.name, a.balance_minor - a.reclassified_minor]));
}

/** The fees report from `fromMs`'s day to today: its lines add up, and it is the ledger's fee and VAT turnover over those days. */
async function checkFees(fromMs: number): Promise<void> {
  const from = bangkokDayOf(fromMs), today = bangkokDayOf(s.clock.now());
  for (const livemode of [true, false]) {
    const path = `/v1/bo/reports/fees?livemode=${livemode}&from=${from}&to=${today}`;
    const r = await s.bo('GET', path, undefined, asFinance());
    assert.is(r.status, 200, r.text);
    const t = r.json.totals;
    for (const k of ['fee_minor', 'vat_minor', 'total_minor'] as const) {
      assert.is(r.json.merchants.reduce((sum: number, m: any) => sum + m[k], 0), t[k], `fees ${from}–${today}: the lines add up to the ${k} total`);
      assert.is(t.charged[k] - t.refunded[k], t[k], `${k}: charged − refunded`);
    }
    const before = await systemBalancesAt(bangkokDayBounds(from).startMs - 1, livemode);
    const now = await systemBalancesAt(s.clock.now(), livemode);
    const change = (name: string) => (now[name] ?? 0) - (before[name] ?? 0);
    assert.equal([t.fee_minor, t.vat_minor], [change('fee_revenue'), change('vat_payable')], `fees ${livemode ? 'live' : 'test'} ${from}–${today}: the ledger's fee revenue and VAT payable over the days`);
    const csv = parse(await csvOf(`${path}&format=csv`), { columns: true }) as Record<string, string>[];
    assert.equal(csv.map((row) => [row.line, row.white_label_id, row.merchant_id, Number(row.fee_minor), Number(row.vat_minor), Number(row.charged_count), Number(row.refunded_count)]), [
      ...r.json.merchants.map((m: any) => ['merchant', m.white_label_id, m.merchant_id, m.fee_minor, m.vat_minor, m.charged.count, m.refunded.count]),
      ['total', '', '', t.fee_minor, t.vat_minor, t.charged.count, t.refunded.count],
    ]);
    if (t.charged.count > 0) feesSeen++;
  }
}

/**
 * The account lines of each listed system account, each mode, from `fromMs`'s day to today:
 * the opening is the journal's balance before the first day and the trial balance's; each
 * line's running balance adds its amount; the closing is the journal's balance now and the
 * trial balance's; the lines are the journal's postings to the account in the period, one
 * for one; the CSV gives the same lines, between an opening and a closing line.
 */
async function checkAccountLines(fromMs: number): Promise<void> {
  const from = bangkokDayOf(fromMs), today = bangkokDayOf(s.clock.now());
  const startMs = bangkokDayBounds(from).startMs;
  const postingsOf = journal.prepare('SELECT p.balance_transaction_id, p.amount FROM postings p JOIN journal j ON j.seq = p.journal_seq WHERE p.account = ? AND j.recorded_at >= ? ORDER BY j.recorded_at, p.balance_transaction_id')
    .raw(true).safeIntegers(true);
  for (const livemode of [true, false]) {
    const before = await systemBalancesAt(startMs - 1, livemode);
    const now = await systemBalancesAt(s.clock.now(), livemode);
    for (const account of ['suspense', 'reversals', 'adjustments', 'gateway_settlement']) {
      const key = `sys:${livemode ? 'live' : 'test'}:${account}`;
      const path = `/v1/bo/reports/account-lines?account=${account}&livemode=${livemode}&from=${from}&to=${today}`;
      const r = await s.bo('GET', path, undefined, asFinance());
      assert.is(r.status, 200, r.text);
      const j = r.json;
      assert.equal([j.account, j.opening_balance_minor, j.closing_balance_minor], [key, Number(ledgerBalance(key, startMs)), Number(ledgerBalance(key, s.clock.now() + 1))], `${key} ${from}–${today}: the journal's balances`);
      assert.equal([j.opening_balance_minor, j.closing_balance_minor], [before[account] ?? 0, now[account] ?? 0], `${key}: the trial balance's`);
      let balance = j.opening_balance_minor;
      for (const l of j.data) {
        assert.is(l.amount_minor, l.credit_minor - l.debit_minor);
        balance += l.amount_minor;
        assert.is(l.balance_minor, balance, `${key} ${l.balance_transaction_id}: the running balance`);
      }
      assert.is(j.closing_balance_minor, balance);
      assert.equal([j.credit_minor - j.debit_minor, j.count], [j.closing_balance_minor - j.opening_balance_minor, j.data.length]);
      // Named as the merchant sees them (sbxbtxn_l_ in sandbox).
      const journalLines = (postingsOf.all(key, startMs) as [string, bigint][]).map(([id, amount]) => [balanceTransactionIdOf(id, livemode), Number(amount)]);
      assert.equal(j.data.map((l: any) => [l.balance_transaction_id, l.amount_minor]).sort(), journalLines.sort(), `${key}: the journal's postings in the period, one for one`);
      if (j.count > 0) accountLinesSeen.add(account);
      const csv = parse(await csvOf(`${path}&format=csv`), { columns: true }) as Record<string, string>[];
      assert.equal(csv.map((row) => [row.line, row.balance_transaction_id, Number(row.amount_minor), Number(row.balance_minor)]), [
        ['opening', '', 0, j.opening_balance_minor],
        ...j.data.map((l: any) => ['posting', l.balance_transaction_id, l.amount_minor, l.balance_minor]),
        ['closing', '', j.credit_minor - j.debit_minor, j.closing_balance_minor],
      ]);
    }
  }
}

/**
 * What the payees owe the service, now, in each mode: a model from the journal's snapshots —
 * each closed claim's refund withdrawals' fills (what its refunds drew out of suspense and paid
 * the payer, net of the fills the bank recalled) less what its payer owes back — is the trial
 * balance's owed_by_payees line (a debit, no postings, all of it reclassified), and the claims
 * GET /v1/bo/claims?owed_by_payee=true lists are that line claim by claim; the others owe nothing.
 */
async function checkPayeeDebts(): Promise<void> {
  const store = s.running.store;
  const filled = new Map(allWithdrawals(store.db).map((w) => [w.id, w.filledMinor]));
  const model: Record<string, bigint> = { live: 0n, test: 0n };
  for (const c of store.world.claims.values()) {
    if (c.status !== 'closed') continue;
    const paid = refundWithdrawalsOf(c).reduce((t, id) => t + (filled.get(id) ?? 0n), 0n);
    // A payer's debt written off is still the payer's, not the payee's.
    const owed = paid - (c.owedByPayerMinor ?? 0n) - (c.writtenOffMinor ?? 0n);
    if (owed > 0n) model[c.livemode ? 'live' : 'test'] += owed;
  }
  const r = await s.bo('GET', '/v1/bo/reports/trial-balance', undefined, asFinance());
  assert.is(r.status, 200, r.text);
  const listed: Record<string, bigint> = { live: 0n, test: 0n };
  for (const owes of [true, false]) {
    let cursor: string | null = null;
    do {
      const page = await s.bo('GET', `/v1/bo/claims?owed_by_payee=${owes}&limit=100${cursor ? `&cursor=${cursor}` : ''}`, undefined, asFinance());
      assert.is(page.status, 200, page.text);
      for (const c of page.json.data) {
        assert.is(c.owed_by_payee_minor !== null && c.owed_by_payee_minor > 0, owes, `${c.id}: owed_by_payee=${owes} lists it (${c.owed_by_payee_minor})`);
        if (owes) listed[c.livemode ? 'live' : 'test'] += BigInt(c.owed_by_payee_minor);
      }
      cursor = page.json.next_cursor;
    } while (cursor);
  }
  for (const section of r.json.sections) {
    const mode = section.livemode ? 'live' : 'test';
    const line = section.accounts.find((a: any) => a.account === `sys:${mode}:owed_by_payees`);
    assert.is(BigInt(-(line?.balance_minor ?? 0)), model[mode], `${mode}: owed_by_payees is what the claims' refunds paid less what payers owe back`);
    assert.is(listed[mode], model[mode], `${mode}: the claims owed_by_payee=true lists sum to the line`);
    if (line) assert.equal([line.kind, line.postings, line.debit_minor, line.credit_minor, line.reclassified_minor], ['system', 0, 0, 0, line.balance_minor]);
    if (model[mode]! > 0n) payeeDebtsSeen++;
  }
}

/**
 * What the payers owe back and what of it finance wrote off, now, in each mode: each claim's
 * debt (owed + written off) within what it refunded; the trial balance's owed_by_payers line
 * is −(Σ owed_by_payer_minor) over the mode's claims and payer_debts_written_off −(Σ
 * written_off_minor), each with no postings, all of it reclassified (out of suspense, the
 * section's reclassifications summing to zero: checkTrialBalance); the written-off line is
 * there once a write-off was approved in the mode (it stays, at 0, once recovered), absent before.
 */
async function checkPayerDebts(): Promise<void> {
  const owed: Record<string, bigint> = { live: 0n, test: 0n };
  const writtenOff: Record<string, bigint> = { live: 0n, test: 0n };
  const everWrittenOff: Record<string, boolean> = { live: false, test: false };
  for (const c of s.running.store.world.claims.values()) {
    const mode = c.livemode ? 'live' : 'test';
    const [o, w] = [c.owedByPayerMinor ?? 0n, c.writtenOffMinor ?? 0n];
    assert.ok(o >= 0n && w >= 0n && o + w <= (c.refundedMinor ?? 0n), `${c.id}: owed ${o} + written off ${w} within refunded ${c.refundedMinor}`);
    owed[mode]! += o;
    writtenOff[mode]! += w;
  }
  for (const live of journal.prepare("SELECT DISTINCT livemode FROM journal WHERE type = 'ClaimWrittenOff'").pluck(true).all() as number[]) everWrittenOff[live === 1 ? 'live' : 'test'] = true;
  const r = await s.bo('GET', '/v1/bo/reports/trial-balance', undefined, asFinance());
  assert.is(r.status, 200, r.text);
  for (const section of r.json.sections) {
    const mode = section.livemode ? 'live' : 'test';
    const lineOf = (name: string) => section.accounts.find((a: any) => a.account === `sys:${mode}:${name}`);
    assert.is(BigInt(-(lineOf('owed_by_payers')?.balance_minor ?? 0)), owed[mode], `${mode}: owed_by_payers is the claims' owed_by_payer_minor summed`);
    const line = lineOf('payer_debts_written_off');
    assert.is(line !== undefined, everWrittenOff[mode], `${mode}: a payer_debts_written_off line once a write-off was approved`);
    assert.is(BigInt(-(line?.balance_minor ?? 0)), writtenOff[mode], `${mode}: payer_debts_written_off is the claims' written_off_minor summed`);
    if (line) assert.equal([line.kind, line.postings, line.debit_minor, line.credit_minor, line.reclassified_minor], ['system', 0, 0, 0, line.balance_minor]);
    if (writtenOff[mode]! > 0n) writtenOffSeen++;
  }
}

/** The system accounts whose account lines held a posting in some run (the generator must reach them). */
const accountLinesSeen = new Set<string>();

/** Fee reports checked that held a charged fee (the generator must reach some). */
let feesSeen = 0;

test.before(async () => {
  s = await TestServer.start();
  journal = new Database(join(s.dataDir, 'journal.db'), { readonly: true });
});
test.after(async () => { journal.close(); await s.stop(); });

const movementTypes = ['adjustment', 'clearing_released', 'deposit_settled', 'fee', 'reversal', 'withdrawal_released', 'withdrawal_reserved', 'withdrawal_settled'];
/** Extra batches of runs a seed may need before every movement type and a refund were met. */
const coverageBatchesMax = 4;

/**
 * The finance operator the reads go as: one per property run and per test, since operator
 * reads are rate limited per operator (bo_read, 3,000 a minute) and a run reads hundreds of
 * reports in seconds, as no person at a desk does.
 */
let reader = 0;
const asFinance = () => ({ roles: ['finance'], sub: `emp_finance_${reader}` });

/** Runs `numRuns` random multi-day sequences, each checked; returns how many statements were checked. */
async function checkRuns(numRuns: number): Promise<number> {
  let statements = 0;
  await fc.assert(fc.asyncProperty(
    fc.array(op, { minLength: 4, maxLength: commandsPerRunMax }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2, maxLength: 4 }), closingWriteOff, closingRefundOf,
    async (ops, instants, lastWriteOff, lastRefund) => {
      reader++;
      const ps = await parties();
      const fromMs = s.clock.now();
      // A withdrawal to pay into from the start, so deposits find liquidity.
      for (const live of [true, false]) {
        await run({ kind: 'fund', m: 1, live, amount: 2_000_000 }, ps);
        await run({ kind: 'withdraw', m: 1, live, amount: 300_000 }, ps);
      }
      for (const o of ops) await run(o, ps);
      await run(lastWriteOff, ps);
      await closingRefund(lastRefund);
      await s.running.services.write.advanceClock!(hourMs);
      statements += await checkStatements(ps, fromMs);
      const toMs = s.clock.now();
      for (const day of daysBetween(fromMs, toMs)) {
        const endMs = bangkokDayBounds(day).endMs - 1;
        if (endMs <= toMs) await checkTrialBalance(endMs);
      }
      for (const x of instants) await checkTrialBalance(Math.floor(fromMs + (toMs - fromMs) * x));
      await checkFees(fromMs);
      await checkAccountLines(fromMs);
      await checkPayeeDebts();
      await checkPayerDebts();
    },
  ), { numRuns, endOnFailure: true });
  return statements;
}

test('finance: statements add up and match the ledger at each day end; the trial balance balances; CSV parses back to the same figures', async () => {
  reader++;
  const statements = await checkRuns(financeRuns);
  assert.ok(statements > financeRuns * 18, `statements checked: ${statements}`);
  // A seed that has not met every movement type (a clearing needs a settlement and 72 hours
  // of clock in one run) or a refund yet runs more sequences, each checked like the first.
  const covered = () => movementTypes.every((t) => seenTypes.has(t)) && refundsPaidOut > 0 && overpaymentRefundsPaidOut > 0 && payeeDebtsSeen > 0 && writeOffsApproved > 0 && writtenOffSeen > 0;
  let batches = 0;
  for (; batches < coverageBatchesMax && !covered(); batches++) await checkRuns(financeRuns);
  if (process.env.SATANG_PROP_COUNTS) console.log(`write-offs: ${writeOffsProposed} proposed, ${writeOffsApproved} approved; ${writtenOffSeen} checks found a written-off line above 0; ${payeeDebtsSeen} found payees owing; refunds paid out: ${refundsPaidOut} (${overpaymentRefundsPaidOut} overpayment); ${batches} extra batches`);
  assert.equal([...seenTypes].sort(), movementTypes, 'every movement type occurred');
  assert.ok(refundsPaidOut > 0, 'the generator reaches refunds paid out');
  assert.ok(overpaymentRefundsPaidOut > 0, 'the generator reaches overpayment claims\' refunds paid out');
  assert.ok(payeeDebtsSeen > 0, 'the generator reaches refunds that filled and closed their claims: payees owe the service');
  assert.ok(feesSeen > 0, 'the fee reports checked hold fees');
  assert.ok(writeOffsApproved > 0 && writtenOffSeen > 0, `the generator reaches payer debts written off: ${writeOffsProposed} proposed, ${writeOffsApproved} approved, ${writtenOffSeen} checks found a written-off line above 0`);
  assert.equal(['adjustments', 'reversals', 'suspense'].filter((a) => accountLinesSeen.has(a)), ['adjustments', 'reversals', 'suspense'], 'the account lines checked hold postings to each');
});

test('finance: a fee is revenue net of VAT, its VAT is payable; a withdrawal fee recognised in part carries its part of the VAT; reversals take back what they moved; the fees report says so per merchant', async () => {
  reader++;
  const ps = await parties();
  await run({ kind: 'fund', m: 1, live: true, amount: 2_000_000 }, ps);
  const start = await systemBalancesAt(s.clock.now(), true);
  const moved = async () => {
    const now = await systemBalancesAt(s.clock.now(), true);
    return { fee_revenue: (now.fee_revenue ?? 0) - (start.fee_revenue ?? 0), vat_payable: (now.vat_payable ?? 0) - (start.vat_payable ?? 0) };
  };
  // A withdrawal of 3,000.00 (fee 10.00 + VAT 0.70), a third filled by a deposit of 1,000.00
  // (fee 15.00 + VAT 1.05): the order recognises 1,070 × ⅓ = 3.56, whose VAT is 70 × 356 / 1,070 = 0.23.
  await run({ kind: 'withdraw', m: 1, live: true, amount: 300_000 }, ps);
  await run({ kind: 'deposit', m: 0, live: true, amount: 100_000, pay: 'exact', payer: 0 }, ps);
  assert.equal(await moved(), { fee_revenue: 1_500 + 333, vat_payable: 105 + 23 });
  const w = allWithdrawals(s.running.store.db).find((x) => x.merchantId === ps[1]!.keys.id && x.fills.length > 0)!;
  assert.ok((await attempt({ type: 'ReverseFill', actor: operator, withdrawalId: w.id, legRef: w.fills[0]!.legRef, reasonCode: 'OPS_ERROR', note: 'paid to the wrong account' })).ok);
  assert.equal(await moved(), { fee_revenue: 1_500, vat_payable: 105 }, 'the reversed fill takes back its fee share and the VAT in it');
  const d = allDeposits(s.running.store.db).find((x) => x.merchantId === ps[0]!.keys.id && x.status === 'settled')!;
  assert.ok((await attempt({ type: 'ReverseDeposit', actor: operator, depositId: d.id, reasonCode: 'BANK_RECALL', note: 'bank recalled the transfer' })).ok);
  assert.equal(await moved(), { fee_revenue: 0, vat_payable: 0 }, 'the reversed deposit refunds its fee, VAT and all');

  // The fees report of the day: each merchant's fee charged and refunded, net of VAT and VAT.
  const day = bangkokDayOf(s.clock.now());
  const line = async (m: number) => {
    const r = await s.bo('GET', `/v1/bo/reports/fees?date=${day}&merchant_id=${ps[m]!.keys.id}`, undefined, asFinance());
    assert.is(r.status, 200, r.text);
    assert.is(r.json.merchants.length, 1);
    const { merchant_id, charged, refunded, fee_minor, vat_minor, total_minor } = r.json.merchants[0];
    assert.equal(r.json.totals, { charged, refunded, fee_minor, vat_minor, total_minor }, 'one merchant: the totals are its line');
    return { merchant_id, charged, refunded, fee_minor, vat_minor };
  };
  assert.equal(await line(0), {
    merchant_id: ps[0]!.keys.id, charged: { count: 1, fee_minor: 1_500, vat_minor: 105, total_minor: 1_605 }, refunded: { count: 1, fee_minor: 1_500, vat_minor: 105, total_minor: 1_605 }, fee_minor: 0, vat_minor: 0,
  });
  const withdrawer = await line(1);
  assert.equal(withdrawer, {
    merchant_id: ps[1]!.keys.id, charged: { count: 1, fee_minor: 333, vat_minor: 23, total_minor: 356 }, refunded: { count: 1, fee_minor: 333, vat_minor: 23, total_minor: 356 }, fee_minor: 0, vat_minor: 0,
  });
  const csv = await s.bo('GET', `/v1/bo/reports/fees?date=${day}&merchant_id=${ps[1]!.keys.id}&format=csv`, undefined, asFinance());
  assert.is(csv.headers.get('content-disposition'), `attachment; filename="fees-${ps[1]!.keys.id}-live-${day}.csv"`);
  assert.match(csv.text, new RegExp(`^${day},Asia/Bangkok,true,merchant,${ps[1]!.keys.whiteLabelId},${ps[1]!.keys.id},ร้านสอง,1,333,23,1,333,23,0,0,0,0\\.00,0\\.00,0\\.00\r$`, 'm'));
  // One white label's merchants: the two that paid fees, each named with its white label.
  const byLabel = await s.bo('GET', `/v1/bo/reports/fees?date=${day}&white_label_id=${ps[0]!.keys.whiteLabelId}`, undefined, asFinance());
  assert.equal(byLabel.json.merchants.map((m: any) => [m.white_label_id, m.merchant_id]).sort(), [ps[0]!, ps[1]!].map((p) => [p.keys.whiteLabelId, p.keys.id]).sort());
  assert.is((await s.bo('GET', `/v1/bo/reports/fees?date=${day}&white_label_id=wl_nobody`, undefined, asFinance())).status, 404);
  // A merchant of another white label than the one named: a contradiction, not an empty report.
  const elsewhere = await s.onboard('Elsewhere');
  const mismatch = await s.bo('GET', `/v1/bo/reports/fees?date=${day}&white_label_id=${ps[0]!.keys.whiteLabelId}&merchant_id=${elsewhere.id}`, undefined, asFinance());
  assert.equal([mismatch.status, mismatch.json.error?.code, mismatch.json.error?.details?.fields?.[0]?.path], [422, 'validation_error', 'query.merchant_id'], mismatch.text);
  const pair = await s.bo('GET', `/v1/bo/reports/fees?date=${day}&white_label_id=${ps[0]!.keys.whiteLabelId}&merchant_id=${ps[0]!.keys.id}`, undefined, asFinance());
  assert.is(pair.status, 200, pair.text);
  // The merchant reads its own line with wallet:read, in its key's mode: the same figures.
  const own = await s.call(ps[1]!.keys.live.api_key, 'GET', `/v1/pay/reports/fees?date=${day}`);
  assert.is(own.status, 200, own.text);
  assert.equal(own.json.merchants.map((m: any) => [m.merchant_id, m.charged, m.refunded]), [[ps[1]!.keys.id, withdrawer.charged, withdrawer.refunded]]);
  const ownCsv = await s.call(ps[1]!.keys.live.api_key, 'GET', `/v1/pay/reports/fees?date=${day}&format=csv`);
  assert.is(ownCsv.text, csv.text, "the merchant's CSV is the back office's for that merchant");
  const ownSandbox = await s.call(ps[1]!.keys.sandbox.api_key, 'GET', `/v1/pay/reports/fees?date=${day}`);
  assert.equal([ownSandbox.json.livemode, ownSandbox.json.merchants], [false, []], 'a sandbox key reads the sandbox ledger');
  // A rebuild of the fee ledger from the journal gives the same report.
  const before = (await s.bo('GET', `/v1/bo/reports/fees?date=${day}`, undefined, asFinance())).json;
  const rebuilt = await satangRun(['projections', 'rebuild', 'fee_ledger', '--data-dir', s.dataDir]);
  assert.is(rebuilt.code, 0, rebuilt.stderr);
  assert.equal((await s.bo('GET', `/v1/bo/reports/fees?date=${day}`, undefined, asFinance())).json, before);
  const support = await s.bo('GET', `/v1/bo/reports/fees?date=${day}`, undefined, { roles: ['support'] });
  assert.is(support.status, 403);
  const unknown = await s.bo('GET', `/v1/bo/reports/fees?date=${day}&merchant_id=mch_nobody`, undefined, asFinance());
  assert.is(unknown.status, 404);
  const noPeriod = await s.bo('GET', '/v1/bo/reports/fees', undefined, asFinance());
  assert.is(noPeriod.status, 422);
  assert.is(noPeriod.json.error.details.fields[0].path, 'query.date');
});

test('finance: the merchant reads its own statement with wallet:read; operators need the finance role', async () => {
  reader++;
  const [p] = await parties();
  await run({ kind: 'fund', m: 0, live: true, amount: 123_456 }, [p!]);
  const day = bangkokDayOf(s.clock.now());
  const own = await s.call(p!.keys.live.api_key, 'GET', `/v1/pay/reports/statements?date=${day}`);
  assert.is(own.status, 200, own.text);
  const available = own.json.buckets.find((b: any) => b.bucket === 'available');
  assert.equal(available.movements.find((m: any) => m.type === 'adjustment'), { type: 'adjustment', count: 1, credit_minor: 123_456, debit_minor: 0, net_minor: 123_456 });
  assert.is(own.json.merchant_id, p!.keys.id);
  const csv = await s.call(p!.keys.live.api_key, 'GET', `/v1/pay/reports/statements?date=${day}&format=csv`);
  assert.is(csv.status, 200);
  assert.match(csv.text, /^date,time_zone,merchant_id,merchant_name,livemode,bucket,line,type,description_th,count,credit_minor,debit_minor,amount_minor,amount_baht\r\n/);
  assert.match(csv.text, /,1234\.56\r\n/);
  const support = await s.bo('GET', `/v1/bo/reports/statements?merchant_id=${p!.keys.id}&date=${day}`, undefined, { roles: ['support'] });
  assert.is(support.status, 403);
  assert.is(support.json.error.code, 'scope_denied');
  const bad = await s.bo('GET', `/v1/bo/reports/statements?merchant_id=${p!.keys.id}&date=2026-02-30`, undefined, asFinance());
  assert.is(bad.status, 422);
  assert.is(bad.json.error.code, 'validation_error');
  const future = await s.bo('GET', `/v1/bo/reports/trial-balance?as_of=9000-01-01T00:00:00Z`, undefined, asFinance());
  assert.is(future.json.error.code, 'validation_error');
  const now = s.clock.now();
  assert.match(future.json.error.message, `${new Date(now).toISOString()}, ${new Date(now + 7 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ')} in Bangkok`, 'now in UTC and as the Bangkok wall time an operator typed in');
  const unknown = await s.bo('GET', `/v1/bo/reports/statements?merchant_id=mch_nobody&date=${day}`, undefined, asFinance());
  assert.is(unknown.status, 404);
  const before1970 = await s.bo('GET', '/v1/bo/reports/trial-balance?as_of=1969-01-01T00:00:00Z', undefined, asFinance());
  assert.equal([before1970.status, before1970.json.error.details.fields[0].path], [422, 'query.as_of'], 'as the statements refuse days before 1970');
});

test('finance: a merchant name a spreadsheet would run as a formula is written as text in the CSVs (a leading apostrophe)', async () => {
  reader++;
  const evil = await s.onboard('=HYPERLINK("http://evil","x")');
  const day = bangkokDayOf(s.clock.now());
  const statement = await s.bo('GET', `/v1/bo/reports/statements?merchant_id=${evil.id}&date=${day}&format=csv`, undefined, asFinance());
  assert.is(statement.status, 200, statement.text);
  const rows = parse(statement.text, { columns: true }) as Record<string, string>[];
  assert.ok(rows.length > 0);
  for (const r of rows) assert.is(r.merchant_name, '\'=HYPERLINK("http://evil","x")');
  const json = await s.bo('GET', `/v1/bo/reports/statements?merchant_id=${evil.id}&date=${day}`, undefined, asFinance());
  assert.is(json.json.merchant_name, '=HYPERLINK("http://evil","x")', 'the JSON keeps the name as it is');
});

test('finance: a statement for a month or a period of days; the period is one of date, month, or from and to, at most a year', async () => {
  reader++;
  const [p] = await parties();
  const firstDay = bangkokDayOf(s.clock.now());
  const before = (await s.bo('GET', `/v1/bo/reports/statements?merchant_id=${p!.keys.id}&date=${firstDay}`, undefined, asFinance())).json;
  await run({ kind: 'fund', m: 0, live: true, amount: 10_000 }, [p!]);
  await s.running.services.write.advanceClock!(2 * 24 * hourMs);
  await run({ kind: 'fund', m: 0, live: true, amount: 20_000 }, [p!]);
  const today = bangkokDayOf(s.clock.now());
  const month = today.slice(0, 7);
  const base = `/v1/bo/reports/statements?merchant_id=${p!.keys.id}`;
  const byPeriod = await s.bo('GET', `${base}&from=${firstDay}&to=${today}`, undefined, asFinance());
  assert.is(byPeriod.status, 200, byPeriod.text);
  const available = (st: any) => st.buckets.find((b: any) => b.bucket === 'available');
  const adjustment = (st: any) => available(st).movements.find((m: any) => m.type === 'adjustment') ?? { count: 0, credit_minor: 0 };
  assert.equal([adjustment(byPeriod.json).count - adjustment(before).count, adjustment(byPeriod.json).credit_minor - adjustment(before).credit_minor], [2, 30_000],
    'both fundings, two days apart, in one period');
  assert.is(available(byPeriod.json).opening_minor, available(before).opening_minor);
  const byMonth = await s.bo('GET', `${base}&month=${month}`, undefined, asFinance());
  assert.is(byMonth.status, 200, byMonth.text);
  assert.equal([byMonth.json.date_from, byMonth.json.date_to], [`${month}-01`, today], 'a month that runs: its first day to today');
  assert.equal([byMonth.json.month, byMonth.json.date], [month, undefined], 'named as the month asked for, even on its first day');
  assert.equal(byMonth.json.buckets, (await s.bo('GET', `${base}&from=${month}-01&to=${today}`, undefined, asFinance())).json.buckets);
  // The lines behind it: one per balance transaction, and by bucket and type they sum to its movements.
  const linesPath = `/v1/bo/reports/statement-lines?merchant_id=${p!.keys.id}&from=${firstDay}&to=${today}`;
  const lines = await s.bo('GET', linesPath, undefined, asFinance());
  assert.is(lines.status, 200, lines.text);
  assert.is(lines.json.count, lines.json.data.length);
  const sums = new Map<string, { credit: number; debit: number; count: number }>();
  for (const l of lines.json.data) {
    for (const bucket of ['available', 'pending_clearing', 'reserved']) {
      const delta = l.bucket_deltas[`${bucket}_minor`] as number;
      if (delta === 0) continue;
      const key = `${bucket}:${l.type}`;
      const sum = sums.get(key) ?? { credit: 0, debit: 0, count: 0 };
      sums.set(key, { credit: sum.credit + Math.max(0, delta), debit: sum.debit + Math.max(0, -delta), count: sum.count + 1 });
    }
  }
  for (const b of byPeriod.json.buckets) {
    for (const m of b.movements) assert.equal(sums.get(`${b.bucket}:${m.type}`) && [sums.get(`${b.bucket}:${m.type}`)!.credit, sums.get(`${b.bucket}:${m.type}`)!.debit], [m.credit_minor, m.debit_minor], `${b.bucket} ${m.type}`);
  }
  assert.is(sums.size, byPeriod.json.buckets.reduce((n: number, b: any) => n + b.movements.length, 0), 'no line outside the statement');
  const linesCsv = parse(await csvOf(`${linesPath}&format=csv`), { columns: true }) as Record<string, string>[];
  assert.equal(linesCsv.map((r) => [r.id, Number(r.amount_minor), r.type]), lines.json.data.map((l: any) => [l.id, l.amount_minor, l.type]));
  assert.is((await s.bo('GET', linesPath, undefined, { roles: ['support'] })).status, 403, 'finance only');
  // A system account's lines: the account is required and one of those listed; finance only.
  const accountLines = `/v1/bo/reports/account-lines?from=${firstDay}&to=${today}`;
  for (const [query, reason] of [['', 'required'], ['&account=fee_revenue', 'enum'], ['&account=SUSPENSE', 'enum']] as const) {
    const r = await s.bo('GET', `${accountLines}${query}`, undefined, asFinance());
    assert.equal([r.status, r.json.error?.details?.fields?.[0]?.path, r.json.error?.details?.fields?.[0]?.reason], [422, 'query.account', reason], `${query}: ${r.text}`);
  }
  assert.is((await s.bo('GET', `${accountLines}&account=adjustments`, undefined, { roles: ['support'] })).status, 403, 'finance only');
  const adjustments = await s.bo('GET', `${accountLines}&account=adjustments&livemode=true`, undefined, asFinance());
  assert.is(adjustments.status, 200, adjustments.text);
  const fundings = adjustments.json.data.filter((l: any) => l.merchant_id === p!.keys.id);
  assert.equal(fundings.slice(-2).map((l: any) => [l.type, l.debit_minor, l.credit_minor, l.source.type, l.source.id === l.balance_transaction_id, l.posted_by]),
    [['adjustment', 10_000, 0, 'adjustment', true, operator.operatorId], ['adjustment', 20_000, 0, 'adjustment', true, operator.operatorId]],
    "a funding debits adjustments by what it credits the merchant's available; the operator who posted it named");
  assert.equal([adjustments.json.date_from, adjustments.json.date_to, adjustments.json.name], [firstDay, today, 'adjustments']);
  assert.match(adjustments.headers.get('ratelimit-policy') ?? '', /;w=60$/);
  // The merchant's own, signed, over the same period.
  const own = await s.call(p!.keys.live.api_key, 'GET', `/v1/pay/reports/statements?from=${firstDay}&to=${today}`);
  assert.is(own.status, 200, own.text);
  assert.equal(own.json.buckets, byPeriod.json.buckets);
  const csv = await s.call(p!.keys.live.api_key, 'GET', `/v1/pay/reports/statements?month=${month}&format=csv`);
  // The month's name, even on its first day, when the month so far is one day.
  assert.match(csv.text.split('\r\n')[1]!, new RegExp(`^${month},Asia/Bangkok,${p!.keys.id},`));
  assert.match(csv.headers.get('content-disposition') ?? '', new RegExp(`-${month}\\.csv"$`));
  // Refused, each with the parameter it is about.
  const tomorrow = bangkokDayOf(s.clock.now() + 24 * hourMs);
  const yearAgo = bangkokDayOf(s.clock.now() - 366 * 24 * hourMs);
  const nextMonth = bangkokDayOf(Date.parse(`${month}-28T00:00:00Z`) + 5 * 24 * hourMs).slice(0, 7);
  for (const [query, path, reason] of [
    [`date=${today}&from=${today}`, 'query.date', 'conflict'], [`month=${month}&to=${today}`, 'query.month', 'conflict'],
    [`from=${today}`, 'query.to', 'required'], [`to=${today}`, 'query.from', 'required'],
    [`from=${today}&to=${bangkokDayOf(s.clock.now() - 24 * hourMs)}`, 'query.to', 'format'],
    [`from=${yearAgo}&to=${today}`, 'query.to', 'format'], [`from=${today}&to=${tomorrow}`, 'query.to', 'format'],
    ['month=2026-13', 'query.month', 'format'], [`month=${nextMonth}`, 'query.month', 'format'], ['', 'query.date', 'required'],
    // Days before 1970 (year 0000's first Bangkok day begins in year -1 UTC: it was a 500).
    ['date=0000-01-01', 'query.date', 'format'], ['month=0000-01', 'query.month', 'format'], ['from=0000-01-01&to=0000-01-03', 'query.from', 'format'],
    ['date=1969-12-31', 'query.date', 'format'],
  ] as const) {
    for (const [route, roles] of [[base, ['finance']], [base.replace('/statements?', '/fees?'), ['finance']]] as const) {
      const r = await s.bo('GET', `${route}${query ? `&${query}` : ''}`, undefined, { roles: [...roles] });
      assert.is(r.status, 422, `${route} ${query}: ${r.text}`);
      assert.equal([r.json.error.code, r.json.error.details.fields[0].path, r.json.error.details.fields[0].reason], ['validation_error', path, reason], `${query}: ${r.text}`);
    }
  }
  const csvOfYearZero = await s.bo('GET', `${base}&date=0000-01-01&format=csv`, undefined, asFinance());
  assert.is(csvOfYearZero.status, 422, csvOfYearZero.text);
  const ownYearZero = await s.call(p!.keys.live.api_key, 'GET', '/v1/pay/reports/fees?date=0000-01-01');
  assert.is(ownYearZero.status, 422, ownYearZero.text);
  const year = await s.bo('GET', `${base}&from=${bangkokDayOf(s.clock.now() - 365 * 24 * hourMs)}&to=${today}`, undefined, asFinance());
  assert.is(year.status, 200, `366 days are a period: ${year.text}`);
});

test.run();
