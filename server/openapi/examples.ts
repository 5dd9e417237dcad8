// Examples generated from JSON schemas, for the operations whose table row gives none: the
// smallest instance — required keys only, the first enum value, the minimum — with sample
// strings for the patterns the schemas use. A pattern without a sample throws, so a new
// schema cannot produce an example that does not match it (the OpenAPI spec also
// validates every example against its schema).

import { httpUrlText } from '../text-rules.ts';

type Schema = Record<string, unknown>;

const ulid = '01JD0000000000000000000000';
const patternSamples: Record<string, string> = {
  '^[0-9]{3}$': '004',
  '^[0-9]{6,20}$': '1234567890',
  '^[0-9]{10,13}$': '0812345678',
  '^ben_[0-9a-f]{32}$': `ben_${'0'.repeat(32)}`,
  '^[1-9][0-9]{0,2}$': '20',
  '^[0-9]{1,3}$': '20',
  '^[0-9]{1,16}$': '100000',
  '^[0-9]+$': '1795143600',
  '^[^\\u0000-\\u001f\\u007f]*$': 'order-10001',
  '^[^@\\s]+@[^@\\s]+$': 'dev@merchant.example',
  '^[a-z_]+(\\.[a-z_]+)+$': 'deposit.settled',
  '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$': '2026-11-21T03:00:00.000Z',
  '^-?(0|[1-9][0-9]*)$': '0',
  '^(0|[1-9][0-9]{0,18})$': '0',
  '^[1-9][0-9]{0,9}$': '1',
  '^req_[0-9A-Z]{26}$': `req_${ulid}`,
  '^req_': `req_${ulid}`,
  '^dep_': `dep_${ulid}`,
  '^wdr_': `wdr_${ulid}`,
  '^ben_': `ben_${ulid}`,
  '^rcpt_': `rcpt_${ulid}`,
  '^evt_': `evt_${ulid}`,
  '^whep_': `whep_${ulid}`,
  '^whd_': `whd_${ulid}`,
  '^v1=[0-9a-f]{64}$': `v1=${'0'.repeat(64)}`,
  '^sk_(live|test)_': 'sk_test_example',
  [httpUrlText]: 'https://merchant.example/return',
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}$': '2026-11-21',
  '^[0-9]{4}-[0-9]{2}$': '2026-11',
};

const formatSamples: Record<string, string> = { 'date-time': '2026-11-21T03:00:00.000Z', uri: 'https://merchant.example/return' };

/** The smallest instance of `schema`; `$ref`s are resolved in `components`. */
export function exampleOf(schema: Schema, components: Record<string, Schema> = {}): unknown {
  if (typeof schema.$ref === 'string') return exampleOf(components[schema.$ref.split('/').pop()!]!, components);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.allOf)) {
    // Every part must hold: objects are merged, anything else is the first part's example.
    const parts = schema.allOf.map((part) => exampleOf(part as Schema, components));
    return parts.every((p) => typeof p === 'object' && p !== null && !Array.isArray(p)) ? Object.assign({}, ...parts) : parts[0];
  }
  if (Array.isArray(schema.oneOf)) return exampleOf(schema.oneOf[0] as Schema, components);
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required ?? []) as string[];
      return Object.fromEntries(required.map((key) => [key, exampleOf(properties[key] ?? {}, components)]));
    }
    case 'array': return Array.from({ length: (schema.minItems as number | undefined) ?? 0 }, () => exampleOf((schema.items ?? {}) as Schema, components));
    case 'integer': return (schema.minimum as number | undefined) ?? 1;
    case 'number': return (schema.minimum as number | undefined) ?? 0;
    case 'boolean': return true;
    case 'string': return stringExample(schema);
    default: return {};
  }
}

function stringExample(schema: Schema): string {
  if (typeof schema.pattern === 'string') {
    const sample = patternSamples[schema.pattern];
    if (sample === undefined) throw new Error(`no example for the pattern ${schema.pattern}; add one to server/openapi/examples.ts`);
    return sample;
  }
  if (typeof schema.format === 'string' && formatSamples[schema.format]) return formatSamples[schema.format]!;
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = (schema.maxLength as number | undefined) ?? 64;
  return 'example'.padEnd(minLength, 'x').slice(0, Math.max(minLength, Math.min(7, maxLength)));
}
