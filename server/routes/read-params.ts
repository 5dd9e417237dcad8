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
/** Digits without a leading zero, or 0 itself (refused as below the minimum, not as a malformed number). */
const decimalInteger = /^(0|[1-9][0-9]{0,9})$/;

function invalid(name: string, reason: string, hint: string): ApiError {
  return new ApiError('validation_error', `${name}: ${hint}.`, { fields: [{ path: `query.${name}`, reason, hint }] });
}

/**
 * The query, refusing repeated parameters, any not in `allowed`, and any given empty: a
 * script's unset variable (`?merchant_id=`) filtered everything out and answered an empty
 * page, "nothing waiting", where it should be told.
 */
export function readQuery(ctx: Context, allowed: readonly string[]): Record<string, string> {
  const q = queryOf(ctx);
  const unknown = Object.keys(q).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) {
    const takes = allowed.length === 0 ? 'this route takes no query parameters' : `this route takes ${allowed.join(', ')}`;
    // A cursor where the route pages by sequence: say how it does page; where it does not page at all, nothing more.
    const cursorHint = allowed.includes('since_sequence') ? { hint: 'page with since_sequence' } : {};
    throw new ApiError('validation_error', `Unknown query parameter ${unknown.join(', ')}; ${takes}.`, {
      fields: unknown.map((k) => ({ path: `query.${k}`, reason: 'unknown_field', ...(k === 'cursor' ? cursorHint : {}) })),
    });
  }
  const empty = Object.keys(q).filter((k) => q[k] === '');
  if (empty.length > 0) {
    throw new ApiError('validation_error', `Query parameter ${empty.join(', ')} is empty: give a value, or leave the parameter out.`, {
      fields: empty.map((k) => ({ path: `query.${k}`, reason: 'empty', hint: 'a value, or no parameter' })),
    });
  }
  return q;
}

/**
 * since_sequence (default 0) as an exact integer, at most `max`: the balance history's
 * sequences are decimal strings (up to 2^63 − 1); the events feed's are JSON numbers, so
 * never above 2^53 − 1 (its next_sequence is echoed as a number, which a larger one would
 * not survive JSON.parse as).
 */
export function sequenceParam(raw: string | undefined, name = 'since_sequence', max: bigint = readSideLimits.sequenceMax): bigint {
  if (raw === undefined) return 0n;
  if (!canonicalDecimal.test(raw)) {
    // Digits in canonical form, only too many of them: say the bound, not the form.
    if (/^[1-9][0-9]*$/.test(raw)) throw invalid(name, 'maximum', `at most ${max}`);
    throw invalid(name, 'format', 'a decimal string without sign or leading zeros');
  }
  const value = BigInt(raw);
  if (value > max) throw invalid(name, 'maximum', `at most ${max}`);
  return value;
}

export function limitParam(raw: string | undefined, defaultValue: number, max: number): number {
  if (raw === undefined) return defaultValue;
  if (!decimalInteger.test(raw)) throw invalid('limit', 'format', `an integer from 1 to ${max}`);
  const value = Number(raw);
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

/** A back-office list's opaque cursor: base64url JSON naming where the page ended and the filters it was issued under. */
export function encodeFilterCursor(position: Record<string, unknown>, filters: string): string {
  return Buffer.from(JSON.stringify({ ...position, filters })).toString('base64url');
}

/**
 * The position a cursor names, or undefined without one: 422 validation_error when it is not
 * a cursor this API issued or its fields are not this list's (`valid` checks them), 400
 * cursor_filter_mismatch when it was issued for another list or the filters changed since.
 */
export function decodeFilterCursor<T>(raw: string | undefined, filters: string, valid: (c: Record<string, unknown>) => c is Record<string, unknown> & T): T | undefined {
  if (raw === undefined) return undefined;
  let c: Record<string, unknown> | undefined;
  try { c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Record<string, unknown>; } catch { c = undefined; }
  if (c === null || typeof c !== 'object' || typeof c.filters !== 'string') {
    throw new ApiError('validation_error', 'cursor is not one this API issued.', { fields: [{ path: 'query.cursor', reason: 'format' }] });
  }
  // A cursor of another list or with other filters is a mismatch, as on the merchant lists.
  if (c.filters !== filters) throw new ApiError('cursor_filter_mismatch', 'This cursor was issued for another list or other filters; start again without cursor.');
  if (!valid(c)) throw new ApiError('validation_error', 'cursor is not one this list issued.', { fields: [{ path: 'query.cursor', reason: 'format' }] });
  return c;
}

export function booleanParam(raw: string | undefined, name: string): boolean | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new ApiError('validation_error', `${name} is true or false.`, { fields: [{ path: `query.${name}`, reason: 'enum', hint: 'true, false' }] });
}

export function enumParam<T extends string>(raw: string | undefined, name: string, values: readonly T[]): T | undefined {
  if (raw === undefined) return undefined;
  if ((values as readonly string[]).includes(raw)) return raw as T;
  throw new ApiError('validation_error', `${name} is one of ${values.join(', ')}.`, { fields: [{ path: `query.${name}`, reason: 'enum', hint: values.join(', ') }] });
}
