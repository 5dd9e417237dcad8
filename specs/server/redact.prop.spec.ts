// server/redact.ts on random bodies. (1) redactValue agrees with the reference — the
// definition in its plain form: each key tested against the three case-insensitive
// patterns, every string scanned for API key secrets and signed tokens and, but for a
// trans_ref, account digits — on random JSON whose keys
// are the kinds' words in random case, with look-alike letters (KELVIN SIGN for k, LONG S
// for s, dotted capital I for i) and random text, and whose strings hold secrets among
// random text; values nest past the depth limit. (2) What the request log's worker is
// handed gives what the API's thread held: bodyForLog of an object's JSON text equals
// bodyForLog of the object (the audit middleware hands over the text, the worker parses it).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { bodyForLog, redactStoredBody, redactValue } from '../../server/redact.ts';
import { maskAccountNumber, maskName } from '../../core/present.ts';

const secretKey = /^(api_key|secret|signing_secret|token|step_up_token|password|private_key|qr_payload|payload|image_base64|content_base64|signature)$/i;
const accountNumberKey = /^(account_number|promptpay_id)$/i;
const nameKey = /^account_name(_th|_en)?$/i;
const referenceKey = /^trans_ref$/i;
// An API key secret not inside a word; a signed token of two parts (a slip upload token) or three (a JWT).
const secretText = /(?<![A-Za-z0-9])sk_(live|test)_[A-Za-z0-9_-]{8,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(\.[A-Za-z0-9_-]+)?/g;
// Nine digits or more, a dash or a space between two of them, not inside a word (an underscore
// is no letter): shown as its last four — but for more than 20 digits beside an underscore (an id's ULID).
const accountDigits = /(?<![A-Za-z0-9])\d([-\s]?\d){8,}(?![A-Za-z0-9])/g;
const lastFour = (run: string, _group: string, at: number, whole: string) => {
  const digits = run.replace(/[-\s]/g, '');
  return (whole[at - 1] === '_' || whole[at + run.length] === '_') && digits.length > 20 ? run : 'x'.repeat(digits.length - 4) + digits.slice(-4);
};

function reference(value: unknown, key = '', depth = 0): unknown {
  if (depth > 12) return '[redacted]';
  if (typeof value === 'string') {
    if (secretKey.test(key)) return '[redacted]';
    // What a mask leaves (a stored body redacted again), kept as it is: an account number's x's and at most four digits; a name's first word and a letter, or two letters, then ***.
    if (accountNumberKey.test(key)) return value === '[redacted]' || /^x*\d{0,4}$/.test(value) ? value : maskAccountNumber(value);
    if (nameKey.test(key)) {
      const v = value.replace(secretText, '[redacted]'); // a name's first word is kept: no secret in it
      return v === '[redacted]' || /^(\S+ \S|\S{0,2})\*\*\*$/u.test(v) ? v : maskName(v);
    }
    const withoutSecrets = value.replace(secretText, '[redacted]');
    return referenceKey.test(key) ? withoutSecrets : withoutSecrets.replace(accountDigits, lastFour);
  }
  if (value === null || value === undefined) return value;
  // Not text under a masked key: a number for an account number masked as its digits, anything else replaced whole.
  if (accountNumberKey.test(key) && typeof value === 'number') return maskAccountNumber(String(value));
  if (secretKey.test(key) || accountNumberKey.test(key) || nameKey.test(key)) return '[redacted]';
  if (typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => reference(v, key, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = reference(v, k, depth + 1);
  return out;
}

const words = ['api_key', 'secret', 'signing_secret', 'token', 'step_up_token', 'password', 'private_key', 'qr_payload', 'payload', 'image_base64', 'content_base64',
  'signature', 'account_number', 'promptpay_id', 'account_name', 'account_name_th', 'account_name_en', 'account_name_fr', 'api_keys', 'name', 'trans_ref', 'note'];
const lookAlike = (word: string) => word.replace('k', '\u212A').replace('s', '\u017F').replace('i', '\u0130');
const key = fc.oneof(fc.mixedCase(fc.constantFrom(...words)), fc.constantFrom(...words).map(lookAlike), fc.string({ maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 4 }));
const secretish = fc.constantFrom('sk_live_abcdefgh12', 'sk_test_ABC-defg_hij', 'sk_live_short', 'eyJhbGciOiJI.eyJzdWIiOiJl.c2ln', 'eyJshort.eyJx.y', '987-654-3210', 'สมชาย ใจดี',
  'eyJhdWQiOiJwZy1zbGlw.c2lnbmF0dXJlLXNpZ25hdHVyZQ', '9876543210', '123 456 789', '12345678', 'dep_0123456789ABC', 'a1234567890', 'task_test_abcdefgh',
  'acct_1234567890', 'ref_0123-456-789_', `dep_${'0'.repeat(26)}`, `x_${'1'.repeat(20)}`, `${'2'.repeat(21)}_y`,
  'xxxxxx7890', '[redacted]', 'a***', 'a *b', 'Somchai J***', '**', 'https://h.example/p?token=abc&x=1', 'https://u:pw@h.example/p', 'a:https://h/p?token=abc');
const text = fc.oneof(fc.string({ maxLength: 12 }), secretish, fc.tuple(fc.string({ maxLength: 6 }), secretish, fc.string({ maxLength: 6 })).map((parts) => parts.join('')));
const json = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(key, tie('v'), { maxKeys: 5 })),
})).v;
/** Bodies: objects and arrays, some wrapped deeper than the depth limit. */
const body = fc.tuple(fc.oneof(fc.dictionary(key, json, { maxKeys: 6 }), fc.array(json, { maxLength: 4 })), fc.nat(16))
  .map(([inner, levels]) => { let v: unknown = inner; for (let i = 0; i < levels; i++) v = { [`level${i}`]: v }; return v; });

test('redactValue agrees with the reference on random bodies, keys in any case and look-alikes', () => {
  fc.assert(fc.property(body, key, (b, k) => {
    assert.is(JSON.stringify(redactValue(b)), JSON.stringify(reference(b)));
    assert.is(JSON.stringify(redactValue(b, k)), JSON.stringify(reference(b, k)));
  }), { numRuns: 3000 });
});

test('an account number keeps no more than its last four digits whatever JSON type it is sent as', () => {
  fc.assert(fc.property(fc.mixedCase(fc.constantFrom('account_number', 'promptpay_id')), fc.bigInt(100_000n, BigInt(Number.MAX_SAFE_INTEGER)), fc.boolean(), (k, n, nested) => {
    const digits = String(n);
    const stored = JSON.parse(bodyForLog(`{"transfer":{"${k}":${nested ? `[${digits}]` : digits}}}`)!).transfer[k];
    // A list (or an object) where an account number belongs is replaced whole: never walked, its digits never kept.
    assert.equal(stored, nested ? '[redacted]' : maskAccountNumber(digits));
    assert.is(maskAccountNumber(digits), 'x'.repeat(digits.length - 4) + digits.slice(-4));
  }), { numRuns: 500 });
});

test('a stored body redacted again under the same rules is unchanged, whole or cut short', () => {
  const long = fc.tuple(body, fc.string({ minLength: 400, maxLength: 900 }), secretish).map(([b, pad, x]) => ({ b, pad, x, tail: `${pad} ${x}`.repeat(3) }));
  let cut = 0;
  fc.assert(fc.property(fc.oneof(body, long), (b) => {
    const stored = bodyForLog(b)!;
    if (stored.endsWith('…[truncated]')) cut++;
    assert.is(redactStoredBody(stored), stored);
  }), { numRuns: 3000 });
  assert.ok(cut > 100, `bodies cut short: ${cut}`);
});

test('rows an older build kept in clear lose their secrets when redacted again: a webhook URL token and path, an account number sent as a number, cut short or not', () => {
  const whole = '{"url":"https://hooks.example/in?token=s3cr3t-t0ken&x=1","account_number":5566778899,"trans_ref":"123456789012"}';
  assert.is(redactStoredBody(whole), '{"url":"https://hooks.example/[redacted]?[redacted]","account_number":"xxxxxx8899","trans_ref":"123456789012"}');
  const cut = `{"memo":"${'m'.repeat(20)}","endpoint":{"url":"https://hooks.example/in?token=s3cr3t-t0ken"},"b":{"url":"https://hooks.example/services/XXXXSECRETPATH"},"account_number": 5566778899,"trans_ref":"123456789012","note":"ab…[truncated]`;
  const again = redactStoredBody(cut);
  for (const secret of ['s3cr3t-t0ken', '5566778899', 'XXXXSECRETPATH']) assert.not.ok(again.includes(secret), again);
  // An older build's body cut inside a URL's path: the path goes, the mark stays.
  assert.is(redactStoredBody('{"url":"https://hooks.example/services/XXXXSEC…[truncated]'), '{"url":"https://hooks.example/[redacted]…[truncated]');
  assert.ok(again.includes('"trans_ref":"123456789012"') && again.includes('xxxxxx8899') && again.endsWith('…[truncated]'), again);
  // A version-3 build kept text refused as a URL whole, its host part a token: cut short after it, or inside it.
  const kept = `{"url":"http://127.0.0.1:47853;SEMISECRET5","memo":"${'m'.repeat(40)}…[truncated]`;
  assert.is(redactStoredBody(kept), `{"url":"http://[redacted]","memo":"${'m'.repeat(40)}…[truncated]`);
  assert.is(redactStoredBody('{"url":"http://127.0.0.1:47853;SEMISEC…[truncated]'), '{"url":"http://[redacted]…[truncated]');
  assert.is(redactStoredBody('{"url":"x://hooks;SEMISECRET5","memo":"mm…[truncated]'), '{"url":"x://[redacted]","memo":"mm…[truncated]');
  // A host cut short as this build keeps it stays as it is.
  for (const cutHere of ['{"url":"http://[redac…[truncated]', '{"url":"https://hooks.exam…[truncated]', '{"url":"https://hooks.example.com:84…[truncated]']) assert.is(redactStoredBody(cutHere), cutHere);
});

test('a webhook URL keeps only its scheme and host; redacted again, whole or cut anywhere, it is unchanged', () => {
  const secret = fc.stringMatching(/^[A-Za-z0-9]{6,12}$/);
  fc.assert(fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), secret, fc.constantFrom('', '/'), (base, word, end) => {
    const url = new URL(base);
    url.pathname = `${url.pathname.replace(/\/$/, '')}/services/${word}${end}`;
    const stored = bodyForLog({ url: url.href, note: 'x'.repeat(1990) })!;
    const shown = JSON.parse(stored.endsWith('…[truncated]') ? bodyForLog({ url: url.href })! : stored).url as string;
    assert.is(shown, `${url.protocol}//${url.host}/[redacted]${url.search === '' ? '' : '?[redacted]'}`);
    assert.not.ok(stored.includes(`/services/${word}`), stored);
    const whole = bodyForLog({ url: url.href })!;
    assert.is(redactStoredBody(whole), whole);
    for (let at = 8; at < whole.length; at++) assert.is(redactStoredBody(`${whole.slice(0, at)}…[truncated]`), `${whole.slice(0, at)}…[truncated]`);
  }), { numRuns: 300 });
});

test('a body handed over as its JSON text is stored as the body itself would be', () => {
  fc.assert(fc.property(body, (b) => {
    assert.is(bodyForLog(JSON.stringify(b)), bodyForLog(b));
  }), { numRuns: 3000 });
});

test.run();
