// The console's words and numbers, run in node on the very browser modules
// (console/i18n.js, console/format.js): both languages have every key with the same
// placeholders, every t('key') the pages write exists, every code the server's tables can
// hand a label (statuses, claim kinds and transitions, reversal and review reasons, timeline steps,
// balance transaction types) has one in both languages; baht is exact from integer satang by string arithmetic
// (0, one satang, negatives, 2^53 − 1, sums beyond it as decimal text, and a property
// against an independent reading), amounts typed as baht read back exactly, and times are
// Bangkok's with the UTC instant kept for the title.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { claimKinds, claimStatuses } from '../../core/claim/state.ts';
import { claimTransitions } from '../../core/claim/decide.ts';
import { depositStatuses, reversalReasonCodes } from '../../core/deposit/state.ts';
import { reasonTexts } from '../../core/deposit/reasons.ts';
import { balanceTransactionTypes } from '../../core/ledger/ledger.ts';
import { readableLength } from '../../core/note.ts';
import { statementDescriptionTh } from '../../core/finance/statement.ts';
import { schemas } from '../../server/openapi/components.ts';
import { operatorRoles } from '../../server/auth/roles.ts';
import { operations } from '../../server/openapi/operations.ts';
import { errorCodes } from '../../core/errors.ts';

const consoleDir = new URL('../../console/', import.meta.url).pathname;
// Plain browser modules (no types): imported by URL so the type checker leaves them alone.
const i18n = await import(new URL('../../console/i18n.js', import.meta.url).href);
const format = await import(new URL('../../console/format.js', import.meta.url).href);
const th: Record<string, string> = i18n.dictionaries.th;
const en: Record<string, string> = i18n.dictionaries.en;

function sources(dir = consoleDir): { file: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith('.js') && !e.name.startsWith('i18n') ? [{ file: full.slice(consoleDir.length), text: readFileSync(full, 'utf8') }] : [];
  });
}

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test('no key is written twice in a dictionary (the later would silently win)', () => {
  for (const file of ['i18n-en.js', 'i18n-th.js']) {
    const keys = [...readFileSync(join(consoleDir, file), 'utf8').matchAll(/^\s*'([^']+)':/gm)].map((m) => m[1]!);
    assert.equal(keys.filter((k, i) => keys.indexOf(k) !== i), [], file);
  }
});

test('Thai and English have the same keys, none empty, with the same placeholders', () => {
  assert.equal(Object.keys(th).sort(), Object.keys(en).sort());
  for (const key of Object.keys(en)) {
    assert.ok(th[key]!.trim() !== '' && en[key]!.trim() !== '', `${key} is empty`);
    assert.equal(placeholders(th[key]!), placeholders(en[key]!), `${key}: placeholders differ`);
  }
  assert.ok(Object.keys(en).length > 300, 'the whole console is labelled');
});

test('every t(\'key\') written in console/ is in both dictionaries', () => {
  const used = new Set<string>();
  for (const { text } of sources()) for (const m of text.matchAll(/\bt\('([^']+)'/g)) used.add(m[1]!);
  assert.ok(used.size > 200, `found ${used.size} keys`);
  const missing = [...used].filter((k) => !(k in en) || !(k in th));
  assert.equal(missing, [], `missing: ${missing.join(', ')}`);
});

test('every code the server can hand the page has a label in both languages', () => {
  const timeline = readFileSync(new URL('../../server/routes/bo-timeline.ts', import.meta.url), 'utf8');
  const steps = [...new Set([...timeline.matchAll(/step: '(\w+)'/g)].map((m) => m[1]!))];
  const outcomes = [...new Set([...timeline.matchAll(/outcome: '(\w+)'/g)].map((m) => m[1]!))];
  const decisions = [...new Set([...timeline.matchAll(/decision: '(\w+)'/g)].map((m) => m[1]!))];
  assert.ok(steps.length > 15, `timeline steps found: ${steps.join(', ')}`);
  // A dispute's reason is the operator's code: the ones the service opens disputes with (the sandbox's), and the examples the form and the API's documentation give.
  const sandbox = readFileSync(new URL('../../core/handler/sandbox.ts', import.meta.url), 'utf8');
  const disputeReasons = [
    ...[...sandbox.matchAll(/type: 'DisputeFills'[^\n]*reasonCode: '(\w+)'/g)].map((m) => m[1]!),
    (operations['POST /v1/bo/withdrawals/:id/disputes']!.example as { reason_code: string }).reason_code,
    ...[en, th].map((d) => /(\w+)$/.exec(d['dispute.reasonExample']!)![1]!),
  ];
  assert.ok(disputeReasons.includes('ALLOCATION_CONFLICT'), `dispute reasons found: ${disputeReasons.join(', ')}`);
  // Why a withdrawal was rejected or canceled, and who canceled it (the withdrawal's page showed the codes).
  const withdrawalDecide = readFileSync(new URL('../../core/withdrawal/decide.ts', import.meta.url), 'utf8');
  const withdrawalState = readFileSync(new URL('../../core/withdrawal/state.ts', import.meta.url), 'utf8');
  const quoted = (text: string) => [...text.matchAll(/'(\w+)'/g)].map((m) => m[1]!);
  const cancelReasons = [...withdrawalDecide.matchAll(/type: 'WithdrawalCanceled'.*?reasonCode:([^,]*),/g)].flatMap((m) => quoted(m[1]!.replace(/^.*\?/, ''))); // a ternary's answers, not what it asks
  const cancelers = quoted(/type: 'WithdrawalCanceled'; readonly at: number; readonly by: ([^;]+);/.exec(withdrawalState)![1]!);
  const rejections = [...withdrawalState.matchAll(/rejection = \{ code: '(\w+)'/g)].map((m) => m[1]!);
  assert.ok(['merchant_request', 'operator_request', 'approval_ttl_expired', 'system', 'rejected_by_operator'].every((c) => [...cancelReasons, ...cancelers, ...rejections].includes(c)),
    `found ${cancelReasons.join(', ')}; ${cancelers.join(', ')}; ${rejections.join(', ')}`);
  const keys = [
    ...depositStatuses.map((s) => `status.${s}`),
    ...['pending_approval', 'open', 'partially_filled', 'settled', 'expired', 'canceled', 'rejected'].map((s) => `status.${s}`),
    ...['pending', 'delivered', 'failed', 'canceled', 'enabled', 'disabled', 'retry', 'permanent', 'in_flight', 'interrupted'].map((s) => `status.${s}`),
    ...claimStatuses.map((s) => `claimStatus.${s}`), ...claimKinds.map((k) => `claimKind.${k}`),
    ...Object.keys(claimTransitions).map((tr) => `claims.t.${tr}`), ...reversalReasonCodes.map((c) => `reversal.${c}`),
    // Every review reason, and the unreadable slip a deposit may be declined for (the queue and the deposit page showed the API's code).
    ...Object.keys(reasonTexts).map((c) => `reviewReason.${c}`),
    // Every operator role (the header's, the action log's and a refusal's roles showed them as granted).
    ...operatorRoles.map((r) => `role.${r}`),
    ...disputeReasons.map((c) => `disputeReason.${c}`),
    ...cancelReasons.map((c) => `cancelReason.${c}`), ...cancelers.map((b) => `canceledBy.${b}`), ...rejections.map((c) => `withdrawalRejection.${c}`),
    ...steps.map((s) => `step.${s}`),
    // A timeline step's verdict outcome and review decision, and a balance transaction's direction.
    ...outcomes.map((o) => `verdictOutcome.${o}`), ...decisions.map((d) => `decision.${d}`), 'direction.credit', 'direction.debit',
    // A match's source, a settlement's way and a leg's counterparty (core/deposit/state.ts's unions).
    ...['internal', 'external_gateway'].map((s) => `matchSource.${s}`), ...['auto', 'review'].map((v) => `settledVia.${v}`), ...['withdrawal', 'gateway'].map((k) => `counterpartyKind.${k}`),
    ...balanceTransactionTypes.flatMap((type) => [`btxn.type.${type}`, `btType.${type}`]),
    ...['amount', 'time_window', 'sender_bank', 'sender_account', 'sender_name', 'receiver'].map((d) => `dimension.${d}`),
    ...['queue', 'approvals', 'claims', 'merchants', 'statement', 'dashboard'].map((n) => `nav.${n}`),
    ...['d', 'h', 'm', 's'].map((u) => `age.${u}`),
    // Every figure of a white label's fee schedule, as the API names it (the white labels page labels each).
    ...Object.keys((schemas.FeeSchedule as { properties: object }).properties).filter((f) => f.endsWith('_bps') || f.endsWith('_minor')).map((f) => `field.${f}`),
  ];
  const missing = keys.filter((k) => !(k in en) || !(k in th));
  assert.equal(missing, [], `missing: ${missing.join(', ')}`);
});

/** The property names of the object literal that opens at the end of each `start` match (and of the literals inside it). */
function literalKeys(text: string, start: RegExp): string[] {
  const keys: string[] = [];
  for (const m of text.matchAll(start)) {
    const open = m.index! + m[0].length - 1;
    let depth = 0, end = open;
    for (; end < text.length; end++) if (text[end] === '{') depth++; else if (text[end] === '}' && --depth === 0) break;
    for (const k of text.slice(open, end + 1).matchAll(/[{,]\s*([a-z][A-Za-z0-9_]*)\s*(?=[:,}])/g)) keys.push(k[1]!);
  }
  return keys;
}

test('every error code has a sentence in both languages for the refusal banner (the Thai one pointed operators at details.fields)', () => {
  for (const code of errorCodes) for (const [lang, d] of [['th', th], ['en', en]] as const) assert.ok(d[`refusal.${code}`], `${lang} refusal.${code}`);
  for (const code of errorCodes) assert.not.ok(/details\.|_minor|message/.test(th[`refusal.${code}`]!), `refusal.${code} names no API field`);
});

/** Every property a JSON schema names, nested objects' and array items' too (a refusal's path ends in one). */
function schemaPropertyNames(schema: unknown, into = new Set<string>()): Set<string> {
  if (!schema || typeof schema !== 'object') return into;
  const s = schema as { properties?: Record<string, unknown>; items?: unknown; oneOf?: unknown[]; anyOf?: unknown[]; allOf?: unknown[] };
  for (const [name, sub] of Object.entries(s.properties ?? {})) schemaPropertyNames(sub, into.add(name));
  for (const sub of [s.items, ...(s.oneOf ?? []), ...(s.anyOf ?? []), ...(s.allOf ?? [])]) schemaPropertyNames(sub, into);
  return into;
}

test("the refusal banner names every field an operator's form can post, by one table in both languages (only three forms had Thai names for theirs)", () => {
  const posted = new Set<string>();
  for (const [route, op] of Object.entries(operations)) if (op.auth === 'operator' && route.startsWith('POST ')) schemaPropertyNames(op.body?.schema, posted);
  for (const f of ['reason', 'technical_contact_email', 'notice_seconds', 'respond_by', 'created_after', 'deposit_processing_fee_bps', 'legs', 'leg_ref']) assert.ok(posted.has(f), `found ${[...posted].join(', ')}`);
  const missing = [...posted].map((f) => `field.${f}`).filter((k) => !(k in en) || !(k in th));
  assert.equal(missing, [], `missing: ${missing.join(', ')}`);
  // The banner reads that table for a path as the server writes it (an array item's by index), and a form's own label first.
  i18n.setLanguage('th');
  const refusal = (paths: string[], fieldLabels?: Record<string, string>) => i18n.refusalFieldLabels({ details: { fields: paths.map((path) => ({ path, reason: 'x' })) }, fieldLabels });
  assert.equal(refusal(['technical_contact_email', 'legs.0.amount_minor', 'query.status']), [th['field.technical_contact_email'], th['field.amount_minor'], th['field.status']]);
  assert.equal(refusal(['reason'], { reason: 'merchantAdmin.suspendReason' }), [th['merchantAdmin.suspendReason']]);
});

test("every field a deposit's timeline or review reason names has a label in both languages (the Thai console showed the API's English names)", () => {
  const timeline = readFileSync(new URL('../../server/routes/bo-timeline.ts', import.meta.url), 'utf8');
  const verification = readFileSync(new URL('../../core/deposit/verification.ts', import.meta.url), 'utf8');
  const fields = new Set([
    ...literalKeys(timeline, /detail: \{/g), // each step's detail
    ...literalKeys(timeline, /function toldLegView\(.*\n\s*return \{/g), // a matched step's legs, their receivers and counterparties
    ...[...timeline.matchAll(/\['(\w+)', '\w+'\]/g)].map((m) => m[1]!), // a verification's verdicts, as the event keeps them
    ...literalKeys(verification, /detail: \{/g), // a review reason's detail
  ]);
  for (const f of ['amount_minor', 'is_late', 'receipt_id', 'account_number_masked', 'amountExact', 'delivery_id', 'expected_minor']) assert.ok(fields.has(f), `found ${[...fields].join(', ')}`);
  const missing = [...fields].map((f) => `field.${f}`).filter((k) => !(k in en) || !(k in th));
  assert.equal(missing, [], `missing: ${missing.join(', ')}`);
});

test("no column is headed by the API's raw name (seq, request_id, ms, kid, ID in the Thai console); each field a page names has a label in both languages", () => {
  const raw = sources().flatMap(({ file, text }) => [...text.matchAll(/<th\b[^>]*>([^<$]*)<\/th>/g)].map((m) => m[1]!.trim()).filter((h) => /[A-Za-z]/.test(h)).map((h) => `${file}: ${h}`));
  assert.equal(raw, [], 'a column headed by a literal, not a label');
  const named = new Set(sources().flatMap(({ text }) => [...text.matchAll(/<\$\{FieldName\} name="(\w+)"/g)].map((m) => m[1]!)));
  for (const f of ['seq', 'request_id', 'duration_ms', 'kid', 'id', 'trans_ref']) assert.ok(named.has(f), `found ${[...named].join(', ')}`);
  const missing = [...named].map((f) => `field.${f}`).filter((k) => !(k in en) || !(k in th));
  assert.equal(missing, [], `missing: ${missing.join(', ')}`);
});

test('t() fills placeholders in the chosen language and label() falls back to the code', () => {
  i18n.setLanguage('en');
  assert.is(i18n.t('note.tooShort', { min: 20, n: 3 }), 'The note needs at least 20 characters; it has 3.');
  i18n.setLanguage('th');
  assert.is(i18n.language(), 'th');
  assert.is(i18n.t('pager.page', { n: 2 }), 'หน้า 2');
  assert.is(i18n.label('status', 'settled'), 'สำเร็จ');
  assert.is(i18n.label('status', 'some_new_status'), 'some_new_status');
  assert.is(i18n.t('no.such.key'), 'no.such.key');
  i18n.setLanguage('xx');
  assert.is(i18n.language(), 'th', 'an unknown language is ignored');
});

test("before an operator chooses, the browser's first preferred language the console has; Thai when it has none", () => {
  assert.is(i18n.browserLanguage(['en-GB', 'th']), 'en');
  assert.is(i18n.browserLanguage(['th-TH', 'en-US']), 'th');
  assert.is(i18n.browserLanguage(['fr-FR', 'EN']), 'en');
  assert.is(i18n.browserLanguage(['fr-FR', 'de']), 'th');
  assert.is(i18n.browserLanguage([]), 'th');
  assert.is(i18n.browserLanguage([undefined]), 'th');
});

test('a run of days that is one whole month is that month; any other run is not', () => {
  assert.is(format.wholeMonthOf('2026-11-01', '2026-11-30'), '2026-11');
  assert.is(format.wholeMonthOf('2024-02-01', '2024-02-29'), '2024-02', 'a leap February');
  assert.is(format.wholeMonthOf('2026-02-01', '2026-02-28'), '2026-02');
  assert.is(format.wholeMonthOf('2026-11-01', '2026-11-29'), undefined);
  assert.is(format.wholeMonthOf('2026-11-02', '2026-11-30'), undefined);
  assert.is(format.wholeMonthOf('2026-11-01', ''), undefined);
});

test('baht from integer satang, exactly, at the edges', () => {
  const cases: [unknown, string][] = [
    [0, '฿0.00'], [1, '฿0.01'], [99, '฿0.99'], [100, '฿1.00'], [-1, '-฿0.01'], [-100_000, '-฿1,000.00'],
    [1_234_567, '฿12,345.67'], [100_000_000, '฿1,000,000.00'], [Number.MAX_SAFE_INTEGER, '฿90,071,992,547,409.91'],
    [-Number.MAX_SAFE_INTEGER, '-฿90,071,992,547,409.91'], [10n ** 20n, '฿1,000,000,000,000,000,000.00'],
    ['123456789012345678901', '฿1,234,567,890,123,456,789.01'], ['-5', '-฿0.05'], ['0', '฿0.00'],
    [1.5, '—'], [2 ** 53, '—'], [Number.NaN, '—'], [null, '—'], [undefined, '—'], ['12.5', '—'], ['', '—'],
  ];
  for (const [minor, text] of cases) assert.is(format.formatBaht(minor), text, String(minor));
});

test('property: reading a formatted amount back gives the same satang (every safe integer)', () => {
  const readBack = (text: string): bigint => {
    const negative = text.startsWith('-');
    const digits = text.replace(/^-?฿/, '');
    assert.match(digits, /^\d{1,3}(,\d{3})*\.\d{2}$/);
    const minor = BigInt(digits.replace(/[,.]/g, ''));
    return negative ? -minor : minor;
  };
  fc.assert(fc.property(fc.maxSafeInteger(), fc.integer({ min: -1_000_000, max: 1_000_000 }), (big, small) => {
    for (const n of [big, small]) assert.is(readBack(format.formatBaht(n)), BigInt(n));
  }), { numRuns: 2000 });
});

test('amounts typed as baht read back as satang without floats', () => {
  const cases: [string, number | null][] = [
    ['0.1', 10], ['0.01', 1], ['1,234.56', 123_456], ['฿ 100', 10_000], ['90071992547409.91', Number.MAX_SAFE_INTEGER],
    ['90071992547409.92', null], ['12.345', null], ['-1', null], ['', null], ['abc', null], ['1e3', null], ['.5', null],
    // A comma only between thousands: a decimal comma (or the key beside the point) is no amount, never a hundred times more.
    ['1,500,000', 150_000_000], ['1500,50', null], ['12,34', null], ['1,50', null], [',500', null], ['1,5000', null], ['1,500,00', null],
  ];
  for (const [text, minor] of cases) assert.is(format.parseBahtToMinor(text), minor, text);
});

test('a fee rate in basis points reads as a percentage, and a percentage typed reads back as basis points, without floats', () => {
  for (const [bps, text] of [[0, '0.00%'], [7, '0.07%'], [150, '1.50%'], [700, '7.00%'], [10_000, '100.00%'], [-1, '—'], [null, '—']] as const) assert.is(format.formatBps(bps), text, String(bps));
  const cases: [string, number | null][] = [['1.5', 150], ['1.50 %', 150], ['0.07', 7], ['3', 300], ['0.1', 10], ['1.555', null], ['-1', null], ['', null], ['1,5', null], ['.5', null]];
  for (const [text, bps] of cases) assert.is(format.parsePercentToBps(text), bps, text);
});

test('times are Bangkok\'s, with the UTC instant in the title; a Bangkok wall time reads back as UTC', () => {
  assert.is(format.formatTime('2026-11-20T17:00:00.000Z'), '2026-11-21 00:00:00');
  assert.is(format.formatTime('2026-11-21T03:04:05Z'), '2026-11-21 10:04:05');
  assert.is(format.formatTime(null), '—');
  assert.is(format.formatTime('not a time'), '—');
  assert.is(format.isoTitle('2026-11-21T03:04:05Z'), '2026-11-21T03:04:05.000Z (UTC)');
  assert.is(format.bangkokToday(Date.UTC(2026, 10, 20, 17, 0, 0)), '2026-11-21');
  assert.is(format.bangkokToday(Date.UTC(2026, 10, 20, 16, 59, 59)), '2026-11-20');
  assert.is(format.bangkokLocalToIso('2026-11-21T10:00'), '2026-11-21T03:00:00.000Z');
  assert.is(format.isoToBangkokLocal('2026-11-21T03:00:00.000Z'), '2026-11-21T10:00');
  assert.is(format.bangkokLocalToIso('yesterday'), null);
  // A typed as-of takes in its whole second: what was posted at 23:59:59.852 is "as of 23:59:59".
  assert.is(format.bangkokLocalEndToIso('2026-11-30T23:59:59'), '2026-11-30T16:59:59.999Z');
  assert.is(format.bangkokLocalEndToIso('2026-11-30T23:59'), '2026-11-30T16:59:00.999Z', 'a value without seconds is the second :00');
  assert.is(format.bangkokLocalEndToIso('nonsense'), null);
});

test('a note is counted as the server counts it (core/note.ts readableLength), for any text', () => {
  assert.is(format.noteLength('  abc  '), 3);
  assert.is(format.noteLength('สวัสดี'), 6);
  assert.is(format.noteLength('😀'.repeat(20)), 20);
  assert.is(format.noteLength(undefined), 0);
  assert.is(format.noteLength('ok                    ok'), 5, 'a run of spaces counts once');
  assert.is(format.noteLength('a\u200B\u200Bb\u2800'), 2, 'what shows as nothing counts nothing');
  fc.assert(fc.property(fc.string({ unit: 'grapheme-composite', maxLength: 40 }), fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\u200B', '\u00A0', '\u2800', 'ก', 'a', '\uFE0F'), maxLength: 40 }), (a, b) => {
    for (const text of [a, b, a + b]) assert.is(format.noteLength(text), readableLength(text), JSON.stringify(text));
  }), { numRuns: 1000 });
});

test('ages and short ids', () => {
  assert.equal(format.ageParts(40), { s: 40 });
  assert.equal(format.ageParts(3 * 3600 + 5 * 60), { h: 3, m: 5 });
  assert.equal(format.ageParts(2 * 86400 + 3600), { d: 2, h: 1 });
  assert.is(format.ageParts(-1), null);
  assert.is(format.shortId('dep_01M8ARVTHW8S968TYPGESJB7WJ', 6), 'dep_01…SJB7WJ');
  assert.is(format.shortId('dep_short', 6), 'dep_short');
  assert.is(format.formatPercent(0.1234), '12.3%');
  assert.is(format.formatPercent(null), '—');
  assert.is(format.formatCount(1234567), '1,234,567');
});

test('a statement reads the same on screen and in its CSV: the console\'s Thai for each balance-transaction type, the opening and the closing is the CSV\'s description_th', () => {
  for (const type of balanceTransactionTypes) {
    const csv = statementDescriptionTh(type);
    assert.ok(csv, `${type} has CSV words`);
    assert.equal([th[`btType.${type}`], th[`btxn.type.${type}`]], [csv, csv], type);
  }
  assert.equal([th['statement.opening'], th['statement.closing']], [statementDescriptionTh('opening'), statementDescriptionTh('closing')]);
});

test.run();
