// The SlipVerifier port: what the slip verification worker asks of a bank or a
// slip-verification provider about one uploaded slip, and how the provider's verdict
// becomes the core's VerificationOutcome. Adapters (the HTTP provider client, the bank
// simulator) implement it outside core. Invariant kept: only a 'found' verdict carries a
// transfer, so nothing but a bank's own record of the transfer can settle money; a
// provider that cannot answer is 'provider_unavailable' (review), never a guess.

import type { VerificationOutcome } from './decide.ts';
import type { SlipTransfer } from './verification.ts';

/** The evidence of an image slip: the SHA-256 of its decoded bytes and the mini-QR payload read from it, if any. */
export interface SlipEvidence {
  /** Lowercase hex SHA-256 of the decoded image bytes. */
  readonly imageSha256: string;
  /** The string decoded from the slip's mini-QR by the uploader (raises accuracy). */
  readonly payload?: string;
}

export type SlipVerdict =
  | { readonly kind: 'found'; readonly transfer: SlipTransfer }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'unreadable' }
  | { readonly kind: 'provider_unavailable' };

export interface SlipVerifier {
  /** Never rejects: a provider that fails or times out answers provider_unavailable. */
  verify(evidence: SlipEvidence): Promise<SlipVerdict>;
}

/**
 * The verdict as the deposit decider takes it. Facts the journal knows better (a
 * duplicate trans_ref, a disabled bank) are added by the command handler.
 */
export function outcomeOf(verdict: SlipVerdict): VerificationOutcome {
  switch (verdict.kind) {
    case 'found': return { kind: 'found', transfer: verdict.transfer, facts: { senderBankDisabled: false } };
    case 'not_found': return { kind: 'not_found' };
    case 'unreadable': return { kind: 'unreadable' };
    case 'provider_unavailable': return { kind: 'provider_unavailable' };
    default: {
      const _exhaustive: never = verdict;
      return _exhaustive;
    }
  }
}
