// Durable slip intake (contract: "202 ... means the evidence is durably stored (object
// write plus queue confirmation)"; "never a false 202"). One upload, in this order:
//   1. idempotency by evidence fingerprint: a stored answer under (slip:<deposit>, key)
//      is replayed when the fingerprint matches and refused (409 idempotency_key_reused)
//      when it does not; a receipt allocated to an attempt that did not commit (503) is
//      reused by a retry with the same key and evidence;
//   2. the core is asked first (the ReceiveSlip command decided, not applied), so a slip
//      the order cannot take is refused before anything is written (410, 422, 404);
//   3. the evidence is written to the slip store and fsynced;
//   4. ReceiveSlip is executed with the idempotency record (scope slip:<deposit>,
//      request hash = fingerprint) in the same commit, and awaited until durable.
// Only then 202 {receipt_id, livemode, status 'accepted', received_at}. If the store or the journal
// fails: 503 slip_intake_unavailable with Retry-After and no journal entry (the command
// commits whole or not at all); the same key and evidence then gets the same receipt.
// That allocation is kept in memory (bounded, 24 h): after a process restart a retry gets
// a fresh receipt id, which is safe — no 202 ever named the first one.

import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { Command } from '../../core/handler/commands.ts';
import { handle } from '../../core/handler/handle.ts';
import type { Rejection } from '../../core/errors.ts';
import type { IdempotencyRecord } from '../../core/ports.ts';
import { limits, slipUploadLimits } from '../../core/limits.ts';
import type { IntakeRecord, SlipStore, StoredEvidence } from '../../adapters/slips/store.ts';
import { ApiError } from '../errors.ts';
import { replay } from '../idempotency.ts';
import type { Services } from '../ports.ts';
import { iso } from '../../core/present.ts';
import type { Admitted } from './admission.ts';
import { fingerprintOf, type Evidence } from './evidence.ts';

type ReceiveSlip = Extract<Command, { type: 'ReceiveSlip' }>;

interface PendingIntake {
  readonly receiptId: string;
  readonly fingerprint: string;
  readonly requestId: string;
  readonly expiresAt: number;
}

export interface IntakeParts {
  readonly services: Services;
  readonly store: SlipStore;
  readonly logger: Logger;
  /** Where a slip after the late window can be claimed (details.claim_url of a 410). */
  readonly claimUrl: (depositId: string) => string;
  /** Told after a receipt is durable (the verification worker's shortcut). */
  readonly onReceived: (depositId: string) => void;
}

export class SlipIntake {
  /** Receipts of attempts that have not committed, by (scope, key); bounded, oldest dropped first. */
  private readonly pending = new Map<string, PendingIntake>();
  private readonly inFlight = new Set<string>();

  constructor(private readonly parts: IntakeParts) {}

  async accept(ctx: Context, admitted: Admitted, key: string, evidence: Evidence): Promise<void> {
    const { services } = this.parts;
    const { deposit, claims } = admitted;
    const scope = `slip:${deposit.id}`;
    const slot = `${scope}\u0000${key}`;
    const fingerprint = fingerprintOf(evidence);
    const now = services.write.clock.now();
    if (evidence.kind === 'no_image' && evidence.occurredAt > now + slipUploadLimits.claimedTransferAheadMaxMs) {
      throw new ApiError('validation_error', 'occurred_at is in the future: give the time the transfer was made.', { fields: [{ path: 'occurred_at', reason: 'in_the_future', hint: `at most ${slipUploadLimits.claimedTransferAheadMaxMs / 60_000} minutes after now` }] });
    }
    if (this.inFlight.has(slot)) throw new ApiError('idempotency_in_flight', undefined, undefined, 1);
    const prior = services.idempotency.get(scope, key, now);
    if (prior) return replay(ctx, prior, fingerprint);
    const earlier = this.pendingOf(slot, now);
    if (earlier && earlier.fingerprint !== fingerprint) {
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with different evidence.', { original_request_id: earlier.requestId });
    }
    this.inFlight.add(slot);
    try {
      const receiptId = earlier?.receiptId ?? services.write.ids.next('rcpt', claims.tenant);
      const command: ReceiveSlip = {
        type: 'ReceiveSlip', actor: { kind: 'merchant', merchantId: claims.tenant, livemode: claims.livemode },
        depositId: deposit.id, receiptId, hasImage: evidence.kind === 'image', ...(evidence.kind === 'no_image' ? { transRef: evidence.transRef } : {}),
      };
      // Every claim is rechecked by the core against the order as it is now, before any write.
      const asked = handle(services.write.world, command, now, services.write.ids).outcome;
      if (!asked.ok) throw this.refusal(asked.rejection, deposit.id);
      if (admitted.expired) throw new ApiError('signature_invalid', 'The slip_upload token has expired; ask for a new one (POST /v1/pay/deposits/{id}/slip-token).');
      const requestId = ctx.state.requestId as string;
      this.remember(slot, { receiptId, fingerprint, requestId: earlier?.requestId ?? requestId, expiresAt: now + slipUploadLimits.pendingIntakeLifetimeMs });
      await this.store(receiptId, deposit.id, deposit.livemode, fingerprint, evidence);
      const answer = await this.commit(command, { slot, scope, key, requestHash: fingerprint, requestId, now });
      this.pending.delete(slot);
      ctx.status = 202;
      ctx.type = 'application/json';
      ctx.body = answer;
      this.parts.onReceived(deposit.id);
    } finally {
      this.inFlight.delete(slot);
    }
  }

  /** Executes ReceiveSlip with its idempotency record; resolves with the receipt's JSON once both are durable. */
  private async commit(command: ReceiveSlip, key: { slot: string; scope: string; key: string; requestHash: string; requestId: string; now: number }): Promise<string> {
    let answer = '';
    const { outcome, durable } = this.parts.services.write.submit(command, { requestId: key.requestId, idempotencyKey: key.key }, (o) => {
      if (!o.ok) return undefined;
      answer = JSON.stringify(this.receipt(command.depositId, command.receiptId));
      const record: IdempotencyRecord = {
        scope: key.scope, key: key.key, requestHash: key.requestHash, requestId: key.requestId, status: 202, body: answer,
        createdAt: key.now, expiresAt: key.now + limits.idempotencyKeyLifetimeMs,
      };
      return record;
    });
    if (!outcome.ok) {
      // The order changed since it was asked; nothing was committed, so nothing may stay stored.
      this.pending.delete(key.slot);
      await this.parts.store.remove(command.receiptId).catch(() => undefined);
      throw this.refusal(outcome.rejection, command.depositId);
    }
    try {
      await durable;
    } catch (error) {
      this.parts.logger.error({ err: String(error), deposit_id: command.depositId, receipt_id: command.receiptId }, 'slip receipt not committed');
      throw unavailable();
    }
    return answer;
  }

  private async store(receiptId: string, depositId: string, livemode: boolean, fingerprint: string, evidence: Evidence): Promise<void> {
    const stored: StoredEvidence = evidence.kind === 'image'
      ? { kind: 'image', mediaType: evidence.mediaType, imageSha256: evidence.imageSha256, imageBytes: evidence.bytes.length, ...(evidence.payload !== undefined ? { payload: evidence.payload } : {}) }
      : { kind: 'no_image', transRef: evidence.transRef, sendingBankCode: evidence.sendingBankCode, occurredAt: evidence.occurredAt };
    const record: IntakeRecord = { receiptId, depositId, livemode, fingerprint, evidence: stored };
    try {
      await this.parts.store.put(record, evidence.kind === 'image' ? evidence.bytes : undefined);
    } catch (error) {
      this.parts.logger.error({ err: String(error), deposit_id: depositId, receipt_id: receiptId }, 'slip evidence not stored');
      throw unavailable();
    }
  }

  /** The slip receipt, read from the world the command just changed. */
  /** Carries the order's livemode, as every object the API returns does. */
  private receipt(depositId: string, receiptId: string): { receipt_id: string; livemode: boolean; status: 'accepted'; received_at: string } {
    const d = this.parts.services.write.world.deposits.get(depositId)!;
    const slip = [d.slip, d.additionalSlip, ...(d.queuedSlips ?? [])].find((s) => s?.receiptId === receiptId)!;
    return { receipt_id: receiptId, livemode: d.livemode, status: 'accepted', received_at: iso(slip.receivedAt) };
  }

  /**
   * The core's refusal as the API answers it. Where no slip can come any more — the late
   * window closed (410), the order's uploads used up (422 upload_limit_reached), an order
   * that takes none (422 not_accepting_slips: final, or with no destination) — it
   * names where a payer who did pay goes instead: the order's claim_url.
   */
  private refusal(rejection: Rejection, depositId: string): ApiError {
    const error = ApiError.from(rejection);
    const noMoreSlips = (rejection.details?.fields as { reason?: string }[] | undefined)?.some((f) => f.reason === 'upload_limit_reached' || f.reason === 'not_accepting_slips') === true;
    if (rejection.code !== 'late_slip_window_closed' && !noMoreSlips) return error;
    return new ApiError(error.code, error.message, { ...error.details, claim_url: this.parts.claimUrl(depositId) });
  }

  private pendingOf(slot: string, now: number): PendingIntake | undefined {
    const p = this.pending.get(slot);
    if (p && p.expiresAt <= now) { this.pending.delete(slot); return undefined; }
    return p;
  }

  private remember(slot: string, p: PendingIntake): void {
    this.pending.delete(slot);
    this.pending.set(slot, p);
    while (this.pending.size > slipUploadLimits.pendingIntakesMax) this.pending.delete(this.pending.keys().next().value!);
  }
}

function unavailable(): ApiError {
  return new ApiError('slip_intake_unavailable', undefined, undefined, 1);
}
