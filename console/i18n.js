// Thai and English for every label of the console. Both dictionaries have the same keys
// (specs/console/i18n.unit.spec.ts checks that, the placeholders of each pair, and that
// every t('key') in console/ exists). The chosen language is remembered in localStorage —
// only the language, never a token; until one is chosen, the browser's preferred language.
// Placeholders are written {name}.

import { th } from './i18n-th.js';
import { en } from './i18n-en.js';

export const dictionaries = { th, en };
export const languages = ['th', 'en'];

const storageKey = 'satang.console.lang';
let current = readStoredLanguage();
if (globalThis.document) document.documentElement.lang = current;

function readStoredLanguage() {
  try {
    const stored = globalThis.localStorage?.getItem(storageKey);
    if (languages.includes(stored)) return stored;
  } catch { /* private mode: nothing stored */ }
  return browserLanguage(globalThis.navigator?.languages ?? [globalThis.navigator?.language]);
}

/**
 * Before an operator has chosen, the first of the browser's preferred languages the console
 * has ('th-TH' → th, 'en-GB' → en); Thai when it has none of them (the operations team's own).
 */
export function browserLanguage(preferred) {
  for (const tag of preferred ?? []) {
    const base = String(tag ?? '').toLowerCase().split('-')[0];
    if (languages.includes(base)) return base;
  }
  return 'th';
}

export function language() {
  return current;
}

export function setLanguage(lang) {
  if (!languages.includes(lang)) return;
  current = lang;
  try { globalThis.localStorage?.setItem(storageKey, lang); } catch { /* private mode: the choice lasts this page */ }
  if (globalThis.document) document.documentElement.lang = lang;
}

/** The label for `key` in the current language, with {placeholders} filled; the key itself if it is unknown (visible, never blank). */
export function t(key, vars) {
  const text = dictionaries[current][key] ?? dictionaries.en[key] ?? key;
  return vars ? text.replace(/\{(\w+)\}/g, (whole, name) => (vars[name] === undefined ? whole : String(vars[name]))) : text;
}

/** A label that may be missing: a status or code the dictionary does not know yet is shown as the code. */
export function label(prefix, code) {
  const key = `${prefix}.${code}`;
  return dictionaries[current][key] ?? String(code ?? '—');
}

/** The sentence the API gives an object in both languages (a rejection's, a review reason's: display_th, display_en), in the current one. */
export function displayText(o) {
  return (current === 'th' ? o?.display_th : o?.display_en) ?? '';
}

/**
 * A refusal in the current language. In Thai, the console's own sentence for the server's code
 * (refusal.<code>: what an operator does about it, where the server's message_th is written for
 * API clients and points at details.fields), else the server's Thai; in English the server's
 * specific message. The console's own refusals (a step-up given up) by their key.
 */
export function problemText(problem) {
  if (problem?.i18nKey) return t(problem.i18nKey, problem.i18nVars);
  if (current === 'th') {
    const own = typeof problem?.code === 'string' ? dictionaries.th[`refusal.${problem.code}`] : undefined;
    if (own) return own;
    if (problem?.messageTh) return problem.messageTh;
  }
  return problem?.message ?? dictionaries[current][`refusal.${problem?.code}`] ?? String(problem);
}

/**
 * The form fields a refusal names (details.fields[].path: `amount_minor`, `body.note`,
 * `query.status`, `legs[0].amount_minor`), each by the console's label: the page's own for its
 * form (`problem.fieldLabels`, API field → label key, given by the action's button), else the
 * console's name for that API field (field.<name>: one table that names every field an operator
 * form posts, specs/console/i18n.unit.spec.ts). A field the console has no label for is left
 * out: the server's message beneath names it.
 */
export function refusalFieldLabels(problem) {
  const fields = Array.isArray(problem?.details?.fields) ? problem.details.fields : [];
  const labels = [];
  for (const f of fields) {
    const name = String(f?.path ?? '').replace(/^(body|query)\./, '').replace(/\[\d+\]/g, '').split('.').pop();
    const key = problem.fieldLabels?.[name] ?? `field.${name}`;
    const text = dictionaries[current][key];
    if (text && !labels.includes(text)) labels.push(text);
  }
  return labels;
}
