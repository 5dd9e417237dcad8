// `satang token --sub emp_alice [--roles reviewer,approver] [--step-up] [--data-dir DIR]`:
// mints an operator JWT from the local development issuer kept in the data dir, on the
// wall clock (tokens are security time; a manual service clock never moves them). Roles
// default to `support` alone (read-only views): name the roles the work needs. A sub the
// server's token check would refuse (an invisible character, white space at an end) is refused
// here, before any token is made. The issuer's key is sealed: the master key comes from the
// same place as the server's (server/master-key.ts).

import { operatorIdProblem } from '../../core/operators.ts';
import { DevIssuer } from '../../server/auth/operator.ts';
import { operatorRoles } from '../../server/auth/roles.ts';
import { readConfig } from '../../server/config.ts';
import { sealerFor } from '../../server/master-key.ts';
import { defaultDataDir, flag, parseCommand, text, type CommandSpec, Refusal } from './args.ts';
import { requireDataDir } from './data-dir.ts';

export const tokenSpec: CommandSpec = {
  usage: 'satang token',
  summary: 'Mints an operator JWT from the local development issuer (its key is in the data directory, sealed under the master key) and prints it.',
  options: {
    sub: { type: 'string', value: 'ID', default: 'emp_dev', help: "the operator's employee id (the token's subject)" },
    roles: { type: 'string', value: 'LIST', default: 'support', help: `comma-separated roles (${operatorRoles.join(', ')}); default support, read-only` },
    'step-up': { type: 'boolean', help: 'a short-lived step-up token (X-PG-Step-Up-Token) instead of a session token' },
    'data-dir': { type: 'string', value: 'DIR', default: defaultDataDir, help: "the server's data directory ($SATANG_DATA_DIR)" },
  },
  notes: ['example: curl -H "Authorization: Bearer $(scripts/satang token --sub emp_alice --roles reviewer)" http://127.0.0.1:8080/v1/bo/...'],
};

/**
 * The development issuer of a server's data dir, its key opened with the master key the server
 * uses (beside the data dir, or SATANG_MASTER_KEY). A dir no server has started on is refused
 * before the master key is read: in development reading it would make one.
 */
export async function devIssuerOf(dataDir: string): Promise<DevIssuer> {
  requireDataDir(dataDir, 'dev issuer');
  const env = { ...process.env, SATANG_DATA_DIR: dataDir };
  return DevIssuer.fromDataDir(dataDir, sealerFor(readConfig(env), env));
}

/**
 * The step-up token for a ⚑ call: $SATANG_STEP_UP_TOKEN, else one minted by the development
 * issuer — but not when the operator's token came from elsewhere ($SATANG_OPERATOR_TOKEN,
 * a production issuer): the step-up must come from there too, and the CLI says where.
 */
export async function stepUpToken(dataDir: string, sub: string, roles: readonly string[]): Promise<string> {
  const given = process.env.SATANG_STEP_UP_TOKEN;
  if (given) return given;
  if (process.env.SATANG_OPERATOR_TOKEN) {
    throw new Refusal('this action needs a step-up: sign in to the console, open Command line (#/cli), press Step up and paste the export SATANG_STEP_UP_TOKEN=… line it gives (five minutes, one action)');
  }
  return mintToken(dataDir, sub, roles, true);
}

/**
 * A token from the development issuer — never with SATANG_OIDC_ISSUER: the server trusts
 * its OpenID provider then, and a development issuer's key left in the data dir (from a
 * start without one) must mint nothing an operator could mistake for the provider's word.
 */
export async function mintToken(dataDir: string, sub: string, roles: readonly string[], stepUp: boolean): Promise<string> {
  // A sub the server's token check refuses would make a token that only ever answers 401: say so here (a usage error, exit 2).
  const problem = operatorIdProblem(sub);
  if (problem) throw new Error(`--sub cannot name an operator: ${problem.replace(/^token sub claim /, 'it ')}`);
  if (process.env.SATANG_OIDC_ISSUER) {
    throw new Refusal('SATANG_OIDC_ISSUER is set, so the CLI mints no token: sign in to the console, open Command line (#/cli) and paste the export SATANG_OPERATOR_TOKEN=… line it gives (and, for an action that needs a step-up, SATANG_STEP_UP_TOKEN from its Step up)');
  }
  return (await devIssuerOf(dataDir)).mint(sub, { roles, stepUp });
}

export async function tokenCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(tokenSpec, argv);
  if (typeof args === 'number') return args;
  const roles = text(args, 'roles').split(',').filter(Boolean);
  const unknown = roles.filter((r) => !(operatorRoles as readonly string[]).includes(r));
  if (unknown.length > 0) throw new Error(`unknown role ${unknown.join(', ')}; roles: ${operatorRoles.join(', ')}`);
  console.log(await mintToken(text(args, 'data-dir'), text(args, 'sub'), roles, flag(args, 'step-up')));
  return 0;
}
