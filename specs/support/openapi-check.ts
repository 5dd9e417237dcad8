// Every answer a spec receives through the shared request helpers (TestServer.raw and so
// call/bo, the slip harness's upload) is checked against the committed OpenAPI document
// (docs/openapi.json, kept equal to the generated one by specs/server/openapi.int.spec.ts),
// so the document cannot drift from the service:
//   - an error status (4xx/5xx) carries the Error schema's body, with a code the catalogue
//     answers with that very status, and the status is one the operation declares;
//   - a success status is declared by the operation the path and method match, and a JSON
//     body validates against that response's schema.
// HEAD and OPTIONS answers (no body) and the development-only bank simulator are not checked.

import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { catalogue } from '../../server/errors.ts';
import type { ErrorCode } from '../../core/errors.ts';

type Json = Record<string, any>;

const docFile = new URL('../../docs/openapi.json', import.meta.url).pathname;
const docId = 'openapi.json';

let loaded: { doc: Json; ajv: Ajv2020; templates: { path: string; pattern: RegExp; params: number }[] } | undefined;
const compiled = new Map<string, ValidateFunction>();

function load(): NonNullable<typeof loaded> {
  if (loaded) return loaded;
  const doc = JSON.parse(readFileSync(docFile, 'utf8')) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('date-time', true);
  ajv.addFormat('uri', { type: 'string', validate: (s: string) => URL.canParse(s) });
  ajv.addSchema(doc, docId);
  const templates = Object.keys(doc.paths).map((path) => ({
    path,
    pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    params: (path.match(/\{/g) ?? []).length,
  })).sort((a, b) => a.params - b.params); // a literal path wins over a template
  loaded = { doc, ajv, templates };
  return loaded;
}

const pointer = (...parts: string[]): string => `${docId}#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

function validatorAt(ref: string): ValidateFunction {
  let v = compiled.get(ref);
  if (!v) compiled.set(ref, (v = load().ajv.compile({ $ref: ref })));
  return v;
}

export interface CheckedReply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
}

/** The errors of `value` against the document's component schema `name` (empty when it validates). */
export function componentErrors(name: string, value: unknown): string[] {
  const v = validatorAt(pointer('components', 'schemas', name));
  return v(value) ? [] : (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

/** Throws when `reply` to `method pathWithQuery` is not what the document says. */
export function checkAgainstOpenApi(method: string, pathWithQuery: string, reply: CheckedReply): void {
  const upper = method.toUpperCase();
  const path = pathWithQuery.split('?')[0]!;
  // Not the API: the bank simulator, the development OpenID provider (its discovery document
  // describes it) and the console's static pages.
  if (upper === 'HEAD' || upper === 'OPTIONS' || /^\/(v1\/sim|oidc|console)(\/|$)/.test(path)) return;
  const { doc, templates } = load();
  const template = templates.find((t) => t.pattern.test(path))?.path;
  const operation = template === undefined ? undefined : doc.paths[template][upper.toLowerCase()] as Json | undefined;
  const where = `${upper} ${path} → ${reply.status}`;
  const fail = (why: string): never => { throw new Error(`OpenAPI (docs/openapi.json): ${where}: ${why}\n${reply.text.slice(0, 600)}`); };

  checkRequiredHeaders(doc, operation, reply, fail);
  if (reply.status >= 400) {
    const validate = validatorAt(pointer('components', 'schemas', 'Error'));
    if (!validate(reply.json)) fail(`not the error object: ${JSON.stringify(validate.errors)}`);
    const code = (reply.json as Json).error.code as ErrorCode;
    if (catalogue[code].status !== reply.status) fail(`${code} is catalogued with ${catalogue[code].status}`);
    if (operation && !operation.responses[String(reply.status)]) fail('the operation does not declare this status');
    return;
  }
  if (!operation) return fail('no operation in the document has this path and method');
  const status = operation.responses[String(reply.status)] ? String(reply.status) : operation.responses[`${String(reply.status)[0]}XX`] ? `${String(reply.status)[0]}XX` : fail('the operation does not declare this status');
  const content = operation.responses[status].content as Json | undefined;
  if (!content?.['application/json']) return;
  const contentType = reply.headers.get('content-type') ?? '';
  if (Object.keys(content).some((type) => type !== 'application/json' && contentType.startsWith(type))) return; // another declared media type (CSV)
  if (!/^application\/json/.test(contentType)) fail(`declared JSON, answered ${reply.headers.get('content-type')}`);
  const validate = validatorAt(pointer('paths', template!, upper.toLowerCase(), 'responses', status, 'content', 'application/json', 'schema'));
  if (!validate(reply.json)) fail(`body does not match its schema: ${JSON.stringify(validate.errors?.slice(0, 5))}`);
}

/** The headers the document marks required on this answer (Request-Id on every one) are present and match their schema. */
function checkRequiredHeaders(doc: Json, operation: Json | undefined, reply: CheckedReply, fail: (why: string) => never): void {
  const declared = operation?.responses[String(reply.status)] ?? operation?.responses[`${String(reply.status)[0]}XX`];
  const response = declared?.$ref ? doc.components.responses[String(declared.$ref).split('/').pop()!] : declared;
  const headers = (response?.headers ?? { 'Request-Id': { $ref: '#/components/headers/Request-Id' } }) as Record<string, Json>;
  for (const [name, header] of Object.entries(headers)) {
    const spec = header.$ref ? doc.components.headers[String(header.$ref).split('/').pop()!] : header;
    if (!spec.required) continue;
    const value = reply.headers.get(name);
    if (value === null) fail(`the ${name} header is missing`);
    if (spec.schema?.pattern && !new RegExp(spec.schema.pattern).test(value!)) fail(`${name}: ${value} does not match ${spec.schema.pattern}`);
  }
}
