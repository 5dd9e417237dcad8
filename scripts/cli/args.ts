// Argument parsing shared by the satang subcommands: a thin layer over node:util parseArgs
// (strict) that also gives every command its --help. A command declares its words and
// options once (CommandSpec); the same declaration parses the arguments and prints the
// help, so the help cannot drift from what is accepted. Parsing happens before anything
// else a command does: --help, an unknown option, a missing value or a stray word ends the
// command with no side effect (exit 0 for help, 2 for a usage error).
//
// Defaults from the environment: the data directory is $SATANG_DATA_DIR, then ./data; the
// server address $SATANG_BASE_URL, then http://$SATANG_HOST:$SATANG_PORT (DESIGN.md,
// Configuration).

import { parseArgs } from 'node:util';
import { redactSecretText, secretShaped } from '../../server/secret-text.ts';
import { bangkokWallTimeOf } from '../../core/finance/calendar.ts';

export const defaultDataDir = process.env.SATANG_DATA_DIR ?? './data';
const listenHost = process.env.SATANG_HOST || '127.0.0.1';
/** The server as the CLI calls it: empty is unset, as the server reads its environment; an IPv6 host bracketed. */
export const defaultUrl = process.env.SATANG_BASE_URL
  || `http://${listenHost.includes(':') ? `[${listenHost}]` : listenHost}:${process.env.SATANG_PORT || '8080'}`;

/** Exit codes of every command: done, the request or check failed, a usage error. */
export const exitOk = 0;
export const exitFailed = 1;
export const exitUsage = 2;

/**
 * A command that cannot go on for a reason the operator can mend (no data dir, a server that
 * does not answer): main.ts prints the message and exits 1, as a failed check does. Any
 * other error thrown out of a command is exit 2.
 */
export class Refusal extends Error {}

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** The value's placeholder in the help (`--port N`). */
  readonly value?: string;
  readonly help: string;
  readonly default?: string;
  readonly required?: boolean;
  /**
   * The value must be a whole number (digits, a leading - where `min` allows it), checked here
   * before the command runs, within `min`..`max` when given; every refusal is worded one way:
   * `--amount must be a whole number of satang, 1 or more, not '-5'`.
   */
  readonly integer?: boolean;
  readonly min?: number;
  readonly max?: number;
  /** What the number counts, named in its refusal: 'satang', 'seconds', 'rows'. */
  readonly unit?: string;
  /** The value is a server's base URL: a trailing / is dropped, a query or a fragment refused. */
  readonly baseUrl?: boolean;
  /** The value is a secret by design (an API key, sk_…); any other option or word that looks like one is refused. */
  readonly secret?: boolean;
  /** The value stays on this machine (a local URL; a FILE or a DIR always does): never sent, so never refused as secret-shaped. */
  readonly local?: boolean;
  /**
   * The API field the option fills, as the API's messages write it (`amount_minor`, `legs[]`,
   * `refund_account.bank_code`), where its name is not the option's: a refusal naming it is
   * printed naming the option (option-words.ts).
   */
  readonly field?: string;
  /** A switch's value for its field: `--recover-from-payer` sends claim_refunds: "recover_from_payer". */
  readonly fieldValue?: string;
  /**
   * Older spellings still taken for this option (`reason` for bo's --reason-code): parsed as
   * the option, never shown in the help, and the option's name in every message. Giving two
   * spellings of one option is a usage error (which would win is a guess).
   */
  readonly aliases?: readonly string[];
}

export interface CommandSpec {
  /** How it is called, without options: `satang call METHOD PATH`. */
  readonly usage: string;
  /** One line on what it does; the first sentence serves command lists too. */
  readonly summary: string;
  /** Positional words in order; a name in brackets (`[NAME]`) is optional. */
  readonly words?: readonly string[];
  /**
   * The API field a word fills, as OptionSpec.field for an option (`{ TEXT: 'q' }`): a
   * refusal naming the field is printed naming the word (option-words.ts).
   */
  readonly wordFields?: Readonly<Record<string, string>>;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Lines printed after the options (examples, notes). */
  readonly notes?: readonly string[];
}

export interface Args {
  /** The command they were parsed against: its options name the API's fields in a refusal (option-words.ts). */
  readonly spec: CommandSpec;
  readonly words: readonly string[];
  /** Every option's value: a string, a boolean for switches, undefined when absent. */
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
}

/** The satang server every command that talks to one takes: --url, else $SATANG_BASE_URL, else SATANG_HOST and SATANG_PORT. */
export const urlOption: OptionSpec = { type: 'string', value: 'URL', default: defaultUrl, baseUrl: true, help: 'the satang server ($SATANG_BASE_URL, else http://$SATANG_HOST:$SATANG_PORT)' };

/** A subcommand that POSTs takes the Idempotency-Key it sends; reach.ts names it when no answer came. */
export const idempotencyKeyOption: OptionSpec = { type: 'string', value: 'KEY', help: 'the Idempotency-Key (default: a fresh UUID, said when no answer came): run a command that got none again with it, and it is done once' };

const helpOption: OptionSpec = { type: 'boolean', short: 'h', help: 'show this help and do nothing else' };

export function helpText(spec: CommandSpec): string {
  const entries = Object.entries({ ...spec.options, help: helpOption }).map(([name, o]) => {
    const left = `${o.short ? `-${o.short}, ` : '    '}--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
    const extra = o.required ? ' (required)' : o.default !== undefined && o.default !== '' ? ` (default: ${o.default})` : '';
    return `  ${left.padEnd(28)} ${o.help}${extra}`;
  });
  const usage = `usage: ${spec.usage}${Object.keys(spec.options).length > 0 ? ' [options]' : ''}`;
  return [usage, '', spec.summary, '', 'options:', ...entries, ...(spec.notes ? ['', ...spec.notes] : []), ''].join('\n');
}

/** `satang admin merchant create` of `satang admin merchant create [NAME]`. */
function commandName(spec: CommandSpec): string {
  const words = spec.usage.split(' ');
  const end = words.findIndex((w) => !/^[a-z][a-z-]*$/.test(w)); // options (--to) and placeholders end the name
  return words.slice(0, end === -1 ? undefined : end).join(' ');
}

/**
 * Why `key` is no sandbox key, for the commands that take one (trigger, certify, listen), or
 * null. A live key is said to be one: "must be a sandbox key …, or set SATANG_API_KEY" sent
 * someone who had given their live key off to the environment for nothing. The key itself
 * is never repeated.
 */
export function notASandboxKey(key: string): string | null {
  if (key.startsWith('sk_test_')) return null;
  if (key === '') return '--key is missing: give a sandbox key (sk_test_…), or set SATANG_API_KEY';
  if (key.startsWith('sk_live_')) return 'the key given is a live key (sk_live_…); this command takes the merchant\'s sandbox key (sk_test_…: keys.sandbox.api_key in the file of admin merchant create --out)';
  return '--key must be a sandbox key (sk_test_…)';
}

/** A usage error: printed with a pointer to --help, exit code 2. */
export function usageError(spec: CommandSpec, message: string): number {
  const name = commandName(spec);
  // parseArgs and the word count quote what was typed: a key pasted without --key is not printed back.
  process.stderr.write(`${name}: ${redactSecretText(message)}\n(see: ${name} --help)\n`);
  return exitUsage;
}

/**
 * Parses argv against the spec. Returns the arguments, or an exit code when the command
 * must stop here: 0 after printing the help, 2 after printing a usage error.
 */
/** Digits (with a leading - where `min` allows below 0), a safe integer, within the option's bounds. An option whose default is '' (none) is checked only when given. */
function isWholeNumberIn(value: string, o: OptionSpec): boolean {
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value))) return false;
  const n = Number(value);
  return (o.min === undefined || n >= o.min) && (o.max === undefined || n <= o.max);
}

/**
 * What a number option takes, in its refusal's words: "a whole number of seconds from 1 to 999999".
 * An option with no maximum of its own still stops at the largest safe integer (what JSON carries
 * exactly): a value past it is told that bound, not "1 or more", which it is.
 */
function wholeNumber(o: Pick<OptionSpec, 'min' | 'max' | 'unit'>, value: string): string {
  const of = o.unit ? ` of ${o.unit}` : '';
  const max = o.max ?? (/^\d+$/.test(value) && !Number.isSafeInteger(Number(value)) ? Number.MAX_SAFE_INTEGER : undefined);
  if (o.min !== undefined && max !== undefined) return `a whole number${of} from ${o.min} to ${max}`;
  if (max !== undefined) return `a whole number${of}, at most ${max}`;
  if (o.min !== undefined) return `a whole number${of}, ${o.min} or more`;
  return `a whole number${of}`;
}

/** The option `--name` spells, by its own name or an alias. */
function optionSpelled(spec: CommandSpec, name: string): OptionSpec | undefined {
  return spec.options[name] ?? Object.values(spec.options).find((o) => o.aliases?.includes(name));
}

/** parseArgs' table: each option under its name and its aliases (a short letter only on its name); an alias that is another option's name is a bug in the spec. */
function parseArgsOptions(spec: CommandSpec): Record<string, { type: 'string' | 'boolean'; short?: string }> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const [name, o] of Object.entries({ ...spec.options, help: helpOption })) {
    options[name] = { type: o.type, ...(o.short ? { short: o.short } : {}) };
    for (const alias of o.aliases ?? []) {
      if (alias in spec.options || alias in options) throw new Error(`${spec.usage}: --${alias} is both an option and an alias`);
      options[alias] = { type: o.type };
    }
  }
  return options;
}

export function parseCommand(spec: CommandSpec, argv: readonly string[]): Args | number {
  const options = parseArgsOptions(spec);
  let parsed;
  try {
    parsed = parseArgs({ args: negativeValuesJoined(spec, argv), options, strict: true, allowPositionals: true });
  } catch (error) {
    if (argv.includes('--help') || argv.includes('-h')) return printHelp(spec);
    return usageError(spec, (error as Error).message.split('. ')[0]!); // parseArgs goes on about '--' after the first sentence
  }
  if (parsed.values.help) return printHelp(spec);
  const words = spec.words ?? [];
  const requiredWords = words.filter((w) => !w.startsWith('['));
  if (parsed.positionals.length > words.length) return usageError(spec, `unexpected argument '${parsed.positionals[words.length]}'`);
  if (parsed.positionals.length < requiredWords.length) return usageError(spec, `missing ${requiredWords.slice(parsed.positionals.length).join(' ')}`);
  // A blank word (a script's unset variable) is refused as a blank option is: sent, `bo search ""`
  // came back refused naming the API's parameter, and `bo show ""` would ask for no deposit at all.
  const blank = parsed.positionals.findIndex((w) => w.trim() === '');
  if (blank !== -1) return usageError(spec, `${words[blank]!.replace(/[[\]]/g, '')} is empty: give a value`);
  // Before anything is sent: a secret pasted where an id or a note belongs would travel in a path, a query or a journal entry.
  const wordSecret = parsed.positionals.findIndex(secretShaped);
  if (wordSecret !== -1) return secretRefused(spec, words[wordSecret]?.replace(/[[\]]/g, '') ?? 'an argument', words[wordSecret]);
  const values: Record<string, string | boolean | undefined> = {};
  for (const [name, o] of Object.entries(spec.options)) {
    const spellings = [name, ...(o.aliases ?? [])].filter((s) => parsed.values[s] !== undefined);
    if (spellings.length > 1) return usageError(spec, `${spellings.map((s) => `--${s}`).join(' and ')} are one option (--${name}): give it once`);
    const given = parsed.values[spellings[0] ?? name] as string | boolean | undefined;
    const sent = !o.secret && !o.local && o.value !== 'FILE' && o.value !== 'DIR'; // a file named sk_test_shop.json is no key
    if (typeof given === 'string' && sent && secretShaped(given)) return secretRefused(spec, `--${name}`, o.value);
    const value = given ?? (o.type === 'boolean' ? false : o.default);
    if (value === undefined && o.required) return usageError(spec, `--${name} is required`);
    // Given, but empty (a script's unset variable): refused, as the API refuses an empty parameter —
    // dropped, `bo logs --merchant ""` listed every merchant's calls.
    if (given === '') return usageError(spec, `--${name} is empty: give a value, or leave the option out`);
    if (typeof value === 'string' && o.integer && !(given === undefined && value === '') && !isWholeNumberIn(value, o)) return usageError(spec, `--${name} must be ${wholeNumber(o, value)}, not '${value}'`);
    if (typeof value === 'string' && o.baseUrl) {
      const url = baseUrlOf(value);
      if (url === undefined) return usageError(spec, `--${name} (or $SATANG_BASE_URL) must be the server's address, http(s)://HOST[:PORT][/PATH], without a query or a fragment`);
      values[name] = url;
      continue;
    }
    values[name] = value;
  }
  return { spec, words: parsed.positionals, values };
}

/** A usage error for an argument shaped like a secret, naming what it takes; the value itself is never repeated. */
function secretRefused(spec: CommandSpec, what: string, placeholder = ''): number {
  const hint = placeholder === 'KEY_ID' ? "give the key's id (key_…; satang admin key list --merchant MCH_ID lists them)"
    : /(^|_)ID$/.test(placeholder) ? `give the ${placeholder}` : 'no secret belongs there';
  return usageError(spec, `${what} was given something shaped like a secret (sk_live_…, sk_test_… or a signed token eyJ…): nothing was sent; ${hint}`);
}

/**
 * A server's base URL as requests are built on it (`${url}/v1/…`): http(s), a trailing /
 * dropped (`http://h:8080/` asked `//v1/…`, a 404); undefined for anything else, a query
 * or a fragment included (they would land in the middle of every request's URL).
 */
export function baseUrlOf(value: string): string | undefined {
  let url: URL;
  try { url = new URL(value); } catch { return undefined; }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.search !== '' || url.hash !== '' || value.includes('?') || value.includes('#')) return undefined;
  return value.replace(/\/+$/, '');
}

/**
 * argv with a negative number given to a string option joined to it (`--amount -5` →
 * `--amount=-5`): parseArgs takes `-5` for an option and refuses it as "ambiguous", where
 * the command's own check says what the value must be.
 */
function negativeValuesJoined(spec: CommandSpec, argv: readonly string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') return [...joined, ...argv.slice(i)]; // the rest are words, as typed
    const name = argv[i]!.startsWith('--') ? argv[i]!.slice(2) : undefined;
    const next = argv[i + 1];
    if (name !== undefined && optionSpelled(spec, name)?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`--${name}=${next}`);
      i++;
    } else joined.push(argv[i]!);
  }
  return joined;
}

function printHelp(spec: CommandSpec): number {
  process.stdout.write(helpText(spec));
  return exitOk;
}

/** A string option's value ('' when absent and without default). */
export function text(args: Args, name: string): string {
  const value = args.values[name];
  return typeof value === 'string' ? value : '';
}

export function flag(args: Args, name: string): boolean {
  return args.values[name] === true;
}

// ---- command groups (`admin merchant create`, `projections rebuild`) ----

export interface Subcommand {
  /** The words that name it after the group: ['merchant', 'create']. */
  readonly words: readonly string[];
  readonly spec: CommandSpec;
  run(args: Args): Promise<number>;
}

/**
 * Picks the subcommand the leading words name (the longest match) and runs it with the rest.
 * No words, or --help after words that begin subcommands: their list (exit 0); anything else
 * that names no subcommand: a usage error (exit 2).
 */
export async function dispatch(group: string, summary: string, subcommands: readonly Subcommand[], argv: readonly string[]): Promise<number> {
  const leading: string[] = [];
  for (const a of argv) { if (a.startsWith('-')) break; leading.push(a); }
  const match = subcommands
    .filter((s) => s.words.every((w, i) => leading[i] === w))
    .sort((a, b) => b.words.length - a.words.length)[0];
  if (match) {
    const args = parseCommand(match.spec, argv.slice(match.words.length));
    return typeof args === 'number' ? args : match.run(args);
  }
  // `admin merchant --help` lists the subcommands those words begin.
  const named = subcommands.filter((s) => leading.every((w, i) => s.words[i] === w));
  const shown = named.length > 0 ? named : subcommands;
  const list = `usage: satang ${group} <subcommand> [options]\n\n${summary}\n\nsubcommands (each takes --help):\n`
    + shown.map((s) => `  ${s.words.join(' ').padEnd(20)} ${s.spec.summary.split('. ')[0]!.replace(/\.$/, '')}`).join('\n') + '\n';
  const asked = argv.length === 0 || argv.includes('--help') || argv.includes('-h');
  if (asked && named.length > 0) { process.stdout.write(list); return exitOk; }
  process.stderr.write(`satang ${group}: '${leading.join(' ') || argv[0]}' is not a subcommand\n\n${list}`);
  return exitUsage;
}

/** An instant as the API writes it (RFC 3339, UTC). */
const utcInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** An RFC 3339 instant in Bangkok time, `2026-11-30 18:23:40 +07`, as every CLI table prints one; any other text as it is. */
export const inBangkok = (text: string): string => (utcInstant.test(text) ? `${bangkokWallTimeOf(Date.parse(text))} +07` : text);
