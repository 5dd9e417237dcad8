// Request validation with ajv (draft-07 vocabulary, strict mode, all errors). A compiled
// validator is a type guard that throws ApiError('validation_error') with
// details.fields[] = {path, reason, hint?}: path is dotted ('sender.bank_code', array
// items by index 'legs.0.amount_minor', '' for the whole document), reason a short machine
// word a client can branch on, hint human text. Schemas are compiled once at start-up.
//
// Invariants kept: the validator never mutates its input (no defaults, no coercion, no
// removal of extra keys); an unknown key is reported as reason 'unknown_field' at its own
// path; at most fieldsReportedMax fields are reported.

import { isIP } from 'node:net';
import { Ajv, type AnySchema, type ErrorObject } from 'ajv';
import { ApiError } from './errors.ts';
import { echoedPath, notIntegerIn } from './json-strict.ts';
import { parseIso } from './time.ts';
import { requestLimits } from '../core/limits.ts';
import { hasReadableName } from '../core/note.ts';
import { visible, writtenText } from './text-rules.ts';

const fieldsReportedMax = requestLimits.validationFieldsReportedMax;

export interface FieldError {
  path: string;
  reason: string;
  hint?: string;
}

const ajv = new Ajv({ allErrors: true, strict: true });
// Formats are built in here rather than taken from ajv-formats: 'date-time' must agree
// with parseIso, the parser the routes use.
ajv.addFormat('date-time', { type: 'string', validate: (s: string) => parseIso(s) !== null });
ajv.addFormat('uri', { type: 'string', validate: isHttpUrl });
// An IPv4 or IPv6 address as node:net reads one (no ranges, no zone-less oddities).
ajv.addFormat('ip', { type: 'string', validate: (s: string) => isIP(s) !== 0 });
// A name holds something to read: a letter or a digit, not only spaces, invisible
// characters, blank letters (Hangul fillers, the braille blank) or marks (core/note.ts).
// An x- name, so the OpenAPI document built from these schemas carries it as an extension.
ajv.addKeyword({
  keyword: 'x-readable', type: 'string', schemaType: 'boolean', errors: false,
  validate: (on: boolean, s: string) => !on || hasReadableName(s),
});

// A reference is kept as sent, so white space at either end makes another reference that
// reads the same ("order-1 " beside "order-1"), and one the back office's search, which
// trims what is pasted, never finds. String.prototype.trim's white space: U+00A0 and U+3000 too.
ajv.addKeyword({
  keyword: 'x-trimmed', type: 'string', schemaType: 'boolean', errors: false,
  validate: (on: boolean, s: string) => !on || s === s.trim(),
});

/** An absolute http: or https: URL. */
export function isHttpUrl(s: string): boolean {
  try {
    const url = new URL(s);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** A compiled request schema; `schema` is kept so the OpenAPI document (server/openapi/) is built from the same source. */
export type Validator<T> = ((data: unknown) => data is T) & { readonly schema: AnySchema };

/**
 * A validator for `schema`: returns true for valid data, throws validation_error otherwise.
 * A query's validator (`{ in: 'query' }`) names its fields `query.limit`, as the routes that
 * check their query by hand do; a body's are bare (`amount_minor`).
 */
export function compile<T>(schema: AnySchema, options: { in?: 'query' } = {}): Validator<T> {
  const validate = ajv.compile<T>(schema);
  const guard = (data: unknown): data is T => {
    // A number sent with a fraction or an exponent (json-strict.ts): refused where the schema
    // takes it, as an integer's; where the schema wants another type, its own error says which.
    const fraction = notIntegerIn(data);
    if (validate(data)) {
      if (fraction) throw new ApiError('validation_error', `${fraction.path} must be an integer, written without a decimal point or an exponent.`, { fields: [notIntegerField(fraction.path)] });
      return true;
    }
    const found = fieldErrors(validate.errors ?? []);
    if (fraction && !found.some((f) => f.path === fraction.path)) found.push(notIntegerField(fraction.path));
    const fields = options.in === 'query' ? found.map((f) => ({ ...f, path: `query.${f.path}` })) : found;
    throw new ApiError('validation_error', undefined, { fields });
  };
  return Object.assign(guard, { schema });
}

function notIntegerField(path: string): FieldError {
  return { path, reason: 'type', hint: path.endsWith('_minor') ? 'an integer such as 10000 (satang), not 10000.0 or 1e4' : 'an integer such as 10000, not 10000.0 or 1e4' };
}

/** ajv's errors as the contract's details.fields[], deduplicated, in ajv's order. */
export function fieldErrors(errors: readonly ErrorObject[]): FieldError[] {
  const fields: FieldError[] = [];
  const seen = new Set<string>();
  for (const error of withoutBranchNoise(errors)) {
    const field = toFieldError(error);
    const id = `${field.path}\u0000${field.reason}`;
    if (seen.has(id)) continue;
    seen.add(id);
    fields.push(field);
    if (fields.length === fieldsReportedMax) break;
  }
  return fields;
}

// For anyOf/oneOf ajv also lists why every alternative failed, which reads as a set of
// contradictory demands; one 'invalid' at the combinator's path says it better. An 'if'
// error only repeats the then/else errors listed beside it.
function withoutBranchNoise(errors: readonly ErrorObject[]): ErrorObject[] {
  const combinatorPaths = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .map((e) => `${e.schemaPath}/`);
  return errors.filter(
    (e) => e.keyword !== 'if' && !combinatorPaths.some((prefix) => e.schemaPath.startsWith(prefix)),
  );
}

function toFieldError(error: ErrorObject): FieldError {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: childPath(error.instancePath, String(params.missingProperty)), reason: 'required', hint: 'is required' };
    case 'additionalProperties':
      return {
        path: childPath(error.instancePath, String(params.additionalProperty)),
        reason: 'unknown_field',
        hint: 'is not a field of this request',
      };
    case 'enum':
      return at(error, 'enum', `must be one of: ${(params.allowedValues as unknown[]).map(String).join(', ')}`);
    case 'const':
      return at(error, 'enum', `must be ${String(params.allowedValue)}`);
    case 'x-readable':
      return at(error, 'blank', 'must hold something to read, not only spaces or invisible characters');
    case 'x-trimmed':
      return at(error, 'spaces_around', 'must not begin or end with white space: "order-1 " would be a second reference that reads as "order-1"');
    case 'pattern': {
      // The text rules in words, not the character classes behind them.
      const pattern = String(params.pattern);
      if (pattern === visible) return at(error, 'pattern', 'must hold no control, line-separator, direction or invisible characters (U+0000–U+001F, U+007F–U+009F, U+2028/9, U+200E/F, U+202A–E, U+2066–9, U+061C, U+00AD, and the zero-width space U+200B, word joiner U+2060 and byte-order mark U+FEFF that text copied from a web page or a document often carries) nor half a surrogate pair');
      if (pattern === writtenText) return at(error, 'pattern', 'must hold no control or direction characters (tabs and line breaks are fine) nor half a surrogate pair');
      return at(error, 'pattern', error.message);
    }
    default:
      return at(error, reasonByKeyword[error.keyword] ?? 'invalid', error.message);
  }
}

const reasonByKeyword: Record<string, string> = {
  type: 'type',
  maxLength: 'too_long',
  minLength: 'too_short',
  pattern: 'pattern',
  format: 'format',
  minimum: 'minimum',
  exclusiveMinimum: 'minimum',
  maximum: 'maximum',
  exclusiveMaximum: 'maximum',
  multipleOf: 'multiple_of',
  maxItems: 'too_many_items',
  minItems: 'too_few_items',
  uniqueItems: 'duplicate_items',
  maxProperties: 'too_many_fields',
  minProperties: 'too_few_fields',
  propertyNames: 'invalid_key',
  dependentRequired: 'required',
  dependencies: 'required',
};

function at(error: ErrorObject, reason: string, hint: string | undefined): FieldError {
  const path = echoedPath(dottedPath(error.instancePath));
  return hint === undefined ? { path, reason } : { path, reason, hint };
}

function childPath(instancePath: string, key: string): string {
  const parent = dottedPath(instancePath);
  return echoedPath(parent === '' ? key : `${parent}.${key}`);
}

/** '/sender/bank_code' → 'sender.bank_code'; JSON-pointer escapes (~1, ~0) are undone. */
export function dottedPath(instancePath: string): string {
  if (instancePath === '') return '';
  return instancePath
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}
