// The operator's view of one deposit (GET /v1/bo/deposits/{id}): the six verdicts side by
// side with what was expected and what the slip showed (masked as the contract asks), the
// slip evidence (its mini-QR decoded to trans_ref and sending bank, the image's
// fingerprint and where to fetch it), the duplicate-registry hits, the receiver match, and
// ONE timeline in journal order: created → matched (legs, receivers) → each slip and its
// verdicts → review decisions (who, when, note) → fills of the counterparty withdrawals →
// balance transactions → merchant events and each webhook delivery → every step with the
// journal seq and hash it rode in on. Presentation only: it reads the journal trail and
// the world, decides nothing. Balance transactions are named as the merchant's objects
// and history name them (sbxbtxn_l_ in sandbox), a balance_transaction step's stream too
// (the journal's key for it is the raw btxn_ id; the step's seq and hash locate the row).

import type { Deposit, DepositEvent, Leg, Slip, Verification } from '../../core/deposit/state.ts';
import { reviewNeedsTwo } from '../../core/deposit/decide.ts';
import { transferTimeWindow } from '../../core/deposit/verification.ts';
import type { DomainEvent } from '../../core/journal.ts';
import type { World } from '../../core/world.ts';
import { balanceTransactionIdOf, iso, maskAccountNumber, maskAccountNumberLike, maskName, maskReadAccountNumber, presentDeposit } from '../../core/present.ts';
import type { IntakeRecord, ProviderAnswer } from '../../adapters/slips/store.ts';
import type { JournalTrail, TrailEntry } from '../../adapters/sqlite/trail.ts';
import type { WithdrawalEvent } from '../../core/withdrawal/state.ts';
import { claimStatusAfter, type Claim, type ClaimEvent } from '../../core/claim/state.ts';

type Obj = Record<string, unknown>;
const n = (minor: bigint) => Number(minor);

/** The Thai slip mini-QR (EMVCo TLV: tag 00 holds 00 API id, 01 sending bank, 02 trans_ref; 51 country; 91 CRC), or null. */
export function decodeSlipQr(payload: string): { sendingBankCode: string; transRef: string } | null {
  const outer = tlv(payload);
  const inner = outer?.get('00');
  const fields = inner === undefined ? null : tlv(inner);
  const bank = fields?.get('01');
  const ref = fields?.get('02');
  return bank && ref ? { sendingBankCode: bank, transRef: ref } : null;
}

function tlv(text: string): Map<string, string> | null {
  const out = new Map<string, string>();
  let i = 0;
  while (i < text.length) {
    const tag = text.slice(i, i + 2);
    const length = Number(text.slice(i + 2, i + 4));
    if (!/^\d\d$/.test(tag) || !Number.isInteger(length) || i + 4 + length > text.length) return out.size > 0 ? out : null;
    out.set(tag, text.slice(i + 4, i + 4 + length));
    i += 4 + length;
  }
  return out;
}

const verdictNames: readonly [keyof Verification, string][] = [
  ['amountExact', 'amount'], ['withinTimeWindow', 'time_window'], ['senderBankMatch', 'sender_bank'],
  ['senderAccountMatch', 'sender_account'], ['senderNameMatch', 'sender_name'], ['receiverMatch', 'receiver'],
];

/** The six verdicts side by side: what was expected, what the slip showed (masked: the verifier's answer as kept), and whether they match. */
function verdicts(d: Deposit, v: Verification | undefined, shownMinor: bigint | undefined, answer: ProviderAnswer | undefined, legRef: string | undefined): Obj[] {
  const t = answer?.transfer;
  const shown: Record<string, unknown> = t ? {
    amount: Number(t.amount_minor), time_window: t.occurred_at, sender_bank: t.sender.bank_code,
    sender_account: t.sender.account_number_masked, sender_name: t.sender.name_masked,
    receiver: { bank_code: t.receiver.bank_code, account_number_masked: t.receiver.account_number_masked, name_masked: t.receiver.name_masked },
  } : {};
  // A multi-leg order's slip pays one leg: its amount is the leg's, as verification checked it.
  const leg = d.legs.length > 1 ? d.legs.find((l) => l.legRef === legRef) : undefined;
  // The window the check applied: 10 minutes before the order to 5 minutes after the paid leg's expiry.
  const window = transferTimeWindow(d, d.legs.find((l) => l.legRef === legRef));
  const expected: Record<string, unknown> = {
    amount: n(leg?.amountMinor ?? d.amountMinor), time_window: { from: iso(window.from), to: iso(window.to) }, sender_bank: d.sender.bankCode,
    // Masked in the shape the slip showed, so the reviewer compares the same places.
    sender_account: maskAccountNumberLike(t?.sender.account_number_masked, d.sender.accountNumber), sender_name: maskName(d.sender.accountNameTh),
    receiver: d.legs.map((l) => ({ leg_ref: l.legRef, bank_code: l.receiver.bankCode, account_number_masked: maskAccountNumberLike(t?.receiver.account_number_masked, l.receiver.accountNumber) })),
  };
  // The amount row compares the slip with what it was to pay, as the row shows them: the
  // order's own check says whether the order was paid in full, which a multi-leg order's
  // slip paying its leg exactly, or reviewers' finding of another amount, makes false.
  const slipMinor = t && /^[0-9]+$/.test(t.amount_minor) ? BigInt(t.amount_minor) : shownMinor;
  const amountMatch = slipMinor !== undefined ? slipMinor === (leg?.amountMinor ?? d.amountMinor) : undefined;
  return verdictNames.map(([key, name]) => ({
    dimension: name, expected: expected[name], match: name === 'amount' && amountMatch !== undefined ? amountMatch : v ? v[key] : null,
    ...(name in shown ? { shown: shown[name] } : name === 'amount' && shownMinor !== undefined ? { shown: n(shownMinor) } : {}),
  }));
}

/** What settled a deposit, read back from its journal: the fills and the approving reviewer's decision. */
function settledEventOf(own: readonly TrailEntry[]): Extract<DepositEvent, { type: 'DepositSettled' }> | undefined {
  for (const e of own) if ((e.event as DepositEvent).type === 'DepositSettled') return e.event as Extract<DepositEvent, { type: 'DepositSettled' }>;
  return undefined;
}

/** A leg as told to the payer (the timeline's matched step shows these). */
function toldLegView(l: Leg): Obj {
  return {
    leg_ref: l.legRef, sequence: l.sequence, amount_minor: n(l.amountMinor), leg_status: l.legStatus,
    receiver: { bank_code: l.receiver.bankCode, account_number_masked: maskAccountNumber(l.receiver.accountNumber), account_name_masked: maskName(l.receiver.accountName) },
    counterparty: l.counterparty.kind === 'withdrawal' ? { kind: 'withdrawal', withdrawal_id: l.counterparty.withdrawalId, merchant_id: l.counterparty.merchantId, payout_leg_ref: l.counterparty.payoutLegRef } : { kind: 'gateway' },
    ...(l.verifiedAmountMinor !== undefined ? { verified_amount_minor: n(l.verifiedAmountMinor) } : {}),
    ...(l.transRef ? { trans_ref: l.transRef } : {}),
  };
}

/**
 * A leg as an operator needs it: what it was verified to have received (its own slip, the
 * approving reviewer's finding, or for a single leg the slip's amount) and what its
 * withdrawal was filled with at settlement.
 */
function legView(d: Deposit, l: Leg, settled: Extract<DepositEvent, { type: 'DepositSettled' }> | undefined): Obj {
  const found = settled?.decision?.received?.find((r) => r.legRef === l.legRef)?.amountMinor;
  const single = d.legs.length === 1 ? d.settlement?.transferredMinor : undefined;
  const verified = l.verifiedAmountMinor ?? found ?? single;
  const transRef = l.transRef ?? (d.legs.length === 1 || d.slip?.legRef === l.legRef ? d.slip?.transRef : undefined);
  const filled = settled?.fills.find((f) => f.legRef === l.legRef)?.amountMinor;
  return {
    ...toldLegView(l),
    ...(verified !== undefined ? { verified_amount_minor: n(verified) } : {}),
    ...(transRef ? { trans_ref: transRef } : {}),
    ...(settled ? { filled_minor: n(filled ?? 0n) } : {}),
  };
}

/** What one deposit event says, for the timeline. */
/** Who took an operator's step that moves money, and their note (absent in journals from before they were kept). */
function decidedBy(decision: { readonly operatorId: string; readonly note: string } | undefined): Obj {
  return decision ? { operator: decision.operatorId, note: decision.note } : {};
}

function depositStep(e: DepositEvent, livemode: boolean): { step: string; detail: Obj } {
  switch (e.type) {
    case 'DepositCreated': return { step: 'created', detail: { amount_minor: n(e.deposit.amountMinor), merchant_reference: e.deposit.merchantReference } };
    case 'DepositAwaitingLiquidity': return { step: 'awaiting_liquidity', detail: {} };
    case 'DepositMatched': return { step: 'matched', detail: { source: e.source, legs: e.legs.map(toldLegView) } };
    case 'SlipReceived': case 'SlipQueued': case 'SlipDequeued': case 'AdditionalSlipReceived':
      return { step: 'slip', detail: { event: e.type, receipt_id: e.slip.receiptId, is_late: e.slip.isLate, has_image: e.slip.hasImage, ...(e.slip.transRef ? { trans_ref: e.slip.transRef } : {}) } };
    case 'SlipRejected': return { step: 'verdict', detail: { outcome: 'unreadable', attempts_left: e.attemptsLeft } };
    case 'LegCompleted': return { step: 'verdict', detail: { outcome: 'leg_complete', leg_ref: e.legRef, verified_amount_minor: n(e.verifiedAmountMinor), ...(e.transRef ? { trans_ref: e.transRef } : {}), verification: e.verification } };
    case 'LegsReleased': return { step: 'legs_released', detail: { leg_refs: e.legRefs } };
    case 'AdditionalTransferMatched': return { step: 'verdict', detail: { outcome: 'review_credit_evidenced', leg_ref: e.legRef, trans_ref: e.transRef, transferred_amount_minor: n(e.amountMinor), review_credited_minor: n(e.creditedMinor), receipt_id: e.receiptId } };
    case 'DepositUnderReview':
      return { step: 'verdict', detail: { outcome: 'under_review', reasons: e.reasons.map((r) => r.code), four_eyes_required: e.fourEyesRequired, ...(e.transferredAmountMinor !== undefined ? { transferred_amount_minor: n(e.transferredAmountMinor) } : {}), ...(e.verification ? { verification: e.verification } : {}) } };
    case 'ReviewEscalated': return { step: 'review_escalated', detail: {} };
    case 'ReviewExtended': return { step: 'review_extended', detail: {} };
    case 'ReviewApprovalRecorded': return { step: 'review_decision', detail: {
      decision: 'approve', operator: e.operatorId, note: e.note ?? null, settles: false,
      ...(e.received ? { received: e.received.map((r) => ({ leg_ref: r.legRef, amount_minor: n(r.amountMinor) })) } : {}), ...(e.restarted ? { restarted: true } : {}),
    } };
    case 'DepositSettled':
      return { step: e.decision ? 'review_decision' : 'settled', detail: { ...(e.decision ? { decision: 'approve', operator: e.decision.operatorId, note: e.decision.note, settles: true } : {}), settled_via: e.settlement.settledVia, amount_received_minor: n(e.settlement.receivedMinor), transferred_amount_minor: n(e.settlement.transferredMinor), fee_total_minor: n(e.settlement.feeTotalMinor), fills: e.fills.map((f) => ({ leg_ref: f.legRef, amount_minor: n(f.amountMinor) })) } };
    case 'DepositRejected': return { step: e.decision ? 'review_decision' : 'rejected', detail: { ...(e.decision ? { decision: 'decline', operator: e.decision.operatorId, note: e.decision.note } : {}), code: e.code } };
    case 'DepositExpired': return { step: 'expired', detail: {} };
    case 'DepositCanceled': return { step: 'canceled', detail: { by: e.by, reason_code: e.reasonCode } };
    case 'LateSlipWindowClosed': return { step: 'late_window_closed', detail: {} };
    case 'DepositCleared': return { step: 'cleared', detail: {} };
    case 'DepositReversed': return { step: 'reversed', detail: { reason_code: e.reasonCode, balance_transaction_id: balanceTransactionIdOf(e.balanceTransactionId, livemode), ...decidedBy(e.decision) } };
    case 'DepositOverpaid': return { step: 'overpaid', detail: { claim_id: e.overpayment.claimId, amount_minor: n(e.overpayment.amountMinor) } };
    default: {
      const _exhaustive: never = e;
      return _exhaustive;
    }
  }
}

function withdrawalStep(e: WithdrawalEvent, legRefs: ReadonlySet<string>, livemode: boolean): { step: string; detail: Obj } | null {
  switch (e.type) {
    case 'LegReserved': return legRefs.has(e.legRef) ? { step: 'counterparty_leg_reserved', detail: { leg_ref: e.legRef, amount_minor: n(e.amountMinor) } } : null;
    case 'LegReleased': return legRefs.has(e.legRef) ? { step: 'counterparty_leg_released', detail: { leg_ref: e.legRef } } : null;
    case 'FillLanded': return legRefs.has(e.fill.legRef) ? { step: 'fill', detail: { leg_ref: e.fill.legRef, amount_minor: n(e.fill.amountMinor), fee_recognized_minor: n(e.fill.feeRecognizedMinor), balance_transaction_id: balanceTransactionIdOf(e.fill.balanceTransactionId, livemode) } } : null;
    case 'FillReversed': return legRefs.has(e.legRef) ? { step: 'fill_reversed', detail: { leg_ref: e.legRef, reason_code: e.reasonCode, ...decidedBy(e.decision) } } : null;
    case 'WithdrawalSettled': return { step: 'counterparty_settled', detail: {} }; // by this deposit's fill (the caller skips others)
    default: return null;
  }
}

/** A claim about the deposit, each decision with who took it and why (the refund's money is on the claim's own page). */
function claimStep(e: ClaimEvent | { readonly type: 'ClaimOpened'; readonly claim: Claim }, claimId: string): { step: string; detail: Obj } {
  if (e.type === 'ClaimOpened') {
    const opener = e.claim.notes?.[0];
    return { step: 'claim', detail: { claim_id: claimId, status: 'open', kind: e.claim.kind, amount_minor: n(e.claim.amountMinor), operator: opener?.operatorId ?? null, note: e.claim.note ?? null } };
  }
  return { step: 'claim', detail: {
    claim_id: claimId, status: claimStatusAfter(e), operator: e.operatorId, note: e.note,
    ...(e.type === 'ClaimRefundApproved' ? { refund_minor: n(e.refundMinor) } : {}), ...(e.type === 'ClaimRefundPaidOut' ? { refund_withdrawal_id: e.withdrawalId } : {}),
    ...(e.type === 'ClaimClosed' ? { refunded_minor: n(e.refundedMinor) } : {}),
    ...(e.type === 'ClaimRefundRecalled' ? {
      recalled_withdrawal_id: e.recalledWithdrawalId, leg_ref: e.legRef, recalled_minor: n(e.recalledMinor), refund_withdrawal_id: e.replacementWithdrawalId ?? null,
      ...(e.refundedMinor !== undefined ? { refunded_minor: n(e.refundedMinor) } : {}),
    } : {}),
    ...(e.type === 'ClaimRefundOwed' ? { owed_by_payer_minor: n(e.owedMinor), reason_code: e.reasonCode } : {}),
    ...(e.type === 'ClaimWriteOffProposed' ? { write_off_proposal_id: e.proposalId, write_off_minor: n(e.amountMinor) } : {}),
    ...(e.type === 'ClaimWrittenOff' ? { write_off_proposal_id: e.proposalId, written_off_minor: n(e.amountMinor), proposed_by: e.proposedBy } : {}),
  } };
}

function stepOf(entry: TrailEntry, rest: Obj, stream = entry.stream, objectVersion?: number): Obj {
  return {
    seq: entry.seq, hash: entry.hash, at: iso(entry.recordedAt), stream, kind: entry.kind, version: entry.version,
    ...(objectVersion !== undefined ? { object_version: objectVersion } : {}), type: entry.type, ...rest,
  };
}

/**
 * An order's entries, each with the version its merchant's object had after it: the stream's
 * position less the entries before and at it marked silent (they changed nothing the merchant
 * sees; core/deposit/state.ts objectVersion), so support reads the version the merchant quotes.
 */
function withObjectVersions(entries: readonly TrailEntry[]): { entry: TrailEntry; objectVersion: number }[] {
  let silent = 0;
  return entries.map((entry) => {
    const event = entry.event as { readonly silent?: true };
    if (event.silent === true) silent++;
    return { entry, objectVersion: entry.version - silent };
  });
}

function balanceStep(entry: TrailEntry): Obj {
  const t = (entry.event as Extract<DomainEvent, { type: 'BalanceTransactionPosted' }>).transaction;
  const id = balanceTransactionIdOf(t.id, t.livemode); // its stream is t.id: named as its detail names it
  return stepOf(entry, { step: 'balance_transaction', detail: { id, merchant_id: t.merchantId, type: t.type, direction: t.direction, amount_minor: n(t.amountMinor), bucket_from: t.bucketFrom, bucket_to: t.bucketTo } }, id);
}

/** Every step of the deposit's life, in journal order (deliveries sit after the event they carry). */
export function depositTimeline(d: Deposit, trail: JournalTrail, own: readonly TrailEntry[] = trail.stream(d.id), claimIds: readonly string[] = []): Obj[] {
  const firstSeq = own[0]?.seq ?? 0;
  const steps: { seq: number; order: number; view: Obj }[] = withObjectVersions(own)
    .map(({ entry: e, objectVersion }) => ({ seq: e.seq, order: 0, view: stepOf(e, depositStep(e.event as DepositEvent, d.livemode), e.stream, objectVersion) }));
  for (const claimId of claimIds) {
    for (const e of trail.stream(claimId)) steps.push({ seq: e.seq, order: 2, view: stepOf(e, claimStep(e.event as Parameters<typeof claimStep>[0], claimId)) });
  }
  for (const e of trail.postedFor(d.id, firstSeq)) steps.push({ seq: e.seq, order: 1, view: balanceStep(e) });
  const payoutRefs = new Map<string, Set<string>>();
  for (const l of d.legs) {
    if (l.counterparty.kind !== 'withdrawal') continue;
    const refs = payoutRefs.get(l.counterparty.withdrawalId) ?? new Set<string>();
    payoutRefs.set(l.counterparty.withdrawalId, refs.add(l.counterparty.payoutLegRef));
  }
  for (const [withdrawalId, refs] of payoutRefs) {
    // Only this deposit's part of the counterparty's life: its legs, their fills and
    // reversals and the balance transactions those posted (the withdrawal's other fills,
    // its reserve and refunds belong to other timelines).
    const ours = new Set<string>();
    let lastFillOurs = false;
    for (const { entry: e, objectVersion } of withObjectVersions(trail.stream(withdrawalId))) {
      if (e.seq < firstSeq) continue;
      const event = e.event as WithdrawalEvent;
      if (event.type === 'FillLanded') {
        lastFillOurs = refs.has(event.fill.legRef);
        if (lastFillOurs) for (const id of [event.fill.balanceTransactionId, event.fill.feeBalanceTransactionId]) if (id) ours.add(id);
      }
      if (event.type === 'FillReversed' && refs.has(event.legRef)) for (const id of [event.balanceTransactionId, event.feeBalanceTransactionId]) ours.add(id);
      if (event.type === 'WithdrawalSettled' && !lastFillOurs) continue;
      const step = withdrawalStep(event, refs, d.livemode);
      if (step) steps.push({ seq: e.seq, order: 2, view: stepOf(e, step, e.stream, objectVersion) });
    }
    for (const e of trail.postedFor(withdrawalId, firstSeq)) {
      if (ours.has((e.event as Extract<DomainEvent, { type: 'BalanceTransactionPosted' }>).transaction.id)) steps.push({ seq: e.seq, order: 1, view: balanceStep(e) });
    }
  }
  const events = trail.events(d.id);
  const deliveries = trail.deliveries(events.map((e) => e.id));
  for (const e of events) {
    steps.push({ seq: e.journalSeq, order: 3, view: { seq: e.journalSeq, step: 'event', at: iso(e.createdAt), detail: { event_id: e.id, type: e.type, sequence: e.sequence } } });
    for (const w of deliveries.filter((x) => x.eventId === e.id)) {
      steps.push({ seq: e.journalSeq, order: 4, view: {
        seq: e.journalSeq, step: 'webhook_delivery', at: iso(w.createdAt),
        detail: { delivery_id: w.id, event_id: e.id, endpoint_id: w.endpointId, status: w.status, attempt: w.attempt, response_status: w.responseStatus, error: w.error, last_attempt_at: w.lastAttemptAt === null ? null : iso(w.lastAttemptAt) },
      } });
    }
  }
  steps.sort((a, b) => a.seq - b.seq || a.order - b.order);
  return steps.map((s) => s.view);
}

/** The slip evidence a reviewer sees: never the raw mini-QR string (DESIGN, Logging), its decoded fields instead. */
function slipEvidence(record: IntakeRecord | undefined, depositId: string, receiptId: string): Obj {
  if (!record) return { receipt_id: receiptId, stored: false };
  const e = record.evidence;
  if (e.kind === 'no_image') return { receipt_id: receiptId, kind: 'no_image', trans_ref: e.transRef, sending_bank_code: e.sendingBankCode, occurred_at: iso(e.occurredAt) };
  const qr = e.payload ? decodeSlipQr(e.payload) : null;
  return {
    receipt_id: receiptId, kind: 'image', media_type: e.mediaType, image_sha256: e.imageSha256, image_bytes: e.imageBytes,
    image_url: `/v1/bo/deposits/${depositId}/slips/${receiptId}/image`, qr_present: e.payload !== undefined,
    qr_decoded: qr ? { trans_ref: qr.transRef, sending_bank_code: qr.sendingBankCode } : null,
  };
}

/**
 * Every slip the order was shown, in the order they came: the state keeps only the current
 * one, the queue and the last after settlement, so a multi-leg order's earlier legs' slips
 * (and earlier transfers after settlement) come from its journal. A slip's leg and transfer
 * are the ones verification found (LegCompleted names them for the slip being verified);
 * the state's copies, where it still holds them, know the most.
 */
export function depositSlips(d: Deposit, own: readonly TrailEntry[]): Slip[] {
  const byReceipt = new Map<string, Slip>();
  let verifying: string | undefined;
  const completed = new Map<string, bigint>(); // leg → what its slip showed
  for (const entry of own) {
    const e = entry.event as DepositEvent;
    if (e.type === 'SlipReceived' || e.type === 'SlipQueued' || e.type === 'AdditionalSlipReceived') {
      if (!byReceipt.has(e.slip.receiptId)) byReceipt.set(e.slip.receiptId, e.slip);
      if (e.type === 'SlipReceived') verifying = e.slip.receiptId;
    } else if (e.type === 'SlipDequeued' && !e.afterSettlement) verifying = e.slip.receiptId;
    else if (e.type === 'LegCompleted' && verifying !== undefined) {
      const slip = byReceipt.get(verifying)!;
      byReceipt.set(verifying, { ...slip, legRef: e.legRef, transRef: e.transRef ?? slip.transRef, transferredAmountMinor: e.verifiedAmountMinor });
      completed.set(e.legRef, e.verifiedAmountMinor);
    } else if (e.type === 'DepositSettled' && verifying !== undefined && e.transRef !== undefined) {
      // Settled by the slip being verified: it paid the one leg no earlier slip completed, V less theirs.
      const open = d.legs.filter((l) => !completed.has(l.legRef));
      const slip = byReceipt.get(verifying)!;
      let earlier = 0n;
      for (const v of completed.values()) earlier += v;
      if (open.length === 1) byReceipt.set(verifying, { ...slip, legRef: open[0]!.legRef, transRef: e.transRef, transferredAmountMinor: e.settlement.transferredMinor - earlier });
    } else if (e.type === 'AdditionalTransferMatched') {
      // A transfer after settlement to a leg a review credited: the whole transfer, then any excess as an overpayment.
      const slip = byReceipt.get(e.receiptId);
      if (slip) byReceipt.set(e.receiptId, { ...slip, legRef: e.legRef, transRef: e.transRef, transferredAmountMinor: e.amountMinor });
    } else if (e.type === 'DepositOverpaid' && e.overpayment.cause === 'additional_transfer' && e.overpayment.receiptId !== undefined) {
      // The order paid again: the overpayment is that transfer (what a match above did not credit of it).
      const slip = byReceipt.get(e.overpayment.receiptId);
      if (slip) byReceipt.set(e.overpayment.receiptId, { ...slip, transRef: slip.transRef ?? e.overpayment.transRef, transferredAmountMinor: slip.transferredAmountMinor ?? e.overpayment.amountMinor });
    }
  }
  for (const slip of [d.slip, ...(d.queuedSlips ?? []), d.additionalSlip]) {
    if (!slip) continue;
    const known = byReceipt.get(slip.receiptId);
    byReceipt.set(slip.receiptId, { ...slip, legRef: slip.legRef ?? known?.legRef, transRef: slip.transRef ?? known?.transRef, transferredAmountMinor: slip.transferredAmountMinor ?? known?.transferredAmountMinor });
  }
  return [...byReceipt.values()].sort((a, b) => a.receivedAt - b.receivedAt);
}

export interface DepositFacts {
  readonly world: World;
  readonly trail: JournalTrail;
  /** The deposit's own journal entries (trail.stream), read once by the caller. */
  readonly own: readonly TrailEntry[];
  /** Its slips (depositSlips) and their stored evidence, by receipt. */
  readonly slips: ReadonlyMap<string, IntakeRecord | undefined>;
  /** What the verifier answered for the order's slip, as the slip store keeps it (masked). */
  readonly answer?: ProviderAnswer;
  readonly now: number;
}

/**
 * One mask per account in a view: where the slip showed the sender's or a receiver's
 * number masked in its own shape, every `account_number_masked` of that account in the
 * view is written in that shape (maskAccountNumberLike) instead of ours (the last four
 * digits), so a reviewer reads one account one way throughout. Both shapes show digits in
 * the last four places only (maskReadAccountNumber), so neither shows what the other hides.
 * Accounts are told apart by our mask; two that share it are left as they are.
 */
function maskedAsTheSlipShows(view: Obj, d: Deposit, answer: ProviderAnswer | undefined): Obj {
  const t = answer?.transfer;
  if (!t) return view;
  const accounts: [string, string | undefined][] = [[d.sender.accountNumber, t.sender.account_number_masked], ...d.legs.map((l) => [l.receiver.accountNumber, t.receiver.account_number_masked] as [string, string | undefined])];
  const shaped = new Map<string, string | null>();
  for (const [number, shown] of accounts) {
    const ours = maskAccountNumber(number);
    const theirs = maskAccountNumberLike(shown, number);
    const earlier = shaped.get(ours);
    shaped.set(ours, earlier === undefined || earlier === theirs ? theirs : null);
  }
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== 'object') return value;
    const out: Obj = {};
    for (const [k, v] of Object.entries(value)) out[k] = k === 'account_number_masked' && typeof v === 'string' && shaped.get(v) ? shaped.get(v) : walk(v);
    return out;
  };
  return walk(view) as Obj;
}

/** The events that end a review: the order settles, is declined, expires or is canceled. */
const reviewEndings: ReadonlySet<DepositEvent['type']> = new Set(['DepositSettled', 'DepositRejected', 'DepositExpired', 'DepositCanceled']);

/** When the order's last review ended (the first ending after it opened); undefined while it is open. */
function reviewEndedAt(d: Deposit, own: readonly TrailEntry[]): number | undefined {
  if (!d.review || d.status === 'under_review') return undefined;
  let ended: number | undefined;
  let open = false;
  for (const { event } of own) {
    const e = event as DepositEvent;
    if (e.type === 'DepositUnderReview') { open = true; ended = undefined; }
    else if (open && ended === undefined && reviewEndings.has(e.type)) ended = e.at;
  }
  // A journal whose ending this view does not name: the order's last change is the latest the review can have ended.
  return ended ?? d.updatedAt;
}

/** The whole operator view of one deposit. */
export function operatorDepositView(d: Deposit, facts: DepositFacts): Obj {
  const answer = facts.answer && maskedAsKeptNow(facts.answer);
  const seen = answer ? { ...facts, answer } : facts;
  return maskedAsTheSlipShows(depositView(d, seen), d, answer);
}

/**
 * The verifier's answer with its accounts masked as the slip store keeps them now
 * (maskReadAccountNumber: digits only in the last four places): an answer kept before
 * that rule showed a Thai slip's four digits before its last, and beside our mask of the
 * same account the two showed five.
 */
function maskedAsKeptNow(answer: ProviderAnswer): ProviderAnswer {
  const t = answer.transfer;
  if (!t) return answer;
  const party = <P extends { readonly account_number_masked: string }>(p: P): P => ({ ...p, account_number_masked: maskReadAccountNumber(p.account_number_masked) });
  return { ...answer, transfer: { ...t, sender: party(t.sender), receiver: party(t.receiver) } };
}

function depositView(d: Deposit, facts: DepositFacts): Obj {
  const { world } = facts;
  const { own } = facts;
  const receipts = depositSlips(d, own);
  const current = receipts.find((r) => r.receiptId === d.slip?.receiptId); // the slip the verdicts are about
  const transRefs = [...new Set([...receipts.map((s) => s.transRef), ...d.legs.map((l) => l.transRef)].filter((t): t is string => t !== undefined))];
  const merchant = world.merchants.get(d.merchantId);
  const settled = settledEventOf(own);
  // The reviewer whose approval settled it counts among the approvals (it is kept on the settling event).
  const settledBy = settled?.decision?.operatorId;
  // Claims about this order (overpayments, late slips, opened by hand): few, so a scan of the open work is cheap.
  const claimsOf = [...world.claims.values()].filter((c) => c.depositId === d.id);
  const decidedAt = reviewEndedAt(d, own);
  // As the merchant's object says it: suspense may fund an approval before any is recorded.
  const fourEyes = reviewNeedsTwo(d, world.withdrawalOf);
  return {
    deposit: presentDeposit(d, { fourEyes }),
    merchant: { id: d.merchantId, name: merchant?.name ?? null, white_label_id: d.whiteLabelId },
    review: d.review ? {
      // A decided review's age stops at its decision: it waited that long, and no longer waits.
      status: d.status, opened_at: iso(d.review.openedAt), decided_at: decidedAt === undefined ? null : iso(decidedAt),
      age_seconds: Math.max(0, Math.floor(((decidedAt ?? facts.now) - d.review.openedAt) / 1000)),
      escalated: d.review.escalated, four_eyes_required: fourEyes, approvals: [...d.review.approvals, ...(settledBy !== undefined ? [settledBy] : [])],
      approvals_needed: fourEyes ? 2 : 1, reasons: d.review.reasons.map((r) => ({ code: r.code, ...(r.detail ? { detail: r.detail } : {}) })),
      // What the approval so far says each leg received: a second reviewer confirms it (or gives other figures).
      approved_amounts: d.review.approvedAmounts ? d.review.approvedAmounts.map((r) => ({ leg_ref: r.legRef, amount_minor: n(r.amountMinor) })) : null,
    } : null,
    evidence: {
      verdicts: verdicts(d, d.verification, current?.transferredAmountMinor ?? d.settlement?.transferredMinor, facts.answer, current?.legRef),
      provider_answer: facts.answer ?? null,
      receiver_match: d.verification ? d.verification.receiverMatch : null,
      legs: d.legs.map((l) => legView(d, l, settled)),
      slips: receipts.map((s) => ({ received_at: iso(s.receivedAt), is_late: s.isLate, ...(s.transRef ? { trans_ref: s.transRef } : {}), ...(s.legRef ? { leg_ref: s.legRef } : {}), ...(s.transferredAmountMinor !== undefined ? { transferred_amount_minor: n(s.transferredAmountMinor) } : {}), ...slipEvidence(facts.slips.get(s.receiptId), d.id, s.receiptId) })),
      duplicate_hits: transRefs.map((t) => ({ trans_ref: t, used_by_deposit_id: world.transRefOwner(d.livemode, t) ?? null })).filter((h) => h.used_by_deposit_id !== null && h.used_by_deposit_id !== d.id),
      route_confirmation: d.routeConfirmation ? { trans_ref: d.routeConfirmation.transRef, amount_minor: n(d.routeConfirmation.amountMinor), confirmed_at: iso(d.routeConfirmation.confirmedAt), confirmed_by: d.routeConfirmation.confirmedBy ?? null } : null,
    },
    claims: claimsOf.map((c) => ({ id: c.id, kind: c.kind, status: c.status, amount_minor: n(c.amountMinor), refund_withdrawal_id: c.refundWithdrawalId ?? null })),
    timeline: depositTimeline(d, facts.trail, own, claimsOf.map((c) => c.id)),
  };
}
