// server/redact.ts bodyForLog, byte for byte: each body below is stored exactly as the
// request log stored it before redaction moved to its worker thread and the per-key
// patterns became one table lookup (the expected texts were taken from that build). The
// bodies are a signed create-deposit request and its 201 answer, and a body of every shape
// the redaction treats differently: keys in any case, a look-alike key (KELVIN SIGN for k),
// a secret key over an object, a list or a number, secrets inside free text, a JSON string,
// plain text, an array, a number, depth past the limit and a cut inside a Thai letter.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bodyForLog } from '../../server/redact.ts';
import { redactPath } from '../../server/secret-text.ts';

const slipToken = `${Buffer.from('{"aud":"pg-slip-ingest","deposit_id":"dep_01"}').toString('base64url')}.${Buffer.alloc(64, 7).toString('base64url')}`;
const jwt = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJlbXBfYXVkaXQiLCJyb2xlcyI6WyJzdXBwb3J0Il19.qg7C7Kv4ARE-0Pza5oEWlAyQUXxp';
/** {a:{a:…{a:'deep'}}} with `levels` objects. */
const deep = (levels: number): unknown => (levels === 0 ? 'deep' : { a: deep(levels - 1) });

const cases: [name: string, body: unknown, stored: string | null][] = [
  ['a create-deposit request', {
    amount_minor: 50000, currency: 'THB', merchant_reference: 'ref-0dd11cfe', end_user_ref: 'user-ba9f56a4',
    sender: { bank_code: '014', account_number: '987-654-3210', account_name_th: 'สมชาย ใจดี' },
    client: { device_fingerprint: 'fp-1', ip: '203.0.113.7', user_agent: 'spec' },
  }, '{"amount_minor":50000,"currency":"THB","merchant_reference":"ref-0dd11cfe","end_user_ref":"user-ba9f56a4","sender":{"bank_code":"014","account_number":"xxxxxx3210","account_name_th":"สมชาย ใ***"},"client":{"device_fingerprint":"fp-1","ip":"203.0.113.7","user_agent":"spec"}}'],
  ['its 201 answer', {
    id: 'dep_01M8B1EM9WYNKD31GJRG7PJ20X', object: 'deposit_order', livemode: true, version: 1, status: 'awaiting_payment', is_terminal: false,
    amount_minor: 50000, currency: 'THB', legs: [{ leg_ref: 'leg_01', sequence: 1, amount_minor: 50000, method: 'promptpay_qr',
      qr_payload: '00020101021229370016A000000677010111', receiver: { bank_code: '004', account_number_masked: 'xxxxxx7890', account_name_masked: 'สมหญิง ร***' } }],
    slip_upload: { token: jwt, upload_url: 'http://127.0.0.1:1/v1/pay/deposits/dep_01/slip', max_bytes: 5242880, content_types: ['image/jpeg', 'application/json'] },
  }, '{"id":"dep_01M8B1EM9WYNKD31GJRG7PJ20X","object":"deposit_order","livemode":true,"version":1,"status":"awaiting_payment","is_terminal":false,"amount_minor":50000,"currency":"THB","legs":[{"leg_ref":"leg_01","sequence":1,"amount_minor":50000,"method":"promptpay_qr","qr_payload":"[redacted]","receiver":{"bank_code":"004","account_number_masked":"xxxxxx7890","account_name_masked":"สมหญิง ร***"}}],"slip_upload":{"token":"[redacted]","upload_url":"http://127.0.0.1:1/v1/pay/deposits/dep_01/slip","max_bytes":5242880,"content_types":["image/jpeg","application/json"]}}'],
  ['keys in any case, look-alikes, secrets over objects, lists and numbers, secrets in text, depth', {
    API_KEY: 'sk_live_abcdefghijkl', Account_Name_TH: 'นาย ทดสอบ', ACCOUNT_NUMBER: '1234567890', PromptPay_Id: '0812345678', account_name_en: 'John Smith',
    'api_\u212Aey': 'kelvin sign is not k for a /i pattern', Token: { nested: 'object under a secret key' }, signature: ['a', 'b'], password: 12345, secret: null,
    private_key: undefined, payload: true, note: `a key sk_test_ABCDEFGH12 and a jwt ${jwt} inside text`, empty: '', list: [1, 'two', null, { image_base64: 'AAAA' }],
    nested: deep(14),
  }, '{"API_KEY":"[redacted]","Account_Name_TH":"นาย ท***","ACCOUNT_NUMBER":"xxxxxx7890","PromptPay_Id":"xxxxxx5678","account_name_en":"John S***","api_\u212Aey":"kelvin sign is not k for a /i pattern","Token":"[redacted]","signature":"[redacted]","password":"[redacted]","secret":null,"payload":"[redacted]","note":"a key [redacted] and a jwt [redacted] inside text","empty":"","list":[1,"two",null,{"image_base64":"[redacted]"}],"nested":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":"[redacted]"}}}}}}}}}}}}}'],
  ['plain text', 'plain text with sk_live_abcdefghijkl in it', '"plain text with [redacted] in it"'],
  ['a JSON text', '{"api_key":"sk_live_abcdefghijkl","amount_minor":1}', '{"api_key":"[redacted]","amount_minor":1}'],
  ['a body past the limit, cut inside a Thai letter', { memo: 'ก'.repeat(700), api_key: 'x' }, `{"memo":"${'ก'.repeat(679)}…[truncated]`],
  ['an array', [{ token: 'abc' }, 'eyJabcdefghij.klmnopqrstu.vw'], '[{"token":"[redacted]"},"[redacted]"]'],
  // A slip upload token is two parts (claims "." signature), not a JWT's three.
  ['a slip upload token pasted into a note', { note: `token was ${slipToken} ok` }, '{"note":"token was [redacted] ok"}'],
  // An account number typed into free text is masked as the API masks one; a transfer's reference and an id's digits are not.
  ['account digits in free text', { note: 'โทรหาคุณสมชาย บัญชี 9876543210 และ 123-4-56789-0 วันที่ 2026-11-30', q: '9876543210', trans_ref: '202611301234567890', deposit_id: 'dep_0123456789012ABCDEFGHJKM' },
    '{"note":"โทรหาคุณสมชาย บัญชี xxxxxx3210 และ xxxxxx7890 วันที่ 2026-11-30","q":"xxxxxx3210","trans_ref":"202611301234567890","deposit_id":"dep_0123456789012ABCDEFGHJKM"}'],
  ['a number', 42, '42'],
  ['no body', undefined, null],
  ['an empty string', '', null],
  ['bytes', Buffer.from('abc'), '[binary 3 bytes]'],
];

for (const [name, body, stored] of cases) {
  test(`${name}: stored as before`, () => {
    assert.is(bodyForLog(body), stored);
  });
}

test("a webhook endpoint's URL keeps its scheme and host, not the secret a provider put in its path, a merchant's token in its query or its user and password", () => {
  const kept = JSON.parse(bodyForLog({ url: 'https://hooks.example.com/satang?token=s3cr3t-v4lue&env=prod', endpoint_url: 'https://u:pw@hooks.example.com/p', other: 'https://x.example/?a=1' })!);
  assert.equal(kept, { url: 'https://hooks.example.com/[redacted]?[redacted]', endpoint_url: 'https://hooks.example.com/[redacted]', other: 'https://x.example/?a=1' });
  assert.is(JSON.parse(bodyForLog({ url: 'https://hooks.example.com/services/T000/B000/XXXXSECRETPATH' })!).url, 'https://hooks.example.com/[redacted]', 'a Slack-style path');
  assert.is(JSON.parse(bodyForLog({ url: 'https://hooks.example.com/' })!).url, 'https://hooks.example.com/', 'a bare origin is kept whole');
  assert.is(JSON.parse(bodyForLog({ url: 'https://hooks.example.com/?token=x' })!).url, 'https://hooks.example.com/?[redacted]');
  assert.is(JSON.parse(bodyForLog({ url: 'not a url sk_live_abcdefghijkl' })!).url, '[redacted]', 'no host: nothing of it kept');
  // Refused as no URL, yet logged: what comes after the host is still a secret, and so is a host part that is no host.
  assert.is(JSON.parse(bodyForLog({ url: 'hooks.example.com/services/T000/XXXXSECRETPATH' })!).url, 'hooks.example.com/[redacted]');
  assert.is(JSON.parse(bodyForLog({ url: 'https://hooks example.com/services/XXXXSECRETPATH' })!).url, 'https://[redacted]/[redacted]');
  assert.is(JSON.parse(bodyForLog({ url: 'http://127.0.0.1:47853;SEMISECRET5' })!).url, 'http://[redacted]');
  assert.is(JSON.parse(bodyForLog({ url: 'http://user:pw@hooks.example.com:8080 /p' })!).url, 'http://[redacted]/[redacted]', 'a space in the host part: no host kept, nor its user and password');
  // A scheme the URL standard does not know parses with an opaque host, whatever it holds: kept only when it looks like a host.
  assert.is(JSON.parse(bodyForLog({ url: 'x://hooks;SEMISECRET5' })!).url, 'x://[redacted]', 'an unknown scheme\'s host that is no host');
  assert.is(JSON.parse(bodyForLog({ url: 'htps://hooks.example.com{SEMISECRET5}/p' })!).url, 'htps://[redacted]/[redacted]');
  assert.is(JSON.parse(bodyForLog({ url: 'htps://hooks.example.com:8443/p?q' })!).url, 'htps://hooks.example.com:8443/[redacted]?[redacted]', 'one that looks like a host is kept');
  assert.is(JSON.parse(bodyForLog({ url: 'file:///etc/p' })!).url, 'file:///[redacted]', 'no host at all');
  for (const url of ['x://[redacted]', 'htps://[redacted]/[redacted]', 'file:///[redacted]']) assert.is(JSON.parse(bodyForLog({ url })!).url, url, `${url} redacted again is unchanged`);
});

test("a name's first word, which its mask keeps, keeps no secret pasted there", () => {
  assert.is(bodyForLog({ account_name: 'sk_live_abcdefgh12 Somchai' }), '{"account_name":"[redacted] S***"}');
  assert.is(bodyForLog({ account_name_th: `${jwt} x` }), '{"account_name_th":"[redacted] x***"}');
  assert.is(bodyForLog({ account_name: '[redacted] S***' }), '{"account_name":"[redacted] S***"}', 'redacted again, unchanged');
});

test('a path keeps no slip upload token and no account number, and an id keeps its digits', () => {
  assert.is(redactPath(`/v1/pay/deposits/${slipToken}`), '/v1/pay/deposits/[redacted]');
  // Percent-encoded, the same token: its dot as %2E, its "e" as %65; a stray % beside it does not stop the decoding.
  assert.is(redactPath(`/v1/pay/deposits/${slipToken.replace('.', '%2E')}`), '/v1/pay/deposits/[redacted]');
  assert.is(redactPath(`/v1/bo/deposits/%65${slipToken.slice(1)}?x=%ZZ`), '/v1/bo/deposits/[redacted]?x=%ZZ');
  assert.is(redactPath('/v1/bo/search/1234567890'), '/v1/bo/search/xxxxxx7890');
  assert.is(redactPath('/v1/pay/deposits/dep_0123456789012ABCDEFGHJKM'), '/v1/pay/deposits/dep_0123456789012ABCDEFGHJKM');
});

test('an account number glued after an underscore is masked; an id the service mints keeps every character', () => {
  const kept = JSON.parse(bodyForLog({
    note: 'paid from acct_1234567890, see ref_0123456789 and ktb_123-4-56789-0_th', memo: 'acct_98765432109876543210',
    short: 'batch_12345678', ids: ['dep_01M8B1EM9WYNKD31GJRG7PJ20X', 'wdr_0123456789012ABCDEFGHJKM', 'mch_01JD0000000000000000000000', `evt_${'0'.repeat(26)}`],
  })!);
  assert.equal(kept, {
    note: 'paid from acct_xxxxxx7890, see ref_xxxxxx6789 and ktb_xxxxxx7890_th', memo: 'acct_xxxxxxxxxxxxxxxx3210',
    short: 'batch_12345678', ids: ['dep_01M8B1EM9WYNKD31GJRG7PJ20X', 'wdr_0123456789012ABCDEFGHJKM', 'mch_01JD0000000000000000000000', `evt_${'0'.repeat(26)}`],
  });
  assert.is(redactPath('/v1/bo/search/acct_1234567890'), '/v1/bo/search/acct_xxxxxx7890');
  assert.is(redactPath('/v1/bo/merchants/mch_01JD0000000000000000000000'), '/v1/bo/merchants/mch_01JD0000000000000000000000');
});

test.run();
