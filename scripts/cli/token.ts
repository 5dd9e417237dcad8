// `satang token --sub emp_alice [--roles reviewer,approver] [--step-up] [--data-dir DIR]`:
// mints an operator JWT from the local development issuer kept in the data dir.

import { DevIssuer } from '../../server/auth/operator.ts';
import { defaultDataDir, flag, parseCommand, text, type CommandSpec } from './args.ts';

export const tokenSpec: CommandSpec = {
  usage: 'satang token',
  summary: 'Mints an operator JWT from the local development issuer (its key is in the data directory) and prints it.',
  options: {
    sub: { type: 'string', value: 'ID', default: 'emp_dev', help: "the operator's employee id (the token's subject)" },
    roles: { type: 'string', value: 'LIST', default: '', help: 'comma-separated roles, e.g. reviewer,approver' },
    'step-up': { type: 'boolean', help: 'a short-lived step-up token (X-PG-Step-Up-Token) instead of a session token' },
    'data-dir': { type: 'string', value: 'DIR', default: defaultDataDir, help: "the server's data directory ($SATANG_DATA_DIR)" },
  },
  notes: ['example: curl -H "Authorization: Bearer $(scripts/satang token --sub emp_alice)" http://127.0.0.1:8080/v1/bo/...'],
};

export async function mintToken(dataDir: string, sub: string, roles: string[], stepUp: boolean): Promise<string> {
  const issuer = await DevIssuer.fromDataDir(dataDir);
  return issuer.mint(sub, { roles, stepUp, nowSeconds: Math.floor(Date.now() / 1000) });
}

export async function tokenCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(tokenSpec, argv);
  if (typeof args === 'number') return args;
  const roles = text(args, 'roles').split(',').filter(Boolean);
  console.log(await mintToken(text(args, 'data-dir'), text(args, 'sub'), roles, flag(args, 'step-up')));
  return 0;
}
