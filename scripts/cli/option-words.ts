// A refusal in the CLI's words. The API's messages name its fields (`give amount_minor`,
// `send claim_refunds: "recover_from_payer"`, `in refund_account`), which no one types at the
// command line; each command's option table says which field an option fills (OptionSpec.field),
// its words which field each fills (CommandSpec.wordFields: bo search's TEXT is q), and this one
// function rewrites a refusal's message with it: `give --amount`, `--recover-from-payer`,
// `in --to-bank, --to-account and --to-name`, `TEXT is what to find`. Only the message: the code
// and the details (their paths) stay the API's, for scripts that read them.

import type { CommandSpec } from './args.ts';

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A field as a word of its own, not inside another name: legs.0.amount_minor is a path, not
 * amount_minor, and refund_account.bank_code is not refund_account; a sentence's full stop
 * after it is no path.
 */
const asWord = (pattern: string): RegExp => new RegExp(`(?<![\\w.-])${pattern}(?![\\w[]|\\.\\w)`, 'g');

/** `--a`, `--a and --b`, `--a, --b and --c`. */
function listed(options: readonly string[]): string {
  return options.length === 1 ? options[0]! : `${options.slice(0, -1).join(', ')} and ${options.at(-1)}`;
}

/**
 * What each field the command's options fill is called here, the longest first: a switch's
 * field with its value (`claim_refunds: "recover_from_payer"`) before its field alone, a
 * field before the object it is in, and that object (refund_account) as every option that
 * fills one of its fields, unless an option fills it whole.
 */
function optionWords(spec: CommandSpec): [RegExp, string][] {
  const words: [string, string][] = [];
  const parents = new Map<string, string[]>();
  for (const [name, o] of Object.entries(spec.options)) {
    if (o.field === undefined) continue;
    const option = `--${name}`;
    if (o.fieldValue !== undefined) words.push([`${escaped(o.field)}:? "?${escaped(o.fieldValue)}"?`, option]);
    words.push([escaped(o.field), option]);
    const dot = o.field.lastIndexOf('.');
    if (dot > 0) parents.set(o.field.slice(0, dot), [...(parents.get(o.field.slice(0, dot)) ?? []), option]);
  }
  for (const [word, field] of Object.entries(spec.wordFields ?? {})) words.push([escaped(field), word]);
  const filledWhole = new Set(Object.values(spec.options).map((o) => o.field));
  for (const [parent, options] of parents) if (!filledWhole.has(parent)) words.push([escaped(parent), listed(options)]);
  return words.sort((a, b) => b[0].length - a[0].length).map(([pattern, option]) => [asWord(pattern), option]);
}

/**
 * A request a refusal tells the caller to send first, as the command that sends it here: a
 * deposit's reversal refused while its claim's refund pays out says to cancel that withdrawal.
 */
const routeCommands: readonly [RegExp, string][] = [
  [/\bPOST \/v1\/bo\/withdrawals\/([\w-]+)\/cancel\b/g, 'satang bo withdrawal cancel $1'],
];

/** The refusal `json` with its message naming `spec`'s options where it names the fields they fill, and the commands that send the requests it names. */
export function inOptionWords(json: any, spec: CommandSpec | undefined): any {
  const message = json?.error?.message;
  if (spec === undefined || typeof message !== 'string') return json;
  const said = [...optionWords(spec), ...routeCommands].reduce((text, [field, option]) => text.replace(field, option), message);
  return said === message ? json : { ...json, error: { ...json.error, message: said } };
}
