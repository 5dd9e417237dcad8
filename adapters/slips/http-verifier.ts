// The SlipVerifier over HTTP: a slip-verification provider (or the bank simulator run on
// its own) at SATANG_SLIP_PROVIDER_URL, speaking the protocol of protocol.ts. Each call
// has a timeout; a network error, a timeout, a 429 or a 5xx is tried again after a short
// doubling wait, at most providerAttemptsMax times. Invariant kept: verify() never
// rejects and never invents a transfer — a provider that stays down, or answers with
// anything but a verdict, is provider_unavailable (the deposit goes to review).

import type { SlipEvidence, SlipVerdict, SlipVerifier } from '../../core/ports.ts';
import { slipAdapterLimits } from '../../core/limits.ts';
import { verdictOf, verifyRequestOf } from './protocol.ts';

export interface HttpSlipVerifierOptions {
  readonly attemptsMax?: number;
  readonly attemptTimeoutMs?: number;
  readonly retryDelayMs?: number;
  /** Waits between attempts (tests pass one that does not sleep). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Told about each failed attempt, for the log (never with the evidence). */
  readonly onAttemptFailed?: (attempt: number, reason: string) => void;
}

type Attempt = { readonly verdict: SlipVerdict } | { readonly retry: string } | { readonly giveUp: string };

export class HttpSlipVerifier implements SlipVerifier {
  private readonly verifyUrl: string;

  constructor(baseUrl: string, private readonly options: HttpSlipVerifierOptions = {}) {
    this.verifyUrl = `${baseUrl.replace(/\/+$/, '')}/verify`;
  }

  async verify(evidence: SlipEvidence): Promise<SlipVerdict> {
    const attemptsMax = this.options.attemptsMax ?? slipAdapterLimits.providerAttemptsMax;
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    let delayMs = this.options.retryDelayMs ?? slipAdapterLimits.providerRetryDelayMs;
    const body = JSON.stringify(verifyRequestOf(evidence));
    for (let attempt = 1; attempt <= attemptsMax; attempt++) {
      const result = await this.attempt(body);
      if ('verdict' in result) return result.verdict;
      this.options.onAttemptFailed?.(attempt, 'retry' in result ? result.retry : result.giveUp);
      if ('giveUp' in result || attempt === attemptsMax) break;
      await sleep(delayMs);
      delayMs *= 2;
    }
    return { kind: 'provider_unavailable' };
  }

  private async attempt(body: string): Promise<Attempt> {
    try {
      const response = await fetch(this.verifyUrl, {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body, redirect: 'error',
        signal: AbortSignal.timeout(this.options.attemptTimeoutMs ?? slipAdapterLimits.providerAttemptTimeoutMs),
      });
      if (response.status === 429 || response.status >= 500) {
        await response.body?.cancel();
        return { retry: `status ${response.status}` };
      }
      if (response.status !== 200) {
        await response.body?.cancel();
        return { giveUp: `status ${response.status}` };
      }
      const text = await readCapped(response, slipAdapterLimits.providerResponseBytesMax);
      if (text === null) return { giveUp: 'answer too large' };
      try {
        return { verdict: verdictOf(JSON.parse(text)) };
      } catch {
        return { giveUp: 'answer is not JSON' };
      }
    } catch (error) {
      return { retry: (error as Error).name === 'TimeoutError' ? 'timeout' : `network: ${(error as Error).message}` };
    }
  }
}

async function readCapped(response: Response, bytesMax: number): Promise<string | null> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > bytesMax) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
