// The receiving-account statement over HTTP and through `satang report`, against a real
// server: one withdrawing merchant whose beneficiary account payers are told to pay, and
// every way told, verified and filled can part — an exact payment (agrees), a short and an
// over payment, a leg still awaiting its slip, a leg released unpaid at expiry, a reversed
// fill and a reversed deposit. Each appears with its reason; the totals add up. The same
// server answers `satang report statement|trial-balance|receiving-account` as tables and
// CSV with the figures of the API.

import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'csv-parse/sync';
import { bangkokDayOf } from '../../core/finance/calendar.ts';
import { merchantActor, system } from '../adapters/support.ts';
import { accepted, financeOperator as operator, payLeg } from '../support/finance.ts';
import { TestServer, type MerchantKeys } from '../support/server-harness.ts';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));

let s: TestServer;
let withdrawer: MerchantKeys;
let payer: MerchantKeys;
const expect: Record<string, string> = {};

async function deposit(amount: bigint, expiresInSeconds?: number, by = payer): Promise<string> {
  return accepted(s, {
    type: 'CreateDeposit', actor: merchantActor(by.id), amountMinor: amount, merchantReference: `d-${randomUUID()}`, endUserRef: `u-${randomUUID().slice(0, 8)}`,
    sender: { bankCode: '014', accountNumber: '9876543210', accountNameTh: 'สมชาย ใจดี' }, hasClientData: true, ...(expiresInSeconds ? { expiresInSeconds } : {}),
  });
}

function report(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(satangPath, ['report', ...args], { cwd: tmpdir(), env: { ...process.env, SATANG_DATA_DIR: s.dataDir, SATANG_BASE_URL: s.url, SATANG_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The withdrawal's fill that an operator reversed: its id and the fill's leg_ref there (not the deposit's). */
let reversedFill: { withdrawalId: string; legRef: string };

test.before(async () => {
  s = await TestServer.start();
  withdrawer = await s.onboard('ผู้ถอน');
  payer = await s.onboard('Payer', withdrawer.whiteLabelId);
  await s.fund(withdrawer.id, 5_000_000);
  const beneficiaryId = await accepted(s, { type: 'RegisterBeneficiary', actor: operator, merchantId: withdrawer.id, livemode: true, bankCode: '004', accountNumber: '7123456789', accountNameTh: 'สมหญิง รักดี', verified: true });
  const withdrawalId = await accepted(s, { type: 'CreateWithdrawal', actor: merchantActor(withdrawer.id), amountMinor: 2_000_000n, merchantReference: 'w-1', endUserRef: 'payee', beneficiaryId, requiresApproval: false, p2pMinimumApplies: false });

  const released = await deposit(10_000n, 60); // expires unpaid
  await s.running.services.write.advanceClock!(120_000);
  expect[released] = 'RELEASED_UNPAID';
  const exact = await deposit(20_000n);
  await payLeg(s, exact, 0, 20_000n);
  expect[exact] = 'agrees';
  const short = await deposit(30_000n);
  await payLeg(s, short, 0, 25_000n);
  expect[short] = 'SHORT_PAID';
  const over = await deposit(40_000n);
  await payLeg(s, over, 0, 41_000n);
  expect[over] = 'OVERPAID';
  const fillReversed = await deposit(50_000n);
  await payLeg(s, fillReversed, 0, 50_000n);
  const payoutLegRef = s.running.store.world.deposits.get(fillReversed)!.legs[0]!.counterparty;
  assert.is(payoutLegRef.kind, 'withdrawal');
  reversedFill = { withdrawalId, legRef: payoutLegRef.kind === 'withdrawal' ? payoutLegRef.payoutLegRef : '' };
  await accepted(s, { type: 'ReverseFill', actor: operator, withdrawalId, legRef: payoutLegRef.kind === 'withdrawal' ? payoutLegRef.payoutLegRef : '', reasonCode: 'OPS_ERROR', note: 'paid to the wrong account' });
  expect[fillReversed] = 'FILL_REVERSED';
  const reversed = await deposit(60_000n);
  await payLeg(s, reversed, 0, 60_000n);
  await accepted(s, { type: 'ReverseDeposit', actor: operator, depositId: reversed, reasonCode: 'BANK_RECALL', note: 'bank recalled the transfer' });
  expect[reversed] = 'DEPOSIT_REVERSED';
  const awaiting = await deposit(70_000n);
  expect[awaiting] = 'SLIP_AWAITED';
  // A slip showing 80,000 arriving in the account, from another name: the reviewer declines the order.
  const declined = await deposit(80_000n);
  await slip(declined, 'rcpt_declined', 'tr_declined', 80_000n, 'สมศรี มีสุข');
  assert.is(s.running.store.world.deposits.get(declined)!.status, 'under_review');
  await accepted(s, { type: 'DeclineDepositReview', actor: operator, depositId: declined, note: 'the payer is not the end user of this order' });
  expect[declined] = 'DECLINED_TRANSFER';
  // Settled exactly, then a second transfer of 9,000 (deposit.overpaid): the deposit's core
  // does not say which account it went to, so the report does not count it at this one.
  const twice = await deposit(90_000n);
  await payLeg(s, twice, 0, 90_000n);
  await slip(twice, 'rcpt_twice', 'tr_twice_2', 9_000n);
  assert.ok(s.running.store.world.deposits.get(twice)!.overpayment, 'an overpayment after settlement');
  expect[twice] = 'agrees';
  for (const [id, what] of Object.entries(expect)) assert.ok(s.running.store.world.deposits.get(id)!.legs.length === 1, `${what}: one leg`);
});

/**
 * A slip for the deposit's first leg (or `over.leg`), read by the verifier as a transfer of
 * `amount` from `senderName` (the order's own by default), made now (or `over.occurredAt`).
 */
async function slip(depositId: string, receiptId: string, transRef: string, amount: bigint, senderName?: string, over: { leg?: number; occurredAt?: number } = {}): Promise<void> {
  await accepted(s, { type: 'ReceiveSlip', actor: system, depositId, receiptId, hasImage: true, transRef });
  const d = s.running.store.world.deposits.get(depositId)!;
  const leg = d.legs[over.leg ?? 0]!;
  await accepted(s, {
    type: 'RecordSlipVerification', actor: system, depositId, receiptId,
    outcome: {
      kind: 'found', facts: { senderBankDisabled: false },
      transfer: {
        transRef, amountMinor: amount, occurredAt: over.occurredAt ?? s.clock.now(),
        sender: { bankCode: d.sender.bankCode, accountNumber: d.sender.accountNumber, name: senderName ?? d.sender.accountNameTh },
        receiver: { bankCode: leg.receiver.bankCode, accountNumber: leg.receiver.accountNumber, name: leg.receiver.accountName },
      },
    },
  });
}

test('receiving account: told, verified and filled per leg, each difference with its reason', async () => {
  const r = await s.bo('GET', `/v1/bo/reports/receiving-accounts?merchant_id=${withdrawer.id}&livemode=true`, undefined, { roles: ['finance'] });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.data.length, 1);
  const a = r.json.data[0];
  assert.equal([a.bank_code, a.account_number_masked, a.account_name_masked], ['004', 'xxxxxx6789', 'สมหญิง ร***'], 'masked as in every other view');
  const byDeposit = Object.fromEntries(a.differences.map((d: any) => [d.deposit_id, d]));
  for (const [id, reason] of Object.entries(expect)) {
    if (reason === 'agrees' || reason === 'RELEASED_UNPAID') assert.not.ok(byDeposit[id], `${id} is not listed as a difference`);
    else assert.is(byDeposit[id]?.reason, reason, `${id}: ${reason}`);
  }
  assert.equal([byDeposit[Object.keys(expect).find((k) => expect[k] === 'SHORT_PAID')!].told_minor, byDeposit[Object.keys(expect).find((k) => expect[k] === 'SHORT_PAID')!].verified_minor], [30_000, 25_000]);
  const of = (reason: string) => byDeposit[Object.keys(expect).find((k) => expect[k] === reason)!];
  assert.equal([of('DECLINED_TRANSFER').verified_minor, of('DECLINED_TRANSFER').slip_shown_minor, of('DECLINED_TRANSFER').filled_minor], [null, 80_000, null], 'money may be in the account with no fill');
  assert.equal([of('OVERPAID').told_minor, of('OVERPAID').verified_minor], [40_000, 41_000]);
  assert.equal([of('FILL_REVERSED').filled_minor, of('FILL_REVERSED').fill_reversed_minor], [0, 50_000], "a reversed fill is out of the leg's filled, as out of the account's: the lines add up to the total");
  // The leg joins the withdrawal's fills[] by fill_leg_ref (the deposit's leg_ref is another).
  assert.equal([of('FILL_REVERSED').withdrawal_id, of('FILL_REVERSED').fill_leg_ref], [reversedFill.withdrawalId, reversedFill.legRef]);
  const w = await s.bo('GET', `/v1/bo/withdrawals/${reversedFill.withdrawalId}`, undefined, { roles: ['finance'] });
  assert.ok(w.json.withdrawal.fills.some((f: any) => f.leg_ref === of('FILL_REVERSED').fill_leg_ref && f.amount_minor === 50_000), 'found in fills[]');
  assert.is(a.released_unpaid_legs, 1);
  assert.is(a.pending_legs, 1, 'the leg awaiting its slip');
  assert.is(a.disagreeing_legs, 5);
  assert.is(a.agrees, false);
  assert.is(a.legs, 9);
  assert.is(a.told_minor, 20_000 + 30_000 + 40_000 + 50_000 + 60_000 + 70_000 + 80_000 + 90_000);
  assert.is(a.verified_minor, 20_000 + 25_000 + 41_000 + 50_000 + 60_000 + 90_000);
  // A reversed fill is no longer on the withdrawal; a reversed deposit's fill still is (the
  // depositing merchant gives the money back): the total is the withdrawal's filled_minor.
  assert.is(a.filled_minor, 20_000 + 25_000 + 40_000 + 60_000 + 90_000);
  const csv = await s.bo('GET', `/v1/bo/reports/receiving-accounts?merchant_id=${withdrawer.id}&livemode=true&format=csv`, undefined, { roles: ['finance'] });
  assert.is(csv.status, 200, csv.text);
  const at = new Date(s.clock.now()).toISOString().replace(/[-:]|\.000(?=Z)/g, '');
  assert.is(csv.headers.get('content-disposition'), `attachment; filename="receiving-accounts-${withdrawer.id}-live-${at}.csv"`);
  // The CSV carries what the JSON does: the account line its leg counts, a reversed fill's leg what the fill was.
  const lines = parse(csv.text, { columns: true }) as Record<string, string>[];
  const accountLine = lines.find((l) => l.line === 'account')!;
  assert.equal([accountLine.legs, accountLine.pending_legs, accountLine.released_unpaid_legs, accountLine.disagreeing_legs].map(Number), [a.legs, a.pending_legs, a.released_unpaid_legs, a.disagreeing_legs]);
  const reversedLine = lines.find((l) => l.line === 'leg' && l.deposit_id === of('FILL_REVERSED').deposit_id)!;
  assert.equal([reversedLine.filled_minor, reversedLine.fill_reversed_minor], ['0', '50000']);
  assert.ok(lines.filter((l) => l.line === 'leg' && l.reason !== 'FILL_REVERSED').every((l) => l.fill_reversed_minor === ''), 'empty where no fill was reversed');
  const support = await s.bo('GET', `/v1/bo/reports/receiving-accounts?merchant_id=${withdrawer.id}`, undefined, { roles: ['support'] });
  assert.is(support.status, 403);
  // A mode that is neither true nor false is refused, naming the parameter, on each report.
  for (const report of ['receiving-accounts', 'statements']) {
    const bad = await s.bo('GET', `/v1/bo/reports/${report}?merchant_id=${withdrawer.id}&livemode=yes`, undefined, { roles: ['finance'] });
    assert.is(bad.status, 422, `${report}: ${bad.text}`);
    assert.is(bad.json.error.code, 'validation_error');
    assert.is(bad.json.error.details.fields[0].path, 'query.livemode');
  }
});

test('satang report: receiving-account, statement, trial-balance and fees as tables, and CSV equal to the API', async () => {
  const receiving = await report(['receiving-account', '--merchant', withdrawer.id]);
  assert.is(receiving.code, 0, receiving.stderr);
  assert.match(receiving.stdout, /004\s+xxxxxx6789\s+สมหญิง ร\*\*\*\s+9\s+4400\.00\s+2860\.00\s+2350\.00\s+NO/);
  assert.match(receiving.stdout, /SHORT_PAID \(told 300\.00, verified 250\.00, filled 250\.00\)/);
  assert.match(receiving.stdout, /DECLINED_TRANSFER \(told 800\.00, verified —, filled —, the declined order's slip showed 800\.00\)/);
  const receivingCsv = await report(['receiving-account', '--merchant', withdrawer.id, '--csv']);
  assert.is(receivingCsv.code, 0, receivingCsv.stderr);
  const legs = parse(receivingCsv.stdout, { columns: true }) as Record<string, string>[];
  assert.equal(legs.filter((r) => r.line === 'account').map((r) => [r.account_name_masked, r.told_minor, r.verified_minor, r.filled_minor, r.told_baht, r.reason]), [['สมหญิง ร***', '440000', '286000', '235000', '4400.00', 'DIFFERENCES']]);
  assert.equal(legs.filter((r) => r.line === 'leg').map((r) => r.reason).sort(), ['DECLINED_TRANSFER', 'DEPOSIT_REVERSED', 'FILL_REVERSED', 'OVERPAID', 'SHORT_PAID', 'SLIP_AWAITED']);
  assert.equal(legs.filter((r) => r.reason === 'DECLINED_TRANSFER').map((r) => [r.verified_minor, r.slip_shown_minor]), [['', '80000']]);
  assert.equal(legs.filter((r) => r.reason === 'FILL_REVERSED').map((r) => [r.verified_minor, r.filled_minor]), [['50000', '0']]);

  const day = bangkokDayOf(s.clock.now());
  const table = await report(['statement', '--merchant', withdrawer.id, '--date', day]);
  assert.is(table.code, 0, table.stderr);
  const api = (await s.bo('GET', `/v1/bo/reports/statements?merchant_id=${withdrawer.id}&date=${day}`, undefined, { roles: ['finance'] })).json;
  const available = api.buckets.find((b: any) => b.bucket === 'available');
  assert.match(table.stdout, new RegExp(`^available\\s+opening\\s+${(available.opening_minor / 100).toFixed(2)}$`, 'm'));
  assert.match(table.stdout, new RegExp(`closing\\s+${(available.closing_minor / 100).toFixed(2)}$`, 'm'));
  const csv = await report(['statement', '--merchant', withdrawer.id, '--date', day, '--csv']);
  assert.is(csv.code, 0);
  const rows = parse(csv.stdout, { columns: true }) as Record<string, string>[];
  assert.is(rows[0]!.merchant_name, 'ผู้ถอน');
  assert.is(Number(rows.find((r) => r.bucket === 'available' && r.line === 'closing')!.amount_minor), available.closing_minor);
  const forExcel = await report(['statement', '--merchant', withdrawer.id, '--date', day, '--excel']);
  assert.is(forExcel.stdout, `\uFEFF${csv.stdout}`, '--excel: the same CSV after a UTF-8 byte-order mark, so Excel reads its Thai');

  const lines = await report(['statement-lines', '--merchant', withdrawer.id, '--date', day]);
  assert.is(lines.code, 0, lines.stderr);
  const apiLines = (await s.bo('GET', `/v1/bo/reports/statement-lines?merchant_id=${withdrawer.id}&date=${day}`, undefined, { roles: ['finance'] })).json;
  assert.ok(apiLines.count > 0, 'the scene moved money today');
  assert.match(lines.stdout, new RegExp(`^statement lines ${withdrawer.id} live ${day} \\(Asia/Bangkok\\): ${apiLines.count}$`, 'm'));
  for (const l of apiLines.data) assert.match(lines.stdout, new RegExp(`^${day}\\s+${l.id}\\s+${l.type}\\s`, 'm'));
  const linesCsv = await report(['statement-lines', '--merchant', withdrawer.id, '--date', day, '--csv']);
  assert.is(linesCsv.stdout, (await s.bo('GET', `/v1/bo/reports/statement-lines?merchant_id=${withdrawer.id}&date=${day}&livemode=true&format=csv`, undefined, { roles: ['finance'] })).text);

  const tb = await report(['trial-balance']);
  assert.is(tb.code, 0, tb.stderr);
  assert.match(tb.stdout, /^live:$/m);
  assert.match(tb.stdout, /sys:live:fee_revenue/);
  assert.match(tb.stdout, /total\s+[\d.]+\s+[\d.]+\s+balanced/);
  // Each merchant account names its merchant, as the JSON's and the CSV's merchant_name do; a system account leaves it empty.
  const tbLines = tb.stdout.split('\n');
  const tbRow = (account: string) => tbLines.find((l) => l.startsWith(account))!.split(/ {2,}/);
  assert.equal(tbLines.find((l) => l.startsWith('account '))!.split(/ {2,}/).slice(0, 3), ['account', 'merchant name', 'postings']);
  assert.equal(tbRow(`${withdrawer.id}:live:available `).slice(0, 2), [`${withdrawer.id}:live:available`, 'ผู้ถอน']);
  assert.equal(tbRow(`${payer.id}:live:`)[1], 'Payer');
  assert.match(tbRow('sys:live:fee_revenue ')[1]!, /^\d+$/, 'a system account has no merchant: its postings follow');
  const fees = await report(['fees', '--date', day]);
  assert.is(fees.code, 0, fees.stderr);
  const feesApi = (await s.bo('GET', `/v1/bo/reports/fees?date=${day}`, undefined, { roles: ['finance'] })).json;
  assert.ok(feesApi.totals.charged.count > 0, 'the scene charged fees');
  const t = feesApi.totals;
  assert.match(fees.stdout, new RegExp(`^total\\s+${t.charged.count}\\s+${(t.charged.fee_minor / 100).toFixed(2)}\\s+${(t.charged.vat_minor / 100).toFixed(2)}\\s+${t.refunded.count}\\s+`, 'm'));
  const feesCsv = await report(['fees', '--date', day, '--merchant', withdrawer.id, '--csv']);
  assert.is(feesCsv.code, 0, feesCsv.stderr);
  assert.is(feesCsv.stdout, (await s.bo('GET', `/v1/bo/reports/fees?date=${day}&merchant_id=${withdrawer.id}&format=csv`, undefined, { roles: ['finance'] })).text);
  const oneLabel = await report(['fees', '--date', day, '--white-label', withdrawer.whiteLabelId, '--csv']);
  assert.is(oneLabel.stdout, (await s.bo('GET', `/v1/bo/reports/fees?date=${day}&white_label_id=${withdrawer.whiteLabelId}&format=csv`, undefined, { roles: ['finance'] })).text);
  const unknownLabel = await report(['fees', '--date', day, '--white-label', 'wl_nobody']);
  assert.is(unknownLabel.code, 1, 'the white label is asked for');
  assert.match(unknownLabel.stderr, /HTTP 404/);
  assert.is((await report(['fees'])).code, 2, 'a period is required');
  const refused = await report(['statement', '--merchant', withdrawer.id, '--date', 'yesterday']);
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /HTTP 422/);
  const usage = await report(['statement', '--date', day]);
  assert.is(usage.code, 2);
});

test('a report whose figures pass 2^53 − 1 (sandbox funding moved back and forth) answers with every digit, and the CLI prints them', async () => {
  const most = 9_007_199_254_740_991; // the most one merchant may hold
  const move = async (direction: 'credit' | 'debit') => {
    const r = await s.bo('POST', `/v1/bo/merchants/${payer.id}/adjustments`, { livemode: false, amount_minor: most, direction, bucket: 'available', reason: 'sandbox load test' }, { stepUp: true });
    assert.is(r.status, 201, r.text);
  };
  await move('credit');
  await move('debit');
  await move('credit');
  const turnover = '18014398509481982'; // 2 × most: credits into the merchant's available bucket
  const tb = await s.bo('GET', '/v1/bo/reports/trial-balance', undefined, { roles: ['finance'] });
  assert.is(tb.status, 200, tb.text);
  assert.match(tb.text, new RegExp(`"account":"${payer.id}:test:available"[^}]*"credit_minor":${turnover}[,}]`));
  assert.ok(tb.json.sections.every((x: any) => x.balanced), 'both modes still balance');
  const day = bangkokDayOf(s.clock.now());
  const statement = await s.bo('GET', `/v1/bo/reports/statements?merchant_id=${payer.id}&livemode=false&date=${day}`, undefined, { roles: ['finance'] });
  assert.is(statement.status, 200, statement.text);
  assert.match(statement.text, new RegExp(`"type":"adjustment","count":3,"credit_minor":${turnover},"debit_minor":${most},"net_minor":${most}`));
  const own = await s.call(payer.sandbox.api_key, 'GET', `/v1/pay/reports/statements?date=${day}`);
  assert.is(own.status, 200, own.text);
  const table = await report(['trial-balance']);
  assert.is(table.code, 0, table.stderr);
  assert.match(table.stdout, /^sandbox:$/m);
  assert.match(table.stdout, new RegExp(`${payer.id}:test:available\\s+Payer\\s+\\d+\\s+\\S+\\s+180143985094819\\.82\\s+90071992547409\\.91`));
});

test('a leg whose slip is held for review: SLIP_IN_REVIEW with what the slip showed arriving (pending, not a difference), not SLIP_AWAITED', async () => {
  const held = await deposit(11_000n);
  await slip(held, 'rcpt_held', 'tr_held', 11_000n, 'สมศรี มีสุข'); // another name: held for review
  assert.is(s.running.store.world.deposits.get(held)!.status, 'under_review');
  const r = await s.bo('GET', `/v1/bo/reports/receiving-accounts?merchant_id=${withdrawer.id}&livemode=true`, undefined, { roles: ['finance'] });
  const leg = r.json.data[0].differences.find((d: any) => d.deposit_id === held);
  assert.equal([leg?.reason, leg?.slip_shown_minor, leg?.verified_minor, leg?.filled_minor], ['SLIP_IN_REVIEW', 11_000, null, null], JSON.stringify(leg));
  const cli = await report(['receiving-account', '--merchant', withdrawer.id]);
  assert.match(cli.stdout, /SLIP_IN_REVIEW \(told 110\.00, verified —, filled —, the slip in review showed 110\.00\)/);
});

/**
 * A two-leg order released at expiry, then paid by late slips: a leg a late slip verified is
 * awaited (FILL_PENDING, the order waits for its other leg), not a fill that differs; a late
 * slip whose review holds the leg it reached shows SLIP_IN_REVIEW, not released unpaid. Each
 * then agrees with the order: settled, both legs filled; declined, the transfer declined.
 */
test('late slips on an expired two-leg order: their legs awaited, then as the order ends', async () => {
  // A white label of their own: no other withdrawal takes the order whole.
  const payee = await s.onboard('ผู้ถอนสองบัญชี');
  const shop = await s.onboard('Shop', payee.whiteLabelId);
  await s.fund(payee.id, 1_000_000);
  const accounts = ['7111112222', '7333334444'];
  const beneficiaries: string[] = [];
  for (const accountNumber of accounts) {
    beneficiaries.push(await accepted(s, { type: 'RegisterBeneficiary', actor: operator, merchantId: payee.id, livemode: true, bankCode: '004', accountNumber, accountNameTh: 'สมหญิง รักดี', verified: true }));
  }
  const withdraw = async () => {
    for (const beneficiaryId of beneficiaries) {
      await accepted(s, { type: 'CreateWithdrawal', actor: merchantActor(payee.id), amountMinor: 10_000n, merchantReference: `w-${randomUUID()}`, endUserRef: 'payee', beneficiaryId, requiresApproval: false, p2pMinimumApplies: false });
    }
  };
  const expiredOrder = async () => {
    const id = await deposit(20_000n, 60, shop);
    assert.is(s.running.store.world.deposits.get(id)!.legs.length, 2, 'split between the two accounts');
    await s.running.services.write.advanceClock!(120_000);
    assert.is(s.running.store.world.deposits.get(id)!.status, 'expired');
    return id;
  };
  // Each leg's reason; a leg that agrees or was released unpaid is not listed.
  const reasons = async (depositId: string) => {
    const r = await s.bo('GET', `/v1/bo/reports/receiving-accounts?merchant_id=${payee.id}&livemode=true`, undefined, { roles: ['finance'] });
    assert.is(r.status, 200, r.text);
    const legs = s.running.store.world.deposits.get(depositId)!.legs;
    return legs.map((l) => r.json.data.flatMap((a: any) => a.differences).find((d: any) => d.deposit_id === depositId && d.leg_ref === l.legRef)?.reason ?? 'unlisted');
  };

  await withdraw();
  const paidLate = await expiredOrder();
  const madeAt = s.running.store.world.deposits.get(paidLate)!.createdAt + 60_000;
  await slip(paidLate, 'rcpt_late_1', 'tr_late_1', 10_000n, undefined, { leg: 0, occurredAt: madeAt });
  assert.is(s.running.store.world.deposits.get(paidLate)!.status, 'expired', 'the order waits for its other leg');
  assert.equal(await reasons(paidLate), ['FILL_PENDING', 'unlisted'], 'the verified leg is awaited, not a fill that differs');
  // A late slip whose image cannot be read takes the order back to expired: the paid leg is still awaited.
  await accepted(s, { type: 'ReceiveSlip', actor: system, depositId: paidLate, receiptId: 'rcpt_blurred', hasImage: true });
  await accepted(s, { type: 'RecordSlipVerification', actor: system, depositId: paidLate, receiptId: 'rcpt_blurred', outcome: { kind: 'unreadable' } });
  assert.is(s.running.store.world.deposits.get(paidLate)!.status, 'expired');
  assert.equal(await reasons(paidLate), ['FILL_PENDING', 'unlisted'], 'still awaited after an unreadable late slip');
  await slip(paidLate, 'rcpt_late_2', 'tr_late_2', 10_000n, undefined, { leg: 1, occurredAt: madeAt });
  assert.is(s.running.store.world.deposits.get(paidLate)!.status, 'settled');
  assert.equal(await reasons(paidLate), ['unlisted', 'unlisted'], 'both filled as verified');
  const r = await s.bo('GET', `/v1/bo/reports/receiving-accounts?merchant_id=${payee.id}&livemode=true`, undefined, { roles: ['finance'] });
  assert.equal(r.json.data.map((a: any) => [a.legs, a.verified_minor, a.filled_minor, a.pending_legs, a.released_unpaid_legs, a.agrees]), [[1, 10_000, 10_000, 0, 0, true], [1, 10_000, 10_000, 0, 0, true]]);

  await withdraw();
  const reviewed = await expiredOrder();
  const at = s.running.store.world.deposits.get(reviewed)!.createdAt + 60_000;
  await slip(reviewed, 'rcpt_whole', 'tr_whole', 20_000n, undefined, { leg: 0, occurredAt: at });
  assert.equal(s.running.store.world.deposits.get(reviewed)!.review?.reasons.map((r) => r.code), ['SETTLE_CONFLICT'], 'the whole order to one payee');
  assert.equal(await reasons(reviewed), ['SLIP_IN_REVIEW', 'unlisted'], 'the leg the transfer reached is held for review');
  await accepted(s, { type: 'DeclineDepositReview', actor: operator, depositId: reviewed, note: 'the payer is not the end user of this order' });
  assert.equal(await reasons(reviewed), ['DECLINED_TRANSFER', 'unlisted']);
});

/**
 * A late slip whose leg's withdrawal takes nothing more (others filled it since the order
 * expired) holds nothing. In review its leg shows the slip (SLIP_IN_REVIEW); approved (two
 * reviewers, the credit from suspense) it reads as a fill that differs — the payee has
 * money its withdrawal never takes — not as a fill still awaited forever (FILL_PENDING).
 */
test('a late review whose withdrawal took others meanwhile: after approval a fill that differs, not one awaited', async () => {
  const payee = await s.onboard('ผู้ถอนเต็มแล้ว');
  const shop = await s.onboard('Shop', payee.whiteLabelId);
  await s.fund(payee.id, 1_000_000);
  const withdrawals: string[] = [];
  for (const accountNumber of ['7555556666', '7777778888']) {
    const beneficiaryId = await accepted(s, { type: 'RegisterBeneficiary', actor: operator, merchantId: payee.id, livemode: true, bankCode: '004', accountNumber, accountNameTh: 'สมหญิง รักดี', verified: true });
    withdrawals.push(await accepted(s, { type: 'CreateWithdrawal', actor: merchantActor(payee.id), amountMinor: 10_000n, merchantReference: `w-${randomUUID()}`, endUserRef: 'payee', beneficiaryId, requiresApproval: false, p2pMinimumApplies: false }));
  }
  const order = await deposit(20_000n, 60, shop);
  assert.is(s.running.store.world.deposits.get(order)!.legs.length, 2, 'split between the two accounts');
  const madeAt = s.running.store.world.deposits.get(order)!.createdAt + 30_000;
  await s.running.services.write.advanceClock!(120_000);
  assert.is(s.running.store.world.deposits.get(order)!.status, 'expired');
  // Another payer fills leg 1's withdrawal in the meantime.
  const other = await deposit(10_000n, undefined, shop);
  assert.is((s.running.store.world.deposits.get(order)!.legs[0]!.counterparty as { withdrawalId: string }).withdrawalId, withdrawals[0]);
  await payLeg(s, other, 0, 10_000n);
  assert.is(s.running.store.world.withdrawals.get(withdrawals[0]!)!.status, 'settled', 'leg 1\'s withdrawal filled by the other payer');
  const reasons = async () => {
    const r = await s.bo('GET', `/v1/bo/reports/receiving-accounts?merchant_id=${payee.id}&livemode=true`, undefined, { roles: ['finance'] });
    assert.is(r.status, 200, r.text);
    const legs = s.running.store.world.deposits.get(order)!.legs;
    return legs.map((l) => r.json.data.flatMap((a: any) => a.differences).find((d: any) => d.deposit_id === order && d.leg_ref === l.legRef)?.reason ?? 'unlisted');
  };
  // Leg 1's payer, a name the order does not give: review, the transfer surely in leg 1's account.
  await slip(order, 'rcpt_full', 'tr_full', 10_000n, 'Somebody Else', { leg: 0, occurredAt: madeAt });
  const reviewed = s.running.store.world.deposits.get(order)!;
  assert.is(reviewed.status, 'under_review');
  assert.is(reviewed.legs[0]!.held, false, 'nothing to hold: its withdrawal takes no more');
  assert.equal(await reasons(), ['SLIP_IN_REVIEW', 'unlisted'], 'the slip in review');
  const note = 'The payer confirmed the transfer by phone.';
  const legAmounts = reviewed.legs.map((l, i) => ({ legRef: l.legRef, amountMinor: i === 0 ? 10_000n : 0n }));
  await accepted(s, { type: 'ApproveDepositReview', actor: operator, depositId: order, note, legAmounts });
  await accepted(s, { type: 'ApproveDepositReview', actor: { kind: 'operator', operatorId: 'emp_second_reviewer' }, depositId: order, note, legAmounts });
  assert.is(s.running.store.world.deposits.get(order)!.status, 'settled');
  assert.equal(await reasons(), ['FILL_DIFFERS', 'unlisted'], 'money in the account its withdrawal never takes: a difference, not a fill pending');
});

test.after(async () => { await s.stop(); });

test.run();
