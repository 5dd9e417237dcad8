// The slip verification worker: takes each received slip, asks the SlipVerifier what the
// bank knows of it, and hands the verdict to the core as a RecordSlipVerification command
// (which settles, short-pays, flags an overpayment, opens review or rejects an unreadable
// image). The journal is the queue: a slip is pending while its deposit is in
// slip_processing with that receipt (or, for a slip after settlement, until the store
// marks it verified), so a restart loses nothing — start() rescans the world, and the
// intake's notify() is only a shortcut to new work. A slip that came while another of its
// order was verifying waits in the order's own queue (Deposit.queuedSlips); the core hands
// it over when the one before it is recorded, and the worker then takes the order again.
//
// Invariants kept: one slip is verified at a time, in a bounded pass; a failure on our side
// (the store cannot be read, the journal cannot be written) or a provider that did not
// answer its attempts leaves the slip pending and is tried again, at most
// workerAttemptsPerSlipMax times before the slip goes to review as provider_unavailable (a
// person looks, money never moves on a guess); a slip without an
// image is never sent to the provider — the core holds it for review (NO_SLIP_IMAGE).

import type { CommandPort } from '../../core/handler/handle.ts';
import type { VerificationOutcome } from '../../core/deposit/decide.ts';
import type { Deposit, Slip } from '../../core/deposit/state.ts';
import { outcomeOf } from '../../core/deposit/slip-verifier.ts';
import type { SlipVerifier } from '../../core/ports.ts';
import { slipAdapterLimits } from '../../core/limits.ts';
import { sandboxTransRef, sandboxVerification } from '../../core/sandbox/scenarios.ts';
import type { ProviderAnswer, SlipStore } from './store.ts';
import { iso, maskName, maskReadAccountNumber } from '../../core/present.ts';

export interface SlipWorkerOptions {
  /** Where verdicts go: the one command port (the store's submit). */
  readonly host: CommandPort;
  readonly store: SlipStore;
  /** Live slips' verifier: the provider at SATANG_SLIP_PROVIDER_URL, or the in-process bank simulator. */
  readonly verifier: SlipVerifier;
  /**
   * Sandbox slips' verifier: the in-process bank simulator where it runs; absent where a
   * real provider verifies live slips — a sandbox slip is then the scenario engine's alone,
   * never sent to the provider (sandbox never uses live systems).
   */
  readonly sandboxVerifier?: SlipVerifier;
  /** 'background' verifies slips as they arrive; 'manual' only when drain() is called (tests). */
  readonly mode: 'background' | 'manual';
  readonly onError?: (error: unknown, depositId: string) => void;
  /** Told each verdict once it is recorded: the deposit, the receipt, what the bank said and the order's status after it (the log). */
  readonly onVerified?: (v: { depositId: string; receiptId: string; verdict: string; status: string | undefined; afterSettlement: boolean }) => void;
}

interface PassResult { readonly verified: number; readonly failed: number }
interface PendingSlip { readonly slip: Slip; readonly afterSettlement: boolean }

export class SlipWorker {
  private readonly queue = new Set<string>();
  private readonly failures = new Map<string, number>();
  private rescanNeeded = true;
  private chain: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly options: SlipWorkerOptions) {}

  /** Verifies what is pending at start (slips received before a restart). */
  start(): void {
    this.schedule(0);
  }

  /** A slip was received for this deposit. */
  notify(depositId: string): void {
    if (this.queue.size >= slipAdapterLimits.workerQueuedDepositsMax) this.rescanNeeded = true;
    else this.queue.add(depositId);
    this.schedule(0);
  }

  /** Verifies every pending slip now; resolves with how many were recorded. */
  async drain(): Promise<number> {
    let recorded = 0;
    for (;;) {
      const pass = await this.runPass();
      recorded += pass.verified;
      if (pass.verified === 0 || (this.queue.size === 0 && !this.rescanNeeded)) return recorded;
    }
  }

  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.chain;
  }

  private schedule(delayMs: number): void {
    if (this.options.mode !== 'background' || this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.runPass().then((pass) => {
        if (this.queue.size > 0 || this.rescanNeeded) this.schedule(pass.verified > 0 ? 0 : slipAdapterLimits.workerRetryDelayMs);
      }, () => this.schedule(slipAdapterLimits.workerRetryDelayMs));
    }, delayMs);
    this.timer.unref();
  }

  /** Passes never overlap: each waits for the one before. */
  private runPass(): Promise<PassResult> {
    const pass = this.chain.then(() => this.pass());
    this.chain = pass.catch(() => undefined);
    return pass;
  }

  private async pass(): Promise<PassResult> {
    if (this.rescanNeeded) this.rescan();
    const batch = [...this.queue].slice(0, slipAdapterLimits.workerSlipsPerPassMax);
    let verified = 0, failed = 0;
    for (const depositId of batch) {
      if (this.stopped) break;
      this.queue.delete(depositId);
      try {
        if (await this.verifyOne(depositId)) verified++;
      } catch (error) {
        failed++;
        this.queue.add(depositId);
        this.options.onError?.(error, depositId);
      }
    }
    return { verified, failed };
  }

  private rescan(): void {
    this.rescanNeeded = false;
    for (const d of this.options.host.world.deposits.values()) {
      if (!pendingSlip(d)) continue;
      if (this.queue.size >= slipAdapterLimits.workerQueuedDepositsMax) { this.rescanNeeded = true; return; }
      this.queue.add(d.id);
    }
  }

  /** True when a verification was recorded; false when nothing was pending. */
  private async verifyOne(depositId: string): Promise<boolean> {
    const deposit = this.options.host.world.deposits.get(depositId);
    const pending = deposit && pendingSlip(deposit);
    if (!pending) return false;
    const { receiptId } = pending.slip;
    if (pending.afterSettlement && await this.options.store.isVerified(receiptId)) return false;
    const outcome = await this.outcomeFor(deposit, pending.slip);
    await this.options.store.putAnswer(receiptId, answerOf(outcome)).catch(() => {}); // for the back office; the verdict does not wait on it
    const { outcome: result, durable } = this.options.host.submit(
      { type: 'RecordSlipVerification', actor: { kind: 'system' }, depositId, receiptId, outcome });
    await durable;
    this.failures.delete(receiptId);
    if (pending.afterSettlement) await this.options.store.markVerified(receiptId);
    if (!result.ok) this.options.onError?.(new Error(`verification of ${receiptId} refused: ${result.rejection.code}`), depositId);
    // The order's next queued slip, if the core handed one over, is verified next, in order.
    const after = this.options.host.world.deposits.get(depositId);
    this.options.onVerified?.({ depositId, receiptId, verdict: outcome.kind, status: after?.status, afterSettlement: pending.afterSettlement });
    const next = after && pendingSlip(after);
    if (next && next.slip.receiptId !== receiptId) this.notify(depositId);
    return true;
  }

  private async outcomeFor(deposit: Deposit, slip: Slip): Promise<VerificationOutcome> {
    if (!slip.hasImage) return { kind: 'no_image' };
    try {
      const record = await this.options.store.record(slip.receiptId);
      if (!record || record.evidence.kind !== 'image') throw new Error(`no image evidence stored for ${slip.receiptId}`);
      const { imageSha256, payload } = record.evidence;
      const verifier = deposit.livemode ? this.options.verifier : this.options.sandboxVerifier;
      if (!verifier) return sandboxVerification(deposit, slip, sandboxTransRef(slip.receiptId));
      const verdict = await verifier.verify(payload === undefined ? { imageSha256 } : { imageSha256, payload });
      // Sandbox: a slip the bank simulator does not know is the exact transfer from the
      // order's sender that the sandbox bank (the scenario engine) says it is.
      if (!deposit.livemode && verdict.kind !== 'found') return sandboxVerification(deposit, slip, sandboxTransRef(slip.receiptId));
      // A provider down for a moment (a restart, a network blip) is waited out, a round
      // every workerRetryDelayMs, before the slip goes to a person as PROVIDER_UNAVAILABLE:
      // a reviewer would have to settle it on typed figures, without the bank's word.
      if (verdict.kind === 'provider_unavailable') throw new Error(`the slip provider did not answer for receipt ${slip.receiptId}`);
      return outcomeOf(verdict);
    } catch (error) {
      const failures = (this.failures.get(slip.receiptId) ?? 0) + 1;
      if (failures < slipAdapterLimits.workerAttemptsPerSlipMax) {
        this.failures.set(slip.receiptId, failures);
        throw error;
      }
      this.failures.delete(slip.receiptId);
      return { kind: 'provider_unavailable' };
    }
  }
}

/** The slip of this deposit that waits for verification, if any. */
export function pendingSlip(d: Deposit): PendingSlip | undefined {
  if (d.status === 'slip_processing' && d.slip) return { slip: d.slip, afterSettlement: false };
  const extra = d.additionalSlip;
  if (d.status === 'settled' && extra) {
    // An additional transfer already recorded for this slip needs nothing more.
    // By its receipt: two slips may arrive in the same millisecond (the manual clock, a burst).
    const recorded = d.overpayment?.cause === 'additional_transfer'
      && (d.overpayment.receiptId !== undefined ? d.overpayment.receiptId === extra.receiptId : d.overpayment.slipReceivedAt === extra.receivedAt);
    if (!recorded) return { slip: extra, afterSettlement: true };
  }
  return undefined;
}

/** The verifier's answer as the slip store keeps it: accounts and names masked (DESIGN, Logging). */
function answerOf(outcome: VerificationOutcome): ProviderAnswer {
  if (outcome.kind !== 'found') return { kind: outcome.kind };
  const t = outcome.transfer;
  const party = (p: { bankCode: string; accountNumber: string; name: string }) => ({ bank_code: p.bankCode, account_number_masked: maskReadAccountNumber(p.accountNumber), name_masked: maskName(p.name) });
  return { kind: 'found', transfer: { trans_ref: t.transRef, amount_minor: String(t.amountMinor), occurred_at: iso(t.occurredAt), sender: party(t.sender), receiver: party(t.receiver) } };
}
