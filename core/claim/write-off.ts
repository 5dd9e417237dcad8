// Writing off what a payer owes back (a claim's refund the payer holds twice after the bank
// recalled the transfer: ClaimRefundOwed): finance gives up on recovering all or part of it,
// and the trial balance moves that much from owed_by_payers to payer_debts_written_off, a
// loss. Four eyes, as a large adjustment: one finance operator proposes an amount with a
// reason note, a second one approves it naming the same amount, within
// limits.writeOffProposalTtlMs. Refusals are values in a fixed order of precedence, each
// pure, so the route asks them before the step-up as well:
//   proposal: a note too short (422 review_note_required) → no claim (404) → nothing owed
//             (409) → more than owed (422 validation_error, amount_minor maximum) → another
//             proposal still waits (409)
//   approval: no claim (404) → no such waiting proposal (404) → its proposer (409, four
//             eyes) → another amount than proposed (422) → more than now owed (422: a recall
//             since lowered it) → a note given but too short (422)
// Nothing posts: the refund drew suspense when it was paid out, and the written-off line is
// a reclassification of that debit balance, as owed_by_payers is (core/finance/trial-balance.ts).

import { reject, type Rejection } from '../errors.ts';
import { bahtOf } from '../finance/money-text.ts';
import { limits } from '../limits.ts';
import type { Minor } from '../money.ts';
import { checkNote } from '../note.ts';
import { sameOperator } from '../operators.ts';
import type { Claim, ClaimEvent, WriteOffProposal } from './state.ts';

export type WriteOffCommand =
  /** `amountMinor` absent: all that is owed. `proposalId`: drawn by the handler once the proposal is admitted ('' before). */
  | { readonly type: 'ProposeWriteOff'; readonly at: number; readonly operatorId: string; readonly note: string; readonly amountMinor?: Minor; readonly proposalId: string }
  /** `amountMinor`: the amount as the approver read it in the proposal. */
  | { readonly type: 'ApproveWriteOff'; readonly at: number; readonly operatorId: string; readonly note?: string; readonly proposalId: string; readonly amountMinor: Minor };

/** The proposal that still waits for approval at `at`, if any. */
export function waitingWriteOff(s: Pick<Claim, 'writeOffProposal'>, at: number): WriteOffProposal | undefined {
  const p = s.writeOffProposal;
  return p !== undefined && at < p.proposedAt + limits.writeOffProposalTtlMs ? p : undefined;
}

function aboveOwed(amountMinor: Minor, owedMinor: Minor, since = ''): Rejection {
  return reject('validation_error', `A write-off is for at most what the payer owes back${since}: ${bahtOf(owedMinor)} baht (amount_minor ${owedMinor}).`,
    { fields: [{ path: 'amount_minor', reason: 'maximum', hint: `at most ${owedMinor}` }], owed_by_payer_minor: Number(owedMinor), amount_minor: Number(amountMinor) });
}

/** Why the proposal is refused, or null (pure: the route asks it before the step-up too). */
export function proposalRefusal(c: Extract<WriteOffCommand, { type: 'ProposeWriteOff' }>, s: Claim | undefined): Rejection | null {
  const short = checkNote(c.note, 'A write-off');
  if (short) return short;
  if (!s) return reject('resource_not_found', 'No such claim.');
  const owed = s.owedByPayerMinor ?? 0n;
  if (owed === 0n) return reject('operation_not_allowed', `The payer of claim ${s.id} owes nothing back: there is nothing to write off.`, { owed_by_payer_minor: 0 });
  const amount = c.amountMinor ?? owed;
  if (amount <= 0n) return reject('validation_error', 'amount_minor must be positive.', { fields: [{ path: 'amount_minor', reason: 'minimum' }] });
  if (amount > owed) return aboveOwed(amount, owed);
  const waiting = waitingWriteOff(s, c.at);
  if (waiting) {
    return reject('operation_not_allowed', `A write-off of ${bahtOf(waiting.amountMinor)} baht proposed by ${waiting.proposedBy} waits for approval on this claim: another finance operator approves it, or it lapses after 24 hours.`,
      { proposal_id: waiting.id, proposed_by: waiting.proposedBy });
  }
  return null;
}

/** Why the approval is refused, or null (pure: the route asks it before the step-up too). */
export function approvalRefusal(c: Extract<WriteOffCommand, { type: 'ApproveWriteOff' }>, s: Claim | undefined): Rejection | null {
  if (!s) return reject('resource_not_found', 'No such claim.');
  const p = waitingWriteOff(s, c.at);
  if (!p || p.id !== c.proposalId) return reject('resource_not_found', 'No write-off proposal of this id waits for approval on this claim (a proposal lapses after 24 hours); propose it again.');
  if (sameOperator(c.operatorId, p.proposedBy)) {
    return reject('operation_not_allowed', 'The operator who proposed a write-off cannot approve it: a second finance operator does (four eyes).', { proposed_by: p.proposedBy });
  }
  if (c.amountMinor !== p.amountMinor) {
    return reject('validation_error', 'The amount approved is not the one proposed; read the proposal again and approve the amount it names.', { fields: [{ path: 'amount_minor', reason: 'mismatch' }] });
  }
  const owed = s.owedByPayerMinor ?? 0n;
  if (p.amountMinor > owed) return aboveOwed(p.amountMinor, owed, ' now (the bank recovered some of it since the proposal)');
  return c.note === undefined ? null : checkNote(c.note, 'A write-off\'s approval');
}

/** The write-off decider: the proposal or the approval, as events of the claim, or the refusal. */
export function decideWriteOff(c: WriteOffCommand, s: Claim | undefined): readonly ClaimEvent[] | Rejection {
  const refused = c.type === 'ProposeWriteOff' ? proposalRefusal(c, s) : approvalRefusal(c, s);
  if (refused || !s) return refused ?? reject('resource_not_found', 'No such claim.');
  const base = { at: c.at, claimId: s.id, operatorId: c.operatorId, status: s.status };
  switch (c.type) {
    case 'ProposeWriteOff':
      return [{ type: 'ClaimWriteOffProposed', ...base, note: c.note, proposalId: c.proposalId, amountMinor: c.amountMinor ?? s.owedByPayerMinor! }];
    case 'ApproveWriteOff': {
      const p = s.writeOffProposal!;
      const note = c.note ?? `Wrote off ${bahtOf(p.amountMinor)} baht the payer owes back, as ${p.proposedBy} proposed: ${p.note}`;
      return [{ type: 'ClaimWrittenOff', ...base, note, proposalId: p.id, proposedBy: p.proposedBy, amountMinor: p.amountMinor }];
    }
    default: {
      const _exhaustive: never = c;
      return _exhaustive;
    }
  }
}
