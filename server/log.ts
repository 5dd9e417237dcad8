// The process logger: pino, JSON lines, with the secrets the contract forbids to log
// redacted before a line is written — credentials (Authorization, PG-Signature, step-up
// tokens, API keys), slip capability tokens, raw QR payloads, slip images, and full
// account numbers and names. Level from SATANG_LOG_LEVEL (default 'info'; 'silent' turns
// logging off).
//
// pino's redaction has no recursive wildcard, so every sensitive key is listed at each
// depth up to sensitiveKeyDepthMax (arrays count as one level: 'res.body.legs.0.qr_payload'
// is depth 4). Log objects nested deeper than that are not redacted: keep them shallow.

import { pino, type DestinationStream, type Logger } from 'pino';
import { accountNumberKeys, nameKeys, secretKeys } from '../core/sensitive-keys.ts';

/** The request log's sensitive keys (core/sensitive-keys.ts): secrets redacted, account numbers and names too (a log line has no masked form). */
export const sensitiveKeys: readonly string[] = [...secretKeys, ...accountNumberKeys, ...nameKeys];

/** Header names as Node delivers them (lowercase) and as clients write them. */
export const sensitiveHeaders = [
  'authorization',
  'pg-signature',
  'x-pg-step-up-token',
  'Authorization',
  'PG-Signature',
  'X-PG-Step-Up-Token',
] as const;

export const sensitiveKeyDepthMax = 5;

export const redactPaths: readonly string[] = [
  ...sensitiveKeys.flatMap((key) => atEveryDepth(key)),
  ...sensitiveHeaders.flatMap((header) => atEveryDepth(`headers["${header}"]`)),
];

function atEveryDepth(path: string): string[] {
  return Array.from({ length: sensitiveKeyDepthMax + 1 }, (_, depth) => '*.'.repeat(depth) + path);
}

export const redactCensor = '[redacted]';

export interface LoggerOptions {
  /** Overrides SATANG_LOG_LEVEL. */
  level?: string;
  /** Where lines go; stdout by default. */
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? process.env.SATANG_LOG_LEVEL ?? 'info';
  if (!isLevel(level)) throw new Error(`SATANG_LOG_LEVEL: unknown level '${level}'`);
  const config = { level, redact: { paths: [...redactPaths], censor: redactCensor } };
  return options.destination === undefined ? pino(config) : pino(config, options.destination);
}

/** The levels SATANG_LOG_LEVEL takes (pino's, and silent). */
export const logLevels: readonly string[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const levels = logLevels;

function isLevel(level: string): boolean {
  return levels.includes(level);
}
