import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../server/errors.ts';
import { compile, dottedPath, type FieldError } from '../../server/validate.ts';
import { echoedPathMax } from '../../server/json-strict.ts';
import { requestLimits } from '../../core/limits.ts';

interface CreateDeposit {
  amount_minor: number;
  currency: 'THB';
  merchant_reference: string;
  sender?: { bank_code: string; account_number: string; account_name_th: string };
  sender_id?: string;
  fill_preference?: 'any' | 'internal_only';
  expires_in_seconds?: number;
  return_url?: string;
  legs?: Array<{ amount_minor: number }>;
}

const createDepositSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['amount_minor', 'currency', 'merchant_reference'],
  properties: {
    amount_minor: { type: 'integer', minimum: 1, maximum: 9007199254740991 },
    currency: { const: 'THB' },
    merchant_reference: { type: 'string', minLength: 1, maxLength: 64 },
    sender: {
      type: 'object',
      additionalProperties: false,
      required: ['bank_code', 'account_number', 'account_name_th'],
      properties: {
        bank_code: { type: 'string', pattern: '^[0-9]{3}$' },
        account_number: { type: 'string', pattern: '^[0-9]+$' },
        account_name_th: { type: 'string', minLength: 1 },
      },
    },
    sender_id: { type: 'string' },
    fill_preference: { enum: ['any', 'internal_only'] },
    expires_in_seconds: { type: 'integer', minimum: 60, maximum: 86400 },
    occurred_at: { type: 'string', format: 'date-time' },
    return_url: { type: 'string', format: 'uri' },
    legs: { type: 'array', maxItems: 3, items: { type: 'object', required: ['amount_minor'], properties: { amount_minor: { type: 'integer' } } } },
  },
};

const validateCreateDeposit = compile<CreateDeposit>(createDepositSchema);
const valid = { amount_minor: 10000, currency: 'THB', merchant_reference: 'order-1' };

function fieldsOf(data: unknown): FieldError[] {
  try {
    validateCreateDeposit(data);
  } catch (error) {
    assert.instance(error, ApiError);
    assert.is((error as ApiError).code, 'validation_error');
    return (error as ApiError).details?.fields as FieldError[];
  }
  throw new Error('expected validation_error');
}

function reasonsByPath(data: unknown): Record<string, string> {
  return Object.fromEntries(fieldsOf(data).map((f) => [f.path, f.reason]));
}

test('valid data passes and narrows the type', () => {
  const data: unknown = { ...valid, sender: { bank_code: '014', account_number: '1234567890', account_name_th: 'สมชาย ใจดี' } };
  assert.ok(validateCreateDeposit(data));
  if (validateCreateDeposit(data)) assert.is(data.sender?.bank_code, '014');
});

test('validation does not change the input', () => {
  const data = { ...valid, extra: 1 };
  const copy = JSON.parse(JSON.stringify(data)) as unknown;
  fieldsOf(data);
  assert.equal(data, copy);
});

test('missing fields are reason required at their own path', () => {
  assert.equal(reasonsByPath({ currency: 'THB' }), { amount_minor: 'required', merchant_reference: 'required' });
  assert.equal(reasonsByPath({ ...valid, sender: { bank_code: '014' } }), {
    'sender.account_number': 'required',
    'sender.account_name_th': 'required',
  });
});

test('an unknown key is unknown_field at the path of that key', () => {
  assert.equal(fieldsOf({ ...valid, amount: 5 }), [{ path: 'amount', reason: 'unknown_field', hint: 'is not a field of this request' }]);
  assert.equal(reasonsByPath({ ...valid, sender: { bank_code: '014', account_number: '1', account_name_th: 'ก', iban: 'x' } }), { 'sender.iban': 'unknown_field' });
});

test("a client's key past echoedPathMax characters comes back cut in the middle, its start and end kept, never half a surrogate pair", () => {
  const long = `k${'x'.repeat(60_000)}_tail`;
  const [field] = fieldsOf({ ...valid, [long]: 1 });
  assert.is(field!.reason, 'unknown_field');
  assert.is(field!.path.length, echoedPathMax);
  assert.ok(field!.path.startsWith('kxxx') && field!.path.endsWith('xx_tail') && field!.path.includes('…'), field!.path.slice(0, 40));
  const thai = '😀'.repeat(500); // surrogate pairs all through
  const cut = fieldsOf({ ...valid, sender: { bank_code: '014', account_number: '1', account_name_th: 'ก', [thai]: 1 } })[0]!.path;
  assert.ok(cut.length <= echoedPathMax && cut.startsWith('sender.😀'), cut.slice(0, 20));
  assert.not.match(cut, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/, 'a lone surrogate');
  assert.is(fieldsOf({ ...valid, ['y'.repeat(echoedPathMax)]: 1 })[0]!.path, 'y'.repeat(echoedPathMax), 'a path of echoedPathMax is whole');
});

test('type, too_long, too_short, pattern, minimum, maximum, enum, format', () => {
  assert.equal(
    reasonsByPath({
      amount_minor: 100.5,
      currency: 'USD',
      merchant_reference: 'x'.repeat(65),
      sender: { bank_code: '14', account_number: '123-456', account_name_th: '' },
      fill_preference: 'fastest',
      expires_in_seconds: 59,
      occurred_at: '2026-02-30T10:00:00Z',
      return_url: 'javascript:alert(1)',
    }),
    {
      amount_minor: 'type',
      currency: 'enum',
      merchant_reference: 'too_long',
      'sender.bank_code': 'pattern',
      'sender.account_number': 'pattern',
      'sender.account_name_th': 'too_short',
      fill_preference: 'enum',
      expires_in_seconds: 'minimum',
      occurred_at: 'format',
      return_url: 'format',
    },
  );
  assert.equal(reasonsByPath({ ...valid, expires_in_seconds: 86401 }), { expires_in_seconds: 'maximum' });
  assert.equal(reasonsByPath({ ...valid, merchant_reference: '' }), { merchant_reference: 'too_short' });
});

test('hints are human text; enum hints list the allowed values', () => {
  const [field] = fieldsOf({ ...valid, fill_preference: 'fastest' });
  assert.equal(field, { path: 'fill_preference', reason: 'enum', hint: 'must be one of: any, internal_only' });
  const [long] = fieldsOf({ ...valid, merchant_reference: 'x'.repeat(65) });
  assert.match(long.hint ?? '', /64 characters/);
});

test('array items are addressed by index; array limits have their own reasons', () => {
  assert.equal(reasonsByPath({ ...valid, legs: [{ amount_minor: 1 }, { amount_minor: 'two' }, {}] }), {
    'legs.1.amount_minor': 'type',
    'legs.2.amount_minor': 'required',
  });
  assert.equal(reasonsByPath({ ...valid, legs: [{ amount_minor: 1 }, { amount_minor: 1 }, { amount_minor: 1 }, { amount_minor: 1 }] }), { legs: 'too_many_items' });
});

test('a document that is not an object is a type error at the empty path', () => {
  assert.equal(fieldsOf([1, 2]), [{ path: '', reason: 'type', hint: 'must be object' }]);
  assert.equal(reasonsByPath(null), { '': 'type' });
});

test('anyOf reports one invalid at its path instead of every failed branch', () => {
  const validate = compile({
    type: 'object',
    properties: { id: { anyOf: [{ type: 'string', pattern: '^ben_' }, { type: 'integer' }] } },
  });
  let fields: FieldError[] = [];
  try {
    validate({ id: 'wdr_1' });
  } catch (error) {
    fields = (error as ApiError).details?.fields as FieldError[];
  }
  assert.equal(fields.map((f) => [f.path, f.reason]), [['id', 'invalid']]);
});

test('the number of reported fields is capped', () => {
  const properties = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`f${i}`, { type: 'string' }]));
  const validate = compile({ type: 'object', properties, required: Object.keys(properties) });
  try {
    validate({});
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, ApiError);
    assert.is(((error as ApiError).details?.fields as FieldError[]).length, requestLimits.validationFieldsReportedMax);
  }
});

test('strict mode refuses a schema with an unknown keyword at compile time', () => {
  assert.throws(() => compile({ type: 'string', maxlength: 3 }), /unknown keyword/);
});

test('dottedPath turns a JSON pointer into a dotted path', () => {
  assert.is(dottedPath(''), '');
  assert.is(dottedPath('/sender/bank_code'), 'sender.bank_code');
  assert.is(dottedPath('/metadata/a~1b/c~0d'), 'metadata.a/b.c~d');
});

test.run();
