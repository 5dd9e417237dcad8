import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger, redactCensor } from '../../server/log.ts';
import { captureLogger } from './support.ts';
import { redactPath } from '../../server/secret-text.ts';

const secrets = {
  apiKey: 'sk_live_SECRETAPIKEY000000000000',
  signature: 'v1=5ecre75ecre75ecre75ecre75ecre75ecre75ecre75ecre75ecre75ecre7ab',
  stepUp: 'eyJSTEPUPTOKEN.payload.sig',
  slipToken: 'SLIPTOKEN_ed25519_capability',
  qr: '00020101021129370016A000000677010111SECRETQR',
  accountNumber: '9876543210',
  accountName: 'นายสมชาย ลับมาก',
  accountNameEn: 'Somchai Secret',
  imageBase64: 'iVBORw0KGgoSECRETIMAGE',
};

function logged(write: (logger: ReturnType<typeof createLogger>) => void): string {
  const captured = captureLogger('info');
  write(captured.logger);
  return captured.text();
}

test('request headers with credentials are redacted, other headers kept', () => {
  const text = logged((logger) =>
    logger.info({
      req: {
        method: 'POST',
        headers: {
          authorization: `Bearer ${secrets.apiKey}`,
          'pg-signature': secrets.signature,
          'x-pg-step-up-token': secrets.stepUp,
          'pg-nonce': 'nonce-visible',
        },
      },
    }, 'request'),
  );
  for (const secret of [secrets.apiKey, secrets.signature, secrets.stepUp]) assert.not.match(text, secret);
  assert.match(text, 'nonce-visible');
  assert.match(text, redactCensor);
});

test('headers a client builds (canonical case) are redacted too', () => {
  const text = logged((logger) => logger.info({ headers: { Authorization: `Bearer ${secrets.apiKey}`, 'PG-Signature': secrets.signature } }, 'call'));
  assert.not.match(text, secrets.apiKey);
  assert.not.match(text, secrets.signature);
});

test('slip tokens, QR payloads, images, account numbers and names are redacted at any depth up to the limit', () => {
  const text = logged((logger) =>
    logger.info({
      token: secrets.slipToken,
      res: {
        body: {
          slip_upload: { token: secrets.slipToken, upload_url: 'https://upload.example/x' },
          legs: [{ qr_payload: secrets.qr, receiver: { account_number_masked: 'xxx-x-x3210-x' } }],
          sender: { account_number: secrets.accountNumber, account_name_th: secrets.accountName, account_name_en: secrets.accountNameEn },
        },
      },
      evidence: { image_base64: secrets.imageBase64 },
      transfer: { receiver: { account_name: secrets.accountName } },
    }, 'response'),
  );
  for (const secret of Object.values(secrets)) assert.not.match(text, secret);
  assert.match(text, 'xxx-x-x3210-x', 'masked values stay readable');
  assert.match(text, 'https://upload.example/x');
});

test('every key the request log redacts or masks is redacted in a log line too: a PromptPay id, a password, a signing secret, a private key', () => {
  const more = { promptpay: '0812345678', password: 'hunter2-SECRET', signing: 'whsec_SECRETSIGNING', privateKey: 'MC4CAQAwBQYDK2VwSECRETKEY', content: 'JVBERi0SECRETPDF' };
  const text = logged((logger) => logger.warn({ beneficiary: { promptpay_id: more.promptpay }, operator: { password: more.password },
    endpoint: { signing_secret: more.signing }, key: { private_key: more.privateKey }, evidence: { content_base64: more.content } }, 'a line'));
  for (const secret of Object.values(more)) assert.not.match(text, secret);
  assert.match(text, redactCensor);
});

test('child logger bindings are redacted as well', () => {
  const text = logged((logger) => logger.child({ slip: { token: secrets.slipToken } }).info('child'));
  assert.not.match(text, secrets.slipToken);
});

test('level comes from SATANG_LOG_LEVEL, default info; silent writes nothing', () => {
  const saved = process.env.SATANG_LOG_LEVEL;
  try {
    delete process.env.SATANG_LOG_LEVEL;
    assert.is(createLogger({ destination: { write: () => undefined } }).level, 'info');
    process.env.SATANG_LOG_LEVEL = 'debug';
    assert.is(createLogger({ destination: { write: () => undefined } }).level, 'debug');
    process.env.SATANG_LOG_LEVEL = 'silent';
    let written = '';
    createLogger({ destination: { write: (s: string) => { written += s; } } }).error('nothing');
    assert.is(written, '');
    process.env.SATANG_LOG_LEVEL = 'loud';
    assert.throws(() => createLogger(), /SATANG_LOG_LEVEL/);
  } finally {
    if (saved === undefined) delete process.env.SATANG_LOG_LEVEL;
    else process.env.SATANG_LOG_LEVEL = saved;
  }
});

test('a path keeps its ids and loses what was pasted into it: secrets replaced, account numbers masked to their last four', () => {
  assert.is(redactPath('/v1/pay/deposits/dep_01M8MWRNT3MQREPZACJD06KEPX/slip'), '/v1/pay/deposits/dep_01M8MWRNT3MQREPZACJD06KEPX/slip');
  assert.is(redactPath(`/v1/pay/deposits/${secrets.apiKey}`), '/v1/pay/deposits/[redacted]');
  assert.is(redactPath('/x/9876543210/987-6-54321-0/98 7654 3210'), '/x/xxxxxx3210/xxxxxx3210/xxxxxx3210');
  assert.is(redactPath('/v1/pay/deposits/12345678'), '/v1/pay/deposits/12345678', 'eight digits are no account number');
});

test.run();
