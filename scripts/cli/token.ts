// `satang token --sub emp_alice [--roles reviewer,approver] [--step-up] [--data-dir DIR]`:
// mints an operator JWT from the local development issuer kept in the data dir (sealed:
// the master key comes from the same place as the server's, see server/master-key.ts).

import { DevIssuer } from '../../server/auth/operator.ts';
import { readConfig } from '../../server/config.ts';
import { sealerFor } from '../../server/master-key.ts';
import { defaultDataDir, flag, option, type Args } from './args.ts';

export async function mintToken(dataDir: string, sub: string, roles: string[], stepUp: boolean): Promise<string> {
  const env = { ...process.env, SATANG_DATA_DIR: dataDir };
  const issuer = await DevIssuer.fromDataDir(dataDir, sealerFor(readConfig(env), env));
  return issuer.mint(sub, { roles, stepUp, nowSeconds: Math.floor(Date.now() / 1000) });
}

export async function tokenCommand(args: Args): Promise<number> {
  const roles = typeof args.options.roles === 'string' ? args.options.roles.split(',').filter(Boolean) : [];
  console.log(await mintToken(option(args, 'data-dir', defaultDataDir), option(args, 'sub', 'emp_dev'), roles, flag(args, 'step-up')));
  return 0;
}
