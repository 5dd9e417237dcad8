// The trial balance's figures are of one journal position (projections/read-models.ts,
// ReadModels.trialBalance): finance_ledger and payer_debts apply at their own pace, each on
// its own transactions, while the API reads projections.db on another connection. Here a
// real projections.db in a temp dir, written by the real appliers on one connection and read
// on another, with one projection held back as a writer between its applies would be: the
// owed_by_payers figure never runs ahead of the turnovers (payer_debts' later rows are left
// out), and a payer_debts behind finance_ledger is said (not ready) rather than read.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encode } from '../../core/journal.ts';
import { buildTransaction, type Movement } from '../../core/ledger/ledger.ts';
import { projectionSchemas } from '../../projections/all.ts';
import { Applier } from '../../projections/applier.ts';
import { openProjectionsDb } from '../../projections/db.ts';
import type { RelayedEntry } from '../../projections/entry.ts';
import { financeLedger } from '../../projections/finance-ledger.ts';
import { payerDebts } from '../../projections/payer-debts.ts';
import { payeeDebts } from '../../projections/payee-debts.ts';
import { ReadModels } from '../../projections/read-models.ts';

const at = Date.UTC(2026, 7, 1, 3, 0, 0);
const merchantId = 'mch_snapshot';
const silent = { info() {}, warn() {}, error() {} };

function posted(seq: number, m: Omit<Movement, 'id' | 'createdAt' | 'merchantId' | 'whiteLabelId' | 'livemode' | 'source'>): RelayedEntry {
  const id = `btxn_${String(seq).padStart(12, '0')}`;
  const transaction = buildTransaction({ ...m, id, createdAt: at, merchantId, whiteLabelId: 'wl_snapshot', livemode: true, source: { type: 'spec', id: `src_${seq}` } });
  return { seq, stream: id, kind: 'balance_transaction', version: 0, type: 'BalanceTransactionPosted', livemode: true, merchantId, recordedAt: at, data: encode({ type: 'BalanceTransactionPosted', at, transaction }), events: [] };
}

// The claim's refund of 50 baht drawn from suspense; the deposit's reversal (BANK_RECALL),
// and in the same command the refund recorded as owed back by the payer.
const entries: readonly RelayedEntry[] = [
  posted(1, { type: 'adjustment', amountMinor: 1_000_000n, from: null, to: 'available', counter: [{ account: 'adjustments', amountMinor: 1_000_000n }] }),
  posted(2, { type: 'adjustment', amountMinor: 5_000n, from: null, to: 'available', counter: [{ account: 'suspense', amountMinor: 5_000n }] }),
  posted(3, { type: 'reversal', amountMinor: 45_000n, from: 'available', to: null, counter: [{ account: 'reversals', amountMinor: 45_000n }] }),
  {
    seq: 4, stream: 'clm_snapshot', kind: 'claim', version: 6, type: 'ClaimRefundOwed', livemode: true, merchantId, recordedAt: at, events: [],
    data: encode({ type: 'ClaimRefundOwed', at, claimId: 'clm_snapshot', operatorId: 'emp_lead', note: 'recalled', depositId: 'dep_snapshot', reasonCode: 'BANK_RECALL', owedMinor: 5_000n, status: 'closed' }),
  },
];

function scene(): { writer: { finance: Applier; debts: Applier; payeeDebts: Applier }; models: ReadModels; close(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'satang-tb-snapshot-'));
  const writerDb = openProjectionsDb(dir, projectionSchemas, silent);
  const readerDb = openProjectionsDb(dir, projectionSchemas, silent);
  return {
    writer: { finance: new Applier(writerDb, financeLedger), debts: new Applier(writerDb, payerDebts), payeeDebts: new Applier(writerDb, payeeDebts) },
    models: new ReadModels(readerDb),
    close() { readerDb.close(); writerDb.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}

const applied = (applier: Applier, upto: number) => assert.is(applier.applyRun(entries.filter((e) => e.seq <= upto)).position, upto);

test('payer_debts ahead of finance_ledger: the owed line waits for the turnovers of the same journal position', () => {
  const s = scene();
  try {
    applied(s.writer.finance, 3);
    applied(s.writer.debts, 4); // the debt is recorded; finance_ledger has not applied seq 4 yet
    applied(s.writer.payeeDebts, 4);
    const early = s.models.trialBalance(at);
    assert.ok(early.ready);
    assert.is(early.position, 3);
    assert.equal(early.owedByPayers, [], 'nothing owed as of seq 3: the debt is seq 4');
    applied(s.writer.finance, 4);
    const later = s.models.trialBalance(at);
    assert.ok(later.ready);
    assert.equal([later.position, later.owedByPayers], [4, [{ livemode: true, owedMinor: 5_000n }]]);
    const suspense = later.turnovers.find((t) => t.account === 'sys:live:suspense');
    assert.is(suspense?.debitMinor, 5_000n, 'suspense carries the refund the payer owes');
  } finally {
    s.close();
  }
});

test('a debts projection behind finance_ledger: not ready, naming the position it must reach; then ready', () => {
  const s = scene();
  try {
    applied(s.writer.finance, 4);
    applied(s.writer.debts, 3);
    applied(s.writer.payeeDebts, 3);
    assert.equal(s.models.trialBalance(at), { ready: false, position: 4, behind: 'payer_debts' });
    applied(s.writer.debts, 4);
    assert.equal(s.models.trialBalance(at), { ready: false, position: 4, behind: 'payee_debts' });
    applied(s.writer.payeeDebts, 4);
    const figures = s.models.trialBalance(at);
    assert.ok(figures.ready);
    assert.equal([figures.position, figures.owedByPayers], [4, [{ livemode: true, owedMinor: 5_000n }]]);
  } finally {
    s.close();
  }
});

test.run();
