// Query parameters of the read routes served from projections (balance history, events
// feed): only the named ones are accepted — an unknown one (including `cursor` where
// sequences page) or a repeated one is a validation_error; sequences are canonical decimal
// strings (no sign, no leading zero) from 0 to 9223372036854775807; limits are integers
// in a named range. Also the read side as the routes reach it.

import type { Context } from 'koa';
import { readSideLimits } from '../../core/limits.ts';
import { ApiError } from '../errors.ts';
import type { Services } from '../ports.ts';
import type { ReadSide } from '../read-side.ts';
import { queryOf } from './common.ts';

const canonicalDecimal = /^(0|[1-9][0-9]{0,18})$/;
const positiveInteger = /^[1-9][0-9]{0,9}$/;

function invalid(name: string, reason: string, hint: string): ApiError {
  return new ApiError('validation_error', `${name}: ${hint}.`, { fields: [{ path: `query.${name}`, reason, hint }] });
}

/** The query, refusing repeated parameters and any not in `allowed`. */
export function readQuery(ctx: Context, allowed: readonly string[]): Record<string, string> {
  const q = queryOf(ctx);
  const unknown = Object.keys(q).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) {
    throw new ApiError('validation_error', `Unknown query parameter ${unknown.join(', ')}; this route takes ${allowed.join(', ')}.`, {
      fields: unknown.map((k) => ({ path: `query.${k}`, reason: 'unknown_field', ...(k === 'cursor' ? { hint: 'page with since_sequence' } : {}) })),
    });
  }
  return q;
}

/** since_sequence (default 0) as an exact integer. */
export function sequenceParam(raw: string | undefined, name = 'since_sequence'): bigint {
  if (raw === undefined) return 0n;
  if (!canonicalDecimal.test(raw)) throw invalid(name, 'format', 'a decimal string without sign or leading zeros');
  const value = BigInt(raw);
  if (value > readSideLimits.sequenceMax) throw invalid(name, 'maximum', `at most ${readSideLimits.sequenceMax}`);
  return value;
}

export function limitParam(raw: string | undefined, defaultValue: number, max: number): number {
  if (raw === undefined) return defaultValue;
  const value = positiveInteger.test(raw) ? Number(raw) : 0;
  if (value < 1 || value > max) throw invalid('limit', value < 1 ? 'minimum' : 'maximum', `an integer from 1 to ${max}`);
  return value;
}

export function runGenerationParam(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = positiveInteger.test(raw) ? Number(raw) : 0;
  if (value < 1 || value > readSideLimits.runGenerationMax) throw invalid('run_generation', 'format', `an integer from 1 to ${readSideLimits.runGenerationMax}`);
  return value;
}

/** The read side, which every server built by startServer has. */
export function readSideOf(services: Services): ReadSide {
  if (!services.read) throw new ApiError('service_unavailable', 'The read side is not running.');
  return services.read;
}
