// The satang command line's dispatcher: `scripts/satang <command> [words] [--options]`.
// Each subcommand is a module under scripts/cli/ exporting a function (argv) → exit code
// that parses its own arguments first (args.ts: strict, with --help); adding one is one
// line in `commands`. Modules load on demand, so a command never pays for another's
// imports (verify does not load the server).

import { redactSecretText } from '../../server/secret-text.ts';
import { exitFailed, exitUsage, Refusal } from './args.ts';

type Run = (argv: readonly string[]) => Promise<number>;

const commands: Record<string, { summary: string; load: () => Promise<Run> }> = {
  admin: { summary: 'onboarding through the back office: white labels, merchants, keys, funding, senders, beneficiaries, webhooks, suspension, the manual clock', load: async () => (await import('./admin.ts')).adminCommand },
  bo: { summary: "an operator's day: review queue, show a deposit with its timeline, approve/decline, reverse, approvals, claims, disputes, logs (tables, or --json)", load: async () => (await import('./bo.ts')).boCommand },
  call: { summary: 'sign and send a merchant request: call METHOD PATH --key sk_... [--data JSON] [-i] [--output FILE]', load: async () => (await import('./call.ts')).callCommand },
  listen: { summary: 'forward the sandbox webhook deliveries to a local URL: listen --forward-to URL --key sk_test_…', load: async () => (await import('./listen.ts')).listenCommand },
  token: { summary: 'mint an operator token from the local development issuer', load: async () => (await import('./token.ts')).tokenCommand },
  backup: { summary: 'back the data dir up while the server runs (consistent journal and logs, slips, sealed keys, a manifest), then verify the copy', load: async () => (await import('./backup.ts')).backupCommand },
  restore: { summary: 'restore a backup into a data dir without a journal, checked against its manifest and verified', load: async () => (await import('./backup.ts')).restoreCommand },
  doctor: { summary: "a deployment's health in one list (config, master key, secrets at rest, disk, last backup, readiness): OK, WARN or FAIL", load: async () => (await import('./doctor.ts')).doctorCommand },
  rekey: { summary: "rotate the master key of a stopped server's data dir: every sealed secret opened with the current key and sealed with the new one", load: async () => (await import('./rekey.ts')).rekeyCommand },
  verify: { summary: 'check journal.db: hash chain, replay vs snapshots, balances vs postings', load: async () => (await import('./verify.ts')).verifyCommand },
  'bank-sim': { summary: 'run the bank simulator (slip verification provider) on its own port', load: async () => (await import('./bank-sim.ts')).bankSimCommand },
  projections: { summary: 'read models: rebuild [NAME] from the journal, or status (positions, lag, parked)', load: async () => (await import('./projections.ts')).projectionsCommand },
  report: { summary: 'finance reports: statement, statement-lines, trial-balance, fees, disputes, receiving-account, account-lines (a table, --csv or --excel)', load: async () => (await import('./report.ts')).reportCommand },
  reconcile: { summary: "the merchant's daily reconciliation job: events since the last sequence, gaps, balance sums, orders vs GET", load: async () => (await import('./reconcile.ts')).reconcileCommand },
  scenarios: { summary: 'list the sandbox scenarios (amount_minor, name, what happens)', load: async () => (await import('./sandbox.ts')).scenariosCommand },
  trigger: { summary: 'play one sandbox scenario: trigger <amount | name> --key sk_test_... (creates, drives the clock, prints events)', load: async () => (await import('./sandbox.ts')).triggerCommand },
  certify: { summary: 'run certification with a sandbox key and print a pass/fail table (the live-key rule in production)', load: async () => (await import('./sandbox.ts')).certifyCommand },
  'drop-stream': { summary: "delete the NATS journal stream when it is not this journal's (after a restore without --nats), so the relay publishes again", load: async () => (await import('./stream.ts')).dropStreamCommand },
  projector: { summary: 'run the projections as their own process against NATS (SATANG_NATS_URL)', load: async () => (await import('./projector.ts')).projectorCommand },
};

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(11)} ${c.summary}`);
  return `usage: scripts/satang <command> [options]\n\ncommands (each takes --help):\n${lines.join('\n')}\n\n`
    + 'The server is $SATANG_BASE_URL, else http://$SATANG_HOST:$SATANG_PORT (127.0.0.1:8080); the data directory $SATANG_DATA_DIR (./data).\n';
}

// A reader that stops early (`satang scenarios | head -5`) closes the pipe: stop quietly,
// as Unix tools do, instead of an unhandled EPIPE and its stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

const [name, ...rest] = process.argv.slice(2);
const command = name === undefined ? undefined : commands[name];
if (!command) {
  const asked = name === undefined || name === 'help' || name === '--help' || name === '-h';
  if (asked) process.stdout.write(usage());
  else process.stderr.write(`unknown command: ${redactSecretText(name)}\n\n${usage()}`);
  process.exit(asked ? 0 : 2);
}
try {
  process.exitCode = await (await command.load())(rest);
} catch (error) {
  process.stderr.write(`satang ${name}: ${redactSecretText((error as Error).message)}\n`);
  process.exitCode = error instanceof Refusal ? exitFailed : exitUsage;
}
