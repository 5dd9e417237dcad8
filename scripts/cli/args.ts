// Argument parsing shared by the satang subcommands: words, `--name value` options and
// `--flag` switches; the data directory defaults to $SATANG_DATA_DIR, then ./data, and the
// server address to $SATANG_BASE_URL, then http://$SATANG_HOST:$SATANG_PORT (DESIGN.md,
// Configuration).

export interface Args {
  /** The words that are not options, in order (e.g. `merchant create`). */
  readonly words: readonly string[];
  /** `--name value` as a string, a bare `--flag` as true. */
  readonly options: Readonly<Record<string, string | true>>;
}

export const defaultDataDir = process.env.SATANG_DATA_DIR ?? './data';
export const defaultUrl = process.env.SATANG_BASE_URL
  ?? `http://${process.env.SATANG_HOST ?? '127.0.0.1'}:${process.env.SATANG_PORT ?? '8080'}`;

export function parseArgs(argv: readonly string[]): Args {
  const words: string[] = [];
  const options: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) { words.push(arg); continue; }
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) { options[arg.slice(2)] = next; i++; }
    else options[arg.slice(2)] = true;
  }
  return { words, options };
}

/** The option's value, else the fallback; throws when there is neither. */
export function option(args: Args, name: string, fallback?: string): string {
  const value = args.options[name];
  if (typeof value === 'string') return value;
  if (value === true) throw new Error(`--${name} needs a value`);
  if (fallback === undefined) throw new Error(`--${name} is required`);
  return fallback;
}

export function flag(args: Args, name: string): boolean {
  return args.options[name] === true;
}
