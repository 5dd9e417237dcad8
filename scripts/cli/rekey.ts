// `satang rekey --new-key-file FILE`: rotates the master key of a stopped server's data dir
// (server/rekey.ts). The current key comes from where the server takes it
// (SATANG_MASTER_KEY, SATANG_MASTER_KEY_FILE, or in development `<data dir>.master-key`);
// the next from FILE (the base64 of 32 bytes, as `openssl rand -base64 32` writes it).
// Prints what was resealed; exit 0 when done (or found done), 1 when refused (a running
// server, a key that opens nothing), 2 on a usage error.

import { loadMasterKey } from '../../server/master-key.ts';
import { readConfig } from '../../server/config.ts';
import { rekeyDataDir } from '../../server/rekey.ts';
import { Sealer } from '../../adapters/sealing.ts';
import { DataDirInUse } from '../../adapters/data-dir-lock.ts';
import { SchemaTooNew } from '../../adapters/sqlite/schema.ts';
import { defaultDataDir, exitFailed, exitOk, flag, parseCommand, text, usageError, type CommandSpec } from './args.ts';
import { requireDataDir } from './data-dir.ts';

export const rekeySpec: CommandSpec = {
  usage: 'satang rekey --new-key-file FILE',
  summary: "Rotates the master key of a stopped server's data dir: every API key secret, idempotency body, webhook signing key, webhook endpoint URL and sealed key file is opened with the current key and sealed again with the new one (the journal in one transaction, then vacuumed). Run it again with the same keys to finish one cut short. Then start the server with the new key; keep the old one as long as backups sealed with it.",
  options: {
    'new-key-file': { type: 'string', value: 'FILE', required: true, help: 'the new master key: a file holding the base64 of 32 bytes (openssl rand -base64 32)' },
    'data-dir': { type: 'string', value: 'DIR', default: defaultDataDir, help: "the server's data directory ($SATANG_DATA_DIR)" },
    json: { type: 'boolean', help: 'print the report as JSON' },
  },
};

function problemsOf(error: unknown): readonly string[] {
  return (error as { problems?: readonly string[] }).problems ?? [(error as Error).message];
}

function refused(error: Error): number {
  const stopFirst = error instanceof DataDirInUse ? '; stop it first: rekey runs on a stopped server\'s data dir' : '';
  process.stderr.write(`satang rekey: ${error.message}${stopFirst}\n`);
  return exitFailed;
}

export async function rekeyCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(rekeySpec, argv);
  if (typeof args === 'number') return args;
  const dataDir = text(args, 'data-dir');
  const newKeyFile = text(args, 'new-key-file');
  // Before the keys: in development, reading the current one beside a missing dir would make it.
  requireDataDir(dataDir, 'journal');
  let current: Buffer, next: Buffer, mode: 'development' | 'production';
  try {
    const env = { ...process.env, SATANG_DATA_DIR: dataDir };
    const config = readConfig(env);
    mode = config.env;
    current = loadMasterKey(config.masterKey, env);
    // The new key file as the server will read it once it is given (a production server refuses one others may read): refused now, not after.
    try {
      readConfig({ ...env, SATANG_MASTER_KEY: '', SATANG_MASTER_KEY_FILE: newKeyFile });
      next = loadMasterKey({ kind: 'file', path: newKeyFile });
    } catch (error) {
      // Checked as the server will read it once it is SATANG_MASTER_KEY_FILE; named as given here.
      const aboutIt = problemsOf(error).filter((p) => p.includes(newKeyFile));
      throw new Error(aboutIt.length > 0 ? aboutIt.join('; ').replaceAll('SATANG_MASTER_KEY_FILE', '--new-key-file') : problemsOf(error).join('; '));
    }
  } catch (error) {
    // A newer satang's journal, met looking for whether a missing development key sealed it: refused, as rekeyDataDir refuses it.
    if (error instanceof SchemaTooNew) return refused(error);
    return usageError(rekeySpec, problemsOf(error).join('; '));
  }
  if (current.equals(next)) return usageError(rekeySpec, 'the new key is the current key');
  let report;
  try {
    report = rekeyDataDir(dataDir, new Sealer(current), new Sealer(next));
  } catch (error) {
    return refused(error as Error);
  }
  if (flag(args, 'json')) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    process.stdout.write([
      `journal.db: ${report.journal === 'already' ? 'sealed with the new key already' : `resealed ${report.api_keys} API key secrets, ${report.idempotency_bodies} idempotency bodies, ${report.signing_keys} webhook signing keys, ${report.webhook_urls} webhook endpoint URLs and the marker a server checks its key against; vacuumed`}`,
      ...report.files.map((f) => `${f.name}: ${f.state === 'already' ? 'sealed with the new key already' : 'resealed'}`),
      `next: start the server with the new key (SATANG_MASTER_KEY_FILE=${newKeyFile}, or the unit's LoadCredential=master-key:…${mode === 'development' ? `; in development copy it over ${dataDir.replace(/\/$/, '')}.master-key, keeping the old one apart first` : ''}).`,
      'Keep the old key as long as you keep backups taken before now: they are sealed with it.',
      '',
    ].join('\n'));
  }
  return exitOk;
}
