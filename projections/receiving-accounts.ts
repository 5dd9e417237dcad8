// The receiving accounts projection (issue 16): every deposit leg satang told a payer to
// send to a withdrawing party's beneficiary account, with what the payer's verified slip
// showed and what was credited to the withdrawal as a fill. Legs paid to the external
// gateway route are not a party's account and are left out.
//   DepositMatched     a leg is told (amount, receiver, the withdrawal and its leg ref)
//   LegCompleted       the leg's slip is verified (its transferred amount), its fill awaited
//                      again if expiry had released it (a late slip: the order waits for it)
//   LegsReleased       the leg no longer holds the withdrawal's money
//   DepositExpired, DepositCanceled   every leg no slip verified is released (an unreadable
//                      late slip's return to expired keeps the legs late slips paid awaited)
//   DepositSettled     a second transfer a review showed to a verified leg added to it (the
//                      approval counts it there); a single-leg deposit's slip amount (V), or
//                      what the approving reviewer found each leg received, when no
//                      LegCompleted gave one; a leg with nothing verified is released
//                      (unpaid), and so is one the settlement gave no fill (its withdrawal
//                      took nothing more, suspense paid): no longer awaited, a difference
//   DepositUnderReview what the slip showed arriving, when it showed this leg's receiver
//                      (awaited again: a late slip's review holds the leg for it)
//   DepositRejected    every leg released; a leg a slip showed money arriving in is marked
//                      declined (the money may be in the account with no fill)
//   DepositReversed    the settled deposit is taken back
//   FillLanded         the withdrawal is credited the leg (keyed by its payout leg ref)
//   FillReversed       the fill is taken back
// Invariant kept: one row per (deposit, leg); apply reads only this table and the entry.

import type { DepositEvent } from '../core/deposit/state.ts';
import type { WithdrawalEvent } from '../core/withdrawal/state.ts';
import type { ReceivingLeg } from '../core/finance/receiving.ts';
import type { ProjectionsDb } from './db.ts';
import { eventOf, type RelayedEntry } from './entry.ts';
import type { Projection } from './projection.ts';

const schema = `
CREATE TABLE IF NOT EXISTS ra_legs (
  deposit_id       TEXT    NOT NULL,
  leg_ref          TEXT    NOT NULL,
  livemode         INTEGER NOT NULL,
  merchant_id      TEXT    NOT NULL,  -- the withdrawing party
  withdrawal_id    TEXT    NOT NULL,
  payout_leg_ref   TEXT    NOT NULL,
  bank_code        TEXT    NOT NULL,
  account_number   TEXT    NOT NULL,
  account_name     TEXT    NOT NULL,
  told_minor       INTEGER NOT NULL,
  told_at          INTEGER NOT NULL,
  verified_minor   INTEGER,
  filled_minor     INTEGER,
  released         INTEGER NOT NULL DEFAULT 0,
  fill_reversed    INTEGER NOT NULL DEFAULT 0,
  deposit_reversed INTEGER NOT NULL DEFAULT 0,
  slip_shown_minor INTEGER,
  declined         INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (deposit_id, leg_ref)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ra_legs_by_account ON ra_legs (livemode, merchant_id, bank_code, account_number, told_at);
CREATE INDEX IF NOT EXISTS ra_legs_by_payout ON ra_legs (withdrawal_id, payout_leg_ref);
`;

export const receivingAccounts: Projection = {
  name: 'receiving_accounts',
  tables: ['ra_legs'],
  schema,
  prepare(db: ProjectionsDb) {
    const insertLeg = db.prepare(`INSERT INTO ra_legs (deposit_id, leg_ref, livemode, merchant_id, withdrawal_id, payout_leg_ref, bank_code, account_number, account_name, told_minor, told_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (deposit_id, leg_ref) DO NOTHING`);
    const verify = db.prepare('UPDATE ra_legs SET verified_minor = ?, released = 0 WHERE deposit_id = ? AND leg_ref = ?');
    const verifyIfUnset = db.prepare('UPDATE ra_legs SET verified_minor = ? WHERE deposit_id = ? AND leg_ref = ? AND verified_minor IS NULL');
    const legCount = db.prepare<[string], number>('SELECT count(*) FROM ra_legs WHERE deposit_id = ?').pluck(true);
    const unfilledLegs = db.prepare<[string], string>('SELECT leg_ref FROM ra_legs WHERE deposit_id = ? AND released = 0 AND filled_minor IS NULL').pluck(true);
    const release = db.prepare('UPDATE ra_legs SET released = 1 WHERE deposit_id = ? AND leg_ref = ?');
    const releaseAll = db.prepare('UPDATE ra_legs SET released = 1 WHERE deposit_id = ?');
    const releaseUnverified = db.prepare('UPDATE ra_legs SET released = 1 WHERE deposit_id = ? AND verified_minor IS NULL');
    const reverseDeposit = db.prepare('UPDATE ra_legs SET deposit_reversed = 1 WHERE deposit_id = ?');
    const showSlip = db.prepare('UPDATE ra_legs SET slip_shown_minor = ?, released = 0 WHERE deposit_id = ? AND leg_ref = ?');
    // A second transfer to a verified leg (shown in its review): the approval counts it with the leg's money.
    const addShownAgain = db.prepare('UPDATE ra_legs SET verified_minor = verified_minor + slip_shown_minor, slip_shown_minor = NULL WHERE deposit_id = ? AND verified_minor IS NOT NULL AND slip_shown_minor IS NOT NULL');
    const decline = db.prepare('UPDATE ra_legs SET declined = 1 WHERE deposit_id = ? AND slip_shown_minor IS NOT NULL AND verified_minor IS NULL');
    const fill = db.prepare('UPDATE ra_legs SET filled_minor = ? WHERE withdrawal_id = ? AND payout_leg_ref = ?');
    const reverseFill = db.prepare('UPDATE ra_legs SET fill_reversed = 1 WHERE withdrawal_id = ? AND payout_leg_ref = ?');

    const onDeposit = (id: string, e: DepositEvent, livemode: boolean) => {
      switch (e.type) {
        case 'DepositMatched':
          for (const leg of e.legs) {
            const c = leg.counterparty;
            if (c.kind !== 'withdrawal') continue;
            insertLeg.run(id, leg.legRef, livemode ? 1 : 0, c.merchantId, c.withdrawalId, c.payoutLegRef, leg.receiver.bankCode, leg.receiver.accountNumber, leg.receiver.accountName, leg.amountMinor, e.at);
          }
          return;
        case 'LegCompleted':
          verify.run(e.verifiedAmountMinor, id, e.legRef);
          return;
        case 'LegsReleased':
          for (const legRef of e.legRefs) release.run(id, legRef);
          return;
        case 'DepositSettled': {
          addShownAgain.run(id);
          // What a reviewer found each leg received, else the fill (the whole slip for a single leg).
          for (const r of e.decision?.received ?? []) if (r.amountMinor > 0n) verifyIfUnset.run(r.amountMinor, id, r.legRef);
          const single = legCount.get(id) === 1;
          for (const f of e.fills) verifyIfUnset.run(single ? e.settlement.transferredMinor : f.amountMinor, id, f.legRef);
          // Settled: a leg nothing was verified for is released unpaid, never awaited again;
          // one verified that took no fill (its withdrawal took nothing more) is no longer awaited either.
          releaseUnverified.run(id);
          for (const legRef of unfilledLegs.all(id)) if (!e.fills.some((f) => f.legRef === legRef)) release.run(id, legRef);
          return;
        }
        case 'DepositUnderReview':
          // The slip showed a transfer into this leg's account, whatever the review decides.
          // A second transfer to a verified leg is shown on it too; the approval adds it (DepositSettled).
          if (e.legRef !== undefined && e.transferredAmountMinor !== undefined && e.verification?.receiverMatch) showSlip.run(e.transferredAmountMinor, id, e.legRef);
          return;
        case 'DepositReversed':
          reverseDeposit.run(id);
          return;
        case 'DepositRejected':
          decline.run(id);
          releaseAll.run(id);
          return;
        case 'DepositExpired':
        case 'DepositCanceled':
          releaseUnverified.run(id); // closed: no leg of it is awaited but those late slips paid
          return;
        default:
          return;
      }
    };
    const onWithdrawal = (id: string, e: WithdrawalEvent) => {
      if (e.type === 'FillLanded') fill.run(e.fill.amountMinor, id, e.fill.legRef);
      else if (e.type === 'FillReversed') reverseFill.run(id, e.legRef);
    };

    return {
      apply(entry: RelayedEntry) {
        if (entry.kind === 'deposit') onDeposit(entry.stream, eventOf(entry) as DepositEvent, entry.livemode === true);
        else if (entry.kind === 'withdrawal') onWithdrawal(entry.stream, eventOf(entry) as WithdrawalEvent);
      },
    };
  },
};

export interface ReceivingAccountLegs {
  readonly livemode: boolean;
  readonly merchantId: string;
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly accountName: string;
  readonly legs: readonly ReceivingLeg[];
}

type LegRow = [string, string, string, string, string, string, string, bigint, bigint, bigint | null, bigint | null, bigint, bigint, bigint, bigint | null, bigint, string];

export class ReceivingAccountReads {
  private readonly readTx;
  constructor(db: ProjectionsDb) {
    const legs = db.prepare<[number, string], LegRow>(`SELECT bank_code, account_number, account_name, deposit_id, leg_ref, withdrawal_id, merchant_id, told_minor, told_at,
      verified_minor, filled_minor, released, fill_reversed, deposit_reversed, slip_shown_minor, declined, payout_leg_ref FROM ra_legs WHERE livemode = ? AND merchant_id = ?
      ORDER BY bank_code, account_number, told_at, deposit_id, leg_ref`).raw(true).safeIntegers(true);
    this.readTx = db.transaction((merchantId: string, livemode: boolean, accountsMax: number): ReceivingAccountLegs[] => {
      const byAccount = new Map<string, ReceivingAccountLegs & { legs: ReceivingLeg[] }>();
      for (const [bank, number, name, depositId, legRef, withdrawalId, owner, told, toldAt, verified, filled, released, fillReversed, depositReversed, shown, declined, payoutLegRef] of legs.iterate(livemode ? 1 : 0, merchantId)) {
        const key = `${bank}|${number}`;
        let a = byAccount.get(key);
        if (!a) {
          if (byAccount.size >= accountsMax) break;
          byAccount.set(key, (a = { livemode, merchantId: owner, bankCode: bank, accountNumber: number, accountName: name, legs: [] }));
        }
        a.legs.push({
          depositId, legRef, withdrawalId, payoutLegRef, toldMinor: told, toldAt: Number(toldAt), verifiedMinor: verified, filledMinor: filled,
          released: released === 1n, fillReversed: fillReversed === 1n, depositReversed: depositReversed === 1n,
          declinedShownMinor: declined === 1n ? shown : null, inReviewShownMinor: declined === 1n ? null : shown,
        });
      }
      return [...byAccount.values()];
    });
  }

  /** The receiving accounts of a withdrawing merchant in a mode, each with its legs (oldest first). */
  accounts(merchantId: string, livemode: boolean, accountsMax: number): ReceivingAccountLegs[] {
    return this.readTx.deferred(merchantId, livemode, accountsMax);
  }
}
