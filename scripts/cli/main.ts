// The satang command line's dispatcher: `scripts/satang <command> [words] [--options]`.
// Each subcommand is a module under scripts/cli/ exporting a function (Args) → exit code;
// adding one is one line in `commands`. Modules load on demand, so a command never pays
// for another's imports (verify does not load the server).

import { parseArgs, type Args } from './args.ts';

type Run = (args: Args) => Promise<number>;

const commands: Record<string, { summary: string; load: () => Promise<Run> }> = {
  verify: { summary: 'check journal.db: hash chain, replay vs snapshots, balances vs postings', load: async () => (await import('./verify.ts')).verifyCommand },
  admin: { summary: 'onboarding through the back office (white labels, merchants, funding, ...)', load: async () => (await import('./admin.ts')).adminCommand },
  call: { summary: 'sign and send a merchant request: call METHOD PATH --key sk_...', load: async () => (await import('./call.ts')).callCommand },
  token: { summary: 'mint an operator token from the local development issuer', load: async () => (await import('./token.ts')).tokenCommand },
  projections: { summary: 'read models: rebuild [NAME] from the journal, or status (positions, lag, parked)', load: async () => (await import('./projections.ts')).projectionsCommand },
  projector: { summary: 'run the projections as their own process against NATS (SATANG_NATS_URL)', load: async () => (await import('./projector.ts')).projectorCommand },
  'bank-sim': { summary: 'run the bank simulator (slip verification provider) on --port N', load: async () => (await import('./bank-sim.ts')).bankSimCommand },
};

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(11)} ${c.summary}`);
  return `usage: scripts/satang <command> [options]\n\ncommands:\n${lines.join('\n')}\n`;
}

const [name, ...rest] = process.argv.slice(2);
const command = name === undefined ? undefined : commands[name];
if (!command) {
  const asked = name === undefined || name === 'help' || name === '--help';
  process.stderr.write(asked ? usage() : `unknown command: ${name}\n\n${usage()}`);
  process.exit(asked ? 0 : 2);
}
try {
  process.exitCode = await (await command.load())(parseArgs(rest));
} catch (error) {
  process.stderr.write(`satang ${name}: ${(error as Error).message}\n`);
  process.exitCode = 2;
}
