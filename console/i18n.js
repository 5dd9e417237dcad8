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

/** The server's error message in the current language (the catalogue's Thai text, the specific English one in the title). */
export function problemText(problem) {
  if (current === 'th' && problem?.messageTh) return problem.messageTh;
  if (problem?.i18nKey) return t(problem.i18nKey, problem.i18nVars); // the console's own refusals (a step-up given up)
  return problem?.message ?? String(problem);
}
