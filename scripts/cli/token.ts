// `satang token --sub emp_alice [--roles reviewer,approver] [--step-up] [--data-dir DIR]`:
// mints an operator JWT from the local development issuer kept in the data dir, on the
// wall clock (tokens are security time; a manual service clock never moves them). Roles
// default to `support` alone (read-only views): name the roles the work needs. The issuer's
// key is sealed: the master key comes from the same place as the server's (server/master-key.ts).

import { DevIssuer } from '../../server/auth/operator.ts';
import { operatorRoles } from '../../server/auth/roles.ts';
import { readConfig } from '../../server/config.ts';
import { sealerFor } from '../../server/master-key.ts';
import { defaultDataDir, flag, option, type Args } from './args.ts';

export const defaultTokenRoles: readonly string[] = ['support'];

export async function mintToken(dataDir: string, sub: string, roles: readonly string[], stepUp: boolean): Promise<string> {
  const env = { ...process.env, SATANG_DATA_DIR: dataDir };
  const issuer = await DevIssuer.fromDataDir(dataDir, sealerFor(readConfig(env), env));
  return issuer.mint(sub, { roles, stepUp });
}

export async function tokenCommand(args: Args): Promise<number> {
  const roles = typeof args.options.roles === 'string' ? args.options.roles.split(',').filter(Boolean) : defaultTokenRoles;
  const unknown = roles.filter((r) => !(operatorRoles as readonly string[]).includes(r));
  if (unknown.length > 0) throw new Error(`unknown role ${unknown.join(', ')}; roles: ${operatorRoles.join(', ')}`);
  console.log(await mintToken(option(args, 'data-dir', defaultDataDir), option(args, 'sub', 'emp_dev'), roles, flag(args, 'step-up')));
  return 0;
}
