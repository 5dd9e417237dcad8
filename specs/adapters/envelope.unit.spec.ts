// presentedEnvelope (adapters/sqlite/envelope.ts): a sandbox envelope stored with raw btxn_
// ids leaves naming every balance transaction sbxbtxn_l_… — a deposit's settlement and
// reversal, a withdrawal's reserve and fills (in the object, previous_attributes and
// data.fill), a balance_transaction's own id, what it reverses or clears and an
// adjustment's source — while a merchant's own strings (merchant_reference, metadata) and
// every other byte stay; live envelopes and current ones are the stored bytes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { presentedEnvelope } from '../../adapters/sqlite/envelope.ts';

const envelope = (livemode: boolean, data: unknown) => JSON.stringify({ id: 'evt_1', object: 'event', type: 't', api_version: '2026-08-01', livemode, created_at: '2026-11-21T03:00:00.000Z', sequence: 1, data });

const deposit = (p: string) => ({
  id: 'dep_1', object: 'deposit_order', merchant_reference: 'btxn_mine', metadata: { balance_transaction_id: 'btxn_kept' },
  balance_transaction_id: `${p}A`, reversal: { reason_code: 'X', reverses_balance_transaction_id: `${p}A`, balance_transaction_id: `${p}B` }, amount_minor: 10_000, note: 'ไทย "q"',
});
const withdrawal = (p: string) => ({
  id: 'wd_1', object: 'withdrawal_order', reserved_balance_transaction_id: `${p}R`,
  fills: [{ leg_ref: 'l1', balance_transaction_id: `${p}F`, reversal_balance_transaction_id: `${p}G` }],
});
const transaction = (p: string) => ({
  id: `${p}T`, object: 'balance_transaction', reverses_balance_transaction_id: `${p}U`, cleared_from_balance_transaction_id: `${p}V`, source: { type: 'adjustment', id: `${p}T` },
});

test('a sandbox envelope in the old form comes out exactly as the current form is stored', () => {
  const cases = [
    (p: string) => ({ object: deposit(p), previous_attributes: { balance_transaction_id: null, reversal: null, version: 3 } }),
    (p: string) => ({ object: withdrawal(p), previous_attributes: { fills: [{ leg_ref: 'l1', balance_transaction_id: `${p}F` }], version: 1 }, fill: withdrawal(p).fills[0] }),
    (p: string) => ({ object: transaction(p) }),
  ];
  for (const data of cases) {
    const now = envelope(false, data('sbxbtxn_l_'));
    assert.is(presentedEnvelope(envelope(false, data('btxn_'))), now);
    assert.is(presentedEnvelope(now), now, 'the current form is left as stored');
  }
});

test('the merchant\'s own strings, a deposit-sourced transaction\'s source and live envelopes stay', () => {
  const old = presentedEnvelope(envelope(false, { object: deposit('btxn_') }));
  assert.match(old, /"merchant_reference":"btxn_mine"/);
  assert.match(old, /"metadata":\{"balance_transaction_id":"btxn_kept"\}/);
  const credited = envelope(false, { object: { ...transaction('btxn_'), source: { type: 'deposit', id: 'dep_1' } } });
  assert.match(presentedEnvelope(credited), /"source":\{"type":"deposit","id":"dep_1"\}/);
  const live = envelope(true, { object: transaction('btxn_') });
  assert.is(presentedEnvelope(live), live);
});

test.run();
