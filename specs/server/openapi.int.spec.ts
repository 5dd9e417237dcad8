// The OpenAPI document (server/openapi/): served at GET /v1/openapi.json equal to the
// committed docs/openapi.json (regenerate with `npm run openapi`), valid OpenAPI 3.1 by a
// standard validator, built from the routes' own ajv schemas, with every error code under
// its status, an example for every operation that validates against its schema, and a
// response checker (used by every HTTP spec through the harness) that refuses answers the
// document does not describe.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { TestServer } from '../support/server-harness.ts';
import { checkAgainstOpenApi } from '../support/openapi-check.ts';
import { catalogue } from '../../server/errors.ts';
import { createDepositBody } from '../../server/schemas.ts';
import { operations } from '../../server/openapi/operations.ts';
import { routesOf } from '../../server/openapi/document.ts';
import { openApiFile, serialise } from '../../scripts/openapi.ts';

let s: TestServer;
test.before(async () => { s = await TestServer.start(); });
test.after(async () => { await s.stop(); });

const committed = () => readFileSync(openApiFile, 'utf8');
type Json = Record<string, any>;

test('GET /v1/openapi.json serves exactly the committed docs/openapi.json (run `npm run openapi` after changing routes or schemas)', async () => {
  const r = await s.raw('GET', '/v1/openapi.json');
  assert.is(r.status, 200);
  assert.is(serialise(r.json), committed(), 'docs/openapi.json is out of date: run npm run openapi');
});

test('the document is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)', async () => {
  const doc = JSON.parse(committed());
  assert.is(doc.openapi, '3.1.0');
  const result = await new Validator().validate(doc);
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2)?.slice(0, 2000));
});

test("a deposit's verification is six booleans, as the contract has it (a generated client must not be told a check may be a string)", () => {
  const verification = JSON.parse(committed()).components.schemas.DepositOrder.properties.verification;
  const checks = ['amount_exact', 'within_time_window', 'sender_bank_match', 'sender_account_match', 'sender_name_match', 'receiver_match'];
  assert.equal(Object.keys(verification.properties).sort(), [...checks].sort());
  for (const check of checks) assert.equal(verification.properties[check], { type: 'boolean' }, check);
});

test('request bodies are the very schemas the routes validate with', () => {
  const doc = JSON.parse(committed());
  const op = doc.paths['/v1/pay/deposits'].post;
  assert.equal(op.requestBody.content['application/json'].schema, createDepositBody.schema);
  assert.equal(op.security, [{ MerchantHmac: [] }]);
  const names = op.parameters.map((p: Json) => p.$ref?.split('/').pop());
  for (const header of ['PgTimestamp', 'PgNonce', 'PgVersion', 'PgSignature', 'IdempotencyKey']) assert.ok(names.includes(header), header);
});

test('every route the app registers is described in server/openapi/operations.ts', () => {
  const undescribed = routesOf(s.running.app).map((r) => `${r.method} ${r.path}`).filter((k) => operations[k] === undefined);
  assert.equal(undescribed, [], 'add a row for each to server/openapi/operations.ts');
});

test('the back office lists take exactly the query parameters the document gives them', async () => {
  const doc = JSON.parse(committed());
  const sample = (schema: Json): string => schema.enum?.[0] ?? (schema.format === 'date-time' ? '2026-01-01T00:00:00Z'
    : schema.pattern?.startsWith('^[1-5]') ? '200' : schema.pattern ? '1' : 'x');
  const lists = ['/v1/bo/deposits', '/v1/bo/withdrawals', '/v1/bo/claims', '/v1/bo/logs', '/v1/bo/reports/action-logs', '/v1/bo/dashboard', '/v1/bo/wallet', '/v1/bo/merchants', '/v1/bo/white-labels'];
  for (const path of lists) {
    const params: Json[] = (doc.paths[path].get.parameters ?? []).filter((p: Json) => p.in === 'query');
    assert.ok(params.length > 0, `${path} documents its query parameters`);
    for (const p of params) {
      const r = await s.bo('GET', `${path}?${p.name}=${encodeURIComponent(sample(p.schema))}`);
      const unknown = (r.json?.error?.details?.fields ?? []).filter((f: Json) => f.reason === 'unknown_field');
      assert.equal(unknown, [], `${path} takes ${p.name}, as documented: ${r.text.slice(0, 300)}`);
    }
    const undocumented = await s.bo('GET', `${path}?not_a_parameter=1`);
    assert.is(undocumented.json?.error?.details?.fields?.[0]?.reason, 'unknown_field', `${path}: ${undocumented.text.slice(0, 200)}`);
    // The refusal names what the route takes: the same names as the document, no more.
    const takes = /this route takes (.*)\.$/.exec(undocumented.json.error.message)?.[1]?.split(', ') ?? [];
    assert.equal([...takes].sort(), params.map((p) => p.name).sort(), `${path}: the route's parameters and the document's`);
  }
  // A route that takes none says so (it said "this route takes ."), and a cursor there gets no paging hint it cannot use.
  const none = await s.bo('GET', '/v1/bo/deposits/dep_nope?cursor=x');
  assert.match(none.json.error.message, /this route takes no query parameters\.$/);
  assert.is(none.json.error.details.fields[0].hint, undefined);
  // A parameter the route requires is required in the document, and missing it is refused.
  const wallet = doc.paths['/v1/bo/wallet'].get.parameters.find((p: Json) => p.name === 'merchant_id');
  assert.is(wallet.required, true);
  assert.is((await s.bo('GET', '/v1/bo/wallet')).json.error.details.fields[0].reason, 'required');
  // A typo in an enumerated filter is refused rather than answered with an empty list.
  assert.is((await s.bo('GET', '/v1/bo/deposits?reason=AMOUNT_MISMATCHH')).json.error.details.fields[0].reason, 'enum');
});

test('every catalogued error code is listed under its own status, with an example', () => {
  const doc = JSON.parse(committed());
  for (const [code, entry] of Object.entries(catalogue)) {
    const response = doc.components.responses[`Error${entry.status}`];
    assert.ok(response, `Error${entry.status}`);
    const codes = response.content['application/json'].schema.allOf[1].properties.error.properties.code.examples;
    assert.ok(codes.includes(code), `${code} under ${entry.status}`);
    assert.is(response.content['application/json'].schema.allOf[1].properties.error.properties.code.enum, undefined, 'error.code is an open string: a code added later validates');
    assert.is(response.content['application/json'].examples[code].value.error.code, code);
    for (const [otherStatus, other] of Object.entries(doc.components.responses as Json)) {
      if (otherStatus !== `Error${entry.status}`) assert.not.ok(other.content['application/json'].schema.allOf[1].properties.error.properties.code.examples.includes(code), `${code} only under ${entry.status}`);
    }
  }
  assert.ok(doc.components.securitySchemes.MerchantHmac.description.includes('nine lines'), 'the canonical string is described');
  assert.ok(doc.components.securitySchemes.SlipCapability && doc.components.securitySchemes.OperatorBearer);
});

test('every operation has an example, and every example validates against its schema', () => {
  const doc = JSON.parse(committed());
  const ajv = new Ajv2020({ strict: false });
  ajv.addFormat('date-time', true);
  ajv.addFormat('uri', true);
  ajv.addSchema(doc, 'openapi.json');
  let checked = 0;
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const media: [string, Json][] = [];
      if (op.requestBody) media.push([`${method} ${path} request`, op.requestBody.content['application/json']]);
      for (const [status, response] of Object.entries(op.responses as Json)) {
        for (const [type, m] of Object.entries((response.content ?? {}) as Json)) if (m.example !== undefined) media.push([`${method} ${path} ${status} ${type}`, m]);
      }
      const parameterExamples = (op.parameters as Json[]).filter((p) => p.example !== undefined);
      assert.ok(media.length + parameterExamples.length > 0, `${method} ${path} has an example`);
      for (const [where, m] of media) {
        const validate = ajv.compile(m.schema.$ref ? { $ref: `openapi.json${m.schema.$ref}` } : m.schema);
        assert.ok(validate(m.example), `${where}: ${JSON.stringify(validate.errors)}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 50, `${checked} examples checked`);
});

test('the response check refuses what the document does not describe', async () => {
  const keys = await s.onboard();
  const good = await s.call(keys.sandbox.api_key, 'GET', '/v1/pay/balance'); // checked by the harness already
  assert.is(good.status, 200);
  const withoutField = { ...good.json };
  delete withoutField.available_minor;
  assert.throws(() => checkAgainstOpenApi('GET', '/v1/pay/balance', { ...good, json: withoutField }), /does not match its schema/);
  assert.throws(() => checkAgainstOpenApi('GET', '/v1/pay/balance', { ...good, status: 201 }), /does not declare this status/);
  assert.throws(() => checkAgainstOpenApi('GET', '/v1/pay/nowhere', good), /no operation/);
  assert.throws(() => checkAgainstOpenApi('GET', '/v1/pay/balance', { ...good, headers: new Headers() }), /Request-Id header is missing/);
  const notFound = await s.call(keys.sandbox.api_key, 'GET', '/v1/pay/deposits/dep_missing');
  assert.is(notFound.status, 404);
  assert.throws(() => checkAgainstOpenApi('GET', '/v1/pay/deposits/dep_missing', { ...notFound, status: 409 }), /catalogued with 404/);
  assert.throws(() => checkAgainstOpenApi('GET', '/v1/pay/deposits/dep_missing', { ...notFound, json: { error: { code: 'resource_not_found' } } }), /not the error object/);
});

test.run();
