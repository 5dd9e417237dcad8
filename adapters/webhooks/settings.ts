// Webhook settings read from the environment: the URL mode and the delivery deadlines.
// Apart from the delivery code so that `satang listen` gives a local handler the same
// deadline without loading it.

import { webhookLimits } from '../../core/limits.ts';
import type { UrlMode } from './url-policy.ts';

export interface Timeouts {
  readonly connectMs: number;
  readonly firstByteMs: number;
  readonly totalMs: number;
}

export const contractTimeouts: Timeouts = {
  connectMs: webhookLimits.connectTimeoutMs, firstByteMs: webhookLimits.firstByteTimeoutMs, totalMs: webhookLimits.totalTimeoutMs,
};

export interface WebhookSettings {
  readonly mode: UrlMode;
  readonly timeouts: Timeouts;
}

/**
 * Production enforces https and public addresses; the contract's timeouts apply unless
 * SATANG_WEBHOOK_TIMEOUTS_MS="connect,firstByte,total" shortens them (tests; refused in production).
 */
export function webhookSettings(mode: 'development' | 'production', env: NodeJS.ProcessEnv = process.env): WebhookSettings {
  const override = env.SATANG_WEBHOOK_TIMEOUTS_MS;
  if (!override) return { mode, timeouts: contractTimeouts };
  if (mode === 'production') throw new Error('SATANG_WEBHOOK_TIMEOUTS_MS is for tests and is refused when SATANG_ENV=production');
  const [connectMs, firstByteMs, totalMs] = override.split(',').map(Number);
  if (![connectMs, firstByteMs, totalMs].every((n) => Number.isSafeInteger(n) && n! > 0)) throw new Error(`SATANG_WEBHOOK_TIMEOUTS_MS must be three positive integers, not ${override}`);
  return { mode, timeouts: { connectMs: connectMs!, firstByteMs: firstByteMs!, totalMs: totalMs! } };
}
