// The one check every command that reads a server's data dir makes before it touches
// anything: the dir exists and a server has started on it. Without it, a mistyped
// --data-dir (or ./data from the wrong cwd) had the token command make the dir, a master key
// beside it and a fresh development issuer, then mint a token the server refused with a 401
// that named none of this; rekey printed a raw ENOENT after making a master key. A refusal
// here names the dir and creates nothing (exit 1, through main.ts).

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sealedKeyFileNames } from '../../adapters/private-files.ts';
import { journalFileName } from '../../adapters/sqlite/schema.ts';
import { Refusal } from './args.ts';

/** What the command reads there: the journal (rekey, projections), or the development issuer's key too (token and the commands that mint one). */
export type DataDirNeed = 'journal' | 'dev issuer';

/** The clear key file of an older data dir, which DevIssuer.fromDataDir seals on first read. */
const clearDevIssuerFileName = 'dev-issuer.jwk.json';

/** Why `dataDir` cannot serve the command, or undefined when it can. Reads only. */
export function dataDirProblem(dataDir: string, need: DataDirNeed): string | undefined {
  const where = resolve(dataDir);
  const started = existsSync(join(dataDir, journalFileName));
  const hasIssuer = existsSync(join(dataDir, sealedKeyFileNames.devIssuer)) || existsSync(join(dataDir, clearDevIssuerFileName));
  if (!started && !(need === 'dev issuer' && hasIssuer)) return `no satang data dir at ${where}: start the server once (npm start) or pass --data-dir`;
  if (need === 'dev issuer' && !hasIssuer) {
    return `${where} holds no development issuer key (${sealedKeyFileNames.devIssuer}): the server makes one when it starts without SATANG_OIDC_ISSUER; with an OpenID provider, pass its tokens in SATANG_OPERATOR_TOKEN and, for an action that needs a step-up, SATANG_STEP_UP_TOKEN`;
  }
  return undefined;
}

/** Throws a Refusal (exit 1) naming the dir when it cannot serve the command. */
export function requireDataDir(dataDir: string, need: DataDirNeed): void {
  const problem = dataDirProblem(dataDir, need);
  if (problem !== undefined) throw new Refusal(problem);
}
